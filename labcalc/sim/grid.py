"""``sweep`` (``labcalc.sim.sweep``): a grid of simulations, run in parallel worker processes, each result cached on disk.

:func:`sweep` runs one scenario for every combination of the values in ``grid`` (any
keyword of :func:`labcalc.sim.simulate`, and ``variant``) and every seed, and returns one
table row per run and flow. Every run is planned and checked first (a bad value stops the
sweep before ns-3 starts); then the runs not yet in the cache are spread over worker
processes that load ns-3 once each (:mod:`labcalc.sim.runner`), or over a Dask cluster
when a scheduler is given (``pip install 'labcalc[dask]'``).

The cache keeps every finished run as soon as it finishes, under a key made of everything
the run depends on: the checked plan (every link, flow, option and seed, so two spellings
of one run share it), the scenario file and variant, labcalc's version and the sources of
its ns-3 code, and the ns-3 version. A second sweep of the same grid reads the cache and
simulates nothing; an interrupted sweep goes on where it stopped. :func:`load_run` gives
the whole :class:`~labcalc.sim.SimResult` of one row's run. Each entry holds its own key: a
damaged file, or one of another run, is simulated again (with a ``RuntimeWarning``), never
read; a cache that cannot be written warns and the sweep goes on. Entries are written to a
temporary file and renamed, so sweeps sharing a cache folder at once do not corrupt it.

Examples
--------
>>> expand_grid({"tcp": ["NewReno", "Cubic"], "queue_packets": [50, 100]}, seeds=[1, 2])[:3]
[{'tcp': 'NewReno', 'queue_packets': 50, 'seed': 1}, {'tcp': 'NewReno', 'queue_packets': 50, 'seed': 2}, {'tcp': 'NewReno', 'queue_packets': 100, 'seed': 1}]
>>> table = sweep("data/scenarios/seed003.toml",  # doctest: +SKIP
...               grid={"variant": ["baseline_1g", "core_100m", "core_delay", "core_loss"],
...                     "tcp": ["LinuxReno", "Cubic"]}, seeds=[1, 2, 3], duration_s=10)
"""

from __future__ import annotations

import hashlib
import itertools
import math
import numbers
import os
import pickle
import queue
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Mapping

import numpy as np

from labcalc.sim.limits import short_repr, timeout_seconds

__all__ = ["sweep", "expand_grid", "load_run", "run_key", "GRID_KEYS", "CACHE_FORMAT", "MAX_RUNS"]

#: What a grid (or the fixed options of a sweep) may vary: ``variant`` and the options of simulate.
GRID_KEYS = ("variant", "duration_s", "tcp", "queue_packets", "error_rate", "transport", "offered_bps",
             "payload_bytes", "queue_disc", "start_s", "stop_s", "interval_s", "warmup_s", "udp_arrivals",
             "delayed_ack_count", "sack", "ts_rtt", "ecn", "socket_buffer_bytes", "linux_rto", "max_packets")
#: Most runs one sweep takes (a grid beyond it is refused before any is checked or run).
MAX_RUNS = 10_000
#: Version of the cache's file layout (part of every key).
CACHE_FORMAT = 2
#: Sources a cached result depends on beyond its plan (under labcalc/): the ns-3 code, how a plan's
#: links become ns-3's (RED's mapping), and the summary's window (MSER, shared with the manifests).
_RESULT_FILES = ("sim/_cpp.py", "sim/_engine.py", "sim/_worker.py", "sim/result.py", "sim/core.py", "sim/red.py",
                 "sim/planning.py", "measure/analysis.py", "measure/_manifest_window.py")


def _values(what: str, values, kind: str = "a list of values") -> list:
    """A grid's list of values (or the seeds), checked: an iterable, not empty, bounded, no value twice."""
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        hint = (" (a per-flow or per-link value is one mapping: give a list of them, [{...}, {...}])"
                if isinstance(values, Mapping) else "")
        raise ValueError(f"{what} must be {kind}; got {short_repr(values)}{hint}")
    listed = list(itertools.islice(values, MAX_RUNS + 1))
    if not listed:
        raise ValueError(f"{what} is empty: give at least one value")
    if len(listed) > MAX_RUNS:
        raise ValueError(f"{what} has more than {MAX_RUNS:,} values; a sweep runs at most {MAX_RUNS:,}: "
                         "split it into several sweeps (each keeps its runs in the cache)")
    for i, value in enumerate(listed):
        # == (1 and 1.0 are one run); an unhashable value (a per-flow mapping) is compared by its repr
        if any(_same(value, other) for other in listed[:i]):
            raise ValueError(f"{what} gives {short_repr(value)} twice: each value once (the table would have "
                             "the same run twice)")
    return listed


