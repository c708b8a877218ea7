"""Series of sampled logs for a manifest: ping, the lab's programs, ss, tcp_probe, tc, and the rest.

Part of :mod:`labcalc.measure.manifest`. Each function returns a
:class:`~labcalc.measure._manifest_window.Series` on the file's own time axis, or raises
:class:`~labcalc.measure._manifest_window.Fail` with what the file lacks:

- ping: times from ``-D``; without them derived from the statistics line (the interval is
  the statistics' time (first ping sent to last sent) over the pings sent minus one, when
  that is a ping interval (evenly spaced pings), and a reply
  comes back at its send time plus its RTT), else icmp_seq numbers, said so in the row;
- the lab's udpclient / udpserver / tcpclient: one interval per printed line; the
  server's running totals become lost/total per interval;
- ss and tcp_probe: one connection (the ``connection`` key, or the one that carried the
  data when the others carried almost nothing), time from the file's first stamp line;
- tc: one qdisc per sample (the ``qdisc`` key, or the root qdisc).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ._common import numeric_column
from ._manifest_window import Fail, Series, num_text

__all__ = ["ping_series", "labtool_series", "sampled_series", "pick_connection", "directed_listing", "DATA_SHARE",
           "BUSY_SEND_Q_BYTES", "RTT_METRICS"]

#: The metrics read from RTT samples: by default their mean, smallest and largest in the window
RTT_METRICS = ("rtt", "rtt_min", "rtt_max")

#: The connection that carried the data is taken when it carried at least this many times
#: the bytes of any other connection of the file (iperf3's control connection: a few
#: hundred bytes beside megabytes), and no other one ever had data waiting to be sent.
DATA_SHARE = 10.0
#: An ss socket whose Send-Q ever held more than this [bytes] is a bulk sender: a second
#: data flow starved to a tenth of the first (59 KB beside 2.4 MB) is a flow, not a control
#: channel (whose Send-Q stays at 0 or 1 byte).
BUSY_SEND_Q_BYTES = 4096
#: A socket that received more than this [bytes] while sending under a tenth of it is the
#: receiving end of a transfer.
RECEIVED_BYTES = 65536


def _with_chosen(s: Series, chosen: list) -> Series:
    s.chosen = chosen  # keys labcalc chose (connection, qdisc): named in the row's defaults
    return s


# --- ping ----------------------------------------------------------------------------------------

def ping_times(df: pd.DataFrame) -> tuple[np.ndarray | None, str]:
    """Reply times [s] from the first reply, and how they were found (or None and why not)."""
    t = df["time_s"].to_numpy(float) if "time_s" in df.columns else np.full(len(df), np.nan)
    if len(t) and np.isfinite(t).all():
        return t - t[0], "ping -D times"
    if df.attrs.get("format") == "ping_windows":
        # one probe a second, but a lost one waits out its timeout (-w, 4 s by default): no clock
        return None, "no times: Windows ping prints none and has no option to"
    summ = df.attrs.get("summary") or {}
    seq = df["seq"].to_numpy(float)
    rtt = df["rtt_s"].to_numpy(float)
    tx, time_s = summ.get("transmitted"), summ.get("time_s", math.nan)
    if not tx or not math.isfinite(time_s):
        return None, "no times: ping without -D, and no statistics line to derive them from"
    if tx < 2 or len(seq) < 2 or np.any(np.diff(seq) <= 0):
        return None, "no times: ping without -D, and its icmp_seq numbers do not count up once"
    # iputils' statistics time runs from the first ping sent to the last one sent (not to the
    # last reply: 10 pings at -i 0.5 whose replies took 281 ms print "time 4503ms"), so the
    # pings sent minus one share it
    interval = time_s / (tx - 1)
    if not interval > 0:
        return None, "no times: ping without -D, and its statistics time is too short to derive the interval"
    if not _even(interval):
        return None, (f"no times: ping without -D, and its pings were not evenly spaced ({int(tx)} pings in "
                      f"{num_text(round(time_s * 1e3, 3))} ms, {num_text(round(interval * 1e3, 1))} ms apart on "
                      "average: no ping interval; ping waits when a send fails on a full queue of its own host)")
    times = (seq - seq[0]) * interval + np.nan_to_num(rtt, nan=0.0) - (0.0 if not np.isfinite(rtt[0]) else rtt[0])
    how = (f"times derived: icmp_seq x {num_text(round(interval * 1e3, 3))} ms (the interval: {int(tx)} pings in "
           f"{num_text(round(time_s * 1e3, 3))} ms from the first sent to the last), plus each reply's RTT")
    return times, how


#: ping's real interval is its -i plus a few ms a ping (204 ms for -i 0.2, 1001 ms for 1 s):
#: at most this fraction of -i, or PING_SLACK_S, more.
PING_SLACK = 0.03
PING_SLACK_S = 0.008


def _even(interval_s: float) -> bool:
    """Whether a mean spacing of pings [s] is a ping interval plus ping's own overhead.

    ``-i`` is a round number (1 s, 0.5, 0.25, 0.2, 0.1, 0.05, 0.01...): a multiple of 50 ms
    from 0.1 s up, of 10 ms below, of 1 ms below 10 ms. ping never sends faster than ``-i``;
    a send that fails (ENOBUFS: the queue of its own host is full) is retried without a
    sequence number, so a run slowed down that way spreads over more time than its pings
    account for (30 pings at -i 0.2 in 7.5 s: 260 ms apart) and its times cannot be derived.
    """
    ms = interval_s * 1e3
    step = 50.0 if ms >= 100 else (10.0 if ms >= 10 else 1.0)
    nominal = math.floor(ms / step + 1e-9) * step
    return nominal > 0 and ms <= nominal + max(PING_SLACK * nominal, PING_SLACK_S * 1e3)


def ping_series(df: pd.DataFrame, metric: str) -> Series:
    d = df[df["rtt_s"].notna()] if "rtt_s" in df.columns else df.iloc[0:0]
    if "dup" in d.columns:
        d = d[~d["dup"].astype(bool)]
    if not len(d):
        summ = df.attrs.get("summary") or {}
        told = (f" ({num_text(summ['transmitted'])} sent, {num_text(summ.get('received', 0))} received)"
                if "transmitted" in summ else "")
        raise Fail("metric", metric, f"this ping file has no reply with a time{told}: nothing answered, so there is "
                                     "no RTT to give; its loss is metric = \"loss\" (the statistics line)"
                                     if told else "this ping file has no reply with a time: nothing answered")
    d = d.copy()
    d.attrs.update(df.attrs)
    times, how = ping_times(d)
    seq = d["seq"].to_numpy(float)
    values = d["rtt_s"].to_numpy(float)
    if times is None:
        s = Series(seq, seq, values, "seq", idle="rtt", seq=seq, notes=[how])
    else:
        s = Series(times, times, values, "s", idle="rtt", seq=seq, notes=[] if how == "ping -D times" else [how])
    return s


# --- the lab's programs ----------------------------------------------------------------------------

def labtool_series(df: pd.DataFrame, entry: dict) -> Series:
    metric = entry["metric"]
    prog = df["program"].astype(str)
    have = sorted(set(prog))
    chosen: list = []
    if metric == "goodput":
        rows = df[prog == "udpserver"]
        side = "receiver"
        if not len(rows):
            rows = df[prog == "tcpclient"]
            side = "sender"
        if not len(rows):
            raise Fail("metric", metric, "udpclient prints what it sent (metric = \"offered_rate\"); the goodput is "
                                         "in udpserver's output (or tcpclient's for TCP)")
        col = "rate_bps"
    elif metric == "offered_rate":
        rows, side, col = df[prog == "udpclient"], "sender", "rate_bps"
        if not len(rows):
            raise Fail("metric", metric, f"the offered rate is udpclient's; this file holds {', '.join(have)}")
    elif metric == "loss":
        rows, side, col = df[prog == "udpserver"], "receiver", "loss"
        if not len(rows):
            raise Fail("metric", metric, f"the loss is udpserver's; this file holds {', '.join(have)}")
    elif metric in RTT_METRICS + ("cwnd",):
        rows, side = df[prog == "tcpclient"], ""
        col = "rtt_s" if metric != "cwnd" else "cwnd_segments"
        if not len(rows):
            raise Fail("metric", metric, f"the {metric} is tcpclient's; this file holds {', '.join(have)}")
    else:
        raise Fail("metric", metric, "the lab's programs print no queue length; tc -s qdisc does")
    t = rows["time_s"].to_numpy(float)
    step = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    step = step if step > 0 else 1.0
    end = t - (t[0] - step)  # the first line covers the first step of the run
    start = end - step
    notes = [] if side != "sender" or metric != "goodput" else ["tcpclient's rate: the sender's (TCP delivers what "
                                                                  "it sends)"]
    if metric == "loss":
        sent = rows["packets_sent"].to_numpy(float)
        lost_cum = sent - rows["packets"].to_numpy(float)
        total = np.diff(sent, prepend=0.0)
        lost = np.diff(lost_cum, prepend=0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(total > 0, lost / total, np.nan)
        s = Series(start, end, values, "interval", lost=lost, total=total, notes=notes)
    else:
        s = Series(start, end, rows[col].to_numpy(float), "interval", notes=notes)
    s.side = side
    return _with_chosen(s, chosen)


def labtool_summary_loss(df: pd.DataFrame) -> tuple[float, float] | None:
    """(lost, total) of udpserver's last line (its running totals: the whole run), or None."""
    rows = df[df["program"].astype(str) == "udpserver"]
    if not len(rows):
        return None
    last = rows.iloc[-1]
    return float(last["packets_sent"] - last["packets"]), float(last["packets_sent"])


