"""labcalc.viz figures: every function draws what it is given (counted artists, not pixels)."""

from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from labcalc import framing, measure, viz  # noqa: E402


def test_import_labcalc_viz_does_not_import_matplotlib():
    code = "import sys, labcalc.viz; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_figures_are_not_kept_by_pyplot():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    viz.charts.curves([0, 1], {"a": [0, 1]})
    assert plt.get_fignums() == before


def test_new_axes_and_given_axes():
    fig, ax = viz._base.new_axes()
    assert fig.dpi == 100 and len(fig.axes) == 1
    fig2 = viz.charts.curves([0, 1], {"a": [1, 2]}, ax=ax)
    assert fig2 is fig and len(ax.lines) == 1


def test_to_png_is_a_png_and_deterministic():
    fig = viz.charts.curves([0, 1, 2], {"a": [1, 2, 3]}, title="t")
    first, second = viz._base.to_png(fig), viz._base.to_png(fig)
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert first == second


@pytest.mark.parametrize("accountings, expected", [
    (("wire", "frame", "tc", "ip"), 6 + 4 + 3 + 2),
    (("wire", "tc"), 6 + 3),
    (("ip",), 2),
])
def test_accounting_bars_draw_one_segment_per_counted_overhead_layer(accountings, expected):
    fig = viz.framing.accounting_bars(framing.frame(1000), accountings)
    ax = fig.axes[0]
    assert len(ax.patches) == expected
    assert [t.get_text().split()[0] for t in ax.get_yticklabels()] == list(accountings)
    # the totals written next to the bars are the accounting's byte counts
    texts = " ".join(t.get_text() for t in ax.texts)
    for acc in accountings:
        assert f"{framing.frame(1000).bytes(acc)} B" in texts


def test_accounting_bars_with_payload_and_padding_and_trains():
    fig = viz.framing.accounting_bars(framing.frame(1), ("frame",), show_payload=True)
    # Ethernet, IP, UDP headers, payload, padding, FCS
    assert len(fig.axes[0].patches) == 6
    train = framing.segment_frames(2896, 1448, tcp_options_bytes=12)
    fig = viz.framing.accounting_bars(train, ("tc",))
    widths = sorted(p.get_width() for p in fig.axes[0].patches)
    assert widths == [2 * 14, 2 * 20, 2 * 32]  # both frames' headers
    with pytest.raises(ValueError, match="accountings"):
        viz.framing.accounting_bars(framing.frame(1000), ("bogus",))


def test_efficiency_curves_and_marker():
    fig = viz.framing.efficiency_curves([10, 100, 1000], {"a": [0.2, 0.6, 0.9], "b": [0.3, 0.7, 0.95]},
                                  marker=(1000, 0.9, "here"))
    ax = fig.axes[0]
    assert len(ax.lines) == 2 and len(ax.collections) == 1
    assert ax.get_xscale() == "log"
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [20, 60, 90])


def test_grouped_bars_counts_heights_and_nan():
    table = pd.DataFrame({"predicted": [4690.4, 4849.3, np.nan], "measured": [4798.0, 4782.0, 100.0]},
                         index=["UDP", "TCP", "other"])
    fig = viz.charts.grouped_bars(table, "kbit/s", hline=(5000, "link"))
    ax = fig.axes[0]
    assert len(ax.patches) == 6
    heights = [p.get_height() for p in ax.patches]
    assert heights == [4690.4, 4849.3, 0.0, 4798.0, 4782.0, 100.0]
    assert len(ax.lines) == 1  # the reference line
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["predicted", "measured"]


def test_stacked_bars_stack_in_column_order():
    table = pd.DataFrame({"goodput": [0.94, 3.75], "lost": [0.06, 0.25]}, index=["h1", "h2"])
    fig = viz.charts.stacked_bars(table, "Mbit/s", value_format="{:.2f}")
    ax = fig.axes[0]
    assert len(ax.patches) == 4
    lost = ax.patches[2:]
    assert [p.get_y() for p in lost] == pytest.approx([0.94, 3.75])
    assert [t.get_text() for t in ax.texts] == ["1.00", "4.00"]


