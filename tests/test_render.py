"""core.render: page images, overlays, hit testing and the points <-> pixels contract."""
from __future__ import annotations

import io

import pymupdf
import pytest
from hypothesis import given, settings, strategies as st
from PIL import Image

from core.categories import Category
from core.geometry import connector
from core.model import Element, Page
from core.render import (
    MIN_LINK_PT, Box, Line, blank_page_image, clear_caches, draw_boxes, draw_overlays, element_at, fabric_drawing,
    image_size, overlay_boxes, page_image_bytes, page_view_image, pixels_to_bbox, pixels_to_points,
    points_to_pixels, render_page_image, render_page_png, with_page_image,
)

APP_ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)


@pytest.fixture(scope="module")
def pdf_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("render") / "two_pages.pdf"
    doc = pymupdf.open()
    for n in range(2):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 100), f"経費精算規程 page {n + 1}", fontname="japan", fontsize=14)
    doc.save(path)
    return path


def element(seq: int, category: Category, bbox, page: int = 1) -> Element:
    return Element(id=f"e{seq}", page=page, seq=seq, category=category, bbox=bbox, text=f"t{seq}", source="fast")


def rgb_at(image: Image.Image, x_pt: float, y_pt: float, zoom: float) -> tuple[int, int, int]:
    return image.getpixel((int(points_to_pixels(x_pt, zoom)), int(points_to_pixels(y_pt, zoom))))[:3]


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def tinted_towards(pixel, colour: str) -> bool:
    """A translucent fill over white moves every channel towards the colour."""
    target = hex_rgb(colour)
    return pixel != (255, 255, 255) and all(abs(p - t) <= abs(255 - t) for p, t in zip(pixel, target))


# ---- points <-> pixels ------------------------------------------------------------------------
stored_points = st.integers(min_value=-50_000, max_value=500_000).map(lambda n: n / 100)
zooms = st.one_of(st.sampled_from(APP_ZOOMS), st.floats(min_value=0.25, max_value=4.0, allow_nan=False))


@settings(max_examples=400, deadline=None)
@given(stored_points, zooms)
def test_stored_coordinates_round_trip_through_pixels_at_every_zoom(point, zoom):
    assert pixels_to_points(points_to_pixels(point, zoom), zoom) == point


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=20_000), zooms)
def test_whole_canvas_pixels_come_back_to_the_same_pixel(pixel, zoom):
    assert round(points_to_pixels(pixels_to_points(pixel, zoom), zoom)) == pixel


@settings(max_examples=200, deadline=None)
@given(st.lists(stored_points, min_size=4, max_size=4), st.sampled_from(APP_ZOOMS))
def test_a_box_dragged_in_any_direction_becomes_an_ordered_bbox(values, zoom):
    pixels = [points_to_pixels(v, zoom) for v in values]
    x0, y0, x1, y1 = pixels_to_bbox(pixels, zoom)
    assert x0 <= x1 and y0 <= y1
    assert sorted((x0, x1)) == sorted(values[0::2]) and sorted((y0, y1)) == sorted(values[1::2])


def test_zoom_outside_the_supported_range_is_refused_with_the_value():
    with pytest.raises(ValueError, match="0.0"):
        points_to_pixels(10, 0.0)


# ---- rendering ----------------------------------------------------------------------------------
@pytest.mark.parametrize("zoom", [0.75, 1.5, 2.0])
def test_rendered_page_has_the_size_of_a_plain_pixmap(pdf_path, zoom):
    clear_caches()
    image = render_page_image(pdf_path, 1, zoom)
    with pymupdf.open(pdf_path) as doc:
        pix = doc[0].get_pixmap(matrix=pymupdf.Matrix(zoom, zoom))
    assert image.size == (pix.width, pix.height) == image_size(595, 842, zoom)


def test_the_same_page_and_zoom_is_rendered_once(pdf_path):
    clear_caches()
    assert render_page_image(pdf_path, 2, 1.0) is render_page_image(pdf_path, 2, 1.0)
    assert render_page_image(pdf_path, 2, 1.0) is not render_page_image(pdf_path, 2, 1.5)


def test_page_png_decodes_to_the_page(pdf_path):
    image = Image.open(io.BytesIO(render_page_png(pdf_path, 1, 1.0)))
    assert image.size == image_size(595, 842, 1.0)
    assert image.convert("L").getextrema()[0] < 128  # the inserted text made some dark pixels


