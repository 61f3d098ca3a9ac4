# The second quantizer's speedup divided by the first's (by default TernGrad
# over fp32), per model and cluster, against GPUs. Written by `gqsim report`.
# Data: blocks cluster-major, then model (ethernet-alexnet, -googlenet, -vgg-a,
# then infiniband-...); columns: gpus ratio. Variables: ptitle, arrays models
# and clusters (the clusters' names in the legend).
set output outfile
nm = |models|
nc = |clusters|
set title ptitle
set logscale x 2
set grid
set key top left
set xlabel "GPUs"
set ylabel "speedup ratio"
plot for [c = 0:nc - 1] for [m = 1:nm] datafile index (c * nm + m - 1) using 1:2 with linespoints lw 2 \
     dt c+1 title clusters[c + 1]." ".models[m]
