"""Reader of ``tshark -T fields`` exports with TCP analysis fields."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from ._common import Report, gc_paused, open_text

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


def _first(v: str) -> str:
    # with -E occurrence=a several values are joined by the aggregator (',' by default)
    return v.split(",", 1)[0].strip() if v else ""


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
    name, text = open_text(path)
    rep = Report(name, FORMAT, EXPECTED)
    # the header: the first line that is not blank (found without splitting the whole text)
    pos = 0
    hi = 0
    while True:
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        if line.strip():
            break
        if end < 0:
            raise rep.fail(1, "the source is empty (no line to read)")
        pos = end + 1
        hi += 1
    header_line = line.strip()
    sep = max([",", "\t", ";", "|"], key=header_line.count)
    header = [h.strip().strip('"') for h in header_line.split(sep)]
    known = [h for h in header if h in _FIELDS or h in _ADDR or h in _PORT or h.startswith(("frame.", "tcp.", "ip.", "ipv6.", "udp.", "eth."))]
    if not header or len(known) < max(1, len(header) // 2):
        raise rep.fail(hi + 1, f"not {FORMAT} output: this line is not a header of tshark field names: {header_line[:70]!r}")
    rep.content(hi + 1, header_line)
    ncol = len(header)
    # the whole text as bytes (the text itself is dropped), read from just after the header:
    # slicing the body off (text[end + 1:]) copied the file once more (3x its size at peak)
    body = text.encode("utf-8", "surrogatepass") if end >= 0 else b""
    del text, line
    start = 0
    for _ in range(hi + 1):
        start = body.find(b"\n", start) + 1
    conv = _Converter(header, rep)
    first_row = _first_nonblank(body, 199, start).decode("utf-8", "surrogatepass")
    fast = False
    try:
        if first_row.count(sep) > ncol - 1:
            # pandas would turn the extra fields of the first row into index levels (a 400 KB
            # row took 18 s); such a row is handled, and reported, by the csv path below
            raise ValueError("first row wider than the header")
        buffer = io.BytesIO(body)  # shares body's memory; read from the current position
        buffer.seek(start)
        reader = pd.read_csv(buffer, sep=sep, header=None, names=list(range(ncol)), dtype=str,
                             keep_default_na=False, quotechar='"', engine="c", skip_blank_lines=True,
                             chunksize=_ROWS_PER_BLOCK)
        with reader:
            n_rows = 0
            for table in reader:
                if len(table) and (table[ncol - 1].isna().any() if ncol else False):
                    raise ValueError("a row with fewer fields than the header")
                with gc_paused():
                    conv.add({k: table[k].to_numpy(dtype=object) for k in range(ncol)}, len(table))
                n_rows += len(table)
            del table
        fast = True
    except (ValueError, pd.errors.ParserError):
        fast = False
    if fast:
        rep.ok(n_rows)
    else:
        conv = _Converter(header, rep)
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
            rows.append(fields)
            rep.ok()
        conv.add({k: np.array([r[k] for r in rows], dtype=object) for k in range(ncol)}, len(rows))
        del rows
    reader = buffer = None
    del body
    out, n = conv.finish()
    rep.require_something()
    order = [c for c in ("time_s", "src", "dst") if c in out] + [c for c in out if c not in ("time_s", "src", "dst")]
    df = pd.DataFrame({c: out.pop(c) for c in order}, index=pd.RangeIndex(n), copy=False)
    for c in ("src", "dst"):
        if c in df:
            df[c] = df[c].astype("category")
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].astype("str")
    if "ecn" in df and df["ecn"].dtype == float and df["ecn"].notna().all():
        df["ecn"] = df["ecn"].astype(np.int64)
    return rep.finish(df, {"fields": header})


#: rows converted at a time (their raw strings are dropped before the next block is read)
_ROWS_PER_BLOCK = 1 << 16


def _first_nonblank(body: bytes, lines: int, pos: int = 0) -> bytes:
    """The first line of *body* from *pos* on that is not blank among its first *lines* lines (b"" if none)."""
    for _ in range(lines):
        end = body.find(b"\n", pos)
        line = body[pos:] if end < 0 else body[pos:end]
        if line.strip():
            return line
        if end < 0:
            break
        pos = end + 1
    return b""


class _Converter:
    """The columns of a tshark export, converted a block of rows at a time.

    Known numeric and flag fields and the addresses are converted block by block (the raw
    strings of a block are then dropped); the decisions that need the whole column (int64
    when every value is a whole number, a field that is not a number) are taken at the
    end, on the whole column, as for a file read at once. Unknown fields keep their strings.
    """

    def __init__(self, header: list[str], rep: Report):
        self.header = header
        self.rep = rep
        self.n = 0
        self.parts = {k: [] for k in range(len(header))}
        self.bad = {}  # field index -> its first value that is not a finite number
        self.addr = {"src": [], "dst": []}
        self.cache = {}

    def add(self, cols: dict, n: int) -> None:
        addr: dict[str, np.ndarray] = {}
        port: dict[str, np.ndarray] = {}
        for k, field in enumerate(self.header):
            values = cols[k]
            if field in _ADDR:
                a = np.array([_first(v) for v in values], dtype=object)
                prev = addr.get(_ADDR[field])
                addr[_ADDR[field]] = a if prev is None else np.where(a != "", a, prev)
                continue
            if field in _PORT:
                p = np.array([_first(v) for v in values], dtype=object)
                prev = port.get(_PORT[field])
                port[_PORT[field]] = p if prev is None else np.where(p != "", p, prev)
                continue
            col, kind = _FIELDS.get(field, (field.replace(".", "_"), "auto"))
            if kind == "flag":
                self.parts[k].append(np.array([_first(v) not in _FALSE for v in values], dtype=bool))
            elif kind in ("float", "int"):
                num, bad = _numbers(values)
                if bad is not None and k not in self.bad:
                    self.bad[k] = bad
                self.parts[k].append(num)
            else:
                self.parts[k].append(values)
        for side in ("src", "dst"):
            a = addr.get(side)
            p = port.get(side)
            if a is None and p is None:
                continue
            if a is None:
                a = np.full(n, "", dtype=object)
            if p is None:
                joined = a
            else:
                joined = [(f"[{x}]:{y}" if ":" in x else f"{x}:{y}") if x and y else (x or "") for x, y in zip(a, p)]
            arr = np.empty(n, dtype=object)
            arr[:] = [self.cache.setdefault(x, x) for x in joined]  # one str object per endpoint
            self.addr[side].append(arr)
        self.n += n

    def finish(self):
        """``(columns, rows)``: the columns in the order of the header, as one read would give."""
        out: dict[str, np.ndarray] = {}
        for k, field in enumerate(self.header):
            if k in self.bad:  # the first field in header order with a bad value, as read at once
                raise self.rep.fail(None, f"field {field!r} holds a value that is not a finite number: "
                                          f"{str(self.bad[k])[:40]!r}")
            if field in _ADDR or field in _PORT:
                continue
            col, kind = _FIELDS.get(field, (field.replace(".", "_"), "auto"))
            values = _join(self.parts.pop(k), bool if kind == "flag" else float if kind in ("float", "int") else object)
            if kind == "flag":
                out[col] = values
            elif kind in ("float", "int"):
                res = _as_int(values) if kind == "int" else values
                if col in out and col == "ecn":
                    res = np.where(np.isnan(np.asarray(out[col], dtype=float)), res, out[col])
                out[col] = res
            elif any("," in v for v in values):  # -E occurrence=a: keep every occurrence of an unknown field
                out[col] = np.array([v.strip() for v in values], dtype=object)
            else:
                num, bad = _numbers(values)
                if bad is not None:
                    raise self.rep.fail(None, f"field {field!r} holds a value that is not a finite number: "
                                              f"{str(bad)[:40]!r}")
                num = _as_int(num)
                empty = np.array([_first(v) == "" for v in values], dtype=bool)
                if np.all(np.isnan(np.asarray(num, dtype=float)) <= empty):
                    out[col] = num
                else:
                    out[col] = np.array([_first(v) for v in values], dtype=object)
        if "time_s" not in out and "epoch_s" in out:
            out["time_s"] = out["epoch_s"]
        for side in ("src", "dst"):
            if self.addr[side]:
                out[side] = _join(self.addr[side], object)
        return out, self.n


def _join(parts: list, dtype) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _numbers(values):
    """``(float values, first value that is no finite number or None)``; empty fields are NaN."""
    s = pd.Series([_first(v) for v in values], dtype=object)
    num = pd.to_numeric(s.where(s != "", None), errors="coerce").to_numpy(dtype=float)
    given = s.notna().to_numpy() & (s != "").to_numpy()
    bad = None
    if np.isinf(num).any() or (np.isnan(num) & given).any():
        # a value that is not a number (or overflows) would otherwise become a silent NaN
        bad = next(v for v, x, g in zip(values, num, given) if np.isinf(x) or (np.isnan(x) and g))
    return num, bad


def _as_int(num: np.ndarray) -> np.ndarray:
    """int64 when every value is a whole number of int64's range, else unchanged."""
    if not np.isnan(num).any() and np.all(num == np.round(num)) and np.all(np.abs(num) < 2.0**63):
        return num.astype(np.int64)
    return num
