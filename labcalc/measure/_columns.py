"""Typing the columns of packet-capture tables (tshark fields, Wireshark's CSV export).

A text column is handled as ``(codes, labels)``: one integer code per row into the list of
its distinct values (-1 where a row has none), so that every decision that looks at the
text (is it a number? an address? a flag?) is taken once per distinct value, not once per
row. :func:`merge_blocks` joins the codes of the blocks a file is read in.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = ["first_value", "merge_blocks", "merge_codes", "endpoints", "categorical", "typed", "join",
           "as_int", "HEXNUM"]

#: A hexadecimal number as tshark prints flags and identifiers (``0x0002``); int64's range.
HEXNUM = re.compile(r"^0[xX][0-9a-fA-F]{1,15}$")


def first_value(v: str) -> str:
    """The first of several values joined by ``,`` (tshark's ``-E occurrence=a``), stripped.

    Examples
    --------
    >>> first_value("10.0.0.3,10.0.0.1"), first_value("")
    ('10.0.0.3', '')
    """
    return v.split(",", 1)[0].strip() if v else ""


def merge_blocks(blocks) -> tuple[np.ndarray, list]:
    """``(codes, labels)`` of a column read in blocks of ``(codes, labels)`` pairs, the labels
    merged by their text (int32 codes: a row index fits, half the memory of int64).

    Examples
    --------
    >>> codes, labels = merge_blocks([(np.array([0, 1, 0]), ["a", "b"]), (np.array([0, -1]), ["b"])])
    >>> codes.tolist(), labels
    ([0, 1, 0, 1, -1], ['a', 'b'])
    """
    index: dict[str, int] = {}
    parts = []
    for block_codes, block_labels in blocks:
        remap = np.array([index.setdefault(str(x), len(index)) for x in block_labels] + [-1], dtype=np.int32)
        parts.append(remap[np.asarray(block_codes)])
    return join(parts, np.int32), list(index)


def merge_codes(entries: list, n: int, first: bool = True):
    """One code per row over several columns of ``(codes, labels)`` (a later column's
    non-empty value wins, as ``ip.src`` and ``ipv6.src`` share ``src``); -1 where every one
    is empty. Returns ``(codes, labels)``; with *first* only the first occurrence of each
    value counts (:func:`first_value`).

    Examples
    --------
    >>> merge_codes([(np.array([0, 1]), ["10.0.0.1", ""]), (np.array([0, 1]), ["", "::1"])], 2)[0].tolist()
    [0, 3]
    """
    out = np.full(n, -1, dtype=np.int32)
    labels: list[str] = []
    for codes, cats in entries:
        cats = [first_value(x) if first else x.strip() for x in cats]
        given = np.array([x != "" for x in cats] + [False])
        out = np.where(given[codes], codes + len(labels), out)
        labels.extend(cats)
    return out, labels


def endpoints(addr_entries: list, port_entries: list, n: int) -> pd.Categorical:
    """``ip:port`` (``[ipv6]:port``) per row as a Categorical, the address alone without a
    port, missing without an address; computed once per distinct pair.

    Examples
    --------
    >>> list(endpoints([(np.array([0, 1]), ["10.0.0.1", "fe80::1"])], [(np.array([0, 0]), ["5201"])], 2))
    ['10.0.0.1:5201', '[fe80::1]:5201']
    """
    ai, al = merge_codes(addr_entries, n)
    pi, pl = merge_codes(port_entries, n)
    width = len(pl) + 1
    pair = (ai.astype(np.int64) + 1) * width + (pi + 1)
    uniq, inverse = np.unique(pair, return_inverse=True)
    names = []
    for u in uniq:
        a, p = int(u // width) - 1, int(u % width) - 1
        x = al[a] if a >= 0 else ""
        y = pl[p] if p >= 0 else ""
        names.append((f"[{x}]:{y}" if ":" in x else f"{x}:{y}") if x and y else x)
    return categorical(inverse.reshape(-1), names)


def categorical(codes: np.ndarray, labels: list) -> pd.Categorical:
    """A Categorical of ``labels[codes]`` (sorted categories, duplicates merged, "" and code
    -1 missing).

    Examples
    --------
    >>> list(categorical(np.array([1, 0, -1, 2]), ["TCP", "ICMP", ""]))
    ['ICMP', 'TCP', nan, nan]
    """
    cats = sorted(set(labels) - {""})
    where = {c: i for i, c in enumerate(cats)}
    remap = np.array([where.get(x, -1) for x in labels] + [-1], dtype=np.int64)
    return pd.Categorical.from_codes(remap[codes], categories=pd.Index(cats, dtype="str"))


def typed(codes: np.ndarray, labels: list):
    """A column typed by its distinct values: numbers (``0x`` hexadecimal included,
    ``tcp.flags = 0x0002``) are numbers, ``True``/``False`` booleans, anything else
    (``_ws.col.Protocol``, addresses, several occurrences ``1449,2897``) text in a
    Categorical; empty values are missing.

    Examples
    --------
    >>> typed(np.array([0, 1]), ["0x0002", "0x0012"]).tolist()
    [2, 18]
    >>> list(typed(np.array([0, 1]), ["MQTT", "TCP"]))
    ['MQTT', 'TCP']
    """
    stripped = [x.strip() for x in labels]
    given = [x for x in stripped if x != ""]
    if not given or any("," in x for x in given):
        return categorical(codes, stripped)
    num = pd.to_numeric(pd.Series(stripped, dtype=object).replace("", None), errors="coerce").to_numpy(dtype=float)
    empty = np.array([x == "" for x in stripped], dtype=bool)
    if np.all(np.isfinite(num) | empty):
        return as_int(np.append(num, np.nan)[codes])
    if all(HEXNUM.match(x) for x in given):
        num = np.array([int(x, 16) if x else np.nan for x in stripped] + [np.nan], dtype=float)
        return as_int(num[codes])
    if set(given) <= {"True", "False"} and not (empty[codes].any() or (codes < 0).any()):
        return np.array([x == "True" for x in stripped] + [False])[codes]
    return categorical(codes, stripped)


def join(parts: list, dtype) -> np.ndarray:
    """The arrays of *parts* end to end (no copy for one part; an empty array of *dtype* for none).

    Examples
    --------
    >>> join([np.array([1]), np.array([2, 3])], int).tolist()
    [1, 2, 3]
    """
    if not parts:
        return np.zeros(0, dtype=dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def as_int(num: np.ndarray) -> np.ndarray:
    """int64 when every value is a whole number of int64's range, else unchanged.

    Examples
    --------
    >>> as_int(np.array([1.0, 2.0])).dtype.name, as_int(np.array([1.0, np.nan])).dtype.name
    ('int64', 'float64')
    """
    if not np.isnan(num).any() and np.all(num == np.round(num)) and np.all(np.abs(num) < 2.0**63):
        return num.astype(np.int64)
    return num
