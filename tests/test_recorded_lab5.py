"""The recorded runs of handout parts 1 and 2 (data/measurements/lab5/recorded-2026-11-27).

scripts/record_lab5_matrix.sh recorded them in network namespaces (see the folder's
README.txt). Every row of the table its manifest builds is checked here against the file
read by hand: regular expressions over the printouts, ``json`` over the -J outputs, never
labcalc's readers. The rule a manifest follows for a window is documented in
:mod:`labcalc.measure.manifest` and repeated by the hand readings: per-interval lines inside
``[start, end]`` s of the client's clock (an interval overhanging an edge by less than 2 % of
the usual interval length counts as inside: iperf3 -J's ends drift around whole seconds),
those shorter than half or longer than 1.5 times the usual interval left out (iperf's last
stub, an iperf 2 client's last interval while its socket drains); timestamped samples (ping -D, ss, tc) counted from the file's first
sample; a loss over a window is sum(lost) / sum(total); a rate is the mean of the interval
rates. Where steady_state chose the window (the row says so), the window is pinned too:
the warm-up it cut, read off the file.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from labcalc import compare
from labcalc.measure.manifest import build_manifest

HERE = Path(__file__).resolve().parents[1] / "data" / "measurements" / "lab5" / "recorded-2026-11-27"
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}
_BYTES = {"": 1.0, "K": 1024.0, "M": 1024.0**2, "G": 1024.0**3}


#: the handout's runs (what the notebooks read) and the test matrix (the other forms of the same runs)
MANIFESTS = {"main": HERE / "manifest.toml", "matrix": HERE / "matrix" / "manifest.toml"}


@pytest.fixture(scope="module")
def tables():
    return {k: build_manifest(p, allow_outside=(k == "matrix")) for k, p in MANIFESTS.items()}


# --- hand readings ---------------------------------------------------------------------------

def iperf3_text_intervals(path):
    """(start, end, rate_bps, lost, total) of the per-interval lines ([SUM] lines when there are)."""
    rx = re.compile(r"^\[\s*(\d+|SUM)\]\s+([\d.]+)-\s*([\d.]+)\s+sec\s+[\d.]+ \w?Bytes\s+([\d.]+) (\w?)bits/sec"
                    r"(?:\s+[\d.]+ ms\s+(\d+)/(\d+))?")
    rows, sums = [], []
    for line in path.read_text().splitlines():
        m = rx.match(line)
        if not m or line.rstrip().endswith(("sender", "receiver")):
            continue
        row = (float(m[2]), float(m[3]), float(m[4]) * _PREFIX[m[5]],
               float(m[6]) if m[6] else np.nan, float(m[7]) if m[7] else np.nan)
        (sums if m[1] == "SUM" else rows).append(row)
    return np.array(sums or rows)


def iperf3_json_intervals(path, field=None):
    """(start, end, value, lost, total) of the intervals' sums (a stream's field: cwnd, rtt)."""
    doc = json.loads(path.read_text())
    out = []
    for iv in doc["intervals"]:
        s = iv["sum"]
        value = s["bits_per_second"] if field is None else iv["streams"][0][field]
        out.append((s["start"], s["end"], value, s.get("lost_packets", np.nan), s.get("packets", np.nan)))
    return np.array(out, dtype=float)


def iperf2_text_intervals(path, column="rate"):
    """(start, end, value, lost, total) of iperf 2's interval lines, its end-of-test line left out."""
    rx = re.compile(r"^\[\s*\d+\]\s+([\d.]+)-([\d.]+) sec\s+[\d.]+ \w?Bytes\s+([\d.]+) (\w?)bits/sec"
                    r"(?:\s+[\d.]+ ms\s+(\d+)/(\d+))?(?:.*?\s(\d+)K/\d+\(\d+\) us)?")
    rows = []
    for line in path.read_text().splitlines():
        m = rx.match(line)
        if m:
            value = float(m[3]) * _PREFIX[m[4]] if column == "rate" else float(m[7]) * 1024.0
            rows.append((float(m[1]), float(m[2]), value, float(m[5]) if m[5] else np.nan,
                         float(m[6]) if m[6] else np.nan))
    rows = np.array(rows)
    last = rows[-1]
    if len(rows) > 1 and last[0] == 0 and last[1] >= rows[:, 1].max():
        rows = rows[:-1]  # 0.0000-<end> after the intervals: the end-of-test line
    return rows


