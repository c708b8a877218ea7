"""labcalc's Moodle mode: a verdict that grades as the course's Moodle will, and says why.

For a course whose quiz is labcalc's export (:func:`labcalc.grading.moodle_xml`) graded
in Moodle, the same answer must not get one grade in a notebook or from ``labcalc grade``
and another in Moodle without a word. In Moodle mode (``lms="moodle-en"``, ``-fr``,
``-de``: a Moodle site in that language) every verdict is compared with the grade the
exported question gets from the model of Moodle's engine
(:class:`labcalc.grading.moodle.MoodleQuestion`). Where they agree, the verdict is
labcalc's own. Where they differ, the score is Moodle's (what the student will get)
and the message says what Moodle will read and what to type so that both agree:

    Right for labcalc, but Moodle (site in English) will read this as 469 Mbit/s (a site
    in English removes the thousands separator ',') and give 0 %: type 4.69 Mbit/s to get
    full marks from both. (labcalc: Correct: '4,69 Mbit/s' is within 1 % of the expected
    value.)

Two slips at once keep the product of their credits in labcalc (37.5 %); Moodle's list
of grades has no such value and the quiz holds the nearest (40 %): in Moodle mode the
score is Moodle's and the message says so.

:func:`moodle_verdict` is the one function that makes the Moodle-mode verdict; the
notebooks' checks (:func:`labcalc.grading.check_cell`, the answer widget) and
:func:`labcalc.grading.grade` call it.

Examples
--------
>>> from labcalc.grading import check_answer
>>> asked = moodle_question("lab5", "Q4")
>>> r = moodle_verdict(check_answer("Q4", "4,69 Mbit/s", lab="lab5"), "4,69 Mbit/s", asked, "moodle-en")
>>> r.score
0.0
>>> print(r.message)
Right for labcalc, but Moodle (site in English) will read this as 469 Mbit/s (a site in English removes the thousands separator ',') and give 0 %: type 4.69 Mbit/s to get full marks from both. (labcalc: Correct: '4,69 Mbit/s' is within 1 % of the expected value.)
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from labcalc.grading.check import CheckResult
from labcalc.grading.moodle import MoodleQuestion, php_stored, site_language, unit_case_folded

__all__ = ["AskedQuestion", "moodle_question", "moodle_questions", "moodle_verdict", "moodle_grade_of", "moodle_detail"]


@dataclass(frozen=True)
class AskedQuestion:
    """One exported question as Moodle holds it, with the unit it is asked in.

    Attributes
    ----------
    question : MoodleQuestion
        What a Moodle import of the exported question stores.
    unit : str
        The unit the question asks for (``""`` for a share asked as a fraction or a
        plain number); the first of the question's unit names.
    factor : float
        Size of ``unit`` in base units (1 without a unit).

    Examples
    --------
    >>> a = moodle_question("lab5", "Q3")
    >>> a.unit, a.factor, a.question.answers[0][1]
    ('bytes', 1.0, 1066.0)
    """

    question: MoodleQuestion
    unit: str
    factor: float


def moodle_grade_of(score: float) -> float:
    """labcalc's share of the points as the exported quiz holds it: the nearest grade Moodle accepts.

    Parameters
    ----------
    score : float
        A share of the points [0..1].

    Returns
    -------
    float
        The nearest of :data:`labcalc.grading.export.MOODLE_FRACTIONS`, as a share [0..1]
        (:func:`labcalc.grading.export.nearest_fraction`, which the export writes).

    Examples
    --------
    >>> moodle_grade_of(0.375), moodle_grade_of(0.75)
    (0.4, 0.75)
    """
    from labcalc.grading.export import nearest_fraction

    return nearest_fraction(float(score)) / 100.0


def _credit_key(credit: Mapping[str, float] | None):
    return tuple(sorted((str(k), float(v)) for k, v in (credit or {}).items()))


def moodle_questions(lab, wanted: Iterable[tuple[str, int]], *, accounting: str = "wire",
                     credit: Mapping[str, float] | None = None,
                     unit_penalty: float = 1.0, assignment=None,
                     lms: str = "moodle-en") -> dict[tuple[str, int], AskedQuestion]:
    """The exported questions of many (answer id, variant) pairs, as Moodle holds them.

    Parameters
    ----------
    lab : Lab or str
        The lab (see :func:`labcalc.labs.get_lab`).
    wanted : iterable of (str, int)
        ``(answer id, variant seed)`` pairs.
    accounting : str, default "wire"
        Accounting of the answer key (as in :func:`labcalc.grading.moodle_xml`).
    credit : mapping, optional
        Partial credit per slip (as in the export).
    unit_penalty : float, default 1.0
        The export's unit penalty.
    assignment : Assignment, optional
        The assignment the quiz was exported from (its points, tolerances and credits).
    lms : str, default "moodle-en"
        The LMS mode (:data:`labcalc.grading.moodle.LMS_NAMES`): a ``-mysql`` mode's quiz
        lists each unit name in one letter case (:func:`labcalc.grading.moodle.unit_case_folded`).

    Returns
    -------
    dict of (str, int) to AskedQuestion

    Notes
    -----
    The questions are what :func:`labcalc.grading.moodle_xml` writes for the same
    arguments, read back as Moodle stores them (numbers to 14 significant digits, a
    repeated unit name dropped): :func:`labcalc.grading.export.quiz_items` gives the
    answers and :data:`labcalc.grading.export.UNIT_CHOICES` the units, computed once
    per answer id for all the variants asked.

    Examples
    --------
    >>> qs = moodle_questions("lab5", [("Q4", 1), ("Q4", 2)])
    >>> sorted(qs), qs["Q4", 1].unit
    ([('Q4', 1), ('Q4', 2)], 'Mbit/s')
    """
    from labcalc.grading.export import quiz_items
    from labcalc.labs import get_lab

    lab = get_lab(lab)
    fold = unit_case_folded(lms)
    by_id: dict[str, list[int]] = {}
    for answer_id, seed in wanted:
        by_id.setdefault(answer_id, [])
        if int(seed) not in by_id[answer_id]:
            by_id[answer_id].append(int(seed))
    out: dict[tuple[str, int], AskedQuestion] = {}
    for answer_id, seeds in by_id.items():
        for item in quiz_items(lab, seeds, answer_ids=[answer_id], accounting=accounting, credit=credit,
                               assignment=assignment):
            unit = item["unit"]
            units = _stored_units(unit, fold)
            answers = tuple((php_stored(fraction) / 100, php_stored(value), php_stored(tolerance))
                            for fraction, value, tolerance, _ in item["answers"])
            question = MoodleQuestion(answers, units, 1 if units else 0, float(unit_penalty) if units else 0.0)
            out[answer_id, item["seed"]] = AskedQuestion(question, unit, float(item["factor"]))
    return out


@functools.lru_cache(maxsize=None)
def _stored_units(unit: str, fold_case: bool = False) -> Mapping[str, float]:
    """The unit names of a question asked in ``unit`` as Moodle stores them (the same for
    every question in that unit: computed once)."""
    from types import MappingProxyType

    from labcalc.grading.export import unit_choices

    units: dict[str, float] = {}
    for name, multiplier in (unit_choices(unit, fold_case) if unit else ()):
        units.setdefault(name, php_stored(multiplier))
    return MappingProxyType(units)


@functools.lru_cache(maxsize=4096)
def _cached_question(lab_name: str, answer_id: str, seed: int, accounting: str, credit: tuple,
                     unit_penalty: float, lms: str) -> AskedQuestion:
    return moodle_questions(lab_name, [(answer_id, seed)], accounting=accounting, credit=dict(credit),
                            unit_penalty=unit_penalty, lms=lms)[answer_id, seed]


def moodle_question(lab, answer_id: str, seed: int = 0, *, accounting: str = "wire",
                    credit: Mapping[str, float] | None = None, unit_penalty: float = 1.0,
                    lms: str = "moodle-en") -> AskedQuestion:
    """One exported question as Moodle holds it (cached; see :func:`moodle_questions`).

    Parameters
    ----------
    lab : Lab or str
        The lab.
    answer_id : str
        ``"Q4"``, ``"Q13.7"``...
    seed : int, default 0
        The variant.
    accounting, credit, unit_penalty, lms
        As in :func:`moodle_questions`.

    Returns
    -------
    AskedQuestion

    Examples
    --------
    >>> moodle_question("lab5", "Q13.7").unit  # a share: asked as a fraction, no unit
    ''
    """
    from labcalc.labs import LABS, get_lab

    lab_object = get_lab(lab)
    if LABS.get(lab_object.name) is not lab_object:  # a lab outside the registry: not cached
        return moodle_questions(lab_object, [(answer_id, seed)], accounting=accounting, credit=credit,
                                unit_penalty=unit_penalty, lms=lms)[answer_id, int(seed)]
    return _cached_question(lab_object.name, answer_id, int(seed), accounting, _credit_key(credit),
                            float(unit_penalty), "moodle-en-mysql" if unit_case_folded(lms) else "moodle-en")


def _typed(x: float) -> str:
    """A number as a student would type it for Moodle: a decimal point, no separators."""
    text = f"{x:.10g}"
    if "e" in text and 1e-4 <= abs(x) < 1e15:
        text = f"{x:.10f}".rstrip("0").rstrip(".")
    return text


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.4g} %"


def _number_read_by_labcalc(answer) -> float | None:
    """The number labcalc reads at the start of ``answer`` (None when it reads none)."""
    from labcalc.units import split_quantity

    try:
        return split_quantity(answer)[0]
    except ValueError:
        return None


def _by_case(units: Mapping[str, float]) -> dict[str, str]:
    """Unit names by their lower-case form, the first listed (the question's unit first) kept."""
    out: dict[str, str] = {}
    for name in units:
        out.setdefault(name.lower(), name)
    return out


def _same_unit(typed: str, listed: str) -> bool:
    """Whether labcalc reads two unit spellings as the same unit."""
    from labcalc.units import unit_scale

    try:
        return unit_scale(typed) == unit_scale(listed)
    except ValueError:
        return False


def _causes(answer: str, graded, asked: AskedQuestion, lang, labcalc_number) -> list[tuple[str, str]]:
    """Why Moodle grades ``answer`` differently: ``(kind, words)`` pairs, kind ``"number"``
    (the number is read otherwise), ``"unit"`` (the unit is not one Moodle knows),
    ``"ignored"`` (text Moodle ignores) or ``"penalty"`` (a known but wrong unit)."""
    causes = []
    reading = graded.reading
    value = reading.value
    compact = answer.strip().replace(" ", "")
    if value is not None and (labcalc_number is None or not math.isclose(value, labcalc_number,
                                                                         rel_tol=1e-12)):
        if "." in compact or compact.count(",") > 1:
            if "," in compact:
                causes.append(("number", "it removes every ',' when the text also holds a '.' or several ','"))
        elif lang.thousandssep in compact:
            sep = "the no-break space" if lang.thousandssep == "\u00a0" else f"'{lang.thousandssep}'"
            where = "" if re.search(f"[0-9]{re.escape(lang.thousandssep)}[0-9]", compact) else " wherever it is"
            causes.append(("number", f"a site in {lang.name} removes the thousands separator {sep}{where}"))
        elif "," in compact:
            causes.append(("number", f"a site in {lang.name} reads ',' as a decimal separator"))
    unit = reading.unit
    if reading.multiplier is not None and graded.answer is not None and not graded.unit_right:
        # Moodle tries each answer in turn, first with the value converted, then as typed:
        # an answer that holds the bare number comes first, whatever a later one holds
        causes.append(("penalty", f"it tries its answers in order, each with the value converted to "
                                  f"{asked.unit} and then with the number alone, and the first to match takes "
                                  f"{_typed(value)} as {asked.unit} with a wrong unit, which costs the unit "
                                  f"penalty"))
    if value is None or not unit or reading.multiplier is not None:
        return causes
    stripped = unit.rstrip(".,;:!?")
    by_case = _by_case(asked.question.units)
    if "10^" in unit or "10**" in unit:
        causes.append(("number", "it reads a power of ten only as e, x10^, \u00d710^ or *10^"))
    elif not asked.question.units:
        if asked.question.unitgradingtype == 0:
            causes.append(("ignored", "it ignores the text after the number"))
    elif unit[:1].isspace():
        causes.append(("unit", "it removes plain spaces only, and the unit starts with another kind of space"))
    elif stripped != unit and stripped in asked.question.units:
        causes.append(("unit", f"the '{unit[len(stripped):]}' after the unit makes '{unit}' a unit it does "
                               f"not know"))
    elif unit.lower() in by_case and _same_unit(unit, by_case[unit.lower()]):
        causes.append(("unit", f"it matches unit names letter for letter, and '{unit}' is not "
                               f"'{by_case[unit.lower()]}'"))
    else:
        causes.append(("unit", f"'{unit}' is not one of the question's unit names"))
    return causes


def _reading_text(reading, asked: AskedQuestion) -> str:
    if reading.value is None:
        return "find no number at the start of it"
    number = _typed(reading.value)
    if reading.multiplier is not None and reading.unit:
        return f"read this as {number} {reading.unit}"
    if asked.unit:
        return f"read this as {number} without a unit it knows"
    return f"read this as {number}"


def _suggestion(answer: str, result: CheckResult, reading, asked: AskedQuestion, lang,
                recheck: Callable[[str], CheckResult] | None) -> str | None:
    """The answer re-typed so that labcalc and Moodle both give it full marks, or None.

    The candidates are only re-spellings of what was typed (labcalc's reading and
    Moodle's, with a decimal point and a unit name the question lists), so a
    suggestion never gives away a right answer the student did not type.
    """
    candidates = []
    by_case = _by_case(asked.question.units)
    unit_part = reading.unit.strip().rstrip(".,;:!?") if reading.unit else ""
    typed_number = _number_read_by_labcalc(answer)
    if result.given is not None and math.isfinite(result.given):
        listed = by_case.get(unit_part.lower())
        # the unit as the question lists it, only where labcalc reads both spellings as the
        # same unit (Mbit/S and Mbit/s; not MB/s and Mb/s, megabytes and megabits)
        if typed_number is not None and listed is not None and _same_unit(unit_part, listed):
            candidates.append(f"{_typed(typed_number)} {listed}")
        candidates.append(f"{_typed(result.given / asked.factor)} {asked.unit}".strip())
    if reading.value is not None:
        if reading.multiplier is not None:
            candidates.append(f"{_typed(reading.value)} {reading.unit}".strip())
        elif not asked.question.units:
            candidates.append(_typed(reading.value))
    for candidate in dict.fromkeys(candidates):
        if asked.question.grade(candidate, lang).fraction < 1.0:
            continue
        if recheck is not None and recheck(candidate).score < 1.0:
            continue
        return candidate
    return None


def moodle_verdict(result: CheckResult, answer, asked: AskedQuestion, lms="moodle-en", *,
                   recheck: Callable[[str], CheckResult] | None = None) -> CheckResult:
    """labcalc's verdict in Moodle mode: Moodle's grade, and a message where the two differ.

    Parameters
    ----------
    result : CheckResult
        labcalc's own verdict on ``answer`` (:func:`labcalc.grading.check_answer`).
    answer : str or float
        The answer as typed (a number is read as its text, as labcalc reads it).
    asked : AskedQuestion
        The exported question (:func:`moodle_question`).
    lms : str, default "moodle-en"
        The Moodle site and its language (:data:`labcalc.grading.moodle.LMS_NAMES`).
    recheck : callable, optional
        labcalc's check of another text for the same question; used to make sure a
        suggested spelling gets the same grade from both.

    Returns
    -------
    CheckResult
        ``result`` itself where Moodle gives the same grade. Otherwise a copy whose
        ``score`` is Moodle's grade, ``correct`` whether it is full marks, and whose
        ``message`` says what Moodle will read, its grade, what to type so that both
        agree, and labcalc's own verdict.

    Notes
    -----
    Moodle's grade is :meth:`labcalc.grading.moodle.MoodleQuestion.grade` of the
    exported question; labcalc's is compared as the quiz holds it
    (:func:`moodle_grade_of`).

    Examples
    --------
    >>> from labcalc.grading import check_answer
    >>> asked = moodle_question("lab5", "Q4")
    >>> moodle_verdict(check_answer("Q4", "4.69 Mbit/s", lab="lab5"), "4.69 Mbit/s", asked).message
    "Correct: '4.69 Mbit/s' is within 1 % of the expected value."
    >>> r = moodle_verdict(check_answer("Q4", "4.69 mbit/S", lab="lab5"), "4.69 mbit/S", asked)
    >>> r.score, "letter for letter" in r.message, "type 4.69 Mbit/s" in r.message
    (0.0, True, True)
    """
    from labcalc.grading.check import number_text

    lang = site_language(lms)
    text = answer if isinstance(answer, str) else ("" if answer is None else number_text(answer))
    graded = asked.question.grade(text, lang)
    held = moodle_grade_of(result.score)
    if abs(graded.fraction - held) <= 1e-6:
        if abs(held - result.score) <= 1e-9:
            return result
        note = (f"Moodle gives {_percent(held)}: the nearest grade it accepts to labcalc's "
                f"{_percent(result.score)}.")
        return dataclasses.replace(result, score=graded.fraction, correct=graded.fraction >= 1.0,
                                   message=f"{result.message} {note}")
    if not text.strip():
        return result  # Moodle does not grade an empty response either
    if result.correct:
        ours = "Right for labcalc"
    elif result.score > 0:
        ours = f"Partly right for labcalc ({_percent(result.score)})"
    else:
        ours = "Not right for labcalc"
    causes = _causes(text, graded, asked, lang, _number_read_by_labcalc(text))
    why = f" ({'; '.join(words for _, words in causes)})" if causes else ""
    misread = any(kind in ("number", "unit") for kind, _ in causes)
    suggestion = _suggestion(text, result, graded.reading, asked, lang, recheck)
    if suggestion is not None:
        advice = f": type {suggestion} to get full marks from both"
    elif misread and asked.unit:
        advice = (f"; both read the same number when it has a decimal point and no thousands "
                  f"separator, followed by a unit the question lists (such as {asked.unit})")
    elif misread:
        advice = "; both read the same number when it stands alone, with a decimal point"
    else:
        advice = ""
    message = (f"{ours}, but Moodle (site in {lang.name}) will {_reading_text(graded.reading, asked)}{why} "
               f"and give {_percent(graded.fraction)}{advice}. (labcalc: {result.message})")
    return dataclasses.replace(result, score=graded.fraction, correct=graded.fraction >= 1.0, message=message)


def moodle_detail(detail, lab, lms, *, accounting: str = "wire", credit: Mapping[str, float] | None = None,
                  notes: list | None = None, assignment=None):
    """A class's graded answers in Moodle mode: :func:`moodle_verdict` on every row.

    Parameters
    ----------
    detail : pandas.DataFrame
        One row per graded answer, as :func:`labcalc.grading.grade` builds it (columns
        ``student``, ``variant``, ``question``, ``answer``, ``correct``, ``score``,
        ``points``, ``max_points``, ``diagnosis``, ``message``, ``expected``, ``given``,
        ``unit``).
    lab : Lab or str
        The lab.
    lms : str
        ``"moodle-en"``, ``"moodle-fr"`` or ``"moodle-de"``.
    accounting : str, default "wire"
        Accounting of the answer keys (and of the exported quiz).
    credit : mapping, optional
        Partial credit per slip (as given to the grader and the export).
    notes : list, optional
        If given, a sentence saying how many answers got Moodle's grade instead of
        labcalc's is appended.
    assignment : Assignment, optional
        The assignment the quiz was exported from (see :func:`moodle_questions`).

    Returns
    -------
    pandas.DataFrame
        A copy of ``detail`` whose ``score``, ``points``, ``correct`` and ``message``
        are Moodle mode's, with the column ``labcalc_score`` (labcalc's own share of
        the points) after ``score``.

    Examples
    --------
    >>> import pandas as pd
    >>> from labcalc.grading import grade
    >>> res = grade(pd.DataFrame({"student": ["ada", "bob"], "question": ["Q4", "Q4"],
    ...                           "answer": ["4.69 Mbit/s", "4,69 Mbit/s"]}), "lab5", lms="moodle-en")
    >>> res.detail[["student", "score", "labcalc_score"]].values.tolist()
    [['ada', 1.0, 1.0], ['bob', 0.0, 1.0]]
    >>> print(res.notes[-1])
    graded as a Moodle site in English grades the exported quiz (lms moodle-en): 1 of 2 answers get Moodle's grade, not labcalc's own, and their feedback says why (column labcalc_score: labcalc's own)
    """
    from labcalc.grading.keys import check_answer

    lang = site_language(lms)
    out = detail.copy()
    if out.empty:
        out.insert(out.columns.get_loc("score") + 1, "labcalc_score", out["score"])
        return out
    pairs = set(zip(out["question"], out["variant"].astype(int)))
    asked = moodle_questions(lab, sorted(pairs), accounting=accounting, credit=credit, assignment=assignment,
                             lms=lms)
    labcalc_scores = out["score"].to_numpy(float).copy()
    scores, corrects, messages = [], [], []
    changed = 0
    for row in out.itertuples(index=False):
        given = float(row.given)
        result = CheckResult(correct=bool(row.correct), score=float(row.score), message=str(row.message),
                             expected=float(row.expected), given=given if math.isfinite(given) else None,
                             relative_error=None, diagnosis=row.diagnosis)
        seed = int(row.variant)
        verdict = moodle_verdict(
            result, row.answer, asked[row.question, seed], lang,
            recheck=lambda text, q=row.question, s=seed: check_answer(q, text, lab=lab, seed=s, accounting=accounting,
                                                                      credit=credit))
        changed += verdict is not result
        scores.append(verdict.score)
        corrects.append(verdict.correct)
        messages.append(verdict.message)
    out["score"] = scores
    out["correct"] = corrects
    out["message"] = messages
    out["points"] = out["score"] * out["max_points"]
    out.insert(out.columns.get_loc("score") + 1, "labcalc_score", labcalc_scores)
    if notes is not None:
        notes.append(f"graded as a Moodle site in {lang.name} grades the exported quiz (lms moodle-{lang.code}): "
                     f"{changed} of {len(out)} answers get Moodle's grade, not labcalc's own, and their "
                     f"feedback says why (column labcalc_score: labcalc's own)")
    return out
