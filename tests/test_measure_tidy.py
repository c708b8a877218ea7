"""labcalc reads what labcalc writes (issue 19, item 5): measure.tidy, its writers and readers.

Every file that ``labcalc convert``, ``labcalc measurements build`` and ``SimResult.write``
(``labcalc simulate -o``) write says what it is on its first line; ``measure.read``
recognises it, a manifest's ``[[measurement]]`` (or ``[[table]]``) reads it, and
``load_measurements`` reads the built table, all with the numbers the writer held. The
expected values are computed here with numpy from the frames written, never with the
manifest under test.
"""

from __future__ import annotations

import json
import math
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labcalc import compare, measure
from labcalc.cli import main
from labcalc.measure import MalformedLinesWarning, MeasurementFormatError
from labcalc.measure.manifest import ManifestError, build_manifest, write_measurements
from labcalc.measure.tidy import read_tidy, write_tidy
from labcalc.sim import SimResult

ROOT = Path(__file__).resolve().parents[1]
MEAS = ROOT / "data" / "measurements"
RAW = MEAS / "lab5" / "raw"
#: raw tool outputs committed under data/measurements: every file of recorded/, and of the lab's
#: recordings the runs that hold every form once (q7-10M: UDP, iperf3 and iperf 2 in all forms;
#: q10: TCP, -R, -P 2, ping, ss, tc; b2: iperf 2 under load, pings without summary, tc -j)
RAW_FILES = sorted(
    [p for p in (MEAS / "recorded").iterdir() if p.name != "README.txt"]
    + [RAW / n for n in ("q7_h3_server.txt", "q2_h1_tcp_client.txt", "b2_h2_ping.txt")]
    + [p for folder in sorted((MEAS / "lab5").glob("recorded-*")) for p in folder.iterdir()
       if p.is_file() and p.name.startswith(("q7-10M_", "q10", "b2_")) and p.suffix in (".txt", ".json", ".csv")]
)


def entry(metric, file, flow="f", **keys) -> str:
    extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    return (f'[[measurement]]\nquestion = "Q1"\nscenario = "S"\nflow = "{flow}"\nmetric = "{metric}"\n'
            f'file = "{file}"\n{extra}')


def build_one(folder: Path, text: str):
    (folder / "m.toml").write_text(text, encoding="utf-8")
    return build_manifest(folder / "m.toml")


# --- the header ----------------------------------------------------------------------------

def test_first_line_says_what_the_file_is_and_pandas_still_reads_it(tmp_path):
    df = pd.DataFrame({"time_s": [0.5, 1.0], "rtt_s": [0.04, 0.05], "note": ["a # b", "c, d"]})
    write_tidy(df, tmp_path / "x.csv", "samples", {"format": "ping", "side": "client"})
    text = (tmp_path / "x.csv").read_text()
    assert text.splitlines()[0] == "# labcalc samples v1"
    assert measure.sniff_format(text) == "labcalc"
    back = measure.read(tmp_path / "x.csv")
    assert back.attrs["format"] == "ping" and back.attrs["side"] == "client"
    assert back.attrs["labcalc"] == {"kind": "samples", "version": 1}
    pd.testing.assert_frame_equal(back, df)
    # pandas: comment="#" skips the header, and a cell holding '#' was quoted so it stays whole
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "x.csv", comment="#"), df)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "x.csv", skiprows=2), df)


def test_a_newer_layout_or_unknown_kind_or_broken_attrs_is_refused_by_line(tmp_path):
    for text, line, words in (("# labcalc samples v9\n# attrs: {}\nt\n1\n", 1, "newer labcalc"),
                              ("# labcalc spreadsheet v1\nt\n1\n", 1, "unknown kind 'spreadsheet'"),
                              ("# labcalc samples v1\n# attrs: {oops\nt\n1\n", 2, "not JSON"),
                              ("# labcalc measurements v1\n# attrs: {}\nquestion,value\nQ1,4;8\n", 4, "'4;8'")):
        (tmp_path / "x.csv").write_text(text)
        with pytest.raises(MeasurementFormatError) as info:
            measure.read(tmp_path / "x.csv")
        assert info.value.line == line and words in str(info.value), str(info.value)


