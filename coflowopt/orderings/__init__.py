"""Coflow orderings: ``func(instance, **params) -> ndarray`` of coflow indices, first = highest
priority.  Importing this package registers them (see :mod:`coflowopt.registry`)."""

from .basic import fifo, given_order, validate_order

__all__ = ["fifo", "given_order", "validate_order"]
