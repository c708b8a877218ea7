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

The package is split by job: :mod:`.params` (the scenario and its variants),
:mod:`.networks` (the handout's networks and the computations the answers share),
:mod:`.prompts` (question texts), :mod:`.answers` (the answers). :data:`LAB` is the lab
as grading sees it (a :class:`labcalc.labs._framework.Lab`), registered as ``"lab5"`` in
:mod:`labcalc.labs`.

Examples
--------
>>> df = answers()
>>> row = df[(df.question == "Q4")].iloc[0]
>>> round(row.value / 1e3), row.unit
(4690, 'bit/s')
"""

from __future__ import annotations

from labcalc.labs._framework import KINDS, MAX_SEED, Answer, Lab, variant_for
from labcalc.labs._framework import precompute as _precompute
from labcalc.labs.lab5.answers import ANSWERS, answer_values, answers, get_answer, questions, shaper_vs_wire
from labcalc.labs.lab5.networks import (
    STORE, collapse, network_lab51, network_lab52, network_lab53, udp_split,
)
from labcalc.labs.lab5.params import Params, variant, with_params
from labcalc.labs.lab5.prompts import ACCOUNTING_PHRASES, QUESTION_CONTEXT, prompt_fields

__all__ = [
    "LAB",
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
    "with_params",
]

#: Lab 5 as grading sees it: its answers, scenarios, variants and shared solves.
LAB = Lab(
    name="lab5",
    title="congestion control, TCP and UDP in Mininet (questions Q3-Q44)",
    answers=ANSWERS,
    default_params=Params,
    variant=variant,
    prompt_fields=prompt_fields,
    accounting_phrases=ACCOUNTING_PHRASES,
    store=STORE,
)


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

    Returns
    -------
    contextlib.AbstractContextManager
        Inside the ``with`` block, :func:`answers`, :func:`answer_values` and the
        answer keys of these variants use the precomputed results (kept in the lab's
        own store, :attr:`LAB.store <labcalc.labs._framework.Lab.store>`).

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
    return _precompute(STORE, answer_values, params, accountings, chunk)
