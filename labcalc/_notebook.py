"""Notebook set-up shared by every notebook (see :func:`labcalc.notebook_setup`)."""

from __future__ import annotations


def setup(precision: int = 4) -> None:
    """Deterministic, readable output for teaching notebooks.

    - pandas shows floats with ``precision`` decimals and wide tables unwrapped;
    - numpy prints plain numbers (no ``np.float64(...)`` reprs in lists);
    - matplotlib uses a fixed figure size and DPI, and a non-interactive backend when no
      notebook backend is active, so figures look the same everywhere;
    - warnings that would print temporary paths are shown once, without the path;
    - in IPython, figures made by :mod:`labcalc.viz` (``matplotlib.figure.Figure``,
      not pyplot) are shown as PNG when a cell returns them, without importing pyplot.

    These are process-wide settings, so they are applied only inside IPython (a notebook
    kernel); elsewhere (scripts, doctests, the test suite) the call changes nothing.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    if get_ipython() is None:
        return
    import warnings

    import numpy as np
    import pandas as pd

    pd.set_option("display.precision", precision)
    pd.set_option("display.width", 120)
    pd.set_option("display.max_columns", 20)
    np.set_printoptions(precision=precision, suppress=True, legacy="1.25")
    try:
        import matplotlib

        from labcalc.viz import DPI, FIGSIZE

        matplotlib.rcParams.update({"figure.figsize": FIGSIZE, "figure.dpi": DPI,
                                    "axes.grid": True, "grid.alpha": 0.3})
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        pass
    warnings.filterwarnings("once")
    warnings.formatwarning = lambda message, category, *args, **kwargs: f"{category.__name__}: {message}\n"
    _register_figure_formatter()


def _register_figure_formatter() -> None:
    """Show ``matplotlib.figure.Figure`` results as PNG in IPython (no-op elsewhere)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    shell = get_ipython()
    if shell is None:
        return
    from matplotlib.figure import Figure

    from labcalc.viz import to_png

    png = shell.display_formatter.formatters["image/png"]
    png.for_type(Figure, lambda fig: to_png(fig))
