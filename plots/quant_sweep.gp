# Quantization error against bucket size: ORQ vs QSGD vs TernGrad vs BinGrad
# at equal numbers of levels, one panel per gradient distribution.
# Written beside the figure by `gqsim quant sweep --plot FILE.png`.
# Variables: arrays dists and schemes (their order is the blocks' order).
# Data: one block per (dist, scheme), dist-major; columns: bucket nmse.

set output outfile
ndist = |dists|
nsch = |schemes|
set multiplot layout 1, ndist title "Quantization error vs bucket size (lower is better)"
set logscale xy
set grid xtics ytics mytics
set xlabel "bucket size (elements)"
set ylabel "NMSE  E||Q(g) - g||^2 / ||g||^2"
# one key under the panels, below the x label (drawn with the first panel)
set bmargin 10
set key at screen 0.5, screen 0.14 center top horizontal maxrows 4 font ",9" samplen 3
set format y "%.0e"
# one colour per family, one dash pattern per number of levels
family(s) = strstrt(s, "orq") ? 1 : strstrt(s, "qsgd") && strstrt(s, "max") ? 2 : strstrt(s, "qsgd") ? 3 : \
            strstrt(s, "terngrad") ? 4 : 5
nlev(s) = strstrt(s, "-3") ? 1 : strstrt(s, "-5") ? 2 : strstrt(s, "-9") ? 3 : 4
do for [d = 1:ndist] {
    set title dists[d]
    plot for [q = 1:nsch] datafile index ((d - 1) * nsch + q - 1) using 1:2 with linespoints \
         lc family(schemes[q]) dt nlev(schemes[q]) pt q%7+1 lw 1.5 title schemes[q]
    unset key
}
unset multiplot
