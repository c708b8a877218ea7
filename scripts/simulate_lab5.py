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

``findings.csv`` (``scripts/simulate_lab5.py findings``) holds the runs behind notebook 14's
explanations of parts 4-5: D1, D2 Reno and the two bottlenecks over seeds 1-5, and with
delayed ACKs, without SACK, with ns-3's own RTO and (D2) with ns-3's NewReno, seeds 1-3.

Run from the repository root (ns-3 needed: ``.venv/bin/pip install ns3``):
``nice -n 10 .venv/bin/python scripts/simulate_lab5.py`` (about 4 minutes on an idle
machine; about 10 s of it is importing ns-3), and ``... simulate_lab5.py findings`` (about
20 minutes). cling may print "Failed to materialize symbols" on stderr: noise.
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


#: the runs whose ns-3 and Mininet numbers differ by more than 10 % in parts 4-5
FINDING_RUNS = ("D1", "D2 Reno", "two bottlenecks")
#: seeds of the spread, and the Linux settings tried (label -> simulate's options)
FINDING_SEEDS = range(1, 6)
FINDING_SETTINGS = {
    "delayed ACKs": dict(delayed_ack_count=2),
    "no SACK": dict(sack=False),
    "ns-3's RTO": dict(linux_rto=False),
    "NewReno": dict(tcp="NewReno"),
}
FINDING_SETTING_SEEDS = range(1, 4)


def findings():
    """Rows for findings.csv: each run of FINDING_RUNS over seeds, and with other settings.

    The scenario's queues (RED at the routers, as the handout) throughout. Rows: the
    run's question and flows, scenario ``"<scenario>, seed N"`` or ``"<scenario>, <setting>,
    seed N"``, goodput [kbit/s]."""
    from labcalc.viz.sim import run_of

    rows = []
    for key in FINDING_RUNS:
        run = run_of(key)
        tries = [("", {}, seed) for seed in FINDING_SEEDS]
        tries += [(label, kw, seed) for label, kw in FINDING_SETTINGS.items() for seed in FINDING_SETTING_SEEDS
                  if not (label == "NewReno" and run["tcp"] != "LinuxReno")]
        for label, kw, seed in tries:
            start = time.perf_counter()
            options = {"tcp": run["tcp"], **kw}
            res = sim.simulate(scenario_path(run["file"]), variant=run["variant"], duration_s=run["duration_s"],
                               warmup_s=run["warmup_s"], seed=seed, **options)
            where = f"{run['scenario']}, {label + ', ' if label else ''}seed {seed}"
            note = (f"ns-3 {res.attrs['ns3_version']}, {options['tcp']}, router queues RED as Mininet's TCLink, "
                    f"{run['duration_s']:.0f} s, mean over {run['warmup_s']:.0f}-{run['duration_s']:.0f} s, "
                    + (f"{label}, " if label else "") + f"seed {seed}")
            new = summary_rows(res.summary, dict(run, scenario=where), note)
            rows += [r for r in new if r["metric"] == "goodput"]
            print(f"findings, {where:<34} {time.perf_counter() - start:5.1f} s  " + ", ".join(
                f"{r['flow']} {r['value']}" for r in new if r["metric"] == "goodput"), flush=True)
    return rows


def write(out, rows):
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, ["question", "scenario", "flow", "metric", "value", "unit", "note"],
                           lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {out.relative_to(ROOT)}")


def main(argv=()):
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    if "findings" in argv:
        write(OUT_DIR / "findings.csv", findings())
        return
    for name, (options, words) in SETS.items():
        write(OUT_DIR / name, simulate_all(options, words))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
