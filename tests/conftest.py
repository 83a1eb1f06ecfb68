"""Shared fixtures.  Tests that need ../shared (the seed papers, digests and the FB trace) use
``shared_dir`` or ``fb_trace_path`` and skip cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("COFLOWOPT_SHARED", REPO.parent / "shared"))
FB_TRACE = SHARED / "data" / "FB2010-1Hr-150-0.txt"

# "ci" runs more examples; "dev" (default) keeps the suite quick.
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=200, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_configure(config):
    """Compile the package's bytecode once, before the workers start.

    Why: the suite starts several hundred interpreters (``coflowopt`` as a process: the CLI
    contract, exit codes, stdout purity).  Where ``PYTHONDONTWRITEBYTECODE`` is set (this CI
    machine sets it) no import ever writes a ``.pyc``, so every one of those processes compiled
    coflowopt's ~100 modules from source again: 0.65 s of CPU per process (2.5 -> 1.85 s for a
    3-coflow ``schedule``).  ``compileall`` writes them explicitly, into the ``__pycache__``
    folders where numba's kernel cache already lives; imports read them whatever the variable
    says.  Only the controller does it (xdist workers have ``workerinput``)."""
    if hasattr(config, "workerinput"):
        return
    import compileall
    pkg = REPO / "coflowopt"
    if os.access(pkg, os.W_OK):
        compileall.compile_dir(str(pkg), quiet=1, workers=1)
    _warm_kernels(config)


#: The two halves of the kernel warm-up (:func:`_warm_kernels`), each in its own process: the
#: greedy kernel (~92 s of CPU to compile on a quiet machine) and the flow-level, D-CLAS and
#: Sincronia-online kernels over paths; MADD (~62 s) and the big-switch policies' kernels.
#: Neither half calls the greedy or the MADD kernel of the other.
_WARM_HALVES = [
    [("instances/coflowlib/v1/ft4-mixed/ft4-mixed-001.instance",
      ["bssi+greedy", "fair", "priority", "aalo", "sincronia-online"])],
    [("instances/papers/dissertation-fig5.1.json",
      ["sebf+madd", "varys", "fair", "priority", "aalo", "sincronia-online", "mlfq", "baraat"]),
     ("instances/coflowlib/v1/ft4-mixed/ft4-mixed-001.instance", ["sebf+madd"])],
]
_WARM_CODE = """
import sys, json
from coflowopt.formats import read_instance
from coflowopt.testing import as_scheduler
for path, names in json.loads(sys.argv[1]):
    inst = read_instance(path)
    for name in names:
        as_scheduler(name).run(inst)
"""


def _warm_kernels(config) -> None:
    """Compile the largest numba kernels in two processes at once before the xdist workers
    start, when their cache is cold (a fresh clone).

    Why: numba compiles a kernel in every process that calls it before its cache exists, and
    the workers reach the largest kernels within the first minute, both at once:
    ``greedy_simulate_paths`` (~120 s of CPU) and ``madd_simulate`` (~42 s) were each compiled
    twice in a fresh-clone run (482 s of compilation in all, about a third of it duplicated;
    CONTRIBUTING.md, Tests).  Here one process compiles the greedy kernel while the other
    compiles the rest of the large ones; the workers then load them from the cache.  Nothing
    here is checked: a failure only means the workers compile on demand, as without it.  A
    cold-cache ``-n`` run of a few tests pays it too (~2 min on 2 cores);
    ``COFLOWOPT_NO_WARMUP=1`` skips it."""
    workers = getattr(config.option, "numprocesses", None)
    if not workers or os.environ.get("COFLOWOPT_NO_WARMUP") not in (None, "", "0"):
        return
    try:
        from coflowopt.rates import _greedy_kernel
        from coflowopt.rates._jit import HAVE_NUMBA, _cache_is_cold
    except ImportError:  # pragma: no cover
        return
    if not HAVE_NUMBA or not _cache_is_cold(_greedy_kernel.greedy_simulate_paths.py_func):
        return
    import json
    import subprocess
    import sys
    import time
    start = time.perf_counter()
    env = dict(os.environ, COFLOWOPT_QUIET_JIT="1")
    procs = [subprocess.Popen([sys.executable, "-c", _WARM_CODE, json.dumps(half)], cwd=REPO,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for half in _WARM_HALVES]
    codes = [p.wait() for p in procs]
    print(f"conftest: numba kernels compiled in two processes before the workers start "
          f"({time.perf_counter() - start:.0f} s; exit codes {codes})", file=sys.stderr)


@pytest.fixture(scope="session")
def repo_dir() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"../shared is not present at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def fb_trace_path(shared_dir) -> Path:
    if not FB_TRACE.is_file():
        pytest.skip(f"FB trace not found at {FB_TRACE}")
    return FB_TRACE
