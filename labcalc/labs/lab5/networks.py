"""Lab 5's networks (Figures 1-3) and the computations its answers share.

Each computation (:class:`labcalc.labs._framework.Computation`) builds a network from the
parameters and solves it; the results solved for many variants together are kept in
:data:`STORE`, which the lab object owns (see :meth:`labcalc.labs._framework.Lab.precompute`).

Examples
--------
>>> from labcalc.labs.lab5.params import Params
>>> network_lab53(Params()).flow_names
['1to3', '1to2', '2to3']
"""

from __future__ import annotations

import functools

from labcalc.labs._framework import Computation, SolveStore
from labcalc.labs.lab5.params import Params

__all__ = ["network_lab51", "network_lab52", "network_lab53", "udp_split", "collapse", "STORE",
           "solve_udp_split", "solve_collapse", "solve_b1", "solve_fair52", "solve_lab53",
           "reno_rate_bps", "handout_loss", "d_shares", "d1_shares", "queue_delays"]


def network_lab51(p: Params, h2_udp_bps: float, with_tcp: bool = False, accounting: str = "wire"):
    """The Figure 1 network with UDP flows h1, h2 (and h2's TCP connection) [bit/s].

    UDP demands are link rates: application rate x bytes counted per payload byte.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    h2_udp_bps : float
        Application rate of h2's UDP flow [bit/s].
    with_tcp : bool, default False
        Add h2's TCP connection (flow ``"h2_tcp"``, no demand: it takes what it gets).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.network.Network
        Links ``h1-eth0``, ``h2-eth0`` (1 Gbit/s) and ``r1-eth1`` (the bottleneck);
        flows ``h1_udp``, ``h2_udp`` (and ``h2_tcp``).

    Examples
    --------
    >>> net = network_lab51(Params(), 4e6)
    >>> [round(float(d) / 1e6, 3) for d in net.demands_bps]
    [1.066, 4.264]
    """
    from labcalc.network import Flow, Network

    factor = p.udp_wire_factor(accounting)
    eff_udp = 1.0 / factor
    flows = {
        "h1_udp": Flow(["h1-eth0", "r1-eth1"], demand_bps=p.h1_udp_bps * factor, efficiency=eff_udp),
        "h2_udp": Flow(["h2-eth0", "r1-eth1"], demand_bps=h2_udp_bps * factor, efficiency=eff_udp),
    }
    if with_tcp:
        flows["h2_tcp"] = Flow(["h2-eth0", "r1-eth1"], efficiency=p.tcp_efficiency(accounting))
    links = {"h1-eth0": 1e9, "h2-eth0": 1e9, "r1-eth1": p.bottleneck_bps}
    return Network(links, flows, name="lab51")


def network_lab52(p: Params, transport: str = "udp", accounting: str = "wire"):
    """The Figure 2 network (congestion collapse): flows AB and CD over five links.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    transport : {"udp", "tcp"}, default "udp"
        Transport of both flows; sets their efficiency (payload share of the frames).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.network.Network
        Links ``A-N1``, ``C-N1``, ``N1-N2``, ``N2-D``, ``N2-B``; flows ``AB`` and ``CD``
        without demands.

    Examples
    --------
    >>> network_lab52(Params()).link_names
    ['A-N1', 'C-N1', 'N1-N2', 'N2-D', 'N2-B']
    """
    from labcalc.network import Flow, Network

    eff = 1.0 / p.udp_wire_factor(accounting) if transport == "udp" else p.tcp_efficiency(accounting)
    links = {
        "A-N1": p.a_access_bps,
        "C-N1": p.c_access_bps,
        "N1-N2": p.shared_bps,
        "N2-D": p.cd_exit_bps,
        "N2-B": p.ab_exit_bps,
    }
    flows = {
        "AB": Flow(["A-N1", "N1-N2", "N2-B"], efficiency=eff),
        "CD": Flow(["C-N1", "N1-N2", "N2-D"], efficiency=eff),
    }
    return Network(links, flows, name="lab52")


def network_lab53(p: Params, accounting: str = "wire"):
    """The Figure 3 network: 1to3 crosses both 5 Mbit/s bottlenecks.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.network.Network
        Flows ``1to3``, ``1to2`` and ``2to3`` (TCP, with their RTTs [s]) over the two
        bottlenecks ``r1-eth1`` and ``r2-eth2``.

    Examples
    --------
    >>> network_lab53(Params()).flow_names
    ['1to3', '1to2', '2to3']
    """
    from labcalc.network import Flow, Link, Network

    rtt = 2 * p.lab53_one_way_delay_s
    eff = p.tcp_efficiency(accounting)
    links = {
        "h1-eth0": Link(1e9, delay_s=p.lab53_one_way_delay_s),
        "h2-eth0": Link(1e9, delay_s=p.lab53_one_way_delay_s),
        "r1-eth1": p.lab53_bottleneck_bps[0],
        "r2-eth2": p.lab53_bottleneck_bps[1],
    }
    flows = {
        "1to3": Flow(["h1-eth0", "r1-eth1", "r2-eth2"], rtt_s=rtt, efficiency=eff),
        "1to2": Flow(["h1-eth0", "r1-eth1"], rtt_s=rtt, efficiency=eff),
        "2to3": Flow(["h2-eth0", "r2-eth2"], rtt_s=rtt, efficiency=eff),
    }
    return Network(links, flows, name="lab53")


