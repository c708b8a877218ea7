"""sympy derivations agree with the handout and with the numerical solvers."""

import math

import pytest

from labcalc import symbolic
from labcalc.fairness import alpha_fair, proportional
from labcalc.network import Network
from labcalc.tcp import cubic_k, mathis_rate_bps, rtt_shares


def parking_lot(k, c=5e6):
    links = {f"r{i}": c for i in range(k)}
    flows = {"long": list(links), **{f"s{i}": [f"r{i}"] for i in range(k)}}
    return Network(links, flows)


def test_q40_closed_form():
    sol = symbolic.proportional_parking_lot().evaluate(c=5)
    assert sol == pytest.approx({"x": 5 / 3, "y": 10 / 3, "z": 10 / 3}, rel=1e-15)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_proportional_closed_form_matches_the_solver(k):
    alloc = proportional(parking_lot(k))
    closed = symbolic.proportional_parking_lot(k).evaluate(c=5e6)
    assert alloc.rates["long"] == pytest.approx(closed["x"], rel=1e-8)


@pytest.mark.parametrize("alpha", [0.5, 2.0, 4.0])
def test_alpha_fair_closed_form_matches_the_solver(alpha):
    closed = symbolic.alpha_fair_parking_lot(2).evaluate(c=5e6, alpha=alpha)
    alloc = alpha_fair(parking_lot(2), alpha)
    assert alloc.rates["long"] == pytest.approx(closed["x"], rel=1e-7)


def test_q35_share_system_matches_rtt_shares():
    c = 5e6 * 2896 / 2986
    for y, (h1, h2) in [(0.5, (1320e3, 3530e3)), (1.0, (910e3, 3940e3))]:
        sol = symbolic.rtt_share_system().evaluate(C=c, R=0.3, Y=y)
        num = rtt_shares(c, [0.3 + y, 0.3])
        assert [sol["g1"], sol["g2"]] == pytest.approx(list(num), rel=1e-12)
        assert sol["g1"] == pytest.approx(h1, abs=5e3) and sol["g2"] == pytest.approx(h2, abs=5e3)


def test_q12_formula():
    d = symbolic.udp_split_goodput()
    assert d.evaluate(C=5, r1=1, r2=9, e=1000 / 1066)["g1"] == pytest.approx(0.469, abs=5e-4)
    assert d.evaluate(C=5, r1=1, r2=0.5, e=1000 / 1066)["g1"] == 1.0


def test_cubic_k_and_mathis_derivations_match_tcp_module():
    assert symbolic.cubic_k().evaluate(W_max=80, beta=0.7, C=0.4)["K"] == pytest.approx(cubic_k(80), rel=1e-12)
    rate = symbolic.mathis_from_sawtooth().evaluate(L=2896 * 8, RTT=0.06, p=0.22)["rate"]
    assert rate == pytest.approx(mathis_rate_bps(2896, 0.06, 0.22, c=math.sqrt(1.5)), rel=1e-12)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_links.*0"):
        symbolic.proportional_parking_lot(0)
    with pytest.raises(ValueError, match="n_links"):
        symbolic.alpha_fair_parking_lot(-1)
