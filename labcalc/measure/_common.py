"""Shared machinery of the measurement readers: input handling, errors, malformed-line report.

Every reader accepts the same kinds of input (see :func:`open_text`):

- a path (``str`` without a newline, or :class:`os.PathLike`),
- an open file object, text or binary,
- the text itself (a ``str`` that contains at least one newline), or ``bytes``.

A line a reader does not understand is *malformed*: it is skipped, counted, and reported in
``df.attrs["malformed"]`` (``{"count": n, "lines": [first line numbers]}``) and by one
:class:`MalformedLinesWarning`. A source in which the reader recognises nothing at all raises
:class:`MeasurementFormatError`, whose message names the source, the line and the format
that was expected.
"""

from __future__ import annotations

import io
import os
import re
import contextlib
import gc
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Iterator

__all__ = [
    "MeasurementFormatError",
    "MalformedLinesWarning",
    "ToolErrorWarning",
    "Report",
    "open_text",
    "open_bytes",
    "iter_byte_chunks",
    "source_name",
    "numeric_column",
    "first_line",
    "last_line",
]

#: How many malformed line numbers are kept (the count is always complete).
MAX_REPORTED_LINES = 10

#: ssthresh values that mean "not set yet" (TCP_INFINITE_SSTHRESH and ns-3's UINT32_MAX).
SSTHRESH_UNSET = (2147483647, 4294967295)


class MeasurementFormatError(ValueError):
    """A measurement source could not be read as the expected format.

    Attributes
    ----------
    source : str
        File name (or ``"<text>"`` / ``"<stream>"``) that was read.
    line : int or None
        1-based line number where the problem was found.
    expected : str
        The format that was expected.
    """

    def __init__(self, source: str, line: int | None, expected: str, detail: str):
        self.source = source
        self.line = line
        self.expected = expected
        self.detail = detail
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {detail} (expected {expected})")


class MalformedLinesWarning(UserWarning):
    """Some lines of a measurement file were skipped because they could not be parsed."""


class ToolErrorWarning(UserWarning):
    """The tool reported an error after producing some measurements (they are returned)."""


def source_name(path) -> str:
    """Human-readable name of a reader input (for messages)."""
    if isinstance(path, os.PathLike):
        return os.fspath(path)
    if isinstance(path, str):
        return "<text>" if "\n" in path else path
    if isinstance(path, (bytes, bytearray)):
        return "<text>"
    name = getattr(path, "name", None)
    return str(name) if isinstance(name, (str, os.PathLike)) else "<stream>"


def is_path(path) -> bool:
    """True when *path* names a file (a path-like object, or a str without a newline); a
    str holding a newline is the text itself.

    Examples
    --------
    >>> is_path("cwnd.data"), is_path("0.1 536\\n")
    (True, False)
    """
    return isinstance(path, os.PathLike) or (isinstance(path, str) and "\n" not in path)


#: Default size limit [bytes] of one reader input (after gzip decompression); readers pass it on.
MAX_INPUT_BYTES = 1 << 31


def _from_textio(exc) -> MeasurementFormatError:
    return MeasurementFormatError(exc.source, exc.line, "a text file", exc.detail)


def _decode(data: bytes, name: str = "<bytes>") -> str:
    """Decode by the labcalc text policy (:func:`labcalc._textio.decode`); NUL bytes are
    turned into U+FFFD so that the line fails to parse and is reported as malformed."""
    from .. import _textio

    res = _textio.decode(data, name, nul="report")
    for note in res.notes:
        if res.encoding != "utf-8" and "UTF-8" in note:
            warnings.warn(note, MalformedLinesWarning, stacklevel=4)
    text = res.text
    if res.nul_lines:
        text = text.replace("\0", "\ufffd")
    return text


def open_binary(path):
    """Open a path for binary reading, decompressing gzip files (recognised by their magic bytes)."""
    if os.path.isdir(path):
        raise MeasurementFormatError(source_name(path), None, "a file", "this is a directory")
    fh = open(path, "rb")
    if fh.peek(2)[:2] == b"\x1f\x8b":
        import gzip

        fh.close()
        return gzip.open(path, "rb")
    return fh


