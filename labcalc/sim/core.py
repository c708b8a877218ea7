"""``simulate``: a scenario or Network run in ns-3, results in labcalc's measurement columns."""

from __future__ import annotations

import os
from pathlib import Path

from labcalc.network import Network
from labcalc.sim.limits import timeout_seconds
from labcalc.sim.planning import DEFAULT_QUEUE_PACKETS, PPP_HEADER_BYTES, SEGMENT_BYTES, plan

__all__ = ["simulate", "prepare", "ACCOUNTING"]

#: What the simulated links count, in words (also in ``SimResult.attrs["accounting"]``).
ACCOUNTING = (f"ns-3 point-to-point: each packet takes IP packet + {PPP_HEADER_BYTES}-byte PPP header of link "
              "time (labcalc.sim.p2p_packet_bytes); goodput counts application payload at the receiver")


def _queue_label(link) -> str:
    if link.red is not None:
        r = link.red
        return (f"red min {r.min_bytes} max {r.max_bytes} limit {r.limit_bytes} avpkt {r.avpkt_bytes} "
                f"burst {r.burst_packets} probability {r.probability:g}{' ecn' if r.ecn else ''}")
    kind = link.queue_disc.replace("ns3::", "").replace("QueueDisc", "").lower()
    return f"{'droptail' if kind == 'fifo' else kind} {link.queue_packets} packets"


