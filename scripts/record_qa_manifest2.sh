#!/usr/bin/env bash
# Record the second set of manifest edge cases (tests/data/measure/qa2/, read by
# tests/test_manifest_qa2.py): what record_qa_edge_cases.sh does not hold.
#   - iperf3's MSS: a TCP client with -V (its text states "TCP MSS: ... (default)"), with -J
#     and -M 1000 (start.tcp_mss), and -R -J on both ends (the server sends: its JSON states
#     no MSS, tcp_mss_default 0);
#   - two iperf 2 TCP flows running opposite ways, both to port 5001 (a server on each host),
#     seen by an `ss -tin` loop on one host and by the tcp:tcp_probe tracepoint;
#   - iperf 2 -r (tradeoff) and -d (dual) on both ends, TCP and UDP, with -i 1;
#   - two pings writing into one file at once (>>), with and without -D, one to each of the
#     far host's two addresses, while the far host's queue drops some replies;
#   - iperf 2 -y C TCP on both ends, with and without -i 1 (iperf 2.1 without -e: the CSV
#     does not say which end printed it).
#
# Two network namespaces joined by one veth pair; each side shaped by htb (RATE) with a
# pfifo leaf of QLEN packets (no netem in this kernel: delays come from queueing only).
# Only traffic between the two namespaces is generated; every run is a few seconds long.
# The tracepoint is read through an instance of its own (tracefs is mounted for the run
# when it is not, and unmounted again).
#
# Needs root, iproute2 and the Debian packages iperf3 iperf iputils-ping.
# Usage: sudo scripts/record_qa_manifest2.sh [OUTDIR]  (default tests/data/measure/qa2)
set -euo pipefail
. "$(dirname "$0")/netns-lib.sh"

OUT=${1:-"$(cd "$(dirname "$0")/.." && pwd)/tests/data/measure/qa2"}
A=qa2_rec_a
B=qa2_rec_b
SRC=10.81.0.1
DST=10.81.0.2
DST2=10.81.0.3
RATE=${RATE:-5mbit}
QLEN=${QLEN:-30}
TRACEFS=/sys/kernel/tracing
TRACE=$TRACEFS/instances/labcalc_qa2
MOUNTED=0

mkdir -p "$OUT"
PIDS=()

cleanup() {
    netns_kill "${PIDS[@]:-}"
    PIDS=()
    if [ -d "$TRACE" ]; then
        echo 0 > "$TRACE/events/tcp/tcp_probe/enable" || true
        rmdir "$TRACE" 2>/dev/null || true
    fi
    if [ "$MOUNTED" = 1 ]; then umount "$TRACEFS" 2>/dev/null || true; MOUNTED=0; fi
    netns_del $A $B
}
trap cleanup EXIT

cleanup
netns_pair $A qa2rec0 $SRC/24 $B qa2rec1 "$DST/24 $DST2/24"
netns_offload_off $A qa2rec0
netns_shape $A qa2rec0 $RATE $QLEN
netns_offload_off $B qa2rec1
netns_shape $B qa2rec1 $RATE $QLEN
netns_reach $A $DST $DST2

# start a server in B writing to FILE (its pid in PIDS and SERVER); stop it; run a client in A
server() { netns_server $B "$@"; }  # server FILE CMD...
# stdin: tracepoint text; stdout: per socket, a line when cwnd or ssthresh changed or 0.1 s passed
thin_probe() { python3 "$(dirname "$0")/thin_tcp_probe.py"; }
stop_server() { netns_stop_server; }
client() { ip netns exec $A "$@"; }

