"""Wireshark's CSV export (real files of several origins) and tshark ``-T fields`` exports with
text and hexadecimal columns (issue 20, items 1 and 3). Expected values come from the files
through the csv module and this module's regular expressions, not from the readers."""

import csv
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labcalc.measure import (
    MalformedLinesWarning, MeasurementFormatError, build_manifest, read, read_tshark, read_wireshark_csv,
    receive_rate, sniff_format, steady_state,
)

DATA = Path(__file__).parent / "data" / "measure"
WIRESHARK = sorted(p.name for p in DATA.glob("wireshark_*.csv"))
_PORTS = re.compile(r"^(?:\[[^\]]*\]\s*)*(\d+)\s+>\s+(\d+)\b")
_LEN = re.compile(r"\bLen=(\d+)")


def _rows(name):
    """The packet rows of a CSV export as dicts (the csv module; rows without a packet number dropped)."""
    text = (DATA / name).read_text(encoding="utf-8").lstrip("#")
    rows = list(csv.DictReader(io.StringIO(text)))
    return [r for r in rows if (r.get("No.") or "").strip()]


@pytest.mark.parametrize("name", WIRESHARK)
def test_wireshark_exports_read_as_their_rows_say(name):
    rows = _rows(name)
    text = (DATA / name).read_text(encoding="utf-8")
    assert sniff_format(text) == "wireshark_csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        df = read(DATA / name)
    assert df.attrs["format"] == "wireshark_csv"
    assert len(df) == len(rows)
    assert df["frame"].tolist() == [int(r["No."]) for r in rows]
    assert df["frame_bytes"].tolist() == [int(r["Length"]) for r in rows]
    assert df["protocol"].astype(str).tolist() == [r["Protocol"] for r in rows]
    assert df["info"].astype(str).tolist() == [r["Info"] for r in rows]  # as Wireshark wrote it
    times = [r["Time"] for r in rows]
    if all(re.fullmatch(r"\d+(\.\d+)?", t) for t in times):
        assert df["time_s"].tolist() == [float(t) for t in times]
    else:  # a date and time of day: seconds since the first packet
        stamps = pd.to_datetime(pd.Series(times))
        assert df["time_s"].tolist() == pytest.approx(((stamps - stamps[0]).dt.total_seconds()).tolist(), abs=1e-9)
        assert df.attrs["time_origin"].endswith(times[0])
    for r, src, dst, nbytes in zip(rows, df["src"].astype(str), df["dst"].astype(str),
                                   df["bytes"] if "bytes" in df else [np.nan] * len(rows)):
        ports = _PORTS.match(r["Info"])
        a, b = r["Source"], r["Destination"]
        if ports:
            wrap = (lambda x: f"[{x}]" if ":" in x else x)
            assert (src, dst) == (f"{wrap(a)}:{ports[1]}", f"{wrap(b)}:{ports[2]}")
        else:
            assert (src, dst) == (a, b)
        length = _LEN.search(r["Info"])
        if ports and length:
            assert nbytes == int(length[1])
        else:
            assert np.isnan(nbytes)


def test_wireshark_tcp_analysis_flags_from_info():
    df = read_wireshark_csv(DATA / "wireshark_tcp_analysis.csv")
    rows = _rows("wireshark_tcp_analysis.csv")
    for col, tag in (("retransmission", "[TCP Retransmission]"), ("duplicate_ack", "[TCP Dup ACK"),
                     ("lost_segment", "[TCP Previous segment not captured]")):
        assert df[col].tolist() == [tag in r["Info"] for r in rows]
        assert df[col].any()
    seq = [re.search(r"\bSeq=(\d+)", r["Info"]) for r in rows]
    np.testing.assert_array_equal(df["seq"].to_numpy(float), [float(m[1]) if m else np.nan for m in seq])
    flags = [re.search(r"\d\s+>\s+\d+\s+\[([A-Z, ]+)\]", r["Info"]) for r in rows]
    assert df["syn"].tolist() == [bool(m) and "SYN" in m[1].split(", ") for m in flags]
    assert df["ack_flag"].tolist() == [bool(m) and "ACK" in m[1].split(", ") for m in flags]
    # the columns the spreadsheet added are numbers
    assert df["delay"].dtype == float and df["delay"].notna().all()


