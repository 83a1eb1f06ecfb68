"""Certificates for LP lower bounds, checked in exact rational arithmetic.

A lower bound from an LP is reported only with a dual vector that proves it.  For the LP

    min c^T x + offset   s.t.  L <= A x <= U,   l <= x <= u

*any* row multiplier vector ``y`` proves the bound (weak duality with bounded variables,
Neumaier and Shcherbina 2004):

    c^T x + offset = y^T (A x) + d^T x + offset,      d = c - A^T y,
                   >= sum_i y_i (L_i if y_i > 0 else U_i) + sum_j d_j (l_j if d_j > 0 else u_j)
                      + offset                                              =: LB(y)

for every feasible ``x``, as long as no infinite bound is multiplied by a non-zero number.  So
the check is: recompute ``d`` and ``LB(y)`` exactly (Python integers for the dyadic data, which is
all float data, :class:`~fractions.Fraction` for the rest) and require every term finite.  No
tolerance enters: the certified figure does not depend on the solver's tolerances.

Repair
------
A solver's ``y`` satisfies the dual constraints only up to its tolerances.  Two things can make
``LB(y)`` infinite, and :func:`certify_lp` repairs both so that the repaired ``y`` is exactly
dual feasible:

1. a multiplier of the wrong sign on a one-sided row (``y_i > 0`` on a row without a lower side):
   it is set to 0;
2. a reduced cost of the wrong sign on a column without the corresponding bound (``d_j < 0`` on a
   column with ``u_j = +inf``, e.g. a completion time ``C_k``): every row ``i`` whose term
   ``a_ij y_i`` pushes ``d_j`` below zero is scaled by the factor
   ``s_j = (c_j - sum of the other terms) / (sum of the pushing terms)``, the smallest over the
   columns it touches; the exact check is then repeated, and if float rounding of the scaling
   left a few ulps of violation, the scaling is shrunk by a relative margin (1e-15, 1e-12,
   1e-9) in the next rounds.

For every LP of this package, the rows that touch an unbounded column touch it with a
coefficient of one sign and non-negative multipliers (``C_k`` in the ordering LP, the LP-OV and
the time-indexed LP; the interval LP has only bounded columns), so scaling them down can never
break another column and the repair succeeds in one pass; the loss is the size of the solver's
dual infeasibility times the bound.  ``LB(y)`` is then computed exactly from the repaired
``y``: it is a valid lower bound on the LP, and every LP here is a relaxation of the coflow
problem (see ``formulations/*.md`` and ``proofs/``), so it bounds the optimum.

A restricted LP (the ordering LP with only the cuts generated so far) is a relaxation of the
full LP, so the certificate of the restricted LP is a certificate of the full LP as well: its
dual is the full dual with zero multipliers on the cuts never generated.

References
----------
A. Neumaier and O. Shcherbina, "Safe bounds in linear and mixed-integer linear programming",
Math. Program. 99 (2004) 283-296, section 2 (the bound LB(y) with bounded variables).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..exceptions import CoflowOptError, InvalidParameterError
from .linear_program import LinearProgram, RangeRows, covering_sums, range_min

__all__ = ["LPCertificate", "CertificateCheck", "certify_lp", "check_certificate",
           "register_rebuilder", "rebuild_lp", "exact_dot"]


# ----------------------------------------------------------------------------- exact numbers
class _Dyadic:
    """A vector of dyadic rationals ``num[i] * 2**exp`` (``num`` Python ints, one exponent)."""

    __slots__ = ("num", "exp")

    def __init__(self, num: np.ndarray, exp: int):
        self.num = num
        self.exp = int(exp)

    @classmethod
    def from_floats(cls, values) -> "_Dyadic":
        v = np.asarray(values, dtype=float)
        out = np.zeros(v.shape[0], dtype=object)
        out[:] = 0
        nz = np.flatnonzero(v)
        if nz.size == 0:
            return cls(out, 0)
        if not np.all(np.isfinite(v[nz])):
            raise InvalidParameterError("exact arithmetic needs finite numbers")
        mant, ex = np.frexp(v[nz])
        ints = (mant * 2.0 ** 53).astype(np.int64)
        # strip trailing zero bits: keeps the integers small (a size 24.0 becomes 3 * 2**3)
        low = np.abs(ints) & -np.abs(ints)
        tz = np.log2(low.astype(float)).astype(np.int64)
        ints = ints >> tz
        e = ex.astype(np.int64) - 53 + tz
        emin = int(e.min())
        shifts = (e - emin).astype(object)
        out[nz] = np.left_shift(ints.astype(object), shifts)
        return cls(out, emin)

    @classmethod
    def from_exact(cls, values) -> "_Dyadic":
        """From ints, floats or Fractions whose denominators are powers of two."""
        nums, exps = [], []
        for v in values:
            f = Fraction(v)
            den = f.denominator
            if den & (den - 1):
                raise InvalidParameterError(f"{f} is not a dyadic rational")
            nums.append(f.numerator)
            exps.append(-(den.bit_length() - 1))
        if not nums:
            return cls(np.zeros(0, dtype=object), 0)
        emin = min(exps)
        out = np.empty(len(nums), dtype=object)
        out[:] = [n << (e - emin) for n, e in zip(nums, exps)]
        return cls(out, emin)

    def rescaled(self, exp: int) -> np.ndarray:
        """The integers for exponent ``exp <= self.exp``."""
        if exp > self.exp:
            raise ValueError("can only rescale to a finer grid")
        s = self.exp - exp
        return self.num if s == 0 else np.left_shift(self.num, s)

    def fraction(self, i: int) -> Fraction:
        n = int(self.num[i])
        return Fraction(n * 2 ** self.exp) if self.exp >= 0 else Fraction(n, 2 ** -self.exp)


def _frac_of_int(n: int, exp: int) -> Fraction:
    return Fraction(n * 2 ** exp) if exp >= 0 else Fraction(n, 2 ** -exp)


def exact_dot(a, b) -> Fraction:
    """The exact dot product of two float vectors (a test helper and a building block).

    Examples
    --------
    >>> exact_dot([0.1, 0.2], [1.0, 1.0]) == Fraction(0.1) + Fraction(0.2)
    True
    """
    da, db = _Dyadic.from_floats(a), _Dyadic.from_floats(b)
    if da.num.size == 0:
        return Fraction(0)
    return _frac_of_int(int(np.sum(da.num * db.num)), da.exp + db.exp)


def _exact_ATy(lp: LinearProgram, y: _Dyadic) -> tuple[np.ndarray, int]:
    """Exact column sums ``A^T y`` as integers with one exponent."""
    A = lp.A
    ad = lp.exact.get("A_data")
    da = _Dyadic.from_exact(ad) if ad is not None else _Dyadic.from_floats(A.data)
    # per entry of A's list, the exact sum of the multipliers of the rows containing it (the
    # row's own multiplier on CSR; a prefix sum over nested rows, linear in the entries)
    prod = da.num * covering_sums(A, y.num)
    n = A.shape[1]
    out = np.zeros(n, dtype=object)
    out[:] = 0
    if prod.size:
        order = np.argsort(A.indices, kind="stable")
        cols = A.indices[order]
        sp_ = prod[order]
        starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
        out[cols[starts]] = np.add.reduceat(sp_, starts)
    return out, da.exp + y.exp


def _vector_exact(lp: LinearProgram, key: str) -> tuple[_Dyadic | None, dict[int, Fraction]]:
    """The exact vector ``key`` as a dyadic vector of its float entries plus Fraction overrides
    for the entries that are not (the dyadic part holds 0 there)."""
    base = np.asarray(getattr(lp, key), dtype=float)
    ex = lp.exact.get(key)
    overrides: dict[int, Fraction] = {}
    if ex is not None:
        base = base.copy()
        for i, v in enumerate(ex):
            if v is not None:
                f = Fraction(v)
                # the float must BE the value, not only round to it: a product c_q tau_l of
                # two doubles is dyadic but may need 106 bits, and its float (rounded down
                # by the builder) is then a tighter capacity than the true one
                if not np.isfinite(base[i]) or Fraction(float(base[i])) != f:
                    overrides[i] = f
                    base[i] = 0.0
    finite = np.where(np.isfinite(base), base, 0.0)
    return _Dyadic.from_floats(finite), overrides


# ----------------------------------------------------------------------------- results
@dataclass
class CertificateCheck:
    """The verdict of the exact certificate check.

    Attributes
    ----------
    status : {"certified", "rejected"}
        ``certified``: ``value`` is a proven lower bound on the LP (hence on the optimum).
        ``rejected``: the dual does not prove the claim (strict mode) or could not be repaired.
    value : Fraction or None
        The certified bound.
    repaired : bool
        True when the dual was clipped or scaled before the exact check.
    reason : str
    details : dict
        Counts of clipped rows and scaled rows, the smallest row scale, the float value of the
        unrepaired bound, the claimed value.
    multipliers : ndarray, optional
        For a certified bound: the (repaired) row multipliers whose exact ``LB(y)`` is
        ``value`` -- floats or Fractions, each an exact rational -- what a certificate file
        writes (:mod:`coflowopt.certificate_files`).
    """

    status: str
    value: Fraction | None
    repaired: bool = False
    reason: str = ""
    details: dict = field(default_factory=dict)
    multipliers: Any = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return self.status == "certified"

    def to_dict(self) -> dict[str, Any]:
        d = {"status": self.status, "repaired": self.repaired, "reason": self.reason,
             "details": self.details}
        if self.value is not None:
            d["value"] = float(self.value)
            d["value_exact"] = f"{self.value.numerator}/{self.value.denominator}"
        return d


def _one_sided_clip(lp: LinearProgram, y: np.ndarray) -> tuple[np.ndarray, int]:
    """Zero the multipliers whose sign would multiply an infinite row bound."""
    y = np.asarray(y, dtype=float).copy()
    y[~np.isfinite(y)] = 0.0
    bad = ((y > 0) & ~np.isfinite(lp.row_lo)) | ((y < 0) & ~np.isfinite(lp.row_hi))
    y[bad] = 0.0
    return y, int(np.count_nonzero(bad))


#: the reasons :func:`_exact_bound` gives (both paths)
_ROW_REASON = "a multiplier has the sign of an infinite row side"
_COLUMN_REASON = "a reduced cost has the sign of an infinite column bound"
#: the keys of ``LinearProgram.exact`` the compiled path does not read (it takes the floats)
_EXACT_DATA_KEYS = ("A_data", "row_lo", "row_hi", "c", "col_lo", "col_hi")


def _exact_bound(lp: LinearProgram, y: np.ndarray) -> tuple[Fraction | None, np.ndarray, str]:
    """``LB(y)`` exactly, or ``None`` with the reason when a term is infinite.

    Also returns the sign of every exact reduced cost (-1, 0, 1).  Once the compiled kernels
    are loaded in the process (a branch and bound has loaded them), a CSR LP whose data are its
    floats goes through :func:`_exact_bound_compiled`: the same numbers, about 20 times
    faster; otherwise (and where that path declines) Python integers at a common power of
    two."""
    from ..rates._jit import kernels_loaded
    if kernels_loaded():
        out = _exact_bound_compiled(lp, y)
        if out is not None:
            return out
    return _exact_bound_integers(lp, y)


def _exact_bound_compiled(lp: LinearProgram, y: np.ndarray
                          ) -> tuple[Fraction | None, np.ndarray, str] | None:
    """:func:`_exact_bound` by the error-free float arithmetic of
    :mod:`._certificate_kernel` (the same value, reason and signs), or None when it does not
    apply: a :class:`~.linear_program.RangeRows` matrix, exact data other than the floats, a
    non-finite multiplier or cost, or a number outside the kernel's proven range."""
    import scipy.sparse as sp

    from ._certificate_kernel import (COLUMN_INFINITE, EXPANSION_CAP, OUT_OF_RANGE,
                                      ROW_INFINITE, exact_bound_kernel)
    A = lp.A
    if not sp.isspmatrix_csr(A) or any(lp.exact.get(k) is not None for k in _EXACT_DATA_KEYS):
        return None
    y = np.ascontiguousarray(y, dtype=np.float64)
    c = np.ascontiguousarray(lp.c, dtype=np.float64)
    if y.shape != (lp.num_rows,) or not (np.all(np.isfinite(y)) and np.all(np.isfinite(c))):
        return None
    d_sign = np.zeros(lp.num_cols, dtype=np.int64)
    total = np.empty(EXPANSION_CAP, dtype=np.float64)
    status, nt = exact_bound_kernel(
        np.ascontiguousarray(A.indptr, dtype=np.int64),
        np.ascontiguousarray(A.indices, dtype=np.int64),
        np.ascontiguousarray(A.data, dtype=np.float64), y,
        np.ascontiguousarray(lp.row_lo, dtype=np.float64),
        np.ascontiguousarray(lp.row_hi, dtype=np.float64), c,
        np.ascontiguousarray(lp.col_lo, dtype=np.float64),
        np.ascontiguousarray(lp.col_hi, dtype=np.float64), d_sign, total)
    if status == OUT_OF_RANGE:
        return None
    if status == ROW_INFINITE:
        return None, np.zeros(lp.num_cols), _ROW_REASON
    if status == COLUMN_INFINITE:
        return None, d_sign, _COLUMN_REASON
    value = sum((Fraction(v) for v in total[:nt].tolist()), Fraction(0))
    off = lp.exact.get("offset")
    value += Fraction(off) if off is not None else Fraction(float(lp.offset))
    return value, d_sign, ""


