"""What a manifest makes of the edge cases of a student's own files (QA of issues 19 and 20).

The files are tests/data/measure/qa/, recorded by scripts/record_qa_edge_cases.sh in network
namespaces (htb 5 Mbit/s with a 30-packet pfifo on both sides; the script's comments say how
each file was made). Every value is checked against a reading of the file written here with
regular expressions and json, not with labcalc's readers; every refusal is followed by the
step it names, which must then give a value checked the same way.

Units, as iperf prints them (src/stdio.c of iperf 2, src/units.c of iperf3): a rate in
``bits/sec`` counts K, M, G as 1000, 1000**2, 1000**3 (``-f k``, ``-f m``); a rate in
``Bytes/sec`` (``-f K``, ``-f M``) counts them as 1024, 1024**2, 1024**3 bytes. Rates are
taken from the rate column, never recomputed from the rounded transfer column.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from labcalc.measure.manifest import ManifestError, build_manifest

QA = Path(__file__).resolve().parent / "data" / "measure" / "qa"

# --- independent readings -----------------------------------------------------------------

_RATE_UNIT = {("bits", ""): 1.0, ("bits", "K"): 1e3, ("bits", "M"): 1e6, ("bits", "G"): 1e9,
              ("Bytes", ""): 8.0, ("Bytes", "K"): 8.0 * 1024, ("Bytes", "M"): 8.0 * 1024**2,
              ("Bytes", "G"): 8.0 * 1024**3}
_LINE = re.compile(
    r"^\[\s*(?P<id>\*?\d+|SUM)\]\s+(?P<t0>[\d.]+)\s*-\s*(?P<t1>[\d.]+)\s+sec\s+[\d.]+\s+[KMG]?Bytes\s+"
    r"(?P<rate>[\d.]+)\s+(?P<ru>[KMG]?)(?P<rk>bits|Bytes)/sec(?P<rest>.*)$")
_LOST = re.compile(r"(\d+)/\s*(\d+)\s+\(")
_CWND = re.compile(r"^\s+\d+\s+([\d.]+)\s+([KM])Bytes")
_ROLE = re.compile(r"\b(sender|receiver)\s*$")


def lines(path: Path, part: str = "client"):
    """Report lines of an iperf 2 / iperf3 text printout: the part before ``Server output:``
    (``part="client"``) or after it (``"server"``). Each: id, t0, t1, rate [bit/s], lost,
    total, cwnd [bytes] (iperf3 TCP sender), role, and whether a ``Server Report:`` precedes it."""
    out, where, report = [], "client", False
    for raw in path.read_text().splitlines():
        s = raw.strip()
        if s.startswith("Server output:"):
            where = "server"
            continue
        if s.endswith("Server Report:"):
            report = True
            continue
        m = _LINE.match(s)
        if not m or where != part:
            continue
        lost = _LOST.search(m["rest"])
        cwnd = _CWND.match(m["rest"])
        role = _ROLE.search(m["rest"])
        out.append({"id": m["id"].lstrip("*"), "t0": float(m["t0"]), "t1": float(m["t1"]),
                    "rate": float(m["rate"]) * _RATE_UNIT[(m["rk"], m["ru"])],
                    "lost": int(lost[1]) if lost else None, "total": int(lost[2]) if lost else None,
                    "cwnd": float(cwnd[1]) * {"K": 1024, "M": 1024**2}[cwnd[2]] if cwnd else None,
                    "role": role[1] if role else None, "report": report,
                    "omitted": "(omitted)" in m["rest"]})
        report = False
    return out


def intervals(rows):
    """The per-interval lines: iperf3's lines without a role, iperf 2's lines other than a
    stream's whole-test line (its second line starting at 0) and the Server Report."""
    seen, out = set(), []
    for r in rows:
        if r["role"] or r["report"] or r["omitted"] or (r["t0"] == 0.0 and r["id"] in seen):
            continue
        seen.add(r["id"])
        out.append(r)
    return out


def inside(rows, lo, hi, tol=0.0):
    return [r for r in rows if r["t0"] >= lo - tol and r["t1"] <= hi + tol]


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def window_of(row):
    lo, hi = (float(x) for x in row.window_s.split("-"))
    return lo, hi


def build(tmp_path: Path, src: Path, **keys):
    """Build a one-entry manifest over a copy of *src*; return its row."""
    shutil.copy(src, tmp_path / src.name)
    body = f'[[measurement]]\nquestion = "Q"\nscenario = "S"\nflow = "f"\nfile = "{src.name}"\n'
    body += "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    (tmp_path / "m.toml").write_text(body)
    return build_manifest(tmp_path / "m.toml").iloc[0]


