# Each configuration advise printed, in images/s: one horizontal bar each,
# best first within a search, searches one under the other in their own
# colour; each bar's search's best fp32 configuration is the black diamond on it
# (its speedup over that fp32 printed after the bar), so that platforms
# compare in absolute throughput, not each against its own fp32.
# Written by `gqsim advise --plot FILE.png`.
# Variables: ptitle, xmax (the largest images/s); array labels (one per bar: platform, GPUs, configuration).
# Data: one line per bar; columns: bar index, images/s, search index, the search's fp32 images/s, speedup over it.
set output outfile
n = |labels|
set title ptitle
set grid xtics
set key off
set style fill solid 0.6 border -1
set xlabel "images/s (black diamond: the search's best fp32 configuration)"
set lmargin 76
set rmargin 12
set ytics () font ",9" noenhanced
do for [i = 1:n] {
    set ytics add (labels[i] i - 1)
}
set yrange [n - 0.5:-0.5]
set xrange [0:xmax * 1.45]
plot datafile using (0):1:(0):2:($1 - 0.35):($1 + 0.35):($3 + 1) with boxxyerror lc variable, \
     datafile using 4:1 with points pt 13 ps 2.2 lc rgb "black", \
     datafile using ($2 > $4 ? $2 : $4):1:(sprintf("  %.4g (%.2fx fp32)", $2, $5)) with labels left font ",9"
