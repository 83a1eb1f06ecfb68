"""Multi-tenant coflow fairness: HUG's optimal isolation guarantee P*, DRF, PS-P and per-flow
max-min fairness (Chowdhury's dissertation, Ch. 7 and App. D).

* :mod:`.correlation` -- correlation vectors from an instance (MADD) or given directly;
* :mod:`.hug` -- P* in closed form (Eq. 7.2) and the guaranteed allocations ``a_k = P* d_k``;
* :mod:`.lp` -- the max-min LP whose optimum is P* (HiGHS; cvxpy cross-check);
* :mod:`.drf` -- multi-round DRF for bounded demands, water-filling, per-flow progressive filling;
* :mod:`.allocations` -- HUG, HUG-cooperative, DRF, PS-P, per-flow, naive work conservation and
  the spare-division policies of App. D.2, with progress, isolation guarantee and utilisation;
* :mod:`.strategy` -- misreports and the payoff matrix (Fig. 7.5), strategy-proofness checks;
* :mod:`.simulation` -- HUG/DRF/PS-P/per-flow as rate policies of the fluid simulator
  (registered as policies ``hug``, ``hug-cooperative``, ``drf``, ``ps-p``, ``per-flow-maxmin``).

Every function that takes an instance works on a big switch (links = its ``m_in + m_out``
ports) and on an instance over resources (links = the resources of the flows' paths; HUG is
defined per link, Sec. 7.3.1).  The one exception: exact (Fraction) per-flow max-min on
resources, which raises ``NotSupportedError`` (the float one is the ``fair`` policy's).
"""

from .allocations import (METHODS, SPARE_POLICIES, FairAllocation, allocate, allocate_all,
                          drf_with_spare, progress)
from .correlation import CorrelationVectors, as_correlation_vectors, correlation_vectors
from .drf import DRFResult, flow_max_min, multi_round_drf, water_fill
from .hug import (guaranteed_allocation, link_sums, optimal_isolation_guarantee, stage2_caps,
                  system_bottlenecks)
from .lp import MaxMinLPResult, max_min_lp, max_min_lp_cvxpy
from .simulation import (POLICY_METHODS, FairnessPolicy, FairnessRun, link_allocation_rates,
                         simulate_fairness)
from .strategy import PayoffMatrix, best_misreport, lie_grid, misreport, outcome, payoff_matrix

__all__ = [
    "CorrelationVectors", "correlation_vectors", "as_correlation_vectors",
    "optimal_isolation_guarantee", "guaranteed_allocation", "link_sums", "system_bottlenecks",
    "stage2_caps", "max_min_lp", "max_min_lp_cvxpy", "MaxMinLPResult",
    "multi_round_drf", "DRFResult", "water_fill", "flow_max_min",
    "FairAllocation", "METHODS", "SPARE_POLICIES", "allocate", "allocate_all", "drf_with_spare",
    "progress", "FairnessPolicy", "FairnessRun", "simulate_fairness", "link_allocation_rates",
    "POLICY_METHODS", "PayoffMatrix", "payoff_matrix", "misreport", "outcome", "best_misreport",
    "lie_grid",
]