def refused(tmp_path: Path, src: Path, words, **keys) -> str:
    with pytest.raises(ManifestError) as info:
        build(tmp_path, src, **keys)
    msg = str(info.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


# --- units: -f K (KBytes/sec, K = 1024) and -f k (Kbits/sec, K = 1000) -----------------------

def test_iperf3_rates_in_kbytes_per_second(tmp_path):
    """iperf3 -f K prints '600 KBytes/sec': 600 * 1024 * 8 bit/s (it was read as no line at all:
    'has no rate_bps column (it has: rate_bps)', and no end-of-test line)."""
    s, c = QA / "iperf3_tcp_fK_server.txt", QA / "iperf3_tcp_fK_client.txt"
    srows, crows = lines(s), lines(c)
    recv = next(r for r in srows if r["role"] == "receiver")
    assert recv["rate"] == 584 * 8192
    r = build(tmp_path, s, metric="goodput")
    iv = [x for x in intervals(srows) if x["t1"] - x["t0"] > 0.5]
    assert r.value == pytest.approx(mean(x["rate"] for x in inside(iv, *window_of(r))), rel=1e-12)
    assert r.n_samples == len(inside(iv, *window_of(r))) == 4
    assert build(tmp_path, s, metric="goodput", stat="summary").value == pytest.approx(recv["rate"], rel=1e-12)
    # the client (TCP sender): its own lines with side = "sender", the receiver's end line
    sent = next(r for r in crows if r["role"] == "sender")
    assert build(tmp_path, c, metric="goodput", stat="summary", side="sender").value == pytest.approx(sent["rate"])
    got = build(tmp_path, c, metric="goodput", stat="summary").value
    assert got == pytest.approx(next(r for r in crows if r["role"] == "receiver")["rate"], rel=1e-12)
    r = build(tmp_path, c, metric="cwnd", window_s=[0, 4])
    assert r.unit == "bytes" and r.value == pytest.approx(mean(x["cwnd"] for x in intervals(crows)), rel=1e-12)


def test_iperf2_rates_in_kbytes_per_second(tmp_path):
    s, c = QA / "iperf2_udp_fK_server.txt", QA / "iperf2_udp_fK_client.txt"
    srows, crows = lines(s), lines(c)
    iv = intervals(srows)
    whole = next(r for r in srows if r["t0"] == 0 and r["t1"] > 2)
    r = build(tmp_path, s, metric="goodput", window_s=[0, 4])
    assert r.value == pytest.approx(mean(x["rate"] for x in iv), rel=1e-12) and r.n_samples == 4
    r = build(tmp_path, s, metric="loss", window_s=[1, 4])
    w = inside(iv, 1, 4)
    assert r.value == pytest.approx(sum(x["lost"] for x in w) / sum(x["total"] for x in w), rel=1e-12)
    r = build(tmp_path, s, metric="goodput", stat="summary")
    assert r.value == pytest.approx(whole["rate"], rel=1e-12) and r.value == 594 * 8192
    report = next(x for x in crows if x["report"])
    r = build(tmp_path, c, metric="loss")
    assert r.value == pytest.approx(report["lost"] / report["total"], rel=1e-12) and r.stat == "summary"
    r = build(tmp_path, c, metric="offered_rate", window_s=[0, 4])
    assert r.value == pytest.approx(mean(x["rate"] for x in intervals(crows)), rel=1e-12)
    # -b 6M of iperf 2 is 6 * 1024**2 bit/s: 768 KBytes/sec is 6.29 Mbit/s, not 6.0 or 0.768
    assert 6.2e6 < r.value < 6.35e6


def test_iperf3_kbits_half_second_intervals_and_window_edges(tmp_path):
    """-f k -i 0.5: 4865 Kbits/sec is 4.865e6 bit/s; a window from 1.25 s to 3.25 s holds the
    intervals 1.5-2.0, 2.0-2.5, 2.5-3.0 (those that straddle its edges are left out)."""
    s = QA / "iperf3_udp_fk_i05_server.txt"
    iv = intervals(lines(s))
    for metric in ("goodput", "loss"):
        r = build(tmp_path, s, metric=metric, window_s=[1.25, 3.25])
        w = inside(iv, 1.25, 3.25)
        assert [(x["t0"], x["t1"]) for x in w] == [(1.5, 2.0), (2.0, 2.5), (2.5, 3.0)] and r.n_samples == 3
        want = mean(x["rate"] for x in w) if metric == "goodput" else sum(x["lost"] for x in w) / sum(
            x["total"] for x in w)
        assert r.value == pytest.approx(want, rel=1e-12)
    c = QA / "iperf3_udp_fk_i05_client.txt"
    r = build(tmp_path, c, metric="offered_rate", window_s=[0, 4])
    assert r.value == pytest.approx(mean(x["rate"] for x in intervals(lines(c))), rel=1e-12) and r.n_samples == 8
