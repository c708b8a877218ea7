"""Bandwidth-delay product, window-limited rate, slow start rounds.

Part of :mod:`labcalc.tcp`, which re-exports every public name.

Examples
--------
>>> bdp_bytes(5e6, 0.1)
62500.0
"""

from __future__ import annotations

import numpy as np

from labcalc.tcp._checks import as_float, broadcast_shape, first_bad, nonnegative, as_result, check_positive


__all__ = [
    "bdp_bytes",
    "window_limited_rate_bps",
    "slow_start_rounds",
    "slow_start_time_s",
]


# --------------------------------------------------------------------------------------
# bandwidth-delay product, slow start
# --------------------------------------------------------------------------------------


def bdp_bytes(rate_bps, rtt_s):
    """Bandwidth-delay product: the data in flight that fills a path [byte].

    Parameters
    ----------
    rate_bps : float or array_like
        Bottleneck rate [bit/s], > 0.
    rtt_s : float or array_like
        Round-trip time [s], > 0 (the base RTT, without queueing, for the minimum
        window that keeps the link busy).

    Returns
    -------
    float or numpy.ndarray
        BDP [byte].

    Raises
    ------
    ValueError
        For a rate or RTT that is not > 0.

    Notes
    -----
    .. math::

        BDP = \\frac{R \\cdot RTT}{8}

    A window below the BDP leaves the link idle part of each round trip
    (:func:`window_limited_rate_bps`); anything above it waits in the bottleneck queue.

    References
    ----------
    RFC 7323 Section 1.1 (the bandwidth-delay product and large windows).

    Examples
    --------
    The handout's bottleneck (5 Mbit/s) with RTT 300 ms:

    >>> bdp_bytes(5e6, 0.3)
    187500.0
    """
    rate = check_positive("rate_bps", rate_bps)
    rtt = check_positive("rtt_s", rtt_s)
    broadcast_shape(rate_bps=rate, rtt_s=rtt)
    return as_result(rate * rtt / 8.0)


def window_limited_rate_bps(window_bytes, rtt_s):
    """Largest rate a window allows: one window per round trip [bit/s].

    Parameters
    ----------
    window_bytes : float or array_like
        Congestion or receiver window [byte], >= 0.
    rtt_s : float or array_like
        Round-trip time [s], > 0.

    Returns
    -------
    float or numpy.ndarray
        Rate [bit/s].

    Raises
    ------
    ValueError
        For a negative window or an RTT that is not > 0.

    Notes
    -----
    .. math::

        R = \\frac{8 W}{RTT}

    References
    ----------
    RFC 7323 Section 1.1; RFC 9293 Section 3.8.6 (the window).

    Examples
    --------
    A 64 KiB window (no window scaling) over 100 ms:

    >>> round(window_limited_rate_bps(65535, 0.1) / 1e6, 3)
    5.243
    """
    w = nonnegative("window_bytes", window_bytes)
    rtt = check_positive("rtt_s", rtt_s)
    broadcast_shape(window_bytes=w, rtt_s=rtt)
    return as_result(8.0 * w / rtt)


def slow_start_rounds(target_window_segments, initial_window_segments=10, growth=2.0):
    """Round trips of slow start needed to reach a window [1].

    Parameters
    ----------
    target_window_segments : float or array_like
        Window to reach [segment], > 0.
    initial_window_segments : float, default 10
        Initial window [segment], > 0 (10 per RFC 6928; 2 to 4 per RFC 3390).
    growth : float, default 2.0
        Window factor per round trip [1], > 1: 2 when every segment is acknowledged
        (or with appropriate byte counting), about 1.5 with delayed ACKs counted per ACK.

    Returns
    -------
    float or numpy.ndarray
        Smallest whole n >= 0 with IW x growth^n >= target (as a float, or array).

    Raises
    ------
    ValueError
        For a window that is not > 0 or ``growth`` <= 1.

    Notes
    -----
    .. math::

        n = \\max\\left(0, \\left\\lceil \\log_g \\frac{W}{IW} \\right\\rceil\\right)

    No loss and no receiver limit are assumed, and the window is what may be sent in
    the round, not what arrives.

    References
    ----------
    RFC 5681 Section 3.1 (slow start); RFC 6928 (initial window of 10 segments,
    min(10 MSS, max(2 MSS, 14600 bytes))).

    Examples
    --------
    >>> slow_start_rounds(10), slow_start_rounds(11), slow_start_rounds(80)
    (0.0, 1.0, 3.0)
    """
    target = check_positive("target_window_segments", target_window_segments)
    iw = check_positive("initial_window_segments", initial_window_segments)
    g = as_float("growth", growth)
    if (g <= 1).any():
        raise ValueError(f"growth must be > 1; got {first_bad(g, g <= 1)!r}")
    broadcast_shape(target_window_segments=target, initial_window_segments=iw, growth=g)
    ratio = target / iw
    n = np.maximum(0.0, np.ceil(np.log(ratio) / np.log(g)))
    # guard against log rounding: step down while one round fewer already suffices
    n = np.where((n > 0) & (iw * g ** (n - 1) >= target * (1 - 1e-12)), n - 1, n)
    n = np.where(iw * g**n < target * (1 - 1e-12), n + 1, n)
    return as_result(n)


def slow_start_time_s(target_window_segments, rtt_s, initial_window_segments=10, growth=2.0):
    """Time slow start needs to reach a window: rounds x RTT [s].

    Parameters
    ----------
    target_window_segments : float or array_like
        Window to reach [segment], > 0.
    rtt_s : float or array_like
        Round-trip time [s], > 0.
    initial_window_segments : float, default 10
        Initial window [segment], > 0.
    growth : float, default 2.0
        Window factor per round trip [1], > 1.

    Returns
    -------
    float or numpy.ndarray
        Time [s].

    Raises
    ------
    ValueError
        As :func:`slow_start_rounds`, and for an RTT that is not > 0.

    Notes
    -----
    .. math::

        T = RTT \\cdot n,\\qquad n = \\text{slow\\_start\\_rounds}(W, IW, g)

    It ignores the handshake and the queueing the growing window itself causes.

    References
    ----------
    RFC 5681 Section 3.1; RFC 6928.

    Examples
    --------
    Filling the BDP of 5 Mbit/s x 300 ms (about 130 segments of 1448 bytes) from IW10:

    >>> n = bdp_bytes(5e6, 0.3) / 1448
    >>> round(slow_start_time_s(n, 0.3), 3)
    1.2
    """
    rounds = slow_start_rounds(target_window_segments, initial_window_segments, growth)
    rtt = check_positive("rtt_s", rtt_s)
    broadcast_shape(rounds=np.asarray(rounds), rtt_s=rtt)
    return as_result(np.asarray(rounds) * rtt)
