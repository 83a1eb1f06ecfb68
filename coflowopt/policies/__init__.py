"""Whole policies: ``func(instance, **params) -> Schedule``.  Importing this package registers
them (see :mod:`coflowopt.registry`).

* :mod:`.flow_level` -- per-flow baselines: ``fair`` (max-min), ``priority`` (SRTF/EDF), ``wss``;
* :mod:`.varys` -- offline Varys (SEBF re-evaluated at coflow events + iterative MADD);
* :mod:`.mlfq` -- multi-level queues on attained bytes: ``mlfq``, ``creek`` (sub-coflow-aware
  demotion, seed 001), ``baraat`` (FIFO with limited multiplexing), ``decentralized-las``.
"""

from .flow_level import (MaxMinPolicy, PriorityPolicy, fair, max_min_rates, priority, wss)
from .varys import VarysPolicy, remaining_gamma, varys

__all__ = ["fair", "priority", "wss", "varys", "VarysPolicy", "MaxMinPolicy", "PriorityPolicy",
           "max_min_rates", "remaining_gamma"]
from . import online_varys  # noqa: E402,F401  (varys-online, varys-deadline)
from . import sincronia_online  # noqa: E402,F401  (sincronia-online)
from . import aalo  # noqa: E402,F401  (aalo/dclas, clas)
from . import mlfq  # noqa: E402,F401  (mlfq, creek, baraat, decentralized-las)
