"""Issue 12, items 7-10: a notebook's answer check and the batch grader give one verdict.

- item 7: the notebook path (``grading.check_cell("Q4", answer)``) and ``grade`` agree on
  score, diagnosis and message for a sweep of answers to every question of lab5;
- item 9: ``unit=`` has one meaning: an answer typed as a number or as a text gets the
  same grade, and a bare number is read as the batch grader reads it;
- item 8: labels (``labcalc answers --csv``) quote the variant's numbers;
- item 10: question-aware checks, multi-part ids listed, the notebooks use them.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labcalc import compare, grading
from labcalc.cli import main
from labcalc.grading.answerfile import cell_text as _cell
from labcalc.grading.check import display_scale, number_text
from labcalc.grading.keys import answer_key
from labcalc.labs import lab5

NB_DIR = Path(__file__).resolve().parents[1] / "notebooks"
# the generic slips of labcalc.grading.diagnosis, as factors on the expected value
_GENERIC = {"bit/s": (8, 1 / 8, 1000, 1 / 1000, 1.024, 1 / 1.024, 8 * 1000),
            "byte": (8, 1 / 8, 1000, 1 / 1000, 1.024),
            "s": (1000, 1 / 1000),
            "1": (100, 1 / 100)}
# an answer of another kind of quantity, per base unit of the question
_WRONG_KIND = {"bit/s": "300 ms", "byte": "4.69 Mbit/s", "s": "1066 bytes", "1": "4.69 Mbit/s"}


def _show(value: float, unit: str) -> float:
    """``value`` [base units] in the display unit ``unit``, rounded to 5 significant digits."""
    factor = display_scale(unit)[0]
    x = value / factor
    return float(f"{x:.5g}")


def _sweep(seed: int) -> list[tuple[str, object]]:
    """(answer id, answer) pairs: right, every slip the key knows, wrong unit, no unit; str and number."""
    key = answer_key("lab5", seed)
    rows: list[tuple[str, object]] = []
    for i, answer_id in enumerate(key.ids):
        unit, base = key.display_units[i], key.units[i]
        v = float(key.values[i])
        values = [v]
        values += [float(arr[i]) for arr in key.alternatives.values() if not math.isnan(arr[i])]
        values += [float(arr[i]) for arr in key.other_values.values() if not math.isnan(arr[i])]
        values += [v * f for f in _GENERIC[base]]
        for x in values:
            shown = _show(x, unit)
            if unit == "%":
                rows += [(answer_id, f"{shown:g} %"), (answer_id, x), (answer_id, number_text(x)),
                         (answer_id, shown), (answer_id, f"{x:g} %")]  # fraction with a % sign
            elif unit:
                rows += [(answer_id, f"{shown:g} {unit}"), (answer_id, shown), (answer_id, f"{shown:g}")]
            else:
                rows += [(answer_id, f"{shown:g}"), (answer_id, shown)]
        rows += [(answer_id, _WRONG_KIND[base]), (answer_id, ""), (answer_id, "4,690 kbit/s")]
    return rows


@pytest.fixture(scope="module", params=[0, 7])
def graded(request):
    seed = request.param
    rows = _sweep(seed)
    df = pd.DataFrame({"student": [f"s{k}" for k in range(len(rows))],
                       "question": [q for q, _ in rows],
                       "answer": pd.Series([a for _, a in rows], dtype=object),
                       "variant": seed})
    res = grading.grade(df, "lab5")
    assert res.problems == ()
    detail = res.detail.set_index("student").loc[df["student"]]
    return seed, rows, detail


# -- item 7: one verdict ----------------------------------------------------------------

def test_notebook_check_equals_batch_grade(graded):
    seed, rows, detail = graded
    assert len(detail) == len(rows) > 55 * 10
    for (answer_id, answer), r in zip(rows, detail.itertuples()):
        one = grading.check_cell(answer_id, answer, seed=seed, quiet=True, lab="lab5")
        got = (one.correct, one.score, one.diagnosis, one.message)
        want = (bool(r.correct), float(r.score), r.diagnosis, r.message)
        assert got == want, (answer_id, answer)


def test_sweep_covers_every_diagnosis_the_key_knows(graded):
    _, rows, detail = graded
    seen = set(detail.diagnosis.dropna())
    for code in ("header_overhead", "wire_vs_shaper", "rate_for_goodput", "goodput_for_rate",
                 "bytes_bits", "kilo_mega", "binary_prefix", "percent_fraction", "bytes_bits+kilo_mega",
                 "missing_unit", "wrong_unit", "unreadable", "empty"):
        assert code in seen, code
    first = {}
    for k, (answer_id, _) in enumerate(rows):
        first.setdefault(answer_id, k)
    assert len(first) == 55 and detail.correct.iloc[list(first.values())].all()  # the right value, with its unit
    right = detail[detail.correct]
    assert (right.score == 1.0).all() and right.diagnosis.isna().all()


def test_issue_example_percent_given_for_a_fraction():
    # "6.2" for a loss of 6.19 %: grade says a percentage without its % sign (50 %); so does the notebook
    res = grading.grade(pd.DataFrame({"student": ["a"], "question": ["Q13.7"], "answer": ["6.2"]}), "lab5")
    one = grading.check_cell("Q13.7", "6.2", quiet=True, lab="lab5")
    assert (one.diagnosis, one.score) == (res.detail.diagnosis[0], res.detail.score[0]) == ("percent_fraction", 0.5)
    assert one.message == res.detail.message[0]
    assert "without a % sign is read as a fraction" in one.message


# -- item 9: one meaning of unit= ---------------------------------------------------------

@pytest.mark.parametrize("number, unit, expected", [
    (4.69, "Mbit/s", 4.69e6), (6.2, "%", 0.062), (0.062, "%", 0.062), (1066, "bytes", 1066.0),
    (300, "ms", 0.3), (1.22, "", 1.2247), (4690.0, "kbit/s", 4.69e6), (-0.001, "%", 0.0),
])
def test_quotes_do_not_change_the_grade(number, unit, expected):
    a = grading.check(number, expected, unit=unit)
    b = grading.check(number_text(number), expected, unit=unit)
    assert (a.correct, a.score, a.diagnosis, a.message) == (b.correct, b.score, b.diagnosis, b.message)
    lenient = [grading.check(x, expected, unit=unit, require_unit=False) for x in (number, number_text(number))]
    assert (lenient[0].score, lenient[0].diagnosis) == (lenient[1].score, lenient[1].diagnosis)


def test_meaning_of_unit_is_the_batch_graders():
    # a rate needs its unit, typed as a number or as a text
    for answer in (4.69, "4.69"):
        r = grading.check(answer, 4.69e6, unit="Mbit/s")
        assert (r.correct, r.score, r.diagnosis) == (False, 0.0, "missing_unit")
        assert "'4.69 Mbit/s'" in r.message
    # unless the unit is assumed on purpose: then it is read in unit=
    assert grading.check(4.69, 4.69e6, unit="Mbit/s", require_unit=False).given == pytest.approx(4.69e6)
    # a share: a number without % is a fraction, as grade reads "0.25" (25 %)
    for answer in (0.062, "0.062"):
        r = grading.check(answer, 0.062, unit="%")
        assert r.correct and r.given == pytest.approx(0.062, rel=1e-12)
    for answer in (6.2, "6.2"):
        r = grading.check(answer, 0.062, unit="%")
        assert (r.correct, r.score, r.diagnosis) == (False, 0.5, "percent_fraction")
        assert r.given == pytest.approx(6.2)
    res = grading.grade(pd.DataFrame({"student": ["a", "b"], "question": ["Q13.7", "Q13.7"],
                                      "answer": ["0.0619", 0.0619]}), "lab5")
    assert res.detail.correct.tolist() == [True, True]
    assert grading.check_answer("Q13.7", 0.0619, lab="lab5").correct and grading.check_answer("Q13.7", "0.0619", lab="lab5").correct


def test_number_text_is_how_the_batch_grader_writes_a_number():
    for x in (4.69, 3.0, 1066, np.int64(7), np.float64(0.1), 6.2e-05, 1e21, 1e-320, -0.001, 4690431.519699812):
        assert number_text(x) == _cell(x), x
    assert grading.parse_answer(4.69, "Mbit/s") == grading.parse_answer("4.69", "Mbit/s")


# -- item 8: labels follow the variant ----------------------------------------------------

def _variant_with_other_numbers() -> int:
    for seed in range(1, 200):
        p = lab5.variant(seed)
        if (p.udp_payload_bytes != 1000 and p.bottleneck_bps != 5e6 and p.h3_delay_s != 0.3
                and p.d1_connections[1] != 3 and p.tcp_options_bytes == 0):
            return seed
    raise AssertionError("no such variant")  # pragma: no cover


def test_labels_quote_the_variant_numbers():
    seed = _variant_with_other_numbers()
    p = lab5.variant(seed)
    labels = dict(zip([a.id for a in lab5.ANSWERS], lab5.answers(p).item))
    handout = dict(zip([a.id for a in lab5.ANSWERS], lab5.answers().item))
    assert labels["Q3"] == f"bytes a {p.udp_payload_bytes}-byte UDP datagram takes on the link (Ethernet frame)"
    assert handout["Q3"] == "bytes a 1000-byte UDP datagram takes on the link (Ethernet frame)"
    capacity = f"{p.bottleneck_bps / 1e6:g} Mbit/s"
    assert labels["Q4"] == f"maximum UDP goodput through the {capacity} bottleneck"
    assert labels["Q9"] == f"maximum TCP goodput through the {capacity} bottleneck"
    assert labels["Q8"] == f"bytes a {p.tcp_segment_bytes}-byte TCP segment without options takes on the link"
    assert labels["Q29"] == f"RTT h3 -> h1 with {p.h3_delay_s * 1e3:g} ms added on h3-eth0"
    assert labels["Q31.2"] == f"D1: aggregate rate of h2's {p.d1_connections[1]} connections"
    changed = {k for k in labels if labels[k] != handout[k]}
    assert changed == {"Q3", "Q4", "Q8", "Q9", "Q29", "Q31.2"}
    # the handout's labels are unchanged, and every label without a template quotes no scenario number
    assert all(a.label() == a.item for a in lab5.ANSWERS)
    for a in lab5.ANSWERS:
        if not a.item_template:
            assert not re.search(r"\b(1000|5 Mbit/s|2896|300 ms|three)\b", a.item), a.id
    # the question texts follow the variant too
    text = lab5.get_answer("Q3").text(p)
    assert f"{p.udp_payload_bytes} bytes" in text and "1000 bytes" not in text
    assert lab5.questions(p).loc["Q3", "item"] == labels["Q3"]


def test_answers_csv_of_a_variant(capsys):
    seed = _variant_with_other_numbers()
    p = lab5.variant(seed)
    assert main(["answers", "lab5", "--csv", "--variant", str(seed)]) == 0
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows["Q3"]["item"] == f"bytes a {p.udp_payload_bytes}-byte UDP datagram takes on the link (Ethernet frame)"
    assert "1000-byte" not in rows["Q3"]["item"]
    assert float(rows["Q3"]["value"]) == pytest.approx(p.udp_payload_bytes + 66)


# -- item 10: question-aware checks in the notebooks ----------------------------------------

def test_question_aware_check_gives_the_hint_that_matters(capsys):
    r = grading.check_cell("Q4", "5 Mbit/s", lab="lab5")
    line = capsys.readouterr().out
    assert (r.diagnosis, r.score) == ("header_overhead", 0.5)
    assert line == ("Q4: Partly right (50 % of the points): '5 Mbit/s' is off by exactly the frame "
                    "efficiency (0.938 = payload bytes / frame bytes): count the header bytes of every frame.\n")
    # the plain check knows only the distance
    assert grading.check("5 Mbit/s", 4.69e6).diagnosis is None
    # the other accounting, named
    r = grading.check_cell("q4", "4798 kbit/s", quiet=True, lab="lab5")
    assert r.diagnosis == "wire_vs_shaper" and "Linux shaper" in r.message
    # on a variant, the variant's key
    assert grading.check_cell("Q3", "666 bytes", seed=_variant_with_other_numbers(), quiet=True, lab="lab5").correct is (
        lab5.variant(_variant_with_other_numbers()).udp_payload_bytes == 600)


def test_multi_part_id_lists_its_parts(capsys):
    assert grading.check_cell("Q13", "1 Mbit/s", lab="lab5") is None
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Q13: lab5 question Q13 asks for 12 numbers; check each one by its own id:"
    parts = [line.split(None, 1) for line in out[1:]]
    assert [p[0] for p in parts] == [f"Q13.{k}" for k in range(1, 13)]
    assert parts[0][1] == "A1: goodput of h1 (UDP)" and parts[11][1] == "A3: loss of h2"
    with pytest.raises(KeyError) as exc:
        grading.check_answer("Q13", "1 Mbit/s", lab="lab5")
    assert "Q13.12  A3: loss of h2" in str(exc.value)
    with pytest.raises(KeyError, match=r"^lab5 has no answer 'Q99'$"):
        grading.check_answer("Q99", "1", lab="lab5")
    assert grading.check_cell("Q99", "1", quiet=True, lab="lab5") is None
    # with a unit, the first argument is an answer, as a widget's text box passes it
    r = grading.check_cell("Q4", 4.69e6, unit="Mbit/s", quiet=True, lab="lab5")
    assert r.diagnosis == "unreadable" and r.score == 0.0


def _answer_cells(name: str):
    nb = json.loads((NB_DIR / name).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
        src = re.sub(r"#[^\n]*", "", src)  # a comment may show the call without making one
        if re.search(r"(?<![.\w])check\(", src):
            yield cell, src


@pytest.mark.parametrize("name", [f.name for f in sorted(NB_DIR.glob("0[0-6]-*.ipynb"))])
def test_notebooks_check_lab_questions_by_their_id(name):
    cells = list(_answer_cells(name))
    assert cells
    by_id = 0
    for cell, src in cells:
        assert "nbval-check-output" in cell.get("metadata", {}).get("tags", []), src[:60]
        for call in re.findall(r"(?<![.\w])check\(([^\n]*)", src):
            if call.startswith('"Q'):
                by_id += 1
            else:  # a value the handout does not ask for: not through pick()
                assert "pick(" not in call, src[:80]
        output = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
        assert output.strip() and "Traceback" not in output
    assert by_id >= 3
