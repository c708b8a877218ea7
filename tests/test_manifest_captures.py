"""Packet captures (tshark -T fields, Wireshark's CSV export) and Windows ping in a manifest.

A capture gives the RTT of the ACKs (``tcp.analysis.ack_rtt``): of one connection, named by
``connection`` when the capture holds several; a goodput or a loss is refused with the tool
that gives it. Expected values are computed here with the csv module from the text written.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from tests.manifest_cells import build, mean, refused

HEAD = ("frame.time_relative,ip.src,ip.dst,tcp.srcport,tcp.dstport,tcp.len,frame.len,"
        "tcp.analysis.ack_rtt\n")


def _two_flows() -> str:
    """Two bulk TCP flows to one server port, each ACK carrying its RTT (flow a ~40 ms, b ~90 ms)."""
    lines = []
    for k in range(12):
        t = 0.25 * k
        lines.append(f"{t:.6f},10.0.0.1,10.0.0.9,40001,5201,1448,1514,\n")
        lines.append(f"{t + 0.01:.6f},10.0.0.9,10.0.0.1,5201,40001,0,66,{0.040 + 0.001 * (k % 3):.6f}\n")
        lines.append(f"{t + 0.02:.6f},10.0.0.2,10.0.0.9,40002,5201,1448,1514,\n")
        lines.append(f"{t + 0.03:.6f},10.0.0.9,10.0.0.2,5201,40002,0,66,{0.090 + 0.002 * (k % 4):.6f}\n")
    return HEAD + "".join(lines)


def _rtts(text: str, port: str) -> list[float]:
    rows = csv.DictReader(io.StringIO(text))
    return [float(r["tcp.analysis.ack_rtt"]) for r in rows
            if r["tcp.analysis.ack_rtt"] and port in (r["tcp.srcport"], r["tcp.dstport"])]


def test_a_capture_of_two_connections_is_refused_with_the_list(tmp_path):
    msg = refused(tmp_path, ("two.csv", _two_flows()), ["holds 2 connections", "10.0.0.1:40001", "10.0.0.2:40002",
                                                        "connection"], metric="rtt")
    assert "name one with connection" in msg


def test_the_rtt_of_the_connection_named(tmp_path):
    text = _two_flows()
    for port in ("40001", "40002"):
        row = build(tmp_path, ("two.csv", text), metric="rtt", connection=f":{port}", window_s=[0, 3])
        expected = _rtts(text, port)
        assert row.value == pytest.approx(mean(expected), rel=1e-12) and row.n_samples == len(expected) and row.unit == "s"
    row = build(tmp_path, ("two.csv", text), metric="rtt_min", connection=":40002", window_s=[0, 3])
    assert row.value == min(_rtts(text, "40002"))


def test_one_connection_needs_no_key(tmp_path):
    text = HEAD + "".join(line + "\n" for line in _two_flows().splitlines()[1:] if "40001" in line)
    row = build(tmp_path, ("one.csv", text), metric="rtt", window_s=[0, 3])
    assert row.value == pytest.approx(mean(_rtts(text, "40001")), rel=1e-12)


def test_a_goodput_or_loss_from_a_capture_names_the_tool_that_gives_it(tmp_path):
    for metric in ("goodput", "loss"):
        refused(tmp_path, ("two.csv", _two_flows()), ["packet capture", "gives rtt", "iperf's server"],
                metric=metric, connection=":40001")


def test_a_wireshark_export_without_the_rtt_column_says_how_to_add_it(tmp_path):
    text = ('"No.","Time","Source","Destination","Protocol","Length","Info"\n'
            + "".join(f'"{k + 1}","{0.1 * k:.6f}","10.0.0.1","10.0.0.9","TCP","1514","40001 > 5201 [ACK] Seq=1"\n'
                      for k in range(10)))
    refused(tmp_path, ("export.csv", text), ["no RTT column", "Apply as Column", "tcp.analysis.ack_rtt"],
            metric="rtt")


# --- Windows ping: no clock, no -D, no -c: the next steps are Windows' own ----------------------

WIN7 = Path(__file__).parent / "data" / "measure" / "ping_windows_en_win7.txt"


def test_a_windows_ping_window_in_seconds_points_at_window_seq(tmp_path):
    msg = refused(tmp_path, WIN7, ["window_s is in seconds", "Windows ping prints none", "window_seq"],
                  metric="rtt", window_s=[1, 3])
    assert "record with 'ping -D'" not in msg   # no such option on Windows
    # the next step works: the replies' numbers, checked against the file's own 'time=' values
    times = [float(t) * 1e-3 for t in re.findall(r"time[=<](\d+)ms", WIN7.read_text())]
    row = build(tmp_path, WIN7, metric="rtt", window_seq=[2, 4])
    assert row.value == pytest.approx(mean(times[1:4]), rel=1e-12) and row.n_samples == 3


def test_a_windows_ping_cut_before_its_statistics_names_windows_options(tmp_path):
    text = "\n".join(line for line in WIN7.read_text().splitlines() if line.startswith(("Pinging", "Reply")))
    msg = refused(tmp_path, ("cut.txt", text + "\n"), ["no statistics line", "ping -n N", "Ctrl+C"], metric="loss")
    assert "-c N" not in msg
