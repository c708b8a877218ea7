"""Timings of labcalc.fairness on large random networks (a script, not a test).

Random networks: L links with capacities uniform in 1..10 Mbit/s, N greedy flows, each
crossing 1 to 5 distinct random links (seeded numpy Generator). For each size it prints
the time of ``max_min`` and of ``proportional`` (dual Newton), compared with

- two plain-Python progressive fillings: the textbook one (each round recomputes the
  link loads and raises every flow; run at 10,000 flows only, it takes 50 s
  at 100,000) and one with a shared water level and per-link counters;
- cvxpy + CLARABEL on the same proportional-fairness problem (``method="cvxpy-raw"``, CLARABEL alone), and
  the largest relative difference between its rates and the dual Newton ones.

Times are the best of a few runs (the machine is shared; see the note printed at the
end). Targets: max_min at 100,000 flows < 0.2 s; proportional at 10,000 flows < 0.5 s and
at 100,000 flows < 2 s.

Usage: ``python benchmarks/bench_fairness.py [--no-cvxpy] [--cvxpy-100k]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

from labcalc import fairness
from labcalc.network import Network

TARGETS = {("max_min", 100_000): 0.2, ("proportional", 10_000): 0.5, ("proportional", 100_000): 2.0}


def random_network(n_links: int, n_flows: int, seed: int = 0, max_hops: int = 5) -> Network:
    """Each flow crosses 1..max_hops distinct links chosen uniformly at random."""
    rng = np.random.default_rng(seed)
    hops = rng.integers(1, max_hops + 1, n_flows)
    links = np.empty((n_flows, max_hops), dtype=np.int64)
    todo = np.arange(n_flows)
    while todo.size:  # redraw the rows whose first `hops` links are not distinct
        links[todo] = rng.integers(0, n_links, (todo.size, max_hops))
        sub = np.sort(np.where(np.arange(max_hops) < hops[todo, None], links[todo], -1 - np.arange(max_hops)), axis=1)
        todo = todo[(np.diff(sub, axis=1) == 0).any(axis=1)]
    mask = np.arange(max_hops)[None, :] < hops[:, None]
    R = sp.csr_matrix((np.ones(int(hops.sum()), dtype=np.int8),
                       (links[mask], np.repeat(np.arange(n_flows), hops))), shape=(n_links, n_flows))
    return Network.from_routing(R, rng.uniform(1e6, 10e6, n_links))


def python_textbook(net: Network) -> np.ndarray:
    """Progressive filling as in Bertsekas & Gallager 6.5.2, in plain Python: every round
    recomputes each link's load from its flows and raises every unfrozen flow
    (equal weights, greedy flows)."""
    R = net.routing_matrix.tocsr()
    link_flows = [list(R.indices[R.indptr[l]:R.indptr[l + 1]]) for l in range(R.shape[0])]
    caps = [float(c) for c in net.capacities_bps]
    rate = [0.0] * R.shape[1]
    frozen = [False] * R.shape[1]
    left = R.shape[1]
    while left:
        load = [sum(rate[i] for i in flows) for flows in link_flows]
        count = [sum(1 for i in flows if not frozen[i]) for flows in link_flows]
        inc = min((caps[l] - load[l]) / count[l] for l in range(len(caps)) if count[l])
        for i in range(len(rate)):
            if not frozen[i]:
                rate[i] += inc
        for l, flows in enumerate(link_flows):
            if count[l] and load[l] + inc * count[l] >= caps[l] * (1 - 1e-9):
                for i in flows:
                    if not frozen[i]:
                        frozen[i] = True
                        left -= 1
    return np.array(rate)


def python_water_filling(net: Network) -> np.ndarray:
    """Progressive filling in plain Python with one shared water level and per-link
    counts of unfrozen flows (equal weights, greedy flows)."""
    R = net.routing_matrix.tocsr()
    link_flows = [list(R.indices[R.indptr[l]:R.indptr[l + 1]]) for l in range(R.shape[0])]
    C = R.tocsc()
    flow_links = [list(C.indices[C.indptr[i]:C.indptr[i + 1]]) for i in range(R.shape[1])]
    remaining = [float(c) for c in net.capacities_bps]
    active = [len(f) for f in link_flows]
    frozen = [False] * R.shape[1]
    rate = [0.0] * R.shape[1]
    level = 0.0
    left = R.shape[1]
    while left:
        best = min((remaining[l] / active[l], l) for l in range(len(active)) if active[l])
        step = best[0]
        level += step
        for l in range(len(active)):  # every link loses step per active flow
            if active[l]:
                remaining[l] -= step * active[l]
        saturated = [l for l in range(len(active)) if active[l] and remaining[l] <= 1e-9 * net.capacities_bps[l]]
        for l in saturated:
            for i in link_flows[l]:
                if not frozen[i]:
                    frozen[i] = True
                    rate[i] = level
                    left -= 1
                    for k in flow_links[i]:
                        active[k] -= 1
    return np.array(rate)


def best_time(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-cvxpy", action="store_true", help="skip cvxpy + CLARABEL")
    parser.add_argument("--cvxpy-100k", action="store_true",
                        help="also run cvxpy at 100,000 flows (about 30 s or more)")
    args = parser.parse_args()

    sizes = [(1000, 10_000), (1000, 100_000)]
    # warm up imports and caches
    warm = random_network(50, 500, seed=99)
    fairness.max_min(warm), fairness.proportional(warm)

    rows = []
    for L, N in sizes:
        net = random_network(L, N, seed=1)
        t_mm, mm = best_time(lambda: fairness.max_min(net), 5)
        assert fairness.is_max_min_fair(net, mm.rates)
        t_pf, pf = best_time(lambda: fairness.proportional(net), 3)
        assert fairness.is_pareto_efficient(net, pf.rates)
        py = []
        for label, ref, max_flows in (("textbook", python_textbook, 10_000),
                                      ("shared level", python_water_filling, 100_000)):
            if N <= max_flows:
                t_py, py_rates = best_time(lambda: ref(net), 1)
                agree = float(np.max(np.abs(py_rates - mm.rates.to_numpy()) / mm.rates.to_numpy()))
                py.append(f"{label:12s} {t_py:7.2f} s  speed-up x{t_py / t_mm:5.0f}  (max rel diff {agree:.0e})")
            else:
                py.append(f"{label:12s} skipped: measured once at 50 s (> 30 s) at this size")
        if args.no_cvxpy or (N > 10_000 and not args.cvxpy_100k):
            cv = "skipped" + ("" if args.no_cvxpy else ": measured once at 105 s, 0.57 GB, max rel diff 3.5e-08 (use --cvxpy-100k)")
        else:
            t_cv, cvx = best_time(lambda: fairness.proportional(net, method="cvxpy-raw"), 1)
            diff = float(np.max(np.abs(cvx.rates.to_numpy() - pf.rates.to_numpy()) / pf.rates.to_numpy()))
            cv = f"{t_cv:7.2f} s  speed-up x{t_cv / t_pf:5.0f}  (max rel diff {diff:.1e}; {cvx.solver})"
        rows.append((L, N, t_mm, mm.iterations, t_pf, pf.iterations, py, cv))

    def verdict(kind, N, t):
        target = TARGETS.get((kind, N))
        return f"(target < {target:g} s: {'met' if t < target else 'NOT met'})" if target else ""

    print("labcalc.fairness on random networks (each flow crosses 1-5 of L links, seed 1)")
    print()
    for L, N, t_mm, it_mm, t_pf, it_pf, py, cv in rows:
        print(f"L = {L:,} links, N = {N:,} flows")
        print(f"  max_min (numpy water-filling)  {t_mm:7.3f} s  {it_mm:5d} rounds      {verdict('max_min', N, t_mm)}")
        print(f"  proportional (dual Newton)     {t_pf:7.3f} s  {it_pf:5d} iterations  {verdict('proportional', N, t_pf)}")
        for line in py:
            print(f"  plain-Python water-filling, {line}")
        print(f"  cvxpy + CLARABEL (proportional) {cv}")
        print()
    print("Times: best of 5 (max_min) / 3 (proportional) runs; the Python and cvxpy references")
    print("run once. The speed-ups are reference time / labcalc time for the same instance.")
    print("The cvxpy time includes CLARABEL's stricter attempts that ended 'optimal_inaccurate'")
    print("before the one named in brackets (see fairness.problem._CLARABEL_ATTEMPTS).")
    print("On a shared 2-core machine multithreaded BLAS can stall when another process is")
    print("busy; OPENBLAS_NUM_THREADS=1 gives steadier dual Newton times.")


if __name__ == "__main__":
    main()
