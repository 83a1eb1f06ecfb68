"""``coflowopt report RUN``: tables (and plots) from a run folder.

    coflowopt report RUN [--json] [--plots DIR] [--pairwise] [--baseline ALG]
                         [--factor TARGET:BASELINE ...] [--by CLASSES ...] [--sql QUERY]

Per schedule algorithm: mean, median, p95 and max of ALG/LB (LB = the best certified lower
bound of each instance, its source named) and of ALG/OPT (only over instances with a proven
optimum), wins against the best schedule found, failures; per bound: LB/OPT and LB/best; exact
methods' statuses; runtimes with their ratio to ``--baseline`` in the same run.  ``--factor``
adds factors of improvement from per-coflow CCTs (ratio of averages and average of ratios,
percentiles both ways, each labelled); ``--by oct-bin`` (Sincronia's Fig. 5e bins
``floor(log2(OCT/OCT_min))``), ``--by sn-ln-sw-lw`` and ``--by mice-elephant[:THRESHOLD]`` split
them per coflow class (also under ``"by"`` in ``--json``).  ``--plots DIR`` writes, as PNG and PDF, the CDF of
ALG/OPT (and ALG/LB), the ratio against instance size, maximum port load and instance group,
and Gantt charts of schedules per port (``--gantt ALG``, ``--gantt-instance KEY``; recomputed
from the run's recipes; ``--no-gantt`` skips them).  The first lines state the row count and
whether the (instance, algorithm, repetition) keys are unique, with missing and extra task
ids against the plan.  ``--sql`` runs a DuckDB query over the
views ``results`` (one row per task), ``results_physical`` and ``manifest`` and prints it.
"""

from __future__ import annotations

__all__ = ["add_parser", "run_report"]


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "report", "tables and plots from a benchmark run "
                                                  "folder (ALG/LB, ALG/OPT, wins, runtimes)")
    sp.add_argument("run", help="run folder written by coflowopt bench")
    sp.add_argument("--plots", metavar="DIR", type=common.output_dir, help="write PNG and PDF plots to DIR")
    sp.add_argument("--plot-algorithms", metavar="A,B,...",
                    help="with --plots: only these algorithms, in this order (legends and "
                         "colours follow it)")
    sp.add_argument("--plot-style", choices=["screen", "paper"],
                    help="with --plots: figure sizes and fonts (paper: one column of a "
                         "two-column paper, 3.4 in wide, 8 pt; default screen)")
    sp.add_argument("--pairwise", action="store_true", help="print the pairwise win table")
    sp.add_argument("--baseline", default=None,
                    help="algorithm the runtime ratios are against (default fifo+greedy)")
    sp.add_argument("--factor", action="append", metavar="TARGET:BASELINE",
                    help="factor of improvement of TARGET over BASELINE (repeatable)")
    sp.add_argument("--bins", action="store_true",
                    help="with --factor: also per coflow bin (SN/LN/SW/LW: short = longest "
                         "flow < 5, narrow = at most 50 flows), rebuilding the instances")
    sp.add_argument("--by", action="append", metavar="CLASSES", default=[],
                    help="with --factor: also per coflow class (repeatable): oct-bin "
                         "(floor(log2(OCT/OCT_min)), OCT = the coflow alone, Sincronia Fig. "
                         "5e), sn-ln-sw-lw, mice-elephant[:THRESHOLD] (total size < 1000 by "
                         "default); rebuilds the instances from the run's recipes")
    sp.add_argument("--lb-from-exact", action="store_true",
                    help="let exact methods' optima and proven bounds count as lower bounds "
                         "(default: LB comes from the bound methods only)")
    sp.add_argument("--sql", metavar="QUERY", help="run a DuckDB query over the run's views")
    sp.add_argument("--markdown", action="store_true", help="tables in Markdown")
    sp.add_argument("--gantt", action="append", metavar="ALG", default=[],
                    help="with --plots: draw this algorithm's schedule per port (repeatable; "
                         "default: the best non-exponential algorithm by mean ratio and the "
                         "best schedule found, on the instance where that algorithm is worst)")
    sp.add_argument("--gantt-instance", metavar="KEY",
                    help="with --plots: the instance key of the Gantt charts")
    sp.add_argument("--no-gantt", action="store_true",
                    help="with --plots: no Gantt charts (they rerun the algorithms)")
    sp.set_defaults(handler=lambda args: run_report(args, common))


