"""What a quiz question shows: its text, how to answer, and numbers at the precision they need.

The one place that words a quiz question (:func:`question_text`, with the sentence on how
to answer from :func:`answer_instruction`) and that decides how many digits a number of
the quiz carries (:func:`value_text` for a value shown to students, :func:`rounded_bands`
for the intervals of a numerical question). :mod:`labcalc.grading.export` writes Moodle XML
and GIFT with them; :mod:`labcalc.grading.lmsfiles` matches the texts of an LMS report against
:func:`question_text`'s; the grading report shows expected values with :func:`value_text`.

Examples
--------
>>> from labcalc.labs.lab5 import get_answer
>>> question_text(get_answer("Q4"))[238:300]
'counted? Give the answer in Mbit/s. Type the number with a dec'
"""

from __future__ import annotations

import math

from labcalc.grading.moodle import how_to_answer

__all__ = ["question_text", "answer_instruction", "value_text", "rounded_bands"]


def answer_instruction(unit: str, *, unit_field: bool = True, site="en", listed=()) -> str:
    """The sentences that tell a student what to give and how to type it, for a quiz question.

    The one place that words them, for Moodle XML and GIFT alike (and for anything that
    shows a quiz question: :func:`question_text`): what to give, in the question's unit
    (a share as a fraction, a constant as a plain number), then how to type it so that a
    Moodle site in ``site``'s language reads it as labcalc does
    (:func:`labcalc.grading.moodle.how_to_answer`).

    Parameters
    ----------
    unit : str
        The question's display unit (``"Mbit/s"``, ``"bytes"``, ``"ms"``; ``"%"`` for a
        share, asked as a fraction; ``""`` for a plain number).
    unit_field : bool, default True
        Whether the quiz reads a unit typed after the number (Moodle XML: the student
        types it); False for GIFT, which has no units (the number only, in ``unit``).
    site : str or SiteLanguage, default "en"
        The language of the Moodle site the quiz is for (its decimal separator).
    listed : iterable of str, optional
        The unit names the question lists (see :func:`labcalc.grading.moodle.how_to_answer`).

    Returns
    -------
    str
        Two sentences, starting with a space.

    Examples
    --------
    >>> answer_instruction("ms")[:80]
    ' Give the answer in ms. Type the number with a decimal point and no thousands se'
    >>> answer_instruction("ms", unit_field=False)
    ' Give the answer in ms, the number only. Type the number alone, with a decimal point and no thousands separator (4.5, not 4,5).'
    >>> answer_instruction("%", site="fr")
    ' Give the answer as a fraction between 0 and 1, the number only (a share of 25 % is 0.25). Type the number alone, with a decimal point or a decimal comma and no thousands separator (4.5 or 4,5).'
    """
    if unit == "%":
        what = " Give the answer as a fraction between 0 and 1, the number only (a share of 25 % is 0.25)."
    elif not unit:
        what = " Give the answer as a plain number."
    elif unit_field:
        what = f" Give the answer in {unit}."
    else:
        what = f" Give the answer in {unit}, the number only."
    typed = unit if unit_field and unit != "%" else ""
    return f"{what} {how_to_answer(typed, site, listed)}"


def question_text(answer, params=None, *, accounting: str = "wire", unit_field: bool = True,
                  site="en", listed=()) -> str:
    """The text of a quiz question: the question with the variant's numbers, then how to answer.

    Parameters
    ----------
    answer : Answer
        The lab's answer (:class:`labcalc.labs.Answer`); its :meth:`~labcalc.labs.Answer.text`
        gives the question, self-contained, with the numbers of ``params``.
    params : object, optional
        The variant's parameters (the handout's by default).
    accounting : str, default "wire"
        Which bytes the links count, as the text says it.
    unit_field, site, listed
        As in :func:`answer_instruction`.

    Returns
    -------
    str

    Examples
    --------
    >>> from labcalc.labs.lab5 import get_answer
    >>> question_text(get_answer("Q29"))[-302:-236]
    'Which RTT does h3 measure when it pings h1? Give the answer in ms.'
    """
    return answer.text(params, accounting) + answer_instruction(answer.display_unit, unit_field=unit_field,
                                                                site=site, listed=listed)


def _step_exponent(half: float) -> int:
    """Decimal exponent of the rounding step of an interval of half-width ``half``:
    at most a hundredth of it, so that an edge moves by at most 0.5 % of the width."""
    return math.floor(math.log10(half)) - 2


