"""Doctests that run ns-3 (the examples of labcalc.sim.simulate and labcalc.viz.sim).

They run wherever the sim extra is installed, as in ``make test`` and CI; without it (a
conda environment without ``pip install 'labcalc[sim]'``) they are skipped with the reason,
and with ``CI`` set they fail, as the ``ns3`` fixture of the tests does.
"""

import os

import pytest

#: Modules whose doctest examples simulate.
NEEDS_NS3 = ("labcalc/sim/core.py", "labcalc/viz/sim.py")


def pytest_collection_modifyitems(config, items):
    from labcalc import sim

    if sim.available() or os.environ.get("CI"):   # with CI set, a missing ns-3 fails these examples
        return
    for item in items:
        path = str(getattr(item, "path", "")).replace(os.sep, "/")
        if type(item).__name__ == "DoctestItem" and path.endswith(NEEDS_NS3):
            item.add_marker(pytest.mark.skip(reason="ns-3 is not installed (pip install 'labcalc[sim]')"))
