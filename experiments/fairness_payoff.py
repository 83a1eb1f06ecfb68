"""Strategy-proofness of HUG: the payoff matrix of Fig. 7.5 and a search over misreports.

Reproduces, in exact arithmetic, the prisoner's dilemma of Chowdhury's dissertation (Sec. 7.4.3,
Fig. 7.5): two coflows on two unit links, d_A = <1/2, 1>, d_B = <1, 1/6>, each of which may report
<1, 1>.  Under *naive work conservation* (DRF, then all of a link's spare to the highest reported
demand) lying pays and both end worse off; under HUG (Algorithm 6) lying never lifts the liar
above its truthful 2/3.  With inelastic demands (Sec. 7.4.4, Fig. 7.6) the same lies change the
utilisation to 47/24 (A lies), 13/8 (B lies) and 4/3 (both) from 16/9.

Every printed number is checked against the dissertation (``ok`` / ``MISMATCH``).

Run: ``python experiments/fairness_payoff.py``
"""

from __future__ import annotations

from fractions import Fraction as F

from coflowopt.fairness import best_misreport, lie_grid, payoff_matrix

TRUE = [[F(1, 2), 1], [1, F(1, 6)]]
LIES = {0: [1, 1], 1: [1, 1]}

#: Fig. 7.5 [TEXT Sec. 7.4.3]: (P_A, P_B) for (A lies, B lies).
EXPECTED_NAIVE = {(False, False): (F(2, 3), F(2, 3)), (True, False): (F(11, 12), F(1, 2)),
                  (False, True): (F(1, 2), F(3, 4)), (True, True): (F(1, 2), F(1, 2))}
#: Sec. 7.4.4 [DERIV from the printed consumptions]: utilisation with inelastic demands.
EXPECTED_INELASTIC_UTIL = {(False, False): F(16, 9), (True, False): F(47, 24),
                           (False, True): F(13, 8), (True, True): F(4, 3)}


def _check(got, want) -> str:
    return "ok" if got == want else f"MISMATCH (dissertation: {want})"


def _matrix_block(title: str, method: str, elastic: bool, expected=None, util=None) -> list[str]:
    m = payoff_matrix(TRUE, LIES, method, elastic=elastic)
    out = [title, m.table()]
    for key, cell in m.cells.items():
        who = {(False, False): "truthful", (True, False): "A lies", (False, True): "B lies",
               (True, True): "both lie"}[key]
        line = (f"  {who:9s} progress ({', '.join(str(p) for p in cell.progress)})  "
                f"utilisation {cell.utilisation}")
        if expected is not None:
            line += f"  [progress {_check(tuple(cell.progress), expected[key])}]"
        if util is not None:
            line += f"  [utilisation {_check(cell.utilisation, util[key])}]"
        out.append(line)
    return out + [""]


def report() -> str:
    """The whole experiment as text."""
    lines = ["True vectors: d_A = <1/2, 1>, d_B = <1, 1/6> (two unit links); lie: <1, 1>", ""]
    lines += _matrix_block("Naive work conservation, elastic demands (Fig. 7.5)", "naive-wc",
                           True, expected=EXPECTED_NAIVE)
    lines += _matrix_block("Naive work conservation, inelastic demands (Fig. 7.6)", "naive-wc",
                           False, expected=EXPECTED_NAIVE, util=EXPECTED_INELASTIC_UTIL)
    lines += _matrix_block("HUG (Algorithm 6), elastic demands", "hug", True)
    lines += _matrix_block("HUG (Algorithm 6), inelastic demands", "hug", False)
    grid = lie_grid(2, 12)
    lines.append(f"Best misreport over all {len(grid)} normalised reports on a 1/12 grid "
                 "(true progress of the liar):")
    lines.append(f"  {'mechanism':22s} {'coflow':6s} {'truthful':9s} {'best lie':9s} report")
    # cooperative HUG drops the Stage-2 cap: it is not meant to be strategyproof (Sec. 7.5.3)
    for method in ("naive-wc", "hug", "drf", "hug-cooperative"):
        for k, name in ((0, "A"), (1, "B")):
            honest, best, lie = best_misreport(TRUE, k, grid, method)
            gain = "  <- lying pays" if best > honest else ""
            lines.append(f"  {method:22s} {name:6s} {str(honest):9s} {str(best):9s} "
                         f"<{', '.join(str(x) for x in lie)}>{gain}")
    lines.append("")
    lines.append("App. D.2 with C_C = <1, 0> added: spare-division policies (true progress of "
                 "C_A, truthful vs best lie)")
    toy3 = TRUE + [[1, 0]]
    grid10 = lie_grid(2, 10)
    for method in ("drf+least-demand", "drf+highest-demand", "drf+equal", "drf+proportional",
                   "hug"):
        honest, best, lie = best_misreport(toy3, 0, grid10, method)
        gain = "  <- lying pays" if best > honest else ""
        lines.append(f"  {method:22s} {str(honest):6s} {str(best):6s} "
                     f"<{', '.join(str(x) for x in lie)}>{gain}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
