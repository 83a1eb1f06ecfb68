"""Rate allocations: ``func(instance, order, **params) -> Schedule``.  Importing this package
registers them (see :mod:`coflowopt.registry`)."""

from .bvn import bvn, bvn_decomposition, bvn_group_schedule, check_decomposition
from .greedy import GreedyPolicy, greedy, priority_flow_order
from .madd import MaddPolicy, madd

__all__ = ["greedy", "GreedyPolicy", "priority_flow_order", "madd", "MaddPolicy", "bvn",
           "bvn_decomposition", "bvn_group_schedule", "check_decomposition"]