def test_strings_that_look_missing_stay_text(tmp_path):
    df = pd.DataFrame({"flow": ["NA", "None", "nan"], "rate_bps": [1.0, np.nan, 3.0]})
    write_tidy(df, tmp_path / "x.csv", "samples")
    back = measure.read(tmp_path / "x.csv")
    assert back.flow.tolist() == ["NA", "None", "nan"] and np.isnan(back.rate_bps[1])


# --- a simulation's files: read(), manifests, load_measurements -------------------------------

def _sim(rng, n_flows=2, n=40, dt=0.5, mss=1448):
    t = np.arange(n) * dt
    flows = [f"f{i}" for i in range(n_flows)]
    gp = pd.concat([pd.DataFrame({"flow": f, "start_s": t, "end_s": t + dt, "time_s": t + dt,
                                  "bytes": rng.integers(0, 10**6, n)}) for f in flows], ignore_index=True)
    gp["rate_bps"] = 8 * gp["bytes"] / dt
    tc = np.sort(rng.uniform(0, n * dt, 30))
    cw = pd.DataFrame({"flow": flows[-1], "time_s": tc, "cwnd_bytes": mss * rng.integers(1, 80, 30),
                       "ssthresh_bytes": np.where(tc < tc[10], np.nan, mss * 20.0)})
    rtt = pd.DataFrame({"flow": flows[-1], "time_s": tc, "rtt_s": rng.uniform(0.001, 2.0, 30)})
    q = pd.DataFrame({"link": "r1-eth1", "time_s": t, "backlog_packets": rng.integers(0, 50, n),
                      "drops": np.cumsum(rng.integers(0, 3, n)), "backlog_bytes": 0, "marks": 0})
    sent = rng.integers(1, 10**5, n_flows)
    lost = (sent * rng.uniform(0, 0.9, n_flows)).astype(int)
    summary = pd.DataFrame({"transport": ["udp"] * (n_flows - 1) + ["tcp"],
                            "goodput_bps": rng.uniform(1e3, 1e7, n_flows), "window_start_s": 2.0,
                            "window_end_s": n * dt, "sent_packets": sent, "lost_packets": lost, "loss": lost / sent,
                            "rtt_mean_s": rng.uniform(0.01, 1, n_flows), "payload_bytes": 1000},
                           index=pd.Index(flows, name="flow"))
    attrs = {"ns3_version": "3.44", "seed": 1, "segment_bytes": mss, "duration_s": n * dt, "warmup_s": float("nan"),
             "flows": {f: {"payload_rate_bps": float(rng.uniform(1e5, 1e7))} for f in flows[:-1]}}
    return SimResult(gp, cw, rtt, q, summary, attrs)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), n_flows=st.integers(1, 3), lo=st.floats(0, 8), width=st.floats(3, 11))
