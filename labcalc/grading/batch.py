"""Batch grading of a class's answers: the pipeline from an :class:`AnswerSheet` to grades.

:func:`grade` runs named steps: resolve the lab and the points, drop the rows that cannot
be graded (unknown question, variant that disagrees with the course salt, a key that
cannot be computed, a repeated answer), evaluate every answer against its student's
variant key in one vectorised pass, then tabulate. The other jobs live beside it:
reading the untrusted file (:mod:`labcalc.grading.answerfile`), answer keys
(:mod:`labcalc.grading.keys`), tables and CSV safety (:mod:`labcalc.grading.tables`).

Examples
--------
>>> text = b"student,question,answer\\nada,Q4,4.69 Mbit/s\\nada,Q3,1000 bytes\\nbob,Q9,\\x00\\x01\\n"
>>> result = grade(read_answers(text), "lab5")
>>> result.grades[["student", "Q3", "Q4", "total"]].to_string(index=False)
'student  Q3  Q4  total\\n    ada 0.5 1.0    1.5'
>>> [str(p) for p in result.problems]
['row 4: contains binary data or control characters']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from labcalc.grading._layouts import SLOT_PREFIX
from labcalc.grading.answerfile import (
    DEFAULT_MAX_BYTES, AnswerFileError, AnswerSheet, Problem, decimal_point_text, quote, read_answers,
    sheet_from_frame,
)
from labcalc.grading.check import grade_parsed, parse_answer
from labcalc.grading.diagnosis import CONTEXT_SLIPS, credit_table, other_accountings, tolerance_band
from labcalc.grading.tables import GradeResult, csv_safe, grades_table, stats_table

__all__ = [
    "AnswerFileError",
    "Problem",
    "AnswerSheet",
    "GradeResult",
    "read_answers",
    "grade",
    "grade_file",
    "csv_safe",
    "DEFAULT_MAX_BYTES",
]


def grade(answers, lab=None, *, assignment=None, salt: str | None = None, accounting: str | None = None,
          credit: Mapping[str, float] | None = None, sigfigs: int | None = None,
          points: Mapping[str, float] | None = None, jobs: int | None = None,
          lms: str | None = None) -> GradeResult:
    """Grade a class: every answer checked against its student's variant key.

    Parameters
    ----------
    answers : AnswerSheet or pandas.DataFrame
        From :func:`read_answers`, or a frame with columns ``student``, ``question``,
        ``answer`` and optionally ``variant``.
    lab : Lab or str, optional
        The lab whose answer keys grade the answers (a :class:`labcalc.labs.Lab` or its
        name, see :func:`labcalc.labs.get_lab`); taken from ``assignment`` when it is
        not given (and checked against it when it is); no default otherwise.
    assignment : Assignment or path, optional
        What the class was asked (:mod:`labcalc.grading.assignment`): only its
        questions are graded (an answer to another is reported and skipped), with its
        points, tolerances, slip credits and accounting; percentages are of its points.
        The responses of an LMS report (questions ``"#n"``) are matched to questions by
        the text each student saw, when the report holds it (which also gives the
        variant each student drew), otherwise by the assignment's slots.
    salt : str, optional
        Course salt: each student's variant is ``variant_for(student, salt)``. With a
        variant column too, the column is checked against it rather than trusted: a
        row whose variant differs from the student's is reported and skipped, and an
        empty cell takes the student's variant. Without a salt, the variant column
        decides (an empty cell is reported), and a note says that it was trusted;
        without both, every student is graded on the handout's numbers (variant 0).
    accounting : str, optional
        Byte accounting of the answer key (the assignment's, else ``"wire"``).
    credit : mapping, optional
        Partial credit per slip (see :data:`labcalc.grading.DEFAULT_CREDIT`), on top of
        the assignment's.
    sigfigs : int, optional
        Grade on significant digits instead of each answer's relative tolerance.
    points : mapping, optional
        Points per answer id, replacing the lab's and the assignment's (``{"Q4": 2}``).
    jobs : int, optional
        Worker processes for answer keys not yet computed (see
        :func:`labcalc.grading.answer_keys`); ``1`` keeps everything in this process.
    lms : {None, "moodle-en", "moodle-fr", "moodle-de"}, optional
        The course grades the exported quiz in Moodle, on a site in that language:
        every answer gets the grade Moodle will give, and where that differs from
        labcalc's own the feedback says why and what to type
        (:func:`labcalc.grading.lms.moodle_detail`; column ``labcalc_score``: labcalc's
        own). Not with ``sigfigs`` (the quiz grades on tolerances).

    Returns
    -------
    GradeResult

    Notes
    -----
    Rows with an unknown question id, a variant that disagrees with the course salt
    (or, without a salt, with the student's first row), or a second answer to the same
    question (the last one is graded, except that a row read again after a quote that
    is never closed never replaces an answer read before it: see
    :func:`read_answers`) are reported in ``problems``. Negative answers to rates,
    sizes, times and shares are refused as :func:`labcalc.grading.check` refuses them. Answers given as
    numbers in a data frame are read as the same text without a unit (``1066`` as
    ``"1066"``: a missing unit where the question needs one), and a variant column
    that became float because of an empty cell is read back as integers (3.0 is
    variant 3; an empty cell is "no variant given"). Each variant's answer key is computed once and cached
    (:func:`labcalc.grading.answer_keys`, in parallel when many are missing); parsing
    is cached per distinct answer text, and the checks run vectorised over all
    answers.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"student": ["ada", "ada", "bob"], "question": ["Q4", "q9", "Q99"],
    ...                    "answer": ["5 Mbit/s", "4.85 Mbit/s", "1"]})
    >>> res = grade(df, "lab5")
    >>> res.detail[["student", "question", "score", "diagnosis"]].to_string(index=False)
    'student question  score       diagnosis\\n    ada       Q4    0.5 header_overhead\\n    ada       Q9    1.0            None'
    >>> [str(p) for p in res.problems]
    ["row 4: unknown question 'Q99' (lab5 ids look like Q4, Q13.6, Q44.2)"]
    """
    from labcalc.grading.keys import answer_key
    from labcalc.grading.lmsfiles import resolve_slots

    task = _assignment(assignment)
    lab = _lab(lab, task)
    accounting = accounting or (task.accounting if task else "wire")
    credits = credit_table({**(task.credit if task else {}), **(credit or {})})
    _check_sigfigs(sigfigs)
    if lms is not None:
        from labcalc.grading.moodle import site_language

        site_language(lms)
        if sigfigs is not None:
            raise ValueError("lms: the Moodle quiz grades on tolerances; sigfigs cannot be used with lms")
    sheet = answers if isinstance(answers, AnswerSheet) else sheet_from_frame(answers)
    base_key = answer_key(lab, 0, accounting)
    point_values = _point_values(base_key, {**(task.points if task else {}), **(points or {})}, lab.name)
    rtol, atol = _tolerances(base_key, task)
    from_slots = sheet.answers["question"].astype(str).str.startswith(SLOT_PREFIX).to_numpy()
    sheet, per_answer = resolve_slots(sheet, lab, task, accounting)
    rows = _Rows.of(sheet, base_key.ids)
    _drop_unknown_questions(rows, lab.name, base_key)
    asked = task.questions if task else base_key.ids
    if task:
        _drop_unasked(rows, set(asked), task)
        _slot_variants(rows, from_slots, task, salt, per_answer)
    _resolve_variants(rows, sheet.has_variant, salt, lab, per_answer)
    by_seed = _fetch_keys(rows, lab, accounting, jobs)
    _drop_repeated_answers(rows, sheet.reread)
    detail = _evaluate(rows.kept(), base_key, by_seed, accounting, sigfigs, credits, point_values, rtol, atol)
    if lms is not None:
        from labcalc.grading.lms import moodle_detail

        # the quiz Moodle grades is the assignment's (its tolerances and credits)
        detail = moodle_detail(detail, lab, lms, accounting=accounting, credit=credit, notes=rows.notes,
                               assignment=task)
    rows.problems.sort(key=lambda p: p.row)
    asked_points = point_values[[base_key.ids.index(q) for q in asked]]
    grades = grades_table(detail, asked, asked_points)
    return GradeResult(detail=detail, grades=grades,
                       stats=stats_table(detail, lab.answers, asked, asked_points, grades,
                                         len(grades) if task else None),
                       problems=tuple(rows.problems), lab=lab.name, accounting=accounting,
                       source=sheet.source, notes=tuple(rows.notes), assignment=task,
                       id_column=sheet.id_column)


def _assignment(assignment):
    """``None``, an :class:`~labcalc.grading.assignment.Assignment`, or one read from a path."""
    from labcalc.grading.assignment import Assignment, read_assignment

    if assignment is None or isinstance(assignment, Assignment):
        return assignment
    return read_assignment(assignment)


def _lab(lab, task):
    """The lab: given, or the assignment's (both must agree)."""
    from labcalc.labs import get_lab

    if lab is None:
        if task is None:
            raise ValueError("grade: give the lab (such as \"lab5\") or an assignment")
        return get_lab(task.lab)
    lab = get_lab(lab)
    if task is not None and task.lab != lab.name:
        raise ValueError(f"the assignment {task.source} is for {task.lab}, not {lab.name}")
    return lab


