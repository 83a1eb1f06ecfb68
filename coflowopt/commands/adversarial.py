"""``coflowopt adversarial``: search for instances where an algorithm is far from optimal.

Maximises ``ALG/OPT`` (``--against opt``: the proven optimum of ``coflowopt.exact.bnb``;
candidates it cannot prove within ``--opt-nodes`` are skipped) or ``ALG/LB`` (``--against lb``:
the best fast certified lower bound) over ``P x P`` unit-capacity fabrics with ``N`` coflows,
by random restarts, local search, CMA-ES or all three (:mod:`coflowopt.adversarial.search`).
ALG is always the verifier's value of the algorithm's schedule.

Budgets: ``--evaluations N`` counts candidates and is reproducible (same seed, same result on
every machine); ``--budget S`` is wall-clock seconds: the candidates are the same sequence, cut
where the time runs out (the report says how many were evaluated, which reruns it exactly
with ``--evaluations``).  With ``--out DIR`` the best instance is written with its provenance,
its search record and both schedules (``instances/adversarial/README.md``).

``--model integral``: the integral matching model (slot 1, whole units per slot and port;
candidates have integer sizes and integer port capacities, ``--capacity``, unit by default).
``--algo`` is then a slotted algorithm (``slotted-order`` = BSSI order, ``slotted-ocf``,
``slotted-srjf``, ``slotted-mmf``, aliases allowed), ``ORDER+slotted-order`` (slotted-order
in a registered ordering's order, e.g. ``sebf+slotted-order``), scored as ``ALG/integral
OPT`` (ALG verified by ``verify_slotted``, OPT the exact ``integral-mip`` when it proves
optimality within ``--opt-time-limit``; unproved candidates are skipped and counted); or
``integral-opt``, the integral gap ``integral OPT/fluid OPT`` (both proved: integral-mip, and
bnb within ``--opt-nodes``).  ``--against opt`` or ``gap``.  The report and ``--json`` say
the model and the ratio's base.

``--against gap --bound NAME``: the integrality-gap search.  No algorithm runs; a candidate
scores ``OPT / LB`` for the relaxation ``NAME`` (OPT proved by bnb, or by integral-mip with
``--model integral``; LB its certified value; :func:`coflowopt.adversarial.objective.
evaluate_gap`).  The names: every registered bound and ``fluid-network-lp``; with ``--model
integral`` also ``lp-a``, ``lp-b``, ``lp-a-no-cutoff``, ``lp-b-no-cutoff``, ``integral-lp``,
``integral-isolated``.  Weights 1..5 are searched unless ``--weights`` says otherwise.  Finds
are written like the others (``instances/adversarial-gap/README.md``).

``--draw default`` runs a randomised algorithm with its own default instead of one seeded draw,
where that default is deterministic (the best piece of ``slow-motion`` and
``lp-deadline-greedy``).

Exit code 0 when the search ran (also when no candidate could be scored because every optimum
was left unproved within the node or time limits: the report says so, like a time limit); 1
when the verifier rejected a schedule of the algorithm or a certified bound exceeded a proven
optimum (a finding, reported); 2 for bad usage (see :mod:`coflowopt.cli`).
"""

from __future__ import annotations

