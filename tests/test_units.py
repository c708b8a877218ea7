"""Unit parsing for answers: the issue's table, pint's traps, and no evaluation ever."""

import builtins

import pytest

from labcalc.units import (
    format_quantity,
    normalize_text,
    parse_quantity,
    registry,
    scale_value,
    split_quantity,
    unit_scale,
)

# The unit-parsing table of the grading issue, plus the spellings students use.
TABLE = [
    ("4.69 Mbit/s", 4.69e6, "bit/s"),
    ("4690 kbps", 4.69e6, "bit/s"),
    ("4.69Mbps", 4.69e6, "bit/s"),
    ("4690kb/s", 4.69e6, "bit/s"),
    ("586 kB/s", 4.688e6, "bit/s"),
    ("6.2 %", 0.062, "1"),
    ("0.062", 0.062, "1"),
    ("1066 bytes", 1066.0, "byte"),
    ("300 ms", 0.3, "s"),
    # more spellings
    ("4.69 Mb/s", 4.69e6, "bit/s"),
    ("4.69 mbps", 4.69e6, "bit/s"),  # nobody means millibits
    ("4.69 Mbit per second", 4.69e6, "bit/s"),
    ("4.69 megabits/s", 4.69e6, "bit/s"),
    ("4.69 Mbits/sec", 4.69e6, "bit/s"),
    ("5 Kbps", 5e3, "bit/s"),
    ("0.5 Gbit/s", 5e8, "bit/s"),
    ("1 KiB", 1024.0, "byte"),
    ("1066 B", 1066.0, "byte"),
    ("8528 bits", 1066.0, "byte"),
    ("2 pkts", 2.0, "packet"),
    ("300 msec", 0.3, "s"),
    ("0.3 s", 0.3, "s"),
    ("250 us", 250e-6, "s"),
    ("250 µs", 250e-6, "s"),
    ("6.2%", 0.062, "1"),
    ("6.2 percent", 0.062, "1"),
    ("4,69 Mbit/s", 4.69e6, "bit/s"),  # decimal comma
    ("4 690 kbps", 4.69e6, "bit/s"),  # grouped thousands
    ("1,000,000 bit/s", 1e6, "bit/s"),
    ("4.69e6 bit/s", 4.69e6, "bit/s"),
    ("\u22125 Mbps", -5e6, "bit/s"),  # Unicode minus
    ("4690.4e\u22123 Mbit/s", 4.6904e6, "bit/s"),  # Unicode minus in the exponent
    (" .5 Mbps ", 5e5, "bit/s"),
    # letter case where it is unambiguous
    ("1066 Bytes", 1066.0, "byte"),
    ("1066 BYTES", 1066.0, "byte"),
    ("8528 Bits", 1066.0, "byte"),
    ("4.69 MBit/s", 4.69e6, "bit/s"),
    ("4.69 Mbit/S", 4.69e6, "bit/s"),
    ("4.69 MBPS", 4.69e6, "bit/s"),   # all capitals: networking's megabit per second
    ("4.69 Mbps", 4.69e6, "bit/s"),
    ("4.69 MBps", 3.752e7, "bit/s"),  # B then lower case: megabyte per second
    ("4.69 Megabits per second", 4.69e6, "bit/s"),
    ("4.69 MEGABITS PER SECOND", 4.69e6, "bit/s"),
    ("586 KB/S", 4.688e6, "bit/s"),
    ("300 SEC", 300.0, "s"),
    ("300 Milliseconds", 0.3, "s"),
    ("300 mS", 0.3, "s"),             # lower-case m: milli
    ("1 gbps", 1e9, "bit/s"),
    # Unicode: micro sign, Greek mu, invisible characters, NFKC, other digits
    ("250 \u03bcs", 250e-6, "s"),
    ("250 \u00b5s", 250e-6, "s"),
    ("4.69\u200b Mbit/s", 4.69e6, "bit/s"),
    ("4.6\u200c9 Mb\u00adit/s", 4.69e6, "bit/s"),
    ("\ufeff4.69 Mbit/s\u202c", 4.69e6, "bit/s"),
    ("\uff14\uff10\uff10 \uff4b\uff42\uff50\uff53", 4e5, "bit/s"),  # full width
    ("\u0664\u0666\u0669\u0660 kbps", 4.69e6, "bit/s"),  # Arabic-Indic digits
    ("\u0664\u066b\u0666\u0669 Mbit/s", 4.69e6, "bit/s"),  # and decimal separator
    ("0,062", 0.062, "1"),            # a leading zero: decimal comma
]


@pytest.mark.parametrize("text, value, unit", TABLE, ids=[t for t, *_ in TABLE])
def test_parse_table(text, value, unit):
    v, u = parse_quantity(text)
    assert u == unit
    assert v == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("text, value", [("300 ms", 0.3), ("6.2 %", 0.062), ("4.69 Mbit/s", 4_690_000.0),
                                         ("3.58 %", 0.0358)])
def test_sub_units_are_exact(text, value):
    # dividing by 1000 or 100 instead of multiplying by 0.001 or 0.01 keeps them exact
    assert parse_quantity(text)[0] == value


def test_pint_traps_are_defused():
    ureg = registry()
    assert ureg.Quantity("1 Mbps").to("bit/s").magnitude == 1e6  # not megabaud
    assert unit_scale("kb") == (125.0, "byte")  # kilobit, not kilobarn
    assert unit_scale("pkt") == (1.0, "packet")  # not picoknot
    assert unit_scale("Kbit/s") == (1000.0, "bit/s")  # defined
    assert unit_scale("MB/s") == (8e6, "bit/s")


