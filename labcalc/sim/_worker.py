"""The worker process that runs ns-3 (``python -m labcalc.sim._worker``; started by :mod:`labcalc.sim.runner`).

It loads ns-3 once (:func:`labcalc.sim._engine.load`), runs one tiny simulation to warm
every code path up, says so, and then answers requests
one at a time on its standard input and output: each message is an 8-byte length and a
pickle. A request ``("run", plan, attrs)`` is answered by ``("ok", SimResult, warnings)`` or,
for a Python exception, ``("error", type name, message)``; ``("quit",)`` or the end of
its input ends the worker. Whatever ns-3 aborts on (an assertion, ``NS_FATAL_ERROR``, a
floating-point trap) ends this process only: its parent sees the pipe close and reads
ns-3's message from this process's standard error, which it gave as a file.

The file descriptor 1 of this process is pointed at its standard error, so that nothing
ns-3 or cling prints can mix with the answers, which go out on a copy of the original
descriptor. The crash handlers that cling installs (they print a stack trace through gdb,
for seconds) are replaced by the default actions once ns-3 is loaded, and a thread ends
the worker when its parent process is gone.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import threading
import time
import warnings

_HEADER = struct.Struct("<Q")


def _read_exact(fd: int, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        b = os.read(fd, min(n - got, 1 << 20))
        if not b:
            return None
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def _send(fd: int, message) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _receive(fd: int):
    head = _read_exact(fd, _HEADER.size)
    if head is None:
        return None
    body = _read_exact(fd, _HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def _watch_parent(parent: int) -> None:
    """End this process when its parent is gone (a killed notebook kernel leaves no worker behind)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(3)


def _warm_up() -> float:
    """One tiny run (TCP and UDP through RED) through every step, so that the first real run pays
    for no first call: pandas' code paths, and with cling the compilation of labcalc's C++ part."""
    from labcalc.network import Link, Network
    from labcalc.sim import _engine
    from labcalc.sim.planning import plan
    from labcalc.sim.result import from_raw

    t0 = time.perf_counter()
    p = plan(Network({"l": Link(1e6, delay_s=0.001)}, {"t": ["l"], "u": ["l"]}), offered_bps={"u": 1e5},
             duration_s=0.08, warmup_s=0.0, queue_disc="red")
    from_raw(p, _engine.run(p), {})
    return time.perf_counter() - t0


def main() -> int:
    out = os.dup(1)               # the answers
    os.dup2(2, 1)                 # anything printed (ns-3, cling, print) goes to the error file
    sys.stdout = sys.stderr
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    from labcalc.sim import _engine

    try:
        _engine.load()
        import scipy.stats  # noqa: F401  (steady_state's t quantile: 1 s of the first answer otherwise)

        import labcalc.sim.result  # noqa: F401  (pandas, for the first answer)
    except _engine.SimulationUnavailable as exc:
        _send(out, ("unavailable", str(exc)))
        return 1
    for name in ("SIGABRT", "SIGSEGV", "SIGFPE", "SIGBUS", "SIGILL"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    warmup_s = _warm_up()
    _send(out, ("ready", {"import_s": _engine.import_seconds(), "warmup_s": warmup_s,
                          "ns3_version": _engine.ns3_version(), "engine": _engine.engine(), "pid": os.getpid()}))
    engine = _engine.engine().split(" ")[0]     # "compiled" or "cling"
    from labcalc.sim.result import from_raw

    while True:
        request = _receive(0)
        if request is None or request[0] == "quit":
            return 0
        _, plan, attrs = request
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                raw = _engine.run(plan)
                result = from_raw(plan, raw, dict(attrs, engine=engine,
                                                  **{k: raw[k] for k in ("wall_s", "setup_s", "cpu_s", "setup_cpu_s")}))
            notes = [(w.category.__name__, str(w.message)) for w in caught]
            answer = ("ok", result, notes)
        except Exception as exc:  # noqa: BLE001 - sent to the parent, which raises it there
            answer = ("error", type(exc).__name__, str(exc))
        _send(out, answer)


if __name__ == "__main__":
    sys.exit(main())
