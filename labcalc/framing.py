"""Ethernet / IP / UDP / TCP framing: sizes, efficiency, maximum goodput.

Four ways to count the bytes that one datagram or segment costs, from the smallest
to the largest (``accounting=``):

``"ip"``
    the IP packet: IP header + transport header (+ options) + payload.
``"tc"``
    what a Linux qdisc (``tc`` shaper, as Mininet's ``TCLink``) charges: the Ethernet
    header + the IP packet (``skb->len``); no FCS, preamble or gap.
``"frame"``
    the MAC frame: Ethernet header (+ 802.1Q tag) + IP packet + padding to the 64-byte
    minimum + FCS.
``"wire"``
    the time the frame takes on the wire: frame + preamble/SFD (8 bytes) + inter-frame
    gap (12 bytes). This is what the lab handout calls the Ethernet frame size.

For 1000 bytes of UDP data the four give 1028, 1042, 1062 and 1066 bytes. The handout's
theory uses 1066 (Q3), but its measured goodput (4798 kbit/s on a 5 Mbit/s shaper, Q7)
is exactly what the ``"tc"`` accounting predicts: 5e6 x 1000 / 1042 = 4798.5 kbit/s.

Segmentation offload: with TSO/GSO the capture shows a "segment" of several MSS (the
handout's 2896 bytes = 2 x 1448). :func:`frame` accepts such sizes (it describes one
unit as captured); pass ``mss_bytes=1448`` to :func:`max_goodput_bps` and friends to
count the frames that really leave the interface (:func:`segment_frames`).

Examples
--------
>>> f = frame(1000)
>>> f.wire_bytes, f.frame_bytes, f.tc_bytes, f.ip_bytes
(1066, 1046, 1042, 1028)
>>> round(max_goodput_bps(5e6, 1000) / 1e3, 1)
4690.4
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "PREAMBLE_SFD_BYTES",
    "INTERFRAME_GAP_BYTES",
    "ETHERNET_HEADER_BYTES",
    "VLAN_TAG_BYTES",
    "FCS_BYTES",
    "MIN_FRAME_BYTES",
    "IP_HEADER_BYTES",
    "TRANSPORT_HEADER_BYTES",
    "ACCOUNTINGS",
    "Frame",
    "FrameTrain",
    "frame",
    "segment_frames",
    "efficiency",
    "max_goodput_bps",
    "packets_per_second",
    "payload_for_mtu",
    "frames_for_mtu",
    "ECN_CODEPOINTS",
    "ecn_codepoint",
]

#: Preamble (7) + start frame delimiter (1) [byte]; IEEE 802.3 clause 3.2.1-3.2.2.
PREAMBLE_SFD_BYTES = 8
#: Minimum inter-frame gap, 96 bit times [byte]; IEEE 802.3 clause 4.4.2.
INTERFRAME_GAP_BYTES = 12
#: Destination MAC 6 + source MAC 6 + EtherType 2 [byte].
ETHERNET_HEADER_BYTES = 14
#: IEEE 802.1Q tag inserted after the source MAC [byte].
VLAN_TAG_BYTES = 4
#: Frame check sequence, CRC-32 [byte].
FCS_BYTES = 4
#: Minimum MAC frame (header + data + FCS); shorter frames are padded [byte].
MIN_FRAME_BYTES = 64
#: IPv4 header without options (RFC 791) and IPv6 fixed header (RFC 8200) [byte].
IP_HEADER_BYTES = {"v4": 20, "v6": 40}
#: UDP header (RFC 768) and TCP header without options (RFC 9293) [byte].
TRANSPORT_HEADER_BYTES = {"udp": 8, "tcp": 20}
#: The byte accountings understood by :meth:`Frame.bytes`.
ACCOUNTINGS = ("ip", "tc", "frame", "wire")

_MAX_IP_PACKET = {"v4": 65535, "v6": 65535 + 40}  # total-length / payload-length fields


@dataclass(frozen=True)
class Frame:
    """One datagram or segment and the bytes each layer adds [byte].

    Build it with :func:`frame`. All sizes are in bytes.

    Attributes
    ----------
    payload_bytes : int
        Application data carried [byte].
    transport, ip : str
        ``"udp"``/``"tcp"`` and ``"v4"``/``"v6"``.
    transport_header_bytes : int
        UDP 8, or TCP 20 + options [byte].
    ip_header_bytes : int
        20 (IPv4) or 40 (IPv6) [byte].
    ethernet_header_bytes : int
        14, or 18 with an 802.1Q tag [byte].
    padding_bytes : int
        Zero bytes added to reach the 64-byte minimum frame [byte].
    fcs_bytes, preamble_sfd_bytes, interframe_gap_bytes : int
        4, 8 and 12 [byte].

    Examples
    --------
    >>> f = frame(18)
    >>> f.transport_header_bytes, f.padding_bytes, f.frame_bytes
    (8, 0, 64)
    """

    payload_bytes: int
    transport: str
    ip: str
    transport_header_bytes: int
    ip_header_bytes: int
    ethernet_header_bytes: int
    padding_bytes: int
    fcs_bytes: int = FCS_BYTES
    preamble_sfd_bytes: int = PREAMBLE_SFD_BYTES
    interframe_gap_bytes: int = INTERFRAME_GAP_BYTES

    @property
    def ip_bytes(self) -> int:
        """IP packet: IP header + transport header + payload [byte]."""
        return self.ip_header_bytes + self.transport_header_bytes + self.payload_bytes

    @property
    def tc_bytes(self) -> int:
        """What a Linux qdisc charges: Ethernet header + IP packet [byte]."""
        return self.ethernet_header_bytes + self.ip_bytes

    @property
    def frame_bytes(self) -> int:
        """MAC frame: Ethernet header + IP packet + padding + FCS [byte]."""
        return self.tc_bytes + self.padding_bytes + self.fcs_bytes

    @property
    def wire_bytes(self) -> int:
        """Link time of the frame: preamble/SFD + frame + inter-frame gap [byte]."""
        return self.preamble_sfd_bytes + self.frame_bytes + self.interframe_gap_bytes

    @property
    def overhead_bytes(self) -> int:
        """Wire bytes that are not payload [byte]."""
        return self.wire_bytes - self.payload_bytes

    def bytes(self, accounting: str = "wire") -> int:
        """Size of the unit in the chosen accounting [byte].

        Parameters
        ----------
        accounting : {"wire", "frame", "tc", "ip"}

        Examples
        --------
        >>> frame(1000).bytes("tc")
        1042
        """
        _check_accounting(accounting)
        return getattr(self, f"{accounting}_bytes")

    def efficiency(self, accounting: str = "wire") -> float:
        """Payload bytes / bytes counted in ``accounting`` [1].

        Examples
        --------
        >>> round(frame(1000).efficiency("wire"), 6)
        0.938086
        >>> round(frame(1000).efficiency("tc"), 6)
        0.959693
        """
        return self.payload_bytes / self.bytes(accounting)

    def fits_mtu(self, mtu_bytes: int = 1500) -> bool:
        """Whether the IP packet fits in one frame of the given MTU [byte].

        Examples
        --------
        >>> frame(1472).fits_mtu(), frame(1473).fits_mtu()
        (True, False)
        """
        return self.ip_bytes <= mtu_bytes

    def table(self):
        """The layers as a pandas DataFrame (layer, bytes) with the four totals.

        Examples
        --------
        >>> int(frame(1000).table().loc["wire (handout)", "bytes"])
        1066
        """
        import pandas as pd

        rows = [
            ("preamble + SFD", self.preamble_sfd_bytes),
            ("Ethernet header" + (" + 802.1Q" if self.ethernet_header_bytes > 14 else ""),
             self.ethernet_header_bytes),
            (f"IP{self.ip} header", self.ip_header_bytes),
            (f"{self.transport.upper()} header", self.transport_header_bytes),
            ("payload", self.payload_bytes),
            ("padding", self.padding_bytes),
            ("FCS", self.fcs_bytes),
            ("inter-frame gap", self.interframe_gap_bytes),
            ("ip (IP packet)", self.ip_bytes),
            ("tc (Linux shaper)", self.tc_bytes),
            ("frame (MAC frame)", self.frame_bytes),
            ("wire (handout)", self.wire_bytes),
        ]
        return pd.DataFrame(rows, columns=["layer", "bytes"]).set_index("layer")


@dataclass(frozen=True)
class FrameTrain:
    """The frames one offloaded "segment" becomes on the wire (see :func:`segment_frames`).

    Sizes are sums over the frames [byte]; :meth:`efficiency` is total payload / total
    counted bytes.

    Attributes
    ----------
    frames : tuple of Frame
        The frames, in the order they are sent.
    payload_bytes, ip_bytes, tc_bytes, frame_bytes, wire_bytes : int
        Sums over the frames of the same attributes of :class:`Frame` [byte].

    Examples
    --------
    >>> train = segment_frames(2896, 1448)
    >>> len(train.frames), train.payload_bytes, train.wire_bytes
    (2, 2896, 3052)
    """

    frames: tuple[Frame, ...]

    @property
    def payload_bytes(self) -> int:
        return sum(f.payload_bytes for f in self.frames)

    def bytes(self, accounting: str = "wire") -> int:
        """Total bytes of all frames in ``accounting`` [byte]."""
        return sum(f.bytes(accounting) for f in self.frames)

    @property
    def ip_bytes(self) -> int:
        return self.bytes("ip")

    @property
    def tc_bytes(self) -> int:
        return self.bytes("tc")

    @property
    def frame_bytes(self) -> int:
        return self.bytes("frame")

    @property
    def wire_bytes(self) -> int:
        return self.bytes("wire")

    def efficiency(self, accounting: str = "wire") -> float:
        """Total payload / total bytes counted in ``accounting`` [1]."""
        return self.payload_bytes / self.bytes(accounting)


def _check_accounting(accounting: str) -> None:
    if accounting not in ACCOUNTINGS:
        raise ValueError(
            f"accounting must be one of {', '.join(ACCOUNTINGS)}; got {accounting!r}"
        )


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a whole number of bytes; got {value!r}")
    if value != int(value):
        raise ValueError(f"{name} must be a whole number of bytes; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value!r}")
    return int(value)


def frame(
    payload_bytes: int,
    transport: str = "udp",
    ip: str = "v4",
    tcp_options_bytes: int = 0,
    vlan: bool = False,
) -> Frame:
    """Sizes of one UDP datagram or TCP segment at every layer [byte].

    Parameters
    ----------
    payload_bytes : int
        Application data in the datagram / segment [byte], >= 0. Sizes above one MTU are
        accepted (a jumbo frame, or a TSO "segment" as a capture shows it).
    transport : {"udp", "tcp"}
        UDP header 8 bytes; TCP header 20 bytes + ``tcp_options_bytes``.
    ip : {"v4", "v6"}
        IPv4 header 20 bytes, IPv6 40 bytes (no extension headers).
    tcp_options_bytes : int, default 0
        TCP options [byte], a multiple of 4 up to 40; 12 for the timestamp option as
        Linux sends it (10 bytes + 2 NOP). Must be 0 for UDP.
    vlan : bool, default False
        Add an 802.1Q tag (4 bytes) to the Ethernet header.

    Returns
    -------
    Frame
        With ``ip_bytes``, ``tc_bytes``, ``frame_bytes``, ``wire_bytes`` and
        ``efficiency(accounting)``.

    Raises
    ------
    ValueError
        For an unknown transport or IP version, a negative or fractional size, TCP
        options that are not a multiple of 4 in 0..40, or an IP packet over 65535 bytes.

    Notes
    -----
    .. math::

        \\text{ip} = H_{IP} + H_{T} + P,\\quad
        \\text{tc} = 14 + \\text{ip},\\quad
        \\text{frame} = \\max(\\text{tc} + 4, 64),\\quad
        \\text{wire} = 8 + \\text{frame} + 12

    (add 4 to the Ethernet header with 802.1Q; the 64-byte minimum then includes the tag).

    References
    ----------
    IEEE 802.3-2018 clauses 3.1-3.2 and 4.4.2 (frame format, minimum size, inter-frame gap);
    IEEE 802.1Q (tag); RFC 791 (IPv4), RFC 8200 (IPv6), RFC 768 (UDP), RFC 9293 (TCP),
    RFC 7323 (timestamp option). Lab handout Q3 (1066 bytes) and Q8 (2986 bytes).

    Examples
    --------
    Handout Q3 (UDP, 1000 bytes of data) and Q8 (TCP with timestamps, 2896 bytes):

    >>> frame(1000).wire_bytes
    1066
    >>> frame(2896, "tcp", tcp_options_bytes=12).wire_bytes
    2986

    A tiny datagram is padded to the 64-byte minimum frame:

    >>> frame(1).padding_bytes, frame(1).frame_bytes
    (17, 64)
    """
    if transport not in TRANSPORT_HEADER_BYTES:
        raise ValueError(f"transport must be 'udp' or 'tcp'; got {transport!r}")
    if ip not in IP_HEADER_BYTES:
        raise ValueError(f"ip must be 'v4' or 'v6'; got {ip!r}")
    payload_bytes = _check_int("payload_bytes", payload_bytes, 0)
    tcp_options_bytes = _check_int("tcp_options_bytes", tcp_options_bytes, 0)
    if transport == "udp" and tcp_options_bytes:
        raise ValueError(f"tcp_options_bytes must be 0 for UDP; got {tcp_options_bytes}")
    if tcp_options_bytes > 40 or tcp_options_bytes % 4:
        raise ValueError(
            f"tcp_options_bytes must be a multiple of 4 between 0 and 40; got {tcp_options_bytes}"
        )
    ip_header = IP_HEADER_BYTES[ip]
    transport_header = TRANSPORT_HEADER_BYTES[transport] + tcp_options_bytes
    ip_packet = ip_header + transport_header + payload_bytes
    if ip_packet > _MAX_IP_PACKET[ip]:
        raise ValueError(
            f"payload_bytes={payload_bytes} makes an IP{ip} packet of {ip_packet} bytes, "
            f"above the {_MAX_IP_PACKET[ip]}-byte limit of the length field"
        )
    eth_header = ETHERNET_HEADER_BYTES + (VLAN_TAG_BYTES if vlan else 0)
    unpadded = eth_header + ip_packet + FCS_BYTES
    return Frame(
        payload_bytes=payload_bytes,
        transport=transport,
        ip=ip,
        transport_header_bytes=transport_header,
        ip_header_bytes=ip_header,
        ethernet_header_bytes=eth_header,
        padding_bytes=max(0, MIN_FRAME_BYTES - unpadded),
    )


def segment_frames(
    payload_bytes: int,
    mss_bytes: int,
    transport: str = "tcp",
    ip: str = "v4",
    tcp_options_bytes: int = 0,
    vlan: bool = False,
) -> FrameTrain:
    """Split an offloaded segment (TSO/GSO) into the frames that leave the interface.

    Parameters
    ----------
    payload_bytes : int
        Size of the "segment" the capture shows [byte] (e.g. 2896).
    mss_bytes : int
        Payload per real frame [byte] (e.g. 1448 = 1500 - 20 - 20 - 12).
    transport, ip, tcp_options_bytes, vlan
        As in :func:`frame`; each real frame repeats all headers.

    Returns
    -------
    FrameTrain
        ``ceil(payload / mss)`` frames, all full but the last.

    Notes
    -----
    Segmentation offload lets the kernel hand the NIC (or, on veth, the GSO layer) one
    large segment; what is transmitted is one frame per MSS, each with its own headers.
    Wireshark on the sending host sees the large segment, the wire sees the frames.

    Examples
    --------
    >>> train = segment_frames(2896, 1448, tcp_options_bytes=12)
    >>> len(train.frames), train.wire_bytes, train.tc_bytes
    (2, 3076, 3028)
    """
    payload_bytes = _check_int("payload_bytes", payload_bytes, 0)
    mss_bytes = _check_int("mss_bytes", mss_bytes, 1)
    full, rest = divmod(payload_bytes, mss_bytes)
    sizes = [mss_bytes] * full + ([rest] if rest or not full else [])
    return FrameTrain(
        tuple(frame(s, transport, ip, tcp_options_bytes, vlan) for s in sizes)
    )


def _unit(payload_bytes, transport, ip, tcp_options_bytes, vlan, mss_bytes):
    if mss_bytes is None:
        return frame(payload_bytes, transport, ip, tcp_options_bytes, vlan)
    return segment_frames(payload_bytes, mss_bytes, transport, ip, tcp_options_bytes, vlan)


def efficiency(
    payload_bytes: int,
    transport: str = "udp",
    ip: str = "v4",
    tcp_options_bytes: int = 0,
    vlan: bool = False,
    accounting: str = "wire",
    mss_bytes: int | None = None,
) -> float:
    """Share of the counted bytes that is application payload [1].

    Parameters
    ----------
    payload_bytes, transport, ip, tcp_options_bytes, vlan
        As in :func:`frame`.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes count against the link (see the module docstring).
    mss_bytes : int, optional
        If given, ``payload_bytes`` is an offloaded segment split into frames of this
        payload (see :func:`segment_frames`).

    Returns
    -------
    float
        ``payload_bytes / bytes(accounting)``.

    Notes
    -----
    goodput = rate x efficiency.

    References
    ----------
    Lab handout Q5 and Q11 (application data size / Ethernet frame size).

    Examples
    --------
    >>> round(efficiency(2896, "tcp", tcp_options_bytes=12), 4)
    0.9699
    """
    unit = _unit(payload_bytes, transport, ip, tcp_options_bytes, vlan, mss_bytes)
    return unit.efficiency(accounting)


def _check_rate(link_bps) -> float:
    if isinstance(link_bps, bool) or not isinstance(link_bps, (int, float)):
        raise ValueError(f"link_bps must be a number of bit/s; got {link_bps!r}")
    if not math.isfinite(link_bps) or link_bps <= 0:
        raise ValueError(f"link_bps must be positive and finite; got {link_bps!r}")
    return float(link_bps)


def max_goodput_bps(
    link_bps: float,
    payload_bytes: int,
    transport: str = "udp",
    ip: str = "v4",
    tcp_options_bytes: int = 0,
    vlan: bool = False,
    accounting: str = "wire",
    mss_bytes: int | None = None,
) -> float:
    """Maximum application goodput of a saturated link [bit/s].

    Parameters
    ----------
    link_bps : float
        Link or shaper rate [bit/s].
    payload_bytes, transport, ip, tcp_options_bytes, vlan, accounting, mss_bytes
        As in :func:`efficiency`.

    Returns
    -------
    float
        ``link_bps x payload_bytes / bytes(accounting)`` [bit/s].

    References
    ----------
    Lab handout Q4 (4690 kbit/s), Q9 (4850 kbit/s), Q7 and Q10 (measured 4798 and 4782
    kbit/s, which the ``"tc"`` accounting reproduces).

    Examples
    --------
    Handout Q4 and Q9 (wire accounting, as in the handout's theory):

    >>> round(max_goodput_bps(5e6, 1000) / 1e3)
    4690
    >>> round(max_goodput_bps(5e6, 2896, "tcp", tcp_options_bytes=12) / 1e3)
    4849

    What the Linux shaper lets through (handout Q7 measured 4798 kbit/s; Q10 measured
    4782 kbit/s, one 1448-byte MSS per frame):

    >>> round(max_goodput_bps(5e6, 1000, accounting="tc") / 1e3, 1)
    4798.5
    >>> round(max_goodput_bps(5e6, 2896, "tcp", tcp_options_bytes=12,
    ...                       accounting="tc", mss_bytes=1448) / 1e3, 1)
    4782.0
    """
    link_bps = _check_rate(link_bps)
    return link_bps * efficiency(
        payload_bytes, transport, ip, tcp_options_bytes, vlan, accounting, mss_bytes
    )


def packets_per_second(
    link_bps: float,
    payload_bytes: int,
    transport: str = "udp",
    ip: str = "v4",
    tcp_options_bytes: int = 0,
    vlan: bool = False,
    accounting: str = "wire",
    mss_bytes: int | None = None,
) -> float:
    """Datagrams (or segments) per second a saturated link carries [1/s].

    Parameters
    ----------
    link_bps : float
        Link or shaper rate [bit/s].
    payload_bytes, transport, ip, tcp_options_bytes, vlan, accounting, mss_bytes
        As in :func:`efficiency`. With ``mss_bytes`` the count is of offloaded segments,
        not of frames.

    Returns
    -------
    float
        ``link_bps / (8 x bytes(accounting))`` [1/s].

    References
    ----------
    IEEE 802.3: 14,880,952 minimum-size frames per second on 10 Gbit/s Ethernet
    (64-byte frames + 20 bytes preamble and gap = 84 bytes).

    Examples
    --------
    >>> round(packets_per_second(5e6, 1000), 2)
    586.3
    >>> round(packets_per_second(10e9, 18))  # 18 bytes of UDP data: a 64-byte frame
    14880952
    """
    link_bps = _check_rate(link_bps)
    unit = _unit(payload_bytes, transport, ip, tcp_options_bytes, vlan, mss_bytes)
    return link_bps / (8.0 * unit.bytes(accounting))


def payload_for_mtu(
    mtu: int = 1500,
    transport: str = "tcp",
    ip: str = "v4",
    tcp_options_bytes: int = 0,
) -> int:
    """Largest payload that fits in one IP packet of size ``mtu`` [byte].

    For TCP this is the MSS; for UDP the largest datagram without IP fragmentation.

    Parameters
    ----------
    mtu : int, default 1500
        Maximum IP packet size of the link [byte]; 9000 for common jumbo frames.
        At least 68 for IPv4 (RFC 791) and 1280 for IPv6 (RFC 8200).
    transport, ip, tcp_options_bytes
        As in :func:`frame`.

    Returns
    -------
    int
        ``mtu - IP header - transport header - options`` [byte].

    References
    ----------
    RFC 9293 section 3.7.1 (MSS), RFC 791, RFC 8200, RFC 7323 (timestamps: 1448 bytes).

    Examples
    --------
    >>> payload_for_mtu(1500, "tcp", tcp_options_bytes=12)
    1448
    >>> payload_for_mtu(1500, "udp"), payload_for_mtu(9000, "tcp", "v6")
    (1472, 8940)
    """
    mtu = _check_int("mtu", mtu, 0)
    if ip not in IP_HEADER_BYTES:
        raise ValueError(f"ip must be 'v4' or 'v6'; got {ip!r}")
    minimum = {"v4": 68, "v6": 1280}[ip]
    if mtu < minimum:
        raise ValueError(f"mtu must be at least {minimum} bytes for IP{ip}; got {mtu}")
    payload = mtu - frame(0, transport, ip, tcp_options_bytes).ip_bytes
    return payload


def frames_for_mtu(
    payload_bytes: int,
    mtu_bytes: int = 1500,
    transport: str = "udp",
    ip: str = "v4",
    tcp_options_bytes: int = 0,
    vlan: bool = False,
) -> FrameTrain:
    """The frames that carry ``payload_bytes`` of application data over a link of MTU ``mtu_bytes``.

    TCP cuts the data into segments of one MSS (``payload_for_mtu``); a UDP datagram
    larger than the MTU is cut by IP into fragments, the first carrying the UDP header.

    Parameters
    ----------
    payload_bytes : int
        Application data of one TCP write / one UDP datagram [byte], >= 0.
    mtu_bytes : int, default 1500
        Largest IP packet of the link [byte].
    transport, ip, tcp_options_bytes, vlan
        As in :func:`frame`.

    Returns
    -------
    FrameTrain
        One frame when the data fits; otherwise the segments or fragments, each with
        its own Ethernet and IP headers.

    Raises
    ------
    ValueError
        As :func:`frame` and :func:`payload_for_mtu` (an MTU below the IP minimum).

    Notes
    -----
    IPv4 fragments carry at most ``floor((MTU - 20) / 8) * 8`` bytes of the datagram
    (UDP header + data) each; IPv6 fragments add an 8-byte fragment header after the
    40-byte header (counted here with the IP header) and carry
    ``floor((MTU - 48) / 8) * 8`` bytes.

    References
    ----------
    RFC 791 section 2.3 (fragmentation, offsets in units of 8 bytes); RFC 8200
    section 4.5 (IPv6 fragment header); RFC 9293 section 3.7.1 (MSS).

    Examples
    --------
    A 3000-byte UDP datagram over a 1500-byte MTU: three IPv4 fragments.

    >>> train = frames_for_mtu(3000, 1500, "udp")
    >>> [f.ip_bytes for f in train.frames], train.wire_bytes
    ([1500, 1500, 68], 3182)
    >>> round(train.efficiency("tc"), 4)
    0.9646
    >>> len(frames_for_mtu(2896, 1500, "tcp", tcp_options_bytes=12).frames)
    2
    """
    payload_bytes = _check_int("payload_bytes", payload_bytes, 0)
    if transport == "tcp":
        mss = payload_for_mtu(mtu_bytes, "tcp", ip, tcp_options_bytes)
        return segment_frames(payload_bytes, mss, "tcp", ip, tcp_options_bytes, vlan)
    single = frame(payload_bytes, transport, ip, tcp_options_bytes, vlan)
    mtu_bytes = _check_int("mtu_bytes", mtu_bytes, 0)
    payload_for_mtu(mtu_bytes, "udp", ip)  # checks the MTU against the IP minimum
    if single.ip_bytes <= mtu_bytes:
        return FrameTrain((single,))
    ip_header = IP_HEADER_BYTES[ip] + (8 if ip == "v6" else 0)
    chunk = (mtu_bytes - ip_header) // 8 * 8
    datagram = TRANSPORT_HEADER_BYTES["udp"] + payload_bytes
    eth = ETHERNET_HEADER_BYTES + (VLAN_TAG_BYTES if vlan else 0)
    frames = []
    offset = 0
    while offset < datagram:
        size = min(chunk, datagram - offset)
        header = TRANSPORT_HEADER_BYTES["udp"] if offset == 0 else 0
        unpadded = eth + ip_header + size + FCS_BYTES
        frames.append(Frame(
            payload_bytes=size - header,
            transport="udp",
            ip=ip,
            transport_header_bytes=header,
            ip_header_bytes=ip_header,
            ethernet_header_bytes=eth,
            padding_bytes=max(0, MIN_FRAME_BYTES - unpadded),
        ))
        offset += size
    return FrameTrain(tuple(frames))


#: The two ECN bits of the IP header (low bits of the IPv4 TOS / IPv6 traffic class
#: byte), RFC 3168 section 5.
ECN_CODEPOINTS = {0b00: "Not-ECT", 0b10: "ECT(0)", 0b01: "ECT(1)", 0b11: "CE"}


def ecn_codepoint(tos: int) -> tuple[str, str]:
    """The ECN field of a TOS / traffic-class byte: its two bits and their meaning.

    Parameters
    ----------
    tos : int
        The IPv4 TOS (or IPv6 traffic class) byte, 0..255, as Wireshark shows it
        (``0x02`` = DSCP 0 with ECT(0)).

    Returns
    -------
    (str, str)
        The two bits (``"10"``) and the codepoint name (``"ECT(0)"``): Not-ECT (the
        sender does not do ECN), ECT(0) / ECT(1) (ECN-capable transport), CE (congestion
        experienced: a router marked the packet instead of dropping it).

    References
    ----------
    RFC 3168 section 5 (codepoints), section 6.1 (the TCP ECE and CWR flags).

    Examples
    --------
    >>> ecn_codepoint(0x02), ecn_codepoint(0x03)
    (('10', 'ECT(0)'), ('11', 'CE'))
    """
    if isinstance(tos, bool) or not isinstance(tos, int) or not 0 <= tos <= 255:
        raise ValueError(f"tos must be a byte value 0..255; got {tos!r}")
    bits = tos & 0b11
    return f"{bits:02b}", ECN_CODEPOINTS[bits]
