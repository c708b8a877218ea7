"""Redraw the topology pictures of notebooks 08-11 (seed001.svg ... seed004.svg).

Run from the repository root: ``.venv/bin/python notebooks/img/make_topologies_measure.py``.
The drawings come from :func:`labcalc.plots_measure.topology`; text stays text in the SVG,
and no date is written, so re-running changes nothing.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "labcalc"

from labcalc import plots_measure  # noqa: E402

HERE = Path(__file__).resolve().parent

for name in plots_measure.SEED_TOPOLOGIES:
    fig = plots_measure.topology(name)
    fig.savefig(HERE / f"{name}.svg", format="svg", metadata={"Date": None, "Creator": None})
    print(HERE / f"{name}.svg")
