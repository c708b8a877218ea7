"""Interactive explorers for the notebooks (ipywidgets), and the numbers they display.

Each explorer is split in three parts so that its numbers can be tested without a
browser:

``<name>_values(**settings) -> dict``
    the pure computation: what the explorer displays for these slider settings (base
    units: bit/s, s, byte, fractions), computed by the library;
``<name>_readout(values) -> str``
    the fixed-format text the explorer shows (an ``ipywidgets.HTML`` holding a
    ``<pre class="labcalc-readout">``), so a browser test can compare it with what
    labcalc computes for the same settings;
``<name>_explorer(...) -> Explorer``
    the widget: controls, the readout and a figure (a PNG in an ``ipywidgets.Image``),
    recomputed and redrawn on every change of a control.

:class:`Explorer` is an ``ipywidgets.VBox``: display it in a notebook, move its
controls, or drive it from code with :meth:`Explorer.set` (tests, benchmarks). Every
refresh records its duration in ``last_refresh_s``.

The cvxpy problem behind the parking-lot explorer is built once with cvxpy
``Parameter`` capacities (:class:`ProportionalFairProblem`) and only re-solved when a
slider moves.

Examples
--------
>>> v = framing_values(payload_bytes=1000, transport="udp", accounting="tc")
>>> round(v["max_goodput_bps"] / 1e3, 1)
4798.5
>>> ex = framing_explorer()
>>> ex.set(accounting="tc")
>>> "4798.5 kbit/s" in ex.readout.value
True
"""

from __future__ import annotations

import functools
import html
import math
import time
import warnings

import ipywidgets as W
import numpy as np

from labcalc.fairness import polish_from_prices, waterfilling_steps

__all__ = [
    "Explorer",
    "framing_values", "framing_readout", "framing_explorer",
    "udp_split_values", "udp_split_readout", "udp_split_explorer",
    "tcp_udp_values", "tcp_udp_readout", "tcp_udp_explorer",
    "collapse_values", "collapse_readout", "collapse_explorer",
    "rtt_fairness_values", "rtt_fairness_readout", "rtt_fairness_explorer",
    "parking_lot_values", "parking_lot_readout", "parking_lot_explorer",
    "buffer_values", "buffer_readout", "buffer_explorer", "HANDOUT_MAX_QUEUE_PACKETS", "RED_THRESHOLDS_BYTES",
    "CUBIC_BETA",
    "answer_values", "answer_readout", "answer_checker",
    "ProportionalFairProblem",
    "waterfilling_steps",  # lives in labcalc.fairness; here for the notebooks
]

_STYLE = {"description_width": "150px"}
_LAYOUT = W.Layout(width="460px")


def _slider(kind, value, lo, hi, step, description, fmt=None):
    cls = {"int": W.IntSlider, "float": W.FloatSlider, "log": W.FloatLogSlider}[kind]
    kwargs = dict(value=value, step=step, description=description, style=_STYLE, layout=_LAYOUT,
                  continuous_update=False)
    if kind == "log":
        kwargs.update(base=10, min=lo, max=hi)
    else:
        kwargs.update(min=lo, max=hi)
    if fmt:
        kwargs["readout_format"] = fmt
    return cls(**kwargs)


def _choice(options, value, description):
    return W.Dropdown(options=options, value=value, description=description, style=_STYLE,
                      layout=_LAYOUT)


def _lines(rows) -> str:
    """Fixed-format readout: one ``label  value`` line per row."""
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {text}" for label, text in rows)


class Explorer(W.VBox):
    """Controls, a text readout and a figure, refreshed together.

    Parameters
    ----------
    controls : dict name -> ipywidgets value widget
        Their values are passed by name to ``compute``.
    compute : callable(**settings) -> dict
        The pure computation (a ``*_values`` function, possibly with fixed arguments).
    readout : callable(values) -> str
        The text shown (a ``*_readout`` function).
    draw : callable(ax, values, settings), optional
        Draws the figure for these values into a cleared Axes; None: no figure.
    figsize : (float, float)
    title : str, optional
        Shown above the controls.

    Attributes
    ----------
    controls : dict
    readout : ipywidgets.HTML
        ``<pre class="labcalc-readout">`` + the text of ``readout(values)``.
    image : ipywidgets.Image or None
        The figure as PNG.
    values : dict
        The last computed values.
    text : str
        The last readout text.
    last_refresh_s : float
        Duration of the last refresh (compute + readout + redraw + PNG) [s].
    last_refresh_cpu_s : float
        CPU time of the process during the last refresh [s] (the same on a busy machine).

    Examples
    --------
    >>> slider = W.IntSlider(value=1000, min=1, max=9000, description="data [B]")
    >>> ex = Explorer({"payload_bytes": slider}, framing_values, framing_readout)
    >>> ex.set(payload_bytes=1472)
    >>> ex.values["counted_bytes"], ex.image is None
    (1538, True)
    """

    #: Resolution of the PNG the widget shows [dots per inch].
    dpi = 72

    def __init__(self, controls, compute, readout, draw=None, figsize=(7.5, 3.6), title=None):
        self.controls = dict(controls)
        self._compute = compute
        self._readout_fn = readout
        self._draw = draw
        self._muted = False
        self.values = {}
        self.text = ""
        self.last_refresh_s = self.last_refresh_cpu_s = float("nan")
        self.readout = W.HTML(value="")
        self.readout.add_class("labcalc-readout")
        children = []
        if title:
            children.append(W.HTML(value=f"<b>{html.escape(title)}</b>"))
        children.append(W.VBox(list(self.controls.values())))
        children.append(self.readout)
        if draw is not None:
            from labcalc import plots

            self.figure, self.ax = plots.new_axes(figsize=figsize, layout=None)
            self.figure.set_dpi(self.dpi)
            self.image = W.Image(format="png", layout=W.Layout(max_width="100%"))
            children.append(self.image)
        else:
            self.figure = self.ax = self.image = None
        super().__init__(children)
        self.add_class("labcalc-explorer")  # lets a browser test find the explorer
        for widget in self.controls.values():
            widget.observe(self._on_change, names="value")
        self.refresh()

    def settings(self) -> dict:
        """The current value of every control, by name."""
        return {name: widget.value for name, widget in self.controls.items()}

    def _on_change(self, change):
        if not self._muted:
            self.refresh()

    def refresh(self):
        """Recompute, rewrite the readout and redraw the figure."""
        start = time.perf_counter()
        start_cpu = time.process_time()
        settings = self.settings()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = self._compute(**settings)
            text = self._readout_fn(values)
            self.values, self.text = values, text
            self.readout.value = f'<pre class="labcalc-readout">{html.escape(text)}</pre>'
            if self._draw is not None:
                from labcalc import plots

                plots.reset_axes(self.ax)
                self._draw(self.ax, values, settings)
                self.image.value = plots.to_png(self.figure, dpi=self.dpi)
        self.last_refresh_s = time.perf_counter() - start
        self.last_refresh_cpu_s = time.process_time() - start_cpu

    def set(self, **settings):
        """Set several controls at once (one refresh), as a user moving sliders would.

        Raises
        ------
        ValueError
            For an unknown control name (the message lists the known ones).
        """
        unknown = [k for k in settings if k not in self.controls]
        if unknown:
            raise ValueError(f"unknown control {unknown[0]!r}; controls: {', '.join(self.controls)}")
        self._muted = True
        try:
            for name, value in settings.items():
                self.controls[name].value = value
        finally:
            self._muted = False
        self.refresh()


