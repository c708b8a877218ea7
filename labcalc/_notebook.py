"""Notebook set-up shared by every notebook (see :func:`labcalc.notebook_setup`)."""

from __future__ import annotations


def setup(precision: int = 4) -> None:
    """Deterministic, readable output for teaching notebooks.

    - pandas shows floats with ``precision`` decimals and wide tables unwrapped;
    - numpy prints plain numbers (no ``np.float64(...)`` reprs in lists);
    - matplotlib uses a fixed figure size and DPI, and a non-interactive backend when no
      notebook backend is active, so figures look the same everywhere;
    - warnings that would print temporary paths are shown once, without the path.
    """
    import warnings

    import numpy as np
    import pandas as pd

    pd.set_option("display.precision", precision)
    pd.set_option("display.width", 120)
    pd.set_option("display.max_columns", 20)
    np.set_printoptions(precision=precision, suppress=True, legacy="1.25")
    try:
        import matplotlib

        matplotlib.rcParams.update({"figure.figsize": (7.0, 3.6), "figure.dpi": 100,
                                    "axes.grid": True, "grid.alpha": 0.3})
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        pass
    warnings.filterwarnings("once")
    warnings.formatwarning = lambda message, category, *args, **kwargs: f"{category.__name__}: {message}\n"
