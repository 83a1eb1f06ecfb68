"""Experiment specs: which instances, which algorithms, which objective, which limits.

A spec is a TOML file (read with :mod:`tomllib`) or the equivalent dict.  The format is
documented in the package docstring (:mod:`coflowopt.experiments`) and in
``experiments/specs/README.md``; :func:`load_spec` validates every key and raises
:class:`SpecError` naming the file, the key (``algorithms.schedules[2].order``) and the rule.

A validated :class:`Spec` expands into

* instances (:meth:`Spec.instances`): :class:`InstanceRef` objects, each a JSON-able *recipe*
  (generator + params + seed, a library name, or a file + reading options) that any process can
  turn back into the same :class:`~coflowopt.instance.Instance`;
* algorithms (:attr:`Spec.algorithms`): :class:`AlgorithmSpec` objects, each a schedule
  (ordering + rate allocation, or a policy), a bound or an exact method with its parameters.

Algorithms are looked up only through :mod:`coflowopt.registry`, so ``schedules = "all"`` and
``bounds = "all"`` pick up algorithms registered after this module was written.  They enumerate
the fluid kinds only (``schedules``: every ordering with every rate allocation, and every
policy): the slotted algorithms of the integral model (registry kind ``slotted``) make slotted
schedules, which a fluid schedule row cannot hold, and naming one is an error that says so.

``model = "integral"`` (top level) makes the whole spec one of the integral matching model
(slot 1, whole units per slot and resource, :mod:`coflowopt.slotted`): ``schedules`` then lists
slotted algorithms (``{slotted = NAME, params = {...}}``; ``"all"`` is every registered
slotted algorithm), ``exact`` and ``bounds`` only methods tagged ``integral_model``; anything
else is an error naming the key.  The runner verifies slotted schedules (and an integral exact
method's schedule) with :func:`coflowopt.slotted.verify_slotted`, so ALG/OPT in the report is
over the *integral* optimum; every row says ``model = "integral"``.  In a fluid spec an
``integral_model`` exact method or bound is refused (its optimum is not the fluid one).
"""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import re
import importlib
import inspect
import json
import math
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from ..exceptions import InputError
from ..instance import Instance

__all__ = ["Spec", "SpecError", "InstanceRef", "AlgorithmSpec", "Limits", "load_spec",
           "parse_spec", "instance_hash", "load_recipe", "OBJECTIVES", "placeholders",
           "refs_from_instances", "with_instances"]

OBJECTIVES = ("weighted_completion_time", "weighted_cct")
#: ``model``: fluid rates (default) or the integral matching model.
MODELS = ("fluid", "integral")
ALGORITHM_KINDS = ("schedule", "bound", "exact")


class SpecError(InputError):
    """A spec breaks a rule; the message names the file, the key and the rule."""


# ------------------------------------------------------------------------------ helpers
def _repo_dir() -> Path:
    return Path(__file__).resolve().parents[2]


def placeholders(spec_dir: Path | None = None) -> dict[str, str]:
    """The ``{name}`` placeholders a spec string may use.

    ``{repo}`` is the source checkout, ``{shared}`` the shared data folder (environment variable
    ``COFLOWOPT_SHARED``, else ``shared/`` beside the checkout, as the tests' ``shared_dir``
    fixture), ``{spec_dir}`` the folder of the spec file.
    """
    repo = _repo_dir()
    out = {"repo": str(repo),
           "shared": os.environ.get("COFLOWOPT_SHARED", str(repo.parent / "shared"))}
    out["spec_dir"] = str(spec_dir) if spec_dir is not None else os.getcwd()
    return out


def _canonical(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), allow_nan=True)


def instance_hash(instance: Instance) -> str:
    """SHA-256 of an instance's model data (capacities, coflows, flows; not ``meta``).

    Two instances have the same hash exactly when they are equal as models (``==``), up to
    the astronomically unlikely collision, so a rerun that regenerates or rereads an instance
    can check it got the same one.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> a = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)])])
    >>> instance_hash(a) == instance_hash(Instance.from_coflows([Coflow("A", [(0, 0, 1)])]))
    True
    """
    h = hashlib.sha256(b"coflowopt-instance-hash-v1\0")
    h.update(np.array([instance.num_ingress, instance.num_egress, instance.num_coflows,
                       instance.num_flows], dtype="<i8").tobytes())
    for name in ("ingress_capacity", "egress_capacity", "weight", "release", "deadline",
                 "flow_size"):
        a = np.ascontiguousarray(getattr(instance, name), dtype="<f8")
        # every NaN (no deadline) hashes the same, whatever its payload bits
        h.update(np.where(np.isnan(a), np.nan, a).tobytes())
    for name in ("flow_ptr", "flow_src", "flow_dst"):
        h.update(np.ascontiguousarray(getattr(instance, name), dtype="<i8").tobytes())
    h.update("\0".join(instance.coflow_ids).encode("utf-8"))
    if instance.flow_subcoflow is not None:
        # a sub-coflow index other than the default (one per destination) is model data; the
        # default hashes as before
        h.update(b"\0subcoflow\0")
        h.update(np.ascontiguousarray(instance.flow_subcoflow, dtype="<i8").tobytes())
    if not instance.is_big_switch:
        # flows over resources: the paths, resource capacities and names are model data (the
        # same trace on a fat-tree at 1:1 and 4:1 differs only there); a big switch hashes as
        # before
        h.update(b"\0resources\0")
        h.update(np.ascontiguousarray(instance.resource_capacity, dtype="<f8").tobytes())
        for name in ("path_ptr", "path_resource"):
            h.update(np.ascontiguousarray(getattr(instance, name), dtype="<i8").tobytes())
        h.update("\0".join(instance.resource_names).encode("utf-8"))
        h.update(b"\0hosts\0" + "\0".join(map(str, instance.host_ids)).encode("utf-8"))
    return h.hexdigest()