# --------------------------------------------------------------------------------------
# 01: framing
# --------------------------------------------------------------------------------------

_ACCOUNTINGS = ("wire", "frame", "tc", "ip")
_TCP_OPTIONS = 12  # timestamps, as Linux sends them


@functools.lru_cache(maxsize=64)
def _efficiency_curve(mtu_bytes, transport):
    from labcalc import framing

    grid = np.unique(np.round(np.logspace(0, math.log10(9000), 120)).astype(int))
    options = _TCP_OPTIONS if transport == "tcp" else 0
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
    options = _TCP_OPTIONS if transport == "tcp" else 0
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
    return _lines([
        ("setting", setting),
        (f"frames per {unit}", f"{v['frames']}"),
        ("bytes counted", f"{v['counted_bytes']}"),
        ("efficiency", f"{100 * v['efficiency']:.2f} %"),
        (f"max goodput at {v['link_bps'] / 1e6:.1f} Mbit/s", f"{v['max_goodput_bps'] / 1e3:.1f} kbit/s"),
        (f"{unit}s per second", f"{v['units_per_s']:.1f}"),
        ("efficiency by accounting", by_acc),
    ])


def _draw_framing(ax, v, settings):
    from labcalc import plots

    labels = {"wire": "wire (handout)", "frame": "frame (MAC)", "tc": "tc (Linux shaper)", "ip": "ip packet"}
    plots.efficiency_curves(
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
        "payload_bytes": _slider("int", payload_bytes, 1, 9000, 1, "data per send [B]"),
        "mtu_bytes": _choice([576, 1280, 1500, 4000, 9000], mtu_bytes, "MTU [B]"),
        "transport": _choice([("UDP", "udp"), ("TCP (timestamps)", "tcp")], transport, "transport"),
        "accounting": _choice([("wire (handout)", "wire"), ("frame (MAC)", "frame"),
                               ("tc (Linux shaper)", "tc"), ("ip packet", "ip")], accounting, "accounting"),
        "link_mbps": _slider("float", link_mbps, 0.5, 100.0, 0.5, "link rate [Mbit/s]", ".1f"),
    }
    return Explorer(controls, framing_values, framing_readout, _draw_framing,
                    title="Framing: what a datagram costs the link")


# --------------------------------------------------------------------------------------
# 02: two UDP flows through one drop-tail bottleneck
# --------------------------------------------------------------------------------------


def udp_split_values(h1_mbps=1.0, h2_mbps=4.0, bottleneck_mbps=5.0, accounting="wire"):
    """Goodputs and losses of two UDP flows sharing the Figure 1 bottleneck.

    Parameters
    ----------
    h1_mbps, h2_mbps : float
        Application data rates of the two UDP clients [Mbit/s], >= 0.
    bottleneck_mbps : float
        Rate of r1-eth1 [Mbit/s].
    accounting : {"wire", "frame", "tc", "ip"}

    Returns
    -------
    dict
        ``offered_bps`` (dict flow -> application rate), ``goodput_bps``, ``loss``
        (dicts by flow ``h1``, ``h2``), ``load_bps`` (link bits arriving at the
        bottleneck), ``accepted`` (share the bottleneck keeps).

    Examples
    --------
    >>> v = udp_split_values(1, 4, 5, "wire")
    >>> round(v["goodput_bps"]["h1"] / 1e6, 3), round(100 * v["loss"]["h2"], 1)
    (0.938, 6.2)
    """
    from labcalc.labs import lab5
    from labcalc.openloop import fifo_split

    p = lab5.with_params(bottleneck_bps=float(bottleneck_mbps) * 1e6, h1_udp_bps=float(h1_mbps) * 1e6)
    res = fifo_split(lab5.network_lab51(p, float(h2_mbps) * 1e6, accounting=accounting))
    link = res.links.loc["r1-eth1"]
    return {
        "offered_bps": {"h1": float(h1_mbps) * 1e6, "h2": float(h2_mbps) * 1e6},
        "goodput_bps": {"h1": float(res.goodputs["h1_udp"]), "h2": float(res.goodputs["h2_udp"])},
        "loss": {"h1": float(res.loss["h1_udp"]), "h2": float(res.loss["h2_udp"])},
        "load_bps": float(link["arriving_bps"]),
        "capacity_bps": float(bottleneck_mbps) * 1e6,
        "accepted": float(link["accepted"]),
        "accounting": accounting,
    }


def udp_split_readout(values) -> str:
    """The UDP-split explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`udp_split_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity, rates in [Mbit/s] and losses in [%].

    Examples
    --------
    >>> print(udp_split_readout(udp_split_values(1, 9, 5)))  # doctest: +NORMALIZE_WHITESPACE
    load on r1-eth1       10.660 Mbit/s for 5.000 Mbit/s (wire accounting)
    share kept            46.90 %
    h1: goodput, loss     0.469 Mbit/s, 53.10 %
    h2: goodput, loss     4.221 Mbit/s, 53.10 %
    """
    v = values
    rows = [("load on r1-eth1", f"{v['load_bps'] / 1e6:.3f} Mbit/s for {v['capacity_bps'] / 1e6:.3f} Mbit/s "
                                f"({v['accounting']} accounting)"),
            ("share kept", f"{100 * v['accepted']:.2f} %")]
    for flow in ("h1", "h2"):
        rows.append((f"{flow}: goodput, loss", f"{v['goodput_bps'][flow] / 1e6:.3f} Mbit/s, "
                                               f"{100 * v['loss'][flow]:.2f} %"))
    return _lines(rows)


def _draw_udp_split(ax, v, settings):
    import pandas as pd

    from labcalc import plots

    table = pd.DataFrame({
        "goodput": [v["goodput_bps"][f] / 1e6 for f in ("h1", "h2")],
        "lost data": [(v["offered_bps"][f] - v["goodput_bps"][f]) / 1e6 for f in ("h1", "h2")],
    }, index=["h1 (UDP)", "h2 (UDP)"])
    plots.stacked_bars(table, "application data [Mbit/s]", ax=ax, colors=("#2ca02c", "#d62728"),
                       value_format="{:.2f}", legend_loc="upper left")


def udp_split_explorer(h1_mbps=1.0, h2_mbps=4.0, bottleneck_mbps=5.0, accounting="wire") -> Explorer:
    """The two sending rates and the bottleneck -> goodputs and losses (stacked bars).

    Parameters
    ----------
    h1_mbps, h2_mbps : float, default 1.0 and 4.0
        Initial application rates of the two UDP clients [Mbit/s].
    bottleneck_mbps : float, default 5.0
        Initial rate of r1-eth1 [Mbit/s].
    accounting : {"wire", "tc"}, default "wire"
        Initial byte accounting.

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`udp_split_values` for the current settings.

    Examples
    --------
    >>> ex = udp_split_explorer()
    >>> ex.set(h2_mbps=9.0)
    >>> round(100 * ex.values["loss"]["h1"], 1)
    53.1
    """
    controls = {
        "h1_mbps": _slider("float", h1_mbps, 0.1, 10.0, 0.1, "h1 sends [Mbit/s]", ".1f"),
        "h2_mbps": _slider("float", h2_mbps, 0.1, 20.0, 0.1, "h2 sends [Mbit/s]", ".1f"),
        "bottleneck_mbps": _slider("float", bottleneck_mbps, 0.5, 20.0, 0.5, "r1-eth1 [Mbit/s]", ".1f"),
        "accounting": _choice([("wire (handout)", "wire"), ("tc (Linux shaper)", "tc")], accounting,
                              "accounting"),
    }
    return Explorer(controls, udp_split_values, udp_split_readout, _draw_udp_split,
                    title="Two UDP flows, one drop-tail bottleneck")