def iperf2_csv_intervals(path):
    rows = []
    with open(path, newline="") as fh:
        for f in csv.reader(fh):
            if len(f) < 9 or not re.fullmatch(r"\d{14}", f[0]):
                continue  # iperf 2's "[  3] WARNING: ack of last datagram failed." line
            a, b = (float(x) for x in f[6].split("-"))
            rows.append((a, b, float(f[8]), float(f[10]) if len(f) > 11 else np.nan,
                         float(f[11]) if len(f) > 11 else np.nan))
    rows = np.array(rows)
    if len(rows) > 1 and rows[-1][0] == 0 and rows[-1][1] >= rows[:, 1].max():
        rows = rows[:-1]
    return rows


def in_window(rows, lo, hi):
    length = rows[:, 1] - rows[:, 0]
    usual = np.median(length)
    slack = 0.02 * usual  # an interval overhanging the window by under 2 % of the usual length is in it
    keep = ((rows[:, 0] >= lo - slack) & (rows[:, 1] <= hi + slack)
            & (length >= 0.5 * usual) & (length <= 1.5 * usual))
    return rows[keep]


def ping_d(path):
    rx = re.compile(r"^\[(\d+\.\d+)\] \d+ bytes from .* time=([\d.]+) ms")
    got = [(float(m[1]), float(m[2]) / 1e3) for m in map(rx.match, path.read_text().splitlines()) if m]
    t = np.array(got)
    t[:, 0] -= t[0, 0]
    return t


def ping_avg(path):
    m = re.search(r"rtt min/avg/max/mdev = [\d.]+/([\d.]+)/", path.read_text())
    return float(m[1]) / 1e3


def iperf3_receiver_loss(path):
    m = re.search(r"(\d+)/(\d+) \([\d.]+%\)\s+receiver\s*$", path.read_text(), re.M)
    return int(m[1]) / int(m[2])


def data_connection(client):
    """The local end of iperf3's data connection, as its client printout names it ('local A port P connected')."""
    m = re.search(r"local (\S+) port (\d+) connected to", client.read_text())
    return f"{m[1]}:{m[2]}"


def first_stamp(path):
    return float(re.search(r"^# (\d+\.\d+)$", path.read_text(), re.M)[1])


def ss_cwnd(path, local):
    """(stamp, cwnd) of one connection's samples."""
    stamp, out, first, take = None, [], None, False
    for line in path.read_text().splitlines():
        m = re.match(r"^# (\d+\.\d+)$", line)
        if m:
            stamp = float(m[1])
            first = stamp if first is None else first
            continue
        if re.match(r"^[A-Z][A-Z-]+\d?\s", line):  # a socket line, in any state (SYN-SENT at the start)
            take = line.split()[3] == local
            continue
        if take and "cwnd:" in line:
            out.append((stamp, float(re.search(r"\bcwnd:(\d+)", line)[1])))
            take = False
    return np.array(out)


def tc_root_backlog(path):
    """(stamp, packets queued at the root qdisc, htb 1:) of each sample of a tc -s qdisc loop, text or -j."""
    stamp, out, leaf = None, [], False
    for line in path.read_text().splitlines():
        m = re.match(r"^# (\d+\.\d+)$", line)
        if m:
            stamp = float(m[1])
        elif line.startswith("["):
            out += [(stamp, q["qlen"]) for q in json.loads(line) if q.get("root")]
        elif line.startswith("qdisc "):
            leaf = " root " in line
        elif leaf and line.strip().startswith("backlog"):
            out.append((stamp, float(re.search(r"backlog \S+ (\d+)p", line)[1])))
            leaf = False
    return np.array(out)


def iperf2_end_line(path, report=False):
    """(rate bps, lost, total) of iperf 2's end-of-test line: the server's 0.0000-<end> line, or the
    client's Server Report (report=True), or the client's own summary line."""
    rx = re.compile(r"^\[\s*\d+\] 0\.0+-([\d.]+) sec\s+[\d.]+ \w?Bytes\s+([\d.]+) (\w?)bits/sec(?:\s+[\d.]+ ms\s+(\d+)/(\d+))?")
    text = path.read_text()
    text = text.split("Server Report:", 1)[1] if report else text.split("Server Report:", 1)[0]
    found = [m for m in map(rx.match, text.splitlines()) if m]
    m = max(found, key=lambda m: float(m[1])) if not report else found[0]
    return float(m[2]) * _PREFIX[m[3]], float(m[4] or "nan"), float(m[5] or "nan")


