"""Unit helpers.

labcalc computes in base units only: bit/s for rates, seconds for times, bytes for
sizes and plain fractions (0..1) for losses and ratios. The helpers below convert at the
edges: ``Mbps(5)`` builds an input, ``to_kbps(x)`` formats an output.

For parsing free-text answers such as ``"4.69 Mbit/s"`` a single pint registry is kept
(:func:`registry`). Plain pint has traps for networking units (``Mbps`` is megabaud,
``kb`` is kilobarn, ``pkt`` is picoknot, ``Kbit`` is undefined), so the registry defines
``bit``, ``byte``, ``bps`` and ``packet`` explicitly before anything is parsed.
pint is imported only when the registry is first needed.

How answers are read (:func:`split_quantity`, :func:`unit_scale`):

- the text is normalised first (:func:`normalize_text`): Unicode NFKC, invisible
  characters (zero-width spaces, bidirectional controls, soft hyphens...) removed,
  digits of every script made ASCII; the micro sign ``µ`` and the Greek ``μ`` are
  both micro;
- the number may use a decimal comma (``"4,69"``, ``"0,062"``) but a single comma
  before three digits (``"4,690"``) is refused as ambiguous;
- unit words are read in any letter case (``"Bytes"``, ``"BYTES"``, ``"MBit/s"``,
  ``"Mbit/S"``, ``"Megabits per second"``), except where the case is the only
  difference: ``b`` is a bit and ``B`` a byte, ``bps`` (and the all-capital ``BPS``
  of networking: ``"MBPS"``) is bit/s while ``Bps`` is byte/s;
- the m/M rule: a prefix letter keeps its SI meaning (``m`` milli, ``M`` mega) where
  both readings would be possible units, and is read the one sensible way where only
  one is: before a bit or byte unit a lower-case ``m`` is mega (``"mbps"``, ``"mb/s"``:
  millibits do not exist); before a second, ``"ms"`` is milliseconds and ``"Ms"`` or
  ``"MS"`` (megaseconds?) is refused as ambiguous, never taken for milliseconds;
- ``%`` stands alone: ``"4.69 Mbit/s %"`` and ``"6.2 %%"`` are refused;
- the grammar decides every spelling or refuses it; pint only converts names the
  grammar chose. Refused: a prefix before ``min``, ``h`` or a packet (``"kh"``,
  ``"mmin"``, ``"Kpkt"``), a fractional prefix before a bit or byte (``"ubit"``,
  ``"nB"``, ``"µbps"``), a ratio of like quantities or anything but data per time
  (``"Mbit/kbit"``, ``"kmin/s"``, ``"bit/s/s"``); a spelled-out prefix keeps the case
  rules (``"kiloBps"`` is kilobytes per second);
- characters that only look like digits (superscript ``"10⁶"``, subscript, circled
  digits, fraction signs) are refused rather than merged into the number by NFKC.

Examples
--------
>>> Mbps(5)
5000000.0
>>> round(to_kbps(4_690_431.5), 1)
4690.4
>>> ms(300)
0.3
>>> parse_quantity("4.69 Mbit/s")
(4690000.0, 'bit/s')
"""

from __future__ import annotations

import functools
import math
import re

from labcalc.numbers import (  # noqa: F401 - part of this module's interface
    INVISIBLE, MAX_UNIT_CHARS, UNIT_CHARS, clip_text, compatibility_digit, normalize_text, split_quantity,
)

__all__ = [
    "bps",
    "kbps",
    "Mbps",
    "Gbps",
    "ms",
    "us",
    "percent",
    "to_kbps",
    "to_Mbps",
    "to_ms",
    "to_percent",
    "registry",
    "parse_quantity",
    "split_quantity",
    "normalize_text",
    "compatibility_digit",
    "unit_scale",
    "scale_value",
    "BASE_UNITS",
    "format_quantity",
]

#: The base unit of every kind of quantity labcalc returns.
BASE_UNITS = ("bit/s", "byte", "s", "1", "packet")