# --- iperf3's MSS -------------------------------------------------------------------------------
# -V: the client's text states "TCP MSS: 1448 (default)"; without -V it states none
server /dev/null iperf3 -s -1 -p 5501
client iperf3 -c $DST -p 5501 -t 4 -V > "$OUT/iperf3_tcp_V_client.txt" 2>&1
stop_server
# -M 1000: the JSON's start.tcp_mss is the MSS asked for (the kernel's segments carry less:
# the timestamp option takes 12 bytes of it)
server /dev/null iperf3 -s -1 -p 5502
client iperf3 -c $DST -p 5502 -t 4 -M 1000 -J > "$OUT/iperf3_tcp_M1000_client.json" 2>&1
stop_server
# -R -J: the server sends; its JSON carries the window and tcp_mss_default 0 (no MSS)
server "$OUT/iperf3_tcp_R_server.json" iperf3 -s -1 -p 5503 -J
client iperf3 -c $DST -p 5503 -t 4 -R -J > "$OUT/iperf3_tcp_R_client.json" 2>&1
stop_server

# --- two iperf 2 flows opposite ways, both to port 5001: ss on A, tcp_probe everywhere ---------
if ! [ -d "$TRACEFS/events" ]; then mount -t tracefs nodev "$TRACEFS"; MOUNTED=1; fi
mkdir "$TRACE"
echo "sport == 5001 || dport == 5001" > "$TRACE/events/tcp/tcp_probe/filter"
ip netns exec $A iperf -s -p 5001 > /dev/null 2>&1 &
PIDS+=($!)
SA=$!
ip netns exec $B iperf -s -p 5001 > /dev/null 2>&1 &
PIDS+=($!)
SB=$!
sleep 0.5
echo 1 > "$TRACE/events/tcp/tcp_probe/enable"
(for k in $(seq 1 14); do
    echo "# $(date +%s.%N)"
    ip netns exec $A ss -tin
    sleep 0.4
done) > "$OUT/ss_two_ways_5001.txt" 2>&1 &
SS=$!
sleep 0.5
client iperf -c $DST -p 5001 -t 4 > /dev/null 2>&1 &
AB=$!
ip netns exec $B iperf -c $SRC -p 5001 -t 4 > /dev/null 2>&1
wait $AB
wait $SS
echo 0 > "$TRACE/events/tcp/tcp_probe/enable"
thin_probe < "$TRACE/trace" > "$OUT/tcpprobe_two_ways_5001.txt"
rmdir "$TRACE"
if [ "$MOUNTED" = 1 ]; then umount "$TRACEFS"; MOUNTED=0; fi
kill $SA $SB 2>/dev/null || true
wait $SA $SB 2>/dev/null || true

# --- iperf 2 -r (one direction, then the other) and -d (both at once), both ends -------------
# the server connects back to the client's listener (-L); -i 1 on both ends
server "$OUT/iperf2_tcp_r_server.txt" iperf -s -p 5511 -i 1
client iperf -c $DST -p 5511 -r -L 5512 -t 3 -i 1 > "$OUT/iperf2_tcp_r_client.txt" 2>&1
stop_server
# -d without -L: the client listens on the server's port number. iperf 2.1.8's server may
# connect back before the client's listener is up ("expected reverse connect did not
# occur"): such a run is made again (at most 5 times)
for try in 1 2 3 4 5; do
    server "$OUT/iperf2_tcp_d_server.txt" iperf -s -p 5513 -i 1
    client iperf -c $DST -p 5513 -d -t 4 -i 1 > "$OUT/iperf2_tcp_d_client.txt" 2>&1
    stop_server
    grep -q "did not occur" "$OUT/iperf2_tcp_d_client.txt" || break
    sleep 1
done
server "$OUT/iperf2_udp_d_server.txt" iperf -s -u -p 5515 -i 1
client iperf -c $DST -u -p 5515 -b 3M -d -L 5516 -t 4 -i 1 > "$OUT/iperf2_udp_d_client.txt" 2>&1
stop_server

