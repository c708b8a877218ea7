"""Reader of the lab handout's own programs: udpclient, udpserver, tcpclient."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ._common import Report, gc_paused, line_pieces, open_text
from ._vector import COLON, LPAREN, MINUS, RPAREN, SLASH, Lines, parse_decimal

__all__ = ["read_labtool"]

FORMAT = "labtool"
EXPECTED = (
    "output of the lab programs: udpclient '<t>s - sent: <n> pkts, <r> kb/s', "
    "udpserver '<t>s - received: <n> out of <m> pkts (loss <x>%), <r> kb/s' (or "
    "'<t>s - received: <n>/ sent: <m> pkts (loss <x>%), <r> kbit/s'), tcpclient "
    "'<t>: <r> kbps avg (<r>[inst], <r>[mov.avg]) cwnd <n> rtt <x>ms'"
)

_NUM = r"\d+(?:\.\d+)?"
_NAN = rf"(?:{_NUM}|[-+]?nan|[-+]?inf)"
_KB = r"(?:kb/s|kbit/s|kbits/s|kbps|kb/sec|kbit/sec|kbits/sec)"
# Counters have at most 30 digits here: a longer run is a malformed line, not an int() past
# Python's 4300-digit limit (20-30 digits reach the overflow check and are reported too).
_UDPCLIENT = re.compile(rf"^(?P<t>{_NUM})\s*s\s*-\s*sent:\s*(?P<sent>\d{{1,30}})\s*pkts\s*,\s*(?P<rate>{_NAN})\s*{_KB}$", re.I)
_UDPSERVER = re.compile(
    rf"^(?P<t>{_NUM})\s*s\s*-\s*received:\s*(?P<rx>\d{{1,30}})\s*(?:out\s+of|/\s*sent:)\s*(?P<tx>\d{{1,30}})\s*pkts\s*"
    rf"\(\s*loss\s*(?P<loss>{_NAN})\s*%\s*\)\s*,\s*(?P<rate>{_NAN})\s*{_KB}$",
    re.I,
)
_TCPCLIENT = re.compile(
    rf"^(?P<t>{_NUM})\s*:\s*(?P<avg>{_NAN})\s*{_KB}\s+avg\s*\(\s*(?P<inst>{_NAN})\s*\[inst\]\s*,\s*"
    rf"(?P<mov>{_NAN})\s*\[mov\.?\s*avg\]\s*\)\s*cwnd\s*(?P<cwnd>\d{{1,30}})\s*rtt\s*(?P<rtt>{_NAN})\s*ms$",
    re.I,
)

_PROGRAM_COLUMNS = {
    "udpclient": {"packets"},
    "udpserver": {"packets", "packets_sent", "loss"},
    "tcpclient": {"avg_rate_bps", "movavg_rate_bps", "cwnd_segments", "rtt_s"},
}
_COLUMNS = ["program", "time_s", "packets", "packets_sent", "loss", "rate_bps", "avg_rate_bps",
            "movavg_rate_bps", "cwnd_segments", "rtt_s"]


def read_labtool(path) -> pd.DataFrame:
    """Read what the handout's ``udpclient``, ``udpserver`` and ``tcpclient`` print.

    One line per second, in one of these shapes (the ``printf`` formats of the programs and
    the wording the handout shows; ``kb/s``, ``kbit/s``, ``kbits/s`` and ``kbps`` are all
    accepted)::

        udpclient   "%5.1fs - sent:%6d pkts, %6.1f kb/s"                 4.0s - sent: 503 pkts, 1000.0 kbits/s
        udpserver   "%5.1fs - received:%6d out of %6d pkts (loss%7.3f%%),%7.1f kb/s"
                    170.5s - received: 843/ sent: 867 pkts (loss 2.768%), 957.7 kbit/s
        tcpclient   "%5.1f:%8.1fkbps avg (%7.1f[inst],%7.1f[mov.avg]) cwnd %2i rtt%5.1fms"
                    6.3: 854.0 kbps avg ( 944.5[inst], 926.5[mov.avg]) cwnd 9 rtt 83.9ms

    A file may mix the programs (the ``program`` column tells them apart). Blank lines are
    ignored; any other line is malformed (counted, skipped).

    Parameters
    ----------
    path : str, path-like, file object or text
        The program output (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        ``program`` ("udpclient", "udpserver", "tcpclient"), ``time_s`` [s] since the program
        started, ``packets`` (total sent by udpclient, total received by udpserver),
        ``packets_sent`` (udpserver: largest sequence number seen), ``loss`` [fraction]
        (udpserver), ``rate_bps`` [bit/s] (rate over the last second: UDP sending or
        receiving rate, TCP ``[inst]``), ``avg_rate_bps`` [bit/s] (tcpclient: average since
        the start, the goodput the handout asks for), ``movavg_rate_bps`` [bit/s],
        ``cwnd_segments`` [segments] and ``rtt_s`` [s] (tcpclient). Absent quantities are NaN.

    Raises
    ------
    MeasurementFormatError
        When no line has one of the shapes above.

    Notes
    -----
    The rates count application payload (goodput), 1 kb/s = 1000 bit/s. udpserver's loss
    is ``1 - received / largest sequence number``, so it is wrong when two clients share
    one server.

    References
    ----------
    .. [1] Lab 5 handout, section 1.1 (programs ``lab5/udp`` and ``lab5/tcp``).

    Examples
    --------
    >>> text = '''169.5s - received: 723/ sent: 741 pkts (loss 2.429%), 959.6 kbit/s
    ... 170.5s - received: 843/ sent: 867 pkts (loss 2.768%), 957.7 kbit/s
    ... '''
    >>> read_labtool(text)[["time_s", "packets", "packets_sent", "loss", "rate_bps"]]
       time_s  packets  packets_sent    loss  rate_bps
    0   169.5      723           741  0.02429  959600.0
    1   170.5      843           867  0.02768  957700.0
    >>> tcp = read_labtool("  7.3:   862.4kbps avg (  914.6[inst],  925.3[mov.avg]) cwnd  9 rtt 86.8ms\\n")
    >>> tcp[["avg_rate_bps", "rate_bps", "cwnd_segments", "rtt_s"]]
       avg_rate_bps  rate_bps  cwnd_segments   rtt_s
    0      862400.0  914600.0              9  0.0868
    """
    name, text = open_text(path)
    rep = Report(name, FORMAT, EXPECTED)
    pieces = []
    overflow = []  # (line, row) of lines whose numbers do not fit, reported after the others
    line0 = 1
    with gc_paused():  # the match tuples of a piece would make every collection slower
        for piece in line_pieces(text, _BLOCK_CHARS):
            cols, n_lines = _piece_columns(piece, line0, rep, overflow)
            pieces.append(cols)
            line0 += n_lines
    del text
    # a line whose numbers do not fit (400-digit counters, 1e999 rates) is malformed; checked
    # once per row, because the regular expressions of the line-by-line reader accept any run
    # of digits (the bulk pattern takes at most 15)
    for i in overflow:
        rep.recognised -= 1
        rep.bad(i, None)
    rep.require_something()
    data = {c: np.concatenate([p.pop(c) for p in pieces]) for c in _COLUMNS}
    del pieces
    data_program = data["program"]
    df = pd.DataFrame(data, columns=_COLUMNS, copy=False)
    df["program"] = df["program"].astype("str")
    for c in _COLUMNS[1:]:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    for c in ("packets", "packets_sent", "cwnd_segments"):
        if df[c].notna().all():
            df[c] = df[c].astype(np.int64)
    programs = sorted(pd.unique(data_program))
    keep = {"program", "time_s", "rate_bps"}
    for p in programs:
        keep |= _PROGRAM_COLUMNS[p]
    df = df[[c for c in _COLUMNS if c in keep]]
    return rep.finish(df, {"programs": programs})


# the three line shapes with at most 15 digits a number (so that every value fits) and no
# infinity, as one pattern; any other line is a match of the last group and goes through
# the patterns above. [ \t] instead of \s: a blank must not reach into the next line.


def _bulk_shape(rx: re.Pattern) -> str:
    """The pattern of *rx* after its time, with at most 15 digits a number and no infinity."""
    pat = rx.pattern.removesuffix("$")
    pat = pat.replace(_NUM, r"\d{1,15}(?:\.\d{1,15})?").replace(r"\d+", r"\d{1,15}").replace(r"\d{1,30}", r"\d{1,15}")
    pat = pat.replace("|[-+]?inf", "")
    pat = re.sub(r"\(\?P<\w+>", "(", pat).replace(r"\s", r"[ \t]")
    time = r"^(\d{1,15}(?:\.\d{1,15})?)"
    return pat.removeprefix(time)


# udpclient (groups 2-3), udpserver (4-7), tcpclient (8-12) after the shared time (group 1);
# any other line is group 13. [ \t] instead of \s: a blank must not reach into the next line.
_BULK = re.compile(
    r"^[ \t]*(\d{1,15}(?:\.\d{1,15})?)(?:" + "|".join(_bulk_shape(rx) for rx in (_UDPCLIENT, _UDPSERVER, _TCPCLIENT))
    + r")[ \t]*$|^(.*)$",
    re.I | re.M,
)
_PROGRAMS = np.array(["udpclient", "udpserver", "tcpclient"], dtype=object)


#: False leaves every line to the patterns (tests compare both paths on the same text)
_FAST_ENABLED = True
_BLOCK_CHARS = 1 << 22
_UNITS = (b"kb/s", b"kbit/s", b"kbits/s", b"kbps", b"kb/sec", b"kbit/sec", b"kbits/sec")


def _vector_rows(L: Lines):
    """The lines of the three programs' usual shapes (lower-case units, ``out of`` or ``/
    sent:``, ``[mov.avg]``), read in bulk; returns (rows, kind 0/1/2, numbers per column).
    Every other line (and numbers of more than 15 digits) is left to :data:`_BULK`.
    Hand-written on numpy: the pattern's match tuples cost more than the rest of the reader."""
    starts = L.skip(L.starts, L.ends)
    rows = np.flatnonzero(L.ends > starts) if _FAST_ENABLED else np.zeros(0, dtype=np.int64)
    if not len(rows):
        return rows, np.zeros(0, np.int8), [np.zeros(0)] * 6
    s, e = starts[rows], L.ends[rows]
    first, count = L.runs_in(rows)
    runs = [L.run(first + k) for k in range(6)]
    t0, t1 = runs[0]
    ok = t0 == s
    after_t = L.skip(t1, e)
    # udpclient and udpserver: "<t>s - sent:" / "<t>s - received:"
    dash = L.skip(after_t + 1, e)
    word = L.skip(dash + 1, e)
    udp = L.equals(after_t, b"s") & (L.byte(dash) == MINUS)
    sent, sent_end = L.literal(word, (b"sent:",))
    recv, recv_end = L.literal(word, (b"received:",))

    def after_unit(pos):  # a unit of kb/s at pos, and nothing after it
        hit, end = L.literal(pos, _UNITS)
        return hit & (end == e)

    kind = np.full(len(rows), -1, dtype=np.int8)
    # udpclient: N pkts , R <unit>   (runs: t, N, R)
    a0, a1 = runs[1]
    b0, b1 = runs[2]
    pk = L.skip(a1, e)
    comma = L.skip(pk + 4, e)
    client = udp & sent & (a0 == L.skip(sent_end, e)) & L.equals(pk, b"pkts") & (L.byte(comma) == 44)
    client &= (b0 == L.skip(comma + 1, e)) & after_unit(L.skip(b1, e)) & (count == 3)
    kind[client] = 0
    # udpserver: N (out of | / sent:) M pkts (loss X%), R <unit>   (runs: t, N, M, X, R)
    c0, c1 = runs[3]
    d0, d1 = runs[4]
    mid = L.skip(a1, e)
    out_of = L.equals(mid, b"out") & L.equals(L.skip(mid + 3, e), b"of") & (L.skip(mid + 3, e) > mid + 3)
    of_end = L.skip(mid + 3, e) + 2
    slash = (L.byte(mid) == SLASH) & L.equals(L.skip(mid + 1, e), b"sent:")
    after_mid = np.where(out_of, of_end, L.skip(mid + 1, e) + 5)
    pk2 = L.skip(b1, e)
    paren = L.skip(pk2 + 4, e)
    loss_at = L.skip(paren + 1, e)
    pct = L.skip(c1, e)
    close = L.skip(pct + 1, e)
    comma2 = L.skip(close + 1, e)
    server = udp & recv & (a0 == L.skip(recv_end, e)) & (out_of | slash) & (b0 == L.skip(after_mid, e))
    server &= (b0 > after_mid) | slash
    server &= L.equals(pk2, b"pkts") & (L.byte(paren) == LPAREN) & L.equals(loss_at, b"loss")
    server &= (c0 == L.skip(loss_at + 4, e)) & (L.byte(pct) == 37) & (L.byte(close) == RPAREN)
    server &= (L.byte(comma2) == 44) & (d0 == L.skip(comma2 + 1, e)) & after_unit(L.skip(d1, e)) & (count == 5)
    kind[server] = 1
    # tcpclient: "<t>: A <unit> avg (I[inst], M[mov.avg]) cwnd C rtt X ms"   (runs: t, A, I, M, C, X)
    x0, x1 = runs[5]
    colon = L.byte(after_t) == COLON
    hit, unit_end = L.literal(L.skip(a1, e), _UNITS)
    avg = L.skip(unit_end, e)
    par = L.skip(avg + 3, e)
    inst = L.skip(b1, e)
    comma3 = L.skip(inst + 6, e)
    mov = L.skip(c1, e)
    close3 = L.skip(mov + 9, e)
    cwnd = L.skip(close3 + 1, e)
    rtt = L.skip(d1, e)
    ms = L.skip(x1, e)
    tcp = colon & (a0 == L.skip(after_t + 1, e)) & hit & L.equals(avg, b"avg") & (L.byte(par) == LPAREN)
    tcp &= (b0 == L.skip(par + 1, e)) & L.equals(inst, b"[inst]") & (L.byte(comma3) == 44)
    tcp &= (c0 == L.skip(comma3 + 1, e)) & L.equals(mov, b"[mov.avg]") & (L.byte(close3) == RPAREN)
    tcp &= L.equals(cwnd, b"cwnd") & (d0 == L.skip(cwnd + 4, e)) & L.equals(rtt, b"rtt")
    tcp &= (x0 == L.skip(rtt + 3, e)) & L.equals(ms, b"ms") & (ms + 2 == e) & (count == 6)
    kind[tcp] = 2
    ok &= kind >= 0
    good = np.flatnonzero(ok)
    kind = kind[good]
    values = []
    valid = np.ones(len(good), dtype=bool)
    for k in range(6):
        v, okv = parse_decimal(L, runs[k][0][good], runs[k][1][good])
        used = k < np.array([3, 5, 6])[kind]
        values.append(np.where(used, v, np.nan))
        valid &= okv | ~used
    good, kind = good[valid], kind[valid]
    return rows[good], kind, [v[valid] for v in values]


