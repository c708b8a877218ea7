"""Reader of Wireshark's own CSV export (*File > Export Packet Dissections > As CSV*)."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from ._columns import as_int, categorical, endpoints, join, merge_blocks, typed
from ._common import Report, first_line, last_line, open_bytes

__all__ = ["read_wireshark_csv", "is_wireshark_header"]

FORMAT = "wireshark_csv"
EXPECTED = (
    "Wireshark's CSV export (File > Export Packet Dissections > As CSV): a header of the packet list's "
    'column titles ("No.","Time","Source","Destination","Protocol","Length","Info", and any column a user '
    "added) then one line per packet"
)

# column title (lower case) -> (frame column, kind). The default columns, then the titles
# Wireshark gives a field added with "Apply as Column" (the field's name) or a preset column.
_TITLES = {
    "no.": ("frame", "int"),
    "time": ("time_s", "time"),
    "source": ("src", "addr"),
    "destination": ("dst", "addr"),
    "protocol": ("protocol", "text"),
    "length": ("frame_bytes", "int"),
    "info": ("info", "info"),
    "source port": ("src", "port"), "src port": ("src", "port"), "src port (unresolved)": ("src", "port"),
    "source port (unresolved)": ("src", "port"),
    "destination port": ("dst", "port"), "dst port": ("dst", "port"), "dest port": ("dst", "port"),
    "dst port (unresolved)": ("dst", "port"), "destination port (unresolved)": ("dst", "port"),
    "sequence number": ("seq", "int"), "next sequence number": ("next_seq", "int"),
    "acknowledgment number": ("ack", "int"), "acknowledgement number": ("ack", "int"),
    "tcp segment len": ("bytes", "int"), "bytes in flight": ("bytes_in_flight", "int"),
    "the rtt to ack the segment was": ("rtt_s", "float"), "irtt": ("initial_rtt_s", "float"),
    "calculated window size": ("rwnd_bytes", "int"), "window": ("window_value", "int"),
    "window size value": ("window_value", "int"), "stream index": ("stream", "int"),
    "time to live": ("ttl", "int"), "epoch time": ("epoch_s", "float"),
    "delta time": ("delta_s", "float"), "time delta from previous captured frame": ("delta_s", "float"),
    "time since first frame in this tcp stream": ("stream_time_s", "float"),
    "explicit congestion notification": ("ecn", "int"),
}
_DEFAULT = ("no.", "time", "source", "destination", "protocol", "length", "info")

# The Info column of a TCP or UDP packet: "[TCP Retransmission] 443  >  63304 [PSH, ACK] Seq=1
# Ack=1 Win=525568 Len=1460 ..." (Wireshark 1-2 and the CSV export print ' > ', the packet
# list '→'; ports may be service names). Hand-written: no library parses Wireshark's Info text.
_INFO = re.compile(
    r"^(?P<tags>(?:\[[^\]]{0,80}\]\s*){0,6})(?P<sport>\d{1,5}|[A-Za-z][\w.-]{0,30})\s+(?:>|→|->|â†’)\s+"
    r"(?P<dport>\d{1,5}|[A-Za-z][\w.-]{0,30})(?:\s+\[(?P<flags>[A-Z]{2,4}(?:, [A-Z]{2,4}){0,7})\])?(?P<rest>.*)$"
)
_FIELD = re.compile(r"\b(Seq|Ack|Win|Len)=(\d{1,20})\b")
_TAGS = {
    "retransmission": "TCP Retransmission", "fast_retransmission": "TCP Fast Retransmission",
    "spurious_retransmission": "TCP Spurious Retransmission", "duplicate_ack": "TCP Dup ACK",
    "lost_segment": "TCP Previous segment not captured", "out_of_order": "TCP Out-Of-Order",
    "zero_window": "TCP ZeroWindow",
}
_FLAGS = {"syn": "SYN", "fin": "FIN", "rst": "RST", "ack_flag": "ACK"}
_TCP_COLUMNS = ("seq", "ack", "rwnd_bytes") + tuple(_FLAGS) + tuple(_TAGS)
_TIME_OF_DAY = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2}(?:\.\d{1,9})?)$")
_ADDRESS = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*)$")
_ROWS_PER_BLOCK = 1 << 16


def _cells(line: str, sep: str) -> list[str]:
    try:
        cells = next(csv.reader([line], delimiter=sep, quotechar='"'), [])
    except csv.Error:
        return []
    cells = [c.strip().lstrip("\ufeff").strip('"').strip() for c in cells]
    if cells and cells[0].startswith("#"):  # a header commented out by hand
        cells[0] = cells[0].lstrip("#").strip().strip('"')
    return cells


def is_wireshark_header(line: str) -> bool:
    """True when *line* is the header of Wireshark's CSV export (any separator of a spreadsheet).

    Parameters
    ----------
    line : str
        The first line of a file.

    Returns
    -------
    bool
        The titles hold ``No.`` and ``Time`` and at least two more of the default columns.

    Examples
    --------
    >>> is_wireshark_header('"No.","Time","Source","Destination","Protocol","Length","Info"')
    True
    >>> is_wireshark_header("frame.number,frame.time_relative")
    False
    """
    return _separator(line) is not None


def _separator(line: str) -> str | None:
    best, score = None, 0
    for sep in (",", ";", "\t"):
        titles = [c.lower() for c in _cells(line, sep)]
        n = sum(t in titles for t in _DEFAULT)
        if "no." in titles and "time" in titles and n >= 4 and n > score:
            best, score = sep, n
    return best


def read_wireshark_csv(path) -> pd.DataFrame:
    """Read Wireshark's CSV export of the packet list, into the columns of :func:`read_tshark`.

    Made in Wireshark with *File > Export Packet Dissections > As CSV...* (all packets or the
    displayed ones)::

        "No.","Time","Source","Destination","Protocol","Length","Info"
        "1","0.000000","10.0.0.1","10.0.0.2","TCP","74","45000 > 5201 [SYN] Seq=0 Win=64240 Len=0 MSS=1460"
        "2","0.000120","10.0.0.2","10.0.0.1","TCP","74","5201 > 45000 [SYN, ACK] Seq=0 Ack=1 Win=65160 Len=0"

    Columns a user added (*Apply as Column*: ``Sequence Number``, ``Bytes in flight``, ``The
    RTT to ACK the segment was``, ``Source Port``...) are read as the tshark field they show;
    any other column keeps its title (lower case, ``_`` for spaces) and is typed by its
    values. A file saved again by a spreadsheet (``;`` or tab separators, values without
    quotes, empty columns) reads the same.

    Parameters
    ----------
    path : str, path-like, file object or text
        The export (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        One row per packet: ``time_s`` [s] (the Time column as displayed: seconds since the
        first packet by default; a date/time of day becomes seconds since the first
        packet, named in ``attrs["time_origin"]``), ``src`` / ``dst`` (``ip:port`` where
        the ports are known), ``frame``, ``frame_bytes`` [bytes] (Length), ``protocol``,
        ``info`` (text, Categorical); read from the Info column of TCP and UDP packets:
        ``bytes`` [bytes] (the payload, ``Len=``; NaN where the Info column shows none, as
        for the packets of protocols over TCP such as TLS), and for TCP ``seq``, ``ack``,
        ``rwnd_bytes`` (``Win=``), ``syn``, ``fin``, ``rst``, ``ack_flag`` and the analysis
        flags ``retransmission``, ``fast_retransmission``, ``spurious_retransmission``,
        ``duplicate_ack``, ``lost_segment``, ``out_of_order``, ``zero_window`` (bool).
        ``attrs["columns"]`` lists the titles of the file; ``attrs["not_numeric"]`` the
        numeric columns that hold something else (kept as text).

    Raises
    ------
    MeasurementFormatError
        When the first line is not the header of a Wireshark CSV export.

    Warns
    -----
    MalformedLinesWarning
        When rows with a wrong number of fields were skipped.

    Notes
    -----
    The Info column is Wireshark's one-line summary of the top protocol of each packet;
    it shows TCP's numbers only when TCP is that protocol. Rows of a protocol above TCP
    (TLS, HTTP) therefore have no ``bytes``: :func:`receive_rate` refuses them rather than
    counting them as 0 (count the frames instead, ``df["bytes"] = df["frame_bytes"]``, or
    add Wireshark's ``TCP Segment Len`` column before exporting).

    References
    ----------
    .. [1] Wireshark User's Guide, 5.7.2 "Export Packet Dissections" (CSV), and 3.18 "The
       Packet List" column preferences, https://www.wireshark.org/docs/wsug_html_chunked/

    Examples
    --------
    >>> text = '''"No.","Time","Source","Destination","Protocol","Length","Info"
    ... "1","0.000000","10.0.0.1","10.0.0.2","TCP","1514","45000  >  5201 [ACK] Seq=1 Ack=1 Win=502 Len=1448"
    ... "2","0.000100","10.0.0.2","10.0.0.1","TCP","66","5201  >  45000 [ACK] Seq=1 Ack=1449 Win=501 Len=0"
    ... "3","0.000200","10.0.0.1","10.0.0.2","TCP","1514","[TCP Retransmission] 45000  >  5201 [ACK] Seq=1 Ack=1 Win=502 Len=1448"
    ... '''
    >>> df = read_wireshark_csv(text)
    >>> df[["time_s", "src", "bytes", "seq", "retransmission"]]
       time_s             src  bytes  seq  retransmission
    0  0.0000  10.0.0.1:45000   1448    1           False
    1  0.0001   10.0.0.2:5201      0    1           False
    2  0.0002  10.0.0.1:45000   1448    1            True
    """
    name, body, start = open_bytes(path)
    fail = Report(name, FORMAT, EXPECTED).fail
    hi = 0
    while True:  # the header: the first line that is not blank
        end = body.find(b"\n", start)
        line = body[start:] if end < 0 else body[start:end]
        if line.strip():
            break
        if end < 0:
            raise fail(1, "the source is empty (no line to read)")
        start, hi = end + 1, hi + 1
    header_line = line.decode("utf-8", "surrogatepass").strip()
    sep = _separator(header_line)
    if sep is None:
        raise fail(hi + 1, f"not {FORMAT} output: this line is not the header of Wireshark's CSV export "
                           f"(titles No., Time, Source, Destination, Protocol, Length, Info): {header_line[:70]!r}")
    titles = _cells(header_line, sep)
    start = len(body) if end < 0 else end + 1
    rep = Report(name, FORMAT, EXPECTED)
    rep.content(hi + 1, header_line)
    commented: list[int] = []
    try:
        if body.find(b"\n#", start - 1) >= 0:  # rows commented out by hand: the line-by-line path
            raise ValueError("a row commented out with '#'")
        blocks, n = _fast(body, start, titles, sep)
        rep.ok(n)
    except (ValueError, pd.errors.ParserError, csv.Error):
        blocks, n = _slow(body, start, titles, sep, rep, hi, commented)
    out, extra = _finish(titles, blocks, n)
    if commented:
        extra["notes"] = [f"{len(commented)} row(s) commented out with '#' left out (line "
                          + ", ".join(map(str, commented[:5])) + (", ..." if len(commented) > 5 else "") + ")"]
    order = [c for c in ("time_s", "src", "dst") if c in out] + [c for c in out if c not in ("time_s", "src", "dst")]
    df = pd.DataFrame({c: out.pop(c) for c in order}, index=pd.RangeIndex(n), copy=False)
    # rows without a packet number and a time are no packets: a spreadsheet's totals under the
    # export ("total delay", ...), or a line of separators only; skipped and reported
    junk = np.ones(n, dtype=bool)
    for col in ("frame", "time_s"):
        if col in df:
            junk &= df[col].isna().to_numpy()
    if ("frame" in df or "time_s" in df) and junk.any():
        rows = np.flatnonzero(junk)
        lines = _line_numbers(body, start, hi + 2, rows)
        rep.bad_many(lines, [",".join(map(str, df.iloc[r, :4].tolist())) for r in rows[:1]])
        rep.recognised -= len(rows)
        df = df[~junk].reset_index(drop=True)
        for col in df.columns:  # whole numbers that were float only because of those rows
            if df[col].dtype == float and len(df) and not df[col].isna().any():
                v = as_int(df[col].to_numpy())
                if v.dtype != float:
                    df[col] = v
    del body
    # columns without a title and without a value: the empty columns a spreadsheet keeps
    for k, title in enumerate(titles):
        col = _kinds(titles)[k][0]
        if not title and col in df and df[col].isna().all():
            del df[col]
    rep.require_something()
    extra["columns"] = titles
    return rep.finish(df, extra)


def _line_numbers(body: bytes, start: int, first_line: int, rows: np.ndarray) -> list:
    """File line numbers of data rows *rows* (0-based, blank lines skipped as pandas does)."""
    numbers = [i for i, ln in enumerate(body[start:].split(b"\n"), start=first_line) if ln.strip()]
    return [numbers[r] if r < len(numbers) else first_line + int(r) for r in rows]


def _kinds(titles: list) -> list:
    """(column, kind) per title; untitled and unknown columns keep a name of their own."""
    out, seen = [], set()
    for k, title in enumerate(titles):
        col, kind = _TITLES.get(title.lower(), (None, "auto"))
        if col is None:
            col = re.sub(r"\W+", "_", title.strip().lower()).strip("_") or f"column_{k + 1}"
        if (col, kind) in seen and kind not in ("addr", "port"):
            col = f"{col}_{k + 1}"  # the same title twice: both kept
        seen.add((col, kind))
        out.append((col, kind))
    return out


def _fast(body: bytes, start: int, titles: list, sep: str):
    """Blocks read by pandas' C parser (numbers converted there); raises ValueError or
    ParserError for a file that needs the line-by-line path."""
    kinds = _kinds(titles)
    ncol = len(titles)
    # rows pandas would take silently: a first row wider than the header (pandas makes index
    # levels of the extra fields), a last line cut short (its missing fields read as empty)
    for line in (first_line(body, start), last_line(body, start)):
        if line and _count_fields(line, sep) != ncol:
            raise ValueError("a row with another number of fields than the header")
    dtype = {k: "float64" if kind in ("int", "float") else "category" if kind in ("addr", "port", "text")
             else object for k, (_, kind) in enumerate(kinds)}
    numeric = [k for k, (_, kind) in enumerate(kinds) if kind in ("int", "float")]
    buffer = io.BytesIO(body)
    buffer.seek(start)
    reader = pd.read_csv(buffer, sep=sep, header=None, names=list(range(ncol)), dtype=dtype, keep_default_na=False,
                         na_values={k: [""] for k in numeric}, quotechar='"', engine="c", skip_blank_lines=True,
                         chunksize=_ROWS_PER_BLOCK)
    blocks, n = [], 0
    with reader:
        for table in reader:
            block = {}
            for k in range(ncol):
                col = table[k]
                if k in numeric:
                    v = col.to_numpy(dtype=float)
                    if np.isinf(v).any():
                        raise ValueError("a value that is no finite number")
                    block[k] = v
                elif dtype[k] == "category":
                    block[k] = (col.array.codes, list(map(str, col.array.categories)))
                else:
                    block[k] = pd.factorize(col.to_numpy(dtype=object))
            blocks.append(block)
            n += len(table)
    return blocks, n


def _count_fields(line: bytes, sep: str) -> int:
    try:
        return len(next(csv.reader([line.decode("utf-8", "replace")], delimiter=sep, quotechar='"'), []))
    except csv.Error:
        return -1


def _slow(body: bytes, start: int, titles: list, sep: str, rep: Report, hi: int, commented: list):
    """One block read line by line (the csv module on each line: Wireshark writes no line
    break inside a field, so a quote left open or a field over the csv module's size limit
    spoils its own line only): a line with another number of fields than the header is
    malformed; numeric columns stay text here and are typed in _finish. A line that starts
    with '#' is a row the student commented out (as the header may be): its line number goes
    to *commented*, the row is left out."""
    ncol = len(titles)
    rows = []
    text = body[start:].decode("utf-8", "surrogatepass")
    for i, line in enumerate(text.split("\n"), start=hi + 2):
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            commented.append(i)
            continue
        try:
            fields = next(csv.reader([line], delimiter=sep, quotechar='"'))
        except csv.Error:
            fields = None
        if fields is None or len(fields) != ncol:
            rep.bad(i, line[:200])
            continue
        rows.append(fields)
        rep.ok()
    del text
    block = {k: pd.factorize(np.array([r[k] for r in rows], dtype=object)) for k in range(ncol)}
    return [block], len(rows)


def _finish(titles: list, blocks: list, n: int):
    """The frame's columns from the blocks, and the attrs (time origin, text columns)."""
    kinds = _kinds(titles)
    out: dict[str, object] = {}
    extra: dict = {}
    ends = {"src": {"addr": [], "port": []}, "dst": {"addr": [], "port": []}}
    derived = None
    for k, (col, kind) in enumerate(kinds):
        parts = [b.pop(k) for b in blocks]
        if kind in ("addr", "port"):
            ends[col][kind].append(merge_blocks(parts))
        elif kind == "time":
            out[col], origin = _times(parts)
            if origin:
                extra["time_origin"] = origin
        elif kind == "info":
            derived = _info_columns(parts, n)
            out[col] = categorical(*merge_blocks(parts))
        elif kind in ("int", "float") and parts and not isinstance(parts[0], tuple):
            v = join(parts, float)
            out[col] = as_int(v) if kind == "int" else v
        else:
            codes, labels = merge_blocks(parts)
            v = typed(codes, labels)
            if kind in ("int", "float") and not (isinstance(v, np.ndarray) and v.dtype.kind in "if"):
                bad = _first_not_number(codes, labels)
                if bad is None:  # no value at all
                    v = np.full(n, np.nan)
                else:
                    v = categorical(codes, [x.strip() for x in labels])
                    extra.setdefault("not_numeric", {})[col] = {"column": col, "field": titles[k],
                                                                "value": labels[codes[bad]].strip()[:40], "row": bad + 1}
            out[col] = v
    if derived is not None:
        for side in ("src", "dst"):
            if ends[side]["addr"] and not ends[side]["port"]:
                codes, labels = derived.pop(side + "_port")
                # a port joins the address only where the address is an IP address (not a MAC
                # or a resolved name of a non-IP packet)
                addr_codes, addr_labels = ends[side]["addr"][0]
                ip = np.array([bool(_ADDRESS.match(x)) for x in addr_labels] + [False])
                ends[side]["port"].append((np.where(ip[addr_codes], codes, -1), labels))
        for col, v in derived.items():
            if not col.endswith("_port") and col not in out:
                out[col] = v
        if "bytes" in derived and np.isnan(np.asarray(out["bytes"], dtype=float)).any():
            extra["bytes_partial"] = True  # receive_rate refuses the rows whose payload is unknown
    for side, parts in ends.items():
        if parts["addr"] or parts["port"]:
            out[side] = endpoints(parts["addr"], parts["port"], n)
    return out, extra


def _first_not_number(codes: np.ndarray, labels: list) -> int | None:
    """The first row whose value is given and is no finite number (None when there is none)."""
    text = pd.Series([x.strip() for x in labels], dtype=object)
    num = pd.to_numeric(text.where(text != "", None), errors="coerce").to_numpy(dtype=float)
    bad = np.append((text != "").to_numpy() & ~np.isfinite(num), False)
    rows = np.flatnonzero(bad[codes])
    return int(rows[0]) if len(rows) else None


def _info_columns(parts: list, n: int) -> dict:
    """The TCP/UDP numbers and flags of the Info column, parsed once per distinct text."""
    cols: dict[str, list] = {c: [] for c in ("bytes",) + _TCP_COLUMNS}
    ports = {"src_port": [], "dst_port": []}
    any_tcp = any_len = False
    for codes, labels in parts:
        parsed = [_parse_info(x) for x in labels]
        for side, key in (("src_port", "sport"), ("dst_port", "dport")):
            ports[side].append((codes, [p[key] for p in parsed]))
        for c in cols:
            values = np.array([p.get(c, np.nan if c in ("bytes", "seq", "ack", "rwnd_bytes") else False)
                               for p in parsed] + [np.nan if c in ("bytes", "seq", "ack", "rwnd_bytes") else False])
            cols[c].append(values[codes])
        any_tcp |= any(p["tcp"] for p in parsed)
        any_len |= any("bytes" in p for p in parsed)
    out: dict[str, object] = {side: merge_blocks(v) for side, v in ports.items()}
    if any_len:
        out["bytes"] = as_int(join(cols["bytes"], float))
    if any_tcp:
        for c in _TCP_COLUMNS:
            v = join(cols[c], float if c in ("seq", "ack", "rwnd_bytes") else bool)
            out[c] = as_int(v) if v.dtype == float else v
    return out


def _parse_info(text: str) -> dict:
    m = _INFO.match(text.strip()) if len(text) < 2000 else None
    if m is None:
        return {"sport": "", "dport": "", "tcp": False}
    tags, flags, rest = m["tags"], m["flags"], m["rest"]
    fields = dict(_FIELD.findall(rest))
    tcp = bool(flags) or "Seq" in fields
    out = {"sport": m["sport"], "dport": m["dport"], "tcp": tcp}
    if "Len" in fields:
        out["bytes"] = float(fields["Len"])
    if tcp:
        for key, col in (("Seq", "seq"), ("Ack", "ack"), ("Win", "rwnd_bytes")):
            if key in fields:
                out[col] = float(fields[key])
        named = set((flags or "").split(", "))
        for col, flag in _FLAGS.items():
            out[col] = flag in named
        for col, tag in _TAGS.items():
            out[col] = tag in tags
    return out


def _times(parts: list):
    """Seconds of the Time column as displayed, and the time of the first packet when the
    column is a date or a time of day (then the seconds count from it)."""
    codes, labels = merge_blocks(parts)
    text = [x.strip() for x in labels]
    num = pd.to_numeric(pd.Series(text, dtype=object).replace("", None), errors="coerce").to_numpy(dtype=float)
    empty = np.array([x == "" for x in text], dtype=bool)
    if np.all(np.isfinite(num) | empty):
        return np.append(num, np.nan)[codes], None
    given = [x for x in text if x]
    if given and all(_TIME_OF_DAY.match(x) for x in given):
        sec = np.array([(int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])) if (m := _TIME_OF_DAY.match(x)) else np.nan
                        for x in text] + [np.nan])[codes]
        ok = np.flatnonzero(np.isfinite(sec))
        if len(ok):
            rel = sec - sec[ok[0]]
            rel[rel < -43200] += 86400  # the capture went past midnight
            return rel, f"time of day {text[codes[ok[0]]]}"
    stamps = pd.to_datetime(pd.Series(text, dtype=object).replace("", None), format="ISO8601", errors="coerce")
    if not (stamps.isna().to_numpy() & ~empty).any():
        ns = stamps.to_numpy(dtype="datetime64[ns]").astype(np.int64)
        ns = np.append(ns, np.iinfo(np.int64).min)[codes]
        valid = ns != np.iinfo(np.int64).min
        if valid.any():
            t0 = ns[valid][0]
            rel = np.where(valid, (ns - t0) / 1e9, np.nan)
            return rel, f"date and time {text[codes[np.flatnonzero(valid)[0]]]}"
    return typed(codes, labels), None