def _exact_bound_integers(lp: LinearProgram, y: np.ndarray
                          ) -> tuple[Fraction | None, np.ndarray, str]:
    """:func:`_exact_bound` with Python integers at a common power of two (any LP)."""
    dy = _Dyadic.from_floats(y)
    ysign = np.sign(y)
    # ---- row term: y_i * (L_i if y_i > 0 else U_i)
    lo_d, lo_ov = _vector_exact(lp, "row_lo")
    hi_d, hi_ov = _vector_exact(lp, "row_hi")
    pos, neg = ysign > 0, ysign < 0
    if np.any(pos & ~np.isfinite(lp.row_lo)) or np.any(neg & ~np.isfinite(lp.row_hi)):
        return None, np.zeros(lp.num_cols), _ROW_REASON
    total = Fraction(0)
    for mask, bd, ov in ((pos, lo_d, lo_ov), (neg, hi_d, hi_ov)):
        idx = np.flatnonzero(mask)
        ovs = [i for i in idx.tolist() if i in ov]
        if ovs:
            for i in ovs:
                total += dy.fraction(i) * ov[i]
            idx = np.setdiff1d(idx, np.asarray(ovs, dtype=np.int64))
        if idx.size:
            s = int(np.sum(dy.num[idx] * bd.num[idx]))
            total += _frac_of_int(s, dy.exp + bd.exp)
    # ---- reduced costs d = c - A^T y
    aty, e_aty = _exact_ATy(lp, dy)
    c_d, c_ov = _vector_exact(lp, "c")
    E = min(c_d.exp, e_aty)
    d_int = c_d.rescaled(E) - (aty if e_aty == E else np.left_shift(aty, e_aty - E))
    d_sign = np.asarray([(v > 0) - (v < 0) for v in d_int.tolist()], dtype=np.int64) \
        if d_int.size else np.zeros(0, dtype=np.int64)
    d_frac: dict[int, Fraction] = {}
    for j, cj in c_ov.items():
        dj = cj - _frac_of_int(int(aty[j]), e_aty)
        d_frac[j] = dj
        d_sign[j] = (dj > 0) - (dj < 0)
    # ---- column term: d_j * (l_j if d_j > 0 else u_j)
    cl_d, cl_ov = _vector_exact(lp, "col_lo")
    cu_d, cu_ov = _vector_exact(lp, "col_hi")
    dpos, dneg = d_sign > 0, d_sign < 0
    if np.any(dpos & ~np.isfinite(lp.col_lo)) or np.any(dneg & ~np.isfinite(lp.col_hi)):
        return None, d_sign, _COLUMN_REASON
    for mask, bd, ov in ((dpos, cl_d, cl_ov), (dneg, cu_d, cu_ov)):
        idx = np.flatnonzero(mask)
        special = [j for j in idx.tolist() if j in ov or j in d_frac]
        if special:
            for j in special:
                dj = d_frac[j] if j in d_frac else _frac_of_int(int(d_int[j]), E)
                bj = ov[j] if j in ov else bd.fraction(j)
                total += dj * bj
            idx = np.setdiff1d(idx, np.asarray(special, dtype=np.int64))
        if idx.size:
            s = int(np.sum(d_int[idx] * bd.num[idx]))
            total += _frac_of_int(s, E + bd.exp)
    off = lp.exact.get("offset")
    total += Fraction(off) if off is not None else Fraction(float(lp.offset))
    return total, d_sign, ""


