"""The dual Newton solver of the utility problems, on the scaled problem (rates and weights about 1).

Part of :mod:`labcalc.fairness`, which re-exports every public name.

Examples
--------
>>> [round(float(x), 4) for x in polish_from_prices([[1, 1, 0], [1, 0, 1]], [1.0, 1.0], [1.5, 1.5])]
[0.3333, 0.6667, 0.6667]
"""

from __future__ import annotations

import math

import numpy as np

from labcalc.fairness._common import SolverError

__all__ = [
    "polish_from_prices",
]


#: Largest dense L x L system the dual Newton method factorises; above it, sparse LU.
_DENSE_MAX_LINKS = 3000


#: Largest number of (link, link) pairs assembled with bincount; above it, sparse products.
_MAX_PAIRS = 20_000_000


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


def dual_newton(R, c, d, w, alpha, max_iter, start, tol=1e-10):
    """Maximise sum w U_alpha(x) s.t. Rx <= c, 0 <= x <= d (scaled problem).

    The dual Newton method of the module docstring. ``start`` is ``(x_maxmin, bottleneck
    link index or -1)`` of a max-min allocation with weights ``w**(1/alpha)``.
    Returns rates x (N,), link prices p (L,), the iteration count and a note ("").
    """
    # Long because it is one Newton iteration (gradient, Hessian, damped step, line
    # search, stopping tests) whose state is shared by every step; split up, the state
    # would be passed around in a dozen arguments.
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
    polished = polish_prices(R, c, np.full(N, np.inf), w, float(alpha), p)
    return None if polished is None else polished[0]


def polish_prices(R, c, d, w, alpha, prices):
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
