"""Exact branch and bound over event sequences (completion orders and release interleavings).

The optimum of the fluid problem is the minimum, over event sequences, of the completion-order
LP (:mod:`.order_lp`; proofs/completion-order-lp-exact.md, Theorem 1).  This module searches
that space with proven bounds.

Search (backward)
    A node fixes the *last* events of the sequence (its *suffix*); the coflows whose completion
    is not placed yet form the set ``U``.  A child places one more event in front of the
    suffix: the completion of a coflow of ``U``, or the latest release not yet placed (allowed
    once every coflow of that release is placed, since coflows complete after their release).
    A node with ``U`` empty is a leaf: a complete sequence, solved exactly by its LP.
    Backward branching is chosen because the last coflows have the largest completion times and
    the best bounds: whichever coflow of ``U`` completes last does so after ``MLB(U)``, the
    makespan bound of ``U`` (this is the proof of T-S4's optimum in seeds-000-002.md, 1.3).

Bounds at a node (all proven; proofs/completion-order-lp-exact.md, Lemmas 5-7)
    * cheap: ``DPB(U) + sum_j w_{s_j} max(MLB(U + {s_1..s_j}), r_{s_j} + rho_{s_j})`` over the
      suffix's completions ``s_1, s_2, ...`` in time order (:mod:`.subset_bounds`; ``DPB``
      and ``MLB`` are tabulated by a compiled kernel over the sets the search can meet: those
      holding, with each coflow, every coflow the dominance pairs put before it (the
      chain-prefix sets of the pairs' chains, where the recursion over each chain's last
      coflow is ``DPB`` itself: proofs/bnb-dpb-chains.md; 4x4, 26 coflows: 12-28 million sets
      instead of 2^26), at most ``2^``:data:`DP_TABLE_MAX` of them and when they fit in a
      quarter of the limit; above, the tables are those of a *lowered* instance over fewer,
      merged chains, at most ``2^``:data:`DP_LOWERED_MAX` sets, a lower bound on ``DPB``
      (proofs/bnb-dpb-lowered.md; 4x4, 28-30 coflows: 24-255 million chain-prefix sets); with
      ``dp_lowered_max=0`` ``DPB`` falls back to a far weaker bound and the search rarely
      closes);
    * LP: ``DPB(U)`` plus the event LP of ``[unplaced releases, block(U), suffix]`` in which
      ``U`` completes, uncharged, at one *block* event (it relaxes every order of ``U``),
      evaluated through its safe dual bound, so rounding never prunes the optimum.  The LP
      is built reduced (the block's pairs merged by path and release group, single-interval
      pairs folded into constant loads: the same optimum) and started from the parent node's
      optimal basis (a warm start: about half the simplex iterations);
      formulations/completion-order-lp.md, "Node LP of the branch and bound".

    * charged block (``block_charge=True``, default, with the DP tables): the block event is
      charged ``w_min = min_{k in U} w_k`` and starts no earlier than ``M(U) = max(MLB(U),
      max_{k in U} r_k + rho_k)``, and the bound is ``DPB(U) - w_min M(U) + LP``: the last
      coflow of ``U`` completes at the block time ``T >= M(U)``, so ``U`` costs at least
      ``DPB(U) + w_min (T - M(U))`` (proofs/bnb-block-charge.md); it is at least the uncharged
      bound, and more where the LP delays the block to let the suffix's data through.  Not
      used when the latest unplaced release has no coflow in ``U`` (the LP's block may then
      come later than ``U``'s last completion); a child's inherited bound (below) then
      charges its first completion ``w_k - w_min`` instead of ``w_k``.
    * inherited: ``DPB(U) + LP' + steps``, ``LP'`` the certified bound of the last node LP
      solved on the node's path and ``steps`` the chain terms of the completions placed since
      (a child of an expanded node: its parent's LP plus ``w_k max(MLB(U + k), r_k + rho_k)``;
      proofs/bnb-inherited-lp-bound.md, Lemma 5b): at least the parent's own bound, so a child
      that reaches the incumbent is closed without its own LP.
    * sub-instance (``sub_max``, :data:`SUB_MAX` by default, 0: off): a node of at most ``sub_max``
      unplaced coflows that its LP leaves open is bounded by ``SUB(U) + LP_0``, ``SUB(U)``
      a certified lower bound on the optimum of ``U``'s coflows *alone* (a search of that
      sub-instance of at most :data:`SUB_NODES` nodes, memoised per set, run only when the
      node needs at most :data:`SUB_REACH` of ``DPB(U)`` above ``DPB(U)``) and ``LP_0`` the
      node LP uncharged (its block no earlier than ``M(U)`` where the charge is allowed):
      deleting the other coflows from a schedule leaves one of ``U`` alone
      (proofs/bnb-sub-bound.md, Lemma S).  ``DPB(U)`` is often 2-4 % below that optimum
      where the search spends its nodes; not used when certificate nodes are recorded.
    * split (``split_max``, off by default): a node of 3 to ``split_max`` unplaced coflows
      that its LP leaves open, near the incumbent, is bounded by its split LP
      (:mod:`.split_lp`: ``U``'s last completion apart from the rest, at most the least bound
      of the node's children; proofs/bnb-split-block.md, Lemma Z).  It closes what one
      expansion would and does not pay (experiments/results/bench_exact_coupling_2026-11-29.md).

    Nodes are first queued with the cheap (or inherited) bound; the LP is solved when the node
    reaches the front of the queue (best first), and the node is queued again with the LP
    bound.  The queue's key is the bound to :data:`TIE_DIGITS` significant digits, then the
    deeper node: bounds of the same exact value reached by different routes (deflated
    differently) tie, and the search plunges toward a leaf among them (4x4, 25 coflows, seed
    1: the optimal leaf at node 3,377 instead of 6,550 with the charged bound).  The node LP is passed to HiGHS as arrays (``passModel``'s array form), not through
    a ``HighsLp`` object.

Dominance (each keeps at least one optimal sequence)
    * coflows of weight 0 complete last: moving a completion to the end only relaxes the LP;
    * ``dominance="subset"`` (default): a coflow with the same release as another, at most its
      data on every path (per (ingress, egress) pair on a big switch) and at least its weight
      completes first (ties: ``(-w, total data, index)``; proofs/completion-order-dominance.md,
      an exchange of rate profiles); it includes the first search's rule,
      ``dominance=True``: identical coflows complete in order of decreasing weight (ties:
      instance order).

Incumbent
    Greedy order-preserving schedules (:func:`coflowopt.rates.greedy.greedy`) for the DP order,
    Smith's ratio on rho, SEBF and FIFO; each schedule's event sequence is re-optimised by its
    LP, then improved by swapping adjacent events (first improvement) and, with
    ``insertion=True`` (off by default: measured not to pay), by moving one completion 2-4
    places (each candidate sequence solved exactly by its LP), within a budget.  During the
    search, every :data:`DIVE_PERIOD`-th expanded node is completed by the DP order of its
    unplaced coflows (the table's argmins) in front of its suffix, scheduled by the same rate
    allocation and re-optimised by its LP (a *dive*); a dive that improves the incumbent is
    followed by the adjacent-swap descent (:data:`DIVE_SEARCH_SECONDS`).  With
    ``dive_backoff=True`` (default) the gap to the next dive doubles after each dive that does
    not improve the incumbent (up to :data:`DIVE_BACKOFF_MAX` periods) and is reset by one
    that does: dives rarely improve it once the search is under way (4x4, 26 coflows, seed 4:
    3 of 292, which took 13 % of the CPU).  MADD
    replaces greedy above :data:`GREEDY_MAX_FLOWS` flows and on an instance over resources
    while greedy carries ``big_switch_only`` (only the event sequence is taken from it).
    With ``lns=True`` (default) a large-neighbourhood search follows the heuristics: the
    subtree of the node whose suffix is the incumbent's sequence without its first ``w``
    completions is searched by the branch and bound itself (a copy of it that records nothing
    of the proof, at most :data:`LNS_NODES` nodes) for a better leaf, ``w`` in
    :data:`LNS_WINDOWS`, within :data:`LNS_SHARE` of the limit.

Resources
    On an instance over resources (a topology) every event LP has a capacity row per resource
    and interval, a pair being a coflow's flows on one path; the subset bounds are over
    resources and the dominance rule compares data per path.  Nothing else changes
    (formulations/completion-order-lp.md, "Resources").

Anytime bound
    With ``seed_after=True`` (default) the cheap certified bounds of :mod:`coflowopt.bounds`
    (:data:`SEED_BEFORE`: isolated, port, bssi-dual, ordering-lp; fractions of a second) run
    before the search, and the LP bounds (lp-ov, interval-lp, time-indexed-lp, and any bound
    registered later) only when the search stops on a limit, in a share of the limit kept for
    them (15 %, given even when the heuristics overran theirs): a search that closes never
    needs them, and one that stops reports the larger of its own bound and all of theirs, so
    never less than ``coflowopt bound`` certifies in that time.  What they leave of their
    share goes back to the search, which resumes its queue where it stopped, up to the limit
    less :data:`RESUME_TAIL` (the time of the final verification): the same search as one
    that never stopped, with their bound as its seed.  ``seed_after=False`` (the
    first search) computes them all before the search, in 30 % of the limit.

Result
    ``optimal`` only when the search is complete, the incumbent schedule passed the verifier
    (exact mode by default) and ``UB - LB <= max(atol, rtol * UB)``; otherwise ``feasible`` with
    ``bound`` and ``gap`` (time or node limit, or an LP that HiGHS could not solve).

References
----------
Chowdhury's dissertation, App. B.1 (B.1)-(B.4) and Thm B.3.1 (permutation schedules are not
optimal: the LP handles this); Sincronia (SIGCOMM 2018) Algorithm 2 (the greedy incumbents);
seeds-000-002.md Sec. 1.3 (T-S3, T-S4).
"""

from __future__ import annotations

import copy
import heapq
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..registry import register
from ..results import OPTIMALITY_RTOL, Result, relative_gap, within_optimality_tolerance
from ..formulations.highs import HighsModel, highs_version
from ..verify import verify_schedule
from .order_lp import (EVENT_LP_OPTIONS, EventLPSolution, PairData, build_event_lp,
                       codes_to_events, events_from_completions, new_event_lp_solver, pair_data,
                       snapped_dual_bound, solve_event_lp, verified_schedule,
                       with_block_floor)
from .subset_bounds import ROUNDING_RTOL, SubsetBounds, dominance_chains
from ..bounds.best import BOUND_ORDER, best_certified_bound, seed_value
from ..bounds.common import check_time_limit

__all__ = ["bnb", "BnBStats", "DEFAULT_RTOL", "check_time_limit"]

#: Default relative pruning tolerance: a node is closed when its bound is within ``rtol * UB`` of
#: the incumbent.  It is also the documented optimality tolerance
#: (:data:`coflowopt.results.OPTIMALITY_RTOL`): a looser ``rtol`` prunes harder and yields
#: ``feasible`` with the gap stated unless the proven gap is still within that tolerance.
DEFAULT_RTOL = OPTIMALITY_RTOL
#: Above this many flows the incumbent heuristics simulate MADD instead of greedy: greedy's
#: event loop takes 15-20 s on one 200,000-flow coflow and cannot be interrupted, MADD 0.1 s.
GREEDY_MAX_FLOWS = 20_000
#: The final LP vertex is recomputed in rational arithmetic (an exactly optimal schedule) only
#: for event LPs with at most this many columns (a dense rational basis solve).
EXACT_VERTEX_MAX_COLS = 5_000
#: Event LPs are not attempted when ``pairs x events`` (an upper bound on their columns) exceeds
#: this: on the FB trace (526 coflows, 706,000 flows) one has 53 million columns and takes 54 s
#: just to build, which no time limit could interrupt.  The answer is then the best heuristic
#: schedule and the certified seed bound (status ``lp_too_large``).
EVENT_LP_MAX_COLS = 10_000_000
#: A heuristic fallback schedule with more pieces is verified in float mode even when exact
#: mode was asked for (the exact snap and verifier are pure Python on Fractions); the result
#: says so and is then never labelled ``optimal``.
EXACT_VERIFY_MAX_PIECES = 20_000
#: The DP tables (:class:`.subset_bounds.SubsetBounds`) hold at most ``2^DP_TABLE_MAX`` sets:
#: all subsets of at most this many positive-weight coflows, or as many chain-prefix sets of
#: more coflows (``bnb(dp_chains=True)``, proofs/bnb-dpb-chains.md); 24 bytes per set: 1.6 GB
#: and about 5 s at 2^26 with the compiled kernel, measured at machine load ~4; above 2^22
#: sets only when they take at most half the memory available and, at
#: :data:`TABLE_SECONDS_PER_SUBSET`, a quarter of the limit.  Above it the DP bound falls back
#: to one level over Smith's single-port bound, far weaker (the search's reach ends there).
#: The first search used 22 (the numpy build's limit); 24 until the kernel's DP visited only a
#: subset's members (2026-11-27: 3-4x faster tables).
DP_TABLE_MAX = 26
#: When the chain-prefix sets exceed the tables' limit, ``DPB`` is tabulated for a *lowered*
#: instance over merged chains (``bnb(dp_lowered_max=...)``, proofs/bnb-dpb-lowered.md): at
#: most ``2^DP_LOWERED_MAX`` sets, and only as many as fit in a quarter of the limit at
#: :data:`TABLE_SECONDS_PER_SUBSET` and in half the memory available; 0: the far weaker
#: fallback bound (the search before).  A lower bound on ``DPB``, equal to it on the sets of
#: unmerged chains; on the 4x4 family (30 coflows, 106-255 M chain-prefix sets) 2^25 sets
#: take 3.4-6 s with the kernel.
DP_LOWERED_MAX = 25
#: Most positive-weight coflows whose dominance pairs bnb looks for (quadratic in them).
DOMINANCE_MAX_COFLOWS = 5000
#: Seconds per subset for building the tables with the kernel (measured on the 2 shared cores
#: at load ~4: 145 ns at 24 coflows, 70 ns at 26; rounded up): above 22 coflows the tables are
#: built only if they fit in a quarter of the limit (26 coflows: 13.4 s, a 54 s limit).
TABLE_SECONDS_PER_SUBSET = 2e-7
#: With ``seed_after`` these certified bounds (fractions of a second) still run before the
#: search; the LP bounds of :data:`coflowopt.bounds.best.BOUND_ORDER` run after it, on a limit.
SEED_BEFORE = ("isolated", "port", "bssi-dual", "ordering-lp")
#: Run before the search too, with what is left of the seed share, but kept out of the search
#: and merged into the reported bound only when the search stops on a limit: after the search
#: it would get only the reserve, too little for its node limit on 30 coflows in 5 s (the exact
#: method then reported less than ``coflowopt bound --method all``); as a seed of the search it
#: closes small instances within rtol at 0 nodes, where the search proves them exactly.
SEED_HELD = ("lp-ov-branch",)
#: Every this many expanded nodes, the node's suffix is completed by the DP order of its
#: unplaced coflows into an incumbent candidate (``bnb(dive_period=...)``; 0: never).
DIVE_PERIOD = 10
#: With ``bnb(dive_backoff=True)`` (default) the gap to the next dive doubles after each dive
#: that does not improve the incumbent, up to this many times :data:`DIVE_PERIOD`, and falls
#: back to :data:`DIVE_PERIOD` after one that does.  Profiled (CPU of the main thread, 60 s of
#: CPU, 2026-11-28): 4x4 K=26 seed 4, 292 dives took 7.6 of 59 s and improved the incumbent 3
#: times; 8x8 K=20 seed 3, 227 dives took 4.4 s and improved it never
#: (experiments/results/bench_exact_dive_backoff_2026-11-28.md).
DIVE_BACKOFF_MAX = 32
#: Seconds of the adjacent-swap descent after a dive that improved the incumbent.
DIVE_SEARCH_SECONDS = 1.0
#: Significant digits of the best-first queue's key (``bnb(tie_digits=...)``): bounds that
#: agree to them tie and the deeper node is expanded first; 0: the raw float bound (the
#: search before, where float noise of 1e-12 decided between bounds of the same exact value).
TIE_DIGITS = 10
#: With ``seed_after``, a search stopped by the limit is resumed after the anytime seed bounds
#: with what their share left (they take 2-4 s of the 9 s kept at a 60 s limit on 4x4, 26
#: coflows), up to the limit less this fraction of it, kept for verifying the final schedule
#: (0.7-1 s for 28 coflows at a 60 s limit, exact mode, machine load ~4).
RESUME_TAIL = 0.05
#: The split LP (``bnb(split_max=...)``, proofs/bnb-split-block.md): tried at the first
#: SPLIT_FIRST nodes whose LP leaves them open, at every SPLIT_EVERY-th, and at a node whose
#: bound is at most SPLIT_REACH times the mean rise it gave so far below the incumbent
SPLIT_FIRST = 20
SPLIT_REACH = 1.0
SPLIT_EVERY = 50

