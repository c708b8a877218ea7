"""Matplotlib figures for the notebooks: thin drawing functions over computed numbers.

Every function takes numbers that labcalc computed (or that a measurement file holds),
draws them, and returns the :class:`matplotlib.figure.Figure`. Pass ``ax=`` to draw
into an existing Axes (the widgets redraw their figure this way); without it a new
figure is made with :class:`matplotlib.figure.Figure`, not ``pyplot``, so nothing is
kept in a global figure list and nothing is shown twice in a notebook.

matplotlib is imported inside the functions: ``import labcalc`` stays light.

Examples
--------
>>> from labcalc import framing
>>> fig = accounting_bars(framing.frame(1000), ("wire", "tc"))
>>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
['wire (handout)', 'tc (Linux shaper)']
"""

from __future__ import annotations

__all__ = [
    "new_axes",
    "accounting_bars",
    "efficiency_curves",
    "grouped_bars",
    "stacked_bars",
    "curves",
    "topology",
    "TOPOLOGIES",
    "to_png",
    "reset_axes",
]

#: Colours used everywhere, in order (matplotlib's tab10).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")

_ACCOUNTING_LABELS = {"wire": "wire (handout)", "frame": "frame (MAC)",
                      "tc": "tc (Linux shaper)", "ip": "ip (IP packet)"}

# (layer name, Frame attribute, accountings that count it, colour)
_LAYERS = (
    ("preamble + SFD", "preamble_sfd_bytes", ("wire",), "#c7c7c7"),
    ("Ethernet header", "ethernet_header_bytes", ("wire", "frame", "tc"), "#9467bd"),
    ("IP header", "ip_header_bytes", ("wire", "frame", "tc", "ip"), "#ff7f0e"),
    ("UDP/TCP header", "transport_header_bytes", ("wire", "frame", "tc", "ip"), "#d62728"),
    ("payload", "payload_bytes", ("wire", "frame", "tc", "ip"), "#2ca02c"),
    ("padding", "padding_bytes", ("wire", "frame"), "#bcbd22"),
    ("FCS", "fcs_bytes", ("wire", "frame"), "#8c564b"),
    ("inter-frame gap", "interframe_gap_bytes", ("wire",), "#7f7f7f"),
)


def new_axes(ax=None, figsize=(7.0, 3.4), layout="constrained"):
    """``(figure, axes)``: the given Axes and its figure, or a new figure with one Axes.

    ``layout="constrained"`` fits labels and legends automatically; the widgets pass
    ``layout=None`` (fixed margins), which redraws several times faster.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        An existing Axes; returned with its figure, and the other arguments ignored.
    figsize : (float, float), default (7.0, 3.4)
        Size of a new figure (width, height) [inch].
    layout : {"constrained", None}, default "constrained"
        Layout engine of a new figure; None uses fixed margins.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure holding ``ax``.
    ax : matplotlib.axes.Axes
        The given Axes, or the new one.

    Examples
    --------
    >>> fig, ax = new_axes()
    >>> len(fig.axes), float(fig.dpi)
    (1, 100.0)
    """
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=100, layout=layout)
    if layout is None:
        fig.subplots_adjust(left=0.11, right=0.97, bottom=0.15, top=0.9)
    return fig, fig.add_subplot()


def reset_axes(ax) -> None:
    """Empty an axes for the next drawing, keeping its tick objects.

    ``ax.clear()`` also throws away the axis ticks, and rebuilding them is about a
    third of a widget's redraw time (each tick is several artists); removing the
    plotted artists and resetting scales, limits and labels gives the same picture
    (the widget tests compare the PNGs pixel for pixel) faster.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The Axes to empty, in place.

    Examples
    --------
    >>> fig, ax = new_axes()
    >>> _ = ax.plot([1, 2], [3, 4]); ax.set_yscale("log"); _ = ax.set_title("t")
    >>> reset_axes(ax)
    >>> len(ax.lines), ax.get_yscale(), ax.get_title()
    (0, 'linear', '')
    """
    for artist in [*ax.lines, *ax.patches, *ax.collections, *ax.texts, *ax.images,
                   *ax.tables, *ax.artists]:
        artist.remove()
    ax.containers.clear()
    if ax.legend_ is not None:
        ax.legend_.remove()
    if ax.get_xscale() != "linear":
        ax.set_xscale("linear")
    if ax.get_yscale() != "linear":
        ax.set_yscale("linear")
    ax.set_aspect("auto")
    ax.set_prop_cycle(None)  # colours start again from the first
    ax.relim()
    ax.autoscale(True)
    ax.set_title("")
    ax.set_xlabel("")
    ax.set_ylabel("")


