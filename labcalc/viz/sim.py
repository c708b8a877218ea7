"""Theory, ns-3 and the handout's measurement side by side (notebook 14).

:data:`LAB5_RUNS` lists the runs of lab parts 2-5 that notebook 14 compares: which
scenario file and variant, which congestion control (the one the handout measured with),
how long, and how the simulated flows map onto the rows of the handout's measurement
files (``data/measurements/lab5/part*.csv``). :func:`summary_rows` turns the summary of one
ns-3 run into rows of that tidy format, so that ``scripts/simulate_lab5.py`` can commit
them as a CSV that :func:`labcalc.compare.load_measurements` reads like a measurement.

The explorer re-runs one of these runs for a few simulated seconds when a control is
released (``simulate_values`` / ``simulate_readout`` / ``simulate_explorer``, see
:mod:`labcalc.viz._base`). It needs ns-3 (``pip install ns3``); without it the readout says
how to install it and the figure shows the theory and the measurement only.
:mod:`labcalc.sim` (and through it ns-3) is imported only when a simulation runs.

Examples
--------
>>> [r["key"] for r in LAB5_RUNS][:3]
['A2', 'B1', 'collapse, UDP']
>>> run_of("D1")["flows"]["h2_tcp3"]
'h2'
"""

from __future__ import annotations

import math

from labcalc.viz._base import Explorer, PALETTE, choice, readout_lines, slider

__all__ = ["LAB5_RUNS", "run_of", "summary_rows", "INSTALL_HINT", "HANDOUT_TCP", "TCP_CHOICES",
           "simulate_values", "simulate_readout", "simulate_explorer"]

#: How to get ns-3 into the Python of a notebook's kernel.
INSTALL_HINT = ("ns-3 is not installed in this Python. Install it in the environment of the "
                "notebook's kernel with `pip install ns3` (or `pip install -e '.[sim]'` in the "
                "labcalc folder; about 2 minutes and 520 MB), restart the kernel and run this "
                "cell again. Everything above this cell works without it.")

#: The runs of notebook 14, one or two per lab part. ``flows`` maps each simulated flow to
#: the ``flow`` of the handout's measurement file (several connections of one host map to
#: the host: their goodputs add up). ``tcp`` is the congestion control the handout measured
#: with (CUBIC unless it says Reno). ``duration_s`` and ``warmup_s`` are those of the
#: committed runs (``scripts/simulate_lab5.py``); the explorer runs a few seconds only.
LAB5_RUNS = (
    dict(key="A2", part=2, file="lab51", variant="A2", tcp="Cubic", question="Q14", scenario="A2",
         flows={"h1_udp": "h1_udp", "h2_udp": "h2_udp"}, duration_s=120.0, warmup_s=60.0,
         title="part 2, A2: two UDP flows (1 and 4 Mbit/s) through 5 Mbit/s"),
    dict(key="B1", part=2, file="lab51", variant="B1", tcp="Cubic", question="Q18", scenario="B1",
         flows={"h1_udp": "h1_udp", "h2_udp": "h2_udp", "h2_tcp": "h2_tcp"}, duration_s=120.0, warmup_s=60.0,
         title="part 2, B1: a TCP connection beside 1.5 Mbit/s of UDP"),
    dict(key="collapse, UDP", part=3, file="lab52", variant=None, tcp="Cubic", question="Q25",
         scenario="UDP at access rates", flows={"AB": "AB", "CD": "CD"}, duration_s=120.0, warmup_s=60.0,
         title="part 3: congestion collapse, UDP at the access rates"),
    dict(key="collapse, TCP", part=3, file="lab52", variant="tcp", tcp="Cubic", question="Q27", scenario="TCP",
         flows={"AB": "AB", "CD": "CD"}, duration_s=200.0, warmup_s=50.0,
         title="part 3: the same network with two TCP connections"),
    dict(key="D1", part=4, file="lab51", variant="D1", tcp="Cubic", question="Q32", scenario="D1",
         flows={"h1_tcp": "h1", "h2_tcp1": "h2", "h2_tcp2": "h2", "h2_tcp3": "h2"}, duration_s=200.0,
         warmup_s=50.0, title="part 4, D1: one connection from h1, three from h2, RTT 300 ms"),
    dict(key="D2 Reno", part=4, file="lab51", variant="D2", tcp="LinuxReno", question="Q37", scenario="D2 Reno",
         flows={"h1_tcp": "h1", "h2_tcp": "h2"}, duration_s=200.0, warmup_s=50.0,
         title="part 4, D2: Reno, h1's RTT 800 ms, h2's 300 ms"),
    dict(key="two bottlenecks", part=5, file="lab53", variant=None, tcp="Cubic", question="Q42",
         scenario="two bottlenecks", flows={"1to3": "1to3", "1to2": "1to2", "2to3": "2to3"}, duration_s=200.0,
         warmup_s=50.0, title="part 5: three TCP connections, two 5 Mbit/s bottlenecks"),
)


