"""Predictions next to measurements: tidy measurement files and comparison tables.

A measurement file is a CSV with one value per row (the layout of
``data/measurements/lab5/*.csv``)::

    question,scenario,flow,metric,value,unit,note
    Q14,A2,h1_udp,goodput,0.964,Mbit/s,
    Q14,A2,h1_udp,loss,3.58,%,

:func:`load_measurements` reads it and adds ``value_base`` / ``base_unit`` (bit/s, s,
byte, packet or a plain fraction). :func:`compare` lines predictions up with
measurements and gives the relative error and a verdict against a stated threshold.

A student's own file may lack some rows. :func:`measured` then returns a ``default``
(NaN) instead of raising, :func:`if_measured` turns a model fed with a missing input into
a missing result, and the tables show such rows as *missing* with the verdict
*no data* and a note naming the measurement and the file.

A hand-written file is read with some forgiveness (spaces around the commas, capitals in
the header and the metric names, no ``note`` column, a row repeated with the same value)
but never guesses: a blank unit for a quantity that has one, or the same measurement with
two values, stops :func:`load_measurements` with the file, the row and the column.
Lookups with :func:`measured` should name every filter the file has (question, scenario, flow,
metric), and ``kind=`` checks that a value fed to a model has the right kind of unit.

Examples
--------
>>> import io
>>> text = "question,scenario,flow,metric,value,unit\\nQ7,5M,h1,goodput,4798,kbit/s\\n"
>>> m = load_measurements(io.StringIO(text))
>>> float(m.value_base.iloc[0]), m.base_unit.iloc[0]
(4798000.0, 'bit/s')
"""

from __future__ import annotations

import math
import re
from pathlib import Path

__all__ = [
    "REQUIRED_COLUMNS",
    "KEY_COLUMNS",
    "FILE_COLUMNS",
    "load_measurements",
    "metric_kind",
    "measured",
    "select",
    "measurement_rows",
    "missing_note",
    "missing_inputs",
    "if_measured",
    "compare",
    "compare_measured",
    "format_comparison",
    "compare_band",
    "format_band",
    "pick",
    "check_answer",
    "MeasurementError",
]

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
_KIND_NAMES = {"bit/s": "a rate (bit/s, kbit/s, Mbit/s, kB/s...)", "s": "a time (s, ms)",
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
    """A measurement file is unreadable or a row is invalid (the message says where)."""


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


def _kind_text(kinds) -> str:
    return " or ".join(_KIND_NAMES.get(k, repr(k)) for k in kinds)


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
    import csv
    import io

    # The one text-input policy of labcalc (labcalc._textio): a size limit, gzip, the BOM
    # removed, UTF-8 with a reported cp1252/latin-1 fallback, a NUL byte refused naming its line.
    from labcalc._textio import TextInputError, read_text

    try:
        res = read_text(source, max_bytes=MAX_FILE_BYTES, nul="error", name=name)
    except TextInputError as exc:
        where = f"{name}, row {exc.line}" if exc.line is not None else name
        raise MeasurementError(f"{where}: {exc.detail}") from None
    text = res.text
    notes = [n + "; check its accented letters, or save it as CSV UTF-8" if "UTF-8" in n else n for n in res.notes]
    # Comma, semicolon (a European spreadsheet's CSV) or tab, and Excel's "sep=;" first
    # line: the same sniffing as the answer-sheet reader (labcalc._textio.sniff_delimiter). The
    # sep= line is blanked, not removed, so row numbers stay the file's line numbers.
    from labcalc._textio import SEP_LINE, sniff_delimiter

    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    delimiter = ","
    if first is not None:
        sep = SEP_LINE.match(lines[first])
        if sep:
            delimiter = sep.group(1)
            lines[first] = "\n"
            text = "".join(lines)
        else:
            delimiter = sniff_delimiter(lines[first], REQUIRED_COLUMNS)
    reader = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True, delimiter=delimiter)
    header, records, lines, last = None, [], [], 0
    try:
        for fields in reader:
            start, last = last + 1, reader.line_num
            if not any(f.strip() for f in fields):
                continue
            if header is None:
                header = [f.strip().lower() for f in fields]
                repeated = sorted({h for h in header if h and header.count(h) > 1})
                if repeated:
                    raise MeasurementError(f"{name}, row {start}: column {repeated[0]!r} appears twice in the header "
                                           f"(column names are read without case and spaces)")
                continue
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
    except csv.Error as exc:
        raise MeasurementError(f"{name}, row {reader.line_num}: not a readable CSV ({exc})") from None
    if header is None:
        raise MeasurementError(f"{name}: the file is empty (not even a header line)")
    return header, records, lines, notes