def load_recipe(recipe: Mapping[str, Any]) -> Instance:
    """Build the instance a recipe describes (see :class:`InstanceRef`).

    Raises
    ------
    SpecError
        For an unknown source kind.
    """
    src = recipe.get("source")
    if src == "generator":
        from ..generators import GENERATORS
        params = dict(recipe["params"])
        if recipe.get("seed") is not None:
            params["seed"] = recipe["seed"]
        inst = GENERATORS[recipe["generator"]](**params)
    elif src == "library":
        from ..library import load_instance
        inst = load_instance(recipe["name"])
    elif src == "file":
        from ..formats import read_instance
        inst = read_instance(recipe["path"], format=recipe.get("format", "auto"),
                             **dict(recipe.get("options") or {}))
    else:
        raise SpecError(f"unknown instance source {src!r}", field="source")
    if recipe.get("zero_release"):
        inst = inst.with_releases(0.0).without_deadlines()
    if recipe.get("unit_weights"):
        inst = inst.with_weights(1.0)
    if recipe.get("topology"):
        from ..topology import build, on_topology
        t = dict(recipe["topology"])
        place = {k: t.pop(k) for k in _PLACEMENT_KEYS if k in t}
        if "routing_seed" in place:
            place["seed"] = place.pop("routing_seed")
        kind = t.pop("kind")
        inst = on_topology(inst, build(kind, **t), **place)
    return inst


#: Keys of a source's ``topology`` table that place and route rather than build.
_PLACEMENT_KEYS = ("routing", "routing_seed", "placement", "placement_seed")


# ------------------------------------------------------------------------------ the schema
@dataclass(frozen=True)
class Rule:
    """What the value of one key must be.  The schema of a table is data: the dataclass of the
    table (``Limits``, ``_Settings``) carries each field's rule in its metadata, and
    :data:`ENTRY_RULES` gives the rule of every key of an ``[[instances]]`` block or an
    algorithm entry; :meth:`_Checker.entry` / :func:`_read_table` check a whole table in one
    pass, and every error names the file, the dotted key and the rule.

    ``kind``: ``integer`` (``>= minimum`` and ``<= maximum`` when given), ``number`` (finite; ``> 0`` when
    ``positive``), ``boolean``, ``string`` (non-empty), ``text`` (any string), ``choice`` (one
    of ``choices``), ``params`` (a table of parameters).
    """

    kind: str
    minimum: int | None = None
    maximum: int | None = None
    positive: bool = True
    choices: tuple = ()


#: The most tasks a spec may plan (instances x algorithms x repetitions), and so the most seeds
#: of one block and the most repetitions: a count beyond it is a typo, not a study, and would
#: otherwise be planned (and held) one task at a time before anything ran.
MAX_TASKS = 10_000_000

_STRING, _PARAMS = Rule("string"), Rule("params")
_COUNT, _NATURAL = Rule("integer", minimum=1), Rule("integer", minimum=0)
_SEED_COUNT = Rule("integer", minimum=1, maximum=MAX_TASKS)


def _rule(default: Any, rule: Rule):
    """A dataclass field with its :class:`Rule`."""
    return field(default=default, metadata={"rule": rule})


#: The rule of every key an ``[[instances]]`` block or an algorithm entry may carry (which keys
#: a given table allows is its key set: ``_SOURCE_KEYS``, ``_SCHEDULE_KEYS``, ...).  ``seeds``,
#: ``library``, ``files`` and ``topology`` have shapes of their own (``_seeds``, ``_topology``).
ENTRY_RULES = {
    **{k: Rule("string") for k in ("label", "name", "order", "rates", "policy", "slotted",
                                   "method", "generator", "format", "split")},
    **{k: Rule("params") for k in ("params", "order_params", "rate_params")},
    **{k: Rule("integer", minimum=1) for k in ("max_coflows", "max_flows")},
    **{k: Rule("number") for k in ("time_limit", "time_unit_ms", "capacity")},
    **{k: Rule("boolean") for k in ("zero_release", "unit_weights")},
}


