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
    # from here on the text is held as bytes only (1 byte per character; the str is dropped)
    data = text.encode("utf-8", "replace")
    del text
    cols = _fast_columns(data)
    if cols is not None:
        rep.ok(len(cols[0]))
        head = _content_numbers(data[:1 << 16], first_only=True)
        rep.content(head[0] if head else _content_numbers(data, first_only=True)[0])
        bad = _inf_rows(cols)
        if len(bad):
            _drop_inf_rows(rep, data, cols, bad)
    else:
        cols = _slow_columns(rep, data)
    del data
    t, v1, v2 = cols
    del cols
    # reuse the parsed arrays in place (a 200 MB trace is 1.6x its size as float columns):
    # v2 becomes the value (the only value of two-number lines), v1 the previous value
    three = ~np.isnan(v2)
    np.copyto(v2, v1, where=~three)
    value = v2
    value *= scale
    data = {"time_s": t, col: value}
    if three.any():
        v1[~three] = np.nan
        v1 *= scale
        data[before] = v1
    del v1, v2
    if quantity == "ssthresh":
        for c in (col, before):
            if c in data:
                v = data[c]
                v[v >= SSTHRESH_UNSET[0]] = np.nan
    df = pd.DataFrame(data, copy=False)
    if quantity != "ssthresh" and unit not in ("s", "ms"):
        for c in (col, before):
            if c in df and df[c].notna().all() and np.all(df[c] == np.round(df[c])) and np.all(df[c].abs() < 2.0**63):
                df[c] = df[c].astype(np.int64)
    return rep.finish(df, {"quantity": quantity, "unit": unit})


def _content_numbers(data: bytes, first_only: bool = False) -> list[int]:
    """1-based numbers of the lines of *data* that are neither blank nor ``#`` comments."""
    out = []
    for i, line in enumerate(data.split(b"\n"), start=1):
        s = line.strip()
        if s and not s.startswith(b"#"):
            out.append(i)
            if first_only:
                break
    return out


def _fast_columns(data: bytes):
    """The three columns (time, first, second number; NaN when absent) parsed by pandas' C
    reader in blocks into preallocated arrays, or None when a line is not plain numbers."""
    first = next((ln for ln in data[:1 << 16].split(b"\n") if ln.strip() and not ln.lstrip().startswith(b"#")), b"")
    # pandas makes the extra fields of a too-wide FIRST line into index columns (a 400 KB
    # line became a 66k-column frame); later too-wide lines raise ParserError
    if len(first.split(None, 3)) > 3 or len(first) > 200:
        return None
    n_max = data.count(b"\n") + 1
    out = [np.empty(n_max) for _ in range(3)]
    n = 0
    try:
        reader = pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, names=[0, 1, 2], dtype=float,
                             comment="#", skip_blank_lines=True, engine="c", chunksize=1 << 18)
        with reader:
            for block in reader:
                k = len(block)
                for j in range(3):
                    out[j][n:n + k] = block[j].to_numpy()
                n += k
    except (ValueError, pd.errors.ParserError):
        return None
    if not n or np.isnan(out[0][:n]).any() or np.isnan(out[1][:n]).any():
        return None
    # views; copied only when the slack (blank and comment lines) is worth giving back
    out = [a[:n].copy() if n_max - n > n // 8 else a[:n] for a in out]
    return out


def _inf_rows(cols) -> np.ndarray:
    return np.flatnonzero(np.isinf(cols[0]) | np.isinf(cols[1]) | np.isinf(cols[2]))


def _drop_inf_rows(rep: Report, data: bytes, cols: list, inf_rows: np.ndarray) -> None:
    """Report the rows with an infinite value (inf, 1e999, 400-digit numbers) as malformed and drop them."""
    numbers = np.array(_content_numbers(data))
    if len(numbers) == len(cols[0]):  # the rows are the non-comment lines, one to one
        rep.bad_many(numbers[inf_rows])
    else:
        rep.bad_many(inf_rows + 1)
    rep.recognised -= len(inf_rows)
    keep = np.ones(len(cols[0]), dtype=bool)
    keep[inf_rows] = False
    for j in range(3):
        cols[j] = cols[j][keep]
    if not len(cols[0]):
        raise rep.fail(int(numbers[0]) if len(numbers) else 1, "no line holds finite numbers")


def _slow_columns(rep: Report, data: bytes):
    """Line by line (a line that is not 2 or 3 numbers is malformed, with its number)."""
    t, v1, v2 = [], [], []
    for i, line in iter_lines(data.decode("utf-8", "replace")):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = _LINE.match(s)
        if not m:
            rep.bad(i, s)
            continue
        rep.ok()
        t.append(float(m[1]))
        v1.append(float(m[2]))
        v2.append(float(m[3]) if m[3] is not None else np.nan)
    rep.require_something()
    cols = [np.array(t, dtype=float), np.array(v1, dtype=float), np.array(v2, dtype=float)]
    bad = _inf_rows(cols)
    if len(bad):
        _drop_inf_rows(rep, data, cols, bad)
    return cols
