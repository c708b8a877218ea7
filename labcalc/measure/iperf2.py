"""Reader of iperf 2 reports (text of every version, ``-y C`` CSV)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ._common import BIN, DEC, Report, iter_lines, open_text
from ._vector import Lines, span_codes
from ._iperf2_csv import CSV2, CSV2_ENHANCED, CSV2_HEADER, csv_orientation, parse_iperf2_csv  # noqa: F401
from ._iperf_common import (
    CONNECTED, CONNECT2, E_READS, E_WRITES_PPS, E_WRITES_RTRY, INFORMATIONAL, LETTER_NE, LISTEN2,
    LOOKS_LIKE_REPORT, OUT_OF_ORDER, REPORT, TCP_E_TAIL, UDP_TAIL, EXPECTED2, FORMAT2, bad_numbers,
    CORE, OPTIONAL, clean_summary, build_frame, frame_columns, interval_lines, parse_report, udp_columns,
    write_columns,
)

__all__ = ["read_iperf"]

def _parse_e_tail(rest: str, row: dict) -> bool:
    """Fill the -e columns (client, [SUM], server Reads) or the UDP server columns of *row*; False when none matches."""
    me = TCP_E_TAIL.match(rest)
    if me:
        write_columns(row, me)
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
    mu = UDP_TAIL.match(rest)
    if mu:
        udp_columns(row, mu)
        return True
    mw = E_WRITES_PPS.match(rest) or E_WRITES_RTRY.match(rest)
    if mw:
        write_columns(row, mw)
        return True
    mr = E_READS.match(rest)
    if mr:
        row["reads"] = float(mr["reads"])
        return True
    return False



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
        (``Kbits/sec``: k = 1000; ``-f K``'s ``KBytes/sec``: K = 1024 bytes), and when reported ``retransmits``, ``cwnd_bytes`` [bytes] (K = 1024),
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
    if any(CSV2.match(ln) or CSV2_ENHANCED.match(ln) or CSV2_HEADER.match(ln) for ln in head):
        rows, side = parse_iperf2_csv(text, rep)
        rep.require_something()
        udp = any("packets" in r or "jitter_s" in r for r in rows)
        tcp = any("cwnd_bytes" in r or "retransmits" in r for r in rows)
        intervals, summary = split_summaries(rows)
        df = build_frame(intervals)
        protocol = "UDP" if udp else ("TCP" if tcp else None)
        return rep.finish(df, {"summary": [clean_summary(r) for r in summary], "side": side, "protocol": protocol})
    st = _TextState(rep)
    if _FAST_ENABLED and "out-of-order" not in text:  # out-of-order counts join earlier rows: line by line
        _scan_fast(text, st)
    else:
        for i, line in iter_lines(text):
            _text_line(st, i, line)
    banner = not rep.recognised and re.search(r"^(?:Server listening on|Client connecting to) ", text[:4096], re.M)
    del text
    if banner:  # iperf's banner and no report: a server no client reached, or a client cut at once
        raise rep.fail(rep.first_content_line, f"iperf's banner ({banner[0].strip()}...) but no report line: the test "
                                              "did not run (no client connected, or the run was cut before its first "
                                              "report); save the output of a run that completed")
    rep.require_something()
    st.blocks.add(st.rows)
    st.rows = []
    side = st.side
    df, summary = st.blocks.finish()
    extra = {"summary": [clean_summary(r) for r in summary], "side": side, "protocol": st.protocol}
    if len(st.mss) == 1:  # the segment size every connected line states (iperf 2.1)
        extra["mss_bytes"] = st.mss.pop()
        extra["mss_from"] = ("its connected line's icwnd/mss/irtt (iperf 2.1); iperf 2 prints the window in whole "
                             "KBytes, so the segments are near, not exact")
    return rep.finish(df, extra)


class _TextState:
    """Parser state of an iperf 2 text report (see :func:`_text_line`)."""

    def __init__(self, rep: Report):
        self.rep = rep
        self.side = None
        self.protocol = None  # "TCP" or "UDP", from the banner
        self.listen_port = None
        self.connect_port = None  # the port of the "Client connecting to" banner
        self.mss: set = set()  # the MSS of each connected line (iperf 2.1's icwnd/mss/irtt)
        # stream ID -> (connection number, src, dst, full duplex, "sender" / "receiver": the
        # end that printed the connection's lines)
        self.connections: dict[str, tuple] = {}
        self.n_conn = 0
        self.rows = []
        self.blocks = _IntervalBlocks()
        self.server_report = False
        # tests of a server log: a [SUM] closes one, the next connection opens another
        self.test, self.sum_in_test = 0, False


# A listening or connection line whose port has more than 5 digits: LISTEN2 and CONNECTED
# take ports of at most 5 digits (int() has a 4300-digit limit), so without this check such
# a line would be skipped without a word and its connection lose its addresses.
_PORT_TOO_LONG = re.compile(r"^Server listening on .*\bport \d{6,}|\]\s+local\s+\S+\s+port\s+\d{6,}\s+connected")


def _text_line(st: _TextState, i: int, line: str) -> None:
    """Read one line of an iperf 2 text report (line-by-line parser)."""
    rep = st.rep
    s = line.strip()
    if not s:
        return
    rep.content(i, s)
    m = LISTEN2.match(s)
    if m:
        st.listen_port = int(m["port"])
        st.side = "server" if st.side in (None, "server") else "dual"
        st.protocol = "UDP" if " UDP " in s else "TCP"
        return
    m = CONNECT2.match(s)
    if m:
        st.side = "client" if st.side in (None, "client") else "dual"
        st.protocol = "UDP" if " UDP " in s else "TCP"
        st.connect_port = st.connect_port or int(m["port"][:5])
        return
    if _PORT_TOO_LONG.search(s):  # a banner or connection line whose port cannot be one
        rep.bad(i, s)
        return
    m = CONNECTED.search(s)
    if m:
        _connected(st, m, s)
        rep.ok()
        return
    if s.endswith("Server Report:"):
        st.server_report = True
        rep.ok()
        return
    m = REPORT.search(s)
    if not m:
        mo = OUT_OF_ORDER.search(s)
        if mo:
            _add_out_of_order(st.rows, mo)
            rep.ok()
        elif LOOKS_LIKE_REPORT.search(s) and not INFORMATIONAL.search(s):
            rep.bad(i, s)
        return
    row = parse_report(m)
    _parse_e_tail(m["rest"], row)
    conn = st.connections.get(row["stream"])
    if conn:
        row["connection"], row["src"], row["dst"], full_duplex, row["printed_by"] = conn
        if full_duplex and m["star"]:  # the direction opposite to the unstarred report
            row["src"], row["dst"] = row["dst"], row["src"]
            row["printed_by"] = "sender" if row["printed_by"] == "receiver" else "receiver"
        row["_conn"] = (row["connection"], bool(full_duplex and m["star"]))
    if st.server_report:
        row["role"] = "server report"
        st.server_report = False
    if row["stream"].startswith("SUM"):
        row["_test"], st.sum_in_test = st.test, True
    if len(s) > 300 and bad_numbers(row):  # the regexes take digits only: inf needs > 300 of them
        rep.bad(i, s)
        return
    rep.ok()
    rows = st.rows
    rows.append(row)
    if len(rows) >= _ROWS_PER_BLOCK + _LOOK_BACK:
        # rows beyond the reach of an out-of-order line are complete: columns from here on
        st.blocks.add(rows[:-_LOOK_BACK])
        del rows[:-_LOOK_BACK]


#: iperf 2.1's "(icwnd/mss/irtt=14/1448/42)" after a connected line: tcpi_snd_mss, the segment
#: size the -e window counts (Cwnd: tcpi_snd_cwnd * tcpi_snd_mss / 1024 KBytes)
_ICWND_MSS = re.compile(r"\(icwnd/mss/irtt=\d{1,9}/(?P<mss>\d{1,5})/")


def _connected(st: _TextState, m: re.Match, s: str) -> None:
    """A "[  1] local A port P connected with B port Q" line: the connection's data direction."""
    st.n_conn += 1
    st.test, st.sum_in_test = st.test + st.sum_in_test, False
    local = f"{m['lip'].split('%')[0]}:{m['lport']}"
    peer = f"{m['rip'].split('%')[0]}:{m['rport']}"
    lport, rport = int(m["lport"]), int(m["rport"])
    # the connections accepted on the listening port receive, the others send (-d / -r run
    # both); a starred one is the reverse client thread of a 2.1 server (-d / -r): it sends.
    # A -d client without -L listens on the port it connects to, and may print its listener's
    # banner after the connection (or, its listener not up yet, not at all)
    listens = lport == st.listen_port or (lport == st.connect_port and rport != st.connect_port)
    accepted = not m["star"] and (st.side == "server" or listens)
    flags = s[m.end():]
    # 2.1 --reverse (-R): "(reverse)" on both sides, the server sends
    receives = accepted != ("(reverse)" in flags and not m["star"])
    src, dst = (peer, local) if receives else (local, peer)
    # 2.1 --full-duplex: "[  4]" and "[ *4]" report the two directions of one connection
    st.connections[m["id"]] = (st.n_conn, src, dst, "(full-duplex)" in flags,
                               "receiver" if receives else "sender")
    mss = _ICWND_MSS.search(flags)
    if mss:
        st.mss.add(int(mss["mss"]))


