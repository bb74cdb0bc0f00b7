"""Retrievers over chunk texts: BM25 (Sudachi tokens), TF-IDF on character n-grams, weighted
reciprocal-rank fusion, optional dense, corpus-wide or routed per document."""
import pytest

from core.categories import Category
from core.evaluation.retrieval import (BM25Index, asked_term, caption_labels, defines, named_labels, ChunkSearch, FusionIndex, RetrieverOptions, RetrieverUnavailable,
                                       TfidfIndex, build_index)
from core.evaluation.tokenize import make_tokenizer, query_tokens
from core.model import Chunk, SourceRef

TEXTS = [
    "交通費は、最も経済的かつ合理的な経路により算出した実費を支給する。",
    "宿泊費は、役職区分に応じて上限額の範囲内で実費を支給する。",
    "領収書を紛失した場合、申請者は支払証明書を提出する。",
    "SELECT employee_id, SUM(amount) FROM expenses WHERE status = 'approved'",
]


def chunk(i: int, text: str, doc: str) -> Chunk:
    ref = SourceRef(f"{doc}-e{i}", 1, (0, 0, 10, 10), Category.TEXT)
    return Chunk(f"{doc}-c{i}", text, doc, f"{doc}.pdf", 1, 1, (), (Category.TEXT,), False, (ref,), "test")


def test_bm25_ranks_the_chunk_sharing_the_questions_words_first():
    index = BM25Index(TEXTS, make_tokenizer())
    assert index.search("領収書をなくしたときは何を提出しますか", 3)[0].index == 2
    assert index.search("宿泊費の上限額は", 3)[0].index == 1


def test_bm25_returns_nothing_when_no_word_is_shared():
    assert BM25Index(TEXTS, make_tokenizer()).search("量子コンピュータ", 5) == []


def test_bm25_finds_sql_from_a_full_width_question():
    assert BM25Index(TEXTS, make_tokenizer()).search("ｅｘｐｅｎｓｅｓ テーブルの ＳＴＡＴＵＳ", 2)[0].index == 3


def test_tfidf_matches_character_ngrams_without_a_tokenizer():
    index = TfidfIndex(TEXTS)
    hits = index.search("支払証明書", 2)
    assert hits[0].index == 2 and 0 < hits[0].score <= 1.0


def test_tfidf_scores_are_cosines_so_a_text_scores_one_against_itself():
    index = TfidfIndex(TEXTS)
    assert index.search(TEXTS[1], 1)[0].score == pytest.approx(1.0)


def test_fusion_adds_weighted_reciprocal_ranks_of_its_components():
    bm25, tfidf = BM25Index(TEXTS, make_tokenizer()), TfidfIndex(TEXTS)
    fusion = FusionIndex([(bm25, 0.7), (tfidf, 0.3)], rrf_k=60, depth=10)
    query = "実費を支給する交通費"
    expected: dict[int, float] = {}
    for index, weight in ((bm25, 0.7), (tfidf, 0.3)):
        for rank, hit in enumerate(index.search(query, 10), start=1):
            expected[hit.index] = expected.get(hit.index, 0.0) + weight / (60 + rank)
    got = {h.index: h.score for h in fusion.search(query, 10)}
    assert got == pytest.approx(expected)


def test_fusion_with_one_component_keeps_that_components_order():
    bm25 = BM25Index(TEXTS, make_tokenizer())
    fusion = FusionIndex([(bm25, 1.0)])
    query = "実費を支給する"
    assert [h.index for h in fusion.search(query, 4)] == [h.index for h in bm25.search(query, 4)]


def test_fusion_weights_are_validated():
    with pytest.raises(ValueError, match="'bm42'"):
        RetrieverOptions(fusion_weights=(("bm42", 1.0),))


def test_dense_without_a_model_folder_says_nothing_is_downloaded():
    with pytest.raises(RetrieverUnavailable, match="Nothing is downloaded"):
        build_index("dense", TEXTS)


def test_dense_with_a_missing_folder_names_the_folder(tmp_path):
    with pytest.raises(RetrieverUnavailable, match="does not exist"):
        build_index("dense", TEXTS, RetrieverOptions(dense_model_path=str(tmp_path / "nope")))


