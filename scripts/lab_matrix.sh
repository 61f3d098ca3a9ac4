#!/usr/bin/env bash
# The measured matrix of docs/validation.md: `gqsim train --mpi` in a netlab lab
# for every node count, rate, quantizer and synchronisation scheme, one
# measured row each (rows as `gqsim validate --measured` reads them), then the
# predictions of the analytic and SimGrid engines against them. Each lab is
# calibrated first, as SimGrid's network calibration is: a ping-pong between
# two of its nodes (bench/mpi_pingpong), fitted by `gqsim platforms
# calibrate` into the network model its rows are predicted with.
#
#   bash scripts/lab_matrix.sh OUT.csv [GQSIM]
#
# Needs root (it brings labs up and down). MATRIX_NODES, MATRIX_RATES,
# MATRIX_QUANTS, MATRIX_SYNCS, MATRIX_BATCH (images per worker) and
# MATRIX_TRAIN_LIMIT narrow or widen it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: lab_matrix.sh OUT.csv [GQSIM]}
gq=$(readlink -f "${2:-$here/../build/gqsim}")
pingpong=$(dirname "$gq")/mpi_pingpong
nodes=${MATRIX_NODES:-2 4 8}
rates=${MATRIX_RATES:-10mbit 100mbit 1000mbit}
quants=${MATRIX_QUANTS:-fp32 terngrad qsgd orq}
syncs=${MATRIX_SYNCS:-ps-sharded ring allgather}
limit=${MATRIX_TRAIN_LIMIT:-8192}
batch=${MATRIX_BATCH:-64}
tmp=$(mktemp -d)
trap 'bash "$here/netlab.sh" down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
bash "$here/netlab.sh" down >/dev/null 2>&1 || true
rm -f "$out"
# the lab's link as gqsim's cluster spec: RATE in Gb/s
gbe() { awk -v r="$1" 'BEGIN { n = r + 0; u = substr(r, length(n "") + 1);
  printf "%.6g", u == "kbit" ? n / 1e6 : u == "mbit" ? n / 1e3 : n }'; }
for n in $nodes; do
  for rate in $rates; do
    bash "$here/netlab.sh" up "$n" "$rate" >/dev/null
    spec="cluster:gpus-per-node=1,gpu=cpu,intra=pcie3,inter=$(gbe "$rate")gbe,nodes=$n"
    (cd "$tmp" && bash "$here/netlab.sh" mpirun 2 -- "$pingpong" 1048576 7 > pp.csv)
    network=$("$gq" platforms calibrate "$spec" --pingpong "$tmp/pp.csv" --format csv |
      perl -ne 'print $1 if $. == 2 && /^"([^"]*)"/')
    echo "lab_matrix: $n nodes, $rate: $network" >&2
    for sync in $syncs; do
      # the quantized ring re-encodes every hop; an all-gather is what quantized all-reduce runs as
      for quant in $quants; do
        [ "$sync" = ring ] && [ "$quant" != fp32 ] && continue
        [ "$sync" = allgather ] && [ "$quant" = fp32 ] && continue
        echo "lab_matrix: $n nodes, $rate, $sync, $quant" >&2
        (cd "$tmp" && bash "$here/netlab.sh" mpirun "$n" -- "$gq" train --mpi --quant "$quant" --sync "$sync" --batch "$batch" \
          --epochs 1 --train-limit "$limit" --test-limit 256 --measured-out row.csv --platform "$spec" \
          --network-model "$network" \
          --format csv >/dev/null)
        if [ -s "$out" ]; then tail -n +2 "$tmp/row.csv" >>"$out"; else cp "$tmp/row.csv" "$out"; fi
      done
    done
    bash "$here/netlab.sh" down >/dev/null
  done
done
for engine in analytic simgrid; do
  echo "== $engine"
  "$gq" validate --measured "$out" --engine "$engine" | tail -1
done
