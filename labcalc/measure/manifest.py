"""Measurement manifests: from the raw files a student saved to the tidy comparison table.

A manifest is a small TOML file with one ``[[measurement]]`` table per measured value::

    [[measurement]]
    question = "Q14"
    scenario = "A2"
    flow = "h1_udp"
    metric = "goodput"
    file = "a2_h1_server.txt"     # relative to the manifest
    # format = "iperf3"           # else recognised from the content
    # window_s = [2, 8]           # else steady_state() picks it
    # stat = "mean"               # mean, median, min, max, last, summary
    # side = "receiver"           # where a tool prints both ends
    # connection = "10.0.0.3:5201" # one connection of a file holding several (ss,
    #                              # tcp_probe, iperf streams): "ip:port", ":port" or "ip"
    # mss_bytes = 1448            # metric "cwnd" only: count a window given in bytes
    #                              # (ns-3 traces, iperf3's Cwnd) in segments of this size

A ``cwnd`` keeps the unit of its file: ss and tcp_probe give the window in segments (unit
``segments``); ns-3's trace sinks (``labcalc.sim``'s ``-cwnd.data`` files) and iperf3's Cwnd
column give it in bytes, and the row says ``bytes`` unless ``mss_bytes`` asks for segments
(bytes / mss_bytes). ``mss_bytes`` on a file already in segments, or on another metric, is
refused; so is an entry whose files give the window in different units.

Rows measured already (a tidy CSV typed by hand, or built from another manifest) join
the table through ``[[table]]`` entries, so that one manifest can carry every row a
notebook reads::

    [[table]]
    file = "../part2.csv"         # a tidy measurement CSV; its rows are kept as written

:func:`build_manifest` reads every file with :func:`labcalc.measure.read`, summarises it
and returns the rows of the tidy CSV (``question, scenario, flow, metric, value, unit,
note``) plus provenance columns a grader can audit: ``source`` (the file(s)), ``reader``
(the format), ``side``, ``window_s`` (``"start-end"``), ``window_from`` (``manifest``,
``steady_state``, ``end-of-test line`` or ``whole file``), ``n_samples``, ``stat``,
``combine`` and ``defaults`` (the keys whose value labcalc chose). Nothing is chosen
silently: every default that was applied is named in ``defaults``. A row of a
``[[table]]`` has ``reader = "table"`` and its file as ``source``; the provenance columns
the table itself carries are kept.

Windows are in seconds from the start of the test: iperf intervals count from the
client's start; timestamped series (ping ``-D``, ss, tcp_probe, the queue log) from their
first sample; a ping without ``-D`` has no times and counts in sequence numbers.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["ManifestError", "read_manifest", "build_manifest", "write_measurements", "find_manifest", "METRICS"]

#: metric -> (output unit, default stat). Loss is a fraction 0..1 (blank unit).
METRICS = {
    "goodput": ("bit/s", "mean"),
    "loss": ("", "summary"),
    "rtt": ("s", "mean"),
    "rtt_min": ("s", "min"),
    "cwnd": ("segments", "mean"),
    "queue": ("packets", "mean"),
}
STATS = ("mean", "median", "min", "max", "last", "summary")
COLUMNS = ["question", "scenario", "flow", "metric", "value", "unit", "note", "source", "reader", "side",
           "window_s", "window_from", "n_samples", "stat", "combine", "defaults"]
_KEYS = {"question": str, "scenario": str, "flow": str, "metric": str, "file": str, "files": list, "combine": str,
         "format": str, "window_s": list, "stat": str, "side": str, "note": str, "connection": str,
         "mss_bytes": int}
#: Unit of a cwnd row read from a window in bytes (without ``mss_bytes``).
CWND_BYTES_UNIT = "bytes"
#: Largest ``mss_bytes`` [bytes]: an MSS is at most a 64 KiB IP packet's payload.
MAX_MSS_BYTES = 65535
MIN_SAMPLES = 3
#: Largest manifest [bytes]: a manifest is a short hand-written file.
MAX_MANIFEST_BYTES = 1 << 20
#: The columns a tidy measurement CSV must have (as in :mod:`labcalc.compare`).
TIDY_COLUMNS = ("question", "scenario", "flow", "metric", "value", "unit")


class ManifestError(ValueError):
    """A manifest entry that cannot be built; the message names the manifest, the entry, the key and the value."""


_TYPE_WORDS = {str: "a string", list: "an array", int: "a whole number"}


def _where(manifest, index: int, entry: dict | None = None) -> str:
    ident = ""
    if entry:
        ident = " (" + "/".join(str(entry.get(k, "?")) for k in ("question", "scenario", "flow", "metric")) + ")"
    return f"{manifest}, measurement #{index}{ident}"


def _fail(manifest, index, entry, key, value, why):
    raise ManifestError(f"{_where(manifest, index, entry)}, key {key!r} = {value!r}: {why}")


def find_manifest(path) -> Path | None:
    """Return the manifest a path names: the ``.toml`` file itself, or the one ``.toml`` in a folder.

    Parameters
    ----------
    path : str or path-like
        A manifest file, or a folder holding exactly one ``*.toml`` manifest.

    Returns
    -------
    pathlib.Path or None
        The manifest, or None when *path* is neither (e.g. a CSV file, or a folder of CSVs).

    Raises
    ------
    ManifestError
        A folder holding several ``.toml`` files (which one is meant cannot be guessed).

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> find_manifest(measurement_path("lab5", "raw")).name
    'manifest.toml'
    >>> find_manifest(measurement_path("lab5", "part1.csv")) is None
    True
    """
    p = Path(os.fspath(path))
    if p.is_file():
        return p if p.suffix.lower() == ".toml" else None
    if p.is_dir():
        found = sorted(p.glob("*.toml"))
        if len(found) > 1:
            raise ManifestError(f"{p}: several manifests ({', '.join(f.name for f in found)}); name the one to build")
        return found[0] if found else None
    return None


def read_manifest(path) -> list[dict]:
    """Read and check a manifest; return its entries with the file paths resolved.

    Parameters
    ----------
    path : str or path-like
        The manifest (TOML with ``[[measurement]]`` tables), or a folder holding one.

    Returns
    -------
    list of dict
        One dict per entry with the keys as written plus ``paths`` (absolute file paths),
        ``index`` (1-based) and ``defaults`` (the keys that were not written); the
        ``[[table]]`` entries follow, as ``{"table": True, "file", "paths", "index"}``.

    Raises
    ------
    ManifestError
        A file that is not TOML, an unknown key, a key of the wrong type, a missing key, an
        unknown metric / stat / combine / side, a window that is not ``[start, end]`` with
        start < end, a missing data file, or two entries for the same measurement; a
        ``[[table]]`` with a key other than ``file`` or naming a missing file.

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> entries = read_manifest(measurement_path("lab5", "raw"))
    >>> e = entries[0]
    >>> e["question"], e["metric"], e["defaults"]
    ('Q1', 'goodput', ['stat', 'window_s', 'side', 'format'])
    """
    p = Path(os.fspath(path))
    if p.is_dir():
        found = find_manifest(p)
        if found is None:
            raise ManifestError(f"{p}: no manifest (*.toml) in this folder")
        p = found
    if not p.is_file():
        raise ManifestError(f"{p}: manifest not found")
    from labcalc import _textio

    try:
        text = _textio.read_text(p, max_bytes=MAX_MANIFEST_BYTES).text
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, _textio.TextInputError) as exc:
        raise ManifestError(f"{p}: not a valid TOML manifest ({exc})") from None
    extra = sorted(set(doc) - {"measurement", "table"})
    if extra:
        raise ManifestError(f"{p}: unknown top-level key {extra[0]!r}; a manifest holds [[measurement]] "
                            f"and [[table]] tables only")
    entries = doc.get("measurement", [])
    tables = doc.get("table", [])
    for what, value in (("measurement", entries), ("table", tables)):
        if not isinstance(value, list):
            raise ManifestError(f"{p}: {what!r} must be an array of tables ([[{what}]]), got {value!r}")
    if not entries and not tables:
        raise ManifestError(f"{p}: no [[measurement]] or [[table]] table")
    out, seen = [], {}
    for i, raw in enumerate(entries, start=1):
        out.append(_check_entry(p, i, raw, seen))
    for i, raw in enumerate(tables, start=1):
        out.append(_check_table(p, i, raw))
    return out


def _check_table(p: Path, i: int, raw) -> dict:
    where = f"{p}, table #{i}"
    if not isinstance(raw, dict):
        raise ManifestError(f"{where}: expected a table, got {raw!r}")
    extra = sorted(set(raw) - {"file"})
    if extra:
        raise ManifestError(f"{where}, key {extra[0]!r} = {raw[extra[0]]!r}: unknown key; a [[table]] has only 'file'")
    name = raw.get("file")
    if not isinstance(name, str) or not name:
        raise ManifestError(f"{where}, key 'file' = {name!r}: expected the name of a tidy measurement CSV")
    fp = (p.parent / name).resolve()
    if not fp.is_file():
        raise ManifestError(f"{where}, key 'file' = {name!r}: file not found (looked for {fp})")
    return {"table": True, "file": name, "paths": [fp], "index": i}


def _check_entry(p: Path, i: int, raw, seen: dict) -> dict:
    if not isinstance(raw, dict):
        raise ManifestError(f"{_where(p, i)}: expected a table, got {raw!r}")
    e = dict(raw)
    for key, value in e.items():
        if key not in _KEYS:
            _fail(p, i, e, key, value, "unknown key; known keys: " + ", ".join(sorted(_KEYS)))
        want = _KEYS[key]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            _fail(p, i, e, key, value, f"expected {_TYPE_WORDS[want]}")
    for key in ("question", "scenario", "flow", "metric"):
        if key not in e or not e[key].strip():
            raise ManifestError(f"{_where(p, i, e)}: key {key!r} is missing")
        e[key] = e[key].strip()
    e["metric"] = e["metric"].lower()
    if e["metric"] not in METRICS:
        _fail(p, i, e, "metric", e["metric"], "unknown metric; known: " + ", ".join(METRICS))
    defaults = []
    if ("file" in e) == ("files" in e):
        raise ManifestError(f"{_where(p, i, e)}: give exactly one of 'file' or 'files'")
    names = [e["file"]] if "file" in e else e["files"]
    if not names or not all(isinstance(n, str) and n for n in names):
        _fail(p, i, e, "files", names, "expected a non-empty array of file names")
    if "files" in e and len(names) > 1:
        if "combine" not in e:
            _fail(p, i, e, "files", names, "several files need combine = \"sum\" or \"mean\"")
    if "combine" in e and e["combine"] not in ("sum", "mean"):
        _fail(p, i, e, "combine", e["combine"], "expected \"sum\" or \"mean\"")
    paths = []
    for n in names:
        fp = (p.parent / n).resolve()
        if not fp.is_file():
            _fail(p, i, e, "file" if "file" in e else "files", n, f"file not found (looked for {fp})")
        paths.append(fp)
    if "stat" in e:
        if e["stat"] not in STATS:
            _fail(p, i, e, "stat", e["stat"], "expected one of " + ", ".join(STATS))
    else:
        e["stat"] = METRICS[e["metric"]][1]
        defaults.append("stat")
    if "window_s" in e and e["stat"] == "summary":
        _fail(p, i, e, "window_s", e["window_s"], "a window does not apply to stat = \"summary\" (the end-of-test line)")
    if "window_s" in e:
        w = e["window_s"]
        if (len(w) != 2 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in w)
                or not all(math.isfinite(x) for x in w) or not 0 <= w[0] < w[1]):
            _fail(p, i, e, "window_s", w, "expected [start, end] in seconds with 0 <= start < end")
    elif e["stat"] != "summary":
        defaults.append("window_s")
    if "side" in e:
        if e["side"] not in ("sender", "receiver"):
            _fail(p, i, e, "side", e["side"], "expected \"sender\" or \"receiver\"")
    else:
        defaults.append("side")
    if "format" not in e:
        defaults.append("format")
    if "connection" in e:
        if not e["connection"].strip():
            _fail(p, i, e, "connection", e["connection"], "expected \"ip:port\", \":port\" or \"ip\"")
        if e["stat"] == "summary":
            _fail(p, i, e, "connection", e["connection"], "the end-of-test line sums every connection; "
                                                          "a connection is picked from the per-sample lines only")
    if "mss_bytes" in e:
        if e["metric"] != "cwnd":
            _fail(p, i, e, "mss_bytes", e["mss_bytes"], f"applies to metric = \"cwnd\" only (a window in bytes "
                                                        f"counted in segments); remove it from this {e['metric']} entry")
        if not 1 <= e["mss_bytes"] <= MAX_MSS_BYTES:
            _fail(p, i, e, "mss_bytes", e["mss_bytes"], f"expected the segment size in bytes, 1 to {MAX_MSS_BYTES} "
                                                        "(1448 on a 1500-byte MTU with timestamps)")
    key = (e["question"].upper(), e["scenario"], e["flow"], e["metric"])
    if key in seen:
        _fail(p, i, e, "question/scenario/flow/metric", "/".join(key), f"the same measurement as entry #{seen[key]}")
    seen[key] = i
    e.update(paths=paths, index=i, defaults=defaults)
    return e


# --- reading one file -------------------------------------------------------------------

def _read(fp: Path, fmt: str | None):
    """The reader's frame; a ``labcalc convert`` CSV (header with ``time_s``) is read back as is."""
    from labcalc import measure

    if fmt in (None, "convert") and fp.suffix.lower() == ".csv":
        with open(fp, encoding="utf-8-sig", errors="replace") as fh:
            head = fh.readline()
        cells = [c.strip().lower() for c in head.replace(";", ",").replace("\t", ",").split(",")]
        if {"question", "metric", "value"} <= set(cells):
            raise _Fail("file", fp.name, "this is a tidy measurement table, not a tool's output; "
                                         f"list it as [[table]] file = \"{fp.name}\" to keep its rows")
        if "time_s" in head.split(",") or fmt == "convert":
            df = pd.read_csv(fp)
            df.attrs.update(format="convert CSV")
            return df
    return measure.read(fp, format=fmt)


