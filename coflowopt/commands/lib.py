"""``coflowopt lib status|check|submit``: CoflowLib, the library of proven optima.

``status`` prints the leaderboard (per family: instances, solved = proven optimal with a
certificate, mean and largest gap ``best / certified bound``, the algorithm holding most best
schedules); ``check`` re-verifies every stored best schedule (exact mode, or float mode where
the manifest records ``verified: float``; an order document is first rebuilt into its schedule)
and confirms every certificate with ``tools/check_certificate.py`` (exit 1 on any failure);
``submit INSTANCE SCHEDULE`` verifies a schedule of a CoflowLib instance (its id, e.g.
``bs4-unit/bs4-unit-000``; a coflowopt-schedule JSON file or a coflowlib-order document, or
for the integral-model families ``int4-*`` a coflowopt-slotted-schedule, judged by the integral
verifier; a schedule of the other model is bad input, exit 2) in exact mode and records it when it improves the best known value (exit 1 and the reason when it
is rejected or does not improve).  ``--library DIR`` works on another copy of the library.
The library, its layout and its manifest: :mod:`coflowopt.coflowlib`,
``instances/coflowlib/README.md``.
"""

from __future__ import annotations


def add_parser(subparsers, common) -> None:
    sp = subparsers.add_parser("lib", help="CoflowLib: benchmark instances with proven optima "
                                           "(status, check, submit)",
                               description=__doc__.split("\n\n")[0])
    sub = sp.add_subparsers(dest="action", metavar="{status,check,submit}", required=True,
                            help="status: the leaderboard; check: re-verify every schedule and "
                                 "certificate; submit: record a better schedule")
    st = common.add_command(sub, "status", "the leaderboard: per family, instances, solved, "
                                           "mean gap, best algorithm")
    ck = common.add_command(sub, "check", "re-verify every stored schedule and certificate "
                                          "(exit 1 on any failure)")
    ck.add_argument("--family", action="append", metavar="NAME",
                    help="only this family (repeatable)")
    sm = common.add_command(sub, "submit", "verify a schedule of a CoflowLib instance and "
                                           "record it when it improves the best known")
    sm.add_argument("instance", help="CoflowLib instance id, e.g. bs4-unit/bs4-unit-000")
    sm.add_argument("schedule", help="coflowopt-schedule JSON file, or a coflowlib-order "
                                     "document (coflow order + rate allocation, for "
                                     "instances whose schedules are too large to store); "
                                     "a coflowopt-slotted-schedule for the integral-model "
                                     "families (int4-*)")
    sm.add_argument("--algorithm", default="submitted", metavar="NAME", type=common.nonblank,
                    help="the algorithm that produced the schedule (recorded)")
    for p in (st, ck, sm):
        p.add_argument("--library", metavar="DIR", type=common.nonblank,
                       help="a CoflowLib folder (default: instances/coflowlib)")
        p.set_defaults(handler=lambda args: run(args, common))


def run(args, common) -> int:
    from ..coflowlib import (Refused, check_library, instance_path, load_manifest, status_rows,
                             submit)
    from ..exceptions import InvalidParameterError
    try:
        m = load_manifest(args.library)
    except InvalidParameterError as e:
        raise common.UsageError(f"--library: {e}") from None
    if args.action == "status":
        rows = status_rows(m)
        solved = sum(r["solved"] for r in rows)
        text = [f"CoflowLib {m['release']}: {len(m['instances'])} instances, "
                f"{solved} proven optimal, {len(m['instances']) - solved} open (best verified "
                "schedule and certified bound; gap = best / bound)"]
        algs = [f"{r['best_algorithm']} ({r['best_algorithm_count']})" for r in rows]
        wa = max([16] + [len(a) for a in algs])
        text.append(f"{'family':<14} {'instances':>9} {'solved':>7} {'mean gap':>9} "
                    f"{'max gap':>9}  {'best algorithm':<{wa}} best heuristic (mean ratio to "
                    "best known)")
        for r, alg in zip(rows, algs):
            text.append(f"{r['family']:<14} {r['instances']:>9} {r['solved']:>7} "
                        f"{r['mean_gap']:>9.4f} {r['max_gap']:>9.4f}  {alg:<{wa}} "
                        + (f"{r['best_heuristic']} ({r['best_heuristic_mean_ratio']:.4f})"
                           if r["best_heuristic"] else "-"))
        common.emit(args, {"release": m["release"], "instances": len(m["instances"]),
                           "solved": sum(r["solved"] for r in rows), "families": rows},
                    "\n".join(text))
        return common.EXIT_OK
    if args.action == "check":
        if args.family:
            unknown = sorted(set(args.family) - {e["family"] for e in m["instances"].values()})
            if unknown:
                raise common.UsageError(f"--family {unknown[0]}: not a CoflowLib family")
        try:
            res = check_library(m, args.family)
        except InvalidParameterError as e:
            raise common.UsageError(str(e)) from None
        bad = [(i, r) for i, r in res if r is not None]
        text = [f"{i}: FAILED: {r}" for i, r in bad]
        text.append(f"checked {len(res)} instances: {len(res) - len(bad)} ok, {len(bad)} failed "
                    "(schedules verified exactly, or in float mode where the manifest "
                    "says so, slotted schedules by the integral verifier; certificates "
                    "confirmed by tools/check_certificate.py)")
        common.emit(args, {"checked": len(res), "ok": len(res) - len(bad),
                           "failed": [{"instance": i, "reason": r} for i, r in bad]},
                    "\n".join(text))
        return common.EXIT_REJECTED if bad else common.EXIT_OK
    iid, path = args.instance, args.schedule
    try:
        instance_path(m, iid)           # the instance first (as the arguments' order)
    except InvalidParameterError as e:
        raise common.UsageError(str(e)) from None
    common.require_regular_file(path)   # "no such file", not the OS's "[Errno 2] ..."
    try:
        out = submit(m, iid, path, args.algorithm)
    except InvalidParameterError as e:
        raise common.UsageError(str(e)) from None
    except Refused as e:
        common.emit(args, {"instance": iid, "recorded": False, "reason": str(e)},
                    f"{iid}: {e}")
        return common.EXIT_REJECTED
    common.emit(args, out, f"{iid}: recorded {out['value']} ({out['value_float']:.12g}), "
                           f"previous best {out['previous']}; gap {out['gap']:.6g}")
    return common.EXIT_OK
