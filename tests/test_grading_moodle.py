"""The exported quiz, graded by the model of Moodle's numerical question, agrees with ``labcalc grade``.

The model (:mod:`labcalc.grading.moodle`) is pinned first against what a real Moodle 5.1
(English site, PHP 8.2) did with the exported quiz: one test per line of "What a real
Moodle 5.1 did" (issue 21) and per measured rule of the field notes, with the grade Moodle
gave. It is then used, built from the exported XML text (never from labcalc's internal
objects), to grade every exported question of variants 1-3 with each answer's value, the
value at 0.98 and 1.02 of its tolerance on both sides, every slip's value, the right
value written in each unit spelling the question lists, and the right value typed in the
other ways both read alike (no unit, a + sign, exponents, thousands commas with a point):
the model's grade must equal ``labcalc.grading.grade`` on the same response. A second
sweep types the right value of every exported question in the forms where the two differ
(commas, letter case, trailing punctuation, exponent forms, words after numbers): labcalc's
Moodle mode (``lms="moodle-en"``) must give Moodle's grade, with a message naming the
difference wherever labcalc alone would grade otherwise. The GIFT file is read by a model
of Moodle's GIFT importer and by pygiftparser. The differences that remain are pinned by
their own tests at the end.
"""

from __future__ import annotations

import functools
import io
import math
import re
from xml.etree.ElementTree import fromstring

import pandas as pd
import pytest

from labcalc import grading
from labcalc.grading.export import MOODLE_FRACTIONS, UNIT_CHOICES
from labcalc.grading.lms import moodle_question
from labcalc.units import parse_quantity
from labcalc.grading.moodle import (EXAMPLE_UNITS, SITE_LANGUAGES, UNITOPTIONAL, MoodleQuestion, php_stored,
                                    read_response, within_tolerance)

SEEDS = (1, 2, 3)


class MoodleNumerical(MoodleQuestion):
    """A :class:`MoodleQuestion` read from an exported ``<question>``, with its ID number and
    the numbers as written in the file (before Moodle stores them)."""

    @classmethod
    def of(cls, element) -> "MoodleNumerical":
        q = MoodleQuestion.from_xml(element)
        out = cls(q.answers, q.units, q.unitgradingtype, q.unitpenalty)
        object.__setattr__(out, "idnumber", element.find("idnumber").text)
        object.__setattr__(out, "written", [(float(a.get("fraction")) / 100, float(a.find("text").text),
                                             float(a.find("tolerance").text)) for a in element.findall("answer")])
        return out

    def grade(self, response: str, site="en") -> float:  # noqa: D102 - the fraction only
        return MoodleQuestion.grade(self, response, site).fraction

    def apply_units(self, response: str, site="en"):
        r = read_response(response, self.units, site)
        return r.value, r.unit, r.multiplier

    within = staticmethod(within_tolerance)


def _number(x: float) -> str:
    return repr(float(x))


def _questions(xml: str):
    root = fromstring(xml)
    return [MoodleNumerical.of(q) for q in root.findall("question") if q.get("type") == "numerical"]


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
    """The right value typed in the other ways Moodle and labcalc both read a number:
    without its unit, the unit glued to the number, a + sign, an exponent (e, E, x10^,
    ×10^, *10**), commas between thousands with a decimal point. (A lone decimal comma
    is read otherwise by an English Moodle site: see the second sweep.)"""
    text = _number(value)
    mantissa, exponent = f"{value:.16e}".split("e")
    e = int(exponent)
    forms = [f"{text}{unit}", f"+{text} {unit}", f"{mantissa}e{e} {unit}", f"{mantissa}E{exponent} {unit}",
             f"{mantissa}x10^{e} {unit}", f"{mantissa}\u00d710^{e} {unit}", f"{mantissa}*10**{e} {unit}"]
    if unit:
        forms.append(text)  # no unit: Moodle's unit penalty, labcalc's "no unit"
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
    assert (len(names["Mbit/s"]), len(names["bytes"]), len(names["ms"])) == (243, 106, 58)
    # the spellings of issue 21 that labcalc reads and Moodle can match
    for spelling in ("Mbit/S", "kbit/S", "MBIT/S", "Mbps"):
        assert spelling in names["Mbit/s"], spelling
    for spelling in ("octets", "Octets", "BYTES"):
        assert spelling in names["bytes"], spelling
    # the question text's examples are unit names of the question
    for unit, examples in EXAMPLE_UNITS.items():
        assert set(examples) <= set(names[unit]), unit


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
    # written at the precision the tolerance needs (issue 23 item 8): 2.8436 +- 0.0285
    assert (q.answers[0][1], q.answers[0][2]) == (2.8436, 0.0285)
    assert abs(q.answers[0][1] - value) <= 0.005 * tol and tol <= q.answers[0][2] <= 1.01 * tol
    binary = value * 1.024
    band = 0.5 * tol * 1.024 * (1 + 1e-9)
    # the slip's band is split where the shaper's value is closer (both 75 %); its
    # upper edge is labcalc's, no longer cut at the shaper's band (2.9130), up to the
    # rounding of the written edges (a hundredth of the band)
    edge = min((a + t for f, a, t in q.answers if f == 0.75), key=lambda x: abs(x - binary - band))
    assert edge == pytest.approx(binary + band, abs=0.005 * band)
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