def load_measurements(source, quiet: bool = False):
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
        A CSV file, an open text stream, a folder (every ``*.csv`` in it, sorted), or a
        list of any of these. A measurement manifest (``.toml``), or a folder holding one,
        is built from its raw files first (:func:`labcalc.measure.build_manifest`); its
        provenance columns (``source``, ``window_s``, ``n_samples``...) are kept.
    quiet : bool, default False
        Do not print the notes (repeated rows, a file decoded as cp1252).

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
    import pandas as pd

    if isinstance(source, (str, Path)) and not (isinstance(source, str) and "\n" in source):
        # A measurement manifest (or a folder holding one): build its table from the raw files
        # (labcalc.measure.manifest), then read that table like any tidy CSV.
        import io

        from labcalc.measure.manifest import ManifestError, build_manifest, find_manifest, write_measurements

        try:
            manifest = find_manifest(source)
            if manifest is not None:
                built = build_manifest(manifest)
                buf = io.StringIO()
                write_measurements(built, buf)
                buf.seek(0)
                buf.name = str(manifest)
                try:
                    return load_measurements(buf, quiet=quiet)
                except MeasurementError as exc:
                    raise MeasurementError(_row_origin(str(exc), built.attrs.get("origin", []))) from None
        except ManifestError as exc:
            raise MeasurementError(str(exc)) from None
    if isinstance(source, (list, tuple)):
        frames = [load_measurements(s, quiet=quiet) for s in source]
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
            files = sorted(path.glob("*.csv"))
            if not files:
                raise MeasurementError(f"{path}: folder holds no *.csv measurement file")
            return load_measurements(files, quiet=quiet)
        if not path.exists():
            raise MeasurementError(f"{path}: measurement file not found")
        name = str(path)
    short = Path(name).name if name != "<stream>" else name
    header, records, line_numbers, notes = _read_rows(source, name)
    if notes and not quiet:
        print("\n".join(notes))
    df = pd.DataFrame(records, columns=header, dtype=str)
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise MeasurementError(
            f"{name}: missing column {missing[0]!r} (a measurement file needs {', '.join(REQUIRED_COLUMNS)})"
        )
    if "note" not in df.columns:
        df["note"] = ""
    for column in (*KEY_COLUMNS, "value", "unit", "note"):
        df[column] = df[column].astype(str).str.strip()
    df["metric"] = df["metric"].str.lower()
    df["question"] = df["question"].map(_question_id)
    values, bases, units = [], [], []
    for row_number, value, unit, metric in zip(line_numbers, df["value"], df["unit"], df["metric"]):
        if re.fullmatch(r"[+-]?\d+,\d+", value):
            raise MeasurementError(f"{name}, row {row_number}: value {value!r} has a decimal comma "
                                   f"(column 'value'); write {value.replace(',', '.')}")
        if not _NUMBER.fullmatch(value):  # float() alone would take '0_964' as 964
            raise MeasurementError(f"{name}, row {row_number}: value {value!r} is not a number (column 'value')")
        number = float(value)
        if not math.isfinite(number):
            raise MeasurementError(f"{name}, row {row_number}: value {value!r} is not finite")
        kinds = metric_kind(metric)
        if unit == "":
            if kinds != ("1",):
                hint = f"give its unit: {_kind_text(kinds)}" if kinds else "give its unit (1 for a plain number)"
                raise MeasurementError(
                    f"{name}, row {row_number}, column 'unit': blank unit for metric {metric!r} (value {value}); {hint}")
            base, base_unit = number, "1"
        elif unit == "1":
            base, base_unit = number, "1"
        elif _NUMBER.fullmatch(unit) or unit[:1].isdigit():
            raise MeasurementError(
                f"{name}, row {row_number}, column 'unit': {unit!r} is a number, not a unit (value {value!r}); "
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
                                       f"{unit!r} (value {value}): {reason}") from None
            if kinds and base_unit not in kinds and not (base_unit == "1" and "packet" in kinds):
                hint = ""
                if "bit/s" in kinds and base_unit == "byte":
                    stem = unit[:-1] if unit.endswith("s") and unit[-2:-1].lower() in ("t", "e") else unit
                    hint = f"; did you mean {stem}/s?"
                raise MeasurementError(
                    f"{name}, row {row_number}, column 'unit': unit {unit!r} (value {value}) is "
                    f"{_KIND_NAMES.get(base_unit, base_unit)}, but metric {metric!r} is "
                    f"{_kind_text(kinds)}{hint}")
        if base_unit == "1" and _is_loss(metric) and not 0.0 <= base <= 1.0:
            shown = f"{value} {unit}".strip()
            limits = "0 and 100 %" if unit == "%" else "0 and 1 (or give it in %)"
            raise MeasurementError(
                f"{name}, row {row_number}, column 'value': {shown!r} is not a loss; metric {metric!r} "
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


def _where(rows, path: str | None = None) -> str:
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
    return f"{question} (scenario {scenario!r}, flow {flow!r}, metric {metric!r})"


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
                f"{_where(group, path)}: the same measurement {_key_text(key)} with different values "
                f"({shown}); keep one row, or tell the runs apart in the scenario column")
        notes.append(f"{_where(group)} repeat {_key_text(key)} with the same value")
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


#: Marks "no default given" in :func:`measured` (None or NaN are valid defaults).
_RAISE = object()


def _clean(value):
    return value.strip() if isinstance(value, str) else value


_HANDOUT_ID = re.compile(r"q\d+(?:\.\d+)?", re.I)


def _question_id(question):
    """A handout question id in its usual form (``q14`` -> ``Q14``); other ids unchanged."""
    if isinstance(question, str) and _HANDOUT_ID.fullmatch(question):
        return question.upper()
    return question


def _rows(df, question=None, scenario=None, flow=None, metric=None):
    """The rows matching the filters (None does not filter), texts compared as the loader stores them."""
    rows = df
    for column, wanted in (("question", question), ("scenario", scenario), ("flow", flow), ("metric", metric)):
        if wanted is not None:
            wanted = _clean(wanted)
            if column == "question":
                wanted = _question_id(wanted)
            elif column == "metric" and isinstance(wanted, str):
                wanted = wanted.lower()
            rows = rows[rows[column] == wanted]
    return rows


def _files(df) -> str:
    files = list(dict.fromkeys(df["file"])) if "file" in df.columns and len(df) else []
    if not files:
        files = list(getattr(df, "attrs", {}).get("files", []))
    return ", ".join(str(f) for f in files) if files else "the measurements"


