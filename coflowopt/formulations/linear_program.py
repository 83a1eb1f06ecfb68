"""The matrix form every LP/MIP builder of :mod:`coflowopt.formulations` returns.

A :class:`LinearProgram` is

    min  c^T x + offset
    s.t. row_lo <= A x <= row_hi,   col_lo <= x <= col_hi,   x_j integer where integrality_j,

stored as numpy arrays and a CSR matrix, so that it loads into highspy in one call
(solver-interfaces.md section 4.2: 0.26 s for a 369k x 369k LP against 78 s through Pyomo).

Exactness contract
------------------
A lower bound is only as good as the LP it comes from, so every builder states its data
*exactly*:

* the entries of ``A`` and ``c`` are exact as float64 numbers, unless ``exact["A_data"]``
  (aligned with ``A.data``) or ``exact["c"]`` gives the exact values (for example a port load that
  is a sum of float flow sizes whose float sum was rounded);
* ``row_lo``, ``row_hi``, ``col_lo``, ``col_hi`` and ``offset`` are exact unless ``exact`` holds an
  object array (or a Fraction for ``offset``) of :class:`fractions.Fraction` with the true values;
  the float arrays then hold the nearest floats and are what the solvers see.

The certificate checker (:mod:`.certificates`) reads only the exact data.  The exact entries of
``A`` must be dyadic rationals (finite sums of floats are), which keeps exact ``A^T y`` a
vectorised computation on Python integers.

Rows as ranges
--------------
``A`` is a CSR matrix, or a :class:`RangeRows` matrix: row ``i`` is the slice
``start[i]:stop[i]`` of one shared list of entries (column, value), and the slices may overlap.
CSR is the case of consecutive slices that tile the list.  Nested rows -- the parallel
inequalities of a primal-dual run, whose sets are the prefixes of one order -- then cost
``O(entries + rows)`` instead of the square of the number of coflows; ``A^T y`` is a prefix
sum of ``y`` over the list (:func:`covering_sums`).  The solvers get :meth:`RangeRows.tocsr`
(which expands the overlaps); the certificate checker works on the ranges.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import InvalidParameterError

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["LinearProgram", "RangeRows", "row_ranges", "covering_sums", "range_min",
           "csr_from_rows", "exact_group_sums", "MatrixAssembler", "float_down",
           "float_up", "BuildDeadline", "check_deadline"]


@dataclass
class LinearProgram:
    """``min c^T x + offset  s.t.  row_lo <= A x <= row_hi, col_lo <= x <= col_hi``.

    Attributes
    ----------
    name : str
        The formulation (``"ordering-lp"``, ``"time-indexed-lp"``, ...).
    c : ndarray, shape (n,)
    A : scipy.sparse.csr_matrix or RangeRows, shape (m, n)
        Kept exactly as built (no re-canonicalisation), so ``exact["A_data"]`` stays aligned
        with ``A.data`` (the entry list of a :class:`RangeRows` matrix).
    row_lo, row_hi : ndarray, shape (m,)
        ``-inf`` / ``+inf`` for a missing side.
    col_lo, col_hi : ndarray, shape (n,)
    offset : float
    integrality : ndarray of bool, shape (n,), optional
        True for integer columns (MIPs only).
    exact : dict
        Exact values where the floats are rounded (see the module docstring).
    blocks : dict
        Named column and row blocks, ``name -> (start, stop, shape)``, e.g. ``"C"`` for the
        completion-time columns; :meth:`col_block` / :meth:`row_block` read them.
    meta : dict
        Builder parameters (horizon, slot length, ...), recorded in certificates.
    """

    name: str
    c: np.ndarray
    A: "sp.csr_matrix | RangeRows"
    row_lo: np.ndarray
    row_hi: np.ndarray
    col_lo: np.ndarray
    col_hi: np.ndarray
    offset: float = 0.0
    integrality: np.ndarray | None = None
    exact: dict = field(default_factory=dict)
    col_blocks: dict = field(default_factory=dict)
    row_blocks: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        m, n = self.A.shape
        for nm, arr, size in (("c", self.c, n), ("col_lo", self.col_lo, n),
                              ("col_hi", self.col_hi, n), ("row_lo", self.row_lo, m),
                              ("row_hi", self.row_hi, m)):
            if np.shape(arr) != (size,):
                raise InvalidParameterError(f"LinearProgram {self.name}: {nm} has shape "
                                            f"{np.shape(arr)}, expected ({size},)")
        import scipy.sparse as sp  # lazily: ~0.1 s of import, paid only where a matrix is built
        if not (sp.isspmatrix_csr(self.A) or isinstance(self.A, RangeRows)):
            raise InvalidParameterError(f"LinearProgram {self.name}: A must be a CSR or a "
                                        "RangeRows matrix")
        ad = self.exact.get("A_data")
        if ad is not None and len(ad) != self.A.data.shape[0]:
            raise InvalidParameterError(f"LinearProgram {self.name}: exact A_data has {len(ad)} "
                                        f"entries, A has {self.A.data.shape[0]}")

    @property
    def num_cols(self) -> int:
        return int(self.A.shape[1])

    @property
    def num_rows(self) -> int:
        return int(self.A.shape[0])

    @property
    def is_mip(self) -> bool:
        return self.integrality is not None and bool(np.any(self.integrality))

    def col_block(self, name: str, x: np.ndarray) -> np.ndarray:
        """The part of a column vector ``x`` that belongs to block ``name``, reshaped."""
        start, stop, shape = self.col_blocks[name]
        return np.asarray(x)[start:stop].reshape(shape)

    def row_block(self, name: str, y: np.ndarray) -> np.ndarray:
        """The part of a row vector ``y`` (duals, activities) that belongs to block ``name``."""
        start, stop, shape = self.row_blocks[name]
        return np.asarray(y)[start:stop].reshape(shape)

    def exact_value(self, key: str, index: int) -> Fraction:
        """The exact value of ``key`` (``"row_lo"``, ``"col_hi"``, ``"c"``...) at ``index``."""
        ex = self.exact.get(key)
        # an exact array may hold None where the float value is already exact
        if ex is not None and ex[index] is not None:
            return Fraction(ex[index])
        return Fraction(float(getattr(self, key)[index]))

    def csr(self) -> sp.csr_matrix:
        """``A`` as a CSR matrix (a :class:`RangeRows` matrix expanded: what a solver loads)."""
        import scipy.sparse as sp  # lazily (see __post_init__)
        return self.A if sp.isspmatrix_csr(self.A) else self.A.tocsr()

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "rows": self.num_rows, "cols": self.num_cols,
                "nnz": int(self.A.nnz), "mip": self.is_mip,
                "integer_cols": int(np.sum(self.integrality)) if self.integrality is not None
                else 0}


class RangeRows:
    """A sparse matrix whose row ``i`` is the slice ``start[i]:stop[i]`` of one entry list.

    Entry ``e`` has column ``indices[e]`` and value ``data[e]``; slices may overlap, so ``m``
    nested rows over ``n`` entries take ``O(m + n)`` memory where CSR takes ``O(m n)``.

    Parameters
    ----------
    start, stop : array_like of int, shape (m,)
        ``0 <= start[i] <= stop[i] <= len(data)``.
    indices : array_like of int, shape (E,)
    data : array_like of float, shape (E,)
    shape : (int, int)

    Examples
    --------
    Three nested rows over the entries ``(col 2, 1.0), (col 0, 3.0), (col 1, 2.0)``:

    >>> A = RangeRows([0, 0, 0], [1, 2, 3], [2, 0, 1], [1.0, 3.0, 2.0], shape=(3, 3))
    >>> A.tocsr().toarray().tolist()
    [[0.0, 0.0, 1.0], [3.0, 0.0, 1.0], [3.0, 2.0, 1.0]]
    >>> A.nnz, covering_sums(A, np.array([1, 10, 100], dtype=object)).tolist()
    (6, [111, 110, 100])
    """

    def __init__(self, start, stop, indices, data, shape):
        self.start = np.asarray(start, dtype=np.int64)
        self.stop = np.asarray(stop, dtype=np.int64)
        self.indices = np.asarray(indices, dtype=np.int64)
        self.data = np.asarray(data, dtype=float)
        self.shape = (int(shape[0]), int(shape[1]))
        m, E = self.shape[0], self.data.shape[0]
        if self.start.shape != (m,) or self.stop.shape != (m,) or \
                self.indices.shape != (E,):
            raise InvalidParameterError("RangeRows: start/stop need one entry per row and "
                                        "indices one per data entry")
        if m and (np.any(self.start < 0) or np.any(self.stop < self.start) or
                  np.any(self.stop > E)):
            raise InvalidParameterError("RangeRows: every row must be a slice 0 <= start <= "
                                        "stop <= number of entries")
        if E and (self.indices.min() < 0 or self.indices.max() >= self.shape[1]):
            raise InvalidParameterError("RangeRows: a column index is out of range")

    @property
    def nnz(self) -> int:
        """Stored coefficients of the expanded matrix (``sum stop - start``)."""
        return int(np.sum(self.stop - self.start))

    def entry_positions(self) -> np.ndarray:
        """The entry of every coefficient of the expanded matrix, row by row."""
        sizes = self.stop - self.start
        first = np.cumsum(sizes) - sizes
        return np.repeat(self.start - first, sizes) + np.arange(int(sizes.sum()))

    def tocsr(self) -> sp.csr_matrix:
        """The expanded CSR matrix (``O(nnz)``: quadratic for nested rows)."""
        pos = self.entry_positions()
        ptr = np.zeros(self.shape[0] + 1, dtype=np.int64)
        np.cumsum(self.stop - self.start, out=ptr[1:])
        return csr_from_rows(ptr, self.indices[pos], self.data[pos], self.shape[1])


def row_ranges(A) -> tuple[np.ndarray, np.ndarray]:
    """``(start, stop)`` of every row of a CSR or :class:`RangeRows` matrix in its entry list
    (``A.indices`` / ``A.data``)."""
    if isinstance(A, RangeRows):
        return A.start, A.stop
    return A.indptr[:-1].astype(np.int64), A.indptr[1:].astype(np.int64)


def covering_sums(A, y: np.ndarray) -> np.ndarray:
    """For every entry of ``A``'s list, the sum of ``y_i`` over the rows ``i`` containing it.

    ``(A^T y)_j`` is then ``sum_e data[e] * covering_sums[e]`` over the entries of column
    ``j``.  Exact for Python integers and Fractions (object arrays); on a CSR matrix each entry
    is in one row and the result is ``y`` of that row (any dtype, no arithmetic).  On a
    :class:`RangeRows` matrix: a difference array and one prefix sum, ``O(entries + rows)``.
    """
    y = np.asarray(y)
    if not isinstance(A, RangeRows):
        return np.repeat(y, np.diff(A.indptr))
    E = A.data.shape[0]
    diff = np.zeros(E + 1, dtype=y.dtype)
    if y.dtype == object:
        diff[:] = 0
    np.add.at(diff, A.start, y)
    np.subtract.at(diff, A.stop, y)
    return np.cumsum(diff[:E])


def range_min(A, values: np.ndarray, empty: float) -> np.ndarray:
    """``min(values[start_i:stop_i])`` for every row of ``A`` (``empty`` for an empty row).

    ``values`` are floats, one per entry.  CSR: one ``minimum.reduceat``; :class:`RangeRows`:
    a sparse table (``O(E log E)`` floats), one lookup per row.
    """
    start, stop = row_ranges(A)
    values = np.asarray(values, dtype=float)
    out = np.full(start.shape[0], float(empty))
    nonempty = stop > start
    if not np.any(nonempty):
        return out
    if not isinstance(A, RangeRows):
        out[nonempty] = np.minimum.reduceat(values, start[nonempty])
        return out
    table = [values]
    span = 1
    while 2 * span <= values.shape[0]:
        prev = table[-1]
        table.append(np.minimum(prev[:-span], prev[span:]))
        span *= 2
    lo, hi = start[nonempty], stop[nonempty]
    level = np.floor(np.log2(hi - lo)).astype(np.int64)
    res = np.empty(lo.shape[0])
    for lv in np.unique(level).tolist():
        sel = level == lv
        t = table[lv]
        res[sel] = np.minimum(t[lo[sel]], t[hi[sel] - (1 << lv)])
    out[nonempty] = res
    return out


def csr_from_rows(row_ptr: np.ndarray, cols: np.ndarray, vals: np.ndarray,
                  num_cols: int) -> sp.csr_matrix:
    """A CSR matrix from row pointers, column indices and values, kept in the given order
    (scipy does not sort or merge them), so that exact values stay aligned with ``data``."""
    import scipy.sparse as sp  # lazily (see LinearProgram.__post_init__)
    A = sp.csr_matrix((np.asarray(vals, dtype=float), np.asarray(cols, dtype=np.int32),
                       np.asarray(row_ptr, dtype=np.int64)),
                      shape=(len(row_ptr) - 1, num_cols))
    return A


def exact_group_sums(values: np.ndarray, groups: np.ndarray, num_groups: int
                     ) -> tuple[np.ndarray, np.ndarray | None]:
    """Sums of float ``values`` by group, with the exact sums when the float sums may be rounded.

    Returns ``(float_sums, exact)``: ``exact`` is ``None`` when every float sum is provably exact
    (all values are integer multiples of one power of two and the scaled total is below 2**53,
    so no partial sum is ever rounded); otherwise an object array of exact
    :class:`~fractions.Fraction` sums (dyadic rationals).

    Examples
    --------
    >>> s, ex = exact_group_sums(np.array([1.0, 2.0, 4.0]), np.array([0, 0, 1]), 2)
    >>> s.tolist(), ex
    ([3.0, 4.0], None)
    >>> s, ex = exact_group_sums(np.array([0.1, 0.2]), np.array([0, 0]), 1)
    >>> ex[0] == Fraction(0.1) + Fraction(0.2)
    True
    """
    values = np.asarray(values, dtype=float)
    groups = np.asarray(groups, dtype=np.int64)
    sums = np.bincount(groups, weights=values, minlength=num_groups).astype(float)
    if values.size == 0:
        return sums, None
    mant, expo = np.frexp(np.abs(values))
    # value = mant * 2**expo with mant in [0.5, 1): mant * 2**53 is an integer, so the value is
    # an integer multiple of 2**(expo - 53); the finest grid over all values is the smallest one.
    nz = values != 0
    if not np.any(nz):
        return sums, None
    ints = (mant[nz] * 2.0 ** 53).astype(np.int64)
    tz = _trailing_zeros(ints)
    grid = int(np.min(expo[nz] - 53 + tz))
    total = float(np.sum(np.abs(values)))
    if total * 2.0 ** (-grid) < 2.0 ** 53:
        return sums, None
    exact = np.empty(num_groups, dtype=object)
    exact[:] = Fraction(0)
    for g, v in zip(groups.tolist(), values.tolist()):
        exact[g] += Fraction(v)
    return np.asarray([float(e) for e in exact]), exact


def _trailing_zeros(ints: np.ndarray) -> np.ndarray:
    """Number of trailing zero bits of each positive int64."""
    low = ints & -ints
    return np.log2(low.astype(float)).astype(np.int64)


class BuildDeadline(Exception):
    """Raised by a builder given ``deadline=`` (a :func:`time.perf_counter` time) when it
    passes it at one of its checkpoints: the caller reports ``status="time_limit"`` instead
    of building an LP there is no time left to solve."""


def check_deadline(deadline: float | None) -> None:
    """Raise :class:`BuildDeadline` if ``deadline`` (perf_counter seconds) has passed."""
    if deadline is not None and time.perf_counter() >= deadline:
        raise BuildDeadline


class MatrixAssembler:
    """Collect COO blocks (with optional exact values) and assemble one CSR matrix.

    Each block is ``(rows, cols, values)`` with float values, or with exact values (an object
    array of Fractions) next to the float ones.  :meth:`csr` sorts the entries by (row, column)
    and returns the CSR matrix and, if any block had exact values, the aligned exact data.
    Duplicate (row, column) entries are refused: every builder here writes each coefficient
    once, and merging would silently round.
    """

    def __init__(self):
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.exact: list[np.ndarray | None] = []

    def add(self, rows, cols, vals, exact=None) -> None:
        r, c, v = np.broadcast_arrays(np.asarray(rows, dtype=np.int64),
                                      np.asarray(cols, dtype=np.int64),
                                      np.asarray(vals, dtype=float))
        self.rows.append(r.ravel())
        self.cols.append(c.ravel())
        self.vals.append(v.ravel())
        if exact is not None:
            exact = np.broadcast_to(np.asarray(exact, dtype=object), r.shape).ravel()
        self.exact.append(exact)

    def csr(self, num_rows: int, num_cols: int) -> tuple[sp.csr_matrix, np.ndarray | None]:
        rows = np.concatenate(self.rows) if self.rows else np.zeros(0, np.int64)
        cols = np.concatenate(self.cols) if self.cols else np.zeros(0, np.int64)
        vals = np.concatenate(self.vals) if self.vals else np.zeros(0)
        if num_rows * max(num_cols, 1) < 2 ** 62:
            # one int64 key, stably sorted: lexsort's order, in half the time at 10^7 entries
            order = np.argsort(rows * max(num_cols, 1) + cols, kind="stable")
        else:
            order = np.lexsort((cols, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        if rows.size and np.any((rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])):
            raise InvalidParameterError("duplicate matrix entry in a builder")
        exact = None
        if any(e is not None for e in self.exact):
            parts = [e if e is not None else np.asarray(v, dtype=object)
                     for e, v in zip(self.exact, self.vals)]
            exact = np.concatenate(parts)[order]
        ptr = np.zeros(num_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=num_rows), out=ptr[1:])
        return csr_from_rows(ptr, cols, vals, num_cols), exact


def float_down(x: Fraction) -> float:
    """The largest float <= ``x``."""
    f = float(x)
    if Fraction(f) > x:
        f = float(np.nextafter(f, -np.inf))
    return f


def float_up(x: Fraction) -> float:
    """The smallest float >= ``x``."""
    f = float(x)
    if Fraction(f) < x:
        f = float(np.nextafter(f, np.inf))
    return f