def _side_term(lp: LinearProgram, v: Fraction, i: int, lo: str, hi: str,
               what: str) -> Fraction | str:
    """``v`` times the bound ``lo`` (if ``v > 0``) or ``hi`` (if ``v < 0``) at index ``i``;
    the reason as a string when that bound is infinite."""
    if v == 0:
        return Fraction(0)
    key = lo if v > 0 else hi
    if not np.isfinite(getattr(lp, key)[i]):
        return f"{what} {i}: {'positive' if v > 0 else 'negative'} multiplier on an infinite " \
               f"{key}"
    return v * lp.exact_value(key, i)


def _exact_bound_fractions(lp: LinearProgram, y: np.ndarray
                           ) -> tuple[Fraction | None, str]:
    """``LB(y)`` for a multiplier vector of Fractions, in plain Fraction arithmetic (the slow
    path, for combinatorial certificates on small instances, e.g. BSSI run exactly)."""
    yf = [Fraction(v) for v in y]
    ad = lp.exact.get("A_data")
    aty = [Fraction(0)] * lp.num_cols
    A = lp.A
    yobj = np.empty(len(yf), dtype=object)
    yobj[:] = yf
    for pos, (j, yc) in enumerate(zip(A.indices.tolist(), covering_sums(A, yobj).tolist())):
        if yc == 0:
            continue
        a = Fraction(ad[pos]) if ad is not None else Fraction(float(A.data[pos]))
        aty[j] += a * yc
    terms = [_side_term(lp, yi, i, "row_lo", "row_hi", "row") for i, yi in enumerate(yf)]
    terms += [_side_term(lp, lp.exact_value("c", j) - aty[j], j, "col_lo", "col_hi", "column")
              for j in range(lp.num_cols)]
    bad = next((t for t in terms if isinstance(t, str)), None)
    if bad is not None:
        return None, bad
    off = lp.exact.get("offset")
    total = sum(terms, Fraction(0))
    total += Fraction(off) if off is not None else Fraction(float(lp.offset))
    return total, ""