# --------------------------------------------------------------------------------------
# 03: TCP against UDP
# --------------------------------------------------------------------------------------


def tcp_udp_values(h2_udp_mbps=4.0, loss_pct=22.0, rtt_ms=60.0, segment_bytes=2896, h1_udp_mbps=1.0,
                   bottleneck_mbps=5.0, rto_ms=200.0, accounting="wire"):
    """What is left for h2's TCP connection, and what the loss-throughput formulas give.

    Parameters
    ----------
    h2_udp_mbps, h1_udp_mbps : float
        Application rates of the UDP flows [Mbit/s].
    loss_pct : float
        Loss rate the TCP connection sees [%] (the handout uses h2's measured UDP loss).
    rtt_ms : float
        TCP round-trip time [ms].
    segment_bytes : int
        L of the formula [byte] (2896 in the handout: two MSS per offloaded segment).
    bottleneck_mbps : float
    rto_ms : float
        Retransmission timeout of the PFTK model [ms] (Linux's minimum is 200 ms).
    accounting : {"wire", "tc"}

    Returns
    -------
    dict
        ``udp_load_bps`` (UDP link bits), ``leftover_rate_bps`` and
        ``leftover_goodput_bps`` (what TCP gets if UDP fits), ``udp_alone_loss`` (loss
        the UDP flows alone would cause), ``reno_bps`` (Mathis, c = 1.22),
        ``reno_window_segments`` (the window that rate implies), ``pftk_bps`` (with
        timeouts).

    Examples
    --------
    >>> v = tcp_udp_values(4, 22, 60)
    >>> round(v["reno_bps"] / 1e3), round(v["reno_window_segments"], 2)
    (1004, 2.6)
    >>> round(tcp_udp_values(0.5)["leftover_goodput_bps"] / 1e6, 3)
    3.298
    """
    from labcalc import tcp
    from labcalc.labs import lab5

    p = lab5.with_params(bottleneck_bps=float(bottleneck_mbps) * 1e6)
    udp_load = (float(h1_udp_mbps) + float(h2_udp_mbps)) * 1e6 * p.udp_wire_factor(accounting)
    capacity = float(bottleneck_mbps) * 1e6
    leftover = max(0.0, capacity - udp_load)
    loss = float(loss_pct) / 100.0
    rtt = float(rtt_ms) / 1e3
    reno = tcp.mathis_rate_bps(segment_bytes, rtt, loss)
    pftk = tcp.pftk_rate_pps(rtt, loss, float(rto_ms) / 1e3) * 8.0 * segment_bytes
    return {
        "udp_load_bps": udp_load,
        "capacity_bps": capacity,
        "leftover_rate_bps": leftover,
        "leftover_goodput_bps": leftover * p.tcp_efficiency(accounting),
        "udp_alone_loss": max(0.0, 1.0 - capacity / udp_load) if udp_load > 0 else 0.0,
        "loss": loss,
        "rtt_s": rtt,
        "segment_bytes": int(segment_bytes),
        "reno_bps": reno,
        "reno_window_segments": reno * rtt / (8.0 * segment_bytes),
        "pftk_bps": pftk,
        "rto_s": float(rto_ms) / 1e3,
    }


def tcp_udp_readout(values) -> str:
    """The TCP-vs-UDP explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`tcp_udp_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity, rates in [kbit/s] or [Mbit/s].

    Examples
    --------
    >>> print(tcp_udp_readout(tcp_udp_values(9, 52, 54)))  # doctest: +NORMALIZE_WHITESPACE
    UDP load (headers incl.)   10.660 Mbit/s on 5.000 Mbit/s
    left for TCP               0.0 kbit/s (goodput 0.0 kbit/s)
    loss UDP alone would see   53.10 %
    Reno formula (c = 1.22)    725.9 kbit/s at 52.0 % loss, RTT 54 ms
    window it implies          1.69 segments of 2896 bytes
    PFTK (RTO 200 ms)          57.2 kbit/s
    """
    v = values
    return _lines([
        ("UDP load (headers incl.)", f"{v['udp_load_bps'] / 1e6:.3f} Mbit/s on {v['capacity_bps'] / 1e6:.3f} Mbit/s"),
        ("left for TCP", f"{v['leftover_rate_bps'] / 1e3:.1f} kbit/s (goodput {v['leftover_goodput_bps'] / 1e3:.1f} kbit/s)"),
        ("loss UDP alone would see", f"{100 * v['udp_alone_loss']:.2f} %"),
        ("Reno formula (c = 1.22)", f"{v['reno_bps'] / 1e3:.1f} kbit/s at {100 * v['loss']:.1f} % loss, "
                                    f"RTT {1e3 * v['rtt_s']:.0f} ms"),
        ("window it implies", f"{v['reno_window_segments']:.2f} segments of {v['segment_bytes']} bytes"),
        (f"PFTK (RTO {1e3 * v['rto_s']:.0f} ms)", f"{v['pftk_bps'] / 1e3:.1f} kbit/s"),
    ])


def _draw_tcp_udp(ax, v, settings, measured=None):
    from labcalc import plots, tcp

    losses = np.logspace(-3, math.log10(0.8), 80)
    reno = tcp.mathis_rate_bps(v["segment_bytes"], v["rtt_s"], losses) / 1e3
    pftk = tcp.pftk_rate_pps(v["rtt_s"], losses, v["rto_s"]) * 8.0 * v["segment_bytes"] / 1e3
    points = {label: ([100 * x], [y / 1e3]) for label, (x, y) in (measured or {}).items()}
    plots.curves(100 * losses, {"Reno formula": reno, "PFTK with timeouts": pftk}, points=points,
                 xlabel="loss rate [%]", ylabel="TCP rate [kbit/s]", ax=ax, logx=True, logy=True,
                 marker=(100 * v["loss"], v["reno_bps"] / 1e3, f"{v['reno_bps'] / 1e3:.0f} kbit/s"),
                 hlines=[(v["capacity_bps"] / 1e3, "bottleneck")], legend_loc="lower left",
                 minor_ticks=False)
    ax.set_ylim(10, 1e5)


def tcp_udp_explorer(measured=None, **settings) -> Explorer:
    """h2's UDP rate, the loss and the RTT -> what TCP can get, by leftover and by formula.

    Parameters
    ----------
    measured : dict label -> (loss, rate_bps), optional
        Measured points drawn on the loss-throughput plot (e.g. B2 and B3); NaN values
        (missing measurements) are not drawn.
    **settings
        Initial values of the controls (see :func:`tcp_udp_values`).

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`tcp_udp_values` for the current settings.

    Examples
    --------
    >>> ex = tcp_udp_explorer(measured={"B3": (0.52, 45e3)})
    >>> ex.set(h2_udp_mbps=9.0, loss_pct=52.0, rtt_ms=54.0)
    >>> round(ex.values["reno_bps"] / 1e3)
    726
    """
    s = dict(h2_udp_mbps=4.0, loss_pct=22.0, rtt_ms=60.0, segment_bytes=2896) | settings
    controls = {
        "h2_udp_mbps": _slider("float", s["h2_udp_mbps"], 0.0, 12.0, 0.1, "h2 UDP [Mbit/s]", ".1f"),
        "loss_pct": _slider("float", s["loss_pct"], 0.1, 80.0, 0.1, "loss seen by TCP [%]", ".1f"),
        "rtt_ms": _slider("float", s["rtt_ms"], 5.0, 1000.0, 1.0, "TCP RTT [ms]", ".0f"),
        "segment_bytes": _choice([("1448 (one MSS)", 1448), ("2896 (as captured)", 2896)], s["segment_bytes"],
                                 "segment L [B]"),
    }
    draw = functools.partial(_draw_tcp_udp, measured=measured)
    return Explorer(controls, tcp_udp_values, tcp_udp_readout, draw,
                    title="TCP next to UDP: leftover capacity and the loss-throughput formula")


