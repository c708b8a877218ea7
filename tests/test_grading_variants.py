"""Questions as data and reproducible per-student variants of lab 5."""

import math
import re
import string

import numpy as np
import pytest

from labcalc import grading
from labcalc.cli import main
from labcalc.labs import lab5
from labcalc.units import unit_scale

SEEDS = range(1, 201)


def test_every_answer_is_described_as_data():
    q = lab5.questions()
    assert len(q) == len(lab5.ANSWERS) == 55
    assert q.index.is_unique
    assert set(q.kind) <= set(lab5.KINDS)
    assert (q.points > 0).all() and (q.rtol >= 0).all() and (q.atol >= 0).all()
    assert ((q.rtol > 0) | (q.atol > 0)).all()  # every answer has some tolerance
    for a in lab5.ANSWERS:
        assert a.prompt and callable(a.compute), a.id
        assert a.id == a.question or a.id.startswith(a.question + ".")
        if a.display_unit:
            assert unit_scale(a.display_unit)[1] == a.unit, a.id


def test_ids_follow_the_handout_questions():
    ids = [a.id for a in lab5.ANSWERS]
    assert ids[:6] == ["Q3", "Q4", "Q8", "Q9", "Q13.1", "Q13.2"]
    assert ids[-2:] == ["Q44.1", "Q44.2"]
    assert lab5.get_answer("Q13.6").item == "A2: goodput of h2 (UDP)"
    with pytest.raises(KeyError, match="Q99"):
        lab5.get_answer("Q99")


def test_defaults_are_unchanged():
    # the extension must keep the handout's answer key
    df = lab5.answers()
    assert df.value.iloc[0] == 1066
    assert float(df[df.question == "Q4"].value.iloc[0]) == pytest.approx(4_690_431.5, abs=1)
    assert list(df.columns) == ["question", "item", "value", "unit", "rounding"]


def test_seed_zero_is_the_handout():
    assert lab5.variant(0) == lab5.Params()
    key = grading.answer_key("lab5", 0)
    assert np.allclose(key.values, lab5.answers().value.to_numpy())


def test_variants_are_reproducible_and_distinct():
    assert lab5.variant(42) == lab5.variant(42)
    params = {lab5.variant(s) for s in SEEDS}
    assert len(params) == len(SEEDS)
    assert lab5.variant(2**63 - 1).bottleneck_bps > 0


def test_variant_draws_are_pinned():
    # the same seed must give the same numbers on every machine and Python version
    v = lab5.variant(7)
    assert (v.bottleneck_bps, v.udp_payload_bytes, v.h1_udp_bps, v.h2_udp_bps) == (
        4e6, 600, 4e5, (4e5, 4.2e6, 9.4e6))
    assert lab5.variant_for("alice", "tcpip-2025") == 8309210844738016109


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "3", True, None])
def test_bad_seeds(seed):
    with pytest.raises(ValueError, match="seed"):
        lab5.variant(seed)


def test_variant_for_hashes_ids():
    a = lab5.variant_for("s0001", "salt")
    assert a == lab5.variant_for(" s0001 ", "salt")
    assert a != lab5.variant_for("s0002", "salt") and a != lab5.variant_for("s0001", "other")
    assert 1 <= a <= lab5.MAX_SEED
    with pytest.raises(ValueError, match="student_id"):
        lab5.variant_for("", "salt")


def _value(df, q, item):
    return float(df[(df.question == q) & df.item.str.startswith(item)].value.iloc[0])


@pytest.mark.parametrize("seed", list(SEEDS)[::5])
def test_variants_keep_every_scenario_meaningful(seed):
    p = lab5.variant(seed)
    df = lab5.answers(p)
    assert df.value.map(math.isfinite).all()
    assert 2e6 <= p.bottleneck_bps <= 10e6 and 500 <= p.udp_payload_bytes <= 1400
    # A1: no loss; A2 and A3: loss, more in A3
    assert _value(df, "Q13", "A1: loss of h1") == 0
    assert 0 < _value(df, "Q13", "A2: loss of h1") < _value(df, "Q13", "A3: loss of h1") < 1
    # B1 leaves room for TCP
    assert _value(df, "Q17", "B1: rate left") > 0.2 * p.bottleneck_bps
    # congestion collapse: C's access link is much faster than the shared link
    assert p.c_access_bps >= 4 * p.shared_bps and p.cd_exit_bps < p.shared_bps
    assert 0 < _value(df, "Q21", "share of the traffic") < 0.5
    # delays and queueing
    assert _value(df, "Q44", "queueing delay at router 2") > 0
    assert _value(df, "Q44", "queueing delay at router 1") > 0
    assert p.extra_delay_s[0] < p.extra_delay_s[1]


