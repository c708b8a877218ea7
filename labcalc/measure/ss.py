"""Reader of repeated ``ss -ti`` / ``ss -tin`` samples (iproute2 socket statistics)."""

from __future__ import annotations

import re
from math import isinf

import numpy as np
import pandas as pd

from ._common import DEC, Report, iter_lines, open_text

__all__ = ["read_ss"]

FORMAT = "ss"
EXPECTED = (
    "'ss -ti' output: socket lines '<State> <Recv-Q> <Send-Q> <local addr:port> <peer addr:port>' each "
    "followed by an indented line of TCP info ('cubic wscale:7,7 rto:204 rtt:0.2/0.1 ... cwnd:10 ...'), "
    "samples optionally preceded by '# <unix time>' lines"
)

_STATES = (
    "ESTAB|SYN-SENT|SYN-RECV|FIN-WAIT-1|FIN-WAIT-2|TIME-WAIT|CLOSE-WAIT|LAST-ACK|LISTEN|CLOSING|UNCONN|CLOSED"
)
_SOCKET = re.compile(
    rf"^(?:(?P<state>{_STATES})\s+)?(?P<rq>\d+)\s+(?P<sq>\d+)\s+(?P<local>\S+)\s+(?P<peer>\S+)(?P<rest>.*)$"
)
_STAMP = re.compile(r"^#?\s*(?P<t>\d{6,}(?:\.\d+)?)\s*$")
_HEADER = re.compile(r"^(?:State|Netid)?\s*Recv-Q\s+Send-Q\s+Local")
_RATE = re.compile(r"^(?P<v>\d+(?:\.\d+)?)(?P<p>[kKMGT]?)bps$")
_KNOWN_FLAGS = {"app_limited", "ts", "sack", "ecn", "ecnseen", "fastopen", "timer", "cwr", "tfo"}
# key:value tokens that ss may print before the congestion control name: skmem:(...) of -m,
# timer:(...) of -o, and the -e socket details (uid, ino, sk, cgroup...)
_BEFORE_CC = {"skmem", "timer", "uid", "ino", "sk", "cgroup", "tos", "tclass", "class", "fwmark", "v6only"}
_CC_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_INFO_HINT = re.compile(r"\b(?:rtt|cwnd|mss|rto|bytes_acked|send|wscale):?")

_COLUMNS = [
    "time_s", "sample", "state", "src", "dst", "cc", "cwnd_segments", "ssthresh_segments", "rtt_s", "rttvar_s",
    "minrtt_s", "rto_s", "mss_bytes", "bytes_sent", "bytes_acked", "bytes_received", "bytes_retrans",
    "retransmits", "retrans_outstanding", "lost_packets", "unacked_packets", "send_bps", "pacing_rate_bps",
    "delivery_rate_bps", "rate_bps", "recv_q_bytes", "send_q_bytes", "app_limited",
]


def _rate(tok: str) -> float:
    m = _RATE.match(tok)
    return float(m["v"]) * DEC[m["p"]] if m else np.nan


def _info(text: str, row: dict) -> bool:
    """Parse the TCP info tokens of *text* into *row*; True when something was understood."""
    toks = text.replace("\t", " ").split()
    understood = False
    cc_allowed = True  # ss prints the algorithm after the flags, -m's skmem and -o's timer, before wscale
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok in ("send", "pacing_rate", "delivery_rate", "pacing_rate_max") and i + 1 < len(toks):
            val = _rate(toks[i + 1])
            key = {"send": "send_bps", "pacing_rate": "pacing_rate_bps", "delivery_rate": "delivery_rate_bps"}.get(tok)
            if key:
                row[key] = val
            understood = True
            i += 2
            continue
        if ":" in tok and not tok.startswith("users:"):
            key, _, val = tok.partition(":")
            if key not in _BEFORE_CC:
                cc_allowed = False
            try:
                if key == "rtt":
                    a, _, b = val.partition("/")
                    row["rtt_s"] = float(a) * 1e-3
                    if b:
                        row["rttvar_s"] = float(b) * 1e-3
                elif key == "minrtt":
                    row["minrtt_s"] = float(val) * 1e-3
                elif key == "rto":
                    row["rto_s"] = float(val) * 1e-3
                elif key == "cwnd":
                    row["cwnd_segments"] = float(val)
                elif key == "ssthresh":
                    row["ssthresh_segments"] = float(val)
                elif key == "mss":
                    row["mss_bytes"] = float(val)
                elif key in ("bytes_sent", "bytes_acked", "bytes_received", "bytes_retrans"):
                    row[key] = float(val)
                elif key == "retrans":
                    a, _, b = val.partition("/")
                    row["retrans_outstanding"] = float(a)
                    row["retransmits"] = float(b) if b else np.nan
                elif key == "lost":
                    row["lost_packets"] = float(val)
                elif key == "unacked":
                    row["unacked_packets"] = float(val)
                understood = True
            except ValueError:
                pass
        elif tok == "app_limited":
            row["app_limited"] = True
        elif cc_allowed and tok not in _KNOWN_FLAGS and _CC_NAME.match(tok):
            row["cc"] = tok
            cc_allowed = False
        i += 1
    return understood


