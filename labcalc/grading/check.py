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
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from labcalc.grading.diagnosis import CONTEXT_SLIPS, SLIPS, evaluate, other_accounting, other_accountings
from labcalc.units import normalize_text, scale_value, split_quantity, unit_scale

__all__ = ["CheckResult", "ParsedAnswer", "check", "grade_parsed", "is_percent_unit", "parse_answer",
           "number_text", "display_scale"]

# What each base unit measures, for messages (with its article).
_QUANTITY_NAME = {"bit/s": "a rate", "byte": "an amount of data", "s": "a time",
                  "1": "a plain number", "packet": "a number of packets"}
# Units a suggestion may use, per base unit: (name, size in base units).
_SUGGEST_UNITS = {
    "bit/s": (("bit/s", 1.0), ("kbit/s", 1e3), ("Mbit/s", 1e6), ("Gbit/s", 1e9)),
    "byte": (("bytes", 1.0), ("kB", 1e3), ("MB", 1e6)),
    "s": (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)),
    "packet": (("packets", 1.0),),
}
_PERCENT_UNITS = ("%", "percent", "pct")
# What cannot be negative, per base unit (and for a share, asked in %), for messages.
_NONNEGATIVE_NAME = {"bit/s": "a rate", "byte": "an amount of data", "s": "a time",
                     "packet": "a number of packets", "%": "a loss or a share"}
# An example answer per display unit, for the message on an unreadable answer.
_EXAMPLE_ANSWER = {"bit/s": "4.69 Mbit/s", "byte": "1066 bytes", "s": "300 ms", "%": "6.2 %",
                   "1": "1.22", "packet": "12 packets"}
_EXAMPLE_UNIT = {"bit/s": "Mbit/s", "byte": "bytes", "s": "ms", "1": "%", "packet": "packets"}
# Longest answer text quoted back in a message.
_QUOTE_CHARS = 40


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
                                f"{_quote(answer)} has no unit")
        return ParsedAnswer(scale_value(number, factor), required, "ok")
    try:
        scale, base = unit_scale(unit_text)
    except ValueError as exc:
        text = str(exc).removeprefix("quantity: ")
        if "labcalc does not use" in text:
            reason = f"{_quote(unit_text, 20)} is not a unit of rate, size, time or share"
        elif "unknown unit" in text:
            reason = f"unknown unit {_quote(unit_text, 20)}"
        else:  # ambiguous ("Ms"), or a percentage mixed with another unit
            reason = text
        return ParsedAnswer(math.nan, None, "unreadable", reason)
    value = scale_value(number, scale)
    if unit is not None and base != required:
        return ParsedAnswer(value, base, "wrong_unit",
                            f"{_quote(answer)} is {_QUANTITY_NAME.get(base, base)}")
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


def _quote(text, limit: int = _QUOTE_CHARS) -> str:
    """Student text quoted for a message: clipped, control characters escaped."""
    text = str(text).strip()
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    quoted = repr(text)
    return quoted


def _num(x: float) -> str:
    if x == 0:
        return "0"
    return f"{x:.4g}".replace("e+0", "e+").replace("e-0", "e-")


def _show(value: float, factor: float, unit: str) -> str:
    shown = _num(value / factor)
    return f"{shown} {unit}".strip()


def _show_abs(value: float, factor: float, unit: str) -> str:
    """An absolute tolerance; on a percentage it is in percentage points."""
    if unit == "%":
        shown = _num(value / factor)
        return f"{shown} percentage point{'s' if shown != '1' else ''}"
    return _show(value, factor, unit)


