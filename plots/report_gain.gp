# The second quantizer's speedup divided by the first's (by default TernGrad
# over fp32), per model and cluster, against GPUs. Written by `gqsim report`.
# Data: blocks cluster-major, then model (ethernet-alexnet, -googlenet, -vgg-a,
# then infiniband-...); columns: gpus ratio. Variables: ptitle, arrays models
# and clusters (the clusters' names in the legend). A model keeps its colour
# and marker; a cluster its dash pattern.
set output outfile
nm = |models|
nc = |clusters|
set title ptitle
set logscale x 2
set grid
set bmargin 4 + keyroom
set key outside right top vertical
set xlabel "GPUs (markers offset where lines meet)"
set ylabel "speedup ratio"
plot for [c = 0:nc - 1] for [m = 1:nm] datafile index (c * nm + m - 1) \
     using (dodge($1, c * nm + m, nc * nm)):2 with linespoints lt m dt c + 1 title clusters[c + 1]." ".models[m], \
     1 with lines dt 3 lc rgb "gray" title "no gain"
