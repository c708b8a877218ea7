"""Every reader against real files of other people's public repositories in ../qa-samples (local check).

The files have no licence, so they are not part of the project: they sit beside the repository
(``<checkout>/../qa-samples``, with a SOURCES.md naming repository, path and commit). The tests
are skipped, with the reason, when that folder is absent. Expected values are computed from the
files with regular expressions or json, never with the reader under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labcalc import measure as m
from labcalc.measure import MeasurementFormatError
from tests.manifest_cells import build, quiet

_HERE = Path(__file__).resolve()
_CANDIDATES = [_HERE.parents[2] / "qa-samples", _HERE.parents[3] / "qa-samples"]
SAMPLES = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])
pytestmark = pytest.mark.skipif(
    not SAMPLES.is_dir(), reason=f"real-world samples not found at {SAMPLES} (expected beside the repository)")

#: every file and the format it must be read as ("error": a clear MeasurementFormatError)
EXPECTED = {
    "DebarghaNath__CN_LAB_PROJECT/cwnd.txt": "error",  # a script's own print '2.5s<TAB>CWnd: 64476 KB'
    "FotiosBistas__Wireless-Networks-Second-Exercise-Set-Master/iperf_output.txt": "iperf3",
    "Gigglebit__src/iperf.txt": "iperf",
    "Gigglebit__src/minitopoQoS/iperf-5001.txt": "iperf3",
    "Gigglebit__src/minitopoQoS/iperf-recv-5001.txt": "iperf3",
    "Gigglebit__src/minitopoQoS/iperf-recv-5101.txt": "error",  # the server's banner, no connection
    "Gigglebit__src/minitopoQoS/iperf-recv_UDP.txt": "iperf",
    "Gigglebit__src/statscollector/1.txt": "tc_qdisc",
    "Gigglebit__src/statscollector/out.txt": "tc_qdisc",
    "K9A2__PythonDataAnalysis/LabRecord/result/true_topo/dc1_to_lan/test_0/round_0/bbr.log": "iperf3",
    "K9A2__PythonDataAnalysis/LabRecord/result/true_topo/dc1_to_lan/test_0/round_1/vegas.log": "iperf3",
    "Mejtus1__Iperf/iperf.txt": "iperf3",
    "Mejtus1__Iperf/iperf_2_upload_download.txt": "iperf3",
    "Mejtus1__Iperf/iperf_3_jitter.txt": "iperf3",
    "Mejtus1__Iperf/iperf_4_TCP_bandwidth.txt": "iperf3",
    "Mejtus1__Iperf/iperf_5_UDP_flood.txt": "iperf3",
    "UCaTiK__aqm-mininet/droptail_raw_cwnd.txt": "iperf3",
    "UCaTiK__aqm-mininet/red_raw_cwnd.txt": "iperf3",
    "UnicoCN__Bufferbloat/bbr100/ping.txt": "ping",
    "UnicoCN__Bufferbloat/ping_output.txt": "ping",
    "abelite-fang__router-lab1/bb-q100/iperf.txt": "iperf",
    "abelite-fang__router-lab1/bb-q100/ping.txt": "ping",
    "adithn04__computer_networks/iperf_output.txt": "iperf3",
    "amhunt__bufferbloat/pingoutput.txt": "ping",
    "christina-apt__tradeshow-demo/iperf3.log": "error",  # cmd.exe: 'ip' is not recognized ...
    "jmhen__congestion-control/exp1_tcpprobe.txt": "tcp_probe",
    "jmhen__congestion-control/iperf-recv.txt": "iperf",
    "jmhen__congestion-control/iperf.txt": "iperf",
    "loadthecode0__software-defined-networks/iperf_output.txt": "iperf",
    "loadthecode0__software-defined-networks/part4/h1_iperf.log": "iperf",
    "loadthecode0__software-defined-networks/part4/h2_iperf.log": "iperf",
    "marcos-j-ferreira__gr-fico-iperf3-/iperf3.txt": "iperf3",
    "maxnvdm__NetworkCongestion/bbr-q100/cwnd.txt": "tcp_probe",
    "maxnvdm__NetworkCongestion/bbr-q100/ping.txt": "ping",
    "maxnvdm__NetworkCongestion/bbr-q100/q.txt": "qlen",
    "nguyenvantin971996__SDNLoadBalancer/Throughput_loss_jitter/receiver_bandwidth.json": "iperf3",
    "nguyenvantin971996__SDNLoadBalancer/Throughput_loss_jitter/receiver_bandwidth.txt": "iperf3",
    "nguyenvantin971996__SDNLoadBalancer/Throughput_loss_jitter/sender_bandwidth.json": "iperf3",
    "sigusr1__parse-iperf-result/iperf1.txt": "iperf",
    "takahiro33__energyConsumption/seventh-packet-byte-count.dat": "ns3",
    "takahiro33__energyConsumption/seventh.cwnd": "ns3",
    "zeandon__iperf3_sh/iperf3.log": "iperf3",
}
PRESENT = sorted(k for k in EXPECTED if (SAMPLES / k).is_file())


def _value(tmp_path: Path, rel: str, **keys) -> float:
    """The value of a one-entry manifest over the sample *rel* with *keys*."""
    return float(quiet(build, tmp_path, SAMPLES / rel, **keys).value)


def test_samples_present():
    assert len(PRESENT) == len(EXPECTED), sorted(set(EXPECTED) - set(PRESENT))


@pytest.mark.parametrize("rel", PRESENT)
def test_every_sample_is_read_or_clearly_refused(rel, tmp_path):
    path = SAMPLES / rel
    want = EXPECTED[rel]
    if want == "error":
        with pytest.raises(MeasurementFormatError) as info:
            quiet(m.read, path)
        assert path.name in str(info.value) and "line " in str(info.value)
        return
    df = quiet(m.read, path)
    assert df.attrs["format"] == want
    out = tmp_path / "out.csv"
    quiet(m.convert, path, out)
    assert out.stat().st_size > 0


_R3 = re.compile(r"\[\s*(\d+|SUM)\]\s+[\d.]+-\s*[\d.]+\s+sec\s+[\d.]+ [KMGT]?Bytes\s+([\d.]+) ([KMG]?)bits/sec(.*)$")
_UNIT = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}


def _last_receiver(text: str) -> float:
    rows = [mm for mm in map(_R3.search, text.splitlines()) if mm and mm[4].strip().endswith("receiver")]
    sums = [r for r in rows if r[1] == "SUM"] or rows
    return float(sums[-1][2]) * _UNIT[sums[-1][3]]


@pytest.mark.parametrize("rel", [
    "FotiosBistas__Wireless-Networks-Second-Exercise-Set-Master/iperf_output.txt",
    "Gigglebit__src/minitopoQoS/iperf-5001.txt",
    "Gigglebit__src/minitopoQoS/iperf-recv-5001.txt",
    "UCaTiK__aqm-mininet/droptail_raw_cwnd.txt",  # -P 10 -i 0.1, runs of blanks squeezed to one
    "adithn04__computer_networks/iperf_output.txt",  # --get-server-output, 94 Gbit/s [SUM]
    "marcos-j-ferreira__gr-fico-iperf3-/iperf3.txt",
])
def test_iperf3_text_goodput_is_the_receivers_end_of_test_line(rel, tmp_path):
    if rel not in PRESENT:
        pytest.skip(f"{rel} absent")
    text = (SAMPLES / rel).read_text(errors="replace")
    if "Server output:" in text:
        text = text.split("Server output:")[0]
    assert _value(tmp_path, rel, metric="goodput", stat="summary") == pytest.approx(_last_receiver(text), rel=1e-9)


@pytest.mark.parametrize("rel, tests", [
    ("Mejtus1__Iperf/iperf.txt", 2), ("Mejtus1__Iperf/iperf_4_TCP_bandwidth.txt", 3),
    ("Mejtus1__Iperf/iperf_2_upload_download.txt", 2), ("zeandon__iperf3_sh/iperf3.log", 6),
])
def test_several_iperf3_tests_in_one_file_are_refused_not_summed(rel, tests, tmp_path):
    if rel not in PRESENT:
        pytest.skip(f"{rel} absent")
    text = (SAMPLES / rel).read_text(errors="replace")
    receivers = [mm for mm in map(_R3.search, text.splitlines()) if mm and mm[4].strip().endswith("receiver")]
    assert len({r[1] for r in receivers if r[1] != "SUM"}) <= 4
    assert quiet(m.read, SAMPLES / rel).attrs["tests"] == tests
    with pytest.raises(ValueError, match=f"holds {tests} iperf3 tests"):
        _value(tmp_path, rel, metric="goodput", stat="summary")


def test_iperf31_udp_client_loss(tmp_path):
    rel = "Mejtus1__Iperf/iperf_5_UDP_flood.txt"
    lost, total = map(float, re.findall(r"ms\s+(\d+)/(\d+) \(", (SAMPLES / rel).read_text())[-1])
    assert _value(tmp_path, rel, metric="loss", stat="summary") == pytest.approx(lost / total, rel=1e-12)


def test_iperf2_udp_server_goodput_and_loss(tmp_path):
    rel = "Gigglebit__src/minitopoQoS/iperf-recv_UDP.txt"
    text = (SAMPLES / rel).read_text()
    last = re.findall(r"0\.0-\s*[\d.]+ sec\s+[\d.]+ MBytes\s+([\d.]+) Mbits/sec\s+[\d.]+ ms\s+(\d+)/\s*(\d+)", text)[-1]
    assert _value(tmp_path, rel, metric="goodput", stat="summary") == pytest.approx(float(last[0]) * 1e6)
    assert _value(tmp_path, rel, metric="loss", stat="summary") == pytest.approx(int(last[1]) / int(last[2]))


def test_iperf3_json_goodput_and_interrupted_server(tmp_path):
    rel = "K9A2__PythonDataAnalysis/LabRecord/result/true_topo/dc1_to_lan/test_0/round_0/bbr.log"
    doc = json.loads((SAMPLES / rel).read_text())
    want = doc["end"]["sum_received"]["bits_per_second"]
    assert _value(tmp_path, rel, metric="goodput", stat="summary") == pytest.approx(want, rel=1e-12)
    rel = "nguyenvantin971996__SDNLoadBalancer/Throughput_loss_jitter/receiver_bandwidth.txt"
    text = (SAMPLES / rel).read_text()
    first, _ = json.JSONDecoder().raw_decode(text)
    assert '"interrupt - the server has terminated"' in text[len(json.dumps(first)) // 2:]
    df = quiet(m.read, SAMPLES / rel)
    assert df.attrs["tests"] == 1 and "interrupt" in df.attrs["tool_error"]
    s = first["end"]["sum"]
    assert _value(tmp_path, rel, metric="loss", stat="summary") == pytest.approx(s["lost_packets"] / s["packets"])


def test_ping_rtt_and_loss(tmp_path):
    for rel in ("UnicoCN__Bufferbloat/bbr100/ping.txt", "abelite-fang__router-lab1/bb-q100/ping.txt",
                "maxnvdm__NetworkCongestion/bbr-q100/ping.txt"):
        text = (SAMPLES / rel).read_text(errors="replace")
        rtts = [float(x) for x in re.findall(r"bytes from .*?time=([\d.]+) ms", text)]
        mean = _value(tmp_path, rel, metric="rtt", stat="mean", window_seq=[0, 10**8])
        assert mean == pytest.approx(sum(rtts) / len(rtts) / 1000, rel=1e-9), rel
    rel = "UnicoCN__Bufferbloat/bbr100/ping.txt"
    tx, rx = map(float, re.search(r"(\d+) packets transmitted, (\d+) received", (SAMPLES / rel).read_text()).groups())
    assert _value(tmp_path, rel, metric="loss", stat="summary") == pytest.approx((tx - rx) / tx)


def test_tc_log_with_script_prints_keeps_each_qdiscs_counters():
    rel = "Gigglebit__src/statscollector/out.txt"
    text = (SAMPLES / rel).read_text()
    want = [int(x) for x in re.findall(r"^qdisc pfifo_fast 0: dev root-eth0 .*\n Sent (\d+) bytes", text, re.M)]
    df = quiet(m.read, SAMPLES / rel)
    got = df[df["dev"] == "root-eth0"]["bytes"].tolist()
    assert got == want  # a damaged '249qdisc ... dev eth0' line gave root-eth0 eth0's 286356252 bytes


def test_tcp_probe_and_qlen(tmp_path):
    rel = "maxnvdm__NetworkCongestion/bbr-q100/q.txt"
    v = [float(ln.split(",")[1]) for ln in (SAMPLES / rel).read_text().split() if ln]
    assert _value(tmp_path, rel, metric="queue", stat="mean", window_s=[0, 1e8]) == pytest.approx(sum(v) / len(v))
    rel = "jmhen__congestion-control/exp1_tcpprobe.txt"
    rows = [ln.split() for ln in (SAMPLES / rel).read_text().splitlines() if ln.strip()]
    df = quiet(m.read, SAMPLES / rel)
    assert len(df) == len(rows)
    assert df["cwnd_segments"].tolist() == [float(r[6]) for r in rows]


def test_ns3_traces():
    rel = "takahiro33__energyConsumption/seventh.cwnd"
    rows = [ln.split() for ln in (SAMPLES / rel).read_text().splitlines() if ln.strip()]
    df = quiet(m.read, SAMPLES / rel)
    assert df["cwnd_bytes"].tolist() == [float(r[2]) for r in rows]
