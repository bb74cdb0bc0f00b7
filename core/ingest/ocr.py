"""Scanned pages: find pages without usable text and give them an OCR text layer.

A page counts as scanned when it has fewer than `MIN_TEXT_CHARS` usable characters (whitespace,
U+FFFD, control and private-use code points do not count: an invisible layer of those is garbage)
and images cover most of it. Such a page is rendered by PyMuPDF, denoised, its rulings, check
boxes and leader dots taken out (core.ingest.scan_marks), and read by Tesseract: the `tesseract`
command of the Debian package that brings the language data, for its words with their true boxes,
lines and confidences (its TSV), or where only the data is there, PyMuPDF's own Tesseract
(`Pixmap.pdfocr_tobytes`, the call `Page.get_textpage_ocr(full=True)` makes), whose PDF gives
words with boxes up to three times too wide. All in a child process, so a Tesseract crash or hang
costs the page's OCR, not the app. Each OCR word is then written back onto the page as invisible text (render mode
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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

import numpy as np
import pymupdf

from core.geometry import area, overlap_area
from core.ingest.ocr_fixes import fixed_words
from core.ingest.ocr_second_look import reread_doubtful, second_look_rows
from core.ingest.ocr_confidence import TsvRow, read_tsv_rows, start_tsv
from core.ingest.ocr_vertical import (
    calls_for_vertical, column_lines, reading_score, vertical_install_hint, vertical_language,
)
from core.ingest.scan_marks import ScanMarks, find_marks
from core.model import BBox
from core.settings import positive_number, share_of_cores, usable_cores

MIN_TEXT_CHARS = 20  # fewer usable characters than this on an image-covered page: scanned
MIN_IMAGE_SHARE = 0.4  # the share of the page that images must cover
MIN_SCAN_DPI = 75  # a page-size image with fewer pixels than this resolution gives is no scan
GLYPH_HEIGHT = 0.9  # ems: the ink height of a kanji, from which a line's font size is taken
MIN_OCR_DPI = 100  # below this Tesseract reads too little; a bigger page is refused instead
INSTALL_HINT = ("install tesseract-ocr, tesseract-ocr-jpn and tesseract-ocr-jpn-vert "
                "(scripts/system_packages.sh), or set TESSDATA_PREFIX to a folder holding jpn.traineddata")
JOIN_GAP = 1.5  # ems: a smaller gap between two OCR words on a line is Tesseract's box, not a space
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
    vertical: bool = True  # a page with columns of text is read again with the `_vert` models (core.ingest.ocr_vertical)

    @classmethod
    def from_env(cls) -> "OcrSettings":
        env = os.environ
        return cls(enabled=env.get("RLI_OCR", "1") != "0",
                   language=env.get("RLI_OCR_LANG") or cls.language,
                   dpi=positive_number("RLI_OCR_DPI", cls.dpi, "dots per inch", int),
                   max_pixels=positive_number("RLI_OCR_MAX_PIXELS", cls.max_pixels, "pixels", int),
                   timeout=positive_number("RLI_OCR_TIMEOUT", cls.timeout, "seconds"),
                   tessdata=env.get("TESSDATA_PREFIX") or None,
                   vertical=env.get("RLI_OCR_VERTICAL", "1") != "0")


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
    fixes: tuple[str, ...] = ()  # the post-corrections that changed it (core.ingest.ocr_fixes)
    vertical: bool = False  # its line is a column of vertical writing, read top to bottom


@dataclass(frozen=True)
class OcrPage:
    """One page's OCR outcome: its words, or why there are none."""
    words: tuple[OcrWord, ...] = ()
    dpi: int = 0
    failure: str | None = None  # the reason OCR gave nothing (crash, hang, refusal)
    marks: ScanMarks = ScanMarks()  # rulings and check boxes found in the pixels
    reader: str = "the tesseract command"  # whose words these are (PyMuPDF's OCR where the command is missing)
    language: str = ""  # the Tesseract languages that read the words kept
    hint: str = ""  # what would read the page better (a vertical model that is not installed)


