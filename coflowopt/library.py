"""The instance library: the papers' worked examples, with provenance and verified claims.

The library is the folder ``instances/`` at the repository root (see its README for the layout
and the provenance schema); wheels carry a copy as ``coflowopt/_instances``.  An entry is named
by its path below that folder without ``.json``, e.g. ``"papers/dissertation-fig5.1"``, and
consists of

* ``<name>.json``: the instance (coflowopt-instance JSON),
* ``<name>.provenance.json``: where it comes from, what was printed, and which claims
  coflowopt has verified,
* ``<name>.<claim>.schedule.json``: a hand-built schedule for each verified claim
  (coflowopt-schedule JSON, segment form; read with :mod:`coflowopt.formats.schedule_io`).

Examples
--------
>>> "papers/dissertation-fig5.1" in list_instances()
True
>>> load_instance("papers/dissertation-fig5.1").num_coflows
2
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

from .exceptions import InvalidParameterError
from .formats.instance_json import read_instance_json
from .formats.schedule_io import read_schedule_json
from .instance import Instance
from .schedule import Schedule

__all__ = ["library_dir", "list_instances", "load_instance", "load_provenance",
           "load_schedule", "schedule_metrics", "agrees_with_printed", "default_instances",
           "METRICS", "PROVENANCE_FORMAT"]

PROVENANCE_FORMAT = "coflowopt-provenance"

#: The objectives a provenance claim may record, computed by :func:`schedule_metrics`.
METRICS = {
    "total_completion_time": "sum_k C_k",
    "weighted_completion_time": "sum_k w_k C_k",
    "average_cct": "mean over coflows of C_k - r_k (the papers' average CCT)",
    "weighted_cct": "sum_k w_k (C_k - r_k)",
    "average_fct": "mean over flows of (flow completion - release of its coflow)",
    "makespan": "end of the last piece",
    "coflow_completion": "list of C_k in instance order",
}

#: Files beside the instances that are not instances: provenance, stored schedules and
#: CoflowLib's order documents (``<id>.best.order.json``: an order and a rate allocation that
#: ``coflowopt lib check`` rebuilds into the best schedule).
#: CoflowLib's integral-model families keep a slotted schedule (``<id>.best.slotted.json``).
_SUFFIXES = (".provenance.json", ".schedule.json", ".order.json", ".slotted.json")


def library_dir() -> Path:
    """The folder that holds the library.

    ``<repo>/instances`` for a source checkout or editable install, else the copy packaged in
    wheels as ``coflowopt/_instances``.

    Raises
    ------
    FileNotFoundError
        If neither exists.
    """
    here = Path(__file__).resolve()
    for candidate in (here.parents[1] / "instances", here.parent / "_instances"):
        if (candidate / "papers").is_dir():
            return candidate
    raise FileNotFoundError(
        f"the coflowopt instance library is missing: looked for {here.parents[1] / 'instances'}"
        f" and {here.parent / '_instances'}")


def list_instances() -> list[str]:
    """Names of every instance in the library, sorted (e.g. ``"papers/sincronia-fig1"``)."""
    base = library_dir()
    return sorted(p.relative_to(base).with_suffix("").as_posix() for p in base.rglob("*.json")
                  if not p.name.endswith(_SUFFIXES))


def _path(name: str, suffix: str) -> Path:
    names = list_instances()
    if name not in names:
        raise InvalidParameterError(
            f"unknown library instance {name!r}; valid names: {', '.join(names)}")
    return library_dir() / f"{name}{suffix}"


def load_instance(name: str) -> Instance:
    """Read a library instance.

    ``meta`` gets ``library_name`` so that results can say which entry they ran on.

    Raises
    ------
    InvalidParameterError
        For an unknown name (the message lists the valid ones).
    """
    inst = read_instance_json(_path(name, ".json"))
    return inst.replace(meta={**inst.meta, "library_name": name})


def load_provenance(name: str) -> dict[str, Any]:
    """The provenance record of a library instance (schema: ``instances/README.md``).

    Raises
    ------
    InvalidParameterError
        For an unknown name.
    """
    with open(_path(name, ".provenance.json"), encoding="utf-8") as fh:
        return json.load(fh)


def load_schedule(name: str, claim: str, *, exact: bool = False) -> Schedule:
    """The stored schedule of one claim of a library entry.

    Parameters
    ----------
    name : str
        Library name.
    claim : str
        The claim's ``id`` in the provenance record.
    exact : bool
        Return Fractions (every JSON number converted exactly, ``"p/q"`` strings kept
        rational) instead of floats (``"p/q"`` strings rounded to the nearest float).

    Raises
    ------
    InvalidParameterError
        For an unknown name or a claim without a stored schedule.
    InvalidScheduleError
        For a malformed schedule file (see :mod:`coflowopt.formats.schedule_io`).
    """
    prov = load_provenance(name)
    files = {c["id"]: c.get("schedule") for c in prov["claims"]}
    if not files.get(claim):
        with_schedule = [c for c, f in files.items() if f]
        raise InvalidParameterError(
            f"{name}: no stored schedule for claim {claim!r}; claims with a schedule: "
            f"{', '.join(with_schedule) or '(none)'}")
    path = _path(name, ".json").parent / files[claim]
    return read_schedule_json(path, load_instance(name), exact=exact)


def schedule_metrics(instance: Instance, report) -> dict[str, Any]:
    """The :data:`METRICS` of a verified schedule, as JSON values.

    Float-mode reports give numbers (integral values as ints); exact-mode reports give
    strings of Fractions (``"17/5"``), so that equality is exact in both.

    Parameters
    ----------
    instance : Instance
    report : VerificationReport
        From :func:`coflowopt.verify.verify_schedule` on ``instance``; must be ``ok``.

    Raises
    ------
    InvalidParameterError
        If the report rejected the schedule.
    """
    if not report.ok:
        raise InvalidParameterError(f"the schedule was rejected: {report.violation_counts}")
    exact = report.mode == "exact"
    # Releases as the verifier sees them: exact Fractions of the float64 values in exact mode.
    release = [Fraction(float(r)) if exact else float(r) for r in instance.release]
    cc = list(report.coflow_completion)
    fc = list(report.flow_completion)
    cct = [c - r for c, r in zip(cc, release)]
    fct = [c - release[k] for c, k in zip(fc, instance.flow_coflow.tolist())]
    total = (lambda xs: sum(xs, Fraction(0))) if exact else math.fsum
    values = {"average_cct": total(cct) / len(cct), "average_fct": total(fct) / len(fct),
              "total_completion_time": report.total_completion_time,
              "weighted_completion_time": report.weighted_completion_time,
              "weighted_cct": report.weighted_cct, "makespan": report.makespan}

    def out(x):
        if exact:
            return str(Fraction(x))
        x = float(x)
        return int(x) if x.is_integer() else x

    result = {k: out(values[k]) for k in METRICS if k != "coflow_completion"}
    result["coflow_completion"] = [out(c) for c in cc]
    return result


def agrees_with_printed(printed: str, value) -> bool:
    """Whether a value as printed in a paper agrees with an exact one.

    An integer must be equal; a decimal must be the value rounded to the printed number of
    decimals (``"3.67"`` agrees with ``11/3``, ``"12.05"`` with the float sum
    ``12.049999999999999``).  A trailing ``%`` is ignored.

    Parameters
    ----------
    printed : str
        The value exactly as printed, e.g. ``"5.33"``.
    value : str, int, float or Fraction
        The verified value (``"16/3"`` strings as recorded in provenance files are accepted).

    Examples
    --------
    >>> agrees_with_printed("5.33", "16/3"), agrees_with_printed("4", 4.5)
    (True, False)
    """
    text = printed.rstrip("%")
    x = Fraction(value)
    if "." not in text:
        return Fraction(text) == x
    decimals = len(text.split(".")[1])
    return abs(Fraction(text) - x) <= Fraction(1, 2 * 10 ** decimals)


def default_instances() -> dict[str, Instance]:
    """The small set ``coflowopt demo`` runs: paper examples plus two seeded random ones.

    Returns
    -------
    dict
        Name -> instance, in a fixed order.  Library entries keep their library names; the
        generated ones are named ``"random/uniform-4x4-6-seed0"`` and
        ``"random/uniform-4x4-6-releases-seed1"`` (not files: generated on the fly).
    """
    from .generators import uniform_random

    names = ["papers/dissertation-fig5.1", "papers/dissertation-fig3.2",
             "papers/sincronia-fig1", "papers/sincronia-t-s4", "papers/dissertation-fig6.1"]
    out = {n: load_instance(n) for n in names}
    out["random/uniform-4x4-6-seed0"] = uniform_random(4, 6, seed=0)
    out["random/uniform-4x4-6-releases-seed1"] = uniform_random(4, 6, releases=(0, 5), seed=1)
    return out
