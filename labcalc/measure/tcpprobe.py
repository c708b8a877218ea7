"""Reader of Linux TCP probe output: ``/proc/net/tcpprobe`` and the ``tcp:tcp_probe`` tracepoint."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ._common import Report, source_name
from ._vector import COLON, EQ, HASH, SPACE, Lines, categoricals, read_chunks, parse_float, parse_hex, parse_uint, span_codes

__all__ = ["read_tcp_probe"]

FORMAT = "tcp_probe"
EXPECTED = (
    "tcp_probe output: /proc/net/tcpprobe lines '<t> <src> <dst> <len> <snd_nxt> <snd_una> <cwnd> "
    "<ssthresh> <snd_wnd> <srtt> [<rcv_wnd>]' or tcp:tcp_probe trace lines "
    "'<task>-<pid> [cpu] <t>: tcp_probe: src=<ip:port> dest=<ip:port> ... snd_cwnd=<n> ...'"
)

# tracepoint key -> (column, kind)
_TP_KEYS = {
    "src": ("src", "str"),
    "dest": ("dst", "str"),
    "data_len": ("bytes", "int"),
    "length": ("bytes", "int"),
    "snd_nxt": ("seq", "hex"),
    "snd_una": ("snd_una", "hex"),
    "snd_cwnd": ("cwnd_segments", "int"),
    "ssthresh": ("ssthresh_segments", "int"),
    "snd_wnd": ("snd_wnd_bytes", "int"),
    "srtt": ("srtt", "int"),
    "rcv_wnd": ("rcv_wnd_bytes", "int"),
}
# /proc/net/tcpprobe field order
_PROC_FIELDS = [
    ("time_s", "float"),
    ("src", "str"),
    ("dst", "str"),
    ("bytes", "int"),
    ("seq", "hex"),
    ("snd_una", "hex"),
    ("cwnd_segments", "int"),
    ("ssthresh_segments", "int"),
    ("snd_wnd_bytes", "int"),
    ("srtt", "int"),
    ("rcv_wnd_bytes", "int"),
]
_NUMERIC = ["bytes", "seq", "snd_una", "cwnd_segments", "ssthresh_segments", "snd_wnd_bytes", "srtt", "rcv_wnd_bytes"]
_COLUMNS = ["time_s", "src", "dst"] + _NUMERIC

_TP_RE = re.compile(r"(?:^|\s)(\d+\.\d+):\s+((?:[\w-]+:)?tcp_probe:)(\s+)(.*)$")
# another ftrace event: "<task>-<pid> [<cpu>] <flags> <timestamp>: <event>:". Searched from the
# CPU bracket on (the task name before it may hold spaces): '.+' before the bracket and '.*?'
# after it backtracked over every bracket of a long line ("[1]" * 20000: 11 s), this is linear
_EVENT_RE = re.compile(r"\[\d+\]\s+(?:[^\s:]+\s+)?\d+\.\d+:\s+[\w:-]+:")
_KV_RE = re.compile(r"(?<![\w=])([A-Za-z_]\w*)=(\S*)")  # keys start a word: no restart inside a long one (O(n))
_PROC_RE = re.compile(
    r"^\s*(\d+\.\d+)\s+(\S+:\d+)\s+(\S+:\d+)\s+(\d+)\s+(0x[0-9a-fA-F]+|0)\s+(0x[0-9a-fA-F]+|0)"
    r"\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)(?:\s+(\d+))?\s*$"
)

_SRTT_FACTORS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "jiffies": None}
_VARIANTS = ("tracepoint", "proc10", "proc11")


def _int(s: str, kind: str) -> float:
    """Integer field as float; a value too long or too large for a float raises ValueError."""
    if len(s) > 40:  # no counter of a kernel trace has more digits; avoids int()'s digit limit
        raise ValueError(f"number too long: {s[:20]}...")
    try:
        return float(int(s, 16) if kind == "hex" else int(s))
    except OverflowError:
        raise ValueError(f"number too large: {s[:20]}") from None


def _parse_slow(text: str):
    """Parse one line; returns ``(variant, dict)``, ``("other", None)`` or ``(None, None)``."""
    m = _TP_RE.search(text)
    if m:
        kv = dict(_KV_RE.findall(m.group(4)))
        if "src" not in kv or "dest" not in kv or "snd_cwnd" not in kv:
            return None, None
        out = {"time_s": float(m.group(1))}
        try:
            for key, (col, kind) in _TP_KEYS.items():
                if key in kv:
                    out[col] = kv[key] if kind == "str" else _int(kv[key], kind)
        except ValueError:
            return None, None
        return "tracepoint", out
    m = _PROC_RE.match(text)
    if m:
        g = m.groups()
        out = {"time_s": float(g[0]), "src": g[1], "dst": g[2]}
        try:
            for (col, kind), val in zip(_PROC_FIELDS[3:], g[3:]):
                if val is not None:
                    out[col] = _int(val, kind)
        except ValueError:
            return None, None
        return ("proc11" if g[10] is not None else "proc10"), out
    ev = _EVENT_RE.search(text)
    if ev and text[:ev.start()].strip() and "tcp_probe" not in text:
        return "other", None
    return None, None


def _layout(text: str):
    """Token layout of a tracepoint line, used by the vectorised path."""
    m = _TP_RE.search(text)
    if not m:
        return None
    keys = [k for k, _ in _KV_RE.findall(m.group(4))]
    if not keys or len(set(keys)) != len(keys) or len(keys) != m.group(4).count("="):
        return None  # no key=value at all, a key twice, or a stray '=': line by line
    event = m.group(2).encode()
    return {"event": event, "gap": len(m.group(3)), "keys": [k.encode() for k in keys]}


def _fast_trace(L: Lines, rows: np.ndarray, lay: dict, table: dict):
    keys = lay["keys"]
    K = len(keys)
    rows = rows[L.count_in_lines(EQ, rows) == K]
    if not len(rows):
        return rows, {}
    s, e = L.starts[rows], L.ends[rows]
    E = L.nth_positions(EQ, rows, K)
    klen = np.array([len(k) for k in keys])
    kstart = E - klen[None, :]
    # "<timestamp>: <event>:<gap><first key>=": the ': ' after the timestamp is at a fixed offset
    event = lay["event"]
    cs = kstart[:, 0] - lay["gap"] - len(event) - 2
    ok = (cs > s) & (L.byte(cs) == COLON) & (L.byte(cs + 1) == SPACE)
    ok &= L.equals(cs + 2, event[:8]) & (L.byte(cs + 1 + len(event)) == COLON)
    for k, key in enumerate(keys):
        if k == 0 or key.decode() in _TP_KEYS:  # the keys whose values are used
            a = kstart[:, k]
            ok &= (L.byte(a - 1) == SPACE) & (L.byte(a) == key[0])
    vstart = E + 1
    vend = np.empty_like(E)
    vend[:, :-1] = kstart[:, 1:] - 1
    vend[:, -1] = e
    ts0 = L.scan_back(cs, s, b"0123456789.")
    t, okt = parse_float(L, ts0, cs)
    ok &= okt
    cols = {"time_s": t}
    for k, key in enumerate(keys):
        spec = _TP_KEYS.get(key.decode())
        if spec is None:
            continue
        col, kind = spec
        a, b = vstart[:, k], vend[:, k]
        if kind == "str":
            cols[col] = span_codes(L, a, b, table)
            ok &= b > a
        else:
            v, okv = parse_hex(L, a, b) if kind == "hex" else parse_uint(L, a, b)
            ok &= okv
            cols[col] = v.astype(np.float64)
    if "src" not in cols or "dst" not in cols or "cwnd_segments" not in cols:
        return np.zeros(0, np.int64), {}
    good = np.flatnonzero(ok)
    return rows[good], {c: v[good] for c, v in cols.items()}


def _fast_proc(L: Lines, rows: np.ndarray, table: dict):
    nsp = L.count_in_lines(SPACE, rows)
    out_rows, out_cols = [], []
    for nf in (10, 11):
        sel = rows[nsp == nf - 1]
        if not len(sel):
            continue
        s, e = L.starts[sel], L.ends[sel]
        P = L.nth_positions(SPACE, sel, nf - 1)
        fs = np.column_stack([s, P + 1])
        fe = np.column_stack([P, e])
        t, ok = parse_float(L, fs[:, 0], fe[:, 0])
        cols = {"time_s": t}
        for j, (col, kind) in enumerate(_PROC_FIELDS[1:nf], start=1):
            a, b = fs[:, j], fe[:, j]
            if kind == "str":
                cols[col] = span_codes(L, a, b, table)
                ok &= b > a
            else:
                v, okv = parse_hex(L, a, b) if kind == "hex" else parse_uint(L, a, b)
                ok &= okv
                cols[col] = v.astype(np.float64)
        good = np.flatnonzero(ok)
        out_rows.append(sel[good])
        out_cols.append({c: v[good] for c, v in cols.items()})
    return out_rows, out_cols


def _chunk(L: Lines) -> dict:
    """Parse one chunk: vectorised paths first, then line by line for the rest."""
    table: dict[str, int] = {}
    out = {"parts": [], "bad": [], "other": 0, "first": None, "table": table}
    content = (L.ends > L.starts) & (L.byte(L.starts) != HASH)
    rows = np.flatnonzero(content)
    if not len(rows):
        nonempty = np.flatnonzero(L.ends > L.starts)
        if len(nonempty):  # only comment lines: name the first one if nothing else turns up
            out["first"] = (int(L.numbers[nonempty[0]]), L.text([nonempty[0]])[0])
        return out
    out["first"] = (int(L.numbers[rows[0]]), L.text([rows[0]])[0])
    remaining = rows
    layout = None
    for r in rows[:50]:
        layout = _layout(L.text([r])[0])
        if layout is not None:
            break
    if layout is not None:
        got, cols = _fast_trace(L, remaining, layout, table)
        if len(got):
            out["parts"].append((L.numbers[got], cols, np.zeros(len(got), np.int8)))
            remaining = np.setdiff1d(remaining, got, assume_unique=True)
    if len(remaining):
        for got, cols in zip(*_fast_proc(L, remaining, table)):
            if len(got):
                variant = np.full(len(got), 2 if "rcv_wnd_bytes" in cols else 1, np.int8)
                out["parts"].append((L.numbers[got], cols, variant))
                remaining = np.setdiff1d(remaining, got, assume_unique=True)
    slow_lines, slow_rows, slow_variant = [], [], []
    for r, text in zip(remaining, L.text(remaining)):
        variant, row = _parse_slow(text)
        if variant == "other":
            out["other"] += 1
        elif row is None:
            out["bad"].append((int(L.numbers[r]), text))
        else:
            slow_lines.append(int(L.numbers[r]))
            slow_rows.append(row)
            slow_variant.append({"tracepoint": 0, "proc10": 1, "proc11": 2}[variant])
    if slow_rows:
        cols = {c: [] for c in _COLUMNS}
        for row in slow_rows:
            for c in _COLUMNS:
                v = row.get(c, np.nan)
                if c in ("src", "dst"):
                    v = table.setdefault(v, len(table))
                cols[c].append(v)
        cols = {c: np.asarray(v, dtype=np.int32 if c in ("src", "dst") else np.float64) for c, v in cols.items()}
        out["parts"].append((np.asarray(slow_lines, np.int64), cols, np.asarray(slow_variant, np.int8)))
    return out


def read_tcp_probe(path, port: int | None = None, srtt_unit: str | None = None, hz: float | None = None) -> pd.DataFrame:
    """Read TCP probe samples: ``/proc/net/tcpprobe`` or the ``tcp:tcp_probe`` tracepoint.

    One row per probe event (each segment the socket processed). Both outputs of Linux are
    accepted, in one file or several concatenated:

    - the ``tcp_probe`` module (kernels up to 4.15), ``cat /proc/net/tcpprobe``; 11 fields
      since kernel 3.12 (``full=1`` logs every ACK), 10 fields before (no ``rcv_wnd``)::

        <sec.nsec> <src ip:port> <dst ip:port> <skb len> <snd_nxt 0x..> <snd_una 0x..> <snd_cwnd> <ssthresh> <snd_wnd> <srtt> [<rcv_wnd>]

    - the ``tcp:tcp_probe`` tracepoint (kernel 4.16 and later) as printed by
      ``/sys/kernel/tracing/trace`` / ``trace_pipe``, ``trace-cmd report`` or ``perf script``:
      a ``<timestamp>: tcp_probe:`` prefix and ``key=value`` pairs whose set depends on the
      kernel (``family=``, ``mark=``, ``data_len=`` (``length=`` in 4.16), ``sock_cookie=``,
      ``skbaddr=``... come and go; unknown keys are ignored)::

        iperf3-4324 [000] ..s2. 429.460320: tcp_probe: family=AF_INET src=10.0.0.1:5001 dest=10.0.0.2:5201 mark=0x0 data_len=0 snd_nxt=0x1a72e749 snd_una=0x1a72e749 snd_cwnd=11 ssthresh=2147483647 snd_wnd=65536 srtt=210 rcv_wnd=64512 sock_cookie=2

    Lines starting with ``#`` (the trace header) are ignored, and so are other trace events.

    Parameters
    ----------
    path : str, path-like, file object or text
        The probe output (see :mod:`labcalc.measure` for the accepted inputs).
    port : int, optional
        Keep only the events whose source or destination port is *port* (what the module's
        ``port=`` parameter did), e.g. 5001 for iperf 2 or 5201 for iperf3.
    srtt_unit : {"us", "ms", "s", "jiffies"}, optional
        Unit of the srtt field, for every row. By default microseconds for the tracepoint
        and the 11-field module output (kernels >= 3.15 log ``srtt_us``), and jiffies at
        *hz* for 10-field lines (kernels before 3.12 logged ``tp->srtt >> 3``, in jiffies).
        Pass ``"jiffies"`` for an 11-field file from kernels 3.12-3.14, which still
        counted in jiffies.
    hz : float, optional
        Timer frequency of the kernel (``CONFIG_HZ``: 100, 250, 300 or 1000) [1/s], used
        where srtt is in jiffies (10-field lines, or ``srtt_unit="jiffies"``): srtt [s] =
        jiffies / hz. Default 1000 (one jiffy = 1 ms). Find it with
        ``grep 'CONFIG_HZ=' /boot/config-$(uname -r)`` on the machine that made the trace.

    Returns
    -------
    pandas.DataFrame
        Columns ``time_s`` [s] (since module load, or the trace clock: seconds since boot),
        ``src``, ``dst`` (``ip:port`` of the probed socket and its peer, categorical),
        ``bytes`` [bytes] (length of the segment that triggered the event), ``seq`` (snd_nxt),
        ``snd_una``, ``cwnd_segments`` [segments], ``ssthresh_segments`` [segments] (NaN while
        unset: 2147483647), ``snd_wnd_bytes`` [bytes], ``rtt_s`` [s] (smoothed RTT),
        ``rcv_wnd_bytes`` [bytes] (NaN when absent). ``attrs`` holds ``malformed``,
        ``variant`` ("tracepoint", "proc10", "proc11", or several joined by commas) and
        ``srtt_unit`` (how srtt was read: "us", "ms", "s" or e.g. "jiffies at HZ=250").

    Raises
    ------
    MeasurementFormatError
        When no line is a probe sample.
    ValueError
        When *srtt_unit* or *hz* is not valid (``hz`` <= 0, or given with a unit other
        than jiffies).

    Warns
    -----
    MalformedLinesWarning
        When some lines were skipped.

    Notes
    -----
    The cwnd is reported for the socket named in ``src``: the data sender's window is on the
    rows whose ``dst`` is the receiver's port. Big traces are parsed with vectorised numpy
    code (about a million lines per second); lines it cannot vouch for are parsed one by one.

    The module format (10 or 11 fields, and so the srtt unit) is decided once per file, by
    the majority of its module lines (the first one on a tie): lines of the other format,
    such as an 11-field line cut before its last field, are malformed, never read with
    another unit.

    References
    ----------
    .. [1] Linux ``include/trace/events/tcp.h`` (``TRACE_EVENT(tcp_probe, ...)``), and
       ``net/ipv4/tcp_probe.c`` (removed in 4.16) for the module format.
    .. [2] Linux ``Documentation/trace/ftrace.rst`` (trace output format).

    Examples
    --------
    >>> import io
    >>> text = '''# tracer: nop
    ...   iperf3-10 [001] ..s1. 12.500000: tcp_probe: src=10.0.0.1:40000 dest=10.0.0.2:5201 mark=0x0 data_len=0 snd_nxt=0x10 snd_una=0x8 snd_cwnd=10 ssthresh=2147483647 snd_wnd=65535 srtt=2500 rcv_wnd=65535 sock_cookie=1
    ...   iperf3-10 [001] ..s1. 12.502500: tcp_probe: src=10.0.0.1:40000 dest=10.0.0.2:5201 mark=0x0 data_len=0 snd_nxt=0x20 snd_una=0x10 snd_cwnd=11 ssthresh=7 snd_wnd=65535 srtt=2600 rcv_wnd=65535 sock_cookie=1
    ... '''
    >>> df = read_tcp_probe(io.StringIO(text), port=5201)
    >>> df[["time_s", "cwnd_segments", "ssthresh_segments", "rtt_s", "seq"]]
       time_s  cwnd_segments  ssthresh_segments   rtt_s  seq
    0  12.5000             10                NaN  0.0025   16
    1  12.5025             11                7.0  0.0026   32
    """
    # Long because it reads the four tcp_probe line formats in one vectorised pass and
    # reports the malformed lines of each by number.
    if srtt_unit is not None and srtt_unit not in _SRTT_FACTORS:
        raise ValueError(f"srtt_unit: expected one of {sorted(_SRTT_FACTORS)}, got {srtt_unit!r}")
    if hz is not None:
        if isinstance(hz, bool) or not isinstance(hz, (int, float, np.integer, np.floating)) or not hz > 0:
            raise ValueError(f"hz: expected the kernel's timer frequency (CONFIG_HZ, e.g. 250) > 0, got {hz!r}")
        if srtt_unit not in (None, "jiffies"):
            raise ValueError(f"hz: only used when srtt is in jiffies, but srtt_unit={srtt_unit!r} was given")
    jiffy_s = 1.0 / float(hz if hz is not None else 1000.0)
    name = source_name(path)
    rep = Report(name, FORMAT, EXPECTED)
    table: dict[str, int] = {}
    parts_lines, parts_cols, parts_variant = [], [], []
    other_events = 0
    for offset, res, remap in read_chunks(path, _chunk, rep, table):
        for lines, cols, variant in res["parts"]:
            for c in ("src", "dst"):
                cols[c] = remap[cols[c]] if len(cols[c]) else cols[c].astype(np.int32)
            parts_lines.append(lines + offset)
            parts_cols.append(cols)
            parts_variant.append(variant)
        other_events += res["other"]
    n_total = sum(len(x) for x in parts_lines)
    rep.ok(n_total)
    rep.require_something()

    def gather(col):
        out = []
        for lines, cols in zip(parts_lines, parts_cols):
            v = cols.get(col)
            if v is None:
                v = np.full(len(lines), np.nan)
            out.append(v)
        return np.concatenate(out) if out else np.zeros(0)

    line_no = np.concatenate(parts_lines) if parts_lines else np.zeros(0, np.int64)
    variant = np.concatenate(parts_variant) if parts_variant else np.zeros(0, np.int8)
    order = None
    if len(line_no) > 1 and np.any(np.diff(line_no) < 0):
        order = np.argsort(line_no, kind="stable")
    data = {}
    for c in _COLUMNS:
        v = gather(c)
        if order is not None:
            v = v[order]
        data[c] = v
    if order is not None:
        variant = variant[order]
        line_no = line_no[order]
    # one module format per file: the lines of the other one are malformed (their srtt unit differs)
    proc = variant > 0
    n10, n11 = int(np.count_nonzero(variant == 1)), int(np.count_nonzero(variant == 2))
    if n10 and n11:
        keep = 2 if n11 > n10 else 1 if n10 > n11 else int(variant[proc][0])
        odd = proc & (variant != keep)
        bad_lines = line_no[odd]
        rep.malformed_count += len(bad_lines)
        rep.malformed_lines = sorted(rep.malformed_lines + [int(x) for x in bad_lines[:10]])[:10]
        rep.recognised -= len(bad_lines)
        data = {c: v[~odd] for c, v in data.items()}
        variant = variant[~odd]
    # srtt unit per row
    if srtt_unit == "jiffies":
        factor = np.full(len(variant), jiffy_s)
    elif srtt_unit is not None:
        factor = np.full(len(variant), _SRTT_FACTORS[srtt_unit])
    else:
        factor = np.where(variant == 1, jiffy_s, 1e-6)
    data["srtt"] = data["srtt"] * factor
    ssth = data["ssthresh_segments"]
    ssth[ssth >= 2147483647] = np.nan
    if port is not None:
        ports = np.full(max(len(table), 1), -1, dtype=np.int64)
        for s_, code in table.items():
            ports[code] = _port_of(s_)
        src_codes = data["src"].astype(np.int64)
        dst_codes = data["dst"].astype(np.int64)
        keep = (ports[src_codes] == int(port)) | (ports[dst_codes] == int(port))
        data = {c: v[keep] for c, v in data.items()}
        variant = variant[keep]
    src, dst = categoricals([data["src"], data["dst"]], table)
    frame = {"time_s": data["time_s"], "src": src, "dst": dst}
    for c in _NUMERIC:
        v = data[c]
        if c == "srtt":
            frame["rtt_s"] = v
            continue
        # counts stay float when one is NaN or beyond int64 (a mutated 20-digit field)
        if c != "ssthresh_segments" and not np.isnan(v).any() and not (np.abs(v) >= 2.0**63).any():
            v = v.astype(np.int64)
        frame[c] = v
    df = pd.DataFrame(frame, copy=False)
    variants = sorted({_VARIANTS[v] for v in np.unique(variant)})
    extra = {"variant": variants[0] if len(variants) == 1 else ",".join(variants)}
    jiffies = f"jiffies at HZ={1.0 / jiffy_s:g}"
    if srtt_unit == "jiffies":
        extra["srtt_unit"] = jiffies
    elif srtt_unit is not None:
        extra["srtt_unit"] = srtt_unit
    else:
        units = sorted({jiffies if v == 1 else "us" for v in np.unique(variant)})
        extra["srtt_unit"] = ",".join(units) if units else "us"
    if other_events:
        extra["other_events"] = other_events
    return rep.finish(df, extra)


def _port_of(addr: str) -> int:
    try:
        return int(str(addr).rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return -1
