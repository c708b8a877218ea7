"""Lab 5 of the TCP/IP networking course: congestion control, TCP and UDP in Mininet.

Every theory question of the handout is an :class:`Answer` whose value is computed
from the scenario parameters (:class:`Params`) through the library: framing for frame
sizes and goodputs, :func:`labcalc.openloop.fifo_split` for UDP without congestion
control, :mod:`labcalc.fairness` for the fair allocations, :mod:`labcalc.tcp` for the
loss-throughput formula and RTT shares, :mod:`labcalc.queueing` for the queueing delays.
No answer is typed in: change a parameter and every answer follows.

The handout's theory counts bytes on the wire (1066 bytes per 1000-byte datagram).
The Linux shaper that Mininet uses counts 1042 (Ethernet header + IP packet), which is
why the measured goodputs beat the theory; :func:`answers` with ``accounting="tc"``
gives the shaper's predictions, and :func:`shaper_vs_wire` puts both side by side.

Examples
--------
>>> df = answers()
>>> row = df[(df.question == "Q4")].iloc[0]
>>> round(row.value / 1e3), row.unit
(4690, 'bit/s')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

__all__ = [
    "Params",
    "Answer",
    "ANSWERS",
    "answers",
    "shaper_vs_wire",
    "network_lab51",
    "network_lab52",
    "network_lab53",
    "udp_split",
    "collapse",
]


@dataclass(frozen=True)
class Params:
    """The numbers the handout fixes (defaults) and the measured inputs some answers use.

    Rates are application data rates [bit/s] unless the name says otherwise; links are
    shaper rates [bit/s]; times in [s]; sizes in [byte].
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
        from labcalc import framing

        return 1.0 / framing.efficiency(self.udp_payload_bytes, "udp", accounting=accounting)

    def tcp_efficiency(self, accounting: str = "wire") -> float:
        """Payload share of a TCP segment as the handout counts it [1].

        The wire accounting counts the captured 2896-byte segment as one frame (the
        handout's 2986 bytes); the shaper counts the real 1448-byte frames.
        """
        from labcalc import framing

        mss = self.mss_bytes if accounting == "tc" else None
        return framing.efficiency(
            self.tcp_segment_bytes, "tcp", tcp_options_bytes=self.tcp_options_bytes,
            accounting=accounting, mss_bytes=mss,
        )


@dataclass(frozen=True)
class Answer:
    """One numeric answer of the handout.

    Attributes
    ----------
    question : str
        Handout question id, e.g. ``"Q13"``.
    item : str
        What is asked, in a few words (the scenario and the quantity).
    unit : str
        Base unit of the value: ``"bit/s"``, ``"byte"``, ``"s"`` or ``"1"``.
    compute : callable
        ``compute(params, accounting) -> float``.
    handout_rounding : float
        Relative tolerance that covers the handout's printed rounding.
    """

    question: str
    item: str
    unit: str
    compute: Callable[[Params, str], float] = field(repr=False)
    handout_rounding: float = 0.005


# --- building blocks ---------------------------------------------------------------


def network_lab51(p: Params, h2_udp_bps: float, with_tcp: bool = False, accounting: str = "wire"):
    """The Figure 1 network with UDP flows h1, h2 (and h2's TCP connection) [bit/s].

    UDP demands are link rates: application rate x bytes counted per payload byte.

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

    Examples
    --------
    >>> [round(float(r) / 1e6, 3) for r in collapse(Params()).rates]
    [0.136, 0.5]
    """
    from labcalc.openloop import fifo_split

    return fifo_split(network_lab52(p, "udp", accounting))


def _b1(p: Params, accounting: str):
    from labcalc.fairness import max_min

    return max_min(network_lab51(p, p.h2_udp_bps[0], with_tcp=True, accounting=accounting))


def _reno_b(p: Params, k: int) -> float:
    from labcalc.tcp import mathis_rate_bps

    return float(mathis_rate_bps(p.tcp_segment_bytes, p.b_rtt_s[k], p.b_loss[k]))


