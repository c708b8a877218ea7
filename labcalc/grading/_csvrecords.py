"""The records of an answers file: CSV read line by line, robust to quotes that never close.

Private to :mod:`labcalc.grading`: :func:`labcalc.grading.read_answers` reads the header
with the csv module, then iterates :class:`Records`. A record is read by the csv module
over at most :data:`MAX_RECORD_LINES` lines; one that holds a line break inside a quoted
field is skipped as a whole (its end found by :class:`QuoteScanner` in one pass over the
file), and one whose quote never closes is skipped alone, the lines after it read again.
Each physical line is looked at a bounded number of times, so a hostile file costs a few
passes over it, never one pass per line.
"""

from __future__ import annotations

import csv
import re

__all__ = ["Lines", "Records", "QuoteScanner", "MAX_RECORD_LINES", "LINE"]

#: One physical line with its line break (any of CRLF, CR, LF).
LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")

#: The csv reader reads a record over at most this many lines (a quoted field with line
#: breaks); a record still open after them is followed with :class:`QuoteScanner`, which
#: finds where its quotes close in one pass over the file, so that a file of such
#: quotes costs a few passes over the file instead of one pass per line.
MAX_RECORD_LINES = 8


class Lines:
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


class QuoteScanner:
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


class Records:
    """The records after the header: ``(row, fields, None)`` or ``(row, None, reason)``.

    A record is read by the csv module over at most :data:`MAX_RECORD_LINES` lines;
    one that holds a line break inside a quoted field is skipped as a whole (its end
    found by :class:`QuoteScanner`), and one whose quote never closes is skipped
    alone, the lines after it read again (listed in ``reread`` and in ``notes``).
    """

    def __init__(self, lines: list[str], it: Lines, delimiter: str, notes: list[str]):
        self.lines, self.it, self.delimiter, self.notes = lines, it, delimiter, notes
        self.scanner = QuoteScanner(lines, delimiter)
        self.reader = csv.reader(it, delimiter=delimiter, strict=False)
        self.reread: list[tuple[int, int]] = []

    def never_closed(self, first: int):
        """A quote opened at line ``first`` runs to the end of the file: the lines
        after it are read again as rows, and remembered as such (see labcalc.grading.grade)."""
        n = len(self.lines)
        if first + 1 < n:
            self.reread.append((first + 2, first + 1))
            span = f"row {first + 2} was" if first + 2 == n else f"rows {first + 2} to {n} were"
            self.notes.append(f"a quote opened at row {first + 1} is never closed: {span} read again "
                              f"after it; check them (a row read again never replaces an answer read "
                              f"before the quote)")
        return (first + 1, None, "a quote opened in this row is never closed (it runs to the end of "
                                 "the file); the row is skipped and the lines after it are read again")

    @staticmethod
    def swallowed(first: int, last: int, what: str):
        """A record from line ``first`` to line ``last`` that is skipped."""
        inside = (f"; the quoted field runs over {last - first + 1} lines, to line {last + 1}, and "
                  f"the lines inside it are not read as rows" if last > first + 1 else "")
        return first + 1, None, what + inside

    def skip_record(self, first: int, j: int, quoted: bool, what: str):
        """The problem of the record starting at line ``first``, found to end by its
        quotes from line ``j`` on; reading goes on after it (or, when its quote never
        closes, on the line after ``first``). The csv reader starts afresh."""
        last = self.scanner.record_end(j, quoted)
        self.reader = csv.reader(self.it, delimiter=self.delimiter, strict=False)
        if last is None:
            self.it.i = first + 1
            return self.never_closed(first)
        self.it.i = last + 1
        return self.swallowed(first, last, what)

    def __iter__(self):
        it = self.it
        while True:
            first = it.i  # index of the line where the next record starts
            it.limit = first + MAX_RECORD_LINES
            it.cut = False
            try:
                fields = next(self.reader)
            except StopIteration:
                return
            except csv.Error as exc:
                # where the record really ends, by its quotes (an error leaves the
                # reader somewhere inside it)
                yield self.skip_record(first, first, False, f"unreadable CSV ({exc})")
                continue
            if it.cut:
                # the reader stopped inside a quoted field (after MAX_RECORD_LINES
                # lines, or at the end of the file): does that quote ever close?
                yield self.skip_record(first, it.i, True, "a line break inside a quoted field")
                continue
            if any("\n" in f or "\r" in f for f in fields):
                # a quoted field that closes properly is one field, whatever it holds
                yield self.swallowed(first, it.i - 1, "a line break inside a quoted field")
                continue
            yield first + 1, fields, None
