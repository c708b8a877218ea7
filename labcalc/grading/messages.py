"""The words of a verdict: messages, tolerances and slip hints for check and batch grading.

:func:`labcalc.grading.check` and :func:`labcalc.grading.grade` build their messages
here, so that the same answer gets the same sentence in a notebook and in a batch; the
quiz export (:mod:`labcalc.grading.export`) words its feedback with :func:`slip_hint`.

Examples
--------
>>> print(slip_hint("bytes_bits", 8.0, 8.0, "wire"))
it is 8 times too large: bytes and bits look mixed up (1 byte = 8 bits)
>>> describe_tolerance(0.01, 0.0, None, 1e6, "Mbit/s")
'1 %'
"""

from __future__ import annotations

import math

from labcalc.grading.diagnosis import CONTEXT_SLIPS, SLIPS, other_accounting, split_pair_factor
from labcalc.units import unit_scale

__all__ = ["NONNEGATIVE_NAME", "QUANTITY_NAME", "build_message", "describe_tolerance", "quote_answer",
           "slip_hint", "times_text"]

#: What each base unit measures, for messages (with its article).
QUANTITY_NAME = {"bit/s": "a rate", "byte": "an amount of data", "s": "a time",
                  "1": "a plain number", "packet": "a number of packets"}
# Units a suggestion may use, per base unit: (name, size in base units).
_SUGGEST_UNITS = {
    "bit/s": (("bit/s", 1.0), ("kbit/s", 1e3), ("Mbit/s", 1e6), ("Gbit/s", 1e9)),
    "byte": (("bytes", 1.0), ("kB", 1e3), ("MB", 1e6)),
    "s": (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)),
    "packet": (("packets", 1.0),),
}
#: What cannot be negative, per base unit (and for a share, asked in %): an answer to
#: such a question that is negative is refused (``nonnegative=`` of :func:`labcalc.grading.check`).
NONNEGATIVE_NAME = {"bit/s": "a rate", "byte": "an amount of data", "s": "a time",
                     "packet": "a number of packets", "%": "a loss or a share"}
# An example answer per display unit, for the message on an unreadable answer.
_EXAMPLE_ANSWER = {"bit/s": "4.69 Mbit/s", "byte": "1066 bytes", "s": "300 ms", "%": "6.2 %",
                   "1": "1.22", "packet": "12 packets"}
_EXAMPLE_UNIT = {"bit/s": "Mbit/s", "byte": "bytes", "s": "ms", "1": "%", "packet": "packets"}
# Longest answer text quoted back in a message.
_QUOTE_CHARS = 40


def quote_answer(text, limit: int = _QUOTE_CHARS) -> str:
    """Student text quoted for a message: stripped, clipped, control characters escaped.

    Parameters
    ----------
    text : object
        The answer as typed (any object is turned into text).
    limit : int, default 40
        Longest text quoted [characters]; a longer one ends in ``...``.

    Returns
    -------
    str
        The text in quotes (Python's ``repr``).

    Examples
    --------
    >>> quote_answer(" 4.69 Mbit/s "), quote_answer("x" * 50, 10)
    ("'4.69 Mbit/s'", "'xxxxxxx...'")
    """
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


def times_text(f: float) -> str:
    """How far a factor is from 1, in words (``8`` -> "8 times too large").

    Parameters
    ----------
    f : float
        Answer / expected [1], > 0.

    Returns
    -------
    str

    Examples
    --------
    >>> times_text(8.0), times_text(0.001)
    ('8 times too large', '1000 times too small')
    """
    return f"{_num(f)} times too large" if f > 1 else f"{_num(1 / f)} times too small"


def slip_hint(code: str, factor: float, ratio: float, accounting: str,
              other: str | None = None, percent_asked: bool = False, text: str | None = "") -> str:
    """Explanation of one slip, as the end of a sentence (it starts with "it ...").

    Parameters
    ----------
    code : str
        A slip code of :data:`labcalc.grading.SLIPS` (one slip, not a pair).
    factor : float
        The generic slip's factor (answer / expected) [1].
    ratio : float
        The context slip's value / expected [1].
    accounting : str
        Byte accounting of the expected value.
    other : str, optional
        Accounting the ``wire_vs_shaper`` value was computed in (by default
        :func:`labcalc.grading.diagnosis.other_accounting` of ``accounting``; ``"?"``
        for none named).
    percent_asked : bool, default False
        The question is asked in %.
    text : str, optional
        The answer as typed: with ``percent_asked`` it lets the hint say whether the %
        sign is missing or a fraction was written with one.

    Returns
    -------
    str

    Examples
    --------
    >>> slip_hint("kilo_mega", 0.001, 0.001, "wire")
    'it is 1000 times too small: check the prefix (k = 10^3, M = 10^6, m = 10^-3)'
    """
    big = factor > 1
    if code == "bytes_bits":
        return (f"it is {times_text(factor)}: bytes and bits look mixed up (1 byte = 8 bits)")
    if code == "kilo_mega":
        return f"it is {times_text(factor)}: check the prefix (k = 10^3, M = 10^6, m = 10^-3)"
    if code == "binary_prefix":
        off = f"{100 * abs(factor - 1):.2g}"
        return (f"it is {off} % too {'large' if big else 'small'}: in networking k means 1000 "
                f"and M 10^6, not 1024 and 1024^2")
    if code == "percent_fraction":
        typed = text if isinstance(text, str) else ""
        if percent_asked and factor < 1 and "%" in typed:
            return f"it is {times_text(factor)}: it looks like a fraction written with a % sign; multiply it by 100"
        if percent_asked and factor > 1 and typed.strip() and "%" not in typed:
            return (f"it is {times_text(factor)}: a number without a % sign is read as a fraction "
                    f"(0.25 is 25 %); add the % sign, or give the fraction between 0 and 1")
        return (f"it is {times_text(factor)}: write a percentage with its % sign or give the "
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
            own = decades(1.0 if display_unit.strip() == "1" else unit_scale(display_unit)[0])
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
        shown = quote_answer(_show(given, display_factor, display_unit)) if given == given else "''"
    else:
        shown = quote_answer(text)
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
        name = NONNEGATIVE_NAME.get("%" if display_unit == "%" else required_base, "this quantity")
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
            asked = f"{QUANTITY_NAME.get(required_base, required_base)} (in {unit})"
        return (f"Not correct: {shown} is {QUANTITY_NAME.get(given_base, given_base)}, but the "
                f"question asks for {asked}.")
    if diagnosis == "rounding":
        return (f"{credit}: {shown} is close but outside the tolerance of {tolerance}; keep more "
                f"digits in intermediate results.")
    if diagnosis:
        parts = diagnosis.split("+")
        context = [p for p in parts if p in CONTEXT_SLIPS]
        generic = [p for p in parts if p not in CONTEXT_SLIPS]
        hints = [slip_hint(p, 1.0, ratio / factor, accounting, other) for p in context]
        hints += [slip_hint(p, f, ratio, accounting, percent_asked=display_unit == "%", text=text)
                  for p, f in zip(generic, split_pair_factor(generic, factor))]
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