# --- connections (ss, tcp_probe) -------------------------------------------------------------------

def _ends(df: pd.DataFrame) -> pd.Series:
    """One key per connection: its two endpoints, in a fixed order."""
    a, b = df["src"].astype(str), df["dst"].astype(str)
    return pd.Series(np.where(a <= b, a + " <-> " + b, b + " <-> " + a), index=df.index)


def pick_connection(df: pd.DataFrame, wanted: str, several: bool = False) -> pd.DataFrame:
    """The rows of one connection: those whose ``src`` or ``dst`` endpoint matches *wanted*
    (with *several*, of every connection it matches)."""
    if "src" not in df.columns or "dst" not in df.columns:
        raise Fail("connection", wanted, f"this {df.attrs.get('format', '?')} file names no connections "
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
        raise Fail("connection", wanted, "no sample of this file belongs to it; the file holds "
                                         + (_listing(df) or "no named connection"))
    out = df[hit]
    out.attrs.update(df.attrs)
    keys = _ends(out)
    if keys.nunique() > 1 and not several:
        raise _matched_several(df, wanted, keys)
    return out


def _matched_several(df: pd.DataFrame, wanted: str, keys: pd.Series) -> Fail:
    """The refusal of a ``connection`` value matching several connections (two flows opposite
    ways to one port, ":5001" being either end of both, or -P streams): their samples would be
    averaged, or one of them kept without a word."""
    return Fail("connection", wanted, f"matches {keys.nunique()} connections of this file: "
                                      f"{directed_listing(df, set(keys))}; name one exactly")


def _named_connection(df: pd.DataFrame, wanted: str, fmt: str) -> tuple[pd.DataFrame, list, list]:
    """The connection *wanted* names in an ss or tcp_probe log. An address or a port often names
    iperf3's control connection too (same peer, same server port): of the connections it
    matches, the one that carried the data is taken by the rule used without the key, and the
    row says so; two that both carried data are refused with the list."""
    hit = pick_connection(df, wanted, several=True)
    keys = _ends(hit)
    if keys.nunique() <= 1:
        return hit, [], []
    try:
        out, notes, _ = _one_connection(hit, fmt)
    except Fail:
        raise _matched_several(df, wanted, keys) from None
    return out, [f"connection = {wanted!r} matched {keys.nunique()} connections; " + notes[0]], []


def directed_listing(df: pd.DataFrame, only: set | None = None) -> str:
    """The connections of a log, each as ``sender -> receiver (N bytes sent)`` with a
    ``connection`` value that names it alone (at most 8, the others counted).

    ss names the local socket first: a socket that received more than it sent is listed
    from its peer (the data came that way). tcp_probe logs both ends of a connection when
    both run on the traced host: the end whose ``snd_una`` advanced furthest sent the data.
    iperf rows name the data sender first already; their bytes are the intervals' sum."""
    df = df[df["src"].notna() & df["dst"].notna()]
    keys = _ends(df)
    every_end = pd.concat([df["src"].astype(str), df["dst"].astype(str)])
    parts, listed = [], [k for k in dict.fromkeys(keys) if only is None or k in only]
    for key in listed[:8]:
        rows = df[keys == key]
        src, dst, sent, how = _direction(rows)
        others = set(every_end[pd.concat([keys != key, keys != key]).to_numpy()])
        name = next((end for end in (dst, src) if end not in others), None)
        named = f"; connection = \"{name}\"" if name else ""
        parts.append(f"{src} -> {dst} ({num_text(sent)} bytes {how}{named})")
    more = len(listed) - len(parts)
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def _direction(rows: pd.DataFrame) -> tuple[str, str, float, str]:
    """(sender, receiver, bytes sent, how they were counted) of one connection's rows."""
    src, dst = str(rows["src"].iloc[0]), str(rows["dst"].iloc[0])
    fmt = rows.attrs.get("format")
    if fmt == "tcp_probe" and "snd_una" in rows.columns:
        by_end = _acked(rows, rows["src"].astype(str))
        sender = str(by_end.idxmax()) if len(by_end) else src
        receiver = str(rows.loc[rows["src"].astype(str) == sender, "dst"].iloc[0])
        return sender, receiver, float(by_end.max()) if len(by_end) else 0.0, "acknowledged"
    if fmt == "ss":
        sent = max((float(rows[c].max()) for c in ("bytes_sent", "bytes_acked")
                    if c in rows.columns and rows[c].notna().any()), default=0.0)
        got = float(rows["bytes_received"].max()) if "bytes_received" in rows.columns and \
            rows["bytes_received"].notna().any() else 0.0
        return (dst, src, got, "received here") if got > sent else (src, dst, sent, "sent")
    total = float(pd.to_numeric(rows["bytes"], errors="coerce").sum()) if "bytes" in rows.columns else 0.0
    return src, dst, total, "sent"


def _acked(df: pd.DataFrame, by: pd.Series) -> pd.Series:
    """Bytes acknowledged per group of samples: the advance of ``snd_una`` (modulo 2**32)."""
    out = {}
    for key, rows in df.groupby(by, sort=False):
        una = rows["snd_una"].to_numpy(float)
        steps = np.mod(np.diff(una[np.isfinite(una)]), 2.0**32)
        out[key] = float(steps[steps < 2.0**31].sum())
    return pd.Series(out)


_COUNTERS = ("bytes_acked", "bytes_sent", "bytes_received")


def _carried(df: pd.DataFrame) -> pd.Series | None:
    """Bytes each connection carried, either way (its largest counter), or None when the file
    counts none. The receiving end of a transfer acknowledges nothing (no bytes_acked) but
    counts bytes_received: its data connection must not rank below the control connection."""
    cols = [c for c in _COUNTERS if c in df.columns and df[c].notna().any()]
    if cols:
        return df.groupby(_ends(df))[cols].max().max(axis=1).fillna(0.0)
    if df.attrs.get("format") == "tcp_probe" and "snd_una" in df.columns:
        # per end: a trace of both ends holds two sequence spaces under one connection
        keys = _ends(df)
        per_end = _acked(df, keys + " | " + df["src"].astype(str))
        return per_end.groupby([k.split(" | ")[0] for k in per_end.index]).max()
    return None


def _receives(got, sent):
    """Whether a socket (or each of a Series of sockets) is the receiving end of a transfer:
    it received more than RECEIVED_BYTES and sent under a DATA_SHARE-th of it."""
    return (got > RECEIVED_BYTES) & (sent * DATA_SHARE < got)


def _without_receivers(df: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """An ss log of a host that sends one flow and receives another: the receiving sockets
    (bytes received, next to nothing sent) have no window or RTT of a flow, so they are left
    out of the choice of a connection for a cwnd or an RTT, when a socket that sent a flow
    remains (on an iperf3 server only its control connection would: that log is refused)."""
    if "bytes_received" not in df.columns or "src" not in df.columns:
        return df, []
    keys = _ends(df)
    got = df.groupby(keys)["bytes_received"].max().fillna(0.0)
    sent_cols = [c for c in ("bytes_acked", "bytes_sent") if c in df.columns and df[c].notna().any()]
    sent = df.groupby(keys)[sent_cols].max().max(axis=1).fillna(0.0) if sent_cols else got * 0.0
    receiving = set(got.index[_receives(got, sent)])
    senders = set(sent.index[sent > RECEIVED_BYTES]) - receiving   # a flow, not iperf3's control connection
    if not receiving or not senders:
        return df, []
    out = df[~keys.isin(receiving)]
    out.attrs.update(df.attrs)
    return out, [f"left out {len(receiving)} socket(s) that received a flow and sent none "
                 f"({', '.join(sorted(receiving)[:3])}): they have no window or RTT of a flow"]


def _receiving_end(df: pd.DataFrame, fmt: str, metric: str) -> None:
    """Refuse a window or RTT of an ss log taken where the data arrived: a receiving socket
    sends no data, so its cwnd stays at its initial value and its rtt is the handshake's."""
    if fmt != "ss" or metric not in RTT_METRICS + ("cwnd",):
        return
    got = df["bytes_received"].max() if "bytes_received" in df.columns else np.nan
    sent = max((df[c].max() for c in ("bytes_acked", "bytes_sent") if c in df.columns and df[c].notna().any()),
               default=0.0)
    if np.isfinite(got) and _receives(got, sent):
        raise Fail("file", "(ss)", f"this ss log shows the receiving end of its connection ({num_text(got)} bytes "
                                   f"received, {num_text(sent)} sent): the {metric} there is the receiver's own, "
                                   "not the flow's; run the ss loop on the sending host (the iperf client, or the "
                                   "server with -R)")


def _listing(df: pd.DataFrame) -> str:
    df = df[df["src"].notna() & df["dst"].notna()]  # an iperf [SUM] line names no connection
    keys = _ends(df)
    carried = _carried(df)
    parts = []
    for key in list(dict.fromkeys(keys))[:8]:
        extra = f" ({num_text(carried[key])} bytes carried)" if carried is not None else ""
        parts.append(f"{key}{extra}")
    more = keys.nunique() - len(parts)
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def _one_connection(df: pd.DataFrame, fmt: str) -> tuple[pd.DataFrame, list, list]:
    keys = _ends(df)
    if keys.nunique() <= 1:
        return df, [], []
    carried = _carried(df)
    if carried is not None:
        ranked = carried.sort_values(ascending=False)
        top, second = float(ranked.iloc[0]), float(ranked.iloc[1])
        busy = 0
        if "send_q_bytes" in df.columns and df["send_q_bytes"].notna().any():
            busy = int((df.groupby(keys)["send_q_bytes"].max().fillna(0.0) > BUSY_SEND_Q_BYTES).sum())
        if top > 0 and top >= DATA_SHARE * second and busy <= 1:
            key = ranked.index[0]
            out = df[keys == key]
            out.attrs.update(df.attrs)
            note = (f"connection {key}: the one that carried the data ({num_text(top)} bytes; the file holds "
                    f"{len(ranked)} connections, the others at most {num_text(second)} bytes)")
            return out, [note], ["connection"]
    raise Fail("connection", "(none)", f"this {fmt} file holds {keys.nunique()} connections: {_listing(df)}; "
                                       "name one with connection = \"ip:port\" (or \":port\")")


def _data_direction(df: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """tcp_probe logs both ends of a connection: keep the samples of the socket that sent the
    data (its ``snd_una`` advances by the bytes acknowledged; the other end's barely moves)."""
    if df.attrs.get("format") != "tcp_probe" or "snd_una" not in df.columns:
        return df, []
    by = _acked(df, df["src"].astype(str))
    if len(by) < 2 or by.max() <= 0:
        return df, []
    sender = by.idxmax()
    out = df[df["src"].astype(str) == sender]
    out.attrs.update(df.attrs)
    return out, [f"the data sender's samples (src {sender}); the acknowledging end's are left out"]


# --- tc qdiscs -------------------------------------------------------------------------------------------

def _qdisc_names(df: pd.DataFrame) -> pd.Series:
    dev = df["dev"].astype(str)
    return (dev + " ").where(dev != "", "") + df["kind"].astype(str) + " " + df["handle"].astype(str)


def _one_qdisc(df: pd.DataFrame, wanted: str | None) -> tuple[pd.DataFrame, list, list]:
    if "object" in df.columns and (df["object"] == "qdisc").any():
        df = df[df["object"] == "qdisc"]
    names = _qdisc_names(df)
    if wanted is not None:
        w = wanted.strip()
        ids = {"root": df["parent"].astype(str) == "root"}
        hit = ((df["kind"].astype(str) == w) | (df["handle"].astype(str) == w) | (df["dev"].astype(str) == w)
               | ((df["kind"].astype(str) + " " + df["handle"].astype(str)) == w)
               | ((df["dev"].astype(str) + " " + df["handle"].astype(str)) == w) | ids.get(w, False))
        picked = names[hit]
        if not len(picked):
            raise Fail("qdisc", wanted, f"no qdisc of this file matches; it holds {', '.join(dict.fromkeys(names))}")
        if picked.nunique() > 1:
            raise Fail("qdisc", wanted, f"matches {picked.nunique()} qdiscs ({', '.join(dict.fromkeys(picked))}); "
                                        "name one by its handle (\"10:\") or \"dev handle\"")
        return df[hit], [], []
    if names.nunique() <= 1:
        return df, [], []
    roots = names[df["parent"].astype(str) == "root"]
    if roots.nunique() == 1:
        name = roots.iloc[0]
        note = (f"qdisc {name.strip()} (the root: its backlog counts every packet queued on the device; the file "
                f"holds {names.nunique()} qdiscs per sample: {', '.join(dict.fromkeys(names))})")
        return df[names == name], [note], ["qdisc"]
    raise Fail("qdisc", "(none)", f"this file holds {names.nunique()} qdiscs per sample "
                                  f"({', '.join(list(dict.fromkeys(names))[:8])}); name one with qdisc = "
                                  "\"<handle>\" (e.g. \"10:\") or its kind")


# --- any other sampled log -------------------------------------------------------------------------------

#: Packet captures: tshark -T fields and Wireshark's CSV export.
_CAPTURES = ("tshark", "wireshark_csv")
_COLUMN = {"goodput": "rate_bps", "loss": "loss", "rtt": "rtt_s", "rtt_min": "rtt_s", "rtt_max": "rtt_s",
           "queue": "backlog_packets"}


def sampled_series(df: pd.DataFrame, entry: dict, fmt: str) -> Series:
    metric = entry["metric"]
    notes, chosen = [], []
    origin = df.attrs.get("time_origin_s")
    if fmt in ("ss", "tcp_probe") and "src" in df.columns:
        if "connection" in entry:
            df, more, keys = _named_connection(df, entry["connection"], fmt)
            notes += more
            chosen += keys
        else:
            if fmt == "ss" and metric in RTT_METRICS + ("cwnd",):
                df, more = _without_receivers(df)
                notes += more
            df, more, keys = _one_connection(df, fmt)
            notes += more
            chosen += keys
        df, more = _data_direction(df)
        notes += more
        _receiving_end(df, fmt, metric)
    elif "connection" in entry:
        df = pick_connection(df, entry["connection"])
    elif fmt in _CAPTURES and {"src", "dst"} <= set(df.columns):
        # a capture's RTT samples of several connections would be averaged together
        col = _COLUMN.get(metric, "")
        held = df[df[col].notna()] if col in df.columns else df
        held = held[held["src"].notna() & held["dst"].notna()]
        if _ends(held).nunique() > 1:
            raise Fail("connection", "(none)", f"this {fmt} capture holds {_ends(held).nunique()} connections with "
                                               f"{metric} samples: {directed_listing(held)}; name one with connection")
    if fmt in _CAPTURES and metric not in RTT_METRICS:
        raise Fail("metric", metric, f"a packet capture ({fmt}) gives rtt, rtt_min and rtt_max here (tshark's "
                                     "tcp.analysis.ack_rtt); take a goodput or a loss from the receiving tool's "
                                     "printout (iperf's server, ping's statistics)")
    if fmt == "tc_qdisc" and {"kind", "handle", "dev", "parent"} <= set(df.columns):
        if metric != "queue":
            raise Fail("metric", metric, "a tc file gives the queue (metric = \"queue\") only")
        df, more, keys = _one_qdisc(df, entry.get("qdisc"))
        notes += more
        chosen += keys
    elif "qdisc" in entry:
        raise Fail("qdisc", entry["qdisc"], f"qdisc picks one qdisc of a tc -s qdisc file; this is a {fmt} file")
    col = _COLUMN.get(metric) or ("cwnd_segments" if "cwnd_segments" in df.columns else "cwnd_bytes")
    lost = total = None
    why = f"the manifest's {metric} metric"  # numeric_column: a column a reader kept as text is refused by name
    if metric == "loss" and {"lost_packets", "packets"} <= set(df.columns) and df["lost_packets"].notna().any():
        d = df[df["packets"].notna()]
        lost, total = d["lost_packets"].to_numpy(float), d["packets"].to_numpy(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(total > 0, lost / total, np.nan)
    else:
        if col not in df.columns or df[col].notna().sum() == 0:
            have = [c for c in ("rate_bps", "loss", "rtt_s", "cwnd_segments", "cwnd_bytes", "backlog_packets")
                    if c in df.columns]
            if fmt in _CAPTURES:
                raise Fail("metric", metric, f"this {fmt} capture has no RTT column: export the ACKs' RTT "
                                             "(tshark -e tcp.analysis.ack_rtt; in Wireshark, 'Apply as Column' on "
                                             "[SEQ/ACK analysis] > The RTT to ACK the segment was)")
            has = f"it has {', '.join(have)}" if have else "it has none of a measurement's columns"
            raise Fail("metric", metric, f"this {fmt} file has no {col} column ({has}); is it the right file?")
        d = df[df[col].notna()]
        values = numeric_column(d, col, why)
    if "time_s" in d.columns and d["time_s"].notna().all() and len(d):
        t = numeric_column(d, "time_s", why)
        if origin is None or not math.isfinite(origin) or origin > t[0]:
            origin = float(df["time_s"].min()) if df["time_s"].notna().any() else t[0]
            from_what = "its first sample"
        else:
            from_what = "its first stamp line"
        t = t - origin
        kind = "s"
        if fmt in ("ss",) and from_what == "its first stamp line" and t[0] > 0:
            notes.append(f"time from the file's first stamp line (its first socket at {num_text(round(t[0], 3))} s)")
    elif "seq" in d.columns:
        t, kind = numeric_column(d, "seq", why), "seq"
    else:
        t, kind = np.arange(len(d), dtype=float), "sample"
    idle = "queue" if metric == "queue" else None
    s = Series(t, t, values, kind, lost=lost, total=total, idle=idle, notes=notes)
    return _with_chosen(s, chosen)
