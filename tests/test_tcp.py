"""TCP models: handout values, published constants and tables, properties, bad input.

Handout numbers come from ../shared/reference/lab5_seed_values.toml (seed
000_3bfa1aa97836a301); each test states the rounding of the printed value and uses a
tolerance of half its last digit.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings, strategies as st

from labcalc import tcp
from labcalc.framing import frame
from labcalc.tcp import (
    RENO_CONSTANT,
    RENO_DELAYED_ACK_CONSTANT,
    aimd_rate_bps,
    bdp_bytes,
    cubic_average_window,
    cubic_k,
    cubic_rate_bps,
    cubic_reno_friendly_window,
    cubic_window,
    mathis_rate_bps,
    pftk_rate_pps,
    rtt_shares,
    slow_start_rounds,
    slow_start_time_s,
    window_limited_rate_bps,
)

# strategies ------------------------------------------------------------------------------
losses = st.floats(1e-7, 1.0)
rtts = st.floats(1e-3, 5.0)
segments = st.floats(64, 65536)
betas = st.floats(0.05, 0.95)


# --- lab handout -------------------------------------------------------------------------

def test_handout_q19_reno_constant_is_sqrt_three_halves_rounded():
    # the handout prints c = 1.22 (2 decimals)
    assert RENO_CONSTANT == pytest.approx(1.22, abs=0.005)
    assert RENO_CONSTANT == math.sqrt(1.5)


def test_handout_q20_b2_reno_rate_1004_kbps():
    # 2896-byte segment, RTT 60 ms, loss 22 %: printed 1004 kbit/s (to 1 kbit/s)
    assert mathis_rate_bps(2896, 0.060, 0.22) == pytest.approx(1004e3, abs=0.5e3)


def test_handout_q20_b3_reno_rate_726_kbps():
    # RTT 54 ms, loss 52 %: printed 726 kbit/s (to 1 kbit/s)
    assert mathis_rate_bps(2896, 0.054, 0.52) == pytest.approx(726e3, abs=0.5e3)


def test_handout_q20_uses_the_rounded_constant():
    # with the exact sqrt(3/2) the B2 value would print 1008, not 1004
    assert round(mathis_rate_bps(2896, 0.060, 0.22, c=RENO_CONSTANT) / 1e3) == 1008


def test_handout_q31_d1_one_and_three_connections():
    # 5 Mbit/s, both RTTs 300 ms, h1 one connection, h2 three: 1.25 and 3.75 Mbit/s
    shares = rtt_shares(5e6, [0.3, 0.3], [1, 3])
    np.testing.assert_allclose(shares, [1.25e6, 3.75e6], rtol=1e-12)


def _handout_tcp_goodput_capacity():
    # Q9: 5 Mbit/s x 2896 / 2986 (TCP with timestamps, wire accounting)
    return 5e6 * frame(2896, "tcp", tcp_options_bytes=12).efficiency("wire")


def test_handout_q35_d2_goodputs_1320_and_3530_kbps():
    # RTT 300 + 500 ms for h1, 300 ms for h2; printed to 10 kbit/s
    s = rtt_shares(_handout_tcp_goodput_capacity(), {"h1": 0.8, "h2": 0.3})
    assert s["h1"] == pytest.approx(1320e3, abs=5e3)
    assert s["h2"] == pytest.approx(3530e3, abs=5e3)


def test_handout_q35_d3_goodputs_910_and_3940_kbps():
    # RTT 300 + 1000 ms for h1; printed to 10 kbit/s
    s = rtt_shares(_handout_tcp_goodput_capacity(), {"h1": 1.3, "h2": 0.3})
    assert s["h1"] == pytest.approx(910e3, abs=5e3)
    assert s["h2"] == pytest.approx(3940e3, abs=5e3)


def test_handout_q34_goodput_ratio_is_the_rtt_ratio():
    # Q34: goodput h1 = 300 / (300 + Y) x goodput h2
    for y in (0.5, 1.0):
        s = rtt_shares(1e6, [0.3 + y, 0.3])
        assert s[0] / s[1] == pytest.approx(0.3 / (0.3 + y), rel=1e-12)


@pytest.mark.parametrize(
    "rtt_h1, cubic_h1, cubic_h2",
    [(0.8, 1660, 2858), (1.3, 1606, 2930)],  # Q36 measured CUBIC goodputs (kbit/s)
)
def test_handout_q38_measured_cubic_ratio_between_reno_and_cubic_rtt_bias(rtt_h1, cubic_h1, cubic_h2):
    # Q38: CUBIC is less RTT-sensitive than Reno. At equal loss Reno predicts a goodput
    # ratio RTT2/RTT1, the pure cubic response (RTT2/RTT1)^(1/4); the measured ratio lies
    # between the two.
    p = 1e-4
    reno = mathis_rate_bps(1448, rtt_h1, p) / mathis_rate_bps(1448, 0.3, p)
    cubic = cubic_rate_bps(1448, rtt_h1, p, reno_floor=False) / cubic_rate_bps(
        1448, 0.3, p, reno_floor=False
    )
    assert cubic == pytest.approx((0.3 / rtt_h1) ** 0.25, rel=1e-12)
    assert reno < cubic_h1 / cubic_h2 < cubic


# --- Mathis 1997 and AIMD ------------------------------------------------------------------

def test_mathis_delayed_ack_constant():
    # b = 2 segments per ACK: sqrt(3/(2b)) = sqrt(3/4) = 0.866 (Mathis et al. 1997)
    assert RENO_DELAYED_ACK_CONSTANT == pytest.approx(0.87, abs=0.005)
    assert RENO_DELAYED_ACK_CONSTANT == pytest.approx(RENO_CONSTANT / math.sqrt(2), rel=1e-15)


def test_mathis_formula_value():
    # 1448 bytes, 100 ms, 1 %: 1.22 x 8 x 1448 / (0.1 x 0.1) bit/s
    assert mathis_rate_bps(1448, 0.1, 0.01) == pytest.approx(1.22 * 8 * 1448 / 0.01, rel=1e-15)


def test_mathis_broadcasts_and_returns_float_for_scalars():
    assert isinstance(mathis_rate_bps(1448, 0.1, 0.01), float)
    out = mathis_rate_bps(1448, [[0.1], [0.2]], [0.01, 0.04])
    assert out.shape == (2, 2)
    assert out[1, 1] == pytest.approx(mathis_rate_bps(1448, 0.2, 0.04))


def test_mathis_loss_of_one_is_accepted():
    assert mathis_rate_bps(1000, 1.0, 1.0) == pytest.approx(1.22 * 8000)


@given(segments, rtts, losses)
def test_mathis_equals_aimd_one_half(L, rtt, p):
    # Reno is AIMD(1, 0.5): sqrt(1 x 1.5 / (2 x 0.5 p)) = sqrt(3/(2p))
    assert aimd_rate_bps(L, rtt, p) == pytest.approx(
        mathis_rate_bps(L, rtt, p, c=RENO_CONSTANT), rel=1e-12
    )


@given(segments, rtts, losses, betas)
def test_aimd_with_rfc9438_alpha_matches_reno(L, rtt, p, beta):
    # RFC 9438 Section 4.3: alpha = 3 (1 - beta) / (1 + beta) gives Reno's average window
    alpha = 3 * (1 - beta) / (1 + beta)
    assert aimd_rate_bps(L, rtt, p, alpha, beta) == pytest.approx(aimd_rate_bps(L, rtt, p), rel=1e-12)


def test_aimd_floyd_handley_padhye_parametrisation():
    # FHP00 write AIMD(a, b') with W -> (1 - b') W and rate sqrt(a (2 - b') / (2 b' p)) / RTT
    a, b_fhp, p, rtt = 0.31, 0.125, 0.02, 0.05
    fhp = math.sqrt(a * (2 - b_fhp) / (2 * b_fhp * p)) / rtt * 8 * 1000
    assert aimd_rate_bps(1000, rtt, p, a, 1 - b_fhp) == pytest.approx(fhp, rel=1e-12)


@given(segments, rtts, st.floats(1e-6, 0.5), st.floats(1.01, 2.0))
def test_mathis_decreases_with_loss(L, rtt, p, factor):
    assert mathis_rate_bps(L, rtt, p * factor) < mathis_rate_bps(L, rtt, p)


@given(segments, st.floats(1e-3, 2.0), losses, st.floats(1.01, 2.0))
def test_mathis_decreases_with_rtt(L, rtt, p, factor):
    assert mathis_rate_bps(L, rtt * factor, p) < mathis_rate_bps(L, rtt, p)


@given(rtts, losses, st.floats(0.05, 0.9), st.floats(0.01, 0.09))
def test_aimd_increases_with_decrease_to(rtt, p, b, db):
    assert aimd_rate_bps(1000, rtt, p, 1, b + db) > aimd_rate_bps(1000, rtt, p, 1, b)


# --- PFTK 1998 -----------------------------------------------------------------------------

def _pftk_full_reference(rtt, p, t0, b=2, wmax=None):
    """The full model typed a second time, as printed (unscaled fractions), plain math."""
    def qhat(w):
        if w <= 3:
            return 1.0
        q = 1 - p
        return min(1.0, (1 - q**3) * (1 + q**3 * (1 - q ** (w - 3))) / (1 - q**w))

    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    ew = (2 + b) / (3 * b) + math.sqrt(8 * (1 - p) / (3 * b * p) + ((2 + b) / (3 * b)) ** 2)
    if wmax is None or ew < wmax:
        return ((1 - p) / p + ew + qhat(ew) / (1 - p)) / (
            rtt * (b / 2 * ew + 1) + qhat(ew) * t0 * f / (1 - p)
        )
    return ((1 - p) / p + wmax + qhat(wmax) / (1 - p)) / (
        rtt * (b / 8 * wmax + (1 - p) / (p * wmax) + 2) + qhat(wmax) * t0 * f / (1 - p)
    )


def _pftk_approx_reference(rtt, p, t0, b=2, wmax=None):
    r = 1 / (rtt * math.sqrt(2 * b * p / 3) + t0 * min(1, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p**2))
    return r if wmax is None else min(wmax / rtt, r)


# Spot values computed independently of labcalc with a 40-digit mpmath transcription of
# the paper's formulas (the unscaled form above), not read off the paper's figures:
# (rtt_s, loss, rto_s, b, wmax) -> (full, approximation) [packet/s]
PFTK_SPOT_VALUES = [
    ((0.1, 0.01, 1.0, 2, None), (69.5244631963, 70.6544238313)),
    ((0.1, 1e-4, 1.0, 2, 8), (79.5733781387, 80.0)),
    ((0.1, 0.001, 0.5, 1, None), (380.787055383, 382.989564148)),
    ((0.2, 0.05, 1.0, 2, None), (12.4521622193, 12.0466044983)),
    ((0.05, 0.3, 0.4, 2, None), (5.45446347544, 2.011170942)),
    ((0.1, 0.02, 1.0, 2, 10), (41.7455571058, 42.0654802781)),
    ((0.1, 0.9, 1.0, 2, None), (0.0302584776722, 0.0410887794998)),
    ((0.1, 1e-6, 1.0, 2, None), (8657.56292067, 8660.05918651)),
]


@pytest.mark.parametrize("args, expected", PFTK_SPOT_VALUES)
def test_pftk_spot_values(args, expected):
    rtt, p, t0, b, wmax = args
    full, approx = expected
    assert pftk_rate_pps(rtt, p, t0, b=b, wmax=wmax) == pytest.approx(full, rel=1e-10)
    assert pftk_rate_pps(rtt, p, t0, b=b, wmax=wmax, approx=True) == pytest.approx(approx, rel=1e-10)


@given(
    st.floats(0.01, 1.0), st.floats(1e-6, 0.99), st.floats(1.0, 20.0), st.sampled_from([1, 2, 3]),
    st.one_of(st.none(), st.floats(1.0, 200.0)),
)
def test_pftk_matches_second_transcription(rtt, p, t0_over_rtt, b, wmax):
    t0 = t0_over_rtt * rtt
    assert pftk_rate_pps(rtt, p, t0, b=b, wmax=wmax) == pytest.approx(
        _pftk_full_reference(rtt, p, t0, b, wmax), rel=1e-9
    )
    assert pftk_rate_pps(rtt, p, t0, b=b, wmax=wmax, approx=True) == pytest.approx(
        _pftk_approx_reference(rtt, p, t0, b, wmax), rel=1e-12
    )


@pytest.mark.parametrize("b", [1, 2])
def test_pftk_full_approaches_approximation_for_small_loss(b):
    # relative gap shrinks as p -> 0 (T0 = 1 s, RTT 100 ms)
    gaps = [
        abs(pftk_rate_pps(0.1, p, 1.0, b=b) / pftk_rate_pps(0.1, p, 1.0, b=b, approx=True) - 1)
        for p in (1e-3, 1e-5, 1e-7, 1e-9)
    ]
    assert all(g1 > g2 for g1, g2 in zip(gaps, gaps[1:]))
    assert gaps[-1] < 1e-4


@pytest.mark.parametrize("approx", [False, True])
@pytest.mark.parametrize("b", [1, 2])
def test_pftk_tends_to_square_root_law_without_timeouts(approx, b):
    # p -> 0 with T0 negligible: sqrt(3 / (2 b p)) / RTT (Mathis with c = sqrt(3/(2b)))
    rtt = 0.1
    for p, tol in ((1e-6, 2e-3), (1e-8, 2e-4), (1e-10, 2e-5)):
        limit = math.sqrt(3 / (2 * b * p)) / rtt
        assert pftk_rate_pps(rtt, p, 1e-12, b=b, approx=approx) == pytest.approx(limit, rel=tol)


def test_pftk_approximation_without_timeout_term_is_exactly_the_square_root_law():
    assert pftk_rate_pps(0.1, 0.01, 1e-300, approx=True) == pytest.approx(
        math.sqrt(3 / (4 * 0.01)) / 0.1, rel=1e-14
    )


def test_pftk_loss_of_one_is_finite():
    # multiplied through by (1 - p): at p = 1 the model gives 1 / (T0 f(1)) = 1 / (64 T0)
    assert pftk_rate_pps(0.1, 1.0, 2.0) == pytest.approx(1 / 128, rel=1e-12)
    assert pftk_rate_pps(0.1, 1 - 1e-9, 2.0) == pytest.approx(1 / 128, rel=1e-6)


def test_pftk_window_limit_caps_both_models():
    full = pftk_rate_pps(0.1, 1e-6, 1.0, wmax=20)
    approx = pftk_rate_pps(0.1, 1e-6, 1.0, wmax=20, approx=True)
    assert approx == pytest.approx(200.0)
    assert 190 < full <= 200.0


@settings(max_examples=200)
@given(st.floats(0.005, 2.0), st.floats(1e-7, 0.98), st.floats(1.01, 1.5), st.floats(1.0, 20.0),
       st.sampled_from([1, 2]))
def test_pftk_decreases_with_loss(rtt, p, factor, t0_over_rtt, b):
    # the full model is monotone in p when timeouts last at least one RTT, as real RTOs do
    p2 = min(1.0, p * factor)
    assume(p2 > p * (1 + 1e-9))
    t0 = t0_over_rtt * rtt
    for approx in (False, True):
        assert pftk_rate_pps(rtt, p2, t0, b=b, approx=approx) < pftk_rate_pps(rtt, p, t0, b=b, approx=approx)


@given(st.floats(0.005, 2.0), losses, st.floats(1.01, 2.0), st.floats(0.2, 5.0),
       st.one_of(st.none(), st.floats(2.0, 100.0)))
def test_pftk_decreases_with_rtt(rtt, p, factor, t0, wmax):
    for approx in (False, True):
        assert pftk_rate_pps(rtt * factor, p, t0, wmax=wmax, approx=approx) <= pftk_rate_pps(
            rtt, p, t0, wmax=wmax, approx=approx
        )


# --- RTT shares ---------------------------------------------------------------------------

@given(
    st.floats(1e3, 1e10),
    st.lists(st.tuples(rtts, st.integers(0, 10)), min_size=1, max_size=8),
)
def test_rtt_shares_sum_to_capacity_and_follow_connections_over_rtt(cap, entries):
    r = [e[0] for e in entries]
    n = [e[1] for e in entries]
    assume(sum(n) > 0)
    s = rtt_shares(cap, r, n)
    assert s.sum() == pytest.approx(cap, rel=1e-12)
    assert (s >= 0).all()
    weights = np.array(n) / np.array(r)
    np.testing.assert_allclose(s, cap * weights / weights.sum(), rtol=1e-12)


def test_rtt_shares_equal_rtts_is_per_connection_fairness():
    np.testing.assert_allclose(rtt_shares(6e6, [0.1, 0.1, 0.1], [1, 2, 3]), [1e6, 2e6, 3e6])


def test_rtt_shares_keyed_inputs_give_a_series():
    s = rtt_shares(5e6, pd.Series({"h1": 0.3, "h2": 0.3}), {"h2": 3, "h1": 1})
    assert isinstance(s, pd.Series)
    assert list(s.index) == ["h1", "h2"]
    assert s["h1"] == pytest.approx(1.25e6) and s["h2"] == pytest.approx(3.75e6)


def test_rtt_shares_default_one_connection_each():
    np.testing.assert_allclose(rtt_shares(3e6, [0.1, 0.2]), [2e6, 1e6])


# --- CUBIC, RFC 9438 -----------------------------------------------------------------------

# RFC 9438 Section 5.1, Tables 1 (RTT 0.1 s) and 2 (RTT 0.01 s): average windows
# [segment], rounded to whole segments; columns Reno, CUBIC C=0.04, C=0.4, C=4.
RFC9438_TABLE_1 = {
    1e-2: (12, 12, 12, 12),
    1e-3: (38, 38, 38, 59),
    1e-4: (120, 120, 187, 333),
    1e-5: (379, 593, 1054, 1874),
    1e-6: (1200, 3332, 5926, 10538),
    1e-7: (3795, 18740, 33325, 59261),
    1e-8: (12000, 105383, 187400, 333250),
}
RFC9438_TABLE_2 = {
    1e-2: (12, 12, 12, 12),
    1e-3: (38, 38, 38, 38),
    1e-4: (120, 120, 120, 120),
    1e-5: (379, 379, 379, 379),
    1e-6: (1200, 1200, 1200, 1874),
    1e-7: (3795, 3795, 5926, 10538),
    1e-8: (12000, 18740, 33325, 59261),
}


@pytest.mark.parametrize("rtt, table", [(0.1, RFC9438_TABLE_1), (0.01, RFC9438_TABLE_2)])
def test_rfc9438_average_window_tables(rtt, table):
    for p, (reno, c004, c04, c4) in table.items():
        assert round(1.2 / math.sqrt(p)) == reno
        for c, expected in ((0.04, c004), (0.4, c04), (4.0, c4)):
            assert round(cubic_average_window(rtt, p, c=c)) == expected, (rtt, p, c)


def test_rfc9438_equation_8_constant():
    # with C = 0.4, beta = 0.7: AVG_W = 1.054 RTT^0.75 / p^0.75 (printed to 3 decimals)
    w = cubic_average_window(1.0, 1.0, reno_floor=False)
    assert w == pytest.approx(1.054, abs=5e-4)
    assert w == pytest.approx((0.4 * 3.7 / 1.2) ** 0.25, rel=1e-15)


@pytest.mark.parametrize(
    "mbps, cubic_p",
    # RFC 9438 Table 3 (1500-byte packets, RTT 0.1 s): throughput -> CUBIC loss rate,
    # printed to 2 significant digits. The 1 Mbit/s row is left out: its 2.0e-2 is the
    # Reno value of RFC 3649 and does not follow from the 1.2 / sqrt(p) floor (8.5 > 8.3).
    [(10, 2.9e-4), (100, 1.4e-5), (1000, 6.3e-7), (10000, 2.9e-8)],
)
def test_rfc9438_table_3_required_loss_rate(mbps, cubic_p):
    half_digit = 0.05 * 10 ** math.floor(math.log10(cubic_p))
    target = mbps * 1e6
    low = cubic_rate_bps(1500, 0.1, cubic_p + half_digit)
    high = cubic_rate_bps(1500, 0.1, cubic_p - half_digit)
    assert low <= target <= high


def test_rfc9438_section_5_1_example_reno_rate():
    # RTT 0.01 s, p = 1e-6: average window 1200 packets, 1.44 Gbit/s with 1500-byte packets
    assert cubic_rate_bps(1500, 0.01, 1e-6) == pytest.approx(1.44e9, rel=1e-12)


def test_cubic_exact_reno_floor_option():
    assert cubic_average_window(0.01, 1e-4, reno_constant=RENO_CONSTANT) == pytest.approx(
        math.sqrt(1.5 / 1e-4), rel=1e-12
    )
    assert cubic_average_window(0.01, 1e-4, reno_floor=False) < 1.2 / math.sqrt(1e-4)


def test_cubic_k_and_window_shape():
    k = cubic_k(100)
    assert k == pytest.approx((100 * 0.3 / 0.4) ** (1 / 3), rel=1e-15)
    assert cubic_window(0, 100) == pytest.approx(70.0, rel=1e-12)  # beta x W_max
    assert cubic_window(k, 100) == pytest.approx(100.0, rel=1e-12)  # plateau at W_max
    assert cubic_window(2 * k, 100) == pytest.approx(130.0, rel=1e-12)  # symmetric convex part


@given(st.floats(1.0, 1e5), betas, st.floats(0.01, 4.0), st.floats(0.0, 50.0), st.floats(0.001, 5.0))
def test_cubic_window_is_non_decreasing(w_max, beta, c, t, dt):
    assert cubic_window(t + dt, w_max, beta, c) >= cubic_window(t, w_max, beta, c) - 1e-9 * w_max


def test_reno_friendly_window_rfc9438():
    beta, w_max, rtt = 0.7, 100.0, 0.1
    alpha = 3 * (1 - beta) / (1 + beta)
    assert cubic_reno_friendly_window(0, rtt, w_max) == pytest.approx(70.0)  # cwnd_epoch
    assert cubic_reno_friendly_window(1.0, rtt, w_max) == pytest.approx(70 + alpha * 10)
    t1 = rtt * w_max * (1 + beta) / 3  # where W_est reaches W_max
    assert cubic_reno_friendly_window(t1, rtt, w_max) == pytest.approx(w_max)
    # after W_max the slope is one segment per RTT (RFC 9438), alpha without the switch
    assert cubic_reno_friendly_window(t1 + 1.0, rtt, w_max) == pytest.approx(w_max + 10)
    assert cubic_reno_friendly_window(t1 + 1.0, rtt, w_max, reno_slope_after_w_max=False) == pytest.approx(
        w_max + alpha * 10
    )


@given(st.floats(1e-3, 2.0), losses, st.floats(1.01, 2.0))
def test_cubic_average_window_decreases_with_loss(rtt, p, factor):
    p2 = min(1.0, p * factor)
    assume(p2 > p * (1 + 1e-9))
    assert cubic_average_window(rtt, p2) < cubic_average_window(rtt, p)


@given(segments, st.floats(1e-3, 2.0), losses, st.floats(1.01, 2.0))
def test_cubic_rate_decreases_with_rtt(L, rtt, p, factor):
    assert cubic_rate_bps(L, rtt * factor, p) < cubic_rate_bps(L, rtt, p)


@given(segments, rtts, losses)
def test_cubic_rate_is_window_times_segment_over_rtt(L, rtt, p):
    assert cubic_rate_bps(L, rtt, p) == pytest.approx(cubic_average_window(rtt, p) * 8 * L / rtt, rel=1e-12)
    assert cubic_average_window(rtt, p) >= 1.2 / math.sqrt(p) * (1 - 1e-12)


# --- BDP and slow start --------------------------------------------------------------------

def test_bdp_of_the_handout_bottleneck():
    # 5 Mbit/s, 300 ms
    assert bdp_bytes(5e6, 0.3) == 187500.0


@given(st.floats(1e3, 1e11), rtts)
def test_window_limited_rate_inverts_bdp(rate, rtt):
    assert window_limited_rate_bps(bdp_bytes(rate, rtt), rtt) == pytest.approx(rate, rel=1e-12)


@given(st.integers(1, 10**7), st.integers(1, 100))
def test_slow_start_rounds_is_the_smallest_sufficient(target, iw):
    n = int(slow_start_rounds(target, iw))
    assert iw * 2**n >= target
    assert n == 0 or iw * 2 ** (n - 1) < target


def test_slow_start_rfc6928_iw10():
    assert slow_start_rounds(10) == 0
    assert slow_start_rounds(20) == 1
    assert slow_start_rounds(21) == 2
    assert slow_start_rounds(21, initial_window_segments=3) == 3
    # delayed ACKs without byte counting: x1.5 per RTT, 10 x 1.5^5 = 75.9 < 81 <= 113.9
    assert slow_start_rounds(81, growth=1.5) == 6


def test_slow_start_time_is_rounds_times_rtt():
    assert slow_start_time_s(130, 0.3) == pytest.approx(4 * 0.3)
    np.testing.assert_allclose(slow_start_time_s([5, 40, 41], 0.1), [0.0, 0.2, 0.3])


# --- bad input: one test per case ------------------------------------------------------------

@pytest.mark.parametrize("loss", [0, -0.1, 1.5, float("nan"), float("inf")])
def test_mathis_rejects_bad_loss(loss):
    with pytest.raises(ValueError, match=r"loss must be"):
        mathis_rate_bps(1448, 0.1, loss)


def test_loss_message_names_interval_and_value():
    with pytest.raises(ValueError, match=r"loss must be in \(0, 1\]; got 0\.0"):
        mathis_rate_bps(1448, 0.1, 0)
    with pytest.raises(ValueError, match=r"got 2\.0"):
        mathis_rate_bps(1448, 0.1, [0.1, 2.0])


@pytest.mark.parametrize("rtt", [0, -0.05])
def test_mathis_rejects_non_positive_rtt(rtt):
    with pytest.raises(ValueError, match=r"rtt_s must be > 0"):
        mathis_rate_bps(1448, rtt, 0.01)


def test_mathis_rejects_non_positive_segment():
    with pytest.raises(ValueError, match=r"segment_bytes must be > 0; got 0"):
        mathis_rate_bps(0, 0.1, 0.01)


def test_mathis_rejects_non_positive_constant():
    with pytest.raises(ValueError, match=r"c must be > 0"):
        mathis_rate_bps(1448, 0.1, 0.01, c=-1.22)


def test_rejects_text_input():
    with pytest.raises(ValueError, match=r"rtt_s must be a number"):
        mathis_rate_bps(1448, "60 ms", 0.01)


def test_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"rtt_s \(2,\), loss \(3,\)"):
        mathis_rate_bps(1448, [0.1, 0.2], [0.01, 0.02, 0.03])


@pytest.mark.parametrize("b", [0, 1, 1.2])
def test_aimd_rejects_decrease_to_outside_open_unit_interval(b):
    with pytest.raises(ValueError, match=r"decrease_to must be in \(0, 1\)"):
        aimd_rate_bps(1448, 0.1, 0.01, 1, b)


def test_aimd_rejects_non_positive_increase():
    with pytest.raises(ValueError, match=r"increase must be > 0"):
        aimd_rate_bps(1448, 0.1, 0.01, 0)


def test_aimd_rejects_bad_loss():
    with pytest.raises(ValueError, match=r"loss must be in \(0, 1\]"):
        aimd_rate_bps(1448, 0.1, 0)


def test_pftk_rejects_bad_loss():
    with pytest.raises(ValueError, match=r"loss must be in \(0, 1\]"):
        pftk_rate_pps(0.1, 1.01, 1.0)


def test_pftk_rejects_non_positive_rtt():
    with pytest.raises(ValueError, match=r"rtt_s must be > 0"):
        pftk_rate_pps(0, 0.01, 1.0)


def test_pftk_rejects_non_positive_timeout():
    with pytest.raises(ValueError, match=r"rto_s must be > 0"):
        pftk_rate_pps(0.1, 0.01, 0)


def test_pftk_rejects_b_below_one():
    with pytest.raises(ValueError, match=r"b must be >= 1"):
        pftk_rate_pps(0.1, 0.01, 1.0, b=0.5)


def test_pftk_rejects_non_positive_wmax():
    with pytest.raises(ValueError, match=r"wmax must be > 0"):
        pftk_rate_pps(0.1, 0.01, 1.0, wmax=0)


def test_rtt_shares_rejects_non_positive_capacity():
    with pytest.raises(ValueError, match=r"capacity_bps must be > 0"):
        rtt_shares(-5e6, [0.3, 0.3])


def test_rtt_shares_rejects_non_positive_rtt():
    with pytest.raises(ValueError, match=r"rtts_s must be > 0; got 0"):
        rtt_shares(5e6, [0.3, 0.0])


def test_rtt_shares_rejects_negative_connections():
    with pytest.raises(ValueError, match=r"connections must be >= 0; got -1"):
        rtt_shares(5e6, [0.3, 0.3], [1, -1])


def test_rtt_shares_rejects_all_zero_connections():
    with pytest.raises(ValueError, match=r"connections must not all be zero"):
        rtt_shares(5e6, [0.3, 0.3], [0, 0])


def test_rtt_shares_rejects_length_mismatch():
    with pytest.raises(ValueError, match=r"one entry per RTT"):
        rtt_shares(5e6, [0.3, 0.3], [1, 2, 3])


def test_rtt_shares_rejects_name_mismatch():
    with pytest.raises(ValueError, match=r"missing \['h2'\], unknown \['h3'\]"):
        rtt_shares(5e6, {"h1": 0.3, "h2": 0.3}, {"h1": 1, "h3": 3})


def test_rtt_shares_rejects_keyed_connections_with_unkeyed_rtts():
    with pytest.raises(ValueError, match=r"connections is keyed by name"):
        rtt_shares(5e6, [0.3, 0.3], {"h1": 1, "h2": 3})


def test_rtt_shares_rejects_empty():
    with pytest.raises(ValueError, match=r"at least one entry"):
        rtt_shares(5e6, [])


def test_rtt_shares_rejects_array_capacity():
    with pytest.raises(ValueError, match=r"capacity_bps must be a single number"):
        rtt_shares([5e6, 1e6], [0.3, 0.3])


@pytest.mark.parametrize("beta", [0, 1, -0.3])
def test_cubic_rejects_beta_outside_open_unit_interval(beta):
    with pytest.raises(ValueError, match=r"beta must be in \(0, 1\)"):
        cubic_k(100, beta=beta)


def test_cubic_rejects_non_positive_c():
    with pytest.raises(ValueError, match=r"c must be > 0"):
        cubic_window(1.0, 100, c=0)


def test_cubic_rejects_non_positive_w_max():
    with pytest.raises(ValueError, match=r"w_max must be > 0"):
        cubic_k(0)


def test_cubic_rejects_negative_time():
    with pytest.raises(ValueError, match=r"t_s must be >= 0; got -1"):
        cubic_reno_friendly_window(-1, 0.1, 100)


def test_cubic_reno_friendly_rejects_non_positive_rtt():
    with pytest.raises(ValueError, match=r"rtt_s must be > 0"):
        cubic_reno_friendly_window(1.0, 0, 100)


def test_cubic_average_window_rejects_bad_loss():
    with pytest.raises(ValueError, match=r"loss must be in \(0, 1\]"):
        cubic_average_window(0.1, 0)


def test_cubic_average_window_rejects_non_positive_reno_constant():
    with pytest.raises(ValueError, match=r"reno_constant must be > 0"):
        cubic_average_window(0.1, 0.01, reno_constant=0)


def test_cubic_rate_rejects_non_positive_segment():
    with pytest.raises(ValueError, match=r"segment_bytes must be > 0"):
        cubic_rate_bps(0, 0.1, 0.01)


def test_bdp_rejects_non_positive_rate():
    with pytest.raises(ValueError, match=r"rate_bps must be > 0"):
        bdp_bytes(0, 0.1)


def test_window_limited_rate_rejects_negative_window():
    with pytest.raises(ValueError, match=r"window_bytes must be >= 0"):
        window_limited_rate_bps(-1, 0.1)


def test_slow_start_rejects_non_positive_target():
    with pytest.raises(ValueError, match=r"target_window_segments must be > 0"):
        slow_start_rounds(0)


def test_slow_start_rejects_growth_of_one():
    with pytest.raises(ValueError, match=r"growth must be > 1"):
        slow_start_rounds(100, growth=1.0)


def test_slow_start_time_rejects_non_positive_rtt():
    with pytest.raises(ValueError, match=r"rtt_s must be > 0"):
        slow_start_time_s(100, 0)


def test_pftk_rejects_loss_too_small_for_floating_point():
    # a subnormal loss overflows the full model (inf / inf); it must not return NaN
    with pytest.raises(ValueError, match=r"loss=5e-324 is too small"):
        pftk_rate_pps(0.1, 5e-324, 1.0)


# --- a measured rate back to a loss rate; a test of finite length ---------------------------


def test_implied_loss_inverts_the_response_functions():
    p = 2e-4
    reno = tcp.mathis_rate_bps(1448, 0.1, p, c=tcp.RENO_CONSTANT)
    assert tcp.implied_loss(reno, 0.1) == pytest.approx(p, rel=1e-9)
    cubic = tcp.cubic_rate_bps(1448, 0.4, 1e-5)                   # CUBIC region
    assert tcp.implied_loss(cubic, 0.4, model="cubic") == pytest.approx(1e-5, rel=1e-9)
    friendly = tcp.cubic_rate_bps(1448, 0.01, 0.02)               # Reno-friendly region
    assert tcp.implied_loss(friendly, 0.01, model="cubic") == pytest.approx(0.02, rel=1e-9)


def test_round_model_tends_to_the_link_without_loss_and_falls_with_loss():
    assert tcp.round_model_rate(600, 10e6, 0.05, 1e-12) == pytest.approx(10e6 * 1448 / 1514, rel=0.02)
    short, long_ = (tcp.round_model_rate(d, 100e6, 0.42, 1e-3) for d in (5, 120))
    assert short > long_ > tcp.mathis_rate_bps(1448, 0.42, 1e-3, c=tcp.RENO_CONSTANT)


def test_one_shaper_header_size_and_one_cubic_beta():
    # Ethernet 14 + IPv4 20 + TCP 20 + timestamps 12, as tc counts a segment
    assert tcp.SHAPER_HEADER_BYTES == 66 == frame(1448, "tcp", tcp_options_bytes=12).bytes("tc") - 1448
    assert tcp.link_packet_bytes(1448) == 1514.0
    assert tcp.CUBIC_BETA == 0.7 and tcp.RENO_BETA == 0.5
    with pytest.raises(ValueError, match="mss_bytes"):
        tcp.link_packet_bytes(0)
