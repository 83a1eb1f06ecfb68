"""Every parameter of every registered algorithm (and generator) has a meaning in its docstring.

``coflowopt algorithms NAME`` prints each parameter with the meaning its numpydoc
``Parameters`` section gives (:func:`coflowopt.introspect.parameters`); a parameter without one
is printed bare, which tells a user nothing.  Issue 16 found 56 such parameters.
"""

from __future__ import annotations

import subprocess
import sys

import coflowopt  # noqa: F401  (registers every algorithm)
from coflowopt.introspect import docstring_parameters, parameters
from coflowopt.registry import algorithms


def _undocumented() -> list[str]:
    out = []
    for alg in algorithms():
        for p in parameters(alg.func):
            if not p.get("meaning", "").strip():
                out.append(f"{alg.kind} {alg.name}: {p['name']}")
    return out


def test_every_registered_parameter_has_a_meaning():
    missing = _undocumented()
    assert not missing, "parameters without a meaning in the docstring:\n" + "\n".join(missing)


def test_the_check_can_fail():
    """A function with an undescribed parameter is seen as undescribed."""
    def f(instance, *, alpha: int = 1, beta: float = 2.0):
        """Parameters
        ----------
        instance : Instance
        alpha : int
            The alpha.
        beta : float
        """
    params = {p["name"]: p for p in parameters(f)}
    assert params["alpha"]["meaning"] == "The alpha."
    assert params["beta"]["meaning"] == ""
    assert docstring_parameters(f)["beta"] == {"type": "float", "meaning": ""}


def test_cli_prints_the_meaning():
    """As a user sees it: ``coflowopt algorithms lp-ov`` (an ordering and a bound share the
    name; both are printed with the meaning of ``ports``)."""
    proc = subprocess.run([sys.executable, "-m", "coflowopt", "algorithms", "lp-ov"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("at every port it uses") >= 1
    assert "max_nonzeros" in proc.stdout and "Refuse" in proc.stdout


def test_every_generator_parameter_has_a_meaning():
    """The same for ``coflowopt generate --list`` / ``generate NAME --help``."""
    from coflowopt.generators import GENERATORS
    missing = [f"{name}: {p['name']}" for name, func in GENERATORS.items()
               for p in parameters(func) if not p.get("meaning", "").strip()]
    assert not missing, "generator parameters without a meaning:\n" + "\n".join(missing)
