"""Reader of ns-3 trace files written from trace sinks (``"t value"`` or ``"t old new"``)."""

from __future__ import annotations

import io
import os
import re

import numpy as np
import pandas as pd

from ._common import SSTHRESH_UNSET, Report, iter_lines, open_text, source_name

__all__ = ["read_ns3"]

FORMAT = "ns3"
EXPECTED = "ns-3 trace lines '<time s> <value>' or '<time s> <old value> <new value>' (space or tab separated)"

# quantity -> (column stem, unit suffix by unit)
_QUANTITIES = {
    "cwnd": ("cwnd", {"bytes": "_bytes", "segments": "_segments"}),
    "ssthresh": ("ssthresh", {"bytes": "_bytes", "segments": "_segments"}),
    "inflight": ("bytes_in_flight", {"bytes": ""}),
    "rwnd": ("rwnd", {"bytes": "_bytes"}),
    "rtt": ("rtt", {"s": "_s", "ms": "_s"}),
    "rto": ("rto", {"s": "_s", "ms": "_s"}),
    "seq": ("seq", {"": ""}),
    "value": ("value", {"": ""}),
}
_DEFAULT_UNIT = {"cwnd": "bytes", "ssthresh": "bytes", "inflight": "bytes", "rwnd": "bytes", "rtt": "s",
                 "rto": "s", "seq": "", "value": ""}
# file-name hints (lower case) -> quantity
_NAME_HINTS = [
    (re.compile(r"ss[-_]?th|ssthresh|slow[-_]?start[-_]?threshold"), "ssthresh"),
    (re.compile(r"in[-_]?flight"), "inflight"),
    (re.compile(r"cwnd|cong(?:estion)?[-_]?window"), "cwnd"),
    (re.compile(r"rwnd|rx[-_]?window"), "rwnd"),
    (re.compile(r"rto"), "rto"),
    (re.compile(r"rtt"), "rtt"),
    (re.compile(r"next[-_]?(?:tx|rx)|seq"), "seq"),
]
_LINE = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s+([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)"
                   r"(?:\s+([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))?\s*$")


def _guess_quantity(name: str) -> str:
    base = os.path.basename(name).lower()
    for rx, q in _NAME_HINTS:
        if rx.search(base):
            return q
    return "value"


