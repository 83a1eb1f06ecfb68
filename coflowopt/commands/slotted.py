"""``coflowopt slotted INSTANCE``: schedule in the integral matching model with a slotted
algorithm, verify in exact integers, optionally write the slotted schedule.

The integral model (:mod:`coflowopt.slotted`): time in slots of length ``--slot``, whole units,
every resource carries at most ``capacity x slot`` units per slot (unit capacities on a big
switch: one matching per slot), a coflow may use a slot only if it starts at or after its
release.  ``--policy`` names a registered slotted algorithm (``coflowopt algorithms --kind
slotted``; the ``slotted-`` prefix may be left out): ``order`` (a greedy maximal matching per
slot in a coflow order, ``--order NAME`` any registered ordering, default ``bssi``), ``ocf``,
``srjf`` (``--param job=coflow`` ranks by the coflow's remaining units), ``mmf``
(:mod:`coflowopt.slotted_greedy`).  The schedule is judged by
:func:`coflowopt.slotted.verify_slotted` (exact integers, independent of the algorithms); the
value reported is the verifier's, with ``kind`` ``feasible`` and ``model`` ``integral``.
``-o`` writes it as a ``coflowopt-slotted-schedule`` (``.json`` one slot per line, ``.npz``
columnar), which ``coflowopt verify`` reads.

Sizes and ``capacity x slot`` must be whole numbers (otherwise exit 2 naming the first value
that is not).  Exit code 0 for a verified schedule, 1 if the verifier rejects it (a bug worth
reporting), 2 for bad usage or input (see :mod:`coflowopt.cli`).
"""

from __future__ import annotations

import time
from typing import Any

#: Keys of ``--param`` that have their own flag.
_OWN_FLAGS = {"ordering": "--order", "ordering_params": "--order-param",
              "order": "--order", "slot": "--slot"}


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "slotted",
                            "schedule in the integral matching model (time slotted, whole "
                            "units per slot and resource) with a slotted algorithm, verified "
                            "in exact integers")
    sp.add_argument("instance", help="the instance file")
    sp.add_argument("--policy", default="order", metavar="NAME",
                    help="slotted algorithm (coflowopt algorithms --kind slotted): order "
                         "(default; greedy maximal matching per slot in --order's coflow "
                         "order), ocf, srjf, mmf")
    sp.add_argument("--order", default=None, metavar="NAME",
                    help="with --policy order: the ordering (coflowopt algorithms --kind "
                         "ordering; default bssi)")
    sp.add_argument("--order-param", action="append", metavar="KEY=VALUE",
                    help="ordering parameter (repeatable), e.g. seed=3 for random")
    sp.add_argument("--param", "-p", action=common.KeyValues, metavar="KEY=VALUE",
                    help="slotted algorithm parameter (repeatable), e.g. job=coflow (srjf)")
    sp.add_argument("--slot", type=common.positive_number, default=1.0, metavar="LENGTH",
                    help="slot length (default 1); capacity x slot must be whole")
    sp.add_argument("--objective", default="weighted_completion_time",
                    help="weighted_completion_time (sum w C, default) or weighted_cct "
                         "(sum w (C - r))",
                    choices=["weighted_completion_time", "weighted_cct"])
    sp.add_argument("--out", "-o", type=common.output_file,
                    help="write the slotted schedule (.json slots or .npz "
                                        "entries)")
    common.add_instance_options(sp)
    sp.set_defaults(handler=lambda args: run(args, common))


