"""Reader of Windows ``ping`` output, in any display language, as cmd.exe or PowerShell saves it."""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pandas as pd

from ._common import Report, source_name
from ._vector import COLON, DOT, EQ, SPACE, Lines, categoricals, fast_rows, read_chunks, parse_uint, span_codes
from .ping import add_statistics, close_run, run_entry, runs_total, several_blocks_note

__all__ = ["read_ping_windows"]

FORMAT = "ping_windows"
EXPECTED = (
    "Windows ping output: reply lines '<words> <address>: <word>=32 <word>=12ms TTL=117' in any "
    "language (time<1ms, IPv6 replies without bytes and TTL), 'Request timed out.' and the other "
    "failure messages, the 'Pinging ...' banner and the 'Packets: Sent = 4, Received = 4, Lost = 0' "
    "and 'Minimum = ..ms, Maximum = ..ms, Average = ..ms' statistics"
)

# Windows prints the same fields in every language; only the words differ and sometimes the
# order around the address (Japanese: "<address> からの応答: ..."). The lines are therefore
# recognised by their structure (numbers, '=', 'ms', 'TTL', an address), never by a word,
# which also survives a file saved by cmd.exe in an OEM code page and decoded as cp1252.
# Hand-written: no parsing library reads localised Windows ping output.
_ADDR = r"(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:.]*[0-9A-Fa-f](?:%\w+)?)"
_UNIT = r"(?:ms|мс|мсек|毫秒)"
_REPLY = re.compile(
    r"^(?P<head>[^=<]*?)(?P<addr>" + _ADDR + r")(?P<mid>[^:：=<]*?)\s?[:：]\s*"
    r"(?:(?P<bword>[^=<:：]+?)\s?=\s?(?P<bytes>\d{1,9})\s+)?"
    r"(?P<tword>[^=<\d\s][^=<\d]*?)\s?(?P<op>[=<])\s?(?P<rtt>\d{1,9})\s?" + _UNIT +
    r"(?:\s+TTL\s?=\s?(?P<ttl>\d{1,3}))?\s*$"
)
# "Reply from 10.0.0.1: Destination host unreachable." (an ICMP error Windows counts as received)
_ANSWER = re.compile(r"^(?P<head>[^=<]*?)(?P<addr>" + _ADDR + r")(?P<mid>[^:：=<]*?)\s?[:：]\s*(?P<msg>[^=<]+)$")
_THREE_COUNTS = re.compile(r"=\s*(\d{1,19})\s*[,，、]\s*[^=]*=\s*(\d{1,19})\s*[,，、]\s*[^=]*=\s*(\d{1,19})(?!\s*" + _UNIT + ")")
_THREE_TIMES = re.compile(r"=\s*(\d{1,9})\s?" + _UNIT + r"\s*[,，、]\s*[^=]*=\s*(\d{1,9})\s?" + _UNIT +
                          r"\s*[,，、]\s*[^=]*=\s*(\d{1,9})\s?" + _UNIT)
_PERCENT = re.compile(r"^[(（]\s*\d{1,3}\s*%[^()]*[)）]\s*[,，、.]?$")  # German/Russian "(0% Verlust),", Dutch "(0% verlies)."
# Portuguese wraps its percentage: "(0% de" at the end of the counts, "perda)," alone below
_PERCENT_TAIL = re.compile(r"^[^\W\d_]{1,20}[)）]\s*[,，、.]?$")
# Italian puts the lost count on a line of its own: "Pacchetti: Trasmessi = 4, Ricevuti = 4,"
# then "Persi = 0 (0% persi),"
_TWO_COUNTS = re.compile(r"=\s*(\d{1,19})\s*[,，、]\s*[^=]*=\s*(\d{1,19})\s*[,，、]\s*$")
_LOST_ALONE = re.compile(r"^[^=\d]{1,30}=\s*(\d{1,19})\s*[(（]\s*\d{1,3}\s*%[^()]*[)）]\s*[,，、.]?$")
# the command itself, echoed above its output (Packet Tracer, a pasted session): "ping 10.0.0.1"
_COMMAND = re.compile(r"^ping(?:\.exe)?(?:\s+[-/]?[\w.:%-]*[\w%])*\s+[\w.:%-]*\w$")
_ANY_ADDR = re.compile(r"(?:^|[\s\[(])(" + _ADDR + r")(?=[\s\]):：]|$)")
_BRACKETED = re.compile(r"(\S+)\s*\[(" + _ADDR + r")\]")
_SIZE = re.compile(r"(?:^|[\s(（])\d{1,5}(?=\s)")
_PROMPT = re.compile(r"^(?:PS )?[A-Za-z]:\\[^>]*>")
_MAX_LINE = 400  # longer lines are no ping output: the patterns above only see short ones