# -- what a real Moodle 5.1 did (issue 21), one test per line, with the grade it gave ------
#
# Measured on an English site (PHP 8.2, PostgreSQL 15) with the exported quiz: the
# responses were graded by Moodle's own engine. The variants are those whose right
# answer is the number typed (Q4 v0 4.6904 Mbit/s, Q4 v2 8.8339 Mbit/s, Q3 v0 1066 bytes,
# Q13.7 v2 0.15867, Q13.3 a loss of 0).

@functools.lru_cache(maxsize=None)
def _one_question(answer_id, seed) -> MoodleNumerical:
    (q,) = _questions(grading.moodle_xml("lab5", [seed], answer_ids=[answer_id]))
    return q


def _labcalc(answer_id, seed, response, lms=None) -> pd.Series:
    res = grading.grade(pd.DataFrame({"student": ["a"], "question": [answer_id], "variant": [seed],
                                      "answer": [response]}), "lab5", lms=lms)
    return res.detail.iloc[0]


def _as_measured(q: MoodleNumerical) -> MoodleNumerical:
    """The question as the measured export held it: its display unit and the spellings of
    :func:`labcalc.units.unit_spellings`, without the letter cases and octets added since."""
    from labcalc.units import unit_scale, unit_spellings

    display = _unit_of(q)
    kept = {display} | {name for name, _ in unit_spellings(unit_scale(display)[1])}
    return MoodleNumerical(q.answers, {k: v for k, v in q.units.items() if k in kept},
                           q.unitgradingtype, q.unitpenalty)


MEASURED = [
    # (line of the issue, answer id, variant, response, Moodle's grade, labcalc's own grade)
    ("1: a lone comma, 0,1587 read as 1587", "Q13.7", 2, "0,1587", 0.0, 1.0),
    ("1: 4,69 Mbit/s read as 469 Mbit/s", "Q4", 0, "4,69 Mbit/s", 0.0, 1.0),
    ("1: 8,834 Mbit/s read as 8834 (the x1000 slip)", "Q4", 2, "8,834 Mbit/s", 0.5, 0.0),
    ("1: 1,066 bytes read as 1066", "Q3", 0, "1,066 bytes", 1.0, 0.0),
    ("3: 1066 bytes. has the unit 'bytes.'", "Q3", 0, "1066 bytes.", 0.0, 1.0),
    ("3: 4.69 Mbps, loses its comma", "Q4", 0, "4.69 Mbps,", 1.0, 0.0),
    ("4: a power of ten written with a middle dot", "Q4", 0, "4.69 \u00b7 10^6 bit/s", 0.0, 1.0),
    ("4: a power of ten written with a capital X", "Q4", 0, "4.69 X 10^6 bit/s", 0.0, 1.0),
    ("5: text after a number on a question without units", "Q13.3", 0, "0 (no loss)", 1.0, 0.0),
]


@pytest.mark.parametrize("line, answer_id, seed, response, moodle, labcalc", MEASURED,
                         ids=[m[0] for m in MEASURED])
def test_what_a_real_moodle_did(line, answer_id, seed, response, moodle, labcalc):
    q = _one_question(answer_id, seed)
    assert q.grade(response) == pytest.approx(moodle, abs=1e-9)
    own = _labcalc(answer_id, seed, response)
    assert own["score"] == pytest.approx(labcalc, abs=1e-9)
    # Moodle mode: Moodle's grade, and a message naming the difference
    mode = _labcalc(answer_id, seed, response, lms="moodle-en")
    assert mode["score"] == pytest.approx(moodle, abs=1e-9) and mode["labcalc_score"] == own["score"]
    assert "but Moodle (site in English) will" in mode["message"] and own["message"] in mode["message"]


