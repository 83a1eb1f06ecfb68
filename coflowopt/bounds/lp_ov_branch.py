"""LP-OV with branching on pairwise orders: a disjunctive lower bound above LP-OV.

Every schedule completes the coflows in some order (ties broken by index), so for any pair
``(a, b)`` either ``a`` completes before ``b`` or after it.  A *branching tree* splits the
schedules on such pairs; in a leaf the decisions of its path and their transitive closure hold
for every schedule of the leaf, so LP-OV with those pair variables fixed (``x_ab = 1`` for "a
before b", ``0`` for "b before a") is a relaxation of the leaf.  The minimum over the leaves of
their certified LP-OV bounds is a lower bound on every schedule; a leaf whose decisions contain
a cycle holds no schedule and is dropped (``formulations/lp_ov_branch.md``, proof there).

Why branching and not cuts: LP-OV is ``min sum_k w_k max_q (d_k^q + sum_j d_j^q delta_jk)``
over fractional orders.  The objective is convex in ``delta``, so even over the exact linear
ordering polytope (all triangle inequalities, measured: at most +0.2 % on FB samples) its
minimum lies at a mixture of orders, below every single order.  Fixing the order of a few large
coflows removes exactly these mixtures: on 8 dense 15-coflow FB samples the search below closes
85-100 % of LP-OV's gap to the exact open-shop optimum in 40 LPs
(``experiments/results/fb_lp_ov_branch.md``, ``formulations/lp_ov_branch.md``).

The search is best first: the leaf with the smallest LP value is split on its most fractional
pair weighted by ``w_a f_a + w_b f_b`` (the two coflows' share of the LP objective), both
children are solved by the dual simplex warm-started from the current basis (every optimal
basis of LP-OV is dual feasible in every leaf: the leaves differ only in column bounds), and the
bound is the smallest leaf value.  Every leaf's
dual is checked in exact arithmetic at the end (:func:`check_branch_certificate`); a leaf whose
own dual does not check falls back to the root's dual evaluated with the leaf's bounds (valid:
a dual of LP-OV bounds every restriction of it, and tighter column bounds only raise
``LB(y)``).

References
----------
M. Shafiee, J. Ghaderi, IEEE/ACM ToN 26(4) 2018 (LP-OV); the branching is standard LP-based
branch and bound (Land and Doig, Econometrica 28, 1960) on the linear-ordering variables.
"""

from __future__ import annotations

import copy
import heapq
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import NotSupportedError
from ..instance import Instance
from ..limits import check_integer, check_number
from ..registry import register
from ..results import Result
from ..formulations.certificates import (LPCertificate, certify_lp, fraction_str, in_units,
                                         normalised, register_rebuilder, unit_factor)
from ..formulations.highs import HighsModel
from ..formulations.lp_ov import build_lp_ov, check_ports
from .common import (certificate_origin, check_objective, check_time_limit, uncertified_result,
                     weighted_release_sum)
from .lp_bounds import _LP_TAGS, lp_ov_nonzeros

__all__ = ["lp_ov_branch_bound", "BranchCertificate", "BranchLeaf", "check_branch_certificate",
           "decision_closure", "check_covering"]


# ----------------------------------------------------------------------------- the tree
def decision_closure(decisions) -> list[tuple[int, int]] | None:
    """Every relation ``(a, b)`` ("a completes before b") implied by ``decisions`` through
    transitivity, or ``None`` when they contain a cycle (no schedule satisfies them).

    Examples
    --------
    >>> sorted(decision_closure([(0, 1), (1, 2)]))
    [(0, 1), (0, 2), (1, 2)]
    >>> decision_closure([(0, 1), (1, 2), (2, 0)]) is None
    True
    """
    succ: dict[int, set] = {}
    for a, b in decisions:
        succ.setdefault(int(a), set()).add(int(b))
    out = []
    for a in list(succ):
        seen, stack = set(), [a]
        while stack:
            for v in succ.get(stack.pop(), ()):
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        if a in seen:
            return None
        out.extend((a, b) for b in seen)
    return out


