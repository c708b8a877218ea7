"""Lab 5 of the TCP/IP networking course: congestion control, TCP and UDP in Mininet.

Every theory question of the handout is an :class:`Answer` whose value is computed
from the scenario parameters (:class:`Params`) through the library: framing for frame
sizes and goodputs, :func:`labcalc.openloop.fifo_split` for UDP without congestion
control, :mod:`labcalc.fairness` for the fair allocations, :mod:`labcalc.tcp` for the
loss-throughput formula and RTT shares, :mod:`labcalc.queueing` for the queueing delays.
No answer is typed in: change a parameter and every answer follows.

The handout's theory counts bytes on the wire (1066 bytes per 1000-byte datagram).
The Linux shaper that Mininet uses counts 1042 (Ethernet header + IP packet), which is
why the measured goodputs beat the theory; :func:`answers` with ``accounting="tc"``
gives the shaper's predictions, and :func:`shaper_vs_wire` puts both side by side.

Every answer is also described as data for graders (:func:`questions`): an id
(``"Q13.6"``), the question in our words with the scenario's numbers, the unit it is
asked in, a tolerance and points. :func:`variant` draws new scenario parameters from a
seed, so that each student can get their own numbers; :func:`variant_for` turns a
student id into a seed, and ``answers(variant(seed))`` is that student's key.

Examples
--------
>>> df = answers()
>>> row = df[(df.question == "Q4")].iloc[0]
>>> round(row.value / 1e3), row.unit
(4690, 'bit/s')
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass, field, replace
from typing import Callable

__all__ = [
    "Params",
    "Answer",
    "ANSWERS",
    "KINDS",
    "QUESTION_CONTEXT",
    "answers",
    "questions",
    "get_answer",
    "prompt_fields",
    "ACCOUNTING_PHRASES",
    "variant",
    "variant_for",
    "MAX_SEED",
    "shaper_vs_wire",
    "network_lab51",
    "network_lab52",
    "network_lab53",
    "udp_split",
    "collapse",
    "precompute",
    "answer_values",
]


@dataclass(frozen=True)
class Params:
    """The numbers the handout fixes (defaults) and the measured inputs some answers use.

    Rates are application data rates [bit/s] unless the name says otherwise; links are
    shaper rates [bit/s]; times in [s]; sizes in [byte].

    Attributes
    ----------
    bottleneck_bps : float
        Shaper rate of r1-eth1 in section 1 [bit/s].
    udp_payload_bytes : int
        UDP payload of one datagram [byte].
    tcp_segment_bytes : int
        TCP segment as the capture shows it (two MSS with offload) [byte].
    tcp_options_bytes : int
        TCP options per segment (timestamps) [byte].
    mss_bytes : int
        Maximum segment size [byte].
    h1_udp_bps : float
        Application rate of h1's UDP flow [bit/s].
    h2_udp_bps : tuple of 3 float
        Application rate of h2's UDP flow in scenarios A1/B1, A2/B2, A3/B3 [bit/s].
    b_loss : tuple of 2 float
        Measured loss of h2's UDP flow in B2 and B3 [1].
    b_rtt_s : tuple of 2 float
        Measured TCP RTT in B2 and B3 [s].
    a_access_bps, c_access_bps, shared_bps, cd_exit_bps, ab_exit_bps : float
        Link rates of the congestion-collapse network of section 2 [bit/s].
    h3_delay_s : float
        Delay added on h3-eth0 in section 3.1 [s]; it is the RTT of a connection to
        h3 without queueing (Q29), the base RTT of scenarios D1-D3.
    d1_connections : tuple of 2 int
        Number of TCP connections of h1 and h2 in scenario D1.
    extra_delay_s : tuple of 2 float
        Extra delay Y in scenarios D2 and D3 [s].
    lab53_bottleneck_bps : tuple of 2 float
        Rates of the two bottlenecks of section 3.3 (router 1, router 2) [bit/s].
    lab53_one_way_delay_s : float
        One-way delay of the access links of section 3.3 [s].
    lab53_rtt_s : tuple of 3 float
        Measured average RTTs of 1to2, 1to3 and 2to3 [s].

    Examples
    --------
    >>> p = Params(bottleneck_bps=10e6)
    >>> p.bottleneck_bps, p.udp_payload_bytes
    (10000000.0, 1000)
    """

    # Section 1: h1, h2 -> r1 -> h3
    bottleneck_bps: float = 5e6
    udp_payload_bytes: int = 1000
    tcp_segment_bytes: int = 2896  # what the capture shows per segment (2 x 1448, offload)
    tcp_options_bytes: int = 12  # timestamps
    mss_bytes: int = 1448
    h1_udp_bps: float = 1e6
    h2_udp_bps: tuple[float, float, float] = (0.5e6, 4e6, 9e6)  # scenarios A1/B1, A2/B2, A3/B3
    # Q20: measured loss of h2's UDP flow and TCP RTT in B2 and B3 (inputs to the formula)
    b_loss: tuple[float, float] = (0.22, 0.52)
    b_rtt_s: tuple[float, float] = (0.060, 0.054)
    # Section 2: congestion collapse
    a_access_bps: float = 1e6
    c_access_bps: float = 10e6
    shared_bps: float = 1.5e6
    cd_exit_bps: float = 0.5e6
    ab_exit_bps: float = 10e6  # not stated in the handout; any value >= 1 Mbit/s gives the same answers
    # Section 3.1-3.2: delays and RTT fairness
    h3_delay_s: float = 0.300
    d1_connections: tuple[int, int] = (1, 3)
    extra_delay_s: tuple[float, float] = (0.500, 1.000)  # Y in D2, D3
    # Section 3.3: two bottlenecks
    lab53_bottleneck_bps: tuple[float, float] = (5e6, 5e6)  # router 1, router 2
    lab53_one_way_delay_s: float = 0.150
    # Q43: measured average RTTs (inputs to the queueing-delay inference of Q44)
    lab53_rtt_s: tuple[float, float, float] = (0.340, 0.370, 0.330)  # 1to2, 1to3, 2to3

    def udp_wire_factor(self, accounting: str = "wire") -> float:
        """Link bytes per byte of UDP payload in ``accounting`` [1]."""
        return 1.0 / _efficiency(self.udp_payload_bytes, "udp", 0, accounting, None)

    def tcp_efficiency(self, accounting: str = "wire") -> float:
        """Payload share of a TCP segment as the handout counts it [1].

        The wire accounting counts the captured 2896-byte segment as one frame (the
        handout's 2986 bytes); the shaper counts the real 1448-byte frames.
        """
        mss = self.mss_bytes if accounting == "tc" else None
        return _efficiency(self.tcp_segment_bytes, "tcp", self.tcp_options_bytes, accounting, mss)


@functools.lru_cache(maxsize=4096)
def _efficiency(payload_bytes, transport, tcp_options_bytes, accounting, mss_bytes) -> float:
    # the same few frame sizes are asked for again and again (every answer, every variant)
    from labcalc import framing

    return framing.efficiency(payload_bytes, transport, tcp_options_bytes=tcp_options_bytes,
                              accounting=accounting, mss_bytes=mss_bytes)


#: How a value in each base unit is shown to students by default.
_DEFAULT_DISPLAY = {"bit/s": "Mbit/s", "byte": "bytes", "s": "ms", "1": "%", "packet": "packets"}

#: The kinds of answers; the grader uses them to recognise the classic slips.
KINDS = ("goodput", "rate", "size", "loss", "ratio", "time", "constant")


@dataclass(frozen=True)
class Answer:
    """One numeric answer of the handout, with what a grader needs to check it.

    Attributes
    ----------
    question : str
        Handout question id, e.g. ``"Q13"``.
    item : str
        What is asked, in a few words (the scenario and the quantity), with the
        handout's numbers; :meth:`label` gives it with a variant's numbers.
    unit : str
        Base unit of the value: ``"bit/s"``, ``"byte"``, ``"s"`` or ``"1"``.
    compute : callable
        ``compute(params, accounting) -> float``.
    handout_rounding : float
        Relative tolerance that covers the handout's printed rounding.
    id : str
        Unique answer id: the question id, followed by ``.n`` when the question asks
        for several numbers (``"Q4"``, ``"Q13.6"``).
    prompt : str
        The question put to the student, in our words; a :meth:`str.format` template
        whose fields come from :func:`prompt_fields` (so a variant shows its own
        numbers). :meth:`text` prepends the context of the question.
    kind : str
        One of :data:`KINDS`: ``"goodput"`` (application data), ``"rate"`` (bits on
        the link, headers included), ``"size"`` (bytes of a frame), ``"loss"``,
        ``"ratio"``, ``"time"`` or ``"constant"``.
    display_unit : str
        Unit in which the value is shown and asked (``"Mbit/s"``, ``"bytes"``,
        ``"ms"``, ``"%"``, or ``""`` for a plain number).
    rtol, atol : float
        Grading tolerance: an answer ``x`` is right when
        ``|x - value| <= atol + rtol * |value|`` (``atol`` in base units).
    points : float
        Points the answer is worth.
    efficiency : callable or None
        ``efficiency(params, accounting) -> float``: the payload share of the frames
        the answer is about (see :func:`labcalc.framing.efficiency`); used to
        recognise forgotten headers and rate/goodput mix-ups. ``None`` when frames
        play no role.
    paired : bool
        For a goodput: the handout also asks for the matching link rate, so a
        student who copies that rate is diagnosed as "rate given for goodput".
    item_template : str
        ``item`` as a :meth:`str.format` template of the scenario's numbers (fields
        of :func:`prompt_fields`, and ``tcp_options_short``); empty when ``item``
        quotes no number of the scenario.

    Examples
    --------
    >>> a = get_answer("Q4")
    >>> a.question, a.unit, round(a.value() / 1e3, 1)
    ('Q4', 'bit/s', 4690.4)
    """

    question: str
    item: str
    unit: str
    compute: Callable[[Params, str], float] = field(repr=False)
    handout_rounding: float = 0.005
    id: str = ""
    prompt: str = field(default="", repr=False)
    kind: str = "constant"
    display_unit: str = ""
    rtol: float = 0.01
    atol: float = 0.0
    points: float = 1.0
    efficiency: Callable[[Params, str], float] | None = field(default=None, repr=False, compare=False)
    paired: bool = False
    item_template: str = field(default="", repr=False, compare=False)

    def label(self, params: Params | None = None, accounting: str = "wire") -> str:
        """``item`` with the numbers of ``params`` (the handout's by default).

        Parameters
        ----------
        params : Params, optional
            The scenario (the handout's by default).
        accounting : {"wire", "frame", "tc", "ip"}, default "wire"
            Accepted for symmetry with :meth:`text`; labels name no accounting.

        Returns
        -------
        str

        Examples
        --------
        >>> a = get_answer("Q3")
        >>> a.label()
        'bytes a 1000-byte UDP datagram takes on the link (Ethernet frame)'
        >>> a.label(with_params(udp_payload_bytes=500))
        'bytes a 500-byte UDP datagram takes on the link (Ethernet frame)'
        """
        if not self.item_template:
            return self.item
        return self.item_template.format(**_label_fields(Params() if params is None else params))

    def value(self, params: Params | None = None, accounting: str = "wire") -> float:
        """The answer for ``params`` (the handout's by default) [base unit].

        Examples
        --------
        >>> ANSWERS[1].id, round(ANSWERS[1].value() / 1e3, 1)
        ('Q4', 4690.4)
        """
        return float(self.compute(Params() if params is None else params, accounting))

    def text(self, params: Params | None = None, accounting: str = "wire") -> str:
        """The full question for ``params``: context of the question, then the prompt.

        The words that say which bytes the links count follow ``accounting`` (see
        :data:`ACCOUNTING_PHRASES`), so that a key in another accounting asks the
        question it answers.

        Examples
        --------
        >>> ANSWERS[0].text()[:60]
        'A UDP client sends datagrams that carry 1000 bytes of applic'
        >>> get_answer("Q3").text(accounting="tc")[-59:]
        'and UDP headers and data) but not the FCS, preamble or gap?'
        """
        fields = prompt_fields(Params() if params is None else params, accounting)
        context = QUESTION_CONTEXT.get(self.question, "")
        return " ".join(t.format(**fields) for t in (context, self.prompt) if t)


# --- building blocks ---------------------------------------------------------------


def network_lab51(p: Params, h2_udp_bps: float, with_tcp: bool = False, accounting: str = "wire"):
    """The Figure 1 network with UDP flows h1, h2 (and h2's TCP connection) [bit/s].

    UDP demands are link rates: application rate x bytes counted per payload byte.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    h2_udp_bps : float
        Application rate of h2's UDP flow [bit/s].
    with_tcp : bool, default False
        Add h2's TCP connection (flow ``"h2_tcp"``, no demand: it takes what it gets).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.network.Network
        Links ``h1-eth0``, ``h2-eth0`` (1 Gbit/s) and ``r1-eth1`` (the bottleneck);
        flows ``h1_udp``, ``h2_udp`` (and ``h2_tcp``).

    Examples
    --------
    >>> net = network_lab51(Params(), 4e6)
    >>> [round(float(d) / 1e6, 3) for d in net.demands_bps]
    [1.066, 4.264]
    """
    from labcalc.network import Flow, Network

    factor = p.udp_wire_factor(accounting)
    eff_udp = 1.0 / factor
    flows = {
        "h1_udp": Flow(["h1-eth0", "r1-eth1"], demand_bps=p.h1_udp_bps * factor, efficiency=eff_udp),
        "h2_udp": Flow(["h2-eth0", "r1-eth1"], demand_bps=h2_udp_bps * factor, efficiency=eff_udp),
    }
    if with_tcp:
        flows["h2_tcp"] = Flow(["h2-eth0", "r1-eth1"], efficiency=p.tcp_efficiency(accounting))
    links = {"h1-eth0": 1e9, "h2-eth0": 1e9, "r1-eth1": p.bottleneck_bps}
    return Network(links, flows, name="lab51")


def network_lab52(p: Params, transport: str = "udp", accounting: str = "wire"):
    """The Figure 2 network (congestion collapse): flows AB and CD over five links.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    transport : {"udp", "tcp"}, default "udp"
        Transport of both flows; sets their efficiency (payload share of the frames).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.network.Network
        Links ``A-N1``, ``C-N1``, ``N1-N2``, ``N2-D``, ``N2-B``; flows ``AB`` and ``CD``
        without demands.

    Examples
    --------
    >>> network_lab52(Params()).link_names
    ['A-N1', 'C-N1', 'N1-N2', 'N2-D', 'N2-B']
    """
    from labcalc.network import Flow, Network

    eff = 1.0 / p.udp_wire_factor(accounting) if transport == "udp" else p.tcp_efficiency(accounting)
    links = {
        "A-N1": p.a_access_bps,
        "C-N1": p.c_access_bps,
        "N1-N2": p.shared_bps,
        "N2-D": p.cd_exit_bps,
        "N2-B": p.ab_exit_bps,
    }
    flows = {
        "AB": Flow(["A-N1", "N1-N2", "N2-B"], efficiency=eff),
        "CD": Flow(["C-N1", "N1-N2", "N2-D"], efficiency=eff),
    }
    return Network(links, flows, name="lab52")


def network_lab53(p: Params, accounting: str = "wire"):
    """The Figure 3 network: 1to3 crosses both 5 Mbit/s bottlenecks.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.network.Network
        Flows ``1to3``, ``1to2`` and ``2to3`` (TCP, with their RTTs [s]) over the two
        bottlenecks ``r1-eth1`` and ``r2-eth2``.

    Examples
    --------
    >>> network_lab53(Params()).flow_names
    ['1to3', '1to2', '2to3']
    """
    from labcalc.network import Flow, Link, Network

    rtt = 2 * p.lab53_one_way_delay_s
    eff = p.tcp_efficiency(accounting)
    links = {
        "h1-eth0": Link(1e9, delay_s=p.lab53_one_way_delay_s),
        "h2-eth0": Link(1e9, delay_s=p.lab53_one_way_delay_s),
        "r1-eth1": p.lab53_bottleneck_bps[0],
        "r2-eth2": p.lab53_bottleneck_bps[1],
    }
    flows = {
        "1to3": Flow(["h1-eth0", "r1-eth1", "r2-eth2"], rtt_s=rtt, efficiency=eff),
        "1to2": Flow(["h1-eth0", "r1-eth1"], rtt_s=rtt, efficiency=eff),
        "2to3": Flow(["h2-eth0", "r2-eth2"], rtt_s=rtt, efficiency=eff),
    }
    return Network(links, flows, name="lab53")


def udp_split(p: Params, scenario: int, accounting: str = "wire"):
    """Scenario A1/A2/A3 (``scenario`` = 0, 1, 2) through the drop-tail bottleneck.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    scenario : {0, 1, 2}
        Index into ``p.h2_udp_bps``: scenario A1, A2 or A3.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.openloop.FifoResult
        Rates, goodputs and losses of the UDP flows ``h1_udp`` and ``h2_udp`` [bit/s].

    Examples
    --------
    >>> res = udp_split(Params(), 1)
    >>> [round(float(g) / 1e6, 3) for g in res.goodputs]
    [0.938, 3.752]
    """
    from labcalc.openloop import fifo_split

    return fifo_split(network_lab51(p, p.h2_udp_bps[scenario], accounting=accounting))


def collapse(p: Params, accounting: str = "wire"):
    """Section 2 without congestion control: A and C send at their access rates.

    Parameters
    ----------
    p : Params
        The scenario (``Params()`` for the handout's numbers).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    labcalc.openloop.FifoResult
        Rates, goodputs and losses of flows ``AB`` and ``CD`` [bit/s].

    Examples
    --------
    >>> [round(float(r) / 1e6, 3) for r in collapse(Params()).rates]
    [0.136, 0.5]
    """
    from labcalc.openloop import fifo_split

    return fifo_split(network_lab52(p, "udp", accounting))


class _Computation:
    """One computation of the lab: a network built from the parameters, then a solver.

    Called as ``comp(params, *args)`` it builds and solves one variant's network (cached:
    several answers share it). Inside :func:`precompute` the result may come from a
    single solve of the disjoint union of many variants' networks
    (:meth:`labcalc.network.Network.union`), which is how graders' answer keys for a
    whole class are computed; every allocation of the package decomposes over networks
    that share no link, so the rates are those of separate solves.
    """

    def __init__(self, name: str, network: Callable, solve: Callable):
        self.name, self.network, self.solve = name, network, solve
        self._cached = functools.lru_cache(maxsize=64)(self._compute)
        self.cache_clear = self._cached.cache_clear

    def __repr__(self) -> str:
        return f"<lab5 computation {self.name}>"

    def _compute(self, p: Params, *args):
        return self.solve(self.network(p, *args), *args)

    def __call__(self, p: Params, *args):
        if _RECORDING is not None:
            _RECORDING.add((self, args))
        if _PREPARED:
            part = _PREPARED.get((self, p, args))
            if part is not None:
                return part
        return self._cached(p, *args)

    def many(self, params: list[Params], *args) -> list["_Part"]:
        """Results of many variants from one solve of their networks' union."""
        from labcalc.network import Network

        nets = [self.network(p, *args) for p in params]
        first = nets[0]
        if any(n.link_names != first.link_names or n.flow_names != first.flow_names for n in nets):
            raise ValueError(f"{self.name}: the variants' networks differ in shape")
        res = self.solve(Network.union(nets), *args)
        K, N, L = len(nets), first.n_flows, first.n_links

        def rows(series, width):
            return series.to_numpy(dtype=float).reshape(K, width)

        rates, goodputs = rows(res.rates, N), rows(res.goodputs, N)
        loss = rows(res.loss, N) if hasattr(res, "loss") else None
        accepted = rows(res.links["accepted"], L) if hasattr(res, "links") else None
        parts = []
        for k in range(K):
            parts.append(_Part(
                rates=dict(zip(first.flow_names, rates[k].tolist())),
                goodputs=dict(zip(first.flow_names, goodputs[k].tolist())),
                loss=None if loss is None else dict(zip(first.flow_names, loss[k].tolist())),
                links=None if accepted is None else {"accepted": dict(zip(first.link_names, accepted[k].tolist()))},
            ))
        return parts


@dataclass(frozen=True)
class _Part:
    """One variant's share of a solve over many variants: what the answers read."""

    rates: dict
    goodputs: dict
    loss: dict | None
    links: dict | None


_RECORDING: set | None = None  # (computation, args) called, while precompute discovers them
_PREPARED: dict = {}  # (computation, params, args) -> _Part, filled by precompute


def _fifo(net, *args):
    from labcalc.openloop import fifo_split

    return fifo_split(net)


def _fair(net, method, *args):
    from labcalc import fairness

    return fairness.max_min(net) if method == "maxmin" else fairness.proportional(net)


_udp_split = _Computation(
    "udp_split", lambda p, k, acc: network_lab51(p, p.h2_udp_bps[k], accounting=acc), _fifo)
_collapse = _Computation("collapse", lambda p, acc: network_lab52(p, "udp", acc), _fifo)
_b1 = _Computation(
    "b1", lambda p, acc: network_lab51(p, p.h2_udp_bps[0], with_tcp=True, accounting=acc),
    lambda net, acc: _fair(net, "maxmin"))
_fair52 = _Computation(
    "fair52", lambda p, method, transport, acc: network_lab52(p, transport, acc), _fair)
_lab53 = _Computation("lab53", lambda p, method, acc: network_lab53(p, acc), _fair)


@contextlib.contextmanager
def precompute(params: "list[Params]", accountings=("wire",), chunk: int = 2000):
    """Solve the networks of many variants together; inside, their answers come fast.

    Parameters
    ----------
    params : sequence of Params
        The variants (e.g. ``[variant(s) for s in seeds]``).
    accountings : sequence of str, default ("wire",)
        The accountings whose answers will be asked for.
    chunk : int, default 2000
        Variants per union network.

    Yields
    ------
    None
        Nothing: inside the ``with`` block, :func:`answers`, :func:`answer_values` and
        the answer keys of these variants use the precomputed results.

    Notes
    -----
    Which computations the answers need is found by computing the first variant's
    answers normally; each of them is then solved once for all variants, on the
    disjoint union of their networks, instead of once per variant (the answers of one
    variant in two accountings need 17 small solves, about 20 ms of mostly Python
    overhead). The results agree with one-by-one solves up to rounding (relative
    differences below 1e-12). Should a union solve fail, its results are simply
    computed per variant, as outside the context.

    Examples
    --------
    >>> import numpy as np
    >>> ps = [variant(s) for s in range(1, 4)]
    >>> with precompute(ps, ["wire"]):
    ...     together = [answer_values(p) for p in ps]
    >>> alone = [answer_values(p) for p in ps]
    >>> np.allclose(together, alone, rtol=1e-12, atol=0)
    True
    """
    global _RECORDING
    ps = list(dict.fromkeys(params))  # unique, in order
    added: list = []
    try:
        needed, first = [], len(ps)
        for k, p in enumerate(ps[:3]):
            # the first variant whose answers can be computed shows what is needed
            _RECORDING = set()
            try:
                for acc in accountings:
                    answer_values(p, acc)
            except (ValueError, ArithmeticError):
                continue
            finally:
                needed, _RECORDING = sorted(_RECORDING, key=repr), None
            first = k + 1
            break
        else:
            needed = []  # nothing to prepare: every variant is computed alone
        if needed:
            for start in range(first, len(ps), chunk):
                block = ps[start:start + chunk]
                for comp, args in needed:
                    try:
                        parts = comp.many(block, *args)
                    except (ValueError, ArithmeticError):
                        continue  # computed per variant when asked
                    for p, part in zip(block, parts):
                        key = (comp, p, args)
                        if key not in _PREPARED:
                            _PREPARED[key] = part
                            added.append(key)
        yield
    finally:
        for key in added:
            _PREPARED.pop(key, None)


def _reno_b(p: Params, k: int) -> float:
    from labcalc.tcp import mathis_rate_bps

    return float(mathis_rate_bps(p.tcp_segment_bytes, p.b_rtt_s[k], p.b_loss[k]))


def _handout_loss(sent_bps: float, goodput_bps: float) -> float:
    # The handout defines this loss as (rate sent - goodput received) / rate sent, with
    # the sent rate in link bits: it mixes headers into the loss (87.2 % instead of the
    # 86.4 % of packets dropped). Kept as defined so that the answer matches Q22.
    return (sent_bps - goodput_bps) / sent_bps


@functools.lru_cache(maxsize=4096)
def _d_shares(p: Params, k: int, accounting: str):
    from labcalc.tcp import rtt_shares

    capacity = p.bottleneck_bps * p.tcp_efficiency(accounting)
    rtts = [p.h3_delay_s + p.extra_delay_s[k], p.h3_delay_s]
    return rtt_shares(capacity, rtts)


@functools.lru_cache(maxsize=4096)
def _d1_shares(p: Params):
    from labcalc.tcp import rtt_shares

    rtt = p.h3_delay_s
    return rtt_shares(p.bottleneck_bps, [rtt, rtt], connections=list(p.d1_connections))


@functools.lru_cache(maxsize=4096)
def _queue_delays(p: Params):
    from labcalc.queueing import infer_queue_delays

    base = 2 * p.lab53_one_way_delay_s
    paths = {"1to2": ["router1"], "1to3": ["router1", "router2"], "2to3": ["router2"]}
    rtts = dict(zip(["1to2", "1to3", "2to3"], p.lab53_rtt_s))
    return infer_queue_delays(paths, rtts, {f: base for f in paths})


def _udp_goodput(k, host):
    def compute(p, acc):
        return float(_udp_split(p, k, acc).goodputs[f"{host}_udp"])

    return compute


def _udp_loss(k, host):
    def compute(p, acc):
        return float(_udp_split(p, k, acc).loss[f"{host}_udp"])

    return compute


def _eff_udp(p: Params, accounting: str) -> float:
    return 1.0 / p.udp_wire_factor(accounting)


def _eff_tcp(p: Params, accounting: str) -> float:
    return p.tcp_efficiency(accounting)


# Grading presets by kind: (display unit, rtol, atol in base units).
_GOODPUT = dict(kind="goodput", display_unit="Mbit/s")
_RATE = dict(kind="rate", display_unit="Mbit/s")
_LOSS = dict(kind="loss", display_unit="%", atol=0.001)  # 0.1 percentage point
_TIME = dict(kind="time", display_unit="ms", atol=0.0005)  # half a millisecond


def _rate(x: float) -> str:
    from labcalc.units import format_quantity

    return format_quantity(x, "bit/s")


def _time(x: float) -> str:
    from labcalc.units import format_quantity

    return format_quantity(x, "s")


def _label_fields(p: Params) -> dict[str, str]:
    """Fields of the answers' labels: the scenario's numbers, and the TCP option in short."""
    fields = _scenario_fields(p)
    fields["tcp_options_short"] = "with timestamps" if p.tcp_options_bytes else "without options"
    return fields


def _scenario_fields(p: Params) -> dict[str, str]:
    opts = p.tcp_options_bytes
    base = 2 * p.lab53_one_way_delay_s
    return {
        "C": _rate(p.bottleneck_bps),
        "payload": f"{p.udp_payload_bytes}",
        "seg": f"{p.tcp_segment_bytes}",
        "mss": f"{p.mss_bytes}",
        "tcp_options": f"a {opts}-byte TCP timestamp option" if opts else "no TCP option",
        "h1": _rate(p.h1_udp_bps),
        "h2_A1": _rate(p.h2_udp_bps[0]),
        "h2_A2": _rate(p.h2_udp_bps[1]),
        "h2_A3": _rate(p.h2_udp_bps[2]),
        "loss_B2": f"{100 * p.b_loss[0]:.4g} %",
        "loss_B3": f"{100 * p.b_loss[1]:.4g} %",
        "rtt_B2": _time(p.b_rtt_s[0]),
        "rtt_B3": _time(p.b_rtt_s[1]),
        "a_access": _rate(p.a_access_bps),
        "c_access": _rate(p.c_access_bps),
        "shared": _rate(p.shared_bps),
        "cd_exit": _rate(p.cd_exit_bps),
        "ab_exit": _rate(p.ab_exit_bps),
        "h3_delay": _time(p.h3_delay_s),
        "d1_h2": f"{p.d1_connections[1]}",
        "Y_D2": _time(p.extra_delay_s[0]),
        "Y_D3": _time(p.extra_delay_s[1]),
        "c53_1": _rate(p.lab53_bottleneck_bps[0]),
        "c53_2": _rate(p.lab53_bottleneck_bps[1]),
        "d53": _time(p.lab53_one_way_delay_s),
        "rtt53": _time(base),
        "rtt_1to2": _time(p.lab53_rtt_s[0]),
        "rtt_1to3": _time(p.lab53_rtt_s[1]),
        "rtt_2to3": _time(p.lab53_rtt_s[2]),
    }


def _answers() -> tuple[Answer, ...]:
    A = Answer
    out = [
        A("Q3", "bytes a {payload}-byte UDP datagram takes on the link (Ethernet frame)", "byte",
          lambda p, acc: p.udp_payload_bytes * p.udp_wire_factor(acc),
          prompt="{udp_size_q}",
          kind="size", display_unit="bytes", rtol=0.0, atol=0.5, efficiency=_eff_udp),
        A("Q4", "maximum UDP goodput through the {C} bottleneck", "bit/s",
          lambda p, acc: p.bottleneck_bps / p.udp_wire_factor(acc), 0.001,
          prompt="What is the highest application goodput that UDP can reach through this "
                 "interface when {counted}?",
          efficiency=_eff_udp, **_GOODPUT),
        A("Q8", "bytes a {seg}-byte TCP segment {tcp_options_short} takes on the link", "byte",
          lambda p, acc: p.tcp_segment_bytes / p.tcp_efficiency(acc),
          prompt="{tcp_size_q}",
          kind="size", display_unit="bytes", rtol=0.0, atol=0.5, efficiency=_eff_tcp),
        A("Q9", "maximum TCP goodput through the {C} bottleneck", "bit/s",
          lambda p, acc: p.bottleneck_bps * p.tcp_efficiency(acc), 0.001,
          prompt="With these frames, what is the highest goodput a TCP connection can reach "
                 "through the {C} interface?",
          efficiency=_eff_tcp, **_GOODPUT),
    ]
    for k, name in enumerate(("A1", "A2", "A3")):
        out += [
            A("Q13", f"{name}: goodput of h1 (UDP)", "bit/s", _udp_goodput(k, "h1"),
              prompt=f"Scenario {name}: what goodput does h1 receive?",
              efficiency=_eff_udp, **_GOODPUT),
            A("Q13", f"{name}: goodput of h2 (UDP)", "bit/s", _udp_goodput(k, "h2"),
              prompt=f"Scenario {name}: what goodput does h2 receive?",
              efficiency=_eff_udp, **_GOODPUT),
            A("Q13", f"{name}: loss of h1", "1", _udp_loss(k, "h1"), 0.01,
              prompt=f"Scenario {name}: which share of h1's packets is dropped?", **_LOSS),
            A("Q13", f"{name}: loss of h2", "1", _udp_loss(k, "h2"), 0.01,
              prompt=f"Scenario {name}: which share of h2's packets is dropped?", **_LOSS),
        ]
    out += [
        A("Q17", "B1: UDP traffic on the bottleneck, headers included", "bit/s",
          lambda p, acc: float((p.h1_udp_bps + p.h2_udp_bps[0]) * p.udp_wire_factor(acc)),
          prompt="How much of the bottleneck do the two UDP flows occupy, headers included?",
          efficiency=_eff_udp, **_RATE),
        A("Q17", "B1: rate left for h2's TCP connection", "bit/s",
          lambda p, acc: float(_b1(p, acc).rates["h2_tcp"]),
          prompt="Which link rate is left for the TCP connection?",
          efficiency=_eff_tcp, **_RATE),
        A("Q17", "B1: goodput of h2's TCP connection", "bit/s",
          lambda p, acc: float(_b1(p, acc).goodputs["h2_tcp"]),
          prompt="What goodput does the TCP connection obtain?",
          efficiency=_eff_tcp, paired=True, **_GOODPUT),
        A("Q17", "B1: goodput of h1 (UDP)", "bit/s",
          lambda p, acc: float(_b1(p, acc).goodputs["h1_udp"]),
          prompt="What goodput does h1's UDP flow obtain?", **_GOODPUT),
        A("Q17", "B1: goodput of h2 (UDP)", "bit/s",
          lambda p, acc: float(_b1(p, acc).goodputs["h2_udp"]),
          prompt="What goodput does h2's UDP flow obtain?", **_GOODPUT),
        A("Q19", "constant c of the Reno loss-throughput formula, sqrt(3/2)", "1",
          lambda p, acc: math.sqrt(1.5), 0.005,
          prompt="Give the value of c for Reno, whose window halves on a loss "
                 "(three significant digits).",
          kind="constant", display_unit=""),
        A("Q20", "B2: Reno loss-throughput rate with the measured loss and RTT", "bit/s",
          lambda p, acc: _reno_b(p, 0), 0.001,
          prompt="Scenario B2: which rate does the formula give?", **_RATE),
        A("Q20", "B3: Reno loss-throughput rate with the measured loss and RTT", "bit/s",
          lambda p, acc: _reno_b(p, 1), 0.001,
          prompt="Scenario B3: which rate does the formula give?", **_RATE),
        A("Q21", "share of the traffic accepted at N1 (link N1-N2)", "1",
          lambda p, acc: float(_collapse(p, acc).links["accepted"]["N1-N2"]),
          prompt="Which share of the traffic arriving at N1 does the link N1-N2 carry on?",
          kind="ratio", display_unit="%", atol=0.001),
        A("Q21", "rate of flow AB", "bit/s", lambda p, acc: float(_collapse(p, acc).rates["AB"]),
          prompt="At which link rate (headers included) does flow A->B arrive at B?",
          efficiency=_eff_udp, **_RATE),
        A("Q21", "rate of flow CD", "bit/s", lambda p, acc: float(_collapse(p, acc).rates["CD"]),
          prompt="At which link rate (headers included) does flow C->D arrive at D?",
          efficiency=_eff_udp, **_RATE),
        A("Q22", "goodput received by B", "bit/s",
          lambda p, acc: float(_collapse(p, acc).goodputs["AB"]),
          prompt="Which goodput does B receive?", efficiency=_eff_udp, paired=True, **_GOODPUT),
        A("Q22", "goodput received by D", "bit/s",
          lambda p, acc: float(_collapse(p, acc).goodputs["CD"]),
          prompt="Which goodput does D receive?", efficiency=_eff_udp, paired=True, **_GOODPUT),
        A("Q22", "loss of AB, (sent - goodput) / sent", "1",
          lambda p, acc: _handout_loss(p.a_access_bps, float(_collapse(p, acc).goodputs["AB"])), 0.002,
          prompt="Taking the loss of a flow as (sending rate - goodput received) / sending rate, "
                 "what is the loss of A->B?", **_LOSS),
        A("Q22", "loss of CD, (sent - goodput) / sent", "1",
          lambda p, acc: _handout_loss(p.c_access_bps, float(_collapse(p, acc).goodputs["CD"])), 0.002,
          prompt="With the same definition, what is the loss of C->D?", **_LOSS),
    ]

    def fair52(method, what, flow):
        def compute(p, acc):
            # the rates of a fair allocation depend on the link capacities only, not
            # on how frames are counted: solve once (wire) and reuse for every accounting
            alloc = _fair52(p, method, "udp", "wire" if what == "rates" else acc)
            return float(getattr(alloc, what)[flow])

        return compute

    out += [
        A("Q23", "max-min fair rate of A", "bit/s", fair52("maxmin", "rates", "AB"),
          prompt="Max-min fairness: at which rate does A send?", efficiency=_eff_udp, **_RATE),
        A("Q23", "max-min fair rate of C", "bit/s", fair52("maxmin", "rates", "CD"),
          prompt="Max-min fairness: at which rate does C send?", efficiency=_eff_udp, **_RATE),
        A("Q23", "max-min: goodput received by B", "bit/s", fair52("maxmin", "goodputs", "AB"),
          prompt="Max-min fairness: which goodput does B receive?",
          efficiency=_eff_udp, paired=True, **_GOODPUT),
        A("Q23", "max-min: goodput received by D", "bit/s", fair52("maxmin", "goodputs", "CD"),
          prompt="Max-min fairness: which goodput does D receive?",
          efficiency=_eff_udp, paired=True, **_GOODPUT),
        A("Q24", "proportionally fair rate of A", "bit/s", fair52("proportional", "rates", "AB"),
          prompt="Proportional fairness: at which rate does A send?", efficiency=_eff_udp, **_RATE),
        A("Q24", "proportionally fair rate of C", "bit/s", fair52("proportional", "rates", "CD"),
          prompt="Proportional fairness: at which rate does C send?", efficiency=_eff_udp, **_RATE),
    ]

    def tcp52(flow):
        def compute(p, acc):
            return float(_fair52(p, "maxmin", "tcp", acc).goodputs[flow])

        return compute

    def d1(k):
        return lambda p, acc: float(_d1_shares(p)[k])

    def d23(k, host):
        return lambda p, acc: float(_d_shares(p, k, acc)[host])

    out += [
        A("Q27", "expected TCP goodput of h1 -> h4 (AB)", "bit/s", tcp52("AB"),
          prompt="Which goodput do you expect for A->B?", efficiency=_eff_tcp, **_GOODPUT),
        A("Q27", "expected TCP goodput of h2 -> h3 (CD)", "bit/s", tcp52("CD"),
          prompt="Which goodput do you expect for C->D?", efficiency=_eff_tcp, **_GOODPUT),
        A("Q29", "RTT h3 -> h1 with {h3_delay} added on h3-eth0", "s",
          lambda p, acc: p.h3_delay_s + 0.0,
          prompt="Which RTT does h3 measure when it pings h1?", **_TIME),
        A("Q31", "D1: rate of h1's connection", "bit/s", d1(0),
          prompt="Which rate does h1's connection get?", efficiency=_eff_tcp, **_RATE),
        A("Q31", "D1: aggregate rate of h2's {d1_h2} connections", "bit/s", d1(1),
          prompt="Which rate do h2's connections get together?", efficiency=_eff_tcp, **_RATE),
        A("Q35", "D2: goodput of h1", "bit/s", d23(0, 0), 0.01,
          prompt="Scenario D2: which goodput does h1 get?", efficiency=_eff_tcp, **_GOODPUT),
        A("Q35", "D2: goodput of h2", "bit/s", d23(0, 1), 0.01,
          prompt="Scenario D2: which goodput does h2 get?", efficiency=_eff_tcp, **_GOODPUT),
        A("Q35", "D3: goodput of h1", "bit/s", d23(1, 0), 0.01,
          prompt="Scenario D3: which goodput does h1 get?", efficiency=_eff_tcp, **_GOODPUT),
        A("Q35", "D3: goodput of h2", "bit/s", d23(1, 1), 0.01,
          prompt="Scenario D3: which goodput does h2 get?", efficiency=_eff_tcp, **_GOODPUT),
    ]

    def f53(method, flow):
        # rates only: the same in every accounting (see fair52)
        return lambda p, acc: float(_lab53(p, method, "wire").rates[flow])

    out += [A("Q39", f"max-min fair rate of {f}", "bit/s", f53("maxmin", f),
              prompt=f"Max-min fairness: which rate does {f} get?", efficiency=_eff_tcp, **_RATE)
            for f in ("1to3", "1to2", "2to3")]
    out += [A("Q40", f"proportionally fair rate of {f}", "bit/s", f53("proportional", f),
              prompt=f"Proportional fairness: which rate does {f} get?", efficiency=_eff_tcp, **_RATE)
            for f in ("1to3", "1to2", "2to3")]
    out += [
        A("Q41", "RTT of each connection without queueing", "s",
          lambda p, acc: 2 * p.lab53_one_way_delay_s,
          prompt="Ignoring queueing, what is the RTT of each of the three connections?", **_TIME),
        A("Q44", "queueing delay at router 2 (both directions)", "s",
          lambda p, acc: float(_queue_delays(p)["router2"]), 0.01,
          prompt="Which queueing delay (both directions together) does router 2 add?",
          rtol=0.02, **_TIME),
        A("Q44", "queueing delay at router 1 (both directions)", "s",
          lambda p, acc: float(_queue_delays(p)["router1"]), 0.01,
          prompt="Which queueing delay (both directions together) does router 1 add?",
          rtol=0.02, **_TIME),
    ]
    counts: dict[str, int] = {}
    for a in out:
        counts[a.question] = counts.get(a.question, 0) + 1
    seen: dict[str, int] = {}
    numbered = []
    for a in out:
        seen[a.question] = seen.get(a.question, 0) + 1
        answer_id = a.question if counts[a.question] == 1 else f"{a.question}.{seen[a.question]}"
        # the item is a template of the scenario's numbers: stored as the template
        # and as the handout's text (what tables of the handout show)
        numbered.append(replace(a, id=answer_id, item_template=a.item,
                                item=a.item.format(**_label_fields(Params()))))
    return tuple(numbered)


#: Every theory answer of the handout, in question order.
ANSWERS: tuple[Answer, ...] = _answers()


def answers(params: Params | None = None, accounting: str = "wire"):
    """Every theory answer of the handout, computed from the parameters.

    Parameters
    ----------
    params : Params, optional
        Scenario parameters; the handout's by default.
    accounting : {"wire", "tc", "frame", "ip"}, default "wire"
        How frames are counted against link capacities. ``"wire"`` reproduces the
        handout's theory; ``"tc"`` predicts what Mininet's Linux shaper measures.

    Returns
    -------
    pandas.DataFrame
        Columns ``question``, ``item``, ``value`` (float, base units), ``unit``
        (``"bit/s"``, ``"byte"``, ``"s"`` or ``"1"``; losses and ratios as fractions),
        ``rounding`` (relative tolerance of the handout's printed values).

    Examples
    --------
    >>> df = answers()
    >>> q13 = df[df.question == "Q13"]
    >>> [round(float(v) / 1e6, 3) for v in q13.value.iloc[4:6]]
    [0.938, 3.752]
    >>> tc = answers(accounting="tc")
    >>> round(float(tc[tc.question == "Q4"].value.iloc[0]) / 1e3, 1)
    4798.5
    """
    import pandas as pd

    values = answer_values(params, accounting)
    return pd.DataFrame({
        "question": [a.question for a in ANSWERS],
        "item": [a.label(params) for a in ANSWERS],
        "value": values,
        "unit": [a.unit for a in ANSWERS],
        "rounding": [a.handout_rounding for a in ANSWERS],
    })


def answer_values(params: Params | None = None, accounting: str = "wire"):
    """The values of :func:`answers` alone, as an array in ``ANSWERS`` order [base units].

    What graders' answer keys use: the same computation without building a table.

    Parameters
    ----------
    params : Params, optional
        The scenario (the handout's by default).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    numpy.ndarray
        One value per answer, in the answer's base unit (bit/s, byte, s or 1).

    Examples
    --------
    >>> v = answer_values()
    >>> len(v) == len(ANSWERS), round(float(v[1]) / 1e3, 1)
    (True, 4690.4)
    """
    import numpy as np

    from labcalc.framing import ACCOUNTINGS

    if accounting not in ACCOUNTINGS:
        raise ValueError(f"accounting must be one of {', '.join(ACCOUNTINGS)}; got {accounting!r}")
    p = Params() if params is None else params
    return np.array([a.compute(p, accounting) for a in ANSWERS], dtype=float)


def shaper_vs_wire(params: Params | None = None):
    """The answers under the handout's wire accounting and under the Linux shaper's.

    Parameters
    ----------
    params : Params, optional
        The scenario (the handout's by default).

    Returns
    -------
    pandas.DataFrame
        Columns ``question``, ``item``, ``unit``, ``wire``, ``tc`` and ``ratio``
        (tc / wire), for the answers that depend on the accounting.

    Notes
    -----
    Mininet shapes r1-eth1 with a Linux qdisc that charges each packet its length
    from the Ethernet header to the end of the IP packet: 1042 bytes for a 1000-byte
    UDP datagram, 1514 for a 1448-byte TCP segment. The measured UDP goodput of Q7
    (4798 kbit/s) and TCP goodput of Q10 (4782 kbit/s) match 5e6 x 1000/1042 and
    5e6 x 1448/1514 to the kbit/s; the Q14 losses (3.6-4.1 % in A2, 51-52 % in A3) sit
    close to the shaper's 4.0 % and 52.0 %, not to the wire's 6.2 % and 53.1 %.

    Examples
    --------
    >>> df = shaper_vs_wire()
    >>> row = df[df.item.str.startswith("maximum TCP")].iloc[0]
    >>> round(row.wire / 1e3), round(row.tc / 1e3)
    (4849, 4782)
    """
    wire = answers(params, "wire")
    tc = answers(params, "tc")
    out = wire[["question", "item", "unit"]].copy()
    out["wire"] = wire["value"]
    out["tc"] = tc["value"]
    out["ratio"] = tc["value"] / wire["value"]
    differs = (out["wire"] - out["tc"]).abs() > 1e-9 * out["wire"].abs()
    return out[differs].reset_index(drop=True)


def with_params(**changes) -> Params:
    """The handout's parameters with some changed (a thin wrapper over ``replace``).

    Examples
    --------
    >>> with_params(bottleneck_bps=10e6).bottleneck_bps
    10000000.0
    """
    return replace(Params(), **changes)


# --- questions as data: context, prompts, variants ---------------------------------

#: The situation each question is about, in our words; :meth:`Answer.text` puts it
#: before the answer's prompt. Fields in braces come from :func:`prompt_fields`.
QUESTION_CONTEXT: dict[str, str] = {
    "Q3": "A UDP client sends datagrams that carry {payload} bytes of application data "
          "each over Ethernet.",
    "Q4": "The router's interface toward h3 is shaped to {C}, and the UDP datagrams carry "
          "{payload} bytes of data each.",
    "Q8": "A packet capture on the sender shows TCP segments that carry {seg} bytes of data "
          "each and {tcp_options}.",
    "Q9": "The TCP segments carry {seg} bytes of data each and {tcp_options}; each one is "
          "{tcp_frames}.",
    "Q13": "h1 and h2 send UDP datagrams of {payload} bytes of data to h3 through a {C} "
           "drop-tail bottleneck that {link_counts}. h1 sends at {h1}; h2 "
           "sends at {h2_A1} in scenario A1, {h2_A2} in A2 and {h2_A3} in A3. Without "
           "congestion control, an overloaded queue drops the same share of every flow.",
    "Q17": "Scenario B1: h1 sends UDP at {h1} and h2 at {h2_A1} ({payload}-byte datagrams) "
           "through the {C} bottleneck, while a long TCP transfer from h2 takes whatever "
           "capacity the UDP flows leave; each TCP segment ({seg} bytes of data, "
           "{tcp_options}) {tcp_counts}.",
    "Q19": "Reno's loss-throughput formula predicts a rate of c * L / (RTT * sqrt(q)) for "
           "segments of L bits, a round-trip time RTT and a loss probability q.",
    "Q20": "A TCP connection sends {seg}-byte segments and sees the loss of h2's UDP flow: "
           "{loss_B2} with an RTT of {rtt_B2} in scenario B2, {loss_B3} with an RTT of "
           "{rtt_B3} in B3. Use Reno's loss-throughput formula with c = sqrt(3/2).",
    "Q21": "Flow A->B crosses links A-N1 ({a_access}), N1-N2 ({shared}) and N2-B "
           "({ab_exit}); flow C->D crosses C-N1 ({c_access}), N1-N2 and N2-D ({cd_exit}). "
           "Without congestion control, A and C send UDP ({payload}-byte datagrams) at the "
           "full speed of their access links; queues are drop-tail and {links_count}.",
    "Q22": "Same network and traffic as before: A and C send UDP at the full speed of "
           "their access links ({a_access} and {c_access}) without congestion control.",
    "Q23": "In the same network (A-N1 {a_access}, C-N1 {c_access}, N1-N2 {shared}, N2-D "
           "{cd_exit}, N2-B {ab_exit}), A and C now send at the rates of the max-min fair "
           "allocation, counted on the links with headers ({payload}-byte datagrams).",
    "Q24": "Same network (A-N1 {a_access}, C-N1 {c_access}, N1-N2 {shared}, N2-D "
           "{cd_exit}, N2-B {ab_exit}), now with the proportionally fair allocation of the "
           "link rates.",
    "Q27": "A and C now use TCP in the same network (A-N1 {a_access}, C-N1 {c_access}, "
           "N1-N2 {shared}, N2-D {cd_exit}); each segment ({seg} bytes of data, {tcp_options}) "
           "{tcp_counts}, and TCP is expected to reach the max-min fair rates.",
    "Q29": "An extra delay of {h3_delay} is added to every packet that leaves h3-eth0 (one "
           "direction only).",
    "Q31": "Scenario D1: through the {C} bottleneck, h1 opens one TCP connection to h3 and "
           "h2 opens {d1_h2} connections; all of them have the same RTT and the link is "
           "shared per connection.",
    "Q35": "Scenarios D2 and D3: h1 and h2 each open one TCP connection to h3 through the "
           "{C} bottleneck. h2's RTT is {h3_delay}; h1's is longer by {Y_D2} in D2 and by "
           "{Y_D3} in D3. Assume each connection gets a rate inversely proportional to its "
           "RTT and that together they fill the link; each segment ({seg} bytes of data, "
           "{tcp_options}) {tcp_counts}.",
    "Q39": "Three TCP connections share two routers: 1to3 crosses router 1 ({c53_1}) and "
           "router 2 ({c53_2}), 1to2 crosses router 1 only and 2to3 router 2 only.",
    "Q40": "Same three connections (1to3 through router 1 at {c53_1} and router 2 at "
           "{c53_2}, 1to2 through router 1, 2to3 through router 2).",
    "Q41": "An extra delay of {d53} is added to the packets leaving h1-eth0, h2-eth0 and "
           "h3-eth0 (one direction each); every connection crosses two of these interfaces "
           "per round trip.",
    "Q44": "Without queueing every connection would have an RTT of {rtt53}. The measured "
           "average RTTs are {rtt_1to2} for 1to2 (router 1), {rtt_1to3} for 1to3 (both "
           "routers) and {rtt_2to3} for 2to3 (router 2).",
}


#: How the question texts say which bytes the links count, per accounting; fields of
#: :func:`prompt_fields` (their own ``{mss}`` is filled in from the scenario).
ACCOUNTING_PHRASES: dict[str, dict[str, str]] = {
    "wire": {
        "udp_size_q": "How many bytes of link time does one datagram take, counting the preamble "
                      "and SFD, the Ethernet, IP and UDP headers, the FCS and the inter-frame gap?",
        "counted": "every byte the frames take on the wire is counted",
        "tcp_size_q": "Counting such a segment as a single Ethernet frame, how many bytes of link "
                      "time does it take (preamble, all headers, FCS and inter-frame gap included)?",
        "tcp_frames": "counted as a single Ethernet frame on the wire",
        "tcp_counts": "counts as one frame on the wire",
        "link_counts": "counts every byte on the wire",
        "links_count": "every wire byte counts",
    },
    "frame": {
        "udp_size_q": "How many bytes does one datagram take as an Ethernet frame, counting the "
                      "Ethernet, IP and UDP headers and the FCS (but not the preamble, SFD or "
                      "inter-frame gap)?",
        "counted": "the link counts whole Ethernet frames (headers and FCS, but not the "
                   "preamble or the inter-frame gap)",
        "tcp_size_q": "Counting such a segment as a single Ethernet frame, how many bytes does "
                      "the frame take (all headers and the FCS, without preamble or inter-frame "
                      "gap)?",
        "tcp_frames": "counted as a single Ethernet frame (headers and FCS, without preamble or "
                      "inter-frame gap)",
        "tcp_counts": "counts as one Ethernet frame (headers and FCS, no preamble or gap)",
        "link_counts": "counts Ethernet frames (headers and FCS, no preamble or gap)",
        "links_count": "the links count Ethernet frames (headers and FCS, no preamble or gap)",
    },
    "tc": {
        "udp_size_q": "How many bytes does the Linux shaper charge for one datagram, counting the "
                      "Ethernet header and the IP packet (IP and UDP headers and data) but not "
                      "the FCS, preamble or gap?",
        "counted": "the link counts what the Linux shaper counts (the Ethernet header and the "
                   "IP packet of each frame)",
        "tcp_size_q": "Segmentation offload sends such a segment as {mss}-byte packets; how many "
                      "bytes does the Linux shaper charge for the whole segment (the Ethernet "
                      "header and IP packet of each packet)?",
        "tcp_frames": "sent as {mss}-byte packets (segmentation offload), and the Linux shaper "
                      "counts the Ethernet header and IP packet of each",
        "tcp_counts": "leaves as {mss}-byte packets, each counted with its Ethernet header and "
                      "IP packet as the Linux shaper does",
        "link_counts": "counts what the Linux shaper counts (the Ethernet header and IP packet "
                       "of each frame)",
        "links_count": "the links count the Ethernet header and IP packet of each frame, as the "
                       "Linux shaper does",
    },
    "ip": {
        "udp_size_q": "How many bytes is the IP packet of one datagram (IP and UDP headers and "
                      "data)?",
        "counted": "only the IP packets are counted (no Ethernet header, FCS, preamble or gap)",
        "tcp_size_q": "Counting such a segment as a single IP packet, how many bytes does the "
                      "packet take (IP and TCP headers and data)?",
        "tcp_frames": "counted as a single IP packet (IP and TCP headers and data)",
        "tcp_counts": "counts as one IP packet (IP and TCP headers and data)",
        "link_counts": "counts the IP packets only",
        "links_count": "the links count the IP packets only",
    },
}


def prompt_fields(params: Params | None = None, accounting: str = "wire") -> dict[str, str]:
    """The scenario numbers that question texts quote, formatted for reading.

    Parameters
    ----------
    params : Params, optional
        The handout's parameters by default.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count: the phrases of
        :data:`ACCOUNTING_PHRASES` that say so are added to the fields.

    Returns
    -------
    dict of str
        For example ``{"C": "5 Mbit/s", "payload": "1000", "h3_delay": "300 ms", ...}``,
        then the accounting phrases (``"counted"``, ``"tcp_counts"``...).

    Examples
    --------
    >>> f = prompt_fields()
    >>> f["C"], f["h2_A3"], f["loss_B2"], f["rtt53"]
    ('5 Mbit/s', '9 Mbit/s', '22 %', '300 ms')
    >>> prompt_fields(accounting="tc")["tcp_counts"][:23]
    'leaves as 1448-byte pac'
    """
    if accounting not in ACCOUNTING_PHRASES:
        raise ValueError(f"accounting must be one of {', '.join(ACCOUNTING_PHRASES)}; got {accounting!r}")
    fields = _scenario_fields(Params() if params is None else params)
    for name, phrase in ACCOUNTING_PHRASES[accounting].items():
        fields[name] = phrase.format(**fields)
    return fields


def get_answer(answer_id: str) -> Answer:
    """The :class:`Answer` with id ``answer_id`` (``"Q4"``, ``"Q13.6"``...).

    Parameters
    ----------
    answer_id : str
        Answer id: a question id, followed by ``.n`` for the n-th number it asks for.

    Returns
    -------
    Answer
        The answer of that id.

    Raises
    ------
    KeyError
        For an unknown id; the message lists a few valid ones.

    Examples
    --------
    >>> get_answer("Q13.6").item
    'A2: goodput of h2 (UDP)'
    """
    for a in ANSWERS:
        if a.id == answer_id:
            return a
    raise KeyError(f"no answer {answer_id!r} in lab5 (ids look like Q4, Q13.6, Q44.2)")


def questions(params: Params | None = None, accounting: str = "wire"):
    """Every answer of the handout as a table a grader can read or export.

    Parameters
    ----------
    params : Params, optional
        Scenario whose numbers the ``text`` column quotes (the handout's by default).
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count, as the texts say it.

    Returns
    -------
    pandas.DataFrame
        One row per answer, indexed by ``id``: ``question``, ``item``, ``text`` (context
        and prompt, in our words), ``kind``, ``unit`` (base unit), ``display_unit``,
        ``rtol``, ``atol`` (base units), ``points``.

    Examples
    --------
    >>> q = questions()
    >>> len(q), float(q.points.sum())
    (55, 55.0)
    >>> row = q.loc["Q13.10"]
    >>> row.kind, row.display_unit, float(row.rtol)
    ('goodput', 'Mbit/s', 0.01)
    """
    import pandas as pd

    p = Params() if params is None else params
    rows = [
        (a.id, a.question, a.label(p), a.text(p, accounting), a.kind, a.unit, a.display_unit, a.rtol, a.atol,
         float(a.points))
        for a in ANSWERS
    ]
    cols = ["id", "question", "item", "text", "kind", "unit", "display_unit", "rtol", "atol",
            "points"]
    return pd.DataFrame(rows, columns=cols).set_index("id")


#: Largest seed accepted by :func:`variant` (seeds are 0 .. MAX_SEED).
MAX_SEED = 2**63 - 1


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        try:
            import numpy as np

            if isinstance(seed, np.integer):
                seed = int(seed)
        except ImportError:  # pragma: no cover
            pass
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number between 0 and 2**63 - 1; got {seed!r}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be between 0 and 2**63 - 1; got {seed}")
    return seed


@functools.lru_cache(maxsize=1024)
def variant(seed: int) -> Params:
    """Scenario parameters of variant ``seed``: each student gets their own numbers.

    Parameters
    ----------
    seed : int
        0 .. 2**63 - 1. Seed 0 is the handout's own scenario; any other seed draws
        new parameters. The same seed always gives the same parameters (the draw
        uses :class:`random.Random`, whose integer stream Python keeps stable).

    Returns
    -------
    Params
        The answer key of the variant follows: ``answers(variant(seed))``.

    Notes
    -----
    The ranges keep every scenario of the handout meaningful:

    - bottleneck 2-10 Mbit/s; UDP payload 500-1400 bytes; TCP with or without the
      timestamp option (MSS 1448 or 1460), segments of two MSS as captured with
      offload;
    - h1 sends at 10-30 % of the bottleneck; with h2, the UDP load is at most 60 %
      of it in A1/B1 (so no loss and room for TCP), 100-115 % in A2 (just
      overloaded once headers count) and 160-250 % in A3;
    - B2/B3 loss 10-30 % and 40-60 %, RTTs 40-90 ms;
    - collapse network: access links A 0.6-2 Mbit/s, C 5-20 Mbit/s (at least four
      times the shared link), shared link 1-2.5 Mbit/s, exit link of C->D
      0.2-0.8 Mbit/s (narrower than the shared link), never exactly half of it;
    - added delay on h3 100-400 ms; 2-4 connections on h2 in D1; extra delay of h1
      200-600 ms (D2) and 800-1200 ms (D3);
    - two-router network: capacities 2-10 Mbit/s each, one-way delays 50-200 ms,
      queueing delays 5-60 ms per router in the measured RTTs.

    Rates are drawn on a 100 kbit/s grid and times on a millisecond grid, so that
    question texts show round numbers.

    Examples
    --------
    >>> variant(0) == Params()
    True
    >>> v = variant(7)
    >>> v == variant(7), v == variant(8)
    (True, False)
    >>> 2e6 <= v.bottleneck_bps <= 10e6
    True
    """
    import random

    seed = _check_seed(seed)
    if seed == 0:
        return Params()
    rng = random.Random(seed)
    k = 100e3  # rate grid [bit/s]

    def rate_between(lo_bps, hi_bps):
        lo, hi = math.ceil(lo_bps / k - 1e-9), math.floor(hi_bps / k + 1e-9)
        return rng.randint(max(lo, 1), max(hi, lo, 1)) * k

    def ms_between(lo, hi, step=1):
        return rng.randrange(lo, hi + 1, step) / 1000

    cap = rng.choice([2, 3, 4, 5, 6, 8, 10]) * 1e6
    payload = rng.choice([500, 600, 800, 1000, 1200, 1400])
    options = rng.choice([0, 12])
    mss = 1460 - options
    h1 = rate_between(0.1 * cap, 0.3 * cap)
    h2_a1 = rate_between(0.05 * cap, 0.6 * cap - h1)
    h2_a2 = rate_between(1.0 * cap - h1, 1.15 * cap - h1)
    h2_a3 = rate_between(1.6 * cap - h1, 2.5 * cap - h1)
    loss = (rng.randint(10, 30) / 100, rng.randint(40, 60) / 100)
    rtts = (ms_between(40, 90), ms_between(40, 90))
    # neither A's access link nor C's exit link is ever exactly half the shared link:
    # a bound that ties with the even split makes the proportionally fair optimum
    # degenerate (two active constraints for one rate), which solvers handle badly
    shared = rng.choice([1.0, 1.5, 2.0, 2.5]) * 1e6
    a_access = rng.choice([0.6, 0.8, 1.2, 1.6, 2.0]) * 1e6
    cd_exit = rng.choice([0.2, 0.3, 0.4, 0.6, 0.7, 0.8]) * 1e6
    c_access = max(rng.choice([5, 8, 10, 20]) * 1e6, 4 * shared)
    one_way = ms_between(50, 200, 10)
    q1, q2 = ms_between(5, 60, 5), ms_between(5, 60, 5)
    base = 2 * one_way
    return Params(
        bottleneck_bps=cap,
        udp_payload_bytes=payload,
        tcp_segment_bytes=2 * mss,
        tcp_options_bytes=options,
        mss_bytes=mss,
        h1_udp_bps=h1,
        h2_udp_bps=(h2_a1, h2_a2, h2_a3),
        b_loss=loss,
        b_rtt_s=rtts,
        a_access_bps=a_access,
        c_access_bps=c_access,
        shared_bps=shared,
        cd_exit_bps=cd_exit,
        ab_exit_bps=10e6,
        h3_delay_s=ms_between(100, 400, 50),
        d1_connections=(1, rng.randint(2, 4)),
        extra_delay_s=(ms_between(200, 600, 100), ms_between(800, 1200, 100)),
        lab53_bottleneck_bps=(rng.choice([2, 3, 4, 5, 6, 8, 10]) * 1e6,
                              rng.choice([2, 3, 4, 5, 6, 8, 10]) * 1e6),
        lab53_one_way_delay_s=one_way,
        lab53_rtt_s=(round(base + q1, 6), round(base + q1 + q2, 6), round(base + q2, 6)),
    )


def variant_for(student_id: str, course_salt: str) -> int:
    """The variant seed of a student: a hash of the course salt and the student id.

    Parameters
    ----------
    student_id : str
        As it appears in the class list (leading and trailing spaces are ignored).
    course_salt : str
        A secret per course and year, so that seeds cannot be predicted from ids and
        differ from one year to the next.

    Returns
    -------
    int
        A seed in 1 .. 2**63 - 1 (never 0, the handout's own numbers). SHA-256 makes
        it the same on every machine and Python version.

    Examples
    --------
    >>> variant_for("alice", "tcpip-2025") == variant_for(" alice ", "tcpip-2025")
    True
    >>> variant_for("alice", "tcpip-2025") != variant_for("alice", "tcpip-2026")
    True
    """
    import hashlib

    if not isinstance(student_id, str) or not student_id.strip():
        raise ValueError(f"student_id must be a non-empty string; got {student_id!r}")
    if not isinstance(course_salt, str):
        raise ValueError(f"course_salt must be a string; got {course_salt!r}")
    digest = hashlib.sha256(f"{course_salt}\x1f{student_id.strip()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % MAX_SEED + 1
