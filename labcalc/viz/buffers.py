"""Buffers: queue limits (07), bufferbloat (09), the window sawtooth (08).

Explorers (``*_values`` / ``*_readout`` / ``*_explorer``, see :mod:`labcalc.viz._base`):
:func:`buffer_explorer` (the delay a full queue adds, RED's band), :func:`sawtooth_explorer`
(one flow on a drop-tail bottleneck, :func:`labcalc.dynamics.sawtooth`) and
:func:`bufferbloat_explorer` (a page fetched behind a long flow,
:func:`labcalc.dynamics.page_download`). The ``*_values`` functions take the sliders'
units (Mbit/s, ms) and return base units.

Figures: the model's window and RTT (:func:`sawtooth`, :func:`rtt_sawtooth`); measured
windows and queues are drawn by :mod:`labcalc.viz.traces`.

Examples
--------
>>> v = sawtooth_values(rate_mbps=1.5, base_rtt_ms=30.45, buffer_packets=100)
>>> round(v["w_max_packets"], 1), round(v["period_s"], 1)
(104.8, 33.2)
>>> round(download_values(178_000, rtt_ms=32.3, share_mbps=1.5)["time_s"], 2)
1.06
"""

from __future__ import annotations

import functools
import math

import numpy as np

from labcalc import dynamics
from labcalc.tcp import SHAPER_HEADER_BYTES
from labcalc.viz._base import PALETTE, Explorer, choice, new_axes, readout_lines, slider
from labcalc.viz.charts import curves

__all__ = [
    "HANDOUT_MAX_QUEUE_PACKETS", "RED_THRESHOLDS_BYTES",
    "buffer_values", "buffer_readout", "buffer_explorer",
    "sawtooth_values", "sawtooth_readout", "sawtooth_explorer",
    "download_values", "download_readout",
    "bufferbloat_values", "bufferbloat_readout", "bufferbloat_explorer",
    "sawtooth", "rtt_sawtooth",
]


# --------------------------------------------------------------------------------------
# 07: buffers
# --------------------------------------------------------------------------------------

#: Queue limit of the handout's bonus experiment (Mininet's ``max_queue_size``) [packet];
#: the default of the buffer explorer, and what notebook 07 uses when the measurement
#: file does not state the limit.
HANDOUT_MAX_QUEUE_PACKETS = 1000
#: RED's minimum and maximum thresholds of average queue in Mininet's ``TCIntf`` [byte].
RED_THRESHOLDS_BYTES = (30_000, 35_000)
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
    return readout_lines([
        ("queue entry", f"{v['ip_packet_bytes']}-byte IP packet ({v['segments_per_entry']} MSS), "
                        f"{v['accounting']} accounting"),
        ("full buffer", f"{v['buffer_packets']} entries, {v['buffer_bytes']} bytes"),
        ("delay of a full buffer", f"{1e3 * v['full_delay_s']:.1f} ms at {v['rate_bps'] / 1e6:.1f} Mbit/s"),
        (f"RED band ({_RED_MIN_BYTES}-{_RED_MAX_BYTES} B)", f"{1e3 * v['red_min_s']:.1f} - {1e3 * v['red_max_s']:.1f} ms"),
    ])


def _draw_buffer(ax, v, settings, measured=None):
    lines = {f"{k} MSS per entry": 1e3 * np.maximum(d, 1e-3) for k, d in v["curve_delay_s"].items()}
    band = None
    points = {}
    if measured:
        for label, value in measured.items():
            if isinstance(value, tuple) and len(value) == 2 and label.startswith("range"):
                band = (1e3 * value[0], 1e3 * value[1], label)
            else:
                points[label] = ([v["buffer_packets"]], [1e3 * value])
    curves(v["curve_packets"], lines, points=points, xlabel="queue limit [packets]",
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
        "buffer_packets": slider("int", int(buffer_packets), 10, max(2000, int(buffer_packets)), 10,
                                  "queue limit [packets]"),
        "rate_mbps": slider("float", 5.0, 1.0, 50.0, 0.5, "link rate [Mbit/s]", ".1f"),
        "segments_per_entry": choice([("1 (no offload)", 1), ("2 (2896-byte segments)", 2)], 2, "MSS per entry"),
        "accounting": choice([("tc (Linux shaper)", "tc"), ("wire (handout)", "wire")], "tc", "accounting"),
    }
    draw = functools.partial(_draw_buffer, measured=measured)
    return Explorer(controls, buffer_values, buffer_readout, draw,
                    title="Bufferbloat: how long a full queue takes to drain")


