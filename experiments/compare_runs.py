"""Compare the rows of two runs of the same spec (say one local, one on Dask), task by task.

Run: ``python experiments/compare_runs.py runs/A runs/B [--rtol 1e-12]``.

Every field that describes the result is compared; the fields that describe the execution
(timings, worker, run and session ids, finish times) are not.  Values and completion times are
compared exactly and, separately, within ``--rtol`` (code changes between two runs can move the
last bits of a float); the report says how many rows are identical and the largest relative
difference.  Exit status 0 when both runs have the same tasks and every row agrees within
``--rtol``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from coflowopt.experiments.store import load_rows  # noqa: E402

#: Fields that describe how a row was computed, not what was computed.
EXECUTION_FIELDS = {"run_id", "session", "worker", "load_seconds", "timings", "seconds",
                    "finished_at", "message", "error"}
NUMERIC_FIELDS = {"value", "bound", "gap", "cct"}


def _rel(a, b) -> float:
    if a is None or b is None:
        return 0.0 if a is b else math.inf
    if isinstance(a, list):
        if len(a) != len(b):
            return math.inf
        return max((_rel(x, y) for x, y in zip(a, b)), default=0.0)
    a, b = float(a), float(b)
    if a == b or (math.isnan(a) and math.isnan(b)):
        return 0.0
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def compare(dir_a, dir_b, rtol: float = 1e-12) -> dict:
    ra = {r["task_id"]: r for r in load_rows(dir_a)}
    rb = {r["task_id"]: r for r in load_rows(dir_b)}
    only_a, only_b = sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))
    identical = within = 0
    worst, worst_task, mismatched = 0.0, None, []
    for t in sorted(set(ra) & set(rb)):
        a, b = ra[t], rb[t]
        keys = (set(a) | set(b)) - EXECUTION_FIELDS
        other = [k for k in keys - NUMERIC_FIELDS if a.get(k) != b.get(k)]
        rel = max((_rel(a.get(k), b.get(k)) for k in NUMERIC_FIELDS & keys), default=0.0)
        if not other and rel == 0.0:
            identical += 1
        if not other and rel <= rtol:
            within += 1
        else:
            mismatched.append((t, other, rel))
        if rel > worst:
            worst, worst_task = rel, t
    return {"rows_a": len(ra), "rows_b": len(rb), "only_a": only_a, "only_b": only_b,
            "common": len(set(ra) & set(rb)), "identical": identical, "within_rtol": within,
            "rtol": rtol, "max_relative_difference": worst, "worst_task": worst_task,
            "mismatched": mismatched}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    ap.add_argument("--rtol", type=float, default=1e-12)
    a = ap.parse_args(argv)
    res = compare(a.run_a, a.run_b, a.rtol)
    print(f"{a.run_a}: {res['rows_a']} rows; {a.run_b}: {res['rows_b']} rows; "
          f"{res['common']} tasks in both, {len(res['only_a'])} only in the first, "
          f"{len(res['only_b'])} only in the second")
    print(f"identical (every result field, values bit for bit): {res['identical']}; "
          f"equal within rtol {res['rtol']:g}: {res['within_rtol']}; "
          f"largest relative difference {res['max_relative_difference']:.3g}")
    for t, other, rel in res["mismatched"][:20]:
        print(f"  MISMATCH {t}: fields {other}, numeric rel {rel:.3g}")
    ok = not res["only_a"] and not res["only_b"] and not res["mismatched"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
