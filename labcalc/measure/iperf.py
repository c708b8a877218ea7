"""Readers of iperf 2 and iperf3 reports, kept importable under their former module name.

The code lives in :mod:`labcalc.measure.iperf2` (text and ``-y C`` CSV of iperf 2),
:mod:`labcalc.measure.iperf3` (iperf3 text), :mod:`labcalc.measure.iperf3_json` (iperf3
``--json``) and :mod:`labcalc.measure._iperf_common` (patterns and frame assembly).
"""

from __future__ import annotations

from ._iperf_common import _frame  # noqa: F401
from .iperf2 import _csv_orientation, _parse_iperf2_csv, _split_summaries, read_iperf  # noqa: F401
from .iperf3 import _timestamp_prefix, read_iperf3  # noqa: F401
from .iperf3_json import _iperf3_json, _json_row  # noqa: F401

__all__ = ["read_iperf", "read_iperf3"]
