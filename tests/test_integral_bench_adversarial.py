"""The integral matching model in the adversarial search and the bench runner (issue 12, item
5), and integral-mip's ``threads`` after HiGHS's thread pool exists (a fresh process each)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

THREADS_SCRIPT = textwrap.dedent("""
    import json, os, warnings
    import numpy as np
    from coflowopt import Instance
    from coflowopt.exact.integral_mip import integral_mip
    from coflowopt.slotted import verify_slotted
    # 4 coflows on a 3x3 unit switch: the MIP is needed (the greedy is not optimal at once)
    inst = Instance.from_arrays(
        ingress_capacity=np.ones(3), egress_capacity=np.ones(3), coflow_ids=list("ABCD"),
        flow_coflow=[0, 0, 1, 1, 2, 2, 3, 3], flow_src=[0, 1, 0, 2, 1, 2, 0, 1],
        flow_dst=[0, 1, 1, 2, 2, 0, 2, 0], flow_size=[3., 2., 2., 3., 1., 2., 2., 1.])
    out = []
    more = (os.cpu_count() or 1) + 1   # never the automatic pool's size
    for th in (FIRST, SECOND):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = integral_mip(inst, time_limit=30, threads=th, fluid_bound="none")
        out.append({"kind": r.kind, "value": str(r.value),
                    "mip_status": r.extra.get("mip_status"),
                    "note": r.extra.get("threads_note"),
                    "warned": any("threads" in str(x.message) for x in w),
                    "verified": verify_slotted(inst, r.schedule).weighted_completion_time
                    == r.value})
    print(json.dumps(out))
""")


def _threads_run(first, second):
    code = THREADS_SCRIPT.replace("FIRST", first).replace("SECOND", second)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("first,second", [("None", "more"), ("1", "more"), ("None", "None")])
def test_integral_mip_threads_after_pool_exists(first, second):
    """A thread count other than the pool's used to solve nothing (model status "Not Set",
    reported feasible/open); now the MIP runs on the existing pool, warned and noted."""
    a, b = _threads_run(first, second)
    assert a["kind"] == b["kind"] == "optimal"
    assert a["value"] == b["value"]
    assert a["verified"] and b["verified"]
    assert b["mip_status"] == "optimal"
    if second == "more":
        assert b["note"] and "ignored" in b["note"] and b["warned"]
    else:
        assert b["note"] is None and not b["warned"]
