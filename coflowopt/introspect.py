"""What a registered algorithm or a generator takes: its parameters from the signature and the
numpydoc ``Parameters`` section, for ``coflowopt algorithms NAME`` and ``coflowopt generate
--list`` / ``generate NAME --help``.

One source of truth: the signature gives names, defaults and the annotation; the docstring
gives the type as documented and the meaning.  A parameter the docstring does not describe is
listed with an empty meaning (and ``tests/test_introspect.py`` lists, for the whole registry,
which parameters are undocumented).

Examples
--------
>>> from coflowopt.registry import get_algorithm
>>> [p["name"] for p in parameters(get_algorithm("policy", "fair").func)]
['engine']
>>> parameters(get_algorithm("policy", "fair").func)[0]["default"]
"'auto'"
"""

from __future__ import annotations

import inspect
import re
from typing import Any, Callable

__all__ = ["parameters", "docstring_parameters", "describe_algorithm"]

#: Leading positional parameters that are data, not settings: the instance, the coflow order.
DATA_PARAMETERS = ("instance", "order", "inst")

_HEADER = re.compile(r"^\s*([A-Z][A-Za-z ]+)\n\s*-{3,}\s*$", re.M)


def _section(doc: str, name: str) -> str:
    """The body of the numpydoc section ``name`` (up to the next section header)."""
    heads = [(m.start(), m.end(), m.group(1).strip()) for m in _HEADER.finditer(doc)]
    for i, (_, end, title) in enumerate(heads):
        if title == name:
            stop = heads[i + 1][0] if i + 1 < len(heads) else len(doc)
            return doc[end:stop]
    return ""


def docstring_parameters(func: Callable) -> dict[str, dict[str, str]]:
    """``{name: {"type": ..., "meaning": ...}}`` from the numpydoc ``Parameters`` section
    (``a, b : int`` documents both; a bare ``name`` line has no type)."""
    doc = inspect.cleandoc(inspect.getdoc(func) or "")
    body = _section(doc, "Parameters")
    out: dict[str, dict[str, str]] = {}
    current: list[str] = []
    for line in body.splitlines():
        if not line.strip():
            continue
        if not line.startswith((" ", "\t")):
            names, _, typ = line.partition(" : ")
            if not typ and ":" in line and " " not in line.split(":")[0]:
                names, _, typ = line.partition(":")
            current = [n.strip().lstrip("*") for n in names.split(",") if n.strip()]
            for n in current:
                out[n] = {"type": typ.strip(), "meaning": ""}
        else:
            for n in current:
                sep = " " if out[n]["meaning"] else ""
                out[n]["meaning"] += sep + line.strip()
    return out


_FUNC_REF = re.compile(r":func:`~?([A-Za-z_][\w.]*)`")


def _referenced(func: Callable) -> list[Callable]:
    """The functions a thin wrapper's docstring points to (``:func:`name```, resolved in the
    wrapper's module or as a dotted path), where its parameters are documented."""
    import importlib
    out = []
    for ref in _FUNC_REF.findall(inspect.getdoc(func) or ""):
        target = getattr(func, "__globals__", {}).get(ref)
        if target is None and "." in ref:
            mod, _, attr = ref.rpartition(".")
            try:
                target = getattr(importlib.import_module(mod), attr, None)
            except ImportError:
                target = None
        if callable(target) and target is not func:
            out.append(target)
    return out


def parameters(func: Callable, *, skip: tuple[str, ...] = DATA_PARAMETERS
               ) -> list[dict[str, Any]]:
    """The settings a function takes: name, type, default (``repr``, or None when required),
    whether required, and meaning; data parameters (``skip``) and ``**kwargs`` left out.  A
    parameter the function's own docstring does not describe is looked up in the functions
    it refers to with ``:func:`` (thin wrappers document their parameters there)."""
    sig = inspect.signature(func)
    doc = docstring_parameters(func)
    for target in _referenced(func):
        for name, d in docstring_parameters(target).items():
            doc.setdefault(name, d)
    out = []
    for p in sig.parameters.values():
        if p.name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        d = doc.get(p.name, {})
        typ = d.get("type") or ("" if p.annotation is p.empty else
                               getattr(p.annotation, "__name__", str(p.annotation)))
        required = p.default is p.empty
        out.append({"name": p.name, "type": typ,
                    "default": None if required else repr(p.default),
                    "required": required, "meaning": d.get("meaning", "")})
    return out


def describe_algorithm(alg) -> dict[str, Any]:
    """A registry entry with its parameters (JSON-ready)."""
    return {**alg.to_dict(), "parameters": parameters(alg.func)}


def format_parameters(params: list[dict[str, Any]], indent: str = "  ") -> list[str]:
    """Text lines, one block per parameter: ``name : type = default`` then the meaning."""
    if not params:
        return [f"{indent}(no parameters)"]
    lines = []
    for p in params:
        head = f"{indent}{p['name']}"
        if p["type"]:
            head += f" : {p['type']}"
        if p["required"]:
            head += " (required)"
        elif "default" not in p["type"]:     # numpydoc's "type, default x" says it already
            head += f" = {p['default']}"
        lines.append(head)
        if p["meaning"]:
            lines.append(f"{indent}    {p['meaning']}")
    return lines
