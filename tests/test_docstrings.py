"""Every public function and class documents itself (numpydoc conventions).

For every name in ``__all__`` of the public modules:

- functions have a ``Parameters`` section naming every parameter of the signature and
  no parameter that does not exist (stale documentation), a ``Returns`` (or ``Yields``)
  section unless they return None, and an ``Examples`` section;
- classes other than exceptions and warnings have an ``Attributes`` or ``Parameters``
  section and an ``Examples`` section.

Constants (numbers, tuples, dicts, registries) are not checked. The test is parametrized
by qualified name, so a failure names the function and what it is missing.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap

import pytest

MODULES = [
    "labcalc.units",
    "labcalc.numbers",
    "labcalc.scenario",
    "labcalc.framing",
    "labcalc.network",
    "labcalc.openloop",
    "labcalc.fairness",
    "labcalc.tcp",
    "labcalc.queueing",
    "labcalc.symbolic",
    "labcalc.compare",
    "labcalc.labs",
    "labcalc.labs._framework",
    "labcalc.labs.lab5",
    "labcalc.grading",
    "labcalc.grading.answerfile",
    "labcalc.grading.assignment",
    "labcalc.grading.analysis",
    "labcalc.grading.lmsfiles",
    "labcalc.grading.quiztext",
    "labcalc.grading.report",
    "labcalc.grading.tables",
    "labcalc.grading.notebook",
    "labcalc.grading.messages",
    "labcalc.measure.manifest",
    "labcalc.measure",
    "labcalc.dynamics",
    "labcalc.viz._base",
    "labcalc.viz.charts",
    "labcalc.viz.framing",
    "labcalc.viz.sharing",
    "labcalc.viz.fairness",
    "labcalc.viz.buffers",
    "labcalc.viz.traces",
    "labcalc.viz.response",
    "labcalc.viz.topology",
    "labcalc.viz.answers",
    "labcalc.cli",
    "labcalc.sim.runner",
    "labcalc.sim.grid",
    "labcalc.sim.limits",
]

_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")


def _public_objects():
    """(qualified name, object) for every function and class in the modules' ``__all__``."""
    out = []
    for modname in MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(inspect.unwrap(obj)):
                out.append((f"{modname}.{name}", obj))
    return out


PUBLIC = _public_objects()


def sections(doc: str | None) -> dict[str, list[str]]:
    """Split a numpydoc docstring into ``{header: lines}`` (dedented)."""
    if not doc:
        return {}
    lines = inspect.cleandoc(doc).splitlines()
    out: dict[str, list[str]] = {}
    current = None
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            line.strip()
            and not line.startswith((" ", "\t"))
            and _UNDERLINE.match(nxt)
            and not _UNDERLINE.match(line)
        ):
            current = line.strip()
            out.setdefault(current, [])
            i += 2
            continue
        if current is not None:
            out[current].append(line)
        i += 1
    return out


def documented_names(section: list[str]) -> list[str]:
    """The parameter names of a Parameters section: entry lines split on ', '."""
    block = textwrap.dedent("\n".join(section)).splitlines()
    names = []
    for line in block:
        if not line.strip() or line.startswith((" ", "\t")):
            continue  # blank or description line
        head = line.split(" : ", 1)[0].strip()
        if head.endswith(":"):
            head = head[:-1]
        names.extend(n.strip() for n in head.split(", ") if n.strip())
    return names


def signature_names(obj) -> list[str]:
    """The parameters of a callable, ``*args`` / ``**kwargs`` spelled with their stars."""
    names = []
    for p in inspect.signature(obj).parameters.values():
        if p.name in ("self", "cls"):
            continue
        if p.kind is p.VAR_POSITIONAL:
            names.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            names.append("**" + p.name)
        else:
            names.append(p.name)
    return names


def _own_nodes(func_node):
    """The AST nodes of a function body, without those of nested functions and classes."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    stack = [n for n in func_node.body if not isinstance(n, nested)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, nested))


def return_kind(obj) -> str:
    """``"yields"``, ``"returns"`` or ``"none"`` from the annotation and the source."""
    func = inspect.unwrap(obj)
    ann = inspect.signature(func).return_annotation
    if ann is None or ann == "None":
        return "none"
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return "returns"
    tree = ast.parse(source)
    node = next(
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    )
    kind = "none"
    for n in _own_nodes(node):
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return "yields"
        if isinstance(n, ast.Return) and n.value is not None:
            if not (isinstance(n.value, ast.Constant) and n.value.value is None):
                kind = "returns"
    return kind


def test_public_objects_found():
    assert len(PUBLIC) > 100


@pytest.mark.parametrize("qualname, obj", PUBLIC, ids=[q for q, _ in PUBLIC])
def test_docstring(qualname, obj):
    doc = inspect.getdoc(obj)
    assert doc, f"{qualname}: no docstring"
    secs = sections(obj.__doc__)
    problems = []

    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return
        if "Attributes" not in secs and "Parameters" not in secs:
            problems.append("no 'Attributes' or 'Parameters' section")
        if "Examples" not in secs:
            problems.append("no 'Examples' section")
        assert not problems, f"{qualname}: " + "; ".join(problems)
        return

    params = signature_names(obj)
    if params:
        if "Parameters" not in secs:
            problems.append(f"no 'Parameters' section (parameters: {', '.join(params)})")
        else:
            documented = documented_names(secs["Parameters"])
            missing = [p for p in params if p not in documented]
            stale = [d for d in documented if d not in params]
            if missing:
                problems.append(f"parameters not documented: {', '.join(missing)}")
            if stale:
                problems.append(f"documented parameters that do not exist: {', '.join(stale)}")
    elif "Parameters" in secs and documented_names(secs["Parameters"]):
        stale = documented_names(secs["Parameters"])
        problems.append(f"documented parameters that do not exist: {', '.join(stale)}")

    kind = return_kind(obj)
    if kind == "yields" and "Yields" not in secs and "Returns" not in secs:
        problems.append("no 'Yields' section")
    elif kind == "returns" and "Returns" not in secs and "Yields" not in secs:
        problems.append("no 'Returns' section")

    if "Examples" not in secs:
        problems.append("no 'Examples' section")

    assert not problems, f"{qualname}: " + "; ".join(problems)


def test_parser_reads_combined_and_star_entries():
    def f(a, b, *args, c=1, **kwargs):
        """Summary.

        Parameters
        ----------
        a, b : float
            Two numbers [s].
        *args
            More.
        c : int, default 1
            Description line that mentions x : y and is indented.
        **kwargs
            Options.

        Returns
        -------
        float
            The sum [s].

        Examples
        --------
        >>> 1
        1
        """
        return a + b

    secs = sections(f.__doc__)
    assert set(secs) == {"Parameters", "Returns", "Examples"}
    assert documented_names(secs["Parameters"]) == ["a", "b", "*args", "c", "**kwargs"]
    assert signature_names(f) == ["a", "b", "*args", "c", "**kwargs"]
    assert return_kind(f) == "returns"


def test_return_kind():
    def none(x):
        if x:
            return None

        def inner():
            return 1  # a nested function's return does not count

        inner()
        return

    def gen():
        yield 1

    def annotated() -> None:
        pass

    assert return_kind(none) == "none"
    assert return_kind(gen) == "yields"
    assert return_kind(annotated) == "none"
