"""coflowopt against the public simulators, whole processes, in one run (issue 17's table).

Workloads (the FB trace, ``../shared/data/FB2010-1Hr-150-0.txt``, or ``--trace``):

* **SEBF + MADD, trace releases**: coflowsim (Java, ``coflowsim.CoflowSim SEBF
  COFLOW-BENCHMARK <trace>``) against ``coflowopt schedule <trace> --order sebf --rates madd
  --json``;
* **BSSI + greedy, all released at 0**: Sincronia's offline simulator (C++, ``offlinesim
  <trace.sincronia> <log> PD GREEDY``; it releases every coflow at 0) against ``coflowopt
  schedule <trace> --order bssi --rates greedy --zero-release --json``.

Each row is one process, timed from start to exit (wall) with its peak resident memory
(``os.wait4``): reading, scheduling and, for coflowopt, the independent verifier are all
inside.  coflowopt's own split (schedule / verify, from its ``--json`` timings) is shown
beside.  The average CCT of each run is printed next to the time: Sincronia's simulator and
coflowopt compute the same BSSI + greedy schedule (same average CCT); coflowsim's SEBF + MADD
keeps its own backfilling and time steps, and its milliseconds are converted at coflowopt's
reading of the trace (7.8125 ms per time unit, 1 MB at 1 Gbps).

The public simulators are used when found and built, and skipped with a stated reason
otherwise:

* coflowsim: ``--coflowsim DIR`` or ``$COFLOWSIM_HOME``, a checkout of
  https://github.com/coflow/coflowsim (compiled here with ``javac`` into ``--build``);
* offlinesim: ``--sincronia DIR`` or ``$SINCRONIA_SIMULATOR_HOME``, a checkout of
  https://github.com/sincronia-coflow/simulator (``offlinesim/`` built here with
  ``make CXXFLAGS=-O2``).

``--coflows N`` keeps the first N coflows of the trace (a quick run; the simulators read the
same cut).  The table goes to standard output, the rows to ``--out`` (JSON).

Usage::

    python experiments/bench_speed.py [--trace PATH] [--coflowsim DIR] [--sincronia DIR]
                                      [--coflows N] [--build DIR] [--out FILE] [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TRACE = HERE.parent.parent / "shared" / "data" / "FB2010-1Hr-150-0.txt"
WORKLOADS = ("sebf+madd", "bssi+greedy")


def run_process(cmd, *, cwd=None, env=None, stdout=subprocess.PIPE) -> dict:
    """Run ``cmd`` to completion: wall seconds, peak RSS (MB), exit status, stdout, stderr."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=stdout, stderr=subprocess.PIPE,
                            text=True)
    # wait4 gives this child's own rusage (ru_maxrss in kB on Linux)
    out, err = "", ""
    if stdout is subprocess.PIPE:
        import threading
        chunks: dict = {}

        def drain(name, stream):
            chunks[name] = stream.read()
        threads = [threading.Thread(target=drain, args=("out", proc.stdout)),
                   threading.Thread(target=drain, args=("err", proc.stderr))]
        for th in threads:
            th.start()
        _, status, usage = os.wait4(proc.pid, 0)
        for th in threads:
            th.join()
        out, err = chunks.get("out", ""), chunks.get("err", "")
    else:
        _, status, usage = os.wait4(proc.pid, 0)
        err = proc.stderr.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"seconds": time.perf_counter() - t0, "peak_mb": usage.ru_maxrss / 1024.0,
            "returncode": proc.returncode, "stdout": out, "stderr": err}


def build_coflowsim(src: Path, build: Path) -> Path:
    """Compile coflowsim's sources with javac; the class directory."""
    classes = build / "coflowsim-classes"
    if (classes / "coflowsim" / "CoflowSim.class").exists():
        return classes
    if shutil.which("javac") is None:
        raise RuntimeError("javac not found")
    sources = sorted(str(p) for p in (src / "src" / "main" / "java").rglob("*.java"))
    if not sources:
        raise RuntimeError(f"no Java sources under {src / 'src' / 'main' / 'java'}")
    classes.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["javac", "-nowarn", "-d", str(classes), *sources],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"javac failed: {r.stderr.strip().splitlines()[-1:]}")
    return classes


def build_offlinesim(src: Path, build: Path) -> Path:
    """Copy ``offlinesim/`` and build it with ``make CXXFLAGS=-O2``; the binary."""
    where = build / "offlinesim"
    binary = where / "offlinesim"
    if binary.exists():
        return binary
    if shutil.which("make") is None or shutil.which("g++") is None:
        raise RuntimeError("make or g++ not found")
    if not (src / "offlinesim" / "Makefile").exists():
        raise RuntimeError(f"no offlinesim/Makefile under {src}")
    shutil.copytree(src / "offlinesim", where, dirs_exist_ok=True)
    r = subprocess.run(["make", "all", "CXXFLAGS=-O2"], cwd=where, capture_output=True,
                       text=True)
    if r.returncode != 0 or not binary.exists():
        raise RuntimeError(f"make failed: {r.stderr.strip().splitlines()[-1:]}")
    return binary


