"""The vectorised byte parsers behind the big-file readers agree with Python's own parsing."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from labcalc.measure._vector import Lines, fast_rows, parse_float, parse_hex, parse_uint, span_codes


def _spans(tokens: list[str]):
    text = " ".join(tokens) + "\n"
    L = Lines(text.encode(), 1)
    spans = [(mm.start(), mm.end()) for mm in re.finditer(r"\S+", text)]
    s = np.array([a for a, _ in spans], dtype=np.int64)
    e = np.array([b for _, b in spans], dtype=np.int64)
    return L, s, e


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**19 - 1), min_size=1, max_size=30))
def test_parse_uint_decimal(values):
    L, s, e = _spans([str(v) for v in values])
    got, ok = parse_uint(L, s, e)
    assert ok.all()
    assert [int(x) for x in got] == values


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=30), st.booleans(), st.booleans())
def test_parse_hex(values, prefix, upper):
    tokens = [(f"{v:#x}" if prefix else f"{v:x}") for v in values]
    if upper:
        tokens = [t.upper().replace("0X", "0x") for t in tokens]
    L, s, e = _spans(tokens)
    got, ok = parse_hex(L, s, e)
    assert ok.all()
    assert [int(x) for x in got] == values


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 9), st.integers(0, 999999), st.booleans()),
                min_size=1, max_size=30))
def test_parse_float(values):
    tokens = []
    for ip, ndig, frac, neg in values:
        t = str(ip) if ndig == 0 else f"{ip}.{str(frac).zfill(6)[:ndig]}"
        tokens.append(("-" if neg else "") + t)
    L, s, e = _spans(tokens)
    got, ok = parse_float(L, s, e)
    assert ok.all()
    np.testing.assert_allclose(got, [float(t) for t in tokens], rtol=1e-15, atol=0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="0123456789abcdefxX.-:g", min_size=1, max_size=12), min_size=1, max_size=30))
# '1.91' was read as 1.9100000000000001 (two roundings); the others: more digits than 2**53 holds
@example(["1.91", "0.3", "2.675", "9007199254740993", "123456789012.3456789", "1700000000.123456"])
def test_invalid_tokens_are_flagged_not_misread(tokens):
    L, s, e = _spans(tokens)
    v, ok = parse_uint(L, s, e)
    for tok, val, good in zip(tokens, v, ok):
        if good:
            assert tok.isdigit() and int(tok) == int(val)
        else:
            assert not tok.isdigit() or len(tok) > 19
    f, okf = parse_float(L, s, e)
    for tok, val, good in zip(tokens, f, okf):
        if good:
            assert float(tok) == val


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["10.0.0.1:5001", "10.0.0.2:40000", "[::1]:22", "a", "10.0.0.1:5002"]),
                min_size=1, max_size=50))
def test_span_codes_round_trip(tokens):
    L, s, e = _spans(tokens)
    table: dict[str, int] = {}
    codes = span_codes(L, s, e, table)
    names = {v: k for k, v in table.items()}
    assert [names[c] for c in codes] == tokens


# --------------------------------------------------------------------------------------
# the block-wise fast paths of the text readers give the frames of their line-by-line parsers

import glob  # noqa: E402
import os  # noqa: E402
import warnings  # noqa: E402

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import labcalc.measure.iperf3 as _iperf3  # noqa: E402

_DATA = os.path.join(os.path.dirname(__file__), "data", "measure")

# iperf3 text with every kind of line the fast path must leave to the slow one, between
# regular lines: a damaged line, 400-digit numbers, a NUL byte, odd blanks, a second
# connection, a header announcing datagrams, --bidir directions, a summary
_IPERF3_MIXED = """Connecting to host 10.0.0.2, port 5201
[  5] local 10.0.0.1 port 40000 connected to 10.0.0.2 port 5201
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec  2.36 MBytes  19.8 Mbits/sec    0    257 KBytes       (omitted)
[  5]   0.00-1.00   sec   954 KBytes  7.82 Mbits/sec    2   48.1 KBytes
[  5]   1.00-2.00   sec   954 KBytes  7.82 Mbits/sec    2   48.1 KBytes   trailing words
[  5]   2.00-3.00   sec   9\x0054 KBytes  7.82 Mbits/sec    2   48.1 KBytes
[  5]   3.00-4.00   sec   {big} KBytes  7.82 Mbits/sec    2   48.1 KBytes
[  5]\t4.00-5.00\tsec\t1.5 GBytes\t12.9 Gbits/sec\t3\t1.2 MBytes
[  5]\x0b  5.00-6.00   sec   1 Bytes  8 bits/sec    2   48.1 KBytes
[  7] local 10.0.0.1 port 40002 connected to 10.0.0.2 port 5201
[  7]   5.00-6.00   sec   100 KBytes  800 Kbits/sec    1
[SUM]   5.00-6.00   sec   200 KBytes  1.6 Mbits/sec    3
[  5][TX-C]   6.00-7.00   sec   1.00 MBytes  8.39 Mbits/sec    0   10.0 KBytes
[  7][RX-C]   6.00-7.00   sec   1.00 MBytes  8.39 Mbits/sec
[ ID] Interval           Transfer     Bitrate         Total Datagrams
[  5]   7.00-8.00   sec   128 KBytes  1.05 Mbits/sec  91
[  5]   8.00-9.00   sec   128 KBytes  1.05 Mbits/sec  0.045 ms  0/91 (0%)
[  5]   9.00-10.00  sec   0.00 Bytes  0.00 bits/sec  0.000 ms  0/0 (0%)
[  5]  10.00-11.00  sec   128 KBytes  1.05 Mbits/sec  0.045 ms  3/91 (3.3%)  (omitted)
    [  5]  11.00-12.00   sec   128 KBytes  1.05 Mbits/sec   12