def _check_kind(rows, kind, what: str = "") -> None:
    """Raise MeasurementError when a row's base unit is not one of ``kind``."""
    if kind is None:
        return
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    for _, row in rows.iterrows():
        if row["base_unit"] not in kinds:
            where = _where(rows.loc[[_]]) if "row" in rows.columns else "a row"
            unit = row["unit"] if str(row["unit"]).strip() else "no unit"
            raise MeasurementError(
                f"{where}, column 'unit': {row['question']} metric {row['metric']!r} is in {unit!r}, "
                f"{_KIND_NAMES.get(row['base_unit'], row['base_unit'])}; {what}it must be {_kind_text(kinds)}")


def missing_note(df, question: str, scenario: str | None = None, flow: str | None = None,
                 metric: str | None = None) -> str:
    """The note that says a measurement is not in the file: which one, and which file.

    Parameters
    ----------
    df : pandas.DataFrame
        Measurements as returned by :func:`load_measurements` (its ``file`` column, or
        ``df.attrs["files"]`` for a file without rows, names the file).
    question : str
        Question id, e.g. ``"Q42"``.
    scenario, flow, metric : str, optional
        The filters of the measurement (as in :func:`measured`); None is not shown.

    Returns
    -------
    str
        ``"no measurement for Q42 (flow '1to3', metric 'goodput') in part5.csv"``.

    Examples
    --------
    >>> import io
    >>> m = load_measurements(io.StringIO(
    ...     "question,scenario,flow,metric,value,unit\\nQ7,5M,h1,goodput,4798,kbit/s\\n"))
    >>> missing_note(m, "Q7", scenario="5M", metric="loss")
    "no measurement for Q7 (scenario '5M', metric 'loss') in <stream>"
    """
    parts = [f"{column} {value!r}" for column, value in
             (("scenario", scenario), ("flow", flow), ("metric", metric)) if value is not None]
    what = f" ({', '.join(parts)})" if parts else ""
    return f"no measurement for {question}{what} in {_files(df)}"


def measured(df, question: str, scenario: str | None = None, flow: str | None = None,
             metric: str | None = None, *, default=_RAISE, note: bool = False, kind=None) -> float:
    """The single measured value (base units) matching the filters.

    Parameters
    ----------
    df : pandas.DataFrame
        Measurements as returned by :func:`load_measurements` (needs ``value_base``).
    question : str
        Question id, e.g. ``"Q42"``.
    scenario, flow, metric : str, optional
        Further filters on the columns of the same name; None does not filter. Name all
        that the file has: a filter left out matches every run or flow, and a second
        row (another flow, a repeated run) then makes the lookup ambiguous. Spaces
        around the texts do not matter; the metric is matched in lower case, and a
        handout id ``q14`` as ``Q14``.
    default : float, optional
        Returned when no row matches (typically ``math.nan``: a measurement the file does
        not hold); without it a missing row raises. Several matching rows always raise.
    note : bool, default False
        When ``default`` is returned, print a one-line note saying which measurement is
        missing from which file (see :func:`missing_note`), and the value used instead
        when ``default`` is a finite number.
    kind : str or tuple of str, optional
        The base unit(s) the value must have (``"s"``, ``"bit/s"``, ``"byte"``,
        ``"packet"``, ``"1"``): give it when the value feeds a model, so that an RTT
        typed in kbit/s or a rate in ms stops with a clear message instead of giving
        a wrong prediction.

    Returns
    -------
    float
        The value in base units (bit/s, s, byte, packet or a fraction [1]), or
        ``default``.

    Raises
    ------
    KeyError
        When more than one row matches (the message names the files and rows), or none
        and no ``default`` is given; the message says which filters.
    MeasurementError
        When the matching row's unit is not of the ``kind`` asked for (the message
        names the file, the row and the unit).

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> m = load_measurements(measurement_path("lab5"))
    >>> measured(m, "Q42", scenario="two bottlenecks", flow="1to3", metric="goodput", kind="bit/s")
    1740000.0
    >>> measured(m, "Q42", flow="1to3", metric="loss", default=float("nan"), note=True)
    note: no measurement for Q42 (flow '1to3', metric 'loss') in bonus.csv, part1.csv, part2.csv, part3.csv, part4.csv, part5.csv
    nan
    >>> measured(m, "Q43", flow="1to3", metric="rtt", kind="bit/s")
    Traceback (most recent call last):
    ...
    labcalc.compare.MeasurementError: part5.csv row 6, column 'unit': Q43 metric 'rtt' is in 'ms', a time (s, ms); it must be a rate (bit/s, kbit/s, Mbit/s, kB/s...)
    """
    rows = _rows(df, question, scenario, flow, metric)
    if len(rows) == 0 and default is not _RAISE:
        if note:
            using = ""
            if isinstance(default, (int, float)) and math.isfinite(default):
                using = f"; using {default:g}"
            print(f"note: {missing_note(df, question, scenario, flow, metric)}{using}")
        return default
    if len(rows) != 1:
        where = f" ({_where(rows)})" if len(rows) else f" in {_files(df)}"
        hint = "; name the scenario and the flow to pick one" if len(rows) else ""
        raise KeyError(
            f"{len(rows)} measurements match question={question!r}, scenario={scenario!r}, "
            f"flow={flow!r}, metric={metric!r}{where}; expected exactly one{hint}"
        )
    _check_kind(rows, kind)
    return float(rows["value_base"].iloc[0])


