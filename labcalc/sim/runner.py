"""Running ns-3 in worker processes, so that nothing ns-3 does can end the user's Python.

ns-3 is C++ loaded into Python through cppyy; when it meets a value it cannot take it does
not raise an exception, it aborts the process (an assertion, ``NS_FATAL_ERROR``, a
floating-point trap). In a notebook that is the kernel. So every simulation runs in a
:class:`Worker`: a child process (``python -m labcalc.sim._worker``) that loads ns-3 once
and then runs one plan after another. If ns-3 aborts, the worker ends, the run raises
:class:`SimulationAborted` with ns-3's own message, and the next run starts a new worker.

* One warm worker per process (:func:`default_worker`) serves :func:`labcalc.sim.simulate`,
  the notebooks' explorer and ``labcalc simulate``: only its first run pays for loading
  ns-3. :func:`start` begins that loading in the background.
* :func:`workers` gives *n* warm workers, the pool that :func:`labcalc.sim.sweep` spreads
  a grid over (the first is the default worker); they stay until :func:`shutdown` or the
  end of the process.
* The worker's standard error goes to a file that the parent reads after each run:
  the lines cling prints at some calls ("Failed to materialize symbols") are dropped
  (:func:`ns3_messages`), anything else is passed on, and an abort's message goes into the
  exception.
* Interrupting the kernel (or Ctrl-C) during a run ends its worker: ns-3 cannot be stopped
  half-way otherwise. A worker also ends when its parent process is gone.

Examples
--------
>>> ns3_messages("[runStaticInitializersOnce]: Failed to materialize symbols: { x }\\nmsg=\\"bad\\"\\n")
['msg="bad"']
>>> issubclass(SimulationAborted, ValueError)
True
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

__all__ = ["Worker", "default_worker", "workers", "idle_worker", "start", "shutdown", "import_seconds", "ns3_messages",
           "SimulationAborted", "SimulationTimeout", "NOISE"]

#: Lines of a worker's standard error that never reach the user (cling's notes at some calls).
NOISE = ("Failed to materialize symbols",)
_HEADER = struct.Struct("<Q")
_ERR_KEEP_BYTES = 1 << 20        # the error file is emptied between runs beyond this size


class SimulationAborted(ValueError):
    """ns-3 ended its worker process during a run (an assertion, a fatal error, a signal).

    The message holds ns-3's own lines. Only that run is lost: the Python that asked for it
    goes on, and the next run starts a new worker.
    """


class SimulationTimeout(TimeoutError):
    """A run took longer than its ``timeout_s``; its worker was stopped."""


def ns3_messages(text: str) -> list:
    """The lines of a worker's standard error worth showing: cling's noise and blank lines dropped.

    Parameters
    ----------
    text : str
        What the worker wrote to its standard error.

    Returns
    -------
    list of str

    Examples
    --------
    >>> ns3_messages("a\\n\\n[x]: Failed to materialize symbols: {}\\nNS_FATAL, terminating\\n")
    ['a', 'NS_FATAL, terminating']
    """
    return [line.rstrip() for line in text.splitlines()
            if line.strip() and not any(noise in line for noise in NOISE)]


def _signal_name(returncode: int) -> str:
    if returncode is not None and returncode < 0:
        try:
            sig = signal.Signals(-returncode)
            return f"signal {sig.name} ({signal.strsignal(sig) or sig.name})"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


class _Gone(Exception):
    """The worker's pipe closed (it ended)."""


