"""High-level entry points: schedule an instance with registered algorithms and verify it."""

from __future__ import annotations

import time
from typing import Any, Mapping

from .exceptions import InvalidParameterError
from .instance import Instance
from .registry import get_algorithm, rate_aware_params
from .results import Result, report_result, schedule_result

__all__ = ["run_schedule", "algorithm_label"]


def algorithm_label(order: str | None, rates: str | None, policy: str | None) -> str:
    """``"order+rates"`` or the policy name."""
    if policy is not None:
        return policy
    return f"{order}+{rates}"


def run_schedule(instance: Instance, order: str | None = "fifo", rates: str | None = "greedy",
                 *, policy: str | None = None, order_params: Mapping[str, Any] | None = None,
                 rate_params: Mapping[str, Any] | None = None,
                 policy_params: Mapping[str, Any] | None = None,
                 objective: str = "weighted_completion_time",
                 verify_mode: str = "float", keep_schedule: bool = True,
                 stream_to: str | None = None) -> Result:
    """Schedule ``instance`` with an ordering plus a rate allocation, or a whole policy, then
    verify the schedule independently.

    Parameters
    ----------
    instance : Instance
    order, rates : str
        Registered ordering and rate-allocation names (``coflowopt algorithms`` lists them).
    policy : str, optional
        A registered whole policy instead of ``order`` + ``rates``.
    order_params, rate_params, policy_params : mapping, optional
        Keyword arguments for each function.
    objective : {"weighted_completion_time", "weighted_cct"}
    verify_mode : {"float", "exact"}
    keep_schedule : bool, default True
        With False, a policy that has a windowed form (per-flow fairness ``fair`` and ``wss``:
        about 2e8 pieces, 6 GB, on the Facebook trace) hands its schedule over window by window
        to the float verifier and never holds it: ``result.schedule`` is None, the verdict and
        every number are the same.  Other algorithms ignore it.
    stream_to : str, optional
        With ``keep_schedule=False`` and a windowed policy: also write the windows, as they
        come, to this ``.npz`` piece file (:class:`~coflowopt.formats.schedule_io.
        NpzPieceWriter`; memory of one window).  Ignored otherwise.

    Returns
    -------
    Result
        Kind ``"feasible"`` when the verifier accepts the schedule (``result.report`` holds the
        verdict, ``result.schedule`` the pieces); kind ``None`` and status ``"rejected"``
        otherwise.

    Raises
    ------
    InvalidParameterError
        For an unknown algorithm name (the message lists the valid ones).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)]), Coflow("B", [(0, 0, 2)])])
    >>> res = run_schedule(inst, "fifo", "greedy")
    >>> res.kind, res.value
    ('feasible', 4.0)
    """
    timings: dict[str, float] = {}
    params: dict[str, Any] = {}
    if policy is not None and not keep_schedule and verify_mode == "float":
        from .policies.flow_level import WINDOWED_POLICIES
        if policy in WINDOWED_POLICIES and \
                (policy_params or {}).get("engine", "auto") != "python":
            return _streamed_result(instance, policy, objective, stream_to)
    if policy is not None:
        alg = get_algorithm("policy", policy)
        t0 = time.perf_counter()
        sched = alg.func(instance, **dict(policy_params or {}))
        timings["schedule"] = time.perf_counter() - t0
        params = {"policy": policy, "policy_params": dict(policy_params or {})}
        label = policy
    else:
        if order is None or rates is None:
            raise InvalidParameterError("give both order= and rates=, or policy=")
        oalg = get_algorithm("ordering", order)
        ralg = get_algorithm("rates", rates)
        t0 = time.perf_counter()
        sigma = oalg.func(instance, **rate_aware_params(oalg, order_params, ralg, rate_params))
        timings["order"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        sched = ralg.func(instance, sigma, **dict(rate_params or {}))
        timings["rates"] = time.perf_counter() - t0
        params = {"order": oalg.name, "rates": ralg.name,
                  "order_params": dict(order_params or {}),
                  "rate_params": dict(rate_params or {})}
        label = algorithm_label(oalg.name, ralg.name, None)
    return schedule_result(instance, sched, algorithm=label, params=params, objective=objective,
                           mode=verify_mode, timings=timings)


def _streamed_result(instance: Instance, policy: str, objective: str,
                     stream_to: str | None = None) -> Result:
    """``run_schedule(..., keep_schedule=False)`` for a policy with a windowed form: the kernel's
    windows go straight to the windowed float verifier (the same rules and verdict as
    :func:`~coflowopt.verify.verify_schedule`); the time spent verifying is reported apart.

    The registered policy is looked up first, so that the windowed form refuses what the
    policy refuses: one tagged ``big_switch_only`` raises
    :class:`~coflowopt.exceptions.NotSupportedError` on an instance over resources, exactly as
    calling it would (:meth:`Instance.require_big_switch`).  ``fair``, ``per-flow-maxmin`` and
    ``wss`` run on resources: :func:`~coflowopt.policies.flow_level.maxmin_windows` picks the
    kernel of the instance's model (pairs of ports, or distinct paths)."""
    from .policies.flow_level import WINDOWED_POLICIES, maxmin_windows
    from .verify import WindowedVerifier

    alg = get_algorithm("policy", policy)
    if "big_switch_only" in alg.tags:
        instance.require_big_switch(f"policy {alg.name!r}")
    ver = WindowedVerifier(instance)
    writer, write_s = None, [0.0]
    if stream_to is not None:
        from .formats.schedule_io import NpzPieceWriter
        writer = NpzPieceWriter(stream_to, instance)

    def on_window(s, a, b):
        ver.add(a, b, s)
        if writer is not None:
            t = time.perf_counter()
            writer.add(s)
            write_s[0] += time.perf_counter() - t

    t0 = time.perf_counter()
    try:
        stats = maxmin_windows(instance, on_window, weights=WINDOWED_POLICIES[policy])
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    elapsed = time.perf_counter() - t0
    t1 = time.perf_counter()
    rep = ver.report()
    timings = {"schedule": elapsed - stats["callback_s"],
               "verify": stats["callback_s"] - write_s[0] + time.perf_counter() - t1}
    if writer is not None:
        t = time.perf_counter()
        writer.close()
        timings["write"] = write_s[0] + time.perf_counter() - t
    return report_result(rep, algorithm=policy, objective=objective, timings=timings,
                         params={"policy": policy, "policy_params": {}},
                         extra={"streamed": {"windows": int(stats["windows"]),
                                             "pieces": int(stats["pieces"]),
                                             **({"file": str(stream_to)} if stream_to else {})}})
