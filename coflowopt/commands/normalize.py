"""``coflowopt normalize MATRIX_FILE --method NAME``: rate normalisation of an offered-rate
matrix onto the capacities of a big switch's ports (seed 002's ASY controller).

The file is a JSON array of rows (ingress ports), each an array of offered rates per egress
port (``[[1, 1], [1, 0]]``); capacities are 1 unless given.  Prints the rate matrix, its
throughput and Jain's index (``--method all``: every method, with its throughput over the
max-throughput LP's).  See :mod:`coflowopt.normalization`.
"""

from __future__ import annotations

#: ``--method`` values: coflowopt.normalization.METHODS (listed here so that building the parser
#: imports no numpy; tests/test_normalization.py keeps the two in step) and ``all``.
METHOD_NAMES = ("sinkhorn-cap", "sinkhorn-knopp", "max-min", "max-throughput", "hug", "madd")
CHOICES = (*METHOD_NAMES, "all")


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "normalize",
                            "rate normalisation of an offered-rate matrix onto port capacities "
                            "(seed 002): Sinkhorn, max-min, max-throughput LP, HUG, MADD, with "
                            "throughput and Jain's index")
    sp.add_argument("matrix", metavar="MATRIX_FILE",
                    help="JSON array of rows (ingress ports) of offered rates per egress port")
    sp.add_argument("--method", "-m", required=True, choices=CHOICES,
                    help="normalisation method (all: every method and its throughput over the "
                         "max-throughput LP's)")
    sp.add_argument("--capacity", type=common.positive_number, default=None,
                    help="capacity of every port (default 1)")
    sp.add_argument("--ingress-capacity", default=None, metavar="C0,C1,...",
                    help="capacities of the rows, one per row, comma-separated")
    sp.add_argument("--egress-capacity", default=None, metavar="C0,C1,...",
                    help="capacities of the columns, one per column, comma-separated")
    sp.add_argument("--param", "-p", action=common.KeyValues, metavar="KEY=VALUE",
                    help="a parameter of the method (sinkhorn-knopp: max_iter, tol, "
                         "cap_at_demand; hug: stage2; max-throughput: time_limit)")
    sp.add_argument("--exact", action="store_true",
                    help="exact rational arithmetic (sinkhorn-cap, sinkhorn-knopp, hug, madd; "
                         "values such as 1/3 printed as fractions)")
    sp.set_defaults(handler=lambda args: run(args, common))


def _capacity_list(text: str | None, count: int, flag: str, what: str, common):
    """The numbers of a ``C0,C1,...`` flag, one per row or column."""
    import math

    from ..limits import value_rule
    if text is None:
        return None
    items = [t.strip() for t in text.split(",")]
    out = []
    for k, t in enumerate(items):
        try:
            v = float(t)
        except ValueError:
            raise common.UsageError(f"{flag}: item {k} must be a number, got {t!r}") from None
        rule = value_rule(v, "capacity") if math.isfinite(v) else \
            f"must be a finite number, got {t!r}"
        if rule is not None:
            raise common.UsageError(f"{flag}: item {k} (a capacity) {rule}")
        out.append(v)
    if len(out) != count:
        raise common.UsageError(f"{flag}: {len(out)} capacities for a matrix with {count} "
                                f"{what}: give one per {what[:-1]}")
    return out


def _fmt(x) -> str:
    from fractions import Fraction
    if x is None:
        return "-"
    if isinstance(x, Fraction):
        return str(x)
    return f"{float(x):.6g}"


def run(args, common) -> int:
    from ..exceptions import InvalidParameterError, NotSupportedError
    from ..limits import value_rule
    from ..normalization import (EXACT_METHODS, METHODS, normalize, normalize_all,
                                 read_demand_matrix)

    flag = common.param_flag(args, "param", "--param")
    params = common.parse_params(args.param, flag)
    if args.capacity is not None and (args.ingress_capacity or args.egress_capacity):
        raise common.UsageError("--capacity sets every port: give it or --ingress-capacity / "
                                "--egress-capacity, not both")
    if args.capacity is not None:
        rule = value_rule(args.capacity, "capacity")
        if rule:
            raise common.UsageError(f"--capacity {rule}")
    if params:
        if args.method == "all":
            raise common.UsageError(f"{flag}: parameters belong to one method; give --method "
                                    "NAME, not all")
        common.check_params(METHODS[args.method][0], params, flag, f"method {args.method}")
    if args.exact and args.method != "all" and args.method not in EXACT_METHODS:
        raise common.UsageError(f"--exact: method {args.method} has no exact mode (exact "
                                f"methods: {', '.join(EXACT_METHODS)})")

    D = read_demand_matrix(args.matrix, exact=args.exact)
    m_in, m_out = D.shape
    cin = _capacity_list(args.ingress_capacity, m_in, "--ingress-capacity", "rows", common)
    cout = _capacity_list(args.egress_capacity, m_out, "--egress-capacity", "columns", common)
    if args.capacity is not None:
        cin = cout = args.capacity
    if args.method == "all":
        results = normalize_all(D, ingress_capacity=cin, egress_capacity=cout,
                                exact=args.exact)
    else:
        m = args.method
        try:
            results = {m: normalize(D, m, ingress_capacity=cin, egress_capacity=cout,
                                    exact=args.exact, **params)}
        except InvalidParameterError as e:
            if params:
                raise common.blame(flag, params, f"method {m}", e) from None
            raise
        except NotSupportedError as e:  # exact Sinkhorn-Knopp past the digit limit
            raise common.UsageError(f"--exact: {e}") from None

    head = {"matrix_file": args.matrix, "rows": m_in, "columns": m_out,
            "capacity": {"ingress": 1 if cin is None else cin,
                         "egress": 1 if cout is None else cout}}
    if args.method != "all":
        r = results[args.method]
        payload = {**head, **r.to_dict()}
        lines = [f"{args.matrix}: {m_in} x {m_out}, method {args.method}"
                 f"{' (exact)' if r.exact else ''}",
                 "rates (rows: ingress, columns: egress):"]
        lines += ["  " + "  ".join(_fmt(v).rjust(10) for v in row) for row in r.rates]
        lines.append(f"throughput {_fmt(r.throughput)}   Jain's index {_fmt(r.jain)}")
        if r.info:
            lines.append("info: " + ", ".join(f"{k} {_fmt(v) if not isinstance(v, (str, bool, dict)) else v}"
                                              for k, v in r.info.items() if k != "solver"))
        common.emit(args, payload, "\n".join(lines))
        return common.EXIT_OK

    best = float(results["max-throughput"].throughput)
    ratio = {m: (float(r.throughput) / best if best > 0 else None) for m, r in results.items()}
    payload = {**head, "max_throughput": best, "throughput_ratio": ratio,
               "results": {m: r.to_dict() for m, r in results.items()}}
    width = max(len(m) for m in results)
    lines = [f"{args.matrix}: {m_in} x {m_out}, every method; max-throughput LP {_fmt(best)}",
             f"{'method'.ljust(width)}  {'throughput':>10}  {'/ LP':>8}  {'Jain':>8}"]
    for m, r in results.items():
        lines.append(f"{m.ljust(width)}  {_fmt(r.throughput):>10}  {_fmt(ratio[m]):>8}  "
                     f"{_fmt(r.jain):>8}")
    common.emit(args, payload, "\n".join(lines))
    return common.EXIT_OK
