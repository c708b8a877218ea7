#!/usr/bin/env bash
# Record the small tool outputs that pin what a manifest makes of a file
# (tests/data/measure/manifest/, read by tests/test_manifest_matrix.py).
#
# Two network namespaces joined by one veth pair; the sender's side of the pair is shaped
# by htb (RATE) with a pfifo leaf of QLEN packets, so that a UDP flow offered above the
# rate loses datagrams and a TCP flow builds a queue (no netem in this kernel: the RTT
# grows from queueing only). Only traffic between the two namespaces is generated.
# Every run is short (DUR seconds, -i 1); one test per file.
#
# Needs root, iproute2 and the Debian packages iperf3 iperf iputils-ping.
# Usage: sudo scripts/record_manifest_fixtures.sh [OUTDIR]  (default tests/data/measure/manifest)
set -euo pipefail
. "$(dirname "$0")/netns-lib.sh"

OUT=${1:-"$(cd "$(dirname "$0")/.." && pwd)/tests/data/measure/manifest"}
A=hm_rec_a
B=hm_rec_b
SRC=10.77.0.1
DST=10.77.0.2
RATE=${RATE:-5mbit}
QLEN=${QLEN:-30}
DUR=${DUR:-4}
OFFER=${OFFER:-8M}

mkdir -p "$OUT"
PIDS=()

cleanup() {
    netns_kill "${PIDS[@]:-}"
    netns_del $A $B
}
trap cleanup EXIT

cleanup
netns_pair $A hmrec0 $SRC/24 $B hmrec1 $DST/24
netns_offload_off $A hmrec0 $B hmrec1
netns_shape $A hmrec0 $RATE $QLEN
netns_reach $A $DST

# start a server in B writing to FILE (its pid in PIDS and SERVER); stop it; run a client in A
server() { netns_server $B "$@"; }  # server FILE CMD...
stop_server() { netns_stop_server; }
client() { ip netns exec $A "$@"; }

# --- iperf 2, UDP ----------------------------------------------------------------------
server "$OUT/iperf2_udp_server_i1.txt" iperf -s -u -p 5002 -i 1
client iperf -c $DST -u -p 5002 -b $OFFER -t $DUR -i 1 > "$OUT/iperf2_udp_client_i1.txt" 2>&1
stop_server
server "$OUT/iperf2_udp_server_noi.txt" iperf -s -u -p 5003
client iperf -c $DST -u -p 5003 -b $OFFER -t $DUR > "$OUT/iperf2_udp_client_noi.txt" 2>&1
stop_server
server "$OUT/iperf2_udp_server_noi.csv" iperf -s -u -p 5004 -y C
client iperf -c $DST -u -p 5004 -b $OFFER -t $DUR -y C > "$OUT/iperf2_udp_client_noi.csv" 2>&1
stop_server
server "$OUT/iperf2_udp_server_i1.csv" iperf -s -u -p 5005 -i 1 -y C
client iperf -c $DST -u -p 5005 -b $OFFER -t $DUR -i 1 -y C > "$OUT/iperf2_udp_client_i1.csv" 2>&1
stop_server
server "$OUT/iperf2_udp_server_e.txt" iperf -s -u -p 5006 -i 1 -e
client iperf -c $DST -u -p 5006 -b $OFFER -t $DUR -i 1 -e > "$OUT/iperf2_udp_client_e.txt" 2>&1
stop_server
# --- iperf 2, TCP ----------------------------------------------------------------------
server "$OUT/iperf2_tcp_server_i1.txt" iperf -s -p 5007 -i 1
client iperf -c $DST -p 5007 -t $DUR -i 1 > "$OUT/iperf2_tcp_client_i1.txt" 2>&1
stop_server

