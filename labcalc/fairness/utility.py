"""Utility-based allocations: proportional, alpha-fair and TCP-Reno fairness.

Part of :mod:`labcalc.fairness`, which re-exports every public name.

Examples
--------
>>> from labcalc.network import Network
>>> net = Network({"r1": 5e6, "r2": 5e6}, {"1to3": ["r1", "r2"], "1to2": ["r1"], "2to3": ["r2"]})
>>> [round(r / 1e6, 4) for r in proportional(net).rates]
[1.6667, 3.3333, 3.3333]
"""

from __future__ import annotations

import math

import numpy as np

from labcalc.fairness._common import Allocation, SolverError, make_allocation, check_values, check_alpha, check_method, inputs, segment_argmax
from labcalc.fairness.maxmin import water_fill
from labcalc.fairness.newton import dual_newton, polish_prices
from labcalc.fairness.problem import cvxpy_solve

__all__ = [
    "proportional",
    "alpha_fair",
    "reno",
]


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
    check_method(method)
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
    check_method(method)
    alpha = check_alpha(alpha)
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
    check_method(method)
    rtt = np.asarray(network.rtts_s, dtype=float)
    missing = np.flatnonzero(np.isnan(rtt))
    if missing.size:
        name = network.flow_names[int(missing[0])]
        raise ValueError(f"rtt_s of flow {name!r} is needed by reno() but missing; got nan")
    check_values(rtt, (rtt > 0) & np.isfinite(rtt), "rtt_s", "flow", network.flow_names, "positive and finite")
    return _utility(network, 2.0, 1.0 / rtt**2, method, max_iter, "TCP Reno (alpha=2, w=1/rtt^2)")


def _utility(network, alpha, weights, method, max_iter, label) -> Allocation:
    R, c, d, w, e = inputs(network)
    if weights is not None:
        w = weights
    L, N = R.shape
    solver = "dual Newton" if method == "newton" else "cvxpy/CLARABEL"
    if N == 0:
        return make_allocation(network, np.zeros(0), e, np.zeros(0, int), np.zeros(L), label, solver, 0)
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
        x_mm, bott_mm, _ = water_fill(Rs, c[used], d_live, w[live] ** (1 / alpha))
        kappa = float(np.exp(np.mean(np.log(x_mm))))
        wscale = float(np.exp(np.mean(np.log(w[live]))))
        cs, ds, ws = c[used] / kappa, d_live / kappa, w[live] / wscale
        solve = dual_newton if method == "newton" else cvxpy_solve
        xs, ps, iters, note = solve(Rs, cs, ds, ws, alpha, max_iter, (x_mm / kappa, bott_mm))
        if method == "cvxpy":
            # CLARABEL stops at about 1e-7 on the rates: its prices name the saturated
            # links, Newton's method on them reaches rounding level, and the KKT
            # conditions of the whole problem are verified (else CLARABEL's rates stay)
            polished = polish_prices(Rs, cs, ds, ws, alpha, ps)
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
        link_max, _ = segment_argmax(prices_scaled, C.indptr, C.indices)
    else:
        link_max = np.zeros(N, dtype=int)
    at_demand = rates >= d * (1 - 1e-9)
    bott = np.where(at_demand, -1, link_max)
    return make_allocation(network, rates, e, bott, prices, label, solver, iters)
