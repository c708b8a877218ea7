"""CUBIC (RFC 9438): K, the window curves and the response function.

Part of :mod:`labcalc.tcp`, which re-exports every public name.

Examples
--------
>>> round(cubic_k(100), 3)
4.217
"""

from __future__ import annotations

import numpy as np

from labcalc.tcp._checks import broadcast_shape, check_loss, nonnegative, open_unit, as_result, check_positive
from labcalc.tcp.constants import CUBIC_BETA


__all__ = [
    "cubic_k",
    "cubic_window",
    "cubic_reno_friendly_window",
    "cubic_average_window",
    "cubic_rate_bps",
]


# --------------------------------------------------------------------------------------
# CUBIC (RFC 9438)
# --------------------------------------------------------------------------------------


def cubic_k(w_max, beta=CUBIC_BETA, c=0.4):
    """Time CUBIC takes to grow back to W_max after a reduction [s].

    Parameters
    ----------
    w_max : float or array_like
        Window just before the last reduction [segment], > 0.
    beta : float, default 0.7
        Multiplicative decrease factor beta_cubic [1], in (0, 1).
    c : float, default 0.4
        Aggressiveness constant C [segment / s^3], > 0.

    Returns
    -------
    float or numpy.ndarray
        K [s].

    Raises
    ------
    ValueError
        For ``w_max`` or ``c`` not > 0, or ``beta`` outside (0, 1).

    Notes
    -----
    The window restarts at cwnd_epoch = beta W_max, so

    .. math::

        K = \\sqrt[3]{\\frac{W_{max} - cwnd_{epoch}}{C}}
          = \\sqrt[3]{\\frac{W_{max} (1 - \\beta)}{C}} .

    References
    ----------
    RFC 9438, "CUBIC for Fast and Long-Distance Networks", Section 4.2 (equation 2).

    Examples
    --------
    >>> round(cubic_k(100), 3)
    4.217
    """
    w = check_positive("w_max", w_max)
    beta = open_unit("beta", beta)
    c = check_positive("c", c)
    broadcast_shape(w_max=w, beta=beta, c=c)
    return as_result(np.cbrt(w * (1.0 - beta) / c))


def cubic_window(t_s, w_max, beta=CUBIC_BETA, c=0.4):
    """CUBIC congestion window t seconds into congestion avoidance [segment].

    Parameters
    ----------
    t_s : float or array_like
        Time since the start of the congestion-avoidance epoch (the last reduction)
        [s], >= 0.
    w_max : float or array_like
        Window just before the last reduction [segment], > 0.
    beta : float, default 0.7
        Multiplicative decrease factor [1], in (0, 1).
    c : float, default 0.4
        Aggressiveness constant C [segment / s^3], > 0.

    Returns
    -------
    float or numpy.ndarray
        W_cubic(t) [segment].

    Raises
    ------
    ValueError
        For a negative time, ``w_max`` or ``c`` not > 0, or ``beta`` outside (0, 1).

    Notes
    -----
    .. math::

        W_{cubic}(t) = C (t - K)^3 + W_{max}

    concave (plateau at W_max) up to t = K, convex beyond. This is the curve only: the
    sender uses max(W_cubic, W_est) (see :func:`cubic_reno_friendly_window`) and clamps
    its per-RTT target between cwnd and 1.5 cwnd.

    References
    ----------
    RFC 9438 Section 4.2 (equation 1).

    Examples
    --------
    >>> [round(float(w), 2) for w in cubic_window([0, cubic_k(100), 6], 100)]
    [70.0, 100.0, 102.27]
    """
    t = nonnegative("t_s", t_s)
    w = check_positive("w_max", w_max)
    beta = open_unit("beta", beta)
    c = check_positive("c", c)
    broadcast_shape(t_s=t, w_max=w, beta=beta, c=c)
    k = np.cbrt(w * (1.0 - beta) / c)
    return as_result(c * (t - k) ** 3 + w)