def to_png(fig, dpi: int = 100) -> bytes:
    """Render a figure to PNG bytes (what the widgets show in an ``Image``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to render (given an Agg canvas if it has none).
    dpi : int, default 100
        Resolution [pixel/inch].

    Returns
    -------
    bytes
        The PNG file's content.

    Examples
    --------
    >>> to_png(new_axes()[0])[:4]
    b'\\x89PNG'
    """
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def accounting_bars(unit, accountings=("wire", "frame", "tc", "ip"), ax=None, title=None,
                    show_payload=False):
    """The bytes one datagram or segment costs, layer by layer, in several accountings.

    Parameters
    ----------
    unit : labcalc.framing.Frame or labcalc.framing.FrameTrain
        From :func:`labcalc.framing.frame`, :func:`~labcalc.framing.segment_frames` or
        :func:`~labcalc.framing.frames_for_mtu`; a train is drawn as the sum of its frames.
    accountings : sequence of {"wire", "frame", "tc", "ip"}
        One horizontal bar each, top to bottom.
    ax : matplotlib Axes, optional
    title : str, optional
    show_payload : bool, default False
        Draw the payload too. By default only the overhead is drawn (the payload would
        dwarf it); the total and the payload share are written next to each bar.

    Returns
    -------
    matplotlib.figure.Figure
        One bar segment per (accounting, layer counted in it, non-zero size).

    Examples
    --------
    >>> from labcalc import framing
    >>> fig = accounting_bars(framing.frame(1000))
    >>> len(fig.axes[0].patches)  # overhead layers: wire 6, frame 4, tc 3, ip 2
    15
    """
    frames = getattr(unit, "frames", None) or (unit,)
    unknown = [a for a in accountings if a not in _ACCOUNTING_LABELS]
    if unknown:
        raise ValueError(f"accountings must be among {', '.join(_ACCOUNTING_LABELS)}; got {unknown[0]!r}")
    fig, ax = new_axes(ax, figsize=(7.0, 0.9 + 0.5 * len(accountings)))
    sizes = {attr: sum(getattr(f, attr) for f in frames) for _, attr, _, _ in _LAYERS}
    payload = sizes["payload_bytes"]
    seen = set()
    rows = list(accountings)
    widest = 0
    for row, acc in enumerate(rows):
        left = 0
        total = 0
        for name, attr, counted, colour in _LAYERS:
            size = sizes[attr]
            if acc not in counted or size == 0:
                continue
            total += size
            if attr == "payload_bytes" and not show_payload:
                continue
            ax.barh(row, size, left=left, color=colour, edgecolor="white", linewidth=0.5,
                    label=None if name in seen else name)
            seen.add(name)
            left += size
        widest = max(widest, left)
        ax.text(left + 1, row, f" {total} B in all, {payload / total:.1%} payload", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), [_ACCOUNTING_LABELS[a] for a in rows])
    ax.invert_yaxis()
    ax.set_xlabel("bytes counted against the link" if show_payload
                  else f"overhead bytes per {payload}-byte payload (payload not drawn)")
    ax.set_xlim(0, widest * 1.8)
    ax.grid(axis="y", visible=False)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, framealpha=0.9)
    if title:
        ax.set_title(title)
    return fig


