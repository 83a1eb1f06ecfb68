"""Tasks: one (instance, algorithm, repetition) of a spec, planned in the parent and executed
in a worker.

:func:`plan` expands a :class:`~coflowopt.experiments.spec.Spec` into :class:`Task` objects.
It builds every instance once to compute its content hash (:func:`instance_hash`) and size, so
that a task id -- a hash of the instance hash, the algorithm's identity, the repetition and the
objective -- is the same on every rerun that would compute the same thing.

:func:`execute` runs one task's payload (a plain dict, so it pickles to any process or Dask
worker): it rebuilds the instance from its recipe, checks the hash, runs the algorithm through
the registry and returns the result fields of a row.  It never raises for a failing algorithm:
the error (type, message, traceback) goes into the row.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import socket
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from ..exceptions import CoflowOptError
from .spec import (AlgorithmSpec, InstanceRef, Spec, SpecError, _accepts, instance_hash,
                   load_recipe)

__all__ = ["Task", "Plan", "plan", "execute", "InstanceCache", "InstanceHashMismatch",
           "error_fields", "FAILED_STATUSES", "warm_up", "task_id", "result_fields",
           "integral_result_fields", "completion_metrics"]

#: Statuses of rows that record a failed task rather than an algorithm's answer.  A task with
#: a row is finished whatever its status; ``--retry-failed`` runs these again.
FAILED_STATUSES = ("error", "time_limit", "crashed", "not_supported")

_TRACEBACK_CHARS = 20000


class InstanceHashMismatch(CoflowOptError, RuntimeError):
    """A worker rebuilt an instance whose content hash differs from the planned one."""


@dataclass(frozen=True)
class Task:
    """One unit of work.  ``row_fields()`` are the row columns known before it runs."""

    task_id: str
    instance: InstanceRef
    instance_hash: str
    instance_info: dict
    algorithm: AlgorithmSpec
    repetition: int
    seed: int | None
    objective: str
    hard_seconds: float
    completion_times: bool
    #: ``"fluid"`` or ``"integral"`` (the spec's model; integral rows say so)
    model: str = "fluid"

    def payload(self) -> dict[str, Any]:
        """What a worker needs (plain data: pickles anywhere)."""
        out = {"task_id": self.task_id, "recipe": self.instance.recipe,
               "instance_hash": self.instance_hash, "algorithm": self.algorithm.to_dict(),
               "repetition": self.repetition, "seed": self.seed, "objective": self.objective,
               "completion_times": self.completion_times}
        if self.model != "fluid":
            out["model"] = self.model
        return out

    def row_fields(self) -> dict[str, Any]:
        a = self.algorithm
        out = {"task_id": self.task_id, "instance_key": self.instance.key,
               "instance_group": self.instance.group, "instance_hash": self.instance_hash,
               "instance_params": self.instance.params, **self.instance_info,
               "algorithm": a.label, "algorithm_kind": a.kind,
               "params": a.identity(), "repetition": self.repetition, "seed": self.seed}
        if self.model != "fluid":
            out["model"] = self.model
        return out


@dataclass
class Plan:
    """The tasks of a spec, and what was left out and why."""

    tasks: list[Task]
    skipped: dict[str, int]
    instances: int

    @property
    def task_ids(self) -> set[str]:
        return {t.task_id for t in self.tasks}


def _instance_info(inst) -> dict[str, Any]:
    loads = np.asarray(inst.port_loads, dtype=float) / np.asarray(inst.capacity, dtype=float)
    return {"coflows": inst.num_coflows, "flows": inst.num_flows,
            "ingress_ports": inst.num_ingress, "egress_ports": inst.num_egress,
            "max_port_load": float(loads.max()) if loads.size else 0.0,
            "total_size": float(math.fsum(inst.flow_size.tolist())),
            "has_releases": bool(inst.has_releases)}


def task_id(instance_hash_: str, alg: AlgorithmSpec, repetition: int, objective: str) -> str:
    """A stable id: the same computation gets the same id on every run."""
    key = json.dumps({"instance": instance_hash_, "algorithm": alg.identity(),
                      "repetition": repetition, "objective": objective},
                     sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def plan(spec: Spec, progress: Callable[[str], Any] | None = None) -> Plan:
    """Expand a spec into tasks (instance-major, so that a worker's instance cache hits).

    Parameters
    ----------
    spec : Spec
    progress : callable, optional
        Called with each instance key as it is built (for a progress message).

    Returns
    -------
    Plan
    """
    tasks: list[Task] = []
    skipped: dict[str, int] = {}
    n = 0
    for ref in spec.instances():
        if progress is not None:
            progress(ref.key)
        try:
            inst = ref.load()
        except (CoflowOptError, TypeError, ValueError) as e:
            if ref.source_key is None:
                raise
            # a parameter value the generator refuses (num_ports = 0, a count beyond the
            # limits): the spec's, so name the spec file and the block, not a generator call
            raise SpecError(f"{ref.key}: {e}", file=spec.path, field=ref.source_key) from None
        h = instance_hash(inst)
        info = _instance_info(inst)
        n += 1
        for alg in spec.algorithms:
            why = alg.skip_reason(inst.num_coflows, inst.num_flows)
            if why is not None:
                skipped[why] = skipped.get(why, 0) + 1
                continue
            for rep in range(spec.repetitions):
                seed = spec.seed + rep if alg.randomized else None
                tasks.append(Task(task_id=task_id(h, alg, rep, spec.objective), instance=ref,
                                  instance_hash=h, instance_info=info, algorithm=alg,
                                  repetition=rep, seed=seed, objective=spec.objective,
                                  hard_seconds=spec.limits.hard_seconds(alg),
                                  completion_times=spec.completion_times,
                                  model=getattr(spec, "model", "fluid")))
    return Plan(tasks=tasks, skipped=skipped, instances=n)


# ------------------------------------------------------------------------------ execution
class InstanceCache:
    """The last few instances a worker built, keyed by recipe, with their checked hash."""

    def __init__(self, size: int = 4):
        self.size = size
        self._d: OrderedDict[str, Any] = OrderedDict()

    def get(self, recipe: Mapping[str, Any], expected_hash: str | None):
        key = json.dumps(recipe, sort_keys=True)
        if key in self._d:
            self._d.move_to_end(key)
            inst, h = self._d[key]
        else:
            inst = load_recipe(recipe)
            h = instance_hash(inst)
            self._d[key] = (inst, h)
            while len(self._d) > self.size:
                self._d.popitem(last=False)
        if expected_hash is not None and h != expected_hash:
            raise InstanceHashMismatch(
                f"rebuilt instance {recipe} has hash {h[:16]}..., the plan says "
                f"{expected_hash[:16]}...: the recipe is not reproducible here (generator "
                "changed, or the file differs)")
        return inst


def error_fields(exc: BaseException, status: str = "error") -> dict[str, Any]:
    """Row fields recording an exception (type, message, traceback)."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {"status": status, "result_kind": None, "value": None, "verified": False,
            "error": {"type": type(exc).__name__, "message": str(exc),
                      "traceback": tb[-_TRACEBACK_CHARS:]}}


