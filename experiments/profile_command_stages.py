"""User and system CPU, minor page faults and wall time of each stage of one ``coflowopt
schedule ... --order X --rates greedy`` command, in one process (issue 17;
``results/custom4000_profile.md``).

Run:  python experiments/profile_command_stages.py schedule c4000.json --order bssi \\
          --rates greedy --zero-release --json

The arguments are the command line's (``coflowopt.cli.main``); its standard output goes to
``--stdout FILE`` (default: discarded).  Each stage is timed by wrapping the function that
does it, by name, in its module (so the figures are of the tree on ``sys.path``, old or new
alike, and a function a tree does not have is skipped): reading (``json`` or the scanned
reader), ``--zero-release``, the greedy kernel's set-up, the kernel, the pieces to arrays,
settling, the verifier and the JSON output; the order is in the command's own ``timings``.
numba's start-up counts with the first kernel called (the scan of a large JSON instance, or
the greedy kernel).  Prints one line per call (user and system seconds from ``getrusage``:
the system time is mostly the zeroing of fresh pages), then the whole process's figures and its peak
memory.
"""

from __future__ import annotations

import functools
import importlib
import resource
import sys
import time

T0 = (resource.getrusage(resource.RUSAGE_SELF), time.perf_counter())

#: (module, attribute, label); a class attribute is "Class.method"
STAGES = [
    ("coflowopt.formats.instance_json", "load_json_document", "read: json parse"),
    ("coflowopt.formats.instance_json", "instance_from_dict", "read: document to instance"),
    ("coflowopt.formats.instance_json", "_read_scanned", "read: scanned reader (total)"),
    ("coflowopt.formats._json_scan", "scan_v1", "read: scan_v1"),
    ("coflowopt.instance", "Instance.replace", "Instance.replace (--zero-release)"),
    ("coflowopt.instance", "Instance.with_releases", "zero-release: with_releases"),
    ("coflowopt.instance", "Instance.without_deadlines", "zero-release: without_deadlines"),
    ("coflowopt.rates.greedy", "priority_flow_order", "greedy: priority_flow_order"),
    ("coflowopt.rates.greedy", "distinct_paths", "greedy: distinct_paths"),
    ("coflowopt.rates._greedy_kernel", "greedy_slots", "greedy: slots"),
    ("coflowopt.rates._greedy_kernel", "greedy_simulate_paths", "greedy: kernel"),
    ("coflowopt.rates.greedy", "chunks_to_arrays", "greedy: chunks_to_arrays"),
    ("coflowopt.rates.greedy", "settle_sizes", "greedy: settle_sizes"),
    ("coflowopt.results", "verify_schedule", "verify"),
    ("coflowopt.results", "verify_in_windows", "verify (windows)"),
    ("coflowopt.cli", "load_instance", "load_instance (total)"),
    ("coflowopt.api", "run_schedule", "run_schedule (total)"),
    ("coflowopt.cli", "emit", "output (emit)"),
]


def usage_since(r0) -> tuple[float, float, int]:
    """User CPU s, system CPU s and minor page faults since the rusage ``r0``."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime - r0.ru_utime, r.ru_stime - r0.ru_stime, r.ru_minflt - r0.ru_minflt


def wrap(owner, name: str, label: str, rows: list) -> None:
    """Replace ``owner.name`` by a wrapper that appends ``(label, cpu, wall)`` per call."""
    f = getattr(owner, name)

    @functools.wraps(f)
    def timed(*args, **kwargs):
        r, w = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        try:
            return f(*args, **kwargs)
        finally:
            rows.append((label, *usage_since(r), time.perf_counter() - w))
    setattr(owner, name, timed)


def main(argv: list[str]) -> int:
    """Run the command ``argv`` with every stage of :data:`STAGES` timed; print the table."""
    out = None
    if "--stdout" in argv:
        i = argv.index("--stdout")
        out, argv = argv[i + 1], argv[:i] + argv[i + 2:]
    import coflowopt.cli as cli
    rows = [("import", *usage_since(T0[0]), time.perf_counter() - T0[1])]
    for mod, attr, label in STAGES:
        owner = importlib.import_module(mod)
        *cls, name = attr.split(".")
        if cls:
            owner = getattr(owner, cls[0])
        if hasattr(owner, name):
            wrap(owner, name, label, rows)
    saved = sys.stdout
    sys.stdout = open(out or "/dev/null", "w")
    try:
        rc = cli.main(argv)
    finally:
        sys.stdout.close()
        sys.stdout = saved
    rows.append(("whole (in-process)", *usage_since(T0[0]), time.perf_counter() - T0[1]))
    for label, u, s, flt, w in rows:
        print(f"{label:36s} user {u:6.2f}  sys {s:5.2f}  minflt {flt:8d}  wall {w:6.2f}")
    print(f"peak resident set {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB,"
          f" exit code {rc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
