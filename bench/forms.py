"""Form evidence accuracy on flattened forms: key–value pairs, selection states, empty values.

    python bench/forms.py [--engine fast|layout|both] [--variant empty|filled|both] [--corpus N] [--misses N] [--wild N]
                          [--extra-forms DIR] [--extra-forms2 DIR] [--extra-forms3 DIR] [--extra-forms4 DIR]
                          [--extra-forms5 DIR] [--extra-forms6 DIR]

Two kinds of ground truth:
- the sample flattened 申請書 (sample_docs/shinseisho_flat.pdf) against its truth JSON: a pair
  counts when the key, the value and the value's place all agree;
- each real AcroForm in ../shared/realdata/pdfs/forms/, flattened with `doc.bake()` (the widgets
  become page content) and ingested like any scan-free PDF, against the widgets of the original:
  one field per widget (text, combo, list, signature, check box, radio option; push buttons
  carry no value and are left out). A pair counts when a predicted field sits on the widget's
  rectangle with the same value (check boxes: a selection mark there). "key agrees" is the share
  of matched pairs whose key is the label the widget path finds on the original (same words on
  the page, so it measures whether geometry picked the right label without knowing the widget).

Prints pair precision / recall / F1, selection-state accuracy (over truth check boxes; a box
that was not found counts as wrong), empty values found, and a few misses of each kind.
Target on the flattened real forms: pair F1 ≥ 0.90, state accuracy ≥ 0.98.

The *filled* variant (bench/form_filling.py) first fills every text widget with a realistic value
and ticks some boxes, then bakes: values now sit in the boxes, so telling a filled value from a
printed caption is measured too. Forms are the real ones in pdfs/forms/ plus `--corpus N` of the
widget corpus (those with at least three text widgets). A form is in the *tune* half when its
misses were read while writing the pairing rules (`STUDIED`) or it is the same form as one (a twin
by its printed words), or it is one of the widget corpus's forms with a comb field or three marks or
more (`trait_forms`: the widget kinds the clean hold-out has and the studied forms lacked; `--traits 0`
leaves them out); every other form is *hold-out*, and its misses are not printed unless asked
(`--show-hold-out`), so looking at them is a choice the note must own. The summary gives the mean
per-form value F1, key agreement and state accuracy of each half, engine and variant.

Two audits follow, made on the baked pages before any pairing result is read: what the page prints of
the truth (a value not printed in its box cannot be read; it still counts as a miss), and what ingest
makes of that print (is the file taken for a form at all, is each printed value one text unit in its
box, is its box drawn, which widget traits it has); the hold-out half is summed, no form named.
`--wild N` instead counts the forms, fields and pairs of every N-th file of wild/: forms rules must
leave them as they were.

`--extra-forms DIR` adds the forms listed in bench/forms_extra.tsv (file, registry, package, version,
path inside the package, sha256), read from DIR; a file missing there is reported, one whose hash
differs is refused. They are real AcroForms shipped inside registry packages, found after the rules
above were written, and kept out of the repository. They were the clean hold-out (half *new*, never
printed form by form) and were read three times, at stops 28-29: that hold-out is spent. From stop 32
on they are tune forms (half *tune*, printed form by form with their misses, source *registry* so
the summary also gives their means apart from the other tune forms). To fetch them again (DIR as below):

    mkdir -p /tmp/fx && cd /tmp/fx
    pip download --no-binary :all: --no-deps pikepdf==10.18.0 pypdf==7.1.1 pdfjinja==1.1.0 -d .
    npm pack fill-pdf@1.1.0 pdf2json@0.7.1
    for f in *.tar.gz; do tar xzf $f; done; for f in *.tgz; do mkdir -p ${f%.tgz}; tar xzf $f -C ${f%.tgz}; done
    mkdir -p DIR
    cp pikepdf-10.18.0/tests/resources/form_210966.pdf DIR/pikepdf__form_210966.pdf
    cp pikepdf-10.18.0/tests/resources/form_dd0293.pdf DIR/pikepdf__form_dd0293.pdf
    cp pypdf-7.1.1/resources/SF424_page2.pdf DIR/pypdf__SF424_page2.pdf
    cp pdfjinja-1.1.0/examples/sample.pdf DIR/pdfjinja__sample.pdf
    cp fill-pdf-1.1.0/package/test/resources/test.pdf DIR/fill-pdf__test.pdf
    for f in f1040 f1040a f1040ez; do cp pdf2json-0.7.1/package/test/data/$f.pdf DIR/pdf2json__$f.pdf; done

pdf2json 0.7.1 also ships f1040ezt.pdf,
left out: the same form as f1040ez (0.89 of its printed words). None of the eight has the hash or the
name of a file in pdfs/forms or widget_corpus, and none shares more than 0.15 of its words with one.

`--extra-forms2 DIR` adds the forms of bench/forms_extra2.tsv the same way (hash checked). They were a
second clean hold-out, half *new2*, gathered once the first was read, and read once, at stop 32: spent.
From stop 33 on they are tune forms too (source *registry2*, so the summary gives their means apart from
the first registry forms and the other tune forms). To fetch them (DIR as below, REPO this repository's root):

    mkdir -p /tmp/fx2 && cd /tmp/fx2
    pip download --no-binary :all: --no-deps acroforge==0.4.0 docassemble-alaffidavitofindigency==2.3.0 -d .
    pip download --no-binary :all: --no-deps docassemble-alweaver==2.3.1 docassemble-hmctshelper==0.0.1 -d .
    pip download --no-binary :all: --no-deps docassemble-kinshipconnector==1.1.1 docassemble-law==0.5.9 -d .
    pip download --no-binary :all: --no-deps docassemble-lawvfamilylaw==0.1.8 docassemble-lawvrelease==1.0.9 -d .
    pip download --no-binary :all: --no-deps docassemble-lawvretainer==2.0.3 -d .
    npm pack pdf-forms@0.1.1
    for f in *.tar.gz; do tar xzf $f; done; for f in *.tgz; do mkdir -p ${f%.tgz}; tar xzf $f -C ${f%.tgz}; done
    mkdir -p DIR
    tail -n +2 REPO/bench/forms_extra2.tsv | while read -r file registry package version path sha; do
        if [ "$registry" = npm ]; then path="$package-$version/$path"; fi; cp "$path" "DIR/$file"; done

Fifteen forms from ten packages (at most three from one): court, tax, benefit and legal-aid forms
(US federal and state, UK, German). None has the hash or the name of a file in pdfs/forms, widget_corpus
or forms_extra.tsv, none shares more than 0.13 of its printed words (Jaccard of the word sets) with one
of those or with another of the fifteen; left out as twins of a kept form: docassemble-law's
gender_change (0.58 with name_change) and name_and_gender_change, docassemble-lawvretainer's bha/fast
(0.71 with each other) and lawv_retainer_spanish (a translation); acroforge's f1040 (the name of
pdf2json's f1040, 0.44 with f1040a).

`--extra-forms3 DIR` adds the forms of bench/forms_extra3.tsv the same way (hash checked). They were a third
clean hold-out, half *new3*, gathered at stop 33 under the same rules, and read once, at stop 33: spent. From
stop 34 on they are tune forms too (source *registry3*, so the summary gives their means apart from the other
registry sources and the other tune forms). To fetch it (DIR, REPO as above):

    mkdir -p /tmp/fx3/refetch && cd /tmp/fx3/refetch
    pip download --no-binary :all: --no-deps docassemble-demo==1.10.5 docassemble-lawvexpungementevaluator==1.0.2 -d .
    pip download --no-binary :all: --no-deps docassemble-lawvfamilylaw==0.1.8 docassemble-lawvrelease==1.0.9 -d .
    pip download --no-binary :all: --no-deps docassemble-lawvrentersrightswestvirginia==0.1.3 -d .
    pip download --no-binary :all: --no-deps docassemble-lawvsolidfoundations==0.0.5 formalizer==0.2.3 -d .
    pip download --no-binary :all: --no-deps formalpdf==0.1.6 justfill-mcp==0.4.10 -d .
    for f in *.tar.gz; do tar xzf $f; done
    mkdir -p DIR
    tail -n +2 REPO/bench/forms_extra3.tsv | while read -r file registry package version path sha; do
        cp "$path" "DIR/$file"; done

Seventeen forms from nine PyPI packages (at most three from one), each with three writable text widgets or more:
US Air Force personnel forms (nomination for award, record of duties, DAF 4392), West Virginia family-court,
magistrate-court (wrongful-occupation answer), guardianship, expungement and legal-aid release forms,
docassemble's demo forms, a supplier intake form and a test form of nested text boxes. No tax form and no
Japanese one: each tax form found in a registry was a twin of a 1040 already in a set. None has the hash or the
name of a file in pdfs/forms, widget_corpus, forms_extra.tsv or forms_extra2.tsv, none shares more than 0.15 of
its printed words (`printed_words`, Jaccard) with one of those or with another of the seventeen (at most 0.147).
Left out as twins: docassemble-lawvsolidfoundations' igp (kinshipconnector's, in new2), docassemble-lawvcommon's
case-information sheets (0.19 and 1.00 with sca_fc_103), docassemble-lawvmediarelease's releases (0.17 with
voca_release), mcp-pdf-forms' f1040 and Massachusetts Form 1 (0.46, 0.21 with pdf2json's), lawvfamilylaw's
sca_fc_129 (0.19 with sca_fc_140), lawvrelease's lawv_release (0.154 with voca_release),
lawvrentersrightswestvirginia's petition_for_appeal (0.30 with the long answer) and short answer (0.98), and
pdfnet-node-samples' form1 (0.18 with PyMuPDF's test-4055).

`--extra-forms4 DIR` adds the forms of bench/forms_extra4.tsv the same way (hash checked). They were a fourth
clean hold-out, half *new4*, gathered at stop 34 under the same rules, and read once, at stop 35: spent. From
stop 35 on they are tune forms too (source *registry4*). To fetch it (DIR, REPO as above):

    mkdir -p /tmp/fx4/refetch && cd /tmp/fx4/refetch
    pip download --no-binary :all: --no-deps docassemble-base==1.10.5 docassemble-demo==1.10.5 docassemble-hmlrhelper==0.0.3 -d .
    pip download --no-binary :all: --no-deps formalpdf==0.1.6 habutax==0.2.1 pdf-autofillr-chatbot==0.3.1 -d .
    pip download --no-binary pymupdf --no-deps pymupdf==1.22.5 -d .
    for f in *.tar.gz; do tar xzf $f; done
    mkdir -p DIR
    tail -n +2 REPO/bench/forms_extra4.tsv | while read -r file registry package version path sha; do
        cp "$path" "DIR/$file"; done

(pymupdf 1.22.5 is the newest sdist whose metadata builds here; later ones fetch MuPDF from outside the registries.)
Ten forms from seven PyPI packages (at most three from one), each with three writable text widgets or more, fewer
than the fifteen asked: the registries' form-bearing packages were mined by the three earlier sets, and what is
left is mostly twins. A Spanish USCIS I-9 (employment eligibility, combo boxes and radio groups), an investor
profile form of a fund subscription (a radio group), HM Land Registry's TR1 transfer of title, North Carolina's
D-400 Schedule S, a fillable sample form from TheWebJockeys, docassemble's letter, food-favourites and
signature-test templates, and two small test forms (a table of text boxes and check boxes, check boxes with
"specifically:" text boxes). One legal form (TR1), one tax form. Still no Japanese form: none was found in a
registry package. None has the hash or the name of a file in pdfs/forms, widget_corpus or forms_extra1-3, none
shares more than 0.15 of its printed words (`printed_words`, Jaccard) with one of those (at most 0.128) or with
another of the ten (at most 0.108). Left out as twins: habutax's D-400 Schedule A (0.22 with Schedule S), its IRS
forms (1040 and schedules, 8606, 8889, 8959, 8995: 0.16-0.49 with pdf2json's 1040s or PyMuPDF's test-4055) and NC
D-400 (0.20 with f1040a), the same forms of its other tax years, pdf-autofillr-doc-upload's blank_form (the
chatbot's, same hash), docassemble-aldashboard's civil docketing statement (1.00 with alweaver's) and
docassemble-lawvretainer's lawv_retainer_spanish (0.05 by words, but a translation on lawv_retainer's layout, a
tune form). Left out for the cap of three: formalpdf's multiline_input, extra_widgets_inline and
phone_number_three_parts. Left out as no form to read: files whose captions are images or absent (docassemble-demo's
sample-sig-form, altoolbox's debts, pdfnet's scanned form: 0-1 printed words).

`--extra-forms5 DIR` adds the forms of bench/forms_extra5.tsv the same way (hash checked). They were a fifth
clean hold-out, half *new5*, gathered at stop 35 under the same rules, and read once, at stop 35: spent. From
then on they are tune forms too (source *registry5*). To fetch it (DIR, REPO as above):

    mkdir -p /tmp/fx5/refetch && cd /tmp/fx5/refetch
    pip download --no-binary :all: --no-deps docassemble-mavirtualcourt==1.0.7 -d .
    pip download --no-binary :all: --no-deps docassemble-lawvretainer==1.5.2 -d .
    for f in *.tar.gz; do tar xzf $f; done
    mkdir -p DIR
    tail -n +2 REPO/bench/forms_extra5.tsv | while read -r file registry package version path sha; do
        cp "$path" "DIR/$file"; done

Three forms from one PyPI package (a fourth below), far fewer than the ten asked: Massachusetts Trial Court forms (a
civil action cover sheet with check boxes, the 209A/258E defendant information form, a Probate
and Family Court generic motion of two pages with a radio group), each with 30 writable text widgets or more.
None has the hash or the name of a file in pdfs/forms, widget_corpus or forms_extra1-4, none shares more than
0.15 of its printed words (`printed_words`, Jaccard) with one of those (at most 0.128) or with another of the
three (at most 0.073). Searched and found mined out or twins: npm (pdf2json 4.1.0, pdf3json, pdffiller, pdfform.js,
pdf-fill-form, pdf-form-fill, node-pdftk, muhammara, hummus, hummus-recipe, scissors, pdftk-lambda, survey-pdf,
pdf-parse, pdf.js-extract, ng2-pdfjs-viewer, web-document-viewer: no widget PDF shipped), some forty PyPI
form packages not used before (only odoo-addon-report-pdf-form's form_example, 0.22 with pdf.js' form_two_pages;
pdfjinjax's sample and docassemble-assemblylinewizard's test_pdf, the hashes of pdfjinja's and alweaver's), the
newest and some older versions of the other docassemble packages (no form with three text widgets), and Debian's
texlive-latex-recommended-doc and texlive-latex-extra-doc (field demos of package manuals, no form). Left out of
MAVirtualCourt 1.0.7 for the cap of three or as twins: the 209A complaint and its page 2 (0.74 with each other),
the Housing Court restraining order and its redacted copy (0.73; 0.18 with alweaver's test_pdf), the child-support
affidavits (0.81 and 1.00 with each other), the guardianship temporary order (0.148 with the generic motion), the
confidential information form and impoundment motion (0.33 with each other), the affidavit and labelled complaint.
A fourth form, added by a second gatherer at stop 35: the West Virginia Legal Aid full-representation
retainer in Spanish (full_spanish.pdf of docassemble-lawvretainer 1.5.2, one page, 7 writable text widgets and
three signature fields; lawv_retainer.pdf of 2.0.3 is in an earlier set, so the package stays within three).
Its printed words share at most 0.083 with an earlier set's form and 0.011 with the other three. Left out as
twins: 1.5.2's limited_spanish.pdf (0.670 with full_spanish), full.pdf and limited.pdf (0.241, 0.253 with
lawv_retainer), bha.pdf and fast.pdf (0.187), and 2.0.3's lawv_retainer_spanish.pdf (0.195 with full_spanish);
docassemble-lawvcommon's civil case information sheets (1.0.0-1.0.13: 0.190-1.000 with lawvfamilylaw's
sca_fc_103), docassemble-lawvmediarelease 1.0.1's two releases (0.169, 0.168 with lawvrelease's voca_release);
docassemble-law 0.2.0's name and gender change forms (0.58-1.00 with its name_change). No form with widgets in
docassemble-lawvnamechange (0.0.1, 1.0.5, 1.0.12), -lawvnamechangeclinic, -lawvwillsclinic (0.0.6, 1.0.7),
-macourts, -baseball, -languagepack, -docusign, -alanystate; the older versions of kinshipconnector,
lawvsolidfoundations, lawvrentersrightswestvirginia, lawvexpungementevaluator, hmlrhelper, alweaver,
alaffidavitofindigency and altoolbox hold the hashes of forms already used. Left out without a check: image-only
forms with no printed word (kinshipconnector's igw.pdf, altoolbox's debts.pdf), whose twins the word test
cannot see.
No Japanese form, no tax form.

`--extra-forms6 DIR` adds the forms of bench/forms_extra6.tsv the same way (hash checked). They were a sixth
clean hold-out, half *new6*, gathered at stop 36 under the same rules, and read once, at stop 36 (on 7e6814e: fast
F1/key/state 0.592/0.851/0.782, layout 0.637/0.870/0.763): spent. From then on they are tune forms too (source
*registry6*). Its forms come from Debian's source packages, which
no earlier set searched: the upstream tarballs (`.orig.tar.*`) of bookworm's source packages of PDF tools, whose test
folders hold forms. `apt-get source` needs a deb-src line (a file in /etc/apt/sources.list.d/ with `Types: deb-src`,
the URIs, suites and key of the deb line, then `apt-get update`); a package's debian.tar.xz may be missing on the
mirror (404, exit code 100: libitext5-java's), which does not matter, only the .orig tarball is read. To fetch it
(DIR, REPO as above):

    mkdir -p /tmp/fx6/refetch && cd /tmp/fx6/refetch
    for p in pdf.js=2.14.305+dfsg-2 cups-filters=1.28.17-3+deb12u2 qpdf=11.3.0-1+deb12u1 \
             libitext5-java=5.5.13.3-2 okular=4:22.12.3-1+deb12u1 libpdfbox2-java=2.0.27-2 \
             libreoffice=4:7.4.7-1+deb12u14 chromium=150.0.7871.100-1~deb12u1; do
        apt-get source --download-only $p; done
    mkdir -p DIR
    tail -n +2 REPO/bench/forms_extra6.tsv | while read -r file registry package version path sha; do
        tar xf "$(ls ${package}_*.orig.tar.?z)" "$path" && cp "$path" "DIR/$file"; done

(libreoffice's sources are 600 MB, three tarballs, of which only the main one, 265 MB, is read; chromium's .orig
tarball is 941 MB; tar reads only the forms' paths. The versions are the ones bookworm served at stop 36: a security
update may replace a +debNuN or ~debNuN version on the mirror, and apt-get then refuses it.)

Thirteen forms from eight Debian source packages (at most three from one), each with three writable text widgets or
more (3-94): Luxembourg's modèle 160 salary certificate for 2019 (French, 58 text widgets, push buttons and a radio
group) and a three-page French CERFA 14411*01 health-insurance form (94 text widgets, check boxes), both test files
of pdf.js 2.14.305; cups-filters' banner-page task information form (17 text widgets); three of libitext5-java
5.5.13.3's test forms: a film data sheet (4 text widgets, 19 radio options, 9 check boxes), Washington State's
three-page certification of enrollment for tobacco product manufacturers (25 text widgets on underscored blanks) and
a two-page appointment form (text widgets and two combo boxes); qpdf 11.3.0's sample form (names and address, combo
boxes, check boxes) and its two-page field test (text, radio, check, combo and list widgets); okular 22.12.3's
AFSimpleCalculate test (sum, average, product, minimum, maximum boxes); PDFBox 2.0.27's AcroFormsBasicFields test
(every widget kind); and a real estate form, the Texas Real Estate Commission's TREC No. 36-8 addendum on a property
owners association (one page of dense contract text, 5 text widgets, 8 check boxes, 4 signature fields), a test file
of libreoffice 7.4.7's PDF signing; two of chromium 150's test forms: pdfium's XFA-specific standard_symbols (two
pages, 17 text widgets each captioned 日期/时间栏, Chinese for "date/time field", beside an English note on a time
pattern) and chromium's form_text_fields (3 writable text widgets and a read-only one: password, required field).
Mostly test forms of PDF tools: two government forms (Luxembourg, France), two US state forms (Washington, Texas),
no tax return, no Japanese form: the only CJK captions found are standard_symbols' Chinese ones, no Japanese text in
any form-bearing file. None has the hash or the name of a file in pdfs/forms, widget_corpus or forms_extra1-5, none
shares more than 0.15 of its printed words (`printed_words`, Jaccard) with one of those (at most 0.109: the Texas
form with pikepdf's form_210966; then 0.096, the Washington form with PyMuPDF's test_4114) or with another of the
thirteen (at most 0.084: the Texas and Washington forms; the two French forms 0.068). Searched: the .orig tarballs
of pdf.js, qpdf, okular, libpdfbox2-java, libitext5-java, cups-filters, libreoffice, chromium (the eight used; of
chromium the 471 PDFs, pdfium's testing/resources and pdf/test/data among them, seven with three text widgets; of
libreoffice only the 76 PDFs of the main tarball, one with three text widgets), pypdf 3.4.1 (its SF424_page2 and
libreoffice-form are in earlier sets), pikepdf 6.0.0, mupdf, pdfminer, poppler, pdfsam, libharu, libpodofo,
libcam-pdf-perl, libpdf-api2-perl, libpdf-fdf-simple-perl, origami-pdf, tcpdf, texworks, calligra, ghostscript,
gnucash, inkscape and qtwebengine-opensource-src, whose chromium copy has no pdfium test files (no PDF with three
writable text widgets; of the 109 files of all these tarballs that have three, two hold Chinese characters,
standard_symbols and static_password_field_rotate, and none a kana); evince, atril, pdftk-java, pymupdf, pypdf2,
ocrmypdf, python-reportlab, libpdf-builder-perl, ruby-pdf-reader, ruby-prawn, emacs-pdf-tools, xournalpp, scribus,
kile and jameica could not be fetched (their .orig tarballs 404 on the mirror); texlive-extra (2.3 GB) was not
tried. On PyPI, pdfplumber 0.11.10, pypdfform 6.0.1, pypdfform-reducto 3.8.2.6, fillpdf 0.7.3, pyhanko 0.38.0,
pdfforms 2.0.0, PyPDF2-Fields 1.0.1, PyPDF2 3.0.1 and playa-pdf 1.1.0 ship no PDF with three writable text widgets;
pdfrw-test-data 0.0.1 (pdfrw's static PDFs) cannot be downloaded with pip (its setup.py fails under the setuptools
tried: the build default, <60, <58, <39). Left out as twins or for the cap of three: pdf.js' resetform (0.176 with
pdf.js' bug1675139 of the widget corpus), prefilled_f1040 (0.881 with pdf2json's f1040), issue9972-2/-3 (1.00 with
issue9972-1) and the files of the widget corpus (bug1669099, evaljs, pr12828 ...: same hash); cups-filters'
form_russian (0.000 by words, but the Russian translation of form_english on its layout); libitext5-java's
imdb0468569 (0.84 with imdb0948530) and the copies of that film sheet in PdfCopyTest (appearances*,
cmp_appearances*, cmp_copyFields, fieldsOn*-sPage: 0.70-0.73), cmp_copyFields4 (1.00 with link), sourceCf11, 13 and
16 (0.91-1.00 with sourceCf12) and large_pdf.pdf (957 pages of a saved web site with HTML form widgets, no form);
qpdf's test80a1/a2 (0.52 with fields-two-pages) and its many copies of one field test (rotated-shared-annotations,
form-fields-and-annotations-shared, overlay-copy-annotations ...: 0.40-0.90 with fields-two-pages or each other);
okular's formSamples (0.176 with pdf.js' issue15096), keystroketest (its captions are JavaScript) and formattest (44
text widgets captioned by format names); PDFBox's MultilineFields (0.240 with AcroFormsBasicFields),
AcroFormsRotation (0.392 with MultilineFields), AlignmentTests and Acroform-PDFBOX-2333 (one file twice, 36 text
widgets captioned AlignLeft, AlignLeft-Border_Small ...) and ControlCharacters (captions are control-character
names); chromium's static_password_field_rotate (54 text widgets captioned by their rotation, "Top Left，90°"),
links_highlights_annots (its ten words a note on link annotations, no caption), text_form_multiple, annotiter and
annotation_form_fields (0-3 printed words). Left out without a check: files with fewer than three writable text
widgets (PDFBox's merge tests, itext's FlatteningTest/formField_*) or with 0-2 printed words (qpdf's
manual-appearances, pdf.js' doc_actions and issue14023), whose twins the word test cannot see.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402

from core.forms.fields import document_units, extract_fields, shows_form  # noqa: E402
from core.forms.form_field import FormField  # noqa: E402
from core.geometry import iou  # noqa: E402
from core.ingest.pipeline import ingest_bytes  # noqa: E402
from core.model import Document  # noqa: E402
from core.review.corrections import corrected_document  # noqa: E402
from core.store.workspace import Workspace  # noqa: E402
from bench.form_filling import fill_form  # noqa: E402

REALDATA = Path(os.environ.get("RLI_REALDATA") or ROOT.parent / "shared" / "realdata")
FORMS_DIR = REALDATA / "pdfs" / "forms"
CORPUS_DIR = REALDATA / "pdfs" / "widget_corpus"
SAMPLE = ROOT / "sample_docs" / "shinseisho_flat.pdf"
VALUE_WIDGETS = {"Text", "ComboBox", "ListBox", "Signature"}
MARK_WIDGETS = {"CheckBox", "RadioButton"}


def norm(text: Any) -> str:
    return "".join(unicodedata.normalize("NFKC", str(text or "")).split()).casefold()


@dataclass(frozen=True)
class Truth:
    page: int
    key: str
    value: str
    state: str | None  # selection marks only
    bbox: tuple[float, float, float, float]
    is_mark: bool
    radio: bool = False


@dataclass
class Score:
    name: str
    truth: int = 0
    predicted: int = 0
    matched: int = 0
    key_agree: int = 0
    key_total: int = 0  # matched pairs whose widget has a printed label to agree with
    marks: int = 0
    states_right: int = 0
    empty_found: int = 0
    empty_truth: int = 0
    empty_matched: int = 0
    seconds: float = 0.0
    misses: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)
    wrong_states: list[str] = field(default_factory=list)
    wrong_keys: list[str] = field(default_factory=list)  # matched values whose key is not the widget path's label
    audit: "Audit | None" = None  # what the baked page prints of its truth (real forms only)
    ingest: "IngestAudit | None" = None  # what ingest reads of that print (real forms only)

    def add(self, other: "Score") -> None:
        for name in ("truth", "predicted", "matched", "key_agree", "key_total", "marks", "states_right", "empty_found",
                     "empty_truth", "empty_matched", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.truth if self.truth else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def state_accuracy(self) -> float:
        return self.states_right / self.marks if self.marks else 1.0

    def line(self) -> str:
        return (f"{self.name:<44} truth {self.truth:>3}  pred {self.predicted:>3}  match {self.matched:>3}  "
                f"P {self.precision:.3f}  R {self.recall:.3f}  F1 {self.f1:.3f}  "
                f"key-agree {self.key_agree}/{self.key_total}  states {self.states_right}/{self.marks} "
                f"({self.state_accuracy:.3f})  empty found {self.empty_found} "
                f"(truth {self.empty_truth}, matched {self.empty_matched})  {self.seconds:.1f}s")


def ingest_fields(data: bytes, name: str, engine: str) -> tuple[FormField, ...]:
    return ingest_document(data, name, engine)[1]


def ingest_document(data: bytes, name: str, engine: str) -> tuple[Document, tuple[FormField, ...]]:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(tmp)
        record = ingest_bytes(ws, data, name, engine=engine).record
        doc = corrected_document(ws, record.doc_id)
        fields = extract_fields(doc)
        ws.close()
    return doc, fields


def _centre_in(inner: Sequence[float], outer: Sequence[float], pad: float = 2.0) -> bool:
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] - pad <= cx <= outer[2] + pad and outer[1] - pad <= cy <= outer[3] + pad


def same_place(pred: Sequence[float] | None, truth: Sequence[float]) -> float:
    """0 when the boxes are unrelated, else a closeness score (IoU, or a small credit for containment)."""
    if pred is None:
        return 0.0
    score = iou(tuple(pred), tuple(truth))
    if score >= 0.2:
        return score
    if _centre_in(pred, truth) or _centre_in(truth, pred):
        return max(score, 0.1)
    return 0.0


def score(name: str, truths: list[Truth], fields: Sequence[FormField], keys_from: dict[int, str] | None,
          include_radio: bool) -> Score:
    s = Score(name, truth=len(truths))
    pages = {t.page for t in truths}
    preds = [f for f in fields if f.page in pages and (include_radio or f.value_type != "radio")]
    s.predicted = len(preds)
    s.empty_found = sum(1 for f in preds if f.value_type == "empty_value")
    s.empty_truth = sum(1 for t in truths if not t.is_mark and not t.value)
    candidates: list[tuple[float, int, int]] = []
    for ti, t in enumerate(truths):
        for pi, f in enumerate(preds):
            if f.page != t.page or f.is_selection != t.is_mark or (f.value_type == "radio") != t.radio:
                continue
            place = same_place(f.value_bbox, t.bbox)
            if place <= 0:
                continue
            if not t.is_mark and norm(f.value) != norm(t.value):
                continue
            if keys_from is None and norm(f.key) != norm(t.key):  # sample: the key is part of the truth
                continue
            candidates.append((place, ti, pi))
    matched_t: dict[int, int] = {}
    matched_p: set[int] = set()
    for place, ti, pi in sorted(candidates, reverse=True):
        if ti in matched_t or pi in matched_p:
            continue
        matched_t[ti] = pi
        matched_p.add(pi)
    s.matched = len(matched_t)
    for ti, pi in matched_t.items():
        t, f = truths[ti], preds[pi]
        if keys_from is not None and ti not in keys_from:
            continue  # no printed label on the original: nothing on the page to agree with
        s.key_total += 1
        expected_key = t.key if keys_from is None else keys_from[ti]
        if norm(f.key) == norm(expected_key):
            s.key_agree += 1
        else:
            s.wrong_keys.append(f"p{t.page} {f.value[:24]!r} keyed {f.key[:40]!r}, label {expected_key[:40]!r}")
        if not t.is_mark and not t.value:
            s.empty_matched += 1
    for ti, t in enumerate(truths):
        if t.is_mark:
            s.marks += 1
            f = preds[matched_t[ti]] if ti in matched_t else None
            if f is not None and f.selection_state == t.state:
                s.states_right += 1
            else:
                got = f.selection_state if f else "not found"
                s.wrong_states.append(f"p{t.page} {t.key[:40]!r} truth {t.state}, got {got} at {_box(t.bbox)}")
        if ti not in matched_t:
            near = [f for f in preds if f.page == t.page and same_place(f.value_bbox, t.bbox) > 0]
            seen = "; ".join(f"{f.key[:30]!r}={f.value[:20]!r}" for f in near[:2]) or "nothing there"
            kind = "mark" if t.is_mark else ("empty" if not t.value else "value")
            s.misses.append(f"p{t.page} {kind} {t.key[:40]!r}={t.value[:24]!r} at {_box(t.bbox)} -> {seen}")
    for pi, f in enumerate(preds):
        if pi not in matched_p:
            s.extras.append(f"p{f.page} {f.value_type} {f.key[:40]!r}={f.value[:24]!r} at {_box(f.value_bbox)}")
    return s


def _box(b: Sequence[float] | None) -> str:
    return "-" if b is None else "[" + ",".join(f"{v:.0f}" for v in b) + "]"


# ---- the sample flattened form ----------------------------------------------------------------
def sample_truth() -> list[Truth]:
    data = json.loads(SAMPLE.with_suffix(".truth.json").read_text(encoding="utf-8"))
    out = []
    for f in data["form_fields"]:
        is_mark = f["value_type"] == "selection_mark"
        out.append(Truth(f["page"], f["key"], f["value"] or "", f["selection_state"] if is_mark else None,
                         tuple(f["value_bbox"]), is_mark, f["value_type"] == "radio"))
    return out


def bench_sample(engine: str) -> Score:
    started = time.perf_counter()
    fields = ingest_fields(SAMPLE.read_bytes(), SAMPLE.name, engine)
    s = score(f"sample {SAMPLE.name}", sample_truth(), fields, None, include_radio=True)
    s.seconds = time.perf_counter() - started
    return s


# ---- real AcroForms, flattened ------------------------------------------------------------------
def widget_truth(pdf: pymupdf.Document) -> list[Truth]:
    out = []
    for page in pdf:
        for w in page.widgets():
            kind = w.field_type_string
            if kind in MARK_WIDGETS:
                on = re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), str(w.on_state()))
                selected = w.field_value not in (None, "", "Off", False) and (
                    w.field_value is True or str(w.field_value) == str(on))
                out.append(Truth(page.number + 1, w.field_label or w.field_name or "", "",
                                 "selected" if selected else "unselected", tuple(w.rect), True))
            elif kind in VALUE_WIDGETS:
                value = w.field_value
                if isinstance(value, (list, tuple)):
                    value = ", ".join(str(v) for v in value)
                out.append(Truth(page.number + 1, w.field_label or w.field_name or "",
                                 "" if value is None else str(value), None, tuple(w.rect), False))
    return out


# ---- is the truth on paper? ---------------------------------------------------------------------
@dataclass
class Audit:
    """What a baked page prints of its truth: a value or tick not printed anywhere cannot be read from
    paper, and a key that is only a field name or tooltip cannot be matched by printed words. These
    items stay in the truth (they count as misses); here they are counted and listed with the reason."""
    values: int = 0
    in_box: int = 0  # the value's text is printed inside its widget's box (a value printed only
    # elsewhere is not counted: the filled values repeat, so another box may print the same text)
    unprinted: list[str] = field(default_factory=list)  # "reason: item"
    empties: int = 0  # truth values left empty
    empties_printed: int = 0  # ... whose box (a border, a rule) is printed, so an empty value has a place
    marks: int = 0
    marks_readable: int = 0  # a tick is drawn inside a selected box / an unselected box is printed at all
    key_tooltip: int = 0  # truth key taken from /TU
    key_name: int = 0  # truth key taken from the field name (no tooltip)
    key_printed: int = 0  # the truth key's words are printed on the page
    key_label: int = 0  # the widget path found a printed label (what key agreement scores against)

    def add(self, other: "Audit") -> None:
        for name in ("values", "in_box", "empties", "empties_printed", "marks", "marks_readable", "key_tooltip",
                     "key_name", "key_printed", "key_label"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.unprinted += other.unprinted

    @property
    def readable(self) -> int:
        return self.in_box + self.empties_printed + self.marks_readable

    def line(self, name: str) -> str:
        total = self.values + self.empties + self.marks
        return (f"{name[:60]:<60} values {self.in_box}/{self.values} printed in their box  "
                f"empty boxes {self.empties_printed}/{self.empties} printed  "
                f"marks {self.marks_readable}/{self.marks} readable  on paper {self.readable}/{total}  "
                f"keys: tooltip {self.key_tooltip} name {self.key_name} printed {self.key_printed} "
                f"labelled {self.key_label}")


def _near(rect: pymupdf.Rect, pad: float = 2.0) -> pymupdf.Rect:
    return pymupdf.Rect(rect.x0 - pad, rect.y0 - pad, rect.x1 + pad, rect.y1 + pad)


def _tick_inside(page: pymupdf.Page, rect: pymupdf.Rect) -> bool:
    """A selection mark drawn in the box: a glyph centred in it, or a path smaller than the box inside it
    (the box's own border or background is as large as the box)."""
    for block in page.get_text("rawdict", clip=rect)["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                if any(ch["c"].strip() and pymupdf.Rect(ch["bbox"]).intersects(rect) for ch in span["chars"]):
                    return True
    area = abs(rect)
    return any(_near(rect, 1).contains(d["rect"]) and abs(d["rect"]) < 0.8 * area
               for d in page.get_drawings() if d["rect"].intersects(rect))


def _box_printed(page: pymupdf.Page, rect: pymupdf.Rect) -> bool:
    return any(d["rect"].intersects(_near(rect)) for d in page.get_drawings()) or bool(
        page.get_text("text", clip=_near(rect)).strip())


def audit_truth(widget_page_keys: dict[int, str], truths: list[Truth], baked: pymupdf.Document,
                keys: dict[int, str]) -> Audit:
    """Check each truth item against the baked pages: is its value (or tick) printed, and is its key?"""
    a = Audit()
    page_text = {n: norm(baked[n - 1].get_text()) for n in {t.page for t in truths}}
    for ti, t in enumerate(truths):
        page, rect = baked[t.page - 1], pymupdf.Rect(t.bbox)
        source = widget_page_keys.get(ti, "name")
        a.key_tooltip += source == "tooltip"
        a.key_name += source == "name"
        a.key_printed += bool(norm(t.key)) and norm(t.key) in page_text[t.page]
        a.key_label += ti in keys
        item = f"p{t.page} {t.key[:40]!r}={t.value[:24]!r} at {_box(t.bbox)}"
        if t.is_mark:
            a.marks += 1
            ok = _tick_inside(page, rect) if t.state == "selected" else _box_printed(page, rect)
            a.marks_readable += ok
            if not ok:
                a.unprinted.append(("no tick drawn in the box: " if t.state == "selected"
                                    else "box not printed: ") + item)
        elif not t.value:
            a.empties += 1
            a.empties_printed += _box_printed(page, rect)
            if not _box_printed(page, rect):
                a.unprinted.append("empty box not printed (no border, rule or text there): " + item)
        else:
            a.values += 1
            shown = norm(page.get_text("text", clip=_near(rect)))
            if norm(t.value) in shown:
                a.in_box += 1
            else:
                a.unprinted.append(f"value not printed in its box ({_why_not(norm(t.value), shown)}): {item}")
    return a


def _why_not(value: str, shown: str) -> str:
    if not shown:
        return "box empty or hidden"
    if shown[:3] == value[:3]:
        return "clipped"
    return "box shows other text"


# ---- does ingest read what the baked page prints? -------------------------------------------------
@dataclass
class IngestAudit:
    """What pairing is given to work with, before any pairing rule runs: is the flattened file taken
    for a form at all (geometry reads nothing of a document that is not), and is each printed value a
    text unit of its own inside its box (joined to a caption or split, pairing must cut or glue it)?
    Counts only: it says nothing about which fields pairing made."""
    form_gate: bool = True
    values: int = 0  # values printed in their box (Audit.in_box)
    own_unit: int = 0  # ... that ingest holds as one text unit inside the box
    drawn: int = 0  # ... whose box the page draws (a border, a rule or a fill touches it): else only the
    # value's own type tells it from the print around it
    labelled: int = 0  # ... whose widget has a printed label (the widget path found one on the original)
    marks: int = 0  # check boxes and radio options
    reasons: list[str] = field(default_factory=list)  # "reason: item"
    widgets: dict[str, int] = field(default_factory=dict)  # widget traits that can move or hide a value

    def add(self, other: "IngestAudit") -> None:
        self.values += other.values
        self.own_unit += other.own_unit
        self.drawn += other.drawn
        self.labelled += other.labelled
        self.marks += other.marks
        self.reasons += other.reasons
        for k, n in other.widgets.items():
            self.widgets[k] = self.widgets.get(k, 0) + n


def _unit_centre_in(box: Sequence[float], rect: pymupdf.Rect, pad: float = 2.0) -> bool:
    return _centre_in(box, (rect.x0, rect.y0, rect.x1, rect.y1), pad)


def audit_ingest(truths: list[Truth], baked: pymupdf.Document, doc: Document,
                 keys: dict[int, str] | None = None) -> IngestAudit:
    units_of = document_units(doc)
    a = IngestAudit(form_gate=shows_form(doc, units_of))
    drawn_on: dict[int, list[pymupdf.Rect]] = {}
    for ti, t in enumerate(truths):
        a.marks += t.is_mark
        if t.is_mark or not t.value:
            continue
        rect = pymupdf.Rect(t.bbox)
        if norm(t.value) not in norm(baked[t.page - 1].get_text("text", clip=_near(rect))):
            continue  # not on paper: Audit counts it
        a.values += 1
        a.labelled += ti in (keys or {})
        if t.page not in drawn_on:  # a page's drawings are read once, not once per value on it
            drawn_on[t.page] = [d["rect"] for d in baked[t.page - 1].get_drawings()]
        a.drawn += any(r.intersects(_near(rect)) for r in drawn_on[t.page])
        value = norm(t.value)
        texts = [u for u in units_of.get(t.page, ()) if u.kind in ("text", "line") and norm(u.text)]
        inside = [u for u in texts if _unit_centre_in(u.bbox, rect)]
        touching = [u for u in texts if pymupdf.Rect(u.bbox).intersects(rect)]
        item = f"p{t.page} {t.value[:24]!r} at {_box(t.bbox)}"
        if any(norm(u.text) == value for u in inside):
            a.own_unit += 1
        elif any(value in norm(u.text) for u in touching):
            a.reasons.append("joined to other text in one unit: " + item)
        elif value in "".join(norm(u.text) for u in sorted(inside, key=lambda u: (u.bbox[1], u.bbox[0]))):
            a.reasons.append("split over units: " + item)
        elif not touching:
            held = sorted({e.category.value for e in doc.pages[t.page - 1].elements
                           if pymupdf.Rect(e.bbox).intersects(rect) and value in norm(e.text)})
            where = f"an element of category {'/'.join(held)} holds it" if held else "no element holds it"
            a.reasons.append(f"no text unit at the box ({where}): " + item)
        else:
            a.reasons.append("units there read other text (garbled, or a neighbour): " + item)
    return a


def widget_traits(pdf: pymupdf.Document) -> dict[str, int]:
    """Counts of text widgets with a trait that can put the baked value elsewhere than one line in the box."""
    out: dict[str, int] = {}

    def count(name: str) -> None:
        out[name] = out.get(name, 0) + 1

    if pdf.xref_get_key(pdf.pdf_catalog(), "AcroForm/XFA")[0] != "null":
        count("XFA form")
    for page in pdf:
        if page.rotation:
            count("rotated page")
        for w in page.widgets():
            if w.field_type_string not in VALUE_WIDGETS:
                continue
            flags = w.field_flags or 0
            count(w.field_type_string)
            for bit, name in ((1, "read-only"), (1 << 12, "multiline"), (1 << 24, "comb")):
                if flags & bit and w.field_type == pymupdf.PDF_WIDGET_TYPE_TEXT:
                    count(name)
            if pdf.xref_get_key(w.xref, "MK/R")[1] not in ("null", "0"):
                count("rotated widget (MK/R)")
            if pdf.xref_get_key(w.xref, "AP/N")[0] == "null":
                count("no appearance stream")
            if w.rect.height > 2.2 * (w.text_fontsize or 12) and w.field_type == pymupdf.PDF_WIDGET_TYPE_TEXT:
                count("box taller than two lines")
            if w.text_fontsize == 0:
                count("auto font size")
    return out


def ingest_report(audits: Sequence[tuple[str, str, IngestAudit]]) -> list[str]:
    """Per tune form, and summed over each half (hold-out: counts only, no form named), for each engine."""
    out = ["", "ingest of the baked page (before pairing: is it a form, is each printed value one unit in its box)"]
    sums: dict[tuple[str, str], tuple[IngestAudit, list[int]]] = {}
    refused: dict[tuple[str, str], IngestAudit] = {}  # the forms not taken for a form, summed
    for label, half, a in audits:
        engine = label.split()[0]
        total, gates = sums.setdefault((engine, half), (IngestAudit(), [0, 0]))
        total.add(a)
        if not a.form_gate:
            refused.setdefault((engine, half), IngestAudit()).add(a)
        gates[0] += a.form_gate
        gates[1] += 1
        if half == "tune":
            out.append(f"{label[:70]:<70} form {'yes' if a.form_gate else 'NO '}  values one unit in box "
                       f"{a.own_unit}/{a.values}  box drawn {a.drawn}/{a.values}  widgets {a.widgets}")
            out += [f"    {item}" for item in a.reasons]
    for (engine, half), (a, (gated, n)) in sorted(sums.items()):
        reasons: dict[str, int] = {}
        for item in a.reasons:
            reasons[item.split(":")[0]] = reasons.get(item.split(":")[0], 0) + 1
        out.append(f"SUM {engine:<6} {half:<8} forms taken for a form {gated}/{n}  values one unit in box "
                   f"{a.own_unit}/{a.values}  box drawn {a.drawn}/{a.values}  widgets {dict(sorted(a.widgets.items()))}")
        out += [f"    {reason} x{k}" for reason, k in sorted(reasons.items())]
        if (engine, half) in refused:
            r = refused[(engine, half)]
            out.append(f"    not taken for a form: {n - gated} forms, {r.values} printed values, box drawn {r.drawn}, "
                       f"printed label {r.labelled}, marks {r.marks}, widgets {dict(sorted(r.widgets.items()))}")
    return out


def key_sources(pdf: pymupdf.Document) -> dict[int, str]:
    """Truth index → where widget_truth took its key: the /TU tooltip or the field name."""
    out, ti = {}, 0
    for page in pdf:
        for w in page.widgets():
            if w.field_type_string in MARK_WIDGETS | VALUE_WIDGETS:
                out[ti] = "tooltip" if w.field_label else "name"
                ti += 1
    return out


def original_keys(truths: list[Truth], original: Sequence[FormField]) -> dict[int, str]:
    """Truth index → the key the widget path finds for that widget on the unflattened original, for
    the widgets whose key is a printed label (not the tooltip or the field name, which a flattened
    page does not show)."""
    out = {}
    for ti, t in enumerate(truths):
        best = max((f for f in original if f.page == t.page and f.value_type != "radio" and f.key_ref),
                   key=lambda f: same_place(f.value_bbox, t.bbox), default=None)
        if best is not None and same_place(best.value_bbox, t.bbox) > 0:
            out[ti] = best.key
    return out


def bench_real(path: Path, engine: str, filled: bool = False) -> Score:
    started = time.perf_counter()
    data = path.read_bytes()
    if filled:
        data = fill_form(data)
    original = pymupdf.open(stream=data, filetype="pdf")
    truths = widget_truth(original)
    sources = key_sources(original)
    keys = original_keys(truths, ingest_fields(data, path.name, engine))
    original.bake()
    flat = original.tobytes()
    doc, fields = ingest_document(flat, f"flat_{path.name}", engine)
    label = "filled+flattened" if filled else "flattened"
    s = score(f"{label} {path.name}", truths, fields, keys, include_radio=False)
    baked = pymupdf.open(stream=flat, filetype="pdf")
    s.audit = audit_truth(sources, truths, baked, keys)
    s.ingest = audit_ingest(truths, baked, doc, keys)
    s.ingest.widgets = widget_traits(pymupdf.open(stream=data, filetype="pdf"))
    s.seconds = time.perf_counter() - started
    return s


# Forms whose misses were read while writing the pairing rules (issue 16, both sessions): they are
# the tune half. Every other form is hold-out unless it is the same form as a
# studied one (same printed words: a twin's figures move with its tune copy, so it is no evidence).
STUDIED = frozenset({
    "cms1490s_filled.pdf", "irs_f7004_fillable.pdf", "pdfjs__annotation-text-widget.pdf",
    "pdfjs__bug1669099.pdf", "pdfjs__bug1675139.pdf", "pdfjs__issue9972-1.pdf", "pypdf__libreoffice-form.pdf",
})
TWIN_WORDS = 0.8  # share of printed words (Jaccard) from which two files are one form


def printed_words(path: Path) -> frozenset[str]:
    """The words printed on a form's widget pages (before filling): what makes two files one form."""
    with pymupdf.open(path) as doc:
        return frozenset(w for page in doc if page.first_widget for w in page.get_text().split())


def halves(paths: Sequence[Path], tune: frozenset[str] = frozenset()) -> dict[str, str]:
    """File name → tune or hold-out: tune when studied, named in `tune` (trait_forms) or a twin of a
    studied form, else hold-out."""
    words = {p.name: printed_words(p) for p in paths}
    studied = [words[n] for n in words if n in STUDIED]

    def twin(a: frozenset[str], b: frozenset[str]) -> bool:
        return bool(a | b) and len(a & b) / len(a | b) >= TWIN_WORDS

    return {n: "tune" if n in STUDIED or n in tune or any(twin(w, s) for s in studied) else "hold-out"
            for n, w in words.items()}


EXTRA_MANIFEST = ROOT / "bench" / "forms_extra.tsv"
EXTRA_MANIFEST2 = ROOT / "bench" / "forms_extra2.tsv"  # half new2 until stop 33: tune now, source registry2
EXTRA_MANIFEST3 = ROOT / "bench" / "forms_extra3.tsv"  # half new3 until stop 34: tune now, source registry3
EXTRA_MANIFEST4 = ROOT / "bench" / "forms_extra4.tsv"  # half new4 until stop 35: tune now, source registry4
EXTRA_MANIFEST5 = ROOT / "bench" / "forms_extra5.tsv"  # half new5, read at stop 35: tune now, source registry5
EXTRA_MANIFEST6 = ROOT / "bench" / "forms_extra6.tsv"  # half new6, read at stop 36: tune now, source registry6
# The clean hold-outs not yet read, each from its own manifest; their forms are never printed one by one.
# forms_extra.tsv was "new" until stop 32, forms_extra2.tsv "new2" until stop 33, forms_extra3.tsv "new3"
# until stop 34, forms_extra4.tsv "new4" and forms_extra5.tsv "new5" until stop 35, forms_extra6.tsv "new6" until
# stop 36: all tune now.
NEW_HALVES: dict[str, Path] = {}
TUNE_MANIFESTS = {"registry": EXTRA_MANIFEST, "registry2": EXTRA_MANIFEST2, "registry3": EXTRA_MANIFEST3,
                  "registry4": EXTRA_MANIFEST4, "registry5": EXTRA_MANIFEST5,
                  "registry6": EXTRA_MANIFEST6}  # spent hold-outs, by source


def extra_forms(folder: Path, manifest: Path = EXTRA_MANIFEST) -> list[Path]:
    """The manifest's forms found in `folder`, each checked against its recorded sha256."""
    out = []
    for line in manifest.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, *_, sha = line.split("\t")
        path = folder / name
        if not path.is_file():
            print(f"(extra form missing: {path}; see the docstring for how to fetch it)")
            continue
        if hashlib.sha256(path.read_bytes()).hexdigest() != sha:
            raise SystemExit(f"{path}: sha256 differs from {manifest.name}; not the form the manifest names")
        out.append(path)
    return out


def tune_registry_forms(folders: dict[str, Path | None]) -> dict[Path, str]:
    """Form → its source, for each spent registry manifest (TUNE_MANIFESTS) whose folder was given."""
    return {path: source for source, folder in folders.items() if folder
            for path in extra_forms(folder, TUNE_MANIFESTS[source])}


def new_forms(folders: dict[str, Path | None]) -> dict[Path, str]:
    """Form → its clean hold-out half, for each half of NEW_HALVES whose folder was given."""
    return {path: half for half, folder in folders.items() if folder
            for path in extra_forms(folder, NEW_HALVES[half])}


def corpus_forms(n: int) -> list[Path]:
    """The first n widget-corpus files (by name) that are forms: three writable text widgets or more,
    and pages that print their captions (ten words or more; a test file of bare boxes has no key a
    flattened page could show)."""
    out: list[Path] = []
    for path in sorted(CORPUS_DIR.glob("*.pdf")) if CORPUS_DIR.is_dir() and n > 0 else ():
        with pymupdf.open(path) as doc:
            texts = sum(1 for page in doc for w in page.widgets()
                        if w.field_type == pymupdf.PDF_WIDGET_TYPE_TEXT and not (w.field_flags or 0) & 1)
            words = sum(len(page.get_text().split()) for page in doc if page.first_widget)
        if texts >= 3 and words >= 10:
            out.append(path)
        if len(out) >= n:
            break
    return out


COMB = 1 << 24  # text field flag: the value is printed one character per equal cell (with /MaxLen)
TRAIT_MARKS = 3  # check boxes and radio options from which a form trains the reading of marks


def trait_forms() -> list[Path]:
    """Widget-corpus files with a comb text field, or with TRAIT_MARKS check boxes / radio options or
    more: the widget kinds the clean hold-out showed the tune half lacked (values printed cell by cell,
    rows of marks). They join the tune half whatever their printed words (a comb value or a tick is
    scored in its box, caption or not). Chosen by widget counts alone, before any result was read."""
    out: list[Path] = []
    for path in sorted(CORPUS_DIR.glob("*.pdf")) if CORPUS_DIR.is_dir() else ():
        with pymupdf.open(path) as doc:
            widgets = [w for page in doc for w in page.widgets()]
        combs = sum(1 for w in widgets if w.field_type == pymupdf.PDF_WIDGET_TYPE_TEXT
                    and (w.field_flags or 0) & COMB and w.text_maxlen)
        marks = sum(1 for w in widgets if w.field_type_string in MARK_WIDGETS)
        if combs or marks >= TRAIT_MARKS:
            out.append(path)
    return out


@dataclass
class Row:
    form: str
    half: str
    engine: str
    variant: str
    score: Score
    source: str = ""  # "registry" ... "registry6": a bench/forms_extra*.tsv form (tune since stop 32 / 33 / 34 / 35 / 36),
    # given its own means too

    @property
    def key_agreement(self) -> float:
        return self.score.key_agree / self.score.key_total if self.score.key_total else 1.0


def summary(rows: Sequence[Row], show_hold_out: bool = False) -> list[str]:
    """Per form (a hold-out form only when asked: its figures count in the means alone), then the
    mean of each (engine, variant, half) and of all halves together."""
    out = [f"{'form':<44} {'half':<8} {'engine':<6} {'variant':<7} {'F1':>6} {'P':>6} {'R':>6} "
           f"{'key':>6} {'state':>6}"]
    for r in rows:
        if r.half in NEW_HALVES or (r.half == "hold-out" and not show_hold_out):
            continue
        s = r.score
        out.append(f"{r.form[:44]:<44} {r.half:<8} {r.engine:<6} {r.variant:<7} {s.f1:6.3f} {s.precision:6.3f} "
                   f"{s.recall:6.3f} {r.key_agreement:6.3f} {s.state_accuracy:6.3f}")
    out.append("")
    out.append(f"{'mean over forms':<44} {'half':<8} {'engine':<6} {'variant':<7} {'F1':>6} {'key':>6} {'state':>6}  n")
    groups: dict[tuple[str, str, str], list[Row]] = {}
    for r in rows:
        for h in (r.half, "all", f"{r.half}/{r.source or 'other'}"):
            groups.setdefault((r.engine, r.variant, h), []).append(r)
    for (engine, variant, h), group in sorted(groups.items()):
        n = len(group)
        f1 = sum(r.score.f1 for r in group) / n
        key = sum(r.key_agreement for r in group) / n
        state = sum(r.score.state_accuracy for r in group) / n
        out.append(f"{'':<44} {h:<8} {engine:<6} {variant:<7} {f1:6.3f} {key:6.3f} {state:6.3f}  {n}")
    return out


def audit_report(rows: Sequence[Row], show_hold_out: bool) -> list[str]:
    """Per form and variant (engine-free: it is about the baked page), how much of the truth is on
    paper; the items that are not, with the reason (hold-out: reasons counted, items not listed)."""
    out = ["", "truth on paper (baked page; unprinted items stay in the truth and count as misses)"]
    seen: set[tuple[str, str]] = set()
    new_sums: dict[tuple[str, str], Audit] = {}  # each new half is summed per variant, no form named
    for r in rows:
        a = r.score.audit
        if a is None or (r.form, r.variant) in seen:
            continue
        seen.add((r.form, r.variant))
        if r.half in NEW_HALVES:
            new_sums.setdefault((r.half, r.variant), Audit()).add(a)
            continue
        out.append(a.line(f"{r.variant:<6} {r.half:<8} {r.form}"))
        if r.half == "tune" or (r.half == "hold-out" and show_hold_out):
            out += [f"    not on paper: {item}" for item in a.unprinted]
        else:
            reasons: dict[str, int] = {}
            for item in a.unprinted:
                reason = item.split(":")[0]
                reasons[reason] = reasons.get(reason, 0) + 1
            out += [f"    not on paper: {reason} x{n}" for reason, n in sorted(reasons.items())]
    for (half, variant), a in sorted(new_sums.items()):
        out.append(a.line(f"{variant:<6} {half:<8} SUM of the {half} forms"))
        out += [f"    not on paper: {reason} x{n}" for reason, n in sorted(_reason_counts(a.unprinted).items())]
    return out


def _reason_counts(items: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item.split(":")[0]] = out.get(item.split(":")[0], 0) + 1
    return out


# ---- forms rules must not invent fields on papers -------------------------------------------------
WILD_DIR = REALDATA / "wild"


def wild_check(every: int) -> list[str]:
    """Every `every`-th file of wild/ (papers, slides, scans, a few forms), fast engine: how many are
    taken for a form, and their geometry and widget fields and pairs. A forms rule should leave these
    counts as they were (compare a run before and after it)."""
    lines, forms, fields, pairs = [], 0, 0, 0
    files = sorted(WILD_DIR.glob("*.pdf"))[::every] if WILD_DIR.is_dir() else []
    for path in files:
        try:
            doc, found = ingest_document(path.read_bytes(), path.name, "fast")
        except Exception as exc:  # a file ingest refuses is no field
            lines.append(f"  {path.name[:60]:<60} not ingested: {type(exc).__name__}")
            continue
        gate = shows_form(doc)
        n_pairs = sum(1 for f in found if f.key and f.value)
        forms, fields, pairs = forms + gate, fields + len(found), pairs + n_pairs
        if found or gate:
            lines.append(f"  {path.name[:60]:<60} form {'yes' if gate else 'no '} fields {len(found):>3} pairs {n_pairs:>3}")
    return [f"wild/ every {every}: {len(files)} files, taken for a form {forms}, fields {fields}, pairs {pairs}"] + lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="fast", choices=("fast", "layout", "both"))
    parser.add_argument("--variant", default="both", choices=("empty", "filled", "both"))
    parser.add_argument("--corpus", type=int, default=12, help="widget-corpus forms to add (0: pdfs/forms only)")
    parser.add_argument("--traits", type=int, default=1, choices=(0, 1),
                        help="1: add the widget-corpus forms with comb fields or rows of marks to the tune half "
                             "(trait_forms); 0: the tune half as it was before them")
    parser.add_argument("--only", default="", help="substring of the file names to run (while developing)")
    parser.add_argument("--misses", type=int, default=8, help="misses / extras / wrong states to print per file")
    parser.add_argument("--show-hold-out", action="store_true", help="print the hold-out forms' misses too")
    parser.add_argument("--half", default="all", choices=("all", "tune", "hold-out", *NEW_HALVES),
                        help="score only the forms of one half (while tuning: tune, so no other half's means are read)")
    parser.add_argument("--extra-forms", type=Path, default=None, metavar="DIR",
                        help="add the forms of bench/forms_extra.tsv found in DIR to the tune half "
                             "(source registry: spent as a hold-out at stops 28-29)")
    parser.add_argument("--extra-forms2", type=Path, default=None, metavar="DIR",
                        help="add the forms of bench/forms_extra2.tsv found in DIR to the tune half "
                             "(source registry2: spent as the hold-out new2 at stop 32)")
    parser.add_argument("--extra-forms3", type=Path, default=None, metavar="DIR",
                        help="add the forms of bench/forms_extra3.tsv found in DIR to the tune half "
                             "(source registry3: spent as the hold-out new3 at stop 33)")
    parser.add_argument("--extra-forms4", type=Path, default=None, metavar="DIR",
                        help="add the forms of bench/forms_extra4.tsv found in DIR to the tune half "
                             "(source registry4: spent as the hold-out new4 at stop 35)")
    parser.add_argument("--extra-forms5", type=Path, default=None, metavar="DIR",
                        help="add the forms of bench/forms_extra5.tsv found in DIR to the tune half "
                             "(source registry5: spent as the hold-out new5 at stop 35)")
    parser.add_argument("--extra-forms6", type=Path, default=None, metavar="DIR",
                        help="add the forms of bench/forms_extra6.tsv found in DIR to the tune half "
                             "(source registry6: spent as the hold-out new6 at stop 36)")
    parser.add_argument("--wild", type=int, default=0, metavar="N",
                        help="only count forms, fields and pairs on every N-th file of wild/ (fast engine)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.wild:
        print("\n".join(wild_check(args.wild)))
        return 0
    engines = ("fast", "layout") if args.engine == "both" else (args.engine,)
    variants = {"empty": (False,), "filled": (True,), "both": (False, True)}[args.variant]

    results: list[Score] = []
    if SAMPLE.exists():
        results += [bench_sample(engine) for engine in engines]
    else:
        print(f"(sample form missing: run python sample_docs/generate.py) {SAMPLE}")
    forms = (sorted(FORMS_DIR.glob("*.pdf")) if FORMS_DIR.is_dir() else []) + corpus_forms(args.corpus)
    traits = trait_forms() if args.corpus and args.traits else []
    forms += [p for p in traits if p not in forms]
    forms = [p for p in forms if args.only in p.name]
    registry_forms = tune_registry_forms({"registry": args.extra_forms, "registry2": args.extra_forms2,
                                          "registry3": args.extra_forms3, "registry4": args.extra_forms4,
                                          "registry5": args.extra_forms5, "registry6": args.extra_forms6})
    extras = new_forms({})
    if not forms:
        print(f"(real forms not found at {FORMS_DIR}; only the sample is measured)")
    registered = [p for p in registry_forms if args.only in p.name]
    extras = {p: half for p, half in extras.items() if args.only in p.name}
    half_of = (halves(forms, frozenset(p.name for p in traits)) | {p.name: "tune" for p in registered}
               | {p.name: half for p, half in extras.items()})
    source_of = {p.name: registry_forms[p] for p in registered}
    forms = [p for p in forms + registered + list(extras) if args.half in ("all", half_of[p.name])]
    quiet: set[str] = set()  # hold-out scores: figures only
    rows: list[Row] = []
    for engine in engines:
        for filled in variants:
            for path in forms:
                s = bench_real(path, engine, filled)
                s.name = f"{engine} {s.name}"
                results.append(s)
                if half_of[path.name] in NEW_HALVES or (half_of[path.name] == "hold-out" and not args.show_hold_out):
                    quiet.add(s.name)
                rows.append(Row(path.name, half_of[path.name], engine, "filled" if filled else "empty", s,
                                source_of.get(path.name, "")))
    for s in results:
        if s.name not in quiet:
            print(s.line())
    if quiet:
        print(f"({len(quiet)} hold-out form runs: in the means only; --show-hold-out prints them)")
    print()
    print("\n".join(summary(rows, args.show_hold_out)))
    print("targets (filled, every engine, each half): value F1 >= 0.90, key agreement >= 0.90, state accuracy >= 0.98")
    print("\n".join(audit_report(rows, args.show_hold_out)))
    print("\n".join(ingest_report([(f"{r.engine} {r.variant} {r.form}", r.half, r.score.ingest)
                                   for r in rows if r.score.ingest is not None and r.variant == "filled"])))
    for s in results:
        if s.name not in quiet and (s.misses or s.extras or s.wrong_states or s.wrong_keys):
            print(f"\n--- {s.name}")
            for title, items in (("missed", s.misses), ("extra", s.extras), ("wrong state", s.wrong_states),
                                 ("wrong key", s.wrong_keys)):
                for item in items[: args.misses]:
                    print(f"  {title}: {item}")
                if len(items) > args.misses:
                    print(f"  ... {len(items) - args.misses} more {title}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
