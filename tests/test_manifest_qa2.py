"""What a manifest makes of the second set of edge cases (QA of issues 19 and 20, second round).

The files are tests/data/measure/qa2/, recorded by scripts/record_qa_manifest2.sh in network
namespaces (htb 5 Mbit/s with a 30-packet pfifo on both sides; its README says how each file
was made), plus a few of tests/data/measure/qa/ and manifest/. Every value is checked against
a reading of the file written here with regular expressions, csv and json, not with labcalc's
readers; every refusal is followed by the step it names, which must then give a value checked
the same way.

- the MSS a file states (iperf3 -J ``start.tcp_mss_default`` / ``tcp_mss``, iperf3 -V's
  ``TCP MSS:`` line, iperf 2.1's ``icwnd/mss/irtt``): a window in bytes counted in segments;
- a ``connection`` that matches two connections (two flows opposite ways to one port in an
  ss or tcp_probe log, the streams of iperf3 -P): refused with the list;
- iperf 2 ``-r`` / ``-d``: each direction's rates when ``connection`` or ``side`` names it;
- two pings writing one file at once: two statistics blocks after one banner;
- iperf 2 ``-y C`` TCP (2.1 without ``-e``: the CSV does not say which end printed it).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from labcalc.measure import read
from tests.manifest_cells import build, mean, refused, window_of

HERE = Path(__file__).resolve().parent / "data" / "measure"
QA2, QA, MF = HERE / "qa2", HERE / "qa", HERE / "manifest"

_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


# --- 1. the MSS a file states --------------------------------------------------------------------

def _json_windows(path: Path, socket=None):
    doc = json.loads(path.read_text())
    return doc, [(st["start"], st["end"], st["snd_cwnd"]) for iv in doc["intervals"] for st in iv["streams"]
                 if socket is None or st["socket"] == socket]


def test_iperf3_json_window_counted_in_segments_of_its_stated_mss(tmp_path):
    """iperf3 -J -P 3: each stream's snd_cwnd over start.tcp_mss_default (1448), a stream named by its port."""
    f = QA / "iperf3_tcp_P3_client.json"
    doc = json.loads(f.read_text())
    mss = doc["start"]["tcp_mss_default"]
    assert read(f).attrs["mss_bytes"] == mss == 1448
    for conn in doc["start"]["connected"]:
        _, rows = _json_windows(f, conn["socket"])
        assert all(w % mss == 0 for _, _, w in rows)  # exact: whole segments
        r = build(tmp_path, f, metric="cwnd", connection=f":{conn['local_port']}", window_s=[0, 10])
        assert r.unit == "segments" and r.n_samples == len(rows)
        assert r.value == pytest.approx(mean(w for _, _, w in rows) / mss, rel=1e-12)
        assert "mss_bytes" in r.defaults.split() and "start.tcp_mss_default" in r.note


def test_iperf3_json_with_M_counts_the_segment_less_the_timestamp_option(tmp_path):
    """-M 1000: start.tcp_mss is 1000, every snd_cwnd a multiple of 988 (the 12-byte timestamp option)."""
    f = QA2 / "iperf3_tcp_M1000_client.json"
    doc, rows = _json_windows(f)
    assert doc["start"]["tcp_mss"] == 1000
    assert all(w % 988 == 0 for _, _, w in rows) and not all(w % 1000 == 0 for _, _, w in rows)
    r = build(tmp_path, f, metric="cwnd", window_s=[0, 10])
    assert r.unit == "segments" and r.value == pytest.approx(mean(w for _, _, w in rows) / 988, rel=1e-12)
    assert "less the 12-byte TCP timestamp option" in r.note


def test_a_window_whose_file_states_no_mss_stays_in_bytes_and_says_mss_bytes(tmp_path):
    """iperf3 -R -J: the sending server's JSON says tcp_mss_default 0; its windows stay in bytes,
    the note names mss_bytes, and that next step counts them in segments."""
    f = QA2 / "iperf3_tcp_R_server.json"
    doc, rows = _json_windows(f)
    assert doc["start"]["tcp_mss_default"] == 0 and "mss_bytes" not in read(f).attrs
    r = build(tmp_path, f, metric="cwnd", window_s=[0, 10])
    assert r.unit == "bytes" and r.value == pytest.approx(mean(w for _, _, w in rows), rel=1e-12)
    assert all(w % 1448 == 0 for _, _, w in rows) and "mss_bytes = 1448" in r.note
    r = build(tmp_path, f, metric="cwnd", window_s=[0, 10], mss_bytes=1448)
    assert r.unit == "segments" and r.value == pytest.approx(mean(w for _, _, w in rows) / 1448, rel=1e-12)


