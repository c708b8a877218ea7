"""Quiz export: every answer of a lab as Moodle questions, one category per question.

Each answer id becomes a category holding one "numerical" question per variant, so
that a Moodle quiz can draw a random variant from each category. A question carries:

- its text with the variant's numbers (:meth:`labcalc.labs.lab5.Answer.text`) and the
  unit to answer in;
- the answers in the order Moodle tries them (it takes the first whose interval
  ``[value - tolerance, value + tolerance]`` holds the response): the right value with
  labcalc's tolerance first, then one answer per stretch of numbers on which labcalc's
  grader gives one partial credit. The stretches come from the grader itself: every
  slip it tries (``diagnosis._candidates``: bytes/bits, 1000, 1024, 1024², 1024³,
  percent/fraction, the context slips, two slips at once) with its band (half the
  right answer's tolerance transformed by the slip), cut where the grader's other
  rules cut it (the slip closest to the response wins, the other accounting before a
  binary prefix, a response must sit clearly closer to the slip than to the key, none
  near 0); :func:`labcalc.grading.diagnosis.evaluate` is asked at the middle of every
  piece, so the quiz cannot drift from the grader. A slip band overlapping no other is
  written whole around the slip's value; a slip never reached by the grader (inside the
  right answer's band) is not written. Each carries the feedback labcalc would give;
- a right answer of 0 (a loss of 0) is the interval ``[0, tol]`` (value ``tol/2``,
  tolerance ``tol/2``): a negative response gets nothing, as in labcalc;
- the unit spellings labcalc's grammar reads for that kind of quantity
  (:func:`labcalc.units.unit_spellings`: 207 for a rate, 90 for a size, 50 for a
  time), the display unit first, each with Moodle's multiplier (``kbit/s`` is 1000 per
  ``Mbit/s``): Moodle matches unit names exactly, letter case included.

Every number is written in plain decimal notation (no exponent) with all the digits of
the float, so the written bands are labcalc's to about 1e-15.

Percentages (losses, shares) are asked as fractions between 0 and 1 and the text says
so: that is how :func:`labcalc.grading.grade` reads a bare number in a percent question
(``"0.25"`` is 25 %, a bare ``"25"`` is the percent/fraction slip), and Moodle reads
a number without a unit in the question's first unit, so a quiz asking "in %" would
grade a bare 0.25 differently from labcalc.

What Moodle cannot do (and the setting that comes closest; see also README, graders):

- a response with a known but wrong unit (``8.8339 kbit/s`` for 8.8339 Mbit/s) is
  tried converted, then as a bare number, so it matches the right answer and loses
  only the unit penalty, where labcalc credits the prefix slip (50 %). The export's
  ``unit_penalty=1`` (the default) gives it nothing, as labcalc gives for a missing
  unit; no setting gives the slip's credit;
- ``%`` on a share (``13.8 %``) is an unknown unit on a question without units: Moodle
  says "Do not include a unit" and grades 13.8, the percent/fraction slip (0.5), where
  labcalc reads 13.8 % (right). Asking for a fraction without a unit is the closest;
- a decimal comma is read by the site's language (an English site reads ``0,138`` as
  138; labcalc reads 0.138): ask for a decimal point, or use a site language whose
  decimal separator is the comma;
- Moodle removes the spaces of a response before it looks its unit up, so spellings
  with spaces (``Megabits per second``) cannot be listed;
- Moodle accepts only its own list of grades (:data:`MOODLE_FRACTIONS`): a credit of
  two slips at once such as 0.375 is written as the nearest (40 %).

Size: a rate question of lab5 has about 50 answers and 207 units (about 40 kB of XML);
300 variants of one question are exported in a few seconds (``benchmarks/bench_grading.py``).

:func:`moodle_xml` writes Moodle XML (built with :mod:`xml.etree.ElementTree`, so it is
always well-formed); :func:`gift` writes Moodle's GIFT text format, which has no units:
its questions ask for the number in the stated unit.

Examples
--------
>>> import xml.etree.ElementTree as ET
>>> root = ET.fromstring(moodle_xml("lab5", seeds=[1, 2], answer_ids=["Q4"]))
>>> [q.get("type") for q in root]
['category', 'numerical', 'numerical']
>>> print(gift("lab5", seeds=[1], answer_ids=["Q3"], slips=False).splitlines()[0])
$CATEGORY: $course$/top/labcalc/lab5/Q3
"""

