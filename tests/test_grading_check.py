"""check(): units, tolerance edges, significant digits, and each slip diagnosed."""

import math

import pytest

from labcalc import grading
from labcalc.grading import CheckResult, check, check_answer

Q4 = 5e6 * 1000 / 1066  # maximum UDP goodput of the handout [bit/s]


# -- the unit-parsing table of the issue, graded ------------------------------------

@pytest.mark.parametrize("answer, expected, unit", [
    ("4.69 Mbit/s", Q4, "Mbit/s"),
    ("4690 kbps", Q4, "Mbit/s"),
    ("4.69Mbps", Q4, "Mbit/s"),
    ("4690kb/s", Q4, "Mbit/s"),
    ("586 kB/s", Q4, "Mbit/s"),
    ("6.2 %", 0.0619137, "%"),
    ("0.062", 0.0619137, "%"),
    ("1066 bytes", 1066, "bytes"),
    ("300 ms", 0.3, "ms"),
    ("0.3 s", 0.3, "ms"),
])
def test_issue_table_is_accepted(answer, expected, unit):
    r = check(answer, expected, unit=unit)
    assert r.correct and r.score == 1.0 and r.diagnosis is None, r.message
    assert r.message.startswith("Correct")


def test_result_fields_are_in_base_units():
    r = check("4690 kbps", Q4, unit="Mbit/s")
    assert isinstance(r, CheckResult)
    assert r.expected == pytest.approx(Q4) and r.given == 4_690_000.0
    assert r.unit == "bit/s"
    assert r.relative_error == pytest.approx((4.69e6 - Q4) / Q4)
    assert str(r) == r.message


def test_numbers_are_read_as_the_same_text():
    # issue 12 item 9: a number is read as the text of that number (see test_grading_agreement.py)
    assert check(4.69, Q4, unit="Mbit/s").diagnosis == "missing_unit"
    assert check(4.69, Q4, unit="Mbit/s", require_unit=False).correct
    assert check(4_690_000, Q4).correct
    assert check(0.0619, 0.0619, unit="%").correct
    assert check(6.2, 0.0619, unit="%").diagnosis == "percent_fraction"
    assert check(300, 0.3, unit="ms", require_unit=False).correct


def test_expected_may_be_text():
    assert check("4690 kbps", "4.69 Mbit/s").correct
    with pytest.raises(ValueError, match="expected"):
        check("1", "lots of Mbps")


# -- an answer without a unit is not silently assumed -------------------------------

@pytest.mark.parametrize("answer, unit", [("4.69", "Mbit/s"), ("1066", "bytes"), ("300", "ms")])
def test_missing_unit_is_refused_and_said(answer, unit):
    r = check(answer, {"Mbit/s": Q4, "bytes": 1066, "ms": 0.3}[unit], unit=unit)
    assert not r.correct and r.score == 0 and r.diagnosis == "missing_unit"
    assert "has no unit" in r.message and "not assumed" in r.message
    assert r.given is None


def test_missing_unit_credit_only_when_the_number_is_right():
    assert check("4.69", Q4, unit="Mbit/s", credit={"missing_unit": 0.5}).score == 0.5
    assert check("3", Q4, unit="Mbit/s", credit={"missing_unit": 0.5}).score == 0.0
    assert check("4.69", Q4, unit="Mbit/s", require_unit=False).correct