def test_curves_lines_points_references_and_scales():
    fig = viz.charts.curves([1, 2, 3], {"a": [1, 2, 3], "b": [3, 2, 1]},
                       points={"m1": ([2], [2.5]), "m2": ([1, 3], [1, 1])},
                       hlines=[(2.0, "ref")], band=(1.0, 1.5, "range"), marker=(2, 2, "now"),
                       logx=True, logy=True, steps=True, minor_ticks=False)
    ax = fig.axes[0]
    assert len(ax.lines) == 2 + 1
    assert len(ax.collections) == 2 + 1  # two scatters + the marker
    assert len(ax.patches) == 1  # the band
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


@pytest.mark.parametrize("name", sorted(viz.topology.TOPOLOGIES))
def test_topologies_draw_every_link_node_and_flow_hop(name):
    spec = viz.topology.TOPOLOGIES[name]
    fig = viz.topology.topology(name)
    ax = fig.axes[0]
    hops = sum(len(path) - 1 for _, path, _ in spec["flows"])
    assert len(ax.lines) == len(spec["links"]) + hops
    assert len(ax.collections) == len(spec["nodes"])
    labels = {t.get_text() for t in ax.texts}
    for _, _, label in spec["links"]:
        assert label in labels
    assert len(viz.topology.topology(name, show_flows=False).axes[0].lines) == len(spec["links"])


def test_topology_rejects_unknown_names():
    with pytest.raises(ValueError, match="lab51"):
        viz.topology.topology("lab99")


def test_topology_links_connect_known_nodes():
    for name, spec in viz.topology.TOPOLOGIES.items():
        for a, b, _ in spec["links"]:
            assert a in spec["nodes"] and b in spec["nodes"], (name, a, b)
        for flow, path, _ in spec["flows"]:
            for a, b in zip(path[:-1], path[1:]):
                assert {a, b} in [{x, y} for x, y, _ in spec["links"]], (name, flow, a, b)


def test_missing_measurements_are_not_drawn():
    """NaN points, bands and lines (a student's file without some rows) are skipped."""
    nan = float("nan")
    fig = viz.charts.curves([1, 2, 3], {"model": [1, 2, 3], "model of a missing input": nan, "constant": 2.0},
                       points={"measured": ([1, 2, nan], [1.1, nan, 3.0]), "all missing": ([nan], [nan])},
                       band=(nan, 2.0, "range"))
    ax = fig.axes[0]
    assert len(ax.lines) == 2                                  # model and the constant
    assert [len(c.get_offsets()) for c in ax.collections] == [1]
    assert len(ax.patches) == 0                                # no band
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["model", "constant", "measured"]


def test_stacked_bars_say_no_data_for_a_missing_row():
    t = pd.DataFrame({"received": [0.48, float("nan")], "lost": [0.52, float("nan")]},
                     index=["predicted", "measured"])
    texts = [a.get_text() for a in viz.charts.stacked_bars(t, "Mbit/s", value_format="{:.1f}").axes[0].texts]
    assert texts == ["1.0", "no data"]


def test_lab53_drawing_shows_every_delayed_interface():
    """Handout section 3.3: netem adds the one-way delay on h1-eth0, h2-eth0 and h3-eth0."""
    from labcalc.labs import lab5

    delay = f"+{1e3 * lab5.Params().lab53_one_way_delay_s:.0f} ms"
    labels = [label for _, _, label in viz.topology.TOPOLOGIES["lab53"]["links"]]
    lines = [line for _, _, label in viz.topology.TOPOLOGIES["lab53"]["links"] for line in label.splitlines()]
    for interface in ("h1-eth0", "h2-eth0", "h3-eth0"):
        shown = [line for line in lines if interface in line]
        assert shown and delay in shown[0], f"{interface}: {shown} does not show {delay}"


