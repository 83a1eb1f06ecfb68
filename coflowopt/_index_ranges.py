"""Vectorised index ranges over CSR-style data: the one home of the ``repeat``/``cumsum`` idiom.

Flows of a coflow, resources of a flow's path, members of a group and slots of a piece are all
stored as consecutive ranges of one array addressed by a pointer array (``ptr[i]`` to
``ptr[i + 1]``).  Gathering many ranges at once without a Python loop is the same two lines
everywhere; they live here so that every caller reads the same thing.

This module imports only numpy, so the lowest-level modules (``simulate``, ``schedule``) can use
it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["run_offsets", "concat_ranges"]


def run_offsets(lengths) -> np.ndarray:
    """Position of every element within its run: ``0..l_0-1, 0..l_1-1, ...``.

    Parameters
    ----------
    lengths : array_like of int
        Run lengths, each ``>= 0``.

    Returns
    -------
    numpy.ndarray of int64, length ``sum(lengths)``.

    Examples
    --------
    >>> run_offsets([2, 0, 3]).tolist()
    [0, 1, 0, 1, 2]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    return (np.arange(int(lengths.sum()), dtype=np.int64)
            - np.repeat(np.cumsum(lengths) - lengths, lengths))


def concat_ranges(starts, lengths) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for every pair ``(s, l)``, vectorised.

    With ``starts = ptr[rows]`` and ``lengths = ptr[rows + 1] - ptr[rows]`` this is the index of
    every entry of the selected CSR rows, row after row.

    Parameters
    ----------
    starts : array_like of int
        First index of each range.
    lengths : array_like of int
        Length of each range, ``>= 0``.

    Returns
    -------
    numpy.ndarray of int64, length ``sum(lengths)``.

    Examples
    --------
    >>> concat_ranges([10, 3, 7], [2, 0, 3]).tolist()
    [10, 11, 7, 8, 9]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    return np.repeat(np.asarray(starts, dtype=np.int64), lengths) + run_offsets(lengths)
