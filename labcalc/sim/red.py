"""Linux's RED (``tc qdisc ... red``, as Mininet's ``TCLink`` sets it) in ns-3's ``RedQueueDisc``.

:func:`red_attributes` turns a :class:`~labcalc.scenario.RedQueue` (tc's ``limit``,
``min``, ``max``, ``avpkt``, ``burst``, ``probability``, ``ecn``) into the attributes of
``ns3::RedQueueDisc`` that reproduce what the kernel does with it. tc does not hand the
kernel its arguments as written; it derives (iproute2 ``tc/q_red.c``, ``tc/tc_red.c``):

* ``Wlog``, the averaging weight W = 2^-Wlog: the smallest Wlog >= 1 with
  ``burst + 1 - min/avpkt <= (1 - (1 - W)^burst) / W`` (``tc_red_eval_ewma``). Mininet's
  numbers give ``20 + 1 - 30000/1500 = 1`` and so Wlog = 1: W = 1/2, an average that
  follows the backlog within a couple of packets;
* ``Plog`` (``tc_red_eval_P``): the smallest i with ``probability / (max - min) * 2^i > 1``,
  13 for Mininet's numbers, and ``max_P = probability * 2^32`` stored in a 32-bit
  unsigned integer. With ``probability 1`` that product is 2^32, which does not fit: on
  x86-64 the conversion gives 0 (checked here with gcc 12, -O2), and the kernel, given
  ``max_P = 0``, falls back to ``(max - min) / 2^Plog`` (``red_set_parms`` in
  ``include/net/red.h``): 5000 / 8192 = 0.61 as the largest early-drop probability;
* the idle-time table from ``bandwidth`` and ``avpkt``: while the queue is empty the
  average decays as if a packet of ``avpkt`` bytes had arrived to an empty queue every
  ``avpkt`` transmission time.

The kernel then (``net/sched/sch_red.c``, ``include/net/red.h``), for each arriving packet,
updates ``qavg += (backlog - qavg) * W`` from the byte backlog before the packet; below
``min`` it enqueues; between ``min`` and ``max`` it drops (or, with ``ecn``, marks an
ECN-capable packet) with a probability rising linearly to max_P, spaced by Floyd's
uniform method (a random threshold drawn after each mark); above ``max`` it drops every
packet, or with ``ecn`` marks the ECN-capable ones (Linux RED is not "gentle"; ``harddrop``
is not set); and the child ``bfifo`` drops what exceeds ``limit`` bytes.

The ns-3 mapping: ``MaxSize = limit`` in bytes (so the queue, ``MinTh`` and ``MaxTh`` count
bytes), ``QW = 2^-Wlog``, ``LInterm = 1 / max_P`` (the kernel's max_P, not tc's
``probability``), ``Gentle = false``, ``Wait = false`` (the uniform spacing; ns-3's
default ``Wait`` spaces marks twice as far), ``UseEcn = ecn``, ``UseHardDrop = false``,
``MeanPktSize = avpkt`` and ``LinkBandwidth`` = the link's rate (the idle decay), ``ARED``,
``AdaptMaxP``, ``FengAdaptive``, ``NLRED`` off.

What ns-3 does not reproduce:

* byte mode: ns-3 scales the early-drop probability by packet size / ``MeanPktSize``
  (Floyd's byte mode) and counts packets since the last drop in units of ``MeanPktSize``
  bytes; Linux uses one probability per packet. Full TCP segments (1500-byte IP packets,
  ``avpkt`` = 1500) see the kernel's probability; a 1028-byte UDP datagram sees 0.69 of
  it, in the early-drop band only (the band is 5000 bytes, three packets, wide: above
  ``max`` both drop everything);
* ns-3 never drops or marks while the queue holds at most one byte, and computes in
  floating point where the kernel shifts fixed-point integers (W = 1/2 is exact in both);
* the shaper: Mininet's RED sits under an ``htb`` class (``rate <bw>Mbit burst 15k``), which
  may send 15 kB back to back after a pause; the ns-3 link serialises at its rate, with
  a device queue of one packet under the queue disc;
* what the RED qdisc counts: the kernel's backlog is the ``bfifo`` child's, ns-3's the
  internal queue's: the same packets, without the packet being transmitted;
* the hosts: a Linux host with the default ``net.ipv4.tcp_ecn = 2`` answers ECN but never
  asks for it, so its packets are not ECN-capable and RED drops them even with ``ecn``
  (the handout's captures show no ECN flags). ns-3's TCP behaves the same by default;
  ``simulate(ecn=True)`` makes every TCP flow ask for ECN (``TcpSocketBase::UseEcn``).

References
----------
.. [1] Mininet, ``mininet/link.py``, ``TCIntf.bwCmds`` (enable_red / enable_ecn).
.. [2] iproute2, ``tc/q_red.c`` (``red_parse_opt``) and ``tc/tc_red.c``
   (``tc_red_eval_ewma``, ``tc_red_eval_P``, ``tc_red_eval_idle_damping``).
.. [3] Linux, ``include/net/red.h`` (``red_set_parms``, ``red_calc_qavg``, ``red_action``,
   ``red_mark_probability``) and ``net/sched/sch_red.c`` (``red_enqueue``).
.. [4] ns-3.44, ``src/traffic-control/model/red-queue-disc.cc``.
.. [5] S. Floyd, V. Jacobson, "Random Early Detection Gateways for Congestion Avoidance", 1993.
"""

