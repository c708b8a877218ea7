"""iperf 2's ``-y C`` CSV: its lines, and which end of each connection is the listener.

Part of :mod:`labcalc.measure.iperf2` (:func:`~labcalc.measure.iperf2.read_iperf` reads a CSV
through :func:`parse_iperf2_csv`).
"""

from __future__ import annotations

import re

import numpy as np

from ._common import Report, iter_lines
from ._iperf_common import LETTER_NE, bad_numbers

__all__ = ["CSV2", "CSV2_ENHANCED", "CSV2_HEADER", "parse_iperf2_csv", "csv_orientation"]

# iperf 2 CSV (-y C). Every line is split by hand rather than with pandas.read_csv: one file
# mixes line lengths (the 9-field intervals of a UDP client and its 14-field server report).
#
# legacy (2.0.x and 2.1 without -e):
#   time,ip_a,port_a,ip_b,port_b,id,t0-t1,bytes,bits_per_second[,jitter_ms,lost,total,loss%,out_of_order]
# enhanced (2.1+ with -e, src/Locale.c reportCSV_*): a header line 'time,srcaddress,srcport,...'
#   then istart and iend in two fields and tool-specific columns named by the header.
# iperf 2.2 may put the UTC offset before the time ("+0000:20250605191028.955").
#
# Which address comes first (see csv_orientation): 2.0.x prints its own socket first
# (src/ReportCSV.c, CSV_peer: local, then peer); 2.1+ prints the client's socket first on
# both sides (src/ReportOutputs.c, format_ips_ports_string swaps local and peer when
# ThreadMode == kMode_Server).
CSV2_TIME = r"^(?:[+-]\d{4}:)?\d{14}(?:\.\d+)?,"
CSV2 = re.compile(CSV2_TIME + r"[^,]*,\d*,[^,]*,\d*,-?\d+,\d+(?:\.\d+)?-\d+(?:\.\d+)?,")
CSV2_ENHANCED = re.compile(CSV2_TIME + r"[^,]*,\d*,[^,]*,\d*,-?\d+,\d+(?:\.\d+)?,\d+(?:\.\d+)?,-?\d+,")
CSV2_HEADER = re.compile(r"^time,srcaddress,srcport,dstadd?r(?:ess)?,dstport,transferid,istart,iend,bytes,speed\b")
CSV2_ENHANCED_COMMON = ["time", "srcaddress", "srcport", "dstaddr", "dstport", "transferid", "istart", "iend",
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


def csv_orientation(rows: list[dict], header) -> tuple[str, dict]:
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


def _same_connection(rows: list[dict]) -> None:
    """Give the two lines of one connection the same address order (in place).

    A 2.0.x UDP client prints its own lines (9 fields) with its socket first and the
    server's report of the same connection (14 fields) with the server's socket first:
    the two orders name one connection, not a transfer each way. A line whose reversed
    address pair was seen first with the other field count takes that order.
    """
    seen: dict[tuple, bool] = {}  # ordered pair -> "14 fields" of its first line
    for r in rows:
        t = r["_tuple"]
        rev = (t[2], t[3], t[0], t[1])
        long_line = r["_fields"] >= 14
        if t not in seen and rev != t and rev in seen and seen[rev] != long_line:
            r["_tuple"] = rev
            continue
        seen.setdefault(t, long_line)


def parse_iperf2_csv(text: str, rep: Report) -> tuple[list[dict], str]:
    rows = []
    header = None
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        f = [x.strip() for x in s.split(",")]
        if CSV2_HEADER.match(s):
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
                names = header if header is not None else CSV2_ENHANCED_COMMON
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
        if (len(s) > 300 or LETTER_NE.search(s)) and bad_numbers(row):
            rep.bad(i, s)
            continue
        rep.ok()
        rows.append(row)
    _same_connection(rows)
    side, listener_first = csv_orientation(rows, header)
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
            # the end that printed the line: the file's side; in a 2.0.x -d / -r file ("dual",
            # its own socket first) the listener's end of a connection received its data
            printed = ({"client": "sender", "server": "receiver"}.get(side) if side != "dual" else
                       "receiver" if listener_first.get(t, False) else "sender")
            if printed is not None:
                r["printed_by"] = printed
            if t in mixed and fields >= 14:  # 2.0.x UDP client: the server's report of the connection
                r["role"] = "server report"
        if client_placeholders and fields >= 14 and r.get("jitter_s") == 0 and not r.get("lost_packets"):
            # 2.1 UDP client: its own lines carry zeros in place of jitter, loss and reordering
            # (only the receiver measures them); the total is the count of datagrams sent
            r["jitter_s"] = r["lost_packets"] = r["loss"] = r["out_of_order"] = np.nan
    return rows, side
