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

__all__ = ["compare", "compare_measured", "format_comparison", "compare_band", "format_band", "pick",
           "SOURCE_COLUMNS", "WARMUP_NOT_DETECTED"]


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


#: Provenance columns of a built measurement table that a comparison keeps (see :func:`compare_measured`).
SOURCE_COLUMNS = ("source", "window_s", "n_samples", "window_from")
#: What ``window_from`` says when the steady-state detection found no warm-up to cut.
WARMUP_NOT_DETECTED = "warm-up not detected"


def _lookup(table, label, selector, unit, notes):
    """(value, the matching row or None) of one prediction's selector in a measurement table.

    A window in bytes beside a prediction in packets (or the reverse) is no crash: the
    value is missing and a note says which ``mss_bytes`` to give the manifest entry.
    """
    try:
        value = measured(table, **selector, default=math.nan)
    except KeyError as exc:
        raise ValueError(f"{label}: {exc.args[0]}") from None
    if math.isnan(value):
        text = missing_note(table, **selector)
        if text not in notes:
            notes.append(text)
        return value, None
    match = matching_rows(table, selector["question"], selector.get("scenario"), selector.get("flow"),
                          selector.get("metric"))
    got = match["base_unit"].iloc[0]
    if got != unit:
        if {got, unit} == {"byte", "packet"}:
            where = rows_text(match)
            source = match["source"].iloc[0] if "source" in match.columns else ""
            from_file = f" (built from {source})" if isinstance(source, str) and source.strip() else ""
            notes.append(f"{label}: the measurement ({where}{from_file}) is in {'bytes' if got == 'byte' else 'segments'}, "
                         f"the prediction in {'packets' if unit == 'packet' else 'bytes'}: give its manifest entry "
                         f"mss_bytes = 1448 (the segment size: 1448 on a 1500-byte MTU with timestamps, as "
                         f"ss -ti prints it) to count the window in segments")
            return math.nan, None
        raise ValueError(f"{label}: the measurement ({rows_text(match)}) is in {got!r}, "
                         f"the prediction in {unit!r}")
    return value, match.iloc[0]


def compare_measured(measurements, rows, rtol: float = 0.05, simulated=None):
    """Predictions next to the matching rows of a measurement file (and of a simulation).

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
    simulated : pandas.DataFrame, optional
        A second table from :func:`load_measurements` holding simulated values (ns-3:
        ``data/measurements/lab5/simulated``, or a manifest over the files of
        ``labcalc simulate -o``), looked up with the same selectors: the table gets a
        ``simulated`` column (the verdict stays theory against measurement).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`compare`, plus ``simulated`` (display units, when
        ``simulated`` is given) and, for measured values built from a manifest, where each
        comes from: ``source`` (the file), ``window_s``, ``n_samples``, ``window_from``
        (empty for rows typed by hand). ``df.attrs["rtol"]`` is the threshold and
        ``df.attrs["notes"]`` a list with one note per missing measurement.

    Raises
    ------
    ValueError
        A matching measurement whose unit is not of the predicted kind (e.g. a loss
        compared with a rate), or more than one matching row. A window in bytes beside a
        prediction in packets is not an error: it is missing, with a note naming the
        ``mss_bytes`` that converts it.

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
    >>> sim = load_measurements(io.StringIO(
    ...     "question,scenario,flow,metric,value,unit\\nQ7,5M,h1,goodput,4850,kbit/s\\n"))
    >>> float(compare_measured(m, [("Q7", 4_798_464.5, "bit/s", dict(question="Q7", metric="goodput"))],
    ...                        simulated=sim).simulated.iloc[0])
    4850.0
    """
    rows = list(rows)
    values, notes, sources, sims, sim_notes = [], [], [], [], []
    for label, predicted, unit, selector in rows:
        value, match = _lookup(measurements, label, selector, unit, notes)
        values.append(value)
        sources.append({c: ("" if match is None or c not in match.index else match[c]) for c in SOURCE_COLUMNS})
        if simulated is not None:
            sims.append(_lookup(simulated, label, selector, unit, sim_notes)[0])
    table = compare([(r[0], r[1], v, r[2]) for r, v in zip(rows, values)], rtol=rtol)
    if simulated is not None:
        scales = [_DISPLAY[r[2]][0] for r in rows]
        table.insert(1, "simulated", [v / k for v, k in zip(sims, scales)])
        # "no simulated value for Q18 (...)": the simulated table is the notebook's other input, and
        # its file (often a manifest.toml too) would be mistaken for the measurements'
        notes += ["ns-3: no simulated value" + n[len("no measurement"):n.rindex(" in ")] if n.startswith("no measurement")
                  and " in " in n else f"ns-3: {n}" for n in sim_notes]
    for column in SOURCE_COLUMNS:
        table[column] = [_cell(src[column]) for src in sources]
    table.attrs["notes"] = notes
    return table