def test_page_outside_the_document_says_which_pages_exist(pdf_path):
    with pytest.raises(IndexError, match="1..2"):
        render_page_image(pdf_path, 3, 1.0)


def test_document_without_pdf_gets_a_blank_page_of_its_size_with_a_notice():
    page = Page(number=1, width=300, height=200)
    image = render_page_image(None, page, 2.0)
    assert image.size == (600, 400)
    assert image.convert("L").getextrema()[0] < 200  # the notice is drawn
    assert blank_page_image(300, 200, 1.0).size == (300, 200)


# ---- overlays -----------------------------------------------------------------------------------
def test_overlay_tints_the_box_in_its_category_colour_and_nothing_outside(pdf_path):
    base = render_page_image(pdf_path, 1, 1.5)
    before = base.copy()
    table = element(0, Category.TABLE, (100, 300, 400, 500))
    out = draw_overlays(base, [table], 1.5)
    assert tinted_towards(rgb_at(out, 250, 400, 1.5), Category.TABLE.colour)
    assert rgb_at(out, 250, 700, 1.5) == (255, 255, 255)
    assert list(base.getdata()) == list(before.getdata()), "the cached base image must not change"


def test_hidden_categories_are_not_drawn_but_the_selected_element_always_is(pdf_path):
    base = render_page_image(pdf_path, 1, 1.0)
    table = element(0, Category.TABLE, (100, 300, 400, 500))
    footnote = element(1, Category.FOOTNOTE, (100, 700, 400, 760))
    out = draw_overlays(base, [table, footnote], 1.0, visible={Category.FOOTNOTE})
    assert rgb_at(out, 250, 400, 1.0) == (255, 255, 255)
    assert tinted_towards(rgb_at(out, 250, 730, 1.0), Category.FOOTNOTE.colour)
    out = draw_overlays(base, [table, footnote], 1.0, visible=set(), selected="e0")
    assert tinted_towards(rgb_at(out, 250, 400, 1.0), Category.TABLE.colour)
    assert rgb_at(out, 250, 730, 1.0) == (255, 255, 255)


def test_selected_element_is_drawn_more_strongly_than_the_others(pdf_path):
    base = render_page_image(pdf_path, 1, 1.0)
    table = element(0, Category.TABLE, (100, 300, 400, 500))
    plain = rgb_at(draw_overlays(base, [table], 1.0), 250, 400, 1.0)
    chosen = rgb_at(draw_overlays(base, [table], 1.0, selected="e0"), 250, 400, 1.0)
    assert sum(chosen) < sum(plain) < 3 * 255


def test_draw_boxes_takes_plain_tuples_and_draws_lines(pdf_path):
    base = render_page_image(pdf_path, 1, 1.0)
    out = draw_boxes(base, [((50, 600, 150, 650), "#ff0000", "key")],
                     [((200, 200), (500, 200), "#0000ff")], zoom=1.0)
    assert tinted_towards(rgb_at(out, 100, 630, 1.0), "#ff0000")
    assert rgb_at(out, 350, 200, 1.0) == (0, 0, 255)
    dashed = draw_boxes(base, [Box((50, 600, 150, 650), "#00ff00", fill_alpha=0, dashed=True)],
                        [Line((0, 0), (10, 10), "#000000", arrow=False)], zoom=1.0)
    assert rgb_at(dashed, 100, 630, 1.0) == (255, 255, 255)  # outline only: the inside stays clear


def test_boxes_off_the_page_are_skipped_without_error(pdf_path):
    base = render_page_image(pdf_path, 1, 1.0)
    out = draw_boxes(base, [((2000, 2000, 2100, 2100), "#ff0000", "x")], zoom=1.0)
    assert out.size == base.size


def test_unchanged_view_is_served_from_cache_and_a_changed_one_is_not(pdf_path):
    page = Page(number=1, width=595, height=842,
                elements=(element(0, Category.TEXT, (72, 80, 300, 110)), element(1, Category.TITLE, (72, 40, 300, 70))))
    first = page_view_image(pdf_path, page, 1.5)
    assert page_view_image(pdf_path, page, 1.5) is first
    assert page_view_image(pdf_path, page, 1.5, selected="e0") != first
    assert page_view_image(pdf_path, page, 1.5, visible={Category.TEXT}) != first
    assert Image.open(io.BytesIO(first)).size == image_size(595, 842, 1.5)