def read_ss(path, port: int | None = None) -> pd.DataFrame:
    """Read repeated samples of ``ss -ti`` (or ``-tin``, ``-tino``, ``-tinm``) into one row per socket and sample.

    The text is what a loop such as
    ``while :; do echo "# $(date +%s.%N)"; ss -tin dst 10.0.0.2; sleep 0.1; done`` writes::

        # 1700000000.100000000
        State Recv-Q Send-Q Local Address:Port  Peer Address:Port Process
        ESTAB 0      86880      10.0.0.1:40000     10.0.0.2:5201
        \\t cubic wscale:7,7 rto:208 rtt:5.123/0.5 mss:1448 cwnd:42 ssthresh:30 bytes_acked:1200000 send 95.0Mbps retrans:0/3 delivery_rate 10296888889bps

    Stamp lines (``# <unix time>`` or a bare ``<unix time>``) give the time of the samples
    that follow; without them ``time_s`` is NaN and ``sample`` numbers the samples (a new
    one starts at every stamp or header line). Rates are read abbreviated (``10.3Mbps``,
    ``640.8Kbps``) or plain (``10296888889bps``); ``rtt:avg/var``, ``minrtt``, ``rto`` are
    in ms; ``retrans:a/b`` is (currently retransmitted)/(total). The TCP info may be on the
    socket line itself (``ss -tiO``). The congestion control name is the first bare word
    after the flags (``ts sack ecn``...), ``-m``'s ``skmem:(...)`` and ``-o``'s
    ``timer:(...)``, before ``wscale``.

    Parameters
    ----------
    path : str, path-like, file object or text
        The ss output (see :mod:`labcalc.measure` for the accepted inputs).
    port : int, optional
        Keep only the sockets whose local or peer port is *port*.

    Returns
    -------
    pandas.DataFrame
        ``time_s`` [s], ``sample``, ``state``, ``src`` / ``dst`` (local and peer ``addr:port``),
        ``cc`` (congestion control), ``cwnd_segments``, ``ssthresh_segments`` (NaN when ss
        shows none, i.e. still in initial slow start) [segments], ``rtt_s``, ``rttvar_s``,
        ``minrtt_s``, ``rto_s`` [s], ``mss_bytes``, ``bytes_sent``, ``bytes_acked``,
        ``bytes_received``, ``bytes_retrans`` [bytes], ``retransmits`` (total),
        ``retrans_outstanding``, ``lost_packets``, ``unacked_packets``, ``send_bps``,
        ``pacing_rate_bps``, ``delivery_rate_bps`` [bit/s], ``rate_bps`` (= delivery rate),
        ``recv_q_bytes``, ``send_q_bytes`` [bytes], ``app_limited``.
        ``attrs["time_origin_s"]`` is the file's first stamp line [s] (None without
        stamps), also when no socket follows it: a log started beside another (a ``tc``
        loop) counts time from the same instant as that log's first stamp.

    Raises
    ------
    MeasurementFormatError
        When no socket line with TCP info is found.

    References
    ----------
    .. [1] ``ss(8)``, iproute2 (``misc/ss.c``: ``tcp_show_info``), https://man7.org/linux/man-pages/man8/ss.8.html

    Examples
    --------
    >>> text = '''# 1700000000.5
    ... State Recv-Q Send-Q Local Address:Port Peer Address:Port Process
    ... ESTAB 0      86880  10.0.0.1:40000     10.0.0.2:5201
    ... \\t cubic wscale:7,7 rto:208 rtt:5.123/0.5 mss:1448 cwnd:42 ssthresh:30 send 95.0Mbps retrans:0/3 delivery_rate 10.3Mbps
    ... '''
    >>> df = read_ss(text)
    >>> df[["cc", "cwnd_segments", "ssthresh_segments", "rtt_s", "retransmits", "rate_bps"]]
          cc  cwnd_segments  ssthresh_segments     rtt_s  retransmits    rate_bps
    0  cubic             42               30.0  0.005123          3.0  10300000.0
    """
    name, text = open_text(path)
    st = _State(Report(name, FORMAT, EXPECTED))
    if _FAST_ENABLED:
        _scan_fast(text, st)
    else:
        for i, line in iter_lines(text):
            _line(st, i, line)
    del text
    st.flush()
    rep = st.rep
    first_stamp = st.first_stamp
    # a socket whose numbers overflow a float (1e999, 400-digit counters read as inf) is
    # malformed: it would otherwise reach the integer columns as inf
    for i in st.overflow:
        rep.bad(i, None)
    parts = st.done
    n = sum(len(d["sample"]) for d in parts)
    rep.ok(n)
    if not n:
        rep.recognised = 0
    rep.require_something()
    sizes = [len(d["_line"]) for d in parts]
    line = np.concatenate([d.pop("_line") for d in parts])
    order = None if np.all(line[1:] > line[:-1]) else np.argsort(line, kind="stable")
    del line
    data = {}
    for c in _COLUMNS:
        # a fast block leaves out (None) a column it holds no value of
        fill = (lambda k: np.zeros(k, dtype=bool)) if c == "app_limited" else (lambda k: np.full(k, np.nan))
        pieces = [d.pop(c) for d in parts]
        if all(p is None for p in pieces):
            data[c] = fill(n)
            continue
        v = np.concatenate([fill(k) if p is None else p for p, k in zip(pieces, sizes)])
        del pieces
        data[c] = v if order is None else v[order]
    del parts, st
    df = pd.DataFrame(data, columns=_COLUMNS, copy=False)
    del data
    df["rate_bps"] = df["delivery_rate_bps"]
    df["app_limited"] = df["app_limited"].astype(bool)
    for c in ("state", "src", "dst", "cc"):
        # object first: a column with no value at all is float NaN, which "" cannot fill
        df[c] = df[c].astype(object).fillna("").astype("str")
    for c in _COLUMNS:
        if c not in ("state", "src", "dst", "cc", "app_limited", "sample"):
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    if df["cwnd_segments"].notna().all() and (df["cwnd_segments"].abs() < 2.0**63).all():
        df["cwnd_segments"] = df["cwnd_segments"].astype(np.int64)
    df["sample"] = df["sample"].astype(np.int64)
    if port is not None:
        sp = df["src"].str.rsplit(":", n=1).str[-1]
        dp = df["dst"].str.rsplit(":", n=1).str[-1]
        df = df[(sp == str(port)) | (dp == str(port))].reset_index(drop=True)
    return rep.finish(df, {"time_origin_s": None if np.isnan(first_stamp) else float(first_stamp)})


