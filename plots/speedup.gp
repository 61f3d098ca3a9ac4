# Images/s and speedup against the number of GPUs, one line per quantizer.
# Written beside the figure by `gqsim speedup --plot FILE.png`.
# Variables: ptitle, array quants (one per block).
# Data: one block per quantizer; columns: gpus images_per_s speedup.
set output outfile
nq = |quants|
set multiplot layout 1, 2 title ptitle
set logscale x 2
set grid
set key top left
set xlabel "GPUs"
set ylabel "images/s"
set logscale y
plot for [q = 1:nq] datafile index (q - 1) using 1:2 with linespoints lw 2 title quants[q]
set ylabel "speedup over one GPU (fp32), log scale"
set logscale y 2
plot for [q = 1:nq] datafile index (q - 1) using 1:3 with linespoints lw 2 title quants[q], \
     x with lines dt 2 lc rgb "gray" title "linear"
unset multiplot
