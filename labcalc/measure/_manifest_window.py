"""Windows of a manifest entry: the samples a value is taken over, in seconds.

Part of :mod:`labcalc.measure.manifest`. A series is a :class:`Series`: per sample its
place on the file's time axis (an interval ``start``-``end`` of an iperf printout, or an
instant), the values, and how the axis was found. :func:`pick` keeps the samples of the
window the manifest gives, the window shared with another row of the same flow and file,
or the steady window labcalc finds (MSER after leaving out idle samples at the ends).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Fail", "Series", "Window", "pick", "fmt_window", "num_text", "MIN_SAMPLES", "IDLE_RTT_S", "EDGE_SLACK"]

MIN_SAMPLES = 3
#: An RTT within max(IDLE_RTT_S, 10 % of the smallest RTT) of the smallest is an idle reply [s].
IDLE_RTT_S = 1e-3


class Fail(Exception):
    """A value a file cannot give: ``key`` and ``value`` of the entry at fault and ``why`` (with a next step)."""

    def __init__(self, key, value, why):
        super().__init__(why)
        self.key, self.value, self.why = key, value, why


@dataclass
class Series:
    """Samples of one metric on a file's time axis.

    ``kind``: ``"interval"`` (``start`` - ``end`` [s] from the start of the test),
    ``"s"`` (instants [s] from the file's first time stamp), ``"seq"`` (ping's icmp_seq:
    no times) or ``"sample"`` (sample numbers). For a loss ``lost`` and ``total`` are the
    counts per sample (``values`` their ratio). ``idle`` names the idle level that
    default windows leave out at both ends (``"rtt"``: replies at the smallest RTT,
    ``"queue"``: an empty queue), or None. ``notes`` say how the axis was found.
    """

    start: np.ndarray
    end: np.ndarray
    values: np.ndarray
    kind: str
    lost: np.ndarray | None = None
    total: np.ndarray | None = None
    idle: str | None = None
    notes: list = field(default_factory=list)
    seq: np.ndarray | None = None  # ping: icmp_seq of each sample, for window_seq


@dataclass
class Window:
    """A window kept: its bounds on the axis, where it came from (``how``) and the mask of its samples."""

    lo: float
    hi: float
    how: str
    mask: np.ndarray
    kind: str


def num_text(x) -> str:
    """Shortest text that reads back as the same float (no float noise such as 0.23600000000000002)."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def fmt_window(lo, hi) -> str:
    return f"{num_text(lo)}-{num_text(hi)}"


#: An interval overhanging a window by less than this fraction of the usual interval length
#: counts as inside: iperf3 -J's interval ends drift around whole seconds (1.000072-2.00008;
#: 17.001651-18.011043 under load, 1.1 %), while a window edge set inside an interval on
#: purpose still leaves it out.
EDGE_SLACK = 0.02


def _inside(s: Series, lo: float, hi: float, axis: str) -> np.ndarray:
    if axis == "seq":
        return (s.seq >= lo) & (s.seq <= hi)
    if s.kind == "interval":
        lengths = (s.end - s.start)[np.isfinite(s.end - s.start)]
        tol = max(1e-9, EDGE_SLACK * float(np.median(lengths))) if len(lengths) else 1e-9
        return (s.start >= lo - tol) & (s.end <= hi + tol)
    return (s.start >= lo - 1e-9) & (s.start <= hi + 1e-9)


def _span(s: Series, axis: str) -> tuple[float, float]:
    a = s.seq if axis == "seq" else s.start
    b = s.seq if axis == "seq" else s.end
    return (float(np.nanmin(a)), float(np.nanmax(b))) if len(a) else (math.nan, math.nan)


def _idle_span(values: np.ndarray, idle: str) -> tuple[int, int, str] | None:
    """First and last busy sample (not at the idle level), and the rule in words; None when
    too few samples are busy to tell traffic from idle (then nothing is left out)."""
    finite = np.isfinite(values)
    if finite.sum() < 2 * MIN_SAMPLES:
        return None
    base = float(np.min(values[finite]))
    if idle == "rtt":
        tol = max(IDLE_RTT_S, 0.1 * base)
        busy = finite & (values > base + tol)
        rule = f"replies within {num_text(round(tol * 1e3, 3))} ms of the smallest RTT"
    else:
        busy = finite & (values > base)
        rule = "samples of an empty queue" if base == 0 else f"samples at the lowest backlog ({num_text(base)})"
    idx = np.flatnonzero(busy)
    if len(idx) < MIN_SAMPLES:
        return None
    first, last = int(idx[0]), int(idx[-1])
    if first == 0 and last == len(values) - 1:
        return None
    return first, last, rule


#: Fewer finite samples than this: no warm-up search (MSER needs a few batches after it)
MSER_MIN = 8


