"""Packet-level simulations behind notebook 11 (seed report 004).

Seed 004 studied AIMD variants with a small packet-level simulator of its own: Tahoe,
Reno, AIAD (decrease by one segment) and AIMD with a decrease to 5/6. The report ships no
traces, so this script makes comparable ones with a small discrete-event simulator, and
writes them in the formats notebook 11 reads. ns-3 is not used here: it has no
congestion-control class for AIAD or for a 5/6 decrease (its ``TcpNewReno`` halves, its
``TcpLinuxReno`` too), and seed 004's simulator was not ns-3 either.

Seed 001's NewReno traces (notebook 08) used to be imitated here too; they now come from
ns-3 itself, through ``scripts/ns3_seed001.py``.

Output:

``data/measurements/seed004/simulated/<scenario>/``
    ``received.csv`` (packets received per flow in 0.1 s bins, as seed 004 counted them),
    ``queue.csv.gz`` (bottleneck backlog every 10 ms), ``drops.csv`` (time of each drop),
    ``cwnd.csv.gz`` (window and ssthresh of each flow, thinned to one sample per 10 ms plus
    every decrease and the peak before it), ``summary.csv`` (per flow: start, end,
    packets, drops).

The simulator
-------------
Links are FIFO drop-tail queues of ``queue`` packets (waiting, not counting the one being
sent) served at ``rate_bps``, followed by a propagation delay. A packet follows a path of
links; ACKs return after the sum of the propagation delays of the path (they are small,
and nothing queues on the way back). Senders always have data until their file is sent.

TCP senders count in bytes with one segment of ``mss`` bytes per packet and react to
loss in one of these ways (the options of seed 004's simulator):

``tahoe``    3 duplicate ACKs or a timeout: ssthresh = max(b W, 2 MSS), W = 1 MSS;
``reno``     3 duplicate ACKs: ssthresh = max(b min(W, flight), 1 MSS), W = ssthresh
             (seed 004's "fast recovery": no window inflation); the receiver reports the
             out-of-order segments it holds (SACK) and, until the ACK of all the data sent
             before the loss, the sender retransmits the holes and sends new data while
             the segments in the network stay below W (RFC 6675's "pipe");
``aiad``     3 duplicate ACKs: W = max(W - 1 MSS, 1 MSS) (seed 004's AIAD), then as reno.

Slow start adds one MSS per ACK of new data, congestion avoidance MSS^2 / W (ns-3 and
seed 004 do the same), ``b`` is the decrease factor (0.5 by default; seed 004 also ran
5/6). Timeouts follow RFC 6298 (minimum RTO 1 s, doubling), set ssthresh to
max(b min(W, flight), 2 MSS), then go back to the first unacknowledged byte. The runs
start with ssthresh = 64 kB (the report's simulator had a configurable threshold).
Receivers acknowledge every packet and keep out-of-order data.

Everything is deterministic (no random loss is used; event ties are broken by creation
order), so the files only change when this script does. Run from the repository root:
``.venv/bin/python scripts/simulate_seed_traces.py`` (a few seconds).
"""

from __future__ import annotations

import csv
import gzip
import heapq
import io
import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT004 = ROOT / "data" / "measurements" / "seed004" / "simulated"


class Sim:
    def __init__(self):
        self.now = 0.0
        self._q = []
        self._n = itertools.count()

    def at(self, t, fn, *args):
        heapq.heappush(self._q, (t, next(self._n), fn, args))

    def run(self, until):
        while self._q and self._q[0][0] <= until:
            t, _, fn, args = heapq.heappop(self._q)
            self.now = t
            fn(*args)


@dataclass
class Packet:
    flow: int
    seq: int          # first byte
    size: int         # data bytes
    path: list
    hop: int = 0
    sent_at: float = 0.0
    retransmitted: bool = False


