# Network-namespace helpers shared by the recording scripts (scripts/record_*.sh).
# Source it, do not run it:   . "$(dirname "$0")/netns-lib.sh"
#
# Each function is a few `ip` / `ethtool` / `tc` / `sysctl` / `ping` commands in a fixed order;
# namespaces, interfaces, addresses, rates and queue lengths are always the caller's
# arguments. The topology functions come first, then netns_server / netns_stop_server, which
# run a tool's server in a namespace. Everything here needs root and iproute2 (ethtool for
# netns_offload_off). Arguments are names without spaces; a CIDRS argument is a
# space-separated list of addresses with their prefix length ("10.77.0.2/24 10.77.0.3/24").

# netns_kill PID...       kill each process given, ignoring empty ones and ones already gone
netns_kill() {
    local p
    for p in "$@"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
}

# netns_del NS...         delete the namespaces, ignoring ones that do not exist
netns_del() {
    local ns
    for ns in "$@"; do ip netns del "$ns" 2>/dev/null || true; done
}

# netns_add NS...         create the namespaces (not their loopback: see netns_lo_up)
netns_add() {
    local ns
    for ns in "$@"; do ip netns add "$ns"; done
}

# netns_new NS...         create each namespace and bring its loopback up, one after the other
netns_new() {
    local ns
    for ns in "$@"; do netns_add "$ns"; netns_lo_up "$ns"; done
}

# netns_lo_up NS...       bring up each namespace's loopback interface
netns_lo_up() {
    local ns
    for ns in "$@"; do ip -n "$ns" link set lo up; done
}

# netns_veth NS1 DEV1 NS2 DEV2   one veth pair: DEV1 in NS1, its peer DEV2 in NS2 (both down)
netns_veth() {
    ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
}

# netns_addr NS DEV CIDRS  add each address of CIDRS to DEV in NS
netns_addr() {
    local a
    for a in $3; do ip -n "$1" addr add "$a" dev "$2"; done
}

# netns_up NS DEV [NS DEV]...    set each interface up, in the order given
netns_up() {
    while [ $# -ge 2 ]; do ip -n "$1" link set "$2" up; shift 2; done
}

# netns_forward NS        let NS route IPv4 between its interfaces
netns_forward() {
    ip netns exec "$1" sysctl -q -w net.ipv4.ip_forward=1
}

# netns_offload_off NS DEV [NS DEV]...   segmentation and receive offloads off (tso, gso,
# gro), so that packets are MSS-sized in queues and captures; an interface that refuses is
# left as it is
netns_offload_off() {
    while [ $# -ge 2 ]; do
        ip netns exec "$1" ethtool -K "$2" tso off gso off gro off > /dev/null 2>&1 || true
        shift 2
    done
}

# netns_shape NS DEV RATE QLEN   the bottleneck of every recording: an htb root (handle 1:,
# default class 1:10), class 1:10 at RATE (rate = ceil, tc's units: 5mbit, 1500kbit) and a
# pfifo leaf (handle 10:) of QLEN packets
netns_shape() {
    ip netns exec "$1" tc qdisc add dev "$2" root handle 1: htb default 10
    ip netns exec "$1" tc class add dev "$2" parent 1: classid 1:10 htb rate "$3" ceil "$3"
    ip netns exec "$1" tc qdisc add dev "$2" parent 1:10 handle 10: pfifo limit "$4"
}

# netns_set_rate NS DEV RATE     change the rate (and ceil) of netns_shape's class 1:10
netns_set_rate() {
    ip netns exec "$1" tc class change dev "$2" parent 1: classid 1:10 htb rate "$3" ceil "$3"
}

# netns_set_qlen NS DEV QLEN     change the limit of netns_shape's pfifo leaf [packets]
netns_set_qlen() {
    ip netns exec "$1" tc qdisc change dev "$2" parent 1:10 handle 10: pfifo limit "$3"
}

# netns_reach NS DST...    one ping from NS to each DST (1 s timeout): fills the ARP caches
# and, under `set -e`, stops the script when the topology does not carry packets
netns_reach() {
    local ns=$1 dst; shift
    for dst in "$@"; do ip netns exec "$ns" ping -c 1 -W 1 "$dst" > /dev/null; done
}

# netns_pair NS1 DEV1 CIDRS1 NS2 DEV2 CIDRS2   two new namespaces joined by one veth pair:
# namespaces, the pair, DEV1's then DEV2's addresses, both loopbacks up, DEV1 and DEV2 up
netns_pair() {
    netns_add "$1" "$4"
    netns_veth "$1" "$2" "$4" "$5"
    netns_addr "$1" "$2" "$3"
    netns_addr "$4" "$5" "$6"
    netns_lo_up "$1" "$4"
    netns_up "$1" "$2" "$4" "$5"
}

# netns_host_link H HDEV R RDEV NET I   host H joined to router R: a veth pair HDEV (in H,
# address NET.I.I/24) -- RDEV (in R, NET.I.254/24), both up, H's default route via
# NET.I.254. Both namespaces must exist.
netns_host_link() {
    local h=$1 hdev=$2 r=$3 rdev=$4 net=$5 i=$6
    netns_veth "$h" "$hdev" "$r" "$rdev"
    netns_addr "$h" "$hdev" "$net.$i.$i/24"
    netns_addr "$r" "$rdev" "$net.$i.254/24"
    netns_up "$h" "$hdev" "$r" "$rdev"
    ip -n "$h" route add default via "$net.$i.254"
}

# netns_line NET PREFIX H1 R H2   the line h1 -- r -- h2 in three new namespaces, built step
# by step for both links at once: interfaces PREFIX1 (H1) -- PREFIX1r (R) on NET.1.0/24 and
# PREFIX2 (H2) -- PREFIX2r (R) on NET.2.0/24; hosts at NET.1.1 and NET.2.2, R at .254 of
# each; default routes via R, which forwards IPv4. Offloads and shaping are left to the caller.
netns_line() {
    local net=$1 p=$2 h1=$3 r=$4 h2=$5
    netns_add "$h1" "$r" "$h2"
    netns_veth "$h1" "${p}1" "$r" "${p}1r"
    netns_veth "$h2" "${p}2" "$r" "${p}2r"
    netns_addr "$h1" "${p}1" "$net.1.1/24"
    netns_addr "$r" "${p}1r" "$net.1.254/24"
    netns_addr "$r" "${p}2r" "$net.2.254/24"
    netns_addr "$h2" "${p}2" "$net.2.2/24"
    netns_lo_up "$h1" "$r" "$h2"
    netns_up "$h1" "${p}1" "$r" "${p}1r" "$r" "${p}2r" "$h2" "${p}2"
    ip -n "$h1" route add default via "$net.1.254"
    ip -n "$h2" route add default via "$net.2.254"
    netns_forward "$r"
}

# netns_server NS FILE CMD...   start CMD in NS in the background, its output (stdout and
# stderr) in FILE; its pid is appended to the caller's PIDS array (for its cleanup) and kept
# in SERVER; then half a second for it to listen
netns_server() {
    local ns=$1 file=$2; shift 2
    ip netns exec "$ns" "$@" > "$file" 2>&1 &
    PIDS+=($!)
    SERVER=$!
    sleep 0.5
}

# netns_stop_server       half a second for the last reports, then the process of the last
# netns_server killed (SIGTERM) and waited for
netns_stop_server() {
    sleep 0.5
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
}
