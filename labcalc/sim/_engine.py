"""Loading ns-3 into the current process and running a :class:`~labcalc.sim.planning.Plan` in it.

This module runs inside a worker process (:mod:`labcalc.sim._worker`, started by
:mod:`labcalc.sim.runner`), never in the user's Python: whatever ns-3 aborts on ends the
worker only.

Loading takes only what labcalc uses. ``from ns import ns`` (the ``ns3`` package's own
loader) parses the headers of all 40-odd ns-3 modules with cling and loads every library:
6-7 s on an idle machine here, most of the first run. :func:`load` parses the headers of
the six modules :mod:`labcalc.sim._cpp` needs (``_cpp.MODULES``) and loads their libraries
and the ones they link: about 1 s. Then cling compiles labcalc's C++ part (about 1 s).

Every run starts from a clean ns-3 (``labcalc_sim::begin``: ``Config::Reset``, every default
labcalc relies on set again, the IPv4 address generator reset, seed and run number set;
fixed random-stream numbers) and ends with ``Simulator::Destroy``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

__all__ = ["load", "run", "SimulationUnavailable", "ns3_version", "check_available", "TCP_DEFAULTS",
           "import_seconds", "engine", "library_path", "cache_dir", "COMPILE_FLAGS"]

_STATE: dict = {}

#: The ns-3 defaults every run sets (``Config::SetDefault``), besides segment size, delayed
#: ACKs, SACK and ECN (set per run from the plan).
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


def check_available() -> None:
    """Raise :class:`SimulationUnavailable` (saying how to install it) unless ns-3 can be loaded here."""
    if not sys.platform.startswith("linux"):
        _fail(f"the PyPI wheels of ns3 are built for Linux; this is {sys.platform}")
    if importlib.util.find_spec("ns3") is None:
        _fail("no module named 'ns3'")


def _ns3_dirs():
    """(include folder, library folder) of the installed ns3 package, found without importing it."""
    spec = importlib.util.find_spec("ns3")
    for root in spec.submodule_search_locations or ():
        include = os.path.join(root, "include")
        for lib in ("lib64", "lib"):
            if os.path.isdir(os.path.join(root, lib)) and os.path.isdir(include):
                return include, os.path.join(root, lib)
    _fail(f"the ns3 package at {list(spec.submodule_search_locations or [])} has no include/ and lib64/ folders")


def _libraries(lib_dir: str, modules) -> list:
    """The library files of ``modules`` (their own ns-3 dependencies load with them: ``$ORIGIN`` run path)."""
    import re

    files = {}
    for name in os.listdir(lib_dir):
        m = re.fullmatch(r"libns3[.\d]*-([\w-]+?)\.so", name)
        if m:
            files[m.group(1)] = os.path.join(lib_dir, name)
    missing = [m for m in modules if m not in files]
    if missing:
        _fail(f"the ns3 package has no library for the module(s) {', '.join(missing)} in {lib_dir}")
    return [files[m] for m in modules]


#: How the compiled library is built (with the headers and libraries of the ns3 package).
COMPILE_FLAGS = ("-std=c++20", "-O2", "-fPIC", "-shared", "-w")


def cache_dir() -> Path:
    """Folder of labcalc's caches: ``$LABCALC_CACHE_DIR``, else ``$XDG_CACHE_HOME/labcalc`` or ``~/.cache/labcalc``."""
    own = os.environ.get("LABCALC_CACHE_DIR")
    if own:
        return Path(own)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "labcalc"


def _compiler() -> str | None:
    for name in (os.environ.get("CXX"), "g++", "c++", "clang++"):
        found = shutil.which(name) if name else None
        if found:
            return found
    return None


def library_path() -> Path:
    """Where the compiled C++ part of this labcalc and this ns-3 is kept (whether it exists yet or not)."""
    from labcalc.sim._cpp import MODULES, SOURCE

    include, lib = _ns3_dirs()
    key = hashlib.sha256("\0".join([SOURCE, *MODULES, *COMPILE_FLAGS, ns3_version(), include, lib]).encode())
    return cache_dir() / f"ns3-{ns3_version()}" / f"liblabcalc_sim-{key.hexdigest()[:16]}.so"


