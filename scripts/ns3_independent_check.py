"""Three small ns-3 runs written without labcalc, to check that ``labcalc.sim`` is plain ns-3.

An outside reviewer who doubts ``labcalc.sim.simulate`` would write an ns-3 script of their
own from the README ("Simulating in ns-3") and compare. This is that script: it uses ns-3's
Python API (``from ns import ns``, the PyPI ``ns3`` 3.44 wheel) and nothing of labcalc, and
sets up what labcalc documents, then (with ``--compare``) runs the same scenarios through
``labcalc.sim.simulate`` with a ``labcalc.network.Network`` and ``ts_rtt=False``, as the
README says to, and prints both side by side.

Scenarios (20 s each, seed 1)
-----------------------------
a  two NewReno flows through one 10 Mbit/s, 20 ms bottleneck with a 100-packet drop-tail queue
b  one CUBIC flow and one UDP flow (periodic datagrams of 1000 bytes of payload, 5 Mbit/s of
   payload) through the same bottleneck
c  as a, with a 20-packet queue (timeouts)

What is set, and where labcalc documents it
-------------------------------------------
README, "Simulating in ns-3", and ``simulate``'s docstring (Notes, "Behaviour"): 1448-byte
segments, timestamps, SACK, an initial window of 10, one ACK per segment
(``TcpSocket::DelAckCount`` 1; ns-3's default is 2), NewReno's classic loss recovery
(``TcpClassicRecovery``; ns-3.44's default is PRR), minimum RTO 200 ms, SYN timeout 1 s, 15
data retransmissions, 6 MiB send and receive buffers, a 2-byte PPP header per packet
(ns-3's point-to-point links add it anyway), drop-tail queues of 1000 packets where the
network gives no size, each queue disc in front of a device queue of one packet, each flow
with a sender and a receiver node of its own joined to the bottleneck's ends by links ten
times faster than the fastest link (or UDP rate) without delay (also
``labcalc.sim.planning``, "Topology"), a periodic UDP flow's first datagram at its start,
every sender and receiver started at 0 s and the senders stopped at the end. The
bottleneck's reverse direction (the ACKs) gets a FIFO of the same size; its size, the
``SendSize`` of the TCP senders and the routing (global routing here, static host routes in
labcalc) change nothing in these runs.

This script builds: sender_i -- R1 ==bottleneck== R2 -- receiver_i, a ``FifoQueueDisc`` of the
given size on every device (installed before the addresses, so that ns-3 does not add its
default ``FqCoDelQueueDisc``), a ``DropTailQueue`` of 1 packet in every device,
``BulkSendApplication`` senders, ``UdpClient`` for the periodic UDP flow (its ``PacketSize``
includes its 12-byte sequence header, so each datagram carries 1000 bytes of payload; it
sends its first datagram at its start) and ``PacketSink`` receivers. Received bytes are the
sinks' ``GetTotalRx()`` at 20 s; drops are the bottleneck queue disc's
``nTotalDroppedPackets``; timeouts (RTO) are the window's cuts to one segment
(``CongestionWindow`` trace; labcalc's ``cwnd`` trace is counted the same way), the entries
into ``CA_LOSS`` (``CongState`` trace) in brackets.

Options to see what the README alone would have given: ``--delack 2`` (ns-3's default),
``--recovery prr`` (ns-3's default), ``--device-queue 100`` (ns-3's default device queue),
``--udp onoff`` (``OnOffApplication``, always on: its first datagram leaves one gap after
its start), ``--linux`` (also run labcalc's defaults, ``ts_rtt=True`` and ``linux_rto=True``,
next to the plain ns-3 numbers).

Run from the repository root (about 10 s to load ns-3, then well under a second per run)::

    nice -n 10 .venv/bin/python scripts/ns3_independent_check.py            # this script only
    nice -n 10 .venv/bin/python scripts/ns3_independent_check.py --compare  # and labcalc's runs
    nice -n 10 .venv/bin/python scripts/ns3_independent_check.py --compare --linux

It prints one line per scenario and flow: received application bytes, goodput over the run
[bit/s], timeouts, and the bottleneck's drops; with ``--compare`` labcalc's numbers beside
them and ``same`` or this script's number minus labcalc's. cling may print "Failed to materialize symbols" on
stderr: noise.

What it showed on this machine (ns3 3.44.post0), ``--compare --linux``: the same bytes,
timeouts and drops as labcalc with ``ts_rtt=False`` in every scenario::

    a f1 NewReno  12122656 B, 1 RTO    f2 NewReno  11837400 B, 1 RTO    145 drops
    b f1 Cubic    11746176 B, 1 RTO    f2 udp      12343000 B           254 drops
    c f1 NewReno  11533320 B, 1 RTO    f2 NewReno  11403000 B, 1 RTO    100 drops

labcalc's defaults (``ts_rtt=True``, ``linux_rto=True``): a 12085008 / 11921384 B, no RTO,
146 drops (the first fast recoveries at 0.40 s end without the timeouts of 0.77 s); c
11544904 / 11389968 B, the RTOs 61 ms later, 100 drops. ``ts_rtt=True`` with
``linux_rto=False`` gives the plain bytes in both (checked with ``simulate`` directly).

Each setting left at ns-3's default instead, the others as labcalc's (bytes of f1 / f2,
drops; plain script minus labcalc)::

    --delack 2           a +912240 / -920928 B, -73 drops   c -289600 / +227336 B, -48 drops
    --recovery prr       a  -97016 /  +94120 B,   0 drops   c +218648 / +324352 B,  -1 drop
    --device-queue 100   a +3790864 / -3816928 B, +92 drops c +534312 / +483632 B, +62 drops
    --access-speedup 2   a +748616 / -800744 B,  -1 drop    c +263536 / -356208 B,   0 drops
    --udp onoff          b the UDP flow 1000 B (one datagram) fewer, the rest the same
"""

