"""``coflowopt bound``: certified lower bounds.

    coflowopt bound INSTANCE --method NAME|all [--param KEY=VALUE] [--export FILE.lp|FILE.mps]
                    [--certificate FILE.json] [--time-limit S] [--objective weighted_cct] [--json]

Prints, for every method, the certified value, its kind (``lower_bound``), the certificate
status, the solver and its status, and the timings.  A method whose certificate cannot be
checked prints no number (kind none, certificate ``uncertified``); a method that cannot run on
the instance (too large, backend missing) is reported as skipped.  Nothing here raises past the
command: a solver failure is a status.

``--export`` writes the LP that proves the bound (the certificate's LP rebuilt from the
instance: the final restricted LP for ``ordering-lp``, the nested Smith sets for ``port``...),
so that any LP solver can re-check it; with ``--method all`` the method name is inserted before
the suffix (``model.ordering-lp.lp``).

``--certificate`` writes the certificate file of each certified bound
(:data:`coflowopt.certificate_files.FILE_BOUNDS`: the ordering-LP family, LP-OV, the interval
LP and the fluid time-indexed LP): the exact multipliers of its rows, each named by its kind and
indices, which ``tools/check_certificate.py`` checks against LP rows it rebuilds from the
instance, with the standard library alone.  The slotted time-indexed LP (``-p model=slotted``)
bounds the slotted optimum, not the fluid one, and has no file.

``--model integral`` lists bounds on the optimum of the *integral matching model* (time slotted,
whole units per slot and resource; sizes and ``capacity x slot`` must be whole, else exit 2):
every fluid bound above is valid there (integral OPT >= fluid OPT: a slotted schedule is a
fluid schedule whose flows end no later), each row says ``model: fluid`` and adds
``integral_value``, the bound rounded up to the lattice of integral objective values (multiples
of ``gcd_k(w_k slot)``); the bounds of the integral model itself follow:
``integral-isolated`` (each coflow alone in whole units per slot, exact) and ``integral-lp``
(the LP relaxation of the integral MIP over its safe horizon, certified exactly from HiGHS's
duals, rounded up to the lattice; :mod:`coflowopt.exact.integral_mip`), ``lp-a`` and ``lp-b``
(the theory-frontier LPs over unit slots, certified exactly, ``integral_value`` rounded up to
the lattice; :mod:`coflowopt.bounds.integral_time_indexed`, ``formulations/lp_a_lp_b.md``).
``-p slot=S`` sets the slot length (default 1); naming an integral bound without ``--model
integral`` is refused.

Exit code 0 when every method that ran gave a certified bound or stopped at the time limit
(status ``time_limit``); 1 when a method's certificate did not check; 4 when a solver failed
(the others' results are still printed); 2 for bad usage.
"""

from __future__ import annotations

import inspect
import json
import time
from pathlib import Path

__all__ = ["add_parser", "run_bound", "export_path", "SOLVER_FAILED", "INTEGRAL_BOUNDS"]

#: Bounds of the integral model (``--model integral``), by name: not registered (they are not
#: bounds on the fluid optimum, which the registry's bounds are).
INTEGRAL_BOUNDS = ("integral-isolated", "integral-lp", "lp-a", "lp-b")


def _integral_bound(name: str):
    from ..bounds.integral_time_indexed import INTEGRAL_LP_BOUNDS
    from ..exact.integral_mip import integral_isolated_bound, integral_lp_bound
    return {"integral-isolated": integral_isolated_bound, "integral-lp": integral_lp_bound,
            **INTEGRAL_LP_BOUNDS}[name]

#: Result statuses that mean the solver failed (HiGHS's error statuses through
#: ``formulations.highs.HIGHS_STATUS``): exit 4, not 1.
SOLVER_FAILED = frozenset({"error", "solver_error", "memory_limit", "not_solved"})


