"""Scenario files: reading and validating the TOML layout of ``data/scenarios``, building a Network.

This module is the one place that documents and checks the keys of a scenario file;
:mod:`labcalc.network` never imports it (a scenario is read here, then handed to
:class:`~labcalc.network.Network`). Every quantity key carries its unit in its name
(``capacity_mbps``, ``delay_ms``...) and a table gives a quantity in one unit only;
unknown keys are errors (a typo must not be ignored), and a bad value is reported with
the key and the value as the file wrote them (``demand_mbps = -1``). The layout::

    name = "lab53"                 # optional
    description = "..."            # optional
    accounting = "wire"            # optional: how efficiency is derived (framing accountings)
    source = "..."                 # optional: where the numbers come from
    [parameters]                   # optional, free-form: numbers the notebooks quote
    [links.r1-eth1]
    capacity_mbps = 5              # required: capacity_bps / _kbps / _mbps / _gbps; > 0, at most 1 Pbit/s
    delay_ms = 0                   # optional: delay_s / _ms / _us; >= 0
    buffer_packets = 1000          # optional (a drop-tail queue's size; not with queue = "red")
    queue = "red"                  # optional, simulation only: "droptail" (default), "red" or "host"
    red = { min_bytes = 30000 }    # optional with queue = "red": RED parameters (RED_KEYS)
    description = "..."            # optional
    [flows.1to3]                   # a flow may also be written as a list: its route
    route = ["h1-eth0", "r1-eth1", "r2-eth2"]   # required
    demand_mbps = 1                # optional (default: greedy, or inf); any rate unit; >= 0
    weight = 1                     # optional
    rtt_ms = 300                   # optional; any time unit; > 0
    efficiency = 0.97              # optional, or derive it from framing with:
    payload_bytes = 2896           #   payload_bytes (required for the framing keys),
    transport = "tcp"              #   transport ("udp" or "tcp"), ip ("v4" or "v6"),
    tcp_options_bytes = 12         #   tcp_options_bytes, vlan (true/false), mss_bytes,
    accounting = "tc"              #   accounting (else the file's)
    description = "..."            # optional
    [variants.A2]                  # optional named variants, each may set:
    description = "..."            #   a description,
    flows_only = ["h1", "h2"]      #   the flows kept,
    [variants.A2.links.r1-eth1]    #   link fields (a quantity in another unit replaces it)
    [variants.A2.flows.h2]         #   flow fields
    demand_mbps = 4

How a link queues (``queue``, ``red``) is for the simulator only: the theory never reads
it and :class:`~labcalc.network.Link` does not hold it. :func:`link_queues` gives it,
checked, as ``"droptail"``, ``"host"`` or a :class:`RedQueue` per link. ``queue = "host"``
marks a sending host's own interface (Mininet's ``h1-eth0``): a drop-tail queue of
``buffer_packets`` that a Linux host never overflows with its own TCP segments, because
the socket holds back what the interface cannot take yet (TCP small queues and the
qdisc's backpressure); :mod:`labcalc.sim.planning` gives it room for its TCP senders'
send buffers. ``queue = "red"`` is the
queue Mininet's ``TCLink`` builds with ``enable_red=True`` / ``enable_ecn=True``::

    tc qdisc add dev IF parent 5:1 handle 6: red limit 1000000 min 30000 max 35000 \
        avpkt 1500 burst 20 bandwidth <bw>mbit probability 1 [ecn]

(``mininet/link.py``, ``TCIntf.bwCmds``, under an ``htb`` class at the link rate), so the
keys of ``red`` default to those numbers: ``min_bytes = 30000``, ``max_bytes = 35000``,
``limit_bytes = 1000000``, ``probability = 1.0``, ``burst_packets = 20``,
``avpkt_bytes = 1500``, ``ecn = true`` (the router marks ECN-capable packets instead of
dropping them; packets of hosts that do not ask for ECN are dropped either way).

Examples
--------
>>> from labcalc.data import scenario_path
>>> load_network(scenario_path("lab53")).flow_names
['1to3', '1to2', '2to3']
"""

from __future__ import annotations

import copy
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from labcalc.network import MAX_RATE_BPS, Flow, Link, Network, ScenarioError

__all__ = ["load_network", "network_from_dict", "read_scenario", "flow_tables", "link_queues", "RedQueue", "ScenarioError",
           "TOP_KEYS", "LINK_KEYS", "FLOW_KEYS", "VARIANT_KEYS", "QUEUE_KINDS", "RED_KEYS"]