#: The explorer's TCP choice that means "the congestion control the handout measured this run with".
HANDOUT_TCP = "handout"
#: The explorer's TCP choices: the handout's (per run), then ns-3 variants to try instead.
TCP_CHOICES = ((HANDOUT_TCP + "'s (per run)", HANDOUT_TCP), ("Cubic", "Cubic"), ("NewReno", "NewReno"),
               ("LinuxReno", "LinuxReno"), ("Vegas", "Vegas"), ("Bbr", "Bbr"))


def run_of(key: str) -> dict:
    """The run of :data:`LAB5_RUNS` with this key.

    Parameters
    ----------
    key : str
        ``"A2"``, ``"B1"``, ``"collapse, UDP"``, ``"collapse, TCP"``, ``"D1"``, ``"D2 Reno"``
        or ``"two bottlenecks"``.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        For an unknown key (the message lists the known ones).

    Examples
    --------
    >>> run_of("B1")["question"]
    'Q18'
    """
    for run in LAB5_RUNS:
        if run["key"] == key:
            return run
    raise ValueError(f"run must be one of {', '.join(repr(r['key']) for r in LAB5_RUNS)}; got {key!r}")


def summary_rows(summary, run: dict, note: str = "") -> list:
    """Rows in the format of the handout's measurement files from the summary of one ns-3 run.

    Parameters
    ----------
    summary : pandas.DataFrame
        :attr:`labcalc.sim.SimResult.summary` (index ``flow``; ``transport``,
        ``goodput_bps`` [bit/s], ``loss`` [fraction], ``rtt_mean_s`` [s],
        ``sent_packets``, ``lost_packets``).
    run : dict
        An entry of :data:`LAB5_RUNS`.
    note : str, default ""
        Text for the ``note`` column (what was simulated).

    Returns
    -------
    list of dict
        ``question``, ``scenario``, ``flow``, ``metric``, ``value``, ``unit``, ``note``: the
        goodput of every flow of the measurement file [kbit/s] (connections of one host
        added up), the loss of UDP flows [%] and the mean RTT of TCP flows [ms]; for a host
        with several connections also each connection's goodput, under its simulated name.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"transport": ["tcp", "tcp"], "goodput_bps": [1e6, 2e6], "loss": [0.01, 0.02],
    ...                   "rtt_mean_s": [0.3, 0.4], "sent_packets": [10, 20], "lost_packets": [0, 1]},
    ...                  index=pd.Index(["h2_tcp1", "h2_tcp2"], name="flow"))
    >>> run = dict(question="Q32", scenario="D1", flows={"h2_tcp1": "h2", "h2_tcp2": "h2"})
    >>> [(r["flow"], r["metric"], r["value"]) for r in summary_rows(s, run)]
    [('h2', 'goodput', '3000.0'), ('h2_tcp1', 'goodput', '1000.0'), ('h2_tcp2', 'goodput', '2000.0')]
    """
    rows = []
    base = dict(question=run["question"], scenario=run["scenario"])
    groups = {}
    for sim_flow, flow in run["flows"].items():
        groups.setdefault(flow, []).append(sim_flow)
    for flow, members in groups.items():
        part = summary.loc[members]
        rows.append(base | dict(flow=flow, metric="goodput", value=f"{part.goodput_bps.sum() / 1e3:.1f}",
                                unit="kbit/s", note=note))
        if len(members) == 1:
            one = part.iloc[0]
            if one.transport == "udp":
                rows.append(base | dict(flow=flow, metric="loss", value=f"{100 * one.loss:.2f}", unit="%", note=note))
            elif math.isfinite(one.rtt_mean_s):
                rows.append(base | dict(flow=flow, metric="rtt", value=f"{1e3 * one.rtt_mean_s:.0f}", unit="ms",
                                        note=note))
    for flow, members in groups.items():
        if len(members) > 1:
            for sim_flow in members:
                rows.append(base | dict(flow=sim_flow, metric="goodput",
                                        value=f"{summary.loc[sim_flow, 'goodput_bps'] / 1e3:.1f}", unit="kbit/s",
                                        note=f"one connection of {flow}" + (f"; {note}" if note else "")))
    return rows