def _tolerances(base_key, task):
    """The tolerances of every answer id: the lab's, with the assignment's in their place."""
    rtol, atol = base_key.rtol.copy(), base_key.atol.copy()
    if task is not None:
        for answer_id, value in task.rtol.items():
            rtol[base_key.ids.index(answer_id)] = value
        for answer_id, value in task.atol.items():
            atol[base_key.ids.index(answer_id)] = value
    return rtol, atol


def _drop_unasked(r: "_Rows", asked: set, task) -> None:
    """Answers to questions the assignment did not ask are reported and skipped."""
    listing = ", ".join(task.questions[:6]) + (" ..." if len(task.questions) > 6 else "")
    for i in np.flatnonzero(r.keep & (r.answer_index >= 0)):
        if r.ids[r.answer_index[i]] not in asked:
            r.skip(i, f"{r.ids[r.answer_index[i]]} was not asked in this assignment ({task.source}: "
                      f"{listing}); the answer is skipped")


def _slot_variants(r: "_Rows", from_slots: np.ndarray, task, salt, per_answer: bool) -> None:
    """The variant of an LMS report's responses placed by the assignment's slots (no
    question text matched): the quiz's only variant, or the course salt's; otherwise
    unknown, since the LMS drew one per student and question, and the row is skipped
    (grading it on the handout's numbers would be silently wrong)."""
    pending = np.flatnonzero(r.keep & from_slots & (r.variants < 0))
    if not pending.size or salt is not None:
        return
    seeds = task.seeds
    if len(seeds) == 1:
        r.variants[pending] = seeds[0]
        return
    if per_answer:
        return  # some texts matched: the others are reported as matching no variant
    for i in pending:
        r.skip(i, f"{r.questions[i]}: the report has no question text this response can be matched with, "
                  f"so the variant the LMS drew is unknown (the quiz holds variants {seeds[0]}-{seeds[-1]}); download the "
                  f"Responses report with 'Question text' ticked (Display options); if every student "
                  f"had the same numbers, say which in the assignment ([export] variants = 1, first_seed = "
                  f"the seed, 0 for the handout's)")
    r.notes.append(f"{pending.size} responses not graded: without the question texts the variant of each "
                   f"response is unknown (see the rows skipped)")