def server_output_intervals(path):
    """The server's intervals that --get-server-output appends to a client printout (text or -J)."""
    if path.suffix == ".json":
        doc = json.loads(path.read_text())["server_output_json"]
        return np.array([(iv["sum"]["start"], iv["sum"]["end"], iv["sum"]["bits_per_second"], np.nan, np.nan)
                         for iv in doc["intervals"]])
    return iperf3_text_intervals_of(path.read_text().split("Server output:", 1)[1])


def iperf3_text_intervals_of(text):
    rx = re.compile(r"^\[\s*(\d+|SUM)\]\s+([\d.]+)-\s*([\d.]+)\s+sec\s+[\d.]+ \w?Bytes\s+([\d.]+) (\w?)bits/sec")
    rows = [(float(m[2]), float(m[3]), float(m[4]) * _PREFIX[m[5]], np.nan, np.nan)
            for m in map(rx.match, text.splitlines()) if m and not m.string.rstrip().endswith(("sender", "receiver"))]
    return np.array(rows)


def ping_times_from_statistics(path):
    """(time since the first reply, rtt) of a ping without -D: ping i left at (i - 1) x the interval,
    the interval being the run's time over the pings sent minus one (iputils' time runs from the
    first ping sent to the last one sent: tests/test_manifest_qa.py checks it against -D stamps of
    replies 0.28 s late)."""
    text = path.read_text()
    replies = [(int(m[1]), float(m[2]) / 1e3) for m in re.finditer(r"icmp_seq=(\d+) ttl=\d+ time=([\d.]+) ms", text)]
    stats = re.search(r"(\d+) packets transmitted, .* time (\d+)ms", text)
    sent, run_s = int(stats[1]), int(stats[2]) / 1e3
    interval = run_s / (sent - 1)
    t = np.array([(seq - 1) * interval + rtt for seq, rtt in replies])
    return np.column_stack([t - t[0], [rtt for _, rtt in replies]])


def hand_value(row):
    """The row's value read off its file by hand, over the window the row states."""
    path = (HERE / row.source).resolve() if not row.source.startswith("..") else (HERE / "matrix" / row.source).resolve()
    lo, hi = (float(x) for x in row.window_s.split("-")) if row.window_s else (None, None)
    name = path.name
    if row.stat == "summary" and name.endswith(".json"):  # iperf3 -J: end.sum_received / end.sum_sent
        end = json.loads(path.read_text())["end"]
        line = end["sum_sent"] if row.metric == "offered_rate" else end["sum_received"]
        return line["lost_packets"] / line["packets"] if row.metric == "loss" else line["bits_per_second"]
    if row.stat == "summary" and "iperf2" in name:
        rate, lost, total = iperf2_end_line(path, report="client" in name and row.metric == "loss")
        return lost / total if row.metric == "loss" else rate
    if row.metric == "loss" and row.stat == "summary":
        return iperf3_receiver_loss(path)
    if row.metric == "rtt" and row.stat == "summary":
        return ping_avg(path)
    if "get-server-output" in row.note:
        return in_window(server_output_intervals(path), lo, hi)[:, 2].mean()
    if name.endswith("_ping.txt"):
        t = ping_times_from_statistics(path)
        return t[(t[:, 0] >= lo - 1e-9) & (t[:, 0] <= hi + 1e-9), 1].mean()
    if "ping-D" in name:
        t = ping_d(path)
        inside = t[(t[:, 0] >= lo - 1e-9) & (t[:, 0] <= hi + 1e-9)]
        return inside[:, 1].mean()
    if name.endswith("_ss.txt"):  # the data connection; time from the file's first stamp line
        run, host = name.split("_")[:2]
        samples = ss_cwnd(path, data_connection(HERE / f"{run}_{host}_tcp_iperf3_client.txt"))
        t = samples[:, 0] - first_stamp(path)
        return samples[(t >= lo - 1e-9) & (t <= hi + 1e-9), 1].mean()
    if "_r1_tc." in name:  # the root qdisc; time from the file's first stamp line
        samples = tc_root_backlog(path)
        t = samples[:, 0] - first_stamp(path)
        return samples[(t >= lo - 1e-9) & (t <= hi + 1e-9), 1].mean()
    if "iperf3" in name and name.endswith(".json"):
        field = {"cwnd": "snd_cwnd", "rtt": "rtt"}.get(row.metric)
        rows = in_window(iperf3_json_intervals(path, field), lo, hi)
        # a window in segments of the MSS the document states (its windows are whole multiples of it)
        mss = json.loads(path.read_text())["start"].get("tcp_mss_default") if row.unit == "segments" else 1.0
        return {"cwnd": 1.0 / mss, "rtt": 1e-6}.get(row.metric, 1.0) * rows[:, 2].mean() if row.metric != "loss" \
            else rows[:, 3].sum() / rows[:, 4].sum()
    if "iperf3" in name:
        rows = in_window(iperf3_text_intervals(path), lo, hi)
    elif name.endswith(".csv"):
        rows = in_window(iperf2_csv_intervals(path), lo, hi)
    else:
        rows = in_window(iperf2_text_intervals(path, "cwnd" if row.metric == "cwnd" else "rate"), lo, hi)
        if row.metric == "cwnd" and row.unit == "segments":  # KBytes over the MSS its connected line states
            return rows[:, 2].mean() / float(re.search(r"icwnd/mss/irtt=\d+/(\d+)/", path.read_text())[1])
    if row.metric == "loss":
        return rows[:, 3].sum() / rows[:, 4].sum()
    return rows[:, 2].mean()