def check_covering(paths) -> str:
    """``""`` when the decision paths are the leaves of a complete binary branching tree (every
    schedule order falls into one leaf), else why not.

    A single empty path is the root.  Otherwise every path must start with the same pair in
    one of its two orientations, both orientations must occur, and the tails of each group must
    again cover (recursively).

    Examples
    --------
    >>> check_covering([[(0, 1)], [(1, 0), (2, 3)], [(1, 0), (3, 2)]])
    ''
    >>> check_covering([[(0, 1)], [(1, 0), (2, 3)]])
    'the leaves under [(1, 0)] do not cover: only (2, 3) is branched, not (3, 2)'
    """
    def rec(group, prefix):
        if len(group) == 1 and not group[0]:
            return ""
        if any(not p for p in group):
            return f"the leaves under {prefix} do not cover: a leaf ends where others branch"
        a, b = group[0][0]
        sides: dict[tuple, list] = {(a, b): [], (b, a): []}
        for p in group:
            if tuple(p[0]) not in sides:
                return (f"the leaves under {prefix} do not cover: they branch on {(a, b)} and "
                        f"on {tuple(p[0])}")
            sides[tuple(p[0])].append(p[1:])
        for side, rest in sides.items():
            if not rest:
                other = (b, a) if side == (a, b) else (a, b)
                return (f"the leaves under {prefix} do not cover: only {other} is branched, "
                        f"not {side}")
            why = rec(rest, prefix + [side])
            if why:
                return why
        return ""
    paths = [[tuple(int(v) for v in d) for d in p] for p in paths]
    if not paths:
        return "no leaves"
    return rec(paths, [])


def leaf_column_bounds(lp, decisions, num_coflows: int):
    """The column bounds of LP-OV in a leaf: the pair columns fixed by the transitive closure
    of ``decisions`` (pairs without a column are not in the LP), or ``None`` for an empty
    leaf (a cycle)."""
    closure = decision_closure(decisions)
    if closure is None:
        return None
    K = num_coflows
    keys = lp.meta["pair_key"]
    lo, hi = lp.col_lo.copy(), lp.col_hi.copy()
    if closure:
        rel = np.asarray(closure, dtype=np.int64)
        a, b = rel[:, 0], rel[:, 1]
        key = np.minimum(a, b) * K + np.maximum(a, b)
        pos = np.searchsorted(keys, key)
        ok = (pos < keys.size) & (keys[np.minimum(pos, keys.size - 1)] == key)
        col = K + pos[ok]
        before = (a < b)[ok]                 # x_ab = 1 when the smaller index comes first
        lo[col[before]] = hi[col[before]] = 1.0
        lo[col[~before]] = hi[col[~before]] = 0.0
    return lo, hi


def float_exact(lp):
    """``lp`` without the exact copies of its data that equal its floats, or ``lp`` itself when
    some exact entry is not its float.

    LP-OV states its right-hand sides and isolation bounds exactly (``exact["row_lo"]``,
    ``exact["col_lo"]``); in the units of :func:`~coflowopt.formulations.certificates.
    normalised` they are dyadic and equal to the floats on the FB trace.  Without the copies the
    LP is the same LP, and :func:`~coflowopt.formulations.certificates.certify_lp` checks it by
    its compiled error-free float arithmetic (once the kernels are loaded) instead of Python
    integers: the same rational, about 1 s -> a few ms a leaf on the FB trace's LP-OV (1.6
    million non-zeros), where a search checks 30-60 leaves.
    """
    ex = dict(lp.exact)
    for key in ("A_data", "row_lo", "row_hi", "c", "col_lo", "col_hi"):
        e = ex.get(key)
        if e is None:
            continue
        f = lp.A.data if key == "A_data" else getattr(lp, key)
        if len(e) != len(f):
            return lp
        for v, x in zip(e.tolist(), np.asarray(f, dtype=float).tolist()):
            if v is None:
                continue
            if not math.isfinite(x):
                return lp
            # both in lowest terms with a positive denominator: equal iff the pairs are
            # (as_integer_ratio is exact; half the time of Fraction(x) != Fraction(v))
            v = v if type(v) is Fraction else Fraction(v)
            if (v.numerator, v.denominator) != x.as_integer_ratio():
                return lp
        del ex[key]
    out = copy.copy(lp)
    out.exact = ex
    return out