def describe_tolerance(rtol: float, atol: float, sigfigs: int | None, factor: float,
                       unit: str) -> str:
    """Words for a tolerance, e.g. ``"1 %"`` or ``"1 % + 0.1 percentage points"``.

    The two parts add up (an answer is accepted within ``atol + rtol * |expected|``),
    and the words say so.

    Parameters
    ----------
    rtol, atol : float
        Relative tolerance [1] and absolute tolerance [base units].
    sigfigs : int or None
        Significant digits instead of ``rtol``.
    factor : float
        Size of ``unit`` in base units.
    unit : str
        Unit the absolute tolerance is shown in (``"%"``: percentage points).

    Returns
    -------
    str
        The tolerance in words.

    Examples
    --------
    >>> describe_tolerance(0.01, 0.0, None, 1e6, "Mbit/s")
    '1 %'
    >>> describe_tolerance(0.0, 0.5, None, 1.0, "bytes")
    '±0.5 bytes'
    >>> describe_tolerance(0.01, 0.001, None, 0.01, "%")
    '1 % + 0.1 percentage points'
    >>> describe_tolerance(0.02, 0.0005, 3, 1e-3, "ms")
    '3 significant digits + 0.5 ms'
    """
    if sigfigs:
        text = f"{int(sigfigs)} significant digit{'s' if sigfigs != 1 else ''}"
        return text + (f" + {_show_abs(atol, factor, unit)}" if atol else "")
    rel = f"{_num(100 * rtol)} %" if rtol else ""
    if rel and atol:
        return f"{rel} + {_show_abs(atol, factor, unit)}"
    return rel or (f"±{_show_abs(atol, factor, unit)}" if atol else "") or "exactly"


_ACCOUNTING_WORDS = {
    "wire": "the wire's accounting (every byte: preamble, headers, FCS and inter-frame gap)",
    "tc": "the Linux shaper's accounting (Ethernet header and IP packet only)",
    "frame": "the Ethernet frame's accounting (headers and FCS, no preamble or gap)",
    "ip": "the IP packet's accounting (IP packet only)",
}


def _times(f: float) -> str:
    return f"{_num(f)} times too large" if f > 1 else f"{_num(1 / f)} times too small"


def _hint(code: str, factor: float, ratio: float, accounting: str,
          other: str | None = None, percent_asked: bool = False, text: str | None = "") -> str:
    """Explanation of one slip, as the end of a sentence.

    ``factor`` is the generic slip's factor (answer / expected), ``ratio`` the context
    slip's value / expected; ``accounting`` is the accounting of the expected value and
    ``other`` the one the ``wire_vs_shaper`` value was computed in (by default
    :func:`labcalc.grading.diagnosis.other_accounting` of ``accounting``).
    ``percent_asked`` (the question is asked in %) and ``text`` (the answer as typed)
    let the hint say whether the % sign is missing or a fraction was written with one.
    """
    big = factor > 1
    if code == "bytes_bits":
        return (f"it is {_times(factor)}: bytes and bits look mixed up (1 byte = 8 bits)")
    if code == "kilo_mega":
        return f"it is {_times(factor)}: check the prefix (k = 10^3, M = 10^6, m = 10^-3)"
    if code == "binary_prefix":
        off = f"{100 * abs(factor - 1):.2g}"
        return (f"it is {off} % too {'large' if big else 'small'}: in networking k means 1000 "
                f"and M 10^6, not 1024 and 1024^2")
    if code == "percent_fraction":
        typed = text if isinstance(text, str) else ""
        if percent_asked and factor < 1 and "%" in typed:
            return f"it is {_times(factor)}: it looks like a fraction written with a % sign; multiply it by 100"
        if percent_asked and factor > 1 and typed.strip() and "%" not in typed:
            return (f"it is {_times(factor)}: a number without a % sign is read as a fraction "
                    f"(0.25 is 25 %); add the % sign, or give the fraction between 0 and 1")
        return (f"it is {_times(factor)}: write a percentage with its % sign or give the "
                f"fraction between 0 and 1")
    if code == "header_overhead":
        eff = ratio if ratio < 1 else 1 / ratio
        return (f"it is off by exactly the frame efficiency ({eff:.3f} = payload bytes / frame "
                f"bytes): count the header bytes of every frame")
    if code == "wire_vs_shaper":
        other = other or other_accounting(accounting)
        if other == "?":  # a value given as an alternative, in no accounting named
            return (f"it is the value in another byte accounting, but the question uses "
                    f"{_ACCOUNTING_WORDS.get(accounting, accounting)}")
        return (f"it is the value in {_ACCOUNTING_WORDS.get(other, other)}, but the question "
                f"uses {_ACCOUNTING_WORDS.get(accounting, accounting)}")
    if code == "rate_for_goodput":
        return "it is the link rate with headers, but the question asks for the goodput (application data only)"
    if code == "goodput_for_rate":
        return "it is the goodput (application data only), but the question asks for the rate on the link, headers included"
    return SLIPS.get(code, code)