def _repair_scale(lp: LinearProgram, y: np.ndarray, d_sign: np.ndarray, margin: float
                  ) -> tuple[np.ndarray, int, float]:
    """Scale down the rows that push a reduced cost to the wrong side of an unbounded column
    (see the module docstring).  Float arithmetic: the exact check follows."""
    bad_hi = (d_sign < 0) & ~np.isfinite(lp.col_hi)   # needs d_j >= 0
    bad_lo = (d_sign > 0) & ~np.isfinite(lp.col_lo)   # needs d_j <= 0
    A = lp.A
    cols = A.indices
    # per entry e of A's list, the sums of the positive and of the negative multipliers of the
    # rows containing it: the terms a_ij y_i of column j = indices[e] are data[e] times those
    # (on CSR each entry is in one row: y of that row, or 0)
    y_pos = _covering_floats(A, np.where(y > 0, y, 0.0))
    y_neg = _covering_floats(A, np.where(y < 0, y, 0.0))
    scale_col = np.ones(lp.num_cols)
    # d_j = c_j - sum_i term_ij.  bad_hi: the positive terms push d_j down.
    for bad, sgn in ((bad_hi, 1.0), (bad_lo, -1.0)):
        if not np.any(bad):
            continue
        a = sgn * A.data
        pushing_e = np.where(a > 0, a * y_pos, np.where(a < 0, a * y_neg, 0.0))
        other_e = np.where(a > 0, a * y_neg, np.where(a < 0, a * y_pos, 0.0))
        on = bad[cols]
        pushing = np.bincount(cols[on], weights=pushing_e[on], minlength=lp.num_cols)
        other = np.bincount(cols[on], weights=other_e[on], minlength=lp.num_cols)
        cj = sgn * lp.c
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.where(pushing > 0, (cj - other) / pushing, 1.0)
        s = np.clip(s, 0.0, 1.0) * (1.0 - margin)
        scale_col = np.where(bad, np.minimum(scale_col, s), scale_col)
    # a row is scaled by the smallest factor of the columns it touches (rows with y_i = 0 do
    # not matter and stay at 1)
    touched = (scale_col < 1.0)[cols] & (A.data != 0)
    row_scale = range_min(A, np.where(touched, scale_col[cols], 1.0), 1.0)
    row_scale[y == 0] = 1.0
    return y * row_scale, int(np.count_nonzero(row_scale < 1.0)), float(row_scale.min(initial=1.0))


