"""Shared parts of the iperf 2 and iperf3 readers: report-line patterns, unit factors and
the assembly of rows into a frame (see :mod:`labcalc.measure.iperf2` and :mod:`labcalc.measure.iperf3`)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from ._common import BIN, DEC
from ._vector import LBRACK, LPAREN, MINUS, RBRACK, SLASH, SPACE, TAB, Lines, parse_decimal, parse_uint

FORMAT2 = "iperf"
EXPECTED2 = (
    "iperf 2 output: report lines '[ ID] <t0>-<t1> sec <n> <K|M|G>Bytes <r> <k|M|G>bits/sec [...]' "
    "or the CSV of 'iperf -y C'"
)
FORMAT3 = "iperf3"
EXPECTED3 = (
    "iperf3 output: text report lines '[ ID] <t0>-<t1> sec <n> <K|M|G>Bytes <r> <K|M|G>bits/sec [...]' "
    "or the JSON document of 'iperf3 --json'"
)

_NUM = r"\d+(?:\.\d+)?"
# "[  3]", "[SUM]", "[SUM-4]", "[  5][TX-C]", "[ *1]" followed by the interval
REPORT = re.compile(
    r"\[\s*(?P<star>\*)?(?P<id>\d+|SUM(?:-\d+)?)\](?:\[(?P<dir>[A-Z]{2}-[A-Z])\])?\s+"
    rf"(?P<t0>{_NUM})\s*-\s*(?P<t1>{_NUM})\s+sec\s+"
    rf"(?P<xfer>{_NUM})\s+(?P<xu>[KMGTkmgt]?)Bytes\s+(?P<rate>{_NUM})\s+(?P<ru>[KMGTkmgt]?)(?P<rk>bits|Bytes)/sec"
    r"(?P<rest>.*)$"
)
LOOKS_LIKE_REPORT = re.compile(r"\[\s*\*?(?:\d+|SUM(?:-\d+)?)\](?:\[[A-Z-]+\])?\s+\d+(?:\.\d+)?\s*-\s*\d")
# an iperf3 stream line damaged before its interval (a NUL byte, a flipped digit): reported, not dropped
DAMAGED_REPORT3 = re.compile(r"\[\s*(?:\d+|SUM)\](?:\[[A-Z-]+\])?\s.*\b(?:sec|[KMGT]?Bytes|bits/sec)\b")
# "[  3] local ...", and "[ *2] local ..." for the reverse client thread of an iperf 2.1 server (-d / -r)
CONNECTED = re.compile(
    r"\[\s*(?P<star>\*)?(?P<id>\d+)\]\s+local\s+(?P<lip>\S+?)\s+port\s+(?P<lport>\d{1,5})\s+connected\s+(?:with|to)\s+"
    r"(?P<rip>\S+?)\s+port\s+(?P<rport>\d{1,5})(?!\d)"
)
UDP_TAIL = re.compile(
    rf"^\s*(?P<jitter>{_NUM})\s*ms\s+(?P<lost>-?\d+)\s*/\s*(?P<total>\d+)\s*(?:\((?P<pct>[-+\d.e]+|nan|-?nan)%\))?(?P<tail>.*)$"
)
# The TCP client columns of iperf 2 -e, in every layout of src/ReportOutputs.c (2.0.10 to 2.2):
#   Write/Err Rtry Cwnd/RTT(var) NetPwr                           "18/0  0  260K/166295(24066) us  14.19"
#   Write/Err Rtry Cwnd(pkts)/RTT(var) NetPwr                     "899/0  12  369K(261)/2932(85) us  40168"
#   Write/Err Rtry InF(pkts)/Cwnd(pkts)/RTT(var) NetPwr  (2.1.9+) "899/0  12  356K(252)/369K(261)/2932(85) us  40168"
#   Wait Write/Err Rtry InF/Cwnd/RTT(var) fq-rate NetPwr          "15.147 ms  99/0  0  190K(135)/207K(147)/403(25) us  100 Mbit/sec 31874"
#   Write/Err Rtry NA/RTT(var) (no tcpi_snd_cwnd)                 "899/0  12  NA/2932(85) us  40168"
# K is 1024 bytes: iperf prints tcpi_snd_cwnd * tcpi_snd_mss / 1024 (src/tcp_window.c, gettcpinfo).
# Hand-written regex: the columns are space-separated but their count and slashes vary by version.
TCP_E_TAIL = re.compile(
    rf"^\s*(?:(?P<wait>{_NUM})\s*ms\s+)?(?P<writes>\d+)/(?P<werr>\d+)\s+(?:(?P<rtry>\d+)\s+)?"
    r"(?:(?P<inf>-?\d+)(?P<iu>[KMG]?)\((?P<infp>-?\d+)\)/)?"
    r"(?:(?P<cwnd>-?\d+)(?P<cu>[KMG]?)(?:\((?P<cwndp>-?\d+)\))?|NA)"
    r"/(?P<rtt>\d+(?:\.\d+)?)(?:\((?P<rttvar>\d+(?:\.\d+)?)\))?\s*(?P<rttu>us|ms)"
    rf"(?:\s+(?P<fq>{_NUM})\s*(?P<fqu>[KMGkmg]?)bits?/sec)?(?:\s+(?P<netpwr>\S+))?"
)
# the shorter -e tails of iperf 2 (src/Locale.c): a UDP client's Write/Err PPS ("891/0      893 pps"),
# the [SUM] of TCP clients' Write/Err Rtry ("13209/0        16", no cwnd/RTT), a server's Reads=Dist
E_WRITES_PPS = re.compile(rf"^\s*(?P<writes>\d+)/(?P<werr>\d+)\s+{_NUM}\s*pps\s*$")
E_WRITES_RTRY = re.compile(r"^\s*(?P<writes>\d+)/(?P<werr>\d+)(?:\s+(?P<rtry>\d+))?\s*$")
E_READS = re.compile(r"^\s*(?P<reads>\d+)=\d+(?::\d+)+\s*$")
# informational lines that look like reports: out-of-order counts, trip times, L2 errors
OUT_OF_ORDER = re.compile(
    r"\[\s*\*?(?P<id>\d+|SUM(?:-\d+)?)\](?:\[[A-Z]{2}-[A-Z]\])?\s+"
    rf"(?P<t0>{_NUM})\s*-\s*(?P<t1>{_NUM})\s+sec\s+(?P<n>\d+)\s+datagrams\s+received\s+out-of-order"
)
INFORMATIONAL = re.compile(r"sec\s+(?:trip-time|L2 processing|Clock sync error|OWD)")
LISTEN2 = re.compile(r"^Server listening on (?:TCP|UDP)(?: \(v6\))? port (?P<port>\d{1,5})(?!\d)")  # <= 5 digits
CONNECT2 = re.compile(r"^Client connecting to \S+?,? (?:TCP|UDP) port (?P<port>\d{1,5})(?!\d)")
IPERF3_TCP_TAIL = re.compile(rf"^\s*(?P<retr>\d+)(?:\s+(?P<cwnd>{_NUM})\s+(?P<cu>[KMGT]?)Bytes)?(?P<tail>.*)$")
_IPERF3_UDP_CLIENT_TAIL = re.compile(r"^\s*(?P<total>\d+)\s*(?P<tail>.*)$")
ROLE = re.compile(r"\b(sender|receiver)\s*$")


def amount_bytes(value: str, prefix: str) -> float:
    return float(value) * BIN[prefix]


def _bps(value: str, prefix: str, kind: str = "bits") -> float:
    """A rate column in bit/s: ``Kbits/sec`` counts K as 1000; ``KBytes/sec`` (``-f K``,
    ``-f M``) counts bytes with K as 1024 (iperf 2 src/stdio.c, iperf3 src/units.c)."""
    if kind == "Bytes":
        return float(value) * BIN[prefix] * 8.0
    return float(value) * DEC[prefix]


# --------------------------------------------------------------------------------------
# shared assembly


CORE = ["stream", "start_s", "end_s", "time_s", "bytes", "rate_bps"]
OPTIONAL = [
    "retransmits", "cwnd_bytes", "cwnd_segments", "inflight_bytes", "inflight_segments", "rtt_s", "rttvar_s",
    "writes", "write_errors", "reads", "packets", "lost_packets", "loss", "jitter_s", "out_of_order", "omitted",
    "direction", "connection", "src", "dst", "printed_by", "timestamp",
]


def build_frame(rows: list[dict]) -> pd.DataFrame:
    cols = list(CORE)
    for c in OPTIONAL:
        if any(r.get(c) is not None for r in rows):
            cols.append(c)
    data = {c: [r.get(c) for r in rows] for c in cols}
    return _typed(pd.DataFrame(data, columns=cols))


STR_COLUMNS = ("stream", "src", "dst", "printed_by", "direction", "timestamp")
_INT_COLUMNS = ("retransmits", "packets", "lost_packets", "cwnd_segments", "inflight_segments", "out_of_order")


def _typed(df: pd.DataFrame) -> pd.DataFrame:
    """The column types of every iperf frame (strings, ``omitted`` bool, floats, counts int64 when complete)."""
    for c in df.columns:
        if c in STR_COLUMNS:
            df[c] = df[c].astype("str")
        elif c == "omitted":
            df[c] = df[c].fillna(False).astype(bool)
        elif c == "connection":
            df[c] = df[c].astype("Int64")
        else:
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    for c in _INT_COLUMNS:
        if c in df and np.isfinite(df[c]).all():
            df[c] = df[c].astype(np.int64)
    return df


def frame_columns(data: dict, present: set) -> pd.DataFrame:
    """:func:`build_frame` from whole columns: object arrays (None where missing) for the string
    columns, float arrays (NaN where missing) or bool for the others; *present* names the
    optional columns that some row holds (a row with a NaN loss holds ``loss``)."""
    cols = list(CORE) + [c for c in OPTIONAL if c in present]
    return _typed(pd.DataFrame({c: data[c] for c in cols}, columns=cols, copy=False))


_FINITE = ("start_s", "end_s", "bytes", "rate_bps")
LETTER_NE = re.compile(r"[nNeE]")


def bad_numbers(row: dict) -> bool:
    """True when a row holds a number no iperf prints: an infinite value (a 400-digit field
    read as float) anywhere, or a NaN in the interval, byte count or rate."""
    for k, v in row.items():
        if isinstance(v, float) and (math.isinf(v) or (k in _FINITE and math.isnan(v))):
            return True
    return False


def clean_summary(row: dict) -> dict:
    """*row* without its None and NaN values (*row* itself when it holds none: no copy).

    Examples
    --------
    >>> clean_summary({"stream": "3", "rtt_s": float("nan"), "src": None, "bytes": 1.0})
    {'stream': '3', 'bytes': 1.0}
    """
    for v in row.values():
        if v is None or (isinstance(v, float) and v != v):
            return {k: v for k, v in row.items() if v is not None and not (isinstance(v, float) and np.isnan(v))}
    return row


# --------------------------------------------------------------------------------------
# one report line (both tools)


def parse_report(m: re.Match) -> dict:
    row = {
        "stream": m["id"],
        "start_s": float(m["t0"]),
        "end_s": float(m["t1"]),
        "bytes": amount_bytes(m["xfer"], m["xu"]),
        "rate_bps": _bps(m["rate"], m["ru"], m["rk"]),
    }
    row["time_s"] = row["end_s"]
    if m["dir"]:
        row["direction"] = m["dir"]
    return row


def write_columns(row: dict, m: re.Match) -> None:
    """Writes, write errors and (when printed) retries of an -e ``Write/Err Rtry`` tail."""
    row["writes"] = float(m["writes"])
    row["write_errors"] = float(m["werr"])
    if m.groupdict().get("rtry") is not None:
        row["retransmits"] = float(m["rtry"])


def udp_columns(row: dict, mu: re.Match) -> None:
    """Jitter [s], lost and total datagrams and the loss fraction of a UDP report tail."""
    row["jitter_s"] = float(mu["jitter"]) * 1e-3
    row["lost_packets"] = float(mu["lost"])
    row["packets"] = float(mu["total"])
    row["loss"] = row["lost_packets"] / row["packets"] if row["packets"] else np.nan


# --------------------------------------------------------------------------------------
# interval lines read in bulk (numpy), for the fast paths of both readers

_KMGT = np.zeros(256, dtype=bool)  # the unit prefixes of a transfer and a rate
_KMGT_UPPER = np.zeros(256, dtype=bool)  # of a window
for _c in b"KMGTkmgt":
    _KMGT[_c] = True
    _KMGT_UPPER[_c] = chr(_c).isupper()


def interval_lines(L: Lines, lead: bool = False):
    """The regular interval lines of a block, read in bulk: ``[ ID] t0-t1 sec X [KMGT]Bytes
    R [KMGT]bits/sec`` with nothing more, a retransmit count, a count and a window, or a
    UDP receiver's ``J ms L/T (P%)``; the ID a number or SUM; with *lead*, blanks before
    the ``[`` (iperf 2). Returns (rows, columns) with the numbers of the rows read (the
    ``kind`` of tail, the units' letters, the ID's span); direction tags, ``(omitted)``,
    numbers longer than the patterns' and anything else are left to the patterns, whose
    limits these are (12 digits, 9 after the point).

    Hand-written on numpy: a pattern's match objects cost more than the rest of a reader.
    """
    starts = L.skip(L.starts, L.ends) if lead else L.starts
    rows = np.flatnonzero((L.ends > starts) & (L.byte(starts) == LBRACK))
    if not len(rows):
        return rows, {}
    s, e = starts[rows], L.ends[rows]
    first, count = L.runs_in(rows)
    p = L.skip(s + 1, e)
    is_sum = L.equals(p, b"SUM]")
    o = np.where(is_sum, 0, 1)  # the ID is the first number run unless it is SUM
    i0, i1 = L.run(first)
    _, id_ok = parse_uint(L, i0, i1)
    ok = is_sum | ((i0 == p) & (L.byte(L.skip(i1, e)) == RBRACK) & id_ok & (i1 - i0 <= 9))
    sid_start, sid_end = np.where(is_sum, p, i0), np.where(is_sum, p + 3, i1)
    after_id = np.where(is_sum, p + 4, L.skip(i1, e) + 1)
    a0, a1 = L.run(first + o)
    ok &= (L.byte(after_id) == SPACE) | (L.byte(after_id) == TAB)
    ok &= a0 == L.skip(after_id, e)
    b0, b1 = L.run(first + o + 1)
    dash = L.skip(a1, e)
    ok &= (L.byte(dash) == MINUS) & (b0 == L.skip(dash + 1, e))
    sec = L.skip(b1, e)
    ok &= L.equals(sec, b"sec") & ((L.byte(sec + 3) == SPACE) | (L.byte(sec + 3) == TAB))
    x0, x1 = L.run(first + o + 2)
    ok &= x0 == L.skip(sec + 3, e)
    xu_at = L.skip(x1, e)
    xu = np.where(_KMGT[L.byte(xu_at)], L.byte(xu_at), 0)
    xb = xu_at + (xu > 0)
    ok &= L.equals(xb, b"Bytes") & (xu_at > x1)
    r0, r1 = L.run(first + o + 3)
    ok &= (r0 == L.skip(xb + 5, e)) & (r0 > xb + 5)
    ru_at = L.skip(r1, e)
    ru = np.where(_KMGT[L.byte(ru_at)], L.byte(ru_at), 0)
    rb = ru_at + (ru > 0)
    ok &= L.equals(rb, b"bits/sec") & (ru_at > r1)
    tail = rb + 8
    # the tail: kind 0 nothing, 1 a count, 2 a count and a window, 3 jitter ms lost/total (pct%)
    n_after = count - (o + 4)
    c0, c1 = L.run(first + o + 4)
    c_next = L.skip(c1, e)
    d0, d1 = L.run(first + o + 5)
    d_next = L.skip(d1, e)
    kind = np.full(len(rows), -1, dtype=np.int8)
    kind[(n_after == 0) & (tail == e)] = 0
    starts_count = (c0 == L.skip(tail, e)) & (c0 > tail)
    kind[(n_after == 1) & starts_count & (c_next == e)] = 1
    cu = np.where(_KMGT_UPPER[L.byte(d_next)], L.byte(d_next), 0)
    cwnd_bytes_at = d_next + (cu > 0)
    kind[(n_after == 2) & starts_count & (d0 == c_next) & L.equals(cwnd_bytes_at, b"Bytes")
         & (cwnd_bytes_at + 5 == e) & (d_next > d1)] = 2
    # UDP receiver: "J ms L/T" and an optional " (P%)"
    slash = L.skip(d1, e)
    t0_, t1_ = L.run(first + o + 6)
    after_tot = L.skip(t1_, e)
    ms = L.equals(c_next, b"ms") & (d0 == L.skip(c_next + 2, e)) & (d0 > c_next + 2)
    udp = starts_count & ms & (L.byte(slash) == SLASH) & (t0_ == L.skip(slash + 1, e))
    p0, p1 = L.run(first + o + 7)
    pct_ok = (L.byte(after_tot) == LPAREN) & (p0 == after_tot + 1) & L.equals(p1, b"%)") & (p1 + 2 == e)
    kind[udp & (((n_after == 3) & (t1_ == e)) | ((n_after == 4) & pct_ok))] = 3
    ok &= kind >= 0
    good = np.flatnonzero(ok)
    if not len(good):
        return good, {}
    k = kind[good]

    def num(a, b, where=None):  # the pattern's numbers: 12 digits, 9 after the point
        v, okv = parse_decimal(L, a[good], b[good], max_int=12, max_frac=9)
        return v, okv if where is None else (okv | ~where)

    def count_of(a, b):  # the pattern's counts: 12 digits
        v, okv = parse_uint(L, a[good], b[good])
        return v, okv & (b[good] - a[good] <= 12)

    t0v, ok0 = num(a0, a1)
    t1v, ok1 = num(b0, b1)
    xv, okx = num(x0, x1)
    rv, okr = num(r0, r1)
    cnt, okc = count_of(c0, c1)
    okc |= (k == 0) | (k == 3)
    cw, okw = num(d0, d1, k == 2)
    jit, okj = num(c0, c1, k == 3)
    lost, okl = count_of(d0, d1)
    tot, okt = count_of(t0_, t1_)
    okl |= k != 3
    okt |= k != 3
    valid = ok0 & ok1 & okx & okr & okc & okw & okj & okl & okt
    good, k = good[valid], k[valid]
    sel = np.flatnonzero(valid)
    cols = {
        "sid_start": sid_start[good], "sid_end": sid_end[good], "t0": t0v[sel], "t1": t1v[sel],
        "xfer": xv[sel], "xu": xu[good], "rate": rv[sel], "ru": ru[good], "kind": k,
        "count": cnt[sel].astype(np.float64), "cwnd": cw[sel], "cu": cu[good], "jitter": jit[sel],
        "lost": lost[sel].astype(np.float64), "total": tot[sel].astype(np.float64),
    }
    return rows[good], cols
