"""Loss-throughput models against measured rates (10), competing AIMD flows (11).

:func:`response_explorer` draws Reno (Mathis), CUBIC (RFC 9438) and PFTK against the
loss rate, capped by the link, with a test of finite length computed round by round
(:func:`labcalc.tcp.round_model_rate`); :func:`chiu_jain_explorer` the trajectory of two
flows with binary feedback (:func:`labcalc.dynamics.chiu_jain`). The figures
:func:`response_curves` and :func:`phase_plane` are drawn by the explorers and by the
notebooks.

Examples
--------
>>> v = response_values(420, 0.1, 100)
>>> round(v["mathis_bps"] / 1e6, 3)
1.068
"""

from __future__ import annotations

import functools
import math

import numpy as np

from labcalc import dynamics
from labcalc.tcp import link_packet_bytes, round_model_rate
from labcalc.viz._base import PALETTE, Explorer, choice, new_axes, slider

__all__ = [
    "response_values", "response_readout", "response_explorer",
    "chiu_jain_values", "chiu_jain_readout", "chiu_jain_explorer",
    "response_curves", "phase_plane",
]


def _check(name, value, low=0.0, strict=True):
    value = float(value)
    if not math.isfinite(value) or (value <= low if strict else value < low):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low:g}; got {value!r}")
    return value


def response_values(rtt_ms=420.0, loss_pct=0.1, link_mbps=100.0, mss_bytes=1448, duration_s=60.0,
                    rto_s=1.0):
    """What the loss-throughput models predict for one RTT and loss rate, capped by the link.

    Parameters
    ----------
    rtt_ms : float, default 420.0
        Round-trip time [ms], > 0.
    loss_pct : float, default 0.1
        Loss rate [%], in (0, 100].
    link_mbps : float, default 100.0
        Link rate [Mbit/s], > 0.
    mss_bytes : float, default 1448
        Segment size [byte], > 0.
    duration_s : float, default 60.0
        Length of the test for the round-by-round models [s].
    rto_s : float, default 1.0
        Retransmission timeout T0 of the PFTK model [s].

    Returns
    -------
    dict
        ``mathis_bps`` (c = sqrt(3/2)), ``cubic_bps`` (RFC 9438 with the Reno-friendly
        floor), ``pftk_bps`` (full PFTK, delayed ACKs, T0 = ``rto_s``), ``link_bps`` (the
        goodput capacity: rate x MSS / (MSS + 66)), the same capped by the link
        (``*_capped_bps``), ``short_reno_bps`` and ``short_cubic_bps``
        (:func:`round_model_rate` over ``duration_s``), and the curves ``curve_loss``,
        ``curve_reno``, ``curve_cubic``, ``curve_pftk`` for a plot.

    Examples
    --------
    >>> v = response_values(420, 0.1, 100)
    >>> round(v["mathis_bps"] / 1e6, 3), round(v["cubic_bps"] / 1e6, 3), round(v["link_bps"] / 1e6, 2)
    (1.068, 2.697, 95.64)
    """
    from labcalc import tcp

    rtt = _check("rtt_ms", rtt_ms) / 1e3
    p = _check("loss_pct", loss_pct) / 100.0
    if p > 1:
        raise ValueError(f"loss_pct must be <= 100; got {loss_pct!r}")
    link = _check("link_mbps", link_mbps) * 1e6
    mss = _check("mss_bytes", mss_bytes)
    cap = link * mss / link_packet_bytes(mss)
    mathis = tcp.mathis_rate_bps(mss, rtt, p, c=tcp.RENO_CONSTANT)
    cubic = tcp.cubic_rate_bps(mss, rtt, p)
    pftk = tcp.pftk_rate_pps(rtt, p, rto_s) * 8.0 * mss
    grid = np.logspace(-6, -0.5, 80)
    return {
        "rtt_s": rtt, "loss": p, "link_rate_bps": link, "mss_bytes": mss, "duration_s": float(duration_s),
        "mathis_bps": mathis, "cubic_bps": cubic, "pftk_bps": pftk, "link_bps": cap,
        "mathis_capped_bps": min(mathis, cap), "cubic_capped_bps": min(cubic, cap), "pftk_capped_bps": min(pftk, cap),
        "short_reno_bps": min(round_model_rate(duration_s, link, rtt, p, mss, "reno"), cap),
        "short_cubic_bps": min(round_model_rate(duration_s, link, rtt, p, mss, "cubic"), cap),
        "curve_loss": grid,
        "curve_reno": np.minimum(tcp.mathis_rate_bps(mss, rtt, grid, c=tcp.RENO_CONSTANT), cap),
        "curve_cubic": np.minimum(tcp.cubic_rate_bps(mss, rtt, grid), cap),
        "curve_pftk": np.minimum(tcp.pftk_rate_pps(rtt, grid, rto_s) * 8.0 * mss, cap),
    }


