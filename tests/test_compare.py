"""Measurement files and prediction-vs-measurement tables."""

import io
import math
import subprocess
import sys

import pytest

from labcalc.compare import MeasurementError, compare, load_measurements, measured
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
