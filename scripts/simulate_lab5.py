"""The ns-3 runs of lab parts 2-5 that notebook 14 shows, written as a tidy measurement CSV.

For every run of :data:`labcalc.viz.sim.LAB5_RUNS` (the scenario files
``data/scenarios/lab51.toml``, ``lab52.toml``, ``lab53.toml`` and their variants), this
script simulates the network in ns-3 with :func:`labcalc.sim.simulate`, twice, and writes
``data/measurements/lab5/simulated/ns3-red.csv`` (the main set: every queue as the
scenario says, i.e. Mininet's RED on the router interfaces the handout's scripts
configure with ``enable_red=True, enable_ecn=True``, drop-tail of 1000 packets elsewhere)
and ``ns3-queue1000.csv`` (every queue drop-tail of 1000 packets, Linux's default
``txqueuelen``: the lesson on long queues) in the columns of the handout's measurement files (``question, scenario, flow, metric, value, unit, note``), so that
:func:`labcalc.compare.load_measurements` reads it and the notebook looks its values up
with the same keys as the handout's measurements. The file is committed: notebook 14 opens
and runs without ns-3.

Settings (the rest are :func:`labcalc.sim.simulate`'s defaults, listed in its docstring):

* queues: the scenarios' own (RED ``min 30000 max 35000`` bytes at the routers, 48-56 ms
  at 5 Mbit/s, which fits the handout's RTTs: 330-370 ms in part 5 over a base of 300 ms),
  or all drop-tail of 1000 packets (2.4 s at 5 Mbit/s when full). The hosts do not ask
  for ECN (Linux's ``tcp_ecn = 2``), so RED drops;
* TCP: the congestion control the handout measured with, CUBIC, or Linux Reno for "D2
  Reno"; 1448-byte segments, SACK, timestamps, delayed ACKs, minimum RTO 200 ms;
* UDP: Poisson arrivals at the offered rate of the scenario, 1000-byte datagrams;
* runs of 120 s (UDP, and B1) or 200 s (TCP only), goodput averaged after a warm-up of 60 s
  (a 1000-packet queue at 5 Mbit/s takes about 30 s to fill at the overload of A2) or 50 s;
* seed 1: the file is the same on every run of this script with the same ns-3.

Run from the repository root (ns-3 needed: ``.venv/bin/pip install ns3``):
``.venv/bin/python scripts/simulate_lab5.py`` (about 4 minutes; about 10 s of it is
importing ns-3). cling may print "Failed to materialize symbols" on stderr: noise.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

from labcalc import sim
from labcalc.data import scenario_path
from labcalc.viz.sim import LAB5_RUNS, summary_rows

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "data" / "measurements" / "lab5" / "simulated"
#: file name -> (simulate's queue options, the note's words)
SETS = {
    "ns3-red.csv": ({}, "router queues RED as Mininet's TCLink, others 1000 packets"),
    "ns3-queue1000.csv": ({"queue_disc": "droptail", "queue_packets": 1000}, "queues 1000 packets"),
}
SEED = 1


def simulate_all(options, words):
    rows = []
    for run in LAB5_RUNS:
        start = time.perf_counter()
        res = sim.simulate(scenario_path(run["file"]), variant=run["variant"], tcp=run["tcp"],
                           duration_s=run["duration_s"], warmup_s=run["warmup_s"], seed=SEED, **options)
        tcp = run["tcp"] if (res.summary.transport == "tcp").any() else "no TCP"
        note = (f"ns-3 {res.attrs['ns3_version']}, {tcp}, {words}, "
                f"{run['duration_s']:.0f} s, mean over {run['warmup_s']:.0f}-{run['duration_s']:.0f} s, seed {SEED}")
        new = summary_rows(res.summary, run, note)
        rows += new
        print(f"{words[:20]}, {run['key']:<16} {time.perf_counter() - start:5.1f} s  " + ", ".join(
            f"{r['flow']} {r['value']} {r['unit']}" for r in new if r["metric"] == "goodput"), flush=True)
    return rows


def main():
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for name, (options, words) in SETS.items():
        rows = simulate_all(options, words)
        out = OUT_DIR / name
        with open(out, "w", newline="") as fh:
            w = csv.DictWriter(fh, ["question", "scenario", "flow", "metric", "value", "unit", "note"],
                               lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {len(rows)} rows to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
