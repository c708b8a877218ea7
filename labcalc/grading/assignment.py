"""An assignment: which questions a class was asked, their points, tolerances and slip credits.

One small TOML file, read by both ``labcalc export`` (the quiz) and ``labcalc grade``
(its grading), so that the two cannot disagree: the quiz holds exactly the questions
the class is graded on, with the same tolerances and partial credits, and percentages
are out of the points of what was asked. Every key but ``lab`` and ``questions`` is
optional::

    lab = "lab5"
    title = "Lab 5, theory quiz"          # names the grade item in the LMS file
    accounting = "wire"                   # byte accounting of the answer key
    questions = ["Q3", "Q4", "Q9", "Q13", "Q29"]   # in the quiz's order; "Q13" = all its parts

    [points]                              # default: the lab's own points (1 each)
    Q4 = 2
    "Q13.7" = 0.5                         # an id with a dot goes in quotes

    [tolerance]                           # per answer id; atol as a number in base units
    Q4 = { rtol = 0.02 }                  # or as text with a unit
    Q29 = { atol = "1 ms" }

    [credit]                              # share of the points a slip keeps (0 to 1)
    wire_vs_shaper = 1.0
    missing_unit = 0.0

    [export]                              # the variants the quiz holds
    variants = 20
    first_seed = 1

    [columns]                             # how the answers file names its columns
    student = "Email address"             # (student, question, answer, variant, state,
                                          #  response, question_text)
    [lms]
    identifier = "email"                  # what Moodle matches: email, username or idnumber
    grade_item = "Lab 5 quiz"             # the grade column's name
    grade_max = 10                        # the grade item's maximum: totals scaled to it
    slots = ["Q3", "Q4"]                  # what each "Response n" of the LMS file answers
                                          # (default: the questions, in order)
    finished = "Finished|Submitted"       # the states of a graded attempt in the LMS file
                                          # (default: Moodle's, in English)

Unknown keys are refused (a typo must not silently change a class's grades), and
every value is checked: the message names the file, the key and the value.

Examples
--------
>>> a = assignment_from_text('lab = "lab5"\\nquestions = ["Q4", "q13.7"]\\n[points]\\nQ4 = 2\\n')
>>> a.questions, a.points, a.max_points
(('Q4', 'Q13.7'), {'Q4': 2.0, 'Q13.7': 1.0}, 3.0)
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

__all__ = ["Assignment", "AssignmentError", "read_assignment", "assignment_from_text",
           "assignment_from_dict", "COLUMN_FIELDS", "IDENTIFIERS"]

#: Largest assignment file read [bytes].
MAX_BYTES = 1_000_000
#: Most points one answer can be worth (the total of a class stays a finite number).
MAX_POINTS = 1_000_000
#: The fields of an answers file that ``[columns]`` may name (see :func:`labcalc.grading.read_answers`).
COLUMN_FIELDS = ("student", "question", "answer", "variant", "state", "response", "question_text")
#: Identifier columns Moodle's grade import matches, by the names ``[lms] identifier`` takes.
IDENTIFIERS = {"email": "Email address", "username": "Username", "idnumber": "ID number"}

_TOP = {"lab", "title", "accounting", "questions", "points", "tolerance", "credit", "export", "columns",
        "lms"}
_EXPORT = {"variants", "first_seed"}
_LMS = {"identifier", "grade_item", "grade_max", "slots", "finished"}


class AssignmentError(ValueError):
    """An assignment file that cannot be used; the message names the file, key and value."""


@dataclass(frozen=True)
class Assignment:
    """What one class was asked (see the module documentation for the file).

    Attributes
    ----------
    lab : str
        The lab's registry name.
    questions : tuple of str
        Answer ids asked, in the quiz's order (a question id with parts expanded).
    points : dict
        Points of each asked answer id.
    rtol, atol : dict
        Tolerances that replace the lab's, by answer id (``atol`` in base units).
    credit : dict
        Partial credit per slip (see :data:`labcalc.grading.DEFAULT_CREDIT`).
    accounting : str
        Byte accounting of the answer key.
    title : str
        Names the grade item in the LMS's grade file.
    variants, first_seed : int
        The quiz's variants: seeds ``first_seed`` .. ``first_seed + variants - 1``.
    columns : dict
        Column names of the answers file, by field (see :data:`COLUMN_FIELDS`).
    identifier : str or None
        ``"email"``, ``"username"`` or ``"idnumber"``: the column Moodle's grade import matches.
    grade_item : str or None
        Name of the grade column in the LMS's grade file.
    grade_max : float or None
        The grade item's maximum: totals are scaled to it in the LMS's grade file.
    slots : tuple of str
        The answer id of each response column of an LMS responses file ("Response 1" is
        ``slots[0]``); the questions by default.
    finished : str
        The states of an attempt that is graded in an LMS responses file, separated by
        ``|`` (``""``: Moodle's English ``Finished`` and ``Submitted``); also in
        ``columns["finished"]``, where :func:`labcalc.grading.read_answers` takes it.
    source : str
        The file's name, for messages.

    Examples
    --------
    >>> a = assignment_from_text('lab = "lab5"\\nquestions = ["Q13"]\\n')
    >>> len(a.questions), a.questions[:2], list(a.seeds)[:3]
    (12, ('Q13.1', 'Q13.2'), [1, 2, 3])
    """

    lab: str
    questions: tuple[str, ...]
    points: Mapping[str, float]
    rtol: Mapping[str, float] = field(default_factory=dict)
    atol: Mapping[str, float] = field(default_factory=dict)
    credit: Mapping[str, float] = field(default_factory=dict)
    accounting: str = "wire"
    title: str = ""
    variants: int = 20
    first_seed: int = 1
    columns: Mapping[str, str] = field(default_factory=dict)
    identifier: str | None = None
    grade_item: str | None = None
    grade_max: float | None = None
    slots: tuple[str, ...] = ()
    finished: str = ""
    source: str = "assignment"

    @property
    def max_points(self) -> float:
        """The points of the whole assignment."""
        return float(sum(self.points[q] for q in self.questions))

    @property
    def seeds(self) -> range:
        """The variants of the quiz."""
        return range(self.first_seed, self.first_seed + self.variants)


def _fail(source: str, where: str, what: str):
    raise AssignmentError(f"{source}: {where}: {what}")


def _number(source, where, value, *, low=0.0, high=math.inf, whole=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        _fail(source, where, f"expected a number; got {value!r}")
    if whole and int(value) != value:
        _fail(source, where, f"expected a whole number; got {value!r}")
    if not low <= value <= high:
        span = f"between {low:g} and {high:g}" if math.isfinite(high) else f">= {low:g}"
        _fail(source, where, f"must be {span}; got {value!r}")
    return int(value) if whole else float(value)


def _text(source, where, value, limit=200) -> str:
    if not isinstance(value, str):
        _fail(source, where, f"expected text; got {value!r}")
    if len(value) > limit or any(c in value for c in "\n\r\x00"):
        _fail(source, where, f"expected one line of at most {limit} characters; got {value[:40]!r}...")
    return value


def _table(source, where, value) -> dict:
    if not isinstance(value, dict):
        _fail(source, where, f"expected a table; got {value!r}")
    return value


def _unknown(source, where, table: Mapping, known) -> None:
    extra = sorted(set(table) - set(known))
    if extra:
        _fail(source, where + repr(extra[0]) if where else repr(extra[0]),
              f"unknown key (known: {', '.join(sorted(known))})")


def _answer_ids(lab, source: str, where: str, values) -> list[str]:
    """Answer ids, any case; a question id with parts (``"Q13"``) gives all its parts."""
    ids = [a.id for a in lab.answers]
    by_lower = {i.lower(): i for i in ids}
    if isinstance(values, str) or not isinstance(values, list) or not values:
        _fail(source, where, f"expected a list of answer ids such as [\"Q4\", \"Q13.7\"]; got {values!r}")
    out: list[str] = []
    for k, value in enumerate(values):
        if not isinstance(value, str):
            _fail(source, f"{where}[{k}]", f"expected an answer id; got {value!r}")
        key = value.strip().lower()
        found = [by_lower[key]] if key in by_lower else [i for i in ids if i.lower().startswith(key + ".")]
        if not key or not found:
            _fail(source, f"{where}[{k}]", f"{lab.name} has no question {value!r} (ids look like Q4, Q13.7)")
        for answer_id in found:
            if answer_id in out:
                _fail(source, f"{where}[{k}]", f"{answer_id} is asked twice")
            out.append(answer_id)
    return out


def _one_id(lab, source, where, key, seen: dict | None = None, value=None) -> str:
    """The answer id a table key names (any case); ``seen`` (id -> key) refuses the same
    id given twice, which TOML allows when the keys differ in case (``Q4`` and ``q4``)."""
    ids = {a.id.lower(): a.id for a in lab.answers}
    found = ids.get(str(key).strip().lower())
    if found is None:
        parts = [a.id for a in lab.answers if a.id.lower().startswith(str(key).strip().lower() + ".")]
        if parts and isinstance(value, dict) and value and all(str(k).isdigit() for k in value):
            # TOML reads an unquoted Q13.7 = ... as the table Q13 holding 7
            dotted = f"{key}.{next(iter(value))}"
            _fail(source, f"{where}.{next(iter(value))}", f"write the answer id in quotes, \"{dotted}\" = ...: "
                                                           f"TOML reads {dotted} = ... as a table {key}")
        if parts and str(key).strip():
            _fail(source, where, f"{key} asks for {len(parts)} numbers, each with its own id: give each its "
                                 f"own key (\"{parts[0]}\" = ..., \"{parts[-1]}\" = ...)")
        _fail(source, where, f"{lab.name} has no answer {key!r}")
    if seen is not None:
        if found in seen:
            _fail(source, where, f"{found} is given twice (as {seen[found]!r} and {key!r}); keep one")
        seen[found] = key
    return found


def assignment_from_dict(data: Mapping, source: str = "assignment") -> Assignment:
    """An :class:`Assignment` from the tables of its TOML file, every value checked.

    Parameters
    ----------
    data : mapping
        As :mod:`tomllib` reads the file.
    source : str, default "assignment"
        The file's name, for messages.

    Returns
    -------
    Assignment

    Raises
    ------
    AssignmentError
        Naming the file, the key and the value.

    Examples
    --------
    >>> assignment_from_dict({"lab": "lab5", "questions": ["Q99"]})
    Traceback (most recent call last):
    ...
    labcalc.grading.assignment.AssignmentError: assignment: questions[0]: lab5 has no question 'Q99' (ids look like Q4, Q13.7)
    """
    from labcalc.framing import ACCOUNTINGS
    from labcalc.grading.diagnosis import DEFAULT_CREDIT
    from labcalc.labs import MAX_SEED, get_lab

    data = _table(source, "the file", data)
    _unknown(source, "", data, _TOP)
    if "lab" not in data:
        _fail(source, "lab", "missing (the lab the questions come from, such as \"lab5\")")
    try:
        lab = get_lab(_text(source, "lab", data["lab"]))
    except ValueError as exc:
        _fail(source, "lab", str(exc))
    if "questions" not in data:
        _fail(source, "questions", "missing (the answer ids asked, such as [\"Q4\", \"Q13.7\"])")
    questions = _answer_ids(lab, source, "questions", data["questions"])
    accounting = _text(source, "accounting", data.get("accounting", "wire"))
    if accounting not in ACCOUNTINGS:
        _fail(source, "accounting", f"must be one of {', '.join(ACCOUNTINGS)}; got {accounting!r}")
    default_points = {a.id: float(a.points) for a in lab.answers}
    points = {q: default_points[q] for q in questions}
    seen: dict = {}
    for key, value in _table(source, "points", data.get("points", {})).items():
        answer_id = _one_id(lab, source, f"points.{key}", key, seen, value)
        if answer_id not in points:
            _fail(source, f"points.{key}", f"{answer_id} is not among the questions asked")
        points[answer_id] = _number(source, f"points.{key}", value, high=MAX_POINTS)
    if sum(points.values()) <= 0:
        _fail(source, "points", "the questions asked are worth 0 points in total")
    rtol, atol = {}, {}
    units = {a.id: a.unit for a in lab.answers}
    seen = {}
    for key, value in _table(source, "tolerance", data.get("tolerance", {})).items():
        answer_id = _one_id(lab, source, f"tolerance.{key}", key, seen, value)
        if answer_id not in points:
            _fail(source, f"tolerance.{key}", f"{answer_id} is not among the questions asked")
        value = _table(source, f"tolerance.{key}", value)
        _unknown(source, f"tolerance.{key}.", value, {"rtol", "atol"})
        if "rtol" in value:
            rtol[answer_id] = _number(source, f"tolerance.{key}.rtol", value["rtol"], high=0.5)
        if "atol" in value:
            atol[answer_id] = _atol(source, f"tolerance.{key}.atol", value["atol"], units[answer_id])
    credit = {}
    for key, value in _table(source, "credit", data.get("credit", {})).items():
        if key not in DEFAULT_CREDIT:
            _fail(source, f"credit.{key}", f"unknown slip (known: {', '.join(DEFAULT_CREDIT)})")
        credit[key] = _number(source, f"credit.{key}", value, high=1.0)
    export = _table(source, "export", data.get("export", {}))
    _unknown(source, "export.", export, _EXPORT)
    variants = _number(source, "export.variants", export.get("variants", 20), low=1, high=1000, whole=True)
    first_seed = _number(source, "export.first_seed", export.get("first_seed", 1), low=0,
                         high=MAX_SEED - variants + 1, whole=True)
    columns = {}
    for key, value in _table(source, "columns", data.get("columns", {})).items():
        if key not in COLUMN_FIELDS:
            _fail(source, f"columns.{key}", f"unknown field (known: {', '.join(COLUMN_FIELDS)})")
        columns[key] = _text(source, f"columns.{key}", value, 100)
    lms = _table(source, "lms", data.get("lms", {}))
    _unknown(source, "lms.", lms, _LMS)
    finished = _text(source, "lms.finished", lms.get("finished", ""), 100).strip()
    if finished:
        columns["finished"] = finished
    identifier = None
    if "identifier" in lms:
        identifier = _text(source, "lms.identifier", lms["identifier"]).strip().lower()
        if identifier not in IDENTIFIERS:
            _fail(source, "lms.identifier", f"must be one of {', '.join(IDENTIFIERS)}; got {lms['identifier']!r}")
    grade_max = None
    if "grade_max" in lms:
        grade_max = _number(source, "lms.grade_max", lms["grade_max"], low=1e-9, high=1e6)
    slots = tuple(_answer_ids(lab, source, "lms.slots", lms["slots"])) if "slots" in lms else tuple(questions)
    for k, answer_id in enumerate(slots):
        if answer_id not in points:
            _fail(source, f"lms.slots[{k}]", f"{answer_id} is not among the questions asked (the slots say "
                                             f"what each response of the quiz answers: the questions, in "
                                             f"the quiz's order)")
    return Assignment(
        lab=lab.name, questions=tuple(questions), points=points, rtol=rtol, atol=atol, credit=credit,
        accounting=accounting, title=_text(source, "title", data.get("title", "")), variants=variants,
        first_seed=first_seed, columns=columns, identifier=identifier,
        grade_item=_text(source, "lms.grade_item", lms["grade_item"]) if "grade_item" in lms else None,
        grade_max=grade_max, slots=slots,
        finished=finished, source=source)


def _atol(source, where, value, base: str) -> float:
    """An absolute tolerance: a number in base units, or text with a unit of the answer's kind."""
    if isinstance(value, str):
        from labcalc.units import parse_quantity

        try:
            number, unit = parse_quantity(value)
        except ValueError as exc:
            _fail(source, where, f"{value!r} is not a quantity ({exc})")
        if unit != base:
            _fail(source, where, f"{value!r} is in {unit}, but the answer is in {base}")
        value = number
    return _number(source, where, value)


def assignment_from_text(text: str, source: str = "assignment") -> Assignment:
    """An :class:`Assignment` from the text of its TOML file.

    Parameters
    ----------
    text : str
        The TOML text.
    source : str, default "assignment"
        The file's name, for messages.

    Returns
    -------
    Assignment

    Examples
    --------
    >>> assignment_from_text('lab = "lab5"\\nquestion = ["Q4"]\\n')
    Traceback (most recent call last):
    ...
    labcalc.grading.assignment.AssignmentError: assignment: 'question': unknown key (known: accounting, columns, credit, export, lab, lms, points, questions, title, tolerance)
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise AssignmentError(f"{source}: not valid TOML ({exc})") from None
    except RecursionError:  # tomllib recurses once per nesting level
        raise AssignmentError(f"{source}: not an assignment (tables or arrays nested too deeply)") from None
    return assignment_from_dict(data, source)


def read_assignment(path) -> Assignment:
    """Read an assignment file (TOML; see the module documentation).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    Assignment

    Raises
    ------
    AssignmentError
        The file is missing, too large, not TOML, or a value is wrong.

    Examples
    --------
    >>> read_assignment("missing.toml")
    Traceback (most recent call last):
    ...
    labcalc.grading.assignment.AssignmentError: missing.toml: assignment file not found
    """
    from labcalc._textio import TextInputError, decode, read_bytes

    path = Path(path)
    try:
        data, _, _ = read_bytes(path, max_bytes=MAX_BYTES, name=path.name)
        text = decode(data, path.name).text
    except FileNotFoundError:
        raise AssignmentError(f"{path}: assignment file not found") from None
    except TextInputError as exc:
        raise AssignmentError(f"{path}: {exc.detail}") from None
    return assignment_from_text(text, path.name)