def test_wireshark_spreadsheet_totals_are_skipped_and_reported():
    with pytest.warns(MalformedLinesWarning, match="skipped 4 malformed"):
        df = read_wireshark_csv(DATA / "wireshark_spreadsheet.csv")
    assert df.attrs["malformed"]["lines"] == [22, 23, 24, 25]
    assert df["frame"].dtype == np.int64 and df["frame_bytes"].dtype == np.int64
    assert not any(c.startswith("column_") for c in df.columns)  # the empty, untitled columns are gone
    assert {"time_1", "time_2", "delay_1", "delay_2", "jitter"} <= set(df.columns)


def test_wireshark_rows_without_a_length_are_refused_by_receive_rate():
    df = read_wireshark_csv(DATA / "wireshark_date_time.csv")
    assert df.attrs["bytes_partial"]
    with pytest.raises(ValueError, match=r"row\(s\) have no 'bytes'.*df.assign\(bytes=df\['frame_bytes'\]\)"):
        receive_rate(df, 0.05)
    rate = receive_rate(df.assign(bytes=df["frame_bytes"]), 0.05)
    assert rate["bytes"].sum() > 0


def test_wireshark_user_columns_keep_their_titles_and_types():
    df = read_wireshark_csv(DATA / "wireshark_extra_column.csv")
    assert df["packet_number"].tolist() == df["frame"].tolist()
    text = ('"No.","Time","Source","Destination","Protocol","Length","Info","Sequence Number","Bytes in flight",'
            '"The RTT to ACK the segment was","Source Port","Destination Port"\n'
            '"1","0.000000","10.0.0.1","10.0.0.2","TLSv1.3","1514","Application Data","1","1448",,"45000","443"\n'
            '"2","0.020000","10.0.0.2","10.0.0.1","TCP","66","443 → 45000 [ACK] Seq=1 Ack=1449 Win=501 Len=0",'
            '"1","","0.020000","443","45000"\n')
    t = read_wireshark_csv(text)
    assert t["seq"].tolist() == [1, 1] and t["bytes_in_flight"].tolist()[0] == 1448
    assert t["rtt_s"].tolist()[1] == 0.02 and t["src"].astype(str).tolist() == ["10.0.0.1:45000", "10.0.0.2:443"]
    assert t["ack"].tolist()[1] == 1449  # read from Info (the arrow of Wireshark 3+ too)


def test_wireshark_bad_input_names_the_file():
    with pytest.raises(MeasurementFormatError, match=r"<text>, line 1: not wireshark_csv output"):
        read_wireshark_csv("No,Time\n1,2\n")
    text = '"No.","Time","Source","Destination","Protocol","Length","Info"\n"1","0.1","a","b","TCP","x60","y"\n'
    df = read_wireshark_csv(text)
    assert df.attrs["not_numeric"]["frame_bytes"]["value"] == "x60"
    with pytest.raises(MeasurementFormatError, match=r"column 'frame_bytes' \(the tool's field 'Length'\) holds 'x60'"):
        steady_state(df["frame_bytes"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([
    '"1","0.000000","10.0.0.1","10.0.0.2","TCP","66","45000  >  5201 [ACK] Seq=1 Ack=1 Win=502 Len=0"',
    '"2","0.1","fe80::1","ff02::1","ICMPv6","86","Neighbor Solicitation"',
    '3,0.2,10.0.0.1,10.0.0.2,UDP,60,5000  >  53 Len=18', '"4","x","a","b","c","d","e"', '"5","0.3"',
    ',,,,,,', '"6","0.4","10.0.0.1","10.0.0.2","TCP","1514","[TCP Retransmission] 1 > 2 [PSH, ACK] Len=1448"',
    '"7","1e999","a","b","TCP","1e999","' + "[x] " * 200 + '"', "", '"8","0.5",' + '"[1]"' * 300,
]), min_size=1, max_size=30), st.sampled_from([",", ";", "\t"]))
def test_wireshark_any_mix_gives_a_frame_or_a_clear_error(rows, sep):
    head = '"No.","Time","Source","Destination","Protocol","Length","Info"'
    text = "\n".join([head] + rows).replace('","', f'"{sep}"') + "\n"
    if sep != ",":
        text = text.replace(",", sep)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = read_wireshark_csv(text)
    except MeasurementFormatError as exc:
        assert "<text>" in str(exc)
        return
    assert len(df) <= len(rows)


# --------------------------------------------------------------------------------------
# tshark -T fields: text and hexadecimal columns (the regression of issue 20, item 1)


