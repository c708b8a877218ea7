"""A teaching assistant's class, end to end (issue 23 items 1, 4, 5, 6).

The class of the issue: 42 students with their own variants (a course salt), 10 to 13
questions each, typical mistakes and blank answers, a duplicated row, a formula cell and
an HTML student id; written once as a comma CSV and once as a European spreadsheet
export (``sep=;`` line, ``;`` between columns, decimal commas, cp1252). Both must give
every student the same points. Then the report: the expected value per student (held
back until a deadline when asked), the most common wrong answers with the slip they
correspond to, a discrimination index per question, blanks counted as not answered,
and hints worth a look.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import random
import re

import numpy as np
import pandas as pd
import pytest

from labcalc import grading
from labcalc.grading import analysis

SALT = "ta-week-3"


def _class() -> pd.DataFrame:
    rng = random.Random(23)
    parts = []
    for k, n in enumerate(range(10, 14)):  # 10 to 13 questions per student
        df = grading.simulate_class(42, lab="lab5", seed=100 + k, salt=SALT, answers_per_student=n)
        parts.append(df[df["student"].map(lambda s: int(s[1:]) % 4 == k)])
    df = pd.concat(parts, ignore_index=True).drop(columns="variant")
    blanks = rng.sample(range(len(df)), 12)
    df.loc[blanks, "answer"] = ""
    extra = pd.DataFrame([df.iloc[5].to_dict(),  # a duplicated row
                          {"student": '=HYPERLINK("http://x")', "question": "Q4", "answer": "4.69 Mbit/s"},
                          {"student": "<b>eve</b>", "question": "Q3", "answer": "1066 bytes"}])
    return pd.concat([df, extra], ignore_index=True)


CLASS = _class()


def _comma_csv(df) -> bytes:
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    return buf.getvalue().encode("utf-8")


def _european(df) -> bytes:
    """As a spreadsheet in most of Europe exports it: sep=; line, ';', decimal commas, cp1252."""
    out = df.copy()
    # every decimal point between digits becomes a comma, as the locale writes numbers
    out["answer"] = out["answer"].map(lambda a: re.sub(r"(?<=\d)\.(?=\d)", ",", a))
    buf = io.StringIO()
    buf.write("sep=;\r\n")
    out.to_csv(buf, index=False, sep=";", lineterminator="\r\n")
    return buf.getvalue().encode("cp1252")


@pytest.fixture(scope="module")
def graded():
    comma = grading.grade(grading.read_answers(_comma_csv(CLASS)), "lab5", salt=SALT)
    europe = grading.grade(grading.read_answers(_european(CLASS)), "lab5", salt=SALT)
    return comma, europe


def test_a_comma_csv_and_a_european_export_give_identical_points(graded):
    comma, europe = graded
    a, b = comma.grades.set_index("student"), europe.grades.set_index("student")
    assert len(a) == 44 and list(a.index) == list(b.index)
    assert (a["total"] == b["total"]).all() and (a.drop(columns="variant") == b.drop(columns="variant")).all().all()
    # every answer read the same, row for row
    da, db = comma.detail, europe.detail
    assert (da["score"].to_numpy() == db["score"].to_numpy()).all()
    assert (da["diagnosis"].fillna("-").to_numpy() == db["diagnosis"].fillna("-").to_numpy()).all()
    # how many answers hold a decimal comma, counted independently of the reader
    n_commas = int(CLASS["answer"].str.contains(r"\d\.\d").sum())
    assert n_commas > 40
    note = [n for n in europe.notes if "decimal mark" in n]
    assert len(note) == 1 and f": {n_commas} answers read so, such as " in note[0]
    assert not any("decimal mark" in n for n in comma.notes)


def test_the_rows_a_grader_meets_are_handled(graded):
    comma, _ = graded
    # the duplicated row replaces the first one (reported), the formula and HTML ids are graded as text
    assert any("replaced by the answer at row" in p.reason for p in comma.problems)
    assert {'=HYPERLINK("http://x")', "<b>eve</b>"} <= set(comma.grades["student"])
    page = comma.report_html()
    assert "&lt;b&gt;eve&lt;/b&gt;" in page and "<b>eve</b>" not in page


def test_ids_that_differ_only_in_case_are_one_student():
    key = grading.answer_key("lab5", grading.answer_key("lab5", 0).seed or
                             __import__("labcalc").labs.lab5.variant_for("u2501", SALT))
    text = (f"student,question,answer\nU2501,Q3,{key.value('Q3'):.0f} bytes\n"
            f"u2501,Q4,{key.value('Q4') / 1e6:.4f} Mbit/s\n").encode()
    res = grading.grade(grading.read_answers(text), "lab5", salt=SALT)
    assert list(res.grades["student"]) == ["U2501"] and res.grades.loc[0, "total"] == 2
    assert res.notes[0].startswith("1 student id written with other letter cases taken as the same student")
    # the variant does not depend on the spelling
    from labcalc.labs import lab5

    assert lab5.variant_for("U2501", SALT) == lab5.variant_for("u2501", SALT)


def _pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sx = math.sqrt(sum((a - mx) ** 2 for a in x))
    sy = math.sqrt(sum((b - my) ** 2 for b in y))
    return sxy / (sx * sy)


def test_the_discrimination_index_is_the_correlation_with_the_rest(graded):
    comma, _ = graded
    g = comma.grades
    for answer_id in ("Q4", "Q13.7", "Q29"):
        x = [float(v) for v in g[answer_id]]
        rest = [float(t) - v for t, v in zip(g["total"], x)]
        assert comma.stats.loc[answer_id, "discrimination"] == pytest.approx(_pearson(x, rest), abs=1e-12)
    # a question everyone gets the same points on cannot discriminate
    flat = pd.DataFrame({"Q1": [1, 1, 1, 1], "Q2": [0, 1, 0, 1]})
    flat["total"] = flat.sum(axis=1)
    assert math.isnan(analysis.discrimination(flat, ["Q1"])["Q1"])


def test_a_blank_is_not_answered_never_a_slip():
    # Q19 of the issue: every answer blank or missing gave "empty 100 %" as the top slip
    text = b"student,question,answer\nada,Q19,\nbob,Q19,\ncid,Q19,1.22\ncid,Q4,4.69 Mbit/s\n"
    res = grading.grade(grading.read_answers(text), "lab5")
    q19 = res.stats.loc["Q19"]
    assert (q19.answered, q19.blank, q19.correct, q19.top_diagnosis) == (1, 2, 1.0, None)
    page = res.report_html()
    assert "(not answered)" in page and "empty: no answer</td>" not in page.split("<h2>Questions")[1].split("</table>")[0]
    # with an assignment, a student without a row for a question did not answer it
    task = grading.assignment.assignment_from_text('lab = "lab5"\nquestions = ["Q4", "Q19"]\n')
    res = grading.grade(grading.read_answers(text), assignment=task)
    assert (res.stats.loc["Q4", "answered"], res.stats.loc["Q4", "blank"]) == (1, 2)
    assert res.stats.loc["Q4", "mean_score"] == pytest.approx(1 / 3)


def test_common_wrong_answers_are_grouped_across_variants(graded):
    comma, _ = graded
    d = comma.detail
    for answer_id in ("Q4", "Q9", "Q13.7"):
        groups = analysis.common_wrong_answers(d, answer_id, top=10)
        wrong = d[(d["question"] == answer_id) & ~d["correct"] & (d["diagnosis"] != "empty")]
        assert sum(g["students"] for g in groups) == wrong["student"].nunique() or len(groups) == 10
        for g in groups:
            if g["ratio"] is None:
                continue
            # the ratio, recomputed from the answers of that group, independently
            members = wrong[np.isclose(wrong["given"] / wrong["expected"], g["ratio"], rtol=5e-3)]
            assert len(members) >= g["students"] >= 1
    # the header slip on Q4 is 1000/1066 of ... : its group names it
    text = b"student,question,answer\n" + b"".join(
        f"s{k},Q4,{v}\n".encode() for k, v in enumerate(["5 Mbit/s", "5 Mbit/s", "5.0 Mbit/s", "3 Mbit/s"]))
    res = grading.grade(grading.read_answers(text), "lab5")
    top = analysis.common_wrong_answers(res.detail, "Q4")[0]
    assert (top["students"], top["ratio"], top["slip"]) == (3, float(f"{5e6 / res.detail['expected'][0]:.3g}"),
                                                           "header_overhead")
    assert "header_overhead: header bytes forgotten" in res.report_html()


def test_the_expected_value_can_wait_for_the_deadline(graded, tmp_path):
    comma, _ = graded
    row = comma.detail[comma.detail["question"] == "Q4"].iloc[0]
    shown = f"{row['expected'] / 1e6:.4f}".rstrip("0") + " Mbit/s"
    assert shown in comma.report_html()
    before = dt.datetime(2025, 5, 31, 12, 0).astimezone()
    page = comma.report_html(expected_after="2025-06-01T23:59", now=before)
    assert shown not in page and "held back until 2025-06-01 23:59:00" in page
    after = comma.report_html(expected_after="2025-06-01T23:59", now=dt.datetime(2025, 6, 2).astimezone())
    assert shown in after
    comma.write_feedback(tmp_path / "f.csv", expected_after="2025-06-01T23:59", now=before)
    f = pd.read_csv(tmp_path / "f.csv", dtype=str, keep_default_na=False)
    assert set(f["expected"]) == {"held back"}
    comma.write_feedback(tmp_path / "f.csv")
    f = pd.read_csv(tmp_path / "f.csv", dtype=str, keep_default_na=False)
    assert shown in set(f["expected"]) and f["variant"].str.fullmatch(r"v\d+").all()
    with pytest.raises(ValueError, match="must be a date and time such as 2025-06-01T23:59"):
        comma.report_html(expected_after="next friday")


def test_worth_a_look_lists_shared_wrong_answers_and_other_students_values():
    from labcalc.labs import lab5

    seeds = {s: lab5.variant_for(s, SALT) for s in ("ada", "bob", "cid", "dan")}
    keys = {s: grading.answer_key("lab5", v) for s, v in seeds.items()}
    q4 = {s: keys[s].value("Q4") for s in seeds}
    assert len({round(v) for v in q4.values()}) == 4
    rows = [f"ada,Q4,{q4['bob'] / 1e6:.5f} Mbit/s",  # bob's right value
            "bob,Q29,123.4 ms", "cid,Q29,123.4ms",  # the same unexplained wrong answer
            f"dan,Q4,{q4['dan'] / 1e6:.5f} Mbit/s"]
    res = grading.grade(grading.read_answers(("student,question,answer\n" + "\n".join(rows) + "\n").encode()),
                        "lab5", salt=SALT)
    # bob did not answer Q4: his variant's key is looked at all the same (with the lab)
    assert "another student's value" not in {h["kind"] for h in analysis.worth_a_look(res.detail)}
    hints = analysis.worth_a_look(res.detail, lab="lab5")
    kinds = {(h["kind"], h["question"], tuple(h["students"][:2])) for h in hints}
    assert ("same wrong answer", "Q29", ("bob", "cid")) in kinds
    assert ("another student's value", "Q4", ("ada", "bob")) in kinds
    page = res.report_html()
    assert "Worth a look" in page and "another student&#x27;s value" in page
