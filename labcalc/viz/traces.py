"""Measured traces: windows with their congestion-control phases, a queue with its drops.

Each function draws what :mod:`labcalc.measure` read from a tool's output (tcp_probe, ss,
ns-3 traces, tc qdisc samples) and returns the :class:`matplotlib.figure.Figure`;
``ax=`` draws into an existing Axes. :func:`phase_spans` (no drawing) turns the
per-sample states of :func:`labcalc.measure.cwnd_phases` into shaded intervals.

Examples
--------
>>> phase_spans([0.0, 1.0, 2.0, 3.0], ["slow-start", "slow-start", "fast-recovery", "congestion-avoidance"])
[(0.0, 2.0, 'slow-start'), (2.0, 3.0, 'fast-recovery')]
"""

from __future__ import annotations

from labcalc.viz._base import DPI, FIGSIZE, PALETTE, new_axes

__all__ = ["PHASE_COLOURS", "phase_spans", "cwnd_trace", "cwnd_traces", "queue_with_drops"]


#: Shading of the congestion-control states (as labelled by ``cwnd_phases``).
PHASE_COLOURS = {"slow-start": "#ffd8a8", "congestion-avoidance": "#d3f0d3", "fast-recovery": "#f8c6c6"}


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
    fig, ax = new_axes(ax)
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
    ax.step(t, df[ccol].to_numpy(dtype=float) / scale, where="post", color=PALETTE[0], lw=1.3, label=label)
    if scol in df.columns and df[scol].notna().any():
        ax.step(t, df[scol].to_numpy(dtype=float) / scale, where="post", color=PALETTE[3], lw=1.1,
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
    fig = Figure(figsize=figsize or (FIGSIZE[0], 2.2 * n + 0.5), dpi=DPI, layout="constrained")
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    for k, (ax, (trace, phases, title)) in enumerate(zip(axes, rows)):
        cwnd_trace(trace, phases, ax=ax, scale=scale, ylabel=ylabel, title=title, xlim=xlim, legend=(k == 0))
        if k < n - 1:
            ax.set_xlabel("")
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
    fig, ax = new_axes(ax)
    start = float(queue["time_s"].iloc[0]) if t0 is None else float(t0)
    t = queue["time_s"].to_numpy(dtype=float) - start
    b = queue["backlog_packets"].to_numpy(dtype=float)
    ax.step(t, b, where="post", lw=1.0, color=PALETTE[0], label=label)
    mask = queue["dropped"].to_numpy(dtype=bool)
    ax.scatter(t[mask], b[mask], marker="x", s=28, color=PALETTE[3], label="drop", zorder=4)
    if limit is not None:
        ax.axhline(limit, color="black", linestyle="--", lw=0.9)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("queue [packets]")
    ax.legend(fontsize=8, loc="upper right")
    if title:
        ax.set_title(title)
    return fig
