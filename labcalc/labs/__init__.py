"""One package per lab handout, each exposing a :class:`~labcalc.labs._framework.Lab` as ``LAB``.

- :mod:`labcalc.labs.lab5` -- congestion control, TCP and UDP (Mininet), questions Q3-Q44.

Adding a lab is one package (``labcalc/labs/labN/`` whose ``__init__`` builds ``LAB``
from its answers, default parameters and ``variant``; see :mod:`labcalc.labs._framework`)
plus one line in :data:`LABS`. Grading, the command line and the quiz export find it
through :func:`get_lab`.

Examples
--------
>>> from labcalc.labs import get_lab
>>> get_lab("lab5").name
'lab5'
"""

from __future__ import annotations

import importlib

from labcalc.labs._framework import MAX_SEED, Lab

__all__ = ["LABS", "Lab", "MAX_SEED", "get_lab"]

#: The registry: lab name -> module whose ``LAB`` attribute is the lab (imported when asked).
LABS: dict[str, str] = {
    "lab5": "labcalc.labs.lab5",
}


def get_lab(lab) -> Lab:
    """The :class:`Lab` of name ``lab`` (a :class:`Lab` is returned as it is).

    Parameters
    ----------
    lab : str or Lab
        A name of :data:`LABS`, or a lab object.

    Returns
    -------
    Lab

    Raises
    ------
    ValueError
        When no such lab exists; the message lists the known labs.

    Examples
    --------
    >>> get_lab("lab5").answer("Q4").unit
    'bit/s'
    >>> get_lab("lab9")
    Traceback (most recent call last):
    ...
    ValueError: lab must be one of lab5; got 'lab9'
    """
    if isinstance(lab, Lab):
        return lab
    if not isinstance(lab, str) or lab not in LABS:
        raise ValueError(f"lab must be one of {', '.join(LABS)}; got {lab!r}")
    module = importlib.import_module(LABS[lab])
    found = getattr(module, "LAB", None)
    if not isinstance(found, Lab):
        raise ValueError(f"lab {lab!r}: module {LABS[lab]} has no LAB (a labcalc.labs._framework.Lab)")
    return found
