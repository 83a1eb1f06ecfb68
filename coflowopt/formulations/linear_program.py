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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..exceptions import InvalidParameterError

__all__ = ["LinearProgram", "csr_from_rows", "exact_group_sums", "MatrixAssembler", "float_down",
           "float_up"]


@dataclass
class LinearProgram:
    """``min c^T x + offset  s.t.  row_lo <= A x <= row_hi, col_lo <= x <= col_hi``.

    Attributes
    ----------
    name : str
        The formulation (``"ordering-lp"``, ``"time-indexed-lp"``, ...).
    c : ndarray, shape (n,)
    A : scipy.sparse.csr_matrix, shape (m, n)
        Kept exactly as built (no re-canonicalisation), so ``exact["A_data"]`` stays aligned.
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
    A: sp.csr_matrix
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
        if not sp.isspmatrix_csr(self.A):
            raise InvalidParameterError(f"LinearProgram {self.name}: A must be a CSR matrix")
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

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "rows": self.num_rows, "cols": self.num_cols,
                "nnz": int(self.A.nnz), "mip": self.is_mip,
                "integer_cols": int(np.sum(self.integrality)) if self.integrality is not None
                else 0}


def csr_from_rows(row_ptr: np.ndarray, cols: np.ndarray, vals: np.ndarray,
                  num_cols: int) -> sp.csr_matrix:
    """A CSR matrix from row pointers, column indices and values, kept in the given order
    (scipy does not sort or merge them), so that exact values stay aligned with ``data``."""
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