# --- two pings into one file at once (>>), one to each address of B, with and without -D -----
# B sends UDP to A at 8M (-R) from 1 s to 3 s: its full queue drops some replies
for variant in "" "-D"; do
    name=ping_two_writers.txt
    [ -n "$variant" ] && name=ping_D_two_writers.txt
    rm -f "$OUT/$name"
    server /dev/null iperf3 -s -1 -p 5521
    (sleep 1; ip netns exec $A iperf3 -c $DST -p 5521 -u -b 8M -t 2 -R > /dev/null 2>&1) &
    LOAD=$!
    client ping $variant -i 0.2 -c 20 $DST >> "$OUT/$name" 2>&1 &
    P1=$!
    client ping $variant -i 0.3 -c 12 $DST2 >> "$OUT/$name" 2>&1
    wait $P1
    wait $LOAD
    stop_server
done

# --- iperf 2 -y C TCP, both ends, without and with -i 1 ---------------------------------------
server "$OUT/iperf2_tcp_yC_server.csv" iperf -s -p 5531 -y C
client iperf -c $DST -p 5531 -t 4 -y C > "$OUT/iperf2_tcp_yC_client.csv" 2>&1
stop_server
server "$OUT/iperf2_tcp_yC_i1_server.csv" iperf -s -p 5532 -i 1 -y C
client iperf -c $DST -p 5532 -t 4 -i 1 -y C > "$OUT/iperf2_tcp_yC_i1_client.csv" 2>&1
stop_server

cat > "$OUT/README" <<EOF
Recorded by scripts/record_qa_manifest2.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)
kernel: $(uname -r)
topology: $A ($SRC) -- $B ($DST and $DST2), one veth pair; each side shaped by htb rate $RATE
  with a pfifo leaf of $QLEN packets (no netem: delays grow from queueing only)
$(iperf3 -v | head -1); $(iperf -v 2>&1 | head -1); $(ping -V | head -1); $(ss -V)
One test per file unless said; the script's comments say why each was made.
Files (client in $A, server in $B unless said otherwise):
iperf3_tcp_V_client.txt      iperf3 -c -t 4 -V (states "TCP MSS: ... (default)")
iperf3_tcp_M1000_client.json iperf3 -c -t 4 -M 1000 -J (start.tcp_mss = 1000)
iperf3_tcp_R_{server,client}.json  iperf3 -s -1 -J / iperf3 -c -t 4 -R -J (the server sends; tcp_mss_default 0 there)
ss_two_ways_5001.txt         while: echo "# \$(date +%s.%N)"; ss -tin; sleep 0.4 on $A, during iperf -c $DST -p 5001 -t 4
                             from $A and iperf -c $SRC -p 5001 -t 4 from $B at once (iperf -s -p 5001 on both)
tcpprobe_two_ways_5001.txt  the tcp:tcp_probe tracepoint of the same run (filter sport == 5001 || dport == 5001;
                             the tracepoint sees both namespaces: each connection from both ends), thinned:
                             per socket a line when snd_cwnd or ssthresh changed or 0.1 s after the last kept
iperf2_tcp_r_{client,server}.txt   iperf -c -r -L 5512 -t 3 -i 1 / iperf -s -i 1
iperf2_tcp_d_{client,server}.txt   iperf -c -d -t 4 -i 1 / iperf -s -i 1 (the client listens on 5513 too)
iperf2_udp_d_{client,server}.txt   iperf -c -u -b 3M -d -L 5516 -t 4 -i 1 / iperf -s -u -i 1
ping_two_writers.txt, ping_D_two_writers.txt   ping [-D] -i 0.2 -c 20 $DST >> f & ping [-D] -i 0.3 -c 12 $DST2 >> f,
                             while $B sends UDP to $A at 8M from 1 s to 3 s (iperf3 -R)
iperf2_tcp_yC_{client,server}.csv      iperf -c -t 4 -y C / iperf -s -y C (no -i)
iperf2_tcp_yC_i1_{client,server}.csv   iperf -c -t 4 -i 1 -y C / iperf -s -i 1 -y C
EOF
ls -l "$OUT"
