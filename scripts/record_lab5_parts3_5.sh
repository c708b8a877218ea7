#!/usr/bin/env bash
# Record handout parts 3-5 (and the bonus's plain-queue run) the way a student would:
# iperf3 (text and -J), iperf 2, ping -D, an `ss -tin` loop on the sender, a `tc -s qdisc` loop.
# No netem in this kernel: every delay is queueing. Topologies:
#   part 3 (lab52): A=h1 -1M- N1 ; C=h2 -10M- N1 ; N1 -1.5M- N2 ; N2 -0.5M- D=h3 ; N2 -10M- B=h4
#   part 4 (lab51): h1, h2 -> r1 -5M-> h3; D2: r1's link back to h1 shaped at 1 Mbit/s and kept
#           full by UDP from h3 to h1, so h1's ACKs wait ~0.3 s more (a longer RTT for h1 only)
#   part 5 (lab53): h1 - r1 -5M- r2 -5M- h3, h2 on r2
#   bonus Q46: lab51 with a 1000-packet pfifo
# The handout's udpclient/udpserver/tcpclient are not available: iperf3 and iperf 2 stand in.
# Only traffic between the namespaces made here is sent. Needs root, iproute2, ethtool and the
# Debian packages iperf3 iperf iputils-ping.
# PARTS picks the runs (default all, in this order): 3 (Q25-Q27), d1, d2 (both D2 runs), bonus, 5.
# Usage: sudo [PARTS="d2"] [DUR=15] [DUR_L=20] scripts/record_lab5_parts3_5.sh OUTDIR
#        (data/measurements/lab5/recorded-parts3-5 holds one run, see its README.txt)
set -euo pipefail
. "$(dirname "$0")/netns-lib.sh"
OUT=${1:?outdir}; mkdir -p "$OUT"
DUR=${DUR:-15}; DUR_L=${DUR_L:-20}
PARTS=${PARTS:-"3 d1 d2 bonus 5"}
want() { [[ " $PARTS " == *" $1 "* ]]; }
NSS="qs_h1 qs_h2 qs_h3 qs_h4 qs_n1 qs_n2"
PIDS=()
cleanup() { netns_kill "${PIDS[@]:-}"; netns_del $NSS; }
trap cleanup EXIT
waitall() { for p in "$@"; do wait "$p" || true; done; }
ssloop() {   # ssloop NS FILE SECONDS
    local ns=$1 file=$2 end=$(( $(date +%s) + $3 ))
    ( while [ "$(date +%s)" -lt "$end" ]; do echo "# $(date +%s.%N)"; ip netns exec "$ns" ss -tin state established; sleep 0.2; done ) > "$file" &
    LOOPS+=($!)
}
tcloop() {   # tcloop NS DEV FILE SECONDS
    local ns=$1 dev=$2 file=$3 end=$(( $(date +%s) + $4 ))
    ( while [ "$(date +%s)" -lt "$end" ]; do echo "# $(date +%s.%N)"; ip netns exec "$ns" tc -s qdisc show dev "$dev"; sleep 0.5; done ) > "$file" &
    LOOPS+=($!)
}