def bps(value):
    """Rate in bit/s, returned unchanged (for symmetry in user code).

    Parameters
    ----------
    value : float or array_like
        Rate [bit/s].

    Returns
    -------
    float or ndarray
        The same rate [bit/s], as a float.

    Examples
    --------
    >>> bps(1500.0)
    1500.0
    """
    return value * 1.0


def kbps(value):
    """Convert kbit/s to bit/s [bit/s] (SI kilo: 1 kbit/s = 1000 bit/s).

    Parameters
    ----------
    value : float or array_like
        Rate [kbit/s].

    Returns
    -------
    float or ndarray
        The rate [bit/s]: ``value * 1000``.

    Examples
    --------
    >>> kbps(4690)
    4690000.0
    """
    return value * 1e3


def Mbps(value):  # noqa: N802 - the conventional spelling of the unit
    """Convert Mbit/s to bit/s [bit/s].

    Parameters
    ----------
    value : float or array_like
        Rate [Mbit/s].

    Returns
    -------
    float or ndarray
        The rate [bit/s]: ``value * 1e6``.

    Examples
    --------
    >>> Mbps(1.5)
    1500000.0
    """
    return value * 1e6


def Gbps(value):  # noqa: N802
    """Convert Gbit/s to bit/s [bit/s].

    Parameters
    ----------
    value : float or array_like
        Rate [Gbit/s].

    Returns
    -------
    float or ndarray
        The rate [bit/s]: ``value * 1e9``.

    Examples
    --------
    >>> Gbps(1)
    1000000000.0
    """
    return value * 1e9


def ms(value):
    """Convert milliseconds to seconds [s].

    Parameters
    ----------
    value : float or array_like
        Time [ms].

    Returns
    -------
    float or ndarray
        The time [s]: ``value / 1000``.

    Examples
    --------
    >>> ms(150)
    0.15
    """
    return value * 1e-3


def us(value):
    """Convert microseconds to seconds [s].

    Parameters
    ----------
    value : float or array_like
        Time [us].

    Returns
    -------
    float or ndarray
        The time [s]: ``value / 1e6``.

    Examples
    --------
    >>> us(250)
    0.00025
    """
    return value * 1e-6


def percent(value):
    """Convert a percentage to a fraction [1].

    Parameters
    ----------
    value : float or array_like
        Percentage [%].

    Returns
    -------
    float or ndarray
        The fraction [1]: ``value / 100``.

    Examples
    --------
    >>> percent(6.2)
    0.062
    """
    return value / 100.0


def to_kbps(rate_bps):
    """Convert bit/s to kbit/s (for display).

    Parameters
    ----------
    rate_bps : float or array_like
        Rate [bit/s].

    Returns
    -------
    float or ndarray
        The rate [kbit/s].

    Examples
    --------
    >>> to_kbps(4_798_464.5)
    4798.4645
    """
    return rate_bps / 1e3


def to_Mbps(rate_bps):  # noqa: N802
    """Convert bit/s to Mbit/s (for display).

    Parameters
    ----------
    rate_bps : float or array_like
        Rate [bit/s].

    Returns
    -------
    float or ndarray
        The rate [Mbit/s].

    Examples
    --------
    >>> to_Mbps(3_401_000.0)
    3.401
    """
    return rate_bps / 1e6


def to_ms(time_s):
    """Convert seconds to milliseconds (for display).

    Parameters
    ----------
    time_s : float or array_like
        Time [s].

    Returns
    -------
    float or ndarray
        The time [ms].

    Examples
    --------
    >>> to_ms(0.3)
    300.0
    """
    return time_s * 1e3


def to_percent(fraction):
    """Convert a fraction to a percentage (for display).

    Parameters
    ----------
    fraction : float or array_like
        Fraction [1].

    Returns
    -------
    float or ndarray
        The percentage [%].

    Examples
    --------
    >>> to_percent(0.062)
    6.2
    """
    return fraction * 100.0


