"""Readers of queue statistics: ``tc -s qdisc`` (text or ``-j`` JSON) and the bufferbloat queue log."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd

from ._common import BIN, Report, check_json_depth, gc_paused, iter_lines, json_start, json_unclosed, line_pieces, open_text

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
# one whole 'tc -s qdisc show' output on one line ('echo $(tc -s qdisc)'), after an optional
# Unix time ('echo $(date +%s.%N) $(tc -s qdisc)'): the qdiscs follow each other on the line
_FLAT = re.compile(r"^(?:#?\s*(?P<t>\d{6,}(?:\.\d+)?)\s+)?(?=(?:qdisc|class)\s.*\sSent\s)")
_FLAT_SPLIT = re.compile(r"\s(?=(?:qdisc|class)\s+\S+\s+[0-9a-fA-F]*:[0-9a-fA-F]*(?:\s|$))")
_SENT_ANY = re.compile(_SENT.pattern.replace("^", r"\b", 1))
# counters beyond 2**62 are damaged digit runs, not a qdisc's (and would not fit int64)
_MAX_COUNT = 2**62

_COLUMNS = [
    "time_s", "sample", "object", "dev", "kind", "handle", "parent", "bytes", "packets", "drops", "overlimits",
    "requeues", "backlog_bytes", "backlog_packets", "marked", "early_drops",
]
_NUMERIC = _COLUMNS[7:]


def _count(v):
    """A counter as an int, or None when it is no count (wrong JSON type, negative, huge, not finite)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        if not v.isdigit() or len(v) > 18:
            return None
        v = int(v)
    if isinstance(v, float):
        if not math.isfinite(v) or v != int(v):
            return None
        v = int(v)
    if isinstance(v, int) and 0 <= v < _MAX_COUNT:
        return v
    return None


def _fill(current: dict, s: str, anywhere: bool = False) -> bool:
    """Add the counters found in the text *s* to the row *current*; False when a number is damaged."""
    ok = True
    m = (_SENT_ANY.search if anywhere else _SENT.match)(s)
    if m:
        for key, g in (("bytes", "bytes"), ("packets", "pkts"), ("drops", "drops"), ("overlimits", "over"),
                       ("requeues", "req")):
            if m[g] is not None:
                v = _count(m[g])
                ok &= v is not None
                current[key] = v
    mb = _BACKLOG.search(s)
    if mb:
        b = float(mb["b"]) * BIN[mb["bu"]]
        current["backlog_bytes"] = b if math.isfinite(b) and b < _MAX_COUNT else None
        current["backlog_packets"] = _count(mb["p"])
        ok &= current["backlog_bytes"] is not None and current["backlog_packets"] is not None
        if mb["req"] is not None:
            current["requeues"] = _count(mb["req"])
            ok &= current["requeues"] is not None
    for key, rx in (("marked", _MARKED), ("early_drops", _EARLY)):
        mm = rx.search(s)
        if mm:
            current[key] = _count(mm["n"])
            ok &= current[key] is not None
    return ok


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
    check_json_depth(text, rep.name, expected=rep.expected)
    rows = []
    # integers longer than any counter are read as inf (then reported malformed by _count):
    # int() refuses more than 4300 digits, which would cost the whole document
    dec = json.JSONDecoder(parse_int=lambda d: int(d) if len(d) <= 19 else math.inf)
    stamp = np.nan
    sample = -1
    lines = text.split("\n")
    offsets = np.cumsum([0] + [len(x) + 1 for x in lines])
    pos = 0
    line_no, eol = 0, 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        if pos >= offsets[line_no]:  # the line of pos: a line holds many documents ("[1]" * 20000)
            line_no = int(np.searchsorted(offsets, pos, side="right"))
            eol = text.find("\n", pos)
            eol = len(text) if eol < 0 else eol
        # a stamp is a line of a number: a long line is none (and is not copied, document by document)
        m = _STAMP.match(text[pos:eol].strip()) if eol - pos < 200 else None
        if m:
            stamp = float(m["t"])
            if not math.isfinite(stamp):
                stamp = np.nan
                rep.bad(line_no, text[pos:min(eol, pos + 200)])
            pos = eol + 1
            continue
        try:
            doc, end = dec.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            truncated = not text[exc.pos:].strip() or json_unclosed(text, pos)
            detail = "the JSON document is truncated" if truncated else f"invalid JSON: {exc.msg}"
            if rows:
                rep.bad(line_no, text[pos:min(eol, pos + 200)])
                break
            raise rep.fail(int(np.searchsorted(offsets, exc.pos, side="right")), detail) from None
        except ValueError as exc:  # any other number the decoder cannot read
            if rows:
                rep.bad(line_no, text[pos:min(eol, pos + 200)])
                break
            raise rep.fail(line_no, f"a number in the JSON cannot be read ({exc})") from None
        sample += 1
        qdiscs = doc if isinstance(doc, list) else [doc]
        for q in qdiscs:
            # 'tc -s -j class show' names the kind "class" instead of "kind"
            if not isinstance(q, dict) or not ("kind" in q or "class" in q):
                rep.bad(line_no, text[pos:min(eol, pos + 200)])
                continue
            obj = "qdisc" if "kind" in q else "class"
            row = {
                "time_s": stamp, "sample": sample, "object": obj, "dev": q.get("dev", ""),
                "kind": q["kind"] if obj == "qdisc" else q["class"],
                "handle": q.get("handle", ""), "parent": "root" if q.get("root") is True else q.get("parent", ""),
            }
            counters = {
                "bytes": q.get("bytes"), "packets": q.get("packets"), "drops": q.get("drops"),
                "overlimits": q.get("overlimits"), "requeues": q.get("requeues"),
                "backlog_bytes": q.get("backlog"), "backlog_packets": q.get("qlen"),
                "marked": q.get("marked", q.get("ecn_mark")), "early_drops": q.get("early"),
            }
            # a field of the wrong type (a list, a string, a huge or negative number) makes
            # the object malformed, not the whole file
            row.update({k: _count(v) for k, v in counters.items()})
            damaged = any(v is not None and row[k] is None for k, v in counters.items())
            if damaged or not all(isinstance(row[k], str) for k in ("dev", "kind", "handle", "parent")):
                rep.bad(line_no, text[pos:min(eol, pos + 200)])
                continue
            rows.append(row)
            rep.ok()
        pos = end
    return _finish_tc(rows, rep)


