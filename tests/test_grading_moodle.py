"""The exported quiz, graded by a model of Moodle's numerical question, agrees with ``labcalc grade``.

The model below is written from Moodle's own source (``question/type/numerical``:
``question.php`` and the answer processor in ``questiontype.php``, Moodle 4.x/5.x) and
is read from the exported XML text, never from labcalc's internal objects. Every
exported question of variants 1-3 is probed with each answer's value, the value at
0.98 and 1.02 of its tolerance on both sides, every slip's value, the right value
written in each unit spelling the question lists, and the right value typed in the
other ways Moodle reads a number (no unit, a + sign, exponents, a decimal comma,
thousands commas); the model's grade must equal ``labcalc.grading.grade`` on the same
response. The GIFT file is read by a model of Moodle's GIFT importer and by pygiftparser. The differences that remain (item 6 of issue 12, documented in
:mod:`labcalc.grading.export`) are pinned by their own tests at the end.
"""

from __future__ import annotations

import io
import math
import re
from xml.etree.ElementTree import fromstring

import pandas as pd
import pytest

from labcalc import grading
from labcalc.grading.export import MOODLE_FRACTIONS

SEEDS = (1, 2, 3)

# Moodle's unit grading types (qtype_numerical constants)
UNITOPTIONAL, UNITGRADEDOUTOFMARK, UNITGRADEDOUTOFMAX = 0, 1, 2
PHP_PRECISION = 14  # PHP's default ini "precision"


class MoodleNumerical:
    """A numerical question as Moodle grades it, built from one exported ``<question>``.

    Rules implemented (Moodle ``qtype_numerical``, read in moodle/moodle's
    ``question/type/numerical/questiontype.php`` and ``question.php``):

    - import (``save_question_options``, ``save_units``): each answer, tolerance and
      unit multiplier goes through ``apply_unit`` and is stored as a PHP float written
      as text, i.e. to ``ini precision`` (14) significant digits; a unit name repeated
      later in the list is dropped (``$unitalreadyinsert``);
    - answer processor ``apply_units``: spaces are removed from the response; an
      exponent written ``e``/``E``/``x10^``/``×10^``/``*10**`` becomes ``e``; if the
      response holds a ``.`` or more than one ``,``, every ``,`` is a thousands
      separator and removed, otherwise a single ``,`` is the decimal point (whatever
      the site language: ``str_replace(',', '.', ...)``); the number is the longest
      prefix matching ``[+-]?(\\d+(\\.\\d*)?|\\.\\d+)(e[-+]?\\d+)?`` (ASCII digits: PCRE
      without ``/u``), the rest is the unit; a unit that is a key of the question's
      unit list (exact, case-sensitive) gives the multiplier ``1 / unit_multiplier``,
      any other unit (or none) gives no multiplier;
    - ``get_matching_answer``: answers are tried in file order (``ORDER BY a.id``); for
      each, first the value times the multiplier (the value itself without one), then
      the bare value; the first answer whose interval holds either wins, and the unit
      counts as right only when the scaled value matched with a known unit;
    - ``within_tolerance`` with the "nominal" tolerance type (``$tolerancetype = 2``,
      which every imported answer has): ``[answer - t, answer + t]`` with ``t =
      tolerance + 10^-precision * max(tolerance, |answer|, 10^-precision)``, both ends
      included;
    - ``apply_unit_penalty``: a unit that is not right costs ``unitpenalty * fraction``
      (type 1, "of the mark for the response") or ``unitpenalty`` (type 2); type 0
      costs nothing; the grade is never below 0. No matching answer: 0. The model
      takes ``unitgradingtype`` from the file, as the site of issue 12 (Moodle 5.1) did;
      the stored copies of ``save_unit_options`` read here set it to 0 on every import
      that is not the editing form (``$options->unitgradingtype = 0`` unless
      ``unitrole`` is set), and on a site that does so a missing or wrong known unit
      costs nothing: check one imported question's "Unit handling" after an import.

    The grade is what the deferred-feedback behaviour stores when the attempt is
    finished (``process_finish`` grades every non-empty response; the validation
    messages of ``is_complete_response`` -- "Do not include a unit", "without the
    thousands separator" -- do not stop it).
    """

    def __init__(self, element):
        self.idnumber = element.find("idnumber").text
        self.answers = [(float(a.get("fraction")) / 100, _php_stored(a.find("text").text),
                         _php_stored(a.find("tolerance").text)) for a in element.findall("answer")]
        # the numbers as written in the file, before Moodle stores them
        self.written = [(float(a.get("fraction")) / 100, float(a.find("text").text),
                         float(a.find("tolerance").text)) for a in element.findall("answer")]
        self.units = {}
        for u in element.findall("units/unit"):
            self.units.setdefault(u.find("unit_name").text, _php_stored(u.find("multiplier").text))
        self.unitgradingtype = int(element.find("unitgradingtype").text)
        self.unitpenalty = float(element.find("unitpenalty").text)

    _NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?", re.ASCII)

    def apply_units(self, response: str):
        response = response.replace(" ", "")
        response = re.sub(r"(?:e|E|(?:x|\*|×)10(?:\^|\*\*))([+-]?\d+)", r"e\1", response)
        if "." in response or response.count(",") > 1:
            response = response.replace(",", "")
        else:
            response = response.replace(",", ".")  # a lone comma is the decimal point
        match = self._NUMBER.match(response)
        if not match:
            return None, None, None
        unit = response[match.end():]
        multiplier = 1 / self.units[unit] if unit in self.units else None
        return float(match.group(0)), unit, multiplier

    @staticmethod
    def within(answer: float, tolerance: float, value: float, tolerancetype: int = 2) -> bool:
        """``qtype_numerical_answer::within_tolerance``: type 1 "relative", 2 "nominal"
        (every numerical answer: ``$tolerancetype = 2``, which no import changes; the
        other two are the calculated question's), 3 "geometric"."""
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
            raise ValueError(f"unknown tolerance type {tolerancetype}")
        return lo <= value <= hi

    def grade(self, response: str) -> float:
        value, _, multiplier = self.apply_units(response)
        if value is None:
            return 0.0
        scaled = value * multiplier if multiplier is not None else value
        for fraction, answer, tolerance in self.answers:
            if self.within(answer, tolerance, scaled):
                unit_right = multiplier is not None
                break
            if self.within(answer, tolerance, value):
                unit_right = False
                break
        else:
            return 0.0
        if not unit_right:
            if self.unitgradingtype == UNITGRADEDOUTOFMARK:
                fraction -= self.unitpenalty * fraction
            elif self.unitgradingtype == UNITGRADEDOUTOFMAX:
                fraction -= self.unitpenalty
        return max(fraction, 0.0)


