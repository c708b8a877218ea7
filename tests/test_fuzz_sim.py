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

import numpy as np
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


# ---------------------------------------------------------------------------------------------
# The options that came after the first campaign (socket_buffer_bytes, linux_rto, a host's own
# interface) and the types a notebook hands in (numpy scalars from np.arange / np.linspace,
# ints beyond float), through prepare(): the checks only, no ns-3, so hundreds of examples
# cost a second. The property: a plan within ns-3's limits whose values are Python's own
# (so that a cache key does not depend on how a number was spelled), or a one-line ValueError
# that names what was given.

HOSTILE = [True, np.True_, math.nan, math.inf, -1, 0, 2**64, 10**400, "1", None, [1], {"zz": 1}]
OPTION_VALUES = {
    "duration_s": st.sampled_from([0.5, 2, np.float64(2.0), np.float32(1.5), np.int64(3), 1e6 + 1] + HOSTILE),
    "seed": st.sampled_from([1, np.int64(7), np.uint32(9), limits.MAX_SEED, 1.0] + HOSTILE),
    "queue_packets": st.sampled_from([1, 50, np.int64(50), 2**32 - 1, {"s": np.int32(5)}, {"s": 0}] + HOSTILE),
    "socket_buffer_bytes": st.sampled_from([2896, 2**20, 2**30, 2**30 + 1, 2895, np.int64(2**22), 1e6] + HOSTILE),
    "linux_rto": st.sampled_from([None, True, False, np.False_, 1, "yes"]),
    "ts_rtt": st.sampled_from([True, False, np.bool_(True), 0]),
    "queue_disc": st.sampled_from([None, "host", "HOST ", "droptail", "red", {"h": "host"}, {"s": "host"},
                                   {"h": "red", "s": "host"}, {"zz": "host"}, {"h": 3}, "sfq"]),
    "delayed_ack_count": st.sampled_from([1, 2, np.int64(2), 2**32 - 1, 2**32, 2.0] + HOSTILE),
    "error_rate": st.sampled_from([0.0, 0.01, np.float64(0.1), {"s": 0.5}, {"a": 0.1}, 1.0] + HOSTILE),
    "start_s": st.sampled_from([None, 0.0, {"a": np.float64(0.1)}, {"b": 0.2}, 10**400, {"a": math.nan}]),
    "offered_bps": st.sampled_from([None, {"c": 1e6}, {"c": np.float64(2e6)}, {"c": 10**400}, {"c": 8e15}]),
    "payload_bytes": st.sampled_from([None, {"c": 1}, {"c": np.int64(1000)}, {"c": 65508}, {"c": 10**400}]),
    "max_packets": st.sampled_from([5e6, np.float64(1e7), 10**400, 0, math.nan]),
}


PREPARED = {"planned": 0, "refused": 0}


def _host_network(n_extra: int = 0, buffer_packets=None):
    """A host's own interface h (flows a and c start there) before a shared link s (a, b, c)."""
    flows = {"a": Flow(["h", "s"]), "b": Flow(["s"]), "c": Flow(["h", "s"])}
    flows.update({f"x{i}": Flow(["h", "s"]) for i in range(n_extra)})
    return Network({"h": Link(1e8, delay_s=0.001, buffer_packets=buffer_packets), "s": Link(1e7, delay_s=0.01)},
                   flows)


def check_prepare(opts: dict, network=None):
    """The property of prepare(): a plan within ns-3's limits, in Python's types, or a ValueError naming the input."""
    network = _host_network() if network is None else network
    opts = dict(opts)
    if "offered_bps" not in opts and "payload_bytes" in opts:
        opts["offered_bps"] = {"c": 1e6}         # payload_bytes is for UDP: make c UDP
    try:
        p, attrs = sim.prepare(network, **opts)
    except sim.SimulationTooLong:
        PREPARED["refused"] += 1
        return None
    except ValueError as exc:
        PREPARED["refused"] += 1
        text = str(exc)
        assert "\n" not in text and len(text) < 700, text
        named = list(opts) + ["link '", "links.", "flows.", "flow '", "interval_s"]
        assert any(n in text for n in named), (opts, text)
        return None
    limits.check_plan(p)
    assert "np." not in repr(p), repr(p)          # Python's own types: one cache key per run
    for link in p.links:
        assert link.red is not None or 1 <= link.queue_packets <= limits.MAX_UINT32
        if link.host:      # only the first link of the flows that use it
            assert all(f.links[0] == link.name for f in p.flows if link.name in f.links), link
    assert math.isfinite(p.duration_s) and math.isfinite(p.estimated_packets)
    PREPARED["planned"] += 1
    return p


@settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(opts=st.fixed_dictionaries({}, optional=OPTION_VALUES))
# the classes this campaign found: numpy scalars refused, ints beyond float an OverflowError,
# a 'host' queue a flow crosses mid-route, a host's room overflowing 32 bits
@example(opts={"queue_packets": np.int64(50), "duration_s": np.float32(1.5), "seed": np.int64(7)})
@example(opts={"duration_s": 10**400})
@example(opts={"start_s": 10**400})
@example(opts={"queue_disc": {"s": "host"}})
@example(opts={"queue_disc": "host", "queue_packets": 2**32 - 1})
@example(opts={"socket_buffer_bytes": 2**30, "queue_disc": {"h": "host"}, "queue_packets": 2**32 - 2**22})
def test_prepare_plans_within_limits_or_refuses_by_name(opts):
    check_prepare(opts)


