"""Predictions beside measurements: comparison tables, verdicts, and answer checks.

Part of :mod:`labcalc.compare` (import the names from there). :func:`compare` lines
predictions up with measured values and gives the relative error and a verdict against a
stated threshold; :func:`compare_measured` looks the measured values up in a table read by
:func:`labcalc.compare.load_measurements`; :func:`format_comparison` prints the table.
"""

from __future__ import annotations

import math

from .files import rows_text
from .files import load_measurements  # noqa: F401  (the Examples sections use it)
from .lookup import matching_rows, measured, missing_note

__all__ = ["compare", "compare_measured", "format_comparison", "compare_band", "format_band", "pick"]


#: Absolute tolerance of a fraction's verdict (a loss, a share) [1]: 0.1 percentage point,
#: one datagram in a thousand, below what a run of a few thousand datagrams resolves; so a
#: predicted 0 % loss meets a measured 0.02 %.
FRACTION_ATOL = 0.001


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
        |predicted|``, otherwise "off", for every unit: a loss of 4.03 % predicted is
        close to a measured 4.1 % but not to 0.20 %. A fraction (a loss, a share) is also
        close within :data:`FRACTION_ATOL` (0.1 percentage point).

    Returns
    -------
    pandas.DataFrame
        Indexed by label: ``predicted``, ``measured`` (display units, e.g. kbit/s or
        %), ``unit`` (display), ``error`` (measured - predicted, display units; for a
        fraction in percentage points), ``rel_error`` (fraction of the prediction),
        ``verdict`` (``"close"``, ``"off"`` or ``"no data"``). ``df.attrs["rtol"]``
        records the threshold.

    Notes
    -----
    close  <=>  abs(m - p) <= rtol * abs(p)   (a fraction also when abs(m - p) <= FRACTION_ATOL).

    Examples
    --------
    >>> t = compare([("Q7 goodput", 4_690_431.5, 4_798_000.0, "bit/s")], rtol=0.02)
    >>> t.loc["Q7 goodput", "verdict"], round(float(t.loc["Q7 goodput", "rel_error"]), 4)
    ('off', 0.0229)
    >>> compare([("Q10 goodput", 4_782_000.0, float("nan"), "bit/s")]).verdict.tolist()
    ['no data']
    >>> compare([("loss", 0.0403, 0.0020, "1"), ("loss 2", 0.0403, 0.041, "1"),
    ...          ("no loss", 0.0, 0.0002, "1")]).verdict.tolist()
    ['off', 'close', 'close']
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
        rel = error / predicted if predicted else (0.0 if error == 0 else np.inf)
        ok = abs(error) <= rtol * abs(predicted) or (unit == "1" and abs(error) <= FRACTION_ATOL)
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
            match = matching_rows(measurements, selector["question"], selector.get("scenario"), selector.get("flow"),
                          selector.get("metric"))
            got = match["base_unit"].iloc[0]
            if got != unit:
                raise ValueError(f"{label}: the measurement ({rows_text(match)}) is in {got!r}, "
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
        error is in percent of the prediction; for losses (shown in %) the error is in
        percentage points. A missing measurement shows as ``missing``, a prediction that
        could not be computed as ``-``.

    Examples
    --------
    >>> t = compare([("Q7 goodput", 4_690_431.5, 4_798_000.0, "bit/s"),
    ...              ("Q7 loss", 0.062, 0.0403, "1")], rtol=0.02)
    >>> print(format_comparison(t))
    verdict: close when |measured - predicted| <= 2 % of predicted (losses too, or within 0.1 percentage point)
    label       predicted  measured  unit     error  rel. error  verdict
    Q7 goodput     4690.4    4798.0  kbit/s  +107.6     +2.29 %  off
    Q7 loss           6.2       4.0  %         -2.2    -35.00 %  off
    >>> print(format_comparison(t, percent_digits=2).splitlines()[-1])
    Q7 loss          6.20      4.03  %        -2.17    -35.00 %  off
    """
    import math as _m

    rtol = table.attrs.get("rtol")
    lines = []
    if rtol is not None:
        pct = f"{rtol * 100:g}"
        fractions = any(str(u) == "%" for u in table.get("unit", []))
        lines.append(f"verdict: close when |measured - predicted| <= {pct} % of predicted"
                     + (f" (losses too, or within {FRACTION_ATOL * 100:g} percentage point)" if fractions else ""))
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