from __future__ import annotations

import argparse
import sys

DURATION_S = 20.0
BOTTLENECK_BPS = 10e6
BOTTLENECK_DELAY_S = 0.02
SEGMENT_BYTES = 1448
SOCKET_BUFFER_BYTES = 6 * 1024 * 1024
UDP_PAYLOAD_BYTES = 1000
UDP_RATE_BPS = 5e6
PORT = 5001

#: name -> (bottleneck queue [packets], flows as (name, "tcp" congestion control or "udp"))
SCENARIOS = {
    "a": (100, [("f1", "NewReno"), ("f2", "NewReno")]),
    "b": (100, [("f1", "Cubic"), ("f2", "udp")]),
    "c": (20, [("f1", "NewReno"), ("f2", "NewReno")]),
}

_CPP = r"""
#include <vector>
#include <string>
namespace indep {
std::vector<unsigned> timeouts, losses;   // per flow: window cut to one segment; entries into CA_LOSS
unsigned segment = 1448;
void Cwnd(unsigned flow, uint32_t o, uint32_t n) {
    if (n == segment && o != segment) timeouts[flow] += 1;
}
void State(unsigned flow, ns3::TcpSocketState::TcpCongState_t o, ns3::TcpSocketState::TcpCongState_t n) {
    if (n == ns3::TcpSocketState::CA_LOSS && o != n) losses[flow] += 1;
}
// the first socket of the node (BulkSendApplication makes it at its start)
void Connect(unsigned node, unsigned flow) {
    std::string s = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
    ns3::Config::ConnectWithoutContext(s + "CongestionWindow", ns3::MakeBoundCallback(&Cwnd, flow));
    ns3::Config::ConnectWithoutContext(s + "CongState", ns3::MakeBoundCallback(&State, flow));
}
void Watch(double at_s, unsigned node, unsigned flow) {
    if (timeouts.size() <= flow) { timeouts.resize(flow + 1, 0); losses.resize(flow + 1, 0); }
    ns3::Simulator::Schedule(ns3::Seconds(at_s), &Connect, node, flow);
}
void Reset() { timeouts.clear(); losses.clear(); }
}
"""