@pytest.mark.parametrize("answer, code, words", [
    ("300 ms", "wrong_unit", "is a time, but the question asks for a rate"),
    ("1066 bytes", "wrong_unit", "is an amount of data, but the question asks for a rate"),
    ("4.69 Mbit", "wrong_unit", "'4.69 Mbit' is an amount of data, but the question asks for a rate"),
    ("4.69 Mbit/s %", "unreadable", "mixes a percentage with another unit"),
    ("300 Ms", "unreadable", "'Ms' would be megaseconds"),
    ("abc", "unreadable", "Cannot read 'abc'"),
    ("4,690 kbps", "unreadable", "ambiguous"),
    ("=HYPERLINK(\"http://x\")", "unreadable", "Cannot read '=HYPERLINK"),
    ("4.69 Mbits/s/s", "unreadable", "'Mbits/s/s' is not a unit of rate, size, time or share"),
    ("4.69 Mbitz", "unreadable", "unknown unit 'Mbitz'"),
    ("5 Mbps/s", "unreadable", "Cannot read"),
    ("", "empty", "No answer"),
    ("   ", "empty", "No answer"),
    (None, "empty", "No answer"),
    (float("nan"), "unreadable", "not a finite number"),
    (True, "unreadable", "not a number"),
])
def test_unusable_answers(answer, code, words):
    r = check(answer, Q4, unit="Mbit/s")
    assert (r.correct, r.score, r.diagnosis) == (False, 0.0, code)
    assert words in r.message


# -- tolerance edges ------------------------------------------------------------------

def test_relative_tolerance_edges():
    assert check("101 bit/s", 100.0, unit="bit/s", rtol=0.01).correct          # exactly on the edge
    assert check("100.999 bit/s", 100.0, unit="bit/s", rtol=0.01).correct      # just inside
    assert not check("101.001 bit/s", 100.0, unit="bit/s", rtol=0.01).correct  # just outside
    assert check("99 bit/s", 100.0, unit="bit/s", rtol=0.01).correct
    assert not check("98.999 bit/s", 100.0, unit="bit/s", rtol=0.01).correct


def test_edges_survive_unit_conversion():
    # 4.69e6 * 1.01 = 4,736,900 bit/s
    assert check("4.7369 Mbit/s", 4.69e6, unit="Mbit/s").correct
    assert not check("4.7370 Mbit/s", 4.69e6, unit="Mbit/s").correct
    assert check("4736.9 kbps", 4.69e6, unit="Mbit/s").correct


def test_absolute_tolerance_edges():
    assert check("1066.5 bytes", 1066, unit="bytes", rtol=0, atol=0.5).correct
    assert not check("1066.6 bytes", 1066, unit="bytes", rtol=0, atol=0.5).correct
    # a zero expected value needs atol: 0.1 percentage point
    assert check("0.1 %", 0.0, unit="%", atol=0.001).correct
    assert not check("0.11 %", 0.0, unit="%", atol=0.001).correct


def test_significant_digits():
    # 3 digits of 4.690 Mbit/s: within half a unit of the third digit (0.005 Mbit/s)
    assert check("4.695 Mbit/s", Q4, unit="Mbit/s", sigfigs=3).correct
    assert not check("4.696 Mbit/s", Q4, unit="Mbit/s", sigfigs=3).correct
    assert check("4.7 Mbit/s", Q4, unit="Mbit/s", sigfigs=2).correct
    assert not check("4.7 Mbit/s", Q4, unit="Mbit/s", sigfigs=3).correct
    assert "3 significant digits" in check("4.69 Mbit/s", Q4, unit="Mbit/s", sigfigs=3).message