def test_every_file_a_simulation_writes_reads_back_with_the_same_numbers(tmp_path_factory, seed, n_flows, lo, width):
    rng = np.random.default_rng(seed)
    res = _sim(rng, n_flows)
    out = tmp_path_factory.mktemp("sim")
    written = res.write(out)
    paths = [p for kind in written.values() for p in kind]
    assert sorted(p.name for p in paths) == sorted(p.name for p in out.iterdir())
    for p in paths:  # every file: recognised from its first line
        df = measure.read(p)
        assert df.attrs["labcalc"]["version"] == 1, p.name
    # the tables, column by column (the value columns exactly: written in their shortest exact form)
    back = measure.read(out / "goodput.csv")
    pd.testing.assert_frame_equal(back, res.goodput, check_dtype=False)
    back = measure.read(out / "summary.csv").set_index("flow")
    pd.testing.assert_frame_equal(back, res.summary, check_dtype=False)
    sim_json = measure.read(out / "simulation.json")
    # standard JSON, which jq and JavaScript read: an unset value (NaN) is null, never NaN
    def no_constant(name):
        raise AssertionError(f"simulation.json holds {name}, which is not JSON")
    doc = json.loads((out / "simulation.json").read_text(), parse_constant=no_constant)
    assert doc["warmup_s"] is None and doc["seed"] == 1
    assert sim_json["seed"].iloc[0] == 1 and sim_json["segment_bytes"].iloc[0] == 1448
    tcp = res.summary.index[-1]
    cw = measure.read(out / f"{tcp}-cwnd.data")
    assert cw.attrs["quantity"] == "cwnd" and cw.attrs["mss_bytes"] == 1448 and cw.attrs["flow"] == tcp
    changes = res.cwnd[res.cwnd.cwnd_bytes.diff().fillna(1) != 0]
    assert cw.cwnd_bytes.tolist() == changes.cwnd_bytes.tolist()
    rtt = measure.read(out / f"{tcp}-rtt.data")
    assert rtt.rtt_s.tolist() == res.rtt.rtt_s.tolist()
    # a manifest over them: the same numbers, computed here from the frames
    hi = lo + width
    f0 = res.summary.index[0]
    text = (entry("loss", "summary.csv", flow=f0) + entry("goodput", "summary.csv", flow=f0, stat="summary")
            + entry("goodput", f"{f0}-goodput.csv", flow=f0, window_s=[lo, hi]).replace('"S"', '"S2"')
            + entry("loss", f"{f0}-goodput.csv", flow=f0).replace('"S"', '"S2"')
            + entry("goodput", "goodput.csv", flow=tcp, window_s=[lo, hi]).replace('"S"', '"S3"')
            + entry("rtt", f"{tcp}-rtt.data", flow=tcp, window_s=[0, 20]).replace('"S"', '"S3"')
            + entry("cwnd", f"{tcp}-cwnd.data", flow=tcp, window_s=[0, 20]).replace('"S"', '"S3"')
            + entry("queue", "r1-eth1-queue.csv", flow="r1-eth1", window_s=[lo, hi]).replace('"S"', '"S4"'))
    t = build_one(out, text).set_index(["scenario", "metric"])
    s0 = res.summary.loc[f0]
    assert t.loc[("S", "loss"), "value"] == pytest.approx(s0.lost_packets / s0.sent_packets, rel=1e-12)
    assert t.loc[("S", "goodput"), "value"] == pytest.approx(s0.goodput_bps, rel=1e-12)
    assert t.loc[("S2", "loss"), "value"] == pytest.approx(s0.loss, rel=1e-12)

    def window_mean(frame, column):
        # the manifest's rule: an interval overhanging an edge by under 2 % of its usual length is inside
        slack = 0.02 * float((frame.end_s - frame.start_s).median())
        inside = frame[(frame.start_s >= lo - slack) & (frame.end_s <= hi + slack)]
        return float(inside[column].mean()), len(inside)

    want, n = window_mean(res.goodput[res.goodput.flow == f0], "rate_bps")
    assert t.loc[("S2", "goodput"), "value"] == pytest.approx(want, rel=1e-12) and t.loc[("S2", "goodput"), "n_samples"] == n
    want, n = window_mean(res.goodput[res.goodput.flow == tcp], "rate_bps")
    assert t.loc[("S3", "goodput"), "value"] == pytest.approx(want, rel=1e-12)
    # rtt and cwnd: times from the first sample; cwnd counted in segments of the MSS the file states
    assert t.loc[("S3", "rtt"), "value"] == pytest.approx(res.rtt.rtt_s.mean(), rel=1e-12)
    assert t.loc[("S3", "cwnd"), "value"] == pytest.approx(changes.cwnd_bytes.mean() / 1448, rel=1e-12)
    assert t.loc[("S3", "cwnd"), "unit"] == "segments" and "mss_bytes" in t.loc[("S3", "cwnd"), "defaults"]
    q = res.queue.assign(start_s=res.queue.time_s - res.queue.time_s.iloc[0])
    inside = q[(q.start_s >= lo - 1e-9) & (q.start_s <= hi + 1e-9)]
    assert t.loc[("S4", "queue"), "value"] == pytest.approx(inside.backlog_packets.mean(), rel=1e-12)
    # and the comparison table reads the built rows: the same numbers in base units
    m = compare.load_measurements(out / "m.toml").set_index(["scenario", "metric"])
    for key in t.index:
        assert m.loc[key, "value_base"] == pytest.approx(t.loc[key, "value"], rel=1e-11)  # 12 digits written


