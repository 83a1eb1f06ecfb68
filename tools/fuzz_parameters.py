"""Parameter fuzz: bad values for every parameter the command line passes on by name, each case
run in a fork of one warm interpreter with file descriptors 1 and 2 captured
(:func:`coflowopt.cli.main_in_fork`).  Three families:

* ``algorithms``: every parameter of every registered algorithm (``coflowopt algorithms NAME
  --json`` lists them) through the flag that sets it (``schedule --order-param / --rate-param /
  --policy-param``, ``bound -p``, ``slotted -p``, ``exact -p``, with ``--model integral`` for
  the integral model's methods), on a small generated instance;
* ``generators``: every parameter of every generator through ``generate -p``;
* ``spec``: every key of the command-line contract's bench spec replaced by each bad value or
  deleted, and an unknown key added to every table, through ``bench``.

A case is an anomaly when the process exits other than 0, 1 (a documented "not recorded" /
"failed tasks" status) or 2, prints a traceback or an internal error, exits 2 with more than one
line or without naming the parameter (the spec file, for ``spec``), or prints non-JSON under
``--json``.  Exit 4 (a solver's limit) is reported as an anomaly too: read each one (a time
limit of 0 stops at the first check by design; a value HiGHS cannot take is the caller's).
This is how the generator, spec and parameter fixes of 2026-11-29 were found; the three
families take 10-40 minutes on a loaded machine, so it is a tool, not a test.

Usage (it works in a fresh temporary folder)::

    python tools/fuzz_parameters.py algorithms [NAME-OR-KIND ...]
    python tools/fuzz_parameters.py generators [NAME ...]
    python tools/fuzz_parameters.py spec [KEY-SUBSTRING ...]

Exit status 1 when an anomaly was found; ``fuzz.json`` in the work folder holds every case.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import os
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: values given to a parameter as the command line reads them (``-p key=VALUE``)
TEXT_VALUES = ["0", "-1", str(10**30), "1.5", "abc", "nan", "inf", "[]", "[0, 0]", "[1, 1e30]",
               f"[1, {10**30}]", "true", "{}", "[[1]]", "-0", "1e-320", "1e300"]
#: values a spec key is set to (TOML)
SPEC_VALUES = ["", " ", -1, 0, 1.5, "abc", [], {}, True, float("nan"), float("inf"), 10**30,
               -0.0, [[1]], 1e-320]
_DELETE = object()


def judge(code: int, out: str, err: str, names: tuple[str, ...]) -> list[str]:
    """What is wrong with one case; ``names``: any of them in the message counts as named."""
    lines = err.strip("\n").split("\n") if err.strip() else []
    bad = []
    if code not in (0, 1, 2):
        bad.append(f"exit {code}")
    if "Traceback" in err or "internal error" in err:
        bad.append("traceback")
    if code == 2 and len(lines) != 1:
        bad.append(f"{len(lines)} stderr lines")
    if code == 2 and lines and not any(n in lines[0] for n in names):
        bad.append("not named")
    if code in (0, 1):
        try:
            json.loads(out)
        except ValueError:
            bad.append("stdout not JSON")
    return bad


# ------------------------------------------------------------------------------ the families
def algorithm_cases(only: list[str]):
    from coflowopt.cli import main_in_fork
    code, _, err = main_in_fork(["generate", "uniform_random", "-p", "num_ports=3", "-p",
                                 "num_coflows=4", "-p", "releases=[0,3]", "-p", "weights=[1,3]",
                                 "-o", "g.json"], 900)
    if code != 0:
        raise SystemExit(f"set-up failed: {err.strip()[-300:]}")
    _, out, _ = main_in_fork(["algorithms", "--json"], 300)
    for a in json.loads(out)["algorithms"]:
        name, kind = a["name"], a["kind"]
        if only and name not in only and kind not in only:
            continue
        _, out, _ = main_in_fork(["algorithms", name, "--json"], 300)
        for p in json.loads(out)["algorithms"][0].get("parameters") or []:
            for v in TEXT_VALUES:
                kv = f"{p['name']}={v}"
                argv = {"ordering": ["schedule", "g.json", "--order", name, "--rates", "greedy",
                                     "--order-param", kv],
                        "rates": ["schedule", "g.json", "--order", "sebf", "--rates", name,
                                  "--rate-param", kv],
                        "policy": ["schedule", "g.json", "--policy", name, "--policy-param", kv],
                        "bound": ["bound", "g.json", "--method", name, "-p", kv],
                        "slotted": ["slotted", "g.json", "--policy", name, "-p", kv],
                        "exact": ["exact", "g.json", "--method", name, "-p", kv, "--time-limit",
                                  "10"] + (["--model", "integral"]
                                           if name.startswith("integral") else [])}.get(kind)
                if argv is not None:
                    yield f"{kind} {name} {kv}", argv, (p["name"],)


def generator_cases(only: list[str]):
    from coflowopt.generators import GENERATORS
    for g, f in sorted(GENERATORS.items()):
        if only and g not in only:
            continue
        for p in inspect.signature(f).parameters.values():
            if p.name == "seed" or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            required = [q.name for q in inspect.signature(f).parameters.values()
                        if q.default is inspect.Parameter.empty and q.kind == q.POSITIONAL_OR_KEYWORD]
            for v in TEXT_VALUES:
                yield (f"{g} {p.name}={v}", ["generate", g, "-p", f"{p.name}={v}", "-o", "o.json"],
                       (p.name, *required))


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) \
            else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def _tables(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def toml_text(d: dict) -> str:
    """A spec as TOML (tables and arrays of tables at the top level, inline below)."""
    out = [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in d.items()
           if not isinstance(v, dict) and not _tables(v)]
    for k, v in d.items():
        rows = [v] if isinstance(v, dict) else v if _tables(v) else []
        for t in rows:
            out.append(f"[{k}]" if isinstance(v, dict) else f"[[{k}]]")
            out += [f"{json.dumps(a)} = {_toml_value(b)}" for a, b in t.items()]
    return "\n".join(out) + "\n"


def spec_cases(only: list[str]):
    contract = (REPO / "tests" / "test_cli_contract.py").read_text()
    base = tomllib.loads(contract.split('SPEC = """\\\n')[1].split('"""')[0]
                         .format(name="fz", seed=0))

    def paths(x, at=()):
        items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
        for k, v in items:
            yield at + (k,)
            yield from paths(v, at + (k,))

    def variants():
        for path in paths(base):
            for v in SPEC_VALUES + [_DELETE]:
                d = copy.deepcopy(base)
                t = d
                for p in path[:-1]:
                    t = t[p]
                if v is _DELETE:
                    del t[path[-1]]
                else:
                    t[path[-1]] = v
                yield f"{'.'.join(map(str, path))} = {'DELETE' if v is _DELETE else repr(v)}", d
        for tpath in [(), ("limits",), ("instances", 0), ("instances", 0, "params"),
                      ("algorithms",), ("algorithms", "exact"), ("algorithms", "schedules", 0)]:
            d = copy.deepcopy(base)
            t = d
            for p in tpath:
                t = t[p]
            t["zzz_unknown"] = 1
            yield f"{'.'.join(map(str, tpath))}.zzz_unknown = 1", d

    for i, (name, d) in enumerate(variants()):
        if only and not any(o in name for o in only):
            continue
        spec = f"spec{i}.toml"
        Path(spec).write_text(toml_text(d))
        yield name, ["bench", spec, "--run-dir", f"run{i}", "--workers", "0"], (spec,)


FAMILIES = {"algorithms": algorithm_cases, "generators": generator_cases, "spec": spec_cases}


def main_fuzz(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv[0] not in FAMILIES:
        print(f"fuzz_parameters: unknown family {argv[0]!r} (one of: {', '.join(FAMILIES)})",
              file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="coflowopt-fuzz-parameters-"))
    os.chdir(work)
    from coflowopt.registry import algorithms
    algorithms()  # the registry loaded once, before the forks
    return run_cases(((name, [str(a) for a in args] + ["--json"], 120,
                       lambda code, out, err, names=names: judge(code, out, err, names))
                      for name, args, names in FAMILIES[argv[0]](argv[1:])), work)


def run_cases(cases, work: Path) -> int:
    """Run ``(name, argv, seconds, check)`` cases, each ``main(argv)`` in a fork
    (:func:`coflowopt.cli.main_in_fork`), ``check(code, out, err)`` listing what is wrong;
    print each anomaly and a summary, write ``work/fuzz.json``; 1 when an anomaly was found
    (this tool's families and ``tools/fuzz_cli_flags.py``)."""
    from coflowopt.cli import main_in_fork
    results, anomalies, t0 = {}, 0, time.time()
    for name, argv, seconds, check in cases:
        code, out, err = main_in_fork(argv, seconds)
        bad = check(code, out, err)
        results[name] = {"exit": code, "stderr": err[-300:], "anomalies": bad}
        if bad:
            anomalies += 1
            print(name, bad, "|", err.strip()[-200:].replace("\n", " / "), flush=True)
    (work / "fuzz.json").write_text(json.dumps(results, indent=1))
    print(f"{len(results)} cases, {anomalies} anomalies, {time.time() - t0:.0f} s "
          f"(work folder {work})", flush=True)
    return 1 if anomalies else 0


if __name__ == "__main__":
    sys.exit(main_fuzz(sys.argv[1:]))
