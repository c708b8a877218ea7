"""Reading tidy measurement tables: CSV files, manifests and folders, into one frame.

Part of :mod:`labcalc.compare` (import the names from there). :func:`load_measurements`
reads a tidy measurement CSV by the one text-input policy of :mod:`labcalc._textio`, or
builds a measurement manifest (:mod:`labcalc.measure.manifest`) first, checks every unit
against the quantity grammar of :mod:`labcalc.units` and the kind each metric's name
implies (:func:`metric_kind`), and adds the values in base units.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

__all__ = ["REQUIRED_COLUMNS", "KEY_COLUMNS", "FILE_COLUMNS", "MAX_FILE_BYTES", "MeasurementError",
           "metric_kind", "load_measurements"]

#: Columns every measurement file must have (``note`` is optional).
REQUIRED_COLUMNS = ("question", "scenario", "flow", "metric", "value", "unit")

#: The columns that name one measurement; a file may hold each combination once.
KEY_COLUMNS = ("question", "scenario", "flow", "metric")

#: Largest measurement file read [bytes] (after gzip decompression): 64 MiB, far above any
#: hand-made or built table (a million rows), far below what would exhaust memory.
MAX_FILE_BYTES = 64 << 20

#: The columns of a measurement file as written (what :func:`measurement_rows` shows).
FILE_COLUMNS = (*REQUIRED_COLUMNS, "note")

#: What each base unit is, for messages.
KIND_NAMES = {"bit/s": "a rate (bit/s, kbit/s, Mbit/s, kB/s...)", "s": "a time (s, ms)",
               "byte": "a size in bytes (bytes, kB...)", "packet": "a count of packets (packets, segments)",
               "1": "a plain number or a percentage (1, %)"}

#: Words of a metric name (split at "_") that say which kind of quantity it is.
_METRIC_WORDS = {
    "1": {"share", "jain", "fairness", "utilisation", "utilization", "efficiency", "ratio", "fraction",
          "probability", "beta"},
    "s": {"rtt", "delay", "time", "duration", "rto", "srtt", "jitter", "mdev"},
    "bit/s": {"goodput", "throughput", "rate", "bandwidth", "capacity", "bps"},
    "size": {"cwnd", "ssthresh", "queue", "backlog", "window", "buffer", "transfer", "mss", "mtu", "size"},
}


class MeasurementError(ValueError):
    """A measurement file is unreadable or a row is invalid (the message says where).

    The message is one line; it quotes a cell of the file at most ``MAX_QUOTE_CHARS``
    characters long (a longer one is cut, ``...``).
    """

    __module__ = "labcalc.compare"  # where users import it from, and how tracebacks name it

    def __init__(self, message: str = ""):
        super().__init__(_short_quotes(str(message)))


#: Longest quotation of a file's cell in a message [characters].
MAX_QUOTE_CHARS = 80


def _q(value) -> str:
    """A cell as a message quotes it: its repr, cut to MAX_QUOTE_CHARS characters."""
    text = repr(value)
    return text if len(text) <= MAX_QUOTE_CHARS else text[: MAX_QUOTE_CHARS - 4] + "...'"


def _short_quotes(message: str) -> str:
    """*message* on one line (the cells it quotes are cut by :func:`_q` where it is built)."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


def metric_kind(metric: str):
    """The base units a metric's name implies, or None when the name does not say.

    The name is split at underscores and each word looked up: ``rtt``, ``delay``,
    ``time`` are times; ``goodput``, ``rate``, ``throughput`` rates; ``cwnd``,
    ``queue``, ``mss`` sizes (bytes or packets); a loss (:func:`load_measurements`'s
    rule: ``loss``, ``..._loss``) and ``share``, ``jain``, ``ratio``, ``beta``... plain
    numbers. A name whose words point to two different kinds (``cwnd_first_loss``) or to
    none (``C``) gives None.

    Parameters
    ----------
    metric : str
        A metric name of a measurement file (case does not matter).

    Returns
    -------
    tuple of str or None
        The base units the metric may have (``("s",)``, ``("bit/s",)``,
        ``("byte", "packet")``, ``("1",)``), or None.

    Examples
    --------
    >>> metric_kind("rtt_min"), metric_kind("offered_rate"), metric_kind("Loss")
    (('s',), ('bit/s',), ('1',))
    >>> metric_kind("max_queue"), metric_kind("cwnd_first_loss"), metric_kind("C")
    (('byte', 'packet'), None, None)
    """
    name = str(metric).strip().lower()
    words = set(name.split("_"))
    kinds = {kind for kind, known in _METRIC_WORDS.items() if words & known}
    if _is_loss(name):
        kinds.add("1")
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    return ("byte", "packet") if kind == "size" else (kind,)


