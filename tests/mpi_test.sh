#!/bin/sh
# `gqsim train --mpi` on localhost under mpirun -np 2 and -np 4: every
# synchronisation scheme reaches exactly the in-process run's losses and
# accuracy and parameters (the same arithmetic in the same order, to the last bit),
# the measured bytes are the schemes' closed forms, the --measured-out row is
# what validate reads, and bad uses fail in one line. Skipped (77) only where
# mpirun is not installed.
# Usage: tests/mpi_test.sh path/to/gqsim
set -u
GQ=$(readlink -f "$1")
. "$(dirname "$0")/harness.sh"
if ! command -v mpirun > /dev/null; then
    echo "mpi_test: SKIPPED: no mpirun (Debian package openmpi-bin)"
    exit 77
fi
# OpenMPI's own allocations are not ours to leak-check; everything else runs as in the other tests
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
# time-shared ranks must yield while they wait, or a busy-polling rank starves the one computing; TCP through ob1,
# the point-to-point layer over btl, named so that no rank first probes UCX (0.3 s a start, 60 starts)
MPIRUN="mpirun --allow-run-as-root --oversubscribe --mca btl tcp,self --mca pml ob1 --mca osc ^ucx \
    --mca mpi_yield_when_idle 1 --mca rtc ^hwloc"
run_mpi() { # run_mpi NP ARGS...
    np=$1; shift
    # shellcheck disable=SC2086
    $MPIRUN -np "$np" "$GQ" train --mpi "$@"
}
TRAIN="--epochs 2 --train-limit 512 --test-limit 128 --format csv"
# what a run's parameters decide: epoch, train_loss, test_loss, test_accuracy, and the parameters' XXH3
fingerprint() { perl -ne 'next if $. == 1; chomp; s/"[^"]*"/Q/g; @f = split /,/; print "$f[2] $f[4] $f[5] $f[6] $f[19]\n"' "$1"; }

"$GQ" train --mpi --epochs 1 --train-limit 256 --test-limit 64 --format csv > single.csv 2> err.txt; rc=$?
if grep -q 'built without MPI' err.txt; then
    bad "mpirun is installed but gqsim was built without MPI: $(cat err.txt)"
    finish; exit 1
fi
check "--mpi without mpirun: refused in one line (not one silent worker)" \
    sh -c "test $rc -eq 2 && test \$(wc -l < err.txt) -eq 1 && grep -q 'started without mpirun' err.txt && test ! -s single.csv"
"$GQ" train --mpi --workers 1 --epochs 1 --train-limit 256 --test-limit 64 --format csv > single.csv 2> err.txt; rc=$?
check "--mpi --workers 1 without mpirun: a world of one worker" sh -c "test $rc -eq 0 && grep -q '^fp32,1,1,' single.csv"

same() { # same NP SYNC QUANT: the MPI run's fingerprint equals the in-process run's
    # shellcheck disable=SC2086
    "$GQ" train --workers "$1" --sync "$2" --quant "$3" $TRAIN > local.csv 2> /dev/null
    # shellcheck disable=SC2086
    run_mpi "$1" --sync "$2" --quant "$3" $TRAIN > mpi.csv 2> mpi_err.txt
    fingerprint local.csv > a.txt
    fingerprint mpi.csv > b.txt
    if test -s a.txt && test "$(wc -l < a.txt)" -eq 2 && cmp -s a.txt b.txt; then ok; else
        bad "-np $1 --sync $2 --quant $3: in-process $(tr '\n' ' ' < a.txt) vs mpi $(tr '\n' ' ' < b.txt) $(head -c 300 mpi_err.txt)"
    fi
}
for sync in ps ps-sharded ring allgather; do
    for quant in fp32 terngrad qsgd signsgd; do same 2 "$sync" "$quant"; done
    for quant in terngrad qsgd; do same 4 "$sync" "$quant"; done
done
same 4 ps-sharded orq
same 3 ring topk
same 4 ring fp32 # two workers' sums commute; from three on, the ring's order shows
same 3 ps-sharded fp32
# PowerSGD: its factors all-reduced in a ring (two rounds a tensor, warm Q, error feedback), and as one worker's
# encoded factors elsewhere (a Q per worker and segment)
same 3 ring powersgd:rank=2
same 4 ring powersgd:rank=1,warm=off
same 2 allgather powersgd:rank=2
same 3 ps-sharded powersgd:rank=4