def _handout_loss(sent_bps: float, goodput_bps: float) -> float:
    # The handout defines this loss as (rate sent - goodput received) / rate sent, with
    # the sent rate in link bits: it mixes headers into the loss (87.2 % instead of the
    # 86.4 % of packets dropped). Kept as defined so that the answer matches Q22.
    return (sent_bps - goodput_bps) / sent_bps


def _d_shares(p: Params, k: int, accounting: str):
    from labcalc.tcp import rtt_shares

    capacity = p.bottleneck_bps * p.tcp_efficiency(accounting)
    rtts = [p.h3_delay_s + p.extra_delay_s[k], p.h3_delay_s]
    return rtt_shares(capacity, rtts)


def _lab53(p: Params, method: str, accounting: str):
    from labcalc import fairness

    net = network_lab53(p, accounting)
    return fairness.max_min(net) if method == "maxmin" else fairness.proportional(net)


def _queue_delays(p: Params):
    from labcalc.queueing import infer_queue_delays

    base = 2 * p.lab53_one_way_delay_s
    paths = {"1to2": ["router1"], "1to3": ["router1", "router2"], "2to3": ["router2"]}
    rtts = dict(zip(["1to2", "1to3", "2to3"], p.lab53_rtt_s))
    return infer_queue_delays(paths, rtts, {f: base for f in paths})


def _udp_goodput(k, host):
    def compute(p, acc):
        return float(udp_split(p, k, acc).goodputs[f"{host}_udp"])

    return compute


def _udp_loss(k, host):
    def compute(p, acc):
        return float(udp_split(p, k, acc).loss[f"{host}_udp"])

    return compute


