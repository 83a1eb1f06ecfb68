"""The formulations as readable Pyomo models (small instances; exportable to .lp / .mps).

Each model is written from its document (``formulations/*.md``) with Pyomo sets and rules,
independently of the numpy builders, so that the tests can check that both paths give the same
optimum.  Pyomo is 70 times slower than the matrix path at scale (solver-interfaces.md
section 4.2): these models are for reading, exporting and cross-checking, never for a hot path.

* :func:`ordering_lp_model` -- the ordering LP with *every* subset written out (exponential:
  ports with at most ``max_port_coflows`` coflows), the reference for the cutting planes;
* :func:`time_indexed_model` -- the time-indexed LP/MIP (fluid or slotted);
* :func:`interval_lp_model` -- the interval-indexed LP;
* :func:`lp_ov_model` -- LP-OV;
* :func:`integral_mip_model` -- the integral matching model's MIP (whole units per slot),
  per flow and without the matrix builder's reductions (``formulations/integral_mip.md``).

:func:`solve_model` solves with HiGHS through Pyomo's APPSI interface and maps the termination
condition; :func:`write_model` writes ``.lp`` or ``.mps`` (symbolic names).
"""

from __future__ import annotations

import itertools
from pathlib import Path


from ..exceptions import InvalidParameterError, SolverNotAvailableError
from ..instance import Instance

__all__ = ["ordering_lp_model", "time_indexed_model", "interval_lp_model", "lp_ov_model",
           "integral_mip_model", "solve_model", "write_model"]


def _pyo():
    try:
        import pyomo.environ as pyo
    except ImportError as e:  # pragma: no cover - pyomo is a core dependency
        raise SolverNotAvailableError("pyomo is not installed") from e
    return pyo


def _loads(instance: Instance) -> dict[tuple[int, int], float]:
    """``d[k, q]`` for every coflow and port with a positive load."""
    L = instance.port_loads_sparse.tocoo()
    return {(int(k), int(q)): float(v) for k, q, v in zip(L.row, L.col, L.data)}


def _iso(instance: Instance) -> list[float]:
    return [float(r + rho) for r, rho in zip(instance.release, instance.rho)]


# ----------------------------------------------------------------------------- ordering LP
def ordering_lp_model(instance: Instance, *, release_cuts: bool = True,
                      max_port_coflows: int = 12):
    """The ordering LP with every parallel inequality (all subsets ``S`` of every port).

    ``sum_{k in S} p_k C_k >= r_min(S) p(S) + h(S)`` (``r_min`` only with ``release_cuts``),
    ``C_k >= r_k + rho_k``; objective ``sum w_k C_k``.
    """
    pyo = _pyo()
    d = _loads(instance)
    K, P = instance.num_coflows, instance.num_ports
    cap = instance.capacity
    by_port = {q: sorted(k for (k, qq) in d if qq == q) for q in range(P)}
    if max(len(v) for v in by_port.values()) > max_port_coflows:
        raise InvalidParameterError(f"explicit ordering LP: a port has more than "
                                    f"{max_port_coflows} coflows (2^n subsets)")
    m = pyo.ConcreteModel(name="ordering_lp")
    m.K = pyo.RangeSet(0, K - 1)
    iso = _iso(instance)
    m.C = pyo.Var(m.K, bounds=lambda m, k: (iso[k], None))
    cuts = []
    for q, members in by_port.items():
        for n in range(1, len(members) + 1):
            for S in itertools.combinations(members, n):
                cuts.append((q, S))
    m.CUTS = pyo.RangeSet(0, len(cuts) - 1) if cuts else pyo.Set(initialize=[])

    def parallel(m, i):
        q, S = cuts[i]
        p = [d[k, q] / cap[q] for k in S]
        h = 0.5 * (sum(x * x for x in p) + sum(p) ** 2)
        rmin = min(float(instance.release[k]) for k in S) if release_cuts else 0.0
        return sum(pk * m.C[k] for pk, k in zip(p, S)) >= rmin * sum(p) + h
    m.parallel = pyo.Constraint(m.CUTS, rule=parallel)
    m.obj = pyo.Objective(expr=sum(float(instance.weight[k]) * m.C[k] for k in m.K))
    return m


