"""Readers of iperf 2 and iperf3 reports (text, iperf 2 CSV, iperf3 JSON)."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._common import BIN, DEC, Report, ToolErrorWarning, iter_lines, json_unclosed, open_text

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
    r"\[\s*\*?(?P<id>\d+|SUM(?:-\d+)?)\](?:\[(?P<dir>[A-Z]{2}-[A-Z])\])?\s+"
    rf"(?P<t0>{_NUM})\s*-\s*(?P<t1>{_NUM})\s+sec\s+"
    rf"(?P<xfer>{_NUM})\s+(?P<xu>[KMGTkmgt]?)Bytes\s+(?P<rate>{_NUM})\s+(?P<ru>[KMGTkmgt]?)bits/sec(?P<rest>.*)$"
)
_LOOKS_LIKE_REPORT = re.compile(r"\[\s*\*?(?:\d+|SUM(?:-\d+)?)\](?:\[[A-Z-]+\])?\s+\d+(?:\.\d+)?\s*-\s*\d")
_CONNECTED = re.compile(
    r"\[\s*(?P<id>\d+)\]\s+local\s+(?P<lip>\S+?)\s+port\s+(?P<lport>\d+)\s+connected\s+(?:with|to)\s+"
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
        if c in df and df[c].notna().all():
            df[c] = df[c].astype(np.int64)
    return df


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
#   time,local_ip,local_port,peer_ip,peer_port,id,t0-t1,bytes,bits_per_second[,jitter_ms,lost,total,loss%,out_of_order]
# enhanced (2.1+ with -e, src/Locale.c reportCSV_*): a header line 'time,srcaddress,srcport,...'
#   then istart and iend in two fields and tool-specific columns named by the header.
_CSV2 = re.compile(r"^\d{14}(?:\.\d+)?,[^,]*,\d+,[^,]*,\d+,-?\d+,\d+(?:\.\d+)?-\d+(?:\.\d+)?,")
_CSV2_ENHANCED = re.compile(r"^\d{14}(?:\.\d+)?,[^,]*,\d+,[^,]*,\d+,-?\d+,\d+(?:\.\d+)?,\d+(?:\.\d+)?,-?\d+,")
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


def _csv_side(conns: list[tuple[str, int, str, int]], udp_lines: int, n_lines: int, header) -> str:
    """Which end printed the CSV: its address comes first on every line (iperf's local socket)."""
    if header is not None and "readcnt" in header:
        return "server"
    if header is not None and "writecnt" in header:
        return "client"
    real = sorted({c for c in conns if c[1] > 0 and c[3] > 0})
    if len(real) > 1:  # several connections: the listener keeps its port, the client's ports change
        if len({c[1] for c in real}) == 1 and len({c[3] for c in real}) > 1:
            return "server"
        if len({c[3] for c in real}) == 1 and len({c[1] for c in real}) > 1:
            return "client"
    if udp_lines:  # a UDP server reports jitter and loss on every line; a client only in the server report
        return "server" if udp_lines == n_lines else "client"
    if real:  # the listening port (5001 by default) is below the ephemeral ports (32768 and up on Linux)
        return "server" if real[0][1] < real[0][3] else "client"
    return "client"


def _parse_iperf2_csv(text: str, rep: Report) -> tuple[list[dict], str]:
    rows = []
    header = None
    conns, udp_lines = [], 0
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
                "local": (f[1], int(f[2]), f[3], int(f[4])),
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
                    row["lost_packets"] = float(f[10])
                    row["packets"] = float(f[11])
                    row["out_of_order"] = float(f[13])
            else:
                for key, value in zip(names[10:], f[10:]):
                    col, factor = _CSV2_COLUMNS.get(key, (None, 1.0))
                    if col is not None and value not in ("", "-1"):
                        row[col] = float(value) * factor
            if row.get("packets") is not None:
                row["loss"] = row["lost_packets"] / row["packets"] if row["packets"] else np.nan
        except (IndexError, ValueError):
            rep.bad(i, s)
            continue
        if stream != "-1":
            conns.append(row["local"])
        udp_lines += "packets" in row
        rep.ok()
        rows.append(row)
    side = _csv_side(conns, udp_lines, len(rows), header)
    for r in rows:
        lip, lport, rip, rport = r.pop("local")
        local, peer = f"{lip}:{lport}", f"{rip}:{rport}"
        r["src"], r["dst"] = (peer, local) if side == "server" else (local, peer)
    return rows, side


def _parse_e_tail(rest: str, row: dict) -> bool:
    """Fill the -e client columns (or the UDP server columns) of *row*; False when neither matches."""
    me = _TCP_E_TAIL.match(rest)
    if me:
        row["writes"] = float(me["writes"])
        row["write_errors"] = float(me["werr"])
        if me["rtry"] is not None:
            row["retransmits"] = float(me["rtry"])
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
    return False


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
    optionally Wait before and fq-rate after, and the UDP server columns Jitter,
    Lost/Total. The ``N datagrams received out-of-order`` lines give ``out_of_order``;
    trip-time and L2-error lines are informational and skipped. With ``-y C`` every line
    is ``timestamp,src_ip,src_port,dst_ip,dst_port,id,t0-t1,bytes,bits_per_second`` (UDP
    adds ``jitter_ms,lost,total,loss%,out_of_order``); with ``-e -y C`` (2.1+) a header line
    ``time,srcaddress,srcport,...`` names the columns (``istart,iend`` apart, then
    ``writecnt,writeerr,tcpretry,tcpcwnd,tcprtt,tcprttvar`` or the UDP ones). Banner lines
    (``Client connecting to``, ``TCP window size``...) are skipped; a line that starts like
    a report but cannot be parsed is malformed.

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
        ``connection`` (1, 2... per "connected with" line), ``src``, ``dst`` (``ip:port`` of
        the data sender and receiver, also on the server side and with ``-d``).
        The whole-test lines (the second line of a stream that starts at 0, and the
        "Server Report") are not rows: they are in ``attrs["summary"]`` (a list of dicts with
        the same keys plus ``role``). ``attrs["side"]`` is ``"client"``, ``"server"`` or
        ``"dual"`` (``-d`` / ``-r``: both banners).

    Raises
    ------
    MeasurementFormatError
        When no report line is found.

    Notes
    -----
    In CSV the first address is iperf's own socket, so on the server side the data flow
    from the second to the first. The side is recognised from the columns (``readcnt`` /
    ``writecnt`` with ``-e``), the loss columns of UDP, the ports of several connections
    (the listener keeps its port), or else the lower port of the connection (the
    listening port, 5001 by default, is below the ephemeral ports).

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
    """
    name, text = open_text(path)
    rep = Report(name, FORMAT2, EXPECTED2)
    first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
    if _CSV2.match(first) or _CSV2_ENHANCED.match(first) or _CSV2_HEADER.match(first):
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
            local = f"{m['lip'].split('%')[0]}:{m['lport']}"
            peer = f"{m['rip'].split('%')[0]}:{m['rport']}"
            # the connections accepted on the listening port receive; the others send (-d runs both)
            receives = side == "server" or (side == "dual" and int(m["lport"]) == listen_port)
            src, dst = (peer, local) if receives else (local, peer)
            connections[m["id"]] = (n_conn, src, dst)
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
            row["connection"], row["src"], row["dst"] = conn
        if server_report:
            row["role"] = "server report"
            server_report = False
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
    """Separate the whole-test lines from the interval lines (iperf 2)."""
    seen = set()
    intervals, summary = [], []
    for r in rows:
        key = (r["stream"], r.get("connection"))
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


def _iperf3_json(name: str, text: str, rep: Report) -> pd.DataFrame:
    stripped = text.strip()
    docs = []
    if stripped.startswith("{") and '"event"' in stripped[:200] and "\n{" in stripped:
        # --json-stream: one JSON object per line
        doc = {"start": {}, "intervals": [], "end": {}}
        for i, line in iter_lines(text):
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
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
        start = doc.get("start") or {}
        test = start.get("test_start") or {}
        info.setdefault("version", start.get("version"))
        info.setdefault("protocol", test.get("protocol"))
        reverse = bool(test.get("reverse", 0))
        info.setdefault("reverse", reverse)
        # iperf3 before 3.1 writes no "sender" flag in the streams: the client sends unless
        # -R, the server sends only with -R
        is_client = "accepted_connection" not in start
        local_sends = is_client != reverse
        ts = (start.get("timestamp") or {}).get("timesecs")
        info.setdefault("start_epoch_s", float(ts) if ts is not None else None)
        conns = {}
        for c in start.get("connected") or []:
            local = f"{c.get('local_host')}:{c.get('local_port')}"
            remote = f"{c.get('remote_host')}:{c.get('remote_port')}"
            conns[c.get("socket")] = (local, remote)
        nstreams = 0
        for interval in doc.get("intervals") or []:
            streams = interval.get("streams") or []
            nstreams = max(nstreams, len(streams))
            for st in streams:
                rows.append(_json_row(st, conns, local_sends))
            if len(streams) > 1:
                for key in ("sum", "sum_bidir_reverse"):
                    if key in interval:
                        r = _json_row(interval[key], {}, local_sends)
                        r["stream"] = "SUM" if key == "sum" else "SUM-reverse"
                        rows.append(r)
        end = doc.get("end") or {}
        for st in end.get("streams") or []:
            for role in ("sender", "receiver", "udp"):
                if role in st:
                    r = _json_row(st[role], conns, local_sends)
                    r["role"] = role
                    summary.append(_clean_summary(r))
        for key in ("sum_sent", "sum_received", "sum", "sum_sent_bidir_reverse", "sum_received_bidir_reverse"):
            if key in end:
                r = _json_row(end[key], {}, local_sends)
                r["stream"] = "SUM"
                r["role"] = key
                summary.append(_clean_summary(r))
        info.setdefault("congestion", end.get("sender_tcp_congestion"))
    rep.require_something()
    df = _frame(rows)
    info["summary"] = summary
    return rep.finish(df, {k: v for k, v in info.items() if v is not None})


def _json_row(st: dict, conns: dict, local_sends: bool = True) -> dict:
    row = {
        "stream": str(st.get("socket", "SUM")),
        "start_s": st.get("start"),
        "end_s": st.get("end"),
        "time_s": st.get("end"),
        "bytes": st.get("bytes"),
        "rate_bps": st.get("bits_per_second"),
        "retransmits": st.get("retransmits"),
        "cwnd_bytes": st.get("snd_cwnd"),
        "rtt_s": st["rtt"] * 1e-6 if st.get("rtt") is not None else None,
        "rttvar_s": st["rttvar"] * 1e-6 if st.get("rttvar") is not None else None,
        "packets": st.get("packets"),
        "lost_packets": st.get("lost_packets"),
        "jitter_s": st["jitter_ms"] * 1e-3 if st.get("jitter_ms") is not None else None,
        "omitted": st.get("omitted"),
    }
    if st.get("lost_percent") is not None:
        row["loss"] = st["lost_percent"] / 100.0
    elif row["packets"] and row["lost_packets"] is not None:
        row["loss"] = row["lost_packets"] / row["packets"]
    if st.get("max_rtt") is not None:
        row["rtt_s"] = st.get("mean_rtt", 0) * 1e-6
        row["rtt_min_s"] = st["min_rtt"] * 1e-6
        row["rtt_max_s"] = st["max_rtt"] * 1e-6
    if st.get("max_snd_cwnd") is not None:
        row["cwnd_max_bytes"] = st["max_snd_cwnd"]
    sock = st.get("socket")
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

    With ``--timestamps`` every line starts with a date (``Mon Nov 23 11:50:22 2026 `` by
    default, or the format given): the prefix is recognised from the first report line,
    removed, and kept in a ``timestamp`` column. With ``--get-server-output`` the client's
    text ends with a ``Server output:`` block, the server's own report: it is read apart,
    into ``attrs["server_output"]``, and never mixed with the client's intervals.

    JSON (``iperf3 -J``; also ``--json-stream``): every stream of every interval, with
    ``snd_cwnd`` [bytes], ``rtt``/``rttvar`` [us], UDP ``packets``, ``lost_packets``,
    ``jitter_ms``; the ``end`` block goes to ``attrs["summary"]``. The streams of iperf3
    before 3.1 carry no ``sender`` flag: the data direction then follows from the side
    (``accepted_connection`` marks the server) and ``-R`` (``test_start.reverse``).

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
        (``role``); ``attrs["side"]`` ("client" or "server"), ``attrs["reverse"]`` (``-R``);
        with ``--get-server-output``, ``attrs["server_output"]``: ``{"intervals": [...],
        "summary": [...]}`` (dicts with the same keys as the rows).

    Raises
    ------
    MeasurementFormatError
        When the file holds only an iperf3 error (``iperf3: error - ...``, or a JSON
        document with an ``"error"`` key and no intervals), when the JSON is truncated
        (it ends before its closing brace, also inside a string or a number), or when
        nothing in it is an iperf3 report. The message names the file and the line.

    Warns
    -----
    ToolErrorWarning
        When iperf3 reported an error after some intervals (they are returned).

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
            rep.ok()
            continue
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
            sec.in_summary = True
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
            if _LOOKS_LIKE_REPORT.search(s):
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
