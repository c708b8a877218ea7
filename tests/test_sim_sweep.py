"""``sim.sweep`` and ``labcalc sweep`` (issue 22, item 3): a grid of runs in worker processes, cached on disk.

The grid here is a lab-size one (lab51's A2 and B2, two TCP variants, two seeds, 2 simulated
seconds); every run reuses the session's warm worker (``conftest.ns3``), and one test starts
a second worker to check that two give the same table as one.
"""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labcalc import cli, sim
from labcalc.data import scenario_path
from labcalc.sim import runner
from labcalc.sim.grid import expand_grid
from labcalc.sim.result import SimResult

LAB51 = scenario_path("lab51")
GRID = {"variant": ["A2", "B2"], "tcp": ["NewReno", "Cubic"]}


def test_expand_grid_is_every_combination_times_every_seed():
    runs = expand_grid({"tcp": ["NewReno", "Cubic"], "queue_packets": [10, 20, 30]},
                       seeds=[1, 2])
    assert len(runs) == 2 * 3 * 2 and len({tuple(r.items()) for r in runs}) == 12
    assert runs[0] == {"tcp": "NewReno", "queue_packets": 10, "seed": 1}
    assert runs[-1] == {"tcp": "Cubic", "queue_packets": 30, "seed": 2}
    with pytest.raises(ValueError, match=r"grid: unknown name 'bandwidth'.*variant, duration_s"):
        expand_grid({"bandwidth": [1]})
    with pytest.raises(ValueError, match=r"grid\['tcp'\] is empty"):
        expand_grid({"tcp": []})
    with pytest.raises(ValueError, match=r"grid\['tcp'\] must be a list of values; got 'Cubic'"):
        expand_grid({"tcp": "Cubic"})


def test_a_bad_value_stops_the_sweep_before_ns3_starts(monkeypatch, tmp_path):
    def refuse(*a, **k):
        raise AssertionError("a worker was asked for")
    monkeypatch.setattr(runner, "workers", refuse)
    with pytest.raises(ValueError, match=r"sweep run variant=A2 seed=4294967295: seed must be a whole number"):
        sim.sweep(LAB51, {"variant": ["A2", "B2"]}, seeds=[1, 4294967295], duration_s=2, cache_dir=tmp_path,
                  progress=False)
    with pytest.raises(ValueError, match=r"'tcp' is both in grid and a fixed option"):
        sim.sweep(LAB51, GRID, tcp="Cubic", cache_dir=tmp_path, progress=False)


@pytest.fixture(scope="module")
def swept(ns3, tmp_path_factory):
    cache = tmp_path_factory.mktemp("sweep-cache")
    table = sim.sweep(LAB51, GRID, seeds=[1, 2], duration_s=2, workers=1, cache_dir=cache, progress=False)
    return table, cache


def test_each_row_is_the_run_simulate_gives(swept):
    table, _ = swept
    assert table.attrs["runs"] == 8 and table.attrs["failed"] == 0 and not table.cached.any()
    # A2 has no TCP flow: its NewReno and Cubic runs are one plan, simulated once
    assert table.attrs["simulated"] == 6
    assert list(table.columns[:4]) == ["variant", "tcp", "seed", "flow"]
    for (variant, tcp, seed), rows in table.groupby(["variant", "tcp", "seed"]):
        direct = sim.simulate(LAB51, variant=variant, tcp=tcp, seed=seed, duration_s=2)
        got = rows.set_index("flow")
        assert list(got.index) == list(direct.summary.index)
        for col in ("goodput_bps", "loss", "sent_packets", "window_start_s"):
            assert (got[col] == direct.summary[col]).all(), (variant, tcp, seed, col)