def _piece_columns(piece: str, line0: int, rep: Report, overflow: list):
    """The columns of the lines of *piece* (its first line is line *line0* of the file) and
    the number of its lines. Lines of the three usual shapes are read in bulk (numpy), other
    lines of the three shapes by :data:`_BULK`; any other is read by the patterns of the
    programs (a row, or a malformed line)."""
    L = Lines((piece + "\n").encode("utf-8", "surrogatepass"), 1)
    n = len(L)
    vrows, vkind, vals = _vector_rows(L)
    kind = np.full(n, 3, dtype=np.int8)
    kind[vrows] = vkind
    cols = {c: np.full(n, np.nan) for c in _COLUMNS[1:]}
    cols["time_s"][vrows] = vals[0]
    for k, spec in enumerate(((("packets", 1), ("rate_bps", 2, 1e3)),
                              (("packets", 1), ("packets_sent", 2), ("loss", 3, 0.01), ("rate_bps", 4, 1e3)),
                              (("avg_rate_bps", 1, 1e3), ("rate_bps", 2, 1e3), ("movavg_rate_bps", 3, 1e3),
                               ("cwnd_segments", 4), ("rtt_s", 5, 1e-3)))):
        sel = vkind == k
        if sel.any():
            for col, j, *scale in spec:
                v = vals[j][sel]
                if scale:  # as the pattern path: / 100 for a loss, * 1e3 or 1e-3 for the rest
                    v = v / 100.0 if scale[0] == 0.01 else v * scale[0]
                cols[col][vrows[sel]] = v
    rest = np.flatnonzero(kind == 3)
    lines = piece.split("\n") if len(rest) else None
    tup = {int(k): _tuple(lines[k]) for k in rest}
    for k, t in tup.items():
        kind[k] = 0 if t[1] else 1 if t[3] else 2 if t[7] else 3
    keep = kind < 3
    rep.ok(int(keep.sum()))
    for k, t in tup.items():
        kk = kind[k]
        if kk == 3:
            continue
        cols["time_s"][k] = float(t[0])
        if kk == 0:
            cols["packets"][k], cols["rate_bps"][k] = float(t[1]), float(t[2]) * 1e3
        elif kk == 1:
            cols["packets"][k], cols["packets_sent"][k] = float(t[3]), float(t[4])
            cols["loss"][k], cols["rate_bps"][k] = float(t[5]) / 100.0, float(t[6]) * 1e3
        else:
            cols["avg_rate_bps"][k], cols["rate_bps"][k] = float(t[7]) * 1e3, float(t[8]) * 1e3
            cols["movavg_rate_bps"][k], cols["cwnd_segments"][k] = float(t[9]) * 1e3, float(t[10])
            cols["rtt_s"][k] = float(t[11]) * 1e-3
    program = np.empty(n, dtype=object)
    program[keep] = _PROGRAMS[kind[keep]]
    for k, t in tup.items():
        if kind[k] != 3:
            continue
        row = _slow_line(line0 + k, t[12], rep, overflow)
        if row is not None:
            keep[k] = True
            program[k] = row.pop("program")
            for c, v in row.items():
                cols[c][k] = v
    cols = {c: v[keep] for c, v in cols.items()}
    cols["program"] = program[keep]
    return cols, n