class Link:
    def __init__(self, sim, name, rate_bps, delay_s, queue, header_bytes=40, monitor=False):
        self.sim, self.name = sim, name
        self.rate, self.delay, self.limit, self.header = rate_bps, delay_s, queue, header_bytes
        self.queue = []
        self.busy = False
        self.monitor = monitor
        self.drops = []        # (time, flow)
        self.samples = []      # (time, backlog) at every change

    def _log(self):
        if self.monitor:
            self.samples.append((self.sim.now, len(self.queue)))

    def send(self, pkt, deliver):
        if self.busy and len(self.queue) >= self.limit:
            if self.monitor:
                self.drops.append((self.sim.now, pkt.flow))
            return
        if self.busy:
            self.queue.append((pkt, deliver))
            self._log()
        else:
            self._start(pkt, deliver)

    def _start(self, pkt, deliver):
        self.busy = True
        tx = 8.0 * (pkt.size + self.header) / self.rate
        self.sim.at(self.sim.now + tx, self._done, pkt, deliver)

    def _done(self, pkt, deliver):
        self.sim.at(self.sim.now + self.delay, deliver, pkt)
        if self.queue:
            nxt, d = self.queue.pop(0)
            self._log()
            self._start(nxt, d)
        else:
            self.busy = False


@dataclass
class Flow:
    fid: int
    path: list                  # links, sender to receiver
    file_bytes: int
    start: float
    mode: str = "tahoe"         # tahoe | reno | aiad
    decrease_to: float = 0.5
    mss: int = 1000
    init_cwnd_segments: int = 1
    init_ssthresh: float = 1e12
    cwnd_log: list = field(default_factory=list)
    ssth_log: list = field(default_factory=list)
    finished: float = math.nan


