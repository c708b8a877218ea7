"""The LMS surfaces under fire: assignment files, Moodle's reading of a response, Moodle mode, grade files.

Property tests (hypothesis, derandomised; ``scripts/fuzz_long.py`` runs them with
thousands of fresh examples):

- **assignment TOML**: any file built from the keys an assignment has (in any case,
  dotted, repeated) and values of every TOML type (huge, negative, infinite and NaN
  numbers, text, arrays, nested tables) gives an :class:`Assignment` whose points are
  finite with a positive total, or an :class:`AssignmentError` naming the file; nothing
  else escapes. Seeded with the classes found: points of 1e308 (an infinite total, NaN
  percentages), ``Q4`` and ``q4`` in one table (the last silently won), an unquoted
  ``Q13.7`` key, slots not asked.
- **Moodle's reading** (:func:`labcalc.grading.moodle.read_response`) against a
  transcription of ``qtype_numerical_answer_processor::apply_units`` written here from
  Moodle's PHP, working on UTF-8 bytes as PHP's ``str_replace`` and PCRE without ``/u``
  do: the number, the unit and the multiplier must be the same for every text and site.
- **Moodle mode** (:func:`labcalc.grading.lms.moodle_verdict`): for any text, the score is
  Moodle's grade (or labcalc's own where the two agree), between 0 and 1, with a message;
  a text it suggests gets full marks from both.
- **grade files** (:func:`labcalc.grading.moodle_grade_import`): any class with any ids
  (letter case, signs, ``@``, non-ASCII) and any maximum gives a CSV that Moodle's import
  reads (one row per student, grades plain decimals between 0 and the maximum, no NaN)
  or a ValueError.
"""

from __future__ import annotations

import csv
import io
import math
import re

import pandas as pd
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labcalc import grading
from labcalc.grading.assignment import Assignment, AssignmentError, assignment_from_text
from labcalc.grading.lms import moodle_grade_of, moodle_question, moodle_verdict
from labcalc.grading.lmsfiles import moodle_grade_import
from labcalc.grading.moodle import SITE_LANGUAGES, read_response

FUZZ = settings(derandomize=True, deadline=None, max_examples=150,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
#: The properties that grade (a class, or a verdict with its re-checks) run fewer examples.
SLOW = settings(FUZZ, max_examples=40)

# -- assignment files ----------------------------------------------------------------

_KEYS = ["lab", "questions", "title", "accounting", "points", "tolerance", "credit", "export", "columns", "lms",
         "Q4", "q4", "Q3", "Q13", "Q13.7", '"Q13.7"', "Q29", "rtol", "atol", "variants", "first_seed",
         "identifier", "grade_item", "grade_max", "slots", "finished", "student", "response", "wire_vs_shaper",
         "missing_unit", "x", "LAB"]
_VALUES = ["1", "0", "-1", "1e308", "-1e308", "inf", "nan", "0.5", "2", "1000", "9223372036854775807",
           '"lab5"', '"LAB5"', '"Q4"', '"1 ms"', '"1 Mbit/s"', '"5 %"', '"nan Mbit/s"', '"email"', '"Terminé"',
           '["Q3", "Q4"]', '["Q13"]', '["q4", "Q4"]', '["Q99"]', "[]", '[1, "Q4"]', "{ rtol = 0.02 }",
           "{ atol = 1e308 }", '{ atol = "1 ms", rtol = 0.1 }', "{ x = 1 }", "true", '""', '"' + "x" * 300 + '"']


@st.composite
def assignment_texts(draw):
    lines = ['lab = "lab5"', 'questions = ["Q3", "Q4", "Q13.7", "Q29"]'] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(0, 4))):
        lines.append(f"{draw(st.sampled_from(_KEYS))} = {draw(st.sampled_from(_VALUES))}")
    for _ in range(draw(st.integers(0, 3))):
        lines.append(f"[{draw(st.sampled_from(['points', 'tolerance', 'credit', 'export', 'columns', 'lms', 'x']))}]")
        for _ in range(draw(st.integers(0, 3))):
            lines.append(f"{draw(st.sampled_from(_KEYS))} = {draw(st.sampled_from(_VALUES))}")
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=assignment_texts())
@example(text='lab = "lab5"\nquestions = ["Q3", "Q4"]\n[points]\nQ3 = 1e308\nQ4 = 1e308\n')
@example(text='lab = "lab5"\nquestions = ["Q3", "Q4"]\n[points]\nQ4 = 2\nq4 = 5\n')
@example(text='lab = "lab5"\nquestions = ["Q13"]\n[points]\nQ13.7 = 2\n')
@example(text='lab = "lab5"\nquestions = ["Q13"]\n[tolerance]\nQ13.7 = { rtol = 0.1 }\n')
@example(text='lab = "lab5"\nquestions = ["Q3"]\n[lms]\nslots = ["Q4"]\n')
@example(text='lab = "lab5"\nquestions = ["Q3"]\n[lms]\nfinished = "Terminé"\n')
def test_any_assignment_file_is_an_assignment_or_refused_by_name(text):
    try:
        a = assignment_from_text(text, "a.toml")
    except AssignmentError as exc:
        assert str(exc).startswith("a.toml: ") and "\n" not in str(exc)
        return
    assert isinstance(a, Assignment)
    assert all(math.isfinite(p) and p >= 0 for p in a.points.values())
    assert math.isfinite(a.max_points) and a.max_points > 0
    assert set(a.slots) <= set(a.questions) and set(a.points) == set(a.questions)
    assert all(math.isfinite(v) for v in [*a.rtol.values(), *a.atol.values()])
    if a.finished:
        assert a.columns["finished"] == a.finished


