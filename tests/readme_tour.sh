#!/bin/sh
# The README's tour, line by line, as a new user would type it from the
# source directory: every command must succeed. Runs in a scratch copy of the
# files the tour reads (models/, data/), with build/gqsim the binary under
# test. The tour is our own text, so running it through sh is running code
# we wrote, not a user's input.
# Usage: tests/readme_tour.sh path/to/gqsim SOURCE_DIR
set -u
GQ=$1
SRC=$2
case $GQ in /*) ;; *) GQ=$(pwd)/$GQ ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build" && ln -s "$GQ" "$work/build/gqsim"
cp -r "$SRC/models" "$SRC/data" "$work/"
# the tour: indented lines from '## A tour' to the next paragraph, '\' continuations joined
awk '/^## A tour/ { on = 1; next } on && /^- / { exit } on && /^    / { sub(/^    /, ""); print }' "$SRC/README.md" |
    sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' > "$work/tour.txt"
cd "$work" || exit 1
pass=0
fail=0
while IFS= read -r line; do
    if sh -c "$line" > out.txt 2> err.txt < /dev/null; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $line: $(tail -c 300 err.txt)" >&2
    fi
done < tour.txt
test -s gqsim-report/report.csv && test -s acc.png && test -s grads/iter1_fc4_w.f32 && test -s my.xml || {
    fail=$((fail + 1))
    echo "FAIL: the tour's files (gqsim-report/report.csv, acc.png, grads/, my.xml) are missing" >&2
}
test "$pass" -ge 25 || { fail=$((fail + 1)); echo "FAIL: only $pass tour lines found" >&2; }
echo "$pass passed, $fail failed"
test "$fail" -eq 0
