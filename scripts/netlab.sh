#!/usr/bin/env bash
# A lab of N nodes on one Linux machine, for measured runs of `gqsim train --mpi`:
# N network namespaces (gq-n0 .. gq-nN-1) on one bridge, each behind a veth link
# shaped by tc in both directions (tbf for the rate, netem for the delay), so the
# lab is the simulator's star: one link per node, RATE each way.
#
#   bash scripts/netlab.sh up N RATE [DELAY]     e.g. up 4 50mbit, up 8 1gbit 100us
#   bash scripts/netlab.sh mpirun N -- CMD ARGS  one rank per namespace (extra mpirun
#                                                options in NETLAB_MPIRUN_ARGS)
#   bash scripts/netlab.sh down                  removes everything the lab made
#   bash scripts/netlab.sh status                what is up (and what an interrupted
#                                                run left, if anything)
#
# N is a decimal number from 1 to 64, written without leading zeros (010 is
# refused, not read as octal). A failing or interrupted `up` (an error,
# Ctrl-C, SIGTERM) removes everything it made before it exits.
#
# Addresses come from 198.18.0.0/15, the range RFC 2544 sets aside for
# benchmarking, and nothing else: node i is 198.18.0.(i+1)/24, the root
# namespace 198.18.0.254 (mpirun's daemons call home there). The namespaces
# have no default route and nothing forwards or translates their traffic:
# it never leaves the namespaces this script made. Needs root (CAP_NET_ADMIN).
set -Eeuo pipefail # -E: the ERR trap that cleans up also fires inside functions

PREFIX=gq-n          # namespaces gq-n0 ...
BRIDGE=gqlab0
VETH=gqv             # root-side ends gqv0 ...
NET=198.18.0
ROOT_ADDR=$NET.254
STATE=/run/gqsim-netlab # the lab's size and rate, for mpirun and down
MAX_NODES=64

die() { echo "netlab: $*" >&2; exit 1; }

need_root() {
  [ "$(id -u)" = 0 ] || die "needs root with CAP_NET_ADMIN (it makes network namespaces); run it with sudo"
  command -v ip >/dev/null && command -v tc >/dev/null || die "needs ip and tc (Debian package iproute2)"
  ip netns list >/dev/null 2>&1 || die "needs root with CAP_NET_ADMIN: 'ip netns list' failed"
}

# tc's rate words (kbit, mbit, gbit) to bytes per second.
rate_bytes() {
  local r=$1 n unit
  n=${r%%[a-zA-Z]*}
  unit=${r#"$n"}
  [[ $n =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "rate '$r': a number and a unit, e.g. 50mbit"
  case $unit in
    kbit) awk -v n="$n" 'BEGIN { printf "%d\n", n * 1e3 / 8 }' ;;
    mbit) awk -v n="$n" 'BEGIN { printf "%d\n", n * 1e6 / 8 }' ;;
    gbit) awk -v n="$n" 'BEGIN { printf "%d\n", n * 1e9 / 8 }' ;;
    *) die "rate '$r': the unit must be kbit, mbit or gbit" ;;
  esac
}

# Shapes one device's egress: tbf at RATE, then netem's DELAY. A bucket lets a
# message of its size through at the veth's own speed after an idle, which no
# link does: with 1 ms at 100 Mbit/s (12.5 kB) the trainer's per-tensor messages
# crossed the lab 2x faster than the rate, and the calibrated prediction was
# 9-14% slow (0.2% with two frames, 2026-12-02). So the bucket holds two full
# frames up to 100 Mbit/s, and 1 ms at the rate above, where smaller buckets cap
# TCP below the rate (1 Gbit/s, 1 MiB ping-pong: 3 kB 24%, 12.5 kB 53%, 25 kB 65%).
# The queue holds a second at the rate, at least 4 MB, as a deep-buffered switch port
# does: with 100 ms (tc's usual) an all-to-all of 8 nodes at 10 Mbit/s lost packets
# and spent its time in TCP's 200 ms retransmission timeouts (3x slower).
shape() {
  local dev=$1 rate=$2 delay=$3 netns=${4:-} bytes burst
  bytes=$(rate_bytes "$rate")
  burst=3028
  [ "$bytes" -le 12500000 ] || burst=$((bytes / 1000))
  local tcx=(tc)
  [ -n "$netns" ] && tcx=(ip netns exec "$netns" tc)
  local limit=$bytes
  [ "$limit" -ge 4194304 ] || limit=4194304
  "${tcx[@]}" qdisc add dev "$dev" root handle 1: tbf rate "$rate" burst "$burst" limit "$limit"
  if [ "$delay" != 0 ]; then
    "${tcx[@]}" qdisc add dev "$dev" parent 1:1 handle 10: netem delay "$delay" limit 100000
  fi
}

