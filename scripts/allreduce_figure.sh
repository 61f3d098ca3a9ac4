#!/usr/bin/env bash
# Regenerates docs/allreduce-gain.svg and docs/allreduce-gain.csv: where each compressor stops paying. ResNet-50 on
# 4 nodes of 8 V100 (NVLink inside, one NIC a node), the NIC's rate swept from 1 to 100 Gb/s (TCP, LV08); each
# compressor's images/s over fp32's in a ring, as PyTorch DDP runs it (--framework pytorch-ddp: NCCL, 25 MiB buckets
# all-reduced as backward fills them; PowerSGD ships as a DDP communication hook). The all-reduce compatible ones
# (fp16, PowerSGD) run in the same ring; the others cannot be summed as they travel and run as GRACE runs them, an
# all-gather of every worker's encoded gradient. Codec costs on the GPU as the simulator charges them (docs/codec-costs.md),
# error feedback's pass included where the trainer keeps it. The analytic engine: a uniform fabric, nothing shared
# that the closed forms miss (tests/test_sim.c holds SimGrid to it there). Seconds on 2 cores.
# Usage: bash scripts/allreduce_figure.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j "$(nproc)" > /dev/null
gq=$build/gqsim
rates=(1 2 5 10 25 40 100)
# label | spec | sync
series=(
    "fp16|fp16|ring"
    "powersgd-1|powersgd:rank=1|ring"
    "powersgd-2|powersgd:rank=2|ring"
    "powersgd-4|powersgd:rank=4|ring"
    "terngrad|terngrad|allgather"
    "qsgd|qsgd|allgather"
    "signsgd-ef|signsgd|allgather"
    "topk-ef|topk|allgather"
)
csv=docs/allreduce-gain.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ips() { # ips RATE SPEC SYNC: images/s
    "$gq" simulate --model resnet50 --gpus 32 --engine analytic --format csv --framework pytorch-ddp --quant "$2" --sync "$3" \
        --platform "cluster:gpus-per-node=8,gpu=V100,intra=nvlink2,inter=$1gbe,nics=1,pcie-switch=2,sockets=2,socket-link=qpi,mesh=cube" |
        perl -ne 'chomp; s/"[^"]*"/Q/g; @f = split /,/; if ($. == 1) { %c = map { $f[$_] => $_ } 0 .. $#f; next }
            print $f[$c{images_per_s}]'
}
{
    echo "link_gbps,quant,sync,images_per_s,fp32_ring_images_per_s,gain"
    for r in "${rates[@]}"; do
        base=$(ips "$r" fp32 ring)
        for s in "${series[@]}"; do
            IFS='|' read -r label spec sync <<< "$s"
            v=$(ips "$r" "$spec" "$sync")
            echo "$r,$spec,$sync,$v,$base,$(perl -e "printf '%.4f', $v / $base")"
        done
    done
} > "$work/gain.csv"
mv "$work/gain.csv" "$csv"

# one block per series for gnuplot: rate gain
for s in "${series[@]}"; do
    IFS='|' read -r label spec sync <<< "$s"
    echo "# $label ($sync)"
    awk -F, -v q="$spec" 'NR > 1 && $2 == q { print $1, $6 }' "$csv"
    printf '\n\n'
done > "$work/gain.dat"
titles=""
for s in "${series[@]}"; do
    IFS='|' read -r label spec sync <<< "$s"
    titles+="\"$label ($sync)\" "
done
gnuplot <<EOF
set terminal svg size 900,560 font "sans,13" background "white"
set output "$work/gain.svg"
set linetype 1 lc rgb "#0072B2" lw 2 dt 1 pt 7
set linetype 2 lc rgb "#D55E00" lw 2 dt 2 pt 5
set linetype 3 lc rgb "#009E73" lw 2 dt 3 pt 9
set linetype 4 lc rgb "#CC79A7" lw 2 dt 4 pt 11
set linetype 5 lc rgb "#56B4E9" lw 2 dt 5 pt 13
set linetype 6 lc rgb "#E69F00" lw 2 dt 6 pt 4
set linetype 7 lc rgb "black" lw 2 dt 7 pt 6
set linetype 8 lc rgb "#999999" lw 2 dt 8 pt 8
set logscale x
set xrange [0.83:120]
set xtics ("1" 1, "2" 2, "5" 5, "10" 10, "25" 25, "40" 40, "100" 100)
set logscale y 2
set yrange [0.45:9.5]
set xlabel "each node's link (Gb/s Ethernet)"
set ylabel "images/s over fp32 in a ring"
set title "ResNet-50, 4 nodes of 8 V100, PyTorch DDP buckets: where compression stops paying"
set grid
set key outside right center
set arrow from 0.83,1 to 120,1 nohead lc rgb "black" dt 1 lw 1
array T[8] = [$(echo "$titles" | sed "s/\" \"/\", \"/g; s/ $//")]
plot for [i=0:7] "$work/gain.dat" index i using 1:2 with linespoints lt (i+1) title T[i+1]
EOF
mv "$work/gain.svg" docs/allreduce-gain.svg
echo "allreduce_figure: wrote $csv and docs/allreduce-gain.svg" >&2
