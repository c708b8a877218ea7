"""Fairness explorers: RTT bias of Reno and CUBIC (05), the parking lot (06).

:func:`rtt_fairness_explorer` shows the share a longer RTT leaves a flow under Reno's
1/RTT and CUBIC's RTT^(-1/4) models; :func:`parking_lot_explorer` the max-min,
proportional and alpha-fair rates of the two-bottleneck network, the proportional one
re-solved from a cvxpy problem built once
(:class:`labcalc.fairness.ProportionalFairProblem`).

Examples
--------
>>> v = parking_lot_values(5, 5, 1.0)
>>> round(v["rates_bps"]["proportional"]["1to3"] / 1e6, 4)
1.6667
"""

from __future__ import annotations

import functools

import numpy as np

from labcalc.fairness import ProportionalFairProblem
from labcalc.viz._base import Explorer, choice, readout_lines, slider
from labcalc.viz.charts import curves, grouped_bars

__all__ = [
    "rtt_fairness_values", "rtt_fairness_readout", "rtt_fairness_explorer",
    "parking_lot_values", "parking_lot_readout", "parking_lot_explorer",
]


# --------------------------------------------------------------------------------------
# 05: RTT fairness, Reno and CUBIC models
# --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _share_curves(base_rtt_ms, capacity_bps, segment_bytes):
    from labcalc import tcp

    ys = np.arange(0.0, 1501.0, 75.0)
    reno, cubic = [], []
    for y in ys:
        rtts = [(base_rtt_ms + y) / 1e3, base_rtt_ms / 1e3]
        reno.append(tcp.response_shares(capacity_bps, rtts, "reno", segment_bytes)[0][0])
        cubic.append(tcp.response_shares(capacity_bps, rtts, "cubic", segment_bytes)[0][0])
    return ys, np.array(reno), np.array(cubic)


def rtt_fairness_values(y_ms=500.0, base_rtt_ms=300.0, bottleneck_mbps=5.0, accounting="wire",
                        segment_bytes=1448):
    """Goodputs of h1 (RTT R + Y) and h2 (RTT R) on one bottleneck, Reno and CUBIC models.

    Parameters
    ----------
    y_ms : float
        Extra delay Y on h1's path [ms].
    base_rtt_ms : float
        R, the RTT of h2 [ms] (300 in the handout).
    bottleneck_mbps : float
    accounting : {"wire", "tc"}
        Sets the goodput capacity (bottleneck x TCP efficiency).
    segment_bytes : int
        Segment size of the response functions [byte] (sets CUBIC's regime).

    Returns
    -------
    dict
        ``capacity_bps`` (goodput), ``reno_bps`` and ``cubic_bps`` (dicts h1, h2),
        ``reno_loss`` and ``cubic_loss`` (common loss rates), ``reno_share`` and
        ``cubic_share`` (h1's share), and the curves ``curve_y_ms``,
        ``curve_reno_h1_bps``, ``curve_cubic_h1_bps``.

    Examples
    --------
    >>> v = rtt_fairness_values(500)
    >>> round(v["reno_bps"]["h1"] / 1e3), round(v["cubic_bps"]["h1"] / 1e3)
    (1323, 2129)
    """
    from labcalc import tcp
    from labcalc.labs import lab5

    p = lab5.Params()
    capacity = float(bottleneck_mbps) * 1e6 * p.tcp_efficiency(accounting)
    rtts = [(float(base_rtt_ms) + float(y_ms)) / 1e3, float(base_rtt_ms) / 1e3]
    reno, reno_p = tcp.response_shares(capacity, rtts, "reno", segment_bytes)
    cubic, cubic_p = tcp.response_shares(capacity, rtts, "cubic", segment_bytes)
    ys, curve_reno, curve_cubic = _share_curves(float(base_rtt_ms), capacity, int(segment_bytes))
    return {
        "y_s": float(y_ms) / 1e3,
        "base_rtt_s": float(base_rtt_ms) / 1e3,
        "capacity_bps": capacity,
        "reno_bps": {"h1": float(reno[0]), "h2": float(reno[1])},
        "cubic_bps": {"h1": float(cubic[0]), "h2": float(cubic[1])},
        "reno_loss": reno_p,
        "cubic_loss": cubic_p,
        "reno_share": float(reno[0] / capacity),
        "cubic_share": float(cubic[0] / capacity),
        "curve_y_ms": ys,
        "curve_reno_h1_bps": curve_reno,
        "curve_cubic_h1_bps": curve_cubic,
    }