def _php_stored(text: str) -> float:
    """A number of the XML as Moodle stores it: a PHP float written to 14 significant digits."""
    return float(f"{float(text):.{PHP_PRECISION}g}")


def _number(x: float) -> str:
    return repr(float(x))


def _questions(xml: str):
    root = fromstring(xml)
    return [MoodleNumerical(q) for q in root.findall("question") if q.get("type") == "numerical"]


def _unit_of(q: MoodleNumerical) -> str:
    return next(iter(q.units), "")


# generic slips, as factors on the right value: bytes/bits, 1000, 1024^k, 100, and pairs
_SLIP_FACTORS = sorted({f ** s * g ** u for f in (8.0, 1000.0, 1.024, 1.024 ** 2, 1.024 ** 3, 100.0)
                        for g in (1.0, 8.0, 1000.0) for s in (1, -1) for u in (1, -1)} - {1.0})


def _probes(q: MoodleNumerical, context=()):
    """Responses for one question: answer values, 0.98/1.02 of each tolerance, slip values
    (generic factors on the right value, and the key's context values ``context`` in the
    question's unit, with the generic factors on top), unit spellings."""
    unit = _unit_of(q)
    out = [("slip", f"{_number(c * f)} {unit}".strip()) for c in (q.answers[0][1], *context)
           for f in (1.0, *_SLIP_FACTORS)]
    for _, value, tol in q.answers:
        for x in (value, value - 0.98 * tol, value + 0.98 * tol, value - 1.02 * tol, value + 1.02 * tol):
            out.append(("band", f"{_number(x)} {unit}".strip()))
    right = q.answers[0][1]
    for name, multiplier in list(q.units.items())[1:]:
        out.append(("unit", f"{_number(right * multiplier)} {name}"))
    out += [("form", text) for text in _forms(right, unit)]
    return out