def efficiency_curves(payload_bytes, efficiencies, marker=None, ax=None, title=None,
                      xlabel="application data per datagram / write [bytes]", logx=True,
                      legend_loc="lower right"):
    """Efficiency (payload / counted bytes) against the payload size, one line per case.

    Parameters
    ----------
    payload_bytes : array_like
        x values [byte].
    efficiencies : dict label -> array_like
        y values in [0, 1], one line each.
    marker : (x, y, text), optional
        A point to highlight (the widget's current setting).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    title : str, optional
        Title of the Axes.
    xlabel : str, default "application data per datagram / write [bytes]"
        Label of the x axis.
    logx : bool, default True
        Logarithmic x axis.
    legend_loc : str, default "lower right"
        Legend position (a matplotlib ``loc``).

    Returns
    -------
    matplotlib.figure.Figure
        One line per entry of ``efficiencies``, efficiency shown in [%].

    Examples
    --------
    >>> fig = efficiency_curves([100, 1000], {"wire": [0.6, 0.94], "tc": [0.7, 0.96]})
    >>> len(fig.axes[0].lines)
    2
    """
    fig, ax = new_axes(ax)
    for k, (label, eff) in enumerate(efficiencies.items()):
        ax.plot(payload_bytes, [100 * e for e in eff], label=label, color=PALETTE[k % 10], linewidth=1.5)
    if marker is not None:
        x, y, text = marker
        ax.scatter([x], [100 * y], color="black", zorder=5, s=25)
        ax.annotate(text, (x, 100 * y), textcoords="offset points", xytext=(6, -14), fontsize=9)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("efficiency [%]")
    ax.set_ylim(0, 100)
    ax.legend(loc=legend_loc, fontsize=8)
    if title:
        ax.set_title(title)
    return fig


def grouped_bars(table, ylabel="", ax=None, title=None, value_format="{:.0f}", colors=None,
                 hline=None, legend_loc="best"):
    """Side-by-side bars: one group per row of ``table``, one bar per column.

    Parameters
    ----------
    table : pandas.DataFrame
        Index = groups (x axis), columns = series (e.g. "predicted", "measured"). NaN
        cells are left empty.
    ylabel : str
        Label of the y axis (with its unit, e.g. ``"kbit/s"``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    title : str, optional
        Title of the Axes.
    value_format : str or None
        Format of the value written above each bar (None: no labels).
    colors : sequence of str, optional
        Colour of each series; by default the package palette.
    hline : (y, text), optional
        A horizontal reference line (e.g. the link capacity).
    legend_loc : str, default "best"
        Legend position (a matplotlib ``loc``).

    Returns
    -------
    matplotlib.figure.Figure
        ``len(table) x len(table.columns)`` bars (NaN bars have zero height).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"predicted": [4690, 4849], "measured": [4798, 4782]}, index=["UDP", "TCP"])
    >>> len(grouped_bars(t, "kbit/s").axes[0].patches)
    4
    """
    import math

    fig, ax = new_axes(ax)
    n_series = max(len(table.columns), 1)
    width = 0.8 / n_series
    colors = colors or PALETTE
    for k, column in enumerate(table.columns):
        xs = [i + (k - (n_series - 1) / 2) * width for i in range(len(table))]
        values = [float(v) for v in table[column]]
        heights = [0.0 if math.isnan(v) else v for v in values]
        bars = ax.bar(xs, heights, width * 0.95, label=str(column), color=colors[k % len(colors)])
        if value_format:
            labels = ["" if math.isnan(v) else value_format.format(v) for v in values]
            ax.bar_label(bars, labels=labels, fontsize=7, padding=1)
    ax.set_xticks(range(len(table)), [str(i) for i in table.index], fontsize=8)
    if hline is not None:
        y, text = hline
        ax.axhline(y, color="black", linestyle="--", linewidth=1)
        ax.annotate(text, (-0.5, y), textcoords="offset points", xytext=(4, 3), ha="left", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="x", visible=False)
    ax.margins(y=0.15)
    ax.legend(fontsize=8, loc=legend_loc)
    if title:
        ax.set_title(title)
    return fig


