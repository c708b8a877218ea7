"""Queueing: full-buffer delay (handout Q46), RTT minus base, per-queue delays (Q43-Q44).

Handout numbers come from ../shared/reference/lab5_seed_values.toml (seed
000_3bfa1aa97836a301).
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st

from labcalc.framing import frame
from labcalc.queueing import (
    bufferbloat_rtt_s,
    full_buffer_delay_s,
    infer_queue_delays,
    packet_cost_bytes,
    queue_delays_from_rtts,
    queueing_delay_s,
)

HANDOUT_PATHS = {"1to2": ["R1"], "2to3": ["R2"], "1to3": ["R1", "R2"]}
HANDOUT_RTTS = {"1to2": 0.340, "2to3": 0.330, "1to3": 0.370}  # Q43, ms averages


# --- lab handout -------------------------------------------------------------------------

def test_handout_q46_full_buffer_drain_time_wire():
    # 1000 packets x 1538 wire bytes x 8 / 5 Mbit/s = 2.4608 s
    assert full_buffer_delay_s(1000, 1500, 5e6) == pytest.approx(2.4608, rel=1e-12)


def test_handout_q46_measured_rtts_within_full_buffer_bounds():
    # measured RTT 2 to 5 s (avg 3 s). 1500-byte packets give 2.46 s of queueing; entries
    # holding offloaded 2896-byte segments (IP packet 2948 bytes, tc accounting) 4.74 s.
    low = full_buffer_delay_s(1000, 1500, 5e6)
    high = full_buffer_delay_s(1000, 2896 + 32 + 20, 5e6, accounting="tc")
    assert high == pytest.approx(4.7392, rel=1e-12)
    assert 2.0 <= low < 3.0 <= high <= 5.0


def test_handout_q44_router_delays_40_and_30_ms():
    # Q44: router 1 about 40 ms, router 2 about 30 ms (both directions); exact here
    d = infer_queue_delays(HANDOUT_PATHS, HANDOUT_RTTS, 0.300)
    assert list(d.index) == ["R1", "R2"]
    assert d["R1"] == pytest.approx(0.040, abs=1e-9)
    assert d["R2"] == pytest.approx(0.030, abs=1e-9)
    assert d.attrs["residual_s"] == pytest.approx(0.0, abs=1e-12)
    assert d.attrs["fitted_s"]["1to3"] == pytest.approx(0.070, abs=1e-9)


def test_handout_q43_rtt_1to3_is_consistent_with_the_other_two():
    # Q43 "verify with RTT from 1to3": 300 + 40 + 30 = 370 ms
    d = infer_queue_delays({"1to2": ["R1"], "2to3": ["R2"]}, {"1to2": 0.340, "2to3": 0.330}, 0.3)
    assert 0.300 + d.sum() == pytest.approx(HANDOUT_RTTS["1to3"], abs=1e-9)


def test_handout_q33_queueing_delay_above_netem_delay():
    assert queueing_delay_s(0.340, 0.300) == pytest.approx(0.040, abs=1e-12)


# --- accounting agrees with labcalc.framing ------------------------------------------------

@given(st.integers(0, 1472), st.sampled_from(["ip", "tc", "frame", "wire"]))
def test_packet_cost_matches_framing(payload, accounting):
    f = frame(payload)
    assert packet_cost_bytes(f.ip_bytes, accounting) == f.bytes(accounting)


def test_packet_cost_pads_small_frames():
    assert packet_cost_bytes(28, "frame") == 64
    assert packet_cost_bytes(28, "tc") == 42


def test_full_buffer_delay_accountings_are_ordered():
    values = [full_buffer_delay_s(100, 1000, 1e6, a) for a in ("ip", "tc", "frame", "wire")]
    assert values == sorted(values)
    assert values[0] == pytest.approx(100 * 1000 * 8 / 1e6)


def test_full_buffer_delay_broadcasts():
    out = full_buffer_delay_s([0, 10, 100], 1500, [[1e6], [1e7]])
    assert out.shape == (2, 3)
    assert out[0, 0] == 0.0


def test_bufferbloat_rtt_adds_base():
    assert bufferbloat_rtt_s(0.03, 100, 1500, 1.5e6, "tc") == pytest.approx(0.03 + 100 * 1514 * 8 / 1.5e6)


# --- queueing delay -----------------------------------------------------------------------

def test_queueing_delay_equal_rtts_is_zero():
    assert queueing_delay_s(0.3, 0.3) == 0.0


def test_queueing_delay_tolerates_rounding_below_base():
    assert queueing_delay_s(0.3 * (1 - 1e-12), 0.3) == 0.0


def test_queueing_delay_arrays():
    np.testing.assert_allclose(queueing_delay_s([0.3, 0.35, 0.5], 0.3), [0.0, 0.05, 0.2], atol=1e-15)


# --- inferring per-queue delays ------------------------------------------------------------

@given(st.floats(0, 1.0), st.floats(0, 1.0), st.floats(0.001, 1.0))
def test_infer_recovers_consistent_delays(d1, d2, base):
    rtts = {"1to2": base + d1, "2to3": base + d2, "1to3": base + d1 + d2}
    d = infer_queue_delays(HANDOUT_PATHS, rtts, base)
    assert d["R1"] == pytest.approx(d1, abs=1e-9)
    assert d["R2"] == pytest.approx(d2, abs=1e-9)


def test_infer_least_squares_with_inconsistent_rtts():
    # 1to3 10 ms short of 340 + 330 - 300: least squares spreads the misfit
    rtts = dict(HANDOUT_RTTS, **{"1to3": 0.360})
    d = infer_queue_delays(HANDOUT_PATHS, rtts, 0.300)
    # normal equations: [[2,1],[1,2]] d = [0.10, 0.09]
    assert d["R1"] == pytest.approx((2 * 0.10 - 0.09) / 3, abs=1e-12)
    assert d["R2"] == pytest.approx((2 * 0.09 - 0.10) / 3, abs=1e-12)
    assert d.attrs["residual_s"] == pytest.approx(0.01 / np.sqrt(3), rel=1e-9)


def test_infer_never_returns_negative_delays():
    # the unconstrained solution would make R2 negative
    rtts = {"1to2": 0.400, "2to3": 0.300, "1to3": 0.300}
    d = infer_queue_delays(HANDOUT_PATHS, rtts, 0.300)
    assert (d >= 0).all()
    assert d["R2"] == 0.0


def test_infer_per_flow_base_rtts_and_series_input():
    base = {"1to2": 0.2, "2to3": 0.3, "1to3": 0.4}
    rtts = pd.Series({"1to2": 0.25, "2to3": 0.32, "1to3": 0.47})
    d = infer_queue_delays(HANDOUT_PATHS, rtts, base)
    assert d["R1"] == pytest.approx(0.05, abs=1e-12) and d["R2"] == pytest.approx(0.02, abs=1e-12)


def test_infer_queue_crossed_twice_counts_twice():
    d = infer_queue_delays({"a": ["R1", "R1"]}, {"a": 0.5}, 0.3)
    assert d["R1"] == pytest.approx(0.1, abs=1e-12)


# --- bad input: one test per case ------------------------------------------------------------

def test_full_buffer_rejects_negative_packets():
    with pytest.raises(ValueError, match=r"packets must be >= 0; got -1"):
        full_buffer_delay_s(-1, 1500, 5e6)


def test_full_buffer_rejects_non_positive_packet_size():
    with pytest.raises(ValueError, match=r"ip_packet_bytes must be > 0; got 0"):
        full_buffer_delay_s(1000, 0, 5e6)


def test_full_buffer_rejects_non_positive_rate():
    with pytest.raises(ValueError, match=r"rate_bps must be > 0; got 0"):
        full_buffer_delay_s(1000, 1500, 0)


def test_full_buffer_rejects_unknown_accounting():
    with pytest.raises(ValueError, match=r"accounting must be one of .*; got 'bytes'"):
        full_buffer_delay_s(1000, 1500, 5e6, accounting="bytes")


def test_bufferbloat_rejects_non_positive_base_rtt():
    with pytest.raises(ValueError, match=r"base_rtt_s must be > 0"):
        bufferbloat_rtt_s(0, 100, 1500, 1e6)


def test_queueing_delay_rejects_rtt_below_base():
    with pytest.raises(ValueError, match=r"rtt_s=0.29 < base_rtt_s=0.3"):
        queueing_delay_s(0.29, 0.3)


def test_queueing_delay_rejects_non_positive_rtt():
    with pytest.raises(ValueError, match=r"rtt_s must be > 0"):
        queueing_delay_s(0, 0.3)


def test_queueing_delay_rejects_nan():
    with pytest.raises(ValueError, match=r"base_rtt_s must be finite"):
        queueing_delay_s(0.3, float("nan"))


def test_infer_rejects_unknown_and_missing_flows():
    rtts = {"1to2": 0.34, "2to3": 0.33, "3to1": 0.37}
    with pytest.raises(ValueError, match=r"missing \['1to3'\], unknown flows \['3to1'\]"):
        infer_queue_delays(HANDOUT_PATHS, rtts, 0.3)


def test_infer_rejects_mismatched_base_keys():
    with pytest.raises(ValueError, match=r"base_rtts_s must have one entry per flow"):
        infer_queue_delays(HANDOUT_PATHS, HANDOUT_RTTS, {"1to2": 0.3})


def test_infer_rejects_non_positive_rtt():
    with pytest.raises(ValueError, match=r"rtts_s must be > 0; got 0"):
        infer_queue_delays(HANDOUT_PATHS, dict(HANDOUT_RTTS, **{"2to3": 0}), 0.3)


def test_infer_rejects_rtt_below_base():
    with pytest.raises(ValueError, match=r"must not be below base_rtt_s"):
        infer_queue_delays(HANDOUT_PATHS, dict(HANDOUT_RTTS, **{"2to3": 0.25}), 0.3)


def test_infer_rejects_queues_that_cannot_be_separated():
    paths = {"a": ["R1", "R2"], "b": ["R1", "R2", "R3"]}
    with pytest.raises(ValueError, match=r"queues \['R1', 'R2'\]"):
        infer_queue_delays(paths, {"a": 0.35, "b": 0.4}, 0.3)


def test_infer_rejects_empty_path():
    with pytest.raises(ValueError, match=r"paths\['a'\] must name at least one queue"):
        infer_queue_delays({"a": []}, {"a": 0.35}, 0.3)


def test_infer_rejects_path_given_as_a_string():
    with pytest.raises(ValueError, match=r"paths\['a'\] must be a list of queue names"):
        infer_queue_delays({"a": "R1"}, {"a": 0.35}, 0.3)


def test_infer_rejects_paths_that_are_not_a_dict():
    with pytest.raises(ValueError, match=r"paths must be a non-empty dict"):
        infer_queue_delays([["R1"]], {"a": 0.35}, 0.3)


def test_infer_rejects_rtts_that_are_not_keyed():
    with pytest.raises(ValueError, match=r"rtts_s must be a dict flow -> seconds"):
        infer_queue_delays(HANDOUT_PATHS, [0.34, 0.33, 0.37], 0.3)



# --- RTTs from a student's file, some missing (notebook 06) -------------------------------

def _ms(series):
    return [None if np.isnan(x) else round(float(x) * 1e3, 9) for x in series]


def test_from_rtts_all_three_reports_the_misfit():
    d = queue_delays_from_rtts(HANDOUT_PATHS, HANDOUT_RTTS, 0.3)
    assert _ms(d) == [40.0, 30.0]
    assert d.attrs["redundant"] == 1 and d.attrs["residual_s"] == pytest.approx(0, abs=1e-12)
    assert d.attrs["fit"] == "misfit of the 3 RTTs: 0.00 ms" and d.attrs["note"] == ""
    inconsistent = queue_delays_from_rtts(HANDOUT_PATHS, dict(HANDOUT_RTTS, **{"1to3": 0.360}), 0.3)
    assert inconsistent.attrs["fit"] == "misfit of the 3 RTTs: 5.77 ms"


@pytest.mark.parametrize("missing", ["1to2", "2to3", "1to3"])
def test_from_rtts_any_two_determine_both_delays_exactly(missing):
    d = queue_delays_from_rtts(HANDOUT_PATHS, dict(HANDOUT_RTTS, **{missing: float("nan")}), 0.3)
    assert _ms(d) == [40.0, 30.0]
    assert d.attrs["used"] == [f for f in HANDOUT_PATHS if f != missing]
    assert d.attrs["redundant"] == 0 and np.isnan(d.attrs["residual_s"])
    assert d.attrs["fit"].startswith("2 RTTs for 2 queues: exactly determined")
    assert "misfit of" not in d.attrs["fit"]


@pytest.mark.parametrize("known", [[], ["1to2"], ["1to3"]])
def test_from_rtts_fewer_than_two_leave_the_delays_undetermined(known):
    rtts = {f: (HANDOUT_RTTS[f] if f in known else float("nan")) for f in HANDOUT_PATHS}
    d = queue_delays_from_rtts(HANDOUT_PATHS, rtts, 0.3)
    assert list(d.index) == ["R1", "R2"] and d.isna().all()
    assert d.attrs["note"].startswith("the delays of the 2 queues (R1, R2) need at least 2 RTTs")
    assert f"{len(known)} RTT" in d.attrs["note"] and d.attrs["redundant"] is None
    if not known:                              # e.g. an empty file: no RTT at all
        assert d.attrs["note"].endswith("0 RTTs measured")


def test_from_rtts_checks_what_it_uses():
    with pytest.raises(ValueError, match="must not be below base_rtt_s"):
        queue_delays_from_rtts(HANDOUT_PATHS, dict(HANDOUT_RTTS, **{"2to3": 0.25}), 0.3)
    # RTTs measured without netem (queues only, as on a machine without it: 103, 101 and 203 ms)
    # against the handout's 300 ms base: the message names the flow and what base_rtts_s is
    with pytest.raises(ValueError, match=r"measured RTT of 1to2 is 0\.103 s, below the base of 0\.3 s; "
                                         r"base_rtts_s is the RTT of your network without queueing"):
        queue_delays_from_rtts(HANDOUT_PATHS, {"1to2": 0.103, "2to3": 0.101, "1to3": 0.203}, 0.3)
    # with a base of 1 ms the queues' least-squares delays solve [[2, 1], [1, 2]] x = [304, 302] ms
    own = queue_delays_from_rtts(HANDOUT_PATHS, {"1to2": 0.103, "2to3": 0.101, "1to3": 0.203}, 0.001)
    assert _ms(own) == pytest.approx([102.0, 100.0], abs=1e-6)
    with pytest.raises(ValueError, match=r"paths\['a'\] must be a list of queue names"):
        queue_delays_from_rtts({"a": "R1"}, {"a": 0.35}, 0.3)
    per_flow = queue_delays_from_rtts(HANDOUT_PATHS, dict(HANDOUT_RTTS, **{"1to3": float("nan")}),
                                      {"1to2": 0.3, "2to3": 0.3, "1to3": 0.3})
    assert _ms(per_flow) == [40.0, 30.0]
