"""numba's cache and the kernels' dependencies (``coflowopt/rates/_jit.py``, "Fresh").

numba stamps a cached kernel with its own file; a kernel compiled from kernels and constants of
other files must be recompiled when those change.  The stamp coflowopt adds covers the kernel
files a kernel's file imports from, transitively; these tests check the list of kernel files
against the package, the import walk, and that the locators are installed."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from coflowopt.rates import _jit
from coflowopt.rates._jit import KERNEL_SOURCES, imported_files
from coflowopt.rates._jit import _dependency_stamp, kernel_dependency_stamp

ROOT = Path(_jit._ROOT)


def _package_files():
    for p in sorted(ROOT.rglob("*.py")):
        if "__pycache__" not in p.parts:
            yield p


def test_kernel_sources_are_the_files_that_use_njit():
    uses = {p.relative_to(ROOT).as_posix() for p in _package_files()
            if re.search(r"\bnjit\b", p.read_text(encoding="utf-8"))}
    assert uses == set(KERNEL_SOURCES), (
        "KERNEL_SOURCES in coflowopt/rates/_jit.py must list every file that uses njit: "
        f"missing {sorted(uses - set(KERNEL_SOURCES))}, stale {sorted(set(KERNEL_SOURCES) - uses)}")


def _is_njit(dec) -> bool:
    f = dec.func if isinstance(dec, ast.Call) else dec
    return isinstance(f, ast.Name) and f.id == "njit"


def _from_imports(tree, path: Path):
    """name -> the package file it is imported from (``from .x import name [as alias]``), and
    alias -> module file for ``from . import module``."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(
                "coflowopt")):
            if node.level:
                pkg = path.parent
                for _ in range(node.level - 1):
                    pkg = pkg.parent
                mod = node.module or ""
            else:
                pkg, mod = ROOT, (node.module or "").removeprefix("coflowopt").lstrip(".")
            base = pkg.joinpath(*mod.split(".")) if mod else pkg
            for a in node.names:
                as_module = base / f"{a.name}.py"
                src = as_module if as_module.is_file() else (
                    base.with_suffix(".py") if base.with_suffix(".py").is_file()
                    else base / "__init__.py")
                names[a.asname or a.name] = src
    return names


def test_what_a_kernel_takes_from_another_module_comes_from_a_kernel_file():
    """A kernel compiles in the functions and constants it names: each one imported from
    another module of the package must come from a file in KERNEL_SOURCES (else an edit there
    would not reach the cached kernel)."""
    kernel_files = {ROOT / s for s in KERNEL_SOURCES}
    bad = []
    for rel in KERNEL_SOURCES:
        path = ROOT / rel
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = _from_imports(tree, path)
        for fn in ast.walk(tree):
            if not (isinstance(fn, ast.FunctionDef) and any(map(_is_njit, fn.decorator_list))):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Name) and node.id in imported:
                    src = imported[node.id]
                    if src.resolve() not in {k.resolve() for k in kernel_files}:
                        bad.append(f"{rel}:{node.lineno} {fn.name} uses {node.id} from "
                                   f"{src.relative_to(ROOT)}")
    assert not bad, bad


