#!/usr/bin/env bash
# Record real raw tool outputs for handout parts 1 and 2 (the worked example of a
# measurement manifest, data/measurements/lab5/raw/).
#
# Topology as in the handout: h1 and h2 send through router r1 to h3; the only shaped
# interface is r1's towards h3 (htb at the handout's rate + a pfifo of QLEN packets).
# The handout's own udpclient/udpserver/tcpclient are not available on this machine, so
# iperf3 plays their part: UDP at the handout's offered rates with 1000-byte datagrams,
# TCP greedy; each server runs with -1 and its printout (the receiver side) is kept, as is
# each client's. ping from h2 gives the RTT during the TCP run. Runs are short (DUR s) so
# that the files stay small. Only traffic between the namespaces created here is sent.
#
# Needs root, iproute2 and Debian packages iperf3 iputils-ping.
# Usage: sudo [RUNS="q1 a2"] scripts/record_lab5_raw.sh [OUTDIR]   (default data/measurements/lab5/raw)
# README.txt in OUTDIR gets one paragraph per invocation.
set -euo pipefail
. "$(dirname "$0")/netns-lib.sh"

OUT=${1:-"$(cd "$(dirname "$0")/.." && pwd)/data/measurements/lab5/raw"}
H1=lc5_h1; H2=lc5_h2; H3=lc5_h3; R=lc5_r1
NET=10.98              # h<i> -- r1 on $NET.<i>.0/24 (netns_host_link)
DST=$NET.3.3
QLEN=${QLEN:-50}
DUR=${DUR:-8}
RUNS=${RUNS:-"q1 q2 q6 q7 q10 a1 a2 a3 b1 b2 b3"}   # which runs to (re)record
mkdir -p "$OUT"

cleanup() {
    netns_del $H1 $H2 $H3 $R
}
trap cleanup EXIT
cleanup

netns_new $H1 $H2 $H3 $R
netns_host_link $H1 lc5h1 $R lc5r1 $NET 1
netns_host_link $H2 lc5h2 $R lc5r2 $NET 2
netns_host_link $H3 lc5h3 $R lc5r3 $NET 3
netns_forward $R
netns_offload_off $H1 lc5h1 $H2 lc5h2 $H3 lc5h3 $R lc5r3
netns_shape $R lc5r3 10mbit $QLEN
netns_reach $H1 $DST
netns_reach $H2 $DST

bottleneck() {   # bottleneck RATE
    netns_set_rate $R lc5r3 "$1"
}
server() {       # server PORT FILE: one-off iperf3 server on h3, its printout in FILE
    ip netns exec $H3 iperf3 -s -1 -p "$1" -i 1 > "$OUT/$2" 2>&1 &
    SERVERS+=($!)
}
udp() {          # udp HOST PORT RATE FILE
    ip netns exec "$1" iperf3 -c $DST -p "$2" -u -l 1000 -b "$3" -t $DUR -i 1 > "$OUT/$4" 2>&1
}
tcp() {          # tcp HOST PORT FILE
    ip netns exec "$1" iperf3 -c $DST -p "$2" -t $DUR -i 1 > "$OUT/$3" 2>&1
}

want() { case " $RUNS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
udp_pair() {     # udp_pair NAME PORT H2RATE: h1 1 Mbit/s + h2 H2RATE of UDP (scenarios A)
    SERVERS=(); server $2 "${1}_h1_server.txt"; server $(( $2 + 1 )) "${1}_h2_server.txt"; sleep 0.5
    udp $H1 $2 1M "${1}_h1_udp_client.txt" & C1=$!
    udp $H2 $(( $2 + 1 )) "$3" "${1}_h2_udp_client.txt"
    wait $C1 "${SERVERS[@]}"
}
udp_pair_tcp() { # udp_pair_tcp NAME PORT H2RATE: the same plus a TCP connection and ping from h2 (B)
    SERVERS=(); server $2 "${1}_h1_server.txt"; server $(( $2 + 1 )) "${1}_h2_udp_server.txt"
    server $(( $2 + 2 )) "${1}_h2_tcp_server.txt"; sleep 0.5
    ip netns exec $H2 ping -i 0.2 -c $((DUR * 5)) $DST > "$OUT/${1}_h2_ping.txt" 2>&1 & P=$!
    udp $H1 $2 1M "${1}_h1_udp_client.txt" & C1=$!
    udp $H2 $(( $2 + 1 )) "$3" "${1}_h2_udp_client.txt" & C2=$!
    tcp $H2 $(( $2 + 2 )) "${1}_h2_tcp_client.txt"
    wait $C1 $C2 $P "${SERVERS[@]}"
}

# --- part 1, Q1/Q2: 10 Mbit/s bottleneck ------------------------------------------
bottleneck 10mbit
if want q1; then
    SERVERS=(); server 5301 q1_h3_server.txt; sleep 0.5
    udp $H1 5301 1M q1_h1_udp_client.txt; wait "${SERVERS[@]}"
fi
if want q2; then
    SERVERS=(); server 5302 q2_h3_server.txt; sleep 0.5
    tcp $H1 5302 q2_h1_tcp_client.txt; wait "${SERVERS[@]}"
fi

# --- part 1, Q6/Q7/Q10: 5 Mbit/s bottleneck -------------------------------------------
bottleneck 5mbit
if want q6; then
    SERVERS=(); server 5306 q6_h3_server.txt; sleep 0.5
    udp $H1 5306 4.5M q6_h1_udp_client.txt; wait "${SERVERS[@]}"
fi
if want q7; then
    SERVERS=(); server 5307 q7_h3_server.txt; sleep 0.5
    udp $H1 5307 10M q7_h1_udp_client.txt; wait "${SERVERS[@]}"
fi
if want q10; then
    SERVERS=(); server 5310 q10_h3_server.txt; sleep 0.5
    tcp $H1 5310 q10_h1_tcp_client.txt; wait "${SERVERS[@]}"
fi

# --- part 2, A1-A3: h1 1 Mbit/s + h2 0.5 / 4 / 9 Mbit/s of UDP on 5 Mbit/s ----------------
if want a1; then udp_pair a1 5331 0.5M; fi
if want a2; then udp_pair a2 5311 4M; fi
if want a3; then udp_pair a3 5333 9M; fi

# --- part 2, B1-B3: the same plus a TCP connection from h2, ping from h2 -------------------
if want b1; then udp_pair_tcp b1 5341 0.5M; fi
if want b2; then udp_pair_tcp b2 5321 4M; fi
if want b3; then udp_pair_tcp b3 5351 9M; fi

{
    echo
    echo "Raw outputs recorded by scripts/record_lab5_raw.sh for handout parts 1 and 2."
    echo "runs: $RUNS"
    echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ); kernel: $(uname -r); $(iperf3 --version | head -1)"
    echo "topology: h1, h2 -> r1 -> h3 (network namespaces, veth); htb + pfifo limit $QLEN on r1 towards h3"
    echo "tools: iperf3 stands in for the handout's udpclient/udpserver/tcpclient (not available)"
    echo "each run $DUR s; q1/q2 at 10 Mbit/s, the others at 5 Mbit/s; UDP datagrams of 1000 bytes"
    echo "no delay emulation (netem is not in this kernel): RTTs are queueing delay only"
} >> "$OUT/README.txt"
echo "wrote $OUT"
