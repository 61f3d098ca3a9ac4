#!/bin/sh
# The hostile tests (both rounds) and the lab test on a busy machine: two busy loops (one a core of
# CI's two) run beside them from start to end, as a user's laptop or a shared
# runner has other work. Nothing in either may depend on how fast this
# machine is: a timing check is bounded only by physics or by a measurement
# made alongside (tests/netlab_test.sh says which), and a signal may arrive
# at any moment of a run (tests/hostile_test.sh).
# Usage: tests/loaded_test.sh path/to/gqsim SOURCE_DIR
set -u
GQ=$1
SRC=$2
here=$(cd "$(dirname "$0")" && pwd)
loops=""
stop_loops() { [ -n "$loops" ] && kill $loops 2> /dev/null; loops=""; }
trap stop_loops EXIT
trap 'stop_loops; exit 130' INT TERM
for _ in 1 2; do
    sh -c 'while :; do :; done' &
    loops="$loops $!"
done
rc=0
"$here/hostile_test.sh" "$GQ" || rc=1
"$here/hostile3_test.sh" "$GQ" "$SRC" || rc=1
"$here/netlab_test.sh" "$GQ" "$SRC"
lab=$?
[ "$lab" -eq 77 ] && echo "loaded_test: the lab test skipped itself (see its line above)"
[ "$lab" -ne 0 ] && [ "$lab" -ne 77 ] && rc=1
stop_loops
echo "loaded_test: hostile and lab tests with two busy loops beside them: $([ $rc -eq 0 ] && echo passed || echo FAILED)"
exit $rc
