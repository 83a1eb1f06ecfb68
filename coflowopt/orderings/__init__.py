"""Coflow orderings: ``func(instance, **params) -> ndarray`` of coflow indices, first = highest
priority.  Importing this package registers them (see :mod:`coflowopt.registry`).

========================  =======================================================
``fifo``, ``given``       :mod:`.basic`
``scf``, ``ncf``,         :mod:`.heuristics` (static smallest-first sorts)
``tcf``, ``sebf``
``bssi``                  :mod:`.bssi` (Sincronia Algorithms 1 and 3; dual bound)
``mastrolilli``           :mod:`.open_shop` (concurrent open shop primal-dual)
``random``,               :mod:`.search`
``best-order``
``local-search``          :mod:`.local_search` (insertion moves on the open-shop cost)
========================  =======================================================
"""

from .basic import fifo, given_order, validate_order
from .bssi import BssiDualBound, BssiTrace, bssi, bssi_dual_bound, bssi_trace
from .heuristics import ncf, scf, sebf, tcf
from .local_search import improve_order, local_search, open_shop_cost
from .open_shop import mastrolilli
from .search import best_order, best_order_search, random_order

__all__ = ["fifo", "given_order", "validate_order", "bssi", "bssi_trace", "bssi_dual_bound",
           "BssiTrace", "BssiDualBound", "scf", "ncf", "tcf", "sebf", "mastrolilli",
           "random_order", "best_order", "best_order_search", "local_search", "improve_order",
           "open_shop_cost"]
