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

__all__ = ["GradeResult", "csv_safe", "grades_table", "stats_table"]

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
        One row per answer id: ``item``, ``points``, ``answered``, ``correct`` (share
        of the answers), ``mean_score``, ``top_diagnosis`` (most frequent slip among
        the wrong answers) and ``top_share`` (its share of the wrong answers).
    problems : tuple of Problem
        Rows skipped while reading or grading.
    lab, accounting, source : str
        The lab, the accounting of its answer key, and the name of the answers file.
    notes : tuple of str
        What was assumed about the file as a whole (encoding, delimiter) and how the
        variants were found.

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
        """Write ``grades`` as CSV, text cells neutralised against formula injection."""
        _safe_frame(self.grades).to_csv(path, index=False, float_format="%.6g")

    def write_feedback(self, path) -> None:
        """Write one row per answer (student, question, answer, points, diagnosis, message)."""
        cols = ["student", "variant", "question", "answer", "points", "max_points", "diagnosis", "message"]
        _safe_frame(self.detail[cols]).to_csv(path, index=False, float_format="%.6g")

    def write_problems(self, path) -> None:
        """Write every skipped row (``row``, ``reason``) as CSV, cells neutralised."""
        import pandas as pd

        df = pd.DataFrame({"row": [p.row for p in self.problems],
                           "reason": [p.reason for p in self.problems]})
        _safe_frame(df).to_csv(path, index=False)

    def report_html(self, title: str | None = None) -> str:
        """The HTML report (see :func:`labcalc.grading.report.report_html`)."""
        from labcalc.grading.report import report_html

        return report_html(self, title=title)

    def write_report(self, path, title: str | None = None) -> None:
        """Write :meth:`report_html` to ``path`` (UTF-8)."""
        Path(path).write_text(self.report_html(title), encoding="utf-8")


def _safe_frame(df):
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype).startswith(("str", "string")):
            out[col] = [csv_safe(v) for v in out[col]]
    return out



def stats_table(detail, answers, ids, point_values):
    """Statistics per answer id of a graded class (the ``stats`` of :class:`GradeResult`).

    Parameters
    ----------
    detail : pandas.DataFrame
        One row per graded answer (``question``, ``correct``, ``score``, ``diagnosis``).
    answers : sequence of Answer
        The lab's answers (for their items).
    ids : sequence of str
        Answer ids, in the lab's order.
    point_values : numpy.ndarray
        Points of each answer id.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``id``: ``item``, ``points``, ``answered``, ``correct``,
        ``mean_score``, ``top_diagnosis``, ``top_share``.

    Examples
    --------
    >>> import pandas as pd
    >>> detail = pd.DataFrame({"question": ["Q1", "Q1"], "correct": [True, False],
    ...                        "score": [1.0, 0.5], "diagnosis": [None, "rounding"]})
    >>> row = stats_table(detail, [], ["Q1"], np.array([1.0])).loc["Q1"]
    >>> int(row.answered), float(row.correct), row.top_diagnosis
    (2, 0.5, 'rounding')
    """
    import pandas as pd

    items = {a.id: a.item for a in answers}
    rows = []
    groups = dict(tuple(detail.groupby("question", sort=False))) if len(detail) else {}
    for j, answer_id in enumerate(ids):
        g = groups.get(answer_id)
        if g is None or not len(g):
            rows.append((answer_id, items.get(answer_id, ""), point_values[j], 0, np.nan, np.nan, None, np.nan))
            continue
        wrong = g.loc[~g["correct"].to_numpy(bool), "diagnosis"]
        counts = wrong.dropna().value_counts()
        top = counts.index[0] if len(counts) else None
        top_share = float(counts.iloc[0] / len(wrong)) if len(counts) else np.nan
        rows.append((answer_id, items.get(answer_id, ""), point_values[j], len(g),
                     float(g["correct"].mean()), float(g["score"].mean()), top, top_share))
    cols = ["id", "item", "points", "answered", "correct", "mean_score", "top_diagnosis", "top_share"]
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
    student_variant = detail.groupby("student", sort=True)["variant"].first()
    grades = wide.reset_index()
    grades.insert(1, "variant", student_variant.reindex(wide.index).to_numpy(dtype=np.int64))
    grades["total"] = wide.sum(axis=1).to_numpy()
    grades["max_total"] = float(point_values.sum())
    grades["percent"] = 100.0 * grades["total"] / grades["max_total"] if point_values.sum() else 0.0
    grades.columns.name = None
    return grades
