"""Constants of the TCP models: Mathis constants, decrease factors, header sizes.

Part of :mod:`labcalc.tcp`, which re-exports every public name.

Examples
--------
>>> SHAPER_HEADER_BYTES, CUBIC_BETA
(66, 0.7)
"""

from __future__ import annotations

import math

from labcalc.framing import frame


__all__ = [
    "RENO_CONSTANT",
    "RENO_DELAYED_ACK_CONSTANT",
    "CUBIC_BETA",
    "RENO_BETA",
    "TCP_TIMESTAMPS_BYTES",
    "SHAPER_HEADER_BYTES",
]


#: sqrt(3/2) ~ 1.2247: Mathis constant, periodic loss, every segment acknowledged [1].
RENO_CONSTANT = math.sqrt(3.0 / 2.0)
#: sqrt(3/4) ~ 0.866: Mathis constant with delayed ACKs (one ACK per 2 segments) [1].
RENO_DELAYED_ACK_CONSTANT = math.sqrt(3.0 / 4.0)
#: CUBIC's multiplicative decrease (RFC 9438, section 4.6): after a loss the window drops
#: to this share of its peak [1]; a queue kept full by CUBIC drains to about this share.
CUBIC_BETA = 0.7
#: Reno's multiplicative decrease (RFC 5681): the window halves on a loss [1].
RENO_BETA = 0.5
#: The TCP timestamps option as Linux sends it on every segment (RFC 7323) [byte].
TCP_TIMESTAMPS_BYTES = 12
#: Bytes a Linux shaper counts per TCP segment beyond its payload [byte]: Ethernet header
#: 14, IP 20, TCP 20 + 12 of timestamps = 66 (the ``"tc"`` accounting of
#: :mod:`labcalc.framing`).
SHAPER_HEADER_BYTES = frame(0, "tcp", tcp_options_bytes=TCP_TIMESTAMPS_BYTES).bytes("tc")