def _covering_floats(A, y: np.ndarray) -> np.ndarray:
    """:func:`~.linear_program.covering_sums` of float multipliers: on CSR ``y`` of each
    entry's row as it is; on a :class:`~.linear_program.RangeRows` matrix summed exactly (as
    dyadic integers) and rounded once, so the float repair sees no cancellation error."""
    if not isinstance(A, RangeRows):
        return covering_sums(A, y)
    dy = _Dyadic.from_floats(y)
    out = []
    for n in covering_sums(A, dy.num).tolist():
        try:
            out.append(math.ldexp(float(n), dy.exp))
        except OverflowError:
            out.append(float(_frac_of_int(int(n), dy.exp)))
    return np.asarray(out, dtype=float)


def certify_lp(lp: LinearProgram, y, *, repair: bool = True, claimed: float | None = None,
               max_rounds: int = 4) -> CertificateCheck:
    """Certify ``LB(y)`` for ``lp`` exactly, repairing ``y`` first when allowed.

    Parameters
    ----------
    lp : LinearProgram
        The LP with its exact data (rebuilt from the instance by :func:`check_certificate`).
    y : array_like, shape (lp.num_rows,)
        Row multipliers (a solver's row duals, HiGHS sign convention: ``c - A^T y`` are the
        reduced costs).
    repair : bool, default True
        Clip and scale ``y`` into exact dual feasibility (module docstring).  With ``False`` the
        check is strict: any sign error rejects the certificate.
    claimed : float, optional
        In strict mode the certificate is rejected unless ``LB(y) >= claimed`` (up to 1e-9
        relative, the float rounding of the claim).
    max_rounds : int
        Repair rounds: the first scales exactly to the violated constraints, the next ones
        shrink by a relative margin of 1e-15, 1e-12, ... (float rounding of the scaling).

    Returns
    -------
    CertificateCheck

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> lp = LinearProgram("toy", c=np.array([1.0]), A=sp.csr_matrix(np.array([[1.0]])),
    ...                    row_lo=np.array([2.0]), row_hi=np.array([np.inf]),
    ...                    col_lo=np.array([0.0]), col_hi=np.array([np.inf]))
    >>> certify_lp(lp, [1.0]).value
    Fraction(2, 1)
    >>> float(certify_lp(lp, [1.5]).value)     # repaired: y scaled back to (about) 1
    2.0
    >>> certify_lp(lp, [1.5], repair=False).status
    'rejected'
    """
    y = np.asarray(y)
    if y.dtype == object:
        # exact multipliers (Fractions): check them as they are; repair goes through floats
        if y.shape != (lp.num_rows,):
            raise InvalidParameterError(f"dual has shape {y.shape}, the LP has {lp.num_rows} "
                                        "rows")
        value, why = _exact_bound_fractions(lp, y)
        details0 = {"rows": lp.num_rows, "cols": lp.num_cols, "exact_multipliers": True}
        if value is not None:
            if claimed is not None and not repair and \
                    float(value) < claimed - 1e-9 * max(1.0, abs(claimed)):
                return CertificateCheck("rejected", value, False,
                                        f"the dual proves {float(value)!r}, less than the "
                                        f"claimed {claimed!r}", details0)
            return CertificateCheck("certified", value, False, "", details0, multipliers=y)
        if not repair:
            return CertificateCheck("rejected", None, False, "dual infeasible: " + why,
                                    details0)
        y = np.asarray([float(v) for v in y], dtype=float)
    y = np.asarray(y, dtype=float)
    if y.shape != (lp.num_rows,):
        raise InvalidParameterError(f"dual has shape {y.shape}, the LP has {lp.num_rows} rows")
    details: dict[str, Any] = {"rows": lp.num_rows, "cols": lp.num_cols}
    if claimed is not None:
        details["claimed"] = float(claimed)
    if not repair:
        if not np.all(np.isfinite(y)):
            return CertificateCheck("rejected", None, False, "non-finite multiplier", details)
        value, _, why = _exact_bound(lp, y)
        if value is None:
            return CertificateCheck("rejected", None, False, "dual infeasible: " + why, details)
        if claimed is not None and float(value) < claimed - 1e-9 * max(1.0, abs(claimed)):
            return CertificateCheck("rejected", value, False,
                                    f"the dual proves {float(value)!r}, less than the claimed "
                                    f"{claimed!r}", details)
        return CertificateCheck("certified", value, False, "", details, multipliers=y)
    y, clipped = _one_sided_clip(lp, y)
    details["rows_clipped"] = clipped
    repaired = clipped > 0
    # scale exactly first; only if float rounding leaves a violation, shrink by a margin
    margins = [0.0] + [1e-15 * 1000.0 ** i for i in range(max(0, max_rounds - 1))]
    for rnd in range(max_rounds + 1):
        margin = margins[min(rnd, len(margins) - 1)]
        value, d_sign, why = _exact_bound(lp, y)
        if value is not None:
            details["repair_rounds"] = rnd
            if claimed is not None:
                details["loss_vs_claimed"] = float(claimed) - float(value)
            return CertificateCheck("certified", value, repaired, "", details, multipliers=y)
        y, nscaled, smin = _repair_scale(lp, y, d_sign, margin)
        repaired = True
        details["rows_scaled"] = details.get("rows_scaled", 0) + nscaled
        details["min_row_scale"] = min(details.get("min_row_scale", 1.0), smin)
    return CertificateCheck("rejected", None, repaired,
                            "the dual could not be repaired into exact feasibility: " + why,
                            details)


