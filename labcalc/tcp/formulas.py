"""Loss-throughput formulas: Mathis, AIMD(a, b), PFTK (fast retransmit and timeouts).

Part of :mod:`labcalc.tcp`, which re-exports every public name.

Examples
--------
>>> round(mathis_rate_bps(2896, 0.060, 0.22) / 1e3)
1004
"""

from __future__ import annotations

import numpy as np

from labcalc.tcp._checks import as_float, broadcast_shape, first_bad, check_loss, open_unit, as_result, check_positive
from labcalc.tcp.constants import RENO_CONSTANT, RENO_DELAYED_ACK_CONSTANT  # noqa: F401 (the doctests use them)


__all__ = [
    "mathis_rate_bps",
    "aimd_rate_bps",
    "pftk_rate_pps",
]


# --------------------------------------------------------------------------------------
# loss-throughput formulas
# --------------------------------------------------------------------------------------


def mathis_rate_bps(segment_bytes, rtt_s, loss, c=1.22):
    """Rate of a long-lived Reno connection from its loss rate (Mathis et al.) [bit/s].

    Parameters
    ----------
    segment_bytes : float or array_like
        Segment size L [byte], > 0; the MSS, or what a capture shows with segmentation
        offload (the handout uses 2896 = 2 x 1448).
    rtt_s : float or array_like
        Round-trip time [s], > 0.
    loss : float or array_like
        Loss (or ECN mark) probability per segment [1], in (0, 1].
    c : float, default 1.22
        Constant of the model [1], > 0: sqrt(3/2) = 1.2247 with every segment
        acknowledged (:data:`RENO_CONSTANT`), sqrt(3/4) = 0.866 with delayed ACKs
        (:data:`RENO_DELAYED_ACK_CONSTANT`). The handout rounds the first to 1.22.

    Returns
    -------
    float or numpy.ndarray
        Rate [bit/s], counted in bytes of ``segment_bytes`` (a goodput if L is the
        payload).

    Raises
    ------
    ValueError
        If ``segment_bytes``, ``rtt_s`` or ``c`` is not > 0, or ``loss`` is outside (0, 1].

    Notes
    -----
    .. math::

        R = \\frac{c \\cdot 8 L}{RTT \\sqrt{p}}

    The model assumes congestion avoidance only: a window sawtooth between W/2 and W
    with one loss per cycle, no timeouts, no receiver-window limit. Each cycle carries
    1/p segments in W/2 round trips, whence the average window sqrt(3/(2 b p)) with b
    segments acknowledged per ACK: c = sqrt(3/2) for b = 1 and sqrt(3/4) for b = 2.
    At high loss TCP spends its time in timeouts and slow start and the formula
    overestimates the rate (handout Q20, scenario B3); see :func:`pftk_rate_pps`.

    References
    ----------
    M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the TCP
    congestion avoidance algorithm", ACM SIGCOMM Computer Communication Review 27(3),
    July 1997. Lab handout Q19 (c = 1.22) and Q20.

    Examples
    --------
    Handout Q20, scenarios B2 and B3 (2896-byte segments):

    >>> round(mathis_rate_bps(2896, 0.060, 0.22) / 1e3)
    1004
    >>> round(mathis_rate_bps(2896, 0.054, 0.52) / 1e3)
    726

    Arrays broadcast:

    >>> [round(float(r) / 1e3) for r in mathis_rate_bps(1448, 0.1, [0.01, 0.04])]
    [1413, 707]
    """
    L = check_positive("segment_bytes", segment_bytes)
    rtt = check_positive("rtt_s", rtt_s)
    p = check_loss(loss)
    c = check_positive("c", c)
    broadcast_shape(segment_bytes=L, rtt_s=rtt, loss=p, c=c)
    return as_result(c * 8.0 * L / (rtt * np.sqrt(p)))