@pytest.mark.parametrize("line, answer_id, response, unit", [
    ("2: letter case, Mbit/S", "Q4", "4.69 Mbit/S", "Mbit/S"),
    ("2: octets", "Q3", "1066 octets", "octets"),
])
def test_what_a_real_moodle_did_with_unit_spellings_the_export_did_not_list(line, answer_id, response, unit):
    # Moodle gave 0 (labcalc 1): an unknown unit, the number taken without one, the unit
    # penalty. The export now lists the spelling: right in both.
    q = _one_question(answer_id, 0)
    measured = _as_measured(q)
    assert unit not in measured.units and unit in q.units
    assert measured.grade(response) == 0.0 and q.grade(response) == 1.0
    assert _labcalc(answer_id, 0, response)["score"] == 1.0
    assert _labcalc(answer_id, 0, response, lms="moodle-en")["score"] == 1.0
    # a letter case that is still not listed: Moodle 0, and Moodle mode says why
    other = response.replace(unit, unit.swapcase())
    mode = _labcalc(answer_id, 0, other, lms="moodle-en")
    assert q.grade(other) == 0.0 and mode["score"] == 0.0 and mode["labcalc_score"] == 1.0
    assert "letter for letter" in mode["message"] or "not one of the question's unit names" in mode["message"]


def test_what_moodle_reads_step_by_step_on_an_english_site():
    # the readings behind the measured grades (field notes: the thousands separator goes first)
    units = {"Mbit/s": 1.0, "bytes": 1.0}
    assert read_response("0,1587", {}).value == 1587
    assert read_response("4,69 Mbit/s", units).value == 469
    assert read_response("8,834 Mbit/s", units).value == 8834
    assert read_response("1,066 bytes", units).value == 1066
    assert read_response("1,066.5 bytes", units).value == 1066.5  # with a point: thousands, as labcalc
    assert read_response("2,456,789", {}).value == 2456789
    assert read_response("1066 bytes.", units).unit == "bytes." and read_response("1066 bytes.", units).multiplier is None
    assert read_response("4.69 Mbps,", {"Mbps": 1.0}).unit == "Mbps"
    assert read_response("4.69 \u00b7 10^6 bit/s", {}).value == 4.69
    assert read_response("4.69 X 10^6 bit/s", {}).value == 4.69
    for exponent in ("4.69e6", "4.69E6", "4.69x10^6", "4.69\u00d710^6", "4.69*10^6", "4.69*10**6"):
        assert read_response(exponent + " bit/s", {"bit/s": 1e-6}).value == 4.69e6, exponent
    assert read_response("0 (no loss)", {}).value == 0 and read_response("(none)", {}).value is None


def test_site_languages_are_the_language_packs():
    # Moodle's lang/en/langconfig.php; the fr and de packs of AMOS, version 4.5 (as mirrored in
    # github.com/projectestac/moodle-langpacks, fr/langconfig.php and de/langconfig.php, 2025-10-27):
    # fr decsep ',' thousandssep U+00A0 (bytes c2 a0), de decsep ',' thousandssep '.'
    assert {c: (l.decsep, l.thousandssep) for c, l in SITE_LANGUAGES.items()} == {
        "en": (".", ","), "fr": (",", "\u00a0"), "de": (",", ".")}


@pytest.mark.parametrize("response, en, fr, de", [
    ("4,69", 469.0, 4.69, 4.69),
    ("1,066", 1066.0, 1.066, 1.066),
    ("4.69", 4.69, 4.69, 4.69),
    ("1.066", 1.066, 1.066, 1.066),        # a '.' is kept as a decimal point, also in German
    ("1 066,5", 10665.0, 1066.5, 1066.5),   # spaces go first
    ("1\u00a0066,5", 1.0, 1066.5, 1.0),  # the French thousands separator is a no-break space
    ("1,234.5", 1234.5, 1234.5, 1234.5),
])
def test_the_model_reads_with_the_site_separators(response, en, fr, de):
    # Moodle's source (apply_units, str_replace in order) with each pack's separators;
    # only the English site was measured
    for site, want in (("en", en), ("fr", fr), ("de", de)):
        got = read_response(response, {}, site).value
        assert (got is None and want is None) or got == pytest.approx(want, rel=1e-12), (site, response)


