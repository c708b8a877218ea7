"""From a scenario or a Network to the plan of an ns-3 run (pure Python, no ns-3 needed).

A :class:`Plan` says which nodes and point-to-point links ns-3 builds, which flow is TCP
or UDP with which payload, rate, start and stop, and how many packets the run will
simulate. :func:`plan` checks every option a student can give and raises ``ValueError``
naming the option and its value; nothing here imports ns-3, so these checks run (and are
tested) everywhere.

Topology
--------
A :class:`~labcalc.network.Network` names unidirectional links and routes, not nodes. The
nodes are derived from the routes: the head of a link and the tail of the next link of any
route are one node. Every named link becomes one ns-3 point-to-point channel from its
tail to its head with the link's capacity and one-way delay, the link's queue on the
forward device, and a plain FIFO queue on the reverse device that carries the ACKs back.
A named link's queue is drop-tail unless the scenario (``queue = "red"``, see
:func:`labcalc.scenario.link_queues`) or ``queue_disc`` says otherwise; a RED queue is
Linux's, mapped by :mod:`labcalc.sim.red`. Each flow gets a sender node and a receiver
node of its own, joined to the first tail and the last head by private links ten times
faster than anything in the network (so they never bind); a flow's ``rtt_s`` above twice
its route's delay is added on its private receiver link, half in each direction. Routes
are static host routes, so packets follow exactly the route of the scenario.

A sending host's own interface
------------------------------
The private sender link stands for the path from a socket to its host's interface, and it
is ten times faster than that interface. ns-3 has no backpressure from a queue to the
socket: a TCP sender whose own interface is the slowest link (one flow over 1 Gbit/s
links, a host behind a 1 Mbit/s access link) overflows that interface's queue and loses
its own segments there. A Linux host does not: TCP small queues and the qdisc's
backpressure keep the segments the interface cannot take yet in the socket, and a segment
the local qdisc refuses is sent again later, not lost. A link the scenario marks
``queue = "host"`` (or ``queue_disc={link: "host"}``) is therefore a drop-tail queue with,
on top of its own size, room for the whole send buffer of every TCP flow that starts on it
(a send buffer of full segments each, :data:`HOST_ROOM_PACKETS` by default): those flows are never dropped there, they wait as they
would in their sockets. UDP senders get no such room (a UDP source offering more than its
own interface carries still loses the excess there). The waiting shows in the RTT, which
Linux's TCP would not see; the goodput is the same.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from labcalc import framing
from labcalc.network import Network
from labcalc.scenario import RedQueue
from labcalc.sim.limits import MAX_SEED, check_plan, short_repr
from labcalc.sim.red import red_attributes

__all__ = ["Plan", "PlanFlow", "PlanLink", "plan", "RedQueue", "tcp_type_id", "TCP_VARIANTS", "QUEUE_DISCS",
           "DEFAULT_QUEUE_PACKETS", "DEFAULT_UDP_PAYLOAD_BYTES", "SEGMENT_BYTES", "TCP_OPTIONS_BYTES",
           "PPP_HEADER_BYTES", "SOCKET_BUFFER_BYTES", "HOST_ROOM_PACKETS", "SimulationTooLong", "p2p_packet_bytes",
           "p2p_goodput_bps", "estimate_packets", "estimate_seconds", "PACKETS_PER_CPU_S", "ROUTE_FLOWS",
           "SETUP_S_PER_FLOW", "SETUP_S_PER_FLOW_PAIR", "MAX_INTERVALS", "MAX_SAMPLES", "MIN_STEADY_INTERVALS"]

#: ns-3's congestion-control classes (ns-3.44, ``src/internet/model``), by the name a student types.
TCP_VARIANTS = {
    "NewReno": "ns3::TcpNewReno",
    "LinuxReno": "ns3::TcpLinuxReno",
    "Cubic": "ns3::TcpCubic",
    "Bic": "ns3::TcpBic",
    "Vegas": "ns3::TcpVegas",
    "Veno": "ns3::TcpVeno",
    "WestwoodPlus": "ns3::TcpWestwoodPlus",
    "HighSpeed": "ns3::TcpHighSpeed",
    "Hybla": "ns3::TcpHybla",
    "Htcp": "ns3::TcpHtcp",
    "Scalable": "ns3::TcpScalable",
    "Yeah": "ns3::TcpYeah",
    "Illinois": "ns3::TcpIllinois",
    "Ledbat": "ns3::TcpLedbat",
    "Lp": "ns3::TcpLp",
    "Bbr": "ns3::TcpBbr",
}
_TCP_ALIASES = {"westwood": "WestwoodPlus", "reno": "NewReno", "hstcp": "HighSpeed"}

#: Queue disciplines of ns-3's traffic-control layer that a link may use.
QUEUE_DISCS = {
    "droptail": "ns3::FifoQueueDisc",
    "red": "ns3::RedQueueDisc",
    "codel": "ns3::CoDelQueueDisc",
    "fq_codel": "ns3::FqCoDelQueueDisc",
    "pie": "ns3::PieQueueDisc",
}
#: Not a discipline of its own: drop-tail on a sending host's interface (module notes).
HOST_QUEUE = "host"
_QUEUE_ALIASES = {"fifo": "droptail", "drop-tail": "droptail", "drop_tail": "droptail", "pfifo": "droptail",
                  "fq-codel": "fq_codel", "fqcodel": "fq_codel"}

#: Queue size of a link without ``buffer_packets`` [packets]: Linux's default txqueuelen,
#: which is also the netem limit Mininet's links get when no ``max_queue_size`` is given.
DEFAULT_QUEUE_PACKETS = 1000
#: UDP payload of a flow that names none [bytes]: the largest datagram that fits a 1500-byte MTU.
DEFAULT_UDP_PAYLOAD_BYTES = 1472
#: TCP segment size [bytes]: Linux's MSS on a 1500-byte MTU with the timestamp option.
SEGMENT_BYTES = 1448
#: TCP options ns-3 sends on every data segment [bytes]: the timestamp option (10 + 2 padding).
TCP_OPTIONS_BYTES = 12
#: Bytes a point-to-point link adds to every IP packet (ns-3's PppHeader: the protocol field).
PPP_HEADER_BYTES = 2
#: Private links are this many times faster than the fastest link or offered rate.
PRIVATE_SPEEDUP = 10.0
#: TCP send and receive buffer of every simulated socket [bytes] (``TcpSocket::SndBufSize``
#: and ``RcvBufSize``, set by :mod:`labcalc.sim._engine`): Linux's default ``tcp_rmem`` maximum.
SOCKET_BUFFER_BYTES = 6291456
#: Room a host's own interface keeps for each TCP flow that starts on it [packets]: a whole
#: send buffer of full segments, ceil(6291456 / 1448) (with ``socket_buffer_bytes``, its own).
HOST_ROOM_PACKETS = -(-SOCKET_BUFFER_BYTES // SEGMENT_BYTES)
#: Most goodput intervals one run keeps (a longer run gets longer intervals by default).
MAX_INTERVALS = 100_000
#: Most values one run keeps in its goodput trace (intervals x flows) and in its queue
#: trace (samples x links): 80 MB each at most.
MAX_SAMPLES = 10_000_000
#: Fewest whole goodput intervals a flow needs for its summary's window when ``warmup_s``
#: is not given: :func:`labcalc.measure.steady_window` (MSER) always keeps enough of 8.
MIN_STEADY_INTERVALS = 8


#: Packets of :func:`estimate_packets` (data, and ACKs counted as half a packet) ns-3 simulates per
#: second of one core with a few flows, measured here with ``benchmarks/bench_sim.py`` (CPU time:
#: 25-90 k for UDP, 25-50 k for TCP, with labcalc's compiled C++ part; cling's is up to 2x slower).
PACKETS_PER_CPU_S = 40_000
#: Every this many flows make each packet cost one packet more: the static host routes of a
#: router are searched one by one, two per flow through it (1000 TCP flows: 11x the cost of 10).
ROUTE_FLOWS = 90
#: Set-up of one flow before the first packet (nodes, links, routes, sockets, handshake) [s of CPU].
SETUP_S_PER_FLOW = 5e-4
#: The part of the set-up that grows with flows x flows [s of CPU per flow pair] (2000 flows: 1.1 s).
SETUP_S_PER_FLOW_PAIR = 2.75e-7


class SimulationTooLong(ValueError):
    """The run would take longer than allowed (the message gives the estimate in packets and time)."""


@dataclass(frozen=True)
class PlanLink:
    """One point-to-point channel of the run (a named link or a flow's private link)."""

    name: str
    tail: int
    head: int
    capacity_bps: float
    delay_s: float
    queue_packets: int
    queue_disc: str
    error_rate: float = 0.0
    private: bool = False
    red: RedQueue | None = None
    host: bool = False

    @property
    def queue_size(self) -> str:
        """The queue disc's ``MaxSize`` in ns-3's notation: ``"<n>p"``, or ``"<n>B"`` for RED."""
        return f"{self.red.limit_bytes}B" if self.red is not None else f"{self.queue_packets}p"

    @property
    def red_attributes(self) -> dict:
        """``ns3::RedQueueDisc`` attributes of a RED link (:func:`labcalc.sim.red.red_attributes`), else {}."""
        return red_attributes(self.red, self.capacity_bps) if self.red is not None else {}


@dataclass(frozen=True)
class PlanFlow:
    """One flow of the run."""

    name: str
    transport: str
    payload_bytes: int
    payload_rate_bps: float
    links: tuple
    sender: int
    receiver: int
    start_s: float
    stop_s: float
    tcp_type: str
    packet_bytes: int
    extra_delay_s: float


@dataclass
class Plan:
    """Everything ns-3 needs, checked: nodes, links (named first, then private), flows."""

    n_nodes: int
    links: list
    flows: list
    duration_s: float
    interval_s: float
    queue_interval_s: float
    warmup_s: dict
    segment_bytes: int
    seed: int
    estimated_packets: float
    estimated_s: float = math.nan
    udp_arrivals: str = "poisson"
    delayed_ack_count: int = 1
    sack: bool = True
    ts_rtt: bool = True
    linux_rto: bool = True
    ecn: bool = False
    socket_buffer_bytes: int = SOCKET_BUFFER_BYTES
    name: str = ""
    options: dict = field(default_factory=dict)


def p2p_packet_bytes(payload_bytes: int, transport: str = "udp", tcp_options_bytes: int | None = None) -> int:
    """Bytes an ns-3 point-to-point link counts for one datagram or segment [bytes].

    Parameters
    ----------
    payload_bytes : int
        Application payload of the packet [bytes].
    transport : {"udp", "tcp"}, default "udp"
        Transport header: UDP 8 bytes, TCP 20 bytes plus options.
    tcp_options_bytes : int, optional
        TCP options [bytes]; by default the 12 bytes of the timestamp option ns-3 sends.

    Returns
    -------
    int
        IPv4 packet + 2-byte PPP header, i.e. ``framing.frame(...).ip_bytes + 2``.

    Notes
    -----
    ns-3's ``PointToPointNetDevice`` serialises a frame as the IP packet plus a 2-byte PPP
    header, with no preamble, Ethernet header, FCS or gap. Compared with
    :mod:`labcalc.framing`: ``"ip"`` counts 2 bytes fewer, ``"tc"`` 12 bytes more (the
    Ethernet header), ``"wire"`` 36 bytes more (Ethernet header, FCS, preamble, gap).

    References
    ----------
    .. [1] ns-3 model library, "PointToPoint" (``PointToPointNetDevice::AddHeader``).

    Examples
    --------
    >>> p2p_packet_bytes(1000), p2p_packet_bytes(1448, "tcp")
    (1030, 1502)
    """
    if tcp_options_bytes is None:
        tcp_options_bytes = TCP_OPTIONS_BYTES if transport == "tcp" else 0
    return framing.frame(payload_bytes, transport, tcp_options_bytes=tcp_options_bytes).ip_bytes + PPP_HEADER_BYTES


def p2p_goodput_bps(capacity_bps: float, payload_bytes: int, transport: str = "udp",
                    tcp_options_bytes: int | None = None) -> float:
    """Largest goodput of a saturated ns-3 point-to-point link [bit/s].

    Parameters
    ----------
    capacity_bps : float
        ``DataRate`` of the link [bit/s].
    payload_bytes : int
        Payload per packet [bytes].
    transport : {"udp", "tcp"}, default "udp"
        Transport protocol.
    tcp_options_bytes : int, optional
        TCP options [bytes] (default 12 for TCP, as ns-3 sends timestamps).

    Returns
    -------
    float
        ``capacity_bps * payload / (IP packet + 2)`` [bit/s]: the theory of
        :func:`labcalc.framing.max_goodput_bps` in the accounting of the simulated link.

    Notes
    -----
    With 1000-byte UDP datagrams on 5 Mbit/s: 4854.4 kbit/s here, 4798.5 in the ``"tc"``
    accounting (Linux shaper, 1.2 % less) and 4690.4 in the ``"wire"`` accounting (3.4 %
    less). A simulated goodput is to be compared with this number, or the link
    capacity rescaled by the ratio of the accountings.

    References
    ----------
    .. [1] ns-3 model library, "PointToPoint".

    Examples
    --------
    >>> round(p2p_goodput_bps(5e6, 1000) / 1e3, 1)
    4854.4
    """
    return capacity_bps * payload_bytes / p2p_packet_bytes(payload_bytes, transport, tcp_options_bytes)


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]", "", str(name)).lower()