import sys


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "adversarial",
                            "search for instances that maximise ALG/OPT (proven optimum) or "
                            "ALG/LB (certified bound)")
    sp.add_argument("--algo", default=None,
                    help="(required unless --against gap) ORDER+RATES (e.g. bssi+greedy, sebf+madd) or a policy name; with "
                         "--model integral a registered slotted algorithm (coflowopt "
                         "algorithms --kind slotted: slotted-order = BSSI order, slotted-ocf, "
                         "slotted-srjf, slotted-mmf, ...), ORDER+slotted-order (e.g. "
                         "sebf+slotted-order), or integral-opt (the integral gap: integral "
                         "OPT/fluid OPT, both proved)")
    sp.add_argument("--against", default="opt", choices=["opt", "lb", "gap"],
                    help="opt: proven optimum (bnb, default; in the integral model "
                         "integral-mip's integral optimum, or bnb's fluid optimum for "
                         "integral-opt); lb: best fast certified bound (fluid model only); "
                         "gap: no algorithm, maximise OPT/LB for the relaxation --bound "
                         "(OPT proved by bnb, or integral-mip with --model integral)")
    sp.add_argument("--bound", default=None, metavar="NAME",
                    help="with --against gap: the relaxation (a registered bound such as "
                         "ordering-lp, lp-ov, time-indexed-lp, interval-lp, or "
                         "fluid-network-lp; with --model integral also lp-a, lp-b, "
                         "lp-a-no-cutoff, lp-b-no-cutoff, integral-lp, integral-isolated)")
    sp.add_argument("--draw", default="seed", choices=["seed", "default"],
                    help="a randomised algorithm gets --seed (one draw, default) or runs its "
                         "own default (default: only where that is deterministic, e.g. the "
                         "best piece of slow-motion and lp-deadline-greedy)")
    sp.add_argument("--model", default="fluid", choices=["fluid", "integral"],
                    help="fluid (default): rates are fluid; integral: the matching model, "
                         "slot 1, whole units per slot and port; ratios ALG/integral OPT or "
                         "integral OPT/fluid OPT")
    sp.add_argument("--capacity", type=int, default=None, metavar="C",
                    help="integer capacity of every port (--model integral only; default 1)")
    sp.add_argument("--ports", type=int, default=3, help="ingress = egress ports (default 3)")
    sp.add_argument("--coflows", type=int, default=4, help="coflows (default 4)")
    sp.add_argument("--budget", type=common.seconds, default=None, metavar="S",
                    help="wall-clock seconds (reproducible only up to where it stops)")
    sp.add_argument("--evaluations", type=int, default=None, metavar="N",
                    help="number of candidates (reproducible); default 200 when --budget is "
                         "not given")
    sp.add_argument("--seed", type=int, default=0,
                    help="random seed of the search (default 0): a run is reproducible from it")
    sp.add_argument("--strategy", default="all", choices=["random", "local", "cma", "all"],
                    help="random sampling, local search, CMA-ES, or all of them in turn "
                         "(default)")
    sp.add_argument("--size-max", type=int, default=10, help="flow sizes 1..S (default 10)")
    sp.add_argument("--max-flows", type=int, default=None,
                    help="flows per coflow in random candidates (default: ports)")
    sp.add_argument("--releases", type=int, default=0, metavar="R",
                    help="search integer releases 0..R (default 0: zero releases)")
    sp.add_argument("--weights", type=int, default=None, metavar="W",
                    help="search integer weights 1..W (default 5 if the algorithm uses "
                         "weights, else 1)")
    sp.add_argument("--opt-nodes", type=int, default=20000,
                    help="bnb node limit per candidate (default 20000); unproved candidates "
                         "are skipped")
    sp.add_argument("--opt-time-limit", type=common.seconds, default=30.0,
                    help="bnb safety time limit per candidate in seconds (default 30); in "
                         "the integral model also integral-mip's time limit (unproved "
                         "candidates are skipped)")
    sp.add_argument("--no-bound-check", action="store_true",
                    help="do not check the fast certified bounds against each proven optimum")
    sp.add_argument("--out", "-o", default=None, metavar="DIR", type=common.output_dir,
                    help="write the best instance, its provenance and schedules to DIR "
                         "(e.g. instances/adversarial)")
    sp.add_argument("--name", default=None, type=common.file_stem,
                    help="file stem for --out (default from the settings)")
    sp.set_defaults(handler=lambda args: run(args, common))


