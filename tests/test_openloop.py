"""UDP without congestion control: handout values, closed forms, conservation, errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from labcalc.labs import lab5
from labcalc.network import Network
from labcalc.openloop import ConvergenceError, fifo_split

P = lab5.Params()


@pytest.mark.parametrize(
    "scenario, h1, h2, loss",
    [  # handout Q13: goodputs in Mbit/s (3 decimals) and loss in % (1 decimal)
        (0, 1.0, 0.5, 0.0),
        (1, 0.938, 3.752, 6.2),
        (2, 0.469, 4.221, 53.1),
    ],
)
def test_handout_q13_proportional_split(scenario, h1, h2, loss):
    res = lab5.udp_split(P, scenario)
    assert res.goodputs["h1_udp"] / 1e6 == pytest.approx(h1, abs=0.0005)
    assert res.goodputs["h2_udp"] / 1e6 == pytest.approx(h2, abs=0.0005)
    assert 100 * res.loss["h1_udp"] == pytest.approx(loss, abs=0.05)
    assert 100 * res.loss["h2_udp"] == pytest.approx(loss, abs=0.05)


def test_handout_q14_measurements_follow_the_shaper_accounting():
    # handout Q14 measured (goodput Mbit/s h1, h2; loss % h1, h2). The tc accounting
    # (1042 bytes per datagram) predicts 4.03 % / 52.02 % loss; the wire one 6.19 % / 53.10 %.
    measured = {1: ((0.964, 3.83), (3.58, 4.11)), 2: ((0.487, 4.314), (51.26, 52.06))}
    for scenario, (goodputs, losses) in measured.items():
        tc = lab5.udp_split(P, scenario, accounting="tc")
        wire = lab5.udp_split(P, scenario)
        for host, m in zip(("h1_udp", "h2_udp"), goodputs):
            assert abs(tc.goodputs[host] / 1e6 - m) < 0.01
            assert abs(tc.goodputs[host] / 1e6 - m) < abs(wire.goodputs[host] / 1e6 - m)
        for host, m in zip(("h1_udp", "h2_udp"), losses):
            assert abs(100 * tc.loss[host] - m) < 0.8
            assert abs(100 * tc.loss[host] - m) < abs(100 * wire.loss[host] - m)


def test_handout_q21_q22_congestion_collapse():
    res = lab5.collapse(P)
    assert 100 * res.links.loc["N1-N2", "accepted"] == pytest.approx(13.6, abs=0.05)
    assert res.rates["AB"] / 1e6 == pytest.approx(0.136, abs=0.0005)
    assert res.rates["CD"] / 1e6 == pytest.approx(0.5, abs=1e-12)
    assert res.goodputs["AB"] / 1e6 == pytest.approx(0.128, abs=0.0005)
    assert res.goodputs["CD"] / 1e6 == pytest.approx(0.469, abs=0.0005)
    assert res.bottlenecks.tolist() == ["N1-N2", "N1-N2"]  # where each loses most


def test_collapse_total_goodput_falls_as_c_sends_more():
    # the point of section 2: beyond C = 0.5 Mbit/s, more offered traffic, less goodput
    net = lab5.network_lab52(P)
    totals = [float(fifo_split(net, {"AB": 1e6, "CD": c}).rates.sum()) for c in (0.5e6, 1e6, 2e6, 5e6, 10e6)]
    assert totals[0] == pytest.approx(1.5e6)
    assert all(a > b for a, b in zip(totals, totals[1:]))


def test_goodput_offered_mode():
    net = lab5.network_lab51(P, 4e6)
    a = fifo_split(net, {"h1_udp": 1e6, "h2_udp": 4e6}, offered="goodput")
    b = fifo_split(net)
    assert a.rates.tolist() == pytest.approx(b.rates.tolist(), rel=1e-12)


def test_ring_closed_form():
    # 4 links of capacity 1 in a ring, flow k crosses links k and k+1, each offers 3.
    # accepted fraction a solves 3 + 3a = 1/a, so a = (sqrt(21) - 3) / 6; delivered 3 a^2.
    links = {f"l{k}": 1.0 for k in range(4)}
    flows = {f"f{k}": [f"l{k}", f"l{(k + 1) % 4}"] for k in range(4)}
    res = fifo_split(Network(links, flows), {f: 3.0 for f in flows})
    a = (math.sqrt(21) - 3) / 6
    assert res.links["accepted"].tolist() == pytest.approx([a] * 4, rel=1e-10)
    assert res.rates.tolist() == pytest.approx([3 * a * a] * 4, rel=1e-10)


def test_ring_not_converging_raises():
    links = {f"l{k}": 1.0 for k in range(4)}
    flows = {f"f{k}": [f"l{k}", f"l{(k + 1) % 4}"] for k in range(4)}
    with pytest.raises(ConvergenceError, match="max_iter=2"):
        fifo_split(Network(links, flows), {f: 3.0 for f in flows}, max_iter=2)


@st.composite
def feed_forward(draw):
    n_links = draw(st.integers(1, 6))
    links = {f"l{k}": draw(st.floats(0.1, 10)) for k in range(n_links)}
    flows, offered = {}, {}
    for i in range(draw(st.integers(1, 6))):
        hops = sorted(draw(st.sets(st.integers(0, n_links - 1), min_size=1, max_size=n_links)))
        flows[f"f{i}"] = [f"l{k}" for k in hops]  # increasing link order: no cycle
        offered[f"f{i}"] = draw(st.floats(0, 20))
    return Network(links, flows), offered


@settings(max_examples=80, deadline=None)
@given(feed_forward())
def test_conservation_and_feasibility(case):
    net, offered = case
    res = fifo_split(net, offered)
    links = res.links
    # delivered + dropped = offered at every link, and nothing exceeds capacity
    np.testing.assert_allclose(links.departing_bps + links.dropped_bps, links.arriving_bps, rtol=1e-12, atol=1e-12)
    assert (links.departing_bps <= links.capacity_bps * (1 + 1e-12)).all()
    # a link either is not overloaded or sends exactly its capacity
    over = links.arriving_bps > links.capacity_bps
    np.testing.assert_allclose(links.departing_bps[over], links.capacity_bps[over], rtol=1e-12)
    # per flow: offered = delivered + dropped along the route
    hops = res.hops
    dropped = (hops.arriving_bps - hops.departing_bps).groupby(hops.flow).sum()
    np.testing.assert_allclose((res.rates + dropped[res.rates.index]).values, res.offered.values, rtol=1e-12, atol=1e-12)
    assert ((res.loss >= 0) & (res.loss <= 1)).all()


# --- bad input -----------------------------------------------------------------------

def test_bad_offered_rates():
    net = Network({"r1": 1e6}, {"f": ["r1"]})
    with pytest.raises(ValueError, match=r"offered_bps\['f'\].*-1"):
        fifo_split(net, {"f": -1.0})
    with pytest.raises(ValueError, match=r"offered_bps\['f'\].*nan"):
        fifo_split(net, {"f": math.nan})
    with pytest.raises(ValueError, match="unknown flow 'g'"):
        fifo_split(net, {"g": 1.0})
    with pytest.raises(ValueError, match="offered must be 'rate' or 'goodput'; got 'bits'"):
        fifo_split(net, {"f": 1.0}, offered="bits")
