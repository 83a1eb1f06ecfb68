"""Online Sincronia: doubling epochs, the MUWP admission LP, BSSI inside an epoch, greedy rates,
and prioritised work conservation for orphan coflows.

The framework (Sincronia Sec. 4.2, after Hall, Schulz, Shmoys and Wein's Greedy-Interval and the
"Select and Permute" framework of Khuller et al.):

* **Epochs.**  Time is cut into epochs of doubling length ``e, 2e, 4e, ..., 2^(R-1) e``
  (``e`` = ``epoch``, ``R`` = ``reset_after``), after which the *horizon resets* and the next
  epoch has length ``e`` again (Sec. 4.4: "the time horizon is reset after a maximum number of
  epochs", 8 in the evaluation).  The first horizon starts at the first release.
* **Admission (MUWP).**  At the start of an epoch of length ``L``, the candidates are the
  released, unfinished coflows.  The LP relaxation of the Minimum Unscheduled Weight Problem
  (:func:`muwp_lp`)::

      minimise   sum_i w_i (1 - x_i)
      subject to sum_i d_i^p x_i <= c_p * budget_fraction * L    for every port p
                 0 <= x_i <= 1

  with ``d_i^p`` coflow ``i``'s *remaining* data at port ``p``, is solved with HiGHS (the
  status is read back; anything but optimal raises :class:`~coflowopt.exceptions.SolverError`)
  and the coflows with ``x_i >= 1/2`` are selected (the 1/2-rounding of Garg, Kumar and
  Pandit's (2, 2) algorithm).
* **Order.**  The selected coflows are ordered by BSSI (:func:`coflowopt.orderings.bssi.bssi`)
  on their remaining demand; this order is kept for the whole epoch.
* **Orphans.**  Every other released, unfinished coflow -- not selected, or released during the
  epoch -- is an *orphan*, served after the selected ones for work conservation, in increasing
  ``OCT_c / (t + E_max - a_c)`` (:func:`orphan_metric`; ``OCT_c`` = the coflow's isolated
  completion time ``rho_c``, ``a_c`` its release, ``E_max`` the longest epoch ``2^(R-1) e``),
  ties by earlier release, then index.  As in the reference simulator, orphans are re-sorted
  when new orphans appear (releases) and at epoch starts, with the current ``t``.
* **Rates.**  Sincronia's greedy order-preserving allocation (Algorithm 2,
  :mod:`coflowopt.rates.greedy`) on the list *selected (BSSI order) + orphans*, recomputed at
  every release, flow completion and epoch start.

Resolved ambiguities
--------------------
* **LP budget.**  The reference code admits against *half* the epoch length
  (``onlinesim/main.cpp``: deadline ``2^j - tau_k``; ``scheduler.hpp``: ``2^(e-1)`` steps for an
  epoch of ``2^e``), so that after the 1/2-rounding (``x_i >= 1/2`` means ``1 <= 2 x_i``) the
  selected coflows' load at every port fits in the epoch: ``budget_fraction = 0.5`` is the
  default; ``budget_fraction = 1`` gives "capacity x epoch length".
* **Epoch lengths.**  ``e, 2e, ..., 2^(R-1) e`` ("each epoch 2x the previous", smallest = ``e``).
  The reference code's epochs are ``[0, 2), [2, 4), [4, 8), ...`` (two of the smallest size
  first); ``E_max`` is the longest epoch in both.
* **Candidates.**  All released, unfinished coflows at the epoch start (the paper's ``R_k``).
  The reference simulator only admits coflows released before half the elapsed time
  (``find_candidate_coflow_set(..., tau_k_at_reset + tau_k)``), the implementation before the
  midpoint of the horizon so far: both leave recent arrivals as orphans; here they compete in
  the LP.
* **OCT** is the coflow's ``rho`` on the original sizes (the code computes ``oracle_time`` once
  at load).
* **Units.**  ``epoch`` is in the instance's time unit; the default 12.8 is the paper's 100 ms in
  the Facebook trace's unit (7.8125 ms, 1 MB at 1 Gbit/s).

On resources (a topology)
-------------------------
The LP's rows are the resources (``d_i^p`` = coflow ``i``'s remaining data through resource
``p``, summed over the flows whose path uses it), BSSI orders the selected coflows over
resources (:func:`coflowopt.orderings.bssi.bssi`), OCT is ``rho`` over resources and the greedy
allocation gives each flow the smallest residual of its path
(:mod:`coflowopt.rates.greedy`).  The kernel engine's pairs are distinct paths
(:func:`_greedy_segment`); a big switch is the case of paths ``[i, m_in + j]``.

Engines
-------
``"python"``: :class:`SincroniaOnlinePolicy` in the generic simulator (the reference);
``"kernel"``: the same decisions, with the greedy allocation run incrementally between order
changes in a compiled loop (the Facebook trace has 706,397 flows and ~600k flow completions).
The tests check that both give the same completion times.

References
----------
S. Agarwal, S. Rajakrishnan, A. Narayan, R. Agarwal, D. Shmoys, A. Vahdat, "Sincronia:
Near-Optimal Network Design for Coflows", SIGCOMM 2018, Sec. 4.2 (online algorithm, MUWP),
Sec. 4.4 (orphan coflows; epoch parameters), Sec. 10 of the technical report; L. Hall, A.
Schulz, D. Shmoys, J. Wein, "Scheduling to Minimize Average Completion Time: Off-line and
On-line Approximation Algorithms", Math. Oper. Res. 22(3), 1997; S. Khuller, J. Li, P.
Sturmfels, K. Sun, P. Venkat, "Select and Permute", LATIN 2018.  Code: ``sincronia-coflow/
simulator`` ``onlinesim/main.cpp`` (``heuristic_comp``, epochs), ``onlinesim/onlinescheduler.cpp``
(``generate_online_admissible_set_coflows``: the LP and the 0.5 rounding);
``sincronia-coflow/implementation`` ``scheduler/scheduler.hpp`` (``OnlineScheduler``).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from ..exceptions import InvalidParameterError, SolverError
from ..instance import Instance
from ..limits import DYNAMIC_RANGE_MAX, SIZE_MIN
from ..orderings.bssi import TIE_BREAKS, bssi
from ..rates._greedy_kernel import _plist_index, _plist_insert, _plist_remove, _pos_remove
from ..rates._madd_kernel import _grow
from ..rates.greedy import GreedyPolicy, priority_flow_order
from ..registry import register
from ..schedule import Schedule
from ..simulate import (COMPLETION_RTOL, SimState, schedule_length_bounds, settle_sizes,
                        simulate)

from ..rates._jit import njit  # lazy numba, compile announced (see rates/_jit)

__all__ = ["sincronia_online", "SincroniaOnlinePolicy", "orphan_metric", "orphan_order",
           "muwp_lp", "MuwpSolution", "epoch_lengths", "DEFAULT_EPOCH"]

#: The paper's smallest epoch, 100 ms, in the Facebook trace's time unit (7.8125 ms).
DEFAULT_EPOCH = 100.0 / 7.8125


def epoch_lengths(epoch: float, reset_after: int) -> np.ndarray:
    """Lengths of the epochs of one horizon: ``epoch * 2^j`` for ``j = 0 .. reset_after - 1``.

    Examples
    --------
    >>> epoch_lengths(1.0, 4).tolist()
    [1.0, 2.0, 4.0, 8.0]
    """
    return float(epoch) * 2.0 ** np.arange(int(reset_after))


# ---------------------------------------------------------------------------------- orphans
def orphan_metric(oct_, arrival, t: float, max_epoch: float) -> np.ndarray:
    """Sincronia's work-conservation metric ``OCT_c / (t + E_max - a_c)`` (Sec. 4.4).

    Smaller first: small coflows and coflows that have waited long come first; the ``E_max``
    term keeps the denominator positive at arrival and damps the advantage of coflows that
    have just arrived.

    Parameters
    ----------
    oct_ : array_like
        Oracle completion times (isolated ``rho``).
    arrival : array_like
        Release times ``a_c <= t``.
    t : float
        Current time.
    max_epoch : float
        ``E_max``, the longest epoch.

    Returns
    -------
    ndarray

    Examples
    --------
    T-S1 of the seeds digest (t = 21, E_max = 4):

    >>> orphan_metric([1, 10, 25], [20, 20, 0], 21, 4).tolist()
    [0.2, 2.0, 1.0]
    """
    return np.asarray(oct_, dtype=float) / (float(t) + float(max_epoch)
                                            - np.asarray(arrival, dtype=float))


def orphan_order(coflows, oct_, arrival, t: float, max_epoch: float) -> np.ndarray:
    """``coflows`` sorted by :func:`orphan_metric` (increasing), ties by earlier arrival,
    then smaller index (``heuristic_comp`` of the reference simulator).

    Examples
    --------
    T-S1: the order is OCT 1, OCT 25, OCT 10.

    >>> orphan_order([0, 1, 2], [1, 10, 25], [20, 20, 0], 21, 4).tolist()
    [0, 2, 1]
    """
    c = np.asarray(coflows, dtype=np.int64)
    oct_ = np.asarray(oct_, dtype=float)
    arrival = np.asarray(arrival, dtype=float)
    m = orphan_metric(oct_, arrival, t, max_epoch)
    return c[np.lexsort((c, arrival, m))]


# ---------------------------------------------------------------------------------- MUWP LP
class MuwpSolution:
    """The MUWP LP's solution: ``x`` (one value per candidate), ``selected`` (``x >= 1/2``),
    ``objective`` (unscheduled weight ``sum w (1 - x)``) and the solver ``status``."""

    __slots__ = ("x", "selected", "objective", "status")

    def __init__(self, x, selected, objective, status):
        self.x, self.selected, self.objective, self.status = x, selected, objective, status

    def __repr__(self) -> str:
        return (f"MuwpSolution(objective={self.objective!r}, selected={self.selected.tolist()}, "
                f"status={self.status!r})")


def muwp_lp(loads, weights, budget) -> MuwpSolution:
    """Solve the LP relaxation of the Minimum Unscheduled Weight Problem and round at 1/2.

    ``min sum_i w_i (1 - x_i)  s.t.  sum_i loads[p, i] x_i <= budget[p]  (every port p),
    0 <= x <= 1``.

    Parameters
    ----------
    loads : array_like or scipy.sparse matrix, shape (P, n)
        Remaining data of candidate ``i`` at port ``p``.
    weights : array_like, shape (n,)
        ``w_i >= 0``.
    budget : array_like, shape (P,)
        Data each port can move in the budget (capacity x budget time).

    Returns
    -------
    MuwpSolution
        ``selected`` are the indices ``i`` with ``x_i >= 1/2`` (up to 1e-9).

    Raises
    ------
    SolverError
        If HiGHS does not report an optimal solution (the LP is always feasible: ``x = 0``).
    InvalidParameterError
        For inconsistent shapes or negative data.

    Examples
    --------
    One port with budget 4; A (load 2, weight 3), B (load 4, weight 2), C (load 2, weight 1).
    Best ratios first: A (3/2), C (1/2), B (1/2) -- A whole, then 2 units shared by B and C at
    the same ratio; HiGHS picks a vertex, and the rounding keeps what has ``x >= 1/2``:

    >>> sol = muwp_lp([[2, 4, 2]], [3, 2, 1], [4])
    >>> round(sol.objective, 9), 0 in sol.selected.tolist()
    (2.0, True)
    """
    from ..formulations.highs import solve_with_highs
    from ..formulations.linear_program import LinearProgram
    import scipy.sparse as sp  # lazily: ~0.1 s of import, paid only where a matrix is built

    A = sp.csr_matrix(loads, dtype=float)
    w = np.asarray(weights, dtype=float)
    b = np.asarray(budget, dtype=float)
    P, n = A.shape
    if w.shape != (n,) or b.shape != (P,):
        raise InvalidParameterError(f"muwp_lp: loads has shape {A.shape}, so weights needs "
                                    f"{n} entries and budget {P}; got {w.shape} and {b.shape}")
    if (A.data < 0).any() or (w < 0).any() or (b < 0).any() or not np.isfinite(b).all():
        raise InvalidParameterError("muwp_lp: loads, weights and budget must be >= 0 (budget "
                                    "finite)")
    if n == 0:
        return MuwpSolution(np.zeros(0), np.zeros(0, dtype=np.int64), 0.0, "optimal")
    lp = LinearProgram("muwp", c=-w, A=A, row_lo=np.full(P, -np.inf), row_hi=b,
                       col_lo=np.zeros(n), col_hi=np.ones(n), offset=float(w.sum()))
    sol = solve_with_highs(lp, algorithm="simplex")
    if sol.status != "optimal" or sol.x is None:
        raise SolverError(f"MUWP LP: HiGHS returned status {sol.status!r} ({sol.raw_status}); "
                          "an optimal solution is required to round it")
    x = np.clip(sol.x, 0.0, 1.0)
    return MuwpSolution(x, np.flatnonzero(x >= 0.5 - 1e-9), float(sol.objective), sol.status)


# ---------------------------------------------------------------------------------- policy
class SincroniaOnlinePolicy:
    """Online Sincronia as a :class:`~coflowopt.simulate.RatePolicy` (module docstring).

    Parameters
    ----------
    epoch : float > 0
        Smallest epoch length (instance time unit).
    reset_after : int >= 1
        Epochs per horizon.
    budget_fraction : float > 0
        The LP budget as a fraction of the epoch length.
    tie_break : {"paper", "first"}
        BSSI's tie-breaking rule.

    Attributes
    ----------
    epochs : list of dict
        One entry per epoch that had candidates: ``start``, ``length``, ``candidates``,
        ``selected`` (in BSSI order), ``objective`` of the LP.
    """

    name = "sincronia-online"
    reschedule_on = frozenset({"release", "flow_completion", "timer"})

    def __init__(self, epoch: float = DEFAULT_EPOCH, reset_after: int = 8,
                 budget_fraction: float = 0.5, tie_break: str = "paper"):
        self.epoch, self.reset_after, self.budget_fraction, self.tie_break = _check_params(
            epoch, reset_after, budget_fraction, tie_break)
        self.max_epoch = self.epoch * 2.0 ** (self.reset_after - 1)

    def reset(self, instance: Instance) -> None:
        self.inst = instance
        self._greedy = GreedyPolicy(np.zeros(0, dtype=np.int64))
        self._greedy.reset(instance)
        self._oct = instance.rho
        self.clock = EpochClock(self.epoch, self.reset_after)
        self._selected = np.zeros(0, dtype=np.int64)
        self._is_selected = np.zeros(instance.num_coflows, dtype=bool)
        self._orphans = np.zeros(0, dtype=np.int64)
        self._seen = np.zeros(instance.num_coflows, dtype=bool)
        self.epochs: list[dict] = []

    def priority(self, state: SimState) -> np.ndarray:
        """The current priority list: unfinished selected coflows (BSSI order), then orphans."""
        t = state.time
        new_epoch = self.clock.advance(t)
        newly = state.released & ~self._seen
        self._seen |= state.released
        act = state.active_coflows
        return self.decide(t, new_epoch, bool(newly.any()), state.active_coflows,
                           state.remaining, state.finished)

    def decide(self, t: float, new_epoch: bool, new_release: bool, active: np.ndarray,
               remaining: np.ndarray, finished: np.ndarray) -> np.ndarray:
        """The decisions both engines share: a new epoch's LP and BSSI order, the orphans'
        order (re-sorted at epoch starts and releases), and the resulting priority list."""
        if new_epoch:
            sel, info = select_epoch(self.inst, remaining, active,
                                     self.budget_fraction * self.clock.length, self.tie_break)
            if active.size:
                self.epochs.append({"start": t, "length": self.clock.length, **info})
            self._selected = sel
            self._is_selected[:] = False
            self._is_selected[sel] = True
        if new_epoch or new_release:
            orph = active[~self._is_selected[active]]
            self._orphans = orphan_order(orph, self._oct[orph], self.inst.release[orph], t,
                                         self.max_epoch)
        order = np.concatenate([self._selected, self._orphans])
        return order[~finished[order]]

    def allocate(self, state: SimState):
        self._greedy.order = self.priority(state)
        return self._greedy.allocate(state)

    def next_timer(self, state: SimState) -> float:
        return self.clock.end


class EpochClock:
    """Doubling epochs with horizon resets: lengths ``e 2^j``, ``j = 0 .. R-1``, repeated.

    The first epoch starts at the first :meth:`advance` call; later boundaries are computed by
    adding lengths, the same float operations in both engines.
    """

    def __init__(self, epoch: float, reset_after: int):
        self.e, self.R = float(epoch), int(reset_after)
        self.j = 0
        self.start = None
        self.end = math.inf

    @property
    def length(self) -> float:
        return self.e * 2.0 ** self.j

    def advance(self, t: float) -> bool:
        """Move to the epoch containing ``t``; True when a new epoch started."""
        if self.start is None:
            self.start, self.j = t, 0
            self.end = t + self.length
            return True
        if t < self.end:
            return False
        while t >= self.end:
            self.start = self.end
            self.j = (self.j + 1) % self.R
            self.end = self.start + self.length
        return True


def select_epoch(instance: Instance, remaining: np.ndarray, active: np.ndarray,
                 budget_time: float, tie_break: str):
    """The epoch-start decision: MUWP LP over the ``active`` coflows with their remaining
    data, 1/2-rounding, BSSI order of the selected ones.  Returns ``(selected in BSSI order,
    info dict)``."""
    import scipy.sparse as sp  # lazily (see muwp_lp)
    info = {"candidates": active.tolist(), "selected": [], "objective": 0.0}
    if active.size == 0:
        return np.zeros(0, dtype=np.int64), info
    fl = priority_flow_order(instance, active)
    col = np.repeat(np.arange(active.size), np.diff(instance.flow_ptr)[active])
    rem = remaining[fl]
    live = rem > 0
    fl, col, rem = fl[live], col[live], rem[live]
    P = instance.num_ports
    if instance.is_big_switch:
        loads = sp.csr_matrix((np.concatenate([rem, rem]),
                               (np.concatenate([instance.flow_src[fl],
                                                instance.flow_egress_port[fl]]),
                                np.concatenate([col, col]))), shape=(P, active.size))
    else:
        # d_i^p over resources: a flow loads every resource of its path
        rows, length = _path_entries(instance, fl)
        loads = sp.csr_matrix((np.repeat(rem, length), (rows, np.repeat(col, length))),
                              shape=(P, active.size))
    sol = muwp_lp(loads, instance.weight[active], instance.capacity * budget_time)
    sel = active[sol.selected]
    info["objective"] = sol.objective
    if sel.size == 0:
        return sel, info
    # BSSI on the selected coflows' remaining demand (all released: Algorithm 1)
    keep = np.isin(col, sol.selected)
    fl_s, col_s = fl[keep], col[keep]
    size_s = _order_sizes(remaining[fl_s], instance.flow_bottleneck_capacity[fl_s])
    if instance.is_big_switch:
        sub = Instance.from_arrays(
            ingress_capacity=instance.ingress_capacity,
            egress_capacity=instance.egress_capacity,
            coflow_ids=[str(k) for k in sel.tolist()],
            flow_coflow=np.searchsorted(sol.selected, col_s), flow_src=instance.flow_src[fl_s],
            flow_dst=instance.flow_dst[fl_s], flow_size=size_s,
            weight=instance.weight[sel])
    else:
        res_s, length = _path_entries(instance, fl_s)
        ptr = np.zeros(fl_s.size + 1, dtype=np.int64)
        np.cumsum(length, out=ptr[1:])
        sub = Instance.from_paths(
            resource_capacity=instance.capacity, coflow_ids=[str(k) for k in sel.tolist()],
            flow_coflow=np.searchsorted(sol.selected, col_s), flow_src=instance.flow_src[fl_s],
            flow_dst=instance.flow_dst[fl_s], flow_size=size_s, path_ptr=ptr,
            path_resource=res_s, host_ids=instance.host_ids,
            resource_ids=instance.resource_ids, weight=instance.weight[sel])
    order = sel[bssi(sub, tie_break=tie_break, release="ignore")]
    info["selected"] = order.tolist()
    return order, info


def _order_sizes(rem: np.ndarray, flow_cap: np.ndarray) -> np.ndarray:
    """The sizes of the instance BSSI orders at an epoch start: the remaining sizes, except
    that a residue too small for an :class:`~coflowopt.instance.Instance` is raised.

    Why: in a long run a flow can be left with ~1e-10 of data (a few ulps from done, above the
    simulator's completion tolerance), and an instance refuses a size below
    :data:`~coflowopt.limits.SIZE_MIN` or a processing time below its span /
    :data:`~coflowopt.limits.DYNAMIC_RANGE_MAX` (50,000 random coflows failed this way).  A
    processing time below ``2 span / DYNAMIC_RANGE_MAX`` is raised to it (a change of at most
    2e-12 of the epoch's remaining span per raised flow, far below BSSI's tie tolerance
    :data:`~coflowopt.orderings.bssi.TIE_RTOL` = 1e-9), and when the smallest size is still
    below ``SIZE_MIN`` every size is multiplied by one power of two, which changes no bit of
    BSSI's comparisons (ratios of loads of one instance; every product and quotient scales
    exactly).  The flows' own remaining data is not touched: only the ordering sees this.
    Sizes that need neither are returned as they are.

    >>> _order_sizes(np.array([2.5e-10, 4.0]), np.ones(2)).tolist()
    [1e-09, 16.0]
    >>> _order_sizes(np.array([1e-9, 1e6]), np.ones(2)).tolist()
    [2.000000000000002e-06, 1000000.0]
    """
    if rem.size == 0:
        return rem
    span = float(np.sum(rem / flow_cap))
    floor = 2.0 * span / DYNAMIC_RANGE_MAX * flow_cap
    size = np.maximum(rem, floor) if np.any(rem < floor) else rem
    m = float(size.min())
    if m >= SIZE_MIN:
        return size
    f = 2.0 ** math.ceil(math.log2(SIZE_MIN / m))
    while m * f < SIZE_MIN:   # log2 rounded down by an ulp
        f *= 2.0
    return size * f


def _path_entries(instance: Instance, flows: np.ndarray):
    """The resources of the paths of ``flows``, concatenated in that order, and each path's
    length."""
    rptr = instance.flow_resource_ptr
    length = rptr[flows + 1] - rptr[flows]
    first = np.cumsum(length) - length
    entry = np.repeat(rptr[flows] - first, length) + np.arange(int(length.sum()))
    return instance.flow_resource[entry], length


def _check_params(epoch, reset_after, budget_fraction, tie_break):
    try:
        e = float(epoch)
        b = float(budget_fraction)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"epoch and budget_fraction must be numbers, got "
                                    f"{epoch!r} and {budget_fraction!r}") from None
    if not math.isfinite(e) or e <= 0:
        raise InvalidParameterError(f"epoch must be finite and > 0, got {epoch!r}")
    if not math.isfinite(b) or b <= 0:
        raise InvalidParameterError(f"budget_fraction must be finite and > 0, got "
                                    f"{budget_fraction!r}")
    if isinstance(reset_after, bool) or not isinstance(reset_after, (int, np.integer)) \
            or not 1 <= reset_after <= 60:
        raise InvalidParameterError(f"reset_after must be an integer in 1..60, got "
                                    f"{reset_after!r}")
    if tie_break not in TIE_BREAKS:
        raise InvalidParameterError(f"tie_break must be one of {TIE_BREAKS}, got "
                                    f"{tie_break!r}")
    return e, int(reset_after), b, tie_break


ENGINES = ("auto", "kernel", "python")


@register("policy", "sincronia-online", summary="online Sincronia: doubling epochs with "
          "horizon resets; at each epoch start the MUWP LP (1/2-rounded) selects coflows, "
          "ordered by BSSI; orphans by OCT/(t + E_max - arrival); greedy order-preserving rates",
          reference="Sincronia (SIGCOMM 2018) Sec. 4.2, 4.4; tech. report Sec. 10; "
          "sincronia-coflow/simulator onlinesim/main.cpp, onlinescheduler.cpp; "
          "sincronia-coflow/implementation scheduler/scheduler.hpp",
          guarantee="none for this practical variant (the framework with fixed doubling "
          "epochs, no resets and a (2,2) MUWP algorithm is 12-competitive, Sec. 4.2)",
          tags=("online", "release_dates", "weights", "needs_solver", "preemptive",
                "work_conserving", "heterogeneous_capacities"))
def sincronia_online(instance: Instance, *, epoch: float = DEFAULT_EPOCH, reset_after: int = 8,
                     budget_fraction: float = 0.5, tie_break: str = "paper",
                     engine: str = "auto") -> Schedule:
    """Online Sincronia (Sec. 4.2 and 4.4): epochs, MUWP admission, BSSI, orphans, greedy.

    Parameters
    ----------
    instance : Instance
    epoch : float > 0, default 12.8
        Smallest epoch (the paper's 100 ms in the FB trace's 7.8125 ms unit).
    reset_after : int in 1..60, default 8
        Epochs per horizon (the paper's default 8).
    budget_fraction : float > 0, default 0.5
        LP budget per port: ``capacity x budget_fraction x epoch length`` (module docstring).
    tie_break : {"paper", "first"}, default "paper"
        BSSI's tie-breaking.
    engine : {"auto", "kernel", "python"}
        ``python``: :class:`SincroniaOnlinePolicy` in the generic simulator; ``kernel``: the
        compiled incremental greedy between order changes (same decisions; over paths on an
        instance on resources); ``auto`` = kernel.

    Returns
    -------
    Schedule
        ``meta`` records the parameters, the engine and ``epochs`` (per epoch with candidates:
        start, length, candidates, selected coflows in BSSI order, LP objective).

    Raises
    ------
    InvalidParameterError
        For a parameter out of range, or an ``epoch`` that would cut this instance's schedule
        into more than :data:`MAX_EPOCHS` epochs (an absolute time far below its time scale).
    SolverError
        If an MUWP LP is not solved to optimality.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> from coflowopt.verify import verify_schedule
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 4)]),
    ...                               Coflow("B", [(0, 0, 1)], release=1)])
    >>> s = sincronia_online(inst, epoch=1, reset_after=3, engine="python")
    >>> verify_schedule(inst, s).coflow_completion.tolist()
    [5.0, 2.0]

    At t = 0 the epoch [0, 1) (budget 1/2) admits nothing (A needs 4: x = 1/8); A is served
    as an orphan.  At t = 1 the epoch [1, 3) (budget 1) admits B (load 1, x = 1) but not A
    (load 3 left, x = 0: B fills the budget at the better ratio), so B goes first.

    Notes
    -----
    *Guarantee.*  None proved for this variant (resets, half-epoch budget, orphans); the
    framework it follows is 12-competitive (Sec. 4.2).

    *Running time.*  One LP and one BSSI per epoch with candidates; greedy rates at every
    event (incremental in the kernel engine).

    References
    ----------
    Sincronia (SIGCOMM 2018) Sec. 4.2, 4.4 and tech. report Sec. 10; reference code in the
    module docstring.
    """
    pol = SincroniaOnlinePolicy(epoch=epoch, reset_after=reset_after,
                                budget_fraction=budget_fraction, tie_break=tie_break)
    if engine not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {ENGINES}, got {engine!r}")
    _check_epoch_count(instance, pol)
    meta = {"algorithm": "sincronia-online", "epoch": pol.epoch, "reset_after": pol.reset_after,
            "budget_fraction": pol.budget_fraction, "tie_break": pol.tie_break}
    if engine == "python":
        res = simulate(instance, pol)
        s = res.schedule
        return Schedule(s.flow, s.start, s.end, s.rate,
                        meta={**meta, "engine": "python", "events": res.events,
                              "epochs": pol.epochs})
    sched, cc, events = _run_kernel(instance, pol)
    return Schedule(sched.flow, sched.start, sched.end, sched.rate,
                    meta={**meta, "engine": "kernel", "events": events, "epochs": pol.epochs})


# ---------------------------------------------------------------------------------- kernel
# The kernel engine: Python takes the decisions (epochs, LP, BSSI, orphans: the same code as
# the policy), and between two order changes (releases, epoch starts) a compiled loop runs the
# greedy allocation incrementally.
#
# Pair heads: greedy gives the first flow (in priority order) of an (ingress, egress) pair
# min(residual in, residual out), which fills one of the two ports, so the pair's later flows
# get nothing: only each pair's *head* matters.  A pair's flows are stored in blocks, one per
# coflow, in listed order; the head is the first unfinished flow of the block whose coflow has
# the best rank.  The greedy over heads in key order (rank * F + flow index) changes after an
# event only at pairs whose ports' residual before them changed: they are re-evaluated in key
# order from a heap (a pair's residual is its port's capacity minus the allocations of the
# pairs before it in the port's key-sorted list).  At an order change everything is rebuilt.
_INF_KEY = np.iinfo(np.int64).max


@njit(cache=True)
def _pair_head(e, pair_blk_ptr, blk_hi, blk_coflow, bcur, pf, rank, F):
    best_b = -1
    best = _INF_KEY
    for b in range(pair_blk_ptr[e], pair_blk_ptr[e + 1]):
        if bcur[b] < blk_hi[b]:
            r = rank[blk_coflow[b]]
            if r >= 0:
                key = r * F + pf[bcur[b]]
                if key < best:
                    best = key
                    best_b = b
    return best_b, best


@njit(cache=True)
def _residual_before(p, key, port_start, poslen, pos_key, pos_pair, alloc, cap):
    """Port ``p``'s capacity minus the allocations of the pairs before ``key`` on it (only
    pairs with a positive allocation count, and a port has few: one with uniform
    capacities)."""
    used = 0.0
    for x in range(port_start[p], port_start[p] + poslen[p]):
        if pos_key[x] < key:
            used += alloc[pos_pair[x]]
    return cap[p] - used


@njit(cache=True)
def _emit(out_f, out_s, out_e, out_r, n, f, start, end, rate):
    """Record a piece; a piece of zero length (a rate set and changed at one instant) carries
    no data and is dropped."""
    if end > start:
        out_f[n] = f
        out_s[n] = start
        out_e[n] = end
        out_r[n] = rate
        n += 1
    return n


@njit(cache=True)
def _push_next(heap, pkey, ppair, port_start, plen, p, key):
    """Push the first pair after ``key`` on port ``p`` (the scan along a dirty port)."""
    s = port_start[p]
    y = _plist_index(pkey, s, plen[p], key + 1)
    if y < s + plen[p]:
        heapq.heappush(heap, (pkey[y], np.int64(1), ppair[y]))


# ---- a "pair" is a distinct path (a set of resources in path order, CSR ``pair_rptr`` /
# ``pair_rres``): on a big switch the (ingress, egress) pair, written as the path
# [i, m_in + j].  Greedy gives the first flow of a path min over its resources of the residual,
# which fills one of them, so the path's later flows get nothing: only each path's head matters.
# One kernel for both (the big switch had its own copy with the two ports unrolled, the same
# operations in the same order; folded 2026-11-29 with its before/after timings in the commit).


@njit(cache=True)
def _set_alloc(e, a, key, pair_rptr, pair_rres, alloc, alist, apos, nal, port_start, poslen,
               pos_key, pos_pair):
    """alloc[e] = a, keeping ``alist[:nal]`` (the pairs with a positive allocation) and the
    per-resource lists of positive pairs (over the resources of path ``e``) in step.  Returns
    the new ``nal``."""
    if a > 0.0 and apos[e] < 0:
        apos[e] = nal
        alist[nal] = e
        nal += 1
        for z in range(pair_rptr[e], pair_rptr[e + 1]):
            p = pair_rres[z]
            x = port_start[p] + poslen[p]
            pos_key[x] = key
            pos_pair[x] = e
            poslen[p] += 1
    elif a <= 0.0 and apos[e] >= 0:
        x = apos[e]
        nal -= 1
        last = alist[nal]
        alist[x] = last
        apos[last] = x
        apos[e] = -1
        for z in range(pair_rptr[e], pair_rptr[e + 1]):
            _pos_remove(pos_key, pos_pair, port_start, poslen, pair_rres[z], e)
    alloc[e] = a if a > 0.0 else 0.0
    return nal


@njit(cache=True)
def _greedy_segment(t, t_stop, rank, F, pf, pair_rptr, pair_rres, pair_blk_ptr, blk_hi,
                    blk_coflow, bcur, port_start, plen, pkey, ppair, poslen, pos_key, pos_pair,
                    head_b, head_key, alloc, pstart, alist, apos, nal_box, rem, size,
                    flow_coflow, coflow_left, cc, cap, tol, rtol, stamp, extra, out_f, out_s,
                    out_e, out_r, n_out):
    """Greedy rates with the fixed ``rank`` from ``t`` until ``t_stop`` or until nothing is
    allocated, over the pairs' paths (module comment above).  Returns ``(t, out arrays, n_out,
    events)``."""
    E = pair_rptr.shape[0] - 1
    P = cap.shape[0]
    nal = nal_box[0]
    out_f, out_s, out_e, out_r = _grow(out_f, out_s, out_e, out_r, n_out, E + 1)
    # ---- rebuild: heads, key-sorted resource lists and the greedy from scratch
    new_b = np.full(E, -1, np.int64)
    new_key = np.full(E, _INF_KEY, np.int64)
    nh = 0
    for e in range(E):
        b, key = _pair_head(e, pair_blk_ptr, blk_hi, blk_coflow, bcur, pf, rank, F)
        new_b[e] = b
        new_key[e] = key
        if b >= 0:
            nh += 1
    heads = np.empty(nh, np.int64)
    keys = np.empty(nh, np.int64)
    x = 0
    for e in range(E):
        if new_b[e] >= 0:
            heads[x] = e
            keys[x] = new_key[e]
            x += 1
    heads = heads[np.argsort(keys)]
    for p in range(P):
        plen[p] = 0
    res = cap.copy()
    new_alloc = np.zeros(E)
    for x in range(nh):
        e = heads[x]
        a = np.inf
        mt = np.inf
        for z in range(pair_rptr[e], pair_rptr[e + 1]):
            p = pair_rres[z]
            pkey[port_start[p] + plen[p]] = new_key[e]
            ppair[port_start[p] + plen[p]] = e
            plen[p] += 1
            if res[p] < a:
                a = res[p]
            if tol[p] < mt:
                mt = tol[p]
        if a > mt:  # tol is per resource
            new_alloc[e] = a
            for z in range(pair_rptr[e], pair_rptr[e + 1]):
                res[pair_rres[z]] -= a
    for e in range(E):
        old_f = pf[bcur[head_b[e]]] if head_b[e] >= 0 else -1
        new_f = pf[bcur[new_b[e]]] if new_b[e] >= 0 else -1
        same = old_f == new_f and alloc[e] == new_alloc[e]
        if not same and alloc[e] > 0.0:
            n_out = _emit(out_f, out_s, out_e, out_r, n_out, old_f, pstart[e], t, alloc[e])
        nal = _set_alloc(e, 0.0, head_key[e], pair_rptr, pair_rres, alloc, alist, apos,
                               nal, port_start, poslen, pos_key, pos_pair)
        head_b[e] = new_b[e]
        head_key[e] = new_key[e]
        if not same:
            pstart[e] = t
    for e in range(E):
        if new_alloc[e] > 0.0:
            nal = _set_alloc(e, new_alloc[e], head_key[e], pair_rptr, pair_rres, alloc,
                                   alist, apos, nal, port_start, poslen, pos_key, pos_pair)
    # ---- events until t_stop
    events = 0
    fin_e = np.empty(P, np.int64)
    fin_t = np.empty(P)
    old_alloc = np.zeros(P)
    dirty = np.zeros(P, np.bool_)
    touched = np.empty(P, np.int64)
    heap = [(np.int64(0), np.int64(0), np.int64(0))]
    heap.pop()
    while nal > 0:
        tn = t_stop
        for x in range(nal):
            e = alist[x]
            f = pf[bcur[head_b[e]]]
            fin = t + rem[f] / alloc[e]
            if fin < tn:
                tn = fin
        nfin = 0
        for x in range(nal):
            e = alist[x]
            f = pf[bcur[head_b[e]]]
            fin = t + rem[f] / alloc[e]
            rem[f] -= alloc[e] * ((fin if fin < tn else tn) - t)
            if fin <= tn or rem[f] <= rtol * size[f]:
                fin_e[nfin] = e
                fin_t[nfin] = fin if fin <= tn else tn
                nfin += 1
        t = tn
        if nfin == 0:
            break                       # reached t_stop
        events += 1
        out_f, out_s, out_e, out_r = _grow(out_f, out_s, out_e, out_r, n_out, E + P + 1)
        stamp[0] += 1
        mark = stamp[0]
        # 1. finished heads leave and their paths take the next head
        for x in range(nfin):
            e = fin_e[x]
            b = head_b[e]
            f = pf[bcur[b]]
            n_out = _emit(out_f, out_s, out_e, out_r, n_out, f, pstart[e], fin_t[x], alloc[e])
            rem[f] = 0.0
            c = flow_coflow[f]
            coflow_left[c] -= 1
            if fin_t[x] > cc[c] or cc[c] != cc[c]:
                cc[c] = fin_t[x]
            old_key = head_key[e]
            old_alloc[x] = alloc[e]
            heapq.heappush(heap, (old_key, np.int64(0), np.int64(x)))
            nal = _set_alloc(e, 0.0, old_key, pair_rptr, pair_rres, alloc, alist, apos,
                                   nal, port_start, poslen, pos_key, pos_pair)
            bcur[b] += 1
            if bcur[b] < blk_hi[b]:
                nb = b
                nkey = old_key - f + pf[bcur[b]]
            else:
                nb, nkey = _pair_head(e, pair_blk_ptr, blk_hi, blk_coflow, bcur, pf, rank, F)
            for z in range(pair_rptr[e], pair_rptr[e + 1]):
                _plist_remove(pkey, ppair, port_start, plen, pair_rres[z], old_key)
            head_b[e] = nb
            head_key[e] = nkey
            pstart[e] = t
            if nb >= 0:
                for z in range(pair_rptr[e], pair_rptr[e + 1]):
                    _plist_insert(pkey, ppair, port_start, plen, pair_rres[z], nkey, e)
                heapq.heappush(heap, (nkey, np.int64(1), e))
        # 2. the greedy again, in key order, only where a resource's residual at the scan
        #    position differs from before the event
        nt = 0
        while len(heap) > 0:
            key, kind, e = heapq.heappop(heap)
            if kind == 0:
                a = old_alloc[e]
                ef = fin_e[e]
                for z in range(pair_rptr[ef], pair_rptr[ef + 1]):
                    p = pair_rres[z]
                    if not dirty[p]:
                        dirty[p] = True
                        extra[p] = 0.0
                        touched[nt] = p
                        nt += 1
                    extra[p] += a
                    _push_next(heap, pkey, ppair, port_start, plen, p, key)
                continue
            if head_key[e] != key or stamp[1 + e] == mark:
                continue
            stamp[1 + e] = mark
            a = np.inf
            mt = np.inf
            for z in range(pair_rptr[e], pair_rptr[e + 1]):
                p = pair_rres[z]
                r = _residual_before(p, key, port_start, poslen, pos_key, pos_pair, alloc, cap)
                if r < a:
                    a = r
                if tol[p] < mt:
                    mt = tol[p]
            if a <= mt:  # tol is per resource
                a = 0.0
            if a != alloc[e]:
                if alloc[e] > 0.0:
                    n_out = _emit(out_f, out_s, out_e, out_r, n_out, pf[bcur[head_b[e]]],
                                  pstart[e], t, alloc[e])
                pstart[e] = t
                for z in range(pair_rptr[e], pair_rptr[e + 1]):
                    p = pair_rres[z]
                    if not dirty[p]:
                        dirty[p] = True
                        extra[p] = 0.0
                        touched[nt] = p
                        nt += 1
                    extra[p] -= a - alloc[e]
                nal = _set_alloc(e, a, key, pair_rptr, pair_rres, alloc, alist, apos, nal,
                                       port_start, poslen, pos_key, pos_pair)
            for z in range(pair_rptr[e], pair_rptr[e + 1]):
                p = pair_rres[z]
                if dirty[p] and abs(extra[p]) > tol[p]:
                    _push_next(heap, pkey, ppair, port_start, plen, p, key)
        for x in range(nt):
            dirty[touched[x]] = False
    nal_box[0] = nal
    return t, out_f, out_s, out_e, out_r, n_out, events


#: Refuse an ``epoch`` that would cut the schedule into more epochs than this (each may solve
#: an LP; about 1 ms each): the FB trace with the default epoch has at least 1,300.
MAX_EPOCHS = 20_000


def _check_epoch_count(instance: Instance, pol: "SincroniaOnlinePolicy") -> None:
    """``epoch`` is an absolute time (the paper's 100 ms): on an instance whose time scale is
    many orders larger (every size x 1e9, or capacities / 1e9) the schedule would take billions
    of epochs, each an event and possibly an LP, and never finish.  A lower bound on the
    schedule's length -- the latest ``r_k + rho_k`` and the busiest port's load -- counts the
    epochs that certainly occur; beyond :data:`MAX_EPOCHS` the parameter is refused with the
    value that would fit, rather than run for ever."""
    length, _ = schedule_length_bounds(instance)
    cycle = float(np.sum(epoch_lengths(pol.epoch, pol.reset_after)))
    n = pol.reset_after * length / cycle
    if n > MAX_EPOCHS:
        raise InvalidParameterError(
            f"epoch {pol.epoch:g} is too short for this instance: its schedule lasts at least "
            f"{length:.3g} time units, more than {n:.3g} epochs (limit {MAX_EPOCHS}); give an "
            f"epoch (--policy-param epoch=X) in the instance's time unit of at least "
            f"{pol.epoch * n / MAX_EPOCHS:.3g} (the default is the paper's 100 ms in the FB "
            "trace's 7.8125 ms unit)")


def _pair_blocks(instance: Instance, pair_of: np.ndarray, E: int):
    """The flows in pair order (``pf``: by pair, then listed order) cut into blocks, one per
    coflow and pair, and each pair's blocks (CSR ``pair_blk_ptr``)."""
    F = instance.num_flows
    pf = np.lexsort((np.arange(F), pair_of)).astype(np.int64)
    pp = pair_of[pf]
    cf = instance.flow_coflow[pf]
    new = np.ones(F, dtype=bool)
    new[1:] = (pp[1:] != pp[:-1]) | (cf[1:] != cf[:-1])
    blk_lo = np.flatnonzero(new).astype(np.int64)
    blk_hi = np.append(blk_lo[1:], F).astype(np.int64)
    blk_coflow = cf[blk_lo].astype(np.int64)
    pair_blk_ptr = np.zeros(E + 1, dtype=np.int64)
    np.cumsum(np.bincount(pp[blk_lo], minlength=E), out=pair_blk_ptr[1:])
    return pf, pair_blk_ptr, blk_lo, blk_hi, blk_coflow


def _kernel_structures(instance: Instance):
    """Static arrays of the kernel on a big switch: pairs (as paths ``[i, m_in + j]``, CSR
    ``pair_rptr`` / ``pair_rres``, in the order of ``(i, j)``: what
    :func:`_kernel_structures_paths` gives, without its row sort), blocks (one per coflow and
    pair, listed order) and port lists."""
    m_in, m_out = instance.num_ingress, instance.num_egress
    key = instance.flow_src.astype(np.int64) * m_out + instance.flow_dst.astype(np.int64)
    uniq, pair_of = np.unique(key, return_inverse=True)
    E = uniq.size
    pair_rptr = np.arange(0, 2 * E + 1, 2, dtype=np.int64)
    pair_rres = np.column_stack((uniq // m_out, uniq % m_out + m_in)).astype(np.int64).ravel()
    pf, pair_blk_ptr, blk_lo, blk_hi, blk_coflow = _pair_blocks(instance, pair_of, E)
    port_start = np.zeros(m_in + m_out + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_rres, minlength=m_in + m_out), out=port_start[1:])
    return pf, pair_rptr, pair_rres, pair_blk_ptr, blk_lo, blk_hi, blk_coflow, port_start


def _kernel_structures_paths(instance: Instance):
    """:func:`_kernel_structures` on resources: the pairs are the distinct paths, in
    lexicographic order of their resources (the order of (ingress, egress) on a big switch
    written as paths), given as the CSR ``pair_rptr``/``pair_rres``; ``port_start`` indexes
    one list per resource."""
    F = instance.num_flows
    rptr = np.asarray(instance.flow_resource_ptr, dtype=np.int64)
    rres = np.asarray(instance.flow_resource, dtype=np.int64)
    length = np.diff(rptr)
    L = int(length.max()) if F else 1
    padded = np.full((F, L), -1, dtype=np.int64)
    padded[np.repeat(np.arange(F), length), np.arange(rres.size) - np.repeat(rptr[:-1], length)] \
        = rres
    uniq, first, pair_of = np.unique(padded, axis=0, return_index=True, return_inverse=True)
    pair_of = pair_of.ravel()
    E = uniq.shape[0]
    glen = length[first]
    pair_rptr = np.zeros(E + 1, dtype=np.int64)
    np.cumsum(glen, out=pair_rptr[1:])
    entry = np.repeat(rptr[first] - pair_rptr[:-1], glen) + np.arange(int(pair_rptr[-1]))
    pair_rres = rres[entry].copy()
    pf, pair_blk_ptr, blk_lo, blk_hi, blk_coflow = _pair_blocks(instance, pair_of, E)
    R = instance.num_resources
    port_start = np.zeros(R + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_rres, minlength=R), out=port_start[1:])
    return pf, pair_rptr, pair_rres, pair_blk_ptr, blk_lo, blk_hi, blk_coflow, port_start


def _run_kernel(instance: Instance, pol: SincroniaOnlinePolicy):
    """The kernel engine's driver (module docstring).  Returns ``(schedule, coflow
    completion, events)``."""
    K, F = instance.num_coflows, instance.num_flows
    pol.reset(instance)
    structures = _kernel_structures if instance.is_big_switch else _kernel_structures_paths
    (pf, pair_rptr, pair_rres, pair_blk_ptr, blk_lo, blk_hi, blk_coflow,
     port_start) = structures(instance)
    E = pair_rptr.size - 1
    P = instance.num_ports
    bcur = blk_lo.copy()
    plen = np.zeros(P, dtype=np.int64)
    pkey = np.zeros(port_start[-1], dtype=np.int64)
    ppair = np.zeros(port_start[-1], dtype=np.int64)
    poslen = np.zeros(P, dtype=np.int64)
    pos_key = np.zeros(port_start[-1], dtype=np.int64)
    pos_pair = np.zeros(port_start[-1], dtype=np.int64)
    extra = np.zeros(P)
    head_b = np.full(E, -1, dtype=np.int64)
    head_key = np.full(E, _INF_KEY, dtype=np.int64)
    alloc = np.zeros(E)
    pstart = np.zeros(E)
    alist = np.zeros(E, dtype=np.int64)
    apos = np.full(E, -1, dtype=np.int64)
    nal_box = np.zeros(1, dtype=np.int64)
    stamp = np.zeros(E + 1, dtype=np.int64)
    size = instance.flow_size.astype(float)
    rem = size.copy()
    flow_coflow = instance.flow_coflow.astype(np.int64)
    coflow_left = np.diff(instance.flow_ptr).astype(np.int64)
    cc = np.full(K, np.nan)
    cap = instance.capacity.astype(float)
    tol = 1e-12 * cap  # per port: relative to the capacity it guards
    n0 = max(16, 2 * F)
    out = (np.empty(n0, np.int64), np.empty(n0), np.empty(n0), np.empty(n0))
    n_out = 0
    rank = np.full(K, -1, dtype=np.int64)
    released = np.zeros(K, dtype=bool)
    rel_order = np.argsort(instance.release, kind="stable")
    rel_times = instance.release[rel_order]
    ri = 0
    t = float(rel_times[0])
    events = 0
    clock = pol.clock
    while True:
        newly = False
        while ri < K and rel_times[ri] <= t:
            released[rel_order[ri]] = True
            ri += 1
            newly = True
        finished = coflow_left == 0
        if finished.all():
            break
        new_epoch = clock.advance(t)
        active = np.flatnonzero(released & ~finished)
        order = pol.decide(t, new_epoch, newly, active, rem, finished)
        rank[:] = -1
        rank[order] = np.arange(order.size)
        t_rel = float(rel_times[ri]) if ri < K else math.inf
        t_stop = min(t_rel, clock.end)
        t, *out, n_out, ev = _greedy_segment(
            t, t_stop, rank, F, pf, pair_rptr, pair_rres, pair_blk_ptr, blk_hi, blk_coflow,
            bcur, port_start, plen, pkey, ppair, poslen, pos_key, pos_pair, head_b, head_key,
            alloc, pstart, alist, apos, nal_box, rem, size, flow_coflow, coflow_left, cc, cap,
            tol, COMPLETION_RTOL, stamp, extra, *out, n_out)
        events += ev + 1
        if t < t_stop:
            # nothing is allocated: every released coflow has finished; jump to the next event
            if (coflow_left[released] > 0).any():  # pragma: no cover - greedy cannot stall
                raise SolverError(f"sincronia-online kernel stalled at time {t}")
            t = t_stop
    f, st_, en, r = (a[:n_out] for a in out)
    return (settle_sizes(instance, Schedule(f.copy(), st_.copy(), en.copy(), r.copy()),
                         copy=False), cc, events)