@functools.lru_cache(maxsize=1)
def registry():
    """The package's single pint ``UnitRegistry``, built for networking units.

    pint's default registry has traps for our units (``bit`` is dimensionless, ``Mbps``
    is megabaud, ``kb`` is kilobarn, ``pkt`` is picoknot, ``Kbit`` is undefined). This
    registry starts empty and defines only what a lab answer needs:

    - ``bit`` (``b``) as its own dimension ``[information]``, ``byte = 8 bit`` (``B``,
      ``octet``); so ``kb`` is kilobit and ``kB`` kilobyte;
    - ``bps = bit / second`` with every SI prefix (``kbps``, ``Mbps``, ``Gbps``; ``K``
      is accepted for kilo), binary prefixes ``Ki``, ``Mi``, ``Gi``;
    - ``second`` (``s``, ``sec``), ``minute``, ``hour``;
    - ``packet`` (``pkt``, ``pkts``) as its own dimension;
    - ``percent`` (``%``) as 0.01.

    Returns
    -------
    pint.UnitRegistry

    Examples
    --------
    >>> ureg = registry()
    >>> ureg.Quantity("5 Mbps").to("bit/s").magnitude
    5000000.0
    >>> ureg.Quantity("2 kB").to("bit").magnitude
    16000.0
    """
    import pint

    ureg = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=True)
    for line in (
        "giga- = 1e9 = G-",
        "mega- = 1e6 = M-",
        "kilo- = 1e3 = k- = K-",
        "milli- = 1e-3 = m-",
        "micro- = 1e-6 = u- = µ-",
        "nano- = 1e-9 = n-",
        "tera- = 1e12 = T-",
        "kibi- = 1024 = Ki-",
        "mebi- = 1048576 = Mi-",
        "gibi- = 1073741824 = Gi-",
        "second = [time] = s = sec = secs = seconds",
        "minute = 60 * second = min",
        "hour = 3600 * second = h = hr",
        "bit = [information] = b = bits",
        "byte = 8 * bit = B = octet = bytes",
        "packet = [packet] = pkt = pkts = packets",
        "bps = bit / second",
        "Bps = byte / second",
        "percent = 0.01 = %",
    ):
        ureg.define(line)
    return ureg


# -- reading a unit: the spelling rules ----------------------------------------------
#
# Written by hand because pint cannot take these spellings as they are: its parser is
# case-sensitive ("BYTES", "MBit/s" fail), reads "Mbps" as megabaud and "kb" as kilobarn,
# and has no notion of the m/M ambiguity below. This layer decides every spelling: it
# maps each factor to pint's name for it and checks that the factors make a quantity
# labcalc uses; pint then only does the conversion of names decided here. A spelling the
# rules below do not decide is refused: nothing reaches pint's own parser undecided.
#
# A unit is read factor by factor ("Mbit/s" is "Mbit" per "s"; "per" works as "/").
# Each factor is an optional prefix and a base:
#
# - base words are read whatever their case: bit(s), byte(s), octet(s), bps, second(s),
#   sec(s), s, packet(s), pkt(s), minute(s), min, hour(s), h, percent; spelled-out
#   prefixes too (kilo, mega, giga, tera, milli, micro, nano, kibi, mebi, gibi:
#   "Megabits per second", "MILLISECONDS");
# - except where case is the only difference: "b" is a bit and "B" a byte ("Mb" and
#   "MB" differ), "bps" is bit/s and "Bps" byte/s, also after a spelled-out prefix
#   ("kiloBps" is kilobyte per second); an all-capital "BPS" is bit/s, as networking
#   writes it ("MBPS" is Mbit/s);
# - prefix letters keep their SI meaning (k/K kilo, M mega, G giga, T tera, m milli,
#   u/µ/μ micro, n nano, Ki/Mi/Gi binary) where both readings would make sense, and
#   are read the one sensible way where only one does: a lower-case m or g before a
#   bit or byte unit is mega or giga ("mbps", "mb/s", "gbps": millibits do not exist);
#   before a second only fractions make sense, so "ms" is milliseconds and "Ms" or
#   "MS" (megaseconds, or milliseconds typed with the wrong case?) is refused as
#   ambiguous rather than guessed;
# - refused as nothing a student means: a prefix before min, h or a packet ("kh",
#   "mmin", "Kpkt"), a fractional prefix before a bit or byte unit ("ubit", "nB",
#   "µbps", "millibits"), a factor the tables do not hold, a space inside a factor
#   ("mega bits");
# - the factors must make a rate (data per time, or bps/Bps alone), a size, a time, a
#   packet count or a percentage: a ratio ("Mbit/kbit", "kmin/s", "s/s"), a product or a
#   third factor ("bit/s/s") is refused;
# - "%" stands alone: "Mbit/s %" is refused.
_PREFIX_WORDS = ("kilo", "mega", "giga", "tera", "milli", "micro", "nano", "kibi", "mebi", "gibi")
_PREFIX_SYMBOLS = {"Ki": "kibi", "Mi": "mebi", "Gi": "gibi", "k": "kilo", "K": "kilo",
                   "M": "mega", "G": "giga", "T": "tera", "m": "milli", "u": "micro",
                   "n": "nano", "g": "giga"}
