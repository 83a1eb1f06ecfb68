"""Result objects: every number says what it is.

A :class:`Result` carries a value together with

* its **kind**: ``"lower_bound"`` (with a certificate that can be checked), ``"feasible"`` (a
  schedule that passed the independent verifier) or ``"optimal"`` (both, equal within
  tolerance); ``None`` when there is no usable number (a rejected schedule, a solver failure);
* its **objective**: ``"weighted_completion_time"`` (``sum_k w_k C_k``) or ``"weighted_cct"``
  (``sum_k w_k (C_k - r_k)``);
* the **status** (why the computation stopped) and a message;
* what is needed to check it: the schedule and the verifier's report, the certificate, the best
  bound and incumbent of an exact search, the gap, solver name and version, timings.

The verifier's verdict can only *downgrade* a result: :func:`schedule_result` never reports a
schedule as ``feasible`` unless the verifier accepted it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError
from .verify import Tolerances, VerificationReport, verify_in_windows, verify_schedule

#: Float schedules with more pieces than this are verified window by window
#: (:func:`coflowopt.verify.verify_in_windows`: the same verdict, temporaries the size of a
#: window instead of about 55 bytes per piece, i.e. 1.8 GB at this size).  One-shot is faster:
#: the windows re-select their pieces from the whole schedule.
WINDOWED_VERIFY_PIECES = 1 << 25

__all__ = ["Result", "KINDS", "OBJECTIVES", "SCHEDULE_OBJECTIVES", "DEADLINE_OBJECTIVES",
           "OBJECTIVE_SENSE", "OPTIMALITY_RTOL", "within_optimality_tolerance", "relative_gap",
           "schedule_result", "report_result", "ratio"]

#: The documented optimality tolerance (proofs/completion-order-lp-exact.md, "What optimal
#: means"): a result is labelled ``optimal`` only when its verified value and its proven bound
#: differ by at most this fraction of the value.  Relative only (no absolute floor), so the label
#: does not depend on the instance's units.  A method's own looser ``rtol`` (a search that prunes
#: harder) yields ``feasible`` with the gap stated, never ``optimal``.
OPTIMALITY_RTOL = 1e-9

KINDS = ("lower_bound", "feasible", "optimal")
#: Objectives of schedules (minimised): sum_k w_k C_k and sum_k w_k (C_k - r_k).
SCHEDULE_OBJECTIVES = ("weighted_completion_time", "weighted_cct")
#: Varys' deadline objectives (maximised): how many coflows, or how much weight, meet their
#: deadlines.  For these a ``bound`` is an *upper* bound and ``gap = (bound - value) / bound``.
DEADLINE_OBJECTIVES = ("deadlines_met", "weighted_deadlines_met")
OBJECTIVES = SCHEDULE_OBJECTIVES + DEADLINE_OBJECTIVES
#: "min" or "max" for each objective.
OBJECTIVE_SENSE = {**{o: "min" for o in SCHEDULE_OBJECTIVES},
                   **{o: "max" for o in DEADLINE_OBJECTIVES}}


def relative_gap(value, bound, sense: str = "min") -> float:
    """The gap between a verified ``value`` and a proven ``bound``, relative to the value
    (``sense="min"``: ``(value - bound) / |value|``; ``"max"``: ``(bound - value) / |bound|``).

    0 when both are 0; ``inf`` when the reference is 0 and the other is not.
    """
    v, b = (value, bound) if sense == "min" else (bound, value)
    diff = v - b
    if v == 0:
        return 0.0 if diff == 0 else math.inf
    return float(diff / abs(v)) if isinstance(diff, Fraction) else float(diff) / abs(float(v))


def within_optimality_tolerance(value, bound, sense: str = "min") -> bool:
    """True when ``value`` (verified) is within :data:`OPTIMALITY_RTOL` of ``bound`` (proven).

    Compared in exact arithmetic when both are fractions (or floats, converted exactly), so the
    label never depends on rounding: ``(value - bound) <= OPTIMALITY_RTOL * |value|`` for a
    minimisation.
    """
    v, b = (Fraction(value), Fraction(bound)) if sense == "min" else \
        (Fraction(bound), Fraction(value))
    return v - b <= Fraction(OPTIMALITY_RTOL) * abs(v)


def _num(x):
    if x is None:
        return None
    if isinstance(x, Fraction):
        return float(x)
    if isinstance(x, (np.floating, float, int, np.integer)):
        x = float(x)
        return None if math.isnan(x) else x
    return x


@dataclass
class Result:
    """A number with its kind, objective, status and evidence (see the module docstring)."""

    value: Any
    kind: str | None
    objective: str
    status: str
    algorithm: str
    message: str = ""
    params: dict = field(default_factory=dict)
    schedule: Any = None
    report: VerificationReport | None = None
    bound: Any = None
    incumbent: Any = None
    certificate: Any = None
    certificate_status: str | None = None
    #: bounds: the LP backend that produced the dual (``None`` for combinatorial bounds) and
    #: where the certificate's multipliers come from ("solver duals" or "constructed")
    backend: str | None = None
    certificate_source: str | None = None
    gap: float | None = None
    solver: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind is not None and self.kind not in KINDS:
            raise InvalidParameterError(f"kind must be one of {KINDS} or None, got {self.kind!r}")
        if self.objective not in OBJECTIVES:
            raise InvalidParameterError(
                f"objective must be one of {OBJECTIVES}, got {self.objective!r}")

    @property
    def success(self) -> bool:
        return self.kind is not None

    def to_dict(self, per_coflow: bool = True) -> dict[str, Any]:
        """A JSON-ready summary (no schedule pieces; those go to a schedule file)."""
        d: dict[str, Any] = {
            "algorithm": self.algorithm,
            "value": _num(self.value),
            "kind": self.kind,
            "objective": self.objective,
            "status": self.status,
            "message": self.message,
            "params": _plain(self.params),
        }
        if isinstance(self.value, Fraction):
            d["value_exact"] = str(self.value)
        for k in ("bound", "incumbent", "gap"):
            v = getattr(self, k)
            if v is not None:
                d[k] = _num(v)
        if self.certificate_status is not None:
            d["certificate_status"] = self.certificate_status
        if self.certificate_source is not None or self.backend is not None:
            d["backend"] = self.backend
            d["certificate_source"] = self.certificate_source
        if self.solver:
            d["solver"] = _plain(self.solver)
        if self.timings:
            d["timings"] = {k: round(float(v), 6) for k, v in self.timings.items()}
        if self.report is not None:
            rep = self.report.to_dict(per_coflow=per_coflow)
            d["verification"] = {k: rep[k] for k in ("ok", "mode", "violation_counts",
                                                      "violations", "tolerances", "dilation",
                                                      "overload_time")}
            d["weighted_completion_time"] = rep["weighted_completion_time"]
            d["weighted_cct"] = rep["weighted_cct"]
            d["average_cct"] = rep["average_cct"]
            d["makespan"] = rep["makespan"]
            if per_coflow:
                d["coflow_completion"] = rep["coflow_completion"]
        if self.extra:
            d["extra"] = _plain(self.extra)
        return d


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, Fraction)):
        return float(x)
    return x


def schedule_result(instance, schedule, *, algorithm: str, params: dict | None = None,
                    objective: str = "weighted_completion_time", mode: str = "float",
                    tolerances: Tolerances | None = None, timings: dict | None = None,
                    extra: dict | None = None) -> Result:
    """Verify ``schedule`` and wrap it as a :class:`Result`.

    The kind is ``"feasible"`` exactly when the verifier accepts the schedule; otherwise the
    result has kind ``None``, status ``"rejected"`` and no value.
    """
    if objective not in SCHEDULE_OBJECTIVES:
        raise InvalidParameterError(
            f"objective must be one of {SCHEDULE_OBJECTIVES}, got {objective!r}")
    if mode == "exact" and not schedule.exact:
        # a float algorithm meets capacities and sizes up to rounding; the value certified in
        # exact mode is that of its exactly feasible snap (coflowopt.simulate.exact_schedule)
        from .simulate import exact_schedule
        schedule = exact_schedule(instance, schedule)
    t0 = time.perf_counter()
    if mode == "float" and not schedule.exact and schedule.num_pieces > WINDOWED_VERIFY_PIECES:
        rep = verify_in_windows(instance, schedule, tolerances=tolerances)
    else:
        rep = verify_schedule(instance, schedule, mode=mode, tolerances=tolerances)
    timings = dict(timings or {})
    timings["verify"] = time.perf_counter() - t0
    return report_result(rep, algorithm=algorithm, params=params, objective=objective,
                         schedule=schedule, timings=timings, extra=extra)


def report_result(report: VerificationReport, *, algorithm: str, params: dict | None = None,
                  objective: str = "weighted_completion_time", schedule=None,
                  timings: dict | None = None, extra: dict | None = None) -> Result:
    """Wrap the verifier's verdict on a schedule as a :class:`Result` (``feasible`` exactly
    when it accepts).  ``schedule`` may be None when the schedule was verified window by window
    as it was produced and never held (:func:`coflowopt.api.run_schedule`,
    ``keep_schedule=False``)."""
    if objective not in SCHEDULE_OBJECTIVES:
        raise InvalidParameterError(
            f"objective must be one of {SCHEDULE_OBJECTIVES}, got {objective!r}")
    common = dict(objective=objective, algorithm=algorithm, params=dict(params or {}),
                  schedule=schedule, report=report, timings=dict(timings or {}),
                  extra=dict(extra or {}), message=report.summary())
    if report.ok:
        return Result(value=report.objective(objective), kind="feasible", status="verified",
                      **common)
    return Result(value=None, kind=None, status="rejected", **common)


def ratio(numerator: Result, denominator: Result) -> dict[str, Any]:
    """``numerator / denominator`` with the name of its base, e.g. ``"ALG/OPT"``.

    The base is named from the denominator's kind: ``OPT`` for ``optimal``, ``LB`` for
    ``lower_bound``, ``ALG`` for ``feasible``.
    """
    if numerator.objective != denominator.objective:
        raise InvalidParameterError("cannot divide results with different objectives "
                                    f"({numerator.objective} / {denominator.objective})")
    base = {"optimal": "OPT", "lower_bound": "LB", "feasible": "ALG"}.get(denominator.kind)
    if base is None or numerator.kind is None:
        return {"ratio": None, "base": base, "objective": numerator.objective}
    num, den = float(numerator.value), float(denominator.value)
    return {"ratio": num / den if den > 0 else (1.0 if num == 0 else math.inf),
            "base": base, "name": f"{numerator.algorithm}/{base}",
            "objective": numerator.objective}