def _add_out_of_order(rows: list[dict], m: re.Match) -> None:
    """Attach an 'N datagrams received out-of-order' line to its interval (printed just after it)."""
    t0, t1 = float(m["t0"]), float(m["t1"])
    for r in reversed(rows[-64:]):
        if r["stream"] == m["id"] and r["start_s"] == t0 and r["end_s"] == t1:
            r["out_of_order"] = r.get("out_of_order", 0.0) + float(m["n"])
            return


def split_summaries(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """Separate the whole-test lines from the interval lines (iperf 2).

    The second line of a stream that starts at 0 is its whole-test line. A stream is its ID
    and its connection (IDs are reused by the tests of a server log); a ``[SUM]`` is the
    sum of one test (``_test``, counted by the parsers), so that every test of a log
    without ``-i`` gives its ``[SUM]`` as a row, as its streams do.
    """
    intervals, summary = _split_rows(rows, set())
    if not intervals and summary:
        intervals = [{k: v for k, v in r.items() if k != "role"} for r in summary]
    return intervals, summary


def _split_rows(rows: list[dict], seen: set) -> tuple[list[dict], list[dict]]:
    """:func:`split_summaries` of consecutive blocks of rows (*seen* carries over)."""
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
    return intervals, summary


#: report rows kept as dicts at most, and the rows an out-of-order line may still reach
_ROWS_PER_BLOCK = 1 << 15
_LOOK_BACK = 64
_OBJECT_COLUMNS = ("stream", "src", "dst", "printed_by", "direction", "timestamp", "omitted", "connection")


class _IntervalBlocks:
    """The rows of an iperf 2 text report, split and turned into columns a block at a time.

    What :func:`split_summaries` and :func:`build_frame` decide on the whole list is kept
    across blocks: the streams seen, which optional columns some row holds, and whether an
    out-of-order count appeared (then every row without one counts 0).
    """

    def __init__(self):
        self.seen = set()
        self.summary = []
        self.blocks = []
        self.present = set()
        self.n = 0
        self.out_of_order = False
        self.cache = {}

    def add(self, rows: list[dict]) -> None:
        self.out_of_order |= any("out_of_order" in r for r in rows)
        intervals, summary = _split_rows(rows, self.seen)
        self.summary.extend(summary)
        cols = {}
        for c in CORE + OPTIONAL:
            values = [r.get(c) for r in intervals]
            if c not in self.present and any(v is not None for v in values):
                self.present.add(c)
            if c in _OBJECT_COLUMNS:
                arr = np.empty(len(values), dtype=object)
                arr[:] = [self.cache.setdefault(v, v) if isinstance(v, str) else v for v in values]
            else:
                try:
                    arr = np.array([np.nan if v is None else v for v in values], dtype=float)
                except (TypeError, ValueError):  # as build_frame: what is not a number is NaN
                    arr = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)
            cols[c] = arr
        cols["_n"] = len(intervals)
        self.blocks.append(cols)
        self.n += len(intervals)

    def finish(self) -> tuple[pd.DataFrame, list[dict]]:
        """``(frame of the intervals, summary rows)``, as :func:`split_summaries` and :func:`build_frame` give them."""
        if self.out_of_order:
            for r in self.summary:
                r.setdefault("out_of_order", 0.0)
        if not self.n:
            intervals = [{k: v for k, v in r.items() if k != "role"} for r in self.summary]
            return build_frame(intervals), self.summary
        data = {}
        for c in CORE + OPTIONAL:  # a fast block leaves out (None) a column it holds no value of
            pieces = [b.pop(c) for b in self.blocks]
            if c not in CORE and c not in self.present and not (c == "out_of_order" and self.out_of_order):
                continue  # left out of the frame (frame_columns)
            data[c] = np.concatenate([_missing(c, b["_n"]) if p is None else p for p, b in zip(pieces, self.blocks)])
            del pieces
        self.blocks = []
        if self.out_of_order:
            ooo = data["out_of_order"]
            ooo[np.isnan(ooo)] = 0.0
            self.present.add("out_of_order")
        return frame_columns(data, self.present), self.summary

    def add_fast(self, cols: dict, keys: list, n: int) -> None:
        """Add *n* rows read by the fast path: columns of ``stream``, ``start_s``, ``end_s``,
        ``bytes``, ``rate_bps`` and (object arrays or None) ``connection``, ``src``, ``dst``,
        ``printed_by``; *keys* gives each row's stream key (as :func:`_split_rows` forms it)."""
        start = cols["start_s"]
        zero = np.flatnonzero(start == 0.0)
        keep = None
        if len(zero):
            seen = self.seen
            summary_at = []
            for k in zero.tolist():
                key = keys[k]
                if key in seen:
                    summary_at.append(k)
                    seen.discard(key)
                else:
                    seen.add(key)
            if summary_at:
                keep = np.ones(n, dtype=bool)
                keep[summary_at] = False
                for k in summary_at:
                    row = {"stream": cols["stream"][k], "start_s": float(start[k]), "end_s": float(cols["end_s"][k]),
                           "bytes": float(cols["bytes"][k]), "rate_bps": float(cols["rate_bps"][k])}
                    row["time_s"] = row["end_s"]
                    if cols["connection"] is not None and cols["connection"][k] is not None:
                        row["connection"], row["src"], row["dst"], row["printed_by"] = (
                            cols["connection"][k], cols["src"][k], cols["dst"][k], cols["printed_by"][k])
                    row["role"] = "summary"
                    self.summary.append(row)
        out = {}
        for c in CORE + OPTIONAL:
            v = cols.get(c)
            if v is not None:
                if keep is not None:
                    v = v[keep]
                if c in ("connection", "src", "dst", "printed_by"):
                    if not any(x is not None for x in v):
                        v = None
                    else:
                        self.present.add(c)
            out[c] = v
        out["time_s"] = out["end_s"]
        out["_n"] = n if keep is None else int(keep.sum())
        self.blocks.append(out)
        self.n += out["_n"]


