"""Thin the text of the tcp:tcp_probe tracepoint (stdin) before it is stored (stdout).

Used by record_seed_traces.sh and record_qa_manifest2.sh. The tracepoint fires on every ACK,
so a few seconds of a bulk flow make megabytes. Per connection (src, dest), a line is kept
when its snd_cwnd or ssthresh differs from the last kept line's, or 0.1 s after it
(tracepoint time); comment lines and lines of other events pass unchanged. Kept lines are
not altered, so labcalc.measure.read_tcp_probe reads the result as it reads the tracepoint.

Usage: python3 scripts/thin_tcp_probe.py < trace > thinned.txt
"""

import re
import sys

last = {}
for line in sys.stdin:
    if line.startswith("#") or "tcp_probe:" not in line:
        sys.stdout.write(line)
        continue
    t = float(re.search(r"\s(\d+\.\d+):\s", line).group(1))
    flow = re.search(r"src=(\S+) dest=(\S+)", line).groups()
    state = (re.search(r"snd_cwnd=(\d+)", line).group(1), re.search(r"ssthresh=(\d+)", line).group(1))
    prev = last.get(flow)
    if prev is None or prev[1] != state or t - prev[0] >= 0.1:
        last[flow] = (t, state)
        sys.stdout.write(line)
