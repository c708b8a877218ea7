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

The package holds one module per job, and every public name is importable from
:mod:`labcalc.fairness` itself: :mod:`~labcalc.fairness.maxmin` (water-filling),
:mod:`~labcalc.fairness.utility` (proportional, alpha-fair, Reno),
:mod:`~labcalc.fairness.newton` (the dual Newton solver),
:mod:`~labcalc.fairness.problem` (the cvxpy path and :class:`ProportionalFairProblem`, a
problem built once with cvxpy Parameters and re-solved when a slider moves) and
:mod:`~labcalc.fairness.checks` (feasibility, Pareto efficiency, max-min fairness, Jain).

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

from labcalc.fairness._common import SolverError, Allocation, ALPHA_MIN  # noqa: F401
from labcalc.fairness.maxmin import max_min, waterfilling_steps  # noqa: F401
from labcalc.fairness.utility import proportional, alpha_fair, reno  # noqa: F401
from labcalc.fairness.newton import polish_from_prices  # noqa: F401
from labcalc.fairness.problem import ProportionalFairProblem  # noqa: F401
from labcalc.fairness.checks import is_feasible, is_pareto_efficient, is_max_min_fair, jain_index  # noqa: F401

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