def rtt_fairness_readout(values) -> str:
    """The RTT-fairness explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`rtt_fairness_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity, rates in [kbit/s].

    Examples
    --------
    >>> print(rtt_fairness_readout(rtt_fairness_values(1000)))  # doctest: +NORMALIZE_WHITESPACE
    RTTs h1, h2         1300 ms, 300 ms
    goodput capacity    4849.3 kbit/s
    Reno model h1, h2   909.2 kbit/s, 3940.1 kbit/s (h1 18.75 %)
    CUBIC model h1, h2  1985.1 kbit/s, 2864.2 kbit/s (h1 40.94 %)
    common loss rate    Reno 0.0144 %, CUBIC 0.1032 %
    """
    v = values
    r, c = v["reno_bps"], v["cubic_bps"]
    return readout_lines([
        ("RTTs h1, h2", f"{1e3 * (v['base_rtt_s'] + v['y_s']):.0f} ms, {1e3 * v['base_rtt_s']:.0f} ms"),
        ("goodput capacity", f"{v['capacity_bps'] / 1e3:.1f} kbit/s"),
        ("Reno model h1, h2", f"{r['h1'] / 1e3:.1f} kbit/s, {r['h2'] / 1e3:.1f} kbit/s (h1 {100 * v['reno_share']:.2f} %)"),
        ("CUBIC model h1, h2", f"{c['h1'] / 1e3:.1f} kbit/s, {c['h2'] / 1e3:.1f} kbit/s (h1 {100 * v['cubic_share']:.2f} %)"),
        ("common loss rate", f"Reno {100 * v['reno_loss']:.4f} %, CUBIC {100 * v['cubic_loss']:.4f} %"),
    ])


def _draw_rtt_fairness(ax, v, settings, measured=None):
    points = {label: (list(ys), [100 * s for s in shares]) for label, (ys, shares) in (measured or {}).items()}
    cap = v["capacity_bps"]
    curves(v["curve_y_ms"], {"Reno model (1/RTT)": 100 * v["curve_reno_h1_bps"] / cap,
                                   "CUBIC model (RFC 9438)": 100 * v["curve_cubic_h1_bps"] / cap},
                 points=points, xlabel="extra delay Y on h1 [ms]", ylabel="h1's share of the goodput [%]",
                 ax=ax, marker=(1e3 * v["y_s"], 100 * v["reno_share"], f"{100 * v['reno_share']:.0f} %"),
                 hlines=[(50, "equal shares")], legend_loc="lower left")
    ax.scatter([1e3 * v["y_s"]], [100 * v["cubic_share"]], color="black", s=30, zorder=5)
    ax.set_ylim(0, 60)


def rtt_fairness_explorer(measured=None, y_ms=500.0) -> Explorer:
    """Extra delay Y -> h1's predicted share under the Reno and CUBIC models.

    Parameters
    ----------
    measured : dict label -> (list of Y [ms], list of h1 shares [0..1]), optional
        Measured shares drawn as points (e.g. CUBIC and Reno at D2 and D3); NaN values
        (missing measurements) are not drawn.
    y_ms : float, default 500.0
        Initial extra delay Y on h1's path [ms].

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`rtt_fairness_values` for the current settings.

    Examples
    --------
    >>> ex = rtt_fairness_explorer()
    >>> ex.set(y_ms=1000.0)
    >>> round(ex.values["reno_bps"]["h1"] / 1e3)
    909
    """
    controls = {
        "y_ms": slider("float", y_ms, 0.0, 1500.0, 10.0, "extra delay Y [ms]", ".0f"),
        "base_rtt_ms": slider("float", 300.0, 20.0, 600.0, 10.0, "RTT of h2, R [ms]", ".0f"),
        "accounting": choice([("wire (handout)", "wire"), ("tc (Linux shaper)", "tc")], "wire", "accounting"),
    }
    draw = functools.partial(_draw_rtt_fairness, measured=measured)
    return Explorer(controls, rtt_fairness_values, rtt_fairness_readout, draw,
                    title="RTT bias: Reno's 1/RTT against CUBIC's RTT^(-1/4)")


@functools.lru_cache(maxsize=1)
def _parking_lot_cvx():
    return ProportionalFairProblem([[1, 1, 0], [1, 0, 1]])


_LOT_FLOWS = ("1to3", "1to2", "2to3")


