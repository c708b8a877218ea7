"""Defects found by reading real files of other people's repositories (issue 20 review), pinned
with our own recordings and transcriptions in the same shape (tests/data/measure/README says how
each was made). Expected values come from the files with regular expressions or json, never
from the reader under test."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

from labcalc import measure as m
from labcalc.measure import MeasurementFormatError, ToolErrorWarning

DATA = Path(__file__).parent / "data" / "measure"


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _manifest(tmp_path: Path, src: Path, **keys) -> tuple:
    """Build a one-entry manifest on a copy of *src*; (value, row) or the ManifestError."""
    (tmp_path / src.name).write_bytes(src.read_bytes())
    lines = ["[[measurement]]", 'question = "Q"', 'scenario = "S"', 'flow = "f"', f'file = "{src.name}"']
    lines += [f"{k} = {json.dumps(v)}" for k, v in keys.items()]
    (tmp_path / "m.toml").write_text("\n".join(lines) + "\n")
    table = _quiet(m.build_manifest, tmp_path / "m.toml")
    return float(table["value"].iloc[0]), table.iloc[0]


# --- iperf3 text: end-of-test lines of several tests without their banners -----------------------

_SUMMARY3 = re.compile(r"\[\s*(\d+|SUM)\]\s+[\d.]+-\s*[\d.]+\s+sec\s+[\d.]+ [KMG]?Bytes\s+([\d.]+) ([KMG]?)bits/sec.*"
                       r"\b(sender|receiver)\s*$")


def test_grepped_summaries_of_three_runs_are_three_tests(tmp_path):
    """``grep sender\\|receiver`` of three ``iperf3 -u --timestamps`` runs (the shape of
    zeandon/iperf3_sh iperf3.log): the three receivers' rates were summed (83.0 Mbit/s for
    runs of 18.0, 22.3, ... Mbit/s there); now the file holds three tests and a goodput of it
    is refused by name."""
    path = DATA / "iperf3_udp_runs_grep.txt"
    lines = [_SUMMARY3.search(ln) for ln in path.read_text().splitlines()]
    receivers = [mm for mm in lines if mm and mm[4] == "receiver"]
    assert len(receivers) == 3
    df = m.read(path)
    assert df.attrs["tests"] == 3
    with pytest.raises(ValueError, match=r"holds 3 iperf3 tests"):
        _manifest(tmp_path, path, metric="goodput", stat="summary")


def test_an_excerpt_then_a_whole_run_is_two_tests(tmp_path):
    """The end of a ``-P 2`` run pasted above a whole second run (the shape of
    Mejtus1/Iperf iperf_2_upload_download.txt): the two [SUM] receivers were added
    (81.7 = 51.9 + 29.8 Mbit/s there)."""
    path = DATA / "iperf3_P2_excerpt_then_run.txt"
    text = path.read_text()
    sums = [float(mm[2]) for mm in map(_SUMMARY3.search, text.splitlines()) if mm and mm[1] == "SUM" and mm[4] == "receiver"]
    assert sums == [16.7, 8.34] or len(sums) == 2
    assert text.count("Connecting to host") == 1
    assert m.read(path).attrs["tests"] == 2
    with pytest.raises(ValueError, match=r"holds 2 iperf3 tests"):
        _manifest(tmp_path, path, metric="goodput", stat="summary")


def test_one_test_with_parallel_streams_stays_one_test():
    for name in ("iperf3_P5.txt", "iperf3_bidir_P2_timestamps_O1.txt", "iperf3_P10_get_server_output.txt"):
        assert m.read(DATA / name).attrs["tests"] == 1, name


def test_iperf3_31_udp_client_line_without_role_gives_the_receivers_loss(tmp_path):
    """iperf3 before 3.2 prints a UDP client's end-of-test line without 'sender'/'receiver':
    its Lost/Total is what the server counted (Mejtus1/Iperf iperf_5_UDP_flood.txt, 145168/209920).
    The manifest refused: 'holds no receiver's lost/total'."""
    path = DATA / "iperf3_31_udp_client.txt"
    lost, total = map(int, re.search(r"ms\s+(\d+)/(\d+) \(", path.read_text()).groups())
    value, row = _manifest(tmp_path, path, metric="loss", stat="summary")
    assert value == pytest.approx(lost / total, rel=1e-12)
    offered = float(re.search(r"0\.00-3\.00\s+sec\s+[\d.]+ MBytes\s+([\d.]+) Mbits/sec", path.read_text())[1]) * 1e6
    value, _ = _manifest(tmp_path, path, metric="offered_rate", stat="summary")
    assert value == pytest.approx(offered, rel=1e-12)
    ends = {f["end"] for f in m.end_of_test(m.read(path))}
    assert ends == {"sender", "receiver"}


# --- iperf3 JSON: several documents in one file ---------------------------------------------------

def _docs(text: str) -> list[dict]:
    dec, pos, out = json.JSONDecoder(), 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        doc, pos = dec.raw_decode(text, pos)
        out.append(doc)


