"""The malformed-input corpus (tests/malformed_corpus.py) through the command line.

Every case runs as its own process: all of them forked from a warm driver process (the driver
itself a subprocess), and a sample -- among them each failure the issue reported -- through the
installed ``coflowopt`` console script, as a user runs it.  Each must exit 2 with one line on
standard error naming the file (or flag) and the rule, or exit 0/1 with a JSON verdict; never a
traceback, never a time-out.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import malformed_corpus as mc  # noqa: E402

#: the console script a user runs (the same interpreter's, so the editable install is used)
COFLOWOPT = shutil.which("coflowopt", path=str(Path(sys.executable).parent)) or "coflowopt"
#: a hang detector for a whole process (interpreter start-up included, on a loaded machine);
#: the driver holds each case to mc.TIMEOUT
PROCESS_TIMEOUT = 60


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, list[dict]]:
    d = tmp_path_factory.mktemp("corpus")
    return d, mc.generate(d)


def by_name(manifest: list[dict], reader: str, name: str) -> dict:
    (case,) = [c for c in manifest if c["reader"] == reader and c["name"] == name]
    return case


def run_cli(args: list[str]) -> tuple[int, str, str]:
    p = subprocess.run([COFLOWOPT, *args], capture_output=True, text=True,
                       timeout=PROCESS_TIMEOUT)
    return p.returncode, p.stdout, p.stderr


# ------------------------------------------------------------------------------------ the corpus
def test_at_least_30_cases_per_reader(corpus):
    _, manifest = corpus
    counts = {r: sum(c["reader"] == r for c in manifest) for r in mc.READERS}
    assert all(n >= 30 for n in counts.values()), counts
    # controls (valid files) are in the corpus too, so that a reader refusing everything fails
    for r in mc.READERS:
        assert any(c["expect"] == "ok" for c in manifest if c["reader"] == r), r


def test_generation_is_deterministic(corpus, tmp_path):
    d, manifest = corpus
    again = mc.generate(tmp_path)
    assert [c["file"] for c in again] == [c["file"] for c in manifest]
    for c in manifest:
        a, b = d / c["file"], tmp_path / c["file"]
        assert a.is_dir() == b.is_dir()
        if not a.is_dir():
            assert a.read_bytes() == b.read_bytes(), c["file"]


def test_every_case_through_the_cli(corpus):
    """All cases, each in its own forked process with a time limit of mc.TIMEOUT seconds."""
    d, manifest = corpus
    p = subprocess.run([sys.executable, str(Path(mc.__file__)), "run", str(d)],
                       capture_output=True, text=True, timeout=20 * PROCESS_TIMEOUT)
    assert p.returncode == 0, p.stderr[-2000:]
    summary = json.loads(p.stdout)
    readers = summary["readers"]
    print("\nmalformed corpus:", json.dumps(readers))
    assert sum(r["cases"] for r in readers.values()) == len(manifest)
    assert all(r["tracebacks"] == 0 and r["timeouts"] == 0 for r in readers.values()), readers
    assert summary["problems"] == []


def test_check_catches_broken_contracts():
    """The contract check itself: a traceback, two lines, an unnamed file, a missing verdict, a
    time-out and an unexpected exit code are all reported."""
    case = {"file": "x.json", "message": ["RULE"], "extra": [], "expect": "error"}
    assert mc.check(case, 2, "", "coflowopt info: error: x.json: RULE broken\n") == []
    assert mc.check(case, 3, "", "Traceback (most recent call last):\n...")
    assert mc.check(case, 2, "", "coflowopt info: error: x.json: RULE\nmore\n")
    assert mc.check(case, 2, "", "coflowopt info: error: y.json: RULE\n")
    assert mc.check(case, 2, "", "coflowopt info: error: x.json: other\n")
    assert mc.check(case, None, "", "") == [f"timed out after {mc.TIMEOUT} s"]
    assert mc.check({**case, "expect": "ok"}, 0, "not json", "")
    assert mc.check(case, 0, "{}", "")  # expected an error


# ------------------------------------------------------------------------------------ as a user
SAMPLE = {
    "instance-json": ["binary garbage", "size NaN", "duplicate coflow id", "deep nesting",
                      "schedule given as instance"],
    "coflow-benchmark": ["JSON instance given as trace", "header 1e11 coflows", "MB subnormal",
                         "1e5 mappers x 1e5 reducers (1e10 flows)", "--capacity 1e-300"],
    "sincronia": [".npz file", "a million flows declared, two present", "size 1e308",
                  "header 5000-digit count", "seed (control)"],
    "schedule-json": ["directory", "end 1e308", "negative rate", "rate subnormal",
                      "instance given as schedule"],
    "schedule-npz": ["JSON schedule named .npz", "pickled objects", "declares 3 starts, holds 2",
                     "rate 1e308", "seed (control)"],
}


@pytest.mark.parametrize("reader,name", [(r, n) for r, ns in SAMPLE.items() for n in ns])
def test_sample_as_user(corpus, reader, name):
    d, manifest = corpus
    case = by_name(manifest, reader, name)
    rc, out, err = run_cli(case["args"])
    assert mc.check(case, rc, out, err) == []


# the failures the issue reported, each run as a user runs it
ISSUE_CASES = [
    # sizes near 1e308: `info` overflowed in fsum
    ("instance-json", "sizes near 1e308", "info", ("SIZE_MIN..SIZE_MAX", "1.5e+308")),
    # a 5,000-digit fraction: `verify` hit Python's integer string limit
    ("schedule-json", "end a 5000-digit fraction", "verify", ("MAX_NUMBER_DIGITS",)),
    # a .npy given as a schedule crashed the npz reader
    ("schedule-npz", ".npy file", "verify", ("single NumPy array (.npy)", "expected a .npz")),
    # an npz declaring a 1e11-element array made `verify` allocate 745 GiB
    ("schedule-npz", "declares 1e11 starts", "verify", ("declares shape (100000000000,)",)),
    # a trace line with a million reducers ran past 10 minutes in `schedule`
    ("coflow-benchmark", "a million reducers, all present", "schedule", ("MAX_PORTS",)),
]


@pytest.mark.parametrize("reader,name,command,words", ISSUE_CASES,
                         ids=[f"{r}:{n}" for r, n, _, _ in ISSUE_CASES])
def test_issue_cases_as_user(corpus, reader, name, command, words):
    d, manifest = corpus
    case = by_name(manifest, reader, name)
    args = list(case["args"])
    if command == "schedule":  # the reader under test is the same; the command is the issue's
        args = ["schedule", args[1], "--format", reader, "--order", "sebf", "--rates",
                "greedy", "--json"]
    rc, out, err = run_cli(args)
    assert rc == 2 and out == "" and "Traceback" not in err, err
    assert len(err.splitlines()) == 1 and case["file"] in err
    assert all(w in err for w in words), err


def test_subnormal_sizes_in_bound(corpus):
    """Subnormal sizes crashed `bound` (OverflowError in a grid computation)."""
    d, manifest = corpus
    case = by_name(manifest, "instance-json", "size subnormal")
    rc, out, err = run_cli(["bound", case["args"][1], "--json"])
    assert rc == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert case["file"] in err and "SIZE_MIN..SIZE_MAX" in err and "5e-324" in err


def test_npy_named_npy_as_schedule(corpus, tmp_path):
    """A .npy file under its own name is refused by its extension, naming the known ones."""
    d, _ = corpus
    p = tmp_path / "pieces.npy"
    p.write_bytes(mc.npy_bytes(__import__("numpy").arange(3.0)))
    rc, out, err = run_cli(["verify", str(d / "seed-instance.json"), str(p), "--json"])
    assert rc == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "pieces.npy" in err and ".npz" in err and ".json" in err
