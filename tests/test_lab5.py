"""Every theory answer of the lab handout, reproduced to the handout's rounding.

Expected values: ../shared/reference/lab5_seed_values.toml, section [theory], i.e. the
handout's solutions (seed 000). Each tolerance is the handout's printed rounding.
"""

import numpy as np
import pytest

from labcalc.labs import lab5

ANS = lab5.answers()


def value(question, item_start):
    rows = ANS[(ANS.question == question) & ANS.item.str.startswith(item_start)]
    assert len(rows) == 1, (question, item_start, rows)
    return float(rows.value.iloc[0])


# (question, item prefix, expected in display units, display factor, absolute tolerance)
HANDOUT = [
    ("Q3", "bytes a 1000-byte UDP", 1066, 1, 0),
    ("Q4", "maximum UDP goodput", 4690, 1e3, 0.5),
    ("Q8", "bytes a 2896-byte TCP", 2986, 1, 0),
    ("Q9", "maximum TCP goodput", 4850, 1e3, 1.0),   # handout: 5000 x 0.97
    ("Q13", "A1: goodput of h1", 1.0, 1e6, 0.0005),
    ("Q13", "A1: goodput of h2", 0.5, 1e6, 0.0005),
    ("Q13", "A1: loss of h1", 0.0, 0.01, 0.05),
    ("Q13", "A1: loss of h2", 0.0, 0.01, 0.05),
    ("Q13", "A2: goodput of h1", 0.938, 1e6, 0.0005),
    ("Q13", "A2: goodput of h2", 3.752, 1e6, 0.0005),
    ("Q13", "A2: loss of h1", 6.2, 0.01, 0.05),
    ("Q13", "A2: loss of h2", 6.2, 0.01, 0.05),
    ("Q13", "A3: goodput of h1", 0.469, 1e6, 0.0005),
    ("Q13", "A3: goodput of h2", 4.221, 1e6, 0.0005),
    ("Q13", "A3: loss of h1", 53.1, 0.01, 0.05),
    ("Q13", "A3: loss of h2", 53.1, 0.01, 0.05),
    ("Q17", "B1: UDP traffic", 1.599, 1e6, 0.0005),
    ("Q17", "B1: rate left", 3.401, 1e6, 0.0005),
    ("Q17", "B1: goodput of h2's TCP", 3.298, 1e6, 0.0005),
    ("Q17", "B1: goodput of h1", 1.0, 1e6, 0.0005),
    ("Q17", "B1: goodput of h2 (UDP)", 0.5, 1e6, 0.0005),
    ("Q19", "constant c", 1.22, 1, 0.005),
    ("Q20", "B2", 1004, 1e3, 0.5),
    ("Q20", "B3", 726, 1e3, 0.5),
    ("Q21", "share of the traffic accepted", 13.6, 0.01, 0.05),
    ("Q21", "rate of flow AB", 0.136, 1e6, 0.0005),
    ("Q21", "rate of flow CD", 0.5, 1e6, 0.0005),
    ("Q22", "goodput received by B", 0.128, 1e6, 0.0005),
    ("Q22", "goodput received by D", 0.469, 1e6, 0.0005),
    ("Q22", "loss of AB", 87.2, 0.01, 0.05),
    ("Q22", "loss of CD", 95.3, 0.01, 0.05),
    ("Q23", "max-min fair rate of A", 1.0, 1e6, 0.0005),
    ("Q23", "max-min fair rate of C", 0.5, 1e6, 0.0005),
    ("Q23", "max-min: goodput received by B", 0.938, 1e6, 0.0005),
    ("Q23", "max-min: goodput received by D", 0.469, 1e6, 0.0005),
    ("Q24", "proportionally fair rate of A", 1.0, 1e6, 0.0005),
    ("Q24", "proportionally fair rate of C", 0.5, 1e6, 0.0005),
    ("Q27", "expected TCP goodput of h1", 970, 1e3, 0.5),
    ("Q27", "expected TCP goodput of h2", 485, 1e3, 0.5),
    ("Q29", "RTT", 300, 1e-3, 0.5),
    ("Q31", "D1: rate of h1", 1.25, 1e6, 0.005),
    ("Q31", "D1: aggregate rate of h2", 3.75, 1e6, 0.005),
    ("Q35", "D2: goodput of h1", 1320, 1e3, 5),   # handout rounds to 10 kbit/s
    ("Q35", "D2: goodput of h2", 3530, 1e3, 5),
    ("Q35", "D3: goodput of h1", 910, 1e3, 5),
    ("Q35", "D3: goodput of h2", 3940, 1e3, 5),
    ("Q39", "max-min fair rate of 1to3", 2.5, 1e6, 0.0005),
    ("Q39", "max-min fair rate of 1to2", 2.5, 1e6, 0.0005),
    ("Q39", "max-min fair rate of 2to3", 2.5, 1e6, 0.0005),
    ("Q40", "proportionally fair rate of 1to3", 1.6667, 1e6, 0.00005),
    ("Q40", "proportionally fair rate of 1to2", 3.3333, 1e6, 0.00005),
    ("Q40", "proportionally fair rate of 2to3", 3.3333, 1e6, 0.00005),
    ("Q41", "RTT", 300, 1e-3, 0.5),
    ("Q44", "queueing delay at router 2", 30, 1e-3, 0.5),
    ("Q44", "queueing delay at router 1", 40, 1e-3, 0.5),
]


@pytest.mark.parametrize("question, item, expected, factor, tol", HANDOUT,
                         ids=[f"{q}-{i}" for q, i, *_ in HANDOUT])
def test_handout_theory_answer(question, item, expected, factor, tol):
    assert value(question, item) / factor == pytest.approx(expected, abs=tol)


