"""Framing: the handout's frame sizes and goodputs, standards, and bad input."""

import math

import pytest
from hypothesis import given, strategies as st

from labcalc import framing
from labcalc.framing import frame, max_goodput_bps, packets_per_second, payload_for_mtu, segment_frames


# --- lab handout (../shared/reference/lab5_seed_values.toml, [theory] and [measured]) ---

def test_handout_q3_udp_frame_is_1066_bytes():
    assert frame(1000, "udp").wire_bytes == 1066


def test_handout_q4_udp_max_goodput_4690_kbps():
    # handout prints 4690 kbit/s (rounded to 10 kbit/s)
    assert max_goodput_bps(5e6, 1000) == pytest.approx(4690e3, abs=5e3)
    assert max_goodput_bps(5e6, 1000) == pytest.approx(5e6 * 1000 / 1066, rel=1e-15)


def test_handout_q8_tcp_frame_is_2986_bytes():
    assert frame(2896, "tcp", tcp_options_bytes=12).wire_bytes == 2986


def test_handout_q9_tcp_max_goodput_4850_kbps():
    # handout: 5000 x 2896/2986 = 5000 x 0.97 = 4850 (its rounding of 0.9699 to 0.97)
    assert max_goodput_bps(5e6, 2896, "tcp", tcp_options_bytes=12) == pytest.approx(4850e3, rel=0.001)


def test_handout_q7_measured_udp_goodput_is_the_shaper_accounting():
    # measured 4798 kbit/s at 5, 10 and 20 Mbit/s offered: the tc shaper counts 1042 bytes
    assert frame(1000).tc_bytes == 1042
    assert max_goodput_bps(5e6, 1000, accounting="tc") == pytest.approx(4798e3, abs=1e3)
    # and it is clearly not the wire accounting
    assert abs(max_goodput_bps(5e6, 1000) - 4798e3) > 100e3


def test_handout_q10_measured_tcp_goodput_is_one_mss_per_frame_under_tc():
    # measured 4782 kbit/s: 1448-byte MSS, 1514 bytes charged by the shaper
    g = max_goodput_bps(5e6, 2896, "tcp", tcp_options_bytes=12, accounting="tc", mss_bytes=1448)
    assert g == pytest.approx(4782e3, abs=1e3)


# --- standards -----------------------------------------------------------------------

def test_layer_sizes_udp_ipv4():
    f = frame(1000)
    assert (f.ip_bytes, f.tc_bytes, f.frame_bytes, f.wire_bytes) == (1028, 1042, 1046, 1066)
    assert f.overhead_bytes == 66


def test_minimum_frame_padding():
    # 18 bytes of UDP data is exactly the 64-byte minimum frame; less is padded
    assert frame(18).frame_bytes == 64 and frame(18).padding_bytes == 0
    assert frame(0).frame_bytes == 64 and frame(0).padding_bytes == 18
    # TCP ACK without data: 14 + 20 + 20 + 4 = 58 -> 6 bytes of padding
    assert frame(0, "tcp").padding_bytes == 6
    # the shaper does not see padding
    assert frame(0).tc_bytes == 42


def test_64_byte_frames_line_rate_10g():
    # IEEE 802.3: 14,880,952.38 minimum frames per second at 10 Gbit/s
    assert packets_per_second(10e9, 18) == pytest.approx(10e9 / (84 * 8), rel=1e-15)
    assert round(packets_per_second(10e9, 18)) == 14_880_952


def test_vlan_ipv6_and_options():
    assert frame(1000, vlan=True).wire_bytes == 1070
    assert frame(1000, ip="v6").ip_bytes == 1048
    assert frame(1000, "tcp", tcp_options_bytes=12).transport_header_bytes == 32
    # a VLAN-tagged minimum frame is still 64 bytes (the tag counts towards the minimum)
    assert frame(0, vlan=True).frame_bytes == 64


