"""ns-3 through labcalc.sim: import cost, simulated seconds per wall second, a lab-size run.

Prints a table (no assertion): the one-time cost of importing ns-3 and compiling labcalc's
C++ part, then for 1, 10 and 100 NewReno flows through one 100 Mbit/s bottleneck (20 ms,
BDP-sized queue) how many simulated seconds one wall second buys, and the wall time of
lab51 / lab52 / lab53 scenarios over 30 s as written (their own queues: RED at the routers;
the issue's target: at most 5 s after the import), split into ns-3 (build, run, copy of the
C++ vectors) and the DataFrames (``from_raw``), with the packets sent and the trace samples
kept. lab51 D1 is run again on drop-tail queues of 1000 packets, the stress case, with and
without SACK: there its time with SACK goes to an assertion compiled into the PyPI wheel
(see ``simulate``'s Notes).
"""

from __future__ import annotations

import time

from labcalc import sim
from labcalc.data import scenario_path
from labcalc.network import Link, Network


def main() -> None:
    if not sim.available():
        print("ns-3 is not installed (pip install 'labcalc[sim]'): nothing to measure")
        return
    t0 = time.perf_counter()
    sim.simulate(Network({"l": 1e6}, {"a": ["l"]}), duration_s=0.1)
    first = time.perf_counter() - t0
    rows = [("import ns-3 + compile (once per process)", f"{sim.import_seconds():.2f} s", ""),
            ("first tiny run, all included", f"{first:.2f} s", "")]
    for n, sim_s in ((1, 20.0), (10, 10.0), (100, 5.0)):
        net = Network({"l": Link(100e6, delay_s=0.01, buffer_packets=170)}, {f"f{i}": ["l"] for i in range(n)})
        res = sim.simulate(net, duration_s=sim_s, start_s={f"f{i}": 0.01 * i for i in range(n)})
        wall = res.attrs["wall_s"]
        pkts = int(res.summary["sent_packets"].sum())
        rows.append((f"{n:3d} TCP flows, 100 Mbit/s, {sim_s:g} s simulated",
                     f"{sim_s / wall:.2f} sim s / wall s", f"{wall:.2f} s wall, {pkts / wall / 1e3:.0f} k data packets/s"))
    # the scenarios as written (RED at the routers), then lab51 D1 on drop-tail queues of 1000
    # packets: the stress case (slow start overshoots by ~2000 segments; see simulate's Notes)
    stress = {"queue_disc": "droptail", "queue_packets": 1000}
    for name, variant, sack, opts in (("lab51", "A3", True, {}), ("lab51", "B2", True, {}), ("lab51", "D1", True, {}),
                                      ("lab52", "tcp", True, {}), ("lab53", None, True, {}),
                                      ("lab51", "D1", True, stress), ("lab51", "D1", False, stress)):
        t0 = time.perf_counter()
        res = sim.simulate(scenario_path(name), variant=variant, duration_s=30, sack=sack, **opts)
        total = time.perf_counter() - t0
        ns3 = res.attrs["wall_s"]
        label = ", stress: drop-tail 1000" if opts else ""
        case = f"{name} {variant}" if variant else name
        rows.append((f"{case}, 30 s, {len(res.summary)} flows{label}{'' if sack else ', sack=False'}",
                     f"{total:.2f} s wall",
                     f"ns-3 {ns3:.2f} s + frames {total - ns3:.2f} s; {int(res.summary['sent_packets'].sum())} "
                     f"packets, {len(res.cwnd) + len(res.rtt)} trace samples; target <= 5 s"))
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'result':<22}  note")
    for a, b, c in rows:
        print(f"{a:<{width}}  {b:<22}  {c}")


if __name__ == "__main__":
    main()
