#!/usr/bin/env bash
# Rewrites tests/golden/*.out from the commands in tests/golden/commands.txt, after an intended change to an
# output; review the diff before committing it. Builds first if needed.
# Usage: bash scripts/golden_update.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j "$(nproc)" > /dev/null
bash tests/golden_test.sh "$build/gqsim" . --update
git status --short tests/golden
