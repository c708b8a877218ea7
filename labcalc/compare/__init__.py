"""Predictions next to measurements: tidy measurement files and comparison tables.

The package has one module per job, and every public name is importable from here:
:mod:`~labcalc.compare.files` reads measurement tables (:func:`load_measurements`),
:mod:`~labcalc.compare.lookup` looks values up in them (:func:`measured`, :func:`select`),
:mod:`~labcalc.compare.tables` puts predictions beside measurements (:func:`compare`,
:func:`format_comparison`). Checking a student's answer is grading's job:
:func:`labcalc.grading.check_cell`.

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

from .files import (FILE_COLUMNS, KEY_COLUMNS, MAX_FILE_BYTES, REQUIRED_COLUMNS, MeasurementError, load_measurements,
                    metric_kind)
from .lookup import if_measured, measured, measurement_rows, missing_inputs, missing_note, select
from .tables import compare, compare_band, compare_measured, format_band, format_comparison, pick

__all__ = [
    "REQUIRED_COLUMNS",
    "KEY_COLUMNS",
    "FILE_COLUMNS",
    "MAX_FILE_BYTES",
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
    "MeasurementError",
]
