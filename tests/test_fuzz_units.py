"""Unit spellings under fire: the one grammar decides every spelling or refuses it (issue 20, item 6).

A spelling is built from parts (a prefix as a symbol or a word, a base word, the letter
case of each part, a "/" or " per " and a second factor) and its meaning is worked out
here from a table of its own, written from the rules in ``labcalc.units``' documentation
(not from the grammar's code): each property test checks that :func:`unit_scale`
gives exactly that meaning, or refuses a spelling the rules refuse, and that pint's
parser is only ever handed names the grammar has decided. The spellings of the issue
(``kiloBps``, ``megaBps`` read as kbit/s; ``kh``, ``mmin``, ``Mh``, ``umin``, ``ubit``,
``nB``, ``µbps`` accepted through pint; ``kmin/s``, ``Mbit/kbit`` read as plain numbers)
are seeded examples. ``scripts/fuzz_long.py`` runs these properties with thousands of
fresh examples.
"""

from __future__ import annotations

import re
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labcalc.units import parse_quantity, registry, unit_scale

FUZZ = settings(derandomize=True, deadline=None, max_examples=600,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# -- the oracle: what a spelling means, from the documented rules -----------------------

# prefix as typed -> (size, "big" or "small", the letter(s) typed)
PREFIXES = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3, "u": 1e-6, "\u00b5": 1e-6,
            "n": 1e-9, "Ki": 1024.0, "Mi": 1024.0 ** 2, "Gi": 1024.0 ** 3, "g": 1e9,
            "kilo": 1e3, "mega": 1e6, "giga": 1e9, "tera": 1e12, "milli": 1e-3, "micro": 1e-6,
            "nano": 1e-9, "kibi": 1024.0, "mebi": 1024.0 ** 2, "gibi": 1024.0 ** 3}
WORD_PREFIXES = {"kilo", "mega", "giga", "tera", "milli", "micro", "nano", "kibi", "mebi", "gibi"}
# base word -> (kind, size in the kind's base unit: byte, s, packet, bit/s)
BASES = {"b": ("data", 1 / 8), "B": ("data", 1.0), "bit": ("data", 1 / 8), "bits": ("data", 1 / 8),
         "byte": ("data", 1.0), "bytes": ("data", 1.0), "octet": ("data", 1.0), "octets": ("data", 1.0),
         "bps": ("rate", 1.0), "Bps": ("rate", 8.0), "BPS": ("rate", 1.0),
         "s": ("time", 1.0), "sec": ("time", 1.0), "secs": ("time", 1.0), "second": ("time", 1.0),
         "seconds": ("time", 1.0), "min": ("time", 60.0), "minute": ("time", 60.0), "h": ("time", 3600.0),
         "hour": ("time", 3600.0), "hours": ("time", 3600.0),
         "pkt": ("packet", 1.0), "pkts": ("packet", 1.0), "packets": ("packet", 1.0)}
REFUSED = object()


def meaning(prefix: str, base: str):
    """(kind, size) of one factor ``prefix + base`` under the documented rules, or REFUSED.

    ``base`` is one of BASES in the letter case given; words other than b/B/bps are read
    in any case (the caller changes their case and passes the canonical key here).
    """
    kind, size = BASES[base]
    if not prefix:
        return kind, size
    if kind == "packet" or base in ("min", "minute", "h", "hour", "hours"):
        return REFUSED  # "Kpkt", "kh", "mmin": a prefix before a count or min/h
    factor = PREFIXES[prefix]
    if kind in ("data", "rate"):
        if prefix in ("m", "g"):
            factor = 1e6 if prefix == "m" else 1e9  # millibits do not exist: m is mega
        elif factor < 1:
            return REFUSED  # "ubit", "nB", "µbps", "millibits"
    if kind == "time" and factor > 1:
        return REFUSED  # "ks", "Ms": kiloseconds, megaseconds
    return kind, size * factor


def expected_unit(factors):
    """(size, base unit) of a whole unit from its factors' meanings, or REFUSED."""
    if any(f is REFUSED for f in factors):
        return REFUSED
    kinds = [k for k, _ in factors]
    if len(factors) == 1:
        kind, size = factors[0]
        return size, {"data": "byte", "rate": "bit/s", "time": "s", "packet": "packet"}[kind]
    if kinds == ["data", "time"]:
        return factors[0][1] * 8 / factors[1][1], "bit/s"
    return REFUSED  # a ratio of two like quantities, a rate per time, time per data...


def _cased(word: str, how: str) -> str:
    """A base word in another letter case; b/B and bps/Bps/BPS keep theirs (case is meaning)."""
    if word in ("b", "B", "bps", "Bps", "BPS"):
        return word
    return {"lower": word.lower(), "upper": word.upper(), "title": word.capitalize(), "keep": word}[how]


CASES = st.sampled_from(["keep", "lower", "upper", "title"])


@st.composite
def factors(draw):
    """(text as typed, meaning) of one factor."""
    prefix = draw(st.sampled_from(sorted(PREFIXES)))
    base = draw(st.sampled_from(sorted(BASES)))
    how = draw(CASES)
    text_base = _cased(base, how)
    text_prefix = prefix
    if prefix in WORD_PREFIXES:
        text_prefix = {"upper": prefix.upper(), "title": prefix.capitalize()}.get(how, prefix)
    # a prefix symbol keeps its case (it is its meaning); the word after it may change
    return text_prefix + text_base, meaning(prefix, base)


