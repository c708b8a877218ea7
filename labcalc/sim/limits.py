"""ns-3's own limits, checked on a plan before any of it reaches ns-3.

ns-3 does not raise an exception on a value it cannot take: it aborts the process (an
assertion, ``NS_FATAL_ERROR``) or, worse, runs forever. :func:`check_plan` refuses every
such value of a :class:`~labcalc.sim.planning.Plan` with a ``ValueError`` that names the
option, the value, ns-3's limit and what to do; :func:`labcalc.sim.plan` calls it last, so
that :func:`labcalc.sim.simulate` and :func:`labcalc.sim.sweep` never start ns-3 with them.
(What slips through anyway ends only a worker process: :mod:`labcalc.sim.runner`.)

The limits, from ns-3.44's sources (and each one tried in a worker):

==================================  ==============================================================
seed                                1 .. 4294944442: ``RngSeedManager::SetSeed`` puts the seed in
                                    all six components of the MRG32k3a state; ``RngStream``'s
                                    ``CheckSeed`` needs the first three below m1 = 4294967087 and
                                    the last three below m2 = 4294944443 ("invalid Seed" otherwise)
times (durations, delays, gaps)     ``Time`` is a 64-bit count of nanoseconds (292 years): a
                                    one-way delay of 5e11 s (``rtt_ms = 1e15``) overflows it (an
                                    assertion). labcalc keeps every time <= 1e6 s, so that sums
                                    of them, and TCP's timers, stay far inside
link rates                          ``DataRate`` is a whole number of bit/s: below 0.5 bit/s it is 0
                                    and the transmission time divides by it (a floating-point
                                    exception, ``capacity_bps = 1e-3``). Above 2e11 bit/s the
                                    smallest packet (31 bytes) takes less than ns-3's 1-ns clock
                                    tick: a link with no delay then carries packets in zero time
                                    and a TCP flow never lets the clock move
UDP sending gaps                    8 x payload / rate must be >= 1 ns (else the sender sends
                                    forever at one instant) and <= 1e6 s
32-bit attributes                   ``DelAckCount`` (``delayed_ack_count = 2**40`` is out of the
                                    range of its ``UintegerValue``), queue sizes in packets and
                                    RED's byte limits (``QueueSize`` holds 32 bits)
links                               at most 4,194,304 (2**22): each link gets a /30 of 10.0.0.0/8;
                                    more would repeat an address ("duplicate address" abort)
==================================  ==============================================================

Examples
--------
>>> from labcalc.network import Network
>>> from labcalc.sim.planning import plan
>>> check_plan(plan(Network({"l": 5e6}, {"a": ["l"]}), duration_s=1.0)) is None
True
"""

from __future__ import annotations

import math

__all__ = ["check_plan", "short_repr", "timeout_seconds", "MAX_SEED", "MAX_TIME_S", "TIME_RESOLUTION_S", "MIN_CAPACITY_BPS", "MAX_CAPACITY_BPS",
           "MAX_UINT32", "MAX_LINKS", "SMALLEST_PACKET_BYTES"]

#: Largest seed ns-3 takes (every MRG32k3a component below m2 = 4294944443).
MAX_SEED = 4294944442
#: ns-3's clock tick (``Time``'s default resolution) [s].
TIME_RESOLUTION_S = 1e-9
#: Longest time labcalc gives ns-3 (duration, one delay, one gap between datagrams) [s].
MAX_TIME_S = 1e6
#: Slowest link [bit/s]: ``DataRate`` rounds to a whole bit/s, and 0 divides by zero.
MIN_CAPACITY_BPS = 1.0
#: Smallest packet a link carries [bytes]: a 1-byte UDP datagram (IPv4 20 + UDP 8 + PPP 2).
SMALLEST_PACKET_BYTES = 31
#: Fastest named link [bit/s]: its smallest packet still takes at least one clock tick.
MAX_CAPACITY_BPS = 2e11
#: Largest value of ns-3's 32-bit attributes (``DelAckCount``, ``QueueSize``).
MAX_UINT32 = 2**32 - 1
#: Most links one run can address (a /30 each in 10.0.0.0/8).
MAX_LINKS = 2**22
_MAX_DATARATE_BPS = 2.0**64 - 1   # DataRate's uint64_t