def _forms(value: float, unit: str):
    """The right value typed in the other ways Moodle reads a number: without its unit,
    the unit glued to the number, a + sign, an exponent (e, E, x10^, ×10^, *10**), a
    decimal comma (not before exactly three digits, see the known differences), commas
    between thousands with a decimal point."""
    text = _number(value)
    mantissa, exponent = f"{value:.16e}".split("e")
    e = int(exponent)
    forms = [f"{text}{unit}", f"+{text} {unit}", f"{mantissa}e{e} {unit}", f"{mantissa}E{exponent} {unit}",
             f"{mantissa}x10^{e} {unit}", f"{mantissa}\u00d710^{e} {unit}", f"{mantissa}*10**{e} {unit}"]
    if unit:
        forms.append(text)  # no unit: Moodle's unit penalty, labcalc's "no unit"
    if "." in text and "e" not in text and len(text.split(".")[1]) != 3:
        forms.append(f"{text.replace('.', ',')} {unit}")
    if abs(value) >= 1000:
        forms.append(f"{value:,.9f} {unit}")
    return [f.strip() for f in forms]


@pytest.fixture(scope="module")
def xml():
    return grading.moodle_xml("lab5", SEEDS)


@pytest.fixture(scope="module")
def graded(xml):
    rows, moodle = [], []
    for q in _questions(xml):
        _, qid, seed = re.fullmatch(r"(lab5)-(.+)-v(\d+)", q.idnumber).groups()
        key = grading.answer_key("lab5", int(seed))
        i = key.index(qid)
        factor = key.display_factors[i] if _unit_of(q) else 1.0
        context = [v[i] / factor for v in (*key.alternatives.values(), *key.other_values.values())
                   if math.isfinite(v[i])]
        for kind, response in _probes(q, context):
            rows.append({"student": f"s{len(rows)}", "question": qid, "variant": int(seed),
                         "answer": response, "kind": kind})
            moodle.append(q.grade(response))
    result = grading.grade(pd.DataFrame(rows).drop(columns="kind"), "lab5")
    detail = result.detail.set_index("student").reindex([r["student"] for r in rows])
    return rows, moodle, detail


def _moodle_grade_of(score: float) -> float:
    """labcalc's share as Moodle stores it: the nearest grade of Moodle's list."""
    return min(MOODLE_FRACTIONS, key=lambda f: abs(f - 100 * score)) / 100


def test_every_probe_gets_labcalcs_grade_in_moodle(graded):
    rows, moodle, detail = graded
    assert len(rows) > 20_000 and detail["score"].notna().all()
    labcalc = [_moodle_grade_of(s) for s in detail["score"]]
    wrong = [(r["question"], r["variant"], r["answer"], m, s, d)
             for r, m, s, d in zip(rows, moodle, labcalc, detail["diagnosis"]) if abs(m - s) > 1e-9]
    assert not wrong, f"{len(wrong)} of {len(rows)} differ, e.g. {wrong[:5]}"
    # the sweep reaches every kind of verdict: right, partial, nothing
    assert {0.0, 1.0} <= set(labcalc) and any(0 < s < 1 for s in labcalc)


def test_every_unit_spelling_is_right_in_both(graded):
    rows, moodle, detail = graded
    # the right value written in each listed spelling is right in both
    unit_rows = [i for i, r in enumerate(rows) if r["kind"] == "unit"]
    assert len(unit_rows) > 5000
    wrong = [(rows[i]["answer"], moodle[i], detail["score"].iloc[i]) for i in unit_rows
             if not moodle[i] == detail["score"].iloc[i] == 1.0]
    assert not wrong, wrong[:5]


