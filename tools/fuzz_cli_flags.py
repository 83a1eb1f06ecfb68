"""Flag fuzz of the command line: every value-taking flag of every subcommand (read from the
parser) given each of a set of bad values, each case run in a fork of one warm interpreter with
file descriptors 1 and 2 captured (so a solver banner on fd 1 shows).

A case is an anomaly when it exits other than 0 or 2, prints a traceback, exits 2 with more than
one line or without naming the flag, prints non-JSON under ``--json``, or accepts an empty or
blank value.  This is how cases of ``tests/test_cli_contract.py``'s BAD table and its blank-value
test were found; every command takes about 5 minutes (2,400 cases), so it is a tool, not a test.
An exit 2 that names the flag is not judged further: read the messages in ``fuzz.json``.

Usage (it works in a fresh temporary folder)::

    python tools/fuzz_cli_flags.py [COMMAND ...]     # default: every command with a base line
    python tools/fuzz_cli_flags.py lib "lib submit"  # a command's nested actions: "lib" is all three

Exit status 1 when an anomaly was found; ``fuzz.json`` in the work folder holds every case.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIG51 = REPO / "instances" / "papers" / "dissertation-fig5.1.json"
T_S4 = REPO / "instances" / "papers" / "sincronia-t-s4.json"
T_A1 = REPO / "tests" / "data" / "seed002-t-a1.matrix.json"
TRACE = REPO.parent / "shared" / "data" / "FB2010-1Hr-150-0.txt"

#: a quick, valid command line of each subcommand (in the work folder, after the set-up runs)
BASE = {
    "info": ["info", FIG51],
    "convert": ["convert", TRACE if TRACE.exists() else FIG51, "conv.json"],
    "generate": ["generate", "uniform_random", "-p", "num_ports=3", "-p", "num_coflows=4",
                 "-o", "g.json"],
    "schedule": ["schedule", "g.json", "--order", "sebf", "--rates", "madd"],
    "verify": ["verify", "g.json", "g.schedule.json"],
    "algorithms": ["algorithms"],
    "adversarial": ["adversarial", "--algo", "sebf+madd", "--against", "lb", "--ports", "2",
                    "--coflows", "3", "--evaluations", "3", "--strategy", "random"],
    "bench": ["bench", "spec.toml", "--run-dir", "run", "--workers", "0"],
    "bound": ["bound", FIG51, "--method", "isolated"],
    "compare": ["compare", T_S4, "-a", "bssi+greedy"],
    "exact": ["exact", FIG51, "--time-limit", "5"],
    "fairness": ["fairness", FIG51],
    "gap": ["gap", T_S4, "--time-limit", "5"],
    "normalize": ["normalize", T_A1, "-m", "sinkhorn-cap"],
    "report": ["report", "run"],
    "slotted": ["slotted", "g.json", "--policy", "order", "--order", "bssi"],
    "lib status": ["lib", "status"],
    "lib check": ["lib", "check", "--family", "adversarial"],
    # the library's own best schedule: not an improvement, so nothing is ever recorded
    "lib submit": ["lib", "submit", "adversarial/bssi_greedy-opt-4x4-6c-seed0",
                   REPO / "instances" / "coflowlib" / "v1" / "adversarial"
                   / "bssi_greedy-opt-4x4-6c-seed0.best.schedule.json"],
}
VALUES = ["", " ", "nan", "-inf", "-1", "0", "1e400", "abc", "1.5", ",", "x=", "=1", "-0",
          "1e-320"]


def judge(flag: str, dest: str, value: str, code: int, out: str, err: str,
          base_code: int = 0) -> list[str]:
    """What is wrong with one case (empty: nothing found); ``base_code`` is the exit status of
    the command without the flag (``lib submit`` of a schedule that improves nothing exits 1)."""
    ok = {0, base_code}
    lines = err.strip("\n").split("\n") if err.strip() else []
    bad = []
    if code not in ok | {2}:
        bad.append(f"exit {code}")
    if "Traceback" in err:
        bad.append("traceback")
    if code == 2 and len(lines) != 1:
        bad.append(f"{len(lines)} stderr lines")
    if code == 2 and lines and flag not in lines[0] and dest not in lines[0]:
        bad.append("flag not named")
    if code in ok:
        try:
            json.loads(out)
        except ValueError:
            bad.append("stdout not JSON")
        if not value.strip():
            bad.append("empty value accepted")
    return bad


def main_fuzz(commands: list[str]) -> int:
    if any(c in ("-h", "--help") for c in commands):
        print(__doc__)
        return 0
    known = set(BASE) | {name.split()[0] for name in BASE}
    unknown = [c for c in commands if c not in known]
    if unknown:
        print(f"fuzz_cli_flags: unknown command {unknown[0]!r} (one of: "
              f"{', '.join(sorted(known))})", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="coflowopt-fuzz-"))
    os.chdir(work)
    contract = (REPO / "tests" / "test_cli_contract.py").read_text()
    spec = contract.split('SPEC = """\\\n')[1].split('"""')[0]
    Path("spec.toml").write_text(spec.format(name="fz", seed=0))
    from coflowopt.cli import command_parsers, main_in_fork
    from coflowopt.registry import algorithms
    algorithms()  # the registry loaded once, before the forks
    for argv in (BASE["generate"] + ["--json"],
                 ["schedule", "g.json", "--order", "sebf", "--rates", "madd", "-o",
                  "g.schedule.json"],
                 BASE["bench"] + ["--json"]):
        code, _, err = main_in_fork([str(a) for a in argv], 900)  # the first may compile kernels
        if code != 0:
            print(f"set-up failed: {argv}: {err.strip()[-300:]}", file=sys.stderr)
            return 2
    cases = []
    for name, sp in command_parsers():
        if name not in BASE or (commands and name not in commands
                                and name.split()[0] not in commands):
            continue
        base_code, out, err = main_in_fork([str(x) for x in BASE[name]] + ["--json"], 300)
        if judge("", "", "ok", base_code, out, err, base_code) or base_code == 2:
            print(f"base line of {name!r} failed (exit {base_code}): {err.strip()[-300:]}",
                  file=sys.stderr)
            return 2
        for a in sp._actions:
            if not a.option_strings or a.nargs == 0:
                continue
            flag = a.option_strings[-1]
            # the base line without this option (exact's and gap's --time-limit): an option
            # given twice is refused before its value is read
            base = [str(x) for x in BASE[name]]
            for i, x in enumerate(base):
                if x in a.option_strings and a.nargs is None:
                    base = base[:i] + base[i + 2:]
                    break
            for v in VALUES:
                cases.append((f"{name} {flag} {v!r}", base + [flag, v, "--json"], 60,
                              lambda code, out, err, f=flag, d=a.dest, v=v, b=base_code:
                              judge(f, d, v, code, out, err, b)))
    # the runner shared with the parameter fuzz (tools/ is on sys.path as the script's folder)
    from fuzz_parameters import run_cases
    return run_cases(cases, work)


if __name__ == "__main__":
    sys.exit(main_fuzz(sys.argv[1:]))