def timeout_seconds(timeout_s) -> float | None:
    """A run's wall-time limit as given to ``simulate`` or ``sweep``, checked.

    Parameters
    ----------
    timeout_s : float or None
        Seconds > 0; ``None`` or infinity for no limit.

    Returns
    -------
    float or None
        The limit [s], None for none.

    Raises
    ------
    ValueError
        Zero, a negative number, NaN, a bool or not a number, named with its value.

    Examples
    --------
    >>> timeout_seconds(30), timeout_seconds(math.inf), timeout_seconds(None)
    (30.0, None, None)
    >>> timeout_seconds(0)
    Traceback (most recent call last):
    ...
    ValueError: timeout_s must be a number of seconds > 0 (or None for no limit); got 0
    """
    import numbers

    if timeout_s is None:
        return None
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, numbers.Real) or not timeout_s > 0:
        raise ValueError(f"timeout_s must be a number of seconds > 0 (or None for no limit); got {short_repr(timeout_s)}")
    return None if math.isinf(timeout_s) else float(timeout_s)


def short_repr(value, limit: int = 60) -> str:
    """A value as an error message shows it: its ``repr``, cut to ``limit`` characters.

    Parameters
    ----------
    value : object
        What the user gave.
    limit : int, default 60
        Most characters kept [characters].

    Returns
    -------
    str
        ``repr(value)``, or its first characters and "..." (an int of more than 4300
        digits, whose ``repr`` Python refuses, shows its digit count).

    Examples
    --------
    >>> short_repr(2**64), short_repr(10**100, limit=12)
    ('18446744073709551616', '100000000...')
    """
    try:
        text = repr(value)
    except ValueError:      # int beyond sys.get_int_max_str_digits()
        text = f"<a whole number of about {int(value.bit_length() * 0.30103)} digits>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _bad(what: str, value, why: str) -> ValueError:
    return ValueError(f"{what} = {short_repr(value)}: {why}")


def _time(what: str, value: float, hint: str, lo: float = 0.0) -> None:
    if not (math.isfinite(value) and lo <= value <= MAX_TIME_S):
        raise _bad(what, value, f"ns-3 keeps time as a 64-bit count of nanoseconds; labcalc takes "
                                f"{lo:g} .. {MAX_TIME_S:g} s here; {hint}")