def select(df, question: str | None = None, scenario: str | None = None, flow: str | None = None,
           metric: str | None = None, *, kind=None):
    """Every row matching the filters, e.g. the input rows a notebook builds predictions on.

    Parameters
    ----------
    df : pandas.DataFrame
        Measurements as returned by :func:`load_measurements`.
    question, scenario, flow, metric : str, optional
        Filters on the columns of the same name; None does not filter (the metric is
        matched in lower case).
    kind : str or tuple of str, optional
        The base unit(s) every matching row must have (as in :func:`measured`).

    Returns
    -------
    pandas.DataFrame
        The matching rows (possibly none), in file order.

    Raises
    ------
    MeasurementError
        When a matching row's unit is not of the ``kind`` asked for.

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> m = load_measurements(measurement_path("lab5", "part1.csv"))
    >>> offered = select(m, metric="offered_rate", flow="h1_udp", kind="bit/s")
    >>> offered.value_base.tolist()
    [1000000.0, 4500000.0, 5000000.0, 10000000.0, 20000000.0]
    """
    rows = _rows(df, question, scenario, flow, metric)
    _check_kind(rows, kind)
    return rows


def measurement_rows(df, question: str | None = None, base: bool = False):
    """The rows of a measurement file as written, numbered as in the file (for display).

    Parameters
    ----------
    df : pandas.DataFrame
        Measurements as returned by :func:`load_measurements`.
    question : str or sequence of str, optional
        Only the rows of this question (or these questions).
    base : bool, default False
        Also show ``value_base`` and ``base_unit``, the value as labcalc uses it.

    Returns
    -------
    pandas.DataFrame
        Columns ``question``, ``scenario``, ``flow``, ``metric``, ``value``, ``unit``,
        ``note`` (and ``file`` when the rows come from several files), indexed by the row
        number in the file (header = 1), so that a row is easy to find and fix.

    Examples
    --------
    >>> import io
    >>> m = load_measurements(io.StringIO("question,scenario,flow,metric,value,unit\\nQ7,5M,h1,goodput,4798,kbit/s\\n"))
    >>> measurement_rows(m).columns.tolist(), measurement_rows(m).index.tolist()
    (['question', 'scenario', 'flow', 'metric', 'value', 'unit', 'note'], [2])
    """
    rows = df
    if question is not None:
        wanted = [question] if isinstance(question, str) else list(question)
        rows = rows[rows["question"].isin(wanted)]
    columns = [c for c in FILE_COLUMNS if c in rows.columns]
    if base:
        columns += ["value_base", "base_unit"]
    if "file" in rows.columns and rows["file"].nunique() > 1:
        columns.append("file")
    out = rows[columns].copy()
    if "row" in rows.columns:
        out.index = rows["row"].to_numpy()
        out.index.name = "row"
    return out


def missing_inputs(df, metric: str, flow: str | None = None, uses: str = "its predictions",
                   quiet: bool = False) -> list[str]:
    """Experiments of a file that lack an input row (e.g. the offered rate of a UDP run).

    A notebook that builds its predictions from input rows (one per experiment) silently
    skips an experiment whose input row is missing; this names the skipped experiments.

    Parameters
    ----------
    df : pandas.DataFrame
        Measurements as returned by :func:`load_measurements`.
    metric : str
        The input metric every experiment should have, e.g. ``"offered_rate"``.
    flow : str, optional
        Only experiments (question, scenario) with rows of this flow.
    uses : str, default "its predictions"
        What is skipped without the input, for the note (``"... are not computed"``).
    quiet : bool, default False
        Do not print the notes.

    Returns
    -------
    list of str
        One note per experiment without the input (empty when none is missing); each is
        also printed, prefixed with ``"note: "``, unless ``quiet``.

    Examples
    --------
    >>> import io
    >>> m = load_measurements(io.StringIO(
    ...     "question,scenario,flow,metric,value,unit\\n"
    ...     "Q6,4.5M,h1,offered_rate,4.5,Mbit/s\\nQ6,4.5M,h1,goodput,4.5,Mbit/s\\n"
    ...     "Q7,5M,h1,goodput,4798,kbit/s\\n"))
    >>> notes = missing_inputs(m, "offered_rate", flow="h1")
    note: no measurement for Q7 (scenario '5M', flow 'h1', metric 'offered_rate') in <stream>: its predictions are not computed
    """
    rows = df if flow is None else df[df["flow"] == flow]
    notes = []
    for (question, scenario), group in rows.groupby(["question", "scenario"], sort=False):
        if not (group["metric"] == metric).any():
            notes.append(f"{missing_note(df, question, scenario, flow, metric)}: {uses} are not computed")
    if not quiet:
        for text in notes:
            print(f"note: {text}")
    return notes


def _has_nan(value) -> bool:
    if isinstance(value, (str, bytes)) or value is None:
        return False
    import numpy as np

    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.isnan(arr).any())


def if_measured(func, *args, **kwargs):
    """``func(*args, **kwargs)``, or NaN when one of the numbers passed is NaN.

    A measurement missing from a student's file is NaN (``measured(..., default=nan)``);
    the models of labcalc reject NaN inputs. Wrapping the call turns a missing input into
    a missing result, which the tables then show as *missing*.

    Parameters
    ----------
    func : callable
        The model, e.g. :func:`labcalc.tcp.mathis_rate_bps`.
    *args
        Its positional arguments; numbers, arrays or lists of numbers are checked for NaN.
    **kwargs
        Its keyword arguments, checked the same way.

    Returns
    -------
    object
        What ``func`` returns, or ``float("nan")`` (without calling it) when an argument
        holds a NaN.

    Examples
    --------
    >>> from labcalc import tcp
    >>> round(if_measured(tcp.mathis_rate_bps, 2896, 0.060, 0.22))
    1004352
    >>> if_measured(tcp.mathis_rate_bps, 2896, float("nan"), 0.22)
    nan
    """
    if any(_has_nan(a) for a in args) or any(_has_nan(v) for v in kwargs.values()):
        return math.nan
    return func(*args, **kwargs)