cmd_down() {
  need_root
  local ns
  for ns in $(ip netns list | awk '{print $1}' | grep "^${PREFIX}[0-9]*$" || true); do
    ip netns del "$ns"
  done
  for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^${VETH}[0-9]*$" || true); do
    ip link del "$l" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -rf "$STATE" "${TMPDIR:-/tmp}/gqsim-netlab"
}

# N as a decimal count in 1..MAX: no sign, no leading zero (bash arithmetic would read 010 as 8, 09 as an error).
valid_count() { [[ $1 =~ ^[1-9][0-9]{0,5}$ ]] && [ "$1" -le "$2" ]; }

# What the lab's names hold now: namespaces, and 1 if the bridge exists.
lab_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -c "^${PREFIX}[0-9]*$" || true; }
lab_bridge() { ip link show "$BRIDGE" >/dev/null 2>&1 && echo 1 || echo 0; }

cmd_up() {
  [ $# -ge 2 ] && [ $# -le 3 ] || die "usage: netlab.sh up N RATE [DELAY] (e.g. up 4 50mbit 1ms)"
  local n=$1 rate=$2 delay=${3:-0}
  valid_count "$n" $MAX_NODES || die "N '$n' must be a whole number from 1 to $MAX_NODES, without leading zeros"
  rate_bytes "$rate" >/dev/null
  [[ $delay =~ ^(0|[0-9]+(\.[0-9]+)?(us|ms|s))$ ]] || die "delay '$delay': e.g. 100us or 2ms"
  need_root
  [ -e "$STATE" ] && die "a lab is already up ($(cat "$STATE")); 'netlab.sh down' first"
  [ "$(lab_namespaces)" = 0 ] && [ "$(lab_bridge)" = 0 ] ||
    die "an earlier lab left namespaces or its bridge behind; 'netlab.sh down' removes them"
  if [ "$delay" != 0 ]; then # netem is a kernel option (CONFIG_NET_SCH_NETEM): ask a throwaway namespace
    ip netns add gq-probe
    local have_netem=1
    ip netns exec gq-probe tc qdisc add dev lo root netem delay 1ms 2>/dev/null || have_netem=0
    ip netns del gq-probe
    [ $have_netem = 1 ] || die "this kernel has no netem (CONFIG_NET_SCH_NETEM) for the delay: give DELAY 0 or none"
  fi
  # from here on, an error or a signal undoes everything up made (down removes by name, so also what
  # the step under way had half made); the state file is written last, so status never calls a half lab up
  trap 'trap - ERR INT TERM HUP; echo "netlab: setting up failed; removing what was made" >&2; cmd_down; exit 1' ERR
  trap 'trap - ERR INT TERM HUP; echo "netlab: interrupted; removing what was made" >&2; cmd_down; exit 130' INT TERM HUP
  ip link add "$BRIDGE" type bridge
  ip addr add "$ROOT_ADDR/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  local i ns
  for ((i = 0; i < n; i++)); do
    ns=$PREFIX$i
    ip netns add "$ns"
    ip link add "$VETH$i" type veth peer name eth0 netns "$ns"
    ip link set "$VETH$i" master "$BRIDGE"
    ip link set "$VETH$i" up
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip addr add "$NET.$((i + 1))/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    shape eth0 "$rate" "$delay" "$ns" # the node's uplink
    shape "$VETH$i" "$rate" "$delay"  # its downlink
  done
  echo "$n $rate $delay" >"$STATE"
  trap - ERR INT TERM HUP
  echo "netlab: $n nodes ${PREFIX}0..${PREFIX}$((n - 1)) at $rate each way, delay $delay; $NET.1..$NET.$n"
}

# OpenMPI's rsh agent: runs its daemon's command line in namespace HOST, through a
# shell as ssh would (the line is OpenMPI's own orted command, never a user's string).
# The lab's nodes share one file system and one host name, so each daemon gets a
# session directory of its own (else they race to make the same one), and PMIx
# keeps its data in the process (hash) rather than in shared-memory files they
# would share too.
cmd_agent() {
  local host=$1
  shift
  [[ $host =~ ^${PREFIX}[0-9]+$ ]] || die "agent: '$host' is not a lab node"
  local dir=${TMPDIR:-/tmp}/gqsim-netlab/$host
  mkdir -p "$dir"
  exec ip netns exec "$host" env OMPI_MCA_orte_tmpdir_base="$dir" PMIX_MCA_gds=hash /bin/sh -c "$*"
}

cmd_mpirun() {
  [ $# -ge 3 ] && [ "$2" = -- ] || die "usage: netlab.sh mpirun N -- CMD ARGS..."
  local n=$1
  shift 2
  need_root
  [ -e "$STATE" ] || die "no lab is up: 'netlab.sh up N RATE' first"
  local have
  have=$(awk '{print $1}' "$STATE")
  valid_count "$n" "$have" || die "N '$n' must be 1..$have (the lab's nodes), without leading zeros"
  local i
  HOSTFILE=$(mktemp)
  trap 'rm -f "$HOSTFILE"' EXIT
  for ((i = 0; i < n; i++)); do echo "$PREFIX$i slots=1" >>"$HOSTFILE"; done
  local self
  self=$(readlink -f "$0")
  # shellcheck disable=SC2086 # NETLAB_MPIRUN_ARGS is a list of options, split on spaces
  PMIX_MCA_gds=hash mpirun --allow-run-as-root -np "$n" --hostfile "$HOSTFILE" --map-by node \
    --mca plm_rsh_agent "bash $self agent" --mca rtc ^hwloc --mca mpi_yield_when_idle 1 \
    --mca btl tcp,self --mca btl_tcp_if_include "$NET.0/24" --mca oob_tcp_if_include "$NET.0/24" \
    ${NETLAB_MPIRUN_ARGS:-} "$@"
}

# What is there, not only what the state file says: a lab cut short (or a state file whose namespaces
# someone removed) is reported as broken, exit 1, with the way out.
cmd_status() {
  local ns bridge
  ns=$(lab_namespaces)
  bridge=$(lab_bridge)
  if [ -e "$STATE" ]; then
    read -r n rate delay <"$STATE"
    if [ "$ns" = "$n" ] && [ "$bridge" = 1 ]; then
      echo "netlab: $n nodes at $rate, delay $delay"
    else
      die "a lab of $n nodes was recorded, but $ns namespaces and $([ "$bridge" = 1 ] && echo the || echo no) bridge are there; 'netlab.sh down' removes them"
    fi
  elif [ "$ns" != 0 ] || [ "$bridge" = 1 ]; then
    die "no lab is up, but $ns namespaces$([ "$bridge" = 1 ] && echo " and the bridge") are left from one cut short; 'netlab.sh down' removes them"
  else
    echo "netlab: no lab is up"
  fi
}

case ${1:-} in
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down ;;
  mpirun) shift; cmd_mpirun "$@" ;;
  agent) shift; cmd_agent "$@" ;;
  status) cmd_status ;;
  *) die "usage: netlab.sh up N RATE [DELAY] | mpirun N -- CMD ARGS... | down | status" ;;
esac
