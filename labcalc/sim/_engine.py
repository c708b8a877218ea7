"""Loading ns-3 once per process and running a :class:`~labcalc.sim.planning.Plan` in it.

The ns-3 import (cppyy compiles the headers: 6-10 s) and the compilation of the C++ half
(:mod:`labcalc.sim._cpp`, about 1 s) happen on the first run of a process and are cached.
Every run starts from a clean ns-3: ``Config::Reset`` and then every default labcalc
relies on set again, the IPv4 address generator reset, the seed and run number of
``RngSeedManager`` set, fixed random-stream numbers; ``Simulator::Destroy`` at the end.
"""

from __future__ import annotations

import importlib.util
import sys
import time

import numpy as np

from labcalc.sim.planning import Plan

__all__ = ["load", "run", "SimulationUnavailable", "ns3_version", "TCP_DEFAULTS"]

_STATE: dict = {}

#: The ns-3 defaults every run sets (``Config::SetDefault``), besides the segment size.
TCP_DEFAULTS = {
    "ns3::TcpSocket::SndBufSize": 6291456,   # Linux's tcp_rmem maximum [bytes]: never the limit here
    "ns3::TcpSocket::RcvBufSize": 6291456,
    "ns3::TcpSocket::InitialCwnd": 10,        # IW10, RFC 6928, as Linux [segments]
    "ns3::TcpSocketBase::MinRto": 0.2,        # Linux's TCP_RTO_MIN [s]
    "ns3::TcpSocket::ConnTimeout": 1.0,       # SYN timeout: Linux's TCP_TIMEOUT_INIT (ns-3: 3 s) [s]
    "ns3::TcpSocket::DataRetries": 15,        # Linux's tcp_retries2 (ns-3: 6) before the connection is dropped
    # SACK: set per run from Plan.sack (simulate's sack=, default True)
    "ns3::TcpSocketBase::Timestamp": True,
    "ns3::TcpSocketBase::WindowScaling": True,
    "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery",
}


class SimulationUnavailable(ImportError):
    """ns-3 (the optional extra ``labcalc[sim]``) is not installed or cannot be loaded."""


def _fail(why: str):
    raise SimulationUnavailable(
        f"ns-3 is not available ({why}); install it with: pip install 'labcalc[sim]' "
        "(the ns3 package from PyPI, Linux only, about 520 MB)")


def load():
    """Import ns-3 and compile labcalc's C++ part once per process; return ``(ns, cppyy)``."""
    if "ns" in _STATE:
        return _STATE["ns"], _STATE["cppyy"]
    if not sys.platform.startswith("linux"):
        _fail(f"the PyPI wheels of ns3 are built for Linux; this is {sys.platform}")
    if importlib.util.find_spec("ns3") is None:
        _fail("no module named 'ns3'")
    t0 = time.perf_counter()
    try:
        from ns import ns  # noqa: PLC0415  (6-10 s: cling parses ns-3's headers)
        import cppyy

        from labcalc.sim._cpp import SOURCE

        cppyy.cppdef(SOURCE)
    except SimulationUnavailable:
        raise
    except Exception as exc:  # a broken install: say what failed
        _fail(f"importing it failed: {type(exc).__name__}: {exc}")
    _STATE.update(ns=ns, cppyy=cppyy, import_s=time.perf_counter() - t0)
    return ns, cppyy


def import_seconds() -> float | None:
    """Wall time the ns-3 import and compilation took in this process [s], or None before."""
    return _STATE.get("import_s")


