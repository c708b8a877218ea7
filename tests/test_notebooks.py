"""The committed notebooks: present, executed, structured as DESIGN.md asks, and re-runnable.

nbval (``make test``) replays every notebook and compares the cells tagged
``nbval-check-output``. These tests cover what a replay cannot see: a notebook that is
missing, committed without outputs or with outputs from a partial run, cells that print
answers but are not tagged (so never compared), non-deterministic output, measured values
that no notebook shows, and a ``MEASUREMENTS`` variable that does not really drive the
comparison.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from labcalc.compare import load_measurements

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "notebooks"
DATA = ROOT / "data" / "measurements"

#: The notebooks of issue 3, in order.
NOTEBOOKS = [
    "00-start-here",
    "01-framing-and-goodput",
    "02-udp-competition",
    "03-tcp-meets-udp",
    "04-congestion-collapse",
    "05-rtt-fairness",
    "06-multiple-bottlenecks",
    "07-ecn-red-bufferbloat",
]
#: The notebooks of issue 4 (the seed reports' measurements) -> the seed folder whose
#: report.csv each one reads.
SEED_NOTEBOOKS = {
    "08-cwnd-dynamics": "seed001",
    "09-bufferbloat": "seed002",
    "10-throughput-delay-loss": "seed003",
    "11-aimd-variants": "seed004",
}
CHECK = "nbval-check-output"
IGNORE = "nbval-ignore-output"
MEASUREMENTS_RE = re.compile(r'^MEASUREMENTS\s*=\s*"([^"]+)"\s*$', re.M)
#: An answer-check call (``ok = check("Q4", my_q4)``, bound by ``grading.cell_checker``), not in a comment.
ANSWER_CHECK_RE = re.compile(r"^[^#\n]*(?<![.\w])check\(", re.M)
WIDGET_RE = re.compile(r"viz\.\w+\.(\w+_explorer|answer_checker)\(")


def load(name):
    return json.loads((NB_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))


def code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def output_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append("".join(out["text"]))
        elif out["output_type"] in ("execute_result", "display_data"):
            text = out.get("data", {}).get("text/plain", "")
            parts.append("".join(text) if isinstance(text, list) else text)
    return "".join(parts)


def checked_text(nb):
    """Everything the nbval-compared cells of a notebook print."""
    return "\n".join(output_text(c) for c in code_cells(nb) if CHECK in tags(c))


@pytest.fixture(scope="module", params=NOTEBOOKS)
def notebook(request):
    return request.param, load(request.param)


def test_the_notebooks_of_the_issue_exist():
    found = {p.stem for p in NB_DIR.glob("[0-9][0-9]-*.ipynb")}
    missing = [n for n in NOTEBOOKS if n not in found]
    assert not missing, f"missing notebooks: {missing}"


def test_executed_in_one_run_without_errors(notebook):
    name, nb = notebook
    counts = []
    for k, cell in enumerate(code_cells(nb)):
        if not source(cell).strip():
            continue
        assert cell.get("execution_count") is not None, f"{name}: code cell {k} was not executed"
        counts.append(cell["execution_count"])
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{name}: cell {k} stored an error: {out.get('ename')}"
            if out["output_type"] == "stream":
                assert out["name"] != "stderr", f"{name}: cell {k} wrote to stderr: {''.join(out['text'])[:200]}"
    # one top-to-bottom run in a fresh kernel numbers the cells 1, 2, 3, ...
    assert counts == list(range(1, len(counts) + 1)), f"{name}: not executed top to bottom in one run: {counts}"


def test_every_checked_cell_has_output(notebook):
    name, nb = notebook
    for k, cell in enumerate(code_cells(nb)):
        if CHECK in tags(cell):
            assert output_text(cell).strip(), f"{name}: tagged cell {k} has no stored output to compare"


def test_structure_follows_design(notebook):
    name, nb = notebook
    cells = nb["cells"]
    assert 25 <= len(cells) <= 50, f"{name}: {len(cells)} cells"
    codes = code_cells(nb)
    # the measurement file is one variable, and it points at a file that exists
    paths = [m.group(1) for c in codes for m in MEASUREMENTS_RE.finditer(source(c))]
    assert len(paths) == 1, f"{name}: expected one MEASUREMENTS = \"...\" line, found {paths}"
    assert (NB_DIR / paths[0]).resolve().is_file(), f"{name}: MEASUREMENTS points at a missing file {paths[0]}"
    # an explorer, tagged so that nbval ignores its output
    widget_cells = [c for c in codes if WIDGET_RE.search(source(c))]
    assert widget_cells, f"{name}: no explorer cell"
    for cell in widget_cells:
        assert IGNORE in tags(cell), f"{name}: explorer cell not tagged {IGNORE}: {source(cell)[:80]}"
    # answers are checked: check cells exist and are compared by nbval
    checks = [c for c in codes if ANSWER_CHECK_RE.search(source(c))]
    assert len(checks) >= 3, f"{name}: only {len(checks)} check-your-answer cells"
    for cell in checks:
        assert CHECK in tags(cell), f"{name}: check cell not tagged {CHECK}: {source(cell)[:80]}"
    assert sum(CHECK in tags(c) for c in codes) >= 8, f"{name}: few cells are compared by nbval"
    assert not any(tags(c) >= {CHECK, IGNORE} for c in codes), f"{name}: a cell is tagged both ways"
    # a topology picture, from notebooks/img
    if name != "00-start-here":
        images = re.findall(r"\]\((img/[^)]+)\)", "\n".join(source(c) for c in cells if c["cell_type"] == "markdown"))
        assert images, f"{name}: no topology picture"
        for image in images:
            assert (NB_DIR / image).is_file(), f"{name}: missing picture {image}"


def test_cells_that_print_answers_are_compared(notebook):
    """A cell printing numbers with an explicit format must be compared by nbval."""
    name, nb = notebook
    for k, cell in enumerate(code_cells(nb)):
        text = source(cell)
        if re.search(r"print\(.*\{[^}]*:[^}]*f\}", text) and IGNORE not in tags(cell):
            assert CHECK in tags(cell), f"{name}: cell {k} prints formatted numbers but is not tagged {CHECK}"


def test_outputs_are_deterministic(notebook):
    name, nb = notebook
    text = checked_text(nb)
    for pattern, what in ((r"0x[0-9a-f]{8,}", "a memory address"), (r"/tmp/", "a temporary path"),
                          (r"np\.float64\(", "a numpy scalar repr"), (r"\b20\d\d-\d\d-\d\d\b", "a date"),
                          (r"Warning", "a warning")):
        assert not re.search(pattern, text), f"{name}: compared output contains {what}"


def test_notebooks_stay_small(notebook):
    name, nb = notebook
    pngs = [out["data"]["image/png"] for c in code_cells(nb) for out in c.get("outputs", [])
            if out.get("data", {}).get("image/png")]
    assert len(pngs) <= 8, f"{name}: {len(pngs)} figures"
    for png in pngs:
        assert len(png) < 120_000, f"{name}: a figure of {len(png)} bytes (base64)"
    assert (NB_DIR / f"{name}.ipynb").stat().st_size < 600_000


def _notebooks_reading(csv_name):
    for name in NOTEBOOKS:
        nb = load(name)
        for cell in code_cells(nb):
            match = MEASUREMENTS_RE.search(source(cell))
            if match and Path(match.group(1)).name == csv_name and name != "00-start-here":
                yield name, nb


_DISPLAY = {"bit/s": 1e3, "s": 1e-3, "byte": 1.0, "packet": 1.0, "1": 0.01}


@pytest.mark.parametrize("csv", sorted(p.name for p in (ROOT / "data/measurements/lab5").glob("*.csv")))
def test_every_measured_value_is_shown_by_a_notebook(csv):
    readers = list(_notebooks_reading(csv))
    assert readers, f"no notebook reads {csv}"
    text = "\n".join(checked_text(nb) for _, nb in readers)
    m = load_measurements(ROOT / "data/measurements/lab5" / csv)
    for row in m.itertuples():
        shown = row.value_base / _DISPLAY[row.base_unit]
        forms = {f"{shown:.1f}", f"{shown:.2f}", f"{shown:.0f} ", f"{shown:.0f},", f"{row.value:g} "}
        assert any(f in text for f in forms), (
            f"{csv}: {row.question} {row.scenario} {row.flow} {row.metric} = {row.value} {row.unit} "
            f"is not printed by {[n for n, _ in readers]}")


def test_every_theory_question_is_answered_in_a_notebook():
    from labcalc.labs import lab5

    text = "\n".join(checked_text(load(name)) for name in NOTEBOOKS)
    for question in sorted(set(lab5.answers().question), key=lambda q: int(q[1:])):
        assert re.search(rf"\b{question}\b", text), f"{question} does not appear in any compared output"


def _csv_of(name):
    """The bundled measurement file a notebook reads (its MEASUREMENTS line)."""
    for cell in code_cells(load(name)):
        match = MEASUREMENTS_RE.search(source(cell))
        if match:
            return (NB_DIR / match.group(1)).resolve()
    raise AssertionError(f"{name}: no MEASUREMENTS line")


def _row_key(line):
    """(question, scenario, flow, metric) of one line of a measurement file."""
    return tuple(line.split(",")[:4])


def run_with_measurements(name, csv_path, workdir):
    """Execute notebook ``name`` with MEASUREMENTS pointing at ``csv_path``, in ``workdir``.

    Explorer cells are replaced by ``pass`` (their widgets need no checking here and
    cost a second each). Returns the executed notebook (nbformat node); raises
    ``nbclient.exceptions.CellExecutionError`` when a cell fails.
    """
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    changed = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if MEASUREMENTS_RE.search(cell.source):
            cell.source = MEASUREMENTS_RE.sub(f'MEASUREMENTS = "{Path(csv_path).as_posix()}"', cell.source)
            changed += 1
        if WIDGET_RE.search(cell.source):
            cell.source = "pass  # explorer skipped in this test"
    assert changed == 1, f"{name}: {changed} MEASUREMENTS lines"
    if Path(workdir).resolve() != NB_DIR.resolve():
        # the notebooks open other files as ../data/... (SIMULATED): run in a folder beside a link to data/
        data = Path(workdir) / "data"
        if not data.exists():
            data.symlink_to(ROOT / "data", target_is_directory=True)
        workdir = Path(workdir) / "notebooks"
        workdir.mkdir(exist_ok=True)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(workdir)}}).execute()
    return nb


def write_without(csv_path, rows, target):
    """Copy a measurement file without the lines of ``rows`` ((question, scenario, flow, metric))."""
    lines = Path(csv_path).read_text().splitlines()
    kept = [line for line in lines if _row_key(line) not in set(rows)]
    assert len(lines) - len(kept) == len(set(rows)), f"not every row to drop is in {csv_path}: {rows}"
    Path(target).write_text("\n".join(kept) + "\n")
    return Path(target)


def test_measurements_variable_drives_the_notebook(tmp_path):
    """Point MEASUREMENTS of notebook 02 at an edited copy of its file and re-run it."""
    mine = tmp_path / "my_part2.csv"
    shutil.copy(ROOT / "data/measurements/lab5/part2.csv", mine)
    lines = mine.read_text().splitlines()
    edited = []
    for line in lines:
        if line.startswith("Q14,A2,h1_udp,goodput,"):
            line = "Q14,A2,h1_udp,goodput,900,kbit/s,my own run"
        if line.startswith("Q14,A3,h2_udp,loss,"):
            continue  # a row I did not measure
        edited.append(line)
    mine.write_text("\n".join(edited) + "\n")

    nb = run_with_measurements("02-udp-competition", mine, NB_DIR)
    text = "\n".join(output_text(c) for c in nb.cells if c.cell_type == "code")
    a2 = [line for line in text.splitlines() if line.startswith("A2 h1_udp goodput")]
    assert a2 and all("900.0" in line for line in a2), a2
    missing = [line for line in text.splitlines() if line.startswith("A3 h2_udp loss")]
    # label (3 words), predicted, ns-3 (the simulated column), measured, ...
    assert missing and all(line.split()[5] == "missing" and line.rstrip().endswith("no data")
                           for line in missing), missing
    assert "note: no measurement for Q14 (scenario 'A3', flow 'h2_udp', metric 'loss') in my_part2.csv" in text


#: Rows dropped at once from each notebook's own file (question, scenario, flow, metric):
#: together they reach every cell that looks up a single measurement, so one run per
#: notebook shows that a student's file with rows missing still runs to the end.
DROPPED = {
    "01-framing-and-goodput": [
        ("Q6", "4.5 Mbit/s offered", "h1_udp", "offered_rate"),   # input of a prediction
        ("Q7", "20 Mbit/s offered", "h1_udp", "goodput"),         # summary bars
        ("Q7", "5 Mbit/s offered", "h1_udp", "loss"),             # comparison table
        ("Q10", "5 Mbit/s bottleneck", "h1_tcp", "goodput"),      # TCP table and summary bars
    ],
    "02-udp-competition": [
        ("Q14", "A3", "h1_udp", "goodput"),   # goodput bars and the A3 stacked bars
        ("Q14", "A2", "h2_udp", "loss"),
    ],
    "03-tcp-meets-udp": [
        ("Q18", "B2", "h2_udp", "loss"),      # input of the formulas, the CUBIC check, the sum
        ("Q18", "B2", "h2_tcp", "rtt"),       # input of the formulas and of the curves
        ("Q18", "B3", "h2_tcp", "goodput"),   # the sum, the measured points
        ("Q18", "B1", "h2_tcp", "goodput"),   # B1 table
    ],
    "04-congestion-collapse": [
        ("Q25", "UDP at access rates", "CD", "goodput"),   # table, totals, explorer points
        ("Q26", "UDP at max-min rates", "AB", "goodput"),
        ("Q27", "TCP", "AB", "goodput"),
    ],
    "05-rtt-fairness": [
        ("Q32", "D1", "h2", "goodput"),            # per-connection fairness
        ("Q36", "D2 CUBIC", "h1", "goodput"),      # RTT exponent, share plot
        ("Q37", "D3 Reno", "h2", "goodput"),
    ],
    "06-multiple-bottlenecks": [
        ("Q43", "two bottlenecks", "1to3", "rtt"),       # Reno utility, queueing delays
        ("Q42", "two bottlenecks", "2to3", "goodput"),   # table, totals, bars
    ],
    "07-ecn-red-bufferbloat": [
        ("Q46", "CUBIC without RED/ECN", "r1-eth1", "max_queue"),   # the queue limit
        ("Q46", "CUBIC without RED/ECN", "h1", "rtt_min"),          # RTT range of the explorer
        ("Q47", "CUBIC with RED/ECN", "h2", "goodput"),             # totals, Jain, bars
        ("Q52", "DCTCP with RED/ECN", "h1", "rtt"),                 # table, summary, bar labels
    ],
}


#: What the runs of DROPPED must also print (beyond the notes on the missing rows).
DROPPED_SAYS = {
    # two RTTs for two queues: exactly determined, so no misfit; no Reno allocation without all RTTs
    "06-multiple-bottlenecks": ["2 RTTs for 2 queues: exactly determined", "rows 'Reno, measured RTTs' are left out"],
}


@pytest.mark.parametrize("name", sorted(DROPPED))
def test_notebook_runs_with_measurements_missing(name, tmp_path):
    """A student's file without some rows: the notebook runs, and says what is missing."""
    mine = write_without(_csv_of(name), DROPPED[name], tmp_path / "mine.csv")
    nb = run_with_measurements(name, mine, tmp_path)
    for k, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{name}: code cell {k} failed: {out.get('ename')}"
    text = "\n".join(output_text(c) for c in nb.cells if c.cell_type == "code")
    for question, scenario, flow, metric in DROPPED[name]:
        notes = [line for line in text.splitlines()
                 if f"no measurement for {question} " in line and f"metric '{metric}'" in line]
        assert notes, f"{name}: no note says that {question} {scenario} {flow} {metric} is missing"
        assert all("in mine.csv" in line for line in notes), notes
    for expected in DROPPED_SAYS.get(name, []):
        assert expected in text, f"{name}: {expected!r} not printed"


