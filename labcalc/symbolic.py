"""Symbolic derivations the notebooks show (sympy).

Each function returns a small :class:`Derivation`: the sympy symbols, the equations or
objective, the solution as sympy expressions, and ``.steps`` (a list of
(text, expression) pairs) that a notebook can display one by one. Substituting numbers
gives the handout's answers, and the tests check the closed forms against the numerical
solvers of :mod:`labcalc.fairness` and :mod:`labcalc.tcp`.

Examples
--------
>>> d = proportional_parking_lot()
>>> d.solution
{x: c/3, y: 2*c/3, z: 2*c/3}
>>> d.evaluate(c=5)
{'x': 1.6666666666666667, 'y': 3.3333333333333335, 'z': 3.3333333333333335}
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

__all__ = [
    "Derivation",
    "proportional_parking_lot",
    "alpha_fair_parking_lot",
    "rtt_share_system",
    "udp_split_goodput",
    "cubic_k",
    "mathis_from_sawtooth",
    "collapse_total_goodput",
    "cubic_share_system",
]


@dataclass
class Derivation:
    """A derivation: named symbols, the steps, and the solution.

    Attributes
    ----------
    symbols : dict of str -> sympy.Symbol
    steps : list of (str, sympy expression)
        What a notebook prints, in order.
    solution : dict of sympy.Symbol -> sympy expression

    Examples
    --------
    >>> d = cubic_k()
    >>> sorted(d.symbols)
    ['C', 'K', 'W_max', 'beta', 't']
    >>> d.steps[-1][0]
    'K'
    """

    symbols: dict
    steps: list = field(default_factory=list)
    solution: dict = field(default_factory=dict)

    def evaluate(self, **values) -> dict:
        """Substitute numbers for parameters and return the solution as floats.

        Examples
        --------
        >>> rtt_share_system().evaluate(C=4.8493, R=300, Y=500)["g1"] > 1.3
        True
        """
        subs = {self.symbols[k]: v for k, v in values.items()}
        return {str(sym): float(expr.subs(subs)) for sym, expr in self.solution.items()}

    def latex(self) -> list[str]:
        """The steps as LaTeX strings (for ``IPython.display.Math``).

        Examples
        --------
        >>> cubic_k().latex()[0]
        'W = C \\\\left(- K + t\\\\right)^{3} + W_{max}'
        """
        return [text if expr is None else sp.latex(expr) for text, expr in self.steps]


def proportional_parking_lot(n_links: int = 2) -> Derivation:
    """Proportional fairness on a parking lot: one long flow and one short flow per link.

    Parameters
    ----------
    n_links : int, default 2
        Links of capacity ``c`` in series; the long flow ``x`` crosses all of them,
        short flow ``y`` (and ``z`` for the second link) one each. Only 2 is given letters
        as in the handout (x = 1to3, y = 1to2, z = 2to3); other values use ``y1..yK``.

    Returns
    -------
    Derivation
        Solution x = c / (K + 1), each short flow K c / (K + 1).

    Notes
    -----
    Every link is saturated at the optimum (otherwise a short flow could grow), so
    ``y_k = c - x`` and the problem becomes ``max log x + K log(c - x)``; setting the
    derivative ``1/x - K/(c - x)`` to zero gives the solution.

    References
    ----------
    F. Kelly, "Charging and rate control for elastic traffic", European Transactions on
    Telecommunications 8, 1997; lab handout Q40 (K = 2, c = 5 Mbit/s: 5/3 and 10/3).

    Examples
    --------
    >>> proportional_parking_lot(3).evaluate(c=4)["x"]
    1.0
    """
    if not isinstance(n_links, int) or n_links < 1:
        raise ValueError(f"n_links must be a positive integer; got {n_links!r}")
    c = sp.Symbol("c", positive=True)
    x = sp.Symbol("x", positive=True)
    shorts = [sp.Symbol(n, positive=True) for n in (["y", "z"] if n_links == 2 else [f"y{k + 1}" for k in range(n_links)])]
    objective = sp.log(x) + sum(sp.log(s) for s in shorts)
    reduced = objective.subs({s: c - x for s in shorts})
    stationarity = sp.Eq(sp.diff(reduced, x), 0)
    x_star = sp.solve(stationarity, x)[0]
    solution = {x: sp.simplify(x_star), **{s: sp.simplify(c - x_star) for s in shorts}}
    symbols = {"c": c, "x": x, **{str(s): s for s in shorts}}
    steps = [
        ("maximise", objective),
        ("every link is saturated: short flows take c - x", reduced),
        ("stationarity", stationarity),
        ("long flow", sp.Eq(x, solution[x])),
        ("each short flow", sp.Eq(shorts[0], solution[shorts[0]])),
    ]
    return Derivation(symbols, steps, solution)


def alpha_fair_parking_lot(n_links: int = 2) -> Derivation:
    """Alpha-fairness on the parking lot: long flow x = c / (1 + K^(1/alpha)).

    Parameters
    ----------
    n_links : int, default 2
        Number K of links of capacity ``c`` in series. The long flow ``x`` crosses all
        of them; each link also carries one short flow.

    Returns
    -------
    Derivation
        Solution for the long flow ``x = c / (1 + K^(1/alpha))`` and for a short flow
        ``y = c - x``, in the symbols ``c`` (link capacity, any rate unit) and ``alpha``.

    Notes
    -----
    With all links saturated, stationarity of ``x^(1-a)/(1-a) + K (c-x)^(1-a)/(1-a)``
    gives ``x^-a = K (c - x)^-a``, hence ``(c - x)/x = K^(1/a)``. alpha = 1 gives
    proportional fairness (c / (K+1)); alpha -> infinity gives max-min (c / 2).

    References
    ----------
    J. Mo and J. Walrand, "Fair end-to-end window-based congestion control", IEEE/ACM
    Transactions on Networking 8(5), 2000.

    Examples
    --------
    >>> d = alpha_fair_parking_lot(2)
    >>> round(d.evaluate(c=5, alpha=1)["x"], 4), round(d.evaluate(c=5, alpha=100)["x"], 3)
    (1.6667, 2.491)
    """
    if not isinstance(n_links, int) or n_links < 1:
        raise ValueError(f"n_links must be a positive integer; got {n_links!r}")
    c, x, a = sp.symbols("c x alpha", positive=True)
    K = sp.Integer(n_links)
    stationarity = sp.Eq(x ** (-a), K * (c - x) ** (-a))
    x_star = c / (1 + K ** (1 / a))
    symbols = {"c": c, "x": x, "alpha": a}
    y = sp.Symbol("y", positive=True)
    steps = [
        ("stationarity with saturated links", stationarity),
        ("long flow", sp.Eq(x, x_star)),
        ("alpha = 1 (proportional)", sp.Eq(x, sp.simplify(x_star.subs(a, 1)))),
        ("alpha -> oo (max-min)", sp.Eq(x, sp.limit(x_star, a, sp.oo))),
    ]
    return Derivation(symbols | {"y": y}, steps, {x: x_star, y: c - x_star})


def rtt_share_system() -> Derivation:
    """The two equations of handout Q34 and their solution (Q35).

    Two TCP connections share one bottleneck with the same loss rate; by the
    loss-throughput formula their goodputs are inversely proportional to their RTTs:
    ``g1 = R / (R + Y) g2`` (h1's RTT is R + Y, h2's is R), and together they fill the
    bottleneck: ``g1 + g2 = C`` (C = maximum goodput).

    Returns
    -------
    Derivation
        ``g1 = C R / (2 R + Y)`` and ``g2 = C (R + Y) / (2 R + Y)``.

    References
    ----------
    Lab handout Q34-Q35; M. Mathis et al., CCR 27(3), 1997 (rate proportional to 1/RTT).

    Examples
    --------
    >>> sol = rtt_share_system().evaluate(C=5 * 2896 / 2986, R=0.3, Y=0.5)
    >>> round(sol["g1"] * 1000), round(sol["g2"] * 1000)
    (1323, 3527)
    """
    g1, g2, C, R, Y = sp.symbols("g1 g2 C R Y", positive=True)
    eqs = [sp.Eq(g1, R / (R + Y) * g2), sp.Eq(g1 + g2, C)]
    solved = sp.solve(eqs, [g1, g2], dict=True)[0]
    solution = {g1: sp.factor(solved[g1]), g2: sp.factor(solved[g2])}
    steps = [
        ("same loss, rate ~ 1/RTT", eqs[0]),
        ("the bottleneck is full", eqs[1]),
        ("h1", sp.Eq(g1, solution[g1])),
        ("h2", sp.Eq(g2, solution[g2])),
    ]
    return Derivation({"g1": g1, "g2": g2, "C": C, "R": R, "Y": Y}, steps, solution)


def udp_split_goodput() -> Derivation:
    """Handout Q12: goodput of UDP flow 1 through a drop-tail bottleneck shared with flow 2.

    ``goodput1 = min(C r1 / (r1 + r2) e, r1)`` where r1, r2 are application rates, C the
    link capacity and e = payload / frame the efficiency: the link serves the two flows
    in proportion to what they send, unless everything fits.

    Returns
    -------
    Derivation
        Solution ``g1`` in the symbols ``C``, ``r1``, ``r2`` (rates, all in the same
        unit) and ``e`` (efficiency [1]).

    Examples
    --------
    >>> d = udp_split_goodput()
    >>> round(d.evaluate(C=5, r1=1, r2=4, e=1000/1066)["g1"], 3)
    0.938
    """
    C, r1, r2, e = sp.symbols("C r1 r2 e", positive=True)
    g1 = sp.Symbol("g1", positive=True)
    expr = sp.Min(C * r1 / (r1 + r2) * e, r1)
    return Derivation(
        {"C": C, "r1": r1, "r2": r2, "e": e, "g1": g1},
        [("goodput of flow 1", sp.Eq(g1, expr))],
        {g1: expr},
    )


def cubic_k() -> Derivation:
    """CUBIC's K: the time the window takes to climb back to W_max (RFC 9438 eq. 2).

    The window after a loss follows ``W(t) = C (t - K)^3 + W_max`` and starts from
    ``W(0) = beta W_max``; solving for K gives ``K = cbrt(W_max (1 - beta) / C)``.

    Returns
    -------
    Derivation
        Solution ``K`` [s] in the symbols ``W_max`` [segment], ``beta`` [1] and ``C``
        [segment/s^3].

    References
    ----------
    RFC 9438, "CUBIC for Fast and Long-Distance Networks", section 4.2.

    Examples
    --------
    >>> round(cubic_k().evaluate(W_max=100, beta=0.7, C=0.4)["K"], 4)
    4.2172
    """
    t, K, C, W_max, beta = sp.symbols("t K C W_max beta", positive=True)
    W = C * (t - K) ** 3 + W_max
    start = sp.Eq(W.subs(t, 0), beta * W_max)
    k_sol = [s for s in sp.solve(start, K) if s.is_real is not False]
    k_expr = sp.cbrt(W_max * (1 - beta) / C)
    assert any(sp.simplify(s - k_expr) == 0 for s in k_sol) or k_sol == []
    return Derivation(
        {"t": t, "K": K, "C": C, "W_max": W_max, "beta": beta},
        [("window curve", sp.Eq(sp.Symbol("W"), W)), ("starts at beta W_max", start), ("K", sp.Eq(K, k_expr))],
        {K: k_expr},
    )


def mathis_from_sawtooth() -> Derivation:
    """The Reno loss-throughput formula from the periodic sawtooth (Mathis et al. 1997).

    The window grows by one segment per RTT from W/2 to W, then halves. One cycle lasts
    W/2 RTTs and carries (3/8) W^2 segments, one of them lost: p = 8 / (3 W^2). The
    average rate (3/4) W L / RTT becomes ``L / RTT * sqrt(3 / (2 p))``.

    Returns
    -------
    Derivation
        Solution ``rate`` in the symbols ``L`` (segment size), ``RTT`` and ``p`` (loss
        probability [1]); with L in [bit] and RTT in [s] the rate is in [bit/s].

    References
    ----------
    M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the TCP
    congestion avoidance algorithm", ACM CCR 27(3), 1997.

    Examples
    --------
    >>> d = mathis_from_sawtooth()
    >>> round(d.evaluate(L=1, RTT=1, p=0.01)["rate"], 4)
    12.2474
    """
    W, p, L, RTT = sp.symbols("W p L RTT", positive=True)
    rate = sp.Symbol("rate", positive=True)
    loss = sp.Eq(p, 1 / (sp.Rational(3, 8) * W**2))
    w_of_p = [s for s in sp.solve(loss, W) if s.is_positive is not False][0]
    avg = sp.Rational(3, 4) * W * L / RTT
    formula = sp.simplify(avg.subs(W, w_of_p))
    return Derivation(
        {"W": W, "p": p, "L": L, "RTT": RTT, "rate": rate},
        [
            ("one loss per cycle of (3/8) W^2 segments", loss),
            ("window at the loss", sp.Eq(W, w_of_p)),
            ("average rate", sp.Eq(rate, avg)),
            ("loss-throughput formula", sp.Eq(rate, formula)),
        ],
        {rate: formula},
    )


def collapse_total_goodput() -> Derivation:
    """Congestion collapse (handout section 2): total rate delivered vs C's sending rate.

    Flow AB sends ``a`` and flow CD sends ``c`` (link rates) into the shared link of
    capacity ``Cs``; CD then leaves on a link of capacity ``Cd``. A drop-tail FIFO keeps
    the same share of each flow: ``Cs / (a + c)`` when overloaded.

    Returns
    -------
    Derivation
        Solution ``T`` (total delivered rate) as a sympy Piecewise in ``a, c, Cs, Cd``,
        and ``T_inf``, its limit when C sends without bound (= Cd).

    Notes
    -----
    With :math:`a + c > C_s`: AB delivers :math:`a C_s / (a + c)`, CD
    :math:`\\min(c C_s / (a + c), C_d)`. Once CD is capped by its exit link, every
    extra bit C sends only pushes AB's packets out of the shared link, so the total
    falls from :math:`a + C_d` towards :math:`C_d`: the more aggressive C is, the less
    the network delivers. Multiply by the payload efficiency to get goodputs.

    References
    ----------
    Lab handout Q21-Q22; J.-Y. Le Boudec, *Rate adaptation, congestion control and
    fairness: a tutorial*, EPFL, section 1.1.

    Examples
    --------
    Handout Q21 (a = 1, c = 10, Cs = 1.5, Cd = 0.5 Mbit/s): 0.136 + 0.5 delivered.

    >>> d = collapse_total_goodput()
    >>> round(d.evaluate(a=1, c=10, Cs=1.5, Cd=0.5)["T"], 4)
    0.6364
    >>> d.evaluate(a=1, c=0.5, Cs=1.5, Cd=0.5)["T"]
    1.5
    >>> d.solution[d.symbols["T_inf"]]
    C_d
    """
    a, c, Cs, Cd = sp.symbols("a c C_s C_d", positive=True)
    T, T_inf, ab, cd = sp.symbols("T T_inf x_AB x_CD", positive=True)
    accepted = Cs / (a + c)
    ab_over = a * accepted
    cd_over = sp.Min(c * accepted, Cd)
    total = sp.Piecewise((a + sp.Min(c, Cd), a + c <= Cs), (ab_over + cd_over, True))
    limit = sp.limit(ab_over + Cd, c, sp.oo)
    steps = [
        ("share of the traffic the shared link accepts when a + c > Cs", sp.Eq(sp.Symbol("r"), accepted)),
        ("flow AB delivers", sp.Eq(ab, ab_over)),
        ("flow CD delivers (its exit link caps it)", sp.Eq(cd, cd_over)),
        ("total delivered", sp.Eq(T, total)),
        ("when C sends without bound", sp.Eq(T_inf, limit)),
    ]
    return Derivation({"a": a, "c": c, "Cs": Cs, "Cd": Cd, "T": T, "T_inf": T_inf},
                      steps, {T: total, T_inf: limit})


def cubic_share_system() -> Derivation:
    """Two CUBIC connections with RTTs R + Y and R at the same loss rate (cf. handout Q34).

    Returns
    -------
    Derivation
        ``g1 = C / (1 + ((R + Y) / R)^(1/4))`` and ``g2 = C - g1``.

    Notes
    -----
    In CUBIC's own region the average window is
    :math:`W = k\\,(RTT / p)^{3/4}` (RFC 9438 Section 5), so the rate
    :math:`W L / RTT` goes as :math:`RTT^{-1/4} p^{-3/4}`. Two connections that see
    the same p share in the ratio :math:`(R / (R + Y))^{1/4}` instead of Reno's
    :math:`R / (R + Y)`.

    References
    ----------
    RFC 9438, "CUBIC for Fast and Long-Distance Networks", Section 5; lab handout
    Q36-Q38 (CUBIC less sensitive to the RTT than Reno).

    Examples
    --------
    >>> sol = cubic_share_system().evaluate(C=5 * 2896 / 2986, R=0.3, Y=0.5)
    >>> round(sol["g1"] * 1000), round(sol["g2"] * 1000)
    (2129, 2720)
    """
    g1, g2, C, R, Y, p, k, L, rtt = sp.symbols("g1 g2 C R Y p k L RTT", positive=True)
    window = k * (rtt / p) ** sp.Rational(3, 4)
    rate = sp.simplify(window * L / rtt)
    ratio = sp.simplify(rate.subs(rtt, R + Y) / rate.subs(rtt, R))
    eqs = [sp.Eq(g1, ratio * g2), sp.Eq(g1 + g2, C)]
    solved = sp.solve(eqs, [g1, g2], dict=True)[0]
    solution = {g1: sp.simplify(solved[g1]), g2: sp.simplify(solved[g2])}
    steps = [
        ("CUBIC's average window (RFC 9438)", sp.Eq(sp.Symbol("W"), window)),
        ("rate = W L / RTT", sp.Eq(sp.Symbol("x"), rate)),
        ("same p: h1 / h2", sp.Eq(g1 / g2, ratio)),
        ("the bottleneck is full", eqs[1]),
        ("h1", sp.Eq(g1, solution[g1])),
        ("h2", sp.Eq(g2, solution[g2])),
    ]
    return Derivation({"g1": g1, "g2": g2, "C": C, "R": R, "Y": Y}, steps, solution)
