"""Inputs under fire: answers, units, measurement tables and scenarios (issue 11; issue 10 items 4, 6).

Property tests (hypothesis, derandomised) that every entry point either returns a result
or raises its documented ValueError subclass naming the input, plus one targeted test per
finding of the issues, asserting that the message names the field and the value.
"""

from __future__ import annotations

import io
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labcalc.scenario import load_network
from labcalc.cli import main
from labcalc.compare import MeasurementError, load_measurements
from labcalc.data import measurement_path, scenario_path
from labcalc.grading.batch import csv_safe, grade, read_answers
from labcalc.grading.check import check
from labcalc.network import Network, ScenarioError
from labcalc.units import parse_quantity

FUZZ = settings(derandomize=True, deadline=None, max_examples=600,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
HEADER = "question,scenario,flow,metric,value,unit\n"

# Bits of text that the grammar meets in real answers, mixed with arbitrary characters.
_PIECES = st.sampled_from(["4.69", "1e-320", "1e308", "-0", "4,69", "4,690", "inf", "nan", " ", "/", "(",
                           ")", "Mbit/s", "mbps", "Ms", "ms", "%", "kB/s", "bits", "\u2212", "\uff1d",
                           "\u200b", "^", "*", "1/0", "e", "per"])
TEXTS = st.one_of(st.text(max_size=30), st.lists(_PIECES, max_size=6).map("".join))
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([5e-324, 1e-320, 1e-308, 1e308, 1.7976931348623157e308, 0.0, -0.0]))


# -- property tests ----------------------------------------------------------------------

@FUZZ
@given(text=TEXTS)
def test_parse_quantity_gives_a_finite_number_or_a_value_error(text):
    try:
        value, base = parse_quantity(text)
    except ValueError as exc:
        assert str(exc).startswith("quantity: ")
        return
    assert math.isfinite(value) and base in ("bit/s", "byte", "s", "packet", "1")


@FUZZ
@given(answer=st.one_of(TEXTS, NUMBERS), expected=NUMBERS,
       unit=st.sampled_from([None, "Mbit/s", "ms", "%", "bytes", "", "Ms"]),
       sigfigs=st.one_of(st.none(), st.integers(-2, 8), st.sampled_from([math.inf, math.nan, 2.5])),
       rtol=st.sampled_from([0.01, 0.0, -1.0, math.nan, math.inf]))
def test_check_returns_a_result_or_a_value_error(answer, expected, unit, sigfigs, rtol):
    try:
        result = check(answer, expected, unit=unit, sigfigs=sigfigs, rtol=rtol)
    except ValueError:
        return
    assert isinstance(bool(result.correct), bool) and 0.0 <= float(result.score) <= 1.0
    assert str(result)


def _sheet_lines():
    from labcalc.grading.simulate import simulate_class

    df = simulate_class(6, seed=3, lab="lab5")
    return df, ["student,question,answer"] + [f"{s},{q},{a}" for s, q, a in
                                              zip(df["student"], df["question"], df["answer"])]


SHEET, SHEET_LINES = _sheet_lines()


@settings(derandomize=True, deadline=None, max_examples=100)
@given(row=st.integers(1, len(SHEET_LINES) - 1), cell=TEXTS)
def test_one_bad_cell_never_stops_the_class(row, cell):
    lines = list(SHEET_LINES)
    student, question, _ = lines[row].split(",", 2)
    lines[row] = ",".join([student, question, '"' + cell.replace('"', '""') + '"'])
    result = grade(read_answers("\n".join(lines).encode()), "lab5")
    # every student still gets a row of grades
    assert set(result.grades["student"]) == set(SHEET["student"])
    assert result.grades["total"].between(0, result.grades["max_total"]).all()


def _mutations(lines):
    return st.one_of(
        st.tuples(st.just("drop"), st.integers(0, len(lines) - 1), st.just("")),
        st.tuples(st.just("replace"), st.integers(0, len(lines) - 1), TEXTS),
        st.tuples(st.just("cell"), st.integers(1, len(lines) - 1), TEXTS),
        st.tuples(st.just("cut"), st.integers(0, len(lines) - 1), st.just("")),
    )


