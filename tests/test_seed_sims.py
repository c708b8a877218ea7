"""The committed ns-3 runs of seed reports 002 and 003 (scripts/simulate_seeds.py, ns-3 3.44, seed 1).

The files are read with the csv module here, not with labcalc's reader; each value is pinned
against the report's number (data/measurements/seed00N/report.csv) or the theory, with the
tolerance the notebooks state, and against what the run itself must satisfy.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "measurements"


def rows(path):
    with open(path, newline="") as fh:
        return {(r["question"], r["scenario"], r["flow"], r["metric"]): (float(r["value"]), r["unit"], r["note"])
                for r in csv.DictReader(fh)}


@pytest.fixture(scope="module")
def s002():
    return rows(DATA / "seed002" / "simulated" / "ns3.csv"), rows(DATA / "seed002" / "report.csv")


def test_seed002_files_say_what_ran(s002):
    sim, _ = s002
    assert all(note.startswith("ns-3 3.44") and "LinuxReno" in note for _, _, note in sim.values())
    assert {unit for _, unit, _ in sim.values()} <= {"s", "ms", "kB", "Mbit/s", "1"}


def test_seed002_windows_and_pages_agree_with_the_report(s002):
    sim, report = s002
    for q, rel in ((100, 0.05), (20, 0.12)):      # the 20-packet windows are read off a figure
        for metric in ("cwnd_first_loss", "cwnd_high", "cwnd_low"):
            key = ("cwnd", f"iperf qlen {q}", "iperf", metric)
            assert sim[key][0] == pytest.approx(report[key][0], rel=rel), key
    # the page: 1.0 s idle (ns-3 0.99), 2.9 s behind 20 packets (ns-3 3.15), within 10 %
    for scenario in ("idle", "iperf qlen 20"):
        key = ("download", scenario, "web", "time")
        assert sim[key][0] == pytest.approx(report[key][0], rel=0.10), key
    # behind 100 packets the report's 4.7 s lies inside the spread of ns-3's three fetches
    q100 = ("download", "iperf qlen 100", "web")
    assert sim[q100 + ("time_min",)][0] < report[q100 + ("time",)][0] < sim[q100 + ("time_max",)][0]
    # the time between losses: 33.9 s against the report's 25 -> 55 -> 95 s (35 s), within 10 %
    events = [report[("queue", "iperf qlen 100", "switch", f"loss_event_{k}")][0] for k in (1, 2, 3)]
    period = sim[("queue", "iperf qlen 100", "switch", "loss_event_period")][0]
    assert period == pytest.approx((events[-1] - events[0]) / 2, rel=0.10)
    # pings: the averages within 12 %, every ping above the idle RTT of 30 ms
    for q in (100, 20):
        key = ("ping", f"iperf qlen {q}", "h1-h2")
        assert sim[key + ("rtt",)][0] == pytest.approx(report[key + ("rtt",)][0], rel=0.12)
        assert 30 < sim[key + ("rtt_min",)][0] < sim[key + ("rtt",)][0] < sim[key + ("rtt_max",)][0]


def test_seed002_linux_rto_leaves_only_the_slow_start_timeout(s002):
    sim, _ = s002
    for q in (100, 20):
        mine = {k: sim[("cwnd", f"iperf qlen {q}", "iperf", k)][0] for k in ("losses", "timeouts")}
        own = {k: sim[("cwnd", f"iperf qlen {q}, ns-3's RTO", "iperf", k)][0] for k in ("losses", "timeouts")}
        assert mine["timeouts"] == 1 and mine["losses"] >= 10
        # with ns-3's own RTO every fast retransmission is followed by a timeout
        assert own["timeouts"] == own["losses"] - own["timeouts"]


@pytest.fixture(scope="module")
def s003():
    sim = rows(DATA / "seed003" / "simulated" / "ns3.csv")
    found = rows(DATA / "seed003" / "simulated" / "findings.csv")
    return sim, found, rows(DATA / "seed003" / "report.csv")


def test_seed003_hosts_never_drop_their_own_segments(s003):
    """Every single-pair run, the 200 ms / 1 Gbit/s one included: zero drops at h1's own interface."""
    sim, _, _ = s003
    drops = {k: v for k, (v, _, _) in sim.items() if k[3] == "host_drops"}
    assert len(drops) == 8 and set(drops.values()) == {0.0}
    assert drops[("lab5_3", "200 ms core delay", "reno", "host_drops")] == 0


