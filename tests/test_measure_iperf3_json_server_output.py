"""iperf3 ``--json --get-server-output``: the server's report in the client's JSON (issue 10/11 review).

Four files recorded on loopback (tests/data/measure/README says how): TCP and UDP against a
server without ``-J`` (the client's JSON carries ``server_output_text``) and with ``-J``
(``server_output_json``). The reader's ``attrs["server_output"]`` is compared with numbers
taken from the file independently: ``json`` and sums for the server's JSON, a regular
expression of this file for the server's text, and literals read off the files by eye.
Damaged server blocks must end in a MeasurementFormatError naming the file and the field.
"""

from __future__ import annotations

import io
import json
import re
import warnings
from pathlib import Path

import pytest

import labcalc.measure as m
from labcalc.measure import MalformedLinesWarning, MeasurementFormatError
from labcalc.measure.iperf3 import read_iperf3

DATA = Path(__file__).resolve().parent / "data" / "measure"
TEXT_SERVER = ["iperf3_get_server_output_tcp.json", "iperf3_get_server_output_udp.json"]
JSON_SERVER = ["iperf3_get_server_output_tcp_server_json.json", "iperf3_get_server_output_udp_server_json.json"]


def _doc(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def _read(data, name="case.json"):
    b = io.BytesIO(data.encode() if isinstance(data, str) else data)
    b.name = name
    return read_iperf3(b)


# --------------------------------------------------------------------------------------
# server_output_json: the server's intervals in the client's columns


@pytest.mark.parametrize("name", JSON_SERVER)
def test_server_output_json_matches_the_file(name):
    doc = _doc(name)
    server = doc["server_output_json"]
    df = m.read(DATA / name)
    so = df.attrs["server_output"]
    streams = [st for i in server["intervals"] for st in i["streams"]]  # one stream: no SUM rows
    assert len(so["intervals"]) == len(streams) == len(server["intervals"])
    assert [r["bytes"] for r in so["intervals"]] == [float(st["bytes"]) for st in streams]
    assert sum(r["bytes"] for r in so["intervals"]) == sum(st["bytes"] for st in streams)
    assert [r["rate_bps"] for r in so["intervals"]] == [st["bits_per_second"] for st in streams]
    assert [(r["start_s"], r["end_s"]) for r in so["intervals"]] == [(st["start"], st["end"]) for st in streams]
    # the server received: data from the client's port to the server's
    conn = server["start"]["connected"][0]
    assert {(r["src"], r["dst"]) for r in so["intervals"]} == {
        (f"{conn['remote_host']}:{conn['remote_port']}", f"{conn['local_host']}:{conn['local_port']}")}
    end = server["end"]
    roles = [role for st in end["streams"] for role in ("sender", "receiver", "udp") if role in st]
    sums = [k for k in ("sum_sent", "sum_received", "sum") if k in end]
    assert [s["role"] for s in so["summary"]] == roles + sums
    received = next(s for s in so["summary"] if s["role"] == "sum_received")
    assert received["bytes"] == end["sum_received"]["bytes"]
    # the client's own frame is untouched: its intervals only, not the server's
    assert len(df) == sum(len(i["streams"]) for i in doc["intervals"])
    assert df["bytes"].sum() == sum(st["bytes"] for i in doc["intervals"] for st in i["streams"])
    assert df.attrs["side"] == "client"


def test_server_output_json_udp_pinned():
    so = m.read(DATA / "iperf3_get_server_output_udp_server_json.json").attrs["server_output"]
    assert [r["packets"] for r in so["intervals"]] == [20, 19]
    assert [r["lost_packets"] for r in so["intervals"]] == [0, 0]
    assert so["intervals"][0]["bytes"] == 655360 and so["intervals"][0]["jitter_s"] == pytest.approx(3.868122e-6)
    received = next(s for s in so["summary"] if s["role"] == "sum_received")
    assert received["bytes"] == 1277952 and received["packets"] == 39
    assert received["rate_bps"] == pytest.approx(5.111e6, rel=1e-3)


def test_server_output_json_tcp_pinned():
    so = m.read(DATA / "iperf3_get_server_output_tcp_server_json.json").attrs["server_output"]
    assert [r["bytes"] for r in so["intervals"]] == [1457782784, 1551630336, 262144]
    assert so["intervals"][2]["end_s"] == 2.00118
    received = next(s for s in so["summary"] if s["role"] == "sum_received")
    assert received["bytes"] == 3009675264


# --------------------------------------------------------------------------------------
# server_output_text: the server's printout read by the text reader

_LINE = re.compile(r"^\[\s*(\d+)\]\s+([\d.]+)-([\d.]+)\s+sec\s+([\d.]+) ([KMG]?)Bytes\s+([\d.]+) ([KMG]?)bits/sec(.*)$")
_BIN = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
_DEC = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


def _text_parse(text: str):
    """(intervals, ends) of a server printout: (bytes, rate, tail) per report line."""
    intervals, ends = [], []
    for line in text.splitlines():
        g = _LINE.match(line.strip())
        if g:
            row = (float(g[4]) * _BIN[g[5]], float(g[6]) * _DEC[g[7]], g[8])
            (ends if g[8].strip().endswith(("sender", "receiver")) else intervals).append(row)
    return intervals, ends


@pytest.mark.parametrize("name", TEXT_SERVER)
def test_server_output_text_matches_the_file(name):
    doc = _doc(name)
    intervals, ends = _text_parse(doc["server_output_text"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clean recording: no malformed line
        df = m.read(DATA / name)
    so = df.attrs["server_output"]
    assert len(so["intervals"]) == len(intervals) and len(so["summary"]) == len(ends)
    assert [r["bytes"] for r in so["intervals"]] == pytest.approx([b for b, _, _ in intervals], rel=1e-12)
    assert [r["rate_bps"] for r in so["intervals"]] == pytest.approx([r for _, r, _ in intervals], rel=1e-12)
    assert so["summary"][0]["role"] == "receiver"
    assert so["summary"][0]["rate_bps"] == pytest.approx(ends[0][1], rel=1e-12)
    assert len(df) == sum(len(i["streams"]) for i in doc["intervals"])
    assert df.attrs["malformed"]["count"] == 0


def test_server_output_text_udp_pinned():
    so = m.read(DATA / "iperf3_get_server_output_udp.json").attrs["server_output"]
    assert [r["packets"] for r in so["intervals"]] == [20, 19]
    assert [r["jitter_s"] for r in so["intervals"]] == pytest.approx([0.008e-3, 0.237e-3])
    assert [r["rate_bps"] for r in so["intervals"]] == [5.24e6, 4.98e6]
    assert so["summary"][0]["packets"] == 39 and so["summary"][0]["rate_bps"] == 5.11e6
    assert {(r["src"], r["dst"]) for r in so["intervals"]} == {("127.0.0.1:38588", "127.0.0.1:5299")}


def test_server_output_text_tcp_pinned():
    so = m.read(DATA / "iperf3_get_server_output_tcp.json").attrs["server_output"]
    assert [r["rate_bps"] for r in so["intervals"]] == [10.8e9, 8.43e9, 527e6]
    assert so["summary"][0]["bytes"] == 2.25 * 1024 ** 3


def test_server_output_has_the_text_readers_shape():
    """The same kind of run through the text reader and the JSON reader: the same keys."""
    text_so = m.read(DATA / "iperf3_udp_P3_get_server_output.txt").attrs["server_output"]
    json_so = m.read(DATA / "iperf3_get_server_output_udp.json").attrs["server_output"]
    assert set(json_so) == set(text_so) == {"intervals", "summary"}
    assert set(json_so["intervals"][0]) == set(text_so["intervals"][0])
    from_json = m.read(DATA / "iperf3_get_server_output_udp_server_json.json").attrs["server_output"]
    assert set(from_json) == {"intervals", "summary"}
    core = {"stream", "start_s", "end_s", "time_s", "bytes", "rate_bps", "packets", "lost_packets", "loss",
            "jitter_s", "src", "dst", "omitted"}
    assert core <= set(from_json["intervals"][0]) and core <= set(json_so["intervals"][0])


def test_server_text_damaged_line_is_reported_at_its_line_of_the_file():
    name = "iperf3_get_server_output_udp.json"
    raw = (DATA / name).read_text()
    damaged = raw.replace("0.00-1.00   sec   640 KBytes", "0.00-1.00   sec   6\\u000040 KBytes")
    assert damaged != raw
    line = 1 + raw[:raw.index('"server_output_text"')].count("\n")
    with pytest.warns(MalformedLinesWarning, match=rf"case.json: skipped 1 malformed line.*line {line}\)"):
        df = _read(damaged)
    assert len(df.attrs["server_output"]["intervals"]) == 1


# --------------------------------------------------------------------------------------
# damaged server blocks: the reader's documented error, naming file and field


def _with(server_key: str, value) -> str:
    doc = _doc("iperf3_get_server_output_tcp.json")
    del doc["server_output_text"]
    doc[server_key] = value
    return json.dumps(doc, indent=2)


@pytest.mark.parametrize("key, value, field", [
    ("server_output_json", 2, r"field server_output_json is a number \(2\), expected an object"),
    ("server_output_json", [], r"field server_output_json is an array \(\[\]\), expected an object"),
    ("server_output_json", {"intervals": 3}, r"field server_output_json\.intervals is a number"),
    ("server_output_json", {"start": "x"}, r"field server_output_json\.start is a string"),
    ("server_output_json", {"intervals": [1]}, r"field server_output_json\.intervals\[0\] is a number"),
    ("server_output_json", {"intervals": [{"streams": [{"start": 0, "end": 1, "bytes": "9",
                                                        "bits_per_second": 1}]}]},
     r"field server_output_json\.intervals\[0\]\.streams\[0\]\.bytes is a string \('9'\), expected a number"),
    ("server_output_json", {"intervals": [{"streams": [{"start": 0, "end": 1, "bits_per_second": 1}]}]},
     r"field server_output_json\.intervals\[0\]\.streams\[0\]\.bytes is missing"),
    ("server_output_json", {"end": {"sum_received": {"start": 0, "end": 1, "bytes": 1e999, "bits_per_second": 1}}},
     r"field server_output_json\.end\.sum_received\.bytes is a number \(inf\), expected a finite number"),
    ("server_output_text", 5, r"field server_output_text is a number \(5\), expected a string"),
    ("server_output_text", ["a"], r"field server_output_text is an array"),
])
def test_bad_server_blocks_are_format_errors_naming_the_field(key, value, field):
    with pytest.raises(MeasurementFormatError, match=r"case\.json.*" + field):
        _read(_with(key, value))


def test_deep_nesting_inside_server_output_is_the_depth_error():
    text = _with("server_output_json", {"x": 0}).replace('{\n    "x": 0\n  }', "[" * 100_000 + "]" * 100_000)
    with pytest.raises(MeasurementFormatError, match=r"case\.json.*nest"):
        _read(text)


def test_server_output_inside_server_output_is_not_followed():
    inner = _doc("iperf3_get_server_output_tcp_server_json.json")["server_output_json"]
    nested = dict(inner, server_output_json=dict(inner, server_output_json=inner))
    so = _read(_with("server_output_json", nested)).attrs["server_output"]
    assert len(so["intervals"]) == len(inner["intervals"])


def test_server_error_and_empty_text():
    so = _read(_with("server_output_json", {"error": "unable to receive"})).attrs["server_output"]
    assert so == {"intervals": [], "summary": [], "tool_error": "unable to receive"}
    so = _read(_with("server_output_text", "")).attrs["server_output"]
    assert so == {"intervals": [], "summary": []}
    so = _read(_with("server_output_text", "iperf3: error - the client has terminated\n")).attrs["server_output"]
    assert so["tool_error"] == "iperf3: error - the client has terminated"


def test_json_stream_server_output_event():
    doc = _doc("iperf3_get_server_output_udp_server_json.json")
    events = [{"event": "start", "data": doc["start"]}]
    events += [{"event": "interval", "data": i} for i in doc["intervals"]]
    events += [{"event": "server_output_json", "data": doc["server_output_json"]},
               {"event": "end", "data": doc["end"]}]
    df = _read("\n".join(json.dumps(e) for e in events) + "\n", "case.jsonl")
    assert df.attrs["server_output"] == m.read(DATA / "iperf3_get_server_output_udp_server_json.json"
                                               ).attrs["server_output"]
