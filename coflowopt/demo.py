"""``coflowopt demo``: every available algorithm on the embedded default instances, each
schedule verified independently, shown as one table."""

from __future__ import annotations

import time
from typing import Any, Callable

from .api import run_schedule
from .registry import algorithms

__all__ = ["run_demo", "demo_instances", "demo_algorithms", "format_table"]

_SKIP_TAGS = {"exponential", "slow"}


def demo_instances():
    """(name, Instance) pairs: the library's default set."""
    from .library import default_instances
    return list(default_instances().items())


def demo_algorithms(include_slow: bool = False) -> list[dict[str, Any]]:
    """Every registered ordering x rate allocation and every policy (skipping exponential or
    slow ones unless ``include_slow``)."""
    def ok(a):
        return include_slow or not (a.tags & _SKIP_TAGS)
    combos = [{"order": o.name, "rates": r.name}
              for o in algorithms("ordering") if ok(o)
              for r in algorithms("rates") if ok(r)]
    combos += [{"policy": p.name} for p in algorithms("policy") if ok(p)]
    return combos


def run_demo(progress: Callable[[int], Any] | None = None, include_slow: bool = False):
    """Run the demo; return (rows, failures).  A failure is a schedule the verifier rejected
    or an algorithm that raised."""
    insts = demo_instances()
    algs = demo_algorithms(include_slow)
    _warm_up(algs)
    bar = progress(len(insts) * len(algs)) if progress else None
    rows, failures = [], []
    for name, inst in insts:
        for spec in algs:
            t0 = time.perf_counter()
            label = spec.get("policy") or f"{spec['order']}+{spec['rates']}"
            try:
                res = run_schedule(inst, spec.get("order"), spec.get("rates"),
                                   policy=spec.get("policy"))
                row = {"instance": name, "coflows": inst.num_coflows, "flows": inst.num_flows,
                       "algorithm": res.algorithm, "kind": res.kind,
                       "objective": res.objective,
                       "value": None if res.value is None else float(res.value),
                       "average_cct": res.report.average_cct if res.kind else None,
                       "verified": bool(res.report.ok), "seconds": time.perf_counter() - t0}
                if res.kind is None:
                    failures.append({"instance": name, "algorithm": label,
                                     "error": res.message})
            except Exception as e:  # an algorithm that crashes is reported, not hidden
                row = {"instance": name, "coflows": inst.num_coflows, "flows": inst.num_flows,
                       "algorithm": label, "kind": None, "objective": None, "value": None,
                       "average_cct": None, "verified": False,
                       "seconds": time.perf_counter() - t0, "error": f"{type(e).__name__}: {e}"}
                failures.append({"instance": name, "algorithm": label,
                                 "error": row["error"]})
            rows.append(row)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    return rows, failures


def _warm_up(algs) -> None:
    """Run every algorithm once on a one-flow instance, untimed, so that compiled kernels
    (numba) are built before the timings the table reports."""
    from .instance import Coflow, Instance
    tiny = Instance.from_coflows([Coflow("w", [(0, 0, 1.0)])])
    for spec in algs:
        try:
            run_schedule(tiny, spec.get("order"), spec.get("rates"), policy=spec.get("policy"))
        except Exception:  # the real run reports any failure
            pass


def format_table(rows) -> str:
    head = ("instance", "K", "F", "algorithm", "kind", "sum w C", "avg CCT", "verified", "s")
    lines = []
    body = []
    for r in rows:
        body.append((r["instance"], str(r["coflows"]), str(r["flows"]), r["algorithm"],
                     r["kind"] or "-",
                     "-" if r["value"] is None else f"{r['value']:.6g}",
                     "-" if r["average_cct"] is None else f"{r['average_cct']:.6g}",
                     "yes" if r["verified"] else "NO" + (f" ({r['error']})" if r.get("error")
                                                         else ""),
                     f"{r['seconds']:.3f}"))
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h)
              for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:{'<' if i in (0, 3, 4, 7) else '>'}{w}}}" for i, w in enumerate(widths))
    lines.append(fmt.format(*head))
    lines.append("  ".join("-" * w for w in widths))
    lines += [fmt.format(*b) for b in body]
    lines.append("")
    lines.append("kind: feasible = a schedule accepted by the independent verifier; sum w C = "
                 "total weighted completion time; avg CCT = mean of C_k - r_k.")
    return "\n".join(lines)
