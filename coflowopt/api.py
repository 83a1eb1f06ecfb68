"""High-level entry points: schedule an instance with registered algorithms and verify it."""

from __future__ import annotations

import functools
import time
from typing import Any, Mapping

from .exceptions import InvalidParameterError
from .instance import Instance
from .registry import get_algorithm, rate_aware_params
from .results import Result, report_result, schedule_result

__all__ = ["run_schedule", "algorithm_label", "has_windows", "POLICY_WINDOWS", "RATES_WINDOWS"]


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
        With False, an algorithm that has a windowed form (:data:`POLICY_WINDOWS`: per-flow
        fairness ``fair`` / ``per-flow-maxmin`` and ``wss``, about 2e8 pieces, 6 GB, on the
        Facebook trace, ``varys``, ``varys-online``, ``varys-deadline``, and the fairness
        policies ``hug``, ``hug-cooperative``, ``drf``, ``ps-p``, 6.5e7 pieces and more,
        ``aalo``, 2.8e7 pieces, and ``decentralized-las``, more than 7.7e7;
        :data:`RATES_WINDOWS`: ``madd`` after any ordering, 1e7
        pieces, and ``bvn``, 1.3e7; ``qsz`` with its BvN engine, 6.3e6) hands its schedule
        over window by window to the float verifier and never holds it: ``result.schedule``
        is None, the verdict and every number are the same (MADD, Varys and the fairness policies: a held rerun when the streamed schedule is
        rejected with a flow left unsettled, :class:`coflowopt.simulate.WindowSettler`).
        ``engine="python"`` and the other algorithms ignore it.
    stream_to : str, optional
        With ``keep_schedule=False`` and a windowed form: also write the windows, as they
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
    streamed = not keep_schedule and verify_mode == "float"
    if policy is not None and streamed and has_windows(policy, policy_params, POLICY_WINDOWS):
        return _streamed_policy(instance, policy, dict(policy_params or {}), objective,
                                stream_to)
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
        params = {"order": oalg.name, "rates": ralg.name,
                  "order_params": dict(order_params or {}),
                  "rate_params": dict(rate_params or {})}
        label = algorithm_label(oalg.name, ralg.name, None)
        if streamed and has_windows(ralg.name, rate_params, RATES_WINDOWS):
            windows, wparams = _windows(RATES_WINDOWS, ralg.name, rate_params)
            return _streamed(
                instance, lambda cb: windows(instance, sigma, cb, **wparams),
                algorithm=label, params=params, objective=objective, timings=timings,
                stream_to=stream_to, time_key="rates",
                held=lambda: ralg.func(instance, sigma, **dict(rate_params or {})))
        t0 = time.perf_counter()
        sched = ralg.func(instance, sigma, **dict(rate_params or {}))
        timings["rates"] = time.perf_counter() - t0
    return schedule_result(instance, sched, algorithm=label, params=params, objective=objective,
                           mode=verify_mode, timings=timings)


#: The rate allocations with a windowed form: name -> (module, function, keyword arguments
#: bound to it, whether it takes the rate parameters); the function is
#: ``windows(instance, order, on_window, **rate_params) -> stats`` (see :func:`_streamed`).
RATES_WINDOWS = {"madd": ("coflowopt.rates.madd", "madd_windows", {}, True),
                 "bvn": ("coflowopt.rates.bvn", "bvn_windows", {}, True)}