def stacked_bars(table, ylabel="", ax=None, title=None, colors=None, value_format=None,
                 legend_loc="best"):
    """Stacked bars: one bar per row of ``table``, its columns stacked bottom to top.

    Parameters
    ----------
    table : pandas.DataFrame
        Index = bars, columns = components (e.g. "delivered", "lost"); NaN counts as 0,
        and a bar whose components are all NaN (a missing measurement) is labelled
        "no data" instead of its total.
    ylabel : str
        Label of the y axis (with its unit).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    title : str, optional
        Title of the Axes.
    colors : sequence of str, optional
        Colour of each component; by default the package palette.
    value_format : str, optional
        Format of each row's total, written above the bar.
    legend_loc : str, default "best"
        Legend position (a matplotlib ``loc``).

    Returns
    -------
    matplotlib.figure.Figure
        ``len(table) x len(table.columns)`` rectangles.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"goodput": [0.94, 3.75], "lost": [0.06, 0.25]}, index=["h1", "h2"])
    >>> len(stacked_bars(t, "Mbit/s").axes[0].patches)
    4
    """
    import math

    fig, ax = new_axes(ax)
    colors = colors or PALETTE
    bottoms = [0.0] * len(table)
    empty = [all(math.isnan(float(v)) for v in row) for row in table.itertuples(index=False)]
    for k, column in enumerate(table.columns):
        values = [0.0 if math.isnan(float(v)) else float(v) for v in table[column]]
        ax.bar(range(len(table)), values, 0.6, bottom=bottoms, label=str(column),
               color=colors[k % len(colors)])
        bottoms = [b + v for b, v in zip(bottoms, values)]
    for i, total in enumerate(bottoms):
        if empty[i] and len(table.columns):
            ax.annotate("no data", (i, 0), textcoords="offset points", xytext=(0, 2), ha="center",
                        fontsize=7)
        elif value_format:
            ax.annotate(value_format.format(total), (i, total), textcoords="offset points",
                        xytext=(0, 2), ha="center", fontsize=7)
    ax.set_xticks(range(len(table)), [str(i) for i in table.index], fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="x", visible=False)
    ax.margins(y=0.12)
    ax.legend(fontsize=8, loc=legend_loc)
    if title:
        ax.set_title(title)
    return fig


def curves(x, lines, points=None, xlabel="", ylabel="", ax=None, title=None, marker=None,
           hlines=None, band=None, logx=False, logy=False, steps=False, legend_loc="best",
           minor_ticks=True):
    """Lines of predictions with measured points on top: the notebooks' workhorse.

    Parameters
    ----------
    x : array_like
        Common x values of the lines.
    lines : dict label -> array_like
        One line per entry (same length as ``x``, or a number for a constant). A line
        that is NaN everywhere (a model fed with a missing measurement) is not drawn.
    points : dict label -> (xs, ys), optional
        Measured points, drawn as markers (one scatter per entry). Points with a NaN
        coordinate (missing measurements) are skipped, and an entry left without points
        is not drawn.
    xlabel, ylabel, title : str
        Axis labels (with units) and title.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    marker : (x, y, text), optional
        A highlighted point (a widget's current setting).
    hlines : list of (y, text), optional
        Horizontal reference lines (capacities, thresholds).
    band : (y0, y1, text), optional
        A shaded horizontal band (e.g. a measured range); not drawn when a bound is NaN.
    logx, logy : bool
    steps : bool
        Draw the lines as steps (piecewise-constant data).
    legend_loc : str
        Legend position ("best" searches for a free spot: slower, fine for static figures).
    minor_ticks : bool
        False drops the minor ticks of log axes (the widgets redraw faster without).

    Returns
    -------
    matplotlib.figure.Figure
        ``len(lines)`` lines plus one per hline; ``len(points)`` scatter collections
        (+1 for the marker); entries without data are left out.

    Examples
    --------
    >>> fig = curves([0, 1, 2], {"model": [1, 2, 3]}, points={"measured": ([1], [2.2])})
    >>> len(fig.axes[0].lines), len(fig.axes[0].collections)
    (1, 1)
    >>> nan = float("nan")
    >>> fig = curves([0, 1, 2], {"model": [1, 2, 3], "no input": nan},
    ...              points={"measured": ([1, 2], [2.2, nan]), "missing": ([nan], [1.0])})
    >>> len(fig.axes[0].lines), [len(c.get_offsets()) for c in fig.axes[0].collections]
    (1, [1])
    """
    import numpy as np

    fig, ax = new_axes(ax)
    for k, (label, ys) in enumerate(lines.items()):
        ys = np.asarray(ys, dtype=float)
        if ys.ndim == 0:
            ys = np.full(np.shape(x), float(ys))
        if np.isnan(ys).all():
            continue
        if steps:
            ax.step(x, ys, where="post", label=label, color=PALETTE[k % 10], linewidth=1.6)
        else:
            ax.plot(x, ys, label=label, color=PALETTE[k % 10], linewidth=1.6)
    symbols = ("o", "s", "^", "D", "v", "P")
    for k, (label, (xs, ys)) in enumerate((points or {}).items()):
        pairs = [(float(a), float(b)) for a, b in zip(np.ravel(xs), np.ravel(ys))
                 if not (np.isnan(a) or np.isnan(b))]
        if not pairs:
            continue
        ax.scatter([a for a, _ in pairs], [b for _, b in pairs], label=label, marker=symbols[k % len(symbols)],
                   s=36, zorder=4, color=PALETTE[(k + len(lines)) % 10], edgecolor="black", linewidth=0.5)
    for y, text in hlines or []:
        ax.axhline(y, color="black", linestyle="--", linewidth=0.9)
        ax.annotate(text, (1, y), xycoords=("axes fraction", "data"), textcoords="offset points",
                    xytext=(-4, 3), ha="right", fontsize=8)
    if band is not None and not (np.isnan(float(band[0])) or np.isnan(float(band[1]))):
        y0, y1, text = band
        ax.axhspan(y0, y1, color="#bbbbbb", alpha=0.35, label=text)
    if marker is not None:
        mx, my, text = marker
        ax.scatter([mx], [my], color="black", s=30, zorder=5)
        ax.annotate(text, (mx, my), textcoords="offset points", xytext=(6, 6), fontsize=9)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if not minor_ticks:
        ax.minorticks_off()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8, loc=legend_loc)
    if title:
        ax.set_title(title)
    return fig


