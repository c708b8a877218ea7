"""Batch grading of a class's answers file (untrusted CSV) into grades and feedback.

The answers file has one row per answer, with columns ``student``, ``question``,
``answer`` and optionally ``variant`` (the seed of the student's numbers); other
columns are ignored. The file comes from students, so:

- it is never evaluated; answers are read by :func:`labcalc.grading.parse_answer`;
- a file above ``max_bytes`` is refused before being read;
- a malformed row (wrong number of fields, binary data, an over-long cell, an unknown
  question, a bad variant, a quote never closed...) is reported with its row number
  and reason, and skipped; it never stops the grading;
- the file may be UTF-8 or cp1252/latin-1 (as Windows spreadsheets write it), with
  commas, semicolons or tabs between the columns, an Excel ``sep=;`` first line and
  blank lines before the header; what was assumed is listed in ``notes``;
- with a course salt, a ``variant`` column is checked against the variant the salt
  gives each student rather than trusted (see :func:`grade`);
- text written back to CSV is neutralised against formula injection
  (:func:`csv_safe`), and to HTML escaped (:mod:`labcalc.grading.report`).

Examples
--------
>>> text = b"student,question,answer\\nada,Q4,4.69 Mbit/s\\nada,Q3,1000 bytes\\nbob,Q9,\\x00\\x01\\n"
>>> result = grade(read_answers(text))
>>> result.grades[["student", "Q3", "Q4", "total"]].to_string(index=False)
'student  Q3  Q4  total\\n    ada 0.5 1.0    1.5'
>>> [str(p) for p in result.problems]
['row 4: contains binary data or control characters']
"""

from __future__ import annotations

import csv
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from labcalc.grading.check import grade_parsed, parse_answer
from labcalc.grading.diagnosis import CONTEXT_SLIPS, credit_table, other_accountings
from labcalc._textio import DELIMITERS, SEP_LINE, column_name, sniff_delimiter
from labcalc.units import _INVISIBLE, normalize_text

__all__ = [
    "AnswerFileError",
    "Problem",
    "AnswerSheet",
    "GradeResult",
    "read_answers",
    "grade",
    "grade_file",
    "csv_safe",
    "DEFAULT_MAX_BYTES",
]

#: Largest answers file read [bytes] (1,000 students x 50 answers take about 2 MB).
DEFAULT_MAX_BYTES = 20_000_000
#: Longest accepted answer and student id [characters].
MAX_ANSWER_CHARS = 100
MAX_STUDENT_CHARS = 64

REQUIRED_COLUMNS = ("student", "question", "answer")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


class AnswerFileError(ValueError):
    """The answers file as a whole cannot be graded (too large, not CSV, columns missing)."""


@dataclass(frozen=True)
class Problem:
    """A row that was skipped, and why.

    Attributes
    ----------
    row : int
        Line of the file where the row starts (the header is row 1); for a data frame,
        its position + 2, as a spreadsheet would number it.
    reason : str
        What is wrong, in a few words; student text in it is quoted with ``repr``.

    Examples
    --------
    >>> res = grade(read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\nbob,Q99,1\\n"))
    >>> p = res.problems[0]
    >>> p.row, p.reason[:22]
    (3, "unknown question 'Q99'")
    """

    row: int
    reason: str

    def __str__(self) -> str:
        return f"row {self.row}: {self.reason}"


@dataclass(frozen=True)
class AnswerSheet:
    """The usable rows of an answers file and the problems found while reading it.

    Attributes
    ----------
    answers : pandas.DataFrame
        Columns ``row``, ``student``, ``question``, ``answer``, ``variant`` (an integer
        seed, or -1 when the row has none: no variant column, or an empty cell).
    problems : tuple of Problem
    has_variant : bool
        Whether the file has a ``variant`` column.
    source : str
        Name of the file, for messages.
    notes : tuple of str
        What was assumed to read the file as a whole: an encoding other than UTF-8,
        a delimiter other than the comma, a skipped ``sep=`` line, rows read again
        after a quote that is never closed.
    reread : tuple of (int, int)
        ``(row, quote_row)`` pairs: the rows from ``row`` on were read again after the
        quote opened at ``quote_row`` was found never to close. :func:`grade` never
        lets such a row replace an answer read before it.

    Examples
    --------
    >>> sheet = read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n")
    >>> sheet.answers["question"].tolist(), sheet.has_variant, sheet.problems
    (['Q4'], False, ())
    >>> read_answers("student;question;answer\\nJosé;Q4;4,69 Mbit/s\\n".encode("cp1252")).notes
    ("the file is not UTF-8: read as cp1252 (Windows Western European); check accented names such as 'José'", "columns separated by ';'")
    """

    answers: object
    problems: tuple[Problem, ...]
    has_variant: bool
    source: str = "answers"
    notes: tuple[str, ...] = ()
    reread: tuple[tuple[int, int], ...] = ()


def csv_safe(value):
    """Neutralise a cell against formula injection when a spreadsheet opens the CSV.

    Text starting with ``=``, ``+``, ``-``, ``@``, a tab or a line break (after any
    spaces) gets a leading apostrophe, so spreadsheets show it as text instead of
    running it. Other values are returned unchanged.

    Parameters
    ----------
    value : object
        A cell of a table about to be written as CSV.

    Returns
    -------
    object
        ``value``, with ``"'"`` prepended when it is a text a spreadsheet would run.

    Examples
    --------
    >>> csv_safe('=HYPERLINK("http://x")'), csv_safe("-5 Mbit/s"), csv_safe("ada"), csv_safe(1.5)
    ('\\'=HYPERLINK("http://x")', "'-5 Mbit/s", 'ada', 1.5)
    >>> csv_safe("\uff1dSUM(A1)")  # a full-width equals sign
    "'＝SUM(A1)"
    """
    # Spreadsheets fold full-width signs ("＝", "＋", "－", "＠") and skip invisible
    # characters, so the test runs on the text as normalize_text sees it (NFKC).
    if isinstance(value, str) and normalize_text(value).lstrip(" ").startswith(_FORMULA_START):
        return "'" + value
    return value


