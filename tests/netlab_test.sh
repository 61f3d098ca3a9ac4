#!/bin/sh
# scripts/netlab.sh for real: a two-node lab whose links are what it says
# (the rate within 15%, the delay twice per one-way trip), whose namespaces
# have no way out, where `train --mpi` reaches the in-process run's
# parameters and writes a row validate reads; then `down` leaves nothing
# behind, and bad arguments fail in one line. Needs root, network namespaces
# and mpirun: skipped (77), saying why, elsewhere. Every timing check holds
# on a busy machine (tests/loaded_test.sh runs it beside two busy loops): a
# busy CPU makes a message later, never earlier, so a time is bounded from
# below by physics alone, and from above only by a measurement a busy CPU
# cannot stretch (the kernel's timestamps, or the difference of two sizes in
# one run, where every message's own waits cancel). How close the live lab's
# prediction comes is a benchmark's number (printed here; scripts/lab_matrix.sh
# measures it), not a check: the recorded labs (data/measured/lab_*.csv) hold
# the model to its error in tests/cli_test.sh, on any machine.
# Usage: tests/netlab_test.sh path/to/gqsim SOURCE_DIR
set -u
GQ=$(readlink -f "$1")
LAB="bash $(readlink -f "$2")/scripts/netlab.sh"
PINGPONG=$(dirname "$GQ")/mpi_pingpong
. "$(dirname "$0")/harness.sh"
# OpenMPI's own allocations are not ours to leak-check (as in mpi_test.sh)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
skip() { echo "netlab_test: SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v mpirun > /dev/null || skip "no mpirun (openmpi-bin)"
command -v tc > /dev/null || skip "no tc (iproute2)"
[ -x "$PINGPONG" ] || skip "no mpi_pingpong beside gqsim (built without MPI)"
ip netns add gq-probe 2> /dev/null || skip "this machine does not allow network namespaces"
ip netns del gq-probe
[ -e /run/gqsim-netlab ] && skip "a lab is already up (netlab.sh down, then run again)"
forward=$(cat /proc/sys/net/ipv4/ip_forward)

# ---- bad arguments: one line, nothing made ------------------------------------------------------------
for args in "up 0 10mbit" "up 09 10mbit" "up 010 10mbit" "up +2 10mbit" "up 2 10furlongs" "up 2 10mbit 5parsecs" "sideways"; do
    # shellcheck disable=SC2086
    $LAB $args > /dev/null 2> err.txt; rc=$?
    check "netlab.sh $args: exit 1, one line" sh -c "test $rc -eq 1 && test \$(wc -l < err.txt) -eq 1"
done
check "nothing made by bad arguments" sh -c "! ip netns list | grep -q '^gq-n' && ! ip link show gqlab0 > /dev/null 2>&1"

# ---- interrupted up: everything it made removed, and status says so ------------------------------------------
# (perl restores SIGINT's default: a shell's background job starts with it ignored, and bash cannot trap that)
for sig in INT TERM; do
    perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' bash "$(readlink -f "$2")/scripts/netlab.sh" up 64 10mbit > /dev/null 2>&1 &
    pid=$!
    # until it has made some namespaces (at most 5 s), then the signal
    for _ in $(seq 50); do [ "$(ip netns list | grep -c '^gq-n')" -ge 2 ] && break; sleep 0.1; done
    kill -s "$sig" "$pid"
    wait "$pid"
    rc=$?
    check "SIG$sig during up: it ends (exit $rc)" test "$rc" -ne 0
    check "SIG$sig during up: no namespace, bridge or state left" \
        sh -c "! ip netns list | grep -q '^gq-n' && ! ip link show gqlab0 > /dev/null 2>&1 && test ! -e /run/gqsim-netlab"
    check "SIG$sig during up: status says no lab" sh -c "$LAB status | grep -q 'no lab is up'"
done
# leftovers made by hand, as a killed (SIGKILL) up would leave them: status tells, up refuses, down removes
ip netns add gq-n7
$LAB status > /dev/null 2> err.txt; rc=$?
check "status names leftovers (exit $rc)" sh -c "test $rc -eq 1 && grep -q '1 namespaces' err.txt && grep -q 'down' err.txt"
$LAB up 2 10mbit > /dev/null 2> err.txt; rc=$?
check "up over leftovers is refused" sh -c "test $rc -eq 1 && grep -q 'left namespaces' err.txt"
$LAB down
check "down removes the leftovers" sh -c "! ip netns list | grep -q '^gq-n'"
if command -v setpriv > /dev/null; then
    # the script on standard input: the clone may sit where nobody may read (a 0700 mktemp directory)
    setpriv --reuid=65534 --regid=65534 --clear-groups bash -s -- up 2 10mbit < "$(readlink -f "$2")/scripts/netlab.sh" \
        > /dev/null 2> err.txt; rc=$?
    check "not root: one line saying so" sh -c "test $rc -eq 1 && grep -q 'needs root' err.txt && test \$(wc -l < err.txt) -eq 1"
fi

# ---- up: two nodes at 100 Mbit/s, 1 ms per link (no delay where the kernel lacks netem) ------------------------
delay=0.001
if ! $LAB up 2 100mbit 1ms > /dev/null 2> err.txt; then
    check "no netem: one line saying so, nothing made" sh -c "grep -q 'no netem' err.txt && ! ip netns list | grep -q '^gq-'"
    echo "netlab_test: this kernel has no netem: the lab runs without delay"
    delay=0
    $LAB up 2 100mbit > /dev/null 2> err.txt
fi
check "up 2 100mbit" test $? -eq 0
check "two namespaces" test "$(ip netns list | grep -c '^gq-n[01] ')" -eq 2
for n in 0 1; do
    check "gq-n$n: no default route" sh -c "! ip netns exec gq-n$n ip route | grep -q default"
    check "gq-n$n: 198.18.0.$((n + 1)) only" sh -c "ip netns exec gq-n$n ip -4 -o addr | grep -v ' lo ' | grep -q ' 198.18.0.$((n + 1))/24 '"
done
check "forwarding left as it was" test "$(cat /proc/sys/net/ipv4/ip_forward)" = "$forward"
$LAB up 2 10mbit > /dev/null 2> err.txt; rc=$?
check "a second up is refused" sh -c "test $rc -eq 1 && grep -q 'already up' err.txt"
$LAB mpirun 3 -- true > /dev/null 2> err.txt; rc=$?
check "more ranks than nodes is refused" sh -c "test $rc -eq 1 && grep -q '1..2' err.txt"

# the median of 7 round trips of every size to 4 MiB
$LAB mpirun 2 -- "$PINGPONG" 4194304 7 > pp.csv 2> err.txt
# a message crosses its sender's link and its receiver's: two delays; TCP/IP headers take ~3.5% of the rate. Bounds
# from below, which no load can break: no message faster than its two delays, none faster than the shaped rate
check "ping-pong: 1 byte one way in two delays at least" \
    awk -F, -v d=$delay '$1 == 1 { ok = $2 >= 2 * d } END { exit !ok }' pp.csv
check "ping-pong: 1 MiB no faster than 12.5 MB/s" \
    awk -F, -v d=$delay '$1 == 1048576 { r = 1048576 / ($2 - 2 * d); ok = r <= 12.5e6 } END { exit !ok }' pp.csv
# from above: the rate from 1 to 4 MiB in the same run (3 MiB more, the same fixed costs and waits a message: a busy
# machine's 2 ms a message, seen, cancel out), and the delay as the kernel timestamps an ICMP echo (ping's RTT). The
# slope of two medians measured 95.3-97.3% of the rate beside two busy loops and 95.5% on a quiet machine (the
# headers' 3.5%); the waits come in the scheduler's quanta, so up to 102% is allowed: a link shaped 10% too fast
# still fails
check "ping-pong: 1 MiB to 4 MiB at 85..102% of 12.5 MB/s" awk -F, '
    $1 == 1048576 { a = $2 } $1 == 4194304 { b = $2 }
    END { r = 3 * 1048576 / (b - a); exit !(b > a && r > 0.85 * 12.5e6 && r <= 1.02 * 12.5e6) }' pp.csv
ip netns exec gq-n0 ping -c 5 -i 0.2 -q 198.18.0.2 > ping.txt 2>&1
check "ping, the kernel's timestamps: four delays a round trip and under 1 ms more ($(tail -1 ping.txt))" \
    awk -v d=$delay -F/ '/^rtt/ { ok = $4 / 1000 >= 4 * d && $4 / 1000 < 4 * d + 0.001 } END { exit !ok }' ping.txt
# the lab's links calibrated from that ping-pong, as a user would before a measured run: SimGrid's default
# TCP latency factor (x13) describes a switched Ethernet, not veth pairs tens of microseconds apart, and
# uncalibrated it would make the check below depend on how fast this CPU trains (the smaller the compute,
# the larger the share of the 20 messages' latency in an iteration)
PLATFORM="cluster:gpus-per-node=1,gpu=cpu,intra=pcie3,inter=0.1gbe,nodes=2"
"$GQ" platforms calibrate "$PLATFORM" --pingpong pp.csv --format csv > cal.csv 2> err.txt
NETMODEL=$(awk -F'"' 'NR == 2 { print $2 }' cal.csv)
check "calibrate reads the lab's ping-pong: LV08 with both factors" \
    sh -c "echo '$NETMODEL' | grep -Eq '^LV08:latency-factor=[0-9.e+-]+,bandwidth-factor=0\.(8|9)[0-9]*$'"

# ---- train --mpi over the lab ------------------------------------------------------------------------------
# 128 images a worker keep compute most of an iteration: once the trainer ran 1.85x faster (2026-12-02), 64
# left an iteration mostly messages, whose timing in this lab varies run to run (errors -23%..+4% over 14 runs;
# with 128: -2.5%..-6.8% over 6). Later that day 128 gave -11.5..-12.4%, the prediction always the slower: the
# lab's tbf bucket of 1 ms let the per-tensor messages through at the veth's speed; with two frames, 0.2% (twice)
T="--quant terngrad --sync ps-sharded --batch 128 --epochs 1 --train-limit 2048 --test-limit 128 --format csv"
# shellcheck disable=SC2086
"$GQ" train --workers 2 $T > local.csv 2> /dev/null
# shellcheck disable=SC2086
$LAB mpirun 2 -- "$GQ" train --mpi $T --measured-out m.csv --platform "$PLATFORM" --network-model "$NETMODEL" \
    > lab.csv 2> err.txt
check "train --mpi in the lab" test $? -eq 0
fp() { perl -ne 'next if $. == 1; chomp; s/"[^"]*"/Q/g; @f = split /,/; print "@f[4,5,6,18]\n"' "$1"; }
check "the lab's run reaches the in-process parameters" sh -c "test -n '$(fp lab.csv)' && test '$(fp local.csv)' = '$(fp lab.csv)'"
check "the row records the calibrated network model" grep -qF "$NETMODEL" m.csv
# the prediction from the measured compute and the calibrated links: a row validate reads, with a finite error that
# this run reports (how close it comes depends on how busy the machine is: a benchmark's number, said, not checked)
"$GQ" validate --measured m.csv --engine analytic --format csv > v.csv 2> err.txt
check "validate reads the lab's row" sh -c "awk -F, 'NR == 2' v.csv | grep -q '^lenet5,'"
check "... and predicts it: a finite error" awk -F, 'NR == 2 { e = $(NF - 1) + 0; ok = $(NF - 1) ~ /^[-+]?[0-9.]+$/ } END { exit !ok }' v.csv
echo "netlab_test: the live lab's calibrated prediction: $(awk -F, 'NR == 2 { print $(NF - 1) }' v.csv)% (benchmark: scripts/lab_matrix.sh)"

# ---- advise and sweep spread over the lab's nodes: the same bytes as one process -----------------------------
ADV="advise --model alexnet --platform terngrad-ethernet --gpus 8 --top 3 --format csv"
printf 'model,platform,gpus,quant,sync\nalexnet,terngrad-ethernet,8,terngrad,\nvgg-a,terngrad-infiniband,32,fp16,ring\ngooglenet,terngrad-infiniband,16,qsgd:levels=5,ps\nalexnet,terngrad-ethernet,64,fp32,ring\n' > grid.csv
# shellcheck disable=SC2086
"$GQ" $ADV > adv-local.csv 2> /dev/null
"$GQ" sweep --grid grid.csv --format csv > sw-local.csv 2> /dev/null
lab_same() { # lab_same NP: advise and sweep over NP nodes print what one process does
    # shellcheck disable=SC2086
    $LAB mpirun "$1" -- "$GQ" $ADV > "adv-lab$1.csv" 2> err.txt
    check "advise over $1 lab node(s): the one-process CSV, byte for byte" \
        sh -c "test \$(wc -l < adv-local.csv) -eq 4 && cmp -s adv-local.csv adv-lab$1.csv"
    $LAB mpirun "$1" -- "$GQ" sweep --grid grid.csv --format csv > "sw-lab$1.csv" 2> err.txt
    check "sweep over $1 lab node(s): the one-process CSV, byte for byte" \
        sh -c "test \$(wc -l < sw-local.csv) -eq 5 && cmp -s sw-local.csv sw-lab$1.csv"
}
lab_same 1
lab_same 2
$LAB down
$LAB up 4 1gbit > /dev/null 2> err.txt
check "up 4 1gbit" test $? -eq 0
lab_same 4

# ---- down: nothing left ------------------------------------------------------------------------------------
$LAB down
check "down: no namespace left" sh -c "! ip netns list | grep -q '^gq-n'"
check "down: no bridge or veth left" sh -c "! ip -o link show | grep -Eq ' (gqlab0|gqv[0-9]+)[:@]'"
check "down: state removed" test ! -e /run/gqsim-netlab
finish
