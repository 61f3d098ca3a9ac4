# Predicted against measured training throughput: a point per measured row,
# a series per quantizer and scheme, on linear axes from 0 so that an error
# of 10% looks like one; the grey band is within 10% of the measurement, the
# dashed line exact. Written by `gqsim validate --plot FILE.png`.
# Variables: amax (the largest value on either axis); array labels (one per
# block). Data: one block per (quantizer, scheme); columns: measured
# predicted gpus.
set output outfile
set title "Predicted against measured training throughput (grey: within 10%)"
set grid
set key inside left top vertical font ",9" noenhanced opaque box
set xlabel "measured images/s"
set ylabel "predicted images/s"
set xrange [0:amax * 1.05]
set yrange [0:amax * 1.05]
set size ratio -1
set samples 200
nblocks = |labels|
plot '+' using 1:(0.9 * $1):(1.1 * $1) with filledcurves lc rgb "#d9d9d9" title "within 10%", \
     x with lines dt 2 lc rgb "gray" title "predicted = measured", \
     for [b = 0:nblocks - 1] datafile index b using 1:2 with points lt b + 1 ps 1.4 title labels[b + 1]