def test_moodle_mode_in_french_and_german():
    for site in ("moodle-fr", "moodle-de"):
        mode = _labcalc("Q4", 0, "4,69 Mbit/s", lms=site)
        assert mode["score"] == 1.0 and mode["message"].startswith("Correct")
        mode = _labcalc("Q3", 0, "1,066 bytes", lms=site)  # 1.066 bytes there: the kilo slip
        assert mode["score"] == 0.5 and "reads ',' as a decimal separator" in mode["message"]


# -- the second sweep: every exported question, typed in the forms where Moodle and labcalc differ


def _differing_forms(value: float, unit: str, units) -> list[str]:
    """The right value typed with a comma, another letter case, punctuation after it, a
    power of ten Moodle does not read, and words after it."""
    text = f"{value:.6g}"
    out = [text.replace(".", ",") if "." in text else text[:-3] + "," + text[-3:] if len(text) > 3 else text,
           f"{value:.3f}".replace(".", ",")]
    mantissa, e = f"{value:.4e}".split("e")
    for times in (" \u00b7 10^", " X 10^", "\u00d710^", " x 10^", "*10^"):
        out.append(f"{mantissa}{times}{int(e)}")
    out = [f"{o} {unit}".strip() for o in out]
    if unit:
        for spelled in dict.fromkeys([unit.upper(), unit.lower(), unit[:-1] + unit[-1].upper(), unit.swapcase(),
                                      unit.capitalize()]):
            out.append(f"{text} {spelled}")
        for mark in (".", ",", ";", "!"):
            out.append(f"{text} {unit}{mark}")
        out += [f"{text} {unit} (approx.)", f"{text} {unit} roughly", f"{text}{unit}s"]
    else:
        out += [f"{text}.", f"{text},", f"{text} (no loss)", f"{text} approx", f"{text} %"]
    return out


@pytest.fixture(scope="module")
def differing(xml):
    rows, moodle = [], []
    for q in _questions(xml):
        _, qid, seed = re.fullmatch(r"(lab5)-(.+)-v(\d+)", q.idnumber).groups()
        for response in _differing_forms(q.right_answer(), _unit_of(q), q.units):
            rows.append({"student": f"s{len(rows)}", "question": qid, "variant": int(seed), "answer": response})
            moodle.append(q.grade(response))
    frame = pd.DataFrame(rows)
    own = grading.grade(frame, "lab5").detail.set_index("student").reindex(frame["student"])
    mode = grading.grade(frame, "lab5", lms="moodle-en").detail.set_index("student").reindex(frame["student"])
    return rows, moodle, own, mode


def test_moodle_mode_gives_moodles_grade_or_names_the_difference(differing):
    rows, moodle, own, mode = differing
    assert len(rows) > 2500
    # Moodle mode grades as Moodle does, every time
    wrong = [(r["question"], r["variant"], r["answer"], m, s) for r, m, s in zip(rows, moodle, mode["score"])
             if abs(m - s) > 1e-9]
    assert not wrong, f"{len(wrong)} of {len(rows)} differ from Moodle, e.g. {wrong[:5]}"
    # where labcalc alone grades otherwise, the message says that Moodle will, and why
    labcalc = [_moodle_grade_of(x) for x in own["score"]]
    differ = [i for i, (m, x) in enumerate(zip(moodle, labcalc)) if abs(m - x) > 1e-9]
    assert len(differ) > 1000  # the sweep reaches the differences it is about
    silent = [(rows[i]["answer"], mode["message"].iloc[i]) for i in differ
              if "but Moodle (site in English) will" not in mode["message"].iloc[i]
              or not re.search(r"\(([^()]|\([^()]*\))+\) and give", mode["message"].iloc[i])]
    assert not silent, f"{len(silent)} differences without a reason, e.g. {silent[:3]}"
    # and where both agree, the verdict is labcalc's own
    same = [i for i in range(len(rows)) if i not in set(differ) and own["score"].iloc[i] == moodle[i]]
    assert all(mode["message"].iloc[i] == own["message"].iloc[i] for i in same)
    # every kind of form is among the differences
    kinds = {re.sub(r"[0-9.e+-]+", "N", rows[i]["answer"]).split(" ")[-1][:6] for i in differ}
    assert len(kinds) > 10


