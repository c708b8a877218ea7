"""Measurement manifests: from the raw files a student saved to the tidy comparison table.

A manifest is a small TOML file with one ``[[measurement]]`` table per measured value::

    [[measurement]]
    question = "Q14"
    scenario = "A2"
    flow = "h1_udp"
    metric = "goodput"
    file = "a2_h1_server.txt"     # relative to the manifest, in its folder or below

Every key of a ``[[measurement]]`` table:

``question``, ``scenario``, ``flow`` (required)
    The row's key, as in a tidy CSV (no control characters).
``metric`` (required)
    ``goodput`` (the receiver's rate [bit/s]), ``offered_rate`` (what a UDP sender sent
    [bit/s]: iperf and iperf3 client printouts, text or JSON, and the lab's udpclient),
    ``loss`` (lost/total, a fraction), ``rtt``, ``rtt_min``, ``rtt_max`` [s] (the mean,
    smallest and largest RTT sample in the window), ``cwnd`` [segments, or bytes],
    ``queue`` [packets].
``file`` or ``files`` (one of the two)
    The tool's output, relative to the manifest. ``files`` lists several files for one
    value (three connections of h2) and needs ``combine``. A file outside the manifest's
    folder (``../x``, ``/etc/x``, or a link pointing out) is refused unless the manifest
    is built with ``allow_outside=True`` (``labcalc measurements build --allow-outside``):
    a grader builds students' manifests. The same file twice (compared as resolved
    paths) is refused.
``combine``
    How the files of ``files`` make one value: ``"sum"`` (rates, windows, queues of
    several flows), ``"mean"``, or ``"pooled"`` (a loss only: the lost datagrams of all
    files over their total, never a sum of fractions). A sum of losses or of RTTs is
    refused.
``format``
    The reader (``iperf3``, ``iperf``, ``ping``, ``ss``, ``tc_qdisc``, ``qlen``,
    ``tcp_probe``, ``labtool``, ``ns3``, ``tshark``, ``ping_windows``, ``wireshark_csv``;
    the names: ``labcalc.measure.read``); recognised from the content otherwise.
``window_s``
    ``[start, end]`` in seconds, always: iperf intervals count from the start of the
    test; timestamped logs (ping ``-D``, ss, tc, tcp_probe, the queue log) from their
    first time stamp line, so that two logs started together share one origin. A ping
    without ``-D`` gets its times from its statistics line (see Notes); without one the
    key is refused: record with ``ping -D``, or give ``window_seq``.
``window_seq``
    ``[first, last]`` icmp_seq numbers of a ping (instead of ``window_s``).
``stat``
    ``mean`` (for a loss: lost/total pooled over the window), ``median``, ``min``,
    ``max``, ``last``, or ``summary``: the tool's own end-of-test figure (iperf's
    receiver or sender line, the client's ``Server Report``, iperf3 JSON's
    ``end.sum_received`` / ``end.sum_sent``, ping's statistics, udpserver's running
    totals).
``side``
    ``"receiver"`` or ``"sender"``: whose rate a ``goodput`` is (the receiver's by
    default). A loss is the receiver's and an offered rate the sender's; other metrics
    take no side. Report lines saved without iperf's header do not say which end printed
    them: ``side`` then says it for a goodput, and the row notes that it was taken so.
``connection``
    One connection of a file holding several (ss, tcp_probe, the streams of an iperf
    printout): ``"ip:port"``, ``":port"`` or ``"ip"``, matched against either end. Left
    out on an ss or tcp_probe log of several connections, labcalc takes the one that
    carried the data when every other one carried less than a tenth of its bytes and, in
    ss, never had data waiting to be sent (iperf3's control connection beside its data
    connection; a second flow starved to a tenth is still a flow), says so in the row, and
    otherwise refuses with the list of connections (addresses, ports, bytes
    carried). An ss log taken on the receiving host (its connection received the data and
    sent none) gives no cwnd or rtt: those are the sender's. In an iperf printout of
    several streams (``-P``) rates and losses come from the ``[SUM]`` lines (or the
    streams' lost/total added up), while a cwnd or RTT needs the stream named: left out,
    the entry is refused with each stream's ``connection`` value.
``qdisc``
    One qdisc of a ``tc -s qdisc`` log holding several per sample (an htb root and its
    pfifo leaf): its kind (``"pfifo"``), handle (``"10:"``), ``"root"`` or
    ``"dev handle"``. Left out, the root qdisc is taken (its backlog counts every packet
    queued on the device) and the row says so.
``mss_bytes``
    ``cwnd`` only: count a window given in bytes (ns-3 traces, iperf3's Cwnd) in
    segments of this size.
``note``
    Free text copied to the row.

A ``cwnd`` keeps the unit of its file: ss and tcp_probe give the window in segments (unit
``segments``); ns-3's trace sinks and iperf3's Cwnd column give it in bytes, and the row says
``bytes`` unless ``mss_bytes`` asks for segments (bytes / mss_bytes), or the file states its
MSS (the ``-cwnd.data`` files of ``labcalc simulate`` do, in their header): then the row is in
segments of it and ``defaults`` names ``mss_bytes``. ``mss_bytes`` on a file already in segments, or on another metric, is
refused; so is an entry whose files give the window in different units.

Rows measured already (a tidy CSV typed by hand, or built from another manifest) join
the table through ``[[table]]`` entries (key ``file`` only), so that one manifest can
carry every row a notebook reads::

    [[table]]
    file = "part2.csv"            # a tidy measurement CSV; its rows are kept as written

**One window per flow and run.** The rows of one flow (same ``scenario`` and ``flow``)
read from the same file(s) share one window unless an entry gives its own: the goodput's
(its ``window_s``, else the steady window labcalc finds, else the whole test when it is
an end-of-test figure), else the first entry that gives one. So a loss is lost/total
inside the window of the goodput, not over the whole test. A file that counts losses
only over the whole test (an iperf client's printout, ping) gives its end-of-test figure
and the row says so (``window_from``, ``stat = summary``).

:func:`build_manifest` reads every file with :func:`labcalc.measure.read`, summarises it
and returns the rows of the tidy CSV (``question, scenario, flow, metric, value, unit,
note``) plus provenance columns a grader can audit: ``source`` (the file(s)), ``reader``
(the format), ``side``, ``window_s`` (``"start-end"`` in seconds; empty for a whole-test
figure or a ping window in icmp_seq), ``window_from`` (``manifest``, ``steady_state``,
the end-of-test line used, and how the window or the time axis was found),
``n_samples``, ``stat``, ``combine`` and ``defaults`` (the keys whose value labcalc
chose). Nothing is chosen silently: every default that was applied is named in
``defaults``, and what labcalc decided about a file (the connection or qdisc it took, the
derived times of a ping) is added to ``note`` after ``labcalc:``. A row of a
``[[table]]`` has ``reader = "table"`` and its file as ``source``; the provenance columns
the table itself carries are kept.

Messages name the manifest, the entry (number and key), the key and its value, on one
line; they quote a value or a file's text only as a short printable excerpt.
"""

