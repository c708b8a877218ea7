"""Predictions next to measurements: tidy measurement files and comparison tables.

A measurement file is a CSV with one value per row (the layout of
``data/measurements/lab5/*.csv``)::

    question,scenario,flow,metric,value,unit,note
    Q14,A2,h1_udp,goodput,0.964,Mbit/s,
    Q14,A2,h1_udp,loss,3.58,%,

:func:`load_measurements` reads it and adds ``value_base`` / ``base_unit`` (bit/s, s,
byte, packet or a plain fraction). :func:`compare` lines predictions up with
measurements and gives the relative error and a verdict against a stated threshold.

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
        fractions; ``segments`` count as packets). ``file`` names the source.

    Raises
    ------
    MeasurementError
        A missing file or column, a value that is not a number, an unknown unit; the
        message names the file, the row (as numbered in the file, header = 1) and the value.

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
    name = getattr(source, "name", None) or str(source)
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
    for row_number, (value, unit) in enumerate(zip(df["value"], df["unit"]), start=2):
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
        values.append(base)
        units.append(base_unit)
    df["value"] = df["value"].astype(float)
    df["value_base"] = values
    df["base_unit"] = units
    df["file"] = Path(name).name
    return df


def measured(df, question: str, scenario: str | None = None, flow: str | None = None,
             metric: str | None = None) -> float:
    """The single measured value (base units) matching the filters.

    Parameters
    ----------
    df : pandas.DataFrame
        Measurements as returned by :func:`load_measurements` (needs ``value_base``).
    question : str
        Question id, e.g. ``"Q42"``.
    scenario, flow, metric : str, optional
        Further filters on the columns of the same name; None does not filter.

    Returns
    -------
    float
        The value in base units (bit/s, s, byte, packet or a fraction [1]).

    Raises
    ------
    KeyError
        When no row or more than one row matches; the message says which filters.

    Examples
    --------
    >>> from labcalc.data import measurement_path
    >>> m = load_measurements(measurement_path("lab5"))
    >>> measured(m, "Q42", flow="1to3", metric="goodput")
    1740000.0
    """
    sel = df["question"] == question
    for column, wanted in (("scenario", scenario), ("flow", flow), ("metric", metric)):
        if wanted is not None:
            sel &= df[column] == wanted
    rows = df[sel]
    if len(rows) != 1:
        raise KeyError(
            f"{len(rows)} measurements match question={question!r}, scenario={scenario!r}, "
            f"flow={flow!r}, metric={metric!r}; expected exactly one"
        )
    return float(rows["value_base"].iloc[0])


def compare(rows, rtol: float = 0.05):
    """Prediction vs measurement table with relative error and verdict.

    Parameters
    ----------
    rows : iterable of (label, predicted, measured, unit)
        Values in base units; ``unit`` one of ``"bit/s"``, ``"s"``, ``"byte"``,
        ``"packet"``, ``"1"``.
    rtol : float, default 0.05
        Threshold of the verdict: "close" when ``|measured - predicted| <= rtol x
        |predicted|``, otherwise "off". For fractions (losses) the threshold applies
        to the absolute difference in points: ``rtol`` = 0.05 means 5 points.

    Returns
    -------
    pandas.DataFrame
        Indexed by label: ``predicted``, ``measured`` (display units, e.g. kbit/s or
        %), ``unit`` (display), ``error`` (measured - predicted, display units),
        ``rel_error`` (fraction, NaN for fractions), ``verdict``. ``df.attrs["rtol"]``
        records the threshold.

    Examples
    --------
    >>> t = compare([("Q7 goodput", 4_690_431.5, 4_798_000.0, "bit/s")], rtol=0.02)
    >>> t.loc["Q7 goodput", "verdict"], round(float(t.loc["Q7 goodput", "rel_error"]), 4)
    ('off', 0.0229)
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
    kept with ``measured`` NaN and the verdict ``"missing"``, so a student's own file may
    hold only some of the experiments.

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
        The columns of :func:`compare`; ``df.attrs["rtol"]`` is the threshold.

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
    ['close', 'missing']
    """
    import numpy as np

    rows = list(rows)
    present, values = [], []
    for label, predicted, unit, selector in rows:
        try:
            value = measured(measurements, **selector)
        except KeyError as exc:
            if exc.args and str(exc.args[0]).startswith("0 measurements"):
                present.append(False)
                values.append(np.nan)
                continue
            raise ValueError(f"{label}: {exc.args[0]}") from None
        sel = measurements["question"] == selector["question"]
        for column in ("scenario", "flow", "metric"):
            if selector.get(column) is not None:
                sel &= measurements[column] == selector[column]
        got = measurements.loc[sel, "base_unit"].iloc[0]
        if got != unit:
            raise ValueError(f"{label}: the measurement is in {got!r}, the prediction in {unit!r}")
        present.append(True)
        values.append(value)
    table = compare([(r[0], r[1], v if ok else 0.0, r[2]) for r, v, ok in zip(rows, values, present)],
                    rtol=rtol)
    for (label, *_), ok in zip(rows, present):
        if not ok:
            table.loc[label, ["measured", "error", "rel_error"]] = np.nan
            table.loc[label, "verdict"] = "missing"
    return table


def format_comparison(table, digits: int = 1, label_width: int | None = None) -> str:
    """A comparison table as fixed-precision text (stable output for notebooks).

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`compare` or :func:`compare_measured`.
    digits : int, default 1
        Decimals of predicted, measured and error (in the display unit).
    label_width : int, optional
        Width of the label column (default: the longest label).

    Returns
    -------
    str
        A first line stating the threshold, a header, one line per row. The relative
        error is in percent; for losses (shown in %) the error is in points and the
        relative error is left blank.

    Examples
    --------
    >>> t = compare([("Q7 goodput", 4_690_431.5, 4_798_000.0, "bit/s"),
    ...              ("Q7 loss", 0.062, 0.0403, "1")], rtol=0.02)
    >>> print(format_comparison(t))
    verdict: close when |measured - predicted| <= 2 % of predicted (losses: within 2 percentage points)
    label       predicted  measured  unit     error  rel. error  verdict
    Q7 goodput     4690.4    4798.0  kbit/s  +107.6     +2.29 %  off
    Q7 loss           6.2       4.0  %         -2.2              off
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

    def num(x, sign=False, places=digits):
        if x is None or (isinstance(x, float) and _m.isnan(x)):
            return "-"
        if round(x, places) == 0:
            x = 0.0  # no "-0.0"
        return f"{x:+.{places}f}" if sign else f"{x:.{places}f}"

    cells = []
    for label, row in zip(labels, table.itertuples(index=False)):
        rel = row.rel_error
        rel_text = "" if rel is None or _m.isnan(rel) else (
            "inf" if _m.isinf(rel) else f"{num(rel * 100, sign=True, places=2)} %")
        cells.append((label, num(row.predicted), num(row.measured), str(row.unit),
                      num(row.error, sign=True), rel_text, str(row.verdict)))
    head = ("label", "predicted", "measured", "unit", "error", "rel. error", "verdict")
    widths = [max(len(h), *(len(c[k]) for c in cells)) if cells else len(h) for k, h in enumerate(head)]
    widths[0] = max(width, len(head[0]))
    align = ["<", ">", ">", "<", ">", ">", "<"]

    def line(values):
        return "  ".join(f"{v:{a}{w}}" for v, a, w in zip(values, align, widths)).rstrip()

    lines.append(line(head))
    lines.extend(line(c) for c in cells)
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


def check_answer(answer, expected, unit: str | None = None, rtol: float = 0.01,
                 atol: float = 0.0, label: str = "answer", quiet: bool = False, **options):
    """Check a student's answer in a notebook: one printed line, the grader's verdict.

    A thin front of :func:`labcalc.grading.check` (which does the unit handling, the
    tolerance and the diagnosis of classic slips) that prefixes the message with
    ``label`` and prints it.

    Parameters
    ----------
    answer : number or str
        A bare number is read in ``unit``; a text may carry its own unit
        (``"4.69 Mbit/s"``, ``"4690 kbps"``, ``"6.2 %"``, ``"300 ms"``). None, ``...``
        or an empty text means "not answered yet".
    expected : float or str
        The expected value in base units (as labcalc computes it) or a text with a unit.
    unit : str, optional
        Unit of the question, e.g. ``"kbit/s"``, ``"Mbit/s"``, ``"bytes"``, ``"ms"``, ``"%"``.
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
    """
    from labcalc.grading import check

    if answer is Ellipsis:
        answer = None
    result = check(answer, expected, unit=unit, rtol=rtol, atol=atol, **options)
    if not quiet:
        print(f"{label}: {result.message}")
    return result