# -- Moodle's reading of a response, against a transcription of its PHP ----------------

def _apply_units_php(response: str, units: dict, decsep: str, thousandssep: str):
    """``qtype_numerical_answer_processor::apply_units`` (Moodle 5.1,
    question/type/numerical/questiontype.php), transcribed on UTF-8 bytes: PHP strings are
    bytes, ``str_replace`` replaces byte sequences in order, and a PCRE pattern without
    ``/u`` reads ``\\d`` as an ASCII digit. The response is first trimmed as
    ``PARAM_RAW_TRIMMED`` trims it (PHP ``trim``). Returns (value, unit, multiplier)."""
    b = response.encode("utf-8").strip(b" \t\n\r\0\x0b")
    b = b.replace(b" ", b"")
    b = re.sub(rb"(?:e|E|(?:x|\*|\xc3\x97)10(?:\^|\*\*))([+-]?[0-9]+)", rb"e\1", b)
    if b"." in b or b.count(b",") > 1:
        b = b.replace(b",", b"")
    else:
        for search, replace in ((thousandssep.encode(), b""), (decsep.encode(), b"."), (b",", b".")):
            b = b.replace(search, replace)
    m = re.match(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[-+]?[0-9]+)?", b)
    if not m:
        return None, None, None
    unit = b[m.end():].decode("utf-8", "surrogateescape")
    multiplier = 1 / units[unit] if unit in units else None
    return float(m.group(0)), unit, multiplier


_PIECES = ["4", "69", ".", ",", " ", "\u00a0", "\u202f", "e", "E", "6", "-6", "+", "-", "\u2212", "x10^", "*10^",
           "\u00d710**", "X10^", "\u00b710^", "Mbit/s", "mbit/s", "kB/s", "MB/s", "bytes", "B", "%", "ms", "s", "(",
           ")", ".", ";", "\t", "\uff14", "\u0664", "1e999", "9" * 30, "0", "'", "=", "@", "\u00e9", "\U0001f600"]
_UNITS = {"Mbit/s": 1.0, "kbit/s": 1000.0, "Mbps": 1.0, "kB/s": 125.0, "MB/s": 0.125, "bytes": 1.0, "%": 100.0,
          "\u00a0Mbit/s": 1.0}


@FUZZ
@given(parts=st.lists(st.sampled_from(_PIECES), max_size=8), site=st.sampled_from(sorted(SITE_LANGUAGES)))
@example(parts=["4", ",", "69", " ", "Mbit/s"], site="en")
@example(parts=["4", ".", "69", " ", "Mbit/s", ","], site="en")
@example(parts=["4", ".", "69", "\u00d710**", "6", " ", "bit/s"], site="en")
@example(parts=["4", "\u00a0", "69", "Mbit/s"], site="fr")
@example(parts=["4", ".", "69", ",", "5"], site="de")
def test_moodles_reading_is_its_php_read_on_bytes(parts, site):
    text = "".join(parts)
    lang = SITE_LANGUAGES[site]
    got = read_response(text, _UNITS, site)
    value, unit, multiplier = _apply_units_php(text, _UNITS, lang.decsep, lang.thousandssep)
    assert got.value == value or (got.value is not None and value is not None and math.isnan(got.value)
                                  and math.isnan(value))
    if value is not None:
        assert got.unit == unit and got.multiplier == multiplier


