"""Presentation by topic: figures and explorers over the numbers the core computes.

One module per topic, each holding the figures and the explorers of that topic:

- :mod:`labcalc.viz.framing`   what a datagram costs the link (notebook 01)
- :mod:`labcalc.viz.sharing`   UDP split, TCP against UDP, congestion collapse (02-04)
- :mod:`labcalc.viz.fairness`  RTT bias, the parking lot (05, 06)
- :mod:`labcalc.viz.buffers`   queue limits, bufferbloat, the window sawtooth (07-09)
- :mod:`labcalc.viz.traces`    measured windows with their phases, a queue with its drops (08, 09, 11)
- :mod:`labcalc.viz.response`  loss-throughput curves, competing AIMD flows (10, 11)
- :mod:`labcalc.viz.topology`  every lab network, drawn from data
- :mod:`labcalc.viz.sim`       theory, ns-3 and the measurement side by side, re-run on release (14)
- :mod:`labcalc.viz.answers`   the answer checker (00)
- :mod:`labcalc.viz.charts`    generic bars, curves and stacked time series

What they share (one figure size and resolution, one palette, the slider helpers, the
:class:`Explorer`, PNG rendering) lives in :mod:`labcalc.viz._base`. ipywidgets is
imported with this package and matplotlib inside the drawing functions; ``import
labcalc`` imports neither.

Examples
--------
>>> from labcalc import viz
>>> ex = viz.framing.framing_explorer()
>>> ex.figure.dpi == viz.DPI
True
"""

from __future__ import annotations

from labcalc.viz import answers, buffers, charts, fairness, framing, response, sharing, sim, topology, traces
from labcalc.viz._base import DPI, FIGSIZE, PALETTE, Explorer, new_axes, reset_axes, to_png
from labcalc.viz.charts import curves, grouped_bars, stacked_bars, timeseries_panels

__all__ = [
    "answers", "buffers", "charts", "fairness", "framing", "response", "sharing", "sim", "topology", "traces",
    "DPI", "FIGSIZE", "PALETTE", "Explorer", "new_axes", "reset_axes", "to_png",
    "curves", "grouped_bars", "stacked_bars", "timeseries_panels",
]