@dataclass
class OcrOutcome:
    """What the OCR pass did to a document: the notice per scanned page and the engine's label."""
    notices: dict[int, str] = field(default_factory=dict)  # page number → notice
    sources: dict[int, str] = field(default_factory=dict)  # page number → what read it
    words: dict[int, tuple[OcrWord, ...]] = field(default_factory=dict)  # page number → its OCR words
    pdf_bytes: bytes | None = None  # the document with its OCR text layers, when any was added


def engine_label(settings: OcrSettings, dpi: int, reader: str = "the tesseract command", language: str = "") -> str:
    return f"Tesseract ({reader}; {language or settings.language}, {dpi} dpi)"


def ocr_document(doc: pymupdf.Document, settings: OcrSettings | None = None) -> OcrOutcome:
    """OCR every scanned page of `doc` in place (invisible text added) and say so per page."""
    settings = settings or OcrSettings.from_env()
    outcome = OcrOutcome()
    scanned = [i for i in range(doc.page_count) if is_scanned(doc.load_page(i))]
    if not scanned:
        return outcome
    tessdata, why = find_tessdata(settings)
    results = ocr_pages(doc, scanned, settings, tessdata) if tessdata is not None else {}
    added = False
    for index in scanned:
        number = index + 1
        if tessdata is None:
            outcome.notices[number] = f"scanned page, no OCR available: {why}"
            continue
        result = results[index]
        if result.failure:
            outcome.notices[number] = f"scanned page, OCR failed ({result.failure}); the page image is kept as a picture"
            continue
        label = engine_label(settings, result.dpi, result.reader, result.language)
        page = doc.load_page(index)
        write_blots(page, result.marks.blots)
        write_text_layer(page, result.words)
        write_marks(page, result.marks)
        added = True
        outcome.sources[number] = label
        outcome.words[number] = result.words
        outcome.notices[number] = (f"scanned page, OCR'd with {label}: {len(result.words)} words"
                                   + _mean_confidence_text(result.words)
                                   + (f", {len(result.marks.boxes)} check boxes" if result.marks.boxes else "")
                                   + (f"; {result.hint}" if result.hint else ""))
    if added:
        outcome.pdf_bytes = doc.tobytes(garbage=1, deflate=True)
    return outcome


OCR_WORKERS_ENV = "RLI_OCR_WORKERS"


def ocr_workers() -> int:
    """How many pages are OCR'd at once: RLI_OCR_WORKERS when set, else one per usable core."""
    return positive_number(OCR_WORKERS_ENV, usable_cores(), "processes", int)


def ocr_pages(doc: pymupdf.Document, indexes: Sequence[int], settings: OcrSettings,
              tessdata: str) -> dict[int, "OcrPage"]:
    """OCR the pages `indexes`, several at once: each page is its own child process, so a thread
    per page only waits on it while the cores do the work. Each Tesseract gets its share of the
    cores (OMP_THREAD_LIMIT) so parallel pages do not fight over them."""
    workers = max(1, min(ocr_workers(), len(indexes)))
    threads = share_of_cores(workers)
    # the page bytes are cut here, in one thread: a pymupdf Document is not safe to share across threads
    requests = {i: _one_page_pdf(doc, i) for i in indexes}
    with ThreadPoolExecutor(workers) as pool:
        futures = {i: pool.submit(run_ocr_bytes, requests[i], settings, tessdata, threads) for i in indexes}
        return {i: f.result() for i, f in futures.items()}


def _one_page_pdf(doc: pymupdf.Document, index: int) -> bytes:
    one = pymupdf.open()
    one.insert_pdf(doc, from_page=index, to_page=index)
    return one.tobytes()