def test_dropped_rows_reach_every_crash_site():
    """DROPPED covers the measurements that used to stop a notebook when missing."""
    crash_sites = {
        "01-framing-and-goodput": {("Q7", "goodput"), ("Q10", "goodput"), ("Q6", "offered_rate")},
        "03-tcp-meets-udp": {("Q18", "loss"), ("Q18", "rtt"), ("Q18", "goodput")},
        "04-congestion-collapse": {("Q25", "goodput"), ("Q26", "goodput")},
        "05-rtt-fairness": {("Q32", "goodput"), ("Q36", "goodput"), ("Q37", "goodput")},
        "06-multiple-bottlenecks": {("Q43", "rtt"), ("Q42", "goodput")},
        "07-ecn-red-bufferbloat": {("Q46", "rtt_min"), ("Q47", "goodput"), ("Q52", "rtt"), ("Q46", "max_queue")},
    }
    for name, sites in crash_sites.items():
        dropped = {(q, metric) for q, _, _, metric in DROPPED[name]}
        assert sites <= dropped, f"{name}: {sites - dropped} not dropped"




#: Rows a student's file may legitimately hold besides the bundled ones (another flow,
#: another run): the notebooks must ignore them, as their lookups name question, scenario,
#: flow and metric.
EXTRA_ROWS = {
    "00-start-here": ["Q7,5 Mbit/s offered,h2_udp,goodput,10,kbit/s", "Q10,5 Mbit/s bottleneck,h2_tcp,goodput,100,kbit/s"],
    "01-framing-and-goodput": ["Q10,5 Mbit/s bottleneck,h2_tcp,goodput,100,kbit/s",
                               "Q7,20 Mbit/s offered,h2_udp,goodput,10,kbit/s", "Q2,10 Mbit/s bottleneck,h2_tcp,rtt,3,ms"],
    "02-udp-competition": ["Q14,A2,h3_udp,goodput,1,Mbit/s", "Q14,A2 (run 2),h1_udp,loss,3.9,%"],
    "03-tcp-meets-udp": ["Q18,B2,h1_udp,loss,21,%", "Q18,B2 (run 2),h2_tcp,rtt,70,ms", "Q18,B3,h1_tcp,goodput,40,kbit/s"],
    "04-congestion-collapse": ["Q27,TCP run 2,AB,goodput,940,kbit/s", "Q27,TCP run 2,CD,goodput,470,kbit/s"],
    "05-rtt-fairness": ["Q36,D2 CUBIC (run 2),h1,goodput,1500,kbit/s", "Q32,D1,h3,goodput,1,Mbit/s"],
    "06-multiple-bottlenecks": ["Q43,two bottlenecks,1to3,rtt_min,310,ms", "Q42,two bottlenecks (run 2),1to3,goodput,1700,kbit/s"],
    "07-ecn-red-bufferbloat": ["Q47,CUBIC with RED/ECN,h2,rtt,51,ms", "Q52,DCTCP with RED/ECN,h2,rtt,56,ms"],
}


