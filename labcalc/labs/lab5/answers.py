"""Lab 5's answers: every theory question of the handout as an :class:`Answer`.

Examples
--------
>>> get_answer("Q4").unit
'bit/s'
"""

from __future__ import annotations

import math
from dataclasses import replace

from labcalc.labs import _framework
from labcalc.labs._framework import Answer, AnswerTexts
from labcalc.labs.lab5.networks import (
    solve_b1, solve_collapse, d1_shares, d_shares, solve_fair52, handout_loss, solve_lab53, queue_delays, reno_rate_bps,
    solve_udp_split,
)
from labcalc.labs.lab5.params import Params
from labcalc.labs.lab5.prompts import QUESTION_CONTEXT, label_fields, prompt_fields

__all__ = ["ANSWERS", "answers", "answer_values", "shaper_vs_wire", "get_answer", "questions"]


def _udp_goodput(k, host):
    def compute(p, acc):
        return float(solve_udp_split(p, k, acc).goodputs[f"{host}_udp"])

    return compute


def _udp_loss(k, host):
    def compute(p, acc):
        return float(solve_udp_split(p, k, acc).loss[f"{host}_udp"])

    return compute


def _udp_frame(p: Params):
    """One UDP datagram of the variant's payload as a frame (its size in each accounting)."""
    from labcalc import framing

    return framing.frame(p.udp_payload_bytes, "udp")


def _eff_udp(p: Params, accounting: str) -> float:
    return 1.0 / p.udp_wire_factor(accounting)


def _eff_tcp(p: Params, accounting: str) -> float:
    return p.tcp_efficiency(accounting)


# Grading presets by kind: (display unit, rtol, atol in base units).
_GOODPUT = dict(kind="goodput", display_unit="Mbit/s")
_RATE = dict(kind="rate", display_unit="Mbit/s")
_LOSS = dict(kind="loss", display_unit="%", atol=0.001)  # 0.1 percentage point
_TIME = dict(kind="time", display_unit="ms", atol=0.0005)  # half a millisecond


#: Lab 5's default parameters and text fields, shared by every answer.
_TEXTS = AnswerTexts(default_params=Params, label_fields=label_fields, prompt_fields=prompt_fields)