# a regular block of 'tc -s qdisc' text: the qdisc (or class) line, its Sent line and its
# backlog line with nothing else on them; any other line is one match of the last group.
# Counters of at most 17 digits and backlogs below 1e9 units stay below _MAX_COUNT.
_TC_BLOCK = re.compile(
    r"^[ \t]*((?:qdisc|class)[ \t][^\n]*)\n"
    r"[ \t]*Sent[ \t]+(\d{1,17})[ \t]+bytes[ \t]+(\d{1,17})[ \t]+pkts?[ \t]*\(dropped[ \t]+(\d{1,17}),[ \t]*"
    r"overlimits[ \t]+(\d{1,17})(?:[ \t]+requeues[ \t]+(\d{1,17}))?\)[ \t]*\n"
    r"[ \t]*backlog[ \t]+(\d{1,9}(?:\.\d{1,9})?)([KMG]?)b[ \t]+(\d{1,17})p(?:[ \t]+requeues[ \t]+(\d{1,17}))?[ \t]*$"
    r"|^(.*)$",
    re.M,
)


class _Block:
    """Rows read in bulk, as columns (strings of digits become floats)."""

    __slots__ = ("columns",)

    def __init__(self, stamp: float, samples: list, info: list, run: list):
        n = len(run)
        cols = {"time_s": np.full(n, stamp), "sample": np.array(samples, dtype=np.int64)}
        for j, c in enumerate(("object", "dev", "kind", "handle", "parent"), start=1):
            arr = np.empty(n, dtype=object)
            arr[:] = [q[j] for q in info]
            cols[c] = arr
        g = list(zip(*run))
        for c, j in (("bytes", 1), ("packets", 2), ("drops", 3), ("overlimits", 4), ("backlog_packets", 8)):
            cols[c] = np.array(g[j], dtype=float)
        # the backlog line's requeues when printed, else the Sent line's
        cols["requeues"] = np.array([b if b is not None else a for a, b in zip(g[5], g[9])], dtype=float)
        factor = np.array([BIN[u] for u in g[7]]) if len(set(g[7])) > 1 else BIN[g[7][0]]
        cols["backlog_bytes"] = np.array(g[6], dtype=float) * factor
        self.columns = cols


