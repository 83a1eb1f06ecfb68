"""The one text-table printer of coflowopt (plain text or GitHub Markdown).

Every command and report that prints a table goes through :func:`format_table`, so alignment,
the rule under the header, and how a number, ``None`` or a bool is written are decided once.

Examples
--------
>>> print(format_table(["algorithm", "value"], [["bssi+greedy", 33.0], ["sebf+madd", None]]))
algorithm      value
-----------  -------
bssi+greedy  33.0000
sebf+madd          -
>>> print(format_table(["a", "b"], [["x", 1]], markdown=True))
| a | b |
| --- | ---: |
| x | 1 |
"""

from __future__ import annotations

import math
from typing import Any, Sequence

__all__ = ["format_table", "cell"]


def cell(x: Any) -> str:
    """How a table writes a value: ``None`` as ``-``, bools as yes/no, floats with 4 decimals
    (4 significant digits from 1e4 on), anything else with ``str``."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return f"{x:.4f}" if abs(x) < 1e4 else f"{x:.4g}"
    return str(x)


def format_table(head: Sequence[str], body: Sequence[Sequence[Any]],
                 left: Sequence[int] = (0,), markdown: bool = False, *,
                 rule: bool = True) -> str:
    """A plain-text table; columns in ``left`` are left-aligned, the others right-aligned.

    Parameters
    ----------
    head : sequence of str
    body : sequence of rows (values written by :func:`cell`)
    left : sequence of int
        Left-aligned columns (default: the first).
    markdown : bool
        A GitHub-flavoured Markdown table instead (right-aligned columns marked ``---:``).
    rule : bool
        The dashes under the header (plain text only).
    """
    cells = [[cell(c) for c in row] for row in body]
    if markdown:
        marks = ["---" if i in left else "---:" for i in range(len(head))]
        return "\n".join("| " + " | ".join(r) + " |" for r in [list(head), marks] + cells)
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:{'<' if i in left else '>'}{w}}}" for i, w in enumerate(widths))
    lines = [fmt.format(*head)] + (["  ".join("-" * w for w in widths)] if rule else [])
    lines += [fmt.format(*r) for r in cells]
    return "\n".join(line.rstrip() for line in lines)
