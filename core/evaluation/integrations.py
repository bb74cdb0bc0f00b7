"""Our retrieval pieces inside LangChain, LlamaIndex and ragas (none of which the app needs).

    chunk_retriever(chunks, "bm25", k=5)   our ChunkSearch as a LlamaIndex BaseRetriever, for
                                           RetrieverEvaluator and query engines
    llamaindex_bm25(nodes, k=5)            LlamaIndex's BM25Retriever with our Sudachi tokens
    langchain_bm25(documents, k=5)         LangChain's BM25Retriever with our Sudachi tokens
    import_ragas()                         ragas, importable and offline (see its docstring)

Both BM25 retrievers split on whitespace or an English word pattern by default, so a Japanese
sentence is one token and almost nothing matches; `make_tokenizer()` (SudachiPy, dictionary in
the wheel) gives them words. These libraries are dev requirements only: each function imports
its library when called, so the app and the CLI never load them.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import types
from functools import lru_cache
from typing import Any, Sequence

from core.evaluation.retrieval import ChunkSearch, RetrieverOptions
from core.evaluation.tokenize import Tokenizer, make_tokenizer
from core.model import Chunk

_VERTEX_MODULE = "langchain_community.chat_models.vertexai"


def import_ragas():
    """`ragas`, imported without a network and without usage tracking.

    ragas 0.2–0.4.3 import `ChatVertexAI` from `langchain_community.chat_models.vertexai`, a module no
    langchain-community for langchain-core 1.x has (ragas issues 2741, 2745), so `import ragas`
    fails. ragas only lists the class among those that can return several completions; a
    placeholder class there lets it import and changes nothing for the metrics we run.
    """
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # ragas' usage analytics would post events
    if _VERTEX_MODULE not in sys.modules and importlib.util.find_spec(_VERTEX_MODULE) is None:
        placeholder = types.ModuleType(_VERTEX_MODULE)
        placeholder.ChatVertexAI = type("ChatVertexAI", (), {"__doc__": "not installed (ragas import fix)"})
        sys.modules[_VERTEX_MODULE] = placeholder
    import ragas

    return ragas


def chunk_node(chunk: Chunk):
    """A chunk as a LlamaIndex TextNode with its nested chunk/v1 metadata."""
    from llama_index.core.schema import TextNode

    record = chunk.to_record()
    return TextNode(id_=record["id"], text=record["text"], metadata=record["metadata"])


@lru_cache(maxsize=1)
def _chunk_retriever_class():
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle

    class ChunkSearchRetriever(BaseRetriever):
        """core.evaluation.retrieval.ChunkSearch behind LlamaIndex's retriever interface."""

        def __init__(self, search: ChunkSearch, k: int, doc_id: str | None = None):
            super().__init__()
            self._search, self._k, self._doc_id = search, k, doc_id

        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            hits = self._search.search(query_bundle.query_str, self._k, doc_id=self._doc_id)
            return [NodeWithScore(node=chunk_node(h.chunk), score=h.score) for h in hits]

    return ChunkSearchRetriever


def chunk_retriever(chunks: Sequence[Chunk], kind: str = "bm25", k: int = 5,
                    options: RetrieverOptions | None = None):
    """Our retriever (bm25 | tfidf | fusion | dense) over `chunks`, as a LlamaIndex BaseRetriever."""
    return _chunk_retriever_class()(ChunkSearch(chunks, kind, "corpus", options), k)


@lru_cache(maxsize=1)
def _tokenized_bm25_class():
    from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
    from llama_index.core.vector_stores.utils import metadata_dict_to_node, node_to_metadata_dict
    from llama_index.retrievers.bm25 import BM25Retriever

    class TokenizedBM25Retriever(BM25Retriever):
        """LlamaIndex's BM25Retriever (bm25s inside) over tokens from a tokenizer of ours."""

        def __init__(self, nodes: Sequence[Any], tokenizer: Tokenizer, similarity_top_k: int):
            import bm25s

            model = bm25s.BM25()
            model.index([tokenizer(n.get_content(metadata_mode=MetadataMode.EMBED)) for n in nodes],
                        show_progress=False)
            model.corpus = [node_to_metadata_dict(n) | {"node_id": n.node_id} for n in nodes]
            self._tokenizer = tokenizer
            super().__init__(existing_bm25=model, similarity_top_k=similarity_top_k)

        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            tokens = self._tokenizer(query_bundle.query_str)
            scores = self.bm25.get_scores(tokens) if tokens else []
            ranked = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))[:self.similarity_top_k]
            return [NodeWithScore(node=metadata_dict_to_node(self.corpus[i]), score=float(scores[i]))
                    for i in ranked if scores[i] > 0]

    return TokenizedBM25Retriever


def llamaindex_bm25(nodes: Sequence[Any], k: int = 5, tokenizer: Tokenizer | None = None):
    """LlamaIndex's BM25Retriever over `nodes` (TextNodes), tokenised by Sudachi unless told otherwise."""
    return _tokenized_bm25_class()(list(nodes), tokenizer or make_tokenizer(), k)


def langchain_bm25(documents: Sequence[Any], k: int = 5, tokenizer: Tokenizer | None = None):
    """LangChain's BM25Retriever (rank_bm25 inside) over `documents`, tokenised by Sudachi."""
    from langchain_community.retrievers import BM25Retriever

    return BM25Retriever.from_documents(list(documents), k=k, preprocess_func=tokenizer or make_tokenizer())
