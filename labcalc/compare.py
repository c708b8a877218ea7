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
from pathlib import Path

__all__ = [
    "REQUIRED_COLUMNS",
    "load_measurements",
    "measured",
    "missing_note",
    "missing_inputs",
    "if_measured",
    "compare",
    "compare_measured",
    "format_comparison",
    "pick",
    "check_answer",
    "MeasurementError",
]

#: Columns every measurement file must have (``note`` is optional).
REQUIRED_COLUMNS = ("question", "scenario", "flow", "metric", "value", "unit")


class MeasurementError(ValueError):
    """A measurement file is unreadable or a row is invalid (the message says where)."""


def load_measurements(source):
    """Read one or more tidy measurement CSV files.

    Parameters
    ----------
    source : path, file-like, or list of paths
        A CSV file, an open text stream, a folder (every ``*.csv`` in it, sorted), or a
        list of any of these.

    Returns
    -------
    pandas.DataFrame
        The file's columns plus ``value_base`` (float, base units) and ``base_unit``
        (``"bit/s"``, ``"s"``, ``"byte"``, ``"packet"``, ``"1"``; percentages become
        fractions; ``segments`` count as packets). ``file`` names the source (its file
        name, or ``"<stream>"`` for an open text stream without a name).

    Raises
    ------
    MeasurementError
        A missing file or column, a value that is not a number, an unknown unit, a loss
        (a metric named ``loss`` or ``..._loss``, in % or as a fraction) outside 0-100 %;
        the message names the file, the row (as numbered in the file, header = 1), the
        column and the value.

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> m = load_measurements(measurement_path("lab5", "part2.csv"))
    >>> row = m[(m.scenario == "A2") & (m.flow == "h1_udp") & (m.metric == "loss")]
    >>> float(row.value_base.iloc[0])
    0.0358
    """
    import pandas as pd

    from labcalc.units import parse_quantity

    if isinstance(source, (list, tuple)):
        frames = [load_measurements(s) for s in source]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(REQUIRED_COLUMNS))
    name = getattr(source, "name", None) or "<stream>"
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            files = sorted(path.glob("*.csv"))
            if not files:
                raise MeasurementError(f"{path}: folder holds no *.csv measurement file")
            return load_measurements(files)
        if not path.exists():
            raise MeasurementError(f"{path}: measurement file not found")
        name = str(path)
    try:
        df = pd.read_csv(source, dtype={"value": str}, keep_default_na=False, comment=None)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise MeasurementError(f"{name}: not a readable CSV ({exc})") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise MeasurementError(
            f"{name}: missing column {missing[0]!r} (a measurement file needs {', '.join(REQUIRED_COLUMNS)})"
        )
    values, units = [], []
    metrics = df["metric"].astype(str).str.strip()
    for row_number, (value, unit, metric) in enumerate(zip(df["value"], df["unit"], metrics), start=2):
        try:
            number = float(value)
        except ValueError:
            raise MeasurementError(f"{name}, row {row_number}: value {value!r} is not a number") from None
        if not math.isfinite(number):
            raise MeasurementError(f"{name}, row {row_number}: value {value!r} is not finite")
        unit = str(unit).strip()
        if unit in ("segments", "segment"):
            base, base_unit = number, "packet"
        elif unit in ("", "1"):
            base, base_unit = number, "1"
        else:
            try:
                base, base_unit = parse_quantity(f"{number!r} {unit}" if unit != "%" else f"{number!r} %")
            except ValueError:
                raise MeasurementError(f"{name}, row {row_number}: unknown unit {unit!r}") from None
        if base_unit == "1" and _is_loss(metric) and not 0.0 <= base <= 1.0:
            shown = f"{value} {unit}".strip()
            limits = "0 and 100 %" if unit == "%" else "0 and 1 (or give it in %)"
            raise MeasurementError(
                f"{name}, row {row_number}, column 'value': {shown!r} is not a loss; metric {metric!r} "
                f"must lie between {limits}")
        values.append(base)
        units.append(base_unit)
    df["value"] = df["value"].astype(float)
    df["value_base"] = values
    df["base_unit"] = units
    df["file"] = Path(name).name if name != "<stream>" else name
    return df


def _is_loss(metric: str) -> bool:
    """A metric that is a loss rate: ``loss``, ``..._loss`` or ``loss_...`` (not ``loss_event_1``)."""
    words = metric.lower().split("_")
    return "loss" in words and not any(w in ("event", "events", "time", "count") for w in words)


#: Marks "no default given" in :func:`measured` (None or NaN are valid defaults).
_RAISE = object()


def _rows(df, question, scenario, flow, metric):
    sel = df["question"] == question
    for column, wanted in (("scenario", scenario), ("flow", flow), ("metric", metric)):
        if wanted is not None:
            sel &= df[column] == wanted
    return df[sel]


