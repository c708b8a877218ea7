#!/usr/bin/env bash
# Record the edge cases of a student's own files that a manifest must read right
# (tests/data/measure/qa/, read by tests/test_manifest_qa.py). The lab-like set is
# scripts/record_manifest_fixtures.sh (tests/data/measure/manifest/) and h-record's
# data/measurements/; this one keeps to what those do not hold: -f K/k rates, -i 0.5,
# -O 2 (omitted seconds), -P 3 TCP and UDP, -R with --get-server-output, iperf3 -J
# intervals whose ends are not whole seconds, a trailing long iperf 2 interval, ping
# slowed down by a full queue on its own host, ping losses on the far host, a ping to
# an unreachable address, pings cut short by SIGINT and SIGKILL, an ss loop stamped with
# plain `date` lines.
#
# Two network namespaces joined by one veth pair; each side shaped by htb (RATE) with a
# pfifo leaf of QLEN packets (no netem in this kernel: delays come from queueing only).
# Only traffic between the two namespaces is generated; every run is a few seconds long.
#
# Needs root, iproute2 and the Debian packages iperf3 iperf iputils-ping.
# Usage: sudo scripts/record_qa_edge_cases.sh [OUTDIR]  (default tests/data/measure/qa)
set -euo pipefail
. "$(dirname "$0")/netns-lib.sh"

OUT=${1:-"$(cd "$(dirname "$0")/.." && pwd)/tests/data/measure/qa"}
A=qa_rec_a
B=qa_rec_b
SRC=10.79.0.1
DST=10.79.0.2
RATE=${RATE:-5mbit}
QLEN=${QLEN:-30}

mkdir -p "$OUT"
PIDS=()

cleanup() {
    netns_kill "${PIDS[@]:-}"
    netns_del $A $B
}
trap cleanup EXIT

cleanup
netns_pair $A qarec0 $SRC/24 $B qarec1 $DST/24
netns_offload_off $A qarec0
netns_shape $A qarec0 $RATE $QLEN
netns_offload_off $B qarec1
netns_shape $B qarec1 $RATE $QLEN
netns_reach $A $DST

# start a server in B writing to FILE (its pid in PIDS and SERVER); stop it; run a client in A
server() { netns_server $B "$@"; }  # server FILE CMD...
stop_server() { netns_stop_server; }
client() { ip netns exec $A "$@"; }

# --- units: iperf3 -f K (KBytes/sec, K = 1024) and -f k (Kbits/sec) with -i 0.5 ----------
server "$OUT/iperf3_tcp_fK_server.txt" iperf3 -s -1 -p 5401 -f K
client iperf3 -c $DST -p 5401 -t 4 -f K > "$OUT/iperf3_tcp_fK_client.txt" 2>&1
stop_server
server "$OUT/iperf3_udp_fk_i05_server.txt" iperf3 -s -1 -p 5402 -f k -i 0.5
client iperf3 -c $DST -p 5402 -u -b 6M -t 4 -f k -i 0.5 > "$OUT/iperf3_udp_fk_i05_client.txt" 2>&1
stop_server
# --- iperf 2 -f K (KBytes/sec), UDP, both ends ----------------------------------------------
server "$OUT/iperf2_udp_fK_server.txt" iperf -s -u -p 5403 -i 1 -f K
client iperf -c $DST -u -p 5403 -b 6M -t 4 -i 1 -f K > "$OUT/iperf2_udp_fK_client.txt" 2>&1
stop_server
# --- iperf 2 -P 3 UDP: the server's [SUM] lines carry lost/total but no jitter -------------
server "$OUT/iperf2_udp_P3_server.txt" iperf -s -u -p 5404 -i 1
client iperf -c $DST -u -p 5404 -b 2M -P 3 -t 4 -i 1 > "$OUT/iperf2_udp_P3_client.txt" 2>&1
stop_server
# --- iperf 2 -P 3 UDP in CSV (-y C): no [SUM] rows, the streams' rows interleave ------------
server "$OUT/iperf2_udp_P3_yC_server.csv" iperf -s -u -p 5418 -i 1 -y C
client iperf -c $DST -u -p 5418 -b 2M -P 3 -t 4 -i 1 -y C > "$OUT/iperf2_udp_P3_yC_client.csv" 2>&1
stop_server
# --- iperf 2 -e TCP client, -i 0.5: its last interval runs until the socket drained ---------
server /dev/null iperf -s -p 5405 -i 0.5 -e
client iperf -c $DST -p 5405 -t 4 -i 0.5 -e > "$OUT/iperf2_tcp_e_i05_client.txt" 2>&1
stop_server
# --- iperf3 -O 2 UDP: text and JSON, both ends ----------------------------------------------
server "$OUT/iperf3_udp_O2_server.txt" iperf3 -s -1 -p 5406
client iperf3 -c $DST -p 5406 -u -b 6M -t 5 -O 2 > "$OUT/iperf3_udp_O2_client.txt" 2>&1
stop_server
server "$OUT/iperf3_udp_O2_server.json" iperf3 -s -1 -p 5407 -J
client iperf3 -c $DST -p 5407 -u -b 6M -t 5 -O 2 -J > "$OUT/iperf3_udp_O2_client.json" 2>&1
stop_server
# --- iperf3 -P 3 TCP: text and JSON clients (three streams, the [SUM] has no cwnd) ----------
server /dev/null iperf3 -s -1 -p 5408
client iperf3 -c $DST -p 5408 -t 4 -P 3 > "$OUT/iperf3_tcp_P3_client.txt" 2>&1
stop_server
server /dev/null iperf3 -s -1 -p 5409
client iperf3 -c $DST -p 5409 -t 4 -P 3 -J > "$OUT/iperf3_tcp_P3_client.json" 2>&1
stop_server
# --- iperf3 -R -P 3 --get-server-output TCP: the sender's lines are the server's -----------
server /dev/null iperf3 -s -1 -p 5410
client iperf3 -c $DST -p 5410 -t 4 -P 3 -R --get-server-output > "$OUT/iperf3_tcp_R_P3_gso_client.txt" 2>&1
stop_server
# --- iperf3 -J UDP server, -P 2 (its interval ends are not whole seconds) -------------------
server "$OUT/iperf3_udp_P2_server.json" iperf3 -s -1 -p 5411 -J
client iperf3 -c $DST -p 5411 -u -b 3M -P 2 -t 5 > /dev/null 2>&1
stop_server

