"""The newcomer's path: `make lab` starts JupyterLab on notebooks/00-start-here.ipynb.

The test starts the very command `make lab` runs (python -m labcalc._lab) headless and
checks that JupyterLab and the first notebook answer.
"""

import json

import pytest

from labcalc._lab import NOTEBOOKS_DIR, START_NOTEBOOK, lab_command
from tests.labserver import lab_server


def test_make_lab_runs_the_lab_module():
    makefile = (NOTEBOOKS_DIR.parent / "Makefile").read_text()
    assert "$(PY) -m labcalc._lab" in makefile


@pytest.mark.skipif(not (NOTEBOOKS_DIR / START_NOTEBOOK).exists(), reason="no 00-start-here notebook yet")
def test_lab_serves_the_start_notebook():
    with lab_server() as lab:
        assert f"/lab/tree/{START_NOTEBOOK}?token={lab['token']}" in lab["banner"]
        status, body = lab["get"](f"{lab['url']}/lab?token={lab['token']}")
        assert status == 200 and b"JupyterLab" in body
        status, body = lab["get"](f"{lab['url']}/api/contents/{START_NOTEBOOK}?token={lab['token']}")
        assert status == 200
        assert json.loads(body)["type"] == "notebook"


def test_command_opens_the_start_notebook_and_allows_root():
    cmd = lab_command(port=9999, token="x", open_browser=False)
    assert "--ServerApp.port=9999" in cmd and "--IdentityProvider.token=x" in cmd
    if (NOTEBOOKS_DIR / START_NOTEBOOK).exists():
        assert f"--LabApp.default_url=/lab/tree/{START_NOTEBOOK}" in cmd
