"""Unit helpers.

labcalc computes in base units only: bit/s for rates, seconds for times, bytes for
sizes and plain fractions (0..1) for losses and ratios. The helpers below convert at the
edges: ``Mbps(5)`` builds an input, ``to_kbps(x)`` formats an output.

For parsing free-text answers such as ``"4.69 Mbit/s"`` a single pint registry is kept
(:func:`registry`). Plain pint has traps for networking units (``Mbps`` is megabaud,
``kb`` is kilobarn, ``pkt`` is picoknot, ``Kbit`` is undefined), so the registry defines
``bit``, ``byte``, ``bps`` and ``packet`` explicitly before anything is parsed.
pint is imported only when the registry is first needed.

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
    "BASE_UNITS",
    "format_quantity",
]

#: The base unit of every kind of quantity labcalc returns.
BASE_UNITS = ("bit/s", "byte", "s", "1", "packet")


def bps(value):
    """Rate in bit/s, returned unchanged (for symmetry in user code).

    Examples
    --------
    >>> bps(1500.0)
    1500.0
    """
    return value * 1.0


def kbps(value):
    """Convert kbit/s to bit/s [bit/s] (SI kilo: 1 kbit/s = 1000 bit/s).

    Examples
    --------
    >>> kbps(4690)
    4690000.0
    """
    return value * 1e3


def Mbps(value):  # noqa: N802 - the conventional spelling of the unit
    """Convert Mbit/s to bit/s [bit/s].

    Examples
    --------
    >>> Mbps(1.5)
    1500000.0
    """
    return value * 1e6


def Gbps(value):  # noqa: N802
    """Convert Gbit/s to bit/s [bit/s].

    Examples
    --------
    >>> Gbps(1)
    1000000000.0
    """
    return value * 1e9


def ms(value):
    """Convert milliseconds to seconds [s].

    Examples
    --------
    >>> ms(150)
    0.15
    """
    return value * 1e-3


def us(value):
    """Convert microseconds to seconds [s].

    Examples
    --------
    >>> us(250)
    0.00025
    """
    return value * 1e-6


def percent(value):
    """Convert a percentage to a fraction [1].

    Examples
    --------
    >>> percent(6.2)
    0.062
    """
    return value / 100.0


def to_kbps(rate_bps):
    """Convert bit/s to kbit/s (for display).

    Examples
    --------
    >>> to_kbps(4_798_464.5)
    4798.4645
    """
    return rate_bps / 1e3


def to_Mbps(rate_bps):  # noqa: N802
    """Convert bit/s to Mbit/s (for display).

    Examples
    --------
    >>> to_Mbps(3_401_000.0)
    3.401
    """
    return rate_bps / 1e6


def to_ms(time_s):
    """Convert seconds to milliseconds (for display).

    Examples
    --------
    >>> to_ms(0.3)
    300.0
    """
    return time_s * 1e3


def to_percent(fraction):
    """Convert a fraction to a percentage (for display).

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


_PERCENT = re.compile(r"^\s*([-+]?[0-9.eE+-]+)\s*%\s*$")


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
    parser never evaluates the text as Python.

    Examples
    --------
    >>> parse_quantity("586 kB/s")
    (4688000.0, 'bit/s')
    >>> parse_quantity("6.2 %")
    (0.062, '1')
    >>> parse_quantity("300 ms")
    (0.3, 's')
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"quantity: expected a number with a unit, got {text!r}")
    match = _PERCENT.match(text)
    if match:
        try:
            return float(match.group(1)) / 100.0, "1"
        except ValueError:
            raise ValueError(f"quantity: cannot read the number in {text!r}") from None
    import pint

    ureg = registry()
    try:
        quantity = ureg.Quantity(text.strip())
    except (pint.errors.PintError, ValueError, AttributeError, TypeError, SyntaxError) as exc:
        raise ValueError(f"quantity: cannot parse {text!r} ({exc})") from None
    magnitude = quantity.magnitude
    if not isinstance(magnitude, (int, float)) or not math.isfinite(magnitude):
        raise ValueError(f"quantity: {text!r} is not a finite number")
    for unit, name in (("bit/s", "bit/s"), ("byte", "byte"), ("second", "s"), ("packet", "packet")):
        if quantity.check(ureg.Unit(unit).dimensionality):
            return float(quantity.to(unit).magnitude), name
    if quantity.dimensionless:
        return float(quantity.to("dimensionless").magnitude), "1"
    raise ValueError(f"quantity: {text!r} has unit {quantity.units}, which labcalc does not use")


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
