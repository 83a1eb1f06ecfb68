"""Where a whole ``coflowopt schedule FB --order sebf --rates madd --json`` process spends its CPU.

Run:  python experiments/profile_fb_process.py [--zero-release] [--perf-map]
      perf record -F 1999 -- python experiments/profile_fb_process.py --perf-map --repeat 2
      perf report --no-children --sort sym

What it measures (issue 17, ``results/bench_fb_process.md``): the stages of the command's work
done in one process, in the order the command does them, each as CPU time (``process_time``)
and wall time: importing numpy and the command line, reading the trace, the SEBF order,
importing numba, numba's start-up (the first kernel call: numba's own registries and the
cached kernel's object code), then MADD's event loop in its sink mode with the windowed
verifier (the verifier's CPU reported apart; settling the windows counts with the loop).
``--repeat N`` runs the MADD stage N more times in the same process (kernels loaded), which
is what a ``perf`` profile of the event loop itself wants.

``--perf-map`` writes ``/tmp/perf-<pid>.map`` (the ``perf`` convention for JIT code) naming
every function numba loaded from its on-disk cache, so that ``perf report`` shows the kernels
and their inlined-apart callees (``_backfill_varys``, ``weighted_fill``, ...) instead of bare
addresses (``py-spy --native`` only shows unnamed JIT frames).  How: each cached library's
object code is captured as numba loads it, its symbols are read with ``readelf`` (GNU
binutils), and each code section's load address is found through a symbol that the
library resolves; numba's internals, so it may need adjusting with another numba.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRACE = Path(__file__).resolve().parents[2] / "shared" / "data" / "FB2010-1Hr-150-0.txt"

_CAPTURED: list = []


def _capture_cached_objects() -> None:
    """Keep the object code of every library numba loads from its cache (for --perf-map)."""
    import numba.core.codegen as cg
    orig = cg.CPUCodeLibrary._unserialize.__func__

    def unserialize(cls, codegen, state):
        lib = orig(cls, codegen, state)
        if state[1] == "object":
            _CAPTURED.append((lib, state[2][0]))
        return lib
    cg.CPUCodeLibrary._unserialize = classmethod(unserialize)


def write_perf_map(path: str | None = None) -> int:
    """Write the ``perf`` map of the captured libraries; return the number of symbols."""
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (lib, obj) in enumerate(_CAPTURED):
            fn = os.path.join(tmp, f"{n}.o")
            Path(fn).write_bytes(obj)
            out = subprocess.run(["readelf", "-sW", fn], capture_output=True, text=True).stdout
            syms = {}
            for line in out.splitlines():
                p = line.split()
                if len(p) == 8 and p[3] == "FUNC" and p[6].isdigit():
                    syms[p[7]] = (int(p[1], 16), int(p[2]), int(p[6]))
            base = {}
            for name, (off, _, sec) in syms.items():
                if sec not in base:
                    try:
                        base[sec] = lib.get_pointer_to_function(name) - off
                    except Exception:  # noqa: BLE001 - a symbol the library does not export
                        pass
            entries += [(base[sec] + off, size, name) for name, (off, size, sec) in syms.items()
                        if base.get(sec, 0) > 0]
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for addr, size, name in sorted(entries):
            fh.write(f"{addr:x} {size:x} {name}\n")
    return len(entries)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instance", default=str(TRACE))
    ap.add_argument("--zero-release", action="store_true")
    ap.add_argument("--perf-map", action="store_true")
    ap.add_argument("--repeat", type=int, default=0)
    args = ap.parse_args(argv)

    w0, c0 = time.perf_counter(), time.process_time()
    last = [w0, c0]
    rows = []

    def mark(stage: str) -> None:
        w, c = time.perf_counter(), time.process_time()
        rows.append((stage, c - last[1], w - last[0]))
        last[0], last[1] = w, c

    import numpy  # noqa: F401 - timed on its own
    mark("import numpy")
    import coflowopt.cli  # noqa: F401 - what the command imports first
    from coflowopt.formats import read_instance
    from coflowopt.registry import get_algorithm
    from coflowopt.verify import WindowedVerifier
    madd = importlib.import_module("coflowopt.rates.madd")
    mark("import coflowopt")
    inst = read_instance(args.instance)
    if args.zero_release:
        inst = inst.with_releases(0.0).without_deadlines()
    mark("read the trace")
    sigma = get_algorithm("ordering", "sebf").func(inst)
    mark("SEBF order")
    if args.perf_map:
        _capture_cached_objects()
    from coflowopt.rates._jit import load_kernels
    load_kernels()
    mark("import numba")
    from coflowopt.rates._pieces import PieceChunks
    PieceChunks(buffer=1)   # the command's first kernel call
    mark("numba start-up")

    verify_cpu = [0.0]

    def run():
        ver = WindowedVerifier(inst)

        def on_window(sched, a, b):
            t = time.process_time()
            ver.add(a, b, sched)
            verify_cpu[0] += time.process_time() - t
        return madd.madd_windows(inst, sigma, on_window), ver.report()

    st, rep = run()
    mark("MADD + windowed verifier")
    _, c, w = rows.pop()   # wall: the loop and the verifier together
    rows.append(("MADD loop + settling (kernel load in)", c - verify_cpu[0], w))
    rows.append(("windowed verifier", verify_cpu[0], None))
    for _ in range(args.repeat):
        run()
    if args.repeat:
        mark(f"{args.repeat} more MADD runs")
    if args.perf_map:
        print(f"perf map: {write_perf_map()} symbols", file=sys.stderr)
    print(f"{'stage':42s} {'CPU s':>7s} {'wall s':>7s}")
    for stage, c, w in rows:
        print(f"{stage:42s} {c:7.3f} " + (f"{w:7.3f}" if w is not None else "      -"))
    print(f"{'total':42s} {sum(r[1] for r in rows):7.3f}")
    print(f"verdict {rep.ok}, value {rep.weighted_completion_time!r}, {st['pieces']:,} pieces, "
          f"{st['windows']} windows, {st['events']} events; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
