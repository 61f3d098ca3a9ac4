#!/bin/sh
# Hostile input, third round: the classes a third hostile pass found, each
# with several cases, run against gqsim before the round (every case here
# failed there) -- ranks under mpirun that disagree, numbers that are not
# numbers, inputs counted twice or dropped, errors that named the wrong
# cause, an output name that gnuplot read as an option, decompression
# bombs, and an SMPI run cancelled at the worst moment.
# Usage: tests/hostile3_test.sh path/to/gqsim SOURCE_DIR
set -u
GQ=$1
case $GQ in /*) ;; *) GQ=$(pwd)/$GQ ;; esac
SRC=$(cd "$2" && pwd)
. "$(dirname "$0")/harness.sh"
# every number in a CSV output finite: no inf, no nan (an empty field is what does not apply)
all_finite() { ! grep -Eiq '(^|[,"])[-+]?(inf|nan)([,"]|$)' "$1"; }

# ---- 1. ranks that disagree stop, every rank saying why, before any work ------------------------------------------
if command -v mpirun > /dev/null && ! "$GQ" train --mpi --epochs 1 --train-limit 64 2>&1 | grep -q 'built without MPI'; then
    M="--allow-run-as-root --oversubscribe --mca btl tcp,self --mca pml ob1 --mca osc ^ucx --mca mpi_yield_when_idle 1 --mca rtc ^hwloc"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" # OpenMPI's own allocations are not ours
    ADV="advise --model alexnet --platform terngrad-ethernet --engine analytic --format csv"
    # ranks: DESCRIPTION PATTERN ARGS-OF-RANK-0 -- ARGS-OF-RANK-1: the job ends non-zero, not in a timeout, and both
    # ranks print the same line matching PATTERN
    ranks() {
        what=$1 pat=$2; shift 2
        a="" b="" side=a
        for w in "$@"; do
            if [ "$w" = "--" ]; then side=b; continue; fi
            if [ $side = a ]; then a="$a $w"; else b="$b $w"; fi
        done
        # shellcheck disable=SC2086
        timeout 120 mpirun $M -np 1 "$GQ" $a : -np 1 "$GQ" $b > mpi.out 2> mpi.err
        rc=$?
        check "$what: the job ends non-zero (exit $rc, not a timeout)" sh -c "test $rc -ne 0 && test $rc -ne 124"
        check "$what: both ranks say /$pat/, each on a line of its own ($(grep gqsim: mpi.err | head -c 300))" \
            test "$(grep -Ec -- "^gqsim: .*$pat" mpi.err)" -eq 2
        check "$what: no row printed" test ! -s mpi.out
    }
    ranks "advise, --gpus 8 and 16" "advise: rank 1 was started with another --gpus than rank 0" \
        $ADV --gpus 8 -- $ADV --gpus 16
    ranks "advise, --engine analytic and simgrid" "rank 1 was started with another --engine than rank 0" \
        $ADV --gpus 8 -- advise --model alexnet --platform terngrad-ethernet --engine simgrid --format csv --gpus 8
    ranks "advise, --top 3 and 4 (was an MPI truncation error)" "rank 1 was started with another --top than rank 0" \
        $ADV --gpus 8 --top 3 -- $ADV --gpus 8 --top 4
    printf 'model,platform,gpus\nalexnet,terngrad-ethernet,8\n' > g8.csv
    printf 'model,platform,gpus\nalexnet,terngrad-ethernet,16\n' > g16.csv
    cp g8.csv g8copy.csv
    ranks "sweep, grids of other contents" "sweep: rank 1's --grid holds other contents than rank 0's" \
        sweep --grid g8.csv --format csv -- sweep --grid g16.csv --format csv
    printf 'quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\nterngrad,cpu,1,1,1,1,a\n' > c1.csv
    printf 'quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\nterngrad,cpu,1,2,1,1,a\n' > c2.csv
    ranks "advise, --codec-costs of other contents" "rank 1's --codec-costs holds other contents than rank 0's" \
        $ADV --gpus 8 --codec-costs c1.csv -- $ADV --gpus 8 --codec-costs c2.csv
    ranks "advise beside sweep" "rank 1 runs another gqsim command or version than rank 0" \
        $ADV --gpus 8 -- sweep --grid g8.csv --format csv
    # the same contents under another name agree: the rows of one process
    "$GQ" sweep --grid g8.csv --format csv > one.csv 2> /dev/null
    # shellcheck disable=SC2086
    timeout 120 mpirun $M -np 1 "$GQ" sweep --grid g8.csv --format csv : -np 1 "$GQ" sweep --grid g8copy.csv \
        --format csv > two.csv 2> mpi.err
    check "sweep, one grid under two names: agreed, the one-process rows ($(head -c 200 mpi.err))" \
        sh -c 'test -s one.csv && cmp -s one.csv two.csv'
else
    echo "hostile3_test: no mpirun, or gqsim without MPI: the rank cases are skipped"
fi

# ---- 2. numbers: physical ranges, denormals inside them, nothing printed that is not a number --------------------
expect "a codec of 1e-300 elements/s" 2 "--quant-rate '1e-300' must be a number in \[1, 1e\+15\]" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --quant terngrad --quant-rate 1e-300 --engine analytic
expect "a GPU of 1e-300 images/s" 2 "--gpu-images-per-s '1e-300' must be a number in \[1e-05, 1e\+09\]" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --gpu-images-per-s 1e-300 --engine analytic
printf 'model,platform,gpus,compute_images_per_s\nalexnet,dgx1,8,1e-300\n' > slowgrid.csv
expect "a grid's compute_images_per_s of 1e-300" 1 "slowgrid.csv:2: compute_images_per_s '1e-300' must be images/s in \[1e-5, 1e9\]" \
    "$GQ" sweep --grid slowgrid.csv
printf 'model,platform,gpu,batch,gpus,images_per_s\nalexnet,dgx1,P100,128,8,1e-310\n' > denmeas.csv
expect "a measured images_per_s of 1e-310: its range named, not 'outside (0, 1e9]'" 1 \
    "denmeas.csv:2: images_per_s '1e-310': a training rate must be between 1e-5 images/s" "$GQ" validate --measured denmeas.csv
printf 'gpu,peak_fp32_tflops,mem_bw_gbs,source\nSlow,10,1e-300,mine\n' > slowbw.csv
expect "a GPU file's memory bandwidth of 1e-300 GB/s" 1 "slowbw.csv:2: mem_bw_gbs '1e-300': a memory bandwidth must be between 0.1 and 100000 GB/s" \
    "$GQ" models compute --model alexnet --gpu Slow --gpu-file slowbw.csv
printf 'gpu,peak_fp32_tflops,mem_bw_gbs,source\nSlow,1e-300,900,mine\n' > slowpeak.csv
expect "a GPU file's peak of 1e-300 TFLOP/s" 1 "slowpeak.csv:2: peak_fp32_tflops '1e-300': a peak arithmetic rate must be between 0.001 and 10000" \
    "$GQ" models compute --model alexnet --gpu Slow --gpu-file slowpeak.csv
printf 'quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\nterngrad,cpu,1,1e11,1,1,x\n' > slowcodec.csv
expect "a codec profile slower than an element a second" 1 "slowcodec.csv:2: encode_ns_per_element must be a number of ns in \[0, 1e9\]" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --quant terngrad --codec-on cpu --codec-costs slowcodec.csv
expect "a fractional --partition (simulated as 1000.5, labelled 1000)" 2 "--partition '1000.5' must be a whole number of bytes" \
    "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 8 --ps-placement round-robin --partition 1000.5
expect "a fractional --fp32-below" 2 "--fp32-below '16384.5' must be a whole number of elements" \
    "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 8 --fp32-below 16384.5
printf 'model,platform,gpus,partition\nalexnet,terngrad-ethernet,8,1000.5\n' > fracgrid.csv
expect "a fractional partition column" 1 "fracgrid.csv:2: partition '1000.5' must be a whole number of bytes" \
    "$GQ" sweep --grid fracgrid.csv
# a float key's value below a float's resolution: refused, not read as 0 (clip=0 turns TernGrad's clipping off)
expect "terngrad:clip=1e-310 (it was clip=0, no clipping)" 2 "clip='1e-310' is not a number a float holds" \
    "$GQ" quant encode --quant terngrad:clip=1e-310 --input nothere.f32 --output x.gq
expect "topk:ratio=1e-310 (it was refused as ratio=0)" 2 "ratio='1e-310' is not a number a float holds" \
    "$GQ" quant encode --quant topk:ratio=1e-310 --input nothere.f32 --output x.gq
# an open end of a printed range at equality is outside it
expect "--lr 0, the open end of (0, 100]" 2 "--lr '0' must be a number in \(0, 100\]" "$GQ" train --lr 0
# denormals inside a printed range are numbers in it
for v in "--compute-jitter 1e-310" "--fusion-cycle 4.9e-324" "--compute-jitter 0"; do
    # shellcheck disable=SC2086
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --engine analytic --format csv $v > den.csv 2> err.txt
    check "$v: inside [0, ...], accepted ($(cat err.txt))" sh -c 'test -s den.csv && test ! -s err.txt'
done
# a cycle shorter than a double resolves, in Horovod's loop: it ends (it stalled for ever), a finite row
for c in 1e-300 4.9e-324; do
    timeout 60 "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 8 --sync ring --fusion-wait previous \
        --fusion-cycle $c --engine analytic --format csv > loop.csv 2> err.txt
    check "--fusion-wait previous --fusion-cycle $c: ends with a finite row (exit $?, $(cat err.txt))" \
        sh -c 'test "$(wc -l < loop.csv)" -eq 2 && ! grep -Eiq "inf|nan" loop.csv'
done
expect "a network model's bandwidth factor of 4.9e-324" 2 "a factor must be a number in \[0.001, 1000\]" \
    "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 8 --network-model CM02:bandwidth-factor=4.9e-324
"$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 8 --network-model CM02:bandwidth-factor=0.001,latency-factor=1000 \
    --format csv > slownet.csv 2> err.txt
check "... at its bounds, 0.001 and 1000: a finite row ($(cat err.txt))" sh -c 'test -s slownet.csv && ! grep -Eiq "inf|nan" slownet.csv'
# every numeric option simulate lists, at each end of the range its help prints: a finite row or one refusal line
"$GQ" help simulate | sed -n 's/^  \(--[a-z0-9-]*\) [A-Z_]* .*\[\([0-9.e+-]*\)\.\.\([0-9.e+-]*\)\]$/\1 \2 \3/p' > ranges.txt
check "simulate's help prints its ranges ($(wc -l < ranges.txt) options)" test "$(wc -l < ranges.txt)" -ge 12
while read -r opt lo hi; do
    [ "$opt" = --gpus ] && continue
    for v in "$lo" "$hi"; do
        "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 8 --quant terngrad --engine analytic \
            --format csv "$opt" "$v" > edge.csv 2> err.txt
        rc=$?
        check "$opt $v, an end of its printed range: a finite row or one refusal line (exit $rc: $(head -c 150 err.txt))" \
            sh -c "if [ $rc -eq 0 ]; then test \$(wc -l < edge.csv) -eq 2 && ! grep -Eiq 'inf|nan' edge.csv;
                   else test \$(wc -l < err.txt) -eq 1 && ! grep -q 'not a finite' err.txt && ! grep -q 'must be' err.txt; fi"
    done
done < ranges.txt
# the lowest rates accepted give finite, consistent rows: exposed <= total <= iteration, speedup > 0
"$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --quant terngrad --quant-rate 1 --gpu-images-per-s 1e-5 \
    --engine analytic --format csv > low.csv 2> err.txt
check "the lowest rates accepted: a finite row ($(cat err.txt))" sh -c 'test -s low.csv && ! grep -Eiq "inf|nan" low.csv'
check "... exposed <= comm, compute <= iteration" perl -MText::ParseWords -e '
    @h = parse_line(",", 0, scalar <>); chomp $h[-1]; @v = parse_line(",", 0, scalar <>); @x{@h} = @v;
    exit !($x{comm_exposed_s} <= $x{iteration_s} && $x{compute_s} <= $x{iteration_s} && $x{speedup} > 0)' low.csv
# what does not apply is empty, never nan: no fp32 searched, no speedup over it
"$GQ" advise --model alexnet --platform terngrad-ethernet --gpus 8 --quant terngrad --quant signsgd --engine analytic \
    --top 2 --format csv > nofp32.csv 2> err.txt
check "advise without fp32: rows ($(cat err.txt))" test "$(wc -l < nofp32.csv)" -eq 3
check "... no inf or nan anywhere" all_finite nofp32.csv
check "... speedup_over_fp32 empty" perl -MText::ParseWords -e '
    @h = parse_line(",", 0, scalar <>); chomp $h[-1]; my %c; @c{@h} = 0..$#h;
    while (<>) { chomp; @v = parse_line(",", 0, $_); exit 1 if $v[$c{speedup_over_fp32}] ne "" } exit 0' nofp32.csv

# ---- 3. nothing counted twice, nothing dropped --------------------------------------------------------------------
expect "train --seeds 1,1 (one run counted twice, a zero-width interval)" 2 "--seeds: 1 is given twice" \
    "$GQ" train --quant terngrad --versus fp32 --seeds 1,1 --epochs 1 --train-limit 512
expect "train --seeds 1 --seeds 1" 2 "--seeds: 1 is given twice" "$GQ" train --seeds 1 --seeds 1 --epochs 1
expect "advise --quant named twice by two spellings" 2 "--quant 'terngrad:pack=2bit' is the same as 'terngrad', given before" \
    "$GQ" advise --model alexnet --platform terngrad-ethernet --gpus 8 --quant terngrad --quant terngrad:pack=2bit
expect "advise --gpus 8,8" 2 "--gpus: 8 is given twice" \
    "$GQ" advise --model alexnet --platform terngrad-ethernet --gpus 8,8
expect "advise --platform twice" 2 "--platform 'terngrad-ethernet' is given twice" \
    "$GQ" advise --model alexnet --platform terngrad-ethernet --platform terngrad-ethernet --gpus 8
expect "simulate --platform a --platform b (the first was dropped)" 2 "--platform is given twice \(it takes one value here\)" \
    "$GQ" simulate --model alexnet --platform dgx1 --platform terngrad-ethernet --gpus 8
expect "report --out and --output" 2 "--out and --output are the same option: give one" \
    "$GQ" report --out a --output b
"$GQ" speedup --model alexnet --platform terngrad-ethernet --gpus 1 --gpus 8 --engine analytic --format csv > sp.csv 2> err.txt
check "speedup --gpus 1 --gpus 8: both counts, none dropped ($(cat err.txt))" \
    sh -c 'test "$(wc -l < sp.csv)" -eq 3 && grep -q "^alexnet,terngrad-ethernet,1," sp.csv && grep -q "^alexnet,terngrad-ethernet,8," sp.csv'
printf 'model,platform,gpus,gpus\nalexnet,dgx1,8,16\n' > twicegrid.csv
expect "a grid with a column named twice" 1 "twicegrid.csv:1: header: column 'gpus' is named twice \(fields 3 and 4\)" \
    "$GQ" sweep --grid twicegrid.csv
printf 'model,platform,gpu,batch,gpus,images_per_s,images_per_s\nalexnet,dgx1,P100,128,8,100,200\n' > twicemeas.csv
expect "a measured set with a column named twice" 1 "twicemeas.csv:1: header: column 'images_per_s' is named twice" \
    "$GQ" validate --measured twicemeas.csv
printf 'quant,epoch,accuracy,epoch\nfp32,1,0.5,2\n' > twicecurve.csv
expect "a curve with a column named twice" 1 "twicecurve.csv:1: column 'epoch' is named twice" \
    "$GQ" tta --model lenet5 --platform roce25 --gpus 4 --target 0.8 --accuracy-curve twicecurve.csv --dataset-size 12000
"$GQ" advise --model alexnet --platform terngrad-infiniband --gpus 16 --quant terngrad --per-tensor plan.csv \
    --engine analytic > /dev/null 2>&1
for opt in "--fp32-below 1000" "--fp32-last"; do
    # shellcheck disable=SC2086
    expect "simulate --plan with $opt (it would change nothing)" 2 "--plan with ${opt%% *}: the plan names each tensor's codec" \
        "$GQ" simulate --model alexnet --platform terngrad-infiniband --gpus 16 --plan plan.csv $opt --engine analytic
done

# ---- 4. errors that name the real cause, suggest what is accepted, and quote long input short -----------------------
if command -v smpirun > /dev/null && [ -x "$(dirname "$GQ")/gqsim-smpi" ]; then
    expect "advise --engine smpi with overlap on: none of the settings, and why" 2 \
        "advise: the smpi engine runs none of the [0-9]+ settings searched: .*--overlap off --fusion 0" \
        "$GQ" advise --model alexnet --platform terngrad-ethernet --gpus 8 --engine smpi
    "$GQ" advise --model alexnet --platform terngrad-ethernet --gpus 8 --engine smpi --overlap off --top 3 \
        --format csv > smpiadv.csv 2> err.txt
    check "advise --engine smpi --overlap off: the schemes SMPI runs, the others left out ($(head -c 300 err.txt))" \
        sh -c 'test "$(wc -l < smpiadv.csv)" -eq 4 && ! grep -Eq ",(hierarchical|tree)," smpiadv.csv && grep -q ",smpi," smpiadv.csv'
else
    echo "hostile3_test: no smpirun or gqsim-smpi: the SMPI advise cases are skipped"
fi
"$GQ" train --quant fp32 --quant signsgd --epochs 2 --train-limit 2048 --test-limit 256 --seeds 1,2 --format csv \
    --output seeds.csv > /dev/null 2>&1
check "train --output with two seeds: a seed column" grep -q ',seed,' seeds.csv
"$GQ" tta --model lenet5 --platform roce25 --gpus 4 --target 0.3 --accuracy-curve seeds.csv --dataset-size 2048 \
    --format csv > tta.csv 2> err.txt
check "a two-seed curve from train --output is read, both seeds ($(cat err.txt))" \
    perl -MText::ParseWords -e '@h = parse_line(",", 0, scalar <>); chomp $h[-1]; my %c; @c{@h} = 0..$#h; my $n = 0;
        while (<>) { chomp; @v = parse_line(",", 0, $_); exit 1 if $v[$c{seeds}] != 2; $n++ } exit !($n == 2)' tta.csv
cut -d, -f1-17 seeds.csv > twice.csv # the seed column cut off: each epoch of each quantizer twice
expect "the same epoch twice without a seed column: says a seed column tells runs apart" 1 \
    "twice.csv:[0-9]+: epoch 1 of fp32 is given twice \(runs of several seeds need a seed column\)" \
    "$GQ" tta --model lenet5 --platform roce25 --gpus 4 --target 0.3 --accuracy-curve twice.csv --dataset-size 2048
ADVC="advise --model lenet5 --platform roce25 --gpus 4 --accuracy-curve seeds.csv --engine analytic"
# shellcheck disable=SC2086
expect "advise, a budget no epoch fits: the budget named" 1 "the budget of 1e-06 s completes no epoch of 2048 images" \
    "$GQ" $ADVC --budget 1e-6 --dataset-size 2048
# shellcheck disable=SC2086
expect "advise, a dataset smaller than one global batch: the dataset named" 1 \
    "the dataset of 100 images is smaller than one global batch \(4 GPUs x 64 images\)" \
    "$GQ" $ADVC --target-accuracy 0.3 --dataset-size 100
# shellcheck disable=SC2086
expect "advise, a target no curve reaches: the best accuracy named" 1 "no quantizer's curve reaches the target 0.999 \(the best last accuracy is" \
    "$GQ" $ADVC --target-accuracy 0.999 --dataset-size 2048
# shellcheck disable=SC2086
expect "advise, a target reached only after the budget" 1 "the target 0.3 is reached, but not within the budget of 1e-05 s" \
    "$GQ" $ADVC --target-accuracy 0.3 --budget 1e-5 --dataset-size 2048
expect "advise, every setting refused: the refusal, no stray number" 2 \
    "^gqsim: advise: every setting searched is refused: --ps-shards and --ps-placement shape --sync ps-sharded, not ring$" \
    "$GQ" advise --model alexnet --platform terngrad-ethernet --gpus 8 --sync ring --ps-shards 2 --engine analytic
expect "train suggests --ef off, which it accepts" 1 "\(--ef off, or another --sync\)" \
    "$GQ" train --ef on --sync ring --quant signsgd --epochs 1 --train-limit 512 --test-limit 64
long=$(seq -s, 1 300)
expect "a 300-value list: quoted cut short" 2 "--gpus '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,1\.\.\.' is not" \
    "$GQ" speedup --model alexnet --platform dgx1 --gpus "$long"
check "... in one short line" test "$(wc -c < err.txt)" -lt 200
expect "a 300-character unknown value: quoted cut short" 2 "--sync '(ring){10}\.\.\.' is not" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --sync "$(printf 'ring%.0s' $(seq 75))"
check "... in one short line" test "$(wc -c < err.txt)" -lt 300
expect "tf32 with a measured rate on a V100 (no TF32 there)" 2 "--precision tf32: V100 \(compute capability 7.0\) has no TF32" \
    "$GQ" simulate --model resnet50 --platform dgx1-v100 --gpus 8 --precision tf32 --gpu-images-per-s 500
expect "tf32 on host CPUs" 2 "--precision tf32: cpu \(a host CPU\) has no TF32" \
    "$GQ" simulate --model lenet5 --platform 'cluster:gpus-per-node=1,gpu=cpu,intra=pcie3,inter=1gbe' --gpus 2 \
    --precision tf32 --gpu-images-per-s 500 --codec-on cpu
"$GQ" simulate --model resnet50 --platform dgx-a100 --gpus 8 --precision tf32 --engine analytic --format csv > a100.csv 2> err.txt
check "tf32 on an A100: simulated ($(cat err.txt))" grep -q '^resnet50,dgx-a100,8,' a100.csv
perl -e 'print pack("f<*", map { ($_ % 7 - 3) * 2**60 } 0..999)' > big60.f32
expect "powersgd on a finite 2^60: its range, not 'NaN or Inf'" 1 "big60.f32: a value of magnitude 1.15292e\+18 or more, which powersgd does not take" \
    "$GQ" quant encode --quant powersgd:rank=2 --input big60.f32 --output big60.gq

# ---- 5. figure names starting with '-' are written whole ----------------------------------------------------------
mkdir sub
for fig in -k.svg sub/-k.png; do
    "$GQ" speedup --model alexnet --platform terngrad-ethernet --gpus 1,8 --engine analytic --plot "$fig" > /dev/null 2> err.txt
    check "--plot $fig: exit 0 and a figure, not 0 bytes ($(cat err.txt))" test -s "$fig"
    check "--plot $fig: its re-run line names ./-k.gp" grep -q -e "^#   gnuplot './-k.gp'" -- "${fig%.*}.gp"
done
(cd sub && rm -f -- -k.png && gnuplot ./-k.gp 2> ../gp.err)
check "the .gp of -k re-runs as its header says ($(head -c 200 gp.err))" test -s sub/-k.png

# ---- 6. decompression bombs: a header's claim held to its payload and to --max-elements ---------------------------
# 37 and 48 bytes, each a valid buffer of 2^28 zeros (QSGD Elias in one bucket; top-k of ratio 1e-9)
for bomb in bomb_elias_2e28 bomb_topk_2e28; do
    cp "$SRC/tests/data/$bomb.gq" .
    if [ -z "${ASAN_OPTIONS:-}" ]; then # the sanitizers' shadow memory does not live under a small ulimit -v
        expect "$bomb: 2^28 claimed, refused under a 600 MB limit before memory is taken" 1 \
            "$bomb.gq: its header claims 268435456 elements, more than --max-elements 134217728" \
            sh -c 'ulimit -v 600000; exec "$0" quant decode --input "$1" --output bomb.f32' "$GQ" "$bomb.gq"
    else
        expect "$bomb: 2^28 claimed, refused" 1 "$bomb.gq: its header claims 268435456 elements, more than --max-elements" \
            "$GQ" quant decode --input "$bomb.gq" --output bomb.f32
    fi
    check "... and no output" test ! -e bomb.f32
done
"$GQ" quant gen --dist gaussian --n 1000 --output g.f32 --seed 1 2> /dev/null
"$GQ" quant encode --quant qsgd:code=elias --input g.f32 --output e.gq --seed 1 > /dev/null
perl -e 'open F, "<", "e.gq"; binmode F; local $/; $d = <F>; substr($d, 8, 8) = pack("Q<", 1 << 28); print $d' > claim.gq
# it has the file's bytes, header and all (the encoded Gaussian's size: 127 bytes since gradients are drawn from rng.h)
expect "an Elias buffer of 512-element buckets claiming 2^28: held to 33 bits a bucket" 1 \
    "claim.gq: encoded buffer is truncated \(its header claims 268435456 elements, which take at least 2162720 bytes; it has $(wc -c < claim.gq)\)" \
    sh -c '[ -n "$1" ] || ulimit -v 600000; exec "$0" quant decode --input claim.gq --output c.f32' "$GQ" "${ASAN_OPTIONS:-}"
# a legitimate small buffer of many elements: decoded within the limit, refused past it
head -c 4194304 /dev/zero > zeros.f32
"$GQ" quant encode --quant qsgd:code=elias,bucket=0 --input zeros.f32 --output z.gq > z.txt 2> err.txt
check "2^20 zeros in one Elias bucket: a few bytes ($(cat z.txt err.txt))" grep -q '^bytes=37 ' z.txt
expect "... past --max-elements 1000: refused" 1 "z.gq: its header claims 1048576 elements, more than --max-elements 1000" \
    "$GQ" quant decode --input z.gq --output z.f32 --max-elements 1000
"$GQ" quant decode --input z.gq --output z.f32 2> err.txt
check "... within the default: 4 MiB of zeros ($(cat err.txt))" cmp -s z.f32 zeros.f32
expect "a gradient file past --max-elements: refused before it is read" 1 "zeros.f32 holds 1048576 elements, more than --max-elements 1000" \
    "$GQ" quant encode --quant terngrad --input zeros.f32 --output t.gq --max-elements 1000
expect "quant bench --dist FILE past --max-elements" 1 "zeros.f32 holds 1048576 elements, more than --max-elements 1000" \
    "$GQ" quant bench --quant terngrad --dist zeros.f32 --max-elements 1000

# ---- 7. an SMPI run cancelled at any moment leaves nothing: not even SMPI's privatised copies -------------------------
if command -v smpirun > /dev/null && [ -x "$(dirname "$GQ")/gqsim-smpi" ]; then
    # the worst moment first: the first rank's copy of gqsim-smpi appearing (64 ranks: 64 copies being made)
    for sig in TERM INT; do
        "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 64 --engine smpi --overlap off --fusion 0 \
            --sync ring > /dev/null 2>&1 &
        pid=$!
        seen=0
        for _ in $(seq 2000); do
            if find "$TMPDIR" -name 'gqsim-smpi_*.so' 2> /dev/null | grep -q .; then seen=1; break; fi
            kill -0 "$pid" 2> /dev/null || break
        done
        kill -s "$sig" "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
        check "SIG$sig as SMPI copies its program (seen: $seen): nothing left in TMPDIR ($(ls -A "$TMPDIR" | head -3))" \
            test -z "$(ls -A "$TMPDIR")"
    done
    # then at spread moments of the run
    for d in 0.05 0.15 0.3 0.6 1; do
        "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 64 --engine smpi --overlap off --fusion 0 \
            --sync ring > /dev/null 2>&1 &
        pid=$!
        sleep "$d"
        kill -s TERM "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
        check "SIGTERM after ${d} s: nothing left in TMPDIR ($(ls -A "$TMPDIR" | head -3))" test -z "$(ls -A "$TMPDIR")"
    done
    check "no smpirun or smpimain left" sh -c "! pgrep -f '$TMPDIR/gqsim-sm[p]i' > /dev/null"
else
    echo "hostile3_test: no smpirun or gqsim-smpi: the SMPI cancellation cases are skipped"
fi

# ---- 8. a signal the instant a temporary is made (found by CI: a SIGTERM 0.05 s into an SMPI run, beside two busy
# loops, left the run's directory): a shim raises SIGTERM right after mkdtemp, mkstemp or mkdir returns -----------
shim="$(dirname "$GQ")/gq_signal_at.so"
if [ -f "$shim" ]; then
    # at DESCRIPTION CALL RC WHERE COMMAND...: gqsim exits RC (143: ended by the SIGTERM) and leaves nothing in
    # WHERE but what was there before
    at() {
        what=$1 call=$2 want=$3 where=$4; shift 4
        before=$(ls -A "$where")
        # the sanitizers' runtime must come first unless told otherwise: the shim is loaded before it
        LD_PRELOAD="$shim" GQ_SIGNAL_AT="$call" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
            "$@" > /dev/null 2> err.txt
        rc=$?
        check "$what: exit $rc, wanted $want ($(head -c 200 err.txt))" test "$rc" -eq "$want"
        check "$what: nothing left ($(ls -A "$where" | tr '\n' ' '))" test "$(ls -A "$where")" = "$before"
    }
    mkdir sig
    at "an output's temporary, at its mkstemp" mkstemp 143 sig \
        "$GQ" quant encode --quant terngrad --input "$SRC/tests/data/v1-source.f32" --output sig/e.gq
    at "report's directory, at its mkdir" mkdir 143 sig "$GQ" report --out sig/rep --gpus 4
    if command -v smpirun > /dev/null && [ -x "$(dirname "$GQ")/gqsim-smpi" ]; then
        at "the SMPI run's directory, at its mkdtemp" mkdtemp 143 "$TMPDIR" "$GQ" simulate --model alexnet \
            --platform terngrad-ethernet --gpus 4 --engine smpi --overlap off --fusion 0 --sync ring
        # no mkstemp on the way, so no signal: the run ends normally
        at "smpirun's captured stderr: a file that never has a name (O_TMPFILE), no mkstemp" mkstemp 0 "$TMPDIR" \
            "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 4 --engine smpi --overlap off \
            --fusion 0 --sync ring
    fi
else
    echo "hostile3_test: no $shim: the signal-at-a-temporary cases are skipped"
fi

finish