def write_messy(csv_path, extra, target):
    """A copy of a measurement file as a student might type it, with the same measurements.

    No note column, spaces after the commas of the header and of the rows, a trailing
    space after the scenario and the flow, metric names and some units capitalised, the
    first row given twice, and the rows of ``extra`` (other flows and runs) added.
    """
    lines = Path(csv_path).read_text().splitlines()
    units = {"segments": "Segments", "Mbit/s": "MBit/s", "packets": "Packets"}
    out = ["question, scenario, flow, metric, value, unit"]
    for line in lines[1:] + list(extra):
        question, scenario, flow, metric, value, unit = line.split(",")[:6]
        out.append(", ".join([question, scenario + " ", flow + " ", metric.capitalize(), value,
                              units.get(unit, unit)]))
    out.insert(2, out[1])                      # the first measurement twice, with the same value
    Path(target).write_text("\n".join(out) + "\n")
    return Path(target)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_with_a_messy_file(name, tmp_path):
    """Spaces, capitals, no note column, a repeated row, extra flows and runs: the same results."""
    bundled = _csv_of(name)
    mine = write_messy(bundled, EXTRA_ROWS[name], tmp_path / "messy.csv")
    nb = run_with_measurements(name, mine, tmp_path)
    stored = {c.get("id"): c for c in load(name)["cells"]}
    compared = 0
    for k, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{name}: code cell {k} failed: {out.get('ename')}: {out.get('evalue')}"
        # every compared result is unchanged (answer checks aside: they do not read the file);
        # a note on a row the bundled file lacks too now names the messy file
        if CHECK in tags(cell) and not ANSWER_CHECK_RE.search(cell.source):
            expected = output_text(stored[cell.get("id")]).replace(f"in {bundled.name}", "in messy.csv")
            assert output_text(cell) == expected, f"{name}: code cell {k} changed"
            compared += 1
    assert compared >= 3
    text = "\n".join(output_text(c) for c in nb.cells if c.cell_type == "code")
    assert "with the same value; using it once" in text