def _missing(column: str, n: int) -> np.ndarray:
    if column in _OBJECT_COLUMNS:
        return np.full(n, None, dtype=object)
    return np.full(n, np.nan)


# --------------------------------------------------------------------------------------
# fast path: the plain interval lines ("[  3]  0.0- 1.0 sec  1.12 MBytes  9.44 Mbits/sec"), a
# block at a time

#: False makes :func:`read_iperf` read every line with the line-by-line parser (tests compare
#: both on the same files)
_FAST_ENABLED = True
_BLOCK_CHARS = 1 << 20
_FN = r"\d{1,12}(?:\.\d{1,9})?"
_FAST2 = re.compile(
    rf"^(?:[ \t]*\[[ \t]*(\d{{1,9}}|SUM)\][ \t]+({_FN})[ \t]*-[ \t]*({_FN})[ \t]+sec[ \t]+"
    rf"({_FN})[ \t]+([KMGTkmgt]?)Bytes[ \t]+({_FN})[ \t]+([KMGTkmgt]?)bits/sec[ \t\r]*|(.*))$",
    re.M,
)
_BIN_LUT = np.ones(128)
_DEC_LUT = np.ones(128)
for _k in BIN:
    if _k:
        _BIN_LUT[ord(_k)], _DEC_LUT[ord(_k)] = BIN[_k], DEC[_k]