def test_dense_with_a_folder_but_no_package_or_model_explains_what_is_missing(tmp_path):
    with pytest.raises(RetrieverUnavailable, match="sentence-transformers"):
        build_index("dense", TEXTS, RetrieverOptions(dense_model_path=str(tmp_path)))


def test_routed_scope_only_searches_the_questions_document():
    chunks = [chunk(0, TEXTS[0], "docA"), chunk(1, TEXTS[0] + "交通費", "docB"), chunk(2, TEXTS[2], "docB")]
    corpus = ChunkSearch(chunks, "bm25", "corpus")
    routed = ChunkSearch(chunks, "bm25", "routed")
    assert {r.chunk.doc_id for r in corpus.search("交通費の実費", 5)} == {"docA", "docB"}
    hits = routed.search("交通費の実費", 5, doc_id="docA")
    assert [r.chunk.id for r in hits] == ["docA-c0"] and hits[0].rank == 1


def test_routed_scope_needs_the_questions_document():
    with pytest.raises(ValueError, match="routed"):
        ChunkSearch([chunk(0, TEXTS[0], "d")], "tfidf", "routed").search("交通費", 3)


def test_an_empty_corpus_retrieves_nothing():
    for kind in ("bm25", "tfidf", "fusion"):
        assert ChunkSearch([], kind).search("交通費", 3) == []


def test_equal_scores_rank_by_position_so_runs_are_reproducible():
    index = BM25Index(["精算", "精算", "精算"], make_tokenizer())
    assert [h.index for h in index.search("精算", 3)] == [0, 1, 2]


# The same four words; only the second text has them in the question's order, inside a longer text
# that plain BM25 (length-normalised) ranks below the short jumbled one.
PHRASE_TEXTS = [
    "規約の文書化とサービス等。",
    "AI提供者は、利用者への説明として、サービス規約等の文書化を行い、プライバシーポリシーを明示し、"
    "問い合わせ窓口を設け、変更の履歴を公開する。",
    "交通費は実費を支給する。",
    "宿泊費は上限額の範囲内で支給する。",
]


def test_bm25_ranks_the_question_s_words_in_its_order_above_the_same_words_jumbled():
    query = "サービス規約等の文書化では何をするか"
    assert BM25Index(PHRASE_TEXTS, make_tokenizer(), phrase_weight=0.0).search(query, 2)[0].index == 0
    assert BM25Index(PHRASE_TEXTS, make_tokenizer()).search(query, 2)[0].index == 1  # the index's weight 1.0
    # the default 0.5 (stop 34) no longer lifts a text this much longer: see the next test
    assert build_index("bm25", PHRASE_TEXTS, RetrieverOptions(bm25_phrase_weight=1.0)).search(query, 2)[0].index == 1


def test_bm25_phrase_term_adds_nothing_for_a_one_word_question_or_a_one_word_text():
    plain = BM25Index(["精算", "精算 規程", "交通費"], make_tokenizer(), phrase_weight=0.0)
    phrase = BM25Index(["精算", "精算 規程", "交通費"], make_tokenizer(), phrase_weight=1.0)
    assert phrase.scores("精算") == pytest.approx(plain.scores("精算"))


def top_hit(texts, query: str, **weights) -> int:
    """The index of the best text for `query`: with `weights` set on the index, or the default
    retriever's (build_index) when none are given."""
    index = BM25Index(texts, make_tokenizer(), **weights) if weights else build_index("bm25", texts)
    return index.search(query, 2)[0].index


# The question names a list item by its number; the other text says the question's word more often.
NUMBER_TEXTS = [
    "別添では別添資料として別添の事例と別添の手順を示す。別添の構成は本編に対応する。",
    "別添の目次\n7. 主体別の事例\n8. 主体横断的な仮想事例\n9. 用語集と参考文献の一覧",
    "7. 交通費は実費を支給する。",
    "宿泊費は上限額の範囲内で支給する。",
    "8. 会議費は事前に申請し、領収書を添えて翌月10日までに経理部に提出する。",
    "日当は出張日数に応じて支給する。",
]


