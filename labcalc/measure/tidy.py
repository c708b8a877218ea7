"""labcalc's own files: what ``convert``, ``measurements build`` and ``simulate`` write, read back.

Every file labcalc writes says what it is on its first line, so that :func:`labcalc.measure.read`
recognises it without guessing from its columns::

    # labcalc samples v1
    # attrs: {"format": "iperf3", "from": "q7_h3_server.txt", "side": "server", ...}
    start_s,end_s,time_s,bytes,rate_bps,...

The second line holds, as one JSON object, what the writer knew beside the table (the
original reader's ``attrs``: which side measured, the end-of-test lines, the flow, the MSS,
the simulated window...), so that a file read back gives a manifest the same numbers as the
file it was made from. The kinds:

================  ==========================================================================
``samples``       a per-sample table: ``labcalc convert`` output; ``labcalc simulate``'s
                  ``<flow>-goodput.csv``, ``<link>-queue.csv`` and the combined
                  ``goodput.csv``, ``cwnd.csv``, ``rtt.csv``, ``queue.csv``
``summary``       one row per simulated flow (``summary.csv``): goodput over the steady
                  window, packets sent and lost, loss, mean RTT
``measurements``  a tidy measurement table (``labcalc measurements build``), read by
                  :func:`labcalc.compare.load_measurements`
``trace``         an ns-3 trace-sink file ``<t> <old> <new>`` (``<flow>-cwnd.data``,
                  ``-ssth.data``, ``-rtt.data``): the header says the quantity and unit
``simulation``    the settings of an ns-3 run (``simulation.json``, a JSON object whose
                  first key is ``"labcalc"``)
================  ==========================================================================

The header lines start with ``#``: a spreadsheet shows them as two cells above the table,
and pandas reads the table with ``pandas.read_csv(path, comment="#")`` (a cell holding
``#`` is written in quotes, which pandas keeps) or ``skiprows=2``. Files written before
these headers existed are read as they were (a ``convert`` CSV by its ``time_s`` column, a
trace by its numbers).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re

import numpy as np
import pandas as pd

from ._common import MeasurementFormatError, check_json_depth, is_path, open_text, source_name

__all__ = ["KINDS", "VERSION", "read_tidy", "write_tidy", "write_trace", "header_lines", "csv_records", "TableLineError", "strict_json", "manifest_view",
           "is_tidy", "finite_or_none", "source_stem", "kind_of"]

FORMAT = "labcalc"
#: Version of the file layout this labcalc writes (the ``v1`` of the first line).
VERSION = 1
#: kind -> what such a file is (for messages).
KINDS = {
    "samples": "labcalc's per-sample table",
    "summary": "labcalc's per-flow summary of an ns-3 run",
    "measurements": "a tidy measurement table built by labcalc",
    "trace": "an ns-3 trace written by labcalc",
    "simulation": "the settings of an ns-3 run",
}
EXPECTED = "a file written by labcalc: first line '# labcalc <kind> v<n>' (kinds: " + ", ".join(KINDS) + ")"

_HEADER = re.compile(r"^\ufeff?# labcalc (?P<kind>[a-z]+) v(?P<version>\d+)[ \t]*$")
_ATTRS = "# attrs: "
# simulation.json: '{' and then "labcalc" as the first key
_JSON_HEAD = re.compile(r'^\ufeff?\s*\{\s*"labcalc"\s*:')


def is_tidy(text: str) -> bool:
    """Whether *text* (the beginning of a file) is one of labcalc's own files.

    Parameters
    ----------
    text : str
        The first line(s) of the file.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_tidy("# labcalc samples v1\\n# attrs: {}\\ntime_s,rtt_s\\n"), is_tidy("time_s,rtt_s\\n")
    (True, False)
    """
    first = text.split("\n", 1)[0].rstrip("\r")
    return bool(_HEADER.match(first) or _JSON_HEAD.match(text[:200]))


def header_lines(lines) -> int:
    """How many of the first *lines* are labcalc's header (0, 1 or 2): readers of tidy tables skip them.

    Parameters
    ----------
    lines : sequence of str
        The file's lines, in order.

    Returns
    -------
    int

    Examples
    --------
    >>> header_lines(["# labcalc measurements v1", "# attrs: {}", "question,scenario"])
    2
    >>> header_lines(["question,scenario"])
    0
    """
    if not lines or not _HEADER.match(lines[0].rstrip("\r\n")):
        return 0
    return 2 if len(lines) > 1 and lines[1].startswith(_ATTRS.rstrip()) else 1


def _jsonable(value):
    """*value* in JSON's types (numpy scalars and arrays, tuples, NaN kept as NaN)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    if value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