def test_a_second_sweep_reads_the_cache_and_simulates_nothing(swept, monkeypatch):
    table, cache = swept

    def refuse(*a, **k):
        raise AssertionError("a worker was asked for: the cache was not used")
    monkeypatch.setattr(runner, "workers", refuse)
    again = sim.sweep(LAB51, GRID, seeds=[1, 2], duration_s=2, cache_dir=cache, progress=False)
    assert again.attrs["simulated"] == 0 and again.attrs["from_cache"] == 8 and again.cached.all()
    pd.testing.assert_frame_equal(again.drop(columns="cached"), table.drop(columns="cached"))
    # the whole result of one row's run is kept too
    res = sim.load_run(table.key.iloc[0], cache_dir=cache)
    assert res.summary.loc[table.flow.iloc[0], "goodput_bps"] == table.goodput_bps.iloc[0]
    # another duration is another key: not in the cache
    monkeypatch.undo()
    other = sim.sweep(LAB51, {"variant": ["A2"]}, duration_s=3, cache_dir=cache, progress=False, workers=1)
    assert other.attrs["simulated"] == 1 and other.attrs["from_cache"] == 0


def test_an_interrupted_sweep_resumes_and_two_workers_give_the_same_table(swept, tmp_path):
    table, _ = swept
    seen = []

    def stop_after_three(done, total, text):
        seen.append(done)
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sim.sweep(LAB51, GRID, seeds=[1, 2], duration_s=2, workers=1, cache_dir=tmp_path, progress=stop_after_three)
    assert seen[0] == 0 and seen[-1] == 3
    resumed = sim.sweep(LAB51, GRID, seeds=[1, 2], duration_s=2, workers=2, cache_dir=tmp_path, progress=False)
    assert resumed.attrs["simulated"] == 3 and resumed.attrs["workers"] == 2
    assert resumed.attrs["from_cache"] >= 3
    cols = ["variant", "tcp", "seed", "flow", "goodput_bps", "loss", "rtt_mean_s"]
    pd.testing.assert_frame_equal(resumed[cols], table[cols])


def test_a_run_ns3_aborts_is_a_row_with_its_error(ns3, monkeypatch, tmp_path):
    real = runner.Worker.run

    def abort_seed_2(self, plan, attrs=None, timeout_s=None):
        if plan.seed == 2:
            raise runner.SimulationAborted("ns-3 stopped this run: (test)")
        return real(self, plan, attrs, timeout_s)

    monkeypatch.setattr(runner.Worker, "run", abort_seed_2)
    with pytest.warns(RuntimeWarning, match=r"1 of 2 runs failed"):
        table = sim.sweep(LAB51, {"variant": ["A2"]}, seeds=[1, 2], duration_s=2, workers=1, cache_dir=tmp_path,
                          progress=False)
    bad = table[table.seed == 2]
    assert (bad.error == "ns-3 stopped this run: (test)").all() and bad.goodput_bps.isna().all()
    assert (table[table.seed == 1].error == "").all() and table.attrs["failed"] == 1
    monkeypatch.undo()
    again = sim.sweep(LAB51, {"variant": ["A2"]}, seeds=[1, 2], duration_s=2, workers=1, cache_dir=tmp_path,
                      progress=False)
    assert again.attrs["from_cache"] == 1 and again.attrs["simulated"] == 1   # the failed run was not cached


def test_a_dask_cluster_gives_the_same_table(swept):
    distributed = pytest.importorskip("distributed")
    table, _ = swept
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        on_dask = sim.sweep(LAB51, {"variant": ["B2"], "tcp": ["Cubic"]}, seeds=[2], duration_s=2, cache=False,
                            scheduler=cluster, progress=False)
    assert on_dask.attrs["workers"] == 1 and on_dask.attrs["simulated"] == 1
    mine = table[(table.variant == "B2") & (table.tcp == "Cubic") & (table.seed == 2)].reset_index(drop=True)
    cols = ["flow", "goodput_bps", "loss", "sent_packets"]
    pd.testing.assert_frame_equal(on_dask[cols], mine[cols])


