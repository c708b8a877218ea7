"""Reader of iperf3 reports: text (client, server, ``--get-server-output``) and ``--json``."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._common import Report, ToolErrorWarning, iter_lines, open_text
from ._iperf_common import (
    _CONNECTED, _DAMAGED_REPORT3, _IPERF3_TCP_TAIL, _LOOKS_LIKE_REPORT, _REPORT, _ROLE, _UDP_TAIL, EXPECTED3,
    FORMAT3, _bad_numbers, _bytes, _clean_summary, _frame, _parse_report, _udp_columns,
)
from .iperf3_json import _iperf3_json

__all__ = ["read_iperf3"]


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
