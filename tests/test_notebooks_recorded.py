"""Notebooks 01-03 pointed at real recordings and at ns-3's runs show theory, ns-3 and measurement.

The student's path of issue 19: raw files recorded in network namespaces
(``data/measurements/lab5/recorded-2026-11-27``, a manifest naming them) as ``MEASUREMENTS``,
and the folder of ``labcalc simulate -o`` outputs with its manifest
(``data/measurements/lab5/simulated/runs``) as ``SIMULATED``. Each notebook is replayed with
those two lines changed, in a kernel running in a temporary folder beside a link to
``data/`` (nothing is written into ``notebooks/``). No cell may fail, and every comparison
table must hold a number in all three columns (predicted, ns-3, measured) for its goodputs
and losses, and say where each measured value comes from.

Notebooks 04-07 (no ns-3 column) are replayed the same way with ``MEASUREMENTS`` set to the real
runs of parts 3-5 (``data/measurements/lab5/recorded-parts3-5``, recorded without netem, so
notebook 06's ``BASE_RTT_S`` becomes their idle RTT): no cell may fail, and every comparison row
holds a measured number but those of runs the folder does not have (D3, RED).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "notebooks"
RECORDED = "../data/measurements/lab5/recorded-2026-11-27"
RECORDED_PARTS3_5 = "../data/measurements/lab5/recorded-parts3-5"
SIMULATED = "../data/measurements/lab5/simulated/runs"
MEAS_RE = re.compile(r'^MEASUREMENTS\s*=\s*"([^"]+)"\s*$', re.M)
SIM_RE = re.compile(r'^SIMULATED\s*=\s*"([^"]+)"\s*$', re.M)
EXPLORER_RE = re.compile(r"\b\w+_explorer\(|answer_checker\(")
#: (notebook, the comparison rows that must show three numbers; a row missing on purpose)
CASES = {
    "01-framing-and-goodput": (("goodput", "loss", "Q2 at", "Q10 at"), ()),
    "02-udp-competition": (("goodput", "loss"), ()),
    "03-tcp-meets-udp": (("B1 ", "B2 ", "B3 "), ("B3 TCP window",)),  # ns-3's B3 connection stops after 2.4 s
}


def _run(name: str, tmp_path: Path, simulated: str | None = SIMULATED, measurements: str = RECORDED,
         replace: tuple = ()):
    nb = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    work = tmp_path / "notebooks"
    work.mkdir()
    (tmp_path / "data").symlink_to(ROOT / "data", target_is_directory=True)
    for entry in NB_DIR.iterdir():
        if entry.suffix != ".ipynb" and not entry.name.startswith("."):
            (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if MEAS_RE.search(cell.source):
            cell.source = MEAS_RE.sub(f'MEASUREMENTS = "{measurements}"', cell.source)
            if measurements == RECORDED:  # notebooks 01-03: an ns-3 column beside
                assert SIM_RE.search(cell.source), f"{name}: no SIMULATED line beside MEASUREMENTS"
                sim = f'SIMULATED = "{simulated}"' if simulated else "SIMULATED = None"
                cell.source = SIM_RE.sub(sim, cell.source)
            for pattern, text in replace:
                cell.source, n = re.subn(pattern, text, cell.source, flags=re.M)
                assert n == 1, (name, pattern)
        elif EXPLORER_RE.search(cell.source):
            cell.source = "pass  # explorer skipped in this test"
    client = nbclient.NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": str(work)}})
    client.execute()
    return nb


def _texts(nb):
    for cell in nb.cells:
        if cell.cell_type == "code":
            yield cell, "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded_and_simulated_folders_give_three_columns(name, tmp_path):
    nb = _run(name, tmp_path)
    errors = [(i, o["ename"], o["evalue"]) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, errors
    wanted, excused = CASES[name]
    tables = [t for _, t in _texts(nb) if "  predicted    ns-3  measured" in t or "predicted  ns-3" in t]
    assert tables, f"{name}: no comparison table with an ns-3 column"
    checked = 0
    for text in tables:
        lines = text.splitlines()
        head = next(i for i, line in enumerate(lines) if line.startswith("label") and "ns-3" in line)
        for line in lines[head + 1:]:
            if not line.strip() or line.startswith(("note:", "measured from:")):
                break
            label = line[:lines[head].index("predicted")].strip()
            if not any(w in label for w in wanted) or any(label.startswith(x) for x in excused):
                continue
            cells = line[len(label):].split()
            assert "missing" not in cells[:3] and "-" not in cells[:3], (name, line)
            checked += 1
        assert "measured from:" in text, f"{name}: the table does not say where its measured values come from"
    assert checked >= 6, (name, checked)
    # losses have all three columns too
    assert any(re.search(r"loss.*\d\s+%", t) for t in tables), name


@pytest.mark.parametrize("name", ["01-framing-and-goodput", "02-udp-competition"])  # the two with code for it
def test_without_a_simulation_the_ns3_column_is_left_out(name, tmp_path):
    nb = _run(name, tmp_path, simulated=None)
    errors = [(i, o["ename"], o["evalue"]) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, errors
    tables = [t for _, t in _texts(nb) if "verdict:" in t]
    assert tables and not any("ns-3" in t for t in tables)


#: (notebook, the start of the labels of rows the folder has no run for, how many rows must show a
#: measured number, lines changed beside MEASUREMENTS)
CASES_PARTS3_5 = {
    "04-congestion-collapse": ((), 20, ()),   # Q25-Q27, both accountings
    "05-rtt-fairness": (("D3 ",), 12, ()),   # D1 and D2
    # no netem: the RTT without queueing is the idle ping's (0.01-0.06 ms), not the handout's 0.3 s
    "06-multiple-bottlenecks": ((), 12, ((r"^BASE_RTT_S\s*=\s*[^#\n]*", "BASE_RTT_S = 0.0001   "),)),
    "07-ecn-red-bufferbloat": (("Q47 ", "Q52 "), 5, ()),   # Q46's RTTs and goodputs
}


@pytest.mark.parametrize("name", sorted(CASES_PARTS3_5))
def test_recorded_parts3_5_fill_the_measured_column(name, tmp_path):
    excused, wanted, replace = CASES_PARTS3_5[name]
    files = [f.name for f in (ROOT / "data" / "measurements" / "lab5" / "recorded-parts3-5").iterdir()]
    nb = _run(name, tmp_path, measurements=RECORDED_PARTS3_5, replace=replace)
    errors = [(i, o["ename"], o["evalue"]) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, errors
    tables = [t for _, t in _texts(nb) if re.search(r"^label\s+predicted\s+measured", t, re.M)]
    assert tables, f"{name}: no comparison table"
    checked = 0
    for text in tables:
        lines = text.splitlines()
        head = next(i for i, line in enumerate(lines) if re.match(r"label\s+predicted\s+measured", line))
        for line in lines[head + 1:]:
            if not line.strip() or line.startswith(("note:", "measured from:")):
                break
            label = line[:lines[head].index("predicted")].strip()
            measured = line[len(label):].split()[1]
            if label.startswith(excused):
                assert measured == "missing", (name, line)
                continue
            float(measured)  # a number, not 'missing'
            checked += 1
        assert "measured from:" in text, f"{name}: the table does not say where its measured values come from"
        assert any(f in text.split("measured from:")[1] for f in files), name
    assert checked >= wanted, (name, checked)