def compare(rows, rtol: float = 0.05):
    """Prediction vs measurement table with relative error and verdict.

    Parameters
    ----------
    rows : iterable of (label, predicted, measured, unit)
        Values in base units; ``unit`` one of ``"bit/s"``, ``"s"``, ``"byte"``,
        ``"packet"``, ``"1"``. A NaN measured value (a missing measurement) or a NaN
        prediction (a model fed with a missing measurement) gets the verdict ``"no data"``
        and no error.
    rtol : float, default 0.05
        Threshold of the verdict: "close" when ``|measured - predicted| <= rtol x
        |predicted|``, otherwise "off". For fractions (losses) the threshold applies
        to the absolute difference in points: ``rtol`` = 0.05 means 5 points.

    Returns
    -------
    pandas.DataFrame
        Indexed by label: ``predicted``, ``measured`` (display units, e.g. kbit/s or
        %), ``unit`` (display), ``error`` (measured - predicted, display units),
        ``rel_error`` (fraction, NaN for fractions), ``verdict`` (``"close"``, ``"off"``
        or ``"no data"``). ``df.attrs["rtol"]`` records the threshold.

    Examples
    --------
    >>> t = compare([("Q7 goodput", 4_690_431.5, 4_798_000.0, "bit/s")], rtol=0.02)
    >>> t.loc["Q7 goodput", "verdict"], round(float(t.loc["Q7 goodput", "rel_error"]), 4)
    ('off', 0.0229)
    >>> compare([("Q10 goodput", 4_782_000.0, float("nan"), "bit/s")]).verdict.tolist()
    ['no data']
    """
    import numpy as np
    import pandas as pd

    if not (isinstance(rtol, (int, float)) and rtol > 0):
        raise ValueError(f"rtol must be positive; got {rtol!r}")
    display = {"bit/s": (1e3, "kbit/s"), "s": (1e-3, "ms"), "byte": (1.0, "bytes"),
               "packet": (1.0, "packets"), "1": (0.01, "%")}
    records = []
    for label, predicted, measured_value, unit in rows:
        if unit not in display:
            raise ValueError(f"unit of {label!r} must be one of {', '.join(display)}; got {unit!r}")
        predicted, measured_value = float(predicted), float(measured_value)
        scale, shown = display[unit]
        error = measured_value - predicted
        if math.isnan(error):
            records.append((label, predicted / scale, measured_value / scale, shown, np.nan, np.nan, "no data"))
            continue
        if unit == "1":
            rel = np.nan
            ok = abs(error) <= rtol
        else:
            rel = error / predicted if predicted else (0.0 if error == 0 else np.inf)
            ok = abs(error) <= rtol * abs(predicted)
        records.append((label, predicted / scale, measured_value / scale, shown, error / scale, rel,
                        "close" if ok else "off"))
    df = pd.DataFrame(records, columns=["label", "predicted", "measured", "unit", "error", "rel_error", "verdict"])
    df = df.set_index("label")
    df.attrs["rtol"] = rtol
    return df


# --------------------------------------------------------------------------------------
# notebooks: predictions against a measurement file, fixed-precision text, answer checks
# --------------------------------------------------------------------------------------

#: Display scale and unit of each base unit in comparison tables (as :func:`compare`).
_DISPLAY = {"bit/s": (1e3, "kbit/s"), "s": (1e-3, "ms"), "byte": (1.0, "bytes"),
            "packet": (1.0, "packets"), "1": (0.01, "%")}


def compare_measured(measurements, rows, rtol: float = 0.05):
    """Predictions next to the matching rows of a measurement file.

    Like :func:`compare`, but the measured values are looked up in ``measurements``
    (the output of :func:`load_measurements`). A prediction without a matching row is
    kept with ``measured`` NaN and the verdict ``"no data"``, so a student's own file may
    hold only some of the experiments; ``df.attrs["notes"]`` then says which
    measurements are missing from which file (:func:`format_comparison` prints it).

    Parameters
    ----------
    measurements : pandas.DataFrame
        From :func:`load_measurements`.
    rows : iterable of (label, predicted, unit, selector)
        ``predicted`` in base units, ``unit`` as in :func:`compare`, ``selector`` a dict
        with ``question`` and optionally ``scenario``, ``flow``, ``metric`` (as in
        :func:`measured`).
    rtol : float, default 0.05
        Threshold of the verdict (see :func:`compare`).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`compare`; ``df.attrs["rtol"]`` is the threshold and
        ``df.attrs["notes"]`` a list with one note per missing measurement.

    Raises
    ------
    ValueError
        A matching measurement whose unit is not of the predicted kind (e.g. a loss
        compared with a rate), or more than one matching row.

    Examples
    --------
    >>> import io
    >>> m = load_measurements(io.StringIO(
    ...     "question,scenario,flow,metric,value,unit\\nQ7,5M,h1,goodput,4798,kbit/s\\n"))
    >>> t = compare_measured(m, [
    ...     ("Q7 goodput", 4_798_464.5, "bit/s", dict(question="Q7", metric="goodput")),
    ...     ("Q7 loss", 0.0403, "1", dict(question="Q7", metric="loss")),
    ... ], rtol=0.01)
    >>> t.verdict.tolist()
    ['close', 'no data']
    >>> t.attrs["notes"]
    ["no measurement for Q7 (metric 'loss') in <stream>"]
    """
    rows = list(rows)
    values, notes = [], []
    for label, predicted, unit, selector in rows:
        try:
            value = measured(measurements, **selector, default=math.nan)
        except KeyError as exc:
            raise ValueError(f"{label}: {exc.args[0]}") from None
        if math.isnan(value):
            text = missing_note(measurements, **selector)
            if text not in notes:
                notes.append(text)
        else:
            match = _rows(measurements, selector["question"], selector.get("scenario"), selector.get("flow"),
                          selector.get("metric"))
            got = match["base_unit"].iloc[0]
            if got != unit:
                raise ValueError(f"{label}: the measurement ({_where(match)}) is in {got!r}, "
                                 f"the prediction in {unit!r}")
        values.append(value)
    table = compare([(r[0], r[1], v, r[2]) for r, v in zip(rows, values)], rtol=rtol)
    table.attrs["notes"] = notes
    return table


