"""Simulating a lab network in ns-3 (optional extra ``labcalc[sim]``: the ``ns3`` package from PyPI).

:func:`simulate` builds a scenario file or a :class:`~labcalc.network.Network` in ns-3
(point-to-point links with their capacity, delay and queue; TCP flows with a congestion
control ns-3 has, UDP flows at their offered rate), runs it and returns a
:class:`SimResult` whose DataFrames use the columns of :mod:`labcalc.measure`'s readers,
so that theory, simulation and measurement can be put side by side with the same
analysis (``steady_state``, ``cwnd_phases``, manifests, comparison tables).

``import labcalc.sim`` does not import ns-3, and neither does the first :func:`simulate`:
every run happens in a worker process (:mod:`labcalc.sim.runner`) that loads ns-3 once
and stays warm, so that whatever ns-3 aborts on ends that process only
(:class:`SimulationAborted`, with ns-3's message). Values ns-3 cannot take are refused
before (:mod:`labcalc.sim.limits`). Without ns-3 installed, :func:`simulate` raises
:class:`SimulationUnavailable` (an ``ImportError``) saying how to install it.

=============================  ==========================================================
:func:`simulate`               run a scenario or Network in ns-3 -> :class:`SimResult`
:func:`sweep`                  a grid of runs in parallel workers (or on Dask), cached on disk
:class:`SimResult`             goodput, cwnd, rtt, queue, summary; ``.table()``, ``.write()``
:func:`p2p_goodput_bps`        the theory in the simulated links' accounting (IP + PPP)
:func:`p2p_packet_bytes`       bytes one packet takes on an ns-3 point-to-point link
:func:`plan`                   the checked plan of a run, without ns-3 (nodes, flows, packets, time)
:func:`shutdown`               end the worker processes (the next run starts one again)
:func:`tcp_type_id`            ns-3 TypeId of a congestion control name
:func:`available`              whether ns-3 can be imported here (without importing it)
=============================  ==========================================================

Examples
--------
>>> from labcalc import sim
>>> sim.tcp_type_id("cubic")
'ns3::TcpCubic'
>>> from labcalc.data import scenario_path
>>> res = sim.simulate(scenario_path("lab51"), variant="A2", duration_s=10)  # doctest: +SKIP
"""

from __future__ import annotations

import importlib

_LAZY = {
    "simulate": "core",
    "prepare": "core",
    "ACCOUNTING": "core",
    "sweep": "grid",
    "load_run": "grid",
    "expand_grid": "grid",
    "SimResult": "result",
    "file_stem": "result",
    "plan": "planning",
    "Plan": "planning",
    "tcp_type_id": "planning",
    "p2p_goodput_bps": "planning",
    "p2p_packet_bytes": "planning",
    "estimate_packets": "planning",
    "estimate_seconds": "planning",
    "SimulationTooLong": "planning",
    "TCP_VARIANTS": "planning",
    "QUEUE_DISCS": "planning",
    "DEFAULT_QUEUE_PACKETS": "planning",
    "SEGMENT_BYTES": "planning",
    "PPP_HEADER_BYTES": "planning",
    "SimulationUnavailable": "_engine",
    "ns3_version": "_engine",
    "import_seconds": "runner",
    "SimulationAborted": "runner",
    "SimulationTimeout": "runner",
    "shutdown": "runner",
}

__all__ = sorted(_LAZY) + ["available"]


def available() -> bool:
    """Whether the ``ns3`` package is installed here (Linux), without importing it.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(available(), bool)
    True
    """
    import importlib.util
    import sys

    return sys.platform.startswith("linux") and importlib.util.find_spec("ns3") is not None


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'labcalc.sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