def test_browser_drawing_places_boxes_at_the_same_pixels_as_the_server_drawing():
    zoom = 1.5
    table = element(0, Category.TABLE, (100, 300, 400, 500))
    drawing = fabric_drawing(overlay_boxes([table], selected="e0"), [((0, 0), (100, 50), "#0000ff")], zoom=zoom)
    rect = next(o for o in drawing["objects"] if o["type"] == "Rect")
    assert (rect["left"], rect["top"], rect["left"] + rect["width"], rect["top"] + rect["height"]) == (150, 450, 600, 750)
    assert rect["stroke"] == Category.TABLE.colour and rect["fill"].startswith("rgba(44,160,44,")
    assert all(o["originX"] == "left" and o["originY"] == "top" and o["selectable"] is False for o in drawing["objects"])
    label = next(o for o in drawing["objects"] if o["type"] == "Text")
    assert label["text"].strip() == "table" and label["backgroundColor"] == Category.TABLE.colour
    assert drawing["objects"][-1] is label  # labels on top
    line = next(o for o in drawing["objects"] if o["type"] == "Line")
    assert (line["x1"], line["y1"], line["x2"], line["y2"]) == (0, 0, 150, 75)
    assert any(o["type"] == "Polygon" for o in drawing["objects"])  # the arrow head


def test_the_page_image_goes_into_the_browser_drawing_as_its_inert_background_at_the_canvas_size():
    # In the drawing, the canvas loads the image and the boxes together (one loadFromJSON).
    drawing = fabric_drawing(overlay_boxes([element(0, Category.TABLE, (100, 300, 400, 500))]), zoom=1.5)
    with_image = with_page_image(drawing, "http://127.0.0.1:8501/media/abc.jpg", (893, 1263))
    assert with_image["objects"] == drawing["objects"] and "backgroundImage" not in drawing
    image = with_image["backgroundImage"]
    assert image["type"] == "Image" and image["src"] == "http://127.0.0.1:8501/media/abc.jpg"
    assert (image["left"], image["top"], image["width"], image["height"]) == (0, 0, 893, 1263)
    assert (image["scaleX"], image["scaleY"], image["originX"], image["originY"]) == (1, 1, "left", "top")
    assert image["selectable"] is False and image["evented"] is False


def test_browser_labels_of_boxes_at_the_page_edge_stay_on_the_canvas():
    off_left = element(0, Category.SELECTION_MARK, (-20, 5, -5, 20))
    at_right = element(1, Category.PAGE_HEADER, (580, 100, 595, 120))
    drawing = fabric_drawing(overlay_boxes([off_left, at_right]), zoom=1.0, size=(595, 842))
    labels = [o for o in drawing["objects"] if o["type"] == "Text"]
    assert all(0 <= o["left"] and o["left"] + 6.5 * len(o["text"]) <= 595 for o in labels)
    assert all(0 <= o["top"] <= 842 - 14 for o in labels)


def test_bare_page_image_is_encoded_once_per_page_and_zoom(pdf_path):
    page = Page(number=1, width=595, height=842)
    first = page_image_bytes(pdf_path, page, 1.25)
    assert page_image_bytes(pdf_path, page, 1.25) is first
    assert Image.open(io.BytesIO(first)).size == image_size(595, 842, 1.25)
    assert page_image_bytes(None, page, 1.0) != first  # no PDF: the blank stand-in


def test_the_page_image_is_one_plain_jpeg_of_the_pixmap(pdf_path):
    # one encode of the whole page: no restart interval (the spliced two-thread encode set one),
    # and the pixels of a 4:2:0 quality-90 encode of MuPDF's pixmap
    import numpy as np
    import simplejpeg

    clear_caches()
    data = page_image_bytes(pdf_path, Page(number=1, width=595, height=842), 1.5)
    pix = pymupdf.open(pdf_path)[0].get_pixmap(matrix=pymupdf.Matrix(1.5, 1.5), alpha=False)
    rgb = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3)
    whole = simplejpeg.encode_jpeg(rgb, quality=90, colorspace="RGB", colorsubsampling="420")
    assert b"\xff\xdd" not in data
    assert np.array_equal(simplejpeg.decode_jpeg(data), simplejpeg.decode_jpeg(whole))


