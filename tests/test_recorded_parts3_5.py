"""The recorded runs of handout parts 3-5 and Q46 (data/measurements/lab5/recorded-parts3-5).

scripts/record_lab5_parts3_5.sh recorded them in network namespaces (see the folder's
README.txt: no netem, so every delay is queueing; no RED). Every row of the table its manifest
builds is checked here against its file read by hand: regular expressions over the printouts
and logs, ``json`` over the -J outputs, ``csv`` over the settings table, never labcalc's
readers. The window rules are those of data/README.md, repeated by the hand readings:
iperf's per-interval lines inside ``[start, end]`` s, an interval overhanging an edge by less
than 2 % of the usual interval length counting as inside, intervals shorter than half or
longer than 1.5 times the usual one left out (the last stub); ping -D replies timed from the
file's first stamp; ss and tc samples timed from the file's first ``# <epoch>`` line; a loss
over a window is sum(lost) / sum(total), a rate or RTT the mean of the samples.
"""

from __future__ import annotations

import csv
import json
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from labcalc import compare
from labcalc.measure.manifest import build_manifest

HERE = Path(__file__).resolve().parents[1] / "data" / "measurements" / "lab5" / "recorded-parts3-5"
MANIFEST = HERE / "manifest.toml"
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}
_STAMP = re.compile(r"^# (\d+\.\d+)$")


@pytest.fixture(scope="module")
def table():
    return build_manifest(MANIFEST)


# --- hand readings ---------------------------------------------------------------------------

def iperf3_text(path):
    """(start, end, rate bps, lost, total) of the interval lines; the [SUM] lines when there are."""
    rx = re.compile(r"^\[\s*(\d+|SUM)\]\s+([\d.]+)-\s*([\d.]+)\s+sec\s+[\d.]+ \w?Bytes\s+([\d.]+) (\w?)bits/sec"
                    r"(?:\s+[\d.]+ ms\s+(\d+)/(\d+))?")
    rows, sums = [], []
    for line in path.read_text().splitlines():
        m = rx.match(line)
        if m and not line.rstrip().endswith(("sender", "receiver")):
            row = (float(m[2]), float(m[3]), float(m[4]) * _PREFIX[m[5]],
                   float(m[6]) if m[6] else np.nan, float(m[7]) if m[7] else np.nan)
            (sums if m[1] == "SUM" else rows).append(row)
    return np.array(sums or rows)


def iperf3_json(path):
    doc = json.loads(path.read_text())
    return np.array([(iv["sum"]["start"], iv["sum"]["end"], iv["sum"]["bits_per_second"],
                      iv["sum"].get("lost_packets", np.nan), iv["sum"].get("packets", np.nan))
                     for iv in doc["intervals"]], dtype=float)


def iperf2_text(path):
    """iperf 2's interval lines, its 0.0000-<end> line of the whole test left out."""
    rx = re.compile(r"^\[\s*\d+\]\s+([\d.]+)-([\d.]+) sec\s+[\d.]+ \w?Bytes\s+([\d.]+) (\w?)bits/sec")
    rows = np.array([(float(m[1]), float(m[2]), float(m[3]) * _PREFIX[m[4]], np.nan, np.nan)
                     for m in map(rx.match, path.read_text().splitlines()) if m])
    if rows[-1][0] == 0 and rows[-1][1] >= rows[:, 1].max():
        rows = rows[:-1]
    return rows


def in_window(rows, lo, hi):
    length = rows[:, 1] - rows[:, 0]
    usual = np.median(length)
    slack = 0.02 * usual
    keep = ((rows[:, 0] >= lo - slack) & (rows[:, 1] <= hi + slack)
            & (length >= 0.5 * usual) & (length <= 1.5 * usual))
    return rows[keep]


def ping_d(path):
    """(seconds since the first reply's stamp, rtt s) of each reply."""
    t = np.array([(float(m[1]), float(m[2]) / 1e3) for m in re.finditer(
        r"^\[(\d+\.\d+)\] \d+ bytes from .* time=([\d.]+) ms", path.read_text(), re.M)])
    t[:, 0] -= t[0, 0]
    return t


def first_stamp(path):
    return next(float(m[1]) for m in map(_STAMP.match, path.read_text().splitlines()) if m)


def ss_rtt(path, local):
    """(stamp, smoothed rtt s) of the socket whose local end is ``local`` (ss -tin state established:
    a socket line 'Recv-Q Send-Q Local Peer', then a tab-indented line with 'rtt:<ms>/<var>')."""
    stamp, take, out = None, False, []
    for line in path.read_text().splitlines():
        m = _STAMP.match(line)
        if m:
            stamp = float(m[1])
            continue
        sock = re.match(r"^\d+\s+\d+\s+(\S+)\s+\S+", line)
        if sock:
            take = sock[1] == local
        elif take and " rtt:" in line:
            out.append((stamp, float(re.search(r"\brtt:([\d.]+)/", line)[1]) / 1e3))
            take = False
    return np.array(out)


def tc_root_backlog(path):
    """(stamp, packets) of the htb root's backlog line in each sample."""
    stamp, root, out = None, False, []
    for line in path.read_text().splitlines():
        m = _STAMP.match(line)
        if m:
            stamp = float(m[1])
        elif line.startswith("qdisc "):
            root = " root " in line
        elif root and line.strip().startswith("backlog"):
            out.append((stamp, float(re.search(r"backlog \S+ (\d+)p", line)[1])))
            root = False
    return np.array(out)


def data_connection(client):
    """The local end of iperf3's data connection, as its client printout names it."""
    m = re.search(r"local (\S+) port (\d+) connected to", client.read_text())
    return f"{m[1]}:{m[2]}"


