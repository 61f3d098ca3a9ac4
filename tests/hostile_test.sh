#!/bin/sh
# Hostile input on every command, as a new user (or a shared .model file)
# might bring it: no shell ever sees a user string, every bad number or file
# gets one line and the right exit code (2 usage, 1 data), and nothing is
# left behind: no output file, no temporary, no process. Under the ASan
# build this also runs the error paths with leak detection on.
# Usage: tests/hostile_test.sh path/to/gqsim
set -u
GQ=$1
case $GQ in /*) ;; *) GQ=$(pwd)/$GQ ;; esac
. "$(dirname "$0")/harness.sh"
nothing_named() { ! ls -A | grep -q -- "$1"; }

# ---- 1. no shell: figure names and model names with shell syntax ------------------------------
"$GQ" speedup --model alexnet --platform terngrad-ethernet --gpus 1,8 --engine analytic \
    --plot 'x$(touch INJECTED).png' > /dev/null 2> err.txt
check "\$() in --plot: exit 0" test $? -eq 0
check "\$() in --plot: nothing executed" test ! -e INJECTED
check "\$() in --plot: the figure under that very name" test -s 'x$(touch INJECTED).png'
check "\$() in --plot: its script and data beside it" test -s 'x$(touch INJECTED).gp' -a -s 'x$(touch INJECTED).dat'

# a model whose name holds $(), ${IFS}, backticks, quotes of both kinds and UTF-8
cat > evil.model <<'EOF'
name a$(touch${IFS}INJ)`touch${IFS}BQ`'q"é
input 1x28x28
fc fc1 out=10
EOF
"$GQ" speedup --model ./evil.model --platform terngrad-ethernet --gpu P100 --gpus 1,4 --engine analytic \
    --plot "it's a \"plot\" é.svg" > /dev/null 2> err.txt
check "hostile model name: exit 0 ($(cat err.txt))" test $? -eq 0
check "hostile model name: nothing executed" sh -c 'test ! -e INJ && test ! -e BQ'
check "hostile model name: the SVG is drawn" grep -q '</svg>' "it's a \"plot\" é.svg"
check "hostile model name: the title is in the figure as written" grep -q 'é' "it's a \"plot\" é.svg"
# the written script re-runs as its header says, from its own directory, and makes the same figure
mkdir rerun && cp "it's a \"plot\" é.gp" "it's a \"plot\" é.dat" rerun/
(cd rerun && gnuplot "it's a \"plot\" é.gp" 2> ../gp.err)
check "the .gp re-runs on its own ($(head -c 200 gp.err))" test -s "rerun/it's a \"plot\" é.svg"
check "the .gp says how to re-run it" grep -q '^# Written by gqsim.*Re-run' "it's a \"plot\" é.gp"

# a platform file whose name holds a newline, a space and a quote: the legend and the data stay whole
"$GQ" platforms xml terngrad-ethernet --nodes 2 > "$(printf "my\nplat 'form'.xml")"
"$GQ" speedup --model alexnet --platform "$(printf "my\nplat 'form'.xml")" --gpus 1,8 --engine analytic \
    --plot nl.png > /dev/null 2> err.txt
check "a newline in a platform's name: the figure is drawn ($(head -c 200 err.txt))" test -s nl.png
check "a newline in a platform's name: one comment line per block" \
    test "$(grep -c '^# alexnet my plat' nl.dat)" -eq 1
check "a newline in a platform's name: the title keeps the rest of it" grep -q "ptitle = 'alexnet on my plat ''form''.xml'" nl.gp

expect "a newline in --plot is refused" 2 "control character" \
    "$GQ" speedup --model alexnet --platform terngrad-ethernet --plot "$(printf 'a\nb.png')"
expect "--plot must be png or svg" 2 "must end in .png or .svg" \
    "$GQ" speedup --model alexnet --platform terngrad-ethernet --plot acc.jpg
expect "--plot into a missing directory, before any work" 2 "nonexistent' does not exist" \
    "$GQ" speedup --model alexnet --platform terngrad-ethernet --plot /nonexistent/s.png
expect "--plot where it does not apply" 2 "simulate: option '--plot' does not apply to this command" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --plot p.png

# ---- 2. the documented own-XML path, and SimGrid's reasons ------------------------------------
spec='cluster:gpus-per-node=2,gpu=V100,intra=nvlink2,inter=25gbe,topology=fat-tree,oversub=4,leaf=2,nodes=6'
"$GQ" platforms xml "$spec" > tree.xml
# rows with the platform column blanked (a spec holds commas, so it is quoted)
row() { "$GQ" simulate --format csv "$@" | tail -1 | sed -e 's/"cluster:[^"]*"/P/' -e 's/,[a-z0-9.-]*\.xml,/,P,/' -e 's/,terngrad-ethernet,/,P,/'; }
row --model resnet50 --platform tree.xml --gpus 12 > a.txt
row --model resnet50 --platform "$spec" --gpus 12 > b.txt
check "fat-tree XML predicts as its spec" sh -c 'grep -q "^resnet50,P,12," a.txt && cmp -s a.txt b.txt'
row --model resnet50 --platform tree.xml --gpus 12 --engine analytic > a.txt
row --model resnet50 --platform "$spec" --gpus 12 --engine analytic > b.txt
check "fat-tree XML, analytic engine: as its spec" sh -c 'grep -q "^resnet50,P,12," a.txt && cmp -s a.txt b.txt'
# fewer GPUs than the spec's nodes hold: the others stay idle, and the time is a real one
row --model alexnet --platform 'cluster:gpus-per-node=4,gpu=GTX 1080,intra=pcie3,inter=1gbe,nodes=4' --gpus 8 > a.txt
row --model alexnet --platform terngrad-ethernet --gpus 8 > b.txt
check "idle nodes change nothing on a star" sh -c 'grep -q "^alexnet,P,8," a.txt && cmp -s a.txt b.txt && ! grep -q inf a.txt'

"$GQ" platforms xml terngrad-ethernet --nodes 2 > two.xml
sed 's/link_ctn id="nic1"/link_ctn id="nosuchlink"/' two.xml > nolink.xml
expect "SimGrid's reason: a missing link" 1 "SimGrid rejected nolink.xml: Link not found: nosuchlink" \
    "$GQ" simulate --model alexnet --platform nolink.xml --gpus 8
grep -v 'zoneRoute src="node1"' two.xml > noroute.xml
expect "SimGrid's reason: no route" 1 "SimGrid rejected noroute.xml: No route from 'node0' to 'node1'" \
    "$GQ" simulate --model alexnet --platform noroute.xml --gpus 8
sed 's|<prop id="gqsim.nics" value="1"/>|&<prop id="gqsim.nics" value="2"/>|' two.xml > twice.xml
expect "a property given twice" 1 "twice.xml: property gqsim.nics is given twice" \
    "$GQ" simulate --model alexnet --platform twice.xml --gpus 8
expect "SimGrid engine beyond its limit: a clear refusal" 1 "65536 SimGrid actors .one per GPU., beyond the SimGrid engine's 16384.*--engine analytic" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 65536 --sync ps
expect "grouped actors have the same limit: a ring, 2 per 4-GPU node" 1 "65536 GPUs need 32768 SimGrid actors .two per node., beyond the SimGrid engine's 16384" \
    "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 65536 --sync ring
expect "the leaders' schemes, one actor per node: 3-GPU nodes" 1 "65536 GPUs need 21846 SimGrid actors .one per node., beyond the SimGrid engine's 16384" \
    "$GQ" simulate --model alexnet --platform "cluster:gpus-per-node=3,gpu=P100,intra=pcie3,inter=10gbe" --gpus 65536
"$GQ" platforms xml dgx1 --nodes 2500 > dgx1.xml
expect "one actor per GPU on a user's XML too" 1 "beyond the SimGrid engine's 16384" \
    "$GQ" simulate --model alexnet --platform dgx1.xml --gpus 20000

# ---- 3. numbers: ranges where they are parsed, overflow in files -----------------------------
printf 'model,platform,gpu,batch,gpus,images_per_s\nalexnet,dgx1,P100,128,4294967297,100\n' > big.csv
expect "validate: gpus past 32 bits" 1 "big.csv:2: gpus '4294967297' must be an integer in 1..65536" \
    "$GQ" validate --measured big.csv
printf 'model,platform,gpu,batch,gpus,images_per_s\nalexnet,dgx1,P100,128,1000000000,100\n' > huge.csv
expect "validate: 10^9 GPUs" 1 "huge.csv:2: gpus '1000000000' must be an integer in 1..65536" \
    "$GQ" validate --measured huge.csv
printf 'model,platform,gpu,batch,gpus,images_per_s,quant\nalexnet,dgx1,P100,128,8,100,"qsgd:levels=4,norm=max"\n' > q.csv
expect "validate: a bad quantizer in a row, one line naming it" 1 "q.csv:2: quant 'qsgd:levels=4,norm=max'" \
    "$GQ" validate --measured q.csv
printf 'model,platform,gpu,batch,gpus,images_per_s\nnosuch,dgx1,P100,128,8,100\n' > m.csv
expect "validate: an unknown model in a row, one line naming the row" 1 "m.csv:2: unknown model 'nosuch'" \
    "$GQ" validate --measured m.csv
printf 'model,platform,gpu,batch,gpus,images_per_s\n"alexnet,dgx1,P100,128,8,100\n' > quote.csv
expect "validate: an unclosed quote" 1 "quote.csv:2: a quoted field is not closed" \
    "$GQ" validate --measured quote.csv

printf 'name x\ninput 100000x100000x100\nfc f out=100000\n' > over.model
expect "model: sizes past 2^53 are an error, not a wrapped count" 1 "over.model:3: fc 'f': its sizes pass 2\^53" \
    "$GQ" models show over.model
printf 'name x\ninput 65536x65536x65536\nfc f out=10\n' > wide.model
"$GQ" models show wide.model --format csv > wide.csv
check "model: 65536^3 x 10 weights counted exactly" grep -q '^f,fc,2814749767106570,2814749767106560,10,' wide.csv
printf 'name x\ninput 3x224x224\nconv c out=64 k=3 k=5\n' > dup.model
expect "model: a key given twice" 1 "dup.model:3: conv 'c': key 'k' is given twice" "$GQ" models show dup.model
awk 'BEGIN { print "name deep"; print "input 1x28x28"; for (i = 0; i < 200000; i++) print "relu r" i; print "fc f out=10" }' > deep.model
timeout 60 "$GQ" models show deep.model --format csv > deep.csv
check "200,000 layers parse (no quadratic lookup)" grep -q '^TOTAL,-,7850,' deep.csv

expect "cluster spec: a key given twice" 2 "key 'gpu' is given twice" \
    "$GQ" simulate --model alexnet --platform 'cluster:gpus-per-node=4,gpu=P100,gpu=V100,intra=pcie3,inter=1gbe' --gpus 8
expect "--gpu-images-per-s 1e300" 2 "--gpu-images-per-s '1e300' must be a number in \[1e-05, 1e\+09\]" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --gpu-images-per-s 1e300
expect "--fp32-below -1" 2 "--fp32-below '-1' must be a number in \[0, 1e\+15\]" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --fp32-below -1
expect "--gpus 0" 2 "--gpus" "$GQ" simulate --model alexnet --platform dgx1 --gpus 0
expect "--lr nan: one line" 2 "--lr 'nan' must be a number in \(0, 100\]" "$GQ" train --lr nan
expect "--lr 1e30 refused" 2 "--lr '1e30'" "$GQ" train --lr 1e30
expect "--workers 1000000" 2 "--workers: 1000000 is not in 1..1024" "$GQ" train --workers 1000000
expect "--train-limit past an int" 2 "--train-limit '99999999999'" "$GQ" train --train-limit 99999999999
expect "quant bench --n 0" 2 "--n '0' must be an integer in 1..2147483648" "$GQ" quant bench --n 0

# ---- 4. outputs checked before long work ------------------------------------------------------
expect "train --output into a missing directory" 2 "--output '/nonexistent/run.csv': directory '/nonexistent' does not exist" \
    "$GQ" train --output /nonexistent/run.csv
expect "train --plot into a missing directory" 2 "directory '/nonexistent' does not exist" \
    "$GQ" train --plot /nonexistent/acc.png
expect "train --plot acc.jpg" 2 "must end in .png or .svg" "$GQ" train --plot acc.jpg
expect "train --output must be .csv" 2 "must end in .csv" "$GQ" train --output run.txt
expect "report --quant qsgd:levels=1: usage error" 2 "levels" "$GQ" report --quant qsgd:levels=1 --out rep
check "report with a bad quantizer leaves no directory" test ! -e rep
expect "report failing half-way: one line" 1 "beyond the SimGrid engine" "$GQ" report --out rep2 --gpus 1,65536 --sync ring
check "report failing half-way leaves no directory" test ! -e rep2
mkdir keep && echo mine > keep/note.txt
"$GQ" report --out keep --gpus 1,65536 --sync ring 2> /dev/null
check "report failing into a directory of yours leaves it as it was" sh -c 'test "$(ls keep)" = note.txt'
expect "quant encode --output into a missing directory" 2 "does not exist" \
    "$GQ" quant encode --quant fp32 --input nothere.f32 --output /nonexistent/x.gq

# ---- 5. exit codes and one line ---------------------------------------------------------------
expect "simulate without --model" 2 "simulate: needs --model M" "$GQ" simulate --platform dgx1 --gpus 8
expect "speedup without --platform" 2 "speedup: needs --platform P" "$GQ" speedup --model alexnet
expect "unknown --dist" 2 "--dist 'cauchy'" "$GQ" quant bench --dist cauchy
expect "unknown --network-model" 2 "--network-model: network model 'NS3' is not LV08 or CM02" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --network-model NS3
expect "platforms list takes no simulation option" 2 "platforms list: option '--engine' does not apply" \
    "$GQ" platforms list --engine analytic
printf 'name,peak\nx,1\n' > badgpu.csv
expect "a bad --gpu-file: one line (and no leak under ASan)" 1 "badgpu.csv" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --gpu-file badgpu.csv
expect "models compute with a bad --gpu-file: one line (and no leak under ASan)" 1 "badgpu.csv:1: header" \
    "$GQ" models compute --model alexnet --gpu P100 --gpu-file badgpu.csv

printf 'quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\nterngrad,cpu,1,nan,1,1,x\n' > badcost.csv
expect "a codec profile with a NaN: one line naming FILE:LINE" 1 "badcost.csv:2: encode_ns_per_element must be a number" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --quant terngrad --codec-on cpu --codec-costs badcost.csv
expect "--codec-on elsewhere" 2 "--codec-on 'fpga' is not gpu\|cpu\|none" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --codec-on fpga
expect "a missing codec profile" 1 "nothere.csv: No such file" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --codec-costs nothere.csv

# ---- 6. figures from the data ----------------------------------------------------------------
"$GQ" report --out rep --gpus 1,8 > /dev/null 2> err.txt
check "report (1 and 8 GPUs) succeeds: $(head -c 200 err.txt)" test -s rep/report.csv
for gp in rep/*.gp; do
    check "$gp carries its re-run line" grep -q '^#   gnuplot ' "$gp"
done
# the lowest speedup of the last panel (vgg-a, the last 4 blocks of the figure's data) must be on
# the chart: fp32 at 8 GPUs on 1 GbE is below the 0.5 where the y axis used to start
low=$(awk '/^# vgg-a /{ v = 1 } v && /^[0-9]/ && (m == "" || $3 + 0 < m) { m = $3 + 0 } END { print m }' \
    rep/speedup-terngrad-ethernet.dat)
ymin=$(cd rep && gnuplot -e "load 'speedup-terngrad-ethernet.gp'; print GPVAL_Y_MIN" 2>&1 | tail -1)
check "report figure shows vgg-a's lowest speedup $low on Ethernet (y from $ymin)" \
    awk -v s="$low" -v y="$ymin" 'BEGIN { exit !(s < 0.5 && y <= s) }'

# ---- 8. outputs nobody can hijack ------------------------------------------------------------------
"$GQ" quant gen --dist gaussian --n 1000 --output g.f32 --seed 1 2> err.txt
check "quant gen: the output is made ($(cat err.txt))" test -s g.f32
echo mine > victim.txt
ln -s victim.txt link.f32
expect "an output that is a symlink is refused, before any work" 2 "link.f32': is a symbolic link" \
    "$GQ" quant gen --dist gaussian --n 1000 --output link.f32 --seed 1
check "... and its target is untouched" sh -c 'test "$(cat victim.txt)" = mine && test -L link.f32'
mkfifo pipe.f32
expect "an output that is a FIFO is refused (and nothing waits on it)" 2 "pipe.f32': is a FIFO" \
    timeout 20 "$GQ" quant gen --dist gaussian --n 1000 --output pipe.f32 --seed 1
check "... and it stays a FIFO" test -p pipe.f32
if [ "$(id -u)" = 0 ] && mknod null.csv c 1 3 2> /dev/null; then # a device node of our own, never the system's
    expect "an output that is a device is refused" 2 "null.csv': is a character device" \
        "$GQ" train --epochs 1 --train-limit 256 --test-limit 64 --output null.csv --format csv
    check "... and it stays a device" test -c null.csv
    rm -f null.csv
else
    echo "hostile_test: not root or no mknod here: the device case is left to the FIFO's"
fi
ln -s victim.txt fig.png
expect "a figure named by a symlink: refused before any work" 2 "fig.png': is a symbolic link" \
    "$GQ" speedup --model alexnet --platform terngrad-ethernet --gpus 1,8 --engine analytic --plot fig.png
check "... and its target is untouched" test "$(cat victim.txt)" = mine
# the temporary's name is fresh (mkstemp, O_EXCL): none of the names the old scheme used (PATH.tmp.PID) is opened
for p in $(seq 1 40); do ln -s victim.txt "h.f32.tmp.$(( $$ + p ))"; done
"$GQ" quant gen --dist gaussian --n 1000 --output h.f32 --seed 1 2> err.txt
check "planted links at the old temporary names: the output is written ($(cat err.txt))" test -s h.f32 -a ! -L h.f32
check "... and no planted link was followed" test "$(cat victim.txt)" = mine
rm -f h.f32.tmp.*

# ---- 9. every write checked, stdout included --------------------------------------------------------
if [ -w /dev/full ]; then
    expect "a table on a full disk (/dev/full): one line, exit 1" 1 "standard output: write error: No space left" \
        sh -c '"$0" quant list > /dev/full' "$GQ"
    expect "platforms xml on a full disk: exit 1" 1 "standard output: write error" \
        sh -c '"$0" platforms xml dgx1 --nodes 4 > /dev/full' "$GQ"
    expect "simulate --format csv on a full disk, and its --plot not kept" 1 "standard output: write error" \
        sh -c '"$0" speedup --model alexnet --platform terngrad-ethernet --gpus 1,8 --engine analytic --plot full.png --format csv > /dev/full' "$GQ"
    check "... no figure kept when stdout failed" sh -c '! ls | grep -q "^full\."'
fi
expect "--dump-grads: the directory is not made when the run's checks fail" 2 "--measured-out" \
    "$GQ" train --epochs 1 --train-limit 256 --dump-grads newdumps --measured-out m.csv
check "... no newdumps directory" test ! -e newdumps
mkdir small
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=48k gqsim-hostile small 2> /dev/null; then
    expect "--dump-grads on a full disk: one line, exit 1" 1 "small/grads/.*write failed: No space left" \
        "$GQ" train --epochs 1 --train-limit 256 --test-limit 64 --dump-grads small/grads
    check "... the directory it made is gone, nothing half-written" sh -c 'test -z "$(ls -A small)"'
    expect "an output file on a full disk: one line, exit 1" 1 "small/g.f32: write failed: No space left" \
        "$GQ" quant gen --dist gaussian --n 100000 --output small/g.f32 --seed 1
    check "... nothing left on the disk" sh -c 'test -z "$(ls -A small)"'
    umount small
else
    echo "hostile_test: cannot mount a small tmpfs here (not root?): full-disk files left to /dev/full's cases"
fi

# ---- 10. out of memory is one line --------------------------------------------------------------------
if [ -z "${ASAN_OPTIONS:-}" ]; then # the sanitizers' shadow memory does not live under a small ulimit -v
    # 2^29 elements, 2 GiB of float32 (written a block at a time: one copy of the tensor in memory)
    expect "quant gen past a 1.5 GB limit: one line, exit 1" 1 "out of memory" \
        sh -c 'ulimit -v 1500000; exec "$0" quant gen --dist gaussian --n 536870912 --output big.f32 --seed 1' "$GQ"
    check "... and no file" test ! -e big.f32
    "$GQ" quant encode --quant terngrad --input g.f32 --output g.gq --seed 1 > /dev/null
    # the header claims 2^28 elements; the payload holds 1000: refused before allocating a gigabyte
    perl -e 'open F, "<", "g.gq"; binmode F; local $/; $d = <F>; substr($d, 8, 8) = pack("Q<", 1 << 28); print $d' > claim.gq
    expect "a buffer claiming 2^28 elements, under a 600 MB limit: truncated, one line" 1 "claim.gq: encoded buffer is truncated" \
        sh -c 'ulimit -v 600000; exec "$0" quant decode --input claim.gq --output claim.f32' "$GQ"
else
    echo "hostile_test: under the sanitizers: the ulimit -v cases are skipped"
fi
awk 'BEGIN { print "model,platform,gpu,batch,gpus,images_per_s"; for (i = 0; i < 10001; i++) print "alexnet,dgx1,P100,128,8,100" }' > many.csv
expect "a measured CSV past 10000 rows: refused at the row, before it holds them" 1 "many.csv:10002: more than 10000 rows" \
    "$GQ" validate --measured many.csv
"$GQ" platforms xml terngrad-ethernet --nodes 2 > two.xml
awk '/<cluster id="node1"/ && !d { print "    <cluster id=\"big\" prefix=\"big\" suffix=\"\" radical=\"0-99999999\" speed=\"1f\" bw=\"1GBps\" lat=\"0s\" sharing_policy=\"SPLITDUPLEX\"/>"; d = 1 } { print }' two.xml > radical.xml
expect "a cluster radical of 10^8 hosts: refused before SimGrid builds them" 1 "radical.xml declares 100000008 hosts, beyond the 65536" \
    timeout 30 "$GQ" simulate --model alexnet --platform radical.xml --gpus 8

# ---- 11. pipes, closed descriptors, cancellation ------------------------------------------------------
"$GQ" speedup --model alexnet --platform terngrad-ethernet --gpus 1,8 --engine analytic --plot piped.png 2> /dev/null |
    sh -c 'exec 0<&-; sleep 2'
check "a closed pipe (SIGPIPE): no figure and no temporary left" sh -c '! ls -A | grep -q "^piped\."'
"$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 8 --format csv 2>&- > closed.csv
check "stderr closed: a SimGrid run still succeeds" grep -q '^alexnet,terngrad-ethernet,8,' closed.csv
"$GQ" quant gen --dist gaussian --n 100 --output in.f32 --seed 1 <&- > /dev/null 2>&1
check "stdin closed: a file is still written" test -s in.f32
if command -v smpirun > /dev/null && [ -x "$(dirname "$GQ")/gqsim-smpi" ]; then
    for sig in TERM INT; do
        # 64 GPUs: a run of seconds (8 GPUs take 0.4 s since the engine computes sizes only, and could end
        # before the poll below saw smpirun: a race this test lost under a parallel ctest)
        "$GQ" simulate --model alexnet --platform terngrad-ethernet --gpus 64 --engine smpi --overlap off --fusion 0 \
            --sync ring > /dev/null 2>&1 &
        pid=$!
        # until smpirun's simulation is under way (its platform lies in this test's TMPDIR), at most 20 s
        for _ in $(seq 100); do pgrep -f "$TMPDIR/gqsim-sm[p]i" | grep -q . && break; sleep 0.2; done
        running=$(pgrep -f "$TMPDIR/gqsim-sm[p]i" | wc -l)
        kill -s "$sig" "$pid"
        wait "$pid" 2> /dev/null
        sleep 1
        check "smpi engine, SIG$sig: smpirun was running ($running processes)" test "$running" -gt 0
        check "smpi engine, SIG$sig: smpirun and smpimain gone with gqsim" sh -c "! pgrep -f '$TMPDIR/gqsim-sm[p]i' > /dev/null"
        check "smpi engine, SIG$sig: its directory removed" sh -c "! ls -A '$TMPDIR' | grep -q '^gqsim-smpi'"
    done
else
    echo "hostile_test: no smpirun or gqsim-smpi: the SMPI cancellation cases are skipped"
fi

# ---- 12. short and long CSV rows are errors, in every CSV reader ---------------------------------------
printf 'bytes,one_way_s\n1,2.5e-05\n1024\n' > pp.csv
expect "a ping-pong row one field short" 1 "pp.csv:3: 1 field where the header has 2" \
    "$GQ" platforms calibrate terngrad-ethernet --pingpong pp.csv
printf 'bytes,one_way_s\n1,2.5e-05,7\n' > pp2.csv
expect "a ping-pong row one field long" 1 "pp2.csv:2: 3 fields where the header has 2" \
    "$GQ" platforms calibrate terngrad-ethernet --pingpong pp2.csv
printf 'quant,epoch,accuracy\nfp32,1,0.5\nfp32,2\n' > curve.csv
expect "an accuracy-curve row one field short" 1 "curve.csv:3: 2 fields where the header has 3" \
    "$GQ" tta --model lenet5 --platform roce25 --gpus 4 --target 0.8 --accuracy-curve curve.csv --dataset-size 12000
printf 'gpu,peak_fp32_tflops,mem_bw_gbs,source\nMine,30,1200\n' > shortgpu.csv
expect "a --gpu-file row one field short" 1 "shortgpu.csv:2: 3 fields where the header has 4" \
    "$GQ" models compute --model alexnet --gpu Mine --gpu-file shortgpu.csv
printf 'gpu,peak_fp32_tflops,mem_bw_gbs,source\n"Mine, rev 2",30,1200,"ours, measured"\n' > quotedgpu.csv
"$GQ" models compute --model alexnet --gpu 'Mine, rev 2' --gpu-file quotedgpu.csv --format csv > qg.csv 2> err.txt
check "a --gpu-file with quoted commas reads as RFC 4180 ($(cat err.txt))" grep -q '^alexnet,"Mine, rev 2",' qg.csv
printf 'quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\nterngrad,cpu,1,1,1\n' > shortcost.csv
expect "a codec-profile row one field short" 1 "shortcost.csv:2: 5 fields where the header has 7" \
    "$GQ" simulate --model alexnet --platform dgx1 --gpus 8 --quant terngrad --codec-on cpu --codec-costs shortcost.csv

# ---- 13. MPI ranks that disagree end in seconds -------------------------------------------------------------
if command -v mpirun > /dev/null && ! "$GQ" train --mpi --epochs 1 --train-limit 64 2>&1 | grep -q 'built without MPI'; then
    M="--allow-run-as-root --oversubscribe --mca btl tcp,self --mca pml ob1 --mca osc ^ucx --mca mpi_yield_when_idle 1 --mca rtc ^hwloc"
    T="--epochs 1 --test-limit 64" # each option once: a second --train-limit would be refused before MPI starts
    for what in "--train-limit 512 --quant fp32:--train-limit 512 --quant terngrad" "--train-limit 512:--train-limit 256" \
        "--train-limit 512 --seed 1:--train-limit 512 --seed 2"; do
        a=${what%%:*} b=${what#*:}
        # shellcheck disable=SC2086
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 60 mpirun $M -np 1 "$GQ" train --mpi $T $a : \
            -np 1 "$GQ" train --mpi $T $b > mpi.out 2> mpi.err
        rc=$?
        opt=$(echo "$a" | awk '{ print $(NF - 1) }') # the option that differs: the last given
        check "ranks started with $a and $b: the job ends, not a hang (exit $rc)" sh -c "test $rc -ne 0 && test $rc -ne 124"
        check "... every rank says which setting differs" \
            test "$(grep -c "rank 1 was started with another $opt than rank 0" mpi.err)" -eq 2
    done
    # a rank killed mid-run (SIGKILL: no handler runs) still ends the job: the other is not left waiting
    # shellcheck disable=SC2086
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 120 mpirun $M -np 2 "$GQ" train --mpi --epochs 100 \
        --train-limit 8192 --test-limit 64 --seed 4242 > mpi.out 2> mpi.err &
    job=$!
    ranks="^$GQ train --mpi --epochs 100 --train-limit 8192 --test-limit 64 --seed 424[2]" # not mpirun's own line
    for _ in $(seq 100); do [ "$(pgrep -f "$ranks" | wc -l)" -ge 2 ] && break; sleep 0.2; done
    sleep 1
    victim=$(pgrep -f "$ranks" | tail -1)
    kill -9 "${victim:-0}" 2> /dev/null
    wait "$job"
    rc=$?
    check "a rank killed mid-run ends the job (exit $rc, not a timeout)" sh -c "test -n '$victim' && test $rc -ne 0 && test $rc -ne 124"
    check "... and no rank is left running" sh -c "! pgrep -f '$ranks' > /dev/null"
else
    echo "hostile_test: no mpirun, or gqsim without MPI: the rank-agreement cases are skipped"
fi

# ---- 14. physical ranges ----------------------------------------------------------------------------------
expect "a link of 1e-300 Gb/s" 2 "inter=1e-300gbe is not .*between 1 kbit/s and 100 Tbit/s" \
    "$GQ" simulate --model alexnet --platform 'cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=1e-300gbe' --gpus 2
expect "a link of 1e6 Gb/s (past 100 Tbit/s)" 2 "inter=1e6gbe is not" \
    "$GQ" simulate --model alexnet --platform 'cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=1e6gbe' --gpus 2
sed '0,/latency="[^"]*"/s//latency="-1s"/' two.xml > neglat.xml
expect "a negative latency in a platform XML" 1 "neglat.xml:[0-9]+: latency '-1s': a latency must be between 0 and 3600 s" \
    "$GQ" simulate --model alexnet --platform neglat.xml --gpus 8
sed '0,/latency="[^"]*"/s//latency="2h"/' two.xml > hour.xml
expect "a latency of two hours" 1 "hour.xml:[0-9]+: latency '2h'" "$GQ" simulate --model alexnet --platform hour.xml --gpus 8
sed '0,/bandwidth="[^"]*"/s//bandwidth="100bps"/' two.xml > slow.xml
expect "a link of 100 bit/s" 1 "slow.xml:[0-9]+: bandwidth '100bps': a link rate must be between 1 kbit/s" \
    "$GQ" simulate --model alexnet --platform slow.xml --gpus 8
printf 'bytes,one_way_s\n1,7200\n' > slowpp.csv
expect "a ping-pong of two hours one way" 1 "slowpp.csv:2: bytes must be between 1 byte and 1e12 bytes and one_way_s a time between 0 and 3600 s" \
    "$GQ" platforms calibrate terngrad-ethernet --pingpong slowpp.csv

# ---- 7. interrupted: no process and no temporary left ---------------------------------------------
for sig in TERM INT; do
    "$GQ" speedup --model alexnet --platform terngrad-ethernet --sync ps --gpus 1,8192 --plot cut.png > /dev/null 2>&1 &
    pid=$!
    sleep 3
    child=$(pgrep -P "$pid" | head -1) # the SimGrid run, a forked gqsim
    kill -s "$sig" "$pid"
    wait "$pid" 2> /dev/null
    rc=$?
    sleep 1
    check "SIG$sig: gqsim ended by the signal (exit $rc)" test "$rc" -gt 128
    check "SIG$sig: the SimGrid child was running" test -n "$child"
    # dead: gone, or a zombie where this machine's init does not reap orphans
    state=$(ps -o stat= -p "${child:-0}" 2> /dev/null)
    check "SIG$sig: the SimGrid child did not outlive gqsim (state '$state')" sh -c "case '$state' in ''|Z*) ;; *) exit 1 ;; esac"
    check "SIG$sig: no output or temporary left" sh -c "! ls -A | grep -q 'cut\.'"
done
check "no temporary left in this test's TMPDIR ($(ls -A "$TMPDIR" | head -3))" sh -c "! ls -A '$TMPDIR' | grep -q '^gqsim'"

finish
