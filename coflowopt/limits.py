"""Input limits: the one place where coflowopt's numeric ranges and size limits live.

Every reader (instance JSON, coflow-benchmark and Sincronia traces, schedule JSON and ``.npz``)
and :class:`~coflowopt.instance.Instance` itself enforce these limits, so that a value outside
them is an :class:`~coflowopt.exceptions.InputError` naming the file, line or field and the rule
(exit 2 from the command line) instead of an overflow, a subnormal, a stalled event loop or an
allocation of hundreds of gigabytes somewhere downstream.

Why these numbers
-----------------
What the algorithms compute from the input, and how large or small it gets:

* **processing times** ``size / capacity`` (``rho``, SEBF keys, MADD rates, event times);
* **sums over flows and coflows** of those (port loads, horizons, objective values: at most
  :data:`MAX_FLOWS` terms);
* **products** ``weight x time`` (objectives, LP objective coefficients), ``rate x duration``
  (data sent, in the verifier) and the pairwise products ``d_k^p d_l^p / c_p^2`` of the ordering
  LP (squares of sums);
* **differences of event times** (piece lengths), which float64 resolves only to one unit in the
  last place of the time (``2.2e-16 t``).

Absolute ranges (per value).  Sizes and capacities lie in ``[1e-9, 1e12]`` (21 decades: bytes
to petabytes, or MB with nine decades to spare either side of the FB trace's 1 .. 2,470 MB),
weights are 0 or in ``[1e-9, 1e9]``, times are 0 or of magnitude in ``[1e-30, 1e35]`` and rates 0
or of magnitude in ``[1e-30, 1e15]`` (1,000 times the largest capacity, so that a too-high rate
is still the verifier's verdict, not a read error).  Then every quantity above stays within
about ``[1e-90, 1e70]`` (processing times ``[1e-21, 1e21]``; a sum of 1e8 of them at most 1e29;
``weight x time`` at most ``1e9 x 1e35``; ``rate x duration`` at least ``1e-30 x 2e-46``, the
smallest difference of two distinct times >= 1e-30), and even the squares of the ordering LP at
most ``1e140``: more than 150 decades from float64's overflow (1.8e308) and from its subnormal
range (below 2.2e-308), where precision silently drops.  Exact (Fraction) arithmetic is correct
for any value; the ranges keep its numbers short.  NaN, infinities, subnormals and values like
1e308 are therefore refused, and so is a nonzero magnitude below 1e-30 (a rounding residue, not a
time or a rate: the shortest processing time in range is 1e-21).

Relative range (per instance), :data:`DYNAMIC_RANGE_MAX` = 1e12.  Float event times are only
meaningful while the shortest processing time of any flow, ``tau = min_f size_f /
min(c_src(f), c_dst(f))``, spans many units in the last place of the latest time an algorithm
reaches.  That time is at most about ``H = max_k release_k + sum_f size_f / min(c_src(f),
c_dst(f))`` (serve everything one flow at a time after the last release), so
``H / tau <= 1e12`` keeps ``tau >= 4,500 ulp(H)``: a flow's completion never rounds onto its
start (``t + tau == t``, which stalls an event loop, needs ``H / tau > 4.5e15``), with more than
three decades of margin.  The FB trace has ``H / tau = 3.6e7``; the papers' instances at most
107.
The rule is scale invariant: multiplying every size, every capacity or every time by a constant
(within the absolute ranges) never changes whether an instance is accepted.

Counts.  :data:`MAX_PORTS` per side, :data:`MAX_COFLOWS`, :data:`MAX_FLOWS` (20 times the largest
trace coflowopt has been run on, the 5.2 M-flow 4,000-coflow FB-UP trace; an instance this size
takes about 3 GB) and :data:`MAX_PIECES` bound what a file may make coflowopt allocate; the
readers also check every declared count and array shape against what the file actually holds
(tokens on the line, bytes in the ``.npz`` member) *before* allocating, so a small file can never
declare a huge allocation.  A number written with more than :data:`MAX_NUMBER_DIGITS` digits
(an integer, or the numerator or denominator of an exact ``"p/q"``) is refused: no value in
range needs more (a float64 in range is a dyadic fraction of at most about 160 digits, and
coflowopt's exact schedules have tens), parsing stays linear-time, and Python's own limit on
integer strings (4,300 digits) can never surface.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["SIZE_MIN", "SIZE_MAX", "CAPACITY_MIN", "CAPACITY_MAX", "WEIGHT_MIN", "WEIGHT_MAX",
           "TIME_MIN", "TIME_MAX", "RATE_MIN", "RATE_MAX", "DYNAMIC_RANGE_MAX", "MAX_PORTS",
           "MAX_COFLOWS", "MAX_FLOWS", "MAX_RESOURCES", "MAX_PATH_LENGTH", "MAX_PIECES", "MAX_NUMBER_DIGITS", "Range", "RANGES",
           "first_out_of_range", "value_rule", "digits_rule", "dynamic_range", "check_time_length", "count_rule",
           "TOL_REL_MAX", "TIE_RTOL_MIN", "check_number", "check_tolerance", "check_integer"]

#: flow sizes (data units)
SIZE_MIN, SIZE_MAX = 1e-9, 1e12
#: port capacities (data units per time unit)
CAPACITY_MIN, CAPACITY_MAX = 1e-9, 1e12
#: nonzero weights (0 is allowed)
WEIGHT_MIN, WEIGHT_MAX = 1e-9, 1e9
#: nonzero magnitudes of times: releases, deadlines, schedule starts and ends (0 is allowed)
TIME_MIN, TIME_MAX = 1e-30, 1e35
#: nonzero magnitudes of schedule rates (0 is allowed)
RATE_MIN, RATE_MAX = 1e-30, 1e15
#: largest ``H / tau`` of an instance (see the module docstring)
DYNAMIC_RANGE_MAX = 1e12
#: ports per side
MAX_PORTS = 100_000
MAX_COFLOWS = 10_000_000
MAX_FLOWS = 100_000_000
#: resources (links) of an instance on a topology; a k=64 fat-tree has 3 * 64**3 / 2 = 393,216
MAX_RESOURCES = 10_000_000
#: resources on one flow's path (a fat-tree path has at most 6 links; 64 leaves room for
#: general graphs while keeping the path arrays at most 64 times the flow arrays)
MAX_PATH_LENGTH = 64
#: pieces of a schedule file
MAX_PIECES = 1 << 30
#: digits of an integer literal, or of the numerator or denominator of a "p/q" fraction
MAX_NUMBER_DIGITS = 1000
#: largest ``tol_rel`` of the event-driven allocations (greedy, MADD, Varys, the MLFQ family,
#: Aalo, CLAS): a resource's residual capacity below ``tol_rel`` times its capacity counts as
#: 0.  It absorbs round-off in residuals (float64 resolves 2.2e-16 of a value), it is not a
#: knob of the algorithm: a larger value leaves capacity idle that the algorithm means to hand
#: out (CLAS at 0.5 stalls with coflows unfinished), and at 1 or more no flow gets a rate.
TOL_REL_MAX = 1e-6
#: smallest ``tie_rtol`` of CLAS (attained service values within this relative distance tie):
#: a tie is where a less-served coflow catches up with a more-served one, at a time computed in
#: float64; closer than about 1e-12 (a few thousand units in the last place) the two may never
#: tie, and the event loop alternates between them until its event limit (``tie_rtol=0`` did).
TIE_RTOL_MIN = 1e-12


@dataclass(frozen=True)
class Range:
    """The allowed values of one kind of number.

    A value is allowed when it is finite and either zero (if ``zero``), or has a magnitude in
    ``[lo, hi]`` and is positive (or negative too, if ``negative``).
    """

    name: str
    lo: float
    hi: float
    zero: bool
    negative: bool

    def describe(self) -> str:
        """The rule in words, e.g. ``a finite number in [1e-09, 1e+12]``."""
        span = f"[{self.lo:g}, {self.hi:g}]"
        if self.negative:
            body = f"of magnitude in {span}"
        else:
            body = f"in {span}"
        return (f"0 or a finite number {body}" if self.zero else f"a finite number {body}") + \
            f" (coflowopt.limits, {self.name})"


#: kind -> Range.  ``schedule_time`` allows negative values: a schedule that starts before a
#: release is well formed, and infeasible -- the verifier's verdict, not the reader's.
RANGES: dict[str, Range] = {
    "size": Range("SIZE_MIN..SIZE_MAX", SIZE_MIN, SIZE_MAX, zero=False, negative=False),
    "capacity": Range("CAPACITY_MIN..CAPACITY_MAX", CAPACITY_MIN, CAPACITY_MAX, zero=False,
                      negative=False),
    "weight": Range("WEIGHT_MIN..WEIGHT_MAX", WEIGHT_MIN, WEIGHT_MAX, zero=True, negative=False),
    "time": Range("TIME_MIN..TIME_MAX", TIME_MIN, TIME_MAX, zero=True, negative=False),
    "schedule_time": Range("TIME_MIN..TIME_MAX", TIME_MIN, TIME_MAX, zero=True, negative=True),
    "rate": Range("RATE_MIN..RATE_MAX", RATE_MIN, RATE_MAX, zero=True, negative=True),
}


def check_number(value: Any, name: str, lo: float, hi: float = math.inf, *,
                 lo_open: bool = False) -> float:
    """``value`` as a float when it is a finite real number in ``[lo, hi]`` (``(lo, hi]`` with
    ``lo_open``), else :class:`~coflowopt.exceptions.InvalidParameterError` naming ``name``
    and the range: a bool, a string, NaN, an infinity or an int beyond float64 is refused.

    The one range check of an algorithm's real-valued parameters (tolerances through
    :func:`check_tolerance`; a bound's cutoff, which must be ``> 0``).

    Examples
    --------
    >>> check_number(2, "cutoff", 0.0, lo_open=True)
    2.0
    >>> check_number(0, "cutoff", 0.0, lo_open=True)
    Traceback (most recent call last):
    ...
    coflowopt.exceptions.InvalidParameterError: cutoff must be a number > 0 and finite, got 0
    """
    from .exceptions import InvalidParameterError

    v = math.nan
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        try:
            v = float(value)
        except OverflowError:             # an int (or a Fraction) beyond float64
            pass
    above = v > lo if lo_open else v >= lo
    if not (math.isfinite(v) and above and v <= hi):   # NaN fails the comparisons
        op = ">" if lo_open else ">="
        rule = (f"in {'(' if lo_open else '['}{lo:g}, {hi:g}]" if math.isfinite(hi)
                else f"{op} {lo:g} and finite")
        raise InvalidParameterError(f"{name} must be a number {rule}, got {value!r}")
    return v


def check_tolerance(value: Any, name: str, lo: float, hi: float = math.inf) -> float:
    """``value`` as a float when it is a number in ``[lo, hi]``, else
    :class:`~coflowopt.exceptions.InvalidParameterError` naming ``name`` and the range.

    The one check of the algorithms' numerical tolerances (``tol_rel`` in ``[0,``
    :data:`TOL_REL_MAX` ``]``, CLAS' ``tie_rtol`` at least :data:`TIE_RTOL_MIN`), made where a
    policy is built and where a compiled loop is entered, so that a value outside it is a clean
    error naming the parameter, not a stalled kernel or an event limit.

    Examples
    --------
    >>> check_tolerance(1e-12, "tol_rel", 0.0, TOL_REL_MAX)
    1e-12
    >>> check_tolerance(-1, "tol_rel", 0.0, TOL_REL_MAX)
    Traceback (most recent call last):
    ...
    coflowopt.exceptions.InvalidParameterError: tol_rel must be a number in [0, 1e-06], got -1
    """
    return check_number(value, name, lo, hi)


def check_integer(value: Any, name: str, lo: int, *, nullable: bool = False) -> int | None:
    """``value`` as an int when it is an integer ``>= lo`` (or None, with ``nullable``), else
    :class:`~coflowopt.exceptions.InvalidParameterError` naming ``name`` and the rule: counts,
    seeds, budgets (a bool is not an integer here, nor is ``2.0``).

    Examples
    --------
    >>> check_integer(3, "seed", 0), check_integer(None, "seed", 0, nullable=True)
    (3, None)
    >>> check_integer(-1, "seed", 0, nullable=True)
    Traceback (most recent call last):
    ...
    coflowopt.exceptions.InvalidParameterError: seed must be None or an integer >= 0, got -1
    """
    from .exceptions import InvalidParameterError

    if nullable and value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < lo:
        rule = f"{'None or ' if nullable else ''}an integer >= {lo}"
        raise InvalidParameterError(f"{name} must be {rule}, got {value!r}")
    return int(value)


def first_out_of_range(values: np.ndarray, kind: str) -> int | None:
    """Index of the first value of a float array outside :data:`RANGES` ``[kind]``, or None.

    Vectorised: one pass of comparisons over the array (NaN compares false, so it is out).

    Examples
    --------
    >>> first_out_of_range(np.array([1.0, 1e-310, 2.0]), "size")
    1
    >>> first_out_of_range(np.array([0.0, -3.0]), "rate") is None
    True
    """
    r = RANGES[kind]
    a = values if isinstance(values, np.ndarray) and values.dtype == np.float64 else \
        np.asarray(values, dtype=float)
    mag = np.abs(a) if r.negative else a
    ok = (mag >= r.lo) & (mag <= r.hi)
    if r.zero:
        ok |= a == 0
    # Instance checks six arrays on every construction: keep the passing case to a few ufuncs
    return None if ok.all() else int(np.argmin(ok))


def value_rule(value: Any, kind: str) -> str | None:
    """The broken rule for one number (int, float or Fraction) of ``kind``, or None if allowed.

    Comparisons are exact (a Fraction is compared with the float bounds as rationals).

    Examples
    --------
    >>> value_rule(1e308, "size")
    'must be a finite number in [1e-09, 1e+12] (coflowopt.limits, SIZE_MIN..SIZE_MAX), got 1e+308'
    >>> value_rule(Fraction(-1, 3), "rate") is None
    True
    """
    r = RANGES[kind]
    if isinstance(value, float) and not math.isfinite(value):
        ok = False
    elif value == 0:
        ok = r.zero
    else:
        mag = abs(value) if r.negative else value
        ok = r.lo <= mag <= r.hi
    if ok:
        return None
    shown = f"{value}" if isinstance(value, Fraction) else f"{value!r}"
    if len(shown) > 60:
        shown = shown[:30] + "..." + shown[-10:]
    return f"must be {r.describe()}, got {shown}"


def digits_rule(text: str) -> str | None:
    """The broken rule if an integer or ``"p/q"`` text has a part longer than
    :data:`MAX_NUMBER_DIGITS` digits, else None."""
    parts = text.lstrip("+-").split("/")
    longest = max(len(p) for p in parts)
    if longest <= MAX_NUMBER_DIGITS:
        return None
    return (f"a number written with {longest} digits (more than MAX_NUMBER_DIGITS = "
            f"{MAX_NUMBER_DIGITS}, coflowopt.limits) is refused: no value in range needs them")


def count_rule(what: str, value: int, limit: int, name: str) -> str | None:
    """The broken rule if a count exceeds its limit, else None."""
    if value <= limit:
        return None
    return (f"{value} {what} exceed the limit of {limit} ({name}, coflowopt.limits)")


def check_time_length(name: str, value: float, size: np.ndarray,
                      flow_capacity: np.ndarray) -> None:
    """Refuse a time length (a slot, a horizon) beyond ``DYNAMIC_RANGE_MAX`` times the
    shortest processing time ``tau = min_f size_f / flow_capacity_f``, where the instance's
    own times lie: a slot or horizon of 1e30 made LP coefficients HiGHS takes for infinite
    (1e20), and it rejected the model (exit 4, "passModel returned kError").

    Raises
    ------
    InvalidParameterError
        Naming ``name``, the value and the limit.
    """
    from .exceptions import InvalidParameterError
    top = DYNAMIC_RANGE_MAX * float(np.min(size / flow_capacity))
    if value > top:
        raise InvalidParameterError(f"{name} = {value!r} is beyond {top:.6g} (DYNAMIC_RANGE_MAX "
                                    f"= {DYNAMIC_RANGE_MAX:g} times the instance's shortest "
                                    "processing time)")


def dynamic_range(size: np.ndarray, flow_capacity: np.ndarray, release: np.ndarray) -> float:
    """``H / tau`` of the module docstring.

    Parameters
    ----------
    size : ndarray, shape (F,)
        Flow sizes (in range).
    flow_capacity : ndarray, shape (F,)
        The smallest capacity on every flow's path (``min(c_src(f), c_dst(f))`` on a big
        switch).
    release : ndarray, shape (K,)
        Release times.

    Returns
    -------
    float
        ``(max release + sum_f size_f / flow_capacity_f) / min_f size_f / flow_capacity_f``.
    """
    t = size / flow_capacity
    # a plain sum: positive terms, at most MAX_FLOWS of them, so no cancellation or overflow
    return float((release.max(initial=0.0) + t.sum()) / t.min())
