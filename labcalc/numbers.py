"""Reading a typed number: the text normalised, the number split from its unit.

Every answer, measurement cell and scenario value that a person typed goes through
here before its unit is read (:mod:`labcalc.units` reads the unit). The rules are the
ones :mod:`labcalc.units` lists: Unicode NFKC, invisible characters removed, digits of
any script, a decimal comma only where it is unambiguous, look-alike digits refused.

Examples
--------
>>> split_quantity("4,69 Mbit/s")
(4.69, 'Mbit/s')
>>> normalize_text("4.69\u200b Mbit/s")
'4.69 Mbit/s'
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata

__all__ = ["split_quantity", "normalize_text", "compatibility_digit", "clip_text", "INVISIBLE",
           "MAX_UNIT_CHARS", "UNIT_CHARS"]

# A number as students write it: optional sign (also the Unicode minus), ASCII digits
# (other scripts' digits are converted first, see normalize_text) with an optional
# decimal point or comma, thousands grouped by spaces or commas, an exponent.
_NUMBER = (
    r"[-+\u2212]?"
    r"(?:[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+(?:\.[0-9]*)?"  # 4 690 kbps
    r"|[0-9]{1,3}(?:,[0-9]{3}){2,}(?:\.[0-9]*)?"  # 1,000,000 (unambiguous thousands)
    r"|[0-9]{1,3}(?:,[0-9]{3})\.[0-9]*"  # 1,066.5
    r"|[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)"
    r"(?:[eE][-+\u2212]?[0-9]+)?"
)
_QUANTITY = re.compile(rf"^\s*({_NUMBER})\s*(.*?)\s*$", re.DOTALL)
# "4,690": 4.69 or 4690? A leading 0 ("0,062") can only be a decimal comma.
_AMBIGUOUS_COMMA = re.compile(r"^[-+\u2212]?[1-9][0-9]{0,2},[0-9]{3}(?:[eE][-+\u2212]?[0-9]+)?$")
# Letters, micro signs, "%", "/" and spaces only: no digits, powers or products, so
# that pint never has to compute anything (``bit^9^9^9`` would take forever).
UNIT_CHARS = re.compile(r"^[A-Za-z\u00b5\u03bc%/ ]*$")
#: Longest unit text read, so that a pasted paragraph is refused quickly.
MAX_UNIT_CHARS = 40
#: Characters that show nothing (zero-width space and joiners, bidirectional controls,
#: soft hyphen, word joiner, byte-order mark, variation selectors...): the Unicode
#: "default ignorable" code points a copy and paste brings along. Removed before parsing;
#: readers of student ids use it to refuse ids that hide such a character.
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U000e0000-\U000e0fff]"
)
_NON_ASCII_DIGIT_POINT = {"\u066b": ".", "\u066c": ","}  # Arabic decimal / thousands separator


@functools.lru_cache(maxsize=1024)
def _digit_look_alike(c: str) -> str | None:
    """What ``c`` is when NFKC would turn it into digits without it being a decimal digit."""
    if c.isascii() or unicodedata.category(c) == "Nd":
        return None
    if not any(unicodedata.category(d) == "Nd" for d in unicodedata.normalize("NFKC", c)):
        return None
    name = unicodedata.name(c, "")
    for word, kind in (("SUPERSCRIPT", "a superscript digit"), ("SUBSCRIPT", "a subscript digit"),
                       ("FRACTION", "a fraction sign"), ("CIRCLED", "a circled digit"),
                       ("PARENTHESIZED", "a digit in parentheses"), ("FULL STOP", "a digit with a point"),
                       ("COMMA", "a digit with a comma")):
        if word in name:
            return kind
    return "a special digit"


def compatibility_digit(text: str) -> tuple[str, str] | None:
    """The first character of ``text`` that only looks like a digit, and what it is.

    Unicode NFKC (see :func:`normalize_text`) turns superscript and subscript digits,
    circled digits and fraction signs into ordinary digits, which would silently merge
    them with the number (``"10⁶"`` would become 106, ``"1066²"`` 10662): answers
    holding one are refused. Decimal digits of every script (full-width, Arabic-Indic,
    Devanagari...) are ordinary digits, not look-alikes.

    Parameters
    ----------
    text : str
        An answer as typed.

    Returns
    -------
    tuple of str or None
        ``(character, kind)``, e.g. ``("⁶", "a superscript digit")``; None when there
        is none.

    Examples
    --------
    >>> compatibility_digit("10\u2076 bit/s")
    ('⁶', 'a superscript digit')
    >>> compatibility_digit("\uff14\uff16 Mbps"), compatibility_digit("\u0664\u0666 kbps")
    (None, None)
    """
    if text.isascii():
        return None
    for c in text:
        kind = _digit_look_alike(c)
        if kind is not None:
            return c, kind
    return None


def normalize_text(text: str) -> str:
    """An answer's text made comparable: NFKC, invisible characters removed, ASCII digits.

    Applied to every answer before it is read (:func:`split_quantity`,
    :func:`unit_scale`):

    - Unicode NFKC normalisation: full-width letters and digits become ASCII, the
      micro sign U+00B5 becomes the Greek mu U+03BC (both read as micro), no-break
      and thin spaces become plain spaces;
    - invisible characters are removed: zero-width spaces and joiners, bidirectional
      controls (U+202A-U+202E, U+2066-U+2069), soft hyphens, the byte-order mark...;
    - decimal digits of any script (Arabic-Indic ``"٤٦٩٠"``, Devanagari...) become
      ASCII digits, and the Arabic decimal separator U+066B a point, so that a number
      is read the same way whatever digits it is written with.

    NFKC also turns superscript, subscript and circled digits into ordinary ones
    (``"10⁶"`` becomes ``"106"``): readers of numbers refuse those first
    (:func:`compatibility_digit`).

    Parameters
    ----------
    text : str
        The text as typed.

    Returns
    -------
    str
        The normalised text (not stripped).

    Examples
    --------
    >>> normalize_text("4.69\\u200b Mbit/s"), normalize_text("300 \\u00b5s") == "300 \\u03bcs"
    ('4.69 Mbit/s', True)
    >>> normalize_text("\\u0664\\u0666\\u0669\\u0660 kbps"), normalize_text("\\uff14\\uff16 Mbps")
    ('4690 kbps', '46 Mbps')
    """
    if text.isascii():
        return text
    text = INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    if not text.isascii():
        text = "".join(
            str(unicodedata.decimal(c)) if c.isdecimal() and not c.isascii()
            else _NON_ASCII_DIGIT_POINT.get(c, c)
            for c in text
        )
    return text


def split_quantity(text: str) -> tuple[float, str]:
    """Split an answer such as ``"4.69 Mbit/s"`` into its number and its unit text.

    Only a number followed by a unit is accepted: no arithmetic, and the text is never
    evaluated. The text is first normalised (:func:`normalize_text`: NFKC, invisible
    characters removed, digits of any script). The number may use a decimal comma
    (``"4,69"``, ``"0,062"``), spaces or commas as thousands separators (``"4 690"``,
    ``"1,000,000"``), an exponent (``"4.69e6"``) and the Unicode minus sign.

    Parameters
    ----------
    text : str
        The answer as typed.

    Returns
    -------
    number : float
    unit : str
        The unit as typed, stripped (``""`` when there is none).

    Raises
    ------
    ValueError
        When the text does not start with a number, when a single comma followed by
        three digits makes the number ambiguous (``"4,690"``: 4.69 or 4690?), when it
        holds a character that only looks like a digit (a superscript, subscript or
        circled digit, a fraction sign: :func:`compatibility_digit`; ``"10⁶"`` would
        otherwise be read as 106), or when what follows the number cannot be a unit.

    Examples
    --------
    >>> split_quantity("4.69Mbps")
    (4.69, 'Mbps')
    >>> split_quantity(" 4 690 kbit/s ")
    (4690.0, 'kbit/s')
    >>> split_quantity("6,2 %"), split_quantity("0,062")
    ((6.2, '%'), (0.062, ''))
    >>> split_quantity("4,690 kbps")
    Traceback (most recent call last):
    ...
    ValueError: quantity: '4,690' is ambiguous (4.690 or 4690?); write it with a decimal point (4.690) or without the comma (4690)
    >>> split_quantity("10\u2076 bit/s")
    Traceback (most recent call last):
    ...
    ValueError: quantity: '⁶' is a superscript digit, which is not read as part of a number; write numbers with the digits 0 to 9 (10⁶ as 1e6, for instance)
    """
    if not isinstance(text, str):
        raise ValueError(f"quantity: expected text, got {type(text).__name__}")
    look_alike = compatibility_digit(text)
    if look_alike is not None:
        raise ValueError(f"quantity: {look_alike[0]!r} is {look_alike[1]}, which is not read as part "
                         f"of a number; write numbers with the digits 0 to 9 (10\u2076 as 1e6, for "
                         f"instance)")
    text = normalize_text(text)
    match = _QUANTITY.match(text)
    if not match:
        if re.match(r"\s*[-+\u2212]?\s*(inf|nan)", text, re.IGNORECASE):
            raise ValueError(f"quantity: {clip_text(text)!r} is not a finite number")
        raise ValueError(f"quantity: {clip_text(text)!r} does not start with a number")
    number, unit = match.group(1), match.group(2)
    unit = unit[:-1].rstrip() if unit.endswith(".") else unit  # "4.69 Mbit/s."
    if _AMBIGUOUS_COMMA.match(number):
        head, _, tail = number.partition(",")
        raise ValueError(
            f"quantity: {number!r} is ambiguous ({head}.{tail} or {head}{tail}?); write it "
            f"with a decimal point ({head}.{tail}) or without the comma ({head}{tail})"
        )
    cleaned = number.replace("\u2212", "-")
    for sep in (" ", "\u00a0", "\u202f"):
        cleaned = cleaned.replace(sep, "")
    if "," in cleaned:
        # either thousands separators (several commas, or a comma then a point) or a
        # decimal comma
        cleaned = cleaned.replace(",", "") if (cleaned.count(",") > 1 or "." in cleaned) \
            else cleaned.replace(",", ".")
    value = float(cleaned)
    if not math.isfinite(value):
        raise ValueError(f"quantity: {clip_text(text)!r} is not a finite number")
    if len(unit) > MAX_UNIT_CHARS or not UNIT_CHARS.match(unit):
        raise ValueError(f"quantity: {clip_text(unit)!r} after the number is not a unit")
    return value, unit


def clip_text(text: str, n: int = 40) -> str:
    """``text`` cut to ``n`` characters (with ``...``) for quoting in an error message.

    Parameters
    ----------
    text : str
        What to quote.
    n : int, default 40
        Longest result [characters].

    Returns
    -------
    str

    Examples
    --------
    >>> clip_text("4.69 Mbit/s"), clip_text("x" * 50, 10)
    ('4.69 Mbit/s', 'xxxxxxx...')
    """
    text = str(text)
    return text if len(text) <= n else text[: n - 3] + "..."