# Messages of a probe without an echo reply, by their letters (ASCII letters, lower case, for
# the Latin-script languages: "Zeitüberschreitung" read in the wrong code page keeps them).
_FAILURES = {
    # timeouts
    "requesttimedout": "timeout", "zeitberschreitungderanforderung": "timeout",
    "dlaidattentedelademandedpass": "timeout", "tiempodeesperaagotadoparaestasolicitud": "timeout",
    "esgotadootempolimitedopedido": "timeout", "richiestascaduta": "timeout", "timeoutbijopdracht": "timeout",
    "upynlimitczasudania": "timeout", "istekzamanamnadoldu": "timeout",
    "要求がタイムアウトしました": "timeout", "要求等候逾時": "timeout", "请求超时": "timeout",
    "превышенинтерваложиданиядлязапроса": "timeout",
    # no route, host down (also after "Reply from <router>: ...")
    "destinationhostunreachable": "unreachable", "destinationnetunreachable": "unreachable",
    "destinationportunreachable": "unreachable", "destinationprotocolunreachable": "unreachable",
    "zielhostnichterreichbar": "unreachable", "zielnetznichterreichbar": "unreachable",
    "htededestinationinaccessible": "unreachable", "impossibledejoindrelhtededestination": "unreachable",
    "hostdedestinoinaccesible": "unreachable", "hostdedestinoinacessvel": "unreachable",
    "hostdidestinazionenonraggiungibile": "unreachable",
    "ttlexpiredintransit": "unreachable", "ttlbeimtransportabgelaufen": "unreachable",
    "duredeviettlexpirelorsdutransit": "unreachable",
    "заданныйузелнедоступен": "unreachable", "指定的主机不可达": "unreachable", "無法連線到目的地主機": "unreachable",
    # the probe could not be sent
    "packetneedstobefragmentedbutdfset": "failure", "paketmsstefragmentiertwerdendfflagistjedochgesetzt": "failure",
    "generalfailure": "failure", "transmitfailedgeneralfailure": "failure",
    "pingtransmitfailedgeneralfailure": "failure", "allgemeinerfehler": "failure",
    "pingfehlerbeiderbertragungallgemeinerfehler": "failure", "checgnral": "failure",
    "pinglatransmissionachouchecgnral": "failure", "errorgeneral": "failure",
}


def _key(text: str) -> str:
    """The letters of a message: ASCII letters in lower case, or (for other scripts) every letter."""
    ascii_letters = "".join(c for c in text.lower() if "a" <= c <= "z")
    if len(ascii_letters) >= 6:
        return ascii_letters
    return "".join(c for c in unicodedata.normalize("NFKC", text).lower() if c.isalpha())