def _answers() -> tuple[Answer, ...]:
    A = Answer
    out = [
        A("Q3", "bytes a 1000-byte UDP datagram takes on the link (Ethernet frame)", "byte",
          lambda p, acc: p.udp_payload_bytes * p.udp_wire_factor(acc)),
        A("Q4", "maximum UDP goodput through the 5 Mbit/s bottleneck", "bit/s",
          lambda p, acc: p.bottleneck_bps / p.udp_wire_factor(acc), 0.001),
        A("Q8", "bytes a 2896-byte TCP segment with timestamps takes on the link", "byte",
          lambda p, acc: p.tcp_segment_bytes / p.tcp_efficiency(acc)),
        A("Q9", "maximum TCP goodput through the 5 Mbit/s bottleneck", "bit/s",
          lambda p, acc: p.bottleneck_bps * p.tcp_efficiency(acc), 0.001),
    ]
    for k, name in enumerate(("A1", "A2", "A3")):
        out += [
            A("Q13", f"{name}: goodput of h1 (UDP)", "bit/s", _udp_goodput(k, "h1")),
            A("Q13", f"{name}: goodput of h2 (UDP)", "bit/s", _udp_goodput(k, "h2")),
            A("Q13", f"{name}: loss of h1", "1", _udp_loss(k, "h1"), 0.01),
            A("Q13", f"{name}: loss of h2", "1", _udp_loss(k, "h2"), 0.01),
        ]
    out += [
        A("Q17", "B1: UDP traffic on the bottleneck, headers included", "bit/s",
          lambda p, acc: float((p.h1_udp_bps + p.h2_udp_bps[0]) * p.udp_wire_factor(acc))),
        A("Q17", "B1: rate left for h2's TCP connection", "bit/s",
          lambda p, acc: float(_b1(p, acc).rates["h2_tcp"])),
        A("Q17", "B1: goodput of h2's TCP connection", "bit/s",
          lambda p, acc: float(_b1(p, acc).goodputs["h2_tcp"])),
        A("Q17", "B1: goodput of h1 (UDP)", "bit/s",
          lambda p, acc: float(_b1(p, acc).goodputs["h1_udp"])),
        A("Q17", "B1: goodput of h2 (UDP)", "bit/s",
          lambda p, acc: float(_b1(p, acc).goodputs["h2_udp"])),
        A("Q19", "constant c of the Reno loss-throughput formula, sqrt(3/2)", "1",
          lambda p, acc: math.sqrt(1.5), 0.005),
        A("Q20", "B2: Reno loss-throughput rate with the measured loss and RTT", "bit/s",
          lambda p, acc: _reno_b(p, 0), 0.001),
        A("Q20", "B3: Reno loss-throughput rate with the measured loss and RTT", "bit/s",
          lambda p, acc: _reno_b(p, 1), 0.001),
        A("Q21", "share of the traffic accepted at N1 (link N1-N2)", "1",
          lambda p, acc: float(collapse(p, acc).links.loc["N1-N2", "accepted"])),
        A("Q21", "rate of flow AB", "bit/s", lambda p, acc: float(collapse(p, acc).rates["AB"])),
        A("Q21", "rate of flow CD", "bit/s", lambda p, acc: float(collapse(p, acc).rates["CD"])),
        A("Q22", "goodput received by B", "bit/s",
          lambda p, acc: float(collapse(p, acc).goodputs["AB"])),
        A("Q22", "goodput received by D", "bit/s",
          lambda p, acc: float(collapse(p, acc).goodputs["CD"])),
        A("Q22", "loss of AB, (sent - goodput) / sent", "1",
          lambda p, acc: _handout_loss(p.a_access_bps, float(collapse(p, acc).goodputs["AB"])), 0.002),
        A("Q22", "loss of CD, (sent - goodput) / sent", "1",
          lambda p, acc: _handout_loss(p.c_access_bps, float(collapse(p, acc).goodputs["CD"])), 0.002),
    ]

    def fair52(method, what, flow):
        def compute(p, acc):
            from labcalc import fairness

            net = network_lab52(p, "udp", acc)
            alloc = fairness.max_min(net) if method == "maxmin" else fairness.proportional(net)
            return float(getattr(alloc, what)[flow])

        return compute

    out += [
        A("Q23", "max-min fair rate of A", "bit/s", fair52("maxmin", "rates", "AB")),
        A("Q23", "max-min fair rate of C", "bit/s", fair52("maxmin", "rates", "CD")),
        A("Q23", "max-min: goodput received by B", "bit/s", fair52("maxmin", "goodputs", "AB")),
        A("Q23", "max-min: goodput received by D", "bit/s", fair52("maxmin", "goodputs", "CD")),
        A("Q24", "proportionally fair rate of A", "bit/s", fair52("proportional", "rates", "AB")),
        A("Q24", "proportionally fair rate of C", "bit/s", fair52("proportional", "rates", "CD")),
    ]

    def tcp52(flow):
        def compute(p, acc):
            from labcalc import fairness

            return float(fairness.max_min(network_lab52(p, "tcp", acc)).goodputs[flow])

        return compute

    def d1(k):
        def compute(p, acc):
            from labcalc.tcp import rtt_shares

            rtt = p.h3_delay_s
            return float(rtt_shares(p.bottleneck_bps, [rtt, rtt], connections=list(p.d1_connections))[k])

        return compute

    def d23(k, host):
        return lambda p, acc: float(_d_shares(p, k, acc)[host])

    out += [
        A("Q27", "expected TCP goodput of h1 -> h4 (AB)", "bit/s", tcp52("AB")),
        A("Q27", "expected TCP goodput of h2 -> h3 (CD)", "bit/s", tcp52("CD")),
        A("Q29", "RTT h3 -> h1 with 300 ms added on h3-eth0", "s",
          lambda p, acc: p.h3_delay_s + 0.0),
        A("Q31", "D1: rate of h1's connection", "bit/s", d1(0)),
        A("Q31", "D1: aggregate rate of h2's three connections", "bit/s", d1(1)),
        A("Q35", "D2: goodput of h1", "bit/s", d23(0, 0), 0.01),
        A("Q35", "D2: goodput of h2", "bit/s", d23(0, 1), 0.01),
        A("Q35", "D3: goodput of h1", "bit/s", d23(1, 0), 0.01),
        A("Q35", "D3: goodput of h2", "bit/s", d23(1, 1), 0.01),
    ]

    def f53(method, flow):
        return lambda p, acc: float(_lab53(p, method, acc).rates[flow])

    out += [A("Q39", f"max-min fair rate of {f}", "bit/s", f53("maxmin", f)) for f in ("1to3", "1to2", "2to3")]
    out += [A("Q40", f"proportionally fair rate of {f}", "bit/s", f53("proportional", f))
            for f in ("1to3", "1to2", "2to3")]
    out += [
        A("Q41", "RTT of each connection without queueing", "s",
          lambda p, acc: 2 * p.lab53_one_way_delay_s),
        A("Q44", "queueing delay at router 2 (both directions)", "s",
          lambda p, acc: float(_queue_delays(p)["router2"]), 0.01),
        A("Q44", "queueing delay at router 1 (both directions)", "s",
          lambda p, acc: float(_queue_delays(p)["router1"]), 0.01),
    ]
    return tuple(out)


