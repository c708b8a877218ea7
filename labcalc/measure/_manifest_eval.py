"""One manifest entry over one file: the value, its window and where each number comes from.

Part of :mod:`labcalc.measure.manifest`. :func:`evaluate` takes the frame a reader
returned and an entry of the manifest (and the window shared with the other rows of the
same flow and file, if any) and gives a :class:`Part`: the value in the row's unit, the
samples and window it was taken over, the side, and the statements labcalc adds to the
row (how the time axis was found, which connection or qdisc it took). Every refusal is a
:class:`~labcalc.measure._manifest_window.Fail` naming what the file lacks and a next step
that works on that file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._manifest_direction import one_direction, two_way
from ._manifest_sampled import RTT_METRICS, labtool_series, labtool_summary_loss, ping_series, sampled_series
from ._manifest_window import Fail, Series, Window, fmt_window, num_text, pick, MIN_SAMPLES
from .endtest import end_of_test, interval_end, is_udp, server_intervals

__all__ = ["Part", "evaluate", "UNITS", "CWND_BYTES_UNIT"]

#: metric -> unit of its row (a loss is a fraction: blank unit)
UNITS = {"goodput": "bit/s", "loss": "", "rtt": "s", "rtt_min": "s", "rtt_max": "s", "cwnd": "segments",
         "queue": "packets", "offered_rate": "bit/s"}
#: Unit of a cwnd row read from a window in bytes (without ``mss_bytes``).
CWND_BYTES_UNIT = "bytes"
_WANTED = {"goodput": "receiver", "loss": "receiver", "offered_rate": "sender"}


@dataclass
class Part:
    """What one file gives for one entry (see :func:`evaluate`)."""

    value: float
    n: int
    reader: str
    side: str = ""
    unit: str = ""
    window: Window | None = None
    window_from: str = ""
    counts: tuple | None = None  # (lost, total) behind a loss
    notes: list = field(default_factory=list)
    chosen: list = field(default_factory=list)  # keys labcalc chose beyond the usual defaults
    stat: str = ""


def _explicit(entry: dict, key: str) -> bool:
    return key in entry and key not in entry.get("defaults", ())


def evaluate(df: pd.DataFrame, entry: dict, shared: dict | None = None) -> Part:
    """The value *entry* asks of the frame *df* (see the module docstring)."""
    fmt = df.attrs.get("format", entry.get("format") or "?")
    tests = df.attrs.get("tests", 1)
    if isinstance(tests, int) and tests > 1:
        # each test's intervals start at 0 again: a window (or the end-of-test lines) would
        # mix the tests, e.g. the goodputs of a 10 and a 30 Mbit/s run summed to 40
        raise Fail("file", entry.get("_name", "?"), f"holds {tests} {fmt} tests (a server left running across runs, "
                                                    "or runs appended to one log); keep one test per file, or the "
                                                    "rows would mix them")
    if fmt in ("iperf", "iperf3"):
        part = _iperf(df, entry, shared, fmt)
    elif fmt == "labtool":
        part = _labtool(df, entry, shared)
    elif fmt in ("ping", "ping_windows"):  # ping_windows: the ping frame's columns and summary
        part = _ping(df, entry, shared)
    elif df.attrs.get("labcalc") and isinstance(df.attrs.get("summary"), list):
        part = _own(df, entry, shared, fmt)
    else:
        if entry["metric"] == "offered_rate":
            raise Fail("metric", "offered_rate", f"a {fmt} file holds no sender's rate of a UDP test; the offered "
                                                 "rate is in the UDP client's printout (iperf, iperf3 or udpclient)")
        if entry["stat"] == "summary":
            raise Fail("stat", "summary", f"this {fmt} file has no end-of-test line; use stat = \"mean\" (over the "
                                          "steady window or window_s)")
        if {"start_s", "end_s"} <= set(df.columns) and "time_s" in df.columns:
            # a 'labcalc convert' CSV of an iperf printout: its rows are intervals
            part = _finish(df, entry, shared, fmt, _interval_series(df, entry["metric"], fmt, entry))
        else:
            part = _finish(df, entry, shared, fmt, sampled_series(df, entry, fmt))
    part.reader = fmt
    return part


# --- iperf 2 and iperf3 ----------------------------------------------------------------------

def _iperf(df: pd.DataFrame, entry: dict, shared: dict | None, fmt: str) -> Part:
    metric = entry["metric"]
    stated = entry.get("side") if _explicit(entry, "side") else None
    notes, chosen = [], []
    if fmt == "iperf" and two_way(df) and (metric in _WANTED or "connection" in entry):
        # -d / -r / --full-duplex: the direction the entry names, as a one-way printout
        df, notes, chosen = one_direction(df, entry, stated)
    elif metric in _WANTED and _both_directions(df):
        raise Fail("file", entry.get("_name", "?"), "both directions' rates are in this file (--bidir, --full-duplex, "
                                                    "-d or -r); record each direction as its own test")
    assumed = ""
    if interval_end(df) is None and df.attrs.get("side") not in ("client", "server", "dual") and metric == "goodput":
        if stated is None:
            if not any(f["end"] == (entry.get("side") or "receiver") for f in end_of_test(df)):
                raise Fail("side", entry.get("side") or "receiver", _unknown_end(df, fmt))
        else:
            # lines that do not say which end printed them: the student's word, said in the row
            assumed = f"{_unknown_end(df, fmt, short=True)}: its lines taken as the {stated}'s, as side says"
            attrs = dict(df.attrs, side="client" if stated == "sender" else "server", reverse=False, end_name=stated)
            df = df.copy()
            df.attrs.update(attrs)
    part = _iperf_one_way(df, entry, shared, fmt)
    part.notes[:0] = notes
    if assumed:
        part.notes.append(assumed)
    part.chosen.extend(chosen)
    return part


def _unknown_end(df: pd.DataFrame, fmt: str, short: bool = False) -> str:
    """Why a printout does not say which end printed it, and (unless *short*) what to write."""
    if df.attrs.get("side") == "unknown":  # the iperf 2 reader's word for such a CSV
        why = ("this iperf 2 CSV does not say which end printed it (-y C without -e writes no header, and a TCP "
               "line carries nothing only one end measures)")
        step = "side = \"receiver\" (the server's CSV) or side = \"sender\" (the client's)"
    else:
        why = (f"this {fmt} file does not say which end printed it (no 'Client connecting' or 'Server listening' "
               "line: its header was not saved)")
        step = "side = \"receiver\" (a server's lines) or side = \"sender\" (a client's)"
    return why if short else f"{why}; if you know, say so with {step}"


def _iperf_one_way(df: pd.DataFrame, entry: dict, shared: dict | None, fmt: str) -> Part:
    metric, stat, side = entry["metric"], entry["stat"], entry.get("side")
    udp = is_udp(df)
    figures = end_of_test(df)
    tests = _iperf2_tests(df, figures) if fmt == "iperf" else 1
    if tests > 1:
        raise Fail("file", entry.get("_name", "?"), f"holds {tests} {fmt} tests (runs appended to one file, or a "
                                                    "server left running); keep one test per file, or the rows "
                                                    "would mix them")
    counted = (("lost_packets" in df.columns and df["lost_packets"].notna().any())
               or any(math.isfinite(f["lost_packets"]) for f in figures))
    if metric == "loss" and not counted and udp is not True:
        raise Fail("metric", metric, f"this {fmt} run has no lost/total counters (a TCP run?): it cannot give a loss")
    if metric in ("loss", "offered_rate") and udp is False:
        what = "lost/total counters" if metric == "loss" else "offered rate (a UDP sender's)"
        raise Fail("metric", metric, f"this {fmt} run is TCP: it has no {what}; a loss or an offered rate comes "
                                     "from a UDP test")
    if metric in ("cwnd", "queue") and stat == "summary":
        raise Fail("stat", "summary", f"the end-of-test lines of {fmt} give no mean {metric}; use stat = \"mean\" "
                                      "(or \"max\") over the intervals")
    if metric == "queue":
        raise Fail("metric", "queue", f"a {fmt} printout holds no queue length; tc -s qdisc does")
    want = _WANTED.get(metric)
    if want is not None and side is not None and side != want and metric != "goodput":
        raise Fail("side", side, "loss is counted by the receiver: remove side (or side = \"receiver\")"
                                 if metric == "loss" else
                                 "the offered rate is what the sender sent: remove side (or side = \"sender\")")
    if metric == "goodput" and side is not None:
        want = side
    if metric == "loss" and fmt == "iperf3":
        figures = _without_omit_miscount(df, figures, udp, entry)
    whole = shared is not None and shared.get("whole")
    if stat == "summary" or (whole and metric in ("loss",) and _has(figures, "receiver", "loss")):
        part = _iperf_summary(figures, metric, want, fmt, entry, udp)
        if whole and stat != "summary":
            part.window_from += f" (the whole test, as {shared['of']})"
        return part
    so = server_intervals(df)
    if metric in RTT_METRICS + ("cwnd",):
        # the TCP sender's lines carry them: the client's own, or (-R) the server's lines
        # that --get-server-output appends
        if so is not None and not _carries(df, metric) and _carries(so, metric):
            s = _interval_series(so, metric, fmt, entry)
            s.notes.append("the server's intervals (--get-server-output)")
            return _finish(so, entry, shared, fmt, s)
        return _finish(df, entry, shared, fmt, _interval_series(df, metric, fmt, entry))
    views = [(df, interval_end(df), "")]
    if so is not None:
        views.append((so, interval_end(so), "the server's intervals (--get-server-output)"))
    explicit = _explicit(entry, "window_s") or _explicit(entry, "stat")
    for view, end, label in views:
        if end == want:
            s = _interval_series(view, metric, fmt, entry)
            if metric == "loss" and s.lost is None:
                continue
            n = int(np.isfinite(s.values).sum())
            if n < MIN_SAMPLES and explicit and _has(figures, want, metric):
                raise Fail("window_s" if _explicit(entry, "window_s") else "stat",
                           entry.get("window_s", entry["stat"]),
                           f"the file has {n} interval line(s) (iperf without -i): too few for a window; remove "
                           "window_s and stat to take its end-of-test line (the whole test), or record with -i 1")
            if n < MIN_SAMPLES and not explicit and shared is None and _has(figures, want, metric):
                # no -i: the file's only line per stream is its whole-test line
                part = _iperf_summary(figures, metric, want, fmt, entry, udp)
                part.window_from += f" (whole test: the file has {n} interval line(s); iperf -i 1 prints one a second)"
                return part
            if label:
                s.notes.append(label)
            part = _finish(view, entry, shared, fmt, s)
            part.side = want
            return part
    ends = {end for _, end, _ in views}
    return _iperf_no_intervals(df, entry, figures, metric, want, fmt, ends, udp)


def _both_directions(df: pd.DataFrame) -> bool:
    """Whether the rows carry data both ways (iperf3 --bidir, iperf 2 --full-duplex / -d / -r)."""
    if "direction" in df.columns and df["direction"].astype(str).replace("nan", "").nunique() > 1:
        return True
    if df.attrs.get("side") == "dual":
        return True
    if {"src", "dst"} <= set(df.columns):
        named = df[df["src"].notna() & df["dst"].notna()]
        pairs = set(zip(named["src"].astype(str), named["dst"].astype(str)))
        return any((b, a) in pairs for a, b in pairs if a != b)
    return False


def _without_omit_miscount(df: pd.DataFrame, figures: list, udp: bool | None, entry: dict) -> list:
    """iperf3's UDP client run with ``-O``: its receiver line counts the lost datagrams of the
    omitted seconds against the total of the seconds after them (658/2589 where the server
    counted 499/2626: 159 = the omitted seconds' 60 + 99), so that line cannot give a loss.
    Its figures are left out; the server's own (``--get-server-output``) stay. Without them
    the entry is refused with the server's printout as the next step."""
    omitted = "omitted" in df.columns and bool(df["omitted"].astype(bool).any())
    if not (omitted and udp and df.attrs.get("side") == "client" and not df.attrs.get("reverse")):
        return figures
    kept = [f for f in figures if f["end"] != "receiver" or f["line"].startswith("server output: ")]
    so = server_intervals(df)
    if not _has(kept, "receiver", "loss") and (so is None or not _filled(so, "lost_packets")):
        bad = next((f for f in figures if f["end"] == "receiver" and math.isfinite(f["lost_packets"])), None)
        counts = f" ({num_text(bad['lost_packets'])}/{num_text(bad['packets'])})" if bad else ""
        raise Fail("file", entry.get("_name", "?"),
                   f"an iperf3 UDP client run with -O: its receiver line{counts} counts the lost datagrams of the "
                   "omitted seconds against the total of the others (iperf3 miscounts them), so it gives no loss; "
                   "use the server's printout (or record the client with --get-server-output)")
    return kept


def _iperf2_tests(df: pd.DataFrame, figures: list) -> int:
    """How many tests an iperf 2 printout holds (its reader does not count them).

    Per stream ID, its whole-test lines (the printing end's, not the receiver's reports a
    client prints) or, without them, its lines that start at 0 (without ``-i`` a stream's
    only line is its whole-test line): more than one is a second test under the same ID.
    Parallel streams come with a ``[SUM]`` (in text) and their lines interleave (also in
    the CSV of ``-y C``, which prints no ``[SUM]``); several streams whose lines follow one
    another are connections run one after the other (a server log), each a test.
    """
    if df.attrs.get("side") not in ("client", "server") or _both_directions(df):
        return 1  # -d / -r / --full-duplex: both directions (refused for rates on their own)
    local = [f for f in figures if "end-of-test line" in f["line"] and not f["line"].startswith("Server Report")
             and "its only line" not in f["line"]]
    per: dict = {}
    for f in local:
        per[f["stream"]] = per.get(f["stream"], 0) + 1
    if {"stream", "start_s"} <= set(df.columns) and len(df):
        zero = df[df["start_s"] == 0.0]["stream"].astype(str).value_counts()
        for stream, n in zero.items():
            per.setdefault(stream, int(n))
    if not per:
        return 1
    if "SUM" in per or _interleaved(df):
        return max(per.values())
    return max(len(per), max(per.values()))


def _interleaved(df: pd.DataFrame) -> bool:
    """Whether the streams of a printout ran at the same time: each one's lines begin before
    the lines of the one before it end (-P), rather than after them (one test after another)."""
    if "stream" not in df.columns:
        return False
    ids = df["stream"].astype(str).to_numpy()
    spans = sorted((int(np.flatnonzero(ids == k)[0]), int(np.flatnonzero(ids == k)[-1]))
                   for k in dict.fromkeys(ids) if k != "SUM")
    return len(spans) > 1 and all(b[0] < a[1] for a, b in zip(spans, spans[1:]))


def _has(figures: list, end: str, metric: str) -> bool:
    rows = [f for f in figures if f["end"] == end]
    if metric == "loss":
        return any(math.isfinite(f["lost_packets"]) and math.isfinite(f["packets"]) for f in rows)
    return any(math.isfinite(f["rate_bps"]) for f in rows)


def _what_it_has(figures: list) -> str:
    lines = sorted({f["line"] for f in figures})
    return "; it has " + ", ".join(lines) if lines else "; it has no end-of-test line at all (was the run cut short?)"


def _iperf_no_intervals(df, entry, figures, metric, want, fmt, ends, udp) -> Part:
    """No per-interval rows of the end asked: the end-of-test line when the entry allows it, else a refusal."""
    measured = "/".join(sorted(e for e in ends if e))
    who = f"this {fmt} file's intervals were measured by the {measured}" if measured else _unknown_end(df, fmt)
    windowed = _explicit(entry, "window_s") or _explicit(entry, "stat") or "window_seq" in entry
    if metric == "loss":
        if _has(figures, "receiver", "loss") and not windowed:
            part = _iperf_summary(figures, metric, want, fmt, entry, udp)
            part.window_from += " (whole test: this file's intervals carry no lost/total)"
            part.notes.append("the loss is over the whole test: only the end-of-test line counts lost/total here")
            return part
        if _has(figures, "receiver", "loss"):
            step = ("use stat = \"summary\" without window_s (the receiver's end-of-test line: the whole test), or "
                    "the receiver's (server's) printout for a window")
        else:
            step = "the receiver's lost/total are in the receiver's (server's) printout"
        raise Fail("window_s" if _explicit(entry, "window_s") else "stat", entry.get("window_s", entry["stat"]),
                   f"{who}, which count no lost/total per interval; {step}")
    if metric == "goodput":
        if not measured:
            raise Fail("side", want, who)
        steps = []
        if _has(figures, want, "goodput"):
            steps.append(f"stat = \"summary\" (the {want}'s end-of-test line, whole test)")
        if "sender" in ends and want == "receiver":
            steps.append("side = \"sender\" (the sender's rates)")
        steps.append(f"the {want}'s own printout")
        raise Fail("side", want, f"{who} (the {df.attrs.get('side') or 'end that printed it'}); use "
                                 + " or ".join(steps))
    # offered_rate
    if _has(figures, "sender", "goodput"):
        step = "stat = \"summary\" (the sender's end-of-test line)"
    else:
        step = "the UDP client's printout"
    if udp is None:
        raise Fail("metric", metric, f"this {fmt} file does not show a UDP test (no datagram counts); "
                                     f"the offered rate is in the UDP client's printout")
    raise Fail("metric", metric, f"{who}; the offered rate is the sender's: use {step}")


def _iperf_summary(figures: list, metric: str, want: str | None, fmt: str, entry: dict,
                   udp: bool | None = None) -> Part:
    if metric in RTT_METRICS:
        key = metric + "_s"
        rows = [f for f in figures if f["end"] == "sender" and math.isfinite(f.get(key, math.nan))]
        if not rows:
            raise Fail("stat", "summary", f"the end-of-test lines of this {fmt} file give no RTT (iperf3 -J prints the "
                                          "sender's); use stat = \"mean\" over the intervals, or a ping or ss log")
        sums = [f for f in rows if f["stream"] == "SUM"] or rows
        vals = [f[key] for f in sums]
        value = float({"rtt": np.mean, "rtt_min": np.min, "rtt_max": np.max}[metric](vals))
        how = "sender's end-of-test block" + (f" ({ {'rtt': 'mean', 'rtt_min': 'smallest', 'rtt_max': 'largest'}[metric]} "
                                              f"of {len(vals)} streams)"
                                              if len(vals) > 1 else "")
        return Part(value, len(vals), fmt, "", UNITS[metric], None, how, stat="summary")
    rows = [f for f in figures if f["end"] == want]
    local = [f for f in rows if not f["line"].startswith("server output: ")] or rows
    if metric == "loss":
        local = [f for f in local if math.isfinite(f["lost_packets"]) and math.isfinite(f["packets"])]
    else:
        local = [f for f in local if math.isfinite(f["rate_bps"])]
    if not local:
        other = "sender" if want == "receiver" else "receiver"
        if metric == "loss":
            if udp:
                raise Fail("stat", "summary", f"this {fmt} file holds no receiver's lost/total (a UDP client's "
                                              "printout without the server's report; iperf 2.1 -y C prints none): "
                                              "use the receiver's (server's) printout")
            if not any(math.isfinite(f["packets"]) for f in figures):
                raise Fail("metric", metric, f"this {fmt} run has no lost/total counters (a TCP run?): it cannot "
                                             "give a loss")
            raise Fail("stat", "summary", f"this {fmt} file has no receiver's lost/total{_what_it_has(figures)}; "
                                          "use the receiver's (server's) printout")
        unrated = [f["line"] for f in figures if f["end"] == want and "(no rate: " in f["line"]]
        if unrated:
            raise Fail("stat", "summary", f"the {want}'s end-of-test line of this {fmt} file gives no rate "
                                          f"({unrated[0]}); use stat = \"mean\" over the intervals")
        steps = []
        if metric == "goodput" and _has(figures, other, "goodput"):
            steps.append(f"side = \"{other}\" (the {other}'s end-of-test line)")
        steps.append(f"the {want}'s own printout")
        raise Fail("side" if metric == "goodput" else "stat", want if metric == "goodput" else "summary",
                   f"this {fmt} file has no {want}'s end-of-test line{_what_it_has(figures)}; use "
                   + " or ".join(steps))
    sums = [f for f in local if f["stream"] == "SUM"] or local
    line = sums[0]["line"] + (f" ({len(sums)} streams)" if len(sums) > 1 else "")
    if metric == "loss":
        lost = float(sum(f["lost_packets"] for f in sums))
        total = float(sum(f["packets"] for f in sums))
        value = lost / total if total else 0.0
        return Part(value, len(sums), fmt, "receiver", "", None, line, counts=(lost, total), stat="summary")
    value = float(sum(f["rate_bps"] for f in sums))
    return Part(value, len(sums), fmt, want or "", UNITS[metric], None, line, stat="summary")


_INTERVAL_COLUMN = {"goodput": "rate_bps", "offered_rate": "rate_bps", "loss": "loss", "rtt": "rtt_s",
                    "rtt_min": "rtt_s", "rtt_max": "rtt_s"}
_NO_COLUMN_STEP = {
    "rtt": "the TCP sender's lines carry an RTT only in iperf3 -J (the client's, or the server's with -R) and "
           "iperf 2 -e (the client's); or use a ping or ss log",
    "cwnd": "the TCP sender's lines carry the window (the client's printout, the server's with -R; iperf 2 "
            "with -e); or use an ss or tcp_probe log",
}


def _column(df: pd.DataFrame, metric: str) -> str:
    if metric == "cwnd":
        return "cwnd_segments" if _filled(df, "cwnd_segments") else "cwnd_bytes"
    return _INTERVAL_COLUMN[metric]


def _filled(df: pd.DataFrame, col: str) -> bool:
    return col in df.columns and bool(df[col].notna().any())


def _carries(df: pd.DataFrame, metric: str) -> bool:
    return _filled(df, _column(df, metric))


def _one_level(df: pd.DataFrame, metric: str, col: str, fmt: str, entry: dict) -> pd.DataFrame:
    """The rows a series is taken from: the ``[SUM]`` lines of several streams where they carry
    the metric (rates; a loss when they count lost/total), else the streams themselves (a loss
    is then pooled per interval). A window or an RTT belongs to one stream: with several and
    no ``connection`` key the entry is refused with the list of streams."""
    if "stream" not in df.columns:
        return df
    is_sum = (df["stream"].astype(str) == "SUM").to_numpy()
    if metric in ("goodput", "offered_rate"):
        return df[is_sum] if is_sum.any() else df  # the streams' rates are added up per interval
    if metric == "loss":
        if is_sum.any() and _filled(df[is_sum], "lost_packets"):
            return df[is_sum]
        return df[~is_sum]
    streams = df[~is_sum & df[col].notna().to_numpy()]
    ids = list(dict.fromkeys(streams["stream"].astype(str)))
    if len(ids) > 1 and "connection" not in entry:
        raise Fail("connection", "(none)", f"this {fmt} file holds {len(ids)} streams (-P) and a {metric} "
                                           f"belongs to one of them (the [SUM] lines give none): "
                                           f"{_stream_listing(streams)}")
    return streams


def _stream_listing(rows: pd.DataFrame) -> str:
    """The streams of an iperf printout and the connection key that names each one."""
    first = rows.drop_duplicates("stream")
    ends = {str(r["stream"]): (str(r.get("src", "")), str(r.get("dst", ""))) for _, r in first.iterrows()}
    # the endpoint that tells the streams apart is the one they do not share (the client's port)
    srcs = {v[0] for v in ends.values()}
    key_at = 0 if len(srcs) == len(ends) else 1
    parts, example = [], None
    for sid, (src, dst) in list(ends.items())[:8]:
        port = ends[sid][key_at].rsplit(":", 1)[-1]
        named = port.isdigit()
        parts.append(f"[{sid}] {src} -> {dst}" if src not in ("", "nan") else f"[{sid}]")
        example = example or (f":{port}" if named else None)
    more = len(ends) - len(parts)
    listing = ", ".join(parts) + (f" and {more} more" if more > 0 else "")
    if example is None:
        return listing + "; record with -P 1 for one stream's figures"
    return listing + f"; name one with connection = \"{example}\" (its port, or \"ip:port\")"


def _interval_series(df: pd.DataFrame, metric: str, fmt: str, entry: dict) -> Series:
    """The per-interval series of an iperf printout (SUM rows where they carry the metric)."""
    if "connection" in entry:
        from ._manifest_sampled import pick_connection

        df = pick_connection(df, entry["connection"])
    col = _column(df, metric)
    if metric == "loss":
        ok = {"lost_packets", "packets"} <= set(df.columns) and df["lost_packets"].notna().any()
        if not ok:
            return Series(np.zeros(0), np.zeros(0), np.zeros(0), "interval")
    elif not _filled(df, col):
        have = [c for c in ("rate_bps", "loss", "rtt_s", "cwnd_segments", "cwnd_bytes") if _filled(df, c)]
        step = _NO_COLUMN_STEP.get("rtt" if metric in RTT_METRICS else metric, "is it the right file?")
        raise Fail("metric", metric, f"this {fmt} file's lines give no {col} (they give: {', '.join(have) or 'none'}); "
                                     f"{step}")
    if "omitted" in df.columns:
        df = df[~df["omitted"].astype(bool)]
    df = _one_level(df, metric, col, fmt, entry)
    # iperf's intervals have one length but the last: a stub (8.00-8.08 s) or, on an iperf 2
    # client, one that runs until the socket has drained (4.00-6.15 s at 239 kbit/s after
    # 5.2 Mbit/s). Neither says much about the rate: intervals shorter than half or longer
    # than 1.5 times the usual length are left out, as a careful reader would.
    length = (df["end_s"] - df["start_s"]).to_numpy(float)
    notes = []
    if len(length):
        usual = np.median(length)
        long = length > 1.5 * usual
        if long.any():
            k = int(np.flatnonzero(long)[-1])
            notes.append(f"left out the interval {num_text(df['start_s'].iloc[k])}-{num_text(df['end_s'].iloc[k])} s "
                         f"(longer than the usual {num_text(usual)} s: the test ended inside it)")
        df = df[(length >= 0.5 * usual) & ~long]
    keys = ["start_s", "end_s"]
    if metric == "loss":
        g = df.groupby(keys, sort=True)[["lost_packets", "packets"]].sum(min_count=1)
        lost, total = g["lost_packets"].to_numpy(float), g["packets"].to_numpy(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(total > 0, lost / total, np.nan)
        idx = g.index
        return Series(idx.get_level_values(0).to_numpy(float), idx.get_level_values(1).to_numpy(float), values,
                      "interval", lost=lost, total=total, notes=notes)
    grouped = df.groupby(keys, sort=True)[col]
    # sum(min_count=1): an interval whose every rate is missing stays NaN, not 0 bit/s
    g = grouped.sum(min_count=1) if metric in ("goodput", "offered_rate") else grouped.mean()
    return Series(g.index.get_level_values(0).to_numpy(float), g.index.get_level_values(1).to_numpy(float),
                  g.to_numpy(float), "interval", notes=notes)


# --- the lab's programs ---------------------------------------------------------------------------

def _labtool(df: pd.DataFrame, entry: dict, shared: dict | None) -> Part:
    metric = entry["metric"]
    whole = shared is not None and shared.get("whole")
    if entry["stat"] == "summary" or (whole and metric == "loss"):
        counts = labtool_summary_loss(df) if metric == "loss" else None
        if counts is None:
            raise Fail("stat", "summary", "the lab's programs print no end-of-test line (only running totals of "
                                          "udpserver, for a loss); use stat = \"mean\" over the printed seconds")
        value = counts[0] / counts[1] if counts[1] else 0.0
        how = "udpserver's last line (running totals: the whole run)"
        return Part(value, 1, "labtool", "receiver", "", None, how, counts=counts, stat="summary")
    s = labtool_series(df, entry)
    part = _finish(df, entry, shared, "labtool", s)
    part.side = getattr(s, "side", "")
    return part


# --- ping ---------------------------------------------------------------------------------------

def _ping(df: pd.DataFrame, entry: dict, shared: dict | None) -> Part:
    metric, stat = entry["metric"], entry["stat"]
    summ = df.attrs.get("summary") or {}
    if metric not in RTT_METRICS + ("loss",):
        raise Fail("metric", metric, "a ping file gives rtt, rtt_min, rtt_max and loss only")
    blocks = max((r.get("statistics_blocks", 0) for r in df.attrs.get("runs") or [] if isinstance(r, dict)),
                 default=0)
    if blocks > 1 and (metric == "loss" or stat == "summary"):
        # two pings writing into one file at once: their statistics blocks follow the last
        # banner, their replies are mixed; pooled they are neither ping's figures
        targets = df.attrs.get("target")
        named = f" (to {', '.join(map(str, targets))})" if isinstance(targets, list) else ""
        step = "split the file (one ping per file: each ping > its own file)" + (
            "" if metric == "loss" else ", or take the replies: stat = \"mean\" with window_s or window_seq")
        raise Fail("file" if metric == "loss" else "stat", entry.get("_name", "?") if metric == "loss" else stat,
                   f"holds {blocks} statistics blocks after one banner: several pings wrote into this file at once"
                   f"{named}, so whose counts are whose cannot be told; {step}")
    if metric == "loss":
        windowed = _explicit(entry, "window_s") or "window_seq" in entry or \
            (_explicit(entry, "stat") and stat != "summary")
        if windowed:
            raise Fail("window_s" if "window_s" in entry else ("window_seq" if "window_seq" in entry else "stat"),
                       entry.get("window_s", entry.get("window_seq", stat)),
                       "ping counts its losses over the whole run only (its statistics line): remove the window "
                       "and set stat = \"summary\"")
        if "transmitted" not in summ:
            how = ("ping -n N, or stop ping -t with Ctrl+C" if df.attrs.get("format") == "ping_windows"
                   else "ping -c N, or stop it with Ctrl-C")
            raise Fail("metric", "loss", "this ping has no statistics line (it was stopped before printing one), so "
                                         f"its losses are not counted; let ping print its statistics ({how})")
        tx, rx = float(summ["transmitted"]), float(summ.get("received", math.nan))
        # from the counts, not the percentage ping rounds ("26.6667%" for 8 of 30)
        value = (tx - rx) / tx if tx > 0 and math.isfinite(rx) else float(summ["loss"])
        part = Part(value, 1, "ping", "", "", None, "statistics line", counts=(tx - rx, tx), stat="summary")
        if stat != "summary":
            part.window_from += " (whole run: ping counts losses over the whole run only)"
        return part
    if stat == "summary":
        key = {"rtt": "rtt_avg_s", "rtt_min": "rtt_min_s", "rtt_max": "rtt_max_s"}[metric]
        if key not in summ or not math.isfinite(summ[key]):
            raise Fail("stat", "summary", "this ping has no rtt min/avg/max line (it was stopped before printing its "
                                          "statistics); use stat = \"mean\" over its replies")
        return Part(float(summ[key]), 1, "ping", "", "s", None, "statistics line", stat="summary")
    runs = df["run"].nunique() if "run" in df.columns else 1
    if runs > 1 and blocks <= 1:
        raise Fail("file", entry.get("_name", "?"), f"holds {runs} ping runs appended to one file; a window would mix "
                                                    "them: keep one run per file (stat = \"summary\" takes the "
                                                    "statistics of all of them)")
    stamped = "time_s" in df.columns and bool(df["time_s"].notna().all()) and len(df)
    if blocks > 1 and not stamped and "window_seq" not in entry and not _explicit(entry, "window_s"):
        raise Fail("window_seq", "(none)", f"the replies of the {blocks} pings that wrote into this file at once "
                                           "carry no times (no -D), and their icmp_seq numbers repeat: give "
                                           "window_seq = [first, last] (the replies of every ping with those "
                                           "numbers), or record with ping -D")
    part = _finish(df, entry, shared, "ping", ping_series(df, metric))
    if blocks > 1:
        part.notes.append(f"the replies of every ping in the file ({blocks} statistics blocks: several pings wrote "
                          "into it at once)")
    return part


# --- labcalc's own files (measure.tidy) --------------------------------------------------------------

def _own(df: pd.DataFrame, entry: dict, shared: dict | None, fmt: str) -> Part:
    """A file labcalc wrote whose attrs carry end-of-test lines (``labcalc simulate``'s summary.csv and goodput files).

    The lines are one per flow (already the entry's, :func:`labcalc.measure.tidy.manifest_view`):
    the receiver's goodput over the simulation's steady window and its packets sent and lost
    over the run, a UDP sender's offered rate. ``summary.csv`` holds nothing else, so it is
    read as its end-of-test line by default; a goodput file gives its intervals, and a loss
    (which it has no per-interval count of) from the line, said to cover the whole run.
    """
    metric, stat = entry["metric"], entry["stat"]
    kind = (df.attrs.get("labcalc") or {}).get("kind")
    lines = df.attrs["summary"]
    line_only = kind == "summary" or metric in ("loss", "offered_rate")
    if not (stat == "summary" or (line_only and not _explicit(entry, "stat") and not _explicit(entry, "window_s"))):
        if kind == "summary":
            raise Fail("stat", stat, "summary.csv holds one value per flow (the simulation's own summary): remove stat "
                                     "and window_s, or name the flow's per-sample file (<flow>-goodput.csv, "
                                     "<flow>-rtt.data, <flow>-cwnd.data)")
        return _finish(df, entry, shared, fmt, sampled_series(df, entry, fmt) if "start_s" not in df.columns
                       else _interval_series(df, metric, fmt, entry))
    if metric in RTT_METRICS + ("cwnd", "queue"):
        raise Fail("metric", metric, f"labcalc's summary of a simulation gives no {metric} to a manifest; name the "
                                     "flow's trace (<flow>-rtt.data, <flow>-cwnd.data) or the link's <link>-queue.csv")
    end = "sender" if metric == "offered_rate" or entry.get("side") == "sender" else "receiver"
    line = next((x for x in lines if x.get("role") == end), None)
    if line is None:
        raise Fail("metric", metric, f"this simulation's summary has no {end}'s line for the flow "
                                     f"({'a TCP flow has no offered rate' if metric == 'offered_rate' else 'no data'})")
    span = ""
    if line.get("start_s") is not None and line.get("end_s") is not None:
        span = f" over {fmt_window(line['start_s'], line['end_s'])} s"
    if metric == "loss":
        lost, total = float(line.get("lost_packets", math.nan)), float(line.get("packets", math.nan))
        if not (math.isfinite(lost) and math.isfinite(total)):
            raise Fail("metric", metric, "this simulation's summary has no sent/lost counts for the flow")
        return Part(lost / total if total else 0.0, 1, fmt, "receiver", "", None,
                    "simulation's summary: packets lost over the whole run", counts=(lost, total), stat="summary")
    how = ("simulation's summary: offered rate" if metric == "offered_rate" else
           f"simulation's summary: goodput{span} (the steady window after the warm-up)")
    window = None
    if span and metric == "goodput":
        window = Window(float(line["start_s"]), float(line["end_s"]), how, np.ones(1, bool), "s")
    return Part(float(line.get("rate_bps", math.nan)), 1, fmt, end, UNITS[metric], window, how, stat="summary")


# --- the value over the window -------------------------------------------------------------------

def _stat(x: np.ndarray, stat: str) -> float:
    x = x[np.isfinite(x)]
    if not len(x):
        raise Fail("stat", stat, "no finite sample to summarise")
    return float({"mean": np.mean, "median": np.median, "min": np.min, "max": np.max,
                  "last": lambda a: a[-1]}[stat](x))


def _finish(df, entry: dict, shared: dict | None, fmt: str, s: Series) -> Part:
    metric, stat = entry["metric"], entry["stat"]
    if stat == "summary":
        raise Fail("stat", "summary", f"this {fmt} file has no end-of-test line for {metric}; use stat = \"mean\"")
    if metric == "loss" and s.lost is None and not len(s.values):
        raise Fail("metric", "loss", f"this {fmt} file has no lost/total counts")
    if shared is not None and shared.get("whole"):
        mask = np.ones(len(s.start), bool)
        win = Window(float(np.nanmin(s.start)) if len(s.start) else math.nan,
                     float(np.nanmax(s.end)) if len(s.end) else math.nan,
                     f"whole test (as {shared['of']})", mask, s.kind)
    else:
        win = pick(s, entry, shared)
    mask = win.mask & (np.isfinite(s.values) | (s.lost is not None))
    if mask.sum() < MIN_SAMPLES:
        raise Fail("window_s", entry.get("window_s", "(default)"),
                   f"only {int(mask.sum())} sample(s) with a {metric} value inside (at least {MIN_SAMPLES} "
                   "are needed); widen the window or check the file")
    counts = None
    if metric == "loss" and s.lost is not None:
        lost, total = s.lost[mask], s.total[mask]
        if not (np.isfinite(lost).all() and np.isfinite(total).all()):
            raise Fail("window_s", entry.get("window_s", "(default)"), "an interval in the window has no lost/total "
                                                                       "count; move the window")
        counts = (float(lost.sum()), float(total.sum()))
        value = counts[0] / counts[1] if counts[1] else 0.0
        if stat != "mean":
            value = _stat(s.values[mask], stat)
            counts = None
    else:
        value = _stat(s.values[mask], stat)
    unit, scale = _unit(df, entry, fmt)
    how = win.how + (f" over icmp_seq {fmt_window(win.lo, win.hi)}" if win.kind == "seq" else "")
    part = Part(value / scale, int(mask.sum()), fmt, "", unit, win, how, counts=counts, stat=stat)
    part.notes.extend(s.notes)
    part.chosen.extend(getattr(s, "chosen", []))
    if metric == "cwnd" and entry.get("mss_bytes") is None:
        part.notes.extend(_mss_note(df, unit, scale))
        if scale != 1.0:
            part.chosen.append("mss_bytes")  # the file stated its MSS
    return part


def _mss_note(df, unit: str, scale: float) -> list[str]:
    """What the row says of a window's unit: the MSS a tool's file states and where, or how to
    count a window left in bytes in segments."""
    where = df.attrs.get("mss_from")
    if scale != 1.0:
        return [f"the window counted in segments of {num_text(scale)} bytes, the MSS the file states ({where})"] \
            if isinstance(where, str) else []
    if unit != CWND_BYTES_UNIT:
        return []
    why = where if isinstance(where, str) else "the file states no MSS"
    windows = df["cwnd_bytes"].dropna().to_numpy(float) if "cwnd_bytes" in df.columns else np.zeros(0)
    windows = windows[windows > 0]
    for mss in _USUAL_MSS:
        if len(windows) and np.all(np.mod(windows, mss) == 0):
            return [f"the window is in bytes ({why}): every window is a whole multiple of {mss} bytes, "
                    f"{_USUAL_MSS[mss]}: give mss_bytes = {mss} to count it in segments"]
    return [f"the window is in bytes ({why}): give mss_bytes = 1448 (the segment size on a 1500-byte MTU with TCP "
            "timestamps; ss -ti prints it as mss:) to count it in segments"]


#: Segment sizes [bytes] a window in bytes is checked against for the row's note.
_USUAL_MSS = {1448: "the segment size on a 1500-byte MTU with TCP timestamps",
              1460: "the segment size on a 1500-byte MTU without TCP timestamps"}


def _unit(df, entry: dict, fmt: str) -> tuple[str, float]:
    """(unit of the row, divisor of the file's values): a cwnd in bytes stays in bytes unless mss_bytes
    (or the MSS the file states)."""
    metric = entry["metric"]
    if metric != "cwnd":
        return UNITS[metric], 1.0
    mss = entry.get("mss_bytes")
    if "cwnd_segments" in df.columns and df["cwnd_segments"].notna().any():
        if mss is not None:
            raise Fail("mss_bytes", mss, f"this {fmt} file gives the window in segments already (cwnd_segments); "
                                         "mss_bytes converts a window in bytes: remove it")
        return UNITS["cwnd"], 1.0
    if mss is None:
        stated = df.attrs.get("mss_bytes")
        if isinstance(stated, (int, float)) and not isinstance(stated, bool) and 1 <= stated <= 65535:
            # the file states its MSS (labcalc simulate's -cwnd.data): counted in segments of it
            return UNITS["cwnd"], float(stated)
        return CWND_BYTES_UNIT, 1.0
    return UNITS["cwnd"], float(mss)


def window_text(part: Part) -> str:
    """The row's ``window_s`` cell: seconds, or empty (a whole test, or a ping window in icmp_seq)."""
    w = part.window
    if w is None or w.kind in ("seq", "sample") or not (math.isfinite(w.lo) and math.isfinite(w.hi)):
        return ""
    if w.kind == "s" and w.how != "manifest":
        # instants found by labcalc: shown to the millisecond, widened so that the text keeps
        # the same samples inside (rounded to a nanosecond first: 4.07 * 1e3 is
        # 4070.0000000000005, not above 4070)
        return (f"{_plain(math.floor(round(w.lo * 1e3, 6)) / 1e3)}-"
                f"{_plain(math.ceil(round(w.hi * 1e3, 6)) / 1e3)}")
    # interval bounds as the file gives them, never with an exponent: an iperf3 -J window
    # starting at 4.3e-05 s was written "4.3e-05-6.007656", which cannot be split at its dash
    return f"{_plain(w.lo)}-{_plain(w.hi)}"


def _plain(x: float) -> str:
    """*x* as a plain decimal, shortest round-trip digits, no exponent (1e-05 -> '0.00001')."""
    return np.format_float_positional(float(x), trim="-")