# --------------------------------------------------------------------------------------
# one flow on a drop-tail bottleneck: the sawtooth; a web page in slow-start rounds
# --------------------------------------------------------------------------------------


def sawtooth_values(rate_mbps=1.5, base_rtt_ms=30.0, buffer_packets=100, mss_bytes=1448,
                    algorithm="reno", beta=None, c=0.4, header_bytes=SHAPER_HEADER_BYTES, cycles=3,
                    points=400):
    """The sawtooth explorer's numbers: :func:`labcalc.dynamics.sawtooth` in slider units.

    Parameters
    ----------
    rate_mbps : float, default 1.5
        Bottleneck rate [Mbit/s], > 0.
    base_rtt_ms : float, default 30.0
        RTT without queueing [ms], > 0.
    buffer_packets : float, default 100
        Queue limit of the bottleneck [packets], >= 0.
    mss_bytes : float, default 1448
        Segment size [byte].
    algorithm : {"reno", "cubic"}, default "reno"
        Window growth between losses.
    beta : float, optional
        Window multiplier on a loss [1] (0.5 for Reno, 0.7 for CUBIC by default).
    c : float, default 0.4
        CUBIC's C [packets / s^3].
    header_bytes : float, default 66
        Bytes per packet beyond the MSS that the link carries [byte].
    cycles : int, default 3
        Cycles in the returned time series.
    points : int, default 400
        Samples per cycle.

    Returns
    -------
    dict
        The result of :func:`labcalc.dynamics.sawtooth` (base units: bit/s, s, packets).

    Examples
    --------
    >>> v = sawtooth_values(1.5, 30.45, 100)
    >>> round(v["bdp_packets"], 2), round(v["avg_rtt_s"], 3)
    (3.77, 0.658)
    """
    return dynamics.sawtooth(float(rate_mbps) * 1e6, float(base_rtt_ms) / 1e3, buffer_packets, mss_bytes,
                             algorithm, beta, c, header_bytes, cycles, points)


def download_values(page_bytes=178_000, rtt_ms=32.0, share_mbps=1.5, iw_segments=10, mss_bytes=1448,
                    header_bytes=SHAPER_HEADER_BYTES, handshake_rtts=2.0):
    """A page's download time: :func:`labcalc.dynamics.page_download` in slider units.

    Parameters
    ----------
    page_bytes : float, default 178000
        Size of the page [byte], > 0.
    rtt_ms : float, default 32.0
        RTT the download sees [ms] (behind a standing queue, the inflated RTT).
    share_mbps : float, default 1.5
        Rate available to the download [Mbit/s].
    iw_segments : int, default 10
        Initial window [segments].
    mss_bytes : float, default 1448
        Segment size [byte].
    header_bytes : float, default 66
        Per-packet overhead on the link [byte].
    handshake_rtts : float, default 2.0
        Round trips outside the data rounds (handshake, request).

    Returns
    -------
    dict
        The result of :func:`labcalc.dynamics.page_download` (base units).

    Examples
    --------
    >>> v = download_values(178_000, rtt_ms=582.2, share_mbps=0.75)
    >>> [n for n, _ in v["rounds"]], round(v["time_s"], 2)
    ([10, 20, 40, 53], 3.83)
    """
    return dynamics.page_download(page_bytes, float(rtt_ms) / 1e3, float(share_mbps) * 1e6, iw_segments,
                                  mss_bytes, header_bytes, handshake_rtts)


