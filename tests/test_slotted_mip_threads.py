"""slotted-mip's ``threads`` after HiGHS's process-wide thread pool exists (the same failure
integral-mip had: a run with another count solved nothing and handed back its start); each
case in a fresh process, since the pool lives for the process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import json, os, warnings
    from coflowopt import Instance, Coflow
    from coflowopt.exact.slotted_mip import slotted_mip
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0), (1, 1, 1.0)]),
                                  Coflow("B", [(0, 1, 1.0), (1, 0, 2.0)]),
                                  Coflow("C", [(0, 0, 1.0)])])
    more = (os.cpu_count() or 1) + 1
    out = []
    for th in (None, more):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = slotted_mip(inst, delta=1.0, time_limit=30, threads=th)
        out.append({"kind": r.kind, "value": None if r.value is None else float(r.value),
                    "mip_status": r.extra.get("mip_status"),
                    "note": r.extra.get("threads_note"),
                    "warned": any("threads" in str(x.message) for x in w)})
    print(json.dumps(out))
""")


def test_slotted_mip_threads_after_pool_exists():
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    a, b = json.loads(p.stdout.strip().splitlines()[-1])
    assert a["mip_status"] == b["mip_status"] == "optimal"
    assert a["value"] == b["value"] and a["kind"] == b["kind"]
    assert b["note"] and "slotted-mip: threads=" in b["note"] and b["warned"]
    assert a["note"] is None
