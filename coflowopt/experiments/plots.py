"""Plots for reports and papers (matplotlib, Agg canvas: no display needed).

Every function writes ``<path>.png`` and ``<path>.pdf`` (a ``.png``/``.pdf`` suffix on
``path`` is dropped) and returns the written paths.

=====================  ==========================================================================
:func:`cdf`            empirical CDF of ALG/OPT or ALG/LB per algorithm
:func:`ratio_vs`       mean (and p95) ratio against instance size, load or group
:func:`gantt`          a schedule drawn per port: each port a lane, the rate of every coflow
                       stacked as a share of the port's capacity
:func:`report_plots`   the standard plots of a results table
:func:`run_gantts`     Gantt charts of a run's schedules, recomputed from its recipes
=====================  ==========================================================================
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["cdf", "ratio_vs", "gantt", "report_plots", "run_gantts", "coflow_colours",
           "set_style", "OKABE_ITO", "STYLES"]

_STYLES = ("-", "--", "-.", ":")

#: Resolution of the PNG files (the PDFs are vector graphics).
PNG_DPI = 150


#: Okabe and Ito's colour-blind-safe palette ("Color Universal Design", 2002; Wong, Nature
#: Methods 8:441, 2011), black last; after 8 algorithms the line style changes.
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442",
             "#000000")

#: rcParams every figure is saved with: TrueType (Type 42) fonts in PDF and PostScript, never
#: Type 3 (camera-ready checks flag Type 3 bitmaps); editable text in SVG.
SAVE_RC = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none"}

#: Figure styles: "screen" (the default sizes) and "paper" (one column of a two-column paper:
#: 3.4 in wide, 8 pt text; multi-panel figures span both columns, 7 in).
STYLES = {"screen": {"scale": 1.0, "font": None},
          "paper": {"width": 3.4, "wide": 7.0, "font": 8.0}}
_STYLE = {"name": "screen"}


def set_style(name: str) -> None:
    """Choose the figure style of the following plots (:data:`STYLES`)."""
    if name not in STYLES:
        raise ValueError(f"plot style must be one of {', '.join(STYLES)}, got {name!r}")
    _STYLE["name"] = name


def _figure(w: float, h: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    st = STYLES[_STYLE["name"]]
    if "width" in st:      # keep the aspect ratio at a paper's column or page width
        target = st["width"] if w <= 8.0 else st["wide"]
        w, h = target, h * target / w
    fig = Figure(figsize=(w, h), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _fontsize(size: float) -> float:
    """A font size in the current style (the paper style caps every text at its size)."""
    f = STYLES[_STYLE["name"]].get("font")
    return size if f is None else min(size, f)


def _save(fig, path: str | Path) -> list[str]:
    from matplotlib import rc_context
    p = Path(path)
    if p.suffix.lower() in (".png", ".pdf"):
        p = p.with_suffix("")
    p.parent.mkdir(parents=True, exist_ok=True)
    if STYLES[_STYLE["name"]].get("font") is not None:
        f = STYLES[_STYLE["name"]]["font"]
        for t in fig.findobj(lambda o: hasattr(o, "set_fontsize") and hasattr(o, "get_text")):
            t.set_fontsize(min(t.get_fontsize(), f))
    out = []
    with rc_context(SAVE_RC):
        for ext in (".png", ".pdf"):
            q = p.with_name(p.name + ext)
            fig.savefig(q, dpi=PNG_DPI if ext == ".png" else None)
            out.append(str(q))
    return out


def _colour(i: int):
    return OKABE_ITO[i % len(OKABE_ITO)], _STYLES[(i // len(OKABE_ITO)) % len(_STYLES)]


def coflow_colours(n: int) -> list:
    """``n`` distinguishable colours (tab10, then tab20, then a hue wheel)."""
    from matplotlib import colormaps
    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [colormaps["tab20"](i) for i in range(n)]
    return [colormaps["hsv"](i / n) for i in range(n)]


def _by_alg(rrows: Sequence[Mapping[str, Any]], key: str) -> dict[str, np.ndarray]:
    d: dict[str, list[float]] = defaultdict(list)
    for r in rrows:
        v = r.get(key)
        if v is not None and math.isfinite(v):
            d[r["algorithm"]].append(float(v))
    return {a: np.sort(np.asarray(v)) for a, v in d.items() if v}


def _panels(names: list[str], per_panel: int) -> list[tuple[str, list[str]]]:
    """Split algorithms into panels by rate allocation (``x+greedy``), policies last."""
    if len(names) <= per_panel:
        return [("", names)]
    groups: dict[str, list[str]] = defaultdict(list)
    for n in names:
        groups[("ordering + " + n.split("+", 1)[1]) if "+" in n else "policies"].append(n)
    out = []
    for g in sorted(groups, key=lambda g: (g == "policies", g)):
        ns = groups[g]
        parts = math.ceil(len(ns) / per_panel)
        size = math.ceil(len(ns) / parts)  # balanced: 13 -> 7 + 6, not 10 + 3
        for i in range(parts):
            out.append((g + (f" ({i + 1} of {parts})" if parts > 1 else ""),
                        ns[i * size:(i + 1) * size]))
    return out


def cdf(rrows: Sequence[Mapping[str, Any]], path: str | Path, *, base: str = "OPT",
        algorithms: Sequence[str] | None = None, title: str | None = None,
        per_panel: int = 10, xmax: float | None = None) -> list[str]:
    """Empirical CDF of ALG/``base`` per algorithm.

    Parameters
    ----------
    rrows : sequence of dict
        :func:`coflowopt.experiments.report.ratio_rows`.
    path : str or Path
        Output path without suffix.
    base : {"OPT", "LB"}
    algorithms : sequence of str, optional
        Which algorithms, in this order in the legend (default: all with a ratio, ordered by
        mean ratio).
    per_panel : int
        More algorithms than this are split into panels by rate allocation.
    xmax : float, optional
        Right end of the x axes, shared by the panels (default: the largest p99 of the
        algorithms shown, so that one outlier does not squeeze the rest; the legend gives every
        maximum).

    Returns
    -------
    list of str
        The written PNG and PDF paths.
    """
    key = {"OPT": "alg_opt", "LB": "alg_lb"}[base]
    data = _by_alg(rrows, key)
    if algorithms is not None:
        # the caller's algorithms in the caller's order (legend and colours follow it)
        data = {a: data[a] for a in algorithms if a in data}
        names = list(data)
    else:
        names = sorted(data, key=lambda a: (float(data[a].mean()), a))
    panels = _panels(names, per_panel)
    ncol = len(panels) if len(panels) <= 3 else 2
    nrow = math.ceil(len(panels) / ncol)
    fig = _figure(8.0 if ncol == 1 else 6.4 * ncol, 4.8 * nrow)
    # panels compare the same ratio: one x range and one y range for all of them, up to the
    # largest p99 shown (so that one outlier does not squeeze the rest against 1; the legend
    # gives every maximum)
    axes = fig.subplots(nrow, ncol, squeeze=False, sharex=True, sharey=True).ravel()
    n_inst = max((v.size for v in data.values()), default=0)
    hi = xmax
    if hi is None:
        hi = max((float(np.percentile(v, 99)) for v in data.values()), default=2.0)
        hi = max(1.0 + 1e-3, 1.0 + (hi - 1.0) * 1.05)
    for ax, (label, ns) in zip(axes, panels):
        for i, a in enumerate(ns):
            v = data[a]
            y = np.arange(1, v.size + 1) / v.size
            c, ls = _colour(i)
            ax.step(np.concatenate([[1.0], v]), np.concatenate([[0.0], y]), where="post",
                    color=c, linestyle=ls, linewidth=1.6,
                    label=f"{a}  (mean {v.mean():.3f}, max {v.max():.3f})")
        # a little room left of 1 so that an algorithm always at the optimum stays visible
        ax.set_xlim(1.0 - 0.02 * (hi - 1.0), hi)
        ax.set_ylim(0, 1.01)
        ax.grid(True, alpha=0.3)
        ax.set_ylabel("fraction of instances")
        ax.set_xlabel(f"ALG/{base}" + (" (ALG over the proven optimum)" if base == "OPT" else
                                        " (ALG over the best certified lower bound)"))
        if label:
            ax.set_title(label, fontsize=10)
        ax.legend(fontsize=7.5, loc="lower right", framealpha=0.9)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(title or f"CDF of ALG/{base} over {n_inst} instances", fontsize=12)
    return _save(fig, path)


def _xvalue(r: Mapping[str, Any], x: str):
    if x == "group":
        return r.get("instance_group")
    if x in r:
        return r[x]
    return (r.get("instance_params") or {}).get(x)


def ratio_vs(rrows: Sequence[Mapping[str, Any]], path: str | Path, *, x: str = "coflows",
             base: str = "OPT", algorithms: Sequence[str] | None = None, top: int = 8,
             title: str | None = None) -> list[str]:
    """Mean ALG/``base`` (bars: p95) against an instance property.

    Parameters
    ----------
    x : str
        ``"coflows"``, ``"flows"``, ``"max_port_load"``, ``"group"`` (the instance block) or a
        generator parameter such as ``"load"``.  Numeric values with more than 12 distinct
        values are grouped into 8 quantile bins.
    algorithms : sequence of str, optional
        Default: the ``top`` algorithms with the lowest overall mean ratio.
    """
    key = {"OPT": "alg_opt", "LB": "alg_lb"}[base]
    pts: dict[str, list[tuple[Any, float]]] = defaultdict(list)
    for r in rrows:
        v, xv = r.get(key), _xvalue(r, x)
        if v is None or xv is None or not math.isfinite(v):
            continue
        pts[r["algorithm"]].append((xv, float(v)))
    if algorithms is None:
        algorithms = sorted(pts, key=lambda a: np.mean([v for _, v in pts[a]]))[:top]
    xs_all = sorted({xv for a in algorithms for xv, _ in pts.get(a, [])},
                    key=lambda t: (isinstance(t, str), t))
    numeric = all(isinstance(t, (int, float)) for t in xs_all)
    if numeric and len(xs_all) > 12:
        edges = np.unique(np.quantile(np.asarray(xs_all, dtype=float), np.linspace(0, 1, 9)))

        def bin_of(t):
            i = int(np.clip(np.searchsorted(edges, t, side="right") - 1, 0, len(edges) - 2))
            return f"{edges[i]:.3g}-{edges[i + 1]:.3g}"
        labels = [f"{edges[i]:.3g}-{edges[i + 1]:.3g}" for i in range(len(edges) - 1)]
    else:
        def bin_of(t):
            return t
        labels = xs_all
    pos = {lab: i for i, lab in enumerate(labels)}
    # instances per bin (the largest count over the algorithms shown), written under each tick
    counts: dict[Any, int] = defaultdict(int)
    for a in algorithms:
        per: dict[Any, int] = defaultdict(int)
        for xv, _ in pts.get(a, []):
            per[bin_of(xv)] += 1
        for k, n in per.items():
            counts[k] = max(counts[k], n)
    fig = _figure(10.0, 4.8)
    ax = fig.subplots()
    width = 0.6 / max(1, len(algorithms))
    for i, a in enumerate(algorithms):
        groups: dict[Any, list[float]] = defaultdict(list)
        for xv, v in pts.get(a, []):
            groups[bin_of(xv)].append(v)
        keys = [k for k in labels if k in groups]
        xs = np.array([pos[k] for k in keys], dtype=float) + (i - (len(algorithms) - 1) / 2) \
            * width
        means = np.array([np.mean(groups[k]) for k in keys])
        p95 = np.array([np.percentile(groups[k], 95) for k in keys])
        c, ls = _colour(i)
        # lines join points only along a numeric axis; groups are categories
        ax.errorbar(xs, means, yerr=[np.zeros_like(means), p95 - means], fmt="o",
                    linestyle=ls if numeric else "none", color=c, capsize=2, markersize=4,
                    linewidth=1.2, label=a)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels([f"{t}\n(n={counts.get(t, 0)})" for t in labels],
                       rotation=30 if len(labels) > 6 else 0,
                       ha="right" if len(labels) > 6 else "center")
    ax.set_xlabel({"coflows": "coflows per instance (K)", "flows": "flows per instance (F)",
                   "max_port_load": "largest port load / capacity",
                   "group": "instance group"}.get(x, x))
    ax.set_ylabel(f"ALG/{base}: mean (marker) to p95 (bar)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.grid(True, axis="y", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.set_title(title or f"ALG/{base} against {x}", fontsize=12)
    return _save(fig, path)


def gantt(instance, schedule, path: str | Path, *, title: str | None = None,
          max_pieces: int = 50000, coflow_labels: Sequence[str] | None = None) -> list[str]:
    """Draw a schedule per port.

    Each ingress and egress port is a lane of height 1 = its capacity; in every interval
    between two rate changes the coflows' rates through the port are stacked in coflow order,
    so a full lane is a saturated port and a gap is idle capacity.  Triangles on the time axis
    mark coflow completions, vertical ticks their releases.

    Parameters
    ----------
    instance : Instance
    schedule : Schedule
        Any schedule of ``instance`` (exact ones are drawn in floats).
    path : str or Path
        Output path without suffix (PNG and PDF are written).
    max_pieces : int
        Refuse larger schedules (a picture of millions of pieces is unreadable).
    coflow_labels : sequence of str, optional
        Legend names (default: the coflow ids).

    Raises
    ------
    InvalidParameterError
        If the schedule has more than ``max_pieces`` pieces.
    """
    from ..exceptions import InvalidParameterError
    if schedule.num_pieces > max_pieces:
        raise InvalidParameterError(f"the schedule has {schedule.num_pieces} pieces; gantt draws "
                                    f"at most max_pieces={max_pieces}")
    s = schedule.to_float() if schedule.exact else schedule
    flow = np.asarray(s.flow, dtype=np.int64)
    start, end = np.asarray(s.start, float), np.asarray(s.end, float)
    rate = np.asarray(s.rate, float)
    keep = (end > start) & (rate > 0)
    flow, start, end, rate = flow[keep], start[keep], end[keep], rate[keep]
    K, m_in = instance.num_coflows, instance.num_ingress
    coflow = instance.flow_coflow[flow]
    ports = [("in", p) for p in range(m_in)] + [("out", p) for p in range(instance.num_egress)]
    cap = np.concatenate([instance.ingress_capacity, instance.egress_capacity])
    port_of = {"in": instance.flow_src[flow], "out": instance.flow_dst[flow] + m_in}
    colours = coflow_colours(K)
    n = len(ports)
    span = float(end.max()) if end.size else 1.0
    fig = _figure(9.0, 1.0 + 0.45 * n + (0.5 if K <= 20 else 0))
    ax = fig.subplots()
    for lane in range(n):
        # the lane's full height is the port's capacity: a grey backdrop shows idle capacity
        ax.add_patch(_rect((0, n - 1 - lane + 0.05), span, 0.9, "#eeeeee"))
        mask = (port_of["in"] == lane) | (port_of["out"] == lane)
        if not mask.any():
            continue
        st, en, rt, cf = start[mask], end[mask], rate[mask] / cap[lane], coflow[mask]
        cuts = np.unique(np.concatenate([st, en]))
        y0 = n - 1 - lane
        for a, b in zip(cuts[:-1], cuts[1:]):
            on = (st < b) & (en > a)
            if not on.any():
                continue
            share = np.bincount(cf[on], weights=rt[on], minlength=K)
            base = 0.0
            for k in np.nonzero(share > 1e-12)[0]:
                h = min(share[k], 1.0 - base) * 0.9
                ax.add_patch(_rect((a, y0 + 0.05 + base * 0.9), b - a, h, colours[k]))
                base += share[k]
    ax.set_xlim(0, span * 1.02)
    ax.set_ylim(-0.6, n)
    ax.set_yticks([n - 1 - i + 0.5 for i in range(n)])
    ax.set_yticklabels([f"{'ingress' if d == 'in' else 'egress'} {p}" for d, p in ports],
                       fontsize=8)
    ax.axhline(n - m_in, color="black", linewidth=0.8)
    ax.set_xlabel("time")
    cc = np.zeros(K)
    np.maximum.at(cc, coflow, end) if end.size else None
    for k in range(K):
        ax.plot([cc[k]], [-0.35], marker="v", color=colours[k], markersize=7, clip_on=False)
        if instance.release[k] > 0:
            ax.plot([instance.release[k]], [-0.35], marker="|", color=colours[k],
                    markersize=9)
    ax.grid(True, axis="x", alpha=0.3)
    if K <= 20:
        from matplotlib.patches import Patch
        labels = coflow_labels or instance.coflow_ids
        ax.legend(handles=[Patch(color=colours[k], label=f"{labels[k]} (C={cc[k]:.4g})")
                           for k in range(K)], fontsize=7.5, loc="upper center",
                  bbox_to_anchor=(0.5, -0.12 if n > 4 else -0.2), ncol=min(K, 6),
                  frameon=False)
    ax.set_title(title or f"schedule per port ({K} coflows; lane height = port capacity)",
                 fontsize=11)
    return _save(fig, path)


def _rect(xy, w, h, colour):
    from matplotlib.patches import Rectangle
    return Rectangle(xy, w, h, facecolor=colour, edgecolor="white", linewidth=0.3)


def report_plots(rows: Sequence[Mapping[str, Any]], out_dir: str | Path, *,
                 run_dir: str | Path | None = None, gantt_algorithms: Sequence[str] = (),
                 gantt_instance: str | None = None, gantt_max_flows: int = 400,
                 algorithms: Sequence[str] | None = None, style: str = "screen") -> list[str]:
    """The standard plots of a results table: CDF of ALG/OPT (where optima exist) and ALG/LB,
    ratio against the number of coflows, the maximum port load and the instance group, and
    (with ``run_dir``) per-port Gantt charts from :func:`run_gantts`.

    ``algorithms``: only these, in this order (legends and colours follow it); a name with no
    row is a ValueError naming it.  ``style``: :data:`STYLES` ("paper": one column of a
    two-column paper)."""
    from .report import ratio_rows
    previous = _STYLE["name"]
    set_style(style)
    try:
        return _report_plots(ratio_rows(rows), rows, out_dir, run_dir, gantt_algorithms,
                             gantt_instance, gantt_max_flows, algorithms)
    finally:
        _STYLE["name"] = previous


def _report_plots(rr, rows, out_dir, run_dir, gantt_algorithms, gantt_instance,
                  gantt_max_flows, algorithms) -> list[str]:
    if algorithms is not None:
        known = {r["algorithm"] for r in rr}
        missing = [a for a in algorithms if a not in known]
        if missing:
            raise ValueError(f"--plot-algorithms: no ratio rows for {', '.join(missing)} "
                             f"(labels: {', '.join(sorted(known))})")
    out_dir = Path(out_dir)
    written: list[str] = []
    for base, key in (("OPT", "alg_opt"), ("LB", "alg_lb")):
        if not any(r[key] is not None for r in rr):
            continue
        written += cdf(rr, out_dir / f"cdf-alg-{base.lower()}", base=base,
                       algorithms=algorithms)
        for x in ("coflows", "max_port_load", "group"):
            # numeric x with many values (the load) is binned by ratio_vs
            if len({_xvalue(r, x) for r in rr} - {None}) > 1:
                written += ratio_vs(rr, out_dir / f"alg-{base.lower()}-vs-{x}", x=x, base=base,
                                    algorithms=algorithms)
    if run_dir is not None:
        written += run_gantts(run_dir, rows, out_dir, algorithms=gantt_algorithms,
                              instance_key=gantt_instance, max_flows=gantt_max_flows)
    return written


def run_gantts(run_dir: str | Path, rows: Sequence[Mapping[str, Any]], out_dir: str | Path,
               *, algorithms: Sequence[str] = (), instance_key: str | None = None,
               max_flows: int = 400) -> list[str]:
    """Per-port Gantt charts of schedules of a run, recomputed from the run's recipes.

    Schedules are not stored in a run folder, so the instance is rebuilt from ``plan.json``
    (its content hash checked) and each algorithm is run again as the manifest records it.

    Parameters
    ----------
    run_dir : path
        The run folder.
    rows : sequence of dict
        Its rows (:func:`coflowopt.experiments.store.load_rows`).
    out_dir : path
        Where ``gantt-<instance>-<algorithm>.png/.pdf`` go.
    algorithms : sequence of str
        Labels to draw.  Default: the schedule algorithm with the smallest mean ALG/OPT (else
        ALG/LB) among those that are not exponential searches, and an exact method's optimal
        schedule of the chosen instance (else the best schedule found), so the picture shows
        where the best heuristic loses.
    instance_key : str, optional
        Default: the instance (at most ``max_flows`` flows) where the first algorithm has its
        largest ratio.
    max_flows : int
        Instances with more flows are not drawn by default (the picture would be unreadable).

    Returns
    -------
    list of str
        Written paths; empty when the run has no recipes (an old run folder) or no drawable
        schedule.
    """
    import json
    import re

    from .report import ratio_rows
    from .spec import AlgorithmSpec, instance_hash, load_recipe
    from .store import read_manifest
    from .tasks import _run_algorithm

    run_dir, out_dir = Path(run_dir), Path(out_dir)
    plan_path = run_dir / "plan.json"
    if not plan_path.is_file():
        return []
    with open(plan_path, encoding="utf-8") as fh:
        recipes = json.load(fh).get("recipes") or {}
    manifest = read_manifest(run_dir)
    specs = {a["label"]: a for a in manifest.get("algorithms") or []}
    for label in algorithms:
        if label not in specs:
            raise ValueError(f"gantt algorithm {label!r}: not in this run (labels: "
                             f"{', '.join(sorted(specs))})")
    rr = [r for r in ratio_rows(rows) if r["algorithm"] in specs and
          r["instance_hash"] in recipes and (r.get("flows") or 0) <= max_flows]
    if not rr:
        return []
    key = "alg_opt" if any(r["alg_opt"] is not None for r in rr) else "alg_lb"
    base = "OPT" if key == "alg_opt" else "LB"
    algorithms = list(algorithms)
    if not algorithms:
        means: dict[str, list[float]] = defaultdict(list)
        for r in rr:
            if r[key] is not None and "exponential" not in specs[r["algorithm"]].get("tags", ()):
                means[r["algorithm"]].append(r[key])
        if not means:
            return []
        algorithms = [min(means, key=lambda a: (float(np.mean(means[a])), a))]
    if instance_key is None:
        mine = [r for r in rr if r["algorithm"] == algorithms[0] and r[key] is not None]
        if not mine:
            return []
        instance_key = max(mine, key=lambda r: (r[key], r["instance_key"]))["instance_key"]
    on = [r for r in rr if r["instance_key"] == instance_key]
    if not on:
        raise ValueError(f"gantt instance {instance_key!r}: no verified schedule of it in the "
                         f"run with at most {max_flows} flows")
    h = on[0]["instance_hash"]
    if len(algorithms) == 1:
        # the comparison: an exact method's optimal schedule, else the best schedule found
        exact = sorted(r["algorithm"] for r in rows if r.get("instance_hash") == h and
                       r.get("algorithm_kind") == "exact" and
                       r.get("result_kind") == "optimal" and r["algorithm"] in specs)
        best = min(on, key=lambda r: (r["value"], r["algorithm"]))["algorithm"]
        other = exact[0] if exact else best
        if other != algorithms[0]:
            algorithms.append(other)
    inst = load_recipe(recipes[h]["recipe"])
    if instance_hash(inst) != h:
        raise ValueError(f"gantt: instance {instance_key!r} rebuilds with another content hash "
                         "(generator or file changed since the run)")
    objective = (manifest.get("objective") or "weighted_completion_time")
    written: list[str] = []
    for label in algorithms:
        if label not in specs:
            raise ValueError(f"gantt algorithm {label!r}: not in this run (labels: "
                             f"{', '.join(sorted(specs))})")
        a = AlgorithmSpec.from_dict(specs[label])
        if a.kind not in ("schedule", "exact"):
            raise ValueError(f"gantt algorithm {label!r}: a {a.kind}, not a schedule or an "
                             "exact method")
        row = next((r for r in on if r["algorithm"] == label), None)
        res = _run_algorithm(inst, a, 0 if a.randomized else None, objective,
                             keep_schedule=True)
        if res.schedule is None:
            continue
        ratio = ("" if row is None or row[key] is None else f", ALG/{base} {row[key]:.4f}") \
            if a.kind == "schedule" else f" ({res.kind})"
        slug = re.sub(r"[^A-Za-z0-9.+=-]+", "_", f"{instance_key}-{label}")
        written += gantt(inst, res.schedule, out_dir / f"gantt-{slug}",
                         title=f"{label} on {instance_key}: {objective} "
                               f"{float(res.value):.6g}{ratio}")
    return written