def test_numpy_scalars_plan_as_pythons_numbers():
    """A grid from np.arange / np.linspace: the same plan (and cache key) as plain numbers."""
    from labcalc.sim.grid import run_key

    net = _host_network()
    mine = dict(queue_packets=np.int64(50), duration_s=np.float32(2.0), seed=np.int64(3), sack=np.False_,
                socket_buffer_bytes=np.int64(2**22), delayed_ack_count=np.int8(2), start_s={"a": np.float64(0.5)})
    plain = dict(queue_packets=50, duration_s=2.0, seed=3, sack=False, socket_buffer_bytes=2**22,
                 delayed_ack_count=2, start_s={"a": 0.5})
    assert run_key(sim.prepare(net, **mine)[0]) == run_key(sim.prepare(net, **plain)[0])


@pytest.mark.parametrize("option, value, message", [
    ("duration_s", 10**400, r"duration_s must be in \(0, 1e\+06\]; got 1" + "0" * 56 + r"\.\.\.$"),
    ("error_rate", 10**400, r"error_rate must be in \[0, 1\); got 10000"),
    ("seed", 10**5000, r"seed must be a whole number in 1 \.\. 4294944442 .*; got <a whole number of about 5000 digits>"),
    ("timeout_s", math.nan, r"timeout_s must be a number of seconds > 0 \(or None for no limit\); got nan"),
    ("timeout_s", -1, r"timeout_s must be a number of seconds > 0 .*; got -1"),
    ("timeout_s", "5", r"timeout_s must be a number of seconds > 0 .*; got '5'"),
], ids=["duration-10**400", "error-10**400", "seed-10**5000", "timeout-nan", "timeout-negative", "timeout-str"])
def test_values_python_cannot_hand_to_ns3_are_refused_by_name(monkeypatch, option, value, message):
    def refuse(*a, **k):
        raise AssertionError("a worker was asked for")
    monkeypatch.setattr(runner, "default_worker", refuse)
    with pytest.raises(ValueError, match=message):
        sim.simulate(_host_network(), **{option: value})


def test_an_infinite_timeout_is_no_limit(monkeypatch):
    """timeout_s=inf raised OverflowError from select() and killed the warm worker."""
    seen = {}

    class Fake:
        def run(self, plan, attrs, timeout_s=None):
            seen["timeout_s"] = timeout_s
            return "ran"
    monkeypatch.setattr(runner, "default_worker", Fake)
    monkeypatch.setattr(sim._engine, "check_available", lambda: None)
    assert sim.simulate(_host_network(), duration_s=2.0, timeout_s=math.inf) == "ran" and seen == {"timeout_s": None}
    assert sim.simulate(_host_network(), duration_s=2.0, timeout_s=np.float64(30)) == "ran"
    assert seen == {"timeout_s": 30.0}
    with pytest.raises(ValueError, match=r"timeout_s must be a number of seconds > 0 .*; got nan"):
        runner.Worker().run(None, timeout_s=math.nan)


def test_a_host_queue_is_a_first_link_only_and_its_overflow_says_why():
    net = _host_network()
    with pytest.raises(ValueError, match=r"queue_disc\['s'\] = 'host' marks link 's' as a sending host's own "
                                         r"interface.*flow 'a' reaches it from link 'h'.*queue_disc=\{link: 'host'\}"):
        sim.plan(net, queue_disc={"s": "host"})
    with pytest.raises(ValueError, match=r"queue_disc = 'host' marks link 's'.*leave queue_disc out"):
        sim.plan(net, queue_disc="host")   # the CLI's --queue-disc host: no per-link mapping to suggest
    # the next step works: the host's first link
    assert [link.host for link in sim.plan(net, queue_disc={"h": "host"}).links[:2]] == [True, False]
    # room for the send buffers of a and c on top of the queue: 2 x ceil(2**30 / 1448) = 2 x 741,535 packets
    room = 2 * 741_535
    sim.plan(net, queue_disc={"h": "host"}, socket_buffer_bytes=2**30, queue_packets={"h": 2**32 - 1 - room})
    with pytest.raises(ValueError, match=r"link 'h': queue_packets = 4294967296: .*send buffers of the 2 TCP "
                                         r"flow\(s\) that start on it \(socket_buffer_bytes = 1073741824\)"):
        sim.plan(net, queue_disc={"h": "host"}, socket_buffer_bytes=2**30, queue_packets={"h": 2**32 - room})


def test_a_link_without_buffer_is_refused_with_a_step_that_works():
    """buffer_packets = 0 became a 1-packet queue without a word."""
    net = _host_network(buffer_packets=0)
    with pytest.raises(ValueError, match=r"links.h.buffer_packets = 0: an ns-3 queue holds at least 1 packet .* "
                                         r"pass queue_packets=\{'h': 1\}"):
        sim.plan(net)
    assert sim.plan(net, queue_packets={"h": 1}).links[0].queue_packets == 1


def test_scenario_payload_of_zero_is_named(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[links.l]\ncapacity_mbps = 5\n[flows.f]\nroute = ["l"]\ntransport = "udp"\npayload_bytes = 0\n')
    with pytest.raises(ValueError, match=r"\[flows.f\]: payload_bytes must be at least 1 byte; got 0"):
        sim.prepare(path)
