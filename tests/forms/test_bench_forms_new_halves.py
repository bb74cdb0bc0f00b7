"""The forms benchmark's registry forms (bench/forms_extra.tsv to forms_extra6.tsv, all spent hold-outs and
tune forms now, sources registry to registry6; forms_extra6.tsv's are forms of Debian source packages) and its
clean hold-out halves (NEW_HALVES, empty until the next set is gathered): each manifest names real registry forms by hash, each half or source takes the forms of
its own manifest, and no form of a new half is ever named in what the benchmark prints. Only hashes are read
here, never a score."""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pymupdf
import pytest

import bench.forms as bf
from bench.forms import Audit, Row, Score, audit_report, extra_forms, new_forms, summary, tune_registry_forms

COLUMNS = ("file", "registry", "package", "version", "path inside the package", "sha256")


def _rows(manifest: Path) -> list[list[str]]:
    lines = manifest.read_text(encoding="utf-8").splitlines()
    assert lines[0].lstrip("# ").split("\t") == list(COLUMNS)
    return [line.split("\t") for line in lines[1:] if line.strip() and not line.startswith("#")]


def _well_formed(rows: list[list[str]]) -> list[str]:
    """The manifest's file names, once every row is checked: its columns, registry, hash, version, name."""
    assert all(len(row) == len(COLUMNS) for row in rows)
    names = [row[0] for row in rows]
    assert len(set(names)) == len(names)
    for name, registry, package, version, path, sha in rows:
        assert registry in ("PyPI", "npm", "Debian")
        assert re.fullmatch(r"[0-9a-f]{64}", sha)
        if registry == "Debian":  # a source package's version: [epoch:]upstream-revision, as apt-get source takes it
            assert re.fullmatch(r"(\d+:)?\d+(\.\d+)+[+~.\w]*-[+~.\w]+", version)
        else:
            assert re.fullmatch(r"\d+(\.\d+)+", version)
        assert name == f"{package}__{Path(path).name}" and name.endswith(".pdf")
    return names


def test_the_second_hold_out_manifest_is_well_formed_and_apart_from_the_first():
    rows = _rows(bf.EXTRA_MANIFEST2)
    first = _rows(bf.EXTRA_MANIFEST)  # the first set, tune since stop 32
    assert len(rows) >= 10
    names = _well_formed(rows)
    packages = [row[2] for row in rows]
    assert max(packages.count(p) for p in packages) <= 3
    assert not {row[0] for row in first} & set(names)
    assert not {row[5] for row in first} & {row[5] for row in rows}


def _apart_from_earlier_sets(rows: list, earlier: list, forms: int, packages: int) -> None:
    """A set's manifest: well formed, at least `forms` forms from `packages` packages (three at most
    from one), and no form of an earlier set by file name, name inside its package or hash."""
    assert len(rows) >= forms
    names = _well_formed(rows)
    kept = [row[2] for row in rows]
    assert max(kept.count(p) for p in kept) <= 3 and len(set(kept)) >= packages
    assert not {row[0] for row in earlier} & set(names)
    assert not {Path(row[4]).name for row in earlier} & {Path(row[4]).name for row in rows}
    assert not {row[5] for row in earlier} & {row[5] for row in rows}


def test_the_third_hold_out_manifest_is_well_formed_and_apart_from_the_others():
    _apart_from_earlier_sets(_rows(bf.EXTRA_MANIFEST3), _rows(bf.EXTRA_MANIFEST) + _rows(bf.EXTRA_MANIFEST2),
                             forms=15, packages=8)