def run(args, common) -> int:
    from ..exceptions import InvalidParameterError, NotSupportedError
    from ..registry import rate_aware_params
    from ..slotted import integral_capacities, verify_slotted

    alg = common.lookup("slotted", args.policy, "--policy")
    flag = common.param_flag(args, "param", "--param")
    params = common.parse_params(args.param, flag)
    order_params = common.parse_params(args.order_param, "--order-param")
    for k in params:
        if k in _OWN_FLAGS:
            raise common.UsageError(f"{flag} {k}: set it with {_OWN_FLAGS[k]}")
    common.check_params(alg.func, params, flag, f"slotted algorithm {alg.name}",
                        reserved=tuple(_OWN_FLAGS))
    takes_order = "ordering" in _signature(alg.func)
    oalg = None
    if takes_order:
        oalg = common.lookup("ordering", "bssi" if args.order is None else args.order,
                             "--order")
        common.check_params(oalg.func, order_params, "--order-param", f"ordering {oalg.name}")
        params["ordering"] = oalg.name
        if order_params:
            params["ordering_params"] = order_params
    elif args.order is not None or args.order_param:
        given = "--order" if args.order is not None else "--order-param"
        raise common.UsageError(f"{given}: applies to --policy order (a coflow order), not "
                                f"--policy {args.policy}")
    common.check_schedule_file("--out", args.out, slotted=True)
    params["slot"] = args.slot
    inst = common.load_instance(args)
    if oalg is not None:
        common.refuse_big_switch_only(oalg, inst, "--order", common.instance_words(args))
    try:  # before scheduling: the instance must be in the integral model
        integral_capacities(inst, args.slot)
    except NotSupportedError as e:
        raise NotSupportedError(f"{common.instance_words(args)} (--slot {args.slot:g}): {e}"
                                ) from None
    t0 = time.perf_counter()
    try:
        sched = alg.func(inst, **params)
    except InvalidParameterError as e:
        # a value the algorithm (or the ordering it runs) refused: the flags that carried it
        given = [f for f, v in ((flag, params_without_own(params)),
                                ("--order-param", order_params)) if v]
        if not given:
            raise
        raise common.blame(" / ".join(given), {**params_without_own(params), **order_params},
                           f"slotted algorithm {alg.name}", e) from None
    timings = {"schedule": time.perf_counter() - t0}
    t0 = time.perf_counter()
    rep = verify_slotted(inst, sched)
    timings["verify"] = time.perf_counter() - t0
    if args.out:
        from ..formats import write_slotted_schedule
        t0 = time.perf_counter()
        with common.writing("--out", args.out):
            write_slotted_schedule(sched, inst, args.out)
        timings["write"] = time.perf_counter() - t0
    value = rep.objective(args.objective) if rep.ok else None
    ver = rep.to_dict(per_coflow=True)
    shown_params = {k: v for k, v in params.items() if k not in ("ordering",
                                                                  "ordering_params")}
    payload: dict[str, Any] = {
        "instance": args.instance, "model": "integral", "algorithm": alg.name,
        "kind": "feasible" if rep.ok else None, "status": "ok" if rep.ok else "rejected",
        "objective": args.objective, "value": None if value is None else float(value),
        "value_exact": None if value is None else str(value),
        "slot": float(sched.slot), "params": shown_params,
        "ordering": sched.meta.get("ordering"), "ordering_params": order_params or None,
        "order": sched.meta.get("order"),
        "weighted_completion_time": ver["weighted_completion_time"],
        "weighted_cct": ver["weighted_cct"], "makespan": ver["makespan"],
        "num_slots": rep.num_slots, "num_entries": sched.num_entries,
        "coflow_completion": ver["coflow_completion"], "coflow_ids": list(inst.coflow_ids),
        "verification": {k: ver[k] for k in ("ok", "model", "mode", "violation_counts",
                                             "violations", "exact")},
        "timings": {k: round(float(v), 6) for k, v in timings.items()},
    }
    if args.out:
        payload["schedule_file"] = args.out
    common.emit(args, payload, _text(args, inst, alg, sched, rep, value, timings))
    return common.EXIT_OK if rep.ok else common.EXIT_REJECTED


def params_without_own(params: dict) -> dict:
    """The ``--param`` keys (those the command set from its own flags left out)."""
    return {k: v for k, v in params.items() if k not in _OWN_FLAGS}


def _signature(func) -> set[str]:
    import inspect
    return set(inspect.signature(func).parameters)


def _text(args, inst, alg, sched, rep, value, timings) -> str:
    what = alg.name + (f" in {sched.meta['ordering']} order" if sched.meta.get("ordering")
                       else "")
    lines = [f"{args.instance}: {inst.num_coflows} coflows, {inst.num_flows} flows; {what} "
             f"(integral model, slot {sched.slot:g})"]
    if rep.ok:
        lines.append(f"  {args.objective} = {value}  [feasible, verified in exact integers]")
        cc = rep.coflow_completion
        shown = ", ".join(f"{cid}={c}" for cid, c in list(zip(inst.coflow_ids, cc))[:20])
        lines.append(f"  weighted CCT {rep.weighted_cct}; makespan {rep.makespan}; "
                     f"{rep.num_slots} slots, {sched.num_entries} entries")
        lines.append(f"  completion times {shown}" + (" ..." if len(cc) > 20 else ""))
    else:
        lines.append(f"  {rep.summary()}")
        lines += [f"  {kind}: {msg}" for kind, msg in rep.violations[:20]]
    lines.append("  time: " + ", ".join(f"{k} {v:.3f}s" for k, v in timings.items()))
    if args.out:
        lines.append(f"  wrote {args.out}")
    return "\n".join(lines)