def _load_certificate_kernel() -> None:
    """Load the compiled kernels (numba, ~0.1-0.5 s once per process) so that the exact checks
    of the leaves take the compiled path (:func:`float_exact`); without numba they stay exact,
    in Python integers."""
    from ..rates._jit import HAVE_NUMBA, load_kernels
    if HAVE_NUMBA:
        load_kernels()


def _restricted(lp, bounds):
    """``lp`` with the column bounds ``bounds`` (the same exact data otherwise: the pair
    columns' bounds 0 and 1 are exact floats)."""
    out = copy.copy(lp)
    out.col_lo, out.col_hi = bounds
    return out


# ----------------------------------------------------------------------------- certificate
@dataclass
class BranchLeaf:
    """One leaf: its branching decisions, in order from the root (``(a, b)``: "a completes
    before b"), and the LP-OV row duals that bound it (``None``: the decisions contain a
    cycle, the leaf holds no schedule)."""

    decisions: tuple
    row_duals: np.ndarray | None
    lp_value: float | None = None


@dataclass
class BranchCertificate:
    """The leaves of a branching tree over LP-OV (module docstring).

    Attributes
    ----------
    formulation : str
        ``"lp-ov-branch"``.
    params : dict
        ``ports`` and ``unit`` of the LP-OV (as :class:`~coflowopt.formulations.certificates.
        LPCertificate`).
    leaves : list of BranchLeaf
    claimed_value : float, optional
        The smallest leaf LP value the solver reported, in the instance's units.
    source : str
    """

    params: dict
    leaves: list
    rows: Any = None
    claimed_value: float | None = None
    source: str = ""
    formulation: str = "lp-ov-branch"
    leaf_values: list = field(default_factory=list)

    def leaf_certificate(self, i: int) -> LPCertificate:
        """Leaf ``i``'s dual as an LP-OV certificate (valid for that leaf's region only)."""
        return LPCertificate(formulation="lp-ov", params=dict(self.params),
                             row_duals=self.leaves[i].row_duals, source=self.source)

    def to_dict(self, include_duals: bool = False) -> dict[str, Any]:
        d = {"formulation": self.formulation, "params": self.params,
             "leaves": len(self.leaves),
             "empty_leaves": sum(1 for lf in self.leaves if lf.row_duals is None),
             "max_depth": max((len(lf.decisions) for lf in self.leaves), default=0),
             "claimed_value": self.claimed_value, "source": self.source}
        if include_duals:
            d["leaf_list"] = [{"decisions": [list(p) for p in lf.decisions],
                               "row_duals": None if lf.row_duals is None else
                               [float(v) for v in lf.row_duals]} for lf in self.leaves]
        return d


def check_branch_certificate(instance: Instance, cert: BranchCertificate, *,
                             repair: bool = True) -> tuple[Fraction | None, str, dict]:
    """Check a branching certificate in exact arithmetic, from the instance alone.

    The leaves must cover every order (:func:`check_covering`); LP-OV is rebuilt from the
    instance, and each leaf's dual is certified exactly
    (:func:`~coflowopt.formulations.certificates.certify_lp`) with the leaf's column bounds; a
    leaf may be empty only when its decisions contain a cycle.

    Returns
    -------
    value, reason, details
        ``value``: the smallest certified leaf bound on ``sum_k w_k C_k`` in the instance's
        units, or ``None`` with ``reason`` when the certificate does not check.
    """
    params = dict(cert.params)
    unit = params.pop("unit", None)
    lp = build_lp_ov(in_units(instance, unit), ports=params.get("ports", "used"))
    return _certify_leaves(lp, cert, unit, instance.num_coflows, repair=repair)


#: Relative margins by which :func:`dual_feasible` scales a violating coflow's rows, in turn.
FEASIBILITY_MARGINS = (1e-12, 1e-9, 1e-6)