def _compile(path: Path) -> str | None:
    """Compile :mod:`labcalc.sim._cpp` into ``path`` (once; concurrent workers wait); None, or why not."""
    import fcntl
    import subprocess

    from labcalc.sim._cpp import MODULES, SOURCE

    failed = path.with_suffix(".failed")
    if failed.exists():
        return failed.read_text(encoding="utf-8", errors="replace")
    cxx = _compiler()
    if cxx is None:
        return "no C++ compiler found (g++, c++ or clang++; or set CXX)"
    include, lib = _ns3_dirs()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if path.exists():
                return None
            tmp = path.with_name(f".{path.stem}-{os.getpid()}")
            src, out = tmp.with_suffix(".cc"), tmp.with_suffix(".so")
            src.write_text("".join(f'#include "ns3/{m}-module.h"\n' for m in MODULES) + SOURCE, encoding="utf-8")
            cmd = [cxx, *COMPILE_FLAGS, f"-I{include}", str(src), "-o", str(out), *_libraries(lib, MODULES),
                   f"-Wl,-rpath,{lib}"]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
                if proc.returncode != 0:
                    why = f"{os.path.basename(cxx)} failed: " + " ".join((proc.stderr or proc.stdout).split())[-600:]
                    failed.write_text(why, encoding="utf-8")
                    return why
                os.replace(out, path)
            finally:
                for leftover in (src, out):
                    leftover.unlink(missing_ok=True)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


_CTYPES = {"u32": "c_uint32", "u64": "c_uint64", "i32": "c_int", "i64": "c_int64", "f64": "c_double",
           "str": "c_char_p"}


def _load_compiled(path: Path):
    import ctypes

    from labcalc.sim._cpp import API

    lib = ctypes.CDLL(str(path))
    arrays = {"f64*": np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS"),
              "u32*": np.ctypeslib.ndpointer(np.uint32, flags="C_CONTIGUOUS")}
    for name, result, args in API:
        f = getattr(lib, name)
        f.restype = getattr(ctypes, _CTYPES[result]) if result else None
        f.argtypes = [arrays[a] if a in arrays else getattr(ctypes, _CTYPES[a]) for a in args]
    return lib


def _load_cling():
    import cppyy
    import libcppyy

    from labcalc.sim._cpp import MODULES, SOURCE

    include, lib = _ns3_dirs()
    libcppyy.AddSmartPtrType("Ptr")        # as the ns3 package's loader does
    cppyy.add_include_path(include)
    cppyy.add_library_path(lib)
    for module in MODULES:
        cppyy.include(f"ns3/{module}-module.h")
    for path in _libraries(lib, MODULES):
        cppyy.load_library(path)
    cppyy.cppdef(SOURCE)
    api = cppyy.gbl
    api.lc_run.__release_gil__ = True      # the worker's watchdog thread runs during Simulator::Run
    return api


def load(engine: str | None = None):
    """Load ns-3 and labcalc's C++ part once per process; return the ``lc_*`` functions.

    ``engine`` (default: ``$LABCALC_SIM_ENGINE``, else ``"auto"``): ``"compiled"`` builds
    the C++ part once with the system's compiler into :func:`library_path` and loads it
    with ctypes (no header is parsed: about 0.1 s); ``"cling"`` has cppyy parse the
    needed headers and compile it (3-4 s); ``"auto"`` compiles if it can, else uses cling.
    """
    if "api" in _STATE:
        return _STATE["api"]
    check_available()
    engine = engine or os.environ.get("LABCALC_SIM_ENGINE") or "auto"
    if engine not in ("auto", "compiled", "cling"):
        raise ValueError(f"LABCALC_SIM_ENGINE must be auto, compiled or cling; got {engine!r}")
    t0 = time.perf_counter()
    why = None
    try:
        if engine != "cling":
            path = library_path()
            why = None if path.exists() else _compile(path)
            if why is None:
                api, used = _load_compiled(path), f"compiled ({path})"
            elif engine == "compiled":
                _fail(f"labcalc's C++ part could not be compiled: {why}")
        if engine == "cling" or why is not None:
            api, used = _load_cling(), "cling" + (f" (not compiled: {why})" if why else "")
    except SimulationUnavailable:
        raise
    except Exception as exc:  # a broken install: say what failed
        _fail(f"loading it failed: {type(exc).__name__}: {exc}")
    _STATE.update(api=api, engine=used, import_s=time.perf_counter() - t0)
    return api


def engine() -> str | None:
    """How this process runs labcalc's C++ part (``"compiled (<path>)"`` or ``"cling ..."``), or None before."""
    return _STATE.get("engine")


def import_seconds() -> float | None:
    """Wall time loading ns-3 and compiling labcalc's C++ part took in this process [s], or None before."""
    return _STATE.get("import_s")