def simulate_values(run="B1", tcp=None, queue_packets=100, duration_s=5.0, seed=1, theory=None, measured=None,
                    queue="red"):
    """Run one of :data:`LAB5_RUNS` in ns-3 for a few seconds; goodput per flow of the handout.

    Parameters
    ----------
    run : str
        A key of :data:`LAB5_RUNS`.
    tcp : str, optional
        Congestion control of the TCP flows (any of :data:`labcalc.sim.TCP_VARIANTS`);
        default (None or :data:`HANDOUT_TCP`): the run's, the one the handout measured
        with (LinuxReno for "D2 Reno", CUBIC for the others).
    queue_packets : int, default 100
        Size of the drop-tail queues [packets] with ``queue = "droptail"`` (1000 is Linux's
        default queue length).
    queue : {"red", "droptail"}, default "red"
        ``"red"``: every link queues as its scenario says, as the table's "ns-3 RED" column
        (Mininet's RED on the routers' shaped interfaces, as in the handout; the hosts'
        own interfaces drop-tail of 1000 packets; ``queue_packets`` does not apply);
        ``"droptail"``: every link drop-tail of ``queue_packets``.
    duration_s : float, default 5
        Simulated time [s]; the first 20 % are left out of the averages.
    seed : int, default 1
        ns-3's random seed (UDP senders send at exponential gaps).
    theory, measured : dict run key -> dict flow -> float, optional
        Goodputs [bit/s] to show beside the simulated ones (the notebook's).

    Returns
    -------
    dict
        ``run`` (the entry of :data:`LAB5_RUNS`), ``flows`` (the handout's flow names),
        ``goodput_bps`` (dict flow -> ns-3's goodput, empty without ns-3), ``loss``
        (UDP flows) [fraction], ``rtt_s`` (TCP flows) [s], ``theory_bps``,
        ``measured_bps`` (dicts flow -> float), ``settings`` (``tcp`` is the variant that
        ran, ``tcp_from`` says whether it is the handout's), ``error`` (None, or what went
        wrong: ns-3 missing, an option ns-3 lacks, a run that would take too long, a run
        ns-3 stopped), ``wall_s`` [s].

    Examples
    --------
    >>> v = simulate_values("A2", duration_s=2.0)
    >>> sorted(v["goodput_bps"])
    ['h1_udp', 'h2_udp']
    """
    spec = run_of(run)
    flows = list(dict.fromkeys(spec["flows"].values()))
    own = tcp in (None, HANDOUT_TCP)
    tcp = spec["tcp"] if own else tcp
    out = dict(run=spec, flows=flows, goodput_bps={}, loss={}, rtt_s={},
               theory_bps=dict((theory or {}).get(run, {})), measured_bps=dict((measured or {}).get(run, {})),
               settings=dict(tcp=tcp, tcp_from="handout" if own else "chosen", queue=queue,
                             queue_packets=int(queue_packets), duration_s=float(duration_s), seed=int(seed)),
               error=None, wall_s=float("nan"))
    from labcalc import sim
    from labcalc.data import scenario_path

    if not sim.available():
        out["error"] = INSTALL_HINT
        return out
    # RED: the scenario's own queues, as the table's "ns-3 RED" column; drop-tail: every link queue_packets.
    # The run happens in ns-3's worker process (labcalc.sim.runner): whatever ns-3 aborts on ends
    # that process, not the kernel, and its standard error (cling's notes) never reaches the notebook.
    queues = {} if queue == "red" else dict(queue_disc="droptail", queue_packets=int(queue_packets))
    try:
        res = sim.simulate(scenario_path(spec["file"]), variant=spec["variant"], tcp=tcp,
                           duration_s=float(duration_s), seed=int(seed), max_packets=2_000_000, **queues)
    except sim.SimulationUnavailable as exc:
        out["error"] = f"{INSTALL_HINT} ({exc})"
        return out
    except ValueError as exc:   # an option ns-3 lacks, a run too long (SimulationTooLong), a run ns-3 stopped
        out["error"] = str(exc)
        return out
    s = res.summary
    for sim_flow, flow in spec["flows"].items():
        out["goodput_bps"][flow] = out["goodput_bps"].get(flow, 0.0) + float(s.loc[sim_flow, "goodput_bps"])
        if list(spec["flows"].values()).count(flow) == 1:
            if s.loc[sim_flow, "transport"] == "udp":
                out["loss"][flow] = float(s.loc[sim_flow, "loss"])
            else:
                out["rtt_s"][flow] = float(s.loc[sim_flow, "rtt_mean_s"])
    out["wall_s"] = float(res.attrs.get("wall_s", float("nan")))
    return out


