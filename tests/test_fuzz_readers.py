"""Cross-format property suite: mutated recordings must give a frame or a clear error.

For every format of :data:`labcalc.measure._dispatch.FORMATS` the recorded files
(data/measurements/recorded/) and the test files (tests/data/measure/) are mutated -- byte
flips, truncation, duplicated/deleted/shuffled lines, huge and non-finite numbers, wrong JSON
types, deep nesting, NUL bytes, long lines, gzip wrapping and corrupt gzip, UTF-16 with a
byte-order mark (whole or cut anywhere) -- written to a
named temporary file, and read by the format's reader and by :func:`labcalc.measure.read`.
Each call must return a :class:`pandas.DataFrame` or raise
:class:`~labcalc.measure.MeasurementFormatError` (a ValueError) whose message names the file.
"""

from __future__ import annotations

import gzip
import os
import re
import tempfile
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labcalc.measure as m
from labcalc.measure import MeasurementFormatError
from labcalc.measure._dispatch import FORMATS, _reader

ROOT = Path(__file__).resolve().parent.parent
DIRS = [ROOT / "data" / "measurements" / "recorded", ROOT / "tests" / "data" / "measure"]


def _catalogue():
    """(format, name, raw bytes) for every sample file that reads cleanly as its format."""
    out = []
    for d in DIRS:
        for p in sorted(d.iterdir()):
            if p.suffix in (".md", ".json5") or p.name.startswith("README"):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    fmt = m.read(p).attrs["format"]
                except Exception:
                    continue
            raw = p.read_bytes()
            if raw[:2] == b"\x1f\x8b":
                raw = gzip.decompress(raw)
            out.append((fmt, p.name, raw[:200_000]))
    return out


SAMPLES = _catalogue()
BY_FORMAT = {fmt: [s for s in SAMPLES if s[0] == fmt] for fmt in FORMATS}
TMP = Path(tempfile.mkdtemp(prefix="labcalc-fuzz-"))
_NUM = re.compile(rb"\d+(?:\.\d+)?")

HUGE = [b"9" * 400, b"inf", b"-inf", b"nan", b"1e999", b"-1e999", b"18446744073709551616", b"-0", b"1e-400"]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def mutate(data: bytes, kind: str, r) -> bytes:
    """Apply mutation *kind* using the random generator *r* (hypothesis' Random)."""
    n = len(data)
    if kind == "flip" and n:
        b = bytearray(data)
        for _ in range(r.randint(1, 8)):
            i = r.randrange(n)
            b[i] = r.randrange(256)
        return bytes(b)
    if kind == "truncate":
        return data[: r.randrange(n + 1)]
    if kind in ("dup", "delete", "shuffle"):
        lines = _lines(data)
        if kind == "dup":
            i = r.randrange(len(lines))
            lines[i:i] = [lines[i]] * r.randint(1, 5)
        elif kind == "delete":
            for _ in range(r.randint(1, 5)):
                if len(lines) > 1:
                    del lines[r.randrange(len(lines))]
        else:
            r.shuffle(lines)
        return b"\n".join(lines)
    if kind == "number":
        spans = [mm.span() for mm in _NUM.finditer(data[:50_000])]
        if not spans:
            return data
        out = bytearray(data)
        for a, b in sorted(r.sample(spans, min(len(spans), r.randint(1, 4))), reverse=True):
            out[a:b] = r.choice(HUGE)
        return bytes(out)
    if kind == "json_type":
        # swap a JSON value for a value of another type
        return re.sub(rb'(":\s*)(-?\d+(?:\.\d+)?|"[^"]*"|true|false|null)',
                      lambda mm: mm.group(1) + r.choice([b'"x"', b"[]", b"{}", b"null", b"true", b"[1,2]"]),
                      data, count=r.randint(1, 20))
    if kind == "deep":
        depth = r.choice([1000, 100_000])
        opener = r.choice([b"[", b"{\"a\":"])
        return data[: r.randrange(n + 1)] + opener * depth + b"\n"
    if kind == "nul":
        b = bytearray(data)
        for _ in range(r.randint(1, 4)):
            b[r.randrange(n + 1):r.randrange(n + 1)] = b"\0"
        return bytes(b)
    if kind == "long_line":
        i = data.find(b"\n", r.randrange(n + 1))
        i = n if i < 0 else i
        blob = r.choice([b"x", b"1", b"1,", b"1 ", b'"']) * r.choice([1 << 12, 1 << 17])
        return data[:i] + blob + data[i:]
    if kind == "gzip":
        return gzip.compress(data, mtime=0)
    if kind == "utf16":  # as Windows PowerShell saves text: UTF-16 with a byte-order mark
        codec = r.choice(["utf-16-le", "utf-16-be"])
        text = data.decode("utf-8", "replace").replace("\n", "\r\n")
        return "\ufeff".encode(codec) + text.encode(codec, "surrogatepass")[: r.choice([None, r.randrange(n * 2 + 3)])]
    if kind == "bad_gzip":
        g = gzip.compress(data, mtime=0)
        choice = r.randrange(3)
        if choice == 0:
            return b"\x1f\x8b"
        if choice == 1:
            return g[: r.randrange(2, len(g))]
        b = bytearray(g)
        b[-5] ^= 0xFF  # CRC / length trailer
        return bytes(b)
    return data


