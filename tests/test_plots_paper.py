"""Paper-ready figures (issue 16 item 4): TrueType fonts only (no Type 3), chosen algorithms
in the chosen order, the colour-blind-safe palette, counts under binned ticks, the paper
style's sizes."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from coflowopt.experiments import plots  # noqa: E402


def _rows():
    rng = np.random.default_rng(0)
    rows = []
    for k in range(40):
        for a, base in (("bssi+greedy", 1.05), ("sebf+madd", 1.6), ("varys", 1.5)):
            v = base + 0.1 * rng.random()
            rows.append({"algorithm": a, "alg_opt": v, "alg_lb": v * 1.01,
                         "instance_group": f"g{k % 3}", "coflows": 4 + k % 5})
    return rows


def _fonts(pdf: bytes) -> set[str]:
    return set(re.findall(rb"/Subtype\s*/(Type3|TrueType|Type1|Type0|CIDFontType2)", pdf))


def test_pdfs_embed_truetype_never_type3(tmp_path):
    rr = _rows()
    out = plots.cdf(rr, tmp_path / "cdf", base="OPT")
    out += plots.ratio_vs(rr, tmp_path / "vs", x="coflows", base="LB")
    for p in out:
        if p.endswith(".pdf"):
            kinds = _fonts(open(p, "rb").read())
            assert kinds and b"Type3" not in kinds, (p, kinds)


def test_chosen_algorithms_in_order_and_palette(tmp_path):
    rr = _rows()
    fig_names = []

    real_save = plots._save

    def keep(fig, path):
        fig_names.append(fig)
        return real_save(fig, path)

    plots._save = keep
    try:
        plots.cdf(rr, tmp_path / "cdf", base="OPT", algorithms=["varys", "bssi+greedy"])
    finally:
        plots._save = real_save
    ax = fig_names[0].axes[0]
    labels = [t.get_text().split()[0] for t in ax.get_legend().get_texts()]
    assert labels == ["varys", "bssi+greedy"]
    colours = [line.get_color() for line in ax.get_lines()]
    assert colours[:2] == [plots.OKABE_ITO[0], plots.OKABE_ITO[1]]


def test_binned_ticks_carry_counts(tmp_path):
    rr = _rows()
    captured = []
    real_save = plots._save
    plots._save = lambda fig, path: captured.append(fig) or []
    try:
        plots.ratio_vs(rr, tmp_path / "vs", x="group", base="OPT")
    finally:
        plots._save = real_save
    ticks = [t.get_text() for t in captured[0].axes[0].get_xticklabels()]
    assert ticks == ["g0\n(n=14)", "g1\n(n=13)", "g2\n(n=13)"]


def test_report_plots_paper_style_and_unknown_algorithm(tmp_path):
    with pytest.raises(ValueError, match="--plot-algorithms: no ratio rows for nope"):
        plots.report_plots([], tmp_path, algorithms=["nope"])
    plots.set_style("paper")
    try:
        fig = plots._figure(8.0, 4.8)
        assert fig.get_size_inches()[0] == pytest.approx(3.4)
    finally:
        plots.set_style("screen")
    with pytest.raises(ValueError):
        plots.set_style("poster")
