"""Rate allocations: ``func(instance, order, **params) -> Schedule``.  Importing this package
registers them (see :mod:`coflowopt.registry`)."""

from .greedy import GreedyPolicy, greedy, priority_flow_order

__all__ = ["greedy", "GreedyPolicy", "priority_flow_order"]