# --------------------------------------------------------------------------------------
# 04: congestion collapse
# --------------------------------------------------------------------------------------


def _collapse_point(c_mbps, a_mbps, shared_mbps, exit_mbps, accounting):
    from labcalc.labs import lab5
    from labcalc.openloop import fifo_split

    p = lab5.with_params(a_access_bps=float(a_mbps) * 1e6, c_access_bps=max(10e6, float(c_mbps) * 1e6),
                         shared_bps=float(shared_mbps) * 1e6, cd_exit_bps=float(exit_mbps) * 1e6)
    net = lab5.network_lab52(p, "udp", accounting)
    return fifo_split(net, {"AB": float(a_mbps) * 1e6, "CD": float(c_mbps) * 1e6})


@functools.lru_cache(maxsize=32)
def _collapse_curve(a_mbps, shared_mbps, exit_mbps, accounting):
    """The collapse curve in closed form (see :func:`labcalc.symbolic.collapse_total_goodput`).

    Vectorised over C's rate; the tests check it against ``fifo_split`` point by point.
    """
    from labcalc.labs import lab5

    eff = 1.0 / lab5.Params().udp_wire_factor(accounting)
    c = np.unique(np.r_[np.linspace(0.02, 10.0, 200), [exit_mbps, shared_mbps - a_mbps]])
    c = c[(c > 0) & (c <= 10.0)]
    a = float(a_mbps)
    fits = a + c <= shared_mbps
    kept = np.where(fits, 1.0, shared_mbps / (a + c))
    ab = a * kept * 1e6 * eff
    cd = np.minimum(c * kept, exit_mbps) * 1e6 * eff
    return c, ab, cd


def collapse_values(c_mbps=10.0, a_mbps=1.0, shared_mbps=1.5, exit_mbps=0.5, accounting="wire"):
    """Goodputs of A->B and C->D when C sends ``c_mbps`` (link rate), without congestion control.

    Parameters
    ----------
    c_mbps : float
        What C puts on its access link [Mbit/s], 0 < c <= 10 (its access rate).
    a_mbps : float
        What A sends [Mbit/s] (the handout: its 1 Mbit/s access rate).
    shared_mbps, exit_mbps : float
        Capacities of N1-N2 and of C->D's exit link N2-D [Mbit/s].
    accounting : {"wire", "tc"}
        How payload relates to link bits (goodput = rate x efficiency).

    Returns
    -------
    dict
        ``goodput_bps`` and ``loss`` (dicts AB, CD), ``total_goodput_bps``,
        ``accepted`` (share N1-N2 keeps), the curve ``curve_c_mbps``,
        ``curve_total_bps``, ``curve_ab_bps``, ``curve_cd_bps``, and ``best_total_bps``
        (the largest total on the curve).

    Examples
    --------
    >>> v = collapse_values(10)
    >>> round(v["accepted"], 3), round(v["goodput_bps"]["AB"] / 1e6, 3), round(v["goodput_bps"]["CD"] / 1e6, 3)
    (0.136, 0.128, 0.469)
    """
    res = _collapse_point(c_mbps, a_mbps, shared_mbps, exit_mbps, accounting)
    grid, ab, cd = _collapse_curve(float(a_mbps), float(shared_mbps), float(exit_mbps), accounting)
    total = ab + cd
    return {
        "c_bps": float(c_mbps) * 1e6,
        "goodput_bps": {"AB": float(res.goodputs["AB"]), "CD": float(res.goodputs["CD"])},
        "loss": {"AB": float(res.loss["AB"]), "CD": float(res.loss["CD"])},
        "total_goodput_bps": float(res.goodputs.sum()),
        "accepted": float(res.links.loc["N1-N2", "accepted"]),
        "curve_c_mbps": grid,
        "curve_ab_bps": ab,
        "curve_cd_bps": cd,
        "curve_total_bps": total,
        "best_total_bps": float(total.max()),
        "best_c_mbps": float(grid[int(np.argmax(total))]),
    }


def collapse_readout(values) -> str:
    """The collapse explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`collapse_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity, rates in [kbit/s].

    Examples
    --------
    >>> print(collapse_readout(collapse_values(10)))  # doctest: +NORMALIZE_WHITESPACE
    C sends                  10.00 Mbit/s
    share N1-N2 keeps        13.64 %
    A->B goodput, loss       127.9 kbit/s, 86.36 %
    C->D goodput, loss       469.0 kbit/s, 95.00 %
    total goodput            597.0 kbit/s
    best total on the curve  1407.1 kbit/s (C sends 0.50 Mbit/s)
    """
    v = values
    return _lines([
        ("C sends", f"{v['c_bps'] / 1e6:.2f} Mbit/s"),
        ("share N1-N2 keeps", f"{100 * v['accepted']:.2f} %"),
        ("A->B goodput, loss", f"{v['goodput_bps']['AB'] / 1e3:.1f} kbit/s, {100 * v['loss']['AB']:.2f} %"),
        ("C->D goodput, loss", f"{v['goodput_bps']['CD'] / 1e3:.1f} kbit/s, {100 * v['loss']['CD']:.2f} %"),
        ("total goodput", f"{v['total_goodput_bps'] / 1e3:.1f} kbit/s"),
        ("best total on the curve", f"{v['best_total_bps'] / 1e3:.1f} kbit/s (C sends {v['best_c_mbps']:.2f} Mbit/s)"),
    ])


def _draw_collapse(ax, v, settings, measured=None):
    from labcalc import plots

    points = {label: ([c], [g / 1e3]) for label, (c, g) in (measured or {}).items()}
    plots.curves(v["curve_c_mbps"], {"total": v["curve_total_bps"] / 1e3, "A->B": v["curve_ab_bps"] / 1e3,
                                     "C->D": v["curve_cd_bps"] / 1e3},
                 points=points, xlabel="C's sending rate [Mbit/s]", ylabel="goodput [kbit/s]", ax=ax,
                 marker=(v["c_bps"] / 1e6, v["total_goodput_bps"] / 1e3, f"{v['total_goodput_bps'] / 1e3:.0f}"),
                 legend_loc="upper right")
    ax.set_ylim(bottom=0)