class TcpSender:
    def __init__(self, sim, flow, receiver):
        self.sim, self.f, self.rx = sim, flow, receiver
        self.mss = flow.mss
        self.cwnd = float(flow.init_cwnd_segments * self.mss)
        self.ssthresh = float(flow.init_ssthresh)
        self.snd_una = 0
        self.snd_nxt = 0
        self.dupacks = 0
        self.recover = -1
        self.in_recovery = False
        self.srtt = None
        self.rttvar = None
        self.rto = 1.0
        self.backoff = 1
        self.timer_id = 0
        self.timing = None      # (seq, sent_at) of the segment being timed (Karn)
        self.sacked = set()     # out-of-order segments the receiver reported (SACK)
        self.rtx = set()        # segments retransmitted in the current recovery
        self.ack_delay = sum(link.delay for link in flow.path)
        self.log()
        sim.at(flow.start, self.send_more)

    def log(self):
        self.f.cwnd_log.append((self.sim.now, self.cwnd))
        self.f.ssth_log.append((self.sim.now, self.ssthresh))

    # ---- sending
    def flight(self):
        return self.snd_nxt - self.snd_una

    def send_more(self):
        while self.snd_nxt < self.f.file_bytes and self.flight() + self.mss <= self.cwnd + 1e-9:
            self.transmit(self.snd_nxt, retransmission=False)
            self.snd_nxt += min(self.mss, self.f.file_bytes - self.snd_nxt)

    def transmit(self, seq, retransmission):
        size = min(self.mss, self.f.file_bytes - seq)
        pkt = Packet(self.f.fid, seq, size, self.f.path, sent_at=self.sim.now, retransmitted=retransmission)
        if not retransmission and self.timing is None:
            self.timing = (seq, self.sim.now)
        if retransmission and self.timing is not None and self.timing[0] >= seq:
            self.timing = None
        self.forward(pkt)
        if self.timer_id == 0 or retransmission:
            self.arm_timer()

    def forward(self, pkt):
        if pkt.hop == len(pkt.path):
            self.rx.receive(pkt)
            return
        link = pkt.path[pkt.hop]
        pkt.hop += 1
        link.send(pkt, self.forward)

    # ---- timer
    def arm_timer(self):
        self.timer_id += 1
        tid = self.timer_id
        self.sim.at(self.sim.now + self.rto * self.backoff, self.on_timeout, tid)

    def on_timeout(self, tid):
        if tid != self.timer_id or self.snd_una >= self.f.file_bytes:
            return
        self.ssthresh = max(self.f.decrease_to * min(self.cwnd, self.flight()), 2.0 * self.mss)
        self.cwnd = float(self.mss)
        self.backoff = min(self.backoff * 2, 64)
        self.in_recovery = False
        self.dupacks = 0
        self.recover = self.snd_nxt - 1
        self.snd_nxt = self.snd_una          # go back N
        self.timing = None
        self.log()
        self.transmit(self.snd_una, retransmission=True)
        self.arm_timer()
        self.snd_nxt = self.snd_una + min(self.mss, self.f.file_bytes - self.snd_una)

    # ---- ACKs
    def sack_send(self):
        """RFC 6675-style recovery: retransmit the holes below the highest SACKed segment,
        then new data, while the segments in the network ("pipe") stay below cwnd."""
        mss = self.mss
        high = max(self.sacked) if self.sacked else self.snd_una
        lost = [q for q in range(self.snd_una, high, mss) if q not in self.sacked]
        outstanding = -(-(self.snd_nxt - self.snd_una) // mss)
        pipe = outstanding - len(self.sacked) - sum(1 for q in lost if q not in self.rtx)
        window = max(int(self.cwnd // mss), 1)
        for q in lost:
            if pipe >= window:
                return
            if q not in self.rtx:
                self.rtx.add(q)
                self.transmit(q, retransmission=True)
                pipe += 1
        while pipe < window and self.snd_nxt < self.f.file_bytes:
            self.transmit(self.snd_nxt, retransmission=False)
            self.snd_nxt += min(mss, self.f.file_bytes - self.snd_nxt)
            pipe += 1

    def on_ack(self, ack, sacked=()):
        mss = self.mss
        self.sacked = {q for q in sacked if q >= ack}
        if ack > self.snd_una:
            self.snd_una = ack
            if self.snd_nxt < ack:
                self.snd_nxt = ack
            self.backoff = 1
            if self.timing is not None and ack > self.timing[0]:
                self.update_rtt(self.sim.now - self.timing[1])
                self.timing = None
            if self.in_recovery:            # reno and aiad only
                if ack > self.recover:      # full ACK
                    self.in_recovery = False
                    self.dupacks = 0
                else:                       # partial ACK: the scoreboard decides
                    self.log()
                    self.arm_timer()
                    self.sack_send()
                    return
            else:
                self.dupacks = 0
                if self.cwnd < self.ssthresh:
                    self.cwnd += mss
                else:
                    self.cwnd += max(1.0, mss * mss / self.cwnd)
            self.log()
            if self.snd_una >= self.f.file_bytes:
                self.f.finished = self.sim.now
                self.timer_id += 1
                return
            self.arm_timer()
        elif ack == self.snd_una and self.flight() > 0:
            self.dupacks += 1
            if self.in_recovery:
                self.sack_send()
                return
            elif self.dupacks == 3:
                if ack > self.recover:
                    self.enter_recovery()
                elif self.f.mode == "tahoe":
                    pass
                else:
                    # another hole of a window already reduced: retransmit, no new reduction
                    self.transmit(self.snd_una, retransmission=True)
        self.send_more()

    def enter_recovery(self):
        mss, mode = self.mss, self.f.mode
        self.recover = self.snd_nxt - 1
        if mode == "aiad":
            self.cwnd = max(self.cwnd - mss, float(mss))
            self.ssthresh = self.cwnd
            self.in_recovery = True
            self.rtx = set()
            self.timing = None
            self.log()
            self.sack_send()
            return
        elif mode == "tahoe":
            self.ssthresh = max(self.f.decrease_to * self.cwnd, 2.0 * mss)
            self.cwnd = float(mss)
            self.snd_nxt = self.snd_una
        else:  # reno
            self.ssthresh = max(self.f.decrease_to * min(self.cwnd, self.flight()), float(mss))
            self.cwnd = self.ssthresh
            self.in_recovery = True
            self.rtx = set()
            self.timing = None
            self.log()
            self.sack_send()
            return
        self.timing = None
        self.log()
        self.transmit(self.snd_una, retransmission=True)
        if mode == "tahoe":
            self.snd_nxt = self.snd_una + min(mss, self.f.file_bytes - self.snd_una)

    def update_rtt(self, r):
        if self.srtt is None:
            self.srtt, self.rttvar = r, r / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - r)
            self.srtt = 0.875 * self.srtt + 0.125 * r
        self.rto = max(1.0, self.srtt + 4 * self.rttvar)


class TcpReceiver:
    def __init__(self, sim, flow):
        self.sim, self.f = sim, flow
        self.next = 0
        self.ooo = {}
        self.arrivals = []          # times of packets bringing new data
        self.sender = None

    def receive(self, pkt):
        new = pkt.seq >= self.next and pkt.seq not in self.ooo
        if new:
            self.arrivals.append(self.sim.now)
            if pkt.seq == self.next:
                self.next += pkt.size
                while self.next in self.ooo:
                    self.next += self.ooo.pop(self.next)
            else:
                self.ooo[pkt.seq] = pkt.size
        self.ack_now()

    def ack_now(self):
        ack = self.next
        self.sim.at(self.sim.now + self.sender.ack_delay, self.sender.on_ack, ack, tuple(self.ooo))


def simulate(links, flows, until):
    """Run the flows over their links; returns (flows, receivers)."""
    sim = links[0].sim
    receivers = []
    for f in flows:
        rx = TcpReceiver(sim, f)
        tx = TcpSender(sim, f, rx)
        rx.sender = tx
        receivers.append(rx)
    sim.run(until)
    return flows, receivers


# --------------------------------------------------------------------------------------
# writing


def _bins(times, width=0.1):
    counts = {}
    for t in times:
        k = int(math.floor(t / width + 1e-9))
        counts[k] = counts.get(k, 0) + 1
    return counts


def _thin(log, step=0.01, keep_until=0.0):
    """Samples at least ``step`` apart, keeping every sample before ``keep_until``, every
    decrease, the sample before each decrease (the peak) and the last sample."""
    n = len(log)
    keep = [False] * n
    last_t = -1.0
    for i, (t, v) in enumerate(log):
        prev_v = log[i - 1][1] if i else None
        next_v = log[i + 1][1] if i + 1 < n else None
        if (i == 0 or i == n - 1 or t < keep_until or (prev_v is not None and v < prev_v)
                or (next_v is not None and next_v < v) or t - last_t >= step):
            keep[i] = True
            last_t = t
    return [s for s, k in zip(log, keep) if k]


def _open(path):
    """A text file to write; ``.gz`` names are gzip-compressed without a time stamp."""
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.GzipFile(path, "wb", compresslevel=9, mtime=0), newline="")
    return open(path, "w", newline="")


def write_seed004(name, bottleneck, flows, receivers, until):
    out = OUT004 / name
    out.mkdir(parents=True, exist_ok=True)
    with _open(out / "received.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["time_s", "flow", "packets"])
        rows = []
        for f, rx in zip(flows, receivers):
            for k, n in _bins(rx.arrivals).items():
                rows.append((round(k * 0.1, 1), f"c{f.fid}", n))
        for row in sorted(rows, key=lambda r: (r[0], r[1])):
            w.writerow([f"{row[0]:.1f}", row[1], row[2]])
    with _open(out / "queue.csv.gz") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["time_s", "backlog_packets"])
        samples = bottleneck.samples
        k, last = 0, 0
        t_end = max(f.finished for f in flows if not math.isnan(f.finished)) if any(
            not math.isnan(f.finished) for f in flows) else until
        for i in range(int(t_end / 0.01) + 2):
            t = i * 0.01
            while k < len(samples) and samples[k][0] <= t:
                last = samples[k][1]
                k += 1
            w.writerow([f"{t:.2f}", last])
    with _open(out / "drops.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["time_s", "flow"])
        for t, fid in bottleneck.drops:
            w.writerow([f"{t:.6f}", f"c{fid}"])
    with _open(out / "cwnd.csv.gz") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["time_s", "flow", "cwnd_bytes", "ssthresh_bytes"])
        for f in flows:
            ssth = dict()
            thinned = _thin(f.cwnd_log)
            # ssthresh at each kept time: the last value logged at or before it
            j, cur = 0, f.ssth_log[0][1]
            for t, c in thinned:
                while j < len(f.ssth_log) and f.ssth_log[j][0] <= t:
                    cur = f.ssth_log[j][1]
                    j += 1
                s = "" if cur >= 1e11 else f"{cur:.0f}"
                w.writerow([f"{t:.6f}", f"c{f.fid}", f"{c:.0f}", s])
            del ssth
    with _open(out / "summary.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["flow", "mode", "decrease_to", "file_bytes", "start_s", "end_s", "packets_received",
                    "drops", "rtt_prop_s"])
        for f, rx in zip(flows, receivers):
            drops = sum(1 for _, fid in bottleneck.drops if fid == f.fid)
            end = "" if math.isnan(f.finished) else f"{f.finished:.4f}"
            w.writerow([f"c{f.fid}", f.mode, f"{f.decrease_to:.4f}", f.file_bytes, f"{f.start:.1f}", end,
                        len(rx.arrivals), drops, f"{2 * sum(link.delay for link in f.path):.3f}"])
    print(f"seed004/{name}: " + ", ".join(
        f"c{f.fid} {len(rx.arrivals)} pkts, end {f.finished:.2f} s" for f, rx in zip(flows, receivers)))