def test_grades_outside_moodles_list_are_named_in_moodle_mode():
    q = _one_question("Q4", 1)
    right = q.right_answer()
    response = f"{right * 1.024 / 1000} Mbit/s"
    mode = _labcalc("Q4", 1, response, lms="moodle-en")
    assert q.grade(response) == mode["score"] == 0.4 and mode["labcalc_score"] == 0.375
    assert "Moodle gives 40 %: the nearest grade it accepts to labcalc's 37.5 %" in mode["message"]


def test_the_export_states_its_site_language_and_how_to_answer():
    root = fromstring(grading.moodle_xml("lab5", [1], answer_ids=["Q4", "Q13.7"], lms="moodle-de"))
    infos = [c.find("info/text").text for c in root if c.get("type") == "category"]
    assert all("Moodle site in German (decimal separator ',', thousands separator '.')" in i for i in infos)
    texts = [q.find("questiontext/text").text for q in root if q.get("type") == "numerical"]
    assert "a unit written exactly as listed, such as Mbit/s, kbit/s, Mbps or kB/s" in texts[0]
    # on a German site '.' is the thousands separator: Moodle flags a response holding one
    # (is_complete_response), so the text asks for the decimal comma
    assert "with a decimal comma and no thousands separator (4,5, not 4.5)" in texts[0]
    assert "Type the number alone" in texts[1]
    english = grading.moodle_xml("lab5", [1], answer_ids=["Q4"])
    assert "Moodle site in English (decimal separator '.', thousands separator ',')" in english
    assert "with a decimal point and no thousands separator (4.5, not 4,5)" in english


def test_the_spelling_the_text_says_moodle_does_not_read_is_not_listed(xml):
    # every rate question said "(Mbit/S is not read)" while the export lists Mbit/S, which
    # Moodle then reads: the example must be a letter case the question does not list
    by_id = {e.find("idnumber").text: e for e in fromstring(xml) if e.get("type") == "numerical"}  # parsed once
    for q in _questions(xml):
        if not q.units:
            continue
        element = by_id[q.idnumber]
        said = re.search(r"one by one \((\S+) is not read\)", element.find("questiontext/text").text).group(1)
        assert said not in q.units, (q.idnumber, said)
        right = q.answers[0][1]
        assert q.grade(f"{right} {said}") < 1.0, (q.idnumber, said)


def test_the_spellings_stay_within_the_size_budget():
    # the export's documentation: 28 MB for 20 variants before the letter-case variants,
    # a budget of 32 MB with them
    size = len(grading.moodle_xml("lab5", range(1, 21)))
    assert 28e6 < size <= 32e6


def test_cli_grades_in_moodle_mode_and_exports_for_a_site(tmp_path, capsys):
    from labcalc.cli import _LMS, main
    from labcalc.grading.moodle import LMS_NAMES

    assert tuple(_LMS) == LMS_NAMES
    answers = tmp_path / "answers.csv"
    answers.write_text('student,question,answer\nada,Q4,4.69 Mbit/s\nbob,Q4,"4,69 Mbit/s"\n', encoding="utf-8")
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g.csv"), "--feedback",
                 str(tmp_path / "f.csv"), "--lms", "moodle-en"]) == 0
    out = capsys.readouterr().out
    assert "graded as a Moodle site in English grades the exported quiz (lms moodle-en): 1 of 2 answers" in out
    feedback = pd.read_csv(tmp_path / "f.csv")
    assert feedback["points"].tolist() == [1, 0]
    assert "will read this as 469 Mbit/s" in feedback["message"].iloc[1]
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g2.csv"), "--lms", "moodle-en",
                 "--sigfigs", "3"]) == 2
    assert "sigfigs cannot be used with lms" in capsys.readouterr().err
    assert main(["export", "lab5", "--format", "moodle-xml", "--variants", "1", "--questions", "Q4",
                 "--lms", "moodle-fr", "-o", str(tmp_path / "q.xml")]) == 0
    assert "Moodle site in French" in (tmp_path / "q.xml").read_text(encoding="utf-8")
    assert "written for moodle-fr" in capsys.readouterr().out


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


def test_known_difference_spaces_inside_a_number_or_unit():
    # (from Moodle's source, not measured) apply_units removes every space first; labcalc refuses a space inside a number or unit
    (q,) = _questions(grading.moodle_xml("lab5", [1], answer_ids=["Q4"]))
    text = f"{q.answers[0][1]:.4f}"
    for response in (f"{text[:4]} {text[4:]} Mbit/s", f"{text} M bit/s"):
        _, moodle, labcalc = _one("Q4", 1, response)
        assert moodle == 1.0 and labcalc == 0.0, response


