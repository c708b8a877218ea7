"""Measurement readers: tool output -> tidy pandas DataFrames, plus steady-state and cwnd analysis.

One reader per tool, each returning one row per observation with columns in base units
(``time_s`` [s], ``rate_bps`` [bit/s], ``bytes`` [bytes], ``rtt_s`` [s], ``loss`` [fraction],
``cwnd_segments`` or ``cwnd_bytes``, ``ssthresh_*`` (NaN while unset), ``retransmits``,
``packets``, ``drops``, ``backlog_packets``, ``backlog_bytes``, ``src``, ``dst``, ``seq``):

==========================  ==================================================================
:func:`read_labtool`        the handout's udpclient / udpserver / tcpclient
:func:`read_iperf`          iperf 2 text (client or server, ``-e``) and ``-y C`` CSV
:func:`read_iperf3`         iperf3 text and ``--json``
:func:`read_ping`           iputils ping (``-D`` stamps, old ``icmp_req=``), BusyBox and macOS ping
:func:`read_ping_windows`   Windows ping in any language (cmd.exe, or PowerShell's UTF-16)
:func:`read_tcp_probe`      ``/proc/net/tcpprobe`` and the ``tcp:tcp_probe`` tracepoint
:func:`read_ss`             repeated ``ss -ti`` samples
:func:`read_tc_qdisc`       ``tc -s qdisc`` text or ``-j`` JSON
:func:`read_qlen`           the bufferbloat queue log ``<epoch>,<packets>``
:func:`read_ns3`            ns-3 trace-sink files ``t value`` / ``t old new``
:func:`read_tshark`         ``tshark -T fields`` CSV with TCP analysis fields
:func:`read_wireshark_csv`  Wireshark's own CSV export (Export Packet Dissections > As CSV)
:func:`read_tidy`           labcalc's own files (``convert``, ``measurements build``, ``simulate``)
:func:`read`                any of the above, format recognised from the content
:func:`convert`             read, then write a tidy CSV (``labcalc convert``)
:func:`build_manifest`      a manifest of raw files -> the comparison table (``labcalc measurements``)
:func:`end_of_test`         every end-of-test figure of an iperf printout, named by the end that measured it
==========================  ==================================================================

Analysis: :func:`steady_state` (MSER-5 warm-up removal, batch-means confidence interval),
:func:`cwnd_phases` (slow start / congestion avoidance / fast recovery / timeout),
:func:`receive_rate` (sliding-window rate), :func:`queue_occupancy` (queue with drops marked).

Every reader accepts a path (``str`` without newline or path-like), an open file (text or
binary), or the text itself (``str`` containing a newline, or ``bytes``); gzip-compressed
files are recognised by their first bytes and decompressed on the fly, and so is text saved
as UTF-16 with a byte-order mark (Windows PowerShell's ``>``). Lines a reader
cannot parse are skipped and reported in ``df.attrs["malformed"]`` (``count`` and the first
``lines``) with a :class:`MalformedLinesWarning`; a source with nothing readable raises
:class:`MeasurementFormatError` (a ``ValueError``) naming the source, the line and the format
expected.

Submodules are imported on first use: ``import labcalc.measure`` does not import pandas.
"""

from __future__ import annotations

import importlib

from ._common import MalformedLinesWarning, MeasurementFormatError, ToolErrorWarning

_LAZY = {
    "read_labtool": "labtool",
    "read_iperf": "iperf2",
    "read_iperf3": "iperf3",
    "read_ping": "ping",
    "read_ping_windows": "ping_windows",
    "read_tcp_probe": "tcpprobe",
    "read_ss": "ss",
    "read_tc_qdisc": "tc",
    "read_qlen": "tc",
    "read_ns3": "ns3",
    "read_tshark": "tshark",
    "read_wireshark_csv": "wireshark",
    "read_tidy": "tidy",
    "read": "_dispatch",
    "convert": "_dispatch",
    "converted_attrs": "_dispatch",
    "sniff_format": "_dispatch",
    "describe": "_dispatch",
    "FORMATS": "_dispatch",
    "steady_state": "analysis",
    "SteadyState": "analysis",
    "steady_window": "analysis",
    "SteadyWindow": "analysis",
    "cwnd_phases": "analysis",
    "CwndPhases": "analysis",
    "receive_rate": "analysis",
    "queue_occupancy": "analysis",
    "read_manifest": "manifest",
    "build_manifest": "manifest",
    "end_of_test": "endtest",
    "interval_end": "endtest",
}

__all__ = sorted(_LAZY) + ["MalformedLinesWarning", "MeasurementFormatError", "ToolErrorWarning"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'labcalc.measure' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
