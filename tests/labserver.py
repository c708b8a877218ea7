"""Start and stop a JupyterLab server for tests (newcomer path and browser tests)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from labcalc._lab import free_port

REPO = Path(__file__).resolve().parents[1]


def _get(url: str, timeout: float = 5.0):
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - loopback only
        return response.status, response.read()


@contextmanager
def lab_server(notebooks: Path | None = None, expose_app: bool = False, startup_timeout: float = 90.0):
    """Run ``python -m labcalc._lab --no-browser`` (what ``make lab`` runs) on a free port.

    Yields a dict with ``url`` (base), ``token``, ``port``, ``banner`` (the line the
    command printed). The server is stopped in every case, also when the test fails.
    """
    port = free_port()
    token = "labcalc-test-" + os.urandom(8).hex()
    cmd = [sys.executable, "-m", "labcalc._lab", "--no-browser", "--port", str(port), "--token", token]
    if notebooks is not None:
        cmd += ["--notebooks", str(notebooks)]
    if expose_app:
        cmd.append("--expose-app")
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"labcalc-lab-{port}.log", "w+")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"JupyterLab exited with {proc.returncode}:\n{log.read()[-3000:]}")
            try:
                status, body = _get(f"{base}/api/status?token={token}", timeout=2)
                if status == 200 and "started" in json.loads(body):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"JupyterLab did not answer on port {port} within {startup_timeout} s")
            time.sleep(0.25)
        log.seek(0)
        banner = log.readline().strip()
        yield {"url": base, "token": token, "port": port, "banner": banner, "get": _get}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        log.close()
