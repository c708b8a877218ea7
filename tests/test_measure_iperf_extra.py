"""iperf readers on real -P N recordings, iperf3 JSON side, and hostile inputs (issue 11).

(a) iperf3 outputs recorded on this machine with ``-P N`` (tests/data/measure/README says
    how): the rows and the summary are compared with counts taken from the file by an
    independent regular expression and with hand-counted literals, and the per-stream
    totals with iperf3's own ``[SUM]`` lines within the rounding of the printed digits.
(b) one test per damaged-input case of the issue: wrong JSON types, deep nesting, huge and
    non-finite numbers, truncated lines, NUL bytes.
(c) a seeded hypothesis property: mutated iperf / iperf3 files give a frame or a
    MeasurementFormatError naming the source, never another exception.
"""

from __future__ import annotations

import io
import json
import math
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labcalc.measure import MalformedLinesWarning, MeasurementFormatError, ToolErrorWarning
from labcalc.measure._common import check_json_depth
import labcalc.measure as m
from labcalc.measure.iperf import read_iperf, read_iperf3
from tests.fastpath import assert_fast_path_equals_slow, mutate_tokens

DATA = Path(__file__).resolve().parent / "data" / "measure"
RECORDED = Path(__file__).resolve().parents[1] / "data" / "measurements" / "recorded"


