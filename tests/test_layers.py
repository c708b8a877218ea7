"""The house rules that keep the package navigable, checked on every run.

* The layers of ``docs/design.md`` (upper may import lower, never the reverse) and the
  absence of import cycles between sibling modules are import-linter contracts written in
  ``pyproject.toml``; this test runs them.
* No private name (``_name``) is imported from another module: a helper that two modules
  need is public in the module that owns it. Private *modules* (``labcalc._textio``,
  ``labcalc.measure._common``) are governed by import-linter's private-modules contract.
* No module is much over 800 lines, so that each one stays readable in one sitting.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "labcalc"
MAX_MODULE_LINES = 850
MAX_FUNCTION_LINES = 100  # lines of code: no blank lines, comments or docstring


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):
        return False


def _lint_imports() -> subprocess.CompletedProcess:
    lint = pathlib.Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)


def test_layer_contracts_hold():
    result = _lint_imports()
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_an_upward_import_breaks_the_contract():
    # The contract must be able to fail: a core module importing grading is refused.
    probe = PACKAGE / "tcp" / "_layer_probe_tmp.py"
    probe.write_text("import labcalc.grading  # noqa: F401\n", encoding="utf-8")
    try:
        result = _lint_imports()
    finally:
        probe.unlink()
    assert result.returncode != 0
    assert "labcalc.tcp._layer_probe_tmp" in result.stdout and "labcalc.grading" in result.stdout


def _layered_modules() -> set[str]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    return {name.strip() for layer in layers for name in layer.replace("|", ":").split(":")}


def test_every_top_level_module_has_a_layer():
    # A module that is in no layer escapes the contract: a new labcalc/foo.py importing
    # labcalc.viz would pass, and a core module importing foo would reach upwards
    # through it unseen. Each module and package directly under labcalc/ must be placed.
    top = {f"labcalc.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    top |= {f"labcalc.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    assert top - _layered_modules() == set(), "add these to a layer in pyproject.toml"


def _private_imports():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _resolve(module, node, package)
            for alias in node.names:
                name = alias.name
                if not name.startswith("_") or name.startswith("__"):
                    continue
                if _is_module(f"{source}.{name}"):
                    continue  # a private module: the private-modules contract covers it
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name} from {source}")
    return found


def test_no_private_name_crosses_a_module():
    assert _private_imports() == []


def test_the_scan_sees_a_private_import():
    # The scan itself must be able to fail: a module importing a private helper is found.
    bad = PACKAGE / "_layers_probe_tmp.py"
    bad.write_text("from labcalc.units import _probe_helper\n", encoding="utf-8")
    try:
        assert any("_probe_helper" in line for line in _private_imports())
    finally:
        bad.unlink()


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_module_size(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by topic"


def _long_functions():
    """Functions of more than MAX_FUNCTION_LINES lines of code, and whether a comment
    starting "Long because" stands beside them (above the ``def`` or at the top of the body)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            body = node.body
            has_doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                       and isinstance(body[0].value.value, str))
            if has_doc and len(body) == 1:
                continue
            start = body[1].lineno if has_doc else body[0].lineno
            code = [line for line in lines[start - 1:node.end_lineno]
                    if line.strip() and not line.strip().startswith("#")]
            if len(code) <= MAX_FUNCTION_LINES:
                continue
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            top = body[0].end_lineno if has_doc else node.lineno  # comments before the first statement
            beside = lines[max(0, first - 6):first - 1] + lines[top:start + 5]
            reason = any(line.strip().startswith("# Long because") for line in beside)
            found.append((f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({len(code)} lines)", reason))
    return found


def test_a_long_function_says_why():
    # issue 13: no function over about 100 lines of code without a reason written beside
    # it (a comment "# Long because ..." just above the def or at the top of its body)
    found = _long_functions()
    assert found, "the scan should see the few long functions that have a reason"
    assert [name for name, reason in found if not reason] == []