class Worker:
    """One ns-3 worker process: loads ns-3 once, then runs plans one at a time.

    Attributes
    ----------
    info : dict or None
        Once loaded: ``import_s`` (loading ns-3 and labcalc's C++ part [s]), ``ns3_version``,
        ``engine`` (``"compiled (<library>)"`` or ``"cling ..."``, see :mod:`labcalc.sim._engine`), ``pid``.
    runs : int
        Runs done by the current process.
    starts : int
        Processes started so far (one more after each abort).

    Examples
    --------
    >>> w = Worker()
    >>> w.alive, w.runs
    (False, 0)
    """

    def __init__(self):
        self._owner = os.getpid()
        self._proc = None
        self._lock = threading.RLock()
        self._err = None
        self.info = None
        self.runs = 0
        self.starts = 0

    @property
    def alive(self) -> bool:
        """Whether the worker process is running (and belongs to this process)."""
        if self._owner != os.getpid():
            # a fork of the process that started it (multiprocessing): the pipes are the parent's
            self._owner, self._proc, self._err, self.info = os.getpid(), None, None, None
            self._lock = threading.RLock()
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> "Worker":
        """Start the process if it is not running (returns at once; ns-3 loads in the background)."""
        with self._lock:
            if self.alive:
                return self
            self._discard()
            from labcalc.sim._engine import check_available

            check_available()
            fd, path = tempfile.mkstemp(prefix="labcalc-ns3-", suffix=".log")
            os.close(fd)
            self._err = open(path, "a+b")     # O_APPEND: the child writes at the end even after a truncate
            os.unlink(path)
            root = str(Path(__file__).resolve().parents[2])
            env = dict(os.environ)
            for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
                env.setdefault(name, "1")     # one core per worker: the pool gives the parallelism
            code = (f"import sys; sys.path.insert(0, {root!r}); "
                    "from labcalc.sim._worker import main; sys.exit(main())")
            self._proc = subprocess.Popen([sys.executable, "-P", "-c", code], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._err, env=env, close_fds=True)
            self.info = None
            self.runs = 0
            self.starts += 1
            if self not in _ALL:
                _ALL.append(self)
            return self

    def _discard(self):
        if self._proc is not None:
            for pipe in (self._proc.stdin, self._proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
        if self._err is not None:
            self._err.close()
        self._proc = self._err = None
        self.info = None

    def _err_size(self) -> int:
        return os.fstat(self._err.fileno()).st_size

    def _err_text(self, since: int) -> str:
        size = self._err_size()
        data = os.pread(self._err.fileno(), max(0, size - since), since) if size > since else b""
        return data.decode("utf-8", "replace")

    def _read(self, n: int, deadline) -> bytes:
        fd = self._proc.stdout.fileno()
        buf = bytearray()
        while len(buf) < n:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SimulationTimeout
                ready, _, _ = select.select([fd], [], [], min(left, 3600.0))   # select refuses huge timeouts
                if not ready:
                    continue
            chunk = os.read(fd, min(n - len(buf), 1 << 20))
            if not chunk:
                raise _Gone
            buf += chunk
        return bytes(buf)

    def _receive(self, deadline=None):
        n = _HEADER.unpack(self._read(_HEADER.size, deadline))[0]
        return pickle.loads(self._read(n, deadline))

    def _send(self, message) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self._proc.stdin.write(_HEADER.pack(len(data)) + data)
        self._proc.stdin.flush()

    def _died(self, since: int, during: str):
        try:
            code = self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            code = self._proc.wait()
        lines = ns3_messages(self._err_text(since))
        self._discard()
        native = "; ".join(line[:300] for line in lines[-8:]) or "(it printed nothing)"
        return code, native

    def ready(self) -> dict:
        """Wait until ns-3 is loaded (starting the worker if needed); return :attr:`info`.

        Raises
        ------
        SimulationUnavailable
            ns-3 is missing or cannot be loaded (the message says why).
        """
        from labcalc.sim._engine import SimulationUnavailable

        with self._lock:
            self.start()
            if self.info is not None:
                return self.info
            try:
                kind, payload = self._receive()
            except _Gone:
                code, native = self._died(0, "loading")
                raise SimulationUnavailable(f"loading ns-3 ended its worker process ({_signal_name(code)}): "
                                            f"{native}") from None
            except BaseException:
                self._discard()
                raise
            if kind != "ready":
                self._discard()
                raise SimulationUnavailable(payload)
            self.info = payload
            return payload

    def run(self, plan, attrs: dict | None = None, timeout_s: float | None = None):
        """Run a checked plan (:func:`labcalc.sim.plan`) and return its :class:`~labcalc.sim.SimResult`.

        Parameters
        ----------
        plan : labcalc.sim.planning.Plan
            What to build; it is run as it is (:func:`labcalc.sim.plan` checks the values
            first, :func:`labcalc.sim.simulate` does both).
        attrs : dict, optional
            The result's ``attrs`` (``wall_s`` and ``setup_s`` are added).
        timeout_s : float, optional
            Wall time the run may take once ns-3 is loaded [s]; the worker is stopped after it.

        Returns
        -------
        SimResult

        Raises
        ------
        SimulationAborted
            ns-3 ended the worker; the message holds its own lines.
        SimulationTimeout
            The run took longer than ``timeout_s``.
        SimulationUnavailable
            ns-3 cannot be loaded.
        """
        if timeout_s is not None and not float(timeout_s) > 0:     # also NaN; inf is no limit
            raise ValueError(f"timeout_s must be a number of seconds > 0 (or None for no limit); got {timeout_s!r}")
        with self._lock:
            self.ready()
            if self._err_size() > _ERR_KEEP_BYTES:
                os.ftruncate(self._err.fileno(), 0)
            since = self._err_size()
            deadline = None if timeout_s is None else time.monotonic() + float(timeout_s)
            try:
                self._send(("run", plan, dict(attrs or {})))
                answer = self._receive(deadline)
            except (_Gone, BrokenPipeError):
                code, native = self._died(since, "running")
                raise SimulationAborted(
                    f"ns-3 stopped this run: its worker process ended with {_signal_name(code)}. "
                    f"ns-3's message: {native} (only this run is lost; the next one starts a new worker)") from None
            except SimulationTimeout:
                self._discard()
                raise SimulationTimeout(f"the run took longer than timeout_s = {timeout_s:g} s; its worker "
                                        "was stopped (the next run starts a new one)") from None
            except BaseException:       # KeyboardInterrupt: ns-3 cannot be stopped half-way but by ending it
                self._discard()
                raise
            self.runs += 1
            for line in ns3_messages(self._err_text(since)):
                print(f"ns-3: {line}", file=sys.stderr)
            if answer[0] == "error":
                _, kind, message = answer
                raise (ValueError if kind == "ValueError" else RuntimeError)(f"{kind} in the ns-3 worker: {message}")
            _, result, notes = answer
            import builtins

            for kind, message in notes:
                category = getattr(builtins, kind, UserWarning)
                warnings.warn(message, category if isinstance(category, type) and issubclass(category, Warning)
                              else UserWarning, stacklevel=2)
            return result

    @property
    def busy(self) -> bool:
        """Whether a run (or the wait for ns-3 to load) is going on in another thread."""
        if self._lock.acquire(blocking=False):
            self._lock.release()
            return False
        return True

    def interrupt(self) -> bool:
        """End the run going on in another thread, if any, by ending the process; True if there was one."""
        if not self.busy:
            return False
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        return True

    def close(self) -> None:
        """End the worker process (it is started again by the next run)."""
        if not self._lock.acquire(timeout=1.0):   # a run is going on in another thread: end it
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()
            return
        try:
            if self.alive:
                try:
                    self._send(("quit",))
                    self._proc.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._discard()
        finally:
            self._lock.release()


_ALL: list = []          # every worker started, for shutdown()
_POOL: list = []         # the warm workers; _POOL[0] is the default one
_POOL_LOCK = threading.Lock()


def workers(n: int = 1) -> list:
    """*n* warm workers (started now if needed; the first is :func:`default_worker`).

    Parameters
    ----------
    n : int, default 1
        How many [processes], >= 1.

    Returns
    -------
    list of Worker

    Raises
    ------
    SimulationUnavailable
        ns-3 is not installed.

    Examples
    --------
    >>> ws = workers(2)  # doctest: +SKIP
    >>> ws[0] is default_worker()  # doctest: +SKIP
    True
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"workers must be a whole number >= 1; got {n!r}")
    with _POOL_LOCK:
        while len(_POOL) < n:
            _POOL.append(Worker())
        chosen = _POOL[:n]
    for w in chosen:
        w.start()
    return chosen


def default_worker() -> Worker:
    """The warm worker of this process (started if needed), which :func:`labcalc.sim.simulate` uses.

    Returns
    -------
    Worker

    Examples
    --------
    >>> default_worker().ready()["ns3_version"]  # doctest: +SKIP
    '3.44.post0'
    """
    return workers(1)[0]


def idle_worker() -> Worker:
    """A warm worker that no other thread is using now, started if every one is busy.

    For callers that run simulations from several threads at once (a Dask worker with
    several threads): each gets a process of its own instead of waiting for the default one.

    Returns
    -------
    Worker

    Examples
    --------
    >>> idle_worker() is default_worker()  # doctest: +SKIP
    True
    """
    with _POOL_LOCK:
        for w in _POOL:
            if not w.busy:
                chosen = w
                break
        else:
            chosen = Worker()
            _POOL.append(chosen)
    return chosen.start()


def start(n: int = 1) -> None:
    """Start loading ns-3 in *n* workers now, in the background (a notebook's first run is then quicker).

    Parameters
    ----------
    n : int, default 1
        Workers to start [processes].

    Examples
    --------
    >>> start()  # doctest: +SKIP
    """
    workers(n)


def import_seconds() -> float | None:
    """Wall time the default worker took to load ns-3 [s]; None before it is loaded.

    Returns
    -------
    float or None

    Examples
    --------
    >>> t = import_seconds()
    >>> t is None or t >= 0
    True
    """
    with _POOL_LOCK:
        first = _POOL[0] if _POOL else None
    return None if first is None or first.info is None else first.info["import_s"]


def shutdown() -> None:
    """End every worker process of this process (the next run starts one again).

    Examples
    --------
    >>> shutdown()
    """
    with _POOL_LOCK:
        started = list(_ALL)
        _ALL.clear()
        _POOL[1:] = []
    for w in started:
        w.close()


atexit.register(shutdown)