_BASE_WORDS = {
    "bit": "bit", "bits": "bit", "byte": "byte", "bytes": "byte", "octet": "byte",
    "octets": "byte", "bps": "bps", "second": "second", "seconds": "second", "sec": "second",
    "secs": "second", "s": "second", "packet": "packet", "packets": "packet",
    "pkt": "packet", "pkts": "packet", "minute": "minute", "minutes": "minute",
    "min": "minute", "mins": "minute", "hour": "hour", "hours": "hour", "h": "hour",
    "hr": "hour", "hrs": "hour",
}
_WHOLE_WORDS = {"percent": "percent", "percents": "percent", "pct": "percent", "%": "percent"}
_DATA = ("bit", "byte", "bps", "Bps")
_BIG_PREFIXES = ("kilo", "mega", "giga", "tera", "kibi", "mebi", "gibi")
_SMALL_PREFIXES = ("milli", "micro", "nano")
#: What each base measures: the kinds a unit's factors may combine.
_KIND = {"bit": "data", "byte": "data", "bps": "rate", "Bps": "rate", "second": "time",
         "minute": "time", "hour": "time", "packet": "packet", "percent": "share"}
_KIND_BASE = {"data": "byte", "rate": "bit/s", "time": "s", "packet": "packet", "share": "1"}


def _base(text: str) -> str | None:
    """The pint name of a base unit as typed (case rules above), or None."""
    if text == "b":
        return "bit"
    if text == "B":
        return "byte"
    low = text.lower()
    if low == "bps":
        return "Bps" if text[0] == "B" and text != "BPS" else "bps"
    return _BASE_WORDS.get(low)


