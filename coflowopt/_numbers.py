"""Strict number handling shared by the readers and writers: nothing is rounded silently."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

__all__ = ["plain_number", "strict_float", "MAX_EXACT_INT"]

#: Integers up to this magnitude are exactly representable as float64.
MAX_EXACT_INT = 2 ** 53


def plain_number(x: Any) -> int | float | str:
    """A value as a JSON number: an int when it is an integral float, the shortest repr that
    round-trips otherwise; a Fraction that is not a dyadic float becomes the string ``"p/q"``."""
    if isinstance(x, Fraction):
        if x.denominator == 1 and abs(x.numerator) < MAX_EXACT_INT:
            return int(x.numerator)
        f = float(x)
        if Fraction(f) == x:
            return plain_number(f)
        return f"{x.numerator}/{x.denominator}"
    if isinstance(x, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(x, int):
        return x
    f = float(x)
    if f.is_integer() and abs(f) < MAX_EXACT_INT:
        return int(f)
    return f


def strict_float(value: Any, what: str) -> float:
    """Convert a parsed JSON/text value to float64 without silent rounding.

    Raises ValueError with a message naming ``what`` if the value is not a finite number or an
    integer too large to be represented exactly.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    if isinstance(value, int):
        try:
            f = float(value)
        except OverflowError:  # beyond float64's range (~1.8e308): not a rounding, an error
            raise ValueError(f"{what} = {value} is too large for a float64") from None
        if abs(value) > MAX_EXACT_INT and int(f) != value:
            raise ValueError(f"{what} = {value} cannot be represented exactly as a float64")
        return f
    if not math.isfinite(value):
        raise ValueError(f"{what} must be finite, got {value!r}")
    return float(value)
