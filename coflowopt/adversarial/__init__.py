"""Adversarial instances: search for bad cases, known bad families, and their checks.

* :mod:`.objective` -- the score of a candidate: the algorithm's *verified* value over a
  *proven* optimum (``coflowopt.exact.bnb``, kind ``optimal``) or over the best certified lower
  bound; in the integral matching model (``model="integral"``) a slotted algorithm's value
  (``verify_slotted``) over integral-mip's proved optimum, or the integral gap (integral OPT
  over fluid OPT, both proved); against ``"gap"`` (:func:`.objective.evaluate_gap`) a
  relaxation's integrality gap, proved OPT over its certified value;
* :mod:`.search` -- random restarts, local search and CMA-ES over small instances,
  reproducible from a seed; :func:`.search.write_result` stores the best instance in the
  library's format (``instances/adversarial/``);
* :mod:`.families` -- the published bad families as generators with a parameter, each with a
  check of its published behaviour (``python -m coflowopt.adversarial.families`` prints the
  table).

The command line is ``coflowopt adversarial``; the claims and their proofs are indexed in
``proofs/README.md``.
"""

from .objective import AlgorithmSpec, Evaluation, evaluate, evaluate_gap, evaluate_integral, \
    fast_bounds, gap_bounds, parse_algorithm, parse_integral_algorithm
from .search import STRATEGIES, SearchResult, SearchSpace, load_search_record, search, \
    write_result

__all__ = ["AlgorithmSpec", "Evaluation", "evaluate", "evaluate_gap", "evaluate_integral",
           "fast_bounds", "gap_bounds",
           "parse_algorithm", "parse_integral_algorithm",
           "STRATEGIES", "SearchResult", "SearchSpace", "load_search_record", "search",
           "write_result"]
