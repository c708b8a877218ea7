"""Looking measurements up in a loaded table: one value, a selection, the rows as written.

Part of :mod:`labcalc.compare` (import the names from there). A student's own file may
lack some rows: :func:`measured` then returns a ``default`` instead of raising,
:func:`if_measured` turns a model fed with a missing input into a missing result, and
:func:`missing_note` / :func:`missing_inputs` say which measurement and which file.
"""

from __future__ import annotations

import math

from .files import KIND_NAMES, FILE_COLUMNS, MeasurementError, kind_text, question_id, rows_text
from .files import load_measurements  # noqa: F401  (the Examples sections use it)

__all__ = ["measured", "select", "measurement_rows", "missing_note", "missing_inputs", "if_measured"]

#: Marks "no default given" in :func:`measured` (None or NaN are valid defaults).
_RAISE = object()


def _clean(value):
    return value.strip() if isinstance(value, str) else value


def matching_rows(df, question=None, scenario=None, flow=None, metric=None):
    """The rows matching the filters (None does not filter), texts compared as the loader stores them."""
    rows = df
    for column, wanted in (("question", question), ("scenario", scenario), ("flow", flow), ("metric", metric)):
        if wanted is not None:
            wanted = _clean(wanted)
            if column == "question":
                wanted = question_id(wanted)
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
            where = rows_text(rows.loc[[_]]) if "row" in rows.columns else "a row"
            unit = row["unit"] if str(row["unit"]).strip() else "no unit"
            raise MeasurementError(
                f"{where}, column 'unit': {row['question']} metric {row['metric']!r} is in {unit!r}, "
                f"{KIND_NAMES.get(row['base_unit'], row['base_unit'])}; {what}it must be {kind_text(kinds)}")


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
    rows = matching_rows(df, question, scenario, flow, metric)
    if len(rows) == 0 and default is not _RAISE:
        if note:
            using = ""
            if isinstance(default, (int, float)) and math.isfinite(default):
                using = f"; using {default:g}"
            print(f"note: {missing_note(df, question, scenario, flow, metric)}{using}")
        return default
    if len(rows) != 1:
        where = f" ({rows_text(rows)})" if len(rows) else f" in {_files(df)}"
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
    rows = matching_rows(df, question, scenario, flow, metric)
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
                   quiet: bool = False, question=None) -> list[str]:
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
    question : str or sequence of str, optional
        Only the experiments of this question (or these questions): a file that holds
        other parts of the handout as well lists only the experiments the notebook predicts.

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
    >>> missing_inputs(m, "offered_rate", flow="h1", question="Q6")
    []
    """
    rows = df if flow is None else df[df["flow"] == flow]
    if question is not None:
        wanted = [question] if isinstance(question, str) else list(question)
        rows = rows[rows["question"].isin([question_id(q) for q in wanted])]
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