def test_iperf3_over_loopback_states_an_mss_its_windows_contradict(tmp_path):
    """Over loopback tcp_mss_default says 32768 while the windows count segments of another size:
    no conversion, and the note says why."""
    f = HERE / "iperf3_client_P2.json"
    doc, rows = _json_windows(f)
    assert doc["start"]["tcp_mss_default"] == 32768 and any(w % 32768 for _, _, w in rows)
    df = read(f)
    assert "mss_bytes" not in df.attrs and "not whole multiples" in df.attrs["mss_from"]


_CWND3 = re.compile(r"^\[\s*\d+\]\s+([\d.]+)-([\d.]+)\s+sec\s.*\s(\d+)\s+([\d.]+) ([KM])Bytes\s*$")


def _iperf3_text_windows(path: Path):
    out = []
    for line in path.read_text().splitlines():
        m = _CWND3.match(line)
        if m:
            out.append((float(m[1]), float(m[2]), float(m[4]) * {"K": 1024, "M": 1024**2}[m[5]]))
    return out


def test_iperf3_text_with_V_states_its_mss(tmp_path):
    """-V prints 'TCP MSS: 1448 (default)': the Cwnd column (K = 1024 bytes) in segments of it."""
    f = QA2 / "iperf3_tcp_V_client.txt"
    mss = int(re.search(r"TCP MSS: (\d+) \(default\)", f.read_text())[1])
    rows = _iperf3_text_windows(f)
    assert mss == 1448 and len(rows) == 4
    r = build(tmp_path, f, metric="cwnd", window_s=[0, 10])
    assert r.unit == "segments" and r.value == pytest.approx(mean(w for _, _, w in rows) / mss, rel=1e-12)
    assert "TCP MSS: 1448 (default)" in r.note and "near, not exact" in r.note


def test_iperf3_text_without_V_keeps_bytes_and_says_mss_bytes(tmp_path):
    f = MF / "iperf3_during_ss_tc_client.txt"
    assert "TCP MSS" not in f.read_text()
    rows = _iperf3_text_windows(f)
    r = build(tmp_path, f, metric="cwnd", window_s=[0, 10])
    assert r.unit == "bytes" and r.value == pytest.approx(mean(w for _, _, w in rows), rel=1e-12)
    assert "the file states no MSS" in r.note and "mss_bytes = 1448" in r.note
    r = build(tmp_path, f, metric="cwnd", window_s=[0, 10], mss_bytes=1448)
    assert r.unit == "segments" and r.value == pytest.approx(mean(w for _, _, w in rows) / 1448, rel=1e-12)


# --- 2. a connection key that matches two connections ------------------------------------------

def _ss_sockets(path: Path):
    """{(local, peer): {"cwnd": [(stamp, cwnd)], "sent": max bytes_sent, "received": max bytes_received}}."""
    out, stamp, key = {}, None, None
    for line in path.read_text().splitlines():
        m = re.match(r"^# (\d+\.\d+)", line)
        if m:
            stamp = float(m[1])
            continue
        m = re.match(r"^[A-Z][A-Z0-9-]+\s+\d+\s+\d+\s+(\S+:\d+)\s+(\S+:\d+)", line)  # any state
        if m:
            key = (m[1], m[2])
            continue
        if key and "cwnd:" in line:
            d = out.setdefault(key, {"cwnd": [], "sent": 0, "received": 0})
            d["cwnd"].append((stamp, int(re.search(r"\bcwnd:(\d+)", line)[1])))
            d["sent"] = max(d["sent"], int(re.search(r"bytes_sent:(\d+)", line)[1]))
            d["received"] = max(d["received"], int(re.search(r"bytes_received:(\d+)", line)[1]))
            key = None
    return out