def dual_feasible(lp, y, K: int) -> np.ndarray:
    """LP-OV row multipliers made exactly dual feasible before the exact check, so that it needs
    no repair round (each exact evaluation of ``A^T y`` costs one to three seconds on the FB
    trace's LP-OV; a repair round is a second one).

    The only unbounded columns of LP-OV are the completion times ``f_k`` (bounded below), one
    per row: their reduced costs ``w_k - sum_q c_q y_kq`` must be ``>= 0``.  Negative
    multipliers (on ``>=`` rows) become 0; for the coflows whose floating-point sum is within
    1e-9 of ``w_k`` the sum is taken exactly (one product per row), and a coflow whose exact sum
    exceeds ``w_k`` has its rows scaled to ``w_k (1 - margin)``.  A dual that is exactly
    feasible is returned unchanged; the exact check decides in any case.
    """
    y = np.where(np.isfinite(y) & (np.asarray(y, dtype=float) > 0), y, 0.0).astype(float)
    Af = lp.A[:, :K].tocsr()
    if not np.all(np.diff(Af.indptr) == 1):
        return y                       # not LP-OV's shape: leave it to the exact repair
    coef, rk = Af.data, Af.indices
    w = np.asarray(lp.c[:K], dtype=float)
    order = np.argsort(rk, kind="stable")
    starts = np.searchsorted(rk[order], np.arange(K + 1))
    for margin in FEASIBILITY_MARGINS:
        pushed = np.bincount(rk, weights=coef * y, minlength=K)
        bad = []
        near = np.flatnonzero(pushed > w * (1.0 - 1e-9))
        prod, err = _two_product(coef, y)
        for k in near.tolist():
            rows = order[starts[k]:starts[k + 1]]
            if err is not None:
                # the exact sum less w_k, correctly rounded by fsum: its sign is the exact
                # difference's
                if math.fsum(prod[rows].tolist() + err[rows].tolist() + [-w[k]]) > 0.0:
                    bad.append(k)
                continue
            exact = sum((Fraction(float(c)) * Fraction(float(v))
                         for c, v in zip(coef[rows].tolist(), y[rows].tolist())), Fraction(0))
            if exact > Fraction(float(w[k])):
                bad.append(k)
        if not bad:
            return y
        bad = np.asarray(bad)
        factor = np.ones(K)
        factor[bad] = w[bad] / pushed[bad] * (1.0 - margin)
        y = y * factor[rk]
    return y


def _two_product(a: np.ndarray, b: np.ndarray):
    """``(p, e)`` with ``p + e == a * b`` exactly for every entry (``p`` the rounded product,
    Dekker's TwoProduct by Veltkamp splitting), or ``(None, None)`` when an entry is outside
    the range where that is exact (no overflow in the split, no underflow in the error:
    non-zero magnitudes within ``[2^-400, 2^400]``).

    Examples
    --------
    >>> p, e = _two_product(np.array([0.1]), np.array([0.3]))
    >>> from fractions import Fraction
    >>> Fraction(p[0]) + Fraction(e[0]) == Fraction(0.1) * Fraction(0.3)
    True
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    for v in (a, b):
        m = np.abs(v[v != 0.0])
        if m.size and not (np.all(np.isfinite(m)) and m.min() >= 2.0 ** -400
                           and m.max() <= 2.0 ** 400):
            return None, None
    split = 134217729.0                      # 2^27 + 1
    def halves(v):
        t = split * v
        hi = t - (t - v)
        return hi, v - hi
    ah, al = halves(a)
    bh, bl = halves(b)
    p = a * b
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


@register_rebuilder("lp-ov-branch")
def _rebuild(instance: Instance, params: dict, rows):
    """The root LP of a branching certificate (``coflowopt bound --export``): LP-OV; each leaf
    is it with the leaf's pair columns fixed."""
    return build_lp_ov(instance, ports=params.get("ports", "used"))


# ----------------------------------------------------------------------------- the bound
@dataclass(order=True)
class _Node:
    value: float
    seq: int
    decisions: tuple = field(compare=False)
    x: np.ndarray = field(compare=False, repr=False)
    row_dual: np.ndarray = field(compare=False, repr=False)
    #: the dual simplex stopped at the cutoff: ``value`` is the dual objective it had reached
    #: (a bound on the leaf's LP, not its optimum), ``x`` is not a solution
    capped: bool = field(default=False, compare=False)