@pytest.mark.parametrize("kwargs, message", [
    ({"rtol": -0.1}, "rtol"), ({"atol": float("nan")}, "atol"), ({"sigfigs": 0}, "sigfigs"),
    ({"alternatives": {"typo": 1.0}}, "alternatives"), ({"efficiency": 1.5}, "efficiency"),
    ({"credit": {"bytes_bits": 2}}, "between 0 and 1"),
    ({"rtol": True}, "rtol must be a finite number >= 0; got True"),
    ({"atol": False}, "atol must be a finite number >= 0; got False"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        check("1 Mbit/s", 1e6, unit="Mbit/s", **kwargs)


# -- each classic slip --------------------------------------------------------------

SLIP_CASES = [
    # (answer, expected, unit, extra arguments, diagnosis)
    ("586 kbit/s", Q4, "Mbit/s", {}, "bytes_bits"),             # bytes written as bits
    ("37.5 Mbit/s", Q4, "Mbit/s", {}, "bytes_bits"),
    ("8528 bytes", 1066, "bytes", {}, "bytes_bits"),
    ("4690 Mbit/s", Q4, "Mbit/s", {}, "kilo_mega"),
    ("4.69 kbit/s", Q4, "Mbit/s", {}, "kilo_mega"),
    ("300 s", 0.3, "ms", {}, "kilo_mega"),
    ("4.58 Mbit/s", Q4, "Mbit/s", {}, "binary_prefix"),         # divided by 1024 instead of 1000
    ("4.80 Mbit/s", Q4, "Mbit/s", {}, "binary_prefix"),
    ("6.2", 0.0619, "%", {}, "percent_fraction"),               # a percentage without its % sign
    ("0.062 %", 0.0619, "%", {}, "percent_fraction"),
    ("5 Mbit/s", Q4, "Mbit/s", {"efficiency": 1000 / 1066}, "header_overhead"),
    ("1000 bytes", 1066, "bytes", {"efficiency": 1000 / 1066}, "header_overhead"),
    ("4798 kbit/s", Q4, "Mbit/s", {"alternatives": {"wire_vs_shaper": 5e6 * 1000 / 1042}}, "wire_vs_shaper"),
    ("3.401 Mbit/s", 3.298e6, "Mbit/s", {"alternatives": {"rate_for_goodput": 3.401e6}}, "rate_for_goodput"),
    ("3.298 Mbit/s", 3.401e6, "Mbit/s", {"alternatives": {"goodput_for_rate": 3.298e6}}, "goodput_for_rate"),
    ("4.75 Mbit/s", Q4, "Mbit/s", {}, "rounding"),               # 1.3 % off, no slip explains it
]


@pytest.mark.parametrize("answer, expected, unit, extra, code", SLIP_CASES,
                         ids=[f"{c}:{a}" for a, _, _, _, c in SLIP_CASES])
def test_each_slip_is_diagnosed(answer, expected, unit, extra, code):
    r = check(answer, expected, unit=unit, **extra)
    assert not r.correct
    assert r.diagnosis == code, r.message
    assert r.score == grading.DEFAULT_CREDIT[code]
    assert r.message.endswith(".") and "\n" not in r.message


def test_partial_credit_is_configurable():
    assert check("586 kbit/s", Q4, unit="Mbit/s", credit={"bytes_bits": 0.25}).score == 0.25
    assert check("5 Mbit/s", Q4, unit="Mbit/s", efficiency=0.938, credit={"header_overhead": 0}).score == 0.0
    assert grading.credit_table({"rounding": 0.2})["rounding"] == 0.2


def test_two_slips_at_once_multiply_their_credits():
    r = check("5 Gbit/s", Q4, unit="Mbit/s", efficiency=1000 / 1066)
    assert r.diagnosis == "header_overhead+kilo_mega"
    assert r.score == 0.25
    r = check("586 Mbit/s", Q4, unit="Mbit/s")
    assert r.diagnosis == "bytes_bits+kilo_mega"


def test_undiagnosed_wrong_answer_says_how_far():
    r = check("3 Mbit/s", Q4, unit="Mbit/s")
    assert (r.correct, r.score, r.diagnosis) == (False, 0.0, None)
    assert "36 % below the expected value" in r.message


def test_closest_slip_wins():
    # 4.798 Mbit/s is both 2.3 % (shaper) and 2.4 % (1024) above 4.690: the shaper is closer
    r = check("4.7985 Mbit/s", Q4, unit="Mbit/s", alternatives={"wire_vs_shaper": 5e6 * 1000 / 1042})
    assert r.diagnosis == "wire_vs_shaper"


# -- against the lab's answer key -----------------------------------------------------

@pytest.mark.parametrize("answer_id, answer, code", [
    ("Q4", "5 Mbit/s", "header_overhead"),
    ("Q3", "1000 bytes", "header_overhead"),
    ("Q3", "1042 bytes", "wire_vs_shaper"),
    ("Q9", "4782 kbps", "wire_vs_shaper"),
    ("Q13.7", "4.0 %", "wire_vs_shaper"),
    ("Q17.3", "3.401 Mbit/s", "rate_for_goodput"),
    ("Q22.1", "0.136 Mbit/s", "rate_for_goodput"),
    ("Q17.1", "1.5 Mbit/s", "goodput_for_rate"),
    ("Q23.1", "0.938 Mbit/s", "goodput_for_rate"),
    ("Q27.1", "1 Mbit/s", "header_overhead"),
    ("Q13.7", "6.19", "percent_fraction"),
    ("Q29", "0.3 ms", "kilo_mega"),
])
def test_check_answer_knows_the_context_slips(answer_id, answer, code):
    r = check_answer(answer_id, answer, lab="lab5")
    assert r.diagnosis == code, r.message


def test_check_answer_on_a_variant():
    key = grading.answer_key("lab5", 11)
    value = key.value("Q4")
    assert check_answer("Q4", f"{value / 1e6:.4f} Mbit/s", seed=11, lab="lab5").correct
    assert not check_answer("Q4", f"{value / 1e6:.4f} Mbit/s", seed=0, lab="lab5").correct or math.isclose(
        value, grading.answer_key("lab5", 0).value("Q4"), rel_tol=0.01)


def test_a1_goodput_has_no_header_slip():
    # a flow below its bottleneck keeps its sending rate: headers play no role there
    key = grading.answer_key("lab5")
    assert math.isnan(key.alternative("Q13.1", "header_overhead"))
    assert not math.isnan(key.alternative("Q13.5", "header_overhead"))


# -- review fixes -----------------------------------------------------------------------

def test_text_expected_sets_the_kind_of_quantity():
    # the unit of a text expected value is required when unit is None
    r = check("4.69e9 ms", "4.69 Mbit/s")
    assert (r.correct, r.score, r.diagnosis) == (False, 0.0, "wrong_unit")
    assert r.message == "Not correct: '4.69e9 ms' is a time, but the question asks for a rate (in Mbit/s)."
    assert r.unit == "bit/s" and r.given is None
    assert check("586 kB/s", "4.69 Mbit/s").correct
    assert check(4.69e6, "4.69 Mbit/s").diagnosis == "missing_unit"  # as the text "4690000"
    r = check("4.69", "4.69 Mbit/s")
    assert r.diagnosis == "missing_unit" and "'4.69 Mbit/s'" in r.message
    assert check("6.2", "6.19 %").diagnosis == "percent_fraction"
    assert check("1066 bytes", "8528 bits").correct
    # without any unit anywhere, any kind is still accepted
    assert check("300 ms", 0.3).correct


@pytest.mark.parametrize("accounting", ["tc", "frame", "ip"])
def test_other_accounting_hints_name_the_accountings_involved(accounting):
    wire = grading.answer_key("lab5", 0, "wire").value("Q4")
    key = grading.answer_key("lab5", 0, accounting)
    assert key.alternative("Q4", "wire_vs_shaper") == pytest.approx(wire)
    r = check_answer("Q4", f"{wire / 1e3:.1f} kbit/s", accounting=accounting, lab="lab5")
    assert r.diagnosis == "wire_vs_shaper", r.message  # not binary_prefix (frame: 1.9 % off)
    words = {"tc": "the Linux shaper's accounting", "frame": "the Ethernet frame's accounting",
             "ip": "the IP packet's accounting"}[accounting]
    assert f"is the value in the wire's accounting (every byte" in r.message
    assert f"but the question uses {words}" in r.message


def test_wire_key_names_the_shaper():
    r = check_answer("Q4", "4798 kbit/s", lab="lab5")
    assert "is the value in the Linux shaper's accounting" in r.message
    assert "but the question uses the wire's accounting" in r.message
    # check() names the accounting it is told, and the other one of the keys
    r = check("4.69 Mbit/s", 4.8638e6, unit="Mbit/s", accounting="ip",
              alternatives={"wire_vs_shaper": Q4})
    assert r.diagnosis == "wire_vs_shaper"
    assert "value in the wire's accounting" in r.message and "uses the IP packet's accounting" in r.message


def test_other_accounting_comes_before_a_binary_prefix():
    # 4.803 Mbit/s is exactly 4.690 x 1.024, but also within the band of the shaper's
    # 4.7985 Mbit/s: the accounting is the likelier (and the lab's) explanation
    shaper = 5e6 * 1000 / 1042
    r = check("4.803 Mbit/s", Q4, unit="Mbit/s", alternatives={"wire_vs_shaper": shaper})
    assert r.diagnosis == "wire_vs_shaper"
    assert check("4.803 Mbit/s", Q4, unit="Mbit/s").diagnosis == "binary_prefix"


def test_percent_slip_only_for_shares():
    # Q19's c is a constant, not a percentage: 122 is not "100 times too large"
    r = check_answer("Q19", "122", lab="lab5")
    assert r.diagnosis != "percent_fraction" and "100 times" not in r.message
    assert check("122", 1.2247, unit="").diagnosis is None
    assert check("122", 1.2247, unit="1").diagnosis is None
    assert check("122", 1.2247, unit="%").diagnosis == "percent_fraction"
    assert check_answer("Q13.7", "6.19", lab="lab5").diagnosis == "percent_fraction"
    assert check_answer("Q21.1", "13.6", lab="lab5").diagnosis == "percent_fraction"


@pytest.mark.parametrize("answer, expected, unit", [
    ("1066 Bytes", 1066, "bytes"),
    ("1066 BYTES", 1066, "bytes"),
    ("4.69 MBit/s", Q4, "Mbit/s"),
    ("4.69 Mbit/S", Q4, "Mbit/s"),
    ("4.69 MBPS", Q4, "Mbit/s"),
    ("4.69 Megabits per second", Q4, "Mbit/s"),
    ("250 \u03bcs", 250e-6, "ms"),          # Greek mu
    ("250 \u00b5s", 250e-6, "ms"),          # micro sign
    ("4.69\u200b Mbit/s", Q4, "Mbit/s"),    # zero-width space
    ("4.\u200d69 Mbit/s\u2060", Q4, "Mbit/s"),
    ("\u202e4.69 Mbit/s", Q4, "Mbit/s"),     # bidi override
    ("\uff14.\uff16\uff19 Mbit/s", Q4, "Mbit/s"),  # full-width digits (NFKC)
    ("\u0664.\u0666\u0669 Mbit/s", Q4, "Mbit/s"),  # Arabic-Indic digits
    ("0,062", 0.0619, "%"),                 # leading zero: a decimal comma
])
def test_unambiguous_spellings_are_accepted(answer, expected, unit):
    r = check(answer, expected, unit=unit)
    assert r.correct, r.message


def test_wording_of_messages():
    # binary prefix: the percentage is the answer's distance, in the right direction
    r = check("4.58 Mbit/s", Q4, unit="Mbit/s")
    assert "is 2.3 % too small" in r.message
    r = check("4.80 Mbit/s", Q4, unit="Mbit/s")
    assert "is 2.4 % too large" in r.message
    # a slip granted full credit is not "Partly right (100 %)"
    r = check_answer("Q4", "4798 kbit/s", credit={"wire_vs_shaper": 1.0}, lab="lab5")
    assert r.score == 1.0 and r.message.startswith("Accepted for full points:")
    assert "Partly right (100" not in r.message
    # a bare number gets a unit suggestion in a fitting prefix
    r = check("4690000", Q4, unit="Mbit/s")
    assert "such as '4690000 bit/s' if you mean bit/s" in r.message
    r = check("4690", Q4, unit="Mbit/s")
    assert "such as '4690 kbit/s'" in r.message
    assert "such as '4.69 Mbit/s'" in check("4.69", Q4, unit="Mbit/s").message
    # absolute and relative tolerances add up, and the words say so
    r = check("6.19 %", 0.0619, unit="%", atol=0.001)
    assert "within 1 % + 0.1 percentage points of" in r.message
    assert " or " not in r.message
    # an ambiguous comma asks for a decimal point
    r = check("4,690 kbps", Q4, unit="Mbit/s")
    assert "with a decimal point (4.690) or without the comma (4690)" in r.message


# -- second review: zero, negatives, look-alike digits, wording -----------------------

@pytest.mark.parametrize("answer_id, answer", [
    ("Q44.1", "0 ms"), ("Q3", "0 bytes"), ("Q13.7", "0 %"), ("Q13.7", "0"), ("Q4", "0 Mbit/s"),
    ("Q3", "0.1 bytes"), ("Q29", "0.0001 ms"), ("Q13.7", "0.05 %"),
])
def test_zero_and_near_zero_get_no_slip_credit(answer_id, answer):
    # slips that divide (by 1000, 8000, 100) used to keep the question's whole
    # absolute tolerance, so that their band covered 0
    r = check_answer(answer_id, answer, lab="lab5")
    assert r.score == 0.0 and r.diagnosis is None, r.message
    assert "below the expected value" in r.message


def test_slip_band_is_the_right_band_transformed():
    # the slip values themselves are still recognised...
    assert check_answer("Q29", "0.3 ms", lab="lab5").diagnosis == "kilo_mega"       # seconds written as ms
    assert check_answer("Q3", "1.066 bytes", lab="lab5").diagnosis == "kilo_mega"
    assert check_answer("Q13.7", "0.0619 %", lab="lab5").diagnosis == "percent_fraction"
    # ... within the right answer's tolerance transformed by the slip: 0.5 bytes / 8000
    assert check_answer("Q3", "0.13325 bytes", lab="lab5").diagnosis == "bytes_bits+kilo_mega"
    assert check_answer("Q3", "0.1335 bytes", lab="lab5").diagnosis is None
    # x 1000: the absolute tolerance grows with the value (0.5 ms x 1000 = 0.5 s)
    assert check_answer("Q29", "300.6 s", lab="lab5").diagnosis == "kilo_mega"
    # with no absolute tolerance, nothing changes
    assert check("0.062 %", 0.0619, unit="%").diagnosis == "percent_fraction"


@pytest.mark.parametrize("answer_id, answer, words", [
    ("Q13.3", "-0.1 %", "a loss or a share cannot be negative"),
    ("Q13.3", "-0.001", "a loss or a share cannot be negative"),
    ("Q4", "-4.69 Mbit/s", "a rate cannot be negative"),
    ("Q3", "-1066 bytes", "an amount of data cannot be negative"),
    ("Q29", "-300 ms", "a time cannot be negative"),
    ("Q13.3", -0.001, "a loss or a share cannot be negative"),  # a number reads as its text
])
def test_negative_answers_are_refused(answer_id, answer, words):
    r = check_answer(answer_id, answer, lab="lab5")
    assert (r.correct, r.score, r.diagnosis) == (False, 0.0, "negative")
    assert r.message.startswith("Not correct:") and r.message.endswith(words + ".")
    assert check_answer("Q13.3", "0 %", lab="lab5").correct and check_answer("Q13.3", "-0", lab="lab5").correct


def test_negative_answers_where_the_value_may_be_negative():
    assert check("-5 ms", -0.005, unit="ms").correct              # a negative expected value
    assert check("-0.001", 0.0, unit="", atol=0.001).correct      # a plain number
    assert check("-0.1 %", 0.0, unit="%", atol=0.001, nonnegative=False).correct
    assert check("-0.1 ms", 0.0, unit="ms", atol=0.001).diagnosis == "negative"


@pytest.mark.parametrize("answer, char", [
    ("10\u2076 bit/s", "\u2076"), ("1066\u00b2 bytes", "\u00b2"), ("4.6\u2468 Mbit/s", "\u2468"),
    ("4\u00bd Mbit/s", "\u00bd"), ("\u2081066 bytes", "\u2081"),
])
def test_superscript_and_circled_digits_are_refused(answer, char):
    r = check(answer, 1e6 if "bit" in answer else 1066, unit="Mbit/s" if "bit" in answer else "bytes")
    assert r.diagnosis == "unreadable" and r.score == 0.0
    assert f"'{char}' is a" in r.message and "Write numbers with the digits 0 to 9" in r.message


def test_doubled_percent_sign_is_refused():
    r = check_answer("Q13.7", "6.2 %%", lab="lab5")
    assert r.diagnosis == "unreadable" and r.score == 0.0
    assert r.message == "Cannot read '6.2 %%': '%%' has more than one % sign. Write a single one, such as '6.2 %'."


def test_second_review_wording():
    # a constant is not a percentage
    r = check_answer("Q19", "1.22 Mbit/s", lab="lab5")
    assert r.message == ("Not correct: '1.22 Mbit/s' is a rate, but the question asks for a plain "
                         "number, without a unit.")
    assert "(in %)" not in r.message
    r = check_answer("Q13.7", "6.2 Mbit/s", lab="lab5")
    assert "asks for a share (in %, or as a fraction between 0 and 1)" in r.message
    # an unreadable answer: clear sentences, no nested brackets
    r = check("4,690 kbit/s", Q4, unit="Mbit/s")
    assert r.message == ("Cannot read '4,690 kbit/s': '4,690' is ambiguous (4.690 or 4690?). Write it "
                         "with a decimal point (4.690) or without the comma (4690).")
    assert check("abc", Q4, unit="Mbit/s").message == (
        "Cannot read 'abc': write a number followed by its unit, such as '4.69 Mbit/s'.")
    assert check_answer("Q19", "abc", lab="lab5").message == "Cannot read 'abc': write a plain number, such as '1.22'."
    assert check("4.69 Mbitz", Q4, unit="Mbit/s").message == (
        "Cannot read '4.69 Mbitz': unknown unit 'Mbitz'. Write a number followed by its unit, "
        "such as '4.69 Mbit/s'.")


@pytest.mark.parametrize("accounting, answer, words", [
    ("ip", "4.798 Mbit/s", "the Linux shaper's accounting"),
    ("ip", "4.69 Mbit/s", "the wire's accounting"),
    ("frame", "4.69 Mbit/s", "the wire's accounting"),
])
def test_keys_in_other_accountings_name_the_one_that_matches(accounting, answer, words):
    # an ip key: the shaper's value is not "rounding", it is the shaper's accounting
    r = check_answer("Q4", answer, accounting=accounting, lab="lab5")
    assert r.diagnosis == "wire_vs_shaper" and r.score == 0.75, r.message
    assert f"is the value in {words}" in r.message and "keep more digits" not in r.message
    res = grading.grade(grading.read_answers(f"student,question,answer\nada,Q4,{answer}\n".encode()), "lab5",
                        accounting=accounting)
    assert res.detail.message[0] == r.message


@pytest.mark.parametrize("answer", ["4.6904x10^6 bit/s", "4.6904×10^6 bit/s", "4.6904*10**6 bit/s",
                                    "4.6904 x 10^-3 Gbit/s", "4.6904X10^+0 Mbit/s", "4.6904e6 bit/s"])
def test_power_of_ten_exponents_are_read_as_moodle_reads_them(answer):
    # Moodle's numerical question reads "x10^", "×10^" and "*10**" as an exponent
    # (qtype_numerical_answer_processor::apply_units); labcalc reads the same answers
    r = check(answer, 4_690_431.5, unit="Mbit/s")
    assert r.correct and r.given == pytest.approx(4.6904e6)
    assert not check("4.6904x10^6", 4_690_431.5, unit="Mbit/s").correct  # still needs its unit
    assert check("10x10^3 bytes", 10_000, unit="bytes").correct
