"""The one category vocabulary, its colours, and how every label source maps onto it.

Every other module speaks `Category`; foreign labels are translated here and nowhere else.
"""
from __future__ import annotations

from enum import Enum


class Category(str, Enum):
    TITLE = "title"
    SECTION_HEADER = "section_header"
    TEXT = "text"
    LIST_ITEM = "list_item"
    TABLE = "table"
    PICTURE = "picture"
    CAPTION = "caption"
    FOOTNOTE = "footnote"
    PAGE_HEADER = "page_header"
    PAGE_FOOTER = "page_footer"
    FORMULA = "formula"
    CODE = "code"
    REFERENCE = "reference"
    DOCUMENT_INDEX = "document_index"
    FORM_FIELD = "form_field"
    SELECTION_MARK = "selection_mark"
    DECORATIVE = "decorative"

    def __str__(self) -> str:  # wire value = name, also inside f-strings
        return self.value

    @property
    def colour(self) -> str:
        return COLOURS[self]

    @property
    def label_ja(self) -> str:
        return LABELS_JA[self]


# Chosen so neighbours on a page (caption/picture, footnote/text, header/footer) stay distinguishable.
COLOURS: dict[Category, str] = {
    Category.TITLE: "#d62728",
    Category.SECTION_HEADER: "#ff7f0e",
    Category.TEXT: "#1f77b4",
    Category.LIST_ITEM: "#17becf",
    Category.TABLE: "#2ca02c",
    Category.PICTURE: "#9467bd",
    Category.CAPTION: "#e377c2",
    Category.FOOTNOTE: "#8c564b",
    Category.PAGE_HEADER: "#7f7f7f",
    Category.PAGE_FOOTER: "#5a5a5a",
    Category.FORMULA: "#bcbd22",
    Category.CODE: "#393b79",
    Category.REFERENCE: "#637939",
    Category.DOCUMENT_INDEX: "#8c6d31",
    Category.FORM_FIELD: "#e7298a",
    Category.SELECTION_MARK: "#00a087",
    Category.DECORATIVE: "#c7c7c7",
}

LABELS_JA: dict[Category, str] = {
    Category.TITLE: "タイトル",
    Category.SECTION_HEADER: "見出し",
    Category.TEXT: "本文",
    Category.LIST_ITEM: "箇条書き",
    Category.TABLE: "表",
    Category.PICTURE: "図",
    Category.CAPTION: "キャプション",
    Category.FOOTNOTE: "脚注",
    Category.PAGE_HEADER: "ヘッダー",
    Category.PAGE_FOOTER: "フッター",
    Category.FORMULA: "数式",
    Category.CODE: "コード",
    Category.REFERENCE: "参考文献",
    Category.DOCUMENT_INDEX: "目次",
    Category.FORM_FIELD: "フォーム項目",
    Category.SELECTION_MARK: "チェックボックス",
    Category.DECORATIVE: "装飾",
}

C = Category

# One table for every label source. Keys are the source's own label, exactly as it spells it.
LABEL_MAPS: dict[str, dict[str, Category]] = {
    # pymupdf.layout's 11 classes (page.layout_information)
    "pymupdf_layout": {
        "text": C.TEXT, "title": C.TITLE, "picture": C.PICTURE, "table": C.TABLE,
        "list-item": C.LIST_ITEM, "page-header": C.PAGE_HEADER, "page-footer": C.PAGE_FOOTER,
        "section-header": C.SECTION_HEADER, "footnote": C.FOOTNOTE, "caption": C.CAPTION,
        "formula": C.FORMULA,
    },
    # docling-core DocItemLabel values
    "docling": {
        "text": C.TEXT, "paragraph": C.TEXT, "title": C.TITLE, "section_header": C.SECTION_HEADER,
        "list_item": C.LIST_ITEM, "table": C.TABLE, "picture": C.PICTURE, "chart": C.PICTURE,
        "caption": C.CAPTION, "footnote": C.FOOTNOTE, "page_header": C.PAGE_HEADER,
        "page_footer": C.PAGE_FOOTER, "formula": C.FORMULA, "code": C.CODE,
        "reference": C.REFERENCE, "document_index": C.DOCUMENT_INDEX, "form": C.FORM_FIELD,
        "key_value_region": C.FORM_FIELD, "checkbox_selected": C.SELECTION_MARK,
        "checkbox_unselected": C.SELECTION_MARK, "handwritten_text": C.TEXT,
        "empty_value": C.FORM_FIELD, "grading_scale": C.TABLE, "field_region": C.FORM_FIELD,
        "field_heading": C.SECTION_HEADER, "field_item": C.FORM_FIELD, "field_key": C.FORM_FIELD,
        "field_value": C.FORM_FIELD, "field_hint": C.TEXT, "marker": C.DECORATIVE,
    },
    # Azure Document Intelligence paragraph roles and element kinds
    "azure": {
        "title": C.TITLE, "sectionHeading": C.SECTION_HEADER, "pageHeader": C.PAGE_HEADER,
        "pageFooter": C.PAGE_FOOTER, "pageNumber": C.PAGE_FOOTER, "footnote": C.FOOTNOTE,
        "formulaBlock": C.FORMULA, "paragraph": C.TEXT, "table": C.TABLE, "figure": C.PICTURE,
        "caption": C.CAPTION, "keyValuePair": C.FORM_FIELD, "selectionMark": C.SELECTION_MARK,
        "line": C.TEXT,
    },
    # AWS Textract block types
    "textract": {
        "LAYOUT_TITLE": C.TITLE, "LAYOUT_HEADER": C.PAGE_HEADER, "LAYOUT_FOOTER": C.PAGE_FOOTER,
        "LAYOUT_SECTION_HEADER": C.SECTION_HEADER, "LAYOUT_PAGE_NUMBER": C.PAGE_FOOTER,
        "LAYOUT_LIST": C.LIST_ITEM, "LAYOUT_FIGURE": C.PICTURE, "LAYOUT_TABLE": C.TABLE,
        "LAYOUT_KEY_VALUE": C.FORM_FIELD, "LAYOUT_TEXT": C.TEXT, "TABLE": C.TABLE,
        "TABLE_TITLE": C.CAPTION, "TABLE_FOOTER": C.FOOTNOTE, "KEY_VALUE_SET": C.FORM_FIELD,
        "SELECTION_ELEMENT": C.SELECTION_MARK, "LINE": C.TEXT,
    },
}


def category_from_label(source: str, label: str) -> Category:
    """Translate a source's label; unknown labels raise so a new label is never silently mis-filed."""
    try:
        return LABEL_MAPS[source][label]
    except KeyError:
        known = ", ".join(sorted(LABEL_MAPS.get(source, {})))
        raise KeyError(f"unknown {source!r} label {label!r}; known: {known}") from None


def parse_category(value: str) -> Category:
    """Parse a wire value, with a message that quotes the bad value and lists the good ones."""
    try:
        return Category(value)
    except ValueError:
        raise ValueError(
            f"unknown category {value!r}; expected one of: {', '.join(c.value for c in Category)}"
        ) from None
