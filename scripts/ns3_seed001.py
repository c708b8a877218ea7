"""NewReno on the network of ns-3's ``tcp-variants-comparison`` example, run in ns-3 itself.

Seed report 001 ran ``examples/tcp/tcp-variants-comparison.cc`` of ns-3.27 with
``--transport_prot=TcpNewReno --tracing=1`` and otherwise the example's defaults, and
read its Table 1 off the ``-cwnd.data`` and ``-ssth.data`` traces. This script rebuilds that
example, line by line, with the Python bindings of ns-3 3.44 (``pip install ns3``) and
writes the traces that notebook ``08-cwnd-dynamics`` reads, twice:

``data/measurements/seed001/simulated/newreno-nosack-{cwnd,ssth,state}.data``
    SACK off, as the report's run: its Table 1 can only come from ns-3.27's code path
    without SACK (the window set to ssthresh + 3 segments on the third duplicate ACK and
    inflated by one segment per further duplicate ACK, ``EnterRecovery`` and ``DupAck`` of
    ns-3.27's ``tcp-socket-base.cc``, run only when ``m_sackEnabled`` is false), although
    ns-3.27 introduced SACK and its example turns it on by default (``--sack=true``). The
    report does not say how its run came to be without it. This run gives Table 1's
    second and third rows exactly (1.93189 s, 109 480 -> 55 590 bytes; 3.26916 s,
    326 570 -> 340 bytes).
``data/measurements/seed001/simulated/newreno-{cwnd,ssth,state}.data``
    SACK on, ns-3's default since 3.27: what 3.44 does with the example as shipped.

Each file holds ``time old new`` per change (seconds, bytes or a state number), the
shape of ns-3's trace sinks (``TracedValue`` callbacks receive the old and the new value;
``labcalc.measure.read_ns3`` reads this shape and the example's). ssthresh 4294967295
means "not set yet".

The network and settings of the example (both versions)
--------------------------------------------------------
* one source, one gateway, one sink: source -10 Mbit/s, 45 ms- gateway -2 Mbit/s,
  0.01 ms- sink, point-to-point links (each frame carries a 2-byte PPP header);
* MTU 400 bytes; the example computes the segment size as 400 - 20 - (20 + 20) = 340
  bytes and the application writes 340 bytes at a time (``BulkSendApplication``, no limit);
* TCP buffers of 2 MiB, SACK off or on (above), delayed ACKs every 2 segments
  or 200 ms, minimum RTO 1 s, timestamps on (ns-3 defaults);
* a ``PfifoFastQueueDisc`` on every device, limited to BDP / MTU packets where
  BDP = min(10, 2) Mbit/s / 8 x 2 x (45 + 0.01) ms = 22 505 bytes, so 56 packets; below
  it each point-to-point device keeps its own drop-tail queue of 100 packets;
* the source starts at 0 s and stops at 97.1 s, the simulation at 100.1 s
  (``duration`` 100 s, ``start_time`` 0.1 s x flow index);
* ``SeedManager::SetSeed(1)``, run 0; with no error model (``error_p`` 0) nothing in this
  run is random, so the traces are the same on every run of this script.

What differs from ns-3.27 (the version seed 001 used)
-----------------------------------------------------
* ``InitialCwnd``: ns-3.27 started with 1 segment, 3.44 with 10. Set to 1 here, as the
  report's Table 1 starts at 340 bytes.
* The window in fast recovery: ns-3.27 inflated ``CongestionWindow`` itself by one
  segment per duplicate ACK; 3.44 keeps ``CongestionWindow`` at ssthresh and traces the
  inflated value as ``CongestionWindowInflated``. The ``-cwnd.data`` file written here is
  ``CongestionWindowInflated`` (equal to ``CongestionWindow`` outside fast recovery), so it
  reads like the traces seed 001 plotted. The example of 3.44 traces ``CongestionWindow``.
* Recovery: 3.44 has a ``RecoveryType`` attribute; the 3.44 example selects
  ``TcpClassicRecovery`` (3.44's default would be PRR), and so does this script. Without
  SACK it is NewReno's (RFC 6582): one hole repaired per partial ACK, the window inflated
  per duplicate ACK, as in ns-3.27; the run times out at 3.26916 s like Table 1. With SACK
  it retransmits every hole its scoreboard marks lost (RFC 6675), ssthresh is half of
  ``BytesInFlight`` as that scoreboard counts it, and the first recovery ends with a full
  ACK after 0.7 s: no timeout. Both runs see the first loss with the same window (109 480
  bytes), the SACK run one ACK later (1.93197 s).
* After a timeout 3.44 sets ssthresh to half of what its scoreboard counts in flight
  (27 200 bytes in the run without SACK), so the step 340 -> 680 bytes at 3.30286 s that
  Table 1 labels "congestion avoidance" is still slow start here.
* ``SocketType``: 3.44's default is ``TcpCubic``; the example (and this script) sets
  ``TcpNewReno`` explicitly, as seed 001 did.
* Queue-size attributes were renamed (``PfifoFastQueueDisc::Limit`` became ``MaxSize``,
  ``DropTailQueue::MaxPackets`` became ``MaxSize``); the values are the same.
* Files: the example writes ``time value`` lines (plus a first ``0.0 <old value>``) and
  repeats the last ssthresh at every window change; this script writes ``time old new``
  per change. Window changes after 4 s are thinned to one per 50 ms outside fast recovery,
  keeping every decrease and the peak before it (the full trace has one line per ACK).
  ``newreno-state.data`` holds ns-3's ``CongState`` (0 Open, 1 Disorder, 2 CWR,
  3 Recovery, 4 Loss, i.e. a timeout).

Nothing else is modelled: all of it is ns-3's own code. Seed 004's AIAD and its 5/6
decrease have no ns-3 congestion-control class, so ``scripts/simulate_seed_traces.py``
keeps its own small simulator for them.

Run from the repository root (ns-3 from PyPI needed: ``.venv/bin/pip install ns3``):
``.venv/bin/python scripts/ns3_seed001.py`` (two runs, each in its own process: about 10 s
to import ns-3 and a few seconds to run). cling prints lines such as "Failed to materialize symbols" on stderr: noise.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT001 = ROOT / "data" / "measurements" / "seed001" / "simulated"

#: The example's command-line defaults (tcp-variants-comparison.cc), with seed 001's protocol.
EXAMPLE = dict(
    transport_prot="TcpNewReno",
    error_p=0.0,
    bandwidth="2Mbps",
    delay="0.01ms",
    access_bandwidth="10Mbps",
    access_delay="45ms",
    mtu_bytes=400,
    duration=100.0,
    run=0,
    sack=False,
    recovery="ns3::TcpClassicRecovery",
)
#: file prefix -> SACK on or off
RUNS = {"newreno-nosack": False, "newreno": True}
#: Without SACK the run spends much of its 100 s in recovery (12 of them); each window
#: change is kept only in the recoveries of the first 6 s (Table 1's time), so the file
#: stays small.
SPANS_UNTIL = {"newreno-nosack": 6.0}

_CPP = r"""
#include <vector>
#include <string>
namespace seed001 {
unsigned long counter = 0;   // one order across all traces (several changes share a time)
struct Trace {
    std::vector<double> t;
    std::vector<unsigned int> old_v, new_v;
    std::vector<unsigned long> seq;
    void add(unsigned int o, unsigned int n) {
        t.push_back(ns3::Simulator::Now().GetSeconds());
        old_v.push_back(o);
        new_v.push_back(n);
        seq.push_back(counter++);
    }
};
Trace cwnd, cwnd_inflated, ssth, state;
void Cwnd(uint32_t o, uint32_t n) { cwnd.add(o, n); }
void CwndInflated(uint32_t o, uint32_t n) { cwnd_inflated.add(o, n); }
void Ssth(uint32_t o, uint32_t n) { ssth.add(o, n); }
void State(ns3::TcpSocketState::TcpCongState_t o, ns3::TcpSocketState::TcpCongState_t n) {
    state.add(o, n);
}
// What the example's TraceCwnd / TraceSsThresh do, for node 1 (the source), socket 0.
void Connect() {
    std::string s = "/NodeList/1/$ns3::TcpL4Protocol/SocketList/0/";
    ns3::Config::ConnectWithoutContext(s + "CongestionWindow", ns3::MakeCallback(&Cwnd));
    ns3::Config::ConnectWithoutContext(s + "CongestionWindowInflated", ns3::MakeCallback(&CwndInflated));
    ns3::Config::ConnectWithoutContext(s + "SlowStartThreshold", ns3::MakeCallback(&Ssth));
    ns3::Config::ConnectWithoutContext(s + "CongState", ns3::MakeCallback(&State));
}
void ScheduleConnect(double at_s) { ns3::Simulator::Schedule(ns3::Seconds(at_s), &Connect); }
}
"""


def run_example(p=EXAMPLE):
    """Build and run the example; returns the segment size [bytes] and, per trace source
    (``cwnd``, ``cwnd_inflated``, ``ssth``, ``state``), its changes as (t, old, new)."""
    from ns import ns
    import cppyy

    cppyy.cppdef(_CPP)
    g = cppyy.gbl.seed001

    ip_header = ns.Ipv4Header().GetSerializedSize()
    tcp_header = ns.TcpHeader().GetSerializedSize()
    tcp_adu_size = p["mtu_bytes"] - 20 - (ip_header + tcp_header)
    start_time = 0.1
    stop_time = start_time + p["duration"]

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(p["run"])

    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 21))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 21))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(p["sack"]))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType",
                         ns.TypeIdValue(ns.TypeId.LookupByName(p["recovery"])))
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType",
                         ns.TypeIdValue(ns.TypeId.LookupByName("ns3::" + p["transport_prot"])))
    # ns-3.27's default (3.44 starts with 10 segments): seed 001's Table 1 starts at 1 MSS
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(1))

    gateways = ns.NodeContainer()
    gateways.Create(1)
    sources = ns.NodeContainer()
    sources.Create(1)
    sinks = ns.NodeContainer()
    sinks.Create(1)

    uv = ns.CreateObject[ns.UniformRandomVariable]()
    uv.SetStream(50)
    error_model = ns.CreateObject[ns.RateErrorModel]()
    error_model.SetRandomVariable(uv)
    error_model.SetUnit(ns.RateErrorModel.ERROR_UNIT_PACKET)
    error_model.SetRate(p["error_p"])

    bottleneck = ns.PointToPointHelper()
    bottleneck.SetDeviceAttribute("DataRate", ns.StringValue(p["bandwidth"]))
    bottleneck.SetChannelAttribute("Delay", ns.StringValue(p["delay"]))
    bottleneck.SetDeviceAttribute("ReceiveErrorModel", ns.PointerValue(error_model))

    stack = ns.InternetStackHelper()
    stack.InstallAll()

    tch_pfifo = ns.TrafficControlHelper()
    tch_pfifo.SetRootQueueDisc("ns3::PfifoFastQueueDisc")

    address = ns.Ipv4AddressHelper()
    address.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))

    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", ns.StringValue(p["access_bandwidth"]))
    access.SetChannelAttribute("Delay", ns.StringValue(p["access_delay"]))

    access_b = ns.DataRate(p["access_bandwidth"])
    bottle_b = ns.DataRate(p["bandwidth"])
    access_d = ns.Time(p["access_delay"])
    bottle_d = ns.Time(p["delay"])
    size = int(min(access_b.GetBitRate(), bottle_b.GetBitRate()) / 8
               * 2 * (access_d.GetSeconds() + bottle_d.GetSeconds()))
    ns.Config.SetDefault("ns3::PfifoFastQueueDisc::MaxSize",
                         ns.QueueSizeValue(ns.QueueSize(f"{size // p['mtu_bytes']}p")))

    devices = access.Install(sources.Get(0), gateways.Get(0))
    tch_pfifo.Install(devices)
    address.NewNetwork()
    address.Assign(devices)
    devices = bottleneck.Install(gateways.Get(0), sinks.Get(0))
    tch_pfifo.Install(devices)
    address.NewNetwork()
    interfaces = address.Assign(devices)
    sink_address = interfaces.GetAddress(1)

    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    port = 50000
    sink_local = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
    sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory", sink_local)
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(tcp_adu_size))
    ftp = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.Address())
    ftp.SetAttribute("Remote", ns.AddressValue(ns.InetSocketAddress(sink_address, port).ConvertTo()))
    ftp.SetAttribute("SendSize", ns.UintegerValue(tcp_adu_size))
    ftp.SetAttribute("MaxBytes", ns.UintegerValue(0))
    source_app = ftp.Install(sources.Get(0))
    source_app.Start(ns.Seconds(0.0))
    source_app.Stop(ns.Seconds(stop_time - 3))
    sink_helper.SetAttribute("Protocol", ns.TypeIdValue(ns.TcpSocketFactory.GetTypeId()))
    sink_app = sink_helper.Install(sinks.Get(0))
    sink_app.Start(ns.Seconds(0.0))
    sink_app.Stop(ns.Seconds(stop_time))

    g.ScheduleConnect(0.00001)          # as the example: once the socket exists
    ns.Simulator.Stop(ns.Seconds(stop_time))
    ns.Simulator.Run()
    traces = {name: [(float(t), int(o), int(n), int(q)) for t, o, n, q in zip(tr.t, tr.old_v, tr.new_v, tr.seq)]
              for name, tr in (("cwnd", g.cwnd), ("cwnd_inflated", g.cwnd_inflated),
                               ("ssth", g.ssth), ("state", g.state))}
    traces["window"] = window_as_327(traces)
    traces = {name: [c[:3] for c in changes] for name, changes in traces.items()}
    ns.Simulator.Destroy()
    return tcp_adu_size, traces


def window_as_327(traces):
    """The window as ns-3.27's ``CongestionWindow`` showed it: ``CongestionWindowInflated``
    in fast recovery (CongState 3), ``CongestionWindow`` everywhere else.

    3.44 updates the inflated value only in some states: after a timeout it stays at one
    segment until the connection leaves the loss state, while ``CongestionWindow`` grows.
    The changes of the three traces are taken in the order they happened; a change of state
    shows at the next change of a window (3.44 changes the state first, 3.27 the window:
    at the timeout, 326 570 -> 340 bytes, not 326 570 -> 54 570 -> 340)."""
    events = sorted([(q, "cwnd", n) for _, _, n, q in traces["cwnd"]]
                    + [(q, "infl", n) for _, _, n, q in traces["cwnd_inflated"]]
                    + [(q, "state", n) for _, _, n, q in traces["state"]])
    when = {q: t for name in ("cwnd", "cwnd_inflated", "state") for t, _, _, q in traces[name]}
    cur = {"cwnd": 0, "infl": 0, "state": 0}
    shown, out = 0, []
    for q, name, value in events:
        cur[name] = value
        if name == "state":
            continue   # 3.27 set the window before the state: the next window change shows it
        now = cur["infl"] if cur["state"] == 3 else cur["cwnd"]
        if now != shown:
            out.append((when[q], shown, now, q))
            shown = now
    return out


def recovery_spans(state):
    """(start, end) times of ns-3's recovery and loss states (CongState not CA_OPEN)."""
    spans, start = [], None
    for t, old, new in state:
        if new != 0 and start is None:
            start = t
        elif new == 0 and start is not None:
            spans.append((start, t))
            start = None
    if start is not None:
        spans.append((start, float("inf")))
    return spans


