"""iperf3 ``--json --get-server-output``: the server's report in the client's JSON (issue 10/11 review).

Files recorded on loopback (tests/data/measure/README says how): TCP and UDP against a
server with ``-J`` (the client's JSON carries ``server_output_json``). The reader's
``attrs["server_output"]`` is compared with numbers taken from the file independently
(``json`` and sums) and with literals read off the files by eye.
Damaged server blocks must end in a MeasurementFormatError naming the file and the field.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import labcalc.measure as m
from labcalc.measure import MeasurementFormatError
from labcalc.measure.iperf3 import read_iperf3

DATA = Path(__file__).resolve().parent / "data" / "measure"
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


def test_server_error():
    so = _read(_with("server_output_json", {"error": "unable to receive"})).attrs["server_output"]
    assert so == {"intervals": [], "summary": [], "tool_error": "unable to receive"}


def test_json_stream_server_output_event():
    doc = _doc("iperf3_get_server_output_udp_server_json.json")
    events = [{"event": "start", "data": doc["start"]}]
    events += [{"event": "interval", "data": i} for i in doc["intervals"]]
    events += [{"event": "server_output_json", "data": doc["server_output_json"]},
               {"event": "end", "data": doc["end"]}]
    df = _read("\n".join(json.dumps(e) for e in events) + "\n", "case.jsonl")
    assert df.attrs["server_output"] == m.read(DATA / "iperf3_get_server_output_udp_server_json.json"
                                               ).attrs["server_output"]
