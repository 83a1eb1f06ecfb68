"""``coflowopt fairness INSTANCE``: HUG's optimal isolation guarantee P* and the instantaneous
allocations of HUG, cooperative HUG, DRF, PS-P and per-flow max-min fairness.

For every method: per-coflow progress, the isolation guarantee ``min_k P_k`` and the utilisation
(sum of allocated link fractions, and as a fraction of the ``m_in + m_out`` links), on the MADD
correlation vectors of the instance's coflows (all coflows at once, as if they were active
together; releases are ignored).  See :mod:`coflowopt.fairness`.
"""

from __future__ import annotations

from typing import Any

#: ``--method`` values (``all`` runs every method).
CHOICES = ("hug", "hug-cooperative", "drf", "ps-p", "per-flow", "naive-wc", "all")

#: Text output lists at most this many coflows unless ``--all-coflows``.
MAX_ROWS = 30


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "fairness",
                            "multi-tenant fairness: HUG's optimal isolation guarantee P*, per-"
                            "coflow progress and utilisation under HUG, DRF, PS-P, per-flow")
    sp.add_argument("instance", help="the instance file")
    sp.add_argument("--method", default="all", choices=CHOICES,
                    help="allocation method (default: all)")
    sp.add_argument("--weighted", action="store_true",
                    help="use the coflow weights: w_k d_k instead of d_k (Sec. 7.6.3)")
    sp.add_argument("--exact", action="store_true",
                    help="exact rational arithmetic (values such as 2/3 printed as fractions)")
    sp.add_argument("--all-coflows", action="store_true",
                    help=f"list every coflow in the text output (default: the first {MAX_ROWS})")
    common.add_instance_options(sp)
    sp.set_defaults(handler=lambda args: run(args, common))


def _fmt(x) -> str:
    from fractions import Fraction
    if x is None:
        return "-"
    if isinstance(x, Fraction):
        return str(x)
    return f"{float(x):.6g}"


def run(args, common) -> int:
    from .._numbers import plain_number
    from ..fairness import METHODS, allocate, correlation_vectors
    from ..fairness.hug import optimal_isolation_guarantee, system_bottlenecks

    from ..exceptions import NotSupportedError
    inst = common.load_instance(args)
    methods = [m for m in METHODS if m != "naive-wc"] if args.method == "all" else [args.method]
    try:
        cv = correlation_vectors(inst, weighted=args.weighted, exact=args.exact)
        pstar = optimal_isolation_guarantee(cv)
        guaranteed = pstar * cv.scaled()
        names = cv.links
        bottleneck = [names[i] for i in system_bottlenecks(cv)]
        results = {m: allocate(cv if m != "per-flow" else inst, m, weighted=args.weighted,
                               exact=args.exact) for m in methods}
    except NotSupportedError as e:
        if inst.is_big_switch:
            raise
        # a part of coflowopt.fairness that is defined on the big switch only: say which
        # instance and why, with the library's reason
        raise common.UsageError(
            f"{common.instance_words(args)}: coflowopt fairness --method {args.method} cannot "
            f"run on this instance, which runs its flows over "
            f"{common.describe_resources(inst)}: {e}") from None

    def sparse(row) -> dict[str, Any]:
        return {names[i]: plain_number(v) for i, v in enumerate(row) if v != 0}

    payload = {
        "instance": args.instance,
        "coflows": cv.num_coflows,
        "links": cv.num_links,
        "weighted": cv.weighted,
        "exact": cv.exact,
        "optimal_isolation_guarantee": plain_number(pstar),
        "system_bottleneck": bottleneck,
        "guaranteed": [{"id": cid, "weight": plain_number(cv.weight[k]),
                        "correlation": sparse(cv.d[k]), "allocation": sparse(guaranteed[k])}
                       for k, cid in enumerate(cv.ids)],
        "methods": {m: r.to_dict() for m, r in results.items()},
    }

    where = (f"{inst.num_ingress} ingress + {inst.num_egress} egress" if inst.is_big_switch
             else f"resources: {common.describe_resources(inst).split(' (', 1)[1][:-1]}")
    lines = [f"{args.instance}: {cv.num_coflows} coflows on {cv.num_links} links "
             f"({where}); "
             f"{'weighted (w_k d_k)' if cv.weighted else 'unweighted'}, elastic demands",
             f"P* = {_fmt(pstar)}  (optimal isolation guarantee, Eq. 7.2); system bottleneck: "
             f"{', '.join(bottleneck)}"]
    rows = list(range(cv.num_coflows))
    shown = rows if args.all_coflows else rows[:MAX_ROWS]
    lines.append("guaranteed allocation a_k = P* d_k (fraction of each link):")
    for k in shown:
        alloc = ", ".join(f"{names[i]} {_fmt(v)}" for i, v in enumerate(guaranteed[k]) if v != 0)
        lines.append(f"  {cv.ids[k]}: {alloc}")
    lines.append("")
    head = ["method", "isolation guarantee", "utilisation", f"of {cv.num_links} links",
            "work-conserving"]
    table = [[m, _fmt(r.isolation_guarantee), _fmt(r.utilisation),
              _fmt(r.utilisation_fraction), "yes" if r.work_conserving else "no"]
             for m, r in results.items()]
    lines += _table(head, table)
    lines.append("")
    lines.append("progress P_k per coflow:")
    lines += _table(["coflow"] + methods,
                    [[cv.ids[k]] + [_fmt(results[m].progress[k]) for m in methods]
                     for k in shown])
    if len(shown) < len(rows):
        lines.append(f"... {len(rows) - len(shown)} more coflows (--all-coflows or --json)")
    common.emit(args, payload, "\n".join(lines))
    return common.EXIT_OK


def _table(head, rows) -> list[str]:
    """Left-aligned columns without a rule (the one printer, coflowopt.tables)."""
    from ..tables import format_table
    return format_table([str(h) for h in head], [[str(x) for x in r] for r in rows],
                        left=range(len(head)), rule=False).split("\n")