def test_committed_topology_pictures_are_up_to_date(tmp_path):
    """notebooks/img/*.svg are what make_topologies.py draws from viz.topology.TOPOLOGIES."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    script = (root / "notebooks/img/make_topologies.py").read_text()
    code = script.replace("HERE = Path(__file__).resolve().parent", f"HERE = Path({str(tmp_path)!r})")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=root)
    for name in viz.topology.TOPOLOGIES:
        assert (tmp_path / f"{name}.svg").read_bytes() == (root / f"notebooks/img/{name}.svg").read_bytes(), (
            f"notebooks/img/{name}.svg is stale: run notebooks/img/make_topologies.py")


# --- figures of notebooks 08-11 ---------------------------------------------------------


def test_phase_spans_merge_and_close():
    spans = viz.traces.phase_spans([0, 1, 2, 3, 4], ["slow-start", "slow-start", "fast-recovery",
                                             "congestion-avoidance", "congestion-avoidance"])
    assert spans == [(0.0, 2.0, "slow-start"), (2.0, 3.0, "fast-recovery"), (3.0, 4.0, "congestion-avoidance")]
    assert viz.traces.phase_spans([0.0], ["slow-start"]) == []
    with pytest.raises(ValueError):
        viz.traces.phase_spans([0, 1], ["slow-start"])


def test_cwnd_trace_shades_the_phases():
    trace = pd.DataFrame({"time_s": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
                          "cwnd_segments": [1, 2, 4, 8, 4, 5],
                          "ssthresh_segments": [np.nan, np.nan, np.nan, np.nan, 4, 4]})
    phases = measure.cwnd_phases(trace)
    ax = viz.traces.cwnd_trace(trace, phases).axes[0]
    assert len(ax.lines) == 2
    assert len(ax.patches) == len(viz.traces.phase_spans(phases.time, phases.states))


def test_topologies_draw():
    for name in viz.topology.TOPOLOGIES:
        fig = viz.topology.topology(name)
        labels = {t.get_text() for t in fig.axes[0].texts}
        assert any(n.split(" (")[0] in "\n".join(labels) for n in viz.topology.TOPOLOGIES[name]["nodes"])
    with pytest.raises(ValueError):
        viz.topology.topology("seed009")


def test_figures_of_the_models():
    assert len(viz.buffers.sawtooth(viz.buffers.sawtooth_values(), measured={"x": ([0, 1], [50, 60])}).axes[0].collections) == 1
    assert len(viz.response.response_curves(viz.response.response_values()).axes[0].lines) == 4
    assert len(viz.response.phase_plane(viz.response.chiu_jain_values()).axes[0].lines) == 3
    fig = viz.charts.timeseries_panels([{"ylabel": "q", "lines": {"a": ([0, 1], [1, 2])}, "band": (0, 1, "b")}] * 3)
    assert len(fig.axes) == 3


def _png_size(png: bytes) -> tuple[int, int]:
    import struct

    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


@pytest.mark.parametrize("name", sorted(
    f"{room}.{fn}" for room in ("framing", "sharing", "fairness", "buffers", "response")
    for fn in dir(getattr(viz, room)) if fn.endswith("_explorer")))
def test_explorer_plots_follow_the_static_figure_rule(name):
    # issue 13: one size/DPI rule for the plots under the widgets and the static figures.
    # An explorer's PNG is drawn at viz.DPI, at its figure's size, by the same to_png
    # that shows static figures, and is never stretched by the widget (only shrunk to fit)
    room, fn = name.split(".")
    ex = getattr(getattr(viz, room), fn)()
    if ex.image is None:
        return
    w, h = ex.figure.get_size_inches()
    assert ex.figure.dpi == viz.DPI and _png_size(ex.image.value) == (round(w * viz.DPI), round(h * viz.DPI))
    assert ex.image.layout.width is None and ex.image.layout.height is None
    assert w <= viz.FIGSIZE[0]  # no plot under a widget is wider than a static figure


def test_static_figures_are_shown_by_the_explorers_png_rule():
    # the notebooks' set-up shows a Figure through viz.to_png (the explorers' renderer),
    # at the same size and DPI, so the figures of notebooks 02, 05 and 11 match their
    # explorers' plots pixel for pixel in size
    import base64
    import inspect
    import json
    import pathlib

    from labcalc import _notebook

    root = pathlib.Path(__file__).resolve().parents[1] / "notebooks"
    for number in ("02", "05", "11"):
        (path,) = root.glob(f"{number}-*.ipynb")
        sizes = [_png_size(base64.b64decode(o["data"]["image/png"]))
                 for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                 for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        assert sizes and all(w == viz.FIGSIZE[0] * viz.DPI for w, _ in sizes), (path.name, sizes)
    assert "to_png" in inspect.getsource(_notebook._register_figure_formatter)