def sawtooth_readout(values) -> str:
    """The sawtooth explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`sawtooth_values`.

    Returns
    -------
    str
        The text shown under the controls, times in [ms] or [s].

    Examples
    --------
    >>> print(sawtooth_readout(sawtooth_values(1.5, 30.45, 20)))  # doctest: +NORMALIZE_WHITESPACE
    BDP, buffer              3.8 packets, 20 packets (1514 bytes each)
    window at a loss, after  24.8, 12.4 packets (35.9 kB, 17.9 kB)
    time between losses      1.86 s (reno)
    RTT min / avg / max      100.0 / 155.6 / 200.0 ms
    rate, utilisation        1434.6 kbit/s, 100.0 %
    loss rate (1 per cycle)  0.4346 % -> Mathis 1383.4 kbit/s
    """
    v = values
    kb = v["mss_bytes"] / 1e3
    period = f"{v['period_s']:.2f} s ({v['algorithm']}"
    period += ")" if v["algorithm"] == "reno" else f", K = {v['k_s']:.2f} s)"
    rows = [
        ("BDP, buffer", f"{v['bdp_packets']:.1f} packets, {v['buffer_packets']:.0f} packets "
                        f"({v['packet_bytes']:.0f} bytes each)"),
        ("window at a loss, after", f"{v['w_max_packets']:.1f}, {v['w_min_packets']:.1f} packets "
                                    f"({v['w_max_packets'] * kb:.1f} kB, {v['w_min_packets'] * kb:.1f} kB)"),
        ("time between losses", period),
        ("RTT min / avg / max", f"{1e3 * v['min_rtt_s']:.1f} / {1e3 * v['avg_rtt_s']:.1f} / "
                                f"{1e3 * v['max_rtt_s']:.1f} ms"),
        ("rate, utilisation", f"{v['avg_rate_bps'] / 1e3:.1f} kbit/s, {100 * v['utilisation']:.1f} %"),
        ("loss rate (1 per cycle)", f"{100 * v['loss_rate']:.4f} % -> "
                                    f"{'Mathis' if v['algorithm'] == 'reno' else 'RFC 9438'} "
                                    f"{v['model_rate_bps'] / 1e3:.1f} kbit/s"),
    ]
    width = max(len(a) for a, _ in rows)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in rows)


def _draw_sawtooth(ax, v, settings, measured=None):
    sawtooth(v, ax=ax, measured=measured)


def sawtooth_explorer(measured=None, rate_mbps=1.5, base_rtt_ms=30.0, buffer_packets=100, mss_bytes=1448,
                      algorithm="reno"):
    """Link rate, base RTT, buffer and algorithm -> the window sawtooth, RTT and rate.

    Parameters
    ----------
    measured : dict, optional
        ``label -> (times_s, windows_packets)`` drawn as points over the model
        (a recorded trace).
    rate_mbps : float, default 1.5
        Initial bottleneck rate [Mbit/s].
    base_rtt_ms : float, default 30.0
        Initial RTT without queueing [ms].
    buffer_packets : int, default 100
        Initial queue limit [packets].
    mss_bytes : int, default 1448
        Initial segment size [byte].
    algorithm : {"reno", "cubic"}, default "reno"
        Initial congestion control algorithm.

    Returns
    -------
    labcalc.viz.Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`sawtooth_values` for the current settings.

    Examples
    --------
    >>> ex = sawtooth_explorer()
    >>> ex.set(algorithm="cubic")
    >>> round(ex.values["period_s"], 1)
    5.7
    """
    controls = {
        "rate_mbps": slider("float", rate_mbps, 0.5, 100.0, 0.5, "link rate [Mbit/s]", ".1f"),
        "base_rtt_ms": slider("float", base_rtt_ms, 1.0, 600.0, 1.0, "base RTT [ms]", ".0f"),
        "buffer_packets": slider("int", buffer_packets, 0, 1000, 5, "buffer [packets]"),
        "mss_bytes": slider("int", mss_bytes, 300, 1460, 4, "MSS [bytes]"),
        "algorithm": choice([("Reno", "reno"), ("CUBIC", "cubic")], algorithm, "algorithm"),
    }
    draw = functools.partial(_draw_sawtooth, measured=measured)
    return Explorer(controls, sawtooth_values, sawtooth_readout, draw,
                            title="One flow on a drop-tail bottleneck: the window sawtooth")


def download_readout(values) -> str:
    """One line per round, then the total.

    Parameters
    ----------
    values : dict
        The result of :func:`download_values`.

    Returns
    -------
    str
        The text shown under the controls: one line per round, then the total time [s] and goodput [kbit/s].

    Examples
    --------
    >>> print(download_readout(download_values(178_000, 32.3, 1.5)))
    handshake + request: 2 RTT = 64.6 ms
    round 1: 10 segments, 80.7 ms
    round 2: 20 segments, 161.5 ms
    round 3: 40 segments, 323.0 ms
    round 4: 53 segments, 428.0 ms
    total 1.058 s, 1346.2 kbit/s
    """
    v = values
    lines = [f"handshake + request: 2 RTT = {2e3 * v['rtt_s']:.1f} ms"]
    lines += [f"round {k}: {n} segments, {1e3 * s:.1f} ms" for k, (n, s) in enumerate(v["rounds"], 1)]
    lines.append(f"total {v['time_s']:.3f} s, {v['goodput_bps'] / 1e3:.1f} kbit/s")
    return "\n".join(lines)


