"""docs/design.md stays true: every function its formula table names exists where it says.

The newcomer's test of issue 13 -- for any formula the notebooks show, the one function
that computes it, in one hop -- only holds while the table points at real functions; and
every derivation a notebook shows (``labcalc.symbolic``) and every time-domain model
(``labcalc.dynamics``) has its row.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
DESIGN = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")


def _formula_rows():
    table = DESIGN[DESIGN.index("## Where each formula lives"):]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) > 30
    for line in rows:
        _, formula, functions, files, _ = line.split("|")
        yield formula.strip(), re.findall(r"`([a-z_]+\.[a-z_0-9]+)`", functions), re.findall(r"`([^`]+\.py)`", files)


def _defined(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def test_every_function_of_the_formula_table_exists_where_it_says():
    for formula, functions, files in _formula_rows():
        assert functions and files, formula
        defined = set().union(*(_defined(ROOT / f) for f in files))
        for dotted in functions:
            module, name = dotted.split(".")
            assert hasattr(importlib.import_module(f"labcalc.{module}"), name), (formula, dotted)
            assert name in defined, f"{dotted} is not defined in {files} ({formula})"


def test_every_derivation_and_time_domain_model_has_a_row():
    named = {f for _, functions, _ in _formula_rows() for f in functions}
    for module in ("symbolic", "dynamics"):
        public = importlib.import_module(f"labcalc.{module}").__all__
        missing = [f"{module}.{name}" for name in public
                   if callable(getattr(importlib.import_module(f"labcalc.{module}"), name))
                   and not isinstance(getattr(importlib.import_module(f"labcalc.{module}"), name), type)
                   and f"{module}.{name}" not in named]
        assert not missing, f"add rows to docs/design.md for {missing}"
