# Speedup against GPUs for AlexNet, GoogLeNet and VGG-A on one cluster, one
# line per quantizer (TernGrad's Figure 5, in kind). Written by `gqsim report`.
# Variables: ptitle, arrays quants (short labels) and models. Data: blocks
# model-major then quantizer; columns: gpus images_per_s speedup. The y range
# follows the data. One key for the panels, centred under them.
set output outfile
nq = |quants|
nm = |models|
set multiplot layout 1, nm title "Speedup over one GPU (fp32) on ".ptitle
set logscale x 2
set grid
set bmargin 6 + keyroom
unset key
set xlabel "GPUs (markers offset where lines meet)"
set ylabel "speedup (log scale)"
set logscale y 2
do for [m = 1:nm] {
    set title models[m]
    plot for [q = 1:nq] datafile index ((m - 1) * nq + q - 1) using (dodge($1, q, nq)):3 with linespoints \
         title quants[q], x with lines dt 2 lc rgb "gray" title "linear"
    unset label
}
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
