"""Validation helpers of the TCP models (array inputs, scalar inputs, NaN-free results).

Part of :mod:`labcalc.tcp`, which re-exports every public name.

Examples
--------
>>> check_positive("rtt_s", [0.1, 0.2]).tolist()
[0.1, 0.2]
"""

from __future__ import annotations

import math

import numpy as np


__all__: list[str] = []


# --------------------------------------------------------------------------------------
# validation helpers (also used by labcalc.queueing)
# --------------------------------------------------------------------------------------


def first_bad(arr: np.ndarray, bad: np.ndarray):
    """The first offending value of ``arr`` where ``bad`` is true, as a Python scalar."""
    value = np.broadcast_to(arr, bad.shape)[bad].flat[0]
    return value.item() if hasattr(value, "item") else value


def as_float(name: str, value) -> np.ndarray:
    """``value`` as a float ndarray; finite, else ValueError naming ``name``."""
    if isinstance(value, (str, bytes)) or value is None:
        raise ValueError(f"{name} must be a number or an array of numbers; got {value!r}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a number or an array of numbers; got {value!r}"
        ) from None
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(f"{name} must be finite; got {first_bad(arr, bad)!r}")
    return arr


def check_positive(name: str, value) -> np.ndarray:
    arr = as_float(name, value)
    bad = arr <= 0
    if bad.any():
        raise ValueError(f"{name} must be > 0; got {first_bad(arr, bad)!r}")
    return arr


def nonnegative(name: str, value) -> np.ndarray:
    arr = as_float(name, value)
    bad = arr < 0
    if bad.any():
        raise ValueError(f"{name} must be >= 0; got {first_bad(arr, bad)!r}")
    return arr


def check_loss(value, name: str = "loss") -> np.ndarray:
    arr = as_float(name, value)
    bad = (arr <= 0) | (arr > 1)
    if bad.any():
        raise ValueError(f"{name} must be in (0, 1]; got {first_bad(arr, bad)!r}")
    return arr


def open_unit(name: str, value) -> np.ndarray:
    arr = as_float(name, value)
    bad = (arr <= 0) | (arr >= 1)
    if bad.any():
        raise ValueError(f"{name} must be in (0, 1); got {first_bad(arr, bad)!r}")
    return arr


def broadcast_shape(**arrays: np.ndarray) -> tuple[int, ...]:
    """Common shape of the inputs, or ValueError naming them and their shapes."""
    try:
        return np.broadcast_shapes(*(np.shape(a) for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"input shapes do not broadcast together: {shapes}") from None


def as_result(x):
    """A 0-d result as a Python float, anything else as an ndarray; never NaN."""
    x = np.asarray(x, dtype=float)
    if np.isnan(x).any():
        raise ValueError(
            "the result is undefined (NaN) for these inputs; they are outside the range "
            "the formula can evaluate in floating point"
        )
    return float(x) if x.ndim == 0 else x

def check_scalar(name, value, low=0.0, strict=True) -> float:
    """``value`` as a finite float above ``low`` (or at least ``low``), else ValueError."""
    value = float(value)
    if not math.isfinite(value) or (value <= low if strict else value < low):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low:g}; got {value!r}")
    return value
