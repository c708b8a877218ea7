"""A synthetic class: students who answer with their own variant and make real slips.

Used by the graders' notebook and the grading benchmark. Each student has a skill
(the chance of a right answer); a wrong answer is one of the classic slips, a number
without a unit, an answer rounded too early, an unreadable text or a plain wrong
value. Right answers come in the spellings students use ("4.69 Mbit/s", "4690 kbps",
"4.69Mbps", "586 kB/s"...). Everything is drawn from one seeded generator, so the same
arguments always give the same class.

Examples
--------
>>> df = simulate_class(3, lab="lab5", seed=1)
>>> list(df.columns), len(df)
(['student', 'variant', 'question', 'answer'], 165)
>>> df.equals(simulate_class(3, lab="lab5", seed=1))
True
"""

from __future__ import annotations

import math
import random
from typing import Mapping

__all__ = ["simulate_class", "responses_report", "MISTAKE_WEIGHTS"]

#: Relative frequency of each kind of mistake among wrong answers (those that cannot
#: apply to a question are left out for it).
MISTAKE_WEIGHTS: Mapping[str, float] = {
    "header_overhead": 3.0,
    "rate_for_goodput": 2.0,
    "goodput_for_rate": 2.0,
    "wire_vs_shaper": 2.0,
    "bytes_bits": 2.0,
    "kilo_mega": 1.5,
    "binary_prefix": 1.0,
    "percent_fraction": 4.0,
    "missing_unit": 1.0,
    "rounding": 2.0,
    "wrong_value": 3.0,
    "unreadable": 0.5,
    "empty": 1.0,
}

_UNREADABLE = ("?", "I don't know", "about 5 Mbps", "4.69 Mbit/s approx", "see report", "5 Mbps/s",
               "N/A")


def _g(x: float, digits: int) -> str:
    text = f"{x:.{digits}g}"
    if "e" in text:
        text = f"{x:.{max(digits, 1)}f}".rstrip("0").rstrip(".")
    return text


def _spell(rng: random.Random, value: float, base: str, display: str) -> str:
    """A right value written the way some student would write it."""
    if base == "bit/s":
        return rng.choice([
            f"{_g(value / 1e6, 3)} Mbit/s", f"{_g(value / 1e3, 4)} kbps", f"{_g(value / 1e6, 3)}Mbps",
            f"{_g(value / 1e3, 4)}kb/s", f"{_g(value / 8e3, 4)} kB/s", f"{_g(value / 1e6, 4)} Mb/s",
        ])
    if base == "byte":
        return rng.choice([f"{value:.0f} bytes", f"{value:.0f} B", f"{value:.0f} bytes"])
    if base == "s":
        return rng.choice([f"{_g(value * 1e3, 3)} ms", f"{_g(value, 3)} s", f"{_g(value * 1e3, 3)}ms"])
    if display == "%":
        return rng.choice([f"{_g(100 * value, 3)} %", f"{_g(100 * value, 3)}%", f"{_g(value, 3)}"])
    return _g(value, 3)


def _wrong(rng, kind, value, base, display, key, i):
    """The text of a wrong answer of the given kind (None when it cannot apply)."""
    alt = {code: float(arr[i]) for code, arr in key.alternatives.items() if not math.isnan(arr[i])}
    if kind in alt:
        return _spell(rng, alt[kind], base, display)
    if kind == "bytes_bits" and base == "bit/s":
        return rng.choice([f"{_g(value / 8e3, 4)} kbit/s", f"{_g(value * 8 / 1e6, 3)} Mbit/s"])
    if kind == "bytes_bits" and base == "byte":
        return f"{value * 8:.0f} bytes"
    if kind == "kilo_mega" and base == "bit/s":
        return rng.choice([f"{_g(value / 1e6, 3)} kbit/s", f"{_g(value / 1e3, 4)} Mbit/s"])
    if kind == "kilo_mega" and base == "s":
        return f"{_g(value * 1e3, 3)} s"
    if kind == "binary_prefix" and base == "bit/s":
        return f"{_g(value / 1.024e6, 3)} Mbit/s"
    if kind == "percent_fraction" and display == "%" and value > 0:
        return rng.choice([f"{_g(100 * value, 3)}", f"{_g(value, 3)} %"])
    if kind == "missing_unit" and base in ("bit/s", "byte", "s"):
        factor = {"bit/s": 1e6, "byte": 1.0, "s": 1e-3}[base]
        return _g(value / factor, 4)
    if kind == "rounding" and value != 0 and key.rtol[i] > 0:
        return _spell(rng, value * (1 + rng.choice([-1, 1]) * 1.6 * key.rtol[i]), base, display)
    if kind == "wrong_value" and value != 0:
        factor = rng.choice([rng.uniform(0.3, 0.8), rng.uniform(1.3, 3.0)])
        return _spell(rng, value * factor, base, display)
    if kind == "unreadable":
        return rng.choice(_UNREADABLE)
    if kind == "empty":
        return ""
    return None