def test_units_cover_the_spellings_of_the_issue():
    q = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q4", "Q3", "Q29"]))
    names = {_unit_of(x): x.units for x in q}
    for spelling in ("Kbps", "mbit/s", "Mbit/sec", "kB/s", "Mbps"):
        assert spelling in names["Mbit/s"], spelling
    for spelling in ("Bytes", "kB", "KB", "B"):
        assert spelling in names["bytes"], spelling
    for spelling in ("sec", "msec", "s", "us", "µs"):
        assert spelling in names["ms"], spelling
    assert names["Mbit/s"]["Kbps"] == 1000 and names["bytes"]["KB"] == pytest.approx(1e-3)
    # how many units a question carries (reported in the export's documentation)
    assert (len(names["Mbit/s"]), len(names["bytes"]), len(names["ms"])) == (207, 90, 50)


def test_numbers_are_plain_decimals(xml):
    gift = grading.gift("lab5", SEEDS)
    numbers = re.findall(r"<(?:text|tolerance|multiplier)>([-+0-9.eE]+)</", xml)
    numbers += re.findall(r"=%[0-9.]+%([^:#]+):([^#]+)#", gift)
    flat = [n for pair in numbers for n in (pair if isinstance(pair, tuple) else (pair,))]
    assert len(flat) > 10_000 and not [n for n in flat if "e" in n.lower()]


def test_the_written_band_is_labcalcs_band():
    # Q4 variant 1 (issue 12, item 2): the shaper answer, then the 1.024 slip up to 2.9264
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q4"]))
    key = grading.answer_key("lab5", 1)
    i = key.index("Q4")
    value = key.values[i] / 1e6
    tol = (key.atol[i] + key.rtol[i] * abs(key.values[i])) / 1e6
    assert q.answers[0][1] == pytest.approx(value, rel=1e-12)
    assert q.answers[0][2] == pytest.approx(tol * (1 + 1e-9), rel=1e-9)
    binary = value * 1.024
    band = 0.5 * tol * 1.024 * (1 + 1e-9)
    # the slip's band is split where the shaper's value is closer (both 75 %); its
    # upper edge is labcalc's, no longer cut at the shaper's band (2.9130)
    edge = min((a + t for f, a, t in q.answers if f == 0.75), key=lambda x: abs(x - binary - band))
    assert edge == pytest.approx(binary + band, rel=1e-9)
    assert binary + band == pytest.approx(2.9264, abs=1e-4)
    assert q.grade(f"{binary} Mbit/s") == 0.75
    assert q.grade(f"{binary + 0.99 * band} Mbit/s") == 0.75
    assert q.grade(f"{binary + 1.01 * band} Mbit/s") == 0.0


def test_slips_of_issue_12_are_exported():
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q4"]))
    right = q.answers[0][1]
    # 1024^2 and 1024^3 prefix slips, and two slips at once (/8 and /1000)
    assert q.grade(f"{right * 1.024 ** 2} Mbit/s") == 0.75
    assert q.grade(f"{right * 1.024 ** 3} Mbit/s") == 0.75
    assert q.grade(f"{right / 8000} Mbit/s") == 0.25


def test_tolerance_types_of_the_model():
    within = MoodleNumerical.within
    # nominal: answer +- tolerance (what the export relies on), both ends included
    assert within(10.0, 0.5, 10.5) and within(10.0, 0.5, 9.5) and not within(10.0, 0.5, 10.5001)
    # relative: answer +- |answer| x tolerance; geometric: answer / (1 + t) .. answer x (1 + t)
    assert within(10.0, 0.1, 11.0, 1) and not within(10.0, 0.1, 11.01, 1)
    assert within(10.0, 0.1, 11.0, 3) and within(10.0, 0.1, 10 / 1.1, 3) and not within(10.0, 0.1, 9.05, 3)
    # the export writes no tolerance type: every answer is nominal
    assert "tolerancetype" not in grading.moodle_xml("lab5", [1], answer_ids=["Q4"])


def test_a_zero_answer_is_the_interval_from_zero():
    zero = [(qid, s) for s in SEEDS for qid, v in zip(grading.answer_key("lab5", s).ids,
                                                      grading.answer_key("lab5", s).values) if v == 0]
    assert zero, "lab5 has loss answers of 0"
    qid, seed = zero[0]
    (q,) = _questions(grading.moodle_xml("lab5", [seed], answer_ids=[qid]))
    _, answer, tol = q.answers[0]
    assert answer == pytest.approx(tol)
    assert q.grade("-0.0009") == 0.0 and q.grade("0") == 1.0 and q.grade(_number(2 * tol)) == 1.0
    res = grading.grade(pd.DataFrame({"student": ["a", "b"], "question": [qid] * 2,
                                      "variant": [seed] * 2, "answer": ["-0.0009", "0"]}), "lab5")
    assert res.detail["score"].tolist() == [0.0, 1.0]


