"""The exact bound ``LB(y)`` of :mod:`coflowopt.formulations.certificates` in compiled float
arithmetic that is error-free: the same rational number, computed from the same floats.

Why: the branch and bound certifies every node LP (``order_lp.solve_event_lp``), and the
integer path (:func:`~coflowopt.formulations.certificates._exact_bound`: the data converted to
Python integers at a common power of two, object arrays) cost about 1-2.5 ms per LP, 15-21 % of
the search at 20-26 coflows; most of it the fixed cost of seven conversions.

How (no rounding anywhere, so no tolerance):

* ``TwoProduct`` (Dekker 1971, Veltkamp's split): ``a b = p + e`` exactly with ``p = fl(a b)``,
  for binary64 with round to nearest when nothing overflows or underflows (Boldo 2006: exact
  whenever ``e_a + e_b >= e_min + p - 1 = -970``).  Every factor here is 0 or has magnitude in
  ``[2^-900, 2^900]``, and so is every product ``p``; otherwise the kernel answers
  :data:`OUT_OF_RANGE` and the caller takes the integer path.
* Grow-Expansion (Shewchuk 1997, Theorem 10; the partials of CPython's ``math.fsum``): a list of
  non-overlapping floats of increasing magnitude whose exact sum is the sum of everything added,
  each addition by ``TwoSum`` (exact without overflow, gradual underflow included).  The sign of
  such an expansion is the sign of its largest component (Shewchuk, section 2.4), which gives
  the exact sign of every reduced cost ``d_j = c_j - sum_i a_ij y_i``.
* ``LB(y)`` is one expansion of the row terms ``y_i L_i`` / ``y_i U_i``, and of ``q L_j`` /
  ``q U_j`` for every component ``q`` of ``d_j``'s expansion; the caller adds its components
  (a few floats) and the offset as :class:`~fractions.Fraction` s.

References
----------
T. J. Dekker, "A floating-point technique for extending the available precision",
Numer. Math. 18 (1971) 224-242.  S. Boldo, "Pitfalls of a full floating-point proof: example on
the formal proof of the Veltkamp/Dekker algorithms", IJCAR 2006.  J. R. Shewchuk, "Adaptive
precision floating-point arithmetic and fast robust geometric predicates", Discrete Comput.
Geom. 18 (1997) 305-363.
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit

__all__ = ["exact_bound_kernel", "OK", "ROW_INFINITE", "COLUMN_INFINITE", "OUT_OF_RANGE",
           "EXPANSION_CAP"]

OK = 0
#: a multiplier has the sign of an infinite row side
ROW_INFINITE = 1
#: a reduced cost has the sign of an infinite column bound (the signs are all written)
COLUMN_INFINITE = 2
#: a factor or product outside ``[2^-900, 2^900]`` (or an expansion longer than the buffer):
#: the error-free transformations are not proved exact there
OUT_OF_RANGE = 3
#: buffer length of an expansion: non-overlapping components of at least one bit each over
#: binary64's 2,098 exponents (never near that in practice)
EXPANSION_CAP = 2200

_BIG = 2.0 ** 900
_TINY = 2.0 ** -900
_SPLIT = 134217729.0          # 2^27 + 1 (Veltkamp)


@njit(cache=True)
def _in_range(v):
    a = abs(v)
    return v == 0.0 or (a >= _TINY and a <= _BIG)


@njit(cache=True)
def _two_product(a, b):
    """``(p, e, ok)``: ``a b = p + e`` exactly when ``ok``."""
    p = a * b
    if a == 0.0 or b == 0.0:
        return 0.0, 0.0, True
    if not (_in_range(a) and _in_range(b) and _in_range(p)):
        return p, 0.0, False
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e, True


@njit(cache=True, borrowed=True)
def _grow(parts, n, x):
    """Add ``x`` to the expansion ``parts[:n]`` (zero components dropped); its new length,
    or -1 when the buffer is full or a sum overflowed."""
    if x == 0.0:
        return n
    i = 0
    for k in range(n):
        y = parts[k]
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            parts[i] = lo
            i += 1
        x = hi
    if not np.isfinite(x):
        return -1
    if x != 0.0:
        if i >= parts.size:
            return -1
        parts[i] = x
        i += 1
    return i


@njit(cache=True, borrowed=True)
def _add_product(parts, n, a, b):
    """Add ``a b`` exactly to the expansion ``parts[:n]``: its new length, or -1 out of
    range (:func:`_two_product`) or when the buffer is full."""
    p, e, ok = _two_product(a, b)
    if not ok:
        return -1
    n = _grow(parts, n, p)
    return _grow(parts, n, e) if n >= 0 else -1


@njit(cache=True)
def exact_bound_kernel(indptr, indices, data, y, row_lo, row_hi, c, col_lo, col_hi,
                       d_sign, total):
    """``LB(y)`` for the CSR matrix ``(indptr, indices, data)``: a status and the length of
    the expansion written to ``total`` (its exact sum is ``LB(y)`` without the offset);
    ``d_sign`` gets the exact sign of every reduced cost (status ``OK`` or
    ``COLUMN_INFINITE``).  ``y`` must be finite, ``c`` finite."""
    m = y.size
    n = c.size
    for i in range(m):
        if y[i] > 0.0 and not np.isfinite(row_lo[i]):
            return ROW_INFINITE, 0
        if y[i] < 0.0 and not np.isfinite(row_hi[i]):
            return ROW_INFINITE, 0
    nt = 0
    for i in range(m):
        yi = y[i]
        if yi == 0.0:
            continue
        nt = _add_product(total, nt, yi, row_lo[i] if yi > 0.0 else row_hi[i])
        if nt < 0:
            return OUT_OF_RANGE, 0
    # the entries column by column (counting sort of the CSR entries)
    nnz = indices.size
    cptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(nnz):
        cptr[indices[k] + 1] += 1
    for j in range(n):
        cptr[j + 1] += cptr[j]
    fill = cptr[:n].copy()
    ent_row = np.empty(nnz, dtype=np.int64)
    ent_val = np.empty(nnz, dtype=np.float64)
    for i in range(m):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            ent_row[fill[j]] = i
            ent_val[fill[j]] = data[k]
            fill[j] += 1
    parts = np.empty(total.size, dtype=np.float64)
    bad = False
    for j in range(n):
        nd = _grow(parts, 0, c[j])
        for k in range(cptr[j], cptr[j + 1]):
            nd = _add_product(parts, nd, -ent_val[k], y[ent_row[k]])
            if nd < 0:
                return OUT_OF_RANGE, 0
        s = 0
        if nd > 0:
            s = 1 if parts[nd - 1] > 0.0 else -1
        d_sign[j] = s
        if s == 0 or bad:
            continue
        bnd = col_lo[j] if s > 0 else col_hi[j]
        if not np.isfinite(bnd):
            bad = True
            continue
        for q in range(nd):
            nt = _add_product(total, nt, parts[q], bnd)
            if nt < 0:
                return OUT_OF_RANGE, 0
    if bad:
        return COLUMN_INFINITE, 0
    return OK, nt
