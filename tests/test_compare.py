"""Measurement files and prediction-vs-measurement tables."""

import io
import math
import subprocess
import sys

import pytest

from labcalc.compare import (MeasurementError, compare, compare_measured, format_comparison, if_measured,
                             load_measurements, measured, missing_inputs, missing_note)
from labcalc.data import measurement_path
from labcalc.labs import lab5


def test_bundled_lab5_measurements_cover_the_handout():
    m = load_measurements(measurement_path("lab5"))
    # every [measured] question of the reference file is present
    expected = {"Q1", "Q2", "Q6", "Q7", "Q10", "Q14", "Q18", "Q25", "Q26", "Q27", "Q32",
                "Q36", "Q37", "Q42", "Q43", "Q46", "Q47", "Q52"}
    assert set(m.question) == expected
    assert measured(m, "Q7", scenario="10 Mbit/s offered", metric="loss") == pytest.approx(0.5203)
    assert measured(m, "Q43", flow="1to3", metric="rtt") == pytest.approx(0.370)
    assert measured(m, "Q2", metric="goodput") == pytest.approx(9.3e6)


def test_units_are_converted_to_base_units():
    text = ("question,scenario,flow,metric,value,unit\n"
            "Q,s,f,goodput,586,kB/s\nQ,s,f,rtt,300,ms\nQ,s,f,loss,6.2,%\nQ,s,f,cwnd,1,segments\n")
    m = load_measurements(io.StringIO(text))
    assert m.value_base.tolist() == pytest.approx([4.688e6, 0.3, 0.062, 1.0])
    assert m.base_unit.tolist() == ["bit/s", "s", "1", "packet"]


def test_measured_requires_exactly_one_row():
    m = load_measurements(measurement_path("lab5", "part2.csv"))
    with pytest.raises(KeyError, match="expected exactly one"):
        measured(m, "Q14", metric="goodput")


def test_compare_verdicts_and_threshold():
    t = compare([("goodput", 100.0, 104.0, "bit/s"), ("loss", 0.062, 0.0358, "1"),
                 ("rtt", 0.3, 0.37, "s")], rtol=0.05)
    assert t.loc["goodput", "verdict"] == "close"
    assert t.loc["goodput", "rel_error"] == pytest.approx(0.04)
    assert t.loc["loss", "verdict"] == "close"          # 2.6 points < 5 points
    assert math.isnan(t.loc["loss", "rel_error"])
    assert t.loc["rtt", "verdict"] == "off"
    assert t.loc["rtt", "measured"] == pytest.approx(370)
    assert t.attrs["rtol"] == 0.05


def test_compare_lab5_udp_goodput_with_both_accountings():
    m = load_measurements(measurement_path("lab5"))
    g = measured(m, "Q7", scenario="5 Mbit/s offered", metric="goodput")
    wire = lab5.answers().query("question == 'Q4'").value.iloc[0]
    tc = lab5.answers(accounting="tc").query("question == 'Q4'").value.iloc[0]
    t = compare([("wire", wire, g, "bit/s"), ("tc", tc, g, "bit/s")], rtol=0.001)
    assert t.verdict.tolist() == ["off", "close"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("question,scenario,flow,metric,value\nQ,s,f,m,1\n", "missing column 'unit'"),
        ("question,scenario,flow,metric,value,unit\nQ,s,f,m,abc,ms\n", "row 2: value 'abc' is not a number"),
        ("question,scenario,flow,metric,value,unit\nQ,s,f,m,1,ms\nQ,s,f,m,nan,ms\n", "row 3: value 'nan' is not finite"),
        ("question,scenario,flow,metric,value,unit\nQ,s,f,m,1,furlongs\n", "unknown unit 'furlongs'"),
    ],
)
def test_bad_measurement_files(text, message):
    with pytest.raises(MeasurementError, match=message):
        load_measurements(io.StringIO(text))


def test_missing_file_and_bad_rtol(tmp_path):
    with pytest.raises(MeasurementError, match="not found"):
        load_measurements(tmp_path / "none.csv")
    with pytest.raises(MeasurementError, match="no \\*.csv"):
        load_measurements(tmp_path)
    with pytest.raises(ValueError, match="rtol must be positive; got 0"):
        compare([], rtol=0)
    with pytest.raises(ValueError, match="unit of 'x'"):
        compare([("x", 1, 1, "Mbit/s")])