def test_the_stamp_follows_imports_of_kernel_files(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("from ..b import g\nfrom . import c as cc\n"
                                      "def f():\n    from ..d import h\n")
    (pkg / "b.py").write_text("from .e import K\ng = 1\n")
    (pkg / "sub" / "c.py").write_text("x = 1\n")
    (pkg / "d.py").write_text("h = 1\n")
    (pkg / "e.py").write_text("K = 3\n")
    (pkg / "other.py").write_text("y = 1\n")
    a = str(pkg / "sub" / "a.py")
    sources = ("sub/a.py", "b.py", "sub/c.py", "d.py", "e.py", "other.py")
    files = [f for f, _ in _dependency_stamp(a, str(pkg), sources)]
    assert files == ["b.py", "d.py", "e.py", "sub/a.py", "sub/c.py"]  # not other.py
    before = kernel_dependency_stamp(a, str(pkg), sources)
    assert before == _dependency_stamp(a, str(pkg), sources)
    (pkg / "other.py").write_text("y = 2\n")          # not imported: same stamp
    assert _dependency_stamp(a, str(pkg), sources) == before
    (pkg / "e.py").write_text("K = 4\n")              # imported through b: a new stamp
    assert _dependency_stamp(a, str(pkg), sources) != before
    assert kernel_dependency_stamp(a, str(pkg), sources) == before   # once per process
    # only the kernel files count: without e.py in the list, its edit is not followed
    assert [f for f, _ in _dependency_stamp(a, str(pkg), sources[:4])] == \
        ["b.py", "d.py", "sub/a.py", "sub/c.py"]


def test_a_file_edited_after_import_gets_a_stamp_no_process_matches(tmp_path):
    """The stamp is computed when the kernels load, after the imports: a kernel file edited in
    between must not stamp the imported (old) code with the new text's hash (a later process
    would load that stale code: sincronia-online's cached loop segfaulted so, 2026-11-28)."""
    (tmp_path / "k.py").write_text("X = 1\n")
    _jit.note_import(str(tmp_path / "k.py"))
    sources = ("k.py",)
    first = _dependency_stamp(str(tmp_path / "k.py"), str(tmp_path), sources)
    assert first[0][1] == __import__("hashlib").sha256(b"X = 1\n").hexdigest()
    (tmp_path / "k.py").write_text("X = 22\n")     # edited while this process runs
    again = _dependency_stamp(str(tmp_path / "k.py"), str(tmp_path), sources)
    assert again[0][1].startswith("changed since this process imported it")
    assert again != _dependency_stamp(str(tmp_path / "k.py"), str(tmp_path), sources)
    # a file this process never imported keeps its content hash
    (tmp_path / "j.py").write_text("Y = 1\n")
    assert _dependency_stamp(str(tmp_path / "j.py"), str(tmp_path), ("j.py",))[0][1] == \
        __import__("hashlib").sha256(b"Y = 1\n").hexdigest()


def test_the_mlfq_loop_depends_on_the_class_kernel():
    """The case that was missed: slots_simulate (``_mlfq_kernel.py``) compiles in
    serve_levels of ``_class_kernel.py``."""
    files = [f for f, _ in kernel_dependency_stamp(str(ROOT / "policies" / "_mlfq_kernel.py"))]
    assert "policies/_class_kernel.py" in files and "rates/_pieces.py" in files
    assert "policies/_mlfq_kernel.py" in files
    assert all(f in KERNEL_SOURCES for f in files)


def test_imported_files_reads_the_import_forms(tmp_path):
    here = str(ROOT / "policies" / "x.py")
    text = (b"from ._class_kernel import (BLOCK,\n    serve_levels)\n"
            b"    from ..rates._pieces import put as _put  # a comment\n"
            b"from coflowopt.rates import _sorted\n")
    got = sorted(os.path.relpath(f, ROOT) for f in imported_files(here, text))
    assert got == ["policies/_class_kernel.py", "rates/__init__.py", "rates/_pieces.py",
                   "rates/_sorted.py"]


@pytest.mark.skipif(not _jit.HAVE_NUMBA, reason="numba not installed")
def test_locators_add_the_dependency_stamp():
    from numba.core import caching
    _jit.load_kernels()
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
    classes = impl._locator_classes
    ours = [c for c in classes if getattr(c, "_coflowopt", False)]
    assert ours and classes[:len(ours)] == ours      # first, so they are chosen
    from coflowopt.policies import _mlfq_kernel
    fn = _mlfq_kernel.slots_simulate.py_func
    for cls in ours:
        loc = cls.from_function(fn, fn.__code__.co_filename)
        if loc is not None:
            break
    assert loc is not None
    own, deps = loc.get_source_stamp()
    assert deps == kernel_dependency_stamp(fn.__code__.co_filename)
    # a file outside the package keeps numba's locators
    assert all(cls.from_function(fn, __file__) is None for cls in ours)
    _jit._install_dependency_stamps()                 # idempotent
    assert [c for c in impl._locator_classes if getattr(c, "_coflowopt", 0)] == ours
