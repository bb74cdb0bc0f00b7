"""Scanned pages: find pages without usable text and give them an OCR text layer.

A page counts as scanned when it has fewer than `MIN_TEXT_CHARS` usable characters (whitespace,
U+FFFD, control and private-use code points do not count: an invisible layer of those is garbage)
and images cover most of it. Such a page is rendered, denoised and read by Tesseract through
PyMuPDF (`Pixmap.pdfocr_tobytes`, the call `Page.get_textpage_ocr(full=True)` makes, here on a
cleaned pixmap with a pixel cap), in a child process so a Tesseract crash or hang costs the page's
OCR, not the app. Each OCR word is then written back onto the page as invisible text (render mode
3) at its place and size, so both engines, the layout model, the text under a drawn box and every
later stage read it like a born-digital text layer, and the page image stays as it was.

What was done is said on the page (`Page.notice`) and on each element from OCR text
(`attrs["ocr"]`: what read it).
"""
from __future__ import annotations

import io
import os
import pickle
import statistics
import subprocess
import sys
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

import numpy as np
import pymupdf

from core.geometry import area, overlap_area
from core.ingest.ocr_confidence import read_tsv, start_tsv, word_confidences
from core.ingest.scan_marks import ScanMarks, find_marks
from core.model import BBox
from core.settings import positive_number

MIN_TEXT_CHARS = 20  # fewer usable characters than this on an image-covered page: scanned
MIN_IMAGE_SHARE = 0.4  # the share of the page that images must cover
MIN_SCAN_DPI = 75  # a page-size image with fewer pixels than this resolution gives is no scan
MIN_OCR_DPI = 100  # below this Tesseract reads too little; a bigger page is refused instead
INSTALL_HINT = ("install tesseract-ocr, tesseract-ocr-jpn and tesseract-ocr-jpn-vert "
                "(scripts/system_packages.sh), or set TESSDATA_PREFIX to a folder holding jpn.traineddata")
_OCR_FONT = "japan"  # PyMuPDF's built-in CJK font: every OCR character has a glyph


@dataclass(frozen=True)
class OcrSettings:
    """How scanned pages are read; every field has an RLI_OCR_* environment override."""
    enabled: bool = True
    language: str = "jpn"  # jpn+eng measured worse: eng claims kanji it cannot read as Latin garbage
    dpi: int = 300
    max_pixels: int = 40_000_000  # a rendered page over this is downscaled (down to MIN_OCR_DPI)
    timeout: float = 180.0  # seconds per page before OCR counts as hung
    tessdata: str | None = None

    @classmethod
    def from_env(cls) -> "OcrSettings":
        env = os.environ
        return cls(enabled=env.get("RLI_OCR", "1") != "0",
                   language=env.get("RLI_OCR_LANG") or cls.language,
                   dpi=positive_number("RLI_OCR_DPI", cls.dpi, "dots per inch", int),
                   max_pixels=positive_number("RLI_OCR_MAX_PIXELS", cls.max_pixels, "pixels", int),
                   timeout=positive_number("RLI_OCR_TIMEOUT", cls.timeout, "seconds"),
                   tessdata=env.get("TESSDATA_PREFIX") or None)


def find_tessdata(settings: OcrSettings) -> tuple[str | None, str]:
    """(the tessdata folder holding every language asked for, or None; why not / what to install)."""
    if not settings.enabled:
        return None, "OCR is switched off (RLI_OCR=0)"
    candidates = [settings.tessdata] if settings.tessdata else []
    try:
        candidates.append(pymupdf.get_tessdata())
    except Exception:  # noqa: BLE001 - PyMuPDF raises RuntimeError or a bare Exception when none is found
        pass
    candidates += [str(p) for p in sorted(Path("/usr/share/tesseract-ocr").glob("*/tessdata"))]
    languages = [lang for lang in settings.language.split("+") if lang]
    for folder in candidates:
        if folder and all((Path(folder) / f"{lang}.traineddata").is_file() for lang in languages):
            return str(folder), ""
    return None, INSTALL_HINT