_RATE_UNITS = {"bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9}
_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6}

LINK_KEYS = {"capacity", "delay", "buffer_packets", "queue", "red", "description"}
#: Values of a link's ``queue`` key.
QUEUE_KINDS = ("droptail", "red", "host")
#: Keys of a link's ``red`` table (the fields of :class:`RedQueue`).
RED_KEYS = ("min_bytes", "max_bytes", "limit_bytes", "probability", "burst_packets", "avpkt_bytes", "ecn")


@dataclass(frozen=True)
class RedQueue:
    """A RED queue as ``tc qdisc ... red`` configures it; the defaults are Mininet's ``TCLink``.

    Mininet's ``TCIntf.bwCmds`` (``mininet/link.py``) adds, for ``enable_red=True`` or
    ``enable_ecn=True``, ``red limit 1000000 min 30000 max 35000 avpkt 1500 burst 20
    bandwidth <bw>mbit probability 1``, with ``ecn`` when ``enable_ecn=True``.

    Attributes
    ----------
    min_bytes, max_bytes : int
        tc's ``min`` / ``max``: average backlog [bytes] where early drops begin, and above
        which every packet is dropped (or marked).
    limit_bytes : int
        tc's ``limit``: hard limit of the backlog [bytes].
    probability : float
        tc's ``probability``: the largest early-drop probability, in (0, 1].
    burst_packets : int
        tc's ``burst`` [packets], from which tc derives the averaging weight.
    avpkt_bytes : int
        tc's ``avpkt`` [bytes].
    ecn : bool
        tc's ``ecn``: mark ECN-capable packets instead of dropping them.

    Examples
    --------
    >>> RedQueue().min_bytes, RedQueue(ecn=False).ecn
    (30000, False)
    """

    min_bytes: int = 30000
    max_bytes: int = 35000
    limit_bytes: int = 1000000
    probability: float = 1.0
    burst_packets: int = 20
    avpkt_bytes: int = 1500
    ecn: bool = True


def _red(table, where: str) -> RedQueue:
    """The ``red`` table of a link, checked; every message names the key and its value."""
    if not isinstance(table, Mapping):
        raise ScenarioError(f"{where}: red must be a table of RED parameters; got {_show(table)}")
    for key in table:
        if key not in RED_KEYS:
            raise ScenarioError(f"{where}: unknown field red.{key} (allowed: {', '.join(RED_KEYS)})")
    values = {}
    for key in RED_KEYS:
        if key not in table:
            continue
        value = table[key]
        if key == "ecn":
            if not isinstance(value, bool):
                raise ScenarioError(f"{where}: red.ecn must be true or false; got {_show(value)}")
        elif key == "probability":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise ScenarioError(f"{where}: red.probability must be a number in (0, 1]; got {_show(value)}")
            value = float(value)
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ScenarioError(f"{where}: red.{key} must be a whole number >= 1; got {_show(value)}")
        values[key] = value
    red = RedQueue(**values)
    if not red.min_bytes <= red.max_bytes <= red.limit_bytes:
        raise ScenarioError(f"{where}: red needs min_bytes <= max_bytes <= limit_bytes; got min_bytes = "
                            f"{red.min_bytes}, max_bytes = {red.max_bytes}, limit_bytes = {red.limit_bytes}")
    if red.burst_packets + 1 - red.min_bytes / red.avpkt_bytes < 1:
        # tc refuses it too (tc_red_eval_ewma: "burst is too small")
        raise ScenarioError(f"{where}: red.burst_packets = {red.burst_packets} is too small for min_bytes = "
                            f"{red.min_bytes} and avpkt_bytes = {red.avpkt_bytes} (tc needs burst >= "
                            f"min / avpkt = {red.min_bytes / red.avpkt_bytes:g})")
    return red


def _queue(table: Mapping, where: str):
    """A link's ``queue`` and ``red`` keys, checked: ``"droptail"``, ``"host"`` or a :class:`RedQueue`."""
    kind = table.get("queue", "droptail")
    if not isinstance(kind, str) or kind not in QUEUE_KINDS:
        raise ScenarioError(f"{where}: queue must be one of {', '.join(repr(k) for k in QUEUE_KINDS)}; "
                            f"got {_show(kind)}")
    if kind != "red":
        if "red" in table:
            raise ScenarioError(f"{where}: a red table needs queue = \"red\"; got queue = {kind!r}")
        return kind
    if table.get("buffer_packets") is not None:
        raise ScenarioError(f"{where}: buffer_packets = {_show(table['buffer_packets'])} is a drop-tail size; "
                            "a RED queue's limit is red.limit_bytes")
    return _red(table.get("red", {}), where)
