#!/usr/bin/env bash
# Record handout parts 1 and 2 (and the B runs, where UDP and TCP compete and lose packets)
# with every tool and output form a student is likely to save: the test matrix of the
# manifest (data/measurements/lab5/recorded-<date>/, its manifest.toml and README.txt).
#
# It complements record_lab5_raw.sh (one iperf3 text printout per run) and
# record_measurements.sh (one file per tool on a 10 Mbit/s link). Here each run is recorded
#   - with iperf3 twice, one run after the other: text (.txt) and -J (.json), client and server;
#   - Q10 also with -R (server on h1, client on h3: h1 still sends through the shaper), -P 2 and
#     --get-server-output;
#   - Q7 at 10 Mbit/s (UDP) and Q10 (TCP) with iperf 2.1.8: -i 1, no -i, -e -i 1 and -y C -i 1,
#     client and server; B2 with iperf 2 (-i 1 text and -y C);
#   - Q10 and B1-B3 with ping from the sending host (-D and plain, each with its summary) and,
#     started together, an `ss -tin` loop on the sender and a `tc -s qdisc` loop on the router,
#     each sample preceded by a `# <date +%s.%N>` line; the -J run of B1-B3 has a `tc -s -j qdisc`
#     loop and two pings (-D and plain) ended by SIGTERM, so without their summary.
#
# Topology (the handout's Figure 1): h1, h2 -> r1 -> h3, network namespaces joined by veth
# pairs; r1's interface towards h3 is the only shaped one: htb at RATE1 (Q1, Q2) or RATE
# (the rest) with a pfifo of QLEN packets. This kernel has no netem: there is no propagation
# delay, every RTT is queueing in that pfifo. Offloads are off so that packets are MSS-sized.
# The handout's udpclient/udpserver/tcpclient are not available: iperf3 and iperf 2 stand in,
# UDP with 1000-byte datagrams at the handout's offered rates. Only traffic between the
# namespaces made here is sent.
#
# Needs root, iproute2, ethtool and Debian packages iperf3 iperf iputils-ping.
# Usage: sudo [RUNS="q1 q7-10M b2"] [DUR=10] [DUR_B=20] scripts/record_lab5_matrix.sh [OUTDIR]
#        (default data/measurements/lab5/recorded-<UTC date>)
set -euo pipefail
. "$(dirname "$0")/netns-lib.sh"

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT=${1:-"$ROOT/data/measurements/lab5/recorded-$(date -u +%Y-%m-%d)"}
H1=lcm_h1; H2=lcm_h2; H3=lcm_h3; R=lcm_r1
NET=10.97
DST=$NET.3.3          # h3
H1ADDR=$NET.1.1
QLEN=${QLEN:-50}
RATE1=${RATE1:-10mbit}
RATE=${RATE:-5mbit}
CC=${CC:-cubic}
DUR=${DUR:-10}        # part 1 and A runs [s]
DUR_B=${DUR_B:-20}    # B runs [s]: TCP needs a few seconds to settle beside the UDP flows
RUNS=${RUNS:-"q1 q2 q6 q7-5M q7-10M q7-20M q10 q10-R q10-P2 q10-gso q7-10M-iperf2 q10-iperf2 a1 a2 a3 b1 b2 b3 b2-iperf2"}
mkdir -p "$OUT"

cleanup() {
    netns_del $H1 $H2 $H3 $R
}
trap cleanup EXIT
cleanup

# --- topology --------------------------------------------------------------------------
netns_new $H1 $H2 $H3 $R
for i in 1 2 3; do
    h=lcm_h$i
    netns_host_link $h lcmh$i $R lcmr$i $NET $i
    netns_offload_off $h lcmh$i $R lcmr$i
done
netns_forward $R
# the lab's TCP is CUBIC; a new namespace starts with the host's default (bbr on this machine) and
# may not choose cubic as its default, so every TCP client asks for it (iperf3 -C, iperf -Z)
netns_shape $R lcmr3 $RATE1 $QLEN
for h in $H1 $H2; do netns_reach $h $DST; done

bottleneck() {   # bottleneck RATE
    netns_set_rate $R lcmr3 "$1"
}
want() { case " $RUNS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
host() { case $1 in h1) echo $H1 ;; h2) echo $H2 ;; h3) echo $H3 ;; r1) echo $R ;; esac; }

