"""Every handout notebook reads its measurements from a manifest as well as from a tidy CSV.

Issue 10 promises that ``MEASUREMENTS`` of a notebook may be a tidy CSV, a measurement
manifest (``.toml``) or a folder holding one, with no other change to the notebook. This
test reads each notebook that has a ``MEASUREMENTS = "..."`` line (at test time, so that
edits to the notebooks are followed), writes a manifest whose ``[[table]]`` carries that
CSV's rows (a folder of tidy CSVs: all their rows), and replays the notebook twice in one kernel: with the CSV and with the
manifest. The outputs of the cells tagged ``nbval-check-output`` must be the same text in
both runs; the folder holding the manifest must load to the very same table. Nothing is written into ``notebooks/``: the kernel
runs in a temporary folder beside a link to ``data/`` (the notebooks open ``../data/...``).

One kernel per notebook keeps the run short (the imports are paid once); between runs the
namespace is reset and the warnings registry is cleared, so that a warning printed in the
first run is printed again in the next.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "notebooks"
CHECK = "nbval-check-output"
MEASUREMENTS_RE = re.compile(r'^MEASUREMENTS\s*=\s*"([^"]+)"\s*$', re.M)
#: Explorer cells build widgets: nothing to compare as text, and a second each.
EXPLORER_RE = re.compile(r"\b\w+_explorer\(|answer_checker\(")


def _notebooks():
    found = []
    for path in sorted(NB_DIR.glob("[0-9][0-9]-*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if cell["cell_type"] == "code" and MEASUREMENTS_RE.search(text):
                found.append(path.stem)
                break
    return found


NOTEBOOKS = _notebooks()

#: Run before each replay: a clean namespace, and the "already shown" warning registries
#: cleared (appending a filter that changes nothing bumps the filters' version).
RESET = ("%reset -f\nimport warnings as _w\n_w.simplefilter('default', append=True)\ndel _w")


def _text(outputs) -> str:
    """What a cell printed and showed, as text; consecutive chunks of one stream are joined
    (the kernel may split a print in two messages, as nbval's own comparison allows)."""
    parts, last = [], None
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            if last != out["name"]:
                parts.append(f"[{out['name']}] ")
            parts.append(out["text"])
            last = out["name"]
            continue
        last = None
        if kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            parts.append(data.get("text/plain", "") if "text/plain" in data else "<" + ",".join(sorted(data)) + ">")
        elif kind == "error":
            parts.append(f"ERROR {out['ename']}: {out['evalue']}")
    # object addresses are not part of what a cell says
    return re.sub(r" at 0x[0-9a-f]+", " at 0x…", "".join(parts))


def _replays(name: str, variants: dict, workdir: Path) -> dict:
    """Run notebook *name* once per variant (label -> MEASUREMENTS path) in one kernel.

    Returns label -> list of (cell index, output text) of the check cells and of every
    cell that raised (the run goes on, so that the report names each failing cell).
    """
    nb = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    lines = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and MEASUREMENTS_RE.search(c.source)]
    assert len(lines) == 1, f"{name}: {len(lines)} MEASUREMENTS lines"
    original = nb.cells[lines[0]].source
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": str(workdir)}})
    results = {}
    with client.setup_kernel():
        for label, path in variants.items():
            client.execute_cell(nbformat.v4.new_code_cell(RESET), 0)
            checks = []
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                if index == lines[0]:
                    cell.source = MEASUREMENTS_RE.sub(f'MEASUREMENTS = "{Path(path).as_posix()}"', original)
                elif EXPLORER_RE.search(cell.source):
                    cell.source = "pass  # explorer skipped in this test"
                client.execute_cell(cell, index)
                errors = [o for o in cell.outputs if o.get("output_type") == "error"]
                if CHECK in cell.metadata.get("tags", []) or errors:
                    checks.append((index, _text(cell.outputs)))
            results[label] = checks
    return results


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_gives_the_same_checked_outputs_from_a_manifest(name, tmp_path):
    nb = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    written = next(MEASUREMENTS_RE.search(c.source).group(1) for c in nb.cells
                   if c.cell_type == "code" and MEASUREMENTS_RE.search(c.source))
    target = (NB_DIR / written).resolve()
    assert target.exists(), f"{name}: MEASUREMENTS names {written}, which does not exist"
    from labcalc.measure.manifest import build_manifest, find_manifest, write_measurements

    if target.is_dir() and find_manifest(target) is None:
        # a folder of tidy CSVs (14-simulate-the-lab reads all the handout's part files):
        # the same rows, in the same order, in one CSV
        import pandas as pd

        tidy = tmp_path / "all-parts.csv"
        parts = [pd.read_csv(f, dtype=str, keep_default_na=False) for f in sorted(target.glob("*.csv"))]
        pd.concat(parts, ignore_index=True).fillna("").to_csv(tidy, index=False)
    elif target.is_dir() or target.suffix == ".toml":
        # the notebook reads a manifest already (13-bring-your-own-files): its own rows,
        # built, give the tidy CSV to compare with
        tidy = tmp_path / "built.csv"
        write_measurements(build_manifest(target), tidy)
    else:
        tidy = target
    folder = tmp_path / "mine"
    folder.mkdir()
    manifest = folder / "manifest.toml"
    # a manifest reads the files of its own folder (and below): the table sits beside it
    (folder / tidy.name).write_bytes(tidy.read_bytes())
    manifest.write_text(f'[[table]]\nfile = "{tidy.name}"\n', encoding="utf-8")
    # the notebooks open other files as ../data/...: a stand-in folder next to a link to data/
    work = tmp_path / "notebooks"
    work.mkdir()
    (tmp_path / "data").symlink_to(ROOT / "data", target_is_directory=True)
    for entry in NB_DIR.iterdir():
        if entry.suffix != ".ipynb" and not entry.name.startswith("."):
            (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    runs = _replays(name, {"csv": tidy, "manifest": manifest}, work)
    # the one difference allowed: a note naming the file the rows were read from
    for label, file_name in (("csv", tidy.name), ("manifest", manifest.name)):
        runs[label] = [(i, t.replace(file_name, "<MEASUREMENTS file>")) for i, t in runs[label]]
    assert runs["csv"], f"{name}: no cell tagged {CHECK}"
    # a folder holding the manifest is read as the manifest itself (the same table, row for
    # row), so the notebook is not replayed a third time for it
    from labcalc.compare import load_measurements

    by_folder = load_measurements(folder, quiet=True)
    by_manifest = load_measurements(manifest, quiet=True)
    assert by_folder.equals(by_manifest), f"{name}: the folder and its manifest give different tables"
    for label in ("manifest",):
        assert [i for i, _ in runs[label]] == [i for i, _ in runs["csv"]]
        for (index, want), (_, got) in zip(runs["csv"], runs[label]):
            assert got == want, f"{name}, cell {index}, MEASUREMENTS = {label}:\n{got}\n--- with the CSV ---\n{want}"
    failed = [(i, t) for i, t in runs["csv"] if "ERROR " in t]
    assert not failed, f"{name}: cells failed even with the tidy CSV: {failed[:3]}"
