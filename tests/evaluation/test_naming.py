"""A question naming a document by its title's head word (概要資料で…) favours that document's chunks,
corpus-wide; a head two titles share, a one-character head and a Latin head name nothing."""
import pytest

from core.categories import Category
from core.evaluation.naming import file_name_words, named_document, romaji, title_heads
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


# ---- a document named by its romanised file name ---------------------------------------------------
def filed(doc: str, source: str, i: int, text: str) -> Chunk:
    ref = SourceRef(f"{doc}-e{i}", 1, (0, 0, 10, 10), Category.TEXT)
    return Chunk(f"{doc}-c{i}", text, doc, source, 1, 1, (), (Category.TEXT,), False, (ref,), "test")


def test_romaji_is_hepburn_with_long_vowels_kept():
    assert [romaji(k) for k in ("ホンペン", "ハクショ", "ケッサン", "ジョウホウ", "マッチャ", "キョクヨウ")] == \
        ["honpen", "hakusho", "kessan", "jouhou", "matcha", "kyokuyou"]


def test_file_name_words_are_the_long_words_only_one_document_has():
    chunks = [filed("main", "ai_guideline_honpen_siryo1.pdf", 0, "本文"),
              filed("deck", "ai_guideline_gaiyou_siryo2.pdf", 0, "本文"),
              filed("paper", "R6/joho_hakusho.pdf", 0, "本文")]
    assert file_name_words(chunks) == {"honpen": "main", "gaiyou": "deck", "joho": "paper", "hakusho": "paper"}


def test_a_noun_read_as_a_file_name_word_names_that_document_unless_it_is_a_topic():
    words = {"honpen": "main", "hakusho": "paper", "joho": "paper"}
    texts = ["本編と別添の関係を示す", "AIの情報", "情報の流通"] + ["安全性", "透明性"] * 4  # 本編: 1 of 11
    assert named_document("本編の注で、著作権について何が重要とされているか", {}, words, texts) == "main"
    assert named_document("白書によると、偽情報への対策は何か", {}, words, texts) == "paper"
    assert named_document("情報の流通で何が課題か", {}, words, texts) is None  # jouhou is not the file's joho
    assert named_document("本編と別添はどう関係しているか", {}, words, texts) is None  # both are the topic
    assert named_document("本編の第1部には何が書かれているか", {}, words, ["本編"] * 3 + ["x"] * 7) is None  # in 3 of 10 chunks
    assert named_document("本編と白書のどちらか", {"deck": frozenset({"概要"})}, words, texts) == "paper"


def test_corpus_search_puts_the_document_named_by_its_file_first():
    chunks = [filed("deck", "guideline_gaiyou.pdf", 0, "本編の第1部には、AIについての定義と変遷が整理されている"),
              filed("main", "guideline_honpen.pdf", 0, "第1部 AIとは：AIの定義と変遷"),
              filed("main", "guideline_honpen.pdf", 1, "安全性の確保について述べる。"),
              filed("deck", "guideline_gaiyou.pdf", 1, "透明性の確保について述べる。")]
    chunks += [filed("main", "guideline_honpen.pdf", 2 + k, f"第{k + 2}部の内容") for k in range(8)]  # 本編 in 1 of 12
    question = "本編の第1部には、AIについて何が整理されているか"
    plain = ChunkSearch(chunks, "bm25", options=RetrieverOptions(named_document_weight=0))
    named = ChunkSearch(chunks, "bm25", options=RetrieverOptions(named_document_weight=1.0))
    assert plain.search(question, 2)[0].chunk.id == "deck-c0"  # the deck writes 本編 and the same words
    assert named.search(question, 2)[0].chunk.id == "main-c0"