def test_answer_key_is_computed_by_the_lab():
    for seed in (3, 17):
        key = grading.answer_key("lab5", seed)
        expected = lab5.answers(lab5.variant(seed)).value.to_numpy()
        assert np.allclose(key.values, expected, rtol=1e-12, atol=0)
        tc = lab5.answers(lab5.variant(seed), "tc").value.to_numpy()
        alt = key.alternatives["wire_vs_shaper"]
        assert np.allclose(alt[~np.isnan(alt)], tc[~np.isnan(alt)])


def test_prompts_quote_each_variant_and_leave_no_field():
    for seed in (0, 5, 9):
        p = lab5.variant(seed)
        fields = lab5.prompt_fields(p)
        for a in lab5.ANSWERS:
            text = a.text(p)
            assert "{" not in text and "}" not in text, (seed, a.id)
            assert text.endswith(("?", ".", ")")), a.id
        assert fields["C"] in lab5.get_answer("Q4").text(p)
    used = {name for ctx in lab5.QUESTION_CONTEXT.values()
            for _, name, _, _ in string.Formatter().parse(ctx) if name}
    assert used <= set(lab5.prompt_fields())


def test_prompts_are_our_words():
    # no sentence of the handout is copied: check a few of its typical phrasings
    texts = " ".join(a.text() for a in lab5.ANSWERS)
    for phrase in ("Answer Question", "maximum theoretical aggregate", "Based on theoretical analysis",
                   "ratio of accepted traffic"):
        assert phrase not in texts


def test_cli_prints_a_variant_key(capsys):
    assert main(["answers", "lab5", "--variant", "7"]) == 0
    out = capsys.readouterr().out
    assert "variant 7" in out and "C=4 Mbit/s" in out and "Q13.6" in out
    assert main(["answers", "lab5", "--variant", "7", "--csv"]) == 0
    csv_text = capsys.readouterr().out
    assert csv_text.splitlines()[0] == "id,question,item,value,unit"
    seed = lab5.variant_for("ada", "s")
    assert main(["answers", "lab5", "--student", "ada", "--salt", "s"]) == 0
    assert f"variant {seed}" in capsys.readouterr().out


def test_cli_variant_errors(capsys):
    with pytest.raises(SystemExit):
        main(["answers", "lab5", "--variant", "-3"])
    assert main(["answers", "lab5", "--student", "ada"]) == 2
    assert "--student and --salt go together" in capsys.readouterr().err


def test_answer_keys_are_cached():
    k1 = grading.answer_key("lab5", 123)
    assert grading.answer_key("lab5", 123) is k1
    assert re.fullmatch(r"Q\d+(\.\d+)?", k1.ids[10])


def test_parallel_keys_equal_sequential_keys():
    seeds = [900 + i for i in range(6)]
    grading.clear_key_cache()
    parallel = grading.answer_keys("lab5", seeds, jobs=2)
    grading.clear_key_cache()
    sequential = grading.answer_keys("lab5", seeds, jobs=1)
    from labcalc.labs import get_lab

    alone = {s: grading.keys._build_key(get_lab("lab5"), s, "wire") for s in seeds}
    for s in seeds:
        # variants solved in other groups (or alone) agree to rounding, not to the bit
        for other in (sequential[s], alone[s]):
            np.testing.assert_allclose(parallel[s].values, other.values, rtol=1e-12, atol=0)
            for code, values in parallel[s].alternatives.items():
                np.testing.assert_allclose(values, other.alternatives[code], rtol=1e-12, atol=0)
            assert parallel[s].params == other.params
    with pytest.raises(ValueError, match="jobs"):
        grading.answer_keys("lab5", seeds, jobs=0)


def test_prompts_follow_the_accounting():
    wire = lab5.questions(accounting="wire").text
    for accounting in ("tc", "frame", "ip"):
        other = lab5.questions(accounting=accounting).text
        changed = set(wire.index[wire != other])
        # every question that says how the links count bytes says it the accounting's way
        assert {"Q3", "Q4", "Q8", "Q9", "Q13.1", "Q17.1", "Q21.1", "Q27.1", "Q35.1"} <= changed, accounting
        assert not any("on the wire" in t for t in other), accounting
    assert "1448-byte packets" in lab5.get_answer("Q8").text(accounting="tc")
    with pytest.raises(ValueError, match="accounting"):
        lab5.prompt_fields(accounting="bits")


def test_cli_answers_shows_a_constant_as_a_number(capsys):
    assert main(["answers", "lab5"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.strip().startswith("Q19"))
    assert line.rstrip().endswith("1.225") and "%" not in line
