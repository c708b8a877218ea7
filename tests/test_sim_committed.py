"""The committed ns-3 runs are what labcalc.sim gives today.

``data/measurements/lab5/simulated/runs`` (notebooks 01-03's ns-3 column) was written by
``scripts/simulate_lab5_runs.py``; when the simulator's defaults change (a socket, a queue, a
timer), the committed files go stale while the notebooks still show them. Each run here is
simulated again with the settings its own ``simulation.json`` records and its summary compared
with the committed ``summary.csv``, read with the csv module: the same numbers, to the last digit.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "data" / "measurements" / "lab5" / "simulated" / "runs"


def _committed(run: str) -> tuple[dict, dict]:
    info = json.loads((RUNS / run / "simulation.json").read_text())
    lines = [line for line in (RUNS / run / "summary.csv").read_text().splitlines() if not line.startswith("#")]
    return info, {r["flow"]: r for r in csv.DictReader(lines)}


@pytest.mark.parametrize("run", ["a2", "b2"])   # UDP flows alone; UDP beside a CUBIC connection
def test_a_committed_run_is_what_simulate_gives_today(ns3, run):
    from labcalc import sim

    info, rows = _committed(run)
    tcp = {v["tcp"] for v in info["flows"].values() if v["tcp"]}
    res = sim.simulate(ROOT / info["scenario"], variant=info["variant"], seed=info["seed"],
                       duration_s=info["duration_s"], tcp=tcp.pop().split("::Tcp")[-1] if tcp else "Cubic")
    assert set(res.summary.index) == set(rows)
    for flow, row in rows.items():
        got = res.summary.loc[flow]
        assert repr(float(got.goodput_bps)) == repr(float(row["goodput_bps"])), (run, flow)
        assert int(got.sent_packets) == int(row["sent_packets"]) and int(got.lost_packets) == int(row["lost_packets"])