def _factor(token: str, unit: str) -> tuple[str, str]:
    """One factor of a unit ("Mbit", "s", "kilobytes"): pint's name for it and its kind.

    Raises ValueError for a factor the spelling rules do not decide (``unit`` is the
    whole unit as typed, quoted in the message).
    """
    whole = _WHOLE_WORDS.get(token.lower())
    if whole is not None:
        return whole, "share"
    base = _base(token)
    if base is not None:
        return (base if base != "Bps" else "byte/second"), _KIND[base]
    low = token.lower()
    candidates = [(word, token[len(word):]) for word in _PREFIX_WORDS  # spelled out: any case
                  if low.startswith(word) and len(token) > len(word)]
    candidates += [(_PREFIX_SYMBOLS[symbol], token[len(symbol):]) for symbol in ("Ki", "Mi", "Gi", *"kKMGTmung")
                   if token.startswith(symbol) and len(token) > len(symbol)]
    refused = None
    for prefix, rest in candidates:
        base = _base(rest)
        if base is None:
            continue
        if base == "packet":
            refused = f"a prefix before '{rest}' is not read; write the number of packets in full"
            continue
        if base in ("minute", "hour"):
            refused = f"a prefix before '{rest}' is not read; write the time in s, ms, min or h"
            continue
        symbol = token[: len(token) - len(rest)]
        if base in _DATA and symbol in ("m", "g"):
            prefix = "mega" if symbol == "m" else "giga"  # millibits do not exist
        elif base in _DATA and prefix in _SMALL_PREFIXES:
            refused = f"'{symbol}' before '{rest}' would be a fraction of a bit or byte"
            continue
        return _prefixed(prefix, base, token), _KIND[base]
    if refused is not None:
        raise ValueError(f"quantity: {clip_text(unit)!r} is not a unit labcalc reads: {refused}")
    raise ValueError(f"quantity: unknown unit {clip_text(unit)!r} ({clip_text(token, 20)!r} is not a "
                     f"unit of rate, size, time, packets or share that labcalc knows)")


def _prefixed(prefix: str, base: str, token: str) -> str:
    if base == "second" and prefix in _BIG_PREFIXES:
        what = f"would be {prefix}seconds" if len(token) <= 4 else "is not a time unit labcalc reads"
        raise ValueError(f"quantity: {clip_text(token, 20)!r} {what}; write 'ms' for milliseconds "
                         f"or 's' for seconds")
    if base == "bps":
        return f"{prefix}bit/second"
    if base == "Bps":
        return f"{prefix}byte/second"
    return prefix + base


def _kind_of(kinds: list[str], unit: str) -> str:
    """The kind of quantity of a unit's factors (numerator, then denominators), or ValueError."""
    if len(kinds) == 1:
        return kinds[0]
    if kinds == ["data", "time"]:
        return "rate"
    raise ValueError(f"quantity: unit {clip_text(unit)!r} ({' per '.join(kinds)}), which labcalc does not "
                     f"use: a rate is data per time (Mbit/s), and sizes, times, packets and % stand alone")


