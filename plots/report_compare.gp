# The report's platforms side by side: images/s against GPUs, one panel per
# model, a line per platform and quantizer; where every platform has a price,
# a second row of panels with the cost of a million images. Written by
# `gqsim report` when it covers more than one platform. Data: blocks
# model-major, then platform, then quantizer; columns: gpus images_per_s
# cost_per_million_samples. Variables: ptitle, arrays models, clusters (short
# names) and quants (short labels), costs (1 where every row has a price). A
# quantizer keeps its colour and marker; a platform its dash pattern.
set output outfile
nm = |models|
nc = |clusters|
nq = |quants|
set multiplot layout (costs ? 2 : 1), nm title ptitle
set logscale x 2
set grid
set bmargin (costs ? 3 : 6 + keyroom)
unset key
set xlabel "GPUs (markers offset where lines meet)"
do for [row = 1:(costs ? 2 : 1)] {
    if (row == 2) { set bmargin 6 + keyroom }
    do for [m = 1:nm] {
        set title (row == 1 ? models[m] : "")
        set ylabel (row == 1 ? "images/s" : "cost of a million images")
        if (row == 1) { set logscale y } else { unset logscale y }
        plot for [c = 1:nc] for [q = 1:nq] datafile index (((m - 1) * nc + c - 1) * nq + q - 1) \
             using (dodge($1, (c - 1) * nq + q, nc * nq)):(row == 1 ? $2 : $3) with linespoints lt q dt c \
             title clusters[c].", ".quants[q]
        unset label
    }
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
plot for [c = 1:nc] for [q = 1:nq] -1 with linespoints lt q dt c title clusters[c].", ".quants[q]
unset multiplot
