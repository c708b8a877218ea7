"""Quiz export: every answer of a lab as Moodle questions, one category per question.

Each answer id becomes a category holding one "numerical" question per variant, so
that a Moodle quiz can draw a random variant from each category. A question carries:

- its text with the variant's numbers (:meth:`labcalc.labs.lab5.Answer.text`) and the
  unit to answer in;
- the right value in that unit with the answer's tolerance (Moodle's numerical
  tolerance is absolute: ``rtol * |value| + atol``, converted to the unit);
- optionally, one partially right answer per slip the key knows (the wire/shaper
  accounting, forgotten headers, bytes for bits...), each with its share of the
  points, the feedback labcalc would give, and labcalc's own band around the slip's
  value: half the right answer's tolerance transformed by the slip (a value 1000
  times too small keeps a thousandth of the absolute tolerance), so that no partly
  right interval reaches 0;
- the accepted units with their multipliers (``kbit/s`` is 1000 per ``Mbit/s``).

Percentages (losses, shares) are asked as fractions between 0 and 1 and the text says
so: that is how :func:`labcalc.grading.grade` reads a bare number in a percent question
(``"0.25"`` is 25 %, a bare ``"25"`` is the percent/fraction slip), and Moodle reads
a number without a unit in the question's first unit, so a quiz asking "in %" would
grade a bare 0.25 differently from labcalc. The quiz and labcalc thus agree on every
bare number; the quiz (no units) asks to type the number alone, where labcalc also
accepts ``"25 %"`` with its sign.

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
import math
import xml.etree.ElementTree as ET
from typing import Iterable, Mapping, Sequence

from labcalc.grading.check import _hint, _times
from labcalc.grading.diagnosis import _SLIP_BAND, CONTEXT_SLIPS, credit_table, other_accountings

__all__ = ["moodle_xml", "gift", "quiz_items", "MOODLE_FRACTIONS", "UNIT_CHOICES"]

#: The grades Moodle accepts for an answer [percent].
MOODLE_FRACTIONS = (100.0, 90.0, 83.33333, 80.0, 75.0, 70.0, 66.66667, 60.0, 50.0, 40.0,
                    33.33333, 30.0, 25.0, 20.0, 16.66667, 14.28571, 12.5, 11.11111, 10.0,
                    5.0, 0.0)

#: Units offered for each display unit, with Moodle multipliers (how many of the unit
#: make one display unit).
UNIT_CHOICES: Mapping[str, Sequence[tuple[str, float]]] = {
    "Mbit/s": (("Mbit/s", 1.0), ("Mbps", 1.0), ("Mb/s", 1.0), ("kbit/s", 1e3), ("kbps", 1e3),
               ("kb/s", 1e3), ("bit/s", 1e6), ("bps", 1e6), ("Gbit/s", 1e-3), ("Gbps", 1e-3),
               ("MB/s", 0.125), ("kB/s", 125.0)),
    "bytes": (("bytes", 1.0), ("byte", 1.0), ("B", 1.0), ("octets", 1.0), ("bits", 8.0)),
    "ms": (("ms", 1.0), ("s", 1e-3), ("us", 1e3), ("µs", 1e3)),
    "%": (),  # asked as a fraction (see the module documentation)
    "": (),
}

#: What the text asks for, per display unit without a unit field in the quiz.
_FORM_TEXT = {
    "%": " Give the answer as a fraction between 0 and 1, the number only (a share of "
         "25 % is 0.25).",
    "": " Give the answer as a plain number.",
}


def _nearest_fraction(share: float) -> float:
    return min(MOODLE_FRACTIONS, key=lambda f: abs(f - 100.0 * share))


def _fmt(x: float) -> str:
    """A number for Moodle: 7 significant digits, no exponent for usual sizes."""
    if x == 0:
        return "0"
    text = f"{x:.7g}"
    return text


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
        Add a partially right answer for each slip of the key.

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
    >>> item["name"], item["unit"], item["answers"][0][:3]
    ('lab5 Q4 (variant 0)', 'Mbit/s', (100.0, 4.690431519699812, 0.04690431519699812))
    >>> [(a[0], round(a[1], 4)) for a in item["answers"][1:]]
    [(50.0, 5.0), (75.0, 4.7985), (50.0, 0.5863), (50.0, 37.5235), (50.0, 4690.4315), (50.0, 0.0047), (75.0, 4.5805)]
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
            right = (100.0, value / factor, tol / factor, "Right.")
            extra = []
            if slips:
                seen = [(value, tol)]
                candidates = []
                for code in CONTEXT_SLIPS:
                    if code == "wire_vs_shaper":  # the value in each other accounting
                        for other in other_accountings(accounting):
                            alt = float(key.other_values.get(other, key.alternatives[code] * math.nan)[i])
                            if not math.isnan(alt):
                                candidates.append((code, alt, 1.0, other))
                        continue
                    alt = float(key.alternatives[code][i])
                    if not math.isnan(alt):
                        candidates.append((code, alt, 1.0, None))
                for code, factors, bases in _GENERIC_FOR_EXPORT:
                    if (key.units[i] in bases or unit in bases) and value != 0:
                        if code == "percent_fraction" and unit != "%":
                            continue  # a plain number (a constant) is not a share
                        for f in factors:
                            candidates.append((code, value * f, f, None))
                for code, alt, f, other in candidates:
                    # the same band as labcalc's own diagnosis: the right answer's
                    # tolerance transformed by the slip (both parts scaled with the
                    # value), halved
                    scale = abs(alt / value) if value else 1.0
                    alt_full = atol * scale + rtol * abs(alt)
                    alt_tol = _SLIP_BAND * alt_full
                    if any(abs(alt - v) <= t for v, t in seen):
                        continue  # inside the interval of an answer already listed
                    # no credit for an answer that cannot be told from 0 (as labcalc)
                    alt_tol = min(alt_tol, (abs(alt) - alt_full) * (1 - 1e-9))
                    if alt_tol <= 0:
                        continue
                    seen.append((alt, alt_full))
                    extra.append((_nearest_fraction(credits[code]), alt / factor, alt_tol / factor,
                                  _feedback(code, f, alt / value if value else 1.0, accounting, other)))
            text = a.text(key.params, accounting)
            text += f" Give the answer in {unit}." if asked else _FORM_TEXT.get(unit, _FORM_TEXT[""])
            items.append({
                "id": answer_id, "seed": s, "name": f"{lab} {answer_id} (variant {s})", "text": text,
                "unit": asked, "factor": factor, "points": float(key.points[i]),
                "answers": [right] + extra,
            })
    return items


def _feedback(code: str, factor: float, ratio: float, accounting: str, other: str | None) -> str:
    """The feedback of a partially right answer, worded for the quiz."""
    if code == "percent_fraction":
        # the quiz asks for a fraction between 0 and 1, the number only (no % sign)
        return (f"Partly right: your answer is {_times(factor)}: it looks like a percentage; "
                f"give the share as a fraction between 0 and 1, the number only (25 % is 0.25).")
    return "Partly right: your answer " + _hint(code, factor, ratio, accounting, other).removeprefix("it ") + "."


_GENERIC_FOR_EXPORT = (
    ("bytes_bits", (1 / 8, 8.0), ("bit/s", "byte")),
    ("kilo_mega", (1000.0, 1e-3), ("bit/s", "byte", "s")),
    ("binary_prefix", (1 / 1.024, 1.024), ("bit/s",)),
    ("percent_fraction", (100.0,), ("%",)),  # a percentage typed where a fraction is asked
)


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
    Moodle takes the first answer whose interval contains the response, so the right
    answer comes first, and a slip whose value falls inside the interval of an answer
    listed before it is left out. Partial grades are rounded to the nearest value Moodle accepts
    (:data:`MOODLE_FRACTIONS`).

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