class TableLineError(ValueError):
    """A line of a measurement table that the csv module cannot read (an unclosed quote).

    Attributes
    ----------
    line : int
        The file's line number (blank lines counted).
    detail : str
        The csv module's message.
    """

    def __init__(self, line: int, detail: str):
        super().__init__(f"line {line}: {detail}")
        self.line, self.detail = line, detail


def csv_records(text: str, required_columns) -> tuple[str, list[tuple[int, list[str]]]]:
    r"""The delimiter and the non-blank records of a measurement table's text, each with the
    file line it starts on: the one reading of tables that a manifest's ``[[table]]`` and
    :func:`labcalc.compare.load_measurements` share.

    labcalc's own header lines (``# labcalc measurements v1`` and its attrs line) and an
    Excel ``sep=;`` line are blanked rather than removed, so that line numbers stay the
    file's; otherwise the delimiter (comma, semicolon or tab) is sniffed from the first line
    as the answer-sheet reader does (:func:`labcalc._textio.sniff_delimiter`). The csv module
    rather than pandas: pandas takes a first column as the index when rows have one field
    more than the header (an unquoted decimal comma), silently shifting every column.

    Parameters
    ----------
    text : str
        The file's text, as :func:`labcalc._textio.read_text` returns it.
    required_columns : sequence of str
        The columns the header must have (they decide the sniffed delimiter).

    Returns
    -------
    delimiter : str
    records : list of (int, list of str)
        File line of each record's start and its fields, as written (header included).

    Raises
    ------
    TableLineError
        A line the csv module cannot read, with its line number.

    Examples
    --------
    >>> csv_records("sep=;\nquestion;value\n\nQ1;3,5\n", ["question", "value"])
    (';', [(2, ['question', 'value']), (4, ['Q1', '3,5'])])
    """
    from labcalc._textio import SEP_LINE, sniff_delimiter

    lines = text.splitlines(keepends=True)
    own = header_lines(lines)
    lines[:own] = ["\n"] * own
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    delimiter = ","
    if first is not None:
        sep = SEP_LINE.match(lines[first])
        if sep:
            delimiter = sep.group(1)
            lines[first] = "\n"
        else:
            delimiter = sniff_delimiter(lines[first], required_columns)
    reader = csv.reader(io.StringIO("".join(lines), newline=""), skipinitialspace=True, delimiter=delimiter)
    records, last = [], 0
    try:
        for fields in reader:
            start, last = last + 1, reader.line_num
            if any(f.strip() for f in fields):
                records.append((start, fields))
    except csv.Error as exc:
        raise TableLineError(reader.line_num, str(exc)) from None
    return delimiter, records


