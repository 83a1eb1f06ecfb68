"""The ``coflowopt`` command's entry point (coflowopt/_entry.py): when it restarts itself with
glibc's transparent-huge-page tunable, when it does not, and that the restarted command is the
same command (same arguments, same standard input and output, same exit code)."""

import json
import os
import subprocess
import sys

import pytest

from coflowopt import _entry
from coflowopt._entry import TUNABLE, hugepage_environment

LINUX_GLIBC = dict(platform="linux", libc="glibc 2.36", thp_mode="always [madvise] never")


def test_restart_environment_adds_the_tunable():
    env = hugepage_environment({"PATH": "/bin"}, **LINUX_GLIBC)
    assert env == {"PATH": "/bin", "GLIBC_TUNABLES": TUNABLE}


def test_restart_environment_keeps_the_users_tunables():
    env = hugepage_environment({"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}, **LINUX_GLIBC)
    assert env["GLIBC_TUNABLES"] == "glibc.malloc.arena_max=2:" + TUNABLE


@pytest.mark.parametrize("environ, kw", [
    ({"GLIBC_TUNABLES": TUNABLE}, {}),                         # already restarted: no loop
    ({"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"}, {}),        # the user's choice stands
    ({"COFLOWOPT_HUGEPAGES": "0"}, {}),                        # switched off
    ({}, {"platform": "darwin"}),
    ({}, {"libc": "glibc 2.34"}),                              # no such tunable before 2.35
    ({}, {"libc": ""}),                                        # musl and others
    ({}, {"libc": "glibc x.y"}),
    ({}, {"thp_mode": "[always] madvise never"}),              # huge pages without advice
    ({}, {"thp_mode": "always madvise [never]"}),              # advice ignored
])
def test_no_restart(environ, kw):
    assert hugepage_environment(environ, **{**LINUX_GLIBC, **kw}) is None


def test_in_process_main_never_restarts(monkeypatch, capsys):
    """``main(argv)`` (how tests and library users call it) runs in this process."""
    def fail(*a, **k):  # pragma: no cover - reached only if main tried to restart
        raise AssertionError("execve called")
    monkeypatch.setattr(os, "execve", fail)
    assert _entry.main(["--version"]) == 0
    assert "coflowopt" in capsys.readouterr().out


def _qualifies() -> bool:
    return hugepage_environment() is not None


def _run(code, env_extra=None, stdin=None):
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES",
                                                             "COFLOWOPT_HUGEPAGES")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


RESTART_PROBE = ("import os; from coflowopt import _entry; _entry.restart_with_hugepages(); "
                 "print(os.environ.get('GLIBC_TUNABLES', ''))")


@pytest.mark.skipif(not _qualifies(), reason="needs Linux, glibc >= 2.35 and THP in madvise "
                    "mode (the restart is a no-op elsewhere)")
def test_restart_replaces_the_process_with_the_tunable_set():
    out = _run(RESTART_PROBE)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == TUNABLE
    off = _run(RESTART_PROBE, {"COFLOWOPT_HUGEPAGES": "0"})
    assert off.stdout.strip() == ""


def test_the_command_behaves_the_same_with_and_without_the_restart(tmp_path):
    """Same standard output (JSON and nothing else), standard input read once, exit codes."""
    inst = tmp_path / "i.json"
    # B (1 unit) goes first on the shared egress port 1: B at 1, A at 1 + 2 = 3
    inst.write_text(json.dumps({"format": "coflowopt-instance", "version": 1,
                                "ingress": [1, 1], "egress": [1, 1],
                                "coflows": [{"id": "A", "flows": [[0, 1, 2]]},
                                            {"id": "B", "flows": [[1, 1, 1]]}]}))
    outs = []
    for flag in ("1", "0"):
        env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
        env["COFLOWOPT_HUGEPAGES"] = flag
        ok = subprocess.run([sys.executable, "-m", "coflowopt", "schedule", str(inst),
                             "--order", "sebf", "--rates", "greedy", "--json"], env=env,
                            capture_output=True, text=True, timeout=300)
        assert ok.returncode == 0, ok.stderr
        bad = subprocess.run([sys.executable, "-m", "coflowopt", "schedule", str(inst),
                              "--no-such-flag"], env=env, capture_output=True, text=True,
                             timeout=300)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
        doc = json.loads(ok.stdout)
        outs.append((doc["kind"], doc["value"], bad.stderr))
    assert outs[0] == outs[1]
    assert outs[0][:2] == ("feasible", 4.0)