@functools.lru_cache(maxsize=4096)
def unit_scale(unit: str) -> tuple[float, str]:
    """How to bring a value in ``unit`` to base units: (factor, base unit).

    Parameters
    ----------
    unit : str
        A unit as typed: ``"Mbit/s"``, ``"kbps"``, ``"kB/s"``, ``"bytes"``, ``"ms"``,
        ``"%"``; ``""`` or ``"1"`` for a plain number.

    Returns
    -------
    factor : float
        Multiply a value in ``unit`` by it to get base units.
    base : str
        ``"bit/s"``, ``"byte"``, ``"s"``, ``"packet"`` or ``"1"``.

    Raises
    ------
    ValueError
        For an unknown unit, an ambiguous one (``"Ms"``) or one labcalc does not use
        (``"Mbit*s"``, ``"Mbit/s %"``).

    Notes
    -----
    The spelling rules (see the comments above this function in the source, and the
    module documentation): base words are read in any case (``"Bytes"``, ``"BYTES"``,
    ``"MBit/s"``, ``"Mbit/S"``, ``"Megabits per second"``); ``b`` is a bit and ``B``
    a byte; ``bps`` and an all-capital ``BPS`` are bit/s, ``Bps`` byte/s; a prefix
    keeps its SI case where both readings make sense, so ``"ms"`` is milliseconds and
    ``"Ms"``/``"MS"`` is refused as ambiguous; a lower-case ``m`` before a bit or byte
    unit (``"mbps"``, ``"mb/s"``) is mega, since millibits do not exist. The text is
    normalised first (:func:`normalize_text`), so ``"μs"`` (Greek mu) and ``"µs"``
    (micro sign) are both microseconds. A spelling these rules do not decide is
    refused, never handed to pint's parser: a prefix before min, h or packets, a
    fractional prefix before a bit or byte, a ratio such as ``"Mbit/kbit"`` or
    ``"kmin/s"``. Results are cached: an answer file repeats the
    same few unit spellings, so pint parses each of them once.

    Examples
    --------
    >>> unit_scale("kB/s"), unit_scale("Mbps"), unit_scale("ms"), unit_scale("%")
    ((8000.0, 'bit/s'), (1000000.0, 'bit/s'), (0.001, 's'), (0.01, '1'))
    >>> unit_scale("mbps"), unit_scale("MBPS"), unit_scale("MBps"), unit_scale("bits")
    ((1000000.0, 'bit/s'), (1000000.0, 'bit/s'), (8000000.0, 'bit/s'), (0.125, 'byte'))
    >>> unit_scale("Megabits per second"), unit_scale("BYTES"), unit_scale("\\u03bcs")
    ((1000000.0, 'bit/s'), (1.0, 'byte'), (1e-06, 's'))
    >>> unit_scale("Ms")
    Traceback (most recent call last):
    ...
    ValueError: quantity: 'Ms' would be megaseconds; write 'ms' for milliseconds or 's' for seconds
    >>> unit_scale("kiloBps"), unit_scale("Mbit/S")
    ((8000.0, 'bit/s'), (1000000.0, 'bit/s'))
    >>> unit_scale("Mbit/kbit")
    Traceback (most recent call last):
    ...
    ValueError: quantity: unit 'Mbit/kbit' (data per data), which labcalc does not use: a rate is data per time (Mbit/s), and sizes, times, packets and % stand alone
    >>> unit_scale("%%")
    Traceback (most recent call last):
    ...
    ValueError: quantity: '%%' has more than one % sign; write a single one, such as '6.2 %'
    """
    text = " ".join(normalize_text(str(unit)).split())
    if len(text) > MAX_UNIT_CHARS or not UNIT_CHARS.match(text.replace("1", "", text == "1")):
        raise ValueError(f"quantity: {clip_text(unit)!r} is not a unit (letters, '%' and '/' only)")
    if text in ("", "1"):
        return 1.0, "1"
    if text == "%":
        return 0.01, "1"
    if text.count("%") > 1:
        raise ValueError(f"quantity: {clip_text(unit)!r} has more than one % sign; write a single one, "
                         f"such as '6.2 %'")
    text = text.replace("\u00b5", "u").replace("\u03bc", "u")
    factors = [f.strip() for f in re.split(r"\s+per\s+|/", text, flags=re.IGNORECASE)]
    if len(factors) > 1 or " " in text:
        pieces = " ".join(factors).split()
        if any(_WHOLE_WORDS.get(p.lower()) == "percent" for p in pieces):
            raise ValueError(f"quantity: {clip_text(unit)!r} mixes a percentage with another unit")
    if any(not f for f in factors):
        raise ValueError(f"quantity: {clip_text(unit)!r} is not a unit (a '/' without a unit)")
    if any(" " in f for f in factors):
        raise ValueError(f"quantity: unknown unit {clip_text(unit)!r} (a space inside a unit: write "
                         f"'Mbit/s' or 'megabits per second')")
    decided = [_factor(f, unit) for f in factors]
    kind = _kind_of([k for _, k in decided], unit)
    # every name below was decided by the rules above; pint converts, it does not read
    ureg = registry()
    quantity = ureg.Quantity(1.0, ureg.parse_units("/".join(f"({name})" for name, _ in decided)))
    target = {"rate": "bit/second", "data": "byte", "time": "second", "packet": "packet",
              "share": "dimensionless"}[kind]
    return float(quantity.to(target).magnitude), _KIND_BASE[kind]