#: The policies with a windowed form, as :data:`RATES_WINDOWS` with
#: ``windows(instance, on_window, **policy_params) -> stats``.  Per-flow fairness and WSS
#: (:func:`~coflowopt.policies.flow_level.maxmin_windows` with their weights) take no
#: parameter but ``engine``, which only selects this path.  The fairness policies run the
#: generic simulator in its sink mode (:func:`~coflowopt.fairness.simulation.fairness_windows`).
POLICY_WINDOWS = {
    "fair": ("coflowopt.policies.flow_level", "maxmin_windows", {"weights": "unit"}, False),
    "per-flow-maxmin": ("coflowopt.policies.flow_level", "maxmin_windows",
                        {"weights": "unit"}, False),
    "wss": ("coflowopt.policies.flow_level", "maxmin_windows", {"weights": "size"}, False),
    "varys": ("coflowopt.policies.varys", "varys_windows", {}, True),
    "varys-online": ("coflowopt.policies.online_varys", "varys_online_windows", {}, True),
    "varys-deadline": ("coflowopt.policies.online_varys", "varys_deadline_windows", {}, True),
    "mlfq": ("coflowopt.policies.mlfq", "mlfq_windows", {}, True),
    "baraat": ("coflowopt.policies.mlfq", "baraat_windows", {}, True),
    "aalo": ("coflowopt.policies.aalo", "aalo_windows", {}, True),
    "decentralized-las": ("coflowopt.policies.mlfq", "decentralized_las_windows", {}, True),
    "creek": ("coflowopt.policies.mlfq", "creek_windows", {}, True),
    "qsz": ("coflowopt.formulations.lp_orderings", "qsz_windows", {}, True),
    **{name: ("coflowopt.fairness.simulation", "fairness_windows", {"method": name}, True)
       for name in ("hug", "hug-cooperative", "drf", "ps-p")}}


def _registered_name(table: dict, name: str) -> str:
    """``name`` as registered (an alias, ``dclas`` or ``dlas``, is its algorithm's name), so
    that an alias runs the same path as its name; an unknown name is left as it is (the
    registry's lookup refuses it where the algorithm is run)."""
    try:
        return get_algorithm("rates" if table is RATES_WINDOWS else "policy", name).name
    except InvalidParameterError:
        return name


def _windows(table: dict, name: str, params) -> tuple:
    """``(windows function, the parameters it is called with)`` for ``name`` in ``table``."""
    import importlib

    module, function, bound, takes_params = table[_registered_name(table, name)]
    func = functools.partial(getattr(importlib.import_module(module), function), **bound)
    return func, (dict(params or {}) if takes_params else {})


def has_windows(name: str, params, table) -> bool:
    """Whether ``name`` runs streamed: it has a windowed form in ``table``
    (:data:`POLICY_WINDOWS` or :data:`RATES_WINDOWS`) and its ``engine`` parameter is not
    ``"python"`` (the Python engines hold their schedule).

    Examples
    --------
    >>> has_windows("madd", {}, RATES_WINDOWS), has_windows("greedy", {}, RATES_WINDOWS)
    (True, False)
    >>> has_windows("varys", {"engine": "python"}, POLICY_WINDOWS)
    False
    >>> has_windows("dclas", {}, POLICY_WINDOWS)    # an alias of aalo
    True
    """
    return (_registered_name(table, name) in table
            and (params or {}).get("engine", "auto") != "python")


def _streamed_policy(instance: Instance, policy: str, policy_params: dict, objective: str,
                     stream_to: str | None) -> Result:
    """``run_schedule(..., keep_schedule=False)`` for a policy with a windowed form.

    The registered policy is looked up first, so that the windowed form refuses what the
    policy refuses: one tagged ``big_switch_only`` raises
    :class:`~coflowopt.exceptions.NotSupportedError` on an instance over resources, exactly as
    calling it would (:meth:`Instance.require_big_switch`).  ``fair``, ``per-flow-maxmin``,
    ``wss`` and the Varys policies run on resources (their kernels pick the instance's model;
    ``varys-online`` / ``varys-deadline`` hand over their held schedule as one window where
    their compiled loop does not apply)."""
    alg = get_algorithm("policy", policy)
    if "big_switch_only" in alg.tags:
        instance.require_big_switch(f"policy {alg.name!r}")
    windows, wparams = _windows(POLICY_WINDOWS, policy, policy_params)
    params = {"policy": policy, "policy_params": wparams}
    return _streamed(instance, lambda cb: windows(instance, cb, **wparams),
                     algorithm=policy, params=params, objective=objective, timings={},
                     stream_to=stream_to, held=lambda: alg.func(instance, **policy_params))