def read_ns3(path, quantity: str | None = None, unit: str | None = None) -> pd.DataFrame:
    """Read an ns-3 trace written by a trace sink, e.g. of ``TcpSocketBase::CongestionWindow``.

    Two shapes are accepted, separated by spaces or tabs (the examples
    ``tcp-variants-comparison.cc`` and the tutorial's ``sixth.cc`` write them)::

        <time s> <value>                  3.2687 3400
        <time s> <old value> <new value>  1.0093\\t536\\t1072

    Parameters
    ----------
    path : str, path-like, file object or text
        The trace (see :mod:`labcalc.measure` for the accepted inputs).
    quantity : {"cwnd", "ssthresh", "inflight", "rwnd", "rtt", "rto", "seq", "value"}, optional
        What the trace holds; guessed from the file name (``...-cwnd.data``,
        ``...-ssth.data``, ``...-rtt.data``...) and ``"value"`` when the name says nothing.
    unit : str, optional
        Unit of the values: ``"bytes"`` (default for windows, as ns-3 traces them) or
        ``"segments"``; ``"s"`` (default for RTT/RTO, as ``Time::GetSeconds`` writes them)
        or ``"ms"``.

    Returns
    -------
    pandas.DataFrame
        ``time_s`` [s] (simulation time) and the value in a column named after the
        quantity and unit: ``cwnd_bytes``, ``cwnd_segments``, ``ssthresh_bytes`` (NaN while
        unset: 4294967295 or 2147483647), ``bytes_in_flight``, ``rwnd_bytes``, ``rtt_s``,
        ``rto_s``, ``seq`` or ``value``; for ``"t old new"`` traces also the previous value
        (``cwnd_before_bytes``...).

    Raises
    ------
    MeasurementFormatError
        When no line holds 2 or 3 numbers.

    References
    ----------
    .. [1] ns-3 tutorial, "Tracing" (``examples/tutorial/sixth.cc``), and
       ``examples/tcp/tcp-variants-comparison.cc``; https://www.nsnam.org/docs/tutorial/html/tracing.html

    Examples
    --------
    >>> import io
    >>> df = read_ns3(io.StringIO("0.0\\t0\\t536\\n1.0093\\t536\\t1072\\n"), quantity="cwnd")
    >>> df
       time_s  cwnd_bytes  cwnd_before_bytes
    0  0.0000         536                  0
    1  1.0093        1072                536
    >>> read_ns3("0.0 0\\n3.2687 4294967295\\n3.89783 2380\\n", quantity="ssthresh")
        time_s  ssthresh_bytes
    0  0.00000             0.0
    1  3.26870             NaN
    2  3.89783          2380.0
    """
    name = source_name(path)
    if quantity is None:
        quantity = _guess_quantity(name)
    if quantity not in _QUANTITIES:
        raise ValueError(f"quantity: expected one of {sorted(_QUANTITIES)}, got {quantity!r}")
    stem, units = _QUANTITIES[quantity]
    if unit is None:
        unit = _DEFAULT_UNIT[quantity]
    if unit not in units:
        raise ValueError(f"unit: for quantity {quantity!r} expected one of {sorted(units)}, got {unit!r}")
    col = stem + units[unit]
    before = stem + "_before" + units[unit]
    scale = 1e-3 if unit == "ms" else 1.0
    name, text = open_text(path)
    rep = Report(name, FORMAT, EXPECTED)
    arr = None
    try:
        # pandas makes the extra fields of a too-wide FIRST line into index columns (a 400 KB
        # line became a 66k-column frame); later too-wide lines raise ParserError
        first_line = next((ln for _, ln in iter_lines(text[:1 << 16]) if ln.strip() and not ln.lstrip().startswith("#")), "")
        if len(first_line.split(None, 3)) > 3 or len(first_line) > 200:
            raise ValueError("first line is not a trace line")
        # bytes, not StringIO: io.StringIO holds 4 bytes per character (a 200 MB file cost 2.9 GB)
        data = text.encode("utf-8", "replace")
        frame = pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, names=[0, 1, 2], dtype=float,
                            comment="#", skip_blank_lines=True, engine="c")
        del data
        if len(frame) and frame[1].notna().all() and frame[0].notna().all():
            arr = frame.to_numpy()
            rep.ok(len(arr))
            # look in the first 64 KiB only: splitting a 200 MB text into lines cost 4x its size
            first = next((i for i, ln in iter_lines(text[:1 << 16]) if ln.strip() and not ln.lstrip().startswith("#")),
                         None)
            if first is None:
                first = next(i for i, ln in iter_lines(text) if ln.strip() and not ln.lstrip().startswith("#"))
            rep.content(first)
    except (ValueError, pd.errors.ParserError):
        arr = None
    if arr is None:
        rows = []
        for i, line in iter_lines(text):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            m = _LINE.match(s)
            if not m:
                rep.bad(i, s)
                continue
            rep.ok()
            rows.append((float(m[1]), float(m[2]), float(m[3]) if m[3] is not None else np.nan))
        rep.require_something()
        arr = np.array(rows, dtype=float).reshape(-1, 3)
    rep.require_something()
    # rows with an infinite value (inf, 1e999, 400-digit numbers) are malformed lines
    inf_rows = np.flatnonzero(np.isinf(arr).any(axis=1))
    if len(inf_rows):
        numbers = np.array([i for i, ln in iter_lines(text) if ln.strip() and not ln.lstrip().startswith("#")])
        if len(numbers) == len(arr):  # the rows are the non-comment lines, one to one
            rep.bad_many(numbers[inf_rows])
        else:
            rep.bad_many(inf_rows + 1)
        rep.recognised -= len(inf_rows)
        arr = np.delete(arr, inf_rows, axis=0)
        if not len(arr):
            raise rep.fail(int(numbers[0]) if len(numbers) else 1, "no line holds finite numbers")
    three = ~np.isnan(arr[:, 2])
    value = np.where(three, arr[:, 2], arr[:, 1]) * scale
    data = {"time_s": arr[:, 0], col: value}
    if three.any():
        data[before] = np.where(three, arr[:, 1], np.nan) * scale
    if quantity == "ssthresh":
        for c in (col, before):
            if c in data:
                v = data[c]
                v[v >= SSTHRESH_UNSET[0]] = np.nan
    df = pd.DataFrame(data)
    if quantity != "ssthresh" and unit not in ("s", "ms"):
        for c in (col, before):
            if c in df and df[c].notna().all() and np.all(df[c] == np.round(df[c])) and np.all(df[c].abs() < 2.0**63):
                df[c] = df[c].astype(np.int64)
    return rep.finish(df, {"quantity": quantity, "unit": unit})
