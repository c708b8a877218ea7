"""Reading a class's answers file (untrusted CSV) into an :class:`AnswerSheet`.

The answers file has one row per answer, with columns ``student``, ``question``,
``answer`` and optionally ``variant`` (the seed of the student's numbers); other
columns are ignored. The file comes from students, so:

- it is never evaluated; answers are kept as text for :func:`labcalc.grading.parse_answer`;
- it is read by the one text-input policy of :mod:`labcalc._textio` (size limit checked
  before reading, byte-order mark removed, UTF-8 with a reported cp1252/latin-1
  fallback, NUL bytes kept for the row check to refuse), plus what only answer files
  need: binary files named by their signature, UTF-8 with a few broken bytes
  recognised as such (those rows skipped);
- a malformed row (wrong number of fields, binary data, an over-long cell, a bad
  variant, a quote never closed...) is reported with its row number and reason, and
  skipped; it never stops the reading;
- commas, semicolons, tabs or ``|`` between the columns, an Excel ``sep=;`` first line
  and blank lines before the header are accepted; what was assumed is listed in ``notes``.

Examples
--------
>>> sheet = read_answers(b"student,question,answer\\nada,q4,4.69 Mbit/s\\nbob,Q9,\\x00\\x01\\n")
>>> sheet.answers["question"].tolist(), [str(p) for p in sheet.problems]
(['Q4'], ['row 3: contains binary data or control characters'])
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from labcalc._textio import (
    DELIMITERS, SEP_LINE, TextInputError, column_name, decode, read_bytes, sniff_delimiter,
)
from labcalc.grading._csvrecords import LINE, Lines, Records
from labcalc.grading._layouts import Layout, LayoutError, find_layout
from labcalc.labs import MAX_SEED
from labcalc.units import INVISIBLE, normalize_text

__all__ = [
    "AnswerFileError",
    "Problem",
    "AnswerSheet",
    "read_answers",
    "sheet_from_frame",
    "cell_text",
    "quote",
    "DEFAULT_MAX_BYTES",
    "REQUIRED_COLUMNS",
]

#: Largest answers file read [bytes] (1,000 students x 50 answers take about 2 MB).
DEFAULT_MAX_BYTES = 20_000_000
#: Longest accepted answer and student id [characters].
MAX_ANSWER_CHARS = 100
MAX_STUDENT_CHARS = 64
#: Longest question text kept from a responses report [characters].
MAX_TEXT_CHARS = 2000

REQUIRED_COLUMNS = ("student", "question", "answer")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")


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
    >>> p = read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n,Q99,1\\n").problems[0]
    >>> p.row, p.reason
    (3, 'no student id')
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
        seed, or -1 when the row has none: no variant column, or an empty cell) and
        ``question_text`` (the question as the student saw it, when the file has it;
        otherwise empty). A response column of an LMS report gives the question
        ``"#n"`` (its slot in the quiz), which :func:`labcalc.grading.grade` resolves.
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
        quote opened at ``quote_row`` was found never to close. :func:`labcalc.grading.grade` never
        lets such a row replace an answer read before it.
    decimal_comma : bool
        Whether a comma in a number is its decimal mark (a file separated by ``;``);
        :func:`labcalc.grading.grade` then reads answers through :func:`decimal_point_text`.
    id_column : str
        The file's column that holds the student ids (``"Email address"`` for a Moodle
        report), as written: the LMS's grade file names its identifier so.
    question_texts : bool
        Whether the rows carry the question text each student saw (``question_text``,
        from a responses report's ``Question n`` columns).

    Examples
    --------
    >>> sheet = read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n")
    >>> sheet.answers["question"].tolist(), sheet.has_variant, sheet.problems
    (['Q4'], False, ())
    >>> read_answers("student;question;answer\\nJosé;Q4;4,69 Mbit/s\\n".encode("cp1252")).notes
    ("the file is not UTF-8: read as cp1252 (Windows Western European); check accented names such as 'José'", "columns separated by ';'", "a comma in a number is its decimal mark in a file separated by ';' (as spreadsheets in most of Europe write it): 1 answer read so, such as '4,69 Mbit/s' as '4.69 Mbit/s'")
    """

    answers: object
    problems: tuple[Problem, ...]
    has_variant: bool
    source: str = "answers"
    notes: tuple[str, ...] = ()
    reread: tuple[tuple[int, int], ...] = ()
    decimal_comma: bool = False
    id_column: str = "student"
    question_texts: bool = False