def _check_sigfigs(sigfigs) -> None:
    if sigfigs is not None and (isinstance(sigfigs, (bool, np.bool_))
                                or not isinstance(sigfigs, (int, float, np.integer, np.floating))
                                or not math.isfinite(sigfigs) or int(sigfigs) != sigfigs or sigfigs < 1):
        raise ValueError(f"sigfigs must be a whole number >= 1; got {sigfigs!r}")


def _point_values(base_key, points: Mapping[str, float] | None, lab_name: str) -> np.ndarray:
    """The lab's points per answer, with the ones ``points`` replaces."""
    position = {answer_id: i for i, answer_id in enumerate(base_key.ids)}
    point_values = base_key.points.copy()
    for answer_id, value in (points or {}).items():
        if answer_id not in position:
            raise ValueError(f"points: {lab_name} has no answer {answer_id!r}")
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"points[{answer_id!r}] must be a number >= 0; got {value!r}")
        point_values[position[answer_id]] = float(value)
    return point_values


@dataclass
class _Rows:
    """The answers being graded, as arrays, with which rows are still kept and why not."""

    ids: tuple
    rows: np.ndarray
    students: np.ndarray
    questions: np.ndarray
    texts: np.ndarray
    parse_texts: np.ndarray
    variants: np.ndarray
    answer_index: np.ndarray
    keep: np.ndarray
    problems: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @classmethod
    def of(cls, sheet: AnswerSheet, ids) -> "_Rows":
        df = sheet.answers
        position = {answer_id: i for i, answer_id in enumerate(ids)}
        questions = df["question"].to_numpy(object)
        texts = df["answer"].to_numpy(object)
        # what the grammar reads: in a ';' file, a decimal comma written as a point
        parse_texts = (np.array([decimal_point_text(t) for t in texts], dtype=object)
                       if sheet.decimal_comma else texts)
        return cls(ids=tuple(ids), rows=df["row"].to_numpy(), students=df["student"].to_numpy(object),
                   questions=questions, texts=texts, parse_texts=parse_texts,
                   variants=df["variant"].to_numpy(dtype=np.int64).copy(),
                   answer_index=np.array([position.get(q, -1) for q in questions], dtype=np.int64),
                   keep=np.ones(len(df), bool), problems=list(sheet.problems), notes=list(sheet.notes))

    def skip(self, i: int, reason: str) -> None:
        self.problems.append(Problem(int(self.rows[i]), reason))
        self.keep[i] = False

    def kept(self) -> "_Rows":
        idx = np.flatnonzero(self.keep)
        return _Rows(ids=self.ids, rows=self.rows[idx], students=self.students[idx],
                     questions=self.questions[idx], texts=self.texts[idx],
                     parse_texts=self.parse_texts[idx], variants=self.variants[idx],
                     answer_index=self.answer_index[idx], keep=np.ones(len(idx), bool),
                     problems=self.problems, notes=self.notes)