def test_seed003_ns3_fills_the_links_mininet_did_not(s003):
    sim, found, report = s003
    p2p = lambda bps: bps * 1448 / 1502 / 1e6                          # noqa: E731  ns-3's goodput capacity
    for scenario, rate in (("1 Gbit/s baseline", 1e9), ("100 Mbit/s core", 100e6)):
        for flow in ("reno", "cubic"):
            assert sim[("lab5_3", scenario, flow, "goodput")][0] == pytest.approx(p2p(rate), rel=0.002)
            assert report[("lab5_3", scenario, flow, "server_goodput")][0] < 0.7 * p2p(rate)
    # every TCP setting tried keeps the 100 Mbit/s core full, except SACK off
    core = {k[1]: v for k, (v, _, _) in found.items() if k[1].startswith("100 Mbit/s core, ")}
    assert len(core) == 6
    assert {k for k, v in core.items() if v < 0.99 * p2p(100e6)} == {"100 Mbit/s core, CUBIC, no SACK"}
    # one pair after the other on the 100 Mbit/s core: each fills it (Mininet: 36 to 82)
    alone = [v for k, (v, _, _) in sim.items() if k[0] == "lab5_4" and "together" not in k[1]]
    assert len(alone) == 10 and min(alone) > 0.95 * p2p(100e6)


def test_seed003_the_200_ms_core_is_limited_by_the_window(s003):
    sim, found, report = s003
    for flow in ("reno", "cubic"):
        six = sim[("lab5_3", "200 ms core delay", flow, "goodput")][0]
        eight = found[("finding", "200 ms core delay, 8 MiB window", flow, "goodput")][0]
        assert six < 6291456 * 8 / 0.410 / 1e6 < eight                  # 6 MiB per RTT, below what 8 MiB gives
        assert eight == pytest.approx(report[("lab5_3", "200 ms core delay", flow, "server_goodput")][0], rel=0.07)


def test_seed003_the_lossy_link(s003):
    sim, found, report = s003
    key = ("lab5_2", "lossy long link")
    reno = {m: sim[key + ("reno", m)][0] for m in ("goodput", "goodput_min", "goodput_max")}
    cubic = {m: sim[key + ("cubic", m)][0] for m in ("goodput", "goodput_min", "goodput_max")}
    # Reno's measured rate inside the spread of 20 seeds at 0.1 %, CUBIC's far above it
    assert reno["goodput_min"] < report[key + ("reno", "server_goodput")][0] < reno["goodput_max"]
    assert report[key + ("cubic", "server_goodput")][0] > 2 * cubic["goodput_max"]
    # ...and inside the spread at 0.003 % per segment
    low = ("finding", "lossy long link, loss 0.003 %", "cubic")
    assert found[low + ("goodput_min",)][0] < report[key + ("cubic", "server_goodput")][0] < found[low + ("goodput_max",)][0]
    # a 5 s test could not deliver CUBIC's rate even without loss: the test lasted longer
    assert found[("finding", "lossy long link, 5 s, loss 0 %", "cubic", "goodput")][0] < 0.7 * 36.3
    # fewer losses, faster tests: the sweep is monotonic for both
    for flow in ("reno", "cubic"):
        means = [sim[key + (flow, "goodput")][0]] + [found[("finding", f"lossy long link, loss {p} %", flow, "goodput")][0]
                                                      for p in ("0.03", "0.01", "0.003", "0")]
        assert means == sorted(means)
