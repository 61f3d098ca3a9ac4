# Test accuracy per epoch, one line per (quantizer, workers) run: the seeds'
# mean, with error bars of one standard deviation where there are seeds.
# Written beside the figure by `gqsim train --plot FILE.png`.
# Variables: array labels (one per block). Data: one block per run; columns:
# epoch, test accuracy (mean), its standard deviation over the seeds.
set output outfile
n = |labels|
stats datafile using 1 nooutput
xstep = STATS_max <= 15 ? 1 : ceil(STATS_max / 10.0)
set xtics xstep
set mxtics 1
set format x "%.0f"
set title "Test accuracy (Fashion-MNIST)"
set grid
set bmargin 4 + keyroom
set key outside right top vertical noenhanced
set xlabel "epoch (markers offset sideways where lines meet)"
set ylabel "test accuracy"
plot for [r = 1:n] datafile index (r - 1) using ($1 + 0.04 * (r - (n + 1) / 2.0)):2:3 with yerrorlines \
     title labels[r]
