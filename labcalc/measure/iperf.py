"""Readers of iperf 2 and iperf3 reports (text, iperf 2 CSV, iperf3 JSON)."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd

from ._common import BIN, DEC, Report, ToolErrorWarning, iter_lines, open_text

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
_TCP_E_TAIL = re.compile(
    r"^\s*(?P<writes>\d+)/(?P<werr>\d+)\s+(?:(?P<rtry>\d+)\s+)?(?P<cwnd>-?\d+)(?P<cu>[KMG]?)/(?P<rtt>\d+(?:\.\d+)?)"
    r"(?:\((?P<rttvar>\d+(?:\.\d+)?)\))?\s*(?P<rttu>us|ms)(?:\s+(?P<netpwr>\S+))?"
)
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
    "retransmits", "cwnd_bytes", "rtt_s", "rttvar_s", "writes", "write_errors", "packets", "lost_packets",
    "loss", "jitter_s", "omitted", "direction", "connection", "src", "dst",
]


def _frame(rows: list[dict]) -> pd.DataFrame:
    cols = list(_CORE)
    for c in _OPTIONAL:
        if any(r.get(c) is not None for r in rows):
            cols.append(c)
    data = {c: [r.get(c) for r in rows] for c in cols}
    df = pd.DataFrame(data, columns=cols)
    for c in cols:
        if c in ("stream", "src", "dst", "direction"):
            df[c] = df[c].astype("str")
        elif c == "omitted":
            df[c] = df[c].fillna(False).astype(bool)
        elif c == "connection":
            df[c] = df[c].astype("Int64")
        else:
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    for c in ("retransmits", "packets", "lost_packets"):
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


def _parse_iperf2_csv(text: str, rep: Report) -> list[dict]:
    rows = []
    for i, line in iter_lines(text):
        if not line.strip():
            continue
        f = line.split(",")
        try:
            t0, t1 = (float(x) for x in f[6].split("-"))
            row = {
                "timestamp": f[0],
                "src": f"{f[1]}:{f[2]}",
                "dst": f"{f[3]}:{f[4]}",
                "stream": f[5].strip(),
                "start_s": t0,
                "end_s": t1,
                "time_s": t1,
                "bytes": float(f[7]),
                "rate_bps": float(f[8]),
            }
            if len(f) >= 14:  # UDP: jitter(ms), lost, total, loss %, out of order
                row["jitter_s"] = float(f[9]) * 1e-3
                row["lost_packets"] = float(f[10])
                row["packets"] = float(f[11])
                row["loss"] = row["lost_packets"] / row["packets"] if row["packets"] else np.nan
        except (IndexError, ValueError):
            rep.bad(i, line)
            continue
        rep.ok()
        rows.append(row)
    return rows


_CSV2 = re.compile(r"^\d{14}(?:\.\d+)?,[^,]*,\d+,[^,]*,\d+,-?\d+,\d+(?:\.\d+)?-\d+(?:\.\d+)?,")


def read_iperf(path) -> pd.DataFrame:
    """Read an iperf 2 report (client or server side, text or ``-y C`` CSV).

    Accepted report lines (interval styles of every iperf 2 version)::

        [  3]  0.0- 1.0 sec  20.0 MBytes   168 Mbits/sec                         (2.0.5)
        [  3]  0.00-1.00 sec  1.12 MBytes  9.41 Mbits/sec                         (2.0.10+)
        [  1] 0.0000-1.0000 sec  2.25 MBytes  18.9 Mbits/sec  18/0  0  260K/166295(24066) us  14.19
        [  1] 0.0000-1.0000 sec  1.16 MBytes  9.74 Mbits/sec   0.383 ms 179/1007 (18%)
        [SUM]  0.0-10.0 sec  ...

    i.e. the plain columns, the ``-e`` (enhanced) client columns Write/Err, Rtry, Cwnd/RTT(var),
    and the UDP server columns Jitter, Lost/Total. With ``-y C`` every line is
    ``timestamp,src_ip,src_port,dst_ip,dst_port,id,t0-t1,bytes,bits_per_second`` (UDP adds
    ``jitter_ms,lost,total,loss%,out_of_order``). Banner lines (``Client connecting to``,
    ``TCP window size``...) are skipped; a line that starts like a report but cannot be
    parsed is malformed.

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
        (k = 1000), and when reported ``retransmits``, ``cwnd_bytes`` [bytes], ``rtt_s``,
        ``rttvar_s`` [s], ``writes``, ``write_errors``, ``jitter_s`` [s], ``lost_packets``,
        ``packets``, ``loss`` [fraction], ``connection`` (1, 2... per "connected with" line),
        ``src``, ``dst`` (``ip:port`` of the data sender and receiver).
        The whole-test lines (the second line of a stream that starts at 0, and the
        "Server Report") are not rows: they are in ``attrs["summary"]`` (a list of dicts with
        the same keys plus ``role``).

    Raises
    ------
    MeasurementFormatError
        When no report line is found.

    References
    ----------
    .. [1] iperf 2 user documentation, https://iperf2.sourceforge.io/iperf-manpage.html
       (``-i``, ``-e``, ``-y C``); source ``src/ReportOutputs.c``.

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
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    if _CSV2.match(first.strip()):
        rows = _parse_iperf2_csv(text, rep)
        rep.require_something()
        intervals, summary = _split_summaries(rows)
        df = _frame(intervals)
        return rep.finish(df, {"summary": [_clean_summary(r) for r in summary], "side": None})
    side = None
    connections: dict[str, tuple[int, str, str]] = {}
    n_conn = 0
    rows = []
    server_report = False
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        rep.content(i, s)
        if side is None:
            if s.startswith("Client connecting to"):
                side = "client"
            elif s.startswith("Server listening on"):
                side = "server"
        m = _CONNECTED.search(s)
        if m:
            n_conn += 1
            local = f"{m['lip'].split('%')[0]}:{m['lport']}"
            peer = f"{m['rip'].split('%')[0]}:{m['rport']}"
            src, dst = (peer, local) if side == "server" else (local, peer)
            connections[m["id"]] = (n_conn, src, dst)
            rep.ok()
            continue
        if s.endswith("Server Report:"):
            server_report = True
            rep.ok()
            continue
        m = _REPORT.search(s)
        if not m:
            if _LOOKS_LIKE_REPORT.search(s):
                rep.bad(i, s)
            continue
        row = _parse_report(m)
        rest = m["rest"]
        mu = _UDP_TAIL.match(rest)
        me = _TCP_E_TAIL.match(rest) if not mu else None
        if mu:
            row["jitter_s"] = float(mu["jitter"]) * 1e-3
            row["lost_packets"] = float(mu["lost"])
            row["packets"] = float(mu["total"])
            row["loss"] = row["lost_packets"] / row["packets"] if row["packets"] else np.nan
        elif me:
            row["writes"] = float(me["writes"])
            row["write_errors"] = float(me["werr"])
            if me["rtry"] is not None:
                row["retransmits"] = float(me["rtry"])
            cwnd = float(me["cwnd"])
            row["cwnd_bytes"] = cwnd * BIN[me["cu"]] if cwnd >= 0 else np.nan
            scale = 1e-6 if me["rttu"] == "us" else 1e-3
            row["rtt_s"] = float(me["rtt"]) * scale
            if me["rttvar"]:
                row["rttvar_s"] = float(me["rttvar"]) * scale
        conn = connections.get(row["stream"])
        if conn:
            row["connection"], row["src"], row["dst"] = conn
        if server_report:
            row["role"] = "server report"
            server_report = False
        rep.ok()
        rows.append(row)
    rep.require_something()
    intervals, summary = _split_summaries(rows)
    df = _frame(intervals)
    return rep.finish(df, {"summary": [_clean_summary(r) for r in summary], "side": side})


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
                at_end = not text[exc.pos:].strip()
                if at_end:
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
        info.setdefault("reverse", bool(test.get("reverse", 0)))
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
                rows.append(_json_row(st, conns))
            if len(streams) > 1:
                for key in ("sum", "sum_bidir_reverse"):
                    if key in interval:
                        r = _json_row(interval[key], {})
                        r["stream"] = "SUM" if key == "sum" else "SUM-reverse"
                        rows.append(r)
        end = doc.get("end") or {}
        for st in end.get("streams") or []:
            for role in ("sender", "receiver", "udp"):
                if role in st:
                    r = _json_row(st[role], conns)
                    r["role"] = role
                    summary.append(_clean_summary(r))
        for key in ("sum_sent", "sum_received", "sum", "sum_sent_bidir_reverse", "sum_received_bidir_reverse"):
            if key in end:
                r = _json_row(end[key], {})
                r["stream"] = "SUM"
                r["role"] = key
                summary.append(_clean_summary(r))
        info.setdefault("congestion", end.get("sender_tcp_congestion"))
    rep.require_something()
    df = _frame(rows)
    info["summary"] = summary
    return rep.finish(df, {k: v for k, v in info.items() if v is not None})


