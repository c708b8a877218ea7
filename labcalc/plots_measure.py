"""Figures of the measurement notebooks (08-11): traces, phases, queues, models.

Like :mod:`labcalc.plots`: each function draws numbers computed elsewhere (by
:mod:`labcalc.measure`, :mod:`labcalc.widgets_measure` or a notebook) and returns the
:class:`matplotlib.figure.Figure`; ``ax=`` draws into an existing Axes. Figures are made
with :class:`matplotlib.figure.Figure` (no pyplot), and matplotlib is imported inside the
functions, so ``import labcalc`` stays light.

:func:`phase_spans` (no drawing) turns the per-sample states of
:func:`labcalc.measure.cwnd_phases` into shaded intervals.

Examples
--------
>>> phase_spans([0.0, 1.0, 2.0, 3.0], ["slow-start", "slow-start", "fast-recovery", "congestion-avoidance"])
[(0.0, 2.0, 'slow-start'), (2.0, 3.0, 'fast-recovery')]
>>> fig = timeseries_panels([{"ylabel": "queue", "lines": {"q": ([0, 1, 2], [0, 5, 3])}}])
>>> len(fig.axes)
1
"""

from __future__ import annotations

__all__ = [
    "PHASE_COLOURS",
    "SEED_TOPOLOGIES",
    "phase_spans",
    "cwnd_trace",
    "cwnd_traces",
    "timeseries_panels",
    "queue_with_drops",
    "sawtooth",
    "rtt_sawtooth",
    "response_curves",
    "phase_plane",
    "topology",
]

#: Shading of the congestion-control states (as labelled by ``cwnd_phases``).
PHASE_COLOURS = {"slow-start": "#ffd8a8", "congestion-avoidance": "#d3f0d3", "fast-recovery": "#f8c6c6"}

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
            "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


def _new(ax=None, figsize=(7.0, 3.4)):
    from labcalc import plots

    return plots.new_axes(ax, figsize=figsize)


def phase_spans(times, states):
    """Intervals of constant state: ``[(start, end, state), ...]``.

    Each sample's state lasts until the next sample; the last sample closes the last
    interval (it starts none). Consecutive samples in the same state are merged.

    Parameters
    ----------
    times : array_like
        Sample times [s], increasing.
    states : sequence of str
        State after each sample (``CwndPhases.states``).

    Returns
    -------
    list of (float, float, str)
        ``(start [s], end [s], state)`` for each run of samples in one state.

    Examples
    --------
    >>> phase_spans([0, 1, 2], ["slow-start"] * 3)
    [(0.0, 2.0, 'slow-start')]
    """
    t = [float(x) for x in times]
    s = [str(x) for x in states]
    if len(t) != len(s):
        raise ValueError(f"times and states must have the same length; got {len(t)} and {len(s)}")
    spans = []
    for k in range(len(t) - 1):
        if spans and spans[-1][2] == s[k] and spans[-1][1] == t[k]:
            spans[-1] = (spans[-1][0], t[k + 1], s[k])
        else:
            spans.append((t[k], t[k + 1], s[k]))
    return spans