# ---- hit testing --------------------------------------------------------------------------------
def test_click_selects_the_smallest_element_under_it():
    figure = element(0, Category.PICTURE, (50, 50, 500, 500))
    caption = element(1, Category.CAPTION, (60, 450, 300, 480))
    assert element_at([figure, caption], 100, 460) is caption
    assert element_at([figure, caption], 100, 100) is figure
    assert element_at([figure, caption], 600, 600) is None


def test_click_ignores_hidden_categories():
    figure = element(0, Category.PICTURE, (50, 50, 500, 500))
    caption = element(1, Category.CAPTION, (60, 450, 300, 480))
    assert element_at([figure, caption], 100, 460, visible={Category.PICTURE}) is figure


# ---- labels outside the boxes (issue 18) --------------------------------------------------------
def _label_rects(drawing):
    return [(o["left"], o["top"], o["left"] + 6.5 * len(o["text"]), o["top"] + 14)
            for o in drawing["objects"] if o["type"] == "Text"]


def _hit(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_labels_of_a_table_of_contents_sit_outside_every_box_and_never_on_each_other():
    # 12 index lines 14 pt apart, the tabs that used to cover each line
    lines = [element(i, Category.DOCUMENT_INDEX, (72, 100 + 14 * i, 400, 112 + 14 * i)) for i in range(12)]
    corner = [element(20 + i, Category.DECORATIVE, (500, 20, 520, 40)) for i in range(3)]  # "de de decorative"
    drawing = fabric_drawing(overlay_boxes(lines + corner), zoom=1.0, size=(595, 842))
    chips = _label_rects(drawing)
    assert len(chips) == 15
    for chip, e in zip(chips, lines + corner):
        assert not _hit(chip, e.bbox), f"the label of {e.id} covers its own box"
    assert not any(_hit(a, b) for i, a in enumerate(chips) for b in chips[i + 1:])


def test_without_labels_only_the_selected_box_is_named_and_its_label_is_above_it():
    boxes = [element(i, Category.TEXT, (72, 100 + 40 * i, 400, 130 + 40 * i)) for i in range(5)]
    drawing = fabric_drawing(overlay_boxes(boxes, selected="e2", labels=False), zoom=1.0, size=(595, 842))
    [chip] = _label_rects(drawing)
    assert chip[3] <= boxes[2].bbox[1] and chip[0] == boxes[2].bbox[0]  # just above its top-left corner
    numbered = fabric_drawing(overlay_boxes(boxes, labels=False, show_order=True), zoom=1.0, size=(595, 842))
    assert len(_label_rects(numbered)) == 5  # reading-order numbers still show on every box


def test_server_drawn_labels_sit_outside_their_boxes(pdf_path):
    page = Page(number=1, width=595, height=842)
    base = render_page_image(pdf_path, page, 1.0)
    plain = draw_boxes(base, [Box((100, 300, 400, 330), "#ff0000", "", fill_alpha=0)], zoom=1.0)
    labelled = draw_boxes(base, [Box((100, 300, 400, 330), "#ff0000", "text", fill_alpha=0)], zoom=1.0)
    inside = (102, 302, 398, 328)
    assert plain.crop(inside).tobytes() == labelled.crop(inside).tobytes()  # nothing drawn on the box's text
    assert plain.crop((100, 280, 160, 299)).tobytes() != labelled.crop((100, 280, 160, 299)).tobytes()


def test_prefetched_pages_are_served_from_the_cache(pdf_path):
    import threading
    import time as _time

    from core.render import prefetch_pages

    clear_caches()
    page = Page(number=1, width=595, height=842)
    prefetch_pages(pdf_path, [page], 1.5)
    deadline = _time.monotonic() + 30
    while any(t.name == "rli-prefetch" for t in threading.enumerate()) and _time.monotonic() < deadline:
        _time.sleep(0.05)
    from core import render

    assert len(render._views) == 1  # the prefetch thread made and stored the page image
    made = page_image_bytes(pdf_path, page, 1.5)
    clear_caches(close_pdfs=False)
    assert page_image_bytes(pdf_path, page, 1.5) is not made  # after a clear it is made again
    prefetch_pages(pdf_path, [page], 1.5)
    assert page_image_bytes(pdf_path, page, 1.5) == made  # waits for the prefetch, or makes it once


def test_the_interactive_view_sends_what_the_image_and_the_json_alone_make(pdf_path):
    from core.render import interactive_view

    page = Page(number=1, width=595, height=842)
    items = [element(i, Category.TEXT, (72, 100 + 30 * i, 400, 120 + 30 * i)) for i in range(8)]
    boxes = overlay_boxes(items, selected="e3")
    lines = [Line((100, 110), (300, 200), "#ff0000")]
    size = image_size(595, 842, 1.25)
    alone = fabric_drawing(boxes, lines, zoom=1.25, size=size)
    for _ in range(2):  # a page not made yet (JSON on the helper during the encode), then cached
        clear_caches()
        cold_image, cold_drawing = interactive_view(pdf_path, page, 1.25, boxes, lines, size=size)
        cached_image, cached_drawing = interactive_view(pdf_path, page, 1.25, iter(boxes), iter(lines), size=size)
        assert cold_drawing == alone and cached_drawing == alone
        assert cached_image is cold_image and cold_image == page_image_bytes(pdf_path, page, 1.25)


def test_the_interactive_view_raises_what_its_json_raises(pdf_path):
    from core.render import interactive_view

    clear_caches()
    with pytest.raises(ValueError, match="#rrggbb"):
        interactive_view(pdf_path, Page(number=2, width=595, height=842), 1.0,
                         [Box((10, 10, 50, 50), "#12345", "x")])


def test_the_view_json_is_made_beside_the_encode_unless_the_process_has_one_core(pdf_path, monkeypatch):
    import threading

    from core.render import interactive_view

    class ReadWhere(list):  # a line given as a list: records the thread fabric_drawing reads it on
        def __init__(self, *args):
            super().__init__(*args)
            self.readers: list[str] = []

        def __iter__(self):
            self.readers.append(threading.current_thread().name)
            return super().__iter__()

    page = Page(number=2, width=595, height=842)
    for cores, made_on in (("2", "rli-view-helper"), ("1", threading.current_thread().name)):
        monkeypatch.setenv("RLI_CORES", cores)
        clear_caches()  # a page not made yet; at zoom 4 its encode takes tens of milliseconds
        line = ReadWhere([(10, 10), (90, 90), "#ff0000"])
        _, drawing = interactive_view(pdf_path, page, 4.0, lines=[line])
        assert line.readers == [made_on], cores
        assert [o["type"] for o in drawing["objects"]] == ["Line", "Polygon"]


def test_a_call_handed_to_the_helper_is_made_there_while_the_caller_waits_and_once():
    import threading
    import time as _time

    from core.render import _Beside

    made: list[str] = []
    beside = _Beside(lambda: made.append(threading.current_thread().name) or len(made))
    beside.start()
    _time.sleep(0.3)  # lets go of the GIL, as the JPEG encode does
    assert beside.result() == 1 and made == ["rli-view-helper"]
    alone = _Beside(lambda: threading.current_thread().name)  # never started: the caller makes it
    assert alone.result() == threading.current_thread().name
    failing = _Beside(lambda: 1 / 0)
    failing.start()
    _time.sleep(0.1)
    with pytest.raises(ZeroDivisionError):
        failing.result()


def test_labels_of_boxes_piled_in_the_top_corner_do_not_overlap():
    # logos and rules at the page's top-left corner: no room above, so the chips stack below
    corner = [element(i, Category.DECORATIVE, (0 + i, 0, 30 + i, 20 + i)) for i in range(6)]
    chips = _label_rects(fabric_drawing(overlay_boxes(corner), zoom=1.0, size=(595, 842)))
    assert not any(_hit(a, b) for i, a in enumerate(chips) for b in chips[i + 1:])


def test_hover_labels_go_outside_each_box_in_canvas_pixels():
    from core.render import hover_label_boxes

    top = element(0, Category.DECORATIVE, (0, 0, 40, 20))  # no room above: the chip goes below
    body = element(1, Category.TEXT, (72, 300, 400, 340))
    rows = hover_label_boxes([top, body], 1.5, (893, 1263))
    for row, e in zip(rows, (top, body)):
        x0, y0, x1, y1, label, colour, _, cx, cy = row
        assert (x0, y0, x1, y1) == tuple(round(v * 1.5, 1) for v in e.bbox) and label == e.category.value
        chip = (cx, cy, cx + 6.5 * (len(label) + 2), cy + 14)
        assert not _hit(chip, (x0, y0, x1, y1)) and colour == e.category.colour
    assert hover_label_boxes([top, body], 1.5, (893, 1263), visible={Category.TEXT})[0][4] == "text"


def _place_labels_all_pairs(boxes, sizes, size=None):
    """The placement as it was written before the grid: every candidate against every chip."""
    from core.render import _chip_candidates, _overlaps

    placed, out = [], []
    for box, (w, h) in zip(boxes, sizes):
        candidates = _chip_candidates(box, w, h, size)
        outside = [c for c in candidates if not _overlaps(c, box)] or candidates
        free = [c for c in outside if not any(_overlaps(c, p) for p in placed)]
        chosen = (free or outside or [(box[0], box[1], box[0] + w, box[1] + h)])[0]
        placed.append(chosen)
        out.append((chosen[0], chosen[1]))
    return out


_px = st.floats(min_value=-200, max_value=1400, allow_nan=False, width=32)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_px, _px, st.floats(1, 400, width=32), st.floats(1, 120, width=32),
                          st.integers(1, 30)), max_size=60),
       st.sampled_from([None, (893, 1263), (300, 200)]))