def _kbit(x):
    return "-" if x is None or not math.isfinite(x) else f"{x / 1e3:7.0f}"


def simulate_readout(values) -> str:
    """Fixed-format text of :func:`simulate_values`: per flow theory, ns-3 and measured goodput.

    Parameters
    ----------
    values : dict
        What :func:`simulate_values` returned.

    Returns
    -------
    str

    Examples
    --------
    >>> v = dict(run=run_of("A2"), flows=["h1_udp", "h2_udp"], goodput_bps={}, loss={}, rtt_s={},
    ...          theory_bps={"h1_udp": 938e3}, measured_bps={"h1_udp": 964e3},
    ...          settings=dict(tcp="Cubic", queue_packets=1000, duration_s=5.0, seed=1),
    ...          error="no ns-3", wall_s=float("nan"))
    >>> print(simulate_readout(v))
    part 2, A2: two UDP flows (1 and 4 Mbit/s) through 5 Mbit/s
    no ns-3
    flow       theory    ns-3  measured  [kbit/s]
    h1_udp        938       -      964
    h2_udp          -       -        -
    """
    st = values["settings"]
    lines = [values["run"]["title"]]
    if values["error"]:
        lines.append(values["error"])
    else:
        queues = ("RED at the routers" if st.get("queue", "red") == "red"
                  else f"drop-tail queues of {st['queue_packets']} packets")
        tcp = st["tcp"] + (" (the handout's)" if st.get("tcp_from") == "handout" else "")
        lines.append(f"ns-3: {st['duration_s']:g} s simulated, {tcp}, {queues}, seed {st['seed']}")
    rows = [("flow", f"{'theory':>6}    {'ns-3':>4}  {'measured':>8}  [kbit/s]")]
    for flow in values["flows"]:
        extra = ""
        if flow in values["loss"]:
            extra = f"   ns-3 loss {100 * values['loss'][flow]:.1f} %"
        elif flow in values["rtt_s"] and math.isfinite(values["rtt_s"][flow]):
            extra = f"   ns-3 RTT {1e3 * values['rtt_s'][flow]:.0f} ms"
        rows.append((flow, f"{_kbit(values['theory_bps'].get(flow))} {_kbit(values['goodput_bps'].get(flow))}  "
                           f"{_kbit(values['measured_bps'].get(flow)):>8}{extra}"))
    return "\n".join(lines) + "\n" + readout_lines(rows).replace(" \n", "\n").rstrip()


