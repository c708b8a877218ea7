"""One policy for reading text inputs (measurement files, answer files, CSV tables).

Every module of labcalc that reads a text file a student or a tool produced goes through
:func:`read_text` (or :func:`read_bytes` + :func:`decode`), so that all of them treat the
same inputs the same way:

- accepted inputs: a path (``str`` without a newline, or :class:`os.PathLike`), an open file
  (text or binary), the text itself (``str`` with a newline) or ``bytes``;
- a size limit (``max_bytes``), checked before the data are held in memory where possible;
- gzip is recognised by its magic bytes (``1f 8b``) and decompressed; a corrupt gzip stream
  (truncated, bad CRC, only the magic) is refused with :class:`TextInputError`;
- a UTF-8 byte-order mark is removed; a UTF-16 byte-order mark (``FF FE`` little-endian, as
  Windows PowerShell 5.1 saves ``ping ... > file``; ``FE FF`` big-endian) makes the input
  UTF-16, decoded as such (:func:`utf16_bom` tells which; :func:`decode_head` decodes a
  prefix of any input the same way, for format sniffing);
- the bytes are decoded as UTF-8; when that fails they are decoded as cp1252 (or latin-1
  for bytes cp1252 leaves undefined) and a note says so and names the first line that was
  not UTF-8 -- never silent replacement characters;
- NUL bytes are refused with the line number (``nul="error"``, the default), or kept and
  reported in :attr:`TextInput.nul_lines` (``nul="report"``) for callers whose contract is
  to skip bad lines and report them.

This module imports only the standard library (and, when a header is sniffed,
:func:`labcalc.units.normalize_text`) so that every layer above the core can use it.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import zlib
from dataclasses import dataclass, field

__all__ = ["TextInputError", "TextInput", "read_bytes", "decode", "read_text", "source_name",
           "DEFAULT_MAX_BYTES", "SEP_LINE", "DELIMITERS", "column_name", "sniff_delimiter",
           "utf16_bom", "decode_head"]

#: Default size limit [bytes] of one input (after gzip decompression): 1 GiB.
DEFAULT_MAX_BYTES = 1 << 30

_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
#: byte-order marks of UTF-16 -> the codec that reads what follows them
_UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


class TextInputError(ValueError):
    """A text input could not be read; the message starts with the source's name.

    Attributes
    ----------
    source : str
        The name of the input (file name, ``"<text>"`` or ``"<stream>"``).
    line : int or None
        1-based line number of the problem, when there is one.

    Examples
    --------
    >>> err = TextInputError("a.txt", "contains a NUL byte", line=3)
    >>> str(err)
    'a.txt, line 3: contains a NUL byte'
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(self, source: str, detail: str, line: int | None = None):
        self.source = source
        self.line = line
        self.detail = detail
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {detail}")


@dataclass
class TextInput:
    """The decoded content of one input.

    Attributes
    ----------
    text : str
        The content, BOM removed (newlines are left as they were).
    name : str
        The source's name for messages.
    encoding : str
        ``"utf-8"``, ``"utf-16-le"``, ``"utf-16-be"``, ``"cp1252"`` or ``"latin-1"``.
    notes : list of str
        Human-readable notes on what was done (gzip, fallback encoding, NUL lines).
    compressed : bool
        True when the input was gzip-compressed.
    nul_lines : list of int
        1-based numbers of lines that contain a NUL byte (only with ``nul="report"``).

    Examples
    --------
    >>> t = TextInput(text="a\\n", name="<text>", encoding="utf-8")
    >>> t.notes, t.compressed
    ([], False)
    """

    text: str
    name: str
    encoding: str
    notes: list = field(default_factory=list)
    compressed: bool = False
    nul_lines: list = field(default_factory=list)


