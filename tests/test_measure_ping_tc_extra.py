"""ping runs appended to one log, bare epoch prefixes, flattened ``tc -s qdisc`` samples, and
fuzzed ping / tc inputs (issue 11, items 4-6 and the reader findings for ping and tc)."""

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labcalc.measure import MalformedLinesWarning, MeasurementFormatError, read, read_ping, read_tc_qdisc

DATA = Path(__file__).parent / "data" / "measure"


def _quiet(fn, src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        return fn(src)


# ---------------------------------------------------------------- item 4: many runs in one log
def test_ping_many_runs_totals_counted_independently():
    path = DATA / "ping_multirun.txt"
    text = path.read_text()
    stats = [tuple(map(int, m)) for m in re.findall(r"^(\d+) packets transmitted, (\d+) received", text, re.M)]
    banners = re.findall(r"^PING (\S+)", text, re.M)
    replies = re.findall(r"^64 bytes from", text, re.M)
    rtts = [tuple(float(x) * 1e-3 for x in m.split("/")) for m in re.findall(r"^rtt [^=]+= (\S+) ms", text, re.M)]
    df = read_ping(path)
    assert len(df) == len(replies) == 23
    assert len(df.attrs["runs"]) == len(banners) == 7
    assert df["run"].is_monotonic_increasing and sorted(df["run"].unique()) == list(range(7))
    s = df.attrs["summary"]
    assert s["transmitted"] == sum(t for t, _ in stats) == 21
    assert s["received"] == sum(r for _, r in stats) == 21
    assert s["loss"] == 0.0
    assert s["rtt_min_s"] == pytest.approx(min(r[0] for r in rtts), rel=1e-12)
    assert s["rtt_max_s"] == pytest.approx(max(r[2] for r in rtts), rel=1e-12)
    w = sum(r[1] * n for r, (_, n) in zip(rtts, stats)) / sum(n for _, n in stats)
    assert s["rtt_avg_s"] == pytest.approx(w, rel=1e-12)
    assert s["rtt_min_s"] <= s["rtt_avg_s"] <= s["rtt_max_s"] and s["rtt_mdev_s"] >= 0
    assert df.attrs["target"] == ["127.0.0.1", "127.0.0.2"]
    last = df.attrs["runs"][-1]  # cut off by SIGINT: banner and two replies, no statistics
    assert not last["complete"] and last["replies"] == 2 and math.isnan(last["transmitted"])
    assert [r["replies"] for r in df.attrs["runs"]] == [4, 3, 4, 3, 4, 3, 2]
    assert "7 ping runs" in df.attrs["notes"][0] and "1 without a statistics block" in df.attrs["notes"][0]
    # per-run statistics are each run's own lines
    assert [(r["transmitted"], r["received"]) for r in df.attrs["runs"][:-1]] == stats
    assert df.attrs["runs"][1]["rtt_avg_s"] == pytest.approx(rtts[1][1])


def test_ping_single_run_attrs_unchanged():
    df = read_ping(DATA / "ping_plain.txt")
    assert (df["run"] == 0).all()
    assert "notes" not in df.attrs and isinstance(df.attrs["target"], str)
    assert len(df.attrs["runs"]) == 1 and df.attrs["runs"][0]["transmitted"] == df.attrs["summary"]["transmitted"]


def test_ping_mdev_pooled_from_two_runs():
    # two runs of 2 replies each: rtts {1, 3} and {5, 7} ms -> population std of all four = sqrt(5) ms
    text = "".join(
        f"PING h (10.0.0.2) 56(84) bytes of data.\n"
        f"64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time={a} ms\n64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time={b} ms\n"
        f"--- h ping statistics ---\n2 packets transmitted, 2 received, 0% packet loss, time 1000ms\n"
        f"rtt min/avg/max/mdev = {a}/{(a + b) / 2}/{b}/{(b - a) / 2} ms\n" for a, b in ((1, 3), (5, 7)))
    s = read_ping(text).attrs["summary"]
    assert s["rtt_avg_s"] == pytest.approx(4e-3) and s["rtt_mdev_s"] == pytest.approx(math.sqrt(5) * 1e-3)
    assert s["time_s"] == pytest.approx(2.0) and s["transmitted"] == 4


# ---------------------------------------------------------------- item 5: bare epoch prefix
def test_ping_bare_epoch_prefix():
    path = DATA / "ping_epoch_prefix.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("error", MalformedLinesWarning)
        df = read_ping(path)
    # line 2: "1795516563.540061853 64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.023 ms"
    assert df["time_s"].iloc[0] == pytest.approx(1795516563.540061853, abs=1e-6)
    assert df["rtt_s"].iloc[0] == pytest.approx(0.023e-3)
    assert list(df["seq"]) == [1, 2, 3, 4, 5]
    assert np.all(np.diff(df["time_s"]) > 0)
    assert df.attrs["target"] == "127.0.0.1" and df.attrs["summary"]["transmitted"] == 5
    assert df.attrs["summary"]["rtt_mdev_s"] == pytest.approx(0.006e-3)
    assert read(path).attrs["format"] == "ping"


# ---------------------------------------------------------------- item 6: flattened tc
def _flat_counts(path):
    rows = []
    for line in path.read_text().splitlines():
        t = float(line.split()[0])
        for m in re.finditer(r"qdisc (\S+) (\S+) .*?Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)"
                             r" requeues (\d+)\) backlog (\d+)(K?)b (\d+)p", line):
            # tc abbreviates the backlog: "backlog 9Kb 8p" is 9 x 1024 bytes
            backlog = int(m[8]) * (1024 if m[9] else 1)
            rows.append((t, m[1], m[2], *map(int, m.groups()[2:7]), backlog, int(m[10])))
    return rows


@pytest.mark.parametrize("name, kinds", [("tc_flat_htb_pfifo.txt", ["htb", "pfifo"]), ("tc_flat_tbf.txt", ["tbf"])])
def test_tc_flattened_samples(name, kinds):
    path = DATA / name
    with warnings.catch_warnings():
        warnings.simplefilter("error", MalformedLinesWarning)
        df = read_tc_qdisc(path)
    expect = _flat_counts(path)
    n_lines = len(path.read_text().splitlines())
    assert len(df) == len(expect) == n_lines * len(kinds)
    assert list(df["sample"].unique()) == list(range(n_lines))
    assert list(df["kind"][: len(kinds)]) == kinds
    got = list(zip(df["time_s"], df["kind"], df["handle"], df["bytes"], df["packets"], df["drops"], df["overlimits"],
                   df["requeues"], df["backlog_bytes"], df["backlog_packets"]))
    for g, e in zip(got, expect):
        assert g[0] == pytest.approx(e[0], abs=1e-6) and g[1:] == e[1:]
    for _, q in df.groupby("handle"):  # cumulative counters never go back
        assert (np.diff(q["bytes"]) >= 0).all() and (np.diff(q["drops"]) >= 0).all()
    assert read(path).attrs["format"] == "tc_qdisc"


def test_tc_flattened_without_time_and_tbf_literal():
    # the first line of tc_flat_tbf.txt without its time: sample index only, time NaN
    line = ("qdisc tbf 2: root refcnt 3 rate 10Mbit burst 4Kb lat 50ms Sent 45032 bytes 43 pkt "
            "(dropped 0, overlimits 75 requeues 0) backlog 60771b 35p requeues 0")
    df = read_tc_qdisc(line + "\n" + line.replace("45032", "46000") + "\n")
    assert list(df["sample"]) == [0, 1] and df["time_s"].isna().all()
    assert list(df["bytes"]) == [45032, 46000] and df["backlog_packets"].iloc[0] == 35 and df["overlimits"].iloc[0] == 75


def test_tc_plain_multi_sample_log():
    path = DATA / "tc_samples_htb_multi.txt"
    df = read_tc_qdisc(path)
    text = path.read_text()
    assert len(df) == 2 * text.count("# ") == 12
    assert list(df["bytes"]) == [int(x) for x in re.findall(r"Sent (\d+) bytes", text)]
    assert df["time_s"].iloc[0] == pytest.approx(float(re.search(r"# (\S+)", text)[1]), abs=1e-6)


# ---------------------------------------------------------------- fuzz cases, one each
PING_OK = "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=4.04 ms\n"


def test_ping_rtt_line_of_dots_is_malformed():
    text = PING_OK + "--- x ping statistics ---\n1 packets transmitted, 1 received, 0% packet loss, time 0ms\nrtt min/avg/max/mdev = . ms\n"
    with pytest.warns(MalformedLinesWarning):
        df = read_ping(text)
    assert df.attrs["malformed"]["lines"] == [5] and "rtt_avg_s" not in df.attrs["summary"]


def test_ping_400_digit_seq_is_malformed():
    text = PING_OK + "64 bytes from 10.0.0.2: icmp_seq=" + "9" * 400 + " ttl=64 time=1 ms\n"
    with pytest.warns(MalformedLinesWarning):
        df = read_ping(text)
    assert len(df) == 1 and df.attrs["malformed"]["lines"] == [3]


def test_ping_nul_and_truncated_lines():
    text = PING_OK + "64 bytes from 10.0.0.2: icmp_seq=2 tt\x00l=64 time=1 ms\n64 bytes from 10.0.0.2: icmp_se\n"
    with pytest.warns(MalformedLinesWarning):
        df = read_ping(text)
    assert len(df) == 1 and df.attrs["malformed"]["lines"] == [3, 4]


def test_ping_nothing_names_source():
    with pytest.raises(MeasurementFormatError, match="x.txt"):
        read_ping(_named("x.txt", b"\x00\x00\x00\n"))


def _named(name, data):
    import tempfile

    p = Path(tempfile.mkdtemp()) / name
    p.write_bytes(data)
    return p


TC_OK = "qdisc pfifo 10: parent 1:10 limit 100p\n Sent 151400 bytes 100 pkt (dropped 0, overlimits 0 requeues 0)\n backlog 30280b 20p requeues 0\n"


@pytest.mark.parametrize("bad", ["9" * 400, "9" * 5000])
def test_tc_huge_integer_is_malformed(bad):
    text = TC_OK + TC_OK.replace("151400 bytes", bad + " bytes")
    with pytest.warns(MalformedLinesWarning):
        df = read_tc_qdisc(text)
    assert df.attrs["malformed"]["lines"] == [5]
    assert df["bytes"].iloc[0] == 151400 and math.isnan(df["bytes"].iloc[1])


@pytest.mark.parametrize("bad", ["inf", "1e999", "-1", "\"x\"", "[1]", "{}", "true", "9" * 400, "9" * 5000])
def test_tc_json_bad_counter(bad):
    good = '{"kind":"pfifo","handle":"10:","bytes":100,"packets":2,"drops":0,"overlimits":0,"requeues":0,"backlog":0,"qlen":0}'
    text = "[" + good + "," + good.replace('"bytes":100', '"bytes":' + bad) + "]\n"
    if bad == "inf":  # Python's json spells it Infinity (1e999 is read as inf as it stands)
        text = text.replace("inf", "Infinity")
    with pytest.warns(MalformedLinesWarning):
        df = read_tc_qdisc(text)
    assert len(df) == 1 and df["bytes"].iloc[0] == 100


@pytest.mark.parametrize("doc", ['[{"kind": [1], "bytes": 1}]\n', '[{"kind": "pfifo", "dev": {}}]\n', '[1, "x", null]\n'])
def test_tc_json_wrong_types_only(doc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MalformedLinesWarning)
        with pytest.raises(MeasurementFormatError, match="q.json"):
            read_tc_qdisc(_named("q.json", doc.encode()))


def test_tc_json_deep_nesting():
    with pytest.raises(MeasurementFormatError, match="deep.json"):
        read_tc_qdisc(_named("deep.json", b"[" * 100_000 + b"]" * 100_000))


def test_tc_flat_line_with_nul_and_inf_stamp():
    line = (DATA / "tc_flat_tbf.txt").read_text().splitlines()[0]
    text = line + "\n" + line.replace("Sent", "Se\x00nt") + "\n" + "1" + "0" * 400 + line[20:] + "\n"
    with pytest.warns(MalformedLinesWarning):
        df = read_tc_qdisc(text)
    assert len(df) == 1 and df.attrs["malformed"]["count"] == 2


# ---------------------------------------------------------------- property test
FILES = [DATA / n for n in ("ping_multirun.txt", "ping_epoch_prefix.txt", "ping_plain.txt", "ping_D.txt",
                            "ping_events.txt", "tc_flat_htb_pfifo.txt", "tc_flat_tbf.txt",
                            "tc_samples_htb_multi.txt", "tc_samples.txt", "tc_samples.json", "tc_red.txt")]
NASTY = ["9" * 400, "1e999", "inf", "nan", "-1", "\x00", ".", "", "x" * 5000, "[" * 300, "{}"]


@st.composite
def mutated(draw):
    path = draw(st.sampled_from(FILES))
    lines = path.read_text().splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "cut", "dup", "del", "shuffle", "number", "insert"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            break
        if op == "flip":
            b = bytearray(lines[i].encode())
            if b:
                j = draw(st.integers(0, len(b) - 1))
                b[j] ^= draw(st.integers(1, 255))
            lines[i] = b.decode("utf-8", "replace")
        elif op == "cut":
            lines = lines[:i] + [lines[i][: draw(st.integers(0, len(lines[i])))]]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "del":
            del lines[i]
        elif op == "shuffle":
            lines = draw(st.permutations(lines))
        elif op == "number":
            lines[i] = re.sub(r"\d+(?:\.\d+)?", draw(st.sampled_from(NASTY)), lines[i], count=draw(st.integers(0, 3)))
        else:
            lines.insert(i, draw(st.sampled_from(NASTY)) + "\n")
    return path.name, "".join(lines)


@settings(derandomize=True, deadline=None, max_examples=1000, suppress_health_check=list(HealthCheck))
@given(case=mutated())
def test_mutated_ping_and_tc_files(tmp_path_factory, case):
    name, text = case
    path = tmp_path_factory.getbasetemp() / ("m_" + name)
    path.write_text(text, errors="surrogateescape")
    reader = read_ping if name.startswith("ping") else read_tc_qdisc
    try:
        df = _quiet(reader, path)
    except MeasurementFormatError as exc:
        assert path.name in str(exc)
        return
    assert df.attrs["source"].endswith(path.name)
    for c in df.columns:
        if df[c].dtype.kind == "f":
            assert not np.isinf(df[c]).any()


def test_ping_only_stamps_is_no_ping_output():
    with pytest.raises(MeasurementFormatError, match="stamps.txt"):
        read_ping(_named("stamps.txt", b"1795516564.372280647\n1795516564.5\n"))


def test_ping_replies_before_first_banner_are_run_0():
    # a log whose first banner was cut away: its replies join run 0, the next banner starts run 1
    text = ("64 bytes from 10.0.0.2: icmp_seq=9 ttl=64 time=1 ms\n"
            "--- 10.0.0.2 ping statistics ---\n10 packets transmitted, 9 received, 10% packet loss, time 9000ms\n"
            + PING_OK)
    df = read_ping(text)
    assert list(df["run"]) == [0, 1] and df.attrs["runs"][0]["target"] is None
    assert df.attrs["summary"]["transmitted"] == 10 and df.attrs["target"] == "10.0.0.2"
    assert not df.attrs["runs"][1]["complete"]


# ---------------------------------------------------------------- issue 20: BusyBox and macOS ping
_BB_REPLY = re.compile(r"^(\d+) bytes from ([^:]+): (?:icmp_)?seq=(\d+) ttl=(\d+) time=([\d.]+) ms( \(DUP!\))?$", re.M)
_BB_STATS = re.compile(r"^(\d+) packets transmitted, (\d+) packets received(?:, (\d+) duplicates)?, ([\d.]+)% packet loss",
                       re.M)
_BB_RTT = re.compile(r"^round-trip min/avg/max(?:/stddev)? = ([\d./]+) ms$", re.M)


@pytest.mark.parametrize("name", ["ping_busybox_dup.txt", "ping_busybox_stats_only.txt", "ping_busybox_recorded.txt",
                                  "ping_macos_nodeping.txt", "ping_macos_pingparsing.txt", "ping_macos_tcppinglib.txt"])
def test_busybox_and_macos_ping_read_as_their_text_says(name):
    text = (DATA / name).read_text()
    replies = _BB_REPLY.findall(text)
    stats = _BB_STATS.findall(text)
    rtts = [[float(x) * 1e-3 for x in m.split("/")] for m in _BB_RTT.findall(text)]
    df = read(DATA / name)
    assert df.attrs["format"] == "ping" and df.attrs["malformed"]["count"] == 0
    assert df["seq"].tolist() == [int(r[2]) for r in replies]
    assert df["rtt_s"].tolist() == pytest.approx([float(r[4]) * 1e-3 for r in replies], rel=1e-12)
    assert df["ttl"].tolist() == [int(r[3]) for r in replies]
    assert df["bytes"].tolist() == [int(r[0]) for r in replies]
    assert df["src"].astype(str).tolist() == [r[1] for r in replies]
    assert df["dup"].tolist() == [bool(r[5]) for r in replies]
    runs = [r for r in df.attrs["runs"] if r["complete"]]
    assert [(r["transmitted"], r["received"], r["duplicates"]) for r in runs] == \
        [(int(a), int(b), int(c or 0)) for a, b, c, _ in stats]
    assert [r["loss"] for r in runs] == pytest.approx([float(p) / 100 for *_, p in stats])
    with_rtt = [r for r in runs if not math.isnan(r["rtt_avg_s"])]
    got = [x for r in with_rtt for x in (r["rtt_min_s"], r["rtt_avg_s"], r["rtt_max_s"])]
    assert got == pytest.approx([x for v in rtts for x in v[:3]], rel=1e-12)


def test_busybox_duplicates_counted_without_a_plus():
    # ", 2 duplicates" (BusyBox) as iputils' ", +2 duplicates": the count was 0 before issue 20
    df = read_ping(DATA / "ping_busybox_dup.txt")
    assert df.attrs["summary"]["duplicates"] == 2 == int(df["dup"].sum())
    assert df.attrs["summary"]["loss"] == 0.1
