"""``coflowopt bench SPEC``: run an experiment spec into a resumable run folder.

    coflowopt bench SPEC [--workers N] [--dask ADDRESS] [--run-dir runs/NAME] [--fresh]
                         [--retry-failed] [--only LABELS] [--dry-run] [--no-report] [--json]

Plans every (instance, algorithm, repetition) task of the spec, skips the tasks that already
have a row in the run folder (default ``runs/<spec name>``) and runs the rest in ``--workers``
spawned processes (default: the CPU count) or on the Dask cluster at ``--dask``; each row is
written as soon as its task is done, so an interrupted run loses nothing it reported.  Prints
what the session did and the report (``coflowopt report`` on the folder).

Exit code 0 when every planned task has a row and none failed (error, time limit, crash,
rejected schedule), 1 otherwise, 2 for a bad spec (the message names the key and the rule).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["add_parser", "run_bench"]


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "bench", "run an experiment spec (TOML) into a "
                                                 "resumable run folder and report on it")
    sp.add_argument("spec", help="the spec file (see experiments/specs/README.md)")
    sp.add_argument("--workers", "-j", type=int, default=None,
                    help="local worker processes (default: CPU count; 0: in this process, "
                         "without hard time limits)")
    sp.add_argument("--dask", metavar="ADDRESS",
                    help="run on a Dask distributed scheduler, e.g. tcp://host:8786")
    sp.add_argument("--run-dir", type=common.output_dir, help="run folder (default runs/<spec name>)")
    sp.add_argument("--fresh", action="store_true",
                    help="delete the folder's earlier results and start over")
    sp.add_argument("--retry-failed", action="store_true",
                    help="run again tasks recorded as error, time_limit, crashed or "
                         "not_supported")
    sp.add_argument("--only", metavar="LABELS",
                    help="run only these algorithms of the spec (comma-separated labels); "
                         "task ids do not change, so a later run of the whole spec in the same "
                         "folder skips them")
    sp.add_argument("--dry-run", action="store_true",
                    help="validate and plan only: print the task counts")
    sp.add_argument("--no-report", action="store_true", help="do not print the report")
    sp.set_defaults(handler=lambda args: run_bench(args, common))


def run_bench(args, common) -> int:
    from ..experiments.report import analyse, format_report
    from ..experiments.spec import load_spec
    from ..experiments.store import load_rows
    from ..experiments.tasks import plan

    if args.workers is not None and args.workers < 0:
        raise common.UsageError(f"--workers must be >= 0, got {args.workers}")
    if args.dask is not None and not args.dask.strip():
        # an empty address ran locally without a word
        raise common.UsageError("--dask: give the scheduler's address, e.g. tcp://host:8786")
    spec = load_spec(args.spec)
    pl = plan(spec)
    if args.only is not None:   # --only '' is no label, not every algorithm
        from ..experiments.tasks import Plan
        labels = [x.strip() for x in args.only.split(",") if x.strip()]
        known = [a.label for a in spec.algorithms]
        bad = [x for x in labels if x not in known]
        if not labels:
            raise common.UsageError(f"--only: no label given (the labels of {args.spec}: "
                                    f"{', '.join(known)})")
        if bad:
            raise common.UsageError(f"--only: {', '.join(map(repr, bad))} not an algorithm of "
                                    f"{args.spec} (labels: {', '.join(known)})")
        pl = Plan(tasks=[t for t in pl.tasks if t.algorithm.label in labels],
                  skipped=pl.skipped, instances=pl.instances)
    run_dir = Path(args.run_dir or Path("runs") / spec.name)
    workers = os.cpu_count() or 1 if args.workers is None else args.workers
    n_alg = (len({t.algorithm.label for t in pl.tasks}) if args.only is not None
             else len(spec.algorithms))
    head = (f"{spec.name}: {pl.instances} instances x {n_alg} algorithms x "
            f"{spec.repetitions} repetitions -> {len(pl.tasks)} tasks"
            + (f"; skipped {sum(pl.skipped.values())} (instance, algorithm) pairs: " +
               "; ".join(f"{k} ({v})" for k, v in sorted(pl.skipped.items()))
               if pl.skipped else "")
            + (f"; not registered (skipped): {', '.join(spec.unavailable)}"
               if spec.unavailable else ""))
    if args.dry_run:
        common.emit(args, {"spec": spec.name, "spec_hash": spec.spec_hash,
                           "instances": pl.instances, "tasks": len(pl.tasks),
                           "algorithms": [a.label for a in spec.algorithms],
                           "skipped": pl.skipped, "unavailable": spec.unavailable}, head)
        return common.EXIT_OK
    from ..experiments.runner import check_run_folder, run
    if not args.fresh:  # before connecting anywhere: a refused folder costs nothing
        check_run_folder(run_dir, spec)
    client = _dask_client(args.dask, common) if args.dask is not None else None
    try:
        summary = run(spec, run_dir, workers=workers, dask=client, fresh=args.fresh,
                      retry_failed=args.retry_failed, plan=pl,
                      progress=None if not args.json else False)
    finally:
        if client is not None:
            client.close()
    stats: dict = {}
    rows = load_rows(run_dir, stats=stats)
    a = analyse(rows, planned_ids=[t.task_id for t in pl.tasks], store=stats)
    done = (f"{run_dir}: {summary.already_done} tasks already done, {summary.executed} run "
            f"now ({', '.join(f'{k} {v}' for k, v in sorted(summary.by_status.items())) or '-'})"
            f" in {summary.seconds:.1f} s")
    text = head + "\n" + done
    if not args.no_report:
        text += "\n\n" + format_report(a)
    bad = a["failure_count"] or a["missing"] or a["inconsistencies"] or \
        a["statuses"].get("rejected")
    common.emit(args, {"summary": summary.to_dict(), "report": a}, text)
    return common.EXIT_REJECTED if bad else common.EXIT_OK


def _dask_client(address: str, common):
    """Connect to the Dask scheduler at ``--dask ADDRESS``, or a usage error naming the flag
    (a bad scheme or an unreachable scheduler is the user's address, not a bug)."""
    try:
        from distributed import Client
    except ImportError:
        raise common.UsageError("--dask needs the optional package distributed, which is not "
                                "installed (pip install 'coflowopt[experiments]')") from None
    try:
        return Client(address, timeout="20s")
    except (ValueError, OSError, TimeoutError) as e:
        raise common.UsageError(f"--dask {address}: cannot connect to a Dask scheduler there "
                                f"({type(e).__name__}: {' '.join(str(e).split())})") from None
