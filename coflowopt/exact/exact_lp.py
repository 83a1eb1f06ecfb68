"""Exact rational solution of a small LP at the optimal basis HiGHS found.

HiGHS solves in floating point; its *basis* (which columns and rows are basic, and at which
bound the others sit) is combinatorial.  Solving the basis system in rational arithmetic gives
the exact vertex and the exact duals of that basis; when the vertex is primal feasible and the
duals certify the same value (checked by
:func:`~coflowopt.formulations.certificates.certify_lp` with Fraction multipliers, no repair),
the LP optimum is known exactly.  Used by the branch and bound for the incumbent's LP (an exact
optimal schedule) and for the LP bounds that decide an exact proof.

The LP: ``min c^T x + offset`` s.t. ``row_lo <= A x <= row_hi``, ``col_lo <= x <= col_hi``
(:class:`~coflowopt.formulations.linear_program.LinearProgram`, exact data read through
``exact_value``).  With ``s = A x``, a basis fixes every nonbasic column at a bound and every
nonbasic row activity at a bound; the rows with nonbasic activity then determine the basic
columns (a square system), and the duals solve ``A_B^T y = c_B`` on those rows.

References
----------
D. L. Applegate, W. Cook, S. Dash, D. G. Espinoza, "Exact solutions to linear programming
problems", Oper. Res. Lett. 35 (2007) 693-699 (exact verification at a floating-point basis).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..formulations.certificates import certify_lp
from ..formulations.highs import HighsModel
from ..formulations.linear_program import LinearProgram

__all__ = ["ExactLPSolution", "exact_lp_solution", "solve_rational"]

# HiGHS basis status codes (HighsBasisStatus): kLower, kBasic, kUpper, kZero, kNonbasic
_LOWER, _BASIC, _UPPER, _ZERO = 0, 1, 2, 3


@dataclass
class ExactLPSolution:
    """An LP solved exactly: ``x`` and ``y`` are Fraction arrays, ``value`` the exact optimum
    (``c^T x + offset``, equal to the certified dual bound)."""

    x: np.ndarray
    y: np.ndarray
    value: Fraction


def solve_rational(rows: list[dict[int, Fraction]], rhs: list[Fraction], n: int
                   ) -> list[Fraction] | None:
    """Solve the square sparse system ``rows x = rhs`` (``rows[i]`` maps column -> coefficient)
    exactly by Gaussian elimination; ``None`` when it is singular.

    Pivots are chosen among the remaining rows with the fewest non-zeros (to keep fill-in and
    Fraction sizes small).
    """
    if len(rows) != n:
        return None
    R = [dict(r) for r in rows]
    b = list(rhs)
    col_rows: dict[int, set[int]] = {}
    for i, r in enumerate(R):
        for j in r:
            col_rows.setdefault(j, set()).add(i)
    pivot_of_col: dict[int, int] = {}
    remaining = set(range(n))
    for _ in range(n):
        if not remaining:
            return None
        i = min(remaining, key=lambda k: (len(R[k]), k))
        if not R[i]:
            return None
        j = min(R[i], key=lambda c: (len(col_rows.get(c, ())), c))
        piv = R[i][j]
        remaining.discard(i)
        pivot_of_col[j] = i
        for k in list(col_rows.get(j, ())):
            if k == i or k not in remaining:
                continue
            f = R[k][j] / piv
            for c, v in R[i].items():
                nv = R[k].get(c, Fraction(0)) - f * v
                if nv:
                    if c not in R[k]:
                        col_rows.setdefault(c, set()).add(k)
                    R[k][c] = nv
                elif c in R[k]:
                    del R[k][c]
                    col_rows[c].discard(k)
            b[k] -= f * b[i]
    # back substitution in reverse pivot order
    x: dict[int, Fraction] = {}
    order = list(pivot_of_col.items())
    for j, i in reversed(order):
        s = b[i]
        for c, v in R[i].items():
            if c != j:
                s -= v * x[c]
        x[j] = s / R[i][j]
    if len(x) != n or set(x) != set(range(n)):
        return None
    return [x[j] for j in range(n)]


def _at_bound(status: int, lo, hi):
    """The value of a nonbasic variable or row activity: its lower or upper bound, 0 for a
    free nonbasic one (``None`` when that bound is infinite)."""
    return lo if status == _LOWER else hi if status == _UPPER else Fraction(0)


def _exact_vec(lp: LinearProgram, key: str) -> list:
    vals = getattr(lp, key)
    return [lp.exact_value(key, i) if np.isfinite(vals[i]) else None for i in range(vals.size)]


def exact_lp_solution(lp: LinearProgram, *, model: HighsModel | None = None
                      ) -> ExactLPSolution | None:
    """Solve ``lp`` with HiGHS (dual simplex) and recompute the optimal basis exactly.

    Returns ``None`` when HiGHS does not report an optimal basis, the basis system is
    singular, or the exact vertex or duals turn out infeasible (the float basis was not exactly
    optimal): the caller then keeps its floating-point certificate.
    """
    hm = model if model is not None else HighsModel(
        algorithm="simplex", options={"presolve": "off",
                                      "primal_feasibility_tolerance": 1e-10,
                                      "dual_feasibility_tolerance": 1e-10})
    hm.load(lp)
    sol = hm.run()
    if sol.status != "optimal":
        return None
    basis = hm.h.getBasis()
    if not basis.valid:
        return None
    cs = [int(s) for s in basis.col_status]
    rs = [int(s) for s in basis.row_status]
    m, n = lp.num_rows, lp.num_cols
    A = lp.A.tocsr()
    ad = lp.exact.get("A_data")
    data = [Fraction(v) for v in ad] if ad is not None else [Fraction(float(v)) for v in A.data]
    clo, chi = _exact_vec(lp, "col_lo"), _exact_vec(lp, "col_hi")
    rlo, rhi = _exact_vec(lp, "row_lo"), _exact_vec(lp, "row_hi")
    c = [lp.exact_value("c", j) for j in range(n)]
    x: list[Fraction | None] = [None] * n
    for j in range(n):
        if cs[j] == _BASIC:
            continue
        x[j] = _at_bound(cs[j], clo[j], chi[j])
        if x[j] is None:
            return None
    basic_cols = [j for j in range(n) if cs[j] == _BASIC]
    idx = {j: t for t, j in enumerate(basic_cols)}
    eq_rows, rhs = [], []
    for i in range(m):
        if rs[i] == _BASIC:
            continue
        target = _at_bound(rs[i], rlo[i], rhi[i])
        if target is None:
            return None
        row: dict[int, Fraction] = {}
        s = target
        for p in range(A.indptr[i], A.indptr[i + 1]):
            j = int(A.indices[p])
            if j in idx:
                row[idx[j]] = data[p]
            else:
                s -= data[p] * x[j]
        eq_rows.append((i, row))
        rhs.append(s)
    xb = solve_rational([r for _, r in eq_rows], rhs, len(basic_cols))
    if xb is None:
        return None
    for j, v in zip(basic_cols, xb):
        x[j] = v
    # exact primal feasibility
    for j in range(n):
        if (clo[j] is not None and x[j] < clo[j]) or (chi[j] is not None and x[j] > chi[j]):
            return None
    for i in range(m):
        act = sum((data[p] * x[int(A.indices[p])] for p in range(A.indptr[i], A.indptr[i + 1])),
                  Fraction(0))
        if (rlo[i] is not None and act < rlo[i]) or (rhi[i] is not None and act > rhi[i]):
            return None
    # duals: A_B^T y = c_B over the rows with nonbasic activity; y = 0 on basic rows
    cols_t: list[dict[int, Fraction]] = [dict() for _ in basic_cols]
    for t, (i, row) in enumerate(eq_rows):
        for jb, v in row.items():
            cols_t[jb][t] = v
    yr = solve_rational(cols_t, [c[j] for j in basic_cols], len(eq_rows))
    if yr is None:
        return None
    y = np.empty(m, dtype=object)
    y[:] = Fraction(0)
    for (i, _), v in zip(eq_rows, yr):
        y[i] = v
    off = lp.exact.get("offset")
    value = sum((cj * xj for cj, xj in zip(c, x)), Fraction(0)) + (
        Fraction(off) if off is not None else Fraction(float(lp.offset)))
    chk = certify_lp(lp, y, repair=False)
    if not chk.ok or chk.value != value:
        return None
    xa = np.empty(n, dtype=object)
    xa[:] = x
    return ExactLPSolution(x=xa, y=y, value=value)
