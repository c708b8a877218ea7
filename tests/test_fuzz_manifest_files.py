"""Manifests over mutated real recordings: a table of finite numbers, or a ManifestError.

tests/test_fuzz_manifest.py fuzzes the manifest's keys and arbitrary file contents; this
suite starts from real recordings (tests/data/measure/qa/ and tests/data/measure/manifest/:
iperf 2 and iperf3 text, CSV and JSON, ping, ss, tc) and mutates them the way files get
damaged or edited (lines deleted, duplicated or shuffled, numbers replaced by 0, -1, 1e308,
nan or inf, interval bounds swapped, a file cut short, lines of another tool pasted in),
then builds manifests of one to four entries over one to three such files with keys a
student might write (metric, stat, side, window_s, window_seq, connection, qdisc,
mss_bytes, format, files + combine). Whatever comes in, the build returns rows whose values
are finite (a loss at most 1, the other metrics not negative) or raises ManifestError with a
one-line printable message; nothing else escapes and nothing hangs. Hypothesis is
derandomised here; ``scripts/fuzz_long.py --only manifest`` runs it with fresh examples.
The seeded examples are the classes this suite's first runs and the QA recordings found.
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labcalc.measure.manifest import ManifestError, build_manifest

DATA = Path(__file__).resolve().parent / "data" / "measure"
FILES = sorted(p for d in ("qa", "manifest") for p in (DATA / d).iterdir() if p.name != "README")
FUZZ = settings(derandomize=True, deadline=None, max_examples=60,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
METRICS = ["goodput", "offered_rate", "loss", "rtt", "rtt_min", "cwnd", "queue"]
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NUMBERS = ["0", "0.00", "-1", "1e308", "nan", "inf", "99999999999999", "1e-300", "4294967295", "-0", "00"]


def _mutate(text: str, rnd: random.Random) -> str:
    lines = text.splitlines()
    kind = rnd.randrange(8)
    if kind == 0 and lines:  # lines deleted
        for _ in range(rnd.randint(1, 5)):
            if lines:
                del lines[rnd.randrange(len(lines))]
    elif kind == 1 and lines:  # a line repeated
        i = rnd.randrange(len(lines))
        lines[i:i] = [lines[i]] * rnd.randint(1, 4)
    elif kind == 2 and lines:  # a block shuffled
        i = rnd.randrange(len(lines))
        j = min(len(lines), i + rnd.randint(2, 10))
        block = lines[i:j]
        rnd.shuffle(block)
        lines[i:j] = block
    elif kind == 3:  # numbers replaced
        for _ in range(rnd.randint(1, 6)):
            if not lines:
                break
            i = rnd.randrange(len(lines))
            found = list(_NUMBER.finditer(lines[i]))
            if found:
                m = rnd.choice(found)
                lines[i] = lines[i][:m.start()] + rnd.choice(_NUMBERS) + lines[i][m.end():]
    elif kind == 4:  # cut short
        return text[:rnd.randrange(len(text) + 1)]
    elif kind == 5 and lines:  # lines of another recording pasted in
        other = rnd.choice(FILES).read_text(errors="replace").splitlines()
        if other:
            i = rnd.randrange(len(lines) + 1)
            lines[i:i] = rnd.sample(other, min(len(other), rnd.randint(1, 5)))
    elif kind == 6 and lines:  # an interval's bounds swapped
        i = rnd.randrange(len(lines))
        lines[i] = re.sub(r"(\d+\.\d+)\s*-\s*(\d+\.\d+)", r"\2-\1", lines[i], count=1)
    return "\n".join(lines) + "\n"


def _plausible(name: str) -> list:
    if "ping" in name:
        return ["rtt", "rtt_min", "loss"]
    if name.startswith("ss"):
        return ["cwnd", "rtt"]
    if name.startswith("tc"):
        return ["queue"]
    return ["goodput", "loss", "offered_rate"] if "udp" in name else ["goodput", "cwnd", "rtt"]


def _entry(rnd: random.Random, name: str) -> dict:
    """Keys a student might write for a file called *name* (mostly consistent, sometimes not)."""
    e = {"metric": rnd.choice(_plausible(name) if rnd.random() < 0.8 else METRICS)}
    m, valid = e["metric"], rnd.random() < 0.85
    if rnd.random() < 0.3:
        e["stat"] = rnd.choice(["mean", "median", "min", "max", "last", "summary"])
    if rnd.random() < 0.2 and (m == "goodput" or not valid):
        e["side"] = rnd.choice(["sender", "receiver"])
    if e.get("stat") != "summary" or not valid:
        r = rnd.random()
        if r < 0.3:
            a = rnd.choice([0, 0.5, 1, 2, 3, rnd.uniform(0, 10)])
            e["window_s"] = [a, a + rnd.choice([0.001, 0.5, 1, 2, 3, 10, 1e6])]
        elif r < 0.4:
            a = rnd.randint(0, 20)
            e["window_seq"] = [a, a + rnd.randint(1, 30)]
        if rnd.random() < 0.15:
            e["connection"] = rnd.choice([":5201", ":5409", "10.79.0.1", ":1", "10.77.0.1:5201", ":5417"])
    if rnd.random() < 0.3 and (m == "queue" or not valid):
        e["qdisc"] = rnd.choice(["pfifo", "10:", "root", "1:"])
    if rnd.random() < 0.3 and (m == "cwnd" or not valid):
        e["mss_bytes"] = rnd.choice([1448, 1, 65535])
    if rnd.random() < 0.2:
        e["format"] = rnd.choice(["iperf", "iperf3", "ping", "ss", "tc_qdisc", "tcp_probe", "labtool", "qlen"])
    return e


def _manifest(folder: Path, seed: int, picks: list) -> str:
    """Copy (and mutate) the files *picks* names into *folder*; return a manifest over them."""
    rnd = random.Random(seed)
    names, sources = [], []
    for i, k in enumerate(picks):
        src = FILES[k % len(FILES)]
        data = src.read_bytes()
        if rnd.random() < 0.7:
            data = _mutate(data.decode("utf-8", "replace"), rnd).encode("utf-8")
        name = f"f{i}{src.suffix}"
        (folder / name).write_bytes(data)
        names.append(name)
        sources.append(src.name)
    body = ""
    for q in range(1 if rnd.random() < 0.5 else rnd.randint(2, 4)):
        k = rnd.randrange(len(names))
        e = _entry(rnd, sources[k])
        e.update(question=f"Q{q}", scenario="S", flow=rnd.choice(["a", "b"]))
        if rnd.random() < 0.15 and len(names) > 1:
            e["files"] = names[:2]
            e["combine"] = ("pooled" if e["metric"] == "loss" else
                            "mean" if e["metric"].startswith("rtt") else rnd.choice(["sum", "mean"]))
        else:
            e["file"] = names[k]
        body += "[[measurement]]\n" + "".join(f"{key} = {json.dumps(v)}\n" for key, v in e.items())
    return body


def _check(folder: Path, body: str) -> None:
    (folder / "m.toml").write_text(body)
    try:
        table = build_manifest(folder / "m.toml")
    except ManifestError as exc:
        msg = str(exc)
        assert "\n" not in msg and msg.isprintable() and len(msg) < 3000, msg[:300]
        return
    for _, row in table.iterrows():
        v = float(row.value)
        assert math.isfinite(v), (row.metric, row.value, row.source)
        assert (v <= 1.0 + 1e-12) if row.metric == "loss" else (v >= 0.0), (row.metric, v, row.source)
        assert int(row.n_samples) >= 1


def _index(name: str) -> int:
    return next(k for k, p in enumerate(FILES) if p.name == name)


@FUZZ
@given(seed=st.integers(0, 2**32 - 1), picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=3))
@example(seed=0, picks=[_index("iperf3_tcp_fK_server.txt")])
@example(seed=1, picks=[_index("iperf2_udp_P3_server.txt"), _index("iperf2_udp_P3_client.txt")])
@example(seed=2, picks=[_index("iperf3_udp_O2_client.json"), _index("iperf3_udp_O2_server.json")])
@example(seed=3, picks=[_index("iperf3_tcp_P3_client.json")])
@example(seed=4, picks=[_index("ss_receiver_side.txt"), _index("ss_two_data_flows.txt")])
@example(seed=5, picks=[_index("ping_i02_own_queue_full.txt"), _index("ping_unreachable.txt")])
@example(seed=6, picks=[_index("iperf2_udp_P3_yC_server.csv"), _index("iperf3_udp_P2_server.json")])
@example(seed=7, picks=[_index("iperf2_tcp_e_i05_client.txt"), _index("tc_htb_pfifo.txt")])
def test_any_manifest_over_mutated_recordings_builds_or_is_refused(tmp_path, seed, picks):
    folder = tmp_path / f"m{seed}_{len(picks)}_{picks[0]}"
    folder.mkdir(exist_ok=True)
    _check(folder, _manifest(folder, seed, picks))


@pytest.mark.parametrize("name", [p.name for p in FILES])
def test_every_recording_under_every_metric_and_stat(tmp_path, name):
    """Each recording, unmutated, under every metric x stat: a value or a refusal, never a crash."""
    src = DATA / ("qa" if (DATA / "qa" / name).exists() else "manifest") / name
    (tmp_path / name).write_bytes(src.read_bytes())
    body = ""
    for k, metric in enumerate(METRICS):
        for stat in ("mean", "max", "summary"):
            body = (f'[[measurement]]\nquestion = "Q{k}{stat}"\nscenario = "S"\nflow = "f"\nmetric = "{metric}"\n'
                    f'stat = "{stat}"\nfile = "{name}"\n')
            _check(tmp_path, body)
