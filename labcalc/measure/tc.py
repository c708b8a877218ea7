"""Readers of queue statistics: ``tc -s qdisc`` (text or ``-j`` JSON) and the bufferbloat queue log."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from ._common import BIN, Report, iter_lines, json_unclosed, open_text

__all__ = ["read_tc_qdisc", "read_qlen"]

FORMAT_TC = "tc_qdisc"
EXPECTED_TC = (
    "'tc -s qdisc' output: 'qdisc <kind> <handle>: ...' lines followed by ' Sent <n> bytes <n> pkt "
    "(dropped <n>, overlimits <n> requeues <n>)' and ' backlog <n>b <n>p ...', optionally after "
    "'# <unix time>' stamp lines, or the JSON of 'tc -s -j qdisc'"
)
FORMAT_QLEN = "qlen"
EXPECTED_QLEN = "queue log lines '<unix time>,<packets in queue>'"

# "qdisc <kind> <handle>: [dev <dev>] root|parent <id>" and, from 'tc -s class show' output
# mixed in, "class <kind> <classid> [dev <dev>] root|parent <id> [leaf <handle>:]": both
# start a block whose Sent / backlog lines belong to that object only
_QDISC = re.compile(
    r"^(?P<object>qdisc|class)\s+(?P<kind>\S+)\s+(?P<handle>[0-9a-fA-F]*:[0-9a-fA-F]*)\s*"
    r"(?:dev\s+(?P<dev>\S+)\s*)?(?:(?P<root>root)|parent\s+(?P<parent>\S+))?"
)
_SENT = re.compile(
    r"^Sent\s+(?P<bytes>\d+)\s+bytes\s+(?P<pkts>\d+)\s+pkts?\s*\(dropped\s+(?P<drops>\d+),\s*overlimits\s+"
    r"(?P<over>\d+)(?:\s+requeues\s+(?P<req>\d+))?\)"
)
_BACKLOG = re.compile(r"backlog\s+(?P<b>\d+(?:\.\d+)?)(?P<bu>[KMG]?)b\s+(?P<p>\d+)p(?:\s+requeues\s+(?P<req>\d+))?")
_MARKED = re.compile(r"\b(?:marked|ecn_mark)\s+(?P<n>\d+)")
_EARLY = re.compile(r"\bearly\s+(?P<n>\d+)")
_STAMP = re.compile(r"^#?\s*(?P<t>\d{6,}(?:\.\d+)?)\s*$")

_COLUMNS = [
    "time_s", "sample", "object", "dev", "kind", "handle", "parent", "bytes", "packets", "drops", "overlimits",
    "requeues", "backlog_bytes", "backlog_packets", "marked", "early_drops",
]
_NUMERIC = _COLUMNS[7:]


def _finish_tc(rows: list[dict], rep: Report) -> pd.DataFrame:
    rep.require_something()
    df = pd.DataFrame(rows, columns=_COLUMNS)
    for c in ("object", "dev", "kind", "handle", "parent"):
        df[c] = df[c].fillna("").astype("str")
    df["time_s"] = pd.to_numeric(df["time_s"], errors="coerce").astype(float)
    df["sample"] = df["sample"].astype(np.int64)
    for c in _NUMERIC:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
        if df[c].notna().all():
            df[c] = df[c].astype(np.int64)
    return rep.finish(df)


def _tc_json(text: str, rep: Report) -> pd.DataFrame:
    rows = []
    dec = json.JSONDecoder()
    stamp = np.nan
    sample = -1
    lines = text.split("\n")
    offsets = np.cumsum([0] + [len(x) + 1 for x in lines])
    pos = 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        line_no = int(np.searchsorted(offsets, pos, side="right"))
        eol = text.find("\n", pos)
        eol = len(text) if eol < 0 else eol
        m = _STAMP.match(text[pos:eol].strip())
        if m:
            stamp = float(m["t"])
            pos = eol + 1
            continue
        try:
            doc, end = dec.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            truncated = not text[exc.pos:].strip() or json_unclosed(text, pos)
            detail = "the JSON document is truncated" if truncated else f"invalid JSON: {exc.msg}"
            if rows:
                rep.bad(line_no, text[pos:eol])
                break
            raise rep.fail(int(np.searchsorted(offsets, exc.pos, side="right")), detail) from None
        sample += 1
        qdiscs = doc if isinstance(doc, list) else [doc]
        for q in qdiscs:
            # 'tc -s -j class show' names the kind "class" instead of "kind"
            if not isinstance(q, dict) or not ("kind" in q or "class" in q):
                rep.bad(line_no, text[pos:eol])
                continue
            obj = "qdisc" if "kind" in q else "class"
            rows.append({
                "time_s": stamp, "sample": sample, "object": obj, "dev": q.get("dev", ""),
                "kind": q["kind"] if obj == "qdisc" else q["class"],
                "handle": q.get("handle", ""), "parent": "root" if q.get("root") else q.get("parent", ""),
                "bytes": q.get("bytes"), "packets": q.get("packets"), "drops": q.get("drops"),
                "overlimits": q.get("overlimits"), "requeues": q.get("requeues"),
                "backlog_bytes": q.get("backlog"), "backlog_packets": q.get("qlen"),
                "marked": q.get("marked", q.get("ecn_mark")), "early_drops": q.get("early"),
            })
            rep.ok()
        pos = end
    return _finish_tc(rows, rep)


def read_tc_qdisc(path) -> pd.DataFrame:
    """Read ``tc -s qdisc show`` statistics (one or many samples), text or ``-j`` JSON.

    Text, as printed by iproute2 (a sampling loop adds ``# <unix time>`` stamp lines)::

        # 1700000000.25
        qdisc htb 1: root refcnt 2 r2q 10 default 0x10 direct_packets_stat 0 direct_qlen 1000
         Sent 1291927 bytes 875 pkt (dropped 3, overlimits 38 requeues 0)
         backlog 204488b 4p requeues 0
        qdisc red 10: parent 1:10 limit 400000b min 30000b max 90000b ecn
         Sent 1291927 bytes 875 pkt (dropped 3, overlimits 0 requeues 0)
         backlog 204488b 4p requeues 0
          marked 12 early 3 pdrop 0 other 0

    Backlog sizes may be abbreviated (``14Kb`` = 14 x 1024 bytes). Classes (``tc -s class
    show`` output in the same file, e.g. the htb class above a leaf qdisc) are rows of
    their own, with ``object`` = "class": their counters never go to the qdisc printed
    before them. Filter and action blocks are skipped. JSON (``tc -s -j qdisc show``, or
    ``class show``) is a list of objects with ``bytes``, ``packets``, ``drops``,
    ``overlimits``, ``requeues``, ``backlog``, ``qlen``; several documents may follow each
    other, with stamp lines between them.

    Parameters
    ----------
    path : str, path-like, file object or text
        The tc output (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        One row per qdisc (or class) and sample: ``time_s`` [s] (from the stamps, NaN
        without), ``sample`` (0, 1, ...: a new sample starts at a stamp or when a qdisc
        reappears), ``object`` ("qdisc" or "class"), ``dev``, ``kind``, ``handle`` (the
        class id for a class), ``parent`` ("root" or the parent class), and the
        counters since the qdisc was created: ``bytes`` [bytes], ``packets``, ``drops``,
        ``overlimits``, ``requeues``; the instantaneous ``backlog_bytes`` [bytes] and
        ``backlog_packets``; ``marked`` (ECN marks of red / codel / fq_codel) and
        ``early_drops`` (red), NaN when the qdisc has no such counter.

    Raises
    ------
    MeasurementFormatError
        When no qdisc statistics are found, or the JSON cannot be decoded.

    Notes
    -----
    The counters are cumulative: the drops between two samples are the difference of
    ``drops`` (see :func:`labcalc.measure.queue_occupancy`).

    References
    ----------
    .. [1] ``tc(8)`` and ``tc-red(8)``, iproute2 (``tc/tc_qdisc.c``, ``tc/tc_util.c:print_tcstats_attr``).

    Examples
    --------
    >>> text = '''# 1700000000.0
    ... qdisc pfifo 10: parent 1:10 limit 100p
    ...  Sent 151400 bytes 100 pkt (dropped 0, overlimits 0 requeues 0)
    ...  backlog 30280b 20p requeues 0
    ... # 1700000001.0
    ... qdisc pfifo 10: parent 1:10 limit 100p
    ...  Sent 1514000 bytes 1000 pkt (dropped 7, overlimits 0 requeues 0)
    ...  backlog 151400b 100p requeues 0
    ... '''
    >>> read_tc_qdisc(text)[["time_s", "kind", "packets", "drops", "backlog_packets", "backlog_bytes"]]
             time_s   kind  packets  drops  backlog_packets  backlog_bytes
    0  1.700000e+09  pfifo      100      0               20          30280
    1  1.700000e+09  pfifo     1000      7              100         151400
    """
    name, text = open_text(path)
    rep = Report(name, FORMAT_TC, EXPECTED_TC)
    head = text.lstrip()
    while head.startswith("#") or _STAMP.match(head.split("\n", 1)[0].strip() or "x"):
        parts = head.split("\n", 1)
        head = parts[1].lstrip() if len(parts) > 1 else ""
    if head.startswith("[") or head.startswith("{"):
        return _tc_json(text, rep)
    rows = []
    stamp = np.nan
    sample = 0
    seen = set()
    stamped_since_row = False
    current = None
    skipping = False
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        rep.content(i, s)
        m = _STAMP.match(s)
        if m:
            stamp = float(m["t"])
            if rows and not stamped_since_row:
                sample += 1
                seen = set()
            stamped_since_row = True
            current = None
            skipping = False
            rep.ok()
            continue
        m = _QDISC.match(s)
        if m:
            key = (m["object"], m["dev"], m["kind"], m["handle"], m["parent"])
            if key in seen:
                sample += 1
                seen = set()
            seen.add(key)
            stamped_since_row = False
            current = {
                "time_s": stamp, "sample": sample, "object": m["object"], "dev": m["dev"] or "", "kind": m["kind"],
                "handle": m["handle"], "parent": "root" if m["root"] else (m["parent"] or ""),
            }
            rows.append(current)
            skipping = False
            continue
        if s.startswith(("filter ", "action ", "Error:", "Cannot ")):
            # another object: a filter's or an action's lines and counters are not the qdisc's
            current = None
            skipping = True
            continue
        if current is None:
            if not skipping:
                rep.bad(i, s)
            continue
        m = _SENT.match(s)
        if m:
            current.update(bytes=int(m["bytes"]), packets=int(m["pkts"]), drops=int(m["drops"]),
                           overlimits=int(m["over"]))
            if m["req"] is not None:
                current["requeues"] = int(m["req"])
            rep.ok()
        mb = _BACKLOG.search(s)
        if mb:
            current["backlog_bytes"] = float(mb["b"]) * BIN[mb["bu"]]
            current["backlog_packets"] = int(mb["p"])
            if mb["req"] is not None:
                current["requeues"] = int(mb["req"])
        mm = _MARKED.search(s)
        if mm:
            current["marked"] = int(mm["n"])
        me = _EARLY.search(s)
        if me:
            current["early_drops"] = int(me["n"])
    rows = [r for r in rows if "bytes" in r]
    if not rows:
        rep.recognised = 0
    return _finish_tc(rows, rep)


_QLEN = re.compile(r"^\s*(?P<t>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*[,;\s]\s*(?P<q>\d+(?:\.\d+)?)\s*[pP]?\s*$")


def read_qlen(path) -> pd.DataFrame:
    """Read the queue-length log of the bufferbloat exercise (``<unix time>,<packets>`` per line).

    This is what the CS244 / Mininet ``monitor_qlen`` helper writes while it polls
    ``tc -s qdisc show dev <switch port>`` (10 Hz by default)::

        1574985185.025867,0
        1574985185.130535,20

    A header line (e.g. ``time,qlen``) is ignored; other unreadable lines are malformed.

    Parameters
    ----------
    path : str, path-like, file object or text
        The queue log (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        ``time_s`` [s] (Unix time as logged) and ``backlog_packets`` [packets].

    Raises
    ------
    MeasurementFormatError
        When no line has the ``<time>,<packets>`` shape.

    References
    ----------
    .. [1] Stanford CS244 "Bufferbloat" assignment, ``monitor.py:monitor_qlen`` (Mininet).

    Examples
    --------
    >>> read_qlen("1574985185.025867,0\\n1574985185.130535,20\\n")
             time_s  backlog_packets
    0  1.574985e+09                0
    1  1.574985e+09               20
    """
    name, text = open_text(path)
    rep = Report(name, FORMAT_QLEN, EXPECTED_QLEN)
    t, q = [], []
    header_seen = False
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        m = _QLEN.match(s)
        if m:
            t.append(float(m["t"]))
            q.append(float(m["q"]))
            rep.ok()
        elif not (t or header_seen or rep.malformed_count) and re.match(
            r"^[A-Za-z_# ][\w ]*[,;\t ]\s*[A-Za-z_][\w ]*$", s
        ):
            header_seen = True  # one header line before the data, e.g. "time,qlen"
            rep.content(i, s)
        else:
            rep.bad(i, s)
    rep.require_something()
    qa = np.asarray(q, dtype=float)
    df = pd.DataFrame({"time_s": np.asarray(t, dtype=float),
                       "backlog_packets": qa.astype(np.int64) if np.all(qa == np.round(qa)) else qa})
    return rep.finish(df)