def test_ss_connection_matching_two_flows_is_refused_with_the_list(tmp_path):
    """Two iperf flows opposite ways, both to port 5001: ':5001' is an end of both connections."""
    f = QA2 / "ss_two_ways_5001.txt"
    socks = _ss_sockets(f)
    assert len(socks) == 2
    msg = refused(tmp_path, f, ["'connection'", "matches 2 connections", "name one exactly"],
                  metric="cwnd", connection=":5001")
    for (local, peer), d in socks.items():
        if d["received"] > d["sent"]:  # this host received: the data came from the peer
            assert f"{peer} -> {local} ({d['received']} bytes received here" in msg, msg
        else:
            assert f"{local} -> {peer} ({d['sent']} bytes sent" in msg, msg
    # the next step: the key the list gives the connection this host sent on
    (local, peer), d = next((k, v) for k, v in socks.items() if v["sent"] > v["received"])
    key = re.search(re.escape(f"{local} -> {peer}") + r" \(\d+ bytes sent; connection = \"([^\"]+)\"\)", msg)[1]
    r = build(tmp_path, f, metric="cwnd", connection=key, window_s=[0, 100])
    assert r.value == pytest.approx(mean(c for _, c in d["cwnd"]), rel=1e-12) and r.n_samples == len(d["cwnd"])
    r = build(tmp_path, f, metric="cwnd", connection=key)  # its default window works too
    assert min(c for _, c in d["cwnd"]) <= r.value <= max(c for _, c in d["cwnd"])


_PROBE = re.compile(r"\s(\d+\.\d+): tcp_probe: .*?src=(\S+) dest=(\S+) .*?snd_una=0x([0-9a-f]+) snd_cwnd=(\d+)")


def test_tcp_probe_connection_matching_two_flows_is_refused_with_the_list(tmp_path):
    """The tracepoint of the same run sees both ends of both connections; ':5001' matches both."""
    f = QA2 / "tcpprobe_two_ways_5001.txt"
    ends = {}
    for m in _PROBE.finditer(f.read_text()):
        ends.setdefault((m[2], m[3]), []).append((float(m[1]), int(m[4], 16), int(m[5])))
    acked = {}
    for key, rows in ends.items():
        una = [u for _, u, _ in rows]
        acked[key] = sum(d for d in ((b - a) % 2**32 for a, b in zip(una, una[1:])) if d < 2**31)
    senders = [max(((s, d), (d, s)), key=lambda k: acked.get(k, -1)) for s, d in ends if s < d]
    assert len(senders) == 2
    msg = refused(tmp_path, f, ["matches 2 connections", "bytes acknowledged"], metric="cwnd", connection=":5001")
    for src, dst in senders:
        assert f"{src} -> {dst} ({acked[(src, dst)]} bytes acknowledged" in msg, msg
    # the next step for each connection: the data sender's cwnd samples
    for src, dst in senders:
        key = re.search(re.escape(f"{src} -> {dst}") + r" \(\d+ bytes acknowledged; connection = \"([^\"]+)\"\)",
                        msg)[1]
        r = build(tmp_path, f, metric="cwnd", connection=key, window_s=[0, 100])
        cw = [c for _, _, c in ends[(src, dst)]]
        assert r.value == pytest.approx(mean(cw), rel=1e-12) and r.n_samples == len(cw)
        assert f"src {src}" in r.note


def test_iperf3_streams_matched_together_are_refused(tmp_path):
    """iperf3 -P 3: the server's port is an end of every stream; a cwnd of all three mixed is refused."""
    f = QA / "iperf3_tcp_P3_client.json"
    doc = json.loads(f.read_text())
    port = doc["start"]["connected"][0]["remote_port"]
    msg = refused(tmp_path, f, ["matches 3 connections"], metric="cwnd", connection=f":{port}")
    for c in doc["start"]["connected"]:
        assert f"{c['local_host']}:{c['local_port']} -> {c['remote_host']}:{port}" in msg


# --- 3. iperf 2 -r / -d: one direction at a time --------------------------------------------------

