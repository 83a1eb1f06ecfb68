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

from ..exceptions import CoflowOptError
from ..formulations.certificates import (LPCertificate, certify_lp, check_certificate,
                                         rebuild_lp, unit_factor)
from ..formulations.highs import HighsModel
from ..formulations.linear_program import LinearProgram, row_ranges

__all__ = ["EXACT_PROOF_MAX_NONZEROS", "ExactLPSolution", "exact_lp_solution", "exact_bound",
           "solve_rational"]

#: The branch and bound's exact proof solves an LP exactly at HiGHS's basis only up to this
#: many non-zeros of its matrix (the expanded rows).  Why a limit: the solve is Python
#: ``Fraction`` arithmetic, Gaussian elimination on the basis plus the exact primal and dual
#: checks over every entry, measured at 20-30 us a non-zero (load 4-7, one process): ordering
#: LPs 0.44 s at 38,233 non-zeros (10 ports, 300 coflows), 2.1 s at 167,626, 5.8 s at
#: 255,709; an event LP of a whole sequence 0.86 s at 31,441 (10 ports, 80 coflows), 0.06 s at
#: 3,966 (4 ports, 28 coflows: what bnb proves).  A fill-in worse than these bases' (nearly
#: triangular) could make it superlinear, and the proof checks its deadline only between
#: closures, so one exact solve is kept to about a second; above the limit the closure keeps
#: its float-safe certified bound ("proved within rtol", never a wrong "optimal").
EXACT_PROOF_MAX_NONZEROS = 50_000

#: The LP bounds whose certificates :func:`exact_bound` re-solves: one LP rebuilt from the
#: instance (not lp-ov-branch's tree of LPs), each with a file form (certificate_files).
EXACT_BOUND_FORMULATIONS = ("ordering-lp", "lp-ov", "interval-lp", "time-indexed-lp")

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
    # explicit zeros dropped: a pivot is chosen among a row's entries (a stored 0 of the
    # matrix, as the fluid time-indexed LP has, divided by zero)
    R = [{c: v for c, v in r.items() if v} for r in rows]
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
    # the rows as slices of A's entry list (CSR or nested RangeRows rows: exact A_data is
    # aligned with that list, not with an expanded copy)
    A = lp.A
    starts, stops = (v.tolist() for v in row_ranges(A))
    cols_of = A.indices.tolist()
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
        for p in range(starts[i], stops[i]):
            j = cols_of[p]
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
        act = sum((data[p] * x[cols_of[p]] for p in range(starts[i], stops[i])), Fraction(0))
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


def exact_bound(instance, cert: LPCertificate, *, max_nonzeros: int | None = None
                ) -> tuple[Fraction, LPCertificate] | None:
    """A certified LP bound made exact: its LP, rebuilt from ``instance``, solved exactly at
    HiGHS's optimal basis (:func:`exact_lp_solution`).

    A float LP's duals, repaired into exact feasibility, certify a value a few ulps below the
    LP optimum; on rational data the optimum is rational and the basis gives it exactly.  The
    exact duals are checked strictly (no repair) on the LP rebuilt from the instance, so the
    value is a certified lower bound on sum w C whatever HiGHS did (weak duality); it is the
    LP's optimum, since the exact vertex is feasible with the same objective.

    Parameters
    ----------
    instance : Instance
    cert : LPCertificate
        The certificate of a bound whose formulation is in :data:`EXACT_BOUND_FORMULATIONS`
        (the fluid time-indexed LP only).
    max_nonzeros : int, optional
        The LP's non-zeros at most (default :data:`EXACT_PROOF_MAX_NONZEROS`, why there).

    Returns
    -------
    (Fraction, LPCertificate) or None
        The exact value in the instance's units (sum w C) and the certificate with the exact
        duals as ``row_duals``; None when the formulation is not covered, the LP is larger
        than ``max_nonzeros``, or the basis is not exactly optimal (singular, an infeasible
        vertex or duals): the caller keeps its float-safe bound.
    """
    from dataclasses import replace
    if not isinstance(cert, LPCertificate) or cert.formulation not in EXACT_BOUND_FORMULATIONS:
        return None
    if cert.formulation == "time-indexed-lp" and cert.params.get("model", "fluid") != "fluid":
        return None             # the slotted LP bounds the slotted optimum only
    try:
        lp = rebuild_lp(instance, cert)
    except CoflowOptError:
        return None
    if lp.A.nnz > (EXACT_PROOF_MAX_NONZEROS if max_nonzeros is None else max_nonzeros):
        return None
    try:
        ex = exact_lp_solution(lp)
    except CoflowOptError:      # the solver failed: the float-safe bound stands
        return None
    if ex is None:
        return None
    value = ex.value * unit_factor(cert.params.get("unit"))
    out = replace(cert, row_duals=ex.y, claimed_value=float(value),
                  source=f"{cert.source} (exact at its basis)")
    chk = check_certificate(instance, out, repair=False, claimed=value, lp=lp)
    if not chk.ok or chk.value != value:
        return None             # pragma: no cover (exact_lp_solution checked these duals)
    return value, out
