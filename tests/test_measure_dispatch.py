"""Format recognition, read(), convert(), light imports and robustness to garbage."""

from __future__ import annotations

import io
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labcalc import measure as m
from labcalc.measure import MalformedLinesWarning, MeasurementFormatError

DATA = Path(__file__).resolve().parent / "data" / "measure"
RECORDED = Path(__file__).resolve().parents[1] / "data" / "measurements" / "recorded"

FIXTURE_FORMATS = {
    "labtool_": "labtool", "iperf2": "iperf", "iperf3_": "iperf3", "ping_windows_": "ping_windows", "ping_": "ping",
    "tcpprobe_": "tcp_probe", "ss_": "ss", "tc_": "tc_qdisc", "qlen": "qlen", "ns3": "ns3", "tshark": "tshark",
    "wireshark_": "wireshark_csv",
    # labcalc's own files: a built table, a simulation's summary and settings; a converted iperf3
    # printout keeps its reader's format
    "labcalc_": "labcalc", "converted_iperf3": "iperf3",
}
GOOD_FIXTURES = sorted(
    p for p in DATA.rglob("*")
    if p.is_file() and not p.name.startswith(("iperf3_error.", "iperf3_truncated", "README", "refused_"))
)


def _expected(name: str) -> str:
    return next(fmt for prefix, fmt in FIXTURE_FORMATS.items() if name.startswith(prefix))


