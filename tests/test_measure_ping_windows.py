"""Windows ping in several languages and origins, and UTF-16 text (PowerShell) for every reader
(issue 20, item 3). Expected values are read from the files with this module's own regular
expressions (tests/data/measure/README names each file's source)."""

import gzip
import io
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labcalc import _textio
from labcalc.measure import MalformedLinesWarning, MeasurementFormatError, read, read_ping_windows, sniff_format

DATA = Path(__file__).parent / "data" / "measure"
WINDOWS = sorted(p.name for p in DATA.glob("ping_windows_*.txt"))

# independent patterns: an echo reply (any language: the time value before ms/мс, TTL when
# IPv4), the packets line (three counts), the round-trip line (three times)
_REPLY = re.compile(r"^.*?(\d+(?:\.\d+){3}|[0-9a-f]*:[0-9a-f:]*[0-9a-f])[^:=<]*?[:：]\s.*?([=<])\s?(\d+)\s?(?:ms|мс)"
                    r"(?:\s+TTL=(\d+))?\s*$")
_COUNTS = re.compile(r"=\s*(\d+)\s*[,，、]\s*\S+\s*=\s*(\d+)\s*[,，、]\s*\S+\s*=\s*(\d+)")
_TIMES = re.compile(r"=\s*(\d+)\s?(?:ms|мсек|мс)\s*[,，、].*?=\s*(\d+)\s?(?:ms|мсек|мс)\s*[,，、].*?=\s*(\d+)\s?(?:ms|мсек|мс)")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        return fn(*args, **kwargs)


def _text(name):
    raw = (DATA / name).read_bytes()
    return raw.decode("utf-16") if raw[:2] == b"\xff\xfe" else raw.decode("utf-8")


def _expected(text):
    replies = [(addr, int(ms), int(ttl) if ttl else None, op == "<")
               for line in text.splitlines() for addr, op, ms, ttl in _REPLY.findall(line)]
    runs = [tuple(map(int, m)) for m in _COUNTS.findall(text)]
    times = [tuple(map(int, m)) for m in _TIMES.findall(text)]
    return replies, runs, times


@pytest.mark.parametrize("name", WINDOWS)
def test_windows_ping_files_read_as_their_text_says(name):
    text = _text(name)
    replies, runs, times = _expected(text)
    assert sniff_format(text) == "ping_windows"
    df = _quiet(read, DATA / name)
    assert df.attrs["format"] == "ping_windows"
    assert len(df) == len(replies)
    assert len(df) > 0 or "timeout" in name or "unreachable" in name
    assert list(df.columns) == ["time_s", "seq", "rtt_s", "ttl", "bytes", "src", "dup", "run"]
    # every reply: its address, its time (whole milliseconds; "<1" is Windows' 0), its TTL
    assert df["src"].astype(str).tolist() == [a for a, *_ in replies]
    assert df["rtt_s"].tolist() == pytest.approx([0.0 if below else ms / 1000 for _, ms, _, below in replies], abs=0)
    ttls = [ttl for _, _, ttl, _ in replies]
    if all(t is not None for t in ttls):
        assert df["ttl"].tolist() == ttls
    else:
        assert df["ttl"].isna().all()
    assert df["time_s"].isna().all() and not df["dup"].any()
    assert (df["seq"] >= 1).all()
    # the statistics of each run, in file order
    got = [(r["transmitted"], r["received"]) for r in df.attrs["runs"] if r["complete"]]
    assert got == [(sent, received) for sent, received, _ in runs]
    for r, (sent, received, lost) in zip([r for r in df.attrs["runs"] if r["complete"]], runs):
        assert r["loss"] == pytest.approx(lost / sent, abs=1e-12)
    with_times = [r for r in df.attrs["runs"] if not math.isnan(r["rtt_min_s"])]
    assert [(r["rtt_min_s"], r["rtt_max_s"], r["rtt_avg_s"]) for r in with_times] == \
        [(lo / 1000, hi / 1000, avg / 1000) for lo, hi, avg in times]