def format_comparison(table, digits: int = 1, label_width: int | None = None,
                      percent_digits: int | None = None, notes=()) -> str:
    """A comparison table as fixed-precision text (stable output for notebooks).

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`compare` or :func:`compare_measured`.
    digits : int, default 1
        Decimals of predicted, measured and error (in the display unit).
    label_width : int, optional
        Width of the label column (default: the longest label).
    percent_digits : int, optional
        Decimals of the rows shown in % (losses, shares), e.g. 2 to show a loss of
        4.03 % as the server printed it; default ``digits``.
    notes : sequence of str, default ()
        Further notes printed under the table, after those of the table (e.g. the
        experiments :func:`missing_inputs` found without an input).

    Returns
    -------
    str
        A first line stating the threshold, a header, one line per row, and one
        ``note:`` line per missing measurement (``table.attrs["notes"]``) and per
        entry of ``notes``. The relative
        error is in percent; for losses (shown in %) the error is in points and the
        relative error is left blank. A missing measurement shows as ``missing``, a
        prediction that could not be computed as ``-``.

    Examples
    --------
    >>> t = compare([("Q7 goodput", 4_690_431.5, 4_798_000.0, "bit/s"),
    ...              ("Q7 loss", 0.062, 0.0403, "1")], rtol=0.02)
    >>> print(format_comparison(t))
    verdict: close when |measured - predicted| <= 2 % of predicted (losses: within 2 percentage points)
    label       predicted  measured  unit     error  rel. error  verdict
    Q7 goodput     4690.4    4798.0  kbit/s  +107.6     +2.29 %  off
    Q7 loss           6.2       4.0  %         -2.2              off
    >>> print(format_comparison(t, percent_digits=2).splitlines()[-1])
    Q7 loss          6.20      4.03  %        -2.17              off
    """
    import math as _m

    rtol = table.attrs.get("rtol")
    lines = []
    if rtol is not None:
        pct = f"{rtol * 100:g}"
        lines.append(f"verdict: close when |measured - predicted| <= {pct} % of predicted "
                     f"(losses: within {pct} percentage point{'' if pct == '1' else 's'})")
    labels = [str(i) for i in table.index]
    width = max([len("label")] + [len(x) for x in labels]) if label_width is None else label_width

    def num(x, sign=False, places=digits, nan="-"):
        if x is None or (isinstance(x, float) and _m.isnan(x)):
            return nan
        if round(x, places) == 0:
            x = 0.0  # no "-0.0"
        return f"{x:+.{places}f}" if sign else f"{x:.{places}f}"

    cells = []
    for label, row in zip(labels, table.itertuples(index=False)):
        rel = row.rel_error
        rel_text = "" if rel is None or _m.isnan(rel) else (
            "inf" if _m.isinf(rel) else f"{num(rel * 100, sign=True, places=2)} %")
        places = percent_digits if (percent_digits is not None and row.unit == "%") else digits
        cells.append((label, num(row.predicted, places=places), num(row.measured, places=places, nan="missing"),
                      str(row.unit), num(row.error, sign=True, places=places), rel_text, str(row.verdict)))
    head = ("label", "predicted", "measured", "unit", "error", "rel. error", "verdict")
    widths = [max(len(h), *(len(c[k]) for c in cells)) if cells else len(h) for k, h in enumerate(head)]
    widths[0] = max(width, len(head[0]))
    align = ["<", ">", ">", "<", ">", ">", "<"]

    def line(values):
        return "  ".join(f"{v:{a}{w}}" for v, a, w in zip(values, align, widths)).rstrip()

    lines.append(line(head))
    lines.extend(line(c) for c in cells)
    lines.extend(f"note: {text}" for text in [*table.attrs.get("notes", ()), *notes])
    return "\n".join(lines)


