"""Reader of ``ping`` output (iputils, and the BSD/macOS and BusyBox variants of the reply line)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ._common import Report, source_name
from ._vector import (COLON, EQ, LBRACK, RBRACK, SPACE, Lines, categoricals, fast_rows, read_chunks, parse_float,
                      parse_uint, span_codes)

__all__ = ["read_ping"]

FORMAT = "ping"
EXPECTED = (
    "ping output: reply lines '[<epoch>] <n> bytes from <host>: icmp_seq=<n> ttl=<n> time=<ms> ms' "
    "(icmp_req= in old iputils; the [<epoch>] stamp only with -D, or a bare '<epoch> ' added by a "
    "recording loop) and the statistics summary"
)

_REPLY = re.compile(
    r"^(?:\[(?P<ts>\d+(?:\.\d+)?)\]\s*)?(?P<bytes>\d+) bytes from (?P<host>\S+?(?: \([^()\s]*\))?)[:,]\s+"
    r"(?:icmp_[sr]eq|seq)=(?P<seq>\d+)\s+(?:hlim|ttl)=(?P<ttl>\d+)\s+time[=<]\s*(?P<rtt>\d+(?:\.\d+)?)\s*ms"
    r"(?P<rest>(?:\s*\((?:DUP!|BAD CHECKSUM!|truncated|DIFFERENT ADDRESS!|same route)\))*)\s*$"
)
_STATS = re.compile(
    # counts of at most 19 digits (they fit an int64): a longer one is a malformed line
    r"^(?P<tx>\d{1,19}) packets transmitted, (?P<rx>\d{1,19}) (?:packets )?received"
    # iputils: ", +2 duplicates"; BusyBox: ", 2 duplicates"
    r"(?:, \+?(?P<dup>\d{1,19}) duplicates)?(?:, \+(?P<err>\d{1,19}) errors)?"
    r"(?:, (?P<loss>\d+(?:\.\d+)?)% packet loss)?(?:, time (?P<time>\d+)ms)?"
)
_RTT = re.compile(
    r"^(?:rtt|round-trip) min/avg/max(?:/(?:mdev|stddev|std-dev))? = (?P<vals>[\d./]+) ms"
)
_HEADER = re.compile(r"^PING \S+|^PING6\(.*-->\s*\S+")
_TITLE = re.compile(r"^--- .* ping6? statistics ---$")
_ERROR = re.compile(
    r"^(?:\[\d+(?:\.\d+)?\]\s*)?(?:From \S.*?icmp_seq=\d+|no answer yet for icmp_seq=\d+|Request timeout for icmp_seq[= ]\d+"
    r"|ping: .*|PING: .*|Warning: .*)"
)
# lines that are ping's but no reply and no error: "pipe 4" under the statistics (probes in
# flight at once), and ping -R's route ("RR: \t10.0.0.1", then one hop per tab-indented line,
# "(same route)" after later replies)
_OTHER = re.compile(
    r"^(?:pipe \d+|(?:RR:\s*)?(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Za-z.-]+ \(\d{1,3}(?:\.\d{1,3}){3}\))"
    r"|\((?:same|truncated) route\))$"
)

_COLS = ["time_s", "seq", "rtt_s", "ttl", "bytes", "src", "dup"]

# a bare Unix time in front of the line, as a recorder loop writes it
# ('echo "$(date +%s.%N) $line"', moreutils 'ts %.s'): ping -D's stamp without the brackets
_BARE = re.compile(r"^(?P<ts>\d{9,11}(?:\.\d+)?)(?:\s+(?P<rest>.*))?$")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
# counters beyond this are not a ping's (a corrupted digit run); they would not fit int64
_MAX_COUNT = float(2**53)


def _fast(L: Lines, rows: np.ndarray, table: dict):
    """Vectorised parse of plain reply lines; returns (rows parsed, columns)."""
    rows = rows[L.count_in_lines(EQ, rows) == 3]
    if not len(rows):
        return rows, {}
    s, e = L.starts[rows], L.ends[rows]
    E = L.nth_positions(EQ, rows, 3)
    e0, e1, e2 = E[:, 0], E[:, 1], E[:, 2]
    ok = (L.equals(e0 - 9, b" icmp_seq") | L.equals(e0 - 9, b" icmp_req")) & (L.byte(e0 - 10) == COLON)
    ok &= L.equals(e1 - 4, b" ttl") & L.equals(e2 - 5, b" time") & L.equals(e - 3, b" ms")
    # optional [epoch] stamp (ping -D)
    stamped = L.byte(s) == LBRACK
    rb = L.scan_fwd(s + 1, e, b"0123456789.", limit=24)
    ok &= ~stamped | ((L.byte(rb) == RBRACK) & (L.byte(rb + 1) == SPACE))
    ts, okt = parse_float(L, s + 1, rb)
    ok &= ~stamped | okt
    body = np.where(stamped, rb + 2, s)
    nb_end = L.scan_fwd(body, e, b"0123456789", limit=8)
    ok &= L.equals(nb_end, b" bytes from ")
    nbytes, okb = parse_uint(L, body, nb_end)
    host0, host1 = nb_end + 12, e0 - 10
    ok &= okb & (host1 > host0)
    seq, ok0 = parse_uint(L, e0 + 1, e1 - 4)
    ttl, ok1 = parse_uint(L, e1 + 1, e2 - 5)
    rtt, ok2 = parse_float(L, e2 + 1, e - 3)
    ok &= ok0 & ok1 & ok2
    good = np.flatnonzero(ok)
    if not len(good):
        return good, {}
    cols = {
        "time_s": np.where(stamped, ts, np.nan)[good],
        "seq": seq[good].astype(np.float64),
        "rtt_s": rtt[good] * 1e-3,
        "ttl": ttl[good].astype(np.float64),
        "bytes": nbytes[good].astype(np.float64),
        "src": span_codes(L, host0[good], host1[good], table),
        "dup": np.zeros(len(good), dtype=bool),
    }
    return rows[good], cols


def _chunk(L: Lines) -> dict:
    table: dict[str, int] = {}
    first, part, rows = fast_rows(L, _fast, table)
    out = {"parts": [] if part is None else [part], "bad": [], "table": table, "first": first, "events": []}
    slow = {c: [] for c in _COLS}
    slow_lines = []
    for r, text in zip(rows, L.text(rows)):
        line_no = int(L.numbers[r])
        line = text.strip()
        bare_ts = None
        mb = _BARE.match(line)
        if mb:
            bare_ts = float(mb["ts"])
            line = (mb["rest"] or "").strip()
            if not line:
                out["events"].append((line_no, "blank", mb, line))  # a stamped empty line
                continue
        m = _REPLY.match(line)
        if m:
            vals = (float(m["seq"]), float(m["rtt"]), float(m["ttl"]), float(m["bytes"]))
            if not all(v < _MAX_COUNT for v in vals):  # 400 digits read as inf or beyond int64
                out["bad"].append((line_no, text))
                continue
            slow_lines.append(line_no)
            slow["time_s"].append(float(m["ts"]) if m["ts"] else bare_ts if bare_ts is not None else np.nan)
            slow["seq"].append(vals[0])
            slow["rtt_s"].append(vals[1] * 1e-3)
            slow["ttl"].append(vals[2])
            slow["bytes"].append(vals[3])
            slow["src"].append(table.setdefault(m["host"], len(table)))
            slow["dup"].append("DUP!" in m["rest"])
            continue
        for kind, rx in (("stats", _STATS), ("rtt", _RTT), ("header", _HEADER), ("title", _TITLE), ("error", _ERROR),
                         ("other", _OTHER)):
            m = rx.match(line)
            if m:
                out["events"].append((line_no, kind, m, line))
                break
        else:
            out["bad"].append((line_no, text))
    if slow_lines:
        cols = {c: np.asarray(v, dtype=np.int32 if c == "src" else bool if c == "dup" else np.float64)
                for c, v in slow.items()}
        out["parts"].append((np.asarray(slow_lines, np.int64), cols))
    return out


def _target(line: str):
    """The pinged host of a banner: "PING host (addr) ...", "PING ::1(::1) 56 data bytes", BSD "PING6(...) a --> b"."""
    parts = line.split()
    target = parts[-1] if "-->" in line else parts[1] if len(parts) > 1 else None
    if target and "(" in target[1:]:
        target = target[: target.index("(", 1)]
    return target


_SUMMARY_KEYS = ("transmitted", "received", "duplicates", "errors", "loss", "time_s",
                 "rtt_min_s", "rtt_avg_s", "rtt_max_s", "rtt_mdev_s")


def add_statistics(run: dict, counts: dict) -> dict:
    """Open a statistics block of *run* with *counts* (its packets line) and return it.

    A run that has one already gets a second block (the first is kept in ``run["blocks"]``):
    two pings that wrote into one file at once print two banners, their replies mixed, then
    two statistics blocks, all after the second banner. :func:`close_run` adds the blocks
    up; nothing is overwritten.
    """
    if "transmitted" in run.get("summary", {}):
        run.setdefault("blocks", []).append(run.pop("summary"))
    run["summary"] = dict(counts)
    return run["summary"]


def close_run(run: dict) -> None:
    """Count the statistics blocks of *run* (``run["statistics_blocks"]``); several are added up
    into ``run["summary"]`` (as :func:`runs_total` adds runs)."""
    blocks = run.pop("blocks", []) + ([run["summary"]] if "transmitted" in run.get("summary", {}) else [])
    run["statistics_blocks"] = len(blocks)
    if len(blocks) > 1:
        run["summary"] = runs_total([run_entry({"summary": b}, 0) for b in blocks])


def several_blocks_note(runs: list[dict]) -> list[str]:
    """The note of a file whose runs hold several statistics blocks (none when each has one at most)."""
    odd = [(k, r["statistics_blocks"]) for k, r in enumerate(runs) if r.get("statistics_blocks", 0) > 1]
    if not odd:
        return []
    where = ", ".join(f"run {k}: {n}" for k, n in odd)
    return [f"statistics blocks without a banner each ({where}): several pings wrote into one file at once; "
            "their replies cannot be told apart, and attrs['summary'] adds the blocks up"]


def run_entry(run: dict, replies: int) -> dict:
    """Summary of one run: its own statistics, or NaN counters when ping printed none."""
    summary = run.get("summary", {})
    entry = {"target": run.get("target"), "first_line": run.get("first_line"),
             "replies": int(replies), "complete": "transmitted" in summary,
             "statistics_blocks": int(run.get("statistics_blocks", "transmitted" in summary))}
    for key in _SUMMARY_KEYS:
        entry[key] = summary.get(key, float("nan"))
    return entry


def runs_total(runs: list[dict]) -> dict:
    """Statistics of several complete runs taken together (see :func:`read_ping`, Notes)."""
    tx = sum(r["transmitted"] for r in runs)
    rx = sum(r["received"] for r in runs)
    with_rtt = [r for r in runs if r["received"] > 0 and np.isfinite(r["rtt_avg_s"])]
    n = np.asarray([r["received"] for r in with_rtt], dtype=float)
    avg = np.asarray([r["rtt_avg_s"] for r in with_rtt], dtype=float)
    mdev = np.asarray([r["rtt_mdev_s"] for r in with_rtt], dtype=float)
    total = {
        "transmitted": tx, "received": rx,
        "duplicates": sum(r["duplicates"] for r in runs), "errors": sum(r["errors"] for r in runs),
        "loss": (tx - rx) / tx if tx else float("nan"),
        "time_s": float(sum(r["time_s"] for r in runs)),
        "rtt_min_s": min((r["rtt_min_s"] for r in with_rtt), default=float("nan")),
        "rtt_avg_s": float(np.sum(n * avg) / np.sum(n)) if len(n) else float("nan"),
        "rtt_max_s": max((r["rtt_max_s"] for r in with_rtt), default=float("nan")),
        "rtt_mdev_s": float("nan"),
    }
    if len(n) and np.isfinite(mdev).all():
        # pooled population deviation: mdev is sqrt(E[rtt^2] - E[rtt]^2) within each run
        second = np.sum(n * (mdev**2 + avg**2)) / np.sum(n)
        total["rtt_mdev_s"] = float(np.sqrt(max(second - total["rtt_avg_s"] ** 2, 0.0)))
    return total


def read_ping(path) -> pd.DataFrame:
    """Read the replies and the summary printed by ``ping``.

    Accepted reply lines (iputils; BSD/macOS and BusyBox print the same shape)::

        64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=4.04 ms
        [1700000000.123456] 64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=0.055 ms   (ping -D)
        64 bytes from 10.0.0.2: icmp_req=3 ttl=64 time=152 ms                        (iputils before 2013)
        64 bytes from host.example (10.0.0.2): icmp_seq=4 ttl=64 time=3.1 ms (DUP!)
        64 bytes from ::1: icmp_seq=5 ttl=64 time=0.030 ms                             (IPv6)
        16 bytes from ::1, icmp_seq=6 hlim=64 time=0.045 ms                           (BSD/macOS ping6)
        1741592039.957 64 bytes from 10.0.0.2: icmp_seq=7 ttl=64 time=0.05 ms         (bare epoch prefix)

    The bare prefix is what a recording loop writes (``ping ... | while read l; do echo
    "$(date +%s.%N) $l"; done``, or moreutils ``ts %.s``); it may stand before every line,
    the banner and the statistics included, and gives ``time_s`` like ``-D``'s stamp.
    The time may have any precision (``245``, ``4.04``, ``0.055``). The header
    (``PING ...``), the statistics block (``N packets transmitted, M received, x% packet
    loss, time Tms`` and ``rtt min/avg/max/mdev = a/b/c/d ms``), error lines (``From ...
    Destination Host Unreachable``, ``no answer yet for icmp_seq=N``, ``Request timeout``)
    are recognised; anything else (such as the interleaved output of two ping processes
    writing to the same file) is skipped and counted as malformed.

    Parameters
    ----------
    path : str, path-like, file object or text
        The ping output (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        One row per reply: ``time_s`` [s] (Unix time from ``-D``, NaN without it), ``seq``,
        ``rtt_s`` [s], ``ttl``, ``bytes`` [bytes] (ICMP size printed), ``src`` (the replying
        host), ``dup`` (duplicate reply). ``attrs["summary"]`` holds the statistics when
        present: ``transmitted``, ``received``, ``loss`` [fraction], ``duplicates``,
        ``errors``, ``time_s`` [s], ``rtt_min_s``, ``rtt_avg_s``, ``rtt_max_s``,
        ``rtt_mdev_s`` [s]; ``attrs["target"]`` the pinged host, ``attrs["errors"]`` the
        number of error lines, ``attrs["malformed"]`` the skipped lines. Column ``run``
        (0, 1, ... in file order) numbers the ping runs of a log that several runs were
        appended to (each ``PING`` banner starts one); ``attrs["runs"]`` is a list with
        one dict per run: ``target``, ``first_line``, ``replies`` (reply rows read),
        ``complete`` (False when the run has no statistics block: interrupted, or still
        being written) and the summary keys above (NaN when not printed). With a single
        run ``attrs["summary"]`` and ``attrs["target"]`` are that run's, as for one ping.
        With several runs ``attrs["summary"]`` is the total over the complete runs (see
        Notes), ``attrs["target"]`` the target when all runs share it, else the list of
        distinct targets in file order, and ``attrs["notes"]`` says how many runs were
        found and how many were cut off.

    Raises
    ------
    MeasurementFormatError
        When nothing in the source looks like ping output.

    Warns
    -----
    MalformedLinesWarning
        When some lines were skipped.

    Notes
    -----
    Lost probes are the sequence numbers missing from ``seq``; the loss of the whole run is
    ``attrs["summary"]["loss"]`` when ping printed its statistics (it does not when killed).

    Total of several runs: ``transmitted``, ``received``, ``duplicates``, ``errors`` and
    ``time_s`` are sums, ``loss`` = 1 - received / transmitted, ``rtt_min_s`` the least of
    the minima, ``rtt_max_s`` the largest maximum, ``rtt_avg_s`` the mean of the run
    averages weighted by ``received``. ``rtt_mdev_s`` is pooled: iputils prints the
    population deviation sqrt(E[rtt^2] - E[rtt]^2) of each run, so the total is
    sqrt(sum n_i (mdev_i^2 + avg_i^2) / sum n_i - avg^2) with n_i the replies received
    (exact up to the rounding of the printed values; NaN when a run printed no mdev).

    References
    ----------
    .. [1] ``ping(8)``, iputils (https://github.com/iputils/iputils), ``ping/ping_common.c``.

    Examples
    --------
    >>> text = '''PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.
    ... 64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=4.04 ms
    ... 64 bytes from 10.0.0.2: icmp_seq=3 ttl=64 time=245 ms
    ...
    ... --- 10.0.0.2 ping statistics ---
    ... 3 packets transmitted, 2 received, 33.3333% packet loss, time 2003ms
    ... rtt min/avg/max/mdev = 4.040/124.520/245.000/120.480 ms
    ... '''
    >>> df = read_ping(text)
    >>> df[["seq", "rtt_s", "ttl"]]
       seq  rtt_s  ttl
    0    1  0.00404   64
    1    3  0.24500   64
    >>> round(df.attrs["summary"]["loss"], 4), df.attrs["summary"]["rtt_avg_s"]
    (0.3333, 0.12452)
    """
    name = source_name(path)
    rep = Report(name, FORMAT, EXPECTED)
    table: dict[str, int] = {}
    parts_lines, parts_cols = [], []
    events = []
    for offset, res, remap in read_chunks(path, _chunk, rep, table):
        for lines, cols in res["parts"]:
            cols["src"] = remap[cols["src"]] if len(cols["src"]) else cols["src"]
            parts_lines.append(lines + offset)
            parts_cols.append(cols)
        events.extend((ln + offset, kind, m, line) for ln, kind, m, line in res["events"])
    n = sum(len(x) for x in parts_lines)
    rep.ok(n + sum(ev[1] != "blank" for ev in events))  # a stamped empty line alone is no ping output
    rep.require_something()
    line_no = np.concatenate(parts_lines) if parts_lines else np.zeros(0, np.int64)
    del parts_lines
    order = np.argsort(line_no, kind="stable") if len(line_no) > 1 and np.any(np.diff(line_no) < 0) else None
    # column by column, each part's column freed once copied, no copy where the type is right
    types = {"time_s": np.float64, "seq": np.int64, "rtt_s": np.float64, "ttl": np.int64, "bytes": np.int64,
             "src": np.int64, "dup": bool}
    data = {}
    for c in _COLS:
        v = np.concatenate([p.pop(c) for p in parts_cols]) if parts_cols else np.zeros(0)
        v = v[order] if order is not None else v
        data[c] = v.astype(types[c], copy=False) if c in types else v
    del parts_cols
    (src,) = categoricals([data.pop("src")], table)
    frame = {
        "time_s": data["time_s"],
        "seq": data["seq"],
        "rtt_s": data["rtt_s"],
        "ttl": data["ttl"],
        "bytes": data["bytes"],
        "src": src,
        "dup": data["dup"],
    }
    extra = {"errors": 0}
    runs: list[dict] = []
    for ev_line, kind, m, line in sorted(events, key=lambda ev: ev[0]):
        if kind == "blank":
            continue
        # each "PING ..." banner starts a run; what comes before the first banner is run 0
        if not runs or (kind == "header" and ("target" in runs[-1] or "summary" in runs[-1])):
            runs.append({"first_line": int(ev_line)})
        run = runs[-1]
        if kind == "header":
            run["target"] = _target(line)
        elif kind == "error":
            extra["errors"] += 1
        elif kind == "stats":
            tx, rx = int(m["tx"]), int(m["rx"])
            add_statistics(run, {
                "transmitted": tx, "received": rx, "duplicates": int(m["dup"] or 0), "errors": int(m["err"] or 0),
                "loss": (float(m["loss"]) / 100.0) if m["loss"] else ((tx - rx) / tx if tx else float("nan")),
                "time_s": float(m["time"]) * 1e-3 if m["time"] else float("nan")})
        elif kind == "rtt":
            vals = m["vals"].split("/")
            if not all(_NUMBER.match(v) for v in vals):
                rep.bad(ev_line, line)  # e.g. "rtt min/avg/max/mdev = . ms": a damaged line
                continue
            summary = run.setdefault("summary", {})
            for key, v in zip(("rtt_min_s", "rtt_avg_s", "rtt_max_s", "rtt_mdev_s"), vals):
                summary[key] = float(v) * 1e-3
    for run in runs:
        close_run(run)
    # the run of each reply: the number of later runs' banners above it
    starts = np.asarray([r["first_line"] for r in runs[1:]], dtype=np.int64)
    line_sorted = line_no[order] if order is not None else line_no
    frame["run"] = np.searchsorted(starts, line_sorted, side="right").astype(np.int64)
    df = pd.DataFrame(frame, copy=False)
    if len(runs) <= 1:
        # one run: the attrs of a single ping, as before
        if runs and "target" in runs[0]:
            extra["target"] = runs[0]["target"]
        if runs and runs[0].get("summary"):
            extra["summary"] = runs[0]["summary"]
        extra["runs"] = [run_entry(runs[0] if runs else {}, len(df))]
    else:
        replies = np.bincount(frame["run"], minlength=len(runs))
        extra["runs"] = [run_entry(r, replies[k]) for k, r in enumerate(runs)]
        targets = list(dict.fromkeys(r["target"] for r in extra["runs"] if r["target"] is not None))
        extra["target"] = targets[0] if len(targets) == 1 else targets
        complete = [r for r in extra["runs"] if r["complete"]]
        if complete:
            extra["summary"] = runs_total(complete)
        # a banner whose statistics came after a later banner (pings writing at once) is no cut run
        cut = 0 if several_blocks_note(extra["runs"]) else len(extra["runs"]) - len(complete)
        extra["notes"] = [
            f"{len(runs)} ping runs in one file (each 'PING' banner starts one; column 'run')"
            + (f"; {cut} without a statistics block (interrupted or still running), "
               "left out of attrs['summary']" if cut else "")
        ]
    notes = several_blocks_note(extra["runs"])
    if notes:
        extra["notes"] = extra.get("notes", []) + notes
    return rep.finish(df, extra)