@pytest.mark.parametrize("text, message", [
    ("", "expected a number"),
    ("abc", "does not start with a number"),
    ("1 furlong", "unknown unit 'furlong'"),
    ("1 Mbit*s", "'Mbit[*]s' after the number is not a unit"),
    ("1 bit/s/s", "labcalc does not use"),
    ("inf", "not a finite number"),
    ("1e400 bps", "not a finite number"),
    ("nan Mbps", "not a finite number"),
])
def test_parse_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_quantity(text)


@pytest.mark.parametrize("text, message", [
    ("300 Ms", "'Ms' would be megaseconds; write 'ms' for milliseconds"),
    ("300 MS", "'MS' would be megaseconds"),
    ("3 ks", "'ks' would be kiloseconds"),
    ("3 kiloseconds", "'kiloseconds' is not a time unit labcalc reads"),
    ("4.69 Mbit/s %", "mixes a percentage with another unit"),
    ("6 % Mbit", "mixes a percentage with another unit"),
    ("6 percent/s", "mixes a percentage with another unit"),
    ("4,690 kbps", "ambiguous"),
    ("1,066 bytes", "with a decimal point (1.066) or without the comma (1066)"),
])
def test_ambiguous_spellings_are_refused(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_quantity(text)


def test_normalize_text():
    assert normalize_text("ascii stays") == "ascii stays"
    assert normalize_text("\u00b5") == "\u03bc"  # NFKC: micro sign -> Greek mu
    assert normalize_text("a\u200b\u200c\u200d\u2060\ufeff\u00ad\u202e\u2066b") == "ab"
    assert normalize_text("4\u00a0690") == "4 690"
    assert normalize_text("\u0967\u0968") == "12"  # Devanagari digits


def test_split_quantity_is_strict():
    assert split_quantity("4.69Mbps") == (4.69, "Mbps")
    assert split_quantity("0.062") == (0.062, "")
    with pytest.raises(ValueError, match="ambiguous"):
        split_quantity("4,690 kbps")
    with pytest.raises(ValueError, match="does not start with a number"):
        split_quantity("=1+1")
    with pytest.raises(ValueError, match="is not a unit"):
        split_quantity("5 Mbps; import os")
    with pytest.raises(ValueError, match="is not a unit"):
        split_quantity("5 " + "M" * 100)


def test_unit_scale_is_cached_and_rejects_unknown():
    unit_scale.cache_clear()
    unit_scale("Mbit/s")
    unit_scale("Mbit/s")
    assert unit_scale.cache_info().hits == 1
    with pytest.raises(ValueError, match="unknown unit"):
        unit_scale("parsecs")
    assert unit_scale("") == (1.0, "1") and unit_scale("1") == (1.0, "1")


def test_scale_value():
    assert scale_value(300, 0.001) == 0.3
    assert scale_value(4.69, 1e6) == 4_690_000.0
    assert scale_value(2, 8) == 16


HOSTILE = ["__import__('os').system('true')", "2 bit^9^9^9", "2 bit**9**9**9", "exec('x=1')", "1 Mbps if True else 2",
           "(lambda: 1)()", "9**9**9 bps", "2*3 Mbps", "{}.__class__", "5 Mbps; import os",
           "open('/etc/passwd')", "1" * 5000]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_answers_are_never_evaluated(text, monkeypatch):
    from labcalc.grading import parse_answer

    parse_quantity("1 Mbps")  # build the registry before eval and exec are forbidden

    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec called")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    parsed = parse_answer(text, "Mbit/s")
    assert parsed.status in ("unreadable", "missing_unit", "ok")
    for parse in (split_quantity, parse_quantity):
        try:
            parse(text)
        except ValueError:
            pass


def test_format_roundtrip():
    for value, unit in [(4_690_431.5, "bit/s"), (1066.0, "byte"), (0.3, "s"), (0.062, "1")]:
        text = format_quantity(value, unit, digits=9)
        assert parse_quantity(text) == (pytest.approx(value, rel=1e-8), unit)


@pytest.mark.parametrize("text, kind", [
    ("10\u2076 bit/s", "a superscript digit"),
    ("1066\u00b2 bytes", "a superscript digit"),
    ("\u2081\u2080 ms", "a subscript digit"),
    ("4.6\u2468 Mbit/s", "a circled digit"),
    ("4\u00bd Mbit/s", "a fraction sign"),
    ("\u2474 Mbit/s", "a digit in parentheses"),
])
def test_digit_look_alikes_are_refused(text, kind):
    # NFKC would merge them into the number: 10⁶ into 106, 1066² into 10662
    with pytest.raises(ValueError, match=f"is {kind}, which is not read as part of a number"):
        parse_quantity(text)
    with pytest.raises(ValueError, match=kind):
        split_quantity(text)


def test_decimal_digits_of_any_script_are_not_look_alikes():
    from labcalc.units import compatibility_digit

    for text in ("\uff14\uff16\uff19\uff10 kbps", "\u0664\u0666\u0669\u0660 kbps", "\U0001d7d2 Mbps",
                 "\u0967\u0968 ms", "4.69 Mbit/s"):
        assert compatibility_digit(text) is None
    assert parse_quantity("\uff14\uff16\uff19\uff10 kbps") == (4_690_000.0, "bit/s")


def test_doubled_percent_sign_is_refused():
    for text in ("6.2 %%", "6.2 % %"):
        with pytest.raises(ValueError, match="more than one % sign"):
            parse_quantity(text)
