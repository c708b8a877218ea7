"""Max-min fairness by progressive filling (water-filling), and its steps for a picture.

Part of :mod:`labcalc.fairness`, which re-exports every public name.

Examples
--------
>>> from labcalc.network import Network
>>> net = Network({"r1": 5e6, "r2": 5e6}, {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})
>>> [round(r / 1e6, 4) for r in max_min(net).rates]
[2.5, 2.5, 2.5]
"""

from __future__ import annotations

import numpy as np

from labcalc.fairness._common import Allocation, make_allocation, gather, inputs

__all__ = [
    "max_min",
    "waterfilling_steps",
]


#: Relative tolerance used to batch links that saturate at the same water level.
_TIE_RTOL = 1e-10


def max_min(network) -> Allocation:
    """Weighted max-min fair rates by progressive filling (water-filling).

    Every flow's rate grows as ``weight * t`` with a common level ``t``; a flow stops
    growing ("freezes") when it reaches its demand or when a link it crosses becomes
    saturated. The result is the unique allocation in which no flow can get more
    without taking from a flow whose weighted rate is not larger.

    Parameters
    ----------
    network : Network
        Capacities [bit/s], routes, demands [bit/s] (inf = greedy; 0 gets 0) and
        weights of the flows.

    Returns
    -------
    Allocation
        ``rates`` [bit/s], ``goodputs`` [bit/s], ``bottlenecks`` (the saturated link on
        which the flow's weighted rate is the largest, or ``"demand"``),
        ``link_prices = None``, ``iterations`` = filling rounds.

    Raises
    ------
    ValueError
        A capacity, demand, weight or efficiency that is NaN or out of range (the
        message names the link or flow and the value).

    Notes
    -----
    With weights :math:`w_i`, demands :math:`d_i` and the level :math:`t` rising from 0,
    an unfrozen flow has rate :math:`x_i = w_i t`. A link :math:`l` saturates at

    .. math:: t_l = \\frac{c_l - \\sum_{i \\in l,\\ \\mathrm{frozen}} x_i}
                         {\\sum_{i \\in l,\\ \\mathrm{unfrozen}} w_i}.

    Each round computes :math:`t^* = \\min_l t_l` as if every unfrozen flow kept growing.
    Flows whose demand level :math:`d_i / w_i \\le t^*` certainly reach their demand first
    (freezing them only lowers the link loads), so they are frozen at :math:`d_i` and the
    round is repeated; otherwise the flows of the links with :math:`t_l = t^*` (ties
    within 1e-10 relative) are frozen at :math:`w_i t^*`. Only the links of newly frozen
    flows are updated, with array operations over the sparse routing matrix; there are at
    most (number of links + number of distinct demand batches) rounds.

    The result satisfies the bottleneck criterion (:func:`is_max_min_fair`): every flow
    is at its demand or crosses a saturated link on which :math:`x_i / w_i` is maximal.

    References
    ----------
    D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., Prentice Hall, 1992,
    section 6.5.2 (max-min flow control, the progressive filling algorithm).

    Examples
    --------
    The handout's parking lot (two 5 Mbit/s routers) and congestion-collapse network:

    >>> from labcalc.network import Network
    >>> lot = Network({"r1": 5e6, "r2": 5e6},
    ...               {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})
    >>> alloc = max_min(lot)
    >>> [round(r / 1e6, 6) for r in alloc.rates]
    [2.5, 2.5, 2.5]
    >>> collapse = Network(
    ...     {"A-N1": 1e6, "C-N1": 10e6, "N1-N2": 1.5e6, "N2-D": 0.5e6, "N2-B": 10e6},
    ...     {"AB": ["A-N1", "N1-N2", "N2-B"], "CD": ["C-N1", "N1-N2", "N2-D"]})
    >>> alloc = max_min(collapse)
    >>> [round(r / 1e6, 6) for r in alloc.rates], alloc.bottlenecks.tolist()
    ([1.0, 0.5], ['A-N1', 'N2-D'])

    Weights share one link in proportion; a demand below the fair share is served:

    >>> from labcalc.network import Flow
    >>> net = Network({"r1": 6e6}, {"a": Flow(["r1"], weight=2), "b": ["r1"],
    ...                             "c": Flow(["r1"], demand_bps=1e6)})
    >>> alloc = max_min(net)
    >>> [round(r / 1e6, 6) for r in alloc.rates], alloc.bottlenecks.tolist()
    ([3.333333, 1.666667, 1.0], ['r1', 'r1', 'demand'])
    """
    R, c, d, w, e = inputs(network)
    rates, bott, rounds = water_fill(R, c, d, w)
    return make_allocation(network, rates, e, bott, None, "max-min (water-filling)",
                       "progressive filling", rounds)