def add_parser(subparsers, common) -> None:
    sp = common.add_command(subparsers, "bound", "certified lower bounds on the optimal "
                                                 "weighted completion time")
    sp.add_argument("instance", help="the instance file")
    sp.add_argument("--method", "-m", default="all",
                    help="a registered bound (coflowopt algorithms --kind bound) or 'all' "
                         "(default)")
    sp.add_argument("--param", "-p", action=common.KeyValues, metavar="KEY=VALUE",
                    help="parameter of the bound (e.g. slot=0.5, epsilon=0.1); repeatable")
    sp.add_argument("--solver-log", action="store_true",
                    help="HiGHS's log on standard error (never on standard output)")
    sp.add_argument("--export", metavar="FILE", type=common.output_file, help="write the certificate's LP (.lp or .mps)")
    sp.add_argument("--certificate", metavar="FILE", type=common.output_file,
                    help="write the certificate file (.json; every fluid bound: the LP's exact "
                         "dual, rows named from the instance), checkable by "
                         "tools/check_certificate.py")
    sp.add_argument("--time-limit", type=common.seconds, default=None,
                    help="seconds per method (for the methods that solve an LP)")
    sp.add_argument("--objective", default="weighted_completion_time",
                    help="weighted_completion_time (sum w C, default) or weighted_cct "
                         "(sum w (C - r))",
                    choices=["weighted_completion_time", "weighted_cct"])
    sp.add_argument("--model", default="fluid", choices=["fluid", "integral"],
                    help="fluid (default) or integral: bounds on the optimum of the integral "
                         "matching model (every fluid bound, rounded up to its lattice, plus "
                         f"{', '.join(INTEGRAL_BOUNDS)})")
    common.add_instance_options(sp)
    sp.set_defaults(handler=lambda args: run_bound(args, common))


def export_path(path: str, method: str, many: bool) -> str:
    """``model.lp`` -> ``model.<method>.lp`` when several methods export."""
    if not many:
        return path
    p = Path(path)
    return str(p.with_name(f"{p.stem}.{method}{p.suffix}"))


def _accepts(func, name: str) -> bool:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # pragma: no cover
        return False
    return name in sig.parameters or any(p.kind == p.VAR_KEYWORD
                                         for p in sig.parameters.values())


def _fmt_value(res) -> str:
    if res.kind is None or res.value is None:
        return "no certified value"
    return f"{float(res.value):.10g}"


def _text(res, skipped: str | None) -> str:
    if skipped is not None:
        return f"{res}: skipped ({skipped})"
    lines = [f"{res.algorithm}: {_fmt_value(res)}  [{res.kind or 'no bound'}; certificate "
             f"{res.certificate_status or '-'}]"]
    sv = res.solver or {}
    solver = " ".join(str(x) for x in (sv.get("name"), sv.get("version"), sv.get("algorithm"))
                      if x)
    lines.append(f"  solver {solver or '-'}: status {res.status}")
    exact = res.extra.get("value_exact")
    if exact is not None and len(exact) <= 60:
        lines.append(f"  exact value {exact}")
    if res.kind is None:
        lines.append("  " + res.message)
    elif "converged" in res.extra:
        lines.append(f"  {res.extra['rounds']} rounds, {res.extra['cuts']} cuts, "
                     f"{'converged' if res.extra['converged'] else 'NOT converged'}")
    if res.extra.get("port") is not None:
        lines.append(f"  port {res.extra['port']}")
    if res.timings:
        lines.append("  time: " + ", ".join(f"{k} {v:.3f}s" for k, v in res.timings.items()))
    if res.extra.get("export"):
        lines.append(f"  wrote {res.extra['export']}")
    if res.extra.get("certificate_file"):
        lines.append(f"  wrote {res.extra['certificate_file']} (check: python "
                     "tools/check_certificate.py INSTANCE.json FILE)")
    return "\n".join(lines)


