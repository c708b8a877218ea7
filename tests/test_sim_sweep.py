"""``sim.sweep`` and ``labcalc sweep`` (issue 22, item 3): a grid of runs in worker processes, cached on disk.

The grid here is a lab-size one (lab51's A2 and B2, two TCP variants, two seeds, 2 simulated
seconds); every run reuses the session's warm worker (``conftest.ns3``), and one test starts
a second worker to check that two give the same table as one.
"""

from __future__ import annotations

import pandas as pd
import pytest

from labcalc import cli, sim
from labcalc.data import scenario_path
from labcalc.sim import runner
from labcalc.sim.grid import expand_grid

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