def _draw_simulate(ax, values, settings):
    flows = values["flows"]
    series = (("theory", values["theory_bps"], PALETTE[0]), ("ns-3", values["goodput_bps"], PALETTE[1]),
              ("measured", values["measured_bps"], PALETTE[2]))
    width = 0.8 / len(series)
    for k, (label, data, colour) in enumerate(series):
        xs = [i + (k - 1) * width for i in range(len(flows))]
        ys = [data.get(f, float("nan")) / 1e6 for f in flows]
        ax.bar(xs, ys, width=width, color=colour, label=label)
    ax.set_xticks(range(len(flows)), flows)
    ax.set_ylabel("goodput [Mbit/s]")
    ax.set_title(values["run"]["title"], fontsize=10)
    if values["error"]:
        ax.text(0.5, 0.95, "no ns-3 run: see the text above", transform=ax.transAxes, ha="center", va="top",
                fontsize=9, color="#d62728")
    ax.margins(y=0.25)
    ax.legend(fontsize=8, loc="upper left", ncols=3)


def simulate_explorer(run="B1", tcp=None, queue_packets=100, duration_s=5.0, theory=None, measured=None,
                      queue="red") -> Explorer:
    """A run of lab 5 re-simulated in ns-3 whenever a control is released.

    Parameters
    ----------
    run : str, default "B1"
        Initial run (a key of :data:`LAB5_RUNS`).
    tcp : str, optional
        Initial congestion control: :data:`HANDOUT_TCP` (the default: each run's own, the
        one the handout measured with) or a variant of :data:`TCP_CHOICES`.
    queue_packets : int, default 100
        Initial size of the drop-tail queues [packets].
    queue : {"red", "droptail"}, default "red"
        Initial queues: the scenario's (RED at the routers, as the handout) or all drop-tail.
    duration_s : float, default 5
        Initial simulated time [s] (2 to 20).
    theory, measured : dict run key -> dict flow -> float, optional
        Goodputs [bit/s] drawn beside ns-3's (the notebook's table).

    Returns
    -------
    Explorer
        Controls ``run``, ``tcp``, ``queue``, ``queue_packets`` (disabled while the queues
        are RED), ``duration_s``; its ``values`` hold the result of :func:`simulate_values`.
        While ns-3 runs, the readout says so and the controls are disabled.

    Examples
    --------
    >>> ex = simulate_explorer(duration_s=2.0)
    >>> ex.set(queue="droptail", queue_packets=50)
    >>> ex.values["settings"]["queue"], ex.values["settings"]["queue_packets"], ex.values["error"]
    ('droptail', 50, None)
    """
    run_of(run)
    chosen = tcp or HANDOUT_TCP
    if chosen not in [v for _, v in TCP_CHOICES]:
        raise ValueError(f"tcp must be one of {', '.join(repr(v) for _, v in TCP_CHOICES)}; got {tcp!r}")
    controls = {
        "run": choice([r["key"] for r in LAB5_RUNS], run, "run"),
        "tcp": choice(list(TCP_CHOICES), chosen, "TCP (ns-3)"),
        "queue": choice([("RED at the routers (as the handout)", "red"), ("drop-tail everywhere", "droptail")],
                        queue, "queues"),
        "queue_packets": slider("int", queue_packets, 10, 1000, 10, "drop-tail [packets]"),
        "duration_s": slider("float", duration_s, 2.0, 20.0, 1.0, "simulated time [s]", ".0f"),
    }

    def compute(run, tcp, queue, queue_packets, duration_s):
        return simulate_values(run, tcp, queue_packets, duration_s, theory=theory, measured=measured, queue=queue)

    return Explorer(controls, compute, simulate_readout, _draw_simulate,
                    title="Lab 5 in ns-3: re-run a few simulated seconds", busy=_busy_text, adjust=_adjust_controls)


def _adjust_controls(controls, settings):
    """The drop-tail size applies to drop-tail queues only: greyed out while the queues are RED."""
    controls["queue_packets"].disabled = settings["queue"] == "red"


def _busy_text(settings) -> str:
    from labcalc.sim import runner

    spec = run_of(settings["run"])
    tcp = spec["tcp"] if settings["tcp"] == HANDOUT_TCP else settings["tcp"]
    first = ("" if runner.import_seconds() is not None
             else " The first run of a notebook also starts ns-3's worker process (a few seconds).")
    return (f"ns-3 is running: {spec['key']}, {tcp}, {settings['duration_s']:g} s simulated ...{first}\n"
            "The controls are back when it is done.")