def scale_value(value: float, factor: float) -> float:
    """``value * factor``, dividing instead when ``1 / factor`` is a whole number.

    ``300 * 0.001`` is 0.30000000000000004 while ``300 / 1000`` is 0.3: dividing keeps
    values typed with a sub-unit (ms, %) exact.

    Parameters
    ----------
    value : float
        Number in some unit.
    factor : float
        Size of that unit in base units [1], e.g. 0.001 for ms.

    Returns
    -------
    float
        ``value`` in base units.

    Examples
    --------
    >>> scale_value(300, 0.001), scale_value(6.2, 0.01), scale_value(4.69, 1e6)
    (0.3, 0.062, 4690000.0)
    """
    if 0 < factor < 1:
        inverse = 1.0 / factor
        if abs(inverse - round(inverse)) < 1e-9 * inverse:
            return value / round(inverse)
    return value * factor


def parse_quantity(text: str) -> tuple[float, str]:
    """Parse a number with a unit into (value in base units, base unit).

    Parameters
    ----------
    text : str
        For example ``"4.69 Mbit/s"``, ``"4690 kbps"``, ``"586 kB/s"``,
        ``"1066 bytes"``, ``"300 ms"``, ``"6.2 %"`` or a bare ``"0.062"``.

    Returns
    -------
    value : float
        The value in base units (bit/s, byte, s, packet or a plain fraction).
    unit : str
        One of ``"bit/s"``, ``"byte"``, ``"s"``, ``"packet"``, ``"1"``.

    Raises
    ------
    ValueError
        When the text is not a number with a known unit; the message quotes the text.

    Notes
    -----
    Bytes per second are converted to bit/s (x 8). Percentages become fractions. The
    parser never evaluates the text as Python: :func:`split_quantity` reads the
    number and :func:`unit_scale` the unit. Text that is not "number, then unit"
    (arithmetic, brackets such as ``"(4.69) mbps"`` or ``"mbit/(s)"``) is refused with
    a ValueError saying why; there is no second parser that could read the same
    spelling differently.

    Examples
    --------
    >>> parse_quantity("586 kB/s")
    (4688000.0, 'bit/s')
    >>> parse_quantity("6.2 %")
    (0.062, '1')
    >>> parse_quantity("300 ms")
    (0.3, 's')
    >>> parse_quantity("4.69 mbit/(s)")
    Traceback (most recent call last):
    ...
    ValueError: quantity: 'mbit/(s)' after the number is not a unit
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"quantity: expected a number with a unit, got {text!r}")
    # One grammar, no fallback: text that is not "number, then unit" is refused with
    # split_quantity's reason. (A fallback to pint's expression parser once read
    # "mbit/(s)" as millibit per second and "(4.69) mbps" as 0.00469, and "1/0" raised
    # ZeroDivisionError.)
    number, unit = split_quantity(text)
    factor, base = unit_scale(unit)
    value = scale_value(number, factor)
    if not math.isfinite(value):  # "1e308 B/s" is finite, 8e308 bit/s is not
        raise ValueError(f"quantity: {clip_text(text)!r} is too large to be a number in {base}")
    return value, base


_DISPLAY = {
    "bit/s": ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"), (1.0, "bit/s")),
    "byte": ((1.0, "bytes"),),
    "s": ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")),
    "1": ((0.01, "%"),),
    "packet": ((1.0, "packets"),),
}


def format_quantity(value: float, unit: str, digits: int = 4) -> str:
    """Human-readable text for a value in base units, with a fitting prefix.

    Parameters
    ----------
    value : float
        Value in base units.
    unit : {"bit/s", "byte", "s", "1", "packet"}
        Its base unit; fractions ("1") are shown as percentages.
    digits : int, default 4
        Significant digits.

    Returns
    -------
    str
        The number with a prefixed unit, e.g. ``'4.69 Mbit/s'``.

    Examples
    --------
    >>> format_quantity(4_690_431.5, "bit/s")
    '4.69 Mbit/s'
    >>> format_quantity(1.5e6, "bit/s"), format_quantity(0.062, "1"), format_quantity(0.3, "s")
    ('1.5 Mbit/s', '6.2 %', '300 ms')
    """
    if unit not in _DISPLAY:
        raise ValueError(f"unit must be one of {', '.join(_DISPLAY)}; got {unit!r}")
    if not math.isfinite(value):
        return f"{value} {_DISPLAY[unit][-1][1]}"
    scales = _DISPLAY[unit]
    for factor, name in scales:
        if abs(value) >= factor * 0.9999 or factor == scales[-1][0]:
            break
    if unit == "s" and abs(value) < 1.0:
        factor, name = (1e-3, "ms") if abs(value) >= 1e-3 or value == 0 else (1e-6, "us")
    return f"{value / factor:.{digits}g} {name}"


def unit_spellings(base: str) -> list[tuple[str, float]]:
    """The usual spellings of units of one kind that :func:`unit_scale` accepts, with their sizes.

    The list is built from the spelling tables of this module (prefix symbols and
    base words), each candidate kept only if :func:`unit_scale` reads it as a unit of
    ``base``, with the factor it returns: so it cannot promise a spelling the grammar
    refuses. The grammar reads words in any letter case, which no finite list covers;
    the list holds each word in lower case and capitalised (``"bytes"``, ``"Bytes"``),
    the all-capital ``"BPS"`` forms, the prefix symbols (``k``/``K``, ``M``, the
    mega ``m`` of ``"mbps"``, ``G``, ``Ki``/``Mi``/``Gi``; the giga ``g``, tera,
    octets and spelled-out data prefixes are left out) and no spaces (a Moodle response has its spaces removed
    before its unit is looked up).

    Parameters
    ----------
    base : {"bit/s", "byte", "s"}
        Kind of quantity.

    Returns
    -------
    list of (str, float)
        Spelling and its size in base units [base unit per unit], in a fixed order,
        without repeats.

    Raises
    ------
    ValueError
        For another ``base``.

    Examples
    --------
    >>> sizes = dict(unit_spellings("bit/s"))
    >>> sizes["Kbps"], sizes["mbit/s"], sizes["Mbit/sec"], sizes["kB/s"]
    (1000.0, 1000000.0, 1000000.0, 8000.0)
    >>> dict(unit_spellings("s"))["msec"], dict(unit_spellings("byte"))["KB"]
    (0.001, 1000.0)
    """
    # the word lists come from _BASE_WORDS (data and time words); the prefix symbols
    # from _PREFIX_SYMBOLS without tera (no lab quantity comes near it)
    data_words = [w for w, b in _BASE_WORDS.items() if b in ("bit", "byte") and not w.startswith("octet")]
    time_words = [w for w, b in _BASE_WORDS.items() if b == "second"]
    cased = lambda words: [v for w in words for v in dict.fromkeys((w, w.capitalize()))]  # noqa: E731
    if base == "bit/s":
        prefixes = ["", *(p for p in _PREFIX_SYMBOLS if p not in "Tg" and _PREFIX_SYMBOLS[p] not in
                          ("milli", "micro", "nano") or p == "m")]
        bodies = [f"{d}/{t}" for d in ["b", "B", *cased(data_words)] for t in ("s", "sec")]
        bodies += ["bps", "Bps", "BPS"]
    elif base == "byte":
        prefixes = ["", *(p for p in _PREFIX_SYMBOLS if p not in "Tg" and _PREFIX_SYMBOLS[p] not in
                          ("milli", "micro", "nano") or p == "m")]
        bodies = ["b", "B", *cased(data_words)]
    elif base == "s":
        prefixes = ["", "m", "u", "\u00b5", "\u03bc", "n", "milli", "micro", "nano"]
        bodies = cased(time_words)
    else:
        raise ValueError(f"unit_spellings: base must be 'bit/s', 'byte' or 's'; got {base!r}")
    out: dict[str, float] = {}
    for p in prefixes:
        for body in bodies:
            if p and base == "s" and body[0] == "S":
                continue  # "mSec", "mS": a capital after a prefix, nobody writes it
            name = p + body
            if name in out:
                continue
            try:
                factor, found = unit_scale(name)
            except ValueError:
                continue
            if found == base:
                out[name] = factor
    return list(out.items())