def quote(text: str, limit: int = 40) -> str:
    """Student text for a message: ``repr`` of it, cut to ``limit`` characters.

    Parameters
    ----------
    text : str
        The text.
    limit : int, default 40
        Longest text shown [characters], "..." included.

    Returns
    -------
    str

    Examples
    --------
    >>> quote("ada"), quote("x" * 50, 10)
    ("'ada'", "'xxxxxxx...'")
    """
    text = str(text)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")



def _read_bytes(source, max_bytes: int) -> tuple[bytes, str]:
    """The raw bytes of the answers file, by the size limit of :mod:`labcalc._textio`.

    A path is checked first (missing, a folder, too large) so that the messages speak
    of answers files; reading then goes through :func:`labcalc._textio.read_bytes`.
    """
    if isinstance(source, (bytes, bytearray)):
        name, what = "answers", bytes(source)
    elif isinstance(source, (str, Path)):
        path = Path(source)
        name, what = path.name, path
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            raise AnswerFileError(f"{path}: answers file not found") from None
        except OSError as exc:
            raise AnswerFileError(f"{path}: cannot read the answers file ({exc.strerror})") from None
        if path.is_dir():
            raise AnswerFileError(f"{path}: is a folder, not an answers file")
        if size > max_bytes:
            raise AnswerFileError(f"{name}: {size} bytes, above the limit of {max_bytes} bytes")
    elif hasattr(source, "read"):
        name, what = str(getattr(source, "name", "answers")), source
    else:
        raise AnswerFileError(f"cannot read answers from a {type(source).__name__}")
    try:
        data, _, _ = read_bytes(what, max_bytes=max_bytes, name=name)
    except FileNotFoundError:  # removed between the check and the reading
        raise AnswerFileError(f"{name}: answers file not found") from None
    except TextInputError as exc:
        raise AnswerFileError(f"{name}: {exc.detail}") from None
    return data, name


#: How the notes name the encodings :func:`labcalc._textio.decode` falls back to.
_ENCODING_NAMES = {"cp1252": "cp1252 (Windows Western European)", "latin-1": "latin-1 (ISO 8859-1)"}


def _decode(data: bytes, name: str) -> tuple[str, str | None]:
    """The text of the file and a note when it is not plain UTF-8.

    :func:`labcalc._textio.decode` decides (byte-order mark removed, UTF-8, else cp1252,
    or latin-1 for the bytes cp1252 leaves undefined; NUL bytes kept for the row check).
    One case only answer files know: a file that is not valid UTF-8 but holds
    well-formed multi-byte UTF-8 sequences is UTF-8 with a few broken bytes; those
    become U+FFFD and their rows are skipped, instead of the whole class being read
    in the wrong encoding.
    """
    text = decode(data, name, nul="report")
    if text.encoding in ("utf-8", "utf-16-le", "utf-16-be"):  # UTF-16: by its byte-order mark
        return text.text, None
    if _UTF8_MULTIBYTE.search(data):
        return (data.decode("utf-8-sig", errors="replace"),
                "the file is UTF-8 with some invalid bytes: the rows holding them are skipped")
    sample = ""
    for word in re.findall(r"[^\s,;\t|\"\x00-\x1f\x7f-\x9f]*[\xa0-\xff\u0152-\u2122]"
                          r"[^\s,;\t|\"\x00-\x1f\x7f-\x9f]*", text.text)[:1]:
        sample = f"; check accented names such as {quote(word, 30)}"
    return text.text, f"the file is not UTF-8: read as {_ENCODING_NAMES[text.encoding]}{sample}"