FLOW_KEYS = {
    "route",
    "demand",
    "weight",
    "rtt",
    "efficiency",
    "payload_bytes",
    "transport",
    "ip",
    "tcp_options_bytes",
    "vlan",
    "mss_bytes",
    "accounting",
    "description",
}
TOP_KEYS = {"name", "description", "accounting", "links", "flows", "variants", "parameters", "source"}
VARIANT_KEYS = {"links", "flows", "flows_only", "description"}


def _where(source: str, table: str) -> str:
    return f"{source}: [{table}]"


_UNIT_NAMES = {"bps": "bit/s", "kbps": "kbit/s", "mbps": "Mbit/s", "gbps": "Gbit/s", "s": "s", "ms": "ms", "us": "us"}


def _quantity(table: Mapping, base: str, units: Mapping[str, float], where: str, required: bool,
              positive: bool = False, allow_inf: bool = False):
    """The value of ``base_<unit>`` in base units, checked against the key and value as written.

    ``positive`` asks for > 0 (else >= 0), ``allow_inf`` lets ``inf`` through (a greedy
    demand); a rate is at most MAX_RATE_BPS, said in the unit the file used. These are
    Link's and Flow's checks, made here so that the message shows ``demand_mbps = -1``
    rather than the converted ``demand_bps = -1000000.0``.
    """
    found = [(k, v) for k, v in table.items() if k == base or k.startswith(base + "_") and k[len(base) + 1:] in units]
    found = [(k, v) for k, v in found if k != base]
    if base in table:
        raise ScenarioError(
            f"{where}: field {base!r} needs a unit suffix ({', '.join(base + '_' + u for u in units)})"
        )
    if len(found) > 1:
        raise ScenarioError(f"{where}: {base} given twice ({', '.join(k for k, _ in found)}); keep one")
    if not found:
        if required:
            raise ScenarioError(f"{where}: missing field {base}_{next(iter(units))} (or another unit)")
        return None
    key, value = found[0]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(f"{where}: {key} must be a number; got {value!r}")
    if isinstance(value, float) and math.isnan(value):
        raise ScenarioError(f"{where}: {key} must be a number; got nan")
    unit = key[len(base) + 1:]
    converted = float(value) * units[unit]
    if (value <= 0 if positive else value < 0) or (math.isinf(value) and not allow_inf):
        kind = ("positive" if positive else ">= 0") + ("" if allow_inf else " and finite")
        raise ScenarioError(f"{where}: {key} must be {kind}; got {value!r}")
    if units is _RATE_UNITS and math.isfinite(value) and converted > MAX_RATE_BPS:
        raise ScenarioError(f"{where}: {key} must be at most {MAX_RATE_BPS / units[unit]:g} {_UNIT_NAMES[unit]} "
                            f"(1 Pbit/s, above any physical link); got {value!r}")
    if positive and converted == 0:
        base_unit = "bit/s" if units is _RATE_UNITS else "s"
        raise ScenarioError(f"{where}: {key} must be positive; got {value!r}, which is 0 {base_unit} "
                            f"in floating point")
    return converted


def _check_keys(table: Mapping, allowed: set[str], units: dict[str, Mapping], where: str) -> None:
    if not isinstance(table, Mapping):
        raise ScenarioError(f"{where}: expected a table of fields; got {table!r}")
    for key in table:
        stem = key
        for base, unit_map in units.items():
            if key.startswith(base + "_") and key[len(base) + 1:] in unit_map:
                stem = base
        if stem not in allowed:
            raise ScenarioError(f"{where}: unknown field {key!r} (allowed: {', '.join(sorted(allowed))})")


# Types of the fields that are not quantities (those go through _quantity). Checked
# before use so that a wrong type ("transport = []", "ip = {a=1}") is reported with
# its table and value instead of surfacing as a TypeError deep in framing or Flow.
_NUMBER_TYPES = (int, float)
_FIELD_TYPES = {
    "buffer_packets": (_NUMBER_TYPES, "a number of packets"),
    "weight": (_NUMBER_TYPES, "a number"),
    "efficiency": (_NUMBER_TYPES, "a number between 0 and 1"),
    "payload_bytes": (int, "a whole number of bytes"),
    "tcp_options_bytes": (int, "a whole number of bytes"),
    "mss_bytes": (int, "a whole number of bytes"),
    "transport": (str, "a text ('udp' or 'tcp')"),
    "ip": (str, "a text ('v4' or 'v6')"),
    "vlan": (bool, "true or false"),
    "accounting": (str, "a text"),
    "description": (str, "a text"),
}