def _num(x) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _resolve(name: str) -> Callable:
    import importlib
    mod, _, attr = name.partition(":")
    return getattr(importlib.import_module(mod), attr)


def _run_algorithm(inst, alg: AlgorithmSpec, seed: int | None, objective: str,
                   keep_schedule: bool = False):
    """Run one algorithm; returns a :class:`~coflowopt.results.Result`.

    A row keeps numbers, not pieces, so by default the algorithms with a windowed form
    (per-flow fairness, WSS, Varys, MADD after any ordering) hand their schedules to the
    verifier window by window as they produce them (2e8 pieces for per-flow fairness on the
    FB trace) and ``result.schedule`` is None; ``keep_schedule=True`` (a Gantt chart) holds
    it."""
    from ..api import run_schedule
    from ..registry import get_algorithm
    from ..results import schedule_result

    if alg.kind == "schedule" and alg.slotted is not None:
        # the integral model: a slotted schedule, judged by verify_slotted in
        # integral_result_fields (its fluid verifier report stays None)
        from ..results import Result
        func = get_algorithm("slotted", alg.slotted).func
        params = dict(alg.params)
        if seed is not None:
            if _accepts(func, "seed"):
                params.setdefault("seed", seed)
            elif "ordering" in params and _accepts(
                    get_algorithm("ordering", params["ordering"]).func, "seed"):
                params.setdefault("ordering_params", {"seed": seed})
        t0 = time.perf_counter()
        sched = func(inst, **params)
        return Result(value=None, kind=None, objective="weighted_completion_time",
                      status="unverified", algorithm=alg.label, params=params, schedule=sched,
                      timings={"schedule": time.perf_counter() - t0})
    if alg.kind == "schedule":
        if alg.policy is not None and ":" in alg.policy:
            func = _resolve(alg.policy)
            params = dict(alg.params)
            if seed is not None and _accepts(func, "seed"):
                params.setdefault("seed", seed)
            t0 = time.perf_counter()
            sched = func(inst, **params)
            return schedule_result(inst, sched, algorithm=alg.label, params=params,
                                   objective=objective,
                                   timings={"schedule": time.perf_counter() - t0})
        if alg.policy is not None:
            params = dict(alg.params)
            if seed is not None and _accepts(get_algorithm("policy", alg.policy).func, "seed"):
                params.setdefault("seed", seed)
            return run_schedule(inst, policy=alg.policy, policy_params=params,
                                objective=objective, keep_schedule=keep_schedule)
        op, rp = dict(alg.order_params), dict(alg.rate_params)
        if seed is not None:
            if _accepts(get_algorithm("ordering", alg.order).func, "seed"):
                op.setdefault("seed", seed)
            if _accepts(get_algorithm("rates", alg.rates).func, "seed"):
                rp.setdefault("seed", seed)
        return run_schedule(inst, alg.order, alg.rates, order_params=op, rate_params=rp,
                            objective=objective, keep_schedule=keep_schedule)
    func = get_algorithm(alg.kind, alg.method).func
    kw = dict(alg.params)
    if _accepts(func, "objective"):
        kw.setdefault("objective", objective)
    if alg.time_limit is not None:
        kw.setdefault("time_limit", alg.time_limit)
    return func(inst, **kw)