def cut_trace(trace: Path, coflows: int | None, work: Path) -> Path:
    """The trace itself, or its first ``coflows`` coflows (header count rewritten)."""
    if not coflows:
        return trace
    lines = trace.read_text().splitlines()
    ports, _ = lines[0].split()[:2]
    body = lines[1:1 + coflows]
    out = work / f"trace-{coflows}.txt"
    out.write_text(f"{ports} {len(body)}\n" + "\n".join(body) + "\n")
    return out


def aot_status() -> tuple[bool, str]:
    """Whether the ahead-of-time kernel module (``python -m coflowopt._aot build``) is built
    and current for this checkout, and its status line."""
    r = subprocess.run([sys.executable, "-m", "coflowopt._aot", "status"], capture_output=True,
                       text=True)
    line = (r.stdout or r.stderr).strip()
    return r.returncode == 0 and line.startswith("built and current"), line


def coflowopt_row(trace: Path, workload: str, aot: bool = False) -> dict:
    """One whole ``coflowopt schedule`` process: with the JIT kernels (``COFLOWOPT_AOT=0``)
    or, with ``aot``, the ahead-of-time module (tool ``coflowopt-aot``)."""
    order, rates = workload.split("+")
    cmd = [sys.executable, "-m", "coflowopt", "schedule", str(trace), "--order", order,
           "--rates", rates, "--json"]
    if workload == "bssi+greedy":
        cmd.append("--zero-release")
    r = run_process(cmd, env={**os.environ, "COFLOWOPT_QUIET_JIT": "1",
                              "COFLOWOPT_AOT": "1" if aot else "0"})
    row = {"tool": "coflowopt-aot" if aot else "coflowopt", "workload": workload,
           "seconds": r["seconds"],
           "peak_mb": r["peak_mb"], "returncode": r["returncode"]}
    if r["returncode"] == 0:
        doc = json.loads(r["stdout"])
        res = doc.get("result", doc)
        row.update(kind=res.get("kind"), average_cct=res.get("average_cct"),
                   timings=res.get("timings", {}))
    else:
        row["error"] = r["stderr"].strip().splitlines()[-1:] if r["stderr"] else []
    return row


def coflowsim_row(classes: Path, trace: Path) -> dict:
    r = run_process(["java", "-Xmx8g", "-cp", str(classes), "coflowsim.CoflowSim", "SEBF",
                     "COFLOW-BENCHMARK", str(trace)])
    row = {"tool": "coflowsim", "workload": "sebf+madd", "seconds": r["seconds"],
           "peak_mb": r["peak_mb"], "returncode": r["returncode"]}
    lines = [ln for ln in r["stdout"].splitlines() if ln.strip()]
    if r["returncode"] == 0 and lines:
        # per-job lines, then the sum of the jobs' durations (ms)
        jobs = [ln for ln in lines[:-1] if len(ln.split()) >= 8]
        try:
            from coflowopt.formats.coflow_benchmark import DEFAULT_TIME_UNIT_MS
            # coflowsim's clock is milliseconds; coflowopt reads the trace at
            # DEFAULT_TIME_UNIT_MS per time unit (1 MB at 1 Gbps), so the two compare
            row["average_cct_ms"] = float(lines[-1]) / max(1, len(jobs))
            row["average_cct"] = row["average_cct_ms"] / DEFAULT_TIME_UNIT_MS
        except ValueError:
            pass
    return row


def offlinesim_row(binary: Path, trace: Path, work: Path) -> dict:
    from coflowopt.formats import read_instance
    from coflowopt.formats.sincronia import write_sincronia
    import numpy as np
    inst = read_instance(trace)
    sin = work / "trace.sincronia"
    write_sincronia(inst.with_releases(np.zeros(inst.num_coflows)), sin)
    log = work / "offlinesim.log"
    r = run_process([str(binary), str(sin), str(log), "PD", "GREEDY"],
                    stdout=subprocess.DEVNULL)
    row = {"tool": "offlinesim", "workload": "bssi+greedy", "seconds": r["seconds"],
           "peak_mb": r["peak_mb"], "returncode": r["returncode"]}
    if r["returncode"] == 0 and log.exists():
        last = [ln for ln in log.read_text().splitlines() if ln.strip()][-1:]
        try:
            row["average_cct"] = float(last[0])
        except (IndexError, ValueError):
            pass
    return row


