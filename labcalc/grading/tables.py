"""Tabulating a graded class: :class:`GradeResult` (feedback, grades, statistics) and safe CSV.

Text written back to CSV is neutralised against formula injection (:func:`csv_safe`),
and to HTML escaped (:mod:`labcalc.grading.report`).

Examples
--------
>>> csv_safe("=1+1"), csv_safe("ada")
("'=1+1", 'ada')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from labcalc.grading.answerfile import Problem
from labcalc.units import normalize_text

__all__ = ["GradeResult", "csv_safe", "grades_table", "stats_table", "variant_text"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_safe(value):
    """Neutralise a cell against formula injection when a spreadsheet opens the CSV.

    Text starting with ``=``, ``+``, ``-``, ``@``, a tab or a line break (after any
    spaces) gets a leading apostrophe, so spreadsheets show it as text instead of
    running it. Other values are returned unchanged.

    Parameters
    ----------
    value : object
        A cell of a table about to be written as CSV.

    Returns
    -------
    object
        ``value``, with ``"'"`` prepended when it is a text a spreadsheet would run.

    Examples
    --------
    >>> csv_safe('=HYPERLINK("http://x")'), csv_safe("-5 Mbit/s"), csv_safe("ada"), csv_safe(1.5)
    ('\\'=HYPERLINK("http://x")', "'-5 Mbit/s", 'ada', 1.5)
    >>> csv_safe("\uff1dSUM(A1)")  # a full-width equals sign
    "'＝SUM(A1)"
    """
    # Spreadsheets fold full-width signs ("＝", "＋", "－", "＠") and skip invisible
    # characters, so the test runs on the text as normalize_text sees it (NFKC).
    if isinstance(value, str) and normalize_text(value).lstrip(" ").startswith(_FORMULA_START):
        return "'" + value
    return value



@dataclass(frozen=True)
class GradeResult:
    """Grades, per-answer feedback and statistics of a class (see :func:`grade`).

    Attributes
    ----------
    detail : pandas.DataFrame
        One row per graded answer: ``row``, ``student``, ``variant``, ``question``,
        ``answer`` (as typed), ``correct``, ``score`` (0..1), ``points`` (earned),
        ``max_points``, ``diagnosis`` (None or a code), ``message``, ``expected`` and
        ``given`` (base units), ``unit`` (display unit).
    grades : pandas.DataFrame
        One row per student: ``student``, ``variant``, the points earned per answer id
        (0 when unanswered), ``total``, ``max_total`` and ``percent``.
    stats : pandas.DataFrame
        One row per answer id asked: ``item``, ``points``, ``answered``, ``blank`` (not
        answered), ``correct`` (share of the answers given), ``mean_score``,
        ``top_diagnosis`` (most frequent slip among the wrong answers; a blank is never
        one), ``top_share`` (its share of the wrong answers) and ``discrimination``
        (see :func:`labcalc.grading.analysis.discrimination`).
    problems : tuple of Problem
        Rows skipped while reading or grading.
    lab, accounting, source : str
        The lab, the accounting of its answer key, and the name of the answers file.
    notes : tuple of str
        What was assumed about the file as a whole (encoding, delimiter) and how the
        variants were found.
    assignment : Assignment or None
        What the class was asked (:mod:`labcalc.grading.assignment`), when given.
    id_column : str
        The answers file's column of student ids (``"Email address"`` in a Moodle
        report): the LMS's grade file names its identifier after it.

    Examples
    --------
    >>> from labcalc.grading import grade, read_answers
    >>> res = grade(read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n"), "lab5")
    >>> res.lab, res.grades["student"].tolist(), res.grades["total"].tolist()
    ('lab5', ['ada'], [1.0])
    """

    detail: object
    grades: object
    stats: object
    problems: tuple[Problem, ...]
    lab: str
    accounting: str = "wire"
    source: str = "answers"
    notes: tuple[str, ...] = ()
    assignment: object = None
    id_column: str = "student"

    def summary(self) -> str:
        """One line: students, answers, mean grade, skipped rows.

        Examples
        --------
        >>> from labcalc.grading import grade, read_answers
        >>> grade(read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n"), "lab5").summary()
        'lab5: 1 student, 1 answer graded, mean 1.8 % of the points; no row skipped'
        """
        n_students = len(self.grades)
        n_answers = len(self.detail)
        mean = float(self.grades["percent"].mean()) if n_students else 0.0
        skipped = len(self.problems)
        return (f"{self.lab}: {n_students} student{'s' if n_students != 1 else ''}, "
                f"{n_answers} answer{'s' if n_answers != 1 else ''} graded, mean {mean:.1f} % "
                f"of the points; " + (f"{skipped} row{'s' if skipped != 1 else ''} skipped"
                                     if skipped else "no row skipped"))

    def write_grades(self, path) -> None:
        """Write ``grades`` as CSV, text cells neutralised against formula injection.

        The variant is written as text (``v1526825638187099109``; ``several`` when an
        LMS drew one per question): a spreadsheet keeps at most 15 significant digits
        of a number, so a 19-digit seed written as a number would not survive being
        opened and saved again. labcalc reads the ``v`` form back wherever it reads a
        variant.
        """
        out = self.grades.copy()
        out["variant"] = [variant_text(v) for v in out["variant"]]
        _safe_frame(out).to_csv(path, index=False, float_format="%.6g")

    def write_feedback(self, path, *, expected_after=None, now=None) -> None:
        """Write one row per answer (student, variant, question, answer, expected, points,
        diagnosis, message).

        ``expected`` is the student's right value in the question's unit, at the
        precision its tolerance needs; with ``expected_after`` (a deadline, see
        :func:`labcalc.grading.report.expected_shown`) it reads "held back" until then.
        """
        from labcalc.grading.analysis import expected_text
        from labcalc.grading.check import display_scale
        from labcalc.grading.report import expected_shown

        d = self.detail
        show = expected_shown(expected_after, now)
        factors = {u: display_scale(u)[0] for u in set(d["unit"])}
        out = d[["student", "variant", "question", "answer"]].copy()
        out["variant"] = [variant_text(v) for v in out["variant"]]
        out["expected"] = ([expected_text(e, u, factors[u], t) for e, u, t in
                            zip(d["expected"], d["unit"], d["tolerance"])] if show else "held back")
        for col in ("points", "max_points", "diagnosis", "message"):
            out[col] = d[col]
        _safe_frame(out).to_csv(path, index=False, float_format="%.6g")

    def write_problems(self, path) -> None:
        """Write every skipped row (``row``, ``reason``) as CSV, cells neutralised."""
        import pandas as pd

        df = pd.DataFrame({"row": [p.row for p in self.problems],
                           "reason": [p.reason for p in self.problems]})
        _safe_frame(df).to_csv(path, index=False)

    def report_html(self, title: str | None = None, *, expected_after=None, now=None) -> str:
        """The HTML report (see :func:`labcalc.grading.report.report_html`)."""
        from labcalc.grading.report import report_html

        return report_html(self, title=title, expected_after=expected_after, now=now)

    def write_report(self, path, title: str | None = None, *, expected_after=None, now=None) -> None:
        """Write :meth:`report_html` to ``path`` (UTF-8)."""
        Path(path).write_text(self.report_html(title, expected_after=expected_after, now=now), encoding="utf-8")


def variant_text(variant) -> str:
    """A variant as text a spreadsheet keeps: ``"v"`` and its digits (``"several"`` for -1).

    Parameters
    ----------
    variant : int
        A seed, or -1 for a student whose questions each had their own variant.

    Returns
    -------
    str

    Examples
    --------
    >>> variant_text(1526825638187099109), variant_text(-1)
    ('v1526825638187099109', 'several')
    """
    return "several" if int(variant) < 0 else f"v{int(variant)}"


def _safe_frame(df):
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype).startswith(("str", "string")):
            out[col] = [csv_safe(v) for v in out[col]]
    return out



def stats_table(detail, answers, ids, point_values, grades=None, students_asked: int | None = None):
    """Statistics per answer id of a graded class (the ``stats`` of :class:`GradeResult`).

    Parameters
    ----------
    detail : pandas.DataFrame
        One row per graded answer (``question``, ``correct``, ``score``, ``diagnosis``).
    answers : sequence of Answer
        The lab's answers (for their items).
    ids : sequence of str
        Answer ids, in order (those asked).
    point_values : numpy.ndarray
        Points of each answer id.
    grades : pandas.DataFrame, optional
        The grades table, for the discrimination index (:func:`labcalc.grading.analysis.discrimination`).
    students_asked : int, optional
        How many students were asked every question (with an assignment): a student
        without a row for a question did not answer it.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``id``: ``item``, ``points``, ``answered`` (answers given),
        ``blank`` (not answered: an empty answer, or no row when every student was
        asked), ``correct`` (share of the answers given that are right),
        ``mean_score`` (over the students asked, a blank scoring 0), ``top_diagnosis``
        and ``top_share`` (most frequent slip among the wrong answers given, and its
        share of them; a blank is never a slip), ``discrimination``.

    Examples
    --------
    >>> import pandas as pd
    >>> detail = pd.DataFrame({"question": ["Q1", "Q1", "Q1"], "correct": [True, False, False],
    ...                        "score": [1.0, 0.5, 0.0], "diagnosis": [None, "rounding", "empty"]})
    >>> row = stats_table(detail, [], ["Q1"], np.array([1.0])).loc["Q1"]
    >>> int(row.answered), int(row.blank), float(row.correct), row.top_diagnosis
    (2, 1, 0.5, 'rounding')
    """
    import pandas as pd

    from labcalc.grading.analysis import answered_mask, discrimination

    items = {a.id: a.item for a in answers}
    index = discrimination(grades, ids) if grades is not None else {}
    rows = []
    groups = dict(tuple(detail.groupby("question", sort=False))) if len(detail) else {}
    for j, answer_id in enumerate(ids):
        g = groups.get(answer_id)
        n_rows = 0 if g is None else len(g)
        missing = max(students_asked - n_rows, 0) if students_asked is not None else 0
        disc = index.get(answer_id, np.nan)
        if g is None or not len(g):
            rows.append((answer_id, items.get(answer_id, ""), point_values[j], 0, missing, np.nan,
                         0.0 if missing else np.nan, None, np.nan, disc))
            continue
        given = answered_mask(g)
        answered = g[given]
        wrong = answered.loc[~answered["correct"].to_numpy(bool), "diagnosis"]
        counts = wrong.dropna().value_counts()
        top = counts.index[0] if len(counts) else None
        top_share = float(counts.iloc[0] / len(wrong)) if len(counts) else np.nan
        correct = float(answered["correct"].mean()) if len(answered) else np.nan
        mean = float(g["score"].sum() / (n_rows + missing))
        rows.append((answer_id, items.get(answer_id, ""), point_values[j], int(given.sum()),
                     int((~given).sum()) + missing, correct, mean, top, top_share, disc))
    cols = ["id", "item", "points", "answered", "blank", "correct", "mean_score", "top_diagnosis", "top_share",
            "discrimination"]
    return pd.DataFrame(rows, columns=cols).set_index("id")



def grades_table(detail, ids, point_values):
    """One row per student: points per answer id (0 when unanswered), total and percent.

    Parameters
    ----------
    detail : pandas.DataFrame
        One row per graded answer (``student``, ``variant``, ``question``, ``points``).
    ids : sequence of str
        Answer ids, in the lab's order (the columns).
    point_values : numpy.ndarray
        Points of each answer id.

    Returns
    -------
    pandas.DataFrame
        ``student``, ``variant``, one column per id, ``total``, ``max_total``, ``percent``.

    Examples
    --------
    >>> import pandas as pd
    >>> detail = pd.DataFrame({"student": ["ada"], "variant": [0], "question": ["Q1"], "points": [1.0]})
    >>> grades_table(detail, ["Q1", "Q2"], np.array([1.0, 1.0]))[["Q1", "Q2", "percent"]].values.tolist()
    [[1.0, 0.0, 50.0]]
    """
    import pandas as pd

    if len(detail):
        wide = detail.pivot(index="student", columns="question", values="points")
    else:
        wide = pd.DataFrame(index=pd.Index([], name="student"))
    wide = wide.reindex(columns=list(ids)).fillna(0.0)
    # a student's variant; -1 when an LMS drew one per question (several per student)
    by_student = detail.groupby("student", sort=True)["variant"]
    student_variant = by_student.first().where(by_student.nunique() <= 1, -1)
    grades = wide.reset_index()
    grades.insert(1, "variant", student_variant.reindex(wide.index).to_numpy(dtype=np.int64))
    grades["total"] = wide.sum(axis=1).to_numpy()
    grades["max_total"] = float(point_values.sum())
    grades["percent"] = 100.0 * grades["total"] / grades["max_total"] if point_values.sum() else 0.0
    grades.columns.name = None
    return grades