# iperf3: one-off server (-1), its printout kept; J="-J" (or "") chooses JSON or text
srv3() {         # srv3 HOST PORT FILE [options]
    local ns; ns=$(host "$1"); local port=$2 file=$3; shift 3
    ip netns exec "$ns" iperf3 -s -1 -p "$port" -i 1 "$@" > "$OUT/$file" 2>&1 &
    SERVERS+=($!)
}
cli3() {         # cli3 HOST DST PORT FILE [options]
    local ns; ns=$(host "$1"); local dst=$2 port=$3 file=$4; shift 4
    ip netns exec "$ns" iperf3 -c "$dst" -p "$port" -i 1 "$@" > "$OUT/$file" 2>&1
}
# iperf 2 has no one-off server: it is stopped (SIGINT) once its client is done
srv2() {         # srv2 HOST PORT FILE [options]
    local ns; ns=$(host "$1"); local port=$2 file=$3; shift 3
    ip netns exec "$ns" iperf -s -p "$port" "$@" > "$OUT/$file" 2>&1 &
    SERVERS2+=($!)
}
cli2() {         # cli2 HOST PORT FILE [options]
    local ns; ns=$(host "$1"); local port=$2 file=$3; shift 3
    ip netns exec "$ns" iperf -c $DST -p "$port" "$@" > "$OUT/$file" 2>&1
}
stop2() {
    sleep 1
    for p in "${SERVERS2[@]}"; do kill -INT "$p" 2>/dev/null || true; done
    for p in "${SERVERS2[@]}"; do wait "$p" 2>/dev/null || true; done
    SERVERS2=()
}
# the sampling loops, started together; each sample follows a '# <unix time>' line.
# text: an ss -tin loop on the sender and a tc -s qdisc loop on r1; json: a tc -s -j qdisc loop
loops() {        # loops RUN SENDER SECONDS FORM(text|json)
    local run=$1 snd=$2 secs=$3 form=$4 ns; ns=$(host "$snd")
    local end; end=$(( $(date +%s) + secs ))
    if [ "$form" = json ]; then
        (
            while [ "$(date +%s)" -lt "$end" ]; do
                echo "# $(date +%s.%N)"
                ip netns exec $R tc -s -j qdisc show dev lcmr3; echo
                sleep 0.5
            done
        ) > "$OUT/${run}_r1_tc.json" & LOOPS+=($!)
    else
        (
            while [ "$(date +%s)" -lt "$end" ]; do
                echo "# $(date +%s.%N)"
                ip netns exec "$ns" ss -tin dst $DST
                sleep 0.2
            done
        ) > "$OUT/${run}_${snd}_ss.txt" & LOOPS+=($!)
        (
            while [ "$(date +%s)" -lt "$end" ]; do
                echo "# $(date +%s.%N)"
                ip netns exec $R tc -s qdisc show dev lcmr3
                sleep 0.5
            done
        ) > "$OUT/${run}_r1_tc.txt" & LOOPS+=($!)
    fi
}
waitall() { for p in "$@"; do wait "$p" || true; done; }

# --- part 1 ------------------------------------------------------------------------------
udp1() {         # udp1 RUN PORT RATE: one UDP flow h1 -> h3, text run then -J run
    local run=$1 port=$2 rate=$3
    for ext in txt json; do
        local j=(); [ $ext = json ] && j=(-J)
        SERVERS=(); srv3 h3 "$port" "${run}_h1_udp_iperf3_server.$ext" "${j[@]}"; sleep 0.5
        cli3 h1 $DST "$port" "${run}_h1_udp_iperf3_client.$ext" -u -l 1000 -b "$rate" -t "$DUR" "${j[@]}"
        waitall "${SERVERS[@]}"
    done
}
tcp1() {         # tcp1 RUN PORT [iperf3 options]: one TCP connection h1 -> h3, text run then -J run
    local run=$1 port=$2; shift 2
    for ext in txt json; do
        local j=(); [ $ext = json ] && j=(-J)
        SERVERS=(); srv3 h3 "$port" "${run}_h1_tcp_iperf3_server.$ext" "${j[@]}"; sleep 0.5
        cli3 h1 $DST "$port" "${run}_h1_tcp_iperf3_client.$ext" -C $CC -t "$DUR" "$@" "${j[@]}"
        waitall "${SERVERS[@]}"
    done
}

bottleneck $RATE1
if want q1; then udp1 q1 5401 1M; fi
if want q2; then tcp1 q2 5402; fi