def table(rows: list[dict], skipped: dict) -> str:
    by = {(r["workload"], r["tool"]): r for r in rows}
    public = {"sebf+madd": "coflowsim", "bssi+greedy": "offlinesim"}
    head = ["workload", "public simulator", "coflowopt (schedule / verify)", "ratio"]
    out = ["| " + " | ".join(head) + " |", "|---|---|---|---|"]
    for w, tool in [(w, tool) for w in WORKLOADS for tool in ("coflowopt", "coflowopt-aot")]:
        mine = by.get((w, tool))
        pub = by.get((w, public[w]))
        if mine is None:
            continue
        t = mine.get("timings", {})
        sched = sum(v for k, v in t.items() if k != "verify")
        split = f" ({sched:.1f} / {t.get('verify', float('nan')):.1f})" if t else ""
        mcell = (f"{mine['seconds']:.1f} s{split}, {mine['peak_mb']:.0f} MB, avg CCT "
                 f"{mine.get('average_cct', float('nan')):.1f}")
        if pub is not None and pub["returncode"] == 0:
            pcell = (f"{public[w]}: {pub['seconds']:.1f} s, {pub['peak_mb']:.0f} MB, avg CCT "
                     f"{pub.get('average_cct', float('nan')):.1f}")
            ratio = f"{pub['seconds'] / mine['seconds']:.0f}x"
        else:
            why = skipped.get(public[w]) or (f"exit {pub['returncode']}" if pub else "not run")
            pcell, ratio = f"{public[w]}: skipped ({why})", "-"
        label = w if tool == "coflowopt" else f"{w}, ahead-of-time kernels"
        out.append(f"| {label} | {pcell} | {mcell} | {ratio} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", default=str(DEFAULT_TRACE), help="coflow-benchmark trace")
    ap.add_argument("--coflowsim", default=os.environ.get("COFLOWSIM_HOME"),
                    help="checkout of coflow/coflowsim (default $COFLOWSIM_HOME)")
    ap.add_argument("--sincronia", default=os.environ.get("SINCRONIA_SIMULATOR_HOME"),
                    help="checkout of sincronia-coflow/simulator "
                         "(default $SINCRONIA_SIMULATOR_HOME)")
    ap.add_argument("--coflows", type=int, default=None,
                    help="keep the first N coflows of the trace (a quick run)")
    ap.add_argument("--build", default=None,
                    help="directory for the simulators' builds (default: a temporary one)")
    ap.add_argument("--out", default=str(HERE / "results" / "bench_speed.json"),
                    help="JSON file of the rows")
    ap.add_argument("--only", choices=WORKLOADS, default=None, help="one workload")
    args = ap.parse_args(argv)
    trace = Path(args.trace)
    if not trace.exists():
        print(f"bench_speed: --trace: file not found: {trace}", file=sys.stderr)
        return 2
    if args.coflows is not None and args.coflows < 1:
        print("bench_speed: --coflows must be >= 1", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="coflowopt-bench-speed-"))
    build = Path(args.build) if args.build else work
    build.mkdir(parents=True, exist_ok=True)
    trace = cut_trace(trace, args.coflows, work)
    workloads = [args.only] if args.only else list(WORKLOADS)
    rows, skipped = [], {}
    aot_built, aot_line = aot_status()
    print(f"ahead-of-time kernels: {aot_line}", file=sys.stderr, flush=True)
    for w in workloads:
        if w == "sebf+madd":
            try:
                if not args.coflowsim:
                    raise RuntimeError("no checkout: give --coflowsim or $COFLOWSIM_HOME")
                classes = build_coflowsim(Path(args.coflowsim), build)
                if shutil.which("java") is None:
                    raise RuntimeError("java not found")
                rows.append(coflowsim_row(classes, trace))
            except RuntimeError as e:
                skipped["coflowsim"] = str(e)
        else:
            try:
                if not args.sincronia:
                    raise RuntimeError("no checkout: give --sincronia or "
                                       "$SINCRONIA_SIMULATOR_HOME")
                binary = build_offlinesim(Path(args.sincronia), build)
                rows.append(offlinesim_row(binary, trace, work))
            except RuntimeError as e:
                skipped["offlinesim"] = str(e)
        for aot in (False, True) if aot_built else (False,):
            rows.append(coflowopt_row(trace, w, aot))
            print(json.dumps(rows[-1], default=str), file=sys.stderr, flush=True)
    print(table(rows, skipped))
    print(f"\nahead-of-time kernels: {aot_line}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"trace": str(args.trace), "coflows": args.coflows,
                               "aot": aot_line, "rows": rows, "skipped": skipped}, indent=2,
                              default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
