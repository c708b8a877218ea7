"""Traffic without congestion control (UDP) through drop-tail FIFO links.

A UDP sender keeps sending at its own rate whatever the network does. When the traffic
arriving at a drop-tail FIFO link exceeds its capacity, the queue fills and the link
drops packets regardless of which flow they belong to. In the fluid model every flow
arriving at an overloaded link keeps the same fraction of its traffic::

    accepted_l = min(1, C_l / sum of the rates arriving at l)

and what a flow keeps is what it offers to the next link of its route. Packets that
cross a first bottleneck and are dropped at a second one have wasted the first: this is
how congestion collapse happens (lab handout section 2).

Examples
--------
>>> from labcalc.network import Network
>>> net = Network({"r1": 5e6}, {"h1": ["r1"], "h2": ["r1"]})
>>> res = fifo_split(net, {"h1": 1e6, "h2": 9e6})
>>> [round(float(x) / 1e6, 3) for x in res.rates]
[0.5, 4.5]
>>> round(float(res.loss["h1"]), 3)
0.5
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

__all__ = ["FifoResult", "fifo_split", "ConvergenceError"]


class ConvergenceError(ValueError):
    """The fixed-point iteration for a network with cycles did not converge."""


@dataclass(frozen=True)
class FifoResult:
    """Outcome of :func:`fifo_split`. All rates in the network's accounting [bit/s].

    Attributes
    ----------
    offered : pandas.Series
        Rate each flow puts on its first link [bit/s].
    rates : pandas.Series
        Rate each flow delivers at the end of its route [bit/s].
    goodputs : pandas.Series
        ``rates x efficiency``: application data delivered [bit/s].
    loss : pandas.Series
        Fraction of the flow's packets dropped somewhere on its route [1].
    bottlenecks : pandas.Series
        The link of the route that drops the largest share of the flow ("" if none).
    links : pandas.DataFrame
        Per link: capacity_bps, arriving_bps, departing_bps, dropped_bps, accepted.
    hops : pandas.DataFrame
        Per (flow, link) hop in route order: arriving_bps, departing_bps.
    iterations : int
        Sweeps of the fixed-point iteration (the longest chain of links for a
        feed-forward network).

    Examples
    --------
    >>> from labcalc.network import Flow, Network
    >>> net = Network({"L": 1e6}, {"f1": Flow(["L"], demand_bps=1.5e6),
    ...                            "f2": Flow(["L"], demand_bps=0.5e6)})
    >>> res = fifo_split(net)
    >>> [round(float(x) / 1e6, 3) for x in res.rates]
    [0.75, 0.25]
    """

    offered: object
    rates: object
    goodputs: object
    loss: object
    bottlenecks: object
    links: object
    hops: object
    iterations: int

    def table(self):
        """Per-flow summary (offered, delivered rate, goodput, loss, bottleneck).

        Examples
        --------
        >>> from labcalc.network import Network
        >>> net = Network({"r1": 5e6}, {"h1": ["r1"], "h2": ["r1"]})
        >>> list(fifo_split(net, {"h1": 1e6, "h2": 9e6}).table().columns)
        ['offered_bps', 'rate_bps', 'goodput_bps', 'loss', 'bottleneck']
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "offered_bps": self.offered,
                "rate_bps": self.rates,
                "goodput_bps": self.goodputs,
                "loss": self.loss,
                "bottleneck": self.bottlenecks,
            }
        )


def _offered_vector(network, offered_bps, offered: str) -> np.ndarray:
    if offered not in ("rate", "goodput"):
        raise ValueError(f"offered must be 'rate' or 'goodput'; got {offered!r}")
    offered_bps = {} if offered_bps is None else offered_bps
    if not isinstance(offered_bps, Mapping):
        raise ValueError(f"offered_bps must be a mapping flow -> bit/s; got {type(offered_bps).__name__}")
    known = set(network.flow_names) if offered_bps else set()
    unknown = [f for f in offered_bps if f not in known]
    if unknown:
        raise ValueError(f"offered_bps: unknown flow {unknown[0]!r} (flows: {', '.join(network.flow_names)})")
    first_link_cap = _first_link_capacities(network)
    values = np.empty(network.n_flows)
    for i, name in enumerate(network.flow_names):
        if name in offered_bps:
            v = offered_bps[name]
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise ValueError(f"offered_bps[{name!r}] must be a number; got {v!r}")
            v = float(v)
            if not math.isfinite(v) or v < 0:
                raise ValueError(f"offered_bps[{name!r}] must be finite and >= 0; got {v!r}")
            values[i] = v / network.efficiencies[i] if offered == "goodput" else v
        elif math.isfinite(network.demands_bps[i]):
            values[i] = network.demands_bps[i]
        else:
            # A greedy sender without a stated rate sends as fast as its access link allows.
            values[i] = first_link_cap[i]
    return values