def run_bound(args, common) -> int:
    from ..exceptions import (InvalidParameterError, NotSupportedError, SolverError,
                              SolverNotAvailableError)
    from ..formulations.certificates import rebuild_lp
    from ..formulations.highs import HighsModel
    from ..registry import algorithms

    flag = common.param_flag(args, "param", "--param")
    params = common.parse_params(args.param, flag)
    if args.export and Path(args.export).suffix.lower() not in (".lp", ".mps"):
        raise common.UsageError(f"--export {args.export}: the file must end in .lp or .mps")
    if args.certificate and Path(args.certificate).suffix.lower() != ".json":
        raise common.UsageError(f"--certificate {args.certificate}: the file must end in .json")
    integral = args.model == "integral"
    if args.method in INTEGRAL_BOUNDS and not integral:
        raise common.UsageError(f"--method {args.method}: a bound of the integral model; add "
                                "--model integral")
    if args.method == "all":
        algs = list(algorithms("bound")) + (list(INTEGRAL_BOUNDS) if integral else [])
    elif args.method in INTEGRAL_BOUNDS:
        algs = [args.method]
    else:
        algs = [common.lookup("bound", args.method, "--method")]
    many = len(algs) > 1
    if integral and not many and algs[0] in INTEGRAL_BOUNDS and \
            (args.export or args.certificate):
        raise common.UsageError(f"--{'export' if args.export else 'certificate'} with --method "
                                f"{algs[0]}: the bounds of the integral model have no LP "
                                "certificate file yet")
    from ..certificate_files import FILE_BOUNDS, lower_bound_certificate
    if args.certificate and not many and getattr(algs[0], "name", algs[0]) not in FILE_BOUNDS:
        raise common.UsageError(
            f"--certificate with --method {algs[0].name}: certificate files cover "
            f"{', '.join(FILE_BOUNDS)} so far")
    if args.certificate and params.get("model", "fluid") != "fluid":
        raise common.UsageError(
            f"--certificate with {flag} model={params['model']}: the slotted time-indexed LP "
            "bounds the slotted optimum, not the fluid one; it has no certificate file")
    for k, owner in (("time_limit", "--time-limit"), ("objective", "--objective")):
        if k in params:
            raise common.UsageError(f"{flag} {k}: set it with {owner}")
    def func_of(a):
        return _integral_bound(a) if isinstance(a, str) else a.func

    for k in params:  # with --method all a key goes to the methods that take it, but to one
        if not any(_accepts(func_of(a), k) for a in algs):
            raise common.UsageError(f"{flag} {k}: no bound method "
                                    f"{'here ' if many else args.method + ' '}takes it")
    for a in algs:  # the types of what each method is given, as for every other command
        mine = {k: v for k, v in params.items() if _accepts(func_of(a), k)}
        if mine:
            common.check_params(func_of(a), mine, flag,
                                f"bound method {a if isinstance(a, str) else a.name}")
    for a in algs:  # the values no instance makes right, before any method runs a solver
        mine = {k: v for k, v in params.items() if _accepts(func_of(a), k)}
        if mine and not isinstance(a, str):
            try:
                a.check_parameters(mine)
            except InvalidParameterError as e:
                raise common.blame(flag, params, f"bound {a.name}", e) from None
    inst = common.load_instance(args)
    lattice = None
    if integral:
        from ..exceptions import NotSupportedError as _NS
        from ..exact.integral_mip import objective_lattice
        from ..slotted import integral_capacities
        slot = params.get("slot", 1.0)
        try:
            integral_capacities(inst, float(slot))
        except (_NS, TypeError, ValueError) as e:
            raise common.UsageError(f"--model integral: {args.instance}: {e}") from None
        lattice = objective_lattice(inst, float(slot))
    if not many and not isinstance(algs[0], str):
        # one named method that cannot run here: bad usage; with 'all', a skipped row
        common.refuse_big_switch_only(algs[0], inst, "--method", common.instance_words(args))
    rows, texts, failed, solver_failed = [], [], False, False
    for alg in algs:
        if isinstance(alg, str):    # a bound of the integral model
            row, text, bad = _run_integral_bound(alg, inst, args, params, common, flag)
            rows.append(row)
            texts.append(text)
            failed = failed or bad
            continue
        kw = {"objective": args.objective}
        for k, v in params.items():
            if _accepts(alg.func, k):
                kw[k] = v
        if args.time_limit is not None and _accepts(alg.func, "time_limit"):
            kw["time_limit"] = args.time_limit
        t0 = time.perf_counter()
        try:
            res = alg.func(inst, **kw)
        except InvalidParameterError as e:
            if not params:
                raise
            raise common.blame(flag, params, f"bound {alg.name}", e) from None
        except (NotSupportedError, SolverNotAvailableError) as e:
            rows.append({"algorithm": alg.name, "kind": None, "status": "skipped",
                         "message": str(e)})
            texts.append(_text(alg.name, str(e)))
            continue
        except SolverError as e:
            rows.append({"algorithm": alg.name, "kind": None, "status": "solver_error",
                         "message": str(e), "value": None})
            texts.append(f"{alg.name}: solver error: {e}")
            solver_failed = True
            continue
        res.timings.setdefault("total", time.perf_counter() - t0)
        if args.export and res.certificate is not None:
            path = export_path(args.export, alg.name, many)
            HighsModel(rebuild_lp(inst, res.certificate)).write(path)
            res.extra["export"] = path
        if res.kind != "lower_bound" and (res.status in SOLVER_FAILED or
                                          str(res.status).startswith("highs:")):
            solver_failed = True  # HiGHS itself failed: no value, and not the input's fault
        elif res.kind != "lower_bound" and res.status != "time_limit":
            failed = True  # a value whose certificate did not check
        if args.certificate and res.kind == "lower_bound" and alg.name in FILE_BOUNDS:
            path = export_path(args.certificate, alg.name, many)
            try:
                Path(path).write_text(json.dumps(lower_bound_certificate(inst, res), indent=1)
                                      + "\n", encoding="utf-8")
            except OSError as e:
                raise common.UsageError(f"--certificate {path}: cannot write ({e.strerror})")
            res.extra["certificate_file"] = path
        d = res.to_dict(per_coflow=False)
        if res.certificate is not None:
            d["certificate"] = res.certificate.to_dict()
        text = _text(res, None)
        if integral:
            d["model"] = "fluid"
            if res.kind == "lower_bound":
                iv = _lattice_round(inst, res.value, args.objective, lattice)
                d["integral_value"] = float(iv)
                d["integral_value_exact"] = str(iv)
                text += (f"\n  model fluid (valid in the integral model); rounded up to its "
                         f"lattice: {float(iv):.10g}")
        rows.append(d)
        texts.append(text)
    payload = {"instance": args.instance, "objective": args.objective, "model": args.model,
               "coflows": inst.num_coflows, "flows": inst.num_flows, "results": rows}
    common.emit(args, payload, "\n".join(texts))
    if failed:
        return common.EXIT_REJECTED
    return common.EXIT_SOLVER if solver_failed else common.EXIT_OK


