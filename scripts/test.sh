#!/usr/bin/env bash
# Every test from a fresh clone: install what is missing, build, run the
# suite; then the same suite built with AddressSanitizer + UBSan; then the
# decoder fuzz target under libFuzzer for FUZZ_SECONDS (default 60).
# Usage: bash scripts/test.sh        (CI runs exactly this: .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
bash scripts/bootstrap.sh

summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
# runs ctest in a build directory, keeping its count of tests for the last line
run_ctest() {
  (cd "$1" && shift && "$@" ctest -j "$jobs" --output-on-failure) | tee -a "$summary"
}

echo "== build and test (Release)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$jobs" > /dev/null
run_ctest build

echo "== build and test (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGQ_SANITIZE=ON > /dev/null
cmake --build build-asan -j "$jobs" > /dev/null
run_ctest build-asan env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

echo "== libFuzzer: decoders, ${FUZZ_SECONDS:-60} s"
CC=clang cmake -S . -B build-fuzz -DGQ_FUZZ=ON > /dev/null
cmake --build build-fuzz -j "$jobs" --target fuzz_decode_libfuzzer > /dev/null
corpus=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$corpus" "$log" "$summary"' EXIT
cp fuzz/corpus/* "$corpus"/
rc=0
build-fuzz/fuzz_decode_libfuzzer -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=2048 -print_final_stats=1 \
  "$corpus" > "$log" 2>&1 || rc=$?
grep -E '^stat::number_of_executed_units|^Done|ERROR|SUMMARY' "$log" || true
if [ "$rc" -ne 0 ]; then
  tail -40 "$log"
  echo "fuzz: the fuzzer found a failure (exit $rc)"
  exit 1
fi
echo "fuzz: no crash"
passed=$(awk '/tests passed, 0 tests failed out of/ { n += $NF } END { print n + 0 }' "$summary")
echo "ci: $((passed + 1)) passed, 0 failed"
