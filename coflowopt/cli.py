"""The ``coflowopt`` command line.

Exit codes: 0 success; 1 a schedule failed verification or a problem is infeasible; 2 bad usage
or bad input (the message names the file, line or field and the rule); 3 an internal error (a bug:
the traceback is printed).  Every command takes
``--json`` for machine-readable output on stdout; human-readable text otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from . import __version__
from .exceptions import CoflowOptError, InfeasibleScheduleError, InputError

EXIT_OK, EXIT_REJECTED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3

#: Above this many pieces the JSON segment form gets large (the FB greedy schedule: 1.8 M pieces,
#: 56 M rate entries, ~1 GB); we then say so and suggest the columnar .npz form.
JSON_PIECES_NOTE = 200_000

_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


def command(name: str):
    def deco(f):
        _COMMANDS[name] = f
        return f
    return deco


class UsageError(CoflowOptError):
    """Bad command-line usage (exit code 2)."""


# --------------------------------------------------------------------------------- helpers
def emit(args, payload: dict[str, Any], text: str) -> None:
    if getattr(args, "json", False):
        json.dump(payload, sys.stdout, indent=2, allow_nan=False, default=_json_default)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def _json_default(x):
    import numpy as np
    from fractions import Fraction
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, Fraction)):
        v = float(x)
        return None if math.isnan(v) else v
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def parse_params(items: Sequence[str] | None, what: str) -> dict[str, Any]:
    """``key=value`` pairs; values parsed as JSON when possible (numbers, true, lists)."""
    out: dict[str, Any] = {}
    for item in items or ():
        if "=" not in item:
            raise UsageError(f"{what} must be key=value, got {item!r}")
        k, v = item.split("=", 1)
        try:
            out[k.strip().replace("-", "_")] = json.loads(v)
        except json.JSONDecodeError:
            out[k.strip().replace("-", "_")] = v
    return out


def add_instance_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("instance reading")
    g.add_argument("--format", default="auto",
                   help="instance format: auto (default), json, coflow-benchmark (fb), sincronia")
    g.add_argument("--time-unit-ms", type=float, default=None,
                   help="trace formats: milliseconds per time unit (default 7.8125: 1 MB at "
                        "1 Gbps)")
    g.add_argument("--capacity", type=float, default=None,
                   help="trace formats: port capacity in MB per time unit (default 1)")
    g.add_argument("--zero-release", action="store_true",
                   help="set every release time to 0 (the offline setting of Sincronia's "
                        "evaluation)")


def load_instance(args, path: str | None = None):
    from .formats import detect_format, read_instance
    path = path or args.instance
    if not Path(path).exists():
        raise UsageError(f"{path}: no such file")
    fmt = args.format if args.format != "auto" else detect_format(path)
    opts = {}
    if fmt not in ("json",):
        if args.time_unit_ms is not None:
            opts["time_unit_ms"] = args.time_unit_ms
        if args.capacity is not None:
            opts["capacity"] = args.capacity
    elif args.time_unit_ms is not None or args.capacity is not None:
        raise UsageError("--time-unit-ms and --capacity apply to trace formats, not JSON")
    inst = read_instance(path, format=fmt, **opts)
    if args.zero_release:
        inst = inst.with_releases(0.0).without_deadlines()
    return inst


def progress(total: int, desc: str, args):
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="run", file=sys.stderr,
                disable=None if not getattr(args, "json", False) else True, leave=False)


# --------------------------------------------------------------------------------- commands
@command("info")
def cmd_info(args) -> int:
    inst = load_instance(args)
    s = inst.summary()
    s["file"] = args.instance
    s["format"] = inst.meta.get("source_format")
    lines = [f"{args.instance}: {s['coflows']} coflows, {s['flows']} flows, "
             f"{s['ingress_ports']} ingress x {s['egress_ports']} egress ports "
             f"({s['ports_used']['ingress']} / {s['ports_used']['egress']} used)",
             f"total size {s['total_size']} {s['size_unit'] or 'units'}; releases "
             f"{s['release_span'][0]} .. {s['release_span'][1]}"
             f"{' (time unit ' + s['time_unit'] + ')' if s['time_unit'] else ''}; "
             f"{'uniform' if s['uniform_capacity'] else 'heterogeneous'} capacities",
             f"sum of weights {s['sum_weight']}; isolated bound sum w (r + rho) = "
             f"{s['isolated_bound']} (lower_bound)",
             "bins (short: longest flow < 5, narrow: <= 50 flows): " +
             ", ".join(f"{b} {n}" for b, n in s["bins"].items())]
    emit(args, s, "\n".join(lines))
    return EXIT_OK


@command("convert")
def cmd_convert(args) -> int:
    from .formats import write_instance
    inst = load_instance(args)
    opts = {}
    if args.to not in ("auto", "json") and args.time_unit_ms is not None:
        opts["time_unit_ms"] = args.time_unit_ms
    write_instance(inst, args.output, format=args.to, **opts)
    emit(args, {"input": args.instance, "output": args.output, "coflows": inst.num_coflows,
                 "flows": inst.num_flows},
          f"wrote {args.output} ({inst.num_coflows} coflows, {inst.num_flows} flows)")
    return EXIT_OK


@command("generate")
def cmd_generate(args) -> int:
    from . import generators
    from .formats import write_instance
    table = generators.GENERATORS
    if args.generator not in table:
        raise UsageError(f"unknown generator {args.generator!r}; valid: {', '.join(sorted(table))}")
    params = parse_params(args.param, "--param")
    inst = table[args.generator](**params, seed=args.seed)
    write_instance(inst, args.out)
    emit(args, {"generator": args.generator, "params": params, "seed": args.seed,
                 "output": args.out, "coflows": inst.num_coflows, "flows": inst.num_flows},
          f"wrote {args.out}: {inst!r} from {args.generator} (seed {args.seed})")
    return EXIT_OK


def _result_text(res, inst) -> str:
    lines = [f"{res.algorithm}: {res.status}"]
    if res.kind is not None:
        rep = res.report
        lines.append(f"  {res.objective} = {float(res.value):.10g}  [{res.kind}, verified "
                     f"{rep.mode}]")
        lines.append(f"  weighted CCT {float(rep.weighted_cct):.10g}; average CCT "
                     f"{rep.average_cct:.10g}; makespan {float(rep.makespan):.10g}; "
                     f"{rep.num_pieces} pieces")
    else:
        lines.append("  " + res.message)
    if res.timings:
        lines.append("  time: " + ", ".join(f"{k} {v:.3f}s" for k, v in res.timings.items()))
    return "\n".join(lines)


@command("schedule")
def cmd_schedule(args) -> int:
    from .api import run_schedule
    from .formats import write_schedule
    inst = load_instance(args)
    if args.policy is None and (args.order is None or args.rates is None):
        raise UsageError("give --order NAME --rates NAME, or --policy NAME")
    res = run_schedule(inst, order=args.order, rates=args.rates, policy=args.policy,
                       order_params=parse_params(args.order_param, "--order-param"),
                       rate_params=parse_params(args.rate_param, "--rate-param"),
                       policy_params=parse_params(args.policy_param, "--policy-param"),
                       objective=args.objective, verify_mode="exact" if args.exact else "float")
    if args.out and args.out.endswith(".json") and res.schedule.num_pieces > JSON_PIECES_NOTE:
        print(f"coflowopt schedule: note: {res.schedule.num_pieces} pieces; the JSON segment "
              "form of a schedule this size can take a gigabyte (--out FILE.npz is the compact "
              "columnar form, read by the verifier too)", file=sys.stderr)
    if args.out:
        t0 = time.perf_counter()
        write_schedule(res.schedule, inst, args.out)
        res.timings["write"] = time.perf_counter() - t0
    payload = res.to_dict(per_coflow=True)
    payload["instance"] = args.instance
    payload["coflow_ids"] = list(inst.coflow_ids)
    if args.out:
        payload["schedule_file"] = args.out
    emit(args, payload, _result_text(res, inst) + (f"\n  wrote {args.out}" if args.out else ""))
    return EXIT_OK if res.kind is not None else EXIT_REJECTED


@command("verify")
def cmd_verify(args) -> int:
    from .formats import read_schedule
    from .verify import verify_schedule
    inst = load_instance(args)
    sched = read_schedule(args.schedule, inst)
    rep = verify_schedule(inst, sched, mode="exact" if args.exact else "float")
    d = rep.to_dict(per_coflow=True)
    d["kind"] = "feasible" if rep.ok else None
    d["objective"] = args.objective
    d["value"] = d[args.objective] if rep.ok else None
    d["instance"], d["schedule"] = args.instance, args.schedule
    d["coflow_ids"] = list(inst.coflow_ids)
    if rep.ok:
        text = (f"{args.schedule}: {rep.summary()} [feasible]\n  average CCT "
                f"{rep.average_cct:.10g}; makespan {float(rep.makespan):.10g}; "
                f"{rep.num_pieces} pieces")
    else:
        text = f"{args.schedule}: {rep.summary()}\n" + "\n".join(
            f"  {v.kind}: {v.message}" + (f" (segment {v.segment})" if v.segment is not None
                                          else "") for v in rep.violations[:20])
    emit(args, d, text)
    return EXIT_OK if rep.ok else EXIT_REJECTED


@command("algorithms")
def cmd_algorithms(args) -> int:
    from .registry import algorithms
    algs = algorithms(args.kind)
    rows = [a.to_dict() for a in algs]
    text = "\n".join(f"{a.kind:9s} {a.name:22s} {a.summary}" +
                     (f"\n{'':32s}guarantee: {a.guarantee}" if a.guarantee else "") +
                     f"\n{'':32s}tags: {', '.join(sorted(a.tags)) or '-'}; ref: {a.reference}"
                     for a in algs)
    emit(args, {"algorithms": rows}, text)
    return EXIT_OK


@command("demo")
def cmd_demo(args) -> int:
    from .demo import run_demo
    rows, failures = run_demo(progress=lambda total: progress(total, "demo", args),
                              include_slow=args.all)
    from .demo import format_table
    emit(args, {"rows": rows, "failures": failures}, format_table(rows))
    return EXIT_OK if not failures else EXIT_REJECTED


# --------------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="coflowopt", description=(
        "Offline coflow scheduling on the big-switch model: verified schedules, certified "
        "lower bounds and proven optima."))
    p.add_argument("--version", action="version", version=f"coflowopt {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name, help_):
        return add_command(sub, name, help_)

    sp = add("info", "summarise an instance (counts, sizes, bins, isolated bound)")
    sp.add_argument("instance")
    add_instance_options(sp)

    sp = add("convert", "convert an instance between formats")
    sp.add_argument("instance")
    sp.add_argument("output")
    sp.add_argument("--to", default="auto", help="output format (default: from the file name)")
    add_instance_options(sp)

    sp = add("generate", "generate a random or structured instance")
    sp.add_argument("generator", help="generator name (see coflowopt.generators.GENERATORS)")
    sp.add_argument("--param", "-p", action="append", metavar="KEY=VALUE")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--out", "-o", required=True)

    sp = add("schedule", "schedule an instance, verify the schedule, optionally write it")
    sp.add_argument("instance")
    sp.add_argument("--order", help="ordering name (coflowopt algorithms --kind ordering)")
    sp.add_argument("--rates", help="rate allocation name (coflowopt algorithms --kind rates)")
    sp.add_argument("--policy", help="a whole policy instead of --order/--rates")
    sp.add_argument("--order-param", action="append", metavar="KEY=VALUE")
    sp.add_argument("--rate-param", action="append", metavar="KEY=VALUE")
    sp.add_argument("--policy-param", action="append", metavar="KEY=VALUE")
    sp.add_argument("--objective", default="weighted_completion_time",
                    choices=["weighted_completion_time", "weighted_cct"])
    sp.add_argument("--out", "-o", help="write the schedule (.json segments or .npz pieces)")
    sp.add_argument("--exact", action="store_true", help="verify in exact rational arithmetic")
    add_instance_options(sp)

    sp = add("verify", "verify a schedule file against an instance")
    sp.add_argument("instance")
    sp.add_argument("schedule")
    sp.add_argument("--exact", action="store_true", help="exact rational arithmetic")
    sp.add_argument("--objective", default="weighted_completion_time",
                    choices=["weighted_completion_time", "weighted_cct"])
    add_instance_options(sp)

    sp = add("algorithms", "list the registered algorithms with guarantees and references")
    sp.add_argument("--kind", choices=["ordering", "rates", "policy", "bound", "exact"])

    sp = add("demo", "schedule the embedded default instances with every algorithm, verify "
                     "each schedule and print a table")
    sp.add_argument("--all", action="store_true", help="include slow/exponential algorithms")

    # commands defined in their own modules (coflowopt/commands/*.py)
    import importlib
    import pkgutil
    from . import commands
    this = sys.modules[__name__]
    for mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
        importlib.import_module(f"{commands.__name__}.{mod}").add_parser(sub, this)
    return p


def add_command(subparsers, name: str, help_: str) -> argparse.ArgumentParser:
    """A subparser with the common ``--json`` flag."""
    sp = subparsers.add_parser(name, help=help_, description=help_)
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    return sp


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        handler = getattr(args, "handler", None) or _COMMANDS[args.command]
        return handler(args)
    except BrokenPipeError:  # pragma: no cover - e.g. `coflowopt ... | head`
        sys.stderr.close()
        return EXIT_OK
    except InfeasibleScheduleError as e:
        print(f"coflowopt: {e}", file=sys.stderr)
        return EXIT_REJECTED
    except (CoflowOptError, OSError) as e:
        # every bad input / usage error: exit 2 with the located message
        print(f"coflowopt {args.command}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    except Exception:  # pragma: no cover - a bug, not bad input: say so, with the traceback
        import traceback
        traceback.print_exc()
        print(f"coflowopt {args.command}: internal error (please report it)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