def _pick_connection(df, wanted: str):
    """The rows of one connection: those whose ``src`` or ``dst`` endpoint matches *wanted*."""
    if "src" not in df.columns or "dst" not in df.columns:
        raise _Fail("connection", wanted, f"this {df.attrs.get('format', '?')} file names no connections "
                                          "(no src/dst columns)")
    wanted = wanted.strip()
    hit = np.zeros(len(df), bool)
    for col in ("src", "dst"):
        ends = df[col].astype(str).fillna("")
        split = ends.str.rsplit(":", n=1)
        addr = split.str[0].str.strip("[]")
        port = split.str[-1]
        if wanted.startswith(":"):
            hit |= (port == wanted[1:]).to_numpy()
        else:
            hit |= ((ends == wanted) | (addr == wanted.strip("[]"))).to_numpy()
    if not hit.any():
        pairs = (df["src"].astype(str) + " -> " + df["dst"].astype(str))
        seen = sorted(set(pairs[df["src"].notna()]))[:6]
        raise _Fail("connection", wanted, "no sample of this file belongs to it; the file holds "
                                          + (", ".join(seen) if seen else "no named connection"))
    out = df[hit]
    out.attrs.update(df.attrs)
    return out


def _interval_side(df) -> str | None:
    """Which end measured the per-interval rows of an iperf printout."""
    side = df.attrs.get("side")
    reverse = bool(df.attrs.get("reverse", False))
    if side == "server":
        return "sender" if reverse else "receiver"
    if side == "client":
        return "receiver" if reverse else "sender"
    return None


