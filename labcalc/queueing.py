"""Queueing delay: full buffers, RTT minus base RTT, per-queue delays from path RTTs.

Three questions of the lab, in increasing order of inference:

:func:`full_buffer_delay_s`, :func:`bufferbloat_rtt_s`
    how long a full drop-tail buffer takes to drain, and the RTT a packet sees behind
    it (handout bonus Q46: 1000 packets at 5 Mbit/s, RTTs of seconds).
:func:`queueing_delay_s`
    the queueing part of one measured RTT (handout Q33: RTT above the 300 ms set by
    netem means a queue).
:func:`infer_queue_delays`
    the delay of each queue when only end-to-end RTTs are known: one equation per flow,
    sum of the queues on its path = its RTT - base RTT, solved by non-negative least
    squares (handout Q43-Q44).

Times are in seconds, sizes in bytes, rates in bit/s.

Examples
--------
Handout Q43-Q44: RTTs 340, 330 and 370 ms over a 300 ms base.

>>> d = infer_queue_delays(
...     {"1to2": ["R1"], "2to3": ["R2"], "1to3": ["R1", "R2"]},
...     {"1to2": 0.340, "2to3": 0.330, "1to3": 0.370},
...     0.300,
... )
>>> (d * 1e3).round(6).to_dict()
{'R1': 40.0, 'R2': 30.0}
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from labcalc.framing import (
    ETHERNET_HEADER_BYTES,
    FCS_BYTES,
    INTERFRAME_GAP_BYTES,
    MIN_FRAME_BYTES,
    PREAMBLE_SFD_BYTES,
)
from labcalc.tcp import broadcast_shape, first_bad, nonnegative, as_result, check_positive

__all__ = [
    "packet_cost_bytes",
    "full_buffer_delay_s",
    "bufferbloat_rtt_s",
    "queueing_delay_s",
    "infer_queue_delays",
    "queue_delays_from_rtts",
]

_ACCOUNTINGS = ("ip", "tc", "frame", "wire")
#: relative tolerance below which an RTT under the base RTT counts as equal to it
_RTT_REL_TOL = 1e-9


def packet_cost_bytes(ip_packet_bytes, accounting="wire"):
    """Bytes of link time one IP packet costs in the chosen accounting [byte].

    Parameters
    ----------
    ip_packet_bytes : float or array_like
        Size of the IP packet (IP header included) [byte], > 0.
    accounting : {"wire", "frame", "tc", "ip"}
        ``"ip"``: the packet; ``"tc"``: + Ethernet header (what a Linux shaper
        charges); ``"frame"``: + header + FCS, padded to the 64-byte minimum;
        ``"wire"``: frame + preamble/SFD + inter-frame gap (see :mod:`labcalc.framing`).

    Returns
    -------
    float or numpy.ndarray
        Cost [byte].

    Raises
    ------
    ValueError
        For a size that is not > 0 or an unknown accounting.

    Notes
    -----
    .. math::

        \\text{tc} = \\text{ip} + 14,\\quad
        \\text{frame} = \\max(\\text{ip} + 18, 64),\\quad
        \\text{wire} = \\text{frame} + 20

    References
    ----------
    IEEE 802.3 clauses 3.1-3.2 and 4.4.2; :mod:`labcalc.framing`.

    Examples
    --------
    >>> [packet_cost_bytes(1500, a) for a in ("ip", "tc", "frame", "wire")]
    [1500.0, 1514.0, 1518.0, 1538.0]
    >>> packet_cost_bytes(28, "wire")
    84.0
    """
    if accounting not in _ACCOUNTINGS:
        raise ValueError(
            f"accounting must be one of {', '.join(_ACCOUNTINGS)}; got {accounting!r}"
        )
    ip = check_positive("ip_packet_bytes", ip_packet_bytes)
    if accounting == "ip":
        return as_result(ip)
    if accounting == "tc":
        return as_result(ip + ETHERNET_HEADER_BYTES)
    frame = np.maximum(ip + ETHERNET_HEADER_BYTES + FCS_BYTES, MIN_FRAME_BYTES)
    if accounting == "frame":
        return as_result(frame)
    return as_result(frame + PREAMBLE_SFD_BYTES + INTERFRAME_GAP_BYTES)


def full_buffer_delay_s(packets, ip_packet_bytes, rate_bps, accounting="wire"):
    """Time to drain a full drop-tail buffer [s].

    Parameters
    ----------
    packets : float or array_like
        Packets in the buffer [packet], >= 0 (the queue limit when it is full).
    ip_packet_bytes : float or array_like
        IP packet size [byte], > 0.
    rate_bps : float or array_like
        Rate of the link that drains the buffer [bit/s], > 0.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        How many bytes each packet costs the link (:func:`packet_cost_bytes`); "tc" for
        a Linux shaper such as Mininet's links, "wire" for the handout's theory.

    Returns
    -------
    float or numpy.ndarray
        Delay of the last packet in the buffer [s]: the queueing delay a new arrival
        sees.

    Raises
    ------
    ValueError
        For a negative number of packets, a size or rate that is not > 0, or an unknown
        accounting.

    Notes
    -----
    .. math::

        D = \\frac{8\\, N\\, \\text{cost}(S)}{R}

    A qdisc limit counts queue *entries*, not bytes. With segmentation offload (the
    handout's 2896-byte TCP segments) one entry is a super-packet of two MSS, so a
    1000-entry limit holds twice the bytes a count of 1500-byte packets suggests: in the
    handout this is the difference between 2.5 s and 4.7 s of queueing (Q46 measured
    RTTs of 2 to 5 s).

    References
    ----------
    Lab handout, bonus Q46 (``max_queue_size = 1000`` on a 5 Mbit/s link); J. Gettys,
    K. Nichols, "Bufferbloat: dark buffers in the Internet", ACM Queue 9(11), 2011.

    Examples
    --------
    Handout Q46: 1000 packets of 1500 bytes at 5 Mbit/s (1538 bytes each on the wire):

    >>> round(full_buffer_delay_s(1000, 1500, 5e6), 4)
    2.4608

    The same buffer filled with offloaded segments (2896 + 32 + 20 bytes of IP packet)
    as a Linux shaper charges them:

    >>> round(full_buffer_delay_s(1000, 2948, 5e6, accounting="tc"), 4)
    4.7392
    """
    n = nonnegative("packets", packets)
    cost = np.asarray(packet_cost_bytes(ip_packet_bytes, accounting))
    rate = check_positive("rate_bps", rate_bps)
    broadcast_shape(packets=n, ip_packet_bytes=cost, rate_bps=rate)
    return as_result(8.0 * n * cost / rate)


def bufferbloat_rtt_s(base_rtt_s, packets, ip_packet_bytes, rate_bps, accounting="wire"):
    """RTT of a packet that waits behind a full buffer [s].

    Parameters
    ----------
    base_rtt_s : float or array_like
        RTT without queueing [s], > 0.
    packets, ip_packet_bytes, rate_bps, accounting
        As in :func:`full_buffer_delay_s`.

    Returns
    -------
    float or numpy.ndarray
        base RTT + drain time of the buffer [s].

    Raises
    ------
    ValueError
        As :func:`full_buffer_delay_s`, and for a base RTT that is not > 0.

    Notes
    -----
    .. math::

        RTT = RTT_0 + \\frac{8\\, N\\, \\text{cost}(S)}{R}

    One full queue on the path, in one direction; the ACKs are assumed not to queue.

    References
    ----------
    J. Gettys, K. Nichols, ACM Queue 9(11), 2011; lab handout Q46.

    Examples
    --------
    A 100-packet queue at 1.5 Mbit/s behind a 30 ms path (a Mininet bufferbloat
    exercise):

    >>> round(bufferbloat_rtt_s(0.030, 100, 1500, 1.5e6, accounting="tc"), 4)
    0.8375
    """
    base = check_positive("base_rtt_s", base_rtt_s)
    delay = np.asarray(full_buffer_delay_s(packets, ip_packet_bytes, rate_bps, accounting))
    broadcast_shape(base_rtt_s=base, delay=delay)
    return as_result(base + delay)


def queueing_delay_s(rtt_s, base_rtt_s):
    """Queueing part of a measured RTT: RTT - base RTT [s].

    Parameters
    ----------
    rtt_s : float or array_like
        Measured RTT [s], > 0.
    base_rtt_s : float or array_like
        RTT of the empty path (propagation + transmission, e.g. the netem delay) [s],
        > 0.

    Returns
    -------
    float or numpy.ndarray
        Queueing delay [s], >= 0.

    Raises
    ------
    ValueError
        For an RTT that is not > 0, or an RTT below the base RTT by more than a relative
        1e-9 (a measurement below the physical minimum means the base RTT is wrong;
        silently clipping it would hide that). Differences within the tolerance are
        returned as 0.

    Notes
    -----
    .. math::

        d_q = RTT - RTT_0

    It is the sum over both directions of the waiting in every queue on the path.

    References
    ----------
    Lab handout, definition of queueing delay (Section 1) and Q33.

    Examples
    --------
    >>> round(queueing_delay_s(0.340, 0.300), 9)
    0.04
    """
    rtt = check_positive("rtt_s", rtt_s)
    base = check_positive("base_rtt_s", base_rtt_s)
    broadcast_shape(rtt_s=rtt, base_rtt_s=base)
    diff = rtt - base
    below = diff < -_RTT_REL_TOL * np.maximum(rtt, base)
    if below.any():
        r = first_bad(rtt, below)
        b = first_bad(base, below)
        raise ValueError(
            f"rtt_s must not be below base_rtt_s; got rtt_s={r!r} < base_rtt_s={b!r}"
        )
    return as_result(np.maximum(diff, 0.0))


def _keyed_seconds(name: str, value, flows: list) -> np.ndarray:
    """A dict flow -> seconds (or one number for all) as an array in ``flows`` order."""
    if isinstance(value, Mapping) or type(value).__name__ == "Series":
        keys = list(value.keys())
        missing = [f for f in flows if f not in value]
        unknown = [k for k in keys if k not in set(flows)]
        if missing or unknown:
            raise ValueError(
                f"{name} must have one entry per flow of paths; missing {missing}, "
                f"unknown flows {unknown}"
            )
        return check_positive(name, [value[f] for f in flows])
    arr = check_positive(name, value)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a dict flow -> seconds or one number; got {value!r}")
    return np.full(len(flows), float(arr))


def _queues_of(paths, rtts_s) -> list:
    """The queues named by ``paths`` in order of first use, after checking both arguments."""
    if not isinstance(paths, Mapping) or not paths:
        raise ValueError(f"paths must be a non-empty dict flow -> list of queues; got {paths!r}")
    queues: list = []
    for flow, route in paths.items():
        if isinstance(route, (str, bytes)) or not hasattr(route, "__iter__"):
            raise ValueError(f"paths[{flow!r}] must be a list of queue names; got {route!r}")
        route = list(route)
        if not route:
            raise ValueError(f"paths[{flow!r}] must name at least one queue; got []")
        for q in route:
            if q not in queues:
                queues.append(q)
    if not (isinstance(rtts_s, Mapping) or type(rtts_s).__name__ == "Series"):
        raise ValueError(f"rtts_s must be a dict flow -> seconds; got {rtts_s!r}")
    return queues


def infer_queue_delays(paths, rtts_s, base_rtts_s):
    """Per-queue delays that explain the RTTs of several flows [s].

    Parameters
    ----------
    paths : dict
        Flow name -> list of the queues (routers, interfaces) the flow crosses. A queue
        listed twice in one path counts twice.
    rtts_s : dict or pandas.Series
        Flow name -> measured RTT [s], > 0; the same flows as ``paths``.
    base_rtts_s : float, dict or pandas.Series
        RTT of each flow without queueing [s], > 0; one number for all flows, or one per
        flow.

    Returns
    -------
    pandas.Series
        Delay of each queue [s], >= 0, indexed by queue name in order of first
        appearance. ``.attrs["residual_s"]`` holds the norm of the misfit
        ||A d - (RTT - base)|| [s] (0 when the RTTs are consistent);
        ``.attrs["fitted_s"]`` a dict flow -> fitted queueing delay [s].

    Raises
    ------
    ValueError
        If the keys of ``paths``, ``rtts_s`` and ``base_rtts_s`` differ, a path is empty,
        an RTT or base RTT is not > 0, an RTT is below its base RTT, or the paths do not
        determine every queue (the message names the queues that cannot be separated,
        e.g. two routers that every flow crosses together).

    Notes
    -----
    With the routing matrix A (A[f, q] = times flow f crosses queue q) and the queueing
    part of each RTT y_f = RTT_f - base_f,

    .. math::

        \\hat d = \\arg\\min_{d \\ge 0} \\lVert A d - y \\rVert_2

    solved with ``scipy.optimize.nnls``. The delays are unique only if A has full
    column rank; a queue is identifiable when its unit vector lies in the row space of
    A, and the others are reported. Each delay is what the queue adds to the round
    trip, i.e. the sum of both directions if the name stands for a router crossed by
    data and ACKs.

    References
    ----------
    Lab handout Q43-Q44 (three flows, two routers); C. L. Lawson, R. J. Hanson,
    "Solving Least Squares Problems", Prentice-Hall, 1974, ch. 23 (the NNLS algorithm).

    Examples
    --------
    Handout Q43-Q44:

    >>> paths = {"1to2": ["R1"], "2to3": ["R2"], "1to3": ["R1", "R2"]}
    >>> rtts = {"1to2": 0.340, "2to3": 0.330, "1to3": 0.370}
    >>> d = infer_queue_delays(paths, rtts, 0.300)
    >>> [round(float(x) * 1e3, 6) for x in d], round(d.attrs["residual_s"], 12)
    ([40.0, 30.0], 0.0)

    Inconsistent RTTs leave a residual (here the 1to3 RTT is 10 ms short):

    >>> d = infer_queue_delays(paths, dict(rtts, **{"1to3": 0.360}), 0.300)
    >>> round(d.attrs["residual_s"] * 1e3, 3)
    5.774
    """
    queues = _queues_of(paths, rtts_s)
    flows = list(paths.keys())
    rtt = _keyed_seconds("rtts_s", rtts_s, flows)
    base = _keyed_seconds("base_rtts_s", base_rtts_s, flows)
    y = np.array([queueing_delay_s(r, b) for r, b in zip(rtt, base)])

    index = {q: j for j, q in enumerate(queues)}
    A = np.zeros((len(flows), len(queues)))
    for i, flow in enumerate(flows):
        for q in paths[flow]:
            A[i, index[q]] += 1.0

    # identifiability: e_q must lie in the row space of A
    pinv = np.linalg.pinv(A)
    projector = pinv @ A  # orthogonal projector onto the row space
    lost = [q for q, j in index.items() if abs(projector[j, j] - 1.0) > 1e-9]
    if lost:
        raise ValueError(
            f"the paths do not determine the delays of queues {lost}: add flows that "
            f"cross them separately (routing matrix rank {np.linalg.matrix_rank(A)} "
            f"< {len(queues)} queues)"
        )

    from scipy.optimize import nnls
    import pandas as pd

    d, _ = nnls(A, y)
    fitted = A @ d
    residual = float(np.linalg.norm(fitted - y))
    out = pd.Series(d, index=pd.Index(queues), name="queueing_delay_s")
    out.attrs["residual_s"] = residual
    out.attrs["fitted_s"] = {f: float(v) for f, v in zip(flows, fitted)}
    return out


def queue_delays_from_rtts(paths, rtts_s, base_rtts_s):
    """Per-queue delays from the RTTs a measurement file holds, some possibly missing [s].

    :func:`infer_queue_delays` for a student's file: an RTT given as NaN (a measurement
    the file lacks) is left out. When the remaining RTTs still determine every queue the
    delays are inferred from them; otherwise every delay is NaN and a note says why. A
    text says how well the RTTs fit: with more RTTs than needed the misfit tests them;
    with exactly as many as needed they always fit, and no misfit is reported.

    Parameters
    ----------
    paths : dict
        Flow name -> list of the queues it crosses (as in :func:`infer_queue_delays`).
    rtts_s : dict or pandas.Series
        Flow name -> measured RTT [s], NaN when not measured; the flows of ``paths``.
    base_rtts_s : float, dict or pandas.Series
        RTT of each flow without queueing [s]: one number, or one per flow.

    Returns
    -------
    pandas.Series
        Delay of each queue of ``paths`` [s] (NaN when the RTTs do not determine the
        delays), indexed by queue name in order of first appearance. ``.attrs``:
        ``"used"`` (the flows whose RTTs were used), ``"residual_s"`` (the misfit [s], NaN
        unless the RTTs are more than needed), ``"redundant"`` (number of RTTs beyond
        those needed; None when undetermined), ``"note"`` (why the delays are missing,
        else ``""``) and ``"fit"`` (one line on the misfit, for printing).

    Raises
    ------
    ValueError
        As :func:`infer_queue_delays` for the RTTs it uses (e.g. an RTT below its base).

    Examples
    --------
    >>> paths = {"1to2": ["R1"], "2to3": ["R2"], "1to3": ["R1", "R2"]}
    >>> d = queue_delays_from_rtts(paths, {"1to2": 0.340, "2to3": 0.330, "1to3": 0.370}, 0.300)
    >>> [round(float(x) * 1e3, 6) for x in d], d.attrs["fit"]
    ([40.0, 30.0], 'misfit of the 3 RTTs: 0.00 ms')
    >>> d = queue_delays_from_rtts(paths, {"1to2": 0.340, "2to3": float("nan"), "1to3": 0.370}, 0.300)
    >>> [round(float(x) * 1e3, 6) for x in d]
    [40.0, 30.0]
    >>> print(d.attrs["fit"])
    2 RTTs for 2 queues: exactly determined, so they fit whatever they are (no misfit to report)
    >>> d = queue_delays_from_rtts(paths, {"1to2": 0.340, "2to3": float("nan"), "1to3": float("nan")}, 0.300)
    >>> bool(d.isna().all())
    True
    >>> print(d.attrs["note"])
    the delays of the 2 queues (R1, R2) need at least 2 RTTs of flows that tell them apart; 1 RTT measured (1to2)
    """
    import pandas as pd

    queues = _queues_of(paths, rtts_s)
    known = [f for f in paths if f in rtts_s and rtts_s[f] is not None and not np.isnan(float(rtts_s[f]))]
    base = base_rtts_s
    if isinstance(base_rtts_s, Mapping) or type(base_rtts_s).__name__ == "Series":
        base = {f: base_rtts_s[f] for f in known}

    A = np.zeros((len(known), len(queues)))
    for i, flow in enumerate(known):
        for q in paths[flow]:
            A[i, queues.index(q)] += 1.0
    rank = int(np.linalg.matrix_rank(A)) if known else 0
    if rank < len(queues):
        n = len(known)
        note = (f"the delays of the {len(queues)} queues ({', '.join(map(str, queues))}) need at least "
                f"{len(queues)} RTTs of flows that tell them apart; {n} RTT{'' if n == 1 else 's'} measured"
                + (f" ({', '.join(known)})" if known else ""))
        out = pd.Series(np.nan, index=pd.Index(queues), name="queueing_delay_s")
        out.attrs.update(used=known, residual_s=float("nan"), redundant=None, note=note,
                         fit="no delays inferred, so no misfit")
        return out
    for f in known:
        try:
            rtt, b = float(rtts_s[f]), float(base[f] if isinstance(base, Mapping) else base)
        except (TypeError, ValueError):
            continue  # not numbers: infer_queue_delays names the argument
        if rtt < b:
            # a measured RTT below the base: the file comes from a network with less propagation
            # delay than the one assumed (no netem, another delay); infer_queue_delays would only
            # say rtt_s < base_rtt_s, without whose RTT or what to do
            raise ValueError(f"rtt_s must not be below base_rtt_s: the measured RTT of {f} is {rtt:g} s, "
                             f"below the base of {b:g} s; base_rtts_s is the RTT of your network without "
                             "queueing (the handout's netem delays): pass yours, e.g. the smallest RTT you measured "
                             "on an idle path")
    d = infer_queue_delays({f: paths[f] for f in known}, {f: rtts_s[f] for f in known}, base)
    out = d.reindex(queues)
    out.attrs = dict(d.attrs)
    redundant = len(known) - rank
    if redundant:
        fit = f"misfit of the {len(known)} RTTs: {1e3 * d.attrs['residual_s']:.2f} ms"
        residual = d.attrs["residual_s"]
    else:
        fit = (f"{len(known)} RTTs for {len(queues)} queues: exactly determined, so they fit whatever they are "
               "(no misfit to report)")
        residual = float("nan")
    out.attrs.update(used=known, residual_s=residual, redundant=redundant, note="", fit=fit)
    return out