def run_ocr_bytes(page_pdf: bytes, settings: OcrSettings, tessdata: str, threads: int | None = None) -> OcrPage:
    """OCR the one-page PDF `page_pdf` in a child process (Tesseract can crash or hang on a page),
    with `threads` Tesseract threads at most."""
    request = pickle.dumps((page_pdf, settings, tessdata), protocol=pickle.HIGHEST_PROTOCOL)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    if threads:
        env["OMP_THREAD_LIMIT"] = str(threads)
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
    png = pix.tobytes("png")
    rows = read_tsv_rows(start_tsv(png, settings.language, dpi, tessdata), settings.timeout)
    language, hint = settings.language, ""
    if rows and settings.vertical and calls_for_vertical(rows):
        language, rows, hint = _read_columns(png, rows, settings, dpi, tessdata)
    if rows:
        rows = _reread_lines(pixels, rows, settings, dpi, tessdata)
        rows += second_look_rows(pixels, rows, dpi / 72, settings.language, dpi, tessdata, settings.timeout)
    # a blank scan is read once: only a command that is missing or failed falls back to MuPDF's OCR
    reader = "the tesseract command" if rows is not None else f"PyMuPDF {pymupdf.VersionBind}"
    words = (_tsv_words(rows, dpi / 72, marks) if rows is not None
             else _mupdf_words(pix, page.rect.width, settings, tessdata, marks))
    words += _leader_words(words, marks, max((w.line for w in words), default=-1) + 1)
    return OcrPage(tuple(words), dpi, marks=marks, reader=reader, language=language, hint=hint)


def _read_columns(png: bytes, rows: list[TsvRow], settings: OcrSettings, dpi: int,
                  tessdata: str) -> tuple[str, list[TsvRow], str]:
    """(language, rows, hint) for a page whose pass found columns of text: read again with the
    vertical models added, and kept where that reading is the better one."""
    language = vertical_language(settings.language, tessdata)
    if language is None:
        if any(lang.endswith("_vert") for lang in settings.language.split("+")):
            return settings.language, rows, ""
        return settings.language, rows, vertical_install_hint(settings.language)
    again = read_tsv_rows(start_tsv(png, language, dpi, tessdata), settings.timeout)
    if again and reading_score(again) > reading_score(rows):
        return language, again, ""
    return settings.language, rows, ""


def _reread_lines(pixels: np.ndarray, rows: list[TsvRow], settings: OcrSettings, dpi: int,
                  tessdata: str) -> list[TsvRow]:
    """The doubtful words of the horizontal lines read again alone (core.ingest.ocr_second_look);
    a column's words are left as read: that re-read sets its crop out as one horizontal line."""
    columns = column_lines(rows)
    across = [i for i, row in enumerate(rows) if row[3] not in columns]
    reread = reread_doubtful(pixels, [rows[i] for i in across], settings.language, dpi, tessdata, settings.timeout)
    out = list(rows)
    for i, row in zip(across, reread):
        out[i] = row
    return out


def _kept(text: str, box: BBox, marks: ScanMarks) -> str:
    """The word's text as it goes on the page: "" for no word (a check box read as 口, noise)."""
    text = _without_rule_bars(text.strip(), box, marks)
    return text if text and usable_chars(text) and not _is_a_box(box, marks) and not _is_a_rule_piece(text, box) else ""


def _tsv_words(rows: Sequence[TsvRow], zoom: float, marks: ScanMarks) -> list[OcrWord]:
    """Tesseract's own words, boxes, lines and confidences (its TSV). MuPDF's OCR writer sets
    each word at its own size and baseline with a horizontal scale its text extraction does not
    undo, so the words read back from its PDF have boxes up to three times too wide (a "2026"
    over the 年月日 after it) and a line falls apart into words of different sizes."""
    lines: dict[tuple[int, int, int], int] = {}
    columns = column_lines(rows)
    words = []
    for px, conf, text, key in rows:
        box = tuple(round(v / zoom, 2) for v in px)
        kept = _kept(text, box, marks)
        if kept:
            words.append(OcrWord(box, kept, lines.setdefault(key, len(lines)), round(conf, 2),
                                 vertical=key in columns))
    return fixed_words(_cjk_brackets(_joined_lines(words)))