def strict_json(value) -> str:
    """*value* as standard JSON text (indented), a NaN or infinity written as ``null``.

    Python's ``json`` writes ``NaN`` and ``Infinity`` by default, which JSON itself, ``jq``
    and JavaScript refuse; a file meant for other tools (``simulation.json``) is written with
    this instead.

    Parameters
    ----------
    value : object
        Dicts, lists, numbers, strings, numpy scalars and arrays, paths.

    Returns
    -------
    str
        The JSON text, two-space indented.

    Examples
    --------
    >>> print(strict_json({"goodput_bps": float("nan"), "seed": 1}))
    {
      "goodput_bps": null,
      "seed": 1
    }
    """
    def finite(v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        if isinstance(v, list):
            return [finite(x) for x in v]
        return v

    return json.dumps(finite(_jsonable(value)), indent=2, allow_nan=False)


def _attrs_line(attrs: dict | None) -> str:
    # allow_nan: a NaN in the attrs (an unset window) stays NaN when read back
    return _ATTRS + json.dumps(_jsonable(dict(attrs or {})), separators=(", ", ": "), allow_nan=True)


def _open_out(out):
    """(stream, close?) for a path, "-" (standard output) or an open text stream."""
    if isinstance(out, str) and out == "-":
        import sys

        return sys.stdout, False
    if hasattr(out, "write"):
        return out, False
    path = os.fspath(out)
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    return open(path, "w", encoding="utf-8", newline=""), True


def write_tidy(df: pd.DataFrame, out, kind: str, attrs: dict | None = None, index: bool = False) -> None:
    """Write *df* as one of labcalc's own CSV files: the header line, the attrs line, the table.

    Parameters
    ----------
    df : pandas.DataFrame
        The table (its values as they should read back; strings are written as they are).
    out : str, path-like or text stream
        Where to write; ``"-"`` for standard output. Missing folders are created.
    kind : {"samples", "summary", "measurements"}
        What the table is (see :data:`KINDS`).
    attrs : dict, optional
        What a reader needs beside the table (JSON-able: numbers, strings, lists, dicts).
    index : bool, default False
        Write the index as the first column (``summary.csv`` keeps its ``flow`` index).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        An unknown or non-CSV kind.

    Notes
    -----
    Cells holding ``#`` are quoted (all text cells then are), so that
    ``pandas.read_csv(path, comment="#")`` reads them whole.

    Examples
    --------
    >>> buf = io.StringIO()
    >>> write_tidy(pd.DataFrame({"time_s": [0.5], "rtt_s": [0.04]}), buf, "samples", {"format": "ping"})
    >>> print(buf.getvalue().strip())
    # labcalc samples v1
    # attrs: {"format": "ping"}
    time_s,rtt_s
    0.5,0.04
    """
    if kind not in KINDS or kind in ("trace", "simulation"):
        raise ValueError(f"kind: expected samples, summary or measurements, got {kind!r}")
    text_cells = [c for c in df.columns if df[c].dtype == object or pd.api.types.is_string_dtype(df[c])]
    hashed = any(df[c].astype(str).str.contains("#", regex=False).any() for c in text_cells)
    attrs = dict(attrs or {})
    if kind == "samples":
        # columns of text read back as text: an empty cell stays "" (tc's dev), not NaN
        text = [str(c) for c in text_cells if all(v is None or isinstance(v, str) for v in df[c].tolist())]
        if text:
            attrs["text_columns"] = text
    fh, close = _open_out(out)
    try:
        fh.write(f"# labcalc {kind} v{VERSION}\n{_attrs_line(attrs)}\n")
        df.to_csv(fh, index=index, lineterminator="\n",
                  quoting=csv.QUOTE_NONNUMERIC if hashed else csv.QUOTE_MINIMAL)
    finally:
        if close:
            fh.close()


def write_trace(out, columns, attrs: dict | None = None) -> None:
    """Write an ns-3 trace-sink file (``<t> <value>`` or ``<t> <old> <new>`` per line) with labcalc's header.

    Parameters
    ----------
    out : str, path-like or text stream
        Where to write.
    columns : sequence of array-like
        The columns, time [s] first; integers are written as integers, other numbers in
        their shortest exact form.
    attrs : dict, optional
        What the trace holds: ``quantity`` (``cwnd``, ``ssthresh``, ``rtt``...), ``unit``
        (``bytes``, ``s``...), ``flow``, ``mss_bytes``...

    Returns
    -------
    None

    Examples
    --------
    >>> buf = io.StringIO()
    >>> write_trace(buf, [[0.0, 1.5], [0, 14480], [14480, 28960]], {"quantity": "cwnd", "unit": "bytes"})
    >>> print(buf.getvalue().strip())
    # labcalc trace v1
    # attrs: {"quantity": "cwnd", "unit": "bytes"}
    0 0 14480
    1.5 14480 28960
    """
    fh, close = _open_out(out)
    try:
        fh.write(f"# labcalc trace v{VERSION}\n{_attrs_line(attrs)}\n")
        for row in zip(*columns):
            fh.write(" ".join(_number(x) for x in row) + "\n")
    finally:
        if close:
            fh.close()


def kind_of(df: pd.DataFrame) -> str:
    """The kind a table read from *df*'s source is written back as (``labcalc convert``).

    A tool's output is a per-sample table; one of labcalc's own tables keeps its kind
    (a simulation's ``summary.csv`` stays a summary, a built table a measurement table).

    Parameters
    ----------
    df : pandas.DataFrame
        What a reader returned.

    Returns
    -------
    str
        ``"samples"``, ``"summary"`` or ``"measurements"``.

    Examples
    --------
    >>> kind_of(read_tidy("# labcalc summary v1\\n# attrs: {}\\nflow,loss\\na,0.1\\n")), kind_of(pd.DataFrame())
    ('summary', 'samples')
    """
    kind = (df.attrs.get("labcalc") or {}).get("kind")
    return kind if kind in ("summary", "measurements") else "samples"


def _number(x) -> str:
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return str(int(x))
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def read_tidy(path) -> pd.DataFrame:
    """Read one of labcalc's own files (see the module docstring for the kinds).

    Parameters
    ----------
    path : str, path-like, file object or text
        The file (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        The table as written: for ``samples`` and ``measurements`` the columns of the
        file (``measurements``: text columns as text, ``value`` and ``n_samples`` as
        numbers); for ``summary`` one row per flow with a ``flow`` column; for ``trace``
        what :func:`labcalc.measure.read_ns3` gives for the quantity the header names
        (``time_s`` and e.g. ``cwnd_bytes`` or ``rtt_s``); for ``simulation`` one row of
        the run's settings (nested keys joined with ``.``). ``attrs`` holds the second
        line's attrs (``format`` the original reader's name, or ``"labcalc"``), plus
        ``labcalc`` (``{"kind", "version"}``), ``source`` and ``malformed``.

    Raises
    ------
    MeasurementFormatError
        No labcalc header, an unknown kind, a version newer than this labcalc, an attrs
        line that is not JSON, or a table that does not read as CSV (the message names
        the line).

    Examples
    --------
    >>> df = read_tidy("# labcalc samples v1\\n# attrs: {\\"format\\": \\"ping\\"}\\ntime_s,rtt_s\\n0.5,0.04\\n")
    >>> df.attrs["format"], df.attrs["labcalc"]["kind"], float(df.rtt_s.iloc[0])
    ('ping', 'samples', 0.04)
    """
    name, text = open_text(path)
    if _JSON_HEAD.match(text[:200]):
        return _read_simulation(name, text)
    lines = text.split("\n", 2)
    m = _HEADER.match(lines[0].rstrip())
    if not m:
        shown = lines[0].strip()[:70]
        raise MeasurementFormatError(name, 1, EXPECTED, f"no labcalc header: this line reads {shown!r}")
    kind, version = m["kind"], int(m["version"])
    if kind not in KINDS:
        raise MeasurementFormatError(name, 1, EXPECTED, f"unknown kind {kind!r}")
    if version > VERSION:
        raise MeasurementFormatError(name, 1, EXPECTED, f"written by a newer labcalc (layout v{version}; this one "
                                                        f"reads up to v{VERSION}): update labcalc to read it")
    attrs, skip = {}, 1
    if len(lines) > 1 and lines[1].startswith(_ATTRS.rstrip()):
        skip = 2
        check_json_depth(lines[1], name, expected=EXPECTED)  # json recurses once per level
        try:
            attrs = json.loads(lines[1][len(_ATTRS.rstrip()):].strip() or "{}")
        except ValueError as exc:
            raise MeasurementFormatError(name, 2, EXPECTED, f"the attrs line is not JSON ({exc})") from None
        if not isinstance(attrs, dict):
            raise MeasurementFormatError(name, 2, EXPECTED, "the attrs line is not a JSON object")
        _check_attrs(name, attrs)
    body = text.split("\n", skip)[skip] if text.count("\n") >= skip else ""
    if kind == "trace":
        df = _read_trace(name, text, attrs)
    else:
        df = _read_table(name, body, kind, skip, attrs.pop("text_columns", None))
    df.attrs.update(attrs)
    df.attrs.update(format=attrs.get("format") or FORMAT, source=name, labcalc={"kind": kind, "version": version},
                    malformed=df.attrs.get("malformed") or {"count": 0, "lines": []})
    return df


#: attrs a reader or a manifest acts on -> the JSON types each may have
_ATTR_TYPES = {"format": (str,), "from": (str,), "side": (str,), "flow": (str,), "link": (str,), "text_columns": (list,),
               "quantity": (str,), "unit": (str,), "mss_bytes": (int, float), "reverse": (bool,),
               "tests": (int,), "summary": (list, dict)}


def _check_attrs(name: str, attrs: dict) -> None:
    """Refuse attrs of the wrong JSON type (a hand-edited or damaged attrs line), naming the key."""
    for key, types in _ATTR_TYPES.items():
        value = attrs.get(key)
        if value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise MeasurementFormatError(name, 2, EXPECTED, f"attrs {key!r} = {value!r:.60} is not "
                                                            f"{' or '.join(t.__name__ for t in types)}")
    summary = attrs.get("summary")
    lines = summary if isinstance(summary, list) else [summary] if isinstance(summary, dict) else []
    if not all(isinstance(x, dict) for x in lines):
        raise MeasurementFormatError(name, 2, EXPECTED, "attrs 'summary' holds something else than end-of-test lines")
    for line in lines:
        for key, value in line.items():
            numeric = key in ("rate_bps", "packets", "lost_packets", "bytes", "start_s", "end_s", "loss") or \
                key.endswith(("_s", "_bps"))
            if numeric and value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise MeasurementFormatError(name, 2, EXPECTED, f"attrs 'summary': {key} = {value!r:.60} is not a number")


def _read_table(name: str, body: str, kind: str, skip: int, text_columns=None) -> pd.DataFrame:
    if not body.strip():
        raise MeasurementFormatError(name, skip + 1, EXPECTED, "the table is missing (no header row after the labcalc lines)")
    # only an empty cell is missing: a flow named "NA" or a note "None" stays text; in a column the
    # writer named as text, an empty cell stays ""
    options = {"dtype": str, "keep_default_na": False} if kind == "measurements" else {
        "keep_default_na": False, "na_values": [""]}
    if kind != "measurements" and isinstance(text_columns, list) and text_columns:
        header = next(csv.reader(io.StringIO(body.split("\n", 1)[0])), [])
        text = [c for c in header if c in set(map(str, text_columns))]
        options = {"keep_default_na": False, "na_values": {c: [""] for c in header if c not in text},
                   "dtype": {c: str for c in text}}
    try:
        df = pd.read_csv(io.StringIO(body), **options)
    except (pd.errors.ParserError, ValueError) as exc:
        line = re.search(r"line (\d+)", str(exc))
        at = int(line.group(1)) + skip if line else None
        raise MeasurementFormatError(name, at, EXPECTED, f"not a readable CSV table ({str(exc).strip()})") from None
    if kind == "measurements":
        for column in ("value", "n_samples"):
            if column not in df.columns:
                continue
            cells = df[column].str.strip()
            numbers = pd.to_numeric(cells.where(cells != ""), errors="coerce")
            bad = numbers.isna() & (cells != "")
            if bad.any():
                k = int(np.flatnonzero(bad.to_numpy())[0])
                raise MeasurementFormatError(name, skip + 2 + k, EXPECTED, f"{column} {cells.iloc[k]!r} is not a number")
            df[column] = numbers
    return df


def _read_trace(name: str, text: str, attrs: dict) -> pd.DataFrame:
    from .ns3 import read_ns3

    quantity, unit = attrs.get("quantity"), attrs.get("unit")
    try:
        df = read_ns3(text if "\n" in text else text + "\n", quantity=quantity, unit=unit)
    except MeasurementFormatError as exc:
        raise MeasurementFormatError(name, exc.line, exc.expected, exc.detail) from None
    except ValueError as exc:  # a quantity or unit read_ns3 does not know
        raise MeasurementFormatError(name, 2, EXPECTED, f"the attrs line names {exc}") from None
    return df


def _flatten(prefix: str, value, out: dict) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list):
        out[prefix] = json.dumps(value)
    else:
        out[prefix] = value


