"""Reader of the iperf3 ``--json`` (and ``--json-stream``) document.

With ``--get-server-output`` the client's document also carries the server's own report:
``server_output_json`` (a whole iperf3 document, when the server ran with ``-J``), read
here by the same code as the client's, or ``server_output_text`` (the server's printout),
read by the text reader that :func:`parse_iperf3_json` is given (``read_text``; the text
reader lives in :mod:`labcalc.measure.iperf3`, which imports this module). Either becomes
``attrs["server_output"]``, of the same shape as the text reader's.
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Callable

import numpy as np
import pandas as pd

from ._common import MeasurementFormatError, Report, ToolErrorWarning, check_json_depth, iter_lines, json_unclosed
from ._iperf_common import EXPECTED3, FORMAT3, clean_summary, build_frame


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")


class _Json:
    """Type checks of the parts of one iperf3 JSON document.

    A damaged or hand-edited document can hold anything anywhere (``{"start": 2}``, a
    string for a byte count, ``1e999``): every part is checked before use, so that a wrong
    type ends in a :class:`MeasurementFormatError` naming the file, the line of the document
    and the field, never in an AttributeError / TypeError / OverflowError.
    """

    def __init__(self, rep: Report, line: int | None, prefix: str = ""):
        # prefix: where the checked part sits in the document ("server_output_json." for
        # the server's report inside the client's), put before every field path named
        self.rep, self.line, self.prefix = rep, line, prefix

    def fail(self, path: str, value, what: str) -> MeasurementFormatError:
        shown = repr(value)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        return self.rep.fail(self.line, f"field {self.prefix}{path} is {_kind(value)} ({shown}), expected {what}")

    def obj(self, value, path: str) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(path, value, "an object")
        return value

    def arr(self, value, path: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(path, value, "an array")
        return value

    def num(self, st: dict, key: str, path: str):
        value = st.get(key)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                f = float(value)
            except OverflowError:  # an integer beyond the float range
                f = math.inf
            if math.isfinite(f):
                return f
            raise self.fail(f"{path}.{key}", value, "a finite number")
        raise self.fail(f"{path}.{key}", value, "a number")

    def key(self, value, path: str):
        if value is None or (isinstance(value, (int, str)) and not isinstance(value, bool)):
            return value
        raise self.fail(path, value, "a socket number")


#: Reads the ``server_output_text`` of a document (the server's printout, without -J) the
#: way the text reader reads a ``Server output:`` block: ``read_text(text, reverse)`` gives
#: ``({"intervals": [...], "summary": [...]} (and "tool_error"), number of malformed lines,
#: the first of them)``. Without it the text is kept as it is, in ``server_output["text"]``.
ServerTextReader = Callable[[str, bool], "tuple[dict, int, str | None]"]


def parse_iperf3_json(name: str, text: str, rep: Report, read_text: ServerTextReader | None = None) -> pd.DataFrame:
    try:
        return _iperf3_json_docs(name, text, rep, read_text)
    except RecursionError:
        # json recurses once per nesting level: a hostile file nested thousands deep; the
        # depth check (not run on every file, it costs more than parsing) finds the line
        check_json_depth(text, name, expected=EXPECTED3)
        raise rep.fail(None, "the JSON nests too deep to be read") from None


def _iperf3_json_docs(name: str, text: str, rep: Report, read_text: ServerTextReader | None) -> pd.DataFrame:
    # Long because it splits the three JSON shapes iperf3 writes (one document, several
    # appended documents, --json-stream lines) and keeps the line of every damaged one
    # for the report.
    stripped = text.strip()
    docs = []
    trailing = None  # (line number, text) after the last JSON document
    if stripped.startswith("{") and '"event"' in stripped[:200] and "\n{" in stripped:
        # --json-stream: one JSON object per line
        doc = {"start": {}, "intervals": [], "end": {}}
        for i, line in iter_lines(text):
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except ValueError:  # JSONDecodeError, or an integer of more than 4300 digits
                rep.bad(i, line)
                continue
            if not isinstance(ev, dict):
                rep.bad(i, line)
                continue
            rep.ok()
            kind, data = ev.get("event"), ev.get("data")
            if kind == "interval":
                doc["intervals"].append(data)
            elif kind in ("start", "end"):
                doc[kind] = data
            elif kind == "error":
                doc["error"] = data
            elif kind in ("server_output_json", "server_output_text"):
                # --json-stream with --get-server-output (iperf3 3.17+): one more event
                doc[kind] = data
                doc["_server_line"] = i
        docs.append(doc)
    else:
        dec = json.JSONDecoder()
        pos = 0
        counted = None  # (line, offset) of the last document's start
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            if docs and text[pos] not in "{[":
                # text after the document: iperf3's stderr captured with 2>&1, or anything else
                trailing = (_line_of(text, pos), text[pos:])
                break
            try:
                doc, end = dec.raw_decode(text, pos)
            except json.JSONDecodeError as exc:
                # cut at the end, or inside a string / literal with brackets left open
                if not text[exc.pos:].strip() or json_unclosed(text, pos):
                    raise rep.fail(
                        _line_of(text, exc.pos),
                        "the iperf3 JSON document is truncated (it ends before its closing brace; "
                        "iperf3 was probably interrupted or the file was cut)",
                    ) from None
                raise rep.fail(_line_of(text, exc.pos), f"invalid JSON: {exc.msg}") from None
            except ValueError as exc:  # an integer of more than 4300 digits (sys.int_info)
                raise rep.fail(_line_of(text, pos), f"invalid JSON: {exc}") from None
            if not isinstance(doc, dict) or not ({"start", "intervals", "end", "error"} & set(doc)):
                raise rep.fail(_line_of(text, pos), "this JSON document is not an iperf3 --json result")
            # counted on from the previous document: many appended documents stay linear
            line = counted[0] + text.count("\n", counted[1], pos) if counted else _line_of(text, pos)
            counted = (line, pos)
            doc["_line"] = counted[0]
            doc["_pos"] = pos
            if "server_output_text" in doc:
                # a JSON string is one line of the file: where the server's text sits
                at = text.find('"server_output_text"', pos, end)
                doc["_server_line"] = _line_of(text, at) if at >= 0 else doc["_line"]
            docs.append(doc)
            rep.ok()
            pos = end
    rows, summary, info = [], [], {}
    server = None  # attrs["server_output"], from the documents' server_output_json / _text
    measured = [doc for doc in docs if doc.get("intervals") or not doc.get("error")]
    for doc in docs:
        if doc.get("error") and not doc.get("intervals"):
            at = text.find('"error"', doc.get("_pos", 0))
            line = _line_of(text, at) if at >= 0 else doc.get("_line")
            if not measured:
                raise rep.fail(line, f"iperf3 reported an error and measured nothing: {doc['error']!r}")
            # a server's log: its test's document, then the error of the run it was stopped in
            # (-s -J interrupted by Ctrl-C); the test measured is kept
            info["tool_error"] = doc["error"]
            warnings.warn(f"{rep.name}, line {line}: iperf3 reported an error in a document that measured "
                          f"nothing (kept the {len(measured)} that did): {doc['error']!r}", ToolErrorWarning,
                          stacklevel=3)
            continue
        if doc.get("error"):
            info["tool_error"] = doc["error"]
            warnings.warn(f"{rep.name}: iperf3 reported an error: {doc['error']!r}", ToolErrorWarning, stacklevel=3)
        j = _Json(rep, doc.get("_line"))
        reverse = _read_doc(doc, j, info, rows, summary)
        if "server_output_json" in doc or "server_output_text" in doc:
            server = _server_output(doc, j, reverse, read_text, server)
    if trailing is not None:
        _trailing_text(trailing, info, rep)
    rep.require_something()
    _mss(info, rows)
    df = build_frame(rows)
    info["summary"] = summary
    info["tests"] = max(1, len(measured))  # appended documents (iperf3 -J >> file): one test each
    if server is not None:
        info["server_output"] = server
    extra = {k: v for k, v in info.items() if v is not None}
    extra.setdefault("side", None)  # neither connecting_to nor accepted_connection: unknown
    return rep.finish(df, extra)


def _server_output(doc: dict, j: _Json, reverse: bool, read_text: ServerTextReader | None,
                   server: dict | None) -> dict:
    """The server's report carried by a client's document (``--get-server-output``), added to
    *server* (several documents: their server reports one after the other)."""
    server = server if server is not None else {"intervals": [], "summary": []}
    if "server_output_json" in doc:
        part = j.obj(doc["server_output_json"], "server_output_json")
        sj = _Json(j.rep, j.line, prefix="server_output_json.")
        if part.get("error"):
            server["tool_error"] = part["error"]
        rows, summary = [], []
        _read_doc(part, sj, {}, rows, summary)
        server["intervals"].extend(clean_summary(r) for r in rows)
        server["summary"].extend(summary)
    if "server_output_text" in doc:
        value = doc["server_output_text"]
        if not isinstance(value, str):
            raise j.fail("server_output_text", value, "a string (the server's printout)")
        line = doc.get("_server_line", j.line)
        if read_text is None:
            server.setdefault("text", value)
        else:
            part, bad, first_bad = read_text(value, reverse)
            server["intervals"].extend(part["intervals"])
            server["summary"].extend(part["summary"])
            if "tool_error" in part:
                server["tool_error"] = part["tool_error"]
            for _ in range(bad):  # the server's text is one line of the file: its bad lines are there
                j.rep.bad(line, first_bad)
    return server


def _read_doc(doc: dict, j: _Json, info: dict, rows: list, summary: list) -> bool:
    """Add the interval rows and the end-block summaries of one iperf3 document to *rows*
    and *summary*, and what it says of the test (side, version, ...) to *info*; returns
    whether the test ran reversed (``-R``)."""
    start = j.obj(doc.get("start"), "start")
    test = j.obj(start.get("test_start"), "start.test_start")
    info.setdefault("version", start.get("version"))
    info.setdefault("protocol", test.get("protocol"))
    reverse = bool(test.get("reverse", 0))
    info.setdefault("reverse", reverse)
    # the server names the connection it accepted, the client the host it connected to
    if "accepted_connection" in start:
        info.setdefault("side", "server")
    elif "connecting_to" in start:
        info.setdefault("side", "client")
    elif "side" not in info:
        # neither named (a trimmed or hand-made document): the streams' "sender" flag (iperf3
        # 3.1+) says whether this end sent; the client sends unless -R
        flag = _first_sender_flag(doc)
        if flag is not None:
            info["side"] = "client" if flag != reverse else "server"
    # iperf3 before 3.1 writes no "sender" flag in the streams: the client sends unless
    # -R, the server sends only with -R
    is_client = "accepted_connection" not in start
    local_sends = is_client != reverse
    if "_mss" not in info:
        # the MSS it states: -M's (tcp_mss), else the control connection's (tcp_mss_default;
        # 0 on a server, which does not measure it)
        for key in ("tcp_mss", "tcp_mss_default"):
            value = j.num(start, key, "start")
            if value is not None and value > 0:
                info["_mss"] = (value, f"start.{key}")
                break
    ts = j.num(j.obj(start.get("timestamp"), "start.timestamp"), "timesecs", "start.timestamp")
    info.setdefault("start_epoch_s", ts)
    conns = {}
    for k, c in enumerate(j.arr(start.get("connected"), "start.connected")):
        c = j.obj(c, f"start.connected[{k}]")
        local = f"{c.get('local_host')}:{c.get('local_port')}"
        remote = f"{c.get('remote_host')}:{c.get('remote_port')}"
        conns[j.key(c.get("socket"), f"start.connected[{k}].socket")] = (local, remote)
    for k, interval in enumerate(j.arr(doc.get("intervals"), "intervals")):
        interval = j.obj(interval, f"intervals[{k}]")
        streams = j.arr(interval.get("streams"), f"intervals[{k}].streams")
        for n, st in enumerate(streams):
            path = f"intervals[{k}].streams[{n}]"
            rows.append(json_row(j.obj(st, path), conns, local_sends, j, path))
        if len(streams) > 1:
            for key in ("sum", "sum_bidir_reverse"):
                if key in interval:
                    path = f"intervals[{k}].{key}"
                    r = json_row(j.obj(interval[key], path), {}, local_sends, j, path)
                    r["stream"] = "SUM" if key == "sum" else "SUM-reverse"
                    rows.append(r)
    end = j.obj(doc.get("end"), "end")
    for n, st in enumerate(j.arr(end.get("streams"), "end.streams")):
        st = j.obj(st, f"end.streams[{n}]")
        for role in ("sender", "receiver", "udp"):
            if role in st:
                path = f"end.streams[{n}].{role}"
                r = json_row(j.obj(st[role], path), conns, local_sends, j, path)
                r["role"] = role
                clean = clean_summary(r)
                # unknown RTT / cwnd (see json_row) stay in the summary as NaN
                clean.update({k: r[k] for k in _UNKNOWN_END if k in r and r[k] is not None and np.isnan(r[k])})
                summary.append(clean)
    for key in ("sum_sent", "sum_received", "sum", "sum_sent_bidir_reverse", "sum_received_bidir_reverse"):
        if key in end:
            r = json_row(j.obj(end[key], f"end.{key}"), {}, local_sends, j, f"end.{key}")
            r["stream"] = "SUM"
            r["role"] = key
            summary.append(clean_summary(r))
    info.setdefault("congestion", end.get("sender_tcp_congestion"))
    return reverse


#: The TCP timestamp option [bytes]: a segment of a connection that uses it carries this much
#: less than the MSS set with -M (``start.tcp_mss = 1000``: windows in multiples of 988).
TIMESTAMP_OPTION_BYTES = 12


def _mss(info: dict, rows: list) -> None:
    """``info["mss_bytes"]`` and ``info["mss_from"]`` from the MSS the document states.

    The windows of a JSON document (``snd_cwnd``) are exact: whole segments of the
    connection's MSS. The stated MSS is taken when every window is a whole multiple of it,
    or that MSS less the TCP timestamp option when every window is a multiple of that
    (``-M 1000``: segments of 988 bytes); otherwise (iperf3 over loopback:
    ``tcp_mss_default`` 32768 beside segments of 65483) ``mss_from`` says why not and
    ``mss_bytes`` is left out.
    """
    stated = info.pop("_mss", None)
    if stated is None:
        return
    mss, where = stated
    windows = [r["cwnd_bytes"] for r in rows if r.get("cwnd_bytes") is not None and r["cwnd_bytes"] > 0]
    off = next((w for w in windows if not (float(w).is_integer() and w % mss == 0)), None)
    if off is None:
        info["mss_bytes"], info["mss_from"] = int(mss), where
        return
    less = mss - TIMESTAMP_OPTION_BYTES
    if less > 0 and all(float(w).is_integer() and w % less == 0 for w in windows):
        # -M sets the MSS; the timestamp option takes 12 bytes of every segment
        info["mss_bytes"] = int(less)
        info["mss_from"] = (f"{where} = {mss:.0f} less the {TIMESTAMP_OPTION_BYTES}-byte TCP timestamp option: every "
                            f"window is a whole multiple of {less:.0f}")
        return
    info["mss_from"] = f"{where} = {mss:.0f}, but its windows are not whole multiples of it (snd_cwnd {off:.0f})"


def _first_sender_flag(doc: dict) -> bool | None:
    """The ``sender`` flag of the first interval stream of *doc*, or None when it has none."""
    intervals = doc.get("intervals")
    if isinstance(intervals, list) and intervals and isinstance(intervals[0], dict):
        streams = intervals[0].get("streams")
        if isinstance(streams, list) and streams and isinstance(streams[0], dict):
            flag = streams[0].get("sender")
            return flag if isinstance(flag, bool) else None
    return None


def _trailing_text(trailing: tuple[int, str], info: dict, rep: Report) -> None:
    """Text after the JSON document: iperf3's own error lines go to ``tool_error`` (with a
    :class:`ToolErrorWarning`), anything else to ``trailing_text`` and the malformed lines."""
    first, text = trailing
    errors, other = [], []
    for k, line in enumerate(text.split("\n")):
        s = line.strip()
        if not s:
            continue
        if s.startswith(("iperf3: error", "iperf3: interrupt")) and "tool_error" not in info:
            errors.append(s)
        else:
            other.append(s)
            rep.bad(first + k, s)
    if errors:
        info["tool_error"] = "\n".join(errors)
        warnings.warn(f"{rep.name}, line {first}: {errors[0]}", ToolErrorWarning, stacklevel=4)
    if other:
        info["trailing_text"] = "\n".join(other)


_UNKNOWN_END = ("rtt_s", "rtt_min_s", "rtt_max_s", "cwnd_max_bytes")


def json_row(st: dict, conns: dict, local_sends: bool = True, j: _Json | None = None, path: str = "") -> dict:
    if j is None:
        j = _Json(Report("<json>", FORMAT3, EXPECTED3), None)

    def num(key):
        return j.num(st, key, path)

    for key in ("start", "end", "bytes", "bits_per_second"):
        # iperf3 writes these four in every stream and sum: without one the row is no measurement
        if st.get(key) is None:
            raise j.rep.fail(j.line, f"field {j.prefix}{path}.{key} is missing (or null), expected a number")
    sock = j.key(st.get("socket"), f"{path}.socket")
    rtt, rttvar, jitter = num("rtt"), num("rttvar"), num("jitter_ms")
    row = {
        "stream": str(sock if sock is not None else "SUM"),
        "start_s": num("start"),
        "end_s": num("end"),
        "time_s": num("end"),
        "bytes": num("bytes"),
        "rate_bps": num("bits_per_second"),
        "retransmits": num("retransmits"),
        "cwnd_bytes": num("snd_cwnd"),
        "rtt_s": rtt * 1e-6 if rtt is not None else None,
        "rttvar_s": rttvar * 1e-6 if rttvar is not None else None,
        "packets": num("packets"),
        "lost_packets": num("lost_packets"),
        "jitter_s": jitter * 1e-3 if jitter is not None else None,
        "omitted": bool(st["omitted"]) if st.get("omitted") is not None else None,
    }
    lost_percent = num("lost_percent")
    if lost_percent is not None:
        row["loss"] = lost_percent / 100.0
    elif row["packets"] and row["lost_packets"] is not None:
        row["loss"] = row["lost_packets"] / row["packets"]
    # an end block of a stream the local side did not send (the client's with -R) has no
    # tcp_info: iperf3 writes 0 for its RTTs and cwnd, which are unknown, not zero
    max_rtt = num("max_rtt")
    if max_rtt is not None:
        known = max_rtt > 0
        row["rtt_s"] = (num("mean_rtt") or 0) * 1e-6 if known else np.nan
        row["rtt_min_s"] = (num("min_rtt") or 0) * 1e-6 if known else np.nan
        row["rtt_max_s"] = max_rtt * 1e-6 if known else np.nan
    max_cwnd = num("max_snd_cwnd")
    if max_cwnd is not None:
        row["cwnd_max_bytes"] = max_cwnd if max_cwnd > 0 else np.nan
    if sock in conns:
        local, remote = conns[sock]
        sender = st.get("sender", local_sends)
        row["src"], row["dst"] = (local, remote) if sender else (remote, local)
    return row