def _json_row(st: dict, conns: dict) -> dict:
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
        sender = st.get("sender", True)
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

    JSON (``iperf3 -J``; also ``--json-stream``): every stream of every interval, with
    ``snd_cwnd`` [bytes], ``rtt``/``rttvar`` [us], UDP ``packets``, ``lost_packets``,
    ``jitter_ms``; the ``end`` block goes to ``attrs["summary"]``.

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
        ``direction`` (``TX-C``... with ``--bidir``), ``src``, ``dst``.
        ``attrs["summary"]``: list of dicts for the sender/receiver totals (``role``).

    Raises
    ------
    MeasurementFormatError
        When the file holds only an iperf3 error (``iperf3: error - ...``, or a JSON
        document with an ``"error"`` key and no intervals), when the JSON is truncated, or
        when nothing in it is an iperf3 report. The message names the file and the line.

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
    rows, summary = [], []
    in_summary = False
    error = None
    connections: dict[str, tuple[str, str]] = {}
    reverse = False
    side = None
    header = ""
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        rep.content(i, s)
        if s.startswith("[ ID]"):
            header = s
            rep.ok()
            continue
        if s.startswith("iperf3: error") or s.startswith("iperf3: interrupt"):
            error = (i, s)
            continue
        if s.startswith("Connecting to host"):
            side = "client"
        elif s.startswith("Server listening on") or s.startswith("Accepted connection from"):
            side = "server"
            in_summary = False
        elif s.startswith("Reverse mode"):
            reverse = True
        if s.startswith("- - - -"):
            in_summary = True
            rep.ok()
            continue
        m = _CONNECTED.search(s)
        if m:
            local, peer = f"{m['lip']}:{m['lport']}", f"{m['rip']}:{m['rport']}"
            sender_is_local = (side == "client") != reverse
            connections[m["id"]] = (local, peer) if sender_is_local else (peer, local)
            in_summary = False
            rep.ok()
            continue
        m = _REPORT.search(s)
        if not m:
            if _LOOKS_LIKE_REPORT.search(s):
                rep.bad(i, s)
            continue
        row = _parse_report(m)
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
                row["jitter_s"] = float(mu["jitter"]) * 1e-3
                row["lost_packets"] = float(mu["lost"])
                row["packets"] = float(mu["total"])
                row["loss"] = row["lost_packets"] / row["packets"] if row["packets"] else np.nan
            else:
                mt = _IPERF3_TCP_TAIL.match(rest)
                if mt and mt["cwnd"] is not None:
                    row["retransmits"] = float(mt["retr"])
                    row["cwnd_bytes"] = _bytes(mt["cwnd"], mt["cu"])
                elif mt and not mt["tail"].strip():
                    # one number: Retr (TCP) or Total Datagrams (UDP sender), as the header says
                    if "Datagrams" in header and "Retr" not in header:
                        row["packets"] = float(mt["retr"])
                    else:
                        row["retransmits"] = float(mt["retr"])
                else:
                    rep.bad(i, s)
                    continue
        conn = connections.get(row["stream"])
        if conn:
            # --bidir: the RX streams carry data from the remote side
            row["src"], row["dst"] = conn[::-1] if str(row.get("direction", "")).startswith("RX") else conn
        rep.ok()
        if in_summary or role:
            row["role"] = role.group(1) if role else "summary"
            summary.append(_clean_summary(row))
        else:
            rows.append(row)
    if error is not None and not rows and not summary:
        raise rep.fail(error[0], f"iperf3 reported an error and measured nothing: {error[1]!r}")
    rep.require_something()
    extra = {"summary": summary, "side": side, "reverse": reverse}
    if error is not None:
        extra["tool_error"] = error[1]
        warnings.warn(f"{name}, line {error[0]}: {error[1]}", ToolErrorWarning, stacklevel=2)
    df = _frame(rows)
    if "omitted" not in df:
        df["omitted"] = False
    return rep.finish(df, extra)
