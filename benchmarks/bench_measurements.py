"""Time to build a measurement manifest (labcalc.measure.manifest) from generated raw files.

Targets (issue 10): a manifest of 20 raw files of 10,000 lines each builds in <= 2 s; a
manifest naming one 1,000,000-line tcp:tcp_probe trace builds in <= 3 s. The files are
generated (seeded) in a scratch folder: 20 iperf3 UDP server printouts of 10,000
one-second intervals (10 goodput entries with the steady window chosen by steady_state,
10 loss entries over a given window), and the tracepoint file of
benchmarks/bench_readers.py (a cwnd entry). Each build is timed in this process after a
warm-up build of a small manifest (imports excluded). Prints a table; never fails on a
missed target. The column "of which reading" times the readers alone on the same files,
to show how much of a build is the reader's and how much the manifest's own work.

Also a tidy measurement CSV with a very wide header read by ``load_measurements`` (10,000 to
90,000 columns): its repeated header names were counted once per column (30,000 columns:
18 s); the time per column must stay flat as the header grows.

Run: ``.venv/bin/python benchmarks/bench_measurements.py [--lines N] [--probe-lines N]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_readers import gen_tcp_probe  # noqa: E402  (the readers' benchmark generator)

from labcalc.measure.manifest import build_manifest  # noqa: E402


def gen_iperf3_udp_server(path: str, n: int, seed: int) -> None:
    """An iperf3 UDP server printout with *n* one-second interval lines and its end line."""
    rng = np.random.default_rng(seed)
    rate = 4.8 + rng.normal(0, 0.02, n)
    rate[: n // 20] = np.linspace(1.0, 4.8, n // 20)  # a warm-up for steady_state to remove
    total = rng.integers(1240, 1260, n)
    lost = (total * rng.uniform(0.50, 0.54, n)).astype(int)
    out = ["-----------------------------------------------------------\n",
           "Server listening on 5201 (test #1)\n",
           "-----------------------------------------------------------\n",
           "Accepted connection from 10.0.1.1, port 40000\n",
           "[  5] local 10.0.3.3 port 5201 connected to 10.0.1.1 port 50000\n",
           "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"]
    for i in range(n):
        kb = rate[i] * 1e6 / 8 / 1024
        out.append(f"[  5] {i:7.2f}-{i + 1:<7.2f} sec   {kb:.0f} KBytes  {rate[i]:.2f} Mbits/sec  0.450 ms  "
                   f"{lost[i]}/{total[i]} ({100 * lost[i] / total[i]:.0f}%)  \n")
    out.append("- - - - - - - - - - - - - - - - - - - - - - - - -\n")
    out.append("[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n")
    out.append(f"[  5]   0.00-{n:.2f} sec  {rate.sum() / 8 / 1024:.0f} MBytes  {rate.mean():.2f} Mbits/sec  "
               f"0.450 ms  {lost.sum()}/{total.sum()} ({100 * lost.sum() / total.sum():.0f}%)  receiver\n")
    with open(path, "w") as fh:
        fh.writelines(out)


def entry(i: int, metric: str, file: str, extra: str = "") -> str:
    return (f'[[measurement]]\nquestion = "Q{i}"\nscenario = "S"\nflow = "f{i}"\nmetric = "{metric}"\n'
            f'file = "{file}"\n{extra}\n')


def timed(path: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    table = build_manifest(path)
    return time.perf_counter() - t0, len(table)


def read_only(paths, fmt=None) -> float:
    """Seconds the readers alone take on the same files (the rest is the manifest's own work)."""
    from labcalc import measure

    t0 = time.perf_counter()
    for path in paths:
        measure.read(path, format=fmt)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=10_000, help="interval lines per iperf3 file")
    ap.add_argument("--probe-lines", type=int, default=1_000_000, help="lines of the tcp_probe trace")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(20):
            gen_iperf3_udp_server(os.path.join(tmp, f"udp{k:02d}.txt"), args.lines, seed=k)
        with open(os.path.join(tmp, "warm.toml"), "w") as fh:
            fh.write(entry(0, "goodput", "udp00.txt"))
        timed(os.path.join(tmp, "warm.toml"))  # imports and first-call costs
        with open(os.path.join(tmp, "twenty.toml"), "w") as fh:
            for k in range(20):
                if k % 2:
                    fh.write(entry(k, "loss", f"udp{k:02d}.txt", f'window_s = [100, {args.lines}]\nstat = "mean"'))
                else:
                    fh.write(entry(k, "goodput", f"udp{k:02d}.txt"))
        seconds, n = timed(os.path.join(tmp, "twenty.toml"))
        reading = read_only([os.path.join(tmp, f"udp{k:02d}.txt") for k in range(20)])
        rows.append((f"20 iperf3 files x {args.lines:,} lines", n, seconds, reading, 2.0))

        gen_tcp_probe(os.path.join(tmp, "probe.txt"), args.probe_lines)
        with open(os.path.join(tmp, "probe.toml"), "w") as fh:
            fh.write(entry(1, "cwnd", "probe.txt", 'format = "tcp_probe"'))
        seconds, n = timed(os.path.join(tmp, "probe.toml"))
        reading = read_only([os.path.join(tmp, "probe.txt")], "tcp_probe")
        rows.append((f"1 tcp_probe trace x {args.probe_lines:,} lines", n, seconds, reading, 3.0))

    print(f"{'manifest':<40} {'rows':>5} {'build [s]':>10} {'of which reading [s]':>21} {'target [s]':>11} {'':>5}")
    for name, n, seconds, reading, target in rows:
        print(f"{name:<40} {n:>5} {seconds:>10.2f} {reading:>21.2f} {target:>11.1f} "
              f"{'ok' if seconds <= target else 'SLOW':>5}")
    wide_header_table()
    return 0


def wide_header_table() -> None:
    """load_measurements on a tidy CSV whose header has many extra columns: linear, not quadratic."""
    from labcalc.compare import load_measurements

    print(f"\n{'tidy CSV with a wide header':<40} {'columns':>8} {'time [s]':>9} {'us per column':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "wide.csv")
        for n in (10_000, 30_000, 90_000):
            with open(path, "w") as fh:
                fh.write(",".join(["question", "scenario", "flow", "metric", "value", "unit"]
                                  + [f"c{i}" for i in range(n)]) + "\n")
                fh.write("Q1,A,f,goodput,1,bit/s" + "," * n + "\n")
            t = time.perf_counter()
            load_measurements(path)
            dt = time.perf_counter() - t
            print(f"{'load_measurements':<40} {n:>8,} {dt:>9.2f} {dt / n * 1e6:>14.1f}")


if __name__ == "__main__":
    raise SystemExit(main())