def test_windows_ping_several_runs_sequence_numbers_and_totals():
    # five runs: two on LAN hosts (<1ms), four timeouts, two with replies
    df = read_ping_windows(DATA / "ping_windows_fr_transcript.txt")
    assert df.attrs["malformed"]["count"] == 0  # the prompts are recognised
    assert [r["target"] for r in df.attrs["runs"]] == ["10.33.72.214", "127.0.0.1", "10.33.79.254",
                                                      "10.33.73.111", "www.thinkerview.com"]
    assert df.groupby("run")["seq"].apply(list).tolist() == [[1, 2, 3, 4]] * 2 + [[1, 2, 3, 4]] * 2
    assert sorted(df["run"].unique()) == [0, 1, 3, 4]  # run 2 timed out: no row
    assert df.attrs["errors"] == 4
    s = df.attrs["summary"]
    assert (s["transmitted"], s["received"]) == (20, 16)
    assert s["loss"] == pytest.approx(4 / 20)
    assert s["rtt_max_s"] == 0.017 and s["rtt_min_s"] == 0.0
    assert "5 ping runs" in df.attrs["notes"][0]
    assert df[df.run == 3]["rtt_s"].tolist() == [0.012, 0.007, 0.005, 0.007]


def test_windows_ping_lost_probes_are_missing_sequence_numbers():
    text = ("Pinging 10.0.0.2 with 32 bytes of data:\nReply from 10.0.0.2: bytes=32 time=4ms TTL=64\n"
            "Request timed out.\nReply from 10.0.0.2: bytes=32 time=6ms TTL=64\nGeneral failure.\n"
            "Reply from 10.0.0.9: TTL expired in transit.\nReply from 10.0.0.2: bytes=32 time<1ms TTL=64\n\n"
            "Ping statistics for 10.0.0.2:\n    Packets: Sent = 6, Received = 4, Lost = 2 (33% loss),\n")
    df = read_ping_windows(text)
    assert df["seq"].tolist() == [1, 3, 6]
    assert df.attrs["errors"] == 3
    assert df.attrs["summary"]["errors"] == 1  # the TTL-expired reply Windows counts as received
    assert df.attrs["summary"]["loss"] == pytest.approx(2 / 6)


def test_windows_ping_error_replies_counted_received_are_noted():
    df = read_ping_windows(DATA / "ping_windows_en_unreachable.txt")
    assert len(df) == 0
    s = df.attrs["summary"]
    assert (s["transmitted"], s["received"], s["loss"], s["errors"]) == (4, 4, 0.0, 4)
    assert "Windows counts as received" in df.attrs["notes"][0]


def test_windows_ping_cut_banner_is_malformed_but_the_rest_reads():
    with pytest.warns(MalformedLinesWarning):
        df = read_ping_windows(DATA / "ping_windows_en_nodeping.txt")
    assert df.attrs["malformed"] == {"count": 1, "lines": [1]}
    assert df["rtt_s"].tolist() == [0.564, 0.555, 0.554, 0.548]


def test_windows_ping_powershell_utf16_equals_the_utf8_text():
    utf16 = read_ping_windows(DATA / "ping_windows_de_powershell_utf16.txt")
    utf8 = read_ping_windows(DATA / "ping_windows_de_timeout.txt")
    pd.testing.assert_frame_equal(utf16, utf8)
    assert repr(utf16.attrs["runs"]) == repr(utf8.attrs["runs"])  # NaN counters compare by their text
    assert [r["target"] for r in utf16.attrs["runs"]] == ["1.1.1.1", "192.0.2.1"]


def test_windows_ping_oem_code_page_words_still_recognised():
    # cmd.exe's "ping > f" writes the OEM code page (cp850): read as cp1252 the accents are
    # wrong, the numbers and the structure are not
    text = _text("ping_windows_de_timeout.txt").encode("cp850")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = read_ping_windows(text)
    assert df.attrs["malformed"]["count"] == 0
    assert df.attrs["errors"] == 1 and df["rtt_s"].tolist() == [0.015]