def _drop_unknown_questions(r: _Rows, lab_name: str, base_key=None) -> None:
    example = ", ".join(i for i in ("Q4", "Q13.6", "Q44.2") if i in r.ids) or r.ids[0]
    for i in np.flatnonzero(r.answer_index < 0):
        question = str(r.questions[i])
        # a question that asks for several numbers (Q13): each part has its own id
        parts = base_key.parts(question) if base_key is not None else []
        if question.startswith(SLOT_PREFIX):
            r.skip(i, f"response {question[1:]} of the LMS report: which question it answers is not known "
                      f"(give an assignment whose questions are in the quiz's order, or download the report "
                      f"with the question texts)")
        elif parts:
            listing = ", ".join(f"{answer_id} ({label})" for answer_id, label in parts)
            r.skip(i, f"{quote(question, 20)} asks for {len(parts)} numbers; give each its own row with "
                      f"its id: {listing}")
        else:
            r.skip(i, f"unknown question {quote(question, 20)} ({lab_name} ids look like {example})")


def _resolve_variants(r: _Rows, has_variant: bool, salt: str | None, lab, per_answer: bool = False) -> None:
    """Each row's variant: from the course salt (the column checked against it), else
    from the column (trusted, but the same for all of a student's rows unless each
    answer has its own, as when an LMS draws a variant per question), else 0."""
    seeds = {s: lab.variant_for(s, salt) for s in set(r.students[r.keep])} if salt is not None else {}
    if has_variant and salt is not None:
        # the salt decides; the column is checked against it, never trusted
        for i in np.flatnonzero(r.keep):
            s, v = r.students[i], int(r.variants[i])
            if v < 0:
                r.variants[i] = seeds[s]
            elif v != seeds[s]:
                r.skip(i, f"variant {v} is not the variant of student {quote(s, 30)} under the course "
                          f"salt ({seeds[s]}); the row is skipped")
        r.notes.append("the variant column was checked against the course salt")
    elif has_variant and per_answer:
        r.notes.append("each answer graded on the variant of the question the student saw (found from "
                       "its text)")
        for i in np.flatnonzero(r.keep & (r.variants < 0)):
            r.skip(i, "the question text of this response matches no variant of the quiz; give the "
                      "assignment whose export made the quiz ([export] variants and first_seed)")
    elif has_variant:
        r.notes.append("variants taken from the 'variant' column, not checked; pass the course salt "
                       "(--salt, or salt=) to derive and check them")
        first: dict[str, tuple[int, int]] = {}
        for i in np.flatnonzero(r.keep):
            s, v = r.students[i], int(r.variants[i])
            if v < 0:
                r.skip(i, "no variant (the file has a variant column, and no course salt was given to "
                          "derive it)")
            elif per_answer:
                continue
            elif s not in first:
                first[s] = (v, int(r.rows[i]))
            elif first[s][0] != v:
                r.skip(i, f"variant {v} differs from variant {first[s][0]} of the same student at row "
                          f"{first[s][1]}")
    else:  # the salt's variant, else the handout's (0); one set from the quiz's only variant stays
        r.variants = np.where(r.variants >= 0, r.variants,
                              np.array([seeds.get(s, 0) for s in r.students], dtype=np.int64))


