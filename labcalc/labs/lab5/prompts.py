"""Lab 5's question texts: the context of each question and the numbers they quote.

Examples
--------
>>> prompt_fields()["C"]
'5 Mbit/s'
"""

from __future__ import annotations

from labcalc.labs.lab5.params import Params

__all__ = ["QUESTION_CONTEXT", "ACCOUNTING_PHRASES", "prompt_fields", "label_fields"]


def _rate(x: float) -> str:
    from labcalc.units import format_quantity

    return format_quantity(x, "bit/s")


def _time(x: float) -> str:
    from labcalc.units import format_quantity

    return format_quantity(x, "s")


def label_fields(p: Params) -> dict[str, str]:
    """Fields of the answers' labels: the scenario's numbers, and the TCP option in short."""
    fields = _scenario_fields(p)
    fields["tcp_options_short"] = "with timestamps" if p.tcp_options_bytes else "without options"
    return fields


def _scenario_fields(p: Params) -> dict[str, str]:
    opts = p.tcp_options_bytes
    base = 2 * p.lab53_one_way_delay_s
    return {
        "C": _rate(p.bottleneck_bps),
        "payload": f"{p.udp_payload_bytes}",
        "seg": f"{p.tcp_segment_bytes}",
        "mss": f"{p.mss_bytes}",
        "tcp_options": f"a {opts}-byte TCP timestamp option" if opts else "no TCP option",
        "h1": _rate(p.h1_udp_bps),
        "h2_A1": _rate(p.h2_udp_bps[0]),
        "h2_A2": _rate(p.h2_udp_bps[1]),
        "h2_A3": _rate(p.h2_udp_bps[2]),
        "loss_B2": f"{100 * p.b_loss[0]:.4g} %",
        "loss_B3": f"{100 * p.b_loss[1]:.4g} %",
        "rtt_B2": _time(p.b_rtt_s[0]),
        "rtt_B3": _time(p.b_rtt_s[1]),
        "a_access": _rate(p.a_access_bps),
        "c_access": _rate(p.c_access_bps),
        "shared": _rate(p.shared_bps),
        "cd_exit": _rate(p.cd_exit_bps),
        "ab_exit": _rate(p.ab_exit_bps),
        "h3_delay": _time(p.h3_delay_s),
        "d1_h2": f"{p.d1_connections[1]}",
        "Y_D2": _time(p.extra_delay_s[0]),
        "Y_D3": _time(p.extra_delay_s[1]),
        "c53_1": _rate(p.lab53_bottleneck_bps[0]),
        "c53_2": _rate(p.lab53_bottleneck_bps[1]),
        "d53": _time(p.lab53_one_way_delay_s),
        "rtt53": _time(base),
        "rtt_1to2": _time(p.lab53_rtt_s[0]),
        "rtt_1to3": _time(p.lab53_rtt_s[1]),
        "rtt_2to3": _time(p.lab53_rtt_s[2]),
    }


def _network(fields: dict[str, str]) -> str:
    """The collapse network in one sentence, so that each of its questions stands alone."""
    return (f"Flow A->B crosses links A-N1 ({fields['a_access']}), N1-N2 ({fields['shared']}) and N2-B "
            f"({fields['ab_exit']}); flow C->D crosses C-N1 ({fields['c_access']}), N1-N2 and N2-D "
            f"({fields['cd_exit']}).")



