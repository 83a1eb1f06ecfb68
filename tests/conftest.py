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