def tcp_type_id(name: str) -> str:
    """ns-3 TypeId of a TCP congestion control, from its name in any case.

    Parameters
    ----------
    name : str
        ``"NewReno"``, ``"cubic"``, ``"Westwood"``, ``"TcpVegas"``, ...

    Returns
    -------
    str
        E.g. ``"ns3::TcpCubic"``.

    Raises
    ------
    ValueError
        An unknown name; the message lists the known ones.

    Examples
    --------
    >>> tcp_type_id("cubic"), tcp_type_id("TcpNewReno"), tcp_type_id("westwood")
    ('ns3::TcpCubic', 'ns3::TcpNewReno', 'ns3::TcpWestwoodPlus')
    """
    if not isinstance(name, str):
        raise ValueError(f"tcp must be a variant name (str); got {name!r}")
    key = _key(name)
    if key.startswith("ns3::"):
        key = key[5:]
    if key.startswith("tcp") and key != "tcp":
        key = key[3:]
    key = _key(_TCP_ALIASES.get(key, key))
    for known, type_id in TCP_VARIANTS.items():
        if _key(known) == key:
            return type_id
    raise ValueError(f"tcp: unknown variant {name!r}; ns-3 has {', '.join(TCP_VARIANTS)}")


def _queue_disc(name, option: str = "queue_disc"):
    """A discipline name or a RedQueue -> (TypeId, RedQueue or None); "red" is Mininet's RED."""
    if isinstance(name, RedQueue):
        return QUEUE_DISCS["red"], name
    if not isinstance(name, str):
        raise ValueError(f"{option} must be a discipline name or a labcalc.scenario.RedQueue; got {name!r}")
    key = name.strip().lower()
    key = _QUEUE_ALIASES.get(key, key)
    if key == HOST_QUEUE:
        return QUEUE_DISCS["droptail"], None
    if key not in QUEUE_DISCS:
        raise ValueError(f"{option}: unknown discipline {name!r}; supported: {', '.join(QUEUE_DISCS)}, "
                         f"or {HOST_QUEUE!r} (a sending host's own interface)")
    return QUEUE_DISCS[key], (RedQueue() if key == "red" else None)