def quiet(func, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        warnings.simplefilter("ignore", ToolErrorWarning)
        return func(*args)


# --------------------------------------------------------------------------------------
# (a) -P N text recordings

# an interval or summary line, after an optional --timestamps prefix; independent of the reader
_LINE = re.compile(
    r"\[\s*(?P<id>\d+|SUM)\](?:\[(?P<dir>[A-Z]+-[A-Z])\])?\s+(?P<t0>[\d.]+)-(?P<t1>[\d.]+)\s+sec\s+"
    r"(?P<xfer>[\d.]+) (?P<xu>[KMG]?)Bytes\s+(?P<rate>[\d.]+) (?P<ru>[KMG]?)bits/sec(?P<rest>.*)$"
)
_BIN = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
_DEC = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def _scan(path: Path):
    """Interval and summary lines of the client's part (before 'Server output:')."""
    intervals, summary = [], []
    for line in path.read_text().split("\n"):
        if line.startswith("Server output:"):
            break
        m = _LINE.search(line)
        if not m:
            continue
        rest = m["rest"].strip()
        role = rest.split()[-1] if rest.endswith(("sender", "receiver")) else None
        rec = {
            "id": m["id"], "dir": m["dir"], "t1": float(m["t1"]), "role": role,
            "bytes": float(m["xfer"]) * _BIN[m["xu"]], "xfer": m["xfer"], "xu": m["xu"],
            "rate": float(m["rate"]) * _DEC[m["ru"]], "rate_txt": m["rate"], "ru": m["ru"],
        }
        (summary if role else intervals).append(rec)
    return intervals, summary


def _half_digit(text: str, unit: float) -> float:
    """Half a unit of the last printed digit: iperf3 prints 3 significant digits."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals * unit


# file, streams, interval groups, [SUM] rows in the intervals, summary lines iperf3 printed
P_FILES = [
    ("iperf3_P2.txt", 2, 3, 3, 6),                 # 2 x 3 + 3 SUM; 2 x (sender, receiver) + 2 SUM
    ("iperf3_P5.txt", 5, 2, 2, 12),
    ("iperf3_P10_get_server_output.txt", 10, 2, 2, 22),
    ("iperf3_P100.txt", 100, 2, 2, 202),
    ("iperf3_udp_P3.txt", 3, 2, 2, 8),
    ("iperf3_R_P4.txt", 4, 2, 2, 10),
    ("iperf3_bidir_P2_timestamps_O1.txt", 4, 3, 6, 12),  # 2 TX + 2 RX streams, 1 omitted group
    ("iperf3_server_P3.txt", 3, 2, 2, 4),          # server: receivers + SUM receiver only
]


@pytest.mark.parametrize("fname,streams,groups,sums,n_summary", P_FILES)
def test_parallel_rows_and_summary(fname, streams, groups, sums, n_summary):
    path = DATA / fname
    df = read_iperf3(path)
    intervals, summary = _scan(path)
    # hand-counted shape, and the same from the independent scan
    assert len(df) == streams * groups + sums == len(intervals)
    assert (df["stream"] == "SUM").sum() == sums
    assert len(df.attrs["summary"]) == n_summary == len(summary)
    assert [s["role"] for s in df.attrs["summary"]] == [s["role"] for s in summary]
    assert df.attrs["malformed"] == {"count": 0, "lines": []}
    # the rows are the file's interval lines, in order and with their values
    assert df["time_s"].tolist() == [r["t1"] for r in intervals]
    np.testing.assert_allclose(df["bytes"], [r["bytes"] for r in intervals], rtol=1e-12)
    np.testing.assert_allclose(df["rate_bps"], [r["rate"] for r in intervals], rtol=1e-12)
    # every interval is in the frame, none in the summary (the bug of issue 11)
    assert all(s["start_s"] == 0.0 for s in df.attrs["summary"])


@pytest.mark.parametrize("fname", [f[0] for f in P_FILES])
def test_parallel_receiver_sum_matches_sum_line(fname):
    """The per-stream receiver totals add up to iperf3's [SUM] receiver line (3 digits each)."""
    _, summary = _scan(DATA / fname)
    df = read_iperf3(DATA / fname)
    for direction in {s["dir"] for s in summary}:
        recv = [s for s in summary if s["role"] == "receiver" and s["dir"] == direction]
        per_stream = [s for s in recv if s["id"] != "SUM"]
        total = [s for s in recv if s["id"] == "SUM"]
        assert len(total) == 1 and per_stream
        tol = sum(_half_digit(s["rate_txt"], _DEC[s["ru"]]) for s in recv)
        assert sum(s["rate"] for s in per_stream) == pytest.approx(total[0]["rate"], abs=tol)
        # the reader's summary holds the same numbers
        got = [s for s in df.attrs["summary"] if s["role"] == "receiver" and s.get("direction") == direction]
        assert sum(s["rate_bps"] for s in got if s["stream"] != "SUM") == pytest.approx(
            sum(s["rate"] for s in per_stream), rel=1e-12
        )


@pytest.mark.parametrize("fname", [f[0] for f in P_FILES])
def test_parallel_interval_sum_rows_add_up(fname):
    """In each interval group the [SUM] bytes equal the streams' bytes within rounding."""
    intervals, _ = _scan(DATA / fname)
    group = []
    for r in intervals:
        if r["id"] != "SUM":
            group.append(r)
            continue
        mine = [g for g in group if g["dir"] == r["dir"]]
        tol = sum(_half_digit(g["xfer"], _BIN[g["xu"]]) for g in mine + [r])
        assert sum(g["bytes"] for g in mine) == pytest.approx(r["bytes"], abs=tol)
        group = [g for g in group if g["dir"] != r["dir"]]


def test_p2_values_and_side():
    df = read_iperf3(DATA / "iperf3_P2.txt")
    assert df.attrs["side"] == "client"
    # line 5: "[  5]   0.00-1.00   sec  2.50 MBytes  21.0 Mbits/sec    0   1.12 MBytes"
    first = df.iloc[0]
    assert (first["stream"], first["end_s"], first["bytes"], first["rate_bps"]) == ("5", 1.0, 2.5 * 1024**2, 21.0e6)
    assert first["cwnd_bytes"] == pytest.approx(1.12 * 1024**2)
    # line 15: "[SUM]   2.00-3.00   sec  4.75 MBytes  39.8 Mbits/sec    0"
    last = df.iloc[-1]
    assert (last["stream"], last["start_s"], last["end_s"], last["rate_bps"]) == ("SUM", 2.0, 3.0, 39.8e6)
    # line 22: "[SUM]   0.00-3.00   sec  14.5 MBytes  40.5 Mbits/sec   receiver"
    assert df.attrs["summary"][-1]["rate_bps"] == 40.5e6
    assert df.attrs["summary"][-1]["role"] == "receiver"
    assert df["src"].iloc[0].endswith(":53792") and df["dst"].iloc[0] == "127.0.0.1:5299"


def test_p10_server_output_kept_apart():
    df = read_iperf3(DATA / "iperf3_P10_get_server_output.txt")
    server = df.attrs["server_output"]
    assert len(server["intervals"]) == 10 * 2 + 2
    assert [s["role"] for s in server["summary"]] == ["receiver"] * 11
    # the server's [SUM] receiver line: "[SUM]   0.00-2.00   sec  12.5 MBytes  52.4 Mbits/sec  receiver"
    assert server["summary"][-1]["stream"] == "SUM" and server["summary"][-1]["rate_bps"] == 52.4e6
    assert df["stream"].nunique() == 11


def test_reverse_and_udp_and_bidir_details():
    rev = read_iperf3(DATA / "iperf3_R_P4.txt")
    assert rev.attrs["reverse"] is True
    streams = rev[rev["stream"] != "SUM"]
    assert (streams["src"] == "127.0.0.1:5299").all()  # -R: the server sends
    udp = read_iperf3(DATA / "iperf3_udp_P3.txt")
    per_stream = udp[udp["stream"] != "SUM"]
    # UDP sender intervals, "Total Datagrams" column (lines 6-8 and 11-13: 20 then 19 each)
    assert per_stream["packets"].tolist() == [20, 20, 20, 19, 19, 19]
    assert udp.loc[udp["stream"] == "SUM", "packets"].tolist() == [60, 57]  # lines 9 and 14
    recv = [s for s in udp.attrs["summary"] if s["role"] == "receiver" and s["stream"] != "SUM"]
    assert [s["lost_packets"] for s in recv] == [0, 0, 0] and [s["packets"] for s in recv] == [39, 39, 39]
    bidir = read_iperf3(DATA / "iperf3_bidir_P2_timestamps_O1.txt")
    assert bidir["omitted"].sum() == 6 and not bidir["omitted"].iloc[6:].any()
    assert set(bidir["direction"]) == {"TX-C", "RX-C"}
    assert bidir["timestamp"].iloc[0] == "Tue Nov 24 10:33:01 2026"


def test_server_side_text():
    df = read_iperf3(DATA / "iperf3_server_P3.txt")
    assert df.attrs["side"] == "server"
    # the server receives: the client's ports are the sources
    assert (df.loc[df["stream"] != "SUM", "dst"].str.endswith(":5298")).all()


def test_separator_without_header_is_not_summary():
    text = (
        "[ ID] Interval           Transfer     Bitrate\n"
        "[  5]   0.00-1.00   sec  1.00 MBytes  8.39 Mbits/sec\n"
        "[  7]   0.00-1.00   sec  1.00 MBytes  8.39 Mbits/sec\n"
        "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
        "[  5]   1.00-2.00   sec  1.00 MBytes  8.39 Mbits/sec\n"
        "[  7]   1.00-2.00   sec  1.00 MBytes  8.39 Mbits/sec\n"
    )
    df = read_iperf3(text)
    assert len(df) == 4 and df.attrs["summary"] == []


# --------------------------------------------------------------------------------------
# JSON side


def _json_rows(doc) -> int:
    n = 0
    for interval in doc["intervals"]:
        n += len(interval["streams"])
        if len(interval["streams"]) > 1:
            n += sum(k in interval for k in ("sum", "sum_bidir_reverse"))
    return n


@pytest.mark.parametrize("fname,side", [("iperf3_server_P2.json", "server"), ("iperf3_client_P2.json", "client")])
def test_json_side(fname, side):
    df = read_iperf3(DATA / fname)
    doc = json.loads((DATA / fname).read_text())
    assert df.attrs["side"] == side
    assert len(df) == _json_rows(doc)
    assert df["bytes"].sum() == sum(s["bytes"] for i in doc["intervals"] for s in i["streams"]) + sum(
        i["sum"]["bytes"] for i in doc["intervals"]
    )


def test_json_side_of_existing_files():
    assert read_iperf3(RECORDED / "iperf3_tcp.json").attrs["side"] == "client"
    assert read_iperf3(DATA / "iperf3_reverse_client.json").attrs["side"] == "client"
    assert read_iperf3(DATA / "iperf3_reverse_old.json").attrs["side"] == "client"  # iperf 3.0.7
    # hand-made files with neither start.connecting_to nor start.accepted_connection: the
    # streams' "sender" flag tells (true on the client, false on the server, without -R)
    def first_flag(name):
        return json.loads((DATA / name).read_text())["intervals"][0]["streams"][0]["sender"]

    assert first_flag("iperf3_client.json") is True
    assert read_iperf3(DATA / "iperf3_client.json").attrs["side"] == "client"
    assert first_flag("iperf3_udp_server.json") is False
    assert read_iperf3(DATA / "iperf3_udp_server.json").attrs["side"] == "server"
    assert '"omitted": true, "sender": true}' in (DATA / "iperf3_stream.jsonl").read_text()  # --json-stream too
    assert quiet(read_iperf3, DATA / "iperf3_stream.jsonl").attrs["side"] == "client"


# --------------------------------------------------------------------------------------
# (b) one test per damaged input of the issue


def _bio(data: str | bytes, name: str) -> io.BytesIO:
    b = io.BytesIO(data.encode() if isinstance(data, str) else data)
    b.name = name
    return b


def _refused(func, data, name="case.json", match=None) -> MeasurementFormatError:
    with pytest.raises(MeasurementFormatError) as info:
        quiet(func, _bio(data, name))
    assert name in str(info.value)
    if match:
        assert re.search(match, str(info.value)), str(info.value)
    return info.value


CLIENT_JSON = (DATA / "iperf3_client_P2.json").read_text()


@pytest.mark.parametrize(
    "doc,field",
    [
        ('{"start": 2}', "start"),
        ('{"intervals": [1]}', r"intervals\[0\]"),
        ('{"intervals": 3}', "intervals"),
        ('{"end": []}', "end"),
        ('{"start": {"connected": 5}, "intervals": []}', "start.connected"),
        ('{"start": {"test_start": "x"}}', "start.test_start"),
        ('{"intervals": [{"streams": {"a": 1}}]}', r"intervals\[0\]\.streams"),
        (
            '{"intervals": [{"streams": [{"socket": [1], "start": 0, "end": 1, "bytes": 1, "bits_per_second": 8}]}]}',
            r"intervals\[0\]\.streams\[0\]\.socket is an array",
        ),
        ('{"end": {"streams": [{"sender": 7}]}}', r"end\.streams\[0\]\.sender"),
    ],
)
def test_json_wrong_types(doc, field):
    _refused(read_iperf3, doc, match=field)


def test_json_string_where_number():
    doc = json.loads(CLIENT_JSON)
    doc["intervals"][1]["streams"][0]["bytes"] = "1.2 MB"
    exc = _refused(read_iperf3, json.dumps(doc), match=r"intervals\[1\]\.streams\[0\]\.bytes is a string")
    assert exc.line == 1


def test_json_nulls():
    """null in an optional field (rtt) is a missing value; in a core field an error."""
    doc = json.loads(CLIENT_JSON)
    doc["intervals"][0]["streams"][0]["rtt"] = None
    df = read_iperf3(_bio(json.dumps(doc), "null.json"))
    assert math.isnan(df["rtt_s"].iloc[0]) and df["rtt_s"].iloc[1] > 0
    doc["start"] = None  # a null part is an empty one
    assert len(read_iperf3(_bio(json.dumps(doc), "null.json"))) == len(df)
    # a null (or absent) interval bound, byte count or rate is refused, not a silent NaN
    doc["intervals"][1]["sum"]["start"] = None
    _refused(read_iperf3, json.dumps(doc), match=r"intervals\[1\]\.sum\.start is missing")
    del doc["intervals"][1]["sum"]["start"]
    _refused(read_iperf3, json.dumps(doc), match=r"intervals\[1\]\.sum\.start is missing")


def test_json_deep_nesting():
    _refused(read_iperf3, '{"start": ' + "[" * 100_000 + "]" * 100_000 + "}", match="nests deeper")
    _refused(read_iperf3, '{"intervals": ' + "[" * 100_000, name="deep.json", match="nests deeper")
    with pytest.raises(MeasurementFormatError, match="x.json, line 2"):
        check_json_depth('{"a": "[[[[[[",\n' + "[" * 101, "x.json")
    check_json_depth('{"a": "' + "[" * 500 + '"}', "x.json")  # brackets in strings do not count


@pytest.mark.parametrize("value", ["1" * 400, "1e999", "-1e999", "Infinity", "NaN"])
def test_json_huge_and_non_finite_numbers(value):
    text = re.sub(r'"bytes":\s*\d+', f'"bytes": {value}', CLIENT_JSON, count=3)
    _refused(read_iperf3, text, match=r"bytes is a number .*expected a finite number")


def test_json_integer_beyond_python_limit():
    text = re.sub(r'"bytes":\s*\d+', '"bytes": ' + "9" * 5000, CLIENT_JSON, count=1)
    _refused(read_iperf3, text, match="invalid JSON")


def test_json_stream_non_object_lines():
    lines = (DATA / "iperf3_stream.jsonl").read_text().split("\n")
    lines.insert(1, "[1, 2]")
    lines.insert(2, "3")
    with pytest.warns(MalformedLinesWarning):
        df = read_iperf3(_bio("\n".join(lines), "s.jsonl"))
    assert df.attrs["malformed"]["lines"][:2] == [2, 3]


@pytest.mark.parametrize("value", ["1" * 400, "1e999"])
def test_text_huge_numbers_are_malformed_lines(value):
    lines = (DATA / "iperf3_P2.txt").read_text().split("\n")
    # line 5: a stream's first interval; its Retr count becomes huge
    lines[4] = lines[4].replace("Mbits/sec    0 ", f"Mbits/sec    {value} ")
    lines[5] = lines[5].replace("2.50 MBytes", "1" * 400 + " MBytes")
    with pytest.warns(MalformedLinesWarning):
        df = read_iperf3(_bio("\n".join(lines), "huge.txt"))
    assert len(df) == 9 - 2
    assert np.isfinite(df[["bytes", "rate_bps", "retransmits"]].to_numpy(float)).all()
    assert df["retransmits"].dtype == np.int64
    assert df.attrs["malformed"] == {"count": 2, "lines": [5, 6]}


@pytest.mark.parametrize("value", ["inf", "nan", "1e999", "1" * 400])
def test_iperf2_csv_non_finite(value):
    lines = (DATA / "iperf2_udp.csv").read_text().strip().split("\n")
    fields = lines[0].split(",")
    fields[7] = value  # bytes
    lines[0] = ",".join(fields)
    with pytest.warns(MalformedLinesWarning):
        df = read_iperf(_bio("\n".join(lines), "u.csv"))
    assert df.attrs["malformed"]["lines"] == [1]
    assert np.isfinite(df["bytes"]).all()


def test_iperf2_text_huge_number():
    lines = (DATA / "iperf2_parallel.txt").read_text().split("\n")
    k = next(i for i, ln in enumerate(lines) if "Bytes" in ln and "bits/sec" in ln)
    lines[k] = re.sub(r"(\d+(?:\.\d+)?) (\w?)Bytes", "1" * 400 + r" \2Bytes", lines[k], count=1)
    with pytest.warns(MalformedLinesWarning):
        df = read_iperf(_bio("\n".join(lines), "p.txt"))
    assert df.attrs["malformed"]["lines"] == [k + 1]
    assert np.isfinite(df["bytes"]).all()


def test_truncated_lines_and_nul_bytes():
    text = (DATA / "iperf3_P5.txt").read_text()
    lines = text.split("\n")
    lines[7] = lines[7][:30]  # line 8, "[  5]   0.00-1.00   sec  1.25 ", cut mid-line
    lines[8] = lines[8][:12] + "\x00" + lines[8][12:]  # line 9, a NUL inside the interval
    df = quiet(read_iperf3, _bio("\n".join(lines), "cut.txt"))
    assert len(df) == 12 - 2
    assert {8, 9} <= set(df.attrs["malformed"]["lines"])
    # NUL bytes only: refused, naming the file
    _refused(read_iperf3, b"\x00" * 64, name="nul.txt")
    _refused(read_iperf, b"\x00" * 64, name="nul.txt")


# --------------------------------------------------------------------------------------
# (c) property: any mutation gives a frame or a MeasurementFormatError naming the source

IPERF3_FILES = sorted(p.name for p in DATA.glob("iperf3_*")) + ["REC:" + p.name for p in RECORDED.glob("iperf3*")]
IPERF2_FILES = sorted(p.name for p in DATA.glob("iperf2_*")) + ["REC:" + p.name for p in RECORDED.glob("iperf2*")]
_CACHE: dict[str, bytes] = {}


def _load(name: str) -> bytes:
    if name not in _CACHE:
        path = RECORDED / name[4:] if name.startswith("REC:") else DATA / name
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            import gzip

            data = gzip.decompress(data)
        _CACHE[name] = data[:60_000]  # the long files are cut: the property holds for any prefix
    return _CACHE[name]


_HOSTILE = [
    b"1" * 400, b"1e999", b"-1e999", b"inf", b"nan", b"NaN", b"Infinity", b"-0", b"null", b"[]", b"{}",
    b'"x"', b"true", b"[1]", b"\x00", b"\x00" * 40, b"x" * 70_000, b"[" * 3000, b"{" * 200,
    b"- - - - - - - - - - - - - - - - - - - - - - - - -", b"[ ID] Interval           Transfer     Bitrate",
    b"Server output:", b"\xff\xfe", b"9" * 5000,
]


@st.composite
def _mutated(draw, files):
    name = draw(st.sampled_from(files))
    data = _load(name)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "truncate", "dup", "delete", "swap", "insert", "number", "jsontype"]))
        n = len(data)
        if n == 0:
            break
        pos = draw(st.integers(0, n - 1))
        if kind == "flip":
            data = data[:pos] + bytes([data[pos] ^ (1 << draw(st.integers(0, 7)))]) + data[pos + 1:]
        elif kind == "truncate":
            data = data[:pos]
        elif kind in ("dup", "delete", "swap"):
            lines = data.split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            if kind == "dup":
                lines.insert(i, lines[i])
            elif kind == "delete":
                del lines[i]
            else:
                k = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[k] = lines[k], lines[i]
            data = b"\n".join(lines)
        elif kind == "insert":
            data = data[:pos] + draw(st.sampled_from(_HOSTILE)) + data[pos:]
        elif kind == "number":
            # replace one number of the file by a huge or non-finite one
            numbers = list(re.finditer(rb"\d+(?:\.\d+)?", data))
            if numbers:
                m = numbers[draw(st.integers(0, len(numbers) - 1))]
                new = draw(st.sampled_from([b"1" * 400, b"1e999", b"inf", b"nan", b"Infinity", b"NaN", b"-1"]))
                data = data[: m.start()] + new + data[m.end():]
        else:
            # a JSON value of the wrong type after a key
            keys = list(re.finditer(rb'"\w+":\s*', data))
            if keys:
                m = keys[draw(st.integers(0, len(keys) - 1))]
                new = draw(st.sampled_from([b"[]", b"{}", b'"x"', b"null", b"true", b"[1]", b"3", b"[[[[1]]]]"]))
                rest = re.match(rb'(?:"(?:[^"\\]|\\.)*"|[-\w.+]+)', data[m.end():])
                cut = m.end() + (rest.end() if rest else 0)
                data = data[: m.end()] + new + data[cut:]
    return name, data


