"""Property tests of the ns-3 front end through the worker process (issue 20, item 7).

Whatever values a student gives ``simulate``, the answer is a ``ValueError`` that names
them (before ns-3 starts) or a finished run: never an ns-3 abort (``SimulationAborted``),
never a hang (``SimulationTimeout``), never a NaN goodput or a RuntimeWarning. The values
are drawn around ns-3's limits (:mod:`labcalc.sim.limits`) and beyond, so most examples are
refused before any simulation and cost nothing; the few that run are kept short by
``max_packets``. ``make test`` runs a few dozen derandomized examples with the issue's
values as seeded examples; ``scripts/fuzz_long.py --only sim`` runs thousands of fresh ones.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labcalc import sim
from labcalc.network import Flow, Link, Network
from labcalc.sim import limits, runner

BIG = [math.inf, math.nan, -1.0, 0.0, 1e300]


def mostly(valid, invalid):
    """Nine draws in ten from ``valid``, so that a good share of the cases run."""
    return st.sampled_from([True] * 9 + [False]).flatmap(lambda ok: valid if ok else invalid)


CAPACITIES = mostly(st.one_of(st.sampled_from([1.0, 1e3, 5e6, 1e9, limits.MAX_CAPACITY_BPS]), st.floats(1.0, 1e8)),
                    st.sampled_from([1e-3, 0.4, 2.1e11, 1e12, 1e15] + BIG))
DELAYS = mostly(st.sampled_from([0.0, 1e-9, 0.01, 0.3, 100.0, limits.MAX_TIME_S]),
                st.sampled_from([limits.MAX_TIME_S * 1.01, 5e11] + BIG))
RTTS = mostly(st.sampled_from([None, None, 2e6]), st.sampled_from([1e12, 1e-3] + BIG))
SEEDS = mostly(st.one_of(st.sampled_from([1, 2**31, limits.MAX_SEED]), st.integers(1, 1000)),
               st.sampled_from([-1, 0, limits.MAX_SEED + 1, 4294967087, 2**32 - 1, 2**32, 2**64, True, 1.5]))
COUNTS = mostly(st.sampled_from([1, 2, 100, 2**32 - 1]), st.sampled_from([0, 2**32, 2**40, -3, True, 2.0]))
DURATIONS = mostly(st.sampled_from([1e-9, 1e-4, 0.01, 0.5, 2.0, 1e6]), st.sampled_from([1e-12, 1e7] + BIG))
INTERVALS = mostly(st.sampled_from([None, 1, 10, 1000]),       # None, or duration_s / this
                   st.sampled_from([1e-12, 1e9] + BIG))
FRACTIONS = st.one_of(st.none(), mostly(st.sampled_from([0.0, 0.2, 0.5, 0.95]),
                                        st.sampled_from([1.0, 1.5, -0.1, math.nan])))
RATES = st.one_of(st.none(), mostly(st.sampled_from([1e-3, 1.0, 1e6, 8e9]), st.sampled_from([1e-300, 1e15, 1e16] + BIG)))
PAYLOADS = st.one_of(st.none(), mostly(st.sampled_from([1, 1000, 65507]), st.sampled_from([0, 65508, 2**40])))
TCPS = mostly(st.sampled_from(["NewReno", "Cubic", "Bbr", "LinuxReno", "Vegas"]), st.just("Compound"))
QUEUE_DISCS = mostly(st.sampled_from([None, "droptail", "red", "codel", "fq_codel", "pie"]), st.just("sfq"))
QUEUES = st.one_of(st.none(), mostly(st.sampled_from([1, 10, 1000, 2**32 - 1]), st.sampled_from([0, 2**32, 2**63])))
ERRORS = mostly(st.sampled_from([0.0, 0.01, 0.5, 0.999]), st.sampled_from([1.0, -0.1, math.nan]))
RUNS = {"runs": 0, "refused": 0}


@st.composite
def cases(draw):
    """(network arguments, simulate options): one or two flows through one or two links."""
    cap, delay, rtt = draw(CAPACITIES), draw(DELAYS), draw(RTTS)
    two = draw(st.booleans())
    duration = draw(DURATIONS)
    interval = draw(INTERVALS)
    if interval is not None and interval >= 1 and isinstance(duration, float) and math.isfinite(duration):
        interval = duration / interval
    opts = dict(duration_s=duration, seed=draw(SEEDS), delayed_ack_count=draw(COUNTS), interval_s=interval,
                tcp=draw(TCPS), queue_disc=draw(QUEUE_DISCS), error_rate=draw(ERRORS))
    queue = draw(QUEUES)
    if queue is not None:
        opts["queue_packets"] = queue
    start = draw(FRACTIONS)
    if start is not None and isinstance(duration, float) and math.isfinite(duration):
        opts["start_s"] = {"a": start * duration}
    warm = draw(FRACTIONS)
    if warm is not None and isinstance(duration, float) and math.isfinite(duration):
        opts["warmup_s"] = warm * duration
    if two:
        opts["offered_bps"] = {"b": draw(RATES) or 1e6}
        payload = draw(PAYLOADS)
        if payload is not None:
            opts["payload_bytes"] = {"b": payload}
    return (cap, delay, rtt, two), opts


def _network(cap, delay, rtt, two):
    flows = {"a": Flow(["l"], rtt_s=rtt)}
    if two:
        flows["b"] = Flow(["l"])
    return Network({"l": Link(cap, delay_s=delay)}, flows)


def check(net_args, opts):
    """The property: a ValueError (not an abort) or a finished run with a finite goodput per flow."""
    try:
        net = _network(*net_args)
        res = sim.simulate(net, max_packets=20_000, timeout_s=60, **opts)
    except (runner.SimulationAborted, runner.SimulationTimeout):
        raise
    except ValueError:
        RUNS["refused"] += 1
        return None
    RUNS["runs"] += 1
    assert list(res.summary.index) == list(net.flow_names)
    assert res.summary["goodput_bps"].map(math.isfinite).all(), res.summary
    assert (res.summary["goodput_bps"] >= 0).all()
    return res


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=cases())
# the values (each killed the process before), then values at the limits
@example(case=((5e6, 0.01, 1e12, False), dict(duration_s=2.0)))                         # rtt_ms = 1e15
@example(case=((1e-3, 0.01, None, False), dict(duration_s=2.0)))                        # capacity_bps = 1e-3
@example(case=((5e6, 0.01, None, False), dict(duration_s=2.0, delayed_ack_count=2**40)))
@example(case=((5e6, 0.01, None, False), dict(duration_s=2.0, seed=4294967295)))
@example(case=((1e3, 0.01, None, False), dict(duration_s=1e6)))                         # 1.9 GiB of samples before
@example(case=((5e6, 0.01, None, False), dict(duration_s=30.0, start_s={"a": 30.0})))  # NaN goodput before
@example(case=((5e6, 0.01, None, True), dict(duration_s=0.5, seed=limits.MAX_SEED, offered_bps={"b": 8e9},
                                              payload_bytes={"b": 1})))                  # 1-ns gaps
def test_simulate_refuses_or_runs_never_aborts(ns3, case):
    check(*case)


def test_the_seeded_examples_are_refused_before_ns3(monkeypatch):
    """The issue's four killers and the NaN case never reach a worker."""
    def refuse(*a, **k):
        raise AssertionError("a worker was asked for")
    monkeypatch.setattr(runner, "default_worker", refuse)
    for net_args, opts in [((5e6, 0.01, 1e12, False), dict(duration_s=2.0)),
                           ((1e-3, 0.01, None, False), dict(duration_s=2.0)),
                           ((5e6, 0.01, None, False), dict(duration_s=2.0, delayed_ack_count=2**40)),
                           ((5e6, 0.01, None, False), dict(duration_s=2.0, seed=4294967295)),
                           ((5e6, 0.01, None, False), dict(duration_s=30.0, start_s={"a": 30.0}))]:
        with pytest.raises(ValueError):
            sim.simulate(_network(*net_args), **opts)
