"""Defects found in a second round of real files from other people's repositories (issue 20,
items 3: Windows ping in several languages, iputils ping, Wireshark's CSV export). Each is
pinned with a file of the same shape written anew (tests/data/measure/qa3/README says which real
shape each stands for). Expected values come from the files with regular expressions, never
from the reader under test."""

from __future__ import annotations

import csv
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from labcalc import measure as m

QA3 = Path(__file__).parent / "data" / "measure" / "qa3"

# Windows ping, read independently: every reply's time ('<1ms' is 0, as Windows counts it), the
# last statistics block's three counts (also when a language breaks them over two lines) and
# its three times
_WIN_REPLY = re.compile(r"([=<])\s?(\d+)\s?ms\s+TTL=\d+\s*$")
_WIN_COUNTS = re.compile(r"=\s*(\d+)\s*,[^=\d]*=\s*(\d+)\s*,[^=\d]*=\s*(\d+)\s*\(")
_WIN_TIMES = re.compile(r"=\s*(\d+)ms\s*,[^=\d]*=\s*(\d+)ms\s*,[^=\d]*=\s*(\d+)ms")


def _read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none of these files may lose a line
        return m.read(path)


def _windows_truth(text: str) -> dict:
    rtts = [0.0 if mm[1] == "<" else float(mm[2]) for mm in map(_WIN_REPLY.search, text.splitlines()) if mm]
    counts = _WIN_COUNTS.findall(text)
    times = _WIN_TIMES.findall(text)
    return {"rtts_ms": rtts, "counts": [tuple(map(int, c)) for c in counts], "times": [tuple(map(int, t)) for t in times]}


@pytest.mark.parametrize("name", [
    "ping_windows_it_counts_two_lines.txt", "ping_windows_pt_percent_wrapped.txt",
    "ping_windows_nl_percent_full_stop.txt", "ping_windows_en_df_set.txt", "ping_windows_de_df_set.txt",
])
def test_localised_windows_statistics_are_read_whole(name):
    """Italian puts 'Persi = n' on a line of its own, Portuguese wraps '(x% de / perda),',
    Dutch ends '(0% verlies).', and 'Packet needs to be fragmented but DF set.' (English,
    German) is a probe without a reply: all were malformed lines, the Italian loss was missing."""
    text = (QA3 / name).read_text(encoding="utf-8")
    truth = _windows_truth(text)
    df = _read(QA3 / name)
    assert df.attrs["format"] == "ping_windows"
    assert np.allclose(df["rtt_s"].to_numpy(), np.asarray(truth["rtts_ms"]) / 1e3, rtol=0, atol=1e-12)
    sent, received, lost = truth["counts"][-1]
    s = df.attrs["summary"]
    assert (s["transmitted"], s["received"]) == (sent, received)
    assert s["loss"] == pytest.approx(lost / sent, rel=1e-12)
    if truth["times"]:
        lo, hi, avg = truth["times"][-1]
        assert (s["rtt_min_s"], s["rtt_max_s"], s["rtt_avg_s"]) == pytest.approx((lo / 1e3, hi / 1e3, avg / 1e3))
    # the probes without a reply are the numbers missing from seq
    assert df.attrs["errors"] == sent - received
    assert len(df) == received


def test_ctrl_break_statistics_are_superseded_by_the_final_ones():
    """ping -t: Ctrl+Break prints the counts so far and the run goes on; the final block (after
    Ctrl+C) holds them again. Adding both blocks up counted the first three probes twice."""
    text = (QA3 / "ping_windows_en_t_break_then_ctrl_c.txt").read_text()
    truth = _windows_truth(text)
    assert len(truth["counts"]) == 2
    df = _read(QA3 / "ping_windows_en_t_break_then_ctrl_c.txt")
    sent, received, lost = truth["counts"][-1]
    s = df.attrs["summary"]
    assert (s["transmitted"], s["received"], s["loss"]) == (sent, received, pytest.approx(lost / sent))
    lo, hi, avg = truth["times"][-1]
    assert (s["rtt_min_s"], s["rtt_max_s"], s["rtt_avg_s"]) == pytest.approx((lo / 1e3, hi / 1e3, avg / 1e3))
    assert list(df["rtt_s"] * 1e3) == pytest.approx(truth["rtts_ms"])
    assert list(df["seq"]) == [1, 2, 3, 4, 6]  # the 5th probe timed out
    assert "notes" not in df.attrs or not any("blocks" in n for n in df.attrs["notes"])


def test_a_bare_ping_command_above_each_run_is_no_malformed_line():
    text = (QA3 / "ping_windows_en_command_echoed.txt").read_text()
    truth = _windows_truth(text)
    df = _read(QA3 / "ping_windows_en_command_echoed.txt")
    assert len(df.attrs["runs"]) == text.count("Pinging ") == 2
    assert list(df["rtt_s"] * 1e3) == pytest.approx(truth["rtts_ms"])
    sent = sum(c[0] for c in truth["counts"])
    received = sum(c[1] for c in truth["counts"])
    assert (df.attrs["summary"]["transmitted"], df.attrs["summary"]["received"]) == (sent, received)
    assert list(df["run"]) == [0, 0, 1]


_REPLY = re.compile(r"bytes from [^:]+: icmp_[rs]eq=(\d+) ttl=\d+ time=([\d.]+) ms")
_STATS = re.compile(r"(\d+) packets transmitted, (\d+) received(?:, \+(\d+) errors)?")


