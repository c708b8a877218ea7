"""Grading: answers checked with units and tolerance, slips diagnosed, whole classes graded.

- :func:`check` -- one answer against an expected value (notebook check cells);
  :func:`check_answer` -- one answer against a lab's answer key, all slips included;
  :func:`check_cell`, :func:`cell_checker` -- the same verdicts printed in a notebook's
  answer cells;
- :func:`answer_key`, :func:`answer_keys` -- the answers of lab variants, with the values
  of the slips (cached; many at once in worker processes);
- :func:`grade`, :func:`grade_file`, :func:`read_answers` -- a class's answers file
  (untrusted CSV) to grades, statistics, feedback and an HTML report;
- :func:`read_assignment` -- what a class was asked (questions, points, tolerances,
  slip credits), read by both the grading and the quiz export;
- :func:`moodle_xml`, :func:`gift` -- the questions as a Moodle quiz, one category per
  question holding its variants; :mod:`labcalc.grading.moodle` -- how Moodle reads and
  grades a response, for a site language; :mod:`labcalc.grading.lms` -- Moodle mode
  (``lms="moodle-en"`` of :func:`check_cell` and :func:`grade`): Moodle's grade, and why
  it differs from labcalc's;
- :func:`write_moodle_grade_import` -- the grades as Moodle's gradebook imports them
  (an LMS's responses report is read by :func:`read_answers`);
- :func:`simulate_class` -- a synthetic class with realistic mistakes, for demos and
  benchmarks.

Examples
--------
>>> from labcalc import grading
>>> r = grading.check("586 kB/s", 4_690_431.5, unit="Mbit/s")
>>> r.correct, r.diagnosis
(True, None)
>>> grading.check_answer("Q4", "5 Mbit/s", lab="lab5").diagnosis
'header_overhead'
"""

from labcalc.grading.check import CheckResult, ParsedAnswer, check, parse_answer
from labcalc.grading.diagnosis import CONTEXT_SLIPS, DEFAULT_CREDIT, SLIPS, credit_table
from labcalc.grading.keys import AnswerKey, answer_key, answer_keys, check_answer, clear_key_cache
from labcalc.grading.batch import (
    AnswerFileError,
    AnswerSheet,
    GradeResult,
    Problem,
    csv_safe,
    grade,
    grade_file,
    read_answers,
)
from labcalc.grading.assignment import Assignment, AssignmentError, read_assignment
from labcalc.grading.export import gift, moodle_xml
from labcalc.grading.lmsfiles import moodle_grade_import, write_moodle_grade_import
from labcalc.grading.simulate import simulate_class
from labcalc.grading.notebook import cell_checker, check_cell

__all__ = [
    "check",
    "CheckResult",
    "parse_answer",
    "ParsedAnswer",
    "SLIPS",
    "DEFAULT_CREDIT",
    "CONTEXT_SLIPS",
    "credit_table",
    "answer_key",
    "answer_keys",
    "clear_key_cache",
    "AnswerKey",
    "check_answer",
    "check_cell",
    "cell_checker",
    "read_answers",
    "AnswerSheet",
    "AnswerFileError",
    "Problem",
    "grade",
    "grade_file",
    "GradeResult",
    "csv_safe",
    "moodle_xml",
    "gift",
    "Assignment",
    "AssignmentError",
    "read_assignment",
    "moodle_grade_import",
    "write_moodle_grade_import",
    "simulate_class",
]
