#!/bin/sh
# Every option a simulating command lists is honoured or refused, never ignored: for each option in the help of
# simulate, speedup and report, a run with it set must either print something else than the same run without it,
# or stop with a message naming the option (an option that changes nothing in that run, such as --exact-flows
# under the analytic engine). An option missing from the table below fails the test, so a new option needs a
# value here and a use in the code. Usage: options_test.sh GQSIM
GQ=$1
. "$(dirname "$0")/harness.sh"

printf 'gpu,peak_fp32_tflops,mem_bw_gbs,source\nMYGPU,20,900,this test\n' > gpus.csv
printf 'quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\n' > costs.csv
printf '"terngrad:bucket=0,clip=2.5,scale=max,pack=2bit",GTX 1080,1000000,1,1000000,1,this test\n' >> costs.csv

# the value each option is tried with (the base runs: TernGrad on 8 GPUs of terngrad-ethernet, analytic engine)
value_of() {
    case $1 in
    --model) echo vgg-a ;;
    --platform) echo roce25 ;;
    --gpus) echo 16 ;;
    --quant) echo qsgd ;;
    --gpu) echo P100 ;;
    --gpu-file) echo "gpus.csv --gpu MYGPU" ;; # more GPUs: honoured when one of them is used
    --batch) echo 64 ;;
    --gpu-hour-cost) echo 3 ;;
    --gpu-images-per-s) echo 500 ;;
    --sync) echo ring ;;
    --ps-shards) echo 1 ;;
    --ps-placement) echo greedy ;;
    --ps-pull) echo round ;;
    --ps-on) echo cpu ;;
    --ps-node-sum) echo gpus ;;
    --ps-cpu-machines) echo 2 ;;
    --downlink) echo fp32 ;;
    --overlap) echo off ;;
    --fusion) echo 0 ;;
    --fusion-cycle) echo 0.05 ;;
    --engine) echo simgrid ;;
    --network-model) echo CM02 ;;
    --fp32-below) echo 1000000 ;;
    --fp32-last) echo "" ;;
    --codec-on) echo cpu ;;
    --codec-costs) echo costs.csv ;;
    --quant-cost-scale) echo 10 ;;
    --quant-rate) echo 1e6 ;;
    --iterations) echo 2 ;;
    --exact-flows) echo "" ;;
    --compute-jitter) echo 0.1 ;;
    --framework) echo pytorch-ddp ;;
    --reduce-on) echo host ;;
    --ring-steps) echo pipelined ;;
    --precision) echo amp ;;
    --fusion-wait) echo previous ;;
    --partition) echo 1000000 ;;
    --ef) echo on ;;
    --format) echo table ;;
    --plot) echo fig.svg ;; # a figure: honoured when it is written
    --plan) echo plan.csv ;; # with the base run's --quant: refused, naming it
    --out | --output) echo rep ;; # the report's directory: honoured when it holds the report
    *) return 1 ;;
    esac
}

walk() { # walk COMMAND BASE-ARGUMENTS...
    cmd=$1; shift
    "$GQ" "$cmd" "$@" > base.txt 2> base.err || bad "$cmd: the base run fails: $(cat base.err)"
    # the report's rows go to its directory's report.csv, its stdout has the summary: either may show an option
    rm -f base-report.csv
    if [ -f base-rep/report.csv ]; then cp base-rep/report.csv base-report.csv; fi
    "$GQ" help "$cmd" | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' > opts.txt
    check "$cmd: help lists its options ($(wc -l < opts.txt))" test "$(wc -l < opts.txt)" -ge 20
    while read -r opt; do
        if ! v=$(value_of "$opt"); then
            bad "$cmd $opt: no value to try in options_test.sh (a new option? give it one)"
            continue
        fi
        rm -rf fig.svg rep
        # shellcheck disable=SC2086
        "$GQ" "$cmd" "$@" "$opt" $v > out.txt 2> err.txt
        rc=$?
        case $opt in
        --plot) honoured="test $rc -eq 0 -a -s fig.svg" ;;
        --out | --output) honoured="test $rc -eq 0 -a -s rep/report.csv" ;;
        *) honoured="test $rc -eq 0 && { ! cmp -s out.txt base.txt || { test -f base-report.csv && ! cmp -s base-rep/report.csv base-report.csv; }; }" ;;
        esac
        refused="test $rc -ne 0 && test \$(wc -l < err.txt) -eq 1 && grep -q -e '$opt' err.txt"
        check "$cmd $opt $v: honoured or refused (exit $rc: $(head -c 200 err.txt))" sh -c "$honoured || { $refused; }"
    done < opts.txt
}

BASE="--model alexnet --platform terngrad-ethernet --quant terngrad --engine analytic --format csv"
# shellcheck disable=SC2086
walk simulate $BASE --gpus 8
# shellcheck disable=SC2086
walk speedup $BASE --gpus 1,8
# shellcheck disable=SC2086
walk report --model alexnet --platform terngrad-ethernet --quant fp32 --quant terngrad --engine analytic \
    --format csv --gpus 1,8 --out base-rep
finish