def cwnd_trace(trace, phases=None, ax=None, scale=1.0, ylabel="cwnd [segments]", title=None, t0=None,
               label="cwnd", xlim=None, legend=True):
    """A congestion window (and ssthresh) over time, with the phases shaded.

    Parameters
    ----------
    trace : pandas.DataFrame
        ``time_s`` and ``cwnd_segments`` or ``cwnd_bytes`` (and ``ssthresh_*`` if known).
    phases : labcalc.measure.CwndPhases, optional
        From :func:`labcalc.measure.cwnd_phases` on the same trace: shades the states.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    scale : float
        Divide the window by this (e.g. 1000 to plot bytes as kB).
    ylabel : str, default "cwnd [segments]"
        Label of the y axis (say the unit after ``scale``).
    title : str, optional
        Title of the Axes.
    t0 : float, optional
        Time subtracted from ``time_s`` (default: the first sample's) [s].
    label : str, default "cwnd"
        Legend label of the window line.
    xlim : (float, float), optional
        Time range shown [s after t0].
    legend : bool, default True
        Draw the legend.

    Returns
    -------
    matplotlib.figure.Figure
        One line for cwnd (+1 for ssthresh), one span per phase interval.

    Examples
    --------
    >>> import pandas as pd
    >>> tr = pd.DataFrame({"time_s": [0, 1, 2], "cwnd_segments": [1, 2, 4]})
    >>> len(cwnd_trace(tr).axes[0].lines)
    1
    """
    fig, ax = _new(ax)
    ccol = "cwnd_bytes" if "cwnd_bytes" in trace.columns else "cwnd_segments"
    scol = ccol.replace("cwnd", "ssthresh")
    df = trace.sort_values("time_s", kind="stable")
    start = float(df["time_s"].iloc[0]) if t0 is None else float(t0)
    t = df["time_s"].to_numpy(dtype=float) - start
    if phases is not None:
        seen = set()
        pt = (phases.time if phases.time is not None else df["time_s"].to_numpy(dtype=float)) - start
        for a, b, state in phase_spans(pt, phases.states.to_numpy()):
            ax.axvspan(a, b, color=PHASE_COLOURS.get(state, "#eeeeee"), alpha=0.8, lw=0,
                       label=None if state in seen else state, zorder=0)
            seen.add(state)
    ax.step(t, df[ccol].to_numpy(dtype=float) / scale, where="post", color=_PALETTE[0], lw=1.3, label=label)
    if scol in df.columns and df[scol].notna().any():
        ax.step(t, df[scol].to_numpy(dtype=float) / scale, where="post", color=_PALETTE[3], lw=1.1,
                linestyle="--", label="ssthresh")
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(ylabel)
    if legend:
        ax.legend(fontsize=8, loc="upper right", ncol=2)
    if title:
        ax.set_title(title)
    return fig