# ----------------------------------------------------------------------------- certificates
@dataclass
class LPCertificate:
    """A dual solution that proves a lower bound, and what is needed to rebuild its LP.

    Attributes
    ----------
    formulation : str
        Key of the rebuilder (``"ordering-lp"``, ``"time-indexed-lp"``, ``"interval-lp"``,
        ``"lp-ov"``).
    params : dict
        The builder parameters (slot length, horizon, grid...), enough to rebuild the LP.
    row_duals : ndarray
        One multiplier per row, HiGHS sign convention.
    rows : object, optional
        Formulation-specific row description (the cuts of the ordering LP).
    claimed_value : float, optional
        What the solver (or the combinatorial algorithm) reported.
    source : str
        Where the dual comes from (``"highs:simplex"``, ``"bssi"``, ``"smith"``...).
    """

    formulation: str
    params: dict
    row_duals: np.ndarray
    rows: Any = None
    claimed_value: float | None = None
    source: str = ""

    def to_dict(self, include_duals: bool = False) -> dict[str, Any]:
        d = {"formulation": self.formulation, "params": self.params,
             "num_rows": int(len(self.row_duals)), "claimed_value": self.claimed_value,
             "source": self.source,
             "nonzero_duals": int(np.count_nonzero(self.row_duals))}
        if self.rows is not None and hasattr(self.rows, "to_dict"):
            d["rows"] = self.rows.to_dict() if include_duals else {"count": len(self.rows)}
        if include_duals:
            d["row_duals"] = [float(v) for v in self.row_duals]
        return d