def collapse_explorer(measured=None, c_mbps=10.0) -> Explorer:
    """C's sending rate (and the link capacities) -> total goodput on the collapse curve.

    Parameters
    ----------
    measured : dict label -> (c_mbps, total_goodput_bps), optional
        Measured totals drawn on the curve ([Mbit/s], [bit/s]); NaN values
        (missing measurements) are not drawn.
    c_mbps : float, default 10.0
        Initial rate C puts on its access link [Mbit/s].

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`collapse_values` for the current settings.

    Examples
    --------
    >>> ex = collapse_explorer()
    >>> ex.set(c_mbps=0.5)
    >>> round(ex.values["total_goodput_bps"] / 1e3, 1)
    1407.1
    """
    controls = {
        "c_mbps": _slider("float", c_mbps, 0.05, 10.0, 0.05, "C sends [Mbit/s]", ".2f"),
        "shared_mbps": _slider("float", 1.5, 0.5, 5.0, 0.1, "N1-N2 [Mbit/s]", ".1f"),
        "exit_mbps": _slider("float", 0.5, 0.1, 2.0, 0.1, "N2-D [Mbit/s]", ".1f"),
    }
    draw = functools.partial(_draw_collapse, measured=measured)
    return Explorer(controls, collapse_values, collapse_readout, draw,
                    title="Congestion collapse without congestion control")


# --------------------------------------------------------------------------------------
# 05: RTT fairness, Reno and CUBIC models
# --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _share_curves(base_rtt_ms, capacity_bps, segment_bytes):
    from labcalc import tcp

    ys = np.arange(0.0, 1501.0, 75.0)
    reno, cubic = [], []
    for y in ys:
        rtts = [(base_rtt_ms + y) / 1e3, base_rtt_ms / 1e3]
        reno.append(tcp.response_shares(capacity_bps, rtts, "reno", segment_bytes)[0][0])
        cubic.append(tcp.response_shares(capacity_bps, rtts, "cubic", segment_bytes)[0][0])
    return ys, np.array(reno), np.array(cubic)


def rtt_fairness_values(y_ms=500.0, base_rtt_ms=300.0, bottleneck_mbps=5.0, accounting="wire",
                        segment_bytes=1448):
    """Goodputs of h1 (RTT R + Y) and h2 (RTT R) on one bottleneck, Reno and CUBIC models.

    Parameters
    ----------
    y_ms : float
        Extra delay Y on h1's path [ms].
    base_rtt_ms : float
        R, the RTT of h2 [ms] (300 in the handout).
    bottleneck_mbps : float
    accounting : {"wire", "tc"}
        Sets the goodput capacity (bottleneck x TCP efficiency).
    segment_bytes : int
        Segment size of the response functions [byte] (sets CUBIC's regime).

    Returns
    -------
    dict
        ``capacity_bps`` (goodput), ``reno_bps`` and ``cubic_bps`` (dicts h1, h2),
        ``reno_loss`` and ``cubic_loss`` (common loss rates), ``reno_share`` and
        ``cubic_share`` (h1's share), and the curves ``curve_y_ms``,
        ``curve_reno_h1_bps``, ``curve_cubic_h1_bps``.

    Examples
    --------
    >>> v = rtt_fairness_values(500)
    >>> round(v["reno_bps"]["h1"] / 1e3), round(v["cubic_bps"]["h1"] / 1e3)
    (1323, 2129)
    """
    from labcalc import tcp
    from labcalc.labs import lab5

    p = lab5.Params()
    capacity = float(bottleneck_mbps) * 1e6 * p.tcp_efficiency(accounting)
    rtts = [(float(base_rtt_ms) + float(y_ms)) / 1e3, float(base_rtt_ms) / 1e3]
    reno, reno_p = tcp.response_shares(capacity, rtts, "reno", segment_bytes)
    cubic, cubic_p = tcp.response_shares(capacity, rtts, "cubic", segment_bytes)
    ys, curve_reno, curve_cubic = _share_curves(float(base_rtt_ms), capacity, int(segment_bytes))
    return {
        "y_s": float(y_ms) / 1e3,
        "base_rtt_s": float(base_rtt_ms) / 1e3,
        "capacity_bps": capacity,
        "reno_bps": {"h1": float(reno[0]), "h2": float(reno[1])},
        "cubic_bps": {"h1": float(cubic[0]), "h2": float(cubic[1])},
        "reno_loss": reno_p,
        "cubic_loss": cubic_p,
        "reno_share": float(reno[0] / capacity),
        "cubic_share": float(cubic[0] / capacity),
        "curve_y_ms": ys,
        "curve_reno_h1_bps": curve_reno,
        "curve_cubic_h1_bps": curve_cubic,
    }


def rtt_fairness_readout(values) -> str:
    """The RTT-fairness explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`rtt_fairness_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity, rates in [kbit/s].

    Examples
    --------
    >>> print(rtt_fairness_readout(rtt_fairness_values(1000)))  # doctest: +NORMALIZE_WHITESPACE
    RTTs h1, h2         1300 ms, 300 ms
    goodput capacity    4849.3 kbit/s
    Reno model h1, h2   909.2 kbit/s, 3940.1 kbit/s (h1 18.75 %)
    CUBIC model h1, h2  1985.1 kbit/s, 2864.2 kbit/s (h1 40.94 %)
    common loss rate    Reno 0.0144 %, CUBIC 0.1032 %
    """
    v = values
    r, c = v["reno_bps"], v["cubic_bps"]
    return _lines([
        ("RTTs h1, h2", f"{1e3 * (v['base_rtt_s'] + v['y_s']):.0f} ms, {1e3 * v['base_rtt_s']:.0f} ms"),
        ("goodput capacity", f"{v['capacity_bps'] / 1e3:.1f} kbit/s"),
        ("Reno model h1, h2", f"{r['h1'] / 1e3:.1f} kbit/s, {r['h2'] / 1e3:.1f} kbit/s (h1 {100 * v['reno_share']:.2f} %)"),
        ("CUBIC model h1, h2", f"{c['h1'] / 1e3:.1f} kbit/s, {c['h2'] / 1e3:.1f} kbit/s (h1 {100 * v['cubic_share']:.2f} %)"),
        ("common loss rate", f"Reno {100 * v['reno_loss']:.4f} %, CUBIC {100 * v['cubic_loss']:.4f} %"),
    ])


def _draw_rtt_fairness(ax, v, settings, measured=None):
    from labcalc import plots

    points = {label: (list(ys), [100 * s for s in shares]) for label, (ys, shares) in (measured or {}).items()}
    cap = v["capacity_bps"]
    plots.curves(v["curve_y_ms"], {"Reno model (1/RTT)": 100 * v["curve_reno_h1_bps"] / cap,
                                   "CUBIC model (RFC 9438)": 100 * v["curve_cubic_h1_bps"] / cap},
                 points=points, xlabel="extra delay Y on h1 [ms]", ylabel="h1's share of the goodput [%]",
                 ax=ax, marker=(1e3 * v["y_s"], 100 * v["reno_share"], f"{100 * v['reno_share']:.0f} %"),
                 hlines=[(50, "equal shares")], legend_loc="lower left")
    ax.scatter([1e3 * v["y_s"]], [100 * v["cubic_share"]], color="black", s=30, zorder=5)
    ax.set_ylim(0, 60)