def _is_host(name) -> bool:
    return isinstance(name, str) and name.strip().lower() == HOST_QUEUE


def _queues(queue_disc, scenario_queues, lnames):
    """Each named link's (TypeId, RedQueue or None, host): the scenario's, unless ``queue_disc`` overrides.

    A link the scenario marks "host" stays a host's interface under an override to
    drop-tail (the override sets the discipline, not where the link is); another
    discipline replaces it."""
    own = {k: (scenario_queues or {}).get(k, "droptail") for k in lnames}
    if queue_disc is None:
        chosen = own
    elif isinstance(queue_disc, Mapping):
        unknown = [k for k in queue_disc if k not in lnames]
        if unknown:
            raise ValueError(f"queue_disc: unknown link {unknown[0]!r} (known: {', '.join(lnames)})")
        chosen = {k: queue_disc.get(k, own[k]) for k in lnames}
    else:
        chosen = {k: queue_disc for k in lnames}
    out = {}
    for k, v in chosen.items():
        type_id, red = _queue_disc(v, f"queue_disc[{k!r}]" if isinstance(queue_disc, Mapping) else "queue_disc")
        host = _is_host(v) or (_is_host(own[k]) and type_id == QUEUE_DISCS["droptail"])
        out[k] = (type_id, red, host)
    return out