_REBUILDERS: dict[str, Callable] = {}


def register_rebuilder(name: str):
    """Register ``func(instance, params, rows) -> LinearProgram`` for certificates of ``name``."""
    def deco(func):
        _REBUILDERS[name] = func
        return func
    return deco


# ----------------------------------------------------------------------------- units
#: Exponents of at most this magnitude are taken as 0 by :func:`unit_scaling`.
UNIT_DEAD_ZONE = 4


def unit_scaling(instance) -> dict[str, int]:
    """Powers of two that bring sizes, capacities and weights near 1 (an LP's units).

    HiGHS's tolerances are absolute (1e-7 primal and dual feasibility): an LP written in the
    instance's own units loses its constraints when sizes are ~1e-6 (the ordering LP then
    certified 40 % less).  The problem is scale invariant, so the LPs are built in units
    ``2^data_exp`` of data, ``2^capacity_exp`` of capacity and ``2^weight_exp`` of weight
    (each the power of two nearest the geometric middle of the instance's values, 0 when that is
    within 2^4 of 1, kept inside coflowopt.limits' ranges): multiplying by powers of two is exact, so the certificate checked
    in these units proves exactly ``unit_factor`` times as much in the instance's units.
    """
    def exp_of(values, lo, hi):
        v = np.asarray(values, dtype=float)
        v = v[v > 0]
        if v.size == 0:
            return 0
        vmin, vmax = float(v.min()), float(v.max())
        target = round(0.5 * (math.log2(vmin) + math.log2(vmax)))
        if abs(target) <= UNIT_DEAD_ZONE:
            # near 1 already: keep the instance's own units (an exported LP then needs no
            # conversion); within 2^4 of 1 HiGHS's tolerances act the same
            target = 0
        # normalised values must stay in [lo, hi]: vmin 2^-e >= lo, vmax 2^-e <= hi
        e_max = math.floor(math.log2(vmin / lo))
        e_min = math.ceil(math.log2(vmax / hi))
        return int(min(max(target, e_min), e_max)) if e_min <= e_max else 0
    from .. import limits
    return {"data_exp": exp_of(instance.flow_size, limits.SIZE_MIN, limits.SIZE_MAX),
            "capacity_exp": exp_of(instance.capacity, limits.CAPACITY_MIN, limits.CAPACITY_MAX),
            "weight_exp": exp_of(instance.weight, limits.WEIGHT_MIN, limits.WEIGHT_MAX)}


