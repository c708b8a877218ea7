"""Time-domain models: the window sawtooth, slow-start rounds, AIMD shares, Chiu-Jain.

The loss-throughput formulas of :mod:`labcalc.tcp` give an average; the models here say
how a window moves in time, in base units (bit/s, s, byte; windows and queues in
packets), so that a student can follow them step by step:

:func:`sawtooth`
    one long-lived Reno or CUBIC flow on a drop-tail bottleneck, as a fluid model: the
    window grows until it exceeds the path's BDP plus the buffer, then shrinks by the
    decrease factor. Gives the window, queue and RTT over a cycle, the cycle length, the
    average RTT and rate, and the loss rate (one loss per cycle).
:func:`page_download`
    a short transfer (a web page) in slow-start rounds: each round lasts an RTT or the
    time its window takes at the available rate, whichever is longer.
:func:`aimd_shares`
    several AIMD(a, b) flows on one link: their shares with equal loss rates and with
    synchronised losses.
:func:`chiu_jain`
    two flows with synchronous binary feedback (AIMD, AIAD, MIMD, MIAD): the trajectory
    and where it settles.

The round-by-round average of a test of finite length is :func:`labcalc.tcp.round_model_rate`.

Examples
--------
>>> v = sawtooth(1.5e6, 0.03045, 100)
>>> round(v["w_max_packets"], 1), round(v["period_s"], 1)
(104.8, 33.2)
>>> round(page_download(178_000, rtt_s=0.0323, share_bps=1.5e6)["time_s"], 2)
1.06
"""

from __future__ import annotations

import math

import numpy as np

from labcalc import tcp
from labcalc.tcp import CUBIC_BETA, RENO_BETA, SHAPER_HEADER_BYTES, link_packet_bytes

__all__ = [
    "sawtooth",
    "page_download",
    "aimd_shares",
    "CHIU_JAIN_POLICIES",
    "chiu_jain",
]

_BETA = {"reno": RENO_BETA, "cubic": CUBIC_BETA}


def _check(name, value, low=0.0, strict=True):
    value = float(value)
    if not math.isfinite(value) or (value <= low if strict else value < low):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low:g}; got {value!r}")
    return value


# --------------------------------------------------------------------------------------
# one flow on a drop-tail bottleneck: the sawtooth
# --------------------------------------------------------------------------------------


def sawtooth(rate_bps, base_rtt_s, buffer_packets, mss_bytes=1448, algorithm="reno", beta=None, c=0.4,
             header_bytes=SHAPER_HEADER_BYTES, cycles=3, points=400):
    """Fluid model of one long-lived flow filling a drop-tail buffer, cycle after cycle.

    Parameters
    ----------
    rate_bps : float
        Bottleneck rate [bit/s], > 0.
    base_rtt_s : float
        RTT without queueing [s], > 0.
    buffer_packets : float
        Queue limit of the bottleneck [packets], >= 0.
    mss_bytes : float, default 1448
        Segment size [byte]; each packet costs ``mss + header_bytes`` on the link.
    algorithm : {"reno", "cubic"}, default "reno"
        Reno: +1 packet per RTT. CUBIC: the RFC 9438 curve C (t - K)^3 + W_max, never
        below its Reno-friendly estimate (alpha = 3 (1 - beta) / (1 + beta) per RTT).
    beta : float, optional
        Window multiplier on a loss [1] (0.5 for Reno, 0.7 for CUBIC by default).
    c : float, default 0.4
        CUBIC's C [packets / s^3].
    header_bytes : float, default 66
        Bytes per packet beyond the MSS that the link carries [byte] (66 for a Linux shaper).
    cycles : int, default 3
        Cycles in the returned time series.
    points : int, default 400
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

    >>> v = sawtooth(1.5e6, 0.03045, 100)
    >>> round(v["bdp_packets"], 2), round(v["w_min_packets"], 1), round(v["utilisation"], 3)
    (3.77, 52.4, 1.0)
    >>> round(v["avg_rtt_s"], 3), round(v["max_rtt_s"], 3)
    (0.658, 0.846)
    >>> c = sawtooth(1.5e6, 0.03045, 100, algorithm="cubic")
    >>> round(c["k_s"], 2), round(c["period_s"], 2)
    (4.28, 5.65)
    """
    if algorithm not in _BETA:
        raise ValueError(f"algorithm must be 'reno' or 'cubic'; got {algorithm!r}")
    rate = _check("rate_bps", rate_bps)
    rtt0 = _check("base_rtt_s", base_rtt_s)
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


# --------------------------------------------------------------------------------------
# a web page in slow-start rounds
# --------------------------------------------------------------------------------------


