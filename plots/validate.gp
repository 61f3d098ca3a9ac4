# Measured (points) and predicted (lines) images/s against GPUs, one colour
# per configuration. Written by `gqsim validate --plot FILE.png`.
# Variables: array labels (one per block). Data: one block per (model, platform, sync); columns: gpus measured predicted.
set output outfile
set title "Predicted (lines) vs measured (points) training throughput"
set logscale xy 2
set grid
set key outside right top vertical font ",9" noenhanced
set xlabel "GPUs"
set ylabel "images/s"
nblocks = |labels|
plot for [b = 0:nblocks - 1] datafile index b using 1:3 with lines lw 2 lc b + 1 title labels[b + 1], \
     for [b = 0:nblocks - 1] datafile index b using 1:2 with points pt 7 ps 1.5 lc b + 1 notitle
