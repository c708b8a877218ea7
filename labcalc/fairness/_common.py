"""Shared pieces of :mod:`labcalc.fairness`: the result, input checks, sparse helpers.

Part of :mod:`labcalc.fairness`, which re-exports every public name.

Examples
--------
>>> issubclass(SolverError, ValueError)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "SolverError",
    "Allocation",
    "ALPHA_MIN",
]


_METHODS = ("newton", "cvxpy", "cvxpy-raw")


class SolverError(ValueError):
    """A solver stopped without reaching an optimum (the message gives its status)."""


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
    >>> from labcalc.fairness import max_min
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
        >>> from labcalc.fairness import max_min
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
        >>> from labcalc.fairness import max_min
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


def inputs(network):
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
    check_values(c, (c > 0) & np.isfinite(c), "capacity_bps", "link", network.link_names, "positive and finite")
    check_values(d, d >= 0, "demand_bps", "flow", network.flow_names, ">= 0 (inf for greedy)")
    check_values(w, (w > 0) & np.isfinite(w), "weight", "flow", network.flow_names, "positive and finite")
    check_values(e, (e > 0) & (e <= 1), "efficiency", "flow", network.flow_names, "in (0, 1]")
    if N and np.any(np.diff(R.tocsc().indptr) == 0):
        i = int(np.flatnonzero(np.diff(R.tocsc().indptr) == 0)[0])
        raise ValueError(f"route of flow {network.flow_names[i]!r} crosses no link")
    if R.nnz and not np.all(np.isfinite(R.data)):
        raise ValueError("routing_matrix contains non-finite entries")
    return R, c, d, w, e


def check_values(values, ok, field, kind, names, wanted):
    bad = np.flatnonzero(~ok)
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"{field} of {kind} {names[k]!r} must be {wanted}; got {float(values[k])!r}")


def check_method(method):
    if method not in _METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, _METHODS))}; got {method!r}")


#: Smallest alpha :func:`alpha_fair` accepts. The rates are powers ``(w / q)**(1/alpha)``
#: of the weights and prices; below this the exponent 1/alpha > 100 makes them overflow
#: double precision for ordinary weights (alpha = 1e-9 on 5,000 flows did), and the
#: allocation is by then indistinguishable from the throughput-maximising limit.
ALPHA_MIN = 0.01


def check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise ValueError(f"alpha must be a number > 0; got {alpha!r}")
    alpha = float(alpha)
    if not (alpha > 0) or math.isinf(alpha):
        raise ValueError(f"alpha must be > 0 and finite (use max_min for alpha -> inf); got {alpha!r}")
    if alpha < ALPHA_MIN:
        raise ValueError(f"alpha must be at least {ALPHA_MIN} (smaller values overflow the rates "
                         f"(w/q)**(1/alpha) in double precision); got {alpha!r}")
    return alpha


def rates_vector(network, rates) -> np.ndarray:
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
    check_values(x, np.isfinite(x), "rate_bps", "flow", names, "finite")
    return x


def gather(indptr, indices, rows):
    """Concatenated (row, index) pairs of the given rows of a compressed sparse structure."""
    starts = indptr[rows]
    lens = indptr[rows + 1] - starts
    total = int(lens.sum())
    owner = np.repeat(rows, lens)
    offsets = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(total)
    return owner, indices[offsets]


def segment_argmax(values, indptr, indices, rtol=1e-6):
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


def make_allocation(network, rates, e, bott, prices, method, solver, iterations) -> Allocation:
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
