#!/usr/bin/env bash
# Golden outputs, as SimGrid's tesh files: every command of tests/golden/commands.txt runs in a scratch
# directory, and its stdout, stderr and exit status must equal tests/golden/NAME.out byte for byte (the source
# directory written as @SRC@). A difference prints as a unified diff. After an intended change,
# scripts/golden_update.sh rewrites the .out files; the change then shows in the commit's diff.
# Usage: tests/golden_test.sh GQSIM SOURCE_DIR [--update]
# GOLDEN_SKIP="NAME ..." leaves those commands out (the sanitized stage of scripts/test.sh: its slowest SimGrid
# validations, whose engine code test_sim runs under the sanitizers too); they are counted and named as skipped.
GQ=$(realpath "$1")
SRC=$(realpath "$2")
update=${3:-}
. "$SRC/tests/harness.sh"
unset COLUMNS # text tables at their width when stdout is not a terminal, 100

# NAME's output as the .out file holds it
run_one() {
    local name=$1; shift
    local args=()
    for a in "$@"; do args+=("${a//@SRC@/$SRC}"); done
    mkdir "$work/$name" && cd "$work/$name" || return 1
    "$GQ" "${args[@]}" > out.txt 2> err.txt < /dev/null
    local rc=$?
    {
        cat out.txt
        echo "-- stderr"
        cat err.txt
        echo "-- exit $rc"
    } | sed "s|$SRC|@SRC@|g"
    cd "$work" || return 1
}

while read -r name rest; do
    case $name in '' | '#'*) continue ;; esac
    case " ${GOLDEN_SKIP:-} " in *" $name "*) echo "skipped: $name (GOLDEN_SKIP)"; skipped=$((skipped + 1)); continue ;; esac
    read -ra argv <<< "$rest"
    run_one "$name" "${argv[@]}" > "$work/$name.actual"
    want="$SRC/tests/golden/$name.out"
    if [ "$update" = --update ]; then
        cp "$work/$name.actual" "$want"
        ok
    elif [ ! -f "$want" ]; then
        bad "$name: no $want (scripts/golden_update.sh makes it)"
    elif diff -u --label "$name.out" --label "$name (now)" "$want" "$work/$name.actual"; then
        ok
    else
        bad "$name: output differs from tests/golden/$name.out"
    fi
done < "$SRC/tests/golden/commands.txt"
[ "${skipped:-0}" -gt 0 ] && echo "$skipped skipped"
finish
