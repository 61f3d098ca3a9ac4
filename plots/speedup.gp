# Images/s and speedup against the number of GPUs, one line per quantizer.
# Written beside the figure by `gqsim speedup --plot FILE.png`.
# Variables: ptitle, array quants (one per block, the tables' short labels).
# Data: one block per quantizer; columns: gpus images_per_s speedup.
# One key for both panels, centred under them.
set output outfile
nq = |quants|
set multiplot layout 1, 2 title ptitle
set logscale x 2
set grid
set bmargin 6 + keyroom
unset key
set xlabel "GPUs (markers offset sideways where lines coincide)"
set ylabel "images/s"
set logscale y
plot for [q = 1:nq] datafile index (q - 1) using (dodge($1, q, nq)):2 with linespoints title quants[q]
unset label
set ylabel "speedup over one GPU (fp32), log scale"
set logscale y 2
plot for [q = 1:nq] datafile index (q - 1) using (dodge($1, q, nq)):3 with linespoints title quants[q], \
     x with lines dt 2 lc rgb "gray" title "linear"
# the key, once, centred under the panels: a plot of nothing across the whole figure
set origin 0, 0
set size 1, 1
unset logscale
unset title
unset xlabel
unset ylabel
unset grid
unset border
unset tics
unset label
set xrange [0:1]
set yrange [0:1]
set key at screen 0.5, screen 0.05 + 0.022 * keyroom center top horizontal
plot for [q = 1:nq] -1 with linespoints title quants[q], -1 with lines dt 2 lc rgb "gray" title "linear"
unset multiplot