# --------------------------------------------------------------------------------------
# notebooks 08-11: the seed reports' measurements
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=sorted(SEED_NOTEBOOKS))
def seed_notebook(request):
    return request.param, load(request.param)




def test_the_seed_notebooks_exist():
    for name in SEED_NOTEBOOKS:
        assert (NB_DIR / f"{name}.ipynb").is_file(), name


def test_seed_executed_in_one_run_without_errors(seed_notebook):
    name, nb = seed_notebook
    counts = []
    for k, cell in enumerate(code_cells(nb)):
        if not source(cell).strip():
            continue
        assert cell.get("execution_count") is not None, f"{name}: code cell {k} was not executed"
        counts.append(cell["execution_count"])
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{name}: cell {k} stored an error: {out.get('ename')}"
            if out["output_type"] == "stream":
                assert out["name"] != "stderr", f"{name}: cell {k} wrote to stderr: {''.join(out['text'])[:200]}"
    assert counts == list(range(1, len(counts) + 1)), f"{name}: not executed top to bottom in one run"


def test_seed_every_checked_cell_has_output(seed_notebook):
    name, nb = seed_notebook
    for k, cell in enumerate(code_cells(nb)):
        if CHECK in tags(cell):
            assert output_text(cell).strip(), f"{name}: tagged cell {k} has no stored output"


