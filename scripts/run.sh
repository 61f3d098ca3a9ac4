#!/usr/bin/env bash
# The main job from a fresh clone: install what is missing, build, and run
# the speedup report (TernGrad's Figure 5 in kind) into ./gqsim-report.
# Usage: bash scripts/run.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash scripts/bootstrap.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j "$(nproc)" > /dev/null
"$build/gqsim" report --out gqsim-report
