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
    import csv
    import io

    from labcalc import _textio

    fp = entry["paths"][0]
    where = f"{one_line(manifest)}, table #{entry['index']}, key 'file' = {show(entry['file'])}"
    try:
        text = _textio.read_text(fp, max_bytes=64 << 20).text
    except _textio.TextInputError as exc:
        raise error(f"{where}: cannot read it ({one_line(exc)})") from None
    lines = text.splitlines(keepends=True)
    from .tidy import header_lines

    for k in range(header_lines(lines)):  # a table built by labcalc: its header lines, blanked (numbering kept)
        lines[k] = "\n"
    first = next((k for k, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise error(f"{where}: the file is empty")
    sep = _textio.SEP_LINE.match(lines[first])
    if sep:
        delimiter = sep.group(1)
        lines[first] = "\n"
    else:
        delimiter = _textio.sniff_delimiter(lines[first], tidy_columns)
    reader = csv.reader(io.StringIO("".join(lines), newline=""), skipinitialspace=True, delimiter=delimiter)
    header, rows, origin, last = None, [], [], 0
    try:
        for fields in reader:
            start, last = last + 1, reader.line_num
            if not any(f.strip() for f in fields):
                continue
            if header is None:
                header = [f.strip().lower() for f in fields]
                missing = [c for c in tidy_columns if c not in header]
                if missing:
                    raise error(f"{where}: not a tidy measurement table (no column {missing[0]!r}; "
                                f"it needs {', '.join(tidy_columns)}); a tool's output or a "
                                f"'labcalc convert' CSV belongs in a [[measurement]] entry")
                continue
            if len(fields) > len(header):
                raise error(f"{where}: line {start} has {len(fields)} fields where the header has "
                                    f"{len(header)}; quote a decimal comma (3,58) or write 3.58")
            row = dict(zip(header, (f.strip() for f in fields)))
            out = {c: row.get(c, "") for c in columns}
            out.update(source=out["source"] or fp.name, reader=out["reader"] or "table")
            rows.append(out)
            origin.append((fp.name, start))
    except csv.Error as exc:
        raise error(f"{where}: line {reader.line_num} is not readable CSV ({one_line(exc)})") from None
    if header is None:
        raise error(f"{where}: the file is empty")
    return rows, origin