# ----------------------------------------------------------------------------- time-indexed
def time_indexed_model(instance: Instance, slot: float, slots: int, *, model: str = "fluid",
                       mip: bool = False, overflow: bool = True, mean_busy_time: bool = True):
    """The time-indexed model of ``formulations/time_indexed.md`` over the flow groups
    (flows merged by coflow, ingress and egress)."""
    pyo = _pyo()
    if model not in ("fluid", "slotted") or (mip and model != "slotted"):
        raise InvalidParameterError("model must be 'fluid' (LP) or 'slotted' (LP or MIP)")
    fluid = model == "fluid"
    over = fluid and overflow
    T = int(slots)
    b = [t * float(slot) for t in range(T + 1)]
    S = T + (1 if over else 0)
    m_in = instance.num_ingress
    groups: dict[tuple[int, int, int], float] = {}
    for f in range(instance.num_flows):
        key = (int(instance.flow_coflow[f]), int(instance.flow_src[f]),
               m_in + int(instance.flow_dst[f]))
        groups[key] = groups.get(key, 0.0) + float(instance.flow_size[f])
    G = list(groups)
    K, P = instance.num_coflows, instance.num_ports
    rel = [float(r) for r in instance.release]
    iso = _iso(instance)
    cap = instance.capacity
    start = [b[s] for s in range(S)]
    end = [b[s + 1] if s < T else float("inf") for s in range(S)]
    m = pyo.ConcreteModel(name=f"time_indexed_{model}")
    m.G = pyo.RangeSet(0, len(G) - 1)
    m.S = pyo.RangeSet(0, S - 1)
    m.T = pyo.RangeSet(0, T - 1)
    m.K = pyo.RangeSet(0, K - 1)

    def allowed(g, s):
        k = G[g][0]
        return end[s] > rel[k] if fluid else start[s] >= rel[k]
    m.x = pyo.Var(m.G, m.S, bounds=lambda m, g, s: (0, groups[G[g]] if allowed(g, s) else 0))
    m.X = pyo.Var(m.G, m.S, bounds=lambda m, g, s: (groups[G[g]] if s == S - 1 else 0,
                                                     groups[G[g]]))
    m.z = pyo.Var(m.K, m.T, domain=pyo.Binary if mip else pyo.Reals,
                  bounds=lambda m, k, t: (0, 1 if b[t + 1] >= iso[k] else 0))
    m.C = pyo.Var(m.K, bounds=lambda m, k: (iso[k], None))

    def capacity(m, q, t):
        terms = [m.x[g, t] for g in m.G if G[g][1] == q or G[g][2] == q]
        if not terms:
            return pyo.Constraint.Skip
        return sum(terms) <= cap[q] * (b[t + 1] - b[t])
    m.capacity = pyo.Constraint(pyo.RangeSet(0, P - 1), m.T, rule=capacity)
    m.cumulative = pyo.Constraint(
        m.G, m.S, rule=lambda m, g, s: m.X[g, s] == (m.X[g, s - 1] if s > 0 else 0) + m.x[g, s])
    m.linking = pyo.Constraint(
        m.G, m.T, rule=lambda m, g, t: m.X[g, t] >= groups[G[g]] * m.z[G[g][0], t])
    if fluid:
        m.completion = pyo.Constraint(m.K, rule=lambda m, k: m.C[k] >= sum(
            (b[t + 1] - b[t]) * (1 - m.z[k, t]) for t in m.T))
    else:
        m.completion = pyo.Constraint(m.K, rule=lambda m, k: m.C[k] >= b[1] + sum(
            (b[t + 2] - b[t + 1]) * (1 - m.z[k, t]) for t in range(T - 1)))
    if fluid and mean_busy_time:
        d = _loads(instance)

        def mbt(m, k, q):
            if (k, q) not in d:
                return pyo.Constraint.Skip
            dk = d[k, q]
            busy = sum(max(start[s], rel[k]) * m.x[g, s] for g in m.G
                       if G[g][0] == k and q in (G[g][1], G[g][2]) for s in m.S)
            return dk * m.C[k] - busy >= dk * dk / (2 * cap[q])
        m.mean_busy_time = pyo.Constraint(m.K, pyo.RangeSet(0, P - 1), rule=mbt)
    m.obj = pyo.Objective(expr=sum(float(instance.weight[k]) * m.C[k] for k in m.K))
    return m