def bufferbloat_values(buffer_packets=100, rate_mbps=1.5, base_rtt_ms=30.0, page_kbytes=178.0,
                       iw_segments=10, share=0.5, mss_bytes=1448):
    """A long Reno flow fills the buffer; a page is fetched behind it.

    The sawtooth (:func:`sawtooth_values`) gives the RTT band; the page
    (:func:`download_values`) sees the average RTT and ``share`` of the link.

    Parameters
    ----------
    buffer_packets : float, default 100
        Queue limit of the bottleneck [packets], >= 0.
    rate_mbps : float, default 1.5
        Bottleneck rate [Mbit/s], > 0.
    base_rtt_ms : float, default 30.0
        RTT without queueing [ms], > 0.
    page_kbytes : float, default 178.0
        Size of the page [kB] (1 kB = 1000 bytes).
    iw_segments : int, default 10
        Initial window of the page's connection [segments].
    share : float, default 0.5
        Share of the link the page's connection gets next to the long flow [1], > 0.
    mss_bytes : float, default 1448
        Segment size [byte].

    Returns
    -------
    dict
        The keys of :func:`sawtooth_values` plus ``download`` (the dict of
        :func:`download_values`) and ``idle_download`` (same page, empty queue, whole link).

    Examples
    --------
    >>> v = bufferbloat_values(20)
    >>> round(v["avg_rtt_s"] * 1e3, 1), round(v["download"]["time_s"], 2)
    (155.2, 2.3)
    """
    v = sawtooth_values(rate_mbps, base_rtt_ms, buffer_packets, mss_bytes)
    share = float(share)
    if not (math.isfinite(share) and share > 0):
        raise ValueError(f"share must be > 0; got {share!r}")
    v["share"] = share
    v["download"] = download_values(page_kbytes * 1e3, 1e3 * v["avg_rtt_s"], rate_mbps * share, iw_segments,
                                    mss_bytes)
    v["idle_download"] = download_values(page_kbytes * 1e3, base_rtt_ms, rate_mbps, iw_segments, mss_bytes)
    return v


def bufferbloat_readout(values) -> str:
    """The bufferbloat explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`bufferbloat_values`.

    Returns
    -------
    str
        The text shown under the controls, delays in [ms] and times in [s].

    Examples
    --------
    >>> print(bufferbloat_readout(bufferbloat_values(100)))  # doctest: +NORMALIZE_WHITESPACE
    full buffer delay         807.5 ms
    ping RTT min / avg / max  422.8 / 657.6 / 845.5 ms
    cwnd of the long flow     52.4 - 104.7 packets (75.8 - 151.6 kB)
    time between losses       33.2 s
    page, idle link           1.053 s
    page behind the queue     4.144 s (50 % of the link, RTT 657.6 ms)
    """
    v = values
    kb = v["mss_bytes"] / 1e3
    d, idle = v["download"], v["idle_download"]
    rows = [
        ("full buffer delay", f"{1e3 * v['full_buffer_delay_s']:.1f} ms"),
        ("ping RTT min / avg / max", f"{1e3 * v['min_rtt_s']:.1f} / {1e3 * v['avg_rtt_s']:.1f} / "
                                     f"{1e3 * v['max_rtt_s']:.1f} ms"),
        ("cwnd of the long flow", f"{v['w_min_packets']:.1f} - {v['w_max_packets']:.1f} packets "
                                  f"({v['w_min_packets'] * kb:.1f} - {v['w_max_packets'] * kb:.1f} kB)"),
        ("time between losses", f"{v['period_s']:.1f} s"),
        ("page, idle link", f"{idle['time_s']:.3f} s"),
        ("page behind the queue", f"{d['time_s']:.3f} s ({100 * v['share']:.0f} % of the link, "
                                  f"RTT {1e3 * d['rtt_s']:.1f} ms)"),
    ]
    width = max(len(a) for a, _ in rows)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in rows)


def _draw_bufferbloat(ax, v, settings, measured=None):
    rtt_sawtooth(v, ax=ax, measured=measured)


