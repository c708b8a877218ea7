"""Reader of ``ping`` output (iputils, and the BSD/macOS and BusyBox variants of the reply line)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ._common import Report, source_name
from ._vector import COLON, EQ, LBRACK, RBRACK, SPACE, Lines, categoricals, map_chunks, parse_float, parse_uint, span_codes

__all__ = ["read_ping"]

FORMAT = "ping"
EXPECTED = (
    "ping output: reply lines '[<epoch>] <n> bytes from <host>: icmp_seq=<n> ttl=<n> time=<ms> ms' "
    "(icmp_req= in old iputils; the [<epoch>] stamp only with -D) and the statistics summary"
)

_REPLY = re.compile(
    r"^(?:\[(?P<ts>\d+(?:\.\d+)?)\]\s*)?(?P<bytes>\d+) bytes from (?P<host>\S+?(?: \([^()\s]*\))?)[:,]\s+"
    r"(?:icmp_[sr]eq|seq)=(?P<seq>\d+)\s+(?:hlim|ttl)=(?P<ttl>\d+)\s+time[=<]\s*(?P<rtt>\d+(?:\.\d+)?)\s*ms"
    r"(?P<rest>(?:\s*\((?:DUP!|BAD CHECKSUM!|truncated|DIFFERENT ADDRESS!)\))*)\s*$"
)
_STATS = re.compile(
    r"^(?P<tx>\d+) packets transmitted, (?P<rx>\d+) (?:packets )?received"
    r"(?:, \+(?P<dup>\d+) duplicates)?(?:, \+(?P<err>\d+) errors)?"
    r"(?:, (?P<loss>\d+(?:\.\d+)?)% packet loss)?(?:, time (?P<time>\d+)ms)?"
)
_RTT = re.compile(
    r"^(?:rtt|round-trip) min/avg/max(?:/(?:mdev|stddev|std-dev))? = (?P<vals>[\d./]+) ms"
)
_HEADER = re.compile(r"^PING \S+|^PING6\(.*-->\s*\S+")
_TITLE = re.compile(r"^--- .* ping6? statistics ---$")
_ERROR = re.compile(
    r"^(?:\[\d+(?:\.\d+)?\]\s*)?(?:From \S+.*icmp_seq=\d+|no answer yet for icmp_seq=\d+|Request timeout for icmp_seq[= ]\d+"
    r"|ping: .*|PING: .*|Warning: .*|pipe \d+)"
)

_COLS = ["time_s", "seq", "rtt_s", "ttl", "bytes", "src", "dup"]


def _fast(L: Lines, rows: np.ndarray, table: dict):
    """Vectorised parse of plain reply lines; returns (rows parsed, columns)."""
    rows = rows[L.count_in_lines(EQ, rows) == 3]
    if not len(rows):
        return rows, {}
    s, e = L.starts[rows], L.ends[rows]
    E = L.nth_positions(EQ, rows, 3)
    e0, e1, e2 = E[:, 0], E[:, 1], E[:, 2]
    ok = (L.equals(e0 - 9, b" icmp_seq") | L.equals(e0 - 9, b" icmp_req")) & (L.byte(e0 - 10) == COLON)
    ok &= L.equals(e1 - 4, b" ttl") & L.equals(e2 - 5, b" time") & L.equals(e - 3, b" ms")
    # optional [epoch] stamp (ping -D)
    stamped = L.byte(s) == LBRACK
    rb = L.scan_fwd(s + 1, e, b"0123456789.", limit=24)
    ok &= ~stamped | ((L.byte(rb) == RBRACK) & (L.byte(rb + 1) == SPACE))
    ts, okt = parse_float(L, s + 1, rb)
    ok &= ~stamped | okt
    body = np.where(stamped, rb + 2, s)
    nb_end = L.scan_fwd(body, e, b"0123456789", limit=8)
    ok &= L.equals(nb_end, b" bytes from ")
    nbytes, okb = parse_uint(L, body, nb_end)
    host0, host1 = nb_end + 12, e0 - 10
    ok &= okb & (host1 > host0)
    seq, ok0 = parse_uint(L, e0 + 1, e1 - 4)
    ttl, ok1 = parse_uint(L, e1 + 1, e2 - 5)
    rtt, ok2 = parse_float(L, e2 + 1, e - 3)
    ok &= ok0 & ok1 & ok2
    good = np.flatnonzero(ok)
    if not len(good):
        return good, {}
    cols = {
        "time_s": np.where(stamped, ts, np.nan)[good],
        "seq": seq[good].astype(np.float64),
        "rtt_s": rtt[good] * 1e-3,
        "ttl": ttl[good].astype(np.float64),
        "bytes": nbytes[good].astype(np.float64),
        "src": span_codes(L, host0[good], host1[good], table),
        "dup": np.zeros(len(good), dtype=bool),
    }
    return rows[good], cols


def _chunk(L: Lines) -> dict:
    table: dict[str, int] = {}
    out = {"parts": [], "bad": [], "table": table, "first": None, "events": []}
    rows = np.flatnonzero(L.ends > L.starts)
    if not len(rows):
        return out
    out["first"] = (int(L.numbers[rows[0]]), L.text([rows[0]])[0])
    got, cols = _fast(L, rows, table)
    if len(got):
        out["parts"].append((L.numbers[got], cols))
        rows = np.setdiff1d(rows, got, assume_unique=True)
    slow = {c: [] for c in _COLS}
    slow_lines = []
    for r, text in zip(rows, L.text(rows)):
        line_no = int(L.numbers[r])
        line = text.strip()
        m = _REPLY.match(line)
        if m:
            slow_lines.append(line_no)
            slow["time_s"].append(float(m["ts"]) if m["ts"] else np.nan)
            slow["seq"].append(float(m["seq"]))
            slow["rtt_s"].append(float(m["rtt"]) * 1e-3)
            slow["ttl"].append(float(m["ttl"]))
            slow["bytes"].append(float(m["bytes"]))
            slow["src"].append(table.setdefault(m["host"], len(table)))
            slow["dup"].append("DUP!" in m["rest"])
            continue
        for kind, rx in (("stats", _STATS), ("rtt", _RTT), ("header", _HEADER), ("title", _TITLE), ("error", _ERROR)):
            m = rx.match(line)
            if m:
                out["events"].append((line_no, kind, m, line))
                break
        else:
            out["bad"].append((line_no, text))
    if slow_lines:
        cols = {c: np.asarray(v, dtype=np.int32 if c == "src" else bool if c == "dup" else np.float64)
                for c, v in slow.items()}
        out["parts"].append((np.asarray(slow_lines, np.int64), cols))
    return out


def read_ping(path) -> pd.DataFrame:
    """Read the replies and the summary printed by ``ping``.

    Accepted reply lines (iputils; BSD/macOS and BusyBox print the same shape)::

        64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=4.04 ms
        [1700000000.123456] 64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=0.055 ms   (ping -D)
        64 bytes from 10.0.0.2: icmp_req=3 ttl=64 time=152 ms                        (iputils before 2013)
        64 bytes from host.example (10.0.0.2): icmp_seq=4 ttl=64 time=3.1 ms (DUP!)
        64 bytes from ::1: icmp_seq=5 ttl=64 time=0.030 ms                             (IPv6)
        16 bytes from ::1, icmp_seq=6 hlim=64 time=0.045 ms                           (BSD/macOS ping6)

    The time may have any precision (``245``, ``4.04``, ``0.055``). The header
    (``PING ...``), the statistics block (``N packets transmitted, M received, x% packet
    loss, time Tms`` and ``rtt min/avg/max/mdev = a/b/c/d ms``), error lines (``From ...
    Destination Host Unreachable``, ``no answer yet for icmp_seq=N``, ``Request timeout``)
    are recognised; anything else (such as the interleaved output of two ping processes
    writing to the same file) is skipped and counted as malformed.

    Parameters
    ----------
    path : str, path-like, file object or text
        The ping output (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        One row per reply: ``time_s`` [s] (Unix time from ``-D``, NaN without it), ``seq``,
        ``rtt_s`` [s], ``ttl``, ``bytes`` [bytes] (ICMP size printed), ``src`` (the replying
        host), ``dup`` (duplicate reply). ``attrs["summary"]`` holds the statistics when
        present: ``transmitted``, ``received``, ``loss`` [fraction], ``duplicates``,
        ``errors``, ``time_s`` [s], ``rtt_min_s``, ``rtt_avg_s``, ``rtt_max_s``,
        ``rtt_mdev_s`` [s]; ``attrs["target"]`` the pinged host, ``attrs["errors"]`` the
        number of error lines, ``attrs["malformed"]`` the skipped lines.

    Raises
    ------
    MeasurementFormatError
        When nothing in the source looks like ping output.

    Warns
    -----
    MalformedLinesWarning
        When some lines were skipped.

    Notes
    -----
    Lost probes are the sequence numbers missing from ``seq``; the loss of the whole run is
    ``attrs["summary"]["loss"]`` when ping printed its statistics (it does not when killed).

    References
    ----------
    .. [1] ``ping(8)``, iputils (https://github.com/iputils/iputils), ``ping/ping_common.c``.

    Examples
    --------
    >>> text = '''PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.
    ... 64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=4.04 ms
    ... 64 bytes from 10.0.0.2: icmp_seq=3 ttl=64 time=245 ms
    ...
    ... --- 10.0.0.2 ping statistics ---
    ... 3 packets transmitted, 2 received, 33.3333% packet loss, time 2003ms
    ... rtt min/avg/max/mdev = 4.040/124.520/245.000/120.480 ms
    ... '''
    >>> df = read_ping(text)
    >>> df[["seq", "rtt_s", "ttl"]]
       seq  rtt_s  ttl
    0    1  0.00404   64
    1    3  0.24500   64
    >>> round(df.attrs["summary"]["loss"], 4), df.attrs["summary"]["rtt_avg_s"]
    (0.3333, 0.12452)
    """
    name = source_name(path)
    rep = Report(name, FORMAT, EXPECTED)
    table: dict[str, int] = {}
    parts_lines, parts_cols = [], []
    events = []
    for offset, res in map_chunks(path, _chunk):
        remap = np.empty(len(res["table"]), dtype=np.int32)
        for s_, code in res["table"].items():
            remap[code] = table.setdefault(s_, len(table))
        for lines, cols in res["parts"]:
            cols["src"] = remap[cols["src"]] if len(cols["src"]) else cols["src"]
            parts_lines.append(lines + offset)
            parts_cols.append(cols)
        if res["bad"]:
            rep.bad_many([ln + offset for ln, _ in res["bad"]], [t for _, t in res["bad"]])
        if res["first"] is not None:
            rep.content(res["first"][0] + offset, res["first"][1])
        events.extend((ln + offset, kind, m, line) for ln, kind, m, line in res["events"])
    n = sum(len(x) for x in parts_lines)
    rep.ok(n + len(events))
    rep.require_something()
    line_no = np.concatenate(parts_lines) if parts_lines else np.zeros(0, np.int64)
    order = np.argsort(line_no, kind="stable") if len(line_no) > 1 and np.any(np.diff(line_no) < 0) else None
    data = {}
    for c in _COLS:
        v = np.concatenate([p[c] for p in parts_cols]) if parts_cols else np.zeros(0)
        data[c] = v[order] if order is not None else v
    (src,) = categoricals([data["src"].astype(np.int64)], table)
    frame = {
        "time_s": data["time_s"].astype(np.float64),
        "seq": data["seq"].astype(np.int64),
        "rtt_s": data["rtt_s"].astype(np.float64),
        "ttl": data["ttl"].astype(np.int64),
        "bytes": data["bytes"].astype(np.int64),
        "src": src,
        "dup": data["dup"].astype(bool),
    }
    df = pd.DataFrame(frame, copy=False)
    extra = {"errors": 0}
    summary = {}
    for _, kind, m, line in events:
        if kind == "header":
            # "PING host (addr) ...", and IPv6 "PING ::1(::1) 56 data bytes" (older iputils)
            parts = line.split()
            target = parts[-1] if "-->" in line else parts[1] if len(parts) > 1 else None  # BSD "PING6(...) a --> b"
            if target and "(" in target[1:]:
                target = target[: target.index("(", 1)]
            extra["target"] = target
        elif kind == "error":
            extra["errors"] += 1
        elif kind == "stats":
            summary["transmitted"] = int(m["tx"])
            summary["received"] = int(m["rx"])
            summary["duplicates"] = int(m["dup"] or 0)
            summary["errors"] = int(m["err"] or 0)
            tx = summary["transmitted"]
            summary["loss"] = (float(m["loss"]) / 100.0) if m["loss"] else ((tx - summary["received"]) / tx if tx else float("nan"))
            summary["time_s"] = float(m["time"]) * 1e-3 if m["time"] else float("nan")
        elif kind == "rtt":
            vals = [float(v) * 1e-3 for v in m["vals"].split("/") if v]
            for key, v in zip(("rtt_min_s", "rtt_avg_s", "rtt_max_s", "rtt_mdev_s"), vals):
                summary[key] = v
    if summary:
        extra["summary"] = summary
    return rep.finish(df, extra)
