"""Checks of an allocation: feasible, Pareto-efficient, max-min fair; Jain's index.

Part of :mod:`labcalc.fairness`, which re-exports every public name.

Examples
--------
>>> jain_index([1.0, 1.0, 1.0]), round(jain_index([3.0, 1.0]), 3)
(1.0, 0.8)
"""

from __future__ import annotations

import numpy as np

from labcalc.fairness._common import rates_vector

__all__ = [
    "is_feasible",
    "is_pareto_efficient",
    "is_max_min_fair",
    "jain_index",
]


def is_feasible(network, rates, rtol: float = 1e-9) -> bool:
    """Whether rates respect every link capacity and every demand.

    Parameters
    ----------
    network : Network
    rates : pandas.Series (by flow name) or array (flow order)
        [bit/s].
    rtol : float, default 1e-9
        Relative slack allowed on capacities and demands.

    Returns
    -------
    bool

    Notes
    -----
    :math:`x \\ge 0`, :math:`R x \\le c (1 + \\mathrm{rtol})` and
    :math:`x \\le d (1 + \\mathrm{rtol})`.

    Examples
    --------
    >>> from labcalc.network import Network
    >>> net = Network({"r1": 5e6}, {"a": ["r1"], "b": ["r1"]})
    >>> is_feasible(net, [2.5e6, 2.5e6]), is_feasible(net, [3e6, 2.5e6])
    (True, False)
    """
    x = rates_vector(network, rates)
    c = np.asarray(network.capacities_bps, dtype=float)
    d = np.asarray(network.demands_bps, dtype=float)
    if np.any(x < 0):
        return False
    load = network.link_loads_bps(x) if x.size else np.zeros(len(c))
    return bool(np.all(load <= c * (1 + rtol)) and np.all(x <= d * (1 + rtol)))


def _saturation(network, x, rtol):
    c = np.asarray(network.capacities_bps, dtype=float)
    d = np.asarray(network.demands_bps, dtype=float)
    load = network.link_loads_bps(x) if x.size else np.zeros(len(c))
    saturated = load >= c * (1 - rtol)
    at_demand = x >= d * (1 - rtol)
    return saturated, at_demand


def is_pareto_efficient(network, rates, rtol: float = 1e-9) -> bool:
    """Whether no flow can get more without another getting less.

    Parameters
    ----------
    network : Network
    rates : pandas.Series (by flow name) or array (flow order)
        [bit/s].
    rtol : float, default 1e-9
        Relative tolerance for "saturated" and "at its demand".

    Returns
    -------
    bool
        True when the rates are feasible and every flow is at its demand or crosses a
        saturated link.

    Notes
    -----
    For every flow :math:`i`: :math:`x_i \\ge d_i(1 - \\mathrm{rtol})` or some link
    :math:`l \\ni i` has :math:`(Rx)_l \\ge c_l (1 - \\mathrm{rtol})`.

    Examples
    --------
    >>> from labcalc.network import Network
    >>> net = Network({"r1": 5e6}, {"a": ["r1"], "b": ["r1"]})
    >>> is_pareto_efficient(net, [1e6, 4e6]), is_pareto_efficient(net, [1e6, 1e6])
    (True, False)
    """
    x = rates_vector(network, rates)
    if not is_feasible(network, x, rtol):
        return False
    saturated, at_demand = _saturation(network, x, rtol)
    R = network.routing_matrix
    crosses = np.asarray(R.T @ saturated.astype(float)).reshape(-1) > 0 if x.size else np.zeros(0, bool)
    return bool(np.all(at_demand | crosses))


def is_max_min_fair(network, rates, rtol: float = 1e-9) -> bool:
    """Whether rates are (weighted) max-min fair, by the bottleneck criterion.

    Parameters
    ----------
    network : Network
        Its weights are used: the criterion compares ``rate / weight``.
    rates : pandas.Series (by flow name) or array (flow order)
        [bit/s].
    rtol : float, default 1e-9
        Relative tolerance for "saturated", "at its demand" and "maximal".

    Returns
    -------
    bool
        True when the rates are feasible and every flow is at its demand or crosses a
        saturated link on which its weighted rate is the largest.

    Notes
    -----
    Flow :math:`i` has a bottleneck :math:`l` when :math:`(Rx)_l = c_l` and
    :math:`x_i / w_i \\ge x_j / w_j` for every flow :math:`j` on :math:`l`. A feasible
    allocation is max-min fair if and only if every flow that is below its demand has a
    bottleneck (Bertsekas and Gallager, *Data Networks*, section 6.5.2).

    References
    ----------
    D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., 1992, section 6.5.2.

    Examples
    --------
    >>> from labcalc.network import Network
    >>> net = Network({"r1": 5e6, "r2": 5e6},
    ...               {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})
    >>> is_max_min_fair(net, [2.5e6, 2.5e6, 2.5e6]), is_max_min_fair(net, [5e6 / 3, 10e6 / 3, 10e6 / 3])
    (True, False)
    """
    x = rates_vector(network, rates)
    if not is_feasible(network, x, rtol):
        return False
    if x.size == 0:
        return True
    saturated, at_demand = _saturation(network, x, rtol)
    w = np.asarray(network.weights, dtype=float)
    level = x / w
    R = network.routing_matrix.tocsr()
    link_max = np.zeros(R.shape[0])
    rows = np.flatnonzero(np.diff(R.indptr) > 0)
    link_max[rows] = np.maximum.reduceat(level[R.indices], R.indptr[rows])
    C = R.tocsc()
    lk = C.indices
    owner = np.repeat(np.arange(x.size), np.diff(C.indptr))
    good = saturated[lk] & (level[owner] >= link_max[lk] * (1 - rtol))
    has = np.bincount(owner[good], minlength=x.size) > 0
    return bool(np.all(at_demand | has))


def jain_index(rates) -> float:
    """Jain's fairness index of a set of rates.

    Parameters
    ----------
    rates : pandas.Series or array-like
        Non-negative rates [bit/s] (any unit: the index is scale-free).

    Returns
    -------
    float
        In [1/n, 1]; 1 when all rates are equal.

    Raises
    ------
    ValueError
        Empty input, NaN or negative rates, or all rates zero.

    Notes
    -----
    .. math:: J(x) = \\frac{\\left(\\sum_i x_i\\right)^2}{n \\sum_i x_i^2}

    References
    ----------
    R. Jain, D.-M. Chiu and W. Hawe, "A quantitative measure of fairness and
    discrimination for resource allocation in shared computer systems", DEC Research
    Report TR-301, 1984.

    Examples
    --------
    >>> jain_index([2.5e6, 2.5e6, 2.5e6])
    1.0
    >>> round(jain_index([5 / 3, 10 / 3, 10 / 3]), 6)  # proportional fairness, parking lot
    0.925926
    """
    x = np.asarray(rates, dtype=float).reshape(-1)
    if x.size == 0:
        raise ValueError("rates must not be empty; got []")
    bad = np.flatnonzero(~(np.isfinite(x) & (x >= 0)))
    if bad.size:
        raise ValueError(f"rates must be finite and >= 0; got {float(x[bad[0]])!r} at position {int(bad[0])}")
    scale = x.max()
    if scale == 0:
        raise ValueError("rates are all zero; Jain's index is undefined")
    x = x / scale
    return float(x.sum() ** 2 / (x.size * (x @ x)))