def _finish_mixed(items: list, rep: Report) -> pd.DataFrame:
    """:func:`_finish_tc` of rows (dicts) and blocks read in bulk, in file order."""
    rep.require_something()
    parts = []
    run = []
    for it in items + [None]:
        if isinstance(it, dict):
            run.append(it)
            continue
        if run:
            parts.append(_rows_as_columns(run))
            run = []
        if it is not None:
            parts.append(it.columns)
    del items
    # column by column, each part's column freed once copied (a frame of the parts and its
    # concatenation would hold the rows twice)
    sizes = [len(p["sample"]) for p in parts]
    data = {}
    for c in _COLUMNS:
        data[c] = np.concatenate([p.pop(c) if c in p else np.full(k, np.nan) for p, k in zip(parts, sizes)])
    return _typed_tc(pd.DataFrame(data, columns=_COLUMNS, copy=False), rep)


def _rows_as_columns(rows: list) -> dict:
    """Row dicts as the columns of a :class:`_Block` (strings as objects, numbers as floats)."""
    f = pd.DataFrame(rows, columns=_COLUMNS)
    cols = {}
    for c in _COLUMNS:
        if c in ("object", "dev", "kind", "handle", "parent"):
            cols[c] = f[c].to_numpy(dtype=object)
        elif c == "sample":
            cols[c] = f[c].to_numpy(dtype=np.int64)
        else:
            cols[c] = pd.to_numeric(f[c], errors="coerce").to_numpy(dtype=float)
    return cols


def _typed_tc(df: pd.DataFrame, rep: Report) -> pd.DataFrame:
    """The column types of :func:`_finish_tc`."""
    for c in ("object", "dev", "kind", "handle", "parent"):
        df[c] = df[c].fillna("").astype("str")
    df["time_s"] = pd.to_numeric(df["time_s"], errors="coerce").astype(float)
    df["sample"] = df["sample"].astype(np.int64)
    for c in _NUMERIC:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
        if df[c].notna().all():
            df[c] = df[c].astype(np.int64)
    return rep.finish(df)



_BLANKS = re.compile(r"\s*")