def _pdf(path: Path, text: str) -> str:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    doc.save(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _manifest(path: Path, files: dict[str, str]) -> Path:
    lines = ["# " + "\t".join(COLUMNS)]
    lines += [f"{name}\tPyPI\tpkg\t1.0\tpkg-1.0/{name}\t{sha}" for name, sha in files.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_each_new_half_takes_the_forms_of_its_own_manifest(tmp_path, monkeypatch):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    a = _pdf(one / "a.pdf", "first hold-out")
    b = _pdf(two / "b.pdf", "second hold-out")
    monkeypatch.setitem(bf.NEW_HALVES, "new", _manifest(tmp_path / "one.tsv", {"a.pdf": a}))
    monkeypatch.setitem(bf.NEW_HALVES, "new2", _manifest(tmp_path / "two.tsv", {"b.pdf": b, "gone.pdf": "0" * 64}))
    assert new_forms({"new": one, "new2": two}) == {one / "a.pdf": "new", two / "b.pdf": "new2"}
    assert new_forms({"new": None, "new2": two}) == {two / "b.pdf": "new2"}
    assert new_forms({"new": None, "new2": None}) == {}
    _pdf(two / "b.pdf", "another file under the same name")
    with pytest.raises(SystemExit, match="sha256 differs"):
        new_forms({"new2": two})


def test_the_spent_second_hold_out_is_tune_with_its_own_source(tmp_path, monkeypatch):
    assert "new2" not in bf.NEW_HALVES and "new3" not in bf.NEW_HALVES  # read once at stops 32 and 33: spent
    assert bf.TUNE_MANIFESTS == {"registry": bf.EXTRA_MANIFEST, "registry2": bf.EXTRA_MANIFEST2,
                                 "registry3": bf.EXTRA_MANIFEST3, "registry4": bf.EXTRA_MANIFEST4,
                                 "registry5": bf.EXTRA_MANIFEST5, "registry6": bf.EXTRA_MANIFEST6}
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    monkeypatch.setitem(bf.TUNE_MANIFESTS, "registry", _manifest(tmp_path / "1.tsv", {"a.pdf": _pdf(one / "a.pdf", "a")}))
    monkeypatch.setitem(bf.TUNE_MANIFESTS, "registry2", _manifest(tmp_path / "2.tsv", {"b.pdf": _pdf(two / "b.pdf", "b")}))
    assert tune_registry_forms({"registry": one, "registry2": two}) == {one / "a.pdf": "registry",
                                                                        two / "b.pdf": "registry2"}
    assert tune_registry_forms({"registry": None, "registry2": two}) == {two / "b.pdf": "registry2"}


def test_each_source_of_the_tune_half_has_its_own_means():
    rows = [Row(f"{n}.pdf", "tune", "fast", "filled", Score(n, truth=2, predicted=2, matched=m), source)
            for n, m, source in (("a", 2, ""), ("b", 0, "registry2"))]
    text = "\n".join(summary(rows))
    assert re.search(r"tune/registry2 +fast +filled +0\.000", text)
    assert re.search(r"tune/other +fast +filled +1\.000", text)
    assert "b.pdf" in text  # a tune form is printed form by form


def test_no_form_of_a_new_half_is_named_in_the_summary_or_the_audit(monkeypatch):
    monkeypatch.setitem(bf.NEW_HALVES, "new2", Path("unused.tsv"))  # clean hold-outs, as new2 and new3 were
    monkeypatch.setitem(bf.NEW_HALVES, "new3", Path("unused.tsv"))
    def row(form: str, half: str) -> Row:
        score = Score(f"fast flattened {form}", truth=2, predicted=2, matched=1)
        score.audit = Audit(values=2, in_box=1, unprinted=[f"field name only: {form} key"])
        return Row(form, half, "fast", "filled", score)

    rows = [row("studied.pdf", "tune"), row("second_secret.pdf", "new2"), row("third_secret.pdf", "new3")]
    text = "\n".join(summary(rows, show_hold_out=True) + audit_report(rows, show_hold_out=True))
    assert "studied.pdf" in text
    assert "second_secret" not in text and "third_secret" not in text
    assert "new2     SUM of the new2 forms" in text
    assert "new3     SUM of the new3 forms" in text


def test_the_spent_third_hold_out_keeps_its_option_and_is_tune():
    args = bf.build_parser().parse_args(["--extra-forms3", "/somewhere", "--half", "tune"])
    assert args.extra_forms3 == Path("/somewhere") and args.extra_forms2 is None and args.half == "tune"
    with pytest.raises(SystemExit):  # no half new3 any more
        bf.build_parser().parse_args(["--half", "new3"])


def test_the_fourth_hold_out_manifest_is_well_formed_and_apart_from_the_others():
    earlier = [row for name in ("forms_extra.tsv", "forms_extra2.tsv", "forms_extra3.tsv")
               for row in _rows(bf.ROOT / "bench" / name)]
    _apart_from_earlier_sets(_rows(bf.EXTRA_MANIFEST4), earlier, forms=10, packages=6)


def test_the_spent_fourth_hold_out_keeps_its_option_and_is_tune_with_its_own_source():
    assert "new4" not in bf.NEW_HALVES  # read once at stop 35: spent
    assert bf.TUNE_MANIFESTS["registry4"] == bf.EXTRA_MANIFEST4
    args = bf.build_parser().parse_args(["--extra-forms4", "/somewhere", "--half", "tune"])
    assert args.extra_forms4 == Path("/somewhere") and args.extra_forms3 is None and args.half == "tune"
    with pytest.raises(SystemExit):  # no half new4 any more
        bf.build_parser().parse_args(["--half", "new4"])


def test_the_fifth_hold_out_manifest_is_well_formed_and_apart_from_the_others():
    earlier = [row for name in ("forms_extra.tsv", "forms_extra2.tsv", "forms_extra3.tsv", "forms_extra4.tsv")
               for row in _rows(bf.ROOT / "bench" / name)]
    # four forms only: the registries searched at stop 35 held no more that were not twins (docstring)
    _apart_from_earlier_sets(_rows(bf.EXTRA_MANIFEST5), earlier, forms=4, packages=2)


@pytest.mark.parametrize("n", [5, 6])
def test_a_spent_hold_out_keeps_its_option_and_is_tune_with_its_own_source(n):
    """new5 was read once at stop 35, new6 once at stop 36: both spent."""
    manifest = getattr(bf, f"EXTRA_MANIFEST{n}")
    assert f"new{n}" not in bf.NEW_HALVES
    assert manifest == bf.ROOT / "bench" / f"forms_extra{n}.tsv"
    assert bf.TUNE_MANIFESTS[f"registry{n}"] == manifest
    args = bf.build_parser().parse_args([f"--extra-forms{n}", "/somewhere", "--half", "tune"])
    assert getattr(args, f"extra_forms{n}") == Path("/somewhere") and getattr(args, f"extra_forms{n - 1}") is None
    assert args.half == "tune"
    with pytest.raises(SystemExit):  # no half new5 or new6 any more
        bf.build_parser().parse_args(["--half", f"new{n}"])


def test_no_clean_hold_out_is_left_unread():
    assert bf.NEW_HALVES == {}  # until the next set is gathered


@pytest.mark.parametrize("n", [5, 6])
def test_no_form_of_a_spent_hold_out_is_named_in_the_summary_or_the_audit(n, monkeypatch):
    def row(form: str, half: str) -> Row:
        score = Score(f"fast flattened {form}", truth=2, predicted=2, matched=1)
        score.audit = Audit(values=2, in_box=1, unprinted=[f"field name only: {form} key"])
        return Row(form, half, "fast", "filled", score)

    manifest = getattr(bf, f"EXTRA_MANIFEST{n}")
    monkeypatch.setitem(bf.NEW_HALVES, f"new{n}", manifest)  # as it was until its read
    names = [r[0] for r in _rows(manifest)]
    rows = [row("studied.pdf", "tune")] + [row(name, f"new{n}") for name in names]
    text = "\n".join(summary(rows, show_hold_out=True) + audit_report(rows, show_hold_out=True))
    assert "studied.pdf" in text and f"new{n}     SUM of the new{n} forms" in text
    assert not any(Path(name).stem in text for name in names)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_each_fetched_set_has_the_manifest_hashes(n):
    """Where a registry set was fetched (docstring of bench/forms.py: /tmp/fxN/forms, or RLI_EXTRA_FORMSN),
    every form of its manifest is there with its hash."""
    manifest = bf.ROOT / "bench" / f"forms_extra{n}.tsv"
    folder = Path(os.environ.get(f"RLI_EXTRA_FORMS{n}", f"/tmp/fx{n}/forms"))
    if not folder.is_dir():
        pytest.skip(f"set {n} not fetched at {folder} (fetch commands: docstring of bench/forms.py)")
    found = extra_forms(folder, manifest)
    assert [p.name for p in found] == [row[0] for row in _rows(manifest)]


def test_the_sixth_hold_out_manifest_is_well_formed_and_apart_from_the_others():
    earlier = [row for name in ("forms_extra.tsv", "forms_extra2.tsv", "forms_extra3.tsv", "forms_extra4.tsv",
                                "forms_extra5.tsv") for row in _rows(bf.ROOT / "bench" / name)]
    rows = _rows(bf.EXTRA_MANIFEST6)
    # thirteen forms from eight Debian source packages, the upstream tarballs' test forms (docstring)
    _apart_from_earlier_sets(rows, earlier, forms=13, packages=8)
    assert len(rows) == 13 and {row[1] for row in rows} == {"Debian"}
    assert {row[2] for row in rows} == {"pdf.js", "cups-filters", "libitext5-java", "qpdf", "okular",
                                        "libpdfbox2-java", "libreoffice", "chromium"}