def _tuple(line: str) -> tuple:
    """The 13 groups of :data:`_BULK` for one line ('' where a group did not take part)."""
    m = _BULK.match(line)
    return m.groups(default="") if m else ("",) * 12 + (line,)


def _slow_line(i: int, line: str, rep: Report, overflow: list):
    """One line by the programs' patterns: its row (a dict), or None (blank or malformed)."""
    s = line.strip()
    if not s:
        return None
    m = _UDPCLIENT.match(s)
    if m:
        row = {"program": "udpclient", "time_s": float(m["t"]), "packets": int(m["sent"]),
               "rate_bps": float(m["rate"]) * 1e3}
    else:
        m = _UDPSERVER.match(s)
        if m:
            row = {"program": "udpserver", "time_s": float(m["t"]), "packets": int(m["rx"]),
                   "packets_sent": int(m["tx"]), "loss": float(m["loss"]) / 100.0,
                   "rate_bps": float(m["rate"]) * 1e3}
        else:
            m = _TCPCLIENT.match(s)
            if not m:
                rep.bad(i, s)
                return None
            row = {"program": "tcpclient", "time_s": float(m["t"]), "avg_rate_bps": float(m["avg"]) * 1e3,
                   "rate_bps": float(m["inst"]) * 1e3, "movavg_rate_bps": float(m["mov"]) * 1e3,
                   "cwnd_segments": int(m["cwnd"]), "rtt_s": float(m["rtt"]) * 1e-3}
    rep.ok()
    if not all(not np.isinf(v) if isinstance(v, float) else (not isinstance(v, int) or abs(v) < 2**63)
               for v in row.values()):
        overflow.append(i)
        return None
    return row