def _property(func, case):
    name, data = case
    src = f"fuzz-{name.replace(':', '_')}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            df = func(_bio(data, src))
        except MeasurementFormatError as exc:
            assert src in str(exc)
            return
    assert isinstance(df, pd.DataFrame)
    for col in ("retransmits", "packets", "lost_packets"):
        if col in df:
            assert not np.isinf(df[col].to_numpy(float)).any()
    assert np.isfinite(df[["start_s", "end_s"]].to_numpy(float)).all()


_FUZZ = settings(
    derandomize=True, deadline=None, max_examples=1000, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_FUZZ
@given(_mutated(IPERF3_FILES))
def test_fuzz_read_iperf3(case):
    _property(read_iperf3, case)


@_FUZZ
@given(_mutated(IPERF2_FILES))
def test_fuzz_read_iperf(case):
    _property(read_iperf, case)


# ---------------------------------------------------------------------------------------
# iperf 2 text: the fast path (runs of plain interval lines, a block at a time) gives the
# frame, attrs and warnings of the line-by-line parser, odd lines mixed in

_IPERF2_TXT = sorted(p.name for p in DATA.glob("iperf2_*.txt") if "ooo" not in p.name)
_IPERF2_ODD = [
    "[  3]  0.0- 1.0 sec  1.12 MBytes  9.44 Mbits/sec\n",
    "[  3]  1.0- 2.0 sec  1.25 MBytes  10.5 Mbits/sec\n",
    "[  3]  0.0- 2.0 sec  2.38 MBytes  9.97 Mbits/sec\n",
    "[SUM]  0.0- 2.0 sec  4.75 MBytes  19.9 Mbits/sec\n",
    "[  4] 2.00-3.00 sec   950 KBytes  7.78 Mbits/sec\r\n",
    "[  3] local 10.0.0.1 port 40000 connected with 10.0.0.2 port 5001\n",
    "[  4] local 10.0.0.1 port 40002 connected with 10.0.0.2 port 5001\n",
    "[  3] Server Report:\n",
    "[  3]  0.0- 1.0 sec  1e999 MBytes  9.44 Mbits/sec\n",
    "[  3]  0.0- 1.0 sec  1.12 MBytes  9.44 Mbits/sec  18/0  0  260K/166295(24066) us  14.19\n",
    "[ *3]  3.0- 4.0 sec  1.12 MBytes  9.44 Mbits/sec\n",
    "[  3]  0.0- 1.0 sec  1.12 MBytes\n",
    "Client connecting to 10.0.0.2, TCP port 5001\n",
    "\n",
    "   \n",
    "not iperf\n",
]


@pytest.mark.parametrize("seed", range(4))
def test_iperf2_fast_path_equals_line_by_line(monkeypatch, seed):
    from labcalc.measure import iperf2

    rng = np.random.default_rng(seed)
    files = [(DATA / name).read_text() for name in _IPERF2_TXT]
    pieces = files + _IPERF2_ODD * 6
    text = "".join(pieces[k] for k in rng.integers(0, len(pieces), 200))

    def read():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            return read_iperf(text), [str(x.message) for x in w]

    monkeypatch.setattr(iperf2, "_FAST_ENABLED", False)
    slow, w_slow = read()
    monkeypatch.setattr(iperf2, "_FAST_ENABLED", True)
    monkeypatch.setattr(iperf2, "_BLOCK_CHARS", int(rng.integers(40, 4000)))  # many blocks, cut anywhere
    fast, w_fast = read()
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.attrs == slow.attrs
    assert w_fast == w_slow
    assert len(slow) > 50 and slow.attrs["summary"] and slow.attrs["malformed"]["count"] > 0
    # the fast path did read lines (it leaves files with out-of-order counts to the other parser)
    assert "out-of-order" not in text and sum(bool(t[0]) for t in iperf2._FAST2.findall(text)) > 50


@pytest.mark.parametrize("name", _IPERF2_TXT)
def test_iperf2_fast_path_equals_line_by_line_on_each_file(monkeypatch, name):
    from labcalc.measure import iperf2

    text = (DATA / name).read_text()
    monkeypatch.setattr(iperf2, "_FAST_ENABLED", False)
    slow = quiet(read_iperf, text)
    monkeypatch.setattr(iperf2, "_FAST_ENABLED", True)
    fast = quiet(read_iperf, text)
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.attrs == slow.attrs


def test_iperf2_fast_path_values():
    """Plain interval lines of a client: values, connection, and the whole-test line in the summary."""
    text = ("[  3] local 10.0.0.1 port 40000 connected with 10.0.0.2 port 5001\n"
            + "".join(f"[  3] {i:4.1f}-{i + 1:4.1f} sec  1.12 MBytes  9.44 Mbits/sec\n" for i in range(5))
            + "[  3]  0.0- 5.0 sec  5.62 MBytes  9.43 Mbits/sec\n")
    df = read_iperf(text)
    assert df["start_s"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and df["end_s"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert df["bytes"].tolist() == [1.12 * 1024**2] * 5
    assert df["rate_bps"].tolist() == [9.44e6] * 5
    assert df["src"].unique().tolist() == ["10.0.0.1:40000"] and df["connection"].tolist() == [1] * 5
    (total,) = df.attrs["summary"]
    assert total == {"stream": "3", "start_s": 0.0, "end_s": 5.0, "bytes": 5.62 * 1024**2, "rate_bps": 9.43e6,
                     "time_s": 5.0, "connection": 1, "src": "10.0.0.1:40000", "dst": "10.0.0.2:5001", "printed_by": "sender",
                     "role": "summary"}


@pytest.mark.parametrize("seed", range(2))
def test_iperf2_fast_path_equals_line_by_line_on_mutated_lines(monkeypatch, seed):
    from labcalc.measure import iperf2

    rng = np.random.default_rng(200 + seed)
    tokens = ("[SUM]", "0.0-1.0", "sec", "KBytes", "Mbits/sec", "1e999", "[  3]", "-", "ms")
    for _ in range(150):
        text = mutate_tokens(rng, "".join(_IPERF2_ODD[k] for k in rng.integers(0, len(_IPERF2_ODD), 20)),
                             "0123456789.-\n\t []SUMK", tokens)
        assert_fast_path_equals_slow(monkeypatch, iperf2, read_iperf, MeasurementFormatError, text,
                                     int(rng.integers(20, 400)))


# --- shapes recorded by the issue 10/11 review (tests/data/measure/README), checked against an
# independent parse: every interval line (a stamp prefix allowed), the (omitted) ones included,
# and the end-of-test lines, for the client's part and the server's part separately.

_REVIEW_LINE = re.compile(r"^(?:\S+\s+)?\[\s*(?:\d+|SUM)\]\s+(\d+\.\d+)-(\d+\.\d+)\s+sec\s+\S+ \w?Bytes\s+"
                          r"([\d.]+) ([KMG]?)bits/sec(.*)$")


def _review_parse(text):
    intervals, ends = [], []
    for line in text.splitlines():
        g = _REVIEW_LINE.match(line)
        if g:
            rate = float(g[3]) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[g[4]]
            (ends if re.search(r"(sender|receiver)\s*$", g[5]) else intervals).append(rate)
    return intervals, ends


@pytest.mark.parametrize("name", ["iperf3_R_P3_get_server_output.txt", "iperf3_udp_P3_get_server_output.txt",
                                  "iperf3_P3_timestamps_epoch.txt", "iperf3_P3_O1.txt"])
def test_review_recordings_read_every_interval(name):
    text = (DATA / name).read_text()
    client, _, server = text.partition("Server output:")
    intervals, ends = _review_parse(client)
    df = m.read(DATA / name)
    assert len(df) == len(intervals) and df.rate_bps.sum() == pytest.approx(sum(intervals), rel=1e-12)
    assert len(df.attrs["summary"]) == len(ends)
    assert df.attrs["tests"] == 1 and "notes" not in df.attrs
    if server:
        s_intervals, s_ends = _review_parse(server)
        so = df.attrs["server_output"]
        assert len(so["intervals"]) == len(s_intervals) and len(so["summary"]) == len(s_ends)


def test_a_server_log_of_two_tests_is_counted_and_not_mixed_by_a_manifest(tmp_path):
    """One daemon's log over a 10 and a 30 Mbit/s run: a manifest used to sum them (39.87 Mbit/s)."""
    from labcalc.measure.manifest import ManifestError, build_manifest

    df = m.read(DATA / "iperf3_server_two_tests.txt")
    assert df.attrs["tests"] == 2 and "2 iperf3 tests in one file" in df.attrs["notes"][0]
    shutil.copy(DATA / "iperf3_server_two_tests.txt", tmp_path / "server.log")
    (tmp_path / "m.toml").write_text('[[measurement]]\nquestion="Q"\nscenario="s"\nflow="f"\n'
                                     'metric="goodput"\nfile="server.log"\n')
    with pytest.raises(ManifestError, match=r"#1.*'file' = 'server.log'.*holds 2 iperf3 tests"):
        build_manifest(tmp_path / "m.toml")