def missing_note(df, question: str, scenario: str | None = None, flow: str | None = None,
                 metric: str | None = None) -> str:
    """The note that says a measurement is not in the file: which one, and which file.

    Parameters
    ----------
    df : pandas.DataFrame
        Measurements as returned by :func:`load_measurements` (its ``file`` column names
        the file).
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
    files = list(dict.fromkeys(df["file"])) if "file" in df.columns and len(df) else []
    where = ", ".join(str(f) for f in files) if files else "the measurements"
    what = f" ({', '.join(parts)})" if parts else ""
    return f"no measurement for {question}{what} in {where}"


def measured(df, question: str, scenario: str | None = None, flow: str | None = None,
             metric: str | None = None, *, default=_RAISE, note: bool = False) -> float:
    """The single measured value (base units) matching the filters.

    Parameters
    ----------
    df : pandas.DataFrame
        Measurements as returned by :func:`load_measurements` (needs ``value_base``).
    question : str
        Question id, e.g. ``"Q42"``.
    scenario, flow, metric : str, optional
        Further filters on the columns of the same name; None does not filter.
    default : float, optional
        Returned when no row matches (typically ``math.nan``: a measurement the file does
        not hold); without it a missing row raises. Several matching rows always raise.
    note : bool, default False
        When ``default`` is returned, print a one-line note saying which measurement is
        missing from which file (see :func:`missing_note`), and the value used instead
        when ``default`` is a finite number.

    Returns
    -------
    float
        The value in base units (bit/s, s, byte, packet or a fraction [1]), or
        ``default``.

    Raises
    ------
    KeyError
        When more than one row matches, or none and no ``default`` is given; the message
        says which filters.

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> m = load_measurements(measurement_path("lab5"))
    >>> measured(m, "Q42", flow="1to3", metric="goodput")
    1740000.0
    >>> measured(m, "Q42", flow="1to3", metric="loss", default=float("nan"), note=True)
    note: no measurement for Q42 (flow '1to3', metric 'loss') in bonus.csv, part1.csv, part2.csv, part3.csv, part4.csv, part5.csv
    nan
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
        raise KeyError(
            f"{len(rows)} measurements match question={question!r}, scenario={scenario!r}, "
            f"flow={flow!r}, metric={metric!r}; expected exactly one"
        )
    return float(rows["value_base"].iloc[0])


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
            got = _rows(measurements, selector["question"], selector.get("scenario"), selector.get("flow"),
                        selector.get("metric"))["base_unit"].iloc[0]
            if got != unit:
                raise ValueError(f"{label}: the measurement is in {got!r}, the prediction in {unit!r}")
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
        When no row or several rows match.

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
        raise KeyError(f"{len(rows)} answers match question={question!r}, contains={contains!r}; "
                       "expected exactly one")
    return float(rows["value"].iloc[0])


#: The grader's hint for a factor of 100 between a fraction and a percentage; right when a
#: percentage is typed as a unit-less text (read as a fraction), not when a fraction is
#: given as a bare number where the question's unit is % (check_answer rewords it).
_PERCENT_HINT = "write a percentage with its % sign or give the fraction between 0 and 1"


def check_answer(answer, expected, unit: str | None = None, rtol: float = 0.01,
                 atol: float = 0.0, label: str = "answer", quiet: bool = False, **options):
    """Check a student's answer in a notebook: one printed line, the grader's verdict.

    A thin front of :func:`labcalc.grading.check` (which does the unit handling, the
    tolerance and the diagnosis of classic slips) that prefixes the message with
    ``label`` and prints it. Two details of the wording are settled here: a plain
    number (``unit="1"``) is quoted without a unit, and a fraction given where a
    percentage is asked (a bare number is read in %) gets a hint that says so.

    Parameters
    ----------
    answer : number or str
        A bare number is read in ``unit``; a text may carry its own unit
        (``"4.69 Mbit/s"``, ``"4690 kbps"``, ``"6.2 %"``, ``"300 ms"``). None, ``...``
        or an empty text means "not answered yet".
    expected : float or str
        The expected value in base units (as labcalc computes it) or a text with a unit.
    unit : str, optional
        Unit of the question, e.g. ``"kbit/s"``, ``"Mbit/s"``, ``"bytes"``, ``"ms"``, ``"%"``;
        ``"1"`` (or ``""``) for a plain number.
    rtol, atol : float
        Relative tolerance and absolute tolerance [base units].
    label : str, default "answer"
        Printed at the start of the line (e.g. the question id).
    quiet : bool, default False
        Do not print.
    **options
        Passed to :func:`labcalc.grading.check` (``alternatives``, ``efficiency``,
        ``sigfigs``, ``credit``...) to recognise slips that depend on the scenario.

    Returns
    -------
    labcalc.grading.CheckResult
        ``correct``, ``score``, ``message`` (without the label), ``diagnosis``, ...

    Examples
    --------
    >>> ok = check_answer("4.69 Mbit/s", 4_690_431.5, unit="kbit/s", label="Q4")
    Q4: Correct: '4.69 Mbit/s' is within 1 % of the expected value.
    >>> check_answer(586, 4_690_431.5, unit="kbit/s", quiet=True).diagnosis
    'bytes_bits'
    >>> ok = check_answer(1.22, 1.2247, unit="1", label="Q19 c")
    Q19 c: Correct: '1.22' is within 1 % of the expected value.
    >>> ok = check_answer(0.531, 0.531, unit="%", label="Q13 A3 loss")
    Q13 A3 loss: Partly right (50 % of the points): '0.531 %' is 100 times too small: a bare number is read in %, the unit of this question, so write the percentage (the fraction x 100).
    """
    import dataclasses

    from labcalc.grading import check

    if answer is Ellipsis:
        answer = None
    plain = unit is not None and str(unit).strip() in ("", "1")
    result = check(answer, expected, unit="" if plain else unit, rtol=rtol, atol=atol, **options)
    percent = unit is not None and str(unit).strip() == "%"
    if (percent and result.diagnosis and "percent_fraction" in result.diagnosis.split("+")
            and result.given is not None and abs(result.given) < abs(result.expected)
            and _PERCENT_HINT in result.message):
        if isinstance(answer, str):
            hint = "it looks like a fraction written with a % sign; multiply it by 100"
        else:
            hint = ("a bare number is read in %, the unit of this question, so write the percentage "
                    "(the fraction x 100)")
        result = dataclasses.replace(result, message=result.message.replace(_PERCENT_HINT, hint))
    if not quiet:
        print(f"{label}: {result.message}")
    return result