# -- what Moodle cannot do (documented in labcalc.grading.export) ---------------------

def _one(answer_id, seed, response):
    (q,) = _questions(grading.moodle_xml("lab5", [seed], answer_ids=[answer_id]))
    res = grading.grade(pd.DataFrame({"student": ["a"], "question": [answer_id], "variant": [seed],
                                      "answer": [response]}), "lab5")
    return q, q.grade(response), float(res.detail["score"].iloc[0])


def test_known_difference_wrong_known_unit_is_tried_as_a_bare_number():
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q4"]))
    right = q.answers[0][1]
    q, moodle, labcalc = _one("Q4", 1, f"{right} kbit/s")
    # labcalc: a prefix slip (half the points); Moodle: the right answer read bare,
    # minus the unit penalty (1.0 by default: nothing)
    assert labcalc == 0.5 and moodle == 0.0


def test_known_difference_percent_sign_on_a_share():
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q13.7"]))
    right = q.answers[0][1]
    q, moodle, labcalc = _one("Q13.7", 1, f"{100 * right} %")
    # labcalc reads "13.8 %" as the right share; Moodle drops the unknown unit, reads 13.8
    # and finds the percent/fraction slip (half the points, with "Do not include a unit")
    assert labcalc == 1.0 and moodle == 0.5


def test_a_decimal_comma_is_read_as_in_labcalc():
    # apply_units: without a "." and with one "," the comma is the decimal point, whatever
    # the site language (an English site only adds a "without the thousands separator"
    # validation message, which does not stop the grading when the attempt is finished)
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q13.7"]))
    text = f"{q.answers[0][1]:.4f}".replace(".", ",")
    q, moodle, labcalc = _one("Q13.7", 1, text)
    assert labcalc == moodle == 1.0
    assert q.apply_units("1,5")[0] == 1.5 and q.apply_units("1,234.5")[0] == 1234.5
    assert q.apply_units("2,456,789")[0] == 2456789 and q.apply_units("+3")[0] == 3
    assert q.apply_units("1.5e3")[0] == 1500 and q.apply_units("1.5x10^3")[0] == 1500


def test_known_difference_comma_before_three_digits():
    # "1,066": Moodle reads 1.066 (a lone comma is the decimal point); labcalc refuses
    # it as ambiguous (1.066 or 1066?) and asks for a point or no comma: no points
    (q,) = _questions(grading.moodle_xml("lab5", [0], answer_ids=["Q3"]))
    assert q.answers[0][1] == 1066
    q, moodle, labcalc = _one("Q3", 0, "1,066 bytes")
    assert q.apply_units("1,066 bytes")[0] == 1.066
    assert labcalc == 0.0 and moodle == 0.5  # Moodle: the kilo/mega slip of 1066 bytes
    q, moodle, labcalc = _one("Q3", 0, "1,066.0 bytes")  # with a point: thousands, in both
    assert labcalc == moodle == 1.0


def test_known_difference_spaces_inside_a_number_or_unit():
    # apply_units removes every space first; labcalc refuses a space inside a number or unit
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q4"]))
    text = f"{q.answers[0][1]:.4f}"
    for response in (f"{text[:4]} {text[4:]} Mbit/s", f"{text} M bit/s"):
        _, moodle, labcalc = _one("Q4", 1, response)
        assert moodle == 1.0 and labcalc == 0.0, response


def test_known_difference_text_labcalc_normalises():
    # Moodle: ASCII digits (PCRE \\d without /u) and str_replace(' ') only
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q4"]))
    text = f"{q.answers[0][1]:.4f}"
    arabic = text.translate(str.maketrans("0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"))
    for response in (f"{text}\u00a0Mbit/s", f"{text}\u202fMbit/s", f"{arabic} Mbit/s"):
        _, moodle, labcalc = _one("Q4", 1, response)
        assert moodle == 0.0 and labcalc == 1.0, response


