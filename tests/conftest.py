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
