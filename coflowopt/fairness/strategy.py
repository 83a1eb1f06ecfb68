"""Strategy-proofness: coflows that misreport their correlation vectors, and the payoff matrix.

A coflow reports a vector ``d'_k``; the mechanism allocates from the reports, and the coflow's
*true* progress is measured against its real ``d_k`` (an allocation on a link it does not use is
worthless).  A mechanism is strategyproof when no lie raises the liar's true progress
(Sec. 7.3, App. D.3).

* Naive work conservation (DRF + all spare to the highest reported demand, Sec. 7.4.3) is not:
  in the two-link example each coflow gains by reporting ``<1, 1>``, and when both do, both lose
  -- the prisoner's dilemma of Fig. 7.5:

  ==================  ==============  ==============
  progress (A, B)     B truthful      B lies <1, 1>
  ==================  ==============  ==============
  A truthful          (2/3, 2/3)      (1/2, 3/4)
  A lies <1, 1>       (11/12, 1/2)    (1/2, 1/2)
  ==================  ==============  ==============

* HUG (Algorithm 6) is (Thm D.3.3): lying never lifts the liar above its truthful progress, 2/3
  here.  :func:`best_misreport` searches lies; ``experiments/fairness_payoff.py`` prints both
  matrices.

References
----------
Chowdhury's dissertation, Sec. 7.4.3-7.4.4 (Figs. 7.4-7.6), 7.5.1, App. D.2 (Lemmas D.2.4-D.2.9),
App. D.3 (Lemma D.3.1, Thm D.3.3).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .._numbers import plain_number
from ..exceptions import InvalidParameterError
from .allocations import METHODS, SPARE_POLICIES, FairAllocation, allocate, drf_with_spare
from .correlation import CorrelationVectors, as_correlation_vectors

__all__ = ["misreport", "outcome", "PayoffMatrix", "payoff_matrix", "best_misreport",
           "lie_grid", "format_fraction"]


def format_fraction(x) -> str:
    """``2/3`` for a Fraction, 6 significant digits for a float."""
    if isinstance(x, float) or isinstance(x, np.floating):
        return f"{float(x):.6g}"
    return str(x)


def misreport(true: CorrelationVectors, k: int, lie) -> CorrelationVectors:
    """The reports when coflow ``k`` reports ``lie`` and everyone else tells the truth.

    ``lie`` is normalised like any reported vector (largest entry 1) unless the vectors are
    bounded demands.

    Raises
    ------
    InvalidParameterError
        If ``k`` is out of range or ``lie`` has the wrong length / invalid entries.
    """
    K, L = true.d.shape
    if not 0 <= k < K:
        raise InvalidParameterError(f"k must be a coflow index in 0..{K - 1}, got {k}")
    row = as_correlation_vectors([list(lie)], exact=true.exact, bounded=true.bounded)
    if row.d.shape[1] != L:
        raise InvalidParameterError(f"lie must have {L} entries (one per link), got "
                                    f"{row.d.shape[1]}")
    d = true.d.copy()
    d[k] = row.d[0]
    demand = None
    if true.bounded:
        demand = true.demand.copy()
        demand[k] = row.demand[0]
    return true.with_d(d, demand=demand)


def outcome(true, reported, method: str = "hug", *, elastic: bool = True) -> FairAllocation:
    """Allocate from ``reported`` and judge against ``true``.

    ``method`` is a name of :data:`~coflowopt.fairness.allocations.METHODS` or
    ``"drf+<policy>"`` with a spare policy of :data:`SPARE_POLICIES`.
    """
    true = as_correlation_vectors(true)
    if method in METHODS:
        return allocate(true, method, reported=reported, elastic=elastic)
    if method.startswith("drf+") and method[4:] in SPARE_POLICIES:
        return drf_with_spare(true, method[4:], reported=reported, elastic=elastic)
    raise InvalidParameterError(f"method must be one of {', '.join(METHODS)} or drf+<policy> "
                                f"with a policy in {', '.join(SPARE_POLICIES)}; got {method!r}")


@dataclass(frozen=True)
class PayoffMatrix:
    """True progress of every coflow for every combination of truthful and lying coflows.

    Attributes
    ----------
    method : str
    liars : tuple of int
        The coflows that may lie (rows/columns of the matrix).
    cells : dict
        ``{(lies_0, lies_1, ...): FairAllocation}`` keyed by one bool per coflow in ``liars``.
    ids : tuple of str
    """

    method: str
    liars: tuple
    cells: dict
    ids: tuple
    lies: dict = field(default_factory=dict)

    def progress(self, *lying: bool) -> tuple:
        """True progress of every coflow in the cell where ``liars[j]`` lies iff ``lying[j]``."""
        return tuple(self.cells[tuple(lying)].progress.tolist())

    def utilisation(self, *lying: bool) -> Any:
        return self.cells[tuple(lying)].utilisation

    def table(self) -> str:
        """The matrix as text (two liars: rows the first, columns the second)."""
        fmt = lambda cell: "(" + ", ".join(format_fraction(p) for p in cell.progress) + ")"  # noqa: E731
        if len(self.liars) == 2:
            a, b = (self.ids[k] for k in self.liars)
            head = ["", f"{b} truthful", f"{b} lies"]
            rows = [[f"{a} truthful", fmt(self.cells[(False, False)]),
                     fmt(self.cells[(False, True)])],
                    [f"{a} lies", fmt(self.cells[(True, False)]),
                     fmt(self.cells[(True, True)])]]
            widths = [max(len(r[c]) for r in [head] + rows) for c in range(3)]
            line = lambda r: "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
            return "\n".join([line(head)] + [line(r) for r in rows])
        out = []
        for key, cell in self.cells.items():
            who = [self.ids[k] for k, lying in zip(self.liars, key) if lying] or ["nobody"]
            out.append(f"{'+'.join(who)} lie(s): {fmt(cell)}")
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "coflows": list(self.ids),
                "liars": [self.ids[k] for k in self.liars],
                "lies": {self.ids[k]: [plain_number(v) for v in lie]
                         for k, lie in self.lies.items()},
                "cells": [{"lying": [self.ids[k] for k, lying in zip(self.liars, key) if lying],
                           "progress": [plain_number(p) for p in cell.progress],
                           "utilisation": plain_number(cell.utilisation)}
                          for key, cell in self.cells.items()]}


def payoff_matrix(true, lies: Mapping[int, Sequence], method: str = "naive-wc", *,
                  elastic: bool = True) -> PayoffMatrix:
    """The payoff matrix: true progress for every subset of ``lies`` being told.

    Parameters
    ----------
    true : CorrelationVectors or array_like
        True vectors.
    lies : mapping ``{coflow index: reported vector}``
    method : str
        See :func:`outcome`.  The dissertation's Fig. 7.5 is ``"naive-wc"``.
    elastic : bool
        Fig. 7.5 with elastic (default) or inelastic demands (Sec. 7.4.4, Fig. 7.6).

    Returns
    -------
    PayoffMatrix

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> m = payoff_matrix([[F(1, 2), 1], [1, F(1, 6)]], {0: [1, 1], 1: [1, 1]})
    >>> [str(p) for p in m.progress(True, False)]
    ['11/12', '1/2']
    """
    true = as_correlation_vectors(true)
    liars = tuple(sorted(int(k) for k in lies))
    cells = {}
    for key in itertools.product((False, True), repeat=len(liars)):
        rep = true
        for k, lying in zip(liars, key):
            if lying:
                rep = misreport(rep, k, lies[k])
        cells[key] = outcome(true, rep, method, elastic=elastic)
    return PayoffMatrix(method=method, liars=liars, cells=cells, ids=true.ids,
                        lies={k: list(lies[k]) for k in liars})


def best_misreport(true, k: int, candidates: Iterable[Sequence], method: str = "hug", *,
                   elastic: bool = True) -> tuple[Any, Any, Any]:
    """The best lie for coflow ``k`` among ``candidates`` (everyone else truthful).

    Returns
    -------
    (truthful progress, best true progress when lying, the best lie)
        A mechanism is manipulable on this input iff the second exceeds the first.
    """
    true = as_correlation_vectors(true)
    honest = outcome(true, true, method, elastic=elastic).progress[k]
    best, arg = None, None
    for lie in candidates:
        p = outcome(true, misreport(true, k, lie), method, elastic=elastic).progress[k]
        if best is None or p > best:
            best, arg = p, list(lie)
    return honest, best, arg


def lie_grid(num_links: int, steps: int = 6, exact: bool = True) -> list[list]:
    """Every vector with entries in ``{0, 1/steps, ..., 1}`` and at least one entry 1 (the
    normalised reports), for exhaustive searches on small examples."""
    from fractions import Fraction
    vals = [Fraction(i, steps) for i in range(steps + 1)]
    out = []
    for v in itertools.product(vals, repeat=num_links):
        if max(v) == 1:
            out.append(list(v) if exact else [float(x) for x in v])
    return out
