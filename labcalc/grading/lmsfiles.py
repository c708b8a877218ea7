"""The LMS's files: which question each response of a quiz report answers, and grades for import.

Moodle is the LMS whose files are read and written here (the layouts are taken from its
source and documentation, cited below):

- **in**: the quiz "Responses" report download, one row per attempt with ``Response 1``
  ... ``Response n`` (read by :func:`labcalc.grading.read_answers`, see
  :mod:`labcalc.grading._layouts`). :func:`resolve_slots` says which question each
  response answers and on which variant: from the question text the student saw (the
  report's ``Question n`` columns), matched against the texts the quiz was exported
  with, which also gives the variant Moodle drew for that student; otherwise from the
  assignment's ``slots`` (the quiz's questions in order);
- **out**: :func:`moodle_grade_import` writes the CSV file Moodle's gradebook imports
  (*Grades > Import > CSV file*): one identifier column that the import maps to a user
  field (``useremail``, ``username`` or ``useridnumber``, chosen under *Map to*, whose
  default is Moodle's internal user id; the import matches an email address or a
  username without regard to case, an ID number exactly, and stops at the first user
  it cannot find, so every row is a real student),
  one column per grade item, an optional feedback column, and the variant as text
  (``v1526825638187099109``) in a column the import ignores, so that a spreadsheet
  that opens and saves the file keeps its 19 digits.

Examples
--------
>>> from labcalc.grading import grade, read_answers
>>> res = grade(read_answers(b"student,question,answer\\nada@uni.edu,Q4,4.69 Mbit/s\\n"), "lab5")
>>> print(moodle_grade_import(res).splitlines()[0])
Email address,labcalc lab5,labcalc variant
"""

from __future__ import annotations

import html
import io
import re
import unicodedata

import numpy as np

from labcalc.grading._layouts import SLOT_PREFIX
from labcalc.grading.assignment import IDENTIFIERS

__all__ = ["resolve_slots", "moodle_grade_import", "write_moodle_grade_import", "IDENTIFIER_HEADERS"]

#: The identifier columns of Moodle's grade import, by the field the import maps them to
#: (``gradeimport_csv_load_data::map_user_data_with_value``: useremail, username,
#: useridnumber), named as Moodle's own reports name them: the assignment's
#: ``[lms] identifier`` names (:data:`labcalc.grading.assignment.IDENTIFIERS`).
IDENTIFIER_HEADERS = IDENTIFIERS
_SENTENCE_END = re.compile(r"[.?!:](?= )")