def cwnd_traces(rows, xlim=None, scale=1.0, ylabel="cwnd [segments]", figsize=None):
    """Several cwnd traces stacked on a shared time axis, each with its phases shaded.

    Parameters
    ----------
    rows : list of (trace, phases, title)
        As for :func:`cwnd_trace` (``phases`` may be None).
    xlim : (float, float), optional
        Time range shown, common to all rows [s after each trace's start].
    scale : float, default 1.0
        Divide the windows by this (e.g. 1000 to plot bytes as kB).
    ylabel : str, default "cwnd [segments]"
        Label of every y axis.
    figsize : (float, float), optional
        Figure size [inch]; by default 7 wide and 2.2 per row (+0.5) high.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes per row.

    Examples
    --------
    >>> import pandas as pd
    >>> tr = pd.DataFrame({"time_s": [0, 1, 2], "cwnd_segments": [1, 2, 4]})
    >>> len(cwnd_traces([(tr, None, "a"), (tr, None, "b")]).axes)
    2
    """
    from matplotlib.figure import Figure

    n = len(rows)
    fig = Figure(figsize=figsize or (7.0, 2.2 * n + 0.5), dpi=100, layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    for k, (ax, (trace, phases, title)) in enumerate(zip(axes, rows)):
        cwnd_trace(trace, phases, ax=ax, scale=scale, ylabel=ylabel, title=title, xlim=xlim, legend=(k == 0))
        if k < n - 1:
            ax.set_xlabel("")
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
    fig = Figure(figsize=figsize or (7.0, 1.9 * n + 0.6), dpi=100, layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    for k, (ax, spec) in enumerate(zip(axes, panels)):
        for j, (label, (t, y)) in enumerate(spec.get("lines", {}).items()):
            colour = _PALETTE[(j + (k if len(spec.get("lines", {})) == 1 else 0)) % 10]
            if spec.get("steps"):
                ax.step(t, y, where="post", lw=1.2, label=label, color=colour)
            else:
                ax.plot(t, y, lw=1.2, label=label, color=colour)
        for j, (label, (t, y)) in enumerate(spec.get("points", {}).items()):
            ax.scatter(t, y, s=22, marker="x", color=_PALETTE[(3 + j) % 10], label=label, zorder=4)
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


def queue_with_drops(queue, ax=None, title=None, limit=None, t0=None, label="backlog"):
    """Queue occupancy as steps, drops as red crosses on top (seed 004's queue plot).

    Parameters
    ----------
    queue : pandas.DataFrame
        From :func:`labcalc.measure.queue_occupancy`: ``time_s``, ``backlog_packets``,
        ``dropped``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    title : str, optional
        Title of the Axes.
    limit : float, optional
        Queue limit [packets], drawn as a dashed line.
    t0 : float, optional
        Time subtracted from ``time_s`` (default: the first sample's) [s].
    label : str, default "backlog"
        Legend label of the queue line.

    Returns
    -------
    matplotlib.figure.Figure
        One step line for the queue (+1 for ``limit``), one scatter of drops.

    Examples
    --------
    >>> import pandas as pd
    >>> q = pd.DataFrame({"time_s": [0, 1, 2], "backlog_packets": [0, 40, 20], "dropped": [False, True, False]})
    >>> ax = queue_with_drops(q, limit=40).axes[0]
    >>> len(ax.lines), len(ax.collections)
    (2, 1)
    """
    fig, ax = _new(ax)
    start = float(queue["time_s"].iloc[0]) if t0 is None else float(t0)
    t = queue["time_s"].to_numpy(dtype=float) - start
    b = queue["backlog_packets"].to_numpy(dtype=float)
    ax.step(t, b, where="post", lw=1.0, color=_PALETTE[0], label=label)
    mask = queue["dropped"].to_numpy(dtype=bool)
    ax.scatter(t[mask], b[mask], marker="x", s=28, color=_PALETTE[3], label="drop", zorder=4)
    if limit is not None:
        ax.axhline(limit, color="black", linestyle="--", lw=0.9)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("queue [packets]")
    ax.legend(fontsize=8, loc="upper right")
    if title:
        ax.set_title(title)
    return fig


def sawtooth(values, ax=None, measured=None, title=None):
    """The window of :func:`labcalc.widgets_measure.sawtooth_values` over its cycles.

    Parameters
    ----------
    values : dict
        From :func:`labcalc.widgets_measure.sawtooth_values`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    measured : dict, optional
        ``label -> (times_s, windows_packets)`` drawn as small points.
    title : str, optional
        Title of the Axes.

    Returns
    -------
    matplotlib.figure.Figure
        The model window [packets] and the BDP and BDP + buffer lines.

    Examples
    --------
    >>> from labcalc.widgets_measure import sawtooth_values
    >>> len(sawtooth(sawtooth_values()).axes[0].lines)
    3
    """
    fig, ax = _new(ax)
    v = values
    ax.plot(v["t_s"], v["cwnd_packets"], color=_PALETTE[0], lw=1.5, label=f"{v['algorithm']} model")
    ax.axhline(v["bdp_packets"], color="black", linestyle=":", lw=0.9)
    ax.axhline(v["bdp_packets"] + v["buffer_packets"], color="black", linestyle="--", lw=0.9)
    ax.annotate("BDP", (1, v["bdp_packets"]), xycoords=("axes fraction", "data"), textcoords="offset points",
                xytext=(-4, 3), ha="right", fontsize=8)
    ax.annotate("BDP + buffer", (1, v["bdp_packets"] + v["buffer_packets"]), xycoords=("axes fraction", "data"),
                textcoords="offset points", xytext=(-4, -10), ha="right", fontsize=8)
    for k, (label, (t, w)) in enumerate((measured or {}).items()):
        ax.scatter(t, w, s=5, color=_PALETTE[(k + 1) % 10], label=label, zorder=3)
    ax.set_ylim(0, 1.12 * max(v["w_max_packets"], 1.0))
    ax.set_xlabel("time [s]")
    ax.set_ylabel("cwnd [packets]")
    ax.legend(fontsize=8, loc="lower right")
    if title:
        ax.set_title(title)
    return fig


def rtt_sawtooth(values, ax=None, measured=None, title=None):
    """The RTT a ping sees over the cycles of :func:`~labcalc.widgets_measure.sawtooth_values`.

    Parameters
    ----------
    values : dict
        From :func:`labcalc.widgets_measure.sawtooth_values`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    measured : dict, optional
        ``label -> (low_s, high_s)`` shaded bands, or ``label -> rtt_s`` lines.
    title : str, optional
        Title of the Axes.

    Returns
    -------
    matplotlib.figure.Figure
        The model RTT [ms], the full-buffer line and the measured RTTs.

    Examples
    --------
    >>> from labcalc.widgets_measure import sawtooth_values
    >>> ax = rtt_sawtooth(sawtooth_values(), measured={"ping": (0.47, 0.68), "avg": 0.58}).axes[0]
    >>> len(ax.lines), len(ax.patches)
    (3, 1)
    """
    fig, ax = _new(ax)
    v = values
    ax.plot(v["t_s"], 1e3 * v["rtt_s"], color=_PALETTE[0], lw=1.5, label="model")
    ax.axhline(1e3 * (v["base_rtt_s"] + v["full_buffer_delay_s"]), color="black", linestyle="--", lw=0.9)
    ax.annotate("full buffer", (1, 1e3 * (v["base_rtt_s"] + v["full_buffer_delay_s"])),
                xycoords=("axes fraction", "data"), textcoords="offset points", xytext=(-4, 3), ha="right", fontsize=8)
    for k, (label, value) in enumerate((measured or {}).items()):
        if isinstance(value, tuple):
            ax.axhspan(1e3 * value[0], 1e3 * value[1], color=_PALETTE[(k + 1) % 10], alpha=0.2, label=label)
        else:
            ax.axhline(1e3 * value, color=_PALETTE[(k + 1) % 10], lw=1.2, label=label)
    ax.set_ylim(0, 1.15e3 * (v["base_rtt_s"] + v["full_buffer_delay_s"]))
    ax.set_xlabel("time [s]")
    ax.set_ylabel("RTT [ms]")
    ax.legend(fontsize=8, loc="lower right")
    if title:
        ax.set_title(title)
    return fig


def response_curves(values, ax=None, measured=None, title=None):
    """Rate against loss rate (log-log) for Reno, CUBIC and PFTK, capped by the link.

    Parameters
    ----------
    values : dict
        From :func:`labcalc.widgets_measure.response_values`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    measured : dict, optional
        ``label -> (loss_fraction, rate_bps)`` drawn as points.
    title : str, optional
        Title of the Axes; by default the RTT and the link rate.

    Returns
    -------
    matplotlib.figure.Figure
        Rate [Mbit/s] against loss rate [%]: three model curves and the link rate.

    Examples
    --------
    >>> from labcalc.widgets_measure import response_values
    >>> ax = response_curves(response_values(), measured={"seed 003": (0.001, 5.76e6)}).axes[0]
    >>> len(ax.lines), len(ax.collections)
    (4, 2)
    """
    fig, ax = _new(ax)
    v = values
    x = 100 * v["curve_loss"]
    ax.plot(x, v["curve_reno"] / 1e6, color=_PALETTE[0], lw=1.5, label="Reno (Mathis)")
    ax.plot(x, v["curve_cubic"] / 1e6, color=_PALETTE[1], lw=1.5, label="CUBIC (RFC 9438)")
    ax.plot(x, v["curve_pftk"] / 1e6, color=_PALETTE[2], lw=1.2, linestyle="--", label="Reno with timeouts (PFTK)")
    ax.axhline(v["link_bps"] / 1e6, color="black", linestyle=":", lw=0.9)
    ax.scatter([100 * v["loss"]], [v["mathis_capped_bps"] / 1e6], color="black", s=18, zorder=5)
    symbols = ("o", "s", "^", "D", "v", "P")
    for k, (label, (p, r)) in enumerate((measured or {}).items()):
        ax.scatter([100 * p], [r / 1e6], marker=symbols[k % 6], s=40, color=_PALETTE[(k + 3) % 10],
                   edgecolor="black", linewidth=0.5, label=label, zorder=6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.minorticks_off()
    ax.set_xlabel("loss rate [%]")
    ax.set_ylabel("rate [Mbit/s]")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title(title or f"RTT {1e3 * v['rtt_s']:.0f} ms, link {v['link_rate_bps'] / 1e6:.0f} Mbit/s", fontsize=10)
    return fig


def phase_plane(values, ax=None, title=None):
    """Two flows' rates in the (x, y) plane: efficiency line, fairness line, trajectory.

    Parameters
    ----------
    values : dict
        From :func:`labcalc.widgets_measure.chiu_jain_values`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    title : str, optional
        Title of the Axes.

    Returns
    -------
    matplotlib.figure.Figure
        The lines ``x + y = capacity`` and ``x = y`` and the trajectory of the rates.

    Examples
    --------
    >>> from labcalc.widgets_measure import chiu_jain_values
    >>> len(phase_plane(chiu_jain_values()).axes[0].lines)
    3
    """
    fig, ax = _new(ax, figsize=(5.2, 4.4))
    v = values
    cap = v["capacity"]
    ax.plot([0, cap], [cap, 0], color="black", lw=1.0, label="x + y = capacity")
    ax.plot([0, cap], [0, cap], color="black", lw=1.0, linestyle="--", label="x = y (fair)")
    ax.plot(v["x"], v["y"], color=_PALETTE[0], lw=0.9, marker=".", ms=3, label=v["policy"])
    ax.scatter([v["x"][0]], [v["y"][0]], color=_PALETTE[3], s=30, zorder=5, label="start")
    ax.set_xlim(0, 1.1 * cap)
    ax.set_ylim(0, 1.1 * cap)
    ax.set_aspect("equal")
    ax.set_xlabel("flow x")
    ax.set_ylabel("flow y")
    ax.legend(fontsize=8, loc="upper right")
    if title:
        ax.set_title(title)
    return fig


# --------------------------------------------------------------------------------------
# topology drawings of the four seed reports
# --------------------------------------------------------------------------------------

#: Nodes, links (a, b, label), flows (name, path, colour) and routers (drawn as squares;
#: hosts are circles) of the seeds' networks.
SEED_TOPOLOGIES = {
    "seed001": {
        "title": "ns-3 tcp-variants-comparison (seed 001) and its Linux stand-in",
        "nodes": {"source": (0, 0.9), "gw": (2.6, 0.9), "sink": (5.2, 0.9),
                  "h1": (0, -0.9), "r": (2.6, -0.9), "h2": (5.2, -0.9)},
        "links": [("source", "gw", "10 Mbit/s, 45 ms"), ("gw", "sink", "2 Mbit/s, 0.01 ms\nqueue 56 + 100"),
                  ("h1", "r", "veth"), ("r", "h2", "1.5 Mbit/s (htb)\npfifo 100")],
        "flows": [("ns-3 BulkSend", ["source", "gw", "sink"], "#d62728"),
                  ("iperf3 (this machine)", ["h1", "r", "h2"], "#1f77b4")],
        "routers": ("gw", "r"),
    },
    "seed002": {
        "title": "Bufferbloat exercise (seed 002): one switch, a slow link to h2",
        "nodes": {"h1": (0, 0), "s0": (2.6, 0), "h2": (5.2, 0)},
        "links": [("h1", "s0", "fast"), ("s0", "h2", "1.5 Mbit/s\nqueue 100 or 20")],
        "flows": [("iperf (long flow)", ["h1", "s0", "h2"], "#d62728"),
                  ("web page, ping", ["h1", "s0", "h2"], "#1f77b4")],
        "routers": ("s0",),
    },
    "seed003": {
        "title": "Mininet h1 - s1 - s2 - h2 (seed 003), second pair h3 - h4",
        "nodes": {"h1": (0, 0.8), "h3": (0, -0.8), "s1": (2.2, 0), "s2": (4.6, 0), "h2": (6.8, 0.8), "h4": (6.8, -0.8)},
        "links": [("h1", "s1", "5 ms"), ("h3", "s1", ""), ("s1", "s2", "core: 100 Mbit/s,\n200 ms, 0.1 % loss"),
                  ("s2", "h2", "5 ms"), ("s2", "h4", "")],
        "flows": [("h1 -> h2", ["h1", "s1", "s2", "h2"], "#d62728"), ("h3 -> h4", ["h3", "s1", "s2", "h4"], "#1f77b4")],
        "routers": ("s1", "s2"),
    },
    "seed004": {
        "title": "Seed 004's simulator: one link, and the competing-RTT network",
        "nodes": {"n1": (0, 1.0), "n2": (2.6, 1.0), "a (n1)": (0, -0.4), "b (n2)": (0, -1.6), "n3": (2.6, -1.0),
                  "n4": (5.2, -1.0)},
        "links": [("n1", "n2", "10 Mbit/s, 10 ms\nqueue 40"), ("a (n1)", "n3", "100 ms"), ("b (n2)", "n3", "10 ms"),
                  ("n3", "n4", "10 Mbit/s, 10 ms\nqueue 100")],
        "flows": [("c1, c2 ...", ["n1", "n2"], "#2ca02c"), ("a: long RTT", ["a (n1)", "n3", "n4"], "#d62728"),
                  ("b: short RTT", ["b (n2)", "n3", "n4"], "#1f77b4")],
        "routers": ("n3",),
    },
}


def topology(name, ax=None):
    """A drawing of one of :data:`SEED_TOPOLOGIES`.

    Parameters
    ----------
    name : str
        A key of :data:`SEED_TOPOLOGIES`, e.g. ``"seed002"``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.

    Returns
    -------
    matplotlib.figure.Figure
        Links with their labels, flows as dashed arrows, hosts as circles and routers
        as squares.

    Raises
    ------
    ValueError
        For an unknown name.

    Examples
    --------
    >>> fig = topology("seed002")
    >>> len(fig.axes[0].texts) >= 3
    True
    """
    import math

    if name not in SEED_TOPOLOGIES:
        raise ValueError(f"topology must be one of {', '.join(SEED_TOPOLOGIES)}; got {name!r}")
    spec = SEED_TOPOLOGIES[name]
    nodes = spec["nodes"]
    xs = [p[0] for p in nodes.values()]
    ys = [p[1] for p in nodes.values()]
    width = max(xs) - min(xs) + 2.0
    height = max(ys) - min(ys) + 1.8
    fig, ax = _new(ax, figsize=(min(8.0, 1.05 * width + 0.6), 0.95 * height + 0.7))
    for a, b, label in spec["links"]:
        (x0, y0), (x1, y1) = nodes[a], nodes[b]
        ax.plot([x0, x1], [y0, y1], color="#444444", linewidth=2.2, zorder=1)
        if label:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.12, label, ha="center", va="bottom", fontsize=8,
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85), zorder=3)
    for k, (flow, path, colour) in enumerate(spec["flows"]):
        d = 0.14 * (1 + k % 2)
        pts = [nodes[p] for p in path]
        for j, ((x0, y0), (x1, y1)) in enumerate(zip(pts[:-1], pts[1:])):
            length = math.hypot(x1 - x0, y1 - y0)
            ux, uy = (x1 - x0) / length, (y1 - y0) / length
            nx, ny = uy, -ux
            start = 0.38 if j == 0 else 0.0
            stop = 0.48 if j == len(pts) - 2 else 0.0
            p0 = (x0 + ux * start + nx * d, y0 + uy * start + ny * d)
            p1 = (x1 - ux * stop + nx * d, y1 - uy * stop + ny * d)
            ax.plot([p0[0], p1[0]], [p0[1], p1[1]], color=colour, linewidth=1.4, linestyle=(0, (4, 2)), zorder=2,
                    label=flow if j == 0 else None)
            if j == len(pts) - 2:
                ax.annotate("", xy=p1, xytext=(p1[0] - ux * 0.3, p1[1] - uy * 0.3),
                            arrowprops=dict(arrowstyle="->", color=colour, lw=1.4))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=len(spec["flows"]), fontsize=8, frameon=False)
    for node, (x, y) in nodes.items():
        router = node in spec.get("routers", ())
        ax.scatter([x], [y], s=900, marker="s" if router else "o", zorder=4,
                   color="#ffe9a8" if router else "#cfe3f6", edgecolor="#333333")
        ax.text(x, y, node.replace(" (", "\n("), ha="center", va="center", fontsize=8, zorder=5)
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(min(ys) - 0.8, max(ys) + 0.8)
    ax.set_axis_off()
    ax.set_title(spec["title"], fontsize=10)
    return fig
