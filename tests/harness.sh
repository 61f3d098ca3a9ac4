# The shell tests' harness, sourced after GQ is set: a scratch directory to
# work in (removed on exit), pass/fail counting, a one-line-error expectation,
# and the closing line "N passed, N failed" that ctest's callers read.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# the temporaries of what the test runs land here, so that a check for leftovers looks only at its own
mkdir "$work/tmpdir" && export TMPDIR="$work/tmpdir"
pass=0
fail=0
# GQ_TEST_VERBOSE=1 names every case that passes too (to see which cases an old binary passes)
ok() {
    pass=$((pass + 1))
    [ -z "${GQ_TEST_VERBOSE:-}" ] || echo "PASS: ${desc:-}"
}
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { # check DESCRIPTION COMMAND...: the command must succeed
    desc=$1; shift
    if "$@"; then ok; else bad "$desc"; fi
}
# expect DESCRIPTION RC PATTERN COMMAND...: exits RC, prints exactly one line on
# stderr matching PATTERN (grep -E), and leaves no *.tmp.* file here
expect() {
    desc=$1 want=$2 pat=$3; shift 3
    "$@" > out.txt 2> err.txt
    rc=$?
    if [ "$rc" -ne "$want" ]; then bad "$desc: exit $rc, wanted $want ($(head -c 300 err.txt))"; return; fi
    if [ "$(wc -l < err.txt)" -ne 1 ]; then bad "$desc: $(wc -l < err.txt) lines on stderr: $(head -c 400 err.txt)"; return; fi
    if ! grep -Eq -- "$pat" err.txt; then bad "$desc: message '$(cat err.txt)' lacks /$pat/"; return; fi
    if ls -A | grep -q '\.tmp\.'; then bad "$desc: left $(ls -A | grep '\.tmp\.')"; return; fi
    ok
}
finish() {
    echo "$pass passed, $fail failed"
    test "$fail" -eq 0
}