# ------------------------------------------------------------------------------ data classes
@dataclass(frozen=True)
class InstanceRef:
    """One instance of a spec.

    Attributes
    ----------
    key : str
        Unique, readable name: ``"<block name>/seed=<s>"`` for generated instances,
        ``"<block name>:<library name>"`` for the library (block name ``library`` by
        default), ``"<block name>:<file name>"`` for files (``files`` by default; the path
        below the glob's folder for globs).
    group : str
        The name of the ``[[instances]]`` block it comes from.
    recipe : dict
        JSON-able: ``{"source": "generator", "generator", "params", "seed"}``,
        ``{"source": "library", "name"}`` or ``{"source": "file", "path", "format",
        "options"}``, plus ``zero_release`` / ``unit_weights``.
    source_key : str or None
        Where in the spec it comes from (``instances[0].params``), for a value the generator
        refuses only when it builds the instance (not part of the identity).
    """

    key: str
    group: str
    recipe: dict
    source_key: str | None = field(default=None, compare=False)

    def load(self) -> Instance:
        return load_recipe(self.recipe)

    @property
    def params(self) -> dict[str, Any]:
        """The generator parameters and seed (empty for other sources)."""
        if self.recipe.get("source") != "generator":
            return {}
        return {**self.recipe["params"], "seed": self.recipe.get("seed")}


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm of a spec: a schedule, a bound or an exact method, with parameters.

    ``identity()`` (everything that changes the result: not the label, not the hard time
    limit) enters the task id, so renaming a label keeps finished work.
    """

    label: str
    kind: str  # "schedule" | "bound" | "exact"
    order: str | None = None
    rates: str | None = None
    policy: str | None = None
    method: str | None = None
    params: dict = field(default_factory=dict)
    order_params: dict = field(default_factory=dict)
    rate_params: dict = field(default_factory=dict)
    tags: frozenset = frozenset()
    randomized: bool = False
    max_coflows: int | None = None
    max_flows: int | None = None
    time_limit: float | None = None
    #: a registered slotted algorithm (``model = "integral"`` specs; kind ``schedule``)
    slotted: str | None = None

    def identity(self) -> dict[str, Any]:
        d = {"kind": self.kind, "order": self.order, "rates": self.rates,
             "policy": self.policy, "slotted": self.slotted, "method": self.method,
             "params": self.params,
             "order_params": self.order_params, "rate_params": self.rate_params,
             "time_limit": self.time_limit}
        return {k: v for k, v in d.items() if v not in (None, {})}

    def to_dict(self) -> dict[str, Any]:
        d = {"label": self.label, **self.identity(), "tags": sorted(self.tags),
             "randomized": self.randomized, "max_coflows": self.max_coflows,
             "max_flows": self.max_flows}
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "AlgorithmSpec":
        kw = {k: d[k] for k in ("label", "kind", "order", "rates", "policy", "slotted", "method",
                                "params", "order_params", "rate_params", "randomized",
                                "max_coflows", "max_flows", "time_limit") if k in d}
        return cls(tags=frozenset(d.get("tags", ())), **kw)

    def skip_reason(self, num_coflows: int, num_flows: int) -> str | None:
        """Why this algorithm does not run on an instance of this size (``None``: it runs)."""
        if self.max_coflows is not None and num_coflows > self.max_coflows:
            return f"{self.label}: more than {self.max_coflows} coflows"
        if self.max_flows is not None and num_flows > self.max_flows:
            return f"{self.label}: more than {self.max_flows} flows"
        return None


@dataclass(frozen=True)
class Limits:
    """Per-task limits (``[limits]`` table)."""

    task_seconds: float = _rule(600.0, Rule("number"))
    grace_seconds: float = _rule(30.0, Rule("number", positive=False))
    exponential_max_coflows: int = _rule(8, Rule("integer", minimum=1))
    slow_max_flows: int = _rule(20000, Rule("integer", minimum=1))
    memory_mb: int | None = _rule(None, Rule("integer", minimum=256))

    def hard_seconds(self, alg: AlgorithmSpec) -> float:
        """Seconds after which a task is killed: ``task_seconds``, or an algorithm's own
        (soft) time limit plus ``grace_seconds`` if that is longer."""
        if alg.time_limit is not None:
            return max(self.task_seconds, alg.time_limit + self.grace_seconds)
        return self.task_seconds


@dataclass(frozen=True)
class _Settings:
    """The top-level keys of a spec with a scalar value, in the order they are checked (the
    default ``name`` is the file's stem)."""

    name: str = _rule("spec", Rule("string"))
    description: str = _rule("", Rule("text"))
    objective: str = _rule("weighted_completion_time", Rule("choice", choices=OBJECTIVES))
    model: str = _rule("fluid", Rule("choice", choices=MODELS))
    repetitions: int = _rule(1, Rule("integer", minimum=1, maximum=MAX_TASKS))
    seed: int = _rule(0, Rule("integer", minimum=0))
    completion_times: bool = _rule(True, Rule("boolean"))
    warm_up: bool = _rule(True, Rule("boolean"))


@dataclass
class Spec:
    """A validated experiment spec (see :func:`load_spec`)."""

    name: str
    description: str
    objective: str
    repetitions: int
    seed: int
    completion_times: bool
    warm_up: bool
    limits: Limits
    sources: list[dict]
    algorithms: list[AlgorithmSpec]
    unavailable: list[str]
    raw: dict
    path: str | None = None
    #: ``"fluid"`` or ``"integral"`` (see the module docstring)
    model: str = "fluid"

    @property
    def spec_hash(self) -> str:
        """SHA-256 of the parsed spec (key order and formatting do not matter)."""
        return hashlib.sha256(_canonical(self.raw).encode()).hexdigest()

    def instances(self) -> Iterator[InstanceRef]:
        """Every instance of the spec, in spec order."""
        for src in self.sources:
            yield from src["refs"]

    def seeds(self) -> dict[str, Any]:
        """The seeds that determine the run: per generator block, and the algorithms' base."""
        out: dict[str, Any] = {"algorithms": self.seed}
        for src in self.sources:
            if src["kind"] == "generator":
                out[src["name"]] = src["seeds"]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "objective": self.objective,
                "repetitions": self.repetitions, "seed": self.seed,
                "completion_times": self.completion_times, "warm_up": self.warm_up,
                "model": self.model,
                "limits": self.limits.__dict__, "algorithms": [a.to_dict()
                                                                for a in self.algorithms],
                "unavailable": self.unavailable, "path": self.path, "raw": self.raw}


#: A spec ``name``: it names the default run folder ``runs/<name>``, so no path separators,
#: no ``..``, nothing absolute.
PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


# ------------------------------------------------------------------------------ validation
class _Checker:
    """Raises :class:`SpecError` with the file and the dotted key."""

    def __init__(self, path: str | None):
        self.path = path

    def fail(self, key: str, rule: str) -> SpecError:
        return SpecError(rule, file=self.path, field=key or None)

    def keys(self, d: Any, key: str, allowed: set[str], required: set[str] = frozenset()):
        if not isinstance(d, dict):
            raise self.fail(key, f"must be a table, got {type(d).__name__} {d!r}")
        unknown = sorted(set(d) - allowed)
        if unknown:
            raise self.fail(f"{key}.{unknown[0]}" if key else unknown[0],
                            f"unknown key; allowed here: {', '.join(sorted(allowed))}")
        for r in sorted(required):
            if r not in d:
                raise self.fail(key, f"missing required key {r!r}")

    def value(self, v, key: str, rule: Rule):
        """``v`` checked by ``rule`` (and normalised: a number is a float, params a dict)."""
        kind, ok = rule.kind, True
        if kind == "integer":
            ok = isinstance(v, int) and not isinstance(v, bool) and \
                (rule.minimum is None or v >= rule.minimum) and \
                (rule.maximum is None or v <= rule.maximum)
            what = "an integer" + ("" if rule.minimum is None else f" >= {rule.minimum}") + \
                ("" if rule.maximum is None else f" and <= {rule.maximum:,}")
        elif kind == "number":
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and \
                math.isfinite(v) and (v > 0 or not rule.positive)
            what, v = "a finite number" + (" > 0" if rule.positive else ""), \
                float(v) if ok else v
        elif kind == "boolean":
            ok, what = isinstance(v, bool), "true or false"
        elif kind == "string":
            ok, what = isinstance(v, str) and bool(v), "a non-empty string"
        elif kind == "text":
            if not isinstance(v, str):
                raise self.fail(key, "must be a string")
        elif kind == "choice":
            ok, what = v in rule.choices, "one of " + ", ".join(rule.choices)
        elif kind == "params":
            ok, what = v is None or isinstance(v, dict), "a table of parameters"
            v = dict(v or {}) if ok else v
        if not ok:
            raise self.fail(key, f"must be {what}, got {v!r}")
        return v

    def entry(self, d: Any, key: str, allowed: set[str], required: set[str] = frozenset()
              ) -> dict:
        """One pass over a table: its keys (allowed, required), then every key that has a rule
        in :data:`ENTRY_RULES`.  Returns the table with its values normalised."""
        self.keys(d, key, allowed, required)
        return {k: (self.value(v, f"{key}.{k}", ENTRY_RULES[k]) if k in ENTRY_RULES else v)
                for k, v in d.items()}