def _check_parameters(*, objective, ports, max_nodes, time_limit, max_nonzeros, cutoff,
                      **_) -> None:
    """The rules of :func:`lp_ov_branch_bound`'s parameters that need no instance: checked by
    it first, and by a front end before any method runs (``lp_ov_branch_bound.check_parameters``,
    called through :meth:`coflowopt.registry.Algorithm.check_parameters`), so that a bad value
    is refused before a solver starts (``threads`` is HighsModel's own check)."""
    check_objective(objective)
    check_ports(ports)
    if time_limit is not None:
        check_time_limit(time_limit)
    check_integer(max_nodes, "max_nodes", 0)
    check_integer(max_nonzeros, "max_nonzeros", 1)
    if cutoff is not None:
        # a value of the objective, which is >= 0: the cutoff acts only while the smallest
        # leaf is below it, so one <= 0 would stop no child (and an infinite one neither): a
        # mistake to report, not a setting to run with
        check_number(cutoff, "cutoff", 0.0, lo_open=True)


@register("bound", "lp-ov-branch", summary="LP-OV, then best-first branching on the order of "
          "pairs of coflows (warm-started dual simplex); the smallest leaf bound",
          reference="Shafiee, Ghaderi (IEEE/ACM ToN 2018) LP-OV; LP-based branch and bound "
          "(Land, Doig 1960); formulations/lp_ov_branch.md",
          guarantee="valid lower bound on the fluid optimum (every schedule's completion order "
                    "falls into one leaf; each leaf's LP-OV dual checked in exact arithmetic); "
                    ">= lp-ov",
          tags=_LP_TAGS + ("slow",))
