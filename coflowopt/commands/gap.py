"""``coflowopt gap INSTANCE [--time-limit S] [--json]``: the best verified schedule, the best
certified lower bound and the certified gap (their ratio) in one command
(:func:`coflowopt.gap.certified_gap`).

Every number says its kind: the schedule's value is ``feasible`` (its schedule passed the
independent verifier), the bound's ``lower_bound`` (its dual checked in exact arithmetic), and
the gap is ``best verified value / best certified bound`` for the same objective, so the optimum
lies between the two.  Progress lines go to standard error (never with ``--json``).
"""

from __future__ import annotations

import sys


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "gap",
                            "the best verified schedule (local search over orders, greedy "
                            "rates), the best certified lower bound and the certified gap "
                            "between them, within one time budget")
    sp.add_argument("instance", help="the instance file")
    sp.add_argument("--time-limit", type=common.seconds, default=600.0,
                    help="seconds for bounds and schedules together (default 600)")
    sp.add_argument("--bounds", metavar="B,C,...",
                    help="registered bounds to run, in order (default "
                         "bssi-dual,ordering-lp,lp-ov-branch)")
    sp.add_argument("--starts", metavar="S,T,...",
                    help="start orders of the local search: registered orderings, or lp:BOUND "
                         "for the order of an LP bound that runs (default "
                         "sebf,bssi,lp:ordering-lp,lp:lp-ov-branch)")
    sp.add_argument("--rates", default="greedy",
                    help="rate allocation for every candidate order (default greedy)")
    sp.add_argument("--max-schedules", type=common.nonnegative_int, default=4,
                    help="candidate orders scheduled and verified at most: cheapest open-shop "
                         "cost first with all releases 0, the starts' own orders first with "
                         "releases (default 4)")
    sp.add_argument("--kick-time", type=common.seconds, default=None,
                    help="seconds of kicks (iterated local search) from the best verified order "
                         "once the candidates are scheduled; its order is scheduled and verified "
                         "if it lowers the open-shop cost (default: what is left of the time "
                         "limit; 0: none)")
    sp.add_argument("--objective", default="weighted_completion_time",
                    choices=["weighted_completion_time", "weighted_cct"],
                    help="weighted_completion_time (sum w C, default) or weighted_cct "
                         "(sum w (C - r))")
    common.add_instance_options(sp)
    sp.set_defaults(handler=lambda args: run(args, common))


def _names(text: str | None, flag: str, kind: str, common) -> tuple[str, ...] | None:
    if text is None:
        return None
    names = tuple(t.strip() for t in text.split(","))
    if any(not n for n in names):
        raise common.UsageError(f"{flag} {text!r}: an empty name (give A,B,... without empty "
                                "items)")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise common.UsageError(f"{flag}: {', '.join(dup)} given twice")
    for n in names:
        if kind == "ordering" and n.startswith("lp:"):
            continue
        common.lookup(kind, n, flag)
    return names


def run(args, common) -> int:
    from ..gap import DEFAULT_BOUNDS, DEFAULT_STARTS, certified_gap
    from ..tables import format_table

    if args.max_schedules < 1:
        raise common.UsageError(f"--max-schedules {args.max_schedules}: must be an integer "
                                ">= 1 (at least one schedule is verified)")
    bounds = _names(args.bounds, "--bounds", "bound", common) or DEFAULT_BOUNDS
    starts = _names(args.starts, "--starts", "ordering", common) or DEFAULT_STARTS
    for s in starts:
        if s.startswith("lp:") and s[3:] not in bounds:
            raise common.UsageError(f"--starts {s}: the bound {s[3:]!r} is not among --bounds "
                                    f"({','.join(bounds)})")
    common.lookup("rates", args.rates, "--rates")
    inst = common.load_instance(args)
    for name, kind, flag in ([(b, "bound", "--bounds") for b in bounds] +
                             [(s, "ordering", "--starts") for s in starts
                              if not s.startswith("lp:")] + [(args.rates, "rates", "--rates")]):
        common.refuse_big_switch_only(common.lookup(kind, name, flag), inst, flag,
                                      common.instance_words(args))
    quiet = args.json

    def say(line: str) -> None:
        if not quiet:
            print(f"coflowopt gap: {line}", file=sys.stderr, flush=True)

    rep = certified_gap(inst, time_limit=args.time_limit, bounds=bounds, starts=starts,
                        rates=args.rates, max_schedules=args.max_schedules,
                        kick_time=args.kick_time, objective=args.objective, progress=say)
    payload = {"instance": args.instance, "coflows": inst.num_coflows,
               "flows": inst.num_flows, "releases": "all 0" if not inst.has_releases
               else "as given", **rep.to_dict()}
    bs, bb = rep.best_schedule, rep.best_bound
    lines = [f"{args.instance}: {inst.num_coflows} coflows, {inst.num_flows} flows, releases "
             f"{payload['releases']}, objective {rep.objective}"]
    lines.append("best schedule: " + ("none verified" if bs is None else
                                      f"{bs['value']:.10g} (feasible: passed the verifier; "
                                      f"{bs['algorithm']})"))
    lines.append("best bound:    " + ("none certified" if bb is None else
                                      f"{bb['value']:.10g} (lower_bound: dual checked in exact "
                                      f"arithmetic; {bb['method']})"))
    lines.append("certified gap: " + ("not available" if rep.gap is None else
                                      f"{rep.gap:.4f} (best verified schedule / best certified "
                                      "lower bound)"))
    lines.append(f"time: {rep.seconds:.1f} s wall, {rep.cpu_seconds:.1f} s CPU")
    lines.append("")
    lines.append(format_table(
        ["schedule", "value", "kind", "open-shop cost", "seconds"],
        [[s["algorithm"], s["value"], s["kind"] or s["status"], s["open_shop_cost"],
          s["seconds"]] for s in rep.schedules]))
    lines.append("")
    lines.append(format_table(
        ["bound", "value", "kind", "status", "seconds"],
        [[b["method"], b["value"], b["kind"] or "-", b["status"], b["seconds"]]
         for b in rep.bounds]))
    common.emit(args, payload, "\n".join(lines))
    rejected = [s["algorithm"] for s in rep.schedules if s["status"] == "rejected"]
    return common.EXIT_REJECTED if rejected else common.EXIT_OK
