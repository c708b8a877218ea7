"""What every picture and explorer shares: one figure style, one slider, the Explorer.

One size and resolution rule (:data:`FIGSIZE`, :data:`DPI`) holds for the static figures
of the notebooks and for the figures under the explorers, so a plot looks the same
whether it is drawn once or redrawn by a slider. One palette (:data:`PALETTE`), one
slider and one drop-down helper (:func:`slider`, :func:`choice`), one fixed-format
readout (:func:`readout_lines`).

Every explorer of :mod:`labcalc.viz` comes in three parts, so that its numbers can be
tested without a browser:

``<name>_values(**settings) -> dict``
    the pure computation: what the explorer displays for these slider settings (base
    units: bit/s, s, byte, fractions), computed by the library;
``<name>_readout(values) -> str``
    the fixed-format text the explorer shows (an ``ipywidgets.HTML`` holding a
    ``<pre class="labcalc-readout">``), so a browser test can compare it with what
    labcalc computes for the same settings;
``<name>_explorer(...) -> Explorer``
    the widget: controls, the readout and a figure (a PNG in an ``ipywidgets.Image``),
    recomputed and redrawn on every change of a control.

Figures are made with :class:`matplotlib.figure.Figure`, not ``pyplot``, so nothing is
kept in a global figure list and nothing is shown twice in a notebook; matplotlib is
imported inside the functions.

Examples
--------
>>> fig, ax = new_axes()
>>> tuple(fig.get_size_inches()) == FIGSIZE, fig.dpi == DPI == Explorer.dpi
(True, True)
"""

from __future__ import annotations

import html
import time
import warnings

import ipywidgets as W

__all__ = [
    "FIGSIZE",
    "DPI",
    "PALETTE",
    "slider",
    "choice",
    "text_input",
    "readout_lines",
    "Explorer",
    "new_axes",
    "reset_axes",
    "to_png",
]

#: Size of a figure with one Axes, static or under an explorer (width, height) [inch].
FIGSIZE = (7.0, 3.4)
#: Resolution of every figure, on screen and in the PNGs the explorers show [dot/inch].
DPI = 100
#: Colours used everywhere, in order (matplotlib's tab10).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")

_STYLE = {"description_width": "150px"}
_LAYOUT = W.Layout(width="460px")


def slider(kind, value, lo, hi, step, description, fmt=None):
    """One slider of an explorer, in the common style (label width, length, no live update).

    Parameters
    ----------
    kind : {"int", "float", "log"}
        Integer, float, or logarithmic float slider (``lo`` and ``hi`` are then powers of 10).
    value : float
        Initial value.
    lo, hi : float
        Range of the slider (exponents of 10 for ``"log"``).
    step : float
        Step of the slider (of the exponent for ``"log"``).
    description : str
        Label, with its unit in brackets.
    fmt : str, optional
        Format of the value shown beside the slider, e.g. ``".1f"``.

    Returns
    -------
    ipywidgets.IntSlider or ipywidgets.FloatSlider or ipywidgets.FloatLogSlider
        The slider; it reports a new value only when released.

    Examples
    --------
    >>> s = slider("log", 0.1, -4, 1, 0.05, "loss [%]", ".4f")
    >>> type(s).__name__, s.value, s.continuous_update
    ('FloatLogSlider', 0.1, False)
    """
    cls = {"int": W.IntSlider, "float": W.FloatSlider, "log": W.FloatLogSlider}[kind]
    kwargs = dict(value=value, step=step, description=description, style=_STYLE, layout=_LAYOUT,
                  continuous_update=False, min=lo, max=hi)
    if kind == "log":
        kwargs["base"] = 10
    if fmt:
        kwargs["readout_format"] = fmt
    return cls(**kwargs)


def choice(options, value, description):
    """A drop-down of an explorer, in the style of :func:`slider`.

    Parameters
    ----------
    options : list
        Values, or ``(label, value)`` pairs.
    value : object
        Initially selected value.
    description : str
        Label.

    Returns
    -------
    ipywidgets.Dropdown
        The drop-down.

    Examples
    --------
    >>> choice([("Reno", "reno"), ("CUBIC", "cubic")], "cubic", "algorithm").value
    'cubic'
    """
    return W.Dropdown(options=options, value=value, description=description, style=_STYLE,
                      layout=_LAYOUT)