def rtt_fairness_explorer(measured=None, y_ms=500.0) -> Explorer:
    """Extra delay Y -> h1's predicted share under the Reno and CUBIC models.

    Parameters
    ----------
    measured : dict label -> (list of Y [ms], list of h1 shares [0..1]), optional
        Measured shares drawn as points (e.g. CUBIC and Reno at D2 and D3); NaN values
        (missing measurements) are not drawn.
    y_ms : float, default 500.0
        Initial extra delay Y on h1's path [ms].

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`rtt_fairness_values` for the current settings.

    Examples
    --------
    >>> ex = rtt_fairness_explorer()
    >>> ex.set(y_ms=1000.0)
    >>> round(ex.values["reno_bps"]["h1"] / 1e3)
    909
    """
    controls = {
        "y_ms": _slider("float", y_ms, 0.0, 1500.0, 10.0, "extra delay Y [ms]", ".0f"),
        "base_rtt_ms": _slider("float", 300.0, 20.0, 600.0, 10.0, "RTT of h2, R [ms]", ".0f"),
        "accounting": _choice([("wire (handout)", "wire"), ("tc (Linux shaper)", "tc")], "wire", "accounting"),
    }
    draw = functools.partial(_draw_rtt_fairness, measured=measured)
    return Explorer(controls, rtt_fairness_values, rtt_fairness_readout, draw,
                    title="RTT bias: Reno's 1/RTT against CUBIC's RTT^(-1/4)")


# --------------------------------------------------------------------------------------
# 06: parking lot, max-min / proportional / alpha-fair
# --------------------------------------------------------------------------------------


class ProportionalFairProblem:
    """Proportional fairness for a fixed routing, built once in cvxpy, re-solved fast.

    The capacities are a cvxpy ``Parameter``: :meth:`solve` only changes their value and
    calls CLARABEL again (no re-compilation), which is what a slider needs.

    Parameters
    ----------
    routing : array_like or scipy.sparse matrix (L, N)
        ``R[l, i] = 1`` when flow ``i`` crosses link ``l``.
    weights : array_like (N,), optional
        Weights w_i of the objective sum w_i log x_i (1 by default).

    Notes
    -----
    maximise :math:`\\sum_i w_i \\log x_i` subject to :math:`R x \\le c`. The
    capacities are scaled by their largest value before solving (the solver is badly
    conditioned with numbers like 5e6), and the solution scaled back. CLARABEL is asked
    for 1e-12 tolerances; on this problem it stops at about 1e-6 to 1e-8 relative
    (often reporting "optimal_inaccurate"), so its link prices seed a few Newton steps on
    the saturated links (:func:`labcalc.fairness.polish_from_prices`), and the result is
    accepted only if it satisfies the optimality conditions of the whole problem. Otherwise the solve is repeated with 1e-10, then
    1e-8, before giving up with a ``ValueError``.

    References
    ----------
    F. Kelly, European Transactions on Telecommunications 8(1), 1997; cvxpy's
    disciplined parametrized programming (DPP).

    Examples
    --------
    >>> prob = ProportionalFairProblem([[1, 1, 0], [1, 0, 1]])
    >>> [round(float(x) / 1e6, 6) for x in prob.solve([5e6, 5e6])]
    [1.666667, 3.333333, 3.333333]
    >>> [round(float(x) / 1e6, 4) for x in prob.solve([5e6, 2e6])]
    [0.8804, 4.1196, 1.1196]
    """

    _TOLERANCES = (1e-12, 1e-10, 1e-8)

    def __init__(self, routing, weights=None):
        import cvxpy as cp
        import scipy.sparse as sp

        R = sp.csr_matrix(np.asarray(routing, dtype=float) if not sp.issparse(routing) else routing,
                          dtype=float)
        self.n_links, self.n_flows = R.shape
        w = np.ones(self.n_flows) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (self.n_flows,) or not np.all(w > 0):
            raise ValueError(f"weights must be {self.n_flows} positive numbers; got {weights!r}")
        self._R = R
        self._w = w
        self.capacity = cp.Parameter(self.n_links, nonneg=True, name="capacity")
        self.x = cp.Variable(self.n_flows, name="rate")
        self.constraints = [R @ self.x <= self.capacity]
        self.problem = cp.Problem(cp.Maximize(cp.sum(cp.multiply(w, cp.log(self.x)))), self.constraints)
        self.status = None
        self.solve_s = float("nan")

    def solve(self, capacities_bps):
        """Rates [bit/s] for these capacities [bit/s] (array of the flows, routing order)."""
        c = np.asarray(capacities_bps, dtype=float).reshape(-1)
        if c.shape != (self.n_links,) or not np.all(np.isfinite(c)) or not np.all(c > 0):
            raise ValueError(f"capacities_bps must be {self.n_links} positive numbers; got {capacities_bps!r}")
        scale = float(c.max())
        cs = c / scale
        self.capacity.value = cs
        start = time.perf_counter()
        x = None
        for tol in self._TOLERANCES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.problem.solve(solver="CLARABEL", tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol,
                                   tol_ktratio=min(1e-6, tol * 100))
            if self.problem.status in ("optimal", "optimal_inaccurate") and self.x.value is not None:
                prices = np.asarray(self.constraints[0].dual_value, dtype=float).reshape(-1)
                x = polish_from_prices(self._R, cs, prices, self._w)
                if x is not None:
                    break
        self.status = self.problem.status
        self.solve_s = time.perf_counter() - start
        if x is None:
            raise ValueError(f"cvxpy/CLARABEL did not reach an optimum: status {self.problem.status!r}")
        return x * scale


@functools.lru_cache(maxsize=1)
def _parking_lot_cvx():
    return ProportionalFairProblem([[1, 1, 0], [1, 0, 1]])


_LOT_FLOWS = ("1to3", "1to2", "2to3")


def parking_lot_values(c1_mbps=5.0, c2_mbps=5.0, alpha=2.0, solver="newton"):
    """Max-min, proportional and alpha-fair rates on the Figure 3 network.

    Parameters
    ----------
    c1_mbps, c2_mbps : float
        Capacities of r1-eth1 and r2-eth2 [Mbit/s].
    alpha : float
        Fairness parameter of the alpha-fair allocation, > 0.
    solver : {"newton", "cvxpy"}
        How the proportional allocation is computed: :func:`labcalc.fairness.proportional`
        or the cvxpy problem built once with parameters (:class:`ProportionalFairProblem`).

    Returns
    -------
    dict
        ``rates_bps``: dict criterion -> dict flow -> rate [bit/s] for ``"max-min"``,
        ``"proportional"``, ``"alpha"``; ``totals_bps`` (sum per criterion); ``alpha``.

    Examples
    --------
    >>> v = parking_lot_values(5, 5, 1.0)
    >>> [round(v["rates_bps"]["proportional"][f] / 1e6, 4) for f in ("1to3", "1to2", "2to3")]
    [1.6667, 3.3333, 3.3333]
    >>> round(parking_lot_values(5, 5, 2.0, "cvxpy")["rates_bps"]["proportional"]["1to3"] / 1e6, 6)
    1.666667
    """
    from labcalc import fairness
    from labcalc.network import Network

    caps = [float(c1_mbps) * 1e6, float(c2_mbps) * 1e6]
    net = Network({"r1-eth1": caps[0], "r2-eth2": caps[1]},
                  {"1to3": ["r1-eth1", "r2-eth2"], "1to2": ["r1-eth1"], "2to3": ["r2-eth2"]})
    mm = fairness.max_min(net).rates
    if solver == "cvxpy":
        prop = dict(zip(_LOT_FLOWS, _parking_lot_cvx().solve(caps)))
    elif solver == "newton":
        prop = fairness.proportional(net).rates
    else:
        raise ValueError(f"solver must be 'newton' or 'cvxpy'; got {solver!r}")
    af = fairness.alpha_fair(net, float(alpha)).rates
    rates = {
        "max-min": {f: float(mm[f]) for f in _LOT_FLOWS},
        "proportional": {f: float(prop[f]) for f in _LOT_FLOWS},
        "alpha": {f: float(af[f]) for f in _LOT_FLOWS},
    }
    return {
        "capacities_bps": caps,
        "alpha": float(alpha),
        "solver": solver,
        "rates_bps": rates,
        "totals_bps": {k: sum(v.values()) for k, v in rates.items()},
    }


