"""``Instance.port_loads_sparse``: its dense count for integral sizes is scipy's matrix, bit for
bit (the integral-size path of ``coflowopt/instance.py`` says why it exists)."""

import numpy as np
import pytest
import scipy.sparse as sp

from coflowopt import Coflow, Instance
from coflowopt.generators import uniform_random
from coflowopt.topology import fat_tree, leaf_spine, on_topology


def scipy_loads(inst):
    """The matrix as scipy builds it: duplicates summed after sorting each row."""
    rows = np.repeat(inst.flow_coflow, np.diff(inst.flow_resource_ptr))
    m = sp.csr_matrix((np.repeat(inst.flow_size, np.diff(inst.flow_resource_ptr)),
                       (rows, inst.flow_resource)), shape=(inst.num_coflows, inst.num_ports))
    m.sum_duplicates()
    return m


def same(a, b):
    return (a.shape == b.shape and a.indices.dtype == b.indices.dtype
            and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and a.data.tobytes() == b.data.tobytes() and b.has_canonical_format)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("where", ["big-switch", "fat-tree", "leaf-spine"])
def test_loads_are_scipys_bit_for_bit(seed, where):
    inst = uniform_random(num_ports=16, num_coflows=40, seed=seed)
    if where == "fat-tree":
        inst = on_topology(inst, fat_tree(4), routing="ecmp", seed=seed)
    elif where == "leaf-spine":
        inst = on_topology(inst, leaf_spine(4, 2, 4, oversubscription=2), routing="ecmp",
                           seed=seed)
    assert np.array_equal(inst.flow_size, np.floor(inst.flow_size))   # the dense path
    assert same(scipy_loads(inst), inst.port_loads_sparse)


def test_fractional_sizes_take_scipys_path_and_sum_every_duplicate():
    inst = Instance.from_coflows([Coflow("A", [(0, 1, 0.1), (0, 1, 0.2), (1, 1, 0.3)]),
                                  Coflow("B", [(1, 0, 2.5)])])
    m = inst.port_loads_sparse
    assert same(scipy_loads(inst), m)
    # ingress 0: 0.1 + 0.2; ingress 1: 0.3 (A), 2.5 (B); egress 1 (resource 3): 0.6
    assert m.toarray().tolist() == [[0.1 + 0.2, 0.3, 0.0, 0.1 + 0.2 + 0.3],
                                    [0.0, 2.5, 2.5, 0.0]]


def test_integral_sizes_hand_checked():
    inst = Instance.from_coflows([Coflow("A", [(0, 1, 1), (0, 1, 2), (1, 0, 4)]),
                                  Coflow("B", [(1, 1, 8)])])
    assert inst.port_loads_sparse.toarray().tolist() == [[3.0, 4.0, 4.0, 3.0],
                                                          [0.0, 8.0, 0.0, 8.0]]