bottleneck $RATE
if want q6; then udp1 q6 5406 4.5M; fi
if want q7-5M; then udp1 q7-5M 5407 5M; fi
if want q7-10M; then udp1 q7-10M 5417 10M; fi
if want q7-20M; then udp1 q7-20M 5427 20M; fi
if want q10; then
    # text run with ping (-D and plain) from h1 and the ss / tc loops; then the -J run
    SERVERS=(); LOOPS=(); srv3 h3 5410 q10_h1_tcp_iperf3_server.txt; sleep 0.5
    ip netns exec $H1 ping -D -i 0.2 -c $((DUR * 5)) $DST > "$OUT/q10_h1_ping-D.txt" 2>&1 & P1=$!
    ip netns exec $H1 ping -i 0.2 -c $((DUR * 5)) $DST > "$OUT/q10_h1_ping.txt" 2>&1 & P2=$!
    loops q10 h1 $((DUR + 1)) text
    cli3 h1 $DST 5410 q10_h1_tcp_iperf3_client.txt -C $CC -t "$DUR"
    waitall "${SERVERS[@]}" $P1 $P2 "${LOOPS[@]}"
    SERVERS=(); srv3 h3 5410 q10_h1_tcp_iperf3_server.json -J; sleep 0.5
    cli3 h1 $DST 5410 q10_h1_tcp_iperf3_client.json -C $CC -t "$DUR" -J
    waitall "${SERVERS[@]}"
fi
if want q10-R; then
    # -R: the server runs on h1 and sends; the client on h3 receives (data still h1 -> h3)
    for ext in txt json; do
        j=(); [ $ext = json ] && j=(-J)
        SERVERS=(); srv3 h1 5411 "q10-R_h1_tcp_iperf3_server.$ext" "${j[@]}"; sleep 0.5
        cli3 h3 $H1ADDR 5411 "q10-R_h1_tcp_iperf3_client.$ext" -R -C $CC -t "$DUR" "${j[@]}"
        waitall "${SERVERS[@]}"
    done
fi
if want q10-P2; then tcp1 q10-P2 5412 -P 2; fi
if want q10-gso; then tcp1 q10-gso 5413 --get-server-output; fi

# iperf 2: -i 1, no -i, -e -i 1, -y C -i 1 (the server with the same options as its client)
iperf2_forms() { # iperf2_forms RUN FLOW PORT [client options]
    local run=$1 flow=$2 port=$3; shift 3
    local srv=() cli=(-Z $CC); case $flow in *udp) srv=(-u); cli=(-u) ;; esac
    local form opts ext
    for form in iperf2 iperf2-noi iperf2-e iperf2-yC; do
        case $form in
            iperf2) opts=(-i 1); ext=txt ;;
            iperf2-noi) opts=(); ext=txt ;;
            iperf2-e) opts=(-e -i 1); ext=txt ;;
            iperf2-yC) opts=(-y C -i 1); ext=csv ;;
        esac
        SERVERS2=(); srv2 h3 "$port" "${run}_${flow}_${form}_server.$ext" "${srv[@]}" "${opts[@]}"; sleep 0.5
        cli2 h1 "$port" "${run}_${flow}_${form}_client.$ext" "${cli[@]}" "$@" -t "$DUR" "${opts[@]}"
        stop2
    done
}
if want q7-10M-iperf2; then iperf2_forms q7-10M h1_udp 5501 -l 1000 -b 10M; fi
if want q10-iperf2; then iperf2_forms q10 h1_tcp 5502; fi

