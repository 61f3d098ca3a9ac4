#!/bin/sh
# The speed goals per instruction set, measured on one machine: gqsim built
# three ways (portable x86-64 with SSE2; AVX2, x86-64-v3; AVX-512,
# x86-64-v4, where this CPU has it), each run here, each ratio against a
# reference measured in the same run (the streaming codecs' encode and decode
# against a memcpy of the same floats; the trainer's forward and backward
# against OpenBLAS's sgemm). Prints one table, a column per instruction set,
# and the CPU that measured it. The builds run in turn, ROUNDS times (a
# shared VM's speed moves from minute to minute): each cell is the median of
# its rounds' ratios, and their range. The AVX2 build's trainer is held to
# OpenBLAS's AVX2 sgemm (OPENBLAS_CORETYPE=Haswell), the one an AVX2-only CPU
# runs. A benchmark, not a test: it asserts nothing.
# Usage: scripts/bench_isa.sh [N [ROUNDS]]   N floats for the codecs (default 16777216), ROUNDS (default 3)
set -eu
N=${1:-16777216}
ROUNDS=${2:-3}
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${BENCH_ISA_BUILDS:-$SRC/build-isa}
ISAS="x86-64 x86-64-v3"
grep -q avx512f /proc/cpuinfo && grep -q avx512bw /proc/cpuinfo && grep -q avx512vl /proc/cpuinfo &&
    ISAS="$ISAS x86-64-v4"
for isa in $ISAS; do
    cmake -S "$SRC" -B "$ROOT/$isa" -DCMAKE_BUILD_TYPE=Release -DGQ_NATIVE=OFF -DCMAKE_C_FLAGS="-march=$isa" \
        > /dev/null
    cmake --build "$ROOT/$isa" -j "$(nproc)" --target gqsim > /dev/null
done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for round in $(seq "$ROUNDS"); do
    for isa in $ISAS; do
        "$ROOT/$isa/gqsim" quant bench --n "$N" --trials 3 --quant fp32 --quant fp16 --quant terngrad \
            --quant qsgd:levels=5 --quant signsgd --format csv > "$OUT/codec-$isa-$round.csv"
        # the trainer's reference is the sgemm a CPU of that instruction set would run: on an AVX-512 machine the
        # AVX2 build is held to OpenBLAS's AVX2 kernel (Haswell), as on an AVX2-only CPU, not to its AVX-512 one
        if [ "$isa" = x86-64-v3 ]; then core=Haswell; else core=; fi
        env -u OPENBLAS_CORETYPE ${core:+OPENBLAS_CORETYPE=$core} "$ROOT/$isa/gqsim" train --epochs 1 --workers 4 \
            --train-limit 16384 --format csv > "$OUT/train-$isa-$round.csv" 2> /dev/null
    done
done
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), model $(grep -m1 '^model[[:space:]]' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
echo "codecs: n = $N floats, fractions of the same run's memcpy, encode / decode; trainer: forward + backward over the same run's sgemm; median of $ROUNDS rounds [their range]"
perl -MText::ParseWords -e '
    use strict;
    my ($dir, $rounds, @isas) = @ARGV;
    my (%v, @rows);
    sub fields { my $l = shift; chomp $l; parse_line(",", 0, $l) }
    sub header { my %i; my @h = fields(shift); @i{@h} = 0 .. $#h; %i }
    for my $isa (@isas) {
        for my $r (1 .. $rounds) {
            open my $c, "<", "$dir/codec-$isa-$r.csv" or die;
            my %i = header(scalar <$c>);
            while (my $l = <$c>) {
                my @f = fields($l);
                (my $q = $f[$i{quant}]) =~ s/:.*//;
                next if $q eq "reference";
                push @rows, $q unless grep { $_ eq $q } @rows;
                push @{$v{$q}{$isa}{enc}}, $f[$i{encode_frac_of_ref}];
                push @{$v{$q}{$isa}{dec}}, $f[$i{decode_frac_of_ref}];
            }
            open my $t, "<", "$dir/train-$isa-$r.csv" or die;
            my %ti = header(scalar <$t>);
            my @tf = fields(scalar <$t>);
            push @{$v{trainer}{$isa}{enc}}, $tf[$ti{gflops}] / $tf[$ti{sgemm_gflops}];
        }
    }
    push @rows, "trainer";
    sub median { my @s = sort { $a <=> $b } @_; $s[$#s / 2] }
    sub cell { my @s = sort { $a <=> $b } @_; sprintf "%.2f [%.2f-%.2f]", median(@s), $s[0], $s[-1] }
    my %name = ("x86-64" => "portable (SSE2)", "x86-64-v3" => "AVX2", "x86-64-v4" => "AVX-512");
    print "| | ", join(" | ", map { $name{$_} } @isas), " |\n|---|", join("|", map { "---:" } @isas), "|\n";
    for my $q (@rows) {
        my $what = $q eq "trainer" ? "trainer, forward + backward / sgemm" : "$q encode";
        print "| $what | ", join(" | ", map { cell(@{$v{$q}{$_}{enc}}) } @isas), " |\n";
        print "| $q decode | ", join(" | ", map { cell(@{$v{$q}{$_}{dec}}) } @isas), " |\n" if $q ne "trainer";
    }
' "$OUT" "$ROUNDS" $ISAS