def _check_types(table: Mapping, where: str) -> None:
    for key, (types, what) in _FIELD_TYPES.items():
        if key not in table or table[key] is None and key in ("buffer_packets", "mss_bytes"):
            continue
        value = table[key]
        if (isinstance(value, bool) and types is not bool) or not isinstance(value, types):
            raise ScenarioError(f"{where}: {key} must be {what}; got {_show(value)}")


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _table(value, where: str, what: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"{where}: {what} must be a table; got {_show(value)}")
    return value


def _link(table: Mapping, where: str) -> Link:
    if isinstance(table, (int, float)) and not isinstance(table, bool):
        raise ScenarioError(f"{where}: write the capacity with its unit, e.g. capacity_mbps = {table}")
    _check_keys(table, LINK_KEYS, {"capacity": _RATE_UNITS, "delay": _TIME_UNITS}, where)
    _check_types(table, where)
    capacity = _quantity(table, "capacity", _RATE_UNITS, where, required=True, positive=True)
    delay = _quantity(table, "delay", _TIME_UNITS, where, required=False) or 0.0
    _queue(table, where)  # checked here; read by link_queues (the theory has no use for it)
    buffer = table.get("buffer_packets")
    try:
        return Link(capacity, delay_s=delay, buffer_packets=buffer)
    except ScenarioError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def _flow(table: Mapping, where: str, accounting: str) -> Flow:
    if isinstance(table, list):
        table = {"route": table}
    _check_keys(table, FLOW_KEYS, {"demand": _RATE_UNITS, "rtt": _TIME_UNITS}, where)
    if "route" not in table:
        raise ScenarioError(f"{where}: missing field 'route'")
    route = table["route"]
    if not isinstance(route, list) or not route or not all(isinstance(r, str) for r in route):
        raise ScenarioError(f"{where}: route must be a list of link names; got {_show(route)}")
    _check_types(table, where)
    demand = _quantity(table, "demand", _RATE_UNITS, where, required=False, allow_inf=True)
    rtt = _quantity(table, "rtt", _TIME_UNITS, where, required=False, positive=True)
    efficiency = table.get("efficiency")
    framing_keys = {"payload_bytes", "transport", "ip", "tcp_options_bytes", "vlan", "mss_bytes"}
    if framing_keys & set(table):
        if efficiency is not None:
            raise ScenarioError(f"{where}: give either efficiency or payload_bytes/transport, not both")
        if "payload_bytes" not in table:
            raise ScenarioError(f"{where}: missing field 'payload_bytes' (needed with transport/ip/options)")
        if type(table["payload_bytes"]) is int and table["payload_bytes"] < 1:   # framing's efficiency would be 0
            raise ScenarioError(f"{where}: payload_bytes must be at least 1 byte; got {table['payload_bytes']}")
        from labcalc import framing

        try:
            efficiency = framing.efficiency(
                table["payload_bytes"],
                transport=table.get("transport", "udp"),
                ip=table.get("ip", "v4"),
                tcp_options_bytes=table.get("tcp_options_bytes", 0),
                vlan=table.get("vlan", False),
                accounting=table.get("accounting", accounting),
                mss_bytes=table.get("mss_bytes"),
            )
        except ValueError as exc:
            raise ScenarioError(f"{where}: {exc}") from None
    try:
        return Flow(
            table["route"],
            demand_bps=math.inf if demand is None else demand,
            weight=table.get("weight", 1.0),
            rtt_s=rtt,
            efficiency=1.0 if efficiency is None else efficiency,
        )
    except ScenarioError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def _merge(base: dict, override: Mapping, where: str) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            # a quantity given in another unit replaces the base one
            merged = dict(out[key])
            if "queue" in value and "red" not in value:
                merged.pop("red", None)  # a variant that changes the queue starts from its defaults
            for k in list(value):
                stem = k.rsplit("_", 1)[0]
                for old in list(merged):
                    if old != k and old.rsplit("_", 1)[0] == stem and stem in {"capacity", "delay", "demand", "rtt"}:
                        del merged[old]
            merged.update(value)
            out[key] = merged
        else:
            out[key] = copy.deepcopy(value)
    return out