def aimd_rate_bps(segment_bytes, rtt_s, loss, increase=1.0, decrease_to=0.5):
    """Rate of an AIMD(a, b) source from its loss rate [bit/s].

    Parameters
    ----------
    segment_bytes : float or array_like
        Segment size L [byte], > 0.
    rtt_s : float or array_like
        Round-trip time [s], > 0.
    loss : float or array_like
        Loss probability per segment [1], in (0, 1].
    increase : float or array_like, default 1.0
        Additive increase a [segment per RTT], > 0.
    decrease_to : float or array_like, default 0.5
        Multiplicative factor b applied to the window on a loss [1], in (0, 1)
        (0.5 for Reno, 0.7 for CUBIC's own decrease).

    Returns
    -------
    float or numpy.ndarray
        Rate [bit/s].

    Raises
    ------
    ValueError
        For a size, RTT or increase that is not > 0, a loss outside (0, 1] or a
        ``decrease_to`` outside (0, 1).

    Notes
    -----
    With one loss every 1/p segments the window saws between b W and W, growing by a
    per round trip, so the average window and the rate are

    .. math::

        \\bar W = \\sqrt{\\frac{a (1 + b)}{2 (1 - b) p}},\\qquad
        R = \\frac{8 L}{RTT} \\bar W .

    Floyd, Handley and Padhye write the decrease as W -> (1 - b') W, i.e.
    b' = 1 - ``decrease_to``; their sqrt(a (2 - b') / (2 b' p)) is the same expression.
    For a = 1, b = 0.5 the square root is sqrt(3 / (2 p)): Mathis with c = sqrt(3/2).
    CUBIC's Reno-friendly region uses a = 3 (1 - b) / (1 + b), which gives the same
    average window as Reno for any b (RFC 9438 Section 4.3).

    References
    ----------
    S. Floyd, M. Handley, J. Padhye, "A comparison of equation-based and AIMD congestion
    control", ICIR technical report, May 2000 (the AIMD(a, b) response function);
    RFC 9438 Section 4.3, which quotes it as the average window AVG_AIMD(alpha, beta).

    Examples
    --------
    Reno is AIMD(1, 0.5):

    >>> r = aimd_rate_bps(1448, 0.1, 0.01)
    >>> round(r / mathis_rate_bps(1448, 0.1, 0.01, c=RENO_CONSTANT), 12)
    1.0

    CUBIC's Reno-friendly AIMD(0.529, 0.7) has the same average rate:

    >>> a = 3 * (1 - 0.7) / (1 + 0.7)
    >>> round(aimd_rate_bps(1448, 0.1, 0.01, a, 0.7) / r, 12)
    1.0
    """
    L = check_positive("segment_bytes", segment_bytes)
    rtt = check_positive("rtt_s", rtt_s)
    p = check_loss(loss)
    a = check_positive("increase", increase)
    b = open_unit("decrease_to", decrease_to)
    broadcast_shape(segment_bytes=L, rtt_s=rtt, loss=p, increase=a, decrease_to=b)
    window = np.sqrt(a * (1.0 + b) / (2.0 * (1.0 - b) * p))
    return as_result(8.0 * L / rtt * window)


def _one_minus_pow(q_log: np.ndarray, k) -> np.ndarray:
    """1 - q**k computed as -expm1(k log q), accurate when q is close to 1."""
    return -np.expm1(k * q_log)