def _fetch_keys(r: _Rows, lab, accounting: str, jobs: int | None) -> dict:
    """The answer key of every variant in use; a variant whose key fails skips its rows."""
    from labcalc.grading.keys import answer_keys

    key_errors: dict[int, str] = {}
    usable = np.flatnonzero(r.keep)
    by_seed = answer_keys(lab, sorted({int(v) for v in r.variants[usable]}), accounting,
                          jobs=jobs, errors=key_errors)
    for i in usable:
        v = int(r.variants[i])
        if v in key_errors:
            r.skip(i, f"no answer key for variant {v} ({key_errors[v]})")
    return by_seed


def _drop_repeated_answers(r: _Rows, reread) -> None:
    """The last answer of a student to a question is graded, except that a row read
    again after a quote that is never closed (see read_answers) never replaces an
    answer read before the quote."""
    quote_row = np.zeros(len(r.rows), np.int64)
    for first_row, opened in sorted(reread):
        quote_row[(r.rows >= first_row) & (quote_row == 0)] = opened
    last: dict[tuple[str, int], int] = {}
    for i in np.flatnonzero(r.keep):
        k = (r.students[i], int(r.answer_index[i]))
        if k in last:
            j = last[k]
            if quote_row[i] and not quote_row[j]:
                r.skip(i, f"read again after the quote opened at row {int(quote_row[i])} that is never "
                          f"closed: it would replace the answer at row {int(r.rows[j])} (same student "
                          f"and question), so it is skipped")
                continue
            r.skip(j, f"replaced by the answer at row {int(r.rows[i])} (same student and question)")
        last[k] = i
    r.problems.sort(key=lambda p: p.row)


def _expected(r: _Rows, base_key, by_seed: dict, accounting: str):
    """Expected values and the values of every slip, per kept row (one key per variant)."""
    n = len(r.rows)
    seeds, seed_index = np.unique(r.variants, return_inverse=True) if n else (np.array([0]), np.zeros(0, int))
    keys = [by_seed[int(s)] if int(s) in by_seed else base_key for s in seeds]
    expected = np.vstack([k.values for k in keys])[seed_index, r.answer_index] if n else np.zeros(0)
    alternatives = {}
    for code in CONTEXT_SLIPS:
        if code == "wire_vs_shaper":  # one value per other accounting, in order
            tables = [np.vstack([k.other_values.get(acc, np.full(len(r.ids), np.nan)) for k in keys])
                      for acc in other_accountings(accounting)]
        else:
            tables = [np.vstack([k.alternatives[code] for k in keys])]
        alternatives[code] = [t[seed_index, r.answer_index] if n else np.zeros(0) for t in tables]
    return expected, alternatives


def _parse_all(texts, display_units, failed: dict) -> list:
    """Every answer parsed, cached per distinct (text, unit); a failure is recorded in
    ``failed`` and that answer read as empty (it must cost that answer only)."""
    cache: dict[tuple[str, str], object] = {}
    parsed = []
    for i, (text, unit) in enumerate(zip(texts, display_units)):
        k = (text, unit)
        p = cache.get(k)
        if p is None:
            try:
                p = cache[k] = parse_answer(text, unit)
            except Exception as exc:  # noqa: BLE001 - contained to this answer, reported
                failed[i] = f"{type(exc).__name__}: {exc}"
                p = cache[k] = parse_answer("", unit)
        parsed.append(p)
    return parsed


