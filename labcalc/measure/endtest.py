"""Which end of a test measured what: the end-of-test figures and per-interval rows of iperf printouts.

An iperf printout holds numbers measured at two ends. The per-interval lines were measured
by the end that printed the file (the client sends unless ``-R``), except the server's own
lines that ``--get-server-output`` appends; the end-of-test lines name their end (iperf3's
``sender`` / ``receiver``, iperf 2's client summary and its ``Server Report``, the JSON
``end.sum_sent`` / ``end.sum_received``). :func:`end_of_test` turns every such line of a
frame read by :func:`labcalc.measure.read_iperf` or :func:`labcalc.measure.read_iperf3`
into one record with the same keys, whatever the tool, version or output style;
:func:`interval_end` says which end measured the per-interval rows, and
:func:`server_intervals` gives the server's own rows of ``--get-server-output``.
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["end_of_test", "interval_end", "server_intervals", "is_udp", "FIGURE_KEYS", "RATE_MISMATCH"]

#: Keys of every end-of-test record (NaN where the line does not give the number).
FIGURE_KEYS = ("end", "stream", "start_s", "end_s", "bytes", "rate_bps", "lost_packets", "packets",
               "rtt_s", "rtt_min_s", "line")

_ROLE_END = {"sender": "sender", "receiver": "receiver", "sum_sent": "sender", "sum_received": "receiver"}


def _num(row: dict, key: str) -> float:
    v = row.get(key)
    try:
        v = float(v)
    except (TypeError, ValueError):
        return math.nan
    return v if math.isfinite(v) else math.nan


def _figure(row: dict, end: str, line: str, **override) -> dict:
    fig = {k: _num(row, k) for k in FIGURE_KEYS if k not in ("end", "stream", "line")}
    fig.update(end=end, stream=str(row.get("stream", "")), line=line)
    fig.update(override)
    return fig


def _placeholder(fig: dict) -> bool:
    """A line iperf3 prints for the end it did not measure: nothing counted (0 bytes, 0 bit/s)."""
    return fig["bytes"] == 0 and fig["rate_bps"] == 0


def _from_json(summary: list, side: str | None, source: str) -> list[dict]:
    """Records of an iperf3 JSON ``end`` block (roles as :mod:`labcalc.measure.iperf3_json` names them)."""
    roles = {s.get("role") for s in summary}
    out = []
    has_sums = bool(roles & {"sum_sent", "sum_received"})
    for s in summary:
        role = s.get("role")
        if role in ("sum_sent", "sum_received"):
            fig = _figure(s, _ROLE_END[role], f"{source}end.{role}")
            if role == "sum_sent":
                fig["lost_packets"] = math.nan  # the sender counts no loss (iperf3 writes 0)
            out.append(fig)
        elif role in ("sender", "receiver"):  # per stream (TCP); the sender's carries its RTTs
            out.append(_figure(s, role, f"{source}end.streams[].{role}"))
        elif role == "sum" and not has_sums:
            # iperf3 before 3.1 (UDP): one block per test. On the client, bytes and rate are
            # what it sent, lost/total the receiver's counts sent back at the end; on the
            # server, all of it is what arrived.
            if side == "server":
                out.append(_figure(s, "receiver", f"{source}end.sum"))
            elif side == "client":
                out.append(_figure(s, "sender", f"{source}end.sum", lost_packets=math.nan))
                out.append(_figure(s, "receiver", f"{source}end.sum (lost/total only)", bytes=math.nan,
                                   rate_bps=math.nan, start_s=math.nan, end_s=math.nan))
    return out


def _from_text3(summary: list, source: str, side: str | None = None) -> list[dict]:
    out = []
    for s in summary:
        role = s.get("role")
        if role == "sender":  # its Lost/Total reads 0/N: the sender counts no loss
            out.append(_figure(s, role, f"{source}sender's end-of-test line", lost_packets=math.nan))
        elif role == "receiver":
            out.append(_figure(s, role, f"{source}receiver's end-of-test line"))
        elif role == "summary" and "lost_packets" in s:
            # iperf3 before 3.2 (UDP) prints one end-of-test line without sender/receiver, as
            # its JSON's end.sum: on the client the bytes it sent with the receiver's lost/total
            # sent back at the end; on the server what arrived
            if side == "server":
                out.append(_figure(s, "receiver", f"{source}server's end-of-test line"))
            elif side == "client":
                out.append(_figure(s, "sender", f"{source}client's end-of-test line", lost_packets=math.nan))
                out.append(_figure(s, "receiver", f"{source}client's end-of-test line (the receiver's lost/total only)",
                                   bytes=math.nan, rate_bps=math.nan, start_s=math.nan, end_s=math.nan))
    return out


def _from_iperf2(df: pd.DataFrame, summary: list) -> list[dict]:
    side = df.attrs.get("side")
    local = {"client": "sender", "server": "receiver"}.get(side)
    name = df.attrs.get("end_name") or side  # a manifest's view of one end: "receiver", "sender"
    out = []
    have_local = set()
    for s in summary:
        # the end that printed a line: the reader's printed_by per connection (an iperf 2.1 client
        # of --reverse receives), else the side of the file
        end = s.get("printed_by") if s.get("printed_by") in ("sender", "receiver") else local
        if s.get("role") == "server report":
            out.append(_figure(s, "receiver", "Server Report (the receiver's end-of-test line)"))
        elif end is not None:
            out.append(_figure(s, end, f"{name if end == local else end}'s end-of-test line"))
            have_local.add(str(s.get("stream")))
    if len(df) and {"stream", "start_s", "end_s"} <= set(df.columns):
        # without -i, a stream's only line is its whole-test line (a row of the frame)
        for stream, rows in df.groupby(df["stream"].astype(str), sort=False):
            if stream in have_local or len(rows) != 1 or float(rows["start_s"].iloc[0]) != 0.0:
                continue
            if "omitted" in rows.columns and bool(rows["omitted"].iloc[0]):
                continue
            row = rows.iloc[0].to_dict()
            end = row.get("printed_by") if row.get("printed_by") in ("sender", "receiver") else local
            if end is not None:
                out.append(_figure(row, end, f"{name if end == local else end}'s end-of-test line (its only line)"))
    return out


def end_of_test(df: pd.DataFrame) -> list[dict]:
    """Every end-of-test figure of an iperf printout, named by the end that measured it.

    Parameters
    ----------
    df : pandas.DataFrame
        A frame read by :func:`labcalc.measure.read_iperf` or
        :func:`labcalc.measure.read_iperf3` (text or JSON), with its ``attrs``.

    Returns
    -------
    list of dict
        One dict per figure with the keys of :data:`FIGURE_KEYS`: ``end`` (``"sender"`` or
        ``"receiver"``), ``stream`` (iperf's ID or ``"SUM"``), ``start_s``, ``end_s`` [s],
        ``bytes`` [bytes], ``rate_bps`` [bit/s], ``lost_packets``, ``packets`` (UDP; the
        receiver's counts), ``rtt_s``, ``rtt_min_s`` [s] (iperf3 JSON: the sender's mean
        and smallest RTT), and ``line`` (which line of the file it is). Numbers the line
        does not give are NaN. The lines iperf3 prints for the end it did not measure (0
        bytes at 0 bit/s) are left out. A line whose rate is unknown keeps its lost/total
        with NaN bytes and rate, and says why in ``line``: a receiver's 0 bytes at 0 bit/s
        beside datagrams received (iperf 3.7's UDP server JSON), or a rate that its bytes
        over its interval contradict by more than :data:`RATE_MISMATCH`. With
        ``--get-server-output`` the server's own end-of-test lines follow, their ``line``
        starting with ``"server output: "``.

    Notes
    -----
    Where each figure comes from:

    ========================  ==================================================================
    iperf3 text               the ``sender`` and ``receiver`` lines, as labelled (also with
                              ``-R``: the labels follow the data, not the client)
    iperf3 JSON               ``end.sum_sent`` (sender) and ``end.sum_received`` (receiver);
                              without them ``end.streams[].sender`` / ``.receiver``, or the
                              UDP ``end.sum`` of iperf3 before 3.1 (on the client: the
                              sender's bytes and rate, the receiver's lost/total)
    iperf 2 client            its summary line (sender); the ``Server Report:`` block, or the
                              14-field line of ``-y C`` (receiver, lost/total for UDP)
    iperf 2 server            its summary line (receiver); without ``-i`` its only line
    ========================  ==================================================================

    A file of ``-d`` / ``-r`` (``attrs["side"] == "dual"``) or a CSV that does not say which
    end printed it gives only its ``Server Report`` lines.

    References
    ----------
    .. [1] iperf3 manual, https://software.es.net/iperf/invoking.html (``-J``, ``-R``,
       ``--get-server-output``); iperf 2 manual, https://iperf2.sourceforge.io/iperf-manpage.html.

    Examples
    --------
    >>> from labcalc.measure import read_iperf
    >>> text = '''Client connecting to 10.0.0.2, UDP port 5001
    ... [  1] local 10.0.0.1 port 40000 connected with 10.0.0.2 port 5001
    ... [  1] 0.0000-4.0025 sec  4.01 MBytes  8.39 Mbits/sec
    ... [  1] Sent 2858 datagrams
    ... [  1] Server Report:
    ... [  1] 0.0000-4.0737 sec  2.36 MBytes  4.87 Mbits/sec   0.541 ms 1171/2857 (41%)
    ... '''
    >>> [(f["end"], f["rate_bps"], f["lost_packets"], f["packets"]) for f in end_of_test(read_iperf(text))]
    [('receiver', 4870000.0, 1171.0, 2857.0), ('sender', 8390000.0, nan, nan)]
    """
    fmt = df.attrs.get("format")
    summary = [s for s in (df.attrs.get("summary") or []) if isinstance(s, dict)]
    if fmt == "iperf":
        figures = _from_iperf2(df, summary)
    elif fmt == "iperf3":
        json_roles = {"sum_sent", "sum_received", "sum", "udp"}
        if any(s.get("role") in json_roles for s in summary):
            figures = _from_json(summary, df.attrs.get("side"), "")
        else:
            figures = _from_text3(summary, "", df.attrs.get("side"))
        so = df.attrs.get("server_output") or {}
        so_summary = [s for s in (so.get("summary") or []) if isinstance(s, dict)]
        if any(s.get("role") in json_roles for s in so_summary):
            figures += _from_json(so_summary, "server", "server output: ")
        else:
            figures += _from_text3(so_summary, "server output: ", "server")
    else:
        return []
    for f in figures:
        why = _unrated(f)
        if why:  # its lost/total still count; its rate is unknown, not 0 (or 1 Mbit/s)
            f.update(bytes=math.nan, rate_bps=math.nan, line=f"{f['line']} (no rate: {why})")
    ends = {f["end"] for f in figures if not _placeholder(f)}
    return [f for f in figures if not (_placeholder(f) and len(ends) > 0)]


#: An end-of-test line whose rate and whose bytes over its interval disagree by more than
#: this fraction contradicts itself (both are printed to 3 significant digits).
RATE_MISMATCH = 0.10


def _unrated(fig: dict) -> str | None:
    """Why the rate of an end-of-test figure is unknown, or None: a receiver's 0 bytes at
    0 bit/s beside datagrams received (iperf 3.7's UDP server JSON), or a rate its own bytes
    and interval contradict ("0.00-30.01 sec 49.2 MBytes 1 Mbits/sec": 13.75 Mbit/s)."""
    b, r, t0, t1 = fig["bytes"], fig["rate_bps"], fig["start_s"], fig["end_s"]
    got = fig["packets"] - (fig["lost_packets"] if math.isfinite(fig["lost_packets"]) else 0.0)
    if fig["end"] == "receiver" and b == 0 and r == 0 and math.isfinite(got) and got > 0:
        return f"0 bytes at 0 bit/s beside {got:.0f} datagrams received"
    if all(math.isfinite(x) for x in (b, r, t0, t1)) and b > 0 and r > 0 and t1 > t0:
        implied = 8.0 * b / (t1 - t0)
        if abs(implied - r) > RATE_MISMATCH * max(implied, r):
            return f"{r:.4g} bit/s printed, {implied:.4g} bit/s from its bytes over {t1 - t0:.4g} s"
    return None


def interval_end(df: pd.DataFrame) -> str | None:
    """Which end measured the per-interval rows of an iperf printout: ``"sender"``, ``"receiver"`` or None.

    Parameters
    ----------
    df : pandas.DataFrame
        A frame read by :func:`labcalc.measure.read_iperf` or :func:`labcalc.measure.read_iperf3`
        (or :func:`server_intervals`).

    Returns
    -------
    str or None
        The end, or None when the file does not tell (an iperf 2 ``-d`` / ``-r`` file, a
        TCP CSV of iperf 2 without ``-e``).

    Notes
    -----
    The columns decide first, because only one end can measure them: lost/total
    datagrams, jitter or reads (receiver); retransmits, the congestion window, the RTT
    or writes (sender); iperf3's UDP ``Total Datagrams`` alone (sender). Then iperf 2's
    ``printed_by`` column (which end of its connection printed each row, from the connected
    lines), when all rows say the same. Otherwise the side that printed the file decides:
    the client sends, the server receives, and ``-R`` swaps them (an iperf3 server does not
    print ``Reverse mode``: its columns tell).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"start_s": [0.0], "end_s": [1.0], "rate_bps": [4.8e6],
    ...                      "lost_packets": [221.0], "packets": [642.0]})
    >>> rows.attrs.update(format="iperf3", side="client", reverse=False)
    >>> interval_end(rows)
    'receiver'
    """

    def has(col):
        return col in df.columns and bool(pd.to_numeric(df[col], errors="coerce").notna().any())

    if has("lost_packets") or has("jitter_s") or has("reads"):
        return "receiver"
    if has("retransmits") or has("cwnd_bytes") or has("cwnd_segments") or has("writes") or has("rtt_s"):
        return "sender"
    if df.attrs.get("format") == "iperf3" and has("packets"):
        return "sender"  # iperf3's UDP sender prints "Total Datagrams" only
    if "printed_by" in df.columns:  # iperf 2: the reader's word per connection (--reverse, -d, -r)
        ends = set(df["printed_by"].dropna().astype(str)) & {"sender", "receiver"}
        if len(ends) == 1:
            return ends.pop()
    side = df.attrs.get("side")
    reverse = bool(df.attrs.get("reverse", False))
    if side == "client":
        return "receiver" if reverse else "sender"
    if side == "server":
        return "sender" if reverse else "receiver"
    return None


def server_intervals(df: pd.DataFrame) -> pd.DataFrame | None:
    """The server's own per-interval rows of an iperf3 client run with ``--get-server-output``.

    Parameters
    ----------
    df : pandas.DataFrame
        A frame read by :func:`labcalc.measure.read_iperf3`.

    Returns
    -------
    pandas.DataFrame or None
        The rows of ``attrs["server_output"]["intervals"]`` in the reader's columns, with
        ``attrs`` saying ``side = "server"`` (and the run's ``reverse``); None when the
        file holds no server output.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"start_s": [0.0], "end_s": [1.0]})
    >>> df.attrs.update(format="iperf3", server_output={"intervals": [
    ...     {"stream": "5", "start_s": 0.0, "end_s": 1.0, "rate_bps": 4.88e6, "lost_packets": 221.0,
    ...      "packets": 642.0}], "summary": []})
    >>> server_intervals(df)[["rate_bps", "lost_packets", "packets"]]
        rate_bps  lost_packets  packets
    0  4880000.0         221.0    642.0
    """
    so = df.attrs.get("server_output") or {}
    rows = [r for r in (so.get("intervals") or []) if isinstance(r, dict)]
    if not rows:
        return None
    out = pd.DataFrame(rows)
    for col in ("start_s", "end_s", "rate_bps", "bytes", "lost_packets", "packets", "jitter_s", "loss"):
        if col in out.columns:
            out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    if "stream" in out.columns:
        out["stream"] = out["stream"].astype(str)
    out.attrs.update(format=df.attrs.get("format"), side="server", reverse=bool(df.attrs.get("reverse", False)),
                     source=df.attrs.get("source"))
    return out


def is_udp(df: pd.DataFrame) -> bool | None:
    """Whether an iperf printout shows a UDP test: True, False (TCP) or None (it does not say).

    Parameters
    ----------
    df : pandas.DataFrame
        A frame read by :func:`labcalc.measure.read_iperf` or :func:`labcalc.measure.read_iperf3`.

    Returns
    -------
    bool or None
        True when the file names UDP (``attrs["protocol"]``) or holds datagram counts or
        jitter; False when it names TCP or holds TCP's retransmits or window (in its rows,
        its end-of-test lines or the server's output of ``--get-server-output``); None
        otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"packets": [690.0]})
    >>> is_udp(df), is_udp(pd.DataFrame({"retransmits": [0.0]}))
    (True, False)
    """
    proto = str(df.attrs.get("protocol") or "").upper()
    if proto in ("UDP", "TCP"):
        return proto == "UDP"
    cols = set(df.columns)
    for col in ("packets", "lost_packets", "jitter_s"):
        if col in cols and pd.to_numeric(df[col], errors="coerce").notna().any():
            return True
    so = df.attrs.get("server_output") or {}
    lines = [s for part in (df.attrs.get("summary"), so.get("summary"), so.get("intervals")) for s in (part or [])
             if isinstance(s, dict)]
    if any("packets" in s for s in lines):
        return True
    for col in ("retransmits", "cwnd_bytes", "cwnd_segments"):
        if col in cols and pd.to_numeric(df[col], errors="coerce").notna().any():
            return False
    # a TCP receiver's file (-R, or a server) counts no retransmits itself, but its
    # end-of-test sender line and --get-server-output's lines do
    if any(s.get(k) is not None for s in lines for k in ("retransmits", "cwnd_bytes")):
        return False
    return None
