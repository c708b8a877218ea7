"""Check one answer: units, tolerance, significant digits and the classic slips.

:func:`check` is what a notebook's "check your answer" cell calls; batch grading
(:mod:`labcalc.grading.batch`) runs the same rules on a whole class at once.

Examples
--------
>>> r = check("4690 kbps", 4_690_431.5, unit="Mbit/s")
>>> r.correct, r.score
(True, 1.0)
>>> print(r.message)
Correct: '4690 kbps' is within 1 % of the expected value.
>>> r = check("586 kbit/s", 4_690_431.5, unit="Mbit/s")
>>> r.diagnosis, r.score
('bytes_bits', 0.5)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from labcalc.grading.diagnosis import CONTEXT_SLIPS, evaluate, other_accountings
from labcalc.grading.messages import (NONNEGATIVE_NAME, QUANTITY_NAME, build_message, describe_tolerance,
                                      quote_answer)
from labcalc.units import normalize_text, scale_value, split_quantity, unit_scale

__all__ = ["CheckResult", "ParsedAnswer", "check", "grade_parsed", "is_percent_unit", "parse_answer",
           "number_text", "display_scale"]

_PERCENT_UNITS = ("%", "percent", "pct")


@dataclass(frozen=True)
class ParsedAnswer:
    """An answer read into base units (see :func:`parse_answer`).

    Attributes
    ----------
    value : float
        Value in base units; for ``status == "missing_unit"`` the number read in the
        question's unit (a hint only); NaN when unreadable or empty.
    unit : str or None
        Base unit of the answer as written (``None`` when it has none).
    status : str
        ``"ok"``, ``"empty"``, ``"unreadable"``, ``"missing_unit"`` or ``"wrong_unit"``.
    reason : str
        Why the answer could not be used (empty when ``status == "ok"``).

    Examples
    --------
    >>> p = parse_answer("4.69 Mbit/s", "bit/s")
    >>> p.value, p.unit, p.status
    (4690000.0, 'bit/s', 'ok')
    """

    value: float
    unit: str | None
    status: str
    reason: str = ""


def display_scale(unit: str | None) -> tuple[float, str]:
    """Factor from ``unit`` to base units and the base unit (``(1.0, "1")`` for none).

    Examples
    --------
    >>> display_scale("Mbit/s"), display_scale(""), display_scale(None)
    ((1000000.0, 'bit/s'), (1.0, '1'), (1.0, '1'))
    """
    if unit is None or str(unit).strip() in ("", "1"):
        return 1.0, "1"
    return unit_scale(str(unit))


def number_text(number) -> str:
    """The text a number is read as: what a CSV file of answers would hold.

    A whole number is written without a decimal part (``3.0`` as ``"3"``, as a
    spreadsheet shows it), any other number in full (Python's shortest ``repr``).
    :func:`parse_answer` reads a number given as a number through this text, so that
    ``4.69`` and ``"4.69"`` get the same grade, in a notebook and in a batch.

    Parameters
    ----------
    number : int or float
        A finite number.

    Returns
    -------
    str

    Examples
    --------
    >>> number_text(4.69), number_text(3.0), number_text(1066), number_text(6.2e-05)
    ('4.69', '3', '1066', '6.2e-05')
    """
    if isinstance(number, (int, np.integer)):
        return str(int(number))
    value = float(number)
    if math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


#: An exponent written as a power of ten after the number: "4.69x10^6", "4.69 × 10^6",
#: "4.69*10**6" (Moodle's numerical question reads the same forms, with x, × or * and
#: ^ or **; ``qtype_numerical_answer_processor::apply_units``).
_TIMES_TEN = re.compile(r"(?<=[0-9.])\s*[xX\u00d7*\u22c5\u00b7]\s*10\s*(?:\^|\*\*)\s*([+\-\u2212]?)\s*([0-9]+)(?![0-9])")


def parse_answer(answer, unit: str | None = None, *, require_unit: bool = True) -> ParsedAnswer:
    """Read an answer (a number, or text with a unit) into base units, never evaluating it.

    Parameters
    ----------
    answer : float or str
        A number is read as its text (:func:`number_text`: ``4.69`` as ``"4.69"``), so
        it follows the rules of a text without a unit below. Text must be
        a number followed by a unit, such as ``"4.69 Mbit/s"`` or ``"6.2 %"``; it is
        normalised first (:func:`labcalc.units.normalize_text`: NFKC, invisible
        characters removed, digits of any script read as ASCII digits), and refused
        when it holds a character that only looks like a digit (``"10⁶"``, ``"①"``:
        :func:`labcalc.units.compatibility_digit`).
    unit : str, optional
        The unit the question asks for (``"Mbit/s"``, ``"bytes"``, ``"ms"``, ``"%"``).
        It fixes the kind of quantity expected; ``None`` accepts any kind.
    require_unit : bool, default True
        A number without a unit is refused (status ``"missing_unit"``) when the
        question asks for a rate, a size or a time: the unit is not silently assumed;
        with False it is read in ``unit``. A number without a unit is always accepted
        for a share asked in % and read as a fraction (``"0.062"`` is 6.2 %), and for
        a plain number.

    Returns
    -------
    ParsedAnswer

    Examples
    --------
    >>> parse_answer("4.69Mbps", "Mbit/s")
    ParsedAnswer(value=4690000.0, unit='bit/s', status='ok', reason='')
    >>> parse_answer("4.69", "Mbit/s").status, parse_answer(4.69, "Mbit/s").status
    ('missing_unit', 'missing_unit')
    >>> parse_answer(4.69, "Mbit/s", require_unit=False).value
    4690000.0
    >>> parse_answer(0.25, "%").value, parse_answer("25 %", "%").value
    (0.25, 0.25)
    >>> parse_answer("300 ms", "Mbit/s").status
    'wrong_unit'
    >>> parse_answer("=1+1", "Mbit/s").reason
    "'=1+1' does not start with a number"
    """
    factor, required = display_scale(unit)
    if answer is None:
        return ParsedAnswer(math.nan, None, "empty", "no answer")
    if isinstance(answer, (bool, np.bool_)):
        return ParsedAnswer(math.nan, None, "unreadable", f"{answer!r} is not a number")
    if isinstance(answer, (int, float, np.integer, np.floating)):
        if not math.isfinite(float(answer)):
            return ParsedAnswer(math.nan, None, "unreadable", f"{float(answer)!r} is not a finite number")
        # one reading for an answer typed with or without quotes: the number is read
        # as its text, exactly as the batch grader reads a number in a data frame
        answer = number_text(answer)
    if not isinstance(answer, str):
        return ParsedAnswer(math.nan, None, "unreadable",
                            f"an answer must be a number or text, not {type(answer).__name__}")
    # "3x10^8", "3×10^8", "3*10**8" (what Moodle reads as an exponent) become "3e8"
    answer = _TIMES_TEN.sub(lambda m: "e" + m[1].replace("\u2212", "-") + m[2], answer)
    raw, answer = answer, normalize_text(answer)
    if not answer.strip():
        return ParsedAnswer(math.nan, None, "empty", "no answer")
    try:
        # the text as typed: split_quantity refuses superscript and circled digits,
        # which normalising would merge into the number ("10⁶" into 106)
        number, unit_text = split_quantity(raw)
    except ValueError as exc:
        return ParsedAnswer(math.nan, None, "unreadable", str(exc).removeprefix("quantity: "))
    if not unit_text:
        if unit is None or required == "1":
            return ParsedAnswer(number, "1", "ok")  # a plain number, or a fraction
        if require_unit:
            return ParsedAnswer(scale_value(number, factor), None, "missing_unit",
                                f"{quote_answer(answer)} has no unit")
        return ParsedAnswer(scale_value(number, factor), required, "ok")
    try:
        scale, base = unit_scale(unit_text)
    except ValueError as exc:
        text = str(exc).removeprefix("quantity: ")
        if "labcalc does not use" in text:
            reason = f"{quote_answer(unit_text, 20)} is not a unit of rate, size, time or share"
        elif "unknown unit" in text:
            reason = f"unknown unit {quote_answer(unit_text, 20)}"
        else:  # ambiguous ("Ms"), or a percentage mixed with another unit
            reason = text
        return ParsedAnswer(math.nan, None, "unreadable", reason)
    value = scale_value(number, scale)
    if unit is not None and base != required:
        return ParsedAnswer(value, base, "wrong_unit",
                            f"{quote_answer(answer)} is {QUANTITY_NAME.get(base, base)}")
    return ParsedAnswer(value, base, "ok")


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one answer.

    Attributes
    ----------
    correct : bool
        Within the tolerance.
    score : float
        Share of the points earned, 0..1 (partial credit for a recognised slip).
    message : str
        One sentence for the student.
    expected : float
        Expected value [base units].
    given : float or None
        The answer [base units]; None when it could not be read as a quantity of the
        right kind (no unit, wrong unit, unreadable, empty).
    relative_error : float or None
        ``(given - expected) / |expected|``; None when undefined.
    diagnosis : str or None
        A code of :data:`labcalc.grading.SLIPS`, or None (right, or wrong for no
        recognised reason).
    unit : str
        Base unit of ``expected`` and ``given``.

    Examples
    --------
    >>> r = check("4690 kbit/s", 4_690_431.5, unit="Mbit/s")
    >>> r.correct, r.score, r.given, r.unit
    (True, 1.0, 4690000.0, 'bit/s')
    """

    correct: bool
    score: float
    message: str
    expected: float
    given: float | None
    relative_error: float | None
    diagnosis: str | None
    unit: str = "1"

    def __str__(self) -> str:
        return self.message


def check(answer, expected, unit: str | None = None, rtol: float = 0.01, atol: float = 0.0,
          sigfigs: int | None = None, *, alternatives: Mapping[str, float | Sequence[float]] | None = None,
          efficiency: float | None = None, credit: Mapping[str, float] | None = None,
          require_unit: bool = True, accounting: str = "wire",
          alternative_accountings: Sequence[str] | None = None,
          nonnegative: bool | None = None) -> CheckResult:
    """Check one answer against the expected value, with units, tolerance and slips.

    Parameters
    ----------
    answer : float or str
        Text with a unit: ``"4.69 Mbit/s"``, ``"4690 kbps"``, ``"586 kB/s"``, ``"6.2 %"``,
        ``"0.062"``, ``"1066 bytes"``, ``"300 ms"``; text is never evaluated. A number
        is read exactly as the same number typed without quotes (:func:`number_text`):
        ``4.69`` and ``"4.69"`` always get the same grade.
    expected : float or str
        The right value in base units [bit/s, byte, s, or a fraction], as labcalc
        computes it, or text with a unit (``"4.69 Mbit/s"``).
    unit : str, optional
        The unit the question is asked in (``"Mbit/s"``, ``"bytes"``, ``"ms"``, ``"%"``,
        ``""`` for a plain number). It means what it means to the batch grader
        (:func:`labcalc.grading.grade`), which reads the same answer the same way: it
        sets the kind of quantity asked (an answer of another kind is wrong), the unit
        of the messages and of ``sigfigs``, and how a number without a unit is read:

        - a rate, a size or a time needs its unit: ``4.69`` or ``"4.69"`` for a
          question in Mbit/s is refused as "no unit" (with ``require_unit=False``,
          it is read in ``unit``: 4.69 Mbit/s);
        - a share asked in ``"%"`` is a fraction without its % sign: ``0.062`` or
          ``"0.062"`` is 6.2 %, and ``6.2`` without the sign is 620 %, which is
          diagnosed as a percentage given without its % sign;
        - a plain number (``""`` or ``"1"``) is read as it is.

        When None and ``expected`` is text with a unit, that unit plays the same
        role; when None and ``expected`` is a number, any kind of quantity is
        accepted and a number is a plain number.
    rtol, atol : float
        Accept ``|given - expected| <= atol + rtol * |expected|`` (``atol`` in base
        units); the two add up. Values on the edge count as inside. Booleans are
        refused.
    sigfigs : int, optional
        Instead of ``rtol``: the answer must equal the expected value to this many
        significant digits (within half a unit of the last digit, counted in ``unit``).
    alternatives : mapping, optional
        Values (base units) a student would find after a slip that depends on the
        scenario: keys among ``"header_overhead"``, ``"wire_vs_shaper"``,
        ``"rate_for_goodput"``, ``"goodput_for_rate"``; a value or a list of values.
    efficiency : float, optional
        Frame efficiency (payload / frame bytes, see :func:`labcalc.framing.efficiency`):
        recognises forgotten headers, ``expected / efficiency`` or
        ``expected * efficiency``.
    credit : mapping, optional
        Share of the points per slip, replacing :data:`DEFAULT_CREDIT` entries.
    require_unit : bool, default True
        Refuse unit-less text for rates, sizes and times.
    accounting : str, default "wire"
        Byte accounting of ``expected``. The ``wire_vs_shaper`` alternatives are taken
        to be in the accountings of ``alternative_accountings``, and the message names
        the key's and the one that matched.
    alternative_accountings : sequence of str, optional
        The accounting of each ``wire_vs_shaper`` alternative, in order; by default
        :func:`labcalc.grading.diagnosis.other_accountings` of ``accounting`` (the
        Linux shaper's for ``"wire"``, the wire's for ``"tc"``, the wire's then the
        shaper's otherwise). An alternative beyond them is "another byte accounting".
    nonnegative : bool, optional
        Refuse negative answers (diagnosis ``"negative"``, no points), even within
        the tolerance of a value near 0. By default True when ``expected`` is not
        negative and the answer is a rate, a size, a time, a number of packets or a
        share (asked in %), none of which can be negative; False otherwise.

    Returns
    -------
    CheckResult
        ``correct``, ``score``, ``message`` (one sentence), ``expected`` and ``given``
        in base units, ``relative_error``, ``diagnosis``.

    Notes
    -----
    A wrong answer is compared with the value each slip would give (see
    :mod:`labcalc.grading.diagnosis`): it must lie within half the tolerance of that
    value, and clearly closer to it than to the right one; the closest match wins,
    single slips before pairs, and the other byte accounting before a binary prefix
    (the two can be 0.1 % apart). The percent/fraction slip is looked for only when
    the question asks for a percentage (``unit="%"``), or when nothing says what
    kind of number it is (``unit`` None and a plain ``expected``). An answer within
    three tolerances that no slip explains is diagnosed ``"rounding"``.

    References
    ----------
    PrairieLearn's numeric answer checks (relative and absolute tolerance, significant
    digits) and Moodle's numerical question type (tolerance, units, partial credit).

    Examples
    --------
    >>> check("4.69 Mbit/s", 4_690_431.5).correct
    True
    >>> r = check("4.69", 4_690_431.5, unit="Mbit/s")
    >>> r.diagnosis, r.score
    ('missing_unit', 0.0)
    >>> print(r.message)
    Not correct: '4.69' has no unit, and the unit is not assumed; write it with one, such as '4.69 Mbit/s' if you mean Mbit/s.
    >>> r = check("5 Mbit/s", 4_690_431.5, unit="Mbit/s", efficiency=1000 / 1066)
    >>> r.diagnosis, r.score
    ('header_overhead', 0.5)
    >>> check(4.69, 4_690_431.5, unit="Mbit/s").diagnosis  # a number as well as a text
    'missing_unit'
    >>> check(4.69, 4_690_431.5, unit="Mbit/s", require_unit=False).correct
    True
    >>> check("6.2 %", 0.0619, unit="%").correct, check(0.062, 0.0619, unit="%").correct
    (True, True)
    >>> r = check(6.2, 0.0619, unit="%")
    >>> r.diagnosis, r.score, r.score == check("6.2", 0.0619, unit="%").score
    ('percent_fraction', 0.5, True)
    >>> print(r.message)
    Partly right (50 % of the points): '6.2' is 100 times too large: a number without a % sign is read as a fraction (0.25 is 25 %); add the % sign, or give the fraction between 0 and 1.
    >>> check("4.7 Mbit/s", 4_690_431.5, sigfigs=3).correct, check("4.7 Mbit/s", 4_690_431.5, sigfigs=2).correct
    (False, True)
    >>> print(check("4.69e9 ms", "4.69 Mbit/s").message)
    Not correct: '4.69e9 ms' is a time, but the question asks for a rate (in Mbit/s).
    >>> print(check("-0.1 %", 0.0, unit="%", atol=0.001).message)
    Not correct: '-0.1 %' is negative, and a loss or a share cannot be negative.
    """
    factor, required = display_scale(unit)
    expected_unit = None  # the unit written in a text ``expected``
    if isinstance(expected, str):
        try:
            number, unit_text = split_quantity(expected)
            scale, base = unit_scale(unit_text) if unit_text else (factor, required)
        except ValueError as exc:
            raise ValueError(f"expected: {exc}") from None
        expected_value = scale_value(number, scale)
        if unit is not None and base != required:
            raise ValueError(f"expected {expected!r} is not in the kind of unit of {unit!r}")
        required = base
        expected_unit = unit_text or None
    elif isinstance(expected, (bool, np.bool_)):
        raise ValueError(f"expected must be a number or a text with a unit; got {expected!r}")
    else:
        try:
            expected_value = float(expected)
        except (TypeError, ValueError):
            raise ValueError(f"expected must be a number or a text with a unit; got {expected!r}") from None
    if not math.isfinite(expected_value):
        raise ValueError(f"expected must be a finite number; got {expected!r}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating))
                or not math.isfinite(value) or value < 0):
            raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    if sigfigs is not None and (isinstance(sigfigs, (bool, np.bool_))
                                or not isinstance(sigfigs, (int, float, np.integer, np.floating))
                                or not math.isfinite(sigfigs) or int(sigfigs) != sigfigs or sigfigs < 1):
        raise ValueError(f"sigfigs must be a whole number >= 1; got {sigfigs!r}")

    if unit is None and expected_unit is not None:
        # the expected value's unit sets the kind of quantity (a rate, a time...)
        parsed = parse_answer(answer, expected_unit, require_unit=require_unit)
    else:
        parsed = parse_answer(answer, unit, require_unit=require_unit)
        if unit is None and parsed.unit is not None:
            required = parsed.unit  # nothing says which kind: the answer's own
    question_unit = unit if unit is not None else expected_unit
    if question_unit is not None:
        percent = str(question_unit).strip().lower() in _PERCENT_UNITS
    else:
        percent = required == "1"  # nothing says whether it is a share: allow the slip
    if nonnegative is None:
        share = question_unit is not None and str(question_unit).strip().lower() in _PERCENT_UNITS
        nonnegative = expected_value >= 0 and (share or required in NONNEGATIVE_NAME)
    alts: dict[str, list[float]] = {}
    for code, values in (alternatives or {}).items():
        if code not in CONTEXT_SLIPS:
            raise ValueError(f"alternatives: {code!r} is not one of {', '.join(CONTEXT_SLIPS)}")
        values = [values] if np.ndim(values) == 0 else list(values)
        alts[code] = [np.array([float(v)]) for v in values]
    if efficiency is not None:
        if not (0 < efficiency <= 1):
            raise ValueError(f"efficiency must be in (0, 1]; got {efficiency!r}")
        alts.setdefault("header_overhead", []).extend(
            [np.array([expected_value / efficiency]), np.array([expected_value * efficiency])])
    shown_unit = unit if unit is not None else (expected_unit or _default_display(required))
    shown_factor = factor if unit is not None else display_scale(shown_unit)[0]
    if isinstance(answer, str):
        text = answer
    elif isinstance(answer, (int, float, np.integer, np.floating)) and not isinstance(answer, (bool, np.bool_)):
        text = number_text(answer) if math.isfinite(float(answer)) else repr(float(answer))
    else:
        text = None
    out, messages = grade_parsed(
        [parsed], [text], np.array([expected_value]), np.array([required], object),
        [shown_unit], np.array([shown_factor]), np.array([rtol], float), np.array([atol], float),
        np.array([sigfigs or 0], float), alts, credit=credit, accounting=accounting,
        alternative_accountings=alternative_accountings, percent=np.array([percent]),
        nonnegative=np.array([bool(nonnegative)]))
    correct = bool(out["correct"][0])
    score = float(out["score"][0])
    diagnosis = out["diagnosis"][0]
    rel = float(out["relative_error"][0])
    message = messages[0]
    given = parsed.value if parsed.status == "ok" else None
    return CheckResult(correct=correct, score=score, message=message, expected=expected_value,
                       given=given, relative_error=rel if math.isfinite(rel) else None,
                       diagnosis=diagnosis, unit=required)


def is_percent_unit(unit) -> bool:
    """Whether a question asked in ``unit`` asks for a share in % (``"%"``, ``"percent"``).

    Examples
    --------
    >>> is_percent_unit("%"), is_percent_unit(" Percent "), is_percent_unit("Mbit/s"), is_percent_unit(None)
    (True, True, False, False)
    """
    return unit is not None and str(unit).strip().lower() in _PERCENT_UNITS


def grade_parsed(parsed, texts, expected, bases, display_units, display_factors, rtol, atol,
                 sigfigs, alternatives=None, *, credit=None, accounting: str = "wire",
                 alternative_accountings=None, percent=None, nonnegative=None):
    """Verdicts and messages of answers already read: the one path of check and batch grading.

    :func:`check` calls it with one answer, :func:`labcalc.grading.grade` with a
    whole class, so that the same answer to the same question gets the same score,
    diagnosis and message in a notebook and in a batch.

    Parameters
    ----------
    parsed : sequence of ParsedAnswer
        The answers, read by :func:`parse_answer` in the question's unit.
    texts : sequence of str or None
        The answers as typed (a number as :func:`number_text`), quoted in messages.
    expected : ndarray of float
        Expected values [base units].
    bases : ndarray of str
        Base unit of each question (``"bit/s"``, ``"byte"``, ``"s"``, ``"1"``...).
    display_units : sequence of str
        The unit each question is asked in (``"Mbit/s"``, ``"%"``, ``""``...).
    display_factors : ndarray of float
        Size of each display unit [base units].
    rtol, atol, sigfigs : ndarray of float
        Tolerances (``atol`` in base units; ``sigfigs`` 0 for none).
    alternatives : dict of str to list of ndarray, optional
        Values of the context slips, as in
        :func:`labcalc.grading.diagnosis.evaluate`.
    credit : mapping, optional
        Credit per diagnosis.
    accounting : str, default "wire"
        Byte accounting of the expected values.
    alternative_accountings : sequence of str, optional
        Accounting of each ``wire_vs_shaper`` value, in order (see :func:`check`).
    percent : ndarray of bool, optional
        Which questions are shares asked in %; by default those whose display unit
        is a percentage (:func:`is_percent_unit`).
    nonnegative : ndarray of bool, optional
        Which answers cannot be negative; by default the shares in % and the
        rates, sizes, times and packet counts whose expected value is not negative.

    Returns
    -------
    out : dict of ndarray
        As :func:`labcalc.grading.diagnosis.evaluate` returns it.
    messages : list of str
        One message per answer.

    Examples
    --------
    >>> out, messages = grade_parsed([parse_answer("6.2", "%")], ["6.2"], np.array([0.062]),
    ...     np.array(["1"], object), ["%"], np.array([0.01]), np.array([0.01]), np.zeros(1),
    ...     np.zeros(1))
    >>> out["diagnosis"][0], float(out["score"][0])
    ('percent_fraction', 0.5)
    """
    units = [str(u) if u is not None else "" for u in display_units]
    expected = np.asarray(expected, float)
    bases = np.asarray(bases, object)
    given = np.array([p.value for p in parsed], float)
    status = np.array([p.status for p in parsed], object)
    if percent is None:
        percent = np.array([is_percent_unit(u) for u in units], bool)
    if nonnegative is None:
        nonnegative = (np.asarray(percent, bool) | np.isin(bases, list(NONNEGATIVE_NAME))) & (expected >= 0)
    # Near the ends of the float range (1e304, 1e-320) a candidate slip value may
    # overflow to inf or underflow to 0: such a candidate simply matches nothing.
    with np.errstate(over="ignore", under="ignore"):
        out = evaluate(given, status, expected, bases, rtol, atol, sigfigs, display_factors,
                       alternatives or {}, credit, percent=np.asarray(percent, bool),
                       nonnegative=np.asarray(nonnegative, bool))
    tolerances: dict[tuple, str] = {}
    messages = []
    for i, p in enumerate(parsed):
        k = (float(rtol[i]), float(atol[i]), int(sigfigs[i]) or None, float(display_factors[i]), units[i])
        tolerance = tolerances.get(k)
        if tolerance is None:
            tolerance = tolerances[k] = describe_tolerance(*k)
        rel = float(out["relative_error"][i])
        messages.append(build_message(
            diagnosis=out["diagnosis"][i], correct=bool(out["correct"][i]), score=float(out["score"][i]),
            text=texts[i], given=float(given[i]), relative_error=rel if math.isfinite(rel) else None,
            factor=float(out["factor"][i]), ratio=float(out["ratio"][i]), tolerance=tolerance,
            display_factor=float(display_factors[i]), display_unit=units[i],
            required_base=bases[i], given_base=p.unit, reason=p.reason, accounting=accounting,
            expected=float(expected[i]),
            other=_matched_accounting(out["alternative"][i], accounting, alternative_accountings),
        ))
    return out, messages


def _matched_accounting(index, accounting: str, names: Sequence[str] | None) -> str | None:
    """The accounting of the ``wire_vs_shaper`` alternative number ``index`` ("?": unnamed)."""
    names = tuple(names) if names is not None else other_accountings(accounting)
    index = int(index)
    if index < 0:
        return None
    return names[index] if index < len(names) else "?"


def _default_display(base: str) -> str:
    return {"bit/s": "Mbit/s", "byte": "bytes", "s": "ms", "1": "", "packet": "packets"}.get(base, "")