def _evaluate(r: _Rows, base_key, by_seed: dict, accounting: str, sigfigs, credits, point_values,
              rtol_all, atol_all):
    """Grade every kept row in one vectorised pass (the rules of check()); the detail table."""
    import pandas as pd

    expected, alternatives = _expected(r, base_key, by_seed, accounting)
    ai = r.answer_index
    bases = np.asarray(base_key.units, object)[ai]
    display_units = np.asarray(base_key.display_units, object)[ai]
    display_factors, rtol, atol = base_key.display_factors[ai], rtol_all[ai], atol_all[ai]
    failed: dict[int, str] = {}
    parsed = _parse_all(r.parse_texts, display_units, failed)
    given = np.array([p.value for p in parsed], float)
    status = np.array([p.status for p in parsed], object)

    # one path with check(): the same answer to the same question gets the same verdict
    def run(sel):
        return grade_parsed([parsed[i] for i in sel], r.texts[sel], expected[sel], bases[sel],
                            display_units[sel], display_factors[sel], rtol[sel], atol[sel],
                            np.full(len(sel), sigfigs or 0.0), {c: [t[sel] for t in v] for c, v in
                                                                 alternatives.items()},
                            credit=credits, accounting=accounting,
                            alternative_accountings=other_accountings(accounting))

    try:
        out, messages = run(np.arange(len(r.rows)))
    except Exception:  # noqa: BLE001 - find the answers that fail, grade the others
        out, messages = _grade_one_by_one(run, len(r.rows), failed)
    for i, why in sorted(failed.items()):
        out["correct"][i], out["score"][i], out["diagnosis"][i] = False, 0.0, None
        messages[i] = "Not graded: this answer could not be read (reported to the grader); 0 points."
        r.problems.append(Problem(int(r.rows[i]), f"answer {quote(r.texts[i])} of student "
                                  f"{quote(r.students[i])} to {r.ids[ai[i]]} could not be graded "
                                  f"({quote(why, 80)}); graded 0"))
    max_points = point_values[ai]
    detail = pd.DataFrame({
        "row": r.rows.astype(np.int64), "student": r.students, "variant": r.variants.astype(np.int64),
        "question": np.asarray(r.ids, object)[ai], "answer": r.texts, "correct": out["correct"],
        "score": out["score"], "points": out["score"] * max_points, "max_points": max_points,
        "diagnosis": pd.Series(out["diagnosis"], dtype=object), "message": messages,
        "expected": expected, "given": np.where(status == "ok", given, np.nan), "unit": display_units,
        "tolerance": tolerance_band(expected, rtol, atol, np.full(len(expected), sigfigs or 0.0),
                                    display_factors),
    })
    order = np.lexsort((ai, r.students.astype(str))) if len(r.rows) else np.zeros(0, int)
    return detail.iloc[order].reset_index(drop=True)


def _grade_one_by_one(run, n, failed):
    """Grade answers singly after the vectorised pass failed; record those that fail."""
    outs, messages = [], []
    for i in range(n):
        try:
            o, m = run(np.array([i]))
        except Exception as exc:  # noqa: BLE001 - contained to this answer, reported
            failed[i] = f"{type(exc).__name__}: {exc}"
            o, m = None, [""]
        outs.append(o)
        messages.extend(m)
    template = next((o for o in outs if o is not None), None)
    keys = list(template) if template is not None else ["correct", "score", "diagnosis"]
    out = {}
    for key in keys:
        column = []
        for o in outs:
            column.append(o[key][0] if o is not None else
                          {"correct": False, "score": 0.0, "diagnosis": None}.get(key, np.nan))
        out[key] = np.array(column, dtype=object if key == "diagnosis" else None)
    return out, messages



def grade_file(path, lab=None, *, max_bytes: int = DEFAULT_MAX_BYTES, columns=None, **options) -> GradeResult:
    """:func:`read_answers` then :func:`grade` (options as in :func:`grade`).

    Parameters
    ----------
    path : str, Path, bytes or file object
        The answers file (as for :func:`read_answers`).
    lab : Lab or str, optional
        The lab whose answer keys grade the file (or the assignment's).
    max_bytes : int
        Files larger than this [byte] are refused without being read.
    columns : mapping, optional
        The file's column names (see :func:`read_answers`); by default the
        assignment's ``[columns]``.
    **options
        Passed to :func:`grade`: ``assignment``, ``salt``, ``accounting``, ``credit``,
        ``sigfigs``, ``points``, ``jobs``.

    Returns
    -------
    GradeResult
        Grades, per-answer feedback and statistics.

    Examples
    --------
    >>> grade_file(b"student,question,answer\\nada,Q3,1066 bytes\\n", "lab5").grades["total"].tolist()
    [1.0]
    """
    task = _assignment(options.pop("assignment", None))
    if columns is None and task is not None:
        columns = task.columns
    return grade(read_answers(path, max_bytes=max_bytes, columns=columns), lab, assignment=task, **options)
