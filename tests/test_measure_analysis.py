"""Analysis helpers of labcalc.measure: steady_state, cwnd_phases, receive_rate, queue_occupancy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labcalc import measure as m

# --------------------------------------------------------------------------------------
# steady_state


def _warmup_series(n=300, warm=40, level=5.0e6, noise=5e4, seed=1):
    rng = np.random.default_rng(seed)
    x = level + rng.normal(0, noise, n)
    x[:warm] = np.linspace(0.0, level, warm)  # a ramp, far below the steady level
    return pd.Series(x, index=np.arange(n) * 1.0)


def test_steady_state_drops_the_ramp_and_covers_the_level():
    s = _warmup_series()
    res = m.steady_state(s)
    assert 35 <= res.n_truncated <= 60
    assert res.truncated_at == float(res.n_truncated)
    assert abs(res.mean - 5.0e6) < 3 * res.half_width
    assert res.half_width < 2e4
    assert res.n_used + res.n_truncated == len(s)
    assert res.reliable
    # without the truncation the naive mean is biased low by the ramp
    assert s.mean() < res.ci_low


def test_steady_state_interval_coverage_is_close_to_nominal():
    hits = []
    for seed in range(120):
        res = m.steady_state(_warmup_series(seed=seed))
        hits.append(res.ci_low < 5.0e6 < res.ci_high)
    assert 0.85 <= np.mean(hits) <= 1.0


def test_steady_state_table_and_relative_width():
    res = m.steady_state(_warmup_series())
    table = res.table()
    assert table.loc["mean", "value"] == res.mean
    assert table.loc["n_batches", "value"] == 10
    assert res.relative_half_width == pytest.approx(res.half_width / res.mean)


def test_steady_state_constant_series_has_zero_width():
    res = m.steady_state(np.full(50, 3.0))
    assert (res.mean, res.ci_low, res.ci_high, res.n_truncated) == (3.0, 3.0, 3.0, 0)


def test_steady_state_trend_is_flagged_unreliable():
    res = m.steady_state(np.arange(200.0))
    assert not res.reliable
    assert "warm-up not detected" in res.note


def test_steady_state_ignores_nans_and_accepts_lists():
    x = list(_warmup_series(n=100).to_numpy())
    x[70] = float("nan")
    res = m.steady_state(x)
    assert res.n_used + res.n_truncated == 99


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"series": np.ones(10)}, "at least 20"),
        ({"series": [1.0, np.inf] * 20}, "infinite"),
        ({"series": np.ones(50), "confidence": 1.5}, "confidence"),
        ({"series": np.ones(50), "batch_size": 0}, "batch_size"),
        ({"series": np.ones(50), "n_batches": 1}, "n_batches"),
        ({"series": pd.DataFrame({"a": np.ones(50)})}, "DataFrame"),
    ],
)
def test_steady_state_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        m.steady_state(**kwargs)


@settings(max_examples=40, deadline=None)
@given(
    level=st.floats(1e3, 1e9),
    warm=st.integers(0, 60),
    seed=st.integers(0, 2**16),
)
def test_steady_state_properties(level, warm, seed):
    rng = np.random.default_rng(seed)
    n = 400
    x = level * (1 + 0.01 * rng.standard_normal(n))
    x[:warm] *= np.linspace(0.0, 1.0, warm) if warm else 1
    res = m.steady_state(x)
    assert res.ci_low <= res.mean <= res.ci_high
    assert 0 <= res.n_truncated <= n // 2 + 5
    assert res.n_used >= n // 2 - 5
    # the retained mean is within a few percent of the true level
    assert abs(res.mean - level) < 0.02 * level


# --------------------------------------------------------------------------------------
# cwnd_phases


def reno_trace():
    """A NewReno-like byte trace in the style of ns-3 (segment 340 bytes)."""
    seg = 340
    t, c, s = [0.0], [seg], [np.nan]
    time = 0.0
    # slow start to 32 segments
    while c[-1] < 32 * seg:
        time += 0.01
        t.append(time), c.append(c[-1] + seg), s.append(np.nan)
    # 3 dupacks: ssthresh = 16 seg, cwnd = ssthresh + 3 seg, inflation by 1 seg per dupack
    time += 0.01
    t.append(time), c.append(19 * seg), s.append(16 * seg)
    for _ in range(3):
        time += 0.01
        t.append(time), c.append(c[-1] + seg), s.append(16 * seg)
    # new ACK: deflate to ssthresh, then congestion avoidance
    time += 0.01
    t.append(time), c.append(16 * seg), s.append(16 * seg)
    for _ in range(20):
        time += 0.01
        t.append(time), c.append(c[-1] + seg * seg // c[-1]), s.append(16 * seg)
    # timeout
    time += 0.2
    t.append(time), c.append(seg), s.append(c[-2] // 2)
    for _ in range(4):
        time += 0.01
        t.append(time), c.append(c[-1] * 2), s.append(s[-1])
    return pd.DataFrame({"time_s": t, "cwnd_bytes": c, "ssthresh_bytes": s})


def test_cwnd_phases_newreno_with_ssthresh():
    trace = reno_trace()
    res = m.cwnd_phases(trace)
    tab = res.table()
    assert tab["state"].tolist() == ["slow-start", "fast-recovery", "congestion-avoidance", "slow-start",
                                     "congestion-avoidance"]
    assert tab["event"].tolist() == ["start", "3 duplicate ACKs", "new ACK", "timeout", "cwnd >= ssthresh"]
    assert tab["cwnd_before"].iloc[1] == 32 * 340 and tab["cwnd_after"].iloc[1] == 19 * 340
    assert tab["cwnd_after"].iloc[2] == 16 * 340
    assert tab["cwnd_after"].iloc[3] == 340
    assert res.unit == "bytes" and res.segment == 340
    assert len(res.states) == len(trace)
    secs = res.time_in_state()
    assert secs.sum() == pytest.approx(trace["time_s"].iloc[-1])
    assert secs["fast-recovery"] == pytest.approx(0.04)


def test_cwnd_phases_without_ssthresh_estimates_it():
    trace = reno_trace().drop(columns="ssthresh_bytes")
    tab = m.cwnd_phases(trace).table()
    assert tab["event"].tolist()[:2] == ["start", "3 duplicate ACKs"]
    assert "timeout" in tab["event"].tolist()


def test_cwnd_phases_separate_ssthresh_frame_like_ns3_files():
    trace = reno_trace()
    ssth = trace[["time_s", "ssthresh_bytes"]].dropna().drop_duplicates("ssthresh_bytes")
    a = m.cwnd_phases(trace).table()
    b = m.cwnd_phases(trace.drop(columns="ssthresh_bytes"), ssthresh=ssth).table()
    pd.testing.assert_frame_equal(a, b)


def test_cwnd_phases_on_ns3_fixture_and_seed_style_start_row():
    cwnd = m.read_ns3("tests/data/measure/ns3-cwnd.data")
    ssth = m.read_ns3("tests/data/measure/ns3-ssth.data")
    tab = m.cwnd_phases(cwnd, ssthresh=ssth).table()
    assert tab.iloc[0].tolist() == [1.0, 0.0, 536.0, "slow-start", "start"]
    assert "timeout" in tab["event"].tolist()


def test_cwnd_phases_linux_segments_prr_style():
    # Linux: ssthresh drops first, cwnd falls gradually (PRR) to ssthresh, then grows by 1
    cw = [10, 20, 40, 80, 79, 70, 60, 56, 57, 58, 59]
    ss = [np.nan] * 4 + [56] * 7
    trace = pd.DataFrame({"time_s": np.arange(len(cw)) * 0.1, "cwnd_segments": cw, "ssthresh_segments": ss})
    tab = m.cwnd_phases(trace).table()
    assert tab["state"].tolist() == ["slow-start", "fast-recovery", "congestion-avoidance"]
    assert tab["time_s"].tolist() == pytest.approx([0.0, 0.4, 0.7])


def test_cwnd_phases_recorded_cubic_flow():
    df = m.read_tcp_probe("data/measurements/recorded/tcp_probe_trace.txt.gz", port=5201)
    sizes = df.groupby(["src", "dst"], observed=True).size()
    src, dst = sizes[[not str(s).startswith("[") for s, _ in sizes.index]].idxmax()
    flow = df[(df["src"] == src) & (df["dst"] == dst)]
    res = m.cwnd_phases(flow)
    states = set(res.table()["state"])
    assert {"slow-start", "fast-recovery", "congestion-avoidance"} <= states


def test_cwnd_phases_errors():
    with pytest.raises(ValueError, match="cwnd_bytes' or 'cwnd_segments"):
        m.cwnd_phases(pd.DataFrame({"time_s": [0.0], "x": [1]}))
    with pytest.raises(ValueError, match="time_s"):
        m.cwnd_phases(pd.DataFrame({"cwnd_bytes": [1]}))
    two = pd.DataFrame({"time_s": [0, 1], "cwnd_segments": [1, 2], "src": ["a:1", "b:2"], "dst": ["c:3", "c:3"]})
    with pytest.raises(ValueError, match="holds 2 flows"):
        m.cwnd_phases(two)
    with pytest.raises(ValueError, match="min_drop"):
        m.cwnd_phases(reno_trace(), min_drop=2)
    with pytest.raises(ValueError, match="unit"):
        m.cwnd_phases(reno_trace().drop(columns="ssthresh_bytes"),
                      ssthresh=pd.DataFrame({"time_s": [0.0], "ssthresh_segments": [3]}))


def test_cwnd_phases_without_ssthresh_inflation_then_deflation_is_one_loss():
    # Reno: 16 -> 11 (= 8 + 3 segments), inflation 12, 13, deflation to ssthresh 8
    trace = pd.DataFrame({"time_s": np.arange(11) * 0.1, "cwnd_segments": [1, 2, 4, 8, 16, 11, 12, 13, 8, 9, 10]})
    tab = m.cwnd_phases(trace).table()
    assert tab["event"].tolist() == ["start", "3 duplicate ACKs", "new ACK"]
    assert tab["state"].tolist() == ["slow-start", "fast-recovery", "congestion-avoidance"]
    assert tab["time_s"].tolist() == pytest.approx([0.0, 0.5, 0.8])
    assert tab[["cwnd_before", "cwnd_after"]].iloc[2].tolist() == [13.0, 8.0]


def test_cwnd_phases_ns3_seed001_style_trace_without_ssthresh():
    """An ns-3 NewReno byte trace shaped like seed 001 (Table 1), read without its ssthresh."""
    cwnd = m.read_ns3("tests/data/measure/ns3_newreno_seed001.cwnd")
    res = m.cwnd_phases(cwnd)
    tab = res.table()
    assert tab["time_s"].tolist() == [0.0, 1.93189, 2.0, 3.26916]
    assert tab["cwnd_before"].tolist()[1:] == [109480.0, 69190.0, 55170.0]
    assert tab["cwnd_after"].tolist() == [340.0, 55590.0, 54570.0, 340.0]
    assert tab["state"].tolist() == ["slow-start", "fast-recovery", "congestion-avoidance", "slow-start"]
    assert tab["event"].tolist() == ["start", "3 duplicate ACKs", "new ACK", "timeout"]
    assert res.segment == 340
    assert res.time_in_state()["fast-recovery"] == pytest.approx(2.0 - 1.93189)


def test_cwnd_phases_simulated_seed001_newreno_without_its_ssthresh_file():
    cwnd = m.read_ns3("data/measurements/seed001/simulated/newreno-cwnd.data")
    ssth = m.read_ns3("data/measurements/seed001/simulated/newreno-ssth.data")
    alone = m.cwnd_phases(cwnd, segment_bytes=340).table()
    both = m.cwnd_phases(cwnd, ssth, segment_bytes=340).table()
    # the ns-3 3.44 run (scripts/ns3_seed001.py): start, fast recovery (inflated), full ACK
    assert alone["event"].tolist()[:3] == ["start", "3 duplicate ACKs", "new ACK"]
    pd.testing.assert_frame_equal(alone.head(3), both.head(3))


def test_cwnd_phases_without_ssthresh_same_story_as_with_it():
    a = m.cwnd_phases(reno_trace()).table()
    b = m.cwnd_phases(reno_trace().drop(columns="ssthresh_bytes")).table()
    assert b["event"].tolist() == a["event"].tolist()
    assert b["state"].tolist() == a["state"].tolist()
    assert b["time_s"].tolist() == pytest.approx(a["time_s"].tolist())


def test_cwnd_phases_without_ssthresh_no_inflation_keeps_every_loss():
    # 1 s samples of a CUBIC flow (iperf3): each multiplicative decrease is a loss
    cw = [10, 20, 40, 80, 56, 60, 64, 70, 49, 53, 58, 41]
    tab = m.cwnd_phases(pd.DataFrame({"time_s": np.arange(len(cw)) * 1.0, "cwnd_segments": cw})).table()
    assert tab["event"].tolist() == ["start"] + ["3 duplicate ACKs", "new ACK"] * 2 + ["3 duplicate ACKs"]
    assert tab["time_s"].tolist() == [0.0, 4.0, 5.0, 8.0, 9.0, 11.0]
    # a drop to half + 3 segments followed by growth of 5 segments a sample: no inflation after all
    cw = [10, 20, 40, 23, 28, 33, 38, 22]
    tab = m.cwnd_phases(pd.DataFrame({"time_s": np.arange(len(cw)) * 1.0, "cwnd_segments": cw})).table()
    assert tab["event"].tolist() == ["start", "3 duplicate ACKs", "new ACK", "3 duplicate ACKs"]
    assert tab["time_s"].tolist() == [0.0, 3.0, 4.0, 7.0]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 500), min_size=2, max_size=200))
def test_cwnd_phases_never_fails_and_states_are_known(cw):
    trace = pd.DataFrame({"time_s": np.arange(len(cw)) * 0.01, "cwnd_segments": cw})
    res = m.cwnd_phases(trace)
    assert set(res.states) <= {"slow-start", "congestion-avoidance", "fast-recovery"}
    tab = res.table()
    assert tab["event"].iloc[0] == "start"
    assert (np.diff(tab["time_s"]) >= 0).all()


# --------------------------------------------------------------------------------------
# receive_rate and queue_occupancy


def test_receive_rate_constant_stream_and_short_first_windows():
    pkts = pd.DataFrame({"time_s": np.arange(0, 5, 0.001), "bytes": 125})  # 1 Mbit/s
    out = m.receive_rate(pkts, window_s=1.0)
    assert out["time_s"].iloc[0] == pytest.approx(0.1)
    np.testing.assert_allclose(out["rate_bps"], 1e6, rtol=0.011)
    assert out["packets"].iloc[0] == 100


def test_receive_rate_conserves_bytes_with_disjoint_windows():
    rng = np.random.default_rng(3)
    t = np.sort(rng.uniform(0, 10, 2000))
    pkts = pd.DataFrame({"time_s": t, "bytes": rng.integers(40, 1500, t.size)})
    out = m.receive_rate(pkts, window_s=0.5, step_s=0.5)
    assert out["bytes"].sum() == pkts["bytes"].sum()


def test_receive_rate_from_packet_counts_and_errors():
    df = pd.DataFrame({"time_s": [0.0, 0.5, 1.0], "packets": [10, 10, 10]})
    out = m.receive_rate(df, window_s=1.0, step_s=1.0, packet_bytes=1000)
    assert out["packets"].tolist() == [20, 10]
    assert out["rate_bps"].iloc[0] == pytest.approx(160000.0)
    with pytest.raises(ValueError, match="window_s"):
        m.receive_rate(df, window_s=0)
    with pytest.raises(ValueError, match="packet_bytes"):
        m.receive_rate(df[["time_s"]], window_s=1)


def test_queue_occupancy_with_tc_counters_and_drop_times():
    tc = m.read_tc_qdisc("tests/data/measure/tc_samples.txt")
    fifo = tc[tc["kind"] == "pfifo"]
    q = m.queue_occupancy(fifo)
    assert q["new_drops"].tolist() == [0, 4, 5]
    assert q["dropped"].tolist() == [False, True, True]
    with pytest.raises(ValueError, match="qdiscs"):
        m.queue_occupancy(tc)
    ql = m.read_qlen("data/measurements/recorded/qlen.txt")
    marks = m.queue_occupancy(ql, drops=[ql["time_s"].iloc[3] - 1e-4, ql["time_s"].iloc[3]])
    assert marks["new_drops"].iloc[3] == 2 and marks["dropped"].sum() == 1


def test_fast_recovery_when_ssthresh_rises_after_a_timeout():
    # timeout at 1.0 s sets ssthresh to 4; the window grows past 12, then a loss at 3.0 s
    # halves it to 6 and raises ssthresh from 4 to 6: still a fast recovery.
    from labcalc.measure import cwnd_phases

    trace = pd.DataFrame({
        "time_s": [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5],
        "cwnd_segments": [10, 16, 1, 4, 8, 12, 6, 7],
        "ssthresh_segments": [np.nan, np.nan, 8, 4, 4, 4, 6, 6],
    })
    events = cwnd_phases(trace).table()["event"].tolist()
    assert events.count("timeout") == 1
    assert "3 duplicate ACKs" in events[events.index("timeout") + 1:]