def test_a_combined_file_needs_the_flow_of_the_entry(tmp_path):
    res = _sim(np.random.default_rng(1), 3)
    res.write(tmp_path)
    with pytest.raises(ManifestError) as info:
        build_one(tmp_path, entry("loss", "summary.csv", flow="h9"))
    for word in ('"f0", "f1", "f2"', "none is named 'h9'", 'flow = "f0"', "summary.csv"):
        assert word in str(info.value), str(info.value)
    # a file of one flow is that flow's whatever the entry calls it
    assert build_one(tmp_path, entry("goodput", "f1-goodput.csv", flow="any name", window_s=[0, 20])).value[0] > 0


def test_the_settings_file_and_a_built_table_say_where_they_belong(tmp_path):
    res = _sim(np.random.default_rng(2))
    res.write(tmp_path)
    with pytest.raises(ManifestError, match=r"settings of an ns-3 run.*name summary.csv"):
        build_one(tmp_path, entry("goodput", "simulation.json"))
    built = build_one(tmp_path, entry("loss", "summary.csv", flow="f0"))
    write_measurements(built, tmp_path / "table.csv")
    with pytest.raises(ManifestError, match=r'list it as \[\[table\]\] file = "table.csv"'):
        build_one(tmp_path, entry("loss", "table.csv"))


def test_summary_rtt_is_refused_with_a_file_that_has_it(tmp_path):
    _sim(np.random.default_rng(3)).write(tmp_path)
    with pytest.raises(ManifestError, match=r"gives no rtt"):
        build_one(tmp_path, entry("rtt", "summary.csv", flow="f1"))
    # the suggested per-sample file gives it
    assert build_one(tmp_path, entry("rtt", "f1-rtt.data", flow="f1", window_s=[0, 30])).value[0] > 0


# --- labcalc measurements build ------------------------------------------------------------

def test_a_built_table_reads_back_everywhere_with_the_same_numbers(tmp_path):
    table = build_manifest(RAW)
    out = tmp_path / "measured.csv"
    assert main(["measurements", "build", str(RAW), "-o", str(out)]) == 0
    assert out.read_text().startswith("# labcalc measurements v1\n")
    by_read = measure.read(out)
    assert by_read.attrs["labcalc"]["kind"] == "measurements" and by_read.attrs["manifest"] == "manifest.toml"
    np.testing.assert_allclose(by_read["value"].to_numpy(float), table["value"].to_numpy(float), rtol=1e-11)
    assert by_read["source"].tolist() == table["source"].tolist()
    by_load = compare.load_measurements(out, quiet=True)
    assert by_load["row"].tolist()[0] == 4  # the file's own line numbers: two header lines, the column names
    (tmp_path / "t.toml").write_text('[[table]]\nfile = "measured.csv"\n')
    by_table = compare.load_measurements(tmp_path / "t.toml", quiet=True)
    direct = compare.load_measurements(RAW, quiet=True)
    for other in (by_load, by_table):
        np.testing.assert_allclose(other["value_base"], direct["value_base"], rtol=1e-11)
        assert other["unit"].tolist() == direct["unit"].tolist()


# --- labcalc convert: the same numbers as the tool's output, through read() and a manifest --------

def _quiet_read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        return measure.read(path)


def _value_or_error(folder, text):
    try:
        return build_one(folder, text).value[0]
    except ManifestError as exc:
        return "error"


