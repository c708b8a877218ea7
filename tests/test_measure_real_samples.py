"""Every reader against the real tool outputs in ../shared/real-world-samples (local check).

The samples come from public repositories without a licence, so they are not part of the
project: they sit beside the repository (``<checkout>/../shared/real-world-samples``). The
tests are skipped, with the reason, when that folder is absent.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

from labcalc import measure as m
from labcalc.measure import MeasurementFormatError

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "real-world-samples"
ERRORS = SAMPLES / "must-give-clear-error"
SKIP = pytest.mark.skipif(
    not SAMPLES.is_dir(),
    reason=f"real-world samples not found at {SAMPLES} (expected beside the repository, in ../shared)",
)
pytestmark = SKIP

#: expected format by file name pattern (anything else must still be read by `read`)
EXPECTED = {
    "q.txt": "qlen",
    "EXP_BRR_sw0-qlen.txt": "qlen",
    "ping.txt": "ping",
    "rtts_part2.txt": "ping",
    "ping_host_target.res": "ping",
    "cwnd.txt": "tcp_probe",
    "cwnd.txt.head3000": "tcp_probe",
    "EXP_BRR_tcpprobe.txt": "tcp_probe",
    "iperf.txt": "iperf",
    "iperf-recv.txt": "iperf",
    "iperf3.txt": "iperf3",
    "5m.txt": "iperf3",
    "bw_host_target_direct.res": "iperf3",
    "baseline_host_target_direct_6.res": "iperf3",
    "sixth.cwnd": "ns3",
}


def _files(folder: Path, include_errors: bool) -> list[Path]:
    if not folder.is_dir():
        return []
    out = []
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or p.name in ("SOURCES.md", "_manifest.json") or p.name.startswith("."):
            continue
        if (ERRORS in p.parents) != include_errors:
            continue
        out.append(p)
    return out


GOOD = _files(SAMPLES, include_errors=False)
BAD = _files(ERRORS, include_errors=True)


def _ids(paths):
    return [str(p.relative_to(SAMPLES)) for p in paths]


def _read_quietly(func, path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(path, **kwargs)


def test_samples_folder_has_files():
    assert GOOD, f"no sample files under {SAMPLES}"
    assert BAD, f"no files under {ERRORS}"


@pytest.mark.parametrize("path", GOOD, ids=_ids(GOOD))
def test_every_sample_parses(path):
    df = _read_quietly(m.read, path)
    assert isinstance(df, pd.DataFrame)
    assert len(df) > 0
    expected = EXPECTED.get(path.name)
    if expected is None and "ns3" in str(path.parent).lower():
        expected = "ns3"
    if expected is not None:
        assert df.attrs["format"] == expected
    assert df.attrs["malformed"]["count"] <= 0.02 * len(df) + 1, df.attrs["malformed"]


@pytest.mark.parametrize("path", BAD, ids=_ids(BAD))
def test_must_give_clear_error(path):
    for reader in (m.read, m.read_iperf3):
        with pytest.raises(MeasurementFormatError) as info:
            reader(path)
        msg = str(info.value)
        assert path.name in msg
        assert "line " in msg
        assert "Traceback" not in msg
        text = path.read_text()
        if '"error"' in text:
            assert "reported an error" in msg and "control socket" in msg
        elif text.lstrip().startswith("{"):
            assert "truncated" in msg
        else:
            assert "reported an error" in msg


READERS = [m.read_labtool, m.read_iperf, m.read_iperf3, m.read_ping, m.read_tcp_probe, m.read_ss,
           m.read_tc_qdisc, m.read_qlen, m.read_ns3, m.read_tshark]


@pytest.mark.parametrize("reader", READERS, ids=lambda f: f.__name__)
def test_every_reader_on_every_sample_gives_a_frame_or_a_clear_error(reader):
    for path in GOOD + BAD:
        try:
            df = _read_quietly(reader, path)
        except MeasurementFormatError as exc:
            assert path.name in str(exc)
        else:
            assert isinstance(df, pd.DataFrame)


def _one(name: str) -> Path:
    hits = [p for p in GOOD if str(p).endswith(name)]
    if not hits:
        pytest.skip(f"{name} not among the samples")
    return hits[0]


def test_sample_details_ping():
    old = _read_quietly(m.read_ping, _one("evelinad__CS244_Bufferbloat/bb-q20/ping.txt"))
    assert old["seq"].iloc[0] == 1 and old["rtt_s"].iloc[0] == pytest.approx(0.152)
    path = _one("1003366190__CSC458_a2/bb-q20/ping.txt")
    mixed = _read_quietly(m.read_ping, path)
    assert mixed.attrs["malformed"]["count"] >= 5  # interleaved replies are not trusted
    # two pings wrote this file at once (one banner, two statistics blocks): flagged, their counts pooled
    blocks = [(int(a), int(b)) for a, b in re.findall(r"^(\d+) packets transmitted, (\d+) received", path.read_text(), re.M)]
    assert len(blocks) == 2 and mixed.attrs["runs"][0]["statistics_blocks"] == 2
    assert mixed.attrs["summary"]["transmitted"] == sum(b[0] for b in blocks)
    assert mixed.attrs["summary"]["received"] == sum(b[1] for b in blocks)


def test_sample_details_tcp_probe_and_iperf3_json():
    probe = _read_quietly(m.read_tcp_probe, _one("1003366190__CSC458_a2/cwnd.txt"), port=5001)
    assert set(probe["src"]) | set(probe["dst"]) >= {"10.0.0.2:5001"}
    sender = probe[probe["dst"] == "10.0.0.2:5001"]
    table = m.cwnd_phases(sender).table()
    assert table["state"].iloc[0] == "slow-start"
    js = _read_quietly(m.read_iperf3, _one("baseline_host_target_direct_6.res"))
    assert js["omitted"].sum() == 3
    assert js["rtt_s"].max() < 1.0
    assert any(s["role"] == "sender" and s["retransmits"] == 4599 for s in js.attrs["summary"])


def test_sample_details_ns3_sentinel():
    ssth = _read_quietly(m.read_ns3, _one("TcpVariantsComparison-ssth.data"))
    assert ssth["ssthresh_bytes"].isna().sum() >= 1
    cwnd = _read_quietly(m.read_ns3, _one("TcpVariantsComparison-cwnd.data"))
    table = m.cwnd_phases(cwnd, ssthresh=ssth).table()
    assert "fast-recovery" in set(table["state"])


def test_skip_logic_works_for_a_checkout_elsewhere(tmp_path):
    """The samples are located relative to this file, so a clone without ../shared skips."""
    fake_test = tmp_path / "x" / "main" / "tests" / "test_measure_real_samples.py"
    fake_test.parent.mkdir(parents=True)
    located = fake_test.resolve().parents[2] / "shared" / "real-world-samples"
    assert located == tmp_path / "x" / "shared" / "real-world-samples"
    assert not located.is_dir()