def kind_text(kinds) -> str:
    return " or ".join(KIND_NAMES.get(k, repr(k)) for k in kinds)


#: A plain decimal number as a spreadsheet writes it (also nan/inf, refused later as not finite).
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)", re.I)


def _read_rows(source, name: str):
    """Header (stripped, lower case), records and the file line each record starts on.

    Read with the csv module rather than pandas: pandas silently takes a first column as
    the index when the data rows have one field more than the header (an unquoted decimal
    comma, ``3,58``), which shifts every column; here a row whose field count differs from
    the header's is an error naming its line. Blank lines are skipped but counted, so the
    row numbers are the file's line numbers.
    """
    import collections

    # The one text-input policy of labcalc (labcalc._textio): a size limit, gzip, the BOM
    # removed, UTF-8 with a reported cp1252/latin-1 fallback, a NUL byte refused naming its line.
    from labcalc._textio import TextInputError, read_text

    try:
        res = read_text(source, max_bytes=MAX_FILE_BYTES, nul="error", name=name)
    except TextInputError as exc:
        where = f"{name}, row {exc.line}" if exc.line is not None else name
        raise MeasurementError(f"{where}: {exc.detail}") from None
    notes = [n + "; check its accented letters, or save it as CSV UTF-8" if "UTF-8" in n else n for n in res.notes]
    # comma, semicolon (a European spreadsheet's CSV) or tab, Excel's "sep=;" line and labcalc's
    # own header lines, with the file's line numbers: the reading a manifest's [[table]] shares
    from labcalc.measure.tidy import TableLineError, csv_records

    try:
        delimiter, found = csv_records(res.text, REQUIRED_COLUMNS)
    except TableLineError as exc:
        raise MeasurementError(f"{name}, row {exc.line}: not a readable CSV ({exc.detail})") from None
    if not found:
        raise MeasurementError(f"{name}: the file is empty (not even a header line)")
    (start, head), records, lines = found[0], [], []
    header = [f.strip().lower() for f in head]
    # counted in one pass: header.count per column was quadratic (30,000 columns: 18 s)
    counts = collections.Counter(header)
    repeated = sorted(h for h, n in counts.items() if h and n > 1)
    if repeated:
        raise MeasurementError(f"{name}, row {start}: column {repeated[0]!r} appears twice in the header "
                               f"(column names are read without case and spaces)")
    for start, fields in found[1:]:
        while len(fields) > len(header) and not fields[-1].strip():
            fields = fields[:-1]  # trailing empty cells a spreadsheet adds
        if len(fields) < len(header) and all(h not in REQUIRED_COLUMNS for h in header[len(fields):]):
            fields = fields + [""] * (len(header) - len(fields))  # optional trailing columns left out
        if len(fields) != len(header):
            raise MeasurementError(
                f"{name}, row {start}: {len(fields)} fields where the header has {len(header)} "
                f"({', '.join(header)}); a decimal comma (3,58) or a comma in a note must be quoted, "
                f"or write 3.58")
        records.append(fields)
        lines.append(start)
    return header, records, lines, notes, delimiter