# ---------------- part 3: lab52 -------------------------------------------------------------
cleanup
if want 3; then
N=10.98
netns_new $NSS
netns_host_link qs_h1 qsh1 qs_n1 qsn1h1 $N 1
netns_host_link qs_h2 qsh2 qs_n1 qsn1h2 $N 2
netns_host_link qs_h3 qsh3 qs_n2 qsn2h3 $N 3
netns_host_link qs_h4 qsh4 qs_n2 qsn2h4 $N 4
netns_veth qs_n1 qsn1n2 qs_n2 qsn2n1
netns_addr qs_n1 qsn1n2 $N.12.1/24; netns_addr qs_n2 qsn2n1 $N.12.2/24
netns_up qs_n1 qsn1n2 qs_n2 qsn2n1
ip -n qs_n1 route add $N.3.0/24 via $N.12.2; ip -n qs_n1 route add $N.4.0/24 via $N.12.2
ip -n qs_n2 route add $N.1.0/24 via $N.12.1; ip -n qs_n2 route add $N.2.0/24 via $N.12.1
netns_forward qs_n1; netns_forward qs_n2
netns_offload_off qs_h1 qsh1 qs_h2 qsh2 qs_h3 qsh3 qs_h4 qsh4 qs_n1 qsn1h1 qs_n1 qsn1h2 qs_n1 qsn1n2 qs_n2 qsn2n1 qs_n2 qsn2h3 qs_n2 qsn2h4
netns_shape qs_h1 qsh1 1mbit 50
netns_shape qs_h2 qsh2 10mbit 50
netns_shape qs_n1 qsn1n2 1500kbit 50
netns_shape qs_n2 qsn2h3 500kbit 50
netns_shape qs_n2 qsn2h4 10mbit 50
netns_reach qs_h1 $N.4.4; netns_reach qs_h2 $N.3.3
B=$N.4.4; D=$N.3.3
# Q25: UDP at the access rates (iperf3 text)
netns_server qs_h4 "$OUT/q25_AB_iperf3_server.txt" iperf3 -s -1 -p 5601 -i 1
netns_server qs_h3 "$OUT/q25_CD_iperf3_server.txt" iperf3 -s -1 -p 5602 -i 1
ip netns exec qs_h1 iperf3 -c $B -p 5601 -u -l 1000 -b 1M -t $DUR -i 1 > "$OUT/q25_AB_iperf3_client.txt" 2>&1 & C1=$!
ip netns exec qs_h2 iperf3 -c $D -p 5602 -u -l 1000 -b 10M -t $DUR -i 1 > "$OUT/q25_CD_iperf3_client.txt" 2>&1
waitall $C1; sleep 1
# Q26: UDP at the max-min rates, data rates 938 and 469 kbit/s (iperf3 -J)
netns_server qs_h4 "$OUT/q26_AB_iperf3_server.json" iperf3 -s -1 -p 5603 -i 1 -J
netns_server qs_h3 "$OUT/q26_CD_iperf3_server.json" iperf3 -s -1 -p 5604 -i 1 -J
ip netns exec qs_h1 iperf3 -c $B -p 5603 -u -l 1000 -b 938k -t $DUR -i 1 -J > "$OUT/q26_AB_iperf3_client.json" 2>&1 & C1=$!
ip netns exec qs_h2 iperf3 -c $D -p 5604 -u -l 1000 -b 469k -t $DUR -i 1 -J > "$OUT/q26_CD_iperf3_client.json" 2>&1
waitall $C1; sleep 1
# Q27: TCP CUBIC (iperf 2, -i 1), ss loops on both senders, ping -D from h1 to h4
ip netns exec qs_h4 iperf -s -p 5605 -i 1 > "$OUT/q27_AB_iperf2_server.txt" 2>&1 & S1=$!; PIDS+=($S1)
ip netns exec qs_h3 iperf -s -p 5606 -i 1 > "$OUT/q27_CD_iperf2_server.txt" 2>&1 & S2=$!; PIDS+=($S2)
sleep 0.5; LOOPS=()
ssloop qs_h1 "$OUT/q27_h1_ss.txt" $((DUR_L + 1)); ssloop qs_h2 "$OUT/q27_h2_ss.txt" $((DUR_L + 1))
ip netns exec qs_h1 ping -D -i 0.2 -c $((DUR_L * 5)) $B > "$OUT/q27_h1_ping-D.txt" 2>&1 & P1=$!
ip netns exec qs_h1 iperf -c $B -p 5605 -Z cubic -t $DUR_L -i 1 > "$OUT/q27_AB_iperf2_client.txt" 2>&1 & C1=$!
ip netns exec qs_h2 iperf -c $D -p 5606 -Z cubic -t $DUR_L -i 1 > "$OUT/q27_CD_iperf2_client.txt" 2>&1
waitall $C1 $P1 "${LOOPS[@]}"; sleep 1
kill -INT $S1 $S2 2>/dev/null || true; waitall $S1 $S2
netns_del $NSS
fi