def run(args, common) -> int:
    from ..adversarial.objective import check_draw, gap_bounds, parse_algorithm, \
        parse_integral_algorithm
    from ..adversarial.search import search, write_result
    from ..exceptions import CoflowOptError
    integral = args.model == "integral"
    gap = args.against == "gap"
    if gap:
        if args.algo is not None:
            raise common.UsageError(f"--algo {args.algo}: --against gap runs no algorithm (it "
                                    "maximises OPT/LB for --bound)")
        allowed = gap_bounds(args.model)
        if args.bound is None or args.bound.strip() not in allowed:
            hint = (" (a bound of the integral model: add --model integral)" if not integral
                    and (args.bound or "").strip() in gap_bounds("integral") else "")
            raise common.UsageError(
                f"--bound {args.bound or '(missing)'}: --against gap needs a relaxation of the "
                f"{args.model} model, one of {', '.join(sorted(allowed))}{hint}")
        if args.draw != "seed":
            raise common.UsageError("--draw applies to an algorithm (--against gap runs none)")
    else:
        if args.bound is not None:
            raise common.UsageError(f"--bound {args.bound}: goes with --against gap")
        if args.algo is None:
            raise common.UsageError(f"--algo: required with --against {args.against}")
    if integral and args.against == "lb":
        raise common.UsageError(f"--against {args.against} is not available with --model "
                                "integral (it scores against proved optima only: --against "
                                "opt or gap)")
    if args.name is not None and args.out is None:
        raise common.UsageError(f"--name {args.name}: names the files --out writes; give --out "
                                "DIR")
    if not integral and args.capacity is not None:
        raise common.UsageError("--capacity applies to --model integral (the fluid search "
                                "keeps unit capacities)")
    if args.capacity is not None and args.capacity < 1:
        raise common.UsageError(f"--capacity must be >= 1, got {args.capacity}")
    if not gap:
        try:
            spec = (parse_integral_algorithm if integral else parse_algorithm)(args.algo)
        except CoflowOptError as e:
            raise common.UsageError(f"--algo {args.algo}: {e}") from None
        try:
            check_draw(spec, args.draw)
        except CoflowOptError as e:
            raise common.UsageError(f"--draw {args.draw}: {e}") from None
    for flag, v, low in (("--ports", args.ports, 1), ("--coflows", args.coflows, 1),
                         ("--evaluations", args.evaluations, 1), ("--size-max", args.size_max, 1),
                         ("--max-flows", args.max_flows, 1), ("--releases", args.releases, 0),
                         ("--weights", args.weights, 1), ("--opt-nodes", args.opt_nodes, 1),
                         ("--seed", args.seed, 0)):
        if v is not None and v < low:
            raise common.UsageError(f"{flag} must be >= {low}, got {v}")
    from ..limits import MAX_COFLOWS, MAX_FLOWS, MAX_PORTS, count_rule
    for flag, what, v, limit, name in (("--ports", "ports", args.ports, MAX_PORTS, "MAX_PORTS"),
                                       ("--coflows", "coflows", args.coflows, MAX_COFLOWS,
                                        "MAX_COFLOWS")):
        # the instance's own limits: beyond them no candidate is a valid instance (and the
        # search's arrays, coflows x ports x ports, ran out of memory: exit 4)
        rule = count_rule(what, v, limit, name)
        if rule:
            raise common.UsageError(f"{flag}: {rule}")
    # a candidate is a coflows x ports x ports matrix of sizes, each cell a possible flow
    rule = count_rule("possible flows (--coflows x --ports x --ports)",
                      args.coflows * args.ports ** 2, MAX_FLOWS, "MAX_FLOWS")
    if rule:
        raise common.UsageError(f"--ports {args.ports}, --coflows {args.coflows}: {rule}")
    if args.budget is not None and not args.budget > 0:
        # common.seconds allows 0 (a time limit of 0 stops at the first check); a search
        # budget of 0 seconds would evaluate nothing
        raise common.UsageError(f"--budget must be > 0 seconds, got {args.budget:g}")
    evaluations = args.evaluations
    if evaluations is None and args.budget is None:
        evaluations = 200

    if gap:
        ratio_name = f"{'integral OPT' if integral else 'OPT'}/{args.bound.strip()}"
    elif integral:
        ratio_name = ("integral OPT/fluid OPT" if args.algo.strip() == "integral-opt"
                      else "ALG/integral OPT")
    else:
        ratio_name = f"ALG/{'OPT' if args.against == 'opt' else 'LB'}"

    def progress(n, r):
        if not args.json:
            print(f"  evaluation {n}: {ratio_name} = {r:.6f}", file=sys.stderr)

    res = search(args.algo, against=args.against, ports=args.ports, coflows=args.coflows,
                 strategy=args.strategy, seed=args.seed, evaluations=evaluations,
                 seconds=args.budget, size_max=args.size_max, max_flows=args.max_flows,
                 releases=args.releases, weights=args.weights, opt_nodes=args.opt_nodes,
                 opt_time_limit=args.opt_time_limit, check_bounds=not args.no_bound_check,
                 progress=progress, model=args.model, capacity=args.capacity or 1,
                 bound=args.bound.strip() if gap else None, draw=args.draw)
    payload = res.summary()
    files = {}
    if args.out and res.best is not None:
        files = {k: str(v) for k, v in write_result(res, args.out, name=args.name).items()}
    payload["files"] = files
    st = res.stats
    lines = [f"adversarial search: {res.settings['algorithm']} against "
             f"{res.settings['against']} on {args.ports}x{args.ports}, {args.coflows} coflows, "
             f"strategy {args.strategy}, seed {args.seed}",
             f"  {st['evaluations']} evaluations ({st['scored']} scored, "
             f"{st.get('opt_unproved', 0)} optimum not proved, {st['cache_hits']} repeats) in "
             f"{st['seconds']} s, stopped by {st['stopped_by']}"
             + (f"; engine {st['engine']}" if "engine" in st else "")]
    if integral:
        cap = args.capacity or 1
        lines[0] = (f"adversarial search (integral model: slot 1, whole units, port capacity "
                    f"{cap}): {res.settings['algorithm']}, {res.settings['base']}, on "
                    f"{args.ports}x{args.ports}, {args.coflows} coflows, strategy "
                    f"{args.strategy}, seed {args.seed}")
    if gap:
        lines[0] = (f"integrality-gap search ({args.model} model): {res.settings['base']} on "
                    f"{args.ports}x{args.ports}, {args.coflows} coflows, strategy "
                    f"{args.strategy}, seed {args.seed}")
    if res.best is None:
        lines.append("  no candidate could be scored")
    elif gap:
        o, lb = payload["opt"], payload["lb"]
        lines.append(f"  best {res.best.ratio_name} = {res.best_ratio:.6f} "
                     f"({payload['ratio_exact']}): OPT {o['value_exact'] or o['value']} "
                     f"({o['certificate_status']}, {o['method']}), LB {lb['value']:.10g} "
                     f"(certificate {lb['certificate_status']}; a bound on the "
                     f"{lb['bounds_model']} optimum)")
        lines += _genome_lines(res.genome)
        lines.append(f"  rerun: --evaluations {st['evaluations']} --seed {args.seed}"
                     + (" (integral-mip's limit is wall clock)" if integral else ""))
    elif integral:
        ev = res.best
        io = payload.get("integral_opt") or payload["opt"]
        head = (f"  best {ev.ratio_name} = {res.best_ratio:.6f} ({payload['ratio_exact']}): ")
        if ev.base == "fluid OPT":
            fo = payload["fluid_opt"]
            head += (f"integral OPT {io['value_exact']} ({io['certificate_status']}), fluid "
                     f"OPT {fo['value_exact'] or fo['value']} ({fo['certificate_status']}, "
                     f"{fo['nodes_expanded']} nodes)")
        else:
            head += (f"ALG {payload['alg']['value_exact']} (verified by verify_slotted), "
                     f"integral OPT {io['value_exact']} ({io['certificate_status']})")
        lines.append(head)
        lines += _genome_lines(res.genome)
        lines.append(f"  rerun: --evaluations {st['evaluations']} --seed {args.seed} (the "
                     "integral-mip limit is wall clock: a candidate near it may be skipped "
                     "elsewhere)")
    else:
        ev = res.best
        lines.append(f"  best ALG/{ev.base} = {res.best_ratio:.6f}: ALG "
                     f"{float(ev.alg.value):.10g} (verified)"
                     + (f", OPT {payload['opt']['value_exact'] or payload['opt']['value']} "
                        f"({payload['opt']['certificate_status']}, gap {payload['opt']['gap']},"
                        f" {payload['opt']['nodes_expanded']} nodes)" if ev.base == "OPT"
                        else f", LB {float(ev.reference.value):.10g} "
                             f"({ev.reference.algorithm})"))
        lines += _genome_lines(res.genome)
        lines.append(f"  rerun exactly: --evaluations {st['evaluations']} --seed {args.seed}")
    if res.bound_check:
        worst = max(v["max_lb_over_opt"] for v in res.bound_check.values())
        viol = sum(v["violations"] for v in res.bound_check.values())
        opt_name = res.settings["base"].split("/")[-1] if integral else "OPT"
        lines.append(f"  bound check: {len(res.bound_check)} certified bounds on every scored "
                     f"candidate, max LB/{opt_name} {worst:.6f}, {viol} violations")
    for f in res.findings[:5]:
        lines.append(f"  FINDING {f['kind']}: {f}")
    for k, v in files.items():
        lines.append(f"  wrote {v}")
    common.emit(args, payload, "\n".join(lines))
    return common.EXIT_REJECTED if res.findings else common.EXIT_OK


def _genome_lines(g) -> list[str]:
    """The found instance, one line per coflow: weight, release and its flows (i, j, size)."""
    lines = []
    for k in range(g.sizes.shape[0]):
        flows = [(int(i), int(j), int(g.sizes[k, i, j])) for i, j in
                 zip(*g.sizes[k].nonzero())]
        lines.append(f"    C{k + 1}: w {int(g.weight[k])}, r {int(g.release[k])}, "
                     f"flows {flows}")
    return lines