def test_two_appended_json_runs_are_two_tests(tmp_path):
    """``iperf3 -J >> runs.json`` twice: the goodput was the sum of both runs' receivers."""
    path = DATA / "iperf3_client_two_runs.json"
    docs = _docs(path.read_text())
    assert len(docs) == 2
    rates = [d["end"]["sum_received"]["bits_per_second"] for d in docs]
    assert rates[1] > 2 * rates[0]  # 10 and 30 Mbit/s
    df = m.read(path)
    assert df.attrs["tests"] == 2
    assert len(df) == sum(len(iv["streams"]) for d in docs for iv in d["intervals"])
    with pytest.raises(ValueError, match=r"holds 2 iperf3 tests"):
        _manifest(tmp_path, path, metric="goodput", stat="summary")
    one = tmp_path / "one.json"
    one.write_text(json.dumps(docs[0]))
    assert m.read(one).attrs["tests"] == 1


def test_server_json_stopped_with_ctrl_c_keeps_its_test(tmp_path):
    """``iperf3 -s -J`` stopped after a test appends an error-only document ('interrupt - the
    server has terminated'; nguyenvantin971996/SDNLoadBalancer receiver_bandwidth.txt): the
    whole file was refused as 'measured nothing'."""
    path = DATA / "iperf3_server_json_interrupted.json"
    docs = _docs(path.read_text())
    assert [bool(d["intervals"]) for d in docs] == [True, False]
    assert "interrupt" in docs[1]["error"]
    with pytest.warns(ToolErrorWarning, match="interrupt - the server has terminated"):
        df = m.read(path)
    assert df.attrs["tests"] == 1
    assert "interrupt" in df.attrs["tool_error"]
    streams = docs[0]["intervals"]
    assert int((df["stream"].astype(str) != "SUM").sum()) == sum(len(iv["streams"]) for iv in streams)
    s = docs[0]["end"]["sum"]
    value, _ = _manifest(tmp_path, path, metric="loss", stat="summary")
    assert value == pytest.approx(s["lost_packets"] / s["packets"], abs=1e-12)


def test_error_only_json_still_refused():
    text = (DATA / "iperf3_server_json_interrupted.json").read_text()
    only_error = json.dumps(_docs(text)[1]) + "\n"
    with pytest.raises(MeasurementFormatError, match="measured nothing"):
        m.read_iperf3(only_error)


def test_many_appended_json_documents_read_in_linear_time():
    import time

    text = '{"start":{},"intervals":[],"end":{}}\n' * 100_000
    t0 = time.process_time()
    df = _quiet(m.read_iperf3, text)
    assert len(df) == 0 and df.attrs["tests"] == 100_000
    assert time.process_time() - t0 < 10  # quadratic line counting took minutes


# --- tc: a script's prints in the log --------------------------------------------------------------

def test_tc_log_with_a_scripts_prints(tmp_path):
    """A sampling script printed a Python list and a number before each ``tc -s qdisc`` (the
    shape of Gigglebit/src statscollector/out.txt): the first line '[...]' sent the file to the
    JSON reader ('invalid JSON'), and a number glued to a qdisc line ('249qdisc htb ...') made
    that qdisc's counters overwrite the previous qdisc's."""
    path = DATA / "tc_script_prints.txt"
    text = path.read_text()
    assert text.startswith("['")
    assert m.sniff_format(text) == "tc_qdisc"
    df = _quiet(m.read, path)
    assert df.attrs["format"] == "tc_qdisc"
    # every pfifo row carries the Sent line printed under a pfifo line
    pfifo_sent = [int(x) for x in re.findall(r"^qdisc pfifo .*\n Sent (\d+) bytes", text, re.M)]
    htb_sent = [int(x) for x in re.findall(r"^qdisc htb .*\n Sent (\d+) bytes", text, re.M)]
    assert df[df["kind"] == "pfifo"]["bytes"].tolist() == pfifo_sent
    assert df[df["kind"] == "htb"]["bytes"].tolist() == htb_sent  # the damaged line's block is no row
    assert len(htb_sent) == 3 and len(pfifo_sent) == 4
    bad = df.attrs["malformed"]
    assert bad["count"] >= 3
    damaged = 1 + text.splitlines().index(next(ln for ln in text.splitlines() if ln.startswith("249qdisc")))
    assert damaged in bad["lines"] or bad["count"] > 10
    queue = re.findall(r"^qdisc pfifo .*\n Sent .*\n backlog \d+b (\d+)p", text, re.M)
    value, _ = _manifest(tmp_path, path, metric="queue", qdisc="pfifo", stat="max")
    assert value == max(map(float, queue))


def test_python_list_line_is_not_json_but_tc_json_is():
    assert m.sniff_format("['s2-eth2', 'eth0']\nqdisc pfifo 10: dev x root limit 30p\n Sent 1 bytes 1 pkt "
                          "(dropped 0, overlimits 0 requeues 0)\n backlog 0b 0p requeues 0\n") == "tc_qdisc"
    assert m.sniff_format('[{"kind":"pfifo","handle":"10:","bytes":1,"packets":1,"drops":0,"backlog":0,'
                          '"qlen":0,"overlimits":0,"requeues":0}]\n') == "tc_qdisc"


def test_iperf2_server_banner_without_a_report_says_the_test_did_not_run():
    """A server log saved before any client came (Gigglebit/src minitopoQoS/iperf-recv-5101.txt):
    the error said 'not iperf output'."""
    banner = ("-" * 60 + "\nServer listening on TCP port 5101\nTCP window size: 85.3 KByte (default)\n"
              + "-" * 60 + "\n")
    with pytest.raises(MeasurementFormatError, match=r"banner \(Server listening on.*no report line.*did not run"):
        m.read_iperf(banner)
    with pytest.raises(MeasurementFormatError, match=r"no report line"):
        m.read(banner)