def test_known_difference_text_labcalc_normalises():
    # (from Moodle's source, not measured) Moodle: ASCII digits (PCRE \\d without /u) and str_replace(' ') only
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


def test_moodle_mode_never_gives_away_a_right_answer_the_student_did_not_type():
    # a suggestion ("type ... to get full marks from both") only re-spells what was typed:
    # a wrong answer (for labcalc and for Moodle) gets none. The unit of a suggestion is the
    # typed one as the question lists it, and only where labcalc reads both as the same unit:
    # '4.69 MB/s' (megabytes: 8 times too large) was told to type '4.69 Mb/s' (megabits)
    lms = "moodle-en"
    for answer_id, unit_names in (("Q4", ("MB/s", "kB/s", "MBps", "Gb/s")), ("Q3", ("b", "kB"))):
        asked = moodle_question("lab5", answer_id, 1)
        factor = asked.factor
        right = asked.question.answers[0][1] * factor
        for name in unit_names:
            for case in (name, name.upper(), name.lower(), name.swapcase()):
                try:
                    scale, _ = parse_quantity(f"1 {case}")
                except ValueError:
                    continue
                for times in (1.0, 8.0, 0.125, 1000.0):
                    text = f"{right * times / scale:.6g} {case}"
                    mine = grading.check_answer(answer_id, text, lab="lab5", seed=1)
                    if mine.score < 1 and asked.question.grade(text, lms).fraction < 1:
                        verdict = grading.check_cell(answer_id, text, lab="lab5", seed=1, lms=lms, quiet=True)
                        assert "to get full marks" not in verdict.message, (answer_id, text, verdict.message)
    message = grading.check_cell("Q4", "4.69 MB/s", lab="lab5", lms=lms, quiet=True).message
    assert "type" not in message and "it tries its answers in order" in message


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


def MoodleGiftNumerical(answers) -> MoodleNumerical:  # noqa: N802 - it builds a question
    """A numerical question imported from GIFT: the answers of the file, no units, and
    ``qformat_default::defaultquestion`` + ``save_unit_options`` defaults for the rest
    (no unit list, ``unitgradingtype`` 0: a unit typed after the number is ignored by
    the grade, with the validation message "Do not include a unit")."""
    q = MoodleNumerical(tuple((f, php_stored(repr(v)), php_stored(repr(t))) for f, v, t in answers), {},
                        UNITOPTIONAL, 1.0)
    object.__setattr__(q, "written", answers)
    return q


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


# -- hostile input: Moodle mode never stops a class, and the model reads any text ---------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = st.sampled_from(["4.69", "4,69", "1,066", "0", " ", ",", ".", "e6", "x10^6", "\u00d710^6", " \u00b7 10^",
                           "Mbit/s", "Mbit/S", "bytes.", "(no loss)", "%", "\u00a0", "-", "+", "1e999", "nan"])
TEXTS = st.one_of(st.text(max_size=30), st.lists(_PIECES, max_size=6).map("".join))


@settings(derandomize=True, deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, site=st.sampled_from(sorted(SITE_LANGUAGES)))
def test_the_model_reads_any_text(text, site):
    reading = read_response(text, {"Mbit/s": 1.0, "kbit/s": 1000.0}, site)
    assert reading.value is None or not math.isnan(reading.value)
    q = _one_question("Q4", 0)
    assert 0.0 <= q.grade(text, site) <= 1.0