def _quote(text: str, limit: int = 40) -> str:
    text = str(text)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _read_bytes(source, max_bytes: int) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray)):
        data, name = bytes(source), "answers"
    elif isinstance(source, (str, Path)):
        path = Path(source)
        name = path.name
        try:
            size = os.stat(path).st_size
        except FileNotFoundError:
            raise AnswerFileError(f"{path}: answers file not found") from None
        except OSError as exc:
            raise AnswerFileError(f"{path}: cannot read the answers file ({exc.strerror})") from None
        if path.is_dir():
            raise AnswerFileError(f"{path}: is a folder, not an answers file")
        if size > max_bytes:
            raise AnswerFileError(f"{name}: {size} bytes, above the limit of {max_bytes} bytes")
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    elif hasattr(source, "read"):
        name = str(getattr(source, "name", "answers"))
        data = source.read(max_bytes + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
    else:
        raise AnswerFileError(f"cannot read answers from a {type(source).__name__}")
    if len(data) > max_bytes:
        raise AnswerFileError(f"{name}: larger than the limit of {max_bytes} bytes")
    return data, name


# Signatures of files that are certainly not a CSV text, and what they probably are.
_MAGIC = (
    (b"\xef\xbb\xbf", None),  # UTF-8 byte-order mark: text
    (b"\xff\xfe", "UTF-16 text; save it as CSV UTF-8"),
    (b"\xfe\xff", "UTF-16 text; save it as CSV UTF-8"),
    (b"PK\x03\x04", "a ZIP archive, or an .xlsx/.ods workbook; export it as CSV"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls?); export it as CSV"),
    (b"\x89PNG", "a PNG image"),
    (b"GIF8", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"%PDF", "a PDF document"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\x7fELF", "a program"),
)
# A well-formed UTF-8 sequence of two to four bytes.
_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)


_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")


def _binary_kind(data: bytes) -> str | None:
    """Why ``data`` is not a CSV text file, or None when it may be one."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    head = data[:65536]
    lines = [ln for ln in re.split(rb"\r\n|\r|\n", head) if ln.strip()]
    if not lines:
        return None
    if _CONTROL_BYTES.search(lines[0][:4096]):  # the header must be text
        return "binary data"
    # Judged by lines, not bytes: one student's cell full of control characters must
    # not refuse the whole class (that row alone is skipped); a binary file has them on
    # most of its "lines".
    bad = sum(1 for ln in lines if _CONTROL_BYTES.search(ln))
    return "binary data" if bad >= 5 and bad > 0.3 * len(lines) else None


def _decode(data: bytes) -> tuple[str, str | None]:
    """The text of the file and a note when it is not plain UTF-8.

    UTF-8 (with or without a byte-order mark) first. A file that is not valid UTF-8
    but holds well-formed multi-byte UTF-8 sequences is UTF-8 with a few broken bytes:
    those become U+FFFD and their rows are skipped. Any other file is taken to be
    cp1252, what spreadsheets on Windows write (latin-1 for the five bytes cp1252
    leaves undefined).
    """
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    if _UTF8_MULTIBYTE.search(data):
        return (data.decode("utf-8-sig", errors="replace"),
                "the file is UTF-8 with some invalid bytes: the rows holding them are skipped")
    try:
        text, encoding = data.decode("cp1252"), "cp1252 (Windows Western European)"
    except UnicodeDecodeError:
        text, encoding = data.decode("latin-1"), "latin-1 (ISO 8859-1)"
    sample = ""
    for word in re.findall(r"[^\s,;\t|\"\x00-\x1f\x7f-\x9f]*[\xa0-\xff\u0152-\u2122]"
                          r"[^\s,;\t|\"\x00-\x1f\x7f-\x9f]*", text)[:1]:
        sample = f"; check accented names such as {_quote(word, 30)}"
    return text, f"the file is not UTF-8: read as {encoding}{sample}"


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_DELIMITER_NAMES = {",": "','", ";": "';'", "\t": "tabs", "|": "'|'"}


#: The csv reader reads a record over at most this many lines (a quoted field with line
#: breaks); a record still open after them is followed with :func:`_record_end`, which
#: finds where its quotes close in one pass over the file, so that a file of such
#: quotes costs a few passes over the file instead of one pass per line.
_MAX_RECORD_LINES = 8


class _Lines:
    """The physical lines of a file, as an iterator whose position can be moved back.

    ``limit`` (an index) ends the iteration early: the csv reader then returns the
    record read so far. ``cut`` tells whether the iteration ended inside a record
    (the csv reader asks for another line only while a quoted field is open).
    """

    def __init__(self, lines: list[str], start: int = 0):
        self.lines, self.i = lines, start
        self.limit = len(lines)
        self.cut = False

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.i >= self.limit or self.i >= len(self.lines):
            self.cut = True
            raise StopIteration
        line = self.lines[self.i]
        self.i += 1
        return line


# A run of quotes; inside a quoted field, a run of odd length closes it ("" is a quote).
_QUOTE_RUN = re.compile('"+')
_ODD_QUOTE_RUN = re.compile('(?<!")(?:"")*"(?!")')


def _open_at_end(line: str, quoted: bool, delimiter: str) -> bool:
    """Whether a quoted field is still open at the end of ``line``.

    Follows the csv module's reader (``strict=False``, quote ``"``, doubled quotes):
    ``quoted`` says whether the line starts inside a quoted field, otherwise it starts
    a field. A quote opens a field only at its start; after the closing quote the
    rest of the field is read as it is, up to the next delimiter.
    """
    pos, n = 0, len(line)
    while True:
        if quoted:
            for m in _QUOTE_RUN.finditer(line, pos):
                if len(m.group()) % 2:
                    pos = m.end()
                    break
            else:
                return True
            quoted = False
        elif pos < n and line[pos] == '"':
            quoted, pos = True, pos + 1
            continue
        d = line.find(delimiter, pos)
        if d < 0:
            return False
        pos = d + 1


class _QuoteScanner:
    """Where records end, by the quotes alone (for the records the csv reader cut).

    ``next_close[j]`` (computed once, when first needed) is the first line at or after
    ``j`` that holds a run of an odd number of quotes: a quoted field open at the start
    of line ``j`` closes on that line, and no earlier.
    """

    def __init__(self, lines: list[str], delimiter: str):
        self.lines, self.delimiter = lines, delimiter
        self._next_close = None

    def next_close(self, j: int) -> int | None:
        if self._next_close is None:
            n = len(self.lines)
            nxt = [n] * (n + 1)
            for k in range(n - 1, -1, -1):
                nxt[k] = k if ('"' in self.lines[k] and _ODD_QUOTE_RUN.search(self.lines[k])) else nxt[k + 1]
            self._next_close = nxt
        k = self._next_close[min(j, len(self.lines))]
        return None if k >= len(self.lines) else k

    def record_end(self, j: int, quoted: bool) -> int | None:
        """Last line of the record that is at the start of line ``j`` (inside a quoted
        field when ``quoted``), or None when a quote is never closed."""
        while j < len(self.lines):
            if quoted:
                j = self.next_close(j)
                if j is None:
                    return None
            if not _open_at_end(self.lines[j], quoted, self.delimiter):
                return j
            quoted, j = True, j + 1
        return None


def _is_blank(line: str) -> bool:
    return not line.strip(" \t\r\n,;|\ufeff")


def read_answers(source, *, max_bytes: int = DEFAULT_MAX_BYTES) -> AnswerSheet:
    """Read an answers CSV defensively: bad rows are reported and skipped, never fatal.

    Parameters
    ----------
    source : str, Path, bytes or file object
        The answers file: UTF-8 (with or without a byte-order mark) or, failing that,
        cp1252/latin-1 (said in ``notes``); any line endings; columns separated by
        commas, semicolons, tabs or ``|`` (found from the header line, or from an
        Excel ``sep=;`` first line); blank lines before the header are skipped.
    max_bytes : int
        Files larger than this [byte] are refused without being read.

    Returns
    -------
    AnswerSheet

    Raises
    ------
    AnswerFileError
        When the file as a whole cannot be used: missing, too large, binary, empty, or
        without the columns ``student``, ``question`` and ``answer``.

    Notes
    -----
    Rows are numbered by the line of the file where they start (the first line is 1).
    A quoted field is read as the csv module (and spreadsheets) read it: a quote that
    closes, however many lines later, ends one field, and a row holding a line break
    inside a quoted field is reported and skipped as a whole; nothing inside the
    quotes is ever read as a row (a student cannot add rows through an answer). Only a
    quote that is never closed, which would swallow the rest of the file, is treated
    otherwise: its row is reported and reading starts again on the next line, so that
    the rows after it are still graded; those rows are listed in ``reread``, and
    :func:`grade` never lets one of them replace an answer read before them.

    Examples
    --------
    >>> sheet = read_answers(b"Student,Question\\n")
    Traceback (most recent call last):
    ...
    labcalc.grading.batch.AnswerFileError: answers: missing column 'answer' (an answers file needs the columns student, question, answer, and optionally variant; found: 'student', 'question')
    >>> sheet = read_answers(b"student,question,answer\\nada,Q4,4,69 Mbit/s\\n")
    >>> [str(p) for p in sheet.problems]
    ['row 2: 4 fields where the header has 3 (an unquoted comma in the answer?)']
    >>> sheet = read_answers(b'student,question,answer\\nada,Q4,"4.69\\nbob,Q4,1 bit/s"\\n')
    >>> len(sheet.answers), [str(p) for p in sheet.problems]
    (0, ['row 2: a line break inside a quoted field'])
    >>> sheet = read_answers(b'sep=;\\n\\nstudent;question;answer\\nada;Q4;"4.69 Mbit/s\\nbob;Q4;4,69 Mbit/s\\n')
    >>> sheet.answers["student"].tolist(), [str(p) for p in sheet.problems], sheet.reread
    (['bob'], ['row 4: a quote opened in this row is never closed (it runs to the end of the file); the row is skipped and the lines after it are read again'], ((5, 4),))
    """
    data, name = _read_bytes(source, max_bytes)
    kind = _binary_kind(data)
    if kind is not None:
        raise AnswerFileError(f"{name}: not a CSV text file ({kind})")
    text, encoding_note = _decode(data)
    if not text.strip():
        raise AnswerFileError(f"{name}: the file is empty")
    notes = [encoding_note] if encoding_note else []
    lines = _LINE.findall(text)
    start = 0
    while start < len(lines) and _is_blank(lines[start]):
        start += 1
    delimiter = None
    if start < len(lines):
        m = SEP_LINE.match(lines[start].lstrip("\ufeff"))
        if m and m.group(1) in DELIMITERS + (" ",):
            delimiter = m.group(1)
            notes.append(f"line {start + 1} {lines[start].strip()!r} (an Excel delimiter line) skipped")
            start += 1
            while start < len(lines) and _is_blank(lines[start]):
                start += 1
    if start >= len(lines):
        raise AnswerFileError(f"{name}: the file is empty")
    if delimiter is None:
        delimiter = sniff_delimiter(lines[start], REQUIRED_COLUMNS)
    if delimiter != ",":
        notes.append(f"columns separated by {_DELIMITER_NAMES.get(delimiter, repr(delimiter))}")
    it = _Lines(lines, start)
    reader = csv.reader(it, delimiter=delimiter, strict=False)
    try:
        header = next(reader)
    except csv.Error as exc:
        raise AnswerFileError(f"{name}: cannot read the header line ({exc})") from None
    columns = [column_name(h) for h in header]
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        found = ", ".join(_quote(c, 30) for c in columns[:6])
        raise AnswerFileError(
            f"{name}: missing column {missing[0]!r} (an answers file needs the columns "
            f"student, question, answer, and optionally variant; found: {found})"
        )
    duplicated = sorted({c for c in columns if columns.count(c) > 1 and c in REQUIRED_COLUMNS + ("variant",)})
    if duplicated:
        raise AnswerFileError(f"{name}: column {duplicated[0]!r} appears twice")
    has_variant = "variant" in columns
    n_columns = len(columns)

    scanner = _QuoteScanner(lines, delimiter)
    reread: list[tuple[int, int]] = []

    def never_closed(first: int):
        """A quote opened at line ``first`` runs to the end of the file: the lines
        after it are read again as rows, and remembered as such (see grade)."""
        if first + 1 < len(lines):
            reread.append((first + 2, first + 1))
            span = (f"row {first + 2} was" if first + 2 == len(lines)
                    else f"rows {first + 2} to {len(lines)} were")
            notes.append(f"a quote opened at row {first + 1} is never closed: {span} read again "
                         f"after it; check them (a row read again never replaces an answer read "
                         f"before the quote)")
        return (first + 1, None, "a quote opened in this row is never closed (it runs to the end of "
                                 "the file); the row is skipped and the lines after it are read again")

    def swallowed(first: int, last: int, what: str):
        """A record from line ``first`` to line ``last`` that is skipped."""
        inside = (f"; the quoted field runs over {last - first + 1} lines, to line {last + 1}, and "
                  f"the lines inside it are not read as rows" if last > first + 1 else "")
        return first + 1, None, what + inside

    def skip_record(first: int, j: int, quoted: bool, what: str):
        """The problem of the record starting at line ``first``, found to end by its
        quotes from line ``j`` on; reading goes on after it (or, when its quote never
        closes, on the line after ``first``)."""
        last = scanner.record_end(j, quoted)
        if last is None:
            it.i = first + 1
            return never_closed(first)
        it.i = last + 1
        return swallowed(first, last, what)

    def records():
        nonlocal reader
        while True:
            first = it.i  # index of the line where the next record starts
            it.limit = first + _MAX_RECORD_LINES
            it.cut = False
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                # where the record really ends, by its quotes (an error leaves the
                # reader somewhere inside it)
                yield skip_record(first, first, False, f"unreadable CSV ({exc})")
                reader = csv.reader(it, delimiter=delimiter, strict=False)
                continue
            if it.cut:
                # the reader stopped inside a quoted field (after _MAX_RECORD_LINES
                # lines, or at the end of the file): does that quote ever close?
                yield skip_record(first, it.i, True, "a line break inside a quoted field")
                reader = csv.reader(it, delimiter=delimiter, strict=False)
                continue
            if any("\n" in f or "\r" in f for f in fields):
                # a quoted field that closes properly is one field, whatever it holds
                yield swallowed(first, it.i - 1, "a line break inside a quoted field")
                continue
            yield first + 1, fields, None

    rows, problems = _validate(records(), columns, has_variant)
    return AnswerSheet(_frame(rows), tuple(problems), has_variant, name, tuple(notes), tuple(reread))


def _frame(rows):
    import pandas as pd

    df = pd.DataFrame(rows, columns=["row", "student", "question", "answer", "variant"])
    return df.astype({"row": "int64", "variant": "int64"})


def _normal_question(text: str) -> str:
    text = normalize_text(text).strip()
    return "Q" + text[1:] if text[:1] == "q" else text


def _validate(records: Iterable, columns: list[str], has_variant: bool):
    """Check each record; return the usable rows and the problems."""
    from labcalc.labs.lab5 import MAX_SEED

    i_student, i_question, i_answer = (columns.index(c) for c in REQUIRED_COLUMNS)
    i_variant = columns.index("variant") if has_variant else None
    n_columns = len(columns)
    rows, problems = [], []

    def problem(row, reason):
        problems.append(Problem(row, reason))

    for row, fields, error in records:
        if error is not None:
            problem(row, error)
            continue
        if not fields or all(not str(f).strip() for f in fields):
            continue  # blank line
        if len(fields) != n_columns:
            hint = " (an unquoted comma in the answer?)" if len(fields) > n_columns else ""
            problem(row, f"{len(fields)} field{'s' if len(fields) != 1 else ''} where the header "
                         f"has {n_columns}{hint}")
            continue
        fields = [str(f) for f in fields]
        if any("\n" in f or "\r" in f for f in fields):
            problem(row, "a line break inside a field (an unclosed quote?)")
            continue
        if any(_CONTROL.search(f) for f in fields):
            problem(row, "contains binary data or control characters")
            continue
        student = fields[i_student].strip()
        question = _normal_question(fields[i_question])
        answer = fields[i_answer].strip()
        if not student:
            problem(row, "no student id")
            continue
        hidden = _INVISIBLE.search(student)
        if hidden:
            problem(row, f"student id {_quote(student, 30)} holds an invisible or bidirectional control "
                         f"character (U+{ord(hidden.group()):04X}); correct the id")
            continue
        if len(student) > MAX_STUDENT_CHARS:
            problem(row, f"student id longer than {MAX_STUDENT_CHARS} characters")
            continue
        if not question:
            problem(row, "no question id")
            continue
        if len(question) > 20:
            problem(row, f"question id {_quote(question, 20)} is too long")
            continue
        if len(answer) > MAX_ANSWER_CHARS:
            problem(row, f"answer longer than {MAX_ANSWER_CHARS} characters")
            continue
        variant = -1
        if i_variant is not None:
            text = normalize_text(fields[i_variant]).strip()
            if text:  # an empty cell: the variant comes from the course salt (see grade)
                m = _VARIANT.fullmatch(text)
                if not m or int(m.group(1)) > MAX_SEED:
                    problem(row, f"variant {_quote(text, 24)} is not a whole number between 0 and 2**63 - 1")
                    continue
                variant = int(m.group(1))
        rows.append((row, student, question, answer, variant))
    return rows, problems


_VARIANT = re.compile(r"([0-9]{1,19})(?:\.0*)?")
#: Largest integer a float column holds exactly: larger variants in one lost digits.
_EXACT_FLOAT = 2**53


def _cell(v) -> str:
    """A cell of a data frame as the text a CSV file would hold.

    Missing values (None, NaN, NA) are empty; whole floats lose their ``.0`` (a column
    with a missing value becomes float: 3.0 is 3); other numbers are written in full.
    """
    import pandas as pd

    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return str(v)
    try:
        if pd.isna(v):
            return ""
    except (TypeError, ValueError):
        pass
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isfinite(v) and v.is_integer() and abs(v) < 1e21:
            return str(int(v))
        return repr(v)
    return str(v)


def _sheet_from_frame(df) -> AnswerSheet:
    columns = [str(c).strip().lower() for c in df.columns]
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise AnswerFileError(f"answers: missing column {missing[0]!r}")
    has_variant = "variant" in columns
    renamed = df.set_axis(columns, axis=1)
    wanted = list(REQUIRED_COLUMNS) + (["variant"] if has_variant else [])

    def records():
        for i, values in enumerate(renamed[wanted].itertuples(index=False, name=None)):
            if has_variant:
                v = values[-1]
                if (isinstance(v, (float, np.floating)) and math.isfinite(v)
                        and abs(v) >= _EXACT_FLOAT):
                    yield (i + 2, None, f"variant {float(v):.6g} is a float and has lost digits (a "
                                        f"column with an empty cell becomes float); keep the variant "
                                        f"column as integers (dtype 'Int64') or text")
                    continue
            yield i + 2, [_cell(v) for v in values], None

    rows, problems = _validate(records(), wanted, has_variant)
    return AnswerSheet(_frame(rows), tuple(problems), has_variant, "answers")


@dataclass(frozen=True)
class GradeResult:
    """Grades, per-answer feedback and statistics of a class (see :func:`grade`).

    Attributes
    ----------
    detail : pandas.DataFrame
        One row per graded answer: ``row``, ``student``, ``variant``, ``question``,
        ``answer`` (as typed), ``correct``, ``score`` (0..1), ``points`` (earned),
        ``max_points``, ``diagnosis`` (None or a code), ``message``, ``expected`` and
        ``given`` (base units), ``unit`` (display unit).
    grades : pandas.DataFrame
        One row per student: ``student``, ``variant``, the points earned per answer id
        (0 when unanswered), ``total``, ``max_total`` and ``percent``.
    stats : pandas.DataFrame
        One row per answer id: ``item``, ``points``, ``answered``, ``correct`` (share
        of the answers), ``mean_score``, ``top_diagnosis`` (most frequent slip among
        the wrong answers) and ``top_share`` (its share of the wrong answers).
    problems : tuple of Problem
        Rows skipped while reading or grading.
    lab, accounting, source : str
        The lab, the accounting of its answer key, and the name of the answers file.
    notes : tuple of str
        What was assumed about the file as a whole (encoding, delimiter) and how the
        variants were found.

    Examples
    --------
    >>> res = grade(read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n"))
    >>> res.lab, res.grades["student"].tolist(), res.grades["total"].tolist()
    ('lab5', ['ada'], [1.0])
    """

    detail: object
    grades: object
    stats: object
    problems: tuple[Problem, ...]
    lab: str = "lab5"
    accounting: str = "wire"
    source: str = "answers"
    notes: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line: students, answers, mean grade, skipped rows.

        Examples
        --------
        >>> grade(read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n")).summary()
        'lab5: 1 student, 1 answer graded, mean 1.8 % of the points; no row skipped'
        """
        n_students = len(self.grades)
        n_answers = len(self.detail)
        mean = float(self.grades["percent"].mean()) if n_students else 0.0
        skipped = len(self.problems)
        return (f"{self.lab}: {n_students} student{'s' if n_students != 1 else ''}, "
                f"{n_answers} answer{'s' if n_answers != 1 else ''} graded, mean {mean:.1f} % "
                f"of the points; " + (f"{skipped} row{'s' if skipped != 1 else ''} skipped"
                                     if skipped else "no row skipped"))

    def write_grades(self, path) -> None:
        """Write ``grades`` as CSV, text cells neutralised against formula injection."""
        _safe_frame(self.grades).to_csv(path, index=False, float_format="%.6g")

    def write_feedback(self, path) -> None:
        """Write one row per answer (student, question, answer, points, diagnosis, message)."""
        cols = ["student", "variant", "question", "answer", "points", "max_points", "diagnosis", "message"]
        _safe_frame(self.detail[cols]).to_csv(path, index=False, float_format="%.6g")

    def write_problems(self, path) -> None:
        """Write every skipped row (``row``, ``reason``) as CSV, cells neutralised."""
        import pandas as pd

        df = pd.DataFrame({"row": [p.row for p in self.problems],
                           "reason": [p.reason for p in self.problems]})
        _safe_frame(df).to_csv(path, index=False)

    def report_html(self, title: str | None = None) -> str:
        """The HTML report (see :func:`labcalc.grading.report.report_html`)."""
        from labcalc.grading.report import report_html

        return report_html(self, title=title)

    def write_report(self, path, title: str | None = None) -> None:
        """Write :meth:`report_html` to ``path`` (UTF-8)."""
        Path(path).write_text(self.report_html(title), encoding="utf-8")


def _safe_frame(df):
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype).startswith(("str", "string")):
            out[col] = [csv_safe(v) for v in out[col]]
    return out


def grade(answers, lab: str = "lab5", *, salt: str | None = None, accounting: str = "wire",
          credit: Mapping[str, float] | None = None, sigfigs: int | None = None,
          points: Mapping[str, float] | None = None, jobs: int | None = None) -> GradeResult:
    """Grade a class: every answer checked against its student's variant key.

    Parameters
    ----------
    answers : AnswerSheet or pandas.DataFrame
        From :func:`read_answers`, or a frame with columns ``student``, ``question``,
        ``answer`` and optionally ``variant``.
    lab : str, default "lab5"
    salt : str, optional
        Course salt: each student's variant is ``variant_for(student, salt)``. With a
        variant column too, the column is checked against it rather than trusted: a
        row whose variant differs from the student's is reported and skipped, and an
        empty cell takes the student's variant. Without a salt, the variant column
        decides (an empty cell is reported), and a note says that it was trusted;
        without both, every student is graded on the handout's numbers (variant 0).
    accounting : str, default "wire"
        Byte accounting of the answer key.
    credit : mapping, optional
        Partial credit per slip (see :data:`labcalc.grading.DEFAULT_CREDIT`).
    sigfigs : int, optional
        Grade on significant digits instead of each answer's relative tolerance.
    points : mapping, optional
        Points per answer id, replacing the lab's (``{"Q4": 2}``).
    jobs : int, optional
        Worker processes for answer keys not yet computed (see
        :func:`labcalc.grading.answer_keys`); ``1`` keeps everything in this process.

    Returns
    -------
    GradeResult

    Notes
    -----
    Rows with an unknown question id, a variant that disagrees with the course salt
    (or, without a salt, with the student's first row), or a second answer to the same
    question (the last one is graded, except that a row read again after a quote that
    is never closed never replaces an answer read before it: see
    :func:`read_answers`) are reported in ``problems``. Negative answers to rates,
    sizes, times and shares are refused as :func:`labcalc.grading.check` refuses them. Answers given as
    numbers in a data frame are read as the same text without a unit (``1066`` as
    ``"1066"``: a missing unit where the question needs one), and a variant column
    that became float because of an empty cell is read back as integers (3.0 is
    variant 3; an empty cell is "no variant given"). Each variant's answer key is computed once and cached
    (:func:`labcalc.grading.answer_keys`, in parallel when many are missing); parsing
    is cached per distinct answer text, and the checks run vectorised over all
    answers.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"student": ["ada", "ada", "bob"], "question": ["Q4", "q9", "Q99"],
    ...                    "answer": ["5 Mbit/s", "4.85 Mbit/s", "1"]})
    >>> res = grade(df)
    >>> res.detail[["student", "question", "score", "diagnosis"]].to_string(index=False)
    'student question  score       diagnosis\\n    ada       Q4    0.5 header_overhead\\n    ada       Q9    1.0            None'
    >>> [str(p) for p in res.problems]
    ["row 4: unknown question 'Q99' (lab5 ids look like Q4, Q13.6, Q44.2)"]
    """
    import pandas as pd

    from labcalc.grading.keys import answer_key, answer_keys
    from labcalc.labs import get_lab

    module = get_lab(lab)
    credits = credit_table(credit)
    if sigfigs is not None and (isinstance(sigfigs, (bool, np.bool_))
                                or not isinstance(sigfigs, (int, float, np.integer, np.floating))
                                or not math.isfinite(sigfigs) or int(sigfigs) != sigfigs or sigfigs < 1):
        raise ValueError(f"sigfigs must be a whole number >= 1; got {sigfigs!r}")
    sheet = answers if isinstance(answers, AnswerSheet) else _sheet_from_frame(answers)
    df = sheet.answers
    problems = list(sheet.problems)
    base_key = answer_key(lab, 0, accounting)
    ids = base_key.ids
    position = {answer_id: i for i, answer_id in enumerate(ids)}
    point_values = base_key.points.copy()
    for answer_id, value in (points or {}).items():
        if answer_id not in position:
            raise ValueError(f"points: {lab} has no answer {answer_id!r}")
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"points[{answer_id!r}] must be a number >= 0; got {value!r}")
        point_values[position[answer_id]] = float(value)

    # -- rows that cannot be graded -------------------------------------------------
    example = ", ".join(i for i in ("Q4", "Q13.6", "Q44.2") if i in position) or ids[0]
    keep = np.ones(len(df), bool)
    rows = df["row"].to_numpy()
    students = df["student"].to_numpy(object)
    questions = df["question"].to_numpy(object)
    variants = df["variant"].to_numpy(dtype=np.int64).copy()
    notes = list(sheet.notes)
    answer_index = np.array([position.get(q, -1) for q in questions], dtype=np.int64)
    for i in np.flatnonzero(answer_index < 0):
        problems.append(Problem(int(rows[i]), f"unknown question {_quote(questions[i], 20)} "
                                              f"({lab} ids look like {example})"))
        keep[i] = False
    seeds = ({s: module.variant_for(s, salt) for s in set(students[keep])}
             if salt is not None else {})
    if sheet.has_variant and salt is not None:
        # the salt decides; the column is checked against it, never trusted
        for i in np.flatnonzero(keep):
            s, v = students[i], int(variants[i])
            if v < 0:
                variants[i] = seeds[s]
            elif v != seeds[s]:
                problems.append(Problem(int(rows[i]), f"variant {v} is not the variant of student "
                                                      f"{_quote(s, 30)} under the course salt "
                                                      f"({seeds[s]}); the row is skipped"))
                keep[i] = False
        notes.append("the variant column was checked against the course salt")
    elif sheet.has_variant:
        notes.append("variants taken from the 'variant' column, not checked; pass the course salt "
                     "(--salt, or salt=) to derive and check them")
        first: dict[str, tuple[int, int]] = {}
        for i in np.flatnonzero(keep):
            s, v = students[i], int(variants[i])
            if v < 0:
                problems.append(Problem(int(rows[i]), "no variant (the file has a variant column, and "
                                                      "no course salt was given to derive it)"))
                keep[i] = False
            elif s not in first:
                first[s] = (v, int(rows[i]))
            elif first[s][0] != v:
                problems.append(Problem(int(rows[i]), f"variant {v} differs from variant "
                                                      f"{first[s][0]} of the same student at row {first[s][1]}"))
                keep[i] = False
    else:
        variants = np.array([seeds.get(s, 0) for s in students], dtype=np.int64)
    # -- answer keys, one per variant (a variant whose key fails skips its rows) --------
    key_errors: dict[int, str] = {}
    usable = np.flatnonzero(keep)
    by_seed = answer_keys(lab, sorted({int(v) for v in np.asarray(variants)[usable]}), accounting,
                          jobs=jobs, errors=key_errors)
    for i in usable:
        v = int(variants[i])
        if v in key_errors:
            problems.append(Problem(int(rows[i]), f"no answer key for variant {v} ({key_errors[v]})"))
            keep[i] = False
    # rows read again after a quote that is never closed (see read_answers): such a row
    # never replaces an answer read before the quote
    quote_row = np.zeros(len(df), np.int64)
    for first_row, opened in sorted(getattr(sheet, "reread", ())):
        quote_row[(rows >= first_row) & (quote_row == 0)] = opened
    last: dict[tuple[str, int], int] = {}
    for i in np.flatnonzero(keep):
        k = (students[i], int(answer_index[i]))
        if k in last:
            j = last[k]
            if quote_row[i] and not quote_row[j]:
                problems.append(Problem(int(rows[i]), f"read again after the quote opened at row "
                                                      f"{int(quote_row[i])} that is never closed: it "
                                                      f"would replace the answer at row {int(rows[j])} "
                                                      f"(same student and question), so it is skipped"))
                keep[i] = False
                continue
            problems.append(Problem(int(rows[j]), f"replaced by the answer at row {int(rows[i])} "
                                                  f"(same student and question)"))
            keep[j] = False
        last[k] = i
    problems.sort(key=lambda p: p.row)

    idx = np.flatnonzero(keep)
    rows, students, answer_index, variants = rows[idx], students[idx], answer_index[idx], np.asarray(variants)[idx]
    texts = df["answer"].to_numpy(object)[idx]

    seeds, seed_index = np.unique(variants, return_inverse=True) if len(idx) else (np.array([0]), np.zeros(0, int))
    keys = [by_seed[int(s)] if int(s) in by_seed else base_key for s in seeds]
    other_names = other_accountings(accounting)
    values = np.vstack([k.values for k in keys])
    expected = values[seed_index, answer_index] if len(idx) else np.zeros(0)
    alternatives = {}
    for code in CONTEXT_SLIPS:
        if code == "wire_vs_shaper":  # one value per other accounting, in order
            tables = [np.vstack([k.other_values.get(acc, np.full(len(ids), np.nan)) for k in keys])
                      for acc in other_names]
        else:
            tables = [np.vstack([k.alternatives[code] for k in keys])]
        alternatives[code] = [t[seed_index, answer_index] if len(idx) else np.zeros(0) for t in tables]
    bases = np.asarray(base_key.units, object)[answer_index]
    display_units = np.asarray(base_key.display_units, object)[answer_index]
    display_factors = base_key.display_factors[answer_index]
    rtol = base_key.rtol[answer_index]
    atol = base_key.atol[answer_index]

    # -- parsing, cached per distinct (text, unit) ----------------------------------
    cache: dict[tuple[str, str], object] = {}
    parsed = []
    # A failure while grading one answer (a bug met by some odd text) must cost that
    # answer its points, never stop the class: such answers are graded 0 and listed.
    failed: dict[int, str] = {}
    for i, (text, unit) in enumerate(zip(texts, display_units)):
        k = (text, unit)
        p = cache.get(k)
        if p is None:
            try:
                p = cache[k] = parse_answer(text, unit)
            except Exception as exc:  # noqa: BLE001 - contained to this answer, reported
                failed[i] = f"{type(exc).__name__}: {exc}"
                p = cache[k] = parse_answer("", unit)
        parsed.append(p)
    given = np.array([p.value for p in parsed], float)
    status = np.array([p.status for p in parsed], object)

    # one path with check(): the same answer to the same question gets the same verdict
    def run(sel):
        return grade_parsed([parsed[i] for i in sel], texts[sel], expected[sel], bases[sel],
                            display_units[sel], display_factors[sel], rtol[sel], atol[sel],
                            np.full(len(sel), sigfigs or 0.0), {c: [t[sel] for t in v] for c, v in
                                                                 alternatives.items()},
                            credit=credits, accounting=accounting, alternative_accountings=other_names)

    everyone = np.arange(len(idx))
    try:
        out, messages = run(everyone)
    except Exception:  # noqa: BLE001 - find the answers that fail, grade the others
        out, messages = _grade_one_by_one(run, len(idx), failed)
    for i, why in sorted(failed.items()):
        out["correct"][i], out["score"][i], out["diagnosis"][i] = False, 0.0, None
        messages[i] = "Not graded: this answer could not be read (reported to the grader); 0 points."
        problems.append(Problem(int(rows[i]), f"answer {_quote(texts[i])} of student {_quote(students[i])} "
                                f"to {ids[answer_index[i]]} could not be graded ({_quote(why, 80)}); "
                                f"graded 0"))
    problems.sort(key=lambda p: p.row)
    max_points = point_values[answer_index]
    detail = pd.DataFrame({
        "row": rows.astype(np.int64),
        "student": students,
        "variant": variants.astype(np.int64),
        "question": np.asarray(ids, object)[answer_index],
        "answer": texts,
        "correct": out["correct"],
        "score": out["score"],
        "points": out["score"] * max_points,
        "max_points": max_points,
        "diagnosis": pd.Series(out["diagnosis"], dtype=object),
        "message": messages,
        "expected": expected,
        "given": np.where(status == "ok", given, np.nan),
        "unit": display_units,
    })
    order = np.lexsort((answer_index, students.astype(str))) if len(idx) else np.zeros(0, int)
    detail = detail.iloc[order].reset_index(drop=True)

    # -- grades per student -----------------------------------------------------------
    if len(detail):
        wide = detail.pivot(index="student", columns="question", values="points")
    else:
        wide = pd.DataFrame(index=pd.Index([], name="student"))
    wide = wide.reindex(columns=list(ids)).fillna(0.0)
    student_variant = detail.groupby("student", sort=True)["variant"].first()
    grades = wide.reset_index()
    grades.insert(1, "variant", student_variant.reindex(wide.index).to_numpy(dtype=np.int64))
    grades["total"] = wide.sum(axis=1).to_numpy()
    grades["max_total"] = float(point_values.sum())
    grades["percent"] = 100.0 * grades["total"] / grades["max_total"] if point_values.sum() else 0.0
    grades.columns.name = None

    # -- statistics per question --------------------------------------------------------
    stats = _stats(detail, module, ids, point_values)
    return GradeResult(detail=detail, grades=grades, stats=stats, problems=tuple(problems),
                       lab=lab, accounting=accounting, source=sheet.source, notes=tuple(notes))