def test_label_places_are_those_of_the_all_pairs_search(raw, size):
    # the grid index of placed chips is a speed-up (bench/render.py): it must choose exactly the same places
    from core.render import place_labels

    boxes = [(x, y, x + w, y + h) for x, y, w, h, _ in raw]
    sizes = [(6.5 * (n + 2), 14.0) for *_, n in raw]
    assert place_labels(boxes, sizes, size) == _place_labels_all_pairs(boxes, sizes, size)


def test_the_app_renders_the_pixels_of_a_plain_get_pixmap(pdf_path):
    """The view draws the page straight from MuPDF (no display list, no PyMuPDF Document): it must
    still be the size and pixels of `page.get_pixmap(matrix, alpha=False)`."""
    import pymupdf

    from core import render

    render.clear_caches()
    doc = pymupdf.open(pdf_path)
    for number in range(1, doc.page_count + 1):
        want = doc[number - 1].get_pixmap(matrix=pymupdf.Matrix(1.25, 1.25), alpha=False)
        got = render._render_pdf_pixmap(pdf_path, number, 1.25)
        assert (got.width, got.height, got.n, got.alpha) == (want.width, want.height, 3, 0)
        assert got.samples == want.samples
    render.clear_caches()
    assert not render._open_pdfs  # clear_caches lets go of the MuPDF documents