def run_ns3(name, *, delack=1, recovery="classic", device_queue=1, access_speedup=10.0, udp="udpclient",
            seed=1):
    """Build and run one scenario in plain ns-3.

    Returns {flow: (bytes received, window cuts to one segment)}, the bottleneck's drops and
    {flow: entries into CA_LOSS}."""
    from ns import ns
    import cppyy

    if not hasattr(cppyy.gbl, "indep"):
        cppyy.cppdef(_CPP)
    g = cppyy.gbl.indep
    g.Reset()
    queue_packets, flows = SCENARIOS[name]

    ns.RngSeedManager.SetSeed(seed)
    ns.RngSeedManager.SetRun(1)
    d = ns.Config.SetDefault
    d("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT_BYTES))
    d("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(10))
    d("ns3::TcpSocket::DelAckCount", ns.UintegerValue(delack))
    d("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(1.0)))
    d("ns3::TcpSocket::DataRetries", ns.UintegerValue(15))
    d("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUFFER_BYTES))
    d("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUFFER_BYTES))
    d("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(0.2)))
    d("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(True))
    d("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    d("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    rec = {"classic": "ns3::TcpClassicRecovery", "prr": "ns3::TcpPrrRecovery"}[recovery]
    d("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName(rec)))
    tcp = [cc for _, cc in flows if cc != "udp"]
    assert len(set(tcp)) == 1, "one congestion control per scenario (a default for every node)"
    d("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::Tcp" + tcp[0])))

    n = len(flows)
    routers = ns.NodeContainer()
    routers.Create(2)
    senders = ns.NodeContainer()
    senders.Create(n)
    receivers = ns.NodeContainer()
    receivers.Create(n)
    ns.InternetStackHelper().InstallAll()

    def link(a, b, rate_bps, delay_s, fwd_packets, rev_packets):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(rate_bps))))
        p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(delay_s)))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(f"{device_queue}p"))
        devs = p2p.Install(a, b)
        qdiscs = []
        for k, size in ((0, fwd_packets), (1, rev_packets)):
            tch = ns.TrafficControlHelper()
            tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.StringValue(f"{size}p"))
            qdiscs.append(tch.Install(devs.Get(k)).Get(0))
        return devs, qdiscs

    fastest = max([BOTTLENECK_BPS] + [UDP_RATE_BPS for _, cc in flows if cc == "udp"])
    access_bps = access_speedup * fastest
    addresses = ns.Ipv4AddressHelper()
    addresses.SetBase(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.255.0"))
    devs, (bottleneck_q, _) = link(routers.Get(0), routers.Get(1), BOTTLENECK_BPS, BOTTLENECK_DELAY_S,
                                   queue_packets, queue_packets)
    addresses.Assign(devs)
    sink_addr = []
    for i in range(n):
        addresses.NewNetwork()
        devs, _ = link(senders.Get(i), routers.Get(0), access_bps, 0.0, 1000, 1000)
        addresses.Assign(devs)
        addresses.NewNetwork()
        devs, _ = link(routers.Get(1), receivers.Get(i), access_bps, 0.0, 1000, 1000)
        sink_addr.append(addresses.Assign(devs).GetAddress(1))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sinks = []
    for i, (fname, cc) in enumerate(flows):
        factory = "ns3::UdpSocketFactory" if cc == "udp" else "ns3::TcpSocketFactory"
        local = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), PORT).ConvertTo()
        app = ns.PacketSinkHelper(factory, local).Install(receivers.Get(i))
        app.Start(ns.Seconds(0.0))
        sinks.append(app.Get(0))
        remote = ns.InetSocketAddress(sink_addr[i], PORT).ConvertTo()
        if cc != "udp":
            bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", remote)
            bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
            bulk.SetAttribute("SendSize", ns.UintegerValue(SEGMENT_BYTES))
            src = bulk.Install(senders.Get(i))
            g.Watch(1e-6, senders.Get(i).GetId(), i)
        elif udp == "udpclient":
            client = ns.UdpClientHelper(remote)
            client.SetAttribute("MaxPackets", ns.UintegerValue(0))      # 0: no limit
            client.SetAttribute("Interval", ns.TimeValue(ns.Seconds(8 * UDP_PAYLOAD_BYTES / UDP_RATE_BPS)))
            client.SetAttribute("PacketSize", ns.UintegerValue(UDP_PAYLOAD_BYTES))
            src = client.Install(senders.Get(i))
        else:
            onoff = ns.OnOffHelper("ns3::UdpSocketFactory", remote)
            onoff.SetConstantRate(ns.DataRate(int(UDP_RATE_BPS)), UDP_PAYLOAD_BYTES)
            onoff.SetAttribute("OnTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=1000]"))
            onoff.SetAttribute("OffTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=0]"))
            src = onoff.Install(senders.Get(i))
        src.Start(ns.Seconds(0.0))
        src.Stop(ns.Seconds(DURATION_S))

    ns.Simulator.Stop(ns.Seconds(DURATION_S))
    ns.Simulator.Run()
    out, ca_loss = {}, {}
    for i, (fname, cc) in enumerate(flows):
        rx = int(ns.DynamicCast[ns.PacketSink](sinks[i]).GetTotalRx())
        out[fname] = (rx, None if cc == "udp" else int(g.timeouts[i]))
        ca_loss[fname] = None if cc == "udp" else int(g.losses[i])
    drops = int(bottleneck_q.GetStats().nTotalDroppedPackets)
    ns.Simulator.Destroy()
    return out, drops, ca_loss