def _convert_objective(res, inst, objective: str) -> dict[str, Any]:
    """Values of ``res`` in ``objective``: the two objectives differ by ``sum_k w_k r_k``
    (a method without an ``objective`` parameter answers in ``weighted_completion_time``)."""
    out = {"value": res.value, "bound": res.bound}
    if res.objective == objective:
        return out
    const = Fraction(0)
    for w, r in zip(inst.weight.tolist(), inst.release.tolist()):
        const += Fraction(w) * Fraction(r)
    sign = -1 if objective == "weighted_cct" else 1
    for k in ("value", "bound"):
        v = out[k]
        if v is not None:
            out[k] = v + sign * (const if isinstance(v, Fraction) else float(const))
    return out


def result_fields(res, inst, objective: str, completion_times: bool) -> dict[str, Any]:
    """Row fields of a :class:`~coflowopt.results.Result`."""
    vals = _convert_objective(res, inst, objective)
    value = vals["value"] if res.kind is not None else None
    row: dict[str, Any] = {
        "value": _num(value),
        "value_exact": str(value) if isinstance(value, Fraction) else None,
        "result_kind": res.kind, "objective": objective, "status": res.status,
        "bound": _num(vals["bound"]), "gap": _num(res.gap),
        "certificate_status": res.certificate_status,
        "message": (res.message or "")[:2000],
        "timings": {k: round(float(v), 6) for k, v in (res.timings or {}).items()},
        "error": None,
    }
    rep = res.report
    row["verified"] = bool(rep is not None and rep.ok)
    if res.kind == "lower_bound":
        # a bound is "verified" when its certificate was checked
        row["verified"] = res.certificate_status == "certified"
    if completion_times and rep is not None and rep.ok:
        cc = np.asarray([float(c) for c in rep.coflow_completion])
        row["cct"] = (cc - inst.release).tolist()
        row["metrics"] = completion_metrics(inst, cc, getattr(rep, "flow_completion", None))
    return row


