"""Readers of iperf 2 and iperf3 reports, kept importable under their former module name.

The code lives in :mod:`labcalc.measure.iperf2` (text and ``-y C`` CSV of iperf 2),
:mod:`labcalc.measure.iperf3` (iperf3 text), :mod:`labcalc.measure.iperf3_json` (iperf3
``--json``) and :mod:`labcalc.measure._iperf_common` (patterns and frame assembly).
"""

from __future__ import annotations

from ._iperf_common import build_frame  # noqa: F401
from .iperf2 import csv_orientation, parse_iperf2_csv, split_summaries, read_iperf  # noqa: F401
from .iperf3 import timestamp_prefix, read_iperf3  # noqa: F401
from .iperf3_json import parse_iperf3_json, json_row  # noqa: F401

__all__ = ["read_iperf", "read_iperf3"]