def in_units(instance, unit: dict[str, int] | None):
    """``instance`` written in ``unit`` (:func:`unit_scaling`): sizes x 2^-data_exp,
    capacities x 2^-capacity_exp, weights x 2^-weight_exp, times x 2^(capacity_exp -
    data_exp); every product exact.  ``None`` or all-zero exponents: the instance itself.

    The capacities scaled are those of the instance's resources: the ingress and egress
    ports on a big switch, ``resource_capacity`` on an instance over resources (a topology,
    whose port arrays are empty); paths are unchanged."""
    if not unit or not any(unit.values()):
        return instance
    a, b, e = unit["data_exp"], unit["capacity_exp"], unit["weight_exp"]
    t = np.ldexp(1.0, b - a)
    changes = {}
    if not instance.is_big_switch:
        changes["resource_capacity"] = np.ldexp(instance.resource_capacity, -b)
    return instance.replace(flow_size=np.ldexp(instance.flow_size, -a),
                            ingress_capacity=np.ldexp(instance.ingress_capacity, -b),
                            egress_capacity=np.ldexp(instance.egress_capacity, -b),
                            weight=np.ldexp(instance.weight, -e),
                            release=instance.release * t, deadline=instance.deadline * t,
                            **changes)


def unit_factor(unit: dict[str, int] | None) -> Fraction:
    """``sum_k w_k C_k`` in the instance's units per unit of it in ``unit``: ``2^(data_exp -
    capacity_exp + weight_exp)``."""
    if not unit:
        return Fraction(1)
    return Fraction(2) ** (unit["data_exp"] - unit["capacity_exp"] + unit["weight_exp"])


def time_factor(unit: dict[str, int] | None) -> float:
    """Times in the instance's units per time in ``unit``: ``2^(data_exp - capacity_exp)``."""
    return 1.0 if not unit else float(np.ldexp(1.0, unit["data_exp"] - unit["capacity_exp"]))


def normalised(instance):
    """``(instance in its LP units, the units)``; the instance itself (units all 0) when the
    rescaled copy would leave coflowopt.limits' ranges."""
    unit = unit_scaling(instance)
    try:
        return in_units(instance, unit), unit
    except CoflowOptError:
        zero = {k: 0 for k in unit}
        return instance, zero


def rebuild_lp(instance, cert: LPCertificate) -> LinearProgram:
    """Rebuild the exact LP a certificate refers to, from the instance (never from the
    solver's copy), in the certificate's units (``params["unit"]``, :func:`unit_scaling`)."""
    params = dict(cert.params)
    instance = in_units(instance, params.pop("unit", None))
    if cert.formulation not in _REBUILDERS:
        # the builders register themselves on import
        from . import (interval_lp, lp_ov, ordering_lp, time_indexed,  # noqa: F401
                       time_indexed_integral)
    if cert.formulation not in _REBUILDERS:
        raise InvalidParameterError(f"no LP rebuilder for certificates of {cert.formulation!r}; "
                                    f"known: {sorted(_REBUILDERS)}")
    return _REBUILDERS[cert.formulation](instance, params, cert.rows)


def check_certificate(instance, cert: LPCertificate, *, repair: bool = True,
                      claimed: float | None = None,
                      lp: LinearProgram | None = None) -> CertificateCheck:
    """Rebuild the certificate's LP from ``instance`` and certify its dual exactly.

    With ``repair=False`` the dual must be exactly feasible and prove ``claimed`` (default: the
    certificate's own claimed value); this is how a tampered certificate is rejected.  With
    ``repair=True`` the result is the certified figure of the repaired dual (always a valid
    bound, possibly lower than the claim).  ``lp``: the LP :func:`rebuild_lp` gave for this
    instance and certificate, when the caller needs it too (a certificate file names its rows).
    """
    if lp is None:
        lp = rebuild_lp(instance, cert)
    if claimed is None and not repair:
        claimed = cert.claimed_value
    # claimed values are in the instance's units, the LP in the certificate's
    unit = cert.params.get("unit")
    f = unit_factor(unit)
    if claimed is not None and f != 1:
        claimed = Fraction(claimed) / f
    chk = certify_lp(lp, cert.row_duals, repair=repair, claimed=claimed)
    chk.details["formulation"] = cert.formulation
    if f != 1:
        chk.details["unit"] = dict(unit)
        if chk.value is not None:
            chk.value = chk.value * f
    return chk


def fraction_str(x: Fraction) -> str:
    """``"p/q"`` (or ``"p"``) for a Fraction."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def is_close(a: float, b: float, rtol: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=rtol, abs_tol=rtol)