def test_bm25_a_number_the_question_names_weighs_more_than_a_word_it_repeats():
    query = "別添の8は何か。"
    assert top_hit(NUMBER_TEXTS, query, number_weight=1.0) == 0
    assert top_hit(NUMBER_TEXTS, query) == 1  # default weight 2.0


def test_bm25_number_weight_changes_nothing_for_a_question_without_digits():
    plain = BM25Index(NUMBER_TEXTS, make_tokenizer(), number_weight=1.0)
    weighted = BM25Index(NUMBER_TEXTS, make_tokenizer(), number_weight=2.0)
    assert weighted.scores("別添の事例は何か") == pytest.approx(plain.scores("別添の事例は何か"))


# An overview that names the guideline in a short sentence, and a timeline that dates it among others.
WHEN_TEXTS = [
    "AI利活用ガイドラインを統合し、その考え方を引き継ぐ。",
    "AI利活用ガイドライン 2019年8月: 総務省\nAI開発ガイドライン 2017年7月: 総務省",
    "交通費は実費を支給する。",
    "宿泊費は上限額の範囲内で支給する。",
]


def test_bm25_a_question_asking_when_lifts_the_text_that_writes_a_date():
    query = "AI利活用ガイドラインはいつ策定されたか。"
    assert top_hit(WHEN_TEXTS, query, date_weight=0.0) == 0
    assert top_hit(WHEN_TEXTS, query) == 1  # default weight 0.5
    plain = BM25Index(WHEN_TEXTS, make_tokenizer(), date_weight=0.0)
    lifted = BM25Index(WHEN_TEXTS, make_tokenizer(), date_weight=0.5)
    other = "AI利活用ガイドラインは何を策定したか。"  # not a when-question: no lift
    assert lifted.scores(other) == pytest.approx(plain.scores(other))


# Running text that refers to table 1 and says the question's words, and table 1 itself.
LABEL_TEXTS = [
    "以降は「表1. 主体毎に重要となる事項」に記載されている事項を、AI提供者及びAI利用者の別に表記する。",
    "表1. 主体毎に重要となる事項\n| 7) アカウンタビリティ | AI利用者への対応状況の説明 | 文書化 |",
    "交通費は実費を支給する。",
    "宿泊費は上限額の範囲内で支給する。",
]


def test_bm25_a_question_naming_a_table_lifts_the_chunk_captioned_with_it():
    query = "表1で、AI提供者にアカウンタビリティについて重要となる事項は何か。"
    assert top_hit(LABEL_TEXTS, query, label_weight=0.0) == 0
    assert top_hit(LABEL_TEXTS, query) == 1  # default weight 0.5
    assert named_labels("Table 2 と表１０") == {("表", "2"), ("表", "10")} and not named_labels("第1.0版の改訂")
    assert caption_labels(LABEL_TEXTS[0]) == set()  # a mention inside a sentence is no caption


def test_bm25_options_refuse_a_negative_phrase_weight_or_b_outside_0_1():
    with pytest.raises(ValueError, match="bm25_phrase_weight"):
        RetrieverOptions(bm25_phrase_weight=-1)
    with pytest.raises(ValueError, match="bm25_b"):
        RetrieverOptions(bm25_b=1.5)
    with pytest.raises(ValueError, match="bm25_number_weight"):
        RetrieverOptions(bm25_number_weight=-1)
    with pytest.raises(ValueError, match="bm25_date_weight"):
        RetrieverOptions(bm25_date_weight=-1)
    with pytest.raises(ValueError, match="bm25_label_weight"):
        RetrieverOptions(bm25_label_weight=-1)


# A short text that happens to print the question's interrogative (どこ), and the long one that
# answers it (the white paper p8 and the guideline p9 of the gold set).
WHERE_TEXTS = [
    "AIの真贋判定では、どこが改竄されたのかも分かる。",
    "AIはArtificial Intelligence（人工知能）を意味し、1956年にダートマス会議で初めて使用された言葉であるとされている。"
    + "AIは未だ確立された定義はなく、広義の人工知能の外延を厳密に定義することは困難である。" * 3,
    "AIの利用には交通費の実費を支給する。",
    "AIの宿泊費は上限額の範囲内で支給する。",
    "AIの活用は社会に便益をもたらす。",
]


