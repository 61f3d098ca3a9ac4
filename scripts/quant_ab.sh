#!/usr/bin/env bash
# Two gqsim binaries' codec speed, compared on a shared, noisy machine: their
# `quant bench` runs alternate ROUNDS times and each codec's fastest encode
# and decode (ns an element) of each binary is printed. The reference row
# (memcpy) shows how far the machine moved. Columns are found by name, counted
# from the end of a row (a spec with commas is quoted). A developer's tool (performance.md).
# Usage: scripts/quant_ab.sh OLD_GQSIM NEW_GQSIM ROUNDS N QUANT...
set -euo pipefail
[ $# -ge 5 ] || { echo "usage: $0 OLD_GQSIM NEW_GQSIM ROUNDS N QUANT..." >&2; exit 2; }
old=$1 new=$2 rounds=$3 n=$4
shift 4
args=()
for q in "$@"; do args+=(--quant "$q"); done
for _ in $(seq "$rounds"); do
  for which in old new; do
    bin=$old
    [ "$which" = new ] && bin=$new
    "$bin" quant bench --n "$n" --trials 3 --format csv "${args[@]}" 2> /dev/null |
      awk -v w="$which" -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; back = NF - col["encode_ns_per_element"]; next }
        { q = $0; sub(/,[0-9].*$/, "", q); gsub(/"/, "", q);   # the spec, quoted when it holds commas
          n = split($0, f, ","); print w, q, f[n - back], f[n - back + 1] }'
  done
done | awk '{ k = $2; if (!(k in seen)) { seen[k] = 1; order[++m] = k }
              e = $1 "," k; if (!(e in enc) || $3 < enc[e]) enc[e] = $3; if (!(e in dec) || $4 < dec[e]) dec[e] = $4 }
  END { printf "%-48s %12s %12s %12s %12s\n", "quant", "old encode", "new encode", "old decode", "new decode"
        for (i = 1; i <= m; i++) { k = order[i]
          printf "%-48s %12.4f %12.4f %12.4f %12.4f\n", substr(k, 1, 48), enc["old," k], enc["new," k], dec["old," k], dec["new," k] } }'
