"""``coflowopt exact INSTANCE``: the proven optimum of a small instance.

Methods (``coflowopt algorithms --kind exact``): ``bnb`` (default; branch and bound over
completion orders with the completion-order LP, exact for the fluid model), ``enumerate-orders``
(the same LP for every order: tiny instances), ``slotted-mip`` (the time-indexed MIP of the
slotted model: an upper bound on the fluid optimum), ``deadline-mip`` (the most coflows meeting
their deadlines).  Prints the value (and its exact fraction), the kind (``optimal`` only with a
verified schedule and a closed proof), the solver status, the bound, the gap, the search
counters and the timings; ``--out`` writes the schedule.

``--model integral`` asks for the optimum of the *integral matching model* (time slotted,
whole units per slot and resource; :mod:`coflowopt.slotted`) instead of the fluid one: the
method is ``integral-mip`` (the only one of that model; a fluid method named with ``--method``
is refused, as ``--method integral-mip`` is without ``--model integral``), the schedule is
verified by the integral verifier in exact integers (``--float`` is refused) and ``--out``
writes a slotted schedule (``.json`` or ``.npz``).  Sizes and ``capacity x slot`` must be whole
numbers (otherwise exit 2 with the first offender).

Exit code 0 when a verified schedule was produced (``optimal`` or ``feasible``) or the time
limit stopped the method (status ``time_limit``, with the incumbent and bound if any); 1 only
when the problem is proven infeasible or the schedule was rejected by the verifier; 4 when the
solver failed without a result (see :mod:`coflowopt.cli`).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

#: Method names accepted by ``--method`` (aliases of the registry's exact entries), by model.
FLUID_METHODS = ("bnb", "enumerate-orders", "slotted-mip", "deadline-mip")
INTEGRAL_METHODS = ("integral-mip",)
METHODS = FLUID_METHODS + INTEGRAL_METHODS
#: ``--model`` -> (its methods, the default method).
MODELS = {"fluid": (FLUID_METHODS, "bnb"), "integral": (INTEGRAL_METHODS, "integral-mip")}


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "exact",
                            "proven optimum of a small instance (branch and bound over "
                            "completion orders, slotted MIP, deadline MIP)")
    sp.add_argument("instance", help="the instance file")
    sp.add_argument("--method", default=None, choices=METHODS,
                    help="exact method (default: bnb; integral-mip with --model integral)")
    sp.add_argument("--model", default="fluid", choices=tuple(MODELS),
                    help="fluid (default: rates are fluid) or integral (the integral matching "
                         "model: time slotted, whole units per slot and resource)")
    sp.add_argument("--time-limit", type=common.seconds, default=60.0, metavar="S",
                    help="seconds (default 60); on the limit the best schedule and the proven "
                         "bound are reported, never 'optimal'")
    sp.add_argument("--param", "-p", action=common.KeyValues, metavar="KEY=VALUE",
                    help="method parameter, e.g. rtol=1e-9, delta=0.5 (slotted-mip), "
                         "objective=weight (deadline-mip), slot=2 (integral-mip); bnb's "
                         "sub-instance bound and LNS are on by default (sub_max=14, "
                         "lns=true): sub_max=0 lns=false without them")
    sp.add_argument("--solver-log", action="store_true",
                    help="HiGHS's log on standard error (never on standard output)")
    sp.add_argument("--float", dest="float_verify", action="store_true",
                    help="verify in float mode (default: exact rational arithmetic where the "
                         "method supports it)")
    sp.add_argument("--out", "-o", type=common.output_file,
                    help="write the schedule (.json segments, exact fractions "
                                        "kept; or .npz pieces)")
    sp.add_argument("--certificate", metavar="FILE.json", type=common.output_file,
                    help="bnb only: write the certificate of the proved optimum (the exact "
                         "schedule and every closed node with its bound), checkable by "
                         "tools/check_certificate.py INSTANCE.json FILE.json; refused (exit 1, "
                         "nothing written) when the optimum is not proved exactly")
    common.add_instance_options(sp)
    sp.set_defaults(handler=lambda args: run(args, common))


def _num(x) -> Any:
    if x is None:
        return None
    if isinstance(x, Fraction):
        return str(x) if x.denominator != 1 else int(x.numerator)
    return x


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, Fraction):
        f = float(x)
        return f"{f:.12g}" + (f" (= {x})" if len(str(x)) <= 40 and x.denominator != 1 else "")
    if isinstance(x, float):
        return f"{x:.12g}"
    return str(x)


def run(args, common) -> int:
    from ..exceptions import InvalidParameterError
    from ..formats import write_schedule
    from ..registry import get_algorithm

    flag = common.param_flag(args, "param", "--param")
    params = common.parse_params(args.param, flag)
    methods, default = MODELS[args.model]
    if args.method is None:
        args.method = default
    elif args.method not in methods:
        other = next(m for m, (ms, _) in MODELS.items() if args.method in ms)
        raise common.UsageError(
            f"--method {args.method}: an exact method of the {other} model, and --model is "
            f"{args.model} (its methods: {', '.join(methods)})"
            + ("; add --model integral" if other == "integral" else ""))
    integral = args.model == "integral"
    common.check_schedule_file("--out", args.out, slotted=integral)
    if integral and args.float_verify:
        raise common.UsageError("--float: the integral model is verified in exact integers "
                                "(--model integral); drop --float")
    alg = get_algorithm("exact", args.method)
    if args.certificate is not None:
        if not args.certificate.lower().endswith(".json"):
            raise common.UsageError(f"--certificate {args.certificate}: the file must end in "
                                    ".json")
        if args.method != "bnb" or args.float_verify:
            raise common.UsageError("--certificate: certificates of optima come from --method "
                                    "bnb with exact verification (drop --float)")
        if "certificate_nodes" in params:
            raise common.UsageError(f"{flag} certificate_nodes: set it with --certificate")
    for k, owner in (("time_limit", "--time-limit"), ("verify_mode", "--float")):
        if k in params:
            raise common.UsageError(f"{flag} {k}: set it with {owner}")
    common.check_params(alg.func, params, flag, f"exact method {alg.name}")
    inst = common.load_instance(args)
    common.refuse_big_switch_only(alg, inst, "--method", common.instance_words(args))
    if args.method not in ("slotted-mip",) + INTEGRAL_METHODS:
        params.setdefault("verify_mode", "float" if args.float_verify else "exact")
    params["time_limit"] = args.time_limit  # every exact method honours it
    if args.certificate is not None:
        params["certificate_nodes"] = True
    try:
        res = alg.func(inst, **params)
    except (InvalidParameterError, TypeError) as e:
        # a value the method refused (wrong type or range): the user's --param, or the
        # --time-limit the command passes on (it is in params; blame names the key it finds)
        user = {k: v for k, v in params.items() if k != "verify_mode"}
        raise common.blame(flag, user, f"exact method {alg.name}", e,
                           rename={"time_limit": "--time-limit"}) from None
    if args.out and res.schedule is not None:
        t0 = time.perf_counter()
        with common.writing("--out", args.out):
            if integral:
                from ..formats import write_slotted_schedule
                write_slotted_schedule(res.schedule, inst, args.out)
            else:
                sched = res.schedule if args.out.endswith(".json") else res.schedule.to_float()
                write_schedule(sched, inst, args.out)
        res.timings["write"] = time.perf_counter() - t0
    payload = res.to_dict(per_coflow=True)
    payload.update({"instance": args.instance, "method": args.method, "model": args.model,
                    "coflow_ids": list(inst.coflow_ids)})
    if integral and "integral_verification" in res.extra:
        ver = res.extra["integral_verification"]
        payload["verification"] = {k: ver[k] for k in ("ok", "model", "mode",
                                                       "violation_counts", "violations")}
        for k in ("weighted_completion_time", "weighted_cct", "makespan",
                  "coflow_completion"):
            payload[k] = ver.get(k)
    for k in ("bound", "incumbent"):
        v = getattr(res, k)
        if isinstance(v, Fraction):
            payload[f"{k}_exact"] = str(v)
    if res.certificate is not None:
        cert = dict(res.certificate)
        payload["certificate"] = cert
    if res.certificate_status is not None:
        payload["certificate_status"] = res.certificate_status
    if args.out and res.schedule is not None:
        payload["schedule_file"] = args.out
    payload.get("extra", {}).pop("closed_nodes", None)
    payload.get("extra", {}).pop("dp_values", None)     # what the certificate file reads
    refused = _write_certificate(args, inst, res, payload) if args.certificate else None
    emit_text = _text(args, res, inst)
    if args.certificate:
        emit_text += ("\n  certificate NOT written: " + refused if refused else
                      f"\n  wrote {args.certificate} (check: python tools/check_certificate.py "
                      "INSTANCE.json FILE)")
    common.emit(args, payload, emit_text)
    return common.EXIT_REJECTED if refused else exit_code(res, common)


def _write_certificate(args, inst, res, payload) -> str | None:
    """Write ``--certificate`` (coflowopt.certificate_files.optimum_certificate); the reason
    when none can be written (then no file is written)."""
    import json

    from ..certificate_files import optimum_certificate
    from ..exceptions import InvalidParameterError
    t0 = time.perf_counter()
    try:
        cert = optimum_certificate(inst, res)
    except InvalidParameterError as e:
        payload["certificate_file_refused"] = str(e)
        return str(e)
    with open(args.certificate, "w", encoding="utf-8") as fh:
        json.dump(cert, fh)
    res.timings["certificate"] = time.perf_counter() - t0
    payload["certificate_file"] = args.certificate
    payload["certificate_nodes"] = len(cert["proof"]["nodes"])
    return None


def exit_code(res, common) -> int:
    """0 for a result (optimal, feasible, or a time limit with or without an incumbent: the
    status says which); 1 only for a proven infeasible problem or a rejected schedule."""
    if res.kind is not None or res.status in ("time_limit", "node_limit", "interrupted"):
        return common.EXIT_OK
    if res.status in ("infeasible", "rejected", "no_incumbent"):
        # proven infeasible, the verifier rejected the schedule, or a complete search found
        # no schedule the verifier accepts
        return common.EXIT_REJECTED
    # no result and no proof of anything: the solver failed
    return common.EXIT_SOLVER


def _text(args, res, inst) -> str:
    lines = [f"{args.instance}: {inst.num_coflows} coflows, {inst.num_flows} flows; "
             f"exact method {res.algorithm}"]
    lines.append(f"  value    {_fmt(res.value)}  [{res.kind or 'no result'}; "
                 f"{res.objective}]")
    lines.append(f"  status   {res.status}" + (f"; proof: {res.certificate_status}"
                                               if res.certificate_status else ""))
    lines.append(f"  bound    {_fmt(res.bound)}" + ("  (upper bound: maximised objective)"
                                                     if res.objective.startswith(("deadlines",
                                                                                  "weighted_dead"))
                                                     else ""))
    if res.gap is not None:
        lines.append(f"  gap      {res.gap:.3g}")
    ex = res.extra or {}
    search = ex.get("search")
    if search:
        lines.append(f"  nodes    {search['nodes_expanded']} expanded, {search['nodes_pruned']} "
                     f"pruned, {search['nodes_infeasible']} infeasible, {search['leaves']} "
                     f"leaves; {search['lps_solved']} LPs; root bound "
                     f"{search['root_bound']:.12g}")
    if "slotted_value" in ex:
        lines.append(f"  slotted  optimum {_fmt(ex['slotted_value'])} (MIP {ex['mip_status']}, "
                     f"slotted bound {_fmt(ex['slotted_bound'])}); {ex['slots']} slots "
                     f"({'safe' if ex['horizon_proven_safe'] else 'NOT proven safe'}); an upper "
                     "bound on the fluid optimum")
    if ex.get("model") == "integral":
        cert = res.certificate or {}
        lines.append(f"  model    integral (slot {ex['slot']:g}, whole units); certified bound "
                     f"{cert.get('certified_bound')} ({cert.get('certified_bound_source')}); "
                     f"fluid bound {_fmt(ex.get('fluid_bound'))} ({ex.get('fluid_bound_source')})")
        if "slots" in ex:
            lines.append(f"  MIP      {ex['mip_status']} over {ex['slots']} slots "
                         f"({'safe' if ex['horizon_proven_safe'] else 'NOT proven safe'}); "
                         f"HiGHS bound {_fmt(ex.get('mip_bound'))}")
        lines.append(f"  incumbent from {ex.get('incumbent_source')}")
        ver = ex.get("integral_verification") or {}
        cc = ver.get("coflow_completion") or []
        shown = ", ".join(f"{cid}={_fmt(c)}" for cid, c in list(zip(inst.coflow_ids, cc))[:20])
        lines.append(f"  verified integral (exact integers, {ver.get('num_slots')} slots): "
                     f"completion times {shown}" + (" ..." if len(cc) > 20 else ""))
    if "admitted" in ex:
        lines.append(f"  admitted {[inst.coflow_ids[k] for k in ex['admitted']]} "
                     f"(MIP {ex['mip_status']})")
    if res.report is not None:
        rep = res.report
        cc = rep.coflow_completion.tolist()
        shown = ", ".join(f"{cid}={_fmt(c)}" for cid, c in list(zip(inst.coflow_ids, cc))[:20])
        lines.append(f"  verified {rep.mode}: completion times {shown}"
                     + (" ..." if len(cc) > 20 else ""))
    if res.timings:
        lines.append("  time     " + ", ".join(f"{k} {v:.3f}s" for k, v in res.timings.items()))
    if res.message:
        lines.append(f"  {res.message}")
    return "\n".join(lines)
