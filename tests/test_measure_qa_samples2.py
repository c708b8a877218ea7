"""Every reader against a second set of real files from other people's public repositories (local check).

The files have no licence, so they are not part of the project: they sit beside the repository
(``<checkout>/../qa-samples2``) or in ``/work/qa-samples2``, with a SOURCES.txt naming
repository, path and commit of each. The tests are skipped, with the reason, when neither
folder is there. Expected values are computed from the files with regular expressions, csv or
json, never with the reader under test.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from labcalc import measure as m
from labcalc.measure import MeasurementFormatError
from tests.manifest_cells import build, quiet

_ROOT = Path(__file__).resolve().parents[1]
_CANDIDATES = [_ROOT.parent / "qa-samples2", Path("/work/qa-samples2")]
SAMPLES = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])
pytestmark = pytest.mark.skipif(
    not SAMPLES.is_dir(),
    reason=f"real-world samples not found at {' or '.join(map(str, _CANDIDATES))} (expected beside the repository)")

#: every file and the format it must be read as ("error": a clear MeasurementFormatError)
EXPECTED = {
    "7682840__DASH_analysis__10s_throttling.csv": "wireshark_csv",  # header and a row commented out with '#'
    "7682840__DASH_analysis__capture.csv": "wireshark_csv",
    "Abubakarr-Mansaray__ITP270_MT_Abubakarr_Mansaray__ping_results.txt": "ping",  # 100% loss, no reply
    "AndreaFigueroaR__RTT-through-Ping__ping_output.txt": "ping",
    "BKSN964__CapRadar-Dataset__iperf6.txt": "iperf",
    "BethanyEJohnson__WireShark__capture.csv": "wireshark_csv",
    "DuyutongDockBlocks16__internet_traffic_U4_for_git__anycastdns2.nic.td.txt": "ping",  # + GBK Windows runs
    "DuyutongDockBlocks16__internet_traffic_U4_for_git__ok1.iperf.comnet-student.eu.txt": "error",  # headers only
    "HerrmannIV__adhoc_package__ping6.txt": "ping",
    "HerrmannIV__adhoc_package__ping6pos6.txt": "ping",
    "Hmarkov__Packet-Instability-over-IP__3Dlogfile.log": "ping",
    "Lindahl2010__Ping-Data-Project__ping.txt": "ping_windows",
    "M-Mehrer__6LoWPAN-Border-Router__pingBLE13m.txt": "ping",
    "M-Mehrer__6LoWPAN-Border-Router__pingWLAN10cm.txt": "ping_windows",  # German, PowerShell UTF-16
    "M-Mehrer__6LoWPAN-Border-Router__pingWLAN5m.txt": "ping_windows",
    "NTIG-Umea__powershell-AlvinHedman__ping.txt": "error",  # Test-Connection's table, not ping.exe
    "Rahul171201__Network-Packet-Analysis__capture.csv": "wireshark_csv",
    "Stephen1Hernandez9__SOC-Traffic-analyzer__capture.csv": "wireshark_csv",
    "Vraj2811__CN-Assignment-3__output_a.txt": "ping",  # a script's headings between six runs
    "Vraj2811__CN-Assignment-3__ping_output.txt": "ping",
    "deepakiam__IP-Homework-5__ping.log": "ping",  # ping -R
    "gabeah__HTTP_Evaluation_Assignment__test_packet_capture.csv": "wireshark_csv",
    "greepz__wifiAnalyzer__iperf.json": "iperf3",
    "hypermaskevo__Lesson-02-Router-on-a-Stick__ping_results.txt": "ping_windows",
    "jmrzn__EITN30__iperf_results.json": "error",  # a script's own JSON list
    "k00ziex__MastersThesis_FANETs_Fall_2022__iperf_results_10m.txt": "iperf3",
    "k00ziex__MastersThesis_FANETs_Fall_2022__iperf_results_40m.txt": "iperf3",
    "kesha118__Lab-04__capture.csv": "error",  # a script's CSV 'Source IP,Destination IP,Length'
    "pedrobellotti__iperftestes__pingHW.txt": "error",  # UDPping, no tool labcalc reads
    "priyathamganta__RA__ping1.txt": "ping",
    "vladger00__task_iperf__iperf3.txt": "iperf3",
    "zephyrchien__boring-relay-bench__gost_tcp_10_thread_iperf.txt": "iperf3",
}
PRESENT = sorted(k for k in EXPECTED if (SAMPLES / k).is_file())
BY_FORMAT = {fmt: [k for k in PRESENT if EXPECTED[k] == fmt] for fmt in set(EXPECTED.values())}


def _text(rel: str) -> str:
    raw = (SAMPLES / rel).read_bytes()
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _value(tmp_path: Path, rel: str, **keys) -> float:
    """The value of a one-entry manifest over the sample *rel* with *keys*."""
    return float(quiet(build, tmp_path, SAMPLES / rel, **keys).value)


def test_samples_present():
    assert len(PRESENT) == len(EXPECTED), sorted(set(EXPECTED) - set(PRESENT))


@pytest.mark.parametrize("rel", PRESENT)
def test_every_sample_is_read_or_clearly_refused(rel, tmp_path):
    path = SAMPLES / rel
    want = EXPECTED[rel]
    if want == "error":
        with pytest.raises(MeasurementFormatError) as info:
            quiet(m.read, path)
        message = str(info.value)
        assert path.name in message and "line " in message and "\n" not in message
        return
    df = quiet(m.read, path)
    assert df.attrs["format"] == want
    out = tmp_path / "out.csv"
    quiet(m.convert, path, out)
    assert out.stat().st_size > 0


# --- Linux/BSD ping: replies, statistics and times from regular expressions ---------------------

_LREPLY = re.compile(r"bytes from \S+?(?: \([^)]*\))?[:,]\s+icmp_[rs]eq=(\d+) (?:ttl|hlim)=\d+ time=([\d.]+) ms(.*)$")
_LSTATS = re.compile(r"^(\d+) packets transmitted, (\d+) (?:packets )?received", re.M)
_LRTT = re.compile(r"^(?:rtt|round-trip) min/avg/max(?:/\w+)? = ([\d.]+)/([\d.]+)/([\d.]+)", re.M)


@pytest.mark.parametrize("rel", BY_FORMAT.get("ping", []))
def test_ping_replies_and_statistics(rel):
    text = _text(rel)
    replies = [mm for mm in map(_LREPLY.search, text.splitlines()) if mm]
    df = quiet(m.read, SAMPLES / rel)
    assert len(df) == len(replies)
    assert list(df["seq"]) == [int(mm[1]) for mm in replies]
    assert np.allclose(df["rtt_s"].to_numpy(), [float(mm[2]) / 1e3 for mm in replies], rtol=0, atol=1e-12)
    assert list(df["dup"]) == ["DUP!" in mm[3] for mm in replies]
    stats = _LSTATS.findall(text)
    if not stats:
        assert "summary" not in df.attrs
        return
    s = df.attrs["summary"]
    tx, rx = sum(int(a) for a, _ in stats), sum(int(b) for _, b in stats)
    assert (s["transmitted"], s["received"]) == (tx, rx)
    assert s["loss"] == pytest.approx((tx - rx) / tx, abs=5e-5)  # iputils prints the loss rounded
    rtts = _LRTT.findall(text)
    if rtts:
        assert s["rtt_min_s"] == pytest.approx(min(float(a) for a, _, _ in rtts) / 1e3, rel=1e-12)
        assert s["rtt_max_s"] == pytest.approx(max(float(c) for _, _, c in rtts) / 1e3, rel=1e-12)


def test_ping_record_route_sample_reads_every_reply():
    rel = "deepakiam__IP-Homework-5__ping.log"
    if rel not in PRESENT:
        pytest.skip(f"{rel} absent")
    df = m.read(SAMPLES / rel)  # no malformed line left: RR lines and '(same route)' are ping's
    assert len(df) == sum(int(b) for _, b in _LSTATS.findall(_text(rel))) == 20


# --- Windows ping --------------------------------------------------------------------------------

_WREPLY = re.compile(r"[:：]\s*(?:\S+=\d+\s+)?[^=<\s]+\s?([=<])\s?(\d+)\s?ms(?:\s+TTL=\d+)?\s*$")
_WCOUNTS = re.compile(r"=\s*(\d+)\s*,[^=\d]*=\s*(\d+)\s*,[^=\d]*=\s*(\d+)\s*\(")
_WTIMES = re.compile(r"=\s*(\d+)ms\s*,[^=\d]*=\s*(\d+)ms\s*,[^=\d]*=\s*(\d+)ms")


@pytest.mark.parametrize("rel", BY_FORMAT.get("ping_windows", []))
def test_windows_ping_replies_and_statistics(rel):
    text = _text(rel)
    replies = [mm for mm in map(_WREPLY.search, text.splitlines()) if mm]
    df = quiet(m.read, SAMPLES / rel)
    assert len(df) == len(replies)
    assert np.allclose(df["rtt_s"].to_numpy(), [0.0 if mm[1] == "<" else int(mm[2]) / 1e3 for mm in replies])
    counts = [tuple(map(int, c)) for c in _WCOUNTS.findall(text)]
    if not counts:
        assert "summary" not in df.attrs
        return
    s = df.attrs["summary"]
    sent, received = sum(c[0] for c in counts), sum(c[1] for c in counts)
    assert (s["transmitted"], s["received"]) == (sent, received)
    assert s["loss"] == pytest.approx(sum(c[2] for c in counts) / sent)
    times = [tuple(map(int, t)) for t in _WTIMES.findall(text)]
    assert s["rtt_min_s"] == pytest.approx(min(t[0] for t in times) / 1e3)
    assert s["rtt_max_s"] == pytest.approx(max(t[1] for t in times) / 1e3)
    # the replies' own extremes are the statistics' (Windows prints whole milliseconds)
    assert df["rtt_s"].min() == pytest.approx(s["rtt_min_s"]) and df["rtt_s"].max() == pytest.approx(s["rtt_max_s"])


# --- Wireshark's CSV export ----------------------------------------------------------------------


@pytest.mark.parametrize("rel", BY_FORMAT.get("wireshark_csv", []))
def test_wireshark_frames_times_and_lengths(rel):
    rows = list(csv.reader(io.StringIO(_text(rel))))
    header = next(r for r in rows if r)
    titles = [t.lstrip("#").strip().strip('"') for t in header]
    data = [r for r in rows[rows.index(header) + 1:] if r and not r[0].startswith("#")]
    k_no, k_time, k_len = titles.index("No."), titles.index("Time"), titles.index("Length")
    df = quiet(m.read, SAMPLES / rel)
    assert list(df["frame"]) == [int(r[k_no]) for r in data]
    assert np.allclose(df["time_s"].to_numpy(), [float(r[k_time]) for r in data], rtol=0, atol=1e-9)
    assert list(df["frame_bytes"]) == [int(r[k_len]) for r in data]
    assert list(df["protocol"].astype(str)) == [r[titles.index("Protocol")] for r in data]


# --- iperf3 and iperf 2 ---------------------------------------------------------------------------

_UNIT = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}
_R3 = re.compile(r"^\[\s*(\d+|SUM)\]\s+([\d.]+)-\s*([\d.]+)\s+sec\s+[\d.]+ [KMGT]?Bytes\s+([\d.]+) ([KMG]?)bits/sec(.*)$")


@pytest.mark.parametrize("rel", [k for k in BY_FORMAT.get("iperf3", []) if not k.endswith(".json")])
def test_iperf3_text_intervals_and_end_of_test_lines(rel):
    text = _text(rel)
    client = text.split("Server output:")[0] if text.count("Connecting to host") <= 1 else re.sub(
        r"Server output:.*?(?=Connecting to host|\Z)", "", text, flags=re.S)
    lines = [mm for mm in map(_R3.match, client.splitlines()) if mm]
    intervals = [mm for mm in lines if not mm[6].strip().endswith(("sender", "receiver"))]
    ends = [mm for mm in lines if mm[6].strip().endswith(("sender", "receiver"))]
    df = quiet(m.read, SAMPLES / rel)
    assert len(df) == len(intervals)
    assert np.allclose(df["rate_bps"].to_numpy(), [float(mm[4]) * _UNIT[mm[5]] for mm in intervals])
    assert [r["rate_bps"] for r in df.attrs["summary"]] == pytest.approx([float(mm[4]) * _UNIT[mm[5]] for mm in ends])
    assert df.attrs["tests"] == max(1, text.count("Connecting to host"))


def test_iperf3_json_server_goodput_is_end_sum_received(tmp_path):
    rel = "greepz__wifiAnalyzer__iperf.json"
    if rel not in PRESENT:
        pytest.skip(f"{rel} absent")
    doc = json.loads(_text(rel))
    assert "accepted_connection" in doc["start"]  # the server's document
    df = quiet(m.read, SAMPLES / rel)
    assert df.attrs["side"] == "server"
    assert (df["stream"] != "SUM").sum() == sum(len(iv["streams"]) for iv in doc["intervals"])
    got = _value(tmp_path, rel, metric="goodput", stat="summary")
    assert got == pytest.approx(doc["end"]["sum_received"]["bits_per_second"], rel=1e-12)


_R2 = re.compile(r"^\[\s*(\d+)\]\s+([\d.]+)-\s*([\d.]+)\s+sec\s+([\d.]+) ([KMG]?)Bytes\s+([\d.]+) ([KMG]?)bits/sec")


def test_iperf2_client_intervals_and_summary():
    rel = "BKSN964__CapRadar-Dataset__iperf6.txt"
    if rel not in PRESENT:
        pytest.skip(f"{rel} absent")
    lines = [mm for mm in map(_R2.match, _text(rel).splitlines()) if mm]
    # the summary: the line that starts at 0 and ends last (iperf 2 prints it after the intervals)
    summary = [mm for mm in lines if float(mm[2]) == 0.0 and float(mm[3]) - float(mm[2]) > 1.5]
    intervals = [mm for mm in lines if mm not in summary]
    df = quiet(m.read, SAMPLES / rel)
    assert len(df) == len(intervals)
    assert np.allclose(df["rate_bps"], [float(mm[6]) * _UNIT[mm[7]] for mm in intervals])
    assert len(summary) == 1
    assert df.attrs["summary"][0]["rate_bps"] == pytest.approx(float(summary[0][6]) * _UNIT[summary[0][7]])
