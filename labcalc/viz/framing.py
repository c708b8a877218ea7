"""Framing pictures and the framing explorer (notebook 01).

:func:`accounting_bars` shows the bytes one datagram costs, layer by layer, in each
accounting of :mod:`labcalc.framing`; :func:`efficiency_curves` the share of payload
against the payload size; :func:`framing_explorer` both for the payload, MTU, transport
and accounting a student picks.

Examples
--------
>>> from labcalc import framing
>>> fig = accounting_bars(framing.frame(1000), ("wire", "tc"))
>>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
['wire (handout)', 'tc (Linux shaper)']
>>> ex = framing_explorer()
>>> ex.set(accounting="tc")
>>> "4798.5 kbit/s" in ex.readout.value
True
"""

from __future__ import annotations

import functools
import math

import numpy as np

from labcalc.tcp import TCP_TIMESTAMPS_BYTES
from labcalc.viz._base import FIGSIZE, PALETTE, Explorer, choice, new_axes, readout_lines, slider

__all__ = [
    "accounting_bars", "efficiency_curves",
    "framing_values", "framing_readout", "framing_explorer",
]


_ACCOUNTING_LABELS = {"wire": "wire (handout)", "frame": "frame (MAC)",
                      "tc": "tc (Linux shaper)", "ip": "ip (IP packet)"}


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
    fig, ax = new_axes(ax, figsize=(FIGSIZE[0], 0.9 + 0.5 * len(accountings)))
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


# --------------------------------------------------------------------------------------
# 01: framing
# --------------------------------------------------------------------------------------

_ACCOUNTINGS = ("wire", "frame", "tc", "ip")


@functools.lru_cache(maxsize=64)
def _efficiency_curve(mtu_bytes, transport):
    from labcalc import framing

    grid = np.unique(np.round(np.logspace(0, math.log10(9000), 120)).astype(int))
    options = TCP_TIMESTAMPS_BYTES if transport == "tcp" else 0
    curves = {acc: [] for acc in _ACCOUNTINGS}
    for payload in grid:
        train = framing.frames_for_mtu(int(payload), mtu_bytes, transport, tcp_options_bytes=options)
        for acc in _ACCOUNTINGS:
            curves[acc].append(train.efficiency(acc))
    return grid, {acc: np.array(v) for acc, v in curves.items()}


def framing_values(payload_bytes=1000, mtu_bytes=1500, transport="udp", accounting="wire",
                   link_mbps=5.0):
    """What the framing explorer shows: frames, bytes counted, efficiency, max goodput.

    Parameters
    ----------
    payload_bytes : int
        Application data per UDP datagram or TCP write [byte].
    mtu_bytes : int
        Link MTU [byte]; TCP segments at the MSS (MTU - 52 with timestamps), UDP
        datagrams above MTU - 28 are fragmented by IP.
    transport : {"udp", "tcp"}
    accounting : {"wire", "frame", "tc", "ip"}
        See :mod:`labcalc.framing`.
    link_mbps : float
        Link (shaper) rate [Mbit/s].

    Returns
    -------
    dict
        ``frames``, ``counted_bytes``, ``efficiency``, ``max_goodput_bps``,
        ``units_per_s`` (datagrams or writes per second), ``efficiencies`` (dict by
        accounting), and the curve ``curve_payload_bytes`` / ``curve`` (dict by
        accounting) for the plot.

    Examples
    --------
    >>> v = framing_values(2896, 1500, "tcp", "tc")
    >>> v["frames"], v["counted_bytes"], round(v["max_goodput_bps"] / 1e3, 1)
    (2, 3028, 4782.0)
    """
    from labcalc import framing

    if accounting not in _ACCOUNTINGS:
        raise ValueError(f"accounting must be one of {', '.join(_ACCOUNTINGS)}; got {accounting!r}")
    options = TCP_TIMESTAMPS_BYTES if transport == "tcp" else 0
    train = framing.frames_for_mtu(int(payload_bytes), int(mtu_bytes), transport, tcp_options_bytes=options)
    link_bps = float(link_mbps) * 1e6
    counted = train.bytes(accounting)
    eff = train.efficiency(accounting)
    grid, curve = _efficiency_curve(int(mtu_bytes), transport)
    return {
        "payload_bytes": int(payload_bytes),
        "mtu_bytes": int(mtu_bytes),
        "transport": transport,
        "accounting": accounting,
        "link_bps": link_bps,
        "frames": len(train.frames),
        "counted_bytes": counted,
        "efficiency": eff,
        "max_goodput_bps": link_bps * eff,
        "units_per_s": link_bps / (8.0 * counted),
        "efficiencies": {acc: train.efficiency(acc) for acc in _ACCOUNTINGS},
        "curve_payload_bytes": grid,
        "curve": curve,
    }


