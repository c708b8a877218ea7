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
    assert t.loc["rtt", "verdict"] == "off"
    assert t.loc["rtt", "measured"] == pytest.approx(370)
    assert t.attrs["rtol"] == 0.05
    # a loss is close when it is within rtol of the prediction, as any value: 3.58 % measured
    # against 6.2 % predicted is 42 % off (it was "close" at 5 absolute points)
    assert t.loc["loss", "verdict"] == "off"
    assert t.loc["loss", "rel_error"] == pytest.approx((0.0358 - 0.062) / 0.062)
    t = compare([("4.03 vs 0.20", 0.0403, 0.0020, "1"), ("4.03 vs 4.2", 0.0403, 0.042, "1"),
                 ("4.03 vs 4.3", 0.0403, 0.043, "1"), ("0 vs 0.05 %", 0.0, 0.0005, "1"),
                 ("0 vs 0.2 %", 0.0, 0.002, "1")], rtol=0.05)
    # 4.2/4.03 - 1 = 4.2 %, 4.3/4.03 - 1 = 6.7 %; a predicted 0 meets a count's resolution (0.1 point)
    assert t.verdict.tolist() == ["off", "close", "off", "close", "off"]


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
        # an unquoted decimal comma: one field too many (pandas would shift every column)
        ("question,scenario,flow,metric,value,unit\nQ14,A2,h1,goodput,0,964,Mbit/s\n",
         r"row 2: 7 fields where the header has 6"),
        # ... or, with a note column, the decimals land in the unit column
        ("question,scenario,flow,metric,value,unit,note\nQ14,A2,h1,loss,3,58,%,\n",
         r"row 2, column 'unit': '58' is a number, not a unit .* write 3.58"),
        ("question,scenario,flow,metric,value,unit\nQ,s,f,goodput,0_964,Mbit/s\n", "value '0_964' is not a number"),
        # a blank line counts: the bad row is on line 4 of the file
        ("question,scenario,flow,metric,value,unit\nQ,s,f,m,1,ms\n\nQ,s,g,m,x,ms\n", "row 4: value 'x'"),
        ("question,scenario,flow,metric,value,unit,Unit\nQ,s,f,m,1,ms,ms\n", "column 'unit' appears twice"),
        ("question,scenario,flow,metric,value,unit,note\nQ,s,f,goodput,1\n", "row 2: 5 fields where the header has 7"),
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
    # a file without rows still names itself
    assert missing_note(m.iloc[:0], "Q43") == "no measurement for Q43 in my_part5.csv"
    empty = tmp_path / "empty.csv"
    empty.write_text("question,scenario,flow,metric,value,unit,note\n")
    e = load_measurements(empty)
    assert len(e) == 0 and e.attrs["files"] == ["empty.csv"]
    assert missing_note(e, "Q7", metric="goodput") == "no measurement for Q7 (metric 'goodput') in empty.csv"


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
            "Q,s,f,loss,100,%\nQ,s,g,loss,0.5,\nQ,s,f,loss_event_1,25,s\nQ,s,f,share,150,%\n")
    m = load_measurements(io.StringIO(text))
    assert m.value_base.tolist() == pytest.approx([1.0, 0.5, 25.0, 1.5])
    assert set(m.file) == {"<stream>"}


def test_check_cell_wording():
    from labcalc.grading import check_cell as check_answer

    assert check_answer(1.22, 1.2247, unit="1", quiet=True).message == (
        "Correct: '1.22' is within 1 % of the expected value.")
    bare = check_answer(0.531, 0.531, unit="%", quiet=True)
    # a bare 0.531 is the fraction 0.531, as the batch grader reads it (issue 12 item 9)
    assert bare.correct
    text = check_answer("0.531 %", 0.531, unit="%", quiet=True)
    assert text.diagnosis == "percent_fraction" and "give the fraction" not in text.message
    # the other direction keeps the grader's hint, which fits it
    assert "give the fraction between 0 and 1" in check_answer("53.1", 0.531, unit="%", quiet=True).message
    other = check_answer("1066 bytes", 1042, unit="bytes", rtol=0, atol=0.5, quiet=True,
                         alternatives={"wire_vs_shaper": 1066}, accounting="tc")
    assert other.diagnosis == "wire_vs_shaper" and "binary" not in other.message



# --------------------------------------------------------------------------------------
# the loader's rules: layout, spaces, case, blank units, repeated rows, kinds
# --------------------------------------------------------------------------------------

HEADER = "question,scenario,flow,metric,value,unit\n"


