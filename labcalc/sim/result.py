"""The result of an ns-3 run: tidy DataFrames in the columns of :mod:`labcalc.measure`, and files.

Every frame uses the column names of labcalc's measurement readers, so that
:func:`labcalc.measure.steady_state`, :func:`labcalc.measure.cwnd_phases` and the
comparison tables work on simulated data as they do on measured data. :meth:`SimResult.write`
writes files that the readers (and a measurement manifest) read back.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from labcalc.measure.analysis import steady_window

__all__ = ["SimResult", "SSTHRESH_UNSET_BYTES", "file_stem", "from_raw"]

#: ns-3's ssthresh before the first loss (UINT32_MAX); at or above 2**31 - 1 it means "unset".
SSTHRESH_UNSET_BYTES = 4294967295


def file_stem(name: str) -> str:
    """The part of a file name that stands for a flow or link name (unsafe characters -> ``_``).

    Parameters
    ----------
    name : str
        A flow or link name.

    Returns
    -------
    str

    Examples
    --------
    >>> file_stem("h1_udp"), file_stem("A->B")
    ('h1_udp', 'A-_B')
    """
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name)


@dataclass
class SimResult:
    """What an ns-3 run gives, in the columns of :mod:`labcalc.measure`.

    Attributes
    ----------
    goodput : pandas.DataFrame
        Per flow and interval, at the receiver: ``flow``, ``start_s``, ``end_s``, ``time_s``
        (= ``end_s``) [s], ``bytes`` (application payload received) [bytes], ``rate_bps``
        [bit/s].
    cwnd : pandas.DataFrame
        TCP flows: ``flow``, ``time_s`` [s], ``cwnd_bytes``, ``ssthresh_bytes`` [bytes]
        (NaN while ns-3's ssthresh is unset), one row per change of either.
    rtt : pandas.DataFrame
        TCP flows: ``flow``, ``time_s`` [s], ``rtt_s`` [s] (ns-3's last RTT sample, per ACK).
    queue : pandas.DataFrame
        Named links: ``link``, ``time_s`` [s], ``backlog_packets`` (in the link's queue
        disc), ``drops`` (cumulative packets dropped by it, as ``tc -s`` counts),
        ``backlog_bytes`` (its IP bytes), ``marks`` (cumulative packets it marked CE).
    summary : pandas.DataFrame
        One row per flow (index ``flow``): ``transport``, ``goodput_bps`` [bit/s] over
        ``window_start_s`` .. ``window_end_s``, chosen as ``window_from`` says:
        ``"steady_state"`` (the window a measurement manifest picks on the flow's
        ``<flow>-goodput.csv`` without ``window_s``: :func:`labcalc.measure.steady_window`)
        or ``"warmup_s"`` (after the warm-up given to ``simulate``), ``sent_packets``,
        ``lost_packets`` (dropped by a queue or the error model), ``loss`` [fraction],
        ``rtt_mean_s`` [s] (TCP, in the window), ``payload_bytes``.
    attrs : dict
        ``ns3_version``, ``seed``, ``duration_s``, ``accounting``, ``options``, ``wall_s``...
    """

    goodput: pd.DataFrame
    cwnd: pd.DataFrame
    rtt: pd.DataFrame
    queue: pd.DataFrame
    summary: pd.DataFrame
    attrs: dict = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """The per-flow summary for a notebook: goodput in Mbit/s, loss in %, RTT in ms.

        Returns
        -------
        pandas.DataFrame
            Index ``flow``; columns ``transport``, ``goodput [Mbit/s]``, ``loss [%]``,
            ``RTT [ms]``, ``sent``, ``lost``.

        Examples
        --------
        >>> s = pd.DataFrame({"transport": ["udp"], "goodput_bps": [4.8e6], "loss": [0.01],
        ...                   "rtt_mean_s": [float("nan")], "sent_packets": [100], "lost_packets": [1]},
        ...                  index=pd.Index(["a"], name="flow"))
        >>> empty = pd.DataFrame()
        >>> SimResult(empty, empty, empty, empty, s).table()
             transport  goodput [Mbit/s]  loss [%]  RTT [ms]  sent  lost
        flow
        a          udp               4.8       1.0       NaN   100     1
        """
        s = self.summary
        return pd.DataFrame({
            "transport": s["transport"],
            "goodput [Mbit/s]": (s["goodput_bps"] / 1e6).round(4),
            "loss [%]": (100 * s["loss"]).round(3),
            "RTT [ms]": (1e3 * s["rtt_mean_s"]).round(2),
            "sent": s["sent_packets"].astype(int),
            "lost": s["lost_packets"].astype(int),
        })

    def write(self, out_dir) -> dict:
        """Write the result as files labcalc's readers read back; return ``{kind: [paths]}``.

        Parameters
        ----------
        out_dir : str or path-like
            Folder to write into (created if missing).

        Returns
        -------
        dict
            ``"goodput"``, ``"cwnd"``, ``"ssthresh"``, ``"rtt"``, ``"queue"``: the per-flow
            (per-link) files; ``"tables"``: the combined CSVs and ``simulation.json``.

        Notes
        -----
        Every file is one of labcalc's own (:mod:`labcalc.measure.tidy`): its first line
        says what it is (``# labcalc samples v1``, ``summary``, ``trace``; the JSON's first
        key ``"labcalc"``) and its second line what a manifest needs beside the table, so that
        :func:`labcalc.measure.read` recognises it and a manifest's ``[[measurement]]`` reads
        the same numbers as this object holds. Per flow ``<flow>-goodput.csv`` (``start_s,
        end_s, time_s, bytes, rate_bps``; the attrs carry the flow's summary as end-of-test
        lines: the receiver's goodput over the steady window and its sent and lost packets,
        so ``metric = "loss"`` reads ``summary.loss``; a UDP flow's sender line gives its
        offered rate); per TCP flow ``<flow>-cwnd.data`` and ``<flow>-ssth.data`` in ns-3's
        trace-sink format ``time old new`` (bytes; ssthresh 4294967295 while unset; the header
        gives the MSS) and ``<flow>-rtt.data`` (``time rtt_s``); per link ``<link>-queue.csv``
        (``time_s, backlog_packets, drops``, ``metric = "queue"``). The combined
        ``goodput.csv``, ``cwnd.csv``, ``rtt.csv``, ``queue.csv`` hold every flow with a
        ``flow`` (``link``) column, and ``summary.csv`` one row per flow: a manifest entry
        naming one of them reads the rows of its own ``flow``. ``simulation.json`` holds
        :attr:`attrs`. No ``.toml`` is written, so the folder can also hold the manifest that
        names these files.

        Examples
        --------
        >>> import tempfile
        >>> empty = pd.DataFrame(columns=["flow", "link"])
        >>> s = pd.DataFrame({"transport": []}, index=pd.Index([], name="flow"))
        >>> sorted(SimResult(empty, empty, empty, empty, s).write(tempfile.mkdtemp()))
        ['cwnd', 'goodput', 'queue', 'rtt', 'ssthresh', 'tables']
        """
        from labcalc.measure.tidy import strict_json, write_tidy, write_trace

        out = Path(os.fspath(out_dir))
        out.mkdir(parents=True, exist_ok=True)
        written = {k: [] for k in ("goodput", "cwnd", "ssthresh", "rtt", "queue", "tables")}
        origin = f"ns-3 {self.attrs.get('ns3_version', '?')}, seed {self.attrs.get('seed', '?')}"
        lines = self._summary_lines()
        base = {"format": "labcalc", "from": origin}
        for name, g in self.goodput.groupby("flow", sort=False) if len(self.goodput) else ():
            p = out / f"{file_stem(name)}-goodput.csv"
            mine = [x for x in lines if x["flow"] == name]
            write_tidy(g[["start_s", "end_s", "time_s", "bytes", "rate_bps"]], p, "samples",
                       {**base, "flow": name, "summary": mine})
            written["goodput"].append(p)
        mss = self.attrs.get("segment_bytes")
        for name, g in self.cwnd.groupby("flow", sort=False) if len(self.cwnd) else ():
            for col, kind, suffix in (("cwnd_bytes", "cwnd", "cwnd"), ("ssthresh_bytes", "ssthresh", "ssth")):
                v = g[col].to_numpy(float)
                v = np.where(np.isnan(v), SSTHRESH_UNSET_BYTES, v).astype(np.int64)
                keep = np.r_[True, v[1:] != v[:-1]]
                old = np.r_[0, v[:-1]][keep]
                p = out / f"{file_stem(name)}-{suffix}.data"
                write_trace(p, [g["time_s"].to_numpy(float)[keep], old, v[keep]],
                            {**base, "format": "ns3", "quantity": kind, "unit": "bytes", "flow": name,
                             **({"mss_bytes": int(mss)} if mss else {})})
                written[kind].append(p)
        for name, g in self.rtt.groupby("flow", sort=False) if len(self.rtt) else ():
            p = out / f"{file_stem(name)}-rtt.data"
            write_trace(p, [g["time_s"].to_numpy(float), g["rtt_s"].to_numpy(float)],
                        {**base, "format": "ns3", "quantity": "rtt", "unit": "s", "flow": name})
            written["rtt"].append(p)
        for name, g in self.queue.groupby("link", sort=False) if len(self.queue) else ():
            p = out / f"{file_stem(name)}-queue.csv"
            write_tidy(g[["time_s", "backlog_packets", "drops"]], p, "samples", {**base, "link": name})
            written["queue"].append(p)
        for kind, df in (("goodput", self.goodput), ("cwnd", self.cwnd), ("rtt", self.rtt), ("queue", self.queue)):
            p = out / f"{kind}.csv"
            extra = {"summary": lines} if kind == "goodput" else {}
            if kind == "cwnd" and mss:
                extra["mss_bytes"] = int(mss)
            write_tidy(df, p, "samples", {**base, **extra})
            written["tables"].append(p)
        p = out / "summary.csv"
        write_tidy(self.summary, p, "summary", {**base, "summary": lines}, index=True)
        written["tables"].append(p)
        p = out / "simulation.json"
        doc = {"labcalc": {"kind": "simulation", "version": 1}, **self.attrs}
        p.write_text(strict_json(doc) + "\n", encoding="utf-8")  # standard JSON: a NaN as null
        written["tables"].append(p)
        return written

    def _summary_lines(self) -> list:
        """The summary as end-of-test lines, one receiver line per flow (and a sender line per UDP flow).

        The receiver's line holds the goodput over the steady window and the packets sent
        and lost over the run (what a manifest's ``stat = "summary"`` and ``metric = "loss"``
        read); a UDP sender's line its offered rate [bit/s] (payload).
        """
        from labcalc.measure.tidy import finite_or_none

        flows = self.attrs.get("flows") or {}
        lines = []
        for name, row in self.summary.iterrows():
            get = row.get
            lines.append({"flow": str(name), "role": "receiver", "rate_bps": _nan(get("goodput_bps")),
                          "start_s": _nan(get("window_start_s")), "end_s": _nan(get("window_end_s")),
                          "packets": _nan(get("sent_packets")), "lost_packets": _nan(get("lost_packets"))})
            offered = finite_or_none((flows.get(name) or {}).get("payload_rate_bps"))
            if get("transport") == "udp" and offered is not None:
                lines.append({"flow": str(name), "role": "sender", "rate_bps": offered,
                              "packets": _nan(get("sent_packets"))})
        return lines


def _nan(x) -> float:
    """A number of the summary as a float (NaN when it is missing)."""
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def from_raw(plan, raw: dict, attrs: dict) -> SimResult:
    """Turn the engine's arrays into a :class:`SimResult` (see :func:`labcalc.sim.simulate`).

    Vectorised over flows (no filtering of a whole frame per flow), so that thousands of
    flows cost what their rows cost.
    """
    names = np.array([f.name for f in plan.flows], dtype=object)
    t = raw["gp_t"]
    start, end = t[:-1], t[1:]
    b = np.diff(raw["gp_bytes"], axis=0)                      # intervals x flows
    f_start = np.array([f.start_s for f in plan.flows], dtype=float)
    f_stop = np.array([f.stop_s for f in plan.flows], dtype=float)
    active = (end[None, :] > f_start[:, None] + 1e-12) & (start[None, :] < f_stop[:, None] - 1e-12)
    fi, ti = np.nonzero(active)                               # flow by flow, in time order
    gb = b[ti, fi]
    goodput = pd.DataFrame({"flow": names[fi], "start_s": start[ti], "end_s": end[ti], "time_s": end[ti],
                            "bytes": gb, "rate_bps": 8 * gb / (end[ti] - start[ti])})
    goodput["bytes"] = goodput["bytes"].astype(np.int64)

    fc, tc, _, nc = raw["cwnd"]
    fs, ts, _, nss = raw["ssth"]
    if len(fc) or len(fs):
        both = pd.concat([pd.DataFrame({"_f": fc.astype(np.int64), "time_s": tc, "cwnd_bytes": nc, "_o": 0}),
                          pd.DataFrame({"_f": fs.astype(np.int64), "time_s": ts, "ssthresh_bytes": nss, "_o": 1})],
                         ignore_index=True)
        both = both.sort_values(["_f", "time_s", "_o"], kind="stable")
        cols = ["cwnd_bytes", "ssthresh_bytes"]
        both[cols] = both.groupby("_f", sort=False)[cols].ffill()
        both = both.dropna(subset=["cwnd_bytes"])
        cwnd = pd.DataFrame({"flow": names[both["_f"].to_numpy()], "time_s": both["time_s"].to_numpy(),
                             "cwnd_bytes": both["cwnd_bytes"].to_numpy(), "ssthresh_bytes": both["ssthresh_bytes"].to_numpy()})
    else:
        cwnd = pd.DataFrame({"flow": [], "time_s": [], "cwnd_bytes": [], "ssthresh_bytes": []})
    cwnd.loc[cwnd["ssthresh_bytes"] >= 2**31 - 1, "ssthresh_bytes"] = np.nan
    cwnd["cwnd_bytes"] = cwnd["cwnd_bytes"].astype(np.int64)

    fr, tr, vr = raw["rtt"]
    rtt = pd.DataFrame({"flow": names[fr.astype(int)] if len(fr) else [], "time_s": tr, "rtt_s": vr})
    rtt = rtt.sort_values(["flow", "time_s"], kind="stable").reset_index(drop=True) if len(rtt) else rtt
    rtt_rows = rtt.groupby("flow", sort=False).indices if len(rtt) else {}
    rtt_t, rtt_v = rtt["time_s"].to_numpy(float), rtt["rtt_s"].to_numpy(float)

    named = [link.name for link in plan.links if not link.private]
    qt = raw["q_t"]
    queue = pd.DataFrame({"link": np.repeat(np.array(named, dtype=object)[None, :], len(qt), 0).T.ravel(),
                          "time_s": np.tile(qt, len(named)),
                          "backlog_packets": raw["q_len"].T.ravel().astype(np.int64),
                          "drops": raw["q_drop"].T.ravel().astype(np.int64),
                          "backlog_bytes": raw["q_bytes"].T.ravel().astype(np.int64),
                          "marks": raw["q_mark"].T.ravel().astype(np.int64)})

    g_start, g_end = goodput["start_s"].to_numpy(float), goodput["end_s"].to_numpy(float)
    g_rate, g_bytes = goodput["rate_bps"].to_numpy(float), goodput["bytes"].to_numpy(np.int64)
    offsets = np.r_[0, np.cumsum(active.sum(axis=1))]
    summ = []
    for j, f in enumerate(plan.flows):
        rows = slice(offsets[j], offsets[j + 1])
        warm = plan.warmup_s[f.name]
        if warm is None:
            # the window a measurement manifest picks on <flow>-goodput.csv: the same rows, one function
            win = steady_window(g_rate[rows], g_start[rows], g_end[rows])
            keep, how = win.mask, win.how
        else:
            w0 = f.start_s + warm
            keep = (g_start[rows] >= w0 - 1e-9) & (g_end[rows] <= f.stop_s + 1e-9)
            how = "warmup_s"
        if keep.any():   # plan() makes sure of it (labcalc.sim.planning._check_window)
            lo, hi = float(g_start[rows][keep].min()), float(g_end[rows][keep].max())
            rate = (float(g_rate[rows][keep].mean()) if warm is None
                    else 8 * float(g_bytes[rows][keep].sum()) / (hi - lo))
        else:
            lo = hi = rate = math.nan
        mean_rtt = math.nan
        if f.name in rtt_rows:
            at = rtt_rows[f.name]
            times = rtt_t[at]
            a, z = np.searchsorted(times, lo, "left"), np.searchsorted(times, hi, "right")
            if z > a:
                mean_rtt = float(rtt_v[at][a:z].mean())
        sent, lost = float(raw["sent"][j]), float(raw["lost"][j])
        summ.append({"flow": f.name, "transport": f.transport, "goodput_bps": rate, "window_start_s": lo,
                     "window_end_s": hi, "window_from": how, "sent_packets": int(sent), "lost_packets": int(lost),
                     "loss": lost / sent if sent else math.nan, "rtt_mean_s": mean_rtt,
                     "payload_bytes": f.payload_bytes})
    summary = pd.DataFrame(summ).set_index("flow")
    for df in (goodput, cwnd, rtt, queue, summary):
        df.attrs.update(source="ns-3", seed=plan.seed)
    return SimResult(goodput, cwnd, rtt, queue, summary, attrs)