def response_readout(values) -> str:
    """The response explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`response_values`.

    Returns
    -------
    str
        The text shown under the controls, rates in [Mbit/s].

    Examples
    --------
    >>> print(response_readout(response_values(420, 0.1, 100)))  # doctest: +NORMALIZE_WHITESPACE
    RTT, loss, link            420 ms, 0.1000 %, 100.0 Mbit/s (goodput cap 95.64 Mbit/s)
    Reno (Mathis)              1.068 Mbit/s
    CUBIC (RFC 9438)           2.697 Mbit/s
    Reno with timeouts (PFTK)  0.745 Mbit/s
    60 s test, Reno / CUBIC    1.717 / 4.698 Mbit/s
    """
    v = values
    rows = [
        ("RTT, loss, link", f"{1e3 * v['rtt_s']:.0f} ms, {100 * v['loss']:.4f} %, {v['link_rate_bps'] / 1e6:.1f} Mbit/s "
                            f"(goodput cap {v['link_bps'] / 1e6:.2f} Mbit/s)"),
        ("Reno (Mathis)", f"{v['mathis_capped_bps'] / 1e6:.3f} Mbit/s"),
        ("CUBIC (RFC 9438)", f"{v['cubic_capped_bps'] / 1e6:.3f} Mbit/s"),
        ("Reno with timeouts (PFTK)", f"{v['pftk_capped_bps'] / 1e6:.3f} Mbit/s"),
        (f"{v['duration_s']:.0f} s test, Reno / CUBIC", f"{v['short_reno_bps'] / 1e6:.3f} / "
                                                       f"{v['short_cubic_bps'] / 1e6:.3f} Mbit/s"),
    ]
    width = max(len(a) for a, _ in rows)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in rows)


def _draw_response(ax, v, settings, measured=None):
    response_curves(v, ax=ax, measured=measured)


def response_explorer(measured=None, rtt_ms=420.0, loss_pct=0.1, link_mbps=100.0):
    """RTT, loss, link rate and test length -> Reno, CUBIC and PFTK rates.

    Parameters
    ----------
    measured : dict, optional
        ``label -> (loss_fraction, rate_bps)`` drawn as points.
    rtt_ms : float, default 420.0
        Initial round-trip time [ms].
    loss_pct : float, default 0.1
        Initial loss rate [%].
    link_mbps : float, default 100.0
        Initial link rate [Mbit/s].

    Returns
    -------
    labcalc.viz.Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`response_values` for the current settings.

    Examples
    --------
    >>> ex = response_explorer()
    >>> ex.set(loss_pct=0.01)
    >>> round(ex.values["mathis_bps"] / 1e6, 2)
    3.38
    """
    controls = {
        "rtt_ms": slider("float", rtt_ms, 1.0, 1000.0, 1.0, "RTT [ms]", ".0f"),
        "loss_pct": slider("log", loss_pct, -4, 1, 0.05, "loss [%]", ".4f"),
        "link_mbps": slider("float", link_mbps, 1.0, 1000.0, 1.0, "link [Mbit/s]", ".0f"),
        "duration_s": slider("float", 60.0, 1.0, 120.0, 1.0, "test length [s]", ".0f"),
    }
    draw = functools.partial(_draw_response, measured=measured)
    return Explorer(controls, response_values, response_readout, draw,
                            title="Loss-throughput models against measured rates")


# --------------------------------------------------------------------------------------
# competing AIMD flows
# --------------------------------------------------------------------------------------


chiu_jain_values = dynamics.chiu_jain


def chiu_jain_readout(values) -> str:
    """The Chiu-Jain explorer's text.

    Parameters
    ----------
    values : dict
        The result of :func:`chiu_jain_values`.

    Returns
    -------
    str
        The text shown under the controls, shares and utilisation in [%].

    Examples
    --------
    >>> print(chiu_jain_readout(chiu_jain_values("AIAD")))  # doctest: +NORMALIZE_WHITESPACE
    policy               AIAD
    shares x / y         85.0 % / 15.0 %
    Jain's index         0.6711
    average utilisation  100.0 %
    """
    v = values
    rows = [("policy", v["policy"]),
            ("shares x / y", f"{100 * v['share_x']:.1f} % / {100 * v['share_y']:.1f} %"),
            ("Jain's index", f"{v['jain']:.4f}"),
            ("average utilisation", f"{100 * v['utilisation']:.1f} %")]
    width = max(len(a) for a, _ in rows)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in rows)


def _draw_chiu_jain(ax, v, settings):
    phase_plane(v, ax=ax)