def load_measurements(source, quiet: bool = False, allow_outside: bool = False):
    """Read one or more tidy measurement CSV files.

    The reader forgives what a hand-written file often has: spaces around the commas
    and the header names, header names in capitals, no ``note`` column (an empty one is
    added), metric names in capitals (``Goodput``: metric names are stored in lower
    case, and :func:`measured` lower-cases the metric it looks for), handout ids in
    lower case (``q14`` is stored as ``Q14``), units in any case
    where that is unambiguous (``Segments``, ``KBit/s``; ``Ms`` is refused, it would be
    megaseconds). It refuses what it cannot read unambiguously: a blank unit, except
    for a metric whose name says it is a plain number or a percentage (a loss, a
    share: see :func:`metric_kind`), and the same measurement (question, scenario, flow,
    metric) given twice with different values. The same measurement given twice with
    the same value is kept once, with a printed note.

    Parameters
    ----------
    source : path, file-like, or list of paths
        A CSV file (comma-, semicolon- or tab-separated, or with Excel's ``sep=`` first
        line; in a semicolon- or tab-separated file a decimal comma is read as in an
        answer, ``4,8`` = 4.8), an open text stream, a folder (every ``*.csv`` in it, sorted), or a
        list of any of these. A measurement manifest (``.toml``), or a folder holding one,
        is built from its raw files first (:func:`labcalc.measure.build_manifest`); its
        provenance columns (``source``, ``window_s``, ``n_samples``...) are kept.
    quiet : bool, default False
        Do not print the notes (repeated rows, a file decoded as cp1252).
    allow_outside : bool, default False
        Let a manifest read files outside its own folder (see
        :func:`labcalc.measure.build_manifest`); by default it reads only the files in its
        folder and below it.

    Returns
    -------
    pandas.DataFrame
        The file's columns (``note`` empty when the file has none), stripped of
        surrounding spaces, plus ``value_base`` (float, base units) and ``base_unit``
        (``"bit/s"``, ``"s"``, ``"byte"``, ``"packet"``, ``"1"``; percentages become
        fractions; ``segments`` count as packets), ``file`` (the source's file name, or
        ``"<stream>"`` for an open text stream without a name) and ``row`` (the row in
        that file, header = 1). ``df.attrs["files"]`` lists the sources, even when they
        hold no rows; ``df.attrs["notes"]`` what was done while reading (a file that was
        not UTF-8 and was decoded as cp1252: also printed unless *quiet*).

    Raises
    ------
    MeasurementError
        A missing file or column, a value that is not a number, an unknown unit, a blank
        unit for a metric that is not a plain number, a loss (a metric named ``loss`` or
        ``..._loss``, in % or as a fraction) outside 0-100 %, two rows for the same
        measurement with different values, a file larger than ``MAX_FILE_BYTES`` or holding
        a NUL byte (a binary file); the message names the file, the row (as
        numbered in the file, header = 1), the column and the value.

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> m = load_measurements(measurement_path("lab5", "part2.csv"))
    >>> row = m[(m.scenario == "A2") & (m.flow == "h1_udp") & (m.metric == "loss")]
    >>> float(row.value_base.iloc[0])
    0.0358

    Spaces, capitals and a missing ``note`` column are accepted:

    >>> import io
    >>> m = load_measurements(io.StringIO("question, scenario, flow, Metric, value, unit\\n"
    ...                                   "Q7, 5M , h1, Goodput, 4.79, Mbit/s\\n"))
    >>> m.scenario[0], m.metric[0], float(m.value_base[0]), m.note[0]
    ('5M', 'goodput', 4790000.0, '')

    An RTT without a unit is refused:

    >>> load_measurements(io.StringIO("question,scenario,flow,metric,value,unit\\nQ18,B2,h2,rtt,60,\\n"))
    Traceback (most recent call last):
    ...
    labcalc.compare.MeasurementError: <stream>, row 2, column 'unit': blank unit for metric 'rtt' (value 60); give its unit: a time (s, ms)
    """
    # Long because it is the one place that reads a measurement table row by row and
    # names the file, row and column of every refusal; each check is a few lines and
    # they run in file order.
    import pandas as pd

    if isinstance(source, (str, Path)) and not (isinstance(source, str) and "\n" in source):
        # A measurement manifest (or a folder holding one): build its table from the raw files
        # (labcalc.measure.manifest), then read that table like any tidy CSV.
        import io

        from labcalc.measure.manifest import ManifestError, build_manifest, find_manifest, write_measurements

        try:
            manifest = find_manifest(source)
            if manifest is not None:
                built = build_manifest(manifest, allow_outside=allow_outside)
                buf = io.StringIO()
                write_measurements(built, buf)
                # without labcalc's header lines: row N of the built table is then its line N
                from labcalc.measure.tidy import header_lines

                lines = buf.getvalue().splitlines(keepends=True)
                buf = io.StringIO("".join(lines[header_lines(lines):]))
                buf.name = str(manifest)
                try:
                    return load_measurements(buf, quiet=quiet)
                except MeasurementError as exc:
                    raise MeasurementError(_row_origin(str(exc), built.attrs.get("origin", []))) from None
        except ManifestError as exc:
            raise MeasurementError(str(exc)) from None
    if isinstance(source, (list, tuple)):
        frames = [load_measurements(s, quiet=quiet, allow_outside=allow_outside) for s in source]
        files = [f for frame in frames for f in frame.attrs.get("files", [])]
        if not frames:
            df = pd.DataFrame(columns=[*FILE_COLUMNS, "value_base", "base_unit", "file", "row"])
        else:
            df = pd.concat(frames, ignore_index=True)
            df = _drop_repeated(df, None, quiet)
        df.attrs["files"] = files
        df.attrs["notes"] = [n for frame in frames for n in frame.attrs.get("notes", [])]
        return df
    name = getattr(source, "name", None) or "<stream>"
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            # no manifest here (find_manifest above found none): the folder's *.csv tables
            files = sorted(path.glob("*.csv"))
            if not files:
                raise MeasurementError(_folder_without_tables(path))
            try:
                return load_measurements(files, quiet=quiet)
            except MeasurementError as exc:
                if not getattr(exc, "not_a_table", None):
                    raise
                raise MeasurementError(f"{path}: no manifest (*.toml) in this folder, so its *.csv files are read as "
                                       f"measurement tables, and {exc.not_a_table}; {_MANIFEST_HINT}") from None
        if not path.exists():
            raise MeasurementError(f"{path}: measurement file not found")
        name = str(path)
    short = Path(name).name if name != "<stream>" else name
    try:
        header, records, line_numbers, notes, delimiter = _read_rows(source, name)
    except MeasurementError:
        what = _raw_file(source)
        if what:
            raise _not_a_table(name, short, what) from None
        raise
    if notes and not quiet:
        print("\n".join(notes))
    df = pd.DataFrame(records, columns=header, dtype=str)
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        what = _raw_file(source)
        if what:
            raise _not_a_table(name, short, what)
        samples = [c for c in ("rate_bps", "rtt_s", "cwnd_segments", "cwnd_bytes", "backlog_packets", "start_s")
                   if c in df.columns]
        hint = (f"; its columns ({', '.join(samples)}, ...) are those of a per-sample table (the output of "
                f"'labcalc convert'): name it as file = \"{short}\" in a manifest's [[measurement]] and build that"
                if samples else "")
        raise MeasurementError(
            f"{name}: missing column {missing[0]!r} (a measurement file needs {', '.join(REQUIRED_COLUMNS)}){hint}"
        )
    if "note" not in df.columns:
        df["note"] = ""
    for column in (*KEY_COLUMNS, "value", "unit", "note"):
        df[column] = df[column].astype(str).str.strip()
    df["metric"] = df["metric"].str.lower()
    df["question"] = df["question"].map(question_id)
    values, bases, units = [], [], []
    for row_number, value, unit, metric in zip(line_numbers, df["value"], df["unit"], df["metric"]):
        if re.fullmatch(r"[+-]?\d+,\d+", value):
            if delimiter == ",":  # quoted in a comma-separated file: the writer's slip, say so
                raise MeasurementError(f"{name}, row {row_number}: value {_q(value)} has a decimal comma "
                                       f"(column 'value'); write {value.replace(',', '.')}")
            # A semicolon- or tab-separated file (a European spreadsheet's export) writes every
            # value with a decimal comma: read it by the one grammar, as an answer is read
            # ('4,8' is 4.8; '4,690' is refused as ambiguous)
            from labcalc.units import parse_quantity

            try:
                number = parse_quantity(value)[0]
            except ValueError as exc:
                raise MeasurementError(f"{name}, row {row_number}, column 'value': "
                                       f"{str(exc).removeprefix('quantity: ')}") from None
        elif not _NUMBER.fullmatch(value):  # float() alone would take '0_964' as 964
            raise MeasurementError(f"{name}, row {row_number}: value {_q(value)} is not a number (column 'value')")
        else:
            number = float(value)
        if not math.isfinite(number):
            raise MeasurementError(f"{name}, row {row_number}: value {_q(value)} is not finite")
        kinds = metric_kind(metric)
        if unit == "":
            if kinds != ("1",):
                hint = f"give its unit: {kind_text(kinds)}" if kinds else "give its unit (1 for a plain number)"
                raise MeasurementError(
                    f"{name}, row {row_number}, column 'unit': blank unit for metric {_q(metric)} (value {value}); {hint}")
            base, base_unit = number, "1"
        elif unit == "1":
            base, base_unit = number, "1"
        elif _NUMBER.fullmatch(unit) or unit[:1].isdigit():
            raise MeasurementError(
                f"{name}, row {row_number}, column 'unit': {_q(unit)} is a number, not a unit (value {_q(value)}); "
                f"a decimal comma splits a value in two: write {value}.{unit} or quote it")
        elif unit.lower() in ("segments", "segment", "segs", "seg"):
            base, base_unit = number, "packet"
        else:
            try:
                base, base_unit = _parse_unit(number, unit)
            except ValueError as exc:
                # the grammar's own reason ("'Ms' would be megaseconds; write 'ms'...")
                reason = str(exc).removeprefix("quantity: ")
                raise MeasurementError(f"{name}, row {row_number}, column 'unit': cannot read unit "
                                       f"{_q(unit)} (value {value}): {reason}") from None
            if kinds and base_unit not in kinds and not (base_unit == "1" and "packet" in kinds):
                hint = ""
                if "bit/s" in kinds and base_unit == "byte":
                    stem = unit[:-1] if unit.endswith("s") and unit[-2:-1].lower() in ("t", "e") else unit
                    hint = f"; did you mean {stem}/s?"
                raise MeasurementError(
                    f"{name}, row {row_number}, column 'unit': unit {_q(unit)} (value {value}) is "
                    f"{KIND_NAMES.get(base_unit, base_unit)}, but metric {_q(metric)} is "
                    f"{kind_text(kinds)}{hint}")
        if base_unit == "1" and _is_loss(metric) and not 0.0 <= base <= 1.0:
            shown = f"{value} {unit}".strip()
            limits = "0 and 100 %" if unit == "%" else "0 and 1 (or give it in %)"
            raise MeasurementError(
                f"{name}, row {row_number}, column 'value': {_q(shown)} is not a loss; metric {_q(metric)} "
                f"must lie between {limits}")
        values.append(number)
        bases.append(base)
        units.append(base_unit)
    df["value"] = pd.Series(values, index=df.index, dtype=float)
    df["value_base"] = pd.Series(bases, index=df.index, dtype=float)
    df["base_unit"] = pd.Series(units, index=df.index, dtype=object)
    df["file"] = short
    df["row"] = line_numbers
    df = _drop_repeated(df, name, quiet)
    df.attrs["files"] = [short]
    df.attrs["notes"] = notes
    return df