_MAGIC = (
    (b"\xef\xbb\xbf", None),  # UTF-8 byte-order mark: text
    (b"\xff\xfe", None),  # UTF-16 byte-order marks (Excel's "Unicode Text", PowerShell): text,
    (b"\xfe\xff", None),  # decoded by labcalc._textio
    (b"PK\x03\x04", "a ZIP archive, or an .xlsx/.ods workbook; export it as CSV"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls?); export it as CSV"),
    (b"\x89PNG", "a PNG image"),
    (b"GIF8", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"%PDF", "a PDF document; download the table as CSV (Moodle: 'Comma separated values (.csv)')"),
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



_DELIMITER_NAMES = {",": "','", ";": "';'", "\t": "tabs", "|": "'|'"}


def _is_blank(line: str) -> bool:
    return not line.strip(" \t\r\n,;|\ufeff")



def _start_and_delimiter(lines: list[str], name: str, notes: list[str]) -> tuple[int, str]:
    """Index of the header line and the delimiter (an Excel ``sep=`` line is skipped)."""
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
    return start, delimiter


def _layout(reader, name: str, columns_map) -> Layout:
    """The layout of the file, from its header record (see :mod:`labcalc.grading._layouts`)."""
    try:
        header = next(reader)
    except csv.Error as exc:
        raise AnswerFileError(f"{name}: cannot read the header line ({exc})") from None
    except StopIteration:
        raise AnswerFileError(f"{name}: the file is empty") from None
    try:
        return find_layout(header, [column_name(h) for h in header], columns_map)
    except LayoutError as exc:
        raise AnswerFileError(f"{name}: {exc}") from None


def read_answers(source, *, max_bytes: int = DEFAULT_MAX_BYTES, columns=None) -> AnswerSheet:
    """Read an answers CSV defensively: bad rows are reported and skipped, never fatal.

    Parameters
    ----------
    source : str, Path, bytes or file object
        The answers file: UTF-8 (with or without a byte-order mark) or, failing that,
        cp1252/latin-1 (said in ``notes``); any line endings; columns separated by
        commas, semicolons, tabs or ``|`` (found from the header line, or from an
        Excel ``sep=;`` first line); blank lines before the header are skipped.
        Two layouts are read: one row per answer (columns ``student``, ``question``,
        ``answer``, optionally ``variant``), and one row per attempt, as Moodle's quiz
        "Responses" report downloads it (an identity column such as ``Username``,
        ``Email address`` or ``ID number``, ``State``, ``Response 1`` ... ``Response n``,
        optionally ``Question n``); see :mod:`labcalc.grading._layouts`.
    max_bytes : int
        Files larger than this [byte] are refused without being read.
    columns : mapping, optional
        Any other layout: labcalc's field (``student``, ``question``, ``answer``,
        ``variant``, ``state``, ``response``, ``question_text``) -> the file's header
        (any case); for ``response`` and ``question_text``, the prefix of numbered
        columns (``{"response": "Antwort"}`` reads ``Antwort 1``, ``Antwort 2``...);
        ``finished`` names the states of a graded attempt, separated by ``|`` (by
        default Moodle's ``Finished`` and ``Submitted``).

    Returns
    -------
    AnswerSheet

    Raises
    ------
    AnswerFileError
        When the file as a whole cannot be used: missing, too large, binary, empty, or
        without the columns a layout needs.

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
    :func:`labcalc.grading.grade` never lets one of them replace an answer read before them.

    Student ids are matched as an LMS matches them, without regard to letter case:
    ``U2501`` and ``u2501`` are one student, named as first written, and a note says so.
    In a file whose columns are separated by ``;`` (as a spreadsheet in most of Europe
    saves CSV), a comma in a number is its decimal mark: ``1,802 Mbit/s`` is 1.802
    Mbit/s, and ``1.234,5`` is 1234.5; a note gives how many answers hold one. In a
    responses report, a student with several finished attempts is graded on the last
    one in the file (the others are reported), an attempt that is not finished (or
    submitted) is reported and not graded, and the apostrophe Moodle puts before a cell
    starting with ``=``, ``+``, ``-`` or ``@`` is dropped (``'-0.5`` is ``-0.5``).

    Examples
    --------
    >>> sheet = read_answers(b"Student,Question\\n")
    Traceback (most recent call last):
    ...
    labcalc.grading.answerfile.AnswerFileError: answers: missing column 'answer' (an answers file needs the columns student, question, answer, and optionally variant; found: 'student', 'question')
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
    text, encoding_note = _decode(data, name)
    if not text.strip():
        raise AnswerFileError(f"{name}: the file is empty")
    other = _other_download(text)
    if other is not None:
        raise AnswerFileError(f"{name}: not a CSV text file ({other}; download the table as CSV: Moodle's "
                              f"'Comma separated values (.csv)')")
    notes = [encoding_note] if encoding_note else []
    lines = LINE.findall(text)
    start, delimiter = _start_and_delimiter(lines, name, notes)
    it = Lines(lines, start)
    records = Records(lines, it, delimiter, notes)
    layout = _layout(records.reader, name, columns)
    rows, problems = _validate(layout.rows(records, _CONTROL), layout.has_variant)
    rows = _merge_case(rows, notes)
    if layout.kind == "responses":
        rows = _last_attempts(rows, problems, notes)
        notes.append(f"read as an LMS responses report: one row per attempt, student ids from column "
                     f"{layout.id_column!r}, {len(layout.responses)} response columns")
    decimal_comma = delimiter == ";"
    if decimal_comma:
        _note_decimal_commas(rows, notes)
    problems.sort(key=lambda p: p.row)
    return AnswerSheet(_frame(rows), tuple(problems), layout.has_variant, name, tuple(notes),
                       tuple(records.reread), decimal_comma=decimal_comma, id_column=layout.id_column,
                       question_texts=bool(layout.texts))


def _other_download(text: str) -> str | None:
    """What a text file is when it is one of the other downloads of an LMS table (JSON,
    an HTML page), or None. Moodle's JSON download is an array of arrays of objects
    (``dataformat_json``); its HTML download a page with a table."""
    head = text.lstrip("\ufeff \t\r\n")[:200].lower()
    if head.startswith(("[{", "[[", "{\"")) or re.match(r"\[\s*[\[{]", head):
        return "a JSON file"
    if head.startswith(("<!doctype html", "<html", "<table", "<?xml")):
        return "an HTML or XML page"
    return None


def _frame(rows):
    import pandas as pd

    df = pd.DataFrame(rows, columns=["row", "student", "question", "answer", "variant", "question_text"])
    return df.astype({"row": "int64", "variant": "int64"})


def _normal_question(text: str) -> str:
    text = normalize_text(text).strip()
    return "Q" + text[1:] if text[:1] == "q" else text


def _validate(records: Iterable, has_variant: bool):
    """Check each row ``[student, question, answer, variant, question_text]``; return
    the usable rows and the problems."""
    rows, problems = [], []

    def problem(row, reason):
        problems.append(Problem(row, reason))

    for row, fields, error in records:
        if error is not None:
            problem(row, error)
            continue
        fields = [str(f) for f in fields]
        if any("\n" in f or "\r" in f for f in fields):
            problem(row, "a line break inside a field (an unclosed quote?)")
            continue
        if any(_CONTROL.search(f) for f in fields):
            problem(row, "contains binary data or control characters")
            continue
        student = fields[0].strip()
        question = _normal_question(fields[1])
        answer = fields[2].strip()
        if not student:
            problem(row, "no student id")
            continue
        hidden = INVISIBLE.search(student)
        if hidden:
            problem(row, f"student id {quote(student, 30)} holds an invisible or bidirectional control "
                         f"character (U+{ord(hidden.group()):04X}); correct the id")
            continue
        if len(student) > MAX_STUDENT_CHARS:
            problem(row, f"student id longer than {MAX_STUDENT_CHARS} characters")
            continue
        if not question:
            problem(row, "no question id")
            continue
        if len(question) > 20:
            problem(row, f"question id {quote(question, 20)} is too long")
            continue
        if len(answer) > MAX_ANSWER_CHARS:
            problem(row, f"answer longer than {MAX_ANSWER_CHARS} characters")
            continue
        variant = -1
        if has_variant:
            text = normalize_text(fields[3]).strip()
            if text:  # an empty cell: the variant comes from the course salt (see labcalc.grading.grade)
                m = _VARIANT.fullmatch(text)
                if not m or int(m.group(1)) > MAX_SEED:
                    problem(row, f"variant {quote(text, 24)} is not a whole number between 0 and 2**63 - 1")
                    continue
                variant = int(m.group(1))
        rows.append((row, student, question, answer, variant, " ".join(fields[4].split())[:MAX_TEXT_CHARS]))
    return rows, problems


def _last_attempts(rows, problems, notes):
    """Of a responses report, each student's last attempt in the file (the others reported)."""
    last: dict[str, int] = {}
    for r in rows:
        last[r[1].lower()] = r[0]
    dropped = {}
    for r in rows:
        keep = last[r[1].lower()]
        if r[0] != keep and r[0] not in dropped:
            dropped[r[0]] = keep
            problems.append(Problem(r[0], f"an earlier attempt of {quote(r[1], 30)}: the attempt at row "
                                          f"{keep} is graded"))
    if dropped:
        notes.append(f"{len(dropped)} earlier attempt{'s' if len(dropped) != 1 else ''} of students with "
                     f"several finished attempts not graded: each student's last attempt in the file is "
                     f"graded, while Moodle's quiz grade follows the quiz's grading method (by default the "
                     f"highest grade); to grade the attempt Moodle keeps, download the report with 'Show at "
                     f"most one finished attempt per user' ticked")
    return [r for r in rows if r[0] not in dropped]


def _merge_case(rows, notes):
    """Student ids that differ only in letter case taken as one student (as an LMS
    matches them), named as first written; a note lists them."""
    first: dict[str, str] = {}
    merged: dict[str, set] = {}
    out = []
    for r in rows:
        key = r[1].lower()
        name = first.setdefault(key, r[1])
        if name != r[1]:
            merged.setdefault(name, set()).add(r[1])
            r = (r[0], name) + r[2:]
        out.append(r)
    if merged:
        pairs = [f"{quote(a, 30)} = " + " = ".join(quote(b, 30) for b in sorted(others))
                 for a, others in list(merged.items())[:3]]
        more = f" and {len(merged) - 3} more" if len(merged) > 3 else ""
        notes.append(f"{len(merged)} student id{'s' if len(merged) != 1 else ''} written with other letter "
                     f"cases taken as the same student, as the LMS matches ids: " + "; ".join(pairs) + more)
    return out


# A number with a decimal comma, in a file whose columns are separated by ';': the
# integer part (plain, or in groups of three separated by '.' or a space), the comma,
# the decimals; nothing that continues the number after it. Hand-written because the
# convention is the file's, not the answer grammar's (labcalc.numbers reads one text).
_DECIMAL_COMMA = re.compile(r"^(\s*[-+\u2212]?\s*)([0-9]{1,3}(?:\.[0-9]{3})+|[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+"
                            r"|[0-9]*),([0-9]+)(?![0-9.,])")


def decimal_point_text(text: str) -> str:
    """An answer with a decimal comma written with a decimal point (for ``;`` files).

    Parameters
    ----------
    text : str
        The answer as typed.

    Returns
    -------
    str
        The same answer with its leading number's decimal comma as a point and its
        thousands separators removed; any other text unchanged.

    Examples
    --------
    >>> decimal_point_text("1,802 Mbit/s"), decimal_point_text("1.234,5 kbit/s"), decimal_point_text("4.69")
    ('1.802 Mbit/s', '1234.5 kbit/s', '4.69')
    """
    m = _DECIMAL_COMMA.match(text)
    if not m:
        return text
    whole = re.sub(r"[. \u00a0\u202f]", "", m.group(2))
    return f"{m.group(1)}{whole or '0'}.{m.group(3)}{text[m.end():]}"


def _note_decimal_commas(rows, notes) -> None:
    changed = [r[3] for r in rows if decimal_point_text(r[3]) != r[3]]
    if changed:
        example = changed[0]
        notes.append(f"a comma in a number is its decimal mark in a file separated by ';' (as spreadsheets "
                     f"in most of Europe write it): {len(changed)} answer{'s' if len(changed) != 1 else ''} "
                     f"read so, such as {quote(example, 30)} as {quote(decimal_point_text(example), 30)}")


#: A variant as written: digits (labcalc writes them after a "v", as text for spreadsheets).
_VARIANT = re.compile(r"[vV]?([0-9]{1,19})(?:\.0*)?")
#: Largest integer a float column holds exactly: larger variants in one lost digits.
_EXACT_FLOAT = 2**53


def cell_text(v) -> str:
    """A cell of a data frame as the text a CSV file would hold.

    Missing values (None, NaN, NA) are empty; whole floats lose their ``.0`` (a column
    with a missing value becomes float: 3.0 is 3); other numbers are written in full.

    Parameters
    ----------
    v : object
        The cell.

    Returns
    -------
    str

    Examples
    --------
    >>> cell_text(3.0), cell_text(float("nan")), cell_text(0.1), cell_text("Q4")
    ('3', '', '0.1', 'Q4')
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


def sheet_from_frame(df) -> AnswerSheet:
    """An :class:`AnswerSheet` from a data frame, every row checked as a file's row would be.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``student``, ``question``, ``answer`` and optionally ``variant`` (any
        case, spaces around the names ignored).

    Returns
    -------
    AnswerSheet

    Examples
    --------
    >>> import pandas as pd
    >>> sheet = sheet_from_frame(pd.DataFrame({"Student": ["ada"], "question": ["q4"], "answer": [4.69]}))
    >>> sheet.answers[["question", "answer"]].values.tolist()
    [['Q4', '4.69']]
    """
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
            texts = [cell_text(v) for v in values]
            yield i + 2, texts + [""] * (5 - len(texts)), None

    rows, problems = _validate(records(), has_variant)
    notes: list[str] = []
    rows = _merge_case(rows, notes)
    return AnswerSheet(_frame(rows), tuple(problems), has_variant, "answers", tuple(notes))

