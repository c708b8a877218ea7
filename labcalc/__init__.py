"""labcalc: theory and measurements for congestion-control lab work.

The package is split into one module per topic (``docs/design.md`` is the map):

- :mod:`labcalc.units`      unit helpers and the one unit grammar (answers, files, scenarios)
- :mod:`labcalc.numbers`    reading a typed number: normalisation, number and unit split
- :mod:`labcalc.framing`    header sizes, frame / wire / shaper sizes, efficiency, goodput
- :mod:`labcalc.network`    links, flows, routing matrix
- :mod:`labcalc.scenario`   scenario TOML files read, checked and turned into networks
- :mod:`labcalc.openloop`   UDP without congestion control through drop-tail FIFOs
- :mod:`labcalc.fairness`   max-min, proportional, alpha-fair and TCP-Reno allocations
- :mod:`labcalc.tcp`        loss-throughput formulas, RTT bias, CUBIC, BDP
- :mod:`labcalc.dynamics`   time-domain models: sawtooth, slow-start rounds, AIMD, Chiu-Jain
- :mod:`labcalc.queueing`   buffer delays and queueing delays inferred from RTTs
- :mod:`labcalc.symbolic`   sympy derivations shown in the notebooks
- :mod:`labcalc.compare`    predictions next to measurements
- :mod:`labcalc.measure`    readers for the tools' outputs (iperf, ping, ss, tc, ...)
- :mod:`labcalc.labs`       one package per lab handout behind a registry (the Lab framework)
- :mod:`labcalc.grading`    answers checked, classes graded, quizzes exported
- :mod:`labcalc.viz`        figures and widget explorers, by topic

Submodules are imported lazily, so ``import labcalc`` stays fast (no numpy, pandas,
scipy or cvxpy until a module that needs them is touched).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_SUBMODULES = {
    "units",
    "numbers",
    "framing",
    "network",
    "scenario",
    "openloop",
    "fairness",
    "tcp",
    "queueing",
    "labs",
    "compare",
    "symbolic",
    "data",
    "measure",
    "grading",
    "dynamics",
    "viz",
    "cli",
}

__all__ = sorted(_SUBMODULES) + ["__version__", "notebook_setup"]


def notebook_setup(precision: int = 4) -> None:
    """Prepare a notebook: pandas/numpy display precision, matplotlib defaults, warnings.

    Call it once in the first code cell of every notebook; see :mod:`labcalc._notebook`.

    Examples
    --------
    >>> import labcalc
    >>> labcalc.notebook_setup()
    """
    from labcalc._notebook import setup

    setup(precision)


def __getattr__(name: str):
    # PEP 562 lazy submodules: `labcalc.framing` works without an explicit import,
    # while `import labcalc` itself imports nothing heavy.
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'labcalc' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES)