def water_fill(R, c, d, w):
    """Progressive filling; returns rates, bottleneck link index (-1 = demand), rounds."""
    L, N = R.shape
    rates = np.zeros(N)
    bott = np.full(N, -1, dtype=np.int64)
    if N == 0:
        return rates, bott, 0
    csr_ptr, csr_idx = R.indptr.astype(np.int64), R.indices.astype(np.int64)
    C = R.tocsc()
    csc_ptr, csc_idx = C.indptr.astype(np.int64), C.indices.astype(np.int64)
    frozen = np.zeros(N, dtype=bool)
    load = np.zeros(L)  # rate of the frozen flows on each link
    wsum = np.bincount(csc_idx, weights=np.repeat(w, np.diff(csc_ptr)), minlength=L)
    count = np.diff(csr_ptr)  # unfrozen flows on each link
    with np.errstate(divide="ignore", invalid="ignore"):
        level = d / w  # demand level of each flow (inf = greedy)
    order = np.argsort(level, kind="stable")
    level_sorted = level[order]
    k = 0  # flows order[:k] have been considered for demand freezing
    t = 0.0
    left = N
    rounds = 0

    def freeze(flows):
        nonlocal left
        frozen[flows] = True
        left -= flows.size
        owner, links = gather(csc_ptr, csc_idx, flows)
        load[:] += np.bincount(links, weights=rates[owner], minlength=L)
        wsum[:] -= np.bincount(links, weights=w[owner], minlength=L)
        count[:] -= np.bincount(links, minlength=L)

    while left > 0:
        rounds += 1
        active = count > 0
        t_link = np.full(L, np.inf)
        np.divide(c - load, wsum, out=t_link, where=active)
        t_next = max(t, float(t_link.min()))
        j = int(np.searchsorted(level_sorted, t_next, side="right"))
        if j > k:
            batch = order[k:j]
            k = j
            batch = batch[~frozen[batch]]
            if batch.size:
                rates[batch] = d[batch]
                freeze(batch)
                continue
        t = t_next
        saturated = np.flatnonzero(active & (t_link <= t * (1 + _TIE_RTOL)))
        links, flows = gather(csr_ptr, csr_idx, saturated)
        keep = ~frozen[flows]
        flows, links = flows[keep], links[keep]
        new, first = np.unique(flows, return_index=True)
        rates[new] = w[new] * t
        bott[new] = links[first]
        freeze(new)
    return rates, bott, rounds


def waterfilling_steps(network):
    """Progressive filling (max-min fairness) one level at a time, for display.

    Parameters
    ----------
    network : labcalc.network.Network
        A small network (the steps are computed with plain loops).

    Returns
    -------
    pandas.DataFrame
        One row per filling round: ``level_bps`` (the common water level reached),
        ``saturated`` (links that fill at this level, comma-separated), ``frozen`` (flows
        that stop growing), and one column per flow with its rate after the round
        [bit/s]. The last row equals :func:`max_min`.

    Notes
    -----
    All unfrozen flows grow together as ``weight x level``; a round ends when a link
    saturates (its unfrozen flows freeze) or a flow reaches its demand. :func:`max_min`
    computes the same allocation vectorised, without reporting the rounds; this one
    loops over rounds (at most one per link or flow) and is meant for small networks
    shown in a notebook.

    References
    ----------
    D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., 1992, section 6.5.2.

    Examples
    --------
    >>> from labcalc.network import Network
    >>> net = Network({"r1": 5e6, "r2": 3e6}, {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})
    >>> steps = waterfilling_steps(net)
    >>> steps[["level_bps", "saturated", "frozen"]].values.tolist()
    [[1500000.0, 'r2', '1to3, 2to3'], [3500000.0, 'r1', '1to2']]
    """
    import pandas as pd

    names = list(network.flow_names)
    links = list(network.link_names)
    R = network.routing_matrix.toarray().astype(float)
    c = np.asarray(network.capacities_bps, dtype=float)
    d = np.asarray(network.demands_bps, dtype=float)
    w = np.asarray(network.weights, dtype=float)
    rates = np.zeros(len(names))
    frozen = np.zeros(len(names), dtype=bool)
    rows = []
    level = 0.0
    while not frozen.all():
        free = ~frozen
        used = R @ np.where(frozen, rates, 0.0)
        grow = R @ np.where(free, w, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_link = np.where(grow > 0, (c - used) / grow, np.inf)
            t_demand = np.where(free, d / w, np.inf)
        level = float(min(t_link.min(), t_demand.min()))
        rates[free] = w[free] * level
        full = np.flatnonzero(t_link <= level * (1 + 1e-12))
        newly = free & ((t_demand <= level * (1 + 1e-12)) | (R[full].sum(axis=0) > 0))
        rates[newly & (t_demand <= level * (1 + 1e-12))] = d[newly & (t_demand <= level * (1 + 1e-12))]
        frozen |= newly
        row = {"level_bps": level, "saturated": ", ".join(links[k] for k in full),
               "frozen": ", ".join(n for n, f in zip(names, newly) if f)}
        row.update({n: float(r) for n, r in zip(names, rates)})
        rows.append(row)
    out = pd.DataFrame(rows, index=pd.RangeIndex(1, len(rows) + 1, name="round"))
    return out