# ---- advise spread over ranks: the finalists simulated by different ranks, the same bytes as one process -----
ADV="advise --model alexnet --platform terngrad-ethernet --gpus 8,16 --top 2" # 4 finalists: one a rank at -np 4
# shellcheck disable=SC2086
"$GQ" $ADV > adv1.txt 2> /dev/null
# shellcheck disable=SC2086
"$GQ" $ADV --format csv > adv1.csv 2> /dev/null
for np in 1 2 4; do
    # shellcheck disable=SC2086
    $MPIRUN -np "$np" "$GQ" $ADV > "adv$np-mpi.txt" 2> /dev/null
    # shellcheck disable=SC2086
    $MPIRUN -np "$np" "$GQ" $ADV --format csv > "adv$np-mpi.csv" 2> /dev/null
    check "advise under mpirun -np $np: the one-process output, byte for byte (table and CSV)" \
        sh -c "test -s adv1.txt && cmp -s adv1.txt adv$np-mpi.txt && cmp -s adv1.csv adv$np-mpi.csv"
done

# ---- advise --train: the (quantizer, seed) runs dealt over the ranks, their curves shared: the same bytes ----
ADVT="advise --model alexnet --platform terngrad-ethernet --gpus 16 --engine analytic --top 3 --train --quant fp32 \
    --quant terngrad --quant signsgd --epochs 2 --train-limit 1024 --test-limit 256 --target-accuracy 0.3 --format csv"
# shellcheck disable=SC2086
"$GQ" $ADVT > advt1.csv 2> /dev/null
for np in 2 3; do
    # shellcheck disable=SC2086
    $MPIRUN -np "$np" "$GQ" $ADVT > "advt$np-mpi.csv" 2> /dev/null
    check "advise --train under mpirun -np $np: the one-process CSV, byte for byte" \
        sh -c "test \$(wc -l < advt1.csv) -eq 4 && cmp -s advt1.csv advt$np-mpi.csv"
done

# ---- sweep spread over ranks (heaviest first, each to the least loaded), gathered on rank 0 in order, the same bytes
cat > grid.csv <<'EOF2'
model,platform,gpus,quant,sync
alexnet,terngrad-ethernet,8,terngrad,
alexnet,terngrad-ethernet,16,fp32,ring
vgg-a,terngrad-infiniband,32,"qsgd:levels=5",ps
googlenet,terngrad-infiniband,4,,
alexnet,terngrad-infiniband,8,powersgd:rank=2,ring
EOF2
"$GQ" sweep --grid grid.csv --format csv > sw1.csv 2> /dev/null
sed 's/^googlenet,terngrad-infiniband,4/googlenet,nosuch,4/' grid.csv > badgrid.csv
"$GQ" sweep --grid badgrid.csv --format csv > /dev/null 2> swerr.txt
# two failing rows on two ranks: line 5's unknown platform costs a second (the heaviest row: rank 0's), line 3's
# refusal (a ring setting on ps) its run's little, so rank 1 has it; the first of them is named, as one process does
cat > badgrid2.csv <<'EOF2'
model,platform,gpus,quant,sync,ring_steps
alexnet,terngrad-ethernet,8,terngrad,,
alexnet,terngrad-ethernet,16,fp32,ps,pipelined
vgg-a,terngrad-infiniband,32,"qsgd:levels=5",ps,
googlenet,nosuch,4,,,
alexnet,terngrad-infiniband,8,powersgd:rank=2,ring,
EOF2
"$GQ" sweep --grid badgrid2.csv --format csv > /dev/null 2> swerr-two.txt
for np in 1 2 4; do
    $MPIRUN -np "$np" "$GQ" sweep --grid grid.csv --format csv > "sw$np-mpi.csv" 2> /dev/null
    check "sweep under mpirun -np $np: the one-process CSV, byte for byte" \
        sh -c "test \$(wc -l < sw1.csv) -eq 6 && cmp -s sw1.csv sw$np-mpi.csv"
    $MPIRUN -np "$np" "$GQ" sweep --grid badgrid.csv --format csv > "swbad$np.csv" 2> "swerr$np.txt"; rc=$?
    check "sweep under mpirun -np $np: a failing row (line 5) stops it with the one-process message, once" \
        sh -c "test $rc -ne 0 && test ! -s swbad$np.csv && grep -q badgrid.csv:5 swerr.txt && \
            test \$(grep -o 'gqsim: ' swerr$np.txt | wc -l) -eq 1 && grep -o 'gqsim: .*' swerr$np.txt | cmp -s - swerr.txt"
    $MPIRUN -np "$np" "$GQ" sweep --grid badgrid2.csv --format csv > /dev/null 2> "swerr2-$np.txt"; rc=$?
    check "sweep under mpirun -np $np: of two failing rows (lines 3 and 5) the first named, as one process names it" \
        sh -c "test $rc -ne 0 && grep -q badgrid2.csv:3 swerr-two.txt && grep -o 'gqsim: .*' swerr2-$np.txt | cmp -s - swerr-two.txt"