def _tables(data: Mapping, variant: str | None, source: str):
    """The link and flow tables of a scenario with a variant applied, and its accounting."""
    if not isinstance(data, Mapping):
        raise ScenarioError(f"{source}: expected a table at the top level")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise ScenarioError(
            f"{source}: unknown top-level field {sorted(unknown)[0]!r} (allowed: {', '.join(sorted(TOP_KEYS))})"
        )
    accounting = data.get("accounting", "wire")
    from labcalc.framing import ACCOUNTINGS

    if accounting not in ACCOUNTINGS:
        raise ScenarioError(f"{source}: accounting must be one of {', '.join(ACCOUNTINGS)}; got {accounting!r}")
    links = data.get("links")
    flows = data.get("flows", {})
    for key in ("name", "description", "accounting"):
        if key in data and not isinstance(data[key], str):
            raise ScenarioError(f"{source}: {key} must be a text; got {_show(data[key])}")
    if not isinstance(links, Mapping) or not links:
        raise ScenarioError(f"{source}: missing field 'links' (a table with at least one link)")
    if not isinstance(flows, Mapping):
        raise ScenarioError(f"{source}: 'flows' must be a table of flows")
    if "variants" in data:
        for key, value in _table(data["variants"], _where(source, "variants"), "variants").items():
            _table(value, _where(source, f"variants.{key}"), "a variant")
    links, flows = dict(links), dict(flows)
    if variant is not None:
        variants = _table(data.get("variants", {}), _where(source, "variants"), "variants")
        if variant not in variants:
            known = ", ".join(variants) or "none"
            raise ScenarioError(f"{source}: unknown variant {variant!r} (variants: {known})")
        override = variants[variant]
        where = _where(source, f"variants.{variant}")
        if not isinstance(override, Mapping) or set(override) - VARIANT_KEYS:
            raise ScenarioError(f"{where}: a variant may set 'links', 'flows', 'flows_only' and 'description' "
                                f"only; got {_show(override)}")
        link_changes = _table(override.get("links", {}), where, "links")
        flow_changes = _table(override.get("flows", {}), where, "flows")
        for name in link_changes:
            if name not in links:
                raise ScenarioError(f"{where}: unknown link {name!r}")
        links = _merge(links, link_changes, where)
        flows = _merge(flows, flow_changes, where)
        if "flows_only" in override:
            keep = override["flows_only"]
            if not isinstance(keep, list) or not all(isinstance(f, str) for f in keep):
                raise ScenarioError(f"{where}: flows_only must be a list of flow names; got {_show(keep)}")
            missing = [f for f in keep if f not in flows]
            if missing:
                raise ScenarioError(f"{where}: flows_only names unknown flow {missing[0]!r}")
            flows = {name: flows[name] for name in keep}
    return links, flows, accounting


def network_from_dict(data: Mapping, variant: str | None = None, source: str = "scenario") -> Network:
    """Validate a scenario dictionary (the TOML layout of this module) and build its Network.

    Parameters
    ----------
    data : mapping
        The scenario, as ``tomllib`` reads it.
    variant : str, optional
        Name of a ``[variants.NAME]`` table whose fields override the base ones.
    source : str, default "scenario"
        Name of the scenario in messages (the file name).

    Returns
    -------
    labcalc.network.Network

    Raises
    ------
    ScenarioError
        A missing or unknown field, a value of the wrong type or sign; the message
        names the source, the table and the field.

    Examples
    --------
    >>> net = network_from_dict({
    ...     "links": {"r1": {"capacity_mbps": 5}},
    ...     "flows": {"a": {"route": ["r1"], "demand_mbps": 1}},
    ... })
    >>> net.demands_bps.tolist()
    [1000000.0]
    """
    links, flows, accounting = _tables(data, variant, source)
    built_links = {name: _link(t, _where(source, f"links.{name}")) for name, t in links.items()}
    built_flows = {name: _flow(t, _where(source, f"flows.{name}"), accounting) for name, t in flows.items()}
    name = data.get("name", "")
    if variant:
        name = f"{name} {variant}".strip()
    try:
        return Network(built_links, built_flows, name=name, description=data.get("description", ""))
    except ScenarioError as exc:
        raise ScenarioError(f"{source}: {exc}") from None