def parking_lot_readout(values) -> str:
    """The parking-lot explorer's text (Mbit/s, 4 decimals).

    Parameters
    ----------
    values : dict
        The result of :func:`parking_lot_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity: a table of rates in [Mbit/s].

    Examples
    --------
    >>> print(parking_lot_readout(parking_lot_values(5, 5, 2.0)))  # doctest: +NORMALIZE_WHITESPACE
    capacities r1-eth1, r2-eth2   5.00, 5.00 Mbit/s
    criterion          1to3    1to2    2to3   total
    max-min          2.5000  2.5000  2.5000  7.5000
    proportional     1.6667  3.3333  3.3333  8.3333
    alpha = 2.00     2.0711  2.9289  2.9289  7.9289
    """
    v = values
    head = f"{'criterion':<14}" + "".join(f"{f:>8}" for f in _LOT_FLOWS) + f"{'total':>8}"
    lines = [f"capacities r1-eth1, r2-eth2   {v['capacities_bps'][0] / 1e6:.2f}, "
             f"{v['capacities_bps'][1] / 1e6:.2f} Mbit/s", head]
    for key, name in (("max-min", "max-min"), ("proportional", "proportional"), ("alpha", f"alpha = {v['alpha']:.2f}")):
        r = v["rates_bps"][key]
        lines.append(f"{name:<14}" + "".join(f"{r[f] / 1e6:>8.4f}" for f in _LOT_FLOWS)
                     + f"{v['totals_bps'][key] / 1e6:>8.4f}")
    return "\n".join(lines)


def _draw_parking_lot(ax, v, settings):
    import pandas as pd

    from labcalc import plots

    table = pd.DataFrame({("alpha = %.2f" % v["alpha"] if k == "alpha" else k):
                          [r[f] / 1e6 for f in _LOT_FLOWS] for k, r in v["rates_bps"].items()},
                         index=list(_LOT_FLOWS))
    plots.grouped_bars(table, "rate [Mbit/s]", ax=ax, value_format=None, legend_loc="upper left",
                       title=None)
    ax.set_ylim(0, 1.3 * float(table.to_numpy().max()))


def parking_lot_explorer(alpha=2.0) -> Explorer:
    """Capacities and alpha -> max-min, proportional and alpha-fair rates (grouped bars).

    Parameters
    ----------
    alpha : float, default 2.0
        Initial fairness parameter of the alpha-fair allocation [1], > 0.

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`parking_lot_values` for the current settings.

    Examples
    --------
    >>> ex = parking_lot_explorer()
    >>> ex.set(solver="cvxpy", c2_mbps=2.0)
    >>> round(ex.values["rates_bps"]["proportional"]["1to3"] / 1e6, 4)
    0.8804
    """
    controls = {
        "c1_mbps": _slider("float", 5.0, 0.5, 10.0, 0.5, "r1-eth1 [Mbit/s]", ".1f"),
        "c2_mbps": _slider("float", 5.0, 0.5, 10.0, 0.5, "r2-eth2 [Mbit/s]", ".1f"),
        "alpha": _slider("log", alpha, -1.0, 1.5, 0.05, "alpha", ".2f"),
        "solver": _choice([("dual Newton (fairness)", "newton"), ("cvxpy, built once", "cvxpy")], "newton",
                          "proportional by"),
    }
    return Explorer(controls, parking_lot_values, parking_lot_readout, _draw_parking_lot,
                    title="Two bottlenecks: how fair is fair?")


# --------------------------------------------------------------------------------------
# 07: buffers
# --------------------------------------------------------------------------------------

#: Queue limit of the handout's bonus experiment (Mininet's ``max_queue_size``) [packet];
#: the default of the buffer explorer, and what notebook 07 uses when the measurement
#: file does not state the limit.
HANDOUT_MAX_QUEUE_PACKETS = 1000
#: RED's minimum and maximum thresholds of average queue in Mininet's ``TCIntf`` [byte].
RED_THRESHOLDS_BYTES = (30_000, 35_000)
#: CUBIC's multiplicative decrease (RFC 9438, section 4.6): after a loss the window drops
#: to this share of its peak [1]; a queue kept full by CUBIC drains to about this share.
CUBIC_BETA = 0.7
_RED_MIN_BYTES, _RED_MAX_BYTES = RED_THRESHOLDS_BYTES


def buffer_values(buffer_packets=HANDOUT_MAX_QUEUE_PACKETS, rate_mbps=5.0, segments_per_entry=2, accounting="tc",
                  mss_bytes=1448):
    """Delay of a full drop-tail buffer, and of a queue RED keeps between its thresholds.

    Parameters
    ----------
    buffer_packets : int
        Queue limit [packets] (entries: with segmentation offload one entry holds
        ``segments_per_entry`` MSS).
    rate_mbps : float
        Rate of the link that drains the queue [Mbit/s].
    segments_per_entry : int
        MSS per queue entry: 1 (no offload) or 2 (the handout's 2896-byte segments).
    accounting : {"wire", "tc"}
    mss_bytes : int
        MSS [byte]; each entry is an IP packet of ``segments x MSS + 52`` bytes (IP 20,
        TCP 20 + 12 of timestamps).

    Returns
    -------
    dict
        ``ip_packet_bytes``, ``buffer_bytes``, ``full_delay_s`` (time to drain the full
        buffer), ``red_min_bytes`` and ``red_max_bytes`` (Mininet's RED thresholds,
        :data:`RED_THRESHOLDS_BYTES`), ``red_min_s`` and ``red_max_s`` (delay of a queue
        at those thresholds), and the curve ``curve_packets``, ``curve_delay_s`` (dict by
        segments per entry).

    Examples
    --------
    >>> v = buffer_values(1000, 5, 2, "tc")
    >>> round(v["full_delay_s"], 3), round(v["red_min_s"] * 1e3, 1), round(v["red_max_s"] * 1e3, 1)
    (4.739, 48.0, 56.0)
    """
    from labcalc import queueing

    rate = float(rate_mbps) * 1e6
    ip_packet = int(segments_per_entry) * int(mss_bytes) + 52
    grid = np.linspace(0, 2000, 81)
    curve = {k: np.asarray(queueing.full_buffer_delay_s(grid, k * int(mss_bytes) + 52, rate, accounting))
             for k in (1, 2)}
    return {
        "buffer_packets": int(buffer_packets),
        "rate_bps": rate,
        "segments_per_entry": int(segments_per_entry),
        "accounting": accounting,
        "ip_packet_bytes": ip_packet,
        "buffer_bytes": int(buffer_packets) * ip_packet,
        "full_delay_s": float(queueing.full_buffer_delay_s(int(buffer_packets), ip_packet, rate, accounting)),
        "red_min_bytes": _RED_MIN_BYTES,
        "red_max_bytes": _RED_MAX_BYTES,
        "red_min_s": 8.0 * _RED_MIN_BYTES / rate,
        "red_max_s": 8.0 * _RED_MAX_BYTES / rate,
        "curve_packets": grid,
        "curve_delay_s": curve,
    }


