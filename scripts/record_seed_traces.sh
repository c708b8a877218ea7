#!/usr/bin/env bash
# Record, on this machine, the traces that notebooks 08 and 09 compare with seed reports
# 001 (cwnd of Reno and CUBIC) and 002 (bufferbloat in Mininet).
#
# The bufferbloat exercise of seed 002, rebuilt with network namespaces:
#
#     h1 (10.98.1.1) -- r -- h2 (10.98.2.2)
#
# r shapes its interface towards h2 with htb (RATE, 1.5 Mbit/s as in the exercise) and a
# pfifo of QLEN packets: the bottleneck queue. h1 sends one long iperf3 flow to h2 (the
# "long flow"), h1 also serves a web page of PAGE bytes that h2 downloads with curl (the
# "short flow"), and h1 pings h2. Recorded: the queue length every 0.1 s, ping RTTs, the
# tcp:tcp_probe tracepoint of both TCP flows (cwnd, ssthresh, srtt), iperf3's report and
# the download times. netem is not in this kernel, so there is no propagation delay: the
# base RTT is a fraction of a millisecond and every RTT above it is queueing.
#
# Runs (each in a fresh topology):
#   seed002/recorded/reno_qlen100   Reno, pfifo 100 packets, DUR_LONG s
#   seed002/recorded/reno_qlen20    Reno, pfifo 20 packets,  DUR_LONG s
#   seed001/recorded/cubic_qlen100  CUBIC, pfifo 100 packets, DUR_CUBIC s (same bottleneck
#                                   as reno_qlen100, for the Reno vs CUBIC comparison)
#
# The tracepoint output is thinned before it is stored (scripts/thin_tcp_probe.py): a line is
# kept when the flow's snd_cwnd or ssthresh changed, or 0.1 s after the last kept line of
# that flow. Lines are otherwise unchanged, so labcalc.measure.read_tcp_probe reads them.
#
# Needs root, iproute2, tracefs, ethtool, iperf3, iputils ping, curl and python3.
# Usage: sudo scripts/record_seed_traces.sh [DATA_MEASUREMENTS_DIR]
set -euo pipefail
. "$(dirname "$0")/netns-lib.sh"

BASE=${1:-"$(cd "$(dirname "$0")/.." && pwd)/data/measurements"}
H1=lcseed_h1
H2=lcseed_h2
R=lcseed_r
NET=10.98              # h1 -- r on $NET.1.0/24, r -- h2 on $NET.2.0/24 (netns_line)
SRC=$NET.1.1
DST=$NET.2.2
RATE=${RATE:-1500kbit}
PAGE=${PAGE:-178000}
DUR_LONG=${DUR_LONG:-90}
DUR_CUBIC=${DUR_CUBIC:-60}
TRACE=/sys/kernel/tracing/instances/labcalc_seed
WWW=$(mktemp -d)
PIDS=()

cleanup() {
    netns_kill "${PIDS[@]:-}"
    PIDS=()
    if [ -d "$TRACE" ]; then
        echo 0 > "$TRACE/events/tcp/tcp_probe/enable" || true
        rmdir "$TRACE" 2>/dev/null || true
    fi
    netns_del $H1 $H2 $R
}
trap 'cleanup; rm -rf "$WWW"' EXIT

stamp() { date +%s.%N | cut -c1-17; }

thin_probe() { python3 "$(dirname "$0")/thin_tcp_probe.py"; }  # stdin: tracepoint text; stdout: thinned text

topology() {  # $1 = queue limit [packets], $2 = congestion control of h1
    cleanup
    netns_line $NET lcseed $H1 $R $H2   # lcseed1 -- lcseed1r, lcseed2r -- lcseed2
    for ns in $H1 $H2; do
        # a namespace may only pick an algorithm of tcp_allowed_congestion_control (here
        # reno, not cubic): the web server needs reno; iperf3 -C picks its own algorithm
        ip netns exec $ns sysctl -q -w net.ipv4.tcp_congestion_control="$2" 2> /dev/null || true
        ip netns exec $ns sysctl -q -w net.ipv4.tcp_no_metrics_save=1   # no cached ssthresh between downloads
    done
    netns_offload_off $H1 lcseed1 $R lcseed1r $R lcseed2r $H2 lcseed2
    netns_shape $R lcseed2r $RATE "$QLEN"
    netns_reach $H1 $DST
}