def source_name(source) -> str:
    """Name of an input for messages.

    Parameters
    ----------
    source : str, path-like, bytes or file object
        The input.

    Returns
    -------
    str
        The path, the file object's ``name``, ``"<text>"`` for text/bytes, or ``"<stream>"``.

    Examples
    --------
    >>> source_name("data/run1.txt"), source_name("a\\nb\\n"), source_name(b"x")
    ('data/run1.txt', '<text>', '<text>')
    """
    if isinstance(source, os.PathLike):
        return os.fspath(source)
    if isinstance(source, str):
        return "<text>" if "\n" in source else source
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "<text>"
    name = getattr(source, "name", None)
    if isinstance(name, os.PathLike):
        return os.fspath(name)
    return name if isinstance(name, str) else "<stream>"


def _is_path(source) -> bool:
    return isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source)


def _too_big(name: str, max_bytes: int, what: str) -> TextInputError:
    return TextInputError(name, f"{what} is larger than the limit of {max_bytes} bytes "
                                f"(pass a larger max_bytes to read it)")


def gunzip(data: bytes, name: str, max_bytes: int) -> bytes:
    """Decompress gzip *data* (several members allowed) to at most *max_bytes* bytes;
    :class:`TextInputError` naming *name* when the data are corrupt or too big.

    Examples
    --------
    >>> import gzip
    >>> gunzip(gzip.compress(b"1 2\\n"), "x.gz", 100)
    b'1 2\\n'
    """
    # zlib.decompressobj with a bounded output so that a gzip bomb cannot exhaust memory;
    # gzip.decompress has no such bound. wbits=47 accepts a gzip header and checks the CRC.
    out = []
    total = 0
    rest = data
    try:
        while rest:
            d = zlib.decompressobj(wbits=47)
            buf = rest
            while True:
                chunk = d.decompress(buf, max(1, max_bytes + 1 - total))
                out.append(chunk)
                total += len(chunk)
                if total > max_bytes:
                    raise _too_big(name, max_bytes, "the decompressed content")
                if d.eof:
                    break
                buf = d.unconsumed_tail
                if not buf:
                    raise TextInputError(name, "the data start like gzip but the stream is truncated "
                                               "(incomplete gzip file)")
            rest = d.unused_data.lstrip(b"\0")  # concatenated members, trailing padding
            if rest and rest[:2] != _GZIP_MAGIC:
                break
    except zlib.error as exc:
        raise TextInputError(name, f"the data start like gzip but cannot be decompressed ({exc})") from None
    return b"".join(out)


def read_bytes(source, *, max_bytes: int = DEFAULT_MAX_BYTES, name: str | None = None) -> tuple[bytes, str, bool]:
    """Read the raw bytes of an input, decompressing gzip.

    Parameters
    ----------
    source : str, path-like, bytes, or file object
        A path (a ``str`` without newline), an open file (binary or text), or the content.
        A ``str`` with a newline is the content itself (returned UTF-8 encoded).
    max_bytes : int, optional
        Largest accepted size [bytes], before and after decompression (default 1 GiB).
    name : str, optional
        Name used in messages (default: :func:`source_name`).

    Returns
    -------
    data : bytes
        The (decompressed) bytes.
    name : str
        The source's name.
    compressed : bool
        True when the input was gzip.

    Raises
    ------
    FileNotFoundError
        The path does not exist (the standard exception, left as it is).
    TextInputError
        Unreadable file, a directory, too large input, corrupt gzip.

    Examples
    --------
    >>> import gzip
    >>> read_bytes(gzip.compress(b"1 2\\n"))
    (b'1 2\\n', '<text>', True)
    >>> read_bytes(b"\\x1f\\x8b")
    Traceback (most recent call last):
    ...
    labcalc._textio.TextInputError: <text>: the data start like gzip but the stream is truncated (incomplete gzip file)
    """
    name = source_name(source) if name is None else name
    if _is_path(source):
        path = os.fspath(source)
        if os.path.isdir(path):
            raise TextInputError(name, "this is a directory, not a file")
        try:
            size = os.path.getsize(path)
            if size > max_bytes:
                raise _too_big(name, max_bytes, "the file")
            with open(path, "rb") as fh:
                data = fh.read(max_bytes + 1)
        except FileNotFoundError:
            raise  # the standard exception: callers and users know it
        except OSError as exc:
            raise TextInputError(name, f"cannot be read ({exc.strerror or exc})") from None
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, str):
        data = source.encode("utf-8", "surrogatepass")
    elif hasattr(source, "read"):
        try:
            data = source.read(max_bytes + 1)
        except TypeError:  # a read() without a size argument
            data = source.read()
        except OSError as exc:
            raise TextInputError(name, f"cannot be read ({exc})") from None
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
    else:
        raise TypeError(f"source: expected a file name, a file object, text or bytes, got {type(source).__name__}")
    if len(data) > max_bytes:
        raise _too_big(name, max_bytes, "the input")
    compressed = data[:2] == _GZIP_MAGIC
    if compressed:
        data = gunzip(data, name, max_bytes)
    return data, name, compressed


