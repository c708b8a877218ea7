"""One drawing of every lab network, from data: the handout's three and the seeds' four.

:data:`TOPOLOGIES` holds, for each network, the node positions, the links with their
labels, the flows with their paths and colours, and which nodes are routers (drawn as
squares; hosts are circles). :func:`topology` draws any of them the same way; the
pictures of the notebooks (``notebooks/img/*.svg``) are drawn by
``notebooks/img/make_topologies.py`` from it.

Examples
--------
>>> sorted(TOPOLOGIES)[:3], sorted(TOPOLOGIES)[-1]
(['lab51', 'lab52', 'lab53'], 'seed004')
"""

from __future__ import annotations

import math

from labcalc.viz._base import new_axes

__all__ = ["TOPOLOGIES", "topology"]

#: Per network: ``title``, ``nodes`` (name -> (x, y)), ``links`` (a, b, label), ``flows``
#: (name, [nodes], colour) and ``routers`` (names drawn as squares). lab51-lab53 are the
#: handout's Figures 1-3; seed001-seed004 the networks of the four seed reports.
TOPOLOGIES = {

    "lab51": {
        "title": "Figure 1 network: h1, h2 -> r1 -> h3",
        "nodes": {"h1": (0, 1), "h2": (0, -1), "r1": (2.2, 0), "h3": (4.6, 0)},
        "links": [("h1", "r1", "h1-eth0\n1 Gbit/s"), ("h2", "r1", "h2-eth0\n1 Gbit/s"),
                  ("r1", "h3", "r1-eth1: 5 Mbit/s\n(shaped, the bottleneck)")],
        "flows": [("h1 -> h3", ["h1", "r1", "h3"], "#d62728"), ("h2 -> h3", ["h2", "r1", "h3"], "#1f77b4")],
        "routers": ("r1",),
    },
    "lab52": {
        "title": "Figure 2 network: congestion collapse",
        "nodes": {"A (h1)": (0, 1), "C (h2)": (0, -1), "N1 (r1)": (2.2, 0), "N2 (r2)": (4.4, 0),
                  "B (h4)": (6.6, 1), "D (h3)": (6.6, -1)},
        "links": [("A (h1)", "N1 (r1)", "1 Mbit/s"), ("C (h2)", "N1 (r1)", "10 Mbit/s"),
                  ("N1 (r1)", "N2 (r2)", "1.5 Mbit/s"), ("N2 (r2)", "B (h4)", ">= 1 Mbit/s"),
                  ("N2 (r2)", "D (h3)", "0.5 Mbit/s")],
        "flows": [("A -> B", ["A (h1)", "N1 (r1)", "N2 (r2)", "B (h4)"], "#d62728"),
                  ("C -> D", ["C (h2)", "N1 (r1)", "N2 (r2)", "D (h3)"], "#1f77b4")],
        "routers": ("N1 (r1)", "N2 (r2)"),
    },
    "lab53": {
        "title": "Figure 3 network: two bottlenecks in a row",
        "nodes": {"h1": (0, 0), "r1": (2.2, 0), "r2": (4.4, 0), "h3": (6.6, 0), "h2": (4.4, -1.6)},
        # one line per interface: the two bottlenecks, and netem's delay on every host
        "links": [("h1", "r1", "h1-eth0: +150 ms"), ("r1", "r2", "r1-eth1: 5 Mbit/s"),
                  ("r2", "h3", "r2-eth2: 5 Mbit/s\nh3-eth0: +150 ms"), ("h2", "r2", "h2-eth0: +150 ms")],
        "flows": [("1to3", ["h1", "r1", "r2", "h3"], "#d62728"), ("1to2", ["h1", "r1", "r2", "h2"], "#2ca02c"),
                  ("2to3", ["h2", "r2", "h3"], "#1f77b4")],
        "routers": ("r1", "r2"),
    },

    "seed001": {
        "title": "ns-3 tcp-variants-comparison (seed 001) and its Linux stand-in",
        "nodes": {"source": (0, 0.9), "gw": (2.6, 0.9), "sink": (5.2, 0.9),
                  "h1": (0, -0.9), "r": (2.6, -0.9), "h2": (5.2, -0.9)},
        "links": [("source", "gw", "10 Mbit/s, 45 ms"), ("gw", "sink", "2 Mbit/s, 0.01 ms\nqueue 56 + 100"),
                  ("h1", "r", "veth"), ("r", "h2", "1.5 Mbit/s (htb)\npfifo 100")],
        "flows": [("ns-3 BulkSend", ["source", "gw", "sink"], "#d62728"),
                  ("iperf3 (this machine)", ["h1", "r", "h2"], "#1f77b4")],
        "routers": ("gw", "r"),
    },
    "seed002": {
        "title": "Bufferbloat exercise (seed 002): one switch, a slow link to h2",
        "nodes": {"h1": (0, 0), "s0": (2.6, 0), "h2": (5.2, 0)},
        "links": [("h1", "s0", "fast"), ("s0", "h2", "1.5 Mbit/s\nqueue 100 or 20")],
        "flows": [("iperf (long flow)", ["h1", "s0", "h2"], "#d62728"),
                  ("web page, ping", ["h1", "s0", "h2"], "#1f77b4")],
        "routers": ("s0",),
    },
    "seed003": {
        "title": "Mininet h1 - s1 - s2 - h2 (seed 003), second pair h3 - h4",
        "nodes": {"h1": (0, 0.8), "h3": (0, -0.8), "s1": (2.2, 0), "s2": (4.6, 0), "h2": (6.8, 0.8), "h4": (6.8, -0.8)},
        "links": [("h1", "s1", "5 ms"), ("h3", "s1", ""), ("s1", "s2", "core: 100 Mbit/s,\n200 ms, 0.1 % loss"),
                  ("s2", "h2", "5 ms"), ("s2", "h4", "")],
        "flows": [("h1 -> h2", ["h1", "s1", "s2", "h2"], "#d62728"), ("h3 -> h4", ["h3", "s1", "s2", "h4"], "#1f77b4")],
        "routers": ("s1", "s2"),
    },
    "seed004": {
        "title": "Seed 004's simulator: one link, and the competing-RTT network",
        "nodes": {"n1": (0, 1.0), "n2": (2.6, 1.0), "a (n1)": (0, -0.4), "b (n2)": (0, -1.6), "n3": (2.6, -1.0),
                  "n4": (5.2, -1.0)},
        "links": [("n1", "n2", "10 Mbit/s, 10 ms\nqueue 40"), ("a (n1)", "n3", "100 ms"), ("b (n2)", "n3", "10 ms"),
                  ("n3", "n4", "10 Mbit/s, 10 ms\nqueue 100")],
        "flows": [("c1, c2 ...", ["n1", "n2"], "#2ca02c"), ("a: long RTT", ["a (n1)", "n3", "n4"], "#d62728"),
                  ("b: short RTT", ["b (n2)", "n3", "n4"], "#1f77b4")],
        "routers": ("n3",),
    },
}


