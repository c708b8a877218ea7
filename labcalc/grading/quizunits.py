"""The unit names a Moodle numerical question lists, with their multipliers.

Part of :mod:`labcalc.grading.export` (which re-exports :data:`UNIT_CHOICES`,
:func:`unit_choices` and :func:`unit_names`): the spellings the answer grammar reads
(:func:`labcalc.units.unit_spellings`) that Moodle can match, for each display unit of the
lab's questions, and the same list with one name per letter-case group for a Moodle on
MySQL or MariaDB (:func:`labcalc.grading.moodle.unit_case_folded`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

__all__ = ["UNIT_CHOICES", "unit_choices", "unit_names"]


class _UnitChoices(Mapping):
    """Display unit -> the unit spellings written into a question, built when first asked.

    Derived from :func:`labcalc.units.unit_spellings` (the spellings the answer grammar
    accepts), so the quiz offers what ``labcalc grade`` reads. The display unit comes
    first with multiplier 1 (Moodle reads a bare number in its first unit); each other
    spelling carries Moodle's multiplier: how many of it make one display unit.
    """

    _DISPLAY = ("Mbit/s", "bytes", "ms", "%", "")

    def __init__(self):
        self._cache: dict[str, tuple[tuple[str, float], ...]] = {}

    def __getitem__(self, unit):
        if unit not in self._DISPLAY:
            raise KeyError(unit)
        if unit not in self._cache:
            if unit in ("%", ""):
                self._cache[unit] = ()  # asked as a fraction / a plain number: no unit
            else:
                from labcalc.units import unit_scale, unit_spellings

                size, base = unit_scale(unit)
                spellings = [(unit, size)] + [(n, f) for n, f in unit_spellings(base) if n != unit]
                listed = {n for n, _ in spellings}
                for name in _EXTRA_SPELLINGS[base]:
                    try:
                        factor, found = unit_scale(name)
                    except ValueError:
                        continue
                    if found == base and name not in listed:
                        spellings.append((name, factor))
                        listed.add(name)
                self._cache[unit] = tuple((n, _clean(size / f)) for n, f in spellings)
        return self._cache[unit]

    def __iter__(self):
        return iter(self._DISPLAY)

    def __len__(self):
        return len(self._DISPLAY)


#: Spellings labcalc reads that Moodle can match (no space) and students type, beyond
#: :func:`labcalc.units.unit_spellings` (lower-case and capitalised words): a capital
#: S after the slash ("Mbit/S"), all-capital rates and sizes ("MBIT/S", "KBYTES"),
#: "octets" and all-capital time words. Moodle matches unit names letter for letter,
#: and no finite list holds every letter case labcalc reads: these are the common
#: ones, within the size budget of the module documentation; the question text says
#: how to type a unit (:func:`labcalc.grading.moodle.how_to_answer`), and labcalc's
#: Moodle mode (:mod:`labcalc.grading.lms`) names any other spelling as one Moodle
#: will not read.
_EXTRA_SPELLINGS = {
    "bit/s": tuple(f"{p}{d}/S" for p in ("", "k", "K", "M", "G") for d in ("b", "B", "bit", "bits")) + tuple(
        f"{p}{d}/{t}" for p in ("", "K", "M", "G") for d in ("BIT", "BITS") for t in ("S", "SEC")),
    "byte": ("octet", "octets", "Octet", "Octets", "BIT", "BITS", "BYTE", "BYTES", "KBIT", "KBITS",
             "KBYTE", "KBYTES", "MBIT", "MBITS", "MBYTE", "MBYTES"),
    "s": ("SEC", "SECS", "SECOND", "SECONDS", "MILLISECOND", "MILLISECONDS", "MICROSECOND", "MICROSECONDS"),
}


def _clean(x: float) -> float:
    """``x`` with the floating-point noise of a unit ratio removed (1000.0000000000001 -> 1000)."""
    return float(f"{x:.15g}")


#: Units offered for each display unit, with Moodle multipliers (how many of the unit
#: make one display unit); see :class:`_UnitChoices`.
UNIT_CHOICES: Mapping[str, Sequence[tuple[str, float]]] = _UnitChoices()


@functools.lru_cache(maxsize=None)
def unit_choices(unit: str, fold_case: bool = False) -> tuple:
    """The (unit name, multiplier) pairs a question asked in ``unit`` lists.

    Parameters
    ----------
    unit : str
        A display unit (``"Mbit/s"``); a unit without spellings lists itself, ``"%"`` and
        ``""`` none.
    fold_case : bool, default False
        Keep one name per group of names that differ only in letter case (a Moodle on
        MySQL or MariaDB: :func:`labcalc.grading.moodle.unit_case_folded`): where they
        mean different units (``b`` bit, ``B`` byte), the one of the question's kind
        (bytes for a size, bits for a rate), else the first listed.

    Returns
    -------
    tuple of (str, float)

    Examples
    --------
    >>> names = [n for n, _ in unit_choices("Mbit/s")]
    >>> "Mbit/S" in names, "Mbit/S" in [n for n, _ in unit_choices("Mbit/s", fold_case=True)]
    (True, False)
    >>> dict(unit_choices("Mbit/s", fold_case=True))["Mbit/s"], "b/s" in dict(unit_choices("Mbit/s", fold_case=True))
    (1.0, True)
    >>> sorted(n for n, _ in unit_choices("bytes", fold_case=True) if n.casefold() in ("b", "kb", "kib"))
    ['B', 'KiB', 'kB']
    """
    choices = tuple(UNIT_CHOICES.get(unit, ((unit, 1.0),)))
    if not fold_case:
        return choices
    groups: dict[str, list[tuple[str, float]]] = {}
    for name, multiplier in choices:
        groups.setdefault(name.casefold(), []).append((name, multiplier))
    # In a group whose names mean different things (b/s: bits, B/s: bytes), keep the one of the
    # question's own kind: bytes for a size, bits for a rate in bits; otherwise the first listed.
    in_bytes = "byte" in unit.lower()
    kept = {}
    for key, members in groups.items():
        if len({m for _, m in members}) > 1:
            own = [(n, m) for n, m in members if ("B" in n) == in_bytes]
            members = own or members
        kept[key] = members[0]
    return tuple(pair for pair in choices if kept[pair[0].casefold()] == pair)


@functools.lru_cache(maxsize=None)
def unit_names(unit: str) -> frozenset:
    """The unit names a question asked in ``unit`` lists (:data:`UNIT_CHOICES`).

    Parameters
    ----------
    unit : str
        A display unit (``"Mbit/s"``); another unit lists none.

    Returns
    -------
    frozenset of str

    Examples
    --------
    >>> "Mbit/S" in unit_names("Mbit/s"), unit_names("")
    (True, frozenset())
    """
    return frozenset(name for name, _ in UNIT_CHOICES.get(unit, ()))
