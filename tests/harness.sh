# The shell tests' harness, sourced after GQ is set: a scratch directory to
# work in (removed on exit), pass/fail counting, and the closing line
# "N passed, N failed" that ctest's callers read.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# the temporaries of what the test runs land here, so that a check for leftovers looks only at its own
mkdir "$work/tmpdir" && export TMPDIR="$work/tmpdir"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { # check DESCRIPTION COMMAND...: the command must succeed
    desc=$1; shift
    if "$@"; then ok; else bad "$desc"; fi
}
finish() {
    echo "$pass passed, $fail failed"
    test "$fail" -eq 0
}
