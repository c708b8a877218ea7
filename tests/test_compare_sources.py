"""What a comparison says about its measured values, and what load_measurements says about a wrong file.

Issue 19: a raw printout given as the measurements says what it is and what to do (item 6),
a window in bytes beside a prediction in packets is no crash (item 7), the comparison
tables show the window, the number of samples, the file and the "warm-up not detected"
flag of each measured value built from a raw file (item 9), and a simulated table adds an
ns-3 column. Each message's next step is followed here and checked to succeed.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labcalc import compare
from labcalc.compare import MeasurementError
from labcalc.measure.manifest import build_manifest

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data" / "measurements" / "lab5" / "raw"
REC = ROOT / "data" / "measurements" / "lab5" / "recorded-2026-11-27"


def _entry(q, scenario, flow, metric, file, **keys):
    extra = "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in keys.items())
    return (f'[[measurement]]\nquestion = "{q}"\nscenario = "{scenario}"\nflow = "{flow}"\nmetric = "{metric}"\n'
            f'file = "{file}"\n{extra}')


# --- item 6: a raw printout or a folder without a manifest ------------------------------------

def test_a_raw_printout_says_what_it_is_and_the_manifest_it_needs(tmp_path):
    shutil.copy(RAW / "q7_h3_server.txt", tmp_path / "q7_h3_server.txt")
    with pytest.raises(MeasurementError) as info:
        compare.load_measurements(tmp_path / "q7_h3_server.txt")
    msg = str(info.value)
    for words in ("q7_h3_server.txt: an iperf3 printout (a tool's raw output)", "not a measurement table",
                  "manifest's [[measurement]]", 'file = "q7_h3_server.txt"'):
        assert words in msg, msg
    assert "decimal comma" not in msg
    # the next step: a manifest naming it, given as the measurements
    (tmp_path / "manifest.toml").write_text(_entry("Q7", "10M", "h1_udp", "goodput", "q7_h3_server.txt"))
    m = compare.load_measurements(tmp_path / "manifest.toml")
    assert m.metric.tolist() == ["goodput"] and m.value_base[0] > 4e6


@pytest.mark.parametrize("name, words", [("b2_h2_ping-D.txt", "a ping printout"), ("b2_h2_ss.txt", "an ss -ti log"),
                                         ("b2_r1_tc.txt", "a tc -s qdisc log"),
                                         ("q10_h1_tcp_iperf2-yC_server.csv", "an iperf 2 printout"),
                                         ("q7-10M_h1_udp_iperf3_client.json", "an iperf3 printout")])
def test_every_tool_is_named(name, words):
    with pytest.raises(MeasurementError, match=f"{name}: {words} \\(a tool's raw output\\)"):
        compare.load_measurements(REC / name)


def test_a_per_sample_file_of_labcalc_says_so(tmp_path):
    from labcalc.cli import main

    assert main(["convert", str(RAW / "q7_h3_server.txt"), "-o", str(tmp_path / "q7.csv")]) == 0
    with pytest.raises(MeasurementError, match=r"q7.csv: labcalc's per-sample table \(written by labcalc\)"):
        compare.load_measurements(tmp_path / "q7.csv")


def test_a_folder_without_a_manifest_says_a_manifest_is_what_it_looks_for(tmp_path):
    for name in ("q7_h3_server.txt", "q1_h3_server.txt"):
        shutil.copy(RAW / name, tmp_path / name)
    with pytest.raises(MeasurementError) as info:
        compare.load_measurements(tmp_path)
    msg = str(info.value)
    for words in ("no manifest (*.toml)", "it holds 2 raw files such as q1_h3_server.txt (an iperf3 printout)",
                  "write a manifest.toml"):
        assert words in msg, msg
    # a folder whose CSVs are raw outputs (iperf -y C): the same advice, naming the file
    shutil.copy(REC / "q7-10M_h1_udp_iperf2-yC_server.csv", tmp_path / "server.csv")
    with pytest.raises(MeasurementError, match=r"no manifest \(\*\.toml\) in this folder, so its \*\.csv files are "
                                               r"read as measurement tables, and server.csv is an iperf 2 printout"):
        compare.load_measurements(tmp_path)
    (tmp_path / "manifest.toml").write_text(_entry("Q7", "10M", "h1_udp", "goodput", "server.csv"))
    assert len(compare.load_measurements(tmp_path)) == 1


def test_a_hand_written_table_with_a_bad_row_keeps_its_own_message(tmp_path):
    (tmp_path / "mine.csv").write_text("question,scenario,flow,metric,value,unit\nQ7,5M,h1,goodput,4,8,Mbit/s\n")
    with pytest.raises(MeasurementError, match=r"decimal comma"):
        compare.load_measurements(tmp_path / "mine.csv")


# --- item 7: a window in bytes beside a prediction in packets ---------------------------------

def test_a_window_in_bytes_beside_packets_is_a_note_naming_mss_bytes(tmp_path):
    # iperf3's text without -V states no MSS: its Cwnd column stays in bytes
    shutil.copy(REC / "q10_h1_tcp_iperf3_client.txt", tmp_path / "client.txt")
    (tmp_path / "m.toml").write_text(_entry("Q18", "B3", "h2_tcp", "cwnd", "client.txt"))
    m = compare.load_measurements(tmp_path / "m.toml")
    assert m.base_unit[0] == "byte"
    sel = dict(question="Q18", scenario="B3", flow="h2_tcp", metric="cwnd")
    t = compare.compare_measured(m, [("B3 window", 1.69, "packet", sel)], rtol=0.1)
    assert t.verdict.tolist() == ["no data"]
    text = compare.format_comparison(t)
    assert "is in bytes, the prediction in packets" in text and "mss_bytes = 1448" in text, text
    # the next step: mss_bytes in the entry counts the window in segments, and the row compares
    (tmp_path / "m.toml").write_text(_entry("Q18", "B3", "h2_tcp", "cwnd", "client.txt", mss_bytes=1448))
    m = compare.load_measurements(tmp_path / "m.toml")
    t = compare.compare_measured(m, [("B3 window", 40.0, "packet", sel)], rtol=0.5)
    assert t.verdict.tolist() != ["no data"] and t.measured.iloc[0] == pytest.approx(m.value_base.iloc[0])


def test_a_loss_beside_a_rate_still_raises():
    import io

    m = compare.load_measurements(io.StringIO("question,scenario,flow,metric,value,unit\nQ7,S,f,goodput,1,Mbit/s\n"))
    with pytest.raises(ValueError, match=r"is in 'bit/s', the prediction in '1'"):
        compare.compare_measured(m, [("x", 0.1, "1", dict(question="Q7", metric="goodput"))])


# --- item 9: where each measured value comes from ---------------------------------------------

def test_a_comparison_shows_window_samples_file_and_the_warmup_flag():
    m = compare.load_measurements(REC, quiet=True)
    rows = [("A2 h1_udp goodput", 1e6, "bit/s", dict(question="Q14", scenario="A2", flow="h1_udp", metric="goodput")),
            ("A2 h2_udp loss", 0.04, "1", dict(question="Q14", scenario="A2", flow="h2_udp", metric="loss")),
            ("B2 h2_tcp rtt", 0.08, "s", dict(question="Q18", scenario="B2", flow="h2_tcp", metric="rtt"))]
    t = compare.compare_measured(m, rows)
    built = build_manifest(REC).set_index(["scenario", "flow", "metric"])
    for label, (_, _, _, sel) in zip(t.index, rows):
        b = built.loc[(sel["scenario"], sel["flow"], sel["metric"])]
        assert t.loc[label, "source"] == b.source and t.loc[label, "n_samples"] == str(b.n_samples)
    text = compare.format_comparison(t).splitlines()
    start = text.index("measured from:")
    block = "\n".join(text[start:])
    # read independently from the manifest's build: the file, the window, the samples, the flag
    a2 = built.loc[("A2", "h1_udp", "goodput")]
    assert "warm-up not detected" in a2.window_from
    line = next(x for x in text[start:] if x.startswith("A2 h1_udp goodput"))
    assert line.split()[3:] == [a2.source, f"{a2.window_s}", "s", str(a2.n_samples), "warm-up", "not", "detected"]
    lines = {x[:17].strip(): x[17:].split() for x in text[start + 2:]}
    for label, key in (("A2 h2_udp loss", ("A2", "h2_udp", "loss")), ("B2 h2_tcp rtt", ("B2", "h2_tcp", "rtt"))):
        b = built.loc[key]
        window = [b.window_s, "s"] if b.window_s else ["end-of-test", "line"]
        assert lines[label] == [b.source, *window, str(b.n_samples)], block
    assert lines["B2 h2_tcp rtt"][:3] == ["b2_h2_ping-D.txt", "5-20", "s"], block


def test_hand_written_rows_add_no_sources_block():
    m = compare.load_measurements(ROOT / "data" / "measurements" / "lab5" / "part2.csv")
    t = compare.compare_measured(m, [("A2", 1e6, "bit/s", dict(question="Q14", scenario="A2", flow="h1_udp",
                                                               metric="goodput"))])
    assert "measured from" not in compare.format_comparison(t)
    assert t.source.tolist() == [""]


def test_a_simulated_table_adds_the_ns3_column():
    m = compare.load_measurements(ROOT / "data" / "measurements" / "lab5" / "part2.csv")
    sim = compare.load_measurements(ROOT / "data" / "measurements" / "lab5" / "simulated" / "ns3-red.csv")
    sel = dict(question="Q14", scenario="A2", flow="h1_udp")
    t = compare.compare_measured(m, [("A2 goodput", 959_692.9, "bit/s", sel | {"metric": "goodput"}),
                                     ("A2 loss", 0.04, "1", sel | {"metric": "loss"}),
                                     ("A1 loss", 0.0, "1", sel | {"scenario": "A1", "metric": "loss"})], simulated=sim)
    # ns3-red.csv's own rows, read with the csv module: goodput in kbit/s, loss in %; no A1 row
    with open(ROOT / "data" / "measurements" / "lab5" / "simulated" / "ns3-red.csv", newline="") as f:
        rows = {(r["question"], r["scenario"], r["flow"], r["metric"]): r for r in csv.DictReader(f)}
    gp, loss = rows[("Q14", "A2", "h1_udp", "goodput")], rows[("Q14", "A2", "h1_udp", "loss")]
    assert (gp["unit"], loss["unit"]) == ("kbit/s", "%") and ("Q14", "A1", "h1_udp", "loss") not in rows
    assert t.simulated.tolist()[:2] == [float(gp["value"]), float(loss["value"])] and np.isnan(t.simulated.iloc[2])
    text = compare.format_comparison(t, percent_digits=2)
    head = text.splitlines()[1].split()
    assert head[:4] == ["label", "predicted", "ns-3", "measured"]
    assert "A2 goodput" in text and gp["value"] in text and loss["value"] in text
    assert "note: ns-3: no simulated value for Q14 (scenario 'A1', flow 'h1_udp', metric 'loss')\n" in text + "\n"
    # the verdict stays theory against measurement
    assert t.verdict.tolist()[:2] == compare.compare_measured(m, [
        ("A2 goodput", 959_692.9, "bit/s", sel | {"metric": "goodput"}),
        ("A2 loss", 0.04, "1", sel | {"metric": "loss"})]).verdict.tolist()


def test_provenance_columns_are_text_for_every_kind_of_table():
    import io

    m = compare.load_measurements(io.StringIO("question,scenario,flow,metric,value,unit\nQ7,S,f,goodput,1,Mbit/s\n"))
    t = compare.compare_measured(m, [("x", 1e6, "bit/s", dict(question="Q7", metric="goodput"))])
    assert t[["source", "window_s", "n_samples", "window_from"]].iloc[0].tolist() == ["", "", "", ""]
    assert isinstance(t, pd.DataFrame)