# ----------------------------------------------------------------------------- interval LP
def interval_lp_model(instance: Instance, tau):
    """The interval-indexed LP of ``formulations/interval_lp.md`` with points ``tau``, written
    with QSZ's completion variables ``x_kl`` (the matrix builder uses cumulative ones)."""
    pyo = _pyo()
    tau = [float(t) for t in tau]
    L = len(tau)
    K, P = instance.num_coflows, instance.num_ports
    iso = _iso(instance)
    d = _loads(instance)
    cap = instance.capacity
    pts = [0.0] + tau
    m = pyo.ConcreteModel(name="interval_lp")
    m.K = pyo.RangeSet(0, K - 1)
    m.L = pyo.RangeSet(1, L + 1)      # interval L+1 is (tau_L, inf)
    m.x = pyo.Var(m.K, m.L, bounds=lambda m, k, l: (0, 0 if l <= L and tau[l - 1] < iso[k]
                                                      else 1))
    m.assign = pyo.Constraint(m.K, rule=lambda m, k: sum(m.x[k, l] for l in m.L) == 1)

    def capacity(m, q, l):
        terms = [d[k, q] * m.x[k, u] for k in m.K if (k, q) in d for u in range(1, l + 1)]
        if not terms:
            return pyo.Constraint.Skip
        return sum(terms) <= cap[q] * tau[l - 1]
    m.capacity = pyo.Constraint(pyo.RangeSet(0, P - 1), pyo.RangeSet(1, L), rule=capacity)
    m.obj = pyo.Objective(expr=sum(float(instance.weight[k]) * max(pts[l - 1], iso[k]) *
                                   m.x[k, l] for k in m.K for l in m.L))
    return m


# ----------------------------------------------------------------------------- LP-OV
def lp_ov_model(instance: Instance, *, ports: str = "used"):
    """LP-OV of ``formulations/lp_ov.md`` with both ``delta_kk'`` and ``delta_k'k`` and the
    equality ``delta_kk' + delta_k'k = 1`` (the matrix builder eliminates one of each pair)."""
    pyo = _pyo()
    K, P = instance.num_coflows, instance.num_ports
    d = _loads(instance)
    cap = instance.capacity
    iso = _iso(instance)
    m = pyo.ConcreteModel(name="lp_ov")
    m.K = pyo.RangeSet(0, K - 1)
    pairs = [(a, c) for a in range(K) for c in range(K) if a != c]
    m.PAIRS = pyo.Set(initialize=pairs, dimen=2)
    m.f = pyo.Var(m.K, bounds=lambda m, k: (iso[k], None))
    m.delta = pyo.Var(m.PAIRS, bounds=(0, 1))
    m.antisym = pyo.Constraint(
        m.PAIRS, rule=lambda m, a, c: m.delta[a, c] + m.delta[c, a] == 1 if a < c
        else pyo.Constraint.Skip)

    def port_row(m, k, q):
        if ports == "used" and (k, q) not in d:
            return pyo.Constraint.Skip
        others = [kk for kk in range(K) if kk != k and (kk, q) in d]
        if (k, q) not in d and not others:
            return pyo.Constraint.Skip
        return cap[q] * m.f[k] >= d.get((k, q), 0.0) + sum(d[kk, q] * m.delta[kk, k]
                                                           for kk in others)
    m.port = pyo.Constraint(m.K, pyo.RangeSet(0, P - 1), rule=port_row)
    m.obj = pyo.Objective(expr=sum(float(instance.weight[k]) * m.f[k] for k in m.K))
    return m


