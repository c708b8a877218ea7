"""Readers of labcalc.measure on our own fixtures (tests/data/measure) and recorded outputs."""

from __future__ import annotations

import gzip
import io
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labcalc import measure as m
from labcalc.measure import MalformedLinesWarning, MeasurementFormatError
from tests.fastpath import assert_fast_path_equals_slow, mutate_tokens

DATA = Path(__file__).resolve().parent / "data" / "measure"
RECORDED = Path(__file__).resolve().parents[1] / "data" / "measurements" / "recorded"


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        return func(*args, **kwargs)


# --------------------------------------------------------------------------------------
# labtool


def test_labtool_udpclient_printf_format():
    df = m.read_labtool(DATA / "labtool_udpclient.txt")
    assert list(df["program"].unique()) == ["udpclient"]
    assert df["time_s"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert df["packets"].tolist() == [126, 251, 376, 503]
    assert df["rate_bps"].iloc[-1] == pytest.approx(1_016_000.0)
    assert df.attrs["malformed"] == {"count": 0, "lines": []}


def test_labtool_udpserver_both_wordings_and_a_malformed_line():
    with pytest.warns(MalformedLinesWarning, match=r"line 4"):
        df = m.read_labtool(DATA / "labtool_udpserver.txt")
    assert len(df) == 4
    assert df.attrs["malformed"] == {"count": 1, "lines": [4]}
    row = df.iloc[2]  # the handout's own wording
    assert (row["packets"], row["packets_sent"]) == (357, 372)
    assert row["loss"] == pytest.approx(0.04032)
    assert row["rate_bps"] == pytest.approx(952_000.0)
    assert df["loss"].iloc[0] == pytest.approx(0.03279)


def test_labtool_tcpclient_kbps_and_kb_per_s():
    df = m.read_labtool(DATA / "labtool_tcpclient.txt")
    assert df["cwnd_segments"].tolist() == [4, 7, 9]
    assert df["rtt_s"].tolist() == pytest.approx([0.0612, 0.0740, 0.0839])
    assert df["avg_rate_bps"].iloc[-1] == pytest.approx(868_100.0)
    assert df["rate_bps"].iloc[1] == pytest.approx(995_500.0)  # [inst]
    assert df["movavg_rate_bps"].iloc[1] == pytest.approx(803_900.0)


def test_labtool_handout_examples():
    text = (
        "4.0s - sent: 503 pkts, 1000.0 kbits/s\n"
        "170.5s - received: 843/ sent: 867 pkts (loss 2.768%), 957.7 kbit/s\n"
        "7.3: 862.4 kbps avg ( 914.6[inst], 925.3[mov.avg]) cwnd 9 rtt 86.8ms\n"
    )
    df = m.read_labtool(text)
    assert df["program"].tolist() == ["udpclient", "udpserver", "tcpclient"]
    assert df.attrs["programs"] == ["tcpclient", "udpclient", "udpserver"]


def test_labtool_nan_loss_when_nothing_received():
    df = m.read_labtool("  1.0s - received:     0 out of     0 pkts (loss   -nan%),    0.0 kb/s\n")
    assert math.isnan(df["loss"].iloc[0])


def test_labtool_rejects_other_formats():
    with pytest.raises(MeasurementFormatError, match=r"line 1.*labtool"):
        m.read_labtool(DATA / "ping_plain.txt")


# --------------------------------------------------------------------------------------
# iperf 2


def test_iperf2_old_interval_style_and_summary():
    with pytest.warns(MalformedLinesWarning):
        df = m.read_iperf(DATA / "iperf2_client_205.txt")
    assert df["start_s"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert df["bytes"].iloc[0] == pytest.approx(1.25 * 1024**2)
    assert df["bytes"].iloc[1] == pytest.approx(640 * 1024)
    assert df["rate_bps"].iloc[0] == pytest.approx(10.5e6)
    assert df["src"].iloc[0] == "10.0.0.1:52100" and df["dst"].iloc[0] == "10.0.0.2:5001"
    assert df.attrs["malformed"]["lines"] == [10]
    (summary,) = df.attrs["summary"]
    assert summary["end_s"] == pytest.approx(4.1) and summary["rate_bps"] == pytest.approx(6.38e6)
    assert df.attrs["side"] == "client"


def test_iperf2_enhanced_columns():
    df = m.read_iperf(DATA / "iperf2_enhanced.txt")
    assert df["retransmits"].tolist() == [3, 5]
    assert df["cwnd_bytes"].tolist() == [64 * 1024, 48 * 1024]
    assert df["rtt_s"].tolist() == pytest.approx([0.04125, 0.030111])
    assert df["rttvar_s"].iloc[0] == pytest.approx(0.00152)
    assert df["src"].iloc[0] == "10.0.0.1:40222"  # interface suffix %h1-eth0 removed
    assert df.attrs["summary"][0]["retransmits"] == 8


def test_iperf2_udp_server_loss_and_direction():
    df = m.read_iperf(DATA / "iperf2_udp_server.txt")
    assert df["lost_packets"].tolist() == [42, 384]
    assert df["packets"].tolist() == [450, 793]
    assert df["loss"].tolist() == pytest.approx([42 / 450, 384 / 793])
    assert df["jitter_s"].iloc[0] == pytest.approx(0.00012)
    # the server receives: data flows from the peer to the local socket
    assert df["src"].iloc[0] == "10.0.0.1:36001" and df["dst"].iloc[0] == "10.0.0.2:5001"
    assert df.attrs["side"] == "server"


def test_iperf2_parallel_streams_and_sum():
    df = m.read_iperf(DATA / "iperf2_parallel.txt")
    assert df["stream"].tolist() == ["4", "3", "SUM", "4", "3", "SUM"]
    assert df.loc[df["stream"] == "3", "connection"].tolist() == [2, 2]
    assert [s["stream"] for s in df.attrs["summary"]] == ["4", "3", "SUM"]


def test_iperf2_csv_tcp_and_udp():
    df = m.read_iperf(DATA / "iperf2.csv")
    assert df["bytes"].tolist() == [1310720, 1179648]
    assert df["rate_bps"].tolist() == [10485760, 9437184]
    assert df.attrs["summary"][0]["bytes"] == 2490368
    udp = m.read_iperf(DATA / "iperf2_udp.csv")
    assert udp["lost_packets"].tolist() == [42, 384]
    assert udp["jitter_s"].tolist() == pytest.approx([0.00012, 0.000095])


def test_iperf2_recorded_outputs():
    for name in ("iperf2_client.txt", "iperf2_client_e.txt", "iperf2_server.txt", "iperf2_udp_server.txt",
                 "iperf2_client.csv", "iperf2_udp_client.txt"):
        df = m.read_iperf(RECORDED / name)
        assert len(df) >= 3, name
        assert (df["rate_bps"] >= 0).all()


def test_iperf2_enhanced_inflight_cwnd_pkts_rtt_var():
    """iperf 2.1.9+ -e: Write/Err Rtry InF(pkts)/Cwnd(pkts)/RTT(var) NetPwr (K = 1024 bytes)."""
    df = m.read_iperf(DATA / "iperf2_enhanced_inflight.txt")
    assert df["retransmits"].tolist() == [12, 0, 3]
    assert df["writes"].tolist() == [899, 904, 888]
    assert df["write_errors"].tolist() == [0, 0, 0]
    assert df["inflight_bytes"].iloc[:2].tolist() == [356 * 1024, 398 * 1024]
    assert df["inflight_segments"].iloc[:2].tolist() == [252, 281]
    assert df["cwnd_bytes"].iloc[:2].tolist() == [369 * 1024, 411 * 1024]
    assert df["cwnd_segments"].iloc[:2].tolist() == [261, 291]
    assert df["rtt_s"].tolist() == pytest.approx([2932e-6, 3110e-6, 3005e-6])
    assert df["rttvar_s"].tolist() == pytest.approx([85e-6, 92e-6, 70e-6])
    # "NA/3005(70) us": no cwnd from the kernel, the RTT is still read
    assert math.isnan(df["cwnd_bytes"].iloc[2]) and math.isnan(df["inflight_bytes"].iloc[2])
    assert df["src"].iloc[0] == "10.0.0.1:44100" and df["dst"].iloc[0] == "10.0.0.2:5001"
    assert df.attrs["malformed"] == {"count": 0, "lines": []}
    (total,) = df.attrs["summary"]
    assert (total["retransmits"], total["cwnd_segments"], total["end_s"]) == (15, 291, 3.0103)


def test_iperf2_enhanced_wait_and_fq_rate_columns():
    df = m.read_iperf(DATA / "iperf2_enhanced_fq.txt")
    assert df["writes"].tolist() == [99, 95]
    assert df["retransmits"].tolist() == [0, 2]
    assert df["inflight_bytes"].tolist() == [190 * 1024, 127 * 1024]
    assert df["inflight_segments"].tolist() == [135, 90]
    assert df["cwnd_bytes"].tolist() == [207 * 1024, 207 * 1024]
    assert df["cwnd_segments"].tolist() == [147, 147]
    assert df["rtt_s"].tolist() == pytest.approx([403e-6, 384e-6])
    assert "jitter_s" not in df  # "15.147 ms  99/0" is the Wait column, not UDP jitter and loss


def test_iperf2_enhanced_old_cwnd_rtt_without_variance():
    df = m.read_iperf(DATA / "iperf2_enhanced_old.txt")
    assert df["retransmits"].tolist() == [0, 7]
    assert df["cwnd_bytes"].tolist() == [2623 * 1024, 1311 * 1024]
    assert df["rtt_s"].tolist() == pytest.approx([3254e-6, 2019e-6])
    assert df["writes"].tolist() == [909, 896]
    assert "rttvar_s" not in df and "cwnd_segments" not in df
    assert df.attrs["summary"][0]["retransmits"] == 7


def test_iperf2_out_of_order_lines_are_counted_not_malformed():
    df = m.read_iperf(DATA / "iperf2_udp_server_ooo.txt")
    assert df.attrs["malformed"] == {"count": 0, "lines": []}
    assert df["lost_packets"].tolist() == [0, 37, 1]
    assert df["packets"].tolist() == [851, 852, 851]
    assert df["out_of_order"].tolist() == [3, 0, 1]
    assert df.attrs["summary"][0]["out_of_order"] == 4
    assert df["src"].iloc[0] == "10.0.0.1:47001" and df["dst"].iloc[0] == "10.0.0.2:5001"


def test_iperf2_dual_test_sides_per_connection():
    df = m.read_iperf(DATA / "iperf2_dual.txt")
    assert df.attrs["side"] == "dual"
    sent = df[df["stream"] == "3"]
    received = df[df["stream"] == "5"]
    assert sent["src"].unique().tolist() == ["10.0.0.1:48200"] and sent["dst"].unique().tolist() == ["10.0.0.2:5001"]
    assert received["src"].unique().tolist() == ["10.0.0.2:39100"]
    assert received["dst"].unique().tolist() == ["10.0.0.1:5001"]
    assert received["bytes"].tolist() == [640 * 1024, 768 * 1024]
    assert [s["stream"] for s in df.attrs["summary"]] == ["3", "5"]


def test_iperf2_server_side_csv_flows_from_the_peer():
    df = m.read_iperf(DATA / "iperf2_server.csv")
    assert df.attrs["side"] == "server"
    assert df["src"].tolist() == ["10.0.0.1:41500"] * 2
    assert df["dst"].tolist() == ["10.0.0.2:5001"] * 2
    assert df["bytes"].tolist() == [1179648, 1310720]
    udp = m.read_iperf(DATA / "iperf2_udp.csv")  # UDP server: loss columns on every line
    assert udp.attrs["side"] == "server"
    assert udp["src"].tolist() == ["10.0.0.1:36001"] * 2
    assert udp["out_of_order"].tolist() == [0, 1]
    client = m.read_iperf(DATA / "iperf2.csv")
    # TCP with the listener second: a 2.0.x client, or either side of 2.1+ (which prints the
    # client first on both sides): the side is unknown, the data still flow to the listener
    assert client.attrs["side"] == "unknown" and client["src"].iloc[0] == "10.0.0.1:52200"
    assert client["dst"].iloc[0] == "10.0.0.2:5001"


def test_iperf2_enhanced_csv_with_header():
    df = m.read_iperf(DATA / "iperf2_enhanced.csv")
    assert df.attrs["format"] == "iperf" and m.read(DATA / "iperf2_enhanced.csv").attrs["format"] == "iperf"
    assert df["start_s"].tolist() == [0.0, 1.0] and df["end_s"].tolist() == [1.0, 2.0]
    assert df["bytes"].tolist() == [117440512, 118489088]
    assert df["rate_bps"].tolist() == [939524096, 947912704]
    assert df["writes"].tolist() == [896, 904]
    assert df["retransmits"].tolist() == [12, 0]
    assert df["cwnd_bytes"].tolist() == [369 * 1024, 411 * 1024]
    assert df["cwnd_segments"].tolist() == [261, 291]
    assert df["rtt_s"].tolist() == pytest.approx([2932e-6, 3110e-6])
    assert df["rttvar_s"].tolist() == pytest.approx([85e-6, 92e-6])
    assert df["src"].iloc[0] == "10.0.0.1:44100" and df.attrs["side"] == "client"
    assert df["timestamp"].iloc[0] == "20261123115000.105"
    assert df.attrs["summary"][0]["bytes"] == 235929600


def test_iperf2_21_udp_csv_client_address_first_on_both_sides():
    """iperf 2.1.8 -u -y C: the client's socket first on both sides, 14 fields on the client too."""
    cli = m.read_iperf(DATA / "iperf2_21_udp_client.csv")
    assert cli.attrs["side"] == "client"
    assert cli["src"].tolist() == ["127.0.0.1:49079"] * 2 and cli["dst"].tolist() == ["127.0.0.1:5502"] * 2
    assert cli["packets"].tolist() == [893, 890]  # datagrams sent
    # zeros the client printed for what only the receiver measures
    for col in ("jitter_s", "lost_packets", "loss", "out_of_order"):
        assert cli[col].isna().all(), col
    (total,) = cli.attrs["summary"]
    assert (total["bytes"], total["rate_bps"], total["end_s"]) == (2623950, 10493475, 2.0)
    assert "packets" not in total and "loss" not in total  # "...,0,-1,-0.000,0": total not known
    assert (total["src"], total["dst"]) == ("127.0.0.1:49079", "127.0.0.1:5502")
    srv = m.read_iperf(DATA / "iperf2_21_udp_server.csv")
    assert srv.attrs["side"] == "server"
    assert srv["src"].tolist() == ["127.0.0.1:49079"] * 2 and srv["dst"].tolist() == ["127.0.0.1:5502"] * 2
    assert srv["jitter_s"].tolist() == pytest.approx([2e-6, 3e-6])
    assert srv["lost_packets"].tolist() == [0, 0] and srv["packets"].tolist() == [893, 890]
    assert srv["loss"].tolist() == [0.0, 0.0]
    (total,) = srv.attrs["summary"]
    assert (total["packets"], total["lost_packets"], total["jitter_s"]) == (1785, 0, pytest.approx(3e-6))


def test_iperf2_21_tcp_server_csv_listener_shared_by_the_connections():
    df = m.read_iperf(DATA / "iperf2_21_server.csv")  # two tests: -P 2, then one stream
    assert df.attrs["side"] == "unknown"  # TCP, listener second: 2.0.x client or 2.1 either side
    assert df["stream"].tolist() == ["1", "2", "1", "2", "3", "3"]
    assert df["src"].tolist() == ["127.0.0.1:56392", "127.0.0.1:56408"] * 2 + ["127.0.0.1:38058"] * 2
    assert df["dst"].unique().tolist() == ["127.0.0.1:5741"]
    assert [(s["stream"], s["bytes"], s["rate_bps"]) for s in df.attrs["summary"]] == [
        ("2", 5374012, 21496832), ("1", 5374012, 21491878), ("3", 5374012, 21492716)]
    # one line (2.1.8 server without -i): the lower port is the listener's
    one = m.read_iperf("19700101000000,127.0.0.1,38748,127.0.0.1,5403,1,0.0-3.0,3902668860,10408286157\n")
    assert (one["src"].iloc[0], one["dst"].iloc[0], one.attrs["side"]) == ("127.0.0.1:38748", "127.0.0.1:5403", "unknown")
    assert one["bytes"].tolist() == [3902668860]


def test_iperf2_20_csv_dual_and_udp_client_server_report():
    """iperf 2.0.x prints its own socket first: -d gives one connection of each kind."""
    dual = m.read_iperf(
        "20240305101500,10.0.0.1,48200,10.0.0.2,5001,3,0.0-1.0,1310720,10485760\n"
        "20240305101500,10.0.0.1,5001,10.0.0.2,39100,5,0.0-1.0,655360,5242880\n"
    )
    assert dual.attrs["side"] == "dual"
    assert dual["src"].tolist() == ["10.0.0.1:48200", "10.0.0.2:39100"]
    assert dual["dst"].tolist() == ["10.0.0.2:5001", "10.0.0.1:5001"]
    # 2.0.x UDP client: 9-field intervals, then the 14-field report of the server
    udp = m.read_iperf(
        "20240305101600,10.0.0.1,36001,10.0.0.2,5001,3,0.0-1.0,131250,1050000\n"
        "20240305101601,10.0.0.1,36001,10.0.0.2,5001,3,1.0-2.0,131250,1050000\n"
        "20240305101601,10.0.0.1,36001,10.0.0.2,5001,3,0.0-2.0,262500,1050000\n"
        "20240305101601,10.0.0.1,36001,10.0.0.2,5001,3,0.0-2.0,261030,1044120,0.120,3,179,1.676,0\n"
    )
    assert udp.attrs["side"] == "client"
    assert udp["src"].tolist() == ["10.0.0.1:36001"] * 2 and "jitter_s" not in udp
    total, report = udp.attrs["summary"]
    assert (total["role"], total["bytes"]) == ("summary", 262500)
    assert (report["role"], report["lost_packets"], report["packets"]) == ("server report", 3, 179)
    assert report["jitter_s"] == pytest.approx(0.00012) and report["loss"] == pytest.approx(3 / 179)


def test_iperf2_sum_lines_belong_to_their_test():
    df = m.read_iperf(DATA / "iperf2_server_sum_two_tests.txt")  # two -P 2 tests, no -i
    assert df["stream"].tolist() == ["4", "5", "SUM", "4", "5", "SUM"]
    assert df.loc[df["stream"] == "SUM", "rate_bps"].tolist() == [16.8e6, 50.3e6]
    assert df["connection"].iloc[[0, 1, 3, 4]].tolist() == [1, 2, 3, 4]
    assert df.attrs["summary"] == []
    log = m.read_iperf(DATA / "iperf2_21_server_log.txt")  # iperf 2.1.8 server: three tests with a [SUM]
    sums = log[log["stream"] == "SUM"]
    assert sums["rate_bps"].tolist() == [6.08e9, 39.5e9, 45.8e9]
    assert sums["end_s"].tolist() == [3.0136, 3.0013, 3.0003]
    assert log.attrs["summary"] == []
    assert log["stream"].tolist() == ["12", "11", "SUM", "14", "13", "SUM", "15", "17", "16", "SUM"]
    star = log[log["stream"] == "16"]  # "[*16] local ... port 51426 connected with ... port 5401 (reverse)"
    assert (star["src"].iloc[0], star["dst"].iloc[0], star["connection"].iloc[0]) == (
        "127.0.0.1:51426", "127.0.0.1:5401", 7)


def test_iperf2_21_reverse_stream_star_connect_line():
    df = m.read_iperf(DATA / "iperf2_21_dual_server.txt")
    assert df.attrs["side"] == "dual" and df.attrs["malformed"]["count"] == 0
    rev = df[df["stream"] == "2"]  # "[ *2] local 127.0.0.1 port 51806 connected with 127.0.0.1 port 5511 (reverse)"
    assert rev["src"].tolist() == ["127.0.0.1:51806"] * 2 and rev["dst"].tolist() == ["127.0.0.1:5511"] * 2
    assert rev["connection"].tolist() == [2, 2]
    assert rev["bytes"].tolist() == [232 * 1024**2, 264 * 1024**2]
    fwd = df[df["stream"] == "1"]
    assert fwd["src"].tolist() == ["127.0.0.1:33996"] * 2 and fwd["dst"].tolist() == ["127.0.0.1:5501"] * 2
    assert df.loc[df["stream"] == "SUM", "rate_bps"].tolist() == [5.25e9, 9.56e9]
    assert [(s["stream"], s.get("src")) for s in df.attrs["summary"]] == [
        ("2", "127.0.0.1:51806"), ("1", "127.0.0.1:33996"), ("SUM", None)]


def test_iperf2_21_reverse_and_full_duplex_data_direction():
    """iperf 2.1.8: --reverse marks both sides "(reverse)", --full-duplex reports [ 1] and [ *1]."""
    srv = m.read_iperf(DATA / "iperf2_21_server_reverse_modes.txt")  # -R, then -d, then --full-duplex
    assert srv["stream"].tolist() == ["1", "2", "4", "4", "SUM"]
    assert srv["src"].iloc[:4].tolist() == ["127.0.0.1:5751", "127.0.0.1:37664", "127.0.0.1:37676", "127.0.0.1:5751"]
    assert srv["dst"].iloc[:4].tolist() == ["127.0.0.1:37662", "127.0.0.1:5751", "127.0.0.1:5751", "127.0.0.1:37676"]
    assert srv["end_s"].tolist() == [1.114, 1.0006, 1.0006, 1.0002, 1.0006]  # both directions are rows
    assert srv.attrs["summary"] == []
    cli = m.read_iperf(DATA / "iperf2_21_client_reverse.txt")  # "[ *1]": the client receives
    assert (cli["src"].iloc[0], cli["dst"].iloc[0]) == ("127.0.0.1:5751", "127.0.0.1:37662")
    fd = m.read_iperf(DATA / "iperf2_21_client_full_duplex.txt")
    assert fd["src"].tolist()[:2] == ["127.0.0.1:37676", "127.0.0.1:5751"]
    assert fd["dst"].tolist()[:2] == ["127.0.0.1:5751", "127.0.0.1:37676"]
    assert fd["rate_bps"].tolist() == [11.5e6, 10.5e6, 21.0e6]


def test_iperf2_21_enhanced_udp_client_and_tcp_sum_columns():
    udp = m.read_iperf(DATA / "iperf2_21_udp_client_e.txt")  # "891/0      893 pps"
    assert udp["writes"].tolist() == [891, 892, 891]
    assert udp["write_errors"].tolist() == [0, 0, 0]
    assert udp.attrs["summary"][0]["writes"] == 2675
    assert udp.attrs["malformed"]["count"] == 0
    tcp = m.read_iperf(DATA / "iperf2_21_enhanced_parallel.txt")  # [SUM] "13209/0        16": no cwnd/RTT
    sums = tcp[tcp["stream"] == "SUM"]
    assert sums["writes"].tolist() == [13209, 45073, 54701]
    assert sums["retransmits"].tolist() == [16, 0, 1]
    assert sums["write_errors"].tolist() == [0, 0, 0]
    assert sums["cwnd_bytes"].isna().all() and sums["rtt_s"].isna().all()
    total = tcp.attrs["summary"][-1]
    assert (total["stream"], total["writes"], total["retransmits"]) == ("SUM", 112985, 18)
    assert tcp.loc[tcp["stream"] == "2", "retransmits"].tolist() == [7, 0, 0]
    server = m.read_iperf(  # -e server: Reads=Dist
        "[  1] local 127.0.0.1%lo port 5404 connected with 127.0.0.1 port 42098 (sock=4) (peer 2.1.8)\n"
        "[ ID] Interval            Transfer    Bandwidth       Reads=Dist\n"
        "[  1] 0.0000-1.0000 sec   396 MBytes  3.32 Gbits/sec  3192=11:2:0:15:12:2:0:3150\n"
        "[  1] 1.0000-2.0000 sec   395 MBytes  3.31 Gbits/sec  3202=22:0:0:18:23:0:0:3139\n"
    )
    assert server["reads"].tolist() == [3192, 3202]


# --------------------------------------------------------------------------------------
# iperf3


def test_iperf3_client_text_omitted_retr_cwnd_and_summary():
    df = m.read_iperf3(DATA / "iperf3_client.txt")
    assert df["omitted"].tolist() == [True, True, False, False, False]
    assert df["retransmits"].tolist() == [0, 12, 0, 4, 0]
    assert df["cwnd_bytes"].tolist() == pytest.approx([180 * 1024, 90.5 * 1024, 101 * 1024, 75 * 1024, 1.02 * 1024**2])
    assert df["rate_bps"].iloc[2] == pytest.approx(9.96e6)
    roles = {s["role"]: s for s in df.attrs["summary"]}
    assert roles["sender"]["retransmits"] == 4
    assert roles["receiver"]["end_s"] == pytest.approx(3.04)
    steady = df[~df["omitted"]]
    assert len(steady) == 3


def test_iperf3_server_old_bandwidth_header():
    df = m.read_iperf3(DATA / "iperf3_server_old.txt")
    assert len(df) == 3
    assert df["bytes"].iloc[2] == pytest.approx(47.1 * 1024)
    assert df["src"].iloc[0] == "192.168.50.1:43012"
    assert [s["role"] for s in df.attrs["summary"]] == ["sender", "receiver"]
    assert "retransmits" not in df.columns


def test_iperf3_udp_server_and_client():
    srv = m.read_iperf3(DATA / "iperf3_udp_server.txt")
    assert srv["lost_packets"].tolist() == [100, 0]
    assert srv["packets"].tolist() == [927, 826]
    assert srv["jitter_s"].tolist() == pytest.approx([0.00021, 0.00018])
    assert srv.attrs["summary"][0]["loss"] == pytest.approx(100 / 1753)
    cli = m.read_iperf3(DATA / "iperf3_udp_client.txt")
    assert cli["packets"].tolist() == [1036, 1036]
    assert "retransmits" not in cli.columns


def test_iperf3_parallel_sum_retransmits_and_bidir_direction():
    par = m.read_iperf3(DATA / "iperf3_parallel.txt")
    assert par["stream"].tolist() == ["5", "7", "SUM"]
    assert par["retransmits"].tolist() == [2, 1, 3]
    bid = m.read_iperf3(DATA / "iperf3_bidir.txt")
    assert bid["direction"].tolist() == ["TX-C", "RX-C"]
    assert bid["src"].tolist() == ["192.168.50.1:43200", "192.168.50.2:5201"]


def test_iperf3_json_units():
    df = m.read_iperf3(DATA / "iperf3_client.json")
    assert df["omitted"].tolist() == [True, False, False]
    assert df["rtt_s"].tolist() == pytest.approx([0.012, 0.048, 0.0525])
    assert df["cwnd_bytes"].tolist() == [65160, 86880, 101360]
    assert df["retransmits"].tolist() == [0, 2, 0]
    assert df.attrs["congestion"] == "cubic"
    assert df.attrs["start_epoch_s"] == 1709634000.0
    sender = next(s for s in df.attrs["summary"] if s["role"] == "sender")
    assert sender["rtt_min_s"] == pytest.approx(0.048)


def test_iperf3_json_stream_matches_json():
    a = m.read_iperf3(DATA / "iperf3_client.json")
    b = m.read_iperf3(DATA / "iperf3_stream.jsonl")
    pd.testing.assert_frame_equal(a, b)


def test_iperf3_json_udp_server():
    df = m.read_iperf3(DATA / "iperf3_udp_server.json")
    assert df["loss"].tolist() == pytest.approx([100 / 927, 0.0])
    assert df["src"].iloc[0] == "192.168.50.1:50200"


@pytest.mark.parametrize(
    "name, pattern",
    [
        ("iperf3_error.json", r"iperf3_error\.json, line \d+: iperf3 reported an error.*unable to connect"),
        ("iperf3_truncated.json", r"iperf3_truncated\.json, line \d+: the iperf3 JSON document is truncated"),
        ("iperf3_error.txt", r"iperf3_error\.txt, line 1: iperf3 reported an error"),
    ],
)
def test_iperf3_errors_are_clear(name, pattern):
    with pytest.raises(MeasurementFormatError, match=pattern) as info:
        m.read_iperf3(DATA / name)
    assert isinstance(info.value, ValueError)
    assert info.value.line is not None and info.value.source.endswith(name)


def test_iperf3_error_after_some_data_is_a_warning():
    text = (DATA / "iperf3_client.txt").read_text().replace("iperf Done.", "iperf3: error - control socket has closed unexpectedly")
    with pytest.warns(m.ToolErrorWarning):
        df = m.read_iperf3(text)
    assert "control socket" in df.attrs["tool_error"]


def test_iperf3_json_that_is_not_iperf():
    with pytest.raises(MeasurementFormatError, match="not an iperf3"):
        m.read_iperf3('{"hello": 1}\n')


@pytest.mark.parametrize("name", ["iperf3_truncated_in_string.json", "iperf3_truncated_in_literal.json"])
def test_iperf3_json_cut_inside_a_string_or_literal_is_truncated_not_invalid(name):
    with pytest.raises(MeasurementFormatError, match=rf"{name}, line \d+: the iperf3 JSON document is truncated"):
        m.read_iperf3(DATA / name)
    with pytest.raises(MeasurementFormatError, match="invalid JSON"):  # broken inside, closed at the end
        m.read_iperf3('{"start": {"version": "iperf 3.12" "x": 1}, "intervals": []}\n')


def test_iperf3_json_reverse_client_end_block_has_no_rtt_or_cwnd():
    df = m.read_iperf3(DATA / "iperf3_reverse_client.json")  # iperf3 3.12 -c ... -R -J
    assert df.attrs["reverse"] is True
    assert df["src"].tolist() == ["127.0.0.1:5301"] and df["dst"].tolist() == ["127.0.0.1:54300"]
    sender = next(s for s in df.attrs["summary"] if s["role"] == "sender")
    assert sender["retransmits"] == 14 and sender["bytes"] == 9148825600
    for key in ("rtt_s", "rtt_min_s", "rtt_max_s", "cwnd_max_bytes"):  # written as 0 by iperf3
        assert math.isnan(sender[key]), key
    pd.concat([df, df])  # NaN in attrs is still plain data
    normal = next(s for s in m.read_iperf3(DATA / "iperf3_client.json").attrs["summary"] if s["role"] == "sender")
    assert normal["rtt_max_s"] > 0


def test_iperf3_json_followed_by_text():
    with pytest.warns(m.ToolErrorWarning, match=r"iperf3_trailing_error\.json, line 131: iperf3: error - control socket"):
        df = m.read_iperf3(DATA / "iperf3_trailing_error.json")
    assert df["bytes"].tolist() == [2642411520]
    assert df["rtt_s"].tolist() == pytest.approx([36e-6])
    assert df.attrs["tool_error"] == "iperf3: error - control socket has closed unexpectedly"
    assert df.attrs["malformed"] == {"count": 0, "lines": []} and "trailing_text" not in df.attrs
    assert [s["role"] for s in df.attrs["summary"]] == ["sender", "receiver", "sum_sent", "sum_received"]
    text = (DATA / "iperf3_trailing_error.json").read_text().replace("iperf3: error", "Connection reset\nagain")
    with pytest.warns(MalformedLinesWarning, match="line 131, 132"):
        other = m.read_iperf3(text)
    assert other.attrs["trailing_text"] == "Connection reset\nagain - control socket has closed unexpectedly"
    assert other.attrs["malformed"] == {"count": 2, "lines": [131, 132]} and "tool_error" not in other.attrs
    assert len(other) == 1


def test_iperf3_get_server_output_is_kept_apart():
    df = m.read_iperf3(DATA / "iperf3_server_output.txt")
    assert df["end_s"].tolist() == [1.0, 2.0]  # the client's intervals only
    assert df["retransmits"].tolist() == [0, 3]
    assert df.attrs["side"] == "client"
    assert [s["role"] for s in df.attrs["summary"]] == ["sender", "receiver"]
    server = df.attrs["server_output"]
    assert [r["end_s"] for r in server["intervals"]] == [1.0, 2.0, 2.04]
    assert [r["rate_bps"] for r in server["intervals"]] == [8.39e6, 9.44e6, 26.2e6]
    assert server["intervals"][0]["src"] == "10.0.0.1:40100" and server["intervals"][0]["dst"] == "10.0.0.2:5201"
    assert [(s["role"], s["end_s"]) for s in server["summary"]] == [("receiver", 2.04)]


def test_iperf3_timestamps_prefix_is_removed_and_kept():
    df = m.read_iperf3(DATA / "iperf3_timestamps.txt")
    assert df.attrs["side"] == "client"
    assert df["timestamp"].tolist() == ["Mon Nov 23 11:50:23 2026", "Mon Nov 23 11:50:24 2026"]
    assert df["retransmits"].tolist() == [0, 2]
    assert df["cwnd_bytes"].tolist() == [128 * 1024, 70 * 1024]
    assert df["src"].iloc[0] == "10.0.0.1:40200" and df["dst"].iloc[0] == "10.0.0.2:5201"
    roles = {s["role"]: s for s in df.attrs["summary"]}
    assert roles["sender"]["retransmits"] == 2 and roles["receiver"]["end_s"] == 2.03
    assert m.read(DATA / "iperf3_timestamps.txt").attrs["format"] == "iperf3"
    custom = "\n".join("11:50:2%d.5 %s" % (k, line) for k, line in enumerate((
        "Connecting to host 10.0.0.2, port 5201",
        "[  5] local 10.0.0.1 port 40202 connected to 10.0.0.2 port 5201",
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd",
        "[  5]   0.00-1.00   sec  1.25 MBytes  10.5 Mbits/sec    1    100 KBytes"))) + "\n"
    one = m.read_iperf3(custom)
    assert one["timestamp"].tolist() == ["11:50:23.5"]
    assert one["src"].tolist() == ["10.0.0.1:40202"] and one.attrs["side"] == "client"


def test_iperf3_old_json_reverse_mode_data_flow_from_the_server():
    df = m.read_iperf3(DATA / "iperf3_reverse_old.json")
    assert df.attrs["reverse"] is True
    assert df["src"].tolist() == ["10.0.0.2:5201"] * 2
    assert df["dst"].tolist() == ["10.0.0.1:40400"] * 2
    assert df["bytes"].tolist() == [1310720, 1179648]
    sender = next(s for s in df.attrs["summary"] if s["role"] == "sender")
    assert (sender["src"], sender["bytes"]) == ("10.0.0.2:5201", 2621440)


# --------------------------------------------------------------------------------------
# ping


def test_ping_plain_with_summary():
    df = m.read_ping(DATA / "ping_plain.txt")
    assert df["seq"].tolist() == [1, 2, 4]
    assert df["rtt_s"].tolist() == pytest.approx([0.0204, 0.120, 0.000062])
    assert df["time_s"].isna().all()
    s = df.attrs["summary"]
    assert (s["transmitted"], s["received"]) == (4, 3)
    assert s["loss"] == pytest.approx(0.25)
    assert s["rtt_avg_s"] == pytest.approx(0.046821)
    assert s["time_s"] == pytest.approx(3.004)
    assert df.attrs["target"] == "10.0.0.2"


def test_ping_D_timestamps_and_old_icmp_req():
    df = m.read_ping(DATA / "ping_D.txt")
    assert df["time_s"].tolist() == pytest.approx([1709634000.1, 1709634000.200312, 1709634000.30065, 1709634000.400981])
    assert df["ttl"].tolist() == [63] * 4
    assert "summary" not in df.attrs
    old = m.read_ping(DATA / "ping_old.txt")
    assert old["seq"].tolist() == [1, 2, 3]
    assert old["rtt_s"].tolist() == pytest.approx([0.140, 0.152, 0.0963])


def test_ping_corrupted_lines_are_skipped_and_counted():
    with pytest.warns(MalformedLinesWarning, match="3 malformed"):
        df = m.read_ping(DATA / "ping_corrupt.txt")
    assert df["seq"].tolist() == [1, 4, 5]
    assert df.attrs["malformed"] == {"count": 3, "lines": [3, 5, 7]}


def test_ping_hostnames_dup_and_errors():
    df = m.read_ping(DATA / "ping_events.txt")
    assert df["seq"].tolist() == [1, 3, 3]
    assert df["dup"].tolist() == [False, False, True]
    assert df["src"].iloc[0] == "host7.example.net (192.0.2.7)"
    assert df.attrs["errors"] == 2
    s = df.attrs["summary"]
    assert (s["duplicates"], s["errors"], s["loss"]) == (1, 1, 0.5)


def test_ping_empty_and_garbage():
    with pytest.raises(MeasurementFormatError, match="empty"):
        m.read_ping("\n\n")
    with pytest.raises(MeasurementFormatError, match=r"line 2: not ping output"):
        m.read_ping("\nhello world\nfoo\n")


def test_ping_only_header_and_total_loss_is_a_valid_empty_frame():
    text = "PING 10.0.0.9 (10.0.0.9) 56(84) bytes of data.\n\n--- 10.0.0.9 ping statistics ---\n3 packets transmitted, 0 received, 100% packet loss, time 2040ms\n"
    df = m.read_ping(text)
    assert len(df) == 0
    assert df.attrs["summary"]["loss"] == 1.0


def test_ping_fast_and_slow_paths_agree():
    lines = [f"[1700000000.{i:06d}] 64 bytes from 10.0.0.2: icmp_seq={i} ttl=64 time={0.01 * i + 0.05:.3f} ms" for i in range(1, 200)]
    lines[50] += " (DUP!)"  # goes through the line-by-line path
    lines[80] = lines[80].replace("64 bytes", "1480 bytes")
    df = m.read_ping("\n".join(lines) + "\n")
    assert df["seq"].tolist() == list(range(1, 200))
    assert df["dup"].sum() == 1 and bool(df["dup"].iloc[50])
    assert df["bytes"].iloc[80] == 1480
    expected = np.array([0.01 * i + 0.05 for i in range(1, 200)]) * 1e-3
    np.testing.assert_allclose(df["rtt_s"], np.round(expected * 1e3, 3) * 1e-3)


def test_ping_ipv6_target_and_source_labels():
    df = m.read_ping(DATA / "ping_ipv6.txt")
    assert df.attrs["target"] == "::1"
    assert df["src"].tolist() == ["::1", "::1", "fe80::1%h1-eth0", "::1"]
    assert df["seq"].tolist() == [1, 2, 3, 5]
    assert df["rtt_s"].tolist() == pytest.approx([31e-6, 48e-6, 52e-6, 40e-6])
    assert df.attrs["errors"] == 1 and df.attrs["malformed"]["count"] == 0
    assert df.attrs["summary"]["loss"] == 0.2
    bsd = m.read_ping(DATA / "ping_ipv6_bsd.txt")  # BSD / macOS ping6: "from <addr>," and hlim=
    assert bsd.attrs["target"] == "2001:db8::2"
    assert bsd["src"].tolist() == ["2001:db8::2"] * 2
    assert bsd["rtt_s"].tolist() == pytest.approx([45e-6, 102e-6])
    assert bsd.attrs["malformed"]["count"] == 0
    assert bsd.attrs["summary"]["rtt_mdev_s"] == pytest.approx(29e-6)


# --------------------------------------------------------------------------------------
# tcp_probe


def test_tcp_probe_proc_11_fields_hex_and_port_filter():
    df = m.read_tcp_probe(DATA / "tcpprobe_proc11.txt")
    assert len(df) == 5
    assert df["seq"].iloc[0] == 0x1A2B3C4D and df["snd_una"].iloc[0] == 0x1A2B3000
    assert df["rtt_s"].iloc[0] == pytest.approx(0.0205)
    assert math.isnan(df["ssthresh_segments"].iloc[0]) and df["ssthresh_segments"].iloc[3] == 5
    assert df["rcv_wnd_bytes"].iloc[0] == 29312
    assert df.attrs["variant"] == "proc11"
    only = m.read_tcp_probe(DATA / "tcpprobe_proc11.txt", port=5001)
    assert len(only) == 4
    assert set(only["src"]) | set(only["dst"]) == {"10.0.0.1:40100", "10.0.0.2:5001"}


def test_tcp_probe_proc_10_fields_srtt_in_jiffies():
    with pytest.warns(MalformedLinesWarning):
        df = m.read_tcp_probe(DATA / "tcpprobe_proc10.txt")
    assert df["cwnd_segments"].tolist() == [10, 12, 6]
    assert df["rtt_s"].tolist() == pytest.approx([0.007, 0.009, 0.012])
    assert df["rcv_wnd_bytes"].isna().all()
    assert df.attrs["malformed"]["lines"] == [3]
    us = quiet(m.read_tcp_probe, DATA / "tcpprobe_proc10.txt", srtt_unit="us")
    assert us["rtt_s"].iloc[0] == pytest.approx(7e-6)


def test_tcp_probe_tracepoint_kernel6():
    with pytest.warns(MalformedLinesWarning, match="line 13"):
        df = m.read_tcp_probe(DATA / "tcpprobe_trace.txt")
    assert df["time_s"].tolist() == pytest.approx([812.5001, 812.5102, 812.5103, 812.5204, 812.5405])
    assert df["cwnd_segments"].tolist() == [10, 11, 10, 7, 8]
    assert df["ssthresh_segments"].isna().tolist() == [True, True, True, False, False]
    assert df["seq"].iloc[1] == 0x100005A8
    assert df["src"].iloc[2] == "[::ffff:10.0.0.2]:5201"
    assert df["rtt_s"].iloc[0] == pytest.approx(0.0201)
    assert df["bytes"].iloc[2] == 1448
    assert df.attrs["other_events"] == 1
    assert df.attrs["variant"] == "tracepoint"
    flow = df[df["dst"] == "10.0.0.2:5201"]
    assert len(flow) == 4  # the "Web Content" task name has a space and is still read


def test_tcp_probe_tracepoint_kernel416_and_perf_script():
    df = m.read_tcp_probe(DATA / "tcpprobe_trace_416.txt")
    assert df["cwnd_segments"].tolist() == [20, 20, 21]
    assert df["ssthresh_segments"].tolist() == [15, 15, 15]
    assert df["bytes"].tolist() == [0, 0, 0]  # "length=" of kernel 4.16
    assert df["time_s"].iloc[2] == pytest.approx(250.020001)


def test_tcp_probe_recorded_trace_is_gzip_and_one_flow_has_losses():
    df = m.read_tcp_probe(RECORDED / "tcp_probe_trace.txt.gz", port=5201)
    data_flows = df.groupby(["src", "dst"], observed=True).size().sort_values()
    src, dst = data_flows.index[-1]
    flow = df[(df["src"] == src) & (df["dst"] == dst)]
    assert len(flow) > 500
    assert (flow["rtt_s"] > 0).all()


def test_tcp_probe_vectorised_path_on_many_chunks(tmp_path):
    # more than one chunk, so the threaded chunk pipeline and line numbering are exercised
    line = ("  iperf3-1 [000] ..s1. {t:.6f}: tcp_probe: family=AF_INET src=10.0.0.1:40000 dest=10.0.0.2:5201 "
            "mark=0x0 data_len=0 snd_nxt={n:#x} snd_una=0x0 snd_cwnd={c} ssthresh=2147483647 snd_wnd=65535 "
            "srtt={r} rcv_wnd=65535 sock_cookie=1\n")
    n = 60_000
    path = tmp_path / "big.txt"
    with open(path, "w") as fh:
        for i in range(n):
            if i == 45_000:
                fh.write("garbage tcp_probe: line\n")
            fh.write(line.format(t=100 + i * 1e-4, n=i * 1448, c=10 + i % 90, r=1000 + i))
    with pytest.warns(MalformedLinesWarning, match="line 45001"):
        df = m.read_tcp_probe(path)
    assert len(df) == n
    assert df["cwnd_segments"].tolist()[:3] == [10, 11, 12]
    assert df["seq"].iloc[-1] == (n - 1) * 1448
    assert df["rtt_s"].iloc[-1] == pytest.approx((1000 + n - 1) * 1e-6)
    assert np.all(np.diff(df["time_s"]) > 0)


def test_tcp_probe_rejects_other_formats_and_bad_arguments():
    with pytest.raises(MeasurementFormatError, match="tcp_probe"):
        m.read_tcp_probe(DATA / "qlen.txt")
    with pytest.raises(ValueError, match="srtt_unit"):
        m.read_tcp_probe(DATA / "tcpprobe_proc11.txt", srtt_unit="fortnights")


def test_tcp_probe_10_fields_jiffies_at_hz():
    """Kernels before 3.12 log srtt in jiffies: hz= gives their length (HZ=250: 4 ms)."""
    df = m.read_tcp_probe(DATA / "tcpprobe_proc10_hz250.txt", hz=250)
    assert df["rtt_s"].tolist() == pytest.approx([0.020, 0.024, 0.024, 0.044])
    assert df["cwnd_segments"].tolist() == [10, 11, 12, 6]
    assert df["seq"].tolist() == [0x1A2B0000, 0x1A2B05A8, 0x1A2B0B50, 0x1A2B10F8]
    assert df["ssthresh_segments"].iloc[3] == 6 and math.isnan(df["ssthresh_segments"].iloc[0])
    assert df.attrs["srtt_unit"] == "jiffies at HZ=250"
    default = m.read_tcp_probe(DATA / "tcpprobe_proc10_hz250.txt")  # HZ=1000 unless told
    assert default["rtt_s"].tolist() == pytest.approx([0.005, 0.006, 0.006, 0.011])
    assert default.attrs["srtt_unit"] == "jiffies at HZ=1000"
    # an 11-field file of a 3.12-3.14 kernel: jiffies too, when told
    eleven = m.read_tcp_probe(DATA / "tcpprobe_proc11.txt", srtt_unit="jiffies", hz=100)
    us = m.read_tcp_probe(DATA / "tcpprobe_proc11.txt")
    np.testing.assert_allclose(eleven["rtt_s"], us["rtt_s"] * 1e6 / 100)
    with pytest.raises(ValueError, match="hz: expected"):
        m.read_tcp_probe(DATA / "tcpprobe_proc10_hz250.txt", hz=0)
    with pytest.raises(ValueError, match="hz: only used when srtt is in jiffies"):
        m.read_tcp_probe(DATA / "tcpprobe_proc10_hz250.txt", srtt_unit="us", hz=250)


def test_tcp_probe_mixed_10_and_11_fields_one_format_per_file():
    with pytest.warns(MalformedLinesWarning, match="line 3"):
        df = m.read_tcp_probe(DATA / "tcpprobe_mixed.txt")
    assert df.attrs["variant"] == "proc11"
    assert df.attrs["malformed"] == {"count": 1, "lines": [3]}
    assert df["time_s"].tolist() == pytest.approx([5.0001, 5.0002, 5.0004, 5.0005])
    assert df["rtt_s"].tolist() == pytest.approx([0.0205, 0.0206, 0.0208, 0.0210])  # all microseconds
    assert df["rcv_wnd_bytes"].tolist() == [29312] * 4
    # a tie keeps the format of the first module line
    lines = (DATA / "tcpprobe_mixed.txt").read_text().splitlines()
    tie = "\n".join([lines[2], lines[0]]) + "\n"
    with pytest.warns(MalformedLinesWarning, match="line 2"):
        first10 = m.read_tcp_probe(tie)
    assert first10.attrs["variant"] == "proc10" and first10["rtt_s"].tolist() == pytest.approx([20.7])


# --------------------------------------------------------------------------------------
# ss


def test_ss_samples_rates_rtt_retrans():
    df = m.read_ss(DATA / "ss_samples.txt")
    assert df["sample"].tolist() == [0, 0, 1]
    assert df["time_s"].tolist() == [1709634000.0, 1709634000.0, 1709634000.5]
    flow = df[df["src"] == "10.0.0.1:43402"]
    assert flow["cwnd_segments"].tolist() == [42, 47]
    assert flow["ssthresh_segments"].tolist() == [30, 30]
    assert flow["rtt_s"].tolist() == pytest.approx([0.0315, 0.0382])
    assert flow["retransmits"].tolist() == [10, 10]
    assert flow["send_bps"].tolist() == pytest.approx([15.4e6, 14251882])
    assert flow["delivery_rate_bps"].tolist() == pytest.approx([9.8e6, 9923077])
    assert flow["app_limited"].tolist() == [False, True]
    assert df["cc"].unique().tolist() == ["cubic"]
    assert math.isnan(df["ssthresh_segments"].iloc[0])


def test_ss_old_version_bare_stamps_and_oneline():
    df = m.read_ss(DATA / "ss_old.txt", port=5001)
    assert df["time_s"].tolist() == [1709634100.25, 1709634100.75]
    assert df["cwnd_segments"].tolist() == [182, 91]
    assert df["rtt_s"].iloc[0] == pytest.approx(1.0295)
    assert df["cc"].tolist() == ["reno", "reno"]
    one = m.read_ss(DATA / "ss_oneline.txt")
    assert one["cwnd_segments"].tolist() == [88]
    assert one["send_bps"].iloc[0] == pytest.approx(1.3e9)
    assert one["cc"].iloc[0] == "bbr"
    assert m.read_ss(DATA / "ss_old.txt", port=9).empty


def test_ss_skmem_before_the_congestion_control_name():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no pandas warning about a string in a float column
        df = m.read_ss(DATA / "ss_skmem.txt")  # ss -tinm: "skmem:(...) bbr wscale:10,10 ..."
    assert df["cc"].tolist() == ["bbr", "bbr"]
    assert df["cwnd_segments"].tolist() == [13, 40]
    assert df["rtt_s"].tolist() == pytest.approx([0.000295, 0.000541])
    assert df["state"].tolist() == ["", ""]
    none = m.read_ss("ESTAB 0 0 10.0.0.1:40000 10.0.0.2:5201\n\t wscale:7,7 rto:204 rtt:5.1/0.5 cwnd:10\n")
    assert none["cc"].tolist() == [""]


def test_ss_recorded():
    df = m.read_ss(RECORDED / "ss_tin.txt", port=5201)
    assert df["sample"].nunique() >= 5
    assert df["cwnd_segments"].max() > 10


# --------------------------------------------------------------------------------------
# tc and qlen


def test_tc_text_samples_kb_backlog_and_repeated_qdisc():
    df = m.read_tc_qdisc(DATA / "tc_samples.txt")
    fifo = df[df["kind"] == "pfifo"]
    assert fifo["sample"].tolist() == [0, 1, 2]
    assert fifo["drops"].tolist() == [0, 4, 9]
    assert fifo["backlog_packets"].tolist() == [10, 20, 19]
    assert fifo["backlog_bytes"].tolist() == [15140, 29 * 1024, 28766]
    assert fifo["time_s"].tolist()[:2] == [1709634200.0, 1709634200.1]
    assert fifo["parent"].unique().tolist() == ["1:10"]
    assert df[df["kind"] == "htb"]["parent"].unique().tolist() == ["root"]


def test_tc_red_marks_and_dev():
    df = m.read_tc_qdisc(DATA / "tc_red.txt")
    red = df[df["kind"] == "red"].iloc[0]
    assert (red["marked"], red["early_drops"], red["backlog_packets"], red["dev"]) == (40, 25, 30, "r1-eth1")
    assert math.isnan(df[df["kind"] == "htb"]["marked"].iloc[0])


def test_tc_json_with_stamps_matches_text_semantics():
    df = m.read_tc_qdisc(DATA / "tc_samples.json")
    fifo = df[df["kind"] == "pfifo"]
    assert fifo["backlog_packets"].tolist() == [10, 20]
    assert fifo["drops"].tolist() == [0, 3]
    assert fifo["time_s"].tolist() == [1709634300.0, 1709634301.0]
    rec = m.read_tc_qdisc(RECORDED / "tc_s_qdisc.json")
    assert set(rec["kind"]) == {"htb", "pfifo"}


def test_tc_truncated_json():
    with pytest.raises(MeasurementFormatError, match="truncated"):
        m.read_tc_qdisc('[{"kind":"pfifo","handle":"10:",\n')


def test_tc_class_counters_never_go_to_the_qdisc_before_them():
    df = m.read_tc_qdisc(DATA / "tc_with_classes.txt")
    assert df.attrs["malformed"] == {"count": 0, "lines": []}
    assert df["object"].tolist() == ["qdisc", "class", "class", "qdisc", "qdisc", "class", "qdisc"]
    assert df["sample"].tolist() == [0, 0, 0, 0, 1, 1, 1]
    htb = df[(df["object"] == "qdisc") & (df["kind"] == "htb")]
    assert htb["bytes"].tolist() == [300000, 450000]
    assert htb["packets"].tolist() == [200, 300]
    assert htb["drops"].tolist() == [5, 9]
    assert htb["backlog_packets"].tolist() == [4, 19]
    fifo = df[df["kind"] == "pfifo"]  # its counters, not the filter action's after it
    assert fifo["bytes"].tolist() == [296000, 421500]
    assert fifo["drops"].tolist() == [5, 9]
    assert fifo["backlog_bytes"].tolist() == [6056, 28766]
    classes = df[df["object"] == "class"]
    assert classes["handle"].tolist() == ["1:1", "1:10", "1:10"]
    assert classes["parent"].tolist() == ["root", "1:1", "1:1"]
    assert classes["bytes"].tolist() == [299000, 297000, 420000]
    assert classes["drops"].tolist() == [0, 0, 1]
    assert classes["time_s"].tolist() == [1710000000.0, 1710000000.0, 1710000001.0]
    assert m.read(DATA / "tc_with_classes.txt").attrs["format"] == "tc_qdisc"


def test_tc_json_classes():
    df = m.read_tc_qdisc(DATA / "tc_class.json")
    assert df["object"].tolist() == ["class", "class"]
    assert df["kind"].tolist() == ["htb", "htb"]
    assert df["handle"].tolist() == ["1:1", "1:10"]
    assert df["parent"].tolist() == ["root", "1:1"]
    assert df["drops"].tolist() == [0, 2]
    assert df["backlog_packets"].tolist() == [0, 1]
    assert df["backlog_bytes"].tolist() == [0, 1514]
    assert m.read(DATA / "tc_class.json").attrs["format"] == "tc_qdisc"


def test_qlen_header_and_malformed_line():
    with pytest.warns(MalformedLinesWarning):
        df = m.read_qlen(DATA / "qlen.txt")
    assert df["backlog_packets"].tolist() == [0, 7, 20, 19]
    assert df["time_s"].iloc[1] == pytest.approx(1709634400.1)
    assert df.attrs["malformed"]["lines"] == [5]


# --------------------------------------------------------------------------------------
# ns-3


def test_ns3_quantity_from_file_name():
    cwnd = m.read_ns3(DATA / "ns3-cwnd.data")
    assert cwnd.columns.tolist() == ["time_s", "cwnd_bytes"]
    assert cwnd["cwnd_bytes"].tolist() == [0, 536, 1072, 1608, 536, 804]
    ssth = m.read_ns3(DATA / "ns3-ssth.data")
    assert ssth["ssthresh_bytes"].isna().tolist() == [False, True, False]
    rtt = m.read_ns3(DATA / "ns3-rtt.data")
    assert rtt["rtt_s"].iloc[1] == pytest.approx(0.1024)


def test_ns3_old_new_tabs_and_units():
    df = m.read_ns3(DATA / "ns3_oldnew.cwnd")
    assert df.columns.tolist() == ["time_s", "cwnd_bytes", "cwnd_before_bytes"]
    assert df["cwnd_before_bytes"].tolist() == [0, 536, 1072, 1608, 536]
    seg = m.read_ns3(DATA / "ns3_oldnew.cwnd", unit="segments")
    assert "cwnd_segments" in seg.columns
    ms = m.read_ns3("0 100\n1 250\n", quantity="rtt", unit="ms")
    assert ms["rtt_s"].tolist() == [0.1, 0.25]
    with pytest.raises(ValueError, match="quantity"):
        m.read_ns3("0 1\n", quantity="bananas")
    with pytest.raises(ValueError, match="unit"):
        m.read_ns3("0 1\n", quantity="rtt", unit="bytes")


def test_ns3_mixed_garbage_goes_line_by_line():
    with pytest.warns(MalformedLinesWarning):
        df = m.read_ns3("0 1\n# comment\n1 2 3\nnot numbers\n2.5e0 4\n", quantity="value")
    assert df["value"].tolist() == [1, 3, 4]
    assert df.attrs["malformed"]["lines"] == [4]


# --------------------------------------------------------------------------------------
# tshark


def test_tshark_csv_analysis_flags_ecn():
    df = m.read_tshark(DATA / "tshark.csv")
    assert df["src"].iloc[0] == "10.0.0.1:45000"
    assert df["retransmission"].tolist() == [False, False, False, False, True, False]
    assert df["duplicate_ack"].tolist() == [False, False, False, True, False, False]
    assert df["ecn"].iloc[:5].tolist() == [2, 0, 3, 0, 2]
    assert df["ece"].iloc[3] and df["cwr"].iloc[4]
    assert df["rtt_s"].iloc[1] == pytest.approx(1e-4)
    assert df["bytes_in_flight"].iloc[4] == 2896
    assert math.isnan(df["bytes"].iloc[5])  # a non-TCP frame


def test_tshark_tab_separated_ipv6_true_false_booleans():
    df = m.read_tshark(DATA / "tshark.tsv")
    assert df["src"].iloc[0] == "[2001:db8::1]:45100"
    assert df["ece"].tolist() == [False, True, False]
    assert df["retransmission"].tolist() == [False, False, True]
    assert df["time_s"].iloc[0] == pytest.approx(1709634500.0)
    assert df["rwnd_bytes"].tolist() == [65535] * 3


def test_tshark_recorded_and_bad_header():
    df = m.read_tshark(RECORDED / "tshark_fields.csv.gz")
    assert len(df) > 100
    assert df["duplicate_ack"].any()
    with pytest.raises(MeasurementFormatError, match="line 1.*header of tshark field names"):
        m.read_tshark("a,b,c\n1,2,3\n")


def test_tshark_rows_with_wrong_field_count_are_malformed():
    text = "frame.time_relative,tcp.len\n0.1,100\n0.2,100,7\n0.3,200\n"
    with pytest.warns(MalformedLinesWarning):
        df = m.read_tshark(text)
    assert df["bytes"].tolist() == [100, 200]
    assert df.attrs["malformed"]["lines"] == [3]


def test_tshark_occurrence_a_values_in_a_field():
    # -E separator=, without quotes: the ICMP error's two IP headers add a field to line 4
    df = m.read_tshark(DATA / "tshark_occurrence_a.csv")
    assert df.attrs["malformed"] == {"count": 0, "lines": []}
    assert df["src"].tolist() == ["10.0.0.1:40000", "10.0.0.2:5201", "10.0.0.254:40000"]
    assert df["dst"].tolist() == ["10.0.0.2:5201", "10.0.0.1:40000", "10.0.0.1:5201"]
    assert df["bytes"].tolist() == [1448, 0, 0]
    assert df["rtt_s"].iloc[1] == pytest.approx(0.01)
    # tab separated (or quoted): the first occurrence of a known field, all of an unknown one
    text = ("frame.time_relative\tip.src\ttcp.len\ttcp.options.sack_le\n"
            "0.1\t10.0.0.3,10.0.0.1\t0\t1449,2897\n0.2\t10.0.0.1\t1448\t\n")
    tsv = m.read_tshark(text)
    assert tsv["src"].tolist() == ["10.0.0.3", "10.0.0.1"]
    assert tsv["tcp_options_sack_le"].tolist()[0] == "1449,2897" and pd.isna(tsv["tcp_options_sack_le"].iloc[1])


# --------------------------------------------------------------------------------------
# inputs accepted by every reader


@pytest.mark.parametrize("kind", ["str_path", "pathlib", "text", "bytes", "text_stream", "binary_stream", "gzip"])
def test_every_kind_of_input(kind, tmp_path):
    path = DATA / "ping_plain.txt"
    raw = path.read_bytes()
    source = {
        "str_path": str(path),
        "pathlib": path,
        "text": raw.decode(),
        "bytes": raw,
        "text_stream": io.StringIO(raw.decode()),
        "binary_stream": io.BytesIO(raw),
    }.get(kind)
    if kind == "gzip":
        source = tmp_path / "ping.txt.gz"
        source.write_bytes(gzip.compress(raw))
    df = m.read_ping(source)
    assert df["seq"].tolist() == [1, 2, 4]
    assert m.read(source if kind not in ("text_stream", "binary_stream") else type(source)(source.getvalue())).attrs["format"] == "ping"


def test_crlf_and_bom():
    raw = "\ufeff" + (DATA / "labtool_udpclient.txt").read_text().replace("\n", "\r\n")
    assert len(m.read_labtool(raw)) == 4
    assert len(m.read_tcp_probe((DATA / "tcpprobe_proc11.txt").read_text().replace("\n", "\r\n"))) == 5


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError):
        m.read_ping(tmp_path / "nope.txt")
    with pytest.raises(MeasurementFormatError, match="directory"):
        m.read_ping(tmp_path)


def test_attrs_survive_and_are_plain_data():
    df = m.read_iperf3(DATA / "iperf3_client.json")
    copy = df.copy()
    assert copy.attrs["malformed"] == {"count": 0, "lines": []}
    pd.concat([df, df])  # attrs hold only plain data, so concatenation compares them safely


def test_gzip_binary_stream_for_the_vectorised_readers():
    raw = (DATA / "tcpprobe_proc11.txt").read_bytes()
    df = m.read_tcp_probe(io.BytesIO(gzip.compress(raw)))
    assert len(df) == 5


def test_tcp_probe_trace_with_only_its_header():
    with pytest.raises(MeasurementFormatError, match=r"line 1: not tcp_probe output"):
        m.read_tcp_probe("# tracer: nop\n#\n")


# ---------------------------------------------------------------------------------------
# ns-3: the block-wise pandas path gives the same frame as the line-by-line path


_NS3_TEXTS = [
    "0.0\t0\t536\n1.0093\t536\t1072\n\n# comment\n2.5 1072 2144\n",
    "# header comment\n0.0 536\n0.5 1072\n   \n1.25 1608\n",
    "0.0 0 536\n0.5 1072\n1.0 1072 2144\n",  # two and three numbers mixed
    "0.0 536\n0.5 1e999\n1.0 1072\n",  # an infinite value: a malformed line
]


@pytest.mark.parametrize("text", _NS3_TEXTS)
@pytest.mark.parametrize("quantity", ["cwnd", "ssthresh", "rtt"])
def test_ns3_fast_path_equals_slow_path(monkeypatch, text, quantity):
    import warnings

    from labcalc.measure import ns3

    with warnings.catch_warnings(record=True) as w_fast:
        warnings.simplefilter("always")
        fast = m.read_ns3(text, quantity=quantity)
    monkeypatch.setattr(ns3, "_fast_columns", lambda data: None)
    with warnings.catch_warnings(record=True) as w_slow:
        warnings.simplefilter("always")
        slow = m.read_ns3(text, quantity=quantity)
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.attrs.get("malformed_lines") == slow.attrs.get("malformed_lines")
    assert [str(x.message) for x in w_fast] == [str(x.message) for x in w_slow]


def test_ns3_fast_path_is_taken_on_plain_traces():
    from labcalc.measure import ns3

    cols = ns3._fast_columns(b"0.0 0 536\n# c\n1.0 536\n")
    assert cols is not None
    np.testing.assert_array_equal(cols[0], [0.0, 1.0])
    np.testing.assert_array_equal(cols[2][:1], [536.0])
    assert np.isnan(cols[2][1])
    # a line that is not numbers sends the whole file to the line-by-line reader
    assert ns3._fast_columns(b"0.0 536\nabc def\n") is None


# ---------------------------------------------------------------------------------------
# tc -s qdisc text: the blocks read in bulk give the rows of the line-by-line reader

_TC_BLOCK_TEXT = (
    "qdisc pfifo 10: parent 1:10 limit 100p\n"
    " Sent {b} bytes {p} pkt (dropped {d}, overlimits 0 requeues 0)\n"
    " backlog {bl}b {bp}p requeues {rq}\n"
)
_TC_ODD = [
    "# 1700000000.5\n",
    "\n",
    "qdisc fq_codel 0: dev eth0 root refcnt 2 limit 10240p flows 1024\n"
    " Sent 1000 bytes 10 pkt (dropped 1, overlimits 0 requeues 0)\n"
    " backlog 1.5Kb 2p requeues 0\n"
    "  maxpacket 1514 drop_overlimit 0 new_flow_count 3 ecn_mark 4\n",
    "filter parent 1: protocol ip pref 1 u32\n Sent 5 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)\n",
    " Sent 12x bytes 1 pkt (dropped 0, overlimits 0 requeues 0)\n",
    "qdisc pfifo 10: parent 1:10 limit 100p Sent 1 bytes 1 pkt (dropped 0, overlimits 0 requeues 0) backlog 0b 0p\n",
    "1700000001 qdisc pfifo 10: parent 1:10 Sent 7 bytes 1 pkt (dropped 0, overlimits 0) backlog 0b 0p requeues 0\n",
    "class htb 1:10 parent 1:1 leaf 10: prio 0 rate 10Mbit\n"
    " Sent 99 bytes 3 pkt (dropped 0, overlimits 0 requeues 0)\n"
    " backlog 0b 0p requeues 0\n",
    " backlog 99999999999999999999b 1p requeues 0\n",
]


def _tc_both(text, monkeypatch):
    from labcalc.measure import tc

    with warnings.catch_warnings(record=True) as w_fast:
        warnings.simplefilter("always")
        fast = m.read_tc_qdisc(text)
    # no line ever forms a regular block: every line goes through the line-by-line reader
    monkeypatch.setattr(tc, "_TC_BLOCK", re.compile(r"^(?!x)x()()()()()()()()()()|^(.*)$", re.M))
    with warnings.catch_warnings(record=True) as w_slow:
        warnings.simplefilter("always")
        slow = m.read_tc_qdisc(text)
    return fast, slow, [str(x.message) for x in w_fast], [str(x.message) for x in w_slow]


@pytest.mark.parametrize("seed", range(6))
def test_tc_bulk_blocks_equal_line_by_line(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    parts = []
    for k in range(200):
        if rng.random() < 0.25:
            parts.append(_TC_ODD[rng.integers(len(_TC_ODD))])
        else:
            parts.append(_TC_BLOCK_TEXT.format(b=rng.integers(0, 10**15), p=rng.integers(0, 10**6), d=rng.integers(0, 9),
                                               bl=rng.integers(0, 10**5), bp=rng.integers(0, 100),
                                               rq=rng.integers(0, 3)))
    text = "".join(parts)
    fast, slow, w_fast, w_slow = _tc_both(text, monkeypatch)
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.attrs == slow.attrs
    assert w_fast == w_slow
    assert len(fast) > 100


def test_tc_bulk_blocks_across_chunks(monkeypatch):
    from labcalc.measure import tc

    text = "# 1700000000\n" + "".join(_TC_BLOCK_TEXT.format(b=k, p=k, d=0, bl=0, bp=0, rq=0) for k in range(3000))
    text += _TC_ODD[2]
    monkeypatch.setattr(tc, "line_pieces", _small_chunks)  # about 1000 characters a piece
    fast, slow, w_fast, w_slow = _tc_both(text, monkeypatch)
    pd.testing.assert_frame_equal(fast, slow)
    assert fast["packets"].tolist()[:3] == [0, 1, 2]
    assert fast["sample"].iloc[-1] == 2999  # the fq_codel qdisc joins the last pfifo sample
    assert len(fast) == 3001


def _small_chunks(text):
    start = 0
    while True:
        stop = text.find("\n", start + 1000) if start + 1000 < len(text) else -1
        if stop < 0:
            yield text[start:]
            return
        yield text[start:stop]
        start = stop + 1


# ---------------------------------------------------------------------------------------
# labtool: the lines converted in bulk give the rows of the line-by-line patterns

_LABTOOL_LINES = [
    "  4.0s - sent:   503 pkts,  1000.0 kbits/s\n",
    "170.5s - received: 843/ sent: 867 pkts (loss 2.768%), 957.7 kbit/s\n",
    "  1.0s - received:   100 out of   102 pkts (loss  1.961%),  950.0 kb/s\n",
    "6.3: 854.0 kbps avg ( 944.5[inst], 926.5[mov.avg]) cwnd 9 rtt 83.9ms\n",
    "  2.0s - sent:   nan pkts,  nan kb/s\n",
    "  2.0s - sent:   12 pkts,  nan kb/s\n",
    "  2.0s - sent:   12 pkts,  inf kb/s\n",
    "  3.0s - sent:   " + "9" * 400 + " pkts,  1.0 kb/s\n",
    "  3.0s - sent:   12 pkts,  1" + "0" * 30 + ".5 kb/s\n",
    "garbage line\n",
    "\n",
    "\t \n",
    "  5.0S - SENT: 7 PKTS, 2.5 KBPS\n",
]


@pytest.mark.parametrize("seed", range(5))
def test_labtool_bulk_equals_line_by_line(monkeypatch, seed):
    from labcalc.measure import labtool

    rng = np.random.default_rng(seed)
    text = "".join(_LABTOOL_LINES[k] for k in rng.integers(0, len(_LABTOOL_LINES), 400))
    text += _LABTOOL_LINES[0]  # at least one good line

    def read():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            return m.read_labtool(text), [str(x.message) for x in w]

    fast, w_fast = read()
    monkeypatch.setattr(labtool, "_BULK", re.compile(r"^(?!x)x" + "()" * (labtool._BULK.groups - 1) + r"|^(.*)$", re.M))
    slow, w_slow = read()
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.attrs == slow.attrs
    assert w_fast == w_slow
    assert len(fast) > 100


# ---------------------------------------------------------------------------------------
# tshark: converting a block of rows at a time gives the frame of a file converted at once

_TSHARK_HEAD = ("frame.time_relative,ip.src,ipv6.src,ip.dst,tcp.srcport,tcp.dstport,tcp.seq,tcp.len,"
                "tcp.analysis.ack_rtt,tcp.analysis.retransmission,ip.dsfield.ecn,ipv6.tclass.ecn,my.field\n")
_TSHARK_ROWS = [
    '"0.000100000","10.0.0.1",,"10.0.0.2","45000","5201","1449","1448",,,"0",,"7"\n',
    '"0.2",,"fe80::1",,"45002","5201","1","0","0.001","1",,"2","8"\n',
    '"0.3","10.0.0.1",,"10.0.0.2","45000","5201","2897","1448","0.002",,"1",,"9"\n',
    '"0.4","10.0.0.3",,"10.0.0.2",,"5201","4345","1448",,"1","0",,""\n',
    '\n',
]


@pytest.mark.parametrize("extra", ["", '"0.5","10.0.0.1",,"10.0.0.2","45000","5201","1.5","1448",,,"0",,"x"\n',
                                   '"0.5","10.0.0.1",,"10.0.0.2","45000","5201","zz","1448",,,"0",,"1"\n',
                                   '"0.5","10.0.0.1",,"10.0.0.2","45000","5201","1","1448",,,"0",,"1,2"\n'])
def test_tshark_blocks_equal_one_block(monkeypatch, extra):
    from labcalc.measure import tshark

    rng = np.random.default_rng(3)
    rows = [_TSHARK_ROWS[k] for k in rng.integers(0, len(_TSHARK_ROWS), 300)]
    rows.insert(150, extra)
    text = _TSHARK_HEAD + "".join(rows)

    def read():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                return m.read_tshark(text), [str(x.message) for x in w]
            except m.MeasurementFormatError as exc:
                return str(exc), [str(x.message) for x in w]

    monkeypatch.setattr(tshark, "_ROWS_PER_BLOCK", 7)
    small = read()
    monkeypatch.setattr(tshark, "_ROWS_PER_BLOCK", 10**6)
    one = read()
    if isinstance(one[0], str):
        assert small[0] == one[0] and "not a finite number" in one[0]
    else:
        pd.testing.assert_frame_equal(small[0], one[0])
        assert small[0].attrs == one[0].attrs
        assert len(one[0]) > 200
    assert small[1] == one[1]


# ---------------------------------------------------------------------------------------
# ss: rows converted to columns a block at a time give the frame of rows kept to the end

_SS_PARTS = [
    "# 1700000000.5\n",
    "State Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n",
    "ESTAB 0 86880 10.0.0.1:40000 10.0.0.2:5201\n\t cubic wscale:7,7 rto:208 rtt:5/0.5 mss:1448 cwnd:10 "
    "ssthresh:30 bytes_acked:1200000 send 95.0Mbps retrans:0/3\n",
    "ESTAB 0 0 10.0.0.1:40002 10.0.0.2:5201\n\t bbr rtt:7.5/1 cwnd:20 app_limited delivery_rate 1.5Mbps\n",
    "ESTAB 0 0 10.0.0.1:40004 10.0.0.2:5201\n",  # no TCP info: dropped
    "ESTAB 0 0 10.0.0.1:40006 10.0.0.2:5201\n\t reno rtt:1e999/1 cwnd:5\n",  # overflows: malformed
    "ESTAB 0 0 10.0.0.1:40008 10.0.0.2:5201\n\t rtt:abc cwnd:x\n",
    "something else\n",
]


@pytest.mark.parametrize("seed", range(3))
def test_ss_blocks_equal_rows_at_once(monkeypatch, seed):
    from labcalc.measure import ss

    rng = np.random.default_rng(seed)
    text = "".join(_SS_PARTS[k] for k in rng.integers(0, len(_SS_PARTS), 300)) + _SS_PARTS[2]

    def read():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            return m.read_ss(text), [str(x.message) for x in w]

    monkeypatch.setattr(ss, "_ROWS_PER_BLOCK", 3)
    small, w_small = read()
    monkeypatch.setattr(ss, "_ROWS_PER_BLOCK", 10**9)
    once, w_once = read()
    pd.testing.assert_frame_equal(small, once)
    assert small.attrs == once.attrs
    assert w_small == w_once
    assert len(once) > 50


# ---------------------------------------------------------------------------------------
# iperf 2 text: rows turned into columns a block at a time give the frame of rows kept to the end

_IPERF2_TEXTS = sorted(p.name for p in Path(__file__).parent.joinpath("data", "measure").glob("iperf2_*.txt"))


@pytest.mark.parametrize("fname", _IPERF2_TEXTS)
def test_iperf2_blocks_equal_rows_at_once(monkeypatch, fname):
    from labcalc.measure import iperf2

    path = Path(__file__).parent / "data" / "measure" / fname
    text = path.read_text() + "\n[  3]  0.0- 1.0 sec  1e999 MBytes  9.44 Mbits/sec\nnot iperf\n" + path.read_text()

    def read():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                return m.read_iperf(text), [str(x.message) for x in w]
            except m.MeasurementFormatError as exc:
                return str(exc), [str(x.message) for x in w]

    monkeypatch.setattr(iperf2, "_ROWS_PER_BLOCK", 1)
    monkeypatch.setattr(iperf2, "_LOOK_BACK", 1)
    small, w_small = read()
    monkeypatch.setattr(iperf2, "_ROWS_PER_BLOCK", 10**9)
    once, w_once = read()
    if isinstance(once, str):
        assert small == once
    else:
        pd.testing.assert_frame_equal(small, once)
        assert small.attrs == once.attrs
    assert w_small == w_once


# ---------------------------------------------------------------------------------------
# ss: the fast path (socket and TCP info lines of the usual shape, a block at a time) gives
# the frame, attrs and warnings of the line-by-line parser, odd lines mixed in

_SS_FAST_PARTS = _SS_PARTS + [
    "ESTAB 0 0 10.0.0.1:40010 10.0.0.2:5201\n\t ts sack ecn bbr wscale:7,7 rto:204 rtt:0.2/0.1 ato:40 mss:1448 "
    "pmtu:1500 rcvmss:536 advmss:1448 cwnd:10 bytes_sent:100 bytes_retrans:7 bytes_acked:90 bytes_received:1 "
    "segs_out:3 send 579.2Mbps lastsnd:8 pacing_rate 1.1Gbps delivery_rate 12kbps app_limited busy:4ms "
    "unacked:2 retrans:1/4 lost:3 rcv_space:14480 minrtt:0.15\n",
    "ESTAB 0 0 10.0.0.1:40012 10.0.0.2:5201\n\t skmem:(r0,rb131072,t0,tb87040) cubic rtt:3/1 cwnd:7 rtt:4 retrans:0/1 retrans:2/5\n",
    "ESTAB 0 0 10.0.0.1:40014 10.0.0.2:5201\n\t cubic rtt:3/1 cwnd:7 retrans:2\n",  # retrans without total
    "ESTAB 0 0 10.0.0.1:40016 10.0.0.2:5201\n\t rtt:3/1 cwnd:7 reno\n",  # a bare word after the first key
    "ESTAB 0 0 10.0.0.1:40018 10.0.0.2:5201\n\t cubic cwnd:7 send 5Mbps pacing_rate_max 9Mbps\n",
    "ESTAB 0 0 10.0.0.1:40020 10.0.0.2:5201\n\t cubic rtt:3/1 cwnd:99999999999999999999\n",
    "ESTAB 0 0 10.0.0.1:40022 10.0.0.2:5201\r\n\t cubic rtt:3/1 cwnd:7 \r\n",
    "ESTAB 0 0 10.0.0.1:40024 10.0.0.2:5201\n\t cubic rtt:3/1 cwnd:7\nminrtt:1.5 lost:4\n",  # info continued
    "ESTAB 0 0 10.0.0.1:40026 10.0.0.2:5201\n\t cubic rtt:3/1 cwnd:7\n\n\t unacked:5\n",
    "ESTAB 0 0 10.0.0.1:40028 10.0.0.2:5201\n\t wscale:7,7 cubic rtt:3/1 cwnd:7 users:((\"iperf3\",pid=1,fd=5))\n",
    "1700000001.25\n",
    "\n",
    "CLOSE-WAIT 1 2 [::1]:22 [::1]:50000\n\t ecnseen dctcp rtt:0.05/0.01 cwnd:1 ssthresh:2 send 1bps\n",
]


@pytest.mark.parametrize("seed", range(6))
def test_ss_fast_path_equals_line_by_line(monkeypatch, seed):
    from labcalc.measure import ss

    rng = np.random.default_rng(seed)
    text = "".join(_SS_FAST_PARTS[k] for k in rng.integers(0, len(_SS_FAST_PARTS), 400)) + _SS_FAST_PARTS[-1]

    def read():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            return m.read_ss(text), [str(x.message) for x in w]

    monkeypatch.setattr(ss, "_FAST_ENABLED", False)
    slow, w_slow = read()
    monkeypatch.setattr(ss, "_FAST_ENABLED", True)
    monkeypatch.setattr(ss, "_BLOCK_CHARS", int(rng.integers(50, 3000)))  # many blocks, cut anywhere
    fast, w_fast = read()
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.attrs == slow.attrs
    assert w_fast == w_slow
    assert len(slow) > 100 and slow.attrs["malformed"]["count"] > 0


def test_ss_fast_path_reads_the_usual_lines():
    """The lines of the usual shape do go through the fast path, and read right."""
    from labcalc.measure import ss

    text = _SS_FAST_PARTS[len(_SS_PARTS)] * 3
    assert len(ss._FAST_SS.findall(text)) == 4 and all(t[1] for t in ss._FAST_SS.findall(text)[:3])
    df = m.read_ss(text)
    row = df.iloc[0]
    assert row["cc"] == "bbr" and row["cwnd_segments"] == 10 and row["bytes_retrans"] == 7.0
    assert row["rtt_s"] == pytest.approx(0.2e-3, rel=1e-12) and row["minrtt_s"] == pytest.approx(0.15e-3, rel=1e-12)
    assert row["pacing_rate_bps"] == pytest.approx(1.1e9, rel=1e-12) and row["rate_bps"] == pytest.approx(12e3)
    assert row["retrans_outstanding"] == 1 and row["retransmits"] == 4 and row["lost_packets"] == 3
    assert bool(row["app_limited"]) and row["unacked_packets"] == 2
    assert df["sample"].tolist() == [0, 0, 0]


@pytest.mark.parametrize("seed", range(2))
def test_ss_fast_path_equals_line_by_line_on_mutated_lines(monkeypatch, seed):
    from labcalc.measure import ss

    rng = np.random.default_rng(100 + seed)
    tokens = ("rtt:1/2", "cwnd:3", "retrans:1", "send", "app_limited", "skmem:(x)", "1e999", "sec", "0.0-1.0",
              "[SUM]")
    for _ in range(150):
        text = mutate_tokens(rng, "".join(_SS_FAST_PARTS[k] for k in rng.integers(0, len(_SS_FAST_PARTS), 20)),
                             "0123456789:/.\t\n\r abcx-[]Mk", tokens)
        assert_fast_path_equals_slow(monkeypatch, ss, m.read_ss, m.MeasurementFormatError, text,
                                     int(rng.integers(20, 400)))


@pytest.mark.parametrize("at", [0, 5])
def test_tcp_probe_tracepoint_line_without_keys_is_a_skipped_line(at):
    # found by the property suite: a "tcp_probe:" line holding no key=value made the
    # vectorised path index a column of nothing (IndexError); it is one malformed line
    lines = gzip.open(RECORDED / "tcp_probe_trace.txt.gz", "rt").read().splitlines()
    probes = [ln for ln in lines if "tcp_probe:" in ln][:20]
    bare = "          iperf3-21819   [000] .....  2245.588000: tcp_probe: no keys here"
    text = "\n".join(probes[:at] + [bare] + probes[at:]) + "\n"
    with pytest.warns(MalformedLinesWarning):
        df = m.read_tcp_probe(text)
    assert len(df) == 20
    assert df.attrs["malformed"]["count"] == 1 and df.attrs["malformed"]["lines"] == [at + 1]


def test_tcp_probe_long_word_after_the_event_is_one_malformed_line():
    # the key=value pattern restarted inside a 400 KB word at every byte (quadratic: 948 s);
    # keys now start a word
    lines = gzip.open(RECORDED / "tcp_probe_trace.txt.gz", "rt").read().splitlines()
    probes = [ln for ln in lines if "tcp_probe:" in ln][:6]
    bad = "          iperf3-1 [000] ..s1. 2245.5: tcp_probe: " + "x" * 400_000
    with pytest.warns(MalformedLinesWarning):
        df = m.read_tcp_probe("\n".join(probes[:3] + [bad] + probes[3:]) + "\n")
    assert len(df) == 6 and df.attrs["malformed"] == {"count": 1, "lines": [4]}