def test_known_difference_grades_outside_moodles_list():
    # two slips at once keep the product of their credits (0.5 x 0.75 = 0.375); Moodle
    # accepts only its own grade list, so the quiz writes the nearest one (40 %)
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q4"]))
    right = q.answers[0][1]
    q, moodle, labcalc = _one("Q4", 1, f"{right * 1.024 / 1000} Mbit/s")
    assert labcalc == 0.375 and moodle == 0.4


# -- GIFT, read by an independent parser ----------------------------------------------

@pytest.mark.filterwarnings("ignore:'locale.getdefaultlocale' is deprecated:DeprecationWarning")
def test_gift_parses_to_the_answers_of_the_xml(xml):
    import pygiftparser.parser as parser  # in the "test" extra
    gift = grading.gift("lab5", SEEDS)
    parsed = parser.parseFile(io.StringIO(gift))
    questions = _questions(xml)
    assert len(parsed) == len(questions) > 100
    for p, q in zip(parsed, questions):
        assert p.valid and p.numeric
        got = [(a.fraction / 100, a.value, a.tolerance) for a in p.answers.answers]
        assert len(got) == len(q.written)
        for (fg, vg, tg), (fx, vx, tx) in zip(got, q.written):
            assert fg == pytest.approx(fx, abs=1e-7)
            assert vg == vx and tg == tx  # the same decimal text, read back exactly
        assert math.isfinite(got[0][1])


# -- GIFT, read by a model of Moodle's own GIFT importer ----------------------------------

_GIFT_WEIGHT = re.compile(r"^%-*([0-9]{1,2})\.?([0-9]*)%")
_PHP_NUMERIC = re.compile(r"^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$", re.ASCII)


def _moodle_gift_numerical(block: str):
    """One GIFT question as ``qformat_gift::readquestion`` reads a numerical question
    (moodle/moodle ``question/format/gift/format.php``): comment lines dropped, escaped
    ``\\: \\# \\= \\{ \\} \\~`` hidden first (``escapedchar_pre``), the name between
    ``::``, the answers between the first ``{`` and the first ``}``, ``#`` first means
    numerical, a ``~`` starts the wrong-answer feedback, the answers are split at every
    ``=``, a weight ``%w%`` must match ``^%-*([0-9]{1,2})\\.?([0-9]*)%`` (otherwise the
    answer is worth 100 %), ``#`` starts the feedback, ``a..b`` is a range (value the
    middle, tolerance half the width), ``x:t`` a value and a tolerance, and both must be
    PHP ``is_numeric``. Returns ``[(fraction, value, tolerance)]``, None for an error."""
    lines = [" " if line.strip().startswith("//") else line for line in block.split("\n")]
    text = "\n".join(lines).strip()
    text = text.replace("\\\\", "&&092;")
    for c, ph in zip(":#={}~", ("&&058;", "&&035;", "&&061;", "&&123;", "&&125;", "&&126;")):
        text = text.replace("\\" + c, ph)
    text = text.replace("&&092;", "\\")
    if text.startswith("::"):
        text = text[2:]
        end = text.find("::")
        if end >= 0:
            text = text[end + 2:].strip()
    start, finish = text.find("{"), text.find("}")
    if start < 0 or finish < 0:
        return None
    answertext = text[start + 1:finish].strip()
    if not answertext.startswith("#"):
        return None
    answertext = answertext[1:]
    if "~" in answertext:
        answertext = answertext[:answertext.index("~")]
    answers = answertext.split("=")
    answers[0] = answers[0].strip()
    if not answers[0]:
        answers.pop(0)
    out = []
    for answer in answers:
        answer = answer.strip()
        weight = 1.0
        if _GIFT_WEIGHT.match(answer):
            answer = answer[1:]
            end = answer.index("%")
            weight, answer = float(answer[:end]) / 100, answer[end + 1:]
        answer = answer.split("#", 1)[0].strip()
        if answer.find("..") > 0:
            lo, hi = answer.split("..", 1)
            if not (_PHP_NUMERIC.match(lo) and _PHP_NUMERIC.match(hi)):
                return None
            value = (float(hi) + float(lo)) / 2
            tol = float(hi) - value
        elif answer.find(":") > 0:
            value, tol = answer.split(":", 1)
            if not (_PHP_NUMERIC.match(value) and _PHP_NUMERIC.match(tol)):
                return None
            value, tol = float(value), float(tol)
        else:
            if not _PHP_NUMERIC.match(answer):
                return None
            value, tol = float(answer), 0.0
        out.append((weight, value, tol))
    return out