def text_input(description, placeholder=""):
    """A text box of an explorer (read when the user presses Enter or leaves it).

    Parameters
    ----------
    description : str
        Label.
    placeholder : str, default ""
        Grey hint shown while the box is empty.

    Returns
    -------
    ipywidgets.Text
        The empty text box.

    Examples
    --------
    >>> text_input("Q4 answer", "e.g. 4.7 Mbit/s").value
    ''
    """
    return W.Text(value="", placeholder=placeholder, description=description, style=_STYLE,
                  layout=_LAYOUT, continuous_update=False)


def readout_lines(rows) -> str:
    """Fixed-format readout: one ``label  value`` line per row, labels aligned.

    Parameters
    ----------
    rows : sequence of (str, str)
        Label and formatted value of each line.

    Returns
    -------
    str
        The lines joined by newlines.

    Examples
    --------
    >>> print(readout_lines([("rate", "5.0 Mbit/s"), ("RTT min", "30 ms")]))
    rate     5.0 Mbit/s
    RTT min  30 ms
    """
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {text}" for label, text in rows)


class Explorer(W.VBox):
    """Controls, a text readout and a figure, refreshed together.

    Parameters
    ----------
    controls : dict name -> ipywidgets value widget
        Their values are passed by name to ``compute``.
    compute : callable(**settings) -> dict
        The pure computation (a ``*_values`` function, possibly with fixed arguments).
    readout : callable(values) -> str
        The text shown (a ``*_readout`` function).
    draw : callable(ax, values, settings), optional
        Draws the figure for these values into a cleared Axes; None: no figure.
    figsize : (float, float)
    title : str, optional
        Shown above the controls.
    busy : str or callable(settings) -> str, optional
        Shown in the readout while ``compute`` runs, with every control disabled (for a
        computation that takes seconds, such as a simulation); None: nothing changes.
    adjust : callable(controls, settings), optional
        Called before each refresh to adapt the controls to the settings (e.g. disable a
        control that the current choice makes meaningless).

    Attributes
    ----------
    controls : dict
    readout : ipywidgets.HTML
        ``<pre class="labcalc-readout">`` + the text of ``readout(values)``.
    image : ipywidgets.Image or None
        The figure as PNG.
    values : dict
        The last computed values.
    text : str
        The last readout text.
    last_refresh_s : float
        Duration of the last refresh (compute + readout + redraw + PNG) [s].
    last_refresh_cpu_s : float
        CPU time of the process during the last refresh [s] (the same on a busy machine).

    Examples
    --------
    >>> from labcalc.viz.framing import framing_readout, framing_values
    >>> data = W.IntSlider(value=1000, min=1, max=9000, description="data [B]")
    >>> ex = Explorer({"payload_bytes": data}, framing_values, framing_readout)
    >>> ex.set(payload_bytes=1472)
    >>> ex.values["counted_bytes"], ex.image is None
    (1538, True)
    """

    #: Resolution of the PNG the widget shows [dots per inch].
    dpi = DPI

    def __init__(self, controls, compute, readout, draw=None, figsize=FIGSIZE, title=None, busy=None, adjust=None):
        self.controls = dict(controls)
        self._busy = busy
        self._adjust = adjust
        self._compute = compute
        self._readout_fn = readout
        self._draw = draw
        self._muted = False
        self.values = {}
        self.text = ""
        self.last_refresh_s = self.last_refresh_cpu_s = float("nan")
        self.readout = W.HTML(value="")
        self.readout.add_class("labcalc-readout")
        children = []
        if title:
            children.append(W.HTML(value=f"<b>{html.escape(title)}</b>"))
        children.append(W.VBox(list(self.controls.values())))
        children.append(self.readout)
        if draw is not None:
            self.figure, self.ax = new_axes(figsize=figsize, layout=None)
            self.figure.set_dpi(self.dpi)
            self.image = W.Image(format="png", layout=W.Layout(max_width="100%"))
            children.append(self.image)
        else:
            self.figure = self.ax = self.image = None
        super().__init__(children)
        self.add_class("labcalc-explorer")  # lets a browser test find the explorer
        for widget in self.controls.values():
            widget.observe(self._on_change, names="value")
        self.refresh()

    def settings(self) -> dict:
        """The current value of every control, by name."""
        return {name: widget.value for name, widget in self.controls.items()}

    def _on_change(self, change):
        if not self._muted:
            self.refresh()

    def refresh(self):
        """Recompute, rewrite the readout and redraw the figure."""
        start = time.perf_counter()
        start_cpu = time.process_time()
        settings = self.settings()
        if self._adjust is not None:
            self._adjust(self.controls, settings)
        enabled = {}
        if self._busy is not None:
            # shown at once (a widget's change reaches the browser while the kernel still works)
            enabled = {name: w for name, w in self.controls.items() if not getattr(w, "disabled", True)}
            for w in enabled.values():
                w.disabled = True
            note = self._busy(settings) if callable(self._busy) else self._busy
            self.readout.value = f'<pre class="labcalc-readout labcalc-busy">{html.escape(note)}</pre>'
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values = self._compute(**settings)
        finally:
            for w in enabled.values():
                w.disabled = False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            text = self._readout_fn(values)
            self.values, self.text = values, text
            self.readout.value = f'<pre class="labcalc-readout">{html.escape(text)}</pre>'
            if self._draw is not None:
                reset_axes(self.ax)
                self._draw(self.ax, values, settings)
                self.image.value = to_png(self.figure, dpi=self.dpi)
        self.last_refresh_s = time.perf_counter() - start
        self.last_refresh_cpu_s = time.process_time() - start_cpu

    def set(self, **settings):
        """Set several controls at once (one refresh), as a user moving sliders would.

        Raises
        ------
        ValueError
            For an unknown control name (the message lists the known ones).
        """
        unknown = [k for k in settings if k not in self.controls]
        if unknown:
            raise ValueError(f"unknown control {unknown[0]!r}; controls: {', '.join(self.controls)}")
        self._muted = True
        try:
            for name, value in settings.items():
                self.controls[name].value = value
        finally:
            self._muted = False
        self.refresh()