def _pftk_qhat(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """PFTK probability that a loss in a window of w segments ends in a timeout."""
    interior = p < 1  # at p = 1 every term of the ratio is 1 (q = 0)
    p_safe = np.where(interior, p, 0.5)
    q_log = np.log1p(-p_safe)
    w_safe = np.maximum(w, 3.0)  # for w <= 3 the ratio is >= 1, so Q = 1
    num = _one_minus_pow(q_log, 3) * (1.0 + np.exp(3 * q_log) * _one_minus_pow(q_log, w_safe - 3))
    den = _one_minus_pow(q_log, w_safe)
    ratio = np.minimum(1.0, num / den)
    return np.where(interior & (w > 3), ratio, 1.0)


def pftk_rate_pps(rtt_s, loss, rto_s, b=2, wmax=None, approx=False):
    """Rate of a Reno connection with fast retransmit and timeouts (PFTK) [packet/s].

    Parameters
    ----------
    rtt_s : float or array_like
        Round-trip time [s], > 0.
    loss : float or array_like
        Loss probability p [1], in (0, 1]; in the model a loss also takes the rest of
        its round (correlated losses within a round).
    rto_s : float or array_like
        Base retransmission timeout T0 [s], > 0 (doubled on consecutive timeouts).
    b : float, default 2
        Segments acknowledged per ACK [segment], >= 1 (2 with delayed ACKs).
    wmax : float or array_like, optional
        Largest window the receiver allows [segment], > 0. None: no limit.
    approx : bool, default False
        False: the full model. True: the closed-form approximation.

    Returns
    -------
    float or numpy.ndarray
        Rate [packet/s]; multiply by 8 x segment size for bit/s.

    Raises
    ------
    ValueError
        For an RTT, timeout or ``wmax`` that is not > 0, a loss outside (0, 1] or
        ``b`` < 1.

    Notes
    -----
    Full model (Padhye et al., with the window limit). With q = 1 - p,

    .. math::

        E[W_u] = \\frac{2+b}{3b} + \\sqrt{\\frac{8(1-p)}{3bp}
                 + \\left(\\frac{2+b}{3b}\\right)^2}

        \\hat Q(w) = \\min\\left(1, \\frac{(1-q^3)(1 + q^3 (1 - q^{w-3}))}{1 - q^w}\\right)

        f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6

    and, if :math:`E[W_u] < W_{max}`,

    .. math::

        B = \\frac{\\frac{1-p}{p} + E[W_u] + \\frac{\\hat Q(E[W_u])}{1-p}}
                  {RTT\\,(\\frac{b}{2} E[W_u] + 1)
                   + \\hat Q(E[W_u])\\, T_0 \\frac{f(p)}{1-p}}

    otherwise

    .. math::

        B = \\frac{\\frac{1-p}{p} + W_{max} + \\frac{\\hat Q(W_{max})}{1-p}}
                  {RTT\\,(\\frac{b}{8} W_{max} + \\frac{1-p}{p W_{max}} + 2)
                   + \\hat Q(W_{max})\\, T_0 \\frac{f(p)}{1-p}} .

    The numerator and denominator are evaluated multiplied by (1 - p), which is exact
    and keeps p = 1 finite (the limit is 1 / (T0 f(1)) = 1 / (64 T0)).
    :math:`\\hat Q(w) = 1` for w <= 3 (too few segments for three duplicate ACKs).
    The two branches do not meet exactly where E[W_u] = W_max: with b = 1 the full
    model jumps up by up to about 2 % as p crosses that point (b = 2 hardly shows it).
    With a timeout much shorter than the RTT the full model is not monotone in p near
    p = 1 (timeouts cost nothing); real timeouts are at least one RTT.

    Approximation:

    .. math::

        B \\approx \\min\\left(\\frac{W_{max}}{RTT},
        \\frac{1}{RTT\\sqrt{\\frac{2bp}{3}}
        + T_0 \\min\\left(1, 3\\sqrt{\\frac{3bp}{8}}\\right) p (1 + 32 p^2)}\\right).

    Both tend to :math:`\\sqrt{3/(2bp)}/RTT` (Mathis with c = sqrt(3/(2b))) as p -> 0.

    f(p) T0 / (1 - p) is the expected duration of a sequence of timeouts: the k-th
    consecutive timeout lasts 2^(k-1) T0, doubling up to 64 T0 and staying there, and a
    sequence continues with probability p. Summing gives the coefficients
    1, 1, 2, 4, 8, 16, 32 above, which are the paper's. Some restatements print
    16p^4 + 32p^5 + 64p^6 for the last three terms; the difference is below 1e-7
    (relative) at p = 0.01 but not negligible at high loss.

    References
    ----------
    J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a simple
    model and its empirical validation", Proc. ACM SIGCOMM '98, 1998 (the full
    model with window limitation, and its approximation).

    Examples
    --------
    RTT 100 ms, T0 = 1 s, delayed ACKs, 1 % loss:

    >>> round(pftk_rate_pps(0.1, 0.01, 1.0), 2)
    69.52
    >>> round(pftk_rate_pps(0.1, 0.01, 1.0, approx=True), 2)
    70.65

    In bit/s for 1448-byte segments:

    >>> round(pftk_rate_pps(0.1, 0.01, 1.0) * 8 * 1448 / 1e3)
    805

    A receiver window of 8 segments caps the rate near 8 / RTT:

    >>> round(pftk_rate_pps(0.1, 1e-4, 1.0, wmax=8), 2)
    79.57
    """
    rtt = check_positive("rtt_s", rtt_s)
    p = check_loss(loss)
    t0 = check_positive("rto_s", rto_s)
    b_arr = as_float("b", b)
    if (b_arr < 1).any():
        raise ValueError(f"b must be >= 1 segment per ACK; got {first_bad(b_arr, b_arr < 1)!r}")
    w_lim = None if wmax is None else check_positive("wmax", wmax)
    shapes = dict(rtt_s=rtt, loss=p, rto_s=t0, b=b_arr)
    if w_lim is not None:
        shapes["wmax"] = w_lim
    broadcast_shape(**shapes)

    if approx:
        denom = rtt * np.sqrt(2.0 * b_arr * p / 3.0) + t0 * np.minimum(
            1.0, 3.0 * np.sqrt(3.0 * b_arr * p / 8.0)
        ) * p * (1.0 + 32.0 * p**2)
        rate = 1.0 / denom
        if w_lim is not None:
            rate = np.minimum(w_lim / rtt, rate)
        return as_result(rate)

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        rate = _pftk_full(rtt, p, t0, b_arr, w_lim)
    bad = ~np.isfinite(rate)
    if bad.any():
        raise ValueError(
            f"loss={first_bad(np.broadcast_to(p, rate.shape), bad)!r} is too small for the "
            "full PFTK model in floating point"
        )
    return as_result(rate)


def _pftk_full(rtt, p, t0, b_arr, w_lim):
    """Full PFTK model with numerator and denominator multiplied by (1 - p)."""
    q = 1.0 - p
    f = 1.0 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    k = (2.0 + b_arr) / (3.0 * b_arr)
    w_u = k + np.sqrt(8.0 * q / (3.0 * b_arr * p) + k**2)

    qh_u = _pftk_qhat(p, w_u)
    num_u = q**2 / p + q * w_u + qh_u
    den_u = rtt * (b_arr / 2.0 * w_u + 1.0) * q + qh_u * t0 * f
    rate = num_u / den_u
    if w_lim is not None:
        qh_m = _pftk_qhat(p, w_lim)
        num_m = q**2 / p + q * w_lim + qh_m
        den_m = rtt * (b_arr / 8.0 * w_lim + q / (p * w_lim) + 2.0) * q + qh_m * t0 * f
        rate = np.where(w_u < w_lim, rate, num_m / den_m)
    return np.asarray(rate, dtype=float)