class _State:
    """Parser state of an ss file: the current stamp and sample, the socket rows read so far."""

    def __init__(self, rep: Report):
        self.rep = rep
        self.stamp = np.nan
        self.first_stamp = np.nan  # the file's first stamp line, sockets or not (attrs["time_origin_s"])
        self.sample = 0
        self.fresh = True  # a stamp/header was seen since the last socket line
        self.current = None  # the row of the last socket line (dict), or _PENDING (a fast row)
        self.rows = []  # socket rows read line by line, not yet columns
        self.done = []  # column blocks of the rows already complete (both paths), with "_line"
        self.overflow = []  # lines of sockets whose numbers overflow, reported after the others
        self.cache = {}
        self.pending = []  # fast rows of the current block: match tuples
        self.pending_lines = []  # and their line numbers
        self.marks = []  # (index in pending, stamp, sample) from where the stamp and sample hold

    def flush(self) -> None:
        """Turn the rows read line by line into a column block."""
        if self.rows:
            self.done.append(_rows_to_columns(self.rows, self.overflow, self.cache))
            self.rows = []


#: marks :attr:`_State.current` when the last socket was read by the fast path
_PENDING = object()


def _socket_row(st: _State, i: int, state: str, rq: str, sq: str, local: str, peer: str) -> dict:
    return {
        "time_s": st.stamp, "sample": st.sample, "state": state, "src": local, "dst": peer,
        "recv_q_bytes": float(rq), "send_q_bytes": float(sq), "_line": i, "app_limited": False,
    }


