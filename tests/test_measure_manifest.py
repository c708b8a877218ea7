"""Measurement manifests (issue 10 items 1-3, 5, 7): raw files -> the tidy comparison table.

The worked example in data/measurements/lab5/raw/ was recorded by scripts/record_lab5_raw.sh.
Its numbers are checked against a hand reading of the same files: the iperf3 lines are
parsed here with a few lines of independent code (not labcalc's readers), the window is
the one a careful reader would pick (leave out the first, slow-start second), and the
literals below were read off the files by eye.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from labcalc.cli import main
from labcalc.compare import MeasurementError, load_measurements
from labcalc.measure.manifest import ManifestError, build_manifest, read_manifest, write_measurements

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "data" / "measurements" / "lab5" / "raw"

_LINE = re.compile(r"^\[\s*\d+\]\s+(\d+\.\d+)-(\d+\.\d+)\s+sec\s+[\d.]+ \w?Bytes\s+([\d.]+) ([KMG]?)bits/sec"
                   r"(?:\s+[\d.]+ ms\s+(\d+)/(\d+)\s+\([\d.]+%\))?(?:\s+\d+)?\s*(receiver|sender)?\s*$")
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


def hand_read(name):
    """Independent parse of an iperf3 printout: (intervals, end-of-test lines) as tuples."""
    intervals, totals = [], []
    for line in (RAW / name).read_text().splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        start, end, rate, prefix, lost, total, role = m.groups()
        row = (float(start), float(end), float(rate) * _PREFIX[prefix],
               int(lost) if lost else None, int(total) if total else None)
        (totals if role else intervals).append(row + (role,) if role else row)
    return intervals, totals


def hand_mean_rate(name, lo, hi):
    rows = [r for r in hand_read(name)[0] if r[0] >= lo and r[1] <= hi and r[1] - r[0] > 0.5]
    return sum(r[2] for r in rows) / len(rows)


def hand_loss(name, lo, hi):
    rows = [r for r in hand_read(name)[0] if r[0] >= lo and r[1] <= hi and r[1] - r[0] > 0.5]
    return sum(r[3] for r in rows) / sum(r[4] for r in rows)


@pytest.fixture(scope="module")
def table():
    return build_manifest(RAW / "manifest.toml")


def row(t, question, scenario, flow, metric):
    sel = t[(t.question == question) & (t.scenario == scenario) & (t.flow == flow) & (t.metric == metric)]
    assert len(sel) == 1
    return sel.iloc[0]


# (question, scenario, flow, metric, file, hand window [s], value read by eye, unit)
# Rates: mean of the receiver's (h3 server's) per-second Bitrate column in the window.
HAND_RATES = [
    ("Q1", "10 Mbit/s bottleneck", "h1_udp", "goodput", "q1_h3_server.txt", (0, 8), 1.0e6),  # every second 1000 Kbits/s
    ("Q2", "10 Mbit/s bottleneck", "h1_tcp", "goodput", "q2_h3_server.txt", (1, 8), 9.517e6),  # 9.34 .. 9.52 Mbits/s
    ("Q6", "4.5 Mbit/s offered", "h1_udp", "goodput", "q6_h3_server.txt", (0, 8), 4.5e6),  # every second 4.50 Mbits/s
    ("Q7", "10 Mbit/s offered", "h1_udp", "goodput", "q7_h3_server.txt", (1, 8), 4.7986e6),  # 4.79-4.80 Mbits/s
    ("Q10", "5 Mbit/s bottleneck", "h1_tcp", "goodput", "q10_h3_server.txt", (1, 8), 4.7486e6),  # 4.74 .. 4.77
    ("Q14", "A1", "h1_udp", "goodput", "a1_h1_server.txt", (0, 8), 1.0e6),  # 1000 Kbits/s or 1.00 Mbits/s
    ("Q14", "A1", "h2_udp", "goodput", "a1_h2_server.txt", (0, 8), 0.5e6),  # 504 and 496 Kbits/s in turn
    ("Q14", "A2", "h1_udp", "goodput", "a2_h1_server.txt", (2, 8), 0.99733e6),  # 992, 992, 1000 x4 Kbits/s
    ("Q14", "A2", "h2_udp", "goodput", "a2_h2_server.txt", (2, 8), 3.7967e6),  # 3.80 3.79 3.79 3.80 3.80 3.80
    ("Q14", "A3", "h1_udp", "goodput", "a3_h1_server.txt", (1, 8), 0.26171e6),  # 256 256 264 272 264 256 264 Kbits/s
    ("Q14", "A3", "h2_udp", "goodput", "a3_h2_server.txt", (1, 8), 4.5371e6),  # 4.53-4.54 Mbits/s
    # B1, B3: the manifest gives window_s = [5, 8] (the TCP connection settles after ~5 s)
    ("Q18", "B1", "h1_udp", "goodput", "b1_h1_server.txt", (5, 8), 1.0333e6),  # 1.06 1.04 1.00 Mbits/s
    ("Q18", "B1", "h2_udp", "goodput", "b1_h2_udp_server.txt", (5, 8), 0.51467e6),  # 528 520 496 Kbits/s
    ("Q18", "B1", "h2_tcp", "goodput", "b1_h2_tcp_server.txt", (5, 8), 3.2333e6),  # 3.27 3.14 3.29 Mbits/s
    ("Q18", "B2", "h1_udp", "goodput", "b2_h1_server.txt", (4, 8), 0.662e6),  # 560 672 656 760 Kbits/s (TCP settled)
    ("Q18", "B2", "h2_udp", "goodput", "b2_h2_udp_server.txt", (4, 8), 2.47e6),  # 2.06 2.60 2.30 2.92 Mbits/s
    ("Q18", "B3", "h1_udp", "goodput", "b3_h1_server.txt", (5, 8), 0.496e6),  # 544 480 464 Kbits/s
    ("Q18", "B3", "h2_udp", "goodput", "b3_h2_udp_server.txt", (5, 8), 4.12e6),  # 4.18 4.23 3.95 Mbits/s
]


@pytest.mark.parametrize("q, scen, flow, metric, name, window, by_eye", HAND_RATES)
def test_goodput_matches_a_hand_reading(table, q, scen, flow, metric, name, window, by_eye):
    r = row(table, q, scen, flow, metric)
    by_code = hand_mean_rate(name, *window)
    assert by_code == pytest.approx(by_eye, rel=1e-3)  # the eye and the independent parse agree
    assert r.value == pytest.approx(by_code, rel=0.01)  # the 1 % criterion
    assert r.unit == "bit/s" and r.side == "receiver" and r.reader == "iperf3"
    # provenance: the row's own window reproduces its value exactly
    lo, hi = (float(x) for x in r.window_s.split("-"))
    assert r.value == pytest.approx(hand_mean_rate(name, lo, hi), rel=1e-9)
    if r.window_from == "manifest":
        assert r.window_s == f"{window[0]}-{window[1]}" and "window_s" not in r.defaults.split()
    else:
        assert r.window_from.startswith("steady_state") and "window_s" in r.defaults.split()
    assert r.n_samples >= 3


def test_losses_and_summaries_match_a_hand_reading(table):
    # Q7: the loss comes from the *client's* printout, whose intervals count no losses: its
    # receiver line 5148/9997 (whole test), and the row says so
    r = row(table, "Q7", "10 Mbit/s offered", "h1_udp", "loss")
    assert r.value == pytest.approx(5148 / 9997, rel=1e-9) and r.stat == "summary"
    assert "whole test" in r.window_from and r.window_s == ""
    _, totals = hand_read("q7_h1_udp_client.txt")
    assert [t[3:] for t in totals if t[5] == "receiver"] == [(5148, 9997, "receiver")]
    # a loss from the server's printout is lost/total inside the window of the flow's goodput
    # (issue 19 item 3), summed by hand from the same lines
    for q, scen, flow, name in (("Q1", "10 Mbit/s bottleneck", "h1_udp", "q1_h3_server.txt"),
                                ("Q14", "A2", "h1_udp", "a2_h1_server.txt"),
                                ("Q14", "A3", "h1_udp", "a3_h1_server.txt"),
                                ("Q14", "A3", "h2_udp", "a3_h2_server.txt"),
                                ("Q18", "B2", "h2_udp", "b2_h2_udp_server.txt"),
                                ("Q18", "B3", "h2_udp", "b3_h2_udp_server.txt")):
        good, loss = row(table, q, scen, flow, "goodput"), row(table, q, scen, flow, "loss")
        assert loss.window_s == good.window_s and loss.source == good.source == name
        assert "the window of the goodput row" in loss.window_from and "window_s" in loss.defaults.split()
        lo, hi = (float(x) for x in good.window_s.split("-"))
        assert loss.value == pytest.approx(hand_loss(name, lo, hi), rel=1e-12)
        assert loss.stat == "mean" and loss.n_samples == good.n_samples
    # by eye, a3_h1_server.txt 2-8 s: (92+91+94+92+92+91) / (124+124+128+125+124+124) = 552/749,
    # where the whole test's receiver line says 724/998 (the first, slower second included)
    assert row(table, "Q14", "A3", "h1_udp", "loss").value == pytest.approx(552 / 749, rel=1e-12)
    # B2 h2 udp, goodput window 4-8 s: 0.445 inside it, 2401/4000 = 0.600 over the whole test
    assert row(table, "Q18", "B2", "h2_udp", "loss").value == pytest.approx(hand_loss("b2_h2_udp_server.txt", 4, 8))
    for key in (("Q14", "A1", "h1_udp"), ("Q14", "A1", "h2_udp"), ("Q6", "4.5 Mbit/s offered", "h1_udp")):
        assert row(table, *key, "loss").value == 0.0
    # a window given in the manifest: 2-8 s of a2_h2_server.txt, lost/total summed:
    # (24+26+25+25+26+25) / (499+500+499+500+501+500) = 151/2999
    r = row(table, "Q14", "A2", "h2_udp", "loss")
    assert r.value == pytest.approx(151 / 2999, rel=1e-9)
    assert r.value == pytest.approx(hand_loss("a2_h2_server.txt", 2, 8), rel=1e-9)
    assert (r.window_s, r.window_from, r.n_samples, r.stat) == ("2-8", "manifest", 6, "mean")
    assert "window_s" not in r.defaults.split()
    # TCP goodput from the receiver line of the client's printout: "2.76 Mbits/sec receiver"
    r = row(table, "Q18", "B2", "h2_tcp", "goodput")
    assert r.value == pytest.approx(2.76e6, rel=1e-9) and r.window_from == "receiver's end-of-test line"
    # ping's statistics line: rtt min/avg/max/mdev = 0.025/158.091/512.649/132.054 ms
    r = row(table, "Q18", "B2", "h2_tcp", "rtt")
    assert r.value == pytest.approx(0.158091, rel=1e-9) and r.unit == "s" and r.reader == "ping"
    # B3: "2.30 Mbits/sec receiver" and ping's avg 271.344 ms
    assert row(table, "Q18", "B3", "h2_tcp", "goodput").value == pytest.approx(2.30e6, rel=1e-9)
    assert row(table, "Q18", "B3", "h2_tcp", "rtt").value == pytest.approx(0.271344, rel=1e-9)


def test_offered_rates_match_a_hand_reading_of_the_client_printouts(table):
    """Issue 19 item 4: the UDP client's per-second rates (the sender's) are the offered rate."""
    for q, scen, name, by_eye in (("Q1", "10 Mbit/s bottleneck", "q1_h1_udp_client.txt", 1.0e6),
                                  ("Q6", "4.5 Mbit/s offered", "q6_h1_udp_client.txt", 4.5e6),
                                  ("Q7", "10 Mbit/s offered", "q7_h1_udp_client.txt", 10.0e6)):
        r = row(table, q, scen, "h1_udp", "offered_rate")
        lo, hi = (float(x) for x in r.window_s.split("-"))
        assert r.value == pytest.approx(hand_mean_rate(name, lo, hi), rel=1e-12)
        assert r.value == pytest.approx(by_eye, rel=0.002)  # 9.99 / 10.0 Mbits/sec every second
        assert (r.unit, r.side, r.source, r.reader) == ("bit/s", "sender", name, "iperf3")


def test_committed_csv_is_what_the_manifest_builds(table, tmp_path):
    out = tmp_path / "m.csv"
    assert main(["measurements", "build", str(RAW), "-o", str(out)]) == 0
    assert out.read_text() == (RAW / "measured.csv").read_text()
    assert not re.search(r"\.\d*(?:0{6,}|9{6,})\d", out.read_text())  # no float noise (0.23600000000000002)


def test_manifest_folder_and_csv_load_the_same(table):
    by_manifest = load_measurements(RAW / "manifest.toml")
    by_folder = load_measurements(str(RAW))
    by_csv = load_measurements(RAW / "measured.csv")
    for m in (by_folder, by_csv):
        assert list(m.value_base) == pytest.approx(list(by_manifest.value_base), rel=1e-9)
    assert len(by_manifest) == len(table) == 36
    loss = by_manifest[(by_manifest.question == "Q7") & (by_manifest.metric == "loss")]
    assert loss.base_unit.iloc[0] == "1" and 0.5 < loss.value_base.iloc[0] < 0.53
    assert {"source", "window_s", "n_samples", "stat", "side", "reader"} <= set(by_manifest.columns)


def test_several_files_combined_and_a_convert_output(tmp_path):
    for name in ("a2_h1_server.txt", "a2_h2_server.txt", "q7_h3_server.txt"):
        shutil.copy(RAW / name, tmp_path / name)
    assert main(["convert", str(tmp_path / "q7_h3_server.txt"), "-o", str(tmp_path / "q7.csv")]) == 0
    (tmp_path / "m.toml").write_text(
        '[[measurement]]\nquestion="Q14"\nscenario="A2"\nflow="all_udp"\nmetric="goodput"\n'
        'files=["a2_h1_server.txt","a2_h2_server.txt"]\ncombine="sum"\nwindow_s=[2,8]\n'
        '[[measurement]]\nquestion="Q7"\nscenario="10M"\nflow="h1_udp"\nmetric="goodput"\nfile="q7.csv"\nwindow_s=[1,8]\n')
    t = build_manifest(tmp_path / "m.toml")
    total = hand_mean_rate("a2_h1_server.txt", 2, 8) + hand_mean_rate("a2_h2_server.txt", 2, 8)
    assert t.value[0] == pytest.approx(total, rel=1e-9) and t["combine"][0] == "sum"
    assert t.source[0] == "a2_h1_server.txt;a2_h2_server.txt" and t.n_samples[0] == 12
    assert t.value[1] == pytest.approx(hand_mean_rate("q7_h3_server.txt", 1, 8), rel=1e-9)
    # labcalc's own file: its header says which reader's samples it holds
    assert t.reader[1] == "iperf3"


def _manifest(tmp_path, body, files=("q1_h3_server.txt", "q2_h3_server.txt", "q7_h1_udp_client.txt",
                                     "q2_h1_tcp_client.txt")):
    for name in files:
        shutil.copy(RAW / name, tmp_path / name)
    path = tmp_path / "bad.toml"
    path.write_text(body)
    return path


HEAD = 'question="Q1"\nscenario="S"\nflow="f"\n'
BAD = [
    ("missing file", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="nope.txt"\n', ["#1", "'file'", "nope.txt", "not found"]),
    ("loss from TCP", f'[[measurement]]\n{HEAD}metric="loss"\nfile="q2_h3_server.txt"\n',
     ["#1", "'metric'", "'loss'", "TCP"]),
    ("cwnd from UDP", f'[[measurement]]\n{HEAD}metric="cwnd"\nfile="q7_h1_udp_client.txt"\n',
     ["#1", "'metric'", "'cwnd'", "no cwnd"]),
    ("window outside", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q1_h3_server.txt"\nwindow_s=[20, 30]\n',
     ["#1", "'window_s'", "[20, 30]", "outside the file's time range 0-8"]),
    ("window too short", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q1_h3_server.txt"\nwindow_s=[2, 4]\n',
     ["#1", "'window_s'", "[2, 4]", "only 2 sample(s)"]),
    ("same key twice", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q1_h3_server.txt"\n'
                       f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q2_h3_server.txt"\n',
     ["#2", "Q1/S/f/goodput", "entry #1"]),
    ("unknown key", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q1_h3_server.txt"\nwindow=[1,2]\n',
     ["#1", "'window'", "unknown key"]),
    ("wrong type", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q1_h3_server.txt"\nwindow_s="2-8"\n',
     ["#1", "'window_s'", "'2-8'", "an array"]),
    ("wrong kind of file", f'[[measurement]]\n{HEAD}metric="rtt"\nfile="q1_h3_server.txt"\n',
     ["#1", "'metric'", "'rtt'", "rtt_s"]),
    ("sender's intervals", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q7_h1_udp_client.txt"\n',
     ["#1", "'side'", "'receiver'", "measured by the sender", "stat = \"summary\""]),
    ("unknown stat", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q1_h3_server.txt"\nstat="average"\n',
     ["#1", "'stat'", "'average'", "median"]),
    # mss_bytes converts a window in bytes; anywhere else it would be a silent no-op or a mistake
    ("mss_bytes on goodput", f'[[measurement]]\n{HEAD}metric="goodput"\nfile="q1_h3_server.txt"\nmss_bytes=1448\n',
     ["#1", "'mss_bytes'", "1448", "metric = \"cwnd\" only"]),
    ("mss_bytes zero", f'[[measurement]]\n{HEAD}metric="cwnd"\nfile="q2_h1_tcp_client.txt"\nmss_bytes=0\n',
     ["#1", "'mss_bytes'", "= 0", "segment size in bytes"]),
    ("mss_bytes as text", f'[[measurement]]\n{HEAD}metric="cwnd"\nfile="q2_h1_tcp_client.txt"\nmss_bytes="1448"\n',
     ["#1", "'mss_bytes'", "'1448'", "a whole number"]),
    ("mss_bytes as bool", f'[[measurement]]\n{HEAD}metric="cwnd"\nfile="q2_h1_tcp_client.txt"\nmss_bytes=true\n',
     ["#1", "'mss_bytes'", "True", "a whole number"]),
]


@pytest.mark.parametrize("what, body, words", BAD, ids=[b[0] for b in BAD])
def test_bad_manifests_are_refused_with_the_entry_key_and_value(tmp_path, what, body, words):
    path = _manifest(tmp_path, body)
    with pytest.raises(ManifestError) as info:
        build_manifest(path)
    msg = str(info.value)
    assert msg.startswith(str(path)), msg
    for word in words:
        assert word in msg, (word, msg)
    assert "\n" not in msg
    # through the loader the same message arrives as a MeasurementError (a ValueError)
    with pytest.raises(MeasurementError, match=re.escape(words[0])):
        load_measurements(path)


def test_every_default_is_named(table):
    import tomllib

    written = tomllib.loads((RAW / "manifest.toml").read_text())["measurement"]
    assert len(written) == len(table)
    for raw, r in zip(written, table.itertuples()):
        assert (raw["question"], raw["metric"]) == (r.question, r.metric)
        named = set(r.defaults.split())
        # a key is listed as defaulted exactly when the manifest left it out (side only where
        # it applies: goodput, loss, offered_rate)
        for key in ("stat", "format"):
            assert (key in named) == (key not in raw), (raw, r.defaults)
        assert ("side" in named) == ("side" not in raw and r.metric in ("goodput", "loss", "offered_rate"))
        assert ("window_s" in named) == ("window_s" not in raw and raw.get("stat") != "summary")


def test_cli_build_error_is_one_line(tmp_path, capsys):
    path = _manifest(tmp_path, f'[[measurement]]\n{HEAD}metric="goodput"\nfile="nope.txt"\n')
    assert main(["measurements", "build", str(path), "-o", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "nope.txt" in err


def test_convert_says_what_it_skipped_in_words_and_writes_no_float_noise(tmp_path, capsys):
    src = tmp_path / "ping.txt"
    src.write_text("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
                   "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.236 ms\n"
                   "something the cat typed\n"
                   "64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=4.04 ms\n")
    out = tmp_path / "ping.csv"
    assert main(["convert", str(src), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "skipped 1 line(s)" in captured.err and "(line 3)" in captured.err
    assert "attrs" not in captured.err and "warn" not in captured.err
    text = out.read_text()
    assert ",0.000236," in text and ",0.00404," in text and "00000000" not in text
    assert "not a measurement table" in captured.out
    assert main(["convert", str(tmp_path / "missing.txt"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_write_measurements_shortest_form(tmp_path):
    import pandas as pd

    path = tmp_path / "x.csv"
    write_measurements(pd.DataFrame({"value": [0.1 + 0.136, 4798333.333333333, 1e6]}), path)
    assert path.read_text().split("\n")[2:] == ["value", "0.236", "4798333.33333", "1000000", ""]
    assert path.read_text().startswith("# labcalc measurements v1\n# attrs: {}\n")


@pytest.mark.parametrize("name", ["01-framing-and-goodput", "02-udp-competition"])
def test_notebooks_run_with_the_manifest(name, tmp_path):
    pytest.importorskip("nbclient")
    from tests.test_notebooks import run_with_measurements

    nb = run_with_measurements(name, RAW / "manifest.toml", tmp_path)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "Traceback" not in text


# --- [[table]]: a manifest carries tidy rows measured already ------------------------------

def test_table_entry_carries_a_tidy_csv_and_joins_built_rows(tmp_path):
    shutil.copy(RAW / "q1_h3_server.txt", tmp_path / "q1_h3_server.txt")
    part2 = RAW.parent / "part2.csv"
    (tmp_path / "m.toml").write_text(
        f'[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="h1"\nmetric="goodput"\nfile="q1_h3_server.txt"\n'
        f'[[table]]\nfile = "{part2.as_posix()}"\n')
    with pytest.raises(ManifestError, match="outside the manifest's folder"):
        build_manifest(tmp_path / "m.toml")  # part2.csv is not below the manifest's folder
    t = build_manifest(tmp_path / "m.toml", allow_outside=True)
    by_csv = load_measurements(part2)
    assert len(t) == 1 + len(by_csv)
    assert t.reader[0] == "iperf3" and set(t.reader[1:]) == {"table"} and set(t.source[1:]) == {"part2.csv"}
    assert t.attrs["origin"][0] is None and t.attrs["origin"][1] == ("part2.csv", 2)
    shutil.copy(part2, tmp_path / "part2.csv")
    (tmp_path / "m.toml").write_text((tmp_path / "m.toml").read_text().replace(part2.as_posix(), "part2.csv"))
    m = load_measurements(tmp_path / "m.toml")
    assert m.value_base.iloc[0] == pytest.approx(1e6, rel=0.01)
    assert list(m.value_base.iloc[1:]) == pytest.approx(list(by_csv.value_base), rel=1e-12)
    assert list(m.question.iloc[1:]) == list(by_csv.question)


def test_table_row_error_names_the_line_of_the_table(tmp_path):
    (tmp_path / "mine.csv").write_text("question,scenario,flow,metric,value,unit\nQ7,5M,h1,goodput,4.79,Mbit/s\n"
                                       "\nQ7,5M,h1,rtt,60,Ms\n")
    (tmp_path / "m.toml").write_text('[[table]]\nfile = "mine.csv"\n')
    with pytest.raises(MeasurementError) as info:
        load_measurements(tmp_path)
    msg = str(info.value)
    assert "m.toml, row 3" in msg and "'Ms'" in msg and "line 4 of mine.csv" in msg, msg


@pytest.mark.parametrize("body, words", [
    ('[[table]]\nfile = "gone.csv"\n', ["table #1", "'file'", "gone.csv", "not found"]),
    ('[[table]]\nfile = "mine.csv"\nmetric = "rtt"\n', ["table #1", "'metric'", "unknown key"]),
    ('[[table]]\nfile = "raw.csv"\n', ["table #1", "raw.csv", "no column 'question'", "[[measurement]]"]),
    ('[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="f"\nmetric="goodput"\nfile="mine.csv"\n',
     ["#1", "'file'", "mine.csv", "[[table]]"]),
])
def test_bad_table_entries_are_refused(tmp_path, body, words):
    (tmp_path / "mine.csv").write_text("question,scenario,flow,metric,value,unit\nQ7,5M,h1,goodput,4.79,Mbit/s\n")
    (tmp_path / "raw.csv").write_text("time_s,rtt_s\n0,0.1\n")
    (tmp_path / "m.toml").write_text(body)
    with pytest.raises(ManifestError) as info:
        build_manifest(tmp_path / "m.toml")
    for word in words:
        assert word in str(info.value), (word, str(info.value))


# --- connection: one connection of a file holding several ---------------------------------

SS_TWO = Path(__file__).resolve().parent.parent / "data" / "measurements" / "recorded" / "ss_tin.txt"


@pytest.mark.parametrize("connection", ["10.99.1.1:47414", ":47414"])
def test_connection_picks_one_socket_of_an_ss_file(tmp_path, connection):
    from labcalc import measure

    shutil.copy(SS_TWO, tmp_path / "ss.txt")
    (tmp_path / "m.toml").write_text(
        f'[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="h1"\nmetric="cwnd"\nfile="ss.txt"\n'
        f'window_s=[0, 1000]\nconnection="{connection}"\n'
        f'[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="both"\nmetric="cwnd"\nfile="ss.txt"\nwindow_s=[0, 1000]\n')
    df = measure.read(SS_TWO)
    mine = df[df.src.astype(str) == "10.99.1.1:47414"]
    data = df[df.src.astype(str) == "10.99.1.1:47422"]
    t = build_manifest(tmp_path / "m.toml")
    assert t.n_samples[0] == len(mine) == 15
    assert t.value[0] == pytest.approx(float(mine.cwnd_segments.mean()), rel=1e-12)
    # without the key, the file's two sockets (iperf3's control connection, 186 bytes, and its
    # data connection) are not averaged: the one that carried the data is taken, and said so
    assert t.n_samples[1] == len(data) == 15
    assert t.value[1] == pytest.approx(float(data.cwnd_segments.mean()), rel=1e-12)
    assert "connection" in t.defaults[1].split() and "connection" not in t.defaults[0].split()
    assert "labcalc: connection 10.99.1.1:47422 <-> 10.99.2.2:5201" in t.note[1] and "carried the data" in t.note[1]


@pytest.mark.parametrize("extra, words", [
    ('connection=":9999"\n', ["#1", "'connection'", "':9999'", "no sample",
                                "10.99.1.1:47414 <-> 10.99.2.2:5201 (186 bytes carried)"]),
    ('connection=":5201"\nstat="summary"\n', ["#1", "'connection'", "end-of-test line"]),
])
def test_connection_that_matches_nothing_names_the_entry(tmp_path, extra, words):
    shutil.copy(SS_TWO, tmp_path / "ss.txt")
    (tmp_path / "m.toml").write_text(
        f'[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="h1"\nmetric="cwnd"\nfile="ss.txt"\n{extra}')
    with pytest.raises(ManifestError) as info:
        build_manifest(tmp_path / "m.toml")
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_connection_in_a_tcp_probe_file_matches_either_end(tmp_path):
    """proc11: 3 samples 10.0.0.1:40100 -> 10.0.0.2:5001, 1 the other way, 1 of 127.0.0.1.

    A connection is matched at either end; of its two sockets, the one that sent the data
    is kept (its snd_una advances: 439037952, 439041101, ...; the other socket logged one
    sample), so the cwnd is the sender's, not the receiver's mixed in."""
    from labcalc import measure

    src = Path(__file__).resolve().parent / "data" / "measure" / "tcpprobe_proc11.txt"
    shutil.copy(src, tmp_path / "probe.txt")
    body = ""
    for flow, connection in (("by_port", ":40100"), ("by_address", "10.0.0.2"), ("by_endpoint", "10.0.0.2:5001")):
        body += (f'[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="{flow}"\nmetric="cwnd"\nfile="probe.txt"\n'
                 f'window_s=[0, 1000]\nconnection="{connection}"\n')
    (tmp_path / "m.toml").write_text(body)
    t = build_manifest(tmp_path / "m.toml")
    df = measure.read(src)
    mine = df[df.src.astype(str) == "10.0.0.1:40100"]
    assert list(t.n_samples) == [3, 3, 3]
    assert list(t.value) == pytest.approx([float(mine.cwnd_segments.mean())] * 3, rel=1e-12)
    assert all("the data sender's samples (src 10.0.0.1:40100)" in n for n in t.note)



# --- cwnd in bytes (ns-3 traces, iperf3's Cwnd) or in segments (ss, tcp_probe) -------------

def _sim_cwnd_folder(tmp_path):
    """A cwnd trace written by labcalc.sim's SimResult.write (no ns-3 needed to write one)."""
    import numpy as np
    import pandas as pd

    from labcalc.sim import SimResult

    t = np.arange(0.0, 10.0, 0.1)
    cwnd = pd.DataFrame({"flow": "h1_tcp", "time_s": t, "cwnd_bytes": (1448 * (10 + np.floor(t * 3))).astype(np.int64),
                         "ssthresh_bytes": np.nan})
    empty = pd.DataFrame(columns=["flow", "link"])
    summary = pd.DataFrame({"transport": ["tcp"]}, index=pd.Index(["h1_tcp"], name="flow"))
    SimResult(empty, cwnd, empty, empty, summary).write(tmp_path)
    return cwnd