@pytest.mark.parametrize("raw", RAW_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_converted_file_gives_the_numbers_of_its_tool_output(raw, tmp_path, capsys):
    shutil.copy(raw, tmp_path / raw.name)
    out = tmp_path / "converted.csv"
    assert main(["convert", str(tmp_path / raw.name), "-o", str(out)]) == 0
    capsys.readouterr()
    original, back = _quiet_read(tmp_path / raw.name), measure.read(out)
    assert back.attrs["format"] == original.attrs["format"] and back.attrs["from"] == raw.name
    assert back.columns.tolist() == original.columns.tolist()
    for column in original.columns:
        a, b = original[column], back[column]
        if a.dtype.kind in "fiu":
            np.testing.assert_allclose(b.to_numpy(float), a.to_numpy(float), rtol=1e-11, equal_nan=True,
                                       err_msg=column)
    # every metric a manifest can take from the tool's output comes out the same from the converted file
    for metric in ("goodput", "loss", "rtt", "cwnd", "queue"):
        from_raw = _value_or_error(tmp_path, entry(metric, raw.name))
        from_csv = _value_or_error(tmp_path, entry(metric, "converted.csv"))
        if from_raw == "error":
            assert from_csv == "error", (metric, from_csv)
        else:
            assert from_csv == pytest.approx(from_raw, rel=1e-9), metric


def test_converting_labcalc_s_own_files_keeps_their_numbers(tmp_path, capsys):
    res = _sim(np.random.default_rng(5), 2)
    res.write(tmp_path / "sim")
    for path in sorted((tmp_path / "sim").iterdir()):
        out = tmp_path / f"{path.name}.csv"
        assert main(["convert", str(path), "-o", str(out)]) == 0, path.name
        original, back = measure.read(path), measure.read(out)
        kind = original.attrs["labcalc"]["kind"]
        assert back.attrs["labcalc"]["kind"] == (kind if kind in ("summary", "measurements") else "samples")
        for column in original.columns:
            if original[column].dtype.kind in "fiu":
                np.testing.assert_allclose(back[column].to_numpy(float), original[column].to_numpy(float),
                                           rtol=1e-11, equal_nan=True, err_msg=f"{path.name} {column}")
    capsys.readouterr()
    # the converted summary still gives a flow's loss by default
    t = build_one(tmp_path, entry("loss", "summary.csv.csv", flow="f0"))
    s0 = res.summary.loc["f0"]
    assert t.value[0] == pytest.approx(s0.lost_packets / s0.sent_packets, rel=1e-11)


def test_an_old_convert_csv_without_the_header_is_still_read(tmp_path):
    # what 'labcalc convert' wrote before its files had a header: the columns only
    df = _quiet_read(RAW / "q7_h3_server.txt")
    df.to_csv(tmp_path / "old.csv", index=False)
    t = build_one(tmp_path, entry("goodput", "old.csv", window_s=[1, 8]))
    inside = df[(df.start_s >= 1) & (df.end_s <= 8) & (df.end_s - df.start_s > 0.5)]
    assert t.value[0] == pytest.approx(inside.rate_bps.mean(), rel=1e-12) and t.reader[0] == "convert CSV"


def test_an_old_trace_without_the_header_is_read_by_its_numbers(tmp_path):
    (tmp_path / "h1-cwnd.data").write_text("0 0 14480\n1.5 14480 28960\n")
    df = measure.read(tmp_path / "h1-cwnd.data")
    assert df.attrs["format"] == "ns3" and df.cwnd_bytes.tolist() == [14480, 28960]


def test_read_tidy_takes_text_and_streams():
    import io

    text = "# labcalc samples v1\n# attrs: {}\ntime_s,rtt_s\n0.5,0.04\n"
    assert float(read_tidy(text).rtt_s[0]) == 0.04
    assert float(read_tidy(io.StringIO(text)).rtt_s[0]) == 0.04
    assert math.isclose(float(measure.read(io.BytesIO(text.encode())).rtt_s[0]), 0.04)
