"""Fair rate allocations: max-min, proportional, alpha-fair and TCP-Reno utility.

Every function takes a :class:`~labcalc.network.Network` (links with capacities, flows
with routes, demands and weights) and returns an :class:`Allocation`: the rate of every
flow [bit/s], its goodput, the link that limits it and, for the utility-based
allocations, the link prices (Lagrange multipliers of the capacity constraints).

``max_min``
    weighted max-min fairness by progressive filling (water-filling), exact, vectorised
    over the sparse routing matrix (1,000 links x 100,000 flows in about 0.1 s).
``proportional``, ``alpha_fair``, ``reno``
    maximise a sum of utilities under the link capacities and the demands. The default
    ``method="newton"`` is a specialised solver on the link prices (the *dual Newton*
    method below): KKT residuals of about 1e-13, 100,000 flows in well under a second.
    ``method="cvxpy-raw"`` states the same problem in cvxpy and solves it with CLARABEL:
    slow for big networks (about 5 s for 10,000 flows), kept as an independent
    cross-check (about 1e-7 relative); ``method="cvxpy"`` polishes CLARABEL's answer
    with Newton steps on the saturated links it identifies (about 1e-12, KKT verified).

Checks on any vector of rates (computed or measured): :func:`is_feasible`,
:func:`is_pareto_efficient`, :func:`is_max_min_fair`, :func:`jain_index`.

The dual Newton method
----------------------
With link prices :math:`p_l \\ge 0` and route prices :math:`q_i = \\sum_{l \\ni i} p_l`,
the rate that maximises flow :math:`i`'s utility minus its cost is
:math:`x_i(p) = \\min(d_i, (w_i / q_i)^{1/\\alpha})`. The dual function
:math:`D(p) = \\sum_i [w_i U(x_i(p)) - x_i(p) q_i] + c^T p` is convex, its gradient is
the link slack :math:`s(p) = c - R\\,x(p)` and its Hessian
:math:`R\\,\\mathrm{diag}(x_i / (\\alpha q_i))\\,R^T` (flows below their demand only).
The optimal prices minimise :math:`D` over :math:`p \\ge 0`: every link is saturated or
free (:math:`p_l = 0`).

1. Start: max-min rates with weights :math:`w_i^{1/\\alpha}` (exact on one bottleneck,
   the limit for large alpha), priced on their bottlenecks.
2. Barrier path: damped Newton steps on :math:`D(p) - \\tau \\sum_l \\nu_l \\log p_l`
   with the primal-dual matrix :math:`R\\,\\mathrm{diag}(x/(\\alpha q))\\,R^T +
   \\mathrm{diag}(\\sigma_l / p_l)` (:math:`\\sigma` a positive slack variable; one
   dense L x L Cholesky per iteration, assembled with one ``bincount`` over precomputed
   link pairs), an Armijo line search on the barrier function, and :math:`\\tau` lowered
   by Mehrotra's predictor heuristic. The weights :math:`\\nu_l` put each link's
   complementarity on the scale of its flows' marginal utilities, so that prices that
   differ by many orders of magnitude (large alpha) converge together.
3. Polish: once the KKT residual is below 1e-4, the links with a non-negligible price
   are taken as saturated and :math:`R_A\\,x(p_A) = c_A` is solved by Newton's method
   to rounding level; the result is kept only if it satisfies every KKT condition
   (:math:`p \\ge 0`, :math:`R x \\le c`), otherwise the barrier path continues.

Rates are scaled internally by the geometric mean of the max-min rates and weights by
their geometric mean, so 5 bit/s and 5 Gbit/s solve alike. Stationarity and the demand
bounds hold exactly by construction; capacities and complementarity to about 1e-13.

Feasibility: rates of 0 always satisfy the constraints, so these problems are never
infeasible; what can fail is the input (NaN, non-positive weight, missing RTT: a
``ValueError`` naming the field) or a solver that stops early (:class:`SolverError`,
also a ``ValueError``, with the status in the message).

Examples
--------
The lab handout's parking lot: two 5 Mbit/s routers, flow 1to3 crosses both.

>>> from labcalc.network import Network
>>> net = Network({"r1": 5e6, "r2": 5e6},
...               {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})
>>> [round(r / 1e6, 4) for r in max_min(net).rates]
[2.5, 2.5, 2.5]
>>> [round(r / 1e6, 4) for r in proportional(net).rates]
[1.6667, 3.3333, 3.3333]
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ProportionalFairProblem",
    "Allocation",
    "SolverError",
    "max_min",
    "proportional",
    "alpha_fair",
    "reno",
    "is_feasible",
    "is_pareto_efficient",
    "is_max_min_fair",
    "jain_index",
    "polish_from_prices",
    "waterfilling_steps",
]

#: Relative tolerance used to batch links that saturate at the same water level.
_TIE_RTOL = 1e-10
#: Largest dense L x L system the dual Newton method factorises; above it, sparse LU.
_DENSE_MAX_LINKS = 3000
#: Largest number of (link, link) pairs assembled with bincount; above it, sparse products.
_MAX_PAIRS = 20_000_000
#: CLARABEL's tolerances, strictest first. CLARABEL stops when the absolute OR the
#: relative gap is small; the relative one lets large objectives stop early, so the first
#: attempts switch it off. Measured on small random networks (rates versus the KKT
#: solution): about 1e-10, 1e-7, 4e-5 and 6e-5 relative at worst; the first two end
#: "optimal" in about half the cases each, the last one nearly always.
_CLARABEL_STRICT = dict(tol_gap_abs=1e-14, tol_gap_rel=1e-16, tol_feas=1e-12, tol_ktratio=1e-10)
_CLARABEL_NOREL = dict(tol_gap_abs=1e-12, tol_gap_rel=1e-16, tol_feas=1e-12, tol_ktratio=1e-10)
_CLARABEL_TOLERANCES = dict(tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, tol_ktratio=1e-10)
_CLARABEL_FALLBACK = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, tol_ktratio=1e-8)
#: (objective factor, tolerances, note for Allocation.solver) of the successive attempts.
_CLARABEL_ATTEMPTS = (
    (1.0, _CLARABEL_STRICT, ""),
    (100.0, _CLARABEL_NOREL, ""),
    (1.0, _CLARABEL_TOLERANCES, " (tol 1e-12, ~1e-4)"),
    (1.0, _CLARABEL_FALLBACK, " (tol 1e-10, ~1e-4)"),
)
_METHODS = ("newton", "cvxpy", "cvxpy-raw")


class SolverError(ValueError):
    """A solver stopped without reaching an optimum (the message gives its status)."""


# ---------------------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------------------


@dataclass(repr=False)
class Allocation:
    """Rates allocated to the flows of a network, and why.

    Attributes
    ----------
    rates : pandas.Series
        Rate of each flow, indexed by flow name [bit/s] (in the network's accounting).
    goodputs : pandas.Series
        ``rates * efficiency`` of each flow [bit/s].
    bottlenecks : pandas.Series
        Name of the link that limits each flow, or ``"demand"`` when the flow gets its
        whole demand. Max-min: a saturated link on which the flow's (weighted) rate is the
        largest. Utility-based: the most expensive saturated link of the route.
    link_prices : pandas.Series or None
        Lagrange multiplier of each link's capacity constraint [utility per bit/s];
        0 on links that are not saturated. None for max-min. They scale as
        ``capacity**-alpha``, so for a large alpha they may underflow to 0.
    method : str
        The fairness criterion, e.g. ``"max-min (water-filling)"``.
    solver : str
        ``"progressive filling"``, ``"dual Newton"`` or ``"cvxpy/CLARABEL"`` (with a
        note when CLARABEL needed a less accurate attempt, see :func:`proportional`).
    iterations : int
        Water-filling rounds, Newton iterations or CLARABEL iterations.
    network : Network
        The network the allocation is for.

    Examples
    --------
    >>> from labcalc.network import Network
    >>> alloc = max_min(Network({"r1": 5e6}, {"a": ["r1"], "b": ["r1"]}))
    >>> alloc.table()[["rate_Mbps", "bottleneck"]]
          rate_Mbps bottleneck
    flow
    a           2.5         r1
    b           2.5         r1
    """

    rates: object
    goodputs: object
    bottlenecks: object
    link_prices: object
    method: str
    solver: str
    iterations: int
    network: object

    def table(self):
        """Per-flow results as a DataFrame indexed by flow.

        Columns ``rate_bps``, ``goodput_bps``, ``bottleneck`` (base units) and
        ``rate_Mbps``, ``goodput_Mbps`` (for display).

        Examples
        --------
        >>> from labcalc.network import Network
        >>> alloc = max_min(Network({"r1": 5e6}, {"a": ["r1"]}))
        >>> list(alloc.table().columns)
        ['rate_bps', 'goodput_bps', 'bottleneck', 'rate_Mbps', 'goodput_Mbps']
        """
        import pandas as pd

        from labcalc.units import to_Mbps

        df = pd.DataFrame(
            {
                "rate_bps": self.rates,
                "goodput_bps": self.goodputs,
                "bottleneck": self.bottlenecks,
                "rate_Mbps": to_Mbps(self.rates),
                "goodput_Mbps": to_Mbps(self.goodputs),
            }
        )
        df.index.name = "flow"
        return df

    def link_table(self):
        """Per-link load, capacity, utilisation and price as a DataFrame indexed by link.

        Examples
        --------
        >>> from labcalc.network import Network
        >>> alloc = max_min(Network({"r1": 5e6, "r2": 10e6}, {"a": ["r1", "r2"]}))
        >>> alloc.link_table()["utilisation"].tolist()
        [1.0, 0.5]
        """
        import pandas as pd

        net = self.network
        load = net.link_loads_bps(self.rates.to_numpy()) if net.n_flows else np.zeros(net.n_links)
        df = pd.DataFrame(
            {
                "load_bps": load,
                "capacity_bps": net.capacities_bps,
                "utilisation": load / net.capacities_bps,
                "price": (self.link_prices.to_numpy() if self.link_prices is not None
                          else np.full(net.n_links, np.nan)),
            },
            index=pd.Index(net.link_names, name="link"),
        )
        return df

    def __repr__(self) -> str:
        return (f"<Allocation {self.method}: {len(self.rates)} flows, solver={self.solver!r}, "
                f"iterations={self.iterations}>")


# ---------------------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------------------


def _inputs(network):
    """Validated arrays of a network: R (csr), capacities, demands, weights, efficiencies."""
    import scipy.sparse as sp

    R = network.routing_matrix
    if not sp.issparse(R):
        R = sp.csr_matrix(R)
    R = R.tocsr()
    L, N = R.shape
    if L != len(network.link_names) or N != len(network.flow_names):
        raise ValueError(f"routing_matrix has shape {R.shape}; expected "
                         f"({len(network.link_names)}, {len(network.flow_names)})")
    c = np.asarray(network.capacities_bps, dtype=float)
    d = np.asarray(network.demands_bps, dtype=float)
    w = np.asarray(network.weights, dtype=float)
    e = np.asarray(network.efficiencies, dtype=float)
    _check(c, (c > 0) & np.isfinite(c), "capacity_bps", "link", network.link_names, "positive and finite")
    _check(d, d >= 0, "demand_bps", "flow", network.flow_names, ">= 0 (inf for greedy)")
    _check(w, (w > 0) & np.isfinite(w), "weight", "flow", network.flow_names, "positive and finite")
    _check(e, (e > 0) & (e <= 1), "efficiency", "flow", network.flow_names, "in (0, 1]")
    if N and np.any(np.diff(R.tocsc().indptr) == 0):
        i = int(np.flatnonzero(np.diff(R.tocsc().indptr) == 0)[0])
        raise ValueError(f"route of flow {network.flow_names[i]!r} crosses no link")
    if R.nnz and not np.all(np.isfinite(R.data)):
        raise ValueError("routing_matrix contains non-finite entries")
    return R, c, d, w, e


def _check(values, ok, field, kind, names, wanted):
    bad = np.flatnonzero(~ok)
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"{field} of {kind} {names[k]!r} must be {wanted}; got {float(values[k])!r}")


def _check_method(method):
    if method not in _METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, _METHODS))}; got {method!r}")


#: Smallest alpha :func:`alpha_fair` accepts. The rates are powers ``(w / q)**(1/alpha)``
#: of the weights and prices; below this the exponent 1/alpha > 100 makes them overflow
#: double precision for ordinary weights (alpha = 1e-9 on 5,000 flows did), and the
#: allocation is by then indistinguishable from the throughput-maximising limit.
ALPHA_MIN = 0.01


def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise ValueError(f"alpha must be a number > 0; got {alpha!r}")
    alpha = float(alpha)
    if not (alpha > 0) or math.isinf(alpha):
        raise ValueError(f"alpha must be > 0 and finite (use max_min for alpha -> inf); got {alpha!r}")
    if alpha < ALPHA_MIN:
        raise ValueError(f"alpha must be at least {ALPHA_MIN} (smaller values overflow the rates "
                         f"(w/q)**(1/alpha) in double precision); got {alpha!r}")
    return alpha


def _rates_vector(network, rates) -> np.ndarray:
    """Rates in flow order from a Series (by flow name) or an array."""
    import pandas as pd

    names = list(network.flow_names)
    if isinstance(rates, pd.Series):
        index = pd.Index(names)
        if not rates.index.equals(index):
            unknown = rates.index.difference(index)
            if len(unknown):
                raise ValueError(f"rates: unknown flow {unknown[0]!r}")
            missing = index.difference(rates.index)
            if len(missing):
                raise ValueError(f"rates: no value for flow {missing[0]!r}")
            if rates.index.has_duplicates:
                raise ValueError(f"rates: flow {rates.index[rates.index.duplicated()][0]!r} appears twice")
            rates = rates.reindex(index)
        x = rates.to_numpy(dtype=float)
    else:
        x = np.asarray(rates, dtype=float).reshape(-1)
        if x.shape != (len(names),):
            raise ValueError(f"rates must have {len(names)} entries (one per flow); got {x.shape[0]}")
    _check(x, np.isfinite(x), "rate_bps", "flow", names, "finite")
    return x


# ---------------------------------------------------------------------------------------
# sparse helpers
# ---------------------------------------------------------------------------------------


def _gather(indptr, indices, rows):
    """Concatenated (row, index) pairs of the given rows of a compressed sparse structure."""
    starts = indptr[rows]
    lens = indptr[rows + 1] - starts
    total = int(lens.sum())
    owner = np.repeat(rows, lens)
    offsets = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(total)
    return owner, indices[offsets]


def _segment_argmax(values, indptr, indices, rtol=1e-6):
    """Per segment (column of a CSC structure): first index whose value is the maximum.

    Values within ``rtol`` of the maximum count as ties (the first one wins).
    """
    vals = values[indices]
    seg_max = np.maximum.reduceat(vals, indptr[:-1])
    lens = np.diff(indptr)
    near = vals >= np.repeat(seg_max, lens) * (1 - rtol)
    pos = np.where(near, np.arange(vals.size), vals.size)
    first = np.minimum.reduceat(pos, indptr[:-1])
    return indices[first], seg_max


# ---------------------------------------------------------------------------------------
# max-min fairness
# ---------------------------------------------------------------------------------------


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
    R, c, d, w, e = _inputs(network)
    rates, bott, rounds = _water_fill(R, c, d, w)
    return _allocation(network, rates, e, bott, None, "max-min (water-filling)",
                       "progressive filling", rounds)


def _water_fill(R, c, d, w):
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
        owner, links = _gather(csc_ptr, csc_idx, flows)
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
        links, flows = _gather(csr_ptr, csr_idx, saturated)
        keep = ~frozen[flows]
        flows, links = flows[keep], links[keep]
        new, first = np.unique(flows, return_index=True)
        rates[new] = w[new] * t
        bott[new] = links[first]
        freeze(new)
    return rates, bott, rounds


# ---------------------------------------------------------------------------------------
# utility-based allocations
# ---------------------------------------------------------------------------------------


def proportional(network, method: str = "newton", *, max_iter: int | None = None) -> Allocation:
    """Weighted proportional fairness: maximise the sum of ``w_i log x_i``.

    Parameters
    ----------
    network : Network
        Capacities [bit/s], routes, demands [bit/s] (inf = greedy) and weights.
    method : {"newton", "cvxpy", "cvxpy-raw"}
        ``"newton"`` (default): the dual Newton solver of this module (fast; KKT
        residuals about 1e-13 relative). ``"cvxpy-raw"``: the same problem in cvxpy,
        solved by CLARABEL (slow for large networks; an independent cross-check):
        strict gap tolerances (1e-14 absolute) first, so that the rates agree with the
        KKT solution to about 1e-7; when CLARABEL cannot certify that, looser attempts
        follow and ``solver`` says so (about 1e-4 with tolerances 1e-12 or 1e-10).
        ``"cvxpy"``: CLARABEL's solution, then Newton's method on the links its prices
        name as saturated, kept when every KKT condition holds (about 1e-12; ``solver``
        says whether the polish succeeded).
    max_iter : int, optional
        Iteration limit (default 100 Newton iterations, 200 CLARABEL iterations).

    Returns
    -------
    Allocation
        ``rates`` and ``goodputs`` [bit/s], ``bottlenecks`` (most expensive saturated
        link, or ``"demand"``), ``link_prices`` [1 / (bit/s), times the weight unit].

    Raises
    ------
    ValueError
        NaN or out-of-range capacities, demands, weights or efficiencies; an unknown
        ``method``.
    SolverError
        The solver stopped before the optimum (the message gives the status).

    Notes
    -----
    .. math::

        \\max_x \\sum_i w_i \\log x_i \\quad \\text{s.t.}\\quad R x \\le c,\\quad
        0 \\le x \\le d.

    At the optimum :math:`x_i = \\min(d_i, w_i / q_i)` with route price
    :math:`q_i = \\sum_{l \\in i} p_l` and :math:`p_l (c_l - (Rx)_l) = 0`,
    :math:`p \\ge 0`. Equivalently, for any feasible :math:`y`,
    :math:`\\sum_i w_i (y_i - x_i) / x_i \\le 0`. Same as :func:`alpha_fair` with
    ``alpha=1``; see the module notes for the two methods.

    References
    ----------
    F. Kelly, "Charging and rate control for elastic traffic", European Transactions on
    Telecommunications 8(1), 1997. F. Kelly, A. Maulloo and D. Tan, "Rate control for
    communication networks: shadow prices, proportional fairness and stability",
    Journal of the Operational Research Society 49(3), 1998.

    Examples
    --------
    The handout's parking lot (Q40) and congestion-collapse network (Q24):

    >>> from labcalc.network import Network
    >>> lot = Network({"r1": 5e6, "r2": 5e6},
    ...               {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})
    >>> alloc = proportional(lot)
    >>> [round(r / 1e6, 6) for r in alloc.rates]
    [1.666667, 3.333333, 3.333333]
    >>> alloc.solver, round(float(alloc.link_prices["r1"]) * 1e6, 6)
    ('dual Newton', 0.3)
    >>> collapse = Network(
    ...     {"A-N1": 1e6, "C-N1": 10e6, "N1-N2": 1.5e6, "N2-D": 0.5e6, "N2-B": 10e6},
    ...     {"AB": ["A-N1", "N1-N2", "N2-B"], "CD": ["C-N1", "N1-N2", "N2-D"]})
    >>> [round(r / 1e6, 6) for r in proportional(collapse).rates]
    [1.0, 0.5]
    """
    _check_method(method)
    return _utility(network, 1.0, None, method, max_iter, "proportional")


def alpha_fair(network, alpha: float, method: str = "newton", *, max_iter: int | None = None) -> Allocation:
    """Weighted alpha-fair rates: maximise the sum of ``w_i x_i**(1-alpha) / (1-alpha)``.

    ``alpha = 1`` is proportional fairness (utility ``w_i log x_i``), ``alpha = 2``
    minimum potential delay, and ``alpha -> inf`` approaches max-min fairness: with
    weights, the max-min fairness with weights ``w_i**(1/alpha)``, i.e. unweighted in the
    limit (use weights ``w_i**alpha`` to approach weighted max-min).

    Parameters
    ----------
    network : Network
        Capacities [bit/s], routes, demands [bit/s] (inf = greedy) and weights.
    alpha : float
        Fairness parameter, finite and >= ``ALPHA_MIN`` (0.01).
    method : {"newton", "cvxpy", "cvxpy-raw"}
        As in :func:`proportional` (cvxpy uses exact power cones, or the exponential
        cone for ``alpha=1``, with CLARABEL).
    max_iter : int, optional
        Iteration limit (default 100 Newton iterations, 200 CLARABEL iterations).

    Returns
    -------
    Allocation
        As in :func:`proportional`; ``link_prices`` are in utility per bit/s.

    Raises
    ------
    ValueError
        ``alpha < ALPHA_MIN`` (0.01; also NaN, inf, not a number), bad network values,
        unknown method.
    SolverError
        The solver stopped before the optimum.

    Notes
    -----
    .. math::

        \\max_x \\sum_i w_i \\frac{x_i^{1-\\alpha}}{1-\\alpha} \\quad
        \\text{s.t.}\\quad R x \\le c,\\quad 0 \\le x \\le d.

    KKT: :math:`x_i = \\min\\big(d_i, (w_i / q_i)^{1/\\alpha}\\big)`,
    :math:`q_i = \\sum_{l \\in i} p_l`, :math:`p \\ge 0`, :math:`p_l (c_l - (Rx)_l) = 0`.
    On a parking lot of :math:`K` links of capacity :math:`c`, one long flow across all
    of them and one short flow per link (all weights 1), the prices are equal,
    :math:`x_s = (1/p)^{1/\\alpha}` and :math:`x_\\ell = (1/(Kp))^{1/\\alpha}`, so
    :math:`x_s = K^{1/\\alpha} x_\\ell` and :math:`x_\\ell + x_s = c` give

    .. math:: x_\\ell = \\frac{c}{1 + K^{1/\\alpha}}, \\qquad
              x_s = \\frac{c K^{1/\\alpha}}{1 + K^{1/\\alpha}}.

    References
    ----------
    J. Mo and J. Walrand, "Fair end-to-end window-based congestion control",
    IEEE/ACM Transactions on Networking 8(5), 2000.

    Examples
    --------
    Parking lot with K = 2: the long flow gets c / (1 + 2**(1/alpha)).

    >>> from labcalc.network import Network
    >>> lot = Network({"r1": 5e6, "r2": 5e6},
    ...               {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})
    >>> round(float(alpha_fair(lot, 2).rates["1to3"]) / 1e6, 6)
    2.071068
    >>> round(5 / (1 + 2 ** 0.5), 6)
    2.071068
    >>> [round(r / 1e6, 3) for r in alpha_fair(lot, 50).rates]  # close to max-min
    [2.483, 2.517, 2.517]
    """
    _check_method(method)
    alpha = _check_alpha(alpha)
    label = "proportional" if alpha == 1 else f"alpha-fair (alpha={alpha:g})"
    return _utility(network, alpha, None, method, max_iter, label)


def reno(network, method: str = "newton", *, max_iter: int | None = None) -> Allocation:
    """Rates under the TCP-Reno utility ``U_i(x) = -1 / (rtt_i**2 x)``.

    Parameters
    ----------
    network : Network
        Every flow needs ``rtt_s`` [s]. Flow weights are not used (Reno has none: model
        k parallel connections as k flows). Demands [bit/s] are honoured.
    method : {"newton", "cvxpy", "cvxpy-raw"}
        As in :func:`proportional`.
    max_iter : int, optional
        Iteration limit.

    Returns
    -------
    Allocation
        As in :func:`proportional`.

    Raises
    ------
    ValueError
        A flow without an RTT (the message names it), a non-positive RTT, bad network
        values.
    SolverError
        The solver stopped before the optimum.

    Notes
    -----
    The utility (up to a constant factor, which does not change the allocation) is

    .. math:: U_i(x_i) = -\\frac{1}{\\tau_i^2 x_i},

    which is :func:`alpha_fair` with :math:`\\alpha = 2` and weights
    :math:`w_i = 1/\\tau_i^2`. Hence :math:`x_i = 1/(\\tau_i \\sqrt{q_i})`: flows sharing
    one bottleneck get rates inversely proportional to their RTTs.

    References
    ----------
    S. H. Low, "A duality model of TCP and queue management algorithms", IEEE/ACM
    Transactions on Networking 11(4), 2003. J.-Y. Le Boudec, "Rate adaptation,
    congestion control and fairness: a tutorial", EPFL, section on the utility of TCP
    Reno.

    Examples
    --------
    The handout's D2 scenario: RTTs 800 ms and 300 ms on one 5 Mbit/s bottleneck.

    >>> from labcalc.network import Network, Flow
    >>> net = Network({"r1": 5e6}, {"h1": Flow(["r1"], rtt_s=0.8), "h2": Flow(["r1"], rtt_s=0.3)})
    >>> alloc = reno(net)
    >>> [round(r / 1e6, 6) for r in alloc.rates]
    [1.363636, 3.636364]
    >>> round(float(alloc.rates["h2"] / alloc.rates["h1"]), 6)
    2.666667
    """
    _check_method(method)
    rtt = np.asarray(network.rtts_s, dtype=float)
    missing = np.flatnonzero(np.isnan(rtt))
    if missing.size:
        name = network.flow_names[int(missing[0])]
        raise ValueError(f"rtt_s of flow {name!r} is needed by reno() but missing; got nan")
    _check(rtt, (rtt > 0) & np.isfinite(rtt), "rtt_s", "flow", network.flow_names, "positive and finite")
    return _utility(network, 2.0, 1.0 / rtt**2, method, max_iter, "TCP Reno (alpha=2, w=1/rtt^2)")


def _utility(network, alpha, weights, method, max_iter, label) -> Allocation:
    R, c, d, w, e = _inputs(network)
    if weights is not None:
        w = weights
    L, N = R.shape
    solver = "dual Newton" if method == "newton" else "cvxpy/CLARABEL"
    if N == 0:
        return _allocation(network, np.zeros(0), e, np.zeros(0, int), np.zeros(L), label, solver, 0)
    # Flows with demand 0 get 0; links without other flows are free (price 0).
    live = d > 0
    Rl = R[:, live] if not live.all() else R
    used = np.diff(Rl.indptr) > 0
    Rs = Rl[used] if not used.all() else Rl
    # Scale: rates in units of their typical size (the geometric mean of the max-min
    # rates, so that the rates are about 1 and the prices about the weights even for a
    # large alpha), weights by their geometric mean.
    if live.any():
        Rs = Rs.tocsr()
        # A demand at or above the smallest capacity on the route can never bind.
        Cs = Rs.tocsc()
        route_cmin = np.minimum.reduceat(c[used][Cs.indices], Cs.indptr[:-1])
        d_live = np.where(d[live] < route_cmin, d[live], np.inf)
        # max-min with weights w**(1/alpha): exact on a single bottleneck, and the limit
        # of the alpha-fair rates as alpha grows; the solvers start from it
        x_mm, bott_mm, _ = _water_fill(Rs, c[used], d_live, w[live] ** (1 / alpha))
        kappa = float(np.exp(np.mean(np.log(x_mm))))
        wscale = float(np.exp(np.mean(np.log(w[live]))))
        cs, ds, ws = c[used] / kappa, d_live / kappa, w[live] / wscale
        solve = _dual_newton if method == "newton" else _cvxpy_solve
        xs, ps, iters, note = solve(Rs, cs, ds, ws, alpha, max_iter, (x_mm / kappa, bott_mm))
        if method == "cvxpy":
            # CLARABEL stops at about 1e-7 on the rates: its prices name the saturated
            # links, Newton's method on them reaches rounding level, and the KKT
            # conditions of the whole problem are verified (else CLARABEL's rates stay)
            polished = _polish_prices(Rs, cs, ds, ws, alpha, ps)
            if polished is not None:
                xs, ps = polished
                note += " + Newton polish (KKT verified)"
            else:
                note += " (Newton polish failed: CLARABEL's accuracy)"
        solver += note
    else:
        xs, ps, iters, kappa, wscale = np.zeros(0), np.zeros(0), 0, 1.0, 1.0
    rates = np.zeros(N)
    rates[live] = xs * kappa
    prices_scaled = np.zeros(L)
    prices_scaled[used] = ps
    with np.errstate(divide="ignore", under="ignore"):
        prices = np.where(prices_scaled > 0,
                          np.exp(np.log(np.where(prices_scaled > 0, prices_scaled, 1.0))
                                 + math.log(wscale) - alpha * math.log(kappa)), 0.0)
    if not (np.all(np.isfinite(rates)) and np.all(np.isfinite(prices))):
        raise SolverError(f"{solver} returned non-finite rates or prices for {label}")
    # Bottlenecks: "demand" for demand-limited flows, else the most expensive link.
    C = R.tocsc()
    if R.nnz:
        link_max, _ = _segment_argmax(prices_scaled, C.indptr, C.indices)
    else:
        link_max = np.zeros(N, dtype=int)
    at_demand = rates >= d * (1 - 1e-9)
    bott = np.where(at_demand, -1, link_max)
    return _allocation(network, rates, e, bott, prices, label, solver, iters)


def _allocation(network, rates, e, bott, prices, method, solver, iterations) -> Allocation:
    import pandas as pd

    flows = pd.Index(network.flow_names, name="flow")
    names = np.array(list(network.link_names) + ["demand"], dtype=object)
    bott = np.asarray(bott, dtype=np.int64)
    labels = names[np.where(bott < 0, len(names) - 1, bott)]
    rates = pd.Series(rates, index=flows, name="rate_bps")
    return Allocation(
        rates=rates,
        goodputs=pd.Series(rates.to_numpy() * e, index=flows, name="goodput_bps"),
        bottlenecks=pd.Series(labels, index=flows, name="bottleneck", dtype=object),
        link_prices=(None if prices is None else
                     pd.Series(prices, index=pd.Index(network.link_names, name="link"), name="price")),
        method=method,
        solver=solver,
        iterations=int(iterations),
        network=network,
    )


# ---------------------------------------------------------------------------------------
# the dual Newton solver (on the scaled problem: rates and weights about 1)
# ---------------------------------------------------------------------------------------


class _Normal:
    """Assembles ``R diag(v) R^T`` for a fixed routing pattern (dense lower triangle).

    For up to ``_DENSE_MAX_LINKS`` links the (link, link) pairs of every route are listed
    once, so each assembly is one ``bincount``; otherwise a sparse product is used.
    """

    def __init__(self, R):
        self.L, self.N = R.shape
        self.C = R.tocsc()
        self.Rf = R.astype(float).tocsr()
        self.RTf = self.Rf.T.tocsr()
        self.dense = self.L <= _DENSE_MAX_LINKS
        lens = np.diff(self.C.indptr)
        npairs = int((lens * (lens + 1) // 2).sum())
        self.lin = None
        if self.dense and npairs <= _MAX_PAIRS:
            lin, owner = [], []
            for k in np.unique(lens):
                flows = np.flatnonzero(lens == k)
                links = self.C.indices[self.C.indptr[flows][:, None] + np.arange(k)]
                a, b = np.tril_indices(k)
                hi = np.maximum(links[:, a], links[:, b]).astype(np.int64)
                lo = np.minimum(links[:, a], links[:, b]).astype(np.int64)
                lin.append((hi * self.L + lo).ravel())
                owner.append(np.repeat(flows, a.size))
            lin, owner = np.concatenate(lin), np.concatenate(owner)
            order = np.argsort(lin, kind="stable")
            self.lin, self.owner = lin[order], owner[order]

    def matrix(self, v):
        """``R diag(v) R^T``: a dense array (lower triangle filled) or a sparse matrix."""
        if self.lin is not None:
            return np.bincount(self.lin, weights=v[self.owner],
                               minlength=self.L * self.L).reshape(self.L, self.L)
        M = self.Rf.multiply(v) @ self.Rf.T
        return M.toarray() if self.dense else M.tocsc()


def _factor(M, diag_add=None):
    """Factorise a symmetric positive (semi)definite matrix; returns ``solve(b)``.

    Dense matrices need only their lower triangle. The matrix is scaled to unit diagonal
    first (prices of different links may differ by many orders of magnitude); a tiny
    ridge is added if the factorisation fails.
    """
    import scipy.linalg as sla
    import scipy.sparse as sp

    n = M.shape[0]
    if n == 0:
        return lambda b: np.zeros(0)
    if sp.issparse(M):
        import scipy.sparse.linalg as spla

        M = M.tocsc()
        if diag_add is not None:
            M = M + sp.diags(diag_add)
        diag = M.diagonal()
        scale = 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0))
        Ms = sp.diags(scale) @ M @ sp.diags(scale)
        for ridge in (0.0, 1e-12, 1e-9, 1e-6):
            try:
                lu = spla.splu((Ms + sp.identity(n) * ridge).tocsc())
                pivots = np.abs(lu.U.diagonal())
                if not np.all(np.isfinite(pivots)) or float(np.min(pivots)) < 1e-13:
                    raise RuntimeError("near-singular")
                return lambda b: scale * lu.solve(scale * b)
            except RuntimeError:
                continue
        raise np.linalg.LinAlgError("singular Newton system")
    idx = np.diag_indices(n)
    if diag_add is not None:
        M[idx] += diag_add
    diag = M[idx].copy()
    scale = 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0))
    M *= np.outer(scale, scale)
    # Entries are now at most 1 in size; flush the negligible ones (adding and removing
    # 1e-150 rounds them to 0), as subnormal numbers make LAPACK up to 50 times slower.
    M += 1e-150
    M -= 1e-150
    base = M[idx].copy()
    for ridge in (0.0, 1e-12, 1e-9, 1e-6):
        try:
            if ridge:
                M[idx] = base + ridge
            cf = sla.cho_factor(M, lower=True, overwrite_a=False, check_finite=False)
            pivots = cf[0][idx]
            # a (numerically) singular matrix, e.g. two links carrying the same flows,
            # can pass with tiny pivots and give steps of 1e16: regularise instead
            if not np.all(np.isfinite(pivots)) or float(np.min(pivots)) ** 2 < 1e-13:
                raise np.linalg.LinAlgError("near-singular")
            return lambda b: scale * sla.cho_solve(cf, scale * b, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            continue
    raise np.linalg.LinAlgError("singular Newton system")


class _Dual:
    """The dual function of the scaled problem and the rates it implies.

    ``x_i(p) = min(d_i, (w_i / q_i)**(1/alpha))`` with ``q = R^T p``; the dual function
    is ``D(p) = sum_i [w_i U(x_i) - x_i q_i] + c.p`` (convex), its gradient the link
    slack ``s = c - R x(p)`` and its Hessian ``R diag(v) R^T`` with
    ``v_i = x_i / (alpha q_i)`` for flows below their demand (0 for the others).
    """

    def __init__(self, nm, c, d, w, alpha):
        self.nm, self.c, self.d, self.w, self.alpha = nm, c, d, w, alpha
        self.logw = np.log(w)
        self.finite_d = np.isfinite(d)
        with np.errstate(divide="ignore"):
            self.logd = np.log(d)
        # marginal utility at the demand, w d**-alpha (inf for greedy flows)
        with np.errstate(over="ignore"):
            self.mcap = np.where(self.finite_d, np.exp(np.minimum(self.logw - alpha * self.logd, 700.0)), np.inf)
        # utility of the demand (for demand-limited flows), in the dual function
        with np.errstate(over="ignore", divide="ignore"):
            if alpha == 1:
                self.ud = np.where(self.finite_d, w * self.logd, 0.0)
            else:
                self.ud = np.where(self.finite_d, w * np.exp((1 - alpha) * np.where(self.finite_d, self.logd, 0.0)) / (1 - alpha), 0.0)

    def at(self, p):
        """Route prices, rates, 'below demand' mask, slack and dual value at prices p."""
        q = self.nm.RTf @ p
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            logq = np.log(q)  # NaN for q < 0 (trial prices of the polish): held at d
            logx = (self.logw - logq) / self.alpha
        free = logx < self.logd
        x = np.where(free, np.exp(np.minimum(logx, 700.0)), self.d)
        s = self.c - self.nm.Rf @ x
        with np.errstate(invalid="ignore", over="ignore"):
            if self.alpha == 1:
                psi_free = self.w * (logx - 1.0)
            else:
                psi_free = (self.alpha / (1 - self.alpha)) * x * q
            psi = np.where(free, psi_free, self.ud - self.d * q)
        if np.any((q <= 0) & ~self.finite_d):  # a greedy flow with a free route
            return q, x, free, s, math.inf
        value = float(psi.sum() + self.c @ p)
        return q, x, free, s, value


def _dual_newton(R, c, d, w, alpha, max_iter, start, tol=1e-10):
    """Maximise sum w U_alpha(x) s.t. Rx <= c, 0 <= x <= d (scaled problem).

    The dual Newton method of the module docstring. ``start`` is ``(x_maxmin, bottleneck
    link index or -1)`` of a max-min allocation with weights ``w**(1/alpha)``.
    Returns rates x (N,), link prices p (L,), the iteration count and a note ("").
    """
    max_iter = 100 if max_iter is None else int(max_iter)
    L = R.shape[0]
    nm = _Normal(R)
    dual = _Dual(nm, c, d, w, alpha)
    # Start from the max-min allocation (cheap, and close to the optimum for large alpha):
    # rates theta * x_maxmin with theta = 0.5**(1/alpha), priced on each flow's max-min
    # bottleneck so that x(p) <= theta * x_maxmin (strictly feasible); other links get a
    # negligible price.
    x_mm, bott = start
    logq = dual.logw - alpha * (np.log(x_mm) + math.log(0.5) / alpha)
    logp = np.full(L, -np.inf)
    limited = bott >= 0
    np.maximum.at(logp, bott[limited], logq[limited])
    floor = np.minimum.reduceat(logq[R.indices], R.indptr[:-1]) - 3.0 * math.log(10)
    logp = np.maximum(logp, floor)
    if np.any(np.abs(logp) > 700):
        raise SolverError(
            f"alpha={alpha:g} is too large for this network: the link prices would leave "
            "double precision (use max_min for the limit alpha -> inf)")
    p = np.exp(logp)
    # Weighted barrier: link l's complementarity is measured relative to its natural
    # price scale, nu_l = c_l times the smallest marginal utility w x**-alpha of its flows
    # at the max-min rates, so that prices of very different sizes (large alpha) converge
    # together: the central path is slack_l p_l = tau nu_l. The weights stay fixed and
    # tau only decreases, so that the path is well defined.
    lognu = np.log(c) + np.minimum.reduceat((dual.logw - alpha * np.log(x_mm))[R.indices], R.indptr[:-1])
    nu = np.exp(np.clip(lognu, -700.0, 700.0))
    tau = math.inf
    q, x, free, s, value = dual.at(p)
    slack = np.maximum(s, 1e-3 * c)  # the slack variable: s(p) where feasible, kept > 0
    polish_at = [1e-4, 1e-7, tol]
    it = 0
    while True:
        # the smallest marginal utility among the flows of each link (q, or w d**-alpha
        # for flows held at their demand): a price below tol times it is negligible
        gmin = np.minimum.reduceat(np.where(free, q, dual.mcap)[R.indices], R.indptr[:-1])
        with np.errstate(divide="ignore", invalid="ignore"):
            comp = np.minimum(np.maximum(s, 0.0) / c, p / gmin)
        err = max(float(np.max(np.maximum(-s, 0.0) / c)), float(np.max(comp)))
        if not math.isfinite(err):
            raise SolverError(f"dual Newton: non-finite iterate after {it} iterations")
        if polish_at and err <= polish_at[0]:
            while polish_at and err <= polish_at[0]:
                polish_at.pop(0)
            polished = _polish(nm, dual, p, s, q, gmin)
            if polished is not None:
                xp, pp, k = polished
                return xp, pp, it + k, ""
        if err <= tol:
            # converged without a successful polish: zero the negligible prices of the
            # links that are not saturated, if the rates stay feasible
            p0 = np.where(np.maximum(s, 0.0) / c >= p / gmin, 0.0, p)
            _, x0, _, s0, value0 = dual.at(p0)
            if math.isfinite(value0) and np.all(s0 >= -tol * c):
                return x0, p0, it, ""
            return x, p, it, ""
        if it >= max_iter:
            raise SolverError(
                f"dual Newton stopped after max_iter={max_iter} iterations with KKT residual "
                f"{err:.3g} (status: iteration limit)")
        it += 1
        mu = float(np.mean(slack * p / nu))
        v = np.where(free, x / (alpha * q), 0.0)
        H = nm.matrix(v)
        # Newton on [slack = s(p), slack * p = tau nu]: eliminating the slack step gives
        # (H + diag(slack / p)) dp = tau nu / p - s(p), the gradient of the barrier
        # function Phi below, so dp is a descent direction for it.
        try:
            solve = _factor(H, slack / p)
        except np.linalg.LinAlgError:
            raise SolverError(f"dual Newton: singular Newton system at iteration {it}") from None
        resid = slack - s

        def slack_step(dp):
            return nm.Rf @ (v * (nm.RTf @ dp)) - resid

        def max_step(dp, dsl, frac):
            # keep prices positive and the slacks of feasible links positive (on an
            # overloaded link the slack only sets the diagonal), and raise no price more
            # than 1000-fold in one step (the barrier's quadratic model means nothing then)
            a = 1.0
            for val, step in ((p, dp), (slack, np.where(s >= 0, dsl, 0.0))):
                neg = step < 0
                if neg.any():
                    a = min(a, frac * float(np.min(-val[neg] / step[neg])))
            pos = dp > 0
            return min(a, float(np.min(1e3 * p[pos] / dp[pos]))) if pos.any() else a

        # Predictor: Newton step towards tau = 0; its predicted complementarity sets
        # the centring parameter sigma (Mehrotra's heuristic).
        dp_aff = solve(-s)
        dsl_aff = slack_step(dp_aff)
        a_aff = max_step(dp_aff, dsl_aff, 1.0)
        mu_aff = float(np.mean((slack + a_aff * dsl_aff) * (p + a_aff * dp_aff) / nu))
        sigma = min(0.5, max(1e-6, (mu_aff / mu) ** 3)) if mu > 0 else 1e-6
        target = tau = min(tau, sigma * mu)
        grad = s - target * nu / p
        dp = solve(-grad)
        slope = float(grad @ dp)
        if slope >= 0:  # numerical trouble: fall back to a scaled gradient step
            dp = -grad * p / slack
            slope = float(grad @ dp)
        dsl = slack_step(dp)
        a = max_step(dp, dsl, 0.995)

        def merit(val, pp):
            with np.errstate(divide="ignore", invalid="ignore"):
                return val - target * float(nu @ np.log(pp))

        # Armijo line search on Phi(p) = D(p) - tau sum nu log p.
        phi0 = merit(value, p)
        for _ in range(60):
            trial = p + a * dp
            tq, tx, tfree, ts, tvalue = dual.at(trial)
            phi = merit(tvalue, trial)
            if math.isfinite(phi) and phi <= phi0 + 1e-4 * a * slope + 1e-13 * abs(phi0):
                break
            a *= 0.5
        else:
            raise SolverError(f"dual Newton: line search failed at iteration {it}")
        p, q, x, free, s, value = trial, tq, tx, tfree, ts, tvalue
        slack = np.maximum(np.maximum(slack + a * dsl, s), 1e-2 * slack)


def _polish(nm, dual, p, s, q, gmin):
    """Active-set Newton on the dual: solve ``R_A x(p_A) = c_A`` exactly, then verify KKT.

    ``A`` = links whose relative slack is smaller than their relative price. Returns
    (x, p, iterations), or None when the active set guessed is not optimal.
    """
    c, alpha = dual.c, dual.alpha
    L = len(c)
    sat = np.maximum(s, 0.0) / c < p / gmin
    A = np.flatnonzero(sat)
    if A.size == 0:
        return None
    pA = p[A].copy()
    full = np.zeros(L)

    def evaluate(pA):
        full[:] = 0.0
        full[A] = pA
        q, x, free, s, value = dual.at(full)
        return q, x, free, s, math.isfinite(value)

    q, x, free, s, ok = evaluate(pA)
    if not ok:
        return None
    err = float(np.max(np.abs(s[A]) / c[A]))
    k = 0
    for k in range(1, 11):
        if err <= 1e-14:
            break
        v = np.where(free, x / (alpha * np.where(free, q, 1.0)), 0.0)
        J = nm.matrix(v)
        J = J[A][:, A] if _issparse(J) else J[np.ix_(A, A)]
        try:
            solve = _factor(J)
        except np.linalg.LinAlgError:
            return None
        delta = solve(-s[A])
        step = 1.0
        for _ in range(12):
            trial = pA + step * delta
            tq, tx, tfree, ts, ok = evaluate(trial)
            if ok:
                et = float(np.max(np.abs(ts[A]) / c[A]))
                if et < err:
                    break
            step *= 0.5
        else:
            break  # no progress: rounding level reached, or a wrong active set
        pA, q, x, free, s, err, last = trial, tq, tx, tfree, ts, et, err
        if err > 0.5 * last and err < 1e-12:
            break  # stagnating at rounding level
    # Verify the KKT conditions of the whole problem.
    tol = 1e-11
    if err > 1e-12:
        return None
    # negative prices: only rounding-level ones (relative to the route prices) are allowed
    gmin = np.minimum.reduceat(np.where(free, q, dual.mcap)[nm.Rf.indices], nm.Rf.indptr[:-1])
    if np.any(pA < -tol * np.abs(gmin[A])):
        return None
    pA = np.maximum(pA, 0.0)
    q, x, free, s, ok = evaluate(pA)
    if not ok or np.any(s < -tol * c):
        return None
    return x, full.copy(), k


def polish_from_prices(routing, capacities, prices, weights=None, alpha=1.0):
    """Rates of the alpha-fair optimum, made exact from approximate link prices.

    For a solver that stops early (CLARABEL reaches about 1e-6 to 1e-8 on these
    problems): the links whose price is significant are taken as the saturated ones,
    ``R_A x(p_A) = c_A`` with ``x_i = (w_i / q_i)**(1/alpha)``, ``q = R_A^T p_A`` is
    solved by Newton's method to rounding, and the optimality conditions of the whole
    problem are checked. Flows have no demand limit here.

    Parameters
    ----------
    routing : scipy.sparse matrix or array (L, N)
    capacities : array (L,)
        Any consistent unit (the rates come out in it).
    prices : array (L,)
        Approximate link prices (dual values of the capacity constraints).
    weights : array (N,), optional
        Default 1.
    alpha : float, default 1 (proportional fairness)

    Returns
    -------
    ndarray (N,) or None
        The rates, or None when the prices do not identify an optimal set of
        saturated links (then solve more accurately first).

    Examples
    --------
    >>> x = polish_from_prices([[1, 1, 0], [1, 0, 1]], [5.0, 5.0], [0.61, 0.59])
    >>> [round(float(v), 12) for v in x]
    [1.666666666667, 3.333333333333, 3.333333333333]
    """
    import scipy.sparse as sp

    R = sp.csr_matrix(routing, dtype=np.int8)
    L, N = R.shape
    c = np.asarray(capacities, dtype=float).reshape(-1)
    p = np.asarray(prices, dtype=float).reshape(-1)
    w = np.ones(N) if weights is None else np.asarray(weights, dtype=float).reshape(-1)
    if c.shape != (L,) or p.shape != (L,) or w.shape != (N,):
        raise ValueError(f"polish_from_prices: need {L} capacities and prices and {N} weights")
    polished = _polish_prices(R, c, np.full(N, np.inf), w, float(alpha), p)
    return None if polished is None else polished[0]


def _polish_prices(R, c, d, w, alpha, prices):
    """(rates, prices) at the optimum from approximate prices, or None (see _polish)."""
    p = np.maximum(np.asarray(prices, dtype=float), 0.0)
    if not (np.all(np.isfinite(p)) and np.any(p > 0)):
        return None
    R = R.tocsr()
    nm = _Normal(R)
    dual = _Dual(nm, c, d, w, alpha)
    q, x, free, slack, value = dual.at(p)
    if not math.isfinite(value):
        return None
    gmin = np.minimum.reduceat(np.where(free, q, dual.mcap)[R.indices], R.indptr[:-1])
    polished = _polish(nm, dual, p, slack, q, gmin)
    return None if polished is None else (polished[0], polished[1])


def _issparse(M):
    import scipy.sparse as sp

    return sp.issparse(M)


# ---------------------------------------------------------------------------------------
# the cvxpy path
# ---------------------------------------------------------------------------------------


def _cvxpy_solve(R, c, d, w, alpha, max_iter, start):
    """The same scaled problem in cvxpy, solved by CLARABEL.

    A duality gap ``g`` leaves the rates uncertain by about ``sqrt(g / curvature)`` where
    the utility is flat, so 1e-12 tolerances give only about 1e-6 on the rates; tighter
    ones often end "optimal_inaccurate". So up to four attempts are made, strictest first
    (``_CLARABEL_ATTEMPTS``); the first that ends "optimal" is used, and the note returned
    says when a less accurate one was needed. If none does, :class:`SolverError` gives
    the statuses. The problem is built once (a scalar Parameter scales the objective).
    """
    import warnings

    import cvxpy as cp

    N = R.shape[1]
    Rf = R.astype(float).tocsr()
    x = cp.Variable(N)
    factor = cp.Parameter(nonneg=True)  # a scalar: DPP re-solves without rebuilding
    cons = [Rf @ x <= c]
    if alpha == 1:
        utility = cp.sum(cp.multiply(w, cp.log(x)))
    elif alpha < 1:
        utility = cp.sum(cp.multiply(w / (1 - alpha), cp.power(x, 1 - alpha, approx=False)))
    else:
        # -x**(1-alpha) = -exp((1-alpha) y) with y <= log x: exponential cones, which
        # CLARABEL solves more accurately than the equivalent power cones.
        y = cp.Variable(N)
        utility = -cp.sum(cp.multiply(w / (alpha - 1), cp.exp((1 - alpha) * y)))
        cons.append(y <= cp.log(x))
    objective = factor * utility
    finite = np.flatnonzero(np.isfinite(d))
    if finite.size:
        cons.append(x[finite] <= d[finite])
    prob = cp.Problem(cp.Maximize(objective), cons)
    statuses = []
    for scale, tolerances, note in _CLARABEL_ATTEMPTS:
        factor.value = scale
        options = dict(tolerances, max_iter=200 if max_iter is None else int(max_iter))
        try:
            with warnings.catch_warnings():
                # "Solution may be inaccurate": the status is checked below
                warnings.simplefilter("ignore", UserWarning)
                warnings.simplefilter("ignore", RuntimeWarning)
                prob.solve(solver="CLARABEL", **options)
        except cp.error.SolverError as exc:
            statuses.append(f"error: {exc}")
            continue
        statuses.append(prob.status)
        if prob.status == cp.OPTIMAL:
            break
    else:
        raise SolverError("cvxpy/CLARABEL did not reach an optimum: status "
                          + " then ".join(repr(st) for st in statuses))
    xv = x.value
    pv = cons[0].dual_value
    if xv is None or pv is None or not (np.all(np.isfinite(xv)) and np.all(np.isfinite(pv))):
        raise SolverError("cvxpy/CLARABEL returned no finite solution (status 'optimal')")
    xv = np.clip(np.asarray(xv, dtype=float), 0.0, d)
    pv = np.maximum(np.asarray(pv, dtype=float).reshape(-1), 0.0) / scale
    iters = int(prob.solver_stats.num_iters or 0)
    return xv, pv, iters, note


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


# ---------------------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------------------


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
    x = _rates_vector(network, rates)
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
    x = _rates_vector(network, rates)
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
    x = _rates_vector(network, rates)
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


# ---------------------------------------------------------------------------------------
# a cvxpy problem built once, re-solved for new capacities (the parking-lot explorer)
# ---------------------------------------------------------------------------------------


class ProportionalFairProblem:
    """Proportional fairness for a fixed routing, built once in cvxpy, re-solved fast.

    The capacities are a cvxpy ``Parameter``: :meth:`solve` only changes their value and
    calls CLARABEL again (no re-compilation), which is what a slider needs.

    Parameters
    ----------
    routing : array_like or scipy.sparse matrix (L, N)
        ``R[l, i] = 1`` when flow ``i`` crosses link ``l``.
    weights : array_like (N,), optional
        Weights w_i of the objective sum w_i log x_i (1 by default).

    Notes
    -----
    maximise :math:`\\sum_i w_i \\log x_i` subject to :math:`R x \\le c`. The
    capacities are scaled by their largest value before solving (the solver is badly
    conditioned with numbers like 5e6), and the solution scaled back. CLARABEL is asked
    for 1e-12 tolerances; on this problem it stops at about 1e-6 to 1e-8 relative
    (often reporting "optimal_inaccurate"), so its link prices seed a few Newton steps on
    the saturated links (:func:`polish_from_prices`), and the result is
    accepted only if it satisfies the optimality conditions of the whole problem. Otherwise the solve is repeated with 1e-10, then
    1e-8, before giving up with a ``ValueError``.

    References
    ----------
    F. Kelly, European Transactions on Telecommunications 8(1), 1997; cvxpy's
    disciplined parametrized programming (DPP).

    Examples
    --------
    >>> prob = ProportionalFairProblem([[1, 1, 0], [1, 0, 1]])
    >>> [round(float(x) / 1e6, 6) for x in prob.solve([5e6, 5e6])]
    [1.666667, 3.333333, 3.333333]
    >>> [round(float(x) / 1e6, 4) for x in prob.solve([5e6, 2e6])]
    [0.8804, 4.1196, 1.1196]
    """

    _TOLERANCES = (1e-12, 1e-10, 1e-8)

    def __init__(self, routing, weights=None):
        import cvxpy as cp
        import scipy.sparse as sp

        R = sp.csr_matrix(np.asarray(routing, dtype=float) if not sp.issparse(routing) else routing,
                          dtype=float)
        self.n_links, self.n_flows = R.shape
        w = np.ones(self.n_flows) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (self.n_flows,) or not np.all(w > 0):
            raise ValueError(f"weights must be {self.n_flows} positive numbers; got {weights!r}")
        self._R = R
        self._w = w
        self.capacity = cp.Parameter(self.n_links, nonneg=True, name="capacity")
        self.x = cp.Variable(self.n_flows, name="rate")
        self.constraints = [R @ self.x <= self.capacity]
        self.problem = cp.Problem(cp.Maximize(cp.sum(cp.multiply(w, cp.log(self.x)))), self.constraints)
        self.status = None
        self.solve_s = float("nan")

    def solve(self, capacities_bps):
        """Rates [bit/s] for these capacities [bit/s] (array of the flows, routing order)."""
        c = np.asarray(capacities_bps, dtype=float).reshape(-1)
        if c.shape != (self.n_links,) or not np.all(np.isfinite(c)) or not np.all(c > 0):
            raise ValueError(f"capacities_bps must be {self.n_links} positive numbers; got {capacities_bps!r}")
        scale = float(c.max())
        cs = c / scale
        self.capacity.value = cs
        start = time.perf_counter()
        x = None
        for tol in self._TOLERANCES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.problem.solve(solver="CLARABEL", tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol,
                                   tol_ktratio=min(1e-6, tol * 100))
            if self.problem.status in ("optimal", "optimal_inaccurate") and self.x.value is not None:
                prices = np.asarray(self.constraints[0].dual_value, dtype=float).reshape(-1)
                x = polish_from_prices(self._R, cs, prices, self._w)
                if x is not None:
                    break
        self.status = self.problem.status
        self.solve_s = time.perf_counter() - start
        if x is None:
            raise ValueError(f"cvxpy/CLARABEL did not reach an optimum: status {self.problem.status!r}")
        return x * scale
