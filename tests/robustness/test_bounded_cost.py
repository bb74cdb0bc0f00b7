"""Bounded cost: the layout model gets a per-page time cap (default well under a minute,
configurable); a page over it is read by the fast engine with a notice."""
from __future__ import annotations

import pytest

from core.errors import BadInput
from core.ingest.layout_worker import DEFAULT_PAGE_SECONDS, PAGE_SECONDS_ENV, page_seconds_cap


def test_the_default_cap_is_well_under_a_minute_and_configurable(monkeypatch):
    monkeypatch.delenv(PAGE_SECONDS_ENV, raising=False)
    assert page_seconds_cap() == DEFAULT_PAGE_SECONDS <= 30
    monkeypatch.setenv(PAGE_SECONDS_ENV, "4.5")
    assert page_seconds_cap() == 4.5
    for bad in ("soon", "0", "-3", "nan", "inf"):
        monkeypatch.setenv(PAGE_SECONDS_ENV, bad)
        with pytest.raises(BadInput, match=PAGE_SECONDS_ENV):
            page_seconds_cap()


def test_a_page_over_the_cap_falls_back_to_the_fast_engine_with_a_notice(workspace, sample_docs, monkeypatch):
    from core.ingest.pipeline import ingest_path

    monkeypatch.setenv(PAGE_SECONDS_ENV, "0.001")  # no model answers that fast
    record = ingest_path(workspace, sample_docs / "shinseisho_form.pdf", engine="layout").record
    doc = workspace.load_machine_document(record.doc_id)
    assert doc.meta_value("fallback_pages") == (1,)
    assert "over 0.001 s" in doc.page(1).notice and PAGE_SECONDS_ENV in doc.page(1).notice
    assert any(e.text for e in doc.elements()), "the fast engine read the page"


def image_pdf() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 400, 300), False)
    pix.clear_with(128)
    page.insert_image(pymupdf.Rect(100, 300, 500, 600), pixmap=pix)
    page.insert_text((72, 100), "A page with one large photograph on it", fontsize=12)
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_an_image_over_the_pixel_cap_is_not_decoded_and_its_box_is_still_found(workspace, monkeypatch, engine):
    from core.ingest.image_cap import PIXELS_ENV
    from core.ingest.pipeline import ingest_bytes

    monkeypatch.setenv(PIXELS_ENV, "0.1")  # the image is 0.12 MP
    doc_id = ingest_bytes(workspace, image_pdf(), "photo.pdf", engine=engine).record.doc_id
    doc = workspace.load_machine_document(doc_id)
    pictures = [e for e in doc.elements() if e.category.value == "picture"]
    assert pictures and abs(pictures[0].bbox[0] - 100) < 2 and abs(pictures[0].bbox[3] - 600) < 2
    assert any("photograph" in e.text for e in doc.elements())
    if engine == "layout":
        assert doc.meta_value("fallback_pages") == (1,)
        assert "over the 0.1 MP cap" in doc.page(1).notice