_FULL_WIDTH = str.maketrans("()[]", "（）［］")


def _cjk_brackets(words: list[OcrWord]) -> list[OcrWord]:
    """Tesseract's jpn model gives a Japanese line's full-width brackets as ASCII ones; set half
    width, they would leave the rest of the line an em short of its place. NFKC maps them back."""
    japanese = {w.line for w in words if any(unicodedata.east_asian_width(ch) == "W" for ch in w.text)}
    return [replace(w, text=w.text.translate(_FULL_WIDTH)) if w.line in japanese else w for w in words]


def _joined_lines(words: list[OcrWord]) -> list[OcrWord]:
    """Tesseract ends a line at a bracket or a wider gap now and then and starts another at the
    same height; side by side and within JOIN_GAP ems, the two are one line."""
    boxes: dict[int, list[float]] = {}
    for w in words:
        if w.vertical:
            continue  # columns side by side are separate lines, however close
        b = boxes.setdefault(w.line, list(w.bbox))
        b[:] = [min(b[0], w.bbox[0]), min(b[1], w.bbox[1]), max(b[2], w.bbox[2]), max(b[3], w.bbox[3])]
    home = {line: line for line in boxes}
    order = sorted(boxes, key=lambda line: boxes[line][0])
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            ba, bb = boxes[home[a]], boxes[b]
            height = min(ba[3] - ba[1], bb[3] - bb[1])
            overlap = min(ba[3], bb[3]) - max(ba[1], bb[1])
            if home[b] == b and overlap >= 0.6 * height and -0.2 * height <= bb[0] - ba[2] <= JOIN_GAP * height:
                home[b] = home[a]
                ba[:] = [min(ba[0], bb[0]), min(ba[1], bb[1]), max(ba[2], bb[2]), max(ba[3], bb[3])]
    return [w if home.get(w.line, w.line) == w.line else replace(w, line=home[w.line]) for w in words]