def test_tshark_text_hex_and_address_columns_read_again():
    rows = list(csv.DictReader((DATA / "tshark_mqtt_text.csv").open(encoding="utf-8")))
    df = read_tshark(DATA / "tshark_mqtt_text.csv")
    assert df["_ws_col_Protocol"].dtype == "category"
    assert df["_ws_col_Protocol"].astype(str).tolist() == [r["_ws.col.Protocol"] for r in rows]
    assert "MQTT" in set(df["_ws_col_Protocol"])
    assert df["tcp_flags"].tolist() == [int(r["tcp.flags"], 16) for r in rows]  # "0x0018" -> 24
    assert df["mqtt_msgtype"].tolist() == pytest.approx(
        [float(r["mqtt.msgtype"]) if r["mqtt.msgtype"] else np.nan for r in rows], nan_ok=True)
    assert df["mqtt_topic"].dropna().astype(str).tolist() == [r["mqtt.topic"] for r in rows if r["mqtt.topic"]]
    assert df["_ws_col_Info"].astype(str).tolist() == [r["_ws.col.Info"] for r in rows]
    assert df["bytes"].tolist() == [int(r["tcp.len"]) for r in rows]
    assert df["src"].astype(str).tolist() == [f'{r["ip.src"]}:{r["tcp.srcport"]}' for r in rows]
    assert "not_numeric" not in df.attrs
    # what an analysis needs is numbers: the receive rate of the MQTT packets
    rate = receive_rate(df, 0.05)
    t = [float(r["frame.time_relative"]) for r in rows]
    for grid, got in zip(rate["time_s"], rate["bytes"]):  # bytes sent in [grid - 0.05, grid)
        assert got == sum(int(r["tcp.len"]) for r, x in zip(rows, t) if max(grid - 0.05, t[0]) <= x < grid)


def test_tshark_tab_separated_text_columns():
    lines = (DATA / "tshark_iperf_text.tsv").read_text(encoding="utf-8").splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, ln.split("\t"))) for ln in lines[1:]]
    df = read_tshark(DATA / "tshark_iperf_text.tsv")
    assert df["ip_id"].tolist() == [int(r["ip.id"], 16) for r in rows]
    assert df["tcp_flags"].tolist() == pytest.approx(
        [int(r["tcp.flags"], 16) if r["tcp.flags"] else np.nan for r in rows], nan_ok=True)
    assert df["eth_src"].astype(str).tolist() == [r["eth.src"] for r in rows]
    assert df["tcp_flags_str"].dtype == "category"
    assert df["_ws_col_Protocol"].astype(str).tolist() == [r["_ws.col.Protocol"] for r in rows]
    assert df["icmp_seq"].dropna().tolist() == [float(r["icmp.seq"]) for r in rows if r["icmp.seq"]]


def test_tshark_numeric_field_with_text_only_fails_the_analysis_that_needs_it():
    text = ("frame.time_relative,tcp.len,tcp.analysis.ack_rtt\n0.1,1448,0.01\n0.2,oops,0.02\n"
            "0.3,1448,0.01\n0.4,1448,0.03\n0.5,0,0.02\n0.6,1448,0.01\n")
    df = read_tshark(text)
    assert df["rtt_s"].tolist() == [0.01, 0.02, 0.01, 0.03, 0.02, 0.01]  # the RTT reads
    assert df.attrs["not_numeric"]["bytes"] == {"column": "bytes", "field": "tcp.len", "value": "oops", "row": 2}
    with pytest.raises(MeasurementFormatError, match="column 'bytes' .*'tcp.len'.*'oops' \\(row 2\\).*receive_rate"):
        receive_rate(df, 0.2)


def test_tshark_manifest_rtt_from_a_file_with_text_columns(tmp_path):
    (tmp_path / "cap.csv").write_bytes((DATA / "tshark_mqtt_text.csv").read_bytes())
    (tmp_path / "manifest.toml").write_text(
        '[[measurement]]\nquestion = "Q1"\nscenario = "A"\nflow = "f"\nmetric = "rtt"\nfile = "cap.csv"\n'
        'window_s = [0, 1]\n', encoding="utf-8")
    rows = list(csv.DictReader((DATA / "tshark_mqtt_text.csv").open(encoding="utf-8")))
    rtts = [float(r["tcp.analysis.ack_rtt"]) for r in rows if r["tcp.analysis.ack_rtt"]]
    t = build_manifest(tmp_path / "manifest.toml")
    assert float(t["value"].iloc[0]) == pytest.approx(np.mean(rtts), rel=1e-12)