def thin(changes, spans=(), step=0.05, keep_until=4.0, spans_until=float("inf")):
    """Every change before ``keep_until`` s and inside ``spans`` that start before
    ``spans_until`` s (fast recovery: the window inflates by one segment per duplicate ACK);
    elsewhere one per ``step`` s plus every decrease and the change before it (the peak),
    and the last one; after ``spans_until`` only the decreases by more than half. The
    files stay small (the full trace has one line per ACK) and every event of the state
    machine stays in them."""
    n = len(changes)
    spans = [(a, b) for a, b in spans if a < spans_until]

    def cut(i):
        t, old, new = changes[i]
        return new < old and (t < spans_until or 2 * new < old)

    keep, last_t = [], -1.0
    for i, (t, old, new) in enumerate(changes):
        if (i == 0 or i == n - 1 or t < keep_until or cut(i)
                or any(a <= t <= b for a, b in spans)
                or (i + 1 < n and cut(i + 1)) or t - last_t >= step):
            keep.append((t, old, new))
            last_t = t
    return keep


def write(path, changes):
    with open(path, "w", newline="") as fh:
        for t, old, new in changes:
            fh.write(f"{t:.6f} {old} {new}\n")


#: ns-3's TcpSocketState::TcpCongState_t, written as numbers in the state file.
CONG_STATES = {0: "CA_OPEN", 1: "CA_DISORDER", 2: "CA_CWR", 3: "CA_RECOVERY", 4: "CA_LOSS"}


