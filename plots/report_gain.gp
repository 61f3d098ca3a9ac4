# Each quantizer's speedup divided by the first's (by default TernGrad, QSGD
# and ORQ over fp32), one panel per model, against GPUs. Written by
# `gqsim report`. Data: blocks model-major, then cluster, then quantizer (the
# second onwards); columns: gpus ratio. Variables: ptitle, arrays models,
# clusters (short names) and gains (the quantizers' short labels, the second
# onwards). A quantizer keeps its colour and marker; a cluster its dash
# pattern. One key for the panels, centred under them.
set output outfile
nm = |models|
nc = |clusters|
nr = |gains|
set multiplot layout 1, nm title ptitle
set logscale x 2
set grid
set bmargin 6 + keyroom
unset key
set xlabel "GPUs (markers offset where lines meet)"
set ylabel "speedup ratio, log scale (above 1: faster than ".first.")"
set logscale y 2
do for [m = 1:nm] {
    set title models[m]
    plot for [c = 1:nc] for [r = 1:nr] datafile index (((m - 1) * nc + c - 1) * nr + r - 1) \
         using (dodge($1, (c - 1) * nr + r, nc * nr)):2 with linespoints lt r dt c \
         title (nc > 1 ? clusters[c].", " : "").gains[r], \
         1 with lines dt 3 lc rgb "gray" title "no gain"
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
plot for [c = 1:nc] for [r = 1:nr] -1 with linespoints lt r dt c title (nc > 1 ? clusters[c].", " : "").gains[r], \
     -1 with lines dt 3 lc rgb "gray" title "no gain"
unset multiplot
