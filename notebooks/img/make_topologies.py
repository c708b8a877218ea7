"""Redraw the topology pictures of the notebooks (lab51.svg, lab52.svg, lab53.svg).

Run from the repository root: ``.venv/bin/python notebooks/img/make_topologies.py``.
The drawings come from :func:`labcalc.plots.topology`; text stays text in the SVG
(small files, searchable), and no date is written, so re-running changes nothing.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "labcalc"

from labcalc import plots  # noqa: E402

HERE = Path(__file__).resolve().parent

for name in plots.TOPOLOGIES:
    fig = plots.topology(name)
    fig.savefig(HERE / f"{name}.svg", format="svg", metadata={"Date": None, "Creator": None})
    print(HERE / f"{name}.svg")
