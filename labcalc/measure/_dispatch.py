"""Format sniffing, the generic :func:`read` and :func:`convert` (used by ``labcalc convert``)."""

from __future__ import annotations

import importlib
import os
import re
import sys
import zlib

from .. import _textio
from ._common import MeasurementFormatError, corrupt_gzip, gunzip, is_path, json_start, open_binary, source_name

__all__ = ["read", "convert", "converted_attrs", "sniff_format", "describe", "FORMATS", "FORMAT_WORDS"]

#: format name -> (module, reader function)
FORMATS = {
    "labtool": ("labtool", "read_labtool"),
    "iperf": ("iperf2", "read_iperf"),
    "iperf3": ("iperf3", "read_iperf3"),
    "ping": ("ping", "read_ping"),
    "ping_windows": ("ping_windows", "read_ping_windows"),
    "tcp_probe": ("tcpprobe", "read_tcp_probe"),
    "ss": ("ss", "read_ss"),
    "tc_qdisc": ("tc", "read_tc_qdisc"),
    "qlen": ("tc", "read_qlen"),
    "ns3": ("ns3", "read_ns3"),
    "tshark": ("tshark", "read_tshark"),
    "wireshark_csv": ("wireshark", "read_wireshark_csv"),
    "labcalc": ("tidy", "read_tidy"),
}
_ALIASES = {
    "iperf2": "iperf", "tcpprobe": "tcp_probe", "tcp-probe": "tcp_probe", "tc": "tc_qdisc", "qdisc": "tc_qdisc",
    "ns-3": "ns3", "lab": "labtool", "queue": "qlen", "cs244_qlen": "qlen",
    "windows_ping": "ping_windows", "wireshark": "wireshark_csv", "wireshark-csv": "wireshark_csv", "ping-windows": "ping_windows", "winping": "ping_windows",
    "tidy": "labcalc",
}

_HEAD_BYTES = 1 << 16