from __future__ import annotations

import math
import os
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ._common import MalformedLinesWarning
from ._manifest_eval import CWND_BYTES_UNIT, UNITS, Part, evaluate, window_text
from ._manifest_files import MAX_QUOTE_CHARS, PathProblem, one_line, resolve_file, show
from ._manifest_sampled import RTT_METRICS
from ._manifest_table import table_rows
from ._manifest_window import Fail, num_text

__all__ = ["ManifestError", "read_manifest", "build_manifest", "write_measurements", "find_manifest", "METRICS",
           "CWND_BYTES_UNIT"]

#: metric -> (output unit, default stat). Loss is a fraction 0..1 (blank unit).
METRICS = {
    "goodput": (UNITS["goodput"], "mean"),
    "offered_rate": (UNITS["offered_rate"], "mean"),
    "loss": (UNITS["loss"], "mean"),
    "rtt": (UNITS["rtt"], "mean"),
    "rtt_min": (UNITS["rtt_min"], "min"),
    "rtt_max": (UNITS["rtt_max"], "max"),
    "cwnd": (UNITS["cwnd"], "mean"),
    "queue": (UNITS["queue"], "mean"),
}
STATS = ("mean", "median", "min", "max", "last", "summary")
COMBINE = ("sum", "mean", "pooled")
#: metrics whose value is a rate of one end of a transfer: the ones ``side`` applies to
SIDED = ("goodput", "loss", "offered_rate")
COLUMNS = ["question", "scenario", "flow", "metric", "value", "unit", "note", "source", "reader", "side",
           "window_s", "window_from", "n_samples", "stat", "combine", "defaults"]