def buffer_readout(values) -> str:
    """The buffer explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`buffer_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity, delays in [ms].

    Examples
    --------
    >>> print(buffer_readout(buffer_values(1000, 5, 1, "wire")))  # doctest: +NORMALIZE_WHITESPACE
    queue entry                1500-byte IP packet (1 MSS), wire accounting
    full buffer                1000 entries, 1500000 bytes
    delay of a full buffer     2460.8 ms at 5.0 Mbit/s
    RED band (30000-35000 B)   48.0 - 56.0 ms
    """
    v = values
    return _lines([
        ("queue entry", f"{v['ip_packet_bytes']}-byte IP packet ({v['segments_per_entry']} MSS), "
                        f"{v['accounting']} accounting"),
        ("full buffer", f"{v['buffer_packets']} entries, {v['buffer_bytes']} bytes"),
        ("delay of a full buffer", f"{1e3 * v['full_delay_s']:.1f} ms at {v['rate_bps'] / 1e6:.1f} Mbit/s"),
        (f"RED band ({_RED_MIN_BYTES}-{_RED_MAX_BYTES} B)", f"{1e3 * v['red_min_s']:.1f} - {1e3 * v['red_max_s']:.1f} ms"),
    ])


def _draw_buffer(ax, v, settings, measured=None):
    from labcalc import plots

    lines = {f"{k} MSS per entry": 1e3 * np.maximum(d, 1e-3) for k, d in v["curve_delay_s"].items()}
    band = None
    points = {}
    if measured:
        for label, value in measured.items():
            if isinstance(value, tuple) and len(value) == 2 and label.startswith("range"):
                band = (1e3 * value[0], 1e3 * value[1], label)
            else:
                points[label] = ([v["buffer_packets"]], [1e3 * value])
    plots.curves(v["curve_packets"], lines, points=points, xlabel="queue limit [packets]",
                 ylabel="queueing delay [ms]", ax=ax, logy=True, band=band,
                 marker=(v["buffer_packets"], 1e3 * v["full_delay_s"], f"{1e3 * v['full_delay_s']:.0f} ms"),
                 hlines=[(1e3 * v["red_min_s"], "RED min threshold"), (1e3 * v["red_max_s"], "")],
                 legend_loc="upper left", minor_ticks=False)
    ax.set_ylim(10, 2e4)


def buffer_explorer(measured=None, buffer_packets=HANDOUT_MAX_QUEUE_PACKETS) -> Explorer:
    """Queue limit, link rate and entry size -> delay of a full buffer vs RED's band.

    Parameters
    ----------
    measured : dict, optional
        ``"range ..." -> (low_s, high_s)`` draws a shaded band (a measured RTT range);
        other ``label -> delay_s`` entries draw points at the current queue limit. NaN
        values (missing measurements) are not drawn.
    buffer_packets : int, default :data:`HANDOUT_MAX_QUEUE_PACKETS`
        Initial queue limit [packet] (e.g. the limit stated in the measurement file).

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`buffer_values` for the current settings.

    Examples
    --------
    >>> ex = buffer_explorer(measured={"range of measured RTTs": (2.0, 5.0)})
    >>> ex.set(segments_per_entry=1, accounting="wire")
    >>> round(ex.values["full_delay_s"], 4)
    2.4608
    """
    controls = {
        "buffer_packets": _slider("int", int(buffer_packets), 10, max(2000, int(buffer_packets)), 10,
                                  "queue limit [packets]"),
        "rate_mbps": _slider("float", 5.0, 1.0, 50.0, 0.5, "link rate [Mbit/s]", ".1f"),
        "segments_per_entry": _choice([("1 (no offload)", 1), ("2 (2896-byte segments)", 2)], 2, "MSS per entry"),
        "accounting": _choice([("tc (Linux shaper)", "tc"), ("wire (handout)", "wire")], "tc", "accounting"),
    }
    draw = functools.partial(_draw_buffer, measured=measured)
    return Explorer(controls, buffer_values, buffer_readout, draw,
                    title="Bufferbloat: how long a full queue takes to drain")


# --------------------------------------------------------------------------------------
# 00: checking an answer
# --------------------------------------------------------------------------------------


def answer_values(answer="", expected=4_690_431.5, unit="kbit/s", rtol=0.01, alternatives=None):
    """The verdict of :func:`labcalc.compare.check_answer` for a typed answer.

    ``alternatives`` are the values of scenario-dependent slips, passed to
    :func:`labcalc.grading.check` (e.g. ``{"wire_vs_shaper": ...}``).

    Parameters
    ----------
    answer : str or float, default ""
        What the student typed; an empty text means "not answered yet".
    expected : float, default 4690431.5
        The expected value [base units, e.g. bit/s].
    unit : str, default "kbit/s"
        Unit of the question, used for a bare number.
    rtol : float, default 0.01
        Relative tolerance [1].
    alternatives : dict, optional
        Slip code -> the value a student making that slip finds [base units].

    Returns
    -------
    dict
        ``correct`` (bool) and ``message`` (the verdict, one line).

    Examples
    --------
    >>> answer_values("4.69 Mbit/s")["correct"]
    True
    """
    from labcalc.compare import check_answer

    result = check_answer(answer if str(answer).strip() else None, expected, unit=unit, rtol=rtol,
                          label="your answer", quiet=True, alternatives=alternatives)
    return {"correct": result.correct, "message": f"your answer: {result.message}"}


def answer_readout(values) -> str:
    """The answer checker's text: the verdict line.

    Parameters
    ----------
    values : dict
        The result of :func:`answer_values`.

    Returns
    -------
    str
        The verdict line (``values["message"]``).

    Examples
    --------
    >>> answer_readout(answer_values("4690 kbps"))
    "your answer: Correct: '4690 kbps' is within 1 % of the expected value."
    """
    return values["message"]


def answer_checker(expected=None, unit="kbit/s", rtol=0.01, question="Q4", alternatives=None) -> Explorer:
    """A text box that checks an answer as you type it (no figure).

    With the defaults it checks handout Q4 (maximum UDP goodput) and recognises the
    Linux shaper's value as the "wire vs shaper" slip.

    Parameters
    ----------
    expected : float, optional
        The expected value [base units]; by default the lab 5 answer to ``question``
        (and its shaper value as the ``"wire_vs_shaper"`` alternative).
    unit : str, default "kbit/s"
        Unit of the question, used for a bare number.
    rtol : float, default 0.01
        Relative tolerance [1].
    question : str, default "Q4"
        Question id: the label of the text box and, without ``expected``, the answer
        looked up.
    alternatives : dict, optional
        Slip code -> the value a student making that slip finds [base units].

    Returns
    -------
    Explorer
        The widget: controls, readout (no figure); its ``values`` hold the result of
        :func:`answer_values` for the current settings.

    Examples
    --------
    >>> ex = answer_checker()
    >>> ex.set(answer="4798 kbit/s")
    >>> ex.values["correct"], "shaper" in ex.text
    (False, True)
    """
    if expected is None:
        from labcalc.labs import lab5

        expected = lab5.answers().query("question == @question").value.iloc[0]
        shaper = lab5.answers(accounting="tc").query("question == @question").value.iloc[0]
        alternatives = {"wire_vs_shaper": float(shaper)} if alternatives is None else alternatives
    box = W.Text(value="", placeholder="e.g. 4.7 Mbit/s", description=f"{question} answer", style=_STYLE,
                 layout=_LAYOUT, continuous_update=False)
    compute = functools.partial(answer_values, expected=float(expected), unit=unit, rtol=rtol,
                                alternatives=alternatives)
    return Explorer({"answer": box}, compute, answer_readout, None, title=f"Check your answer to {question}")