# --- part 2 ------------------------------------------------------------------------------
udp_pair() {     # udp_pair RUN PORT H2RATE: h1 1 Mbit/s + h2 H2RATE of UDP (scenarios A)
    local run=$1 port=$2 rate=$3
    for ext in txt json; do
        local j=(); [ $ext = json ] && j=(-J)
        SERVERS=()
        srv3 h3 "$port" "${run}_h1_udp_iperf3_server.$ext" "${j[@]}"
        srv3 h3 $((port + 1)) "${run}_h2_udp_iperf3_server.$ext" "${j[@]}"; sleep 0.5
        cli3 h1 $DST "$port" "${run}_h1_udp_iperf3_client.$ext" -u -l 1000 -b 1M -t "$DUR" "${j[@]}" & C1=$!
        cli3 h2 $DST $((port + 1)) "${run}_h2_udp_iperf3_client.$ext" -u -l 1000 -b "$rate" -t "$DUR" "${j[@]}"
        waitall $C1 "${SERVERS[@]}"
    done
}
b_run() {        # b_run RUN PORT H2RATE: the same plus a TCP connection from h2 (scenarios B)
    local run=$1 port=$2 rate=$3
    local n=$((DUR_B * 5))
    for ext in txt json; do
        local j=(); [ $ext = json ] && j=(-J)
        SERVERS=(); LOOPS=()
        srv3 h3 "$port" "${run}_h1_udp_iperf3_server.$ext" "${j[@]}"
        srv3 h3 $((port + 1)) "${run}_h2_udp_iperf3_server.$ext" "${j[@]}"
        srv3 h3 $((port + 2)) "${run}_h2_tcp_iperf3_server.$ext" "${j[@]}"; sleep 0.5
        if [ $ext = txt ]; then
            ip netns exec $H2 ping -D -i 0.2 -c $n $DST > "$OUT/${run}_h2_ping-D.txt" 2>&1 & P1=$!
            ip netns exec $H2 ping -i 0.2 -c $n $DST > "$OUT/${run}_h2_ping.txt" 2>&1 & P2=$!
            loops "$run" h2 $((DUR_B + 1)) text
        else
            # no count: stopped with SIGTERM below, so no summary is printed
            ip netns exec $H2 ping -D -i 0.2 $DST > "$OUT/${run}_h2_ping-D_killed.txt" 2>&1 & P1=$!
            ip netns exec $H2 ping -i 0.2 $DST > "$OUT/${run}_h2_ping_killed.txt" 2>&1 & P2=$!
            loops "$run" h2 $((DUR_B + 1)) json
        fi
        cli3 h1 $DST "$port" "${run}_h1_udp_iperf3_client.$ext" -u -l 1000 -b 1M -t "$DUR_B" "${j[@]}" & C1=$!
        cli3 h2 $DST $((port + 1)) "${run}_h2_udp_iperf3_client.$ext" -u -l 1000 -b "$rate" -t "$DUR_B" "${j[@]}" & C2=$!
        cli3 h2 $DST $((port + 2)) "${run}_h2_tcp_iperf3_client.$ext" -C $CC -t "$DUR_B" "${j[@]}"
        waitall $C1 $C2 "${SERVERS[@]}"
        if [ $ext = json ]; then
            sleep 1
            # ip netns exec runs ping in its own process (exec): SIGTERM ends it without a summary
            kill -TERM $P1 $P2 2>/dev/null || true
        fi
        waitall $P1 $P2 "${LOOPS[@]}"
    done
}
if want a1; then udp_pair a1 5431 0.5M; fi
if want a2; then udp_pair a2 5434 4M; fi
if want a3; then udp_pair a3 5437 9M; fi
if want b1; then b_run b1 5441 0.5M; fi
if want b2; then b_run b2 5444 4M; fi
if want b3; then b_run b3 5447 9M; fi
if want b2-iperf2; then
    # B2 with iperf 2: -i 1 text, then -y C; servers with the clients' options
    for form in iperf2 iperf2-yC; do
        opts=(-i 1); ext=txt; [ $form = iperf2-yC ] && { opts=(-y C -i 1); ext=csv; }
        SERVERS2=()
        srv2 h3 5551 "b2_h1_udp_${form}_server.$ext" -u "${opts[@]}"
        srv2 h3 5552 "b2_h2_udp_${form}_server.$ext" -u "${opts[@]}"
        srv2 h3 5553 "b2_h2_tcp_${form}_server.$ext" "${opts[@]}"; sleep 0.5
        ip netns exec $H1 iperf -c $DST -p 5551 -u -l 1000 -b 1M -t "$DUR_B" "${opts[@]}" \
            > "$OUT/b2_h1_udp_${form}_client.$ext" 2>&1 & C1=$!
        ip netns exec $H2 iperf -c $DST -p 5552 -u -l 1000 -b 4M -t "$DUR_B" "${opts[@]}" \
            > "$OUT/b2_h2_udp_${form}_client.$ext" 2>&1 & C2=$!
        ip netns exec $H2 iperf -c $DST -p 5553 -Z $CC -t "$DUR_B" "${opts[@]}" > "$OUT/b2_h2_tcp_${form}_client.$ext" 2>&1
        waitall $C1 $C2
        stop2
    done
fi

{
    echo "Recorded by scripts/record_lab5_matrix.sh: handout parts 1 and 2 with every tool and output form."
    echo "runs: $RUNS"
    echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ); kernel: $(uname -r)"
    echo "tools: $(iperf3 --version | head -1); $(iperf -v 2>&1 | head -1); $(ping -V | head -1); $(ss -V); $(tc -V)"
    echo "topology: h1 ($H1ADDR), h2 ($NET.2.2) -> r1 -> h3 ($DST), network namespaces joined by veth pairs,"
    echo "  offloads off; r1 towards h3: htb $RATE1 (q1, q2) or $RATE (the others) + pfifo limit $QLEN packets"
    echo "  no delay emulation (netem is not in this kernel): every RTT is queueing delay in that pfifo"
    echo "TCP: $CC (iperf3 -C $CC, iperf -Z $CC)"
    echo "durations: part 1 and A runs $DUR s, B runs $DUR_B s; UDP datagrams of 1000 bytes"
} >> "$OUT/README.txt"
echo "wrote $OUT"
