"""Start JupyterLab on the notebooks: what ``make lab`` runs (and the tests start headless).

``python -m labcalc._lab`` opens ``notebooks/00-start-here.ipynb`` in JupyterLab and
prints the URL. Options: ``--no-browser``, ``--port N`` (0 = a free port), ``--token T``,
``--notebooks DIR`` (default: the repository's ``notebooks/``).

The "Jupyter news" pop-up is disabled through a page config in a private config folder,
so the student's first screen is the notebook, not a question about news feeds.

Examples
--------
>>> cmd = lab_command(port=8899, token="t", open_browser=False)
>>> cmd[1:4]
['-m', 'jupyterlab', '--ServerApp.ip=127.0.0.1']
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import sys
import tempfile
from pathlib import Path

__all__ = ["NOTEBOOKS_DIR", "START_NOTEBOOK", "free_port", "lab_command", "lab_environment", "main"]

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
START_NOTEBOOK = "00-start-here.ipynb"
_DISABLED = {"@jupyterlab/apputils-extension:announcements": True}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now.

    Examples
    --------
    >>> 1024 <= free_port() <= 65535
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def lab_command(port: int = 8888, token: str = "", open_browser: bool = True,
                notebooks: Path | None = None, expose_app: bool = False) -> list[str]:
    """The command line that starts JupyterLab on the notebooks.

    Parameters
    ----------
    port : int
        Port on 127.0.0.1.
    token : str
        Access token ("" lets Jupyter pick one and print it in the URL).
    open_browser : bool
        Whether Jupyter opens a browser tab.
    notebooks : Path, optional
        Folder served (default: the repository's notebooks/).
    expose_app : bool
        Expose ``window.jupyterapp`` (the browser tests use it to run commands).
    """
    root = Path(notebooks or NOTEBOOKS_DIR)
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--ServerApp.open_browser={open_browser}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--ServerApp.allow_root=True")  # lab VMs and CI containers often run as root
    if token:
        cmd.append(f"--IdentityProvider.token={token}")
    if expose_app:
        cmd.append("--LabApp.expose_app_in_browser=True")
    if (root / START_NOTEBOOK).exists():
        cmd.append(f"--LabApp.default_url=/lab/tree/{START_NOTEBOOK}")
    return cmd


def lab_environment(config_dir: Path | None = None) -> dict:
    """Environment for the server: a private Jupyter config folder with a page config.

    The folder holds ``labconfig/page_config.json`` disabling the news announcements;
    the user's own Jupyter settings are left untouched.
    """
    config_dir = Path(config_dir or tempfile.mkdtemp(prefix="labcalc-jupyter-"))
    labconfig = config_dir / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": _DISABLED}))
    env = dict(os.environ)
    env["JUPYTER_CONFIG_DIR"] = str(config_dir)
    return env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labcalc._lab", description=__doc__.split("\n")[0])
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--port", type=int, default=8888, help="0 picks a free port")
    parser.add_argument("--token", default=None, help="default: a random token")
    parser.add_argument("--notebooks", default=None)
    parser.add_argument("--expose-app", action="store_true")
    args = parser.parse_args(argv)
    port = free_port() if args.port == 0 else args.port
    token = args.token if args.token is not None else secrets.token_hex(16)
    cmd = lab_command(port, token, not args.no_browser, args.notebooks, args.expose_app)
    url = f"http://127.0.0.1:{port}/lab/tree/{START_NOTEBOOK}?token={token}"
    print(f"labcalc: JupyterLab on the notebooks; open {url}", flush=True)
    os.execvpe(cmd[0], cmd, lab_environment())
    return 0  # pragma: no cover - execvpe does not return


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