def one_link(queue=40):
    sim = Sim()
    return sim, Link(sim, "n1-n2", 10e6, 0.010, queue, monitor=True)


def seed004():
    mb = 1_000_000
    until = 120.0
    ss0 = 64_000   # initial ssthresh: seed 004 set a "threshold"; the classic 64 KB
    tahoe = dict(mode="tahoe", init_ssthresh=ss0)
    reno = dict(mode="reno", init_ssthresh=ss0)
    # 2.1 one flow, Tahoe, a 2 MB file
    sim, link = one_link()
    flows = [Flow(1, [link], 2 * mb, 0.0, **tahoe)]
    write_seed004("one_flow", link, *simulate([link], flows, until), until)
    # 2.2 two flows on the same path (10 MB each, so that the shares settle)
    sim, link = one_link()
    flows = [Flow(1, [link], 10 * mb, 0.0, **tahoe), Flow(2, [link], 10 * mb, 0.0, **tahoe)]
    write_seed004("two_flows", link, *simulate([link], flows, until), until)
    # 2.3 five flows joining one second apart (10 MB each, so that they overlap)
    sim, link = one_link()
    flows = [Flow(k, [link], 10 * mb, float(k - 1), **tahoe) for k in range(1, 6)]
    write_seed004("five_flows", link, *simulate([link], flows, until), until)
    # 3.1 AIAD, one flow
    sim, link = one_link()
    flows = [Flow(1, [link], 2 * mb, 0.0, mode="aiad", init_ssthresh=ss0)]
    write_seed004("aiad", link, *simulate([link], flows, until), until)
    # 3.2 AIMD with decrease to 5/6, fast recovery, one flow
    sim, link = one_link()
    flows = [Flow(1, [link], 2 * mb, 0.0, decrease_to=5 / 6, **reno)]
    write_seed004("aimd_5_6", link, *simulate([link], flows, until), until)
    # 3.3 competing AIMD: 1/2 against 5/6 (10 MB each)
    sim, link = one_link()
    flows = [Flow(1, [link], 10 * mb, 0.0, decrease_to=0.5, **reno),
             Flow(2, [link], 10 * mb, 0.0, decrease_to=5 / 6, **reno)]
    write_seed004("competing_aimd", link, *simulate([link], flows, until), until)
    # 3.4 competing RTT: n1 -100 ms- n3 -10 ms- n4 and n2 -10 ms- n3, queues of 100
    sim = Sim()
    n1n3 = Link(sim, "n1-n3", 10e6, 0.100, 100)
    n2n3 = Link(sim, "n2-n3", 10e6, 0.010, 100)
    n3n4 = Link(sim, "n3-n4", 10e6, 0.010, 100, monitor=True)
    flows = [Flow(1, [n1n3, n3n4], 10 * mb, 0.0, **reno), Flow(2, [n2n3, n3n4], 10 * mb, 0.0, **reno)]
    write_seed004("competing_rtt", n3n4, *simulate([n1n3, n2n3, n3n4], flows, until), until)


if __name__ == "__main__":
    seed004()