def lp_ov_branch_bound(instance: Instance, *, objective: str = "weighted_completion_time",
                       ports: str = "used", max_nodes: int = 200,
                       time_limit: float | None = None, threads: int | None = None,
                       max_nonzeros: int = 20_000_000, cutoff: float | None = None) -> Result:
    """LP-OV strengthened by branching on pairwise orders (module docstring).

    Parameters
    ----------
    instance : Instance
    objective : {"weighted_completion_time", "weighted_cct"}
        The objective bounded: ``sum_k w_k C_k`` or ``sum_k w_k (C_k - r_k)``.
    ports : {"used", "all"}, default "used"
        LP-OV's rows (:func:`~coflowopt.bounds.lp_bounds.lp_ov_bound`).
    max_nodes : int, default 200
        LPs solved after the root at most (two per branching).
    time_limit : float, optional
        Seconds for the whole bound, the exact check of every leaf included: the search stops
        when the time left is what checking the leaves is expected to take.  With a limit too
        short for the root LP the result carries no number (status ``time_limit``).
    threads : int, optional
        HiGHS threads.
    max_nonzeros : int
        Refuse (``NotSupportedError``) an LP-OV with more estimated non-zeros.
    cutoff : float, optional
        A value of ``objective`` (e.g. a verified schedule's value over the gap sought) above
        which a leaf's exact LP value is not needed: while the smallest leaf is below it, each
        child's dual simplex stops once its dual objective exceeds it (HiGHS
        ``objective_bound``, status ``kObjectiveBound``); the child keeps the dual it reached
        (dual feasible, so a bound on the leaf like any other, certified the same way) and is
        solved to optimality only if it becomes the smallest leaf.  So the leaves split are
        those without the cutoff, but for one difference: a stopped child leaves another basis
        behind, and the next LP may reach another of its optimal solutions (so split another
        pair; measured: the same bound within 1e-9 on FB samples, once 0.3 % higher).  The
        bound is valid either way.  ``None``: every child is solved to optimality.

    Returns
    -------
    Result
        ``kind="lower_bound"``: the smallest certified leaf bound; status ``"optimal"`` when
        the search ended because the smallest leaf has an integral order (branching cannot
        raise it), ``"node_limit"`` or ``"time_limit"`` otherwise (the bound is valid either
        way).  ``extra``: ``root_value`` (the LP-OV bound, certified), ``nodes``, ``leaves``,
        ``lp_order`` (the root LP's order), the search history; with ``cutoff``:
        ``children_capped`` (children stopped at it) and ``capped_resolved`` (of those, later
        solved to optimality as the smallest leaf).

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0)]), Coflow("B", [(0, 0, 1.0)])])
    >>> res = lp_ov_branch_bound(inst)
    >>> res.value, res.kind
    (Fraction(4, 1), 'lower_bound')
    """
    _check_parameters(objective=objective, ports=ports, max_nodes=max_nodes,
                      time_limit=time_limit, max_nonzeros=max_nonzeros, cutoff=cutoff)
    t_start = time.perf_counter()

    def left() -> float:
        return math.inf if time_limit is None else time_limit - (time.perf_counter() - t_start)

    est = lp_ov_nonzeros(instance, ports)
    if est > max_nonzeros:
        raise NotSupportedError(f"LP-OV too large: about {est} non-zeros > max_nonzeros="
                                f"{max_nonzeros}; use the ordering-lp bound")
    params = {"objective": objective, "ports": ports, "max_nodes": max_nodes,
              "time_limit": time_limit, "cutoff": None if cutoff is None else float(cutoff)}
    inst_u, unit = normalised(instance)
    lp = build_lp_ov(inst_u, ports=ports)
    K = instance.num_coflows
    timings = {"build": time.perf_counter() - t_start}
    model = HighsModel(lp, algorithm="ipm", crossover=True, threads=threads)
    t0 = time.perf_counter()
    root = model.run(time_limit=None if time_limit is None else max(left(), 1e-3))
    timings["root"] = time.perf_counter() - t0
    factor = float(unit_factor(unit))
    extra: dict[str, Any] = {"lp": lp.summary(), "pairs": lp.meta["pairs"]}
    if root.row_dual is None or root.x is None or root.status != "optimal":
        return uncertified_result(algorithm="lp-ov-branch", objective=objective,
                                  status=root.status, params=params, solver=root.solver,
                                  timings=timings, extra=extra,
                                  reason=f"the root LP-OV was not solved (status "
                                         f"{root.status}: {root.raw_status})")
    f_root = lp.col_block("f", root.x)
    extra["lp_order"] = np.lexsort((np.arange(K), f_root)).tolist()
    # the exact check of one leaf, measured on the root: the search keeps time for all leaves
    _load_certificate_kernel()
    lp_check = float_exact(lp)
    t0 = time.perf_counter()
    root_chk = certify_lp(lp_check, dual_feasible(lp, root.row_dual, K), repair=True)
    t_check = time.perf_counter() - t0
    timings["certify_root"] = t_check
    if t_check < 1.0:
        # the first compiled check also loads its kernel from numba's cache: time a second
        t0 = time.perf_counter()
        certify_lp(lp_check, dual_feasible(lp, root.row_dual, K), repair=True)
        t_check = min(t_check, time.perf_counter() - t0)
    if not root_chk.ok:
        return uncertified_result(algorithm="lp-ov-branch", objective=objective,
                                  status=root.status, params=params, solver=root.solver,
                                  timings=timings, extra=extra, claimed=root.objective * factor,
                                  reason=f"the root dual does not check: {root_chk.reason}")
    extra["root_value"] = float(root_chk.value * unit_factor(unit))
    # ---- best-first search
    model.set_option("solver", "simplex")
    model.set_option("simplex_strategy", 1)    # dual simplex: bound changes keep dual feasibility
    keys = lp.meta["pair_key"]
    pa, pb = keys // K, keys % K
    pair_cols = np.arange(K, lp.num_cols, dtype=np.int32)
    w = np.asarray(instance.weight, dtype=float)
    cur_lo, cur_hi = lp.col_lo[K:].copy(), lp.col_hi[K:].copy()
    seq = 0
    frontier = [_Node(root.objective, seq, (), root.x, root.row_dual)]
    empty: list[tuple] = []
    nodes, history, status, statuses = 0, [], "node_limit", {}
    # the cutoff in the LP's units (LP-OV's objective is sum_k w_k f_k, scaled by the unit)
    cap = math.inf
    if cutoff is not None:
        total = Fraction(cutoff) + (weighted_release_sum(instance)
                                    if objective == "weighted_cct" else 0)
        cap = float(total / unit_factor(unit))
    capped, resolved = 0, 0

    def set_bounds(decisions):
        """Install the leaf's pair-column bounds in the model; ``None`` for an empty leaf."""
        nonlocal cur_lo, cur_hi
        bounds = leaf_column_bounds(lp, decisions, K)
        if bounds is None:
            return None
        lo, hi = bounds[0][K:], bounds[1][K:]
        chg = np.flatnonzero((lo != cur_lo) | (hi != cur_hi))
        if chg.size:
            model.h.changeColsBounds(chg.size, pair_cols[chg], lo[chg], hi[chg])
        cur_lo, cur_hi = lo, hi
        return bounds

    def solve(objective_bound: float):
        # seconds for this run (HighsModel.run: HiGHS's own option counts every run)
        model.set_option("objective_bound", objective_bound)
        sol = model.run(time_limit=max(left(), 1e-3))
        statuses[sol.status] = statuses.get(sol.status, 0) + 1
        return sol

    t0 = time.perf_counter()
    while True:
        if nodes + 2 > max_nodes:
            status = "node_limit"
            break
        # keep time for the exact check of every leaf (one more after this branching) and
        # for a branching as long as the last one
        last = history[-1]["seconds"] if history else 0.0
        if left() < 1.25 * t_check * (len(frontier) + 1) + last:
            status = "time_limit"
            break
        node = heapq.heappop(frontier)
        if node.capped:
            # a child stopped at the cutoff is now the smallest leaf: the bound needs its LP
            # value, so it is solved to optimality (from the current basis, dual feasible for
            # it as for every leaf)
            tb = time.perf_counter()
            set_bounds(node.decisions)
            sol = solve(math.inf)
            resolved += 1
            if sol.status == "optimal" and sol.row_dual is not None and sol.x is not None:
                node = _Node(max(sol.objective, node.value), node.seq, node.decisions, sol.x,
                             sol.row_dual)
            else:
                # keep the stopped dual (it bounds the leaf); the leaf is not split again
                node = _Node(node.value, node.seq, node.decisions, node.x, node.row_dual,
                             capped=True)
            heapq.heappush(frontier, node)
            history.append({"node": nodes, "resolved": list(node.decisions[-1]),
                            "depth": len(node.decisions), "status": sol.status,
                            "bound": frontier[0].value * factor,
                            "seconds": time.perf_counter() - tb,
                            "iterations": sol.iterations.get("simplex")})
            if node.capped:
                status = sol.status
                break
            continue
        wf = w * node.x[:K]
        d = node.x[K:]
        score = np.minimum(d, 1.0 - d) * (wf[pa] + wf[pb])
        if node.decisions:
            # columns fixed in this node (its x may be its parent's, see below) are never split
            lo, hi = leaf_column_bounds(lp, node.decisions, K)
            score[lo[K:] == hi[K:]] = 0.0
        j = int(np.argmax(score)) if score.size else -1
        if j < 0 or score[j] <= 1e-9:
            heapq.heappush(frontier, node)
            status = "optimal"
            break
        a, b = int(pa[j]), int(pb[j])
        tb = time.perf_counter()
        children = []
        for rel in ((a, b), (b, a)):
            dec = node.decisions + (rel,)
            nodes += 1
            # any optimal basis of LP-OV is dual feasible for every leaf (same costs; only
            # bounds change), so the dual simplex goes on from the current one: re-installing
            # the parent's basis costs a factorisation (~5 s on the FB trace) and saved fewer
            # iterations than that (measured)
            if set_bounds(dec) is None:
                empty.append(dec)
                continue
            # the cutoff only while the smallest leaf (this node) is below it: above, a child
            # would stop at once with its start's dual objective and need solving again
            sol = solve(cap if node.value < cap else math.inf)
            seq += 1
            if sol.status == "infeasible":
                # LP-OV with these fixings has no point: neither has the leaf; it still needs
                # a proof, so it keeps the parent's dual (which bounds it, finitely)
                child = _Node(node.value, seq, dec, node.x, node.row_dual)
            elif sol.status == "objective_bound" and sol.row_dual is not None:
                # stopped in phase 2 with a dual objective above the cutoff: the dual is a
                # bound on this leaf (checked exactly with the others at the end)
                child = _Node(max(sol.objective, node.value), seq, dec, node.x, sol.row_dual,
                              capped=True)
                capped += 1
            elif sol.status != "optimal" or sol.row_dual is None or sol.x is None:
                child = _Node(node.value, seq, dec, node.x, node.row_dual)
            else:
                child = _Node(max(sol.objective, node.value), seq, dec, sol.x, sol.row_dual)
            heapq.heappush(frontier, child)
            children.append({"value": child.value * factor, "seconds": sol.seconds,
                             "iterations": sol.iterations.get("simplex"),
                             **({"capped": True} if child.capped else {})})
        history.append({"node": nodes, "pair": [a, b], "depth": len(node.decisions) + 1,
                        "bound": frontier[0].value * factor if frontier else None,
                        "seconds": time.perf_counter() - tb, "children": children})
    timings["search"] = time.perf_counter() - t0
    # ---- the certificate: every leaf, checked exactly
    leaves = [BranchLeaf(n.decisions, n.row_dual, n.value * factor) for n in frontier]
    leaves += [BranchLeaf(dec, None, None) for dec in empty]
    cert = BranchCertificate(params={"ports": ports, "unit": unit}, leaves=leaves,
                             claimed_value=min(n.value for n in frontier) * factor,
                             source=f"highs:{root.solver.get('algorithm')}+simplex")
    t0 = time.perf_counter()
    value, why, details = _certify_leaves(lp, cert, unit, K,
                                           fallback_dual=root.row_dual)
    timings["certify"] = time.perf_counter() - t0
    extra.update({"nodes": nodes, "leaves": len(leaves), "empty_leaves": len(empty),
                  "node_statuses": statuses, "children_capped": capped,
                  "capped_resolved": resolved,
                  "history": history, "certificate_check": details})
    if value is None:
        return uncertified_result(algorithm="lp-ov-branch", objective=objective, status=status,
                                  params=params, solver=root.solver, timings=timings,
                                  extra=extra, reason=why, claimed=cert.claimed_value)
    extra["solver_objective"] = cert.claimed_value
    extra["lp_unit"] = dict(unit)
    if objective == "weighted_cct":
        value = value - weighted_release_sum(instance)
    extra["value_exact"] = fraction_str(value)
    backend, source = certificate_origin(cert)
    msg = (f"certified lower bound on the optimal {objective} (the smallest of {len(leaves)} "
           f"leaves of a branching on pairwise orders, each an LP-OV dual checked in exact "
           f"arithmetic; root LP-OV {extra['root_value']:.12g})")
    return Result(value=value, kind="lower_bound", objective=objective, status=status,
                  algorithm="lp-ov-branch", message=msg, params=params, certificate=cert,
                  certificate_status="certified", backend=backend, certificate_source=source,
                  solver=dict(root.solver), timings=timings, extra=extra)


