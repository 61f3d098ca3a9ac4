#!/usr/bin/env bash
# Regenerates the worked-example table of docs/advise.md: what `gqsim advise` picks for each of TernGrad's Figure-5
# clusters (1 GbE, 56 Gb/s InfiniBand), models (AlexNet, GoogLeNet, VGG-A) and GPU counts (8, 64, 512), from the
# default space with SimGrid finalists, against the seeds' choice -- TernGrad everywhere with simulate's defaults
# (ps-sharded, Horovod's fusion) -- simulated with SimGrid too. Prints the markdown rows; both platforms of a model
# and GPU count are one advise run (--platform twice). About 2 minutes on 2 cores; `mpirun -np 2` in front of
# nothing: run the script under one process, advise spreads nothing here.
# Usage: bash scripts/advise_examples.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j "$(nproc)" > /dev/null
gq=$build/gqsim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| network | model | GPUs | advise's winner (scheme, fusion, fp32 below, codec) | images/s | over the best fp32 | TernGrad default | over TernGrad |"
echo "|---|---|---:|---|---:|---:|---:|---:|"
for platform in terngrad-ethernet terngrad-infiniband; do
    net=$([ $platform = terngrad-ethernet ] && echo "1 GbE" || echo "56 Gb/s IB")
    for model in alexnet googlenet vgg-a; do
        for gpus in 8 64 512; do
            "$gq" advise --model $model --platform $platform --gpus $gpus --top 1 --format csv > "$work/a.csv"
            "$gq" simulate --model $model --platform $platform --gpus $gpus --quant terngrad --format csv > "$work/t.csv"
            perl -e '
                sub row { my ($f) = @_; open my $h, "<", $f or die; my $hd = <$h>; chomp $hd; my @k = split /,/, $hd;
                    my $l = <$h>; chomp $l; my @v; push @v, defined $1 ? $1 : $2 while $l =~ /\G(?:"([^"]*)"|([^,]*))(?:,|$)/g;
                    my %r; @r{@k} = @v; return \%r }
                my ($a, $t) = (row($ARGV[0]), row($ARGV[1]));
                my $q = $a->{quant}; $q =~ s/:.*// unless $q =~ /^(topk|powersgd|qsgd)/;
                $q =~ s/^topk:ratio=0.001.*/topk 0.1%/; $q =~ s/^topk:ratio=0.01.*/topk 1%/;
                $q =~ s/^powersgd:rank=(\d+).*/powersgd rank $1/; $q =~ s/^qsgd:levels=(\d+).*/qsgd-$1/;
                my $fu = $a->{fusion_bytes} == 0 ? "per tensor" : $a->{fusion_cycle_s} > 0 ? "64 MiB/5 ms" : "25 MiB";
                my $cfg = $a->{quant} eq "fp32" ? "$q, $a->{sync}, $fu" : "$q, $a->{sync}, $fu, $a->{fp32_below}, $a->{codec_on}";
                sub n { my $x = sprintf "%.0f", $_[0]; 1 while $x =~ s/^(\d+)(\d{3})/$1,$2/; $x }
                printf "| %s | %s | %s | %s | %s | %.2f | %s | %.2f |\n", $ARGV[2], $ARGV[3], $ARGV[4], $cfg,
                    n($a->{images_per_s}), $a->{speedup_over_fp32}, n($t->{images_per_s}), $a->{images_per_s} / $t->{images_per_s};
            ' "$work/a.csv" "$work/t.csv" "$net" $model $gpus
        done
    done
done
