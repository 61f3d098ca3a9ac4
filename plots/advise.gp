# Each configuration advise printed, as its speedup over the best fp32
# configuration of its search (the same platform and GPU count): one
# horizontal bar each, best first within a search, searches one under the
# other in their own colour; the dashed line is fp32's 1x.
# Written by `gqsim advise --plot FILE.png`.
# Variables: ptitle, xmax (the largest speedup, at least 1); array labels (one per bar: platform, GPUs, configuration).
# Data: one line per bar; columns: bar index, speedup over fp32, search index.
set output outfile
n = |labels|
set title ptitle
set grid xtics
set key off
set style fill solid 0.6 border -1
set xlabel "speedup over the best fp32 configuration (images/s)"
set lmargin 76
set rmargin 10
set ytics () font ",9" noenhanced
do for [i = 1:n] {
    set ytics add (labels[i] i - 1)
}
set yrange [n - 0.5:-0.5]
set xrange [0:xmax * 1.12]
set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead dt 2 lc rgb "gray"
plot datafile using (0):1:(0):2:($1 - 0.35):($1 + 0.35):($3 + 1) with boxxyerror lc variable, \
     datafile using 2:1:(sprintf(" %.2fx", $2)) with labels left font ",9"