def _grade_one_by_one(run, n, failed):
    """Grade answers singly after the vectorised pass failed; record those that fail."""
    outs, messages = [], []
    for i in range(n):
        try:
            o, m = run(np.array([i]))
        except Exception as exc:  # noqa: BLE001 - contained to this answer, reported
            failed[i] = f"{type(exc).__name__}: {exc}"
            o, m = None, [""]
        outs.append(o)
        messages.extend(m)
    template = next((o for o in outs if o is not None), None)
    keys = list(template) if template is not None else ["correct", "score", "diagnosis"]
    out = {}
    for key in keys:
        column = []
        for o in outs:
            column.append(o[key][0] if o is not None else
                          {"correct": False, "score": 0.0, "diagnosis": None}.get(key, np.nan))
        out[key] = np.array(column, dtype=object if key == "diagnosis" else None)
    return out, messages


def _stats(detail, module, ids, point_values):
    import pandas as pd

    items = {a.id: a.item for a in module.ANSWERS}
    rows = []
    groups = dict(tuple(detail.groupby("question", sort=False))) if len(detail) else {}
    for j, answer_id in enumerate(ids):
        g = groups.get(answer_id)
        if g is None or not len(g):
            rows.append((answer_id, items.get(answer_id, ""), point_values[j], 0, np.nan, np.nan, None, np.nan))
            continue
        wrong = g.loc[~g["correct"].to_numpy(bool), "diagnosis"]
        counts = wrong.dropna().value_counts()
        top = counts.index[0] if len(counts) else None
        top_share = float(counts.iloc[0] / len(wrong)) if len(counts) else np.nan
        rows.append((answer_id, items.get(answer_id, ""), point_values[j], len(g),
                     float(g["correct"].mean()), float(g["score"].mean()), top, top_share))
    cols = ["id", "item", "points", "answered", "correct", "mean_score", "top_diagnosis", "top_share"]
    return pd.DataFrame(rows, columns=cols).set_index("id")


def grade_file(path, lab: str = "lab5", *, max_bytes: int = DEFAULT_MAX_BYTES, **options) -> GradeResult:
    """:func:`read_answers` then :func:`grade` (options as in :func:`grade`).

    Parameters
    ----------
    path : str, Path, bytes or file object
        The answers file (as for :func:`read_answers`).
    lab : str, default "lab5"
        The lab whose answer keys grade the file.
    max_bytes : int
        Files larger than this [byte] are refused without being read.
    **options
        Passed to :func:`grade`: ``salt``, ``accounting``, ``credit``, ``sigfigs``,
        ``points``, ``jobs``.

    Returns
    -------
    GradeResult
        Grades, per-answer feedback and statistics.

    Examples
    --------
    >>> grade_file(b"student,question,answer\\nada,Q3,1066 bytes\\n").grades["total"].tolist()
    [1.0]
    """
    return grade(read_answers(path, max_bytes=max_bytes), lab, **options)
