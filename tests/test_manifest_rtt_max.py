"""metric = "rtt_max" in a manifest: the largest RTT sample of the window.

Notebook 07 compares a measured rtt_max (Q46's fluctuation range) and the tidy CSVs carry
that metric, but a manifest refused it ("unknown metric"), so a student with a ping log had
no way to give it but typing the number. The expected values are read off the committed ping
-D recording of data/measurements/lab5/recorded-2026-11-27 with a regular expression.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from labcalc.measure.manifest import ManifestError, build_manifest

PING = (Path(__file__).resolve().parents[1] / "data" / "measurements" / "lab5" / "recorded-2026-11-27"
        / "q10_h1_ping-D.txt")
REPLY = re.compile(r"^\[(\d+\.\d+)\] .*time=([\d.]+) ms", re.M)
STATS = re.compile(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/([\d.]+)/")


def _build(tmp_path, extra: str):
    shutil.copy(PING, tmp_path / "ping.txt")
    (tmp_path / "m.toml").write_text('[[measurement]]\nquestion = "Q46"\nscenario = "s"\nflow = "h1"\n'
                                     'metric = "rtt_max"\nfile = "ping.txt"\n' + extra)
    return build_manifest(tmp_path / "m.toml").iloc[0]


def _replies():
    got = [(float(t), float(ms) / 1e3) for t, ms in REPLY.findall(PING.read_text())]
    t0 = got[0][0]
    return [(t - t0, rtt) for t, rtt in got]


def test_rtt_max_is_the_largest_reply_in_the_window(tmp_path):
    row = _build(tmp_path, "window_s = [2, 8]\n")
    inside = [rtt for t, rtt in _replies() if 2 <= t <= 8]
    assert row["unit"] == "s" and row["stat"] == "max"
    assert row["n_samples"] == len(inside)
    assert row["value"] == pytest.approx(max(inside), abs=1e-9)
    assert row["value"] > sum(inside) / len(inside)  # the largest, not the mean


def test_rtt_max_summary_is_the_statistics_line(tmp_path):
    row = _build(tmp_path, 'stat = "summary"\n')
    assert row["value"] == pytest.approx(float(STATS.search(PING.read_text()).group(3)) / 1e3, abs=1e-9)


def test_rtt_max_cannot_be_summed(tmp_path):
    shutil.copy(PING, tmp_path / "a.txt")
    shutil.copy(PING, tmp_path / "b.txt")
    (tmp_path / "m.toml").write_text('[[measurement]]\nquestion = "Q46"\nscenario = "s"\nflow = "h1"\n'
                                     'metric = "rtt_max"\nfiles = ["a.txt", "b.txt"]\ncombine = "sum"\n')
    with pytest.raises(ManifestError, match="a sum of RTTs means nothing"):
        build_manifest(tmp_path / "m.toml")