# --------------------------------------------------------------------------------------
# topology drawings
# --------------------------------------------------------------------------------------

#: Node positions, links (a, b, label) and flows (name, [nodes], colour) of the handout's
#: three topologies. Hosts are circles, routers squares.
TOPOLOGIES = {
    "lab51": {
        "title": "Figure 1 network: h1, h2 -> r1 -> h3",
        "nodes": {"h1": (0, 1), "h2": (0, -1), "r1": (2.2, 0), "h3": (4.6, 0)},
        "links": [("h1", "r1", "h1-eth0\n1 Gbit/s"), ("h2", "r1", "h2-eth0\n1 Gbit/s"),
                  ("r1", "h3", "r1-eth1: 5 Mbit/s\n(shaped, the bottleneck)")],
        "flows": [("h1 -> h3", ["h1", "r1", "h3"], "#d62728"), ("h2 -> h3", ["h2", "r1", "h3"], "#1f77b4")],
    },
    "lab52": {
        "title": "Figure 2 network: congestion collapse",
        "nodes": {"A (h1)": (0, 1), "C (h2)": (0, -1), "N1 (r1)": (2.2, 0), "N2 (r2)": (4.4, 0),
                  "B (h4)": (6.6, 1), "D (h3)": (6.6, -1)},
        "links": [("A (h1)", "N1 (r1)", "1 Mbit/s"), ("C (h2)", "N1 (r1)", "10 Mbit/s"),
                  ("N1 (r1)", "N2 (r2)", "1.5 Mbit/s"), ("N2 (r2)", "B (h4)", ">= 1 Mbit/s"),
                  ("N2 (r2)", "D (h3)", "0.5 Mbit/s")],
        "flows": [("A -> B", ["A (h1)", "N1 (r1)", "N2 (r2)", "B (h4)"], "#d62728"),
                  ("C -> D", ["C (h2)", "N1 (r1)", "N2 (r2)", "D (h3)"], "#1f77b4")],
    },
    "lab53": {
        "title": "Figure 3 network: two bottlenecks in a row",
        "nodes": {"h1": (0, 0), "r1": (2.2, 0), "r2": (4.4, 0), "h3": (6.6, 0), "h2": (4.4, -1.6)},
        # one line per interface: the two bottlenecks, and netem's delay on every host
        "links": [("h1", "r1", "h1-eth0: +150 ms"), ("r1", "r2", "r1-eth1: 5 Mbit/s"),
                  ("r2", "h3", "r2-eth2: 5 Mbit/s\nh3-eth0: +150 ms"), ("h2", "r2", "h2-eth0: +150 ms")],
        "flows": [("1to3", ["h1", "r1", "r2", "h3"], "#d62728"), ("1to2", ["h1", "r1", "r2", "h2"], "#2ca02c"),
                  ("2to3", ["h2", "r2", "h3"], "#1f77b4")],
    },
}


