# Speedup against GPUs for AlexNet, GoogLeNet and VGG-A on one cluster, one
# line per quantizer (TernGrad's Figure 5, in kind). Written by `gqsim report`.
# Variables: ptitle, arrays quants and models. Data: blocks model-major then
# quantizer; columns: gpus images_per_s speedup. The y range follows the data.
set output outfile
nq = |quants|
nm = |models|
set multiplot layout 1, nm title "Speedup over one GPU (fp32) on ".ptitle
set logscale x 2
set grid
set key top left
set xlabel "GPUs"
set ylabel "speedup (log scale)"
set logscale y 2
set autoscale y
do for [m = 1:nm] {
    set title models[m]
    plot for [q = 1:nq] datafile index ((m - 1) * nq + q - 1) using 1:3 with linespoints lw 2 title quants[q], \
         x with lines dt 2 lc rgb "gray" title "linear"
}
unset multiplot
