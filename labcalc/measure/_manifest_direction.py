"""One direction of an iperf 2 printout that holds both (``-d``, ``-r``, ``--full-duplex``).

Part of :mod:`labcalc.measure.manifest`. The iperf 2 reader says, per connection, whether
the host that printed the file sent or received its data (column ``printed_by``: its
connected lines accepted on the listening port receive, the ones it opened send; a
starred line is a server's reverse client). :func:`one_direction` keeps the rows and
end-of-test lines of the direction an entry names, by ``connection`` (either endpoint) or
``side`` (``"receiver"``: the direction this host received, ``"sender"``: the one it
sent), and makes them look like a one-way printout of the end that printed them, so that
the rest of the manifest reads them as any client's or server's file. An entry that names
neither is refused with the list of directions.
"""

from __future__ import annotations

import pandas as pd

from ._manifest_window import Fail, num_text

__all__ = ["two_way", "one_direction"]


def two_way(df: pd.DataFrame) -> bool:
    """Whether the frame holds rows printed as the sender and rows printed as the receiver."""
    if "printed_by" not in df.columns:
        return False
    return {"sender", "receiver"} <= set(df["printed_by"].dropna().astype(str))


def _directions(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(src, dst, printed_by) of every direction, in the file's order."""
    rows = df[df["src"].notna() & df["dst"].notna() & df["printed_by"].notna()]
    return list(dict.fromkeys(zip(rows["src"].astype(str), rows["dst"].astype(str), rows["printed_by"].astype(str))))


def _matches(end: str, wanted: str) -> bool:
    """*wanted* (``"ip:port"``, ``":port"`` or ``"ip"``) names the endpoint *end*, as ``connection`` does."""
    wanted = wanted.strip()
    addr, _, port = end.rpartition(":")
    if wanted.startswith(":"):
        return port == wanted[1:]
    return end == wanted or addr.strip("[]") == wanted.strip("[]")


def _listing(df: pd.DataFrame, dirs: list) -> str:
    every = {end for s, d, _ in dirs for end in (s, d)}
    parts = []
    for src, dst, by in dirs[:8]:
        rows = df[(df["src"].astype(str) == src) & (df["dst"].astype(str) == dst)]
        sent = float(pd.to_numeric(rows["bytes"], errors="coerce").sum()) if "bytes" in rows.columns else 0.0
        # an endpoint no other direction has names this one alone (a full-duplex connection's
        # two directions share both: side tells them apart)
        alone = [e for e in (dst, src) if sum(e in (s, d) for s, d, _ in dirs) == 1 and e in every]
        named = f"; connection = \"{alone[0]}\"" if alone else ""
        host = "this host received it" if by == "receiver" else "this host sent it"
        parts.append(f"{src} -> {dst} ({host}: {num_text(round(sent))} bytes in its intervals{named})")
    more = len(dirs) - len(parts)
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def one_direction(df: pd.DataFrame, entry: dict, side: str | None) -> tuple[pd.DataFrame, list, list]:
    """The rows of the one direction *entry* names, as a one-way printout.

    Parameters
    ----------
    df : pandas.DataFrame
        An iperf 2 frame for which :func:`two_way` holds.
    entry : dict
        The manifest entry (its ``connection`` key, if any, and its ``_name``).
    side : str or None
        ``"sender"`` or ``"receiver"`` when the entry states its side, else None.

    Returns
    -------
    (pandas.DataFrame, list, list)
        The direction's rows with ``attrs`` of a one-way printout (``side`` "client" when
        this host sent, "server" when it received; ``summary`` the direction's end-of-test
        lines, its ``Server Report`` included), the notes for the row, and the keys labcalc
        chose (``connection`` when ``side`` picked the direction).
    """
    dirs = _directions(df)
    picked = dirs
    wanted = entry.get("connection")
    if wanted is not None:
        picked = [d for d in picked if _matches(d[0], wanted) or _matches(d[1], wanted)]
    if side is not None:
        picked = [d for d in picked if d[2] == side]
    name = entry.get("_name", "?")
    if len(picked) != 1:
        how = (f"connection = \"{wanted}\"" if wanted is not None else "") + \
              (" and " if wanted is not None and side is not None else "") + \
              (f"side = \"{side}\"" if side is not None else "")
        by_side = ", or with side = \"receiver\" (the direction this host received) or \"sender\" (the one it sent)"
        why = (f"{how} names {len(picked)} of them" if how else
               "which one is meant: name it with connection" + (by_side if entry.get("metric") == "goodput" else ""))
        raise Fail("connection" if wanted is not None else "file", wanted if wanted is not None else name,
                   f"this iperf file holds both directions of a -d / -r / --full-duplex test: "
                   f"{_listing(df, dirs)}; {why}")
    src, dst, by = picked[0]
    keep = ((df["src"].astype(str) == src) & (df["dst"].astype(str) == dst) & (df["printed_by"].astype(str) == by))
    out = df[keep.to_numpy()].copy()
    out.attrs.update(df.attrs)
    summary = [s for s in (df.attrs.get("summary") or []) if isinstance(s, dict)
               and str(s.get("src")) == src and str(s.get("dst")) == dst
               and (s.get("printed_by") == by or s.get("role") == "server report")]
    out.attrs.update(side="client" if by == "sender" else "server", reverse=False, summary=summary, end_name=by)
    host = "received" if by == "receiver" else "sent"
    note = f"{src} -> {dst}, the direction this host {host} (the file holds both: -d / -r / --full-duplex)"
    chosen = ["connection"] if wanted is None else []
    return out, [note], chosen
