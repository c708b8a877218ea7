"""Network: routing matrix, TOML scenarios, and one test per kind of bad input."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from labcalc.scenario import load_network
from labcalc.data import scenario_path
from labcalc.network import Flow, Link, Network, ScenarioError


def parking_lot():
    return Network({"r1": 5e6, "r2": 5e6}, {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})


def test_routing_matrix_is_sparse_links_by_flows():
    R = parking_lot().routing_matrix
    assert sp.issparse(R) and R.shape == (2, 3)
    assert R.toarray().tolist() == [[1, 1, 0], [1, 0, 1]]


def test_link_loads_and_delays():
    net = Network({"a": Link(1e6, delay_s=0.1), "b": Link(2e6, delay_s=0.05)}, {"f": ["a", "b"], "g": ["b"]})
    assert net.link_loads_bps([1.0, 2.0]).tolist() == [1.0, 3.0]
    assert net.propagation_delays_s().tolist() == pytest.approx([0.15, 0.05])


def test_from_routing_matches_dict_construction():
    a = parking_lot()
    b = Network.from_routing(a.routing_matrix, a.capacities_bps, flow_names=a.flow_names,
                             link_names=a.link_names)
    assert (a.routing_matrix != b.routing_matrix).nnz == 0
    assert b.flows["1to3"].route == ("r1", "r2")
    assert np.isinf(b.demands_bps).all() and np.isnan(b.rtts_s).all()


def test_replace_changes_demands_only():
    net = parking_lot().replace(demands_bps={"1to2": 1e6})
    assert net.demands_bps.tolist() == [math.inf, 1e6, math.inf]


@pytest.mark.parametrize("name", ["lab51", "lab52", "lab53"])
def test_bundled_scenarios_load(name):
    net = load_network(scenario_path(name))
    assert net.n_flows >= 2 and (net.capacities_bps > 0).all()


def test_lab51_variants_follow_the_handout():
    path = scenario_path("lab51")
    a3 = load_network(path, variant="A3")
    # 9 Mbit/s of data in 1000-byte datagrams is 9.594 Mbit/s on the wire
    assert a3.demands_bps.tolist() == pytest.approx([1.066e6, 9.594e6])
    assert a3.efficiencies.tolist() == pytest.approx([1000 / 1066] * 2)
    d2 = load_network(path, variant="D2")
    assert d2.flow_names == ["h1_tcp", "h2_tcp"]
    assert d2.rtts_s.tolist() == pytest.approx([0.8, 0.3])
    assert d2.efficiencies.tolist() == pytest.approx([2896 / 2986] * 2)


def test_scenarios_agree_with_the_lab5_module():
    from labcalc.labs import lab5

    p = lab5.Params()
    for toml_net, py_net in [
        (load_network(scenario_path("lab52")), lab5.network_lab52(p)),
        (load_network(scenario_path("lab53")), lab5.network_lab53(p)),
        (load_network(scenario_path("lab51")), lab5.network_lab51(p, 4e6)),
    ]:
        assert toml_net.link_names == py_net.link_names
        assert toml_net.flow_names == py_net.flow_names
        assert toml_net.capacities_bps.tolist() == pytest.approx(py_net.capacities_bps.tolist())
        assert toml_net.demands_bps.tolist() == pytest.approx(py_net.demands_bps.tolist())
        assert toml_net.efficiencies.tolist() == pytest.approx(py_net.efficiencies.tolist())
        assert (toml_net.routing_matrix != py_net.routing_matrix).nnz == 0


# --- bad input: each raises ValueError naming the field and the value -------------------

def test_route_through_unknown_link():
    with pytest.raises(ValueError, match=r"flow 'f'.*unknown link 'r9'"):
        Network({"r1": 1e6}, {"f": ["r1", "r9"]})


@pytest.mark.parametrize("capacity", [0, -5e6, math.nan, math.inf])
def test_bad_capacity(capacity):
    with pytest.raises(ValueError, match=r"link 'r1'.*capacity_bps"):
        Network({"r1": capacity}, {"f": ["r1"]})


def test_negative_demand(tmp_path):
    with pytest.raises(ValueError, match=r"demand_bps must be >= 0; got -1\.0"):
        Flow(["r1"], demand_bps=-1.0)
    path = tmp_path / "s.toml"
    path.write_text("[links.r1]\ncapacity_mbps=1\n[flows.f]\nroute=['r1']\ndemand_kbps=-1\n")
    with pytest.raises(ValueError, match=r"\[flows.f\]: demand_kbps must be >= 0; got -1$"):
        load_network(path)


@pytest.mark.parametrize("rtt", [0.0, -0.1])
def test_bad_rtt(rtt):
    with pytest.raises(ValueError, match=r"rtt_s.*" + str(rtt)):
        Flow(["r1"], rtt_s=rtt)


def test_bad_weight_efficiency_route():
    with pytest.raises(ValueError, match="weight"):
        Flow(["r1"], weight=0)
    with pytest.raises(ValueError, match=r"efficiency.*1\.5"):
        Flow(["r1"], efficiency=1.5)
    with pytest.raises(ValueError, match="route"):
        Flow([])
    with pytest.raises(ValueError, match="twice"):
        Flow(["r1", "r1"])
    with pytest.raises(ValueError, match="route"):
        Flow("r1")


def test_from_routing_bad_arrays():
    R = sp.csr_matrix([[1, 1]])
    with pytest.raises(ValueError, match="capacity_bps.*-1"):
        Network.from_routing(R, [-1.0])
    with pytest.raises(ValueError, match="demand_bps"):
        Network.from_routing(R, [1.0], demands_bps=[1.0, -2.0])
    with pytest.raises(ValueError, match="crosses no link"):
        Network.from_routing(sp.csr_matrix([[1, 0]]), [1.0])


def write(tmp_path, text):
    path = tmp_path / "s.toml"
    path.write_text(text)
    return path


BASE = """
[links.r1]
capacity_mbps = 5
[flows.a]
route = ["r1"]
"""


def test_toml_missing_capacity(tmp_path):
    path = write(tmp_path, "[links.r1]\ndelay_ms = 3\n[flows.a]\nroute=['r1']\n")
    with pytest.raises(ValueError, match=r"\[links.r1\].*missing field capacity"):
        load_network(path)


def test_toml_mistyped_field(tmp_path):
    path = write(tmp_path, BASE + "demand_mpbs = 3\n")
    with pytest.raises(ValueError, match=r"\[flows.a\].*unknown field 'demand_mpbs'"):
        load_network(path)


def test_toml_wrong_type(tmp_path):
    path = write(tmp_path, BASE.replace("capacity_mbps = 5", 'capacity_mbps = "fast"'))
    with pytest.raises(ValueError, match=r"capacity_mbps must be a number; got 'fast'"):
        load_network(path)


def test_toml_quantity_without_unit(tmp_path):
    path = write(tmp_path, BASE.replace("capacity_mbps", "capacity"))
    with pytest.raises(ValueError, match="needs a unit suffix"):
        load_network(path)


def test_toml_unit_given_twice(tmp_path):
    path = write(tmp_path, BASE + "rtt_ms = 300\nrtt_s = 0.3\n")
    with pytest.raises(ValueError, match="rtt given twice"):
        load_network(path)


def test_toml_missing_route_and_links(tmp_path):
    with pytest.raises(ValueError, match="missing field 'route'"):
        load_network(write(tmp_path, "[links.r1]\ncapacity_mbps=1\n[flows.a]\nweight=2\n"))
    with pytest.raises(ValueError, match="missing field 'links'"):
        load_network(write(tmp_path, "[flows.a]\nroute=['r1']\n"))


def test_toml_negative_capacity_and_unknown_route(tmp_path):
    with pytest.raises(ValueError, match=r"capacity_mbps must be positive and finite; got -5$"):
        load_network(write(tmp_path, BASE.replace("= 5", "= -5")))
    with pytest.raises(ValueError, match="unknown link 'r2'"):
        load_network(write(tmp_path, BASE.replace('["r1"]', '["r1", "r2"]')))


@pytest.mark.parametrize("table, line, message", [
    ("flows.AB", "demand_mbps = -1", "demand_mbps must be >= 0; got -1"),
    ("flows.AB", "demand_kbps = -0.5", "demand_kbps must be >= 0; got -0.5"),
    ("flows.AB", "demand_gbps = -inf", "demand_gbps must be >= 0; got -inf"),
    ("flows.AB", "demand_gbps = 2e6", "demand_gbps must be at most 1e+06 Gbit/s (1 Pbit/s, above any physical "
                                      "link); got 2000000.0"),
    ("flows.AB", "demand_mbps = 1e300", "demand_mbps must be at most 1e+09 Mbit/s (1 Pbit/s, above any physical "
                                        "link); got 1e+300"),
    ("flows.AB", "demand_bps = 1_000_000_000_000_001", "demand_bps must be at most 1e+15 bit/s (1 Pbit/s, above "
                                                       "any physical link); got 1000000000000001"),
    ("flows.AB", "rtt_ms = 0", "rtt_ms must be positive and finite; got 0"),
    ("flows.AB", "rtt_us = -20", "rtt_us must be positive and finite; got -20"),
    ("flows.AB", "rtt_s = inf", "rtt_s must be positive and finite; got inf"),
    ("flows.AB", "rtt_us = 5e-324", "rtt_us must be positive; got 5e-324, which is 0 s in floating point"),
    ("links.r1", "capacity_mbps = 0", "capacity_mbps must be positive and finite; got 0"),
    ("links.r1", "capacity_kbps = -3.5", "capacity_kbps must be positive and finite; got -3.5"),
    ("links.r1", "capacity_gbps = inf", "capacity_gbps must be positive and finite; got inf"),
    ("links.r1", "capacity_kbps = 2e12", "capacity_kbps must be at most 1e+12 kbit/s (1 Pbit/s, above any physical "
                                         "link); got 2000000000000.0"),
    ("links.r1", "capacity_gbps = 1e300", "capacity_gbps must be at most 1e+06 Gbit/s (1 Pbit/s, above any "
                                          "physical link); got 1e+300"),
    ("links.r1", "delay_ms = -1", "delay_ms must be >= 0 and finite; got -1"),
    ("links.r1", "delay_us = inf", "delay_us must be >= 0 and finite; got inf"),
])
def test_toml_bad_quantity_names_the_key_and_value_written(tmp_path, table, line, message):
    """A bad quantity is reported as the file wrote it, never in the converted base unit."""
    links = "capacity_mbps = 5" if table == "flows.AB" else line
    if line.startswith("delay"):
        links = "capacity_mbps = 5\n" + line
    flow = line if table == "flows.AB" else ""
    path = write(tmp_path, f"[links.r1]\n{links}\n[flows.AB]\nroute = ['r1']\n{flow}\n")
    with pytest.raises(ScenarioError) as info:
        load_network(path)
    assert str(info.value) == f"{path}: [{table}]: {message}"


def test_toml_bad_quantity_in_a_variant_names_the_key_written(tmp_path):
    path = write(tmp_path, BASE + "demand_mbps = 1\n[variants.v.flows.a]\ndemand_kbps = -2\n")
    with pytest.raises(ScenarioError) as info:
        load_network(path, variant="v")
    assert str(info.value) == f"{path}: [flows.a]: demand_kbps must be >= 0; got -2"


@pytest.mark.parametrize("line, value", [
    ("demand_gbps = 1e6", 1e15), ("demand_bps = inf", math.inf), ("demand_mbps = 0", 0.0),
])
def test_toml_quantity_limits_are_inclusive(tmp_path, line, value):
    assert load_network(write(tmp_path, BASE + line + "\n")).demands_bps.tolist() == [value]


def test_solve_prints_the_key_and_value_written(tmp_path, capsys):
    from labcalc.cli import main

    path = write(tmp_path, "[links.r1]\ncapacity_mbps = 5\n[flows.AB]\nroute = ['r1']\ndemand_mbps = -1\n")
    assert main(["solve", str(path)]) == 2
    assert capsys.readouterr().err == f"labcalc: {path}: [flows.AB]: demand_mbps must be >= 0; got -1\n"


def test_toml_syntax_error_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="not valid TOML"):
        load_network(write(tmp_path, "[links\n"))
    with pytest.raises(ValueError, match="cannot read scenario file"):
        load_network(tmp_path / "nope.toml")


def test_toml_unknown_variant(tmp_path):
    with pytest.raises(ValueError, match="unknown variant 'Z'.*A1"):
        load_network(scenario_path("lab51"), variant="Z")


def test_toml_framing_fields_are_validated(tmp_path):
    path = write(tmp_path, BASE + 'payload_bytes = 1000\ntransport = "quic"\n')
    with pytest.raises(ValueError, match=r"\[flows.a\].*transport.*'quic'"):
        load_network(path)


# --- disjoint union: many small networks solved as one ------------------------------------


def _ring_free_collapse():
    # congestion-collapse topology (handout Figure 2), route order matters for FIFO
    return Network(
        {"A-N1": 1e6, "C-N1": 10e6, "N1-N2": 1.5e6, "N2-D": 0.5e6, "N2-B": 10e6},
        {"AB": ["A-N1", "N1-N2", "N2-B"], "CD": ["C-N1", "N1-N2", "N2-D"]},
    )


def test_hop_arrays_follow_route_order():
    net = Network({"a": 1e6, "b": 1e6, "c": 1e6}, {"f": ["c", "a"], "g": ["b", "c", "a"]})
    links, flows = net.hop_arrays()
    assert links.tolist() == [2, 0, 1, 2, 0] and flows.tolist() == [0, 0, 1, 1, 1]
    # from_routing has no order: by link index
    links, flows = Network.from_routing(net.routing_matrix, [1e6] * 3).hop_arrays()
    assert links.tolist() == [0, 2, 0, 1, 2] and flows.tolist() == [0, 0, 1, 1, 1]


def test_union_keeps_names_arrays_and_routes():
    a, b = parking_lot(), _ring_free_collapse()
    b = b.replace(flows={"AB": Flow(["A-N1", "N1-N2", "N2-B"], demand_bps=2e5, weight=2.0,
                                    rtt_s=0.1, efficiency=0.9)})
    u = Network.union([a, b], prefixes=["p", "c"])
    assert u.link_names == ["p/r1", "p/r2", "c/A-N1", "c/C-N1", "c/N1-N2", "c/N2-D", "c/N2-B"]
    assert u.flow_names == ["p/1to3", "p/1to2", "p/2to3", "c/AB", "c/CD"]
    assert u.flows["c/AB"].route == ("c/A-N1", "c/N1-N2", "c/N2-B")
    assert u.flows["c/AB"].demand_bps == 2e5 and u.flows["c/AB"].weight == 2.0
    assert u.efficiencies.tolist() == [1, 1, 1, 0.9, 1]
    assert u.capacities_bps.tolist() == a.capacities_bps.tolist() + b.capacities_bps.tolist()
    R = u.routing_matrix.toarray()
    assert (R[:2, :3] == a.routing_matrix.toarray()).all()
    assert (R[2:, 3:] == b.routing_matrix.toarray()).all()
    assert R[:2, 3:].sum() == 0 and R[2:, :3].sum() == 0


def test_union_bad_input():
    with pytest.raises(ScenarioError, match="non-empty sequence"):
        Network.union([])
    with pytest.raises(ScenarioError, match="distinct prefixes"):
        Network.union([parking_lot(), parking_lot()], prefixes=["x", "x"])


def test_allocations_of_a_union_are_those_of_its_parts():
    # every solver must give, on the union, exactly what it gives on each part
    from labcalc import fairness
    from labcalc.openloop import fifo_split

    rng = np.random.default_rng(7)
    parts = []
    for k in range(12):
        caps = rng.uniform(0.5e6, 20e6, 5)
        parts.append(Network(
            dict(zip(["A-N1", "C-N1", "N1-N2", "N2-D", "N2-B"], caps)),
            {"AB": ["A-N1", "N1-N2", "N2-B"], "CD": ["C-N1", "N1-N2", "N2-D"],
             "X": Flow(["N1-N2"], demand_bps=float(rng.uniform(0.1e6, 5e6)))},
        ))
    u = Network.union(parts)
    for solve, rtol in ((fifo_split, 1e-12), (fairness.max_min, 1e-12), (fairness.proportional, 1e-9)):
        together = solve(u).rates.to_numpy().reshape(len(parts), -1)
        alone = np.array([solve(p).rates.to_numpy() for p in parts])
        np.testing.assert_allclose(together, alone, rtol=rtol, err_msg=solve.__name__)
    # FIFO per-link acceptance too (route order matters on this topology)
    acc = fifo_split(u).links["accepted"].to_numpy().reshape(len(parts), -1)
    np.testing.assert_allclose(acc, [fifo_split(p).links["accepted"].to_numpy() for p in parts], rtol=1e-12)


# --- how a link queues (simulation only: the theory never reads it) -----------------------

def test_link_queues_default_to_droptail_and_red_to_mininets_tclink(tmp_path):
    from labcalc.scenario import RedQueue, link_queues, read_scenario

    path = write(tmp_path, "[links.r1]\ncapacity_mbps = 5\nqueue = 'red'\n[links.h1]\ncapacity_mbps = 100\n"
                           "[flows.a]\nroute = ['h1', 'r1']\n"
                           "[variants.v.links.r1]\nred = { min_bytes = 15000, ecn = false }\n"
                           "[variants.d.links.r1]\nqueue = 'droptail'\n")
    data = read_scenario(path)
    q = link_queues(data, source=str(path))
    assert q == {"r1": RedQueue(), "h1": "droptail"}
    assert (RedQueue().min_bytes, RedQueue().max_bytes, RedQueue().limit_bytes, RedQueue().probability,
            RedQueue().burst_packets, RedQueue().avpkt_bytes, RedQueue().ecn) == (30000, 35000, 1000000, 1.0, 20,
                                                                                1500, True)
    assert link_queues(data, variant="v")["r1"] == RedQueue(min_bytes=15000, ecn=False)
    assert link_queues(data, variant="d")["r1"] == "droptail"
    # the theory is unchanged by a queue key
    assert load_network(path).capacities_bps.tolist() == [5e6, 1e8]


def test_handout_router_interfaces_use_mininets_red():
    from labcalc.scenario import RedQueue, link_queues, read_scenario

    red = {name: sorted(k for k, v in link_queues(read_scenario(scenario_path(name))).items() if v == RedQueue())
           for name in ("lab51", "lab52", "lab53")}
    assert red == {"lab51": ["r1-eth1"], "lab52": ["N1-N2", "N2-B", "N2-D"], "lab53": ["r1-eth1", "r2-eth2"]}


def test_the_senders_own_interfaces_are_marked_as_hosts():
    """Every link a flow starts on is its host's own interface in the bundled Mininet scenarios."""
    from labcalc.scenario import link_queues, read_scenario

    for name in ("lab51", "lab52", "lab53", "seed002", "seed003"):
        data = read_scenario(scenario_path(name))
        hosts = sorted(k for k, v in link_queues(data).items() if v == "host")
        firsts = sorted({(f["route"] if isinstance(f, dict) else f)[0] for f in data["flows"].values()})
        assert hosts == firsts, name