def value_text(value: float, tolerance: float) -> str:
    """A value written at the precision its tolerance needs: to a hundredth of it.

    What the quiz shows as the right answer, and what the grading report shows as a
    student's expected value, so that both read the same.

    Parameters
    ----------
    value : float
        The value, in the unit it is shown in.
    tolerance : float
        Half-width of its band, in the same unit (> 0).

    Returns
    -------
    str
        Plain decimal notation, no exponent.

    Examples
    --------
    >>> value_text(2.8436018957345977, 0.028436), value_text(1066.0, 0.5), value_text(0.0, 0.001)
    ('2.8436', '1066', '0')
    """
    import decimal

    if not (math.isfinite(value) and math.isfinite(tolerance) and tolerance > 0):
        return repr(float(value))
    step = decimal.Decimal(1).scaleb(_step_exponent(tolerance))
    text = format(decimal.Decimal(repr(float(value))).quantize(step, rounding=decimal.ROUND_HALF_EVEN), "f")
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("-0", "") else text


def rounded_bands(mids: list[float], halves: list[float]) -> tuple[list[float], list[float]]:
    """The answers' intervals written at the precision their widths need, not with 17 digits.

    The right answer (the first interval) is written as its value rounded to a
    hundredth of its tolerance and its tolerance rounded up to the same step, so that
    students read ``4.6904`` (``± 0.0470``) on review; its edges move outwards by at
    most 1.5 % of the tolerance (when another interval shares one of its edges, that
    edge stays shared and the other moves by at most 1 %). The other intervals are given by their edges, each
    rounded to a hundredth of the narrowest interval that has it as an edge, and two
    intervals that share an edge keep sharing the same decimal number: no gap opens
    between the pieces of the number line, and no edge moves by more than 0.5 % of
    the narrower interval. A right answer of 0 keeps its lower edge at exactly 0.

    Parameters
    ----------
    mids, halves : list of float
        Centre and half-width of each interval, in the question's unit; the right
        answer first.

    Returns
    -------
    mids, halves : list of float
        The same intervals, with short decimal edges.

    Examples
    --------
    >>> rounded_bands([2.8436018957345977, 2.9264], [0.028436018985781818, 0.0146])
    ([2.8436, 2.9264], [0.0285, 0.0146])
    """
    import decimal

    n = len(mids)
    ok = [math.isfinite(h) and h > 0 and math.isfinite(m) for m, h in zip(mids, halves)]
    if not all(ok):
        return mids, halves
    context = decimal.Context(prec=60, rounding=decimal.ROUND_HALF_EVEN)
    D = context.create_decimal_from_float
    lo = [m - h for m, h in zip(mids, halves)]
    hi = [m + h for m, h in zip(mids, halves)]
    exps = [_step_exponent(h) for h in halves]
    # edges shared by two intervals (equal up to float noise) are rounded together
    edges = sorted((e, j, side) for j in range(n) for side, e in ((0, lo[j]), (1, hi[j])))
    groups: list[list] = []
    for e, j, side in edges:
        if groups and abs(e - groups[-1][0]) <= 1e-9 * max(abs(e), abs(groups[-1][0])):
            groups[-1][1].append((j, side))
        else:
            groups.append([e, [(j, side)]])
    shared = [False, False]  # whether the right answer's lower / upper edge is another's too
    new_lo, new_hi = [None] * n, [None] * n
    for e, members in groups:
        k = min(exps[j] for j, _ in members)
        value = D(0) if e == 0 else D(e).quantize(decimal.Decimal(1).scaleb(k), context=context)
        for j, side in members:
            (new_lo if side == 0 else new_hi)[j] = value
            if j == 0 and len(members) > 1:
                shared[side] = True
    if lo[0] != 0 and not all(shared):
        step = decimal.Decimal(1).scaleb(exps[0])
        mid = D(mids[0]).quantize(step, context=context)
        if shared[0]:  # the shared edge stays; the other one gives a short value
            new_hi[0] = 2 * mid - new_lo[0]
        elif shared[1]:
            new_lo[0] = 2 * mid - new_hi[0]
        else:
            # the grader widens every band by a relative 1e-9 (values on the edge count
            # as inside): that noise is dropped before rounding up, so 0.5 stays 0.5
            half = D(float(f"{halves[0]:.8g}")).quantize(step, rounding=decimal.ROUND_CEILING,
                                                         context=context)
            new_lo[0], new_hi[0] = mid - half, mid + half
    out_mids = [float((a + b) / 2) for a, b in zip(new_lo, new_hi)]
    out_halves = [float((b - a) / 2) for a, b in zip(new_lo, new_hi)]
    return out_mids, out_halves