def _answer(rng, key, i: int, p_right: float, weights: Mapping[str, float]):
    """One student's answer to answer ``i`` of ``key``: (text, mistake made or None)."""
    kinds = list(weights)
    value = float(key.values[i])
    base, display = key.units[i], key.display_units[i]
    if rng.random() >= p_right:
        for _ in range(4):  # a mistake that applies to this question
            kind = rng.choices(kinds, weights=[weights[c] for c in kinds])[0]
            text = _wrong(rng, kind, value, base, display, key, i)
            if text is not None:
                return text, kind
    return _spell(rng, value, base, display), None


def simulate_class(n_students: int = 200, *, lab, seed: int = 0,
                   salt: str = "demo-course", answers_per_student: int | None = None,
                   skill: tuple[float, float] = (5.0, 2.0), accounting: str = "wire",
                   mistakes: Mapping[str, float] | None = None, jobs: int | None = None,
                   with_mistakes: bool = False):
    """Answers of a synthetic class, one row per answer, as a grader would receive them.

    Parameters
    ----------
    n_students : int, default 200
        Students ``s0001``, ``s0002``...
    lab : Lab or str
        The lab whose questions the class answers (a :class:`labcalc.labs.Lab` or its
        name); no default.
    seed : int, default 0
        Seed of the generator that draws skills, mistakes and spellings.
    salt : str, default "demo-course"
        Course salt: student ``s`` works on variant ``variant_for(s, salt)``.
    answers_per_student : int, optional
        Each student answers this many questions, drawn at random (all by default).
    skill : (float, float), default (5, 2)
        Beta distribution of the students' chance to get an answer right (mean 0.71).
    accounting : str, default "wire"
        Accounting of the answer key the students aim at.
    mistakes : mapping, optional
        Relative weights of the mistakes (see :data:`MISTAKE_WEIGHTS`).
    jobs : int, optional
        Worker processes for the answer keys (see :func:`labcalc.grading.answer_keys`).
    with_mistakes : bool, default False
        Add a ``mistake`` column: the kind of mistake made (None for a right answer),
        to measure how well the diagnosis recognises it.

    Returns
    -------
    pandas.DataFrame
        Columns ``student``, ``variant``, ``question``, ``answer`` (text), and
        ``mistake`` when asked for.

    Examples
    --------
    >>> df = simulate_class(2, lab="lab5", seed=3, answers_per_student=4)
    >>> df.groupby("student").size().tolist()
    [4, 4]
    """
    import pandas as pd

    from labcalc.grading.keys import answer_keys
    from labcalc.labs import get_lab

    if isinstance(n_students, bool) or not isinstance(n_students, int) or n_students < 0:
        raise ValueError(f"n_students must be a whole number >= 0; got {n_students!r}")
    lab = get_lab(lab)
    weights = dict(MISTAKE_WEIGHTS)
    weights.update(mistakes or {})
    rng = random.Random(seed)
    n_answers = len(lab.answers)
    k = n_answers if answers_per_student is None else int(answers_per_student)
    if not 0 <= k <= n_answers:
        raise ValueError(f"answers_per_student must be between 0 and {n_answers}; got {answers_per_student!r}")
    rows = []
    students = [f"s{s:04d}" for s in range(1, n_students + 1)]
    variants = [lab.variant_for(student, salt) for student in students]
    keys = answer_keys(lab, variants, accounting, jobs=jobs)
    for student, variant in zip(students, variants):
        key = keys[variant]
        p_right = rng.betavariate(*skill)
        chosen = sorted(rng.sample(range(n_answers), k)) if k < n_answers else range(n_answers)
        for i in chosen:
            text, made = _answer(rng, key, i, p_right, weights)
            rows.append((student, variant, key.ids[i], text, made))
    df = pd.DataFrame(rows, columns=["student", "variant", "question", "answer", "mistake"])
    df["mistake"] = pd.Series(df["mistake"].to_numpy(object), dtype=object)
    return df if with_mistakes else df.drop(columns="mistake")