# -- properties ---------------------------------------------------------------------------

@FUZZ
@given(f=factors())
@example(f=("kiloBps", ("rate", 8e3)))
@example(f=("megaBps", ("rate", 8e6)))
@example(f=("kh", REFUSED))
@example(f=("mmin", REFUSED))
@example(f=("Mh", REFUSED))
@example(f=("umin", REFUSED))
@example(f=("ubit", REFUSED))
@example(f=("nB", REFUSED))
@example(f=("\u00b5bps", REFUSED))
@example(f=("Kpkt", REFUSED))
@example(f=("millibits", REFUSED))
def test_one_factor_means_what_the_rules_say(f):
    text, want = f
    want = expected_unit([want])
    if want is REFUSED:
        with pytest.raises(ValueError, match=r"^quantity: "):
            unit_scale(text)
    else:
        size, base = unit_scale(text)
        assert base == want[1], text
        assert size == pytest.approx(want[0], rel=1e-12), text


@FUZZ
@given(a=factors(), b=factors(), sep=st.sampled_from(["/", " per ", " PER ", "/"]))
@example(a=("kmin", REFUSED), b=("s", ("time", 1.0)), sep="/")
@example(a=("Mbit", ("data", 1e6 / 8)), b=("kbit", ("data", 1e3 / 8)), sep="/")
@example(a=("min", ("time", 60.0)), b=("s", ("time", 1.0)), sep="/")
@example(a=("Mbit", ("data", 1e6 / 8)), b=("S", ("time", 1.0)), sep="/")
@example(a=("bps", ("rate", 1.0)), b=("s", ("time", 1.0)), sep="/")
def test_two_factors_make_a_rate_or_are_refused(a, b, sep):
    text = a[0] + sep + b[0]
    want = expected_unit([a[1], b[1]])
    if want is REFUSED:
        with pytest.raises(ValueError, match=r"^quantity: "):
            unit_scale(text)
    else:
        size, base = unit_scale(text)
        assert base == want[1] == "bit/s", text
        assert size == pytest.approx(want[0], rel=1e-12), text


# what pint's parser may be handed: the grammar's own names, nothing typed
_DECIDED = re.compile(r"^\((?:(?:kilo|mega|giga|tera|milli|micro|nano|kibi|mebi|gibi)?"
                      r"(?:bit|byte|bps|second|minute|hour|packet|percent)(?:/second)?)\)$")

UNIT_TEXTS = st.one_of(
    st.text(alphabet=st.sampled_from("kKMGTmungiBbpst%/ \u00b5\u03bcerEcoyhPSI"), max_size=14),
    st.builds(lambda a, sep, b: a[0] + sep + b[0], factors(), st.sampled_from(["/", " per ", "//", "/ /"]),
              factors()),
    factors().map(lambda f: f[0]),
)


@FUZZ
@given(text=UNIT_TEXTS)
@example(text="kiloBps")
@example(text="kh")
@example(text="Mbit/kbit")
@example(text="kmin/s")
@example(text="bit bit/bit")
@example(text="mega bits")
@example(text="BPS")
def test_pint_only_reads_names_the_grammar_decided(text):
    ureg = registry()
    # patched per example (a function-scoped monkeypatch would stack spies across examples)
    with mock.patch.object(ureg, "parse_units", wraps=ureg.parse_units) as spy:
        try:
            size, base = unit_scale.__wrapped__(text)  # not the cache: every call goes through
        except ValueError as exc:
            assert str(exc).startswith("quantity: ")
        else:
            assert base in ("bit/s", "byte", "s", "packet", "1") and size > 0
    for call in spy.call_args_list:
        expression = call.args[0]
        parts = expression.split("/(")
        pieces = [parts[0]] + ["(" + p for p in parts[1:]]
        assert all(_DECIDED.match(p) for p in pieces), (text, expression)


@pytest.mark.parametrize("text, size, base", [
    ("kiloBps", 8e3, "bit/s"), ("megaBps", 8e6, "bit/s"), ("KiloBytes/s", 8e3, "bit/s"),
    ("kilobps", 1e3, "bit/s"), ("Megabits per second", 1e6, "bit/s"), ("octets", 1.0, "byte"),
])
def test_spelled_out_prefixes_keep_the_case_rules(text, size, base):
    assert unit_scale(text) == (pytest.approx(size, rel=1e-12), base)


@pytest.mark.parametrize("text, message", [
    ("3 kh", "a prefix before 'h' is not read"),
    ("3 mmin", "a prefix before 'min' is not read"),
    ("3 Mh", "a prefix before 'h'"),
    ("3 umin", "a prefix before 'min'"),
    ("3 ubit", "'u' before 'bit' would be a fraction of a bit or byte"),
    ("3 nB", "'n' before 'B' would be a fraction"),
    ("3 \u00b5bps", "before 'bps' would be a fraction"),
    ("3 Kpkt", "write the number of packets in full"),
    ("3 kmin/s", "a prefix before 'min'"),
    ("3 Mbit/kbit", r"'Mbit/kbit' \(data per data\), which labcalc does not use"),
    ("3 min/s", r"\(time per time\)"),
    ("3 bit bit/bit", "a space inside a unit"),
])
def test_the_spellings_of_the_issue_are_refused_with_a_reason(text, message):
    with pytest.raises(ValueError, match=message):
        parse_quantity(text)
