"""Shared by the manifest tests that build one entry over one real file and check its row.

``test_manifest_matrix.py``, ``test_manifest_qa.py`` and ``test_manifest_qa2.py`` each write a
one-entry manifest over a copy of a recorded file, then compare the row with their own
independent reading of that file, or check that the entry is refused with a clear message.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from labcalc.measure.manifest import ManifestError, build_manifest


def build(tmp_path: Path, src, **keys):
    """Build a one-entry manifest over a copy of *src* (a path, or (name, text)); return its row.

    The entry names question "Q", scenario "S", flow "f" and the file; each of *keys* is
    written as one more TOML key (its value in JSON, which TOML reads the same for strings,
    numbers, booleans and lists).
    """
    name = src.name if isinstance(src, Path) else src[0]
    if isinstance(src, Path):
        shutil.copy(src, tmp_path / name)
    else:
        (tmp_path / name).write_text(src[1])
    body = f'[[measurement]]\nquestion = "Q"\nscenario = "S"\nflow = "f"\nfile = "{name}"\n'
    body += "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    (tmp_path / "m.toml").write_text(body)
    return build_manifest(tmp_path / "m.toml").iloc[0]


def refused(tmp_path: Path, src, words, **keys) -> str:
    """The one-line message of the ManifestError that building *src* with *keys* raises;
    every one of *words* must be in it."""
    with pytest.raises(ManifestError) as info:
        build(tmp_path, src, **keys)
    msg = str(info.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


def window_of(row):
    """(start, end) [s] of a row's ``window_s`` ("lo-hi")."""
    lo, hi = (float(x) for x in row.window_s.split("-"))
    return lo, hi


def mean(xs):
    """Arithmetic mean of an iterable of numbers (not empty)."""
    xs = list(xs)
    return sum(xs) / len(xs)


def quiet(func, *args, **kwargs):
    """*func* called with its warnings silenced (real files of other people warn of lines skipped)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)