def _line_of(data: bytes, pos: int) -> int:
    return data.count(b"\n", 0, pos) + 1


def utf16_bom(data: bytes) -> str | None:
    """The codec of UTF-16 *data* that start with a byte-order mark, else None.

    Parameters
    ----------
    data : bytes
        The first bytes of an input (two are enough).

    Returns
    -------
    str or None
        ``"utf-16-le"`` after ``FF FE`` (what Windows PowerShell 5.1's ``>`` and
        ``Out-File`` write), ``"utf-16-be"`` after ``FE FF``, None otherwise.

    Examples
    --------
    >>> utf16_bom(b"\\xff\\xfeR\\x00"), utf16_bom(b"\\xfe\\xff\\x00R"), utf16_bom(b"Reply")
    ('utf-16-le', 'utf-16-be', None)
    """
    return _UTF16_BOMS.get(bytes(data[:2]))


def decode_head(data: bytes) -> str:
    """Text of the first bytes of an input, for recognising its format (never raises).

    The byte-order mark decides as in :func:`decode` (UTF-16 LE/BE, UTF-8); a code unit or
    character cut at the end of *data* and undecodable bytes become U+FFFD, which is
    harmless for sniffing. NUL characters are kept.

    Parameters
    ----------
    data : bytes
        The beginning of the input (already decompressed).

    Returns
    -------
    str
        The decoded prefix, without a byte-order mark.

    Examples
    --------
    >>> decode_head("\\ufeffReply from 10.0.0.2\\r\\n".encode("utf-16-le"))
    'Reply from 10.0.0.2\\r\\n'
    """
    codec = utf16_bom(data)
    if codec is not None:
        body = data[2:]
        return body[: len(body) // 2 * 2].decode(codec, "replace")
    if data.startswith(_BOM):
        data = data[3:]
    return data.decode("utf-8", "replace")


def _decode_utf16(data: bytes, codec: str, name: str, nul: str) -> TextInput:
    """Decode UTF-16 *data* (byte-order mark included) by the policy of :func:`decode`."""
    body = data[2:]
    order = "little" if codec.endswith("le") else "big"
    notes = [f"{name}: UTF-16 ({order}-endian, byte-order mark {data[:2].hex(' ').upper()}), "
             "as Windows PowerShell saves text; decoded as such"]
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        line = body[: exc.start - exc.start % 2].decode(codec, "replace").count("\n") + 1
        why = ("the file ends inside a character (an odd number of bytes: cut short?)" if exc.end >= len(body)
               else "it holds a lone surrogate code unit")
        if nul == "error":
            raise TextInputError(name, f"starts with a UTF-16 byte-order mark but is not valid UTF-16: {why}",
                                 line=line) from None
        text = body.decode(codec, "replace")
        notes.append(f"{name}: line {line} is not valid UTF-16 ({why}); its bad code units read as U+FFFD")
    nul_lines: list[int] = []
    pos = text.find("\0")
    if pos >= 0:
        if nul == "error":
            raise TextInputError(name, "contains a NUL character (a binary file, or a damaged text file?)",
                                 line=text.count("\n", 0, pos) + 1)
        while pos >= 0:
            nul_lines.append(text.count("\n", 0, pos) + 1)
            nxt = text.find("\n", pos)
            if nxt < 0:
                break
            pos = text.find("\0", nxt)
        notes.append(f"{name}: NUL characters on {len(nul_lines)} line(s), first line {nul_lines[0]}")
    return TextInput(text=text, name=name, encoding=codec, notes=notes, nul_lines=nul_lines)


def decode(data: bytes, name: str = "<text>", *, nul: str = "error") -> TextInput:
    """Decode bytes by the labcalc policy (BOM, UTF-8 with a reported fallback, NUL bytes).

    Parameters
    ----------
    data : bytes
        The raw content (already decompressed).
    name : str, optional
        The source's name, for messages and notes.
    nul : {"error", "report"}, optional
        ``"error"`` (default) refuses a NUL byte with :class:`TextInputError` naming the line;
        ``"report"`` keeps the text and lists the lines in :attr:`TextInput.nul_lines` and in a
        note (for readers that skip and report bad lines).

    Returns
    -------
    TextInput
        Text, name, encoding and notes.

    Raises
    ------
    TextInputError
        A NUL byte with ``nul="error"``.

    Notes
    -----
    A UTF-16 byte-order mark (``FF FE`` or ``FE FF``) makes the input UTF-16 (a note says
    so); a code unit that is not valid UTF-16 (a file cut after an odd number of bytes, a
    lone surrogate) raises with ``nul="error"`` and becomes U+FFFD, with a note, with
    ``nul="report"``. Otherwise UTF-8 is tried first. When it fails, cp1252 is used (what Windows editors save), and bytes
    that cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) make the whole input latin-1,
    which decodes every byte. The note names the first line that was not valid UTF-8.

    Examples
    --------
    >>> t = decode("caf\\u00e9\\n".encode("cp1252"), "notes.txt")
    >>> t.text, t.encoding
    ('caf\\xe9\\n', 'cp1252')
    >>> t.notes
    ['notes.txt: line 1 is not valid UTF-8; the file was decoded as cp1252']
    >>> decode(b"1 2\\n3\\x004\\n", "x.txt")
    Traceback (most recent call last):
    ...
    labcalc._textio.TextInputError: x.txt, line 2: contains a NUL byte (a binary file, or a damaged text file?)
    >>> decode(b"1 2\\n3\\x004\\n", "x.txt", nul="report").nul_lines
    [2]
    >>> t = decode("\\ufeffReply from 10.0.0.2\\r\\n".encode("utf-16-le"), "ping.txt")
    >>> t.text, t.encoding
    ('Reply from 10.0.0.2\\r\\n', 'utf-16-le')
    """
    if nul not in ("error", "report"):
        raise ValueError(f"nul: expected 'error' or 'report', got {nul!r}")
    codec = utf16_bom(data)
    if codec is not None:
        return _decode_utf16(data, codec, name, nul)
    notes: list[str] = []
    nul_lines: list[int] = []
    if data.startswith(_BOM):
        data = data[3:]
    pos = data.find(b"\0")
    if pos >= 0:
        if nul == "error":
            raise TextInputError(name, "contains a NUL byte (a binary file, or a damaged text file?)",
                                 line=_line_of(data, pos))
        while pos >= 0:
            ln = _line_of(data, pos)
            nul_lines.append(ln)
            nxt = data.find(b"\n", pos)
            if nxt < 0:
                break
            pos = data.find(b"\0", nxt)
        notes.append(f"{name}: NUL bytes on {len(nul_lines)} line(s), first line {nul_lines[0]}")
    try:
        text = data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError as exc:
        line = _line_of(data, exc.start)
        try:
            text = data.decode("cp1252")
            encoding = "cp1252"
        except UnicodeDecodeError:
            text = data.decode("latin-1")
            encoding = "latin-1"
        notes.append(f"{name}: line {line} is not valid UTF-8; the file was decoded as {encoding}")
    return TextInput(text=text, name=name, encoding=encoding, notes=notes, nul_lines=nul_lines)


def read_text(source, *, max_bytes: int = DEFAULT_MAX_BYTES, nul: str = "error",
              name: str | None = None) -> TextInput:
    """Read any text input of labcalc by the one policy (see the module docstring).

    Parameters
    ----------
    source : str, path-like, bytes, or file object
        A path (a ``str`` without newline), an open file, the text itself (``str`` with a
        newline) or bytes.
    max_bytes : int, optional
        Largest accepted size [bytes], before and after gzip decompression (default 1 GiB).
    nul : {"error", "report"}, optional
        What to do with NUL bytes (see :func:`decode`).
    name : str, optional
        Name used in messages (default: :func:`source_name`).

    Returns
    -------
    TextInput
        ``text`` (BOM removed), ``name``, ``encoding``, ``notes``, ``compressed``, ``nul_lines``.

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    TextInputError
        The file is unreadable, a directory, too big, corrupt gzip, or holds a NUL byte (with
        ``nul="error"``).

    Examples
    --------
    >>> import gzip
    >>> t = read_text(gzip.compress("\\ufeffa,b\\n1,2\\n".encode()))
    >>> t.text, t.encoding, t.compressed
    ('a,b\\n1,2\\n', 'utf-8', True)
    >>> read_text(b"x" * 100, max_bytes=10)
    Traceback (most recent call last):
    ...
    labcalc._textio.TextInputError: <text>: the input is larger than the limit of 10 bytes (pass a larger max_bytes to read it)
    """
    if isinstance(source, str) and "\n" in source:
        text = source[1:] if source.startswith("\ufeff") else source
        if len(text) > max_bytes:
            raise _too_big(source_name(source) if name is None else name, max_bytes, "the input")
        nm = source_name(source) if name is None else name
        if "\0" in text:
            data = text.encode("utf-8", "surrogatepass")
            res = decode(data, nm, nul=nul)
            return res
        return TextInput(text=text, name=nm, encoding="utf-8")
    data, nm, compressed = read_bytes(source, max_bytes=max_bytes, name=name)
    res = decode(data, nm, nul=nul)
    res.compressed = compressed
    if compressed:
        res.notes.insert(0, f"{nm}: gzip-compressed, decompressed")
    return res


#: An Excel ``sep=;`` first line naming the delimiter of a CSV file.
SEP_LINE = re.compile(r'^\s*"?sep=(.)"?\s*$', re.IGNORECASE)

#: Delimiters a spreadsheet's CSV export may use.
DELIMITERS = (",", ";", "\t", "|")


def column_name(header_cell: str) -> str:
    """A header cell as a column name: normalised text, stripped, no byte-order mark, lower case.

    Parameters
    ----------
    header_cell : str
        One cell of a CSV header line.

    Returns
    -------
    str
        The name the readers match against their required columns.

    Examples
    --------
    >>> column_name("\ufeff Student ")
    'student'
    """
    if header_cell.isascii():  # nothing to normalise: skip the import (a header may have 100,000 cells)
        return header_cell.strip().lower()
    from labcalc.units import normalize_text

    return normalize_text(header_cell).strip().lstrip("\ufeff").lower()


def sniff_delimiter(header: str, required) -> str:
    """The delimiter (one of :data:`DELIMITERS`) that splits a header line into ``required`` columns.

    The answer-sheet reader and the measurement-table reader both use it, so a file
    exported with ``;`` or tabs is read the same way by each.

    Parameters
    ----------
    header : str
        The header line of a CSV file.
    required : sequence of str
        Column names the file must have (lower case).

    Returns
    -------
    str
        The delimiter that yields most required columns (then most columns); ``","`` when
        none does better.

    Examples
    --------
    >>> sniff_delimiter("student;question;answer", ("student", "question", "answer"))
    ';'
    """
    best, best_score = ",", (-1, 0)
    for d in DELIMITERS:
        try:
            fields = next(csv.reader([header], delimiter=d, strict=False), [])
        except csv.Error:
            fields = []
        columns = [column_name(h) for h in fields]
        score = (sum(c in columns for c in required), len(columns))
        if score > best_score:
            best, best_score = d, score
    return best
