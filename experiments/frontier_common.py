"""Helpers shared by the theory-frontier experiments (issue 13): one timer, one argument
parser with the flags every script takes, one verified value for fluid and slotted schedules.

The scripts run as ``python experiments/<script>.py``; each puts this directory on
``sys.path`` first, so that ``import frontier_common`` also works when a test loads a script
by its file path.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

__all__ = ["timed", "frontier_parser", "verified_value"]


def timed(f, *a, **kw):
    """``(f(*a, **kw), wall seconds)``.

    Examples
    --------
    >>> v, s = timed(sum, [1, 2])
    >>> v, s >= 0
    (3, True)
    """
    t0 = time.perf_counter()
    v = f(*a, **kw)
    return v, time.perf_counter() - t0


def frontier_parser(doc: str | None, n: int = 30) -> argparse.ArgumentParser:
    """An ArgumentParser with ``--n`` (instances, default ``n``), ``--seed`` (default 0) and
    ``--out`` (a JSON file of every row), described by the first line of ``doc``."""
    ap = argparse.ArgumentParser(description=(doc or "").strip().split("\n")[0])
    ap.add_argument("--n", type=int, default=n, help=f"instances (default {n})")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--out", help="write every row to this JSON file")
    return ap


def verified_value(instance, schedule) -> Fraction:
    """``sum_k w_k C_k`` of ``schedule`` as the independent verifier computes it: a fluid
    :class:`~coflowopt.schedule.Schedule` through :func:`coflowopt.verify.verify_schedule`, a
    :class:`~coflowopt.slotted.SlottedSchedule` through :func:`coflowopt.slotted.verify_slotted`;
    a rejected schedule raises AssertionError with the verifier's summary."""
    from coflowopt.slotted import SlottedSchedule, verify_slotted
    from coflowopt.verify import verify_schedule
    rep = (verify_slotted(instance, schedule) if isinstance(schedule, SlottedSchedule)
           else verify_schedule(instance, schedule))
    assert rep.ok, rep.summary()
    return Fraction(rep.weighted_completion_time)