_CONN2 = re.compile(r"^\[\s*(\*?)(\d+)\] local (\S+) port (\d+) connected with (\S+) port (\d+)(.*)$")
_LINE2 = re.compile(r"^\[\s*\*?(\d+|SUM)\]\s+([\d.]+)-([\d.]+) sec\s+[\d.]+ \w?Bytes\s+([\d.]+) (\w?)bits/sec"
                    r"(?:\s+[\d.]+ ms\s+(\d+)/\s*(\d+))?")


def iperf2_directions(path: Path):
    """Per stream ID: (src, dst, printed as, interval rows, whole-test row, Server Report row).

    A connection this host opened sends (its remote port is the one it connected to, or a
    starred reverse line of a server); the ones it accepted receive. Rows: (t0, t1, rate,
    lost, total); the second line of a stream starting at 0 is its whole-test line."""
    text = path.read_text()
    port = re.search(r"^Client connecting to \S+, (?:TCP|UDP) port (\d+)", text, re.M)
    # a client prints its "Client connecting to" banner before its first connected line; a
    # server prints it (for its reverse client of -d / -r) after the connection it accepted
    first = re.search(r"^\[\s*\*?\d+\] local ", text, re.M).start()
    server_file = "Client connecting to" not in text[:first]
    out, report = {}, False
    for line in text.splitlines():
        m = _CONN2.match(line)
        if m:
            star, sid, lip, lport, rip, rport = m[1], m[2], m[3], m[4], m[5], m[6]
            if server_file:
                sent = bool(star)
            else:  # the client: its own connection goes to the server's port
                sent = rport == port[1]
            local, peer = f"{lip}:{lport}", f"{rip}:{rport}"
            out[sid] = {"src": local if sent else peer, "dst": peer if sent else local,
                        "by": "sender" if sent else "receiver", "rows": [], "whole": None, "report": None}
            continue
        if line.strip().endswith("Server Report:"):
            report = True
            continue
        m = _LINE2.match(line.strip())
        if not m or m[1] not in out:
            continue
        row = (float(m[2]), float(m[3]), float(m[4]) * _PREFIX[m[5]], int(m[6]) if m[6] else None,
               int(m[7]) if m[7] else None)
        d = out[m[1]]
        if report:
            d["report"], report = row, False
        elif row[0] == 0.0 and d["rows"]:
            d["whole"] = row
        else:
            d["rows"].append(row)
    return out


