"""Tests of labcalc.fairness.

- the lab handout's numbers (reference/lab5_seed_values.toml: Q23/Q24 congestion collapse,
  Q39/Q40 parking lot, D2 RTT unfairness) to 1e-9 relative;
- closed forms: weighted shares on one link, proportional and alpha-fair parking lots;
- invariants on random small networks (hypothesis): feasibility and the bottleneck
  criterion for max-min, the KKT conditions for the utility-based allocations, the
  alpha -> inf limit, agreement with cvxpy/CLARABEL, scale invariance;
- bad input: one test per case.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labcalc import fairness
from labcalc.data import scenario_path
from labcalc.fairness import (
    Allocation,
    SolverError,
    alpha_fair,
    is_feasible,
    is_max_min_fair,
    is_pareto_efficient,
    jain_index,
    max_min,
    proportional,
    reno,
)
from labcalc.labs import lab5
from labcalc.network import Flow, Link, Network
from labcalc.scenario import load_network

REL = 1e-9
Mbps = 1e6


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def parking_lot(K: int, c: float = 5e6) -> Network:
    """K links of capacity c, one long flow over all of them, one short flow per link."""
    links = {f"r{k}": c for k in range(1, K + 1)}
    flows = {"long": list(links)}
    flows.update({f"short{k}": [f"r{k}"] for k in range(1, K + 1)})
    return Network(links, flows)


def handout_lot() -> Network:
    return Network({"r1": 5e6, "r2": 5e6},
                   {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})


def handout_collapse() -> Network:
    return Network(
        {"A-N1": 1e6, "C-N1": 10e6, "N1-N2": 1.5e6, "N2-D": 0.5e6, "N2-B": 10e6},
        {"AB": ["A-N1", "N1-N2", "N2-B"], "CD": ["C-N1", "N1-N2", "N2-D"]},
    )


def kkt_violation(net: Network, alloc: Allocation, alpha: float, weights=None) -> float:
    """Largest relative violation of the KKT conditions of the alpha-fair problem.

    max sum w U_alpha(x)  s.t.  R x <= c, 0 <= x <= d; with route prices q = R^T p and
    marginal utilities m_i = w_i x_i**-alpha: q_i = m_i below the demand, q_i <= m_i at
    the demand, p >= 0, and every link with a non-negligible price is saturated.
    """
    x = alloc.rates.to_numpy()
    p = alloc.link_prices.to_numpy()
    R = net.routing_matrix.astype(float).tocsr()
    c, d = net.capacities_bps, net.demands_bps
    w = net.weights if weights is None else np.asarray(weights)
    assert np.all(np.isfinite(x)) and np.all(np.isfinite(p))
    assert np.all(x >= 0) and np.all(p >= 0)
    q = R.T @ p
    load = R @ x
    live = d > 0
    assert np.all(x[~live] == 0)
    m = np.full(len(x), np.inf)
    m[live] = w[live] * x[live] ** -alpha
    below = live & (x < d * (1 - 1e-9))
    at = live & ~below
    finite = np.isfinite(d) & live
    violations = [
        np.max((load - c) / c, initial=0.0),  # primal feasibility
        np.max((x[finite] - d[finite]) / d[finite], initial=0.0),
        np.max(np.abs(q[below] - m[below]) / m[below], initial=0.0),  # stationarity
        np.max((q[at] - m[at]) / m[at], initial=0.0),  # held at the demand: q <= m
    ]
    rows = np.flatnonzero(np.diff(R.indptr) > 0)
    if rows.size:
        m_min = np.full(R.shape[0], np.inf)
        m_min[rows] = np.minimum.reduceat(m[R.indices], R.indptr[rows])
        with np.errstate(invalid="ignore"):
            rel_price = np.where(np.isfinite(m_min), p / m_min, 0.0)
        violations.append(np.max(np.minimum(rel_price, (c - load) / c)))  # compl. slackness
    return float(max(violations))


@st.composite
def networks(draw, demands=True, weights=True, max_links=5, max_flows=7):
    """Small random networks: routes are random non-empty link sets."""
    L = draw(st.integers(1, max_links))
    N = draw(st.integers(1, max_flows))
    caps = draw(st.lists(st.floats(1.0, 100.0), min_size=L, max_size=L))
    flows = {}
    for i in range(N):
        route = sorted(draw(st.sets(st.integers(0, L - 1), min_size=1, max_size=L)))
        demand = math.inf
        if demands:
            demand = draw(st.one_of(st.just(math.inf), st.just(0.0),
                                    st.floats(0.01, 50.0)))
        weight = draw(st.floats(0.25, 4.0)) if weights else 1.0
        flows[f"f{i}"] = Flow([f"l{k}" for k in route], demand_bps=demand, weight=weight)
    return Network({f"l{k}": Link(c) for k, c in enumerate(caps)}, flows)


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------------------
# the lab handout
# ---------------------------------------------------------------------------------------


def test_handout_parking_lot_max_min_q39():
    alloc = max_min(handout_lot())
    np.testing.assert_allclose(alloc.rates.to_numpy(), [2.5e6, 2.5e6, 2.5e6], rtol=REL)
    assert alloc.bottlenecks.tolist() == ["r1", "r1", "r2"]
    assert alloc.link_prices is None
    assert alloc.method == "max-min (water-filling)"


@pytest.mark.parametrize("method, rtol", [("newton", REL), ("cvxpy", 1e-9), ("cvxpy-raw", 1e-6)])
def test_handout_parking_lot_proportional_q40(method, rtol):
    alloc = proportional(handout_lot(), method=method)
    np.testing.assert_allclose(alloc.rates.to_numpy(), [5e6 / 3, 10e6 / 3, 10e6 / 3], rtol=rtol)
    # x_short = 1 / p: both prices are 3/10 per Mbit/s
    np.testing.assert_allclose(alloc.link_prices.to_numpy(), [0.3e-6, 0.3e-6], rtol=rtol * 10)


@pytest.mark.parametrize("allocate", [max_min, proportional], ids=["maxmin", "proportional"])
def test_handout_congestion_collapse_q23_q24(allocate):
    alloc = allocate(handout_collapse())
    np.testing.assert_allclose(alloc.rates.to_numpy(), [1e6, 0.5e6], rtol=REL)
    assert alloc.bottlenecks.tolist() == ["A-N1", "N2-D"]


def test_handout_congestion_collapse_goodputs_from_scenario_file():
    """Q23: goodputs 0.938 and 0.469 Mbit/s with 1000-byte datagrams (1066 on the wire)."""
    net = load_network(scenario_path("lab52"))
    alloc = max_min(net)
    np.testing.assert_allclose(alloc.rates.to_numpy(), [1e6, 0.5e6], rtol=REL)
    np.testing.assert_allclose(alloc.goodputs.to_numpy(), [1e6 * 1000 / 1066, 0.5e6 * 1000 / 1066], rtol=REL)
    assert [round(g / Mbps, 3) for g in alloc.goodputs] == [0.938, 0.469]


def test_handout_parking_lot_scenario_file():
    """lab53 scenario (unshaped host links at 1 Gbit/s): the same values as Q39/Q40."""
    net = load_network(scenario_path("lab53"))
    np.testing.assert_allclose(max_min(net).rates.to_numpy(), [2.5e6] * 3, rtol=REL)
    alloc = proportional(net)
    np.testing.assert_allclose(alloc.rates.to_numpy(), [5e6 / 3, 10e6 / 3, 10e6 / 3], rtol=REL)
    assert alloc.bottlenecks.tolist() == ["r1-eth1", "r1-eth1", "r2-eth2"]
    assert alloc.link_prices["h1-eth0"] == 0.0


def test_handout_d2_reno_rates_inversely_proportional_to_rtt():
    """Reno utility on one bottleneck: rates in the ratio 0.8 / 0.3 = 8/3 (scenario D2)."""
    net = load_network(scenario_path("lab51"), variant="D2")
    alloc = reno(net)
    assert alloc.rates["h2_tcp"] / alloc.rates["h1_tcp"] == pytest.approx(8 / 3, rel=REL)
    assert alloc.rates.sum() == pytest.approx(5e6, rel=REL)
    assert alloc.bottlenecks.tolist() == ["r1-eth1", "r1-eth1"]


def test_reno_equals_alpha_2_with_weights_one_over_rtt_squared():
    rtts = {"a": 0.05, "b": 0.1, "c": 0.3}
    net = Network({"r1": 10e6, "r2": 4e6},
                  {n: Flow(["r1", "r2"] if n == "a" else ["r1"], rtt_s=t) for n, t in rtts.items()})
    weighted = net.replace(flows={n: Flow(net.flows[n].route, weight=1 / t**2) for n, t in rtts.items()})
    np.testing.assert_allclose(reno(net).rates.to_numpy(), alpha_fair(weighted, 2).rates.to_numpy(), rtol=REL)
    assert kkt_violation(net, reno(net), 2.0, weights=[1 / t**2 for t in rtts.values()]) < 1e-9


# ---------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("K", [1, 2, 3, 5, 8])
def test_parking_lot_proportional_closed_form(K):
    """Kelly 1997: long flow c / (K + 1), each short flow K c / (K + 1)."""
    c = 5e6
    alloc = proportional(parking_lot(K, c))
    assert alloc.rates["long"] == pytest.approx(c / (K + 1), rel=REL)
    for k in range(1, K + 1):
        assert alloc.rates[f"short{k}"] == pytest.approx(K * c / (K + 1), rel=REL)


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0, 3.0, 10.0, 50.0])
def test_parking_lot_alpha_fair_closed_form(K, alpha):
    """Equal prices p: x_short = p**(-1/alpha), x_long = (K p)**(-1/alpha), so
    x_short = K**(1/alpha) x_long and x_long + x_short = c give x_long = c / (1 + K**(1/alpha))
    (Mo & Walrand 2000, the parking-lot example)."""
    c = 5e6
    alloc = alpha_fair(parking_lot(K, c), alpha)
    long = c / (1 + K ** (1 / alpha))
    assert alloc.rates["long"] == pytest.approx(long, rel=REL)
    assert alloc.rates["short1"] == pytest.approx(c - long, rel=REL)


def test_weighted_max_min_one_link():
    w = [1.0, 2.0, 5.0]
    net = Network({"r": 8e6}, {f"f{i}": Flow(["r"], weight=wi) for i, wi in enumerate(w)})
    expected = 8e6 * np.array(w) / sum(w)
    np.testing.assert_allclose(max_min(net).rates.to_numpy(), expected, rtol=REL)
    # on one link, weighted proportional fairness gives the same shares
    np.testing.assert_allclose(proportional(net).rates.to_numpy(), expected, rtol=REL)


def test_max_min_demands():
    net = Network({"r": 9e6}, {"small": Flow(["r"], demand_bps=1e6), "zero": Flow(["r"], demand_bps=0),
                               "a": ["r"], "b": ["r"]})
    alloc = max_min(net)
    np.testing.assert_allclose(alloc.rates.to_numpy(), [1e6, 0, 4e6, 4e6], rtol=REL)
    assert alloc.bottlenecks.tolist() == ["demand", "demand", "r", "r"]


def test_proportional_demands():
    net = Network({"r": 10e6}, {"small": Flow(["r"], demand_bps=2e6), "zero": Flow(["r"], demand_bps=0),
                                "a": ["r"], "b": ["r"]})
    alloc = proportional(net)
    np.testing.assert_allclose(alloc.rates.to_numpy(), [2e6, 0, 4e6, 4e6], rtol=REL)
    assert alloc.bottlenecks.tolist() == ["demand", "demand", "r", "r"]
    assert kkt_violation(net, alloc, 1.0) < 1e-9


def test_all_demands_below_capacity_leave_links_free():
    net = Network({"r": 10e6}, {"a": Flow(["r"], demand_bps=1e6), "b": Flow(["r"], demand_bps=2e6)})
    for alloc in (max_min(net), proportional(net), alpha_fair(net, 3)):
        np.testing.assert_allclose(alloc.rates.to_numpy(), [1e6, 2e6], rtol=REL)
        assert alloc.bottlenecks.tolist() == ["demand", "demand"]
    assert proportional(net).link_prices.tolist() == [0.0]


def test_jain_index():
    """Jain, Chiu, Hawe 1984: 1 for equal shares, 1/n when one flow takes everything."""
    assert jain_index([2.5e6] * 3) == pytest.approx(1.0)
    assert jain_index([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain_index(proportional(handout_lot()).rates) == pytest.approx((25 / 3) ** 2 / (3 * 25))


def test_checks_on_handout_allocations():
    net = handout_lot()
    mm, pf = max_min(net).rates, proportional(net).rates
    assert is_feasible(net, mm) and is_feasible(net, pf)
    assert is_pareto_efficient(net, mm) and is_pareto_efficient(net, pf)
    assert is_max_min_fair(net, mm) and not is_max_min_fair(net, pf)
    assert not is_feasible(net, [3e6, 2.5e6, 2.5e6])
    assert not is_pareto_efficient(net, [1e6, 1e6, 1e6])
    # arrays in flow order work as well as Series
    assert is_max_min_fair(net, mm.to_numpy())


def test_table_and_link_table():
    alloc = proportional(handout_lot())
    table = alloc.table()
    assert list(table.columns) == ["rate_bps", "goodput_bps", "bottleneck", "rate_Mbps", "goodput_Mbps"]
    assert table.index.name == "flow" and table.loc["1to2", "rate_Mbps"] == pytest.approx(10 / 3)
    links = alloc.link_table()
    assert list(links.columns) == ["load_bps", "capacity_bps", "utilisation", "price"]
    np.testing.assert_allclose(links["utilisation"], [1.0, 1.0], rtol=REL)
    assert max_min(handout_lot()).link_table()["price"].isna().all()
    assert "proportional" in repr(alloc)


def test_empty_network_gives_empty_allocation():
    net = Network({"r": 5e6}, {})
    for alloc in (max_min(net), proportional(net), alpha_fair(net, 2), reno(net),
                  proportional(net, method="cvxpy")):
        assert len(alloc.rates) == 0 and len(alloc.bottlenecks) == 0
        assert alloc.table().shape[0] == 0
        assert alloc.link_table()["load_bps"].tolist() == [0.0]


def test_large_random_network_invariants():
    """A from_routing network (no timing here; see benchmarks/bench_fairness.py)."""
    rng = np.random.default_rng(7)
    L, N = 60, 3000
    routes = [rng.choice(L, size=rng.integers(1, 6), replace=False) for _ in range(N)]
    rows = np.concatenate(routes)
    cols = np.repeat(np.arange(N), [len(r) for r in routes])
    R = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(L, N))
    demands = np.where(rng.random(N) < 0.3, rng.uniform(1e3, 1e5, N), np.inf)
    net = Network.from_routing(R, rng.uniform(1e6, 1e7, L), demands_bps=demands,
                               weights=rng.uniform(0.5, 2, N))
    mm = max_min(net)
    assert is_max_min_fair(net, mm.rates) and is_pareto_efficient(net, mm.rates)
    for alpha in (0.5, 1.0, 2.0):
        alloc = alpha_fair(net, alpha)
        assert kkt_violation(net, alloc, alpha) < 1e-9
        assert is_pareto_efficient(net, alloc.rates)


@pytest.mark.parametrize("dense_max_links, max_pairs", [(2, fairness.newton._MAX_PAIRS), (3000, 0)],
                         ids=["sparse-LU", "dense-from-sparse-product"])
def test_other_linear_algebra_paths(monkeypatch, dense_max_links, max_pairs):
    """Big networks use a sparse LU (more than _DENSE_MAX_LINKS links) or a sparse
    product instead of the bincount assembly: same rates."""
    routing = sp.random(30, 200, density=0.08, random_state=3, format="csr")
    routing = routing + sp.csr_matrix((np.ones(200), (np.arange(200) % 30, np.arange(200))), shape=(30, 200))
    net = Network.from_routing(routing, np.linspace(1e6, 5e6, 30))
    expected = alpha_fair(net, 2).rates.to_numpy()
    monkeypatch.setattr(fairness.newton, "_DENSE_MAX_LINKS", dense_max_links)
    monkeypatch.setattr(fairness.newton, "_MAX_PAIRS", max_pairs)
    alloc = alpha_fair(net, 2)
    np.testing.assert_allclose(alloc.rates.to_numpy(), expected, rtol=1e-10)
    assert kkt_violation(net, alloc, 2.0) < 1e-9


def test_import_does_not_load_cvxpy():
    code = "import sys, labcalc.fairness; print('cvxpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------------------
# properties on random small networks
# ---------------------------------------------------------------------------------------


@FAST
@given(networks())
def test_max_min_is_feasible_and_satisfies_the_bottleneck_criterion(net):
    alloc = max_min(net)
    x = alloc.rates.to_numpy()
    assert is_feasible(net, x, rtol=1e-12)
    assert is_max_min_fair(net, x, rtol=1e-9)
    assert is_pareto_efficient(net, x, rtol=1e-9)
    # the reported bottleneck is saturated and the flow's weighted rate is maximal there
    load = net.link_loads_bps(x)
    level = x / net.weights
    R = net.routing_matrix.tocsc()
    for i, name in enumerate(net.flow_names):
        b = alloc.bottlenecks[name]
        if b == "demand":
            assert x[i] == pytest.approx(net.demands_bps[i], rel=1e-12)
            continue
        k = net.link_index(b)
        assert load[k] == pytest.approx(net.capacities_bps[k], rel=1e-9)
        on_link = net.routing_matrix.tocsr()[k].indices
        assert level[i] >= level[on_link].max() * (1 - 1e-9)
        assert k in R[:, i].indices


@FAST
@given(networks(), st.sampled_from([0.5, 1.0, 2.0, 3.0]))
def test_alpha_fair_satisfies_kkt(net, alpha):
    alloc = alpha_fair(net, alpha)
    assert kkt_violation(net, alloc, alpha) < 1e-9
    assert is_pareto_efficient(net, alloc.rates)
    # bottleneck: "demand" exactly for the flows held at their demand, else a priced link
    for name, b in alloc.bottlenecks.items():
        if b != "demand":
            assert alloc.link_prices[b] > 0
            assert b in net.flows[name].route


@FAST
@given(networks(weights=False))
def test_large_alpha_approaches_max_min(net):
    """alpha = 50 (unit weights) is within a few percent of max-min (Mo & Walrand 2000)."""
    x50 = alpha_fair(net, 50).rates.to_numpy()
    mm = max_min(net).rates.to_numpy()
    pos = mm > 0
    assert np.all(x50[~pos] == 0)
    assert np.max(np.abs(x50[pos] - mm[pos]) / mm[pos], initial=0.0) < 0.05


@SLOW
@given(networks(), st.sampled_from([0.5, 1.0, 2.0]))
def test_dual_newton_agrees_with_cvxpy(net, alpha):
    fast = alpha_fair(net, alpha).rates.to_numpy()
    try:
        ref = alpha_fair(net, alpha, method="cvxpy-raw")  # CLARABEL alone: independent
    except SolverError:  # CLARABEL could not certify any of its attempts
        return
    # the solver string says which CLARABEL attempt succeeded (see fairness.problem._CLARABEL_ATTEMPTS)
    # CLARABEL's certified solutions are usually within 1e-7 of the KKT point, but on a
    # few random instances up to about 5e-6 (measured); looser attempts about 1e-4
    rtol = 1e-5 if ref.solver == "cvxpy/CLARABEL" else 5e-4
    np.testing.assert_allclose(ref.rates.to_numpy(), fast, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("method, rel", [("cvxpy-raw", 1e-6), ("cvxpy", 1e-12)])
def test_cvxpy_matches_closed_form(K, alpha, method, rel):
    # parking lot with K short flows: the long flow gets c / (1 + K**(1/alpha))
    c = 5e6
    alloc = alpha_fair(parking_lot(K, c), alpha, method=method)
    assert alloc.solver.startswith("cvxpy/CLARABEL")
    assert ("Newton polish (KKT verified)" in alloc.solver) == (method == "cvxpy")
    assert alloc.rates["long"] == pytest.approx(c / (1 + K ** (1 / alpha)), rel=rel)
    assert alloc.rates["short1"] == pytest.approx(c - c / (1 + K ** (1 / alpha)), rel=rel)


@SLOW
@given(networks(), st.sampled_from([0.5, 1.0, 2.0]))
def test_polished_cvxpy_agrees_with_dual_newton_to_1e9(net, alpha):
    # two routes to the optimum: CLARABEL + Newton polish on its active set, and the
    # dual Newton barrier path; both are checked against the KKT conditions
    fast = alpha_fair(net, alpha).rates.to_numpy()
    try:
        ref = alpha_fair(net, alpha, method="cvxpy")
    except SolverError:
        return
    if "polish failed" in ref.solver:  # CLARABEL's prices named a wrong active set
        return
    np.testing.assert_allclose(ref.rates.to_numpy(), fast, rtol=1e-9, atol=1e-9 * fast.max(initial=0))


@FAST
@given(networks(), st.sampled_from(["maxmin", 0.5, 1.0, 3.0]))
def test_scale_invariance(net, alpha):
    """Capacities and demands x 1e6 give rates x 1e6 at the same relative accuracy."""
    big = Network({n: Link(l.capacity_bps * 1e6) for n, l in net.links.items()},
                  {n: Flow(f.route, demand_bps=f.demand_bps * 1e6, weight=f.weight)
                   for n, f in net.flows.items()})
    solve = max_min if alpha == "maxmin" else (lambda n: alpha_fair(n, alpha))
    small_rates, big_rates = solve(net).rates.to_numpy(), solve(big).rates.to_numpy()
    np.testing.assert_allclose(big_rates, small_rates * 1e6, rtol=1e-9, atol=0)
    if alpha != "maxmin":
        assert kkt_violation(big, solve(big), alpha) < 1e-9


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0, -1, -0.5, math.nan, math.inf])
def test_alpha_must_be_positive(alpha):
    with pytest.raises(ValueError, match=r"alpha.*" + (r"nan" if alpha != alpha else repr(float(alpha)).replace("+", r"\+"))):
        alpha_fair(handout_lot(), alpha)


@pytest.mark.parametrize("alpha", ["2", None, True])
def test_alpha_must_be_a_number(alpha):
    with pytest.raises(ValueError, match="alpha"):
        alpha_fair(handout_lot(), alpha)


def test_reno_needs_every_rtt():
    net = Network({"r": 5e6}, {"ok": Flow(["r"], rtt_s=0.1), "norrt": Flow(["r"])})
    with pytest.raises(ValueError, match=r"rtt_s of flow 'norrt'"):
        reno(net)


def _from_routing():
    return Network.from_routing(sp.csr_matrix([[1, 1, 0], [1, 0, 1]]), [5e6, 5e6])


@pytest.mark.parametrize("field, attribute, index", [
    ("weight", "weights", 1),
    ("demand_bps", "demands_bps", 2),
    ("capacity_bps", "capacities_bps", 0),
    ("efficiency", "efficiencies", 0),
])
@pytest.mark.parametrize("allocate", [max_min, proportional], ids=["maxmin", "proportional"])
def test_nan_inputs_are_named(field, attribute, index, allocate):
    net = _from_routing()
    getattr(net, attribute)[index] = np.nan
    kind = "link" if attribute == "capacities_bps" else "flow"
    name = (net.link_names if kind == "link" else net.flow_names)[index]
    with pytest.raises(ValueError, match=rf"{field} of {kind} '{name}'.*nan"):
        allocate(net)


def test_negative_weight_is_named():
    net = _from_routing()
    net.weights[0] = -2.0
    with pytest.raises(ValueError, match=r"weight of flow 'f0'.*-2\.0"):
        alpha_fair(net, 2)


def test_unknown_method():
    with pytest.raises(ValueError, match=r"method.*'gradient'"):
        proportional(handout_lot(), method="gradient")


def test_newton_iteration_limit_is_a_solver_error():
    with pytest.raises(SolverError, match=r"max_iter=1 .*iteration limit"):
        proportional(parking_lot(5), max_iter=1)
    assert issubclass(SolverError, ValueError)


def test_cvxpy_iteration_limit_is_a_solver_error():
    with pytest.raises(SolverError, match=r"status"):
        proportional(parking_lot(5), method="cvxpy", max_iter=1)


def test_no_allocation_problem_is_infeasible():
    """x = 0 satisfies R x <= c and 0 <= x <= d, so every network has a solution: the
    only "infeasible" inputs are invalid ones (non-positive capacity, negative demand),
    which Network rejects. Demands far above capacity are simply not met."""
    with pytest.raises(ValueError, match="capacity_bps"):
        Network({"r": 0.0}, {"a": ["r"]})
    with pytest.raises(ValueError, match="demand_bps"):
        Network({"r": 1e6}, {"a": Flow(["r"], demand_bps=-1.0)})
    net = Network({"r": 1e6}, {"a": Flow(["r"], demand_bps=1e12), "b": Flow(["r"], demand_bps=1e12)})
    for alloc in (max_min(net), proportional(net)):
        assert is_feasible(net, alloc.rates)
        np.testing.assert_allclose(alloc.rates.to_numpy(), [0.5e6, 0.5e6], rtol=REL)


def test_rates_series_must_match_the_flows():
    net = handout_lot()
    with pytest.raises(ValueError, match="unknown flow 'x'"):
        is_feasible(net, pd.Series({"1to3": 1.0, "1to2": 1.0, "2to3": 1.0, "x": 1.0}))
    with pytest.raises(ValueError, match="no value for flow '2to3'"):
        is_feasible(net, pd.Series({"1to3": 1.0, "1to2": 1.0}))
    with pytest.raises(ValueError, match="3 entries"):
        is_feasible(net, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"rate_bps of flow '1to2'.*nan"):
        is_max_min_fair(net, [1.0, np.nan, 1.0])


@pytest.mark.parametrize("rates, message", [
    ([], "empty"),
    ([1.0, np.nan], "nan"),
    ([1.0, -1.0], "-1.0"),
    ([0.0, 0.0], "all zero"),
])
def test_jain_index_bad_input(rates, message):
    with pytest.raises(ValueError, match=message):
        jain_index(rates)


# --- polish_from_prices: exact rates from a solver's approximate link prices ---------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [1.0, 2.0])
def test_polish_from_prices_reaches_the_exact_optimum(seed, alpha):
    rng = np.random.default_rng(seed)
    L, N = 6, 9
    R = (rng.random((L, N)) < 0.35).astype(int)
    R[rng.integers(0, L, N), np.arange(N)] = 1  # every flow crosses a link
    c = rng.uniform(1.0, 10.0, L)
    w = rng.uniform(0.5, 2.0, N)
    net = Network.from_routing(R, c, weights=w)
    exact = fairness.alpha_fair(net, alpha)
    # perturb the optimal prices by 1e-4 relative, as an early-stopped solver would
    prices = exact.link_prices.to_numpy() * (1 + 1e-4 * rng.standard_normal(L))
    x = fairness.polish_from_prices(R, c, prices, w, alpha)
    assert x is not None
    np.testing.assert_allclose(x, exact.rates.to_numpy(), rtol=1e-9)
    assert fairness.is_feasible(net, x)


def test_polish_from_prices_refuses_wrong_prices():
    R, c = [[1, 1, 0], [1, 0, 1]], [5.0, 5.0]
    assert fairness.polish_from_prices(R, c, [0.0, 0.0]) is None
    assert fairness.polish_from_prices(R, c, [np.nan, 1.0]) is None
    # only link 0 priced: flow 2 would be free (infinite rate)
    assert fairness.polish_from_prices(R, c, [1.0, 0.0]) is None
    with pytest.raises(ValueError, match="2 capacities and prices and 3 weights"):
        fairness.polish_from_prices(R, c, [1.0])


# --- waterfilling_steps: the rounds of progressive filling, for display --------------------


def _random_network(rng, links=4, flows=6):
    names = [f"l{k}" for k in range(links)]
    fl = {}
    for i in range(flows):
        route = list(rng.choice(names, size=rng.integers(1, 3), replace=False))
        demand = float(rng.uniform(0.5, 4.0)) * 1e6 if rng.random() < 0.3 else math.inf
        fl[f"f{i}"] = Flow(route, demand_bps=demand, weight=float(rng.choice([1.0, 2.0])))
    return Network({n: float(rng.uniform(1.0, 6.0)) * 1e6 for n in names}, fl)


@pytest.mark.parametrize("seed", range(8))
def test_waterfilling_steps_end_at_max_min(seed):
    net = _random_network(np.random.default_rng(seed))
    steps = fairness.waterfilling_steps(net)
    final = steps.iloc[-1][net.flow_names].to_numpy(dtype=float)
    np.testing.assert_allclose(final, fairness.max_min(net).rates.to_numpy(), rtol=1e-9)
    assert list(steps.level_bps) == sorted(steps.level_bps)
    assert len(steps) <= net.n_links + net.n_flows


def test_waterfilling_steps_of_the_handout():
    steps = fairness.waterfilling_steps(lab5.network_lab53(lab5.Params()))
    assert len(steps) == 1
    assert steps.level_bps.iloc[0] == pytest.approx(2.5e6)


def test_proportional_fair_problem_with_weights_matches_fairness():
    net = Network({"a": 3e6, "b": 7e6, "c": 2e6},
                  {"x": Flow(["a", "b"], weight=2.0), "y": ["b", "c"], "z": ["a"], "w": ["c"]})
    prob = fairness.ProportionalFairProblem(net.routing_matrix, weights=net.weights)
    np.testing.assert_allclose(prob.solve(net.capacities_bps), fairness.proportional(net).rates.to_numpy(), rtol=1e-9)
