"""Sphinx configuration of the coflowopt documentation.

Build (from the repository root; warnings are errors)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Why Sphinx + numpydoc + MyST (and not MkDocs + mkdocstrings): every docstring in coflowopt is
numpydoc already (``Parameters``/``Returns``/``Notes``/``References`` sections), which numpydoc
renders as written; and ``formulations/`` and ``proofs/`` are Markdown documents with math, which
MyST renders unchanged (``dollarmath`` for ``$...$`` / ``$$...$$``, ``amsmath`` for
``\\begin{align}`` environments), so the site and the repository share one source.

Generated at configuration time (into ``docs/_generated/`` and, by autosummary,
``docs/api/generated/``; both git-ignored and rewritten on each build):

* copies of ``formulations/*.md`` and ``proofs/*.md`` (the documents stay where they are; the copy
  only gives them a place in the site's tree, with a generated index per folder);
* the command-line reference: one page per subcommand with its ``--help`` text, taken from
  ``coflowopt.cli.build_parser()`` (no extra dependency).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
# the checkout whose formulations/ and proofs/ are rendered: the folder above docs/, unless
# COFLOWOPT_DOCS_ROOT names it (tests/test_docs_build.py builds a copy of docs/ in a temporary
# folder, so that the test never writes into the checkout)
ROOT = Path(os.environ.get("COFLOWOPT_DOCS_ROOT", DOCS.parent)).resolve()
GENERATED = DOCS / "_generated"
sys.path.insert(0, str(ROOT))

project = "coflowopt"
author = "coflowopt developers"
copyright = "coflowopt developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "README.md"]
html_theme = "alabaster"
html_static_path: list[str] = []

# MyST: the repository's Markdown (formulations/, proofs/) with math.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference: autosummary writes one page per module (template in _templates/autosummary).
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"          # numpydoc's Parameters sections already give the types
autodoc_member_order = "bysource"

# numpydoc: class members are listed by autodoc already; a member table per class would repeat
# every method and warn on each attribute that has no docstring of its own.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

nitpicky = False
suppress_warnings = [
    # the same dataclass field documented by the class's Attributes section and by autodoc
    "duplicate_declaration",
]


# --------------------------------------------------------------------------- generated pages
def _copy_documents() -> None:
    """Copy ``formulations/`` and ``proofs/`` into the source tree, with an index per folder."""
    titles = {"formulations": "Formulations (one document per LP/MIP)",
              "proofs": "Proofs (one document per claim the code relies on)"}
    for folder, title in titles.items():
        dest = GENERATED / folder
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        names = []
        for src in sorted((ROOT / folder).glob("*.md")):
            name = "overview" if src.name == "README.md" else src.stem
            shutil.copyfile(src, dest / f"{name}.md")
            names.append(name)
        names.sort(key=lambda n: (n != "overview", n))
        lines = [f"# {title}", "", f"Rendered from the repository's `{folder}/` folder.", "",
                 "```{toctree}", ":maxdepth: 1", "", *names, "```", ""]
        (dest / "index.md").write_text("\n".join(lines), encoding="utf-8")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _write_cli_reference() -> None:
    """One page per subcommand: its ``--help`` text from ``coflowopt.cli.build_parser()``."""
    os.environ["COLUMNS"] = "100"          # argparse wraps help to $COLUMNS: a stable width
    from coflowopt.cli import build_parser

    parser = build_parser()
    dest = GENERATED / "cli"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    subs = _subcommands(parser)
    for name, sub in subs.items():
        text = sub.format_help().rstrip()
        (dest / f"{name}.md").write_text(
            f"# coflowopt {name}\n\n```text\n{text}\n```\n", encoding="utf-8")
    index = ["# Command-line reference", "",
             "Generated from the argparse parser (`coflowopt.cli.build_parser()`); every page is "
             "the command's `--help`.", "",
             "```text", parser.format_help().rstrip(), "```", "",
             "```{toctree}", ":maxdepth: 1", "", *sorted(subs), "```", ""]
    (dest / "index.md").write_text("\n".join(index), encoding="utf-8")


_copy_documents()
_write_cli_reference()
# autosummary rewrites its pages on every build; remove the old ones first, so that the page of
# a module that was renamed or removed does not linger (an orphan page fails the -W build)
shutil.rmtree(DOCS / "api" / "generated", ignore_errors=True)


def _shadowed_modules() -> list[str]:
    """Submodules that their package shadows with an attribute of the same name (the function
    re-exported under its module's name: ``coflowopt.exact.order_lp``, ``.slotted_mip``).

    autosummary resolves such a name to the function; ``_templates/autosummary/function.rst``
    renders the module instead (every member, the function among them), so the rest of the
    module is on the site too.
    """
    import importlib
    import pkgutil

    import coflowopt

    out = []
    for info in pkgutil.walk_packages(coflowopt.__path__, "coflowopt."):
        parent, _, leaf = info.name.rpartition(".")
        if leaf.startswith("_"):
            continue
        pkg = importlib.import_module(parent)
        attr = getattr(pkg, leaf, None)
        if attr is not None and not isinstance(attr, type(pkg)):
            out.append(info.name)
    return sorted(out)


autosummary_context = {"shadowed_modules": _shadowed_modules()}


def _skip_modules(app, what, name, obj, skip, options):
    """A package's submodules get their own pages (autosummary), not a second entry as members."""
    import inspect
    return True if inspect.ismodule(obj) else None


def setup(app):
    app.connect("autodoc-skip-member", _skip_modules)