# --- iperf3, UDP: text and JSON, both ends; -R; -P 2; --get-server-output ---------------
server "$OUT/iperf3_udp_server.txt" iperf3 -s -1 -p 5301
client iperf3 -c $DST -p 5301 -u -b $OFFER -t $DUR > "$OUT/iperf3_udp_client.txt" 2>&1
stop_server
server "$OUT/iperf3_udp_server.json" iperf3 -s -1 -p 5302 -J
client iperf3 -c $DST -p 5302 -u -b $OFFER -t $DUR -J > "$OUT/iperf3_udp_client.json" 2>&1
stop_server
# -R: B sends through its unshaped side; offered above nothing, so shape A's ingress is not
# needed: the reverse run shows the roles (the client receives), not a loss
server "$OUT/iperf3_udp_R_server.txt" iperf3 -s -1 -p 5303
client iperf3 -c $DST -p 5303 -u -b 3M -t $DUR -R > "$OUT/iperf3_udp_R_client.txt" 2>&1
stop_server
server /dev/null iperf3 -s -1 -p 5304
client iperf3 -c $DST -p 5304 -u -b 3M -t $DUR -R -J > "$OUT/iperf3_udp_R_client.json" 2>&1
stop_server
server "$OUT/iperf3_udp_P2_server.txt" iperf3 -s -1 -p 5305
client iperf3 -c $DST -p 5305 -u -b 4M -P 2 -t $DUR > "$OUT/iperf3_udp_P2_client.txt" 2>&1
stop_server
server /dev/null iperf3 -s -1 -p 5306
client iperf3 -c $DST -p 5306 -u -b $OFFER -t $DUR --get-server-output > "$OUT/iperf3_udp_gso_client.txt" 2>&1
stop_server
server /dev/null iperf3 -s -1 -p 5307 -J
client iperf3 -c $DST -p 5307 -u -b $OFFER -t $DUR -J --get-server-output > "$OUT/iperf3_udp_gso_client.json" 2>&1
stop_server
server "$OUT/iperf3_tcp_server.json" iperf3 -s -1 -p 5308 -J
client iperf3 -c $DST -p 5308 -t $DUR -J > "$OUT/iperf3_tcp_client.json" 2>&1
stop_server

# --- ping: without -D (interval from the statistics line), with -D, a run cut short -----
# 30 pings every 0.2 s: the first 4 s under an iperf3 TCP upload, the last 2 s idle
server /dev/null iperf3 -s -1 -p 5309
client ping -i 0.2 -c 30 $DST > "$OUT/ping_load_then_idle.txt" 2>&1 &
PING=$!
sleep 0.3
client iperf3 -c $DST -p 5309 -t $DUR > "$OUT/iperf3_during_ping_client.txt" 2>&1
wait $PING
stop_server
server /dev/null iperf3 -s -1 -p 5310
client ping -D -i 0.2 -c 30 $DST > "$OUT/ping_D_load_then_idle.txt" 2>&1 &
PING=$!
sleep 0.3
client iperf3 -c $DST -p 5310 -t $DUR > /dev/null 2>&1
wait $PING
stop_server
# killed before its statistics: no -D, no summary (nothing to derive the times from)
(timeout -s KILL 1.1 ip netns exec $A ping -i 0.2 $DST > "$OUT/ping_killed.txt" 2>&1) || true

# --- an ss loop and a tc loop started together, iperf3 TCP (control + data connection) ----
server /dev/null iperf3 -s -1 -p 5311
(for k in $(seq 1 14); do
    echo "# $(date +%s.%N)"
    ip netns exec $A ss -tin dst $DST
    sleep 0.4
done) > "$OUT/ss_two_connections.txt" 2>&1 &
SS=$!
(for k in $(seq 1 14); do
    echo "# $(date +%s.%N)"
    ip netns exec $A tc -s qdisc show dev hmrec0
    sleep 0.4
done) > "$OUT/tc_htb_pfifo.txt" 2>&1 &
TC=$!
sleep 0.6
client iperf3 -c $DST -p 5311 -t $DUR > "$OUT/iperf3_during_ss_tc_client.txt" 2>&1
wait $SS $TC
stop_server

cat > "$OUT/README" <<EOF
Recorded by scripts/record_manifest_fixtures.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)
kernel: $(uname -r)
topology: $A ($SRC) -- $B ($DST), one veth pair; $A's side shaped by htb rate $RATE
  with a pfifo leaf of $QLEN packets (no netem: RTTs grow from queueing only)
$(iperf3 -v | head -1); $(iperf -v 2>&1 | head -1); $(ping -V | head -1)
runs: $DUR s, -i 1, UDP offered at $OFFER unless the script says otherwise; one test per file.
EOF
ls -l "$OUT"
