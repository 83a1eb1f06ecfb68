"""What a command imports: scipy (~0.1 s of process start) only where a sparse matrix is
built, not by listing the algorithms, which imports every module of the registry."""

import subprocess
import sys

_PROBE = ("import contextlib, io, sys\n"
          "from coflowopt.cli import main\n"
          "with contextlib.redirect_stdout(io.StringIO()):\n"
          "    rc = main(['algorithms'])\n"
          "print(rc, 'scipy' in sys.modules)\n")


def test_listing_the_algorithms_does_not_import_scipy():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    rc, has_scipy = out.stdout.split()[-2:]
    assert rc in ("0", "None") and has_scipy == "False"


def test_a_matrix_still_imports_it_where_needed():
    from coflowopt import Coflow, Instance
    inst = Instance.from_coflows([Coflow("A", [(0, 0, 2.0), (0, 1, 1.0)])])
    assert inst.rho.tolist() == [3.0]
    assert inst.port_loads_sparse.shape == (1, 3)     # 1 ingress + 2 egress ports