def _classify(line: str):
    """``(kind, details)`` of one stripped line, kind None when it is not Windows ping output."""
    if len(line) > _MAX_LINE:
        return None, None
    m = _REPLY.match(line)
    if m:
        return "reply", m
    t = _THREE_TIMES.search(line)
    if t:
        return "rtt", [int(x) for x in t.groups()]  # min, max, average in every language
    c = _THREE_COUNTS.search(line)
    if c:
        return "stats", [int(x) for x in c.groups()]  # sent, received, lost
    c = _TWO_COUNTS.search(line)
    if c:
        return "stats_head", [int(x) for x in c.groups()]  # sent, received; lost on the next line
    c = _LOST_ALONE.match(line)
    if c:
        return "stats_tail", int(c.group(1))
    if line == "Control-Break":  # ping -t: statistics so far printed above, the run goes on
        return "break", None
    if (_PERCENT.match(line) or _PERCENT_TAIL.match(line) or _PROMPT.match(line) or _COMMAND.match(line)
            or line in ("^C", "Control-C", "Ctrl+C")):
        return "other", None
    kind = _FAILURES.get(_key(line))
    if kind:
        return "failure", (kind, None)
    a = _ANSWER.match(line)
    if a:
        kind = _FAILURES.get(_key(a["msg"]))
        if kind:
            return "failure", (kind, a["addr"])
    if line.endswith((":", "：")):
        addr = _ANY_ADDR.search(line)
        if addr is None:
            # "Approximate round trip times in milli-seconds:" and its translations: no
            # address, no '=': a heading of the statistics
            return ("heading", None) if "=" not in line and len(line) < 120 else (None, None)
        body = _ANY_ADDR.sub(" ", _BRACKETED.sub(" ", line))
        if _SIZE.search(body):  # "with 32 bytes of data:": the banner of a run
            named = _BRACKETED.search(line)
            return "banner", named.group(1).strip("'\"") if named else addr.group(1)
        return "title", addr.group(1)  # "Ping statistics for 8.8.8.8:"
    if _key(line).startswith(("pingrequestcouldnotfindhost", "beidempingkonntehost", "lerequteping")):
        return "failure", ("unknown host", None)
    return None, None


