"""Export: chunk/v1 records in their JSONL, LangChain and LlamaIndex shapes, and the corrected
Document as DoclingDocument JSON."""
