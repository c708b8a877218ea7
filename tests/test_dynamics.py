"""labcalc.dynamics: the time-domain models against their closed forms and invariants."""

from __future__ import annotations

import math

import pytest

from labcalc import dynamics, tcp


def test_sawtooth_reno_period_matches_the_closed_form():
    # no base RTT: the pipe is all queue, RTT = W S 8 / C, and a cycle lasts 3 S W^2 / (8 C)
    v = dynamics.sawtooth(1.5e6, 1e-9, 100)
    size, rate = v["packet_bytes"], v["rate_bps"]
    w = v["w_max_packets"]
    assert v["period_s"] == pytest.approx(3 * size * 8 * w * w / (8 * rate), rel=1e-3)
    assert v["utilisation"] == pytest.approx(1.0)
    assert v["w_min_packets"] == pytest.approx(w / 2)
    assert v["full_buffer_delay_s"] == pytest.approx(100 * size * 8 / rate)


def test_sawtooth_small_buffer_leaves_the_link_idle():
    v = dynamics.sawtooth(10e6, 0.1, 5)          # BDP ~ 83 packets, buffer 5: halving empties the pipe
    assert 0.75 < v["utilisation"] < 0.85             # 3/4 with no buffer at all
    assert v["min_rtt_s"] == pytest.approx(0.1)


def test_sawtooth_cubic_period_is_k_plus_the_convex_step():
    v = dynamics.sawtooth(1.5e6, 1e-9, 100, algorithm="cubic")
    assert v["k_s"] == pytest.approx(tcp.cubic_k(v["w_max_packets"]), rel=1e-9)
    assert v["period_s"] == pytest.approx(v["k_s"] + (1 / 0.4) ** (1 / 3), rel=0.02)


def test_sawtooth_mathis_agrees_with_the_fluid_rate_when_the_link_is_full():
    v = dynamics.sawtooth(1.5e6, 0.03, 100)
    assert v["model_rate_bps"] == pytest.approx(v["avg_rate_bps"], rel=0.06)


@pytest.mark.parametrize("kwargs", [dict(rate_bps=0), dict(base_rtt_s=-1), dict(buffer_packets=-1),
                                    dict(algorithm="bbr"), dict(beta=1.0)])
def test_sawtooth_rejects_bad_input(kwargs):
    with pytest.raises(ValueError):
        dynamics.sawtooth(**{"rate_bps": 1.5e6, "base_rtt_s": 0.03, "buffer_packets": 100, **kwargs})


def test_download_rounds_and_time():
    v = dynamics.page_download(178_000, rtt_s=0.1, share_bps=1e9)   # window-limited: every round is an RTT
    assert [n for n, _ in v["rounds"]] == [10, 20, 40, 53]
    assert v["segments"] == math.ceil(178_000 / 1448)
    assert v["time_s"] == pytest.approx(0.2 + 3 * 0.1 + 53 * 1514 * 8 / 1e9, rel=1e-9)
    slow = dynamics.page_download(178_000, rtt_s=0.001, share_bps=1e6)      # rate-limited: the page / the rate
    assert slow["time_s"] == pytest.approx(0.002 + 123 * 1514 * 8 / 1e6, rel=1e-9)


def test_aimd_shares():
    s = dynamics.aimd_shares((0.5, 0.5))
    assert s["equal_loss"] == pytest.approx([0.5, 0.5]) and s["synchronised"] == pytest.approx([0.5, 0.5])
    s = dynamics.aimd_shares((0.5, 5 / 6))
    ratio = tcp.aimd_rate_bps(1000, 0.1, 0.01, 1, 5 / 6) / tcp.aimd_rate_bps(1000, 0.1, 0.01, 1, 0.5)
    assert s["equal_loss"][1] / s["equal_loss"][0] == pytest.approx(ratio)
    assert s["synchronised"][1] / s["synchronised"][0] == pytest.approx(11 / 3)
    rtt = dynamics.aimd_shares((0.5, 0.5), rtt_s=(0.2, 0.1))
    assert rtt["equal_loss"][1] / rtt["equal_loss"][0] == pytest.approx(2)
    assert rtt["synchronised"][1] / rtt["synchronised"][0] == pytest.approx(4)
    with pytest.raises(ValueError):
        dynamics.aimd_shares((0.5, 1.0))


def test_chiu_jain():
    assert dynamics.chiu_jain("AIMD", 0.9, 0.05, steps=600)["jain"] > 0.999
    aiad = dynamics.chiu_jain("AIAD", 0.8, 0.1, steps=600)
    assert aiad["x"][-1] - aiad["y"][-1] == pytest.approx(0.7, abs=0.05)   # the difference never shrinks
    with pytest.raises(ValueError):
        dynamics.chiu_jain("AIMDX")