def _fast(L: Lines, rows: np.ndarray, table: dict):
    """Vectorised parse of '<words> <address>: <word>=<n> <word>=<n>ms TTL=<n>' (and ' ms',
    'time<1ms'); returns (rows parsed, columns). Other shapes go line by line."""
    n_eq = L.count_in_lines(EQ, rows)
    rows = rows[(n_eq == 3) | (n_eq == 2)]
    if not len(rows):
        return rows, {}
    three = L.count_in_lines(EQ, rows) == 3
    s, e = L.starts[rows], L.ends[rows]
    first_eq = L.first_at_or_after(EQ, s, e)
    last_eq = L.first_at_or_after(EQ, L.scan_back(e, s, b"0123456789", limit=4) - 1, e)
    # TTL=<n> at the end
    ttl, ok = parse_uint(L, last_eq + 1, e)
    ok &= L.equals(last_eq - 4, b" TTL") & (e - last_eq <= 4)
    # "<bytes word>=<n> " after ": "
    b_end = L.scan_fwd(first_eq + 1, e, b"0123456789", limit=10)
    nbytes, okb = parse_uint(L, first_eq + 1, b_end)
    ok &= okb & (L.byte(b_end) == SPACE)
    # the time: "=<n>ms", "=<n> ms" (French) or "<1ms" (three '=' with '=', two with '<')
    mid = np.where(three, L.first_at_or_after(EQ, first_eq + 1, e), L.first_at_or_after(60, b_end, e))
    t_end = L.scan_fwd(mid + 1, e, b"0123456789", limit=10)
    rtt, okr = parse_uint(L, mid + 1, t_end)
    spaced = L.byte(t_end) == SPACE
    unit_at = t_end + spaced
    ok &= okr & L.equals(unit_at, b"ms TTL=") & (unit_at + 6 == last_eq) & (mid < last_eq)
    ok &= np.where(three, True, (L.byte(mid) == 60) & (rtt == 1))
    # the address: the word before ':' (or ' :') that precedes the bytes word
    w_start = L.scan_back(first_eq, s, b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", limit=12)
    ok &= (L.byte(w_start - 1) == SPACE) & (w_start < first_eq)
    colon = w_start - 2
    ok &= L.byte(colon) == COLON
    a_end = np.where(L.byte(colon - 1) == SPACE, colon - 1, colon)
    a_start = L.scan_back(a_end, s, b"0123456789abcdefABCDEF.:%", limit=48)
    ok &= (a_start < a_end) & (L.byte(a_start - 1) == SPACE) & (a_start > s)
    # an address holds a '.' (IPv4) or a ':' (IPv6)
    ok &= (L.first_at_or_after(DOT, a_start, a_end) < a_end) | (L.first_at_or_after(COLON, a_start, a_end) < a_end)
    good = np.flatnonzero(ok)
    if not len(good):
        return good, {}
    cols = {
        "rtt_ms": np.where(three[good], rtt[good], 0).astype(np.float64),
        "ttl": ttl[good].astype(np.float64),
        "bytes": nbytes[good].astype(np.float64),
        "src": span_codes(L, a_start[good], a_end[good], table),
    }
    return rows[good], cols


def _chunk(L: Lines) -> dict:
    table: dict[str, int] = {}
    first, part, rows = fast_rows(L, _fast, table)
    out = {"parts": [] if part is None else [part], "bad": [], "table": table, "first": first, "events": []}
    slow = {"rtt_ms": [], "ttl": [], "bytes": [], "src": []}
    slow_lines = []
    for r, text in zip(rows, L.text(rows)):
        line_no = int(L.numbers[r])
        line = text.strip()
        if not line:
            continue
        kind, info = _classify(line)
        if kind == "reply":
            slow_lines.append(line_no)
            slow["rtt_ms"].append(0.0 if info["op"] == "<" else float(info["rtt"]))
            slow["ttl"].append(float(info["ttl"]) if info["ttl"] else np.nan)
            slow["bytes"].append(float(info["bytes"]) if info["bytes"] else np.nan)
            slow["src"].append(table.setdefault(info["addr"], len(table)))
        elif kind is None:
            out["bad"].append((line_no, text))
        else:
            out["events"].append((line_no, kind, info))
    if slow_lines:
        cols = {c: np.asarray(v, dtype=np.int32 if c == "src" else np.float64) for c, v in slow.items()}
        out["parts"].append((np.asarray(slow_lines, np.int64), cols))
    return out


def read_ping_windows(path) -> pd.DataFrame:
    """Read the replies and the statistics printed by Windows ``ping``, in any language.

    Accepted lines (English shown; the German, French, Spanish, Japanese, Chinese, Russian...
    translations are recognised by the same structure)::

        Pinging example.com [93.184.216.34] with 32 bytes of data:
        Reply from 93.184.216.34: bytes=32 time=14ms TTL=56
        Reply from 10.0.0.1: bytes=32 time<1ms TTL=128
        Request timed out.
        Reply from 192.168.1.1: Destination host unreachable.
        Reply from 2a00:1450:4001:810::2003: time=11ms                  (IPv6: no bytes, no TTL)

        Ping statistics for 93.184.216.34:
            Packets: Sent = 4, Received = 3, Lost = 1 (25% loss),
        Approximate round trip times in milli-seconds:
            Minimum = 13ms, Maximum = 16ms, Average = 14ms

    The file may be what ``ping ... > file`` saves in cmd.exe, what Windows PowerShell 5.1
    saves (UTF-16 with a byte-order mark) or a console transcript pasted with its prompts
    (``C:\\>ping ...``); several runs may be appended to one file.

    Parameters
    ----------
    path : str, path-like, file object or text
        The ping output (see :mod:`labcalc.measure` for the accepted inputs).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`read_ping`: one row per echo reply with ``time_s`` (NaN:
        Windows prints no time stamps), ``seq`` (the probe's number in its run, 1, 2, ...:
        Windows prints none, so the probes that got no reply are the missing numbers),
        ``rtt_s`` [s] (Windows prints whole milliseconds; ``time<1ms`` is 0, as in its own
        statistics), ``ttl`` and ``bytes`` [bytes] (NaN for IPv6 replies), ``src`` (the
        replying address), ``dup`` (False), ``run``. ``attrs["summary"]``: ``transmitted``,
        ``received``, ``loss`` [fraction] = lost / sent as counted by Windows,
        ``duplicates`` (0), ``errors`` (the ICMP error replies, such as ``Destination host
        unreachable``, that Windows counts as received), ``time_s`` (NaN), ``rtt_min_s``,
        ``rtt_avg_s``, ``rtt_max_s`` [s] and ``rtt_mdev_s`` (NaN); ``attrs["runs"]``,
        ``attrs["target"]`` as for :func:`read_ping`; ``attrs["errors"]`` the number of
        probes without an echo reply (timeouts and failures); ``attrs["notes"]``.

    Raises
    ------
    MeasurementFormatError
        When nothing in the source looks like Windows ping output.

    Warns
    -----
    MalformedLinesWarning
        When some lines were skipped.

    Notes
    -----
    Windows counts an ICMP error reply (``Reply from <router>: Destination host
    unreachable.``) as received, so its loss can be 0% although no echo came back; the
    echo replies are the rows, and a note says how many probes the statistics count as
    received without an echo reply. Loss = Lost / Sent of the statistics line (exact,
    where the printed percentage is rounded).

    References
    ----------
    .. [1] Microsoft, ``ping`` (Windows Commands),
       https://learn.microsoft.com/windows-server/administration/windows-commands/ping

    Examples
    --------
    >>> text = '''Pinging 10.0.0.2 with 32 bytes of data:
    ... Reply from 10.0.0.2: bytes=32 time=4ms TTL=64
    ... Request timed out.
    ... Reply from 10.0.0.2: bytes=32 time<1ms TTL=64
    ...
    ... Ping statistics for 10.0.0.2:
    ...     Packets: Sent = 3, Received = 2, Lost = 1 (33% loss),
    ... Approximate round trip times in milli-seconds:
    ...     Minimum = 0ms, Maximum = 4ms, Average = 2ms
    ... '''
    >>> df = read_ping_windows(text)
    >>> df[["seq", "rtt_s", "ttl", "bytes"]]
       seq  rtt_s  ttl  bytes
    0    1  0.004   64     32
    1    3  0.000   64     32
    >>> round(df.attrs["summary"]["loss"], 4), df.attrs["summary"]["rtt_avg_s"]
    (0.3333, 0.002)
    """
    name = source_name(path)
    rep = Report(name, FORMAT, EXPECTED)
    table: dict[str, int] = {}
    parts_lines, parts_cols, events = [], [], []
    for offset, res, remap in read_chunks(path, _chunk, rep, table):
        for lines, cols in res["parts"]:
            cols["src"] = remap[cols["src"]] if len(cols["src"]) else cols["src"]
            parts_lines.append(lines + offset)
            parts_cols.append(cols)
        events.extend((ln + offset, kind, info) for ln, kind, info in res["events"])
    n = sum(len(x) for x in parts_lines)
    rep.ok(n + sum(kind not in ("other", "heading") for _, kind, _ in events))
    rep.require_something()
    line_no = np.concatenate(parts_lines) if parts_lines else np.zeros(0, np.int64)
    del parts_lines
    # each part is in line order; the parts of a chunk (bulk, then line by line) may not be
    order = None if np.all(line_no[1:] > line_no[:-1]) else np.argsort(line_no, kind="stable")
    data = {}
    for c in ("rtt_ms", "ttl", "bytes", "src"):  # a column at a time, each part freed once copied
        v = np.concatenate([p.pop(c) for p in parts_cols]) if parts_cols else np.zeros(0)
        data[c] = v if order is None else v[order]
    if order is not None:
        line_no = line_no[order]
    del parts_cols, order
    runs, probes_lines, extra, failures = _runs(events)
    # the probe number of each reply: its rank among the run's probes (replies and failures)
    starts = np.asarray([r["first_line"] for r in runs[1:]], dtype=np.int64)
    if len(runs) <= 1 and not probes_lines:  # one run without a lost probe: 1, 2, 3, ...
        run = np.zeros(len(line_no), dtype=np.int64)
        seq = np.arange(1, len(line_no) + 1, dtype=np.int64)
    else:
        all_probes = np.concatenate([line_no, np.asarray(probes_lines, np.int64)])
        all_probes.sort(kind="stable")
        first_of_run = np.searchsorted(np.searchsorted(starts, all_probes, side="right"),
                                       np.arange(len(runs) or 1), side="left")
        rank = np.searchsorted(all_probes, line_no)
        del all_probes
        run = np.searchsorted(starts, line_no, side="right").astype(np.int64)
        seq = (rank - first_of_run[run] + 1).astype(np.int64)
        del rank
    n = len(line_no)
    del line_no
    (src,) = categoricals([data.pop("src")], table)

    def whole(v):
        return v.astype(np.int64) if len(v) and not np.isnan(v).any() else v

    df = pd.DataFrame({
        "time_s": np.full(n, np.nan),
        "seq": seq,
        "rtt_s": data["rtt_ms"] / 1e3,
        "ttl": whole(data["ttl"]),
        "bytes": whole(data["bytes"]),
        "src": src,
        "dup": np.zeros(n, dtype=bool),
        "run": run,
    }, copy=False)
    replies = np.bincount(run, minlength=max(len(runs), 1))
    extra["runs"] = [run_entry(r, replies[k]) for k, r in enumerate(runs or [{}])]
    targets = list(dict.fromkeys(r["target"] for r in extra["runs"] if r["target"] is not None))
    if len(extra["runs"]) == 1:
        if runs and "target" in runs[0]:
            extra["target"] = runs[0]["target"]
        if runs and runs[0].get("summary"):
            extra["summary"] = runs[0]["summary"]
    else:
        extra["target"] = targets[0] if len(targets) == 1 else targets
        complete = [r for r in extra["runs"] if r["complete"]]
        if complete:
            extra["summary"] = runs_total(complete)
        cut = 0 if several_blocks_note(extra["runs"]) else len(extra["runs"]) - len(complete)
        extra["notes"].append(f"{len(runs)} ping runs in one file (each banner starts one; column 'run')"
                              + (f"; {cut} without statistics (interrupted?), left out of attrs['summary']"
                                 if cut else ""))
    extra["notes"] += several_blocks_note(extra["runs"])
    answered = failures.get("unreachable", 0)
    if answered and extra.get("summary"):
        extra["notes"].append(
            f"{answered} probe(s) got an ICMP error reply (e.g. 'Destination host unreachable') that "
            "Windows counts as received: attrs['summary'] is Windows' count; the echo replies are the rows")
    if not extra["notes"]:
        del extra["notes"]
    return rep.finish(df, extra)


def _runs(events: list):
    """The runs (banner, statistics) and the probe lines without a reply, from the events in file order."""
    runs: list[dict] = []
    probes: list[int] = []
    failures: dict[str, int] = {}
    extra: dict = {"errors": 0, "notes": []}
    for line_no, kind, info in sorted(events, key=lambda ev: ev[0]):
        if kind in ("other", "heading"):
            continue
        if not runs or (kind == "banner" and ("target" in runs[-1] or "summary" in runs[-1])):
            runs.append({"first_line": int(line_no)})
        run = runs[-1]
        if kind == "banner":
            run["target"] = info
        elif kind == "failure":
            what, _addr = info
            failures[what] = failures.get(what, 0) + 1
            if what != "unknown host":
                probes.append(line_no)
                extra["errors"] += 1
                if what == "unreachable":
                    run["icmp_errors"] = run.get("icmp_errors", 0) + 1
        elif kind == "stats_head":
            run["counts_head"] = info
        elif kind == "break":
            run["interim"] = True
        if kind == "stats_tail" and "counts_head" in run:
            kind, info = "stats", (*run.pop("counts_head"), info)
        if kind == "stats":
            sent, received, lost = info
            if run.pop("interim", False) and "transmitted" in run.get("summary", {}):
                del run["summary"]  # Control-Break printed the counts so far: these later ones hold them
            summary = add_statistics(run, dict(transmitted=sent, received=received, duplicates=0,
                                               errors=run.get("icmp_errors", 0),
                                               loss=lost / sent if sent else float("nan"), time_s=float("nan")))
            summary.setdefault("rtt_min_s", float("nan"))
            summary.setdefault("rtt_avg_s", float("nan"))
            summary.setdefault("rtt_max_s", float("nan"))
            summary["rtt_mdev_s"] = float("nan")
        elif kind == "rtt":
            lo, hi, avg = info
            summary = run.setdefault("summary", {})
            summary.update(rtt_min_s=lo / 1e3, rtt_max_s=hi / 1e3, rtt_avg_s=avg / 1e3)
    for run in runs:
        close_run(run)
    return runs, probes, extra, failures
