"""One module per lab handout: its scenarios and every question as a function.

- :mod:`labcalc.labs.lab5` -- congestion control, TCP and UDP (Mininet), questions Q1-Q53.

Examples
--------
>>> from labcalc.labs import get_lab
>>> get_lab("lab5").__name__
'labcalc.labs.lab5'
"""

from __future__ import annotations

import importlib

__all__ = ["LABS", "get_lab"]

#: Lab modules known to the command line (``labcalc answers NAME``).
LABS = ("lab5",)


def get_lab(name: str):
    """Import and return the module of lab ``name``.

    Raises
    ------
    ValueError
        When no such lab exists; the message lists the known labs.

    Examples
    --------
    >>> get_lab("lab9")
    Traceback (most recent call last):
    ...
    ValueError: lab must be one of lab5; got 'lab9'
    """
    if name not in LABS:
        raise ValueError(f"lab must be one of {', '.join(LABS)}; got {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