def parking_lot_values(c1_mbps=5.0, c2_mbps=5.0, alpha=2.0, solver="newton"):
    """Max-min, proportional and alpha-fair rates on the Figure 3 network.

    Parameters
    ----------
    c1_mbps, c2_mbps : float
        Capacities of r1-eth1 and r2-eth2 [Mbit/s].
    alpha : float
        Fairness parameter of the alpha-fair allocation, > 0.
    solver : {"newton", "cvxpy"}
        How the proportional allocation is computed: :func:`labcalc.fairness.proportional`
        or the cvxpy problem built once with parameters (:class:`ProportionalFairProblem`).

    Returns
    -------
    dict
        ``rates_bps``: dict criterion -> dict flow -> rate [bit/s] for ``"max-min"``,
        ``"proportional"``, ``"alpha"``; ``totals_bps`` (sum per criterion); ``alpha``.

    Examples
    --------
    >>> v = parking_lot_values(5, 5, 1.0)
    >>> [round(v["rates_bps"]["proportional"][f] / 1e6, 4) for f in ("1to3", "1to2", "2to3")]
    [1.6667, 3.3333, 3.3333]
    >>> round(parking_lot_values(5, 5, 2.0, "cvxpy")["rates_bps"]["proportional"]["1to3"] / 1e6, 6)
    1.666667
    """
    from labcalc import fairness
    from labcalc.network import Network

    caps = [float(c1_mbps) * 1e6, float(c2_mbps) * 1e6]
    net = Network({"r1-eth1": caps[0], "r2-eth2": caps[1]},
                  {"1to3": ["r1-eth1", "r2-eth2"], "1to2": ["r1-eth1"], "2to3": ["r2-eth2"]})
    mm = fairness.max_min(net).rates
    if solver == "cvxpy":
        prop = dict(zip(_LOT_FLOWS, _parking_lot_cvx().solve(caps)))
    elif solver == "newton":
        prop = fairness.proportional(net).rates
    else:
        raise ValueError(f"solver must be 'newton' or 'cvxpy'; got {solver!r}")
    af = fairness.alpha_fair(net, float(alpha)).rates
    rates = {
        "max-min": {f: float(mm[f]) for f in _LOT_FLOWS},
        "proportional": {f: float(prop[f]) for f in _LOT_FLOWS},
        "alpha": {f: float(af[f]) for f in _LOT_FLOWS},
    }
    return {
        "capacities_bps": caps,
        "alpha": float(alpha),
        "solver": solver,
        "rates_bps": rates,
        "totals_bps": {k: sum(v.values()) for k, v in rates.items()},
    }


def parking_lot_readout(values) -> str:
    """The parking-lot explorer's text (Mbit/s, 4 decimals).

    Parameters
    ----------
    values : dict
        The result of :func:`parking_lot_values`.

    Returns
    -------
    str
        One ``label  value`` line per quantity: a table of rates in [Mbit/s].

    Examples
    --------
    >>> print(parking_lot_readout(parking_lot_values(5, 5, 2.0)))  # doctest: +NORMALIZE_WHITESPACE
    capacities r1-eth1, r2-eth2   5.00, 5.00 Mbit/s
    criterion          1to3    1to2    2to3   total
    max-min          2.5000  2.5000  2.5000  7.5000
    proportional     1.6667  3.3333  3.3333  8.3333
    alpha = 2.00     2.0711  2.9289  2.9289  7.9289
    """
    v = values
    head = f"{'criterion':<14}" + "".join(f"{f:>8}" for f in _LOT_FLOWS) + f"{'total':>8}"
    lines = [f"capacities r1-eth1, r2-eth2   {v['capacities_bps'][0] / 1e6:.2f}, "
             f"{v['capacities_bps'][1] / 1e6:.2f} Mbit/s", head]
    for key, name in (("max-min", "max-min"), ("proportional", "proportional"), ("alpha", f"alpha = {v['alpha']:.2f}")):
        r = v["rates_bps"][key]
        lines.append(f"{name:<14}" + "".join(f"{r[f] / 1e6:>8.4f}" for f in _LOT_FLOWS)
                     + f"{v['totals_bps'][key] / 1e6:>8.4f}")
    return "\n".join(lines)


def _draw_parking_lot(ax, v, settings):
    import pandas as pd

    table = pd.DataFrame({("alpha = %.2f" % v["alpha"] if k == "alpha" else k):
                          [r[f] / 1e6 for f in _LOT_FLOWS] for k, r in v["rates_bps"].items()},
                         index=list(_LOT_FLOWS))
    grouped_bars(table, "rate [Mbit/s]", ax=ax, value_format=None, legend_loc="upper left",
                       title=None)
    ax.set_ylim(0, 1.3 * float(table.to_numpy().max()))


def parking_lot_explorer(alpha=2.0) -> Explorer:
    """Capacities and alpha -> max-min, proportional and alpha-fair rates (grouped bars).

    Parameters
    ----------
    alpha : float, default 2.0
        Initial fairness parameter of the alpha-fair allocation [1], > 0.

    Returns
    -------
    Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`parking_lot_values` for the current settings.

    Examples
    --------
    >>> ex = parking_lot_explorer()
    >>> ex.set(solver="cvxpy", c2_mbps=2.0)
    >>> round(ex.values["rates_bps"]["proportional"]["1to3"] / 1e6, 4)
    0.8804
    """
    controls = {
        "c1_mbps": slider("float", 5.0, 0.5, 10.0, 0.5, "r1-eth1 [Mbit/s]", ".1f"),
        "c2_mbps": slider("float", 5.0, 0.5, 10.0, 0.5, "r2-eth2 [Mbit/s]", ".1f"),
        "alpha": slider("log", alpha, -1.0, 1.5, 0.05, "alpha", ".2f"),
        "solver": choice([("dual Newton (fairness)", "newton"), ("cvxpy, built once", "cvxpy")], "newton",
                          "proportional by"),
    }
    return Explorer(controls, parking_lot_values, parking_lot_readout, _draw_parking_lot,
                    title="Two bottlenecks: how fair is fair?")