#: Nodes with at most this many unplaced coflows (``bnb(sub_max=...)``, the default) whose node LP
#: leaves them open are bounded again with ``SUB(U)``, a certified lower bound on the optimum of
#: their unplaced coflows *alone*, from a search of its own on that sub-instance (at most
#: :data:`SUB_NODES` nodes, memoised per set), plus the node LP uncharged
#: (proofs/bnb-sub-bound.md).  ``DPB(U)`` is often 8-19 below that optimum on the 8x8 family
#: (20 coflows, seed 3, sets of 6-11 coflows), more than the whole gap left at the node.
#: 14 since 2026-11-29 evening (12 before): on 4x4 K=28 seed 0 the open nodes of 13-14
#: unplaced coflows close by it (proved exactly in 50-55 s of CPU, open at 60 s with 12), and
#: 8x8 K=20 seed 3 takes fewer nodes (1,564 against 2,340); 16 cost 8x8 up to 10 s
#: (experiments/results/bench_exact_lookahead_2026-11-29.md).
SUB_MAX = 14
#: Node limit of one sub-instance search of ``SUB(U)`` (a stopped search's bound is still a
#: certified lower bound).
SUB_NODES = 100
#: ``SUB(U)`` is searched for only when the node needs at most this fraction of ``DPB(U)``
#: above ``DPB(U)`` (on the 8x8 family ``OPT(U) - DPB(U)`` is 0-4 % of ``DPB(U)``): a larger
#: need would take the sub-instance's search to its node limit in vain.
SUB_REACH = 0.03
#: The incumbent's large-neighbourhood search (``bnb(lns=True)``, after the heuristics): the
#: subtree of the node whose suffix is the incumbent's sequence but for its first ``w``
#: completions (so the first ``w`` completions and the releases among them are free), searched
#: by the branch and bound itself for a better leaf, for ``w`` in these windows, smallest
#: first and again from the smallest after an improvement.  The optimum of 8x8, 20 coflows,
#: seed 3 (1,333) is two insertions away from the heuristics' 1,335 (a local optimum of every
#: single insertion): the window of 10 finds it in 241 nodes.
LNS_WINDOWS = (6, 8, 10, 12, 14)
#: Node limit of one window's search.
LNS_NODES = 300
#: Share of the time limit for the large-neighbourhood search.
LNS_SHARE = 0.15
#: The exact proof reads ``DPB`` of sets of at most ``exact_proof_max_set`` coflows from the
#: float tables where they are exact (:func:`.subset_bounds.float_tables_exact`), as it does
#: above that size, and recomputes it in rationals only for a closure they leave short of the
#: optimum; False: always in rationals (the proof before).
EXACT_PROOF_FLOAT_DP = True
#: Absolute pruning floor, 0 by default: an absolute tolerance would make the search (and the
#: label) depend on the instance's units.
DEFAULT_ATOL = 0.0