@settings(derandomize=True, deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(cells=st.lists(TEXTS, min_size=1, max_size=4), lms=st.sampled_from(["moodle-en", "moodle-fr", "moodle-de"]))
def test_moodle_mode_grades_every_cell_of_a_class(cells, lms):
    frame = pd.DataFrame({"student": [f"s{i}" for i in range(len(cells))], "question": "Q4", "answer": cells})
    res = grading.grade(frame, "lab5", lms=lms)
    assert len(res.detail) + len(res.problems) == len(cells)  # graded, or reported (control characters)
    assert res.detail["score"].between(0, 1).all() and res.detail["message"].map(bool).all()


def test_moodle_mode_and_export_for_a_lab_outside_the_registry():
    from tests.labs_tiny import LAB

    key = grading.answer_key(LAB, 0)
    res = grading.grade(pd.DataFrame({"student": ["a", "b"], "question": [key.ids[0]] * 2,
                                      "answer": ["2,5 Mbit/s", "2.5 Mbit/s"]}), LAB, lms="moodle-en")
    assert key.values[0] == 2.5e6
    assert res.detail["score"].tolist() == [0.0, 1.0] and res.detail["labcalc_score"].tolist() == [1.0, 1.0]
    assert len(_questions(grading.moodle_xml(LAB, [1, 2]))) == 2 * len(key.ids)


# --- a Moodle on MySQL or MariaDB ---------------------------------------------------------------------
# question_numerical_units has a unique index on (question, unit); MySQL's utf8mb4_unicode_ci ignores
# letter case, so 'b/s' and 'B/s' (or 'Mbit/s' and 'Mbit/S') in one question stop the import with a
# duplicate key. The -mysql modes write one name per letter-case group and grade as that quiz.

def test_a_mysql_quiz_lists_each_unit_name_in_one_letter_case_only():
    xml = grading.moodle_xml("lab5", [1], answer_ids=["Q3", "Q4", "Q13.7"], lms="moodle-en-mysql")
    questions = [e for e in fromstring(xml) if e.get("type") == "numerical"]
    assert len(questions) == 3
    for q in questions:
        names = [u.find("unit_name").text for u in q.findall("units/unit")]
        assert len({n.casefold() for n in names}) == len(names), q.find("idnumber").text
    default = grading.moodle_xml("lab5", [1], answer_ids=["Q4"])
    rate = [e for e in fromstring(default) if e.get("type") == "numerical"][0]
    every = [(u.find("unit_name").text, float(u.find("multiplier").text)) for u in rate.findall("units/unit")]
    assert len({n.casefold() for n, _ in every}) < len(every)      # PostgreSQL's quiz keeps every case
    # the MySQL list, in the same order with the same multipliers: one name per group, the bit
    # spelling where a group mixes bits and bytes (a rate in bits), else the first listed
    groups = {}
    for name, multiplier in every:
        groups.setdefault(name.casefold(), []).append((name, multiplier))
    keep = {k: next((p for p in g if "B" not in p[0]), g[0]) if len({m for _, m in g}) > 1 else g[0]
            for k, g in groups.items()}
    kept = [p for p in every if keep[p[0].casefold()] == p]
    mysql_rate = [e for e in fromstring(xml) if e.get("type") == "numerical" and "Q4" in e.find("idnumber").text][0]
    assert [(u.find("unit_name").text, float(u.find("multiplier").text))
            for u in mysql_rate.findall("units/unit")] == kept
    assert kept[0] == ("Mbit/s", 1.0) and "Mbit/S" not in dict(kept) and dict(kept)["b/s"] == 1e6
    # a size in bytes keeps the byte spellings: B, kB, KiB (not b, kb, Kib: bits)
    size = [e for e in fromstring(xml) if e.get("type") == "numerical" and "Q3" in e.find("idnumber").text][0]
    sizes = {u.find("unit_name").text: float(u.find("multiplier").text) for u in size.findall("units/unit")}
    assert sizes["B"] == 1.0 and sizes["kB"] == 0.001 and sizes["KiB"] == 1 / 1024
    assert not {"b", "kb", "Kib"} & set(sizes)
    assert "on MySQL or MariaDB" in xml and "--lms moodle-en-mysql" in xml


def test_the_mysql_mode_grades_as_that_quiz():
    answers = pd.DataFrame({"student": ["ada", "bob"], "question": ["Q4", "Q4"],
                            "answer": ["4.69 Mbit/s", "4.69 Mbit/S"]})
    on_pg = grading.grade(answers, "lab5", lms="moodle-en").detail.set_index("student")
    on_mysql = grading.grade(answers, "lab5", lms="moodle-en-mysql").detail.set_index("student")
    assert on_pg.loc["bob", "score"] == 1.0 and on_mysql.loc["bob", "score"] == 0.0
    assert on_mysql.loc["ada", "score"] == 1.0 and on_mysql.loc["bob", "labcalc_score"] == 1.0
    assert "Mbit/s" in on_mysql.loc["bob", "message"]
    check = grading.cell_checker("lab5", lms="moodle-de-mysql")
    assert check("Q4", "4,69 Mbit/S", quiet=True).score == 0.0 and check("Q4", "4,69 Mbit/s", quiet=True).score == 1.0