def simulate(scenario, *, variant: str | None = None, duration_s: float = 30.0, seed: int = 1, tcp="NewReno",
             queue_packets=None, error_rate=0.0, max_packets: float = 5_000_000, transport=None, offered_bps=None,
             payload_bytes=None, queue_disc=None, start_s=None, stop_s=None, interval_s=None,
             warmup_s=None, udp_arrivals: str = "poisson", delayed_ack_count: int = 1, sack: bool = True,
             ts_rtt: bool = True, ecn: bool = False, socket_buffer_bytes: int = 6291456, linux_rto=None,
             timeout_s: float | None = None):
    """Simulate a lab network in ns-3 and return what the measurement readers would give.

    Parameters
    ----------
    scenario : str, path-like or labcalc.network.Network
        A scenario TOML file (see :mod:`labcalc.scenario`), whose flows say ``transport``
        (``"udp"`` / ``"tcp"``) and ``payload_bytes``; or a Network, whose flows are TCP
        unless ``transport`` or ``offered_bps`` says otherwise.
    variant : str, optional
        A ``[variants.NAME]`` of the scenario file.
    duration_s : float, default 30
        Simulated time [s], > 0.
    seed : int, default 1
        Seed of ns-3's random numbers (``RngSeedManager::SetSeed``; run number 1), in
        1 .. 4294944442 (:data:`labcalc.sim.limits.MAX_SEED`: ns-3 seeds all six
        components of its MRG32k3a generator with it, and the last three must stay below
        4294944443). Same seed, same result, also within one process.
    tcp : str or mapping flow -> str, default "NewReno"
        Congestion control of the TCP flows, any case: NewReno, LinuxReno, Cubic, Bic,
        Vegas, Veno, WestwoodPlus (or Westwood), HighSpeed, Hybla, Htcp, Scalable, Yeah,
        Illinois, Ledbat, Lp, Bbr (:data:`labcalc.sim.TCP_VARIANTS`).
    queue_packets : int or mapping link -> int, optional
        Size [packets] of the drop-tail (and CoDel, PIE) queues, replacing the links'
        ``buffer_packets``; a link with neither gets
        :data:`~labcalc.sim.planning.DEFAULT_QUEUE_PACKETS` (1000, Linux's txqueuelen). A
        RED queue's limit is its ``limit_bytes``.
    error_rate : float or mapping link -> float, default 0
        Random packet loss [fraction] in [0, 1) (``RateErrorModel``, packet unit) on the
        receive side of the bottleneck (the used link of least capacity, the first in
        link order on a tie), or on the links named; data packets only.
    max_packets : float, default 5e6
        Refuse runs estimated to cost more than this many packets [packets]
        (:func:`~labcalc.sim.planning.estimate_packets`, with the set-up and route look-ups
        of many flows counted as the packets simulated in the same time:
        :func:`~labcalc.sim.planning.estimate_seconds`). 5e6 is about two minutes of one
        core here (:data:`~labcalc.sim.planning.PACKETS_PER_CPU_S`).
    transport : str or mapping flow -> str, optional
        ``"udp"`` or ``"tcp"``, for all flows or by flow; overrides the scenario.
    offered_bps : float or mapping flow -> float, optional
        Rate a UDP flow offers [bit/s] in the network's accounting (as
        :func:`labcalc.openloop.fifo_split` takes it); by default its demand, else the
        capacity of its first link. A flow named here is UDP.
    payload_bytes : int or mapping flow -> int, optional
        UDP payload per datagram [bytes] (default: the scenario's, else 1472). TCP always
        sends :data:`~labcalc.sim.planning.SEGMENT_BYTES` (1448) per segment.
    queue_disc : str, RedQueue or mapping link -> either, optional
        Override of the links' queues. By default each link queues as its scenario says
        (``queue = "red"`` with its ``red`` table, see :func:`labcalc.scenario.link_queues`),
        else drop-tail; a Network's links are drop-tail. A name ("droptail", "red",
        "codel", "fq_codel", "pie") applies to every named link, a mapping to the links it
        names. "red" is Linux's RED with Mininet's ``TCLink`` parameters
        (:class:`labcalc.scenario.RedQueue`, mapped by :mod:`labcalc.sim.red`); the others
        are ns-3's with its default parameters. "host" marks a sending host's own
        interface (a scenario's ``queue = "host"``): drop-tail with room for the send
        buffers of the TCP flows that start on it, which a Linux host holds back rather
        than drop (:mod:`labcalc.sim.planning`); an override to "droptail" keeps that room.
    ecn : bool, default False
        Whether the TCP senders and receivers ask for ECN (``TcpSocketBase::UseEcn``), so
        that a RED queue with ``ecn`` marks their packets instead of dropping them. False
        is a Linux host with the default ``net.ipv4.tcp_ecn = 2``, as the handout's: it
        never asks, and RED drops.
    start_s, stop_s : float or mapping flow -> float, optional
        When each flow's sender starts and stops [s] (default 0 and ``duration_s``).
    interval_s : float, optional
        Length of the goodput intervals [s] (default 1 s, or ``duration_s / 20`` for
        runs shorter than 20 s); queues are sampled ten times as often. A run keeps at
        most 100,000 intervals and 10 million values per trace
        (:data:`~labcalc.sim.planning.MAX_INTERVALS`, :data:`~labcalc.sim.planning.MAX_SAMPLES`):
        longer runs get longer intervals by default, and a shorter ``interval_s`` is refused.
    warmup_s : float or mapping flow -> float, optional
        Time after each flow's start left out of its summary [s]; the window starts at
        the next interval boundary. By default the window is the one a measurement
        manifest picks on the flow's goodput file without ``window_s``
        (:func:`labcalc.measure.steady_window`: the warm-up cut by MSER-5), so that the
        summary and a manifest on ``<flow>-goodput.csv`` give the same number; a flow then
        needs at least 8 goodput intervals.
    udp_arrivals : {"poisson", "periodic"}, default "poisson"
        Gaps between a UDP flow's datagrams: exponential at the mean rate, or all equal;
        the first datagram leaves at the flow's start (as ns-3's ``UdpClient`` sends;
        ``OnOffApplication`` sends one gap later). Equal gaps are what iperf sends, but
        with ns-3's exact clocks two links whose rates are in a simple ratio then serve packets in lock-step and drop-tail starves
        or favours a flow by its phase (Floyd and Jacobson's "phase effects"); random
        gaps give the proportional split that :func:`labcalc.openloop.fifo_split` assumes.
    delayed_ack_count : int, default 1
        Segments per ACK at the receivers (``TcpSocket::DelAckCount``). With 1 the
        Mathis constant is sqrt(3/2) (:data:`labcalc.tcp.RENO_CONSTANT`); with 2 (Linux's
        delayed ACKs) about sqrt(3/4), and in ns-3.44 a NewReno flow under 2 % random loss
        can stall at one segment per delayed-ACK timeout.
    sack : bool, default True
        Selective acknowledgements (``TcpSocketBase::Sack``; RFC 2018 / RFC 6675 loss
        recovery), as Linux. ``False`` gives NewReno's one-loss-per-RTT recovery (RFC 6582):
        other numbers (four NewReno flows on a 50-packet buffer use 6 % less of the link),
        but much faster when a window of thousands of segments loses hundreds (see Notes).
    ts_rtt : bool, default True
        Take an RTT sample from the timestamp echo of every ACK that acknowledges new data,
        retransmitted or not, as Linux does (RFC 6298 section 3 allows it with timestamps).
        ``False`` keeps ns-3.44's own rule, which after a timeout samples nothing until a
        segment first sent after it is acknowledged, and restarts the timer from the old
        estimate on every ACK. Behind a queue that grows longer than the RTO (a 1000-packet
        queue at 5 Mbit/s holds 2.4 s), a connection then times out before every ACK, for
        good: lab51 D1 gives three of its four connections about 13 kbit/s each, with no
        packet lost and no RTT sample taken (see Notes).
    linux_rto : bool, optional
        (Default: ``ts_rtt``.) Retransmission timeout as Linux computes it, SRTT + max(4 RTTVAR, 200 ms)
        (``tcp_set_rto``), instead of ns-3's max(SRTT + 4 RTTVAR, 200 ms). Behind a full
        drop-tail queue the RTT hardly varies, ns-3's RTO is then barely above the RTT,
        and each fast retransmission, which waits behind the whole queue, times out: one
        NewReno or Reno flow behind 100 packets at 1.5 Mbit/s takes a timeout after every
        loss with ``False``, none with ``True``. Needs ``ts_rtt=True``.
    socket_buffer_bytes : int, default 6291456
        TCP send and receive buffer of every socket [bytes] (``TcpSocket::SndBufSize`` and
        ``RcvBufSize``); ns-3 advertises its whole receive buffer, so this is the largest
        window. The default is Linux's ``tcp_rmem`` maximum (6 MiB). Linux advertises half
        its receive buffer (``tcp_adv_win_scale = 1``), so a host with Mininet's 16 MiB
        ``tcp_rmem`` maximum opens windows of up to 8 MiB: ``socket_buffer_bytes=2**23``.
    timeout_s : float, optional
        Wall time the run may take once ns-3 is loaded [s], > 0 (``inf`` or None: no
        limit); after it the run's worker process is stopped and
        :class:`~labcalc.sim.runner.SimulationTimeout` raised.

    Returns
    -------
    SimResult
        ``goodput``, ``cwnd``, ``rtt``, ``queue``, ``summary`` DataFrames, ``attrs``,
        ``.table()`` and ``.write(out_dir)``.

    Raises
    ------
    SimulationUnavailable
        ns-3 is not installed (``pip install 'labcalc[sim]'``); an ``ImportError``.
    ScenarioError, ValueError
        A bad scenario, an option out of range or naming an unknown flow or link, a TCP
        variant or queue discipline ns-3 lacks (the message lists the known ones), a
        value outside ns-3's own limits (:mod:`labcalc.sim.limits`), all checked before
        ns-3 starts.
    SimulationTooLong
        More than ``max_packets`` packets estimated (a ``ValueError``).
    SimulationAborted
        ns-3 stopped the run anyway (a ``ValueError`` holding ns-3's own message). The run
        happens in a worker process (:mod:`labcalc.sim.runner`), so this Python goes on.

    Notes
    -----
    Accounting: a simulated link of capacity C serialises IP packet + 2 bytes (PPP)
    per packet, so one saturating UDP flow gets
    ``C * payload / (ip_bytes + 2)`` = :func:`~labcalc.sim.planning.p2p_goodput_bps`. That
    is 1.2 % above the ``"tc"`` accounting of :mod:`labcalc.framing` (Linux's shaper also
    counts the 14-byte Ethernet header) and 3.5 % above ``"wire"`` for 1000-byte
    datagrams. Capacities and demands of the scenario are used as written; a UDP sender
    sends payload at ``offered x efficiency`` (the efficiency of the scenario's
    accounting), i.e. the packet rate the scenario means.

    Behaviour: TCP segments of 1448 bytes with timestamps and SACK, IW10, one ACK per
    ``delayed_ack_count`` segments (ns-3's default: 2), RTO = SRTT + max(4 RTTVAR, 200 ms)
    as Linux (``linux_rto``), classic NewReno loss recovery (RFC 6582; ns-3.44's default is
    PRR), 6 MiB socket buffers by default (``socket_buffer_bytes``), SYN timeout 1 s and 15
    data retransmissions before a connection is dropped (Linux's ``TCP_TIMEOUT_INIT`` and
    ``tcp_retries2``; ns-3's defaults are 3 s and 6), RTT samples from the timestamp echo
    (``ts_rtt``); all of them are recorded in ``attrs`` (``tcp_defaults``,
    ``segment_bytes``, ``delayed_ack_count``, ``sack``, ``ts_rtt``, ``linux_rto``). Each
    queue disc sits in front of a device queue of one packet, so a link holds up to
    ``queue_packets`` + 1 waiting packets plus the one being sent. Each flow has a sender
    and a receiver node of its own, joined to the ends of its route by private links ten
    times faster than the fastest link or UDP rate, without delay, with 1000-packet
    drop-tail queues (:mod:`labcalc.sim.planning`, "Topology"). A flow's ``rtt_s`` (scenario
    ``rtt_ms``) above twice the delay of its route is added as delay on its private receiver
    link, half in each direction. Goodput is the payload the receiver's ``PacketSink``
    counted per interval; ``summary.goodput_bps`` is over the window after the warm-up.

    Timeouts behind a long queue: a TCP sender's retransmission timer (RTO = smoothed RTT +
    4 x its variation, at least 200 ms) tracks the RTT only through its samples. When a
    queue fills faster than the samples follow (a flow's slow start after its own timeout
    takes a 1000-packet queue from empty to 2.4 s in a few RTTs), the other connections
    time out although nothing was lost: a spurious timeout, which costs their window and
    retransmits segments still waiting in the queue. Linux recovers at the next ACK, whose
    timestamp echo gives an RTT sample of the real delay; ns-3.44 alone does not (see
    ``ts_rtt``), which labcalc corrects by default with a subclass of ``TcpSocketBase``
    (``labcalc::TsRttSocket``, compiled with the rest of :mod:`labcalc.sim._cpp`).

    Speed: the ``ns3`` wheel on PyPI is built with ``NS3_ASSERT_ENABLE``, and an assertion in
    ``TcpTxBuffer::GetPacketFromList`` compares the whole list of sent segments with
    itself at every step of its walk, so each retransmission costs (its position) x
    (segments in flight). Runs with windows of a few hundred segments are unaffected; a
    flow whose slow start overshoots a 1000-packet buffer at a long RTT (lab51 D1: about
    2000 segments in flight, 850 of them lost and retransmitted with SACK) spends about
    10^9 steps there, 5-10 s of wall time. ``sack=False`` avoids it (those losses are then
    repaired near the head of the list) at the price of other dynamics.

    References
    ----------
    .. [1] ns-3 Model Library (3.44): "Point-to-Point", "TCP models in ns-3", "Traffic
       Control Layer" (FifoQueueDisc, RedQueueDisc), "Error model" (RateErrorModel).
    .. [2] RFC 6582 (NewReno), RFC 6928 (IW10), RFC 6298 (the RTO; section 3: RTT samples
       from retransmitted segments only with timestamps), RFC 7323 (timestamps).
    .. [3] Linux ``net/ipv4/tcp_input.c``, ``tcp_ack_update_rtt``: the timestamp echo gives
       the sample when the acknowledged segment was retransmitted.

    Examples
    --------
    >>> from labcalc import sim
    >>> from labcalc.network import Network, Link
    >>> net = Network({"l": Link(5e6, delay_s=0.01, buffer_packets=50)}, {"a": ["l"]})
    >>> res = sim.simulate(net, transport="udp", payload_bytes=1000, duration_s=2,
    ...                    udp_arrivals="periodic")
    >>> round(float(res.summary.loc["a", "goodput_bps"] / sim.p2p_goodput_bps(5e6, 1000)), 2)   # the link, full
    1.0
    """
    from labcalc.sim import _engine, runner

    timeout_s = timeout_seconds(timeout_s)
    plan_, attrs = prepare(scenario, variant=variant, duration_s=duration_s, seed=seed, tcp=tcp,
                           queue_packets=queue_packets, error_rate=error_rate, max_packets=max_packets,
                           transport=transport, offered_bps=offered_bps, payload_bytes=payload_bytes,
                           queue_disc=queue_disc, start_s=start_s, stop_s=stop_s, interval_s=interval_s,
                           warmup_s=warmup_s, udp_arrivals=udp_arrivals, delayed_ack_count=delayed_ack_count,
                           sack=sack, ts_rtt=ts_rtt, ecn=ecn, socket_buffer_bytes=socket_buffer_bytes,
                           linux_rto=linux_rto)
    _engine.check_available()
    return runner.default_worker().run(plan_, attrs, timeout_s=timeout_s)