# --- ping on the host whose queue is full: sends fail (ENOBUFS) and ping waits ---------------
# no -D, then -D; 30 pings every 0.2 s, an iperf3 UDP upload at 6M from 1 s to 4 s
for variant in "" "-D"; do
    name=ping_i02_own_queue_full.txt
    [ -n "$variant" ] && name=ping_D_i02_own_queue_full.txt
    server /dev/null iperf3 -s -1 -p 5412
    (sleep 1; ip netns exec $A iperf3 -c $DST -p 5412 -u -b 6M -t 3 > /dev/null 2>&1) &
    LOAD=$!
    client ping $variant -i 0.2 -c 30 $DST > "$OUT/$name" 2>&1
    wait $LOAD
    stop_server
done
# --- ping losses on the far host: B sends UDP to A (-R), B's full queue drops the replies ----
server /dev/null iperf3 -s -1 -p 5413
(sleep 1; ip netns exec $A iperf3 -c $DST -p 5413 -u -b 8M -t 3 -R > /dev/null 2>&1) &
LOAD=$!
client ping -i 0.2 -c 30 $DST > "$OUT/ping_i02_replies_lost.txt" 2>&1
wait $LOAD
stop_server
# --- an address nobody answers on this subnet; Ctrl-C (SIGINT) and SIGKILL ------------------
client ping -c 5 -i 0.5 10.79.0.9 > "$OUT/ping_unreachable.txt" 2>&1 || true
# (timeout signals ping itself: a background job of a script would ignore SIGINT)
timeout -s INT 2.1 ip netns exec $A ping -i 0.2 $DST > "$OUT/ping_sigint.txt" 2>&1 || true
timeout -s KILL 1.5 ip netns exec $A ping -D -i 0.2 $DST > "$OUT/ping_D_sigkill.txt" 2>&1 || true

# --- ping -D behind a deep queue on the far host (replies 0.3 s late, the last one too) -----
# B's class slowed to 2 Mbit/s with a 300-packet pfifo while B sends UDP at 3M to A (-R)
netns_set_rate $B qarec1 2mbit
netns_set_qlen $B qarec1 300
server /dev/null iperf3 -s -1 -p 5419
(sleep 0.5; ip netns exec $A iperf3 -c $DST -p 5419 -u -b 3M -t 8 -R > /dev/null 2>&1) &
LOAD=$!
sleep 1.5
client ping -D -c 10 -i 0.5 $DST > "$OUT/ping_D_i05_late_replies.txt" 2>&1
wait $LOAD
stop_server
netns_set_rate $B qarec1 $RATE
netns_set_qlen $B qarec1 $QLEN

# --- an ss loop stamped with plain `date` (one-second resolution, not a number) --------------
server /dev/null iperf3 -s -1 -p 5414
(for k in $(seq 1 12); do
    date
    ip netns exec $A ss -tin dst $DST
    sleep 0.4
done) > "$OUT/ss_date_lines.txt" 2>&1 &
SS=$!
sleep 0.5
client iperf3 -c $DST -p 5414 -t 4 > /dev/null 2>&1
wait $SS
stop_server