def _add_row(st: _State, row: dict) -> None:
    if len(st.rows) >= _ROWS_PER_BLOCK:
        # the rows before the current one are complete: kept as columns from here on
        st.flush()
    st.rows.append(row)
    st.current = row
    st.fresh = False


def _unpend(st: _State) -> dict:
    """The last fast row, taken back from the fast path as a row of the line-by-line parser."""
    t, i = st.pending.pop(), st.pending_lines.pop()
    row = _socket_row(st, i, t[0], t[1], t[2], t[3], t[4])  # the stamp and sample hold since
    _info(t[5], row)
    _add_row(st, row)
    return row


def _line(st: _State, i: int, line: str) -> None:
    """Read one line (line-by-line parser)."""
    rep = st.rep
    s = line.strip()
    if not s:
        return
    rep.content(i, s)
    m = _STAMP.match(s)
    if m:
        st.stamp = float(m["t"])
        if np.isnan(st.first_stamp):
            st.first_stamp = st.stamp
        if not st.fresh:
            st.sample += 1
        st.fresh = True
        rep.ok()
        st.current = None
        return
    if _HEADER.match(s):
        if not st.fresh:
            st.sample += 1
        st.fresh = True
        st.current = None
        return
    indented = line[:1] in ("\t", " ")
    m = None if indented else _SOCKET.match(s)
    if m:
        row = _socket_row(st, i, m["state"] or "", m["rq"], m["sq"], m["local"], m["peer"])
        _add_row(st, row)
        if m["rest"] and _INFO_HINT.search(m["rest"]):
            rest = re.sub(r"users:\(\(.*?\)\)", "", m["rest"])
            _info(rest, row)
        return
    if st.current is not None and _INFO_HINT.search(s):
        if st.current is _PENDING:
            st.current = _unpend(st)
        if not _info(s, st.current):
            rep.bad(i, s)
        return
    rep.bad(i, s)


#: socket rows kept as dicts at most (older ones are converted to columns)
_ROWS_PER_BLOCK = 1 << 15
_TEXT_COLUMNS = ("state", "src", "dst", "cc")


def _rows_to_columns(rows: list, overflow: list, cache: dict) -> dict:
    """Columns of the complete socket rows that hold TCP info (cwnd or RTT); the lines of
    rows with an infinite number go to *overflow*. Strings are shared through *cache*."""
    kept = []
    for r in rows:
        if "cwnd_segments" not in r and "rtt_s" not in r:
            continue
        if any(isinf(v) for v in r.values() if isinstance(v, float)):
            overflow.append(r["_line"])
        else:
            kept.append(r)
    cols = {}
    for c in _COLUMNS:
        if c in _TEXT_COLUMNS:
            arr = np.empty(len(kept), dtype=object)
            arr[:] = [cache.setdefault(v, v) if isinstance(v, str) else v for v in (r.get(c) for r in kept)]
        elif c == "app_limited":
            arr = np.array([r.get(c) for r in kept], dtype=object)
        elif c == "sample":
            arr = np.array([r[c] for r in kept], dtype=np.int64)
        else:
            arr = np.array([r.get(c, np.nan) for r in kept], dtype=float)
        cols[c] = arr
    cols["_line"] = np.array([r["_line"] for r in kept], dtype=np.int64)
    return cols


# --------------------------------------------------------------------------------------
# fast path: a socket line and its TCP info line of the usual shape, read a block at a time