def gunzip(data: bytes, name: str = "<bytes>") -> bytes:
    """*data* decompressed when they start with the gzip magic bytes, else unchanged;
    corrupt or too big gzip data raise :class:`MeasurementFormatError` naming *name*.

    Examples
    --------
    >>> import gzip
    >>> gunzip(gzip.compress(b"0.1 536\\n")), gunzip(b"plain")
    (b'0.1 536\\n', b'plain')
    """
    if data[:2] == b"\x1f\x8b":
        from .. import _textio

        try:
            return _textio.gunzip(data, name, MAX_INPUT_BYTES)
        except _textio.TextInputError as exc:
            raise _from_textio(exc) from None
    return data


def corrupt_gzip(name: str, exc: BaseException) -> MeasurementFormatError:
    """The error for data that start like gzip but cannot be decompressed (*exc* says why).

    Examples
    --------
    >>> corrupt_gzip("a.gz", EOFError("truncated")).detail
    'the data start like gzip but cannot be decompressed (truncated)'
    """
    return MeasurementFormatError(name, None, "gzip-compressed text",
                                  f"the data start like gzip but cannot be decompressed ({exc or type(exc).__name__})")


def open_text(path, max_bytes: int = MAX_INPUT_BYTES) -> tuple[str, str]:
    """Return ``(name, text)`` for any reader input (whole content, universal newlines).

    The input is read by :func:`labcalc._textio.read_bytes` (size limit *max_bytes*, gzip,
    corrupt gzip refused) and decoded by :func:`_decode` (BOM removed, UTF-8 with a reported
    cp1252/latin-1 fallback, NUL bytes made visible so that their lines are malformed).
    Problems raise :class:`MeasurementFormatError` naming the source.
    """
    from .. import _textio

    name = source_name(path)
    if isinstance(path, str) and not is_path(path):
        text = path
    elif is_path(path) or isinstance(path, (bytes, bytearray)) or hasattr(path, "read"):
        try:
            data, name, _ = _textio.read_bytes(path, max_bytes=max_bytes, name=name)
        except _textio.TextInputError as exc:
            raise _from_textio(exc) from None
        text = _decode(data, name)
    else:
        raise TypeError(f"path: expected a file name, a file object or text, got {type(path).__name__}")
    return name, _normalised(text)