class _Fail(Exception):
    def __init__(self, key, value, why):
        super().__init__(why)
        self.key, self.value, self.why = key, value, why


def _series(df, metric: str, fmt: str):
    """(times, values, time_kind) of the per-sample series a metric is read from."""
    if metric == "goodput":
        col = "rate_bps"
    elif metric == "loss":
        col = "loss"
    elif metric in ("rtt", "rtt_min"):
        col = "rtt_s"
    elif metric == "cwnd":
        col = "cwnd_segments" if "cwnd_segments" in df.columns else "cwnd_bytes"
    else:
        col = "backlog_packets"
    if col not in df.columns or df[col].notna().sum() == 0:
        have = [c for c in ("rate_bps", "loss", "rtt_s", "cwnd_segments", "cwnd_bytes", "backlog_packets") if c in df.columns]
        raise _Fail("metric", metric, f"this {fmt} file has no {col} column (it has: {', '.join(have) or 'none'}); "
                                      "is it the right file?")
    if "omitted" in df.columns:
        df = df[~df["omitted"].astype(bool)]
    if "start_s" in df.columns and "end_s" in df.columns:
        if "stream" in df.columns and (df["stream"].astype(str) == "SUM").any():
            df = df[df["stream"].astype(str) == "SUM"]
        # A trailing stub (iperf's last 0.08-s interval) says little about the rate: intervals
        # shorter than half the usual length are left out, as a careful reader would.
        length = (df["end_s"] - df["start_s"]).to_numpy(float)
        if len(length):
            df = df[length >= 0.5 * np.median(length)]
        if metric == "loss":
            g = df.groupby(["start_s", "end_s"], sort=True)[["lost_packets", "packets"]].sum()
            return g.index.get_level_values(0).to_numpy(float), g.index.get_level_values(1).to_numpy(float), g, "interval"
        grouped = df.groupby(["start_s", "end_s"], sort=True)[col]
        # sum(min_count=1): an interval whose every rate is missing stays NaN, not 0 bit/s
        g = grouped.sum(min_count=1) if metric == "goodput" else grouped.mean()
        return g.index.get_level_values(0).to_numpy(float), g.index.get_level_values(1).to_numpy(float), g.to_numpy(float), "interval"
    df = df[df[col].notna()]
    if "time_s" in df.columns and df["time_s"].notna().all():
        t = df["time_s"].to_numpy(float)
        t = t - t[0]
        kind = "s"
    elif "seq" in df.columns:
        t = df["seq"].to_numpy(float)
        kind = "seq"
    else:
        t = np.arange(len(df), dtype=float)
        kind = "sample"
    v = df[col].to_numpy(float)
    return t, t, v, kind