def flow_tables(data: Mapping, variant: str | None = None, source: str = "scenario") -> dict:
    """The flow tables of a scenario as :func:`network_from_dict` reads them, a variant applied.

    For what a Network does not hold (a flow's ``transport`` and ``payload_bytes``, which
    the simulator needs): the same merge as the theory's, so that a variant's
    ``demand_kbps`` replaces the base ``demand_mbps`` and ``flows_only`` keeps its flows.

    Parameters
    ----------
    data : mapping
        The scenario, as :func:`read_scenario` returns it.
    variant : str, optional
        A ``[variants.NAME]`` table whose flow fields override the base ones.
    source : str, default "scenario"
        Name of the scenario in messages (the file name).

    Returns
    -------
    dict
        Flow name -> its table (a route written as a bare list becomes ``{"route": [...]}``).

    Raises
    ------
    ScenarioError
        An unknown variant or a malformed table (the fields themselves are checked by
        :func:`network_from_dict`).

    Examples
    --------
    >>> from labcalc.data import scenario_path
    >>> t = flow_tables(read_scenario(scenario_path("lab51")), "B2")
    >>> t["h2_tcp"]["transport"], t["h1_udp"]["payload_bytes"]
    ('tcp', 1000)
    """
    _, flows, _ = _tables(data, variant, source)
    return {name: (dict(t) if isinstance(t, Mapping) else {"route": t}) for name, t in flows.items()}


def link_queues(data: Mapping, variant: str | None = None, source: str = "scenario") -> dict:
    """How each link of a scenario queues, for the simulator: ``"droptail"``, ``"host"`` or a :class:`RedQueue`.

    Parameters
    ----------
    data : mapping
        The scenario, as :func:`read_scenario` returns it (validated here in full, as
        :func:`network_from_dict` does).
    variant : str, optional
        A ``[variants.NAME]`` table whose link fields override the base ones.
    source : str, default "scenario"
        Name of the scenario in messages (the file name).

    Returns
    -------
    dict
        Link name -> ``"droptail"`` (no ``queue`` key, or ``queue = "droptail"``),
        ``"host"`` (a sending host's own interface: drop-tail that the host's TCP senders
        never overflow) or a :class:`RedQueue` with the ``red`` table's values over
        Mininet's defaults.

    Raises
    ------
    ScenarioError
        As :func:`network_from_dict`; a bad ``queue`` or ``red`` names the file, the
        table, the key and the value.

    Examples
    --------
    >>> q = link_queues({"links": {"r1": {"capacity_mbps": 5, "queue": "red", "red": {"ecn": False}},
    ...                            "h1": {"capacity_mbps": 100, "queue": "host"}, "s1": {"capacity_mbps": 10}},
    ...                  "flows": {"a": ["h1", "s1", "r1"]}})
    >>> q["h1"], q["s1"], q["r1"].min_bytes, q["r1"].ecn
    ('host', 'droptail', 30000, False)
    """
    network_from_dict(data, variant=variant, source=source)
    links, _, _ = _tables(data, variant, source)
    return {name: _queue(t, _where(source, f"links.{name}")) for name, t in links.items()}


def read_scenario(path) -> dict:
    """The dictionary of a scenario file (TOML), not yet validated.

    Parameters
    ----------
    path : str or Path
        The scenario file.

    Returns
    -------
    dict

    Raises
    ------
    ScenarioError
        Unreadable file, or not valid TOML; the message names the file.

    Examples
    --------
    >>> from labcalc.data import scenario_path
    >>> read_scenario(scenario_path("lab53"))["name"]
    'lab53'
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read scenario file ({exc.strerror})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        # tomllib recurses once per nesting level; no scenario nests more than a few
        raise ScenarioError(f"{path}: not a scenario (arrays or tables nested too deeply)") from None


def load_network(path, variant: str | None = None) -> Network:
    """Read a scenario file (the layout of this module) and build its Network.

    Parameters
    ----------
    path : str or Path
        The scenario file.
    variant : str, optional
        Name of a ``[variants.NAME]`` table whose fields override the base ones.

    Returns
    -------
    labcalc.network.Network

    Raises
    ------
    ScenarioError
        Unreadable TOML, a missing or unknown field, a value of the wrong type or
        sign; the message names the file, the table and the field.

    Examples
    --------
    >>> from labcalc.data import scenario_path
    >>> net = load_network(scenario_path("lab51"), variant="A3")
    >>> net.name
    'lab51 A3'
    """
    return network_from_dict(read_scenario(path), variant=variant, source=str(Path(path)))
