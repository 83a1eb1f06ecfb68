"""proofs/: every document is indexed in proofs/README.md with an executable check, and a fast
numerical check of each claim (or a pointer to the existing test that runs it).

The index table (section "Index" of proofs/README.md) has one row per claim:
``| claim | document | executable check | status | search found |``.  Checks are backticked
``tests/<file>.py::<test>`` ids (the test must exist) or commands (``coflowopt ...``,
``python -m <module>``, ``python <script>``; the module or script must exist).
"""

from __future__ import annotations

import importlib.util
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from coflowopt.adversarial import families as fam
from coflowopt.api import run_schedule
from coflowopt.orderings.bssi import bssi_dual_bound
from coflowopt.registry import get_algorithm
from coflowopt.testing import _ordered_loads, random_instance
from coflowopt.verify import verify_schedule

ROOT = Path(__file__).resolve().parents[1]
PROOFS = ROOT / "proofs"
STATUSES = {"proved here", "cited", "checked numerically", "open"}


def _index_rows() -> list[list[str]]:
    text = (PROOFS / "README.md").read_text(encoding="utf-8")
    section = text.split("## Index", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("|") or set(line) <= {"|", "-", " "}:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "claim":
            continue
        rows.append(cells)
    return rows


ROWS = _index_rows()


def test_index_has_rows_with_five_columns():
    assert ROWS and all(len(r) == 5 for r in ROWS), [r for r in ROWS if len(r) != 5]


def test_every_document_is_indexed():
    docs = {p.name for p in PROOFS.glob("*.md") if p.name != "README.md"}
    indexed = set()
    for r in ROWS:
        indexed |= set(re.findall(r"([\w.-]+\.md)", r[1]))
    assert docs <= indexed, f"not indexed: {sorted(docs - indexed)}"
    assert indexed <= docs, f"indexed but missing: {sorted(indexed - docs)}"


def _check_exists(ref: str) -> bool:
    if "::" in ref:
        path, name = ref.split("::", 1)
        f = ROOT / path
        return f.is_file() and re.search(rf"^def {re.escape(name)}\b", f.read_text(),
                                         re.M) is not None
    if ref.startswith("coflowopt."):                  # a function of the package
        mod, _, attr = ref.rpartition(".")
        spec = importlib.util.find_spec(mod)
        return spec is not None and hasattr(importlib.import_module(mod), attr)
    parts = ref.split()
    if parts[:2] == ["python", "-m"]:
        return importlib.util.find_spec(parts[2]) is not None
    if parts[0] == "python":
        return (ROOT / parts[1]).is_file()
    if parts[0] == "coflowopt":
        from coflowopt.cli import build_parser
        sub = build_parser()._subparsers._group_actions[0].choices
        return parts[1] in sub
    return False


def test_every_row_names_existing_checks_and_a_status():
    for r in ROWS:
        refs = re.findall(r"`([^`]+)`", r[2])
        assert refs, f"no executable check for {r[0]!r}"
        for ref in refs:
            assert _check_exists(ref), f"{r[0]!r}: check {ref!r} does not exist"
        assert r[3] in STATUSES, f"{r[0]!r}: status {r[3]!r} not in {sorted(STATUSES)}"


def test_every_document_names_its_checks():
    for p in PROOFS.glob("*.md"):
        if p.name == "README.md":
            continue
        text = p.read_text(encoding="utf-8")
        assert re.search(r"Checked by|What the tests check", text), p.name
        for ref in re.findall(r"`(tests/[\w/]+\.py::\w+)`", text):
            assert _check_exists(ref), f"{p.name}: {ref} does not exist"


# ------------------------------------------------------------------ numerical checks
def _instances(n, *, releases=False, seed=0):
    rng = np.random.default_rng(seed)
    return [random_instance(rng, max_ports=3, max_coflows=6, max_flows=3, releases=releases,
                            weights=True, heterogeneous=bool(i % 3 == 0)) for i in range(n)]


def test_lemma5_bssi_load_sum_at_most_twice_its_dual():
    """proofs/bssi-ordering-lp-2-approx.md: sum_k w_k L_k <= 2 LB (zero releases)."""
    for inst in _instances(150, seed=1):
        lb = bssi_dual_bound(inst)
        lhs = float(np.sum(inst.weight[lb.order] * lb.load))
        assert lhs <= 2 * float(lb.value_exact) * (1 + 1e-9) + 1e-12


def test_lemma2_release_sum_at_most_five_times_its_dual():
    """proofs/bssi-ordering-lp-2-approx.md: sum_k w_k (max_{j<=k} r_j + 2 L_k) <= 5 LB."""
    for inst in _instances(150, releases=True, seed=2):
        lb = bssi_dual_bound(inst)
        r = np.maximum.accumulate(inst.release[lb.order])
        lhs = float(np.sum(inst.weight[lb.order] * (r + 2 * lb.load)))
        assert lhs <= 5 * float(lb.value_exact) * (1 + 1e-9) + 1e-12


def test_lemma3_release_plus_twice_ordered_load():
    """proofs/ordered-load-lemma3.md: greedy, random orders and releases:
    C_{sigma(k)} <= r_{sigma(k)} + 2 L_k (the printed form, stronger than max_{j<=k} r_j)."""
    rng = np.random.default_rng(3)
    greedy = get_algorithm("rates", "greedy").func
    for inst in _instances(150, releases=True, seed=3):
        order = rng.permutation(inst.num_coflows)
        sched = greedy(inst, order)
        rep = verify_schedule(inst, sched)
        assert rep.ok
        assert fam.prefix_maximal(inst, sched, order)
        cc = np.asarray(rep.coflow_completion, dtype=float)[order]
        bound = inst.release[order] + 2 * _ordered_loads(inst, order)
        assert np.all(cc <= bound * (1 + 1e-9) + 1e-9)


def test_theorem1_bssi_greedy_within_four_of_its_dual():
    """proofs/sincronia-4-and-5-approximation.md, statement 1."""
    for inst in _instances(100, seed=4):
        res = run_schedule(inst, "bssi", "greedy")
        assert res.kind == "feasible"
        assert float(res.value) <= 4 * float(bssi_dual_bound(inst).value_exact) * (1 + 1e-9)


def test_release_version_within_five_of_opt():
    """proofs/sincronia-4-and-5-approximation.md, statement 2: <= 5 LB_BSSI on random
    instances with releases, and <= 5 OPT against bnb's proven optimum on small ones."""
    from coflowopt.exact import bnb
    for i, inst in enumerate(_instances(100, releases=True, seed=5)):
        res = run_schedule(inst, "bssi", "greedy")
        lb = float(bssi_dual_bound(inst).value_exact)
        assert float(res.value) <= 5 * lb * (1 + 1e-9)
        if i < 10:
            opt = bnb(inst, time_limit=20)
            assert opt.kind == "optimal" and float(res.value) <= 5 * float(opt.value)


def _topology_instances(n, *, releases=False, seed=0):
    """Random host-to-host instances placed at random on fat_tree(4) or a 2x2 leaf-spine at
    oversubscription 2 or 4 (ECMP), paths of 2 to 4 resources."""
    from coflowopt import generators
    from coflowopt.topology import fat_tree, leaf_spine, on_topology
    topos = [fat_tree(4), leaf_spine(2, 2, 4, oversubscription=2),
             leaf_spine(2, 2, 4, oversubscription=4)]
    out = []
    for i in range(n):
        base = generators.uniform_random(8, 2 + i % 5, seed=seed * 1000 + i,
                                         releases=(0, 5) if releases else None,
                                         weights=(1, 5))
        out.append(on_topology(base, topos[i % 3], seed=i, placement="random",
                               placement_seed=i))
    return out


def test_resource_lemma3_sum_over_the_path():
    """proofs/resource-model-guarantees.md, statement 1: greedy, random orders and releases,
    every flow f of sigma(k): C_f <= r_k + sum over f's path of the ordered loads, exactly."""
    from coflowopt.orderings.bssi import processing_times
    rng = np.random.default_rng(7)
    greedy = get_algorithm("rates", "greedy").func
    for inst in _topology_instances(40, releases=True, seed=7):
        order = rng.permutation(inst.num_coflows)
        rep = verify_schedule(inst, greedy(inst, order))
        assert rep.ok
        K, R = inst.num_coflows, inst.num_resources
        pos = np.empty(K, dtype=np.int64)
        pos[order] = np.arange(K)
        prefix = [[Fraction(0)] * R for _ in range(K)]
        for (k, r), v in processing_times(inst, exact=True).items():
            prefix[pos[k]][r] += v
        for k in range(1, K):
            prefix[k] = [a + b for a, b in zip(prefix[k - 1], prefix[k])]
        ptr, res = inst.flow_resource_ptr, inst.flow_resource
        for f in range(inst.num_flows):
            k = int(inst.flow_coflow[f])
            bound = Fraction(inst.release[k]) + sum(prefix[pos[k]][r]
                                                    for r in res[ptr[f]:ptr[f + 1]].tolist())
            assert rep.flow_completion[f] <= float(bound) * (1 + 1e-9) + 1e-12


def test_resource_release_version_within_its_factor():
    """proofs/resource-model-guarantees.md, statements 2 and 3: BSSI (Algorithm 3) + greedy
    within 2L LB_BSSI without releases and 5 max(1, L/2) LB_BSSI with them; Lemma 2 holds on
    the resources (machine-agnostic)."""
    for releases in (False, True):
        for inst in _topology_instances(30, releases=releases, seed=8):
            L = inst.max_path_length
            lb = bssi_dual_bound(inst)
            r = np.maximum.accumulate(inst.release[lb.order])
            lhs = float(np.sum(inst.weight[lb.order] * (r + 2 * lb.load)))
            assert lhs <= 5 * float(lb.value_exact) * (1 + 1e-9) + 1e-12
            res = run_schedule(inst, "bssi", "greedy")
            assert res.kind == "feasible"
            factor = 5 * max(1, L / 2) if releases else 2 * L
            assert float(res.value) <= factor * float(lb.value_exact) * (1 + 1e-9)


def test_theorem2_upper_bound_on_random_orders():
    """proofs/theorem2-order-preserving-tight.md: C_{sigma(k)} <= 2 L_k (zero releases), so
    every prefix-maximal schedule is within 2 of OPT(A(sigma)) >= sum w_k L_k."""
    rng = np.random.default_rng(6)
    greedy = get_algorithm("rates", "greedy").func
    for inst in _instances(100, seed=6):
        order = rng.permutation(inst.num_coflows)
        rep = verify_schedule(inst, greedy(inst, order))
        loads = _ordered_loads(inst, order)
        alg = float(np.sum(inst.weight[order] *
                           np.asarray(rep.coflow_completion, dtype=float)[order]))
        assert alg <= 2 * float(np.sum(inst.weight[order] * loads)) * (1 + 1e-9)


@pytest.mark.parametrize("tau", [3, 5])
def test_theorem2_tight_instance(tau):
    """proofs/theorem2-order-preserving-tight.md: the printed costs."""
    r = fam.check_theorem2(tau)
    assert (r["good"], r["poor"]) == ((1 + tau) ** 2, tau + 2 * tau ** 2)


@pytest.mark.parametrize("t, N", [(2, 1), (3, 2), (4, 1), (4, 2)])
def test_fig4_closed_form_optimum_against_bnb(t, N):
    """proofs/sincronia-fig4-sebf-unbounded.md, statements 1 and 2."""
    r = fam.check_sincronia_fig4(t, N, exact_opt=True, algorithms=("sebf+greedy",))
    assert r["opt_bnb"] == fam.fig4_closed_forms(t, N)["opt"]


def test_claim1_family():
    """proofs/claim1-nonpreemptive-unbounded.md."""
    r = fam.check_claim1(3)
    assert r["np_schedules"] == 6 and r["ratio"] == 2


def test_permutation_family():
    """proofs/permutation-schedules-not-optimal.md (closed forms, n = 2..5)."""
    for n in range(2, 6):
        r = fam.check_permutation(n, exact_opt=n <= 3)
        assert r["ratio"] == Fraction(3 * n - 1, 2 * n)


@pytest.mark.parametrize("n, k", [(5, 2), (6, 3)])
def test_open_shop_gap_family(n, k):
    """proofs/open-shop-lp-gap.md."""
    r = fam.check_open_shop_gap(n, k, bounds=("bssi-dual", "ordering-lp"))
    assert r["opt_bnb"] == r["opt"]
    assert r["bounds"]["ordering-lp"]["gap"] == pytest.approx(float(r["opt"] / r["lp"]))


def test_drf_family():
    """proofs/drf-vanishing-utilisation.md."""
    assert fam.check_drf(100, N=4, eps=Fraction(1, 1000))["drf"] == \
        (1 + 99 * Fraction(1, 1000)) / 100


def test_bounds_below_proven_optima():
    """The validity documents (isolated, port, bssi-dual, ordering LP, interval LP, LP-OV):
    every certified bound <= bnb's proven optimum on random instances with releases."""
    from coflowopt.exact import bnb
    names = ("isolated", "port", "bssi-dual", "ordering-lp", "interval-lp", "lp-ov")
    for inst in _instances(12, releases=True, seed=7):
        opt = bnb(inst, time_limit=20)
        assert opt.kind == "optimal"
        for name in names:
            v = get_algorithm("bound", name).func(inst).value
            assert float(v) <= float(opt.value) * (1 + 1e-9) + 1e-9, name


# ------------------------------------------------------------------ search results
ADVERSARIAL = [n for n in __import__("coflowopt.library", fromlist=["list_instances"])
               .list_instances() if n.startswith("adversarial/")]


def test_no_search_placeholder_is_left():
    """Every "search found" cell and section holds a result, not a placeholder."""
    for p in PROOFS.glob("*.md"):
        text = p.read_text(encoding="utf-8")
        assert "SEARCH:" not in text and "SEARCH-RESULTS" not in text, p.name
        for m in re.finditer(r"<!-- search:\w+ -->\n(.*)", text):
            assert m.group(1).strip(), f"{p.name}: empty search section"


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_claims_hold_on_stored_adversarial_instances(name):
    """Lemma 5, Lemma 3, Theorem 2's bound and Theorem 1 on the instances the search found
    (coflowopt.adversarial.claims; the values are quoted in the proof documents)."""
    from coflowopt.adversarial import load_search_record
    from coflowopt.adversarial.claims import claim_quantities
    from coflowopt.library import load_instance
    rec = load_search_record(name)
    algo = rec["settings"]["algorithm"]
    orders = ("bssi",) + ((algo.split("+")[0],) if "+" in algo else ())
    q = claim_quantities(load_instance(name), orders=orders,
                         opt=Fraction(rec["opt"]["value_exact"]))
    assert q["holds"], q
    assert q["theorem1_bssi_greedy_over_opt"] <= 4