def _answers() -> tuple[Answer, ...]:
    A = Answer
    # Long because it is a table: one Answer declaration per handout question, in
    # question order.
    out = [
        A("Q3", "bytes a {payload}-byte UDP datagram takes on the link (Ethernet frame)", "byte",
          lambda p, acc: float(_udp_frame(p).bytes(acc)),  # whole bytes, no float noise
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
                 "through a {C} interface?",
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
          lambda p, acc: float(solve_b1(p, acc).rates["h2_tcp"]),
          prompt="Which link rate is left for the TCP connection?",
          efficiency=_eff_tcp, **_RATE),
        A("Q17", "B1: goodput of h2's TCP connection", "bit/s",
          lambda p, acc: float(solve_b1(p, acc).goodputs["h2_tcp"]),
          prompt="What goodput does the TCP connection obtain?",
          efficiency=_eff_tcp, paired=True, **_GOODPUT),
        A("Q17", "B1: goodput of h1 (UDP)", "bit/s",
          lambda p, acc: float(solve_b1(p, acc).goodputs["h1_udp"]),
          prompt="What goodput does h1's UDP flow obtain?", **_GOODPUT),
        A("Q17", "B1: goodput of h2 (UDP)", "bit/s",
          lambda p, acc: float(solve_b1(p, acc).goodputs["h2_udp"]),
          prompt="What goodput does h2's UDP flow obtain?", **_GOODPUT),
        A("Q19", "constant c of the Reno loss-throughput formula, sqrt(3/2)", "1",
          lambda p, acc: math.sqrt(1.5), 0.005,
          prompt="Give the value of c for Reno, whose window halves on a loss "
                 "(three significant digits).",
          kind="constant", display_unit=""),
        A("Q20", "B2: Reno loss-throughput rate with the measured loss and RTT", "bit/s",
          lambda p, acc: reno_rate_bps(p, 0), 0.001,
          prompt="Scenario B2: which rate does the formula give?", **_RATE),
        A("Q20", "B3: Reno loss-throughput rate with the measured loss and RTT", "bit/s",
          lambda p, acc: reno_rate_bps(p, 1), 0.001,
          prompt="Scenario B3: which rate does the formula give?", **_RATE),
        A("Q21", "share of the traffic accepted at N1 (link N1-N2)", "1",
          lambda p, acc: float(solve_collapse(p, acc).links["accepted"]["N1-N2"]),
          prompt="Which share of the traffic arriving at N1 does the link N1-N2 carry on?",
          kind="ratio", display_unit="%", atol=0.001),
        A("Q21", "rate of flow AB", "bit/s", lambda p, acc: float(solve_collapse(p, acc).rates["AB"]),
          prompt="At which link rate (headers included) does flow A->B arrive at B?",
          efficiency=_eff_udp, **_RATE),
        A("Q21", "rate of flow CD", "bit/s", lambda p, acc: float(solve_collapse(p, acc).rates["CD"]),
          prompt="At which link rate (headers included) does flow C->D arrive at D?",
          efficiency=_eff_udp, **_RATE),
        A("Q22", "goodput received by B", "bit/s",
          lambda p, acc: float(solve_collapse(p, acc).goodputs["AB"]),
          prompt="Which goodput does B receive?", efficiency=_eff_udp, paired=True, **_GOODPUT),
        A("Q22", "goodput received by D", "bit/s",
          lambda p, acc: float(solve_collapse(p, acc).goodputs["CD"]),
          prompt="Which goodput does D receive?", efficiency=_eff_udp, paired=True, **_GOODPUT),
        A("Q22", "loss of AB, (sent - goodput) / sent", "1",
          lambda p, acc: handout_loss(p.a_access_bps, float(solve_collapse(p, acc).goodputs["AB"])), 0.002,
          prompt="Taking the loss of a flow as (sending rate - goodput received) / sending rate, "
                 "what is the loss of A->B?", **_LOSS),
        A("Q22", "loss of CD, (sent - goodput) / sent", "1",
          lambda p, acc: handout_loss(p.c_access_bps, float(solve_collapse(p, acc).goodputs["CD"])), 0.002,
          prompt="Taking the loss of a flow as (sending rate - goodput received) / sending rate, "
                 "what is the loss of C->D?", **_LOSS),
    ]

    def fair52(method, what, flow):
        def compute(p, acc):
            # the rates of a fair allocation depend on the link capacities only, not
            # on how frames are counted: solve once (wire) and reuse for every accounting
            alloc = solve_fair52(p, method, "udp", "wire" if what == "rates" else acc)
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
            return float(solve_fair52(p, "maxmin", "tcp", acc).goodputs[flow])

        return compute

    def d1(k):
        return lambda p, acc: float(d1_shares(p)[k])

    def d23(k, host):
        return lambda p, acc: float(d_shares(p, k, acc)[host])

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
        return lambda p, acc: float(solve_lab53(p, method, "wire").rates[flow])

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
          lambda p, acc: float(queue_delays(p)["router2"]), 0.01,
          prompt="Which queueing delay (both directions together) does router 2 add?",
          rtol=0.02, **_TIME),
        A("Q44", "queueing delay at router 1 (both directions)", "s",
          lambda p, acc: float(queue_delays(p)["router1"]), 0.01,
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
                                item=a.item.format(**label_fields(Params())),
                                context=QUESTION_CONTEXT.get(a.question, ""), texts=_TEXTS))
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
    return _framework.answer_values(ANSWERS, Params() if params is None else params, accounting)


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
    return _framework.questions_table(ANSWERS, Params() if params is None else params, accounting)