def _per(name: str, value, keys, default, check):
    """A per-flow (or per-link) option: one value for all, or a mapping with some keys."""
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in keys]
        if unknown:
            raise ValueError(f"{name}: unknown name {unknown[0]!r} (known: {', '.join(keys)})")
        return {k: check(f"{name}[{k!r}]", value[k]) if k in value else default(k) for k in keys}
    if value is None:
        return {k: default(k) for k in keys}
    v = check(name, value)
    return {k: v for k in keys}


def _is_bool(value) -> bool:
    """True for Python's and numpy's booleans (``np.True_`` is neither a bool nor a number class)."""
    return isinstance(value, (bool, np.bool_))


def _flag(name, value, what="True or False") -> bool:
    if not _is_bool(value):
        raise ValueError(f"{name} must be {what}; got {short_repr(value)}")
    return bool(value)


def _number(name, value, lo=0.0, lo_open=False, hi=math.inf, hi_open=False):
    # numbers.Real: also numpy's scalars (a grid from np.linspace gives np.float64, np.float32 ...)
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number; got {short_repr(value)}")
    try:
        number = float(value)
    except OverflowError:       # an int beyond float's range: out of any range here
        number = math.inf if value > 0 else -math.inf
    if math.isnan(number):
        raise ValueError(f"{name} must be a number; got {short_repr(value)}")
    if number < lo or (lo_open and number == lo) or number > hi or (hi_open and number == hi):
        raise ValueError(f"{name} must be in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}; "
                         f"got {short_repr(value)}")
    return number


def _whole(name, value, lo=1):
    # numbers.Integral: also numpy's integers (a grid from np.arange gives np.int64)
    if _is_bool(value) or not isinstance(value, numbers.Integral) or value < lo:
        raise ValueError(f"{name} must be a whole number >= {lo}; got {short_repr(value)}")
    return int(value)


def _transport(name, value):
    if not isinstance(value, str) or value.lower() not in ("udp", "tcp"):
        raise ValueError(f"{name} must be 'udp' or 'tcp'; got {value!r}")
    return value.lower()


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else (f"{seconds / 60:.0f} min" if seconds < 7200
                                                       else f"{seconds / 3600:.0f} h")