def _same(a, b) -> bool:
    try:
        return bool(a == b) and hash(a) == hash(b)
    except (TypeError, ValueError):
        return repr(a) == repr(b)


def expand_grid(grid=None, seeds=(1,)) -> list:
    """Every combination of a grid's values, times every seed, in order (the last key varies fastest, then the seed).

    Parameters
    ----------
    grid : mapping name -> list of values, optional
        Names from :data:`GRID_KEYS`; each value once.
    seeds : int or iterable of int, default (1,)
        ns-3 seeds, each once.

    Returns
    -------
    list of dict
        One dict per run: the grid's values and ``seed``; at most :data:`MAX_RUNS`.

    Raises
    ------
    ValueError
        An unknown name, an empty list of values, a value given twice, no seed, or more
        than :data:`MAX_RUNS` runs.

    Examples
    --------
    >>> expand_grid({"tcp": ["Cubic"]}, seeds=3)
    [{'tcp': 'Cubic', 'seed': 3}]
    """
    if grid is None:
        grid = {}
    if not isinstance(grid, Mapping):
        raise ValueError(f"grid must be a mapping of names to lists of values ({{'tcp': ['NewReno', 'Cubic']}}); "
                         f"got {short_repr(grid)}")
    grid = dict(grid)
    for name, values in grid.items():
        if name not in GRID_KEYS:
            raise ValueError(f"grid: unknown name {short_repr(name)}; a grid varies {', '.join(GRID_KEYS)} "
                             "(seeds are given apart: seeds=, or --seeds)")
        grid[name] = _values(f"grid[{name!r}]", values)
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, (bool, np.bool_)):
        seeds = [int(seeds)]
    else:
        seeds = _values("seeds", seeds, "a whole number or a list of them")
    total = math.prod(len(v) for v in grid.values()) * len(seeds)
    if total > MAX_RUNS:
        raise ValueError(f"this grid has {total:,} runs ({' x '.join(str(len(v)) for v in grid.values())} x "
                         f"{len(seeds)} seed(s)); a sweep runs at most {MAX_RUNS:,}: split it into several sweeps "
                         "(each keeps its runs in the cache)")
    names = list(grid)
    return [dict(zip(names, combo), seed=seed)
            for combo in itertools.product(*(grid[n] for n in names)) for seed in seeds]


def _fingerprint() -> str:
    """labcalc's version and the sources of its ns-3 code: a change in them is a new key."""
    from importlib.metadata import PackageNotFoundError, version

    from labcalc.sim._engine import ns3_version

    try:
        mine = version("labcalc")
    except PackageNotFoundError:
        mine = "unknown"
    h = hashlib.sha256(f"labcalc {mine} ns3 {ns3_version()} cache {CACHE_FORMAT}".encode())
    here = Path(__file__).resolve().parents[1]
    for name in _RESULT_FILES:
        h.update((here / name).read_bytes())
    return h.hexdigest()


def run_key(plan, source=None, variant=None) -> str:
    """The cache key of one run: a hash of its plan, scenario, variant, labcalc's and ns-3's versions.

    Parameters
    ----------
    plan : labcalc.sim.planning.Plan
        The checked plan (:func:`labcalc.sim.plan`).
    source : str, optional
        The scenario file (its path; its content is in the plan).
    variant : str, optional
        The scenario's variant.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> from labcalc.network import Network
    >>> from labcalc.sim.planning import plan
    >>> p = plan(Network({"l": 5e6}, {"a": ["l"]}), duration_s=2.0)
    >>> run_key(p) == run_key(plan(Network({"l": 5e6}, {"a": ["l"]}), duration_s=2)), len(run_key(p))
    (True, 64)
    """
    text = repr((plan, source, variant, _fingerprint()))
    return hashlib.sha256(text.encode()).hexdigest()