def test_cli_sweep_writes_the_table(swept, tmp_path, capsys):
    table, cache = swept
    out = tmp_path / "grid.csv"
    code = cli.main(["sweep", str(LAB51), "--grid", "variant=A2,B2", "--grid", "tcp=NewReno,Cubic", "--seeds", "1-2",
                     "--duration", "2", "--cache-dir", str(cache), "-o", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "8 runs: 0 simulated on 0 worker(s), 8 from the cache" in text and str(out) in text
    got = pd.read_csv(out)
    assert list(got.goodput_bps) == list(table.goodput_bps) and list(got.flow) == list(table.flow)
    assert cli.main(["sweep", str(LAB51), "--grid", "bandwidth=1,2", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown name 'bandwidth'" in err
    assert cli.main(["sweep", str(LAB51), "--seeds", "one", "-o", str(out)]) == 2
    assert "--seeds: expected whole numbers" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Hostile grids and the cache, without ns-3: a stand-in worker returns a result whose goodput
# says which plan it ran (seed x 1000 + the flow's place), so that a row from the wrong run shows.

class _StandIn:
    """What ``runner.workers`` hands out, minus ns-3."""

    def run(self, plan, attrs=None, timeout_s=None):
        empty = pd.DataFrame()
        summary = pd.DataFrame({"goodput_bps": [plan.seed * 1000.0 + i for i in range(len(plan.flows))]},
                               index=pd.Index([f.name for f in plan.flows], name="flow"))
        return SimResult(empty, empty, empty, empty, summary, dict(attrs or {}, wall_s=0.0))

    def interrupt(self):
        return False


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(runner, "workers", lambda n=1: [_StandIn() for _ in range(n)])


def _sweep(cache, **kw):
    return sim.sweep(LAB51, GRID, seeds=[1, 2], duration_s=2, cache_dir=cache, progress=False, workers=1, **kw)


def _expected(table):
    runs = [c for c in table.columns[:table.columns.get_loc("flow")]]     # the grid's names and seed
    return table.seed * 1000.0 + table.groupby(runs).cumcount()


def test_hostile_grids_and_seeds_are_refused_by_name():
    cases = [
        (dict(seeds=None), r"seeds must be a whole number or a list of them; got None"),
        (dict(seeds=1.5), r"seeds must be a whole number or a list of them; got 1\.5"),
        (dict(seeds="12"), r"seeds must be a whole number or a list of them; got '12'"),
        (dict(seeds=[1, 2, 1]), r"seeds gives 1 twice"),
        (dict(seeds=[]), r"seeds is empty"),
        (dict(seeds=range(1, 10**12)), r"seeds has more than 10,000 values.*split it into several sweeps"),
        (dict(grid=[("tcp", ["Cubic"])]), r"grid must be a mapping of names to lists of values"),
        (dict(grid={"tcp": {"h2_tcp": "Cubic"}}), r"grid\['tcp'\] must be a list of values; got \{'h2_tcp': "
                                                  r"'Cubic'\} \(a per-flow or per-link value is one mapping: give a list"),
        (dict(grid={"queue_packets": [10, 10.0]}), r"grid\['queue_packets'\] gives 10\.0 twice"),
        (dict(grid={"queue_disc": [{"r1-eth1": "red"}, {"r1-eth1": "red"}]}), r"grid\['queue_disc'\] gives .* twice"),
        (dict(grid={"queue_packets": range(1, 200), "interval_s": range(1, 200)}),
         r"this grid has 39,601 runs \(199 x 199 x 1 seed\(s\)\); a sweep runs at most 10,000"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            expand_grid(**kwargs)
    # numpy's scalars are numbers: a seed of np.int64, a grid from np.arange
    assert expand_grid({"queue_packets": np.arange(10, 30, 10)}, seeds=np.int64(3)) == [
        {"queue_packets": 10, "seed": 3}, {"queue_packets": 20, "seed": 3}]


def test_every_grid_name_is_in_the_cache_key():
    """A change of any value a run depends on is another key; max_packets (a guard, not an input) is not."""
    scenario = str(scenario_path("seed003"))
    tcp_base = dict(variant="baseline_1g", duration_s=2.0)
    udp_base = dict(tcp_base, transport="udp", offered_bps=1e6)
    change = {"variant": "core_100m", "duration_s": 3.0, "tcp": "Cubic", "queue_packets": 50, "error_rate": 0.01,
              "transport": "udp", "offered_bps": 2e6, "payload_bytes": 1000, "queue_disc": "red", "start_s": 0.5,
              "stop_s": 1.5, "interval_s": 0.05, "warmup_s": 0.5, "udp_arrivals": "periodic",
              "delayed_ack_count": 2, "sack": False, "ts_rtt": False, "ecn": True, "socket_buffer_bytes": 2**20,
              "linux_rto": False, "max_packets": 1e7}
    assert sorted(change) == sorted(sim.grid.GRID_KEYS)

    def key(**kw):
        plan, _ = sim.prepare(scenario, **kw)
        return sim.grid.run_key(plan, scenario, kw["variant"])

    for name, value in change.items():
        base = udp_base if name in ("offered_bps", "payload_bytes", "udp_arrivals") else tcp_base
        assert (key(**dict(base, **{name: value})) == key(**base)) == (name == "max_packets"), name


def test_the_key_covers_the_sources_a_result_depends_on():
    import labcalc

    root = Path(labcalc.__file__).parent
    files = sim.grid._RESULT_FILES
    assert all((root / f).is_file() for f in files), files
    # the RED mapping, the plan's links and the summary's window (MSER) are read at run time
    assert {"sim/red.py", "sim/planning.py", "measure/analysis.py", "measure/_manifest_window.py"} <= set(files)


def test_a_damaged_or_foreign_cache_entry_is_run_again_never_read(stand_in, tmp_path):
    first = _sweep(tmp_path)
    assert first.attrs["simulated"] == 6 and (first.goodput_bps == _expected(first)).all()
    keys = list(dict.fromkeys(first.key))
    files = [tmp_path / k[:2] / f"{k}.pickle" for k in keys]
    assert all(f.is_file() for f in files)
    files[0].write_bytes(files[0].read_bytes()[:-1])            # truncated
    files[1].write_bytes(files[2].read_bytes())                 # another run's entry under this key
    files[3].write_bytes(pickle.dumps(["not", "an", "entry"]))  # a pickle of something else
    with pytest.warns(RuntimeWarning, match=r"3 cached run\(s\) could not be read and are simulated again"):
        again = _sweep(tmp_path)
    # keys[0] and keys[1] are A2's (its NewReno and Cubic runs are one plan): 5 of the 8 runs are run again
    assert again.attrs["simulated"] == 3 and again.attrs["from_cache"] == 8 - 5
    pd.testing.assert_frame_equal(again.drop(columns="cached"), first.drop(columns="cached"), check_exact=True)
    assert not list(tmp_path.rglob(".*"))        # no temporary file left
    with pytest.raises(ValueError, match=r"key must be a run's key, 64 hexadecimal digits"):
        sim.load_run("../../etc/passwd", cache_dir=tmp_path)


def test_a_cache_that_cannot_be_written_warns_and_keeps_the_rows(stand_in, tmp_path):
    keys = list(dict.fromkeys(_sweep(tmp_path / "a").key))
    for k in keys:                       # a file where each entry's folder would go
        (tmp_path / "b").mkdir(exist_ok=True)
        (tmp_path / "b" / k[:2]).write_text("")
    with pytest.warns(RuntimeWarning) as seen:
        table = _sweep(tmp_path / "b")
    assert (table.goodput_bps == _expected(table)).all() and table.attrs["simulated"] == 6
    assert any("6 run(s) could not be kept in the cache" in str(w.message) and "cache=False" in str(w.message)
               for w in seen)
    with pytest.raises(ValueError, match=r"cache_dir = '.*' is a file, not a folder: .* or cache=False"):
        _sweep(tmp_path / "b" / keys[0][:2])
    for bad, message in [(dict(cache="no"), r"cache must be True or False; got 'no'"),
                         (dict(cache_dir=""), r"cache_dir must be a folder's path; got ''"),
                         (dict(workers=0), r"workers must be a whole number >= 1 \(None: one per core\); got 0")]:
        with pytest.raises(ValueError, match=message):
            sim.sweep(LAB51, GRID, **{"cache_dir": tmp_path, **bad})


def test_two_sweeps_writing_one_cache_at_once(stand_in, tmp_path):
    import threading

    tables = {}

    def one(name):
        tables[name] = sim.sweep(LAB51, {"variant": ["A2", "B2", "A3", "B3"]}, seeds=range(1, 26), duration_s=2,
                                 cache_dir=tmp_path, progress=False, workers=2)

    threads = [threading.Thread(target=one, args=(n,)) for n in "ab"]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert set(tables) == {"a", "b"}
    again = sim.sweep(LAB51, {"variant": ["A2", "B2", "A3", "B3"]}, seeds=range(1, 26), duration_s=2,
                      cache_dir=tmp_path, progress=False)
    assert again.cached.all() and again.attrs["from_cache"] == 100
    assert (again.goodput_bps == _expected(again)).all()
    assert len(list(tmp_path.rglob("*.pickle"))) == 100 and not list(tmp_path.rglob(".*"))


def test_cli_grid_names_stay_text_and_seeds_are_bounded(stand_in, tmp_path, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text('[links.l]\ncapacity_mbps = 5\n[flows.f]\nroute = ["l"]\n'
                        '[variants.1]\nlinks.l = { capacity_mbps = 10 }\n')
    out = tmp_path / "t.csv"
    assert cli.main(["sweep", str(scenario), "--grid", "variant=1", "--grid", "tcp=Cubic", "--duration", "2",
                     "--cache-dir", str(tmp_path / "c"), "-o", str(out)]) == 0
    assert "1 runs: 1 simulated" in capsys.readouterr().out
    assert cli.main(["sweep", str(scenario), "--seeds", "1-10000000000", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--seeds: '1-10000000000' gives more than 10,000 seeds" in err
    assert cli._MAX_SEEDS == sim.grid.MAX_RUNS


def test_a_scheduler_address_dask_cannot_use_is_refused_by_name(stand_in, tmp_path):
    pytest.importorskip("distributed")
    for address in ["", "not an address"]:
        with pytest.raises(ValueError, match=rf"scheduler = '{address}': missing port number .*give the address of "
                                             r"a running Dask scheduler .*or leave scheduler out"):
            sim.sweep(LAB51, {"variant": ["A2"]}, duration_s=2, cache=False, scheduler=address, progress=False)


def test_a_run_past_timeout_s_is_a_row_with_its_error_and_the_sweep_goes_on(monkeypatch, tmp_path):
    given = []

    class Slow(_StandIn):
        def run(self, plan, attrs=None, timeout_s=None):
            given.append(timeout_s)
            if plan.seed == 2:
                raise runner.SimulationTimeout("this run took longer than timeout_s = 0.5 s; its worker was stopped")
            return super().run(plan, attrs, timeout_s)

    monkeypatch.setattr(runner, "workers", lambda n=1: [Slow() for _ in range(n)])
    with pytest.warns(RuntimeWarning, match=r"1 of 2 runs failed"):
        table = sim.sweep(LAB51, {"variant": ["A2"]}, seeds=[1, 2], duration_s=2, workers=1, cache_dir=tmp_path,
                          progress=False, timeout_s=0.5)
    assert given == [0.5, 0.5]
    assert table[table.seed == 2].error.str.contains("longer than timeout_s").all()
    assert table[table.seed == 2].goodput_bps.isna().all() and (table[table.seed == 1].error == "").all()
    with pytest.warns(RuntimeWarning, match=r"1 of 2 runs failed"):   # seed 2 was not cached: run again
        again = sim.sweep(LAB51, {"variant": ["A2"]}, seeds=[1, 2], duration_s=2, workers=1, cache_dir=tmp_path,
                          progress=False, timeout_s=math.inf)
    assert again.attrs["from_cache"] == 1 and given[2:] == [None]     # inf is no limit
    for bad in (0, -1, math.nan, "10", True):
        with pytest.raises(ValueError, match=r"timeout_s must be a number of seconds > 0"):
            sim.sweep(LAB51, {"variant": ["A2"]}, duration_s=2, progress=False, timeout_s=bad)