def _normal(text: str) -> str:
    """A question text as Moodle's report gives it back: entities decoded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", html.unescape(text)).split())


def _text_index(lab, task, accounting: str) -> dict[str, tuple[str, int]]:
    """Normalised question text (without the instruction) -> (answer id, seed), for the
    variants the quiz was exported with (the assignment's, else 1..20) and the handout's."""
    ids = task.questions if task is not None else tuple(a.id for a in lab.answers)
    seeds = list(task.seeds) if task is not None else list(range(1, 21))
    answers = {a.id: a for a in lab.answers}
    index: dict[str, tuple[str, int]] = {}
    for seed in [0] + seeds:
        params = lab.variant(seed)
        for answer_id in ids:
            # a text shared by two variants asks for the same value (each question is
            # self-contained), so the first variant stands for both
            index.setdefault(_normal(answers[answer_id].text(params, accounting)), (answer_id, seed))
    return index


def _match(text: str, index: dict, lengths: frozenset) -> tuple[str, int] | None:
    """The (answer id, seed) whose question is the start of ``text`` (what follows it is
    the instruction on how to answer, whatever its wording). Only the sentence ends at
    the length of an indexed text are tried (``lengths``): a long text of many short
    sentences costs one look-up per question length, not one per sentence."""
    text = _normal(text)
    if text in index:
        return index[text]
    for m in reversed(list(_SENTENCE_END.finditer(text))):
        if m.end() not in lengths:
            continue
        found = index.get(text[:m.end()])
        if found is not None:
            return found
    return None


def resolve_slots(sheet, lab, task=None, accounting: str = "wire"):
    """The questions (and variants) of the responses of an LMS report.

    Parameters
    ----------
    sheet : AnswerSheet
        From :func:`labcalc.grading.read_answers`; rows whose question is ``"#n"`` come
        from the ``Response n`` column of a report.
    lab : Lab
        The lab graded.
    task : Assignment, optional
        Its ``slots`` say which answer id each response column answers; its variants
        are those the question texts are matched against.
    accounting : str, default "wire"
        The accounting the question texts were exported in.

    Returns
    -------
    sheet : AnswerSheet
        The same rows, each ``"#n"`` replaced by an answer id where it is known, and the
        variant of each response whose question text was matched.
    per_answer : bool
        True when the variants come from the question texts: each answer has its own
        (an LMS draws a variant per question).

    Notes
    -----
    A response whose question text is in the report is matched by that text: the
    question as the quiz was exported (:func:`labcalc.grading.export.question_text`,
    without the sentence on how to answer) must be the start of it. Otherwise
    ``Response n`` answers ``task.slots[n - 1]``. A response neither resolves stays
    ``"#n"`` and is reported by :func:`labcalc.grading.grade`.

    Examples
    --------
    >>> from labcalc.grading import read_answers
    >>> from labcalc.grading.assignment import assignment_from_text
    >>> from labcalc.labs import get_lab
    >>> sheet = read_answers(b"Username,State,Response 1,Response 2\\nada,Finished,1066 bytes,-\\n")
    >>> task = assignment_from_text('lab = "lab5"\\nquestions = ["Q3", "Q4"]\\n')
    >>> resolved, per_answer = resolve_slots(sheet, get_lab("lab5"), task)
    >>> resolved.answers[["question", "answer"]].values.tolist(), per_answer
    ([['Q3', '1066 bytes'], ['Q4', '']], False)
    """
    from dataclasses import replace

    df = sheet.answers
    if not len(df):
        return sheet, False
    questions = df["question"].to_numpy(object)
    slot_rows = np.flatnonzero([str(q).startswith(SLOT_PREFIX) for q in questions])
    if not slot_rows.size:
        return sheet, False
    questions = questions.copy()
    variants = df["variant"].to_numpy(np.int64).copy()
    texts = df["question_text"].to_numpy(object)
    index = _text_index(lab, task, accounting) if sheet.question_texts else {}
    lengths = frozenset(map(len, index))
    slots = task.slots if task is not None else ()
    matched = 0
    for i in slot_rows:
        found = _match(texts[i], index, lengths) if index and texts[i] else None
        if found is not None:
            questions[i], variants[i] = found
            matched += 1
            continue
        n = int(str(questions[i])[1:])
        if 1 <= n <= len(slots):
            questions[i] = slots[n - 1]
    out = df.copy()
    out["question"], out["variant"] = questions, variants
    notes = list(sheet.notes)
    if matched:
        notes.append(f"{matched} of {slot_rows.size} responses matched to their question and variant by "
                     f"the question text the student saw")
    if matched < slot_rows.size and slots:
        notes.append(f"responses without a question text taken in the order of the assignment's slots "
                     f"(Response 1 = {slots[0]})")
    per_answer = matched > 0
    return replace(sheet, answers=out, notes=tuple(notes), has_variant=sheet.has_variant or per_answer), \
        per_answer


def _identifier(result, identifier: str | None) -> str:
    """The header of the identifier column: asked for, or the report's own, or by the ids' look."""
    if identifier is not None:
        key = identifier.strip().lower()
        if key not in IDENTIFIER_HEADERS:
            raise ValueError(f"identifier must be one of {', '.join(IDENTIFIER_HEADERS)}; got {identifier!r}")
        return IDENTIFIER_HEADERS[key]
    for header in IDENTIFIER_HEADERS.values():
        if result.id_column.strip().lower() == header.lower():
            return header
    students = result.grades["student"].astype(str)
    if len(students) and students.str.contains("@").all():
        return IDENTIFIER_HEADERS["email"]
    return IDENTIFIER_HEADERS["username"]


def moodle_grade_import(result, *, identifier: str | None = None, grade_item: str | None = None,
                        grade_max: float | None = None, per_question: bool = False,
                        feedback: bool = False) -> str:
    """The grades of a class as the CSV file Moodle's gradebook imports.

    Parameters
    ----------
    result : GradeResult
        A graded class (:func:`labcalc.grading.grade`).
    identifier : {"email", "username", "idnumber"}, optional
        What the student ids are, and so which user field the import maps the first
        column to (``useremail``, ``username``, ``useridnumber``). By default the
        column the ids came from (a Moodle report's ``Email address`` or
        ``Username``), the assignment's ``[lms] identifier``, else ``email`` when every
        id holds an ``@``, else ``username``. Usernames are written in lower case, as
        Moodle keeps them (its import compares usernames and email addresses without
        regard to case, ID numbers exactly); email ids without an ``@`` are refused (the import would
        stop at the first).
    grade_item : str, optional
        Header of the grade column (the assignment's ``[lms] grade_item`` or title,
        else ``"labcalc <lab>"``); map it to the grade item in the import's preview,
        or import it as a new item of that name.
    grade_max : float, optional
        The grade item's maximum: each total is scaled to it (``total / max_total *
        grade_max``). By default the assignment's ``[lms] grade_max``, else the points.
    per_question : bool, default False
        Also one column per answer id (its points), for one grade item each.
    feedback : bool, default False
        Add a ``Feedback`` column (points and the slips named); map it to "Feedback for
        <item>". Moodle's documentation warns that importing feedback for an item
        replaces its grades too: import the two together.

    Returns
    -------
    str
        The CSV text (comma-separated, UTF-8; write it with a byte-order mark for Excel,
        which :func:`write_moodle_grade_import` does and Moodle's importer removes).

    Raises
    ------
    ValueError
        For an unknown ``identifier``, a ``grade_max`` that is not > 0, or email ids
        that are not email addresses.

    Notes
    -----
    Grades are plain decimals with a point and at most four decimals; Moodle's import
    reads them with ``unformat_float`` (strict: a cell that is not a number stops the
    import) and takes ``-`` or an empty cell as "no grade". A grade outside the grade
    item's range (above its maximum grade, or below its minimum) stops the whole import
    with "gradevaluetoobig" unless the site allows unlimited grades
    (``gradeimport_csv_load_data::insert_grade_record``, Moodle 5.1; it is not cut to
    the maximum): without ``grade_max`` the grades are points, so give the item's
    maximum when the points can exceed it. Text cells are neutralised against
    formula injection (:func:`labcalc.grading.csv_safe`). The variant goes into a
    ``labcalc variant`` column as text (``v`` and the digits), which the import ignores
    unless it is mapped.

    References
    ----------
    Moodle documentation, "Grade import" (docs.moodle.org: CSV import, column mapping,
    "Map from" / "Map to" ``useremail``, ``username``, ``useridnumber``); Moodle's source,
    ``grade/import/csv/classes/load_data.php``.

    Examples
    --------
    >>> from labcalc.grading import grade, read_answers
    >>> res = grade(read_answers(b"student,question,answer\\nU2501,Q4,4.69 Mbit/s\\n"), "lab5")
    >>> print(moodle_grade_import(res, grade_item="Lab 5", grade_max=10))
    Username,Lab 5,labcalc variant
    u2501,0.1818,v0
    <BLANKLINE>
    """
    import pandas as pd

    from labcalc.grading.tables import csv_safe, variant_text

    task = result.assignment
    if identifier is None and task is not None and task.identifier:
        identifier = task.identifier
    header = _identifier(result, identifier)
    item = grade_item or (task.grade_item if task is not None and task.grade_item else None) \
        or (task.title if task is not None and task.title else None) or f"labcalc {result.lab}"
    if grade_max is None and task is not None:
        grade_max = task.grade_max
    if grade_max is not None and not (np.isfinite(grade_max) and grade_max > 0):
        raise ValueError(f"grade_max must be a number > 0; got {grade_max!r}")
    g = result.grades
    students = [str(x) for x in g["student"]]
    if header == IDENTIFIER_HEADERS["username"]:
        # Moodle keeps usernames in lower case (its import compares them without regard to
        # case: gradeimport_csv_load_data::check_user_exists, Moodle 5.1)
        students = [x.lower() for x in students]
    elif header == IDENTIFIER_HEADERS["email"]:
        odd = next((x for x in students if "@" not in x), None)
        if odd is not None:
            raise ValueError(f"identifier email: the student id {odd[:40]!r} (from column {result.id_column!r}) "
                             f"is not an email address, and Moodle's import stops at the first id it cannot "
                             f"match; grade the file's email column (--column student='Email address'), or "
                             f"say what the ids are (--moodle-id username or idnumber, [lms] identifier)")
    total = g["total"].to_numpy(float)
    if grade_max is not None:
        max_total = g["max_total"].to_numpy(float)
        total = np.where(max_total > 0, total / np.where(max_total > 0, max_total, 1) * grade_max, 0.0)
    out = pd.DataFrame({header: [csv_safe(s) for s in students], item: np.round(total, 4)})
    if per_question:
        for answer_id in result.stats.index:
            out[f"{item} {answer_id}"] = np.round(g[answer_id].to_numpy(float), 4)
    if feedback:
        out["Feedback"] = [csv_safe(_feedback_line(result, s)) for s in g["student"]]
    out["labcalc variant"] = [variant_text(v) for v in g["variant"]]
    buf = io.StringIO()
    # rounded to 4 decimals, then written as Python writes the float (0.1818, 1.0)
    out.to_csv(buf, index=False, lineterminator="\n")
    return buf.getvalue()


def _feedback_line(result, student: str) -> str:
    """One line of feedback: points, and the slips the student made."""
    d = result.detail[result.detail["student"] == student]
    g = result.grades.set_index("student").loc[student]
    slips = d["diagnosis"].dropna()
    slips = slips[slips != "empty"].value_counts()
    named = "; slips: " + ", ".join(f"{code} x{n}" if n > 1 else code for code, n in slips.items()) \
        if len(slips) else ""
    return (f"{g['total']:.4g} of {g['max_total']:.4g} points ({g['percent']:.0f} %), "
            f"{int(d['correct'].sum())} of {len(result.stats)} answers right{named}")


def write_moodle_grade_import(result, path, **options) -> None:
    """Write :func:`moodle_grade_import` to ``path`` (UTF-8 with a byte-order mark).

    Parameters
    ----------
    result : GradeResult
        A graded class.
    path : str or Path
        The CSV file to write.
    **options
        As in :func:`moodle_grade_import`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from labcalc.grading import grade, read_answers
    >>> res = grade(read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n"), "lab5")
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_moodle_grade_import(res, pathlib.Path(d) / "moodle.csv")
    ...     (pathlib.Path(d) / "moodle.csv").read_bytes()[:3]
    b'\\xef\\xbb\\xbf'
    """
    from pathlib import Path

    Path(path).write_text(moodle_grade_import(result, **options), encoding="utf-8-sig")