# ---------------- part 4 and bonus: lab51 -------------------------------------------------
if want d1 || want d2 || want bonus; then
N=10.99
netns_new qs_h1 qs_h2 qs_h3 qs_n1
for i in 1 2 3; do netns_host_link qs_h$i qsh$i qs_n1 qsr$i $N $i; netns_offload_off qs_h$i qsh$i qs_n1 qsr$i; done
netns_forward qs_n1
netns_shape qs_n1 qsr3 5mbit 50
netns_reach qs_h1 $N.3.3; netns_reach qs_h2 $N.3.3
H3=$N.3.3
d_run() {   # d_run RUN CC FORM(txt|json) H2CONN ACKDELAY(0|1)
    local run=$1 cc=$2 form=$3 par=$4 slow=$5 j=()
    [ "$form" = json ] && j=(-J)
    LOOPS=()
    netns_server qs_h3 "$OUT/${run}_h1_iperf3_server.$form" iperf3 -s -1 -p 5701 -i 1 "${j[@]}"
    netns_server qs_h3 "$OUT/${run}_h2_iperf3_server.$form" iperf3 -s -1 -p 5702 -i 1 "${j[@]}"
    local U=""
    [ "$slow" = 1 ] && netns_server qs_h1 "$OUT/${run}_ackload_udp_server.txt" iperf3 -s -1 -p 5709 -i 5
    ssloop qs_h1 "$OUT/${run}_h1_ss.txt" $((DUR_L + 1)); ssloop qs_h2 "$OUT/${run}_h2_ss.txt" $((DUR_L + 1))
    ip netns exec qs_h1 ping -D -i 0.2 -c $((DUR_L * 5)) $H3 > "$OUT/${run}_h1_ping-D.txt" 2>&1 & P1=$!
    ip netns exec qs_h2 ping -D -i 0.2 -c $((DUR_L * 5)) $H3 > "$OUT/${run}_h2_ping-D.txt" 2>&1 & P2=$!
    ip netns exec qs_h1 iperf3 -c $H3 -p 5701 -C $cc -t $DUR_L -i 1 "${j[@]}" > "$OUT/${run}_h1_iperf3_client.$form" 2>&1 & C1=$!
    if [ "$slow" = 1 ]; then
        # the load on h1's ACK path starts once the connections are up (their handshakes and
        # iperf3's control messages would otherwise be lost behind it)
        sleep 1
        ip netns exec qs_h3 iperf3 -c $N.1.1 -p 5709 -u -l 1000 -b 1.05M -t $DUR_L -i 5 > "$OUT/${run}_ackload_udp_client.txt" 2>&1 & U=$!
    fi
    ip netns exec qs_h2 iperf3 -c $H3 -p 5702 -C $cc -P $par -t $DUR_L -i 1 "${j[@]}" > "$OUT/${run}_h2_iperf3_client.$form" 2>&1
    waitall $C1 $P1 $P2 "${LOOPS[@]}" $U; sleep 1
}
want d1 && d_run d1 cubic txt 3 0
if want d2; then
# D2: h1's ACKs queue behind UDP on r1 -> h1 (1 Mbit/s, 40 packets: about 0.33 s)
netns_shape qs_n1 qsr1 1mbit 40
d_run d2cubic cubic txt 1 1
d_run d2reno reno json 1 1
ip netns exec qs_n1 tc qdisc del dev qsr1 root
fi
if want bonus; then
# bonus Q46: two CUBIC connections, 1000-packet pfifo, ping -D from h1, tc loop on r1
netns_set_qlen qs_n1 qsr3 1000
LOOPS=()
netns_server qs_h3 "$OUT/q46_h1_iperf3_server.txt" iperf3 -s -1 -p 5801 -i 1
netns_server qs_h3 "$OUT/q46_h2_iperf3_server.txt" iperf3 -s -1 -p 5802 -i 1
tcloop qs_n1 qsr3 "$OUT/q46_r1_tc.txt" $((DUR_L + 6))
ip netns exec qs_h1 ping -D -i 0.2 -c $(((DUR_L + 5) * 5)) $H3 > "$OUT/q46_h1_ping-D.txt" 2>&1 & P1=$!
ip netns exec qs_h1 iperf3 -c $H3 -p 5801 -C cubic -t $((DUR_L + 5)) -i 1 > "$OUT/q46_h1_iperf3_client.txt" 2>&1 & C1=$!
ip netns exec qs_h2 iperf3 -c $H3 -p 5802 -C cubic -t $((DUR_L + 5)) -i 1 > "$OUT/q46_h2_iperf3_client.txt" 2>&1
waitall $C1 $P1 "${LOOPS[@]}"; sleep 1
fi
netns_del qs_h1 qs_h2 qs_h3 qs_n1
fi

