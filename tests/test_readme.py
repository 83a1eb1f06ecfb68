"""The README opens with the two commands a new user runs, and .ci/run runs the second."""

import re

from conftest import REPO


def readme_commands():
    text = (REPO / "README.md").read_text()
    return re.findall(r"```(?:bash|sh)\n(.*?)\n```", text, flags=re.S)[:2]


def test_readme_starts_with_install_demo_and_install_test_commands():
    demo, tests = readme_commands()
    assert "pip install" in demo and demo.rstrip().endswith("coflowopt demo")
    assert "pip install" in tests and "pytest" in tests


def test_ci_runs_exactly_the_readme_test_command():
    _, tests = readme_commands()
    ci = [ln for ln in (REPO / ".ci" / "run").read_text().splitlines()
          if ln.strip() and not ln.startswith("#") and not ln.startswith(("set ", "cd "))]
    assert ci == [tests.strip()]
