# voidfit verdict --resamples: both answers on block resamples of the trace, the same for
# every policy. The same seed gives the same table; the interval is the percentiles of the
# resamples' answers (computed here in awk from the answers the JSON lists); a zero-width
# interval is said to be deterministic on this trace; the give-up test changes no answer (a
# hand-built trace, the bundled one and a real sample, with and without --no-give-up), nor
# do the threads (the bundled trace and a real sample on 1 and 2); on a real sample the
# interval has a width.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v jq >/dev/null 2>&1 || skip "jq is not installed"
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o s.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import s failed"

# reproducible: the same resamples give the same table, byte for byte
expect_rc 0 vf verdict s.db -p packing,fgd --resamples 4 --threads 2 -f json
cp out v1.json
contains err "probe replays stopped early"
expect_rc 0 vf verdict s.db -p packing,fgd --resamples 4 --threads 2 -f json
cmp -s out v1.json || die "the same resamples gave another verdict"
# and on one thread: the size search's extra threads only run ahead what one thread's
# search would ask for (the purchase that fgd defers was another on 2 threads)
expect_rc 0 vf verdict s.db -p packing,fgd --resamples 4 --threads 1 -f json
cmp -s out v1.json || die "1 and 2 threads gave another verdict: $(diff v1.json out)"
jq -e '[.rows[] | .resamples == 4 and .block_s == 3600 and .interval_level == 0.9] | all' \
	v1.json >/dev/null || die "resamples, block, level: $(cat v1.json)"

# the interval: Hyndman and Fan's type 7 quantiles 0.05 and 0.95 of the resamples' answers
check_interval() { # FIELD: the answers' label and the _lo/_hi columns' stem
	jq -r ".rows[] | [.policy, .${1}_lo, .${1}_hi, .${2}] | @tsv" v1.json |
		awk -F'\t' '
		function q(p,   h, f) { h = 1 + (n - 1) * p; f = int(h)
			return f >= n ? x[n] : x[f] + (h - f) * (x[f + 1] - x[f]) }
		{ n = split($4, x, " ")
		  for (i = 2; i <= n; i++) { v = x[i]; for (j = i - 1; j >= 1 && x[j] > v; j--)
			x[j + 1] = x[j]; x[j + 1] = v }
		  lo = q(0.05); hi = q(0.95); rows++
		  if ((lo - $2) ^ 2 > 1e-6 * (1 + lo ^ 2) || (hi - $3) ^ 2 > 1e-6 * (1 + hi ^ 2)) {
			print $1 ": want " lo ".." hi ", got " $2 ".." $3; bad = 1 } }
		END { exit bad || rows != 3 }' >msg || die "$1: $(cat msg)"
}
check_interval usd_per_year usd_per_year_resamples
check_interval headroom headroom_resamples
jq -e '[.rows[] | select(.policy == "packing") | .usd_per_year_lo < .usd_per_year_hi] | all' \
	v1.json >/dev/null || die "packing's saving has no width on storage-stress"

# the sentence carries the interval, its level, the resamples and the window
expect_rc 0 vf verdict s.db -p packing --resamples 4 --threads 2 --no-headroom
lo=$(jq -r '.rows[] | select(.policy == "packing") | .usd_per_year_lo' v1.json)
hi=$(jq -r '.rows[] | select(.policy == "packing") | .usd_per_year_hi' v1.json)
want=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "90 %% interval $%.1f-%.1f M over 4 hour-resamples of 34 h of trace", a / 1e6, b / 1e6 }')
contains out "$want"
! grep -q "no resample interval" out || die "resamples, and 'no resample interval'"
# the trace's own figure is said to lie above or below its interval exactly when, as shown
# ($ in tenths of a million), it does
x=$(jq -r '.rows[] | select(.policy == "packing") | .usd_per_year' v1.json)
side=$(awk -v x="$x" -v a="$lo" -v b="$hi" 'BEGIN {
	s = sprintf("%.1f", x / 1e6)
	if (x > b && s != sprintf("%.1f", b / 1e6)) print "above"
	else if (x < a && s != sprintf("%.1f", a / 1e6)) print "below"
	else print "inside" }')