def udp_split(p: Params, scenario: int, accounting: str = "wire"):
    """Scenario A1/A2/A3 (``scenario`` = 0, 1, 2) through the drop-tail bottleneck.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    scenario : {0, 1, 2}
        Index into ``p.h2_udp_bps``: scenario A1, A2 or A3.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.openloop.FifoResult
        Rates, goodputs and losses of the UDP flows ``h1_udp`` and ``h2_udp`` [bit/s].

    Examples
    --------
    >>> res = udp_split(Params(), 1)
    >>> [round(float(g) / 1e6, 3) for g in res.goodputs]
    [0.938, 3.752]
    """
    from labcalc.openloop import fifo_split

    return fifo_split(network_lab51(p, p.h2_udp_bps[scenario], accounting=accounting))


def collapse(p: Params, accounting: str = "wire"):
    """Section 2 without congestion control: A and C send at their access rates.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.openloop.FifoResult
        Rates, goodputs and losses of flows ``AB`` and ``CD`` [bit/s].

    Examples
    --------
    >>> [round(float(r) / 1e6, 3) for r in collapse(Params()).rates]
    [0.136, 0.5]
    """
    from labcalc.openloop import fifo_split

    return fifo_split(network_lab52(p, "udp", accounting))


#: Results of lab 5's computations solved together for many variants (owned by ``LAB``).
STORE = SolveStore()


def _fifo(net, *args):
    from labcalc.openloop import fifo_split

    return fifo_split(net)


def _fair(net, method, *args):
    from labcalc import fairness

    return fairness.max_min(net) if method == "maxmin" else fairness.proportional(net)


solve_udp_split = Computation(
    "udp_split", lambda p, k, acc: network_lab51(p, p.h2_udp_bps[k], accounting=acc), _fifo, STORE)
solve_collapse = Computation("collapse", lambda p, acc: network_lab52(p, "udp", acc), _fifo, STORE)
solve_b1 = Computation(
    "b1", lambda p, acc: network_lab51(p, p.h2_udp_bps[0], with_tcp=True, accounting=acc),
    lambda net, acc: _fair(net, "maxmin"), STORE)
solve_fair52 = Computation(
    "fair52", lambda p, method, transport, acc: network_lab52(p, transport, acc), _fair, STORE)
solve_lab53 = Computation("lab53", lambda p, method, acc: network_lab53(p, acc), _fair, STORE)



def reno_rate_bps(p: Params, k: int) -> float:
    from labcalc.tcp import mathis_rate_bps

    return float(mathis_rate_bps(p.tcp_segment_bytes, p.b_rtt_s[k], p.b_loss[k]))


def handout_loss(sent_bps: float, goodput_bps: float) -> float:
    # The handout defines this loss as (rate sent - goodput received) / rate sent, with
    # the sent rate in link bits: it mixes headers into the loss (87.2 % instead of the
    # 86.4 % of packets dropped). Kept as defined so that the answer matches Q22.
    return (sent_bps - goodput_bps) / sent_bps


@functools.lru_cache(maxsize=4096)
def d_shares(p: Params, k: int, accounting: str):
    from labcalc.tcp import rtt_shares

    capacity = p.bottleneck_bps * p.tcp_efficiency(accounting)
    rtts = [p.h3_delay_s + p.extra_delay_s[k], p.h3_delay_s]
    return rtt_shares(capacity, rtts)


@functools.lru_cache(maxsize=4096)
def d1_shares(p: Params):
    from labcalc.tcp import rtt_shares

    rtt = p.h3_delay_s
    return rtt_shares(p.bottleneck_bps, [rtt, rtt], connections=list(p.d1_connections))


@functools.lru_cache(maxsize=4096)
def queue_delays(p: Params):
    from labcalc.queueing import infer_queue_delays

    base = 2 * p.lab53_one_way_delay_s
    paths = {"1to2": ["router1"], "1to3": ["router1", "router2"], "2to3": ["router2"]}
    rtts = dict(zip(["1to2", "1to3", "2to3"], p.lab53_rtt_s))
    return infer_queue_delays(paths, rtts, {f: base for f in paths})