#: The next step for raw files: a manifest (data/README.md explains it).
_MANIFEST_HINT = ("write a manifest.toml that names each raw file with its question, scenario, flow and metric "
                  "(data/README.md, 'From raw files: a manifest'; data/measurements/lab5/raw/manifest.toml is "
                  "an example) and give the manifest, or the folder holding it, as the measurements")


def _raw_file(source) -> str | None:
    """What a file is in words when it is a tool's output or one of labcalc's own non-table files, else None."""
    if not isinstance(source, (str, Path)) or (isinstance(source, str) and "\n" in source):
        return None
    from labcalc.measure import describe
    from labcalc.measure.tidy import KINDS

    try:
        with open(source, "rb") as fh:
            head = fh.read(1 << 16)
        if head[:2] == b"\x1f\x8b":
            import gzip

            with gzip.open(source, "rb") as fh:
                head = fh.read(1 << 16)
    except (OSError, EOFError):
        return None
    what = describe(head.decode("utf-8", "replace"))
    return None if what == KINDS["measurements"] else what


def _not_a_table(name: str, short: str, what: str) -> MeasurementError:
    """The error for a file given as a measurement table that is a tool's printout or a per-sample table.

    Its ``not_a_table`` attribute says the same in a few words, for the message about a folder.
    """
    if what.startswith("labcalc") or "ns-3 run" in what:
        kind = f"{what} (written by labcalc)"
    else:
        kind = f"{what} (a tool's raw output)"
    exc = MeasurementError(f"{name}: {kind}, not a measurement table with columns {', '.join(REQUIRED_COLUMNS)}; "
                           f"name it in a manifest's [[measurement]] (file = \"{short}\", with its question, "
                           f"scenario, flow and metric) and give the manifest, or the folder holding it, as the "
                           f"measurements")
    exc.not_a_table = f"{short} is {kind}"
    return exc


