"""What a manifest makes of a file (issue 19 items 1-4, 9, 11; issue 20 item 2): the test matrix.

One cell per tool x side x transport x metric x stat over the formats students save. Each
cell builds a one-entry manifest over a real file and checks either

* the value against an independent reading of the same file: the regular expressions and
  the json below, not labcalc's readers, over the window the row names; or
* a refusal naming what the file lacks and a next step, which the cell then follows
  (the keys the message suggests) and which must give a value, checked the same way.

The files: tests/data/measure/manifest/ (recorded by scripts/record_manifest_fixtures.sh in
network namespaces: htb 5 Mbit/s with a 30-packet pfifo, UDP offered at 8 Mbit/s, 4-s runs),
tests/data/measure/ and data/measurements/recorded/ (their READMEs say how each was made).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from tests.manifest_cells import build, refused, window_of

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "measure"
MF = DATA / "manifest"
REC = ROOT / "data" / "measurements" / "recorded"

# --- independent readings ----------------------------------------------------------------

_UNIT = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}
# "[  5]   0.00-1.00   sec   595 KBytes  4.88 Mbits/sec  0.966 ms  221/642 (34%)  receiver"
_IPERF_LINE = re.compile(
    r"^\[\s*(?P<id>\*?\d+|SUM)\]\s+(?P<t0>[\d.]+)\s*-\s*(?P<t1>[\d.]+)\s+sec\s+[\d.]+\s+\w?Bytes\s+"
    r"(?P<rate>[\d.]+)\s+(?P<ru>[KMG]?)bits/sec(?P<rest>.*)$")
_LOST = re.compile(r"(\d+)/\s*(\d+)\s+\(")
_ROLE = re.compile(r"\b(sender|receiver)\s*$")


def iperf_text(path: Path):
    """Interval lines and end-of-test lines of an iperf 2 or iperf3 text printout.

    Returns (intervals, ends, server_intervals, server_ends); each line a dict with id,
    t0, t1, rate [bit/s], lost, total (None when absent), role ("sender"/"receiver"/None),
    and for iperf 2 whether it follows "Server Report:".
    """
    parts = {"client": ([], []), "server": ([], [])}
    where, after_report, seen = "client", False, set()
    for line in path.read_text().splitlines():
        s = line.strip()
        if s.startswith("Server output:"):
            where, seen = "server", set()
            continue
        if s.endswith("Server Report:"):
            after_report = True
            continue
        m = _IPERF_LINE.match(s)
        if not m:
            continue
        lost = _LOST.search(m["rest"])
        role = _ROLE.search(m["rest"])
        rec = {"id": m["id"].lstrip("*"), "t0": float(m["t0"]), "t1": float(m["t1"]),
               "rate": float(m["rate"]) * _UNIT[m["ru"]], "lost": int(lost[1]) if lost else None,
               "total": int(lost[2]) if lost else None, "role": role[1] if role else None,
               "report": after_report}
        after_report = False
        intervals, ends = parts[where]
        key = rec["id"]
        # iperf3 names its end lines; iperf 2's is a stream's second line starting at 0
        if rec["role"] or rec["report"] or (rec["t0"] == 0.0 and key in seen):
            ends.append(rec)
        else:
            intervals.append(rec)
            seen.add(key)
    return parts["client"][0], parts["client"][1], parts["server"][0], parts["server"][1]


def window_rows(intervals, lo, hi):
    """Intervals inside [lo, hi], SUM rows where the file has them, trailing stubs left out."""
    rows = [r for r in intervals if r["t0"] >= lo - 1e-9 and r["t1"] <= hi + 1e-9]
    if any(r["id"] == "SUM" for r in rows):
        rows = [r for r in rows if r["id"] == "SUM"]
    lengths = sorted(r["t1"] - r["t0"] for r in intervals)
    median = lengths[len(lengths) // 2] if len(lengths) % 2 else sum(lengths[len(lengths) // 2 - 1:][:2]) / 2
    return [r for r in rows if r["t1"] - r["t0"] >= 0.5 * median]


def mean_rate(rows):
    by = {}
    for r in rows:
        by.setdefault((r["t0"], r["t1"]), []).append(r["rate"])
    return sum(sum(v) for v in by.values()) / len(by)


def pooled(rows):
    return sum(r["lost"] for r in rows) / sum(r["total"] for r in rows)


def iperf3_json(path: Path):
    doc = json.loads(path.read_text())
    sums = [iv["sum"] for iv in doc["intervals"]]
    return doc, [{"t0": s["start"], "t1": s["end"], "rate": s["bits_per_second"], "lost": s.get("lost_packets"),
                  "total": s.get("packets"), "id": "SUM"} for s in sums]


def iperf2_csv(path: Path):
    rows = []
    for line in path.read_text().splitlines():
        f = line.split(",")
        if len(f) < 9 or not re.match(r"^\d{14}", f[0]):
            continue
        t0, t1 = (float(x) for x in f[6].split("-"))
        rows.append({"src": f"{f[1]}:{f[2]}", "dst": f"{f[3]}:{f[4]}", "t0": t0, "t1": t1, "rate": float(f[8]),
                     "lost": int(f[10]) if len(f) >= 14 else None, "total": int(f[11]) if len(f) >= 14 else None,
                     "n": len(f)})
    return rows


_PING = re.compile(r"^(?:\[(?P<t>[\d.]+)\] )?\d+ bytes from \S+ icmp_seq=(?P<seq>\d+) ttl=\d+ time=(?P<rtt>[\d.]+) ms")
_PING_STATS = re.compile(r"(\d+) packets transmitted, (\d+) received, .*time (\d+)ms")
_PING_RTT = re.compile(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")


def ping_text(path: Path):
    replies = []
    stats = rtt = None
    for line in path.read_text().splitlines():
        m = _PING.match(line.replace(":", "", 1) if "bytes from" in line else line)
        if m:
            replies.append((float(m["t"]) if m["t"] else None, int(m["seq"]), float(m["rtt"]) * 1e-3))
        stats = _PING_STATS.search(line) or stats
        rtt = _PING_RTT.search(line) or rtt
    return replies, stats, rtt


def ss_text(path: Path):
    """(stamp, local, peer, cwnd, rtt [s], bytes_acked) per socket sample, and the first stamp."""
    out, stamp, first, sock = [], None, None, None
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            stamp = float(line[2:])
            first = stamp if first is None else first
        elif line.startswith("ESTAB"):
            f = line.split()
            sock = (f[3], f[4])
        elif line.startswith("\t") and sock:
            cwnd = re.search(r"\bcwnd:(\d+)", line)
            rtt = re.search(r"\brtt:([\d.]+)/", line)
            acked = re.search(r"\bbytes_acked:(\d+)", line)
            out.append((stamp, sock[0], sock[1], int(cwnd[1]), float(rtt[1]) * 1e-3, int(acked[1]) if acked else 0))
            sock = None
    return out, first


def tc_text(path: Path, kind: str):
    """(stamp, backlog packets) of the qdisc of *kind* in each sample, and the first stamp."""
    out, stamp, first, current = [], None, None, None
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            stamp = float(line[2:])
            first = stamp if first is None else first
        elif line.startswith("qdisc "):
            current = line.split()[1]
        elif "backlog" in line and current == kind:
            out.append((stamp, int(re.search(r"backlog \S+ (\d+)p", line)[1])))
    return out, first


# --- iperf 2, text --------------------------------------------------------------------------------

def test_iperf2_udp_server_with_i(tmp_path):
    """The server's -i 1 lines are the receiver's; its last line 0.0000-4.0740 sec ... 1171/2857 is
    its end-of-test line (issue 19: 'this iperf file has no receiver's end-of-test line')."""
    f = MF / "iperf2_udp_server_i1.txt"
    iv, ends, _, _ = iperf_text(f)
    assert [(e["rate"], e["lost"], e["total"]) for e in ends] == [(4.87e6, 1171, 2857)]
    r = build(tmp_path, f, metric="goodput")
    assert (r.side, r.reader, r.stat) == ("receiver", "iperf", "mean")
    assert r.value == pytest.approx(mean_rate(window_rows(iv, *window_of(r))), rel=1e-12)
    loss = build(tmp_path, f, metric="loss")
    assert loss.window_s == r.window_s  # one window for the flow (item 3)
    assert loss.value == pytest.approx(pooled(window_rows(iv, *window_of(loss))), rel=1e-12)
    for metric, value in (("goodput", 4.87e6), ("loss", 1171 / 2857)):
        s = build(tmp_path, f, metric=metric, stat="summary")
        assert s.value == pytest.approx(value, rel=1e-12) and s.window_from == "server's end-of-test line"
    # the sender's rate is not in a receiver's file: the message names the file to use
    refused(tmp_path, f, ["'offered_rate'", "measured by the receiver", "UDP client's printout"],
            metric="offered_rate")
    r = build(tmp_path, MF / "iperf2_udp_client_i1.txt", metric="offered_rate")
    civ, _, _, _ = iperf_text(MF / "iperf2_udp_client_i1.txt")
    assert r.value == pytest.approx(mean_rate(window_rows(civ, *window_of(r))), rel=1e-12) and r.side == "sender"


def test_iperf2_udp_client_with_i_and_its_server_report(tmp_path):
    f = MF / "iperf2_udp_client_i1.txt"
    iv, ends, _, _ = iperf_text(f)
    report = next(e for e in ends if e["report"])
    sent = next(e for e in ends if not e["report"])
    assert (report["rate"], report["lost"], report["total"], sent["rate"]) == (4.87e6, 1171, 2857, 8.39e6)
    msg = refused(tmp_path, f, ["'side'", "measured by the sender", 'stat = "summary"', 'side = "sender"'],
                  metric="goodput")
    assert "receiver's end-of-test line" in msg
    r = build(tmp_path, f, metric="goodput", stat="summary")  # the step the message names
    assert r.value == pytest.approx(report["rate"], rel=1e-12) and r.window_from.startswith("Server Report")
    r = build(tmp_path, f, metric="goodput", side="sender")  # the other step
    assert r.value == pytest.approx(mean_rate(window_rows(iv, *window_of(r))), rel=1e-12) and r.side == "sender"
    # a loss: the client's lines count none per interval, so the Server Report (whole test), said so
    r = build(tmp_path, f, metric="loss")
    assert r.value == pytest.approx(1171 / 2857, rel=1e-12) and r.stat == "summary"
    assert "whole test" in r.window_from and "whole test" in r.note and r.window_s == ""
    msg = refused(tmp_path, f, ["'window_s'", "count no lost/total per interval", 'stat = "summary"'],
                  metric="loss", window_s=[1, 4])
    assert build(tmp_path, f, metric="loss", stat="summary").value == pytest.approx(1171 / 2857, rel=1e-12)
    for stat, value in (("summary", sent["rate"]), ("mean", None)):
        r = build(tmp_path, f, metric="offered_rate", stat=stat)
        want = value if value is not None else mean_rate(window_rows(iv, *window_of(r)))
        assert r.value == pytest.approx(want, rel=1e-12) and r.side == "sender"


def test_iperf2_udp_without_i(tmp_path):
    """Without -i each stream's only line is its whole-test line: the default takes it and says so."""
    client, server = MF / "iperf2_udp_client_noi.txt", MF / "iperf2_udp_server_noi.txt"
    _, ends, _, _ = iperf_text(client)
    iv, _, _, _ = iperf_text(client)
    assert len(iv) == 1 and iv[0]["rate"] == 8.39e6 and ends[0]["report"] and ends[0]["lost"] == 1171
    r = build(tmp_path, client, metric="offered_rate")
    assert r.value == 8.39e6 and "whole test" in r.window_from and r.stat == "summary"
    assert build(tmp_path, client, metric="loss").value == pytest.approx(1171 / 2857, rel=1e-12)
    assert build(tmp_path, client, metric="goodput", stat="summary").value == 4.87e6
    siv, _, _, _ = iperf_text(server)
    assert len(siv) == 1 and (siv[0]["lost"], siv[0]["total"]) == (1171, 2857)
    r = build(tmp_path, server, metric="goodput")
    assert r.value == 4.87e6 and "whole test" in r.window_from
    assert build(tmp_path, server, metric="loss").value == pytest.approx(1171 / 2857, rel=1e-12)
    # a window needs interval lines: refused with what to do
    refused(tmp_path, server, ["'window_s'", "1 interval line(s)", "remove window_s"], metric="goodput",
            window_s=[0, 5])


def test_iperf2_enhanced_udp(tmp_path):
    f, s = MF / "iperf2_udp_client_e.txt", MF / "iperf2_udp_server_e.txt"
    _, ends, _, _ = iperf_text(f)
    report = next(e for e in ends if e["report"])
    assert (report["rate"], report["lost"], report["total"]) == (4.87e6, 1171, 2857)
    r = build(tmp_path, f, metric="goodput", stat="summary")
    assert r.value == report["rate"]
    assert build(tmp_path, f, metric="loss", stat="summary").value == pytest.approx(1171 / 2857)
    siv, _, _, _ = iperf_text(s)
    r = build(tmp_path, s, metric="loss")
    assert r.value == pytest.approx(pooled(window_rows(siv, *window_of(r))), rel=1e-12)


def test_iperf2_tcp(tmp_path):
    c, s = MF / "iperf2_tcp_client_i1.txt", MF / "iperf2_tcp_server_i1.txt"
    civ, cends, _, _ = iperf_text(c)
    siv, sends, _, _ = iperf_text(s)
    # the client's summary is the sender's; TCP's receiver figure is only the server's
    msg = refused(tmp_path, c, ["'side'", "no receiver's end-of-test line", 'side = "sender"'],
                  metric="goodput", stat="summary")
    assert "client's end-of-test line" in msg
    r = build(tmp_path, c, metric="goodput", stat="summary", side="sender")
    assert r.value == cends[0]["rate"] == 4.78e6
    r = build(tmp_path, s, metric="goodput")
    assert r.value == pytest.approx(mean_rate(window_rows(siv, *window_of(r))), rel=1e-12)
    assert build(tmp_path, s, metric="goodput", stat="summary").value == sends[0]["rate"] == 4.79e6
    refused(tmp_path, s, ["'metric'", "'loss'", "lost/total"], metric="loss")
    refused(tmp_path, c, ["'metric'", "'offered_rate'", "TCP"], metric="offered_rate")


# --- iperf 2, -y C ----------------------------------------------------------------------------------

def test_iperf2_csv_udp(tmp_path):
    s, c = MF / "iperf2_udp_server_i1.csv", MF / "iperf2_udp_client_i1.csv"
    rows = iperf2_csv(s)
    iv = [dict(r, id="1") for r in rows if not (r["t0"] == 0 and r["t1"] > 1.5)]
    whole = [r for r in rows if r["t0"] == 0 and r["t1"] > 1.5]
    assert (whole[0]["rate"], whole[0]["lost"], whole[0]["total"]) == (4867086.0, 1171, 2857)
    r = build(tmp_path, s, metric="goodput")
    assert r.value == pytest.approx(mean_rate(window_rows(iv, *window_of(r))), rel=1e-12)
    r = build(tmp_path, s, metric="loss")
    assert r.value == pytest.approx(pooled(window_rows(iv, *window_of(r))), rel=1e-12)
    assert build(tmp_path, s, metric="goodput", stat="summary").value == 4867086.0
    # iperf 2.1's client CSV has no server report: its loss columns are placeholders
    crows = iperf2_csv(c)
    assert all(r["n"] == 14 and r["lost"] == 0 for r in crows) and crows[-1]["total"] == -1
    refused(tmp_path, c, ["lost/total", "server's"], metric="loss", stat="summary")
    civ = [dict(r, id="1") for r in crows if r["total"] != -1]
    r = build(tmp_path, c, metric="offered_rate")
    assert r.value == pytest.approx(mean_rate(window_rows(civ, *window_of(r))), rel=1e-12)


def test_iperf2_csv_of_a_20x_udp_client_without_i(tmp_path):
    """Issue 20 item 2: the 14-field line (server address first) is the server's report of the
    same transfer, with lost/total: not a second transfer in the other direction."""
    f = MF / "iperf2_20x_udp_client_noi.csv"
    own, report = iperf2_csv(f)
    assert (own["n"], report["n"]) == (9, 14) and (own["src"], own["dst"]) == (report["dst"], report["src"])
    from labcalc import measure

    df = measure.read(f)
    assert df.attrs["side"] == "client" and len(df) == 1 and df.bytes.sum() == 12506250
    r = build(tmp_path, f, metric="goodput", stat="summary")
    assert r.value == report["rate"] == 9431722 and r.side == "receiver"
    r = build(tmp_path, f, metric="loss")
    assert r.value == pytest.approx(report["lost"] / report["total"], rel=1e-12)
    assert build(tmp_path, f, metric="offered_rate").value == own["rate"]
    # two transfers appended to one file are two tests: refused, not summed
    refused(tmp_path, MF / "iperf2_20x_udp_client_noi_two.csv", ["holds 2 iperf tests", "one test per file"],
            metric="goodput", stat="summary")


def test_iperf2_server_log_of_three_clients_is_refused(tmp_path):
    refused(tmp_path, REC / "iperf2_server.txt", ["holds 3 iperf tests"], metric="goodput")


# --- iperf3, text -------------------------------------------------------------------------------------

def test_iperf3_udp_client_and_server_text(tmp_path):
    c, s = MF / "iperf3_udp_client.txt", MF / "iperf3_udp_server.txt"
    civ, cends, _, _ = iperf_text(c)
    siv, sends, _, _ = iperf_text(s)
    recv = next(e for e in cends if e["role"] == "receiver")
    assert (recv["rate"], recv["lost"], recv["total"]) == (4.71e6, 1053, 2762)
    refused(tmp_path, c, ["measured by the sender", 'stat = "summary"'], metric="goodput")
    assert build(tmp_path, c, metric="goodput", stat="summary").value == recv["rate"]
    r = build(tmp_path, c, metric="loss")
    assert r.value == pytest.approx(1053 / 2762, rel=1e-12) and r.stat == "summary" and "whole test" in r.window_from
    refused(tmp_path, c, ["'stat'", "no lost/total per interval", 'stat = "summary"'], metric="loss", stat="mean")
    r = build(tmp_path, c, metric="offered_rate")
    assert r.value == pytest.approx(mean_rate(window_rows(civ, *window_of(r))), rel=1e-12)
    assert build(tmp_path, c, metric="offered_rate", stat="summary").value == 8.0e6
    r = build(tmp_path, s, metric="goodput")
    assert r.value == pytest.approx(mean_rate(window_rows(siv, *window_of(r))), rel=1e-12)
    assert "4.21" not in r.window_s  # the 0.21-s stub is left out
    r = build(tmp_path, s, metric="loss")
    assert r.value == pytest.approx(pooled(window_rows(siv, *window_of(r))), rel=1e-12)
    assert build(tmp_path, s, metric="loss", stat="summary").value == pytest.approx(sends[0]["lost"] / sends[0]["total"])


def test_iperf3_reverse_udp(tmp_path):
    """-R: the client receives (its intervals are the receiver's), the server sends."""
    c, s = MF / "iperf3_udp_R_client.txt", MF / "iperf3_udp_R_server.txt"
    civ, cends, _, _ = iperf_text(c)
    siv, sends, _, _ = iperf_text(s)
    r = build(tmp_path, c, metric="goodput")
    assert r.side == "receiver" and r.value == pytest.approx(mean_rate(window_rows(civ, *window_of(r))))
    refused(tmp_path, c, ["measured by the receiver", 'stat = "summary"'], metric="offered_rate")
    assert build(tmp_path, c, metric="offered_rate", stat="summary").value == 3.0e6
    assert [e["role"] for e in sends] == ["sender"]
    r = build(tmp_path, s, metric="offered_rate")
    assert r.value == pytest.approx(mean_rate(window_rows(siv, *window_of(r))), rel=1e-12)


def test_iperf3_udp_parallel(tmp_path):
    c, s = MF / "iperf3_udp_P2_client.txt", MF / "iperf3_udp_P2_server.txt"
    _, cends, _, _ = iperf_text(c)
    siv, _, _, _ = iperf_text(s)
    sum_recv = next(e for e in cends if e["id"] == "SUM" and e["role"] == "receiver")
    assert (sum_recv["rate"], sum_recv["lost"], sum_recv["total"]) == (4.85e6, 1055, 2762)
    assert build(tmp_path, c, metric="goodput", stat="summary").value == sum_recv["rate"]
    assert build(tmp_path, c, metric="loss", stat="summary").value == pytest.approx(1055 / 2762)
    r = build(tmp_path, s, metric="loss")
    assert r.value == pytest.approx(pooled(window_rows(siv, *window_of(r))), rel=1e-12)
    r = build(tmp_path, s, metric="goodput")
    assert r.value == pytest.approx(mean_rate(window_rows(siv, *window_of(r))), rel=1e-12)


def test_iperf3_get_server_output_text(tmp_path):
    """--get-server-output: the server's own intervals in the client's file give the receiver's rate
    and lost/total over a window."""
    f = MF / "iperf3_udp_gso_client.txt"
    _, _, siv, sends = iperf_text(f)
    assert len(siv) == 5 and sends[0]["lost"] == 1053
    r = build(tmp_path, f, metric="goodput")
    assert r.side == "receiver" and "--get-server-output" in r.note
    assert r.value == pytest.approx(mean_rate(window_rows(siv, *window_of(r))), rel=1e-12)
    loss = build(tmp_path, f, metric="loss")
    assert loss.value == pytest.approx(pooled(window_rows(siv, *window_of(loss))), rel=1e-12)


def test_iperf3_tcp_text(tmp_path):
    f = REC / "iperf3_tcp.txt"
    _, ends, _, _ = iperf_text(f)
    recv = next(e for e in ends if e["role"] == "receiver")
    assert build(tmp_path, f, metric="goodput", stat="summary").value == recv["rate"] == 9.54e6
    refused(tmp_path, f, ["'metric'", "'loss'", "lost/total"], metric="loss")
    refused(tmp_path, f, ["give no rtt_s", "iperf3 -J"], metric="rtt")


# --- iperf3, JSON ----------------------------------------------------------------------------------------

def test_iperf3_udp_json_client_and_server(tmp_path):
    c, s = MF / "iperf3_udp_client.json", MF / "iperf3_udp_server.json"
    cdoc, civ = iperf3_json(c)
    sdoc, siv = iperf3_json(s)
    sr = cdoc["end"]["sum_received"]
    refused(tmp_path, c, ["measured by the sender", 'stat = "summary"'], metric="goodput")
    r = build(tmp_path, c, metric="goodput", stat="summary")
    assert r.value == sr["bits_per_second"] and r.window_from == "end.sum_received"
    r = build(tmp_path, c, metric="loss")
    assert r.value == pytest.approx(sr["lost_packets"] / sr["packets"], rel=1e-12) and "whole test" in r.window_from
    r = build(tmp_path, c, metric="offered_rate")
    assert r.value == pytest.approx(mean_rate(window_rows(civ, *window_of(r))), rel=1e-12)
    assert build(tmp_path, c, metric="offered_rate", stat="summary").value == cdoc["end"]["sum_sent"]["bits_per_second"]
    r = build(tmp_path, s, metric="goodput")
    assert r.value == pytest.approx(mean_rate(window_rows(siv, *window_of(r))), rel=1e-12)
    loss = build(tmp_path, s, metric="loss")
    assert loss.value == pytest.approx(pooled(window_rows(siv, *window_of(loss))), rel=1e-12)
    ssr = sdoc["end"]["sum_received"]
    assert build(tmp_path, s, metric="goodput", stat="summary").value == ssr["bits_per_second"]
    assert build(tmp_path, s, metric="loss", stat="summary").value == pytest.approx(ssr["lost_packets"] / ssr["packets"])


def test_iperf3_json_reverse_and_server_output(tmp_path):
    doc, iv = iperf3_json(MF / "iperf3_udp_R_client.json")
    r = build(tmp_path, MF / "iperf3_udp_R_client.json", metric="goodput")
    assert r.value == pytest.approx(mean_rate(window_rows(iv, *window_of(r))), rel=1e-12)
    f = MF / "iperf3_udp_gso_client.json"
    doc = json.loads(f.read_text())
    server = doc["server_output_json"]
    siv = [{"t0": i["sum"]["start"], "t1": i["sum"]["end"], "rate": i["sum"]["bits_per_second"],
            "lost": i["sum"]["lost_packets"], "total": i["sum"]["packets"], "id": "SUM"} for i in server["intervals"]]
    r = build(tmp_path, f, metric="goodput")
    assert r.value == pytest.approx(mean_rate(window_rows(siv, *window_of(r))), rel=1e-9)
    loss = build(tmp_path, f, metric="loss")
    assert loss.value == pytest.approx(pooled(window_rows(siv, *window_of(loss))), rel=1e-12)


def test_iperf3_tcp_json(tmp_path):
    c, s = MF / "iperf3_tcp_client.json", MF / "iperf3_tcp_server.json"
    doc = json.loads(c.read_text())
    sender = doc["end"]["streams"][0]["sender"]
    r = build(tmp_path, c, metric="rtt", stat="summary")
    assert r.value == pytest.approx(sender["mean_rtt"] * 1e-6, rel=1e-12)
    assert build(tmp_path, c, metric="rtt_min", stat="summary").value == pytest.approx(sender["min_rtt"] * 1e-6)
    r = build(tmp_path, c, metric="cwnd")
    cw = [iv["streams"][0]["snd_cwnd"] for iv in doc["intervals"]]
    # counted in segments of the MSS the client's document states (start.tcp_mss_default)
    mss = doc["start"]["tcp_mss_default"]
    assert mss == 1448 and all(w % mss == 0 for w in cw)
    assert r.unit == "segments" and r.value == pytest.approx(sum(cw) / len(cw) / mss, rel=1e-12)
    assert r.n_samples == len(cw) and "mss_bytes" in r.defaults.split() and "start.tcp_mss_default" in r.note
    refused(tmp_path, c, ["no mean cwnd", 'stat = "mean"'], metric="cwnd", stat="summary")
    assert build(tmp_path, c, metric="cwnd", stat="max").value == max(cw) / mss
    refused(tmp_path, c, ["lost/total"], metric="loss")
    sdoc, siv = iperf3_json(s)
    r = build(tmp_path, s, metric="goodput")
    assert r.value == pytest.approx(mean_rate(window_rows(siv, *window_of(r))), rel=1e-12)
    assert build(tmp_path, s, metric="goodput", stat="summary").value == sdoc["end"]["sum_received"]["bits_per_second"]


# --- the lab's programs ------------------------------------------------------------------------------------

_LAB_SERVER = re.compile(r"([\d.]+)s - received:\s*(\d+)\s*(?:out of|/ sent:)\s*(\d+) pkts .*,\s*([\d.]+) kb")


def test_labtool(tmp_path):
    rows = [tuple(float(x) for x in m.groups()) for m in map(_LAB_SERVER.search,
                                                              (DATA / "labtool_udpserver.txt").read_text().splitlines()) if m]
    assert len(rows) == 4
    r = build(tmp_path, DATA / "labtool_udpserver.txt", metric="goodput")
    assert r.value == pytest.approx(sum(x[3] for x in rows) / 4 * 1e3) and r.side == "receiver"
    r = build(tmp_path, DATA / "labtool_udpserver.txt", metric="loss")
    assert r.value == pytest.approx((rows[-1][2] - rows[-1][1]) / rows[-1][2])  # running totals over the 4 lines
    r = build(tmp_path, DATA / "labtool_udpserver.txt", metric="loss", window_s=[1, 4])
    assert r.value == pytest.approx(((rows[-1][2] - rows[-1][1]) - (rows[0][2] - rows[0][1])) / (rows[-1][2] - rows[0][2]))
    refused(tmp_path, DATA / "labtool_udpserver.txt", ["no end-of-test line", 'stat = "mean"'], metric="goodput",
            stat="summary")
    msg = refused(tmp_path, DATA / "labtool_udpclient.txt", ['metric = "offered_rate"'], metric="goodput")
    sent = [float(x) for x in re.findall(r"pkts,\s*([\d.]+) kb/s", (DATA / "labtool_udpclient.txt").read_text())]
    r = build(tmp_path, DATA / "labtool_udpclient.txt", metric="offered_rate")
    assert r.value == pytest.approx(sum(sent) / len(sent) * 1e3) and r.side == "sender" and "offered_rate" in msg
    cw = [int(x) for x in re.findall(r"cwnd\s+(\d+)", (DATA / "labtool_tcpclient.txt").read_text())]
    assert build(tmp_path, DATA / "labtool_tcpclient.txt", metric="cwnd").value == pytest.approx(sum(cw) / len(cw))


# --- ping (item 2: seconds everywhere; item 9: the traffic's window) -----------------------------------------

def derived_times(replies, stats):
    """Reply times from the statistics line, by hand: interval = time / (sent - 1) (iputils' time
    runs from the first ping sent to the last one sent; tests/test_manifest_qa.py checks it on
    replies 0.3 s late)."""
    sent, time_ms = int(stats[1]), float(stats[3])
    interval = time_ms * 1e-3 / (sent - 1)
    seq0, rtt0 = replies[0][1], replies[0][2]
    return [(s - seq0) * interval + rtt - rtt0 for _, s, rtt in replies]


def test_ping_without_D_gets_seconds_from_its_statistics(tmp_path):
    f = MF / "ping_load_then_idle.txt"
    replies, stats, rtt = ping_text(f)
    times = derived_times(replies, stats)
    r = build(tmp_path, f, metric="rtt", window_s=[1, 4])
    inside = [x[2] for x, t in zip(replies, times) if 1 <= t <= 4]
    assert r.value == pytest.approx(sum(inside) / len(inside), rel=1e-12) and r.n_samples == len(inside)
    assert "times derived" in r.note and "30 pings in 5861 ms from the first sent to the last" in r.note
    # not icmp_seq 1-4: the old reading took 4 samples (seq 1..4), seconds 1-4 hold 15
    assert len(inside) > 4
    # the same derivation on the -D recording, its stamps removed, lands within 20 ms of the stamps
    d = MF / "ping_D_load_then_idle.txt"
    stamped, dstats, _ = ping_text(d)
    plain = re.sub(r"^\[[\d.]+\] ", "", d.read_text(), flags=re.M)
    (tmp_path / "plain.txt").write_text(plain)
    got = derived_times(*ping_text(tmp_path / "plain.txt")[:2])
    true = [t - stamped[0][0] for t, _, _ in stamped]
    assert max(abs(a - b) for a, b in zip(got, true)) < 0.02
    rd = build(tmp_path, d, metric="rtt", window_s=[1, 4])
    inside = [x[2] for x in stamped if 1 <= x[0] - stamped[0][0] <= 4]
    assert rd.value == pytest.approx(sum(inside) / len(inside), rel=1e-12)


def test_ping_default_window_ends_with_the_traffic(tmp_path):
    """Item 9: idle replies before and after the iperf3 run (0.05 ms) are left out of the default
    window; the statistics' average (all 30 replies) is pulled down by them."""
    f = MF / "ping_load_then_idle.txt"
    replies, stats, rtt = ping_text(f)
    r = build(tmp_path, f, metric="rtt")
    busy = [x for x in replies if x[2] > 1e-3]
    assert "idle sample(s) at the ends" in r.window_from
    assert r.n_samples <= len(busy) and r.value > float(rtt[2]) * 1e-3 * 1.3
    times = derived_times(replies, stats)
    lo, hi = window_of(r)
    inside = [x[2] for x, t in zip(replies, times) if lo - 1e-3 <= t <= hi + 1e-3]
    assert r.value == pytest.approx(sum(inside) / len(inside), rel=1e-12)
    assert all(x > 1e-3 for x in inside)
    s = build(tmp_path, f, metric="rtt", stat="summary")
    assert s.value == pytest.approx(float(rtt[2]) * 1e-3, rel=1e-12)
    loss = build(tmp_path, f, metric="loss")
    assert loss.value == 0.0 and "whole run" in loss.window_from


def test_ping_without_times_refuses_seconds_and_takes_window_seq(tmp_path):
    f = MF / "ping_killed.txt"
    replies, stats, _ = ping_text(f)
    assert stats is None and all(t is None for t, _, _ in replies)
    msg = refused(tmp_path, f, ["'window_s'", "ping -D", "window_seq"], metric="rtt", window_s=[0, 1])
    assert "seconds" in msg
    r = build(tmp_path, f, metric="rtt", window_seq=[2, 5])
    inside = [x[2] for x in replies if 2 <= x[1] <= 5]
    assert r.value == pytest.approx(sum(inside) / len(inside), rel=1e-12) and "icmp_seq 2-5" in r.window_from
    assert r.window_s == ""
    refused(tmp_path, f, ["no statistics line"], metric="loss")
    refused(tmp_path, MF / "ping_D_load_then_idle.txt", ["whole run only", 'stat = "summary"'], metric="loss",
            window_s=[1, 2])
    assert build(tmp_path, MF / "ping_D_load_then_idle.txt", metric="loss", stat="summary").value == 0.0


# --- ss, tc (item 11) --------------------------------------------------------------------------------------

def test_ss_two_connections_and_a_tc_log_started_together(tmp_path):
    ss_rows, ss_first = ss_text(MF / "ss_two_connections.txt")
    tc_rows, tc_first = tc_text(MF / "tc_htb_pfifo.txt", "pfifo")
    assert abs(ss_first - tc_first) < 0.01  # the two loops started together
    conns = {(a, b) for _, a, b, _, _, _ in ss_rows}
    assert len(conns) == 2
    data = max(conns, key=lambda c: max(x[5] for x in ss_rows if (x[1], x[2]) == c))
    r = build(tmp_path, MF / "ss_two_connections.txt", metric="cwnd", window_s=[1, 4])
    inside = [x[3] for x in ss_rows if (x[1], x[2]) == data and 1 <= x[0] - ss_first <= 4]
    assert r.value == pytest.approx(sum(inside) / len(inside), rel=1e-12) and r.n_samples == len(inside)
    assert "connection" in r.defaults.split() and f"{data[0]} <-> {data[1]}" in r.note
    # time counts from the first stamp line (no socket yet), not from the first socket
    first_socket = min(x[0] for x in ss_rows)
    assert first_socket - ss_first > 0.5
    q = build(tmp_path, MF / "tc_htb_pfifo.txt", metric="queue", window_s=[1, 4])
    inside_q = [b for t, b in tc_rows if 1 <= t - tc_first <= 4]
    assert q.n_samples == len(inside_q)  # one sample per stamp, not one per qdisc
    assert q.value == pytest.approx(sum(inside_q) / len(inside_q), rel=1e-12)
    assert "qdisc" in q.defaults.split() and "htb 1: (the root" in q.note
    p = build(tmp_path, MF / "tc_htb_pfifo.txt", metric="queue", window_s=[1, 4], qdisc="10:")
    assert p.value == pytest.approx(sum(inside_q) / len(inside_q), rel=1e-12) and "qdisc" not in p.defaults


def test_ss_connections_of_comparable_size_are_listed(tmp_path):
    text = (MF / "ss_two_connections.txt").read_text()
    # the control connection made to carry as much as the data connection: no guess
    text = re.sub(r"bytes_acked:165\b", "bytes_acked:2000000", text)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "ss.txt").write_text(text)
    msg = refused(tmp_path, tmp_path / "src" / "ss.txt", ["'connection'", "2 connections", "bytes carried",
                                                          'connection = "ip:port"'], metric="cwnd")
    port = re.search(r"10\.77\.0\.1:(\d+) <->", msg)[1]
    r = build(tmp_path, tmp_path / "src" / "ss.txt", metric="cwnd", connection=f":{port}", window_s=[0, 10])
    assert r.n_samples == 10