def test_windows_ping_nothing_recognisable_names_the_source():
    with pytest.raises(MeasurementFormatError, match=r"x\.txt, line 1: not ping_windows output"):
        read_ping_windows(_named(b"hello\nworld\n"))


def _named(data):
    b = io.BytesIO(data)
    b.name = "x.txt"
    return b


def test_windows_ping_bulk_path_equals_line_by_line(monkeypatch):
    from labcalc.measure import ping_windows

    rng = np.random.default_rng(7)
    lines = ["Reply from 10.0.0.2: bytes=32 time=4ms TTL=64", "Reply from 10.0.0.2: bytes=32 time<1ms TTL=128",
             "Réponse de 10.0.0.3 : octets=32 temps=12 ms TTL=55", "Antwort von 2a00::1: Zeit=11ms",
             "Request timed out.", "Reply from 10.0.0.2: bytes=32 time=4ms TTL=64 extra",
             "Reply from abc: bytes=32 time=4ms TTL=64", "Reply from 10.0.0.2: bytes=99999999999 time=4ms TTL=64",
             "Reply from 10.0.0.2:  bytes=32 time=4ms TTL=64", "Reply from 10.0.0.2: bytes=32 time=4 ms TTL=64"]
    for _ in range(20):
        text = "\n".join(lines[k] for k in rng.integers(0, len(lines), 30)) + "\n"
        got = []
        for fast in (True, False):
            if not fast:
                monkeypatch.setattr(ping_windows, "_fast", lambda L, rows, table: (rows[:0], {}))
            got.append(_quiet(read_ping_windows, text))
        pd.testing.assert_frame_equal(got[0], got[1])
        assert repr(got[0].attrs) == repr(got[1].attrs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([
    "Reply from 10.0.0.2: bytes=32 time=4ms TTL=64", "Request timed out.", "Zeitüberschreitung der Anforderung.",
    "Pinging 10.0.0.2 with 32 bytes of data:", "Ping statistics for 10.0.0.2:",
    "    Packets: Sent = 4, Received = 3, Lost = 1 (25% loss),", "    Minimum = 1ms, Maximum = 9ms, Average = 4ms",
    "", "garbage ] = < ms TTL", "[1]" * 50, "Reply from " + "9" * 300 + ": bytes=1 time=1ms TTL=1",
]), min_size=1, max_size=40), st.sampled_from(["utf-8", "utf-16-le", "utf-16-be", "cp1252"]))
def test_windows_ping_any_mix_gives_a_frame_or_a_clear_error(lines, encoding):
    text = "\r\n".join(lines) + "\r\n"
    data = text.encode(encoding, "replace")
    if encoding.startswith("utf-16"):
        data = "\ufeff".encode(encoding) + data
    try:
        df = _quiet(read_ping_windows, data)
    except MeasurementFormatError as exc:
        assert "<text>" in str(exc)
        return
    assert (df["seq"] >= 1).all() and df["rtt_s"].ge(0).all()
    assert df.attrs["malformed"]["count"] <= len(lines)


# --------------------------------------------------------------------------------------
# UTF-16 with a byte-order mark: the text policy of every reader


_ONE_FILE = {
    "labtool": "labtool_udpserver.txt", "iperf": "iperf2_enhanced.txt", "iperf3": "iperf3_client.txt",
    "ping": "ping_plain.txt", "ping_windows": "ping_windows_en_win7.txt", "tcp_probe": "tcpprobe_trace.txt",
    "ss": "ss_samples.txt", "tc_qdisc": "tc_samples.txt", "qlen": "qlen.txt", "ns3": "ns3-cwnd.data",
    "tshark": "tshark.csv", "wireshark_csv": "wireshark_ipv6_tcp.csv",
}


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("fmt", sorted(_ONE_FILE))
def test_every_reader_reads_utf16_with_a_byte_order_mark(fmt, encoding, tmp_path):
    text = (DATA / _ONE_FILE[fmt]).read_text(encoding="utf-8")
    path = tmp_path / _ONE_FILE[fmt]
    path.write_bytes("\ufeff".encode(encoding) + text.replace("\n", "\r\n").encode(encoding))
    ref = _quiet(read, DATA / _ONE_FILE[fmt])
    sources = [path] if fmt == "ns3" else [path, path.read_bytes(), io.BytesIO(path.read_bytes()),
                                           gzip.compress(path.read_bytes())]  # ns-3: the quantity is in the name
    for source in sources:
        got = _quiet(read, source)
        assert got.attrs["format"] == fmt
        pd.testing.assert_frame_equal(got, ref)


