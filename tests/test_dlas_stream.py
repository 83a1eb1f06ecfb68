"""``decentralized-las`` handed over window by window (``decentralized_las_windows``: the
compiled event loop's sink mode, the generic simulator's for ``within="fifo"`` and aging;
``run_schedule(..., keep_schedule=False)`` and the CLI without ``--out``) against the held
schedule of :func:`decentralized_las`: the windows, glued at their cuts, are the held pieces
(rates included, but for flows counted ``unsettled``), and the verifier gives both the same
verdict, completion times and value, to the last bit."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from coflowopt.exceptions import InvalidParameterError
from coflowopt.policies.mlfq import decentralized_las, decentralized_las_windows
from coflowopt.testing import random_instance
from coflowopt.topology import fat_tree, on_topology
from test_aalo_stream import glues_into_held, streamed_run_is_held
from test_madd_stream import settling_instances, small_instances

PARAMS = ({}, {"thresholds": [0.5, 2.0]}, {"thresholds": [1.0], "within": "fifo"},
          {"thresholds": [1.0, 3.0], "aging": 5.0})


def instances():
    bs = random_instance(np.random.default_rng(9), max_ports=8, max_coflows=10, max_flows=5,
                         releases=True, weights=True)
    return small_instances() + [on_topology(bs, fat_tree(4), seed=1)]


def glue_sweep(held_of, windows_of, insts, params_list):
    """Every instance x parameter set x window of 1 / 3 / 10^6 pieces: the windows of
    ``windows_of`` glue into the held schedule of ``held_of`` with the same events; some
    pieces are cut, some flows settled."""
    totals = {"settled": 0, "cut": 0, "windows": 0}
    for inst in insts:
        for params in params_list:
            held = held_of(inst, **params)
            for window in (1, 3, 10**6):
                stats, cut = glues_into_held(
                    inst, held, functools.partial(windows_of, **params), window)
                assert stats["events"] == held.meta["events"]
                assert stats["class_changes"] == held.meta["class_changes"]
                totals["cut"] += cut
                totals["windows"] += stats["windows"]
                totals["settled"] += stats["settled"]
    assert totals["cut"] > 0 and totals["windows"] > 3 * len(insts)
    assert totals["settled"] > 0


def test_windows_glue_into_the_held_schedule():
    glue_sweep(decentralized_las, decentralized_las_windows, instances(), PARAMS)


def test_run_schedule_streamed_gives_the_held_result():
    streamed_run_is_held("decentralized-las", small_instances()[:3] + settling_instances())


def test_a_window_of_no_pieces_is_refused():
    with pytest.raises(InvalidParameterError, match="window"):
        decentralized_las_windows(small_instances()[0], lambda s, a, b: None, window=0)
