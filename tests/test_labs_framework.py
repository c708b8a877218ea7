"""The lab framework: a second lab is one package plus one registry line (tests/labs_tiny)."""

from __future__ import annotations

import numpy as np
import pytest

from labcalc import grading, labs
from labcalc.labs import get_lab
from labcalc.labs._framework import MAX_SEED, Lab, check_seed, variant_for


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(labs.LABS, "tiny", "tests.labs_tiny")  # the one registry line
    yield get_lab("tiny")
    grading.clear_key_cache()


def test_registry_resolves_names_and_passes_labs_through(tiny):
    assert isinstance(tiny, Lab) and tiny.name == "tiny"
    assert get_lab(tiny) is tiny
    assert get_lab("lab5") is get_lab("lab5") and get_lab("lab5").name == "lab5"
    with pytest.raises(ValueError, match="lab must be one of lab5, tiny; got 'lab9'"):
        get_lab("lab9")


def test_tiny_lab_answers_follow_the_fifo_split(tiny):
    # 4 + 12 Mbit/s offered on 10 Mbit/s: every flow keeps 10/16 of its demand
    v = tiny.answer_values()
    np.testing.assert_allclose(v, [2.5e6, 7.5e6, 10e6], rtol=1e-12)
    assert tiny.answer("T1.1").label() == "rate of flow a through 10 Mbit/s"
    assert tiny.answer("T1.1").text() == "Which rate does a get on 10 Mbit/s?"
    p = tiny.variant(7)
    total = sum(p.demand_bps)
    np.testing.assert_allclose(tiny.answer_values(p)[:2],
                               [d * p.capacity_bps / total for d in p.demand_bps], rtol=1e-9)


def test_keys_and_grade_work_for_the_tiny_lab(tiny):
    key = grading.answer_key(tiny, 0)
    assert key.lab == "tiny" and key.ids == ("T1.1", "T1.2", "T2")
    assert grading.answer_key("tiny", 0) is key  # the name and the object share the cache
    assert [i for i, _ in key.parts("T1")] == ["T1.1", "T1.2"]
    keys = grading.answer_keys(tiny, [0, 3, 5], jobs=1)
    for seed, k in keys.items():
        np.testing.assert_allclose(k.values, tiny.answer_values(tiny.variant(seed)), rtol=1e-9)
    text = b"student,question,answer\nada,T1.1,2.5 Mbit/s\nada,T2,10 Mbit/s\nbob,T1.2,1 Mbit/s\nbob,Q4,1\n"
    res = grading.grade_file(text, tiny)
    assert res.lab == "tiny"
    assert res.grades.set_index("student")["total"].to_dict() == {"ada": 3.0, "bob": 0.0}
    assert [str(p) for p in res.problems] == ["row 5: unknown question 'Q4' (tiny ids look like T1.1)"]
    assert grading.check_answer("T2", "10 Mbit/s", lab=tiny).correct


def test_precompute_of_the_tiny_lab_agrees_and_leaves_no_state(tiny):
    ps = [tiny.variant(s) for s in range(1, 6)]
    with tiny.precompute(ps):
        assert len(tiny.store.prepared) == 4  # the first variant is computed alone
        together = [tiny.answer_values(p) for p in ps]
    assert tiny.store.prepared == {}
    alone = [tiny.answer_values(p) for p in ps]
    np.testing.assert_allclose(together, alone, rtol=1e-12)


def test_grading_has_no_default_lab():
    with pytest.raises(ValueError, match="give the lab"):
        grading.grade(grading.read_answers(b"student,question,answer\nada,Q4,1\n"))
    with pytest.raises(TypeError):
        grading.answer_key()


def test_seeds():
    assert check_seed(MAX_SEED) == MAX_SEED
    with pytest.raises(ValueError, match="got True"):
        check_seed(True)
    assert 1 <= variant_for("ada", "salt") <= MAX_SEED