def ns3_version() -> str:
    """Version of the installed ns3 package, e.g. ``"3.44.post0"``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ns3")
    except PackageNotFoundError:
        return "unknown"


def _defaults(api, plan) -> None:
    api.lc_begin(plan.seed)
    values = dict(TCP_DEFAULTS)
    values.update({"ns3::TcpSocket::SegmentSize": plan.segment_bytes,
                   "ns3::TcpSocket::DelAckCount": plan.delayed_ack_count,
                   "ns3::TcpSocketBase::Sack": plan.sack,
                   # simulate(socket_buffer_bytes=): the largest window
                   "ns3::TcpSocket::SndBufSize": plan.socket_buffer_bytes,
                   "ns3::TcpSocket::RcvBufSize": plan.socket_buffer_bytes})
    for key, value in values.items():
        if isinstance(value, bool):
            kind, text = "bool", "1" if value else "0"
        elif isinstance(value, int):
            kind, text = "uint", str(value)
        elif isinstance(value, float):
            kind, text = "time", repr(value)
        else:
            kind, text = "typeid", value
        api.lc_set_default(key.encode(), kind.encode(), text.encode())
    # ECN: Off (as a Linux host with net.ipv4.tcp_ecn = 2, which never asks for it) or On
    api.lc_set_default(b"ns3::TcpSocketBase::UseEcn", b"string", b"On" if plan.ecn else b"Off")
    api.lc_set_linux_rto(int(plan.linux_rto))   # labcalc's socket: Linux's RTO (simulate(linux_rto=))


def _u32(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.uint32)


def run(plan) -> dict:
    """Build the plan in ns-3, run it, and return the raw samples as numpy arrays.

    Returns a dict: ``gp_t`` (sample times) and ``gp_bytes`` (times x flows, cumulative
    bytes received), ``cwnd`` / ``ssth`` (flow index, time, old, new), ``rtt`` (flow
    index, time, value), ``q_t`` and ``q_len`` / ``q_drop`` / ``q_bytes`` / ``q_mark`` (times x watched links),
    ``sent`` / ``lost`` per flow, ``wall_s`` and ``setup_s`` (of it, the building before ``Simulator::Run``),
    ``cpu_s`` and ``setup_cpu_s`` (the same in CPU time of the process, which other processes do not slow down).
    """
    from labcalc.sim._cpp import RESULTS

    api = load()
    t0, c0 = time.perf_counter(), time.process_time()
    _defaults(api, plan)
    try:
        for _ in range(plan.n_nodes):
            api.lc_add_node()
        api.lc_install_stack()
        index = {}
        for link in plan.links:
            reverse = link.queue_packets if not link.private else 1000
            red = link.red_attributes
            params = np.array([red["MinTh"], red["MaxTh"], red["QW"], red["LInterm"], red["MeanPktSize"],
                               red["LinkBandwidth"], float(red["UseEcn"])] if red else [0.0], dtype=np.float64)
            index[link.name] = int(api.lc_add_link(link.tail, link.head, float(link.capacity_bps), float(link.delay_s),
                                                   link.queue_size.encode(), link.queue_disc.encode(), reverse,
                                                   params, 7 if red else 0))
        for i, link in enumerate(plan.links):
            if link.error_rate > 0:
                api.lc_add_loss(index[link.name], float(link.error_rate), 100 + i)
        for f in plan.flows:
            s_link, r_link = index[f"{f.name}:sender"], index[f"{f.name}:receiver"]
            route = _u32([s_link] + [index[n] for n in f.links] + [r_link])
            api.lc_route_flow(route, len(route), r_link, s_link)
            api.lc_add_flow(int(f.transport == "tcp"), f.sender, f.receiver, r_link, s_link,
                            float(f.payload_rate_bps), f.payload_bytes, float(f.start_s), float(f.stop_s),
                            f.tcp_type.encode(), 1, int(plan.udp_arrivals == "poisson"), int(plan.ts_rtt))
        watched = _u32([index[link.name] for link in plan.links if not link.private] or [0])
        n_l = sum(not link.private for link in plan.links)
        setup_s, setup_cpu_s = time.perf_counter() - t0, time.process_time() - c0
        api.lc_run(float(plan.duration_s), float(plan.interval_s), float(plan.queue_interval_s), watched, n_l)
        vec = {}
        for k, name in enumerate(RESULTS):
            v = np.empty(int(api.lc_size(k)), dtype=np.float64)
            if len(v):
                api.lc_copy(k, v)
            vec[name] = v
    finally:
        api.lc_finish()
    n_f = len(plan.flows)
    gp_t, q_t = vec["gpT"], vec["qT"]
    out = {
        "gp_t": gp_t,
        "gp_bytes": vec["gpB"].reshape(len(gp_t), n_f),
        "cwnd": (vec["cwF"], vec["cwT"], vec["cwOld"], vec["cwNew"]),
        "ssth": (vec["ssF"], vec["ssT"], vec["ssOld"], vec["ssNew"]),
        "rtt": (vec["rtF"], vec["rtT"], vec["rtV"]),
        "q_t": q_t,
        "q_len": vec["qLen"].reshape(len(q_t), n_l),
        "q_drop": vec["qDrop"].reshape(len(q_t), n_l),
        "q_bytes": vec["qBytes"].reshape(len(q_t), n_l),
        "q_mark": vec["qMark"].reshape(len(q_t), n_l),
        "sent": vec["sent"],
        "lost": vec["lost"],
        "wall_s": time.perf_counter() - t0,
        "setup_s": setup_s,
        "cpu_s": time.process_time() - c0,
        "setup_cpu_s": setup_cpu_s,
    }
    return out