def test_gift_read_by_moodles_importer_rules_gives_the_xml_answers(xml):
    gift = grading.gift("lab5", SEEDS)
    blocks = [b for b in re.split(r"\n\s*\n", gift) if b.strip() and not b.strip().startswith("$CATEGORY")]
    questions = _questions(xml)
    assert len(blocks) == len(questions) > 100
    for block, q in zip(blocks, questions):
        got = _moodle_gift_numerical(block)
        assert got is not None, block[:200]
        assert got == q.written, q.idnumber
    # the rules themselves, on the forms the GIFT documentation shows
    assert _moodle_gift_numerical("::n::Q{#=%50%1..3#half}") == [(0.5, 2.0, 1.0)]
    assert _moodle_gift_numerical("Q{#1822:5}") == [(1.0, 1822.0, 5.0)]
    assert _moodle_gift_numerical("Q{#=%100%1.4e-05:0.1}") == [(1.0, 1.4e-05, 0.1)]


class MoodleGiftNumerical(MoodleNumerical):
    """A numerical question imported from GIFT: the answers of the file, no units, and
    ``qformat_default::defaultquestion`` + ``save_unit_options`` defaults for the rest
    (no unit list, ``unitgradingtype`` 0: a unit typed after the number is ignored by
    the grade, with the validation message "Do not include a unit")."""

    def __init__(self, answers):  # noqa: D107 - answers as _moodle_gift_numerical returns them
        self.written = answers
        self.answers = [(f, _php_stored(repr(v)), _php_stored(repr(t))) for f, v, t in answers]
        self.units, self.unitgradingtype, self.unitpenalty = {}, UNITOPTIONAL, 1.0


def test_gift_quiz_grades_the_number_as_labcalc_grades_it_with_the_unit(graded):
    # A GIFT question asks for "the number only" in the stated unit; Moodle grades that
    # number as labcalc grades the same number written with the question's unit.
    rows, _, detail = graded
    gift = grading.gift("lab5", SEEDS)
    blocks = [b for b in re.split(r"\n\s*\n", gift) if b.strip() and not b.strip().startswith("$CATEGORY")]
    by_id = {}
    for block in blocks:
        qid, seed = re.search(r"// lab5 (\S+), variant (\d+)", block).groups()
        by_id[qid, int(seed)] = MoodleGiftNumerical(_moodle_gift_numerical(block))
    wrong, n = [], 0
    for i, r in enumerate(rows):
        if r["kind"] not in ("band", "slip"):
            continue
        number = r["answer"].split(" ")[0]
        moodle = by_id[r["question"], r["variant"]].grade(number)
        labcalc = _moodle_grade_of(detail["score"].iloc[i])
        n += 1
        if abs(moodle - labcalc) > 1e-9:
            wrong.append((r["question"], r["variant"], r["answer"], moodle, labcalc))
    assert n > 15_000 and not wrong, f"{len(wrong)} of {n} differ, e.g. {wrong[:5]}"


def test_known_difference_gift_has_no_units():
    # GIFT cannot hold units: the unit typed after the number is not read. labcalc
    # converts "4690 kbit/s" (right); Moodle grades 4690 as a number of Mbit/s (the
    # kilo/mega slip, 50 %). The display unit after the number costs nothing in Moodle.
    block = grading.gift("lab5", [1], answer_ids=["Q4"]).split("\n\n")[1]
    q = MoodleGiftNumerical(_moodle_gift_numerical(block))
    right = q.answers[0][1]
    _, _, labcalc = _one("Q4", 1, f"{right * 1000} kbit/s")
    assert labcalc == 1.0 and q.grade(f"{right * 1000} kbit/s") == 0.5
    assert q.grade(f"{right} Mbit/s") == q.grade(f"{right}") == 1.0