QUESTION_CONTEXT: dict[str, str] = {
    "Q3": "A UDP client sends datagrams that carry {payload} bytes of application data "
          "each over Ethernet.",
    "Q4": "The router's interface toward h3 is shaped to {C}, and the UDP datagrams carry "
          "{payload} bytes of data each.",
    "Q8": "A packet capture on the sender shows TCP segments that carry {seg} bytes of data "
          "each and {tcp_options}.",
    "Q9": "The TCP segments carry {seg} bytes of data each and {tcp_options}; each one is "
          "{tcp_frames}.",
    "Q13": "h1 and h2 send UDP datagrams of {payload} bytes of data to h3 through a {C} "
           "drop-tail bottleneck that {link_counts}. h1 sends at {h1}; h2 "
           "sends at {h2_A1} in scenario A1, {h2_A2} in A2 and {h2_A3} in A3. Without "
           "congestion control, an overloaded queue drops the same share of every flow.",
    "Q17": "Scenario B1: h1 sends UDP at {h1} and h2 at {h2_A1} ({payload}-byte datagrams) "
           "through a {C} bottleneck that {link_counts}, while a long TCP transfer from h2 "
           "takes whatever capacity the UDP flows leave; each TCP segment ({seg} bytes of "
           "data, {tcp_options}) {tcp_counts}.",
    "Q19": "Reno's loss-throughput formula predicts a rate of c * L / (RTT * sqrt(q)) for "
           "segments of L bits, a round-trip time RTT and a loss probability q.",
    "Q20": "A TCP connection sends {seg}-byte segments and sees the loss of h2's UDP flow: "
           "{loss_B2} with an RTT of {rtt_B2} in scenario B2, {loss_B3} with an RTT of "
           "{rtt_B3} in B3. Use Reno's loss-throughput formula with c = sqrt(3/2).",
    "Q21": "Flow A->B crosses links A-N1 ({a_access}), N1-N2 ({shared}) and N2-B "
           "({ab_exit}); flow C->D crosses C-N1 ({c_access}), N1-N2 and N2-D ({cd_exit}). "
           "Without congestion control, A and C send UDP ({payload}-byte datagrams) at the "
           "full speed of their access links; queues are drop-tail and {links_count}.",
    "Q22": "{network} Without congestion control, A and C send UDP ({payload}-byte "
           "datagrams) at the full speed of their access links; queues are drop-tail and "
           "{links_count}.",
    "Q23": "{network} A and C send at the rates of the max-min fair allocation of the "
           "link capacities, counted on the links with headers ({payload}-byte datagrams, "
           "{links_count}).",
    "Q24": "{network} A and C send at the rates of the proportionally fair allocation of "
           "the link capacities.",
    "Q27": "{network} A and C send with TCP; each segment ({seg} bytes of data, "
           "{tcp_options}) {tcp_counts}, and TCP is expected to reach the max-min fair "
           "rates.",
    "Q29": "An extra delay of {h3_delay} is added to every packet that leaves h3-eth0 (one "
           "direction only). Every other link and interface adds no delay of its own, and "
           "the queues are empty.",
    "Q31": "Scenario D1: through the {C} bottleneck, h1 opens one TCP connection to h3 and "
           "h2 opens {d1_h2} connections; all of them have the same RTT and the link is "
           "shared per connection.",
    "Q35": "Scenarios D2 and D3: h1 and h2 each open one TCP connection to h3 through the "
           "{C} bottleneck. h2's RTT is {h3_delay}; h1's is longer by {Y_D2} in D2 and by "
           "{Y_D3} in D3. Assume each connection gets a rate inversely proportional to its "
           "RTT and that together they fill the link; each segment ({seg} bytes of data, "
           "{tcp_options}) {tcp_counts}.",
    "Q39": "Three TCP connections share two routers: 1to3 crosses router 1 ({c53_1}) and "
           "router 2 ({c53_2}), 1to2 crosses router 1 only and 2to3 router 2 only.",
    "Q40": "Three TCP connections share two routers: 1to3 crosses router 1 ({c53_1}) and "
           "router 2 ({c53_2}), 1to2 crosses router 1 only and 2to3 router 2 only.",
    "Q41": "An extra delay of {d53} is added to the packets leaving h1-eth0, h2-eth0 and "
           "h3-eth0 (one direction each); every connection crosses two of these interfaces "
           "per round trip.",
    "Q44": "Without queueing every connection would have an RTT of {rtt53}. The measured "
           "average RTTs are {rtt_1to2} for 1to2 (router 1), {rtt_1to3} for 1to3 (both "
           "routers) and {rtt_2to3} for 2to3 (router 2).",
}