def test_import_labcalc_is_light():
    # import labcalc must not pull numpy, pandas, scipy, cvxpy, sympy or matplotlib
    code = ("import sys, labcalc; heavy = [m for m in ('numpy', 'pandas', 'scipy', 'cvxpy', "
            "'sympy', 'matplotlib') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------
# a student's file without some rows
# --------------------------------------------------------------------------------------

LAB5_CSVS = sorted(p.name for p in measurement_path("lab5").glob("*.csv"))


def _lab5_rows():
    for csv in LAB5_CSVS:
        lines = measurement_path("lab5", csv).read_text().splitlines()
        for line in lines[1:]:
            yield pytest.param(csv, line, id=f"{csv}:{','.join(line.split(',')[:4])}")


@pytest.mark.parametrize("csv, line", list(_lab5_rows()))
def test_each_row_missing_gives_the_default_and_a_note(csv, line, capsys):
    """Drop one row of a bundled file: the lookups the notebooks make give NaN, not an error."""
    text = measurement_path("lab5", csv).read_text()
    m = load_measurements(io.StringIO(text.replace(line + "\n", "")))
    question, scenario, flow, metric = line.split(",")[:4]
    sel = dict(scenario=scenario, flow=flow, metric=metric)
    with pytest.raises(KeyError, match="0 measurements match"):
        measured(m, question, **sel)
    assert math.isnan(measured(m, question, **sel, default=math.nan))
    assert capsys.readouterr().out == ""            # no note unless asked
    assert measured(m, question, **sel, default=7.0, note=True) == 7.0
    out = capsys.readouterr().out
    assert out.startswith(f"note: no measurement for {question} (scenario {scenario!r}, flow {flow!r}, "
                          f"metric {metric!r}) in <stream>")
    assert out.rstrip().endswith("; using 7")
    full = load_measurements(measurement_path("lab5", csv))
    unit = full[(full.question == question) & (full.scenario == scenario) & (full.flow == flow)
                & (full.metric == metric)].base_unit.iloc[0]
    t = compare_measured(m, [("row", 1.0, unit, dict(question=question, **sel))])
    assert t.loc["row", "verdict"] == "no data" and math.isnan(t.loc["row", "measured"])
    assert math.isnan(t.loc["row", "error"]) and math.isnan(t.loc["row", "rel_error"])
    assert t.attrs["notes"] == [missing_note(m, question, **sel)]
    shown = format_comparison(t)
    assert shown.splitlines()[2].split()[2] == "missing"
    assert shown.splitlines()[-1] == f"note: {missing_note(m, question, **sel)}"


def test_default_does_not_hide_ambiguous_rows():
    m = load_measurements(measurement_path("lab5", "part2.csv"))
    with pytest.raises(KeyError, match="12 measurements match"):
        measured(m, "Q14", default=math.nan)


def test_missing_note_names_the_file(tmp_path):
    mine = tmp_path / "my_part5.csv"
    mine.write_text("question,scenario,flow,metric,value,unit\nQ42,two bottlenecks,1to2,goodput,2920,kbit/s\n")
    m = load_measurements(mine)
    assert missing_note(m, "Q43", flow="1to3", metric="rtt") == (
        "no measurement for Q43 (flow '1to3', metric 'rtt') in my_part5.csv")
    assert missing_note(m.iloc[:0], "Q43") == "no measurement for Q43 in the measurements"


def test_missing_inputs_names_runs_without_their_input(capsys):
    text = measurement_path("lab5", "part1.csv").read_text()
    m = load_measurements(io.StringIO(text.replace("Q6,4.5 Mbit/s offered,h1_udp,offered_rate,4.5,Mbit/s,UDP client rate (input)\n", "")))
    notes = missing_inputs(m, "offered_rate", flow="h1_udp")
    assert notes == ["no measurement for Q6 (scenario '4.5 Mbit/s offered', flow 'h1_udp', metric 'offered_rate') "
                     "in <stream>: its predictions are not computed"]
    assert capsys.readouterr().out == f"note: {notes[0]}\n"
    assert missing_inputs(load_measurements(measurement_path("lab5", "part1.csv")), "offered_rate",
                          flow="h1_udp") == []
    assert "note: extra" in format_comparison(compare([("x", 1.0, 1.0, "s")]), notes=["extra"])


def test_compare_marks_missing_values_no_data():
    nan = math.nan
    t = compare([("no_measurement", 0.05, nan, "1"), ("no_prediction", nan, 0.3, "s"), ("both", 1.0, 1.0, "s")])
    assert t.verdict.tolist() == ["no data", "no data", "close"]
    assert t.error.isna().tolist() == [True, True, False]
    lines = format_comparison(t).splitlines()
    assert lines[2].split()[1:4] == ["5.0", "missing", "%"]
    assert lines[3].split()[1:4] == ["-", "300.0", "ms"]
    assert lines[2].endswith("no data") and lines[3].endswith("no data")


def test_if_measured_turns_a_missing_input_into_a_missing_result():
    from labcalc import fairness, tcp

    assert if_measured(tcp.mathis_rate_bps, 2896, 0.06, 0.22) == tcp.mathis_rate_bps(2896, 0.06, 0.22)
    assert math.isnan(if_measured(tcp.mathis_rate_bps, 2896, 0.06, loss=math.nan))
    assert math.isnan(if_measured(fairness.jain_index, [1.0, math.nan]))
    assert if_measured(lambda text, x: f"{text}{x}", "a", 1) == "a1"   # text is not a number


def test_losses_print_with_two_decimals_when_asked():
    t = compare([("loss", 0.0619, 0.0403, "1"), ("goodput", 4_690_431.5, 4_798_000.0, "bit/s")], rtol=0.05)
    lines = format_comparison(t, percent_digits=2).splitlines()
    assert lines[2].split()[1:5] == ["6.19", "4.03", "%", "-2.16"]
    assert lines[3].split()[1:3] == ["4690.4", "4798.0"]


@pytest.mark.parametrize(
    "row, message",
    [
        ("Q,s,f,loss,100.5,%", "'100.5 %' is not a loss; metric 'loss' must lie between 0 and 100 %"),
        ("Q,s,f,loss,-1,%", "'-1 %' is not a loss; metric 'loss' must lie between 0 and 100 %"),
        ("Q,s,f,loss,1.5,", r"'1.5' is not a loss; metric 'loss' must lie between 0 and 1 \(or give it in %\)"),
        ("Q,s,f,netem_loss,120,%", "'120 %' is not a loss; metric 'netem_loss' must lie between 0 and 100 %"),
    ],
)
def test_a_loss_above_100_percent_is_refused(row, message, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(f"question,scenario,flow,metric,value,unit\nQ,s,f,goodput,1,Mbit/s\n{row}\n")
    with pytest.raises(MeasurementError, match=f"mine.csv, row 3, column 'value': {message}"):
        load_measurements(path)


def test_loss_like_metrics_that_are_not_rates_are_accepted():
    text = ("question,scenario,flow,metric,value,unit\n"
            "Q,s,f,loss,100,%\nQ,s,f,loss,0.5,\nQ,s,f,loss_event_1,25,s\nQ,s,f,share,150,%\n")
    m = load_measurements(io.StringIO(text))
    assert m.value_base.tolist() == pytest.approx([1.0, 0.5, 25.0, 1.5])
    assert set(m.file) == {"<stream>"}


def test_check_answer_wording():
    from labcalc.compare import check_answer

    assert check_answer(1.22, 1.2247, unit="1", quiet=True).message == (
        "Correct: '1.22' is within 1 % of the expected value.")
    bare = check_answer(0.531, 0.531, unit="%", quiet=True)
    # a bare 0.531 is read as 0.531 %: telling the student to "give the fraction" would be wrong
    assert bare.diagnosis == "percent_fraction" and "give the fraction" not in bare.message
    text = check_answer("0.531 %", 0.531, unit="%", quiet=True)
    assert text.diagnosis == "percent_fraction" and "give the fraction" not in text.message
    # the other direction keeps the grader's hint, which fits it
    assert "give the fraction between 0 and 1" in check_answer("53.1", 0.531, unit="%", quiet=True).message
    other = check_answer(1066, 1042, unit="bytes", rtol=0, atol=0.5, quiet=True,
                         alternatives={"wire_vs_shaper": 1066}, accounting="tc")
    assert other.diagnosis == "wire_vs_shaper" and "binary" not in other.message
