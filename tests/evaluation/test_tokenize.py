"""Japanese tokenisation: Sudachi morphemes per split mode, and the character-bigram fallback."""
import pytest

from core.evaluation.tokenize import TokenizerSpec, char_bigrams, make_tokenizer, sudachi_tokens

SENTENCE = "交通費の精算は申請書を提出してから30日以内に行うこと。"


def test_sudachi_splits_a_sentence_into_content_words_and_drops_particles():
    tokens = sudachi_tokens(SENTENCE, mode="B")
    for word in ("交通費", "精算", "申請書", "提出", "30", "以内"):
        assert word in tokens
    for noise in ("の", "は", "を", "に", "。"):
        assert noise not in tokens


def test_sudachi_keeps_particles_when_asked():
    assert "の" in sudachi_tokens(SENTENCE, mode="B", drop_function_words=False)


def test_split_mode_a_is_finer_than_mode_c():
    a = make_tokenizer(TokenizerSpec(mode="A"))("東京都千代田区丸の内")
    c = make_tokenizer(TokenizerSpec(mode="C"))("東京都千代田区丸の内")
    assert a == ["東京", "都", "千代田", "区", "丸の内"]
    assert c == ["東京都千代田区丸の内"]


def test_full_width_and_half_width_spellings_give_the_same_tokens():
    tokenize = make_tokenizer()
    assert tokenize("ＳＱＬのＳＥＬＥＣＴ文で抽出する") == tokenize("SQLのSELECT文で抽出する")
    assert tokenize("ｶﾀｶﾅで入力") == tokenize("カタカナで入力")
    assert char_bigrams("ＳＥＬＥＣＴ　１０件") == char_bigrams("SELECT 10件")


def test_text_longer_than_sudachis_input_limit_is_tokenised_in_pieces():
    tokens = sudachi_tokens("経費精算。" * 20000)  # 100k characters, ~300 KB of UTF-8
    assert tokens.count("経費") == 20000


def test_bigrams_pair_neighbouring_kana_and_kanji_and_keep_latin_words_whole():
    assert char_bigrams("経費精算") == ["経費", "費精", "精算"]
    assert char_bigrams("SQLで抽出") == ["sql", "で抽", "抽出"]


def test_punctuation_breaks_bigram_runs():
    assert char_bigrams("出張、精算。") == ["出張", "精算"]
    assert char_bigrams("表1") == ["表", "1"]


def test_bigram_tokenizer_is_selectable():
    assert make_tokenizer(TokenizerSpec(kind="bigram"))("精算額") == ["精算", "算額"]


def test_an_unknown_split_mode_is_refused_with_the_bad_value():
    with pytest.raises(ValueError, match="'D'"):
        TokenizerSpec(mode="D")