def _scan_fast(text: str, st: _TextState) -> None:
    """Read *text* block by block: runs of plain interval lines as columns (read in bulk by
    :func:`interval_lines`, or by :data:`_FAST2` for the rest, then :func:`_fast_run`),
    every other line by :func:`_text_line`."""
    pos, first = 0, 1
    n_text = len(text)
    while True:
        cut = text.find("\n", pos + _BLOCK_CHARS) if pos + _BLOCK_CHARS < n_text else -1
        block = text[pos:] if cut < 0 else text[pos:cut]
        L = Lines((block + "\n").encode("utf-8", "surrogatepass"), 1)
        vrows, vcols = interval_lines(L, lead=True)
        plain = vcols["kind"] == 0 if len(vrows) else np.zeros(0, dtype=bool)
        vrows = vrows[plain]
        vcols = {c: v[plain] for c, v in vcols.items()}
        n = len(L)
        bulk = np.zeros(n, dtype=bool)
        bulk[vrows] = True
        lines = block.split("\n")
        run: list = []  # consecutive interval lines: (lo, hi, None) read in bulk, (k, k + 1, tuple) by the pattern

        def flush():
            if run:
                _fast_run(st, run, first, L, vrows, vcols, lines)
                run.clear()

        prev = 0
        for k in np.flatnonzero(~bulk).tolist() + [n]:
            if prev < k:  # bulk lines prev..k-1
                if not st.server_report:
                    run.append((prev, k, None))
                else:
                    for j in range(prev, k):
                        flush()
                        _text_line(st, first + j, lines[j].rstrip())
            prev = k + 1
            if k == n:
                break
            m = _FAST2.match(lines[k])
            t = m.groups(default="") if m else ("",) * 7 + (lines[k],)
            if t[0]:
                if not st.server_report:
                    run.append((k, k + 1, t))
                    continue
                line = lines[k]
            else:
                line = t[-1]
                if not line.strip():
                    continue  # a blank line changes nothing
            flush()
            _text_line(st, first + k, line.rstrip())
        flush()
        if cut < 0:
            return
        first += n
        pos = cut + 1


