"""Analysis of measured series: steady state (MSER-5 + batch means), cwnd phases, sliding rates, queues."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._common import numeric_column

__all__ = ["SteadyState", "steady_state", "SteadyWindow", "steady_window", "CwndPhases", "cwnd_phases",
           "receive_rate", "queue_occupancy"]


# --------------------------------------------------------------------------------------
# steady state


@dataclass(frozen=True)
class SteadyState:
    """Steady-state mean of a series after removing its warm-up (see :func:`steady_state`).

    Attributes
    ----------
    mean : float
        Mean of the retained observations [unit of the series].
    ci_low, ci_high : float
        Confidence interval of the mean from batch means [unit of the series].
    half_width : float
        ``(ci_high - ci_low) / 2``.
    confidence : float
        Confidence level of the interval (e.g. 0.95).
    truncated_at : object
        Index label (e.g. time) of the first retained observation; its position when the
        input had no index.
    n_truncated, n_used : int
        Observations removed as warm-up (plus the few that did not fill a batch) and used.
    n_batches, batch_size : int
        Batches of the confidence interval and their size.
    mser_batch_size : int
        Batch size of the MSER statistic (5 for MSER-5).
    batch_lag1_autocorr : float
        Lag-1 autocorrelation of the batch means (should be small, say < 0.2, for the
        interval to be trusted; NaN with fewer than 3 batches).
    reliable : bool
        False when MSER chose a truncation at the end of its search range (the series is
        too short or not stationary) or the batch means are strongly correlated.
    note : str
        Why the result is not reliable ("" otherwise).

    Examples
    --------
    >>> res = steady_state(pd.Series([0.0, 2.0, 4.0] + [5.0, 5.2, 4.8, 5.1, 4.9] * 40))
    >>> round(res.mean, 2), res.ci_low <= res.mean <= res.ci_high, res.n_batches > 1
    (5.0, True, True)
    """

    mean: float
    ci_low: float
    ci_high: float
    half_width: float
    confidence: float
    truncated_at: object
    n_truncated: int
    n_used: int
    n_batches: int
    batch_size: int
    mser_batch_size: int
    batch_lag1_autocorr: float
    reliable: bool
    note: str = ""

    @property
    def relative_half_width(self) -> float:
        """Half width divided by ``|mean|`` [fraction] (NaN when the mean is 0)."""
        return self.half_width / abs(self.mean) if self.mean else float("nan")

    def table(self) -> pd.DataFrame:
        """One-column table of the result, for notebooks."""
        rows = {
            "mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high, "half_width": self.half_width,
            "relative_half_width": self.relative_half_width, "confidence": self.confidence,
            "truncated_at": self.truncated_at, "n_truncated": self.n_truncated, "n_used": self.n_used,
            "n_batches": self.n_batches, "batch_size": self.batch_size,
            "batch_lag1_autocorr": self.batch_lag1_autocorr, "reliable": self.reliable,
        }
        return pd.DataFrame({"value": pd.Series(rows, dtype=object)})


def _mser(x: np.ndarray, m: int) -> tuple[int, np.ndarray]:
    """MSER-m: (number of batches to drop, statistic for d = 0..k//2)."""
    k = len(x) // m
    z = x[: k * m].reshape(k, m).mean(axis=1)
    # suffix sums of z and z^2
    s1 = np.cumsum(z[::-1])[::-1]
    s2 = np.cumsum((z * z)[::-1])[::-1]
    d = np.arange(k // 2 + 1)
    cnt = k - d
    mean = s1[d] / cnt
    sse = s2[d] - cnt * mean * mean
    stat = np.maximum(sse, 0.0) / (cnt * cnt)
    return int(np.argmin(stat)), stat


def steady_state(series, *, batch_size: int = 5, n_batches: int = 10, confidence: float = 0.95) -> SteadyState:
    """Drop the warm-up of a series with MSER-5 and give its steady mean with a confidence interval.

    Turns "wait until the printed rates stabilise" into a number: the warm-up length is the
    truncation that minimises the MSER statistic, and the mean of what remains gets a
    batch-means confidence interval.

    Parameters
    ----------
    series : pandas.Series or array_like
        The observations in time order, e.g. per-second rates [any unit]. NaNs are dropped.
        With a Series indexed by time (``df.set_index("time_s")["rate_bps"]``) the
        truncation point is reported as a time.
    batch_size : int, default 5
        Batch size *m* of the MSER statistic (5 gives MSER-5).
    n_batches : int, default 10
        Number of batches for the confidence interval (fewer when the retained part has
        fewer than two observations per batch).
    confidence : float, default 0.95
        Confidence level of the interval, in (0, 1).

    Returns
    -------
    SteadyState
        ``mean``, ``ci_low``, ``ci_high``, ``truncated_at``, ``n_truncated``, ``n_used``,
        ``n_batches``, ``batch_size``, ``reliable``... and ``.table()``.

    Raises
    ------
    ValueError
        When the series has fewer than ``4 * batch_size`` finite values, contains
        infinities, or a parameter is out of range.

    Notes
    -----
    MSER-m groups the *n* observations into ``k = n // m`` batch means :math:`Z_j` and picks
    the number of dropped batches

    .. math:: d^* = \\arg\\min_{0 \\le d \\le k/2} \\frac{1}{(k-d)^2} \\sum_{j=d+1}^{k} (Z_j - \\bar Z_{d})^2,

    i.e. the truncation after which the mean's estimated variance is smallest; ``m * d*``
    observations are removed. A minimum at the end of the range (``d* = k/2``) means the
    warm-up was not found. The retained observations (minus the first few that do not fill
    a batch) are cut into *B* batches of *b* observations; with batch means :math:`Y_i`,

    .. math:: \\bar Y \\pm t_{1-\\alpha/2,\\,B-1} \\, s_Y / \\sqrt{B}.

    References
    ----------
    .. [1] K. P. White Jr., "An effective truncation heuristic for bias reduction in
       simulation output", Simulation 69(6), 1997.
    .. [2] W. W. Franklin and K. P. White Jr., "Stationarity tests and MSER-5: exploring the
       intuition behind mean-squared-error-reduction in warm-up period determination",
       Proc. Winter Simulation Conference, 2008.
    .. [3] A. M. Law, "Simulation Modeling and Analysis", 5th ed., section 9.5.3 (batch means).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> t = np.arange(200.0)
    >>> rate = 4.8e6 * (1 - np.exp(-t / 8)) + rng.normal(0, 5e4, t.size)
    >>> res = steady_state(pd.Series(rate, index=t))
    >>> res.truncated_at >= 20, res.ci_low < 4.8e6 < res.ci_high
    (True, True)
    >>> round(res.mean / 1e6, 2)
    4.8
    """
    from scipy import stats

    if isinstance(series, pd.DataFrame):
        raise ValueError("series: expected one column (a Series or 1-D array), got a DataFrame; "
                         "select a column, e.g. df.set_index('time_s')['rate_bps']")
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size: expected a positive integer, got {batch_size!r}")
    if not isinstance(n_batches, (int, np.integer)) or n_batches < 2:
        raise ValueError(f"n_batches: expected an integer >= 2, got {n_batches!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence: expected a level in (0, 1), got {confidence!r}")
    s = series if isinstance(series, pd.Series) else pd.Series(np.asarray(series, dtype=float))
    if not (pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)):
        # text (a column a reader kept as text) is refused, never turned into NaN silently
        name = s.name if s.name is not None else "series"
        frame = s.to_frame(name)
        frame.attrs.update(s.attrs)  # the reader's source and its not_numeric notes
        numeric_column(frame, name, "steady_state")
    s = pd.to_numeric(s, errors="coerce").astype(float)
    s = s[s.notna()]
    x = s.to_numpy()
    if np.isinf(x).any():
        raise ValueError("series: contains infinite values")
    n = len(x)
    if n < 4 * batch_size:
        raise ValueError(f"series: needs at least {4 * batch_size} finite values for MSER-{batch_size}, got {n}")
    d, stat = _mser(x, batch_size)
    k = n // batch_size
    notes = []
    if d >= k // 2 and k // 2 > 0:
        notes.append("MSER minimum at the end of the search range: warm-up not detected "
                     "(series too short or not stationary)")
    trunc = d * batch_size
    rest = n - trunc
    B = min(n_batches, rest // 2)
    if B < 2:
        raise ValueError(f"series: only {rest} values after the warm-up, too few for batch means")
    b = rest // B
    skip = rest - B * b
    start = trunc + skip
    y = x[start:].reshape(B, b).mean(axis=1)
    mean = float(y.mean())
    sd = float(y.std(ddof=1))
    half = float(stats.t.ppf(0.5 + confidence / 2.0, B - 1) * sd / np.sqrt(B))
    if B >= 3 and np.var(y) > 0:
        yc = y - y.mean()
        rho = float(np.sum(yc[1:] * yc[:-1]) / np.sum(yc * yc))
    else:
        rho = float("nan")
    if B >= 3 and rho > 0.5:
        notes.append(f"batch means are correlated (lag-1 autocorrelation {rho:.2f}): the interval is too narrow")
    label = s.index[start]
    if isinstance(label, (np.generic,)):
        label = label.item()
    return SteadyState(
        mean=mean, ci_low=mean - half, ci_high=mean + half, half_width=half, confidence=float(confidence),
        truncated_at=label, n_truncated=int(start), n_used=int(n - start), n_batches=int(B), batch_size=int(b),
        mser_batch_size=int(batch_size), batch_lag1_autocorr=rho, reliable=not notes, note="; ".join(notes),
    )


@dataclass(frozen=True)
class SteadyWindow:
    """The samples a steady value is taken over (see :func:`steady_window`).

    Attributes
    ----------
    mask : numpy.ndarray of bool
        Per sample: inside the window (and finite).
    start_s, end_s : float
        Start of the first and end of the last sample inside [s] (or the series' own unit).
    how : str
        ``"steady_state"``, or ``"steady_state (not reliable: <why>)"``.

    Examples
    --------
    >>> w = steady_window(np.r_[np.zeros(5), np.ones(20)], np.arange(25.0), np.arange(1.0, 26.0))
    >>> int(w.mask.sum()), w.start_s, w.end_s
    (20, 5.0, 25.0)
    """

    mask: np.ndarray
    start_s: float
    end_s: float
    how: str


def steady_window(values, start_s, end_s) -> SteadyWindow:
    """The window a steady value is read over when none is given: the manifest's default window.

    One path for every place that picks a window by itself, so that the same samples give
    the same window: a measurement manifest's entry without ``window_s``
    (:func:`labcalc.measure.build_manifest`, whose window code this calls) and the summary
    of a simulation (:func:`labcalc.sim.simulate` without ``warmup_s``).

    Parameters
    ----------
    values : array_like
        Per-interval samples in time order (e.g. rates [bit/s]); NaNs are left out.
    start_s, end_s : array_like
        Start and end of each interval [s].

    Returns
    -------
    SteadyWindow

    Raises
    ------
    ValueError
        Fewer than 3 finite samples, or fewer than 3 kept after the warm-up.

    Notes
    -----
    MSER-*m* (:func:`steady_state`) with *m* = 5 from 20 finite samples on, else
    ``max(1, n // 4)``; from 8 samples down, all of them (said in ``how``). The window runs
    from the first sample ``steady_state`` keeps (its batch means start after the whole
    batches it drops and the few samples that fill no batch) to the last sample.

    References
    ----------
    .. [1] K. P. White Jr., "An effective truncation heuristic for bias reduction in
       simulation output", Simulation 69(6), 1997.

    Examples
    --------
    >>> rate = np.r_[1e6, 3e6, 4.5e6, np.full(17, 5e6)]
    >>> w = steady_window(rate, np.arange(20.0), np.arange(1.0, 21.0))
    >>> w.start_s, float(rate[w.mask].mean()), w.how
    (6.0, 5000000.0, 'steady_state')
    """
    from labcalc.measure._manifest_window import Fail, Series, pick

    s = Series(np.asarray(start_s, dtype=float), np.asarray(end_s, dtype=float), np.asarray(values, dtype=float),
               "interval")
    try:
        w = pick(s, {})
    except Fail as exc:
        raise ValueError(exc.why) from None
    return SteadyWindow(mask=w.mask, start_s=w.lo, end_s=w.hi, how=w.how)


# --------------------------------------------------------------------------------------
# cwnd phases

SLOW_START = "slow-start"
CONGESTION_AVOIDANCE = "congestion-avoidance"
FAST_RECOVERY = "fast-recovery"


@dataclass(frozen=True)
class CwndPhases:
    """Phases of a congestion window trace (see :func:`cwnd_phases`).

    Attributes
    ----------
    transitions : pandas.DataFrame
        ``time_s``, ``cwnd_before``, ``cwnd_after``, ``state`` (the new state), ``event``.
    states : pandas.Series
        State after each sample of the trace (same index as the trace).
    unit : str
        ``"bytes"`` or ``"segments"`` (unit of the cwnd columns).
    segment : float
        Segment size used to recognise a timeout (1 for segments) [unit].

    Examples
    --------
    >>> trace = pd.DataFrame({"time_s": [0.0, 0.1, 0.2, 0.3, 0.4],
    ...                       "cwnd_segments": [1, 2, 4, 8, 1]})
    >>> ph = cwnd_phases(trace)
    >>> ph.unit, ph.segment, ph.states.iloc[0]
    ('segments', 1.0, 'slow-start')
    """

    transitions: pd.DataFrame
    states: pd.Series
    unit: str
    segment: float
    time: np.ndarray = field(repr=False, default=None)

    def table(self) -> pd.DataFrame:
        """The transitions table (like seed 001's "points of state transitions")."""
        return self.transitions

    def time_in_state(self) -> pd.Series:
        """Seconds spent in each state (each sample's state lasts until the next sample)."""
        if self.time is None or len(self.time) < 2:
            return pd.Series(dtype=float)
        dt = np.diff(self.time)
        st = self.states.to_numpy()[:-1]
        out = pd.Series(dt, index=st).groupby(level=0).sum()
        return out.reindex([SLOW_START, CONGESTION_AVOIDANCE, FAST_RECOVERY]).fillna(0.0).rename("seconds")


def _pick(df: pd.DataFrame, stem: str):
    for unit in ("bytes", "segments"):
        col = f"{stem}_{unit}"
        if col in df.columns:
            return col, unit
    return None, None


def _segment_from_increments(c: np.ndarray) -> float:
    # slow start adds one segment per ACK: the most common of the first increases
    # (not counting the jump from an initial zero window)
    inc = np.diff(c)
    inc = inc[(inc > 0) & (c[:-1] > 0)][:20]
    if not len(inc):
        pos = c[c > 0]
        return float(pos.min()) if len(pos) else 1.0
    vals, counts = np.unique(np.round(inc, 6), return_counts=True)
    return float(vals[np.argmax(counts)])


def cwnd_phases(trace: pd.DataFrame, ssthresh: pd.DataFrame | None = None, *, segment_bytes: float | None = None,
                min_drop: float = 0.1) -> CwndPhases:
    """Label slow start, congestion avoidance, fast recovery and timeouts in a cwnd trace.

    Parameters
    ----------
    trace : pandas.DataFrame
        One flow's window over time: ``time_s`` and ``cwnd_bytes`` or ``cwnd_segments``
        (what :func:`read_ns3`, :func:`read_tcp_probe` (filtered to one flow), :func:`read_ss`
        or :func:`read_labtool` give), with ``ssthresh_bytes`` / ``ssthresh_segments``
        when known (NaN while unset).
    ssthresh : pandas.DataFrame, optional
        A separate ssthresh trace (``time_s`` and ``ssthresh_*``, e.g. ns-3's ``-ssth``
        file), aligned on the cwnd samples (last value at or before each time).
    segment_bytes : float, optional
        Segment size [bytes] for byte traces; by default the most common of the first 20
        window increases (slow start adds one segment per ACK).
    min_drop : float, default 0.1
        Without ssthresh, a decrease of at least this fraction of the window is a loss
        signal (smaller decreases are ignored) [fraction].

    Returns
    -------
    CwndPhases
        ``.transitions`` (time_s, cwnd_before, cwnd_after, state, event), ``.states`` (state
        after every sample), ``.table()``, ``.time_in_state()``.

    Raises
    ------
    ValueError
        When a column is missing, the trace holds several flows (``src``/``dst``), or
        ``min_drop`` is outside (0, 1).

    Notes
    -----
    The rules follow Reno/NewReno (RFC 5681, RFC 6582), with *ssthresh* the real one or,
    when absent, an estimate (the window right after a loss, or half the window before a
    timeout):

    - a fall of the window to about one segment is a **timeout** (RTO): back to slow start;
    - a fall of ssthresh, or a fall of the window by ``min_drop`` or more (ssthresh can
      stay or even rise, e.g. after a timeout), is a loss detected by **3 duplicate
      ACKs**: fast recovery starts;
    - fast recovery ends (**new ACK**) when the window is deflated to ssthresh or grows
      again from it: congestion avoidance (slow start if it is below ssthresh);
    - in slow start, the window reaching ssthresh starts congestion avoidance.

    The first row is the start of the trace. Window inflation during fast recovery
    (one segment per duplicate ACK) does not end the phase. CUBIC and BBR traces are
    labelled by the same rules (their loss responses are multiplicative decreases).

    Without ssthresh, a loss that leaves the window at half the window before plus 3
    segments (within a segment) is taken as Reno's fast recovery with inflation (ns-3,
    BSD): ssthresh is estimated as the window minus 3 segments, increases of exactly one
    segment keep the recovery going, and the fall of the window back to that estimate
    (the deflation) ends it with a **new ACK**, it is not counted as another loss. An
    increase by anything else than one segment, or a sample without change (inflation
    changes the window at every duplicate ACK), ends that reading: the recovery then ends
    as without inflation.
    NewReno's partial ACKs, which deflate the window part of the way, may end the phase
    early when ssthresh is not in the trace.

    References
    ----------
    .. [1] RFC 5681, "TCP Congestion Control", sections 3.1-3.2.
    .. [2] RFC 6582, "The NewReno Modification to TCP's Fast Recovery Algorithm".

    Examples
    --------
    >>> trace = pd.DataFrame({
    ...     "time_s": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    ...     "cwnd_segments": [1, 2, 4, 8, 16, 11, 8, 9, 1],
    ...     "ssthresh_segments": [np.nan, np.nan, np.nan, np.nan, np.nan, 8, 8, 8, 4]})
    >>> cwnd_phases(trace).table()
       time_s  cwnd_before  cwnd_after                 state            event
    0     0.0          NaN         1.0            slow-start            start
    1     0.5         16.0        11.0         fast-recovery  3 duplicate ACKs
    2     0.6         11.0         8.0  congestion-avoidance          new ACK
    3     0.8          9.0         1.0            slow-start          timeout
    """
    # Long because it is one state machine over the trace (slow start, avoidance,
    # recovery, timeout); its transitions read best side by side.
    if not isinstance(trace, pd.DataFrame):
        raise ValueError(f"trace: expected a DataFrame with time_s and cwnd_bytes or cwnd_segments, got {type(trace).__name__}")
    if not 0.0 < min_drop < 1.0:
        raise ValueError(f"min_drop: expected a fraction in (0, 1), got {min_drop!r}")
    if "time_s" not in trace.columns:
        raise ValueError("trace: missing column 'time_s'")
    ccol, unit = _pick(trace, "cwnd")
    if ccol is None:
        raise ValueError(f"trace: missing column 'cwnd_bytes' or 'cwnd_segments' (columns: {list(trace.columns)})")
    for a, b in (("src", "dst"),):
        if a in trace.columns and b in trace.columns:
            pairs = trace[[a, b]].astype(str).drop_duplicates()
            if len(pairs) > 1:
                shown = ", ".join(f"{x}->{y}" for x, y in pairs.head(4).itertuples(index=False))
                x0, y0 = pairs.iloc[0]
                raise ValueError(f"trace: holds {len(pairs)} flows ({shown}); select one, e.g. "
                                 f"trace[(trace.src == {x0!r}) & (trace.dst == {y0!r})]")
    for col in ("time_s", ccol) + tuple(c for c in trace.columns if c.startswith("ssthresh_")):
        numeric_column(trace, col, "cwnd_phases")
    df = trace.sort_values("time_s", kind="stable")
    t = df["time_s"].to_numpy(dtype=float)
    c = df[ccol].to_numpy(dtype=float)
    s = None
    scol, sunit = _pick(df, "ssthresh")
    if scol is not None:
        if sunit != unit:
            raise ValueError(f"trace: {ccol} and {scol} have different units")
        s = df[scol].to_numpy(dtype=float)
    if ssthresh is not None:
        scol2, sunit2 = _pick(ssthresh, "ssthresh")
        if scol2 is None or "time_s" not in ssthresh.columns:
            raise ValueError("ssthresh: expected a DataFrame with time_s and ssthresh_bytes or ssthresh_segments")
        if sunit2 != unit:
            raise ValueError(f"ssthresh: its unit ({sunit2}) differs from the cwnd's ({unit})")
        right = ssthresh[["time_s", scol2]].sort_values("time_s", kind="stable").drop_duplicates("time_s", keep="last")
        merged = pd.merge_asof(pd.DataFrame({"time_s": t}), right, on="time_s", direction="backward")
        s = merged[scol2].to_numpy(dtype=float)
    have_s = s is not None
    if unit == "segments":
        seg = 1.0
    else:
        seg = float(segment_bytes) if segment_bytes else _segment_from_increments(c)
    collapse = 1.5 * seg
    n = len(c)
    states = np.empty(n, dtype=object)
    rows = []
    # skip leading zero windows (ns-3 traces start with "0 0")
    first = int(np.argmax(c > 0)) if np.any(c > 0) else 0
    s0 = s[first] if have_s else np.nan
    state = SLOW_START if (np.isnan(s0) or c[first] < s0) else CONGESTION_AVOIDANCE
    before0 = c[first - 1] if first > 0 else np.nan
    rows.append((t[first], before0, c[first], state, "start"))
    states[: first + 1] = state
    est = np.nan
    # Without ssthresh: a loss that leaves the window at (window before) / 2 + 3 segments is
    # Reno's fast recovery with window inflation (ns-3, BSD): ssthresh is then the window
    # minus 3 segments, the window grows by one segment per duplicate ACK, and its fall back
    # to ssthresh (deflation) is the new ACK that ends the recovery, not another loss.
    inflating = False
    tol = 1e-6 * seg
    for i in range(first + 1, n):
        prev, cur = c[i - 1], c[i]
        si = s[i] if have_s else est
        s_fell = have_s and ((s[i] < s[i - 1]) or (np.isnan(s[i - 1]) and not np.isnan(s[i])))
        new, event = None, None
        if cur < prev:
            if cur <= collapse < prev:
                new, event = SLOW_START, "timeout"
                if not have_s:
                    est = max(prev / 2.0, 2.0 * seg)
            elif state != FAST_RECOVERY and (s_fell or cur <= (1.0 - min_drop) * prev):
                # a loss: ssthresh falls, or the window drops clearly (ssthresh may also stay
                # or rise, e.g. the first loss after a timeout set a low ssthresh)
                new, event = FAST_RECOVERY, "3 duplicate ACKs"
                if not have_s:
                    inflating = cur - 3.0 * seg > 0 and abs(cur - 3.0 * seg - prev / 2.0) <= seg + tol
                    est = cur - 3.0 * seg if inflating else cur
            elif state == FAST_RECOVERY and inflating:
                if cur <= est + 0.5 * seg:  # deflation to ssthresh (or below, by a partial ACK)
                    new, event = CONGESTION_AVOIDANCE, "new ACK"
                    est = cur
            elif state == FAST_RECOVERY and not np.isnan(si) and cur <= si < prev:
                new, event = (CONGESTION_AVOIDANCE if cur >= si else SLOW_START), "new ACK"
        elif cur > prev:
            if state == FAST_RECOVERY and inflating:
                if abs(cur - prev - seg) > tol:  # not one segment per duplicate ACK: no inflation after all
                    est = est + 3.0 * seg  # the window after the loss, as without inflation
                    new, event = (CONGESTION_AVOIDANCE if cur >= est else SLOW_START), "new ACK"
            elif state == FAST_RECOVERY:
                if not np.isnan(si) and prev <= si:
                    new, event = (CONGESTION_AVOIDANCE if cur >= si else SLOW_START), "new ACK"
            elif state == SLOW_START and not np.isnan(si) and cur >= si:
                new, event = CONGESTION_AVOIDANCE, "cwnd >= ssthresh"
        elif inflating:
            # inflation changes the window at every duplicate ACK: a flat sample means none
            inflating = False
            est = est + 3.0 * seg
        elif s_fell and state != FAST_RECOVERY and cur > collapse:
            new, event = FAST_RECOVERY, "3 duplicate ACKs"
        if new is not None and new != FAST_RECOVERY:
            inflating = False
        if event is not None and (new != state or event == "timeout"):
            rows.append((t[i], prev, cur, new, event))
            state = new
        states[i] = state
    transitions = pd.DataFrame(rows, columns=["time_s", "cwnd_before", "cwnd_after", "state", "event"])
    transitions["state"] = transitions["state"].astype("str")
    transitions["event"] = transitions["event"].astype("str")
    return CwndPhases(
        transitions=transitions,
        states=pd.Series(states, index=df.index, name="state", dtype="str"),
        unit=unit,
        segment=seg,
        time=t,
    )


# --------------------------------------------------------------------------------------
# rates and queues


def receive_rate(df: pd.DataFrame, window_s: float, *, step_s: float | None = None, packet_bytes: float | None = None,
                 start_s: float | None = None, end_s: float | None = None) -> pd.DataFrame:
    """Sliding-window receive rate of a packet log, as plotted in seed 004.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per received packet (or per batch of packets) with ``time_s`` and
        ``bytes`` [bytes] (e.g. :func:`read_tshark` at the receiver); or ``packets``
        counts together with *packet_bytes*; or only ``time_s`` with *packet_bytes*.
    window_s : float
        Window length [s] (seed 004 used 1 s).
    step_s : float, optional
        Spacing of the output times [s]; ``window_s / 10`` by default.
    packet_bytes : float, optional
        Size of every packet [bytes] when *df* has no ``bytes`` column.
    start_s, end_s : float, optional
        Time span of the output [s]; by default from the first to the last packet.

    Returns
    -------
    pandas.DataFrame
        ``time_s`` [s] (window ends), ``rate_bps`` [bit/s], ``bytes`` [bytes] and
        ``packets`` received in the window.

    Raises
    ------
    ValueError
        When ``window_s`` or ``step_s`` is not positive, or the needed columns are missing.

    Notes
    -----
    At output time :math:`t`, with :math:`t_0` the start:

    .. math:: r(t) = \\frac{8 \\sum_{t_i \\in [\\max(t - W, t_0),\\, t)} b_i}{t - \\max(t - W, t_0)},

    so the first windows are shorter than *W* (as in seed 004), and rates never count the
    time before the first packet. Output times run from :math:`t_0 + \\Delta` in steps
    :math:`\\Delta` until the last packet is inside a window.

    References
    ----------
    .. [1] Seed report 004 ("Congestion Control Part 2"), section 1.3: receive rate over
       1-second windows moved by 0.1 s.

    Examples
    --------
    >>> pkts = pd.DataFrame({"time_s": np.arange(0, 2, 0.01), "bytes": 1000})
    >>> out = receive_rate(pkts, window_s=0.5, step_s=0.5)
    >>> out[["time_s", "rate_bps", "packets"]]
       time_s  rate_bps  packets
    0     0.5  800000.0       50
    1     1.0  800000.0       50
    2     1.5  800000.0       50
    3     2.0  800000.0       50
    """
    if not window_s > 0:
        raise ValueError(f"window_s: expected a positive duration, got {window_s!r}")
    step = window_s / 10.0 if step_s is None else step_s
    if not step > 0:
        raise ValueError(f"step_s: expected a positive duration, got {step_s!r}")
    if "time_s" not in df.columns:
        raise ValueError("df: missing column 'time_s'")
    for col in ("time_s", "bytes" if packet_bytes is None else "packets"):
        if col in df.columns:
            numeric_column(df, col, "receive_rate")
    frame = df[df["time_s"].notna()].sort_values("time_s", kind="stable")
    t = frame["time_s"].to_numpy(dtype=float)
    if "bytes" in frame.columns and packet_bytes is None:
        unknown = frame["bytes"].isna().to_numpy()
        if df.attrs.get("bytes_partial") and unknown.any():
            # Wireshark's CSV export: the Info column of a TLS or HTTP row shows no TCP length,
            # so a missing value is not 0 bytes (in a tshark export it is: a packet without TCP)
            raise ValueError(f"df: {int(unknown.sum())} row(s) have no 'bytes' (e.g. row {int(np.flatnonzero(unknown)[0])}: "
                             "the Info column of a protocol above TCP shows no length); receive_rate will not count "
                             "them as 0: count whole frames (df.assign(bytes=df['frame_bytes'])), keep the rows with "
                             "a length (df[df['bytes'].notna()]), or export with Wireshark's 'TCP Segment Len' column")
        b = frame["bytes"].fillna(0).to_numpy(dtype=float)
        cnt = np.ones(len(t))
    elif packet_bytes is not None:
        cnt = frame["packets"].to_numpy(dtype=float) if "packets" in frame.columns else np.ones(len(t))
        b = cnt * float(packet_bytes)
    else:
        raise ValueError("df: needs a 'bytes' column, or pass packet_bytes")
    t0 = float(t[0]) if start_s is None and len(t) else float(start_s or 0.0)
    t1 = float(t[-1]) if end_s is None and len(t) else float(end_s if end_s is not None else t0)
    k = int(np.floor((t1 - t0) / step + 1e-9)) + 1
    grid = t0 + step * np.arange(1, k + 1)
    cb = np.concatenate([[0.0], np.cumsum(b)])
    cc = np.concatenate([[0.0], np.cumsum(cnt)])
    lo_t = np.maximum(grid - window_s, t0)
    hi = np.searchsorted(t, grid, side="left")
    lo = np.searchsorted(t, lo_t, side="left")
    nbytes = cb[hi] - cb[lo]
    npk = cc[hi] - cc[lo]
    width = grid - lo_t
    out = pd.DataFrame({"time_s": grid, "rate_bps": 8.0 * nbytes / width, "bytes": nbytes,
                        "packets": np.round(npk).astype(np.int64)})
    return out


def queue_occupancy(df: pd.DataFrame, drops=None) -> pd.DataFrame:
    """Queue occupancy over time with the drops marked (seed 004's queue plot).

    Parameters
    ----------
    df : pandas.DataFrame
        ``time_s`` and ``backlog_packets`` (and/or ``backlog_bytes``): :func:`read_qlen`, or
        :func:`read_tc_qdisc` filtered to one qdisc, whose cumulative ``drops`` counter is
        then used.
    drops : array_like or pandas.DataFrame, optional
        Times of the drops [s] (or a frame with ``time_s``), e.g. from a simulator's drop
        log; each is attributed to the first sample at or after it.

    Returns
    -------
    pandas.DataFrame
        ``time_s`` [s], ``backlog_packets`` / ``backlog_bytes``, ``new_drops`` (drops since
        the previous sample) and ``dropped`` (bool), ready for a step plot with markers.

    Raises
    ------
    ValueError
        When columns are missing or *df* holds several qdiscs.

    Notes
    -----
    With a tc counter the drops of sample *i* are ``drops[i] - drops[i-1]`` (0 for the
    first sample; a counter reset counts as 0).

    References
    ----------
    .. [1] Seed report 004, section 1.2 (queue log and dropped packets); ``tc-s`` counters.

    Examples
    --------
    >>> q = pd.DataFrame({"time_s": [0.0, 0.1, 0.2, 0.3], "backlog_packets": [5, 20, 20, 12],
    ...                   "drops": [0, 0, 3, 3]})
    >>> queue_occupancy(q)
       time_s  backlog_packets  new_drops  dropped
    0     0.0                5          0    False
    1     0.1               20          0    False
    2     0.2               20          3     True
    3     0.3               12          0    False
    """
    if "time_s" not in df.columns:
        raise ValueError("df: missing column 'time_s'")
    cols = [c for c in ("backlog_packets", "backlog_bytes") if c in df.columns]
    if not cols:
        raise ValueError("df: needs 'backlog_packets' or 'backlog_bytes'")
    if {"kind", "handle"} <= set(df.columns):
        keys = df[["dev", "kind", "handle"] if "dev" in df.columns else ["kind", "handle"]].drop_duplicates()
        if len(keys) > 1:
            raise ValueError(f"df: holds {len(keys)} qdiscs; select one, e.g. df[df.kind == 'pfifo']")
    for col in ["time_s"] + cols + (["drops"] if "drops" in df.columns else []):
        numeric_column(df, col, "queue_occupancy")
    frame = df.sort_values("time_s", kind="stable").reset_index(drop=True)
    out = frame[["time_s"] + cols].copy()
    t = out["time_s"].to_numpy(dtype=float)
    if drops is not None:
        dt = drops["time_s"].to_numpy(dtype=float) if isinstance(drops, pd.DataFrame) else np.asarray(drops, dtype=float)
        idx = np.searchsorted(t, dt, side="left")
        idx = idx[idx < len(t)]
        new = np.bincount(idx, minlength=len(t)).astype(np.int64)
    elif "drops" in frame.columns:
        d = frame["drops"].to_numpy(dtype=float)
        new = np.concatenate([[0.0], np.diff(d)])
        new = np.where(np.isnan(new) | (new < 0), 0, new).astype(np.int64)
    else:
        new = np.zeros(len(t), dtype=np.int64)
    out["new_drops"] = new
    out["dropped"] = new > 0
    return out