if [ "$side" = inside ]; then
	! grep -q "the trace as traced" out || die "an inside figure said outside: $(cat out)"
else
	contains out "; the trace as traced, \$$(awk -v x="$x" 'BEGIN { printf "%.1f", x / 1e6 }') M, lies $side it"
fi

# zero width: four one-A100 nodes, every policy needs the same on every resample
nodes() {
	echo "node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli"
	for i in 0 1 2 3; do echo "n$i,a,A100,16000,65536,1,40960,1000,1000,1000"; done
}
job() { echo "$1,$2,$3,train,1000,1024,1,1000,,,,,"; }
mkdir a && nodes >a/nodes.csv
{
	echo "job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec"
	job j1 0 1000; job j2 0 1000; job j3 2000 1000; job j4 2000 1000
} >a/jobs.csv
vf import -o a.db a/jobs.csv a/nodes.csv >/dev/null 2>&1 || die "import a failed"
expect_rc 0 vf verdict a.db -p fgd --no-headroom --resamples 3 -f json
jq -r '.rows[] | select(.policy == "fgd") | .sentence' out >s.txt
contains s.txt "no saving (deterministic on this trace: each of 3 resamples of 4.2 min blocks of 33.3 min of trace gives the same"
! grep -q "interval \$0-0" s.txt || die "a zero-width interval: $(cat s.txt)"

# the give-up test: the same verdict without it
expect_rc 0 vf verdict a.db -p fgd,best-fit --slo 'wait_p95<=1000' --threads 2
cp out a1
expect_rc 0 vf verdict a.db -p fgd,best-fit --slo 'wait_p95<=1000' --threads 2 --no-give-up
cmp -s out a1 || die "hand-built: another verdict without giving up: $(diff a1 out)"
expect_rc 0 vf verdict s.db --threads 2
cp out s1
contains err "probe replays stopped early"
expect_rc 0 vf verdict s.db --threads 2 --no-give-up
cmp -s out s1 || die "storage-stress: another verdict without giving up: $(diff s1 out)"
! grep -q "stopped early" err || die "--no-give-up gave up"

# the options
expect_rc 2 vf verdict s.db --resamples 2 --mode inflate --slo 'unallocated_gpu_share<=0.1'
contains err "timed mode only"
expect_rc 2 vf verdict s.db --block 1h
contains err "--block is for --resamples"
expect_rc 2 vf verdict s.db -f pdf
contains err "--format 'pdf': not text, json, csv or md"

# a real sample: openb's GPU nodes, fgd against scalar over 3 day-resamples
[ -n "${VOIDFIT_TRACES:-}" ] || exit 0
v23=$VOIDFIT_TRACES/clusterdata/cluster-trace-gpu-v2023/csv
[ -f "$v23/openb_pod_list_default.csv" ] || exit 0
vf import -o o.db "$v23/openb_pod_list_default.csv" "$v23/openb_node_list_gpu_node.csv" \
	>/dev/null 2>&1 || die "openb import failed"
expect_rc 0 vf verdict o.db -p fgd --no-headroom --resamples 3 --threads 2 -f json
jq -e '.rows[] | select(.policy == "fgd") | .usd_per_year_lo < .usd_per_year_hi' out \
	>/dev/null || die "openb: the saving's interval has no width: $(cat out)"
cp out o3
expect_rc 0 vf verdict o.db -p fgd --no-headroom --resamples 3 --threads 1 -f json
cmp -s out o3 || die "openb: 1 and 2 threads gave another verdict: $(diff o3 out)"
expect_rc 0 vf verdict o.db -p fgd --no-headroom --threads 2
cp out o1
expect_rc 0 vf verdict o.db -p fgd --no-headroom --threads 2 --no-give-up
cmp -s out o1 || die "openb: another verdict without giving up: $(diff o1 out)"