#: False makes :func:`read_ss` read every line with the line-by-line parser (tests compare
#: both on the same files)
_FAST_ENABLED = True
_BLOCK_CHARS = 1 << 20
_N = r"\d{1,15}(?:\.\d{1,9})?"
_FLAGS = "ts|sack|ecnseen|ecn|fastopen|timer|cwr|tfo"
_END = r"(?=[ \t\r]|$)"
# the tokens read into columns; a token may come more than once (the last one counts, as in
# _info, which is also what a repeated group of a regex keeps)
_TOKENS = [
    ("rto", rf"rto:({_N})"),
    ("rtt", rf"rtt:({_N})(?:/({_N}))?"),
    ("mss", rf"mss:({_N})"),
    ("cwnd", rf"cwnd:({_N})"),
    ("ssthresh", rf"ssthresh:({_N})"),
    ("bytes_sent", rf"bytes_sent:({_N})"),
    ("bytes_retrans", rf"bytes_retrans:({_N})"),
    ("bytes_acked", rf"bytes_acked:({_N})"),
    ("bytes_received", rf"bytes_received:({_N})"),
    ("send", rf"send[ \t]+({_N})([kKMGT]?)bps"),
    ("pacing_rate", rf"pacing_rate[ \t]+({_N})([kKMGT]?)bps"),
    ("delivery_rate", rf"delivery_rate[ \t]+({_N})([kKMGT]?)bps"),
    ("app_limited", r"(app_limited)"),
    ("unacked", rf"unacked:({_N})"),
    # "retrans:a" alone (no total) is left to _info: a repeated group cannot tell it came last
    ("retrans", rf"retrans:({_N})/({_N})"),
    ("lost", rf"lost:({_N})"),
    ("minrtt", rf"minrtt:({_N})"),
]
_KEYS = "|".join(sorted({k for k, _ in _TOKENS if k not in ("send", "pacing_rate", "delivery_rate", "app_limited")}
                        | {"users"} | _BEFORE_CC))
# any other key:value token (wscale:7,7, lastsnd:20, rcv_space:14480...) is skipped, as _info does
_SKIP = rf"(?!(?:{_KEYS}):)[a-z_]+:\S*"
_FAST_SS = re.compile(
    rf"^(?:(?:({_STATES})[ \t]+)?(\d{{1,15}})[ \t]+(\d{{1,15}})[ \t]+(\S+)[ \t]+(\S+)[ \t\r]*\n"
    # the info line, as a whole, then its parts: flags and -m / -o / -e tokens, the congestion
    # control name, the other tokens
    rf"((?=[ \t])(?:[ \t]+(?:(?:{_FLAGS}){_END}|(?:{'|'.join(sorted(_BEFORE_CC))}):\S*{_END}))*+"
    rf"(?:[ \t]+(?!(?:{_FLAGS}|app_limited|send|pacing_rate|delivery_rate|pacing_rate_max){_END})([a-z][a-z0-9_]*){_END})?+"
    rf"(?:[ \t]+(?:{'|'.join(pat for _, pat in _TOKENS)}|{_SKIP}))*"
    rf")[ \t\r]*|(.*))$",
    re.M,
)
# group indices in the tuples of _FAST_SS.findall
_G = {}
_k = 7  # 0-4 socket, 5 info line, 6 cc
for _key, _pat in _TOKENS:
    _G[_key] = _k
    _k += re.compile(_pat).groups
_RATE_LUT = np.ones(128)
for _p, _f in DEC.items():
    if _p:
        _RATE_LUT[ord(_p)] = _f


def _scan_fast(text: str, st: _State) -> None:
    """Read *text* block by block: socket lines followed by a TCP info line of the usual shape
    (:data:`_FAST_SS`) as columns (:func:`_fast_part`), every other line by :func:`_line`."""
    pos, first = 0, 1
    n_text = len(text)
    rtt, cwnd = _G["rtt"], _G["cwnd"]
    while True:
        cut = text.find("\n", pos + _BLOCK_CHARS) if pos + _BLOCK_CHARS < n_text else -1
        block = text[pos:] if cut < 0 else text[pos:cut]
        tuples = _FAST_SS.findall(block)
        last = len(tuples)
        lines = None
        i = first
        pending, plines, marks = st.pending, st.pending_lines, st.marks
        marks.append((0, st.stamp, st.sample))
        for t in tuples:
            if t[1]:
                if t[rtt] or t[cwnd]:
                    pending.append(t)
                    plines.append(i)
                    st.current = _PENDING
                    st.fresh = False
                else:  # no RTT nor cwnd: the line-by-line parser decides what it is
                    if lines is None:
                        lines = block.split("\n")
                    _line(st, i, lines[i - first].rstrip())
                    _line(st, i + 1, lines[i + 1 - first].rstrip())
                    marks.append((len(pending), st.stamp, st.sample))
                i += 2
            else:
                _line(st, i, t[-1].rstrip())
                marks.append((len(pending), st.stamp, st.sample))
                i += 1
        del tuples
        if st.current is _PENDING:
            st.current = _unpend(st)  # a line of the next block may still add to it
        if pending:
            st.rep.content(plines[0])
            st.done.append(_fast_part(pending, plines, marks, st.cache))
        st.pending, st.pending_lines, st.marks = [], [], []
        if cut < 0:
            return
        first = i
        pos = cut + 1