from __future__ import annotations

import html
from decimal import Decimal
import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from labcalc.grading.check import is_percent_unit
from labcalc.grading.diagnosis import (CONTEXT_SLIPS, ROUNDING_FACTOR, SLIP_BAND, SLIPS, credit_table, evaluate,
                                       other_accountings, slip_candidates, tolerance_band)
from labcalc.grading.messages import NONNEGATIVE_NAME, slip_hint, times_text

__all__ = ["moodle_xml", "gift", "quiz_items", "MOODLE_FRACTIONS", "UNIT_CHOICES"]

#: The grades Moodle accepts for an answer [percent].
MOODLE_FRACTIONS = (100.0, 90.0, 83.33333, 80.0, 75.0, 70.0, 66.66667, 60.0, 50.0, 40.0,
                    33.33333, 30.0, 25.0, 20.0, 16.66667, 14.28571, 12.5, 11.11111, 10.0,
                    5.0, 0.0)

class _UnitChoices(Mapping):
    """Display unit -> the unit spellings written into a question, built when first asked.

    Derived from :func:`labcalc.units.unit_spellings` (the spellings the answer grammar
    accepts), so the quiz offers what ``labcalc grade`` reads. The display unit comes
    first with multiplier 1 (Moodle reads a bare number in its first unit); each other
    spelling carries Moodle's multiplier: how many of it make one display unit.
    """

    _DISPLAY = ("Mbit/s", "bytes", "ms", "%", "")

    def __init__(self):
        self._cache: dict[str, tuple[tuple[str, float], ...]] = {}

    def __getitem__(self, unit):
        if unit not in self._DISPLAY:
            raise KeyError(unit)
        if unit not in self._cache:
            if unit in ("%", ""):
                self._cache[unit] = ()  # asked as a fraction / a plain number: no unit
            else:
                from labcalc.units import unit_scale, unit_spellings

                size, base = unit_scale(unit)
                spellings = [(unit, size)] + [(n, f) for n, f in unit_spellings(base) if n != unit]
                self._cache[unit] = tuple((n, _clean(size / f)) for n, f in spellings)
        return self._cache[unit]

    def __iter__(self):
        return iter(self._DISPLAY)

    def __len__(self):
        return len(self._DISPLAY)


def _clean(x: float) -> float:
    """``x`` with the floating-point noise of a unit ratio removed (1000.0000000000001 -> 1000)."""
    return float(f"{x:.15g}")


#: Units offered for each display unit, with Moodle multipliers (how many of the unit
#: make one display unit); see :class:`_UnitChoices`.
UNIT_CHOICES: Mapping[str, Sequence[tuple[str, float]]] = _UnitChoices()

#: What the text asks for, per display unit without a unit field in the quiz.
_FORM_TEXT = {
    "%": " Give the answer as a fraction between 0 and 1, the number only (a share of "
         "25 % is 0.25).",
    "": " Give the answer as a plain number.",
}


def _nearest_fraction(share: float) -> float:
    return min(MOODLE_FRACTIONS, key=lambda f: abs(f - 100.0 * share))


