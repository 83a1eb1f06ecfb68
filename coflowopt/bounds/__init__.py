"""Certified lower bounds: ``func(instance, **params) -> Result`` with kind ``lower_bound``.

Importing this package registers the bounds (``isolated``, ``port``, ``bssi-dual``,
``ordering-lp``, ``time-indexed-lp``, ``interval-lp``, ``lp-ov``, ``lp-ov-branch``) and the
LP-based orderings and policy (``ordering-lp``, ``lp-ov`` orderings; ``qsz`` policy) of
:mod:`coflowopt.formulations.lp_orderings`: the registry loads ``coflowopt.bounds`` but not
``coflowopt.formulations``.

Every value is the figure a dual certificate proves, checked in exact rational arithmetic
(:mod:`coflowopt.formulations.certificates`); the dominance relations between the bounds are
proved in ``proofs/bound_dominance.md`` and tested in ``tests/test_bounds_dominance.py``.
"""

from .bssi_dual import bssi_dual
from .lp_bounds import interval_lp_bound, lp_ov_bound, ordering_lp_bound, time_indexed_lp_bound
from .lp_ov_branch import lp_ov_branch_bound
from .simple import isolated_bound, port_bound
from ..formulations import lp_orderings  # noqa: F401  (registers the LP orderings and qsz)

__all__ = ["isolated_bound", "port_bound", "bssi_dual", "ordering_lp_bound",
           "time_indexed_lp_bound", "interval_lp_bound", "lp_ov_bound", "lp_ov_branch_bound"]