def bufferbloat_explorer(measured=None, buffer_packets=100):
    """Queue limit, link rate, base RTT, page size and share -> RTT band and page time.

    Parameters
    ----------
    measured : dict, optional
        ``label -> (low_s, high_s)`` drawn as shaded RTT bands (e.g. measured ping ranges),
        or ``label -> rtt_s`` drawn as horizontal lines.
    buffer_packets : int, default 100
        Initial queue limit [packets].

    Returns
    -------
    labcalc.viz.Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`bufferbloat_values` for the current settings.

    Examples
    --------
    >>> ex = bufferbloat_explorer()
    >>> ex.set(buffer_packets=20)
    >>> round(ex.values["download"]["time_s"], 2)
    2.3
    """
    controls = {
        "buffer_packets": slider("int", buffer_packets, 5, 500, 5, "queue limit [packets]"),
        "rate_mbps": slider("float", 1.5, 0.5, 20.0, 0.5, "bottleneck [Mbit/s]", ".1f"),
        "base_rtt_ms": slider("float", 30.0, 1.0, 200.0, 1.0, "base RTT [ms]", ".0f"),
        "page_kbytes": slider("float", 178.0, 10.0, 2000.0, 10.0, "page [kB]", ".0f"),
        "share": slider("float", 0.5, 0.1, 1.0, 0.05, "page's share of link", ".2f"),
    }
    draw = functools.partial(_draw_bufferbloat, measured=measured)
    return Explorer(controls, bufferbloat_values, bufferbloat_readout, draw,
                            title="Bufferbloat: the queue a long flow keeps, and a page behind it")


# --------------------------------------------------------------------------------------
# figures: the model sawtooth and the RTT it gives
# --------------------------------------------------------------------------------------


def sawtooth(values, ax=None, measured=None, title=None):
    """The window of :func:`labcalc.viz.sawtooth_values` over its cycles.

    Parameters
    ----------
    values : dict
        From :func:`labcalc.viz.sawtooth_values`.
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
    >>> from labcalc.viz.buffers import sawtooth_values
    >>> len(sawtooth(sawtooth_values()).axes[0].lines)
    3
    """
    fig, ax = new_axes(ax)
    v = values
    ax.plot(v["t_s"], v["cwnd_packets"], color=PALETTE[0], lw=1.5, label=f"{v['algorithm']} model")
    ax.axhline(v["bdp_packets"], color="black", linestyle=":", lw=0.9)
    ax.axhline(v["bdp_packets"] + v["buffer_packets"], color="black", linestyle="--", lw=0.9)
    ax.annotate("BDP", (1, v["bdp_packets"]), xycoords=("axes fraction", "data"), textcoords="offset points",
                xytext=(-4, 3), ha="right", fontsize=8)
    ax.annotate("BDP + buffer", (1, v["bdp_packets"] + v["buffer_packets"]), xycoords=("axes fraction", "data"),
                textcoords="offset points", xytext=(-4, -10), ha="right", fontsize=8)
    for k, (label, (t, w)) in enumerate((measured or {}).items()):
        ax.scatter(t, w, s=5, color=PALETTE[(k + 1) % 10], label=label, zorder=3)
    ax.set_ylim(0, 1.12 * max(v["w_max_packets"], 1.0))
    ax.set_xlabel("time [s]")
    ax.set_ylabel("cwnd [packets]")
    ax.legend(fontsize=8, loc="lower right")
    if title:
        ax.set_title(title)
    return fig


def rtt_sawtooth(values, ax=None, measured=None, title=None):
    """The RTT a ping sees over the cycles of :func:`~labcalc.viz.sawtooth_values`.

    Parameters
    ----------
    values : dict
        From :func:`labcalc.viz.sawtooth_values`.
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
    >>> from labcalc.viz.buffers import sawtooth_values
    >>> ax = rtt_sawtooth(sawtooth_values(), measured={"ping": (0.47, 0.68), "avg": 0.58}).axes[0]
    >>> len(ax.lines), len(ax.patches)
    (3, 1)
    """
    fig, ax = new_axes(ax)
    v = values
    ax.plot(v["t_s"], 1e3 * v["rtt_s"], color=PALETTE[0], lw=1.5, label="model")
    ax.axhline(1e3 * (v["base_rtt_s"] + v["full_buffer_delay_s"]), color="black", linestyle="--", lw=0.9)
    ax.annotate("full buffer", (1, 1e3 * (v["base_rtt_s"] + v["full_buffer_delay_s"])),
                xycoords=("axes fraction", "data"), textcoords="offset points", xytext=(-4, 3), ha="right", fontsize=8)
    for k, (label, value) in enumerate((measured or {}).items()):
        if isinstance(value, tuple):
            ax.axhspan(1e3 * value[0], 1e3 * value[1], color=PALETTE[(k + 1) % 10], alpha=0.2, label=label)
        else:
            ax.axhline(1e3 * value, color=PALETTE[(k + 1) % 10], lw=1.2, label=label)
    ax.set_ylim(0, 1.15e3 * (v["base_rtt_s"] + v["full_buffer_delay_s"]))
    ax.set_xlabel("time [s]")
    ax.set_ylabel("RTT [ms]")
    ax.legend(fontsize=8, loc="lower right")
    if title:
        ax.set_title(title)
    return fig
