"""Port loads, ``rho``, ``bottleneck_port`` and BSSI's processing times computed without
importing scipy.sparse (``Instance._port_loads_csr`` / ``_port_times``) are what scipy.sparse
computed, bit for bit: the loads as ``csr_matrix((d, (k, p))).sum_duplicates()`` (whose sums
follow libstdc++'s unstable sort above 16 entries a row, so fractional sizes need scipy's own
order), the rest as ``loads @ diags(1 / capacity)`` with its max, argmax and sorted COO."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, strategies as st

from coflowopt import Coflow, Instance, instance as instance_module
from coflowopt.formats import read_instance
from coflowopt.orderings.bssi import bssi, processing_times
from coflowopt.rates.greedy import greedy
from coflowopt.topology import fat_tree, on_topology
from coflowopt.verify import verify_schedule


def scipy_reference(inst):
    """The loads, rho, bottleneck and processing-time entries as scipy.sparse computes them
    (the expressions coflowopt used before, restated)."""
    K, P = inst.num_coflows, inst.num_ports
    if inst.is_big_switch:   # every flow's ingress, then every flow's egress
        rows = np.concatenate([inst.flow_coflow, inst.flow_coflow])
        cols = np.concatenate([inst.flow_src, inst.num_ingress + inst.flow_dst])
        vals = np.concatenate([inst.flow_size, inst.flow_size])
    else:
        n = np.diff(inst.flow_resource_ptr)
        rows, cols, vals = (np.repeat(inst.flow_coflow, n), inst.flow_resource,
                            np.repeat(inst.flow_size, n))
    loads = sp.csr_matrix((vals, (rows, cols)), shape=(K, P))
    loads.sum_duplicates()
    scaled = loads @ sp.diags(1.0 / inst.capacity)
    rho = np.asarray(scaled.max(axis=1).todense()).ravel()
    bott = np.asarray(scaled.argmax(axis=1)).ravel()
    m = scaled.tocsr()
    m.sort_indices()
    coo = m.tocoo()
    return loads, rho, bott, (coo.row, coo.col, coo.data)


def assert_scipys(inst):
    loads, rho, bott, (r, c, v) = scipy_reference(inst)
    indptr, indices, data = inst._port_loads_csr
    assert np.array_equal(indptr, loads.indptr) and np.array_equal(indices, loads.indices)
    assert data.tobytes() == loads.data.tobytes()
    mine = inst.port_loads_sparse
    assert mine.data.tobytes() == loads.data.tobytes() and mine.has_canonical_format
    assert np.array_equal(inst.port_loads, loads.toarray())
    assert inst.rho.tobytes() == rho.tobytes()
    assert inst.bottleneck_port.tolist() == bott.tolist()
    row, col, t = inst._port_times
    assert row.tolist() == r.tolist() and col.tolist() == c.tolist()
    assert t.tobytes() == v.tobytes()
    pt = processing_times(inst)
    assert pt.toarray().tobytes() == (loads @ sp.diags(1.0 / inst.capacity)).toarray().tobytes()


@st.composite
def wide_instances(draw):
    """Coflows of up to 60 flows on a few ports (rows far above 16 entries, many duplicate
    (coflow, port) pairs), fractional sizes from a small set (ties between ports) or any,
    capacities 1, 2 or 3."""
    m_in, m_out = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    pool = draw(st.sampled_from([[0.1, 0.2, 0.3, 0.7], [1 / 3, 2 / 3, 1.0], None]))
    size = (st.sampled_from(pool) if pool else
            st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False))
    coflows = []
    for k in range(draw(st.integers(1, 6))):
        flows = draw(st.lists(st.tuples(st.integers(0, m_in - 1), st.integers(0, m_out - 1),
                                        size), min_size=1, max_size=60))
        coflows.append(Coflow(f"c{k}", flows))
    cap = st.sampled_from([1.0, 2.0, 3.0])
    return Instance.from_coflows(coflows, ingress_capacity=[draw(cap) for _ in range(m_in)],
                                 egress_capacity=[draw(cap) for _ in range(m_out)])


@given(wide_instances())
def test_big_switch_is_scipys_bit_for_bit(inst):
    assert_scipys(inst)


@given(wide_instances(), st.integers(0, 3))
def test_topology_is_scipys_bit_for_bit(inst, seed):
    # the ports go to the k=4 fat-tree's 16 hosts by index; paths of 2 to 6 links
    assert_scipys(on_topology(inst, fat_tree(4), routing="ecmp", seed=seed))


@given(wide_instances())
def test_scipy_sparse_fallback_is_the_same(inst):
    # where scipy's compiled routines cannot be loaded from their file, scipy.sparse does it
    ref = scipy_reference(inst)[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(instance_module, "_sparsetools", lambda: None)
        indptr, indices, data = inst._port_loads_csr      # inst is fresh: nothing cached
    assert np.array_equal(indptr, ref.indptr) and np.array_equal(indices, ref.indices)
    assert data.tobytes() == ref.data.tobytes()


def test_fractional_rows_need_scipys_order():
    """Why the loads are not a numpy sum in the flows' order: above 16 entries a row, scipy's
    sums follow std::sort's unstable order, and with fractional sizes some sums differ in the
    last bit from the flows' order.  This instance has such a sum; the loads stay scipy's."""
    rng = np.random.default_rng(3)
    flows = [(0, int(j), float(s)) for j, s in zip(rng.integers(0, 3, 40),
                                                    rng.uniform(0.1, 10.0, 40))]
    inst = Instance.from_coflows([Coflow("A", flows)], ingress_capacity=[1.0],
                                 egress_capacity=[1.0] * 3)
    in_flow_order = sum(inst.flow_size.tolist())            # ingress 0 holds every flow
    loads = scipy_reference(inst)[0]
    assert loads[0, 0] != in_flow_order                     # the case exists
    assert inst._port_loads_csr[2][0] == loads[0, 0]
    assert_scipys(inst)


def test_fb_trace_is_scipys_and_bssi_orders_it(fb_trace_path):
    inst = read_instance(fb_trace_path)
    assert_scipys(inst)
    zero = inst.with_releases(np.zeros(inst.num_coflows))
    order = bssi(zero)
    assert sorted(order.tolist()) == list(range(inst.num_coflows))
    rep = verify_schedule(zero, greedy(zero, order))
    assert rep.ok


_PROBE = """
import contextlib, io, sys
from coflowopt.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main(sys.argv[1:])
print(rc, 'scipy.sparse' in sys.modules)
"""


@pytest.mark.parametrize("workload", [["--order", "bssi", "--rates", "greedy", "--zero-release"],
                                      ["--order", "sebf", "--rates", "madd"]])
def test_schedule_commands_do_not_import_scipy(tmp_path, workload):
    trace = tmp_path / "t.txt"
    # fractional per-flow sizes (MB / 3 mappers), a coflow of 3 x 7 flows (rows above 16)
    trace.write_text("8 2\n1 0 3 0 1 2 7 1:1.0 2:2.0 3:5.0 4:7.0 5:1.0 6:3.0 7:2.0\n"
                     "2 5 2 3 4 2 0:4.0 1:1.0\n")
    out = subprocess.run([sys.executable, "-c", _PROBE, "schedule", str(trace), *workload,
                          "--json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    # scipy.sparse, not scipy: numba's JIT (this probe does not load the ahead-of-time
    # kernels) imports scipy's top level itself
    assert out.stdout.split()[-2:] == ["0", "False"]