done

# ---- measured bytes: 2 (W - 1) / W x 4P per worker and iteration for fp32 (LeNet-5: P = 61,706) ----------
for sync in ps ps-sharded ring; do
    # shellcheck disable=SC2086
    run_mpi 4 --sync "$sync" --epochs 1 --train-limit 1024 --test-limit 64 --format csv --measured-out "m-$sync.csv" \
        --timings-out "t-$sync.csv" --platform "cluster:gpus-per-node=1,gpu=cpu,intra=pcie3,inter=0.1gbe,nodes=4" \
        > /dev/null 2> err.txt
    check "$sync: measured row written" test -s "m-$sync.csv"
    check "$sync: 370236 bytes sent and received per iteration (6P)" sh -c "perl -ne 'next if \$. == 1; s/\"[^\"]*\"/Q/g;
        @f = split /,/; exit(!(\$f[18] == 370236 && \$f[19] == 370236))' m-$sync.csv"
    check "$sync: a timings row per rank and iteration (4 x 4)" test "$(tail -n +2 "t-$sync.csv" | wc -l)" -eq 16
done
check "the measured row's columns" test "$(head -1 m-ring.csv)" = \
    "model,platform,gpu,batch,gpus,sync,quant,overlap,fusion,codec_on,images_per_s,compute_images_per_s,iteration_s,compute_s,slowest_compute_s,encode_s,wait_s,decode_s,bytes_sent,bytes_received,iterations,seed,test_accuracy,network_model,source"
"$GQ" validate --measured m-ring.csv --engine analytic --format csv > v.csv 2> err.txt
check "validate reads the measured row as it is" sh -c "test \$(wc -l < v.csv) -eq 2 && grep -q ',ring,fp32,4,.*,user\$' v.csv"

# ---- bad uses -------------------------------------------------------------------------------------------
"$GQ" train --measured-out m.csv --epochs 1 2> err.txt; rc=$?
check "--measured-out without --mpi: usage error, one line" sh -c "test $rc -eq 2 && test \$(wc -l < err.txt) -eq 1"
run_mpi 2 --measured-out m.csv --epochs 1 > /dev/null 2> err.txt; rc=$?
check "--measured-out without --platform fails" sh -c "test $rc -ne 0 && grep -q 'needs --platform' err.txt && ! test -e m.csv"
run_mpi 2 --lr 100 --optimizer sgd --epochs 1 --train-limit 512 > /dev/null 2> err.txt; rc=$?
check "a diverging run stops every rank with the reason" sh -c "test $rc -ne 0 && grep -q 'diverged' err.txt"
run_mpi 2 --sync ring --quant signsgd --ef on --epochs 1 --train-limit 512 > /dev/null 2> err.txt; rc=$?
check "ring with error feedback is refused" sh -c "test $rc -ne 0 && grep -q 'error to feed back' err.txt"
run_mpi 2 --workers 4 --epochs 1 --train-limit 512 > /dev/null 2> err.txt; rc=$?
check "--workers 4 under 2 ranks is refused in one line, not ignored" \
    sh -c "test $rc -ne 0 && test \$(grep -c 'workers says 4, but mpirun started 2 ranks' err.txt) -eq 1"
run_mpi 2 --workers 2 --epochs 1 --train-limit 512 --test-limit 64 > /dev/null 2> err.txt; rc=$?
check "--workers equal to the ranks is accepted" test $rc -eq 0
finish
