"""The cvxpy path: CLARABEL with checked tolerances, and a problem built once with Parameters.

Part of :mod:`labcalc.fairness`, which re-exports every public name.

Examples
--------
>>> prob = ProportionalFairProblem([[1, 1, 0], [1, 0, 1]])
>>> [round(float(x) / 1e6, 4) for x in prob.solve([5e6, 5e6])]
[1.6667, 3.3333, 3.3333]
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from labcalc.fairness._common import SolverError
from labcalc.fairness.newton import polish_from_prices

__all__ = [
    "ProportionalFairProblem",
]


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


def cvxpy_solve(R, c, d, w, alpha, max_iter, start):
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