def responses_report(n_students: int, assignment, *, seed: int = 0, skill: tuple[float, float] = (5.0, 2.0),
                     accounting: str | None = None) -> str:
    """A synthetic quiz as Moodle's "Responses" report downloads it.

    The quiz is the one ``labcalc export`` writes from ``assignment``: one random
    question per answer id, drawn (as Moodle draws it) among the assignment's variants.
    Each student answers as in :func:`simulate_class` (a skill, classic slips, blanks).
    One row per attempt: ``Last name``, ``First name``, ``Username``, ``State``,
    ``Started on``, ``Completed``, ``Time taken``, ``Grade/<points>``, then per question,
    in the assignment's order, ``Question n`` (the text the student saw, with the numbers
    of the variant drawn), ``Response n`` (``-`` for none) and ``Right answer n``, as
    Moodle's ``quiz_responses`` report lays them out. For demos and tests of
    :func:`labcalc.grading.read_answers` on an LMS's own file.

    Parameters
    ----------
    n_students : int
        Students ``s0001``, ``s0002``...
    assignment : Assignment
        The quiz's questions, in order, and its variants (:mod:`labcalc.grading.assignment`).
    seed : int, default 0
        Seed of the generator that draws variants, skills and answers.
    skill : (float, float), default (5, 2)
        Beta distribution of the students' chance to get an answer right.
    accounting : str, optional
        The accounting of the quiz (the assignment's by default).

    Returns
    -------
    str
        The CSV text (commas, quoted where needed).

    Examples
    --------
    >>> from labcalc.grading.assignment import assignment_from_text
    >>> task = assignment_from_text('lab = "lab5"\\nquestions = ["Q3", "Q4"]\\n')
    >>> responses_report(2, task).splitlines()[0]
    'Last name,First name,Username,State,Started on,Completed,Time taken,Grade/2.00,Question 1,Response 1,Right answer 1,Question 2,Response 2,Right answer 2'
    """
    import csv
    import io

    from labcalc.grading.export import unit_names
    from labcalc.grading.keys import answer_keys
    from labcalc.grading.quiztext import question_text, value_text
    from labcalc.labs import get_lab

    lab = get_lab(assignment.lab)
    accounting = accounting or assignment.accounting
    seeds = list(assignment.seeds)
    keys = answer_keys(lab, seeds, accounting)
    rng = random.Random(seed)
    head = ["Last name", "First name", "Username", "State", "Started on", "Completed", "Time taken",
            f"Grade/{assignment.max_points:.2f}"]
    for n in range(1, len(assignment.questions) + 1):
        head += [f"Question {n}", f"Response {n}", f"Right answer {n}"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(head)
    for k in range(1, n_students + 1):
        p_right = rng.betavariate(*skill)
        row = ["Student", f"No. {k}", f"s{k:04d}", "Finished", "3 June 2025  10:02 AM", "3 June 2025  10:41 AM",
               "39 mins 5 secs", "-"]
        for answer_id in assignment.questions:
            key = keys[rng.choice(seeds)]  # Moodle's random question from the category
            a, i = lab.answer(answer_id), key.index(answer_id)
            value = float(key.values[i])
            tol = float(key.atol[i] + key.rtol[i] * abs(value))
            factor = 1.0 if a.display_unit in ("%", "") else float(key.display_factors[i])
            unit = "" if a.display_unit in ("%", "") else a.display_unit
            response, _ = _answer(rng, key, i, p_right, MISTAKE_WEIGHTS)
            row += [question_text(a, key.params, accounting=accounting, listed=unit_names(a.display_unit)),
                    response.strip() or "-",
                    f"{value_text(value / factor, tol / factor)} {unit}".strip()]
        writer.writerow(row)
    return out.getvalue()