def cubic_reno_friendly_window(t_s, rtt_s, w_max, beta=CUBIC_BETA, reno_slope_after_w_max=True):
    """CUBIC's estimate of the window Reno would have, W_est(t) [segment].

    Parameters
    ----------
    t_s : float or array_like
        Time since the start of the congestion-avoidance epoch [s], >= 0.
    rtt_s : float or array_like
        Round-trip time [s], > 0.
    w_max : float or array_like
        Window just before the last reduction [segment], > 0; also taken as
        cwnd_prior, the window when ssthresh was last set (no fast convergence).
    beta : float, default 0.7
        Multiplicative decrease factor [1], in (0, 1).
    reno_slope_after_w_max : bool, default True
        RFC 9438: once W_est reaches cwnd_prior the increase becomes 1 segment per RTT
        (Reno's). False: keep alpha_cubic forever, as RFC 8312 did.

    Returns
    -------
    float or numpy.ndarray
        W_est(t) [segment].

    Raises
    ------
    ValueError
        For a negative time, an RTT or ``w_max`` not > 0, or ``beta`` outside (0, 1).

    Notes
    -----
    W_est starts at cwnd_epoch = beta W_max and grows by alpha_cubic segments per RTT
    (RFC 9438 updates it per ACK by alpha_cubic x segments_acked / cwnd, which is
    alpha_cubic per round trip):

    .. math::

        \\alpha_{cubic} = \\frac{3 (1 - \\beta)}{1 + \\beta},\\qquad
        W_{est}(t) = \\beta W_{max} + \\alpha_{cubic} \\frac{t}{RTT}

    until W_est = W_max, at t_1 = RTT W_max (1 + beta) / 3; after that,
    W_est(t) = W_max + (t - t_1) / RTT. AIMD(alpha_cubic, beta) has Reno's average
    window (see :func:`aimd_rate_bps`). CUBIC is in its Reno-friendly region while
    W_cubic(t) < W_est(t).

    References
    ----------
    RFC 9438 Section 4.3 (equations 3 and 4, and the switch to alpha = 1); RFC 8312
    Section 4.2 (the closed form in t, without the switch).

    Examples
    --------
    >>> round(cubic_reno_friendly_window(0, 0.1, 100), 2)
    70.0
    >>> round(cubic_reno_friendly_window(1.0, 0.1, 100), 2)
    75.29
    >>> round(cubic_reno_friendly_window(7.0, 0.1, 100), 2)
    113.33
    """
    t = nonnegative("t_s", t_s)
    rtt = check_positive("rtt_s", rtt_s)
    w = check_positive("w_max", w_max)
    beta = open_unit("beta", beta)
    broadcast_shape(t_s=t, rtt_s=rtt, w_max=w, beta=beta)
    alpha = 3.0 * (1.0 - beta) / (1.0 + beta)
    w_est = beta * w + alpha * t / rtt
    if reno_slope_after_w_max:
        t1 = rtt * w * (1.0 - beta) / alpha
        w_est = np.where(t <= t1, w_est, w + (t - t1) / rtt)
    return as_result(w_est)