KINDS = ["flip", "truncate", "dup", "delete", "shuffle", "number", "json_type", "deep", "nul",
         "long_line", "gzip", "bad_gzip", "utf16"]


def _check(call, path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            out = call(path)
        except MeasurementFormatError as exc:
            assert path.name in str(exc), f"message does not name the file: {exc}"
            return
    assert isinstance(out, pd.DataFrame)


def _fuzz_format(fmt: str, idx: int, kind: str, r):
    samples = BY_FORMAT[fmt]
    _, name, raw = samples[idx % len(samples)]
    data = mutate(raw, kind, r)
    path = TMP / f"{fmt}-{kind}-{name}"
    path.write_bytes(data)
    try:
        _check(_reader(fmt), path)
        _check(m.read, path)
    finally:
        path.unlink()


FUZZED = [f for f in FORMATS if BY_FORMAT[f]]


def test_every_format_has_samples():
    assert set(FUZZED) == set(FORMATS), set(FORMATS) - set(FUZZED)


@pytest.mark.parametrize("fmt", FUZZED)
@settings(derandomize=True, deadline=None, max_examples=250,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(idx=st.integers(0, 1000), kind=st.sampled_from(KINDS), r=st.randoms(use_true_random=False))
def test_mutated_files_give_frame_or_clear_error(fmt, idx, kind, r):
    _fuzz_format(fmt, idx, kind, r)


BROKEN = {
    "bad_gzip.txt": b"\x1f\x8b",
    "truncated_gzip.txt.gz": gzip.compress(b"64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=4.04 ms\n" * 50, mtime=0)[:40],
    "binary.bin": bytes(range(256)) * 4,
    "unknown.txt": b"hello world\nthis is not a measurement\n",
    "empty.txt": b"",
    "nul_only.txt": b"\0" * 100,
    "inf_ns3.data": b"1e999 3\n",
}


@pytest.mark.parametrize("fname", sorted(BROKEN))
def test_cli_convert_broken_file_exit_2_one_line(fname, tmp_path, capsys):
    from labcalc.cli import main

    src = tmp_path / fname
    src.write_bytes(BROKEN[fname])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        code = main(["convert", str(src), "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert fname in lines[0] and "Traceback" not in err


# --- the fuzz findings of issue 11 in the readers of this part, pinned one by one ---------

TCP_PROBE_PROC = ("2.104000000 10.0.0.1:41200 10.0.0.2:5001 1448 0x1a2b0000 0x1a2afa58 10 2147483647 64128 5\n"
                  "2.112000000 10.0.0.1:41200 10.0.0.2:5001 1448 0x1a2b05a8 0x1a2b0000 11 2147483647 64128 5\n")


def _read_file(tmp_path, name, data, reader):
    p = tmp_path / name
    p.write_bytes(data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = reader(p)
    return df, [w for w in caught if issubclass(w.category, m.MalformedLinesWarning)]


@pytest.mark.parametrize("bad", [
    b"2.120000000 10.0.0.1:41200 10.0.0.2:5001 1448 0x1a2b0b50 0x1a2b05a8 " + b"9" * 400 + b" 2147483647 64128 6",
    b"2.120000000 10.0.0.1:41200 10.0.0.2:5001 1448 0x1a2b0b50 0x1a2b05a8 12 2147483647 64128 " + b"7" * 5000,
    b"2.120000000 10.0.0.1:41200 10.0.0.2:5001 1448 0x1a2b",  # truncated line
    b"2.120000000 10.0.0.1:41200 10.0.0.2:5001 1448 0x1a2b0b50 0x1a\x00b05a8 12 2147483647 64128 6",
])
def test_tcp_probe_bad_last_line_is_malformed(tmp_path, bad):
    df, warned = _read_file(tmp_path, "probe.txt", TCP_PROBE_PROC.encode() + bad + b"\n", m.read_tcp_probe)
    assert len(df) == 2
    assert df.attrs["malformed"] == {"count": 1, "lines": [3]}
    assert warned and "probe.txt" in str(warned[0].message)
    assert df["cwnd_segments"].tolist() == [10, 11]


def test_tcp_probe_long_address_at_the_end_of_the_file(tmp_path):
    # a string field much wider than the others, on the last line: read past the chunk before
    line = b"2.120000000 10.0.0.1:41200 " + b"1" * 170 + b".0.2:5001 1448 0x1a2b0b50 0x1a2b05a8 12 2147483647 64128 6"
    df, _ = _read_file(tmp_path, "probe.txt", TCP_PROBE_PROC.encode() + line + b"\n", m.read_tcp_probe)
    assert len(df) == 3 and df["dst"].iloc[2] == "1" * 170 + ".0.2:5001"


def test_labtool_400_digit_counter_is_malformed(tmp_path):
    good = b"  1.0s - sent:   100 pkts,  950.0 kb/s\n"
    bad = b"  2.0s - sent: " + b"9" * 400 + b" pkts,  950.0 kb/s\n"
    df, warned = _read_file(tmp_path, "udp.txt", good + bad + good.replace(b"1.0s", b"3.0s"), m.read_labtool)
    assert df["time_s"].tolist() == [1.0, 3.0]
    assert df["packets"].dtype == "int64"
    assert df.attrs["malformed"] == {"count": 1, "lines": [2]}
    assert warned


@pytest.mark.parametrize("value", [b"inf", b"1e999", b"-inf", b"9" * 400])
def test_ns3_non_finite_value_is_malformed(tmp_path, value):
    df, warned = _read_file(tmp_path, "cwnd.data", b"0.1 536\n0.2 " + value + b"\n0.3 1072\n", m.read_ns3)
    assert df["time_s"].tolist() == [0.1, 0.3]
    assert df.iloc[:, 1].tolist() == [536, 1072]
    assert df.attrs["malformed"] == {"count": 1, "lines": [2]}
    assert warned


def test_ns3_only_non_finite_values_is_an_error(tmp_path):
    p = tmp_path / "cwnd.data"
    p.write_bytes(b"0.1 inf\n0.2 1e999\n")
    with pytest.raises(MeasurementFormatError, match=r"cwnd\.data, line 1"):
        m.read_ns3(p)


def test_ns3_and_tshark_400kb_first_line_is_quick_and_reported(tmp_path):
    import time

    long = b"1 2," * 100_000 + b"\n"
    t0 = time.perf_counter()
    df, _ = _read_file(tmp_path, "cwnd.data", long + b"0.1 536\n0.2 1072\n", m.read_ns3)
    head = b"frame.time_relative,tcp.len\n"
    ts, _ = _read_file(tmp_path, "t.csv", head + long + b"0.1,1448\n0.2,1448\n", m.read_tshark)
    elapsed = time.perf_counter() - t0
    assert df.attrs["malformed"]["lines"] == [1] and len(df) == 2
    assert ts.attrs["malformed"]["lines"] == [2] and ts["bytes"].tolist() == [1448, 1448]
    assert elapsed < 5  # was 6.6 s and 11.5 s; a loose bound, the benchmark measures it


def test_ss_infinite_cwnd_is_malformed(tmp_path):
    block = ("ESTAB 0 0 10.0.0.1:40000 10.0.0.2:5201\n\t cubic wscale:7,7 rto:208 rtt:5/0.5 mss:1448 "
             "cwnd:{c} ssthresh:30 bytes_acked:1200000\n")
    text = (block.format(c=10) + block.format(c="1e999") + block.format(c=12)).encode()
    df, warned = _read_file(tmp_path, "ss.txt", text, m.read_ss)
    assert df["cwnd_segments"].tolist() == [10, 12]
    assert df["cwnd_segments"].dtype == "int64"
    assert df.attrs["malformed"]["count"] == 1 and df.attrs["malformed"]["lines"] == [3]


def test_tshark_ragged_row_then_huge_field_names_the_line(tmp_path):
    head = b"frame.time_relative,tcp.len,tcp.seq\n"
    data = head + b"0.1,1448,1\n0.2,1448\n0.3,\"" + b"x" * (128 * 1024 + 10) + b"\",1\n"
    p = tmp_path / "ragged.csv"
    p.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(MeasurementFormatError, match=r"ragged\.csv.*(unreadable CSV|not a finite number)"):
            m.read_tshark(p)


def test_tshark_infinite_number_names_the_field(tmp_path):
    # a numeric field that holds no finite number stays text; the analysis that needs it
    # as numbers names the file, the column, the tool's field, the value and itself
    p = tmp_path / "inf.csv"
    p.write_bytes(b"frame.time_relative,tcp.len\n0.1,1448\n0.2,1e999\n")
    df = m.read_tshark(p)
    assert df["bytes"].astype(str).tolist() == ["1448", "1e999"]
    assert df.attrs["not_numeric"]["bytes"] == {"column": "bytes", "field": "tcp.len", "value": "1e999", "row": 2}
    assert df["time_s"].tolist() == [0.1, 0.2]
    with pytest.raises(MeasurementFormatError,
                       match=r"inf\.csv: column 'bytes' \(the tool's field 'tcp\.len'\) holds '1e999' \(row 2\), "
                             r"not a number; receive_rate needs"):
        m.receive_rate(df, 0.1)


def test_qlen_huge_and_non_finite_values_are_malformed(tmp_path):
    data = b"1700000000.1,3\n1700000000.2," + b"9" * 400 + b"\n1e999,4\n1700000000.4,18446744073709551616\n1700000000.5,5\n"
    df, warned = _read_file(tmp_path, "q.txt", data, m.read_qlen)
    assert df["backlog_packets"].tolist()[0] == 3 and df["backlog_packets"].tolist()[-1] == 5
    assert df.attrs["malformed"] == {"count": 2, "lines": [2, 3]}
    assert len(df) == 3  # 2**64 is finite: kept, the column stays float
    assert df["backlog_packets"].dtype == float


@pytest.mark.parametrize("data", [
    b"\x1f\x8b",
    gzip.compress(TCP_PROBE_PROC.encode(), mtime=0)[:25],
    gzip.compress(TCP_PROBE_PROC.encode(), mtime=0)[:-8] + b"\0\0\0\0" + gzip.compress(TCP_PROBE_PROC.encode(), mtime=0)[-4:],
])
@pytest.mark.parametrize("fmt", [None, "tcp_probe", "ns3", "tshark", "qlen", "labtool", "ss"])
def test_corrupt_gzip_is_a_clear_error(tmp_path, data, fmt):
    p = tmp_path / "trace.gz"
    p.write_bytes(data)
    with pytest.raises(MeasurementFormatError, match=r"trace\.gz.*gzip"):
        m.read(p, format=fmt)


@pytest.mark.parametrize("opener", [b"[", b"{\"a\":"])
def test_json_nested_100000_deep_is_a_clear_error(tmp_path, opener):
    p = tmp_path / "deep.json"
    p.write_bytes(opener * 100_000 + b"\n")
    with pytest.raises(MeasurementFormatError, match=r"deep\.json"):
        m.read(p)


def test_cp1252_file_reads_with_a_reported_fallback(tmp_path):
    p = tmp_path / "cwnd.data"
    p.write_bytes("# r\u00e9seau\n0.1 536\n".encode("cp1252"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = m.read_ns3(p)
    assert df.iloc[:, 1].tolist() == [536]
    assert any("line 1 is not valid UTF-8" in str(w.message) and "cp1252" in str(w.message) for w in caught)


_DIGITS = "9" * 131076  # far past Python's 4300-digit limit of int()
_RECORDED = ROOT / "data" / "measurements" / "recorded"


@pytest.mark.parametrize("fname, reader, old, new", [
    # found by scripts/fuzz_long.py: these reached int() and raised its digit-limit ValueError
    ("iperf2_server.txt", "read_iperf", "TCP port 5001", f"TCP port {_DIGITS}"),
    ("iperf2_server.txt", "read_iperf", "10.99.2.2 port 5001", f"10.99.2.2 port {_DIGITS}"),
    ("ping.txt", "read_ping", "5 packets transmitted", f"{_DIGITS} packets transmitted"),
])
def test_a_number_past_ints_digit_limit_is_a_malformed_line(tmp_path, fname, reader, old, new):
    text = (_RECORDED / fname).read_text()
    assert old in text
    df, warned = _read_file(tmp_path, fname, text.replace(old, new, 1).encode(), getattr(m, reader))
    reference = getattr(m, reader)(_RECORDED / fname)
    line = text[: text.index(old)].count("\n") + 1
    assert warned and df.attrs["malformed"] == {"count": 1, "lines": [line]}
    assert len(df) == len(reference)  # only the changed line is lost, no data row


def test_labtool_counter_past_ints_digit_limit_is_malformed(tmp_path):
    good = b"  1.0s - sent:   100 pkts,  950.0 kb/s\n"
    bad = b"  2.0s - sent: " + _DIGITS.encode() + b" pkts,  950.0 kb/s\n"
    df, warned = _read_file(tmp_path, "udp.txt", good + bad + good.replace(b"1.0s", b"3.0s"), m.read_labtool)
    assert df["time_s"].tolist() == [1.0, 3.0] and df.attrs["malformed"] == {"count": 1, "lines": [2]}


@pytest.mark.parametrize("fmt", [None] + sorted(FORMATS))
def test_a_line_of_repeated_bracket_tokens_is_refused_by_name(tmp_path, fmt):
    # issue 20: "[1]" * 20000 took 11 s in read_tcp_probe (its other-events pattern backtracked
    # over every bracket) and in format sniffing; 100,000 tokens here would take minutes if it
    # still did (benchmarks/bench_readers.py times the 60 and 200 KB lines)
    p = tmp_path / "brackets.txt"
    p.write_bytes(b"[1]" * 100_000 + b"\n")
    with pytest.raises(MeasurementFormatError, match=r"brackets\.txt, line 1"):
        _reader(fmt)(p) if fmt else m.read(p)


def test_tcp_probe_other_trace_events_still_recognised():
    from labcalc.measure.tcpprobe import _parse_slow

    assert _parse_slow("          <idle>-0     [001] ..s1.  1234.5: sched_switch: prev_comm=x")[0] == "other"
    assert _parse_slow("  Web Content-1234 [000] 99.1: net_dev_xmit: dev=lo")[0] == "other"
    assert _parse_slow("[001] 99.1: sched_switch: prev_comm=x")[0] is None  # no task before the CPU
    assert _parse_slow("[1]" * 1000)[0] is None
