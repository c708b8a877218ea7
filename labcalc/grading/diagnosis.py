"""The classic slips of a networking answer, and how to recognise them.

A wrong answer is compared with what a student would have written after each slip:

========================  =============================================================
code                      the slip
========================  =============================================================
``bytes_bits``            bytes and bits mixed up: off by a factor of 8
``kilo_mega``             a prefix off by one step: a factor of 1000 (k/M/G, ms/s)
``binary_prefix``         1024 used for 1000 (or 1024² for 10^6): off by 2.4 %, 4.9 %...
``percent_fraction``      a percentage given as a fraction or the reverse: a factor of 100
``header_overhead``       header bytes forgotten: off by exactly the frame efficiency
``wire_vs_shaper``        the other byte accounting (Linux shaper instead of the wire)
``rate_for_goodput``      the link rate (headers included) given where goodput was asked
``goodput_for_rate``      the goodput given where the link rate was asked
``rounding``              close, but outside the tolerance (intermediate values rounded)
``missing_unit``          a number without a unit where the quantity needs one
``wrong_unit``            a unit of another kind of quantity (a time for a rate...)
``negative``              a negative rate, size, time, loss or share (none can be negative)
``unreadable``            not a number followed by a unit
``empty``                 no answer
========================  =============================================================

An answer is taken for a slip when it lies within half its tolerance of the value
the slip gives, and clearly closer to it than to the right value. The tolerance
around a slip's value is the right answer's, transformed by the slip: a value 1000
times too small keeps a thousandth of the absolute tolerance, so that the band never
reaches 0 (unless the right answer is itself within its tolerance of 0); and an
answer that is 0, or within the slip's tolerance of 0, gets no credit for a slip
(it cannot be told from 0). The closest slip wins, except that the other byte accounting (``wire_vs_shaper``) is preferred to a
binary prefix whenever both match (1066/1042 = 1.023 is 0.1 % from 1.024).
``percent_fraction`` is looked for only in answers that are shares (asked in %, see
``percent=`` of :func:`evaluate`), not in plain constants. The first four are
recognised from the expected value alone; the context slips
(``header_overhead``, ``wire_vs_shaper``, ``rate_for_goodput``, ``goodput_for_rate``)
need the value a student making that slip would find, which
:func:`labcalc.grading.answer_key` computes from the lab's scenario (and which
:func:`labcalc.grading.check` takes as ``alternatives=``). Two slips at once (bytes
*and* kilo, headers forgotten *and* kilo...) are recognised too; their credit is the
product of the two credits.

Examples
--------
>>> sorted(DEFAULT_CREDIT)[:3]
['binary_prefix', 'bytes_bits', 'empty']
>>> credit_table({"bytes_bits": 0.25})["bytes_bits"]
0.25
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

import numpy as np

__all__ = ["SLIPS", "DEFAULT_CREDIT", "CONTEXT_SLIPS", "SLIP_BAND", "ROUNDING_FACTOR", "credit_table",
           "evaluate", "other_accounting", "other_accountings", "slip_candidates", "split_pair_factor",
           "tolerance_band"]

#: Every diagnosis code and what it means (see the module docstring).
SLIPS: Mapping[str, str] = MappingProxyType({
    "bytes_bits": "bytes and bits mixed up (factor 8)",
    "kilo_mega": "prefix off by a factor of 1000",
    "binary_prefix": "binary prefix 1024 used for 1000",
    "percent_fraction": "percentage and fraction mixed up (factor 100)",
    "header_overhead": "header bytes forgotten (off by the frame efficiency)",
    "wire_vs_shaper": "other byte accounting (wire vs Linux shaper)",
    "rate_for_goodput": "link rate given where the goodput was asked",
    "goodput_for_rate": "goodput given where the link rate was asked",
    "rounding": "close but outside the tolerance",
    "missing_unit": "number without a unit",
    "wrong_unit": "unit of another kind of quantity",
    "negative": "negative value of a quantity that cannot be negative",
    "unreadable": "not a number with a unit",
    "empty": "no answer",
})

#: Share of the points each slip keeps by default (override with ``credit=``).
DEFAULT_CREDIT: Mapping[str, float] = MappingProxyType({
    "bytes_bits": 0.5,
    "kilo_mega": 0.5,
    "binary_prefix": 0.75,
    "percent_fraction": 0.5,
    "header_overhead": 0.5,
    "wire_vs_shaper": 0.75,
    "rate_for_goodput": 0.5,
    "goodput_for_rate": 0.5,
    "rounding": 0.0,
    "missing_unit": 0.0,
    "wrong_unit": 0.0,
    "negative": 0.0,
    "unreadable": 0.0,
    "empty": 0.0,
})

#: Slips whose value depends on the scenario (passed as ``alternatives``).
CONTEXT_SLIPS = ("header_overhead", "wire_vs_shaper", "rate_for_goodput", "goodput_for_rate")

# Slips recognised from the expected value alone: factors, and the base units they
# apply to. Each factor is tried both ways (x f and / f).
_GENERIC = {
    "bytes_bits": ((8.0,), ("bit/s", "byte")),
    "kilo_mega": ((1000.0,), ("bit/s", "byte", "s")),
    "binary_prefix": ((1.024, 1.024**2, 1.024**3), ("bit/s", "byte")),
    "percent_fraction": ((100.0,), ("1",)),
}
# Pairs of generic slips tried when no single slip explains the answer.
_GENERIC_PAIRS = (("bytes_bits", "kilo_mega"), ("bytes_bits", "binary_prefix"),
                  ("kilo_mega", "binary_prefix"))
# Generic slips that may come on top of a context slip.
_ON_TOP = ("bytes_bits", "kilo_mega", "percent_fraction")
#: Share of the (transformed) tolerance within which an answer must sit around a slip's
#: value to be taken for that slip [1]. A student who made the slip writes that value
#: up to their own rounding, so the band is narrower than a right answer's; it keeps
#: answers merely rounded too early from being taken for a 1024-for-1000 slip.
SLIP_BAND = 0.5
#: Tolerance multiple inside which a wrong answer counts as a rounding slip [1].
ROUNDING_FACTOR = 3.0
# Relative slack added to every tolerance so that a value exactly on the edge (up to
# floating-point noise from unit conversions) counts as inside.
_SLACK = 1e-9


def other_accounting(accounting: str) -> str:
    """The byte accounting whose value becomes the ``wire_vs_shaper`` slip of a key.

    A student who does not use the key's accounting most likely uses one of the two
    the lab is about: the handout's theory counts every byte on the wire, Mininet's
    Linux shaper (``tc``) the Ethernet header and IP packet. So the other accounting of
    a ``"wire"`` key is ``"tc"``, and that of any other key (``"tc"``, ``"frame"``,
    ``"ip"``) is ``"wire"``. Answer keys, messages and quiz feedback all use this.

    Parameters
    ----------
    accounting : {"wire", "tc", "frame", "ip"}
        Accounting of the answer key.

    Returns
    -------
    str
        ``"tc"`` or ``"wire"``.

    Examples
    --------
    >>> other_accounting("wire"), other_accounting("tc"), other_accounting("frame")
    ('tc', 'wire', 'wire')
    """
    return "tc" if accounting == "wire" else "wire"


def other_accountings(accounting: str) -> tuple[str, ...]:
    """Every byte accounting a student may have used instead of the key's, most likely first.

    The lab is about two accountings, the wire's (the handout's theory) and the Linux
    shaper's (``tc``, what Mininet measures): a wire key's other is ``"tc"``, a tc
    key's ``"wire"``, and a key in another accounting (``"frame"``, ``"ip"``) has both,
    the wire's first (:func:`other_accounting`). Answer keys hold the value in each of
    them as a ``wire_vs_shaper`` slip, and messages name the one that matched.

    Parameters
    ----------
    accounting : {"wire", "tc", "frame", "ip"}
        Accounting of the answer key.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> other_accountings("wire"), other_accountings("tc"), other_accountings("ip")
    (('tc',), ('wire',), ('wire', 'tc'))
    """
    if accounting in ("wire", "tc"):
        return (other_accounting(accounting),)
    return ("wire", "tc")


def credit_table(credit: Mapping[str, float] | None = None) -> dict[str, float]:
    """The default credits, updated with ``credit`` (validated).

    Parameters
    ----------
    credit : mapping, optional
        Diagnosis code -> share of the points kept, between 0 and 1.

    Returns
    -------
    dict of str -> float
        Share of the points kept [1] for every code of :data:`SLIPS`.

    Raises
    ------
    ValueError
        For an unknown code or a share outside [0, 1].

    Examples
    --------
    >>> credit_table({"kilo_mega": 0})["kilo_mega"]
    0.0
    >>> credit_table({"typo": 0.5})
    Traceback (most recent call last):
    ...
    ValueError: credit: unknown diagnosis 'typo'; known: bytes_bits, kilo_mega, binary_prefix, percent_fraction, header_overhead, wire_vs_shaper, rate_for_goodput, goodput_for_rate, rounding, missing_unit, wrong_unit, negative, unreadable, empty
    """
    table = dict(DEFAULT_CREDIT)
    for code, share in (credit or {}).items():
        if code not in SLIPS:
            raise ValueError(f"credit: unknown diagnosis {code!r}; known: {', '.join(SLIPS)}")
        try:
            share = float(share)
        except (TypeError, ValueError):
            raise ValueError(f"credit[{code!r}] must be a number between 0 and 1; got {share!r}") from None
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"credit[{code!r}] must be between 0 and 1; got {share!r}")
        table[code] = share
    return table


def slip_candidates(expected, bases, alternatives, percent=None):
    """Every value a slip would turn the expected values into, one column per slip.

    This is the list :func:`evaluate` compares a wrong answer with, in the order it
    tries them: each generic slip both ways (x f and / f), the context slips, two
    generic slips at once, then a context slip with a generic one on top. The quiz
    export (:mod:`labcalc.grading.export`) writes its partial-credit answers from the
    same list.

    Parameters
    ----------
    expected : ndarray of float, shape (N,)
        Expected values [base units].
    bases : ndarray of str, shape (N,)
        Base unit of each value (``"bit/s"``, ``"byte"``, ``"s"``, ``"1"``): a generic
        slip applies only to the base units it concerns (NaN elsewhere).
    alternatives : dict of str to list of ndarray
        Values of the context slips [base units], as in :func:`evaluate`.
    percent : ndarray of bool, optional
        Which values are shares; only those get the percent/fraction slip (by
        default every plain number).

    Returns
    -------
    labels : list of str
        Slip code of each column (``"a+b"`` for two at once).
    factors : ndarray of float, shape (K,)
        Generic factor of each column (the generic slip's for a context slip with one
        on top, 1 for a context slip alone).
    values : ndarray of float, shape (N, K)
        The values [base units]; NaN where the slip does not apply.
    is_pair : ndarray of bool, shape (K,)
        Whether the column is two slips at once.
    which : ndarray of int, shape (K,)
        Index of the context slip's value in ``alternatives[code]`` (-1 for none).

    Examples
    --------
    >>> labels, factors, values, is_pair, which = slip_candidates(
    ...     np.array([8e6]), np.array(["bit/s"], object), {})
    >>> labels[:2], values[0, :2].tolist()
    (['bytes_bits', 'bytes_bits'], [64000000.0, 1000000.0])
    """
    n = expected.shape[0]
    labels, factors, columns, pair, which = [], [], [], [], []

    def add(label, factor, values, is_pair, index=-1):
        labels.append(label)
        factors.append(factor)
        columns.append(values)
        pair.append(is_pair)
        which.append(index)

    masks = {code: np.isin(bases, allowed) for code, (_, allowed) in _GENERIC.items()}
    if percent is not None:
        # a plain number that is not a share (a constant) has no percent/fraction slip
        masks["percent_fraction"] = masks["percent_fraction"] & percent
    generic_cols = {}
    for code, (fs, _) in _GENERIC.items():
        for f in fs:
            for g in (f, 1.0 / f):
                values = np.where(masks[code], expected * g, np.nan)
                generic_cols.setdefault(code, []).append((g, values))
                add(code, g, values, False)
    for code in CONTEXT_SLIPS:
        for k, values in enumerate(alternatives.get(code, ())):
            add(code, 1.0, values, False, k)
    for a, b in _GENERIC_PAIRS:
        both = masks[a] & masks[b]
        for ga, _ in generic_cols[a]:
            for gb, _ in generic_cols[b]:
                add(f"{a}+{b}", ga * gb, np.where(both, expected * ga * gb, np.nan), True)
    for code in CONTEXT_SLIPS:
        for k, values in enumerate(alternatives.get(code, ())):
            for extra in _ON_TOP:
                for g, _ in generic_cols[extra]:
                    add(f"{code}+{extra}", g, np.where(masks[extra], values * g, np.nan), True, k)
    if not columns:  # pragma: no cover - there are always generic columns
        return [], np.ones(0), np.empty((n, 0)), np.zeros(0, bool), np.zeros(0, int)
    return (labels, np.asarray(factors), np.column_stack(columns), np.asarray(pair),
            np.asarray(which, int))


def tolerance_band(values, rtol, atol, sigfigs, display_factor):
    """Half-width of the interval :func:`evaluate` accepts around ``values`` [base units].

    ``atol + rtol * |values|``, or with significant digits ``atol`` plus half a unit of
    the last digit counted in the display unit; widened by a relative 1e-9 so that a
    value on the edge (up to the noise of unit conversions) counts as inside.

    Parameters
    ----------
    values : ndarray of float
        Centres of the intervals [base units].
    rtol, atol, sigfigs, display_factor : ndarray or float
        Relative tolerance [1], absolute tolerance [base units], significant digits
        (0 for none) and size of the display unit [base units]; broadcast with
        ``values``.

    Returns
    -------
    ndarray of float
        Half-widths [base units], always > 0.

    Examples
    --------
    >>> float(tolerance_band(np.array([4.69e6]), 0.01, 0.0, 0, 1e6)[0])
    46900.0000469
    >>> float(tolerance_band(np.array([4.69e6]), 0.0, 0.0, 3, 1e6)[0])  # 4.69 Mbit/s to 3 digits
    5000.000005
    """
    tol = atol + rtol * np.abs(values)
    has_sig = sigfigs > 0
    if np.any(has_sig):
        with np.errstate(divide="ignore", invalid="ignore"):
            shown = np.abs(values / display_factor)
            exponent = np.floor(np.log10(np.where(shown > 0, shown, 1.0)))
            sig = 0.5 * 10.0 ** (exponent - np.where(has_sig, sigfigs, 1) + 1) * display_factor
        tol = np.where(has_sig, atol + sig, tol)
    return tol * (1 + _SLACK) + 1e-300


def split_pair_factor(codes, factor: float) -> list[float]:
    """The factor of each generic slip of a pair (or a single slip) whose product is ``factor``.

    Parameters
    ----------
    codes : sequence of str
        One or two generic slip codes (``["bytes_bits", "kilo_mega"]``).
    factor : float
        The pair's factor (answer / expected) [1].

    Returns
    -------
    list of float
        One factor per code, in the order of ``codes``.

    Examples
    --------
    >>> split_pair_factor(["bytes_bits", "kilo_mega"], 8000.0)
    [8.0, 1000.0]
    >>> split_pair_factor(["kilo_mega"], 0.001)
    [0.001]
    """
    codes = list(codes)
    if len(codes) < 2:
        return [factor] * len(codes)
    a, b = codes
    for fa in _GENERIC[a][0]:
        for ga in (fa, 1 / fa):
            for fb in _GENERIC[b][0]:
                for gb in (fb, 1 / fb):
                    if abs(ga * gb - factor) <= 1e-9 * abs(factor):
                        return [ga, gb]
    return [factor, 1.0]  # pragma: no cover - pairs are built from these factors


def evaluate(given, status, expected, bases, rtol, atol, sigfigs, display_factor,
             alternatives=None, credit=None, percent=None, nonnegative=None):
    """Grade many answers at once (the vectorised core of check and batch grading).

    Parameters
    ----------
    given : ndarray of float
        Answers in base units (NaN when ``status`` is not ``"ok"``, except
        ``"missing_unit"``, where it is the number read in the display unit).
    status : ndarray of str
        ``"ok"``, ``"empty"``, ``"unreadable"``, ``"missing_unit"`` or
        ``"wrong_unit"`` (from :func:`labcalc.grading.parse_answer`).
    expected : ndarray of float
        Expected values in base units.
    bases : ndarray of str
        Base unit of each expected value (``"bit/s"``, ``"byte"``, ``"s"``, ``"1"``).
    rtol, atol, sigfigs, display_factor : ndarray
        Tolerances per answer (``sigfigs`` 0 for none) and the factor from the
        display unit to base units (for significant digits).
    alternatives : dict of str to list of ndarray, optional
        For each context slip, the values a student making it would find (NaN where
        it does not apply).
    credit : mapping, optional
        Credit per diagnosis (see :func:`credit_table`).
    percent : ndarray of bool, optional
        Whether each answer is a share (asked in %, or as a fraction): only those can
        show the ``percent_fraction`` slip. By default every plain number (base unit
        ``"1"``) can.
    nonnegative : ndarray of bool, optional
        Whether each answer is a quantity that cannot be negative (a rate, a size, a
        time, a loss or a share): a negative answer to it is diagnosed ``"negative"``
        and refused, even within the tolerance of a value near 0. By default none.

    Returns
    -------
    dict of ndarray
        ``correct`` (bool), ``score`` (0..1), ``diagnosis`` (object: None or a code),
        ``relative_error`` (NaN when undefined), ``factor`` (the generic factor of
        the recognised slip, 1 when none), ``ratio`` (slip value / expected) and
        ``alternative`` (which value of its context slip matched, in the order of
        ``alternatives[code]``; -1 when none).

    Examples
    --------
    >>> out = evaluate(np.array([586e3, 4.69e6]), np.array(["ok", "ok"]),
    ...                np.array([4.69e6, 4.69e6]), np.array(["bit/s", "bit/s"]),
    ...                np.array([0.01, 0.01]), np.zeros(2), np.zeros(2), np.ones(2))
    >>> out["diagnosis"].tolist(), out["score"].tolist()
    (['bytes_bits', None], [0.5, 1.0])
    """
    # Long because it evaluates every slip for a whole batch of answers at once
    # (vectorised); the slips are a flat sequence of masks, each a few lines.
    credit = credit_table(credit)
    given = np.asarray(given, float)
    expected = np.asarray(expected, float)
    status = np.asarray(status, object)
    bases = np.asarray(bases, object)
    n = expected.shape[0]
    rtol = np.broadcast_to(np.asarray(rtol, float), (n,))
    atol = np.broadcast_to(np.asarray(atol, float), (n,))
    sigfigs = np.broadcast_to(np.asarray(sigfigs, float), (n,))
    display_factor = np.broadcast_to(np.asarray(display_factor, float), (n,))
    alternatives = {k: [np.broadcast_to(np.asarray(v, float), (n,)) for v in vs]
                    for k, vs in (alternatives or {}).items()}
    percent = None if percent is None else np.broadcast_to(np.asarray(percent, bool), (n,))

    ok = status == "ok"
    tol = tolerance_band(expected, rtol, atol, sigfigs, display_factor)
    diff = np.abs(given - expected)
    negative = np.zeros(n, bool)
    if nonnegative is not None:
        with np.errstate(invalid="ignore"):
            negative = ok & np.broadcast_to(np.asarray(nonnegative, bool), (n,)) & (given < 0)
        ok = ok & ~negative
    with np.errstate(invalid="ignore"):
        correct = ok & (diff <= tol)
    diagnosis = np.full(n, None, dtype=object)
    score = np.where(correct, 1.0, 0.0)
    factor = np.ones(n)
    ratio = np.full(n, np.nan)
    alternative = np.full(n, -1, dtype=np.int64)
    diagnosis[negative] = "negative"
    score[negative] = credit["negative"]
    with np.errstate(divide="ignore", invalid="ignore"):
        relative_error = np.where(ok & (expected != 0), (given - expected) / np.abs(expected), np.nan)

    for code in ("empty", "unreadable", "wrong_unit"):
        hit = status == code
        diagnosis[hit] = code
        score[hit] = credit[code]
    missing = status == "missing_unit"
    if np.any(missing):
        with np.errstate(invalid="ignore"):
            right_in_display = missing & (diff <= tol)
        diagnosis[missing] = "missing_unit"
        score[missing] = np.where(right_in_display[missing], credit["missing_unit"], 0.0)

    todo = np.flatnonzero(ok & ~correct)
    if todo.size:
        labels, factors, values, is_pair, which = slip_candidates(
            expected[todo], bases[todo], {k: [v[todo] for v in vs] for k, vs in alternatives.items()},
            None if percent is None else percent[todo],
        )
        g = given[todo][:, None]
        e = expected[todo][:, None]
        # the band around a slip's value is the right answer's band transformed by the
        # slip: the relative part follows the value, and so does the absolute part (a
        # value 1000 times too small keeps a thousandth of it, so no band reaches 0)
        # a slip of a huge key (1e308 x 1000) overflows to inf: no band, it matches nothing
        finite = np.isfinite(values)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            scale = np.where(finite & (e != 0), np.abs(values / np.where(e != 0, e, 1.0)), 1.0)
        cand_tol = tolerance_band(np.where(finite, values, 0.0), rtol[todo][:, None], atol[todo][:, None] * scale,
                                  sigfigs[todo][:, None], display_factor[todo][:, None])
        cand_tol = np.where(finite, cand_tol, np.nan)
        with np.errstate(invalid="ignore"):
            gap = np.abs(g - values)
            dist = gap / (SLIP_BAND * cand_tol)
            # a slip value that is itself within tolerance of the answer key cannot be
            # told apart from a right answer; and the answer must sit clearly closer to
            # the slip's value than to the key (an answer 1.5 % off is not a 2.4 %
            # binary-prefix slip, it is a rounding one)
            same = np.abs(values - e) <= cand_tol
            far = 2.0 * gap >= diff[todo][:, None]
            # an answer that cannot be told from 0 (0 itself, or within the slip's
            # tolerance of 0) earns nothing for a slip
            zero = (g == 0) | (np.abs(g) <= cand_tol)
        dist = np.where(np.isnan(dist) | same | far | zero | (values == 0), np.inf, dist)
        # the other byte accounting comes before a binary prefix: the two can be 0.1 %
        # apart (1066/1042 = 1.023 against 1.024), and the accounting is what the lab is
        # about
        labels_arr = np.asarray(labels, dtype=object)
        accounting_cols = labels_arr == "wire_vs_shaper"
        if accounting_cols.any():
            by_accounting = (dist[:, accounting_cols] <= 1.0).any(axis=1)
            binary_cols = np.array(["binary_prefix" in str(lab).split("+") for lab in labels])
            dist[np.ix_(by_accounting, binary_cols)] = np.inf
        best_single = np.where(is_pair[None, :], np.inf, dist)
        best_pair = np.where(is_pair[None, :], dist, np.inf)
        j_single = np.argmin(best_single, axis=1)
        j_pair = np.argmin(best_pair, axis=1)
        d_single = best_single[np.arange(todo.size), j_single]
        d_pair = best_pair[np.arange(todo.size), j_pair]
        use_single = d_single <= 1.0
        use_pair = ~use_single & (d_pair <= 1.0)
        chosen = np.where(use_single, j_single, j_pair)
        matched = use_single | use_pair
        # credit of each column: the product of its slips' credits
        shares = np.array([np.prod([credit[part] for part in str(lab).split("+")]) for lab in labels])
        hit, j = todo[matched], chosen[matched]
        diagnosis[hit] = labels_arr[j]
        score[hit] = shares[j]
        factor[hit] = np.asarray(factors, float)[j]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio[hit] = np.where(expected[hit] != 0,
                                  values[np.flatnonzero(matched), j] / expected[hit], np.nan)
        alternative[hit] = which[j]
        rest = todo[~matched]
        with np.errstate(invalid="ignore"):
            rounded = rest[diff[rest] <= ROUNDING_FACTOR * tol[rest]]
        diagnosis[rounded] = "rounding"
        score[rounded] = credit["rounding"]
    return {
        "correct": correct,
        "score": score,
        "diagnosis": diagnosis,
        "relative_error": relative_error,
        "factor": factor,
        "ratio": ratio,
        "alternative": alternative,
    }