def _mupdf_words(pix: pymupdf.Pixmap, width: float, settings: OcrSettings, tessdata: str,
                 marks: ScanMarks) -> list[OcrWord]:
    """Where the `tesseract` command is missing: the words of MuPDF's OCR (no confidences)."""
    ocr_pdf = pymupdf.open(stream=pix.pdfocr_tobytes(language=settings.language, tessdata=tessdata), filetype="pdf")
    ocr_page = ocr_pdf.load_page(0)
    unzoom = width / ocr_page.rect.width
    data = ocr_page.get_text("dict", flags=0, textpage=ocr_page.get_textpage(matrix=pymupdf.Matrix(unzoom, unzoom)))
    words: list[OcrWord] = []
    line_no = 0
    for block in data["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                box = tuple(round(v, 2) for v in span["bbox"])
                kept = _kept(span["text"], box, marks)
                if kept:
                    words.append(OcrWord(box, kept, line_no))
            line_no += 1
    return fixed_words(words)


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


_SMALL_MARKS = frozenset("。、，．,.'\"”“’‘`・")
RULE_PIECE_HEIGHT = 8.0  # points: a small mark's ink is a few points high, a cell border's piece is a row's


def _is_a_rule_piece(text: str, word: BBox) -> bool:
    """A piece of a cell border (too short to erase before OCR) that Tesseract read as 。 or ”:
    such a mark's ink is about as wide as high and a few points tall, a border's is a thin bar
    a row high (3 x 19 pt after 仮払金 on the scanned 申請書)."""
    width, height = word[2] - word[0], word[3] - word[1]
    return set(text) <= _SMALL_MARKS and height >= RULE_PIECE_HEIGHT and height >= 4 * width


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
    kana and kanji where it likes), one space where both sides are Latin letters or digits.
    A column of vertical writing is set downwards (see _write_column)."""
    if not words:
        return
    sizes, baselines = _line_sizes(words), _line_baselines(words)
    shape = page.new_shape()
    by_line: dict[int, list[OcrWord]] = {}
    for w in words:
        by_line.setdefault(w.line, []).append(w)
    for line, line_words in by_line.items():
        if line_words[0].vertical:
            _write_column(shape, line_words, sizes[line])
        else:
            _write_row(shape, line_words, sizes[line], baselines[line] - 0.12 * sizes[line])
    shape.commit()


def _write_row(shape: pymupdf.Shape, line_words: list[OcrWord], size: float, y: float) -> None:
    font = _ocr_font()
    line_words.sort(key=lambda w: w.bbox[0])
    pen, after_space = -1e9, False
    for w, nxt in zip(line_words, line_words[1:] + [None]):
        spaced = nxt is not None and _latin_join(w.text, nxt.text)
        text = w.text + (" " if spaced else "")
        # Tesseract's boxes for Japanese words start late, by up to two characters, and end
        # about right: a word too long for its box reaches back from its end, and a gap of
        # less than JOIN_GAP ems left to the last word is that, not a space (MuPDF would
        # break the line there)
        natural = font.text_length(w.text, fontsize=size)
        x = min(w.bbox[0], w.bbox[2] - natural)
        x = pen if x < pen or (not after_space and x - pen < JOIN_GAP * size) else x
        squeeze = min(1.0, max(w.bbox[2] - x, 0.5 * natural) / natural) if natural > 0 else 1.0
        for ch in text:
            shape.insert_text(pymupdf.Point(x, y), ch, fontsize=size, fontname=_OCR_FONT, render_mode=3)
            x += font.text_length(ch, fontsize=size) * squeeze
        pen, after_space = x, spaced


DOWNWARDS = 270  # degrees: text set so turned runs down the page, which MuPDF reads as a line of dir (0, 1)


def _write_column(shape: pymupdf.Shape, line_words: list[OcrWord], size: float) -> None:
    """A column's characters one under another, one em apart: set turned by DOWNWARDS, MuPDF
    reads them back as one vertical line (dir (0, 1)), as it reads a born-digital tategaki page,
    so the engines order the columns right to left. As across a row, Tesseract's word boxes in a
    column start late by a character now and then and end about right: a word too long for its
    box reaches back up from its end, and one that starts within JOIN_GAP ems of the last word's
    end goes on from it. A turned character's box reaches from 0.2 em left of its origin to
    1 em right of it: the origin sits 0.4 em left of the column's middle."""
    line_words.sort(key=lambda w: w.bbox[1])
    pen = -1e9
    for w in line_words:
        x = (w.bbox[0] + w.bbox[2]) / 2 - 0.4 * size
        natural = size * len(w.text)
        y = min(w.bbox[1], w.bbox[3] - natural)
        y = pen if y < pen or y - pen < JOIN_GAP * size else y
        step = size * min(1.0, max(w.bbox[3] - y, 0.5 * natural) / natural) if natural > 0 else size
        for ch in w.text:
            shape.insert_text(pymupdf.Point(x, y), ch, fontsize=size, fontname=_OCR_FONT,
                              render_mode=3, rotate=DOWNWARDS)
            y += step
        pen = y


_SPACED_AFTER = frozenset(".,:;)!?")  # Latin punctuation that a space follows, as in "1. 2020年" or "a, b"


def _latin_join(left: str, right: str) -> bool:
    """Two OCR words join with a space when Tesseract split them between Latin letters or digits,
    or after Latin punctuation ("1." then "2020年": the list marker needs its space)."""
    end = left[-1:]
    return (end.isascii() and (end.isalnum() or end in _SPACED_AFTER)
            and right[:1].isascii() and right[:1].isalnum())


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


def write_blots(page: pymupdf.Page, blots: Sequence[BBox]) -> None:
    """Each solid shape erased before OCR (a logo, an icon) as an image of its own, cut from the
    scan and laid over its place: both engines then see the picture a born-digital page has there
    (a logo repeated on every page is decorative), and the page looks as it did."""
    for box in blots:
        rect = pymupdf.Rect(box) & page.rect
        if not rect.is_empty:
            page.insert_image(rect, pixmap=page.get_pixmap(dpi=150, clip=rect))