#: The windows steady_state chose, as read off the files: where the warm-up ends.
STEADY = {
    ("Q1", "10 Mbit/s bottleneck", "h1_udp", "goodput"): "0-10", ("Q6", "4.5 Mbit/s offered", "h1_udp", "goodput"): "0-10",
    ("Q7", "5 Mbit/s offered", "h1_udp", "goodput"): "2-10", ("Q7", "10 Mbit/s offered", "h1_udp", "goodput"): "0-10",
    ("Q7", "20 Mbit/s offered", "h1_udp", "goodput"): "2-10", ("Q2", "10 Mbit/s bottleneck", "h1_tcp", "goodput"): "0-10",
    ("Q10", "5 Mbit/s bottleneck", "h1_tcp", "goodput"): "2-10",
    ("Q14", "A1", "h1_udp", "goodput"): "0-10", ("Q14", "A1", "h2_udp", "goodput"): "0-10",
    ("Q14", "A2", "h1_udp", "goodput"): "4-10", ("Q14", "A2", "h2_udp", "goodput"): "2-10",
    ("Q14", "A3", "h1_udp", "goodput"): "4-10", ("Q14", "A3", "h2_udp", "goodput"): "4-10",
    # the UDP clients' sending rates (offered_rate): steady from the start, but at 10 Mbit/s
    ("Q1", "10 Mbit/s bottleneck", "h1_udp", "offered_rate"): "0-10",
    ("Q6", "4.5 Mbit/s offered", "h1_udp", "offered_rate"): "0-10",
    ("Q7", "5 Mbit/s offered", "h1_udp", "offered_rate"): "0-10",
    ("Q7", "10 Mbit/s offered", "h1_udp", "offered_rate"): "4-10",
    ("Q7", "20 Mbit/s offered", "h1_udp", "offered_rate"): "0-10",
    # the test matrix: the -J intervals end a few microseconds off the second
    ("Q10", "5 Mbit/s bottleneck, iperf3 -J", "h1_tcp", "goodput"): "2.000076-10.000078",
    ("Q10", "5 Mbit/s bottleneck, iperf3 -J", "h1_tcp", "cwnd"): "0-10.00009",
    ("Q10", "5 Mbit/s bottleneck, iperf3 -J", "h1_tcp", "rtt"): "0-10.00009",
    ("Q10", "5 Mbit/s bottleneck, iperf3 -R", "h1_tcp", "goodput"): "4-10",
    ("Q10", "5 Mbit/s bottleneck, iperf3 -R -J", "h1_tcp", "goodput"): "2.000152-10.000094",
    ("Q10", "5 Mbit/s bottleneck, iperf3 -P 2", "h1_tcp", "goodput"): "2-10",
    ("Q10", "5 Mbit/s bottleneck, iperf3 -P 2 -J", "h1_tcp", "goodput"): "2.000097-10.000075",
    ("Q10", "5 Mbit/s bottleneck, iperf 2", "h1_tcp", "goodput"): "3-10.5209",
    ("Q10", "5 Mbit/s bottleneck, iperf 2 -e", "h1_tcp", "goodput"): "2-10",
    ("Q10", "5 Mbit/s bottleneck, iperf 2 -e", "h1_tcp", "cwnd"): "0-10",
    ("Q10", "5 Mbit/s bottleneck, iperf 2 -y C", "h1_tcp", "goodput"): "1-10.5",
    ("Q7", "10 Mbit/s offered, iperf3 -J", "h1_udp", "goodput"): "2.000074-10.000075",
    ("Q7", "10 Mbit/s offered, iperf 2", "h1_udp", "goodput"): "2-10",
    ("Q7", "10 Mbit/s offered, iperf 2 -e", "h1_udp", "goodput"): "2-10",
    ("Q7", "10 Mbit/s offered, iperf 2 -y C", "h1_udp", "goodput"): "4-10",
    ("Q10", "5 Mbit/s bottleneck, --get-server-output", "h1_tcp", "goodput"): "4-10",
    ("Q10", "5 Mbit/s bottleneck, --get-server-output -J", "h1_tcp", "goodput"): "0-10.000088",
}