def write_run(prefix, sack):
    """Run the example once (SACK on or off) and write its three traces under ``prefix``."""
    mss, traces = run_example({**EXAMPLE, "sack": sack})
    if not traces["cwnd"] or not traces["ssth"]:
        sys.exit("no trace recorded: the Config path matched no socket")
    OUT001.mkdir(parents=True, exist_ok=True)
    cwnd = thin(traces["window"], recovery_spans(traces["state"]),
                spans_until=SPANS_UNTIL.get(prefix, float("inf")))
    write(OUT001 / f"{prefix}-cwnd.data", cwnd)
    write(OUT001 / f"{prefix}-ssth.data", traces["ssth"])
    write(OUT001 / f"{prefix}-state.data", traces["state"])
    reductions = [t for t, old, new in traces["ssth"] if new < old]
    timeouts = [t for t, old, new in traces["state"] if new == 4]
    print(f"seed001/simulated/{prefix} (ns-3 3.44, SACK {'on' if sack else 'off'}): MSS {mss} bytes, "
          f"{len(traces['window'])} window changes (kept {len(cwnd)}), ssthresh reduced "
          f"{len(reductions)} times from {reductions[0]:.5f} s, "
          + (f"timeouts at {', '.join(f'{t:.5f}' for t in timeouts)} s" if timeouts else "no timeout"), flush=True)


def main():
    # one process per run: ns-3's global state (node list, address generator, defaults)
    # starts clean, as it did for the example
    if len(sys.argv) == 2 and sys.argv[1] in RUNS:
        write_run(sys.argv[1], RUNS[sys.argv[1]])
        return
    import subprocess

    for prefix in RUNS:
        subprocess.run([sys.executable, __file__, prefix], check=True)


if __name__ == "__main__":
    main()