def compare_band(measurements, rows):
    """Measurements against a predicted range: inside the band or outside it.

    Some models predict a range rather than a value, e.g. RED holds the queue between
    two thresholds, so the queueing delay lies between two times. Comparing with one end
    of the range, or with whichever end is nearer, would flatter the model; this states
    the range and says whether each measurement lies in it, and by how much it misses
    otherwise.

    Parameters
    ----------
    measurements : pandas.DataFrame
        From :func:`load_measurements`.
    rows : iterable of (label, low, high, unit, selector)
        The band ``[low, high]`` in base units, ``unit`` one of ``"bit/s"``, ``"s"``,
        ``"byte"``, ``"packet"``, ``"1"``, ``selector`` a dict with ``question`` and
        optionally ``scenario``, ``flow``, ``metric`` (as in :func:`measured`).

    Returns
    -------
    pandas.DataFrame
        Indexed by label: ``low``, ``high``, ``measured`` (display units, as in
        :func:`compare`), ``unit`` (display), ``outside`` (how far the measurement lies
        outside the band, display units: negative below, positive above, 0 inside),
        ``verdict`` (``"inside"``, ``"outside"`` or ``"no data"``).
        ``df.attrs["notes"]`` lists the missing measurements.

    Raises
    ------
    ValueError
        A band with ``low > high``, an unknown unit, a measurement whose unit is not of
        the band's kind, or several matching rows.

    Examples
    --------
    >>> import io
    >>> m = load_measurements(io.StringIO(
    ...     "question,scenario,flow,metric,value,unit\\nQ47,RED,h1,rtt,50,ms\\nQ52,RED,h1,rtt,58,ms\\n"))
    >>> t = compare_band(m, [("Q47", 0.048, 0.056, "s", dict(question="Q47", flow="h1", metric="rtt")),
    ...                      ("Q52", 0.048, 0.056, "s", dict(question="Q52", flow="h1", metric="rtt"))])
    >>> t.verdict.tolist(), [round(float(x), 1) for x in t.outside]
    (['inside', 'outside'], [0.0, 2.0])
    """
    import pandas as pd

    records, notes = [], []
    for label, low, high, unit, selector in rows:
        if unit not in _DISPLAY:
            raise ValueError(f"unit of {label!r} must be one of {', '.join(_DISPLAY)}; got {unit!r}")
        low, high = float(low), float(high)
        if low > high:
            raise ValueError(f"{label}: the band's low end {low!r} is above its high end {high!r}")
        try:
            value = measured(measurements, **selector, default=math.nan, kind=unit)
        except KeyError as exc:
            raise ValueError(f"{label}: {exc.args[0]}") from None
        scale, shown = _DISPLAY[unit]
        if math.isnan(value):
            text = missing_note(measurements, **selector)
            if text not in notes:
                notes.append(text)
            records.append((label, low / scale, high / scale, math.nan, shown, math.nan, "no data"))
            continue
        outside = value - high if value > high else (value - low if value < low else 0.0)
        records.append((label, low / scale, high / scale, value / scale, shown, outside / scale,
                        "inside" if outside == 0 else "outside"))
    df = pd.DataFrame(records, columns=["label", "low", "high", "measured", "unit", "outside", "verdict"])
    df = df.set_index("label")
    df.attrs["notes"] = notes
    return df


def format_band(table, digits: int = 1) -> str:
    """A band comparison (:func:`compare_band`) as fixed-precision text.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`compare_band`.
    digits : int, default 1
        Decimals of the band, the measurement and the distance (display units).

    Returns
    -------
    str
        A first line stating the rule, a header, one line per row (the band as
        ``low - high``, ``missing`` for a missing measurement) and one ``note:`` line
        per missing measurement.

    Examples
    --------
    >>> import io
    >>> m = load_measurements(io.StringIO("question,scenario,flow,metric,value,unit\\nQ47,RED,h1,rtt,50,ms\\n"))
    >>> print(format_band(compare_band(m, [("Q47 RTT", 0.048, 0.056, "s", dict(question="Q47", metric="rtt"))])))
    verdict: inside when low <= measured <= high; otherwise the distance to the nearer end
    label     predicted band  measured  unit  outside by  verdict
    Q47 RTT      48.0 - 56.0      50.0  ms               inside
    """
    def num(x, sign=False, nan="-"):
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return nan
        return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"

    cells = []
    for label, row in zip(table.index, table.itertuples(index=False)):
        outside = "" if row.verdict != "outside" else num(row.outside, sign=True)
        cells.append((str(label), f"{num(row.low)} - {num(row.high)}", num(row.measured, nan="missing"),
                      str(row.unit), outside, str(row.verdict)))
    head = ("label", "predicted band", "measured", "unit", "outside by", "verdict")
    widths = [max(len(h), *(len(c[k]) for c in cells)) if cells else len(h) for k, h in enumerate(head)]
    align = ["<", ">", ">", "<", ">", "<"]

    def line(values):
        return "  ".join(f"{v:{a}{w}}" for v, a, w in zip(values, align, widths)).rstrip()

    lines = ["verdict: inside when low <= measured <= high; otherwise the distance to the nearer end",
             line(head), *(line(c) for c in cells)]
    lines.extend(f"note: {text}" for text in table.attrs.get("notes", ()))
    return "\n".join(lines)


def pick(answers, question: str, contains: str | None = None) -> float:
    """One value of an answers table (``labcalc.labs.lab5.answers()``), by question and item.

    Parameters
    ----------
    answers : pandas.DataFrame
        Columns ``question``, ``item``, ``value``.
    question : str
        Question id, e.g. ``"Q13"``.
    contains : str, optional
        Text the ``item`` must contain (case-sensitive), e.g. ``"A2: loss of h1"``.

    Returns
    -------
    float
        The ``value`` of the only matching row, in base units.

    Raises
    ------
    KeyError
        When no row or several rows match; the message lists the items of
        ``question`` (at most 20) so that ``contains`` can name one.

    Examples
    --------
    >>> from labcalc.labs import lab5
    >>> round(pick(lab5.answers(), "Q13", "A2: goodput of h1") / 1e6, 3)
    0.938
    """
    sel = answers["question"] == question
    if contains is not None:
        sel &= answers["item"].str.contains(contains, regex=False)
    rows = answers[sel]
    if len(rows) != 1:
        items = answers.loc[answers["question"] == question, "item"].astype(str).tolist()
        listing = "; items of this question: " + ", ".join(repr(i) for i in items[:20]) if items else ""
        raise KeyError(f"{len(rows)} answers match question={question!r}, contains={contains!r}; "
                       f"expected exactly one{listing}")
    return float(rows["value"].iloc[0])