def run_report(args, common) -> int:
    import math

    from ..experiments.report import (CLASSIFICATIONS, analyse, format_class_factors,
                                      format_factors, format_report, improvement_factors)
    from ..experiments.store import load_rows, read_manifest, read_plan

    for flag, value in (("--plot-algorithms", args.plot_algorithms),
                        ("--plot-style", args.plot_style), ("--gantt", args.gantt or None),
                        ("--gantt-instance", args.gantt_instance),
                        ("--no-gantt", args.no_gantt or None)):
        if value is not None and not args.plots:
            raise common.UsageError(f"{flag}: only with --plots DIR (it chooses what the plots "
                                    "show)")
    if args.bins and not args.factor:
        raise common.UsageError("--bins: only with --factor TARGET:BASELINE (it splits the "
                                "factors by coflow bin)")
    if args.plot_algorithms is not None and not args.plot_algorithms.replace(",", "").strip():
        raise common.UsageError("--plot-algorithms: names no algorithm (give labels of the "
                                "run, comma-separated)")
    if args.sql is not None and not args.sql.strip():
        # an empty query used to run the whole report as if --sql were not given
        raise common.UsageError("--sql: no query given")
    if args.sql:
        # the query's result is all --sql prints: a table flag beside it would do nothing
        given = [f for f, v in (("--plots", args.plots), ("--pairwise", args.pairwise),
                                ("--baseline", args.baseline), ("--factor", args.factor),
                                ("--by", args.by), ("--lb-from-exact", args.lb_from_exact))
                 if v]
        if given:
            raise common.UsageError(f"{given[0]}: not with --sql (--sql prints the query's "
                                    "result only)")
    manifest = read_manifest(args.run)
    stats: dict = {}
    # every line checked before any table or query: a damaged row is named, not half-read
    rows = load_rows(args.run, stats=stats)
    plan = read_plan(args.run)
    if args.sql:
        duckdb = _extra("duckdb", "--sql", common)
        from ..experiments.store import connect
        try:
            cur = connect(args.run).execute(args.sql)
        except duckdb.Error as e:
            raise common.UsageError(f"--sql: {e}") from e
        if cur is None or cur.description is None:
            # a statement with no result table (a comment alone, CREATE, SET...) printed
            # nothing, not even the JSON --json promises
            raise common.UsageError(f"--sql {args.sql}: returns no table (give a query, "
                                    "e.g. select * from results)")
        cols, data = [d[0] for d in cur.description], cur.fetchall()
        from ..experiments.report import format_table
        common.emit(args, {"columns": cols, "rows": [list(r) for r in data]},
                    format_table(cols, data, left=range(len(cols)), markdown=args.markdown))
        return common.EXIT_OK
    planned_ids = None if plan is None else plan["tasks"]
    labels = sorted({r["algorithm"] for r in rows})
    if args.baseline is not None and args.baseline not in labels:
        raise common.UsageError(f"--baseline {args.baseline}: not an algorithm of this run "
                                f"(labels: {', '.join(labels)})")
    a = analyse(rows, baseline=args.baseline or "fifo+greedy", planned_ids=planned_ids,
                lb_from_exact=args.lb_from_exact, store=stats)
    a["run_id"] = manifest.get("run_id")
    a["store"] = stats
    texts = [f"run {manifest.get('run_id')} (spec {manifest.get('spec_name')}, spec hash "
             f"{str(manifest.get('spec_hash'))[:12]}, commit "
             f"{str(manifest.get('git', {}).get('commit'))[:12]}"
             f"{' dirty' if manifest.get('git', {}).get('dirty') else ''})",
             format_report(a, pairwise=args.pairwise, markdown=args.markdown)]
    if manifest.get("unavailable_algorithms"):
        texts.append("Not registered when the run was made (skipped): " +
                     ", ".join(manifest["unavailable_algorithms"]))
    if args.by and not args.factor:
        raise common.UsageError("--by: only with --factor TARGET:BASELINE (it splits the "
                                "factors by coflow class)")
    for name in args.by:
        base, _, param = name.partition(":")
        if base not in CLASSIFICATIONS or (param and base != "mice-elephant"):
            raise common.UsageError(f"--by {name!r}: one of {', '.join(CLASSIFICATIONS)} "
                                    "(mice-elephant:THRESHOLD sets the threshold)")
        if param:
            try:
                thr = float(param)
            except ValueError:
                thr = math.nan
            if not (math.isfinite(thr) and thr > 0):
                raise common.UsageError(f"--by {name!r}: the threshold must be a positive "
                                        "number")
    classes = _bins(plan, rows) if args.bins and args.factor else None
    by = _bins(plan, rows, args.by) if args.by else None
    factors = []
    for spec in args.factor or ():
        if ":" not in spec:
            raise common.UsageError(f"--factor must be TARGET:BASELINE, got {spec!r}")
        t, b = spec.split(":", 1)
        f = improvement_factors(rows, t, b, classes=classes, by=by)
        if not f["instances"]:
            raise common.UsageError(f"--factor {spec}: no instance has per-coflow CCTs of both "
                                    "algorithms (labels: "
                                    f"{', '.join(labels)})")
        factors.append(f)
        texts.append("")
        texts.append(format_factors(f, markdown=args.markdown))
        for inst in f["instances"] if classes else ():
            texts.append(format_factors({**f, "mean_over_instances": {}, "instances": [
                {**v, "instance_key": f"{inst['instance_key']} [bin {c}]"}
                for c, v in inst.get("classes", {}).items()]}, markdown=args.markdown))
        for name in args.by:
            txt = format_class_factors(f, name, markdown=args.markdown)
            texts.append(txt or f"--by {name}: no instance could be rebuilt from the run's "
                                "recipes (plan.json), so no per-class factors")
    a["factors"] = factors
    if args.plots:
        _extra("matplotlib", "--plots", common)
        from ..experiments.plots import report_plots
        try:
            chosen = None if not args.plot_algorithms else \
                [a.strip() for a in args.plot_algorithms.split(",") if a.strip()]
            written = report_plots(rows, args.plots,
                                   run_dir=None if args.no_gantt else args.run,
                                   gantt_algorithms=args.gantt,
                                   gantt_instance=args.gantt_instance,
                                   algorithms=chosen, style=args.plot_style or "screen")
        except ValueError as e:  # a bad --gantt / --gantt-instance: the message names it
            raise common.UsageError(str(e)) from e
        a["plots"] = written
        texts.append("")
        texts.append("wrote " + ", ".join(written))
    common.emit(args, a, "\n".join(texts))
    return common.EXIT_REJECTED if a["inconsistencies"] else common.EXIT_OK


def _extra(module: str, flag: str, common):
    """Import an optional package a flag needs, or a usage error naming the flag and the
    extra that installs it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise common.UsageError(f"{flag} needs the optional package {module}, which is not "
                                "installed (pip install 'coflowopt[experiments]')") from None


def _bins(plan, rows, names=None) -> dict:
    """Per instance hash, the SN/LN/SW/LW bin of every coflow (instances rebuilt from the
    recipes in plan.json; those that cannot be rebuilt are left out).  With ``names`` (the
    ``--by`` classifications): ``{name: {instance hash: labels}}``, each instance rebuilt
    once."""
    from ..experiments.report import coflow_classes
    from ..experiments.spec import load_recipe
    out: dict = {} if names is None else {n: {} for n in names}
    if plan is None:
        return out
    recipes = plan.get("recipes", {})
    wanted = {r.get("instance_hash") for r in rows if r.get("cct")}
    for h in wanted & set(recipes):
        try:
            inst = load_recipe(recipes[h]["recipe"])
        except Exception:  # the file moved: no bins for it, the overall factors stay
            continue
        if names is None:
            out[h] = inst.bins().tolist()
        else:
            for n in names:
                out[n][h] = coflow_classes(inst, n).tolist()
    return out
