"""Input boxes on pages of many strokes stay bounded (issue 10: wild nlp2004slides p12, 600 h ×
600 v strokes, kept chunk building busy for minutes). Fails on the old code: it tests every wall
pair of the grid (about 750k, each walking every stroke) and returns all 62k cells."""
from __future__ import annotations

import random

from core.forms.rulings import Rulings
from core.forms.unit_index import INPUT_BOX_BUDGET, input_boxes
from core.model import Document, Page


def _grid(n: int, dy: float = 10.0, dx: float = 25.0) -> Document:
    width, height = dx * (n - 1), dy * (n - 1)
    rulings = {"1": {"h": tuple((i * dy, 0.0, width) for i in range(n)),
                     "v": tuple((i * dx, 0.0, height) for i in range(n))}}
    page = Page(1, width, height, elements=())
    return Document("0123456789abcdef", "grid.pdf", "0" * 64, "fast", (page,), meta=(("rulings", rulings),))


def test_a_small_grid_gives_every_cell():
    doc = _grid(5)
    boxes = {u.bbox for u in input_boxes(doc, doc.pages[0])}
    assert len(boxes) == 16 and (0.0, 0.0, 25.0, 10.0) in boxes


def test_a_grid_of_hundreds_of_strokes_stops_at_the_budget_top_first():
    doc = _grid(250)
    boxes = input_boxes(doc, doc.pages[0])
    assert 0 < len(boxes) < 249 * 249
    assert len(boxes) <= INPUT_BOX_BUDGET
    tops = sorted({u.bbox[1] for u in boxes})
    assert tops[0] == 0.0 and tops == [i * 10.0 for i in range(len(tops))]  # rows from the top, none skipped


def test_the_indexed_lookup_answers_as_a_walk_over_every_stroke():
    rng = random.Random(7)
    h = tuple((round(rng.uniform(0, 100), 1), a := round(rng.uniform(0, 80), 1), a + round(rng.uniform(1, 40), 1))
              for _ in range(300))
    r = Rulings(h, ())
    for _ in range(2000):
        y, x0 = round(rng.uniform(0, 100), 1), rng.uniform(0, 90)
        x1 = x0 + rng.uniform(0, 30)
        walk = any(abs(sy - y) <= 2.5 and a <= x0 + 2.5 and b >= x1 - 2.5 for sy, a, b in h)
        assert r.covers_h(y, x0, x1) == walk


def test_a_new_page_never_gets_the_rulings_of_a_freed_page_that_had_its_id():
    """Failed before: rulings were cached by (doc_id, page number, id(page)); a page freed and a new
    one made in its memory got the old page's strokes (test_pairing's cell form read no field when
    an earlier test's page of the same doc_id had left its rulings there)."""
    from core.forms.rulings import page_rulings
    from core.model import Document, Page

    for k in range(60):  # CPython hands a freed object's memory to the next one made: ids recur
        y = 100.0 + k
        rulings = {"1": {"h": ((y, 36.0, 577.0),), "v": ()}}
        doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (Page(1, 612, 792),), meta=(("rulings", rulings),))
        assert [h[0] for h in page_rulings(doc, doc.pages[0]).h] == [y]
        del doc
