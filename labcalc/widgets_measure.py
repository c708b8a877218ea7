"""Models and explorers of the measurement notebooks (08-11): the numbers, then the widgets.

Like :mod:`labcalc.widgets`, every explorer comes in three parts:

``<name>_values(**settings) -> dict``
    the computation, in base units (bit/s, s, byte; windows and queues in packets);
``<name>_readout(values) -> str``
    the fixed-format text the explorer shows;
``<name>_explorer(...) -> labcalc.widgets.Explorer``
    the widget (sliders, the readout and a figure).

The models are deliberately small, so that a student can follow them:

:func:`sawtooth_values`
    one long-lived Reno or CUBIC flow on a drop-tail bottleneck, as a fluid model: the
    window grows until it exceeds the path's BDP plus the buffer, then shrinks by the
    decrease factor. Gives the window, queue and RTT over a cycle, the cycle length, the
    average RTT and rate, and the loss rate (one loss per cycle). Notebooks 08 and 09.
:func:`download_values`
    a short transfer (a web page) in slow-start rounds: each round lasts an RTT or the
    time its window takes at the available rate, whichever is longer. Notebook 09.
:func:`response_values`, :func:`implied_loss`, :func:`round_model_rate`
    what Reno, CUBIC and PFTK predict for a loss rate and an RTT, capped by the link;
    the loss rate a measured rate implies; a round-by-round model of a test of finite
    length. Notebook 10.
:func:`aimd_shares`, :func:`chiu_jain_values`
    two AIMD (or AIAD, MIMD) flows on one link: the shares predicted with equal loss
    rates and with synchronised losses, and the Chiu-Jain trajectory. Notebook 11.

Only numpy is imported at module level; ipywidgets and matplotlib are imported by the
explorers, so ``import labcalc`` and the ``*_values`` functions stay light.

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

__all__ = [
    "HEADER_BYTES",
    "link_packet_bytes",
    "sawtooth_values", "sawtooth_readout", "sawtooth_explorer",
    "download_values", "download_readout",
    "bufferbloat_values", "bufferbloat_readout", "bufferbloat_explorer",
    "implied_loss", "round_model_rate",
    "response_values", "response_readout", "response_explorer",
    "aimd_shares", "chiu_jain_values", "chiu_jain_readout", "chiu_jain_explorer",
]

#: Bytes a Linux shaper counts per MSS-sized TCP packet beyond the payload: IP 20, TCP 20
#: + 12 of timestamps, Ethernet header 14 (what ``tc`` charges; see labcalc.queueing).
HEADER_BYTES = 66

_BETA = {"reno": 0.5, "cubic": 0.7}


def _check(name, value, low=0.0, strict=True):
    value = float(value)
    if not math.isfinite(value) or (value <= low if strict else value < low):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low:g}; got {value!r}")
    return value


def link_packet_bytes(mss_bytes=1448, header_bytes=HEADER_BYTES) -> float:
    """Bytes one full-size TCP packet costs the bottleneck [byte].

    Parameters
    ----------
    mss_bytes : float, default 1448
        Segment size [byte], > 0.
    header_bytes : float, default 66
        Bytes the link counts beyond the payload [byte], >= 0 (IP 20, TCP 20 + 12 of
        timestamps, Ethernet header 14).

    Returns
    -------
    float
        ``mss_bytes + header_bytes`` [byte].

    Examples
    --------
    >>> link_packet_bytes(1448), link_packet_bytes(340, 62)
    (1514.0, 402.0)
    """
    return float(_check("mss_bytes", mss_bytes) + _check("header_bytes", header_bytes, strict=False))


# --------------------------------------------------------------------------------------
# one flow on a drop-tail bottleneck: the sawtooth
# --------------------------------------------------------------------------------------


def sawtooth_values(rate_mbps=1.5, base_rtt_ms=30.0, buffer_packets=100, mss_bytes=1448,
                    algorithm="reno", beta=None, c=0.4, header_bytes=HEADER_BYTES, cycles=3,
                    points=400):
    """Fluid model of one long-lived flow filling a drop-tail buffer, cycle after cycle.

    Parameters
    ----------
    rate_mbps : float
        Bottleneck rate [Mbit/s], > 0.
    base_rtt_ms : float
        RTT without queueing [ms], > 0.
    buffer_packets : float
        Queue limit of the bottleneck [packets], >= 0.
    mss_bytes : float
        Segment size [byte]; each packet costs ``mss + header_bytes`` on the link.
    algorithm : {"reno", "cubic"}
        Reno: +1 packet per RTT. CUBIC: the RFC 9438 curve C (t - K)^3 + W_max, never
        below its Reno-friendly estimate (alpha = 3 (1 - beta) / (1 + beta) per RTT).
    beta : float, optional
        Window multiplier on a loss (0.5 for Reno, 0.7 for CUBIC by default).
    c : float
        CUBIC's C [packets / s^3].
    header_bytes : float
        Bytes per packet beyond the MSS that the link carries (66 for a Linux shaper).
    cycles : int
        Cycles in the returned time series.
    points : int
        Samples per cycle.

    Returns
    -------
    dict
        ``bdp_packets`` (base RTT x rate), ``w_max_packets`` (window at a loss: BDP +
        buffer + the packet that does not fit), ``w_min_packets`` (beta x w_max),
        ``period_s`` (time between losses), ``k_s`` (CUBIC's K, NaN for Reno),
        ``avg_rtt_s``, ``min_rtt_s``, ``max_rtt_s`` (time averages and extremes over a
        cycle), ``full_buffer_delay_s``, ``avg_rate_bps`` (goodput: MSS bytes per packet),
        ``utilisation``, ``packets_per_cycle``, ``loss_rate`` (one loss per cycle),
        ``model_rate_bps`` (the response function at that loss rate and the average RTT:
        Mathis for Reno, RFC 9438 for CUBIC), and the
        series ``t_s``, ``cwnd_packets``, ``queue_packets``, ``rtt_s``.

    Raises
    ------
    ValueError
        For a rate, RTT or MSS that is not > 0, a negative buffer, an unknown algorithm
        or a beta outside (0, 1).

    Notes
    -----
    With *B* the buffer and *BDP* = C RTT_0 in packets, the queue holds
    max(W - BDP, 0) packets and the RTT is RTT_0 + queue / C. A loss happens when the
    window no longer fits: W > BDP + B. Reno then grows by one packet per RTT, so a cycle
    lasts :math:`\\int_{\\beta W}^{W} RTT(w)\\,dw`; with a full pipe (RTT = W / C) this is
    :math:`3 W^2 / (8 C)` for beta = 1/2. The sending rate is min(W / RTT, C).

    References
    ----------
    Mathis et al., CCR 27(3), 1997 (the periodic sawtooth); RFC 9438 Section 4 (CUBIC);
    Appenzeller, Keslassy, McKeown, "Sizing router buffers", SIGCOMM 2004 (the buffer
    keeps the link busy while the window is halved when B >= BDP).

    Examples
    --------
    Seed 002's network (1.5 Mbit/s, 30 ms, queue of 100 packets):

    >>> v = sawtooth_values(1.5, 30.45, 100)
    >>> round(v["bdp_packets"], 2), round(v["w_min_packets"], 1), round(v["utilisation"], 3)
    (3.77, 52.4, 1.0)
    >>> round(v["avg_rtt_s"], 3), round(v["max_rtt_s"], 3)
    (0.658, 0.846)
    >>> c = sawtooth_values(1.5, 30.45, 100, algorithm="cubic")
    >>> round(c["k_s"], 2), round(c["period_s"], 2)
    (4.28, 5.65)
    """
    if algorithm not in _BETA:
        raise ValueError(f"algorithm must be 'reno' or 'cubic'; got {algorithm!r}")
    rate = _check("rate_mbps", rate_mbps) * 1e6
    rtt0 = _check("base_rtt_ms", base_rtt_ms) / 1e3
    buf = _check("buffer_packets", buffer_packets, strict=False)
    mss = _check("mss_bytes", mss_bytes)
    b = _BETA[algorithm] if beta is None else float(beta)
    if not 0.0 < b < 1.0:
        raise ValueError(f"beta must be in (0, 1); got {beta!r}")
    size = link_packet_bytes(mss, header_bytes)
    cpps = rate / (8.0 * size)
    bdp = cpps * rtt0
    w_max = bdp + buf + 1.0
    w_min = b * w_max

    def rtt_of(w):
        return rtt0 + np.maximum(w - bdp, 0.0) / cpps

    k = float("nan")
    if algorithm == "reno":
        w = np.linspace(w_min, w_max, int(points))
        r = rtt_of(w)
        t = np.concatenate([[0.0], np.cumsum(0.5 * (r[1:] + r[:-1]) * np.diff(w))])
    else:
        k = float(np.cbrt(w_max * (1.0 - b) / c))
        alpha = 3.0 * (1.0 - b) / (1.0 + b)
        # step until the window no longer fits; the Reno-friendly estimate grows alpha per RTT
        horizon = k + float(np.cbrt(1.0 / c))
        dt = horizon / points
        ts, ws = [0.0], [w_min]
        w_est, tt, cur = w_min, 0.0, w_min
        for _ in range(50 * int(points)):
            if cur >= w_max:
                break
            w_est += alpha * dt / float(rtt_of(cur))
            tt += dt
            cur = max(c * (tt - k) ** 3 + w_max - 1.0, w_est)
            ts.append(tt)
            ws.append(min(cur, w_max))
        t, w = np.asarray(ts), np.asarray(ws)
        r = rtt_of(w)
    period = float(t[-1])
    send = np.minimum(w / r, cpps)

    def avg(y):
        return float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(t)) / period) if period > 0 else float(y[0])

    packets = avg(send) * period
    loss = 1.0 / packets if packets > 1 else 1.0
    avg_rtt = avg(r)
    from labcalc import tcp

    if algorithm == "reno":
        model_rate = tcp.mathis_rate_bps(mss, avg_rtt, min(loss, 1.0), c=tcp.RENO_CONSTANT)
    else:
        model_rate = tcp.cubic_rate_bps(mss, avg_rtt, min(loss, 1.0), beta=b, c=c)
    n = max(int(cycles), 1)
    t_all = np.concatenate([t[:-1] + k_ * period for k_ in range(n)] + [[n * period]])
    w_all = np.concatenate([w[:-1]] * n + [[w[-1]]])
    return {
        "algorithm": algorithm, "rate_bps": rate, "base_rtt_s": rtt0, "buffer_packets": buf,
        "mss_bytes": mss, "packet_bytes": size, "beta": b,
        "bdp_packets": bdp, "w_max_packets": w_max, "w_min_packets": w_min,
        "period_s": period, "k_s": k,
        "avg_rtt_s": avg_rtt, "min_rtt_s": float(r.min()), "max_rtt_s": float(r.max()),
        "full_buffer_delay_s": buf / cpps,
        "avg_rate_bps": avg(send) * mss * 8.0, "utilisation": avg(send) / cpps,
        "packets_per_cycle": packets, "loss_rate": loss, "model_rate_bps": model_rate,
        "t_s": t_all, "cwnd_packets": w_all,
        "queue_packets": np.minimum(np.maximum(w_all - bdp, 0.0), buf), "rtt_s": rtt_of(w_all),
    }


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
    from labcalc import plots_measure

    plots_measure.sawtooth(v, ax=ax, measured=measured)


def _widgets():
    import ipywidgets as W

    from labcalc import widgets

    return W, widgets


def _slider(W, kind, value, lo, hi, step, description, fmt=None):
    style = {"description_width": "150px"}
    layout = W.Layout(width="460px")
    cls = {"int": W.IntSlider, "float": W.FloatSlider, "log": W.FloatLogSlider}[kind]
    kwargs = dict(value=value, step=step, description=description, style=style, layout=layout,
                  continuous_update=False, min=lo, max=hi)
    if kind == "log":
        kwargs["base"] = 10
    if fmt:
        kwargs["readout_format"] = fmt
    return cls(**kwargs)


def _dropdown(W, options, value, description):
    return W.Dropdown(options=options, value=value, description=description,
                      style={"description_width": "150px"}, layout=W.Layout(width="460px"))


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
    labcalc.widgets.Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`sawtooth_values` for the current settings.

    Examples
    --------
    >>> ex = sawtooth_explorer()
    >>> ex.set(algorithm="cubic")
    >>> round(ex.values["period_s"], 1)
    5.7
    """
    W, widgets = _widgets()
    controls = {
        "rate_mbps": _slider(W, "float", rate_mbps, 0.5, 100.0, 0.5, "link rate [Mbit/s]", ".1f"),
        "base_rtt_ms": _slider(W, "float", base_rtt_ms, 1.0, 600.0, 1.0, "base RTT [ms]", ".0f"),
        "buffer_packets": _slider(W, "int", buffer_packets, 0, 1000, 5, "buffer [packets]"),
        "mss_bytes": _slider(W, "int", mss_bytes, 300, 1460, 4, "MSS [bytes]"),
        "algorithm": _dropdown(W, [("Reno", "reno"), ("CUBIC", "cubic")], algorithm, "algorithm"),
    }
    draw = functools.partial(_draw_sawtooth, measured=measured)
    return widgets.Explorer(controls, sawtooth_values, sawtooth_readout, draw,
                            title="One flow on a drop-tail bottleneck: the window sawtooth")


# --------------------------------------------------------------------------------------
# a web page in slow-start rounds; bufferbloat
# --------------------------------------------------------------------------------------


def download_values(page_bytes=178_000, rtt_ms=32.0, share_mbps=1.5, iw_segments=10, mss_bytes=1448,
                    header_bytes=HEADER_BYTES, handshake_rtts=2.0):
    """Time to download a page: handshake, then slow-start rounds at an inflated RTT.

    Parameters
    ----------
    page_bytes : float
        Size of the page [byte], > 0.
    rtt_ms : float
        RTT the download sees [ms] (behind a standing queue, the inflated RTT).
    share_mbps : float
        Rate available to the download [Mbit/s] (the link, or its share of it).
    iw_segments : int
        Initial window [segments] (10 in Linux, RFC 6928).
    mss_bytes, header_bytes : float
        Segment size and per-packet overhead on the link [byte].
    handshake_rtts : float
        Round trips before the first data segment leaves the server and after the last
        one (2: SYN / SYN-ACK, then the request out and the last data back).

    Returns
    -------
    dict
        ``segments``, ``rounds`` (list of (segments, seconds)), ``time_s``,
        ``goodput_bps`` (page / time), ``window_limited_rounds`` (rounds that lasted an
        RTT, not their transmission time).

    Notes
    -----
    Round *k* sends min(IW 2^k, what is left) segments and lasts
    max(RTT, n_k S 8 / share), except the last, which lasts its transmission time:

    .. math:: T = h\\,RTT + \\sum_{k < last} \\max(RTT, \\tfrac{8 n_k S}{R}) + \\tfrac{8 n_{last} S}{R}

    No loss, no delayed ACKs: a lower bound for a page fetched behind a full queue.

    References
    ----------
    RFC 6928 (IW10); N. Cardwell, S. Savage, T. Anderson, "Modeling TCP latency",
    INFOCOM 2000 (slow-start rounds of short transfers).

    Examples
    --------
    >>> v = download_values(178_000, rtt_ms=582.2, share_mbps=0.75)
    >>> [n for n, _ in v["rounds"]], round(v["time_s"], 2)
    ([10, 20, 40, 53], 3.83)
    """
    page = _check("page_bytes", page_bytes)
    rtt = _check("rtt_ms", rtt_ms) / 1e3
    share = _check("share_mbps", share_mbps) * 1e6
    iw = int(_check("iw_segments", iw_segments))
    mss = _check("mss_bytes", mss_bytes)
    size = link_packet_bytes(mss, header_bytes)
    segments = int(math.ceil(page / mss))
    left, window, rounds = segments, iw, []
    while left > 0:
        n = min(window, left)
        tx = 8.0 * n * size / share
        left -= n
        rounds.append((n, tx if left == 0 else max(rtt, tx)))
        window *= 2
    total = float(handshake_rtts) * rtt + sum(s for _, s in rounds)
    limited = sum(1 for n, s in rounds[:-1] if s == rtt)
    return {"page_bytes": page, "rtt_s": rtt, "share_bps": share, "segments": segments, "rounds": rounds,
            "time_s": total, "goodput_bps": 8.0 * page / total, "window_limited_rounds": limited}


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
    share = _check("share", share)
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
    from labcalc import plots_measure

    plots_measure.rtt_sawtooth(v, ax=ax, measured=measured)


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
    labcalc.widgets.Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`bufferbloat_values` for the current settings.

    Examples
    --------
    >>> ex = bufferbloat_explorer()
    >>> ex.set(buffer_packets=20)
    >>> round(ex.values["download"]["time_s"], 2)
    2.3
    """
    W, widgets = _widgets()
    controls = {
        "buffer_packets": _slider(W, "int", buffer_packets, 5, 500, 5, "queue limit [packets]"),
        "rate_mbps": _slider(W, "float", 1.5, 0.5, 20.0, 0.5, "bottleneck [Mbit/s]", ".1f"),
        "base_rtt_ms": _slider(W, "float", 30.0, 1.0, 200.0, 1.0, "base RTT [ms]", ".0f"),
        "page_kbytes": _slider(W, "float", 178.0, 10.0, 2000.0, 10.0, "page [kB]", ".0f"),
        "share": _slider(W, "float", 0.5, 0.1, 1.0, 0.05, "page's share of link", ".2f"),
    }
    draw = functools.partial(_draw_bufferbloat, measured=measured)
    return widgets.Explorer(controls, bufferbloat_values, bufferbloat_readout, draw,
                            title="Bufferbloat: the queue a long flow keeps, and a page behind it")


# --------------------------------------------------------------------------------------
# response functions against measured rates
# --------------------------------------------------------------------------------------


def implied_loss(rate_bps, rtt_s, mss_bytes=1448, model="reno", beta=0.7, c=0.4):
    """The loss rate at which a response function gives a measured rate [fraction].

    Parameters
    ----------
    rate_bps : float
        Measured rate [bit/s], > 0.
    rtt_s : float
        RTT [s], > 0.
    model : {"reno", "cubic"}
        ``"reno"``: Mathis with c = sqrt(3/2), p = (c 8 L / (RTT R))^2. ``"cubic"``: the
        RFC 9438 average window k (RTT / p)^(3/4) solved for p (its cubic region; if that
        p puts CUBIC in its Reno-friendly region, the Reno value 1.2 / sqrt(p) is used).
    mss_bytes : float, default 1448
        Segment size L [byte], > 0.
    beta : float, default 0.7
        CUBIC's window multiplier on a loss [1] (``model="cubic"`` only).
    c : float, default 0.4
        CUBIC's C [packets / s^3] (``model="cubic"`` only).

    Returns
    -------
    float
        Loss rate p [1], at most 1.

    Examples
    --------
    Seed 003's long lossy link (RTT 420 ms): 5.76 Mbit/s with Reno, 40.3 with CUBIC.

    >>> f"{implied_loss(5.76e6, 0.42):.2e}", f"{implied_loss(40.3e6, 0.42, model='cubic'):.2e}"
    ('3.44e-05', '2.72e-05')
    """
    from labcalc import tcp

    rate = _check("rate_bps", rate_bps)
    rtt = _check("rtt_s", rtt_s)
    mss = _check("mss_bytes", mss_bytes)
    w = rate * rtt / (8.0 * mss)
    if model == "reno":
        return float((tcp.RENO_CONSTANT / w) ** 2)
    if model != "cubic":
        raise ValueError(f"model must be 'reno' or 'cubic'; got {model!r}")
    k = (c * (3.0 + beta) / (4.0 * (1.0 - beta))) ** 0.25
    p = rtt * (k / w) ** (4.0 / 3.0)
    if 1.2 / math.sqrt(p) > w:  # Reno-friendly region
        p = (1.2 / w) ** 2
    return float(min(p, 1.0))


def round_model_rate(duration_s, rate_bps, rtt_s, loss, mss_bytes=1448, algorithm="reno", iw_segments=10,
                     header_bytes=HEADER_BYTES, beta=None, c=0.4):
    """Average goodput of a test of finite length, round by round [bit/s].

    Slow start from ``iw_segments`` (doubling per round) until the first loss, then Reno
    (+1 per round, x beta on a loss) or CUBIC (the RFC 9438 curve in time, Reno-friendly
    floor, x beta on a loss). A loss happens every 1/p segments sent (deterministic); a
    round lasts max(RTT, W S 8 / rate) and a window larger than the pipe plus nothing
    (no buffer) is capped at the link rate.

    Parameters
    ----------
    duration_s : float
        Length of the test [s], > 0.
    rate_bps : float
        Link rate [bit/s], > 0.
    rtt_s : float
        Round-trip time [s], > 0.
    loss : float
        Loss rate p [1], > 0: one loss every 1/p segments sent.
    mss_bytes : float, default 1448
        Segment size S [byte], > 0.
    algorithm : {"reno", "cubic"}, default "reno"
        Window growth after the first loss.
    iw_segments : float, default 10
        Initial window [segments].
    header_bytes : float, default 66
        Bytes per packet beyond the MSS that the link carries [byte].
    beta : float, optional
        Window multiplier on a loss [1] (0.5 for Reno, 0.7 for CUBIC by default).
    c : float, default 0.4
        CUBIC's C [packets / s^3].

    Returns
    -------
    float
        Average goodput over the test [bit/s]: MSS bytes delivered / ``duration_s``.

    Examples
    --------
    >>> round(round_model_rate(60, 100e6, 0.42, 1e-3) / 1e6, 2)
    1.72
    >>> round(round_model_rate(5, 100e6, 0.42, 1e-3) / 1e6, 2)
    5.89
    """
    dur = _check("duration_s", duration_s)
    rate = _check("rate_bps", rate_bps)
    rtt = _check("rtt_s", rtt_s)
    p = _check("loss", loss)
    mss = _check("mss_bytes", mss_bytes)
    if algorithm not in _BETA:
        raise ValueError(f"algorithm must be 'reno' or 'cubic'; got {algorithm!r}")
    b = _BETA[algorithm] if beta is None else float(beta)
    size = link_packet_bytes(mss, header_bytes)
    per_loss = 1.0 / p
    t, sent, since_loss = 0.0, 0.0, 0.0
    w = float(iw_segments)
    slow_start = True
    w_max, epoch, w_est = w, 0.0, w
    alpha = 3.0 * (1.0 - b) / (1.0 + b)
    while t < dur:
        round_s = max(rtt, w * size * 8.0 / rate)
        step = min(round_s, dur - t)
        n = w * step / round_s
        sent += n
        since_loss += n
        t += step
        if since_loss >= per_loss:
            since_loss -= per_loss
            slow_start = False
            w_max = w
            w = max(b * w, 1.0)
            epoch, w_est = t, w
            continue
        if slow_start:
            w *= 2.0
        elif algorithm == "reno":
            w += 1.0
        else:
            k = (w_max * (1.0 - b) / c) ** (1.0 / 3.0)
            w_est += alpha
            w = max(c * (t - epoch + rtt - k) ** 3 + w_max, w_est, 1.0)
    return float(sent * mss * 8.0 / dur)


def response_values(rtt_ms=420.0, loss_pct=0.1, link_mbps=100.0, mss_bytes=1448, duration_s=60.0,
                    rto_s=1.0):
    """What the loss-throughput models predict for one RTT and loss rate, capped by the link.

    Parameters
    ----------
    rtt_ms : float, default 420.0
        Round-trip time [ms], > 0.
    loss_pct : float, default 0.1
        Loss rate [%], in (0, 100].
    link_mbps : float, default 100.0
        Link rate [Mbit/s], > 0.
    mss_bytes : float, default 1448
        Segment size [byte], > 0.
    duration_s : float, default 60.0
        Length of the test for the round-by-round models [s].
    rto_s : float, default 1.0
        Retransmission timeout T0 of the PFTK model [s].

    Returns
    -------
    dict
        ``mathis_bps`` (c = sqrt(3/2)), ``cubic_bps`` (RFC 9438 with the Reno-friendly
        floor), ``pftk_bps`` (full PFTK, delayed ACKs, T0 = ``rto_s``), ``link_bps`` (the
        goodput capacity: rate x MSS / (MSS + 66)), the same capped by the link
        (``*_capped_bps``), ``short_reno_bps`` and ``short_cubic_bps``
        (:func:`round_model_rate` over ``duration_s``), and the curves ``curve_loss``,
        ``curve_reno``, ``curve_cubic``, ``curve_pftk`` for a plot.

    Examples
    --------
    >>> v = response_values(420, 0.1, 100)
    >>> round(v["mathis_bps"] / 1e6, 3), round(v["cubic_bps"] / 1e6, 3), round(v["link_bps"] / 1e6, 2)
    (1.068, 2.697, 95.64)
    """
    from labcalc import tcp

    rtt = _check("rtt_ms", rtt_ms) / 1e3
    p = _check("loss_pct", loss_pct) / 100.0
    if p > 1:
        raise ValueError(f"loss_pct must be <= 100; got {loss_pct!r}")
    link = _check("link_mbps", link_mbps) * 1e6
    mss = _check("mss_bytes", mss_bytes)
    cap = link * mss / link_packet_bytes(mss)
    mathis = tcp.mathis_rate_bps(mss, rtt, p, c=tcp.RENO_CONSTANT)
    cubic = tcp.cubic_rate_bps(mss, rtt, p)
    pftk = tcp.pftk_rate_pps(rtt, p, rto_s) * 8.0 * mss
    grid = np.logspace(-6, -0.5, 80)
    return {
        "rtt_s": rtt, "loss": p, "link_rate_bps": link, "mss_bytes": mss, "duration_s": float(duration_s),
        "mathis_bps": mathis, "cubic_bps": cubic, "pftk_bps": pftk, "link_bps": cap,
        "mathis_capped_bps": min(mathis, cap), "cubic_capped_bps": min(cubic, cap), "pftk_capped_bps": min(pftk, cap),
        "short_reno_bps": min(round_model_rate(duration_s, link, rtt, p, mss, "reno"), cap),
        "short_cubic_bps": min(round_model_rate(duration_s, link, rtt, p, mss, "cubic"), cap),
        "curve_loss": grid,
        "curve_reno": np.minimum(tcp.mathis_rate_bps(mss, rtt, grid, c=tcp.RENO_CONSTANT), cap),
        "curve_cubic": np.minimum(tcp.cubic_rate_bps(mss, rtt, grid), cap),
        "curve_pftk": np.minimum(tcp.pftk_rate_pps(rtt, grid, rto_s) * 8.0 * mss, cap),
    }


def response_readout(values) -> str:
    """The response explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`response_values`.

    Returns
    -------
    str
        The text shown under the controls, rates in [Mbit/s].

    Examples
    --------
    >>> print(response_readout(response_values(420, 0.1, 100)))  # doctest: +NORMALIZE_WHITESPACE
    RTT, loss, link            420 ms, 0.1000 %, 100.0 Mbit/s (goodput cap 95.64 Mbit/s)
    Reno (Mathis)              1.068 Mbit/s
    CUBIC (RFC 9438)           2.697 Mbit/s
    Reno with timeouts (PFTK)  0.745 Mbit/s
    60 s test, Reno / CUBIC    1.717 / 4.698 Mbit/s
    """
    v = values
    rows = [
        ("RTT, loss, link", f"{1e3 * v['rtt_s']:.0f} ms, {100 * v['loss']:.4f} %, {v['link_rate_bps'] / 1e6:.1f} Mbit/s "
                            f"(goodput cap {v['link_bps'] / 1e6:.2f} Mbit/s)"),
        ("Reno (Mathis)", f"{v['mathis_capped_bps'] / 1e6:.3f} Mbit/s"),
        ("CUBIC (RFC 9438)", f"{v['cubic_capped_bps'] / 1e6:.3f} Mbit/s"),
        ("Reno with timeouts (PFTK)", f"{v['pftk_capped_bps'] / 1e6:.3f} Mbit/s"),
        (f"{v['duration_s']:.0f} s test, Reno / CUBIC", f"{v['short_reno_bps'] / 1e6:.3f} / "
                                                       f"{v['short_cubic_bps'] / 1e6:.3f} Mbit/s"),
    ]
    width = max(len(a) for a, _ in rows)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in rows)


def _draw_response(ax, v, settings, measured=None):
    from labcalc import plots_measure

    plots_measure.response_curves(v, ax=ax, measured=measured)


def response_explorer(measured=None, rtt_ms=420.0, loss_pct=0.1, link_mbps=100.0):
    """RTT, loss, link rate and test length -> Reno, CUBIC and PFTK rates.

    Parameters
    ----------
    measured : dict, optional
        ``label -> (loss_fraction, rate_bps)`` drawn as points.
    rtt_ms : float, default 420.0
        Initial round-trip time [ms].
    loss_pct : float, default 0.1
        Initial loss rate [%].
    link_mbps : float, default 100.0
        Initial link rate [Mbit/s].

    Returns
    -------
    labcalc.widgets.Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`response_values` for the current settings.

    Examples
    --------
    >>> ex = response_explorer()
    >>> ex.set(loss_pct=0.01)
    >>> round(ex.values["mathis_bps"] / 1e6, 2)
    3.38
    """
    W, widgets = _widgets()
    controls = {
        "rtt_ms": _slider(W, "float", rtt_ms, 1.0, 1000.0, 1.0, "RTT [ms]", ".0f"),
        "loss_pct": _slider(W, "log", loss_pct, -4, 1, 0.05, "loss [%]", ".4f"),
        "link_mbps": _slider(W, "float", link_mbps, 1.0, 1000.0, 1.0, "link [Mbit/s]", ".0f"),
        "duration_s": _slider(W, "float", 60.0, 1.0, 120.0, 1.0, "test length [s]", ".0f"),
    }
    draw = functools.partial(_draw_response, measured=measured)
    return widgets.Explorer(controls, response_values, response_readout, draw,
                            title="Loss-throughput models against measured rates")


# --------------------------------------------------------------------------------------
# competing AIMD flows
# --------------------------------------------------------------------------------------


def aimd_shares(decrease_to=(0.5, 0.5), increase=(1.0, 1.0), rtt_s=(0.02, 0.02)):
    """Shares of AIMD flows on one bottleneck under two loss models [fraction].

    Parameters
    ----------
    decrease_to : sequence of float
        Window multiplier b_i on a loss, in (0, 1).
    increase : sequence of float
        Additive increase a_i [packets per RTT], > 0.
    rtt_s : sequence of float
        Round-trip times [s], > 0.

    Returns
    -------
    dict
        ``equal_loss``: shares when every flow sees the same loss rate (the rate of
        AIMD(a, b) from :func:`labcalc.tcp.aimd_rate_bps`, proportional to
        sqrt(a (1 + b) / (1 - b)) / RTT); ``synchronised``: shares when all flows lose
        at the same moments (average window a (1 + b) / (2 (1 - b)) T / RTT, rate
        proportional to a (1 + b) / ((1 - b) RTT^2)).

    Examples
    --------
    Seed 004, decrease to 1/2 against 5/6:

    >>> s = aimd_shares((0.5, 5 / 6))
    >>> [round(x, 3) for x in s["equal_loss"]], [round(x, 3) for x in s["synchronised"]]
    ([0.343, 0.657], [0.214, 0.786])
    """
    from labcalc import tcp

    b = np.asarray(decrease_to, dtype=float)
    a = np.asarray(increase, dtype=float)
    r = np.asarray(rtt_s, dtype=float)
    a, b, r = np.broadcast_arrays(a, b, r)
    if np.any((b <= 0) | (b >= 1)) or np.any(a <= 0) or np.any(r <= 0):
        raise ValueError("decrease_to must be in (0, 1), increase and rtt_s > 0")
    equal = np.array([tcp.aimd_rate_bps(1000, ri, 0.01, ai, bi) for ai, bi, ri in zip(a, b, r)])
    sync = a * (1 + b) / ((1 - b) * r * r)
    return {"equal_loss": (equal / equal.sum()).tolist(), "synchronised": (sync / sync.sum()).tolist()}


_POLICIES = ("AIMD", "AIAD", "MIMD", "MIAD")


def chiu_jain_values(policy="AIMD", x0=0.8, y0=0.1, capacity=1.0, increase=0.02, decrease_to=0.5,
                     decrease_by=0.02, factor=1.05, steps=300, increase_2=None, decrease_to_2=None):
    """Two flows with synchronous binary feedback (Chiu and Jain, 1989).

    Each step both flows learn whether x + y exceeded the capacity: if not they increase
    (additively by ``increase``, or multiplicatively by ``factor``), if so they decrease
    (multiplicatively to ``decrease_to``, or additively by ``decrease_by``). Flow 2 may
    use its own ``increase_2`` / ``decrease_to_2`` (seed 004's competing AIMD).

    Parameters
    ----------
    policy : {"AIMD", "AIAD", "MIMD", "MIAD"}, default "AIMD"
        Increase rule (additive or multiplicative) then decrease rule.
    x0, y0 : float, default 0.8 and 0.1
        Starting rates of the two flows [same unit as ``capacity``].
    capacity : float, default 1.0
        Capacity of the link [any rate unit], > 0.
    increase : float, default 0.02
        Additive increase per step [unit of ``capacity``].
    decrease_to : float, default 0.5
        Multiplicative decrease: rate multiplier on congestion [1].
    decrease_by : float, default 0.02
        Additive decrease per step [unit of ``capacity``].
    factor : float, default 1.05
        Multiplicative increase: rate multiplier per step [1].
    steps : int, default 300
        Number of feedback steps.
    increase_2, decrease_to_2 : float, optional
        Flow 2's own ``increase`` and ``decrease_to`` (by default flow 1's).

    Returns
    -------
    dict
        ``x``, ``y`` (trajectories), ``share_x`` / ``share_y`` (average shares over the
        second half), ``jain`` (Jain's index of those averages), ``utilisation``.

    Examples
    --------
    >>> v = chiu_jain_values("AIMD")
    >>> round(v["share_x"], 3), round(v["jain"], 4)
    (0.5, 1.0)
    >>> v = chiu_jain_values("AIAD")
    >>> round(v["share_x"], 2), round(v["jain"], 2)
    (0.85, 0.67)
    """
    if policy not in _POLICIES:
        raise ValueError(f"policy must be one of {', '.join(_POLICIES)}; got {policy!r}")
    cap = _check("capacity", capacity)
    a1 = float(increase)
    a2 = a1 if increase_2 is None else float(increase_2)
    b1 = float(decrease_to)
    b2 = b1 if decrease_to_2 is None else float(decrease_to_2)
    n = int(steps)
    xs, ys = np.empty(n + 1), np.empty(n + 1)
    x, y = float(x0), float(y0)
    xs[0], ys[0] = x, y
    for k in range(1, n + 1):
        if x + y <= cap:
            if policy in ("AIMD", "AIAD"):
                x, y = x + a1, y + a2
            else:
                x, y = x * factor, y * factor
        elif policy in ("AIMD", "MIMD"):
            x, y = x * b1, y * b2
        else:
            x, y = max(x - decrease_by, 0.0), max(y - decrease_by, 0.0)
        xs[k], ys[k] = x, y
    half = slice(n // 2, None)
    mx, my = float(xs[half].mean()), float(ys[half].mean())
    jain = (mx + my) ** 2 / (2 * (mx * mx + my * my)) if mx + my > 0 else float("nan")
    return {"policy": policy, "x": xs, "y": ys, "capacity": cap, "share_x": mx / (mx + my),
            "share_y": my / (mx + my), "jain": jain, "utilisation": (mx + my) / cap}


def chiu_jain_readout(values) -> str:
    """The Chiu-Jain explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`chiu_jain_values`.

    Returns
    -------
    str
        The text shown under the controls, shares and utilisation in [%].

    Examples
    --------
    >>> print(chiu_jain_readout(chiu_jain_values("AIAD")))  # doctest: +NORMALIZE_WHITESPACE
    policy               AIAD
    shares x / y         85.0 % / 15.0 %
    Jain's index         0.6711
    average utilisation  100.0 %
    """
    v = values
    rows = [("policy", v["policy"]),
            ("shares x / y", f"{100 * v['share_x']:.1f} % / {100 * v['share_y']:.1f} %"),
            ("Jain's index", f"{v['jain']:.4f}"),
            ("average utilisation", f"{100 * v['utilisation']:.1f} %")]
    width = max(len(a) for a, _ in rows)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in rows)


def _draw_chiu_jain(ax, v, settings):
    from labcalc import plots_measure

    plots_measure.phase_plane(v, ax=ax)


def chiu_jain_explorer(policy="AIMD"):
    """Policy, starting point and decrease factors -> the two-flow trajectory.

    Parameters
    ----------
    policy : {"AIMD", "AIAD", "MIMD", "MIAD"}, default "AIMD"
        Initial policy.

    Returns
    -------
    labcalc.widgets.Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`chiu_jain_values` for the current settings.

    Examples
    --------
    >>> ex = chiu_jain_explorer()
    >>> ex.set(decrease_to_2=5 / 6)
    >>> round(ex.values["share_y"], 2)
    0.79
    """
    W, widgets = _widgets()
    controls = {
        "policy": _dropdown(W, list(_POLICIES), policy, "policy"),
        "x0": _slider(W, "float", 0.8, 0.0, 1.0, 0.05, "start: flow x", ".2f"),
        "y0": _slider(W, "float", 0.1, 0.0, 1.0, 0.05, "start: flow y", ".2f"),
        "decrease_to": _slider(W, "float", 0.5, 0.1, 0.95, 0.05, "x: decrease to", ".2f"),
        "decrease_to_2": _slider(W, "float", 0.5, 0.1, 0.95, 0.05, "y: decrease to", ".2f"),
    }
    return widgets.Explorer(controls, chiu_jain_values, chiu_jain_readout, _draw_chiu_jain,
                            figsize=(5.6, 4.4), title="Two flows, one link: where do AIMD, AIAD, MIMD lead?")