def _fmt(x: float) -> str:
    """A number in plain decimal notation, never with an exponent, that reads back exactly.

    ``repr`` gives the shortest text that reads back as the same float; :mod:`decimal`
    writes it out without an exponent (``1.421801e-05`` -> ``0.00001421801``), which
    every GIFT reader understands (pygiftparser reads an exponent wrongly, gift-pegjs
    refuses it).
    """
    if x == 0:
        return "0"
    text = format(Decimal(repr(float(x))), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def quiz_items(lab: str = "lab5", seeds: Iterable[int] = range(1, 21), *,
               answer_ids: Sequence[str] | None = None, accounting: str = "wire",
               credit: Mapping[str, float] | None = None, slips: bool = True) -> list[dict]:
    """The questions of a quiz as plain data (what both export formats write).

    Parameters
    ----------
    lab : str, default "lab5"
    seeds : iterable of int, default 1..20
        Variants to include (one question per answer id and seed).
    answer_ids : sequence of str, optional
        Only these answers (all by default), in this order; case does not matter
        (``"q13.7"``) and repeated ids are kept once.
    accounting : str, default "wire"
        Accounting of the answer key; the question texts say which bytes the links
        count in it (see :meth:`labcalc.labs.lab5.Answer.text`).
    credit : mapping, optional
        Partial credit per slip; rounded to the nearest grade Moodle accepts.
    slips : bool, default True
        Add the partially right answers (every slip labcalc credits, see the module
        documentation).

    Returns
    -------
    list of dict
        Per question: ``id``, ``seed``, ``name``, ``text``, ``unit`` (the unit the
        answers are in; ``""`` for a plain number or a fraction), ``factor`` (size of
        that unit in base units: 1 for a fraction), ``points``, ``answers`` (list of
        ``(fraction %, value, tolerance, feedback)`` in ``unit``, the right one first).

    Examples
    --------
    >>> item = quiz_items("lab5", [0], answer_ids=["Q4"])[0]
    >>> item["name"], item["unit"], [round(x, 6) for x in item["answers"][0][:3]]
    ('lab5 Q4 (variant 0)', 'Mbit/s', [100.0, 4.690432, 0.046904])
    >>> len(item["answers"]), sorted({a[0] for a in item["answers"]})
    (49, [25.0, 40.0, 50.0, 75.0, 100.0])
    >>> [round(a[1], 4) for a in item["answers"] if a[0] == 75.0]
    [4.3683, 4.4731, 4.5805, 4.7985, 4.8247, 4.9183, 5.0398]
    >>> loss = quiz_items("lab5", [0], answer_ids=["q13.7"])[0]
    >>> loss["unit"], round(loss["answers"][0][1], 4), round(loss["answers"][-1][1], 2)
    ('', 0.0619, 6.19)
    """
    from labcalc.grading.keys import answer_key
    from labcalc.labs import get_lab

    module = get_lab(lab)
    credits = credit_table(credit)
    answers = {a.id: a for a in module.ANSWERS}
    if answer_ids is None:
        wanted = list(answers)
    else:
        if isinstance(answer_ids, str):
            answer_ids = [answer_ids]
        by_lower = {answer_id.lower(): answer_id for answer_id in answers}
        wanted = []
        for answer_id in answer_ids:
            found = by_lower.get(str(answer_id).strip().lower())
            if found is None:
                raise ValueError(f"{lab} has no answer {answer_id!r} (ids look like Q4, Q13.6, Q44.2)")
            if found not in wanted:
                wanted.append(found)
    seeds = [int(s) for s in seeds]
    keys = {s: answer_key(lab, s, accounting) for s in seeds}
    items = []
    for answer_id in wanted:
        a = answers[answer_id]
        for s in seeds:
            key = keys[s]
            i = key.index(answer_id)
            unit = key.display_units[i]
            asked = unit if UNIT_CHOICES.get(unit, ((unit, 1.0),)) else ""  # "%": a fraction
            factor = float(key.display_factors[i]) if asked else 1.0
            value = float(key.values[i])
            atol, rtol = float(key.atol[i]), float(key.rtol[i])
            tol = atol + rtol * abs(value)
            alts = {code: [float(v[i]) for v in key.other_values.values()]
                    if code == "wire_vs_shaper" else [float(key.alternatives[code][i])]
                    for code in CONTEXT_SLIPS}
            if "wire_vs_shaper" in alts:  # in the order labcalc grade tries them
                alts["wire_vs_shaper"] = [float(key.other_values.get(o, key.values * math.nan)[i])
                                          for o in other_accountings(accounting)]
            written = _answer_list(value, key.units[i], unit, atol, rtol, float(key.display_factors[i]),
                                   alts, credits, accounting, slips)
            written = [(f, float(lo) / factor, float(hi) / factor, fb) for f, lo, hi, fb in written]
            text = a.text(key.params, accounting)
            text += f" Give the answer in {unit}." if asked else _FORM_TEXT.get(unit, _FORM_TEXT[""])
            items.append({
                "id": answer_id, "seed": s, "name": f"{lab} {answer_id} (variant {s})", "text": text,
                "unit": asked, "factor": factor, "points": float(key.points[i]),
                "answers": [(f, (lo + hi) / 2, (hi - lo) / 2, fb) for f, lo, hi, fb in written],
            })
    return items


def _answer_list(value, base, unit, atol, rtol, display_factor, alts, credits, accounting, slips):
    """The answers of one question as intervals [base units], the right one first.

    Each interval is a stretch of the number line on which labcalc's own grader
    (:func:`labcalc.grading.diagnosis.evaluate`) gives one and the same verdict, so
    the quiz cannot drift from it: the stretches are found by asking the grader at
    the midpoint between every two consecutive edges that its rules can produce (the
    edges of every band, the "clearly closer to the slip" limits, the points where
    two slips are equally close, 0). The slips tried are those of
    ``diagnosis._candidates``, the list the grader itself tries (one slip, two at
    once, a context slip with a generic one on top).
    """
    percent = is_percent_unit(unit)
    nonneg = (percent or base in NONNEGATIVE_NAME) and value >= 0
    one = lambda x: np.asarray([x], float)  # noqa: E731
    e, rt, at, sig, df = one(value), one(rtol), one(atol), np.zeros(1), one(display_factor)
    tol = float(tolerance_band(e, rt, at, sig, df)[0])
    lo_right = max(value - tol, 0.0) if nonneg else value - tol  # a loss of 0: [0, tol]
    right = [(100.0, lo_right, value + tol, "Right.")]
    if not slips or value == 0:
        return right
    alternatives = {k: [one(v) for v in vs] for k, vs in alts.items()}
    labels, _, values, _, _ = slip_candidates(e, np.asarray([base], object), alternatives,
                                          np.asarray([percent]))
    a = values[0]
    ok = ~np.isnan(a) & (a != 0)
    a = a[ok]
    if a.size == 0:
        return right
    scale = np.abs(a / value)
    cand_tol = tolerance_band(a, rt, at * scale, sig, df)
    half = SLIP_BAND * cand_tol
    edges = [0.0, value - tol, value + tol, value - ROUNDING_FACTOR * tol, value + ROUNDING_FACTOR * tol]
    edges += [*(a - half), *(a + half), *cand_tol, *(-cand_tol), *(2 * a - value), *((2 * a + value) / 3)]
    # where two slips are equally close (distance measured in each one's band)
    for j in range(a.size):
        for k in range(j + 1, a.size):
            if abs(a[j] - a[k]) <= half[j] + half[k]:
                edges.append((a[j] * half[k] + a[k] * half[j]) / (half[j] + half[k]))
                if half[j] != half[k]:
                    edges.append((a[j] * half[k] - a[k] * half[j]) / (half[k] - half[j]))
    low = min(np.min(a - half), lo_right)
    high = max(np.max(a + half), value + ROUNDING_FACTOR * tol)
    edges = np.unique(np.clip(np.asarray(edges, float), low, high))
    mids = (edges[:-1] + edges[1:]) / 2
    n = mids.size
    rep = lambda x: np.full(n, x)  # noqa: E731
    out = evaluate(mids, np.full(n, "ok", object), rep(value), np.full(n, base, object), rep(rtol),
                   rep(atol), np.zeros(n), rep(display_factor),
                   {k: [rep(v) for v in vs] for k, vs in alts.items()}, credits,
                   percent=np.full(n, percent), nonnegative=np.full(n, nonneg))
    pieces = []  # (score, diagnosis, factor, alternative, lo, hi), merged when alike
    for m in range(n):
        if out["correct"][m] or out["score"][m] <= 0:
            continue
        what = (float(out["score"][m]), out["diagnosis"][m], float(out["factor"][m]),
                int(out["alternative"][m]), float(out["ratio"][m]))
        if pieces and pieces[-1][0][:4] == what[:4] and pieces[-1][2] == edges[m]:
            pieces[-1][2] = edges[m + 1]
        else:
            pieces.append([what, edges[m], edges[m + 1]])
    others = other_accountings(accounting)
    answers = list(right)
    for (score, code, factor, which, ratio), lo, hi in pieces:
        other = others[which] if code.startswith("wire_vs_shaper") and 0 <= which < len(others) else None
        answers.append((_nearest_fraction(score), lo, hi, _feedback(code, factor, ratio, accounting, other)))
    return answers


def _feedback(code: str, factor: float, ratio: float, accounting: str, other: str | None) -> str:
    """The feedback of a partially right answer, worded for the quiz."""
    if "+" in code:  # two slips at once: the first one's hint, then the second named
        first, second = code.split("+")
        if first in CONTEXT_SLIPS:
            head = slip_hint(first, 1.0, ratio / factor, accounting, other).removeprefix("it ")
        else:
            head = "shows " + SLIPS[first]
        return f"Partly right: your answer {head}; and on top of that, {SLIPS[second]}."
    if code == "percent_fraction":
        # the quiz asks for a fraction between 0 and 1, the number only (no % sign)
        if factor < 1:
            return (f"Partly right: your answer is {times_text(factor)}: give the share as a fraction "
                    f"between 0 and 1, the number only (25 % is 0.25, not 0.0025).")
        return (f"Partly right: your answer is {times_text(factor)}: it looks like a percentage; "
                f"give the share as a fraction between 0 and 1, the number only (25 % is 0.25).")
    return "Partly right: your answer " + slip_hint(code, factor, ratio, accounting, other).removeprefix("it ") + "."


def _sub(parent, tag, text=None, **attrs):
    el = ET.SubElement(parent, tag, {k: str(v) for k, v in attrs.items()})
    if text is not None:
        el.text = text
    return el


def _text(parent, tag, text, fmt=None):
    el = _sub(parent, tag, **({"format": fmt} if fmt else {}))
    _sub(el, "text", text)
    return el


def moodle_xml(lab: str = "lab5", seeds: Iterable[int] = range(1, 21), *,
               answer_ids: Sequence[str] | None = None, accounting: str = "wire",
               credit: Mapping[str, float] | None = None, slips: bool = True,
               category: str | None = None, unit_penalty: float = 1.0) -> str:
    """A Moodle XML quiz: one category per answer id, one numerical question per variant.

    Parameters
    ----------
    lab, seeds, answer_ids, accounting, credit, slips
        As in :func:`quiz_items`.
    category : str, optional
        Category path under the course (``"labcalc/<lab>"`` by default).
    unit_penalty : float, default 1.0
        Share of the mark lost for a missing or unknown unit in rate, size and time
        questions (labcalc never assumes a unit: 1.0 gives no points without one).
        Percent questions are asked as fractions and plain numbers have no unit: a
        response with a unit gets Moodle's "number without a unit" message.

    Returns
    -------
    str
        The XML document (UTF-8 declaration included).

    Notes
    -----
    Moodle takes the first answer whose interval contains the response: the right
    answer comes first, then the pieces of the number line where labcalc gives a
    partial credit (see the module documentation), which do not overlap. Partial grades
    are rounded to the nearest value Moodle accepts (:data:`MOODLE_FRACTIONS`). Units
    are typed after the number (``showunits`` 0, ``unitsleft`` 0); the unit penalty is
    "of the mark for the response" (``unitgradingtype`` 1).

    References
    ----------
    Moodle documentation, "Moodle XML format" and "Numerical question type"
    (``question/format/xml`` and ``question/type/numerical`` in Moodle's source).

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> root = ET.fromstring(moodle_xml("lab5", seeds=[0], answer_ids=["Q3"], slips=False))
    >>> q = root[1]
    >>> q.find("answer/text").text, q.find("answer/tolerance").text, q.find("units/unit/unit_name").text
    ('1066', '0.5', 'bytes')
    """
    if not 0 <= unit_penalty <= 1:
        raise ValueError(f"unit_penalty must be between 0 and 1; got {unit_penalty!r}")
    root = ET.Element("quiz")
    items = quiz_items(lab, seeds, answer_ids=answer_ids, accounting=accounting, credit=credit,
                       slips=slips)
    base = category or f"labcalc/{lab}"
    current = None
    for item in items:
        if item["id"] != current:
            current = item["id"]
            cat = _sub(root, "question", type="category")
            _text(cat, "category", f"$course$/top/{base}/{current}")
            _text(cat, "info", f"Variants of {lab} {current}; draw one at random.", "html")
        q = _sub(root, "question", type="numerical")
        _text(q, "name", item["name"])
        _text(q, "questiontext", f"<p>{html.escape(item['text'], quote=False)}</p>", "html")
        _text(q, "generalfeedback", "", "html")
        _sub(q, "defaultgrade", _fmt(item["points"]))
        _sub(q, "penalty", "0.3333333")
        _sub(q, "hidden", "0")
        _sub(q, "idnumber", f"{lab}-{item['id']}-v{item['seed']}")
        for fraction, value, tol, feedback in item["answers"]:
            ans = _sub(q, "answer", fraction=_fmt(fraction), format="moodle_auto_format")
            _sub(ans, "text", _fmt(value))
            _text(ans, "feedback", f"<p>{html.escape(feedback, quote=False)}</p>", "html")
            _sub(ans, "tolerance", _fmt(tol))
        unit = item["unit"]
        choices = UNIT_CHOICES.get(unit, ((unit, 1.0),))
        if choices:
            units = _sub(q, "units")
            for name, multiplier in choices:
                u = _sub(units, "unit")
                _sub(u, "multiplier", _fmt(multiplier))
                _sub(u, "unit_name", name)
        graded = bool(unit)
        _sub(q, "unitgradingtype", "1" if graded else "0")
        _sub(q, "unitpenalty", f"{unit_penalty if graded else 0.0:.7f}")
        _sub(q, "showunits", "0" if choices else "3")
        _sub(q, "unitsleft", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


_GIFT_SPECIAL = str.maketrans({c: "\\" + c for c in "~=#{}:\\"})


def _gift_escape(text: str) -> str:
    return text.translate(_GIFT_SPECIAL).replace("\n", " ")


def gift(lab: str = "lab5", seeds: Iterable[int] = range(1, 21), *,
         answer_ids: Sequence[str] | None = None, accounting: str = "wire",
         credit: Mapping[str, float] | None = None, slips: bool = True,
         category: str | None = None) -> str:
    """The same quiz in Moodle's GIFT format (numerical questions, without units).

    Parameters
    ----------
    lab, seeds, answer_ids, accounting, credit, slips, category
        As in :func:`moodle_xml`.

    Returns
    -------
    str

    Notes
    -----
    GIFT numerical answers are ``=%fraction%value:tolerance#feedback``; the special
    characters ``~ = # { } :`` and backslash are escaped in texts. GIFT has no unit
    field, so the text asks for the number in the question's unit (a percentage as a
    fraction between 0 and 1, as in :func:`moodle_xml`).

    Examples
    --------
    >>> print(gift("lab5", seeds=[0], answer_ids=["Q3"], slips=False))
    $CATEGORY: $course$/top/labcalc/lab5/Q3
    <BLANKLINE>
    // lab5 Q3, variant 0
    ::lab5 Q3 (variant 0)::A UDP client sends datagrams that carry 1000 bytes of application data each over Ethernet. How many bytes of link time does one datagram take, counting the preamble and SFD, the Ethernet, IP and UDP headers, the FCS and the inter-frame gap? Give the answer in bytes (the number only).{#
    =%100%1066:0.5#Right.
    }
    <BLANKLINE>
    """
    items = quiz_items(lab, seeds, answer_ids=answer_ids, accounting=accounting, credit=credit,
                       slips=slips)
    base = category or f"labcalc/{lab}"
    out = []
    current = None
    for item in items:
        if item["id"] != current:
            current = item["id"]
            out.append(f"$CATEGORY: $course$/top/{base}/{current}\n")
        text = item["text"]
        if item["unit"]:
            text = text[: text.rfind(" Give the answer")] + (
                f" Give the answer in {item['unit']} (the number only).")
        out.append(f"// {lab} {item['id']}, variant {item['seed']}")
        out.append(f"::{_gift_escape(item['name'])}::{_gift_escape(text)}{{#")
        for fraction, value, tol, feedback in item["answers"]:
            out.append(f"={'%'}{_fmt(fraction)}%{_fmt(value)}:{_fmt(tol)}#{_gift_escape(feedback)}")
        out.append("}\n")
    return "\n".join(out)
