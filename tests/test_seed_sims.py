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