# --- ss on the receiving host (its data socket sends nothing), and two data flows competing --
server /dev/null iperf3 -s -1 -p 5415
(for k in $(seq 1 12); do
    echo "# $(date +%s.%N)"
    ip netns exec $B ss -tin
    sleep 0.4
done) > "$OUT/ss_receiver_side.txt" 2>&1 &
SS=$!
sleep 0.5
client iperf3 -c $DST -p 5415 -t 4 > /dev/null 2>&1
wait $SS
stop_server
server /dev/null iperf3 -s -1 -p 5416
ip netns exec $B iperf -s -p 5417 > /dev/null 2>&1 &
IPERF2=$!
sleep 0.3
(for k in $(seq 1 12); do
    echo "# $(date +%s.%N)"
    ip netns exec $A ss -tin dst $DST
    sleep 0.4
done) > "$OUT/ss_two_data_flows.txt" 2>&1 &
SS=$!
sleep 0.5
client iperf3 -c $DST -p 5416 -t 4 > /dev/null 2>&1 &
client iperf -c $DST -p 5417 -t 4 > /dev/null 2>&1
wait $SS
sleep 1
kill $IPERF2 2>/dev/null || true
stop_server

cat > "$OUT/README" <<EOF
Recorded by scripts/record_qa_edge_cases.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)
kernel: $(uname -r)
topology: $A ($SRC) -- $B ($DST), one veth pair; each side shaped by htb rate $RATE
  with a pfifo leaf of $QLEN packets (no netem: delays grow from queueing only)
$(iperf3 -v | head -1); $(iperf -v 2>&1 | head -1); $(ping -V | head -1)
One test per file; the script's comments say why each was made.
Files (client in qa_rec_a, server in qa_rec_b unless said otherwise):
iperf3_tcp_fK_{client,server}.txt   iperf3 -c -t 4 -f K / iperf3 -s -1 -f K (rates in KBytes/sec)
iperf3_udp_fk_i05_{client,server}.txt   iperf3 -u -b 6M -t 4 -f k -i 0.5 / -s -1 -f k -i 0.5
iperf2_udp_fK_{client,server}.txt   iperf -u -b 6M -t 4 -i 1 -f K / iperf -s -u -i 1 -f K
iperf2_udp_P3_{client,server}.txt   iperf -u -b 2M -P 3 -t 4 -i 1 / iperf -s -u -i 1 ([SUM] lines without jitter)
iperf2_udp_P3_yC_{client,server}.csv   the same with -y C (CSV: no [SUM] rows)
iperf2_tcp_e_i05_client.txt   iperf -t 4 -i 0.5 -e (last interval 4.0-6.x s while the socket drains)
iperf3_udp_O2_{client,server}.{txt,json}   iperf3 -u -b 6M -t 5 -O 2 [-J] / iperf3 -s -1 [-J]
iperf3_tcp_P3_client.{txt,json}   iperf3 -t 4 -P 3 [-J]
iperf3_tcp_R_P3_gso_client.txt   iperf3 -t 4 -P 3 -R --get-server-output
iperf3_udp_P2_server.json   iperf3 -s -1 -J, client iperf3 -u -b 3M -P 2 -t 5
ping_i02_own_queue_full.txt, ping_D_i02_own_queue_full.txt   ping [-D] -i 0.2 -c 30 while the same host
  sends iperf3 -u -b 6M from 1 s to 4 s (its own queue full: sends fail, ping waits)
ping_i02_replies_lost.txt   ping -i 0.2 -c 30 while the far host sends UDP at 8M to it (-R): replies dropped
ping_D_i05_late_replies.txt   ping -D -c 10 -i 0.5 while the far host's 2 Mbit/s queue of 300 packets holds
  its UDP to it (-R 3M): every reply about 0.3 s late, the last one too
ping_unreachable.txt   ping -c 5 -i 0.5 to an address nobody holds (Destination Host Unreachable)
ping_sigint.txt, ping_D_sigkill.txt   ping -i 0.2 stopped by SIGINT after 2.1 s; ping -D -i 0.2 by SIGKILL after 1.5 s
ss_date_lines.txt   while: date; ss -tin dst SERVER; sleep 0.4 (client side, during iperf3 -t 4)
ss_receiver_side.txt   while: echo "# \$(date +%s.%N)"; ss -tin; sleep 0.4 on the server host during iperf3 -t 4
ss_two_data_flows.txt   the same on the client host during iperf3 -t 4 and iperf -t 4 at once
EOF
ls -l "$OUT"