def topology(name, ax=None, show_flows=True):
    """A drawing of one of the lab networks of :data:`TOPOLOGIES`.

    Parameters
    ----------
    name : str
        A key of :data:`TOPOLOGIES` (``"lab51"`` ... ``"lab53"``, ``"seed001"`` ... ``"seed004"``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure with one Axes.
    show_flows : bool, default True
        Draw each flow as a coloured dashed path beside the links, with an arrow at its end.

    Returns
    -------
    matplotlib.figure.Figure
        One line per link (+ one per hop of each flow), one marker per node, the link
        labels as text.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> fig = topology("lab53")
    >>> len(fig.axes[0].lines)  # 4 links + 3 flows of 3, 3 and 2 hops
    12
    """
    if name not in TOPOLOGIES:
        raise ValueError(f"topology must be one of {', '.join(TOPOLOGIES)}; got {name!r}")
    spec = TOPOLOGIES[name]
    nodes = spec["nodes"]
    xs = [p[0] for p in nodes.values()]
    ys = [p[1] for p in nodes.values()]
    width = max(xs) - min(xs) + 2.0
    height = max(ys) - min(ys) + 1.6
    fig, ax = new_axes(ax, figsize=(min(8.0, 1.0 * width + 0.6), 0.9 * height + 0.6))
    for a, b, label in spec["links"]:
        (x0, y0), (x1, y1) = nodes[a], nodes[b]
        ax.plot([x0, x1], [y0, y1], color="#444444", linewidth=2.2, zorder=1)
        if label:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.12, label, ha="center", va="bottom", fontsize=8,
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85),
                    zorder=3)
    if show_flows:
        for k, (flow, path, colour) in enumerate(spec["flows"]):
            d = 0.13 * (k + 1)
            pts = [nodes[p] for p in path]
            for j, ((x0, y0), (x1, y1)) in enumerate(zip(pts[:-1], pts[1:])):
                length = math.hypot(x1 - x0, y1 - y0)
                ux, uy = (x1 - x0) / length, (y1 - y0) / length
                nx, ny = uy, -ux  # right-hand side of the direction of travel
                start = 0.35 if j == 0 else 0.0
                stop = 0.45 if j == len(pts) - 2 else 0.0
                a = (x0 + ux * start + nx * d, y0 + uy * start + ny * d)
                b = (x1 - ux * stop + nx * d, y1 - uy * stop + ny * d)
                ax.plot([a[0], b[0]], [a[1], b[1]], color=colour, linewidth=1.4,
                        linestyle=(0, (4, 2)), zorder=2, label=flow if j == 0 else None)
                if j == len(pts) - 2:
                    ax.annotate("", xy=b, xytext=(b[0] - ux * 0.3, b[1] - uy * 0.3),
                                arrowprops=dict(arrowstyle="->", color=colour, lw=1.4))
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=len(spec["flows"]), fontsize=8,
                  frameon=False)
    for node, (x, y) in nodes.items():
        router = node in spec["routers"]
        ax.scatter([x], [y], s=900, marker="s" if router else "o", zorder=4,
                   color="#ffe9a8" if router else "#cfe3f6", edgecolor="#333333")
        ax.text(x, y, node.replace(" (", "\n("), ha="center", va="center", fontsize=8, zorder=5)
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(min(ys) - 0.8, max(ys) + 0.8)
    ax.set_axis_off()
    ax.set_title(spec["title"], fontsize=10)
    return fig