def inside(t, lo, hi):
    return (t >= lo - 1e-9) & (t <= hi + 1e-9)


def hand_value(row, entry):
    """The row's value read off its file by hand, over the manifest's window."""
    path = HERE / row.source
    name = path.name
    if name == "settings.csv":
        with open(path, newline="") as fh:
            rec = next(r for r in csv.DictReader(fh) if r["metric"] == row.metric)
        # the setting is the pfifo's limit that every sample of the tc loop shows
        limits = set(re.findall(r"qdisc pfifo \S+ parent \S+ limit (\d+)p", (HERE / "q46_r1_tc.txt").read_text()))
        assert limits == {rec["value"]}, limits
        return float(rec["value"])
    lo, hi = entry["window_s"]
    if "ping-D" in name:
        t = ping_d(path)
        v = t[inside(t[:, 0], lo, hi), 1]
        return {"rtt": v.mean(), "rtt_min": v.min(), "rtt_max": v.max()}[row.metric]
    if name.endswith("_ss.txt"):
        run, host = name.split("_")[:2]
        local = entry.get("connection") or data_connection(HERE / f"{run}_{host}_iperf3_client.txt")
        s = ss_rtt(path, local)
        return s[inside(s[:, 0] - first_stamp(path), lo, hi), 1].mean()
    if name.endswith("_tc.txt"):
        s = tc_root_backlog(path)
        return s[inside(s[:, 0] - first_stamp(path), lo, hi), 1].mean()
    reader = iperf3_json if name.endswith(".json") else iperf2_text if "iperf2" in name else iperf3_text
    rows = in_window(reader(path), lo, hi)
    if row.metric == "loss":
        return rows[:, 3].sum() / rows[:, 4].sum()
    return rows[:, 2].mean()


def _entries():
    return tomllib.loads(MANIFEST.read_text())["measurement"]


ROWS = [(i, f"{r.question} {r.scenario} {r.flow} {r.metric}") for i, r in enumerate(build_manifest(MANIFEST).itertuples())]


@pytest.mark.parametrize("index", [i for i, _ in ROWS], ids=[label for _, label in ROWS])
def test_every_row_is_the_file_read_by_hand(table, index):
    row = table.iloc[index]
    entry = next((e for e in _entries() if (e["question"], e["scenario"], e["flow"], e["metric"])
                  == (row.question, row.scenario, row.flow, row.metric)), None)
    if entry is not None:  # a [[measurement]]: the window is the manifest's, as written
        assert row.window_from == "manifest"
        assert row.window_s == "-".join(f"{x:g}" for x in entry["window_s"])
        assert row.source == entry["file"]
    assert float(row.value) == pytest.approx(hand_value(row, entry), rel=1e-9), (row.source, row.window_s)


def test_the_numbers_the_readme_states():
    """README.txt's account of what differs from the handout, read off the files."""
    ab = iperf3_text(HERE / "q25_AB_iperf3_server.txt")
    got = ab[:, 4] - ab[:, 3]   # datagrams received per interval
    assert got[(ab[:, 0] >= 2) & (ab[:, 1] <= 15.02)].sum() == 1 and got[-1] == 43
    for run, low, high in (("d2cubic", 0.08, 0.12), ("d2reno", 0.08, 0.12)):
        lost, total = map(int, re.search(r"(\d+)/(\d+) \([\d.]+%\)\s+receiver",
                                         (HERE / f"{run}_ackload_udp_server.txt").read_text()).groups())
        assert low <= lost / total <= high, (run, lost, total)
    # the full 1000-packet queue at 5 Mbit/s, one 1514-byte frame per entry: 2.42 s
    assert ping_d(HERE / "q46_h1_ping-D.txt")[:, 1].max() == pytest.approx(1000 * 1514 * 8 / 5e6, rel=0.01)
    # no netem: an idle ping takes 0.01-0.06 ms (the first reply of 9 of the 11 pings; in q27 and
    # d2reno the flows were already queueing when the ping started)
    first = {f.name: ping_d(f)[0, 1] for f in HERE.glob("*_ping-D.txt")}
    idle = {k: v for k, v in first.items() if v < 1e-3}
    assert len(first) == 11 and set(first) - set(idle) == {"q27_h1_ping-D.txt", "d2reno_h1_ping-D.txt"}
    assert 0.011e-3 <= min(idle.values()) and max(idle.values()) <= 0.061e-3


def test_notebooks_04_to_07_find_every_row_they_compare():
    m = compare.load_measurements(HERE, quiet=True)
    keys = set(zip(m.question, m.scenario, m.flow, m.metric))
    for q, scenario in (("Q25", "UDP at access rates"), ("Q26", "UDP at max-min rates")):
        for flow in ("AB", "CD"):
            assert {(q, scenario, flow, "goodput"), (q, scenario, flow, "loss")} <= keys
    assert {("Q27", "TCP", f, "goodput") for f in ("AB", "CD")} <= keys
    assert {("Q32", "D1", h, "goodput") for h in ("h1", "h2")} <= keys
    assert {(q, s, h, "goodput") for q, s in (("Q36", "D2 CUBIC"), ("Q37", "D2 Reno")) for h in ("h1", "h2")} <= keys
    for f in ("1to2", "1to3", "2to3"):
        assert {("Q42", "two bottlenecks", f, "goodput"), ("Q43", "two bottlenecks", f, "rtt")} <= keys
    bonus = ("Q46", "CUBIC without RED/ECN")
    assert {(*bonus, "h1", x) for x in ("goodput", "rtt", "rtt_min", "rtt_max")} | {(*bonus, "h2", "goodput"),
                                                                                     (*bonus, "r1-eth1", "max_queue")} <= keys
    assert len(m) == len(_entries()) + 1  # every [[measurement]] plus the settings row