def test_every_reference_answer_is_covered():
    # one row per handout number, no answer left out, no extra untested row
    assert len(ANS) == len(HANDOUT)
    assert set(ANS.unit) <= {"bit/s", "byte", "s", "1"}
    assert ANS.value.notna().all()


def test_proportional_fairness_is_exact_on_the_parking_lot():
    assert value("Q40", "proportionally fair rate of 1to3") == pytest.approx(5e6 / 3, rel=1e-9)
    assert value("Q40", "proportionally fair rate of 1to2") == pytest.approx(10e6 / 3, rel=1e-9)


def test_answers_follow_the_parameters():
    # no answer-key constants: change a parameter and the answers move
    p = lab5.with_params(bottleneck_bps=10e6, h2_udp_bps=(0.5e6, 4e6, 19e6))
    df = lab5.answers(p)
    q4 = float(df[df.question == "Q4"].value.iloc[0])
    assert q4 == pytest.approx(10e6 * 1000 / 1066)
    a3 = df[(df.question == "Q13") & df.item.str.startswith("A3: goodput of h1")].value.iloc[0]
    assert a3 == pytest.approx(10e6 * 1 / 20 * 1000 / 1066)


def test_shaper_accounting_reproduces_the_measured_side():
    tc = lab5.answers(accounting="tc")

    def tcv(q, item):
        return float(tc[(tc.question == q) & tc.item.str.startswith(item)].value.iloc[0])

    # Q7 measured 4798 kbit/s, Q10 measured 4782 kbit/s
    assert tcv("Q4", "maximum UDP goodput") / 1e3 == pytest.approx(4798, abs=1)
    assert tcv("Q9", "maximum TCP goodput") / 1e3 == pytest.approx(4782, abs=1)
    assert tcv("Q3", "bytes a 1000-byte UDP") == 1042
    # Q7 loss at 5 Mbit/s offered: measured 4.03 %
    assert 100 * (1 - tcv("Q4", "maximum UDP goodput") / 5e6) == pytest.approx(4.03, abs=0.01)


def test_shaper_vs_wire_lists_the_accounting_dependent_answers():
    df = lab5.shaper_vs_wire()
    assert {"Q3", "Q4", "Q8", "Q9", "Q13"} <= set(df.question)
    assert "Q40" not in set(df.question)  # rates of the fair allocations do not depend on it
    assert (df.ratio > 0).all()


def test_bad_accounting():
    with pytest.raises(ValueError, match="accounting.*'bytes'"):
        lab5.answers(accounting="bytes")


def test_answer_values_are_the_answers_table():
    p = lab5.variant(11)
    assert lab5.answer_values(p, "tc").tolist() == lab5.answers(p, "tc")["value"].tolist()


def test_precompute_gives_the_one_by_one_answers():
    # many variants solved together (one union network per computation) must give the
    # answers of one-by-one computation, for every answer and both accountings
    ps = [lab5.variant(s) for s in range(100, 130)]
    with lab5.precompute(ps, ("wire", "tc")):
        prepared = len(lab5.LAB.store.prepared)
        together = {acc: np.array([lab5.answer_values(p, acc) for p in ps]) for acc in ("wire", "tc")}
    # 29 variants (the first is computed alone to find what is needed) x 17 solves:
    # per accounting 3 UDP splits, the collapse, B1, max-min of UDP and of TCP on
    # Figure 2; once (rates, in wire) proportional on Figure 2, both on Figure 3
    assert prepared == 29 * 17
    assert not lab5.LAB.store.prepared  # emptied on leaving
    from labcalc.labs.lab5 import networks

    for comp in (networks.solve_udp_split, networks.solve_collapse, networks.solve_b1,
                 networks.solve_fair52, networks.solve_lab53):
        comp.cache_clear()
    for acc in ("wire", "tc"):
        alone = np.array([lab5.answer_values(p, acc) for p in ps])
        np.testing.assert_allclose(together[acc], alone, rtol=1e-9, atol=0, err_msg=acc)


def test_precompute_keeps_its_results_in_the_lab_store_only():
    # no module-global state: the prepared results live in the store the lab owns,
    # and the lab's own precompute is the module's
    ps = [lab5.variant(s) for s in (201, 202, 203)]
    with lab5.LAB.precompute(ps, ("wire",)):
        keys = list(lab5.LAB.store.prepared)
        # variants 202 and 203 x the 10 wire solves: 3 UDP splits, the collapse, B1,
        # max-min of UDP and TCP and proportional on Figure 2, both on Figure 3
        assert len(keys) == 2 * 10
        assert {p for _, p, _ in keys} == set(ps[1:])
        assert lab5.LAB.answer_values(ps[2]).tolist() == lab5.answer_values(ps[2]).tolist()
    assert lab5.LAB.store.prepared == {} and lab5.LAB.store.recording is None


def test_precompute_of_nothing_and_of_one():
    with lab5.precompute([]):
        pass
    p = lab5.variant(5)
    with lab5.precompute([p, p]):
        assert lab5.answer_values(p)[1] == pytest.approx(p.bottleneck_bps / p.udp_wire_factor())


def test_q3_is_a_whole_number_of_bytes_in_every_variant():
    # was payload x (1 / efficiency): 566.0000000000001 bytes in `labcalc answers --csv`
    # and in the quiz's answer text
    from labcalc import grading

    for accounting in ("wire", "frame", "tc", "ip"):
        for seed in range(0, 40):
            key = grading.answer_key("lab5", seed, accounting)
            value = key.values[key.index("Q3")]
            assert value == round(value), (accounting, seed, value)
