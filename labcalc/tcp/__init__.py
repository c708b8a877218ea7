"""TCP models: loss-throughput formulas, RTT bias, CUBIC, BDP and slow start.

What a long-lived TCP connection obtains, as a function of what it sees (segment size,
round-trip time, loss or mark probability), from the simplest model to the most detailed:

:func:`mathis_rate_bps`
    the square-root formula c L / (RTT sqrt(p)) of Mathis et al. (1997), the one the lab
    handout uses (c = 1.22, Q19-Q20).
:func:`aimd_rate_bps`
    the same argument for a general AIMD(a, b) source (Floyd, Handley, Padhye 2000);
    AIMD(1, 0.5) is Reno and gives Mathis with c = sqrt(3/2).
:func:`pftk_rate_pps`
    Padhye, Firoiu, Towsley, Kurose (1998): fast retransmit *and* timeouts, with an
    optional receiver-window limit; the full model and its closed-form approximation.
:func:`cubic_average_window`, :func:`cubic_rate_bps`
    the CUBIC response function of RFC 9438 Section 5 (with its Reno-friendly floor).

Around them: :func:`rtt_shares` (several hosts with different RTTs and numbers of
connections behind one bottleneck, Q31 and Q35), the CUBIC window curves
(:func:`cubic_k`, :func:`cubic_window`, :func:`cubic_reno_friendly_window`), the
bandwidth-delay product (:func:`bdp_bytes`, :func:`window_limited_rate_bps`) and slow
start (:func:`slow_start_rounds`, :func:`slow_start_time_s`).

The models live in submodules by topic, and every public name is importable from
:mod:`labcalc.tcp` itself: :mod:`~labcalc.tcp.constants`, :mod:`~labcalc.tcp.formulas`
(Mathis, AIMD, PFTK), :mod:`~labcalc.tcp.cubic`, :mod:`~labcalc.tcp.window` (BDP, slow
start), :mod:`~labcalc.tcp.shares` (RTT bias) and :mod:`~labcalc.tcp.measured` (the loss
rate a measured rate implies, :func:`implied_loss`; a test of finite length round by
round, :func:`round_model_rate`).

Units follow the package convention: rates in bit/s, times in seconds, sizes in bytes,
windows in segments, loss as a fraction in (0, 1]. Every function accepts numpy arrays
and broadcasts them; with scalar inputs it returns a Python float.

Examples
--------
Handout Q20, scenario B2: a 2896-byte segment, RTT 60 ms, 22 % loss.

>>> round(mathis_rate_bps(2896, 0.060, 0.22) / 1e3)
1004
"""

from __future__ import annotations

from labcalc.tcp.constants import (  # noqa: F401
    RENO_CONSTANT,
    RENO_DELAYED_ACK_CONSTANT,
    CUBIC_BETA,
    RENO_BETA,
    TCP_TIMESTAMPS_BYTES,
    SHAPER_HEADER_BYTES,
)
from labcalc.tcp.formulas import (  # noqa: F401
    mathis_rate_bps,
    aimd_rate_bps,
    pftk_rate_pps,
)
from labcalc.tcp.cubic import (  # noqa: F401
    cubic_k,
    cubic_window,
    cubic_reno_friendly_window,
    cubic_average_window,
    cubic_rate_bps,
)
from labcalc.tcp.window import (  # noqa: F401
    bdp_bytes,
    window_limited_rate_bps,
    slow_start_rounds,
    slow_start_time_s,
)
from labcalc.tcp.shares import (  # noqa: F401
    rtt_shares,
    response_shares,
    rtt_bias_exponent,
)
from labcalc.tcp.measured import (  # noqa: F401
    link_packet_bytes,
    implied_loss,
    round_model_rate,
)

# validation helpers shared with labcalc.queueing
from labcalc.tcp._checks import broadcast_shape, first_bad, nonnegative, as_result, check_positive  # noqa: F401, E402

__all__ = [
    "RENO_CONSTANT",
    "RENO_DELAYED_ACK_CONSTANT",
    "mathis_rate_bps",
    "aimd_rate_bps",
    "pftk_rate_pps",
    "rtt_shares",
    "cubic_k",
    "cubic_window",
    "cubic_reno_friendly_window",
    "cubic_average_window",
    "cubic_rate_bps",
    "bdp_bytes",
    "window_limited_rate_bps",
    "slow_start_rounds",
    "slow_start_time_s",
    "response_shares",
    "rtt_bias_exponent",
    "CUBIC_BETA",
    "RENO_BETA",
    "TCP_TIMESTAMPS_BYTES",
    "SHAPER_HEADER_BYTES",
    "link_packet_bytes",
    "implied_loss",
    "round_model_rate",
]
