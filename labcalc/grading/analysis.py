"""Item analysis of a graded class, and hints worth a look (not verdicts).

- :func:`discrimination` -- per question, how well it separates the stronger students
  from the weaker (Moodle's discrimination index: the correlation between the
  question's score and the score on the rest of the assignment);
- :func:`common_wrong_answers` -- per question, the most common wrong answers, grouped by
  their ratio to each student's own right value (students with different variants make
  the same slip with different numbers), with the slip they correspond to;
- :func:`worth_a_look` -- identical wrong answers given by several students, and wrong
  answers that are the right value of another student's variant;
- :func:`expected_text` -- a student's expected value as the report shows it.

Examples
--------
>>> from labcalc.grading import grade, read_answers
>>> res = grade(read_answers(b"student,question,answer\\nada,Q4,5 Mbit/s\\nbob,Q4,5 Mbit/s\\n"), "lab5")
>>> common_wrong_answers(res.detail, "Q4")[0]["students"], common_wrong_answers(res.detail, "Q4")[0]["slip"]
(2, 'header_overhead')
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = ["discrimination", "common_wrong_answers", "worth_a_look", "expected_text", "answered_mask"]

#: Diagnoses that mean "no answer was given": counted as not answered, never as a slip.
NOT_ANSWERED = ("empty",)


def answered_mask(detail) -> np.ndarray:
    """Which rows of ``detail`` hold an answer (a blank is "not answered").

    Parameters
    ----------
    detail : pandas.DataFrame
        The ``detail`` of a :class:`labcalc.grading.GradeResult`.

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> import pandas as pd
    >>> answered_mask(pd.DataFrame({"diagnosis": [None, "empty", "rounding"]})).tolist()
    [True, False, True]
    """
    return ~detail["diagnosis"].isin(NOT_ANSWERED).to_numpy(bool)


def discrimination(grades, ids) -> dict:
    """Discrimination index of each question: correlation of its points with the rest.

    Parameters
    ----------
    grades : pandas.DataFrame
        The ``grades`` of a :class:`labcalc.grading.GradeResult` (points per answer id,
        0 when not answered, and ``total``).
    ids : sequence of str
        The answer ids.

    Returns
    -------
    dict
        Answer id -> index in [-1, 1]; NaN when it cannot be computed (fewer than three
        students, or everyone got the same points on the question or on the rest).

    Notes
    -----
    :math:`D_j = r(x_j, X - x_j)`, Pearson's correlation over the students between the
    points :math:`x_j` on question j (an unanswered question scores 0) and the points on
    the rest of the assignment :math:`X - x_j`: the question's own points are left out
    of the total, so that it is not correlated with itself. Around 0.3 or more, the
    question tells stronger students from weaker ones; near 0 or negative, it does not
    (a question everyone gets right, or one whose key may be wrong).

    References
    ----------
    Moodle developer documentation, "Quiz statistics calculations" (discrimination
    index); T. L. Kelley, "The selection of upper and lower groups for the validation of
    test items", J. Educ. Psychol. 30 (1939).

    Examples
    --------
    >>> import pandas as pd
    >>> g = pd.DataFrame({"Q1": [1, 1, 0, 0], "Q2": [1, 1, 0, 1], "Q3": [1, 0, 0, 0]})
    >>> g["total"] = g.sum(axis=1)
    >>> round(discrimination(g, ["Q1", "Q2", "Q3"])["Q1"], 3)
    0.707
    """
    out = {}
    total = grades["total"].to_numpy(float) if len(grades) else np.zeros(0)
    for answer_id in ids:
        if answer_id not in grades or len(grades) < 3:
            out[answer_id] = math.nan
            continue
        x = grades[answer_id].to_numpy(float)
        rest = total - x
        if np.std(x) == 0 or np.std(rest) == 0:
            out[answer_id] = math.nan
            continue
        out[answer_id] = float(np.corrcoef(x, rest)[0, 1])
    return out


def _ratio_key(given: float, expected: float) -> tuple:
    if expected != 0 and math.isfinite(given) and math.isfinite(expected):
        return ("ratio", float(f"{given / expected:.3g}"))
    return ("value", float(f"{given:.4g}") if math.isfinite(given) else given)


def common_wrong_answers(detail, question: str, top: int = 3) -> list[dict]:
    """The most common wrong answers to one question, grouped across variants.

    Parameters
    ----------
    detail : pandas.DataFrame
        The ``detail`` of a :class:`labcalc.grading.GradeResult`.
    question : str
        An answer id.
    top : int, default 3
        How many groups to return.

    Returns
    -------
    list of dict
        Most students first: ``students`` (how many gave such an answer), ``ratio``
        (the answer over the student's own right value, 3 significant digits; None
        for an answer that could not be read), ``slip`` (the diagnosis most of them
        got, None when no slip explains it), ``example`` (one answer as typed).

    Notes
    -----
    Students with different variants have different right values, so the same slip
    gives different numbers: answers are grouped by their ratio to each student's own
    right value (``x 0.938``, headers forgotten), which is the same for everyone who
    made it. Answers that could not be read are grouped by their diagnosis (a missing
    unit, an unreadable text). Blanks are not wrong answers: they are counted as not
    answered.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"student": ["a", "b", "c"], "question": ["Q4"] * 3, "correct": [False] * 3,
    ...                   "answer": ["5 Mbit/s", "5.33 Mbit/s", "?"], "expected": [4.69e6, 5e6, 4.69e6],
    ...                   "given": [5e6, 5.33e6, float("nan")],
    ...                   "diagnosis": ["header_overhead", "header_overhead", "unreadable"]})
    >>> [(g["students"], g["ratio"], g["slip"]) for g in common_wrong_answers(d, "Q4")]
    [(2, 1.07, 'header_overhead'), (1, None, 'unreadable')]
    """
    d = detail[(detail["question"] == question) & ~detail["correct"].to_numpy(bool)]
    d = d[answered_mask(d)]
    groups: dict[tuple, list] = {}
    for given, expected, diagnosis, answer, student in zip(
            d["given"].to_numpy(float), d["expected"].to_numpy(float), d["diagnosis"], d["answer"],
            d["student"]):
        key = _ratio_key(given, expected) if math.isfinite(given) else ("unread", diagnosis)
        groups.setdefault(key, []).append((diagnosis, answer, student))
    out = []
    for key, members in groups.items():
        codes = [c for c, _, _ in members if c is not None]
        slip = max(set(codes), key=codes.count) if codes else None
        out.append({"students": len({s for _, _, s in members}), "ratio": key[1] if key[0] == "ratio" else None,
                    "value": key[1] if key[0] == "value" else None, "slip": slip, "example": members[0][1]})
    out.sort(key=lambda g: (-g["students"], str(g["example"])))
    return out[:top]


def worth_a_look(detail, *, lab=None, limit: int = 50) -> list[dict]:
    """Hints for a grader to look at (not verdicts): answers shared in an unlikely way.

    Parameters
    ----------
    detail : pandas.DataFrame
        The ``detail`` of a :class:`labcalc.grading.GradeResult`.
    lab : Lab or str, optional
        The lab: with it, every student's variant is looked at, also for the questions
        they did not answer (their answer keys, cached); without it, only the rows of
        ``detail``.
    limit : int, default 50
        At most this many hints (the strongest first).

    Returns
    -------
    list of dict
        ``kind`` (``"same wrong answer"`` or ``"another student's value"``),
        ``question``, ``students`` (the students concerned), ``answer`` and ``why``
        (one sentence).

    Notes
    -----
    **Same wrong answer**: the same wrong number (spaces and letter case aside) given to
    the same question by several students, when no slip explains it (students who make
    the same slip on the same numbers write the same value) or when their right values
    differ (then no one slip gives all of them that number). **Another student's value**:
    a wrong answer that is, to a tenth of its tolerance, the right value of the same
    question in another student's variant. Only answers with at least three significant
    digits count (``4 Mbit/s`` is a guess many make). Both can happen honestly (a shared
    rounding, students who worked together as allowed, two variants that share a
    number); they are listed so that a grader can look.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"student": ["a", "b", "c"], "variant": [1, 2, 3], "question": ["Q4"] * 3,
    ...                   "answer": ["3.14 Mbit/s", "3.14 Mbit/s", "4 Mbit/s"], "correct": [False, False, True],
    ...                   "diagnosis": [None, None, None], "given": [3.14e6, 3.14e6, 4e6],
    ...                   "expected": [2e6, 5e6, 4e6], "tolerance": [2e4, 5e4, 4e4]})
    >>> [(h["kind"], h["students"]) for h in worth_a_look(d)]
    [('same wrong answer', ['a', 'b'])]
    """
    hints = []
    wrong = detail[~detail["correct"].to_numpy(bool)]
    wrong = wrong[answered_mask(wrong)]
    # identical wrong answers that are numbers (grouped with a dict: one pass over plain lists)
    groups: dict[tuple, list] = {}
    read = np.isfinite(wrong["given"].to_numpy(float))
    for question, answer, student, expected, diagnosis in zip(
            wrong["question"][read].tolist(), wrong["answer"][read].tolist(), wrong["student"][read].tolist(),
            wrong["expected"][read].tolist(), wrong["diagnosis"][read].tolist()):
        key = (question, "".join(str(answer).split()).lower())
        groups.setdefault(key, []).append((student, float(f"{expected:.9g}"), diagnosis, answer))
    for (question, _), members in groups.items():
        students = sorted({m[0] for m in members})
        if len(students) < 2 or _digits(members[0][3]) < MIN_DIGITS:
            continue  # a round number ("4 Mbit/s") is a common guess, not a sign
        values = {m[1] for m in members}  # the students' own right values
        unexplained = all(m[2] is None for m in members)
        if not unexplained and len(values) < 2:
            continue  # the same slip on the same numbers gives the same answer
        why = ("no slip explains it" if unexplained else
               f"their right values differ ({len(values)} of them), so no one slip gives this number to all")
        hints.append({"kind": "same wrong answer", "question": question, "students": students,
                      "answer": str(members[0][3]), "why": why, "weight": len(students) + len(values)})
    # another student's right value
    students_of = detail.groupby("variant")["student"].agg(lambda s: sorted(set(s))).to_dict()
    for question, g in detail.groupby("question", sort=False):
        keys = _keys_of_class(g, detail, lab, question)
        if len(keys) < 2:
            continue
        order = np.argsort(keys["expected"].to_numpy(float))
        values = keys["expected"].to_numpy(float)[order]
        tols = keys["tolerance"].to_numpy(float)[order]
        owners = keys["variant"].to_numpy()[order]
        reach = float(np.nanmax(tols)) if tols.size else 0.0
        w = g[~g["correct"].to_numpy(bool) & np.isfinite(g["given"].to_numpy(float))]
        for given, variant, student, answer in zip(w["given"].to_numpy(float), w["variant"], w["student"],
                                                   w["answer"]):
            if _digits(answer) < MIN_DIGITS:
                continue
            lo, hi = np.searchsorted(values, [given - reach, given + reach])
            for k in range(lo, hi):
                # to a tenth of the tolerance: a value copied, not one near it by chance
                if owners[k] != variant and abs(given - values[k]) <= SHARP * tols[k]:
                    others = [s for s in students_of.get(owners[k], []) if s != student]
                    hints.append({"kind": "another student's value", "question": question,
                                  "students": [student] + others[:3], "answer": str(answer),
                                  "why": f"is, to a tenth of the tolerance, the right value of variant "
                                         f"{owners[k]} (of {', '.join(others[:3])}"
                                         f"{' ...' if len(others) > 3 else ''}), not of the student's own",
                                  "weight": 2})
                    break
    hints.sort(key=lambda h: (-h["weight"], h["question"], h["students"]))
    for h in hints:
        del h["weight"]
    return hints[:limit]


#: Significant digits an answer must carry to be a hint (round numbers are common guesses).
MIN_DIGITS = 3
#: Share of the tolerance within which an answer counts as another student's value.
SHARP = 0.1
_LEADING_NUMBER = re.compile(r"[0-9][0-9.,\s]*")


def _digits(answer) -> int:
    """Significant digits of the number an answer starts with (``"4 Mbit/s"``: 1, ``"0.0619"``: 3)."""
    m = _LEADING_NUMBER.search(str(answer))
    digits = re.sub(r"[^0-9]", "", m.group()) if m else ""
    return len(digits.strip("0"))


def _keys_of_class(g, detail, lab, question: str):
    """(variant, expected, tolerance) of ``question`` for every variant of the class: from
    the rows that answer it, and, with the lab, from the answer keys of the others."""
    import pandas as pd

    keys = g.drop_duplicates("variant")[["variant", "expected", "tolerance"]]
    if lab is None:
        return keys
    from labcalc.grading.keys import answer_key

    missing = sorted(set(detail["variant"].tolist()) - set(keys["variant"].tolist()) - {-1})
    extra = []
    for v in missing:
        key = answer_key(lab, int(v))
        i = key.index(question)
        value = float(key.values[i])
        extra.append((v, value, float(key.atol[i] + key.rtol[i] * abs(value))))
    if not extra:
        return keys
    return pd.concat([keys, pd.DataFrame(extra, columns=["variant", "expected", "tolerance"])], ignore_index=True)


def expected_text(expected: float, unit: str, factor: float, tolerance: float) -> str:
    """A student's expected value as the report shows it: in the question's unit, at
    the precision its tolerance needs (as the quiz writes it).

    Parameters
    ----------
    expected : float
        The expected value [base units].
    unit : str
        The display unit (``"Mbit/s"``, ``"%"``, ``""``...).
    factor : float
        Size of the display unit [base units] (0.01 for ``%``).
    tolerance : float
        Half-width of the band [base units].

    Returns
    -------
    str

    Examples
    --------
    >>> expected_text(4690431.5, "Mbit/s", 1e6, 46904.3), expected_text(0.0619, "%", 0.01, 0.0016)
    ('4.6904 Mbit/s', '6.19 %')
    """
    from labcalc.grading.quiztext import value_text

    if not (math.isfinite(expected) and factor > 0):
        return ""
    text = value_text(expected / factor, tolerance / factor)
    return f"{text} {unit}".strip()
