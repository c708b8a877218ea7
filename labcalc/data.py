"""Where the bundled data lives: scenarios and measurements in the repository's ``data/``.

Examples
--------
>>> scenario_path("lab51").name
'lab51.toml'
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA_DIR", "scenario_path", "measurement_path"]

#: The repository's ``data/`` folder (labcalc is installed in editable mode by ``make``).
DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def scenario_path(name: str) -> Path:
    """Path of ``data/scenarios/<name>.toml``.

    Parameters
    ----------
    name : str
        Scenario name without extension, e.g. ``"lab53"``.

    Raises
    ------
    FileNotFoundError
        When no such scenario is bundled; the message lists the ones that are.

    Examples
    --------
    >>> scenario_path("lab53").exists()
    True
    """
    path = DATA_DIR / "scenarios" / f"{name}.toml"
    if not path.exists():
        known = sorted(p.stem for p in (DATA_DIR / "scenarios").glob("*.toml"))
        raise FileNotFoundError(f"scenario {name!r} not found in {path.parent} (bundled: {', '.join(known)})")
    return path


def measurement_path(*parts: str) -> Path:
    """Path of a file under ``data/measurements`` (not checked for existence).

    Examples
    --------
    >>> measurement_path("lab5", "part1.csv").parts[-3:]
    ('measurements', 'lab5', 'part1.csv')
    """
    return DATA_DIR.joinpath("measurements", *parts)