def _mser(values: np.ndarray, keep: np.ndarray) -> tuple[int, str]:
    """(index of the first steady sample, how it was found) by MSER over the kept samples."""
    from labcalc.measure import steady_state

    n = len(values)
    finite = keep & np.isfinite(values)
    k = int(finite.sum())
    if k < MIN_SAMPLES:
        raise Fail("window_s", "(default)", f"the file has only {k} sample(s) here (at least {MIN_SAMPLES} are "
                                            "needed for a mean over a window)")
    first_kept = int(np.flatnonzero(finite)[0])
    if k < MSER_MIN:
        return first_kept, (f"all {k} samples (not reliable: too few for steady_state to find a warm-up; record a "
                            "longer run or give window_s)")
    m = 5 if k >= 20 else max(1, k // 4)
    try:
        ss = steady_state(pd.Series(values[finite], index=np.arange(n)[finite]), batch_size=m)
    except ValueError as exc:  # too few values left for its batch means: keep them all
        return first_kept, f"all {k} samples (not reliable: {str(exc).split(': ', 1)[-1]})"
    how = "steady_state" if ss.reliable else f"steady_state (not reliable: {ss.note.split(': ')[-1].split(' (')[0]})"
    return int(ss.truncated_at), how


def pick(s: Series, entry: dict, shared: dict | None = None) -> Window:
    """The window of *entry* over the series *s*.

    In order: the entry's ``window_s`` (seconds; refused on an axis without times) or
    ``window_seq`` (ping's icmp_seq); the *shared* window (``{"lo", "hi", "kind", "how"}``,
    from the row of the same flow and file that sets it); else the steady window:
    samples at the idle level at both ends left out (``s.idle``), then MSER's warm-up.
    """
    n = len(s.start)
    if "window_seq" in entry:
        if s.seq is None:
            raise Fail("window_seq", entry["window_seq"], "window_seq counts ping's icmp_seq numbers; this file has "
                                                          "times: give window_s = [start, end] in seconds")
        lo, hi = entry["window_seq"]
        return _given(s, lo, hi, "seq", "window_seq", entry["window_seq"], "manifest (icmp_seq)")
    if "window_s" in entry:
        if s.kind in ("seq", "sample"):
            raise Fail("window_s", entry["window_s"], _no_times(s))
        lo, hi = entry["window_s"]
        return _given(s, lo, hi, s.kind, "window_s", entry["window_s"], "manifest")
    if shared is not None:
        if shared["kind"] in ("seq",) and s.seq is not None:
            mask = _inside(s, shared["lo"], shared["hi"], "seq")
        elif shared["kind"] in ("seq", "sample") or s.kind in ("seq", "sample"):
            raise Fail("window_s", "(shared)", f"the window of {shared['of']} is on another axis; give window_s")
        else:
            mask = _inside(s, shared["lo"], shared["hi"], s.kind)
        return Window(shared["lo"], shared["hi"], shared["how"], mask, shared["kind"])
    keep = np.ones(n, bool)
    trimmed = ""
    if s.idle:
        span = _idle_span(s.values, s.idle)
        if span is not None:
            first, last, rule = span
            keep[:first] = False
            keep[last + 1:] = False
            trimmed = f" after leaving out {first + n - 1 - last} idle sample(s) at the ends ({rule})"
    first, how = _mser(s.values, keep)
    mask = keep.copy()
    mask[:first] = False
    mask &= np.isfinite(s.values)
    if mask.sum() < MIN_SAMPLES:
        raise Fail("window_s", "(default)", f"steady_state kept only {int(mask.sum())} sample(s) (at least "
                                            f"{MIN_SAMPLES} are needed); the run is too short: give window_s")
    idx = np.flatnonzero(mask)
    return Window(float(s.start[idx[0]]), float(np.max(s.end[mask])), how + trimmed, mask, s.kind)


def _no_times(s: Series) -> str:
    if s.seq is not None:
        why = next((n for n in s.notes if n.startswith("no times")), "this ping has no times")
        if "Windows" in why:
            return (f"window_s is in seconds and {why}: give window_seq = [first, last] instead (the probes' "
                    "numbers in the run, 1 for the first), or record on Linux with 'ping -D'")
        return (f"window_s is in seconds and {why}: record with 'ping -D' (times on every reply), or give "
                "window_seq = [first, last] (icmp_seq numbers) instead")
    return (f"window_s is in seconds and this file has no time stamps (its {len(s.start)} samples are counted, not "
            "timed); stamp each sample with a line '# $(date +%s.%N)' (Unix time: the text of a plain 'date' is not "
            "read), or remove window_s to take the steady window over the samples")


def _given(s: Series, lo, hi, axis, key, value, how) -> Window:
    span = _span(s, axis)
    if not len(s.start) or lo >= span[1] or hi <= span[0]:
        what = "icmp_seq range" if axis == "seq" else "time range"
        raise Fail(key, value, f"outside the file's {what} {fmt_window(*span)}{'' if axis == 'seq' else ' s'}")
    mask = _inside(s, lo, hi, axis)
    if mask.sum() < MIN_SAMPLES:
        raise Fail(key, value, f"only {int(mask.sum())} sample(s) inside (at least {MIN_SAMPLES} are needed); widen the window")
    return Window(float(lo), float(hi), how, mask, axis)