#: How the question texts say which bytes the links count, per accounting; fields of
#: :func:`prompt_fields` (their own ``{mss}`` is filled in from the scenario).
ACCOUNTING_PHRASES: dict[str, dict[str, str]] = {
    "wire": {
        "udp_size_q": "How many bytes of link time does one datagram take, counting the preamble "
                      "and SFD, the Ethernet, IP and UDP headers, the FCS and the inter-frame gap?",
        "counted": "every byte the frames take on the wire is counted",
        "tcp_size_q": "Counting such a segment as a single Ethernet frame, how many bytes of link "
                      "time does it take (preamble, all headers, FCS and inter-frame gap included)?",
        "tcp_frames": "counted as a single Ethernet frame on the wire",
        "tcp_counts": "counts as one frame on the wire",
        "link_counts": "counts every byte on the wire",
        "links_count": "every wire byte counts",
    },
    "frame": {
        "udp_size_q": "How many bytes does one datagram take as an Ethernet frame, counting the "
                      "Ethernet, IP and UDP headers and the FCS (but not the preamble, SFD or "
                      "inter-frame gap)?",
        "counted": "the link counts whole Ethernet frames (headers and FCS, but not the "
                   "preamble or the inter-frame gap)",
        "tcp_size_q": "Counting such a segment as a single Ethernet frame, how many bytes does "
                      "the frame take (all headers and the FCS, without preamble or inter-frame "
                      "gap)?",
        "tcp_frames": "counted as a single Ethernet frame (headers and FCS, without preamble or "
                      "inter-frame gap)",
        "tcp_counts": "counts as one Ethernet frame (headers and FCS, no preamble or gap)",
        "link_counts": "counts Ethernet frames (headers and FCS, no preamble or gap)",
        "links_count": "the links count Ethernet frames (headers and FCS, no preamble or gap)",
    },
    "tc": {
        "udp_size_q": "How many bytes does the Linux shaper charge for one datagram, counting the "
                      "Ethernet header and the IP packet (IP and UDP headers and data) but not "
                      "the FCS, preamble or gap?",
        "counted": "the link counts what the Linux shaper counts (the Ethernet header and the "
                   "IP packet of each frame)",
        "tcp_size_q": "Segmentation offload sends such a segment as {mss}-byte packets; how many "
                      "bytes does the Linux shaper charge for the whole segment (the Ethernet "
                      "header and IP packet of each packet)?",
        "tcp_frames": "sent as {mss}-byte packets (segmentation offload), and the Linux shaper "
                      "counts the Ethernet header and IP packet of each",
        "tcp_counts": "leaves as {mss}-byte packets, each counted with its Ethernet header and "
                      "IP packet as the Linux shaper does",
        "link_counts": "counts what the Linux shaper counts (the Ethernet header and IP packet "
                       "of each frame)",
        "links_count": "the links count the Ethernet header and IP packet of each frame, as the "
                       "Linux shaper does",
    },
    "ip": {
        "udp_size_q": "How many bytes is the IP packet of one datagram (IP and UDP headers and "
                      "data)?",
        "counted": "only the IP packets are counted (no Ethernet header, FCS, preamble or gap)",
        "tcp_size_q": "Counting such a segment as a single IP packet, how many bytes does the "
                      "packet take (IP and TCP headers and data)?",
        "tcp_frames": "counted as a single IP packet (IP and TCP headers and data)",
        "tcp_counts": "counts as one IP packet (IP and TCP headers and data)",
        "link_counts": "counts the IP packets only",
        "links_count": "the links count the IP packets only",
    },
}


def prompt_fields(params: Params | None = None, accounting: str = "wire") -> dict[str, str]:
    """The scenario numbers that question texts quote, formatted for reading.

    Parameters
    ----------
    params : Params, optional
        The handout's parameters by default.
    accounting : {"wire", "frame", "tc", "ip"}, default "wire"
        Which bytes of a packet the links count: the phrases of
        :data:`ACCOUNTING_PHRASES` that say so are added to the fields.

    Returns
    -------
    dict of str
        For example ``{"C": "5 Mbit/s", "payload": "1000", "h3_delay": "300 ms", ...}``,
        then the accounting phrases (``"counted"``, ``"tcp_counts"``...).

    Examples
    --------
    >>> f = prompt_fields()
    >>> f["C"], f["h2_A3"], f["loss_B2"], f["rtt53"]
    ('5 Mbit/s', '9 Mbit/s', '22 %', '300 ms')
    >>> prompt_fields(accounting="tc")["tcp_counts"][:23]
    'leaves as 1448-byte pac'
    """
    if accounting not in ACCOUNTING_PHRASES:
        raise ValueError(f"accounting must be one of {', '.join(ACCOUNTING_PHRASES)}; got {accounting!r}")
    fields = _scenario_fields(Params() if params is None else params)
    fields["network"] = _network(fields)
    for name, phrase in ACCOUNTING_PHRASES[accounting].items():
        fields[name] = phrase.format(**fields)
    return fields