def test_mss_and_jumbo_frames():
    assert payload_for_mtu(1500, "tcp") == 1460
    assert payload_for_mtu(1500, "tcp", tcp_options_bytes=12) == 1448
    assert payload_for_mtu(1500, "udp") == 1472
    assert payload_for_mtu(1500, "tcp", "v6") == 1440
    assert payload_for_mtu(9000, "tcp") == 8960
    # jumbo frames: efficiency of a 9000-byte MTU TCP stream on the wire
    assert frame(8960, "tcp").efficiency() == pytest.approx(8960 / 9038, rel=1e-15)


def test_segmentation_offload_2896_is_two_1448_frames():
    train = segment_frames(2896, 1448, tcp_options_bytes=12)
    assert [f.payload_bytes for f in train.frames] == [1448, 1448]
    assert train.wire_bytes == 2 * 1538
    assert train.efficiency() == pytest.approx(1448 / 1538, rel=1e-15)
    # remainder frame
    assert [f.payload_bytes for f in segment_frames(3000, 1448).frames] == [1448, 1448, 104]


def test_accountings_are_ordered():
    f = frame(500, "tcp")
    sizes = [f.bytes(a) for a in ("ip", "tc", "frame", "wire")]
    assert sizes == sorted(sizes)


@given(
    payload=st.integers(0, 65000),
    transport=st.sampled_from(["udp", "tcp"]),
    ip=st.sampled_from(["v4", "v6"]),
    vlan=st.booleans(),
)
def test_frame_invariants(payload, transport, ip, vlan):
    f = frame(payload, transport, ip, vlan=vlan)
    assert f.frame_bytes >= framing.MIN_FRAME_BYTES
    assert f.wire_bytes == f.frame_bytes + 20
    assert f.frame_bytes == max(f.tc_bytes + 4, 64)
    assert 0 <= f.efficiency("wire") <= f.efficiency("frame") <= f.efficiency("tc") <= f.efficiency("ip") < 1


@given(st.integers(1, 60000), st.integers(1, 9000))
def test_segment_train_conserves_payload(payload, mss):
    train = segment_frames(payload, mss)
    assert train.payload_bytes == payload
    assert len(train.frames) == math.ceil(payload / mss)


def test_table_lists_every_layer():
    table = frame(1000).table()
    assert int(table.loc["payload", "bytes"]) == 1000
    assert int(table.loc["tc (Linux shaper)", "bytes"]) == 1042


# --- bad input -------------------------------------------------------------------------

@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(payload_bytes=-1), "payload_bytes"),
        (dict(payload_bytes=10.5), "payload_bytes"),
        (dict(payload_bytes=float("nan")), "payload_bytes"),
        (dict(payload_bytes=100, transport="sctp"), "transport"),
        (dict(payload_bytes=100, ip="v5"), "ip"),
        (dict(payload_bytes=100, transport="tcp", tcp_options_bytes=10), "tcp_options_bytes"),
        (dict(payload_bytes=100, transport="tcp", tcp_options_bytes=44), "tcp_options_bytes"),
        (dict(payload_bytes=100, transport="udp", tcp_options_bytes=12), "tcp_options_bytes"),
        (dict(payload_bytes=70000), "payload_bytes"),
    ],
)
def test_frame_rejects_bad_input(kwargs, field):
    with pytest.raises(ValueError, match=field):
        frame(**kwargs)


def test_bad_accounting_and_rate():
    with pytest.raises(ValueError, match="accounting.*'bits'"):
        frame(100).efficiency("bits")
    with pytest.raises(ValueError, match="link_bps.*-5"):
        max_goodput_bps(-5, 1000)
    with pytest.raises(ValueError, match="link_bps.*inf"):
        packets_per_second(math.inf, 1000)
    with pytest.raises(ValueError, match="mtu.*1000"):
        payload_for_mtu(1000, "tcp", "v6")
    with pytest.raises(ValueError, match="mss_bytes"):
        segment_frames(2896, 0)