@pytest.mark.parametrize("path", GOOD_FIXTURES, ids=lambda p: str(p.relative_to(DATA)))
def test_read_recognises_every_fixture(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        if "error" in path.name:  # a tool error after valid output is read, with a warning
            with pytest.warns(m.ToolErrorWarning, match="iperf3: error"):
                df = m.read(path)
        elif "interrupted" in path.name:  # a server -J stopped with Ctrl-C: its error document, a warning
            with pytest.warns(m.ToolErrorWarning, match="interrupt - the server has terminated"):
                df = m.read(path)
        else:
            df = m.read(path)
    assert df.attrs["format"] == _expected(path.name)
    assert df.attrs["source"] == str(path)


@pytest.mark.parametrize("path", sorted(p for p in RECORDED.iterdir() if p.name != "README.txt"), ids=lambda p: p.name)
def test_read_recognises_every_recorded_file(path):
    df = m.read(path)
    assert len(df) > 0
    assert df.attrs["malformed"]["count"] == 0


def test_read_with_explicit_format_and_aliases():
    assert m.read(DATA / "iperf2.csv", format="iperf2").attrs["format"] == "iperf"
    assert m.read(DATA / "tcpprobe_proc11.txt", format="tcpprobe", port=5001).shape[0] == 4
    with pytest.raises(ValueError, match="format: expected one of"):
        m.read(DATA / "iperf2.csv", format="netflow")


def test_read_unknown_format_names_the_line():
    with pytest.raises(MeasurementFormatError, match=r"<text>, line 2: could not recognise the format"):
        m.read("\nsome words here\nmore words\n")
    with pytest.raises(MeasurementFormatError, match="empty"):
        m.read("\n\n")


def test_convert_writes_a_tidy_csv(tmp_path):
    out = tmp_path / "sub" / "ping.csv"
    df = m.convert(DATA / "ping_D.txt", out)
    # labcalc's own file: its first line says so; pandas skips the header with comment="#"
    assert out.read_text().startswith("# labcalc samples v1\n# attrs: {")
    back = pd.read_csv(out, comment="#")
    assert back.columns.tolist() == df.columns.tolist()
    assert back["rtt_s"].tolist() == pytest.approx(df["rtt_s"].tolist())
    assert back["time_s"].iloc[1] == pytest.approx(1709634000.200312, abs=1e-6)


def test_convert_to_stdout(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        m.convert(DATA / "qlen.txt", "-")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "# labcalc samples v1" and lines[2] == "time_s,backlog_packets"


def test_import_is_light():
    code = "import sys, labcalc, labcalc.measure; print('pandas' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_public_names():
    for name in ["read_labtool", "read_iperf", "read_iperf3", "read_ping", "read_tcp_probe", "read_ss",
                 "read_tc_qdisc", "read_qlen", "read_ns3", "read_tshark", "read", "convert", "steady_state",
                 "cwnd_phases", "receive_rate", "queue_occupancy"]:
        assert callable(getattr(m, name)), name
    assert issubclass(MeasurementFormatError, ValueError)
    assert issubclass(MalformedLinesWarning, UserWarning)
    with pytest.raises(AttributeError):
        m.read_nothing  # noqa: B018


READERS = [m.read_labtool, m.read_iperf, m.read_iperf3, m.read_ping, m.read_tcp_probe, m.read_ss,
           m.read_tc_qdisc, m.read_qlen, m.read_ns3, m.read_tshark, m.read]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_bytes_never_crash(blob):
    for reader in READERS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                df = reader(blob)
            except MeasurementFormatError:
                continue
        assert isinstance(df, pd.DataFrame)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_garbage_lines_are_counted_exactly(data):
    fixtures = {
        m.read_ping: "ping_plain.txt", m.read_labtool: "labtool_udpclient.txt", m.read_qlen: "qlen.txt",
        m.read_tcp_probe: "tcpprobe_proc11.txt", m.read_ns3: "ns3-cwnd.data",
    }
    reader = data.draw(st.sampled_from(sorted(fixtures, key=lambda f: f.__name__)))
    lines = (DATA / fixtures[reader]).read_text().splitlines()
    clean = reader("\n".join(lines) + "\n") if reader is not m.read_qlen else None
    garbage = data.draw(st.lists(st.sampled_from(["%%%", "xx yy zz", "1 2 3 4 5 6 7", "@@ 12"]), min_size=1, max_size=5))
    positions = sorted(data.draw(st.lists(st.integers(1, len(lines)), min_size=len(garbage), max_size=len(garbage))))
    mixed = list(lines)
    for k, (pos, g) in enumerate(zip(positions, garbage)):
        mixed.insert(pos + k, g)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = reader("\n".join(mixed) + "\n")
    base = 1 if reader is m.read_qlen else 0  # the qlen fixture holds one malformed line already
    assert df.attrs["malformed"]["count"] == len(garbage) + base
    assert any(issubclass(w.category, MalformedLinesWarning) for w in caught)
    if clean is not None:
        pd.testing.assert_frame_equal(df.reset_index(drop=True), clean.reset_index(drop=True), check_like=True)


def test_text_stream_and_name_in_messages():
    buf = io.StringIO("hello\n")
    buf.name = "student_run.txt"
    with pytest.raises(MeasurementFormatError, match="student_run.txt, line 1"):
        m.read_ping(buf)


PUBLIC = ["read_labtool", "read_iperf", "read_iperf3", "read_ping", "read_tcp_probe", "read_ss", "read_tc_qdisc",
          "read_qlen", "read_ns3", "read_tshark", "read", "convert", "sniff_format", "steady_state", "cwnd_phases",
          "receive_rate", "queue_occupancy"]


@pytest.mark.parametrize("name", PUBLIC)
def test_docstrings_are_complete(name):
    import inspect

    func = getattr(m, name)
    doc = inspect.getdoc(func)
    for section in ("Parameters", "Returns", "References", "Examples"):
        assert f"\n{section}\n---" in doc, f"{name}: no {section} section"
    for param in inspect.signature(func).parameters.values():
        if param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            assert f"**{param.name}" in doc or f"*{param.name}" in doc, f"{name}: {param.name} undocumented"
        else:
            assert f"\n{param.name} :" in doc or f"\n{param.name}," in doc or f", {param.name} :" in doc, \
                f"{name}: parameter {param.name} undocumented"


def test_read_recognises_iperf22_csv_with_utc_offset(tmp_path):
    # iperf 2.2 may prefix the CSV time with the UTC offset; read() must still pick iperf
    lines = (DATA / "iperf2_21_server.csv").read_text().splitlines()
    shifted = tmp_path / "utc.csv"
    shifted.write_text("".join(f"+0000:{ln}\n" for ln in lines))
    direct = m.read_iperf(DATA / "iperf2_21_server.csv")
    df = m.read(shifted)
    assert df.attrs["format"] == "iperf"
    assert df["rate_bps"].tolist() == direct["rate_bps"].tolist()