def _cache_root(cache_dir) -> Path:
    if cache_dir is None:
        from labcalc.sim._engine import cache_dir as base

        return base() / "sweeps"
    return Path(os.fspath(cache_dir))


def _path(root: Path, key: str) -> Path:
    return root / key[:2] / f"{key}.pickle"


def load_run(key: str, cache_dir=None):
    """The whole result of one cached run (the ``key`` column of :func:`sweep`'s table).

    Parameters
    ----------
    key : str
        A run's key.
    cache_dir : str or path-like, optional
        The sweep's cache folder (default: ``~/.cache/labcalc/sweeps``, see
        :func:`labcalc.sim._engine.cache_dir`).

    Returns
    -------
    SimResult or None
        None when the run is not in the cache (or its file is damaged).

    Raises
    ------
    ValueError
        ``key`` is not 64 hexadecimal digits.

    Examples
    --------
    >>> load_run("0" * 64, cache_dir="/nonexistent") is None
    True
    """
    if not (isinstance(key, str) and len(key) == 64 and all(c in "0123456789abcdef" for c in key)):
        raise ValueError(f"key must be a run's key, 64 hexadecimal digits (the 'key' column of a sweep's table); "
                         f"got {short_repr(key)}")
    return _load(_path(_cache_root(cache_dir), key), key)[0]


def _load(path: Path, key: str):
    """(SimResult or None, why it could not be used or None): a missing file is no reason."""
    from labcalc.sim.result import SimResult

    try:
        with open(path, "rb") as fh:
            # labcalc's own cache: a file written by _store below, never one a user hands in
            entry = pickle.load(fh)
    except FileNotFoundError:
        return None, None
    except Exception as exc:    # noqa: BLE001 - a truncated or damaged file fails in many ways; it is run again
        return None, f"{type(exc).__name__}: {exc}"
    # a file of another run (copied, renamed) must not give its rows to this one
    if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("result"), SimResult):
        return None, "it holds another run or no result"
    return entry["result"], None


def _store(root: Path, key: str, result, params: dict):
    """Keep one run; returns None, or why it could not be kept (the sweep goes on without it)."""
    path = _path(root, key)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            pickle.dump({"key": key, "result": result, "params": params, "created": time.time()}, fh,
                        protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)    # whole or not at all: an interrupted sweep leaves no half entry
    except BaseException as exc:   # also an interrupt while writing: no stray temporary file
        try:
            tmp.unlink()
        except OSError:
            pass
        if isinstance(exc, OSError):
            return f"{path}: {exc.strerror or exc}"
        raise
    return None


class _Progress:
    """A one-line progress bar: an ipywidgets bar in a notebook, a text line on a terminal, else silent."""

    def __init__(self, total: int, cached: int, enabled):
        self.total, self.cached, self.done, self.failed = total, cached, cached, 0
        self.t0 = time.perf_counter()
        self.callback = enabled if callable(enabled) else None
        self.widget = self.text = None
        if enabled is True:
            if "ipykernel" in sys.modules and not sys.stderr.isatty():
                try:
                    import ipywidgets as W
                    from IPython.display import display

                    self.widget = W.IntProgress(value=cached, min=0, max=max(total, 1), description="ns-3 runs")
                    self.label = W.HTML()
                    display(W.HBox([self.widget, self.label]))
                except ImportError:
                    self.widget = None
            elif sys.stderr.isatty():
                self.text = sys.stderr
        self.show()

    def show(self, last: str = ""):
        left = self.total - self.done
        rate = (self.done - self.cached) / max(time.perf_counter() - self.t0, 1e-9)
        eta = f", about {left / rate:.0f} s left" if rate > 0 and left else ""
        line = (f"{self.done}/{self.total} runs ({self.cached} from the cache"
                f"{f', {self.failed} failed' if self.failed else ''}){eta}{f'; last: {last}' if last else ''}")
        if self.callback is not None:
            self.callback(self.done, self.total, line)
        elif self.widget is not None:
            self.widget.value = self.done
            self.label.value = line
        elif self.text is not None:
            self.text.write("\r" + line[:120].ljust(120))
            self.text.flush()

    def step(self, last: str, failed: bool = False):
        self.done += 1
        self.failed += failed
        self.show(last)

    def close(self):
        if self.text is not None:
            self.text.write("\n")
            self.text.flush()