def _suggested_unit(number: float, expected: float | None, base: str, display_unit: str) -> str:
    """The unit in which the bare ``number`` comes closest to ``expected`` (for a hint)."""
    choices = _SUGGEST_UNITS.get(base, ())
    if (not choices or expected is None or not math.isfinite(expected) or expected == 0
            or not math.isfinite(number) or number == 0 or (number > 0) != (expected > 0)):
        return display_unit
    # decades apart as a sum of logarithms: the product number * scale / expected
    # underflows to 0 (math domain error) or overflows for subnormal or huge numbers
    def decades(scale: float) -> float:
        return abs(math.log10(abs(number)) + math.log10(scale) - math.log10(abs(expected)))

    best = min(choices, key=lambda c: decades(c[1]))
    closest = decades(best[1])
    if display_unit:
        try:
            own = decades(display_scale(display_unit)[0])
        except ValueError:  # pragma: no cover - display units are known units
            own = math.inf
        if own <= closest + 0.5:  # the question's own unit unless another is much closer
            return display_unit
    return best[0]


def build_message(*, diagnosis, correct, score, text, given, relative_error, factor, ratio,
                  tolerance, display_factor, display_unit, required_base, given_base, reason,
                  accounting="wire", expected=None, other=None) -> str:
    """The one-sentence message for a graded answer (used by check and batch grading).

    Parameters
    ----------
    diagnosis, correct, score, relative_error, factor, ratio
        The verdict (see :func:`labcalc.grading.diagnosis.evaluate`).
    text : str or None
        The answer as typed (None for a number).
    given : float
        The answer [base units]; for a missing unit, the number read in the display unit.
    tolerance : str
        The tolerance in words (:func:`describe_tolerance`).
    display_factor, display_unit
        The unit the question is asked in and its size [base units].
    required_base, given_base : str
        Base units of the question and of the answer.
    reason : str
        Why the answer could not be read.
    accounting : str, default "wire"
        Accounting of the expected value (for ``wire_vs_shaper``).
    expected : float, optional
        Expected value [base units], to suggest a unit for a bare number.
    other : str, optional
        Accounting of the ``wire_vs_shaper`` value that matched (by default
        :func:`labcalc.grading.diagnosis.other_accounting` of ``accounting``; ``"?"``
        when it is in no accounting named).

    Returns
    -------
    str
        One or two sentences.

    Examples
    --------
    >>> print(build_message(diagnosis="unreadable", correct=False, score=0.0, text="4,690 kbit/s",
    ...     given=math.nan, relative_error=None, factor=1.0, ratio=math.nan, tolerance="1 %",
    ...     display_factor=1e6, display_unit="Mbit/s", required_base="bit/s", given_base=None,
    ...     reason="'4,690' is ambiguous (4.690 or 4690?); write it with a decimal point (4.690) "
    ...            "or without the comma (4690)"))
    Cannot read '4,690 kbit/s': '4,690' is ambiguous (4.690 or 4690?). Write it with a decimal point (4.690) or without the comma (4690).
    """
    if text is None:
        shown = _quote(_show(given, display_factor, display_unit)) if given == given else "''"
    else:
        shown = _quote(text)
    if correct:
        return f"Correct: {shown} is within {tolerance} of the expected value."
    if score >= 1.0:
        credit = "Accepted for full points"
    elif score > 0:
        credit = f"Partly right ({_num(100 * score)} % of the points)"
    else:
        credit = "Not correct"
    if diagnosis == "empty":
        return "No answer given."
    if diagnosis == "unreadable":
        example = _EXAMPLE_ANSWER.get("%" if display_unit == "%" else required_base, "4.69 Mbit/s")
        advice = f"Write a number followed by its unit, such as '{example}'."
        if required_base == "1" and display_unit != "%":
            advice = f"Write a plain number, such as '{example}'."
        if not reason or "does not start with a number" in reason:
            return f"Cannot read {shown}: {advice[0].lower()}{advice[1:]}"
        # a reason is "what is wrong; what to do": two sentences
        what, _, todo = reason.partition("; ")
        if todo:
            return f"Cannot read {shown}: {what}. {todo[0].upper()}{todo[1:]}."
        return f"Cannot read {shown}: {reason}. {advice}"
    if diagnosis == "negative":
        name = _NONNEGATIVE_NAME.get("%" if display_unit == "%" else required_base, "this quantity")
        return f"Not correct: {shown} is negative, and {name} cannot be negative."
    if diagnosis == "missing_unit":
        unit = display_unit or _EXAMPLE_UNIT.get(required_base, "")
        bare = text.strip() if isinstance(text, str) else shown.strip("'")
        number = given / display_factor if display_factor else math.nan
        unit = _suggested_unit(number, expected, required_base, unit)
        return (f"{credit}: {shown} has no unit, and the unit is not assumed; write it with "
                f"one, such as '{_clip(bare)} {unit}' if you mean {unit}.")
    if diagnosis == "wrong_unit":
        if display_unit == "%":
            asked = "a share (in %, or as a fraction between 0 and 1)"
        elif required_base == "1":
            asked = "a plain number, without a unit"
        else:
            unit = display_unit or _EXAMPLE_UNIT.get(required_base, "")
            asked = f"{_QUANTITY_NAME.get(required_base, required_base)} (in {unit})"
        return (f"Not correct: {shown} is {_QUANTITY_NAME.get(given_base, given_base)}, but the "
                f"question asks for {asked}.")
    if diagnosis == "rounding":
        return (f"{credit}: {shown} is close but outside the tolerance of {tolerance}; keep more "
                f"digits in intermediate results.")
    if diagnosis:
        parts = diagnosis.split("+")
        context = [p for p in parts if p in CONTEXT_SLIPS]
        generic = [p for p in parts if p not in CONTEXT_SLIPS]
        hints = [_hint(p, 1.0, ratio / factor, accounting, other) for p in context]
        hints += [_hint(p, f, ratio, accounting, percent_asked=display_unit == "%", text=text)
                  for p, f in zip(generic, _split_factor(generic, factor))]
        first = f"{shown} {hints[0][3:]}" if hints[0].startswith("it ") else hints[0]
        return f"{credit}: " + "; also, ".join([first] + hints[1:]) + "."
    if relative_error == relative_error and relative_error is not None:
        side = "above" if relative_error > 0 else "below"
        off = abs(100 * relative_error)
        off_text = f"{off:.0f}" if off >= 10 else f"{off:.2g}"
        return (f"Not correct: {shown} is {off_text} % {side} the expected value "
                f"(tolerance {tolerance}).")
    return f"Not correct: {shown} is outside the tolerance of {tolerance} around the expected value."


def _clip(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _split_factor(codes: list[str], factor: float) -> list[float]:
    """The factor of each generic slip of a pair whose product is ``factor``."""
    from labcalc.grading.diagnosis import _GENERIC

    if len(codes) < 2:
        return [factor] * len(codes)
    a, b = codes
    for fa in _GENERIC[a][0]:
        for ga in (fa, 1 / fa):
            for fb in _GENERIC[b][0]:
                for gb in (fb, 1 / fb):
                    if abs(ga * gb - factor) <= 1e-9 * abs(factor):
                        return [ga, gb]
    return [factor, 1.0]  # pragma: no cover - pairs are built from these factors


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
        nonnegative = expected_value >= 0 and (share or required in _NONNEGATIVE_NAME)
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
        nonnegative = (np.asarray(percent, bool) | np.isin(bases, list(_NONNEGATIVE_NAME))) & (expected >= 0)
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
