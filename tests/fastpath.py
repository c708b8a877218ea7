"""Shared by the tests that pin a reader's block-wise fast path to its line-by-line parser.

Several readers (``ss``, iperf 2 text...) convert runs of usual lines in bulk and hand
every other line to the line-by-line parser. Both paths must give the same frame, the
same attrs, the same warnings and the same errors on *any* text: these helpers mutate
text at random and compare the two paths on it.
"""

from __future__ import annotations

import warnings

import pandas as pd


def mutate_tokens(rng, text: str, alphabet: str, tokens: tuple[str, ...]) -> str:
    """*text* with a few space-separated tokens dropped, repeated, swapped, altered, split
    by white space, or replaced by one of *tokens*; altered characters come from *alphabet*."""
    toks = text.split(" ")
    for _ in range(int(rng.integers(1, 6))):
        k = int(rng.integers(len(toks)))
        op = int(rng.integers(6))
        if op == 0:
            toks[k] = ""
        elif op == 1:
            toks.insert(k, toks[int(rng.integers(len(toks)))])
        elif op == 2:
            j = int(rng.integers(len(toks)))
            toks[k], toks[j] = toks[j], toks[k]
        elif op == 3 and toks[k]:
            at = int(rng.integers(len(toks[k])))
            toks[k] = toks[k][:at] + alphabet[int(rng.integers(len(alphabet)))] + toks[k][at + 1:]
        elif op == 4:
            toks[k] += ("\n", "\t", "  ", "\n\t ")[int(rng.integers(4))]
        else:
            toks[k] = tokens[int(rng.integers(len(tokens)))]
    return " ".join(toks)


def assert_fast_path_equals_slow(monkeypatch, module, read, error, text: str, block_chars: int) -> None:
    """Read *text* with *module*'s fast path off and on (blocks of *block_chars*) and check
    that both give the same frame and attrs (or the same *error* message) and warnings."""
    got = []
    for fast in (False, True):
        monkeypatch.setattr(module, "_FAST_ENABLED", fast)
        monkeypatch.setattr(module, "_BLOCK_CHARS", block_chars)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = read(text)
            except error as exc:
                result = str(exc)
        got.append((result, [str(x.message) for x in caught]))
    (slow, w_slow), (fast_result, w_fast) = got
    if isinstance(slow, str):
        assert fast_result == slow
    else:
        pd.testing.assert_frame_equal(fast_result, slow)
        assert fast_result.attrs == slow.attrs
    assert w_fast == w_slow