lp_ov_branch_bound.check_parameters = _check_parameters


def _certify_leaves(lp, cert: BranchCertificate, unit, K: int, *, repair: bool = True,
                    fallback_dual=None):
    """Certify every leaf's dual on ``lp`` (LP-OV in the certificate's units) with the leaf's
    column bounds.  A leaf whose dual does not check takes ``fallback_dual`` (the root's: a dual
    of LP-OV bounds every leaf) when given.  Returns the smallest value in the instance's units,
    or ``None`` and the reason."""
    why = check_covering([lf.decisions for lf in cert.leaves])
    if why:
        return None, why, {}
    f = unit_factor(unit)
    lp_check = float_exact(lp)
    best, values, fallbacks, repaired = None, [], 0, 0
    for i, lf in enumerate(cert.leaves):
        bounds = leaf_column_bounds(lp, lf.decisions, K)
        if bounds is None:
            values.append(None)
            continue
        if lf.row_duals is None:
            return None, f"leaf {i} is declared empty but its decisions have no cycle", {}
        sub = _restricted(lp_check, bounds)
        y = lf.row_duals
        chk = certify_lp(sub, y if not repair else dual_feasible(lp, y, K), repair=repair)
        if not chk.ok and fallback_dual is not None:
            chk = certify_lp(sub, fallback_dual, repair=True)
            fallbacks += 1
        if not chk.ok:
            return None, f"leaf {i}: {chk.reason}", {}
        repaired += bool(chk.repaired)
        lf.row_duals = chk.multipliers
        v = chk.value * f
        values.append(float(v))
        best = v if best is None or v < best else best
    cert.leaf_values = values
    if best is None:
        return None, "every leaf is empty (the decisions of each contain a cycle)", {}
    return best, "", {"status": "certified", "leaves": len(values),
                      "leaves_repaired": repaired, "root_dual_fallbacks": fallbacks}
