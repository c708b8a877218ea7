"""What every lab shares: answers as data, shared solves, variant seeds, the :class:`Lab`.

A lab is one package under :mod:`labcalc.labs` that builds a :class:`Lab`: its
:class:`Answer` objects (each a function of the scenario parameters), its default
parameters and its ``variant(seed)`` draw. Grading (:mod:`labcalc.grading`) only ever
talks to a :class:`Lab`, never to a lab's module, so adding a lab is one package plus
one line in the registry of :mod:`labcalc.labs`.

- :class:`Answer` -- one numeric answer: how to compute it, how to grade it, its texts;
- :class:`Computation` and :class:`SolveStore` -- a network built from the parameters and
  solved once per variant, or once for many variants together (:meth:`Lab.precompute`);
  the prepared results live in the store the lab owns, not in module globals;
- :data:`MAX_SEED`, :func:`check_seed`, :func:`variant_for` -- per-student variant seeds;
- :func:`answer_values`, :func:`questions_table` -- the generic tables of a lab.

Examples
--------
>>> tiny = Lab(name="tiny", answers=(Answer("Q1", "twice x", "1", lambda p, acc: 2 * p, id="Q1"),),
...            default_params=lambda: 1.5, variant=lambda seed: 1.5 + check_seed(seed))
>>> tiny.answer_values().tolist(), tiny.answer_values(tiny.variant(2)).tolist()
([3.0], [7.0])
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

__all__ = [
    "Answer",
    "AnswerTexts",
    "KINDS",
    "Lab",
    "Computation",
    "SolveStore",
    "MAX_SEED",
    "check_seed",
    "variant_for",
    "answer_values",
    "questions_table",
    "precompute",
]

#: The kinds of answers; the grader uses them to recognise the classic slips.
KINDS = ("goodput", "rate", "size", "loss", "ratio", "time", "constant")

#: Largest variant seed (seeds are 0 .. MAX_SEED; 0 is the handout's own scenario).
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class AnswerTexts:
    """How a lab words its answers: the functions behind :meth:`Answer.label` and :meth:`Answer.text`.

    Attributes
    ----------
    default_params : callable
        ``default_params() -> params``: the handout's scenario.
    label_fields : callable
        ``label_fields(params) -> dict``: fields of the answers' label templates.
    prompt_fields : callable
        ``prompt_fields(params, accounting) -> dict``: fields of the question texts.

    Examples
    --------
    >>> t = AnswerTexts(lambda: 5, lambda p: {"x": p}, lambda p, acc: {"x": p})
    >>> t.label_fields(t.default_params())
    {'x': 5}
    """

    default_params: Callable[[], Any]
    label_fields: Callable[[Any], dict]
    prompt_fields: Callable[[Any, str], dict]


@dataclass(frozen=True)
class Answer:
    """One numeric answer of a handout, with what a grader needs to check it.

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
        of the lab's prompt fields (so a variant shows its own numbers). :meth:`text`
        prepends :attr:`context`.
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
        ``item`` as a :meth:`str.format` template of the label fields; empty when
        ``item`` quotes no number of the scenario.
    context : str
        The situation of the question (a template of the prompt fields), shown before
        the prompt by :meth:`text`.
    texts : AnswerTexts or None
        The lab's default parameters and text fields; ``None`` for an answer built
        alone, which then needs explicit parameters and has no templated texts.

    Examples
    --------
    >>> a = Answer("Q1", "double", "1", lambda p, acc: 2.0 * p, id="Q1", prompt="Double {x}?",
    ...            texts=AnswerTexts(lambda: 3.0, lambda p: {"x": p}, lambda p, acc: {"x": f"{p:g}"}))
    >>> a.value(), a.value(5.0), a.text()
    (6.0, 10.0, 'Double 3?')
    """

    question: str
    item: str
    unit: str
    compute: Callable[[Any, str], float] = field(repr=False)
    handout_rounding: float = 0.005
    id: str = ""
    prompt: str = field(default="", repr=False)
    kind: str = "constant"
    display_unit: str = ""
    rtol: float = 0.01
    atol: float = 0.0
    points: float = 1.0
    efficiency: Callable[[Any, str], float] | None = field(default=None, repr=False, compare=False)
    paired: bool = False
    item_template: str = field(default="", repr=False, compare=False)
    context: str = field(default="", repr=False, compare=False)
    texts: AnswerTexts | None = field(default=None, repr=False, compare=False)

    def _params(self, params):
        if params is not None:
            return params
        if self.texts is None:
            raise ValueError(f"answer {self.id or self.question}: params is required (the answer "
                             f"belongs to no lab that gives default parameters)")
        return self.texts.default_params()

    def label(self, params=None, accounting: str = "wire") -> str:
        """``item`` with the numbers of ``params`` (the handout's by default).

        Parameters
        ----------
        params : object, optional
            The scenario (the lab's default by default).
        accounting : {"wire", "frame", "tc", "ip"}, default "wire"
            Accepted for symmetry with :meth:`text`; labels name no accounting.

        Returns
        -------
        str

        Examples
        --------
        >>> from labcalc.labs.lab5 import get_answer, with_params
        >>> get_answer("Q3").label(with_params(udp_payload_bytes=500))
        'bytes a 500-byte UDP datagram takes on the link (Ethernet frame)'
        """
        if not self.item_template or self.texts is None:
            return self.item
        return self.item_template.format(**self.texts.label_fields(self._params(params)))

    def value(self, params=None, accounting: str = "wire") -> float:
        """The answer for ``params`` (the handout's by default) [base unit].

        Parameters
        ----------
        params : object, optional
            The scenario (the lab's default by default).
        accounting : {"wire", "frame", "tc", "ip"}, default "wire"
            Which bytes of a packet the links count.

        Returns
        -------
        float

        Examples
        --------
        >>> from labcalc.labs.lab5 import ANSWERS
        >>> ANSWERS[1].id, round(ANSWERS[1].value() / 1e3, 1)
        ('Q4', 4690.4)
        """
        return float(self.compute(self._params(params), accounting))

    def text(self, params=None, accounting: str = "wire") -> str:
        """The full question for ``params``: the context of the question, then the prompt.

        Parameters
        ----------
        params : object, optional
            The scenario (the lab's default by default).
        accounting : {"wire", "frame", "tc", "ip"}, default "wire"
            Which bytes of a packet the links count, as the texts say it.

        Returns
        -------
        str

        Examples
        --------
        >>> from labcalc.labs.lab5 import ANSWERS, get_answer
        >>> ANSWERS[0].text()[:60]
        'A UDP client sends datagrams that carry 1000 bytes of applic'
        >>> get_answer("Q3").text(accounting="tc")[-59:]
        'and UDP headers and data) but not the FCS, preamble or gap?'
        """
        if self.texts is None:
            return " ".join(t for t in (self.context, self.prompt) if t)
        fields = self.texts.prompt_fields(self._params(params), accounting)
        return " ".join(t.format(**fields) for t in (self.context, self.prompt) if t)


# --- computations shared by several answers, and solved for many variants at once ---


@dataclass(frozen=True)
class _Part:
    """One variant's share of a solve over many variants: what the answers read."""

    rates: dict
    goodputs: dict
    loss: dict | None
    links: dict | None


class SolveStore:
    """The results :func:`precompute` prepared for one lab (owned by its :class:`Lab`).

    Attributes
    ----------
    recording : set or None
        While :func:`precompute` finds which computations the answers need, the
        ``(computation, args)`` pairs called; None otherwise.
    prepared : dict
        ``(computation, params, args) -> result`` of the solves done together.

    Examples
    --------
    >>> store = SolveStore()
    >>> store.recording, store.prepared
    (None, {})
    """

    def __init__(self):
        self.recording: set | None = None
        self.prepared: dict = {}


class Computation:
    """One computation of a lab: a network built from the parameters, then a solver.

    Called as ``comp(params, *args)`` it builds and solves one variant's network
    (cached: several answers share it). Inside :func:`precompute` the result may come
    from a single solve of the disjoint union of many variants' networks
    (:meth:`labcalc.network.Network.union`); every allocation of the package decomposes
    over networks that share no link, so the rates are those of separate solves.

    Parameters
    ----------
    name : str
        Name, for messages.
    network : callable
        ``network(params, *args) -> Network``.
    solve : callable
        ``solve(network, *args) -> result`` with ``rates``, ``goodputs`` (and
        optionally ``loss`` and ``links["accepted"]``) indexed by flow or link.
    store : SolveStore
        Where :func:`precompute` leaves the results solved together.

    Examples
    --------
    >>> from labcalc.network import Flow, Network
    >>> from labcalc.openloop import fifo_split
    >>> comp = Computation("one link", lambda p: Network({"l": p}, {"f": Flow(["l"], demand_bps=2 * p)}),
    ...                    lambda net: fifo_split(net), SolveStore())
    >>> float(comp(1e6).rates["f"])
    1000000.0
    """

    def __init__(self, name: str, network: Callable, solve: Callable, store: SolveStore):
        self.name, self.network, self.solve, self.store = name, network, solve, store
        self._cached = functools.lru_cache(maxsize=64)(self._compute)
        self.cache_clear = self._cached.cache_clear

    def __repr__(self) -> str:
        return f"<computation {self.name}>"

    def _compute(self, p, *args):
        return self.solve(self.network(p, *args), *args)

    def __call__(self, p, *args):
        store = self.store
        if store.recording is not None:
            store.recording.add((self, args))
        if store.prepared:
            part = store.prepared.get((self, p, args))
            if part is not None:
                return part
        return self._cached(p, *args)

    def many(self, params: list, *args) -> list:
        """Results of many variants from one solve of their networks' union.

        Parameters
        ----------
        params : list
            The variants' parameters.
        *args
            As for a single call.

        Returns
        -------
        list
            One result per variant, with ``rates``, ``goodputs``, ``loss`` and
            ``links`` as dicts.

        Examples
        --------
        >>> from labcalc.network import Flow, Network
        >>> from labcalc.openloop import fifo_split
        >>> comp = Computation("one link", lambda p: Network({"l": p}, {"f": Flow(["l"], demand_bps=2 * p)}),
        ...                    lambda net: fifo_split(net), SolveStore())
        >>> [part.rates["f"] for part in comp.many([1e6, 2e6])]
        [1000000.0, 2000000.0]
        """
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


def _needed(store: SolveStore, values: Callable, ps: list, accountings) -> tuple[list, int]:
    """The computations the answers need, found by computing the first variant that works.

    Returns the ``(computation, args)`` pairs and the index of the first variant not
    computed yet (``len(ps)`` when none worked).
    """
    for k, p in enumerate(ps[:3]):
        store.recording = set()
        try:
            for acc in accountings:
                values(p, acc)
        except (ValueError, ArithmeticError):
            continue
        finally:
            recorded, store.recording = store.recording, None
        return sorted(recorded, key=repr), k + 1
    return [], len(ps)  # nothing to prepare: every variant is computed alone


@contextlib.contextmanager
def precompute(store: SolveStore, values: Callable, params: Sequence, accountings=("wire",),
               chunk: int = 2000):
    """Solve the networks of many variants together; inside, their answers come fast.

    Parameters
    ----------
    store : SolveStore
        The lab's store (:attr:`Lab.store`), where the results are kept meanwhile.
    values : callable
        ``values(params, accounting)``: the lab's answer values, which call its
        computations.
    params : sequence
        The variants' parameters.
    accountings : sequence of str, default ("wire",)
        The accountings whose answers will be asked for.
    chunk : int, default 2000
        Variants per union network.

    Yields
    ------
    None
        Nothing: inside the ``with`` block, the lab's computations of these variants
        return the results prepared here.

    Notes
    -----
    Which computations the answers need is found by computing the first variant's
    answers normally; each of them is then solved once for all variants, on the
    disjoint union of their networks, instead of once per variant. The results agree
    with one-by-one solves up to rounding (relative differences below 1e-12). Should
    a union solve fail, its results are computed per variant, as outside the context.

    Examples
    --------
    >>> from labcalc.labs import lab5
    >>> ps = [lab5.variant(s) for s in (1, 2)]
    >>> with precompute(lab5.LAB.store, lab5.answer_values, ps):
    ...     n = len(lab5.LAB.store.prepared)
    >>> n > 0, len(lab5.LAB.store.prepared)
    (True, 0)
    """
    ps = list(dict.fromkeys(params))  # unique, in order
    added: list = []
    try:
        needed, first = _needed(store, values, ps, accountings)
        for start in range(first, len(ps), chunk) if needed else ():
            block = ps[start:start + chunk]
            for comp, args in needed:
                try:
                    parts = comp.many(block, *args)
                except (ValueError, ArithmeticError):
                    continue  # computed per variant when asked
                for p, part in zip(block, parts):
                    key = (comp, p, args)
                    if key not in store.prepared:
                        store.prepared[key] = part
                        added.append(key)
        yield
    finally:
        for key in added:
            store.prepared.pop(key, None)


# --- variant seeds --------------------------------------------------------------------


def check_seed(seed) -> int:
    """A variant seed as an ``int``, or ``ValueError`` naming the value.

    Parameters
    ----------
    seed : int or numpy integer
        0 .. :data:`MAX_SEED`.

    Returns
    -------
    int

    Examples
    --------
    >>> check_seed(7)
    7
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be between 0 and 2**63 - 1; got -1
    """
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


def variant_for(student_id: str, course_salt: str) -> int:
    """The variant seed of a student: a hash of the course salt and the student id.

    Parameters
    ----------
    student_id : str
        As it appears in the class list (leading and trailing spaces and letter case
        are ignored, as an LMS matches ids: ``U2501`` and ``u2501`` are one student).
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
    >>> variant_for("alice", "tcpip-2025") == variant_for(" Alice ", "tcpip-2025")
    True
    >>> variant_for("alice", "tcpip-2025") != variant_for("alice", "tcpip-2026")
    True
    """
    if not isinstance(student_id, str) or not student_id.strip():
        raise ValueError(f"student_id must be a non-empty string; got {student_id!r}")
    if not isinstance(course_salt, str):
        raise ValueError(f"course_salt must be a string; got {course_salt!r}")
    digest = hashlib.sha256(f"{course_salt}\x1f{student_id.strip().lower()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % MAX_SEED + 1


# --- the generic tables of a lab ----------------------------------------------------


def answer_values(answers: Sequence[Answer], params, accounting: str = "wire"):
    """The values of ``answers`` for ``params``, in order [base units].

    Parameters
    ----------
    answers : sequence of Answer
        A lab's answers.
    params : object
        The scenario.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count (see :mod:`labcalc.framing`).

    Returns
    -------
    numpy.ndarray
        One value per answer.

    Examples
    --------
    >>> answer_values([Answer("Q1", "x", "1", lambda p, acc: p + 1)], 2.0).tolist()
    [3.0]
    """
    import numpy as np

    from labcalc.framing import ACCOUNTINGS

    if accounting not in ACCOUNTINGS:
        raise ValueError(f"accounting must be one of {', '.join(ACCOUNTINGS)}; got {accounting!r}")
    return np.array([a.compute(params, accounting) for a in answers], dtype=float)


def questions_table(answers: Sequence[Answer], params, accounting: str = "wire"):
    """Every answer as a table a grader can read or export (see :meth:`Lab.questions`).

    Parameters
    ----------
    answers : sequence of Answer
        A lab's answers.
    params : object
        Scenario whose numbers the ``text`` column quotes.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count, as the texts say it.

    Returns
    -------
    pandas.DataFrame
        One row per answer, indexed by ``id``: ``question``, ``item``, ``text``,
        ``kind``, ``unit``, ``display_unit``, ``rtol``, ``atol``, ``points``.

    Examples
    --------
    >>> q = questions_table([Answer("Q1", "x", "1", lambda p, acc: p, id="Q1", prompt="x?")], 1.0)
    >>> q.loc["Q1", "text"], float(q.loc["Q1", "points"])
    ('x?', 1.0)
    """
    import pandas as pd

    rows = [
        (a.id, a.question, a.label(params), a.text(params, accounting), a.kind, a.unit, a.display_unit,
         a.rtol, a.atol, float(a.points))
        for a in answers
    ]
    cols = ["id", "question", "item", "text", "kind", "unit", "display_unit", "rtol", "atol", "points"]
    return pd.DataFrame(rows, columns=cols).set_index("id")


@dataclass(frozen=True, eq=False)
class Lab:
    """A lab as grading sees it: its answers, its scenarios and how to solve many at once.

    Attributes
    ----------
    name : str
        Registry name (``"lab5"``); answer keys and messages use it.
    answers : tuple of Answer
        Every answer, in question order, with unique ids.
    default_params : callable
        ``default_params() -> params``: the handout's scenario (variant 0).
    variant : callable
        ``variant(seed) -> params`` for seeds 0 .. :data:`MAX_SEED` (0 gives the
        default parameters); raises ``ValueError`` for a bad seed.
    title : str
        One line saying what the lab is about.
    prompt_fields : callable or None
        ``prompt_fields(params, accounting) -> dict``: the scenario numbers the texts
        quote (``None``: the lab quotes none).
    accounting_phrases : mapping
        Per accounting, the fields of ``prompt_fields`` that only word the accounting.
    store : SolveStore or None
        Where :meth:`precompute` keeps the results solved together (``None``: the lab
        has no shared computations, and :meth:`precompute` does nothing).

    Examples
    --------
    >>> from labcalc.labs import get_lab
    >>> lab = get_lab("lab5")
    >>> lab.name, len(lab.answers), lab.answer("Q4").unit
    ('lab5', 55, 'bit/s')
    """

    name: str
    answers: tuple
    default_params: Callable[[], Any]
    variant: Callable[[int], Any]
    title: str = ""
    prompt_fields: Callable[[Any, str], dict] | None = field(default=None, repr=False)
    accounting_phrases: Mapping[str, Mapping[str, str]] = field(default_factory=dict, repr=False)
    store: SolveStore | None = field(default=None, repr=False)

    max_seed = MAX_SEED

    @property
    def ANSWERS(self) -> tuple:
        """The answers, under the name lab modules give them (``lab5.ANSWERS``)."""
        return self.answers

    def variant_for(self, student_id: str, course_salt: str) -> int:
        """The seed of a student's variant (see :func:`variant_for`).

        Parameters
        ----------
        student_id, course_salt : str
            As in :func:`variant_for`.

        Returns
        -------
        int

        Examples
        --------
        >>> from labcalc.labs import get_lab
        >>> get_lab("lab5").variant_for("alice", "s") == variant_for("alice", "s")
        True
        """
        return variant_for(student_id, course_salt)

    def answer(self, answer_id: str) -> Answer:
        """The answer of id ``answer_id``.

        Parameters
        ----------
        answer_id : str
            ``"Q4"``, ``"Q13.6"``...

        Returns
        -------
        Answer

        Examples
        --------
        >>> from labcalc.labs import get_lab
        >>> get_lab("lab5").answer("Q13.6").item
        'A2: goodput of h2 (UDP)'
        """
        for a in self.answers:
            if a.id == answer_id:
                return a
        raise KeyError(f"no answer {answer_id!r} in {self.name}")

    def answer_values(self, params=None, accounting: str = "wire"):
        """The values of every answer for ``params`` (the default scenario by default).

        Parameters
        ----------
        params : object, optional
            The scenario.
        accounting : {"wire", "frame", "tc", "ip"}, default "wire"
            Which bytes of a packet the links count.

        Returns
        -------
        numpy.ndarray
            In the order of :attr:`answers` [base units].

        Examples
        --------
        >>> from labcalc.labs import get_lab
        >>> round(float(get_lab("lab5").answer_values()[1]) / 1e3, 1)
        4690.4
        """
        return answer_values(self.answers, self.default_params() if params is None else params, accounting)

    def table(self, params=None, accounting: str = "wire"):
        """Every answer's value as a table (``question``, ``item``, ``value``, ``unit``, ``rounding``).

        Parameters
        ----------
        params : object, optional
            The scenario (the default one by default).
        accounting : {"wire", "frame", "tc", "ip"}, default "wire"
            Which bytes of a packet the links count.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from labcalc.labs import get_lab
        >>> t = get_lab("lab5").table()
        >>> round(float(t.value.iloc[1]) / 1e3, 1), t.unit.iloc[1]
        (4690.4, 'bit/s')
        """
        import pandas as pd

        values = self.answer_values(params, accounting)
        return pd.DataFrame({
            "question": [a.question for a in self.answers],
            "item": [a.label(params) for a in self.answers],
            "value": values,
            "unit": [a.unit for a in self.answers],
            "rounding": [a.handout_rounding for a in self.answers],
        })

    def questions(self, params=None, accounting: str = "wire"):
        """Every answer as a table a grader can read (see :func:`questions_table`).

        Parameters
        ----------
        params : object, optional
            The scenario (the default one by default).
        accounting : {"wire", "frame", "tc", "ip"}, default "wire"
            Which bytes of a packet the links count, as the texts say it.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from labcalc.labs import get_lab
        >>> len(get_lab("lab5").questions())
        55
        """
        return questions_table(self.answers, self.default_params() if params is None else params, accounting)

    def precompute(self, params: Sequence, accountings=("wire",), chunk: int = 2000):
        """A context in which the answers of ``params`` are solved together (see :func:`precompute`).

        Parameters
        ----------
        params : sequence
            The variants' parameters.
        accountings : sequence of str, default ("wire",)
            The accountings whose answers will be asked for.
        chunk : int, default 2000
            Variants per union network.

        Returns
        -------
        contextlib.AbstractContextManager

        Examples
        --------
        >>> from labcalc.labs import get_lab
        >>> lab = get_lab("lab5")
        >>> with lab.precompute([lab.variant(1)]):
        ...     v = lab.answer_values(lab.variant(1))
        >>> len(v)
        55
        """
        if self.store is None:
            return contextlib.nullcontext()
        return precompute(self.store, self.answer_values, params, accountings, chunk)