def _read_simulation(name: str, text: str) -> pd.DataFrame:
    check_json_depth(text, name, expected=EXPECTED)
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise MeasurementFormatError(name, None, EXPECTED, f"not readable JSON ({exc})") from None
    head = doc.pop("labcalc", None) if isinstance(doc, dict) else None
    if not isinstance(head, dict) or head.get("kind") != "simulation":
        raise MeasurementFormatError(name, 1, EXPECTED, "the \"labcalc\" key does not say {\"kind\": \"simulation\"}")
    version = head.get("version", 1)
    if not isinstance(version, int) or version > VERSION:
        raise MeasurementFormatError(name, 1, EXPECTED, f"written by a newer labcalc (layout v{version}): update labcalc")
    row: dict = {}
    _flatten("", doc, row)
    df = pd.DataFrame([row])
    df.attrs.update(doc)
    df.attrs.update(format=FORMAT, source=name, labcalc={"kind": "simulation", "version": version},
                    malformed={"count": 0, "lines": []})
    return df


def manifest_view(df: pd.DataFrame, flow: str):
    """The part of one of labcalc's own files that a manifest entry of *flow* reads.

    Parameters
    ----------
    df : pandas.DataFrame
        What :func:`read_tidy` returned.
    flow : str
        The entry's ``flow``: the simulated flow (or link) whose rows a file holding several
        is read for.

    Returns
    -------
    (pandas.DataFrame, str or None)
        The rows (and end-of-test summary) of that flow, with the file's ``attrs``; and the
        stat the file gives by default (``"summary"`` for ``summary.csv``, which holds one
        value per flow, else None).

    Raises
    ------
    ValueError
        A file that holds no measured values (``simulation.json``), a tidy measurement table
        (it belongs in a ``[[table]]``), or a file of several flows none of which is *flow*
        (the message lists them).

    Examples
    --------
    >>> df = read_tidy("# labcalc summary v1\\n# attrs: {}\\nflow,loss\\na,0.1\\nb,0.2\\n")
    >>> view, stat = manifest_view(df, "b")
    >>> float(view.loss.iloc[0]), stat
    (0.2, 'summary')
    """
    kind = (df.attrs.get("labcalc") or {}).get("kind")
    source = os.path.basename(str(df.attrs.get("source", "")))
    if kind == "simulation":
        raise ValueError("this file holds the settings of an ns-3 run (seed, duration, links), no measured values; "
                         "name summary.csv (goodput, loss of every flow) or <flow>-goodput.csv, <flow>-rtt.data, "
                         "<flow>-cwnd.data of the same folder")
    if kind == "measurements":
        raise ValueError(f"this is a tidy measurement table built by labcalc; list it as [[table]] "
                         f"file = \"{source}\" to keep its rows")
    column = "flow" if "flow" in df.columns else "link" if "link" in df.columns else None
    out = df
    if column is not None:
        names = list(dict.fromkeys(df[column].astype(str)))
        if flow in names:
            out = df[df[column].astype(str) == flow]
        elif len(names) > 1:
            listed = ", ".join(f'"{n}"' for n in names[:12]) + (", ..." if len(names) > 12 else "")
            raise ValueError(f"this file holds the {column}s {listed} and none is named {flow!r}: give the entry "
                             f"the {column}'s name (flow = \"{names[0]}\"), or name that {column}'s own file")
        else:
            flow = names[0] if names else flow
        out = out.copy()
        out.attrs.update(df.attrs)
    summary = df.attrs.get("summary")
    if isinstance(summary, list) and any(isinstance(s, dict) and "flow" in s for s in summary):
        out.attrs["summary"] = [s for s in summary if isinstance(s, dict) and s.get("flow") == flow]
    return out, ("summary" if kind == "summary" else None)


def finite_or_none(x):
    """*x* as a float, or None when it is missing or not finite (for attrs written as JSON).

    Parameters
    ----------
    x : float or None
        A number.

    Returns
    -------
    float or None

    Examples
    --------
    >>> finite_or_none(2), finite_or_none(float("nan"))
    (2.0, None)
    """
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def source_stem(path) -> str:
    """The file name of a reader input, without folders (for the ``from`` attr of a converted file).

    Parameters
    ----------
    path : str, path-like, file object or text
        A reader input.

    Returns
    -------
    str
        The file's name, or ``"<text>"`` / ``"<stream>"``.

    Examples
    --------
    >>> source_stem("data/q7_h3_server.txt")
    'q7_h3_server.txt'
    """
    name = source_name(path) if not is_path(path) else os.fspath(path)
    return os.path.basename(name)
