"""The ns-3 runs of seed reports 002 and 003 that notebooks 09 and 10 show, as tidy CSVs.

Every run goes through :func:`labcalc.sim.simulate` from a scenario file
(``data/scenarios/seed002.toml``, ``seed003.toml``) and is written as rows of the report's own
measurement file (``question, scenario, flow, metric, value, unit, note``), with the same keys
as ``data/measurements/seed00N/report.csv``, so that a notebook looks the simulated value up
exactly as it looks up the report's. The files are committed: the notebooks open without ns-3.

``data/measurements/seed003/simulated/ns3.csv``
    The report's runs as it ran them: one pair h1 -> h2 (Mininet's ``net.iperf``) per
    scenario, Linux Reno (``TcpLinuxReno``) and CUBIC; in lab5_4 the two pairs one after the
    other, as ``net.iperf`` runs them (notebook 10 shows the totals exceed the link), and
    also both at once (scenario ``"... together"``), the experiment the report meant.
``data/measurements/seed003/simulated/findings.csv``
    The runs behind the notebook's explanations of what ns-3 and Mininet disagree on.
``data/measurements/seed002/simulated/ns3.csv``
    The bufferbloat experiment: the long Reno flow behind queues of 100 and 20 packets
    (window, losses, the delay a ping sees), and a 178 kB page fetched behind it and alone.

Durations (simulated time; the wheel simulates 5,000-10,000 packets per wall second here):

* seed 003, the 200 ms core: 60 s, the report's ``iperf -t 60`` (its closing remarks): at
  an RTT of 410 ms slow start alone takes seconds, and the test's average includes it;
* seed 003, the other runs of lab5_3 and lab5_4: without delay (or 5 ms) a connection
  reaches its steady state within a second, after which nothing changes, so 20 s at
  100 Mbit/s (each pair, and the two pairs at once) and 3 s at 1 Gbit/s stand for the
  report's 60 s; 60 s at 1 Gbit/s would be 5 million packets, about 15 minutes of wall
  time each on an idle machine;
* seed 003, lab5_2 (the lossy long link): 10 s, over 20 seeds, because a short test at
  420 ms is a few dozen round trips and its rate depends on when the first losses come.
  The report's closing remarks say its first tests lasted 10 s, and its numbers rule out
  Mininet's default of 5 s: the server received 36.3 Mbit/s with CUBIC, more than a 5 s
  test can deliver at this RTT even without loss (23.1 Mbit/s in ns-3: slow start needs
  4 s to fill the path); and its server printed 3.81 Mbit/s where its client printed 5.76,
  the data still waiting in the sender's buffer when a short test ends. 5 s (20 seeds) and
  60 s (one seed) for reference;
* seed 002: 300 s of the long flow alone (several cycles of its sawtooth), and runs of the
  long flow with the page fetched at 40, 60 or 80 s, ending 15 s later.

Run from the repository root (ns-3 needed: ``.venv/bin/pip install ns3``), nicely, as it
takes a while on a machine shared with others (seed 002 a few minutes, seed 003 an hour,
the findings one or two):
``nice -n 10 .venv/bin/python scripts/simulate_seeds.py [seed002] [seed003] [findings]``
(all three without arguments); ``seed003-lossy`` recomputes the lossy link's rows of
``ns3.csv`` only, ``findings-loss``, ``findings-core`` and ``findings-window`` one group of
``findings.csv`` each (merged in place of its earlier rows). cling may print "Failed to
materialize symbols": noise.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

import numpy as np

from labcalc import sim
from labcalc.data import scenario_path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "measurements"
COLUMNS = ["question", "scenario", "flow", "metric", "value", "unit", "note"]
#: the report's algorithm names -> ns-3's congestion controls
TCP = {"reno": "LinuxReno", "cubic": "Cubic"}
#: no run here comes near it; the default guards interactive use
MAX_PACKETS = 50_000_000


def write_rows(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {path.relative_to(ROOT)}", flush=True)


def row(question, scenario, flow, metric, value, unit, note=""):
    return dict(question=question, scenario=scenario, flow=flow, metric=metric, value=value, unit=unit, note=note)


def run(scenario, label, **kw):
    """One simulation, timed and printed."""
    start = time.perf_counter()
    res = sim.simulate(scenario, max_packets=MAX_PACKETS, **kw)
    gp = ", ".join(f"{f} {g / 1e6:.2f}" for f, g in res.summary.goodput_bps.items())
    print(f"  {label:<48} {gp} Mbit/s  ({time.perf_counter() - start:.0f} s)", flush=True)
    return res


def drops(res, link) -> int:
    q = res.queue[res.queue.link == link]
    return int(q.drops.iloc[-1]) if len(q) else 0


# --- seed 003 ---------------------------------------------------------------------------

S003 = scenario_path("seed003")
#: (question, report scenario, variant, seconds, error_rate)
SINGLE = [
    ("lab5_3", "1 Gbit/s baseline", "baseline_1g", 3.0, 0.0),
    ("lab5_3", "100 Mbit/s core", "core_100m", 20.0, 0.0),
    ("lab5_3", "200 ms core delay", "core_delay", 60.0, 0.0),
    ("lab5_3", "0.1 % core loss", "core_loss", 3.0, {"s1-s2": 0.001}),
]
LOSSY = ("lab5_2", "lossy long link", "lossy_long_link", {"s1-s2": 0.001})
LOSSY_SEEDS = range(1, 21)
#: the lossy link's test: 10 s (see the module notes)
LOSSY_SECONDS = 10.0
#: (report scenario, variant, algorithm, error_rate)
PAIRS = [
    ("two pairs Reno", "pairs", "reno", 0.0),
    ("two pairs Reno +5 ms h1h2", "pairs_delay_h1h2", "reno", 0.0),
    ("two pairs CUBIC", "pairs", "cubic", 0.0),
    ("two pairs CUBIC +5 ms h3h4", "pairs_delay_h3h4", "cubic", 0.0),
    ("two pairs CUBIC 0.1 % loss h3h4", "pairs_loss_h3h4", "cubic", {"h3-s1": 0.001, "s2-h4": 0.001}),
]
PAIR_SECONDS = 20.0


def version() -> str:
    from labcalc.sim import ns3_version

    return f"ns-3 {ns3_version()}"


def seed003_rows(only_lossy=False) -> list:
    rows = []
    v = version()
    print("seed 003: the report's runs", flush=True)
    question, scenario, variant, loss = LOSSY
    for algo, tcp in TCP.items():
        for seconds, where in ((LOSSY_SECONDS, scenario), (5.0, f"{scenario}, 5 s")):
            rates = []
            for seed in LOSSY_SEEDS:
                res = run(S003, f"{variant} {tcp} {seconds:.0f} s seed {seed}", variant=variant, tcp=tcp,
                          duration_s=seconds, error_rate=loss, seed=seed, warmup_s=0.0, interval_s=0.25)
                rates.append(res.summary.loc["h1h2", "goodput_bps"])
            note = f"{v}, {tcp}, {seconds:.0f} s, whole test, mean of seeds 1-{len(rates)}"
            rows += [row(question, where, algo, "goodput", f"{np.mean(rates) / 1e6:.3f}", "Mbit/s", note),
                     row(question, where, algo, "goodput_min", f"{min(rates) / 1e6:.3f}", "Mbit/s", note),
                     row(question, where, algo, "goodput_max", f"{max(rates) / 1e6:.3f}", "Mbit/s", note)]
        res = run(S003, f"{variant} {tcp} 60 s", variant=variant, tcp=tcp, duration_s=60.0, error_rate=loss,
                  seed=1, warmup_s=0.0)
        rows.append(row(question, f"{scenario}, 60 s", algo, "goodput",
                        f"{res.summary.loc['h1h2', 'goodput_bps'] / 1e6:.3f}", "Mbit/s", f"{v}, {tcp}, 60 s, seed 1"))
    if only_lossy:
        return rows
    for question, scenario, variant, seconds, loss in SINGLE:
        for algo, tcp in TCP.items():
            res = run(S003, f"{variant} {tcp} {seconds:.0f} s", variant=variant, tcp=tcp, duration_s=seconds,
                      error_rate=loss, seed=1, warmup_s=0.0)
            note = f"{v}, {tcp}, {seconds:.0f} s, whole test, seed 1"
            rows += [row(question, scenario, algo, "goodput", f"{res.summary.loc['h1h2', 'goodput_bps'] / 1e6:.3f}",
                         "Mbit/s", note),
                     row(question, scenario, algo, "host_drops", drops(res, "h1-s1"), "packets",
                         f"{note}: packets dropped by h1's own interface")]
    for scenario, variant, algo, loss in PAIRS:
        tcp = TCP[algo]
        # as Mininet's net.iperf ran them: one pair after the other
        res = run(S003, f"{variant} {tcp} one after the other", variant=variant, tcp=tcp,
                  duration_s=2 * PAIR_SECONDS, error_rate=loss, seed=1, warmup_s=0.0,
                  start_s={"h1h2": 0.0, "h3h4": PAIR_SECONDS}, stop_s={"h1h2": PAIR_SECONDS, "h3h4": 2 * PAIR_SECONDS})
        note = f"{v}, {tcp}, {PAIR_SECONDS:.0f} s each, one pair after the other, seed 1"
        rows += [row("lab5_4", scenario, f, "goodput", f"{res.summary.loc[f, 'goodput_bps'] / 1e6:.3f}", "Mbit/s", note)
                 for f in ("h1h2", "h3h4")]
        res = run(S003, f"{variant} {tcp} together", variant=variant, tcp=tcp, duration_s=PAIR_SECONDS,
                  error_rate=loss, seed=1, warmup_s=0.0)
        note = f"{v}, {tcp}, {PAIR_SECONDS:.0f} s, both pairs at once, seed 1"
        rows += [row("lab5_4", f"{scenario}, together", f, "goodput",
                     f"{res.summary.loc[f, 'goodput_bps'] / 1e6:.3f}", "Mbit/s", note) for f in ("h1h2", "h3h4")]
    return rows


def seed003_findings(parts=("loss", "core", "window")) -> list:
    """The runs behind notebook 10's explanations (question "finding"): ``loss`` (the lossy
    long link at lower loss rates), ``core`` (TCP settings on the 100 Mbit/s core), ``window``
    (Mininet's socket buffers on the 200 ms core)."""
    rows = []
    v = version()
    print("seed 003: findings " + ", ".join(parts), flush=True)
    # 1. the lossy long link: its test at loss rates below the configured 0.1 % per segment
    question, scenario, variant, _ = LOSSY
    for p in FINDING_LOSSES if "loss" in parts else ():
        for algo, tcp in TCP.items():
            rates = [run(S003, f"{variant} {tcp} {LOSSY_SECONDS:.0f} s, loss {100 * p:g} %, seed {seed}",
                         variant=variant, tcp=tcp, duration_s=LOSSY_SECONDS, error_rate={"s1-s2": p} if p else 0.0,
                         seed=seed, warmup_s=0.0, interval_s=0.25).summary.loc["h1h2", "goodput_bps"]
                     for seed in (FINDING_SEEDS[p] if p else [1])]
            note = (f"{v}, {tcp}, {LOSSY_SECONDS:.0f} s, whole test, loss {100 * p:g} % per segment on s1-s2, "
                    + (f"seeds 1-{len(rates)}" if p else "no loss"))
            where = f"lossy long link, loss {100 * p:g} %"
            if not p:
                res = run(S003, f"{variant} {tcp} 5 s, no loss", variant=variant, tcp=tcp, duration_s=5.0,
                          seed=1, warmup_s=0.0, interval_s=0.25)
                rows.append(row("finding", "lossy long link, 5 s, loss 0 %", algo, "goodput",
                                f"{res.summary.loc['h1h2', 'goodput_bps'] / 1e6:.3f}", "Mbit/s",
                                f"{v}, {tcp}, 5 s, whole test, no loss"))
            rows += [row("finding", where, algo, "goodput", f"{np.mean(rates) / 1e6:.3f}", "Mbit/s", note),
                     row("finding", where, algo, "goodput_min", f"{min(rates) / 1e6:.3f}", "Mbit/s", note),
                     row("finding", where, algo, "goodput_max", f"{max(rates) / 1e6:.3f}", "Mbit/s", note)]
    # 2. one pair on the 100 Mbit/s core: no setting of ns-3's TCP keeps it from the link
    for label, kw in CORE_SETTINGS.items() if "core" in parts else ():
        res = run(S003, f"core_100m {label}", variant="core_100m", duration_s=10.0, seed=1, warmup_s=0.0, **kw)
        rows.append(row("finding", f"100 Mbit/s core, {label}", "h1h2", "goodput",
                        f"{res.summary.loc['h1h2', 'goodput_bps'] / 1e6:.3f}", "Mbit/s", f"{v}, 10 s, seed 1"))
    # 3. the 200 ms core: the window Mininet's buffers allow
    for algo, tcp in TCP.items() if "window" in parts else ():
        res = run(S003, f"core_delay {tcp} 8 MiB buffers", variant="core_delay", tcp=tcp, duration_s=60.0, seed=1,
                  warmup_s=0.0, socket_buffer_bytes=MININET_WINDOW_BYTES)
        rows.append(row("finding", "200 ms core delay, 8 MiB window", algo, "goodput",
                        f"{res.summary.loc['h1h2', 'goodput_bps'] / 1e6:.3f}", "Mbit/s",
                        f"{v}, {tcp}, 60 s, whole test, socket buffers 8 MiB (Mininet's tcp_rmem maximum of 16 MiB, "
                        "half of it advertised), seed 1"))
    return rows


#: per-segment loss rates of the lossy link's 5 s test, and the seeds of each
FINDING_LOSSES = (0.0003, 0.0001, 0.00003, 0.0)
#: seeds per loss rate: at 0.003 % a 10 s test runs at up to 60 Mbit/s with windows of
#: thousands of segments, several minutes of wall time each
FINDING_SEEDS = {0.0003: range(1, 6), 0.0001: range(1, 6), 0.00003: range(1, 4)}
#: ns-3 settings tried on the 100 Mbit/s core (label -> simulate's options)
CORE_SETTINGS = {
    "Linux Reno": dict(tcp="LinuxReno"),
    "NewReno": dict(tcp="NewReno"),
    "CUBIC": dict(tcp="Cubic"),
    "CUBIC, delayed ACKs": dict(tcp="Cubic", delayed_ack_count=2),
    "CUBIC, no SACK": dict(tcp="Cubic", sack=False),
    "CUBIC, queues of 100": dict(tcp="Cubic", queue_packets=100),
}
#: Mininet sets tcp_rmem's maximum to 16 MiB (mininet.util.fixLimits); Linux advertises half
MININET_WINDOW_BYTES = 2**23
#: a group of findings (findings-<group>) -> the words its rows' scenario holds
FINDING_GROUP = {"loss": "lossy long link", "core": "100 Mbit/s core", "window": "200 ms core delay"}


# --- seed 002 ---------------------------------------------------------------------------

S002 = scenario_path("seed002")
#: the long flow alone: long enough for several cycles of its sawtooth (34 s with 100 packets)
SECONDS002 = 300.0
PAGE_BYTES = 178_000
#: the page is fetched three times behind the long flow (one run each), each fetch given 15 s
PAGE_STARTS = (40.0, 60.0, 80.0)
PAGE_SECONDS = 15.0
BOTTLENECK = "s0-h2"


def page_seconds(res, start_s, flow="web"):
    """wget's time for the page: from its first byte to its last [s] (0.01 s intervals)."""
    g = res.goodput[(res.goodput.flow == flow) & (res.goodput.start_s >= start_s - 1e-9)
                    & (res.goodput.end_s <= start_s + PAGE_SECONDS + 1e-9)]
    got = g.bytes.cumsum().to_numpy()
    ends = g.end_s.to_numpy()
    first = ends[np.argmax(got > 0)] - 0.01          # the interval in which the first byte came
    return ends[np.argmax(got >= PAGE_BYTES)] - first


def ping_rtts(res, base_rtt_s, after_s):
    """The RTT a ping would see behind the bottleneck queue at each queue sample [s]."""
    from labcalc.scenario import load_network

    q = res.queue[(res.queue.link == BOTTLENECK) & (res.queue.time_s >= after_s)]
    rate = load_network(S002).links[BOTTLENECK].capacity_bps
    waiting = q.backlog_bytes + sim.PPP_HEADER_BYTES * q.backlog_packets
    return base_rtt_s + 8 * waiting.to_numpy() / rate


def loss_table(res, flow="iperf"):
    """The losses of a flow: its cwnd phases' '3 duplicate ACKs' and 'timeout' events."""
    from labcalc import measure

    phases = measure.cwnd_phases(res.cwnd[res.cwnd.flow == flow].drop(columns="flow")).table()
    return phases[phases.event.isin(["3 duplicate ACKs", "timeout"])]


def seed002_rows() -> list:
    rows = []
    v = version()
    base_rtt = 4 * 0.0075                  # 7.5 ms on each link, each way
    print("seed 002: bufferbloat", flush=True)
    res = run(S002, "idle: the page alone", variant="idle", tcp="LinuxReno", duration_s=PAGE_SECONDS,
              warmup_s=0.0, interval_s=0.01)
    rows.append(row("download", "idle", "web", "time", f"{page_seconds(res, 0.0):.2f}", "s",
                    f"{v}, LinuxReno, 178000 bytes, first to last byte"))
    for q in (100, 20):
        scenario = f"iperf qlen {q}"
        note = f"{v}, LinuxReno, {SECONDS002:.0f} s, seed 1"
        res = run(S002, f"qlen {q}: the long flow", variant=f"qlen{q}", tcp="LinuxReno", duration_s=SECONDS002,
                  warmup_s=0.0, interval_s=1.0)
        rtt = ping_rtts(res, base_rtt, after_s=20.0)
        rows.append(row("iperf", scenario, "iperf", "goodput", f"{res.summary.loc['iperf', 'goodput_bps'] / 1e6:.3f}",
                        "Mbit/s", f"{note}: the long flow over the whole run"))
        rows += [row("ping", scenario, "h1-h2", metric, f"{1e3 * value:.1f}", "ms",
                     f"{note}: a ping behind the queue at every queue sample (0.1 s) after 20 s")
                 for metric, value in (("rtt_min", rtt.min()), ("rtt", rtt.mean()), ("rtt_max", rtt.max()))]
        losses = loss_table(res)
        later = losses[losses.event == "3 duplicate ACKs"].iloc[1:]
        kb = lambda x: f"{x / 1e3:.1f}"                                 # noqa: E731
        rows += [row("cwnd", scenario, "iperf", "cwnd_first_loss", kb(losses.cwnd_before.iloc[0]), "kB",
                     f"{note}: the window at the first loss"),
                 row("cwnd", scenario, "iperf", "cwnd_high", kb(later.cwnd_before.median()), "kB",
                     f"{note}: median window at the {len(later)} later losses"),
                 row("cwnd", scenario, "iperf", "cwnd_low", kb(later.cwnd_after.median()), "kB",
                     f"{note}: median window after them"),
                 row("cwnd", scenario, "iperf", "timeouts", int((losses.event == "timeout").sum()), "1",
                     f"{note}: losses repaired by a timeout"),
                 row("cwnd", scenario, "iperf", "losses", len(losses), "1",
                     f"{note}: all losses (three duplicate ACKs or timeout)")]
        rows.append(row("queue", scenario, "switch", "loss_event_period", f"{later.time_s.diff().mean():.1f}", "s",
                        f"{note}: mean time between the {len(later)} losses after slow start"))
        # the same with ns-3's own RTO: a timeout after every loss (Linux's RTO is simulate's default)
        own = loss_table(run(S002, f"qlen {q}: the long flow, ns-3's RTO", variant=f"qlen{q}", tcp="LinuxReno",
                             duration_s=SECONDS002, warmup_s=0.0, interval_s=1.0, linux_rto=False))
        rows += [row("cwnd", f"{scenario}, ns-3's RTO", "iperf", "timeouts", int((own.event == "timeout").sum()), "1",
                     f"{note}, linux_rto=False: losses repaired by a timeout"),
                 row("cwnd", f"{scenario}, ns-3's RTO", "iperf", "losses", len(own), "1",
                     f"{note}, linux_rto=False: all losses (three duplicate ACKs or timeout)")]
        pages = []
        for start in PAGE_STARTS:
            res = run(S002, f"qlen {q}: the long flow and the page at {start:.0f} s", variant=f"qlen{q}_page",
                      tcp="LinuxReno", duration_s=start + PAGE_SECONDS, warmup_s=0.0, interval_s=0.01,
                      start_s={"iperf": 0.0, "web": start})
            pages.append(page_seconds(res, start))
        words = f"{v}, LinuxReno, 178000 bytes, first to last byte, fetched at " + ", ".join(
            f"{t:.0f}" for t in PAGE_STARTS) + " s (one run each)"
        rows += [row("download", scenario, "web", "time", f"{np.median(pages):.2f}", "s", f"{words}: median"),
                 row("download", scenario, "web", "time_min", f"{min(pages):.2f}", "s", words),
                 row("download", scenario, "web", "time_max", f"{max(pages):.2f}", "s", words)]
    return rows


def main(argv):
    parts = argv or ["seed002", "seed003", "findings"]
    unknown = [p for p in parts if p not in ("seed002", "seed003", "seed003-lossy", "findings")
               and p.split("-", 1)[-1] not in FINDING_GROUP]
    if unknown:
        sys.exit(f"unknown part {unknown[0]!r}: give seed002, seed003 (or seed003-lossy: its lab5_2 rows only) "
                 "and/or findings")
    if "seed003-lossy" in parts:
        path = DATA / "seed003" / "simulated" / "ns3.csv"
        with open(path, newline="") as fh:
            kept = [r for r in csv.DictReader(fh) if r["question"] != LOSSY[0]]
        write_rows(path, seed003_rows(only_lossy=True) + kept)
    if "seed002" in parts:
        write_rows(DATA / "seed002" / "simulated" / "ns3.csv", seed002_rows())
    if "seed003" in parts:
        write_rows(DATA / "seed003" / "simulated" / "ns3.csv", seed003_rows())
    if "findings" in parts:
        write_rows(DATA / "seed003" / "simulated" / "findings.csv", seed003_findings())
    for part in [p for p in parts if p.startswith("findings-")]:
        # one group of findings, merged into findings.csv in place of its earlier rows
        group = part.split("-", 1)[1]
        path = DATA / "seed003" / "simulated" / "findings.csv"
        new = seed003_findings((group,))
        old = []
        if path.exists():
            with open(path, newline="") as fh:
                old = [r for r in csv.DictReader(fh) if FINDING_GROUP[group] not in r["scenario"]]
        write_rows(path, new + old)


if __name__ == "__main__":
    main(sys.argv[1:])
