"""TCP models: loss-throughput formulas, RTT bias, CUBIC, BDP and slow start.

What a long-lived TCP connection obtains, as a function of what it sees (segment size,
round-trip time, loss or mark probability), from the simplest model to the most detailed:

:func:`mathis_rate_bps`
    the square-root formula c L / (RTT sqrt(p)) of Mathis et al. (1997), the one the lab
    handout uses (c = 1.22, Q19-Q20).
:func:`aimd_rate_bps`
    the same argument for a general AIMD(a, b) source (Floyd, Handley, Padhye 2000);
    AIMD(1, 0.5) is Reno and gives Mathis with c = sqrt(3/2).
:func:`pftk_rate_pps`
    Padhye, Firoiu, Towsley, Kurose (1998): fast retransmit *and* timeouts, with an
    optional receiver-window limit; the full model and its closed-form approximation.
:func:`cubic_average_window`, :func:`cubic_rate_bps`
    the CUBIC response function of RFC 9438 Section 5 (with its Reno-friendly floor).

Around them: :func:`rtt_shares` (several hosts with different RTTs and numbers of
connections behind one bottleneck, Q31 and Q35), the CUBIC window curves
(:func:`cubic_k`, :func:`cubic_window`, :func:`cubic_reno_friendly_window`), the
bandwidth-delay product (:func:`bdp_bytes`, :func:`window_limited_rate_bps`) and slow
start (:func:`slow_start_rounds`, :func:`slow_start_time_s`).

Units follow the package convention: rates in bit/s, times in seconds, sizes in bytes,
windows in segments, loss as a fraction in (0, 1]. Every function accepts numpy arrays
and broadcasts them; with scalar inputs it returns a Python float.

Examples
--------
Handout Q20, scenario B2: a 2896-byte segment, RTT 60 ms, 22 % loss.

>>> round(mathis_rate_bps(2896, 0.060, 0.22) / 1e3)
1004
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from labcalc.framing import frame

__all__ = [
    "RENO_CONSTANT",
    "RENO_DELAYED_ACK_CONSTANT",
    "mathis_rate_bps",
    "aimd_rate_bps",
    "pftk_rate_pps",
    "rtt_shares",
    "cubic_k",
    "cubic_window",
    "cubic_reno_friendly_window",
    "cubic_average_window",
    "cubic_rate_bps",
    "bdp_bytes",
    "window_limited_rate_bps",
    "slow_start_rounds",
    "slow_start_time_s",
    "response_shares",
    "rtt_bias_exponent",
    "CUBIC_BETA",
    "RENO_BETA",
    "TCP_TIMESTAMPS_BYTES",
    "SHAPER_HEADER_BYTES",
    "link_packet_bytes",
    "implied_loss",
    "round_model_rate",
]

#: sqrt(3/2) ~ 1.2247: Mathis constant, periodic loss, every segment acknowledged [1].
RENO_CONSTANT = math.sqrt(3.0 / 2.0)
#: sqrt(3/4) ~ 0.866: Mathis constant with delayed ACKs (one ACK per 2 segments) [1].
RENO_DELAYED_ACK_CONSTANT = math.sqrt(3.0 / 4.0)
#: CUBIC's multiplicative decrease (RFC 9438, section 4.6): after a loss the window drops
#: to this share of its peak [1]; a queue kept full by CUBIC drains to about this share.
CUBIC_BETA = 0.7
#: Reno's multiplicative decrease (RFC 5681): the window halves on a loss [1].
RENO_BETA = 0.5
#: The TCP timestamps option as Linux sends it on every segment (RFC 7323) [byte].
TCP_TIMESTAMPS_BYTES = 12
#: Bytes a Linux shaper counts per TCP segment beyond its payload [byte]: Ethernet header
#: 14, IP 20, TCP 20 + 12 of timestamps = 66 (the ``"tc"`` accounting of
#: :mod:`labcalc.framing`).
SHAPER_HEADER_BYTES = frame(0, "tcp", tcp_options_bytes=TCP_TIMESTAMPS_BYTES).bytes("tc")


# --------------------------------------------------------------------------------------
# validation helpers (also used by labcalc.queueing)
# --------------------------------------------------------------------------------------


def _first_bad(arr: np.ndarray, bad: np.ndarray):
    """The first offending value of ``arr`` where ``bad`` is true, as a Python scalar."""
    value = np.broadcast_to(arr, bad.shape)[bad].flat[0]
    return value.item() if hasattr(value, "item") else value


def _as_float(name: str, value) -> np.ndarray:
    """``value`` as a float ndarray; finite, else ValueError naming ``name``."""
    if isinstance(value, (str, bytes)) or value is None:
        raise ValueError(f"{name} must be a number or an array of numbers; got {value!r}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a number or an array of numbers; got {value!r}"
        ) from None
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(f"{name} must be finite; got {_first_bad(arr, bad)!r}")
    return arr


def _positive(name: str, value) -> np.ndarray:
    arr = _as_float(name, value)
    bad = arr <= 0
    if bad.any():
        raise ValueError(f"{name} must be > 0; got {_first_bad(arr, bad)!r}")
    return arr


def _nonnegative(name: str, value) -> np.ndarray:
    arr = _as_float(name, value)
    bad = arr < 0
    if bad.any():
        raise ValueError(f"{name} must be >= 0; got {_first_bad(arr, bad)!r}")
    return arr


def _loss(value, name: str = "loss") -> np.ndarray:
    arr = _as_float(name, value)
    bad = (arr <= 0) | (arr > 1)
    if bad.any():
        raise ValueError(f"{name} must be in (0, 1]; got {_first_bad(arr, bad)!r}")
    return arr


def _open_unit(name: str, value) -> np.ndarray:
    arr = _as_float(name, value)
    bad = (arr <= 0) | (arr >= 1)
    if bad.any():
        raise ValueError(f"{name} must be in (0, 1); got {_first_bad(arr, bad)!r}")
    return arr


def _broadcast(**arrays: np.ndarray) -> tuple[int, ...]:
    """Common shape of the inputs, or ValueError naming them and their shapes."""
    try:
        return np.broadcast_shapes(*(np.shape(a) for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"input shapes do not broadcast together: {shapes}") from None


def _out(x):
    """A 0-d result as a Python float, anything else as an ndarray; never NaN."""
    x = np.asarray(x, dtype=float)
    if np.isnan(x).any():
        raise ValueError(
            "the result is undefined (NaN) for these inputs; they are outside the range "
            "the formula can evaluate in floating point"
        )
    return float(x) if x.ndim == 0 else x


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
    L = _positive("segment_bytes", segment_bytes)
    rtt = _positive("rtt_s", rtt_s)
    p = _loss(loss)
    c = _positive("c", c)
    _broadcast(segment_bytes=L, rtt_s=rtt, loss=p, c=c)
    return _out(c * 8.0 * L / (rtt * np.sqrt(p)))


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
    L = _positive("segment_bytes", segment_bytes)
    rtt = _positive("rtt_s", rtt_s)
    p = _loss(loss)
    a = _positive("increase", increase)
    b = _open_unit("decrease_to", decrease_to)
    _broadcast(segment_bytes=L, rtt_s=rtt, loss=p, increase=a, decrease_to=b)
    window = np.sqrt(a * (1.0 + b) / (2.0 * (1.0 - b) * p))
    return _out(8.0 * L / rtt * window)


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
    rtt = _positive("rtt_s", rtt_s)
    p = _loss(loss)
    t0 = _positive("rto_s", rto_s)
    b_arr = _as_float("b", b)
    if (b_arr < 1).any():
        raise ValueError(f"b must be >= 1 segment per ACK; got {_first_bad(b_arr, b_arr < 1)!r}")
    w_lim = None if wmax is None else _positive("wmax", wmax)
    shapes = dict(rtt_s=rtt, loss=p, rto_s=t0, b=b_arr)
    if w_lim is not None:
        shapes["wmax"] = w_lim
    _broadcast(**shapes)

    if approx:
        denom = rtt * np.sqrt(2.0 * b_arr * p / 3.0) + t0 * np.minimum(
            1.0, 3.0 * np.sqrt(3.0 * b_arr * p / 8.0)
        ) * p * (1.0 + 32.0 * p**2)
        rate = 1.0 / denom
        if w_lim is not None:
            rate = np.minimum(w_lim / rtt, rate)
        return _out(rate)

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        rate = _pftk_full(rtt, p, t0, b_arr, w_lim)
    bad = ~np.isfinite(rate)
    if bad.any():
        raise ValueError(
            f"loss={_first_bad(np.broadcast_to(p, rate.shape), bad)!r} is too small for the "
            "full PFTK model in floating point"
        )
    return _out(rate)


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


# --------------------------------------------------------------------------------------
# RTT-biased sharing
# --------------------------------------------------------------------------------------


def _is_keyed(x) -> bool:
    return isinstance(x, Mapping) or type(x).__name__ == "Series"


def rtt_shares(capacity_bps, rtts_s, connections=None):
    """Split one bottleneck among hosts in proportion to connections / RTT [bit/s].

    Parameters
    ----------
    capacity_bps : float
        What the bottleneck delivers to all the TCP connections together [bit/s], > 0.
        Pass the goodput capacity (rate x efficiency) to get goodputs, as handout Q35.
    rtts_s : array_like, dict or pandas.Series
        Round-trip time of each entry (host or flow) [s], > 0. A dict or Series keyed by
        name gives a Series keyed by the same names.
    connections : array_like, dict or pandas.Series, optional
        Number of TCP connections each entry opens [1], >= 0 (not all zero); one each
        by default. A dict/Series is matched to ``rtts_s`` by name.

    Returns
    -------
    numpy.ndarray or pandas.Series
        Aggregate rate of each entry [bit/s], summing to ``capacity_bps``.

    Raises
    ------
    ValueError
        For a capacity or RTT that is not > 0, a negative number of connections or all
        zero, lengths or names that do not match, or a keyed ``connections`` with
        unkeyed ``rtts_s``.

    Notes
    -----
    All connections cross the same bottleneck and see the same loss rate p, so by the
    loss-throughput formula each gets c L / (RTT sqrt(p)): rates in proportion to
    1 / RTT. With n_e connections per entry and the link fully used,

    .. math::

        x_e = C \\frac{n_e / RTT_e}{\\sum_k n_k / RTT_k} .

    With equal RTTs this is per-connection fairness (handout Q30-Q31): a host opening
    three connections gets three shares. It describes Reno; CUBIC is less sensitive to
    the RTT (handout Q36-Q38, RFC 9438 Section 3.3).

    References
    ----------
    M. Mathis et al., CCR 27(3), 1997 (rate proportional to 1 / RTT at equal loss);
    lab handout Q31 (D1) and Q34-Q35 (D2, D3).

    Examples
    --------
    Handout Q31 (D1): 5 Mbit/s, RTT 300 ms for both hosts, 1 and 3 connections:

    >>> [float(x) / 1e6 for x in rtt_shares(5e6, [0.3, 0.3], [1, 3])]
    [1.25, 3.75]

    Handout Q35 (D2): goodput capacity 5 Mbit/s x 2896 / 2986, RTTs 800 ms and 300 ms:

    >>> s = rtt_shares(5e6 * 2896 / 2986, {"h1": 0.8, "h2": 0.3})
    >>> (s / 1e3).round(-1).to_dict()
    {'h1': 1320.0, 'h2': 3530.0}
    """
    cap = _positive("capacity_bps", capacity_bps)
    if cap.ndim != 0:
        raise ValueError(f"capacity_bps must be a single number; got {capacity_bps!r}")
    keyed = _is_keyed(rtts_s)
    if keyed:
        names = list(rtts_s.keys())
        rtt = _positive("rtts_s", [rtts_s[k] for k in names])
    else:
        names = None
        rtt = _positive("rtts_s", rtts_s)
        if rtt.ndim != 1:
            raise ValueError(f"rtts_s must be one-dimensional; got shape {rtt.shape}")
    if rtt.size == 0:
        raise ValueError("rtts_s must hold at least one entry; got none")

    if connections is None:
        n = np.ones_like(rtt)
    elif _is_keyed(connections):
        if not keyed:
            raise ValueError(
                "connections is keyed by name but rtts_s is not; pass rtts_s as a dict "
                "or Series too"
            )
        missing = [k for k in names if k not in connections]
        extra = [k for k in connections.keys() if k not in rtts_s]
        if missing or extra:
            raise ValueError(
                f"connections and rtts_s must have the same names; missing {missing}, "
                f"unknown {extra}"
            )
        n = _nonnegative("connections", [connections[k] for k in names])
    else:
        n = _nonnegative("connections", connections)
        if n.shape != rtt.shape:
            raise ValueError(
                f"connections must have one entry per RTT ({rtt.size}); got shape {n.shape}"
            )
    if not (n > 0).any():
        raise ValueError(f"connections must not all be zero; got {n.tolist()}")

    weight = n / rtt
    share = float(cap) * weight / weight.sum()
    if keyed:
        import pandas as pd

        return pd.Series(share, index=pd.Index(names), name="rate_bps")
    return share


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
    w = _positive("w_max", w_max)
    beta = _open_unit("beta", beta)
    c = _positive("c", c)
    _broadcast(w_max=w, beta=beta, c=c)
    return _out(np.cbrt(w * (1.0 - beta) / c))


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
    t = _nonnegative("t_s", t_s)
    w = _positive("w_max", w_max)
    beta = _open_unit("beta", beta)
    c = _positive("c", c)
    _broadcast(t_s=t, w_max=w, beta=beta, c=c)
    k = np.cbrt(w * (1.0 - beta) / c)
    return _out(c * (t - k) ** 3 + w)


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
    t = _nonnegative("t_s", t_s)
    rtt = _positive("rtt_s", rtt_s)
    w = _positive("w_max", w_max)
    beta = _open_unit("beta", beta)
    _broadcast(t_s=t, rtt_s=rtt, w_max=w, beta=beta)
    alpha = 3.0 * (1.0 - beta) / (1.0 + beta)
    w_est = beta * w + alpha * t / rtt
    if reno_slope_after_w_max:
        t1 = rtt * w * (1.0 - beta) / alpha
        w_est = np.where(t <= t1, w_est, w + (t - t1) / rtt)
    return _out(w_est)


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
    rtt = _positive("rtt_s", rtt_s)
    p = _loss(loss)
    beta = _open_unit("beta", beta)
    c = _positive("c", c)
    k = _positive("reno_constant", reno_constant)
    _broadcast(rtt_s=rtt, loss=p, beta=beta, c=c, reno_constant=k)
    w = (c * (3.0 + beta) / (4.0 * (1.0 - beta))) ** 0.25 * (rtt / p) ** 0.75
    if reno_floor:
        w = np.maximum(w, k / np.sqrt(p))
    return _out(w)


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
    L = _positive("segment_bytes", segment_bytes)
    w = cubic_average_window(rtt_s, loss, beta, c, reno_floor, reno_constant)
    rtt = _positive("rtt_s", rtt_s)
    _broadcast(segment_bytes=L, window=w)
    return _out(np.asarray(w) * 8.0 * L / rtt)


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
    rate = _positive("rate_bps", rate_bps)
    rtt = _positive("rtt_s", rtt_s)
    _broadcast(rate_bps=rate, rtt_s=rtt)
    return _out(rate * rtt / 8.0)


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
    w = _nonnegative("window_bytes", window_bytes)
    rtt = _positive("rtt_s", rtt_s)
    _broadcast(window_bytes=w, rtt_s=rtt)
    return _out(8.0 * w / rtt)


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
    target = _positive("target_window_segments", target_window_segments)
    iw = _positive("initial_window_segments", initial_window_segments)
    g = _as_float("growth", growth)
    if (g <= 1).any():
        raise ValueError(f"growth must be > 1; got {_first_bad(g, g <= 1)!r}")
    _broadcast(target_window_segments=target, initial_window_segments=iw, growth=g)
    ratio = target / iw
    n = np.maximum(0.0, np.ceil(np.log(ratio) / np.log(g)))
    # guard against log rounding: step down while one round fewer already suffices
    n = np.where((n > 0) & (iw * g ** (n - 1) >= target * (1 - 1e-12)), n - 1, n)
    n = np.where(iw * g**n < target * (1 - 1e-12), n + 1, n)
    return _out(n)


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
    rtt = _positive("rtt_s", rtt_s)
    _broadcast(rounds=np.asarray(rounds), rtt_s=rtt)
    return _out(np.asarray(rounds) * rtt)


# --------------------------------------------------------------------------------------
# several connections with a response function behind one bottleneck
# --------------------------------------------------------------------------------------

_RESPONSE_MODELS = ("reno", "cubic")


def response_shares(capacity_bps, rtts_s, model="reno", segment_bytes=1448, connections=None,
                    beta=CUBIC_BETA, c=0.4, reno_floor=True):
    """Rates of connections that share one bottleneck and see the same loss rate [bit/s].

    Every connection follows a response function rate(RTT, p); all see the same loss
    (or mark) probability p, and p settles where the rates fill the bottleneck.

    Parameters
    ----------
    capacity_bps : float
        What the bottleneck delivers to the connections together [bit/s], > 0 (pass the
        goodput capacity to get goodputs).
    rtts_s : array_like, dict or pandas.Series
        RTT of each entry (host or flow) [s], > 0. Keyed input gives keyed output.
    model : {"reno", "cubic"}
        ``"reno"``: :func:`mathis_rate_bps` with c = sqrt(3/2); rates in proportion to
        1 / RTT, as :func:`rtt_shares`. ``"cubic"``: :func:`cubic_rate_bps` (RFC 9438
        response function, with the Reno-friendly floor when ``reno_floor``).
    segment_bytes : float, default 1448
        Segment size L [byte], > 0 (it sets the windows, hence CUBIC's regime).
    connections : array_like, dict or pandas.Series, optional
        Connections per entry [1], >= 0, not all 0; one each by default.
    beta, c, reno_floor
        CUBIC parameters, as in :func:`cubic_average_window`.

    Returns
    -------
    rates : numpy.ndarray or pandas.Series
        Aggregate rate of each entry [bit/s], summing to ``capacity_bps``.
    loss : float
        The common loss probability that makes them fill the bottleneck [1].

    Raises
    ------
    ValueError
        Bad inputs (as :func:`rtt_shares`), an unknown model, or a bottleneck so small
        that even a loss rate of 1 leaves the connections above it (less than about one
        segment per RTT each: the response functions do not apply there).

    Notes
    -----
    Solve :math:`\\sum_e n_e\\, r(RTT_e, p) = C` for p (the left side decreases with p;
    bisection on log p). Reno's :math:`r \\propto 1/(RTT \\sqrt{p})` gives shares in
    proportion to :math:`n_e / RTT_e` whatever p is. In CUBIC's own region
    :math:`r \\propto RTT^{-1/4} p^{-3/4}`, so the shares go as :math:`RTT^{-1/4}`: a
    much weaker RTT bias; with the Reno-friendly floor a connection with a small
    window behaves as Reno.

    References
    ----------
    M. Mathis et al., CCR 27(3), 1997; RFC 9438 Section 5 (CUBIC's response function);
    lab handout Q34-Q38.

    Examples
    --------
    Handout D2: RTTs 800 ms (h1) and 300 ms (h2), goodput capacity 5 Mbit/s x 2896 / 2986.

    >>> cap = 5e6 * 2896 / 2986
    >>> rates, p = response_shares(cap, [0.8, 0.3], "reno")
    >>> [round(float(r) / 1e3) for r in rates]
    [1323, 3527]
    >>> rates, p = response_shares(cap, {"h1": 0.8, "h2": 0.3}, "cubic")
    >>> (rates / 1e3).round().to_dict(), round(p, 5)
    ({'h1': 2129.0, 'h2': 2720.0}, 0.00111)
    """
    if model not in _RESPONSE_MODELS:
        raise ValueError(f"model must be one of {', '.join(_RESPONSE_MODELS)}; got {model!r}")
    cap = _positive("capacity_bps", capacity_bps)
    if cap.ndim != 0:
        raise ValueError(f"capacity_bps must be a single number; got {capacity_bps!r}")
    keyed = _is_keyed(rtts_s)
    names = list(rtts_s.keys()) if keyed else None
    rtt = _positive("rtts_s", [rtts_s[k] for k in names] if keyed else rtts_s)
    if rtt.ndim != 1 or rtt.size == 0:
        raise ValueError(f"rtts_s must be a non-empty one-dimensional list; got {rtts_s!r}")
    # the same checks of the connections as rtt_shares (which raises on bad input)
    rtt_shares(1.0, rtts_s, connections)
    if connections is None:
        n = np.ones_like(rtt)
    elif _is_keyed(connections):
        n = np.array([float(connections[k]) for k in names])
    else:
        n = np.asarray(connections, dtype=float)
    L = float(_positive("segment_bytes", segment_bytes))
    beta_ = float(_open_unit("beta", beta))
    c_ = float(_positive("c", c))
    C = float(cap)
    if model == "reno":
        def rate(p):
            return RENO_CONSTANT * 8.0 * L / (rtt * math.sqrt(p))
    else:
        k_cubic = (c_ * (3.0 + beta_) / (4.0 * (1.0 - beta_))) ** 0.25

        def rate(p):
            w = k_cubic * (rtt / p) ** 0.75
            if reno_floor:
                w = np.maximum(w, 1.2 / math.sqrt(p))
            return w * 8.0 * L / rtt

    def total(p):
        return float(np.dot(n, rate(p)))

    if total(1.0) > C:
        raise ValueError(
            f"capacity_bps={C!r} is below what the connections send even at loss 1 "
            f"({total(1.0):.4g} bit/s): less than about one segment per RTT each, where "
            "loss-throughput models do not apply")
    lo, hi = math.log(1e-15), 0.0
    if total(1e-15) < C:
        raise ValueError(f"capacity_bps={C!r} is too large for a loss rate above 1e-15")
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if total(math.exp(mid)) > C:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13:
            break
    p = math.exp(0.5 * (lo + hi))
    rates = n * rate(p)
    rates = rates * (C / rates.sum())  # remove the last bisection residue
    if keyed:
        import pandas as pd

        return pd.Series(rates, index=pd.Index(names), name="rate_bps"), p
    return rates, p


def rtt_bias_exponent(rate_1, rate_2, rtt_1_s, rtt_2_s):
    """The exponent a in rate_1 / rate_2 = (RTT_2 / RTT_1)^a [1].

    Parameters
    ----------
    rate_1, rate_2 : float or array_like
        Rates of two connections on the same bottleneck [bit/s], > 0.
    rtt_1_s, rtt_2_s : float or array_like
        Their RTTs [s], > 0 and different.

    Returns
    -------
    float or numpy.ndarray
        a = ln(rate_1 / rate_2) / ln(RTT_2 / RTT_1): 1 for Reno's loss-throughput
        formula, 1/4 for CUBIC in its own region, 0 for RTT-blind sharing.

    Raises
    ------
    ValueError
        Non-positive values, or equal RTTs (the exponent is undefined).

    Notes
    -----
    .. math:: a = \\frac{\\ln(x_1 / x_2)}{\\ln(RTT_2 / RTT_1)}

    References
    ----------
    T. V. Lakshman, U. Madhow, "The performance of TCP/IP for networks with high
    bandwidth-delay products and random loss", IEEE/ACM ToN 5(3), 1997 (RTT bias of
    exponent 1 to 2); RFC 9438 Section 5 (CUBIC).

    Examples
    --------
    Handout D2 with Reno (885 and 3107 kbit/s at RTTs 800 and 300 ms):

    >>> round(rtt_bias_exponent(885e3, 3107e3, 0.8, 0.3), 3)
    1.28
    """
    x1 = _positive("rate_1", rate_1)
    x2 = _positive("rate_2", rate_2)
    t1 = _positive("rtt_1_s", rtt_1_s)
    t2 = _positive("rtt_2_s", rtt_2_s)
    _broadcast(rate_1=x1, rate_2=x2, rtt_1_s=t1, rtt_2_s=t2)
    same = np.broadcast_to(t1 == t2, np.broadcast_shapes(t1.shape, t2.shape))
    if same.any():
        raise ValueError("rtt_1_s and rtt_2_s must differ; the exponent is undefined for equal RTTs")
    return _out(np.log(x1 / x2) / np.log(t2 / t1))


# --------------------------------------------------------------------------------------
# from a measured rate back to a loss rate; a test of finite length, round by round
# --------------------------------------------------------------------------------------


def _scalar(name, value, low=0.0, strict=True) -> float:
    """``value`` as a finite float above ``low`` (or at least ``low``), else ValueError."""
    value = float(value)
    if not math.isfinite(value) or (value <= low if strict else value < low):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low:g}; got {value!r}")
    return value


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
    return float(_scalar("mss_bytes", mss_bytes) + _scalar("header_bytes", header_bytes, strict=False))


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
    rate = _scalar("rate_bps", rate_bps)
    rtt = _scalar("rtt_s", rtt_s)
    mss = _scalar("mss_bytes", mss_bytes)
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
    dur = _scalar("duration_s", duration_s)
    rate = _scalar("rate_bps", rate_bps)
    rtt = _scalar("rtt_s", rtt_s)
    p = _scalar("loss", loss)
    mss = _scalar("mss_bytes", mss_bytes)
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