def test_cwnd_in_bytes_keeps_its_unit_or_is_counted_in_segments(tmp_path):
    from labcalc import measure

    cwnd = _sim_cwnd_folder(tmp_path)
    shutil.copy(RAW / "q2_h1_tcp_client.txt", tmp_path / "iperf.txt")
    (tmp_path / "m.toml").write_text(
        '[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="ns3"\nmetric="cwnd"\nfile="h1_tcp-cwnd.data"\n'
        'window_s=[5, 10]\n'
        '[[measurement]]\nquestion="Q2"\nscenario="S"\nflow="ns3"\nmetric="cwnd"\nfile="h1_tcp-cwnd.data"\n'
        'window_s=[5, 10]\nmss_bytes=1448\n'
        '[[measurement]]\nquestion="Q3"\nscenario="S"\nflow="iperf3"\nmetric="cwnd"\nfile="iperf.txt"\n'
        'window_s=[1, 8]\n'
        '[[measurement]]\nquestion="Q4"\nscenario="S"\nflow="iperf3"\nmetric="cwnd"\nfile="iperf.txt"\n'
        'window_s=[1, 8]\nmss_bytes=1448\n')
    t = build_manifest(tmp_path / "m.toml")
    # the ns-3 trace holds one line per change: the mean of the changes inside the window
    changes = cwnd[cwnd.cwnd_bytes.diff().fillna(1) != 0]
    want = float(changes[changes.time_s >= 5].cwnd_bytes.mean())
    assert list(t.unit) == ["bytes", "segments", "bytes", "segments"]
    assert t.value[0] == pytest.approx(want, rel=1e-12) and t.reader[0] == "ns3"
    assert t.value[1] == pytest.approx(want / 1448, rel=1e-12)
    iperf = measure.read(tmp_path / "iperf.txt")
    rows = iperf[(iperf.start_s >= 1) & (iperf.end_s <= 8) & (iperf.end_s - iperf.start_s > 0.5)]
    assert t.value[2] == pytest.approx(float(rows.cwnd_bytes.mean()), rel=1e-12) and t.value[2] > 10_000
    assert t.value[3] == pytest.approx(t.value[2] / 1448, rel=1e-12)
    # the comparison tables read the units back: bytes as a size in bytes, segments as packets
    m = load_measurements(tmp_path / "m.toml")
    assert list(m.base_unit) == ["byte", "packet", "byte", "packet"]


def test_cwnd_units_that_do_not_fit_are_refused(tmp_path):
    _sim_cwnd_folder(tmp_path)
    shutil.copy(SS_TWO, tmp_path / "ss.txt")
    (tmp_path / "m.toml").write_text(
        '[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="h1"\nmetric="cwnd"\nfile="ss.txt"\nmss_bytes=1448\n')
    with pytest.raises(ManifestError) as info:
        build_manifest(tmp_path / "m.toml")
    for word in (str(tmp_path / "m.toml"), "#1", "'mss_bytes'", "1448", "ss.txt", "in segments already"):
        assert word in str(info.value), (word, str(info.value))
    (tmp_path / "m.toml").write_text(
        '[[measurement]]\nquestion="Q1"\nscenario="S"\nflow="h1"\nmetric="cwnd"\n'
        'files=["ss.txt", "h1_tcp-cwnd.data"]\ncombine="mean"\n')
    with pytest.raises(ManifestError) as info:
        build_manifest(tmp_path / "m.toml")
    for word in ("#1", "'files'", "different units", "segments: ss.txt", "bytes: h1_tcp-cwnd.data"):
        assert word in str(info.value), (word, str(info.value))
