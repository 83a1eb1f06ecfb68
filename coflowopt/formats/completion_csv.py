"""Per-coflow completion times as CSV: the file users of coflowsim and Sincronia's simulator
expect (one line per coflow: id, release, completion, CCT = completion - release, slowdown =
CCT / OCT).

``coflowopt schedule ... --cct-csv FILE`` writes one algorithm's; ``coflowopt compare ...
--cct-csv FILE`` every compared algorithm's, with an ``algorithm`` column first.  Times are
written with ``repr`` (the shortest string that reads back as the same double), so nothing is
rounded; the slowdown is :func:`coflowopt.slowdown.coflow_slowdown` (Sincronia's CCT/OCT, OCT
the coflow alone in an empty network).

Examples
--------
>>> import io
>>> from coflowopt import Instance, Coflow
>>> inst = Instance.from_coflows([Coflow("A", [(0, 0, 1.0)]), Coflow("B", [(0, 0, 2.0)])])
>>> buf = io.StringIO()
>>> write_completion_csv(buf, inst, {"fifo+greedy": [1.0, 3.0]}, algorithm_column=False)
>>> print(buf.getvalue().strip())
id,release,completion,cct,slowdown
A,0.0,1.0,1.0,1.0
B,0.0,3.0,3.0,1.5
"""

from __future__ import annotations

import csv
from typing import IO, Mapping, Sequence

import numpy as np

__all__ = ["write_completion_csv", "COLUMNS"]

COLUMNS = ("id", "release", "completion", "cct", "slowdown")


def write_completion_csv(path_or_file: str | IO[str], instance,
                         completions: Mapping[str, Sequence[float]], *,
                         algorithm_column: bool = True) -> None:
    """Write per-coflow completion times, one block of ``K`` lines per algorithm.

    Parameters
    ----------
    path_or_file : str or text file
    instance : Instance
    completions : mapping of label -> per-coflow completion times (the verifier's,
        ``VerificationReport.coflow_completion``; floats or Fractions)
    algorithm_column : bool
        Prefix every line with the algorithm's label (needed with more than one algorithm).
    """
    from ..slowdown import coflow_slowdown
    if not algorithm_column and len(completions) > 1:
        raise ValueError("several algorithms need the algorithm column")
    own = isinstance(path_or_file, str)
    fh = open(path_or_file, "w", newline="") if own else path_or_file
    try:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow((("algorithm",) if algorithm_column else ()) + COLUMNS)
        release = instance.release.astype(float)
        for label, cc in completions.items():
            c = np.array([float(x) for x in cc], dtype=float)
            slow = coflow_slowdown(instance, c)
            for k in range(instance.num_coflows):
                row = [instance.coflow_ids[k], repr(float(release[k])), repr(float(c[k])),
                       repr(float(c[k] - release[k])), repr(float(slow[k]))]
                w.writerow(([label] if algorithm_column else []) + row)
    finally:
        if own:
            fh.close()