def test_spaces_capitals_and_no_note_column_are_accepted():
    text = ("Question , scenario, flow ,METRIC, value, unit\n"
            "Q14, A2 , h1_udp , Goodput, 0.964 , Mbit/s \n"
            "Q14,A2,h1_udp,Loss,3.58,%\n"
            "Q18,B3,h2_tcp,cwnd,1,Segments\n")
    m = load_measurements(io.StringIO(text))
    assert list(m.columns[:7]) == ["question", "scenario", "flow", "metric", "value", "unit", "note"]
    assert m.note.tolist() == ["", "", ""]
    assert m.scenario.tolist() == ["A2", "A2", "B3"] and m.flow.tolist()[0] == "h1_udp"
    assert m.metric.tolist() == ["goodput", "loss", "cwnd"]
    assert m.base_unit.tolist() == ["bit/s", "1", "packet"]
    assert m.row.tolist() == [2, 3, 4]
    # lookups: spaces and the metric's case do not matter
    assert measured(m, "Q14", scenario=" A2", flow="h1_udp ", metric="Goodput") == pytest.approx(964e3)
    assert measured(m, "Q14", scenario="A2", flow="h1_udp", metric="loss", kind="1") == pytest.approx(0.0358)


@pytest.mark.parametrize("unit, base", [("KBit/s", 1e3), ("MBIT/S", 1e6), ("Ms", None), ("MS", None)])
def test_units_in_capitals_where_unambiguous(unit, base):
    text = HEADER + f"Q,s,f,x,1,{unit}\n"
    if base is None:                   # megaseconds, not milliseconds: refused
        with pytest.raises(MeasurementError, match=f"row 2, column 'unit': cannot read unit '{unit}' "
                                                   f".*would be megaseconds; write 'ms'"):
            load_measurements(io.StringIO(text))
    else:
        assert load_measurements(io.StringIO(text)).value_base.iloc[0] == pytest.approx(base)


