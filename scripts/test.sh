#!/usr/bin/env bash
# Every test from a fresh clone: install what is missing, build, run the
# suite; then the same suite built with AddressSanitizer + UBSan; then each
# fuzz target (decoders, model, cluster spec, SimGrid XML, measured CSV,
# codec profiles, GPU profiles, ping-pongs, accuracy curves)
# under libFuzzer for FUZZ_SECONDS (default 20). Between them, the portable
# build (no -march=native: SSE2 code paths) and its unit tests.
# Usage: bash scripts/test.sh        (CI runs exactly this: .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
bash scripts/bootstrap.sh

# each stage says when it starts, so a CI log shows where the time goes
stage() { echo "== $* (at $((SECONDS / 60)) min $((SECONDS % 60)) s)"; }
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
# runs ctest in a build directory, keeping its count of tests for the last line
run_ctest() {
  (cd "$1" && shift && "$@" ctest -j "$jobs" --output-on-failure) | tee -a "$summary"
}

stage "build and test (Release)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$jobs" > /dev/null
run_ctest build

stage "portable build (-DGQ_NATIVE=OFF) and its unit tests"
cmake -S . -B build-portable -DCMAKE_BUILD_TYPE=Release -DGQ_NATIVE=OFF > /dev/null
cmake --build build-portable -j "$jobs" --target unit_tests > /dev/null # what they run, not gqsim's other parts
(cd build-portable && ctest -j "$jobs" -L unit --output-on-failure) | tee -a "$summary"

stage "build and test (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGQ_SANITIZE=ON > /dev/null
cmake --build build-asan -j "$jobs" > /dev/null
# a 16 MB quarantine (ASan's default is 256): freed memory is still poisoned until 16 MB more is freed, and the
# processes stay small, so the many that fork (advise, SimGrid's children) copy a quarter of the page tables;
# the sanitized suite ran 378 s with the default, 307 s with this. Two golden validations are left out here
# (GOLDEN_SKIP): HiPress's 40 rows and Piz Daint's 6 take 48 s and 8 s sanitized (7 s and 2 s in Release, where
# they run); the SimGrid engine code they cross (roots, reads in forward) runs sanitized in test_sim.
run_ctest build-asan env ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16 UBSAN_OPTIONS=print_stacktrace=1 \
  GOLDEN_SKIP="validate-hipress validate-tf-daint"

# libFuzzer: the decoders, then the parsers of user files (model, cluster
# spec, SimGrid XML, measured CSV), each for FUZZ_SECONDS from its corpus.
stage "libFuzzer build"
CC=clang cmake -S . -B build-fuzz -DGQ_FUZZ=ON > /dev/null
fuzzers="decode model cluster xml measured profile gpus pingpong curve"
targets=""
for f in $fuzzers; do targets="$targets --target fuzz_${f}_libfuzzer"; done
# shellcheck disable=SC2086
cmake --build build-fuzz -j "$jobs" $targets > /dev/null
work=$(mktemp -d)
trap 'rm -rf "$work" "$summary"' EXIT
# one fuzzer per core at a time: each still runs FUZZ_SECONDS on a core of its own
fuzz_one() { # fuzz_one NAME: runs one target from a copy of its corpus; its log in $work/NAME.log
  local f=$1 src=fuzz/corpus-$1
  [ "$f" = decode ] && src=fuzz/corpus
  mkdir -p "$work/$f" && cp "$src"/* "$work/$f"/
  "build-fuzz/fuzz_${f}_libfuzzer" -max_total_time="${FUZZ_SECONDS:-20}" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/$f-" "$work/$f" > "$work/$f.log" 2>&1
}
stage "libFuzzer: $fuzzers, ${FUZZ_SECONDS:-20} s each, $jobs at a time"
pids=()
for f in $fuzzers; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$f" &
  pids+=("$!")
done
fuzzed=0
failed=0
i=0
for f in $fuzzers; do
  rc=0
  wait "${pids[$i]}" || rc=$?
  i=$((i + 1))
  grep -E '^stat::number_of_executed_units|^Done|ERROR|SUMMARY' "$work/$f.log" || true
  if [ "$rc" -ne 0 ]; then
    tail -40 "$work/$f.log"
    echo "fuzz: the $f fuzzer found a failure (exit $rc)"
    failed=1
    continue
  fi
  echo "fuzz: $f: no crash"
  fuzzed=$((fuzzed + 1))
done
[ "$failed" -eq 0 ] || exit 1
passed=$(awk '/tests passed, 0 tests failed out of/ { n += $NF } END { print n + 0 }' "$summary")
echo "ci: $((passed + fuzzed)) passed, 0 failed, in $((SECONDS / 60)) min $((SECONDS % 60)) s"