def test_seed_structure_follows_design(seed_notebook):
    name, nb = seed_notebook
    cells = nb["cells"]
    assert 25 <= len(cells) <= 50, f"{name}: {len(cells)} cells"
    codes = code_cells(nb)
    paths = [m.group(1) for c in codes for m in MEASUREMENTS_RE.finditer(source(c))]
    assert len(paths) == 1, f"{name}: expected one MEASUREMENTS line, found {paths}"
    target = (NB_DIR / paths[0]).resolve()
    assert target.is_file() and target.parent.name == SEED_NOTEBOOKS[name], f"{name}: MEASUREMENTS -> {paths[0]}"
    explorers = [c for c in codes if WIDGET_RE.search(source(c))]
    assert explorers, f"{name}: no explorer cell"
    assert all(IGNORE in tags(c) for c in explorers), f"{name}: an explorer cell is not tagged {IGNORE}"
    checks = [c for c in codes if "grading.check(" in source(c)]
    assert len(checks) >= 5, f"{name}: only {len(checks)} check-your-answer cells"
    assert all(CHECK in tags(c) for c in checks), f"{name}: a check cell is not tagged {CHECK}"
    assert all("Correct:" in output_text(c) for c in checks), f"{name}: a stored example answer is not correct"
    assert sum(CHECK in tags(c) for c in codes) >= 10, f"{name}: few cells are compared by nbval"
    assert not any(tags(c) >= {CHECK, IGNORE} for c in codes), f"{name}: a cell is tagged both ways"
    assert any("compare_measured(" in source(c) for c in codes), f"{name}: no comparison with the measurement file"
    markdown = "\n".join(source(c) for c in cells if c["cell_type"] == "markdown")
    images = re.findall(r"\]\((img/[^)]+)\)", markdown)
    assert images and all((NB_DIR / i).is_file() for i in images), f"{name}: topology picture missing"
    for heading in ("**What you predict.**", "**What you measure.**", "## Check your answers"):
        assert heading in markdown, f"{name}: no {heading!r}"


