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
from typing import Any, Callable, NamedTuple, Sequence

__all__ = ["parameters", "docstring_parameters", "describe_algorithm", "parameter_problem",
           "ParameterProblem"]

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


class ParameterProblem(NamedTuple):
    """What :func:`parameter_problem` found: the ``key``, its ``kind`` (``"unknown"``,
    ``"type"`` or ``"required"``), the ``rule`` in words (to follow the owner's name: "has no
    parameter 'x' (accepted: ...)", "needs a number, got 'x'") and the ``accepted`` names."""

    key: str
    kind: str
    rule: str
    accepted: str


def parameter_problem(func: Callable, params: dict[str, Any], *, skip: int = 1,
                      required: bool = False, reserved: Sequence[str] = ()
                      ) -> ParameterProblem | None:
    """The first key of ``params`` that ``func`` does not take, or whose value has the wrong
    type where the signature says the type (:func:`_wanted_type`), or (with ``required``) the
    first required keyword argument missing; None when there is none.

    The one set of rules behind the command line's ``--param KEY=VALUE`` flags
    (:func:`coflowopt.cli.check_params`) and experiment specs' parameter tables
    (:mod:`coflowopt.experiments.spec`).  ``skip`` leading positional parameters (the instance,
    the order) are data, not settings, and ``reserved`` ones are set elsewhere; a function that
    takes ``**kwargs`` accepts any key.

    Examples
    --------
    >>> def f(instance, *, slot: float | None = None, rounds: int = 3): ...
    >>> parameter_problem(f, {"slot": None, "rounds": 2}) is None
    True
    >>> parameter_problem(f, {"rounds": 2.5}).rule
    'needs an integer, got 2.5'
    >>> parameter_problem(f, {"instance": 1}).kind
    'unknown'
    """
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # pragma: no cover - builtins: nothing to check
        return None
    ps = [p for p in list(sig.parameters.values())[skip:] if p.name not in reserved]
    if any(p.kind == p.VAR_KEYWORD for p in ps):
        return None
    ps = [p for p in ps if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    shown = ", ".join(p.name for p in ps) or "none"
    by_name = {p.name: p for p in ps}
    for k, v in params.items():
        if k not in by_name:
            return ParameterProblem(k, "unknown", f"has no parameter {k!r} (accepted: {shown})",
                                    shown)
        want = _wanted_type(by_name[k]) or ""
        nullable = want.endswith(" or null")    # float | None: null is a value too
        want = want.removesuffix(" or null")
        if nullable and v is None:
            continue
        rule = None
        if want == "bool" and not isinstance(v, bool):
            rule = f"needs true or false{' (or null)' if nullable else ''}, got {v!r}"
        elif want in ("int", "number") and (isinstance(v, bool) or not isinstance(
                v, int if want == "int" else (int, float))):
            rule = (f"needs {'an integer' if want == 'int' else 'a number'}"
                    f"{' (or null)' if nullable else ''}, got {v!r}")
        elif want == "str" and not isinstance(v, str):
            rule = f"needs a name, got {v!r}"
        elif want == "mapping" and not (isinstance(v, dict) or v is None):
            rule = f"needs a JSON object of parameters, e.g. {k}='{{\"key\": 1}}', got {v!r}"
        if rule is not None:
            return ParameterProblem(k, "type", rule, shown)
    if required:
        for p in ps:
            if p.default is p.empty and p.name not in params:
                return ParameterProblem(p.name, "required", f"is required (accepted: {shown})",
                                        shown)
    return None


def _wanted_type(p) -> str | None:
    """What a parameter's signature says about its type: ``"bool"``, ``"int"``, ``"number"``,
    ``"number or null"`` / ``"int or null"`` / ``"bool or null"`` (``float | None``: a time
    limit; ``bool | None``: a switch whose default depends on the instance), ``"str"`` (a
    name), ``"mapping"`` (nested parameters: a JSON object) or None (anything else -- lists,
    other unions -- is left to the function)."""
    ann = str(p.annotation).strip("'\"")
    if isinstance(p.default, bool) or ann == "bool":
        return "bool"
    if ann == "str":
        return "str"
    if ann.startswith(("Mapping[", "dict[")) or ann in ("dict", "Mapping"):
        return "mapping"
    if ann == "int":
        return "int"
    if ann == "float" or (isinstance(p.default, (int, float)) and p.default is not None):
        return "number"
    if ann in ("float | None", "Optional[float]"):
        return "number or null"
    if ann in ("int | None", "Optional[int]"):
        return "int or null"
    if ann in ("bool | None", "Optional[bool]"):
        return "bool or null"
    return None


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