# ----------------------------------------------------------------------------- integral MIP
def integral_mip_model(instance: Instance, slot: float, slots: int):
    """The integral matching model's MIP of ``formulations/integral_mip.md`` written plainly:
    one integer ``x[f, t]`` per flow and slot (no merging into groups, no cumulative
    variables, no earliest-slot fixing, no symmetry rows), binary ``z[k, t]``.

    ``sum_{f: r in P(f)} x[f,t] <= c_r s`` (capacity, every resource of the path);
    ``x[f,t] = 0`` when ``t s < r_k`` (release); ``sum_t x[f,t] = d_f`` (demand);
    ``sum_{u <= t} x[f,u] >= d_f z[k,t]`` (linking); objective
    ``sum_k w_k s (1 + sum_{t < T} (1 - z[k,t]))``.  Sizes and ``c_r s`` must be whole
    (:func:`coflowopt.slotted.integral_capacities`).
    """
    from fractions import Fraction

    from ..slotted import integral_capacities
    pyo = _pyo()
    size, cap = integral_capacities(instance, slot)
    T = int(slots)
    F, K, R = instance.num_flows, instance.num_coflows, instance.num_resources
    cof = instance.flow_coflow.tolist()
    ptr, res = instance.flow_resource_ptr.tolist(), instance.flow_resource.tolist()
    path = [res[ptr[f]:ptr[f + 1]] for f in range(F)]
    s = Fraction(float(slot))
    # a slot t may be used when t s >= r_k (exactly)
    usable = [[Fraction(t) * s >= Fraction(float(instance.release[cof[f]])) for t in range(T)]
              for f in range(F)]
    d = [int(v) for v in size.tolist()]
    c = [int(v) for v in cap.tolist()]
    w = [float(v) for v in instance.weight.tolist()]
    m = pyo.ConcreteModel(name="integral_mip")
    m.F = pyo.RangeSet(0, F - 1)
    m.K = pyo.RangeSet(0, K - 1)
    m.T = pyo.RangeSet(0, T - 1)
    m.x = pyo.Var(m.F, m.T, domain=pyo.NonNegativeIntegers,
                  bounds=lambda m, f, t: (0, d[f] if usable[f][t] else 0))
    m.z = pyo.Var(m.K, m.T, domain=pyo.Binary)

    def capacity(m, r, t):
        terms = [m.x[f, t] for f in range(F) if r in path[f]]
        return sum(terms) <= c[r] if terms else pyo.Constraint.Skip
    m.capacity = pyo.Constraint(pyo.RangeSet(0, R - 1), m.T, rule=capacity)
    m.demand = pyo.Constraint(m.F, rule=lambda m, f: sum(m.x[f, t] for t in m.T) == d[f])
    m.linking = pyo.Constraint(m.F, m.T, rule=lambda m, f, t: sum(
        m.x[f, u] for u in range(t + 1)) >= d[f] * m.z[cof[f], t])
    m.obj = pyo.Objective(expr=sum(w[k] * float(slot) * (1 + sum(1 - m.z[k, t] for t in m.T))
                                   for k in m.K))
    return m


# ----------------------------------------------------------------------------- solve / write
def solve_model(model, *, time_limit: float | None = None) -> tuple[str, float | None]:
    """Solve a Pyomo model with HiGHS (APPSI); returns ``(status, objective)`` with the
    termination condition mapped to coflowopt's statuses."""
    _pyo()
    from pyomo.contrib.appsi.solvers import Highs

    from .highs import stdout_silenced
    # APPSI creates its highspy.Highs (which prints a banner on fd 1) in available() / solve()
    with stdout_silenced():
        opt = Highs()
        available = opt.available()
    if not available:  # pragma: no cover
        raise SolverNotAvailableError("Pyomo's APPSI HiGHS interface is not available")
    opt.config.load_solution = False
    if time_limit is not None:
        opt.config.time_limit = float(time_limit)
    with stdout_silenced():
        res = opt.solve(model)
    tc = str(res.termination_condition).split(".")[-1]
    status = {"optimal": "optimal", "infeasible": "infeasible", "unbounded": "unbounded",
              "maxTimeLimit": "time_limit", "infeasibleOrUnbounded":
              "unbounded_or_infeasible"}.get(tc, f"pyomo:{tc}")
    obj = res.best_feasible_objective if status == "optimal" else None
    return status, (float(obj) if obj is not None else None)


def write_model(model, path: str) -> str:
    """Write ``model`` as ``.lp`` or ``.mps`` (by the suffix) with symbolic names."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".lp", ".mps"):
        raise InvalidParameterError(f"{path}: the file must end in .lp or .mps")
    model.write(str(path), io_options={"symbolic_solver_labels": True})
    return str(path)