# -- Moodle mode -----------------------------------------------------------------------

_ASKED = [("Q4", 0), ("Q3", 0), ("Q13.7", 0), ("Q13.3", 0), ("Q29", 0)]


@SLOW
@given(parts=st.lists(st.sampled_from(_PIECES), max_size=7), which=st.sampled_from(_ASKED),
       lms=st.sampled_from(["moodle-en", "moodle-fr", "moodle-de"]))
@example(parts=["4", ".", "6904", " ", "MB/s"], which=("Q4", 0), lms="moodle-en")
@example(parts=["0", " ", "(", "no loss", ")"], which=("Q13.3", 0), lms="moodle-en")
def test_moodle_mode_gives_moodles_grade_and_only_right_suggestions(parts, which, lms):
    text = "".join(parts)
    answer_id, seed = which
    asked = moodle_question("lab5", answer_id, seed)
    mine = grading.check_answer(answer_id, text, lab="lab5", seed=seed)
    verdict = moodle_verdict(mine, text, asked, lms,
                             recheck=lambda t: grading.check_answer(answer_id, t, lab="lab5", seed=seed))
    moodle = asked.question.grade(text, lms).fraction
    assert 0.0 <= verdict.score <= 1.0 and verdict.message
    if text.strip():
        assert math.isclose(verdict.score, moodle, abs_tol=1e-9) or (
            verdict is mine and math.isclose(moodle_grade_of(mine.score), moodle, abs_tol=1e-6))
    found = re.search(r": type (.+) to get full marks from both", verdict.message)
    if found:
        suggested = found.group(1)
        assert asked.question.grade(suggested, lms).fraction == 1.0
        assert grading.check_answer(answer_id, suggested, lab="lab5", seed=seed).score == 1.0
        assert mine.score == 1.0 or moodle == 1.0, "a suggestion gave away a right answer"


# -- grade files -----------------------------------------------------------------------

_IDS = st.sampled_from(["ada@uni.edu", "Ada@Uni.edu", "U2501", "u2502", "-x", "=1+1", "@bob", "+33 1", "émile",
                        "ÉMILE", "a b", 'q"x', "a,b", "x" * 64, "0042", "1e5"])


def _moodle_import_reads(text: str, header: str, item: str, grade_max: float) -> list[str]:
    """The ids of a grade file as Moodle's import reads it (byte-order mark dropped, a
    grade cell a plain decimal or empty); asserts the grades are between 0 and the maximum."""
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    head = [h.strip() for h in rows[0]]
    i_user, i_item = head.index(header), head.index(item)
    ids = []
    for line in rows[1:]:
        assert re.fullmatch(r"\d+(\.\d+)?", line[i_item]), line
        assert 0 <= float(line[i_item]) <= grade_max * (1 + 1e-9) + 1e-4
        ids.append(line[i_user])
    return ids


@SLOW
@given(ids=st.lists(_IDS, min_size=1, max_size=5), identifier=st.sampled_from([None, "email", "username", "idnumber"]),
       grade_max=st.sampled_from([None, 1e-9, 0.5, 10.0, 100.0, 1e6]), per_question=st.booleans(),
       feedback=st.booleans())
def test_any_class_gives_a_grade_file_moodle_reads_or_a_named_error(ids, identifier, grade_max, per_question, feedback):
    frame = pd.DataFrame({"student": ids, "question": ["Q4"] * len(ids),
                          "answer": ["4.69 Mbit/s", "5 Mbit/s", "", "x", "4690 kbps"][:len(ids)]})
    result = grading.grade(frame, "lab5")
    try:
        text = moodle_grade_import(result, identifier=identifier, grade_max=grade_max, per_question=per_question,
                                   feedback=feedback)
    except ValueError as exc:
        assert "identifier email" in str(exc) and "is not an email address" in str(exc)
        return
    header = text.removeprefix("\ufeff").split(",", 1)[0]
    written = _moodle_import_reads(text, header, "labcalc lab5",
                                   grade_max if grade_max is not None else float(result.grades["max_total"].max()))
    students = [str(s) for s in result.grades["student"]]
    assert len(written) == len(students)
    for got, student in zip(written, students):
        unescaped = got[1:] if got.startswith("'") else got
        assert unescaped == (student.lower() if header == "Username" else student)
