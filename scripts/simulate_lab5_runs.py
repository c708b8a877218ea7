"""Handout parts 1 and 2 in ns-3, written as ``labcalc simulate -o`` writes them, plus a manifest.

For every run of parts 1 and 2 (the variants Q1 ... Q10, A1-A3, B1-B3 of
``data/scenarios/lab51.toml``) this script does what

    labcalc simulate data/scenarios/lab51.toml --variant <V> --tcp Cubic --duration 20 -o <OUT>/<run>

does (one ns-3 import for all of them), and writes ``<OUT>/manifest.toml``, whose entries
name the files of those folders with the handout's question, scenario and flow: goodput and
loss from each run's ``summary.csv`` (the goodput over the steady window after the warm-up,
the loss over the run), the RTT from ``<flow>-rtt.data`` and the window from
``<flow>-cwnd.data`` of the TCP connections over that steady window. ``labcalc measurements build <OUT>`` then gives
the tidy table, and a notebook reads the folder as its simulated column
(``SIMULATED = "../data/measurements/lab5/simulated/runs"``).

Settings: the scenario's own queues (Mininet's RED on r1-eth1, as the handout's scripts),
TCP CUBIC (the handout's), 1448-byte segments, UDP Poisson arrivals of 1000-byte datagrams,
20 s per run over the default steady window (the warm-up cut as a manifest cuts it), seed 1; see
:func:`labcalc.sim.simulate` for the rest.

Run from the repository root (ns-3 needed): ``.venv/bin/python scripts/simulate_lab5_runs.py [OUT]``
(default ``data/measurements/lab5/simulated/runs``; about a minute, half of it importing ns-3);
``--manifest-only [OUT]`` rewrites the manifest of runs already written (no ns-3 needed).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from labcalc import sim
from labcalc.data import scenario_path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "measurements" / "lab5" / "simulated" / "runs"
SEED = 1
DURATION_S = 20.0
TCP = "Cubic"
#: run folder -> (variant of lab51, handout question, scenario name as in part1.csv / part2.csv)
RUNS = {
    "q1": ("Q1", "Q1", "10 Mbit/s bottleneck"),
    "q2": ("Q2", "Q2", "10 Mbit/s bottleneck"),
    "q6": ("Q6", "Q6", "4.5 Mbit/s offered"),
    "q7-5M": ("Q7-5M", "Q7", "5 Mbit/s offered"),
    "q7-10M": ("Q7-10M", "Q7", "10 Mbit/s offered"),
    "q7-20M": ("Q7-20M", "Q7", "20 Mbit/s offered"),
    "q10": ("Q10", "Q10", "5 Mbit/s bottleneck"),
    "a1": ("A1", "Q14", "A1"),
    "a2": ("A2", "Q14", "A2"),
    "a3": ("A3", "Q14", "A3"),
    "b1": ("B1", "Q18", "B1"),
    "b2": ("B2", "Q18", "B2"),
    "b3": ("B3", "Q18", "B3"),
}


def entry(question, scenario, flow, metric, file, **keys) -> str:
    lines = ["[[measurement]]", f'question = "{question}"', f'scenario = "{scenario}"', f'flow = "{flow}"',
             f'metric = "{metric}"', f'file = "{file}"']
    lines += [f"{k} = {v!r}".replace("'", '"') for k, v in keys.items()]
    return "\n".join(lines) + "\n"


def write_manifest(out: Path = OUT) -> int:
    """Write ``<out>/manifest.toml`` over the run folders of *out*; return the number of entries.

    Goodput and loss of every flow from ``summary.csv``; RTT and window of every TCP flow from
    its traces over the steady window (after the warm-up). A window trace holds one line per
    change: a connection that changes its window fewer than 3 times after the warm-up (B3's,
    stuck at one segment between timeouts) gets no window row, and the manifest says why.
    """
    from labcalc.measure import read
    from labcalc.measure.manifest import ManifestError, build_manifest

    entries, version = [], "?"
    for run, (variant, question, scenario) in RUNS.items():
        summary = read(out / run / "summary.csv")
        version = summary.attrs.get("from", version)
        for row in summary.itertuples():
            entries.append(entry(question, scenario, row.flow, "goodput", f"{run}/summary.csv"))
            entries.append(entry(question, scenario, row.flow, "loss", f"{run}/summary.csv"))
            if row.transport != "tcp":
                continue
            window = [float(row.window_start_s), float(row.window_end_s)]
            for metric, suffix in (("rtt", "rtt"), ("cwnd", "cwnd")):
                text = entry(question, scenario, row.flow, metric, f"{run}/{row.flow}-{suffix}.data", window_s=window)
                (out / "check.toml").write_text(text, encoding="utf-8")
                try:
                    build_manifest(out / "check.toml")
                except ManifestError as exc:
                    why = str(exc).split(": ")[-1]
                    text = f"# no {metric} row for {run} {row.flow}: {why}\n" + "".join(f"# {x}\n" for x in text.splitlines())
                finally:
                    (out / "check.toml").unlink()
                entries.append(text)
    head = (f"# ns-3 runs of handout parts 1 and 2 written by scripts/simulate_lab5_runs.py ({version}): each\n"
            f"# folder is what 'labcalc simulate data/scenarios/lab51.toml --variant <V> --tcp {TCP} --duration "
            f"{DURATION_S:g} --seed {SEED} -o <folder>'\n"
            f"# writes. Goodput and loss come from summary.csv (the goodput over the steady window after the\n"
            f"# warm-up, the loss over the run); RTT and window from the TCP flow's traces over the same window.\n"
            f"# Build the table:  labcalc measurements build data/measurements/lab5/simulated/runs -o sim.csv\n\n")
    (out / "manifest.toml").write_text(head + "\n".join(entries), encoding="utf-8")
    return len(entries)


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for run, (variant, question, scenario) in RUNS.items():
        start = time.perf_counter()
        # the scenario as a path from the repository root: simulation.json records it as given
        res = sim.simulate(Path(os.path.relpath(scenario_path("lab51"))), variant=variant, tcp=TCP,
                           duration_s=DURATION_S, seed=SEED)
        res.write(out / run)
        print(f"{run:<7} {time.perf_counter() - start:5.1f} s  " + ", ".join(
            f"{f} {g / 1e3:.0f} kbit/s {100 * q:.1f} %" for f, g, q in
            zip(res.summary.index, res.summary.goodput_bps, res.summary.loss)), flush=True)
    n = write_manifest(out)
    print(f"wrote {len(RUNS)} runs and manifest.toml ({n} entries) to {out}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--manifest-only"]:
        print(write_manifest(Path(sys.argv[2]) if len(sys.argv) > 2 else OUT), "entries")
    else:
        main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
