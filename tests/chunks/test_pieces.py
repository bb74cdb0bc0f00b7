"""How element text is written (core/chunks/pieces.py): formulas, code language, sentence ends."""
import pytest

from core.chunks.pieces import guess_code_language, normalise_formula, split_sentences


# ---- formula, code, sentences ----------------------------------------------------------------
def test_formulas_are_normalised():
    assert normalise_formula(r"$$ S = T + H \times n $$") == r"$$S = T + H \times n$$"
    assert normalise_formula(r"E = mc^{2} \cdot k") == r"$$E = mc^{2} \cdot k$$"
    assert normalise_formula("精算額 = 交通費 + 日当") == "式: 精算額 = 交通費 + 日当"


@pytest.mark.parametrize("code, language", [
    ("import os\nprint(os.getcwd())", "python"), ("def f(x):\n    return x", "python"),
    ("SELECT id FROM t WHERE a = 1;", "sql"), ("update t set a = 1", "sql"),
    ('{"a": 1, "b": [2]}', "json"), ("<root><a/></root>", "xml"), ("echo hello", ""),
])
def test_code_language_is_guessed(code, language):
    assert guess_code_language(code) == language


def test_sentences_end_at_sentence_marks_but_not_inside_brackets_or_numbers():
    text = "本規程は、会社（以下「会社」という。）に適用する。単価は3.5円とする！次へ"
    assert split_sentences(text, "。．！？!?.") == [
        "本規程は、会社（以下「会社」という。）に適用する。", "単価は3.5円とする！", "次へ"]