def _summary(x: np.ndarray) -> dict[str, float]:
    return {"mean": float(x.mean()), "p50": float(np.percentile(x, 50)),
            "p90": float(np.percentile(x, 90)), "p99": float(np.percentile(x, 99)),
            "max": float(x.max())}


def completion_metrics(inst, coflow_completion, flow_completion=None) -> dict[str, Any]:
    """Summary statistics of a verified schedule's completion times for the row's ``metrics``
    (a few numbers, never per-flow lists).

    Parameters
    ----------
    inst : Instance
    coflow_completion : array_like (K,)
        ``C_k`` as the verifier recomputes them.
    flow_completion : array_like (F,), optional
        ``C_f`` as the verifier recomputes them (``None``: no ``nfct`` entry).

    Returns
    -------
    dict
        ``slowdown``
            mean, p50, p90, p99, max over coflows of Sincronia's slowdown ``CCT_k / OCT_k``
            (:func:`coflowopt.slowdown.coflow_slowdown`; OCT = ``Instance.rho``, the coflow
            alone; Sincronia Sec. 5.1).
        ``nfct``
            the same statistics over flows of the normalised FCT
            (:func:`coflowopt.slowdown.normalized_fct`; seed 002 Sec. III-C).
        ``jain``
            Jain's index ``(sum x)^2 / (K sum x^2)`` (:func:`coflowopt.normalization
            .jain_index`) over the coflows' *normalised throughputs* ``x_k = OCT_k / CCT_k``
            (= 1 / slowdown): each coflow's average rate ``size / CCT`` over its rate alone
            ``size / OCT``, as Jain, Chiu and Hawe normalise allocations (``x_i = T_i / O_i``,
            the measured over the optimal throughput; DEC-TR-301, 1984).  1 when every coflow
            is slowed down equally.
        ``throughput``
            total data over the schedule's span ``max_k C_k - min_k r_k`` (data per time
            unit: the mean delivered rate of the whole fabric).
        ``makespan``, ``mean_cct``
            ``max_k C_k`` and the mean of ``C_k - r_k``.

    Examples
    --------
    >>> from coflowopt import Coflow, Instance
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(0, 0, 2.0)])])
    >>> m = completion_metrics(inst, [1.0, 3.0], [1.0, 3.0])
    >>> m["slowdown"]["mean"], m["nfct"]["max"], round(m["jain"], 6), m["throughput"]
    (1.25, 1.5, 0.961538, 1.0)
    """
    from ..normalization import jain_index
    from ..slowdown import coflow_slowdown, normalized_fct
    cc = np.asarray(coflow_completion, dtype=float)
    sd = np.asarray(coflow_slowdown(inst, cc), dtype=float)
    span = float(cc.max() - inst.release.min()) if cc.size else 0.0
    out: dict[str, Any] = {
        "slowdown": _summary(sd), "jain": jain_index(1.0 / sd),
        "throughput": float(math.fsum(inst.flow_size.tolist())) / span if span > 0 else None,
        "makespan": float(cc.max()), "mean_cct": float((cc - inst.release).mean())}
    if flow_completion is not None:
        fc = np.asarray(flow_completion, dtype=float)
        if fc.shape == (inst.num_flows,) and np.all(np.isfinite(fc)):
            out["nfct"] = _summary(np.asarray(normalized_fct(inst, fc), dtype=float))
    return out


