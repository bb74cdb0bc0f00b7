"""The shape of core/: one package per stage of the loop, higher stages use lower ones, never the
reverse; no import circles; no streamlit; no function over 80 lines and no class over 300.

Imports are read from the source (every `import`, including those inside functions), so a lazy
import that closes a circle is caught as well as a top-level one.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"

# The stages in the order the loop runs them; a module may import its own stage and the ones before.
STAGES = (
    "ground",  # model, categories, geometry, text, headings, errors: the shared vocabulary
    "store",
    "refine",
    "ingest",
    "review",
    "forms",
    "chunks",
    "export",
    "batch",  # batch ingest and export of a corpus (Ray or processes)
    "evaluation",
    "top",  # render, commands, cli, __main__: the faces of the core
)
TOP_MODULES = {"render", "commands", "cli", "__main__", "corpus_check"}
MAX_FUNCTION_LINES = 80
MAX_CLASS_LINES = 300
# Where the length rule applies: the product and its faces (tests and the sample generator are
# data-heavy scripts with their own shape, and are held to the class limit only through review).
LENGTH_CHECKED = ("core", "pages", "ui", "app.py", "bench")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def core_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(CORE.rglob("*.py"))}


def stage_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "ground"  # the core package itself: only the import guard for pymupdf.layout
    if len(parts) >= 3 or (CORE / parts[1]).is_dir():
        return parts[1]
    return "top" if parts[1] in TOP_MODULES else "ground"


def imported_modules(path: Path) -> set[str]:
    """Every module named by an import in the file, as written (`from a.b import c` gives a.b and a.b.c)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def core_imports() -> dict[str, set[str]]:
    """module -> the core modules it imports (a name that is an attribute resolves to its module)."""
    modules = core_modules()

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = {resolve(n) for n in imported_modules(path) if n == "core" or n.startswith("core.")}
        graph[module] = {t for t in targets if t and t != module and t != "core"
                         and not module.startswith(t + ".")}  # a package's own __init__ is not a dependency
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_module_of_core_imports_cleanly():
    import importlib

    for module in core_modules():
        if module != "core.__main__":  # running it would parse this process's argv
            importlib.import_module(module)


def test_core_has_no_import_circle():
    assert circles(core_imports()) == []


def test_the_circle_finder_sees_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_a_stage_imports_only_its_own_and_earlier_stages():
    rank = {stage: i for i, stage in enumerate(STAGES)}
    upward = []
    for module, targets in core_imports().items():
        for target in targets:
            if rank[stage_of(target)] > rank[stage_of(module)]:
                upward.append(f"{module} ({stage_of(module)}) imports {target} ({stage_of(target)})")
    assert upward == []


def test_every_stage_is_a_package_with_a_docstring_that_says_its_job():
    for stage in STAGES:
        if stage in ("ground", "top"):
            continue
        init = CORE / stage / "__init__.py"
        assert init.is_file(), f"core/{stage}/ is not a package"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc.splitlines()) <= 4, f"core/{stage}/__init__.py needs a short docstring"


def test_every_package_under_core_is_a_stage():
    packages = {p.parent.name for p in CORE.glob("*/__init__.py")}
    assert packages <= set(STAGES), f"not in STAGES (add it where it belongs in the loop): {packages - set(STAGES)}"


def test_no_streamlit_anywhere_under_core():
    offenders = [module for module, path in core_modules().items()
                 if any(n == "streamlit" or n.startswith("streamlit.") for n in imported_modules(path))]
    assert offenders == []


def python_files(*roots: str) -> list[Path]:
    files: list[Path] = []
    for root in roots:
        path = ROOT / root
        files.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    return files


def oversized(paths: list[Path], root: Path = ROOT) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                lines = node.end_lineno - node.lineno + 1
                limit = MAX_CLASS_LINES if isinstance(node, ast.ClassDef) else MAX_FUNCTION_LINES
                if lines > limit:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} is {lines} lines (limit {limit})")
    return found


def test_no_function_over_80_lines_and_no_class_over_300():
    assert oversized(python_files(*LENGTH_CHECKED)) == []


def test_no_class_over_300_lines_in_tests_or_the_sample_generator():
    classes = [row for row in oversized(python_files("tests", "sample_docs")) if "(limit 300)" in row]
    assert classes == []


def test_the_length_rule_sees_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    long_one = tmp_path / "long.py"
    long_one.write_text(f"def long_one():\n{body}\n")
    assert oversized([long_one], tmp_path) == [f"long.py:1 long_one is {MAX_FUNCTION_LINES + 1} lines (limit 80)"]


@pytest.mark.parametrize("module, stage", [
    ("core.model", "ground"), ("core.store.workspace", "store"), ("core.ingest.pdf", "ingest"),
    ("core.render", "top"), ("core.cli", "top"),
])
def test_stage_of_names_the_package(module, stage):
    assert stage_of(module) == stage
