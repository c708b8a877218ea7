"""The measurement files of the seed reports (data/measurements/seed00N): they load and parse.

The report tables (report.csv) load without duplicates and hold the reference values;
the recorded and simulated runs parse with the readers of :mod:`labcalc.measure`.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import pandas as pd
import pytest

from labcalc import measure
from labcalc.compare import load_measurements

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "measurements"
SEEDS = ("seed001", "seed002", "seed003", "seed004")


@pytest.mark.parametrize("seed", SEEDS)
def test_report_files_load(seed):
    m = load_measurements(DATA / seed / "report.csv")
    assert len(m) >= 15
    assert m.duplicated(["question", "scenario", "flow", "metric"]).sum() == 0
    with open(DATA / seed / "report.csv", newline="") as fh:
        assert next(csv.reader(fh)) == ["question", "scenario", "flow", "metric", "value", "unit", "note"]


def test_report_values_match_the_reference_transcription():
    """A few numbers of ../shared/reference/other_seeds_values.toml, by hand."""
    s1 = load_measurements(DATA / "seed001" / "report.csv")
    assert s1.query("scenario == 'ns-3 NewReno' and flow == 't2' and metric == 'cwnd_after'").value.item() == 55590
    s2 = load_measurements(DATA / "seed002" / "report.csv")
    assert s2.query("scenario == 'iperf qlen 100' and metric == 'rtt'").value.item() == 582.220
    s3 = load_measurements(DATA / "seed003" / "report.csv")
    assert s3.query("scenario == 'lossy long link' and flow == 'cubic' and metric == 'goodput'").value.item() == 40.3
    # the server's rate, Mininet's first result ("*** Results: ['36.3 Mbits/sec', '40.3 Mbits/sec']")
    assert s3.query("scenario == 'lossy long link' and flow == 'cubic' and metric == 'server_goodput'").value.item() == 36.3
    s4 = load_measurements(DATA / "seed004" / "report.csv")
    assert s4.query("flow == 'b' and metric == 'decrease_to'").value.item() == 0.8333


@pytest.mark.parametrize("run", ["seed002/recorded/reno_qlen100", "seed002/recorded/reno_qlen20",
                                 "seed001/recorded/cubic_qlen100"])
def test_recorded_runs_parse(run):
    folder = DATA / run
    probe = measure.read_tcp_probe(folder / "tcp_probe.txt.gz")
    assert {"time_s", "cwnd_segments", "ssthresh_segments", "rtt_s"} <= set(probe.columns)
    assert (probe.dst.str.endswith(":5201")).sum() > 500
    queue = measure.read_qlen(folder / "qlen.txt")
    assert queue.backlog_packets.max() <= int(run.split("qlen")[1])
    ping = measure.read_ping(folder / "ping_iperf.txt")
    assert ping.attrs["summary"]["transmitted"] > 100
    clock = pd.read_csv(folder / "clock.csv")
    assert list(clock.columns) == ["epoch_s", "uptime_s"]
    assert measure.read_iperf3(folder / "iperf3.txt").attrs["summary"]


@pytest.mark.parametrize("scenario", ["one_flow", "two_flows", "five_flows", "aiad", "aimd_5_6",
                                      "competing_aimd", "competing_rtt"])
def test_simulated_runs_parse(scenario):
    folder = DATA / "seed004" / "simulated" / scenario
    received = pd.read_csv(folder / "received.csv")
    summary = pd.read_csv(folder / "summary.csv")
    assert set(received.flow) == set(summary.flow)
    for flow, g in received.groupby("flow"):
        assert g.packets.sum() == summary.set_index("flow").packets_received[flow]
        r = measure.receive_rate(g, 1.0, step_s=0.1, packet_bytes=1000)
        assert r.rate_bps.max() <= 10e6 * 1000 / 1040 * 1.05   # never above the link
    q = measure.queue_occupancy(pd.read_csv(folder / "queue.csv.gz"), drops=pd.read_csv(folder / "drops.csv"))
    assert q.new_drops.sum() == len(pd.read_csv(folder / "drops.csv"))
    with gzip.open(folder / "cwnd.csv.gz", "rt") as fh:
        assert fh.readline().strip() == "time_s,flow,cwnd_bytes,ssthresh_bytes"


def test_simulated_ns3_trace_matches_table_1_until_the_first_recovery():
    """The ns-3 3.44 run of tcp-variants-comparison (scripts/ns3_seed001.py, deterministic).

    Pinned values come from that run; the tolerances say how far from Table 1 of seed 001
    (ns-3.27) each may be: the first loss within 1 ms and 0.1 % of the window, the window
    after it within one segment. After it the versions part: 3.44 ends the recovery with
    a full ACK (no timeout), and the next loss comes when the window reaches BDP + buffer.
    """
    cwnd = measure.read_ns3(DATA / "seed001" / "simulated" / "newreno-cwnd.data")
    ssth = measure.read_ns3(DATA / "seed001" / "simulated" / "newreno-ssth.data")
    state = measure.read_ns3(DATA / "seed001" / "simulated" / "newreno-state.data", quantity="value")
    table = measure.cwnd_phases(cwnd, ssth, segment_bytes=340).table()
    assert table.state.tolist() == ["slow-start", "fast-recovery", "congestion-avoidance",
                                    "fast-recovery", "congestion-avoidance"]
    # first loss: Table 1 says 1.93189 s, 109480 -> 55590 bytes
    assert table.time_s.iloc[1] == pytest.approx(1.93189, abs=1e-3)          # run: 1.931971
    assert table.cwnd_before.iloc[1] == pytest.approx(109480, rel=1e-3)      # run: 109480
    assert table.cwnd_after.iloc[1] == pytest.approx(55590, abs=340)         # run: 55420
    # end of recovery without a timeout (ns-3's own CongState never reaches CA_LOSS = 4)
    assert table.time_s.iloc[2] == pytest.approx(2.649, abs=0.01)            # run: 2.648974
    assert table.cwnd_after.iloc[2] == 54400                                 # ssthresh = 108800 / 2
    assert not (state.value == 4).any()
    # second loss at BDP + buffer = 213 packets (notebook 08), within 2 %
    assert table.cwnd_before.iloc[3] / 340 == pytest.approx(213.1, rel=0.02)  # run: 215.3
    assert table.time_s.iloc[3] == pytest.approx(56.57, abs=0.5)              # run: 56.568701


def test_simulated_ns3_trace_without_sack_reproduces_rows_2_and_3_of_table_1():
    """scripts/ns3_seed001.py's run without SACK (ns-3 3.44, deterministic), read independently.

    Table 1 of seed 001 (ns-3.27): 1.93189 s, 109480 -> 55590 bytes (three duplicate ACKs) and
    3.26916 s, 326570 -> 340 bytes (timeout). The committed trace gives both exactly: time to
    1e-5 s (the file keeps six decimals), bytes exact. The lines are read with a regex here,
    not with labcalc's reader.
    """
    import re

    text = (DATA / "seed001" / "simulated" / "newreno-nosack-cwnd.data").read_text()
    steps = [(float(t), int(o), int(n)) for t, o, n in re.findall(r"^(\S+) (\d+) (\d+)$", text, re.M)]
    report = load_measurements(DATA / "seed001" / "report.csv").query("scenario == 'ns-3 NewReno'")
    for flow in ("t2", "t3"):
        r = report[report.flow == flow].set_index("metric").value
        near = [s for s in steps if abs(s[0] - r["time"]) < 1e-5]
        assert [(o, n) for _, o, n in near] == [(r["cwnd_before"], r["cwnd_after"])], (flow, near)
    # the first loss and the first timeout are those steps: no other step cuts the window by 40 %
    # before them (the partial ACKs of the recovery take off one to three segments each)
    cuts = [s for s in steps if s[2] < 0.6 * s[1]]
    assert cuts[0][1:] == (109480, 55590) and cuts[1][1:] == (326570, 340)
    # row 4: the same step 340 -> 680 at 3.30286 s, in slow start (ssthresh 27200 after the timeout)
    assert [(o, n) for t, o, n in steps if abs(t - 3.30286) < 1e-5] == [(340, 680)]
    ssth = re.findall(r"^(\S+) (\d+) (\d+)$", (DATA / "seed001" / "simulated" / "newreno-nosack-ssth.data")
                      .read_text(), re.M)
    assert [(round(float(t), 5), int(n)) for t, _, n in ssth[1:3]] == [(1.93189, 54570), (3.26916, 27200)]
    states = (DATA / "seed001" / "simulated" / "newreno-nosack-state.data").read_text().split("\n")
    assert states[2].split()[0] == "3.269158" and states[2].split()[2] == "4"   # CA_LOSS: the timeout


def test_scripts_exist():
    assert (ROOT / "scripts" / "record_seed_traces.sh").is_file()
    assert (ROOT / "scripts" / "simulate_seed_traces.py").is_file()
    assert (ROOT / "scripts" / "ns3_seed001.py").is_file()
    assert (ROOT / "scripts" / "simulate_seeds.py").is_file()