def prepare(scenario, *, variant: str | None = None, duration_s: float = 30.0, seed: int = 1, tcp="NewReno",
            queue_packets=None, error_rate=0.0, max_packets: float = 5_000_000, transport=None, offered_bps=None,
            payload_bytes=None, queue_disc=None, start_s=None, stop_s=None, interval_s=None, warmup_s=None,
            udp_arrivals: str = "poisson", delayed_ack_count: int = 1, sack: bool = True, ts_rtt: bool = True,
            ecn: bool = False, socket_buffer_bytes: int = 6291456, linux_rto=None):
    """The checked plan of a :func:`simulate` call and its result's ``attrs``, without running it.

    Parameters
    ----------
    scenario, variant, duration_s, seed, tcp, queue_packets, error_rate, max_packets, transport, offered_bps, payload_bytes, queue_disc, start_s, stop_s, interval_s, warmup_s, udp_arrivals, delayed_ack_count, sack, ts_rtt, ecn, socket_buffer_bytes, linux_rto
        As in :func:`simulate`.

    Returns
    -------
    (Plan, dict)
        What :meth:`labcalc.sim.runner.Worker.run` takes.

    Raises
    ------
    ValueError
        As :func:`simulate`, before anything reaches ns-3.

    Examples
    --------
    >>> from labcalc.network import Network
    >>> plan, attrs = prepare(Network({"l": 5e6}, {"a": ["l"]}), duration_s=2.0)
    >>> plan.flows[0].transport, attrs["duration_s"]
    ('tcp', 2.0)
    """
    from labcalc.sim import _engine

    source = None
    tables = None
    queues = None
    if isinstance(scenario, Network):
        if variant is not None:
            raise ValueError(f"variant = {variant!r}: a variant belongs to a scenario file, not to a Network")
        network = scenario
    elif isinstance(scenario, (str, os.PathLike)):
        from labcalc.scenario import flow_tables, link_queues, network_from_dict, read_scenario

        source = str(Path(scenario))
        data = read_scenario(scenario)
        network = network_from_dict(data, variant=variant, source=source)
        tables = flow_tables(data, variant=variant, source=source)
        queues = link_queues(data, variant=variant, source=source)
    else:
        raise ValueError(f"scenario must be a scenario file path or a labcalc.network.Network; got {scenario!r}")
    p = plan(network, scenario_flows=tables, duration_s=duration_s, seed=seed, tcp=tcp, transport=transport,
             offered_bps=offered_bps, payload_bytes=payload_bytes, queue_packets=queue_packets,
             queue_disc=queue_disc, error_rate=error_rate, start_s=start_s, stop_s=stop_s, interval_s=interval_s,
             warmup_s=warmup_s, udp_arrivals=udp_arrivals, delayed_ack_count=delayed_ack_count, sack=sack,
             ts_rtt=ts_rtt, ecn=ecn, max_packets=max_packets, scenario_queues=queues,
             socket_buffer_bytes=socket_buffer_bytes, linux_rto=linux_rto)
    attrs = {
        "ns3_version": _engine.ns3_version(),
        "seed": p.seed,
        "duration_s": p.duration_s,
        "interval_s": p.interval_s,
        "scenario": source or network.name,
        "variant": variant,
        "accounting": ACCOUNTING,
        "segment_bytes": SEGMENT_BYTES,
        "default_queue_packets": DEFAULT_QUEUE_PACKETS,
        "tcp_defaults": {**_engine.TCP_DEFAULTS, "ns3::TcpSocket::SndBufSize": p.socket_buffer_bytes,
                         "ns3::TcpSocket::RcvBufSize": p.socket_buffer_bytes},
        "udp_arrivals": p.udp_arrivals,
        "delayed_ack_count": p.delayed_ack_count,
        "sack": p.sack,
        "ts_rtt": p.ts_rtt,
        "linux_rto": p.linux_rto,
        "queue_disc": queue_disc if isinstance(queue_disc, (str, type(None))) else str(queue_disc),
        "ecn": p.ecn,
        "estimated_packets": round(p.estimated_packets),
        "estimated_s": round(p.estimated_s, 3),
        "flows": {f.name: {"transport": f.transport, "tcp": f.tcp_type if f.transport == "tcp" else None,
                           "payload_bytes": f.payload_bytes, "payload_rate_bps": f.payload_rate_bps or None,
                           "route": list(f.links), "extra_delay_s": f.extra_delay_s, "start_s": f.start_s,
                           "stop_s": f.stop_s, "warmup_s": p.warmup_s[f.name]} for f in p.flows},
        "links": {link.name: {"capacity_bps": link.capacity_bps, "delay_s": link.delay_s,
                              "queue": _queue_label(link), "queue_packets": link.queue_packets,
                              "error_rate": link.error_rate,
                              **({"red": link.red_attributes} if link.red is not None else {})}
                  for link in p.links if not link.private},
    }
    return p, attrs