def test_record_route_lines_and_same_route_replies():
    """ping -R: the replies marked '(same route)' were malformed (5 of 20 replies read in the
    real file) and the route lines were counted as malformed too."""
    text = (QA3 / "ping_R_record_route.txt").read_text()
    replies = _REPLY.findall(text)
    tx, rx, _ = _STATS.search(text).groups()
    df = _read(QA3 / "ping_R_record_route.txt")
    assert len(df) == len(replies) == int(rx) == 3
    assert list(df["seq"]) == [int(r[0]) for r in replies]
    assert np.allclose(df["rtt_s"], [float(r[1]) / 1e3 for r in replies])
    assert df.attrs["summary"]["transmitted"] == int(tx)


def test_pipe_line_is_no_error_line():
    """'pipe 3' under the statistics counted as a fourth error line (attrs['errors'] 4 for +3 errors)."""
    text = (QA3 / "ping_unreachable_pipe.txt").read_text()
    tx, rx, err = _STATS.search(text).groups()
    from_lines = len(re.findall(r"^From \S+ icmp_seq=\d+ Destination Host Unreachable$", text, re.M))
    df = _read(QA3 / "ping_unreachable_pipe.txt")
    assert len(df) == int(rx) == 0
    assert df.attrs["errors"] == from_lines == int(err)
    assert df.attrs["summary"]["errors"] == int(err)
    assert df.attrs["summary"]["loss"] == 1.0


def test_wireshark_rows_commented_out_are_left_out():
    """A student commented out the header and some rows with '#': the header was recognised but
    the commented rows were read as packets with no frame number (a NaN in column frame)."""
    text = (QA3 / "wireshark_rows_commented_out.csv").read_text()
    rows = [r for r in csv.reader(io.StringIO(text)) if r and not r[0].startswith("#")]
    df = _read(QA3 / "wireshark_rows_commented_out.csv")
    assert df.attrs["format"] == "wireshark_csv"
    assert list(df["frame"]) == [int(r[0]) for r in rows]
    assert np.allclose(df["time_s"], [float(r[1]) for r in rows])
    assert list(df["frame_bytes"]) == [int(r[5]) for r in rows]
    commented = [i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("#")][1:]
    assert any(f"{len(commented)} row(s) commented out" in n for n in df.attrs["notes"])


_IV3 = re.compile(r"^\[\s*(\d+)\]\s+([\d.]+)-([\d.]+)\s+sec\s+([\d.]+) MBytes\s+([\d.]+) Mbits/sec(.*)$")


def test_appended_runs_with_server_output_keep_every_clients_intervals():
    """Runs of ``iperf3 -c ... --get-server-output`` appended to one log (the shape of a thesis's
    measurement series): everything after the first 'Server output:' went to the server's
    report, so the table held the first run's intervals only (10 of 100 in the real file)."""
    path = QA3 / "iperf3_two_runs_get_server_output.txt"
    client_part, server_part = [], []
    where = client_part
    for line in path.read_text().splitlines():
        if line.startswith("Server output:"):
            where = server_part
        elif line.startswith("Connecting to host"):
            where = client_part
        mm = _IV3.match(line)
        if mm:
            where.append(mm)
    intervals = [mm for mm in client_part if not mm[6].strip().endswith(("sender", "receiver"))]
    roles = [mm for mm in client_part if mm[6].strip().endswith(("sender", "receiver"))]
    server_intervals = [mm for mm in server_part if not mm[6].strip().endswith("receiver")]
    df = _read(path)
    assert df.attrs["tests"] == 2
    assert len(df) == len(intervals) == 6
    assert np.allclose(df["rate_bps"], [float(mm[5]) * 1e6 for mm in intervals])
    assert len(df.attrs["summary"]) == len(roles) == 4
    assert [r["rate_bps"] for r in df.attrs["summary"]] == pytest.approx([float(mm[5]) * 1e6 for mm in roles])
    so = df.attrs["server_output"]
    assert len(so["intervals"]) == len(server_intervals) == 6
    assert len(so["summary"]) == 2


def test_iperf3_log_of_headers_only_is_refused():
    """A cron loop's iperf3 log with 'date' lines and summary headers but no report line was
    read as an empty table (convert wrote 0 rows; the manifest asked for a side)."""
    path = QA3 / "refused_iperf3_cron_headers_only.txt"
    assert not any(_IV3.match(ln) for ln in path.read_text().splitlines())
    with pytest.raises(m.MeasurementFormatError, match=r"no interval and no end-of-test line.*2>&1"):
        m.read(path)


def test_powershell_test_connection_table_is_refused_with_what_to_run():
    """PowerShell's Test-Connection table (saved as UTF-16 by Out-File) was refused with 'pass
    format=...', which no reader accepts; the error now names the table and the command to run."""
    path = QA3 / "refused_powershell_test_connection_utf16.txt"
    raw = path.read_bytes()
    assert raw[:2] == b"\xff\xfe" and "IPV4Address" in raw.decode("utf-16")
    with pytest.raises(m.MeasurementFormatError, match=r"Test-Connection table.*ping -n 20 HOST > ping\.txt") as info:
        m.read(path)
    assert "\n" not in str(info.value) and path.name in str(info.value)