def run_labcalc(name, *, ts_rtt=False, linux_rto=None, seed=1):
    """The same scenario through labcalc.sim.simulate, as the README says to compare."""
    from labcalc import sim
    from labcalc.network import Link, Network

    queue_packets, flows = SCENARIOS[name]
    net = Network({"bn": Link(BOTTLENECK_BPS, delay_s=BOTTLENECK_DELAY_S, buffer_packets=queue_packets)},
                  {f: ["bn"] for f, _ in flows})
    udp = [f for f, cc in flows if cc == "udp"]
    res = sim.simulate(net, tcp={f: cc for f, cc in flows if cc != "udp"}, duration_s=DURATION_S, seed=seed,
                       ts_rtt=ts_rtt, linux_rto=linux_rto, offered_bps={f: UDP_RATE_BPS for f in udp} or None,
                       payload_bytes={f: UDP_PAYLOAD_BYTES for f in udp} or None, udp_arrivals="periodic")
    rx = res.goodput.groupby("flow")["bytes"].sum()
    out = {}
    for f, cc in flows:
        timeouts = None
        if cc != "udp":
            # an RTO sets the window to one segment (what CA_LOSS counts in the plain script)
            w = res.cwnd[res.cwnd.flow == f].cwnd_bytes.to_numpy()
            timeouts = int(((w[1:] == SEGMENT_BYTES) & (w[:-1] != SEGMENT_BYTES)).sum())
        out[f] = (int(rx[f]), timeouts)
    q = res.queue[res.queue.link == "bn"]
    return out, int(q.drops.iloc[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="default: all")
    ap.add_argument("--delack", type=int, default=1, help="TcpSocket::DelAckCount (labcalc's default: 1)")
    ap.add_argument("--recovery", choices=["classic", "prr"], default="classic")
    ap.add_argument("--device-queue", type=int, default=1, help="packets in each device's DropTailQueue")
    ap.add_argument("--access-speedup", type=float, default=10.0)
    ap.add_argument("--udp", choices=["udpclient", "onoff"], default="udpclient")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare", action="store_true", help="also run labcalc.sim.simulate(ts_rtt=False)")
    ap.add_argument("--linux", action="store_true", help="also run labcalc with ts_rtt=True, linux_rto=True")
    args = ap.parse_args(argv)
    same = True
    for name in args.scenario or sorted(SCENARIOS):
        plain, drops, ca_loss = run_ns3(name, delack=args.delack, recovery=args.recovery, device_queue=args.device_queue,
                               access_speedup=args.access_speedup, udp=args.udp, seed=args.seed)
        other = {}
        if args.compare:
            other["labcalc ts_rtt=False"] = run_labcalc(name, seed=args.seed)
        if args.linux and name != "b":
            other["labcalc default"] = run_labcalc(name, ts_rtt=True, seed=args.seed)
        for f, (rx, to) in plain.items():
            cc = dict(SCENARIOS[name][1])[f]
            line = (f"{name} {f} {cc:8s} ns-3: {rx:9d} B {8 * rx / DURATION_S / 1e6:7.4f} Mbit/s"
                    f"{'' if to is None else f' {to:3d} RTO ({ca_loss[f]} CA_LOSS)'}")
            for label, (o, _) in other.items():
                orx, oto = o[f]
                diff = "same" if (orx, oto) == (rx, to) else f"{rx - orx:+d} B"
                if label == "labcalc ts_rtt=False":
                    same &= diff == "same"
                line += f" | {label}: {orx:9d} B{'' if oto is None else f' {oto:3d} RTO'} ({diff})"
            print(line)
        line = f"{name} bottleneck drops ns-3: {drops}"
        for label, (_, odrops) in other.items():
            line += f" | {label}: {odrops} ({'same' if odrops == drops else f'{drops - odrops:+d}'})"
            if label == "labcalc ts_rtt=False":
                same &= odrops == drops
        print(line, flush=True)
    if args.compare:
        print("all the same" if same else "DIFFERENCES (see above)")
    return 0 if same or not args.compare else 1


if __name__ == "__main__":
    sys.exit(main())
