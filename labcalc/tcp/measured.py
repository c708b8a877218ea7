"""From a measured rate back to a loss rate; a test of finite length, round by round.

Part of :mod:`labcalc.tcp`, which re-exports every public name.

Examples
--------
>>> link_packet_bytes(1448)
1514.0
"""

from __future__ import annotations

import math

from labcalc.tcp._checks import check_scalar
from labcalc.tcp.constants import CUBIC_BETA, RENO_BETA, RENO_CONSTANT, SHAPER_HEADER_BYTES


__all__ = [
    "link_packet_bytes",
    "implied_loss",
    "round_model_rate",
]


# --------------------------------------------------------------------------------------
# from a measured rate back to a loss rate; a test of finite length, round by round
# --------------------------------------------------------------------------------------


def link_packet_bytes(mss_bytes=1448, header_bytes=SHAPER_HEADER_BYTES) -> float:
    """Bytes one full-size TCP packet costs the bottleneck [byte].

    Parameters
    ----------
    mss_bytes : float, default 1448
        Segment size [byte], > 0.
    header_bytes : float, default 66
        Bytes the link counts beyond the payload [byte], >= 0
        (:data:`SHAPER_HEADER_BYTES`: IP 20, TCP 20 + 12 of timestamps, Ethernet 14).

    Returns
    -------
    float
        ``mss_bytes + header_bytes`` [byte].

    Raises
    ------
    ValueError
        For an MSS that is not > 0 or a negative header size.

    Notes
    -----
    The size a Linux shaper (``tc``) charges for a segment: S + H, with H = 66 for IPv4
    TCP with timestamps.

    References
    ----------
    RFC 791 (IPv4 header), RFC 9293 (TCP header), RFC 7323 (timestamps option),
    IEEE 802.3 (Ethernet header).

    Examples
    --------
    >>> link_packet_bytes(1448), link_packet_bytes(340, 62)
    (1514.0, 402.0)
    """
    return float(check_scalar("mss_bytes", mss_bytes) + check_scalar("header_bytes", header_bytes, strict=False))


def implied_loss(rate_bps, rtt_s, mss_bytes=1448, model="reno", beta=CUBIC_BETA, c=0.4):
    """The loss rate at which a response function gives a measured rate [fraction].

    Parameters
    ----------
    rate_bps : float
        Measured rate [bit/s], > 0.
    rtt_s : float
        RTT [s], > 0.
    mss_bytes : float, default 1448
        Segment size L [byte], > 0.
    model : {"reno", "cubic"}
        ``"reno"``: Mathis with c = sqrt(3/2). ``"cubic"``: the RFC 9438 average window
        solved for p (its cubic region; if that p puts CUBIC in its Reno-friendly region,
        the Reno-friendly value is used).
    beta : float, default 0.7
        CUBIC's window multiplier on a loss [1] (``model="cubic"`` only).
    c : float, default 0.4
        CUBIC's C [packets / s^3] (``model="cubic"`` only).

    Returns
    -------
    float
        Loss rate p [1], at most 1.

    Raises
    ------
    ValueError
        For a rate, RTT or MSS that is not > 0, or an unknown model.

    Notes
    -----
    With W = R RTT / (8 L) the measured window [segments]:
    Reno p = (sqrt(3/2) / W)^2; CUBIC p = RTT (k / W)^(4/3) with
    k = (C (3 + beta) / (4 (1 - beta)))^(1/4), or p = (1.2 / W)^2 when 1.2 / sqrt(p) > W
    (the Reno-friendly region). The inverses of :func:`mathis_rate_bps` and
    :func:`cubic_rate_bps`.

    References
    ----------
    Mathis et al., CCR 27(3), 1997; RFC 9438 Section 5.

    Examples
    --------
    Seed 003's long lossy link (RTT 420 ms): 5.76 Mbit/s with Reno, 40.3 with CUBIC.

    >>> f"{implied_loss(5.76e6, 0.42):.2e}", f"{implied_loss(40.3e6, 0.42, model='cubic'):.2e}"
    ('3.44e-05', '2.72e-05')
    """
    rate = check_scalar("rate_bps", rate_bps)
    rtt = check_scalar("rtt_s", rtt_s)
    mss = check_scalar("mss_bytes", mss_bytes)
    w = rate * rtt / (8.0 * mss)
    if model == "reno":
        return float((RENO_CONSTANT / w) ** 2)
    if model != "cubic":
        raise ValueError(f"model must be 'reno' or 'cubic'; got {model!r}")
    k = (c * (3.0 + beta) / (4.0 * (1.0 - beta))) ** 0.25
    p = rtt * (k / w) ** (4.0 / 3.0)
    if 1.2 / math.sqrt(p) > w:  # Reno-friendly region
        p = (1.2 / w) ** 2
    return float(min(p, 1.0))


_ROUND_BETA = {"reno": RENO_BETA, "cubic": CUBIC_BETA}


def round_model_rate(duration_s, rate_bps, rtt_s, loss, mss_bytes=1448, algorithm="reno", iw_segments=10,
                     header_bytes=SHAPER_HEADER_BYTES, beta=None, c=0.4):
    """Average goodput of a test of finite length, round by round [bit/s].

    Slow start from ``iw_segments`` (doubling per round) until the first loss, then Reno
    (+1 per round, x beta on a loss) or CUBIC (the RFC 9438 curve in time, Reno-friendly
    floor, x beta on a loss). A loss happens every 1/p segments sent (deterministic); a
    round lasts max(RTT, W S 8 / rate), so a window larger than the pipe (no buffer) is
    capped at the link rate.

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

    Raises
    ------
    ValueError
        For a duration, rate, RTT, loss or MSS that is not > 0, or an unknown algorithm.

    Notes
    -----
    Round k carries W_k segments in max(RTT, 8 W_k (S + H) / R) seconds; goodput =
    8 S sum_k W_k / T. Over a long test it tends to the response function
    (:func:`mathis_rate_bps`, :func:`cubic_rate_bps`); over a short one slow start
    weighs more and the rate is higher.

    References
    ----------
    RFC 5681 (slow start, congestion avoidance); RFC 9438 Section 4 (CUBIC window);
    Mathis et al., CCR 27(3), 1997.

    Examples
    --------
    >>> round(round_model_rate(60, 100e6, 0.42, 1e-3) / 1e6, 2)
    1.72
    >>> round(round_model_rate(5, 100e6, 0.42, 1e-3) / 1e6, 2)
    5.89
    """
    dur = check_scalar("duration_s", duration_s)
    rate = check_scalar("rate_bps", rate_bps)
    rtt = check_scalar("rtt_s", rtt_s)
    p = check_scalar("loss", loss)
    mss = check_scalar("mss_bytes", mss_bytes)
    if algorithm not in _ROUND_BETA:
        raise ValueError(f"algorithm must be 'reno' or 'cubic'; got {algorithm!r}")
    b = _ROUND_BETA[algorithm] if beta is None else float(beta)
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