def _fast_run(st: _TextState, run: list, first: int, L: Lines, vrows: np.ndarray, vcols: dict,
              lines: list) -> None:
    """The plain interval lines of *run* ((lo, hi, None): lines lo..hi-1 read in bulk; (k, k + 1,
    tuple): line k read by the pattern), with no other line between them, as :func:`_text_line`
    reads them."""
    if st.rows:  # the rows before are complete (no out-of-order line can reach back: see read_iperf)
        st.blocks.add(st.rows)
        st.rows = []
    ks = np.concatenate([np.arange(lo, hi) for lo, hi, _ in run])
    st.rep.content(first + int(ks[0]))
    st.rep.ok(len(ks))
    n = len(ks)
    cache = st.blocks.cache
    if all(t is None for _, _, t in run):
        sel = np.searchsorted(vrows, ks)
        v = {c: x[sel] for c, x in vcols.items()}
        table: dict[str, int] = {}
        codes = span_codes(L, v["sid_start"], v["sid_end"], table)
        names = np.empty(len(table), dtype=object)
        for name, code in table.items():
            names[code] = cache.setdefault(name, name)
        streams = names[codes]
        sid = list(streams)
        cols = {
            "stream": streams, "start_s": v["t0"], "end_s": v["t1"],
            "bytes": v["xfer"] * _BIN_LUT[v["xu"]], "rate_bps": v["rate"] * _DEC_LUT[v["ru"]],
            "connection": None, "src": None, "dst": None, "printed_by": None,
        }
    else:  # some lines only the pattern read: every line of the run by the pattern, in order
        tuples = [t if t is not None else _FAST2.match(lines[k]).groups(default="")
                  for lo, hi, t in run for k in range(lo, hi)]
        sid, t0, t1, xfer, xu, rate, ru, _ = zip(*tuples)
        streams = np.empty(n, dtype=object)
        streams[:] = list(map(cache.setdefault, sid, sid))
        cols = {
            "stream": streams,
            "start_s": np.array(t0, dtype=np.float64),
            "end_s": np.array(t1, dtype=np.float64),
            "bytes": np.array(xfer, dtype=np.float64) * _unit(xu, _BIN_LUT),
            "rate_bps": np.array(rate, dtype=np.float64) * _unit(ru, _DEC_LUT),
            "connection": None, "src": None, "dst": None, "printed_by": None,
        }
    # the stream key of each row, as _split_rows forms it
    key_of = {}
    for s_id in dict.fromkeys(sid):
        if s_id == "SUM":
            key_of[s_id] = (s_id, st.test)
            st.sum_in_test = True
        else:
            conn = st.connections.get(s_id)
            key_of[s_id] = (s_id, (conn[0], False) if conn else None)
    conns = {s_id: st.connections.get(s_id) for s_id in key_of if s_id != "SUM"}
    if any(conns.values()):
        arr = np.array(sid, dtype=object)
        for name in ("connection", "src", "dst", "printed_by"):
            cols[name] = np.full(n, None, dtype=object)
        for s_id, conn in conns.items():
            if conn:
                at = arr == s_id
                cols["connection"][at] = conn[0]
                cols["src"][at] = conn[1]
                cols["dst"][at] = conn[2]
                cols["printed_by"][at] = conn[4]
    keys = list(map(key_of.__getitem__, sid))
    st.blocks.add_fast(cols, keys, n)


def _unit(col: tuple, lut: np.ndarray) -> np.ndarray:
    codes = np.frombuffer(np.array(col, dtype="U1").tobytes(), dtype=np.uint32)  # "" is 0
    return lut[np.minimum(codes, 127)]