_KEYS = {"question": str, "scenario": str, "flow": str, "metric": str, "file": str, "files": list, "combine": str,
         "format": str, "window_s": list, "window_seq": list, "stat": str, "side": str, "note": str,
         "connection": str, "qdisc": str, "mss_bytes": int}
#: Largest ``mss_bytes`` [bytes]: an MSS is at most a 64 KiB IP packet's payload.
MAX_MSS_BYTES = 65535
#: Largest manifest [bytes]: a manifest is a short hand-written file.
MAX_MANIFEST_BYTES = 1 << 20
#: Largest number in a window [s or icmp_seq]: about 30 years; larger is a typing slip.
MAX_WINDOW = 1e9
#: The columns a tidy measurement CSV must have (as in :mod:`labcalc.compare`).
TIDY_COLUMNS = ("question", "scenario", "flow", "metric", "value", "unit")


class ManifestError(ValueError):
    """A manifest entry that cannot be built; the message names the manifest, the entry, the key and the value."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


_TYPE_WORDS = {str: "a string", list: "an array", int: "a whole number"}


def _where(manifest, index: int, entry: dict | None = None) -> str:
    ident = ""
    if entry:
        ident = " (" + "/".join(show(entry.get(k, "?"), 40).strip("'\"") for k in ("question", "scenario", "flow",
                                                                                    "metric")) + ")"
    return f"{one_line(manifest)}, measurement #{index}{ident}"


def _fail(manifest, index, entry, key, value, why):
    raise ManifestError(f"{_where(manifest, index, entry)}, key {key!r} = {show(value)}: {why}")


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
    try:
        if p.is_file():
            return p if p.suffix.lower() == ".toml" else None
        if p.is_dir():
            found = sorted(p.glob("*.toml"))
            if len(found) > 1:
                raise ManifestError(f"{p}: several manifests ({', '.join(f.name for f in found)}); name the one to build")
            return found[0] if found else None
    except (OSError, ValueError) as exc:
        if isinstance(exc, ManifestError):
            raise
        raise ManifestError(f"{show(str(p))}: cannot open it ({one_line(getattr(exc, 'strerror', None) or exc)})") \
            from None
    return None


def read_manifest(path, allow_outside: bool = False) -> list[dict]:
    """Read and check a manifest; return its entries with the file paths resolved.

    Parameters
    ----------
    path : str or path-like
        The manifest (TOML with ``[[measurement]]`` tables), or a folder holding one.
    allow_outside : bool, default False
        Accept files outside the manifest's folder (by default a manifest reads only the
        files in its folder and below it).

    Returns
    -------
    list of dict
        One dict per entry with the keys as written plus ``paths`` (absolute file paths),
        ``index`` (1-based) and ``defaults`` (the keys that were not written); the
        ``[[table]]`` entries follow, as ``{"table": True, "file", "paths", "index"}``.

    Raises
    ------
    ManifestError
        A file that is not TOML (or nests too deeply), an unknown key, a key of the wrong
        type, a missing key, an unknown metric / stat / combine / side, a window that is
        not ``[start, end]`` with 0 <= start < end, a file name with a control character,
        too long, outside the folder, looping through links or not found, the same file
        twice, or two entries for the same measurement; a ``[[table]]`` with a key other
        than ``file`` or naming a missing file.

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
    except RecursionError:
        raise ManifestError(f"{p}: not a valid TOML manifest (its arrays or tables nest too deeply; a manifest is "
                            "a flat list of [[measurement]] tables)") from None
    extra = sorted(set(doc) - {"measurement", "table"})
    if extra:
        raise ManifestError(f"{p}: unknown top-level key {show(extra[0])}; a manifest holds [[measurement]] "
                            f"and [[table]] tables only")
    entries = doc.get("measurement", [])
    tables = doc.get("table", [])
    for what, value in (("measurement", entries), ("table", tables)):
        if not isinstance(value, list):
            raise ManifestError(f"{p}: {what!r} must be an array of tables ([[{what}]]), got {show(value)}")
    if not entries and not tables:
        raise ManifestError(f"{p}: no [[measurement]] or [[table]] table")
    out, seen = [], {}
    for i, raw in enumerate(entries, start=1):
        out.append(_check_entry(p, i, raw, seen, allow_outside))
    for i, raw in enumerate(tables, start=1):
        out.append(_check_table(p, i, raw, allow_outside))
    return out


