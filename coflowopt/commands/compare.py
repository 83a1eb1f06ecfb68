"""``coflowopt compare INSTANCE --algos a,b,c [--exact]``: several algorithms on one instance,
each schedule verified, against the best certified lower bound (and the proven optimum when
asked), in one table.

Every number says what it is: an algorithm's value is ``feasible`` (its schedule passed the
verifier), the bound is a ``lower_bound`` (certificate checked), the optimum ``optimal``; the
ratios are ``ALG / LB`` (base: the best certified bound) and ``ALG / OPT`` (base: the proven
optimum, only when the branch and bound proved it within ``--time-limit``).
"""

from __future__ import annotations

import time


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "compare",
                            "several algorithms on one instance: verified values, the best "
                            "certified bound (and the proven optimum with --exact), ALG/LB, "
                            "ALG/OPT and run times in one table")
    sp.add_argument("instance", help="the instance file")
    sp.add_argument("--algos", "-a", required=True, metavar="A,B,...",
                    help="comma-separated algorithms, each ORDER+RATES (e.g. bssi+greedy) or a "
                         "policy name (e.g. varys); coflowopt algorithms lists them")
    sp.add_argument("--exact", action="store_true",
                    help="also prove the optimum by branch and bound (small instances) and "
                         "report ALG/OPT")
    sp.add_argument("--time-limit", type=common.seconds, default=60.0,
                    help="seconds for the branch and bound with --exact (default 60)")
    sp.add_argument("--bound-time", type=common.seconds, default=60.0,
                    help="seconds for the certified bounds together (default 60)")
    sp.add_argument("--csv", metavar="FILE", type=common.output_file,
                    help="also write the table as CSV (one row per algorithm)")
    sp.add_argument("--cct-csv", metavar="FILE", type=common.output_file,
                    help="write every algorithm's per-coflow completion times as CSV "
                         "(algorithm, id, release, completion, cct, slowdown)")
    common.add_instance_options(sp)
    sp.set_defaults(handler=lambda args: run(args, common))


def _parse_algos(text: str, common):
    from ..adversarial.objective import parse_algorithm
    from ..exceptions import InvalidParameterError
    names = [t.strip() for t in text.split(",")]
    if any(not n for n in names):
        raise common.UsageError(f"--algos {text!r}: an empty name (give A,B,... without "
                                "empty items)")
    specs = []
    for n in names:
        try:
            specs.append(parse_algorithm(n))
        except InvalidParameterError as e:
            raise common.UsageError(f"--algos {n}: {e}") from None
    labels = [s.label for s in specs]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise common.UsageError(f"--algos: {', '.join(dup)} given twice")
    return specs


def _ratio(value, base):
    if value is None or base is None or float(base) <= 0:
        return None
    return float(value) / float(base)


def run(args, common) -> int:
    from ..bounds.best import best_certified_bound
    from ..experiments.report import format_table
    from ..formats.completion_csv import write_completion_csv

    specs = _parse_algos(args.algos, common)
    inst = common.load_instance(args)
    for s in specs:
        for kind, name in (("ordering", s.order), ("rates", s.rates), ("policy", s.policy)):
            if name is not None:
                common.refuse_big_switch_only(common.lookup(kind, name, "--algos"), inst,
                                              "--algos", common.instance_words(args))
    rows, completions = [], {}
    for s in specs:
        t0 = time.perf_counter()
        res = s.run(inst)
        secs = time.perf_counter() - t0
        rep = res.report
        rows.append({"algorithm": s.label, "value": None if res.value is None
                     else float(res.value), "kind": res.kind, "status": res.status,
                     "seconds": secs})
        if rep is not None and rep.ok:
            completions[s.label] = rep.coflow_completion
    t0 = time.perf_counter()
    lb, runs = best_certified_bound(inst, time_limit=args.bound_time)
    bound = {"value": None if lb is None else float(lb.value),
             "kind": None if lb is None else lb.kind,
             "method": None if lb is None else lb.algorithm,
             "seconds": time.perf_counter() - t0,
             "methods": [{k: r.get(k) for k in ("algorithm", "value", "status", "seconds")}
                         for r in runs]}
    optimum = None
    if args.exact:
        from ..exact.branch_and_bound import bnb
        t0 = time.perf_counter()
        res = bnb(inst, time_limit=args.time_limit)
        optimum = {"value": None if res.value is None else float(res.value),
                   "kind": res.kind, "status": res.status,
                   "bound": None if res.bound is None else float(res.bound),
                   "seconds": time.perf_counter() - t0}
    opt = optimum["value"] if optimum and optimum["kind"] == "optimal" else None
    for r in rows:
        ok = r["kind"] == "feasible"
        r["alg_over_lb"] = _ratio(r["value"], bound["value"]) if ok else None
        r["alg_over_opt"] = _ratio(r["value"], opt) if ok else None
    if args.csv:
        import csv
        with common.writing("--csv", args.csv), open(args.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["algorithm", "value", "kind", "status", "alg_over_lb",
                        "alg_over_opt", "seconds"])
            for r in rows:
                w.writerow([r["algorithm"], r["value"], r["kind"], r["status"],
                            r["alg_over_lb"], r["alg_over_opt"], f"{r['seconds']:.6g}"])
    if args.cct_csv:
        with common.writing("--cct-csv", args.cct_csv):
            write_completion_csv(args.cct_csv, inst, completions)
    payload = {"instance": args.instance, "objective": "weighted_completion_time",
               "algorithms": rows, "bound": bound, "optimum": optimum,
               "ratio_bases": {"alg_over_lb": "the best certified lower bound (bound.value)",
                               "alg_over_opt": "the proven optimum (optimum.value)"}}
    head = ["algorithm", "value", "kind", "ALG/LB", "ALG/OPT", "seconds"]
    body = [[r["algorithm"], r["value"], r["kind"] or r["status"], r["alg_over_lb"],
             r["alg_over_opt"], r["seconds"]] for r in rows]
    lines = [format_table(head, body)]
    lines.append(f"best certified lower bound: "
                 + ("none" if bound["value"] is None else
                    f"{bound['value']:.10g} ({bound['method']}, lower_bound)"))
    if optimum is not None:
        if opt is not None:
            lines.append(f"optimum: {opt:.10g} (optimal, proved by branch and bound in "
                         f"{optimum['seconds']:.1f} s)")
        else:
            lines.append(f"optimum: not proved within {args.time_limit:g} s (status "
                         f"{optimum['status']}; incumbent {optimum['value']}, bound "
                         f"{optimum['bound']}): ALG/OPT not reported")
    rejected = [r["algorithm"] for r in rows if r["kind"] != "feasible"]
    if rejected:
        lines.append(f"rejected by the verifier: {', '.join(rejected)}")
    common.emit(args, payload, "\n".join(lines))
    return common.EXIT_REJECTED if rejected else common.EXIT_OK