# ---------------- part 5: lab53 -------------------------------------------------------------
if want 5; then
N=10.96
netns_new qs_h1 qs_h2 qs_h3 qs_n1 qs_n2
netns_host_link qs_h1 qsh1 qs_n1 qsn1h1 $N 1
netns_host_link qs_h2 qsh2 qs_n2 qsn2h2 $N 2
netns_host_link qs_h3 qsh3 qs_n2 qsn2h3 $N 3
netns_veth qs_n1 qsn1n2 qs_n2 qsn2n1
netns_addr qs_n1 qsn1n2 $N.12.1/24; netns_addr qs_n2 qsn2n1 $N.12.2/24
netns_up qs_n1 qsn1n2 qs_n2 qsn2n1
ip -n qs_n1 route add default via $N.12.2; ip -n qs_n2 route add $N.1.0/24 via $N.12.1
netns_forward qs_n1; netns_forward qs_n2
netns_offload_off qs_h1 qsh1 qs_h2 qsh2 qs_h3 qsh3 qs_n1 qsn1h1 qs_n1 qsn1n2 qs_n2 qsn2n1 qs_n2 qsn2h2 qs_n2 qsn2h3
netns_shape qs_n1 qsn1n2 5mbit 50      # r1-eth1
netns_shape qs_n2 qsn2h3 5mbit 50      # r2-eth2
netns_reach qs_h1 $N.2.2 $N.3.3; netns_reach qs_h2 $N.3.3
LOOPS=()
netns_server qs_h2 "$OUT/p5_1to2_iperf3_server.txt" iperf3 -s -1 -p 5901 -i 1
netns_server qs_h3 "$OUT/p5_1to3_iperf3_server.txt" iperf3 -s -1 -p 5902 -i 1
netns_server qs_h3 "$OUT/p5_2to3_iperf3_server.txt" iperf3 -s -1 -p 5903 -i 1
ssloop qs_h1 "$OUT/p5_h1_ss.txt" $((DUR_L + 1)); ssloop qs_h2 "$OUT/p5_h2_ss.txt" $((DUR_L + 1))
ip netns exec qs_h1 ping -D -i 0.2 -c $((DUR_L * 5)) $N.2.2 > "$OUT/p5_1to2_ping-D.txt" 2>&1 & P1=$!
ip netns exec qs_h1 ping -D -i 0.2 -c $((DUR_L * 5)) $N.3.3 > "$OUT/p5_1to3_ping-D.txt" 2>&1 & P2=$!
ip netns exec qs_h2 ping -D -i 0.2 -c $((DUR_L * 5)) $N.3.3 > "$OUT/p5_2to3_ping-D.txt" 2>&1 & P3=$!
ip netns exec qs_h1 iperf3 -c $N.2.2 -p 5901 -C cubic -t $DUR_L -i 1 > "$OUT/p5_1to2_iperf3_client.txt" 2>&1 & C1=$!
ip netns exec qs_h1 iperf3 -c $N.3.3 -p 5902 -C cubic -t $DUR_L -i 1 > "$OUT/p5_1to3_iperf3_client.txt" 2>&1 & C2=$!
ip netns exec qs_h2 iperf3 -c $N.3.3 -p 5903 -C cubic -t $DUR_L -i 1 > "$OUT/p5_2to3_iperf3_client.txt" 2>&1
waitall $C1 $C2 $P1 $P2 $P3 "${LOOPS[@]}"; sleep 1
fi
{
    echo "Recorded by scripts/record_lab5_parts3_5.sh, PARTS=\"$PARTS\""
    echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ); kernel: $(uname -r)"
    echo "tools: $(iperf3 --version | head -1); $(iperf -v 2>&1 | head -1); $(ping -V | head -1); $(ss -V)"
    echo "durations: UDP $DUR s, TCP $DUR_L s (Q46 $((DUR_L + 5)) s)"
} >> "$OUT/README.txt"
echo "wrote $OUT"
