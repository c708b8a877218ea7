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
    rep = Report(name, FORMAT, EXPECTED)
    rows = []
    stamp = np.nan
    sample = 0
    fresh = True  # a stamp/header was seen since the last socket line
    current = None
    done = []  # column blocks of the rows already complete
    overflow = []  # lines of sockets whose numbers overflow, reported after the others
    cache = {}
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        rep.content(i, s)
        m = _STAMP.match(s)
        if m:
            stamp = float(m["t"])
            if not fresh:
                sample += 1
            fresh = True
            rep.ok()
            current = None
            continue
        if _HEADER.match(s):
            if not fresh:
                sample += 1
            fresh = True
            current = None
            continue
        indented = line[:1] in ("\t", " ")
        m = None if indented else _SOCKET.match(s)
        if m:
            current = {
                "time_s": stamp, "sample": sample, "state": m["state"] or "", "src": m["local"], "dst": m["peer"],
                "recv_q_bytes": float(m["rq"]), "send_q_bytes": float(m["sq"]), "_line": i,
                "app_limited": False,
            }
            fresh = False
            if len(rows) >= _ROWS_PER_BLOCK:
                # the rows before the current one are complete: kept as columns from here on
                done.append(_rows_to_columns(rows, overflow, cache))
                rows = []
            rows.append(current)
            if m["rest"] and _INFO_HINT.search(m["rest"]):
                rest = re.sub(r"users:\(\(.*?\)\)", "", m["rest"])
                _info(rest, current)
            continue
        if current is not None and _INFO_HINT.search(s):
            if not _info(s, current):
                rep.bad(i, s)
            continue
        rep.bad(i, s)
    del text
    done.append(_rows_to_columns(rows, overflow, cache))
    del rows
    # a socket whose numbers overflow a float (1e999, 400-digit counters read as inf) is
    # malformed: it would otherwise reach the integer columns as inf
    for i in overflow:
        rep.bad(i, None)
    n = sum(len(d["sample"]) for d in done)
    rep.ok(n)
    if not n:
        rep.recognised = 0
    rep.require_something()
    data = {c: np.concatenate([d.pop(c) for d in done]) for c in _COLUMNS}
    del done
    df = pd.DataFrame(data, columns=_COLUMNS, copy=False)
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
    return rep.finish(df)


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
    return cols
