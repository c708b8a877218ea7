"""Several connections behind one bottleneck: RTT-biased shares, the RTT-bias exponent.

Part of :mod:`labcalc.tcp`, which re-exports every public name.

Examples
--------
>>> [round(float(r) / 1e6, 3) for r in rtt_shares(5e6, [0.1, 0.2])]
[3.333, 1.667]
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from labcalc.tcp._checks import broadcast_shape, nonnegative, open_unit, as_result, check_positive
from labcalc.tcp.constants import CUBIC_BETA, RENO_CONSTANT


__all__ = [
    "rtt_shares",
    "response_shares",
    "rtt_bias_exponent",
]


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
    cap = check_positive("capacity_bps", capacity_bps)
    if cap.ndim != 0:
        raise ValueError(f"capacity_bps must be a single number; got {capacity_bps!r}")
    keyed = _is_keyed(rtts_s)
    if keyed:
        names = list(rtts_s.keys())
        rtt = check_positive("rtts_s", [rtts_s[k] for k in names])
    else:
        names = None
        rtt = check_positive("rtts_s", rtts_s)
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
        n = nonnegative("connections", [connections[k] for k in names])
    else:
        n = nonnegative("connections", connections)
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
    cap = check_positive("capacity_bps", capacity_bps)
    if cap.ndim != 0:
        raise ValueError(f"capacity_bps must be a single number; got {capacity_bps!r}")
    keyed = _is_keyed(rtts_s)
    names = list(rtts_s.keys()) if keyed else None
    rtt = check_positive("rtts_s", [rtts_s[k] for k in names] if keyed else rtts_s)
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
    L = float(check_positive("segment_bytes", segment_bytes))
    beta_ = float(open_unit("beta", beta))
    c_ = float(check_positive("c", c))
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
    x1 = check_positive("rate_1", rate_1)
    x2 = check_positive("rate_2", rate_2)
    t1 = check_positive("rtt_1_s", rtt_1_s)
    t2 = check_positive("rtt_2_s", rtt_2_s)
    broadcast_shape(rate_1=x1, rate_2=x2, rtt_1_s=t1, rtt_2_s=t2)
    same = np.broadcast_to(t1 == t2, np.broadcast_shapes(t1.shape, t2.shape))
    if same.any():
        raise ValueError("rtt_1_s and rtt_2_s must differ; the exponent is undefined for equal RTTs")
    return as_result(np.log(x1 / x2) / np.log(t2 / t1))