- - - - - - - - - - - - - - - - - - - - - - - - -
[  5]  12.00-13.00   sec   128 KBytes  1.05 Mbits/sec   12
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-13.00  sec  8.76 MBytes  9.19 Mbits/sec    0             sender
[  5]   0.00-13.03  sec  8.70 MBytes  9.10 Mbits/sec                  receiver
[  5]  13.00-14.00   sec   128 KBytes  1.05 Mbits/sec   12

iperf Done.
""".replace("{big}", "9" * 400)


def _both_iperf3(source, monkeypatch, block=None):
    out = []
    for fast in (True, False):
        monkeypatch.setattr(_iperf3, "_FAST_ENABLED", fast)
        if block is not None:
            monkeypatch.setattr(_iperf3, "_BLOCK_CHARS", block)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(_iperf3.read_iperf3(source))
    return out


def _assert_same(fast, slow):
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert repr(fast.attrs) == repr(slow.attrs)


_IPERF3_FILES = sorted(glob.glob(os.path.join(_DATA, "iperf3*.txt")))


@pytest.mark.parametrize("path", [p for p in _IPERF3_FILES if "error" not in os.path.basename(p)],
                         ids=os.path.basename)
def test_iperf3_fast_path_matches_line_parser_on_test_files(path, monkeypatch):
    fast, slow = _both_iperf3(path, monkeypatch)
    _assert_same(fast, slow)


@pytest.mark.parametrize("path", [p for p in _IPERF3_FILES if "error" in os.path.basename(p)], ids=os.path.basename)
def test_iperf3_fast_path_and_line_parser_refuse_an_error_printout_alike(path, monkeypatch):
    # a printout holding only iperf3's error: both paths refuse it with the same message
    messages = []
    for fast in (True, False):
        monkeypatch.setattr(_iperf3, "_FAST_ENABLED", fast)
        with pytest.raises(ValueError) as exc:
            _iperf3.read_iperf3(path)
        messages.append(str(exc.value))
    assert messages[0] == messages[1] and "error" in messages[0].lower()


@pytest.mark.parametrize("block", [None, 64, 200, 1000])
def test_iperf3_fast_path_matches_line_parser_with_odd_lines(block, monkeypatch):
    fast, slow = _both_iperf3(_IPERF3_MIXED, monkeypatch, block)
    _assert_same(fast, slow)
    # the odd lines really are in the file: rows of both kinds, malformed lines by number
    assert fast.attrs["malformed"]["lines"] == [7, 8]  # the NUL byte, the 400 digits
    assert set(fast["stream"]) == {"5", "7", "SUM"}
    assert fast["packets"].notna().sum() == 6  # datagram counts (header says so) and UDP totals
    assert fast.loc[fast["direction"] == "RX-C", "src"].tolist() == ["10.0.0.2:5201"]
    assert [s["role"] for s in fast.attrs["summary"]] == ["sender", "receiver", "summary"]
    assert fast["time_s"].iloc[-1] == 13.0  # the line after the summary header is a summary


def test_iperf3_fast_path_matches_line_parser_on_many_regular_lines(monkeypatch):
    rng = np.random.default_rng(5)
    lines = ["[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"]
    for i in range(3000):
        lines.append(f"[  {4 + i % 3}] {i:7.2f}-{i + 1:<7.2f} sec  {rng.uniform(0, 999):.3g} "
                     f"{'KMG'[i % 3]}Bytes  {rng.uniform(0, 999):.3g} {'KMG'[i % 2]}bits/sec  "
                     f"{rng.integers(0, 50)}   {rng.uniform(1, 900):.1f} KBytes\n")
        if i % 500 == 7:
            lines.append("[  5]   garbage 0.00-1.00 sec\n")
    fast, slow = _both_iperf3("".join(lines), monkeypatch, block=4096)
    _assert_same(fast, slow)
    assert len(fast) == 3000


def test_parse_float_reads_no_byte_past_a_short_number_at_the_end():
    # found by scripts/fuzz_long.py: a 40-digit RTT made parse_float look 32 bytes into every
    # row, and a short number in the last line of the text then read past the buffer
    from labcalc import measure as m

    text = ("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
            "[1709634000.100000] 64 bytes from 10.0.0.2: icmp_seq=1 ttl=63 time=0.081 ms\n"
            "[1709634000.300650] 64 bytes from 10.0.0.2: icmp_seq=3 ttl=63 time=" + "9" * 40 + " ms\n"
            "[1709634000.400981] 64 bytes from 10.0.0.2: icmp_seq=4 ttl=63 time=-inf ms\n")
    with pytest.warns(m.MalformedLinesWarning):
        df = m.read_ping(text.encode())
    assert df["rtt_s"].tolist() == pytest.approx([0.081e-3], rel=1e-12)
    assert df.attrs["malformed"] == {"count": 2, "lines": [3, 4]}


@pytest.mark.parametrize("tail", [" " * 100_000, " \t\r" * 1000, " " * 9, " " * 8, " "])
def test_trailing_white_space_of_any_length_is_stripped(tail):
    # a byte a round for every line at once, then the long tails one by one (a line ending in
    # 400 KB of spaces took 400,000 rounds over the whole chunk: 2 s; found by hostile lines)
    from labcalc import measure as m

    reply = "64 bytes from 10.0.0.2: icmp_seq={} ttl=64 time=4.04 ms"
    text = "\n".join(reply.format(i) + (tail if i == 2 else "") for i in range(1, 5)) + "\n"
    df = m.read_ping(text.encode())
    assert df["seq"].tolist() == [1, 2, 3, 4] and df.attrs["malformed"]["count"] == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 10**15 - 1).map(str),
                          st.tuples(st.integers(0, 10**9), st.integers(0, 10**6)).map(lambda t: f"{t[0]}.{t[1]}"),
                          st.sampled_from(["0.1", "7.82", "00.10", "1.", ".5", "1.2.3", "9" * 17, "12345678901234.5"])),
                min_size=1, max_size=30))
def test_parse_decimal_is_float_of_the_text(tokens):
    from labcalc.measure._vector import parse_decimal

    L, s, e = _spans(tokens)
    got, ok = parse_decimal(L, s, e)
    for tok, value, good in zip(tokens, got, ok):
        plain = re.fullmatch(r"\d+(\.\d+)?", tok) and len(tok.replace(".", "")) <= 15
        assert bool(good) == bool(plain), tok
        if good:
            assert value == float(tok), tok  # bit for bit, as the patterns' float() gives


_LABTOOL_LINES = [
    "  1.0s - received:   100 out of   102 pkts (loss  1.961%),  950.0 kb/s",
    "170.5s - received: 843/ sent: 867 pkts (loss 2.768%), 957.7 kbit/s",
    "  4.0s - sent:   503 pkts,  1000.0 kbits/s",
    "  6.3:   854.0kbps avg (  944.5[inst],  926.5[mov.avg]) cwnd  9 rtt 83.9ms",
    "  6.3:   854.0kbps avg (  944.5[inst],  926.5[mov avg]) cwnd  9 rtt 83.9ms",
    "  4.0s - sent:   503 pkts,  1000.0 KB/S", "  4.0s - sent:   5" + "9" * 40 + " pkts,  1.0 kb/s",
    "  7.0s - received:   100 out of   102 pkts (loss  nan%),  inf kb/s", "garbage", "",
]


@pytest.mark.parametrize("seed", range(3))
def test_labtool_bulk_path_equals_the_patterns(monkeypatch, seed):
    from labcalc.measure import MeasurementFormatError, labtool
    from tests.fastpath import assert_fast_path_equals_slow, mutate_tokens

    rng = np.random.default_rng(300 + seed)
    for _ in range(60):
        text = "\n".join(_LABTOOL_LINES[k] for k in rng.integers(0, len(_LABTOOL_LINES), 25)) + "\n"
        text = mutate_tokens(rng, text, "0123456789.-s: ()%[]", ("kb/s", "pkts", "out of", "[inst],", "ms"))
        assert_fast_path_equals_slow(monkeypatch, labtool, labtool.read_labtool, MeasurementFormatError, text,
                                     int(rng.integers(40, 400)))


def test_fast_rows_splits_a_chunk_between_the_fast_path_and_the_rest():
    """Empty lines (white space only, too) go to neither side; the first non-empty line is
    reported with its line number whichever side reads it."""
    L = Lines(b"\n  \nok 1\nnope\nok 2\n", 1)

    def fast(L, rows, table):  # a stand-in fast path: the rows whose text starts with "ok"
        got = np.array([r for r, t in zip(rows, L.text(rows)) if t.startswith("ok")], dtype=np.int64)
        table.setdefault("seen", len(table))
        return got, {"n": len(got)}

    table = {}
    first, part, rest = fast_rows(L, fast, table)
    assert first == (3, "ok 1")
    assert list(part[0]) == [3, 5] and part[1] == {"n": 2}
    assert [int(L.numbers[r]) for r in rest] == [4] and L.text(rest) == ["nope"]
    assert table == {"seen": 0}  # the chunk's table is the one handed to the fast path
    # a fast path that reads nothing leaves every non-empty row to the line parser
    first, part, rest = fast_rows(L, lambda L, rows, table: (rows[:0], {}), {})
    assert first == (3, "ok 1") and part is None and L.text(rest) == ["ok 1", "nope", "ok 2"]
    # a chunk of empty lines: nothing, and the fast path is not called
    first, part, rest = fast_rows(Lines(b"\n \t\n", 1), None, {})
    assert first is None and part is None and len(rest) == 0