def _streamed(instance: Instance, run, *, algorithm: str, params: dict, objective: str,
              timings: dict, stream_to: str | None = None, held=None,
              time_key: str = "schedule") -> Result:
    """The streamed path of :func:`run_schedule`: ``run(on_window)`` runs a kernel in its sink
    mode, whose windows go straight to the windowed float verifier (the same rules and
    verdict as :func:`~coflowopt.verify.verify_schedule`) and, with ``stream_to``, to an
    ``.npz`` piece file as they come; the time spent verifying is reported apart.

    A windowed form that cannot settle every flow (MADD / Varys / the fairness policies: a
    flow off its size by more than :data:`~coflowopt.simulate.SETTLE_RTOL` whose pieces span
    windows; ``unsettled`` in its statistics) could be rejected where the held schedule is
    accepted: then ``held()`` (the held form) is run and verified instead, so that streaming
    never changes a verdict; ``extra["streamed"]["held_rerun"]`` says so.
    ``timings[time_key]`` is the time of the kernel without the verifier's share (``"rates"``
    after an ordering, as in the held path)."""
    from .verify import WindowedVerifier

    ver = WindowedVerifier(instance)
    writer, write_s, verify_s = None, [0.0], [0.0]
    if stream_to is not None:
        from .formats.schedule_io import NpzPieceWriter
        writer = NpzPieceWriter(stream_to, instance)

    def on_window(s, a, b):
        t = time.perf_counter()
        ver.add(a, b, s)
        verify_s[0] += time.perf_counter() - t
        if writer is not None:
            t = time.perf_counter()
            writer.add(s)
            write_s[0] += time.perf_counter() - t

    # neither keeps the window (the verifier keeps sums, the writer writes its bytes at once):
    # it may be the kernel's own buffers (WindowSink)
    on_window.borrows = True

    t0 = time.perf_counter()
    try:
        stats = run(on_window)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    elapsed = time.perf_counter() - t0
    t1 = time.perf_counter()
    rep = ver.report()
    overlapped = "window_thread_s" in stats
    # On one thread the loop's time in its sink is the settling, the verifier and the writer,
    # and the verifier is reported as that less the writing (the settling is the verifier's
    # bookkeeping).  With the windows on a second thread (fairness/simulation._WindowThread)
    # the loop's time in its sink is only its waiting, and the writing happened on the
    # worker: the difference could be negative, so "verify" is then the verifier's own time
    # on the worker, spent beside the loop (the parts then add up to more than the wall).
    verify = verify_s[0] if overlapped else stats["callback_s"] - write_s[0]
    timings = {**timings, time_key: elapsed - stats["callback_s"],
               "verify": verify + time.perf_counter() - t1}
    info = {"windows": int(stats["windows"]), "pieces": int(stats["pieces"])}
    if overlapped:
        info["overlapped"] = True
    if "unsettled" in stats:
        info.update(settled=int(stats["settled"]), unsettled=int(stats["unsettled"]))
    if not rep.ok and stats.get("unsettled", 0) > 0 and held is not None:
        del ver, rep
        if writer is not None:
            writer.abort()
            writer = None
        t0 = time.perf_counter()
        sched = held()
        timings["held_rerun"] = time.perf_counter() - t0
        if stream_to is not None:
            from .formats import write_schedule
            t = time.perf_counter()
            write_schedule(sched, instance, stream_to)
            timings["write"] = time.perf_counter() - t
            info["file"] = str(stream_to)
        res = schedule_result(instance, sched, algorithm=algorithm, params=params,
                              objective=objective, timings=timings,
                              extra={"streamed": {**info, "held_rerun": True}})
        res.schedule = None
        return res
    if writer is not None:
        t = time.perf_counter()
        writer.close()
        timings["write"] = write_s[0] + time.perf_counter() - t
        info["file"] = str(stream_to)
    return report_result(rep, algorithm=algorithm, objective=objective, timings=timings,
                         params=params, extra={"streamed": info})