def _check_table(p: Path, i: int, raw, allow_outside: bool) -> dict:
    where = f"{one_line(p)}, table #{i}"
    if not isinstance(raw, dict):
        raise ManifestError(f"{where}: expected a table, got {show(raw)}")
    extra = sorted(set(raw) - {"file"})
    if extra:
        raise ManifestError(f"{where}, key {show(extra[0])} = {show(raw[extra[0]])}: unknown key; "
                            "a [[table]] has only 'file'")
    name = raw.get("file")
    if not isinstance(name, str) or not name:
        raise ManifestError(f"{where}, key 'file' = {show(name)}: expected the name of a tidy measurement CSV")
    try:
        fp = resolve_file(p.parent, name, allow_outside)
    except PathProblem as exc:
        raise ManifestError(f"{where}, key 'file' = {show(name)}: {exc.why}") from None
    return {"table": True, "file": name, "paths": [fp], "index": i}


def _number(x) -> float | None:
    """*x* as a finite float of at most :data:`MAX_WINDOW`, or None (not a number, 10**400, inf...)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    try:
        v = float(x)
    except OverflowError:
        return None
    return v if math.isfinite(v) and abs(v) <= MAX_WINDOW else None


def _check_window(p, i, e, key):
    w = e[key]
    nums = [_number(x) for x in w] if len(w) == 2 else []
    if key == "window_s":
        ok = len(nums) == 2 and None not in nums and 0 <= nums[0] < nums[1]
        if not ok:
            _fail(p, i, e, key, w, f"expected [start, end] in seconds with 0 <= start < end <= {MAX_WINDOW:.0e}")
    else:
        ok = (len(nums) == 2 and None not in nums and all(isinstance(x, int) for x in w)
              and 0 <= nums[0] < nums[1])
        if not ok:
            _fail(p, i, e, key, w, "expected [first, last] icmp_seq numbers (whole numbers, first < last)")


def _check_combine(p, i, e, metric: str, c: str) -> None:
    if c not in COMBINE:
        _fail(p, i, e, "combine", c, "expected \"sum\", \"mean\" or \"pooled\"")
    if metric == "loss" and c == "sum":
        _fail(p, i, e, "combine", c, "a sum of loss fractions is no loss; combine = \"pooled\" gives the lost "
                                     "datagrams of all files over their total")
    if metric != "loss" and c == "pooled":
        _fail(p, i, e, "combine", c, "\"pooled\" (lost over total) applies to a loss; use \"sum\" or \"mean\"")
    if metric in RTT_METRICS and c == "sum":
        _fail(p, i, e, "combine", c, "a sum of RTTs means nothing; use combine = \"mean\"")


def _check_side(p, i, e, metric: str, side: str) -> None:
    if side not in ("sender", "receiver"):
        _fail(p, i, e, "side", side, "expected \"sender\" or \"receiver\"")
    if metric not in SIDED:
        _fail(p, i, e, "side", side, f"side chooses the end of a transfer for a goodput; a {metric} is "
                                     "measured where its file was printed: remove side")
    if metric == "loss" and side != "receiver":
        _fail(p, i, e, "side", side, "a loss is counted by the receiver (the sender counts none): remove side")
    if metric == "offered_rate" and side != "sender":
        _fail(p, i, e, "side", side, "the offered rate is what the sender sent: remove side")


def _check_entry(p: Path, i: int, raw, seen: dict, allow_outside: bool = False) -> dict:
    if not isinstance(raw, dict):
        raise ManifestError(f"{_where(p, i)}: expected a table, got {show(raw)}")
    e = dict(raw)
    for key, value in e.items():
        if key not in _KEYS:
            _fail(p, i, None, key, value, "unknown key; known keys: " + ", ".join(sorted(_KEYS)))
        want = _KEYS[key]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            _fail(p, i, e, key, value, f"expected {_TYPE_WORDS[want]}")
    for key in ("question", "scenario", "flow", "metric"):
        if key not in e or not e[key].strip():
            raise ManifestError(f"{_where(p, i, e)}: key {key!r} is missing")
        if one_line(e[key]) != e[key]:
            _fail(p, i, e, key, e[key], "holds a control character (a newline or a tab); write it on one line")
        e[key] = e[key].strip()
    e["metric"] = e["metric"].lower()
    if e["metric"] not in METRICS:
        _fail(p, i, e, "metric", e["metric"], "unknown metric; known: " + ", ".join(METRICS))
    metric = e["metric"]
    defaults = []
    if ("file" in e) == ("files" in e):
        raise ManifestError(f"{_where(p, i, e)}: give exactly one of 'file' or 'files'")
    names = [e["file"]] if "file" in e else e["files"]
    key_files = "file" if "file" in e else "files"
    if not names or not all(isinstance(n, str) and n for n in names):
        _fail(p, i, e, "files", names, "expected a non-empty array of file names")
    if "files" in e and len(names) > 1 and "combine" not in e:
        _fail(p, i, e, "files", names, "several files need combine = \"sum\", \"mean\" or (a loss) \"pooled\"")
    if "combine" in e:
        _check_combine(p, i, e, metric, e["combine"])
    paths = []
    for n in names:
        try:
            fp = resolve_file(p.parent, n, allow_outside)
        except PathProblem as exc:
            _fail(p, i, e, key_files, n, exc.why)
        if fp in paths:
            _fail(p, i, e, key_files, n, f"the same file as {show(names[paths.index(fp)])} (both are {one_line(fp.name)}); "
                                         "list each file once")
        paths.append(fp)
    if "stat" in e:
        if e["stat"] not in STATS:
            _fail(p, i, e, "stat", e["stat"], "expected one of " + ", ".join(STATS))
    else:
        e["stat"] = METRICS[metric][1]
        defaults.append("stat")
    if "window_s" in e and "window_seq" in e:
        _fail(p, i, e, "window_seq", e["window_seq"], "give window_s (seconds) or window_seq (icmp_seq), not both")
    for key in ("window_s", "window_seq"):
        if key in e:
            if e["stat"] == "summary":
                _fail(p, i, e, key, e[key], "a window does not apply to stat = \"summary\" (the end-of-test line)")
            _check_window(p, i, e, key)
    if "window_s" not in e and "window_seq" not in e and e["stat"] != "summary":
        defaults.append("window_s")
    if "side" in e:
        _check_side(p, i, e, metric, e["side"])
    elif metric in SIDED:
        defaults.append("side")
    if "format" not in e:
        defaults.append("format")
    for key in ("connection", "qdisc"):
        if key in e and (not e[key].strip() or one_line(e[key]) != e[key]):
            _fail(p, i, e, key, e[key], "expected \"ip:port\", \":port\" or \"ip\"" if key == "connection"
                  else "expected a qdisc's kind (\"pfifo\"), handle (\"10:\") or \"root\"")
    if "connection" in e and e["stat"] == "summary":
        _fail(p, i, e, "connection", e["connection"], "the end-of-test line sums every connection; "
                                                      "a connection is picked from the per-sample lines only")
    if "qdisc" in e and metric != "queue":
        _fail(p, i, e, "qdisc", e["qdisc"], "applies to metric = \"queue\" only (a tc -s qdisc log)")
    if "mss_bytes" in e:
        if metric != "cwnd":
            _fail(p, i, e, "mss_bytes", e["mss_bytes"], f"applies to metric = \"cwnd\" only (a window in bytes "
                                                        f"counted in segments); remove it from this {metric} entry")
        if not 1 <= e["mss_bytes"] <= MAX_MSS_BYTES:
            _fail(p, i, e, "mss_bytes", e["mss_bytes"], f"expected the segment size in bytes, 1 to {MAX_MSS_BYTES} "
                                                        "(1448 on a 1500-byte MTU with timestamps)")
    key = (e["question"].upper(), e["scenario"], e["flow"], metric)
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
            head = fh.readline(1 << 16)
        cells = [c.strip().lower() for c in head.replace(";", ",").replace("\t", ",").split(",")]
        if {"question", "metric", "value"} <= set(cells):
            raise Fail("file", fp.name, "this is a tidy measurement table, not a tool's output; "
                                        f"list it as [[table]] file = {show(fp.name)} to keep its rows")
        if "time_s" in head.split(",") or fmt == "convert":
            df = pd.read_csv(fp)
            df.attrs.update(format="convert CSV")
            return df
    return measure.read(fp, format=fmt)


def _reader_message(exc: Exception) -> str:
    """A reader's error as one printable line, short enough to quote no more than an excerpt of the file."""
    text = one_line(str(exc))
    limit = 4 * MAX_QUOTE_CHARS + 200
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _windowed(e: dict) -> bool:
    return "window_s" in e and "window_s" not in e["defaults"] or "window_seq" in e