def _folder_without_tables(path: Path) -> str:
    """A folder with no manifest and no *.csv: say what a folder needs, and what this one holds."""
    found = []
    for f in sorted(p for p in path.iterdir() if p.is_file())[:200]:
        what = _raw_file(f)
        if what:
            found.append(f"{f.name} ({what})")
    held = ""
    if found:
        held = f"; it holds {len(found)} raw file{'s' if len(found) > 1 else ''} such as {', '.join(found[:2])}"
    return (f"{path}: no manifest (*.toml) and no *.csv measurement table in this folder{held}. A folder is read "
            f"through its manifest: {_MANIFEST_HINT}")


def _row_origin(message: str, origin) -> str:
    """Add to a message about row N of a built manifest table the file and line that row comes from."""
    found = re.search(r", row (\d+)\b", message)
    if found:
        k = int(found.group(1)) - 2  # the built table's header is row 1
        if 0 <= k < len(origin) and origin[k] is not None:
            name, line = origin[k]
            return f"{message} (that row is line {line} of {name}, a [[table]] of the manifest)"
    return message


def _parse_unit(number: float, unit: str):
    """(value in base units, base unit) of ``number unit``, via :func:`labcalc.units.parse_quantity`."""
    from labcalc.units import parse_quantity

    return parse_quantity(f"{number!r} {unit}")


