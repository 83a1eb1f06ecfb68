"""Exact optima of small instances, with proof.

Importing the package registers its methods (``coflowopt algorithms --kind exact``):

``bnb``                :func:`.branch_and_bound.bnb` -- branch and bound over event sequences
                       (completion orders and release interleavings), each leaf the
                       completion-order LP; exact for the fluid model, proved exactly when it can
                       be (rational arithmetic), else within a stated relative tolerance.
``enumerate-orders``   :func:`.brute_force.enumerate_orders` -- the same LPs for every sequence
                       (tiny instances; the reference for ``bnb``).
``slotted-mip``        :func:`.slotted_mip.slotted_mip` -- the time-indexed MIP of the slotted
                       model (an upper bound on the fluid optimum) with a safe horizon.
``deadline-mip``       :func:`.deadlines.deadline_mip` -- the most coflows (or weight) meeting
                       their deadlines, MIP over fixed intervals.
``integral-mip``       :func:`.integral_mip.integral_mip` -- the optimum of the *integral*
                       matching model (whole units per slot; tag ``integral_model``: its value
                       is >= the fluid optimum and its schedule is a SlottedSchedule).

Building blocks: :mod:`.order_lp` (the event LP, its certified bound and its exact schedule),
:mod:`.subset_bounds` (makespan and DP bounds over subsets).  Documents:
formulations/completion-order-lp.md, formulations/deadline-mip.md,
proofs/completion-order-lp-exact.md.
"""

from . import branch_and_bound, brute_force, deadlines, integral_mip, slotted_mip  # noqa: F401
from .branch_and_bound import bnb
from .brute_force import enumerate_orders
from .deadlines import deadline_mip
from .order_lp import order_lp
from .slotted_mip import pyomo_slotted_mip, slotted_mip

__all__ = ["bnb", "enumerate_orders", "slotted_mip", "pyomo_slotted_mip", "deadline_mip",
           "order_lp"]