def _read_table(ck: _Checker, cls, raw: Mapping[str, Any], key: str,
                defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The values of ``cls``'s fields from ``raw`` in one pass, each checked by the rule in the
    field's metadata; an absent key (or ``None`` where the default is ``None``) takes the
    default (``defaults`` overrides the class's)."""
    out = {}
    for f in fields(cls):
        rule = f.metadata.get("rule")
        if rule is None:
            continue
        present = f.name in raw and not (raw[f.name] is None and f.default is None)
        dotted = f"{key}.{f.name}" if key else f.name
        out[f.name] = ck.value(raw[f.name], dotted, rule) if present else \
            (defaults or {}).get(f.name, f.default)
    return out


def _substitute(x: Any, subs: Mapping[str, str]) -> Any:
    """Replace ``{repo}``, ``{shared}``, ``{spec_dir}`` in every string of ``x``."""
    if isinstance(x, str):
        for k, v in subs.items():
            x = x.replace("{" + k + "}", v)
        return x
    if isinstance(x, list):
        return [_substitute(v, subs) for v in x]
    if isinstance(x, dict):
        return {k: _substitute(v, subs) for k, v in x.items()}
    return x


def _accepts(func: Callable, name: str) -> bool:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return True
    return name in sig.parameters or any(p.kind == p.VAR_KEYWORD
                                         for p in sig.parameters.values())


def _default(func: Callable, name: str):
    try:
        p = inspect.signature(func).parameters.get(name)
    except (TypeError, ValueError):  # pragma: no cover
        return None
    return None if p is None or p.default is inspect.Parameter.empty else p.default


def _check_params(ck: _Checker, func: Callable, params: dict, key: str, what: str, *,
                  skip: int = 1, required: bool = False) -> None:
    """The command line's parameter rules (:func:`coflowopt.introspect.parameter_problem`:
    known keys, the types the signature states, with ``required`` the required ones) on a
    spec's parameter table, naming ``KEY.NAME``; ``skip`` leading positional parameters are
    data (the instance; the order of a rate allocation), not settings."""
    from ..introspect import parameter_problem

    p = parameter_problem(func, params, skip=skip, required=required)
    if p is not None:
        rule = f"required by {what}" if p.kind == "required" else f"{what} {p.rule}"
        raise ck.fail(f"{key}.{p.key}", rule)


def _import_callable(ck: _Checker, ref: str, key: str) -> Callable:
    mod, _, attr = ref.partition(":")
    try:
        obj = getattr(importlib.import_module(mod), attr)
    except (ImportError, AttributeError) as e:
        raise ck.fail(key, f"cannot import {ref!r} ({type(e).__name__}: {e})") from e
    if not callable(obj):
        raise ck.fail(key, f"{ref!r} is not callable")
    return obj


_SOURCE_COMMON = {"name", "zero_release", "unit_weights", "topology"}
_SOURCE_KEYS = {
    "generator": _SOURCE_COMMON | {"generator", "params", "seeds"},
    "library": _SOURCE_COMMON | {"library"},
    "files": _SOURCE_COMMON | {"files", "format", "time_unit_ms", "capacity", "split"},
}


def _seeds(ck: _Checker, v, key: str) -> list[int]:
    if isinstance(v, int) and not isinstance(v, bool):
        return list(range(ck.value(v, key, _SEED_COUNT)))
    if isinstance(v, dict):
        ck.keys(v, key, {"start", "stop"}, {"start", "stop"})
        a = ck.value(v["start"], key + ".start", _NATURAL)
        b = ck.value(v["stop"], key + ".stop", Rule("integer"))
        if b <= a:
            raise ck.fail(key, f"stop must be > start, got start={a}, stop={b}")
        if b - a > MAX_TASKS:
            raise ck.fail(key, f"stop - start must be <= {MAX_TASKS:,} (MAX_TASKS), got "
                               f"start={a}, stop={b}")
        return list(range(a, b))
    if isinstance(v, list) and v:
        out = [ck.value(s, f"{key}[{i}]", _NATURAL) for i, s in enumerate(v)]
        if len(set(out)) != len(out):
            raise ck.fail(key, "must not repeat a seed")
        return out
    raise ck.fail(key, f"must be a count N (seeds 0..N-1), {{start, stop}} or a non-empty list "
                       f"of seeds, got {v!r}")


def _topology(ck: _Checker, t, key: str) -> dict:
    """A source's ``topology`` table: ``kind`` (a :data:`coflowopt.topology.BUILDERS` name),
    the builder's parameters, and ``routing`` / ``routing_seed`` / ``placement`` /
    ``placement_seed`` for :func:`coflowopt.topology.on_topology`.  Built once here so that a
    bad parameter is an error of the spec, not of a task."""
    from ..exceptions import CoflowOptError
    from ..topology import BUILDERS, PLACEMENTS, ROUTINGS, build
    t = ck.value(t, key, _PARAMS)
    if "kind" not in t:
        raise ck.fail(f"{key}.kind", f"is required; one of {', '.join(BUILDERS)}")
    kind = ck.value(t["kind"], f"{key}.kind", _STRING)
    if kind not in BUILDERS:
        raise ck.fail(f"{key}.kind", f"unknown topology kind {kind!r}; valid: "
                                     f"{', '.join(BUILDERS)}")
    rules = {"routing": Rule("choice", choices=tuple(ROUTINGS)),
             "placement": Rule("choice", choices=tuple(PLACEMENTS)),
             "routing_seed": _NATURAL, "placement_seed": _NATURAL}
    for k, rule in rules.items():
        if k in t:
            ck.value(t[k], f"{key}.{k}", rule)
    params = {k: v for k, v in t.items() if k != "kind" and k not in _PLACEMENT_KEYS}
    _check_params(ck, BUILDERS[kind], params, key, f"topology {kind}", skip=0)
    try:
        build(kind, **params)
    except (CoflowOptError, TypeError, ValueError) as e:
        raise ck.fail(key, f"topology {kind}: {e}") from None
    return dict(t)


def _parse_sources(ck: _Checker, items, subs, spec_dir: Path | None) -> list[dict]:
    if not isinstance(items, list) or not items:
        raise ck.fail("instances", "must be a non-empty array of tables ([[instances]])")
    sources, keys_seen, names_seen = [], {}, {}
    for i, s in enumerate(items):
        key = f"instances[{i}]"
        if not isinstance(s, dict):
            raise ck.fail(key, f"must be a table, got {s!r}")
        kinds = [k for k in ("generator", "library", "files") if k in s]
        if len(kinds) != 1:
            raise ck.fail(key, "needs exactly one of 'generator', 'library', 'files', got "
                               f"{kinds or 'none'}")
        kind = kinds[0]
        s = ck.entry(_substitute(s, subs), key, _SOURCE_KEYS[kind])
        common = {k: s[k] for k in ("zero_release", "unit_weights") if k in s}
        if "topology" in s:
            common["topology"] = _topology(ck, s["topology"], f"{key}.topology")
        refs: list[InstanceRef] = []
        if kind == "generator":
            from ..generators import GENERATORS
            gen = s["generator"]
            if gen not in GENERATORS:
                raise ck.fail(f"{key}.generator", f"unknown generator {gen!r}; valid: "
                                                  f"{', '.join(sorted(GENERATORS))}")
            func = GENERATORS[gen]
            params = s.get("params", {})
            if "seed" in params:
                raise ck.fail(f"{key}.params.seed", "give seeds with the 'seeds' key")
            _check_params(ck, func, params, f"{key}.params", f"generator {gen}", skip=0,
                          required=True)
            name = s.get("name", gen)
            if _accepts(func, "seed"):
                seeds = _seeds(ck, s.get("seeds", 1), f"{key}.seeds")
            elif "seeds" in s:
                raise ck.fail(f"{key}.seeds", f"generator {gen} is deterministic (no seed)")
            else:
                seeds = [None]
            for seed in seeds:
                recipe = {"source": "generator", "generator": gen, "params": params,
                          "seed": seed, **common}
                refs.append(InstanceRef(name if seed is None else f"{name}/seed={seed}",
                                        name, recipe, f"{key}.params"))
            src = {"kind": kind, "name": name, "refs": refs, "seeds": seeds}
        elif kind == "library":
            from ..library import list_instances
            pats = s["library"]
            pats = [pats] if isinstance(pats, str) else pats
            if not isinstance(pats, list) or not pats:
                raise ck.fail(f"{key}.library", "must be a name, a glob or a list of them")
            names = list_instances()
            chosen: list[str] = []
            for j, p in enumerate(pats):
                p = ck.value(p, f"{key}.library[{j}]", _STRING)
                hit = [n for n in names if fnmatch.fnmatchcase(n, p)]
                if not hit:
                    raise ck.fail(f"{key}.library[{j}]", f"{p!r} matches no library instance; "
                                                         f"valid names: {', '.join(names)}")
                chosen += [n for n in hit if n not in chosen]
            name = s.get("name", "library")
            refs = [InstanceRef(f"{name}:{n}", name, {"source": "library", "name": n,
                                                      **common}) for n in chosen]
            src = {"kind": kind, "name": name, "refs": refs}
        else:
            pats = s["files"]
            pats = [pats] if isinstance(pats, str) else pats
            if not isinstance(pats, list) or not pats:
                raise ck.fail(f"{key}.files", "must be a path, a glob or a list of them")
            options = {opt: s[opt] for opt in ("time_unit_ms", "capacity", "split") if opt in s}
            fmt = s.get("format", "auto")
            from ..formats import INSTANCE_FORMATS
            if fmt != "auto" and fmt not in INSTANCE_FORMATS:
                raise ck.fail(f"{key}.format", f"unknown format {fmt!r}; valid: auto, "
                                               f"{', '.join(sorted(INSTANCE_FORMATS))}")
            name = s.get("name", "files")
            for j, p in enumerate(pats):
                p = ck.value(p, f"{key}.files[{j}]", _STRING)
                full = Path(p) if Path(p).is_absolute() or spec_dir is None else spec_dir / p
                hits = sorted(glob.glob(str(full))) if glob.has_magic(str(full)) else \
                    ([str(full)] if full.is_file() else [])
                if not hits:
                    raise ck.fail(f"{key}.files[{j}]", f"no such file: {full}")
                for h in hits:
                    shown = os.path.basename(h) if len(hits) == 1 else \
                        os.path.relpath(h, full.parent)
                    refs.append(InstanceRef(f"{name}:{shown}", name, {
                        "source": "file", "path": str(Path(h).resolve()), "format": fmt,
                        "options": options, **common}))
            src = {"kind": kind, "name": name, "refs": refs}
        if src["name"] in names_seen:
            raise ck.fail(f"{key}.name", f"{src['name']!r} is already the name of "
                                         f"instances[{names_seen[src['name']]}]; give each "
                                         "block a distinct name")
        names_seen[src["name"]] = i
        for r in refs:
            if r.key in keys_seen:
                raise ck.fail(key, f"instance {r.key!r} is already given by "
                                   f"instances[{keys_seen[r.key]}]")
            keys_seen[r.key] = i
        sources.append(src)
    return sources


_SCHEDULE_KEYS = {"order", "rates", "policy", "label", "order_params", "rate_params", "params",
                  "max_coflows", "max_flows"}
_SLOTTED_KEYS = {"slotted", "label", "params", "max_coflows", "max_flows"}
_NAMED_KEYS = {"name", "label", "params", "max_coflows", "max_flows"}
_EXACT_KEYS = {"method", "label", "params", "time_limit", "max_coflows"}
_ALG_KEYS = {"schedules", "bounds", "exact", "skip_tags", "missing"}


def _is_slotted(name: str) -> bool:
    """Whether ``name`` is a registered slotted algorithm (kind ``slotted``)."""
    from ..exceptions import InvalidParameterError
    from ..registry import get_algorithm
    try:
        get_algorithm("slotted", name)
    except InvalidParameterError:
        return False
    return True


class _AlgorithmParser:
    def __init__(self, ck: _Checker, limits: Limits, skip_tags: frozenset, missing: str,
                 model: str = "fluid"):
        from ..registry import get_algorithm
        self.ck, self.limits, self.skip_tags, self.missing = ck, limits, skip_tags, missing
        self.model = model
        self.unavailable: list[str] = []
        self.get = get_algorithm

    def lookup(self, kind: str, name: str, key: str):
        """The registry entry, or ``None`` when it is missing and ``missing = "skip"``."""
        from ..exceptions import InvalidParameterError
        try:
            return self.get(kind, name)
        except InvalidParameterError as e:
            if kind != "slotted" and _is_slotted(name):
                # a slotted algorithm makes a SlottedSchedule of the integral model, which a
                # schedule row (verified as a fluid schedule) cannot hold: not "missing"
                raise self.ck.fail(key, f"{name!r} is a slotted algorithm of the integral "
                                        "model (registry kind 'slotted': whole units per "
                                        "slot, judged by verify_slotted), not a fluid "
                                        f"{kind}; a fluid spec runs fluid schedules (set "
                                        'model = "integral" and write {slotted = '
                                        f'"{name}"}}, or run it with coflowopt slotted)') from e
            if self.missing == "skip":
                self.unavailable.append(f"{kind} {name}")
                return None
            raise self.ck.fail(key, str(e) + " (set algorithms.missing = \"skip\" to skip "
                                             "names that are not registered yet)") from e

    def make(self, kind: str, tags: frozenset, funcs: list[Callable],
             entry: Mapping[str, Any] | None = None, **kw) -> AlgorithmSpec:
        """An :class:`AlgorithmSpec` with its size limits: the entry's own ``max_coflows`` /
        ``max_flows`` (checked already, :data:`ENTRY_RULES`), else ``exponential`` -> the
        functions' own ``max_coflows`` default or ``limits.exponential_max_coflows``; ``slow``
        -> ``limits.slow_max_flows``.  A schedule is randomized when its tags say so."""
        entry = entry or {}
        mc, mf = entry.get("max_coflows"), entry.get("max_flows")
        if mc is None and "exponential" in tags:
            own = [o for o in (_default(f, "max_coflows") for f in funcs) if isinstance(o, int)]
            mc = min(own) if own else self.limits.exponential_max_coflows
        if mf is None and "slow" in tags:
            mf = self.limits.slow_max_flows
        return AlgorithmSpec(kind=kind, tags=tags, max_coflows=mc, max_flows=mf,
                             randomized=kind == "schedule" and "randomized" in tags, **kw)

    def schedules(self, v) -> list[AlgorithmSpec]:
        items = [v] if isinstance(v, str) else v
        if not isinstance(items, list):
            raise self.ck.fail("algorithms.schedules", f'must be "all" or an array, got {v!r}')
        out: list[AlgorithmSpec] = []
        for i, it in enumerate(items):
            key = f"algorithms.schedules[{i}]"
            if self.model == "integral":
                out += self.slotted_entries(it, key)
                continue
            if isinstance(it, dict) and "slotted" in it:
                raise self.ck.fail(f"{key}.slotted", "slotted algorithms belong to the "
                                                     "integral matching model: set model = "
                                                     '"integral" at the top of the spec')
            if it == "all":
                out += self.all_schedules()
                continue
            if isinstance(it, str):
                raise self.ck.fail(key, f'a string entry must be "all", got {it!r} (write '
                                        '{order = ..., rates = ...} or {policy = ...})')
            spec = self.one_schedule(self.ck.entry(it, key, _SCHEDULE_KEYS), key)
            if spec is not None:
                out.append(spec)
        return out

    def slotted_entries(self, it, key: str) -> list[AlgorithmSpec]:
        """``model = "integral"``: ``"all"`` (every registered slotted algorithm, defaults)
        or ``{slotted = NAME, params = {...}, label = ...}``."""
        from ..registry import algorithms
        ck = self.ck
        if it == "all":
            out = []
            for a in algorithms("slotted"):
                if a.tags & self.skip_tags:
                    continue
                out.append(self.make("schedule", a.tags, [a.func], label=a.name,
                                     slotted=a.name))
            return out
        if not isinstance(it, dict):
            raise ck.fail(key, f'in model = "integral" an entry is "all" or {{slotted = NAME, '
                               f'params = {{...}}}}, got {it!r}')
        if "slotted" not in it:
            what = "policy" if "policy" in it else ("order" if "order" in it else
                                                      ("rates" if "rates" in it else None))
            raise ck.fail(f"{key}.{what}" if what else key,
                          'model = "integral" runs slotted algorithms only (write {slotted = '
                          'NAME, params = {...}}; e.g. slotted = "slotted-order", params = '
                          '{ordering = "sebf"}); fluid orderings, rate allocations and '
                          "policies make fluid schedules")
        it = ck.entry(it, key, _SLOTTED_KEYS)
        a = self.lookup("slotted", it["slotted"], f"{key}.slotted")
        if a is None:
            return []
        params = it.get("params", {})
        _check_params(ck, a.func, params, f"{key}.params", f"slotted {a.name}")
        if "ordering" in params:
            o = self.lookup("ordering", ck.value(params["ordering"], f"{key}.params.ordering",
                                                _STRING), f"{key}.params.ordering")
            if o is None:
                return []
            params["ordering"] = o.name
        tags = a.tags
        if "ordering" in params:
            tags = tags | (o.tags & {"randomized"})
        label = it.get("label") or (f"{params['ordering']}+{a.name}" if "ordering" in params
                                    else a.name)
        return [self.make("schedule", tags, [a.func], it, label=label, slotted=a.name,
                          params=params)]

    def check_model(self, alg, kind: str, key: str) -> None:
        """An ``integral_model`` method only in an integral spec, and only those there."""
        integral = "integral_model" in alg.tags
        if self.model == "integral" and not integral:
            raise self.ck.fail(key, f"{kind} {alg.name} is a method of the fluid model; "
                                    'model = "integral" takes only methods tagged '
                                    "integral_model (their optimum or bound is the integral "
                                    "one; e.g. exact integral-mip)")
        if self.model == "fluid" and integral:
            raise self.ck.fail(key, f"{kind} {alg.name} belongs to the integral matching "
                                    "model (tag integral_model: its optimum is the integral "
                                    'one, not the fluid one): set model = "integral"')

    def named_entry(self, it, key: str, kind: str, allowed: set[str], name_key: str):
        """A bound or exact entry: the table checked, the method looked up (``None`` when it
        is missing and skipped), its model and parameters checked; ``(entry, alg, params)``."""
        it = self.ck.entry(it, key, allowed, {name_key})
        alg = self.lookup(kind, it[name_key], f"{key}.{name_key}")
        if alg is None:
            return it, None, {}
        self.check_model(alg, kind, f"{key}.{name_key}")
        params = it.get("params", {})
        _check_params(self.ck, alg.func, params, f"{key}.params", f"{kind} {alg.name}")
        return it, alg, params

    def one_schedule(self, it: dict, key: str) -> AlgorithmSpec | None:
        ck = self.ck
        if ("policy" in it) == ("order" in it or "rates" in it):
            raise ck.fail(key, "give either policy = NAME, or both order = NAME and "
                               "rates = NAME")
        label = it.get("label")
        if "policy" in it:
            for k in ("order_params", "rate_params"):
                if k in it:
                    raise ck.fail(f"{key}.{k}", "belongs to order/rates entries; a policy "
                                                "takes params")
            name = it["policy"]
            params = it.get("params", {})
            if ":" in name:  # an importable callable: module:function
                func = _import_callable(ck, name, f"{key}.policy")
                tags = frozenset()
            else:
                alg = self.lookup("policy", name, f"{key}.policy")
                if alg is None:
                    return None
                func, tags, name = alg.func, alg.tags, alg.name
            _check_params(ck, func, params, f"{key}.params", f"policy {name}")
            return self.make("schedule", tags, [func], it, label=label or name, policy=name,
                             params=params)
        if "params" in it:
            raise ck.fail(f"{key}.params", "an order/rates entry takes order_params and "
                                           "rate_params")
        for k in ("order", "rates"):
            if k not in it:
                raise ck.fail(key, f"missing {k!r} (an ordering needs a rate allocation)")
        o = self.lookup("ordering", it["order"], f"{key}.order")
        r = self.lookup("rates", it["rates"], f"{key}.rates")
        if o is None or r is None:
            return None
        op = it.get("order_params", {})
        rp = it.get("rate_params", {})
        _check_params(ck, o.func, op, f"{key}.order_params", f"ordering {o.name}")
        _check_params(ck, r.func, rp, f"{key}.rate_params", f"rates {r.name}", skip=2)
        return self.make("schedule", o.tags | r.tags, [o.func, r.func], it,
                         label=label or f"{o.name}+{r.name}", order=o.name, rates=r.name,
                         order_params=op, rate_params=rp)

    def all_schedules(self) -> list[AlgorithmSpec]:
        from ..registry import algorithms
        out = []
        for o in algorithms("ordering"):
            for r in algorithms("rates"):
                tags = o.tags | r.tags
                if tags & self.skip_tags:
                    continue
                out.append(self.make("schedule", tags, [o.func, r.func],
                                     label=f"{o.name}+{r.name}", order=o.name, rates=r.name))
        for p in algorithms("policy"):
            if p.tags & self.skip_tags:
                continue
            out.append(self.make("schedule", p.tags, [p.func], label=p.name, policy=p.name))
        return out

    def bounds(self, v) -> list[AlgorithmSpec]:
        from ..registry import algorithms
        items = [v] if isinstance(v, str) else v
        if not isinstance(items, list):
            raise self.ck.fail("algorithms.bounds", f'must be "all" or an array, got {v!r}')
        out = []
        for i, it in enumerate(items):
            key = f"algorithms.bounds[{i}]"
            if it == "all":
                for b in algorithms("bound"):
                    if b.tags & self.skip_tags or \
                            ("integral_model" in b.tags) != (self.model == "integral"):
                        continue
                    out.append(self.make("bound", b.tags, [b.func], label=b.name,
                                         method=b.name))
                continue
            it = {"name": it} if isinstance(it, str) else it
            it, b, params = self.named_entry(it, key, "bound", _NAMED_KEYS, "name")
            if b is None:
                continue
            out.append(self.make("bound", b.tags, [b.func], it, label=it.get("label", b.name),
                                 method=b.name, params=params))
        return out

    def exact(self, v) -> list[AlgorithmSpec]:
        items = [v] if isinstance(v, dict) else v
        if not isinstance(items, list):
            raise self.ck.fail("algorithms.exact", "must be a table {method, time_limit, "
                                                   f"max_coflows}} or an array of them, got {v!r}")
        out = []
        for i, it in enumerate(items):
            key = "algorithms.exact" if isinstance(v, dict) else f"algorithms.exact[{i}]"
            it, e, params = self.named_entry(it, key, "exact", _EXACT_KEYS, "method")
            if e is None:
                continue
            tl = None
            if "time_limit" in it:
                tl = it["time_limit"]
                if not _accepts(e.func, "time_limit"):
                    raise self.ck.fail(f"{key}.time_limit", f"exact {e.name} takes no "
                                                            "time_limit")
            elif _accepts(e.func, "time_limit"):
                raise self.ck.fail(key, f"missing 'time_limit' (seconds) for exact {e.name}: "
                                        "exact search is exponential")
            mc = it.get("max_coflows", self.limits.exponential_max_coflows)
            out.append(AlgorithmSpec(label=it.get("label", e.name), kind="exact", method=e.name,
                                     params=params, tags=e.tags, max_coflows=mc, time_limit=tl))
        return out


def parse_spec(raw: Mapping[str, Any], path: str | Path | None = None) -> Spec:
    """Validate a spec given as a dict (the parsed TOML) and return a :class:`Spec`.

    Parameters
    ----------
    raw : mapping
        The spec (see the package docstring for every key).
    path : str or Path, optional
        The file it came from: error messages name it and relative instance paths are
        resolved against its folder.

    Raises
    ------
    SpecError
        Naming the file, the key and the rule broken.
    """
    ck = _Checker(str(path) if path is not None else None)
    raw = dict(raw)
    ck.keys(raw, "", {f.name for f in fields(_Settings)} |
            {"limits", "instances", "algorithms"}, {"instances", "algorithms"})
    spec_dir = Path(path).resolve().parent if path is not None else None
    subs = placeholders(spec_dir)
    top = _read_table(ck, _Settings, raw, "", {"name": Path(path).stem if path else "spec"})
    name = top["name"]
    if not PLAIN_NAME.fullmatch(name):
        # the name becomes the run folder runs/<name>: a path here would put it elsewhere
        raise ck.fail("name", f"must be a plain name (letters, digits, '-', '_', '.', starting "
                              f"with a letter or digit; no '/', no '..', not a path), got "
                              f"{name!r}" + ("" if "name" in raw else
                                             " (taken from the file name; add name = ...)"))
    model = top["model"]
    lim = raw.get("limits", {})
    ck.keys(lim, "limits", {f.name for f in fields(Limits)})
    limits = Limits(**_read_table(ck, Limits, lim, "limits"))
    sources = _parse_sources(ck, raw["instances"], subs, spec_dir)

    algs = raw["algorithms"]
    ck.keys(algs, "algorithms", _ALG_KEYS)
    if not any(k in algs for k in ("schedules", "bounds", "exact")):
        raise ck.fail("algorithms", "needs at least one of schedules, bounds, exact")
    skip = algs.get("skip_tags", [])
    from ..registry import TAGS
    if not isinstance(skip, list) or any(t not in TAGS for t in skip):
        raise ck.fail("algorithms.skip_tags", f"must be a list of tags from "
                                              f"{', '.join(sorted(TAGS))}, got {skip!r}")
    missing = algs.get("missing", "error")
    if missing not in ("error", "skip"):
        raise ck.fail("algorithms.missing", f'must be "error" or "skip", got {missing!r}')
    ap = _AlgorithmParser(ck, limits, frozenset(skip), missing, model)
    parsed: list[AlgorithmSpec] = []
    if "schedules" in algs:
        parsed += ap.schedules(algs["schedules"])
    if "bounds" in algs:
        parsed += ap.bounds(algs["bounds"])
    if "exact" in algs:
        parsed += ap.exact(algs["exact"])
    seen: dict[str, str] = {}
    for a in parsed:
        ident = _canonical(a.identity())
        if a.label in seen or ident in seen.values():
            raise ck.fail("algorithms", f"{a.label!r} is listed twice (labels and "
                                        "algorithm + parameters must be unique)")
        seen[a.label] = ident
    if not parsed:
        raise ck.fail("algorithms", "selects no algorithm (every name was unavailable or "
                                    "skipped)")
    planned = sum(len(src["refs"]) for src in sources) * len(parsed) * top["repetitions"]
    if planned > MAX_TASKS:
        raise ck.fail("", f"plans {planned:,} tasks (instances x algorithms x repetitions), "
                            f"more than {MAX_TASKS:,} (MAX_TASKS): split it into several specs")
    return Spec(**top, limits=limits, sources=sources, algorithms=parsed,
                unavailable=sorted(set(ap.unavailable)), raw=raw,
                path=str(path) if path is not None else None)


def refs_from_instances(named: Mapping[str, Instance], group: str = "instances"
                        ) -> list[InstanceRef]:
    """Instance references for instances already built, from the recipe in their ``meta``
    (``library_name`` for library entries, ``generator`` for generated ones).

    Raises
    ------
    SpecError
        For an instance whose meta says neither (it could not be rebuilt in a worker).
    """
    refs = []
    for name, inst in named.items():
        meta = inst.meta
        if meta.get("library_name"):
            recipe = {"source": "library", "name": meta["library_name"]}
        elif meta.get("generator"):
            g = meta["generator"]
            recipe = {"source": "generator", "generator": g["name"],
                      "params": dict(g["params"]), "seed": g.get("seed")}
        else:
            raise SpecError("the instance has no library_name or generator in its meta, so a "
                            "worker cannot rebuild it; write it to a file and list the file",
                            field=name)
        refs.append(InstanceRef(name, group, recipe))
    return refs


def with_instances(spec: Spec, refs: list[InstanceRef], name: str = "instances") -> Spec:
    """A copy of ``spec`` whose instances are ``refs`` (one source named ``name``)."""
    from dataclasses import replace
    return replace(spec, sources=[{"kind": "refs", "name": name, "refs": list(refs)}])


def load_spec(path: str | Path) -> Spec:
    """Read and validate a TOML spec file.

    Raises
    ------
    SpecError
        For a missing file, a TOML syntax error (with its line) or a rule broken (naming the
        key).
    """
    p = Path(path)
    if not p.is_file():
        raise SpecError("no such spec file", file=str(path))
    try:
        with open(p, "rb") as fh:
            raw = tomllib.load(fh)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"not valid TOML: {e}", file=str(path)) from e
    return parse_spec(raw, p)