def _line_baselines(words: Sequence[OcrWord]) -> dict[int, float]:
    bottoms: dict[int, list[float]] = {}
    for w in words:
        bottoms.setdefault(w.line, []).append(w.bbox[3])
    return {line: statistics.median(ys) for line, ys in bottoms.items()}


def _line_sizes(words: Sequence[OcrWord]) -> dict[int, float]:
    lines: dict[int, list[OcrWord]] = {}
    for w in words:
        lines.setdefault(w.line, []).append(w)
    raw = {line: _column_size(members) if members[0].vertical else
           min(round(_typical_height([w.bbox[3] - w.bbox[1] for w in members]) / GLYPH_HEIGHT * 2) / 2,
               _widest_fit(members))
           for line, members in lines.items()}
    common = statistics.mode(raw.values())
    # Tesseract's boxes follow the glyphs, so one body size reads as 9.5, 10 and 10.5 from line
    # to line; within 12 % of the page's common size it is that size
    return {line: common if abs(size - common) <= 0.12 * common else size for line, size in raw.items()}


FIT_SLACK = 1.15  # a line's text set at its size may run this much past its words' span


def _widest_fit(members: Sequence[OcrWord]) -> float:
    """The largest size, in half points, at which a line's text fits the span of its words.
    Tesseract gives a whole line the height of a form's cell now and then (18 pt boxes on a 10 pt
    "2026年4月15日"): set at that size, the line ran 20 pt per character past its box, over the
    next cell, and its last characters were read as another line's."""
    span = max(w.bbox[2] for w in members) - min(w.bbox[0] for w in members)
    length = _ocr_font().text_length("".join(w.text for w in members), fontsize=1.0)
    if length <= 0:
        return float("inf")
    return max(1.0, int(FIT_SLACK * span / length * 2) / 2)


def _column_size(members: Sequence[OcrWord]) -> float:
    """A column's size, in half points, from its words' width (a kanji's ink is GLYPH_HEIGHT ems
    wide as it is high), no more than its characters' pitch down the column allows."""
    size = round(statistics.median(w.bbox[2] - w.bbox[0] for w in members) / GLYPH_HEIGHT * 2) / 2
    span = max(w.bbox[3] for w in members) - min(w.bbox[1] for w in members)
    chars = sum(len(w.text) for w in members)
    return max(1.0, min(size, int(FIT_SLACK * span / max(chars, 1) * 2) / 2))


def _typical_height(heights: list[float]) -> float:
    """The median height of a line's words, leaving out those over 1.4 times its lower quartile:
    in a table Tesseract gives some words the cell's height (17 pt boxes on 10 pt digits), which
    would make the row a heading."""
    ordered = sorted(heights)
    cap = 1.4 * ordered[len(ordered) // 4]
    return statistics.median([h for h in ordered if h <= cap])


def _mean_confidence_text(words: Sequence[OcrWord]) -> str:
    confs = [w.confidence for w in words if w.confidence is not None]
    return f", mean confidence {statistics.fmean(confs):.2f}" if confs else ""


LOW_CONFIDENCE = 0.6  # a word below this is shown as doubtful (Inspect)


def element_ocr_attrs(bbox: BBox, source: str, words: Sequence[OcrWord]) -> dict[str, object]:
    """What an element of OCR text records: what read it, the mean confidence of its words, the
    boxes of its doubtful ones and the post-corrections made to them (core.ingest.ocr_fixes)."""
    within = [w for w in words if bbox[0] <= (w.bbox[0] + w.bbox[2]) / 2 <= bbox[2]
              and bbox[1] <= (w.bbox[1] + w.bbox[3]) / 2 <= bbox[3]]
    inside = [w for w in within if w.confidence is not None]
    attrs: dict[str, object] = {"ocr": source}
    fixes = tuple(dict.fromkeys(f for w in within for f in w.fixes))
    if fixes:
        attrs["ocr_fixes"] = fixes
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