# ping lines may carry a bare epoch prefix ("1741592039.956 PING ..."), added by a shell loop or ts
_EPOCH = r"(?:\[?\d{9,}(?:\.\d+)?\]?\s+)?"
_PING = re.compile(r"bytes from .*(?:icmp_[sr]eq|seq)=\d+|^" + _EPOCH + r"(?:PING \S+?\s?\(|PING6\(|\d+ packets transmitted)")
# Windows ping in any language: a reply "<words> <addr>: <w>=32 <w>=12ms TTL=117" (IPv6: "...: <w>=11ms"),
# or the statistics "<w>: <w> = 4, <w> = 4, <w> = 0"; recognised by structure, not by words
_PING_WIN = re.compile(
    r"^[^=<]{0,80}?[0-9A-Fa-f.:%]{3,}[^=<:：]{0,40}?\s?[:：]\s*(?:[^=<]{1,30}?\s?=\s?\d+\s+)?[^=<\d]{1,30}?\s?[=<]\s?\d+\s?"
    r"(?:ms|мс|мсек)(?:\s+TTL\s?=\s?\d+)?\s*$"
    r"|^\s*[^=]{1,40}[:：]\s*[^=]{1,30}=\s*\d+\s*[,，、]\s*[^=]{1,30}=\s*\d+\s*[,，、]\s*[^=]{1,30}=\s*\d+\s*[(（]"
    # the banner "Pinging 8.8.8.8 with 32 bytes of data:" (a run of timeouts has nothing else)
    r"|^[^=]{0,60}\b[Pp]ing[^=]{0,60}?\d{1,3}(?:\.\d{1,3}){3}[^=]{0,60}?\s\d{1,5}\s[^=]{1,40}[:：]$"
)
_LABTOOL = re.compile(
    r"^\s*\d+(?:\.\d+)?\s*s\s*-\s*(?:sent|received):|^\s*\d+(?:\.\d+)?\s*:\s*\d+(?:\.\d+)?\s*kb(?:ps|/s|its/s|it/s)\s+avg",
    re.I,
)
_PROC_PROBE = re.compile(r"^\s*\d+\.\d+\s+\S+:\d+\s+\S+:\d+\s+\d+\s+0x[0-9a-fA-F]+\s+0x[0-9a-fA-F]+\s+\d+\s+\d+\s+\d+\s+\d+(?:\s+\d+)?\s*$")
_IPERF3_HINT = re.compile(
    r"^Connecting to host|^Server listening on \d+|^Accepted connection from|^iperf Done|^- - - - -|\(omitted\)"
    r"|\s(?:sender|receiver)\s*$|Interval\s+Transfer\s+Bitrate|\bRetr\s+Cwnd|^iperf3:|connected to \S+ port \d+"
)
_IPERF2_HINT = re.compile(
    r"^Client connecting to|^Server listening on (?:TCP|UDP) port|connected with \S+ port \d+|^TCP window size"
    r"|^UDP buffer size|Interval\s+Transfer\s+Bandwidth(?!.*\bRetr\b)|^(?:[+-]\d{4}:)?\d{14}(?:\.\d+)?,[^,]*,\d*,[^,]*,\d+,-?\d+,\d"
    r"|^time,srcaddress,srcport,dstadd?r"
)
REPORT = re.compile(r"\[\s*(?:\d+|SUM)\]\s+\d+(?:\.\d+)?\s*-\s*\d+(?:\.\d+)?\s+sec\s")
_SS = re.compile(r"^\s*(?:ESTAB|SYN-SENT|SYN-RECV|FIN-WAIT-\d|TIME-WAIT|CLOSE-WAIT|LAST-ACK|LISTEN)\s+\d+\s+\d+\s|Recv-Q\s+Send-Q\s+Local")
_SS_INFO = re.compile(r"\brtt:\d+(?:\.\d+)?/\d|\bcwnd:\d+")
# also `echo $(tc -s qdisc)`: one sample per line, optionally after an epoch time
_TC = re.compile(r"^" + _EPOCH + r"(?:qdisc|class)\s+\S+\s+[0-9a-fA-F]*:")
# the column header of iperf/iperf3 interval reports, first line when output went through tail/grep
_IPERF_HEADER = re.compile(r"^\[\s*ID\]\s+Interval\b")
# a header of tshark field names; the first one of a protocol (column fields "_ws.col.Protocol" too)
_TSHARK = re.compile(r"^\"?(?:frame|eth|sll|vlan|arp|ip|ipv6|icmp|icmpv6|tcp|udp|sctp|_ws|dns|http|tls|quic|mqtt|data"
                     r"|wlan|radiotap|llc)\.[\w.-]+\"?(?:[,\t;|]\"?[\w.-]+\"?)*$")
# Wireshark's CSV export: the titles of its packet list, "No.","Time",... (also a spreadsheet's resave)
_WIRESHARK = re.compile(r'^#?\s*"?No\."?\s*[,;\t]\s*"?Time"?\s*[,;\t]')
_QLEN = re.compile(r"^\d+(?:\.\d+)?,\d+$")
_NS3 = re.compile(r"^[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?:\s+[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?){1,2}$")


def _canonical(fmt: str) -> str:
    key = fmt.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in FORMATS:
        raise ValueError(f"format: expected one of {', '.join(sorted(FORMATS))}, got {fmt!r}")
    return key


# the header of PowerShell's Test-Connection table (Windows PowerShell 5.1, PowerShell 7): a
# shape students save instead of ping's output, refused with what to run instead
_TEST_CONNECTION = re.compile(r"^(?:Source\s+Destination\s+IPV4Address|Ping\s+Source\s+Address\s+Latency)\b")