def framing_readout(values) -> str:
    """The framing explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`framing_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity, rates in [kbit/s].

    Examples
    --------
    >>> print(framing_readout(framing_values()))  # doctest: +NORMALIZE_WHITESPACE
    setting                   UDP, 1000 bytes of data, MTU 1500, wire accounting
    frames per datagram       1
    bytes counted             1066
    efficiency                93.81 %
    max goodput at 5.0 Mbit/s 4690.4 kbit/s
    datagrams per second      586.3
    efficiency by accounting  wire 93.81 %, frame 95.60 %, tc 95.97 %, ip 97.28 %
    """
    v = values
    unit = "datagram" if v["transport"] == "udp" else "write"
    setting = (f"{v['transport'].upper()}, {v['payload_bytes']} bytes of data, MTU {v['mtu_bytes']}, "
               f"{v['accounting']} accounting")
    by_acc = ", ".join(f"{acc} {100 * e:.2f} %" for acc, e in v["efficiencies"].items())
    return readout_lines([
        ("setting", setting),
        (f"frames per {unit}", f"{v['frames']}"),
        ("bytes counted", f"{v['counted_bytes']}"),
        ("efficiency", f"{100 * v['efficiency']:.2f} %"),
        (f"max goodput at {v['link_bps'] / 1e6:.1f} Mbit/s", f"{v['max_goodput_bps'] / 1e3:.1f} kbit/s"),
        (f"{unit}s per second", f"{v['units_per_s']:.1f}"),
        ("efficiency by accounting", by_acc),
    ])


def _draw_framing(ax, v, settings):
    labels = {"wire": "wire (handout)", "frame": "frame (MAC)", "tc": "tc (Linux shaper)", "ip": "ip packet"}
    efficiency_curves(
        v["curve_payload_bytes"], {labels[a]: c for a, c in v["curve"].items()},
        marker=(v["payload_bytes"], v["efficiency"], f"{v['max_goodput_bps'] / 1e3:.0f} kbit/s"),
        ax=ax)
    ax.minorticks_off()


def framing_explorer(payload_bytes=1000, mtu_bytes=1500, transport="udp", accounting="wire",
                     link_mbps=5.0) -> Explorer:
    """Payload size, MTU, transport and accounting -> efficiency curve and maximum goodput.

    Parameters
    ----------
    payload_bytes : int, default 1000
        Initial application data per datagram or write [byte].
    mtu_bytes : {576, 1280, 1500, 4000, 9000}, default 1500
        Initial link MTU [byte].
    transport : {"udp", "tcp"}, default "udp"
        Initial transport.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Initial byte accounting (see :mod:`labcalc.framing`).
    link_mbps : float, default 5.0
        Initial link rate [Mbit/s].

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`framing_values` for the current settings.

    Examples
    --------
    >>> ex = framing_explorer(transport="tcp", payload_bytes=2896)
    >>> ex.values["frames"]
    2
    """
    controls = {
        "payload_bytes": slider("int", payload_bytes, 1, 9000, 1, "data per send [B]"),
        "mtu_bytes": choice([576, 1280, 1500, 4000, 9000], mtu_bytes, "MTU [B]"),
        "transport": choice([("UDP", "udp"), ("TCP (timestamps)", "tcp")], transport, "transport"),
        "accounting": choice([("wire (handout)", "wire"), ("frame (MAC)", "frame"),
                               ("tc (Linux shaper)", "tc"), ("ip packet", "ip")], accounting, "accounting"),
        "link_mbps": slider("float", link_mbps, 0.5, 100.0, 0.5, "link rate [Mbit/s]", ".1f"),
    }
    return Explorer(controls, framing_values, framing_readout, _draw_framing,
                    title="Framing: what a datagram costs the link")
