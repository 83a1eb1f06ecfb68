"""Compiled strict priority over groups of flows, each group max-min fair on what the groups
before it left: the allocation of the multi-level queues (:mod:`coflowopt.policies.mlfq`).

:func:`serve_groups` is the compiled twin of the plain-numpy reference
``_ClassPolicy._serve_python`` (a Python loop over the groups, each calling the one
progressive filling, :func:`coflowopt.maxmin.progressive_filling`, through
:func:`coflowopt.policies.flow_level.max_min_rates`).  It does the same float64 operations in
the same order, so the two give the same bits (``tests/test_mlfq_kernel.py``):

* a resource is *full* when its residual is at most ``tol`` (the policy's ``tol_rel`` times its
  capacity); a flow with a full resource on its path is blocked for the rest of the allocation
  (residuals only decrease);
* the unblocked flows of a group are filled progressively with unit weights (Bertsekas &
  Gallager, *Data Networks*, Sec. 6.5.2): every round, the live flows through a resource are
  counted (``wsum``, exact small integers), the step is the smallest ``residual / wsum``, every
  live flow's rate grows by it, every residual drops by ``wsum x step``, and a resource whose
  residual is at most :data:`coflowopt.maxmin.FULL_RTOL` times its residual at the group's start
  freezes its flows;
* the group's rates are summed per resource in the group's flow order (``np.bincount``'s order)
  and subtracted from the residuals, which are then clipped at 0.

Why compiled: in FIFO mode every active coflow is its own group, so the Python loop did one
incidence and one progressive filling per active coflow at every event (``mlfq`` 57.9 s at
1,000 coflows, past 120 s at 50,000; ``experiments/results/bench_scale_profiles.md``).  Here
an event costs one pass over the groups' flows plus the filling rounds of the groups that get
capacity, and the pass stops when every resource is full.
"""

from __future__ import annotations

import numpy as np

from ..rates._jit import njit

__all__ = ["serve_groups"]


@njit(cache=True)
def serve_groups(fl, gptr, fr_ptr, fr, cap, tol, full_rtol):
    """Rates of the flows ``fl`` served group by group (module docstring).

    Parameters
    ----------
    fl : int64 (n,)
        Global flow indices, group after group (highest priority first), each group's flows in
        the order their rates are summed.
    gptr : int64 (G+1,)
        Group ``g`` is ``fl[gptr[g]:gptr[g+1]]``.
    fr_ptr, fr : int64
        The instance's flow-to-resource CSR (``flow_resource_ptr``, ``flow_resource``).
    cap : float64 (R,)
        Capacity of every resource (not modified).
    tol : float64 (R,)
        A residual at most ``tol[p]`` counts as full.
    full_rtol : float
        :data:`coflowopt.maxmin.FULL_RTOL`.

    Returns
    -------
    float64 (n,)
        The rate of ``fl[x]``.
    """
    n = fl.shape[0]
    R = cap.shape[0]
    rate = np.zeros(n)
    res = cap.copy()
    full = np.zeros(R, dtype=np.bool_)
    nfree = 0
    for p in range(R):
        if res[p] <= tol[p]:
            full[p] = True
        else:
            nfree += 1
    gres = np.zeros(R)        # the filling's residuals
    gtol = np.zeros(R)        # FULL_RTOL x the residual at the group's start
    wsum = np.zeros(R)
    gsum = np.zeros(R)        # the group's rates per resource
    seen = np.zeros(R, dtype=np.bool_)
    gfull = np.zeros(R, dtype=np.bool_)
    touched = np.empty(R, dtype=np.int64)
    live = np.empty(n, dtype=np.int64)
    G = gptr.shape[0] - 1
    for g in range(G):
        if nfree == 0:
            break
        nl = 0
        for x in range(gptr[g], gptr[g + 1]):
            f = fl[x]
            ok = True
            for e in range(fr_ptr[f], fr_ptr[f + 1]):
                if full[fr[e]]:
                    ok = False
                    break
            if ok:
                live[nl] = x
                nl += 1
        if nl == 0:
            continue
        nt = 0
        for i in range(nl):
            f = fl[live[i]]
            for e in range(fr_ptr[f], fr_ptr[f + 1]):
                p = fr[e]
                if not seen[p]:
                    seen[p] = True
                    touched[nt] = p
                    nt += 1
                    gres[p] = res[p]
                    gtol[p] = full_rtol * res[p]
                    gfull[p] = False
        # progressive filling of the group's unblocked flows (maxmin.progressive_filling)
        while nl > 0:
            for j in range(nt):
                wsum[touched[j]] = 0.0
            for i in range(nl):
                f = fl[live[i]]
                for e in range(fr_ptr[f], fr_ptr[f + 1]):
                    wsum[fr[e]] += 1.0
            d = np.inf
            for j in range(nt):
                p = touched[j]
                if wsum[p] > 0.0:
                    s = gres[p] / wsum[p]
                    if s < d:
                        d = s
            for i in range(nl):
                rate[live[i]] += d
            for j in range(nt):
                p = touched[j]
                gres[p] -= wsum[p] * d
                if wsum[p] > 0.0 and gres[p] <= gtol[p]:
                    gfull[p] = True
            k = 0
            for i in range(nl):
                f = fl[live[i]]
                frozen = False
                for e in range(fr_ptr[f], fr_ptr[f + 1]):
                    if gfull[fr[e]]:
                        frozen = True
                        break
                if not frozen:
                    live[k] = live[i]
                    k += 1
            nl = k
        # the group's rates leave the residuals (summed in flow order, then subtracted)
        for j in range(nt):
            gsum[touched[j]] = 0.0
        for x in range(gptr[g], gptr[g + 1]):
            r = rate[x]
            if r != 0.0:
                f = fl[x]
                for e in range(fr_ptr[f], fr_ptr[f + 1]):
                    gsum[fr[e]] += r
        for j in range(nt):
            p = touched[j]
            seen[p] = False
            v = res[p] - gsum[p]
            res[p] = v if v > 0.0 else 0.0
            if not full[p] and res[p] <= tol[p]:
                full[p] = True
                nfree -= 1
    return rate