def new_axes(ax=None, figsize=FIGSIZE, layout="constrained"):
    """``(figure, axes)``: the given Axes and its figure, or a new figure with one Axes.

    ``layout="constrained"`` fits labels and legends automatically; the widgets pass
    ``layout=None`` (fixed margins), which redraws several times faster.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        An existing Axes; returned with its figure, and the other arguments ignored.
    figsize : (float, float), default (7.0, 3.4)
        Size of a new figure (width, height) [inch].
    layout : {"constrained", None}, default "constrained"
        Layout engine of a new figure; None uses fixed margins.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure holding ``ax``.
    ax : matplotlib.axes.Axes
        The given Axes, or the new one.

    Examples
    --------
    >>> fig, ax = new_axes()
    >>> len(fig.axes), float(fig.dpi)
    (1, 100.0)
    """
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=DPI, layout=layout)
    if layout is None:
        fig.subplots_adjust(left=0.11, right=0.97, bottom=0.15, top=0.9)
    return fig, fig.add_subplot()


def reset_axes(ax) -> None:
    """Empty an axes for the next drawing, keeping its tick objects.

    ``ax.clear()`` also throws away the axis ticks, and rebuilding them is about a
    third of a widget's redraw time (each tick is several artists); removing the
    plotted artists and resetting scales, limits and labels gives the same picture
    (the widget tests compare the PNGs pixel for pixel) faster.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The Axes to empty, in place.

    Examples
    --------
    >>> fig, ax = new_axes()
    >>> _ = ax.plot([1, 2], [3, 4]); ax.set_yscale("log"); _ = ax.set_title("t")
    >>> reset_axes(ax)
    >>> len(ax.lines), ax.get_yscale(), ax.get_title()
    (0, 'linear', '')
    """
    for artist in [*ax.lines, *ax.patches, *ax.collections, *ax.texts, *ax.images,
                   *ax.tables, *ax.artists]:
        artist.remove()
    ax.containers.clear()
    if ax.legend_ is not None:
        ax.legend_.remove()
    if ax.get_xscale() != "linear":
        ax.set_xscale("linear")
    if ax.get_yscale() != "linear":
        ax.set_yscale("linear")
    ax.set_aspect("auto")
    ax.set_prop_cycle(None)  # colours start again from the first
    ax.relim()
    ax.autoscale(True)
    ax.set_title("")
    ax.set_xlabel("")
    ax.set_ylabel("")


def to_png(fig, dpi: int = DPI) -> bytes:
    """Render a figure to PNG bytes (what the widgets show in an ``Image``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to render (given an Agg canvas if it has none).
    dpi : int, default 100
        Resolution [pixel/inch].

    Returns
    -------
    bytes
        The PNG file's content.

    Examples
    --------
    >>> to_png(new_axes()[0])[:4]
    b'\\x89PNG'
    """
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()
