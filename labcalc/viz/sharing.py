"""Sharing a link without congestion control: UDP split, TCP against UDP, collapse.

The explorers of notebooks 02 (two UDP flows through one drop-tail FIFO), 03 (a TCP
flow beside UDP: the loss it sees and the rate the models give) and 04 (congestion
collapse: traffic sent across the shared link and lost after it), each as
``*_values`` / ``*_readout`` / ``*_explorer`` (see :mod:`labcalc.viz._base`).

Examples
--------
>>> v = udp_split_values(1.0, 4.0, 5.0)
>>> round(sum(v["goodput_bps"].values()) / 1e6, 3) <= 5.0
True
"""

from __future__ import annotations

import functools
import math

import numpy as np

from labcalc.viz._base import Explorer, choice, readout_lines, slider
from labcalc.viz.charts import curves, stacked_bars

__all__ = [
    "udp_split_values", "udp_split_readout", "udp_split_explorer",
    "tcp_udp_values", "tcp_udp_readout", "tcp_udp_explorer",
    "collapse_values", "collapse_readout", "collapse_explorer",
]


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
    return readout_lines(rows)


def _draw_udp_split(ax, v, settings):
    import pandas as pd

    table = pd.DataFrame({
        "goodput": [v["goodput_bps"][f] / 1e6 for f in ("h1", "h2")],
        "lost data": [(v["offered_bps"][f] - v["goodput_bps"][f]) / 1e6 for f in ("h1", "h2")],
    }, index=["h1 (UDP)", "h2 (UDP)"])
    stacked_bars(table, "application data [Mbit/s]", ax=ax, colors=("#2ca02c", "#d62728"),
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
        "h1_mbps": slider("float", h1_mbps, 0.1, 10.0, 0.1, "h1 sends [Mbit/s]", ".1f"),
        "h2_mbps": slider("float", h2_mbps, 0.1, 20.0, 0.1, "h2 sends [Mbit/s]", ".1f"),
        "bottleneck_mbps": slider("float", bottleneck_mbps, 0.5, 20.0, 0.5, "r1-eth1 [Mbit/s]", ".1f"),
        "accounting": choice([("wire (handout)", "wire"), ("tc (Linux shaper)", "tc")], accounting,
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
    return readout_lines([
        ("UDP load (headers incl.)", f"{v['udp_load_bps'] / 1e6:.3f} Mbit/s on {v['capacity_bps'] / 1e6:.3f} Mbit/s"),
        ("left for TCP", f"{v['leftover_rate_bps'] / 1e3:.1f} kbit/s (goodput {v['leftover_goodput_bps'] / 1e3:.1f} kbit/s)"),
        ("loss UDP alone would see", f"{100 * v['udp_alone_loss']:.2f} %"),
        ("Reno formula (c = 1.22)", f"{v['reno_bps'] / 1e3:.1f} kbit/s at {100 * v['loss']:.1f} % loss, "
                                    f"RTT {1e3 * v['rtt_s']:.0f} ms"),
        ("window it implies", f"{v['reno_window_segments']:.2f} segments of {v['segment_bytes']} bytes"),
        (f"PFTK (RTO {1e3 * v['rto_s']:.0f} ms)", f"{v['pftk_bps'] / 1e3:.1f} kbit/s"),
    ])


def _draw_tcp_udp(ax, v, settings, measured=None):
    from labcalc import tcp

    losses = np.logspace(-3, math.log10(0.8), 80)
    reno = tcp.mathis_rate_bps(v["segment_bytes"], v["rtt_s"], losses) / 1e3
    pftk = tcp.pftk_rate_pps(v["rtt_s"], losses, v["rto_s"]) * 8.0 * v["segment_bytes"] / 1e3
    points = {label: ([100 * x], [y / 1e3]) for label, (x, y) in (measured or {}).items()}
    curves(100 * losses, {"Reno formula": reno, "PFTK with timeouts": pftk}, points=points,
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
        "h2_udp_mbps": slider("float", s["h2_udp_mbps"], 0.0, 12.0, 0.1, "h2 UDP [Mbit/s]", ".1f"),
        "loss_pct": slider("float", s["loss_pct"], 0.1, 80.0, 0.1, "loss seen by TCP [%]", ".1f"),
        "rtt_ms": slider("float", s["rtt_ms"], 5.0, 1000.0, 1.0, "TCP RTT [ms]", ".0f"),
        "segment_bytes": choice([("1448 (one MSS)", 1448), ("2896 (as captured)", 2896)], s["segment_bytes"],
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
    return readout_lines([
        ("C sends", f"{v['c_bps'] / 1e6:.2f} Mbit/s"),
        ("share N1-N2 keeps", f"{100 * v['accepted']:.2f} %"),
        ("A->B goodput, loss", f"{v['goodput_bps']['AB'] / 1e3:.1f} kbit/s, {100 * v['loss']['AB']:.2f} %"),
        ("C->D goodput, loss", f"{v['goodput_bps']['CD'] / 1e3:.1f} kbit/s, {100 * v['loss']['CD']:.2f} %"),
        ("total goodput", f"{v['total_goodput_bps'] / 1e3:.1f} kbit/s"),
        ("best total on the curve", f"{v['best_total_bps'] / 1e3:.1f} kbit/s (C sends {v['best_c_mbps']:.2f} Mbit/s)"),
    ])


def _draw_collapse(ax, v, settings, measured=None):
    points = {label: ([c], [g / 1e3]) for label, (c, g) in (measured or {}).items()}
    curves(v["curve_c_mbps"], {"total": v["curve_total_bps"] / 1e3, "A->B": v["curve_ab_bps"] / 1e3,
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
        "c_mbps": slider("float", c_mbps, 0.05, 10.0, 0.05, "C sends [Mbit/s]", ".2f"),
        "shared_mbps": slider("float", 1.5, 0.5, 5.0, 0.1, "N1-N2 [Mbit/s]", ".1f"),
        "exit_mbps": slider("float", 0.5, 0.1, 2.0, 0.1, "N2-D [Mbit/s]", ".1f"),
    }
    draw = functools.partial(_draw_collapse, measured=measured)
    return Explorer(controls, collapse_values, collapse_readout, draw,
                    title="Congestion collapse without congestion control")