def chiu_jain_explorer(policy="AIMD"):
    """Policy, starting point and decrease factors -> the two-flow trajectory.

    Parameters
    ----------
    policy : {"AIMD", "AIAD", "MIMD", "MIAD"}, default "AIMD"
        Initial policy.

    Returns
    -------
    labcalc.viz.Explorer
        The widget: controls, readout and figure; its ``values`` hold the result of
        :func:`chiu_jain_values` for the current settings.

    Examples
    --------
    >>> ex = chiu_jain_explorer()
    >>> ex.set(decrease_to_2=5 / 6)
    >>> round(ex.values["share_y"], 2)
    0.79
    """
    controls = {
        "policy": choice(list(dynamics.CHIU_JAIN_POLICIES), policy, "policy"),
        "x0": slider("float", 0.8, 0.0, 1.0, 0.05, "start: flow x", ".2f"),
        "y0": slider("float", 0.1, 0.0, 1.0, 0.05, "start: flow y", ".2f"),
        "decrease_to": slider("float", 0.5, 0.1, 0.95, 0.05, "x: decrease to", ".2f"),
        "decrease_to_2": slider("float", 0.5, 0.1, 0.95, 0.05, "y: decrease to", ".2f"),
    }
    return Explorer(controls, chiu_jain_values, chiu_jain_readout, _draw_chiu_jain,
                            figsize=(5.2, 4.4), title="Two flows, one link: where do AIMD, AIAD, MIMD lead?")


def response_curves(values, ax=None, measured=None, title=None):
    """Rate against loss rate (log-log) for Reno, CUBIC and PFTK, capped by the link.

    Parameters
    ----------
    values : dict
        From :func:`labcalc.viz.response_values`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    measured : dict, optional
        ``label -> (loss_fraction, rate_bps)`` drawn as points.
    title : str, optional
        Title of the Axes; by default the RTT and the link rate.

    Returns
    -------
    matplotlib.figure.Figure
        Rate [Mbit/s] against loss rate [%]: three model curves and the link rate.

    Examples
    --------
    >>> from labcalc.viz.response import response_values
    >>> ax = response_curves(response_values(), measured={"seed 003": (0.001, 5.76e6)}).axes[0]
    >>> len(ax.lines), len(ax.collections)
    (4, 2)
    """
    fig, ax = new_axes(ax)
    v = values
    x = 100 * v["curve_loss"]
    ax.plot(x, v["curve_reno"] / 1e6, color=PALETTE[0], lw=1.5, label="Reno (Mathis)")
    ax.plot(x, v["curve_cubic"] / 1e6, color=PALETTE[1], lw=1.5, label="CUBIC (RFC 9438)")
    ax.plot(x, v["curve_pftk"] / 1e6, color=PALETTE[2], lw=1.2, linestyle="--", label="Reno with timeouts (PFTK)")
    ax.axhline(v["link_bps"] / 1e6, color="black", linestyle=":", lw=0.9)
    ax.scatter([100 * v["loss"]], [v["mathis_capped_bps"] / 1e6], color="black", s=18, zorder=5)
    symbols = ("o", "s", "^", "D", "v", "P")
    for k, (label, (p, r)) in enumerate((measured or {}).items()):
        ax.scatter([100 * p], [r / 1e6], marker=symbols[k % 6], s=40, color=PALETTE[(k + 3) % 10],
                   edgecolor="black", linewidth=0.5, label=label, zorder=6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.minorticks_off()
    ax.set_xlabel("loss rate [%]")
    ax.set_ylabel("rate [Mbit/s]")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title(title or f"RTT {1e3 * v['rtt_s']:.0f} ms, link {v['link_rate_bps'] / 1e6:.0f} Mbit/s", fontsize=10)
    return fig


def phase_plane(values, ax=None, title=None):
    """Two flows' rates in the (x, y) plane: efficiency line, fairness line, trajectory.

    Parameters
    ----------
    values : dict
        From :func:`labcalc.viz.chiu_jain_values`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    title : str, optional
        Title of the Axes.

    Returns
    -------
    matplotlib.figure.Figure
        The lines ``x + y = capacity`` and ``x = y`` and the trajectory of the rates.

    Examples
    --------
    >>> from labcalc.viz.response import chiu_jain_values
    >>> len(phase_plane(chiu_jain_values()).axes[0].lines)
    3
    """
    fig, ax = new_axes(ax, figsize=(5.2, 4.4))
    v = values
    cap = v["capacity"]
    ax.plot([0, cap], [cap, 0], color="black", lw=1.0, label="x + y = capacity")
    ax.plot([0, cap], [0, cap], color="black", lw=1.0, linestyle="--", label="x = y (fair)")
    ax.plot(v["x"], v["y"], color=PALETTE[0], lw=0.9, marker=".", ms=3, label=v["policy"])
    ax.scatter([v["x"][0]], [v["y"][0]], color=PALETTE[3], s=30, zorder=5, label="start")
    ax.set_xlim(0, 1.1 * cap)
    ax.set_ylim(0, 1.1 * cap)
    ax.set_aspect("equal")
    ax.set_xlabel("flow x")
    ax.set_ylabel("flow y")
    ax.legend(fontsize=8, loc="upper right")
    if title:
        ax.set_title(title)
    return fig