downloads() {  # $1 = number of downloads; appends "<epoch>,<time_total_s>,<bytes>,<bytes/s>" lines
    for _ in $(seq "$1"); do
        printf '%s,' "$(stamp)"
        ip netns exec $H2 curl -s -o /dev/null -w '%{time_total},%{size_download},%{speed_download}\n' \
            "http://$SRC:8080/index.html"
        sleep 1
    done
}

run() {  # $1 = output folder, $2 = congestion control, $3 = queue limit, $4 = duration [s]
    local out=$1 cc=$2 dur=$4
    QLEN=$3
    mkdir -p "$out"
    topology "$QLEN" "$cc"
    ip netns exec $H2 iperf3 -s -p 5201 > /dev/null 2>&1 & PIDS+=($!)
    ip netns exec $H1 python3 -m http.server 8080 --bind $SRC --directory "$WWW" > /dev/null 2>&1 & PIDS+=($!)
    sleep 1

    # idle: ping and three downloads before the long flow starts
    ip netns exec $H1 ping -D -i 0.2 -c 20 $DST > "$out/ping_idle.txt"
    echo "epoch_s,time_total_s,size_bytes,speed_bytes_per_s" > "$out/download_idle.csv"
    downloads 3 >> "$out/download_idle.csv"

    # the long flow, with the queue, ping and tcp_probe recorded throughout
    mkdir -p "$TRACE"
    echo "dport == 5201 || sport == 8080" > "$TRACE/events/tcp/tcp_probe/filter"
    echo > "$TRACE/trace"
    echo 1 > "$TRACE/events/tcp/tcp_probe/enable"
    # the tracepoint is stamped by the trace clock (seconds since boot), the other logs by
    # the epoch: one pair of readings taken together lets the notebooks align them
    echo "epoch_s,uptime_s" > "$out/clock.csv"
    echo "$(stamp),$(cut -d' ' -f1 /proc/uptime)" >> "$out/clock.csv"
    (
        end=$(( $(date +%s) + dur ))
        while [ "$(date +%s)" -lt "$end" ]; do
            b=$(ip netns exec $R tc -s qdisc show dev lcseed2r | awk '/^qdisc pfifo/{f=1} f && /backlog/{print $3; exit}')
            echo "$(stamp),${b%p}"
            sleep 0.1
        done
    ) > "$out/qlen.txt" & local ql=$!
    ip netns exec $H1 ping -D -i 0.5 -c $(( 2 * dur - 4 )) $DST > "$out/ping_iperf.txt" & local png=$!
    ip netns exec $H1 iperf3 -C "$cc" -c $DST -p 5201 -t "$dur" -i 1 > "$out/iperf3.txt" & local ipf=$!
    if [ "$cc" = reno ]; then
        sleep $(( dur / 2 ))
        echo "epoch_s,time_total_s,size_bytes,speed_bytes_per_s" > "$out/download_iperf.csv"
        downloads 3 >> "$out/download_iperf.csv"
    fi
    wait $ipf $png $ql || true
    echo 0 > "$TRACE/events/tcp/tcp_probe/enable"
    thin_probe < "$TRACE/trace" | gzip -9 -n > "$out/tcp_probe.txt.gz"
    ip netns exec $R tc -s qdisc show dev lcseed2r > "$out/tc_s_qdisc.txt"
    rmdir "$TRACE"
    {
        echo "recorded by scripts/record_seed_traces.sh: $(date -u +%Y-%m-%dT%H:%M:%SZ), kernel $(uname -r)"
        echo "h1 ($SRC) -- r -- h2 ($DST); htb $RATE + pfifo limit $QLEN on r towards h2; no netem delay"
        echo "long flow: iperf3 -C $cc h1 -> h2, $dur s; ping -D -i 0.5 h1 -> h2 during it"
        echo "web page: $PAGE bytes served by h1 (python http.server), fetched by h2 with curl"
        echo "tcp_probe.txt.gz: tracepoint, ports 5201 (iperf3 sender) and 8080 (web server), thinned"
        echo "clock.csv: epoch and seconds since boot read together (tracepoint stamps are the latter)"
    } > "$out/README.txt"
    cleanup
}

head -c "$PAGE" /dev/zero | tr '\0' 'x' > "$WWW/index.html"
run "$BASE/seed002/recorded/reno_qlen100" reno 100 "$DUR_LONG"
run "$BASE/seed002/recorded/reno_qlen20" reno 20 "$DUR_LONG"
run "$BASE/seed001/recorded/cubic_qlen100" cubic 100 "$DUR_CUBIC"
echo "recorded into $BASE/seed001/recorded and $BASE/seed002/recorded"