from __future__ import annotations

from labcalc.scenario import RedQueue

__all__ = ["tc_wlog", "tc_plog", "kernel_max_p", "red_attributes", "RedQueue"]


def tc_wlog(min_bytes: int, burst_packets: int, avpkt_bytes: int) -> int:
    """tc's ``Wlog`` (``tc_red_eval_ewma``): the averaging weight is 2^-Wlog.

    Parameters
    ----------
    min_bytes, burst_packets, avpkt_bytes : int
        tc's ``min`` [bytes], ``burst`` [packets], ``avpkt`` [bytes].

    Returns
    -------
    int
        The smallest ``wlog`` in 1..31 with ``burst + 1 - min/avpkt <= (1 - (1-W)^burst)/W``.

    Raises
    ------
    ValueError
        Where tc refuses: ``burst`` too small, or no weight fits.

    Examples
    --------
    >>> tc_wlog(30000, 20, 1500)     # Mininet's TCLink: W = 1/2
    1
    >>> tc_wlog(30000, 55, 1000)     # tc-red(8)'s example: min 30000 avpkt 1000 burst 55 (W = 1/32)
    5
    """
    a = burst_packets + 1 - min_bytes / avpkt_bytes
    if a < 1.0:
        raise ValueError(f"tc: burst {burst_packets} is too small; try burst {1 + min_bytes // avpkt_bytes}")
    w = 0.5
    for wlog in range(1, 32):
        if a <= (1 - (1 - w) ** burst_packets) / w:
            return wlog
        w /= 2
    raise ValueError("tc: failed to calculate EWMA constant")


def tc_plog(min_bytes: int, max_bytes: int, probability: float) -> int:
    """tc's ``Plog`` (``tc_red_eval_P``).

    Examples
    --------
    >>> tc_plog(30000, 35000, 1.0)
    13
    """
    span = max_bytes - min_bytes
    if span == 0:
        return 0
    p = probability / span
    for i in range(32):
        if p > 1.0:
            return i
        p *= 2
    raise ValueError("tc: failed to calculate probability")


def kernel_max_p(min_bytes: int, max_bytes: int, probability: float) -> float:
    """The largest early-drop probability the kernel uses for tc's ``probability``.

    tc sends ``max_P = probability * 2^32`` as a 32-bit unsigned integer; 2^32 itself
    (``probability 1``) wraps to 0 on x86-64, and the kernel then uses
    ``(max - min) * (0xFFFFFFFF >> Plog) / 2^32`` (``red_set_parms``).

    Examples
    --------
    >>> round(kernel_max_p(30000, 35000, 1.0), 4)     # Mininet's TCLink
    0.6104
    >>> kernel_max_p(30000, 35000, 0.5)
    0.5
    """
    raw = int(probability * 2**32) & 0xFFFFFFFF
    if raw == 0:
        span = max(max_bytes - min_bytes, 1)
        raw = ((0xFFFFFFFF >> tc_plog(min_bytes, max_bytes, probability)) * span) & 0xFFFFFFFF
    return raw / 2**32


def red_attributes(red: RedQueue, capacity_bps: float) -> dict:
    """The ``ns3::RedQueueDisc`` attributes of a Linux RED queue on a link of ``capacity_bps``.

    Parameters
    ----------
    red : labcalc.scenario.RedQueue
        tc's parameters (defaults: Mininet's ``TCLink``).
    capacity_bps : float
        The link's rate [bit/s] (tc's ``bandwidth``, Mininet's ``bw``).

    Returns
    -------
    dict
        Attribute name -> value (numbers, booleans; ``MaxSize`` as ns-3's text ``"<n>B"``).

    Examples
    --------
    >>> a = red_attributes(RedQueue(), 5e6)
    >>> a["MaxSize"], a["MinTh"], a["MaxTh"], a["QW"], round(a["LInterm"], 4), a["Gentle"], a["UseEcn"]
    ('1000000B', 30000.0, 35000.0, 0.5, 1.6384, False, True)
    """
    wlog = tc_wlog(red.min_bytes, red.burst_packets, red.avpkt_bytes)
    return {
        "MaxSize": f"{int(red.limit_bytes)}B",
        "MinTh": float(red.min_bytes),
        "MaxTh": float(red.max_bytes),
        "QW": 2.0 ** -wlog,
        "LInterm": 1.0 / kernel_max_p(red.min_bytes, red.max_bytes, red.probability),
        "MeanPktSize": int(red.avpkt_bytes),
        "LinkBandwidth": float(capacity_bps),
        "Gentle": False,
        "Wait": False,
        "UseEcn": bool(red.ecn),
        "UseHardDrop": False,
        "ARED": False,
        "AdaptMaxP": False,
        "FengAdaptive": False,
        "NLRED": False,
    }
