"""Lab 5's scenario parameters: the handout's numbers (:class:`Params`) and per-student variants.

Examples
--------
>>> variant(0) == Params()
True
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

from labcalc.labs._framework import check_seed

__all__ = ["Params", "variant", "with_params"]


@dataclass(frozen=True)
class Params:
    """The numbers the handout fixes (defaults) and the measured inputs some answers use.

    Rates are application data rates [bit/s] unless the name says otherwise; links are
    shaper rates [bit/s]; times in [s]; sizes in [byte].

    Attributes
    ----------
    bottleneck_bps : float
        Shaper rate of r1-eth1 in section 1 [bit/s].
    udp_payload_bytes : int
        UDP payload of one datagram [byte].
    tcp_segment_bytes : int
        TCP segment as the capture shows it (two MSS with offload) [byte].
    tcp_options_bytes : int
        TCP options per segment (timestamps) [byte].
    mss_bytes : int
        Maximum segment size [byte].
    h1_udp_bps : float
        Application rate of h1's UDP flow [bit/s].
    h2_udp_bps : tuple of 3 float
        Application rate of h2's UDP flow in scenarios A1/B1, A2/B2, A3/B3 [bit/s].
    b_loss : tuple of 2 float
        Measured loss of h2's UDP flow in B2 and B3 [1].
    b_rtt_s : tuple of 2 float
        Measured TCP RTT in B2 and B3 [s].
    a_access_bps, c_access_bps, shared_bps, cd_exit_bps, ab_exit_bps : float
        Link rates of the congestion-collapse network of section 2 [bit/s].
    h3_delay_s : float
        Delay added on h3-eth0 in section 3.1 [s]; it is the RTT of a connection to
        h3 without queueing (Q29), the base RTT of scenarios D1-D3.
    d1_connections : tuple of 2 int
        Number of TCP connections of h1 and h2 in scenario D1.
    extra_delay_s : tuple of 2 float
        Extra delay Y in scenarios D2 and D3 [s].
    lab53_bottleneck_bps : tuple of 2 float
        Rates of the two bottlenecks of section 3.3 (router 1, router 2) [bit/s].
    lab53_one_way_delay_s : float
        One-way delay of the access links of section 3.3 [s].
    lab53_rtt_s : tuple of 3 float
        Measured average RTTs of 1to2, 1to3 and 2to3 [s].

    Examples
    --------
    >>> p = Params(bottleneck_bps=10e6)
    >>> p.bottleneck_bps, p.udp_payload_bytes
    (10000000.0, 1000)
    """

    # Section 1: h1, h2 -> r1 -> h3
    bottleneck_bps: float = 5e6
    udp_payload_bytes: int = 1000
    tcp_segment_bytes: int = 2896  # what the capture shows per segment (2 x 1448, offload)
    tcp_options_bytes: int = 12  # timestamps
    mss_bytes: int = 1448
    h1_udp_bps: float = 1e6
    h2_udp_bps: tuple[float, float, float] = (0.5e6, 4e6, 9e6)  # scenarios A1/B1, A2/B2, A3/B3
    # Q20: measured loss of h2's UDP flow and TCP RTT in B2 and B3 (inputs to the formula)
    b_loss: tuple[float, float] = (0.22, 0.52)
    b_rtt_s: tuple[float, float] = (0.060, 0.054)
    # Section 2: congestion collapse
    a_access_bps: float = 1e6
    c_access_bps: float = 10e6
    shared_bps: float = 1.5e6
    cd_exit_bps: float = 0.5e6
    ab_exit_bps: float = 10e6  # not stated in the handout; any value >= 1 Mbit/s gives the same answers
    # Section 3.1-3.2: delays and RTT fairness
    h3_delay_s: float = 0.300
    d1_connections: tuple[int, int] = (1, 3)
    extra_delay_s: tuple[float, float] = (0.500, 1.000)  # Y in D2, D3
    # Section 3.3: two bottlenecks
    lab53_bottleneck_bps: tuple[float, float] = (5e6, 5e6)  # router 1, router 2
    lab53_one_way_delay_s: float = 0.150
    # Q43: measured average RTTs (inputs to the queueing-delay inference of Q44)
    lab53_rtt_s: tuple[float, float, float] = (0.340, 0.370, 0.330)  # 1to2, 1to3, 2to3

    def udp_wire_factor(self, accounting: str = "wire") -> float:
        """Link bytes per byte of UDP payload in ``accounting`` [1]."""
        return 1.0 / _efficiency(self.udp_payload_bytes, "udp", 0, accounting, None)

    def tcp_efficiency(self, accounting: str = "wire") -> float:
        """Payload share of a TCP segment as the handout counts it [1].

        The wire accounting counts the captured 2896-byte segment as one frame (the
        handout's 2986 bytes); the shaper counts the real 1448-byte frames.
        """
        mss = self.mss_bytes if accounting == "tc" else None
        return _efficiency(self.tcp_segment_bytes, "tcp", self.tcp_options_bytes, accounting, mss)


@functools.lru_cache(maxsize=4096)
def _efficiency(payload_bytes, transport, tcp_options_bytes, accounting, mss_bytes) -> float:
    # the same few frame sizes are asked for again and again (every answer, every variant)
    from labcalc import framing

    return framing.efficiency(payload_bytes, transport, tcp_options_bytes=tcp_options_bytes,
                              accounting=accounting, mss_bytes=mss_bytes)



def with_params(**changes) -> Params:
    """The handout's parameters with some changed (a thin wrapper over ``replace``).

    Parameters
    ----------
    **changes
        Fields of :class:`Params` and their new values.

    Returns
    -------
    Params

    Examples
    --------
    >>> with_params(bottleneck_bps=10e6).bottleneck_bps
    10000000.0
    """
    return replace(Params(), **changes)




@functools.lru_cache(maxsize=1024)
def variant(seed: int) -> Params:
    """Scenario parameters of variant ``seed``: each student gets their own numbers.

    Parameters
    ----------
    seed : int
        0 .. 2**63 - 1. Seed 0 is the handout's own scenario; any other seed draws
        new parameters. The same seed always gives the same parameters (the draw
        uses :class:`random.Random`, whose integer stream Python keeps stable).

    Returns
    -------
    Params
        The answer key of the variant follows: ``answers(variant(seed))``.

    Notes
    -----
    The ranges keep every scenario of the handout meaningful:

    - bottleneck 2-10 Mbit/s; UDP payload 500-1400 bytes; TCP with or without the
      timestamp option (MSS 1448 or 1460), segments of two MSS as captured with
      offload;
    - h1 sends at 10-30 % of the bottleneck; with h2, the UDP load is at most 60 %
      of it in A1/B1 (so no loss and room for TCP), 100-115 % in A2 (just
      overloaded once headers count) and 160-250 % in A3;
    - B2/B3 loss 10-30 % and 40-60 %, RTTs 40-90 ms;
    - collapse network: access links A 0.6-2 Mbit/s, C 5-20 Mbit/s (at least four
      times the shared link), shared link 1-2.5 Mbit/s, exit link of C->D
      0.2-0.8 Mbit/s (narrower than the shared link), never exactly half of it;
    - added delay on h3 100-400 ms; 2-4 connections on h2 in D1; extra delay of h1
      200-600 ms (D2) and 800-1200 ms (D3);
    - two-router network: capacities 2-10 Mbit/s each, one-way delays 50-200 ms,
      queueing delays 5-60 ms per router in the measured RTTs.

    Rates are drawn on a 100 kbit/s grid and times on a millisecond grid, so that
    question texts show round numbers.

    Examples
    --------
    >>> variant(0) == Params()
    True
    >>> v = variant(7)
    >>> v == variant(7), v == variant(8)
    (True, False)
    >>> 2e6 <= v.bottleneck_bps <= 10e6
    True
    """
    import random

    seed = check_seed(seed)
    if seed == 0:
        return Params()
    rng = random.Random(seed)
    k = 100e3  # rate grid [bit/s]

    def rate_between(lo_bps, hi_bps):
        lo, hi = math.ceil(lo_bps / k - 1e-9), math.floor(hi_bps / k + 1e-9)
        return rng.randint(max(lo, 1), max(hi, lo, 1)) * k

    def ms_between(lo, hi, step=1):
        return rng.randrange(lo, hi + 1, step) / 1000

    cap = rng.choice([2, 3, 4, 5, 6, 8, 10]) * 1e6
    payload = rng.choice([500, 600, 800, 1000, 1200, 1400])
    options = rng.choice([0, 12])
    mss = 1460 - options
    h1 = rate_between(0.1 * cap, 0.3 * cap)
    h2_a1 = rate_between(0.05 * cap, 0.6 * cap - h1)
    h2_a2 = rate_between(1.0 * cap - h1, 1.15 * cap - h1)
    h2_a3 = rate_between(1.6 * cap - h1, 2.5 * cap - h1)
    loss = (rng.randint(10, 30) / 100, rng.randint(40, 60) / 100)
    rtts = (ms_between(40, 90), ms_between(40, 90))
    # neither A's access link nor C's exit link is ever exactly half the shared link:
    # a bound that ties with the even split makes the proportionally fair optimum
    # degenerate (two active constraints for one rate), which solvers handle badly
    shared = rng.choice([1.0, 1.5, 2.0, 2.5]) * 1e6
    a_access = rng.choice([0.6, 0.8, 1.2, 1.6, 2.0]) * 1e6
    cd_exit = rng.choice([0.2, 0.3, 0.4, 0.6, 0.7, 0.8]) * 1e6
    c_access = max(rng.choice([5, 8, 10, 20]) * 1e6, 4 * shared)
    one_way = ms_between(50, 200, 10)
    q1, q2 = ms_between(5, 60, 5), ms_between(5, 60, 5)
    base = 2 * one_way
    return Params(
        bottleneck_bps=cap,
        udp_payload_bytes=payload,
        tcp_segment_bytes=2 * mss,
        tcp_options_bytes=options,
        mss_bytes=mss,
        h1_udp_bps=h1,
        h2_udp_bps=(h2_a1, h2_a2, h2_a3),
        b_loss=loss,
        b_rtt_s=rtts,
        a_access_bps=a_access,
        c_access_bps=c_access,
        shared_bps=shared,
        cd_exit_bps=cd_exit,
        ab_exit_bps=10e6,
        h3_delay_s=ms_between(100, 400, 50),
        d1_connections=(1, rng.randint(2, 4)),
        extra_delay_s=(ms_between(200, 600, 100), ms_between(800, 1200, 100)),
        lab53_bottleneck_bps=(rng.choice([2, 3, 4, 5, 6, 8, 10]) * 1e6,
                              rng.choice([2, 3, 4, 5, 6, 8, 10]) * 1e6),
        lab53_one_way_delay_s=one_way,
        lab53_rtt_s=(round(base + q1, 6), round(base + q1 + q2, 6), round(base + q2, 6)),
    )
