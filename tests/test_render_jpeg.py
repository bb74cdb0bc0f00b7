"""core.render_jpeg: a page JPEG encoded in two halves on two threads and spliced into one must be a
valid baseline JPEG that decodes to exactly the pixels of a whole-page encode."""
import io

import numpy as np
import pymupdf
import simplejpeg
from hypothesis import given, settings, strategies as st
from PIL import Image

from core import render, render_jpeg
from core.model import Page


def _decoded(data: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(data))
    image.load()
    return np.asarray(image.convert("RGB"))


def _whole(rgb: np.ndarray, subsampling: str) -> bytes:
    return simplejpeg.encode_jpeg(rgb, quality=90, colorspace="RGB", colorsubsampling=subsampling)


def _page_like(height: int, width: int, seed: int) -> np.ndarray:
    # text-like: white paper with dark strokes and a coloured patch, so every kind of block occurs
    rng = np.random.default_rng(seed)
    rgb = np.full((height, width, 3), 255, dtype=np.uint8)
    rgb[rng.random((height, width)) < 0.08] = 20
    rgb[: height // 3, : width // 2] = rng.integers(0, 256, 3, dtype=np.uint8)
    return rgb


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 700), st.integers(1, 600), st.sampled_from(["420", "444"]), st.integers(0, 9))
def test_a_spliced_jpeg_decodes_to_the_pixels_of_a_whole_encode(height, width, subsampling, seed):
    rgb = _page_like(height, width, seed)
    spliced = render_jpeg.encode(rgb, subsampling, split=True)
    top = render_jpeg.split_row(height, subsampling)
    if top < height:  # a real splice: one restart interval set, one restart marker in the scan
        assert b"\xff\xdd\x00\x04" in spliced and spliced.count(b"\xff\xd0") >= 1
    image = Image.open(io.BytesIO(spliced))
    assert image.format == "JPEG" and image.size == (width, height)
    assert np.array_equal(_decoded(spliced), _decoded(_whole(rgb, subsampling)))
    assert simplejpeg.decode_jpeg(spliced).shape == (height, width, 3)  # libjpeg-turbo reads it too


def test_headers_that_differ_beyond_the_height_are_not_spliced():
    rgb = _page_like(64, 48, 1)
    top, bottom = _whole(rgb[:32], "420"), simplejpeg.encode_jpeg(rgb[32:], quality=60, colorsubsampling="420")
    assert render_jpeg.splice(top, bottom, 64, 3 * 2) is None  # other quantisation tables
    assert render_jpeg.splice(top, b"not a jpeg", 64, 6) is None


def test_the_page_image_of_the_app_is_the_spliced_page_with_the_pixels_of_a_whole_encode(tmp_path, monkeypatch):
    monkeypatch.setattr(render_jpeg, "spare_core", lambda: True)  # the splice runs where a core is free
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    page.insert_text((72, 100), "経費精算規程 第1条 本文の行", fontname="japan", fontsize=14)
    page.draw_rect(pymupdf.Rect(72, 300, 400, 500), color=(0.8, 0.1, 0.1), fill=(0.2, 0.5, 0.9))
    path = tmp_path / "one.pdf"
    pdf.save(path)
    pix = pymupdf.open(path)[0].get_pixmap(matrix=pymupdf.Matrix(1.5, 1.5), alpha=False)
    rgb = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3)
    render.clear_caches()
    data = render.page_image_bytes(path, Page(number=1, width=595, height=842, elements=()), 1.5)
    assert b"\xff\xdd" in data  # a page this size (893×1263) goes through the two-thread splice
    assert np.array_equal(_decoded(data), _decoded(_whole(rgb, "420")))


def test_the_splice_waits_for_a_second_free_core(monkeypatch):
    monkeypatch.setattr(render_jpeg.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(render_jpeg.os, "getloadavg", lambda: (0.3, 0.3, 0.3))
    assert render_jpeg.spare_core()
    monkeypatch.setattr(render_jpeg.os, "getloadavg", lambda: (6.0, 6.0, 6.0))  # a busy machine
    assert not render_jpeg.spare_core()
    monkeypatch.setattr(render_jpeg.os, "cpu_count", lambda: 1)
    monkeypatch.setattr(render_jpeg.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert not render_jpeg.spare_core()
    rgb = _page_like(600, 600, 3)
    assert b"\xff\xdd" not in render_jpeg.encode(rgb)  # one core: encoded whole