def test_columns_in_any_order_and_a_byte_order_mark(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_bytes("\ufeffunit,value,metric,flow,scenario,question\r\nkbit/s,480,goodput,CD,x,Q25\r\n".encode())
    m = load_measurements(path)
    assert measured(m, "Q25", scenario="x", flow="CD", metric="goodput") == 480e3
    assert m.note.tolist() == [""]


@pytest.mark.parametrize("metric", ["rtt", "goodput", "offered_rate", "cwnd", "max_queue", "C", "cwnd_first_loss"])
def test_blank_unit_refused_unless_the_metric_is_a_plain_number(metric, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(HEADER + "Q,s,f,loss,0,%\n" + f"Q18,B2,h2_tcp,{metric},60,\n")
    with pytest.raises(MeasurementError, match=rf"mine.csv, row 3, column 'unit': blank unit for metric "
                                               rf"'{metric.lower()}' \(value 60\); give its unit"):
        load_measurements(path)


@pytest.mark.parametrize("metric", ["loss", "core_loss", "share", "jain_index", "beta"])
def test_blank_unit_accepted_for_plain_numbers(metric):
    m = load_measurements(io.StringIO(HEADER + f"Q,s,f,{metric},0.25,\n"))
    assert m.base_unit.tolist() == ["1"] and m.value_base.tolist() == [0.25]


def test_metric_kind():
    from labcalc.compare import metric_kind

    assert metric_kind("rtt") == metric_kind("RTT_max") == metric_kind("core_delay") == ("s",)
    assert metric_kind("goodput") == metric_kind("link_rate") == ("bit/s",)
    assert metric_kind("cwnd_after") == metric_kind("max_queue") == ("byte", "packet")
    assert metric_kind("loss") == metric_kind("netem_loss") == metric_kind("share") == ("1",)
    assert metric_kind("loss_event_1") is None and metric_kind("C") is None
    assert metric_kind("cwnd_first_loss") is None        # two kinds: not decided by the name


def test_repeated_rows_with_the_same_value_are_kept_once(tmp_path, capsys):
    path = tmp_path / "mine.csv"
    path.write_text(HEADER + "Q7,5M,h1,goodput,4798,kbit/s\nQ7,5M,h1,goodput,4.798,Mbit/s\nQ7,5M,h1,loss,4,%\n")
    m = load_measurements(path)
    out = capsys.readouterr().out
    assert out == ("note: mine.csv rows 2 and 3 repeat Q7 (scenario '5M', flow 'h1', metric 'goodput') "
                   "with the same value; using it once\n")
    assert len(m) == 2 and m.row.tolist() == [2, 4]
    assert measured(m, "Q7", scenario="5M", flow="h1", metric="goodput") == 4.798e6
    load_measurements(path, quiet=True)
    assert capsys.readouterr().out == ""


def test_repeated_rows_with_different_values_are_refused(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(HEADER + "Q7,5M,h1,goodput,4798,kbit/s\nQ7,5M,h1,loss,4,%\nQ7, 5M,h1,Goodput,4700,kbit/s\n")
    with pytest.raises(MeasurementError, match=r"mine.csv, rows 2 and 4: the same measurement Q7 \(scenario '5M', "
                                               r"flow 'h1', metric 'goodput'\) with different values "
                                               r"\(4798 kbit/s; 4700 kbit/s\)"):
        load_measurements(path)


def test_every_row_repeated_gives_the_same_table(tmp_path, capsys):
    lines = measurement_path("lab5", "part1.csv").read_text().splitlines()
    path = tmp_path / "part1_dup.csv"
    path.write_text("\n".join([lines[0]] + [line for line in lines[1:] for _ in (0, 1)]) + "\n")
    m = load_measurements(path)
    assert "note: ... and 14 more measurements repeated with the same value; each is used once" in capsys.readouterr().out
    full = load_measurements(measurement_path("lab5", "part1.csv"))
    assert m.value_base.tolist() == full.value_base.tolist()


def test_several_matches_name_the_files_and_rows():
    m = load_measurements(measurement_path("lab5"))
    with pytest.raises(KeyError, match=r"3 measurements match question='Q43', scenario=None, flow=None, "
                                       r"metric='rtt' \(part5.csv rows 5, 6 and 7\); expected exactly one; "
                                       r"name the scenario and the flow"):
        measured(m, "Q43", metric="rtt")
    with pytest.raises(KeyError, match=r"0 measurements match .* in part2.csv; expected exactly one"):
        measured(load_measurements(measurement_path("lab5", "part2.csv")), "Q99")


def test_kind_of_a_model_input_is_checked():
    # a metric whose name says its kind is checked when loading (issue 10 item 6) ...
    with pytest.raises(MeasurementError, match=r"row 2, column 'unit': unit 'kbit/s' \(value 60\) is a rate"
                                               r".* but metric 'rtt' is a time"):
        load_measurements(io.StringIO(HEADER + "Q18,B2,h2_tcp,rtt,60,kbit/s\n"))
    # ... one whose name does not say ('lat') when a model takes it
    m = load_measurements(io.StringIO(HEADER + "Q18,B2,h2_tcp,lat,60,kbit/s\nQ18,B2,h2_udp,loss,22,%\n"))
    with pytest.raises(MeasurementError, match=r"<stream> row 2, column 'unit': Q18 metric 'lat' is in 'kbit/s', "
                                               r"a rate .*; it must be a time \(s, ms\)"):
        measured(m, "Q18", scenario="B2", flow="h2_tcp", metric="lat", kind="s")
    assert measured(m, "Q18", scenario="B2", flow="h2_udp", metric="loss", kind=("1",)) == pytest.approx(0.22)
    # a missing row still gives the default: the kind is checked on values only
    assert math.isnan(measured(m, "Q18", scenario="B3", flow="h2_tcp", metric="lat", kind="s", default=math.nan))
    with pytest.raises(ValueError, match=r"the measurement \(<stream> row 2\) is in 'bit/s', the prediction in 's'"):
        compare_measured(m, [("rtt", 0.06, "s", dict(question="Q18", scenario="B2", flow="h2_tcp", metric="lat"))])


def test_select_checks_every_row():
    from labcalc.compare import select

    # 'offered' does not say its kind, so the loader keeps both rows and select checks them
    m = load_measurements(io.StringIO(HEADER + "Q6,a,h1,offered,4.5,Mbit/s\nQ7,b,h1,Offered,5,ms\n"))
    assert len(select(m, metric="offered")) == 2
    with pytest.raises(MeasurementError, match="row 3, column 'unit'"):
        select(m, metric="offered", kind="bit/s")


def test_measurement_rows_show_the_file():
    from labcalc.compare import measurement_rows

    m = load_measurements(measurement_path("lab5", "part3.csv"))
    shown = measurement_rows(m, "Q27")
    assert shown.index.tolist() == [10, 11] and shown.index.name == "row"
    assert shown.columns.tolist() == ["question", "scenario", "flow", "metric", "value", "unit", "note"]
    no_note = load_measurements(io.StringIO(HEADER + "Q27,TCP,AB,goodput,946,kbit/s\n"))
    assert measurement_rows(no_note, base=True).columns.tolist()[-3:] == ["note", "value_base", "base_unit"]
    both = load_measurements([measurement_path("lab5", "part3.csv"), measurement_path("lab5", "part4.csv")])
    assert measurement_rows(both).columns[-1] == "file"


def test_compare_band():
    from labcalc.compare import compare_band, format_band

    m = load_measurements(io.StringIO(HEADER + "Q47,R,h1,rtt,50,ms\nQ52,R,h1,rtt,45,ms\nQ53,R,h1,rtt,0.06,s\n"))
    rows = [(q, 0.048, 0.056, "s", dict(question=q, scenario="R", flow="h1", metric="rtt"))
            for q in ("Q47", "Q52", "Q53", "Q54")]
    t = compare_band(m, rows)
    assert t.verdict.tolist() == ["inside", "outside", "outside", "no data"]
    assert t.outside.tolist()[:3] == pytest.approx([0.0, -3.0, 4.0])
    text = format_band(t).splitlines()
    assert text[2].split() == ["Q47", "48.0", "-", "56.0", "50.0", "ms", "inside"]
    assert text[3].split() == ["Q52", "48.0", "-", "56.0", "45.0", "ms", "-3.0", "outside"]
    assert text[5].split()[4] == "missing" and text[-1].startswith("note: no measurement for Q54")
    with pytest.raises(ValueError, match="low end"):
        compare_band(m, [("x", 2, 1, "s", dict(question="Q47"))])


def test_rows_are_file_lines_and_short_optional_columns_are_padded():
    text = ("question,scenario,flow,metric,value,unit,note,,\n"
            "Q7,5M,h1,goodput,4798,kbit/s,\"two\nlines\",,\n\n"
            "Q7,5M,h2,goodput,4.7,Mbit/s\n")
    m = load_measurements(io.StringIO(text))
    assert m["row"].tolist() == [2, 5]
    assert m["note"].tolist() == ["two\nlines", ""]
    assert m["value_base"].tolist() == [4_798_000.0, 4_700_000.0]


def test_question_ids_in_lower_case_are_found():
    m = load_measurements(io.StringIO("question,scenario,flow,metric,value,unit\nq14,A2,h1_udp,goodput,0.964,Mbit/s\n"))
    assert m["question"].tolist() == ["Q14"]
    assert measured(m, "Q14", scenario="A2", flow="h1_udp", metric="goodput") == 964_000.0
    assert measured(m, "q14", scenario="A2", flow="h1_udp", metric="goodput") == 964_000.0


# --- the one text-input policy (labcalc._textio) on measurement CSVs -----------------------

_TIDY = "question,scenario,flow,metric,value,unit,note\nQ7,5M,h1,goodput,4798,kbit/s,{note}\n"


def test_measurement_csv_byte_order_mark_is_removed(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + _TIDY.format(note="x").encode())
    m = load_measurements(path)
    assert list(m.columns[:2]) == ["question", "scenario"]
    assert m.value_base.iloc[0] == pytest.approx(4.798e6, rel=1e-12)
    assert m.attrs["notes"] == []


def test_measurement_csv_not_utf8_is_decoded_as_cp1252_and_said(tmp_path, capsys):
    path = tmp_path / "excel.csv"
    path.write_bytes(("question,scenario,flow,metric,value,unit,note\n"
                      "Q7,5M,h1,goodput,4798,kbit/s,ok\nQ7,5M,h1,rtt,60,ms,r\u00e9seau\n").encode("cp1252"))
    m = load_measurements(path)
    assert m.note.tolist() == ["ok", "r\u00e9seau"]
    out = capsys.readouterr().out
    assert "line 3 is not valid UTF-8" in out and "cp1252" in out
    assert len(m.attrs["notes"]) == 1 and "excel.csv" in m.attrs["notes"][0]
    load_measurements(path, quiet=True)
    assert capsys.readouterr().out == ""


def test_measurement_csv_with_nul_byte_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "nul.csv"
    path.write_bytes(_TIDY.format(note="a").encode() + b"Q7,5M,h1,rtt,6\x000,ms,\n")
    with pytest.raises(MeasurementError, match=r"nul\.csv, row 3: contains a NUL byte"):
        load_measurements(path)


def test_measurement_csv_larger_than_the_limit_is_refused(tmp_path, monkeypatch):
    import labcalc.compare.files as compare_module

    path = tmp_path / "big.csv"
    path.write_text(_TIDY.format(note="n" * 200))
    monkeypatch.setattr(compare_module, "MAX_FILE_BYTES", 100)
    with pytest.raises(MeasurementError, match=r"big\.csv: the file is larger than the limit of 100 bytes"):
        load_measurements(path)
    monkeypatch.setattr(compare_module, "MAX_FILE_BYTES", 10_000)
    assert len(load_measurements(path)) == 1


def test_measurement_csv_gzip_and_streams_follow_the_same_policy(tmp_path):
    import gzip

    path = tmp_path / "m.csv"
    path.write_bytes(gzip.compress(_TIDY.format(note="z").encode()))
    assert load_measurements(path).value_base.iloc[0] == pytest.approx(4.798e6, rel=1e-12)
    with pytest.raises(MeasurementError, match=r"<stream>, row 2: contains a NUL byte"):
        load_measurements(io.BytesIO(_TIDY.format(note="\0").encode()))
