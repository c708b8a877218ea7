"""Redraw the topology pictures of the notebooks (lab51-53.svg, seed001-004.svg).

Run from the repository root: ``.venv/bin/python notebooks/img/make_topologies.py``.
The drawings come from :func:`labcalc.viz.topology.topology`, one per network of
:data:`labcalc.viz.topology.TOPOLOGIES`; text stays text in the SVG (small files,
searchable), and no date is written, so re-running changes nothing.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "labcalc"

from labcalc.viz.topology import TOPOLOGIES, topology  # noqa: E402

HERE = Path(__file__).resolve().parent

for name in TOPOLOGIES:
    fig = topology(name)
    fig.savefig(HERE / f"{name}.svg", format="svg", metadata={"Date": None, "Creator": None})
    print(HERE / f"{name}.svg")