def _window(start, end, values, kind, entry):
    """Pick the rows inside the window (given or chosen by steady_state); return mask and (lo, hi, source)."""
    from labcalc.measure import steady_state

    n = len(start)
    if "window_s" in entry:
        lo, hi = entry["window_s"]
        span = (float(np.min(start)), float(np.max(end))) if n else (math.nan, math.nan)
        if not n or lo >= span[1] or hi <= span[0]:
            raise _Fail("window_s", entry["window_s"], f"outside the file's time range {_fmt_window(*span)} {kind}")
        mask = (start >= lo - 1e-9) & (end <= hi + 1e-9)
        if mask.sum() < MIN_SAMPLES:
            raise _Fail("window_s", entry["window_s"],
                        f"only {int(mask.sum())} sample(s) inside (at least {MIN_SAMPLES} are needed); widen the window")
        return mask, (lo, hi, "manifest")
    finite = np.isfinite(values) if np.ndim(values) == 1 else np.ones(n, bool)
    if finite.sum() < 4:
        raise _Fail("window_s", "(default)", f"the file has only {int(finite.sum())} sample(s): too few for steady_state "
                                             f"to find a steady window (4 needed); give window_s = [start, end]")
    m = 5 if finite.sum() >= 20 else max(1, int(finite.sum()) // 4)
    series = np.asarray(values if np.ndim(values) == 1 else np.ones(n), float)
    ss = steady_state(pd.Series(series[finite], index=np.arange(n)[finite]), batch_size=m)
    first = int(ss.truncated_at)
    mask = np.zeros(n, bool)
    mask[first:] = True
    mask &= finite
    if mask.sum() < MIN_SAMPLES:
        raise _Fail("window_s", "(default)", f"steady_state kept only {int(mask.sum())} sample(s) (at least "
                                             f"{MIN_SAMPLES} are needed); the run is too short: give window_s")
    how = "steady_state" if ss.reliable else f"steady_state (not reliable: {ss.note.split(': ')[-1].split(' (')[0]})"
    return mask, (float(start[first]), float(np.max(end[mask])), how)


def _fmt_window(lo, hi) -> str:
    return f"{_num(lo)}-{_num(hi)}"


def _num(x) -> str:
    """Shortest text that reads back as the same float (no float noise such as 0.23600000000000002)."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _summary_value(df, metric, side, fmt):
    summ = df.attrs.get("summary")
    if not summ:
        raise _Fail("stat", "summary", f"this {fmt} file has no end-of-test line (was the run cut short?)")
    if isinstance(summ, dict):  # ping
        key = {"loss": "loss", "rtt": "rtt_avg_s", "rtt_min": "rtt_min_s"}.get(metric)
        if key is None or key not in summ:
            raise _Fail("stat", "summary", f"ping's end-of-test lines give no {metric}")
        return float(summ[key]), 1, "statistics line"
    role = side or "receiver"
    rows = [s for s in summ if s.get("role") == role] or ([s for s in summ if "role" not in s] if side is None else [])
    if not rows:
        raise _Fail("side", role, f"this {fmt} file has no {role}'s end-of-test line")
    sums = [s for s in rows if str(s.get("stream")) == "SUM"]
    rows = sums or rows
    if metric == "goodput":
        return float(sum(s["rate_bps"] for s in rows)), len(rows), f"{role}'s end-of-test line"
    if metric == "loss":
        if not all("packets" in s and "lost_packets" in s for s in rows):
            raise _Fail("metric", metric, f"this {fmt} run has no lost/total counters (a TCP run?): it cannot give a loss")
        total = sum(s["packets"] for s in rows)
        return float(sum(s["lost_packets"] for s in rows) / total) if total else 0.0, len(rows), f"{role}'s end-of-test line"
    raise _Fail("stat", "summary", f"the end-of-test line of {fmt} gives no {metric}")


def _one(fp: Path, entry: dict, cache: dict | None = None) -> dict:
    fmt_asked = entry.get("format")
    if cache is None:
        df = _read(fp, fmt_asked)
    else:
        # one read per (file, format) per build: a file feeding several entries (the goodput
        # and the loss of one server printout) is parsed once
        if (fp, fmt_asked) not in cache:
            cache[(fp, fmt_asked)] = _read(fp, fmt_asked)
        df = cache[(fp, fmt_asked)]
    fmt = df.attrs.get("format", fmt_asked or "?")
    tests = df.attrs.get("tests", 1)
    if isinstance(tests, int) and tests > 1:
        # each test's intervals start at 0 again: a window (or the end-of-test lines) would
        # mix the tests, e.g. the goodputs of a 10 and a 30 Mbit/s run summed to 40
        raise _Fail("file", fp.name, f"holds {tests} {fmt} tests (a server left running across runs, or runs "
                                     "appended to one log); keep one test per file, or the rows would mix them")
    if "connection" in entry:
        df = _pick_connection(df, entry["connection"])
    metric, stat, side = entry["metric"], entry["stat"], entry.get("side")
    isides = _interval_side(df) if fmt in ("iperf", "iperf3") else None
    if metric == "loss" and fmt in ("iperf", "iperf3") and "loss" not in df.columns and not any(
            "packets" in s for s in (df.attrs.get("summary") or []) if isinstance(s, dict)):
        raise _Fail("metric", metric, f"this {fmt} run has no lost/total counters (a TCP run?): it cannot give a loss")
    if stat == "summary":
        value, n, how = _summary_value(df, metric, side, fmt)
        return dict(value=value, n=n, window=None, window_from=how, reader=fmt, side=side or ("receiver" if isides else ""))
    if metric in ("goodput", "loss") and isides is not None:
        want = side or "receiver"
        if want != isides:
            alt = "the end-of-test line (stat = \"summary\")" if want == "receiver" else "the other end's file"
            raise _Fail("side", want, f"this {fmt} file's intervals were measured by the {isides} "
                                      f"(the {df.attrs.get('side')}); use the {want}'s file or {alt}")
        side = want
    start, end, values, kind = _series(df, metric, fmt)
    unit, scale = _unit(df, entry, fmt)
    if metric == "loss" and isinstance(values, pd.DataFrame):
        vals = values
        rate = (vals["lost_packets"] / vals["packets"].where(vals["packets"] > 0)).to_numpy(float)
        mask, win = _window(start, end, rate, kind, entry)
        sel = vals[mask]
        total = float(sel["packets"].sum())
        value = float(sel["lost_packets"].sum()) / total if total else 0.0
        if stat != "mean":
            value = _stat(rate[mask], stat)
        return dict(value=value, n=int(mask.sum()), window=win, kind=kind, reader=fmt, side=side or "")
    mask, win = _window(start, end, values, kind, entry)
    mask &= np.isfinite(values)
    if mask.sum() < MIN_SAMPLES:
        raise _Fail("window_s", entry.get("window_s", "(default)"),
                    f"only {int(mask.sum())} sample(s) with a {metric} value inside (at least {MIN_SAMPLES} "
                    "are needed); widen the window or check the file")
    value = _stat(values[mask], stat) / scale
    return dict(value=value, n=int(mask.sum()), window=win, kind=kind, reader=fmt, side=side or "", unit=unit)


def _unit(df, entry: dict, fmt: str) -> tuple[str, float]:
    """(unit of the row, divisor of the file's values): a cwnd in bytes stays in bytes unless mss_bytes."""
    metric = entry["metric"]
    if metric != "cwnd":
        return METRICS[metric][0], 1.0
    mss = entry.get("mss_bytes")
    if "cwnd_segments" in df.columns:
        if mss is not None:
            raise _Fail("mss_bytes", mss, f"this {fmt} file gives the window in segments already (cwnd_segments); "
                                          "mss_bytes converts a window in bytes: remove it")
        return METRICS["cwnd"][0], 1.0
    if mss is None:
        return CWND_BYTES_UNIT, 1.0
    return METRICS["cwnd"][0], float(mss)


def _stat(x: np.ndarray, stat: str) -> float:
    x = x[np.isfinite(x)]
    if not len(x):
        raise _Fail("stat", stat, "no finite sample to summarise")
    return float({"mean": np.mean, "median": np.median, "min": np.min, "max": np.max,
                  "last": lambda a: a[-1]}[stat](x))


def _table_rows(manifest: Path, entry: dict) -> tuple[list[dict], list[tuple[str, int]]]:
    """The rows of a ``[[table]]`` entry as written (strings), and (file, line) of each.

    Only the text is read here (by the one text-input policy, with the delimiter sniffing
    of the answer-sheet reader); the values and units are checked when the built table is
    loaded by :func:`labcalc.compare.load_measurements`, whose messages then name the file
    and line a bad row comes from.
    """
    import csv
    import io

    from labcalc import _textio

    fp = entry["paths"][0]
    where = f"{manifest}, table #{entry['index']}, key 'file' = {entry['file']!r}"
    try:
        text = _textio.read_text(fp, max_bytes=64 << 20).text
    except _textio.TextInputError as exc:
        raise ManifestError(f"{where}: cannot read it ({exc})") from None
    lines = text.splitlines(keepends=True)
    first = next((k for k, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise ManifestError(f"{where}: the file is empty")
    sep = _textio.SEP_LINE.match(lines[first])
    if sep:
        delimiter = sep.group(1)
        lines[first] = "\n"
    else:
        delimiter = _textio.sniff_delimiter(lines[first], TIDY_COLUMNS)
    reader = csv.reader(io.StringIO("".join(lines), newline=""), skipinitialspace=True, delimiter=delimiter)
    header, rows, origin, last = None, [], [], 0
    try:
        for fields in reader:
            start, last = last + 1, reader.line_num
            if not any(f.strip() for f in fields):
                continue
            if header is None:
                header = [f.strip().lower() for f in fields]
                missing = [c for c in TIDY_COLUMNS if c not in header]
                if missing:
                    raise ManifestError(f"{where}: not a tidy measurement table (no column {missing[0]!r}; "
                                        f"it needs {', '.join(TIDY_COLUMNS)}); a tool's output or a "
                                        f"'labcalc convert' CSV belongs in a [[measurement]] entry")
                continue
            if len(fields) > len(header):
                raise ManifestError(f"{where}: line {start} has {len(fields)} fields where the header has "
                                    f"{len(header)}; quote a decimal comma (3,58) or write 3.58")
            row = dict(zip(header, (f.strip() for f in fields)))
            out = {c: row.get(c, "") for c in COLUMNS}
            out.update(source=out["source"] or fp.name, reader=out["reader"] or "table")
            rows.append(out)
            origin.append((fp.name, start))
    except csv.Error as exc:
        raise ManifestError(f"{where}: line {reader.line_num} is not readable CSV ({exc})") from None
    if header is None:
        raise ManifestError(f"{where}: the file is empty")
    return rows, origin


def build_manifest(path) -> pd.DataFrame:
    """Build the tidy measurement table a manifest describes.

    Parameters
    ----------
    path : str or path-like
        The manifest, or a folder holding one.

    Returns
    -------
    pandas.DataFrame
        One row per entry: ``question, scenario, flow, metric, value, unit, note`` (what
        :func:`labcalc.compare.load_measurements` reads; goodput in [bit/s], loss as a
        fraction [1], rtt in [s], cwnd in [segments] (in [bytes] from a file that gives
        the window in bytes, unless ``mss_bytes`` is given), queue in [packets]) and the
        provenance columns ``source, reader, side, window_s, window_from, n_samples, stat,
        combine, defaults``. The rows of ``[[table]]`` entries follow, their cells as
        written in their files (strings); ``attrs["origin"]`` gives, per row, None (a
        built row) or the (file name, line) a table row comes from.

    Raises
    ------
    ManifestError
        Any problem of :func:`read_manifest`, or a file that cannot give the metric asked
        (a loss from a TCP run, a cwnd from a UDP run), a file of the wrong kind, a window
        outside the file's time range or holding fewer than 3 samples.

    Notes
    -----
    Per metric, without ``window_s`` the steady window is the one MSER (see
    :func:`labcalc.measure.steady_state`) keeps after the warm-up; ``goodput`` and
    ``loss`` are the receiver's (iperf's per-interval lines come from the server's
    printout, or ``stat = "summary"`` takes the receiver's end-of-test line from either
    printout); ``loss`` defaults to the end-of-test lost/total counters (ping: its
    packet-loss line) and over a window is sum(lost) / sum(total).

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> t = build_manifest(measurement_path("lab5", "raw"))
    >>> row = t[(t.question == "Q1") & (t.metric == "goodput")].iloc[0]
    >>> float(row.value), row.unit, row.reader, row.side, row.window_from
    (1000000.0, 'bit/s', 'iperf3', 'receiver', 'steady_state')
    """
    p = Path(os.fspath(path))
    entries = read_manifest(p)
    manifest = find_manifest(p) or p
    rows, origin, tables, cache = [], [], [], {}
    for e in entries:
        if e.get("table"):
            tables.append(e)
            continue
        parts = []
        for fp in e["paths"]:
            try:
                parts.append(_one(fp, e, cache))
            except _Fail as f:
                _fail(manifest, e["index"], e, f.key, f.value, f"{fp.name}: {f.why}")
            except ValueError as exc:  # the readers' MeasurementFormatError and the like
                _fail(manifest, e["index"], e, "file", fp.name, f"cannot read it ({exc})")
        values = [q["value"] for q in parts]
        units = list(dict.fromkeys(q.get("unit", METRICS[e["metric"]][0]) for q in parts))
        if len(units) > 1:
            by_unit = "; ".join(f"{u}: " + ", ".join(fp.name for fp, q in zip(e["paths"], parts) if q.get("unit") == u)
                                for u in units)
            _fail(manifest, e["index"], e, "files", [fp.name for fp in e["paths"]],
                  f"the files give the window in different units ({by_unit}); list files of one unit "
                  "(ss and tcp_probe give segments, ns-3 traces and iperf3 bytes)")
        combine = e.get("combine", "") if len(parts) > 1 else ""
        value = float(np.sum(values)) if combine == "sum" else float(np.mean(values))
        windows = []
        for q in parts:
            if q.get("window") is None:
                windows.append("")
            else:
                lo, hi, _ = q["window"]
                windows.append(_fmt_window(lo, hi) + ("" if q.get("kind") in ("s", "interval") else f" {q['kind']}"))
        rows.append({
            "question": e["question"], "scenario": e["scenario"], "flow": e["flow"], "metric": e["metric"],
            "value": value, "unit": units[0], "note": e.get("note", ""),
            "source": ";".join(fp.name if fp.parent == manifest.parent.resolve() else os.path.relpath(fp, manifest.parent.resolve())
                               for fp in e["paths"]),
            "reader": ";".join(sorted({q["reader"] for q in parts})),
            "side": ";".join(sorted({q["side"] for q in parts if q["side"]})),
            "window_s": ";".join(windows),
            "window_from": ";".join(sorted({q["window"][2] if q.get("window") else q["window_from"] for q in parts})),
            "n_samples": int(sum(q["n"] for q in parts)),
            "stat": e["stat"], "combine": combine, "defaults": " ".join(e["defaults"]),
        })
        origin.append(None)
    for e in tables:
        more, where = _table_rows(manifest, e)
        rows.extend(more)
        origin.extend(where)
    table = pd.DataFrame(rows, columns=COLUMNS)
    table.attrs["origin"] = origin
    return table


def write_measurements(table: pd.DataFrame, out) -> None:
    """Write a built table as CSV, numbers in their shortest exact form (no float noise).

    Parameters
    ----------
    table : pandas.DataFrame
        What :func:`build_manifest` returned.
    out : str, path-like or text stream
        Where to write; ``"-"`` for standard output.

    Returns
    -------
    None

    Examples
    --------
    >>> import io, pandas as pd
    >>> buf = io.StringIO()
    >>> write_measurements(pd.DataFrame({"metric": ["loss"], "value": [0.1 + 0.136]}), buf)
    >>> print(buf.getvalue().strip())
    metric,value
    loss,0.236
    """
    t = table.copy()
    if "value" in t.columns:
        t["value"] = [_short(v) for v in t["value"]]
    if isinstance(out, str) and out == "-":
        import sys
        out = sys.stdout
    t.to_csv(out, index=False)


def _short(v: float) -> str:
    """Shortest decimal of *v* at 12 significant digits: measured values never carry more."""
    if isinstance(v, str):
        return v  # a cell of a [[table]], kept as written
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    return _num(float(f"{float(v):.12g}"))