def integral_result_fields(res, inst, objective: str, completion_times: bool
                           ) -> dict[str, Any]:
    """Row fields of a result of the integral matching model: its slotted schedule (a
    slotted algorithm's, or an ``integral_model`` exact method's) is judged by
    :func:`coflowopt.slotted.verify_slotted` (exact integers).  A slotted algorithm's row gets
    the verified value (kind ``feasible``); an exact method keeps its kind only if the
    schedule verifies at exactly its value (else the row is ``rejected``, kind None).  Bounds
    keep their certificate check.  Every row says ``model = "integral"``."""
    from ..results import Result
    from ..slotted import SlottedSchedule, verify_slotted
    sched = res.schedule
    if res.kind == "lower_bound" or not isinstance(sched, SlottedSchedule):
        row = result_fields(res, inst, objective, completion_times)
        row["model"] = "integral"
        return row
    rep = verify_slotted(inst, sched)
    value = rep.weighted_completion_time
    if res.kind is None and res.status == "unverified":   # a slotted algorithm
        ok = rep.ok
        res = Result(value=value if ok else None, kind="feasible" if ok else None,
                     objective="weighted_completion_time",
                     status="verified" if ok else "rejected", algorithm=res.algorithm,
                     params=res.params, schedule=sched, timings=res.timings,
                     message=rep.summary())
    else:
        ok = bool(rep.ok and res.value is not None and value == Fraction(res.value))
        if not ok and res.kind is not None:
            res = Result(value=None, kind=None, objective=res.objective, status="rejected",
                         algorithm=res.algorithm, params=res.params, schedule=sched,
                         timings=res.timings,
                         message=f"verify_slotted: {rep.summary()} (the method said "
                                 f"{res.value})")
    row = result_fields(res, inst, objective, completion_times)
    row["model"] = "integral"
    row["verified"] = bool(ok and res.kind is not None)
    if completion_times and row["verified"]:
        cc = np.asarray([float(c) for c in rep.coflow_completion])
        row["cct"] = (cc - inst.release).tolist()
        row["metrics"] = completion_metrics(inst, cc, rep.flow_completion)
    return row


def execute(payload: Mapping[str, Any], cache: InstanceCache | None = None) -> dict[str, Any]:
    """Run one task payload (see :meth:`Task.payload`); return its result fields.

    Never raises for a failing algorithm or instance: the row records the error with status
    ``"error"`` (or ``"not_supported"`` for :class:`~coflowopt.exceptions.NotSupportedError`
    and :class:`~coflowopt.exceptions.SolverNotAvailableError`).
    """
    from ..exceptions import NotSupportedError, SolverNotAvailableError
    cache = cache or InstanceCache()
    out: dict[str, Any] = {"task_id": payload["task_id"],
                           "worker": f"{socket.gethostname()}:{os.getpid()}"}
    t0 = time.perf_counter()
    try:
        inst = cache.get(payload["recipe"], payload.get("instance_hash"))
    except Exception as e:  # the instance itself failed to build: record it
        out.update(error_fields(e))
        out["load_seconds"] = time.perf_counter() - t0
        out["seconds"] = 0.0
        return out
    out["load_seconds"] = round(time.perf_counter() - t0, 6)
    alg = AlgorithmSpec.from_dict(payload["algorithm"])
    t1 = time.perf_counter()
    try:
        res = _run_algorithm(inst, alg, payload.get("seed"), payload["objective"])
        fields = (integral_result_fields if payload.get("model") == "integral"
                  else result_fields)
        out.update(fields(res, inst, payload["objective"],
                          payload.get("completion_times", True)))
    except (NotSupportedError, SolverNotAvailableError) as e:
        out.update(error_fields(e, status="not_supported"))
    except Exception as e:  # an algorithm that crashes is recorded, the sweep goes on
        out.update(error_fields(e))
    out["seconds"] = round(time.perf_counter() - t1, 6)
    out.setdefault("objective", payload["objective"])
    return out


def warm_up(algorithms: list[dict]) -> None:
    """Run every algorithm once on a one-flow instance, untimed and ignoring errors, so that
    compiled kernels (numba) are built before the first timed task."""
    from ..instance import Coflow, Instance
    tiny = Instance.from_coflows([Coflow("w", [(0, 0, 1.0)]), Coflow("v", [(0, 1, 2.0)])])
    for d in algorithms:
        alg = AlgorithmSpec.from_dict(d)
        if alg.policy is not None and ":" in alg.policy:
            continue  # user callables may be slow on purpose (tests)
        try:
            _run_algorithm(tiny, alg, 0 if alg.randomized else None,
                           "weighted_completion_time")
        except Exception:  # the real run reports failures
            pass