def ns3_version() -> str:
    """Version of the installed ns3 package, e.g. ``"3.44.post0"``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ns3")
    except PackageNotFoundError:
        return "unknown"


def _vec(v) -> np.ndarray:
    n = int(v.size())
    if n == 0:
        return np.zeros(0)
    return np.frombuffer(v.data(), dtype=np.float64, count=n).copy()


def _defaults(ns, plan: Plan) -> None:
    ns.Config.Reset()
    ns.Ipv4AddressGenerator.Reset()
    ns.RngSeedManager.SetSeed(plan.seed)
    ns.RngSeedManager.SetRun(1)
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(plan.segment_bytes))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(plan.delayed_ack_count))
    for key, value in TCP_DEFAULTS.items():
        if isinstance(value, bool):
            v = ns.BooleanValue(value)
        elif isinstance(value, int):
            v = ns.UintegerValue(value)
        elif isinstance(value, float):
            v = ns.TimeValue(ns.Seconds(value))
        else:
            v = ns.TypeIdValue(ns.TypeId.LookupByName(value))
        ns.Config.SetDefault(key, v)
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(plan.sack))
    # ECN: Off (as a Linux host with net.ipv4.tcp_ecn = 2, which never asks for it) or On
    ns.Config.SetDefault("ns3::TcpSocketBase::UseEcn", ns.StringValue("On" if plan.ecn else "Off"))


def run(plan: Plan) -> dict:
    """Build the plan in ns-3, run it, and return the raw samples as numpy arrays.

    Returns a dict: ``gp_t`` (sample times) and ``gp_bytes`` (times x flows, cumulative
    bytes received), ``cwnd`` / ``ssth`` (flow index, time, old, new), ``rtt`` (flow
    index, time, value), ``q_t`` and ``q_len`` / ``q_drop`` / ``q_bytes`` / ``q_mark`` (times x watched links),
    ``sent`` / ``lost`` per flow, ``wall_s``.
    """
    ns, cppyy = load()
    L = cppyy.gbl.labcalc_sim
    uvec = cppyy.gbl.std.vector["unsigned int"]
    dvec = cppyy.gbl.std.vector["double"]
    t0 = time.perf_counter()
    _defaults(ns, plan)
    L.reset()
    try:
        for _ in range(plan.n_nodes):
            L.add_node()
        L.install_stack()
        index = {}
        for i, link in enumerate(plan.links):
            reverse = link.queue_packets if not link.private else 1000
            red = link.red_attributes
            params = ([red["MinTh"], red["MaxTh"], red["QW"], red["LInterm"], red["MeanPktSize"],
                       red["LinkBandwidth"], float(red["UseEcn"])] if red else [])
            index[link.name] = L.add_link(link.tail, link.head, link.capacity_bps, link.delay_s,
                                          link.queue_size, link.queue_disc, reverse, dvec(params))
        for i, link in enumerate(plan.links):
            if link.error_rate > 0:
                L.add_loss(index[link.name], link.error_rate, 100 + i)
        for f in plan.flows:
            s_link, r_link = index[f"{f.name}:sender"], index[f"{f.name}:receiver"]
            route = [s_link] + [index[n] for n in f.links] + [r_link]
            L.route_flow(uvec(route), r_link, s_link)
            L.add_flow(int(f.transport == "tcp"), f.sender, f.receiver, r_link, s_link, f.payload_rate_bps,
                       f.payload_bytes, f.start_s, f.stop_s, f.tcp_type, True, plan.udp_arrivals == "poisson", plan.ts_rtt)
        watched = [index[link.name] for link in plan.links if not link.private]
        L.run(plan.duration_s, plan.interval_s, plan.queue_interval_s, uvec(watched))
        S = L.S
        n_f, n_l = len(plan.flows), len(watched)
        gp_t = _vec(S.gpT)
        q_t = _vec(S.qT)
        out = {
            "gp_t": gp_t,
            "gp_bytes": _vec(S.gpB).reshape(len(gp_t), n_f),
            "cwnd": (_vec(S.cwF), _vec(S.cwT), _vec(S.cwOld), _vec(S.cwNew)),
            "ssth": (_vec(S.ssF), _vec(S.ssT), _vec(S.ssOld), _vec(S.ssNew)),
            "rtt": (_vec(S.rtF), _vec(S.rtT), _vec(S.rtV)),
            "q_t": q_t,
            "q_len": _vec(S.qLen).reshape(len(q_t), n_l),
            "q_drop": _vec(S.qDrop).reshape(len(q_t), n_l),
            "q_bytes": _vec(S.qBytes).reshape(len(q_t), n_l),
            "q_mark": _vec(S.qMark).reshape(len(q_t), n_l),
            "sent": _vec(S.sent),
            "lost": _vec(S.lost),
        }
    finally:
        L.finish()
    out["wall_s"] = time.perf_counter() - t0
    return out