def test_seed_cells_that_print_answers_are_compared(seed_notebook):
    name, nb = seed_notebook
    for k, cell in enumerate(code_cells(nb)):
        text = source(cell)
        if re.search(r"print\(.*\{[^}]*:[^}]*f\}", text) and IGNORE not in tags(cell):
            assert CHECK in tags(cell), f"{name}: cell {k} prints formatted numbers but is not tagged {CHECK}"


def test_seed_outputs_are_deterministic(seed_notebook):
    name, nb = seed_notebook
    text = checked_text(nb)
    for pattern, what in ((r"0x[0-9a-f]{8,}", "a memory address"), (r"/tmp/", "a temporary path"),
                          (r"np\.float64\(", "a numpy scalar repr"), (r"\b20\d\d-\d\d-\d\d\b", "a date"),
                          (r"Warning", "a warning"), (r"\bnan\b", "a NaN")):
        assert not re.search(pattern, text), f"{name}: compared output contains {what}"


def test_seed_notebooks_stay_small(seed_notebook):
    name, nb = seed_notebook
    pngs = [out["data"]["image/png"] for c in code_cells(nb) for out in c.get("outputs", [])
            if out.get("data", {}).get("image/png")]
    assert len(pngs) <= 6, f"{name}: {len(pngs)} figures"
    assert all(len(p) < 120_000 for p in pngs), f"{name}: a figure over 120 kB (base64)"
    assert (NB_DIR / f"{name}.ipynb").stat().st_size < 600_000


