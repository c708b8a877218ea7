"""What Moodle does with a typed answer: its numerical question, modelled for a site language.

A model of how Moodle's numerical question type reads and grades a response, so that
labcalc can tell a student, before Moodle grades them, where the two would differ
(:mod:`labcalc.grading.lms`), and so that the tests can grade an exported quiz as
Moodle would. The model follows what a real Moodle 5.1 did (English site, PHP 8.2;
responses graded by Moodle's own engine, measured by the project) and, where nothing
was measured, the source of ``question/type/numerical`` (``questiontype.php``: the
answer processor; ``question.php``: matching and grading):

1. **Reading** (``apply_units``). The response is trimmed, every plain space is removed
   (a no-break space stays), and a power of ten written ``e``, ``E``, ``x10^``,
   ``×10^``, ``*10^`` or with ``**`` becomes ``e`` (``·10^6`` and ``X10^6`` do not).
   If the text then holds a ``.`` or more than one ``,``, every ``,`` is removed
   (``1,234.5`` is 1234.5). Otherwise the site language's thousands separator is
   removed first, then its decimal separator and any ``,`` become ``.``: on an English
   site (``thousandssep`` ``,``) ``0,1587`` is 1587, ``4,69`` is 469 and ``1,066`` is
   1066, as the real Moodle read them; on a French or German site (``decsep`` ``,``)
   ``4,69`` is 4.69. The number is the longest start of the text of the form
   ``[+-]digits[.digits][e[+-]digits]`` (ASCII digits only); the rest, punctuation
   included, is the unit, matched against the question's unit names exactly, letter
   case included (``1066 bytes.`` has the unknown unit ``bytes.``; ``Mbit/S`` is not
   ``Mbit/s``).
2. **Matching** (``get_matching_answer``). The answers are tried in their order; for
   each, first the value converted by the unit's multiplier (when the unit is known),
   then the value as typed; the first answer whose interval ``[answer - tolerance,
   answer + tolerance]`` holds either wins, and the unit counts as right only when the
   converted value matched. Numbers are stored as PHP writes floats (14 significant
   digits).
3. **Grading** (``apply_unit_penalty``). A unit that is not right costs ``unitpenalty``
   times the answer's grade (``unitgradingtype`` 1) or ``unitpenalty`` (type 2); on a
   question without units (type 0) nothing, so text after the number is ignored there
   (``0 (no loss)`` is read as 0). No matching answer: 0.

The site language's separators come from Moodle's language packs
(``langconfig.php``: ``decsep``, ``thousandssep``), see :data:`SITE_LANGUAGES`.

The model is of the questions labcalc exports: the unit typed in the answer box after the
number (``showunits`` 0, ``unitsleft`` 0), nominal tolerances (the only type a numerical
question has), and a response graded whole, with no tries or penalties of a quiz
behaviour. A question edited in Moodle to take the unit from a menu (``showunits`` 1 or
2: ``apply_units`` is then given the chosen unit, and text typed after the number makes
the response invalid) is not modelled.

What a real Moodle 5.1 (English site) did with the exported quiz, where labcalc alone
grades otherwise, and the setting that comes closest (each is a test in
``tests/test_grading_moodle.py``; labcalc's Moodle mode, :mod:`labcalc.grading.lms`,
gives Moodle's grade with a message naming the difference):

- a lone comma: ``0,1587`` is read as 1587 (0 points; labcalc: right), ``4,69 Mbit/s``
  as 469 Mbit/s (0; labcalc: right), ``8,834 Mbit/s`` as 8834 (the ×1000 slip, 50 %;
  labcalc refuses it as ambiguous: 0), ``1,066 bytes`` as 1066 (right; labcalc: 0).
  A comma with a ``.`` is a thousands separator in both (``1,234.5``). Closest: the
  question text asks for a decimal point and no thousands separator;
- unit names are matched letter for letter: ``Mbit/S`` or ``octets`` that the export
  does not list is an unknown unit, the number is then taken without one and the unit
  penalty takes all of it (0; labcalc: right). Closest: the export lists the usual
  letter cases (:data:`labcalc.grading.export.UNIT_CHOICES`) and the text says to type
  a unit as listed;
- punctuation after the answer: ``1066 bytes.`` has the unknown unit ``bytes.`` (0;
  labcalc: right), while ``4.69 Mbps,`` loses its comma (the text holds a ``.``) and is
  right (labcalc refuses ``Mbps,``: 0). No setting changes this;
- powers of ten: ``4.69 · 10^6 bit/s`` and ``4.69 X 10^6 bit/s`` are 4.69 with an unknown
  unit (0; labcalc: right). Closest: the text asks for ``e`` (``4.69e6``);
- text after the number of a question without units: ``0 (no loss)`` is read as 0 and
  is right (labcalc refuses it as unreadable: 0). No setting changes this;
- a known but wrong unit (``4.69 kbit/s`` for 4.69 Mbit/s) matches the right answer as
  a bare number and loses the unit penalty (0 with the export's penalty of 1; labcalc:
  the prefix slip, 50 %). No setting gives the slip's credit;
- ``%`` on a share asked as a fraction (``13.8 %``) is read as 13.8: the percent/fraction
  slip, 50 %, with Moodle's "no unit" warning (labcalc: right). Closest: the question
  asks for a fraction without a unit;
- Moodle's grades are a fixed list: two slips at once (labcalc: 37.5 %) get the nearest
  grade the quiz can hold (40 %).

Read from Moodle's source and the language packs, not measured: a French or German site
reads a lone comma as the decimal separator (``4,69`` is 4.69, ``1,066`` is 1.066); a
German site still reads a ``.`` as a decimal point when the text holds one (``1.066`` is
1.066); Moodle removes only plain spaces (``4.69 M bit/s`` is read as ``Mbit/s``, and
a no-break space before the unit makes it unknown) and reads the digits 0-9 only. A
response that holds the site's thousands separator, when that is ``.`` or ``,``, is
graded as above but flagged as incomplete (``is_complete_response``, "Please enter your
answer without using the thousand separator"): in a quiz with deferred feedback it is
graded when the attempt is submitted; with interactive behaviour the Check button shows
the warning instead of grading, so the student can retype it (the grade above is what
the attempt gets if it is submitted as it is).

Examples
--------
>>> q = MoodleQuestion(answers=((1.0, 4.69, 0.05),), units={"Mbit/s": 1.0, "kbit/s": 1000.0},
...                    unitgradingtype=1, unitpenalty=1.0)
>>> q.grade("4.69 Mbit/s").fraction, q.grade("4690 kbit/s").fraction, q.grade("4,69 Mbit/s").fraction
(1.0, 1.0, 0.0)
>>> read_response("4,69 Mbit/s", q.units, "fr").value
4.69
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

__all__ = ["SiteLanguage", "SITE_LANGUAGES", "LMS_NAMES", "site_language", "unit_case_folded", "MoodleReading", "MoodleGrade",
           "MoodleQuestion", "read_response", "within_tolerance", "php_stored", "how_to_answer",
           "EXAMPLE_UNITS", "PHP_PRECISION", "UNITOPTIONAL", "UNITGRADEDOUTOFMARK", "UNITGRADEDOUTOFMAX"]

#: PHP's default ``precision`` ini setting: the significant digits of a float written as text.
PHP_PRECISION = 14
#: Moodle's unit grading types (``qtype_numerical`` constants).
UNITOPTIONAL, UNITGRADEDOUTOFMARK, UNITGRADEDOUTOFMAX = 0, 1, 2


@dataclass(frozen=True)
class SiteLanguage:
    """The separators of a Moodle site language (its language pack's ``langconfig.php``).

    Attributes
    ----------
    code : str
        Language code (``"en"``).
    name : str
        Its name in English (``"English"``).
    decsep : str
        Decimal separator.
    thousandssep : str
        Thousands separator.

    Examples
    --------
    >>> SITE_LANGUAGES["de"].decsep, SITE_LANGUAGES["de"].thousandssep
    (',', '.')
    """

    code: str
    name: str
    decsep: str
    thousandssep: str

    def separators(self) -> str:
        """The two separators in words.

        Examples
        --------
        >>> SITE_LANGUAGES["fr"].separators()
        "decimal separator ',', thousands separator a no-break space"
        """
        sep = "a no-break space" if self.thousandssep == "\u00a0" else repr(self.thousandssep)
        return f"decimal separator {self.decsep!r}, thousands separator {sep}"


#: The site languages labcalc models, with the separators of Moodle's language packs:
#: ``en`` from Moodle's own ``lang/en/langconfig.php`` (``.`` and ``,``); ``fr`` and
#: ``de`` from the packs Moodle distributes (AMOS, version 4.5, as mirrored in
#: projectestac/moodle-langpacks: ``fr/langconfig.php`` has ``decsep`` ``,`` and
#: ``thousandssep`` the no-break space U+00A0; ``de/langconfig.php`` has ``,`` and ``.``).
#: Only the English site was measured in a running Moodle.
SITE_LANGUAGES: Mapping[str, SiteLanguage] = MappingProxyType({
    "en": SiteLanguage("en", "English", ".", ","),
    "fr": SiteLanguage("fr", "French", ",", "\u00a0"),
    "de": SiteLanguage("de", "German", ",", "."),
})

#: Suffix of the LMS modes of a Moodle on MySQL or MariaDB (:func:`unit_case_folded`).
MYSQL_SUFFIX = "-mysql"
#: Names of the LMS modes (``labcalc grade --lms``): a Moodle site in each language, and the
#: same on MySQL/MariaDB.
LMS_NAMES = tuple(f"moodle-{code}" for code in SITE_LANGUAGES) + tuple(
    f"moodle-{code}{MYSQL_SUFFIX}" for code in SITE_LANGUAGES)


def unit_case_folded(lms) -> bool:
    """Whether the quiz of an LMS mode lists each unit name in one letter case only.

    Moodle keeps a question's units in a table with a unique index on (question, unit
    name) (``question_numerical_units``, ``question/db/install.xml``). On MySQL and
    MariaDB, whose collation for Moodle (``utf8mb4_unicode_ci``) ignores letter case,
    two spellings that differ only in case (``Mbit/s`` and ``Mbit/S``, ``b/s`` and
    ``B/s``) are one key: importing both stops with a duplicate-key error. The
    ``-mysql`` modes export the first spelling of each such group (the display unit's,
    then the order of :data:`labcalc.grading.export.UNIT_CHOICES`) and grade as that
    quiz. PostgreSQL, on which the quiz was measured, keeps them all.

    Parameters
    ----------
    lms : str or SiteLanguage
        An LMS name (:data:`LMS_NAMES`).

    Returns
    -------
    bool

    Examples
    --------
    >>> unit_case_folded("moodle-en"), unit_case_folded("moodle-de-mysql")
    (False, True)
    """
    return isinstance(lms, str) and lms.strip().lower().endswith(MYSQL_SUFFIX)


def site_language(lms) -> SiteLanguage:
    """The site language of an LMS name (``"moodle-en"``), a code (``"en"``) or a SiteLanguage.

    Parameters
    ----------
    lms : str or SiteLanguage
        ``"moodle-en"``, ``"moodle-fr"``, ``"moodle-de"`` (or ``"en"``, ``"fr"``, ``"de"``), each
        also with ``"-mysql"`` (:func:`unit_case_folded`).

    Returns
    -------
    SiteLanguage

    Raises
    ------
    ValueError
        For another name.

    Examples
    --------
    >>> site_language("moodle-fr").name
    'French'
    >>> site_language("blackboard")
    Traceback (most recent call last):
    ...
    ValueError: lms: 'blackboard' is not one of moodle-en, moodle-fr, moodle-de, moodle-en-mysql, moodle-fr-mysql, moodle-de-mysql (a Moodle site and its language)
    """
    if isinstance(lms, SiteLanguage):
        return lms
    code = str(lms).strip().lower()
    code = code[len("moodle-"):] if code.startswith("moodle-") else code
    code = code[:-len(MYSQL_SUFFIX)] if code.endswith(MYSQL_SUFFIX) else code
    if code not in SITE_LANGUAGES:
        raise ValueError(f"lms: {str(lms)[:40]!r} is not one of {', '.join(LMS_NAMES)} (a Moodle site and "
                         f"its language)")
    return SITE_LANGUAGES[code]


def php_stored(x) -> float:
    """A number as Moodle stores it from a file: a PHP float written to 14 significant digits.

    Parameters
    ----------
    x : float or str
        The number (as written in the file).

    Returns
    -------
    float

    Examples
    --------
    >>> php_stored("2.8436018957345977")
    2.8436018957346
    """
    return float(f"{float(x):.{PHP_PRECISION}g}")


def within_tolerance(answer: float, tolerance: float, value: float, tolerancetype: int = 2) -> bool:
    """Whether ``value`` is inside an answer's interval, as Moodle tests it.

    Parameters
    ----------
    answer : float
        The answer's value [the question's unit].
    tolerance : float
        Its tolerance [same unit for "nominal"; a fraction for the other two].
    value : float
        The response's value [the question's unit].
    tolerancetype : {1, 2, 3}, default 2
        1 "relative", 2 "nominal" (every numerical question's answers), 3 "geometric".

    Returns
    -------
    bool

    Notes
    -----
    ``qtype_numerical_answer::within_tolerance``: nominal is ``[a - t', a + t']`` with
    ``t' = t + 1e-14 max(t, |a|, 1e-14)`` (PHP's precision), both ends included;
    relative is ``a ± |a| (t + 1e-14)``; geometric ``a / q .. a q`` with ``q = 1 + t + 1e-14``.

    References
    ----------
    Moodle, ``question/type/numerical/question.php`` (``qtype_numerical_answer``).

    Examples
    --------
    >>> within_tolerance(10.0, 0.5, 10.5), within_tolerance(10.0, 0.5, 10.5001)
    (True, False)
    >>> within_tolerance(10.0, 0.1, 11.0, 1), within_tolerance(10.0, 0.1, 9.05, 3)
    (True, False)
    """
    eps = 10.0 ** -PHP_PRECISION
    if tolerancetype == 1:
        span = abs(answer) * (abs(tolerance) + eps)
        lo, hi = answer - span, answer + span
    elif tolerancetype == 2:
        t = tolerance + eps * max(abs(tolerance), abs(answer), eps)
        lo, hi = answer - t, answer + t
    elif tolerancetype == 3:
        quotient = 1 + abs(tolerance) + eps
        lo, hi = answer / quotient, answer * quotient
    else:
        raise ValueError(f"tolerancetype must be 1, 2 or 3; got {tolerancetype!r}")
    return lo <= value <= hi


@dataclass(frozen=True)
class MoodleReading:
    """What Moodle reads in a response (see :func:`read_response`).

    Attributes
    ----------
    value : float or None
        The number read; None when the response does not start with one.
    unit : str
        The text after the number, as Moodle compares it with the unit names.
    multiplier : float or None
        The factor from the typed unit to the question's first unit; None when the unit
        is not one of the question's (or there is none).
    text : str
        The response after Moodle's rewriting (spaces removed, exponents and separators).

    Examples
    --------
    >>> read_response("4.69 Mbit/S", {"Mbit/s": 1.0})
    MoodleReading(value=4.69, unit='Mbit/S', multiplier=None, text='4.69Mbit/S')
    """

    value: float | None
    unit: str
    multiplier: float | None
    text: str


# PHP's trim() characters, the exponent forms of apply_units, and its number (PCRE
# without /u: \d is an ASCII digit)
_PHP_TRIM = " \t\n\r\0\x0b"
_EXPONENT = re.compile("(?:e|E|(?:x|\\*|\u00d7)10(?:\\^|\\*\\*))([+-]?\\d+)", re.ASCII)
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?", re.ASCII)


def read_response(response: str, units: Mapping[str, float], site="en") -> MoodleReading:
    """Read a response as Moodle's answer processor does (``apply_units``).

    Parameters
    ----------
    response : str
        The response as typed.
    units : mapping of str to float
        The question's unit names and their multipliers (how many of the unit make one
        of the first unit); empty for a question without units.
    site : str or SiteLanguage, default "en"
        The site language (see :func:`site_language`).

    Returns
    -------
    MoodleReading

    Notes
    -----
    The steps of the module documentation, item 1. PHP's ``str_replace`` with lists
    applies each replacement to the result of the one before, so on an English site
    the thousands separator ``,`` is removed before any comma could become a point.

    References
    ----------
    Moodle 5.1, ``question/type/numerical/questiontype.php``
    (``qtype_numerical_answer_processor::apply_units``), and the responses of a real
    Moodle 5.1 site in English (the project's field notes).

    Examples
    --------
    >>> read_response("0,1587", {}).value, read_response("1,234.5", {}).value
    (1587.0, 1234.5)
    >>> read_response("4.69 · 10^6 bit/s", {}).unit
    '·10^6bit/s'
    >>> read_response("4.69x10^6 bit/s", {"bit/s": 1e-6}).value, read_response("1,066", {}, "de").value
    (4690000.0, 1.066)
    """
    lang = site_language(site)
    text = str(response).strip(_PHP_TRIM).replace(" ", "")
    text = _EXPONENT.sub(r"e\1", text)
    if "." in text or text.count(",") > 1:
        text = text.replace(",", "")
    else:
        for old, new in ((lang.thousandssep, ""), (lang.decsep, "."), (",", ".")):
            text = text.replace(old, new)
    match = _NUMBER.match(text)
    if not match:
        return MoodleReading(None, "", None, text)
    unit = text[match.end():]
    multiplier = 1.0 / units[unit] if unit in units else None
    return MoodleReading(float(match.group(0)), unit, multiplier, text)


@dataclass(frozen=True)
class MoodleGrade:
    """Moodle's grade of one response (see :meth:`MoodleQuestion.grade`).

    Attributes
    ----------
    fraction : float
        The share of the points [0..1].
    answer : int or None
        Index of the matching answer (None: no answer matched).
    unit_right : bool
        Whether the unit was known and the converted value matched.
    reading : MoodleReading
        What Moodle read.

    Examples
    --------
    >>> MoodleQuestion(((1.0, 2.0, 0.1),), {}, 0, 0.0).grade("2").answer
    0
    """

    fraction: float
    answer: int | None
    unit_right: bool
    reading: MoodleReading


@dataclass(frozen=True)
class MoodleQuestion:
    """A numerical question as Moodle stores and grades it.

    Attributes
    ----------
    answers : tuple of (float, float, float)
        ``(fraction 0..1, value, tolerance)`` of each answer, in the order Moodle tries
        them, values as stored (:func:`php_stored`).
    units : mapping of str to float
        Unit name -> multiplier (how many of it make one of the first unit); a name
        repeated later in the file is dropped on import, as Moodle does.
    unitgradingtype : int
        0 (units optional), 1 (penalty of the response's grade), 2 (of the maximum).
    unitpenalty : float
        The penalty for a unit that is not right [0..1].

    Examples
    --------
    >>> q = MoodleQuestion(((1.0, 1066.0, 0.5), (0.5, 1.066, 0.0005)), {"bytes": 1.0, "kB": 0.001}, 1, 1.0)
    >>> q.grade("1066 bytes").fraction, q.grade("1.066 kB").fraction, q.grade("1066 bytes.").fraction
    (1.0, 1.0, 0.0)
    >>> q.grade("1,066 bytes").fraction, q.grade("1,066 bytes", site="de").fraction
    (1.0, 0.5)
    """

    answers: tuple
    units: Mapping[str, float] = field(default_factory=dict)
    unitgradingtype: int = UNITOPTIONAL
    unitpenalty: float = 0.0

    @classmethod
    def from_xml(cls, element) -> "MoodleQuestion":
        """The question an import of a ``<question type="numerical">`` element stores.

        Parameters
        ----------
        element : xml.etree.ElementTree.Element
            The ``<question>`` element of a Moodle XML file.

        Returns
        -------
        MoodleQuestion

        Examples
        --------
        >>> import xml.etree.ElementTree as ET
        >>> e = ET.fromstring('<question type="numerical"><answer fraction="100"><text>1066</text>'
        ...     '<tolerance>0.5</tolerance></answer><unitgradingtype>0</unitgradingtype>'
        ...     '<unitpenalty>0</unitpenalty></question>')
        >>> MoodleQuestion.from_xml(e).answers
        ((1.0, 1066.0, 0.5),)
        """
        answers = tuple((float(a.get("fraction")) / 100, php_stored(a.find("text").text),
                         php_stored(a.find("tolerance").text)) for a in element.findall("answer"))
        units: dict[str, float] = {}
        for u in element.findall("units/unit"):
            units.setdefault(u.find("unit_name").text, php_stored(u.find("multiplier").text))
        grading = element.find("unitgradingtype")
        penalty = element.find("unitpenalty")
        return cls(answers, units, int(grading.text) if grading is not None else UNITOPTIONAL,
                   float(penalty.text) if penalty is not None else 0.0)

    def grade(self, response: str, site="en") -> MoodleGrade:
        """Moodle's grade of ``response`` (matching and unit penalty of the module documentation).

        Parameters
        ----------
        response : str
            The response as typed.
        site : str or SiteLanguage, default "en"
            The site language.

        Returns
        -------
        MoodleGrade

        Examples
        --------
        >>> q = MoodleQuestion(((1.0, 0.0, 0.001),), {}, 0, 0.0)
        >>> q.grade("0 (no loss)").fraction, q.grade("(none)").fraction
        (1.0, 0.0)
        """
        reading = read_response(response, self.units, site)
        if reading.value is None:
            return MoodleGrade(0.0, None, False, reading)
        value, multiplier = reading.value, reading.multiplier
        scaled = value * multiplier if multiplier is not None else value
        for k, (fraction, answer, tolerance) in enumerate(self.answers):
            if within_tolerance(answer, tolerance, scaled):
                unit_right = multiplier is not None
                break
            if within_tolerance(answer, tolerance, value):
                unit_right = False
                break
        else:
            return MoodleGrade(0.0, None, False, reading)
        if not unit_right:
            if self.unitgradingtype == UNITGRADEDOUTOFMARK:
                fraction -= self.unitpenalty * fraction
            elif self.unitgradingtype == UNITGRADEDOUTOFMAX:
                fraction -= self.unitpenalty
        return MoodleGrade(max(fraction, 0.0), k, unit_right, reading)

    def right_answer(self) -> float:
        """The value of the first answer with full marks [the question's first unit].

        Examples
        --------
        >>> MoodleQuestion(((0.5, 1.0, 0.1), (1.0, 2.0, 0.1))).right_answer()
        2.0
        """
        return next((a for f, a, _ in self.answers if f >= 1.0), math.nan)


#: Unit names a question's text shows as examples, per display unit (each is one of the
#: exported question's unit names: ``tests/test_grading_moodle.py`` checks it).
EXAMPLE_UNITS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "Mbit/s": ("Mbit/s", "kbit/s", "Mbps", "kB/s"),
    "bytes": ("bytes", "B", "kB"),
    "ms": ("ms", "s", "us"),
})


def how_to_answer(unit: str, site="en", listed=()) -> str:
    """How to type an answer so that Moodle reads it as labcalc does (for a question's text).

    Parameters
    ----------
    unit : str
        The unit the exported question asks in (``"Mbit/s"``, ``"bytes"``, ``"ms"``), or
        ``""`` for a number without a unit (a share asked as a fraction, a plain number).
    site : str or SiteLanguage, default "en"
        The site language the quiz is written for.
    listed : iterable of str, optional
        The unit names the question lists (the export's
        :data:`labcalc.grading.export.UNIT_CHOICES`): the example of a spelling Moodle
        does not read is none of them.

    Returns
    -------
    str
        One or two sentences.

    Notes
    -----
    What the measured rules (module documentation) make safe on every site: a decimal
    point (a comma only where the site's decimal separator is one), no thousands
    separator, a power of ten as ``e``, and a unit name typed exactly as listed. Where
    the site's thousands separator is ``.`` or ``,``, a response holding it is one
    Moodle reads but flags (``qtype_numerical_question::is_complete_response``:
    "Please enter your answer without using the thousand separator"; in an interactive
    quiz the Check button does not grade it): on a German site the text asks for the
    decimal comma only.

    Examples
    --------
    >>> print(how_to_answer("Mbit/s", listed=["Mbit/s", "Mbit/S", "MBit/s"]))
    Type the number with a decimal point and no thousands separator (4.5, not 4,5), a power of ten as e (4.5e6), then a unit written exactly as listed, such as Mbit/s, kbit/s, Mbps or kB/s: Moodle compares the letters of a unit one by one (MbIt/s is not read).
    >>> print(how_to_answer("", "fr"))
    Type the number alone, with a decimal point or a decimal comma and no thousands separator (4.5 or 4,5).
    """
    lang = site_language(site)
    if lang.decsep == "," and lang.thousandssep == ".":
        # a '.' is the site's thousands separator: Moodle still reads 4.5 as 4.5 when
        # grading, but warns that the answer holds a thousands separator
        number = "with a decimal comma and no thousands separator (4,5, not 4.5)"
    elif lang.decsep == ",":
        number = "with a decimal point or a decimal comma and no thousands separator (4.5 or 4,5)"
    else:
        number = "with a decimal point and no thousands separator (4.5, not 4,5)"
    if not unit:
        return f"Type the number alone, {number}."
    examples = EXAMPLE_UNITS.get(unit, (unit,))
    shown = ", ".join(examples[:-1]) + f" or {examples[-1]}" if len(examples) > 1 else examples[0]
    wrong = _unlisted_case(unit, listed)
    return (f"Type the number {number}, a power of ten as e (4.5e6), then a unit written exactly as listed, "
            f"such as {shown}: Moodle compares the letters of a unit one by one ({wrong} is not read).")


def _unlisted_case(unit: str, listed) -> str:
    """The unit in a letter case that is not among ``listed`` (an example of a spelling
    Moodle does not read): the export lists the usual cases (``Mbit/S`` is one)."""
    names = listed if isinstance(listed, (set, frozenset)) else set(listed)
    letters = [i for i, c in enumerate(unit) if c.isalpha()]
    candidates = [unit[:-1] + unit[-1].swapcase()]
    for i in letters[1:]:  # one letter inside the word in the other case: "MBit/s", "bYtes"
        candidates.append(unit[:i] + unit[i].swapcase() + unit[i + 1:])
    candidates += [unit.swapcase(), unit[0].swapcase() + unit[1:]]
    return next((c for c in candidates if c not in names and c != unit), unit.swapcase())