# ---- links between boxes (Forms: key → value, Links: caption → figure) ----------------------
def _inside(point, box, slack=1e-6):
    return box[0] + slack < point[0] < box[2] - slack and box[1] + slack < point[1] < box[3] - slack


def test_a_link_between_boxes_side_by_side_runs_edge_to_edge_not_through_either():
    label, mark = (100.0, 200.0, 300.0, 212.0), (320.0, 201.0, 330.0, 211.0)
    start, end = connector(label, mark)
    assert start == pytest.approx((300.0, 206.0)) and end == pytest.approx((320.0, 206.0))


@given(st.tuples(*[st.floats(0, 500)] * 4), st.tuples(*[st.floats(0, 500)] * 4))
@settings(max_examples=300, deadline=None)
def test_a_link_never_starts_or_ends_inside_a_box(a_raw, b_raw):
    a = (min(a_raw[0], a_raw[2]), min(a_raw[1], a_raw[3]), max(a_raw[0], a_raw[2]), max(a_raw[1], a_raw[3]))
    b = (min(b_raw[0], b_raw[2]), min(b_raw[1], b_raw[3]), max(b_raw[0], b_raw[2]), max(b_raw[1], b_raw[3]))
    ends = connector(a, b)
    if ends is not None:
        for point in ends:
            assert not _inside(point, a) and not _inside(point, b)


def test_touching_overlapping_or_close_boxes_get_no_link():
    label = (100.0, 200.0, 300.0, 212.0)
    assert connector(label, (300.0, 201.0, 310.0, 211.0)) is None  # touching
    assert connector(label, (290.0, 201.0, 310.0, 211.0)) is None  # overlapping
    assert connector(label, (304.0, 201.0, 314.0, 211.0), min_length=MIN_LINK_PT) is None  # a 4 pt gap
    assert connector(label, (304.0, 201.0, 314.0, 211.0)) is not None
