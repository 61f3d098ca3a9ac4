# Test accuracy per epoch, one line per (quantizer, workers) run.
# Written beside the figure by `gqsim train --plot FILE.png`.
# Variables: array labels (one per block). Data: one block per run; columns: epoch test_accuracy.
set output outfile
n = |labels|
set title "Test accuracy (Fashion-MNIST)"
set grid
set key bottom right noenhanced
set xlabel "epoch"
set ylabel "test accuracy"
plot for [r = 1:n] datafile index (r - 1) using 1:2 with linespoints lw 2 title labels[r]