def _floats(col: tuple, scale: float = 1.0) -> np.ndarray:
    """Floats of a tuple of number strings ('' where absent: NaN)."""
    empty = col.count("")
    if not empty:
        v = np.array(col, dtype=np.float64)
    elif empty == len(col):
        return None
    else:
        v = np.full(len(col), np.nan)
        has = np.array(col, dtype=object) != ""
        v[has] = np.array([x for x in col if x], dtype=np.float64)
    return v * scale if scale != 1.0 else v


def _scaled(v, factor):
    return None if v is None else v * factor


def _strings(col: tuple, cache: dict) -> np.ndarray:
    arr = np.empty(len(col), dtype=object)
    arr[:] = list(map(cache.setdefault, col, col))
    return arr


def _fast_part(tuples: list, lines: list, marks: list, cache: dict) -> dict:
    """Columns of the fast rows of a block (see :data:`_FAST_SS`), as :func:`_info` reads them;
    *marks* gives the stamp and sample from each row on."""
    n = len(tuples)
    cols = list(zip(*tuples))
    start = np.array([k for k, _, _ in marks], dtype=np.int64)
    which = np.searchsorted(start, np.arange(n), side="right") - 1
    stamps = np.array([x for _, x, _ in marks], dtype=np.float64)
    out = {"_line": np.array(lines, dtype=np.int64),
           "time_s": None if np.isnan(stamps).all() else stamps[which],
           "sample": np.array([x for _, _, x in marks], dtype=np.int64)[which]}
    out["state"] = _strings(cols[0], cache)
    out["recv_q_bytes"] = _floats(cols[1])
    out["send_q_bytes"] = _floats(cols[2])
    out["src"] = _strings(cols[3], cache)
    out["dst"] = _strings(cols[4], cache)
    if cols[6].count("") < n:
        out["cc"] = _strings(cols[6], cache)
        out["cc"][out["cc"] == ""] = None
    else:
        out["cc"] = None
    g = _G
    out["rto_s"] = _floats(cols[g["rto"]], 1e-3)
    out["rtt_s"] = _floats(cols[g["rtt"]], 1e-3)
    out["rttvar_s"] = _floats(cols[g["rtt"] + 1], 1e-3)
    out["mss_bytes"] = _floats(cols[g["mss"]])
    out["cwnd_segments"] = _floats(cols[g["cwnd"]])
    out["ssthresh_segments"] = _floats(cols[g["ssthresh"]])
    for key in ("bytes_sent", "bytes_retrans", "bytes_acked", "bytes_received"):
        out[key] = _floats(cols[g[key]])
    for key, col in (("send", "send_bps"), ("pacing_rate", "pacing_rate_bps"), ("delivery_rate", "delivery_rate_bps")):
        k = g[key]
        v = _floats(cols[k])
        if v is not None:
            pre = np.frombuffer(np.array(cols[k + 1], dtype="U1").tobytes(), dtype=np.uint32)  # "" is 0
            v *= _RATE_LUT[np.minimum(pre, 127)]
        out[col] = v
    limited = cols[g["app_limited"]]
    out["app_limited"] = np.array([bool(x) for x in limited]) if limited.count("") < n else None
    out["unacked_packets"] = _floats(cols[g["unacked"]])
    out["retrans_outstanding"] = _floats(cols[g["retrans"]])
    out["retransmits"] = _floats(cols[g["retrans"] + 1])
    out["lost_packets"] = _floats(cols[g["lost"]])
    out["minrtt_s"] = _floats(cols[g["minrtt"]], 1e-3)
    out["rate_bps"] = None
    return out