_DISPLAY = {"bit/s": 1e3, "s": 1e-3, "byte": 1.0, "packet": 1.0, "1": 0.01}


@pytest.mark.parametrize("name", sorted(SEED_NOTEBOOKS))
def test_every_seed_report_value_is_shown(name):
    """Each value of the report (inputs aside) appears in the compared output of its notebook."""
    text = checked_text(load(name))
    m = load_measurements(DATA / SEED_NOTEBOOKS[name] / "report.csv")
    for row in m.itertuples():
        if "(input)" in str(row.note):
            continue
        shown = row.value_base / _DISPLAY[row.base_unit]
        forms = {f"{shown:.1f}", f"{shown:.2f}", f"{shown:.0f} ", f"{shown:.0f},", f"{row.value:g} ",
                 f"{row.value:.1f}", f"{row.value:.2f}", f"{row.value:.3f}", f"{row.value:.5f}"}
        assert any(f in text for f in forms), (
            f"{name}: {row.question} {row.scenario} {row.flow} {row.metric} = {row.value} {row.unit} is not printed")


def test_measurements_variable_drives_a_seed_notebook(tmp_path):
    """Point MEASUREMENTS of notebook 10 at an edited copy of its file and run it again."""
    import nbformat
    from nbclient import NotebookClient

    mine = tmp_path / "my_report.csv"
    lines = (DATA / "seed003" / "report.csv").read_text().splitlines()
    edited = [("lab5_2,lossy long link,reno,goodput,2.5,Mbit/s,my own run" if line.startswith(
        "lab5_2,lossy long link,reno,goodput,") else line) for line in lines]
    mine.write_text("\n".join(edited) + "\n")
    nb = nbformat.read(NB_DIR / "10-throughput-delay-loss.ipynb", as_version=4)
    changed = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and MEASUREMENTS_RE.search(cell.source):
            cell.source = MEASUREMENTS_RE.sub(f'MEASUREMENTS = "{mine.as_posix()}"', cell.source)
            changed += 1
        if cell.cell_type == "code" and WIDGET_RE.search(cell.source):
            cell.source = "pass  # explorer skipped in this test"
    assert changed == 1
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NB_DIR)}}).execute()
    text = "\n".join(output_text(c) for c in nb.cells if c.cell_type == "code")
    steady = [line for line in text.splitlines() if line.startswith("reno: steady state")]
    assert steady and all(" 2500 " in line for line in steady), steady