def _lattice_round(inst, value, objective: str, lattice):
    """A bound on the integral optimum rounded up to the lattice of integral values of
    ``sum w C`` (exact); for the weighted CCT the constant ``sum w r`` is added first and
    subtracted after."""
    from fractions import Fraction
    from ..bounds.common import weighted_release_sum
    from ..exact.integral_mip import round_up_to_lattice
    shift = weighted_release_sum(inst) if objective == "weighted_cct" else Fraction(0)
    return round_up_to_lattice(Fraction(value) + shift, lattice) - shift


def _run_integral_bound(name: str, inst, args, params: dict, common, flag: str):
    """One bound of the integral model: (JSON row, text, whether its certificate failed)."""
    from ..exceptions import InvalidParameterError, NotSupportedError, SolverNotAvailableError
    func = _integral_bound(name)
    kw = {"objective": args.objective}
    kw.update({k: v for k, v in params.items() if _accepts(func, k)})
    if args.time_limit is not None and _accepts(func, "time_limit"):
        kw["time_limit"] = args.time_limit
    t0 = time.perf_counter()
    try:
        res = func(inst, **kw)
    except InvalidParameterError as e:
        if not params:
            raise
        raise common.blame(flag, params, f"bound {name}", e) from None
    except (NotSupportedError, SolverNotAvailableError) as e:
        return ({"algorithm": name, "kind": None, "status": "skipped", "model": "integral",
                 "message": str(e)}, _text(name, str(e)), False)
    res.timings.setdefault("total", time.perf_counter() - t0)
    d = res.to_dict(per_coflow=False)
    d["model"] = "integral"
    text = _text(res, None) + "\n  model integral (a bound on the integral optimum only)"
    return d, text, res.kind != "lower_bound" and res.status != "time_limit"