def _rows():
    return [(k, i, f"{k}: {r.question} {r.scenario} {r.flow} {r.metric}")
            for k, p in MANIFESTS.items() for i, r in enumerate(build_manifest(p, allow_outside=(k == "matrix")).itertuples())]


ROWS = _rows()


@pytest.mark.parametrize("which, index", [(k, i) for k, i, _ in ROWS], ids=[label for _, _, label in ROWS])
def test_every_row_is_the_file_read_by_hand(tables, which, index):
    import tomllib

    row = tables[which].iloc[index]
    entries = tomllib.loads(MANIFESTS[which].read_text())["measurement"]
    entry = next(e for e in entries if (e["question"], e["scenario"], e["flow"], e["metric"])
                 == (row.question, row.scenario, row.flow, row.metric))
    row = row.copy()
    row["connection"] = entry.get("connection")
    if row.window_from.startswith("steady_state"):
        # a row of the same flow and file takes the goodput's window ("the window of the goodput row")
        metric = "goodput" if "the window of the goodput row" in row.window_from else row.metric
        assert row.window_s == STEADY[(row.question, row.scenario, row.flow, metric)]
    assert float(row.value) == pytest.approx(hand_value(row), rel=1e-9), (row.source, row.window_s)


def test_the_windows_of_the_b_runs_are_the_manifests():
    t = build_manifest(MANIFESTS["main"])
    b = t[t.scenario.isin(["B1", "B2", "B3"])]
    assert set(b.window_s) == {"5-20"}
    # the losses take their flow's goodput window, written once
    losses = b[b.metric == "loss"]
    assert len(losses) == 6 and all("the window of the goodput row" in w for w in losses.window_from)


def test_handout_notebooks_find_every_row_they_compare():
    m = compare.load_measurements(HERE, quiet=True)
    keys = set(zip(m.question, m.scenario, m.flow, m.metric))
    for q, scenario in (("Q1", "10 Mbit/s bottleneck"), ("Q6", "4.5 Mbit/s offered"), ("Q7", "5 Mbit/s offered"),
                        ("Q7", "10 Mbit/s offered"), ("Q7", "20 Mbit/s offered")):
        for metric in ("goodput", "loss", "offered_rate"):
            assert (q, scenario, "h1_udp", metric) in keys
    for run in ("B1", "B2", "B3"):
        for flow in ("h1_udp", "h2_udp", "h2_tcp"):
            assert ("Q18", run, flow, "goodput") in keys
        assert {("Q18", run, "h2_udp", "loss"), ("Q18", run, "h2_tcp", "rtt"), ("Q18", run, "h2_tcp", "cwnd")} <= keys