def test_bm25_leaves_the_questions_interrogatives_out_of_its_words():
    query = "AIという言葉が初めて使われたのはどこか。"
    with_them = BM25Index(WHERE_TEXTS, make_tokenizer(), drop_interrogatives=False)
    without = BM25Index(WHERE_TEXTS, make_tokenizer(), drop_interrogatives=True)
    assert with_them.search(query, 1)[0].index == 0  # どこ is rare, so it outweighs the answer's words
    assert without.search(query, 1)[0].index == 1
    assert build_index("bm25", WHERE_TEXTS).search(query, 1)[0].index == 1  # the default leaves them out
    # a question of interrogatives only keeps them rather than ask for nothing
    assert without.search("どこ", 1)[0].index == 0


# The text that answers "how often" without the question's frame word, and one that prints 示す.
FRAME_TEXTS = [
    "図2に示すとおり、会議の資料は事務局が作成する。",
    "会議は毎月第二火曜日に開催され、開催の案内は一週間前に送る。",
    "研修は年に二回開催する。",
    "説明会は四月に開催する。",
    "会議の議事録を保存する。",
]


def test_bm25_leaves_the_questions_frame_words_out_too():
    query = "会議の開催頻度はどう示されているか。"
    assert query_tokens(make_tokenizer(), query) == ["会議", "開催", "頻度"]  # not 示す, not 居る of ている
    with_them = BM25Index(FRAME_TEXTS, make_tokenizer(), drop_interrogatives=False)
    assert with_them.search(query, 1)[0].index == 0  # 示す is rare, so it outweighs 開催
    assert build_index("bm25", FRAME_TEXTS).search(query, 1)[0].index == 1
    # a question of such words only keeps them
    assert query_tokens(make_tokenizer(), "示されている") == ["示す", "居る"]


def test_bm25_a_shared_word_pair_does_not_outweigh_more_of_the_questions_words():
    # 0: one pair of the question's words in its order (サービス規約); 1: three of its other words
    texts = ["サービス規約の見直しを毎年行う。", "規約を利用者に提供する。", "会議は毎月開催する。", "資料を作成する。",
             "議事録を保存する。"]
    query = "サービス規約の見直しで利用者に何を提供するか。"
    def top(weight: float) -> int:
        return BM25Index(texts, make_tokenizer(), phrase_weight=weight).search(query, 1)[0].index

    assert top(1.0) == 0
    assert top(RetrieverOptions().bm25_phrase_weight) == 1  # the default weight, 0.5


# The guideline's pages say アカウンタビリティ in passing; one footnote defines it.
DEFINITION_TEXTS = [
    "各主体はアカウンタビリティを果たす（「7）アカウンタビリティ」）。",
    "各主体はアカウンタビリティの確保に努める。文書化と説明を行う。",
    "21 アカウンタビリティとはAIに関する責任及びその前提条件の整備に関する概念とする。",
    "交通費は実費を支給する。",
]


def test_bm25_a_question_asking_what_a_term_means_lifts_the_text_that_defines_it():
    query = "このガイドラインでいうアカウンタビリティとはどういう意味か。"
    assert top_hit(DEFINITION_TEXTS, query, definition_weight=0.0) == 0
    assert top_hit(DEFINITION_TEXTS, query) == 2  # default weight 1.0
    assert asked_term(query) == "アカウンタビリティ"
    assert asked_term("本編では「生成AI」をどう定義しているか。") == "生成ai"
    assert asked_term("AIの「信頼性」とはどういう状態を指すか。") == "信頼性"
    assert asked_term("ガイドラインは何を定めているか。") is None  # no term asked about
    assert defines("生成ai•文章、画像等を生成できるaiの総称を指す。", "生成ai")  # a glossary line
    assert defines("要求に対して十分に動作している(信頼性)", "信頼性")  # the term after its description
    assert not defines("「7)アカウンタビリティ」)", "アカウンタビリティ")  # a mention, not a definition