def test_text_policy_utf16_errors_name_the_line():
    bad = "\ufeffa\nb\n".encode("utf-16-le") + b"x"  # one byte too many: cut inside a code unit
    with pytest.raises(_textio.TextInputError, match=r"f\.txt, line 3: starts with a UTF-16 byte-order mark but is not valid"):
        _textio.decode(bad, "f.txt")
    t = _textio.decode(bad, "f.txt", nul="report")
    assert t.text.startswith("a\nb\n") and "U+FFFD" in t.notes[-1]
    with pytest.raises(_textio.TextInputError, match="line 2: contains a NUL character"):
        _textio.decode("\ufeffa\nb\0\n".encode("utf-16-be"), "g.txt")
    assert _textio.decode("\ufeffx\n".encode("utf-16-le")).encoding == "utf-16-le"


def test_utf16_tidy_table_and_answers_read_by_the_one_policy(tmp_path):
    from labcalc.compare import load_measurements

    text = "question,scenario,flow,metric,value,unit\nQ1,A,f1,goodput,1000000,bit/s\n"
    p = tmp_path / "m.csv"
    p.write_bytes("\ufeff".encode("utf-16-le") + text.encode("utf-16-le"))
    t = load_measurements(p)
    assert float(t["value"].iloc[0]) == 1e6


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_answers_file_reads_as_its_utf8_text(encoding):
    # Excel's "Unicode Text" and PowerShell's ">" save UTF-16 with a byte-order mark
    from labcalc.grading.answerfile import read_answers

    text = "student\tquestion\tanswer\nada\tQ1\t12 Mbit/s\nbob\tQ2\t0,5 s\n"
    got = read_answers("\ufeff".encode(encoding) + text.encode(encoding))
    ref = read_answers(text.encode("utf-8"))
    pd.testing.assert_frame_equal(got.answers, ref.answers)
    assert got.answers["answer"].tolist() == ["12 Mbit/s", "0,5 s"]


def test_windows_ping_through_convert_and_a_manifest(tmp_path):
    from labcalc.cli import main
    from labcalc.measure import build_manifest

    out = tmp_path / "ping.csv"
    assert main(["convert", str(DATA / "ping_windows_de_powershell_utf16.txt"), "-o", str(out),
                 "--format", "windows_ping"]) == 0
    table = pd.read_csv(out, comment="#")  # labcalc's header lines start with #
    assert table["rtt_s"].tolist() == [0.015] and table["src"].tolist() == ["1.1.1.1"]
    (tmp_path / "fr.txt").write_bytes((DATA / "ping_windows_fr_transcript.txt").read_bytes())
    (tmp_path / "manifest.toml").write_text(
        '[[measurement]]\nquestion = "Q1"\nscenario = "A"\nflow = "f"\nmetric = "loss"\nfile = "fr.txt"\n'
        'format = "ping_windows"\n', encoding="utf-8")
    text = (DATA / "ping_windows_fr_transcript.txt").read_text(encoding="utf-8")
    sent = sum(int(a) for a, _, _ in _COUNTS.findall(text))
    lost = sum(int(c) for _, _, c in _COUNTS.findall(text))
    row = build_manifest(tmp_path / "manifest.toml").iloc[0]
    assert float(row["value"]) == pytest.approx(lost / sent) and row["reader"] == "ping_windows"
