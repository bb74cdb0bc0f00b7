"""A question naming a document by its title's head word (概要資料で…) favours that document's chunks,
corpus-wide; a head two titles share, a one-character head and a Latin head name nothing."""
import pytest

from core.categories import Category
from core.evaluation.naming import named_document, title_heads
from core.evaluation.retrieval import ChunkSearch, RetrieverOptions
from core.evaluation.tokenize import sudachi_available
from core.model import Chunk, SourceRef

pytestmark = pytest.mark.skipif(not sudachi_available(), reason="SudachiPy is not installed")


def chunk(doc: str, i: int, text: str, title: bool = False, page: int = 1) -> Chunk:
    category = Category.TITLE if title else Category.TEXT
    ref = SourceRef(f"{doc}-e{i}", page, (0, 0, 10, 10), category)
    return Chunk(f"{doc}-c{i}", text, doc, f"{doc}.pdf", page, page, (), (category,), False, (ref,), "test")


SUMMARY_BODY = "AI提供者：AI利用者に個人情報の入力時の留意点を説明"
MAIN_BODY = "AI提供者は、AI利用者に対して個人情報を入力する際の留意点を説明する。"
CHUNKS = [
    chunk("summary", 0, "AI事業者ガイドライン案（第1.0版）概要\n総務省 経済産業省", title=True),
    chunk("summary", 1, SUMMARY_BODY, page=5),
    chunk("main", 0, "AI 事業者ガイドライン案\n（第 1.0 版）", title=True),
    chunk("main", 1, MAIN_BODY, page=20),
]


def test_the_heads_of_titles_are_their_last_japanese_words_that_no_other_title_shares():
    heads = title_heads(CHUNKS)
    # 案 and 版 are one character; ガイドライン案 ends both titles; "AI" is Latin
    assert heads == {"summary": frozenset({"概要"}), "main": frozenset()}


def test_a_title_on_a_later_page_is_a_parts_heading_not_the_documents_name():
    heads = title_heads([chunk("d", 0, "第3章 調査報告書", title=True, page=7), chunk("e", 0, "本文", page=1)])
    assert heads == {"d": frozenset(), "e": frozenset()}


def test_a_question_names_the_one_document_whose_head_it_writes():
    heads = {"summary": frozenset({"概要"}), "paper": frozenset({"白書"})}
    assert named_document("概要資料で、AI提供者は何を説明するか", heads) == "summary"
    assert named_document("AI提供者は何を説明するか", heads) is None
    assert named_document("概要と白書のどちらにも書かれているか", heads) is None  # two named: neither


def test_corpus_search_puts_the_named_documents_chunk_first():
    question = "概要資料で、AI提供者はAI利用者に個人情報を入力する際の何を説明するとされているか"
    plain = ChunkSearch(CHUNKS, "bm25", options=RetrieverOptions(named_document_weight=0))
    named = ChunkSearch(CHUNKS, "bm25", options=RetrieverOptions(named_document_weight=1.0))
    assert plain.search(question, 2)[0].chunk.id == "main-c1"  # the longer restatement wins on words alone
    top = named.search(question, 2)
    assert top[0].chunk.id == "summary-c1" and [r.rank for r in top] == [1, 2]


def test_a_negative_weight_is_refused():
    with pytest.raises(ValueError, match="named_document_weight"):
        RetrieverOptions(named_document_weight=-1)
