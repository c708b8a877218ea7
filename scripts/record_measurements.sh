#!/usr/bin/env bash
# Record real tool outputs for labcalc.measure on this machine.
#
# Builds three network namespaces h1 -- r -- h2 joined by veth pairs, shapes r's
# interface towards h2 with htb (10 Mbit/s) + a pfifo of QLEN packets (the
# bottleneck queue is on a router, as in Mininet, so TCP sees real drops), records what
# iperf3, iperf 2, ping, ss, tc, the tcp:tcp_probe tracepoint and tshark print.
# Only traffic between the namespaces created here is generated.
#
# Needs root, iproute2, tracefs, and Debian packages iperf3 iperf iputils-ping tshark ethtool.
# Usage: sudo scripts/record_measurements.sh [OUTDIR]   (default data/measurements/recorded)
set -euo pipefail
. "$(dirname "$0")/netns-lib.sh"

OUT=${1:-"$(cd "$(dirname "$0")/.." && pwd)/data/measurements/recorded"}
H1=lcrec_h1
H2=lcrec_h2
R=lcrec_r
NET=10.99              # h1 -- r on $NET.1.0/24, r -- h2 on $NET.2.0/24 (netns_line)
DST=$NET.2.2
RATE=${RATE:-10mbit}
QLEN=${QLEN:-50}
DUR=${DUR:-8}
TRACE=/sys/kernel/tracing/instances/labcalc_rec

mkdir -p "$OUT"
PIDS=()

cleanup() {
    netns_kill "${PIDS[@]:-}"
    if [ -d "$TRACE" ]; then
        echo 0 > "$TRACE/events/tcp/tcp_probe/enable" || true
        rmdir "$TRACE" || true
    fi
    netns_del $H1 $H2 $R
}
trap cleanup EXIT

stamp() { date +%s.%N; }

# --- topology: h1 -- r -- h2, bottleneck on r's interface towards h2 ----------------
cleanup
netns_line $NET lcrec $H1 $R $H2   # lcrec1 -- lcrec1r, lcrec2r -- lcrec2
# no segmentation offload, so that packets are MSS-sized in the queue and on the capture
netns_offload_off $H1 lcrec1 $R lcrec1r $R lcrec2r $H2 lcrec2
netns_shape $R lcrec2r $RATE $QLEN
netns_reach $H1 $DST

# --- servers ---------------------------------------------------------------------
ip netns exec $H2 iperf3 -s -p 5201 > /dev/null 2>&1 & PIDS+=($!)
ip netns exec $H2 iperf -s -p 5001 -i 1 > "$OUT/iperf2_server.txt" 2>&1 & PIDS+=($!)
ip netns exec $H2 iperf -s -u -p 5002 -i 1 > "$OUT/iperf2_udp_server.txt" 2>&1 & PIDS+=($!)
sleep 1

# --- tracepoint ------------------------------------------------------------------
mkdir -p "$TRACE"
echo "sport == 5201 || dport == 5201" > "$TRACE/events/tcp/tcp_probe/filter"
echo 1 > "$TRACE/events/tcp/tcp_probe/enable"
echo > "$TRACE/trace"

# --- run 1: iperf3 TCP text + ping + ss + tc + qlen + tshark -------------------------
ip netns exec $H2 tshark -q -i lcrec2 -s 96 -a duration:2 -w /tmp/lcrec.pcap > /dev/null 2>&1 & TSHARK=$!
( sleep 4; echo 0 > "$TRACE/events/tcp/tcp_probe/enable" ) & PIDS+=($!)   # 4 s of probe events
ip netns exec $H1 ping -D -i 0.2 -c $((DUR * 5)) $DST > "$OUT/ping_D.txt" 2>&1 & PING=$!
(
    end=$(( $(date +%s) + DUR ))
    while [ "$(date +%s)" -lt "$end" ]; do
        echo "# $(stamp)"
        ip netns exec $H1 ss -tin dst $DST
        sleep 0.5
    done
) > "$OUT/ss_tin.txt" & SS=$!
(
    end=$(( $(date +%s) + DUR ))
    while [ "$(date +%s)" -lt "$end" ]; do
        echo "# $(stamp)"
        ip netns exec $R tc -s qdisc show dev lcrec2r
        sleep 1
    done
) > "$OUT/tc_s_qdisc.txt" & TCS=$!
(
    end=$(( $(date +%s) + DUR ))
    while [ "$(date +%s)" -lt "$end" ]; do
        b=$(ip netns exec $R tc -s qdisc show dev lcrec2r | awk '/^qdisc pfifo/{f=1} f && /backlog/{print $3; exit}')
        echo "$(stamp | cut -c1-17),${b%p}"
        sleep 0.1
    done
) > "$OUT/qlen.txt" & QL=$!
ip netns exec $H1 iperf3 -C cubic -c $DST -p 5201 -t $DUR -i 1 -O 1 > "$OUT/iperf3_tcp.txt"
wait $PING $SS $TCS $QL $TSHARK || true
ip netns exec $R tc -s -j qdisc show dev lcrec2r > "$OUT/tc_s_qdisc.json"
ip netns exec $H1 ss -ti dst $DST > /dev/null || true

