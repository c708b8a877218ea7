"""Answer keys: the expected answers of one lab variant, with the values of the slips.

A key is computed once per (lab, seed, accounting) through the lab
(:class:`labcalc.labs.Lab`: ``lab.answer_values(lab.variant(seed))``) and cached for the
session, so grading a class computes each variant's key once; :func:`answer_keys`
computes many at once, in worker processes when there are many. Every function takes
the lab explicitly, as a :class:`~labcalc.labs.Lab` or as a name of
:data:`labcalc.labs.LABS`; there is no default lab.

Examples
--------
>>> key = answer_key("lab5")
>>> round(key.value("Q4") / 1e3, 1), key.display_unit("Q4")
(4690.4, 'Mbit/s')
>>> round(key.alternative("Q4", "wire_vs_shaper") / 1e3, 1)  # what the shaper would give
4798.5
"""

from __future__ import annotations

import contextlib
import functools
import gc
import math
import os
from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from labcalc.grading.check import CheckResult, check, display_scale
from labcalc.grading.diagnosis import CONTEXT_SLIPS, other_accounting, other_accountings

__all__ = ["AnswerIdError", "AnswerKey", "answer_key", "answer_keys", "check_answer", "clear_key_cache"]


class AnswerIdError(KeyError):
    """An answer id that the lab does not have (a ``KeyError``, shown without quotes).

    Examples
    --------
    >>> print(AnswerIdError("lab5 has no answer 'Q99'"))
    lab5 has no answer 'Q99'
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _label(answer, params, accounting: str) -> str:
    """An answer's label with the variant's numbers (a lab's ``Answer.label`` when it has one)."""
    label = getattr(answer, "label", None)
    return label(params, accounting) if callable(label) else answer.item


@dataclass(frozen=True, eq=False)
class AnswerKey:
    """The expected answers of one variant of a lab, in the order of ``lab.answers``.

    Attributes
    ----------
    lab : str
        Lab name, e.g. ``"lab5"``.
    seed : int
        Variant seed (0 = the handout's own numbers).
    accounting : str
        Byte accounting of the expected values (``"wire"`` as in the handout).
    params : object
        The variant's scenario parameters (``lab.variant(seed)``).
    ids : tuple of str
        Answer ids (``"Q4"``, ``"Q13.6"``...).
    values : ndarray
        Expected values [base units].
    units, display_units : tuple of str
        Base unit and display unit of each answer.
    display_factors : ndarray
        Display unit -> base units factor.
    rtol, atol, points : ndarray
        Tolerances (``atol`` in base units) and points of each answer.
    alternatives : mapping of str to ndarray
        For each context slip, the value a student making it would find (NaN where
        the slip does not apply); ``wire_vs_shaper`` holds the value in the first of
        :func:`labcalc.grading.diagnosis.other_accountings`.
    other_values : mapping of str to ndarray
        The value in each of :func:`labcalc.grading.diagnosis.other_accountings` of
        ``accounting`` (NaN where it is the key's value): all of them are
        ``wire_vs_shaper`` slips, and messages name the one that matched.

    Examples
    --------
    >>> key = answer_key("lab5", 0)
    >>> key.ids[:2], round(float(key.values[1]) / 1e3, 1), key.display_units[1]
    (('Q3', 'Q4'), 4690.4, 'Mbit/s')
    """

    lab: str
    seed: int
    accounting: str
    params: object
    ids: tuple[str, ...]
    values: np.ndarray
    units: tuple[str, ...]
    display_units: tuple[str, ...]
    display_factors: np.ndarray
    rtol: np.ndarray
    atol: np.ndarray
    points: np.ndarray
    alternatives: Mapping[str, np.ndarray]
    other_values: Mapping[str, np.ndarray] | None = None

    def __post_init__(self):
        if self.other_values is None:  # a key built by hand: the one wire_vs_shaper value
            object.__setattr__(self, "other_values", {
                other_accounting(self.accounting): self.alternatives["wire_vs_shaper"]})

    def index(self, answer_id: str) -> int:
        """Position of ``answer_id`` in the key.

        Raises
        ------
        AnswerIdError
            For an unknown id; for a question that asks for several numbers
            (``"Q13"``), the message lists its parts and their labels.
        """
        positions = _positions(self.ids)
        if answer_id in positions:
            return positions[answer_id]
        parts = self.parts(answer_id) if isinstance(answer_id, str) else []
        if parts:
            listing = "\n".join(f"  {i:<7} {label}" for i, label in parts)
            raise AnswerIdError(f"{self.lab} question {answer_id.strip()} asks for {len(parts)} numbers; "
                                f"check each one by its own id:\n{listing}")
        raise AnswerIdError(f"{self.lab} has no answer {answer_id!r}")

    def parts(self, question: str) -> list[tuple[str, str]]:
        """The answer ids of a question that asks for several numbers, with their labels.

        Parameters
        ----------
        question : str
            A question id such as ``"Q13"`` (``"q13"`` is read as ``"Q13"``).

        Returns
        -------
        list of (str, str)
            ``(answer id, label)`` for each part, in order; the labels quote this
            variant's numbers. Empty when ``question`` has no parts (``"Q4"``, ``"Q99"``).

        Examples
        --------
        >>> answer_key("lab5").parts("Q13")[:2]
        [('Q13.1', 'A1: goodput of h1 (UDP)'), ('Q13.2', 'A1: goodput of h2 (UDP)')]
        >>> answer_key("lab5").parts("Q4")
        []
        """
        from labcalc.labs import get_lab

        q = str(question).strip()
        q = "Q" + q[1:] if q[:1] == "q" else q
        return [(a.id, _label(a, self.params, self.accounting)) for a in get_lab(self.lab).answers
                if a.id.startswith(q + ".") and a.id != q]

    def value(self, answer_id: str) -> float:
        """Expected value of ``answer_id`` [base units]."""
        return float(self.values[self.index(answer_id)])

    def display_unit(self, answer_id: str) -> str:
        """The unit the question is asked in."""
        return self.display_units[self.index(answer_id)]

    def alternative(self, answer_id: str, slip: str) -> float:
        """Value a student making ``slip`` would find (NaN when it does not apply)."""
        return float(self.alternatives[slip][self.index(answer_id)])

    def table(self):
        """The key as a DataFrame indexed by id (value, units, tolerances, points, slips).

        Examples
        --------
        >>> t = answer_key("lab5").table()
        >>> float(t.loc["Q3", "value"]), t.loc["Q3", "display_unit"]
        (1066.0, 'bytes')
        """
        import pandas as pd

        df = pd.DataFrame({
            "value": self.values, "unit": self.units, "display_unit": self.display_units,
            "rtol": self.rtol, "atol": self.atol, "points": self.points,
        }, index=pd.Index(self.ids, name="id"))
        for code in CONTEXT_SLIPS:
            df[code] = self.alternatives[code]
        return df


@functools.lru_cache(maxsize=None)
def _positions(ids: tuple[str, ...]) -> dict[str, int]:
    return {answer_id: i for i, answer_id in enumerate(ids)}


def _other_accounting(accounting: str) -> str:
    return other_accounting(accounting)


def answer_key(lab, seed: int = 0, accounting: str = "wire") -> AnswerKey:
    """The answer key of variant ``seed`` of ``lab`` (cached).

    Parameters
    ----------
    lab : Lab or str
        A :class:`labcalc.labs.Lab`, or the name of one (see :func:`labcalc.labs.get_lab`).
    seed : int, default 0
        Variant seed; 0 is the handout's scenario (see ``lab.variant``).
    accounting : {"wire", "tc", "frame", "ip"}, default "wire"
        Byte accounting of the expected values. The values in the other accountings
        (:func:`labcalc.grading.diagnosis.other_accountings`: ``"tc"`` for a wire key,
        ``"wire"`` for a tc key, both for a frame or ip key) become ``wire_vs_shaper``
        slips.

    Returns
    -------
    AnswerKey

    Notes
    -----
    Context slips per kind of answer, with ``e`` the frame efficiency of the answer
    (``Answer.efficiency``): a goodput ``g`` becomes ``g / e`` (``rate_for_goodput``
    when the handout also asks for that rate, ``header_overhead`` otherwise); a link
    rate ``r`` becomes ``r * e`` (``goodput_for_rate``); a frame size ``s`` becomes
    ``s * e``, the payload alone (``header_overhead``). Goodputs and sizes that are the
    same in both accountings (a flow that no bottleneck limits) get no header slip.

    Examples
    --------
    >>> key = answer_key("lab5", seed=0)
    >>> len(key.ids), key.ids[:3]
    (55, ('Q3', 'Q4', 'Q8'))
    >>> key.alternative("Q3", "header_overhead")
    1000.0
    >>> answer_key("lab5", seed=3) is answer_key("lab5", seed=3)
    True
    >>> answer_key("lab5", seed="3")
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number between 0 and 2**63 - 1; got '3'
    """
    from labcalc.labs import get_lab

    lab = get_lab(lab)
    key = _CACHE.get((lab.name, seed, accounting))
    if key is None:
        key = _remember(_build_key(lab, seed, accounting))
    return key


#: Answer keys computed so far, by (lab, seed, accounting); bounded by _CACHE_SIZE.
_CACHE: dict[tuple[str, int, str], AnswerKey] = {}
_CACHE_SIZE = 100_000


def _remember(key: AnswerKey) -> AnswerKey:
    if len(_CACHE) >= _CACHE_SIZE:
        for old in list(_CACHE)[: _CACHE_SIZE // 10]:
            del _CACHE[old]
    _CACHE[(key.lab, key.seed, key.accounting)] = key
    return key


def clear_key_cache() -> None:
    """Forget every computed answer key (for benchmarks and tests).

    Examples
    --------
    >>> clear_key_cache()
    """
    _CACHE.clear()


def _build_key(lab, seed: int, accounting: str) -> AnswerKey:
    """The key of one variant of ``lab`` (a Lab), computed (not cached)."""
    from labcalc.framing import ACCOUNTINGS

    if accounting not in ACCOUNTINGS:
        raise ValueError(f"accounting must be one of {', '.join(ACCOUNTINGS)}; got {accounting!r}")
    params = lab.variant(seed)
    answers = lab.answers
    values = np.array(lab.answer_values(params, accounting), dtype=float)
    others = {acc: np.array(lab.answer_values(params, acc), dtype=float)
              for acc in other_accountings(accounting)}
    other = others[_other_accounting(accounting)]
    n = len(answers)
    alternatives = {code: np.full(n, np.nan) for code in CONTEXT_SLIPS}
    with np.errstate(invalid="ignore"):
        other_values = {acc: np.where(np.abs(o - values) > 1e-9 * np.maximum(np.abs(values), 1e-300),
                                      o, np.nan) for acc, o in others.items()}
    factors = np.empty(n)
    for i, a in enumerate(answers):
        v = values[i]
        factors[i] = display_scale(a.display_unit)[0]
        framed = abs(other[i] - v) > 1e-9 * max(abs(v), 1e-300)
        if framed:
            alternatives["wire_vs_shaper"][i] = other[i]
        if a.efficiency is None or (a.kind in ("goodput", "size") and not framed):
            # a goodput that does not change with the accounting (a UDP flow below
            # its bottleneck) does not depend on the headers either
            continue
        e = float(a.efficiency(params, accounting))
        if not (0 < e < 1) or not math.isfinite(e):
            continue
        if a.kind == "goodput":
            alternatives["rate_for_goodput" if a.paired else "header_overhead"][i] = v / e
        elif a.kind == "rate":
            alternatives["goodput_for_rate"][i] = v * e
        elif a.kind == "size":
            alternatives["header_overhead"][i] = v * e
    for arr in (*alternatives.values(), *other_values.values()):
        arr.setflags(write=False)
    arrays = {
        "values": values, "display_factors": factors,
        "rtol": np.array([a.rtol for a in answers], float),
        "atol": np.array([a.atol for a in answers], float),
        "points": np.array([a.points for a in answers], float),
    }
    for arr in arrays.values():
        arr.setflags(write=False)
    return AnswerKey(
        lab=lab.name, seed=int(seed), accounting=accounting, params=params,
        ids=tuple(a.id for a in answers), units=tuple(a.unit for a in answers),
        display_units=tuple(a.display_unit for a in answers), alternatives=alternatives,
        other_values=other_values, **arrays,
    )


@contextlib.contextmanager
def _gc_paused():
    # computing many keys allocates many small objects that all survive: the cyclic
    # garbage collector would rescan them again and again (about 20 % of the time)
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _openblas_libraries():
    """(get, set) thread-count functions of the OpenBLAS copies loaded (Linux only)."""
    import ctypes
    import re

    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so[\w.]*)", fh.read())))
    except OSError:
        return []
    found = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    found.append((get, put))
                    break
            else:
                continue
            break
    return found


@contextlib.contextmanager
def _quiet_computation():
    """Pause the garbage collector and run OpenBLAS on one thread meanwhile.

    The lab's matrices are tiny: OpenBLAS threads bring only contention (keys took
    2.4 times longer with two threads than with one on a 2-CPU machine).
    """
    libraries = _openblas_libraries()
    saved = []
    for get, put in libraries:
        try:
            saved.append((put, int(get())))
            put(1)
        except Exception:  # pragma: no cover - an unexpected OpenBLAS build
            pass
    try:
        with _gc_paused():
            yield
    finally:
        for put, n in saved:
            put(n)


def _compute_keys(lab, seeds: list[int], accounting: str) -> list[AnswerKey | tuple[int, str]]:
    """Keys of ``seeds``; a seed whose key cannot be computed gives (seed, reason).

    ``lab`` is a Lab, or its registry name (what worker processes receive).
    """
    from labcalc.labs import get_lab

    lab = get_lab(lab)
    out: list[AnswerKey | tuple[int, str]] = []
    with _quiet_computation():
        for start in range(0, len(seeds), _BLOCK):
            block = seeds[start:start + _BLOCK]
            # the lab's networks of the whole block are solved together (one union
            # network per computation), then each key reads its share
            params = []
            for s in block:
                try:
                    params.append(lab.variant(s))
                except (ValueError, ArithmeticError):
                    pass  # reported by _build_key below
            with lab.precompute(params, (accounting, *other_accountings(accounting))):
                for s in block:
                    try:
                        out.append(_build_key(lab, s, accounting))
                    except (ValueError, ArithmeticError) as exc:
                        out.append((s, f"{type(exc).__name__}: {exc}"))
    return out


#: Variants whose networks are solved together when many keys are computed.
_BLOCK = 2000


#: Below this many missing keys, :func:`answer_keys` does not start worker processes:
#: solved together, keys cost about 2 ms each, and a worker costs about a second to
#: start (it imports numpy, pandas and scipy).
PARALLEL_THRESHOLD = 8000


def answer_keys(lab, seeds: Iterable[int] = (0,), accounting: str = "wire",
                jobs: int | None = None, errors: dict[int, str] | None = None) -> dict[int, AnswerKey]:
    """The answer keys of many variants, computing the missing ones in parallel.

    Parameters
    ----------
    lab : Lab or str
        As in :func:`answer_key`.
    seeds : iterable of int
        Variant seeds (duplicates are fine).
    accounting : str, default "wire"
        As in :func:`answer_key`.
    jobs : int, optional
        Worker processes for the keys not yet cached: ``None`` uses all CPUs but one
        when at least :data:`PARALLEL_THRESHOLD` keys are missing on a machine with at
        least 4 CPUs (up to 8 workers); ``1`` never starts a worker.
    errors : dict, optional
        If given, a seed whose key cannot be computed (a solver that fails on that
        scenario...) is left out of the result and its reason stored here; otherwise
        the first such failure raises ``ValueError``.

    Returns
    -------
    dict of int to AnswerKey

    Notes
    -----
    One key alone costs about 20 ms (two passes of the lab's computations, in the
    key's accounting and in the other one, mostly Python overhead of small solves; a
    third for a frame or ip key, whose slips include both the wire's and the shaper's).
    Many keys are computed together: the lab's networks of up to 2000 variants are
    solved as one disjoint union per computation (``lab.precompute``), about 2 ms per
    key; the keys are then cached for the rest of the session. Workers are started with the ``forkserver``
    method (``spawn`` where it does not exist): a clean interpreter, so threads of the
    parent (a Jupyter kernel's, BLAS's) cannot deadlock them. Results do not depend
    on ``jobs`` nor on which variants are solved together, up to rounding (relative
    differences below 1e-12, far inside any grading tolerance).

    Examples
    --------
    >>> keys = answer_keys("lab5", [0, 4, 4], jobs=1)
    >>> sorted(keys), keys[4] is answer_key("lab5", 4)
    ([0, 4], True)
    """
    wanted = sorted({int(s) for s in seeds})
    from labcalc.labs import get_lab

    lab = get_lab(lab)
    for s in wanted:
        lab.variant(s)  # validates the seed (and caches the parameters)
    missing = [s for s in wanted if (lab.name, s, accounting) not in _CACHE]
    workers = _workers(jobs, len(missing))
    if workers > 1 and not _registered(lab):
        workers = 1  # a lab outside the registry cannot be named to a worker process
    if missing and workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        chunks = [missing[i::workers] for i in range(workers)]
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            results = [r for chunk in pool.map(_compute_keys, [lab.name] * len(chunks), chunks,
                                               [accounting] * len(chunks)) for r in chunk]
    else:
        results = _compute_keys(lab, missing, accounting) if missing else []
    failed: dict[int, str] = {}
    for r in results:
        if isinstance(r, AnswerKey):
            _remember(r)
        else:
            failed[r[0]] = r[1]
    if failed and errors is None:
        seed, reason = next(iter(sorted(failed.items())))
        raise ValueError(f"answer key of {lab.name} variant {seed} cannot be computed ({reason})")
    if errors is not None:
        errors.update(failed)
    return {s: answer_key(lab, s, accounting) for s in wanted if s not in failed}


def _registered(lab) -> bool:
    """Whether a worker process finds ``lab`` by its name in the registry."""
    from labcalc.labs import get_lab

    try:
        return get_lab(lab.name) is lab
    except ValueError:
        return False


def _workers(jobs: int | None, n_missing: int) -> int:
    if jobs is not None:
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"jobs must be a whole number >= 1; got {jobs!r}")
        return min(jobs, max(n_missing, 1))
    cpus = os.cpu_count() or 1
    if n_missing < PARALLEL_THRESHOLD or cpus < 4:
        # with two CPUs, a worker (which imports numpy, pandas, scipy) costs about
        # what it saves, and loses outright on a busy machine
        return 1
    return max(1, min(cpus - 1, 8, n_missing // _BLOCK))


def check_answer(answer_id: str, answer, *, lab, seed: int = 0,
                 accounting: str = "wire", sigfigs: int | None = None,
                 credit: Mapping[str, float] | None = None) -> CheckResult:
    """Check one answer against a lab's answer key, with every slip the key knows.

    Parameters
    ----------
    answer_id : str
        ``"Q4"``, ``"Q13.6"``... (see ``lab.questions()``).
    answer : float or str
        As in :func:`labcalc.grading.check`, with the question's display unit as
        ``unit``: a number is read as the same number typed without quotes, so a
        rate, a size or a time needs its unit (``"4.69 Mbit/s"``), and a share
        without its % sign is a fraction (``"0.062"`` is 6.2 %), exactly as
        :func:`labcalc.grading.grade` reads it.
    lab : Lab or str
        The lab (see :func:`answer_key`); no default.
    seed, accounting
        Which answer key (see :func:`answer_key`).
    sigfigs, credit
        As in :func:`labcalc.grading.check`.

    Returns
    -------
    CheckResult

    Raises
    ------
    AnswerIdError
        For an unknown id; for a question that asks for several numbers (``"Q13"``),
        the message lists the ids and labels of its parts.

    Examples
    --------
    >>> check_answer("Q13.6", "3.75 Mbit/s", lab="lab5").correct
    True
    >>> print(check_answer("Q4", "5 Mbit/s", lab="lab5").message)
    Partly right (50 % of the points): '5 Mbit/s' is off by exactly the frame efficiency (0.938 = payload bytes / frame bytes): count the header bytes of every frame.
    >>> r = check_answer("Q4", "4798 kbit/s", lab="lab5")
    >>> r.diagnosis, r.score
    ('wire_vs_shaper', 0.75)
    >>> print(r.message)
    Partly right (75 % of the points): '4798 kbit/s' is the value in the Linux shaper's accounting (Ethernet header and IP packet only), but the question uses the wire's accounting (every byte: preamble, headers, FCS and inter-frame gap).
    """
    key = answer_key(lab, seed, accounting)
    if isinstance(answer_id, str) and answer_id.strip()[:1] == "q":
        answer_id = "Q" + answer_id.strip()[1:]
    i = key.index(answer_id.strip() if isinstance(answer_id, str) else answer_id)
    alternatives = {code: float(arr[i]) for code, arr in key.alternatives.items()
                    if not math.isnan(arr[i]) and code != "wire_vs_shaper"}
    names = [acc for acc, arr in key.other_values.items() if not math.isnan(arr[i])]
    if names:
        alternatives["wire_vs_shaper"] = [float(key.other_values[acc][i]) for acc in names]
    return check(answer, float(key.values[i]), unit=key.display_units[i],
                 rtol=float(key.rtol[i]), atol=float(key.atol[i]), sigfigs=sigfigs,
                 alternatives=alternatives, credit=credit, accounting=accounting,
                 alternative_accountings=names)
