#!/usr/bin/env bash
# Installs, only where missing, every Debian package gqsim needs to build, test,
# plot and train. Idempotent: silent when everything is already present.
# Usage: scripts/bootstrap.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  cmake make gcc pkg-config
  clang libclang-rt-14-dev # libFuzzer and the sanitizer runtimes
  libsimgrid-dev # SimGrid 3.32, with tesh
  libgsl-dev # statistics, random distributions, fitting
  gnuplot-nox fonts-dejavu-core
  libopenblas-dev # CBLAS for the trainer
  zlib1g-dev # gzip'd IDX files
  libxxhash-dev # XXH3, the wire format's payload checksum
  libcsv-dev # RFC 4180 CSV: measured runs, codec cost profiles, ping-pongs
  dataset-fashion-mnist
  perl # the CLI tests make float32 files with pack()
  openmpi-bin libopenmpi-dev # train --mpi, mpirun, bench/mpi_pingpong
  iproute2 # scripts/netlab.sh: network namespaces, veth, tc
  iputils-ping # the lab test: a link's delay timed by the kernel's timestamps (ICMP echo), whatever the CPU load
  libgrpc-dev # gRPC's C core: bench/bench_grpc measures data/rpc_costs.csv
  libmimalloc-dev # gqsim's allocator: the SimGrid engine's millions of small objects
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >/dev/null
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