def _mutate(lines, mutation):
    kind, i, text = mutation
    lines = list(lines)
    if kind == "drop":
        del lines[i]
    elif kind == "replace":
        lines[i] = text
    elif kind == "cut":
        lines[i] = lines[i][: len(lines[i]) // 2]
    else:
        cells = lines[i].split(",")
        cells[len(text) % len(cells)] = text
        lines[i] = ",".join(cells)
    return "\n".join(lines) + "\n"


PART2 = measurement_path("lab5", "part2.csv").read_text().splitlines()


@FUZZ
@given(mutation=_mutations(PART2))
def test_mutated_measurements_load_or_name_the_file(mutation):
    buf = io.StringIO(_mutate(PART2, mutation))
    buf.name = "part2.csv"
    try:
        df = load_measurements(buf, quiet=True)
    except MeasurementError as exc:
        assert "part2.csv" in str(exc)
        return
    assert df["value_base"].notna().all()


LAB53 = scenario_path("lab53").read_text().splitlines()


@settings(derandomize=True, deadline=None, max_examples=400,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutation=_mutations(LAB53))
def test_mutated_scenarios_load_or_name_the_file(mutation, tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(_mutate(LAB53, mutation))
    try:
        net = load_network(path)
    except ScenarioError as exc:
        assert str(path) in str(exc)
        return
    assert net.flow_names


@pytest.mark.parametrize("argv_tail, text", [
    (["--fairness", "maxmin"], "[links]\nL = {capacity_mbps = 10}\n[flows]\na = {route = ['L'], transport = []}\n"),
    (["--fairness", "maxmin", "--variant", "v"], "variants = 5\n[links]\nL = {capacity_mbps = 1}\n"),
    (["--fairness", "alpha=1e-9"], "[links]\nL = {capacity_mbps = 10}\n[flows]\na = ['L']\n"),
    (["--fairness", "fifo"], "[links]\nL = {capacity_bps = 9e307}\n[flows]\na = ['L']\n"),
    (["--fairness", "maxmin"], "x = " + "[" * 3000 + "]" * 3000 + "\n"),
])
def test_solve_on_broken_scenarios_exits_2_with_one_line(tmp_path, capsys, argv_tail, text):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert main(["solve", str(path), *argv_tail]) == 2
    err = capsys.readouterr().err
    assert err.startswith("labcalc: ") and err.count("\n") == 1 and "Traceback" not in err


def test_grade_with_a_poisoned_cell_exits_0_and_reports_it(tmp_path, capsys):
    answers = tmp_path / "a.csv"
    answers.write_text("student,question,answer\nada,Q4,4.69 Mbit/s\nbob,Q4,1e-320\ncy,Q4,\uff1dSUM(A1)\n")
    out = tmp_path / "g.csv"
    assert main(["grade", "lab5", str(answers), "-o", str(out)]) == 0
    capsys.readouterr()
    text = out.read_text()
    assert all(s in text for s in ("ada", "bob", "cy"))


# -- one test per finding -------------------------------------------------------------------

def test_subnormal_answer_is_graded_not_a_math_error():
    result = check("1e-320", 4.69e6, unit="Mbit/s")
    assert not result.correct and result.score == 0.0


@pytest.mark.parametrize("sigfigs", [math.inf, math.nan, 0, -1, 2.5])
def test_sigfigs_is_validated(sigfigs):
    with pytest.raises(ValueError, match=f"sigfigs must be a whole number >= 1; got {sigfigs!r}"):
        check("4.69 Mbit/s", 4.69e6, unit="Mbit/s", sigfigs=sigfigs)
    with pytest.raises(ValueError, match="sigfigs must be a whole number"):
        grade(read_answers(b"student,question,answer\nada,Q4,4.69 Mbit/s\n"), "lab5", sigfigs=sigfigs)


@pytest.mark.parametrize("name, value", [("rtol", math.nan), ("rtol", -0.1), ("atol", math.inf)])
def test_tolerances_are_validated(name, value):
    with pytest.raises(ValueError, match=f"{name} must be a finite number >= 0; got {value!r}"):
        check("4.69 Mbit/s", 4.69e6, unit="Mbit/s", **{name: value})


def test_a_failing_answer_costs_that_answer_only(monkeypatch):
    from labcalc.grading import batch

    original = batch.grade_parsed

    def fails_on_boom(parsed, texts, *args, **kwargs):
        if any(t == "boom" for t in texts):
            raise ZeroDivisionError("float division by zero")
        return original(parsed, texts, *args, **kwargs)

    monkeypatch.setattr(batch, "grade_parsed", fails_on_boom)
    result = grade(read_answers(b"student,question,answer\nada,Q4,4.69 Mbit/s\ncy,Q4,boom\n"), "lab5")
    totals = dict(zip(result.grades["student"], result.grades["total"]))
    assert totals["ada"] == pytest.approx(1.0) and totals["cy"] == 0.0
    (problem,) = result.problems
    assert problem.row == 3
    assert "'boom'" in problem.reason and "'cy'" in problem.reason and "Q4" in problem.reason
    assert "ZeroDivisionError" in problem.reason


@pytest.mark.parametrize("cell", ["\uff1dSUM(A1)", "\uff0b1", "\uff0d1", "\uff20x", "\u200b=1"])
def test_full_width_formula_signs_are_neutralised(cell):
    assert csv_safe(cell) == "'" + cell


@pytest.mark.parametrize("text, message", [
    ("1/0", "'/0' after the number is not a unit"),
    ("1 bit/(1-1)", "'bit/(1-1)' after the number is not a unit"),
    ("(1", "'(1' does not start with a number"),
    ("(4.69) mbps", "'(4.69) mbps' does not start with a number"),
    ("3 mbit/(s)", "'mbit/(s)' after the number is not a unit"),
    ("4.69 Ms", "'Ms' would be megaseconds; write 'ms'"),
    ("nan Mbps", "not a finite number"),
])
def test_one_grammar_refuses_what_it_cannot_read(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_quantity(text)


@pytest.mark.parametrize("unit, message", [
    ("mbit/(s)", "'mbit/(s)' after the number is not a unit"),
    ("/0", "'/0' after the number is not a unit"),
    ("(((bit/s", "'(((bit/s' after the number is not a unit"),
    ("Ms", "'Ms' would be megaseconds; write 'ms'"),
])
def test_measurement_unit_cells_use_the_grammar(unit, message):
    text = HEADER + f"Q1,A,h1,goodput,3,{unit}\n"
    with pytest.raises(MeasurementError) as info:
        load_measurements(io.StringIO(text))
    assert f"<stream>, row 2, column 'unit': cannot read unit {unit!r} (value 3)" in str(info.value)
    assert message in str(info.value)


def test_goodput_in_a_data_amount_is_refused_at_load():
    with pytest.raises(MeasurementError, match=r"row 2, column 'unit': unit 'kbits' \(value 300\) is a size"
                                               r".*metric 'goodput' is a rate.*did you mean kbit/s\?"):
        load_measurements(io.StringIO(HEADER + "Q1,A,h1,goodput,300,kbits\n"))


@pytest.mark.parametrize("text", [
    "question;scenario;flow;metric;value;unit\nQ1;A;h1;goodput;3;Mbit/s\n",
    "sep=;\nquestion;scenario;flow;metric;value;unit\nQ1;A;h1;goodput;3;Mbit/s\n",
    "question\tscenario\tflow\tmetric\tvalue\tunit\nQ1\tA\th1\tgoodput\t3\tMbit/s\n",
])
def test_semicolon_tab_and_sep_line_files_load(text):
    df = load_measurements(io.StringIO(text))
    assert df["value_base"].tolist() == [3e6]
    assert df["row"].tolist() == [3 if text.startswith("sep=") else 2]


@pytest.mark.parametrize("text", [
    "question;scenario;flow;metric;value;unit\nQ1;A;h1;goodput;4,8;Mbit/s\nQ1;A;h1;rtt;12,5;ms\n",
    "sep=;\nquestion;scenario;flow;metric;value;unit\nQ1;A;h1;goodput;4,8;Mbit/s\nQ1;A;h1;rtt;12,5;ms\n",
    "question\tscenario\tflow\tmetric\tvalue\tunit\nQ1\tA\th1\tgoodput\t4,8\tMbit/s\nQ1\tA\th1\trtt\t12,5\tms\n",
])
def test_a_european_export_reads_its_decimal_commas(text):
    """A semicolon-separated spreadsheet export writes every value with a decimal comma."""
    df = load_measurements(io.StringIO(text))
    assert df["value_base"].tolist() == pytest.approx([4.8e6, 0.0125], rel=1e-15)


def test_an_ambiguous_comma_in_a_semicolon_file_gets_the_grammar_message():
    with pytest.raises(MeasurementError, match=r"row 2, column 'value': '4,690' is ambiguous"):
        load_measurements(io.StringIO("question;scenario;flow;metric;value;unit\nQ1;A;h1;goodput;4,690;Mbit/s\n"))


def test_a_converted_file_loaded_as_a_table_points_to_the_manifest():
    with pytest.raises(MeasurementError, match=r"missing column 'question'.*per-sample table.*labcalc convert.*"
                                               r"\[\[measurement\]\]"):
        load_measurements(io.StringIO("time_s,seq,rtt_s,ttl\n,1,0.000236,64\n"))


def test_quoted_decimal_comma_says_write_a_point():
    with pytest.raises(MeasurementError, match=r"row 2: value '3,58' has a decimal comma \(column 'value'\); "
                                               r"write 3.58"):
        load_measurements(io.StringIO(HEADER + 'Q1,A,h1,goodput,"3,58",Mbit/s\n'))


@pytest.mark.parametrize("extra, variant, message", [
    ("", None, "[flows.a]: transport must be a text ('udp' or 'tcp'); got []"),
    ("", None, "[flows.a]: ip must be a text ('v4' or 'v6'); got {'a': 1}"),
    ("variants = 5\n", "v", "[variants]: variants must be a table; got 5"),
    ("variants = [1]\n", "v", "[variants]: variants must be a table; got [1]"),
    ("variants = {v = [1]}\n", "v", "[variants.v]: a variant must be a table; got [1]"),
    ("variants = {v = {flows_only = [{}]}}\n", "v", "[variants.v]: flows_only must be a list of flow names; got [{}]"),
    ("variants = {v = {flows = 'x'}}\n", "v", "[variants.v]: flows must be a table; got 'x'"),
    ("variants = {v = {links = 1.5}}\n", "v", "[variants.v]: links must be a table; got 1.5"),
])
def test_scenario_types_are_checked(tmp_path, extra, variant, message):
    flow = "{route = ['L'], payload_bytes = 1000, transport = []}" if "transport" in message else \
        "{route = ['L'], payload_bytes = 1000, ip = {a = 1}}" if "ip must" in message else "['L']"
    path = tmp_path / "s.toml"
    path.write_text(extra + f"[links]\nL = {{capacity_mbps = 10}}\n[flows]\na = {flow}\n")
    with pytest.raises(ScenarioError) as info:
        load_network(path, variant=variant)
    assert str(info.value) == f"{path}: {message}"


def test_deep_nesting_is_a_scenario_error(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(ScenarioError, match="nested too deeply"):
        load_network(path)


@pytest.mark.parametrize("links, flows, message", [
    ({"L": 9e307}, {"a": ["L"]}, "link 'L': capacity_bps must be at most 1e\\+15 bit/s .*got 9e\\+307"),
    ({"L": 1e7}, {"a": {"route": ["L"], "demand_bps": 2e15}}, "demand_bps must be at most 1e\\+15 .*got 2000000000000000.0"),
])
def test_rates_beyond_any_link_are_refused(links, flows, message):
    from labcalc.network import Flow

    with pytest.raises(ScenarioError, match=message):
        Network(links, {k: Flow(**v) if isinstance(v, dict) else v for k, v in flows.items()})


def test_tiny_alpha_is_refused_with_its_range():
    from labcalc import fairness

    net = Network({"L": 1e7}, {"a": ["L"], "b": ["L"]})
    with pytest.raises(ValueError, match=r"alpha must be at least 0.01 .*got 1e-09"):
        fairness.alpha_fair(net, 1e-9)
    rates = fairness.alpha_fair(net, 0.01).rates
    assert rates.to_numpy() == pytest.approx([5e6, 5e6], rel=1e-6)


@pytest.mark.parametrize("answer", ["4.69", "1e308", "1e305 kbit/s", "0"])
@pytest.mark.parametrize("expected", [1e308, 1.7976931348623157e308, -1e308])
def test_a_key_whose_slips_overflow_is_graded_without_a_float_warning(answer, expected):
    # found by a longer run of the property test above: the slips of a key near the
    # largest float (x1000, x1024^3...) overflow to inf, and their bands became NaN with a
    # RuntimeWarning (an error under pytest, noise in a notebook); now they match nothing
    result = check(answer, expected)
    assert 0.0 <= float(result.score) <= 1.0
    assert result.correct == (answer in ("1e308", "1e305 kbit/s") and expected == 1e308)
