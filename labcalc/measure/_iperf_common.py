"""Shared parts of the iperf 2 and iperf3 readers: report-line patterns, unit factors and
the assembly of rows into a frame (see :mod:`labcalc.measure.iperf2` and :mod:`labcalc.measure.iperf3`)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from ._common import BIN, DEC

FORMAT2 = "iperf"
EXPECTED2 = (
    "iperf 2 output: report lines '[ ID] <t0>-<t1> sec <n> <K|M|G>Bytes <r> <k|M|G>bits/sec [...]' "
    "or the CSV of 'iperf -y C'"
)
FORMAT3 = "iperf3"
EXPECTED3 = (
    "iperf3 output: text report lines '[ ID] <t0>-<t1> sec <n> <K|M|G>Bytes <r> <K|M|G>bits/sec [...]' "
    "or the JSON document of 'iperf3 --json'"
)

_NUM = r"\d+(?:\.\d+)?"
# "[  3]", "[SUM]", "[SUM-4]", "[  5][TX-C]", "[ *1]" followed by the interval
REPORT = re.compile(
    r"\[\s*(?P<star>\*)?(?P<id>\d+|SUM(?:-\d+)?)\](?:\[(?P<dir>[A-Z]{2}-[A-Z])\])?\s+"
    rf"(?P<t0>{_NUM})\s*-\s*(?P<t1>{_NUM})\s+sec\s+"
    rf"(?P<xfer>{_NUM})\s+(?P<xu>[KMGTkmgt]?)Bytes\s+(?P<rate>{_NUM})\s+(?P<ru>[KMGTkmgt]?)bits/sec(?P<rest>.*)$"
)
LOOKS_LIKE_REPORT = re.compile(r"\[\s*\*?(?:\d+|SUM(?:-\d+)?)\](?:\[[A-Z-]+\])?\s+\d+(?:\.\d+)?\s*-\s*\d")
# an iperf3 stream line damaged before its interval (a NUL byte, a flipped digit): reported, not dropped
DAMAGED_REPORT3 = re.compile(r"\[\s*(?:\d+|SUM)\](?:\[[A-Z-]+\])?\s.*\b(?:sec|[KMGT]?Bytes|bits/sec)\b")
# "[  3] local ...", and "[ *2] local ..." for the reverse client thread of an iperf 2.1 server (-d / -r)
CONNECTED = re.compile(
    r"\[\s*(?P<star>\*)?(?P<id>\d+)\]\s+local\s+(?P<lip>\S+?)\s+port\s+(?P<lport>\d{1,5})\s+connected\s+(?:with|to)\s+"
    r"(?P<rip>\S+?)\s+port\s+(?P<rport>\d+)"
)
UDP_TAIL = re.compile(
    rf"^\s*(?P<jitter>{_NUM})\s*ms\s+(?P<lost>-?\d+)\s*/\s*(?P<total>\d+)\s*(?:\((?P<pct>[-+\d.e]+|nan|-?nan)%\))?(?P<tail>.*)$"
)
# The TCP client columns of iperf 2 -e, in every layout of src/ReportOutputs.c (2.0.10 to 2.2):
#   Write/Err Rtry Cwnd/RTT(var) NetPwr                           "18/0  0  260K/166295(24066) us  14.19"
#   Write/Err Rtry Cwnd(pkts)/RTT(var) NetPwr                     "899/0  12  369K(261)/2932(85) us  40168"
#   Write/Err Rtry InF(pkts)/Cwnd(pkts)/RTT(var) NetPwr  (2.1.9+) "899/0  12  356K(252)/369K(261)/2932(85) us  40168"
#   Wait Write/Err Rtry InF/Cwnd/RTT(var) fq-rate NetPwr          "15.147 ms  99/0  0  190K(135)/207K(147)/403(25) us  100 Mbit/sec 31874"
#   Write/Err Rtry NA/RTT(var) (no tcpi_snd_cwnd)                 "899/0  12  NA/2932(85) us  40168"
# K is 1024 bytes: iperf prints tcpi_snd_cwnd * tcpi_snd_mss / 1024 (src/tcp_window.c, gettcpinfo).
# Hand-written regex: the columns are space-separated but their count and slashes vary by version.
TCP_E_TAIL = re.compile(
    rf"^\s*(?:(?P<wait>{_NUM})\s*ms\s+)?(?P<writes>\d+)/(?P<werr>\d+)\s+(?:(?P<rtry>\d+)\s+)?"
    r"(?:(?P<inf>-?\d+)(?P<iu>[KMG]?)\((?P<infp>-?\d+)\)/)?"
    r"(?:(?P<cwnd>-?\d+)(?P<cu>[KMG]?)(?:\((?P<cwndp>-?\d+)\))?|NA)"
    r"/(?P<rtt>\d+(?:\.\d+)?)(?:\((?P<rttvar>\d+(?:\.\d+)?)\))?\s*(?P<rttu>us|ms)"
    rf"(?:\s+(?P<fq>{_NUM})\s*(?P<fqu>[KMGkmg]?)bits?/sec)?(?:\s+(?P<netpwr>\S+))?"
)
# the shorter -e tails of iperf 2 (src/Locale.c): a UDP client's Write/Err PPS ("891/0      893 pps"),
# the [SUM] of TCP clients' Write/Err Rtry ("13209/0        16", no cwnd/RTT), a server's Reads=Dist
E_WRITES_PPS = re.compile(rf"^\s*(?P<writes>\d+)/(?P<werr>\d+)\s+{_NUM}\s*pps\s*$")
E_WRITES_RTRY = re.compile(r"^\s*(?P<writes>\d+)/(?P<werr>\d+)(?:\s+(?P<rtry>\d+))?\s*$")
E_READS = re.compile(r"^\s*(?P<reads>\d+)=\d+(?::\d+)+\s*$")
# informational lines that look like reports: out-of-order counts, trip times, L2 errors
OUT_OF_ORDER = re.compile(
    r"\[\s*\*?(?P<id>\d+|SUM(?:-\d+)?)\](?:\[[A-Z]{2}-[A-Z]\])?\s+"
    rf"(?P<t0>{_NUM})\s*-\s*(?P<t1>{_NUM})\s+sec\s+(?P<n>\d+)\s+datagrams\s+received\s+out-of-order"
)
INFORMATIONAL = re.compile(r"sec\s+(?:trip-time|L2 processing|Clock sync error|OWD)")
LISTEN2 = re.compile(r"^Server listening on (?:TCP|UDP)(?: \(v6\))? port (?P<port>\d{1,5})(?!\d)")  # <= 5 digits
CONNECT2 = re.compile(r"^Client connecting to \S+?,? (?:TCP|UDP) port \d+")
IPERF3_TCP_TAIL = re.compile(rf"^\s*(?P<retr>\d+)(?:\s+(?P<cwnd>{_NUM})\s+(?P<cu>[KMGT]?)Bytes)?(?P<tail>.*)$")
_IPERF3_UDP_CLIENT_TAIL = re.compile(r"^\s*(?P<total>\d+)\s*(?P<tail>.*)$")
ROLE = re.compile(r"\b(sender|receiver)\s*$")


def amount_bytes(value: str, prefix: str) -> float:
    return float(value) * BIN[prefix]


def _bps(value: str, prefix: str) -> float:
    return float(value) * DEC[prefix]


# --------------------------------------------------------------------------------------
# shared assembly


CORE = ["stream", "start_s", "end_s", "time_s", "bytes", "rate_bps"]
OPTIONAL = [
    "retransmits", "cwnd_bytes", "cwnd_segments", "inflight_bytes", "inflight_segments", "rtt_s", "rttvar_s",
    "writes", "write_errors", "reads", "packets", "lost_packets", "loss", "jitter_s", "out_of_order", "omitted",
    "direction", "connection", "src", "dst", "timestamp",
]


def build_frame(rows: list[dict]) -> pd.DataFrame:
    cols = list(CORE)
    for c in OPTIONAL:
        if any(r.get(c) is not None for r in rows):
            cols.append(c)
    data = {c: [r.get(c) for r in rows] for c in cols}
    return _typed(pd.DataFrame(data, columns=cols))


STR_COLUMNS = ("stream", "src", "dst", "direction", "timestamp")
_INT_COLUMNS = ("retransmits", "packets", "lost_packets", "cwnd_segments", "inflight_segments", "out_of_order")


def _typed(df: pd.DataFrame) -> pd.DataFrame:
    """The column types of every iperf frame (strings, ``omitted`` bool, floats, counts int64 when complete)."""
    for c in df.columns:
        if c in STR_COLUMNS:
            df[c] = df[c].astype("str")
        elif c == "omitted":
            df[c] = df[c].fillna(False).astype(bool)
        elif c == "connection":
            df[c] = df[c].astype("Int64")
        else:
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    for c in _INT_COLUMNS:
        if c in df and np.isfinite(df[c]).all():
            df[c] = df[c].astype(np.int64)
    return df


def frame_columns(data: dict, present: set) -> pd.DataFrame:
    """:func:`build_frame` from whole columns: object arrays (None where missing) for the string
    columns, float arrays (NaN where missing) or bool for the others; *present* names the
    optional columns that some row holds (a row with a NaN loss holds ``loss``)."""
    cols = list(CORE) + [c for c in OPTIONAL if c in present]
    return _typed(pd.DataFrame({c: data[c] for c in cols}, columns=cols, copy=False))


_FINITE = ("start_s", "end_s", "bytes", "rate_bps")
LETTER_NE = re.compile(r"[nNeE]")


def bad_numbers(row: dict) -> bool:
    """True when a row holds a number no iperf prints: an infinite value (a 400-digit field
    read as float) anywhere, or a NaN in the interval, byte count or rate."""
    for k, v in row.items():
        if isinstance(v, float) and (math.isinf(v) or (k in _FINITE and math.isnan(v))):
            return True
    return False


def clean_summary(row: dict) -> dict:
    """*row* without its None and NaN values (*row* itself when it holds none: no copy).

    Examples
    --------
    >>> clean_summary({"stream": "3", "rtt_s": float("nan"), "src": None, "bytes": 1.0})
    {'stream': '3', 'bytes': 1.0}
    """
    for v in row.values():
        if v is None or (isinstance(v, float) and v != v):
            return {k: v for k, v in row.items() if v is not None and not (isinstance(v, float) and np.isnan(v))}
    return row


# --------------------------------------------------------------------------------------
# one report line (both tools)


def parse_report(m: re.Match) -> dict:
    row = {
        "stream": m["id"],
        "start_s": float(m["t0"]),
        "end_s": float(m["t1"]),
        "bytes": amount_bytes(m["xfer"], m["xu"]),
        "rate_bps": _bps(m["rate"], m["ru"]),
    }
    row["time_s"] = row["end_s"]
    if m["dir"]:
        row["direction"] = m["dir"]
    return row


def write_columns(row: dict, m: re.Match) -> None:
    """Writes, write errors and (when printed) retries of an -e ``Write/Err Rtry`` tail."""
    row["writes"] = float(m["writes"])
    row["write_errors"] = float(m["werr"])
    if m.groupdict().get("rtry") is not None:
        row["retransmits"] = float(m["rtry"])


def udp_columns(row: dict, mu: re.Match) -> None:
    """Jitter [s], lost and total datagrams and the loss fraction of a UDP report tail."""
    row["jitter_s"] = float(mu["jitter"]) * 1e-3
    row["lost_packets"] = float(mu["lost"])
    row["packets"] = float(mu["total"])
    row["loss"] = row["lost_packets"] / row["packets"] if row["packets"] else np.nan