def _check_window(name, start_s, stop_s, warmup_s, interval_s, duration_s) -> None:
    """Refuse a flow whose summary would have no window (a NaN goodput), with what to change."""
    n = int(duration_s / interval_s + 1e-9)     # intervals [i, i + 1) x interval_s, i = 0 .. n - 1
    first = max(0, math.floor(start_s / interval_s + 1e-9))          # the first that ends after the start
    last = min(n - 1, math.ceil(stop_s / interval_s - 1e-9) - 1)      # the last that begins before the stop
    active = max(0, last - first + 1)
    fix = "start it earlier, lengthen duration_s or shorten interval_s"
    if warmup_s is None:
        if active < MIN_STEADY_INTERVALS:
            raise ValueError(
                f"flow {name!r} (start_s {start_s:g}, stop_s {stop_s:g}) is active in {active} goodput interval(s) of "
                f"{interval_s:g} s; its summary's window (steady_state, as a measurement manifest picks one) needs "
                f"at least {MIN_STEADY_INTERVALS}: {fix}, or give warmup_s")
        return
    if start_s + warmup_s >= stop_s:
        raise ValueError(f"warmup_s[{name!r}] = {warmup_s!r} leaves nothing of flow {name!r}'s "
                         f"{stop_s - start_s:g} s to measure")
    lo = max(0, math.ceil((start_s + warmup_s) / interval_s - 1e-9))   # whole intervals after the warm-up
    hi = min(n - 1, math.floor(stop_s / interval_s + 1e-9) - 1)
    if hi < lo:
        raise ValueError(f"flow {name!r}: no whole goodput interval of {interval_s:g} s lies between the end of its "
                         f"warm-up ({start_s + warmup_s:g} s) and its stop ({stop_s:g} s), so its goodput would be "
                         f"NaN: {fix}, or give a shorter warmup_s")


def _check_host_link(name, host, fnames, network, queue_disc) -> None:
    """Refuse a "host" link that a flow crosses after another link: a host does not forward."""
    if not host:
        return
    for k in fnames:
        route = network.flows[k].route
        if name in route[1:]:
            if isinstance(queue_disc, str) or (isinstance(queue_disc, Mapping) and _is_host(queue_disc.get(name))):
                said = f"queue_disc = {queue_disc!r}" if isinstance(queue_disc, str) else f"queue_disc[{name!r}] = 'host'"
            else:
                said = f"the scenario's links.{name} queue = \"host\""
            step = ("mark the first link of the host's flows instead (queue_disc={link: 'host'})"
                    if not isinstance(queue_disc, str) else
                    "'host' names one kind of link, not a queue for every link: leave queue_disc out (a scenario "
                    "marks its hosts' links with queue = \"host\"), or in Python give "
                    "queue_disc={first link of a host: 'host'}")
            raise ValueError(f"{said} marks link {name!r} as a sending host's own interface, which carries only "
                             f"what that host sends; but flow {k!r} reaches it from link "
                             f"{route[route.index(name) - 1]!r}: {step}")