def _normalised(text: str) -> str:
    """*text* without a byte-order mark, NUL made visible (U+FFFD), newlines ``\\n``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def open_bytes(path, max_bytes: int = MAX_INPUT_BYTES) -> tuple[str, bytes, int]:
    """Return ``(name, data, start)``: the input as UTF-8 bytes, its text from ``data[start:]``.

    The same policy as :func:`open_text` without holding the text as a ``str``: bytes that
    are UTF-8 already (no NUL, newlines ``\\n`` or ``\\r\\n``) are returned as read, a UTF-8
    byte-order mark skipped by *start*; anything else (UTF-16, cp1252, NUL bytes, bare
    ``\\r`` newlines) is decoded by :func:`open_text` and encoded again. For readers that
    hand the bytes to a C parser (pandas): a 200 MB file is then held once, not three times.
    """
    import codecs

    from .. import _textio

    name = source_name(path)
    if isinstance(path, str) and not is_path(path):
        return name, path.lstrip("\ufeff").encode("utf-8", "surrogatepass"), 0
    if not (is_path(path) or isinstance(path, (bytes, bytearray)) or hasattr(path, "read")):
        raise TypeError(f"path: expected a file name, a file object or text, got {type(path).__name__}")
    try:
        data, name, _ = _textio.read_bytes(path, max_bytes=max_bytes, name=name)
    except _textio.TextInputError as exc:
        raise _from_textio(exc) from None
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    plain = _textio.utf16_bom(data) is None and b"\0" not in data
    if plain and b"\r" in data:
        plain = data.count(b"\r") == data.count(b"\r\n")
    if plain and not data.isascii():
        check = codecs.getincrementaldecoder("utf-8")()
        view = memoryview(data)
        try:
            for i in range(0, len(data), 1 << 24):  # a piece at a time: no text of the whole file
                check.decode(view[i:i + (1 << 24)])
            check.decode(b"", final=True)
        except UnicodeDecodeError:
            plain = False
    if plain:
        return name, data, start
    text = _normalised(_decode(data, name))
    del data
    return name, text.encode("utf-8", "surrogatepass"), 0


def iter_byte_chunks(path, chunk_bytes: int = 1 << 24, pad: int = 0) -> Iterator[bytes]:
    """Yield chunks of the source that each end with a newline (plus *pad* NUL bytes).

    Used by the readers of big files so that memory stays bounded. The last chunk gets a
    newline appended when the source does not end with one. The chunks are UTF-8 (or the
    source's own single-byte encoding): a source that starts with a UTF-16 byte-order mark
    (:func:`labcalc._textio.utf16_bom`, what Windows PowerShell saves) is transcoded to
    UTF-8 on the fly, a code unit that is not valid UTF-16 becoming U+FFFD (its line then
    fails to parse and is reported as malformed).
    """
    import codecs

    from .. import _textio

    if is_path(path):
        fh = open_binary(path)
        close = True
    elif isinstance(path, (bytes, bytearray)):
        fh, close = io.BytesIO(gunzip(bytes(path), source_name(path))), True
    elif isinstance(path, str):
        fh, close = io.BytesIO(path.lstrip("\ufeff").encode("utf-8")), True
    elif hasattr(path, "read"):
        first = path.read(0)
        if isinstance(first, str):  # text stream: read it all (text streams are small in practice)
            fh, close = io.BytesIO(path.read().encode("utf-8")), True
        else:
            fh, close = path, False
            if hasattr(fh, "peek"):
                head = fh.peek(2)[:2]
            elif hasattr(fh, "seekable") and fh.seekable():
                pos = fh.tell()
                head = fh.read(2)
                fh.seek(pos)
            else:
                head = b""
            if head == b"\x1f\x8b":
                import gzip

                fh, close = gzip.GzipFile(fileobj=path, mode="rb"), True
    else:
        raise TypeError(f"path: expected a file name, a file object or text, got {type(path).__name__}")
    tail = b"\0" * pad
    try:
        rest = b""
        first_chunk = True
        utf16 = None  # the incremental decoder of a UTF-16 source
        while True:
            try:
                block = fh.read(chunk_bytes)
            except (EOFError, OSError, zlib.error) as exc:
                raise corrupt_gzip(source_name(path), exc) from None
            eof = not block
            if first_chunk:
                codec = _textio.utf16_bom(block)
                if codec is not None:
                    utf16 = codecs.getincrementaldecoder(codec)("replace")
                    block = block[2:]
                elif block.startswith(b"\xef\xbb\xbf"):
                    block = block[3:]
                first_chunk = False
            if utf16 is not None:
                block = utf16.decode(block, final=eof).encode("utf-8", "surrogatepass")
            if eof:
                rest += block  # what the decoder held back (U+FFFD for a byte cut off)
                if rest:
                    yield b"".join((rest, b"" if rest.endswith(b"\n") else b"\n", tail))
                return
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                rest += block
                continue
            view = memoryview(block)
            yield b"".join((rest, view[:cut], tail))
            rest = bytes(view[cut:])
    finally:
        if close:
            fh.close()


@dataclass
class Report:
    """Collects what a reader skipped; attaches it to the frame and warns once."""

    name: str
    fmt: str
    expected: str
    malformed_count: int = 0
    malformed_lines: list = field(default_factory=list)
    first_bad_text: str | None = None
    recognised: int = 0
    first_content_line: int | None = None
    first_content_text: str | None = None

    def bad(self, line_no: int, text: str | None = None) -> None:
        self.malformed_count += 1
        if len(self.malformed_lines) < MAX_REPORTED_LINES:
            self.malformed_lines.append(int(line_no))
        if self.first_bad_text is None and text is not None:
            self.first_bad_text = text
        self.content(line_no, text)

    def bad_many(self, line_numbers, texts=None) -> None:
        n = len(line_numbers)
        if not n:
            return
        self.malformed_count += n
        room = MAX_REPORTED_LINES - len(self.malformed_lines)
        if room > 0:
            self.malformed_lines.extend(int(x) for x in line_numbers[:room])
        if self.first_bad_text is None and texts is not None and len(texts):
            self.first_bad_text = texts[0]
        self.content(int(line_numbers[0]), texts[0] if texts is not None and len(texts) else None)

    def content(self, line_no: int, text: str | None = None) -> None:
        if self.first_content_line is None or line_no < self.first_content_line:
            self.first_content_line = int(line_no)
            self.first_content_text = text

    def ok(self, n: int = 1) -> None:
        self.recognised += n

    def fail(self, line: int | None, detail: str) -> MeasurementFormatError:
        return MeasurementFormatError(self.name, line, self.expected, detail)

    def require_something(self) -> None:
        """Raise when nothing at all was recognised in the source."""
        if self.recognised:
            return
        if self.first_content_line is None:
            raise self.fail(1, "the source is empty (no line to read)")
        shown = self.first_content_text if self.first_content_text is not None else self.first_bad_text
        shown = "" if shown is None else shown.strip()
        if len(shown) > 70:
            shown = shown[:67] + "..."
        raise self.fail(self.first_content_line, f"not {self.fmt} output: this line reads {shown!r}")

    def finish(self, df, extra: dict | None = None):
        """Attach ``attrs`` to *df* and warn about malformed lines; returns *df*."""
        df.attrs["format"] = self.fmt
        df.attrs["source"] = self.name
        df.attrs["malformed"] = {"count": int(self.malformed_count), "lines": list(self.malformed_lines)}
        if extra:
            df.attrs.update(extra)
        if self.malformed_count:
            lines = ", ".join(str(x) for x in self.malformed_lines)
            more = ", ..." if self.malformed_count > len(self.malformed_lines) else ""
            warnings.warn(
                f"{self.name}: skipped {self.malformed_count} malformed line(s) of {self.fmt} "
                f"(line {lines}{more}); see df.attrs['malformed']",
                MalformedLinesWarning,
                stacklevel=3,
            )
        return df


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


#: How a JSON document of a tool opens: an object, or an array of objects or arrays (``[]`` too).
#: A line such as ``['eth0', 'eth1']`` (Python's print of a list, left in a log) is text.
_JSON_START = re.compile(r"\{|\[\s*(?:[\[{\]]|$)")


def json_start(head: str) -> bool:
    """Whether *head* (text from its first non-blank character) opens a tool's JSON document.

    Examples
    --------
    >>> json_start('[{"kind": "pfifo"}]'), json_start("{"), json_start("['s2-eth2', 'eth0']")
    (True, True, False)
    """
    return bool(_JSON_START.match(head))


def json_unclosed(text: str, start: int = 0) -> bool:
    """True when the JSON text from *start* ends inside a string or with a ``{`` / ``[`` still open.

    Used to tell a truncated document from an invalid one: :mod:`json` reports only where
    decoding failed, which for a file cut inside a string or a literal (``"10.0.`` or
    ``tru``) is not the end of the text. Hand-written (strings removed by a regular
    expression, then brackets counted) because the json module exposes no such check.
    """
    rest = _JSON_STRING.sub("", text[start:])
    if '"' in rest:  # an opening quote without its closing one
        return True
    return rest.count("{") + rest.count("[") > rest.count("}") + rest.count("]")


@contextlib.contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector while a reader builds many small objects.

    A reader of a big file creates millions of match tuples that all stay alive until their
    chunk is converted; every collection walks them all again (a third of the time of
    ``read_tc_qdisc`` on a 20 MB file). Reference counting still frees everything; the
    collector is switched back on (if it was on) when the block ends, also on an error.

    Examples
    --------
    >>> import gc
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def iter_lines(text: str):
    """Yield ``(line_number, line)`` with 1-based numbers and trailing whitespace removed.

    The lines of ``text.split("\\n")``, split a piece of about 4 MB at a time: the line
    objects of a whole 200 MB file would take 1.5 times its size.
    """
    i = 1
    for piece in line_pieces(text):
        for line in piece.split("\n"):
            yield i, line.rstrip()
            i += 1


def line_pieces(text: str, size: int = 1 << 22):
    """Pieces of *text* of about *size* characters, cut just before a newline that is dropped.

    Split on ``"\\n"``, the pieces give exactly the lines of ``text.split("\\n")``, in order.

    Examples
    --------
    >>> list(line_pieces("a\\nbb\\ncc\\n", size=2))
    ['a\\nbb', 'cc', '']
    """
    start = 0
    n = len(text)
    while True:
        stop = text.find("\n", start + size) if start + size < n else -1
        if stop < 0:
            yield text[start:]
            return
        yield text[start:stop]
        start = stop + 1


def to_float(s: str) -> float:
    return float(s)


# Multipliers of the unit prefixes used by iperf, ss and tc.
#: decimal prefixes (rates in bit/s: iperf "Mbits/sec", ss "Mbps", tc "Mbit")
DEC = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9, "t": 1e12, "T": 1e12}
#: binary prefixes (iperf "KBytes"/"MBytes", tc backlog "Kb")
BIN = {"": 1.0, "k": 1024.0, "K": 1024.0, "m": 1024.0**2, "M": 1024.0**2, "g": 1024.0**3, "G": 1024.0**3,
       "t": 1024.0**4, "T": 1024.0**4}


def nan_sentinel_ssthresh(values):
    """Replace the 'unset' ssthresh sentinels by NaN (returns a float numpy array)."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    arr = arr.copy()
    arr[arr >= SSTHRESH_UNSET[0]] = np.nan
    return arr


#: Deepest bracket nesting accepted in a JSON measurement file (iperf3 and ``tc -j`` use < 10).
MAX_JSON_DEPTH = 100


def check_json_depth(text: str, name: str, max_depth: int = MAX_JSON_DEPTH, expected: str = "JSON") -> None:
    """Raise :class:`MeasurementFormatError` when *text* nests ``{``/``[`` deeper than *max_depth*.

    Python's :mod:`json` decoder recurses once per level, so a hostile file nested
    100,000 deep ends in ``RecursionError``. This pre-scan is hand-written because the json
    module has no depth limit: strings are removed with the same regular expression as
    :func:`json_unclosed`, then the running depth is tracked bracket by bracket with numpy
    (linear in the text, no recursion).

    Parameters
    ----------
    text : str
        The JSON text (one or several documents).
    name : str
        Source name for the message.
    max_depth : int
        Deepest nesting allowed.
    expected : str
        Format named in the message.

    Raises
    ------
    MeasurementFormatError
        Naming *name* and the line where the nesting first goes deeper than *max_depth*.

    Examples
    --------
    >>> check_json_depth('{"a": [1, {"b": 2}]}', "x.json")
    >>> try:
    ...     check_json_depth("[" * 500, "x.json")
    ... except MeasurementFormatError as exc:
    ...     print(exc.source, exc.line)
    x.json 1
    """
    # fast exit: fewer brackets than the limit cannot nest deeper than it
    if text.count("{") + text.count("[") <= max_depth:
        return
    import numpy as np

    # brackets and newlines are ASCII: their byte positions in UTF-8 are enough
    stripped = _JSON_STRING.sub('""', text).encode("utf-8", "surrogatepass")
    codes = np.frombuffer(stripped, dtype=np.uint8)
    step = np.zeros(codes.shape, dtype=np.int32)
    step[(codes == 0x7B) | (codes == 0x5B)] = 1  # { [
    step[(codes == 0x7D) | (codes == 0x5D)] = -1  # } ]
    over = np.flatnonzero(np.cumsum(step) > max_depth)
    if over.size:
        pos = int(over[0])
        line = stripped.count(b"\n", 0, pos) + 1
        raise MeasurementFormatError(
            name, line, expected,
            f"the JSON nests deeper than {max_depth} levels (a measurement file never does; "
            "the file is damaged or not a tool's output)",
        )


def numeric_column(df, column: str, analysis: str):
    """The values of ``df[column]`` as a float array, for *analysis*.

    A reader keeps a column as text when its values are not numbers (a tool's text field,
    or a damaged numeric field: :func:`labcalc.measure.read_tshark` lists those in
    ``attrs["not_numeric"]``). Only the analysis that needs the column as numbers refuses
    it, with this error.

    Parameters
    ----------
    df : pandas.DataFrame
        A reader's frame (its ``attrs["source"]`` names the file in the message).
    column : str
        The column the analysis reads.
    analysis : str
        What needs it, for the message (``"receive_rate"``).

    Returns
    -------
    numpy.ndarray
        The column as float64 (booleans as 0/1, missing values NaN).

    Raises
    ------
    MeasurementFormatError
        Naming the file, the column (and the tool's field), the first value that is not a
        number, the analysis, and how to turn the column into numbers deliberately.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"bytes": ["1448", "x"]})
    >>> df.attrs["source"] = "cap.csv"
    >>> try:
    ...     numeric_column(df, "bytes", "receive_rate")
    ... except MeasurementFormatError as exc:
    ...     print(exc.detail[:60])
    column 'bytes' holds 'x' (row 2), not a number; receive_rate
    """
    import numpy as np
    import pandas as pd

    s = df[column]
    if pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        return s.to_numpy(dtype=float, na_value=np.nan)
    info = (df.attrs.get("not_numeric") or {}).get(column)
    if info:
        what = f"column {column!r} (the tool's field {info['field']!r}) holds {info['value']!r} (row {info['row']})"
    else:
        num = pd.to_numeric(s.astype(object).where(s.notna(), None), errors="coerce")
        bad = np.flatnonzero((num.isna() & s.notna()).to_numpy() | np.isinf(num.to_numpy(dtype=float)))
        if not len(bad):
            return num.to_numpy(dtype=float)
        what = f"column {column!r} holds {str(s.iloc[bad[0]])[:40]!r} (row {int(bad[0]) + 1})"
    raise MeasurementFormatError(
        str(df.attrs.get("source", "<frame>")), None, f"numbers in column {column!r}",
        f"{what}, not a number; {analysis} needs this column as numbers. To use it anyway, make "
        f"the other values missing deliberately: df[{column!r}] = pd.to_numeric(df[{column!r}], errors='coerce')")


def first_line(body: bytes, pos: int = 0, lines: int = 199) -> bytes:
    """The first line of *body* from *pos* on that is not blank, among its next *lines* lines
    (b"" if none); no copy of *body*.

    Examples
    --------
    >>> first_line(b"\\n  \\na,b\\nc\\n")
    b'a,b'
    """
    for _ in range(lines):
        end = body.find(b"\n", pos)
        line = body[pos:] if end < 0 else body[pos:end]
        if line.strip():
            return line
        if end < 0:
            break
        pos = end + 1
    return b""


def last_line(body: bytes, start: int = 0) -> bytes:
    """The last line of *body* after *start* that is not blank (b"" if none); no copy of *body*.

    Examples
    --------
    >>> last_line(b"a,b\\nc,d\\n\\n")
    b'c,d'
    """
    end = len(body)
    while end > start:
        cut = body.rfind(b"\n", start, end)
        line = body[max(cut + 1, start):end]
        if line.strip():
            return line
        end = max(cut, start)
    return b""
