"""Generic charts the notebooks share: grouped and stacked bars, curves, stacked time series.

Each function draws numbers computed elsewhere and returns the
:class:`matplotlib.figure.Figure`; ``ax=`` draws into an existing Axes (an explorer's).
Sizes, resolution and colours follow :mod:`labcalc.viz._base`.

Examples
--------
>>> import pandas as pd
>>> fig = grouped_bars(pd.DataFrame({"predicted": [4.69], "measured": [4.80]}, index=["h1"]), "Mbit/s")
>>> len(fig.axes[0].patches)
2
"""

from __future__ import annotations

from labcalc.viz._base import DPI, FIGSIZE, PALETTE, new_axes

__all__ = ["grouped_bars", "stacked_bars", "curves", "timeseries_panels"]


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


def timeseries_panels(panels, xlabel="time [s]", title=None, figsize=None, xlim=None):
    """Stacked time series sharing the time axis (queue, cwnd, RTT of one run).

    Parameters
    ----------
    panels : list of dict
        One per row: ``ylabel``; ``lines``: label -> (t, y); optional ``steps`` (bool),
        ``points``: label -> (t, y) drawn as markers, ``hlines``: [(y, text)],
        ``band``: (y0, y1, text), ``ylim``.
    xlabel : str, default "time [s]"
        Label of the shared time axis (under the last panel).
    title : str, optional
        Title above the first panel.
    figsize : (float, float), optional
        Figure size [inch]; by default 7 wide and 1.9 per panel (+0.6) high.
    xlim : (float, float), optional
        Time range shown [s].

    Returns
    -------
    matplotlib.figure.Figure
        ``len(panels)`` Axes.

    Examples
    --------
    >>> fig = timeseries_panels([{"ylabel": "a", "lines": {"x": ([0, 1], [1, 2])}},
    ...                          {"ylabel": "b", "lines": {"y": ([0, 1], [3, 4])}, "hlines": [(3.5, "cap")]}])
    >>> [len(a.lines) for a in fig.axes]
    [1, 2]
    """
    from matplotlib.figure import Figure

    n = len(panels)
    fig = Figure(figsize=figsize or (FIGSIZE[0], 1.9 * n + 0.6), dpi=DPI, layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    for k, (ax, spec) in enumerate(zip(axes, panels)):
        for j, (label, (t, y)) in enumerate(spec.get("lines", {}).items()):
            colour = PALETTE[(j + (k if len(spec.get("lines", {})) == 1 else 0)) % 10]
            if spec.get("steps"):
                ax.step(t, y, where="post", lw=1.2, label=label, color=colour)
            else:
                ax.plot(t, y, lw=1.2, label=label, color=colour)
        for j, (label, (t, y)) in enumerate(spec.get("points", {}).items()):
            ax.scatter(t, y, s=22, marker="x", color=PALETTE[(3 + j) % 10], label=label, zorder=4)
        for y, text in spec.get("hlines", []):
            ax.axhline(y, color="black", linestyle="--", lw=0.9)
            ax.annotate(text, (1, y), xycoords=("axes fraction", "data"), textcoords="offset points",
                        xytext=(-4, 3), ha="right", fontsize=8)
        if spec.get("band"):
            y0, y1, text = spec["band"]
            ax.axhspan(y0, y1, color="#bbbbbb", alpha=0.35, label=text)
        if spec.get("ylim"):
            ax.set_ylim(*spec["ylim"])
        ax.set_ylabel(spec.get("ylabel", ""))
        ax.legend(fontsize=8, loc="upper right", ncol=3)
    if xlim is not None:
        axes[-1].set_xlim(*xlim)
    axes[-1].set_xlabel(xlabel)
    if title:
        axes[0].set_title(title)
    return fig