def cubic_average_window(rtt_s, loss, beta=CUBIC_BETA, c=0.4, reno_floor=True, reno_constant=1.2):
    """Average CUBIC window under periodic loss (RFC 9438 Section 5) [segment].

    Parameters
    ----------
    rtt_s : float or array_like
        Round-trip time [s], > 0.
    loss : float or array_like
        Loss probability [1], in (0, 1].
    beta : float, default 0.7
        Multiplicative decrease factor [1], in (0, 1).
    c : float, default 0.4
        Aggressiveness constant C [segment / s^3], > 0.
    reno_floor : bool, default True
        Take the larger of the cubic-curve average and Reno's average window, as the
        Reno-friendly region does (and as the RFC's tables do).
    reno_constant : float, default 1.2
        Constant of Reno's average window reno_constant / sqrt(p) [1], > 0. 1.2 is the
        value behind the RFC tables (taken from RFC 3649); sqrt(3/2) = 1.2247 is the
        exact AIMD(1, 0.5) value (:data:`RENO_CONSTANT`).

    Returns
    -------
    float or numpy.ndarray
        Average window [segment].

    Raises
    ------
    ValueError
        For an RTT, ``c`` or ``reno_constant`` not > 0, a loss outside (0, 1] or
        ``beta`` outside (0, 1).

    Notes
    -----
    With a deterministic loss every 1/p packets CUBIC stays on the concave part of its
    curve, and its average window is

    .. math::

        \\bar W_{cubic} = \\sqrt[4]{\\frac{C (3 + \\beta)}{4 (1 - \\beta)}}
                          \\frac{RTT^{3/4}}{p^{3/4}}

    (1.054 RTT^0.75 / p^0.75 for C = 0.4, beta = 0.7). With the floor the result is
    max(that, 1.2 / sqrt(p)). Unlike Reno's, the cubic average grows with the RTT, so
    the rate W L / RTT falls only as RTT^(-1/4): CUBIC's weaker RTT bias.

    References
    ----------
    RFC 9438 Section 5 (average window, equations 6-8) and Section 5.1 (Tables 1 and 2:
    average windows for p = 1e-2 ... 1e-8 at RTT 0.1 s and 0.01 s); RFC 8312
    Sections 5.1-5.2 (the same analysis); RFC 3649 (Reno's 1.2 / sqrt(p)).

    Examples
    --------
    RFC 9438 Table 1 (RTT 0.1 s, C = 0.4), rounded to a segment:

    >>> [round(float(w)) for w in cubic_average_window(0.1, [1e-2, 1e-4, 1e-6, 1e-8])]
    [12, 187, 5926, 187400]
    """
    rtt = check_positive("rtt_s", rtt_s)
    p = check_loss(loss)
    beta = open_unit("beta", beta)
    c = check_positive("c", c)
    k = check_positive("reno_constant", reno_constant)
    broadcast_shape(rtt_s=rtt, loss=p, beta=beta, c=c, reno_constant=k)
    w = (c * (3.0 + beta) / (4.0 * (1.0 - beta))) ** 0.25 * (rtt / p) ** 0.75
    if reno_floor:
        w = np.maximum(w, k / np.sqrt(p))
    return as_result(w)


def cubic_rate_bps(segment_bytes, rtt_s, loss, beta=CUBIC_BETA, c=0.4, reno_floor=True,
                   reno_constant=1.2):
    """Average rate of a CUBIC connection under periodic loss [bit/s].

    Parameters
    ----------
    segment_bytes : float or array_like
        Segment size L [byte], > 0.
    rtt_s, loss, beta, c, reno_floor, reno_constant
        As in :func:`cubic_average_window`.

    Returns
    -------
    float or numpy.ndarray
        Rate [bit/s].

    Raises
    ------
    ValueError
        As :func:`cubic_average_window`, and for ``segment_bytes`` not > 0.

    Notes
    -----
    .. math::

        R = \\bar W \\, \\frac{8 L}{RTT}

    References
    ----------
    RFC 9438 Sections 5 and 5.2 (Table 3 converts windows to rates with 1500-byte
    packets and RTT 0.1 s).

    Examples
    --------
    RFC 9438 Table 3: a loss rate of 2.9e-8 gives CUBIC about 10 Gbit/s (1500-byte
    packets, RTT 0.1 s):

    >>> round(cubic_rate_bps(1500, 0.1, 2.9e-8) / 1e9)
    10
    """
    L = check_positive("segment_bytes", segment_bytes)
    w = cubic_average_window(rtt_s, loss, beta, c, reno_floor, reno_constant)
    rtt = check_positive("rtt_s", rtt_s)
    broadcast_shape(segment_bytes=L, window=w)
    return as_result(np.asarray(w) * 8.0 * L / rtt)
