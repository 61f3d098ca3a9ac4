# Test accuracy against simulated wall-clock time, one curve per quantizer:
# which reaches the target first. Accuracy is known only where an epoch ends,
# so each curve is a staircase that holds an epoch's accuracy until the next
# one's: it crosses the target where the table says (the first epoch at or
# above it). Written by `gqsim tta --plot FILE.png`.
# Variables: ptitle, target, array labels (one per block). Data: one block per
# quantizer; columns: simulated seconds, test accuracy (the seeds' mean), its
# standard deviation over the seeds (error bars where there are seeds).
set output outfile
n = |labels|
set title ptitle
set grid
set bmargin 4 + keyroom
set key outside right top vertical noenhanced
set xlabel "simulated training time (s)"
set ylabel "test accuracy"
set arrow 1 from graph 0, first target to graph 1, first target nohead dt 2 lc rgb "gray"
set label 1 sprintf("target %.3f", target) at graph 0.02, first target offset 0, 0.7 tc rgb "gray"
plot for [r = 1:n] datafile index (r - 1) using 1:2 with steps lt r title labels[r], \
     for [r = 1:n] datafile index (r - 1) using 1:2:3 with yerrorbars lt r notitle