def _cell(value) -> str:
    """A provenance cell as text ('' for a missing one; a whole number without '.0')."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _window_words(window: str, how: str) -> str:
    if window:
        return window if window.endswith(("seq", "sample")) else f"{window} s"
    return "end-of-test line" if "end-of-test" in how else (how or "-")


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
        could not be computed as ``-``. A table with a ``simulated``
        column shows it as ``ns-3`` between the prediction and the measurement. When
        measured values were built from raw files (a manifest), a second block says
        for each where it comes from: the file, the window in seconds (or the
        end-of-test line), the number of samples and, where the steady-state detection
        found no warm-up to cut, ``warm-up not detected``.

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
    >>> t["simulated"] = [4850.0, 3.9]
    >>> t["source"], t["window_s"], t["n_samples"] = ["q7.txt", "q7.txt"], ["2-8", ""], ["6", "1"]
    >>> t["window_from"] = ["steady_state (not reliable: warm-up not detected)", "receiver's end-of-test line"]
    >>> print(format_comparison(t))
    verdict: close when |measured - predicted| <= 2 % of predicted (losses too, or within 0.1 percentage point)
    label       predicted    ns-3  measured  unit     error  rel. error  verdict
    Q7 goodput     4690.4  4850.0    4798.0  kbit/s  +107.6     +2.29 %  off
    Q7 loss           6.2     3.9       4.0  %         -2.2    -35.00 %  off
    measured from:
    label       file    window            samples
    Q7 goodput  q7.txt  2-8 s             6        warm-up not detected
    Q7 loss     q7.txt  end-of-test line  1
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
    with_sim = "simulated" in table.columns

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
        sim = (num(float(row.simulated), places=places, nan="missing"),) if with_sim else ()
        cells.append((label, num(row.predicted, places=places), *sim, num(row.measured, places=places, nan="missing"),
                      str(row.unit), num(row.error, sign=True, places=places), rel_text, str(row.verdict)))
    head = ("label", "predicted", *(("ns-3",) if with_sim else ()), "measured", "unit", "error", "rel. error",
            "verdict")
    align = ["<", ">", *((">",) if with_sim else ()), ">", "<", ">", ">", "<"]
    lines.append(_line(head, cells, align, width))
    lines.extend(_line(c, cells, align, width, head) for c in cells)
    lines.extend(f"note: {text}" for text in [*table.attrs.get("notes", ()), *notes])
    lines.extend(_sources_block(table, labels, width))
    return "\n".join(lines)


def _line(values, cells, align, width, head=None) -> str:
    """One line of a fixed-width table whose columns are as wide as their widest cell."""
    head = head or values
    widths = [max(len(h), *(len(c[k]) for c in cells)) if cells else len(h) for k, h in enumerate(head)]
    widths[0] = max(width, len(head[0]))
    return "  ".join(f"{v:{a}{w}}" for v, a, w in zip(values, align, widths)).rstrip()


def _sources_block(table, labels, width) -> list:
    """'measured from:' and one line per measured value built from a raw file (none for rows typed by hand)."""
    if "source" not in table.columns or "window_from" not in table.columns:
        return []
    cells = []
    for label, row in zip(labels, table.itertuples(index=False)):
        source, how = str(row.source), str(row.window_from)
        if not source or not (how or str(row.window_s)):
            continue  # a row typed by hand (or a [[table]] row): nothing to say but its file
        flag = WARMUP_NOT_DETECTED if WARMUP_NOT_DETECTED in how else ""
        cells.append((label, source, _window_words(str(row.window_s), how), str(row.n_samples), flag))
    if not cells:
        return []
    head = ("label", "file", "window", "samples", "")
    return ["measured from:", *(_line(c, cells, ["<"] * 5, width, head) for c in [head, *cells])]


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
