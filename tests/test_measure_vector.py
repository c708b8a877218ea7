"""The vectorised byte parsers behind the big-file readers agree with Python's own parsing."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from labcalc.measure._vector import Lines, parse_float, parse_hex, parse_uint, span_codes


def _spans(tokens: list[str]):
    text = " ".join(tokens) + "\n"
    L = Lines(text.encode(), 1)
    spans = [(mm.start(), mm.end()) for mm in re.finditer(r"\S+", text)]
    s = np.array([a for a, _ in spans], dtype=np.int64)
    e = np.array([b for _, b in spans], dtype=np.int64)
    return L, s, e


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**19 - 1), min_size=1, max_size=30))
def test_parse_uint_decimal(values):
    L, s, e = _spans([str(v) for v in values])
    got, ok = parse_uint(L, s, e)
    assert ok.all()
    assert [int(x) for x in got] == values


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=30), st.booleans(), st.booleans())
def test_parse_hex(values, prefix, upper):
    tokens = [(f"{v:#x}" if prefix else f"{v:x}") for v in values]
    if upper:
        tokens = [t.upper().replace("0X", "0x") for t in tokens]
    L, s, e = _spans(tokens)
    got, ok = parse_hex(L, s, e)
    assert ok.all()
    assert [int(x) for x in got] == values


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 9), st.integers(0, 999999), st.booleans()),
                min_size=1, max_size=30))
def test_parse_float(values):
    tokens = []
    for ip, ndig, frac, neg in values:
        t = str(ip) if ndig == 0 else f"{ip}.{str(frac).zfill(6)[:ndig]}"
        tokens.append(("-" if neg else "") + t)
    L, s, e = _spans(tokens)
    got, ok = parse_float(L, s, e)
    assert ok.all()
    np.testing.assert_allclose(got, [float(t) for t in tokens], rtol=1e-15, atol=0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="0123456789abcdefxX.-:g", min_size=1, max_size=12), min_size=1, max_size=30))
def test_invalid_tokens_are_flagged_not_misread(tokens):
    L, s, e = _spans(tokens)
    v, ok = parse_uint(L, s, e)
    for tok, val, good in zip(tokens, v, ok):
        if good:
            assert tok.isdigit() and int(tok) == int(val)
        else:
            assert not tok.isdigit() or len(tok) > 19
    f, okf = parse_float(L, s, e)
    for tok, val, good in zip(tokens, f, okf):
        if good:
            assert float(tok) == val


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["10.0.0.1:5001", "10.0.0.2:40000", "[::1]:22", "a", "10.0.0.1:5002"]),
                min_size=1, max_size=50))
def test_span_codes_round_trip(tokens):
    L, s, e = _spans(tokens)
    table: dict[str, int] = {}
    codes = span_codes(L, s, e, table)
    names = {v: k for k, v in table.items()}
    assert [names[c] for c in codes] == tokens