def _after_stamps(text: str) -> str:
    """The beginning of *text* after blanks, ``#`` lines and time-stamp lines ("" at the end)."""
    pos = 0
    while True:
        pos = _BLANKS.match(text, pos).end()
        if pos >= len(text):
            return ""
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        if not (text.startswith("#", pos) or _STAMP.match(text[pos:end].strip() or "x")):
            return text[pos:pos + 64]
        pos = end + 1


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

    Flattened samples, one per line, as ``echo $(date +%s.%N) $(tc -s qdisc show dev eth0)``
    logs them (the shell joins the lines of one output with single spaces; the time in
    front is optional)::

        1795516551.945 qdisc tbf 2: root refcnt 3 rate 10Mbit burst 4Kb lat 50ms Sent 45032 bytes 43 pkt (dropped 0, overlimits 75 requeues 0) backlog 60771b 35p requeues 0

    Each such line is one sample (``sample`` counts the lines; ``time_s`` is the time in
    front, NaN without one) and holds every qdisc (or class) printed, each starting at
    ``qdisc <kind> <handle>:``. A line with a damaged counter is skipped as malformed as a
    whole, so a sample never lacks a qdisc.

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
        When no qdisc statistics are found, or the JSON cannot be decoded or nests deeper
        than any ``tc -j`` output. Counters that are no count (a string or list in the
        JSON, a negative, non-finite or 19+ digit number) make their line or JSON object
        malformed instead.

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
    # Long because its nested functions are the line parser and the bulk parser of the
    # same format and share the state of one file (current sample, current qdisc).
    name, text = open_text(path)
    rep = Report(name, FORMAT_TC, EXPECTED_TC)
    if json_start(_after_stamps(text)):
        return _tc_json(text, rep)
    rows = []
    stamp = np.nan
    sample = 0
    seen = set()
    stamped_since_row = False
    current = None
    skipping = False
    def handle(i, line):
        nonlocal stamp, sample, seen, stamped_since_row, current, skipping
        s = line.strip()
        if not s:
            return
        rep.content(i, s)
        m = _FLAT.match(s)
        if m:
            # a flattened sample: one line is one sample, its time in front (NaN without)
            if rows:
                sample += 1
            t = float(m["t"]) if m["t"] else np.nan
            line_rows = []
            good = not (m["t"] and not math.isfinite(t))
            for part in _FLAT_SPLIT.split(s[m.end():]):
                mq = _QDISC.match(part)
                if not mq:
                    good = False
                    continue
                row = {"time_s": t, "sample": sample, "object": mq["object"], "dev": mq["dev"] or "",
                       "kind": mq["kind"], "handle": mq["handle"],
                       "parent": "root" if mq["root"] else (mq["parent"] or "")}
                good &= _fill(row, part[mq.end():], anywhere=True) and "bytes" in row
                line_rows.append(row)
            if good and line_rows:
                rows.extend(line_rows)
                rep.ok()
            else:
                rep.bad(i, s)
            seen = set()
            stamped_since_row = False
            current = None
            skipping = False
            return
        m = _STAMP.match(s)
        if m:
            stamp = float(m["t"])
            if not math.isfinite(stamp):
                stamp = np.nan
                rep.bad(i, s)
                return
            if rows and not stamped_since_row:
                sample += 1
                seen = set()
            stamped_since_row = True
            current = None
            skipping = False
            rep.ok()
            return
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
            return
        if s.startswith(("filter ", "action ", "Error:", "Cannot ")):
            # another object: a filter's or an action's lines and counters are not the qdisc's
            current = None
            skipping = True
            return
        if current is None:
            if not skipping:
                rep.bad(i, s)
            return
        if not line[:1].isspace() or ("bytes" in current and _SENT.match(s)):
            # tc indents a qdisc's counters: a line at the margin is not one of them (a word a
            # script printed into the log, a damaged qdisc line such as "249qdisc ..."), and a
            # second "Sent" belongs to a qdisc line that was not recognised. The counters that
            # follow are no longer this qdisc's.
            rep.bad(i, s)
            current = None
            return
        if not _fill(current, s):
            rep.bad(i, s)  # a counter too long or damaged: that counter is left NaN
        elif _SENT.match(s):
            rep.ok()

    qdisc_lines = {}  # qdisc line -> its key and columns (the lines of a sample repeat)

    def fast(first_line, run):
        """Rows of regular blocks (match groups) that another regular block follows, as
        columns; the state changes as :func:`handle` would make them."""
        nonlocal sample, seen, stamped_since_row, current, skipping
        samples = []
        info = []
        for g in run:
            q = qdisc_lines[g[0]]
            if q[0] in seen:
                sample += 1
                seen = set()
            seen.add(q[0])
            samples.append(sample)
            info.append(q)
        stamped_since_row = False
        current = None
        skipping = False
        rep.content(first_line, run[0][0].strip())
        rep.ok(len(run))
        rows.append(_Block(stamp, samples, info, run))

    line0 = 1
    with gc_paused():  # the match tuples of a chunk would make every collection slower
        for chunk in line_pieces(text):
            matches = list(_TC_BLOCK.finditer(chunk))
            groups = [mt.groups() for mt in matches]
            # a regular block is read in bulk when another one follows (blank lines between
            # allowed); the last one stays open to the lines after it, as a row of handle()
            bulk = [False] * len(groups)
            next_is_block = False
            for k in range(len(groups) - 1, -1, -1):
                g = groups[k]
                if g[0] is None:
                    if g[10].strip():
                        next_is_block = False
                    continue
                if next_is_block:
                    q = qdisc_lines.get(g[0])
                    if q is None and "Sent" not in g[0]:
                        mq = _QDISC.match(g[0])
                        if mq is not None:
                            q = qdisc_lines[g[0]] = (
                                (mq["object"], mq["dev"], mq["kind"], mq["handle"], mq["parent"]),
                                mq["object"], mq["dev"] or "", mq["kind"], mq["handle"],
                                "root" if mq["root"] else (mq["parent"] or ""))
                    bulk[k] = q is not None
                next_is_block = True
            k = 0
            n = len(groups)
            while k < n:
                if bulk[k]:
                    stop = k
                    run = []
                    # a run of bulk blocks, with the blank lines between them
                    while stop < n and (bulk[stop] or (groups[stop][0] is None and not groups[stop][10].strip())):
                        if bulk[stop]:
                            run.append(groups[stop])
                        stop += 1
                    fast(line0, run)
                    line0 += 3 * len(run) + (stop - k - len(run))
                    k = stop
                    continue
                g = groups[k]
                if g[0] is not None:
                    mt = matches[k]
                    for j, ln in enumerate(chunk[mt.start():mt.end()].split("\n")):
                        handle(line0 + j, ln.rstrip())
                    line0 += 3
                else:
                    handle(line0, g[10].rstrip())
                    line0 += 1
                k += 1
            del matches, groups
    del text
    rows = [r for r in rows if isinstance(r, _Block) or "bytes" in r]
    if not rows:
        rep.recognised = 0
    if any(isinstance(r, _Block) for r in rows):
        return _finish_mixed(rows, rep)
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
    lead = _BLANKS.match(text).end()
    first, first_line = text[lead:lead + 1], text[:lead].count("\n") + 1
    # the text is held as bytes only from here (and decoded again for the line-by-line path)
    data = text.encode("utf-8", "surrogatepass")
    del text
    fast = _qlen_fast(data, first, first_line, rep)
    if fast is not None:
        t, qa = fast
    else:
        t, qa = _qlen_slow(data.decode("utf-8", "surrogatepass"), rep)
    del data
    if np.all(qa == np.round(qa)) and np.all(qa < 2.0**63):
        qa = qa.astype(np.int64)
    df = pd.DataFrame({"time_s": t, "backlog_packets": qa}, copy=False)
    return rep.finish(df)