def topology(name, ax=None, show_flows=True):
    """A drawing of one of the handout's networks (``"lab51"``, ``"lab52"``, ``"lab53"``).

    Parameters
    ----------
    name : str
        A key of :data:`TOPOLOGIES`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    show_flows : bool, default True
        Draw each flow as a coloured path next to the links.

    Returns
    -------
    matplotlib.figure.Figure
        One line per link (+ one per hop of each flow), one marker per node.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> fig = topology("lab53")
    >>> len(fig.axes[0].lines)  # 4 links + 3 flows of 3, 3 and 2 hops
    12
    """
    if name not in TOPOLOGIES:
        raise ValueError(f"topology must be one of {', '.join(TOPOLOGIES)}; got {name!r}")
    spec = TOPOLOGIES[name]
    nodes = spec["nodes"]
    xs = [p[0] for p in nodes.values()]
    ys = [p[1] for p in nodes.values()]
    width = max(xs) - min(xs) + 2.0
    height = max(ys) - min(ys) + 1.6
    fig, ax = new_axes(ax, figsize=(min(8.0, 1.0 * width + 0.6), 0.9 * height + 0.6))
    for a, b, label in spec["links"]:
        (x0, y0), (x1, y1) = nodes[a], nodes[b]
        ax.plot([x0, x1], [y0, y1], color="#444444", linewidth=2.2, zorder=1)
        ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.12, label, ha="center", va="bottom", fontsize=8,
                bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85),
                zorder=3)
    if show_flows:
        import math

        n = len(spec["flows"])
        for k, (flow, path, colour) in enumerate(spec["flows"]):
            d = 0.13 * (k + 1)
            pts = [nodes[p] for p in path]
            for j, ((x0, y0), (x1, y1)) in enumerate(zip(pts[:-1], pts[1:])):
                length = math.hypot(x1 - x0, y1 - y0)
                ux, uy = (x1 - x0) / length, (y1 - y0) / length
                nx, ny = uy, -ux  # right-hand side of the direction of travel
                start = 0.35 if j == 0 else 0.0
                stop = 0.45 if j == len(pts) - 2 else 0.0
                a = (x0 + ux * start + nx * d, y0 + uy * start + ny * d)
                b = (x1 - ux * stop + nx * d, y1 - uy * stop + ny * d)
                ax.plot([a[0], b[0]], [a[1], b[1]], color=colour, linewidth=1.4,
                        linestyle=(0, (4, 2)), zorder=2, label=flow if j == 0 else None)
                if j == len(pts) - 2:
                    ax.annotate("", xy=b, xytext=(b[0] - ux * 0.3, b[1] - uy * 0.3),
                                arrowprops=dict(arrowstyle="->", color=colour, lw=1.4))
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=n, fontsize=8, frameon=False)
    for node, (x, y) in nodes.items():
        router = node.startswith(("r", "N"))
        ax.scatter([x], [y], s=900, marker="s" if router else "o", zorder=4,
                   color="#ffe9a8" if router else "#cfe3f6", edgecolor="#333333")
        ax.text(x, y, node.replace(" (", "\n("), ha="center", va="center", fontsize=8, zorder=5)
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(min(ys) - 0.8, max(ys) + 0.8)
    ax.set_axis_off()
    ax.set_title(spec["title"], fontsize=10)
    return fig
