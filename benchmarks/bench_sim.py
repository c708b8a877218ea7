"""ns-3 through labcalc.sim: the first run, data packets per second, set-up, sweeps on 1 and 2 workers.

Prints tables (no assertion); wall times depend on what else runs on the machine, CPU times
much less (both are printed). Sections:

1. The first run of a fresh process (``labcalc simulate`` in a new Python): with labcalc's
   C++ part compiled once and cached (the default), the same with an empty cache (the
   compilation, once per machine), with cling (the fallback without a compiler), and what
   ``from ns import ns`` (the ns3 package's own loader, every module) costs by itself.
   Target of issue 22: <= 15 s.
2. Data packets simulated per second (wall and CPU) for 1, 10 and 100 TCP flows through one
   100 Mbit/s bottleneck, UDP, and the lab's scenarios over 30 s; beside it the time
   :func:`labcalc.sim.planning.estimate_seconds` predicted (the calibration of
   ``SimulationTooLong``).
3. Many flows: set-up before the first packet and the whole run, vs the estimate.
4. A sweep of 24 lab-size runs (lab51 B1, B2, D1, D2 x NewReno, CUBIC x 3 seeds, 20 s each)
   on 1 and on 2 warm workers (target: 2 workers >= 1.8x faster), then the same sweep again
   from the cache (target: < 1 s).

Run: ``.venv/bin/python benchmarks/bench_sim.py`` (about 3 minutes on an idle machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from labcalc import sim
from labcalc.data import scenario_path
from labcalc.network import Link, Network
from labcalc.sim import runner

ROOT = Path(__file__).resolve().parent.parent


def table(rows, head):
    width = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    print("  ".join(f"{h:<{w}}" for h, w in zip(head, width)))
    for r in rows:
        print("  ".join(f"{str(c):<{w}}" for c, w in zip(r, width)))
    print()


def fresh_cli(env_extra: dict) -> tuple:
    """Wall time of `labcalc simulate` (lab51 A2, 2 s) in a new Python, and the engine it used."""
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, PYTHONPATH=str(ROOT), **env_extra)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "labcalc.cli", "simulate", str(scenario_path("lab51")),
                               "--variant", "A2", "--duration", "2", "-o", out], env=env, capture_output=True,
                              text=True, cwd=ROOT)
        wall = time.perf_counter() - t0
        if proc.returncode:
            return wall, f"failed: {proc.stderr.strip()[-200:]}"
        info = json.loads((Path(out) / "simulation.json").read_text())
        return wall, info["engine"]


def first_run() -> None:
    print("== 1. the first run of a fresh process (labcalc simulate lab51 A2, 2 s simulated)")
    rows = []
    wall, engine = fresh_cli({})
    rows.append(("compiled C++ part, cached (the default)", f"{wall:.2f} s", engine))
    with tempfile.TemporaryDirectory() as cache:
        wall, engine = fresh_cli({"LABCALC_CACHE_DIR": cache})
        rows.append(("empty cache: compiles it first (once per machine)", f"{wall:.2f} s", engine))
    wall, engine = fresh_cli({"LABCALC_SIM_ENGINE": "cling"})
    rows.append(("cling: six modules' headers + JIT (no compiler)", f"{wall:.2f} s", engine))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", "from ns import ns"], capture_output=True, cwd=ROOT)
    rows.append(("`from ns import ns` alone (every module; before)", f"{time.perf_counter() - t0:.2f} s",
                 "ok" if proc.returncode == 0 else "failed"))
    table(rows, ("case", "wall", "engine"))


def rates() -> None:
    print("== 2. data packets per second (the worker warm; CPU time is the worker's)")
    runner.default_worker().ready()
    rows = []

    def row(label, res):
        a = res.attrs
        data = int(res.summary["sent_packets"].sum())
        rows.append((label, f"{a['wall_s']:.2f}", f"{a['cpu_s']:.2f}", data, f"{data / a['wall_s']:,.0f}",
                     f"{data / a['cpu_s']:,.0f}", f"{a['estimated_s']:.2f}", f"{a['estimated_s'] / a['cpu_s']:.2f}"))

    for n, dur in ((1, 20.0), (10, 10.0), (100, 5.0)):
        net = Network({"l": Link(100e6, delay_s=0.01, buffer_packets=170)}, {f"f{i}": ["l"] for i in range(n)})
        row(f"{n} TCP, 100 Mbit/s, {dur:g} s", sim.simulate(net, duration_s=dur, max_packets=1e8,
                                                            start_s={f"f{i}": 0.01 * i for i in range(n)}))
    net = Network({"l": Link(100e6, delay_s=0.01, buffer_packets=170)}, {"u": ["l"]})
    row("1 UDP, 100 Mbit/s, 10 s", sim.simulate(net, duration_s=10, offered_bps=100e6, max_packets=1e8))
    for name, variant in (("lab51", "A3"), ("lab51", "B2"), ("lab51", "D1"), ("lab52", "tcp"), ("lab53", None)):
        row(f"{name} {variant or ''}, 30 s".replace(" ,", ","), sim.simulate(scenario_path(name), variant=variant,
                                                                            duration_s=30))
    table(rows, ("case", "wall s", "CPU s", "data packets", "per wall s", "per CPU s", "estimated s",
                 "estimate / CPU"))


def many_flows() -> None:
    print("== 3. many flows: set-up and route look-ups (0.5 s simulated, 100 Mbit/s)")
    rows = []
    for n in (100, 1000, 3000):
        net = Network({"l": Link(100e6, delay_s=0.01, buffer_packets=170)}, {f"f{i}": ["l"] for i in range(n)})
        t0 = time.perf_counter()
        res = sim.simulate(net, duration_s=0.5, warmup_s=0, interval_s=0.05, max_packets=1e9)
        total = time.perf_counter() - t0
        a = res.attrs
        rows.append((n, f"{a['setup_s']:.2f}", f"{a['wall_s']:.2f}", f"{a['cpu_s']:.2f}", f"{total:.2f}",
                     f"{a['estimated_s']:.2f}", int(res.summary['sent_packets'].sum())))
    table(rows, ("flows", "set-up s", "ns-3 wall s", "ns-3 CPU s", "simulate() wall s", "estimated s",
                 "data packets"))


def sweeps() -> None:
    print("== 4. a sweep of 24 lab-size runs (lab51 B1, B2, D1, D2 x NewReno, Cubic x seeds 1-3, 20 s each)")
    grid = {"variant": ["B1", "B2", "D1", "D2"], "tcp": ["NewReno", "Cubic"]}
    kw = dict(seeds=[1, 2, 3], duration_s=20, progress=False)
    rows = []
    for ws in runner.workers(2):       # both warm before the clock starts
        ws.ready()
    times = {}
    for n in (1, 2):
        with tempfile.TemporaryDirectory() as cache:
            t0 = time.perf_counter()
            c0 = os.times()
            tab = sim.sweep(scenario_path("lab51"), grid, workers=n, cache_dir=cache, **kw)
            times[n] = time.perf_counter() - t0
            cpu = sum(tab.drop_duplicates("key").wall_s)
            rows.append((f"{n} worker(s)", tab.attrs["runs"], f"{times[n]:.2f}", f"{cpu:.2f}",
                         f"{times[1] / times[n]:.2f}x" if n > 1 else "", f"{os.times().elapsed - c0.elapsed:.2f}"))
            if n == 2:
                t0 = time.perf_counter()
                again = sim.sweep(scenario_path("lab51"), grid, workers=n, cache_dir=cache, **kw)
                rows.append(("again, from the cache", again.attrs["runs"], f"{time.perf_counter() - t0:.3f}",
                             "0", f"{again.attrs['from_cache']} cached", ""))
    table(rows, ("sweep", "runs", "wall s", "sum of run walls s", "speed-up", "elapsed s"))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (other processes share them)")


def main() -> None:
    if not sim.available():
        print("ns-3 is not installed (pip install 'labcalc[sim]'): nothing to measure")
        return
    print(f"load average before: {os.getloadavg()[0]:.2f}\n")
    first_run()
    rates()
    many_flows()
    sweeps()


if __name__ == "__main__":
    main()