def test_ss_a_peer_address_or_server_port_names_the_data_connection(tmp_path):
    # iperf3's control connection has the same peer and server port as its data connection:
    # of the two a key matches, the one that carried the data is taken (a student's connection =
    # "10.77.0.2" was always refused)
    ss_rows, ss_first = ss_text(MF / "ss_two_connections.txt")
    data = max({(a, b) for _, a, b, _, _, _ in ss_rows}, key=lambda c: max(x[5] for x in ss_rows if (x[1], x[2]) == c))
    inside = [x[3] for x in ss_rows if (x[1], x[2]) == data and 1 <= x[0] - ss_first <= 4]
    for key in (data[1].rsplit(":", 1)[0], ":" + data[1].rsplit(":", 1)[1]):
        r = build(tmp_path, MF / "ss_two_connections.txt", metric="cwnd", window_s=[1, 4], connection=key)
        assert r.value == pytest.approx(sum(inside) / len(inside), rel=1e-12) and r.n_samples == len(inside)
        assert f"connection = {key!r} matched 2 connections" in r.note and "carried the data" in r.note


def test_ss_on_a_host_that_also_receives_a_flow_takes_its_own_sender(tmp_path):
    # a host that sends one flow and receives another (lab5 part 5's h2): the receiving socket
    # has no window of a flow and is left out of the choice; before, it outranked the sender
    text = (MF / "ss_two_connections.txt").read_text()
    recv = ("ESTAB 0 0 10.77.0.1:5201 10.77.0.9:40000\n\t cubic rtt:0.05/0.02 mss:1448 cwnd:10 bytes_sent:90 "
            "bytes_acked:91 bytes_received:{n} segs_out:9 segs_in:900\n")
    out, k = [], 0
    for line in text.splitlines(keepends=True):
        out.append(line)
        if line.startswith("State"):
            k += 1
            out.append(recv.format(n=3_000_000 * k))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "ss.txt").write_text("".join(out))
    ss_rows, ss_first = ss_text(MF / "ss_two_connections.txt")
    data = max({(a, b) for _, a, b, _, _, _ in ss_rows}, key=lambda c: max(x[5] for x in ss_rows if (x[1], x[2]) == c))
    inside = [x[3] for x in ss_rows if (x[1], x[2]) == data and 1 <= x[0] - ss_first <= 4]
    r = build(tmp_path, tmp_path / "src" / "ss.txt", metric="cwnd", window_s=[1, 4])
    assert r.value == pytest.approx(sum(inside) / len(inside), rel=1e-12)
    assert "left out 1 socket(s) that received a flow" in r.note and f"{data[0]} <-> {data[1]}" in r.note


def test_tcp_probe_takes_the_data_connection_and_its_sender(tmp_path):
    r = build(tmp_path, REC / "tcp_probe_trace.txt.gz", metric="cwnd")
    assert "carried the data" in r.note and "connection" in r.defaults.split()
    assert r.value > 13  # the control connection (cwnd 10) and the acknowledging end are left out
