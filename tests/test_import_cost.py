"""What a command imports: scipy (~0.1 s of process start) only where a sparse matrix is
built, not by listing the algorithms, which imports every module of the registry."""

import subprocess
import sys

_PROBE = ("import contextlib, io, sys\n"
          "from coflowopt.cli import main\n"
          "with contextlib.redirect_stdout(io.StringIO()):\n"
          "    rc = main(['algorithms'])\n"
          "print(rc, 'scipy' in sys.modules)\n")


def _probe(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter (the imports of this one do not count)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_listing_the_algorithms_does_not_import_scipy():
    rc, has_scipy = _probe(_PROBE).split()[-2:]
    assert rc in ("0", "None") and has_scipy == "False"


def test_a_matrix_still_imports_it_where_needed():
    from coflowopt import Coflow, Instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0), (0, 1, 1.0)])])
    assert inst.rho.tolist() == [3.0]
    assert inst.port_loads_sparse.shape == (1, 3)     # 1 ingress + 2 egress ports


_LOOKUP = ("import sys\n"
           "from coflowopt.registry import get_algorithm\n"
           "get_algorithm('ordering', 'sebf'); get_algorithm('rates', 'greedy')\n"
           "print(sorted(p for p in ('policies', 'bounds', 'exact', 'fairness')\n"
           "             if 'coflowopt.' + p in sys.modules))\n"
           "a = get_algorithm('ordering', 'ordering-lp')\n"
           "print(a.func.__module__, 'coflowopt.policies' in sys.modules)\n")


def test_a_lookup_imports_its_kinds_package_and_falls_back_to_all():
    # sebf and greedy live in their kinds' packages: nothing else is imported for them;
    # ordering-lp is registered in coflowopt.formulations, outside its kind's package, and a
    # miss there loads every package, so it is still found
    first, second = _probe(_LOOKUP).strip().splitlines()[-2:]
    assert first == "[]"
    assert second == "coflowopt.formulations.lp_orderings True"
