"""Lemma D.3.6: DRF's utilisation can tend to 0 while HUG reaches 100%.

K links and N coflows, each demanding 1 on link 1 and eps on every other link (Chowdhury's
dissertation, App. D.3, Lemma D.3.6).  DRF gives every coflow 1/N on link 1 and eps/N elsewhere:
utilisation (fraction of the K links) (1 + (K - 1) eps) / K -> 0 as K grows and eps -> 0; HUG's
Stage 2 lets every coflow use up to P* = 1/N on every link: 100%.  Exact arithmetic; the formula
is checked on every row.

Run: ``python experiments/fairness_drf_family.py [--n N] [--eps P/Q] [--k K ...]``
"""

from __future__ import annotations

import argparse
from fractions import Fraction as F

from coflowopt.fairness import allocate


def table_rows(ks=(2, 4, 8, 16, 32, 64, 128, 256, 512, 1024), n: int = 3, eps=F(1, 100)):
    """One dict per K: DRF / HUG / cooperative HUG utilisation (fractions of the K links)."""
    rows = []
    for K in ks:
        vec = [[1] + [F(eps)] * (K - 1) for _ in range(n)]
        drf = allocate(vec, "drf")
        hug = allocate(vec, "hug")
        coop = allocate(vec, "hug-cooperative")
        formula = (1 + (K - 1) * F(eps)) / K
        rows.append({"K": K, "N": n, "eps": F(eps), "pstar": drf.optimal_isolation_guarantee,
                     "drf_utilisation": drf.utilisation_fraction, "formula": formula,
                     "formula_ok": drf.utilisation_fraction == formula,
                     "hug_utilisation": hug.utilisation_fraction,
                     "hug_cooperative_utilisation": coop.utilisation_fraction,
                     "isolation_guarantee": hug.isolation_guarantee})
    return rows


def report(rows) -> str:
    head = (f"{'K':>6} {'P*':>6} {'DRF util':>20} {'(decimal)':>10} {'(1+(K-1)eps)/K':>15} "
            f"{'HUG util':>9} {'coop util':>9} {'isolation':>9}")
    lines = [f"Lemma D.3.6: N = {rows[0]['N']} coflows, eps = {rows[0]['eps']}", head]
    for r in rows:
        lines.append(f"{r['K']:>6} {str(r['pstar']):>6} {str(r['drf_utilisation']):>20} "
                     f"{float(r['drf_utilisation']):>10.5f} "
                     f"{'ok' if r['formula_ok'] else 'MISMATCH':>15} "
                     f"{str(r['hug_utilisation']):>9} {str(r['hug_cooperative_utilisation']):>9} "
                     f"{str(r['isolation_guarantee']):>9}")
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=3, help="number of coflows N (default 3)")
    p.add_argument("--eps", type=F, default=F(1, 100), help="eps as p/q (default 1/100)")
    p.add_argument("--k", type=int, nargs="*", default=None, help="numbers of links K")
    a = p.parse_args(argv)
    rows = table_rows(ks=tuple(a.k) if a.k else (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
                      n=a.n, eps=a.eps)
    print(report(rows))
    print()
    print(report(table_rows(ks=(10, 100, 1000), n=a.n, eps=F(1, 10 ** 6))))


if __name__ == "__main__":
    main()