def sniff_format(text: str) -> str | None:
    """Recognise the format of tool output from its beginning.

    Parameters
    ----------
    text : str
        The first lines of the file (64 KiB is what :func:`read` looks at).

    Returns
    -------
    str or None
        One of the names in :data:`FORMATS`, or None when nothing matches.

    Notes
    -----
    The checks go from the most specific signature to the least: labcalc's own files (a
    first line ``# labcalc <kind> v<n>``, see :mod:`labcalc.measure.tidy`), JSON documents (iperf3
    or tc), the tracepoint and module forms of tcp_probe, ping replies, the lab programs,
    iperf3/iperf 2 banners and report lines, ss socket lines with TCP info, tc qdisc
    blocks, a tshark header, then the bare number columns of the queue log
    (``<t>,<n>``) and of ns-3 traces (``<t> <v>``).

    References
    ----------
    .. [1] The formats are described in each reader's docstring.

    Examples
    --------
    >>> sniff_format("64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=4.04 ms\\n")
    'ping'
    >>> sniff_format("1574985185.025867,0\\n1574985185.130535,20\\n")
    'qlen'
    >>> sniff_format("0.5 3400\\n0.6 3740\\n")
    'ns3'
    >>> sniff_format("# labcalc samples v1\\n# attrs: {}\\ntime_s,rate_bps\\n")
    'labcalc'
    """
    from .tidy import is_tidy

    if is_tidy(text):
        return "labcalc"
    head = text.lstrip("\ufeff")
    stripped = head.lstrip()
    # stamp lines ("# <unix time>") may precede JSON samples (tc -j in a loop)
    while stripped.startswith("#") or re.match(r"^\d{6,}(?:\.\d+)?\s*\n", stripped):
        nl = stripped.find("\n")
        if nl < 0 or not re.match(r"^#?\s*\d{6,}(?:\.\d+)?\s*$", stripped[:nl].strip()):
            break
        stripped = stripped[nl + 1:].lstrip()
    if json_start(stripped) and not REPORT.match(stripped) and not _IPERF_HEADER.match(stripped):
        if ('"kind"' in stripped[:4000] or '"class"' in stripped[:4000]) and stripped.startswith("["):
            return "tc_qdisc"
        if any(k in stripped[:20000] for k in ('"start"', '"intervals"', '"event"', '"error"', '"connected"')):
            return "iperf3"
        if '"kind"' in stripped[:4000]:
            return "tc_qdisc"
        return None
    lines = [ln.rstrip() for ln in head.split("\n")[:400]]
    content = [ln for ln in lines if ln.strip()]
    if not content:
        return None
    if any("tcp_probe:" in ln for ln in content) or content[0].startswith("# tracer:"):
        return "tcp_probe"
    data = [ln for ln in content if not ln.lstrip().startswith("#")]
    if data and sum(bool(_PROC_PROBE.match(ln)) for ln in data[:50]) >= max(1, len(data[:50]) // 2):
        return "tcp_probe"
    if any(_PING.search(ln) for ln in content[:50]):
        return "ping"
    if any(_PING_WIN.match(ln.strip()) for ln in content[:50] if len(ln) < 400):
        return "ping_windows"
    if any(_LABTOOL.match(ln) for ln in content[:50]):
        return "labtool"
    hint3 = sum(bool(_IPERF3_HINT.search(ln.strip())) for ln in content)
    hint2 = sum(bool(_IPERF2_HINT.search(ln.strip())) for ln in content)
    if hint3 or hint2:
        return "iperf3" if hint3 > hint2 else "iperf"
    if any(REPORT.search(ln) for ln in content[:50]):
        return "iperf3" if any(re.search(r"\d\.\d\d-\s*\d+\.\d\d\s{2,}sec", ln) for ln in content) else "iperf"
    if any(_SS.search(ln) for ln in content) and any(_SS_INFO.search(ln) for ln in content):
        return "ss"
    if any(_TC.match(ln.strip()) for ln in content[:50]):
        return "tc_qdisc"
    if data and _TSHARK.match(data[0].strip()):
        return "tshark"
    if content and _WIRESHARK.match(content[0].strip()):
        return "wireshark_csv"
    if data and sum(bool(_QLEN.match(ln.strip())) for ln in data[:20]) >= max(1, len(data[:20]) // 2):
        return "qlen"
    if data and sum(bool(_NS3.match(ln.strip())) for ln in data[:20]) >= max(1, len(data[:20]) // 2):
        return "ns3"
    return None


#: A format in words, for messages that say what a file is.
FORMAT_WORDS = {
    "labtool": "a printout of the lab's udpclient / udpserver / tcpclient",
    "iperf": "an iperf 2 printout",
    "iperf3": "an iperf3 printout",
    "ping": "a ping printout",
    "tcp_probe": "a tcp_probe trace",
    "ss": "an ss -ti log",
    "tc_qdisc": "a tc -s qdisc log",
    "qlen": "a queue-length log",
    "ns3": "an ns-3 trace",
    "tshark": "a tshark field export",
    "ping_windows": "a Windows ping printout",
    "wireshark_csv": "a Wireshark CSV export",
}


def describe(text: str) -> str | None:
    """What the beginning of a file is, in words (None when no format is recognised).

    Parameters
    ----------
    text : str
        The first lines of the file.

    Returns
    -------
    str or None
        E.g. ``"an iperf3 printout"``; for labcalc's own files the kind
        (``"labcalc's per-flow summary of an ns-3 run"``).

    Examples
    --------
    >>> describe("Connecting to host 10.0.0.3, port 5201\\n")
    'an iperf3 printout'
    >>> describe("# labcalc summary v1\\n# attrs: {}\\nflow,loss\\n")
    "labcalc's per-flow summary of an ns-3 run"
    >>> describe("question,scenario,flow,metric,value,unit\\n") is None
    True
    """
    fmt = sniff_format(text)
    if fmt == "labcalc":
        from .tidy import KINDS

        first = text.lstrip("\ufeff").split("\n", 1)[0].split()
        kind = first[2] if len(first) > 2 and first[:2] == ["#", "labcalc"] else "simulation"
        return KINDS.get(kind, "a file written by labcalc")
    return FORMAT_WORDS.get(fmt, fmt) if fmt else None


def _reader(fmt: str):
    module, func = FORMATS[fmt]
    return getattr(importlib.import_module(f"labcalc.measure.{module}"), func)


def read(path, format: str | None = None, **kwargs):
    """Read any supported measurement file, recognising its format when *format* is None.

    Parameters
    ----------
    path : str, path-like, file object or text
        The tool output (see :mod:`labcalc.measure` for the accepted inputs).
    format : str, optional
        One of ``"labtool"``, ``"iperf"``, ``"iperf3"``, ``"ping"`` (iputils, BusyBox, macOS),
        ``"ping_windows"`` (any language), ``"tcp_probe"``, ``"ss"``, ``"tc_qdisc"``, ``"qlen"``,
        ``"ns3"``, ``"tshark"`` (``-T fields``), ``"wireshark_csv"`` (Wireshark's CSV export);
        aliases such as ``"iperf2"``, ``"tcpprobe"``, ``"tc"``, ``"windows_ping"``,
        ``"wireshark"`` are accepted; ``"labcalc"`` reads labcalc's own files. A manifest's ``format`` key takes the same names. By
        default the beginning of the source is inspected.
    **kwargs
        Passed to the reader (e.g. ``port=5001`` for ``tcp_probe``).

    Returns
    -------
    pandas.DataFrame
        What the format's reader returns; ``attrs["format"]`` names the format.

    Raises
    ------
    MeasurementFormatError
        When the format cannot be recognised (the message lists the formats), or the reader
        cannot read the source.

    References
    ----------
    .. [1] The readers of :mod:`labcalc.measure`, one per tool.

    Examples
    --------
    >>> df = read("64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=4.04 ms\\n")
    >>> df.attrs["format"], float(df["rtt_s"].iloc[0])
    ('ping', 0.00404)
    """
    if format is not None:
        return _reader(_canonical(format))(path, **kwargs)
    name = source_name(path)
    if is_path(path):
        with open_binary(path) as fh:
            try:
                head = fh.read(_HEAD_BYTES)
            except (EOFError, OSError, zlib.error) as exc:  # a corrupt gzip stream
                raise corrupt_gzip(name, exc) from None
        source = path
    else:
        if hasattr(path, "read"):
            data = path.read()
        else:
            data = path
        if isinstance(data, (bytes, bytearray)):
            # the reader gets the bytes: it decodes them by the text policy (UTF-16, cp1252, notes)
            source = gunzip(bytes(data), name)
            head = source[:_HEAD_BYTES]
        else:
            head = data[:_HEAD_BYTES]
            source = data if "\n" in data else data + "\n"
    if isinstance(head, bytes):
        full = len(head) == _HEAD_BYTES
        head = _textio.decode_head(head)
        cut = head.rfind("\n")
        head = head[:cut] if cut > 0 and full else head
    fmt = sniff_format(head)
    if fmt is None:
        first = next(((i, ln) for i, ln in enumerate(head.split("\n"), start=1) if ln.strip()), None)
        if first is None:
            raise MeasurementFormatError(name, 1, "a measurement file", "the source is empty (no line to read)")
        shown = first[1].strip()
        shown = shown[:67] + "..." if len(shown) > 70 else shown
        if _TEST_CONNECTION.match(shown):
            raise MeasurementFormatError(
                name, first[0], "ping or Windows ping output",
                "this is PowerShell's Test-Connection table, which labcalc does not read (it has no statistics "
                "and no probe numbers); save ping.exe's own output instead: ping -n 20 HOST > ping.txt")
        raise MeasurementFormatError(
            name, first[0], "one of: " + ", ".join(sorted(FORMATS)),
            f"could not recognise the format (this line reads {shown!r}); pass format=... to choose a reader",
        )
    return _reader(fmt)(source, **kwargs)


def convert(path, out_path, format: str | None = None, **kwargs):
    """Read a measurement file and write it as labcalc's per-sample CSV (what ``labcalc convert`` does).

    Parameters
    ----------
    path : str, path-like, file object or text
        The tool output.
    out_path : str, path-like or text stream
        Where to write the CSV; ``"-"`` writes to standard output.
    format : str, optional
        The format name (see :func:`read`); recognised automatically by default.
    **kwargs
        Passed to the reader.

    Returns
    -------
    pandas.DataFrame
        The frame that was written (its ``attrs`` say what was skipped).

    Raises
    ------
    MeasurementFormatError
        When the source cannot be read.

    Notes
    -----
    The file is one of labcalc's own (:mod:`labcalc.measure.tidy`, kind ``samples``): a
    first line ``# labcalc samples v1``, a line with the reader's ``attrs`` (the end-of-test
    lines, which side measured...), then the table, so that :func:`read` and a manifest
    read it back with the same numbers as the tool's output.

    References
    ----------
    .. [1] RFC 4180 (CSV); columns and units as documented by each reader.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> df = convert("1574985185.025867,0\\n1574985185.130535,20\\n", out)
    >>> print(out.getvalue().strip())
    # labcalc samples v1
    # attrs: {"format": "qlen", "from": "<text>"}
    time_s,backlog_packets
    1574985185.025867,0
    1574985185.130535,20
    """
    from .tidy import kind_of, source_stem, write_tidy

    df = read(path, format=format, **kwargs)
    write_tidy(df, out_path, kind_of(df), converted_attrs(df, source_stem(path)))
    return df


def converted_attrs(df, origin: str) -> dict:
    """The attrs a converted file keeps: the reader's, without the source path and skipped lines, plus ``from``.

    Parameters
    ----------
    df : pandas.DataFrame
        What a reader returned.
    origin : str
        The name of the file it was read from.

    Returns
    -------
    dict

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"time_s": [0.0]})
    >>> df.attrs.update(format="ping", source="/tmp/p.txt", malformed={"count": 0, "lines": []})
    >>> converted_attrs(df, "p.txt")
    {'format': 'ping', 'from': 'p.txt'}
    """
    kept = {k: v for k, v in df.attrs.items() if k not in ("source", "malformed", "labcalc")}
    kept["from"] = df.attrs.get("from", origin)
    return kept