def _label(params: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def _dask_run(plan, attrs, timeout_s=None):
    """The task a Dask worker runs: the plan in a warm ns-3 worker process of that machine (one per thread)."""
    from labcalc.sim import runner

    return runner.idle_worker().run(plan, attrs, timeout_s=timeout_s)


def _client(scheduler):
    try:
        from distributed import Client
    except ImportError:
        raise ImportError("a Dask scheduler needs dask.distributed: pip install 'labcalc[dask]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if hasattr(scheduler, "scheduler_address"):        # a LocalCluster or any other cluster object
        return Client(scheduler), True
    if isinstance(scheduler, str):
        try:
            return Client(scheduler, timeout=30), True
        except (OSError, ValueError, TypeError) as exc:    # no port, no such host, nobody answering in 30 s
            raise ValueError(f"scheduler = {short_repr(scheduler)}: {' '.join(str(exc).split())[:300]}; give the "
                             "address of a running Dask scheduler ('tcp://host:8786', a LocalCluster's "
                             "scheduler_address), or leave scheduler out to run on this machine's "
                             "processes") from None
    raise ValueError(f"scheduler must be an address ('tcp://host:8786'), a distributed.Client or a cluster; "
                     f"got {scheduler!r}")


def sweep(scenario, grid=None, *, seeds=(1,), workers: int | None = None, scheduler=None, cache_dir=None,
          cache: bool = True, progress=True, timeout_s: float | None = None, **options):
    """Simulate a grid of runs of one scenario in parallel; one row per run and flow, cached on disk.

    Parameters
    ----------
    scenario : str, path-like or labcalc.network.Network
        As :func:`labcalc.sim.simulate` takes it.
    grid : mapping name -> list of values, optional
        What varies: ``variant`` and any option of :func:`labcalc.sim.simulate`
        (:data:`GRID_KEYS`). Every combination is run.
    seeds : int or iterable of int, default (1,)
        Each combination runs once per seed.
    workers : int, optional
        Worker processes on this machine (default: one per core, at most one per run).
        Each loads ns-3 once and stays warm for the next sweep (:func:`labcalc.sim.runner.shutdown`).
    scheduler : str, distributed.Client or cluster, optional
        Run on a Dask cluster instead (``"tcp://host:8786"``, a ``Client``, a ``LocalCluster``);
        every Dask worker needs labcalc with ns-3 (``pip install 'labcalc[sim,dask]'``).
    cache_dir : str or path-like, optional
        Where finished runs are kept (default ``~/.cache/labcalc/sweeps``; ``$LABCALC_CACHE_DIR``).
    cache : bool, default True
        Read and write the cache; ``False`` simulates every run again (and keeps nothing).
    progress : bool or callable, default True
        A progress bar (ipywidgets in a notebook, a text line on a terminal); ``False`` for
        none; a function ``f(done, total, text)`` to receive it.
    timeout_s : float, optional
        Wall time each run may take once ns-3 is loaded [s] (None: no limit). A run that
        takes longer is stopped (its worker is started again for the next run), its row
        says so in ``error``, it is not cached, and the sweep goes on.
    **options
        Options of :func:`labcalc.sim.simulate` that hold for every run (``duration_s=10``...).

    Returns
    -------
    pandas.DataFrame
        One row per run and flow: the grid's names and ``seed``, ``flow``, the columns of
        :attr:`SimResult.summary` (``goodput_bps``, ``loss``, ``rtt_mean_s``, window...),
        ``cached`` (read from the cache), ``wall_s`` (of the simulation), ``error`` (the
        message of a run ns-3 aborted or that passed ``timeout_s``, else empty) and ``key``
        (:func:`load_run`). ``attrs``:
        ``runs``, ``simulated``, ``from_cache``, ``failed``, ``wall_s``, ``workers``,
        ``cache_dir``, ``options`` (``simulated`` counts distinct runs: two grid points
        that make the same plan, such as two TCP variants of a run without TCP, run once).

    Raises
    ------
    ValueError
        An unknown grid name, a value or seed given twice, more than :data:`MAX_RUNS`
        runs, or a value a run cannot take (every run is checked before any simulation
        starts; the message names the run); a cache_dir that is a file; a Dask
        scheduler address that does not answer.
    SimulationUnavailable
        ns-3 is missing (only when some run is not in the cache).

    Notes
    -----
    The runs are independent, so *n* workers take about 1/*n* of the time of one while
    there are cores for them (``benchmarks/bench_sim.py`` measures it). A run ns-3 aborts
    costs that run only: its row has the message in ``error`` and NaN values, it is not
    cached, and the sweep goes on (its worker is started again).

    References
    ----------
    .. [1] Dask.distributed documentation, "Futures" (``Client.submit``, ``as_completed``).

    Examples
    --------
    >>> from labcalc.data import scenario_path
    >>> table = sweep(scenario_path("lab51"), {"variant": ["A2", "B2"], "tcp": ["NewReno", "Cubic"]},
    ...               seeds=[1, 2], duration_s=10, progress=False)  # doctest: +SKIP
    >>> table.groupby(["variant", "tcp", "flow"]).goodput_bps.mean()  # doctest: +SKIP
    """
    import pandas as pd

    from labcalc.network import Network
    from labcalc.sim.core import prepare

    t0 = time.perf_counter()
    if workers is not None and (isinstance(workers, (bool, np.bool_)) or not isinstance(workers, numbers.Integral)
                                or workers < 1):
        raise ValueError(f"workers must be a whole number >= 1 (None: one per core); got {short_repr(workers)}")
    if not isinstance(cache, (bool, np.bool_)):
        raise ValueError(f"cache must be True or False; got {short_repr(cache)}")
    timeout_s = timeout_seconds(timeout_s)
    if not (isinstance(progress, (bool, np.bool_)) or callable(progress)):
        raise ValueError(f"progress must be True, False or a function f(done, total, text); got {short_repr(progress)}")
    if cache_dir is not None and (not isinstance(cache_dir, (str, os.PathLike)) or not os.fspath(cache_dir)):
        raise ValueError(f"cache_dir must be a folder's path; got {short_repr(cache_dir)} (None: the default, "
                         "~/.cache/labcalc/sweeps)")
    for name in options:
        if name not in GRID_KEYS:
            raise ValueError(f"sweep: unknown option {name!r}; options are those of simulate: {', '.join(GRID_KEYS[1:])}")
    if grid:
        fixed = [name for name in grid if name in options]
        if fixed:
            raise ValueError(f"sweep: {fixed[0]!r} is both in grid and a fixed option; keep one")
    combos = expand_grid(grid, seeds)
    runs = []
    for params in combos:
        kwargs = dict(options, **params)
        try:
            plan, attrs = prepare(scenario, **kwargs)
        except ValueError as exc:
            raise type(exc)(f"sweep run {_label(params)}: {exc}") from None
        source = None if isinstance(scenario, Network) else str(scenario)
        runs.append(dict(params=params, plan=plan, attrs=attrs,
                         key=run_key(plan, source, kwargs.get("variant"))))
    root = _cache_root(cache_dir)
    if cache and root.exists() and not root.is_dir():
        raise ValueError(f"cache_dir = {str(root)!r} is a file, not a folder: give a folder (it is made if missing), "
                         "or cache=False")
    results, cached, damaged = {}, set(), []
    if cache:
        for key in dict.fromkeys(r["key"] for r in runs):     # each distinct run once
            got, why = _load(_path(root, key), key)
            if got is not None:
                results[key] = got
                cached.add(key)
            elif why is not None:
                damaged.append(f"{_path(root, key)} ({why})")
    if damaged:
        warnings.warn(f"{len(damaged)} cached run(s) could not be read and are simulated again; the first: "
                      f"{damaged[0]}", RuntimeWarning, stacklevel=2)
    todo = list({r["key"]: r for r in runs if r["key"] not in results}.values())
    errors, unstored = {}, []
    bar = _Progress(len(runs), sum(r["key"] in cached for r in runs), progress)
    n_workers = 0

    def finished(r, result=None, error=None):
        if error is not None:
            errors[r["key"]] = error
        else:
            results[r["key"]] = result
            if cache:
                why = _store(root, r["key"], result, r["params"])
                if why is not None:
                    unstored.append(why)
        bar.step(_label(r["params"]), failed=error is not None)

    try:
        if todo and scheduler is not None:
            n_workers = _run_dask(scheduler, todo, finished, timeout_s)
        elif todo:
            n_workers = _run_local(todo, workers, finished, timeout_s)
    finally:
        bar.close()
    rows = []
    for r in runs:
        res = results.get(r["key"])
        base = dict(r["params"])
        if res is None:
            for flow in r["plan"].flows:
                rows.append(dict(base, flow=flow.name, cached=False, wall_s=math.nan, error=errors.get(r["key"], ""),
                                 key=r["key"]))
            continue
        for flow, row in res.summary.iterrows():
            rows.append(dict(base, flow=flow, **row.to_dict(), cached=r["key"] in cached,
                             wall_s=float(res.attrs.get("wall_s", math.nan)), error="", key=r["key"]))
    table = pd.DataFrame(rows)
    if unstored:
        warnings.warn(f"{len(unstored)} run(s) could not be kept in the cache (their rows are in the table); the "
                      f"first: {unstored[0]}; give cache_dir= a folder you can write, or cache=False",
                      RuntimeWarning, stacklevel=2)
    if errors:
        warnings.warn(f"{len(errors)} of {len(runs)} runs failed (their rows have the message in 'error'); "
                      f"the first: {next(iter(errors.values()))}", RuntimeWarning, stacklevel=2)
    table.attrs.update(runs=len(runs), simulated=len(todo) - len(errors), from_cache=sum(r["key"] in cached for r in runs),
                       failed=sum(r["key"] in errors for r in runs),
                       wall_s=time.perf_counter() - t0, workers=n_workers, cache_dir=str(root) if cache else None,
                       options={k: v for k, v in options.items()})
    return table


def _run_local(todo, workers, finished, timeout_s=None) -> int:
    from labcalc.sim import runner
    from labcalc.sim.runner import SimulationAborted, SimulationTimeout

    n = workers if workers is not None else min(len(todo), os.cpu_count() or 1)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"workers must be a whole number >= 1; got {short_repr(workers)}")
    n = min(int(n), len(todo))
    pool = runner.workers(n)
    jobs = queue.Queue()
    for r in todo:
        jobs.put(r)
    done = queue.Queue()
    stop = threading.Event()

    def serve(worker):
        while not stop.is_set():
            try:
                r = jobs.get_nowait()
            except queue.Empty:
                return
            try:
                done.put((r, worker.run(r["plan"], r["attrs"], timeout_s=timeout_s), None))
            except (SimulationAborted, SimulationTimeout) as exc:
                done.put((r, None, str(exc)))
            except BaseException as exc:   # noqa: BLE001 - handed to the main thread, raised there
                done.put((r, None, exc))
                return

    threads = [threading.Thread(target=serve, args=(w,), daemon=True) for w in pool]
    for th in threads:
        th.start()
    try:
        for _ in range(len(todo)):
            r, result, error = done.get()
            if isinstance(error, BaseException):
                raise error
            finished(r, result, error)
    except BaseException:
        stop.set()
        for w in pool:          # interrupted: the runs going on are lost, the finished ones are cached
            w.interrupt()
        raise
    for th in threads:
        th.join()
    return n


def _run_dask(scheduler, todo, finished, timeout_s=None) -> int:
    from labcalc.sim.runner import SimulationAborted, SimulationTimeout

    client, own = _client(scheduler)
    try:
        from distributed import as_completed

        futures = {client.submit(_dask_run, r["plan"], r["attrs"], timeout_s, pure=False): r for r in todo}
        for fut in as_completed(futures):
            r = futures[fut]
            try:
                finished(r, fut.result(), None)
            except (SimulationAborted, SimulationTimeout) as exc:
                finished(r, None, str(exc))
        return len(client.scheduler_info().get("workers", {}))
    finally:
        if own:
            client.close()