@pytest.mark.parametrize("lines, message", [
    ("queue = 'fifo'", "queue must be one of 'droptail', 'red', 'host'; got 'fifo'"),
    ("queue = 3", "queue must be one of 'droptail', 'red', 'host'; got 3"),
    ("red = { ecn = true }", "a red table needs queue = \"red\"; got queue = 'droptail'"),
    ("queue = 'red'\nred = 5", "red must be a table of RED parameters; got 5"),
    ("queue = 'red'\nred = { min = 3 }", "unknown field red.min (allowed: min_bytes, max_bytes, limit_bytes, "
                                         "probability, burst_packets, avpkt_bytes, ecn)"),
    ("queue = 'red'\nred = { min_bytes = -1 }", "red.min_bytes must be a whole number >= 1; got -1"),
    ("queue = 'red'\nred = { max_bytes = 3.5e4 }", "red.max_bytes must be a whole number >= 1; got 35000.0"),
    ("queue = 'red'\nred = { probability = 0 }", "red.probability must be a number in (0, 1]; got 0"),
    ("queue = 'red'\nred = { probability = 1.5 }", "red.probability must be a number in (0, 1]; got 1.5"),
    ("queue = 'red'\nred = { ecn = 'yes' }", "red.ecn must be true or false; got 'yes'"),
    ("queue = 'red'\nred = { min_bytes = 40000 }", "red needs min_bytes <= max_bytes <= limit_bytes; got "
                                                   "min_bytes = 40000, max_bytes = 35000, limit_bytes = 1000000"),
    ("queue = 'red'\nred = { burst_packets = 5 }", "red.burst_packets = 5 is too small for min_bytes = 30000 and "
                                                   "avpkt_bytes = 1500 (tc needs burst >= min / avpkt = 20)"),
    ("queue = 'red'\nbuffer_packets = 100", "buffer_packets = 100 is a drop-tail size; a RED queue's limit is "
                                            "red.limit_bytes"),
])
def test_bad_queue_names_file_table_key_and_value(tmp_path, lines, message):
    path = write(tmp_path, f"[links.r1]\ncapacity_mbps = 5\n{lines}\n[flows.a]\nroute = ['r1']\n")
    with pytest.raises(ScenarioError) as info:
        load_network(path)
    assert str(info.value) == f"{path}: [links.r1]: {message}"


def test_bad_queue_in_a_variant_is_reported(tmp_path):
    from labcalc.scenario import link_queues, read_scenario

    path = write(tmp_path, "[links.r1]\ncapacity_mbps = 5\n[flows.a]\nroute = ['r1']\n"
                           "[variants.v.links.r1]\nqueue = 'red'\nred = { avpkt_bytes = true }\n")
    with pytest.raises(ScenarioError, match=r"\[links.r1\]: red.avpkt_bytes must be a whole number >= 1; got True"):
        link_queues(read_scenario(path), variant="v", source=str(path))