def _shares(e: dict) -> bool:
    """Whether an entry takes the window of its flow and file: it gives neither a window nor stat = "summary"."""
    return not _windowed(e) and not (e["stat"] == "summary" and "stat" not in e["defaults"])


def _anchor(part: Part, e: dict) -> dict | None:
    """The window an entry's result sets for the other rows of its flow and file, or None."""
    of = f"the {e['metric']} row, entry #{e['index']}"
    if part.window is not None:
        how = part.window.how if part.window.how == "manifest" else part.window.how.split(" after ")[0]
        return {"lo": part.window.lo, "hi": part.window.hi, "kind": part.window.kind,
                "how": f"{how} (the window of {of})", "of": of}
    if e["metric"] == "goodput" and part.stat == "summary":
        return {"whole": True, "of": f"the goodput's end-of-test line, entry #{e['index']}"}
    return None


def _part(manifest: Path, e: dict, fp: Path, shared: dict | None, cache: dict) -> Part:
    fmt_asked = e.get("format")
    try:
        # one read per (file, format) per build: a file feeding several entries (the goodput
        # and the loss of one server printout) is parsed once
        if (fp, fmt_asked) not in cache:
            try:
                with warnings.catch_warnings():
                    # the lines a reader skipped are named in the row's note instead
                    warnings.simplefilter("ignore", MalformedLinesWarning)
                    cache[(fp, fmt_asked)] = _read(fp, fmt_asked)
            except (Fail, ValueError, OSError) as exc:
                cache[(fp, fmt_asked)] = exc
        df = cache[(fp, fmt_asked)]
        if isinstance(df, Exception):
            raise df
        if df.attrs.get("labcalc"):
            df = _own_rows(df, e, fp)
        part = evaluate(df, dict(e, _name=fp.name), shared)
        bad = df.attrs.get("malformed") or {}
        if bad.get("count"):
            lines = ", ".join(str(x) for x in bad.get("lines", [])[:5])
            part.notes.append(f"{one_line(fp.name)}: {bad['count']} line(s) not understood and skipped (line {lines}"
                              f"{', ...' if bad['count'] > 5 else ''})")
        return part
    except Fail as f:
        extra = ""
        if shared is not None and f.key in ("window_s",):
            extra = f" (the window was the one of {shared['of']}; give window_s to choose another)"
        _fail(manifest, e["index"], e, f.key, f.value, f"{one_line(fp.name)}: {f.why}{extra}")
    except (ValueError, OSError) as exc:  # the readers' MeasurementFormatError and the like
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        _fail(manifest, e["index"], e, "file", fp.name, f"cannot read it ({_reader_message(why)})")


