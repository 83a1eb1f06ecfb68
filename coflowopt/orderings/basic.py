"""Elementary orderings."""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError
from ..instance import Instance
from ..registry import register

__all__ = ["fifo", "given_order", "validate_order"]


def validate_order(instance: Instance, order, name: str = "order") -> np.ndarray:
    """Check that ``order`` is a permutation of the coflow indices and return it as int64.

    ``name`` is the parameter the messages name (``tie_order`` of the Varys policies).

    Raises
    ------
    InvalidParameterError
        Naming the first missing or repeated coflow.
    """
    o = np.asarray(order)
    K = instance.num_coflows
    if o.ndim != 1 or not np.issubdtype(o.dtype, np.integer):
        shown = repr(order)
        raise InvalidParameterError(f"{name} must be a 1-d array of coflow indices, got "
                                    f"{shown if len(shown) <= 60 else shown[:57] + '...'}")
    if o.size != K:
        raise InvalidParameterError(f"{name} has {o.size} entries but the instance has {K} "
                                    "coflows")
    seen = np.zeros(K, dtype=bool)
    for i, k in enumerate(o.tolist()):
        if not 0 <= k < K:
            raise InvalidParameterError(f"{name}[{i}] = {k} is not a coflow index 0..{K - 1}")
        if seen[k]:
            raise InvalidParameterError(f"{name}[{i}] repeats coflow {k}")
        seen[k] = True
    return o.astype(np.int64)


@register("ordering", "fifo", summary="first in, first out: by release time, ties by instance "
          "order", reference="Orchestra (Chowdhury et al., SIGCOMM 2011); Baraat (Dogar et al., "
          "SIGCOMM 2014); coflowsim FIFO", tags=("release_dates", "online"))
def fifo(instance: Instance) -> np.ndarray:
    """Order coflows by release time, ties broken by their position in the instance.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    ndarray of int64
        Coflow indices, highest priority first.

    Examples
    --------
    >>> from coflowopt import Instance, Coflow
    >>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1)], release=2.0),
    ...                               Coflow("B", [(0, 0, 1)], release=0.0)])
    >>> fifo(inst).tolist()
    [1, 0]
    """
    return np.argsort(instance.release, kind="stable").astype(np.int64)


@register("ordering", "given", summary="the order of the coflows in the instance",
          reference="(identity)", tags=("release_dates",), aliases=("input",))
def given_order(instance: Instance) -> np.ndarray:
    """The instance's own coflow order ``0, 1, ..., K-1``."""
    return np.arange(instance.num_coflows, dtype=np.int64)