def rows_text(rows, path: str | None = None) -> str:
    """``"part1.csv rows 3 and 4"`` / ``"a.csv row 3, b.csv row 2"`` for rows of a measurement table.

    ``path`` (the file as the user named it) replaces the file name when all rows come from
    one file: ``"../data/part1.csv, rows 3 and 4"``.
    """
    if "row" not in rows.columns:
        return f"{len(rows)} row{'' if len(rows) == 1 else 's'}"
    by_file: dict = {}
    for f, r in zip(rows["file"], rows["row"]):
        by_file.setdefault(str(f), []).append(int(r))
    parts = []
    for f, numbers in by_file.items():
        listed = ", ".join(str(n) for n in numbers[:-1]) + (" and " if len(numbers) > 1 else "") + str(numbers[-1])
        where = f"{path}," if path is not None and len(by_file) == 1 else f
        parts.append(f"{where} row{'s' if len(numbers) > 1 else ''} {listed}")
    return ", ".join(parts)


def _key_text(key) -> str:
    question, scenario, flow, metric = key
    return f"{question} (scenario {_q(scenario)}, flow {_q(flow)}, metric {_q(metric)})"


def _drop_repeated(df, path: str | None, quiet: bool):
    """Keep one of several rows for the same measurement with the same value; refuse different values."""
    repeated = df[df.duplicated(list(KEY_COLUMNS), keep=False)]
    if repeated.empty:
        return df
    notes = []
    for key, group in repeated.groupby(list(KEY_COLUMNS), sort=False):
        first = group.iloc[0]
        same = all(u == first.base_unit and math.isclose(v, first.value_base, rel_tol=1e-9, abs_tol=1e-12)
                   for u, v in zip(group.base_unit, group.value_base))
        if not same:
            shown = "; ".join(f"{v:g} {u}".strip() for v, u in zip(group["value"], group["unit"]))
            raise MeasurementError(
                f"{rows_text(group, path)}: the same measurement {_key_text(key)} with different values "
                f"({shown}); keep one row, or tell the runs apart in the scenario column")
        notes.append(f"{rows_text(group)} repeat {_key_text(key)} with the same value")
    if notes and not quiet:
        for text in notes[:3]:
            print(f"note: {text}; using it once")
        if len(notes) > 3:
            print(f"note: ... and {len(notes) - 3} more measurements repeated with the same value; each is used once")
    return df.drop_duplicates(list(KEY_COLUMNS), keep="first").reset_index(drop=True)


def _is_loss(metric: str) -> bool:
    """A metric that is a loss rate: ``loss``, ``..._loss`` or ``loss_...`` (not ``loss_event_1``)."""
    words = metric.lower().split("_")
    return "loss" in words and not any(w in ("event", "events", "time", "count") for w in words)


_HANDOUT_ID = re.compile(r"q\d+(?:\.\d+)?", re.I)


def question_id(question):
    """A handout question id in its usual form (``q14`` -> ``Q14``); other ids unchanged."""
    if isinstance(question, str) and _HANDOUT_ID.fullmatch(question):
        return question.upper()
    return question