def test_a_quoted_term_that_is_the_topic_of_how_it_is_defined_is_the_asked_term():
    # 「X」は…として定義されている asks X's definition as 「X」とは does; a quoted term the question
    # merely names ("「共通の指針」は何項目か") asks nothing about its meaning
    assert asked_term("ガイドラインでいう「AIガバナンス」は、何を目指す取り組みとして定義されているか。") == "aiガバナンス"
    assert asked_term("「共通の指針」は何項目あるか。") is None


def kind_chunk(i: int, text: str, category: Category) -> Chunk:
    ref = SourceRef(f"d-e{i}", 1, (0, 0, 10, 10), category)
    return Chunk(f"d-c{i}", text, "d", "d.pdf", 1, 1, (), (category,), False, (ref,), "test")


# Running text that explains the table and says the question's words more often, then the table.
KIND_CHUNKS = [
    kind_chunk(0, "主体毎に重要となる事項は、AI開発者に求められる事項を含む。", Category.TEXT),
    kind_chunk(1, "| 主体毎に重要となる事項 | AI開発者 |\n| 2) 安全性 | 適切なデータの学習 |", Category.TABLE),
    kind_chunk(2, "交通費は実費を支給する。", Category.TEXT),
]


def test_bm25_a_question_naming_the_kind_of_element_lifts_the_chunks_holding_one():
    query = "主体毎に重要となる事項の表で、安全性についてAI開発者に求められる事項は何か。"
    plain = ChunkSearch(KIND_CHUNKS, "bm25", options=RetrieverOptions(bm25_kind_weight=0.0))
    assert plain.search(query, 2)[0].chunk.id == "d-c0"
    assert ChunkSearch(KIND_CHUNKS, "bm25").search(query, 2)[0].chunk.id == "d-c1"  # default weight 0.5
    without_cue = "主体毎に重要となる事項で、安全性についてAI開発者に求められる事項は何か。"
    assert ChunkSearch(KIND_CHUNKS, "bm25").search(without_cue, 2)[0].chunk.id == "d-c0"


def test_asked_kinds_reads_the_noun_before_a_particle_not_a_word_holding_its_character():
    from core.evaluation.retrieval import asked_kinds

    assert asked_kinds("主体ごとの重要事項の表で、何が求められているか。") == {"table"}
    assert asked_kinds("年表によると、G7が枠組みを公表したのはいつか。") == {"picture"}
    assert asked_kinds("ガイドラインの注でいう「関連するステークホルダー」とは。") == {"footnote"}
    assert asked_kinds("脚注に書かれている出典は何か。") == {"footnote"}
    assert asked_kinds("公表したのは誰か。意図した範囲に注意して、何と表現しているか。") == set()
    with pytest.raises(ValueError, match="bm25_kind_weight"):
        RetrieverOptions(bm25_kind_weight=-1)


# Running text that refers to "the table" and a table row that answers without the word.
KIND_NOUN_TEXTS = [
    "各主体の重要事項は表に示す。",
    "| 安全性 | AI開発者 | 適切なデータの学習 |",
    "交通費は実費を支給する。",
    "宿泊費は上限額の範囲内で支給する。",
    "会議は毎月開催する。",
]


def test_bm25_leaves_the_kind_noun_out_of_the_questions_words_unless_it_labels_a_number():
    query = "重要事項の表で、安全性についてAI開発者に求められることは何か。"
    assert "表" not in query_tokens(make_tokenizer(), query)
    assert query_tokens(make_tokenizer(), "表1で、年表の注にある事項は何か。")[:2] == ["表", "1"]  # a label
    assert "表" in query_tokens(make_tokenizer(), query, drop_interrogatives=False)
    with_it = BM25Index(KIND_NOUN_TEXTS, make_tokenizer(), drop_interrogatives=False)
    assert with_it.search(query, 1)[0].index == 0  # 表 is rare, so it outweighs the row's words
    assert build_index("bm25", KIND_NOUN_TEXTS).search(query, 1)[0].index == 1