echo 0 > "$TRACE/events/tcp/tcp_probe/enable"
cat "$TRACE/trace" | gzip -9 -n > "$OUT/tcp_probe_trace.txt.gz"
echo > "$TRACE/trace"

tshark -r /tmp/lcrec.pcap -2 -T fields -E header=y -E separator=, -E quote=d -E occurrence=f \
    -e frame.time_relative -e ip.src -e ip.dst -e tcp.srcport -e tcp.dstport -e tcp.seq -e tcp.ack \
    -e tcp.len -e frame.len -e tcp.analysis.bytes_in_flight -e tcp.analysis.ack_rtt \
    -e tcp.analysis.retransmission -e tcp.analysis.fast_retransmission -e tcp.analysis.duplicate_ack \
    -e ip.dsfield.ecn -e tcp.flags.ece -e tcp.flags.cwr \
    2>/dev/null | gzip -9 -n > "$OUT/tshark_fields.csv.gz"
rm -f /tmp/lcrec.pcap

# --- run 2: iperf3 JSON, UDP text, UDP JSON ---------------------------------------------
ip netns exec $H1 iperf3 -C cubic -c $DST -p 5201 -t 4 -i 1 -J > "$OUT/iperf3_tcp.json"
ip netns exec $H1 iperf3 -c $DST -p 5201 -u -b 12M -t 4 -i 1 > "$OUT/iperf3_udp.txt"
ip netns exec $H1 iperf3 -c $DST -p 5201 -u -b 12M -t 3 -i 1 -J > "$OUT/iperf3_udp.json"
ip netns exec $H1 iperf3 -C cubic -c $DST -p 5201 -t 4 -i 1 -R > "$OUT/iperf3_tcp_reverse.txt"

# --- run 3: iperf 2 (text, enhanced, CSV, UDP) --------------------------------------------
ip netns exec $H1 iperf -Z cubic -c $DST -p 5001 -t 4 -i 1 > "$OUT/iperf2_client.txt"
ip netns exec $H1 iperf -Z cubic -c $DST -p 5001 -t 4 -i 1 -e > "$OUT/iperf2_client_e.txt"
ip netns exec $H1 iperf -Z cubic -c $DST -p 5001 -t 4 -i 1 -y C > "$OUT/iperf2_client.csv"
ip netns exec $H1 iperf -c $DST -p 5002 -u -b 12M -t 4 -i 1 > "$OUT/iperf2_udp_client.txt"
sleep 1

# plain ping with summary (no -D)
ip netns exec $H1 ping -c 5 -i 0.2 $DST > "$OUT/ping.txt"

{
    echo "Real tool outputs recorded by scripts/record_measurements.sh (labcalc.measure readers)."
    echo
    echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "kernel: $(uname -r)"
    echo "topology: h1 (10.99.1.1) -- r -- h2 ($DST), veth pairs in network namespaces"
    echo "bottleneck: htb rate $RATE + pfifo limit $QLEN packets on r's interface towards h2"
    echo "  (no delay emulation: netem is not in this kernel, so RTTs are mostly queueing delay)"
    echo "TCP: CUBIC (iperf3 -C cubic, iperf -Z cubic); segmentation offloads off"
    iperf3 --version | head -1 || true
    iperf -v 2>&1 | head -1 || true
    ping -V | head -1 || true
    ss -V || true
    tshark --version 2>/dev/null | head -1 || true
    echo
    echo "files (run 1 = ${DUR} s iperf3 TCP upload h1 -> h2 while the others sample):"
    echo "  iperf3_tcp.txt           iperf3 client text, -i 1 -O 1 (run 1)"
    echo "  ping_D.txt               ping -D -i 0.2 h1 -> h2 during run 1 (bufferbloat RTTs)"
    echo "  ss_tin.txt               ss -tin every 0.5 s on h1 with '# <epoch>' stamps (run 1)"
    echo "  tc_s_qdisc.txt           tc -s qdisc show on r every 1 s with stamps (run 1)"
    echo "  qlen.txt                 <epoch>,<backlog packets of the pfifo> every 0.1 s (run 1)"
    echo "  tcp_probe_trace.txt.gz   tcp:tcp_probe tracepoint, port 5201, first 4 s of run 1"
    echo "  tshark_fields.csv.gz     tshark -T fields with TCP analysis fields, 2 s capture at h2"
    echo "  tc_s_qdisc.json          tc -s -j qdisc show on r after run 1"
    echo "  iperf3_tcp.json          iperf3 -J, 4 s TCP"
    echo "  iperf3_udp.txt/.json     iperf3 -u -b 12M (client side)"
    echo "  iperf3_tcp_reverse.txt   iperf3 -R (h2 sends, unshaped direction)"
    echo "  iperf2_*.txt, .csv       iperf 2 client (plain, -e, -y C), server, UDP client/server"
    echo "  ping.txt                 plain ping -c 5 with its summary"
} > "$OUT/README.txt"
echo "recorded into $OUT"
