"""The ``[[table]]`` entries of a manifest: rows of a tidy measurement CSV, kept as written.

Part of :mod:`labcalc.measure.manifest`.
"""

from __future__ import annotations

from pathlib import Path

from ._manifest_files import one_line, show

__all__ = ["table_rows"]


def table_rows(manifest: Path, entry: dict, columns: list, tidy_columns: tuple, error) -> tuple[list[dict], list[tuple[str, int]]]:
    """The rows of a ``[[table]]`` entry as written (strings), and (file, line) of each.

    Only the text is read here (by the one text-input policy, with the delimiter sniffing
    of the answer-sheet reader); the values and units are checked when the built table is
    loaded by :func:`labcalc.compare.load_measurements`, whose messages then name the file
    and line a bad row comes from.
    """
    from labcalc import _textio

    from .tidy import TableLineError, csv_records

    fp = entry["paths"][0]
    where = f"{one_line(manifest)}, table #{entry['index']}, key 'file' = {show(entry['file'])}"
    try:
        text = _textio.read_text(fp, max_bytes=64 << 20).text
    except _textio.TextInputError as exc:
        raise error(f"{where}: cannot read it ({one_line(exc)})") from None
    try:
        _, records = csv_records(text, tidy_columns)
    except TableLineError as exc:
        raise error(f"{where}: line {exc.line} is not readable CSV ({one_line(exc.detail)})") from None
    if not records:
        raise error(f"{where}: the file is empty")
    (_, head), rows, origin = records[0], [], []
    header = [f.strip().lower() for f in head]
    missing = [c for c in tidy_columns if c not in header]
    if missing:
        raise error(f"{where}: not a tidy measurement table (no column {missing[0]!r}; "
                    f"it needs {', '.join(tidy_columns)}); a tool's output or a "
                    f"'labcalc convert' CSV belongs in a [[measurement]] entry")
    for start, fields in records[1:]:
        if len(fields) > len(header):
            raise error(f"{where}: line {start} has {len(fields)} fields where the header has "
                        f"{len(header)}; quote a decimal comma (3,58) or write 3.58")
        row = dict(zip(header, (f.strip() for f in fields)))
        out = {c: row.get(c, "") for c in columns}
        out.update(source=out["source"] or fp.name, reader=out["reader"] or "table")
        rows.append(out)
        origin.append((fp.name, start))
    return rows, origin