def usable_chars(text: str) -> int:
    """Characters that are real text: not whitespace, U+FFFD, control, format or private-use."""
    return sum(1 for ch in text if not ch.isspace() and ch != "\ufffd"
               and unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs", "Cn"))


def is_scanned(page: pymupdf.Page) -> bool:
    """No usable text, and images over most of the page. The page's image resources are looked at
    first (cheap): without one that has the pixels of a page scan at MIN_SCAN_DPI, a page is not
    scanned, whatever its text; logos and icons settle most born-digital pages there."""
    rect = page.rect
    scan_pixels = MIN_IMAGE_SHARE * (rect.width * MIN_SCAN_DPI / 72) * (rect.height * MIN_SCAN_DPI / 72)
    if not any(item[2] * item[3] >= scan_pixels for item in page.get_images(full=False)):
        return False
    covered = 0.0
    for info in page.get_image_info():
        box = pymupdf.Rect(info["bbox"]) & rect
        covered += box.width * box.height if not box.is_empty else 0.0
    if covered < MIN_IMAGE_SHARE * rect.width * rect.height:
        return False
    return usable_chars(page.get_text("text")) < MIN_TEXT_CHARS


@dataclass(frozen=True)
class OcrWord:
    bbox: BBox  # unrotated page coordinates, PDF points
    text: str
    line: int  # which OCR line it belongs to (its words share one font size)
    confidence: float | None = None  # Tesseract's, 0..1 (core.ingest.ocr_confidence)


@dataclass(frozen=True)
class OcrPage:
    """One page's OCR outcome: its words, or why there are none."""
    words: tuple[OcrWord, ...] = ()
    dpi: int = 0
    failure: str | None = None  # the reason OCR gave nothing (crash, hang, refusal)
    marks: ScanMarks = ScanMarks()  # rulings and check boxes found in the pixels


@dataclass
class OcrOutcome:
    """What the OCR pass did to a document: the notice per scanned page and the engine's label."""
    notices: dict[int, str] = field(default_factory=dict)  # page number → notice
    sources: dict[int, str] = field(default_factory=dict)  # page number → what read it
    words: dict[int, tuple[OcrWord, ...]] = field(default_factory=dict)  # page number → its OCR words
    pdf_bytes: bytes | None = None  # the document with its OCR text layers, when any was added


def engine_label(settings: OcrSettings, dpi: int) -> str:
    return f"Tesseract via PyMuPDF {pymupdf.VersionBind} ({settings.language}, {dpi} dpi)"


def ocr_document(doc: pymupdf.Document, settings: OcrSettings | None = None) -> OcrOutcome:
    """OCR every scanned page of `doc` in place (invisible text added) and say so per page."""
    settings = settings or OcrSettings.from_env()
    outcome = OcrOutcome()
    scanned = [i for i in range(doc.page_count) if is_scanned(doc.load_page(i))]
    if not scanned:
        return outcome
    tessdata, why = find_tessdata(settings)
    added = False
    for index in scanned:
        number = index + 1
        if tessdata is None:
            outcome.notices[number] = f"scanned page, no OCR available: {why}"
            continue
        result = run_ocr(doc, index, settings, tessdata)
        if result.failure:
            outcome.notices[number] = f"scanned page, OCR failed ({result.failure}); the page image is kept as a picture"
            continue
        label = engine_label(settings, result.dpi)
        page = doc.load_page(index)
        write_text_layer(page, result.words)
        write_marks(page, result.marks)
        added = True
        outcome.sources[number] = label
        outcome.words[number] = result.words
        outcome.notices[number] = (f"scanned page, OCR'd with {label}: {len(result.words)} words"
                                   + _mean_confidence_text(result.words)
                                   + (f", {len(result.marks.boxes)} check boxes" if result.marks.boxes else ""))
    if added:
        outcome.pdf_bytes = doc.tobytes(garbage=1, deflate=True)
    return outcome


def run_ocr(doc: pymupdf.Document, index: int, settings: OcrSettings, tessdata: str) -> OcrPage:
    """OCR one page in a child process (Tesseract can crash or hang on a page)."""
    one = pymupdf.open()
    one.insert_pdf(doc, from_page=index, to_page=index)
    request = pickle.dumps((one.tobytes(), settings, tessdata), protocol=pickle.HIGHEST_PROTOCOL)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        done = subprocess.run([sys.executable, "-c", "from core.ingest.ocr import serve_ocr; serve_ocr()"],
                              input=request, capture_output=True, timeout=settings.timeout, env=env, cwd=root)
    except subprocess.TimeoutExpired:
        return OcrPage(failure=f"no answer within {settings.timeout:g} s")
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return OcrPage(failure=f"the OCR process failed: {tail[0][:160]}")
    return pickle.loads(done.stdout)


def serve_ocr() -> None:
    """The child: read (one-page PDF, settings, tessdata) from stdin, write an OcrPage to stdout."""
    pdf_bytes, settings, tessdata = pickle.loads(sys.stdin.buffer.read())
    page = pymupdf.open(stream=pdf_bytes, filetype="pdf").load_page(0)
    sys.stdout.buffer.write(pickle.dumps(ocr_words(page, settings, tessdata), protocol=pickle.HIGHEST_PROTOCOL))


def capped_dpi(rect: pymupdf.Rect, dpi: int, max_pixels: int) -> int:
    """The resolution to render at: `dpi`, lowered so the pixmap stays within `max_pixels`."""
    pixels = (rect.width * dpi / 72) * (rect.height * dpi / 72)
    if pixels <= max_pixels:
        return dpi
    return int(dpi * (max_pixels / pixels) ** 0.5)


def ocr_words(page: pymupdf.Page, settings: OcrSettings, tessdata: str) -> OcrPage:
    dpi = capped_dpi(page.rect, settings.dpi, settings.max_pixels)
    if dpi < MIN_OCR_DPI:
        return OcrPage(failure=f"the page is too large to OCR within {settings.max_pixels:,} pixels "
                               "(raise RLI_OCR_MAX_PIXELS)")
    page.set_rotation(0)  # OCR the page as stored: the words land in unrotated page coordinates
    image = _cleaned(page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY))
    pixels = np.asarray(image).copy()
    marks, covered = find_marks(pixels, dpi / 72)
    pixels[covered] = 255
    pix = _as_pixmap(pixels)
    pix.set_dpi(dpi, dpi)
    tsv = start_tsv(pix.tobytes("png"), settings.language, dpi, tessdata)
    ocr_pdf = pymupdf.open(stream=pix.pdfocr_tobytes(language=settings.language, tessdata=tessdata), filetype="pdf")
    ocr_page = ocr_pdf.load_page(0)
    unzoom = page.rect.width / ocr_page.rect.width
    data = ocr_page.get_text("dict", flags=0, textpage=ocr_page.get_textpage(matrix=pymupdf.Matrix(unzoom, unzoom)))
    words: list[OcrWord] = []
    line_no = 0
    for block in data["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                box = tuple(round(v, 2) for v in span["bbox"])
                text = _without_rule_bars(span["text"].strip(), box, marks)
                if text and usable_chars(text) and not _is_a_box(box, marks):
                    words.append(OcrWord(box, text, line_no))
            line_no += 1
    words += _leader_words(words, marks, line_no)
    confidences = word_confidences([w.bbox for w in words], read_tsv(tsv, settings.timeout), dpi / 72)
    words = [replace(w, confidence=c) for w, c in zip(words, confidences)]
    return OcrPage(tuple(words), dpi, marks=marks)


def _leader_words(words: Sequence[OcrWord], marks: ScanMarks, next_line: int) -> list[OcrWord]:
    """The leader dots erased before OCR, as the dots they are, each on the OCR line it runs
    along (so the entry, its leader and its page number read as one line)."""
    out = []
    for box, dots in marks.leaders:
        middle = (box[1] + box[3]) / 2
        beside = [w for w in words if w.bbox[1] <= middle <= w.bbox[3] + 2]
        line = min(beside, key=lambda w: abs(w.bbox[2] - box[0])).line if beside else next_line + len(out)
        out.append(OcrWord(box, "." * dots, line))
    return out


_BARS = str.maketrans("", "", "|｜")


def _without_rule_bars(text: str, word: BBox, marks: ScanMarks) -> str:
    """A cell border too short to erase before OCR comes back as "|" in the word it crosses."""
    if "|" not in text and "｜" not in text:
        return text
    height = word[3] - word[1]
    crossed = any(word[0] - 2 <= x <= word[2] + 2 and min(y1, word[3]) - max(y0, word[1]) >= 0.5 * height
                  for x, y0, y1 in marks.vsegs)
    return text.translate(_BARS).strip() if crossed else text


def _is_a_box(word: BBox, marks: ScanMarks) -> bool:
    """Tesseract reads a check box as 口, 図 or 回: that "word" is the box, not text."""
    return any(overlap_area(word, box) > 0.6 * max(area(word), 1e-6) for box, _ in marks.boxes)


def _cleaned(pix: pymupdf.Pixmap):
    """A 3×3 median filter takes scanner speckle off before Tesseract binarises the page."""
    from PIL import Image, ImageFilter

    return Image.frombytes("L", (pix.width, pix.height), pix.samples).filter(ImageFilter.MedianFilter(3))


def _as_pixmap(pixels: np.ndarray) -> pymupdf.Pixmap:
    """RGB: MuPDF's OCR writer takes colour pixmaps."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels).convert("RGB").save(buf, format="PNG", compress_level=1)
    return pymupdf.Pixmap(buf.getvalue())


def write_text_layer(page: pymupdf.Page, words: Sequence[OcrWord]) -> None:
    """Each word as invisible text over its place on the image, one font size per OCR line (the
    line's median word height, snapped to the page's common size), so the engines see lines of
    even size as in a born-digital page rather than one size per word.

    Characters are set one by one: PyMuPDF's built-in CJK font is written with every glyph one
    em wide, so a word set whole would run far past its box (a Latin word about twice its width)
    and over the next word, and MuPDF would read the line's characters out of order. Each
    character's origin follows the font's real advance instead, squeezed to the word's box.
    Words join as a text layer would: no space between Japanese words (Tesseract splits runs of
    kana and kanji where it likes), one space where both sides are Latin letters or digits."""
    if not words:
        return
    sizes, baselines = _line_sizes(words), _line_baselines(words)
    font = _ocr_font()
    shape = page.new_shape()
    by_line: dict[int, list[OcrWord]] = {}
    for w in words:
        by_line.setdefault(w.line, []).append(w)
    for line, line_words in by_line.items():
        size, y = sizes[line], baselines[line] - 0.12 * sizes[line]
        line_words.sort(key=lambda w: w.bbox[0])
        for w, nxt in zip(line_words, line_words[1:] + [None]):
            text = w.text + (" " if nxt is not None and _latin_join(w.text, nxt.text) else "")
            natural = font.text_length(w.text, fontsize=size)
            squeeze = min(1.0, (w.bbox[2] - w.bbox[0]) / natural) if natural > 0 else 1.0
            x = w.bbox[0]
            for ch in text:
                shape.insert_text(pymupdf.Point(x, y), ch, fontsize=size, fontname=_OCR_FONT, render_mode=3)
                x += font.text_length(ch, fontsize=size) * squeeze
    shape.commit()


def _latin_join(left: str, right: str) -> bool:
    return left[-1:].isascii() and left[-1:].isalnum() and right[:1].isascii() and right[:1].isalnum()


_FONT: list[pymupdf.Font] = []


def _ocr_font() -> pymupdf.Font:
    if not _FONT:
        _FONT.append(pymupdf.Font(_OCR_FONT))
    return _FONT[0]


def write_marks(page: pymupdf.Page, marks: ScanMarks) -> None:
    """Rulings and check boxes as invisible vector paths (opacity 0): core.ingest.vectors reads
    them as it reads a born-digital form's; a ticked box is a filled square."""
    if not (marks.hsegs or marks.vsegs or marks.boxes):
        return
    shape = page.new_shape()
    for y, x0, x1 in marks.hsegs:
        shape.draw_line((x0, y), (x1, y))
    for x, y0, y1 in marks.vsegs:
        shape.draw_line((x, y0), (x, y1))
    shape.finish(color=(0, 0, 0), width=0.5, stroke_opacity=0)
    for box, ticked in marks.boxes:
        shape.draw_rect(pymupdf.Rect(box))
        shape.finish(color=(0, 0, 0), fill=(0, 0, 0) if ticked else None, width=0.5, stroke_opacity=0, fill_opacity=0)
    shape.commit()


def _line_baselines(words: Sequence[OcrWord]) -> dict[int, float]:
    bottoms: dict[int, list[float]] = {}
    for w in words:
        bottoms.setdefault(w.line, []).append(w.bbox[3])
    return {line: statistics.median(ys) for line, ys in bottoms.items()}


def _line_sizes(words: Sequence[OcrWord]) -> dict[int, float]:
    heights: dict[int, list[float]] = {}
    for w in words:
        heights.setdefault(w.line, []).append(w.bbox[3] - w.bbox[1])
    raw = {line: round(statistics.median(hs) * 2) / 2 for line, hs in heights.items()}
    common = statistics.mode(raw.values())
    # Tesseract's boxes follow the glyphs, so one body size reads as 9.5, 10 and 10.5 from line
    # to line; within 12 % of the page's common size it is that size
    return {line: common if abs(size - common) <= 0.12 * common else size for line, size in raw.items()}


def _mean_confidence_text(words: Sequence[OcrWord]) -> str:
    confs = [w.confidence for w in words if w.confidence is not None]
    return f", mean confidence {statistics.fmean(confs):.2f}" if confs else ""


LOW_CONFIDENCE = 0.6  # a word below this is shown as doubtful (Inspect)


def element_ocr_attrs(bbox: BBox, source: str, words: Sequence[OcrWord]) -> dict[str, object]:
    """What an element of OCR text records: what read it, the mean confidence of its words and
    the boxes of its doubtful ones."""
    inside = [w for w in words if bbox[0] <= (w.bbox[0] + w.bbox[2]) / 2 <= bbox[2]
              and bbox[1] <= (w.bbox[1] + w.bbox[3]) / 2 <= bbox[3] and w.confidence is not None]
    attrs: dict[str, object] = {"ocr": source}
    if inside:
        attrs["ocr_confidence"] = round(statistics.fmean(w.confidence for w in inside), 2)
        low = tuple(tuple(round(v, 1) for v in w.bbox) for w in inside if w.confidence < LOW_CONFIDENCE)
        if low:
            attrs["ocr_low_words"] = low
    return attrs


def without_page_scan(images: list[tuple[BBox, str]], width: float, height: float) -> list[tuple[BBox, str]]:
    """An OCR'd page's images less the scan itself: it is the page, not a figure on it (and a
    figure's box would swallow the page's check boxes)."""
    return [(box, ident) for box, ident in images if area(box) < MIN_IMAGE_SHARE * width * height]


def scanned_page_notes(document) -> list[str]:
    """One line per scanned page of a Document, for the command line."""
    scanned = set(dict(document.meta).get("scanned_pages", ()))
    return [f"note: {document.source} page {p.number}: {p.notice}" for p in document.pages
            if p.number in scanned and p.notice]