def regular(rows):
    """The intervals of the usual length (the last one, longer or a stub, left out as labcalc does)."""
    usual = sorted(t1 - t0 for t0, t1, *_ in rows)[len(rows) // 2]
    return [r for r in rows if 0.5 * usual <= r[1] - r[0] <= 1.5 * usual]


TWO_WAY = ["iperf2_tcp_r_client.txt", "iperf2_tcp_r_server.txt", "iperf2_tcp_d_client.txt",
           "iperf2_tcp_d_server.txt", "iperf2_udp_d_client.txt", "iperf2_udp_d_server.txt"]


@pytest.mark.parametrize("name", TWO_WAY)
def test_iperf2_both_directions_refused_with_the_list_then_each_by_connection(tmp_path, name):
    f = QA2 / name
    dirs = iperf2_directions(f)
    assert sorted(d["by"] for d in dirs.values()) == ["receiver", "sender"]
    msg = refused(tmp_path, f, ["both directions", "connection", 'side = "receiver"'], metric="goodput")
    for d in dirs.values():
        host = "this host received it" if d["by"] == "receiver" else "this host sent it"
        key = re.search(re.escape(f"{d['src']} -> {d['dst']} ({host}: ") + r"\d+ bytes in its intervals; "
                        r"connection = \"([^\"]+)\"\)", msg)[1]
        assert key in (d["src"], d["dst"])
        side = d["by"]  # the rates this file holds of that direction: the receiver's or the sender's
        r = build(tmp_path, f, metric="goodput", connection=key, side=side, window_s=[0, 100])
        rows = regular(d["rows"])
        assert r.value == pytest.approx(mean(x[2] for x in rows), rel=1e-12) and r.n_samples == len(rows)
        assert f"{d['src']} -> {d['dst']}" in r.note and r.side == side
        # side alone names the same direction; its whole-test line is the summary
        r = build(tmp_path, f, metric="goodput", side=side, stat="summary")
        assert r.value == d["whole"][2] and "connection" in r.defaults.split()
        assert r.window_from.startswith(f"{side}'s end-of-test line")


@pytest.mark.parametrize("name", ["iperf2_tcp_r_client.txt", "iperf2_tcp_d_server.txt"])
def test_iperf2_direction_measured_by_the_sender_is_no_goodput(tmp_path, name):
    """connection names the direction this host sent; its receiver's rate is in the other file."""
    f = QA2 / name
    d = next(v for v in iperf2_directions(f).values() if v["by"] == "sender")
    refused(tmp_path, f, ["measured by the sender", 'side = "sender"'], metric="goodput", connection=d["dst"])


def test_iperf2_udp_dual_loss_of_each_direction(tmp_path):
    """-u -d on the client: the direction it received counts lost/total per interval; the one it
    sent has the server's report (its whole test)."""
    f = QA2 / "iperf2_udp_d_client.txt"
    dirs = iperf2_directions(f)
    refused(tmp_path, f, ["both directions", "name it with connection"], metric="loss")
    got = next(d for d in dirs.values() if d["by"] == "receiver")
    rows = regular(got["rows"])
    r = build(tmp_path, f, metric="loss", connection=got["dst"], window_s=[0, 100])
    assert r.value == pytest.approx(sum(x[3] for x in rows) / sum(x[4] for x in rows), rel=1e-12)
    sent = next(d for d in dirs.values() if d["by"] == "sender")
    r = build(tmp_path, f, metric="loss", connection=sent["dst"])
    assert r.value == pytest.approx(sent["report"][3] / sent["report"][4], rel=1e-12)
    assert "Server Report" in r.window_from
    r = build(tmp_path, f, metric="offered_rate", connection=sent["dst"], window_s=[0, 100])
    assert r.value == pytest.approx(mean(x[2] for x in regular(sent["rows"])), rel=1e-12)


# --- 4. two pings writing one file at once --------------------------------------------------------

_REPLY = re.compile(r"^(?:\[(\d+\.\d+)\] )?\d+ bytes from ([\d.]+): icmp_seq=(\d+) ttl=\d+ time=([\d.]+) ms")
_STATS = re.compile(r"^--- ([\d.]+) ping statistics ---\n(\d+) packets transmitted, (\d+) received", re.M)


@pytest.mark.parametrize("name", ["ping_two_writers.txt", "ping_D_two_writers.txt"])
def test_two_pings_in_one_file_are_flagged_and_their_loss_refused(tmp_path, name):
    f = QA2 / name
    text = f.read_text()
    blocks = [(m[1], int(m[2]), int(m[3])) for m in _STATS.finditer(text)]
    assert len(blocks) == 2 and text.count("\nPING ") + text.startswith("PING ") == 2
    df = read(f)
    assert max(r["statistics_blocks"] for r in df.attrs["runs"]) == 2
    assert any("several pings wrote into one file" in n for n in df.attrs["notes"])
    assert df.attrs["summary"]["transmitted"] == sum(b[1] for b in blocks)
    assert df.attrs["summary"]["received"] == sum(b[2] for b in blocks)
    msg = refused(tmp_path, f, ["2 statistics blocks", "split the file"], metric="loss")
    assert all(target in msg for target, _, _ in blocks)
    refused(tmp_path, f, ["2 statistics blocks", "window_seq"], metric="rtt", stat="summary")
    # the next step: one file per ping, each gives its own block's loss
    for target, sent, received in blocks:
        own = [ln for ln in text.splitlines() if target in ln or (ln.strip() and not re.search(r"\d+\.\d+\.\d+\.\d+",
                                                                                            ln))]
        stats_at = next(k for k, ln in enumerate(own) if ln.startswith(f"--- {target} ping statistics"))
        body = [ln for k, ln in enumerate(own) if not (re.match(r"^\d+ packets|^rtt ", ln) and k != stats_at + 1
                                                        and k != stats_at + 2)]
        r = build(tmp_path, (f"only_{target}.txt", "\n".join(body) + "\n"), metric="loss")
        assert (r.value, r.stat) == (pytest.approx((sent - received) / sent, rel=1e-12), "summary")


def test_two_pings_in_one_file_rtt_over_the_replies(tmp_path):
    """The other next step: the replies of both pings over a window (icmp_seq, or seconds with -D)."""
    for name in ("ping_two_writers.txt", "ping_D_two_writers.txt"):
        f = QA2 / name
        replies = [m.groups() for m in map(_REPLY.match, f.read_text().splitlines()) if m]
        r = build(tmp_path, f, metric="rtt", window_seq=[1, 12])
        inside = [float(rtt) for _, _, seq, rtt in replies if 1 <= int(seq) <= 12]
        assert r.value == pytest.approx(mean(inside) * 1e-3, rel=1e-12) and r.n_samples == len(inside)
        assert "several pings wrote into it at once" in r.note
    f = QA2 / "ping_two_writers.txt"
    refused(tmp_path, f, ["no -D", "window_seq"], metric="rtt")  # no common time axis without -D
    f = QA2 / "ping_D_two_writers.txt"
    replies = [m.groups() for m in map(_REPLY.match, f.read_text().splitlines()) if m]
    t0 = float(replies[0][0])
    r = build(tmp_path, f, metric="rtt", window_s=[0, 3])
    inside = [float(rtt) for ts, _, _, rtt in replies if 0 <= float(ts) - t0 <= 3]
    assert r.value == pytest.approx(mean(inside) * 1e-3, rel=1e-12)


def test_windows_ping_with_two_statistics_blocks_is_flagged():
    """Windows ping's reader takes the same care (two runs' banners, then both statistics)."""
    lines = (HERE / "ping_windows_en_win7.txt").read_text().splitlines()
    banner = next(ln for ln in lines if ln.startswith("Pinging "))
    replies = [ln for ln in lines if ln.startswith("Reply from ")]
    stats = lines[next(k for k, ln in enumerate(lines) if ln.startswith("Ping statistics")):]
    text = "\n".join([banner, banner] + replies[:4] + stats + stats) + "\n"
    sent = int(re.search(r"Sent = (\d+)", "\n".join(stats))[1])
    df = read(text)
    assert df.attrs["format"] == "ping_windows"
    assert max(r["statistics_blocks"] for r in df.attrs["runs"]) == 2
    assert df.attrs["summary"]["transmitted"] == 2 * sent
    assert any("several pings wrote into one file" in n for n in df.attrs["notes"])


# --- 5. iperf 2 -y C TCP: which end printed it ----------------------------------------------------

def _csv_rows(path: Path):
    with open(path, newline="") as fh:
        out = [(float(r[6].split("-")[0]), float(r[6].split("-")[1]), float(r[8])) for r in csv.reader(fh) if r]
    whole = [r for r in out if r[0] == 0.0]
    intervals = out[:-1] if len(out) > 1 else out
    return intervals, whole[-1]


@pytest.mark.parametrize("name, side", [("iperf2_tcp_yC_server.csv", "receiver"),
                                        ("iperf2_tcp_yC_i1_server.csv", "receiver"),
                                        ("iperf2_tcp_yC_client.csv", "sender"),
                                        ("iperf2_tcp_yC_i1_client.csv", "sender")])
def test_iperf2_tcp_csv_side_says_which_end_printed_it(tmp_path, name, side):
    f = QA2 / name
    intervals, whole = _csv_rows(f)
    msg = refused(tmp_path, f, ["iperf 2 CSV does not say which end printed it", f'side = "{side}"'],
                  metric="goodput")
    assert "header was not saved" not in msg
    refused(tmp_path, f, ["iperf 2 CSV does not say which end printed it"], metric="goodput", stat="summary")
    r = build(tmp_path, f, metric="goodput", side=side)
    assert r.side == side and f"its lines taken as the {side}'s, as side says" in r.note
    if len(intervals) == 1:  # without -i: its only line, the whole test
        assert r.value == whole[2] and r.window_from.startswith(f"{side}'s end-of-test line")
    else:
        lo, hi = window_of(r)
        inside = [x for x in regular(intervals) if x[0] >= lo - 1e-9 and x[1] <= hi + 1e-9]
        assert r.value == pytest.approx(mean(x[2] for x in inside), rel=1e-12) and r.n_samples == len(inside)
    r = build(tmp_path, f, metric="goodput", side=side, stat="summary")
    assert r.value == whole[2]
