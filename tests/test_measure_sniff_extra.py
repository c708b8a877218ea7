"""Format recognition of piped/stamped outputs: iperf headers without banner, epoch-stamped
ping, ``echo $(tc -s qdisc)`` samples."""

import pytest

from labcalc.measure._dispatch import sniff_format

IPERF3_HDR = "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
IPERF3_HDR_NOCWND = "[ ID] Interval           Transfer     Bitrate\n"
IPERF3_LINE = "[  5]   0.00-1.00   sec  1.12 MBytes  9.38 Mbits/sec    0   84.8 KBytes\n"
IPERF3_LINE_NOCWND = "[  5]   0.00-1.00   sec  1.12 MBytes  9.38 Mbits/sec\n"
IPERF2_HDR = "[ ID] Interval       Transfer     Bandwidth\n"
IPERF2_LINE = "[  3]  0.0- 1.0 sec  1.25 MBytes  10.5 Mbits/sec\n"


@pytest.mark.parametrize("text, fmt", [
    (IPERF3_HDR + IPERF3_LINE, "iperf3"),
    (IPERF3_HDR_NOCWND + IPERF3_LINE_NOCWND, "iperf3"),
    (IPERF3_HDR, "iperf3"),
    (IPERF3_HDR_NOCWND, "iperf3"),
    (IPERF3_LINE * 3, "iperf3"),
    (IPERF3_LINE_NOCWND * 3, "iperf3"),
    # iperf3 3.0 still called the column "Bandwidth" but had Retr/Cwnd
    ("[ ID] Interval           Transfer     Bandwidth       Retr  Cwnd\n" + IPERF3_LINE, "iperf3"),
    (IPERF2_HDR + IPERF2_LINE, "iperf"),
    (IPERF2_HDR, "iperf"),
    (IPERF2_LINE * 3, "iperf"),
])
def test_iperf_text_starting_with_bracket_is_not_json(text, fmt):
    assert sniff_format(text) == fmt


def test_epoch_stamped_ping():
    text = ("1741592039.956881406 PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
            "1741592039.957 64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.05 ms\n")
    assert sniff_format(text) == "ping"
    assert sniff_format(text.splitlines()[0] + "\n") == "ping"


@pytest.mark.parametrize("prefix", ["", "1741592039.956 ", "1741592039 "])
def test_flattened_tc_qdisc(prefix):
    sample = ("qdisc htb 1: root refcnt 2 r2q 10 default 0x10 direct_packets_stat 0 direct_qlen 1000 "
              "Sent 4242 bytes 42 pkt (dropped 1, overlimits 3 requeues 0) backlog 1514b 1p requeues 0 "
              "qdisc pfifo 10: parent 1:10 limit 100p Sent 4242 bytes 42 pkt (dropped 1, overlimits 0 "
              "requeues 0) backlog 1514b 1p requeues 0")
    text = "".join(f"{prefix}{sample}\n" for _ in range(3))
    assert sniff_format(text) == "tc_qdisc"


@pytest.mark.parametrize("text, fmt", [
    ('[{"kind":"htb","handle":"1:"}]\n', "tc_qdisc"),
    ('{"start": {}, "intervals": []}\n', "iperf3"),
    ("1574985185.025867,0\n1574985185.130535,20\n", "qlen"),
    ("0.5 3400\n0.6 3740\n", "ns3"),
])
def test_previous_recognitions_unchanged(text, fmt):
    assert sniff_format(text) == fmt