def _own_rows(df: pd.DataFrame, e: dict, fp: Path) -> pd.DataFrame:
    """One of labcalc's own files (:mod:`labcalc.measure.tidy`): the rows of the entry's flow (or link)."""
    from .tidy import manifest_view

    try:
        return manifest_view(df, e["flow"])[0]
    except ValueError as exc:
        raise Fail("file", fp.name, str(exc)) from None


def _combine(manifest: Path, e: dict, parts: list[Part]) -> tuple[float, str]:
    combine = e.get("combine", "") if len(parts) > 1 else ""
    values = [q.value for q in parts]
    if combine == "pooled":
        missing = [fp.name for fp, q in zip(e["paths"], parts) if q.counts is None]
        if missing:
            _fail(manifest, e["index"], e, "combine", "pooled", f"{missing[0]} gives no lost/total counts (a loss from "
                                                                "another statistic than the mean?); use combine = "
                                                                "\"mean\"")
        lost = sum(q.counts[0] for q in parts)
        total = sum(q.counts[1] for q in parts)
        return (lost / total if total else 0.0), combine
    if combine == "sum":
        return float(np.sum(values)), combine
    return float(np.mean(values)), combine


def build_manifest(path, allow_outside: bool = False) -> pd.DataFrame:
    """Build the tidy measurement table a manifest describes.

    Parameters
    ----------
    path : str or path-like
        The manifest, or a folder holding one.
    allow_outside : bool, default False
        Read files outside the manifest's folder too (see :func:`read_manifest`).

    Returns
    -------
    pandas.DataFrame
        One row per entry: ``question, scenario, flow, metric, value, unit, note`` (what
        :func:`labcalc.compare.load_measurements` reads; goodput and offered_rate in
        [bit/s], loss as a fraction [1], rtt in [s], cwnd in [segments] (in [bytes] from a
        file that gives the window in bytes, unless ``mss_bytes`` is given), queue in
        [packets]) and the provenance columns ``source, reader, side, window_s,
        window_from, n_samples, stat, combine, defaults``. The rows of ``[[table]]``
        entries follow, their cells as written in their files (strings);
        ``attrs["origin"]`` gives, per row, None (a built row) or the (file name, line) a
        table row comes from.

    Raises
    ------
    ManifestError
        Any problem of :func:`read_manifest`, or a file that cannot give the metric asked
        (a loss from a TCP run, a cwnd from a UDP run), a file of the wrong kind, a window
        outside the file's time range or holding fewer than 3 samples; the message says
        what the file lacks and what to do instead.

    Notes
    -----
    Per metric, without ``window_s`` the window is the one shared by the rows of the
    same flow and file (see the module docstring), else the steady window: samples at the
    idle level at both ends are left out (ping replies within max(1 ms, 10 % of the
    smallest RTT) of the smallest RTT, or queue samples at the lowest backlog, recorded
    before the traffic started or after it ended), then MSER (see
    :func:`labcalc.measure.steady_state`) drops the warm-up. ``goodput`` is the
    receiver's (iperf's per-interval lines of the server's printout, or of the server's
    output that ``--get-server-output`` appends; ``stat = "summary"`` takes the receiver's
    end-of-test line from either printout); ``offered_rate`` the sender's; ``loss`` over a
    window is sum(lost) / sum(total). A ping without ``-D`` gets times from its statistics
    line: the interval between pings is its time (from the first ping sent to the last one
    sent; ping's last reply is not in it) over the pings sent minus one, and a reply
    arrives at its ping's send time plus its RTT, counted from the first reply (as ``-D``
    does). When that interval is no ping interval (``-i`` plus a few ms: the pings were
    slowed down by failed sends), no times are derived.

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> t = build_manifest(measurement_path("lab5", "raw"))
    >>> row = t[(t.question == "Q1") & (t.metric == "goodput")].iloc[0]
    >>> float(row.value), row.unit, row.reader, row.side, row.window_from
    (1000000.0, 'bit/s', 'iperf3', 'receiver', 'steady_state')
    """
    p = Path(os.fspath(path))
    entries = read_manifest(p, allow_outside=allow_outside)
    manifest = find_manifest(p) or p
    measurements = [e for e in entries if not e.get("table")]
    tables = [e for e in entries if e.get("table")]
    groups: dict[tuple, list] = {}
    for e in measurements:
        groups.setdefault((e["scenario"], e["flow"], tuple(e["paths"])), []).append(e)
    results, cache = {}, {}
    for members in groups.values():
        # the goodput sets the window of its flow and file, else the first entry that gives one
        order = sorted(members, key=lambda e: (e["metric"] != "goodput", not _windowed(e), e["index"]))
        shared: list = [None] * len(members[0]["paths"])
        for e in order:
            parts = []
            for k, fp in enumerate(e["paths"]):
                parts.append(_part(manifest, e, fp, shared[k] if _shares(e) else None, cache))
            for k, part in enumerate(parts):
                if shared[k] is None:
                    shared[k] = _anchor(part, e)
            results[e["index"]] = parts
    rows, origin = [], []
    base = manifest.parent.resolve()
    for e in measurements:
        parts = results[e["index"]]
        units = list(dict.fromkeys(q.unit for q in parts))
        if len(units) > 1:
            by_unit = "; ".join(f"{u}: " + ", ".join(fp.name for fp, q in zip(e["paths"], parts) if q.unit == u)
                                for u in units)
            _fail(manifest, e["index"], e, "files", [fp.name for fp in e["paths"]],
                  f"the files give the window in different units ({by_unit}); list files of one unit "
                  "(ss and tcp_probe give segments, ns-3 traces and iperf3 bytes)")
        value, combine = _combine(manifest, e, parts)
        notes = list(dict.fromkeys(n for q in parts for n in q.notes))
        note = e.get("note", "")
        if notes:
            note = (note + "; " if note else "") + "labcalc: " + "; ".join(notes)
        chosen = list(dict.fromkeys(k for q in parts for k in q.chosen if k not in e["defaults"]))
        rows.append({
            "question": e["question"], "scenario": e["scenario"], "flow": e["flow"], "metric": e["metric"],
            "value": value, "unit": units[0], "note": note,
            "source": ";".join(fp.name if fp.parent == base else os.path.relpath(fp, base) for fp in e["paths"]),
            "reader": ";".join(sorted({q.reader for q in parts})),
            "side": ";".join(sorted({q.side for q in parts if q.side})),
            "window_s": ";".join(window_text(q) for q in parts) if any(window_text(q) for q in parts) else "",
            "window_from": ";".join(dict.fromkeys(q.window_from for q in parts)),
            "n_samples": int(sum(q.n for q in parts)),
            "stat": ";".join(sorted({q.stat or e["stat"] for q in parts})), "combine": combine,
            "defaults": " ".join(e["defaults"] + chosen),
        })
        origin.append(None)
    for e in tables:
        more, where = table_rows(manifest, e, COLUMNS, TIDY_COLUMNS, ManifestError)
        rows.extend(more)
        origin.extend(where)
    table = pd.DataFrame(rows, columns=COLUMNS)
    table.attrs["origin"] = origin
    table.attrs["manifest"] = manifest.name
    return table


def write_measurements(table: pd.DataFrame, out) -> None:
    """Write a built table as CSV, numbers in their shortest exact form (no float noise).

    The file is one of labcalc's own (:mod:`labcalc.measure.tidy`, kind ``measurements``): its
    first line ``# labcalc measurements v1`` says what it is; :func:`labcalc.compare.load_measurements`,
    a ``[[table]]`` entry and :func:`labcalc.measure.read` read it.

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
    # labcalc measurements v1
    # attrs: {}
    metric,value
    loss,0.236
    """
    from .tidy import write_tidy

    t = table.copy()
    if "value" in t.columns:
        t["value"] = [_short(v) for v in t["value"]]
    # labcalc's own file (measure.tidy): '# labcalc measurements v1' first, so that read() knows it
    write_tidy(t, out, "measurements", {"manifest": table.attrs["manifest"]} if "manifest" in table.attrs else {})


def _short(v: float) -> str:
    """Shortest decimal of *v* at 12 significant digits: measured values never carry more."""
    if isinstance(v, str):
        return v  # a cell of a [[table]], kept as written
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    return num_text(float(f"{float(v):.12g}"))