#: Every theory answer of the handout, in question order.
ANSWERS: tuple[Answer, ...] = _answers()


def answers(params: Params | None = None, accounting: str = "wire"):
    """Every theory answer of the handout, computed from the parameters.

    Parameters
    ----------
    params : Params, optional
        Scenario parameters; the handout's by default.
    accounting : {"wire", "tc", "frame", "ip"}, default "wire"
        How frames are counted against link capacities. ``"wire"`` reproduces the
        handout's theory; ``"tc"`` predicts what Mininet's Linux shaper measures.

    Returns
    -------
    pandas.DataFrame
        Columns ``question``, ``item``, ``value`` (float, base units), ``unit``
        (``"bit/s"``, ``"byte"``, ``"s"`` or ``"1"``; losses and ratios as fractions),
        ``rounding`` (relative tolerance of the handout's printed values).

    Examples
    --------
    >>> df = answers()
    >>> q13 = df[df.question == "Q13"]
    >>> [round(float(v) / 1e6, 3) for v in q13.value.iloc[4:6]]
    [0.938, 3.752]
    >>> tc = answers(accounting="tc")
    >>> round(float(tc[tc.question == "Q4"].value.iloc[0]) / 1e3, 1)
    4798.5
    """
    import pandas as pd

    from labcalc.framing import ACCOUNTINGS

    if accounting not in ACCOUNTINGS:
        raise ValueError(f"accounting must be one of {', '.join(ACCOUNTINGS)}; got {accounting!r}")
    p = Params() if params is None else params
    rows = [
        (a.question, a.item, float(a.compute(p, accounting)), a.unit, a.handout_rounding)
        for a in ANSWERS
    ]
    return pd.DataFrame(rows, columns=["question", "item", "value", "unit", "rounding"])


def shaper_vs_wire(params: Params | None = None):
    """The answers under the handout's wire accounting and under the Linux shaper's.

    Returns
    -------
    pandas.DataFrame
        Columns ``question``, ``item``, ``unit``, ``wire``, ``tc`` and ``ratio``
        (tc / wire), for the answers that depend on the accounting.

    Notes
    -----
    Mininet shapes r1-eth1 with a Linux qdisc that charges each packet its length
    from the Ethernet header to the end of the IP packet: 1042 bytes for a 1000-byte
    UDP datagram, 1514 for a 1448-byte TCP segment. The measured UDP goodput of Q7
    (4798 kbit/s) and TCP goodput of Q10 (4782 kbit/s) match 5e6 x 1000/1042 and
    5e6 x 1448/1514 to the kbit/s; the Q14 losses (3.6-4.1 % in A2, 51-52 % in A3) sit
    close to the shaper's 4.0 % and 52.0 %, not to the wire's 6.2 % and 53.1 %.

    Examples
    --------
    >>> df = shaper_vs_wire()
    >>> row = df[df.item.str.startswith("maximum TCP")].iloc[0]
    >>> round(row.wire / 1e3), round(row.tc / 1e3)
    (4849, 4782)
    """
    wire = answers(params, "wire")
    tc = answers(params, "tc")
    out = wire[["question", "item", "unit"]].copy()
    out["wire"] = wire["value"]
    out["tc"] = tc["value"]
    out["ratio"] = tc["value"] / wire["value"]
    differs = (out["wire"] - out["tc"]).abs() > 1e-9 * out["wire"].abs()
    return out[differs].reset_index(drop=True)


def with_params(**changes) -> Params:
    """The handout's parameters with some changed (a thin wrapper over ``replace``).

    Examples
    --------
    >>> with_params(bottleneck_bps=10e6).bottleneck_bps
    10000000.0
    """
    return replace(Params(), **changes)