def page_download(page_bytes, rtt_s, share_bps, iw_segments=10, mss_bytes=1448,
                  header_bytes=SHAPER_HEADER_BYTES, handshake_rtts=2.0):
    """Time to download a page: handshake, then slow-start rounds at a given RTT.

    Parameters
    ----------
    page_bytes : float
        Size of the page [byte], > 0.
    rtt_s : float
        RTT the download sees [s], > 0 (behind a standing queue, the inflated RTT).
    share_bps : float
        Rate available to the download [bit/s], > 0 (the link, or its share of it).
    iw_segments : int, default 10
        Initial window [segments] (10 in Linux, RFC 6928).
    mss_bytes : float, default 1448
        Segment size [byte], > 0.
    header_bytes : float, default 66
        Per-packet overhead the link counts beyond the MSS [byte].
    handshake_rtts : float, default 2.0
        Round trips before the first data segment leaves the server and after the last
        one (2: SYN / SYN-ACK, then the request out and the last data back).

    Returns
    -------
    dict
        ``page_bytes``, ``rtt_s``, ``share_bps``, ``segments``, ``rounds`` (list of
        (segments, seconds)), ``time_s``, ``goodput_bps`` (page / time),
        ``window_limited_rounds`` (rounds that lasted an RTT, not their transmission time).

    Raises
    ------
    ValueError
        For a size, RTT, rate, initial window or MSS that is not > 0.

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
    >>> v = page_download(178_000, rtt_s=0.5822, share_bps=0.75e6)
    >>> [n for n, _ in v["rounds"]], round(v["time_s"], 2)
    ([10, 20, 40, 53], 3.83)
    """
    page = _check("page_bytes", page_bytes)
    rtt = _check("rtt_s", rtt_s)
    share = _check("share_bps", share_bps)
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


# --------------------------------------------------------------------------------------
# competing AIMD flows
# --------------------------------------------------------------------------------------


def aimd_shares(decrease_to=(0.5, 0.5), increase=(1.0, 1.0), rtt_s=(0.02, 0.02)):
    """Shares of AIMD flows on one bottleneck under two loss models [fraction].

    Parameters
    ----------
    decrease_to : sequence of float, default (0.5, 0.5)
        Window multiplier b_i on a loss [1], in (0, 1).
    increase : sequence of float, default (1.0, 1.0)
        Additive increase a_i [packets per RTT], > 0.
    rtt_s : sequence of float, default (0.02, 0.02)
        Round-trip times [s], > 0.

    Returns
    -------
    dict
        ``equal_loss``: shares when every flow sees the same loss rate;
        ``synchronised``: shares when all flows lose at the same moments. Lists of
        fractions that sum to 1.

    Raises
    ------
    ValueError
        For a decrease factor outside (0, 1), or an increase or RTT that is not > 0.

    Notes
    -----
    Equal loss rates: the rate of AIMD(a, b) (:func:`labcalc.tcp.aimd_rate_bps`) is
    proportional to sqrt(a (1 + b) / (1 - b)) / RTT. Synchronised losses: every flow's
    cycle lasts the same T, its average window is a (1 + b) / (2 (1 - b)) T / RTT, so its
    rate is proportional to a (1 + b) / ((1 - b) RTT^2).

    References
    ----------
    S. Floyd, M. Handley, J. Padhye, "A comparison of equation-based and AIMD congestion
    control", 2000; T. V. Lakshman, U. Madhow, IEEE/ACM ToN 5(3), 1997 (RTT bias under
    synchronised losses).

    Examples
    --------
    Seed 004, decrease to 1/2 against 5/6:

    >>> s = aimd_shares((0.5, 5 / 6))
    >>> [round(x, 3) for x in s["equal_loss"]], [round(x, 3) for x in s["synchronised"]]
    ([0.343, 0.657], [0.214, 0.786])
    """
    b = np.asarray(decrease_to, dtype=float)
    a = np.asarray(increase, dtype=float)
    r = np.asarray(rtt_s, dtype=float)
    a, b, r = np.broadcast_arrays(a, b, r)
    if np.any((b <= 0) | (b >= 1)) or np.any(a <= 0) or np.any(r <= 0):
        raise ValueError(f"decrease_to must be in (0, 1), increase and rtt_s > 0; got decrease_to "
                         f"{b.tolist()}, increase {a.tolist()}, rtt_s {r.tolist()}")
    equal = np.array([tcp.aimd_rate_bps(1000, ri, 0.01, ai, bi) for ai, bi, ri in zip(a, b, r)])
    sync = a * (1 + b) / ((1 - b) * r * r)
    return {"equal_loss": (equal / equal.sum()).tolist(), "synchronised": (sync / sync.sum()).tolist()}


#: The increase / decrease policies of :func:`chiu_jain` (increase rule, then decrease rule).
CHIU_JAIN_POLICIES = ("AIMD", "AIAD", "MIMD", "MIAD")


def chiu_jain(policy="AIMD", x0=0.8, y0=0.1, capacity=1.0, increase=0.02, decrease_to=0.5,
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
        ``policy``, ``capacity``, ``x``, ``y`` (trajectories), ``share_x`` / ``share_y``
        (average shares over the second half), ``jain`` (Jain's index of those
        averages), ``utilisation``.

    Raises
    ------
    ValueError
        For an unknown policy or a capacity that is not > 0.

    Notes
    -----
    Step k: if x_k + y_k <= C then x_{k+1} = x_k + a (additive) or f x_k
    (multiplicative), else x_{k+1} = b x_k (multiplicative) or max(x_k - d, 0)
    (additive); the same for y. Jain's index of the averages is
    (x + y)^2 / (2 (x^2 + y^2)).

    References
    ----------
    D.-M. Chiu, R. Jain, "Analysis of the increase and decrease algorithms for
    congestion avoidance in computer networks", Computer Networks and ISDN Systems
    17(1), 1989.

    Examples
    --------
    >>> v = chiu_jain("AIMD")
    >>> round(v["share_x"], 3), round(v["jain"], 4)
    (0.5, 1.0)
    >>> v = chiu_jain("AIAD")
    >>> round(v["share_x"], 2), round(v["jain"], 2)
    (0.85, 0.67)
    """
    if policy not in CHIU_JAIN_POLICIES:
        raise ValueError(f"policy must be one of {', '.join(CHIU_JAIN_POLICIES)}; got {policy!r}")
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