def _nodes(network: Network):
    """Union-find of link ends: node of the tail and of the head of every named link."""
    names = network.link_names
    parent = list(range(2 * len(names)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    index = {n: i for i, n in enumerate(names)}
    for fname in network.flow_names:
        route = network.flows[fname].route
        for a, b in zip(route, route[1:]):
            parent[find(2 * index[a] + 1)] = find(2 * index[b])
    roots = {}
    ends = []
    for i, n in enumerate(names):
        tail, head = find(2 * i), find(2 * i + 1)
        if tail == head:
            raise ValueError(f"link {n!r}: the routes make its head the same node as its tail (a loop); "
                             "ns-3 cannot build such a link")
        ends.append((roots.setdefault(tail, len(roots)), roots.setdefault(head, len(roots))))
    return ends, len(roots)


def estimate_packets(flows, links_by_name: Mapping[str, PlanLink]) -> float:
    """Packets the run will simulate, roughly [packets].

    Parameters
    ----------
    flows : list of PlanFlow
        The flows of a plan.
    links_by_name : mapping name -> PlanLink
        The named links of the plan.

    Returns
    -------
    float
        Sum over flows of rate x active time / packet size, with UDP at its offered rate
        and TCP at an equal share of the tightest link of its route; TCP packets count
        1.5 times (one ACK per two segments).

    Examples
    --------
    >>> link = PlanLink("l", 0, 1, 1e6, 0.0, 100, "ns3::FifoQueueDisc")
    >>> f = PlanFlow("a", "udp", 1000, 1e6, ("l",), 2, 3, 0.0, 10.0, "", 1030, 0.0)
    >>> round(estimate_packets([f], {"l": link}))
    1250
    """
    n_tcp = {}
    for f in flows:
        if f.transport == "tcp":
            for name in f.links:
                n_tcp[name] = n_tcp.get(name, 0) + 1
    total = 0.0
    for f in flows:
        active = f.stop_s - f.start_s
        if f.transport == "udp":
            total += f.payload_rate_bps * active / (8 * f.payload_bytes)
        else:
            rate = min(links_by_name[n].capacity_bps / n_tcp[n] for n in f.links)
            total += 1.5 * rate * active / (8 * f.packet_bytes)
    return total


def estimate_seconds(estimated_packets: float, n_flows: int) -> float:
    """Time one core takes to simulate a run, roughly [s] (CPU time; wall time on an idle machine).

    Parameters
    ----------
    estimated_packets : float
        :func:`estimate_packets` of the run [packets].
    n_flows : int
        Flows of the run.

    Returns
    -------
    float
        ``packets / PACKETS_PER_CPU_S * (1 + flows / ROUTE_FLOWS) + flows * SETUP_S_PER_FLOW
        + flows**2 * SETUP_S_PER_FLOW_PAIR`` [s].

    Notes
    -----
    Calibrated with ``benchmarks/bench_sim.py`` on this machine (2 cores): the rate holds
    within a factor of 2 for lab-size runs (UDP cheaper, long-RTT TCP dearer); a busy
    machine stretches the wall time, not the CPU time. Thousands of flows cost mostly
    set-up and route look-ups, which the packet count alone does not see.

    References
    ----------
    .. [1] ns-3.44, ``src/internet/model/ipv4-static-routing.cc`` (``LookupStatic`` walks
       the host routes in order).

    Examples
    --------
    >>> round(estimate_seconds(40_000, 2), 2)
    1.02
    >>> round(estimate_seconds(6_000, 3000), 1)    # 3000 flows, 0.5 s: set-up and routes dominate
    9.1
    """
    return (estimated_packets / PACKETS_PER_CPU_S * (1 + n_flows / ROUTE_FLOWS) + n_flows * SETUP_S_PER_FLOW
            + n_flows**2 * SETUP_S_PER_FLOW_PAIR)


def plan(network: Network, *, scenario_flows: Mapping | None = None, duration_s: float = 30.0, seed: int = 1,
         tcp="NewReno", transport=None, offered_bps=None, payload_bytes=None, queue_packets=None,
         queue_disc=None, error_rate=0.0, start_s=None, stop_s=None, interval_s=None, warmup_s=None,
         udp_arrivals: str = "poisson", delayed_ack_count: int = 1, max_packets: float = 5_000_000,
         sack: bool = True, ts_rtt: bool = True, ecn: bool = False, socket_buffer_bytes: int = SOCKET_BUFFER_BYTES,
         linux_rto: bool | None = None,
         scenario_queues: Mapping | None = None) -> Plan:
    """Check every option of :func:`labcalc.sim.simulate` and build the plan of the run.

    Parameters
    ----------
    network : labcalc.network.Network
        Links (capacity [bit/s], delay [s], buffer [packets]) and flows (route, demand
        [bit/s], RTT [s], efficiency).
    scenario_flows : mapping flow -> table, optional
        The flow tables of a scenario file (:func:`labcalc.scenario.flow_tables`), which
        give each flow's transport and payload when the keyword options do not.
    duration_s, seed, tcp, transport, offered_bps, payload_bytes, queue_packets, queue_disc, error_rate, start_s, stop_s, interval_s, warmup_s, udp_arrivals, delayed_ack_count, max_packets, sack, ts_rtt, ecn, socket_buffer_bytes, linux_rto
        As in :func:`labcalc.sim.simulate`.
    scenario_queues : mapping link -> "droptail", "host" or RedQueue, optional
        How the scenario file says each link queues (:func:`labcalc.scenario.link_queues`);
        links it does not name, and all links of a bare Network, are drop-tail. A "host"
        link (a sending host's own interface, also ``queue_disc={link: "host"}``) gets
        :data:`HOST_ROOM_PACKETS` more room per TCP flow that starts on it (module notes).

    Returns
    -------
    Plan

    Raises
    ------
    ValueError
        An option out of range or naming an unknown flow or link (the message names
        both); :class:`SimulationTooLong` above ``max_packets``.

    Examples
    --------
    >>> net = Network({"l": 5e6}, {"a": ["l"], "b": ["l"]})
    >>> p = plan(net, transport={"a": "udp"}, offered_bps={"a": 1e6}, duration_s=10)
    >>> [(f.name, f.transport, f.payload_bytes) for f in p.flows]
    [('a', 'udp', 1472), ('b', 'tcp', 1448)]
    """
    # Long because it checks every option of simulate in one place, each with its own message
    if not isinstance(network, Network):
        raise ValueError(f"scenario must be a scenario file or a labcalc.network.Network; got {network!r}")
    sack = _flag("sack", sack)
    ts_rtt = _flag("ts_rtt", ts_rtt)
    linux_rto = ts_rtt if linux_rto is None else _flag("linux_rto", linux_rto, "True, False or None")
    if linux_rto and not ts_rtt:
        raise ValueError("linux_rto=True needs ts_rtt=True (both are labcalc's Linux-like socket); "
                         "leave linux_rto out with ts_rtt=False for ns-3's own RTT estimation and RTO")
    socket_buffer_bytes = _whole("socket_buffer_bytes", socket_buffer_bytes, 2 * SEGMENT_BYTES)
    if socket_buffer_bytes > 2**30:   # RFC 7323's largest window (scale 14)
        raise ValueError(f"socket_buffer_bytes must be at most 2**30 (TCP's largest window); "
                         f"got {short_repr(socket_buffer_bytes)}")
    ecn = _flag("ecn", ecn)
    duration_s = _number("duration_s", duration_s, 0.0, lo_open=True, hi=1e6)
    if _is_bool(seed) or not isinstance(seed, numbers.Integral) or not 1 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a whole number in 1 .. {MAX_SEED} (ns-3's RngSeedManager refuses larger "
                         f"ones); got {short_repr(seed)}")
    seed = int(seed)
    max_packets = _number("max_packets", max_packets, 0.0, lo_open=True)
    fnames, lnames = list(network.flow_names), list(network.link_names)
    if not fnames:
        raise ValueError("scenario: the network has no flow to simulate")
    table = {n: dict(scenario_flows.get(n, {})) if scenario_flows else {} for n in fnames}
    offered = _per("offered_bps", offered_bps, fnames, lambda k: None,
                   lambda n, v: _number(n, v, 0.0, lo_open=True, hi=1e15))
    trans = _per("transport", transport, fnames,
                 lambda k: _transport(f"flows.{k}.transport", table[k]["transport"]) if "transport" in table[k]
                 else ("udp" if offered[k] is not None else "tcp"), _transport)
    for k in fnames:
        if offered[k] is not None and trans[k] == "tcp":
            raise ValueError(f"offered_bps[{k!r}]: flow {k!r} is TCP, which sends as fast as it can; "
                             "an offered rate applies to UDP flows only")
    payload = _per("payload_bytes", payload_bytes, fnames,
                   lambda k: (SEGMENT_BYTES if trans[k] == "tcp" else
                              _whole(f"flows.{k}.payload_bytes", table[k].get("payload_bytes", DEFAULT_UDP_PAYLOAD_BYTES))),
                   lambda n, v: _whole(n, v, 1))
    for k in fnames:
        if trans[k] == "tcp":
            payload[k] = SEGMENT_BYTES  # every TCP segment is one MSS; payload_bytes is for UDP
        elif payload[k] > 65507:
            raise ValueError(f"payload_bytes[{k!r}] must be at most 65507 for UDP; got {short_repr(payload[k])}")
    tcps = _per("tcp", tcp, fnames, lambda k: "ns3::TcpNewReno", lambda n, v: tcp_type_id(v))
    qdiscs = _queues(queue_disc, scenario_queues, lnames)
    if udp_arrivals not in ("poisson", "periodic"):
        raise ValueError(f"udp_arrivals must be 'poisson' or 'periodic'; got {udp_arrivals!r}")
    delayed_ack_count = _whole("delayed_ack_count", delayed_ack_count, 1)
    buffers = _per("queue_packets", queue_packets, lnames,
                   lambda k: network.links[k].buffer_packets, lambda n, v: _whole(n, v, 1))
    for k, v in buffers.items():
        if v is not None and v < 1:     # a Network's link may say 0 (no buffer): ns-3's queues hold >= 1
            raise ValueError(f"links.{k}.buffer_packets = {v!r}: an ns-3 queue holds at least 1 packet (and its "
                             f"device one more); give buffer_packets >= 1, or pass queue_packets={{{k!r}: 1}}")
    buffers = {k: DEFAULT_QUEUE_PACKETS if v is None else int(v) for k, v in buffers.items()}
    caps = dict(zip(lnames, network.capacities_bps.tolist()))
    delays = dict(zip(lnames, network.delays_s.tolist()))
    if isinstance(error_rate, Mapping):
        errors = _per("error_rate", error_rate, lnames, lambda k: 0.0,
                      lambda n, v: _number(n, v, 0.0, hi=1.0, hi_open=True))
    else:
        p = _number("error_rate", error_rate, 0.0, hi=1.0, hi_open=True)
        used = [n for n in lnames if any(n in network.flows[f].route for f in fnames)]
        bottleneck = min(used, key=lambda n: caps[n])
        errors = {k: (p if k == bottleneck else 0.0) for k in lnames}
    starts = _per("start_s", start_s, fnames, lambda k: 0.0, lambda n, v: _number(n, v, 0.0, hi=duration_s))
    stops = _per("stop_s", stop_s, fnames, lambda k: duration_s, lambda n, v: _number(n, v, 0.0, hi=duration_s))
    for k in fnames:
        if not starts[k] < stops[k]:
            raise ValueError(f"start_s[{k!r}] = {starts[k]!r} must be before stop_s[{k!r}] = {stops[k]!r}")
    # the traces are bounded: at most MAX_INTERVALS goodput intervals and MAX_SAMPLES values
    # of each of the goodput and queue traces (a long run gets longer intervals by default)
    bound = max(duration_s / MAX_INTERVALS, duration_s * len(fnames) / MAX_SAMPLES)
    if interval_s is None:
        interval_s = max(1.0 if duration_s >= 20 else duration_s / 20, bound)
    interval_s = _number("interval_s", interval_s, 0.0, lo_open=True, hi=duration_s)
    if interval_s < bound * (1 - 1e-9):
        raise ValueError(f"interval_s = {interval_s!r} gives {duration_s / interval_s:,.0f} goodput intervals for "
                         f"{len(fnames)} flow(s) in {duration_s:g} s; labcalc keeps at most {MAX_INTERVALS:,} "
                         f"intervals and {MAX_SAMPLES:,} values: use interval_s >= {bound:.6g}")
    queue_interval_s = max(interval_s / 10, duration_s / MAX_INTERVALS, duration_s * len(lnames) / MAX_SAMPLES)
    warm = _per("warmup_s", warmup_s, fnames, lambda k: None, lambda n, v: _number(n, v, 0.0, hi=duration_s))
    for k in fnames:
        _check_window(k, starts[k], stops[k], warm[k], interval_s, duration_s)

    ends, n_nodes = _nodes(network)
    rates = {}
    for k in fnames:
        flow = network.flows[k]
        if trans[k] == "udp":
            rate = offered[k] if offered[k] is not None else flow.demand_bps
            if not math.isfinite(rate):
                rate = caps[flow.route[0]]
            rates[k] = rate * flow.efficiency
        else:
            rates[k] = 0.0
    for k in lnames:
        _check_host_link(k, qdiscs[k][2], fnames, network, queue_disc)
    fastest = max(max(caps.values()), max(rates.values()))
    private_bps = PRIVATE_SPEEDUP * fastest
    # a host's own interface keeps room for the send buffer of each TCP flow that starts on it
    starting_tcp = {k: sum(trans[f] == "tcp" and network.flows[f].route[0] == k for f in fnames) for k in lnames}
    room = -(-socket_buffer_bytes // SEGMENT_BYTES)
    links = [PlanLink(n, ends[i][0], ends[i][1], caps[n], delays[n],
                      buffers[n] + (room * starting_tcp[n] if qdiscs[n][2] else 0), qdiscs[n][0],
                      errors[n], red=qdiscs[n][1], host=qdiscs[n][2]) for i, n in enumerate(lnames)]
    flows = []
    for k in fnames:
        flow = network.flows[k]
        sender, receiver = n_nodes, n_nodes + 1
        n_nodes += 2
        base_rtt = 2 * sum(delays[n] for n in flow.route)
        extra = 0.0
        if flow.rtt_s is not None:
            if flow.rtt_s < base_rtt - 1e-12:
                raise ValueError(f"flows.{k}.rtt_s = {flow.rtt_s!r} is below twice the delay of its route "
                                 f"({base_rtt!r} s); lower the link delays or raise the RTT")
            extra = (flow.rtt_s - base_rtt) / 2
        first = lnames.index(flow.route[0])
        last = lnames.index(flow.route[-1])
        links.append(PlanLink(f"{k}:sender", sender, ends[first][0], private_bps, 0.0, DEFAULT_QUEUE_PACKETS,
                              QUEUE_DISCS["droptail"], private=True))
        links.append(PlanLink(f"{k}:receiver", ends[last][1], receiver, private_bps, extra, DEFAULT_QUEUE_PACKETS,
                              QUEUE_DISCS["droptail"], private=True))
        packet = p2p_packet_bytes(payload[k], trans[k])
        flows.append(PlanFlow(k, trans[k], int(payload[k]), rates[k], tuple(flow.route), sender, receiver,
                              starts[k], stops[k], tcps[k] if trans[k] == "tcp" else "", packet, extra))
    estimate = estimate_packets(flows, {link.name: link for link in links})
    seconds = estimate_seconds(estimate, len(flows))
    result = Plan(n_nodes=n_nodes, links=links, flows=flows, duration_s=duration_s, interval_s=interval_s,
                  queue_interval_s=queue_interval_s, warmup_s=warm, segment_bytes=SEGMENT_BYTES, seed=seed,
                  estimated_packets=estimate, estimated_s=seconds, udp_arrivals=udp_arrivals,
                  delayed_ack_count=delayed_ack_count, sack=sack, ts_rtt=ts_rtt, ecn=ecn,
                  socket_buffer_bytes=socket_buffer_bytes, linux_rto=linux_rto, name=network.name)
    check_plan(result)     # ns-3's own limits (labcalc.sim.limits), before anything reaches ns-3
    work = seconds * PACKETS_PER_CPU_S      # packets, with set-up and route look-ups counted as packets
    if work > max_packets:
        extra = "" if work <= 1.05 * estimate else f" (and the set-up and routes of {len(flows)} flows)"
        set_up = len(flows) * SETUP_S_PER_FLOW + len(flows) ** 2 * SETUP_S_PER_FLOW_PAIR
        shorter = (f"simulate fewer flows (their set-up alone is above it)" if set_up * PACKETS_PER_CPU_S > max_packets
                   else f"shorten duration_s (now {duration_s:g} s)")
        raise SimulationTooLong(
            f"this run would simulate about {estimate:,.0f} packets{extra}: about {_duration(seconds)} of one core "
            f"at the ~{PACKETS_PER_CPU_S:,} packets per second measured here, above max_packets = "
            f"{max_packets:,.0f} (about {_duration(max_packets / PACKETS_PER_CPU_S)}); {shorter} or pass "
            f"max_packets={math.ceil(work * 1.2):d} to allow it")
    return result