def check_plan(plan) -> None:
    """Refuse every value of a plan that ns-3 would abort on (or never finish with).

    Parameters
    ----------
    plan : labcalc.sim.planning.Plan
        A run as :func:`labcalc.sim.plan` builds it.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        The first value outside ns-3's limits (the module's table), naming the option,
        the value, the limit and a next step.

    Examples
    --------
    >>> from labcalc.network import Link, Network
    >>> from labcalc.sim.planning import plan
    >>> p = plan(Network({"l": Link(5e6, delay_s=0.01)}, {"a": ["l"]}), duration_s=1.0)
    >>> check_plan(p)
    >>> import dataclasses
    >>> check_plan(dataclasses.replace(p, seed=4294967295))
    Traceback (most recent call last):
    ...
    ValueError: seed = 4294967295: ns-3 takes seeds 1 .. 4294944442 (its MRG32k3a generator refuses larger ones); pick another seed
    """
    seed = plan.seed
    if isinstance(seed, bool) or not isinstance(seed, int) or not 1 <= seed <= MAX_SEED:
        raise _bad("seed", seed, f"ns-3 takes seeds 1 .. {MAX_SEED} (its MRG32k3a generator refuses larger ones); "
                                 "pick another seed")
    _time("duration_s", plan.duration_s, "simulate a shorter time", lo=TIME_RESOLUTION_S)
    for what, value in (("interval_s", plan.interval_s), ("queue sampling interval", plan.queue_interval_s)):
        _time(what, value, "choose a longer interval_s (or duration_s)", lo=TIME_RESOLUTION_S)
    dack = plan.delayed_ack_count
    if isinstance(dack, bool) or not isinstance(dack, int) or not 1 <= dack <= MAX_UINT32:
        raise _bad("delayed_ack_count", dack, f"ns-3's TcpSocket::DelAckCount is a 32-bit attribute: 1 .. {MAX_UINT32} "
                                              "(Linux acknowledges every 1 or 2 segments)")
    if len(plan.links) > MAX_LINKS:
        raise _bad("links", len(plan.links), f"one run can address at most {MAX_LINKS:,} links (each named link and "
                                             "two per flow); simulate fewer flows")
    flow_of_private = {}
    for f in plan.flows:
        flow_of_private[f"{f.name}:sender"] = flow_of_private[f"{f.name}:receiver"] = f
    for link in plan.links:
        rate = float(link.capacity_bps)
        if link.private:
            f = flow_of_private.get(link.name)
            if not rate <= _MAX_DATARATE_BPS:
                raise _bad("offered_bps", rate / 10, "ns-3's DataRate holds at most 2**64 - 1 bit/s; offer less")
            d = float(link.delay_s)
            if link.name.endswith(":receiver") and not (math.isfinite(d) and 0.0 <= d <= MAX_TIME_S):
                raise ValueError(f"flows.{f.name if f else link.name}.rtt_s: it adds a one-way delay of {d:g} s on the "
                                 "flow's receiver link (half of rtt_s minus twice its route's delay); ns-3 keeps time "
                                 f"as a 64-bit count of nanoseconds, and labcalc takes delays up to {MAX_TIME_S:g} s: "
                                 "give a shorter rtt_s")
            continue
        where = f"link {link.name!r}"
        if not (math.isfinite(rate) and MIN_CAPACITY_BPS <= rate <= MAX_CAPACITY_BPS):
            raise _bad(f"{where}: capacity_bps", rate,
                       f"ns-3's links run at {MIN_CAPACITY_BPS:g} .. {MAX_CAPACITY_BPS:g} bit/s here (DataRate counts "
                       f"whole bit/s; faster, a {SMALLEST_PACKET_BYTES}-byte packet takes less than ns-3's 1-ns "
                       "clock tick); give a rate in that range")
        _time(f"{where}: delay_s", float(link.delay_s), "give a shorter delay")
        if not 0.0 <= link.error_rate < 1.0:
            raise _bad(f"{where}: error_rate", link.error_rate, "a loss rate is a fraction in [0, 1)")
        if link.red is None:
            if not 1 <= link.queue_packets <= MAX_UINT32:
                why = f"ns-3's QueueSize holds 1 .. {MAX_UINT32} packets"
                if link.host:
                    n = sum(f.transport == "tcp" and f.links[0] == link.name for f in plan.flows)
                    why += (f"; as a sending host's own interface (queue \"host\") it holds its own queue and the "
                            f"send buffers of the {n} TCP flow(s) that start on it (socket_buffer_bytes = "
                            f"{plan.socket_buffer_bytes}): give a smaller socket_buffer_bytes or queue_packets, or "
                            "start fewer flows there")
                raise _bad(f"{where}: queue_packets", link.queue_packets, why)
        else:
            _check_red(where, link)
    for f in plan.flows:
        if not 0.0 <= f.start_s < f.stop_s <= plan.duration_s:
            raise _bad(f"flows.{f.name}: start_s, stop_s", (f.start_s, f.stop_s),
                       f"need 0 <= start_s < stop_s <= duration_s = {plan.duration_s:g}")
        if f.transport == "udp":
            if not 1 <= f.payload_bytes <= 65507:
                raise _bad(f"payload_bytes[{f.name!r}]", f.payload_bytes, "a UDP payload is 1 .. 65507 bytes")
            rate = float(f.payload_rate_bps)
            gap = 8.0 * f.payload_bytes / rate if rate > 0 else math.inf
            if not TIME_RESOLUTION_S <= gap <= MAX_TIME_S:
                raise _bad(f"offered_bps[{f.name!r}] (payload {rate:g} bit/s in {f.payload_bytes}-byte datagrams)",
                           rate, f"the gap between datagrams would be {gap:g} s; ns-3 needs "
                                 f"{TIME_RESOLUTION_S:g} .. {MAX_TIME_S:g} s: offer between "
                                 f"{8.0 * f.payload_bytes / MAX_TIME_S:g} and {8.0 * f.payload_bytes / TIME_RESOLUTION_S:g} "
                                 "bit/s, or change payload_bytes")


def _check_red(where: str, link) -> None:
    red = link.red
    for name in ("min_bytes", "max_bytes", "limit_bytes", "avpkt_bytes", "burst_packets"):
        v = getattr(red, name)
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_UINT32:
            raise _bad(f"{where}: red.{name}", v, f"ns-3's RED takes whole numbers 1 .. {MAX_UINT32}")
    if not red.min_bytes <= red.max_bytes <= red.limit_bytes:
        raise _bad(f"{where}: red", (red.min_bytes, red.max_bytes, red.limit_bytes),
                   "needs min_bytes <= max_bytes <= limit_bytes")
    p = red.probability
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1:
        raise _bad(f"{where}: red.probability", p, "a probability in (0, 1]")
    try:
        attrs = link.red_attributes
    except (ValueError, ZeroDivisionError) as exc:    # what tc itself refuses
        raise _bad(f"{where}: red", red, str(exc)) from None
    if not (math.isfinite(attrs["LInterm"]) and attrs["LInterm"] > 0):
        raise _bad(f"{where}: red.probability", p, "gives the kernel no early-drop probability; raise it")