def _first_link_capacities(network) -> np.ndarray:
    hop_link, hop_flow = network.hop_arrays()
    first = np.r_[True, hop_flow[1:] != hop_flow[:-1]] if hop_flow.size else np.zeros(0, bool)
    caps = np.full(network.n_flows, np.inf)
    caps[hop_flow[first]] = network.capacities_bps[hop_link[first]]
    return caps


def fifo_split(
    network,
    offered_bps: Mapping[str, float] | None = None,
    offered: str = "rate",
    tol: float = 1e-12,
    max_iter: int = 10_000,
) -> FifoResult:
    """Rates, goodputs and losses of open-loop flows through drop-tail FIFO links.

    Parameters
    ----------
    network : labcalc.network.Network
        Links with capacities [bit/s] and flows with routes (in the order crossed).
    offered_bps : mapping flow name -> rate [bit/s], optional
        What each flow sends. A flow missing here sends its ``demand_bps``, or, if that
        is infinite, the capacity of the first link of its route (its access link).
    offered : {"rate", "goodput"}, default "rate"
        Whether ``offered_bps`` counts link bits (the network's accounting) or
        application data; goodputs are divided by the flow's efficiency first.
    tol : float, default 1e-12
        Convergence threshold on the largest change of any hop rate, relative to the
        largest offered rate.
    max_iter : int, default 10000
        Sweeps allowed before :class:`ConvergenceError` is raised.

    Returns
    -------
    FifoResult
        ``.rates``, ``.goodputs``, ``.loss`` (Series by flow), ``.links``, ``.hops``.

    Raises
    ------
    ValueError
        Unknown flow, negative or non-finite offered rate, unknown ``offered`` mode.
    ConvergenceError
        The iteration did not settle within ``max_iter`` sweeps (possible only when
        routes form a cycle of links, e.g. a ring).

    Notes
    -----
    Let :math:`x_{i,h}` be the rate of flow :math:`i` arriving at hop :math:`h` of its
    route, :math:`A_l = \\sum x_{i,h}` over the hops on link :math:`l`. Then

    .. math::

        a_l = \\min(1, C_l / A_l), \\qquad x_{i,h+1} = a_{l(i,h)}\\, x_{i,h},
        \\qquad \\text{loss}_i = 1 - x_{i,\\text{out}} / x_{i,0}.

    The equations are solved by sweeping all hops at once until nothing changes. On a
    feed-forward network (no cycle of links) the sweep is exact after as many sweeps as
    the longest chain of links; with cycles it is a fixed-point iteration (a solution
    exists by Brouwer's theorem) whose convergence is checked.

    References
    ----------
    Lab handout Q12-Q13 (proportional split) and Q21-Q22 (congestion collapse);
    J.-Y. Le Boudec, *Rate adaptation, congestion control and fairness: a tutorial*,
    EPFL, section 1.1 (the congestion-collapse example); S. Floyd and K. Fall,
    "Promoting the use of end-to-end congestion control", IEEE/ACM ToN 7(4), 1999.

    Examples
    --------
    Handout Q21: A and C send at their access rates 1 and 10 Mbit/s, the shared link
    carries 1.5 Mbit/s, C's exit link 0.5 Mbit/s.

    >>> from labcalc.network import Network
    >>> net = Network(
    ...     links={"A-N1": 1e6, "C-N1": 10e6, "N1-N2": 1.5e6, "N2-D": 0.5e6, "N2-B": 10e6},
    ...     flows={"AB": ["A-N1", "N1-N2", "N2-B"], "CD": ["C-N1", "N1-N2", "N2-D"]},
    ... )
    >>> res = fifo_split(net)
    >>> round(float(res.links.loc["N1-N2", "accepted"]), 3)
    0.136
    >>> [round(float(x) / 1e6, 3) for x in res.rates]
    [0.136, 0.5]
    """
    import pandas as pd

    if not (isinstance(tol, (int, float)) and tol > 0):
        raise ValueError(f"tol must be positive; got {tol!r}")
    if not (isinstance(max_iter, int) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    x0 = _offered_vector(network, offered_bps, offered)
    hop_link, hop_flow = network.hop_arrays()  # route order, flow after flow
    first = np.r_[True, hop_flow[1:] != hop_flow[:-1]] if hop_flow.size else np.zeros(0, bool)
    last = np.r_[hop_flow[1:] != hop_flow[:-1], True] if hop_flow.size else np.zeros(0, bool)
    caps = network.capacities_bps
    n_links = network.n_links
    scale = max(float(x0.max(initial=0.0)), 1e-300)

    x_in = x0[hop_flow].astype(float)  # start: every hop sees the full offered rate
    accepted = np.ones(n_links)
    for iteration in range(1, max_iter + 1):
        load = np.bincount(hop_link, weights=x_in, minlength=n_links)
        accepted = np.ones(n_links)
        over = load > caps
        accepted[over] = caps[over] / load[over]
        x_out = x_in * accepted[hop_link]
        new_in = np.empty_like(x_in)
        new_in[first] = x0[hop_flow[first]]
        new_in[~first] = x_out[np.flatnonzero(~first) - 1]
        change = float(np.max(np.abs(new_in - x_in), initial=0.0))
        x_in = new_in
        if change <= tol * scale:
            break
    else:
        raise ConvergenceError(
            f"fifo_split did not converge in max_iter={max_iter} sweeps "
            f"(last change {change:.3g} bit/s, tolerance {tol * scale:.3g} bit/s); "
            "the routes form a cycle whose fixed point the plain iteration does not reach"
        )
    load = np.bincount(hop_link, weights=x_in, minlength=n_links)
    accepted = np.ones(n_links)
    over = load > caps
    accepted[over] = caps[over] / load[over]
    x_out = x_in * accepted[hop_link]

    flows = pd.Index(network.flow_names, name="flow")
    delivered = np.zeros(network.n_flows)
    delivered[hop_flow[last]] = x_out[last]
    with np.errstate(invalid="ignore", divide="ignore"):
        loss = np.where(x0 > 0, 1.0 - delivered / np.where(x0 > 0, x0, 1.0), 0.0)
    loss = np.clip(loss, 0.0, 1.0)
    dropped_hop = x_in - x_out
    # per flow, the hop that drops the most: sort hops by (flow, dropped), take each last
    order = np.lexsort((dropped_hop, hop_flow))
    group_last = order[np.r_[hop_flow[order][1:] != hop_flow[order][:-1], True]] if order.size else order
    names = np.array(network.link_names, dtype=object)
    bottlenecks = np.full(network.n_flows, "", dtype=object)
    worst = group_last[dropped_hop[group_last] > tol * scale]
    bottlenecks[hop_flow[worst]] = names[hop_link[worst]]
    departing = np.bincount(hop_link, weights=x_out, minlength=n_links)
    links = pd.DataFrame(
        {
            "capacity_bps": caps,
            "arriving_bps": load,
            "departing_bps": departing,
            "dropped_bps": load - departing,
            "accepted": accepted,
        },
        index=pd.Index(network.link_names, name="link"),
    )
    hops = pd.DataFrame(
        {
            "flow": [network.flow_names[i] for i in hop_flow],
            "link": [network.link_names[k] for k in hop_link],
            "arriving_bps": x_in,
            "departing_bps": x_out,
        }
    )
    return FifoResult(
        offered=pd.Series(x0, index=flows, name="offered_bps"),
        rates=pd.Series(delivered, index=flows, name="rate_bps"),
        goodputs=pd.Series(delivered * network.efficiencies, index=flows, name="goodput_bps"),
        loss=pd.Series(loss, index=flows, name="loss"),
        bottlenecks=pd.Series(bottlenecks, index=flows, name="bottleneck"),
        links=links,
        hops=hops,
        iterations=iteration,
    )
