"""Quiz export: every answer of a lab as Moodle questions, one category per question.

Each answer id becomes a category holding one "numerical" question per variant, so
that a Moodle quiz can draw a random variant from each category. A question carries:

- its text with the variant's numbers, self-contained (:meth:`labcalc.labs.Answer.text`),
  and how to answer (``Type the number and its unit, e.g. 2.5 Mbit/s``; in GIFT, the
  number only in the stated unit): :func:`labcalc.grading.quiztext.question_text` writes
  both, for either format;
- the answers in the order Moodle tries them (it takes the first whose interval
  ``[value - tolerance, value + tolerance]`` holds the response): the right value with
  labcalc's tolerance first, then one answer per stretch of numbers on which labcalc's
  grader gives one partial credit. The stretches come from the grader itself: every
  slip it tries (:func:`labcalc.grading.diagnosis.slip_candidates`: bytes/bits, 1000,
  1024, 1024², 1024³, percent/fraction, the context slips, two slips at once) with its
  band (half the right answer's tolerance transformed by the slip), cut where the grader's other
  rules cut it (the slip closest to the response wins, the other accounting before a
  binary prefix, a response must sit clearly closer to the slip than to the key, none
  near 0); :func:`labcalc.grading.diagnosis.evaluate` is asked at the middle of every
  piece, so the quiz cannot drift from the grader. A slip band overlapping no other is
  written whole around the slip's value; a slip never reached by the grader (inside the
  right answer's band) is not written. Each carries the feedback labcalc would give;
- a right answer of 0 (a loss of 0) is the interval ``[0, tol]`` (value ``tol/2``,
  tolerance ``tol/2``): a negative response gets nothing, as in labcalc;
- the unit spellings labcalc's grammar reads for that kind of quantity
  (:func:`labcalc.units.unit_spellings`, and the usual other letter cases and
  ``octets``: 243 for a rate, 106 for a size, 58 for a time), the display unit
  first, each with Moodle's multiplier (``kbit/s`` is 1000 per ``Mbit/s``): Moodle
  matches unit names exactly, letter case included.

Every number is written in plain decimal notation (no exponent), at the precision its
interval needs rather than with the 17 digits of a float (students see the right answer
on review): the right value to a hundredth of its tolerance (``2.8436``, not
``2.8436018957345977``), the other intervals by their edges, rounded to a hundredth of
the narrower interval that has them, two neighbours sharing the same decimal edge so
that no gap opens between them. No edge moves by more than 1.5 % of its interval's
half-width; ``tests/test_grading_moodle.py`` probes every band at 98 % and 102 % of it.

Percentages (losses, shares) are asked as fractions between 0 and 1 and the text says
so: that is how :func:`labcalc.grading.grade` reads a bare number in a percent question
(``"0.25"`` is 25 %, a bare ``"25"`` is the percent/fraction slip), and Moodle reads
a number without a unit in the question's first unit, so a quiz asking "in %" would
grade a bare 0.25 differently from labcalc.

What Moodle does otherwise than labcalc (a comma, letter case and punctuation in a
unit, powers of ten, text after a number, a known but wrong unit, ``%`` on a share, its
fixed list of grades: a credit such as 0.375 is written as the nearest of
:data:`MOODLE_FRACTIONS`, 40 %), as a real Moodle 5.1 did it, and the setting that comes
closest: :mod:`labcalc.grading.moodle`. The quiz is written for one site language
(``lms=``, English by default): each category's description names it, and each
question's text says how to type an answer there
(:func:`labcalc.grading.moodle.how_to_answer`); ``labcalc grade --lms`` grades as that
site will (:mod:`labcalc.grading.lms`). GIFT holds no units: a GIFT question asks for
the number only, in the stated unit, and Moodle grades that number as labcalc grades
it written with that unit; a unit typed after it is not read (``4690 kbit/s`` on a
question in Mbit/s is graded as 4690 Mbit/s, the kilo/mega slip, where labcalc reads
4.69 Mbit/s). Use Moodle XML when students may type units.

Speed: the grader's rules do not change when the key, its absolute tolerance and the
context slips' values are all multiplied by the same positive number, so the stretches
are computed once per question *shape* (the value scaled to ±1) and scaled to each
variant; the shapes of one answer id are computed together, in one call of
:func:`~labcalc.grading.diagnosis.evaluate`. The whole of lab5 (55 answer ids) in 300
variants is written in about 4 s once the answer keys are known
(``benchmarks/bench_grading.py`` prints it; the keys of 300 variants take a few seconds
more when they are not cached).

Size: Moodle XML has no way to share anything between questions: every numerical
question stores its own units, answers and feedback, so each rate question carries its
243 unit spellings (about 20 kB of the 38 kB of Q4). What a question repeats is written
once per file and copied: the ``<units>`` block of each display unit, and the markup
of each (grade, feedback) pair; elements are not indented inside ``<unit>`` and
``<answer>``, and the document is plain ASCII (other characters as references, ``µ``
as ``&#181;``). The whole lab is about 30 MB of XML in 20 variants and 450 MB in 300
(GIFT, without units: 7 MB and 106 MB); the letter-case variants added for Moodle
cost 2 MB in 20 variants, the budget for spellings is 32 MB in 20 variants
(``tests/test_grading_moodle.py`` checks it). Moodle imports a question file through an
upload form, so a file larger than the site's maximum upload size (Site administration >
Security > Site security settings > Maximum uploaded file size, itself capped by PHP's
``upload_max_filesize`` and ``post_max_size``) is refused; the importer also parses the
whole file in memory within PHP's ``memory_limit`` and time limit. Export many
variants in parts (``labcalc export --questions Q4,Q9 ...``, one file per group of
answer ids), or use fewer variants.

:func:`moodle_xml` writes Moodle XML (every text escaped, a test parses each file);
:func:`gift` writes Moodle's GIFT text format, which has no units: its questions ask for
the number in the stated unit.

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

import functools
import html
from decimal import Decimal
import math
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from labcalc.grading.check import is_percent_unit
from labcalc.grading.diagnosis import (CONTEXT_SLIPS, ROUNDING_FACTOR, SLIP_BAND, SLIPS, credit_table, evaluate,
                                       other_accountings, slip_candidates, tolerance_band)
from labcalc.grading.messages import NONNEGATIVE_NAME, slip_hint, times_text
from labcalc.grading.moodle import site_language, unit_case_folded
from labcalc.grading.quizunits import UNIT_CHOICES, unit_choices, unit_names
from labcalc.grading.quiztext import question_text, rounded_bands

__all__ = ["moodle_xml", "gift", "quiz_items", "nearest_fraction", "unit_names", "MOODLE_FRACTIONS",
           "UNIT_CHOICES", "unit_choices"]

#: The grades Moodle accepts for an answer [percent].
MOODLE_FRACTIONS = (100.0, 90.0, 83.33333, 80.0, 75.0, 70.0, 66.66667, 60.0, 50.0, 40.0,
                    33.33333, 30.0, 25.0, 20.0, 16.66667, 14.28571, 12.5, 11.11111, 10.0,
                    5.0, 0.0)

@functools.lru_cache(maxsize=1024)
def nearest_fraction(share: float) -> float:
    """The grade Moodle accepts nearest to a share of the points (what the quiz writes).

    Parameters
    ----------
    share : float
        A share of the points [1].

    Returns
    -------
    float
        The nearest of :data:`MOODLE_FRACTIONS` [%].

    Examples
    --------
    >>> nearest_fraction(0.375), nearest_fraction(0.75)
    (40.0, 75.0)
    """
    return min(MOODLE_FRACTIONS, key=lambda f: abs(f - 100.0 * share))


def _fmt(x: float) -> str:
    """A number in plain decimal notation, never with an exponent, that reads back exactly.

    ``repr`` gives the shortest text that reads back as the same float; when it has an
    exponent, :mod:`decimal` writes it out without one (``1.421801e-05`` ->
    ``0.00001421801``), which every GIFT reader understands (pygiftparser reads an
    exponent wrongly, gift-pegjs refuses it).
    """
    x = float(x)
    if x == 0:
        return "0"
    text = repr(x)
    if "e" in text:
        text = format(Decimal(text), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    return text[:-2] if text.endswith(".0") else text


_POINT_ZERO = re.compile(r"\.0(?=,|$)")


def _fmt_many(numbers: list[float]) -> list[str]:
    """:func:`_fmt` of each number (Python's ``repr`` of the whole list, then fixed)."""
    text = repr(numbers)[1:-1]
    if not text:
        return []
    out = _POINT_ZERO.sub("", text).split(", ")
    if "e" in text or "n" in text or "-0," in text or text.endswith("-0.0"):  # exponents, -0: one by one
        out = [_fmt(float(x)) if ("e" in x or "n" in x or x == "-0") else x for x in out]
    return out


def quiz_items(lab=None, seeds: Iterable[int] | None = None, *,
               answer_ids: Sequence[str] | None = None, accounting: str | None = None,
               credit: Mapping[str, float] | None = None, slips: bool = True, assignment=None,
               unit_field: bool = True) -> list[dict]:
    """The questions of a quiz as plain data (what both export formats write).

    Parameters
    ----------
    lab : Lab or str
        The lab (a :class:`labcalc.labs.Lab` or its registry name, e.g. ``"lab5"``);
        the assignment's when one is given; no default otherwise.
    seeds : iterable of int, optional
        Variants to include (one question per answer id and seed): the assignment's
        (``[export]``), else 1..20.
    answer_ids : sequence of str, optional
        Only these answers (the assignment's questions, else all), in this order;
        case does not matter (``"q13.7"``) and repeated ids are kept once.
    accounting : str, optional
        Accounting of the answer key (the assignment's, else ``"wire"``); the question
        texts say which bytes the links count in it (see :meth:`labcalc.labs.Answer.text`).
    credit : mapping, optional
        Partial credit per slip, on top of the assignment's; rounded to the nearest
        grade Moodle accepts.
    slips : bool, default True
        Add the partially right answers (every slip labcalc credits, see the module
        documentation).
    assignment : Assignment or path, optional
        What the class is asked (:mod:`labcalc.grading.assignment`): its questions,
        variants, points, tolerances and credits, the same that ``labcalc grade`` uses.
    unit_field : bool, default True
        Whether the quiz reads a unit typed after the number (Moodle XML); False for
        GIFT, whose texts ask for the number only (see
        :func:`labcalc.grading.quiztext.answer_instruction`).

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
    >>> item["name"], item["unit"], item["answers"][0][:3]  # at the precision the tolerance needs
    ('lab5 Q4 (variant 0)', 'Mbit/s', (100.0, 4.6904, 0.047))
    >>> len(item["answers"]), sorted({a[0] for a in item["answers"]})
    (49, [25.0, 40.0, 50.0, 75.0, 100.0])
    >>> [round(a[1], 4) for a in item["answers"] if a[0] == 75.0]
    [4.3683, 4.4732, 4.5805, 4.7985, 4.8247, 4.9183, 5.0398]
    >>> loss = quiz_items("lab5", [0], answer_ids=["q13.7"])[0]
    >>> loss["unit"], round(loss["answers"][0][1], 4), round(loss["answers"][-1][1], 2)
    ('', 0.0619, 6.19)
    """
    items = _items(lab, seeds, answer_ids, accounting, credit, slips, unit_field, _task(assignment))
    for item in items:
        item["answers"] = [(f, mid, half, text) for (f, text), mid, half
                           in zip(item.pop("labels"), item.pop("mids"), item.pop("halves"))]
    return items


def _variant_seeds(seeds) -> list[int]:
    """The variants to export: whole numbers, each once (a repeated seed would give two
    questions one Moodle ID number, which the import refuses), in the order given."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise ValueError(f"seeds must be a list of variant numbers; got {seeds!r}")
    out: list[int] = []
    for seed in seeds:
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer, float, np.floating)) \
                or not float(seed).is_integer():
            raise ValueError(f"seeds: a variant is a whole number; got {seed!r}")
        if int(seed) not in out:
            out.append(int(seed))
    if not out:
        raise ValueError("seeds: no variant to export (give at least one seed)")
    return out


def _items(lab, seeds, answer_ids, accounting, credit, slips, unit_field=True, task=None,
           site="en") -> list[dict]:
    """The questions as :func:`quiz_items` describes them, the answers kept as columns:
    ``labels`` (grade [%], feedback), ``mids`` and ``halves`` (centre and half-width of
    each answer's interval, in the question's unit). ``task`` (an assignment) gives the
    questions, variants, accounting, points, tolerances and credits that the other
    arguments do not."""
    from labcalc.grading.keys import answer_key
    from labcalc.labs import get_lab

    if task is not None:
        if lab is not None and get_lab(lab).name != task.lab:
            raise ValueError(f"the assignment {task.source} is for {task.lab}, not {get_lab(lab).name}")
        lab = task.lab
        answer_ids = task.questions if answer_ids is None else answer_ids
        seeds = task.seeds if seeds is None else seeds
        accounting = accounting or task.accounting
        credit = {**task.credit, **(credit or {})}
    seeds = range(1, 21) if seeds is None else seeds
    accounting = accounting or "wire"
    lab_object = get_lab(lab)
    lab = lab_object.name
    credits = credit_table(credit)
    answers = {a.id: a for a in lab_object.answers}
    point_of = {a.id: a.points for a in lab_object.answers}
    point_of.update(task.points if task is not None else {})
    rtol_of = dict(task.rtol) if task is not None else {}
    atol_of = dict(task.atol) if task is not None else {}
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
    seeds = _variant_seeds(seeds)
    keys = {s: answer_key(lab_object, s, accounting) for s in seeds}  # by object: a lab outside the registry too
    others = other_accountings(accounting)
    feedbacks: dict[tuple, str] = {}
    items = []
    for answer_id in wanted:
        a = answers[answer_id]
        rows = [(s, keys[s], keys[s].index(answer_id)) for s in seeds]
        value = np.array([float(k.values[i]) for _, k, i in rows])
        atol = np.array([float(atol_of.get(answer_id, k.atol[i])) for _, k, i in rows])
        rtol = np.array([float(rtol_of.get(answer_id, k.rtol[i])) for _, k, i in rows])
        display = np.array([float(k.display_factors[i]) for _, k, i in rows])
        units = [k.display_units[i] for _, k, i in rows]
        bases = [k.units[i] for _, k, i in rows]
        percent = np.array([is_percent_unit(u) for u in units])
        nonneg = (percent | np.isin(np.asarray(bases, object), list(NONNEGATIVE_NAME))) & (value >= 0)
        # the right answer: labcalc's band; a loss of 0 is [0, tol]
        tol = tolerance_band(value, rtol, atol, 0, display)
        lo_right = np.where(nonneg, np.maximum(value - tol, 0.0), value - tol)
        hi_right = value + tol
        # the slips: one computation per question shape (the value only scales it)
        shape_of = [None] * len(rows)
        worded: dict[int, list] = {}  # per shape: (Moodle grade, feedback) of each stretch
        if slips:
            alts = [_alternatives(k, i, accounting) for _, k, i in rows]
            shape_of = _shape_stretches(value, rtol, atol, nonneg, percent, bases, alts, credits)
        right = [(100.0, "Right.")]
        for r, (s, key, i) in enumerate(rows):
            unit = units[r]
            asked = unit if UNIT_CHOICES.get(unit, ((unit, 1.0),)) else ""  # "%": a fraction
            factor = display[r] if asked else 1.0
            labels, mids, halves = right, [float((lo_right[r] + hi_right[r]) / 2 / factor)], \
                [float((hi_right[r] - lo_right[r]) / 2 / factor)]
            stretch = shape_of[r]
            if stretch is not None and value[r] != 0:
                lo_n, hi_n, what = stretch
                labels = worded.get(id(what))
                if labels is None:
                    labels = worded[id(what)] = right + [_label(w, accounting, others, feedbacks) for w in what]
                scale = abs(value[r]) / factor
                lo, hi = lo_n * scale, hi_n * scale
                mids += ((lo + hi) / 2).tolist()
                halves += ((hi - lo) / 2).tolist()
            mids, halves = rounded_bands(mids, halves)
            items.append({
                "id": answer_id, "seed": s, "name": f"{lab} {answer_id} (variant {s})",
                "text": question_text(a, key.params, accounting=accounting, unit_field=unit_field, site=site,
                                      listed=unit_names(a.display_unit)),
                "unit": asked, "factor": float(factor), "points": float(point_of[answer_id]),
                "labels": labels, "mids": mids, "halves": halves,
            })
    return items


def _label(what, accounting, others, feedbacks):
    """(Moodle grade [%], feedback) of a stretch whose verdict is ``what``."""
    score, code, f, which, ratio = what
    other = others[which] if code.startswith("wire_vs_shaper") and 0 <= which < len(others) else None
    fkey = (code, f, ratio if "header_overhead" in code else None, other)
    text = feedbacks.get(fkey)
    if text is None:
        text = feedbacks[fkey] = _feedback(code, f, ratio, accounting, other)
    return nearest_fraction(score), text


def _alternatives(key, i: int, accounting: str) -> dict[str, list[float]]:
    """The context slips' values of answer ``i`` of ``key`` [base units], in the grader's order."""
    alts = {code: [float(key.alternatives[code][i])] for code in CONTEXT_SLIPS if code != "wire_vs_shaper"}
    # the other accountings, in the order labcalc grade tries them
    alts["wire_vs_shaper"] = [float(key.other_values[o][i]) if o in key.other_values else math.nan
                              for o in other_accountings(accounting)]
    return {code: alts[code] for code in CONTEXT_SLIPS}


def _shape_stretches(value, rtol, atol, nonneg, percent, bases, alts, credits):
    """Per variant, the credit stretches of its question shape, on the value scaled to ±1.

    The grader's rules are unchanged when every value of a question (the key, its
    absolute tolerance, the context slips' values) is multiplied by the same positive
    number, so the stretches are computed once per shape: sign of the value, rtol,
    atol / |value|, context slips / |value|, base unit, percent and sign rules. Returns
    one ``(lo, hi, what)`` per variant (``lo``, ``hi`` arrays on the ±1 scale, ``what``
    the verdict of each stretch), or None for a value of 0 or one without a slip.
    """
    shapes: dict[tuple, int] = {}
    index = []
    for r in range(value.size):
        n = abs(value[r])
        if not (n > 0 and math.isfinite(n)):
            index.append(None)
            continue
        scaled = tuple((code, tuple(x / n for x in vs)) for code, vs in alts[r].items())
        shape = (math.copysign(1.0, value[r]), float(rtol[r]), float(atol[r] / n), bool(nonneg[r]),
                 bool(percent[r]), bases[r], tuple((c, tuple(None if x != x else x for x in vs))
                                                   for c, vs in scaled))
        index.append(shapes.setdefault(shape, len(shapes)))
    if not shapes:
        return [None] * value.size
    # one batch per base unit / kind of share / list of context slips
    groups: dict[tuple, list[tuple]] = {}
    for shape in shapes:
        groups.setdefault((shape[4], shape[5], tuple((c, len(v)) for c, v in shape[6])), []).append(shape)
    done: dict[int, tuple] = {}
    for (percent_g, base, _), members in groups.items():
        sign = np.array([m[0] for m in members])
        alternatives = {code: [np.array([m[6][c][1][k] if m[6][c][1][k] is not None else math.nan
                                         for m in members], float) for k in range(len(vs))]
                        for c, (code, vs) in enumerate(members[0][6])}
        result = _stretches(sign, np.array([m[1] for m in members]), np.array([m[2] for m in members]),
                            np.array([m[3] for m in members]), percent_g, base, alternatives, credits)
        for m, stretch in zip(members, result):
            done[shapes[m]] = stretch
    return [None if j is None else done[j] for j in index]


def _stretches(sign, rtol, atol, nonneg, percent, base, alternatives, credits):
    """The stretches of the number line on which the grader gives one partial credit.

    For S question shapes at once (``sign`` ±1, the value of each; ``atol`` and the
    ``alternatives`` on that scale). Each stretch is a piece of the line on which
    labcalc's own grader (:func:`labcalc.grading.diagnosis.evaluate`) gives one and
    the same verdict, so the quiz cannot drift from it: the pieces are found by asking
    the grader at the midpoint between every two consecutive edges that its rules can
    produce (the edges of every band, the "clearly closer to the slip" limits, the
    points where two slips are equally close, 0). The slips tried are those of
    :func:`labcalc.grading.diagnosis.slip_candidates`, the list the grader itself
    tries. Only midpoints inside some slip's band (or the rounding band, or below 0
    when a negative answer earns credit) can earn a partial credit, so only those are
    asked. Returns per shape ``(lo, hi, what)``, or None when no slip applies.
    """
    s = sign.size
    bases = np.full(s, base, object)
    labels, _, cand, _, _ = slip_candidates(sign, bases, alternatives, np.full(s, percent))
    with np.errstate(invalid="ignore"):
        cand = np.where(cand == 0, np.nan, cand)
    cand = cand[:, ~np.all(np.isnan(cand), axis=0)]
    valid = ~np.all(np.isnan(cand), axis=1) if cand.shape[1] else np.zeros(s, bool)
    if not valid.any():
        return [None] * s
    tol = tolerance_band(sign, rtol, atol, 0, 1.0)
    lo_right = np.where(nonneg, np.maximum(sign - tol, 0.0), sign - tol)
    cand_tol = tolerance_band(cand, rtol[:, None], atol[:, None] * np.abs(cand), 0, 1.0)
    half = SLIP_BAND * cand_tol
    # a shape without any slip has only NaN candidates: its bounds are never used
    low = np.fmin(np.nanmin(np.where(valid[:, None], cand - half, np.inf), axis=1), lo_right)
    high = np.fmax(np.nanmax(np.where(valid[:, None], cand + half, -np.inf), axis=1),
                   sign + ROUNDING_FACTOR * tol)
    rounding = credits["rounding"] > 0
    k = cand.shape[1]
    rows = np.arange(s)
    # (row, edge, coverage step): +1 where a band starts, -1 where it ends
    parts = [(rows, np.zeros(s), 0), (rows, sign - tol, 0), (rows, sign + tol, 0),
             (rows, sign - ROUNDING_FACTOR * tol, int(rounding)),
             (rows, sign + ROUNDING_FACTOR * tol, -int(rounding))]
    rk = np.repeat(rows, k)
    parts += [(rk, (cand - half).ravel(), 1), (rk, (cand + half).ravel(), -1),
              (rk, cand_tol.ravel(), 0), (rk, -cand_tol.ravel(), 0),
              (rk, (2 * cand - sign[:, None]).ravel(), 0), (rk, ((2 * cand + sign[:, None]) / 3).ravel(), 0)]
    # where two slips are equally close (distance measured in each one's band)
    aj, ak = cand[:, :, None], cand[:, None, :]
    hj, hk = half[:, :, None], half[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        near = np.triu(np.ones((k, k), bool), 1)[None] & (np.abs(aj - ak) <= hj + hk)
        r3 = np.broadcast_to(rows[:, None, None], near.shape)
        parts.append((r3[near], ((aj * hk + ak * hj) / (hj + hk))[near], 0))
        unequal = near & (hj != hk)
        parts.append((r3[unequal], ((aj * hk - ak * hj) / (hk - hj))[unequal], 0))
    row = np.concatenate([p[0] for p in parts])
    edge = np.concatenate([np.broadcast_to(p[1], p[0].shape) for p in parts])
    step = np.concatenate([np.full(p[0].shape, p[2]) for p in parts])
    keep = ~np.isnan(edge) & valid[row]
    row, edge, step = row[keep], np.clip(edge[keep], low[row[keep]], high[row[keep]]), step[keep]
    order = np.lexsort((edge, row))
    row, edge, step = row[order], edge[order], step[order]
    covered = np.cumsum(step)  # each row's steps add up to 0
    gap = (row[1:] == row[:-1]) & (edge[1:] > edge[:-1])
    if credits["negative"] <= 0:
        gap &= covered[:-1] > 0
    at = np.flatnonzero(gap)
    m_row, lo, hi = row[at], edge[at], edge[at + 1]
    n = at.size
    out = evaluate((lo + hi) / 2, np.full(n, "ok", object), sign[m_row], np.full(n, base, object),
                   rtol[m_row], atol[m_row], np.zeros(n), np.ones(n),
                   {code: [v[m_row] for v in vs] for code, vs in alternatives.items()}, credits,
                   percent=np.full(n, percent), nonnegative=nonneg[m_row])
    hit = np.flatnonzero(~out["correct"] & (out["score"] > 0))
    m_row, lo, hi = m_row[hit], lo[hit], hi[hit]
    score, diagnosis = out["score"][hit], out["diagnosis"][hit]
    factor, which, ratio = out["factor"][hit], out["alternative"][hit], out["ratio"][hit]
    # consecutive pieces with the same verdict merge into one stretch
    same = ((m_row[1:] == m_row[:-1]) & (lo[1:] == hi[:-1]) & (score[1:] == score[:-1])
            & (diagnosis[1:] == diagnosis[:-1]) & (factor[1:] == factor[:-1]) & (which[1:] == which[:-1]))
    first = np.flatnonzero(np.r_[True, ~same])
    last = np.r_[first[1:] - 1, hit.size - 1]
    bounds = np.searchsorted(m_row[first], np.arange(s + 1))
    result = []
    for r in range(s):
        if not valid[r]:
            result.append(None)
            continue
        f, t = first[bounds[r]:bounds[r + 1]], last[bounds[r]:bounds[r + 1]]
        what = list(zip(score[f].tolist(), diagnosis[f].tolist(), factor[f].tolist(), which[f].tolist(),
                        ratio[f].tolist()))
        result.append((lo[f], hi[t], what))
    return result


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


def _xml_text(text: str) -> str:
    """Text escaped for an XML element: ``&``, ``<``, ``>``, and any non-ASCII character
    as a character reference (``µ`` as ``&#181;``), so the document is plain ASCII."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text if text.isascii() else text.encode("ascii", "xmlcharrefreplace").decode("ascii")


def _html_text(text: str) -> str:
    """Plain text as an HTML paragraph, escaped for an XML element (Moodle's "html" format)."""
    return _xml_text(f"<p>{html.escape(text, quote=False)}</p>")


@functools.lru_cache(maxsize=None)
def _units_xml(unit: str, fold_case: bool = False) -> str:
    """The ``<units>`` element of a question asked in ``unit``, written once per unit."""
    choices = unit_choices(unit, fold_case)
    if not choices:
        return ""
    lines = "".join(f"      <unit><multiplier>{_fmt(m)}</multiplier><unit_name>{_xml_text(n)}</unit_name></unit>\n"
                    for n, m in choices)
    return f"    <units>\n{lines}    </units>\n"


def moodle_xml(lab=None, seeds: Iterable[int] | None = None, *,
               answer_ids: Sequence[str] | None = None, accounting: str | None = None,
               credit: Mapping[str, float] | None = None, slips: bool = True,
               category: str | None = None, unit_penalty: float = 1.0, lms: str = "moodle-en",
               assignment=None) -> str:
    """A Moodle XML quiz: one category per answer id, one numerical question per variant.

    Parameters
    ----------
    lab, seeds, answer_ids, accounting, credit, slips, assignment
        As in :func:`quiz_items`.
    category : str, optional
        Category path under the course (``"labcalc/<lab>"`` by default).
    unit_penalty : float, default 1.0
        Share of the mark lost for a missing or unknown unit in rate, size and time
        questions (labcalc never assumes a unit: 1.0 gives no points without one).
        Percent questions are asked as fractions and plain numbers have no unit: a
        response with a unit gets Moodle's "number without a unit" message.
    lms : str, default "moodle-en"
        The Moodle site the quiz is written for, by its language (whose decimal and
        thousands separators change how Moodle reads a number: see
        :mod:`labcalc.grading.moodle`): ``"moodle-en"``, ``"moodle-fr"``, ``"moodle-de"``,
        each also with ``"-mysql"`` for a Moodle on MySQL or MariaDB, whose import refuses
        unit names that differ only in letter case (one per group is then written:
        :func:`labcalc.grading.moodle.unit_case_folded`). Each category's description states it, and
        each question's text says how to type an answer there
        (:func:`labcalc.grading.moodle.how_to_answer`); grade with ``labcalc grade
        --lms`` and the same value to see Moodle's grades.

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
    site = site_language(lms)
    fold = unit_case_folded(lms)
    on = " on MySQL or MariaDB (each unit name in one letter case)" if fold else ""
    assumed = (f" Written for a Moodle site in {site.name} ({site.separators()}){on}; labcalc grade --lms "
               f"moodle-{site.code}{'-mysql' if fold else ''} grades as it does.")
    task = _task(assignment)
    items = _items(lab, seeds, answer_ids, accounting, credit, slips, True, task, site)
    lab = _lab_name(lab if lab is not None else task.lab)
    base = category or f"labcalc/{lab}"
    pieces: dict[tuple, tuple[str, str]] = {}
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n']
    current = None
    for item in items:
        if item["id"] != current:
            current = item["id"]
            out.append(f'  <question type="category">\n'
                       f'    <category><text>{_xml_text(f"$course$/top/{base}/{current}")}</text></category>\n'
                       f'    <info format="html"><text>{_html_text(f"Variants of {lab} {current}; draw one at random.{assumed}")}'
                       f'</text></info>\n  </question>\n')
        unit = item["unit"]
        choices = unit_choices(unit, fold)
        idnumber = f"{lab}-{item['id']}-v{item['seed']}"
        out.append(f'  <question type="numerical">\n'
                   f'    <name><text>{_xml_text(item["name"])}</text></name>\n'
                   f'    <questiontext format="html"><text>{_html_text(item["text"])}</text></questiontext>\n'
                   f'    <generalfeedback format="html"><text></text></generalfeedback>\n'
                   f'    <defaultgrade>{_fmt(item["points"])}</defaultgrade>\n'
                   f'    <penalty>0.3333333</penalty>\n    <hidden>0</hidden>\n'
                   f'    <idnumber>{_xml_text(idnumber)}</idnumber>\n')
        numbers = _fmt_many(item["mids"] + item["halves"])
        for (fraction, feedback), value, tol in zip(item["labels"], numbers, numbers[len(item["mids"]):]):
            parts = pieces.get((fraction, feedback))
            if parts is None:  # each grade and feedback is written out once, then reused
                parts = pieces[fraction, feedback] = (
                    f'    <answer fraction="{_fmt(fraction)}" format="moodle_auto_format"><text>',
                    f'</text><feedback format="html"><text>{_html_text(feedback)}</text></feedback><tolerance>')
            out += (parts[0], value, parts[1], tol, "</tolerance></answer>\n")
        graded = bool(unit)
        out.append(f'{_units_xml(unit, fold)}'
                   f'    <unitgradingtype>{"1" if graded else "0"}</unitgradingtype>\n'
                   f'    <unitpenalty>{unit_penalty if graded else 0.0:.7f}</unitpenalty>\n'
                   f'    <showunits>{"0" if choices else "3"}</showunits>\n'
                   f'    <unitsleft>0</unitsleft>\n  </question>\n')
    out.append("</quiz>\n")
    return "".join(out)


def _gift_escape(text: str) -> str:
    """Text with GIFT's special characters ``~ = # { } :`` and backslash escaped, on one line."""
    text = text.replace("\\", "\\\\")  # first, so the escapes below stay single
    for c in "~=#{}:":
        if c in text:
            text = text.replace(c, "\\" + c)
    return text.replace("\n", " ")


def gift(lab=None, seeds: Iterable[int] | None = None, *,
         answer_ids: Sequence[str] | None = None, accounting: str | None = None,
         credit: Mapping[str, float] | None = None, slips: bool = True,
         category: str | None = None, assignment=None) -> str:
    """The same quiz in Moodle's GIFT format (numerical questions, without units).

    Parameters
    ----------
    lab, seeds, answer_ids, accounting, credit, slips, category, assignment
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
    ::lab5 Q3 (variant 0)::A UDP client sends datagrams that carry 1000 bytes of application data each over Ethernet. How many bytes of link time does one datagram take, counting the preamble and SFD, the Ethernet, IP and UDP headers, the FCS and the inter-frame gap? Give the answer in bytes, the number only. Type the number alone, with a decimal point and no thousands separator (4.5, not 4,5).{#
    =%100%1066:0.5#Right.
    }
    <BLANKLINE>
    """
    task = _task(assignment)
    items = _items(lab, seeds, answer_ids, accounting, credit, slips, False, task)
    lab = _lab_name(lab if lab is not None else task.lab)
    base = category or f"labcalc/{lab}"
    escaped: dict[tuple, tuple[str, str]] = {}
    out = []
    current = None
    for item in items:
        if item["id"] != current:
            current = item["id"]
            out.append(f"$CATEGORY: $course$/top/{base}/{current}\n")
        text = item["text"]
        out.append(f"// {lab} {item['id']}, variant {item['seed']}")
        out.append(f"::{_gift_escape(item['name'])}::{_gift_escape(text)}{{#")
        numbers = _fmt_many(item["mids"] + item["halves"])
        for (fraction, feedback), value, tol in zip(item["labels"], numbers, numbers[len(item["mids"]):]):
            parts = escaped.get((fraction, feedback))
            if parts is None:
                parts = escaped[fraction, feedback] = (f"=%{_fmt(fraction)}%", f"#{_gift_escape(feedback)}")
            out.append(parts[0] + value + ":" + tol + parts[1])
        out.append("}\n")
    return "\n".join(out)


def _task(assignment):
    """``None``, an assignment, or an assignment read from its file."""
    if assignment is None:
        return None
    from labcalc.grading.assignment import Assignment, read_assignment

    return assignment if isinstance(assignment, Assignment) else read_assignment(assignment)


def _lab_name(lab) -> str:
    """The registry name of ``lab`` (a :class:`labcalc.labs.Lab` or a name)."""
    from labcalc.labs import get_lab

    return get_lab(lab).name