#: An answer id of a lab (``"Q4"``, ``"Q13.6"``, ``"q13"``): :func:`check_answer` then
#: checks against the lab's answer key.
_ANSWER_ID = re.compile(r"\s*[Qq]\d+(?:\.\d+)?\s*")


def check_answer(answer, expected=None, unit: str | None = None, rtol: float | None = None,
                 atol: float | None = None, label: str | None = None, quiet: bool = False,
                 *, lab: str = "lab5", seed: int = 0, **options):
    """Check a student's answer in a notebook: one printed line, the grader's verdict.

    Two forms:

    - ``check_answer("Q13.6", my_answer)``: a question of the lab's handout, by its
      answer id (this form is taken when the first argument is an answer id and no
      ``unit``, ``rtol`` or ``atol`` is given: the answer key sets them). The answer is checked against the lab's answer key
      (:func:`labcalc.grading.check_answer`) with the question's unit, tolerance and
      every slip the key knows (forgotten headers, the other byte accounting, rate
      for goodput...), exactly as the batch grader :func:`labcalc.grading.grade`
      grades it: same score, diagnosis and message. A question that asks for several
      numbers (``"Q13"``) prints the ids and labels of its parts instead.
    - ``check_answer(my_answer, expected, unit="Mbit/s")``: any other value, through
      :func:`labcalc.grading.check` (which does the unit handling, the tolerance and
      the classic slips). A plain number (``unit="1"``) is quoted without a unit.

    Parameters
    ----------
    answer : str, number or None
        In the first form, the answer id (``"Q4"``, ``"Q13.6"``). In the second, the
        answer: a text with its unit (``"4.69 Mbit/s"``, ``"4690 kbps"``, ``"6.2 %"``,
        ``"300 ms"``); a number is read as the same number typed without quotes, so a
        rate, a size or a time needs its unit, and a share without a % sign is a
        fraction (see :func:`labcalc.grading.check`). None, ``...`` or an empty text
        means "not answered yet".
    expected : float, str or None
        In the first form, the answer (as above). In the second, the expected value
        in base units (as labcalc computes it) or a text with a unit.
    unit : str, optional
        Second form only: unit of the question, e.g. ``"kbit/s"``, ``"Mbit/s"``,
        ``"bytes"``, ``"ms"``, ``"%"``; ``"1"`` (or ``""``) for a plain number.
    rtol, atol : float, optional
        Second form only: relative tolerance (default 0.01) and absolute tolerance
        (default 0) [base units].
    label : str, optional
        Printed at the start of the line; by default the answer id in the first form
        and ``"answer"`` in the second.
    quiet : bool, default False
        Do not print.
    lab : str, default "lab5"
        First form: the lab whose answer key is used.
    seed : int, default 0
        First form: the variant (0 is the handout's numbers).
    **options
        First form: ``accounting``, ``sigfigs``, ``credit`` of
        :func:`labcalc.grading.check_answer`. Second form: passed to
        :func:`labcalc.grading.check` (``alternatives``, ``efficiency``, ``sigfigs``,
        ``credit``...) to recognise slips that depend on the scenario.

    Returns
    -------
    labcalc.grading.CheckResult or None
        ``correct``, ``score``, ``message`` (without the label), ``diagnosis``, ...;
        None when the answer id names several answers or none (the line printed says
        which ids there are).

    Examples
    --------
    >>> ok = check_answer("Q4", "5 Mbit/s")
    Q4: Partly right (50 % of the points): '5 Mbit/s' is off by exactly the frame efficiency (0.938 = payload bytes / frame bytes): count the header bytes of every frame.
    >>> ok = check_answer("Q13.7", "6.2 %", label="Q13 A2 loss")
    Q13 A2 loss: Correct: '6.2 %' is within 1 % + 0.1 percentage points of the expected value.
    >>> parts = check_answer("Q44", "30 ms")
    Q44: lab5 question Q44 asks for 2 numbers; check each one by its own id:
      Q44.1   queueing delay at router 2 (both directions)
      Q44.2   queueing delay at router 1 (both directions)
    >>> ok = check_answer("4.69 Mbit/s", 4_690_431.5, unit="kbit/s", label="Q4")
    Q4: Correct: '4.69 Mbit/s' is within 1 % of the expected value.
    >>> check_answer("586 kbit/s", 4_690_431.5, unit="kbit/s", quiet=True).diagnosis
    'bytes_bits'
    >>> ok = check_answer(1.22, 1.2247, unit="1", label="Q19 c")
    Q19 c: Correct: '1.22' is within 1 % of the expected value.
    """
    from labcalc import grading
    from labcalc.grading.keys import AnswerIdError

    by_id = unit is None and rtol is None and atol is None
    if by_id and isinstance(answer, str) and _ANSWER_ID.fullmatch(answer):
        answer_id = "Q" + answer.strip()[1:]
        label = answer_id if label is None else label
        mine = None if expected is Ellipsis else expected
        try:
            result = grading.check_answer(answer_id, mine, lab=lab, seed=seed, **options)
        except AnswerIdError as exc:
            if not quiet:
                print(f"{label}: {exc}")
            return None
    else:
        if answer is Ellipsis:
            answer = None
        plain = unit is not None and str(unit).strip() in ("", "1")
        result = grading.check(answer, expected, unit="" if plain else unit,
                               rtol=0.01 if rtol is None else rtol, atol=0.0 if atol is None else atol,
                               **options)
        label = "answer" if label is None else label
    if not quiet:
        print(f"{label}: {result.message}")
    return result
