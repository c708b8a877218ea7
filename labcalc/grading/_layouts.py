"""The layouts of an answers file: which columns hold what, and the rows they give.

Private to :mod:`labcalc.grading`. Two layouts are read:

- **long**: one row per answer, columns ``student``, ``question``, ``answer`` and
  optionally ``variant`` (labcalc's own layout, and what most exports can be made to
  give);
- **responses**: one row per attempt, one column per question, as Moodle's quiz
  "Responses" report downloads it: the student's name and identity columns
  (``Username``, ``Email address``, ``ID number``...), ``State``, ``Started on``,
  ``Completed``, ``Time taken``, ``Grade/10.00``, then ``Response 1`` ... ``Response n``,
  and, when the report was asked for them, ``Question n`` (the question text the
  student saw) and ``Right answer n`` (Moodle's ``quiz_responses`` report:
  ``report.php`` adds ``responsex`` = "Response {$a}" per slot; empty responses are
  downloaded as ``-``; ``attempts_report::add_user_columns``, ``add_time_columns`` and
  ``add_grade_columns`` give the other headers). Moodle's spreadsheet writers
  (``lib/classes/dataformat/spout_base.php``, ``write_record``, in current Moodle) put
  an apostrophe before a cell that starts with ``=``, ``+``, ``-`` or ``@`` (a lone
  ``-`` excepted): a response typed ``-0.5`` is downloaded as ``'-0.5``; the
  apostrophe is dropped here. An attempt is graded when its state is ``Finished`` or
  ``Submitted`` (Moodle 5's state for a submitted attempt whose automatic grading is
  still queued: its responses are final).

  Downloaded with *Which tries* = *All tries* (an interactive quiz, several tries per
  question), an attempt is several rows, one per try
  (``first_or_all_responses_table::load_extra_data``): only the last row has the
  state (``col_state`` writes it on the row of the last try of all questions, nothing
  on the others), only the first has the email address (``col_email``), and a
  question tried fewer times than the most tried one is ``-`` on the rows after its
  last try. The rows of one attempt (same student, same ``Started on``) are read
  together here: each question's last response in them is graded. Rows of earlier
  tries that no row with a state follows (*First try*) are reported, not graded.

Any other layout is read through a column mapping (labcalc's field -> the file's header;
for ``response`` and ``question_text``, the prefix of the numbered columns, such as
``"Antwort"`` for ``Antwort 1``, ``Antwort 2`` ...).

Every layout gives the same rows to the checks of :mod:`labcalc.grading.answerfile`:
``(row, [student, question, answer, variant, question_text], None)`` or ``(row, None,
reason)``. A response column gives the question id ``"#n"`` (its slot in the quiz),
which :func:`labcalc.grading.grade` resolves (by the question text, or the assignment's
slots).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["LayoutError", "Layout", "find_layout", "SLOT_PREFIX", "NO_RESPONSE", "GRADED_STATES"]

#: How a response column's question is named until it is resolved: ``"#3"`` is slot 3.
SLOT_PREFIX = "#"
#: What Moodle's report writes for a question without a response.
NO_RESPONSE = "-"
#: States of an attempt whose responses are graded (lower case): Moodle's "Finished",
#: and "Submitted" (submitted, its automatic grading still queued).
GRADED_STATES = ("finished", "submitted")
#: The other states Moodle's English reports write (an attempt not submitted).
UNGRADED_STATES = ("in progress", "overdue", "never submitted", "not yet started", "abandoned")
#: The apostrophe Moodle's spreadsheet writers put before a cell a spreadsheet would run.
_ESCAPED = re.compile(r"'(?=\s*[=+\-@]|[\t\r\n])")

#: Identity columns of Moodle's reports, in the order one is chosen as the student id
#: (lower case, as :func:`labcalc._textio.column_name` gives them).
IDENTITY_COLUMNS = ("username", "email address", "id number", "email", "idnumber")
_NUMBERED = re.compile(r"^(.*?)\s*([0-9]{1,6})$")
_LONG_FIELDS = ("student", "question", "answer")


class LayoutError(ValueError):
    """A header that no layout fits (the caller adds the file's name)."""


@dataclass
class Layout:
    """Where each field is in a record, and how a record becomes answer rows.

    Attributes
    ----------
    kind : str
        ``"long"`` or ``"responses"``.
    n_columns : int
        Fields in the header.
    student : int
        Column of the student id; ``id_column`` is its header as written.
    question, answer, variant, state : int or None
        Columns of the long layout (``variant`` and ``state`` optional).
    started : int or None
        Column of the attempt's start time (``Started on``), which tells the rows of
        one attempt's tries apart from the next attempt's.
    responses : list of (int, int)
        ``(column, slot)`` of each response column (responses layout).
    texts : dict
        Slot -> column of the question text the student saw.
    other_ids : tuple of str
        The report's other identity columns, as written (for a message).
    finished : tuple of str
        The states (lower case) of an attempt that is graded (when there is a state column).
    """

    kind: str
    n_columns: int
    student: int
    id_column: str
    question: int | None = None
    answer: int | None = None
    variant: int | None = None
    state: int | None = None
    started: int | None = None
    responses: list = field(default_factory=list)
    texts: dict = field(default_factory=dict)
    finished: tuple = GRADED_STATES
    other_ids: tuple = ()

    @property
    def has_variant(self) -> bool:
        return self.variant is not None

    def rows(self, records, control):
        """The answer rows of ``records`` (see the module documentation).

        ``control`` is the pattern of characters that make a field unusable (binary
        data); a record holding one in a field it uses is reported and skipped.
        """
        n = self.n_columns
        tries = None  # the rows of earlier tries of the attempt being read (see _earlier_try)
        for row, fields, error in records:
            if error is not None:
                yield row, None, error
                continue
            if not fields or all(not str(f).strip() for f in fields):
                continue  # blank line
            if len(fields) != n:
                hint = " (an unquoted comma in the answer?)" if len(fields) > n else ""
                yield row, None, (f"{len(fields)} field{'s' if len(fields) != 1 else ''} where the "
                                  f"header has {n}{hint}")
                continue
            if self.kind == "long":
                if any(control.search(f) for f in fields):
                    yield row, None, "contains binary data or control characters"
                    continue
                yield row, [fields[self.student], fields[self.question], fields[self.answer],
                            fields[self.variant] if self.variant is not None else "", ""], None
                continue
            if self.state is not None:
                tries, fields, unread = self._tries(tries, row, fields)
                yield from unread
                if fields is None:
                    continue
            yield from self._attempt(row, fields, control)
        if tries is not None:
            yield from _unread_tries(tries)

    def _tries(self, tries, row, fields):
        """Fold the rows of an "All tries" download into the row of the attempt's last try.

        Returns ``(tries, fields, unread)``: the rows of earlier tries kept so far (a
        dict, or None), the fields to read now (None while the attempt's last row is
        still to come), and the error rows of earlier tries no last row took.
        """
        student = _unescaped(fields[self.student]).strip()
        started = fields[self.started].strip() if self.started is not None else ""
        same = tries is not None and started == tries["started"] and (
            not student or student.lower() == tries["student"].lower())
        unread = [] if same or tries is None else list(_unread_tries(tries))
        if not same:
            tries = None
        if fields[self.state].strip():  # the attempt's last row (or a one-row attempt)
            if tries is not None:
                fields = list(fields)
                if not student:
                    fields[self.student] = tries["student"]
                for column, slot in self.responses:
                    if fields[column].strip() == NO_RESPONSE and slot in tries["answers"]:
                        fields[column] = tries["answers"][slot]
            return None, fields, unread
        if tries is None:
            if not student:  # not a try of an attempt: read (and reported) as it is
                return None, fields, unread
            tries = {"student": student, "started": started, "rows": [], "answers": {}}
        tries["rows"].append(row)
        for column, slot in self.responses:  # a question's later try replaces its earlier one
            if fields[column].strip() != NO_RESPONSE:
                tries["answers"][slot] = fields[column]
        return tries, None, unread

    def _attempt(self, row, fields, control):
        """The answers of one attempt (one row of a responses report)."""
        head = [fields[self.student]] + ([fields[self.state]] if self.state is not None else [])
        if any(control.search(f) for f in head):
            yield row, None, "contains binary data or control characters"
            return
        student = _unescaped(fields[self.student]).strip()
        if not student and any("average" in f.lower() for f in fields[:self.student + 1]):
            return  # the "Overall average" line of a report: no student
        if not student:
            fix = (f"take another identity column of the report: --column student={self.other_ids[0]!r}"
                   if self.other_ids else "show another identity field in the report (the site's 'Show "
                                          "user identity' setting) and download it again")
            yield row, None, f"the attempt's {self.id_column[:30]!r} is empty (a user without one?); {fix}"
            return
        if self.state is not None:
            state = fields[self.state].strip()
            if state.lower() not in self.finished:
                yield row, None, _not_graded(student, state, self.finished)
                return
        for column, slot in self.responses:
            answer = _unescaped(fields[column])
            text = _unescaped(fields[self.texts[slot]]) if slot in self.texts else ""
            if control.search(answer) or control.search(text):
                yield row, None, (f"response {slot} contains binary data or control characters; that "
                                  f"answer is skipped")
                continue
            answer = "" if answer.strip() == NO_RESPONSE else answer
            yield row, [student, f"{SLOT_PREFIX}{slot}", answer, "", text], None


def _unread_tries(tries):
    """Error rows for the rows of earlier tries that no row of the attempt's last try took."""
    for row in tries["rows"]:
        yield row, None, (f"a row of an earlier try of {tries['student'][:40]!r} (no state: the report was "
                          f"downloaded with 'Which tries' = 'First try' or 'All tries'), and no row of the "
                          f"attempt's last try follows it; download the report with 'Which tries' = "
                          f"'Last try'")


def _unescaped(cell: str) -> str:
    """A cell of a Moodle download without the apostrophe Moodle put before ``=``, ``+``, ``-``, ``@``."""
    return cell[1:] if cell[:1] == "'" and _ESCAPED.match(cell) else cell


def _not_graded(student: str, state: str, finished: tuple) -> str:
    """Why an attempt is not graded, and, for a state Moodle's English reports do not
    write (another site language?), how to name the state of a finished attempt."""
    graded = " or ".join(repr(s.capitalize()) for s in finished)
    reason = f"attempt of {student[:40]!r} is {state[:30]!r}: not graded (only {graded} attempts are)"
    if state.strip().lower() in UNGRADED_STATES or not state.strip():
        return reason
    return (f"{reason}; if {state[:30]!r} is how the site names a finished attempt, say so: "
            f"--column finished={state[:30]!r} (or [lms] finished in the assignment)")


def _numbered(columns, prefix: str) -> dict[int, int]:
    """Slot -> column of the columns named ``prefix n``."""
    out = {}
    for i, c in enumerate(columns):
        m = _NUMBERED.match(c)
        if m and m.group(1) == prefix:
            out.setdefault(int(m.group(2)), i)
    return out


def find_layout(header: list[str], columns: list[str], mapping=None) -> Layout:
    """The layout of a header.

    Parameters
    ----------
    header : list of str
        The header cells as written (for the id column's name).
    columns : list of str
        The same, as column names (normalised, lower case).
    mapping : mapping, optional
        labcalc field -> header name (any case); ``response`` and ``question_text``
        name the prefix of numbered columns; ``finished`` the state of a graded attempt.

    Returns
    -------
    Layout

    Raises
    ------
    LayoutError
        When a required column is missing or appears twice, or a mapping names a
        column that is not there.
    """
    mapping = {k: v for k, v in (mapping or {}).items() if v is not None}
    position: dict[str, int] = {}
    counts = Counter(columns)  # one pass: a header of 100,000 columns stays linear
    for i, c in enumerate(columns):
        position.setdefault(c, i)

    def column(field_name: str, required: bool = True) -> int | None:
        name = mapping.get(field_name, field_name)
        key = name.strip().lower()
        if key not in position:
            if field_name in mapping:
                raise LayoutError(f"no column {name!r} (given for {field_name!r}); the header has "
                                  f"{_some(columns)}")
            if required:
                raise LayoutError(f"missing column {field_name!r} (an answers file needs the columns "
                                  f"student, question, answer, and optionally variant; found: "
                                  f"{_some(columns)}){_numbered_hint(header, columns, mapping)}")
            return None
        if counts[key] > 1:
            raise LayoutError(f"column {name.strip().lower()!r} appears twice")
        return position[key]

    prefix = mapping.get("response", "response").strip().lower()
    responses = _numbered(columns, prefix)
    long_layout = all(mapping.get(f, f).strip().lower() in position for f in ("question", "answer"))
    if long_layout or not responses:
        student, question, answer = (column(f) for f in _LONG_FIELDS)
        return Layout("long", len(columns), student, header[student].strip(), question=question,
                      answer=answer, variant=column("variant", False), state=None)
    if "student" in mapping:
        student = column("student")
    else:
        found = [position[c] for c in IDENTITY_COLUMNS if c in position]
        if not found:
            raise LayoutError(
                f"a responses report (columns {header[next(iter(responses.values()))].strip()!r}...) "
                f"needs a column that identifies each student: Username, Email address or ID number "
                f"(or name it: columns={{'student': ...}}, --column student=NAME); found: {_some(columns)}")
        student = found[0]
        if counts[columns[student]] > 1:
            raise LayoutError(f"column {columns[student]!r} appears twice")
    texts = _numbered(columns, mapping.get("question_text", "question").strip().lower())
    state = column("state", False)
    started = column("started on", False)
    other_ids = tuple(header[position[c]].strip() for c in IDENTITY_COLUMNS
                      if c in position and position[c] != student)
    return Layout("responses", len(columns), student, header[student].strip(), state=state, started=started,
                  responses=sorted(((c, slot) for slot, c in responses.items()), key=lambda cs: cs[1]),
                  texts=texts, finished=_finished(mapping.get("finished")), other_ids=other_ids)


def _finished(given) -> tuple:
    """The states of a graded attempt: the mapping's (one name, or several separated by
    ``|``), else :data:`GRADED_STATES`."""
    if given is None:
        return GRADED_STATES
    names = tuple(n.strip().lower() for n in str(given).split("|") if n.strip())
    return names or GRADED_STATES


def _numbered_hint(header, columns, mapping) -> str:
    """For a header with numbered columns (``Antwort 1``, ``Antwort 2``...) that no
    layout read: a responses report in another language? How to name its columns."""
    if "response" in mapping:
        return ""
    names: dict[str, str] = {}  # lower-case prefix -> as written
    counts = Counter()
    for written, c in zip(header, columns):
        m, w = _NUMBERED.match(c), _NUMBERED.match(written.strip())
        if m and m.group(1) and w:
            names.setdefault(m.group(1), w.group(1))
            counts[m.group(1)] += 1
    numbered = [names[p] for p, n in counts.items() if n >= 2]
    if not numbered:
        return ""
    listing = ", ".join(f"{name!r} n" for name in numbered[:4])
    response = repr(numbered[0]) if len(numbered) == 1 else "NAME"
    return (f"; if this is a quiz's responses report in another language (numbered columns: {listing}), "
            f"name its columns: --column response={response} (the prefix of the response columns), "
            f"--column question_text=... (of the question texts), --column student=..., --column state=... "
            f"and --column finished=... (or the assignment's [columns] and [lms] finished)")


def _some(columns) -> str:
    shown = ", ".join(repr(c[:27] + "..." if len(c) > 30 else c) for c in columns[:6])
    return shown + (f" and {len(columns) - 6} more" if len(columns) > 6 else "")
