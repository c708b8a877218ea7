"""Reader of iperf3 reports: text (client, server, ``--get-server-output``) and ``--json``."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._common import BIN, DEC, Report, ToolErrorWarning, iter_lines, open_text
from ._vector import Lines, span_codes
from ._iperf_common import (
    CONNECTED, DAMAGED_REPORT3, IPERF3_TCP_TAIL, LOOKS_LIKE_REPORT, REPORT, ROLE, UDP_TAIL, EXPECTED3,
    FORMAT3, CORE, OPTIONAL, STR_COLUMNS, bad_numbers, amount_bytes, clean_summary, build_frame, frame_columns,
    interval_lines, parse_report, udp_columns,
)
from .iperf3_json import parse_iperf3_json

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
    ``attrs["trailing_text"]`` and the malformed lines. With ``--get-server-output`` the
    client's JSON carries the server's own report, kept apart in ``attrs["server_output"]``
    as from text: ``server_output_json`` (the server ran with ``-J``: a whole iperf3
    document, its intervals and ``end`` block read as the client's, into the same keys) or
    ``server_output_text`` (the server's printout, read as a text ``Server output:``
    block; its malformed lines are counted at the line of the file that holds the text).
    A wrong type inside either is a :class:`MeasurementFormatError` naming the field
    (``server_output_json.intervals[0].streams[0].bytes``).

    Parameters
    ----------
    path : str, path-like, file object or text
        The iperf3 output (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        One row per interval and stream: ``stream`` (socket number or ``"SUM"``),
        ``start_s``, ``end_s``, ``time_s`` (= ``end_s``) [s], ``bytes`` [bytes] (K = 1024;
        3 significant digits in text), ``rate_bps`` [bit/s] (``Kbits/sec``: K = 1000; ``-f K``'s
        ``KBytes/sec``: K = 1024 bytes), ``omitted`` (``-O`` warm-up
        intervals), and when reported ``retransmits``, ``cwnd_bytes`` [bytes], ``rtt_s``,
        ``rttvar_s`` [s], ``packets``, ``lost_packets``, ``loss`` [fraction], ``jitter_s`` [s],
        ``direction`` (``TX-C``... with ``--bidir``), ``src``, ``dst`` (``ip:port`` of the
        data sender and receiver), ``timestamp`` (the ``--timestamps`` prefix as printed,
        a string). ``attrs["summary"]``: list of dicts for the sender/receiver totals
        (``role``; from JSON also ``rtt_s`` (mean), ``rtt_min_s``, ``rtt_max_s`` [s] and
        ``cwnd_max_bytes`` [bytes] of the sender, NaN when iperf3 did not know them);
        ``attrs["side"]`` ("client" or "server"; in JSON from ``start.connecting_to`` /
        ``start.accepted_connection``, else from the streams' ``sender`` flag and ``-R``),
        ``attrs["reverse"]`` (``-R``);
        with ``--get-server-output`` (text or JSON), ``attrs["server_output"]``:
        ``{"intervals": [...], "summary": [...]}`` (dicts with the same keys as the rows;
        from JSON also ``tool_error`` when the server reported an error); from text,
        ``attrs["tests"]``, the number of tests the printout holds (:func:`count_tests`;
        with more than one, a note in ``attrs["notes"]``: their rows are all in the table).

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
        return parse_iperf3_json(name, text, rep, read_text=_server_output_text)
    tests = count_tests(text)
    st = _Text(stamp=timestamp_prefix(text))
    if st.stamp is None and _FAST_ENABLED:
        _scan_fast(text, st, rep)
    else:
        for i, line in iter_lines(text):
            _text_line(st, rep, i, line)
    del text  # a big file: its rows need the memory
    client, server, error = st.client, st.server, st.error
    measured = bool(client.rows or client.fast or client.summary)
    if error is not None and not measured:
        raise rep.fail(error[0], f"iperf3 reported an error and measured nothing: {error[1]!r}")
    if not measured and server is not None:
        raise rep.fail(st.server_line, "only the server's output (--get-server-output) was found, no report of the client")
    rep.require_something()
    if not measured:  # headers only ('[ ID] Interval ...', '- - -'): no test printed a measurement
        raise rep.fail(1, "holds no interval and no end-of-test line of iperf3, only headers or banners: the "
                          "runs measured nothing or their report went elsewhere; save the whole output "
                          "(iperf3 -c HOST ... > FILE 2>&1)")
    tests = max(tests, summary_tests(client.summary))
    extra = {"summary": client.summary, "side": client.side, "reverse": client.reverse, "tests": tests}
    if tests > 1:
        extra["notes"] = [f"{tests} iperf3 tests in one file (a server left running across runs, or runs "
                          "appended to one log): their intervals and end-of-test lines are all in this table, "
                          "each test's times starting at 0 again"]
    if server is not None:
        extra["server_output"] = {"intervals": [clean_summary(r) for r in server.rows], "summary": server.summary}
    if client.mss is not None:
        mss, default, line = client.mss
        if default and mss > 0:
            extra["mss_bytes"], extra["mss_from"] = mss, (f"its line '{line}' (-V); iperf3 prints the window to 3 "
                                                          "significant digits, so the segments are near, not exact")
        else:
            extra["mss_from"] = (f"its line '{line}' (-V) gives the MSS asked with -M: with TCP timestamps a "
                                 "segment carries 12 bytes less")
    if error is not None:
        extra["tool_error"] = error[1]
        warnings.warn(f"{name}, line {error[0]}: {error[1]}", ToolErrorWarning, stacklevel=2)
    df = _merged_frame(client) if client.fast else build_frame(client.rows)
    if "omitted" not in df:
        df["omitted"] = False
    return rep.finish(df, extra)


def count_tests(text: str) -> int:
    """How many iperf3 tests a text printout holds (at least 1).

    A client prints ``Connecting to host`` once per test; a server ``Accepted connection
    from`` once per test (its control connection), and a client with
    ``--get-server-output`` repeats the server's after ``Server output:``.

    Parameters
    ----------
    text : str
        The whole printout.

    Returns
    -------
    int
        The number of tests [1].

    Examples
    --------
    >>> count_tests("Accepted connection from 10.0.0.1, port 1\\n...\\nAccepted connection from 10.0.0.1, port 2\\n")
    2
    >>> count_tests("Connecting to host 10.0.0.2, port 5201\\nServer output:\\nAccepted connection from 10.0.0.1, port 1\\n")
    1
    """
    client = text.count("Connecting to host ")
    server = text.count("Accepted connection from ") - text.count("Server output:")
    return max(1, client, server)


def summary_tests(summary: list) -> int:
    """How many tests the end-of-test lines of a printout belong to (at least 1).

    One test prints each stream's ``sender`` and ``receiver`` line once (``--bidir``: once
    per direction). The same stream and role printed again is the summary of another test:
    runs appended without their ``Connecting to host`` banner, or the sender and receiver
    lines of several runs picked out with ``grep``.

    Parameters
    ----------
    summary : list of dict
        The end-of-test rows (``attrs["summary"]`` of :func:`read_iperf3`).

    Returns
    -------
    int
        The largest number of times one (stream, role, direction) is printed [1].

    Examples
    --------
    >>> row = {"stream": "5", "role": "receiver"}
    >>> summary_tests([row, dict(row, role="sender"), row])
    2
    """
    seen: dict = {}
    for r in summary:
        key = (str(r.get("stream")), r.get("role"), r.get("direction"))
        seen[key] = seen.get(key, 0) + 1
    return max(seen.values(), default=1)


def _server_output_text(text: str, reverse: bool) -> tuple[dict, int, str | None]:
    """The server's printout in a JSON document's ``server_output_text``, read as a ``Server
    output:`` block of a text file: its ``attrs["server_output"]`` shape, and the number of
    malformed lines with the first of them (for the JSON reader's report)."""
    rep = Report("server_output_text", FORMAT3, EXPECTED3)
    st = _Text(stamp=timestamp_prefix(text))
    st.client.reverse = reverse
    _text_line(st, rep, 0, "Server output:")
    for i, line in iter_lines(text):
        _text_line(st, rep, i, line)
    server = {"intervals": [clean_summary(r) for r in st.server.rows], "summary": st.server.summary}
    if st.error is not None:
        server["tool_error"] = st.error[1]
    return server, rep.malformed_count, rep.first_bad_text


@dataclass
class _Text:
    """Parser state of an iperf3 text file: the client's report and, after ``Server output:``, the server's."""

    stamp: re.Pattern | None = None
    client: _Section = None
    sec: _Section = None
    server: _Section | None = None
    server_line: int | None = None
    error: tuple | None = None

    def __post_init__(self):
        self.client = self.sec = _Section()


def _switch_section(st: _Text, i: int, s: str) -> bool:
    """Follow ``--get-server-output``: after ``Server output:`` the server's own report, kept
    apart from the client's; runs appended to one log go back to the client's report at the
    next ``Connecting to host``, and each run's server report joins the same server section.
    True when *s* was the ``Server output:`` line itself."""
    if s.startswith("Server output:"):
        if st.server is None:
            st.server = _Section(side="server", reverse=st.client.reverse)
            st.server_line = i
        st.sec = st.server
        return True
    if s.startswith("Connecting to host") and st.sec is st.server:
        st.sec = st.client
    return False


def _text_line(st: _Text, rep: Report, i: int, line: str) -> None:
    """Read one line (trailing blanks removed) into the parser state *st*."""
    ts = None
    if st.stamp is not None:
        mt = st.stamp.match(line)
        if mt:
            ts, line = mt.group(0).strip(), line[mt.end():]
    s = line.strip()
    if not s:
        return
    rep.content(i, s)
    if _switch_section(st, i, s):
        rep.ok()
        return
    sec = st.sec
    if s.startswith("[ ID]"):
        sec.header = s
        sec.version += 1
        # with -P N iperf3 prints the separator between interval groups as well: only a
        # separator followed by the column header opens the sender/receiver summary
        if sec.after_separator:
            sec.in_summary = True
        sec.after_separator = False
        rep.ok()
        return
    sec.after_separator = False
    if s.startswith("iperf3: error") or s.startswith("iperf3: interrupt"):
        st.error = (i, s)
        return
    if s.startswith("Connecting to host"):
        sec.side = "client"
    elif s.startswith("Server listening on") or s.startswith("Accepted connection from"):
        sec.side = "server"
        sec.in_summary = False
    elif s.startswith("Reverse mode"):
        sec.reverse = True
    elif s.startswith("TCP MSS:") and _mss_line(sec, s):
        rep.ok()
        return
    if s.startswith("- - - -"):
        sec.after_separator = True
        rep.ok()
        return
    m = CONNECTED.search(s)
    if m:
        local, peer = f"{m['lip']}:{m['lport']}", f"{m['rip']}:{m['rport']}"
        sender_is_local = (sec.side == "client") != sec.reverse
        sec.connections[m["id"]] = (local, peer) if sender_is_local else (peer, local)
        sec.version += 1
        sec.in_summary = False
        rep.ok()
        return
    m = REPORT.search(s)
    if not m:
        if LOOKS_LIKE_REPORT.search(s) or DAMAGED_REPORT3.match(s):
            rep.bad(i, s)
        return
    row = parse_report(m)
    if ts is not None:
        row["timestamp"] = ts
    rest = m["rest"]
    role = ROLE.search(rest)
    if role:
        rest = rest[: role.start()]
    if "(omitted)" in rest:
        row["omitted"] = True
        rest = rest.replace("(omitted)", "")
    else:
        row["omitted"] = False
    rest = rest.strip()
    if rest:
        mu = UDP_TAIL.match(rest)
        if mu:
            udp_columns(row, mu)
        else:
            mt = IPERF3_TCP_TAIL.match(rest)
            if mt and mt["cwnd"] is not None:
                row["retransmits"] = float(mt["retr"])
                row["cwnd_bytes"] = amount_bytes(mt["cwnd"], mt["cu"])
            elif mt and not mt["tail"].strip():
                # one number: Retr (TCP) or Total Datagrams (UDP sender), as the header says
                if _datagram_header(sec.header):
                    row["packets"] = float(mt["retr"])
                else:
                    row["retransmits"] = float(mt["retr"])
            else:
                rep.bad(i, s)
                return
    conn = sec.connections.get(row["stream"])
    if conn:
        # --bidir: the RX streams carry data from the remote side
        row["src"], row["dst"] = conn[::-1] if str(row.get("direction", "")).startswith("RX") else conn
    if len(s) > 300 and bad_numbers(row):  # the regexes take digits only: inf needs > 300 of them
        rep.bad(i, s)
        return
    rep.ok()
    if sec.in_summary or role:
        row["role"] = role.group(1) if role else "summary"
        sec.summary.append(clean_summary(row))
    else:
        sec.rows.append(row)
        sec.row_lines.append(i)


def _mss_line(sec: "_Section", s: str) -> bool:
    """Keep -V's "TCP MSS: 1448 (default)" line in ``sec.mss``; False when *s* is not one."""
    m = _MSS_LINE.match(s)
    if m is None:
        return False
    if sec.mss is None:
        sec.mss = (int(m["mss"]), bool(m["default"]), f"TCP MSS: {int(m['mss'])}" + (" (default)" if m["default"] else ""))
    return True


def _datagram_header(header: str) -> bool:
    """True when the column header announces a UDP sender's Total Datagrams (not TCP's Retr)."""
    return "Datagrams" in header and "Retr" not in header


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
    # fast path (see _scan_fast): line numbers of ``rows``, a state version that changes
    # with the header and the connections, and the column blocks of the regular lines
    row_lines: list = field(default_factory=list)
    version: int = 0
    fast: list = field(default_factory=list)
    streams: dict = field(default_factory=dict)
    mss: tuple | None = None  # (bytes, whether "(default)", the line) of -V's "TCP MSS:" line


#: -V's "TCP MSS: 1448 (default)" (the connection's own) or "TCP MSS: 1000" (the MSS -M asked
#: for: with TCP timestamps each segment carries 12 bytes less)
_MSS_LINE = re.compile(r"^TCP MSS:\s*(?P<mss>\d{1,5})\b(?P<default>\s*\(default\))?")


# lines of an iperf3 report that start where the text starts, after any --timestamps prefix
_ANCHOR3 = re.compile(
    r"\[\s*(?:\*?\d+|SUM|ID)\]|Connecting to host|Server listening on|Accepted connection from|- - - - -"
    r"|iperf Done|Reverse mode|iperf3: |Server output:|Test Complete|-{20,}"
)
_SHAPE = re.compile(r"(\d+)|([A-Za-z]+)|(\s+)|(.)")


def timestamp_prefix(text: str):
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


# --------------------------------------------------------------------------------------
# fast path: the regular interval lines of the client's report, parsed a block at a time

#: False makes :func:`read_iperf3` read every line with the line-by-line parser (tests
#: compare both on the same files)
_FAST_ENABLED = True
_BLOCK_CHARS = 1 << 20
_FN = r"\d{1,12}(?:\.\d{1,9})?"
# one match per line: the groups of a regular interval line (TCP with Retr and Cwnd, Retr
# alone or a UDP sender's datagrams, a UDP receiver's jitter and loss, "(omitted)"), or the
# whole line in the last group. Digits are bounded (no inf), blanks are spaces and tabs;
# anything else falls to the last group and is read by _text_line.
_FAST3 = re.compile(
    r"^(?:\[[ \t]*(\d{1,9}|SUM)\](?:\[([A-Z]{2}-[A-Z])\])?[ \t]+"
    rf"({_FN})[ \t]*-[ \t]*({_FN})[ \t]+sec[ \t]+({_FN})[ \t]+([KMGTkmgt]?)Bytes[ \t]+"
    rf"({_FN})[ \t]+([KMGTkmgt]?)bits/sec"
    rf"(?:[ \t]+(\d{{1,12}})(?:[ \t]+({_FN})[ \t]+([KMGT]?)Bytes)?"
    rf"|[ \t]+({_FN})[ \t]*ms[ \t]+(-?\d{{1,12}})[ \t]*/[ \t]*(\d{{1,12}})(?:[ \t]*\([^()\n]*%\))?)?"
    r"[ \t]*(\(omitted\))?[ \t]*|(.*))$",
    re.M,
)
_BIN_LUT = np.ones(128)
_DEC_LUT = np.ones(128)
for _k in BIN:
    if _k:
        _BIN_LUT[ord(_k)], _DEC_LUT[ord(_k)] = BIN[_k], DEC[_k]


def _scan_fast(text: str, st: _Text, rep: Report) -> None:
    """Read *text* block by block: the regular interval lines of the client's report (outside
    the summary) as columns (:func:`interval_lines` in bulk, :func:`_fast_part` for the rarer
    shapes the pattern knows), every other line by :func:`_text_line`."""
    client = st.client
    pos, first = 0, 1
    while True:
        cut = text.find("\n", pos + _BLOCK_CHARS) if pos + _BLOCK_CHARS < len(text) else -1
        block = text[pos:] if cut < 0 else text[pos:cut]
        L = Lines((block + "\n").encode("utf-8", "surrogatepass"), 1)
        vrows, vcols = interval_lines(L)
        n = len(L)
        regular = np.zeros(n, dtype=bool)
        regular[vrows] = True
        lines = block.split("\n")
        # per state version: rows of the bulk columns, and (index, regex tuple) of the others
        buckets: dict[int, tuple[list, list]] = {}
        states: dict[int, tuple] = {}
        others = np.flatnonzero(~regular)
        prev = 0

        def take(lo: int, hi: int) -> None:
            """The bulk lines lo..hi-1: regular lines of the client's report, or text lines."""
            if lo >= hi:
                return
            if st.sec is client and not client.in_summary:
                b = buckets.get(client.version)
                if b is None:
                    b = buckets[client.version] = ([], [])
                    states[client.version] = (dict(client.connections), _datagram_header(client.header))
                b[0].append((lo, hi))
                client.after_separator = False
            else:
                for k in range(lo, hi):
                    _text_line(st, rep, first + k, lines[k].rstrip())

        for k in others:
            k = int(k)
            take(prev, k)
            prev = k + 1
            t = _FAST3.match(lines[k])
            t = t.groups(default="") if t else ("",) * 15 + (lines[k],)
            if t[0] and st.sec is client and not client.in_summary:
                b = buckets.get(client.version)
                if b is None:
                    b = buckets[client.version] = ([], [])
                    states[client.version] = (dict(client.connections), _datagram_header(client.header))
                b[1].append((k, t))
                client.after_separator = False
            else:
                _text_line(st, rep, first + k, (t[-1] or lines[k]).rstrip())
        take(prev, n)
        for version, (spans, tuples) in buckets.items():
            conns, datagrams = states[version]
            if spans:
                rows = np.concatenate([np.arange(lo, hi) for lo, hi in spans])
                rep.content(first + int(rows[0]))
                rep.ok(len(rows))
                sel = np.searchsorted(vrows, rows)
                client.fast.append(_vector_part(client, L, {c: v[sel] for c, v in vcols.items()}, rows, first,
                                                conns, datagrams))
            if tuples:
                rep.content(first + tuples[0][0])
                rep.ok(len(tuples))
                client.fast.append(_fast_part(client, [t for _, t in tuples], list(range(len(tuples))), 0,
                                              conns, datagrams, lines=[first + k for k, _ in tuples]))
        if cut < 0:
            return
        first += n
        pos = cut + 1


def _vector_part(sec: _Section, L: Lines, v: dict, rows: np.ndarray, first: int, conns: dict,
                 datagrams: bool) -> dict:
    """Columns of the regular lines read in bulk, as :func:`_fast_part` makes them from tuples."""
    n = len(rows)
    nan = np.full(n, np.nan)
    kind = v["kind"]
    table: dict[str, int] = {}
    local = span_codes(L, v["sid_start"], v["sid_end"], table)
    remap = np.empty(len(table), dtype=np.int32)
    for name, code in table.items():
        remap[code] = sec.streams.setdefault(name, len(sec.streams))
    streams = remap[local]
    end = v["t1"]
    cols = {
        "start_s": v["t0"], "end_s": end, "time_s": end,
        "bytes": v["xfer"] * _BIN_LUT[v["xu"]], "rate_bps": v["rate"] * _DEC_LUT[v["ru"]],
        "omitted": np.zeros(n, dtype=bool), "stream": streams,
    }
    if conns:
        names = {code: s_ for s_, code in sec.streams.items()}
        src, dst = np.full(n, -1, np.int32), np.full(n, -1, np.int32)
        for code in np.unique(streams):
            conn = conns.get(names[int(code)])
            if conn:
                src[streams == code] = sec.streams.setdefault(conn[0], len(sec.streams))
                dst[streams == code] = sec.streams.setdefault(conn[1], len(sec.streams))
        if (src >= 0).any():
            cols["src"], cols["dst"] = src, dst
    has_count = (kind == 1) | (kind == 2)
    if has_count.any():
        values = np.where(has_count, v["count"], nan)
        with_cwnd = kind == 2
        single = has_count & ~with_cwnd
        if with_cwnd.any():
            cols["cwnd_bytes"] = np.where(with_cwnd, v["cwnd"] * _BIN_LUT[v["cu"]], nan)
        if datagrams:
            if with_cwnd.any():
                cols["retransmits"] = np.where(with_cwnd, values, nan)
            if single.any():
                cols["packets"] = np.where(single, values, nan)
        else:
            cols["retransmits"] = values
    udp = kind == 3
    if udp.any():
        lost_v = np.where(udp, v["lost"], nan)
        tot_v = np.where(udp, v["total"], nan)
        cols["jitter_s"] = np.where(udp, v["jitter"], nan) * 1e-3
        cols["lost_packets"] = lost_v
        prev = cols.get("packets")
        cols["packets"] = tot_v if prev is None else np.where(udp, tot_v, prev)
        with np.errstate(divide="ignore", invalid="ignore"):
            cols["loss"] = np.where(udp & (tot_v != 0), lost_v / tot_v, nan)
    cols["_line"] = first + rows.astype(np.int64)
    return cols


def _optional(col: tuple):
    """Floats of a tuple of digit strings ('' where absent): ``(values with NaN, present)`` or None."""
    if "" not in col:
        return np.array(col, dtype=np.float64), None
    has = np.array([bool(v) for v in col])
    if not has.any():
        return None
    vals = np.full(len(col), np.nan)
    vals[has] = np.array([v for v in col if v], dtype=np.float64)
    return vals, has


def _unit(col: tuple, lut: np.ndarray) -> np.ndarray:
    codes = np.frombuffer(np.array(col, dtype="U1").tobytes(), dtype=np.uint32)
    return lut[np.minimum(codes, 127)]


def _codes(col: tuple, table: dict) -> np.ndarray:
    """int32 codes of strings in *table* (extended); '' is -1."""
    uniq = list(dict.fromkeys(col))
    if len(uniq) == 1:
        code = table.setdefault(uniq[0], len(table)) if uniq[0] else -1
        return np.full(len(col), code, dtype=np.int32)
    if len(uniq) <= 16:
        arr = np.array(col)
        out = np.full(len(col), -1, dtype=np.int32)
        for v in uniq:
            if v:
                out[arr == v] = table.setdefault(v, len(table))
        return out
    return np.fromiter((table.setdefault(v, len(table)) if v else -1 for v in col), np.int32, len(col))


def _fast_part(sec: _Section, tuples: list, ks: list, first: int, conns: dict, datagrams: bool,
               lines: list | None = None) -> dict:
    """Columns of the regular lines *ks* of a block (see :data:`_FAST3`), as :func:`_text_line` reads them."""
    n = len(ks)
    (sid, dirn, t0, t1, xfer, xu, rate, ru, retr, cwnd, cu, jit, lost, tot, omit, _) = zip(*[tuples[k] for k in ks])
    end = np.array(t1, dtype=np.float64)
    cols = {
        "start_s": np.array(t0, dtype=np.float64), "end_s": end, "time_s": end,
        "bytes": np.array(xfer, dtype=np.float64) * _unit(xu, _BIN_LUT),
        "rate_bps": np.array(rate, dtype=np.float64) * _unit(ru, _DEC_LUT),
        "omitted": np.array([bool(v) for v in omit]) if any(omit) else np.zeros(n, dtype=bool),
    }
    streams = _codes(sid, sec.streams)
    cols["stream"] = streams
    rx = np.zeros(n, dtype=bool)
    if any(dirn):
        cols["direction"] = _codes(dirn, sec.streams)
        rx = np.array([v.startswith("RX") for v in dirn])
    if conns:
        names = {code: s for s, code in sec.streams.items()}
        key = streams.astype(np.int64) * 2 + rx
        src, dst = np.full(n, -1, np.int32), np.full(n, -1, np.int32)
        for k in np.unique(key):
            conn = conns.get(names[k // 2])
            if conn:
                a, b = conn[::-1] if k % 2 else conn
                src[key == k] = sec.streams.setdefault(a, len(sec.streams))
                dst[key == k] = sec.streams.setdefault(b, len(sec.streams))
        if (src >= 0).any():
            cols["src"], cols["dst"] = src, dst
    nan = np.full(n, np.nan)
    r = _optional(retr)
    if r is not None:
        values, has = r
        c = _optional(cwnd)
        with_cwnd = np.zeros(n, dtype=bool) if c is None else (np.ones(n, dtype=bool) if c[1] is None else c[1])
        single = (np.ones(n, dtype=bool) if has is None else has) & ~with_cwnd
        if c is not None:
            cols["cwnd_bytes"] = c[0] * _unit(cu, _BIN_LUT)
        if datagrams:
            cols["retransmits"] = np.where(with_cwnd, values, nan) if c is not None else None
            cols["packets"] = np.where(single, values, nan) if single.any() else None
        else:
            cols["retransmits"] = values
    u = _optional(jit)
    if u is not None:
        j, has = u
        udp = np.ones(n, dtype=bool) if has is None else has
        lost_v = _optional(lost)[0]
        tot_v = _optional(tot)[0]
        cols["jitter_s"] = j * 1e-3
        cols["lost_packets"] = lost_v
        prev = cols.get("packets")
        cols["packets"] = tot_v if prev is None else np.where(udp, tot_v, prev)
        with np.errstate(divide="ignore", invalid="ignore"):
            cols["loss"] = np.where(udp & (tot_v != 0), lost_v / tot_v, nan)
    cols = {k: v for k, v in cols.items() if v is not None}
    cols["_line"] = first + np.asarray(ks, dtype=np.int64) if lines is None else np.asarray(lines, dtype=np.int64)
    return cols


def _merged_frame(sec: _Section) -> pd.DataFrame:
    """The frame of a report read partly by the fast path: its column blocks and its other rows, in line order."""
    parts, sec.fast = sec.fast, []  # the blocks are freed as the columns are joined
    if sec.rows:
        slow = {"_line": np.asarray(sec.row_lines, dtype=np.int64)}
        for c in CORE + OPTIONAL:
            vals = [r.get(c) for r in sec.rows]
            if all(v is None for v in vals):
                continue
            if c in STR_COLUMNS:
                slow[c] = np.fromiter((-1 if v is None else sec.streams.setdefault(v, len(sec.streams)) for v in vals),
                                      np.int32, len(vals))
            elif c == "omitted":
                slow[c] = np.array([bool(v) for v in vals])
            else:
                slow[c] = np.array([np.nan if v is None else v for v in vals], dtype=np.float64)
        parts.append(slow)
    names = np.empty(len(sec.streams) + 1, dtype=object)  # the last one is code -1: missing
    for s, code in sec.streams.items():
        names[code] = s
    present = {c for p in parts for c in p}
    line = np.concatenate([p["_line"] for p in parts])
    order = None if np.all(line[1:] > line[:-1]) else np.argsort(line, kind="stable")
    data = {}
    for c in sorted(present - {"_line"}):
        if c in STR_COLUMNS:
            v = np.concatenate([p.get(c, np.full(len(p["_line"]), -1, np.int32)) for p in parts])
            v = names[v if order is None else v[order]]
        else:
            fill = (lambda m: np.zeros(m, dtype=bool)) if c == "omitted" else (lambda m: np.full(m, np.nan))
            v = np.concatenate([p.get(c, fill(len(p["_line"]))) for p in parts])
            v = v if order is None else v[order]
        data[c] = v
        for p in parts:
            p.pop(c, None)
    return frame_columns(data, present)