def _qlen_fast(data: bytes, first: str, first_line: int, rep: Report):
    """The common case, every line ``<time>,<packets>``, parsed by pandas' C reader.

    *data* is the text as bytes, *first* its first non-blank character, on line
    *first_line*. Returns ``(time, packets)`` arrays or None when the file needs the
    line-by-line path (other separators, a header, malformed or non-finite values).
    """
    import io

    if not first or not (first.isdigit() or first in "-."):
        return None
    try:
        frame = pd.read_csv(io.BytesIO(data), header=None, names=["t", "q"], dtype=float, engine="c",
                            skip_blank_lines=True, index_col=False)
    except (ValueError, pd.errors.ParserError, OverflowError):  # also invalid UTF-8 (a lone surrogate)
        return None
    t = frame["t"].to_numpy()
    q = frame["q"].to_numpy()
    if (not len(t) or data.count(b",") != len(t) or not np.isfinite(t).all() or not np.isfinite(q).all()
            or (q < 0).any()):
        return None
    rep.ok(len(t))
    rep.content(first_line)
    return t, q


def _qlen_slow(text: str, rep: Report):
    """Line by line: separators ``,``/``;``/blanks, a header line, malformed lines reported."""
    t, q = [], []
    header_seen = False
    for i, line in iter_lines(text):
        s = line.strip()
        if not s:
            continue
        m = _QLEN.match(s)
        if m:
            tv, qv = float(m["t"]), float(m["q"])
            if math.isfinite(tv) and math.isfinite(qv):  # 1e999 or 400 digits read as inf
                t.append(tv)
                q.append(qv)
                rep.ok()
                continue
            rep.bad(i, s)
        elif not (t or header_seen or rep.malformed_count) and re.match(
            r"^[A-Za-z_# ][\w ]*[,;\t ]\s*[A-Za-z_][\w ]*$", s
        ):
            header_seen = True  # one header line before the data, e.g. "time,qlen"
            rep.content(i, s)
        else:
            rep.bad(i, s)
    rep.require_something()
    return np.asarray(t, dtype=float), np.asarray(q, dtype=float)
