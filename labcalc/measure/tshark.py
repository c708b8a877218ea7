"""Reader of ``tshark -T fields`` exports with TCP analysis fields."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from ._columns import HEXNUM, as_int, categorical, endpoints, first_value, join, merge_blocks, typed
from ._common import Report, first_line, last_line, open_bytes

__all__ = ["read_tshark"]

FORMAT = "tshark"
EXPECTED = (
    "a 'tshark -T fields -E header=y -E separator=,' export: a header line of field names "
    "(frame.time_relative, ip.src, tcp.seq, tcp.analysis.ack_rtt, ...) then one line per packet"
)

# tshark field -> (column, kind); kinds: float, int, str, flag (present/absent or 0/1), scale factor
_FIELDS = {
    "frame.time_relative": ("time_s", "float"),
    "frame.time_epoch": ("epoch_s", "float"),
    "frame.time_delta": ("delta_s", "float"),
    "frame.number": ("frame", "int"),
    "frame.len": ("frame_bytes", "int"),
    "ip.len": ("ip_bytes", "int"),
    "tcp.stream": ("stream", "int"),
    "tcp.seq": ("seq", "int"),
    "tcp.seq_raw": ("seq_raw", "int"),
    "tcp.nxtseq": ("next_seq", "int"),
    "tcp.ack": ("ack", "int"),
    "tcp.ack_raw": ("ack_raw", "int"),
    "tcp.len": ("bytes", "int"),
    "udp.length": ("udp_bytes", "int"),
    "tcp.window_size": ("rwnd_bytes", "int"),
    "tcp.window_size_value": ("window_value", "int"),
    "tcp.analysis.bytes_in_flight": ("bytes_in_flight", "int"),
    "tcp.analysis.ack_rtt": ("rtt_s", "float"),
    "tcp.analysis.initial_rtt": ("initial_rtt_s", "float"),
    "tcp.time_relative": ("stream_time_s", "float"),
    "tcp.analysis.retransmission": ("retransmission", "flag"),
    "tcp.analysis.fast_retransmission": ("fast_retransmission", "flag"),
    "tcp.analysis.spurious_retransmission": ("spurious_retransmission", "flag"),
    "tcp.analysis.duplicate_ack": ("duplicate_ack", "flag"),
    "tcp.analysis.duplicate_ack_num": ("duplicate_ack_num", "int"),
    "tcp.analysis.lost_segment": ("lost_segment", "flag"),
    "tcp.analysis.out_of_order": ("out_of_order", "flag"),
    "tcp.analysis.zero_window": ("zero_window", "flag"),
    "ip.dsfield.ecn": ("ecn", "int"),
    "ipv6.tclass.ecn": ("ecn", "int"),
    "tcp.flags.ece": ("ece", "flag"),
    "tcp.flags.cwr": ("cwr", "flag"),
    "tcp.flags.ae": ("ae", "flag"),
    "tcp.flags.syn": ("syn", "flag"),
    "tcp.flags.fin": ("fin", "flag"),
    "tcp.flags.reset": ("rst", "flag"),
    "tcp.flags.ack": ("ack_flag", "flag"),
}
_ADDR = {"ip.src": "src", "ipv6.src": "src", "ip.dst": "dst", "ipv6.dst": "dst"}
_PORT = {"tcp.srcport": "src", "udp.srcport": "src", "tcp.dstport": "dst", "udp.dstport": "dst"}
_FALSE = {"", "0", "false", "False", "FALSE", "no"}


_IP = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*(?:%\S+)?)$")
_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def _token_ok(field: str, token: str) -> bool:
    """Can *token* be (one occurrence of) the value of tshark field *field*?"""
    if token == "":
        return True
    if field in _ADDR:
        return bool(_IP.match(token))
    if field in _PORT:
        return bool(_INT.match(token))
    kind = _FIELDS.get(field, (None, "auto"))[1]
    if kind == "int":
        return bool(_INT.match(token))
    if kind == "float":
        return bool(_FLOAT.match(token))
    return True


def _realign(header: list[str], tokens: list[str]) -> list[str] | None:
    """Regroup a line split on ',' that holds ',' -joined occurrences (``-E occurrence=a``).

    With ``-E separator=,`` and no quoting, a field with several occurrences adds fields to
    its line. Each field takes one or more consecutive tokens whose type fits it
    (addresses, integers, numbers); the grouping is kept when it is the only one, or the
    only one in which the fields of a protocol with several values (``ip.src`` and
    ``ip.dst`` of an ICMP error) have the same number of them. None when still ambiguous.
    Hand-written: no CSV parser can know which field the extra values belong to.
    """
    n, m = len(tokens), len(header)
    if n <= m or n > 4 * m + 16:
        return None
    ok = [[_token_ok(f, t) for t in tokens] for f in header]
    solutions: list[list[int]] = []

    def walk(j: int, i: int, counts: list[int]) -> None:
        if len(solutions) > 64:
            return
        if j == m:
            if i == n:
                solutions.append(list(counts))
            return
        left = m - j - 1  # fields after this one need a token each
        for k in range(1, n - i - left + 1):
            if not ok[j][i + k - 1] or (k > 1 and tokens[i + k - 1] == ""):
                break
            counts.append(k)
            walk(j + 1, i + k, counts)
            counts.pop()

    walk(0, 0, [])
    if len(solutions) > 1:
        def consistent(counts):
            per: dict[str, set] = {}
            for f, k in zip(header, counts):
                per.setdefault(f.split(".", 1)[0], set()).add(k)
            return all(len(ks) == 1 for ks in per.values() if max(ks) > 1)

        solutions = [c for c in solutions if consistent(c)]
    if len(solutions) != 1:
        return None
    out, i = [], 0
    for k in solutions[0]:
        out.append(",".join(tokens[i:i + k]))
        i += k
    return out


def _guarded(reader, rep, first_line):
    """Rows of a csv.reader; a csv.Error (field over the size limit, NUL byte) becomes a
    MeasurementFormatError naming the line (the csv module cannot resume after it)."""
    try:
        yield from reader
    except csv.Error as exc:
        line = first_line + reader.line_num - 1
        raise rep.fail(line, f"unreadable CSV ({exc})") from None


# a tshark field name: dotted identifiers ("tcp.analysis.ack_rtt", "_ws.col.Protocol")
_FIELD_NAME = re.compile(r"^[A-Za-z_][\w-]*(?:\.[\w-]+)+$")
#: Protocol prefixes of the fields found in the exports of a networking lab.
PROTOCOLS = ("frame", "eth", "sll", "vlan", "arp", "ip", "ipv6", "icmp", "icmpv6", "tcp", "udp", "sctp",
             "_ws", "dns", "http", "tls", "quic", "mqtt", "data", "wlan", "radiotap", "llc")


def is_field_header(cells) -> bool:
    """True when the header *cells* name tshark fields (see :func:`read_tshark`).

    Either at least half of them are fields this reader knows by name or by their
    ``frame.``/``ip.``/``tcp.``... prefix, or every cell is a dotted field name and one
    of them starts with a protocol of :data:`PROTOCOLS` (``_ws.col.Protocol``,
    ``mqtt.msgtype``).

    Parameters
    ----------
    cells : list of str
        The header's cells, unquoted.

    Returns
    -------
    bool
        Whether the line is a ``-T fields -E header=y`` header.

    Examples
    --------
    >>> is_field_header(["frame.number", "_ws.col.Protocol", "_ws.col.Info"])
    True
    >>> is_field_header(["No.", "Time", "Source"])
    False
    """
    known = [h for h in cells if h in _FIELDS or h in _ADDR or h in _PORT
             or h.startswith(("frame.", "tcp.", "ip.", "ipv6.", "udp.", "eth."))]
    if cells and len(known) >= max(1, len(cells) // 2):
        return True
    return bool(cells) and all(_FIELD_NAME.match(h) for h in cells) and any(
        h.split(".", 1)[0] in PROTOCOLS for h in cells)


def _kind(field: str) -> str:
    """How a field is read: addr, port, float, int, flag, or auto (decided by its values)."""
    if field in _ADDR:
        return "addr"
    if field in _PORT:
        return "port"
    return _FIELDS.get(field, (None, "auto"))[1]


def read_tshark(path) -> pd.DataFrame:
    """Read a ``tshark -T fields`` export (header line of field names, one packet per line).

    Made with, for example::

        tshark -r trace.pcap -2 -T fields -E header=y -E separator=, -E quote=d -E occurrence=f \\
          -e frame.time_relative -e ip.src -e ip.dst -e tcp.srcport -e tcp.dstport -e tcp.seq -e tcp.ack \\
          -e tcp.len -e frame.len -e tcp.analysis.bytes_in_flight -e tcp.analysis.ack_rtt \\
          -e tcp.analysis.retransmission -e tcp.analysis.fast_retransmission \\
          -e tcp.analysis.duplicate_ack -e ip.dsfield.ecn -e tcp.flags.ece -e tcp.flags.cwr

    Any subset and order of fields is accepted; the separator may be ``,``, tab (tshark's
    default), ``;`` or ``|``, values may be quoted. Analysis flags are true when the field
    is present (``1`` or ``True``), false when empty; booleans printed as ``0/1`` or
    ``False/True`` (Wireshark 4.2+) both work. Unknown fields become columns with ``.``
    replaced by ``_``. When a field has several occurrences (``-E occurrence=a``, values
    joined by ``,``), the first is kept for the known fields (the outer header, e.g. of an
    ICMP error) and all of them, as text (``"1449,2897"``), for an unknown field. With
    ``-E separator=,`` and no quoting these values add fields to the line: they are given
    back to their field when the types of the values (addresses, integers, numbers) leave
    one way to do so, and the line is malformed otherwise (export with ``-E quote=d`` or
    the default tab separator to avoid this).

    Parameters
    ----------
    path : str, path-like, file object or text
        The export (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        One row per packet. Known fields are renamed and converted: ``time_s`` [s]
        (``frame.time_relative``; ``frame.time_epoch`` gives ``epoch_s`` and is also used as
        ``time_s`` when there is no relative time), ``src`` / ``dst`` (``ip:port``),
        ``seq``, ``ack``, ``bytes`` [bytes] (TCP payload, ``tcp.len``), ``frame_bytes``
        [bytes], ``bytes_in_flight`` [bytes], ``rtt_s`` [s] (``tcp.analysis.ack_rtt``),
        ``rwnd_bytes``, ``retransmission``, ``fast_retransmission``, ``duplicate_ack``,
        ``lost_segment``... (bool), ``ecn`` (IP ECN codepoint 0-3), ``ece``, ``cwr`` (bool).
        Integer columns with missing values are float (NaN), e.g. on non-TCP packets.

    Raises
    ------
    MeasurementFormatError
        When the first line is not a header of tshark field names.

    References
    ----------
    .. [1] ``tshark(1)`` (``-T fields``, ``-e``, ``-E``), https://www.wireshark.org/docs/man-pages/tshark.html;
       Wireshark display filter reference for ``tcp.analysis.*``.

    Examples
    --------
    >>> text = '''frame.time_relative,ip.src,ip.dst,tcp.srcport,tcp.dstport,tcp.len,tcp.analysis.ack_rtt,tcp.analysis.retransmission,ip.dsfield.ecn,tcp.flags.ece
    ... 0.000000,10.0.0.1,10.0.0.2,40000,5201,1448,,,0,0
    ... 0.010000,10.0.0.2,10.0.0.1,5201,40000,0,0.010000,,0,0
    ... 0.020000,10.0.0.1,10.0.0.2,40000,5201,1448,,1,2,0
    ... '''
    >>> df = read_tshark(text)
    >>> df[["time_s", "src", "bytes", "rtt_s", "retransmission", "ecn"]]
       time_s             src  bytes  rtt_s  retransmission  ecn
    0    0.00  10.0.0.1:40000   1448    NaN           False    0
    1    0.01   10.0.0.2:5201      0   0.01           False    0
    2    0.02  10.0.0.1:40000   1448    NaN            True    2
    """
    name, body, start = open_bytes(path)
    # the header: the first line that is not blank
    hi = 0
    while True:
        end = body.find(b"\n", start)
        line = body[start:] if end < 0 else body[start:end]
        if line.strip():
            break
        if end < 0:
            raise Report(name, FORMAT, EXPECTED).fail(1, "the source is empty (no line to read)")
        start = end + 1
        hi += 1
    header_line = line.decode("utf-8", "surrogatepass").strip()
    sep = max([",", "\t", ";", "|"], key=header_line.count)
    header = [h.strip().strip('"') for h in header_line.split(sep)]
    if not is_field_header(header):
        raise Report(name, FORMAT, EXPECTED).fail(
            hi + 1, f"not {FORMAT} output: this line is not a header of tshark field names: {header_line[:70]!r}")
    # the rows: read from just after the header in the one bytes object of the file (a
    # slice would copy it, a str of the text too)
    start = len(body) if end < 0 else end + 1
    # A known numeric field that holds something else is read again as text (a second pass
    # over a damaged file only); the columns an analysis needs are checked by the analysis.
    text_fields: dict[int, dict] = {}
    for _ in range(len(header) + 1):
        rep = Report(name, FORMAT, EXPECTED)
        rep.content(hi + 1, header_line)
        try:
            try:
                cols, n = _fast(body, start, header, sep, header_line, text_fields)
                rep.ok(n)
            except _NotFast:
                cols, n = _slow(body, start, header, sep, rep, hi, text_fields)
        except _Retry as retry:
            text_fields[retry.k] = retry.info
            continue
        break
    del body
    rep.require_something()
    out = _finish(header, cols, n, text_fields)
    order = [c for c in ("time_s", "src", "dst") if c in out] + [c for c in out if c not in ("time_s", "src", "dst")]
    df = pd.DataFrame({c: out.pop(c) for c in order}, index=pd.RangeIndex(n), copy=False)
    if "ecn" in df and df["ecn"].dtype == float and df["ecn"].notna().all():
        df["ecn"] = df["ecn"].astype(np.int64)
    extra = {"fields": header}
    if text_fields:
        extra["not_numeric"] = {info["column"]: info for info in text_fields.values()}
    return rep.finish(df, extra)


#: rows converted at a time (their raw strings are dropped before the next block is read)
_ROWS_PER_BLOCK = 1 << 16


class _NotFast(Exception):
    """The file needs the line-by-line path (ragged rows, several occurrences, non-numbers)."""


class _Retry(Exception):
    """Known numeric field *k* holds a value that is not a finite number: read it as text."""

    def __init__(self, k: int, info: dict):
        super().__init__(k)
        self.k, self.info = k, info


def _fields_of(line: bytes, sep: str) -> int:
    """Number of fields of one CSV line (quotes respected)."""
    try:
        return len(next(csv.reader([line.decode("utf-8", "surrogatepass")], delimiter=sep, quotechar='"'), []))
    except csv.Error:
        return -1


def _fast(body: bytes, start: int, header: list, sep: str, header_line: str, text_fields: dict):
    """Columns read by pandas' C parser, numbers converted there; :class:`_NotFast` when the
    file needs the line-by-line path. Returns ``({k: float array or (codes, labels)}, rows)``."""
    ncol = len(header)
    numeric = {k for k, f in enumerate(header) if _kind(f) in ("float", "int") and k not in text_fields}
    # rows that pandas would take silently: a first row wider than the header (pandas turns
    # the extra fields into index levels; a 400 KB row took 18 s), a last line cut short (its
    # missing fields read as empty), the header again (exports appended to one file)
    first = first_line(body, start)
    if first.count(sep.encode()) > ncol - 1 or _fields_of(last_line(body, start), sep) not in (0, ncol):
        raise _NotFast
    if body.find(("\n" + header_line).encode("utf-8", "surrogatepass"), start - 1) >= 0:
        raise _NotFast
    # pandas reads the numbers; addresses, ports and flags as categories (pandas gives their
    # categories a type, e.g. 45000 or True, whose text is the field's); every other field as
    # text, whose distinct values decide its type (see _columns.typed)
    coded = {k for k, f in enumerate(header) if _kind(f) in ("addr", "port", "flag")}
    dtype = {k: "float64" if k in numeric else "category" if k in coded else object for k in range(ncol)}
    parts: dict[int, list] = {k: [] for k in range(ncol)}
    n = 0
    buffer = io.BytesIO(body)  # shares body's memory; read from the current position
    buffer.seek(start)
    try:
        reader = pd.read_csv(buffer, sep=sep, header=None, names=list(range(ncol)), dtype=dtype,
                             keep_default_na=False, na_values={k: [""] for k in numeric}, quotechar='"',
                             engine="c", skip_blank_lines=True, chunksize=_ROWS_PER_BLOCK)
        with reader:
            for table in reader:
                for k in range(ncol):
                    col = table[k]
                    if k in numeric:
                        parts[k].append(col.to_numpy(dtype=float))
                    elif k in coded:
                        cat = col.array
                        parts[k].append((cat.codes, cat.categories))
                    else:
                        parts[k].append(pd.factorize(col.to_numpy(dtype=object)))
                n += len(table)
    except (ValueError, pd.errors.ParserError, csv.Error):
        raise _NotFast from None
    cols = {}
    for k in range(ncol):
        if k in numeric:
            v = join(parts.pop(k), float)
            if np.isinf(v).any():  # 1e999: the line-by-line path names the value
                raise _NotFast
            cols[k] = v
        else:
            cols[k] = merge_blocks(parts.pop(k))  # each block's codes, merged by the text of their labels
    return cols, n


def _slow(body: bytes, start: int, header: list, sep: str, rep: Report, hi: int, text_fields: dict):
    """The line-by-line path (csv module): ragged rows are malformed, the values of
    ``-E occurrence=a`` given back to their fields; same result shape as :func:`_fast`."""
    ncol = len(header)
    rows = []
    reader = csv.reader(io.StringIO(body[start:].decode("utf-8", "surrogatepass")), delimiter=sep, quotechar='"')
    for i, fields in enumerate(_guarded(reader, rep, hi + 2), start=hi + 2):
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue
        if len(fields) != ncol:
            # far too many fields cannot be a realignable row (and _realign would be slow)
            fixed = _realign(header, fields) if sep == "," and len(fields) <= 2 * ncol + 8 else None
            if fixed is None:
                rep.bad(i, sep.join(fields))
                continue
            fields = fixed
        elif [f.strip() for f in fields] == header:  # the header again: exports appended to one file
            rep.bad(i, sep.join(fields))
            continue
        rows.append(fields)
        rep.ok()
    cols = {}
    for k, field in enumerate(header):
        values = np.array([r[k] for r in rows], dtype=object)
        if _kind(field) in ("float", "int") and k not in text_fields:
            num, bad = _numbers(values)
            if bad is not None:
                col = _FIELDS[field][0]
                raise _Retry(k, {"column": col, "field": field, "value": str(values[bad])[:40], "row": int(bad) + 1})
            cols[k] = num
        else:
            if k in text_fields:
                values = np.array([first_value(v) for v in values], dtype=object)
            codes, labels = pd.factorize(values)
            cols[k] = (np.asarray(codes, dtype=np.int64), list(labels))
    return cols, len(rows)


def _finish(header: list, cols: dict, n: int, text_fields: dict) -> dict:
    """The frame's columns, in the order of the header, from what :func:`_fast` or :func:`_slow` read."""
    out: dict[str, object] = {}
    ends: dict[str, dict[str, list]] = {"src": {"addr": [], "port": []}, "dst": {"addr": [], "port": []}}
    for k, field in enumerate(header):
        kind = _kind(field)
        if kind in ("addr", "port"):
            side = (_ADDR if kind == "addr" else _PORT)[field]
            ends[side][kind].append(cols.pop(k))
            continue
        col = _FIELDS.get(field, (field.replace(".", "_"), "auto"))[0]
        if kind == "flag":
            codes, labels = cols.pop(k)
            lookup = np.array([first_value(x) not in _FALSE for x in labels] + [False])
            out[col] = lookup[codes]
        elif kind in ("float", "int") and k not in text_fields:
            values = cols.pop(k)
            res = as_int(values) if kind == "int" else values
            if col in out and col == "ecn":  # ip.dsfield.ecn and ipv6.tclass.ecn: whichever is given
                res = np.where(np.isnan(np.asarray(out[col], dtype=float)), res, out[col])
            out[col] = res
        elif kind in ("float", "int"):
            codes, labels = cols.pop(k)
            out[col] = categorical(codes, labels)
        else:
            out[col] = typed(*cols.pop(k))
    if "time_s" not in out and "epoch_s" in out:
        out["time_s"] = out["epoch_s"]
    for side, parts in ends.items():
        if parts["addr"] or parts["port"]:
            out[side] = endpoints(parts["addr"], parts["port"], n)
    return out


def _numbers(values):
    """``(float values, index of the first value that is no finite number or None)``; empty
    fields are NaN, the first occurrence of several counts, ``0x`` hexadecimal is read."""
    s = pd.Series([first_value(v) for v in values], dtype=object)
    num = pd.to_numeric(s.where(s != "", None), errors="coerce").to_numpy(dtype=float)
    given = (s != "").to_numpy()
    bad = np.flatnonzero(np.isinf(num) | (np.isnan(num) & given))
    if len(bad):
        for i in bad:
            if HEXNUM.match(s[i]):
                num[i] = float(int(s[i], 16))
        bad = np.flatnonzero(np.isinf(num) | (np.isnan(num) & given))
    return num, (int(bad[0]) if len(bad) else None)
