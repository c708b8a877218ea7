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

__all__ = ["REQUIRED_COLUMNS", "load_measurements", "measured", "compare", "MeasurementError"]

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