def _available_memory() -> float:
    """Bytes of memory available to this process now (``MemAvailable`` of /proc/meminfo, else
    the free physical pages); infinite when neither can be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import os
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return math.inf


def dominance_pairs(members, release, weight, data, rule: str = "subset"
                    ) -> list[tuple[int, int]]:
    """The pairs ``(a, b)``: some optimal schedule completes ``a`` before ``b``
    (proofs/completion-order-dominance.md; the certificate writer and
    ``tools/check_certificate.py`` compute the same pairs).

    Parameters
    ----------
    members : list of int
        Positive-weight coflows.
    release, weight : dict int -> Fraction
        Exact release and weight per member.
    data : dict int -> dict path -> Fraction
        Exact data per path (a big switch's path is its port pair) of each member.
    rule : {"subset", "identical"}
        ``identical``: same release and the same data per path (the first rule).
        ``subset``: same release, ``data_a <= data_b`` on every path (a path of ``a`` that
        ``b`` does not use fails it), ``w_a >= w_b``, and ``a`` before ``b`` in
        ``(-w, total data, index)`` (only identical coflows of equal weight need the index).
        ``identical``: ``a`` before ``b`` in ``(-w, index)``.  These are the tie-breaks of
        the event sequences the rules' proofs use.

    Returns
    -------
    list of (int, int)

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> d = {0: {(0, 4): F(2)}, 1: {(0, 4): F(3), (1, 5): F(1)}, 2: {(1, 5): F(1)}}
    >>> dominance_pairs([0, 1, 2], {k: F(0) for k in d}, {k: F(1) for k in d}, d)
    [(0, 1), (2, 1)]
    >>> dominance_pairs([0, 1, 2], {k: F(0) for k in d}, {k: F(1) for k in d}, d, "identical")
    []
    """
    out: list[tuple[int, int]] = []
    members = list(members)
    n = len(members)
    if n < 2:
        return out
    total = {k: sum(data[k].values(), Fraction(0)) for k in members}
    # A vectorised filter first, then the exact test on the pairs it keeps: each float test
    # is implied by the exact rule (rounding to nearest is monotone; the loads per resource
    # are float sums of the paths' data, so they get a relative allowance of 1e-9, far above
    # their rounding for any number of paths a coflow can have), so no pair is lost; the
    # exact test alone decides. The all-pairs loop in Fractions took minutes at 3,000
    # coflows, before bnb's time limit could apply.
    res_col: dict = {}
    for k in members:
        for path in data[k]:
            for r in path:
                res_col.setdefault(r, len(res_col))
    loads = np.zeros((n, max(1, len(res_col))))
    for i, k in enumerate(members):
        for path, z in data[k].items():
            for r in path:
                loads[i, res_col[r]] += float(z)
    rel = np.array([float(release[k]) for k in members])
    w = np.array([float(weight[k]) for k in members])
    if rule == "identical":
        # identical data: equal path counts, and loads equal up to the sums' rounding (the
        # paths may be summed in another order)
        npaths = np.array([len(data[k]) for k in members])
    loads_hi = loads * (1 + 1e-9)
    for i, a in enumerate(members):
        keep = (rel == rel[i]) & (w <= w[i])
        keep[i] = False
        cand = np.flatnonzero(keep)
        ok_f = np.all(loads[i] <= loads_hi[cand], axis=1)
        if rule == "identical":
            ok_f &= (npaths[cand] == npaths[i]) & np.all(loads[cand] <= loads_hi[i], axis=1)
        for j in cand[ok_f].tolist():
            b = members[j]
            if release[a] != release[b] or weight[a] < weight[b]:
                continue
            if rule == "identical":
                if (-weight[a], a) > (-weight[b], b):
                    continue
            elif (-weight[a], total[a], a) > (-weight[b], total[b], b):
                continue
            da, db = data[a], data[b]
            if rule == "identical":
                ok = da == db
            else:
                ok = all(z <= db.get(p, 0) for p, z in da.items())
            if ok:
                out.append((a, b))
    return out


def _float_below(v: Fraction) -> float:
    """The largest float ``<= v`` (a certified bound may only be rounded down)."""
    f = float(v)
    return f if Fraction(f) <= v else math.nextafter(f, -math.inf)


@dataclass
class BnBStats:
    """Counters of one search (reported in ``Result.extra["search"]``)."""

    nodes_created: int = 0
    nodes_expanded: int = 0
    nodes_pruned: int = 0
    nodes_infeasible: int = 0
    dominated: int = 0
    lps_solved: int = 0
    lp_failures: int = 0
    leaves: int = 0
    incumbent_updates: int = 0
    heuristic_lps: int = 0
    lp_inherited: int = 0       # children bounded by an ancestor's LP + chain (Lemma 5b)
    lp_charged: int = 0         # node LPs with the block charged (proofs/bnb-block-charge.md)
    dives: int = 0              # incumbent candidates completed from nodes (DP order of U)
    dive_improvements: int = 0
    max_queue: int = 0
    resumed_seconds: float = 0.0  # search after the anytime seed bounds (bnb, RESUME_TAIL)
    root_bound: float = 0.0
    table_sets: int = 0         # sets in the DP tables (2^K, or the chain-prefix sets)
    table_lowered: bool = False  # the tables are a lowered instance's (bnb-dpb-lowered.md)
    sub_searches: int = 0       # searches of sub-instances for SUB(U) (bnb-sub-bound.md)
    sub_nodes: int = 0          # nodes they expanded
    sub_closed: int = 0         # nodes closed by SUB(U) + their uncharged LP
    split_lps: int = 0          # split node LPs solved (proofs/bnb-split-block.md)
    split_closed: int = 0       # nodes they closed
    lns_windows: int = 0        # windows searched by the incumbent's LNS (LNS_WINDOWS)
    lns_nodes: int = 0          # nodes they expanded (not counted in nodes_expanded)
    lns_improvements: int = 0   # windows that improved the incumbent
    lns_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class _Incumbent:
    value: float = math.inf
    codes: tuple = ()
    sol: EventLPSolution | None = None
    source: str = ""


class _Search:
    """State of one branch-and-bound run (see the module docstring)."""

    def __init__(self, instance: Instance, *, time_limit: float, rtol: float, atol: float,
                 node_lp: bool, dominance: bool, max_nodes: int | None,
                 local_search: bool, table_max: int = 22, table_kernel: bool = False,
                 insertion: bool = False, block_charge: bool = False, dive_period: int = 0,
                 tie_digits: int = 0, dp_chains: bool = False, sub_max: int = 0,
                 dive_backoff: bool = False, lowered_max: int = 0, split_max: int = 0):
        self.inst = instance
        self.dominance = dominance
        self.t_start = time.perf_counter()
        self.deadline = self.t_start + time_limit
        self.rtol, self.atol = rtol, atol
        self.node_lp = node_lp
        self.max_nodes = max_nodes
        self.local_search = local_search
        self.insertion = insertion
        self.stats = BnBStats()
        # switches of the node-LP speed-ups (32deac5), kept to measure them against the plain
        # LPs in one sitting; the answer does not depend on them
        self.reduced_lps = True
        self.warm_starts = True
        # a child's bound from its parent's LP plus the chain step (Lemma 5b,
        # proofs/bnb-inherited-lp-bound.md); the answer does not depend on it
        self.inherit_lp = True
        # the block event of a node LP charged min_{k in U} w_k from the earliest time the
        # last coflow of U can complete (proofs/bnb-block-charge.md); only with the DP tables
        self.charge_block = block_charge
        self.last_in_main = False
        # every dive_period-th expanded node completes its suffix by the DP order of U into
        # an incumbent candidate (greedy rates, then the sequence's LP); 0: never
        self.dive_period = dive_period
        # the gap to the next dive (doubled after a dive that does not improve the incumbent,
        # up to DIVE_BACKOFF_MAX periods, with dive_backoff) and the node count it is due at
        self.dive_backoff = dive_backoff
        self.dive_gap = dive_period
        self.next_dive = dive_period
        self.tie_digits = tie_digits
        self.dive_seen: set = set()
        # SUB(U) (proofs/bnb-sub-bound.md): per unplaced set, [certified lower bound on the
        # optimum of U alone, the target of the search that gave it, whether that search
        # found U's optimum or stopped (then no later search raises it), that search when
        # complete (for the exact proof)]
        self.sub_max = sub_max
        self.sub_memo: dict[int, list] = {}
        # a search stopped by a limit, kept for an exact proof: its open nodes' (bound,
        # provenance) (sub_bound sets them; the main search resumes its queue instead)
        self.open_at_stop: list[tuple] = []
        # record every closing bound for the exact proof, not only those within 1e-6 of the
        # incumbent (a SUB(U) sub-search, whose proof is asked for a target other than its
        # threshold)
        self.record_all = False
        # the split node LP (proofs/bnb-split-block.md, Lemma Z): tried at a node of at most
        # split_max unplaced coflows that its LP left open; 0: never
        self.split_max = split_max
        self.split_highs = None
        # the mean rise of the node's bound by its split LP (an exponential average over the
        # tries): a node further than SPLIT_REACH times that below the incumbent is expanded
        # without trying it
        self.split_gain = math.inf
        self.split_seen = 0
        self.table_kernel = table_kernel
        self.pd: PairData = pair_data(instance)
        self.lp_too_large = (self.pd.size.size * (instance.num_coflows + self.pd.num_groups)
                             > EVENT_LP_MAX_COLS)
        self.highs = new_event_lp_solver()
        w = instance.weight
        self.members = np.flatnonzero(w > 0)
        self.zero = np.flatnonzero(w == 0)
        n = self.members.size
        self.n = n
        self.e = instance.release + instance.rho
        # dominance (proofs/completion-order-dominance.md): succ[i] = members that must
        # complete after member i
        self.succ = [0] * n
        # above DOMINANCE_MAX_COFLOWS no pair is looked for: the filter below is quadratic in
        # the coflows (seconds at 5,000), and a search over that many does not close anyway;
        # fewer pairs only prune less (each pair holds on its own for one optimal schedule)
        if dominance and 1 < n <= DOMINANCE_MAX_COFLOWS:
            pd = self.pd
            data: dict[int, dict[tuple, Fraction]] = {}
            for j in range(pd.coflow.size):
                # exact pair sizes: two different sums may round to the same float
                d = data.setdefault(int(pd.coflow[j]), {})
                # a big switch's pair is (ingress, egress), in that order; a path is the set
                # of its resources (as the certificate writer and the checker key it)
                key = (tuple(pd.pair_resources(j)) if instance.is_big_switch
                       else tuple(sorted(pd.pair_resources(j))))
                d[key] = d.get(key, Fraction(0)) + pd.exact_size(j)
            mem = self.members.tolist()
            pos = {k: i for i, k in enumerate(mem)}
            rule = "subset" if dominance == "subset" else "identical"
            for a, b in dominance_pairs(
                    mem, {k: Fraction(float(instance.release[k])) for k in mem},
                    {k: Fraction(float(w[k])) for k in mem},
                    {k: data.get(k, {}) for k in mem}, rule):
                self.succ[pos[a]] |= 1 << pos[b]
        t0 = time.perf_counter()
        # the tables over the chain-prefix sets of the dominance pairs' chains (the only sets
        # the search meets, where they hold DPB itself: proofs/bnb-dpb-chains.md)
        chains = dominance_chains(self.succ) if dp_chains and table_kernel and n > 1 else None
        states = math.prod(len(c) + 1 for c in chains) if chains else 1 << n
        big = states > 1 << 22
        # (states may be far beyond a float: 2^3000 for 3,000 coflows in no pair; an int
        # compares with a float exactly, a product would overflow)
        if big and states > 0.25 * time_limit / TABLE_SECONDS_PER_SUBSET:
            table_max = min(table_max, 22)   # the tables would take most of the limit
        if big and states <= 1 << table_max and states * 24 > 0.5 * _available_memory():
            table_max = min(table_max, 22)   # 24 bytes per subset: 1.6 GB at 2^26 sets
        # above the tables' limit: tables of a lowered instance over merged chains, a lower
        # bound on DPB (proofs/bnb-dpb-lowered.md), at most 2^lowered_max sets, within the
        # same share of the limit and of the memory
        low = 0
        if lowered_max and chains is not None:
            low = 1 << lowered_max
            while low > 1 << 16 and (low * TABLE_SECONDS_PER_SUBSET > 0.25 * time_limit or
                                     low * 24 > 0.5 * _available_memory()):
                low >>= 1
        self.sb = SubsetBounds(instance, self.members, max_table=table_max,
                               kernel=table_kernel, chains=chains, lowered_max=low)
        self.t_tables = time.perf_counter() - t0
        self.stats.table_sets = int(self.sb._dpb.size) if self.sb.tabulated else 0
        self.stats.table_lowered = bool(self.sb.lowered)
        # release groups: positive members per group (as a mask)
        G = self.pd.num_groups
        self.group_mask = [0] * G
        for i, k in enumerate(self.members.tolist()):
            g = int(self.pd.coflow_group[k])
            if g >= 0:
                self.group_mask[g] |= 1 << i
        self.inc = _Incumbent()
        # the best verified heuristic schedule (value, schedule, report), the answer when no
        # event LP could be solved within the limit (very large instances)
        self.fallback: tuple[float, Any, Any, str] | None = None
        # a certified bound on OPT from coflowopt.bounds (set by bnb before the search): every
        # region's minimum is >= OPT >= seed, so it may replace any smaller closing bound
        self.seed = -math.inf
        self.seed_exact: Fraction | None = None
        # the bound's certificate (an LPCertificate, or None), and its LP solved exactly at
        # HiGHS's basis once the exact proof needs more than seed_exact (exact_lp.exact_bound;
        # False: tried, not exact): (value, certificate with the exact duals)
        self.seed_certificate = None
        self.seed_lp: tuple | bool | None = None
        self.closed_min = math.inf     # min bound over pruned nodes and solved leaves
        self.tight: list[tuple[float, tuple]] = []   # (bound, provenance) near the incumbent
        self.open_min_at_stop = math.inf
        self.complete = False
        self.stop_reason = ""
        self.counter = 0
        # the queue, kept between calls of run(): bnb resumes the search after the anytime
        # seed bounds; leaves whose LP the limit cut short wait for the next call
        self.heap: list | None = None
        self.pending_leaves: list[tuple] = []
        # certificate files (coflowopt.certificate_files.optimum_certificate): the suffixes of
        # the closed nodes and of the nodes whose bounds closed them; None = not recorded
        self.closures: list[tuple] | None = None
        # the source of an incumbent found at a leaf (the LNS's copies say so)
        self.leaf_source = "branch and bound"

    def note(self, suffix, prov: tuple | None = None) -> None:
        """Record a closed node (its suffix) and the node whose bound closed it, for the
        certificate file; nothing when not asked (the search itself never reads this)."""
        if self.closures is None:
            return
        self.closures.append(tuple(int(c) for c in suffix))
        while prov is not None and prov[0] == "leaf":
            prov = prov[2]
        if prov is not None and prov[0] in ("chain", "lp", "lpx"):
            self.closures.append(tuple(int(c) for c in prov[3]))

    # ------------------------------------------------------------------ helpers
    def time_left(self) -> float:
        return self.deadline - time.perf_counter()

    def threshold(self) -> float:
        ub = self.inc.value
        if not math.isfinite(ub):
            return math.inf
        return ub - max(self.atol, self.rtol * abs(ub))

    def solve(self, codes, rho: int = 0, block=(), warm: tuple | None = None,
              charge: tuple | None = None) -> EventLPSolution:
        # a node's LP (with a block) is only a bound: its reduced form has the same optimum
        lp = build_event_lp(self.pd, codes, num_prefix_releases=rho, block=block,
                            reduced=self.reduced_lps and bool(len(block)),
                            block_charge=charge)
        # every LP gets what is left of the limit: one LP on a 200,000-flow instance can take
        # longer than the whole limit
        # a node's LP starts from its parent's optimal basis (warm_basis): the dual simplex
        # then needs about half the iterations
        sol = solve_event_lp(lp, model=self.highs, time_limit=max(1e-3, self.time_left()),
                             warm_start=warm if self.warm_starts else None)
        self.last_in_main = True        # self.highs holds this LP's basis (warm_start_from)
        self.stats.lps_solved += 1
        if self.time_left() <= 0:
            return sol
        if sol.status not in ("optimal", "infeasible") or (sol.status == "infeasible"
                                                           and not sol.infeasible_proven) or \
                (sol.status == "optimal" and not math.isfinite(sol.bound)):
            # retry once with HiGHS's defaults (presolve on, its own tolerances)
            sol2 = solve_event_lp(lp, model=HighsModel(algorithm="choose"),
                                  time_limit=max(1e-3, self.time_left()))
            self.last_in_main = False
            self.stats.lps_solved += 1
            if (sol2.status == "optimal" and math.isfinite(sol2.bound)) or \
                    sol2.infeasible_proven:
                return sol2
            self.stats.lp_failures += 1
        return sol

    def warm_start_from(self, sol: EventLPSolution) -> tuple | None:
        """The warm start the children of a node take from its LP ``sol``, which must be the
        last LP solved (its basis is read from the solver)."""
        if not self.warm_starts or not self.last_in_main or sol.status != "optimal":
            return None
        return sol.warm(self.highs)

    def offer(self, codes, sol: EventLPSolution, source: str) -> None:
        if sol.status == "optimal" and sol.value is not None and sol.value < self.inc.value:
            self.inc = _Incumbent(value=float(sol.value), codes=tuple(codes), sol=sol,
                                  source=source)
            self.stats.incumbent_updates += 1

    # ------------------------------------------------------------------ incumbents
    def heuristics(self, budget: float) -> None:
        from ..rates.greedy import greedy
        from ..rates.madd import madd
        inst = self.inst
        # greedy (Sincronia's Algorithm 2) when it runs on this instance: on resources it may
        # not be generalised yet (tag big_switch_only), and MADD is
        greedy_ok = inst.is_big_switch or not getattr(greedy, "big_switch_only", False)
        alloc = greedy if inst.num_flows <= GREEDY_MAX_FLOWS and greedy_ok else madd
        t_end = time.perf_counter() + budget
        orders: list[tuple[str, list[int]]] = []
        dp = self.sb.dp_order()
        tail = [int(k) for k in self.zero]
        if dp is not None:
            orders.append(("dp", dp + tail))
        rho = np.maximum(inst.rho, 1e-300)
        orders.append(("smith-rho", np.lexsort((np.arange(inst.num_coflows),
                                                -inst.weight / rho)).tolist()))
        orders.append(("sebf", np.lexsort((np.arange(inst.num_coflows), inst.rho)).tolist()))
        orders.append(("fifo", np.lexsort((inst.rho, inst.release)).tolist()))
        orders.append(("release+rho", np.argsort(inst.release + inst.rho,
                                                 kind="stable").tolist()))
        try:  # BSSI when the orderings package provides it
            from ..registry import get_algorithm
            orders.append(("bssi", list(get_algorithm("ordering", "bssi")(inst))))
        except Exception:  # noqa: BLE001 - optional: any failure just skips this heuristic
            pass
        seen, seen_orders = set(), set()
        last = 0.0
        for name, order in orders:
            # the limit is hard once some schedule exists (and one is not started with less
            # time left than the previous took: a schedule of 10^7 pieces takes seconds to
            # simulate and verify); the budget is soft (the search needs an incumbent)
            if self.fallback is not None and self.time_left() <= last:
                break
            t_it = time.perf_counter()
            if time.perf_counter() > t_end and (math.isfinite(self.inc.value) or
                                                (self.lp_too_large and
                                                 self.fallback is not None)):
                break
            if tuple(order) in seen_orders:
                continue
            seen_orders.add(tuple(order))
            sched = alloc(inst, np.asarray(order, dtype=np.int64))
            rep = verify_schedule(inst, sched)
            if not rep.ok:  # pragma: no cover - greedy and MADD schedules are feasible
                continue
            v = float(rep.weighted_completion_time)
            if self.fallback is None or v < self.fallback[0]:
                self.fallback = (v, sched, rep, f"{alloc.__name__}({name})")
            codes = events_from_completions(self.pd, rep.coflow_completion)
            if codes in seen or self.time_left() <= 0 or self.lp_too_large:
                last = time.perf_counter() - t_it
                continue
            seen.add(codes)
            sol = self.solve(codes)
            self.stats.heuristic_lps += 1
            self.offer(codes, sol, f"{alloc.__name__}({name}) + LP")
            last = time.perf_counter() - t_it
        if self.local_search and math.isfinite(self.inc.value):
            self._local_search(t_end)

    def dive(self, U: int, suffix: tuple) -> None:
        """An incumbent candidate from a node: the DP order of ``U`` (the argmins of its
        table, :meth:`SubsetBounds.dp_order`) then the suffix's coflows, scheduled by the
        heuristics' rate allocation, its event sequence re-optimised by its LP."""
        from ..rates.greedy import greedy
        inst = self.inst
        if inst.num_flows > GREEDY_MAX_FLOWS or not (
                inst.is_big_switch or not getattr(greedy, "big_switch_only", False)):
            return
        head = self.sb.dp_order(U)
        if head is None:
            return
        order = head + [int(c) for c in suffix if c >= 0]
        key = tuple(order)
        if key in self.dive_seen:
            return
        self.dive_seen.add(key)
        self.stats.dives += 1
        rep = verify_schedule(inst, greedy(inst, np.asarray(order, dtype=np.int64)))
        if not rep.ok:  # pragma: no cover - greedy schedules are feasible
            return
        codes = events_from_completions(self.pd, rep.coflow_completion)
        if codes in self.dive_seen:
            return
        self.dive_seen.add(codes)
        before = self.inc.value
        self.offer(codes, self.solve(codes), "dive (DP order + greedy) + LP")
        if self.inc.value < before:
            self.stats.dive_improvements += 1
            if self.local_search:
                # the adjacent-swap descent of the heuristics from the new incumbent
                self._local_search(time.perf_counter() + min(DIVE_SEARCH_SECONDS,
                                                             max(0.0, self.time_left())))
        self.last_in_main = False       # the solver no longer holds the node's basis

    def _valid(self, codes) -> bool:
        seen_rel = set()
        cg = self.pd.coflow_group
        for c in codes:
            if c < 0:
                seen_rel.add(-c - 1)
            elif cg[c] >= 0 and cg[c] not in seen_rel:
                return False
        return True

    def _local_search(self, t_end: float) -> None:
        """First-improvement descent over swaps of adjacent events, LP-evaluated."""
        improved = True
        while improved and time.perf_counter() < t_end:
            improved = False
            base = list(self.inc.codes)
            for i in range(len(base) - 1):
                if time.perf_counter() >= t_end:
                    break
                a, b = base[i], base[i + 1]
                if a < 0 and b < 0:
                    continue
                if self._improves(base[:i] + [b, a] + base[i + 2:], "local search"):
                    improved = True
                    break

    def _improves(self, cand: list, source: str) -> bool:
        """Solve a candidate sequence's LP, offer it as incumbent; True when it improved the
        incumbent by more than the pruning tolerance (False for an invalid sequence)."""
        if not self._valid(cand):
            return False
        sol = self.solve(cand)
        self.stats.heuristic_lps += 1
        before = self.inc.value
        self.offer(cand, sol, source)
        return self.inc.value < before - max(self.atol, self.rtol * abs(before))

    def insertion_search(self, t_end: float, reach: int = 4) -> None:
        """First-improvement descent that moves one completion event 2..``reach`` places
        earlier or later in the incumbent's sequence (adjacent swaps are
        :meth:`_local_search`'s), each candidate evaluated exactly by its event LP; after an
        improvement the adjacent-swap descent runs again.  Stops at ``t_end``."""
        improved = True
        while improved and time.perf_counter() < t_end:
            improved = False
            base = list(self.inc.codes)
            L = len(base)
            for i in range(L):
                if base[i] < 0:
                    continue
                for d in (-2, 2, -3, 3, -4, 4)[:2 * (reach - 1)]:
                    j = i + d
                    if not 0 <= j < L or time.perf_counter() >= t_end:
                        continue
                    cand = base[:i] + base[i + 1:]
                    cand.insert(j, base[i])
                    if self._improves(cand, "insertion search"):
                        improved = True
                        break
                if improved:
                    break
            if improved:
                self._local_search(t_end)

    def window_node(self, codes, w: int) -> tuple | None:
        """The node of the search tree whose suffix is the event sequence ``codes`` but for
        its first events, down to ``w`` positive-weight completions (with the releases
        before the last of them): ``(U, rho, suffix, chain)`` as :meth:`run` builds them;
        None when ``codes`` is not a sequence the search places (a release before a coflow
        of its own group)."""
        pos = {k: i for i, k in enumerate(self.members.tolist())}
        U, rho, chain = (1 << self.n) - 1, self.pd.num_groups, 0.0
        suffix = tuple(int(k) for k in self.zero)
        seq = [int(c) for c in codes if c < 0 or c in pos]
        for c in reversed(seq):
            if bin(U).count("1") <= w:
                break
            if c < 0:
                if -c != rho or U & self.group_mask[rho - 1]:
                    return None
                rho -= 1
            else:
                chain += float(self.inst.weight[c]) * max(self.sb.mlb(U), float(self.e[c]))
                U ^= 1 << pos[c]
            suffix = (c,) + suffix
        return U, rho, suffix, chain

    def lns_window(self, w: int, t_end: float, max_nodes: int = LNS_NODES) -> bool:
        """Search the subtree of :meth:`window_node` of the incumbent (its first ``w``
        completions free) for a better leaf, by a copy of this search that shares the
        tables, the LP solver and the incumbent's threshold but none of the proof's
        records (what it closes is no part of the proof: it only looks for an incumbent),
        within ``max_nodes`` nodes and ``t_end``.  True when it improved the incumbent."""
        node = self.window_node(self.inc.codes, w) if self.inc.codes else None
        if node is None:
            return False
        U, rho, suffix, chain = node
        c = copy.copy(self)
        c.stats, c.closed_min, c.tight, c.heap, c.pending_leaves = BnBStats(), math.inf, [], \
            None, []
        c.closures, c.dive_period, c.sub_max, c.complete = None, 0, 0, False
        c.max_nodes, c.deadline = max_nodes, min(self.deadline, t_end)
        c.seed, c.leaf_source = -math.inf, f"LNS (window {w})"
        heap: list = []
        c.push(heap, c.safe(self.sb.dpb(U) + chain), len(suffix),
               (U, rho, suffix, chain, False, ("chain", U, rho, suffix), None, None))
        before = self.inc.value
        c._search(heap)
        self.stats.lns_windows += 1
        self.stats.lns_nodes += c.stats.nodes_expanded
        self.stats.lps_solved += c.stats.lps_solved
        self.last_in_main = False
        if c.inc.value < before:
            self.inc = c.inc
            self.stats.incumbent_updates += 1
            self.stats.lns_improvements += 1
            return True
        return False

    def lns(self, t_end: float) -> None:
        """The incumbent's large-neighbourhood search (:data:`LNS_WINDOWS`): windows of
        growing size, from the smallest again after an improvement, until ``t_end`` or the
        windows reach every coflow (the search itself then)."""
        t0 = time.perf_counter()
        i = 0
        while i < len(LNS_WINDOWS) and LNS_WINDOWS[i] < self.n and \
                time.perf_counter() < t_end and math.isfinite(self.inc.value):
            i = 0 if self.lns_window(LNS_WINDOWS[i], t_end) else i + 1
        self.stats.lns_seconds += time.perf_counter() - t0

    # ------------------------------------------------------------------ search
    def push(self, heap, bound: float, depth: int, node: tuple) -> None:
        self.counter += 1
        # the queue's key: the bound to TIE_DIGITS significant digits, so that bounds equal
        # but for rounding (an exact integer reached by a chain, a node LP or an inherited
        # LP, each deflated differently) tie and the deeper node goes first (a plunge to a
        # leaf); the node keeps its bound itself for pruning
        key = bound
        if self.tie_digits and math.isfinite(bound) and bound != 0:
            key = round(bound, self.tie_digits - 1 - math.floor(math.log10(abs(bound))))
        heapq.heappush(heap, (key, -depth, self.counter, bound, node))
        self.stats.nodes_created += 1
        if len(heap) > self.stats.max_queue:
            self.stats.max_queue = len(heap)

    @staticmethod
    def safe(x: float) -> float:
        """A float sum of non-negative bound terms, deflated by its rounding allowance."""
        return x - abs(x) * ROUNDING_RTOL

    def record(self, bound: float, prov: tuple) -> None:
        """Close a region with a proven bound; keep its provenance when it might be tight
        (within 1e-6 of the incumbent), for the exact proof after the search."""
        if bound < self.seed:
            bound, prov = self.seed, ("seed",)
        self.closed_min = min(self.closed_min, bound)
        ub = self.inc.value
        if self.record_all or not math.isfinite(ub) or bound < ub + 1e-6 * abs(ub) + 1e-9:
            self.tight.append((bound, prov))

    def block_charge(self, U: int, rho: int) -> tuple[float, float] | None:
        """``(w_min, M)`` of the node LP's block charge (proofs/bnb-block-charge.md):
        ``w_min`` the least weight of ``U``, ``M = max(MLB(U), max_{k in U} r_k + rho_k)``,
        the earliest the last coflow of ``U`` completes; None without the DP tables (the
        charge rests on DPB's recursion), when switched off, or when the node LP's block
        may come later than the last completion of ``U`` (the latest unplaced release,
        which the LP puts before the block, has no coflow in ``U``)."""
        if not self.charge_block or not self.sb.tabulated or U == 0:
            return None
        if rho > 0 and not U & self.group_mask[rho - 1]:
            return None
        idx = [i for i in range(self.n) if U >> i & 1]
        w_min = float(min(self.sb.w[i] for i in idx))
        M = max(self.sb.mlb(U), max(float(self.sb.e[i]) for i in idx))
        if not (w_min > 0 and math.isfinite(M)):
            return None
        if M != math.floor(M):
            # the LP's earliest block time must not exceed the exact M: a float sum with a
            # fraction may be rounded up (an integral one, as on integral data, is exact)
            M = M * (1 - 4 * ROUNDING_RTOL)
        return (w_min, M)

    @staticmethod
    def charge_off(charge: tuple | None, m: float | None = None) -> float:
        """What a block charge's bound subtracts: ``w_min M`` (or ``w_min m``), rounded up
        by twice the rounding allowance of ``M``."""
        if charge is None:
            return 0.0
        return charge[0] * (charge[1] if m is None else m) * (1 + 4 * ROUNDING_RTOL)

    def sub_bound(self, U: int, need: float) -> float:
        """``SUB(U)``: a certified lower bound on ``min sum_{k in U} w_k C_k`` over the
        schedules of ``U``'s coflows alone (proofs/bnb-sub-bound.md, Lemma S), from a search
        of the sub-instance whose closing threshold is ``need`` (a search stopped by its node
        or time limit still bounds the sub-instance's optimum from below); memoised, and a
        set is searched again only for a larger ``need``."""
        ent = self.sub_memo.get(U)
        if ent is not None and (ent[0] >= need or ent[2] or ent[1] >= need):
            return ent[0]       # reached, final, or searched for as much already
        if need > self.sb.dpb(U) * (1 + SUB_REACH):
            return ent[0] if ent is not None else self.sb.dpb(U) * (1 - ROUNDING_RTOL)
        members = self.members.tolist()
        ks = [members[i] for i in range(self.n) if U >> i & 1]
        sub = _Search(self.inst.select_coflows(ks), time_limit=max(1e-3, self.time_left()),
                      rtol=0.0, atol=0.0, node_lp=True, dominance=self.dominance,
                      max_nodes=SUB_NODES, local_search=False, table_max=min(len(ks), 22),
                      table_kernel=self.table_kernel, block_charge=self.charge_block,
                      dive_period=0, tie_digits=self.tie_digits, dp_chains=False)
        sub.deadline = self.deadline
        # the threshold: regions of the sub-instance at or above it are closed; a leaf below
        # it lowers it (the sub-instance's own incumbent)
        sub.inc.value = need
        # its exact proof is asked for SUB(U) less rounding, which may lie above need: every
        # closing bound is kept (at most SUB_NODES expansions' worth)
        sub.record_all = True
        sub.run()
        self.stats.sub_searches += 1
        self.stats.sub_nodes += sub.stats.nodes_expanded
        self.stats.lps_solved += sub.stats.lps_solved
        lb = sub.closed_min if sub.complete else min(sub.closed_min, sub.open_min_at_stop)
        if not math.isfinite(lb) or (sub.n and lb < sub.stats.root_bound):
            lb = sub.stats.root_bound         # DPB(U) (the sub-search's root bound)
        # final: the sub-search found U's optimum, or stopped short of its target (a larger
        # target would stop it again)
        found = (sub.complete and sub.inc.value < need) or not sub.complete
        if ent is None or lb > ent[0]:
            # the search itself is kept for the exact proof (its closures and, when a limit
            # stopped it, its open nodes, re-proved exactly); a stopped search keeps only
            # its open nodes' bounds and provenances, not its queue
            if not sub.complete:
                sub.open_at_stop = [(h[3], h[4][5]) for h in sub.heap] + \
                    [(p[2], p[3]) for p in sub.pending_leaves] if sub.heap is not None \
                    else [(0.0, ("unstarted",))]    # stopped before its root: proves nothing
                sub.heap, sub.pending_leaves = None, []
            self.sub_memo[U] = [lb, need, found, sub]
        return max(lb, ent[0]) if ent is not None else lb

    def sub_closure(self, U, rho, suffix, block, sol, charge, warm, bound, prov):
        """The node's bound with ``SUB(U)`` (proofs/bnb-sub-bound.md, Lemma S):
        ``SUB(U) + LP_0``, ``LP_0`` the node LP uncharged (with the block no earlier than
        ``M(U)`` under condition (R), as the charged LP has it); the larger of it and
        ``bound``, with its provenance ``("sub", U, LP_0's solution, suffix, SUB(U), L)``,
        ``L`` the block's earliest time in ``LP_0`` (None: unbounded)."""
        thr = self.threshold()
        lp_c = sol.bound - self.charge_off(charge)
        # LP_0 <= LP_c - w_min M (the charged LP's optimum minus its charge at t_B >= M):
        # SUB(U) must reach at least thr - (LP_c - w_min M) for the bound to close
        ent = self.sub_memo.get(U)
        if ent is not None and ent[2] and ent[0] + lp_c < thr:
            return bound, prov
        sub = self.sub_bound(U, thr - lp_c)
        if not sub + lp_c >= thr or self.time_left() <= 0:
            return bound, prov
        if charge is None:
            sol0 = sol
        else:
            sol0 = self.solve(suffix, rho, block, warm, (0.0, charge[1]))
            if sol0.status != "optimal" or not math.isfinite(sol0.bound):
                return bound, prov
        b = self.safe(sub + sol0.bound)
        if b > bound:
            if b >= thr:
                self.stats.sub_closed += 1
            ent = self.sub_memo.get(U)
            return b, ("sub", U, sol0, suffix, sub, None if charge is None else charge[1],
                       ent[3] if ent is not None and ent[0] == sub else None)
        return bound, prov

    def split_worth(self, bound: float) -> bool:
        """Whether to try the split LP at a node of this bound (its LP just solved): the
        first :data:`SPLIT_FIRST` tries always, then when the node needs at most
        :data:`SPLIT_REACH` times the mean rise the split LPs gave so far, and every
        :data:`SPLIT_EVERY`-th node besides (to keep that mean current).  Most nodes of a
        search stand further below the incumbent than the split LP raises them (4x4, 28
        coflows, seed 0: 2,803 tries at every node closed 215)."""
        self.split_seen += 1
        if self.stats.split_lps < SPLIT_FIRST or self.split_seen % SPLIT_EVERY == 0:
            return True
        return self.threshold() - bound <= SPLIT_REACH * self.split_gain

    def split_closure(self, U: int, rho: int, suffix, bound: float, prov: tuple):
        """The node's bound from its split LP (:meth:`split_bound`) when it closes the node,
        with its provenance ``("split", U, the SplitLP, suffix, its exact certified bound,
        HiGHS's row duals)``; else ``bound, prov``."""
        got = self.split_bound(U, rho, suffix)
        if got is None:
            return bound, prov
        b, b_ex, y, slp = got
        if math.isfinite(b):
            g = max(0.0, b - bound)
            self.split_gain = g if not math.isfinite(self.split_gain) else \
                0.95 * self.split_gain + 0.05 * g
        if b > bound and b >= self.threshold():
            # kept only when it closes the node (a queued node would hold the LP)
            self.stats.split_closed += 1
            return b, ("split", U, slp, suffix, b_ex, y)
        return bound, prov

    def split_bound(self, U: int, rho: int, suffix):
        """``(certified float bound, its exact value, HiGHS's row duals, the SplitLP)`` of
        the node's split LP (proofs/bnb-split-block.md, Lemma Z), or None where it is not
        built: only with the DP tables and the block charge (the constants rest on DPB's
        recursion), in the instance's units, with more than two coflows in ``U``, and when
        every release the LP puts first precedes ``t_0`` (``rho = 0``, or two coflows of
        ``U`` in group ``rho - 1``)."""
        from .split_lp import build_split_lp, new_split_lp_solver, solve_split_lp, \
            split_lp_supported
        if not self.charge_block or not self.sb.tabulated or not split_lp_supported(self.pd):
            return None
        if bin(U).count("1") < 3:
            return None
        if rho > 0 and bin(U & self.group_mask[rho - 1]).count("1") < 2:
            return None
        members = self.members.tolist()
        idx = [i for i in range(self.n) if U >> i & 1]
        sb = self.sb
        W = float(min(sb.w[i] for i in idx))
        if not W > 0:
            return None
        R = ROUNDING_RTOL

        def m_raw(V):
            """``M(V) = max(MLB(V), max e)`` as computed in floats."""
            return max(sb.mlb(V), max(float(sb.e[i]) for i in range(self.n) if V >> i & 1))

        def down(m):
            """``m`` as a float at most the exact ``M`` (the block charge's rule)."""
            return m if m == math.floor(m) else m * (1 - 4 * R)

        mlb_U = sb.mlb(U)
        last, cost, floor = [], [], []
        for i in idx:
            if U & self.succ[i]:
                continue        # the search never completes i last in U (dominance)
            V = U ^ (1 << i)
            mv = m_raw(V)
            x1 = max(mlb_U, float(sb.e[i]))
            # c_k = DPB(V) - W M(V) + (w_k - W) max(MLB(U), e_k): exact when every term is
            # an integer (integral data), else each term rounded down
            d = sb.dpb(V)
            ck = d - W * mv + (float(sb.w[i]) - W) * x1
            if not all(v == math.floor(v) and abs(v) < 2.0 ** 50
                       for v in (d, W, mv, x1, float(sb.w[i]), ck)):
                ck = self.safe(d) - W * mv * (1 + 4 * R) + \
                    (float(sb.w[i]) - W) * x1 * (1 - 4 * R)
                ck -= abs(ck) * 4 * R
            last.append(members[i])
            cost.append(ck)
            floor.append(down(mv))
        if not last:
            return None
        try:
            slp = build_split_lp(self.pd, [members[i] for i in idx], suffix, rho, last, cost,
                                 floor, down(m_raw(U)), W)
        except ValueError:
            return None
        if self.split_highs is None:
            self.split_highs = new_split_lp_solver()
        b, b_ex, y = solve_split_lp(slp, self.split_highs, max(1e-3, self.time_left()))
        self.stats.split_lps += 1
        self.stats.lps_solved += 1
        return b, b_ex, y, slp

    def prune(self, bound: float, prov: tuple) -> None:
        self.stats.nodes_pruned += 1
        self.record(bound, prov)

    def run(self) -> None:
        """Search best first until the queue is empty or a limit stops it; a later call (with
        more time) resumes the same queue, as if the search had never stopped: a node whose LP
        the limit cut short is queued again without it, a leaf's waits in
        ``pending_leaves``."""
        pd = self.pd
        self.stop_reason = ""
        self.open_min_at_stop = math.inf
        if self.heap is not None:
            t_resume = time.perf_counter()
            leaves, self.pending_leaves = self.pending_leaves, []
            for codes, rho, cheap, cprov, warm in leaves:
                self.leaf(codes, rho, cheap, cprov, warm, counted=True)
            self._search(self.heap)
            self.stats.resumed_seconds += time.perf_counter() - t_resume
            return
        full = (1 << self.n) - 1
        root_suffix = tuple(int(k) for k in self.zero)
        if self.n == 0:
            self.complete = True
            return
        if self.time_left() <= 0 or self.lp_too_large:
            # the heuristics used the whole limit, or the event LPs are too large to build:
            # nothing is proved beyond the seed
            self.stop_reason = "time_limit" if self.time_left() <= 0 else "lp_too_large"
            self.open_min_at_stop = -math.inf
            return
        root_bound = self.safe(self.sb.dpb(full))
        root_prov: tuple = ("chain", full, pd.num_groups, root_suffix)
        if self.seed > root_bound:
            root_bound, root_prov = self.seed, ("seed",)
        self.stats.root_bound = root_bound
        self.heap = heap = []
        # node = (U mask, rho, suffix codes, chain bound, lp_done, provenance of the bound,
        # warm start: the parent's LP optimum before the node's LP is solved, then its own,
        # base: (sol, U', suffix', steps) = the last node LP solved on the node's path, at the
        # node (U', suffix') with U' containing U, and the chain steps since:
        # cost(suffix) >= sol.bound + steps, proofs/bnb-inherited-lp-bound.md);
        # provenance: ("chain", U, rho, suffix) = DPB(U) + chain of the suffix,
        # ("lp", U, solution, suffix) = DPB(U) + the node LP's certified bound,
        # ("lpx", U, solution, suffix', suffix) = DPB(U) + an ancestor's certified LP bound
        # + the chain steps from its suffix' to this suffix, ("seed",) = the certified bound
        # of coflowopt.bounds (a bound on OPT, so on every region)
        self.push(heap, root_bound, 0, (full, pd.num_groups, root_suffix, 0.0, False,
                                        root_prov, None, None))
        self._search(heap)

    def _search(self, heap: list) -> None:
        pd = self.pd
        members = self.members.tolist()
        while heap:
            if self.time_left() <= 0:
                self.stop_reason = "time_limit"
                break
            if self.max_nodes is not None and self.stats.nodes_expanded >= self.max_nodes:
                self.stop_reason = "node_limit"
                break
            _, negdepth, _, bound, node = heapq.heappop(heap)
            U, rho, suffix, chain, lp_done, prov, warm, base = node
            if bound >= self.threshold():
                self.prune(bound, prov)
                self.note(suffix, prov)
                continue
            dpb_U = self.sb.dpb(U)
            if self.node_lp and not lp_done:
                block = [members[i] for i in range(self.n) if U >> i & 1]
                charge = self.block_charge(U, rho)
                self.stats.lp_charged += charge is not None
                sol = self.solve(suffix, rho, block, warm, charge)
                if sol.status not in ("optimal", "infeasible") and self.time_left() <= 0:
                    # the limit cut the LP short: the node waits, unchanged, for a resumed
                    # search (bnb) or stays open with its bound
                    self.stats.lp_charged -= charge is not None
                    self.push(heap, bound, -negdepth, node)
                    self.stats.nodes_created -= 1
                    continue
                if sol.status == "infeasible" and sol.infeasible_proven:
                    self.stats.nodes_infeasible += 1
                    self.note(suffix)
                    continue
                if sol.status == "optimal":
                    lpb = self.safe(dpb_U + sol.bound - self.charge_off(charge))
                    if lpb > bound:
                        bound, prov = lpb, ("lp", U, sol, suffix, charge)
                    if self.inherit_lp and math.isfinite(sol.bound) and (
                            base is None or sol.bound - self.charge_off(charge) >
                            base[0].bound + base[3] - self.charge_off(base[4])):
                        base = (sol, U, suffix, 0.0, charge)
                warm2 = self.warm_start_from(sol) or warm
                if bound < self.threshold() and sol.status == "optimal" and \
                        self.sub_max and self.closures is None and \
                        1 < bin(U).count("1") <= self.sub_max:
                    bound, prov = self.sub_closure(U, rho, suffix, block, sol, charge, warm2,
                                                   bound, prov)
                if bound < self.threshold() and sol.status == "optimal" and \
                        self.split_max and 2 < bin(U).count("1") <= self.split_max and \
                        self.split_worth(bound):
                    # the split LP is at most the least bound of the node's children: where
                    # it reaches the incumbent it closes the node in one LP
                    # (proofs/bnb-split-block.md)
                    bound, prov = self.split_closure(U, rho, suffix, bound, prov)
                if bound >= self.threshold():
                    self.prune(bound, prov)
                    self.note(suffix, prov)
                    continue
                self.push(heap, bound, -negdepth, (U, rho, suffix, chain, True, prov,
                                                   warm2, base))
                self.stats.nodes_created -= 1  # re-queued, not a new node
                continue
            self.stats.nodes_expanded += 1
            if self.dive_period and self.stats.nodes_expanded >= self.next_dive:
                before = self.inc.value
                self.dive(U, suffix)
                if self.dive_backoff:
                    self.dive_gap = self.dive_period if self.inc.value < before else \
                        min(2 * self.dive_gap, DIVE_BACKOFF_MAX * self.dive_period)
                self.next_dive = self.stats.nodes_expanded + self.dive_gap
            depth = -negdepth + 1
            mlb_U = self.sb.mlb(U)
            # children: completion of a coflow of U
            for i in range(self.n):
                bit = 1 << i
                if not U & bit:
                    continue
                if U & self.succ[i]:
                    self.stats.dominated += 1
                    continue
                k = members[i]
                U2 = U ^ bit
                step = float(self.inst.weight[k]) * max(mlb_U, float(self.e[k]))
                chain2 = chain + step
                codes2 = (k,) + suffix
                dpb_U2 = self.sb.dpb(U2)
                cheap = self.safe(dpb_U2 + chain2)
                cprov = ("chain", U2, rho, codes2)
                base2 = None
                if base is not None:
                    # the last LP on the path plus the chain steps since (Lemma 5b); a charged
                    # LP's first completion below it is charged w_k - w_min
                    # (proofs/bnb-block-charge.md, Lemma C2)
                    step2 = step - self.charge_off(base[4], max(mlb_U, float(self.e[k])))
                    base2 = (base[0], base[1], base[2], base[3] + step2, None)
                    lpx = self.safe(dpb_U2 + base[0].bound + base2[3])
                    if lpx > cheap:
                        cheap, cprov = lpx, ("lpx", U2, base[0], base[2], codes2, base[4])
                        self.stats.lp_inherited += 1
                if bound > cheap:
                    # the child's region lies inside this node's: the node's bound holds too
                    cheap, cprov = bound, prov
                if U2 == 0:
                    self.leaf(codes2, rho, cheap, cprov, warm)
                    continue
                if cheap >= self.threshold():
                    self.stats.nodes_created += 1
                    self.prune(cheap, cprov)
                    self.note(codes2, cprov)
                    continue
                self.push(heap, cheap, depth, (U2, rho, codes2, chain2, False, cprov, warm,
                                               base2))
            # child: the latest unplaced release goes in front of the suffix
            if rho > 0 and not (U & self.group_mask[rho - 1]):
                r = float(pd.group_time[rho - 1])
                if mlb_U > r * (1 + 1e-12) + 1e-12:
                    # U cannot finish by r (MLB's rounding error is far below the margin)
                    self.stats.nodes_created += 1
                    self.stats.nodes_infeasible += 1
                    self.note((-rho,) + suffix)
                    continue
                suffix2 = (-rho,) + suffix
                cheap = self.safe(dpb_U + chain)
                cprov = ("chain", U, rho - 1, suffix2)
                if bound > cheap:
                    cheap, cprov = bound, prov
                self.push(heap, cheap, depth, (U, rho - 1, suffix2, chain, False, cprov,
                                               warm, base))
        else:
            self.complete = not self.pending_leaves
            if not self.complete:
                self.stop_reason = "time_limit"
        if not self.complete:
            self.open_min_at_stop = min([h[3] for h in heap] +
                                        [p[2] for p in self.pending_leaves], default=math.inf)

    def leaf(self, codes, rho: int, cheap: float, cprov: tuple, warm: tuple | None = None,
             counted: bool = False) -> None:
        if not counted:
            self.stats.nodes_created += 1
            self.stats.leaves += 1
            self.note(codes, cprov)
        if cheap >= self.threshold():
            self.prune(cheap, cprov)
            return
        full_codes = tuple(-(g + 1) for g in range(rho)) + tuple(codes)
        sol = self.solve(full_codes, warm=warm)
        if sol.status == "optimal":
            self.offer(full_codes, sol, self.leaf_source)
            self.record(max(sol.bound, cheap), ("leaf", sol, cprov))
        elif sol.status == "infeasible" and sol.infeasible_proven:
            self.stats.nodes_infeasible += 1
        elif self.time_left() <= 0:
            # the limit cut the LP short: solved by a resumed search, else open at ``cheap``
            self.pending_leaves.append((codes, rho, cheap, cprov, warm))
        else:
            # unsolved leaf: only the cheap bound is known for it
            self.record(cheap, cprov)

    # ------------------------------------------------------------------ exact proof
    def exact_seed(self) -> tuple | None:
        """``(value, certificate)``: the seed bound's LP rebuilt from the instance and solved
        exactly at HiGHS's optimal basis (:func:`~.exact_lp.exact_bound`, up to
        :data:`~.exact_lp.EXACT_PROOF_MAX_NONZEROS` non-zeros), computed once; None when the
        seed has no such LP or its basis is not exactly optimal."""
        from .exact_lp import exact_bound
        if self.seed_lp is None:
            ex = None if self.seed_certificate is None else \
                exact_bound(self.inst, self.seed_certificate)
            self.seed_lp = ex if ex is not None else False
        return self.seed_lp or None

    def dp_values(self, suffixes, max_set: int) -> dict[str, str]:
        """``DPB`` lower bounds read from the float tables (exact on this data:
        ``float_tables_exact``, proofs/bnb-exact-seed-bound.md, Claim F) of the unplaced sets
        of more than ``max_set`` coflows of these nodes, keyed by the sets' coflows joined by
        commas: what the certificate file's closures read (``proof.dp``,
        :func:`coflowopt.certificate_files.optimum_certificate`)."""
        members = self.members.tolist()
        pos = {k: i for i, k in enumerate(members)}
        out: dict[str, str] = {}
        for s in suffixes:
            U = (1 << self.n) - 1
            for c in s:
                if c >= 0 and c in pos:
                    U &= ~(1 << pos[c])
            if bin(U).count("1") > max_set:
                key = ",".join(str(members[i]) for i in range(self.n) if U >> i & 1)
                if key not in out:
                    out[key] = str(Fraction(self.sb.dpb(U)))
        return out

    def exact_proof(self, ub: Fraction, max_set: int) -> dict[str, Any]:
        """Recompute exactly every closing bound that the float search left within 1e-6 of
        the incumbent: ``OPT = ub`` is proved exactly when each is ``>= ub``.

        Chain and DP bounds are recomputed in rational arithmetic
        (:class:`~.subset_bounds.ExactSubsetBounds`, sets of at most ``max_set`` coflows), or
        read from the float tables where those are exact (:data:`EXACT_PROOF_FLOAT_DP`);
        LP bounds are the exact certificates at HiGHS's duals or, when those fall short, the
        exact LP optimum recomputed at HiGHS's optimal basis (:mod:`.exact_lp`).
        """
        from .exact_lp import EXACT_PROOF_MAX_NONZEROS, exact_lp_solution
        from .subset_bounds import ExactSubsetBounds, float_tables_exact

        esb = ExactSubsetBounds(self.inst, self.members)
        # sets above max_set: the float tables, when they are exact (integral data, capacities
        # powers of two, every value below 2^53: subset_bounds.float_tables_exact); not the
        # Smith fallback of untabulated sets, whose order is a float division
        big_exact = self.sb.tabulated and float_tables_exact(self.inst, self.members)
        members = self.members.tolist()

        float_dp = [0]      # DP bounds read from the float tables (sets above max_set)
        sub_stops: list[str] = []   # why a SUB(U) sub-search's own exact proof stopped
        # sets of at most max_set: the float tables too where they are exact (the same values
        # without the rational DP); a closure they leave short is recomputed by the rational
        # DP (value_of), since a set that is not a chain-prefix set reads a subset's value
        fast = [big_exact and EXACT_PROOF_FLOAT_DP]

        def dpb_exact(U):
            if bin(U).count("1") <= max_set:
                return Fraction(self.sb.dpb(U)) if fast[0] else esb.dpb(U)
            if not big_exact:
                return None
            float_dp[0] += 1
            return Fraction(self.sb.dpb(U))
        w = {int(k): Fraction(float(self.inst.weight[k])) for k in members}
        pos = {int(k): i for i, k in enumerate(members)}
        e_ex = esb.e

        def chain_exact(U, suffix):
            total = dpb_exact(U)
            if total is None:
                return None
            S = U
            for c in suffix:
                if c >= 0 and c in pos:
                    S |= 1 << pos[c]
                    total += w[c] * max(esb.mlb(S), esb.e[pos[c]])
            return total

        def lp_exact(sol, need, floor=None):
            """A proven lower bound on the LP's optimum, tried until it reaches ``need``;
            ``floor``: a charged LP's block time ``t_B >= M(U)`` held exactly (the float LP
            has ``L <= M(U)``, deflated where ``M(U)`` is fractional: proofs/bnb-block-charge.md)"""
            if floor is not None and (sol.bound_exact is None or sol.bound_exact < need):
                sol = with_block_floor(sol, floor)
            best = sol.bound_exact
            if best is None or best < need:
                # the duals rounded to small fractions first: milliseconds, where the exact
                # LP solve below takes a fifth of a second on 16 coflows
                v = snapped_dual_bound(sol)
                if v is not None and (best is None or v > best):
                    best = v
            if (best is None or best < need) and \
                    sol.lp.lp.A.nnz <= EXACT_PROOF_MAX_NONZEROS:
                ex = exact_lp_solution(sol.lp.lp)
                # the LP is in its own units (order_lp.lp_units): back exactly
                v = None if ex is None else sol.lp.value_in_instance_units(ex.value)
                if v is not None and (best is None or v > best):
                    best = v
            return best

        def block_m(U):
            """``M(U) = max(MLB(U), max_{k in U} e_k)`` exactly."""
            return max([esb.mlb(U)] + [e_ex[i] for i in range(len(members)) if U >> i & 1])

        def charge_exact(charge, U, k=None):
            """``w_min m`` of a block charge in exact arithmetic (proofs/bnb-block-charge.md):
            ``m = M(U) = max(MLB(U), max_{k in U} e_k)``, or with ``k`` the first completion
            below the LP node ``max(MLB(U), e_k)``; None when the LP's earliest block time
            exceeds ``M(U)`` (the charged LP would not relax the node) or ``w_min`` is not
            ``U``'s least weight."""
            idx = [i for i in range(len(members)) if U >> i & 1]
            M = max([esb.mlb(U)] + [e_ex[i] for i in idx])
            w_min = min(w[members[i]] for i in idx)
            if Fraction(charge[1]) > M or Fraction(charge[0]) != w_min:
                return None
            return w_min * (M if k is None else max(esb.mlb(U), e_ex[pos[k]]))

        def split_exact(prov):
            """The split LP's bound (proofs/bnb-split-block.md, Lemma Z) when its float data
            are at most the exact ones: each ``c_k <= DPB(U - k) - W M(U - k) + (w_k - W)
            max(MLB(U), e_k)`` and ``m_k <= M(U - k)``, ``t_1``'s floor ``<= M(U)``, ``W``
            the least weight of ``U``; the LP's certified bound at HiGHS's duals, else its
            exact optimum at HiGHS's basis."""
            from ..formulations.certificates import certify_lp
            from .split_lp import with_exact_costs
            U, slp, b_ex, y = prov[1], prov[2], prov[4], prov[5]
            idx = [i for i in range(len(members)) if U >> i & 1]
            W = min(w[members[i]] for i in idx)
            if Fraction(slp.weight) != W or Fraction(slp.floor_last) > block_m(U):
                return None
            mlb_U = esb.mlb(U)
            costs = []
            for k, ck, mk in zip(slp.last, slp.cost, slp.floor):
                V = U & ~(1 << pos[k])
                d = dpb_exact(V)
                if d is None:
                    return None
                mv = block_m(V)
                c_ex = d - W * mv + (w[k] - W) * max(mlb_U, e_ex[pos[k]])
                if Fraction(mk) > mv or Fraction(ck) > c_ex:
                    return None
                costs.append(c_ex)
            best = b_ex
            if best is None or best < ub:
                # the exact constants in place of their floats (rounded down where the
                # data are not integral), at HiGHS's duals, then the exact optimum
                lp = with_exact_costs(slp, costs)
                chk = certify_lp(lp, y)
                if chk.ok and (best is None or chk.value > best):
                    best = chk.value
                if (best is None or best < ub) and np.all(np.isfinite(y)):
                    # the duals rounded to small fractions (on integral data they usually
                    # prove the optimum itself), checked strictly
                    ys = np.empty(y.size, dtype=object)
                    ys[:] = [Fraction(float(v)).limit_denominator(10 ** 6) for v in y.tolist()]
                    chk = certify_lp(lp, ys, repair=False)
                    if chk.ok and (best is None or chk.value > best):
                        best = chk.value
                if (best is None or best < ub) and lp.A.nnz <= EXACT_PROOF_MAX_NONZEROS:
                    ex = exact_lp_solution(lp)
                    if ex is not None and (best is None or ex.value > best):
                        best = ex.value
            return best

        def value(prov):
            kind = prov[0]
            if kind == "chain":
                return chain_exact(prov[1], prov[3])
            if kind == "lpx":
                # DPB(U) + the steps from the LP node's suffix to this one + the LP's bound
                U, sol, sfx_lp, sfx = prov[1], prov[2], prov[3], prov[4]
                charge = prov[5] if len(prov) > 5 else None
                added = sfx[:len(sfx) - len(sfx_lp)]
                dpb_steps = chain_exact(U, added)
                if dpb_steps is None:
                    return None
                if charge is not None:
                    # the first completion below the charged LP node is charged w_k - w_min
                    k1 = [c for c in added if c >= 0][-1]
                    U_lp = U
                    for c in added:
                        if c >= 0 and c in pos:
                            U_lp |= 1 << pos[c]
                    off = charge_exact(charge, U_lp, k1)
                    if off is None:
                        return None
                    dpb_steps -= off
                lp = lp_exact(sol, ub - dpb_steps, None if charge is None else block_m(U_lp))
                return None if lp is None else dpb_steps + lp
            if kind == "lp":
                # the node's bound is DPB(U) + its LP: the LP needs only ub - DPB(U) (asking
                # it for ub, as before, sent every node LP to the exact solve)
                dpb = dpb_exact(prov[1])
                if dpb is None:
                    return None
                charge = prov[4] if len(prov) > 4 else None
                if charge is not None:
                    off = charge_exact(charge, prov[1])
                    if off is None:
                        return None
                    dpb -= off
                lp = lp_exact(prov[2], ub - dpb,
                              None if charge is None else block_m(prov[1]))
                return None if lp is None else dpb + lp
            if kind == "sub":
                # SUB(U) + the uncharged node LP (proofs/bnb-sub-bound.md): SUB(U) is a
                # certified float (the sub-instance search's closing bounds, each deflated
                # or certified); the LP part exactly
                x = Fraction(prov[4])
                floor = None
                if prov[5] is not None:
                    # LP_0's earliest block time must not exceed the exact M(U): MLB(U) is a
                    # max over U's port loads (O(|U|) rational sums, not ExactSubsetBounds'
                    # 2^|U| DP), so it is exact on a set of any size, as charge_exact reads it
                    # for node LPs (refusing sets above max_set here left SUB closures of the
                    # root, U all coflows, "within rtol" with exact_proof_max_set=2)
                    floor = block_m(prov[1])
                    if Fraction(prov[5]) > floor:
                        return None
                lp = lp_exact(prov[2], ub - x, floor)
                if lp is None:
                    return None
                if x + lp < ub and prov[6] is not None:
                    # SUB(U)'s float was deflated: its search's closures (and, if a limit
                    # stopped it, its open nodes), re-proved exactly, give SUB(U) >= ub - lp
                    prov[6].deadline = self.deadline
                    sub_out = prov[6].exact_proof(ub - lp, max_set)
                    float_dp[0] += sub_out.get("dp_from_float_tables", 0)
                    if sub_out["proved"]:
                        return ub
                    if "stopped" in sub_out:
                        sub_stops.append(sub_out["stopped"])
                return x + lp
            if kind == "split":
                return split_exact(prov)
            if kind == "seed":
                v = self.seed_exact
                if v is not None and v < ub:
                    # the seed LP's float duals certify a few ulps below its optimum: its LP
                    # solved exactly at HiGHS's basis (proofs/bnb-exact-seed-bound.md)
                    ex = self.exact_seed()
                    if ex is not None and ex[0] > v:
                        v = ex[0]
                return v
            if kind == "unstarted":
                return None
            if kind == "leaf":
                cands = [lp_exact(prov[1], ub), value(prov[2])]
                cands = [c for c in cands if c is not None]
                return max(cands) if cands else None
            return None  # pragma: no cover

        def value_of(prov):
            """``value(prov)``, reading small sets' ``DPB`` from the exact float tables first
            and, where that falls short of ``ub``, from the rational DP."""
            v = value(prov)
            if fast[0] and (v is None or v < ub):
                fast[0] = False
                try:
                    v2 = value(prov)
                finally:
                    fast[0] = True
                if v2 is not None and (v is None or v2 > v):
                    v = v2
            return v

        # a closure on a set larger than max_set can only be re-proved through an LP (leaves);
        # if a chain or node-LP closure needs one, the exact proof cannot succeed: say so now
        # rather than spend the remaining time
        too_big = 0 if big_exact else sum(
            1 for bound, prov in self.tight
            if Fraction(bound) < ub and prov[0] in ("chain", "lp", "lpx")
            and bin(prov[1]).count("1") > max_set)
        if too_big:
            return {"proved": False, "value": str(ub), "closures_rechecked": 0,
                    "closures_not_proved": too_big, "max_set": max_set,
                    "stopped": f"{too_big} closing bound(s) on sets of more than {max_set} "
                               "coflows (raise exact_proof_max_set)"}
        checked = failed = 0
        worst = None
        out_of_time = False
        # a search stopped by its node or time limit (a SUB(U) sub-search): its bound is the
        # least of its closures and of its open nodes', so both are re-proved
        for bound, prov in self.tight + self.open_at_stop:
            if Fraction(bound) >= ub:
                continue
            if time.perf_counter() > self.deadline:
                out_of_time = True
                failed += 1
                continue
            checked += 1
            v = value_of(prov)
            if v is None or v < ub:
                failed += 1
                if v is not None and (worst is None or v < worst):
                    worst = v
        out = {"proved": failed == 0, "value": str(ub), "closures_rechecked": checked,
               "closures_not_proved": failed, "max_set": max_set}
        if out_of_time:
            out["stopped"] = "time limit"
        elif failed and sub_stops:
            # a SUB closure whose sub-search's proof stopped (e.g. on sets above max_set)
            out["stopped"] = f"a SUB(U) sub-search's exact proof: {sub_stops[0]}"

        if worst is not None:
            out["smallest_exact_bound"] = str(worst)
        if self.seed_lp:
            out["seed_exact_lp"] = str(self.seed_lp[0])
        if float_dp[0]:
            out["dp_from_float_tables"] = float_dp[0]
        return out


def _final_schedule(search: _Search, verify_mode: str):
    """The incumbent's verified schedule, or (None, None).

    Without an event-LP incumbent (no LP solved within the limit) it is the best verified
    heuristic schedule, re-verified in ``verify_mode`` (exact mode converts it with
    :func:`coflowopt.simulate.exact_schedule`).
    """
    if search.inc.sol is None:
        if search.fallback is None:
            return None, None
        from ..results import schedule_result
        sched = search.fallback[1]
        mode = verify_mode if sched.num_pieces <= EXACT_VERIFY_MAX_PIECES else "float"
        search.inc.source = search.fallback[3] + " (no event LP solved within the limit)"
        if mode == "float":
            return sched, search.fallback[2]   # verified in float mode by the heuristics
        res = schedule_result(search.inst, sched, algorithm="bnb", mode=mode)
        return (res.schedule, res.report) if res.kind is not None else (None, None)
    sol = search.inc.sol
    if sol.lp.lp.num_cols > EXACT_VERIFY_MAX_PIECES:
        verify_mode = "float"  # about one piece per column; the result says so
    return verified_schedule(search.pd, sol, verify_mode=verify_mode,
                             exact_vertex=sol.lp.lp.num_cols <= EXACT_VERTEX_MAX_COLS,
                             meta={"algorithm": "bnb",
                                   "events": codes_to_events(search.pd, search.inc.codes)})


@register("exact", "bnb",
          summary="branch and bound over completion orders and release interleavings; each "
                  "leaf is the completion-order LP (exact for the fluid model)",
          reference="proofs/completion-order-lp-exact.md; formulations/completion-order-lp.md; "
                    "Chowdhury dissertation App. B.1 (B.1)-(B.4)",
          guarantee="optimal within rtol (default 1e-9, relative) with proven (safe dual) "
                    "bounds and an exactly verified schedule; on a limit: feasible with bound",
          tags=("exponential", "needs_solver", "release_dates", "weights",
                "heterogeneous_capacities", "preemptive", "certificate", "exact_arithmetic",
                "slow"))
def bnb(instance: Instance, *, time_limit: float = 60.0, rtol: float = DEFAULT_RTOL,
        atol: float = DEFAULT_ATOL, node_lp: bool = True, dominance: bool | str = "subset",
        local_search: bool = True, max_nodes: int | None = None,
        heuristic_budget: float | None = None, verify_mode: str = "exact",
        exact_proof: bool = True, exact_proof_max_set: int = 16, seed_bounds: bool = True,
        seed_budget: float | None = None, certificate_nodes: bool = False,
        dp_table_max: int = DP_TABLE_MAX, dp_kernel: bool = True, seed_after: bool = True,
        insertion: bool = False, block_charge: bool = True, dive_period: int = DIVE_PERIOD,
        tie_digits: int = TIE_DIGITS, dp_chains: bool = True, sub_max: int = SUB_MAX,
        lns: bool = True, dive_backoff: bool = True,
        dp_lowered_max: int = DP_LOWERED_MAX, split_max: int = 0) -> Result:
    """The optimal total weighted completion time, by branch and bound over event sequences.

    Parameters
    ----------
    instance : Instance
        Deadlines, if any, are ignored (see :func:`coflowopt.exact.deadlines.deadline_mip`).
    time_limit : float
        Seconds for the whole run (heuristics included).
    rtol, atol : float
        The pruning tolerance: a node is closed when its bound is within
        ``max(atol, rtol * UB)`` of the incumbent ``UB``.  ``optimal`` needs, in addition, the
        proven gap within :data:`coflowopt.results.OPTIMALITY_RTOL` (1e-9 relative): a looser
        ``rtol`` gives ``feasible`` with status ``within_rtol`` and the gap stated.
    node_lp : bool
        Solve the relaxed event LP at inner nodes (default); otherwise cheap bounds only.
    dominance : {"subset", True, False}
        ``"subset"`` (default): a coflow whose data on every path is at most another's, with
        the same release and a weight at least as large, completes first
        (proofs/completion-order-dominance.md); ``True`` or ``"identical"``: only identical
        coflows (the first search's rule); ``False``: none.  Zero-weight coflows always
        complete last.
    local_search : bool
        Improve the heuristic incumbent by adjacent swaps of events.
    max_nodes : int, optional
        Stop after expanding this many nodes (status ``node_limit``).
    heuristic_budget : float, optional
        Seconds for the incumbent heuristics (default: 10 % of ``time_limit``, at most 5).
    verify_mode : {"exact", "float"}
        How the final schedule is verified (exact: rational arithmetic, zero tolerance).
    exact_proof : bool
        After a successful search with an exact schedule, recompute in rational arithmetic every
        closing bound within 1e-6 of the optimum; when all are ``>=`` the schedule's exact value
        the optimum is proved exactly (``certificate_status="proved exactly"``, ``gap=0``).
    exact_proof_max_set : int
        Exact DP bounds are recomputed for sets of at most this many coflows (``O(2^m m)``
        integer operations; 16 takes about a second, 18 about ten and 400 MB); a larger set,
        or running out of ``time_limit``, leaves the proof "within rtol" (still rigorous).
        Where the float tables are exact (:func:`.subset_bounds.float_tables_exact`) they are
        read instead, for sets of every size, and the rational DP runs only for a closure
        they leave short (:data:`EXACT_PROOF_FLOAT_DP`).
    seed_bounds : bool
        Use the best certified bound of :mod:`coflowopt.bounds`
        (:func:`~coflowopt.bounds.best.best_certified_bound`: isolated, port, bssi-dual,
        ordering-lp, lp-ov, interval-lp, time-indexed-lp, cheapest first, as the budget allows),
        so the reported bound is never below what ``coflowopt bound`` certifies in that budget.
    seed_budget : float, optional
        Seconds for the seed bounds (default: 30 % of ``time_limit`` before the search, 60 %
        when the DP tables are not built, since the search then rarely closes and the bound
        reported is the seeds'; after it, at most 15 % is kept for them).
    certificate_nodes : bool
        Record the suffixes of the closed nodes (and of the nodes whose bounds closed them) in
        ``extra["closed_nodes"]``, for :func:`coflowopt.certificate_files.optimum_certificate`;
        when the exact proof read ``DPB`` of sets above ``exact_proof_max_set`` from the float
        tables, also those values at the closed nodes (``extra["dp_values"]``, the file's
        ``proof.dp``); the search and its result are otherwise the same.
    dp_table_max : int
        Tabulate the DP bound over at most ``2^dp_table_max`` sets: all subsets of at most
        this many positive-weight coflows, or the chain-prefix sets of more (``dp_chains``)
        (:data:`DP_TABLE_MAX`; the first search: 22).  Above ``2^22`` sets the tables are built
        only if their estimated time fits in a quarter of ``time_limit``.
    dp_kernel : bool
        Build the tables with the compiled kernel (bit-identical to numpy's build).
    seed_after : bool
        Compute the seed bounds only if the search stops on a limit (module docstring,
        "Anytime bound"); ``False``: before the search (the first search).
    insertion : bool
        Also improve the incumbent by moving one completion 2-4 places (module docstring).
        Off by default: on 4x4 (22 coflows) and 8x8 (16 coflows) instances, seeds 0-3, it
        never improved the incumbent the adjacent swaps left and cost 1.5-2.5 s of the limit.
    tie_digits : int
        Order the queue by the bound to this many significant digits, then deeper first
        (:data:`TIE_DIGITS`; 0: by the float bound).  Only the order changes, never a bound.
    dive_period : int
        Every ``dive_period``-th expanded node completes its suffix by the DP order of its
        unplaced coflows (the DP table's argmins), scheduled by greedy rates and re-optimised
        by the sequence's LP, as an incumbent candidate (:data:`DIVE_PERIOD`; 0: never).
    dive_backoff : bool
        Double the gap to the next dive after each dive that leaves the incumbent as it was,
        up to :data:`DIVE_BACKOFF_MAX` periods, and go back to ``dive_period`` after one that
        improves it (default); False: a dive every ``dive_period`` nodes (the search before).
        Only incumbents change, never a bound.
    dp_lowered_max : int
        When the chain-prefix sets exceed the tables' limit, tabulate instead ``DPB`` of a
        lowered instance (chains of one release merged, loads lowered along each merged
        chain, its weights to their least) over at most ``2^dp_lowered_max`` sets (fewer if
        they would not fit in a quarter of the limit or half the memory): a lower bound on
        ``DPB``, equal to it where no chain is merged (proofs/bnb-dpb-lowered.md;
        :data:`DP_LOWERED_MAX`).  0: the fallback bound (the search before).  Only with
        ``dp_chains``.
    dp_chains : bool
        Tabulate ``DPB`` only over the sets the search can meet: those that hold, with each
        coflow, every coflow the dominance pairs put before it (chains of the pairs, fewer
        sets: 4x4, 26 coflows, 12-28 million instead of 2^26; proofs/bnb-dpb-chains.md),
        with the compiled kernel; the tables are built when at most ``2^dp_table_max`` sets.
        Same bound values; ``False``: all ``2^K`` subsets.
    sub_max : int
        Bound the open nodes of at most this many unplaced coflows also by a search of the
        sub-instance of those coflows alone (module docstring, "Bounds at a node";
        proofs/bnb-sub-bound.md); :data:`SUB_MAX` by default (since 2026-11-29), 0: never.
        Only with the compiled DP kernel.  On an instance of at most ``sub_max`` coflows
        the root itself may be closed so, by a search of the whole instance (at most
        :data:`SUB_NODES` nodes, not counted in ``max_nodes``: 0 nodes expanded).
        Measured with :data:`SUB_MAX` (8x8, 20 coflows, seed 3, optimum 1,333 given as the
        incumbent, 2026-11-28): the search completes in 2,340 nodes and 71 s of CPU (1,021
        nodes closed by it), where without it it was open at 1,332 after 16,000 nodes and
        354 s; without the optimum given it found 1,333 but was still open at 1,332 after
        4,385 nodes and 274 s of CPU (the search without it proved 1,333 in 18,700 nodes
        and 387 s).  With ``lns=True`` (which finds 1,333 in ~10 s) it
        proved that seed in the same 2,340 nodes, 99 s of CPU at load 7-9; at 60 s of CPU
        (8x8 K=20 and 4x4 K=26, bench_exact_lns_2026-11-28.md) it proves the same seeds as
        the default, with 2-7x fewer nodes on 8x8 but no less CPU overall.  The default,
        with ``lns``, since alternating runs at 60 s of CPU
        (experiments/results/bench_exact_sub_default_2026-11-29.md): the same 4x4 seeds
        proved at K=27 / 28 (1-3 s more CPU where it closes nothing, up to 2x less where it
        does), and 8x8 K=20 seed 3 (1,333) proved exactly in 50.3 s of CPU at load 4 (open
        without them).
    split_max : int
        Bound the open nodes of more than 2 and at most this many unplaced coflows also by
        their split LP (:mod:`coflowopt.exact.split_lp`; proofs/bnb-split-block.md, Lemma
        Z): the last completion of ``U`` separated from the rest, which couples ``U`` with
        the suffix as the node's children do, in one LP.  0 (the default): never.
    lns : bool
        After the heuristics, search the subtrees whose suffix is the incumbent's sequence
        but for its first ``w`` completions (``w`` in :data:`LNS_WINDOWS`, at most
        :data:`LNS_NODES` nodes each, :data:`LNS_SHARE` of the limit) for a better incumbent
        (module docstring, "Incumbent"); only an incumbent comes of it, never a bound.  On
        by default since 2026-11-29, with ``sub_max`` (before, off:
        experiments/results/bench_exact_lns_2026-11-28.md): it finds the
        optimum 1,333 of 8x8, 20 coflows, seed 3 (the heuristics: 1,335; the search alone
        found it only at its last leaf, after 18,700 nodes) in its window of 10 (241 nodes,
        7 s of CPU), but costs 1-7 s of CPU where the heuristics' incumbent is already
        optimal, and that seed stays beyond 60 s of CPU even with the optimum in hand.
    block_charge : bool
        Charge each node LP's block event the least weight of the unplaced coflows from the
        earliest time the last of them can complete, and take that back from the bound
        (module docstring, "Bounds at a node"; proofs/bnb-block-charge.md); only with the DP
        tables.  ``False``: the node LP before it.

    Returns
    -------
    Result
        ``kind="optimal"`` with the verified schedule, ``bound`` (proven lower bound), ``gap``,
        ``certificate`` (the search's proof record) when the search closed the gap; otherwise
        ``kind="feasible"`` with ``status`` ``time_limit`` / ``node_limit`` /
        ``gap_not_closed`` and the best bound.

    Raises
    ------
    InvalidParameterError
        For a non-positive time limit or tolerance, or an unknown ``verify_mode``.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("C1", [(0, 0, 1), (0, 1, 1)]),
    ...                               Coflow("C2", [(1, 0, 1), (1, 1, 1)])])
    >>> res = bnb(inst, time_limit=10)
    >>> res.kind, res.value, res.certificate_status   # Fig. B.2: both coflows at 2
    ('optimal', Fraction(4, 1), 'proved exactly')

    Notes
    -----
    Exponential time.  experiments/bench_exact.py (2 cores; 4x4 fabric, 1-4 flows per coflow,
    integer sizes 1-10): 8 coflows, 20 seeds: all proved optimal exactly, median 0.14 s, max
    0.54 s; every seed proved within 60 s up to 22 coflows (median 6.5 s, max 43 s), exactly up
    to about 16-18 coflows; the naive time-indexed MIP through Pyomo proves 6 coflows (up to
    30 s) and fails at 7.  ``bench_exact.py --only-reach`` (the first search, its switches in
    ``OLD_SEARCH``, and this one in the same run, 5 seeds, 60 s, 2 cores at load 3-5,
    2026-11-27, README): every seed proved up to 24 coflows on that family (the first search:
    22; at 25, 2 of 5) and up to 18 on an 8x8 family with weights 1-5 and releases 0-5 (both;
    at 20, 3 of 5 each).  With the inherited bound (Lemma 5b) and array loads (``cb2eaa6``,
    against ``f393d6f`` in one sitting, README): every seed up to 25 coflows on the 4x4 family
    (before: 24), still 18 on the 8x8 family (at 20, 4 of 5).  With the charged block, the
    queue's 10-digit key and the dives (``dc9bf21`` against ``0f20620``, one round at load ~3.5,
    README): 25 against 24 on the 4x4 family (at 26, 3 of 5 each), 18 on both for 8x8 (at 20,
    4 of 5 against 3 of 5).  With the DP tables over chain-prefix sets (``0cf861c`` against
    ``a6932c3``, one round at load 3.3-5.5, README): the same nodes with cheaper tables; at 27
    coflows 3 of 5 seeds (before: no tables, 0 of 5), at 26 3 of 5 against 2 of 5.  Resumed
    after the anytime seed bounds (``798701b`` against ``4a4198b``, two rounds at load 2.4-10,
    README): the same seeds proved, open ones searched to 57.5-59 s of wall instead of 52-57 s
    (+6 % and +19 % nodes on 4x4 K=26 and K=28 in the quieter round).  Above
    ``2^``:data:`DP_TABLE_MAX` sets the DP bound is far weaker and the search rarely closes.
    The proof: every subtree was closed with a bound
    ``>= UB - tol`` -- DP/makespan bounds deflated by their rounding allowance, LP bounds
    certified exactly from HiGHS's duals -- or by an exactly checked Farkas ray; the dominance
    rules keep an optimal sequence (proofs/completion-order-lp-exact.md).
    """
    check_time_limit(time_limit)
    if not (rtol >= 0 and atol >= 0):
        raise InvalidParameterError("rtol and atol must be >= 0")
    if dominance not in (True, False, "subset", "identical"):
        raise InvalidParameterError(f"dominance must be 'subset', 'identical', True or False, "
                                    f"got {dominance!r}")
    if verify_mode not in ("exact", "float"):
        raise InvalidParameterError(f"verify_mode must be 'exact' or 'float', got "
                                    f"{verify_mode!r}")
    # exponents of 2 (tables over at most 2^k sets): -1 was a negative shift and 10^30 an
    # overflow inside the table code (internal errors, found by the parameter fuzz)
    from ..limits import check_integer
    check_integer(split_max, "split_max", 0)
    # counts whose 0 means "off" or "none": a negative one was run as if set (dive_period=-1
    # dived at every node, tie_digits=-1 rounded keys to tens), found by fuzz_edges_2026-11-30
    for name, k in (("sub_max", sub_max), ("dive_period", dive_period),
                    ("tie_digits", tie_digits), ("exact_proof_max_set", exact_proof_max_set)):
        check_integer(k, name, 0)
    check_integer(max_nodes, "max_nodes", 0, nullable=True)
    for name, budget in (("heuristic_budget", heuristic_budget), ("seed_budget", seed_budget)):
        if budget is not None:
            check_time_limit(budget, name)
    for name, k in (("dp_table_max", dp_table_max), ("dp_lowered_max", dp_lowered_max)):
        check_integer(k, name, 0)
        if k > 40:
            raise InvalidParameterError(f"{name} must be at most 40 (tables over at most 2^40 "
                                        f"sets), got {k!r}")
    t0 = time.perf_counter()
    search = _Search(instance, time_limit=time_limit, rtol=rtol, atol=atol, node_lp=node_lp,
                     dominance=dominance, max_nodes=max_nodes, local_search=local_search,
                     table_max=dp_table_max, table_kernel=dp_kernel, insertion=insertion,
                     block_charge=block_charge, dive_period=dive_period,
                     tie_digits=tie_digits, dp_chains=dp_chains,
                     sub_max=sub_max if dp_kernel else 0, dive_backoff=dive_backoff,
                     lowered_max=dp_lowered_max if dp_chains else 0, split_max=split_max)
    if certificate_nodes:
        search.closures = []
    seed_rec = None
    # without DP tables the search rarely closes (DP_TABLE_MAX) and the anytime answer is the
    # seed bounds': they get the larger share (30 coflows in 5 s: lp-ov-branch, held, had
    # about 1.3 s and under a loaded CI fell just short of `coflowopt bound`'s 200 nodes)
    sb = (0.3 if search.sb.tabulated or search.n == 0 else 0.6) * time_limit \
        if seed_budget is None else seed_budget

    held: list = []     # (exact value, its result) of SEED_HELD, merged after an unfinished search

    def seed_search(limit: float, methods=None, hold: bool = False) -> dict:
        ts = time.perf_counter()
        best, runs = best_certified_bound(instance, time_limit=limit, methods=methods)
        v = seed_value(best)
        if hold:
            held.append((v, best))
        elif v is not None and (search.seed_exact is None or v > search.seed_exact):
            search.seed_exact = v
            search.seed = _float_below(v)
            search.seed_certificate = best.certificate
        return {"best": None if best is None else best.algorithm,
                "value": None if v is None else float(v), "runs": runs,
                "seconds": time.perf_counter() - ts, "when": when}

    when = "after" if seed_after else "before"
    if seed_bounds and not seed_after:
        seed_rec = seed_search(min(sb, search.time_left()))
    elif seed_bounds:
        # the combinatorial and ordering-LP bounds (fractions of a second) before the search
        seed_rec = seed_search(min(sb, search.time_left()), SEED_BEFORE)
        held_rec = seed_search(max(0.0, min(sb - seed_rec["seconds"], search.time_left())),
                               SEED_HELD, hold=True)
    reserve = min(sb, 0.15 * time_limit) if seed_bounds and seed_after else 0.0
    search.deadline -= reserve      # the seed bounds' share, given back after the search
    t1 = time.perf_counter()
    budget = heuristic_budget if heuristic_budget is not None else min(5.0, 0.1 * time_limit)
    search.heuristics(min(budget, max(0.0, search.time_left())))
    if search.local_search and search.insertion and math.isfinite(search.inc.value):
        search.insertion_search(time.perf_counter() +
                                min(0.5 * budget, max(0.0, search.time_left())))
    if lns and node_lp and search.sb.tabulated and not search.lp_too_large:
        search.lns(time.perf_counter() + min(LNS_SHARE * time_limit,
                                             max(0.0, search.time_left())))
    t2 = time.perf_counter()
    search.run()
    search.deadline += reserve
    if seed_bounds and seed_after and not search.complete:
        # anytime: the search stopped on a limit, so its bound may be below what the LP
        # bounds certify; they get at least the reserved share (the heuristics' budget is
        # soft: when they overran, so does this share)
        before = seed_rec
        from ..registry import algorithms
        names = {a.name for a in algorithms("bound")} - set(SEED_BEFORE) - set(SEED_HELD)
        seed_rec = seed_search(max(reserve, search.time_left()),
                               tuple([m for m in BOUND_ORDER if m in names] +
                                     sorted(names - set(BOUND_ORDER))))
        v, held_best = held[0] if held else (None, None)
        if v is not None and (search.seed_exact is None or v > search.seed_exact):
            search.seed_exact = v
            search.seed = _float_below(v)
            search.seed_certificate = held_best.certificate
            if seed_rec["value"] is None or float(v) > seed_rec["value"]:
                seed_rec.update(best=held_rec["best"], value=float(v))
        seed_rec["runs"] = before["runs"] + held_rec["runs"] + seed_rec["runs"]
        if seed_rec["value"] is None or (before["value"] is not None and
                                         before["value"] > seed_rec["value"]):
            seed_rec.update(best=before["best"], value=before["value"])
        # the seed bounds rarely need their whole share: the search goes on with what they
        # left, up to the limit less a tail for the final verification
        tail = RESUME_TAIL * time_limit
        if search.stop_reason == "time_limit" and search.time_left() > tail:
            search.deadline -= tail
            search.run()
            search.deadline += tail
    t3 = time.perf_counter()
    sched, rep = _final_schedule(search, verify_mode)
    t4 = time.perf_counter()
    closed_nodes = None if search.closures is None else sorted(set(search.closures))
    timings = {"setup": t1 - t0, "bound_tables": search.t_tables, "heuristics": t2 - t1,
               "search": t3 - t2, "verify": t4 - t3, "total": t4 - t0}
    # every argument that shapes the search, so that a result says which search ran (the
    # SUB / LNS defaults changed twice; 'exact --json' did not say whether they were on)
    params = {"time_limit": time_limit, "rtol": rtol, "atol": atol, "node_lp": node_lp,
              "dominance": dominance, "local_search": local_search, "max_nodes": max_nodes,
              "heuristic_budget": heuristic_budget, "verify_mode": verify_mode,
              "exact_proof": exact_proof, "exact_proof_max_set": exact_proof_max_set,
              "seed_bounds": seed_bounds, "seed_budget": seed_budget,
              "certificate_nodes": certificate_nodes, "dp_table_max": dp_table_max,
              "dp_kernel": dp_kernel, "seed_after": seed_after, "insertion": insertion,
              "block_charge": block_charge, "dive_period": dive_period,
              "tie_digits": tie_digits, "dp_chains": dp_chains, "sub_max": sub_max, "lns": lns,
              "dive_backoff": dive_backoff, "dp_lowered_max": dp_lowered_max,
              "split_max": split_max}
    solver = {"name": "highs", "version": highs_version(), "algorithm": "simplex",
              "options": EVENT_LP_OPTIONS}
    st = search.stats
    lb = max(min(search.closed_min, search.open_min_at_stop), search.seed)
    if search.n == 0:
        lb = 0.0
    search_rec = st.to_dict()
    if seed_rec is not None:
        search_rec["seed_bound"] = seed_rec
    if rep is None:
        return Result(value=None, kind=None, objective="weighted_completion_time",
                      status="no_incumbent" if search.complete else (search.stop_reason or
                                                                      "no_incumbent"),
                      algorithm="bnb", params=params, bound=lb if math.isfinite(lb) else None,
                      solver=solver, timings=timings, extra={"search": search_rec},
                      message="no verified schedule was found")
    ub = rep.weighted_completion_time
    ub_f = float(ub)
    lb_rep = min(lb, ub_f)
    if search.seed_exact is not None and lb_rep == search.seed and search.seed_exact <= ub:
        # the bound is the certified seed: report its exact value (not the float below it)
        lb_rep = search.seed_exact
    tol = max(atol, rtol * abs(ub_f))
    gap_abs = ub_f - lb_rep
    gap = relative_gap(ub_f, lb_rep)
    # the search closed every region within the user's tolerance; "optimal" also needs the
    # proven gap within the documented optimality tolerance (a looser rtol prunes harder)
    closed = search.complete and gap_abs <= tol
    proved = closed and within_optimality_tolerance(ub_f, lb_rep) and rep.mode == verify_mode
    exact_rec = None
    if proved and exact_proof and isinstance(ub, Fraction):
        t5 = time.perf_counter()
        exact_rec = search.exact_proof(ub, exact_proof_max_set)
        timings["exact_proof"] = time.perf_counter() - t5
        timings["total"] += timings["exact_proof"]
    exactly = bool(exact_rec and exact_rec["proved"])
    seed_proof = None
    if exactly and search.seed_lp and closed_nodes is not None:
        # the seed's exact LP closed a region: its file form, for the certificate file's
        # 'lower-bound' node (certificate_files.optimum_certificate)
        from ..certificate_files import bound_proof
        try:
            seed_proof = {"value": str(search.seed_lp[0]),
                          "proof": bound_proof(instance, search.seed_lp[1],
                                               search.seed_lp[0])}
        except InvalidParameterError:
            seed_proof = None       # the certificate file then expands the tree instead
    dp_values = None
    if exactly and closed_nodes is not None and exact_rec.get("dp_from_float_tables"):
        # the exact proof read DPB of sets above exact_proof_max_set from the float tables:
        # their values at the closed nodes, for the certificate file's proof.dp
        dp_values = search.dp_values(closed_nodes, exact_proof_max_set)
    notes = []
    if instance.has_deadlines:
        notes.append("deadlines ignored (objective sum w C; see deadline-mip)")
    if rep.mode != verify_mode:
        notes.append(f"schedule verified in {rep.mode} mode, not {verify_mode}: "
                     f"{sched.num_pieces} pieces, more than {EXACT_VERIFY_MAX_PIECES} for the "
                     "exact verifier")
    if exactly:
        lb_rep, gap = ub, 0.0
    certificate = {
        "method": "branch and bound over event sequences (backward), best first",
        "bounds": ["DP bound over subsets (the last coflow completes after the makespan "
                   "bound)", "event LP with the unordered coflows as one block, bound "
                   "certified exactly from HiGHS's duals", "Farkas rays checked exactly for "
                   "infeasible nodes"],
        "dominance": ["zero-weight coflows complete last"] + (
            ["a coflow with at most another's data on every path, the same release and at "
             "least its weight completes first"] if dominance == "subset" else
            ["identical coflows complete by decreasing weight"] if dominance else []),
        "complete": search.complete,
        "lower_bound": float(lb_rep),
        "upper_bound": ub_f,
        "upper_bound_exact": str(ub) if isinstance(ub, Fraction) else None,
        "tolerance": {"rtol": rtol, "atol": atol, "absolute": tol},
        "exact": exact_rec,
        "incumbent_source": search.inc.source,
        "events": codes_to_events(search.pd, search.inc.codes),
        "search": search_rec,
    }
    if proved:
        status, kind = "optimal", "optimal"
        how = ("proved exactly (rational arithmetic)" if exactly else
               # the float at or below it, in full: 82 - 3e-14 printed to 15 digits read "82"
               f"proved within rtol {rtol:g} (proven lower bound "
               f"{float(_float_below(lb_rep) if isinstance(lb_rep, Fraction) else lb_rep)!r})")
        msg = (f"optimal: {ub} = {ub_f:.12g} (schedule verified {rep.mode}); {how}; "
               f"{st.nodes_expanded} nodes expanded, {st.nodes_pruned} pruned")
    else:
        status = search.stop_reason or (
            "gap_not_closed" if not closed else
            "within_rtol" if not within_optimality_tolerance(ub_f, lb_rep) else
            "optimal_verified_float_only")
        kind = "feasible"
        msg = (f"{status}: best schedule {ub_f:.12g} (verified {rep.mode}), proven lower "
               f"bound {float(lb_rep):.12g}, gap {gap:.3g}")
    msg = "; ".join([msg] + notes)
    return Result(value=ub, kind=kind, objective="weighted_completion_time", status=status,
                  algorithm="bnb", message=msg, params=params, schedule=sched, report=rep,
                  bound=lb_rep, incumbent=ub, certificate=certificate,
                  certificate_status=("proved exactly" if exactly else "proved within rtol")
                  if proved else ("closed within the given rtol" if closed else "open"),
                  gap=gap, solver=solver, timings=timings,
                  extra={"search": search_rec, "nodes": st.nodes_expanded,
                         "root_bound": st.root_bound, "exact_proof": exactly,
                         **({} if closed_nodes is None else {"closed_nodes": closed_nodes}),
                         **({} if seed_proof is None else {"seed_proof": seed_proof}),
                         **({} if dp_values is None else {"dp_values": dp_values})})
