"""Readers of iperf 2 and iperf3 reports (text, iperf 2 CSV, iperf3 JSON)."""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._common import (
    BIN, DEC, MeasurementFormatError, Report, ToolErrorWarning, check_json_depth, iter_lines, json_unclosed,
    open_text,
)

__all__ = ["read_iperf", "read_iperf3"]

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
_REPORT = re.compile(
    r"\[\s*(?P<star>\*)?(?P<id>\d+|SUM(?:-\d+)?)\](?:\[(?P<dir>[A-Z]{2}-[A-Z])\])?\s+"
    rf"(?P<t0>{_NUM})\s*-\s*(?P<t1>{_NUM})\s+sec\s+"
    rf"(?P<xfer>{_NUM})\s+(?P<xu>[KMGTkmgt]?)Bytes\s+(?P<rate>{_NUM})\s+(?P<ru>[KMGTkmgt]?)bits/sec(?P<rest>.*)$"
)
_LOOKS_LIKE_REPORT = re.compile(r"\[\s*\*?(?:\d+|SUM(?:-\d+)?)\](?:\[[A-Z-]+\])?\s+\d+(?:\.\d+)?\s*-\s*\d")
# an iperf3 stream line damaged before its interval (a NUL byte, a flipped digit): reported, not dropped
_DAMAGED_REPORT3 = re.compile(r"\[\s*(?:\d+|SUM)\](?:\[[A-Z-]+\])?\s.*\b(?:sec|[KMGT]?Bytes|bits/sec)\b")
# "[  3] local ...", and "[ *2] local ..." for the reverse client thread of an iperf 2.1 server (-d / -r)
_CONNECTED = re.compile(
    r"\[\s*(?P<star>\*)?(?P<id>\d+)\]\s+local\s+(?P<lip>\S+?)\s+port\s+(?P<lport>\d+)\s+connected\s+(?:with|to)\s+"
    r"(?P<rip>\S+?)\s+port\s+(?P<rport>\d+)"
)
_UDP_TAIL = re.compile(
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
_TCP_E_TAIL = re.compile(
    rf"^\s*(?:(?P<wait>{_NUM})\s*ms\s+)?(?P<writes>\d+)/(?P<werr>\d+)\s+(?:(?P<rtry>\d+)\s+)?"
    r"(?:(?P<inf>-?\d+)(?P<iu>[KMG]?)\((?P<infp>-?\d+)\)/)?"
    r"(?:(?P<cwnd>-?\d+)(?P<cu>[KMG]?)(?:\((?P<cwndp>-?\d+)\))?|NA)"
    r"/(?P<rtt>\d+(?:\.\d+)?)(?:\((?P<rttvar>\d+(?:\.\d+)?)\))?\s*(?P<rttu>us|ms)"
    rf"(?:\s+(?P<fq>{_NUM})\s*(?P<fqu>[KMGkmg]?)bits?/sec)?(?:\s+(?P<netpwr>\S+))?"
)
# the shorter -e tails of iperf 2 (src/Locale.c): a UDP client's Write/Err PPS ("891/0      893 pps"),
# the [SUM] of TCP clients' Write/Err Rtry ("13209/0        16", no cwnd/RTT), a server's Reads=Dist
_E_WRITES_PPS = re.compile(rf"^\s*(?P<writes>\d+)/(?P<werr>\d+)\s+{_NUM}\s*pps\s*$")
_E_WRITES_RTRY = re.compile(r"^\s*(?P<writes>\d+)/(?P<werr>\d+)(?:\s+(?P<rtry>\d+))?\s*$")
_E_READS = re.compile(r"^\s*(?P<reads>\d+)=\d+(?::\d+)+\s*$")
# informational lines that look like reports: out-of-order counts, trip times, L2 errors
_OUT_OF_ORDER = re.compile(
    r"\[\s*\*?(?P<id>\d+|SUM(?:-\d+)?)\](?:\[[A-Z]{2}-[A-Z]\])?\s+"
    rf"(?P<t0>{_NUM})\s*-\s*(?P<t1>{_NUM})\s+sec\s+(?P<n>\d+)\s+datagrams\s+received\s+out-of-order"
)
_INFORMATIONAL = re.compile(r"sec\s+(?:trip-time|L2 processing|Clock sync error|OWD)")
_LISTEN2 = re.compile(r"^Server listening on (?:TCP|UDP)(?: \(v6\))? port (?P<port>\d+)")
_CONNECT2 = re.compile(r"^Client connecting to \S+?,? (?:TCP|UDP) port \d+")
_IPERF3_TCP_TAIL = re.compile(rf"^\s*(?P<retr>\d+)(?:\s+(?P<cwnd>{_NUM})\s+(?P<cu>[KMGT]?)Bytes)?(?P<tail>.*)$")
_IPERF3_UDP_CLIENT_TAIL = re.compile(r"^\s*(?P<total>\d+)\s*(?P<tail>.*)$")
_ROLE = re.compile(r"\b(sender|receiver)\s*$")


def _bytes(value: str, prefix: str) -> float:
    return float(value) * BIN[prefix]


def _bps(value: str, prefix: str) -> float:
    return float(value) * DEC[prefix]


# --------------------------------------------------------------------------------------
# shared assembly


_CORE = ["stream", "start_s", "end_s", "time_s", "bytes", "rate_bps"]
_OPTIONAL = [
    "retransmits", "cwnd_bytes", "cwnd_segments", "inflight_bytes", "inflight_segments", "rtt_s", "rttvar_s",
    "writes", "write_errors", "reads", "packets", "lost_packets", "loss", "jitter_s", "out_of_order", "omitted",
    "direction", "connection", "src", "dst", "timestamp",
]


def _frame(rows: list[dict]) -> pd.DataFrame:
    cols = list(_CORE)
    for c in _OPTIONAL:
        if any(r.get(c) is not None for r in rows):
            cols.append(c)
    data = {c: [r.get(c) for r in rows] for c in cols}
    df = pd.DataFrame(data, columns=cols)
    for c in cols:
        if c in ("stream", "src", "dst", "direction", "timestamp"):
            df[c] = df[c].astype("str")
        elif c == "omitted":
            df[c] = df[c].fillna(False).astype(bool)
        elif c == "connection":
            df[c] = df[c].astype("Int64")
        else:
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    for c in ("retransmits", "packets", "lost_packets", "cwnd_segments", "inflight_segments", "out_of_order"):
        if c in df and np.isfinite(df[c]).all():
            df[c] = df[c].astype(np.int64)
    return df


_FINITE = ("start_s", "end_s", "bytes", "rate_bps")
_LETTER_NE = re.compile(r"[nNeE]")


def _bad_numbers(row: dict) -> bool:
    """True when a row holds a number no iperf prints: an infinite value (a 400-digit field
    read as float) anywhere, or a NaN in the interval, byte count or rate."""
    for k, v in row.items():
        if isinstance(v, float) and (math.isinf(v) or (k in _FINITE and math.isnan(v))):
            return True
    return False


def _clean_summary(row: dict) -> dict:
    return {k: v for k, v in row.items() if v is not None and not (isinstance(v, float) and np.isnan(v))}


# --------------------------------------------------------------------------------------
# iperf 2


def _parse_report(m: re.Match) -> dict:
    row = {
        "stream": m["id"],
        "start_s": float(m["t0"]),
        "end_s": float(m["t1"]),
        "bytes": _bytes(m["xfer"], m["xu"]),
        "rate_bps": _bps(m["rate"], m["ru"]),
    }
    row["time_s"] = row["end_s"]
    if m["dir"]:
        row["direction"] = m["dir"]
    return row


# iperf 2 CSV (-y C). Every line is split by hand rather than with pandas.read_csv: one file
# mixes line lengths (the 9-field intervals of a UDP client and its 14-field server report).
#
# legacy (2.0.x and 2.1 without -e):
#   time,ip_a,port_a,ip_b,port_b,id,t0-t1,bytes,bits_per_second[,jitter_ms,lost,total,loss%,out_of_order]
# enhanced (2.1+ with -e, src/Locale.c reportCSV_*): a header line 'time,srcaddress,srcport,...'
#   then istart and iend in two fields and tool-specific columns named by the header.
# iperf 2.2 may put the UTC offset before the time ("+0000:20250605191028.955").
#
# Which address comes first (see _csv_orientation): 2.0.x prints its own socket first
# (src/ReportCSV.c, CSV_peer: local, then peer); 2.1+ prints the client's socket first on
# both sides (src/ReportOutputs.c, format_ips_ports_string swaps local and peer when
# ThreadMode == kMode_Server).
_CSV2_TIME = r"^(?:[+-]\d{4}:)?\d{14}(?:\.\d+)?,"
_CSV2 = re.compile(_CSV2_TIME + r"[^,]*,\d*,[^,]*,\d*,-?\d+,\d+(?:\.\d+)?-\d+(?:\.\d+)?,")
_CSV2_ENHANCED = re.compile(_CSV2_TIME + r"[^,]*,\d*,[^,]*,\d*,-?\d+,\d+(?:\.\d+)?,\d+(?:\.\d+)?,-?\d+,")
_CSV2_HEADER = re.compile(r"^time,srcaddress,srcport,dstadd?r(?:ess)?,dstport,transferid,istart,iend,bytes,speed\b")
_CSV2_ENHANCED_COMMON = ["time", "srcaddress", "srcport", "dstaddr", "dstport", "transferid", "istart", "iend",
                         "bytes", "speed"]
# enhanced CSV column -> (our column, factor); the cwnd is in KBytes (tcpi_snd_cwnd * mss / 1024)
_CSV2_COLUMNS = {
    "writecnt": ("writes", 1.0), "writeerr": ("write_errors", 1.0), "tcpretry": ("retransmits", 1.0),
    "tcpcwnd": ("cwnd_bytes", 1024.0), "tcppcwnd": ("cwnd_segments", 1.0), "tcprtt": ("rtt_s", 1e-6),
    "tcprttvar": ("rttvar_s", 1e-6), "jitter": ("jitter_s", 1e-3), "errors": ("lost_packets", 1.0),
    "datagrams": ("packets", 1.0), "outoforder": ("out_of_order", 1.0), "readcnt": ("reads", 1.0),
}
# "not available" in a CSV count: -1, or -1 printed unsigned (2.2: tcpretry 4294967295)
_CSV2_MISSING = ("", "-1", "4294967295")


def _csv_count(value: str) -> float:
    """A count of the legacy UDP columns; NaN for iperf's -1 ("not known", e.g. a 2.1 client's total)."""
    v = float(value)
    return v if v >= 0 else np.nan


def _csv_orientation(rows: list[dict], header) -> tuple[str, dict]:
    """Which end of every connection is the listener, and which side printed the CSV.

    Returns ``(side, listener_first)``: *listener_first* maps each connection
    ``(ip_a, port_a, ip_b, port_b)`` to True when its first address is the listener's
    (the server's socket, which accepted the connection).

    The listener is the end shared by several connections (every stream of ``-P`` and
    every test of a server log connects to it), else the end with the lower port (the
    listening port, 5001 by default, is below the ephemeral ports: 32768 and up on Linux,
    49152 and up on Windows and macOS). The side then follows from the header of ``-e``
    (``readcnt``: server, ``writecnt``: client), or from the position of the listener:
    only iperf 2.0.x puts it first, on its server side (its own socket first), and on both
    sides of ``-d`` / ``-r`` one connection of each kind ("dual"). With the listener second
    (2.0.x client, or either side of 2.1+), UDP still tells: a 2.0.x client prints 9-field
    intervals and a 14-field server report for the same connection, a 2.1 client prints
    14 fields with zero jitter and loss and a total of -1 on its whole-test line, a server
    measures jitter (> 0) or loss; TCP does not ("unknown").
    """
    conns: dict[tuple, set] = {}
    for r in rows:
        t = r["_tuple"]
        if r["stream"] != "SUM" and t[1] > 0 and t[3] > 0:
            conns.setdefault(t, set()).add(r["_fields"])
    uses: dict[tuple, int] = {}
    for a_ip, a_port, b_ip, b_port in conns:
        uses[(a_ip, a_port)] = uses.get((a_ip, a_port), 0) + 1
        uses[(b_ip, b_port)] = uses.get((b_ip, b_port), 0) + 1
    listener_first = {}
    for t in conns:
        a, b = uses[(t[0], t[1])], uses[(t[2], t[3])]
        listener_first[t] = a > b if a != b else t[1] < t[3]
    kinds = set(listener_first.values())
    if header is not None and "readcnt" in header:
        return "server", listener_first
    if header is not None and "writecnt" in header:
        return "client", listener_first
    if kinds == {True}:
        return "server", listener_first
    if kinds == {True, False}:
        return "dual", listener_first
    udp = [r for r in rows if "packets" in r]
    if not udp:
        return "unknown", listener_first
    if any(len(fields) > 1 for fields in conns.values()):  # 2.0.x client: 9-field intervals, 14-field report
        return "client", listener_first
    if any(np.isnan(r["packets"]) for r in udp):  # 2.1 client: total -1 on its whole-test line
        return "client", listener_first
    if any(r.get("jitter_s", 0) > 0 or r.get("lost_packets", 0) > 0 for r in udp):
        return "server", listener_first
    return "client", listener_first


def _parse_iperf2_csv(text: str, rep: Report) -> tuple[list[dict], str]:
    rows = []
    header = None
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        f = [x.strip() for x in s.split(",")]
        if _CSV2_HEADER.match(s):
            header = f
            rep.content(i, s)
            rep.ok()
            continue
        try:
            if "-" in f[6][1:]:  # legacy: "t0-t1" in one field
                t0, t1 = (float(x) for x in f[6].split("-"))
                names = None
                extra_at = 9
            else:
                t0, t1 = float(f[6]), float(f[7])
                names = header if header is not None else _CSV2_ENHANCED_COMMON
                if len(names) == len(f) + 1 and "tcppcwnd" in names:  # 2.1 header names a column it does not print
                    names = [n for n in names if n != "tcppcwnd"]
                if len(f) < 10 or (header is not None and len(names) != len(f)):
                    raise ValueError("field count")
                extra_at = 10
            stream = f[5]
            row = {
                "timestamp": f[0],
                "_tuple": (f[1], int(f[2] or 0), f[3], int(f[4] or 0)),
                "_fields": len(f),
                "stream": "SUM" if stream == "-1" else stream,
                "start_s": t0,
                "end_s": t1,
                "time_s": t1,
                "bytes": float(f[extra_at - 2]),
                "rate_bps": float(f[extra_at - 1]),
            }
            if names is None:
                if len(f) >= 14:  # UDP: jitter(ms), lost, total, loss %, out of order
                    row["jitter_s"] = float(f[9]) * 1e-3
                    row["lost_packets"] = _csv_count(f[10])
                    row["packets"] = _csv_count(f[11])
                    row["out_of_order"] = _csv_count(f[13])
            else:
                for key, value in zip(names[10:], f[10:]):
                    col, factor = _CSV2_COLUMNS.get(key, (None, 1.0))
                    if col is not None and value not in _CSV2_MISSING:
                        row[col] = float(value) * factor
            if row.get("packets") is not None:
                row["loss"] = row.get("lost_packets", np.nan) / row["packets"] if row["packets"] else np.nan
        except (IndexError, ValueError):
            rep.bad(i, s)
            continue
        # float() gives inf / nan only for "inf", "nan", an exponent ("1e999") or > 300 digits
        if (len(s) > 300 or _LETTER_NE.search(s)) and _bad_numbers(row):
            rep.bad(i, s)
            continue
        rep.ok()
        rows.append(row)
    side, listener_first = _csv_orientation(rows, header)
    mixed = {r["_tuple"] for r in rows if r["_fields"] < 14} & {r["_tuple"] for r in rows if r["_fields"] >= 14}
    client_placeholders = side == "client" and header is None and not mixed
    test, sum_in_test, known = 0, False, set()
    for r in rows:
        t = r.pop("_tuple")
        fields = r.pop("_fields")
        if r["stream"] == "SUM":  # several connections: no single src / dst
            r["_test"], sum_in_test = test, True
        else:
            a, b = f"{t[0]}:{t[1]}", f"{t[2]}:{t[3]}"
            # the connecting side sends (the client, or the server's reverse client of -d / -r)
            r["src"], r["dst"] = (b, a) if listener_first.get(t, False) else (a, b)
            if t not in known:  # a new connection after a [SUM]: the next test of a server log
                known.add(t)
                test, sum_in_test = test + sum_in_test, False
            r["_conn"] = t
            if t in mixed and fields >= 14:  # 2.0.x UDP client: the server's report of the connection
                r["role"] = "server report"
        if client_placeholders and fields >= 14 and r.get("jitter_s") == 0 and not r.get("lost_packets"):
            # 2.1 UDP client: its own lines carry zeros in place of jitter, loss and reordering
            # (only the receiver measures them); the total is the count of datagrams sent
            r["jitter_s"] = r["lost_packets"] = r["loss"] = r["out_of_order"] = np.nan
    return rows, side


def _parse_e_tail(rest: str, row: dict) -> bool:
    """Fill the -e columns (client, [SUM], server Reads) or the UDP server columns of *row*; False when none matches."""
    me = _TCP_E_TAIL.match(rest)
    if me:
        _write_columns(row, me)
        if me["cwnd"] is not None:
            cwnd = float(me["cwnd"])
            row["cwnd_bytes"] = cwnd * BIN[me["cu"]] if cwnd >= 0 else np.nan
            if me["cwndp"] is not None:
                row["cwnd_segments"] = float(me["cwndp"])
        if me["inf"] is not None:
            inf = float(me["inf"])
            row["inflight_bytes"] = inf * BIN[me["iu"]] if inf >= 0 else np.nan
            row["inflight_segments"] = float(me["infp"]) if float(me["infp"]) >= 0 else np.nan
        scale = 1e-6 if me["rttu"] == "us" else 1e-3
        row["rtt_s"] = float(me["rtt"]) * scale
        if me["rttvar"]:
            row["rttvar_s"] = float(me["rttvar"]) * scale
        return True
    mu = _UDP_TAIL.match(rest)
    if mu:
        _udp_columns(row, mu)
        return True
    mw = _E_WRITES_PPS.match(rest) or _E_WRITES_RTRY.match(rest)
    if mw:
        _write_columns(row, mw)
        return True
    mr = _E_READS.match(rest)
    if mr:
        row["reads"] = float(mr["reads"])
        return True
    return False


def _write_columns(row: dict, m: re.Match) -> None:
    """Writes, write errors and (when printed) retries of an -e ``Write/Err Rtry`` tail."""
    row["writes"] = float(m["writes"])
    row["write_errors"] = float(m["werr"])
    if m.groupdict().get("rtry") is not None:
        row["retransmits"] = float(m["rtry"])


def _udp_columns(row: dict, mu: re.Match) -> None:
    """Jitter [s], lost and total datagrams and the loss fraction of a UDP report tail."""
    row["jitter_s"] = float(mu["jitter"]) * 1e-3
    row["lost_packets"] = float(mu["lost"])
    row["packets"] = float(mu["total"])
    row["loss"] = row["lost_packets"] / row["packets"] if row["packets"] else np.nan


def read_iperf(path) -> pd.DataFrame:
    """Read an iperf 2 report (client or server side, text or ``-y C`` CSV).

    Accepted report lines (interval styles of every iperf 2 version)::

        [  3]  0.0- 1.0 sec  20.0 MBytes   168 Mbits/sec                         (2.0.5)
        [  3]  0.00-1.00 sec  1.12 MBytes  9.41 Mbits/sec                         (2.0.10+)
        [  1] 0.0000-1.0000 sec  2.25 MBytes  18.9 Mbits/sec  18/0  0  260K/166295(24066) us  14.19
        [  1] 0.0000-1.0000 sec   112 MBytes   942 Mbits/sec  899/0  12   356K(252)/369K(261)/2932(85) us  40168
        [  1] 0.0000-1.0000 sec  1.16 MBytes  9.74 Mbits/sec   0.383 ms 179/1007 (18%)
        [SUM]  0.0-10.0 sec  ...

    i.e. the plain columns, the ``-e`` (enhanced) client columns Write/Err, Rtry, then
    Cwnd/RTT(var) (2.0.10), Cwnd(pkts)/RTT(var) or InF(pkts)/Cwnd(pkts)/RTT(var) (2.1.9+),
    optionally Wait before and fq-rate after (a ``[SUM]`` has Write/Err and Rtry only), the
    ``-e`` UDP client's Write/Err and PPS (``891/0  893 pps``), the ``-e`` server's
    Reads=Dist (``3192=11:2:0:15:12:2:0:3150``), and the UDP server columns Jitter,
    Lost/Total. The ``N datagrams received out-of-order`` lines give ``out_of_order``;
    trip-time and L2-error lines are informational and skipped. iperf 2.1 marks reverse
    streams with a star (``[ *2]``), which is dropped from the stream ID (see Notes). With
    ``-y C`` every line is
    ``timestamp,ip,port,ip,port,id,t0-t1,bytes,bits_per_second`` (UDP adds
    ``jitter_ms,lost,total,loss%,out_of_order``; -1 is "not known" and read as NaN); with
    ``-e -y C`` (2.1.9+) a header line ``time,srcaddress,srcport,...`` names the columns
    (``istart,iend`` apart, then ``writecnt,writeerr,tcpretry,tcpcwnd,tcprtt,tcprttvar`` or
    the UDP ones), and 2.2 may put the UTC offset before the time (``+0000:2025...``). Banner
    lines (``Client connecting to``, ``TCP window size``...) are skipped; a line that
    starts like a report but cannot be parsed is malformed.

    Parameters
    ----------
    path : str, path-like, file object or text
        The iperf 2 output (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        One row per interval report: ``stream`` (iperf's ID or ``"SUM"``), ``start_s``,
        ``end_s``, ``time_s`` (= ``end_s``) [s] from the start of the test, ``bytes`` [bytes]
        (iperf rounds it to 3 significant digits in text; K = 1024), ``rate_bps`` [bit/s]
        (k = 1000), and when reported ``retransmits``, ``cwnd_bytes`` [bytes] (K = 1024),
        ``cwnd_segments`` [segments], ``inflight_bytes`` [bytes], ``inflight_segments``
        [segments], ``rtt_s``, ``rttvar_s`` [s], ``writes``, ``write_errors``, ``jitter_s``
        [s], ``lost_packets``, ``packets``, ``loss`` [fraction], ``out_of_order`` [packets],
        ``reads`` (server ``-e``), ``connection`` (1, 2... per "connected with" line, text
        only), ``src``, ``dst`` (``ip:port`` of the data sender and receiver, also on the
        server side and with ``-d``; none for ``[SUM]``), ``timestamp`` (CSV, as printed).
        The whole-test lines (the second line of a stream that starts at 0, and the
        "Server Report") are not rows: they are in ``attrs["summary"]`` (a list of dicts with
        the same keys plus ``role``); a line that is the only one of its stream in its test
        (no ``-i``) is a row. A ``[SUM]`` belongs to one test (a server log holds several).
        ``attrs["side"]`` is ``"client"``, ``"server"``, ``"dual"`` (``-d`` / ``-r``: both
        banners) or, for a CSV that does not tell, ``"unknown"`` (see Notes).

    Raises
    ------
    MeasurementFormatError
        When no report line is found.

    Notes
    -----
    In text, a connection accepted on the listening port receives and one this side opened
    sends (``-d`` / ``-r`` run both). iperf 2.1 marks the exceptions: ``(reverse)`` of
    ``--reverse`` (``-R``) on both sides (the server sends), a starred connect line
    (``[ *2] local ...``) for the client thread a server opens for ``-d`` / ``-r`` (it sends),
    and, with ``--full-duplex``, a starred report (``[ *4]``) for the direction opposite to
    the unstarred one on the same connection.

    Which address comes first in CSV depends on the version: iperf 2.0.x prints its own
    socket first (``src/ReportCSV.c``), so on its server side the server's address comes
    first; iperf 2.1 and later print the client's socket first on both sides
    (``src/ReportOutputs.c``, ``format_ips_ports_string``). Neither order names the
    version, so ``src`` / ``dst`` are decided per connection from the listener instead:
    the listener's address is the one shared by several connections (the streams of
    ``-P``, the tests of a server log), or else the one with the lower port (the listening
    port, 5001 by default, is below the ephemeral ports: 32768 and up on Linux, 49152 and
    up on Windows and macOS). The connecting side sends, so ``src`` is the other end and
    ``dst`` the listener, in both versions; this holds for the reverse connection of
    ``-d`` / ``-r`` too, which the server opens to the client's listener. Limits: with
    ``--reverse`` (``-R``) or ``--full-duplex`` of 2.1+, which the CSV does not mark, the
    client receives (or both send) and ``src`` / ``dst`` are then client and server rather
    than the data direction; a listening port above the ephemeral ones, on a file with a
    single connection, defeats the lower-port rule.

    The side that printed a CSV follows from the ``-e`` header (``readcnt``: server,
    ``writecnt``: client), else from where the listener is: first only on the server of
    2.0.x (``"server"``), first on one connection and second on another with 2.0.x ``-d``
    (``"dual"``). With the listener second (a 2.0.x client, or either side of 2.1+) only UDP
    tells: a 2.0.x client prints 9-field intervals and a 14-field server report, a 2.1
    client prints 14 fields on every line, zeros for jitter and loss (read as NaN: only the
    receiver measures them; ``packets`` is then the count sent) and a total of -1 on its
    whole-test line, while a server measures jitter above 0 or some loss. A TCP CSV with
    the listener second is ``"unknown"``.

    References
    ----------
    .. [1] iperf 2 user documentation, https://iperf2.sourceforge.io/iperf-manpage.html
       (``-i``, ``-e``, ``-y C``); source ``src/ReportOutputs.c`` and ``src/Locale.c``.

    Examples
    --------
    >>> text = '''------------------------------------------------------------
    ... Client connecting to 10.0.0.2, TCP port 5001
    ... ------------------------------------------------------------
    ... [  3] local 10.0.0.1 port 40000 connected with 10.0.0.2 port 5001
    ... [ ID] Interval       Transfer     Bandwidth
    ... [  3]  0.0- 1.0 sec  1.25 MBytes  10.5 Mbits/sec
    ... [  3]  1.0- 2.0 sec  1.12 MBytes  9.44 Mbits/sec
    ... [  3]  0.0- 2.0 sec  2.38 MBytes  9.97 Mbits/sec
    ... '''
    >>> df = read_iperf(text)
    >>> df[["time_s", "bytes", "rate_bps", "src"]]
       time_s      bytes    rate_bps             src
    0     1.0  1310720.0  10500000.0  10.0.0.1:40000
    1     2.0  1174405.1   9440000.0  10.0.0.1:40000
    >>> df.attrs["summary"][0]["rate_bps"]
    9970000.0

    The CSV of an iperf 2.1 UDP client (``-u -i 1 -y C``): the client's address comes
    first, and its jitter and loss columns are zeros it did not measure:

    >>> csv = '''20261123125522,127.0.0.1,49079,127.0.0.1,5502,1,0.0-1.0,1312710,10501680,0.000,0,893,0.000,0
    ... 20261123125523,127.0.0.1,49079,127.0.0.1,5502,1,1.0-2.0,1308300,10466400,0.000,0,890,0.000,0
    ... 20261123125523,127.0.0.1,49079,127.0.0.1,5502,1,0.0-2.0,2623950,10493475,0.000,0,-1,-0.000,0
    ... '''
    >>> udp = read_iperf(csv)
    >>> udp[["src", "dst", "packets", "loss"]]
                   src             dst  packets  loss
    0  127.0.0.1:49079  127.0.0.1:5502      893   NaN
    1  127.0.0.1:49079  127.0.0.1:5502      890   NaN
    >>> udp.attrs["side"]
    'client'
    """
    name, text = open_text(path)
    rep = Report(name, FORMAT2, EXPECTED2)
    # CSV when one of the first lines is (iperf's stderr may come first: "listener bind failed...")
    head = [ln.strip() for ln in text.split("\n", 50)[:50] if ln.strip()][:5]
    if any(_CSV2.match(ln) or _CSV2_ENHANCED.match(ln) or _CSV2_HEADER.match(ln) for ln in head):
        rows, side = _parse_iperf2_csv(text, rep)
        rep.require_something()
        intervals, summary = _split_summaries(rows)
        df = _frame(intervals)
        return rep.finish(df, {"summary": [_clean_summary(r) for r in summary], "side": side})
    side = None
    listen_port = None
    connections: dict[str, tuple[int, str, str]] = {}
    n_conn = 0
    rows = []
    server_report = False
    test, sum_in_test = 0, False  # tests of a server log: a [SUM] closes one, the next connection opens another
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        rep.content(i, s)
        m = _LISTEN2.match(s)
        if m:
            listen_port = int(m["port"])
            side = "server" if side in (None, "server") else "dual"
            continue
        if _CONNECT2.match(s):
            side = "client" if side in (None, "client") else "dual"
            continue
        m = _CONNECTED.search(s)
        if m:
            n_conn += 1
            test, sum_in_test = test + sum_in_test, False
            local = f"{m['lip'].split('%')[0]}:{m['lport']}"
            peer = f"{m['rip'].split('%')[0]}:{m['rport']}"
            # the connections accepted on the listening port receive, the others send (-d runs
            # both); a starred one is the reverse client thread of a 2.1 server (-d / -r): it sends
            accepted = not m["star"] and (side == "server" or int(m["lport"]) == listen_port)
            flags = s[m.end():]
            # 2.1 --reverse (-R): "(reverse)" on both sides, the server sends
            receives = accepted != ("(reverse)" in flags and not m["star"])
            src, dst = (peer, local) if receives else (local, peer)
            # 2.1 --full-duplex: "[  4]" and "[ *4]" report the two directions of one connection
            connections[m["id"]] = (n_conn, src, dst, "(full-duplex)" in flags)
            rep.ok()
            continue
        if s.endswith("Server Report:"):
            server_report = True
            rep.ok()
            continue
        m = _REPORT.search(s)
        if not m:
            mo = _OUT_OF_ORDER.search(s)
            if mo:
                _add_out_of_order(rows, mo)
                rep.ok()
            elif _LOOKS_LIKE_REPORT.search(s) and not _INFORMATIONAL.search(s):
                rep.bad(i, s)
            continue
        row = _parse_report(m)
        _parse_e_tail(m["rest"], row)
        conn = connections.get(row["stream"])
        if conn:
            row["connection"], row["src"], row["dst"], full_duplex = conn
            if full_duplex and m["star"]:  # the direction opposite to the unstarred report
                row["src"], row["dst"] = row["dst"], row["src"]
            row["_conn"] = (row["connection"], bool(full_duplex and m["star"]))
        if server_report:
            row["role"] = "server report"
            server_report = False
        if row["stream"].startswith("SUM"):
            row["_test"], sum_in_test = test, True
        if len(s) > 300 and _bad_numbers(row):  # the regexes take digits only: inf needs > 300 of them
            rep.bad(i, s)
            continue
        rep.ok()
        rows.append(row)
    rep.require_something()
    if any("out_of_order" in r for r in rows):
        for r in rows:
            r.setdefault("out_of_order", 0.0)
    intervals, summary = _split_summaries(rows)
    df = _frame(intervals)
    return rep.finish(df, {"summary": [_clean_summary(r) for r in summary], "side": side})


def _add_out_of_order(rows: list[dict], m: re.Match) -> None:
    """Attach an 'N datagrams received out-of-order' line to its interval (printed just after it)."""
    t0, t1 = float(m["t0"]), float(m["t1"])
    for r in reversed(rows[-64:]):
        if r["stream"] == m["id"] and r["start_s"] == t0 and r["end_s"] == t1:
            r["out_of_order"] = r.get("out_of_order", 0.0) + float(m["n"])
            return


def _split_summaries(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """Separate the whole-test lines from the interval lines (iperf 2).

    The second line of a stream that starts at 0 is its whole-test line. A stream is its ID
    and its connection (IDs are reused by the tests of a server log); a ``[SUM]`` is the
    sum of one test (``_test``, counted by the parsers), so that every test of a log
    without ``-i`` gives its ``[SUM]`` as a row, as its streams do.
    """
    seen = set()
    intervals, summary = [], []
    for r in rows:
        if r["stream"].startswith("SUM"):
            key = (r["stream"], r.pop("_test", None))
        else:
            key = (r["stream"], r.pop("_conn", r.get("connection")))
        if r.get("role") == "server report":
            summary.append(r)
            continue
        if r["start_s"] == 0.0 and key in seen:
            r = dict(r, role="summary")
            summary.append(r)
            seen.discard(key)
            continue
        if r["start_s"] == 0.0:
            seen.add(key)
        intervals.append(r)
    if not intervals and summary:
        intervals = [{k: v for k, v in r.items() if k != "role"} for r in summary]
    return intervals, summary


# --------------------------------------------------------------------------------------
# iperf3


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")


class _Json:
    """Type checks of the parts of one iperf3 JSON document.

    A damaged or hand-edited document can hold anything anywhere (``{"start": 2}``, a
    string for a byte count, ``1e999``): every part is checked before use, so that a wrong
    type ends in a :class:`MeasurementFormatError` naming the file, the line of the document
    and the field, never in an AttributeError / TypeError / OverflowError.
    """

    def __init__(self, rep: Report, line: int | None):
        self.rep, self.line = rep, line

    def fail(self, path: str, value, what: str) -> MeasurementFormatError:
        shown = repr(value)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        return self.rep.fail(self.line, f"field {path} is {_kind(value)} ({shown}), expected {what}")

    def obj(self, value, path: str) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(path, value, "an object")
        return value

    def arr(self, value, path: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(path, value, "an array")
        return value

    def num(self, st: dict, key: str, path: str):
        value = st.get(key)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                f = float(value)
            except OverflowError:  # an integer beyond the float range
                f = math.inf
            if math.isfinite(f):
                return f
            raise self.fail(f"{path}.{key}", value, "a finite number")
        raise self.fail(f"{path}.{key}", value, "a number")

    def key(self, value, path: str):
        if value is None or (isinstance(value, (int, str)) and not isinstance(value, bool)):
            return value
        raise self.fail(path, value, "a socket number")


def _iperf3_json(name: str, text: str, rep: Report) -> pd.DataFrame:
    try:
        return _iperf3_json_docs(name, text, rep)
    except RecursionError:
        # json recurses once per nesting level: a hostile file nested thousands deep; the
        # depth check (not run on every file, it costs more than parsing) finds the line
        check_json_depth(text, name, expected=EXPECTED3)
        raise rep.fail(None, "the JSON nests too deep to be read") from None


def _iperf3_json_docs(name: str, text: str, rep: Report) -> pd.DataFrame:
    stripped = text.strip()
    docs = []
    trailing = None  # (line number, text) after the last JSON document
    if stripped.startswith("{") and '"event"' in stripped[:200] and "\n{" in stripped:
        # --json-stream: one JSON object per line
        doc = {"start": {}, "intervals": [], "end": {}}
        for i, line in iter_lines(text):
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except ValueError:  # JSONDecodeError, or an integer of more than 4300 digits
                rep.bad(i, line)
                continue
            if not isinstance(ev, dict):
                rep.bad(i, line)
                continue
            rep.ok()
            kind, data = ev.get("event"), ev.get("data")
            if kind == "interval":
                doc["intervals"].append(data)
            elif kind in ("start", "end"):
                doc[kind] = data
            elif kind == "error":
                doc["error"] = data
        docs.append(doc)
    else:
        dec = json.JSONDecoder()
        pos = 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            if docs and text[pos] not in "{[":
                # text after the document: iperf3's stderr captured with 2>&1, or anything else
                trailing = (_line_of(text, pos), text[pos:])
                break
            try:
                doc, end = dec.raw_decode(text, pos)
            except json.JSONDecodeError as exc:
                # cut at the end, or inside a string / literal with brackets left open
                if not text[exc.pos:].strip() or json_unclosed(text, pos):
                    raise rep.fail(
                        _line_of(text, exc.pos),
                        "the iperf3 JSON document is truncated (it ends before its closing brace; "
                        "iperf3 was probably interrupted or the file was cut)",
                    ) from None
                raise rep.fail(_line_of(text, exc.pos), f"invalid JSON: {exc.msg}") from None
            except ValueError as exc:  # an integer of more than 4300 digits (sys.int_info)
                raise rep.fail(_line_of(text, pos), f"invalid JSON: {exc}") from None
            if not isinstance(doc, dict) or not ({"start", "intervals", "end", "error"} & set(doc)):
                raise rep.fail(_line_of(text, pos), "this JSON document is not an iperf3 --json result")
            doc["_line"] = _line_of(text, pos)
            docs.append(doc)
            rep.ok()
            pos = end
    rows, summary, info = [], [], {}
    for doc in docs:
        if doc.get("error") and not doc.get("intervals"):
            at = text.find('"error"')
            line = _line_of(text, at) if at >= 0 else doc.get("_line")
            raise rep.fail(line, f"iperf3 reported an error and measured nothing: {doc['error']!r}")
        if doc.get("error"):
            info["tool_error"] = doc["error"]
            warnings.warn(f"{rep.name}: iperf3 reported an error: {doc['error']!r}", ToolErrorWarning, stacklevel=3)
        j = _Json(rep, doc.get("_line"))
        start = j.obj(doc.get("start"), "start")
        test = j.obj(start.get("test_start"), "start.test_start")
        info.setdefault("version", start.get("version"))
        info.setdefault("protocol", test.get("protocol"))
        reverse = bool(test.get("reverse", 0))
        info.setdefault("reverse", reverse)
        # the server names the connection it accepted, the client the host it connected to
        if "accepted_connection" in start:
            info.setdefault("side", "server")
        elif "connecting_to" in start:
            info.setdefault("side", "client")
        # iperf3 before 3.1 writes no "sender" flag in the streams: the client sends unless
        # -R, the server sends only with -R
        is_client = "accepted_connection" not in start
        local_sends = is_client != reverse
        ts = j.num(j.obj(start.get("timestamp"), "start.timestamp"), "timesecs", "start.timestamp")
        info.setdefault("start_epoch_s", ts)
        conns = {}
        for k, c in enumerate(j.arr(start.get("connected"), "start.connected")):
            c = j.obj(c, f"start.connected[{k}]")
            local = f"{c.get('local_host')}:{c.get('local_port')}"
            remote = f"{c.get('remote_host')}:{c.get('remote_port')}"
            conns[j.key(c.get("socket"), f"start.connected[{k}].socket")] = (local, remote)
        for k, interval in enumerate(j.arr(doc.get("intervals"), "intervals")):
            interval = j.obj(interval, f"intervals[{k}]")
            streams = j.arr(interval.get("streams"), f"intervals[{k}].streams")
            for n, st in enumerate(streams):
                path = f"intervals[{k}].streams[{n}]"
                rows.append(_json_row(j.obj(st, path), conns, local_sends, j, path))
            if len(streams) > 1:
                for key in ("sum", "sum_bidir_reverse"):
                    if key in interval:
                        path = f"intervals[{k}].{key}"
                        r = _json_row(j.obj(interval[key], path), {}, local_sends, j, path)
                        r["stream"] = "SUM" if key == "sum" else "SUM-reverse"
                        rows.append(r)
        end = j.obj(doc.get("end"), "end")
        for n, st in enumerate(j.arr(end.get("streams"), "end.streams")):
            st = j.obj(st, f"end.streams[{n}]")
            for role in ("sender", "receiver", "udp"):
                if role in st:
                    path = f"end.streams[{n}].{role}"
                    r = _json_row(j.obj(st[role], path), conns, local_sends, j, path)
                    r["role"] = role
                    clean = _clean_summary(r)
                    # unknown RTT / cwnd (see _json_row) stay in the summary as NaN
                    clean.update({k: r[k] for k in _UNKNOWN_END if k in r and r[k] is not None and np.isnan(r[k])})
                    summary.append(clean)
        for key in ("sum_sent", "sum_received", "sum", "sum_sent_bidir_reverse", "sum_received_bidir_reverse"):
            if key in end:
                r = _json_row(j.obj(end[key], f"end.{key}"), {}, local_sends, j, f"end.{key}")
                r["stream"] = "SUM"
                r["role"] = key
                summary.append(_clean_summary(r))
        info.setdefault("congestion", end.get("sender_tcp_congestion"))
    if trailing is not None:
        _trailing_text(trailing, info, rep)
    rep.require_something()
    df = _frame(rows)
    info["summary"] = summary
    extra = {k: v for k, v in info.items() if v is not None}
    extra.setdefault("side", None)  # neither connecting_to nor accepted_connection: unknown
    return rep.finish(df, extra)


def _trailing_text(trailing: tuple[int, str], info: dict, rep: Report) -> None:
    """Text after the JSON document: iperf3's own error lines go to ``tool_error`` (with a
    :class:`ToolErrorWarning`), anything else to ``trailing_text`` and the malformed lines."""
    first, text = trailing
    errors, other = [], []
    for k, line in enumerate(text.split("\n")):
        s = line.strip()
        if not s:
            continue
        if s.startswith(("iperf3: error", "iperf3: interrupt")) and "tool_error" not in info:
            errors.append(s)
        else:
            other.append(s)
            rep.bad(first + k, s)
    if errors:
        info["tool_error"] = "\n".join(errors)
        warnings.warn(f"{rep.name}, line {first}: {errors[0]}", ToolErrorWarning, stacklevel=4)
    if other:
        info["trailing_text"] = "\n".join(other)


_UNKNOWN_END = ("rtt_s", "rtt_min_s", "rtt_max_s", "cwnd_max_bytes")


def _json_row(st: dict, conns: dict, local_sends: bool = True, j: _Json | None = None, path: str = "") -> dict:
    if j is None:
        j = _Json(Report("<json>", FORMAT3, EXPECTED3), None)

    def num(key):
        return j.num(st, key, path)

    for key in ("start", "end", "bytes", "bits_per_second"):
        # iperf3 writes these four in every stream and sum: without one the row is no measurement
        if st.get(key) is None:
            raise j.rep.fail(j.line, f"field {path}.{key} is missing (or null), expected a number")
    sock = j.key(st.get("socket"), f"{path}.socket")
    rtt, rttvar, jitter = num("rtt"), num("rttvar"), num("jitter_ms")
    row = {
        "stream": str(sock if sock is not None else "SUM"),
        "start_s": num("start"),
        "end_s": num("end"),
        "time_s": num("end"),
        "bytes": num("bytes"),
        "rate_bps": num("bits_per_second"),
        "retransmits": num("retransmits"),
        "cwnd_bytes": num("snd_cwnd"),
        "rtt_s": rtt * 1e-6 if rtt is not None else None,
        "rttvar_s": rttvar * 1e-6 if rttvar is not None else None,
        "packets": num("packets"),
        "lost_packets": num("lost_packets"),
        "jitter_s": jitter * 1e-3 if jitter is not None else None,
        "omitted": bool(st["omitted"]) if st.get("omitted") is not None else None,
    }
    lost_percent = num("lost_percent")
    if lost_percent is not None:
        row["loss"] = lost_percent / 100.0
    elif row["packets"] and row["lost_packets"] is not None:
        row["loss"] = row["lost_packets"] / row["packets"]
    # an end block of a stream the local side did not send (the client's with -R) has no
    # tcp_info: iperf3 writes 0 for its RTTs and cwnd, which are unknown, not zero
    max_rtt = num("max_rtt")
    if max_rtt is not None:
        known = max_rtt > 0
        row["rtt_s"] = (num("mean_rtt") or 0) * 1e-6 if known else np.nan
        row["rtt_min_s"] = (num("min_rtt") or 0) * 1e-6 if known else np.nan
        row["rtt_max_s"] = max_rtt * 1e-6 if known else np.nan
    max_cwnd = num("max_snd_cwnd")
    if max_cwnd is not None:
        row["cwnd_max_bytes"] = max_cwnd if max_cwnd > 0 else np.nan
    if sock in conns:
        local, remote = conns[sock]
        sender = st.get("sender", local_sends)
        row["src"], row["dst"] = (local, remote) if sender else (remote, local)
    return row


def read_iperf3(path) -> pd.DataFrame:
    """Read an iperf3 report: text (client or server side) or ``--json`` output.

    Accepted text report lines (``Bitrate`` or, before iperf 3.1, ``Bandwidth`` header)::

        [  5]   0.00-1.00   sec  2.36 MBytes  19.8 Mbits/sec    0    257 KBytes       (omitted)
        [  5]   1.00-2.00   sec  1.30 MBytes  10.9 Mbits/sec    0   28.3 KBytes            (TCP sender: Retr, Cwnd)
        [  5]   1.00-2.01   sec  5.62 MBytes  46.8 Mbits/sec                               (TCP receiver)
        [  5]   0.00-1.00   sec  1.23 MBytes  10.3 Mbits/sec  888                          (UDP sender: datagrams)
        [  6]   0.00-1.00   sec  20.8 MBytes   174 Mbits/sec  0.110 ms  28/15068 (0.19%)   (UDP receiver)
        [  5]   0.00-8.00   sec  8.76 MBytes  9.19 Mbits/sec    0             sender       (summary)
        [SUM] ..., [  5][TX-C] ... (--parallel, --bidir)

    With ``--parallel N`` iperf3 prints a ``- - - - -`` line after every group of interval
    lines; only the one followed by the column header (``[ ID] Interval ...``) opens the
    final sender/receiver summary, so every interval group is a row of the frame.
    With ``--timestamps`` every line starts with a date (``Mon Nov 23 11:50:22 2026 `` by
    default, or the format given): the prefix is recognised from the first report line,
    removed, and kept in a ``timestamp`` column. With ``--get-server-output`` the client's
    text ends with a ``Server output:`` block, the server's own report: it is read apart,
    into ``attrs["server_output"]``, and never mixed with the client's intervals.

    JSON (``iperf3 -J``; also ``--json-stream``): every stream of every interval, with
    ``snd_cwnd`` [bytes], ``rtt``/``rttvar`` [us], UDP ``packets``, ``lost_packets``,
    ``jitter_ms``; the ``end`` block goes to ``attrs["summary"]``. The streams of iperf3
    before 3.1 carry no ``sender`` flag: the data direction then follows from the side
    (``accepted_connection`` marks the server) and ``-R`` (``test_start.reverse``). In the
    ``end`` block of a stream the local side did not send (the client's with ``-R``) iperf3
    writes 0 for ``max_rtt``, ``min_rtt``, ``mean_rtt`` and ``max_snd_cwnd``, values it does
    not have: they are NaN. Text after the JSON document (iperf3's stderr captured with
    ``2>&1``) does not spoil it: an ``iperf3: error - ...`` line goes to
    ``attrs["tool_error"]`` with a :class:`ToolErrorWarning`, other text to
    ``attrs["trailing_text"]`` and the malformed lines.

    Parameters
    ----------
    path : str, path-like, file object or text
        The iperf3 output (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        One row per interval and stream: ``stream`` (socket number or ``"SUM"``),
        ``start_s``, ``end_s``, ``time_s`` (= ``end_s``) [s], ``bytes`` [bytes] (K = 1024;
        3 significant digits in text), ``rate_bps`` [bit/s], ``omitted`` (``-O`` warm-up
        intervals), and when reported ``retransmits``, ``cwnd_bytes`` [bytes], ``rtt_s``,
        ``rttvar_s`` [s], ``packets``, ``lost_packets``, ``loss`` [fraction], ``jitter_s`` [s],
        ``direction`` (``TX-C``... with ``--bidir``), ``src``, ``dst`` (``ip:port`` of the
        data sender and receiver), ``timestamp`` (the ``--timestamps`` prefix as printed,
        a string). ``attrs["summary"]``: list of dicts for the sender/receiver totals
        (``role``; from JSON also ``rtt_s`` (mean), ``rtt_min_s``, ``rtt_max_s`` [s] and
        ``cwnd_max_bytes`` [bytes] of the sender, NaN when iperf3 did not know them);
        ``attrs["side"]`` ("client" or "server"; in JSON from ``start.connecting_to`` /
        ``start.accepted_connection``), ``attrs["reverse"]`` (``-R``);
        with ``--get-server-output``, ``attrs["server_output"]``: ``{"intervals": [...],
        "summary": [...]}`` (dicts with the same keys as the rows).

    Raises
    ------
    MeasurementFormatError
        When the file holds only an iperf3 error (``iperf3: error - ...``, or a JSON
        document with an ``"error"`` key and no intervals), when the JSON is truncated
        (it ends before its closing brace, also inside a string or a number), nests
        deeper than any iperf3 document, or holds a field of the wrong type or a non-finite
        number (the message then names the field, e.g. ``intervals[3].streams[0].bytes``),
        or when nothing in it is an iperf3 report. The message names the file and the line.

    Warns
    -----
    ToolErrorWarning
        When iperf3 reported an error after some intervals (they are returned; the error is
        in ``attrs["tool_error"]``), also on a line after the JSON document.
    MalformedLinesWarning
        For lines that are not iperf3's, e.g. text after the JSON document.

    References
    ----------
    .. [1] ``iperf3(1)``, https://software.es.net/iperf/invoking.html; source
       ``src/iperf_api.c`` (report formats) and ``src/iperf_locale.c``.

    Examples
    --------
    >>> text = '''Connecting to host 10.0.0.2, port 5201
    ... [  5] local 10.0.0.1 port 40000 connected to 10.0.0.2 port 5201
    ... [ ID] Interval           Transfer     Bitrate         Retr  Cwnd
    ... [  5]   0.00-1.00   sec  2.36 MBytes  19.8 Mbits/sec    0    257 KBytes       (omitted)
    ... [  5]   0.00-1.00   sec   954 KBytes  7.82 Mbits/sec    2   48.1 KBytes
    ... - - - - - - - - - - - - - - - - - - - - - - - - -
    ... [ ID] Interval           Transfer     Bitrate         Retr
    ... [  5]   0.00-1.00   sec   954 KBytes  7.82 Mbits/sec    2             sender
    ... [  5]   0.00-1.03   sec   900 KBytes  7.16 Mbits/sec                  receiver
    ...
    ... iperf Done.
    ... '''
    >>> df = read_iperf3(text)
    >>> df[["time_s", "rate_bps", "retransmits", "cwnd_bytes", "omitted"]]
       time_s    rate_bps  retransmits  cwnd_bytes  omitted
    0     1.0  19800000.0            0    263168.0     True
    1     1.0   7820000.0            2     49254.4    False
    >>> [s["role"] for s in df.attrs["summary"]]
    ['sender', 'receiver']
    """
    name, text = open_text(path)
    rep = Report(name, FORMAT3, EXPECTED3)
    if text.lstrip().startswith("{"):
        return _iperf3_json(name, text, rep)
    stamp = _timestamp_prefix(text)
    client = _Section()
    sec = client
    server = None
    server_line = None
    error = None
    for i, line in iter_lines(text):
        ts = None
        if stamp is not None:
            mt = stamp.match(line)
            if mt:
                ts, line = mt.group(0).strip(), line[mt.end():]
        s = line.strip()
        if not s:
            continue
        rep.content(i, s)
        if s.startswith("Server output:"):
            # --get-server-output: the server's own report follows; kept apart from the client's
            server = sec = _Section(side="server", reverse=client.reverse)
            server_line = i
            rep.ok()
            continue
        if s.startswith("[ ID]"):
            sec.header = s
            # with -P N iperf3 prints the separator between interval groups as well: only a
            # separator followed by the column header opens the sender/receiver summary
            if sec.after_separator:
                sec.in_summary = True
            sec.after_separator = False
            rep.ok()
            continue
        sec.after_separator = False
        if s.startswith("iperf3: error") or s.startswith("iperf3: interrupt"):
            error = (i, s)
            continue
        if s.startswith("Connecting to host"):
            sec.side = "client"
        elif s.startswith("Server listening on") or s.startswith("Accepted connection from"):
            sec.side = "server"
            sec.in_summary = False
        elif s.startswith("Reverse mode"):
            sec.reverse = True
        if s.startswith("- - - -"):
            sec.after_separator = True
            rep.ok()
            continue
        m = _CONNECTED.search(s)
        if m:
            local, peer = f"{m['lip']}:{m['lport']}", f"{m['rip']}:{m['rport']}"
            sender_is_local = (sec.side == "client") != sec.reverse
            sec.connections[m["id"]] = (local, peer) if sender_is_local else (peer, local)
            sec.in_summary = False
            rep.ok()
            continue
        m = _REPORT.search(s)
        if not m:
            if _LOOKS_LIKE_REPORT.search(s) or _DAMAGED_REPORT3.match(s):
                rep.bad(i, s)
            continue
        row = _parse_report(m)
        if ts is not None:
            row["timestamp"] = ts
        rest = m["rest"]
        role = _ROLE.search(rest)
        if role:
            rest = rest[: role.start()]
        if "(omitted)" in rest:
            row["omitted"] = True
            rest = rest.replace("(omitted)", "")
        else:
            row["omitted"] = False
        rest = rest.strip()
        if rest:
            mu = _UDP_TAIL.match(rest)
            if mu:
                _udp_columns(row, mu)
            else:
                mt = _IPERF3_TCP_TAIL.match(rest)
                if mt and mt["cwnd"] is not None:
                    row["retransmits"] = float(mt["retr"])
                    row["cwnd_bytes"] = _bytes(mt["cwnd"], mt["cu"])
                elif mt and not mt["tail"].strip():
                    # one number: Retr (TCP) or Total Datagrams (UDP sender), as the header says
                    if "Datagrams" in sec.header and "Retr" not in sec.header:
                        row["packets"] = float(mt["retr"])
                    else:
                        row["retransmits"] = float(mt["retr"])
                else:
                    rep.bad(i, s)
                    continue
        conn = sec.connections.get(row["stream"])
        if conn:
            # --bidir: the RX streams carry data from the remote side
            row["src"], row["dst"] = conn[::-1] if str(row.get("direction", "")).startswith("RX") else conn
        if len(s) > 300 and _bad_numbers(row):  # the regexes take digits only: inf needs > 300 of them
            rep.bad(i, s)
            continue
        rep.ok()
        if sec.in_summary or role:
            row["role"] = role.group(1) if role else "summary"
            sec.summary.append(_clean_summary(row))
        else:
            sec.rows.append(row)
    if error is not None and not client.rows and not client.summary:
        raise rep.fail(error[0], f"iperf3 reported an error and measured nothing: {error[1]!r}")
    if not client.rows and not client.summary and server is not None:
        raise rep.fail(server_line, "only the server's output (--get-server-output) was found, no report of the client")
    rep.require_something()
    extra = {"summary": client.summary, "side": client.side, "reverse": client.reverse}
    if server is not None:
        extra["server_output"] = {"intervals": [_clean_summary(r) for r in server.rows], "summary": server.summary}
    if error is not None:
        extra["tool_error"] = error[1]
        warnings.warn(f"{name}, line {error[0]}: {error[1]}", ToolErrorWarning, stacklevel=2)
    df = _frame(client.rows)
    if "omitted" not in df:
        df["omitted"] = False
    return rep.finish(df, extra)


@dataclass
class _Section:
    """Parser state of one report in an iperf3 text file (the client's, or the server's output)."""

    side: str | None = None
    reverse: bool = False
    header: str = ""
    in_summary: bool = False
    after_separator: bool = False
    rows: list = field(default_factory=list)
    summary: list = field(default_factory=list)
    connections: dict = field(default_factory=dict)


# lines of an iperf3 report that start where the text starts, after any --timestamps prefix
_ANCHOR3 = re.compile(
    r"\[\s*(?:\*?\d+|SUM|ID)\]|Connecting to host|Server listening on|Accepted connection from|- - - - -"
    r"|iperf Done|Reverse mode|iperf3: |Server output:|Test Complete|-{20,}"
)
_SHAPE = re.compile(r"(\d+)|([A-Za-z]+)|(\s+)|(.)")


def _timestamp_prefix(text: str):
    """Regex of the ``--timestamps`` prefix of the lines (None when the lines have none).

    iperf3 prints ``strftime(--timestamps format)`` before every line, ``"%c "`` by
    default (``Mon Nov 23 11:50:22 2026 ``). The prefix of the first recognisable line is
    turned into a pattern (digits, letters and blanks of any width), so that custom
    formats and space-padded days match too.
    """
    head = [ln for ln in text.split("\n", 200)[:200] if ln.strip()]
    for line in head:
        m = _ANCHOR3.search(line)
        if m is None:
            continue
        prefix = line[: m.start()]
        if not prefix.strip() or not any(ch.isdigit() for ch in prefix):  # a date has digits
            return None
        parts = []
        for digits, letters, blanks, other in _SHAPE.findall(prefix):
            parts.append(r"\d+" if digits else "[A-Za-z]+" if letters else r"\s+" if blanks else re.escape(other))
        if parts[-1] == r"\s+":
            parts[-1] = r"(?:\s+|$)"
        pattern = re.compile("".join(parts))
        # every line carries the prefix: not a stray line with text before its report
        return pattern if sum(bool(pattern.match(ln)) for ln in head) * 2 > len(head) else None
    return None
