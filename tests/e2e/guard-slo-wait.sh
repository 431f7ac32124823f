# An SLO that bounds no wait, in a timed replay, sizes nothing: a smaller cluster only
# queues the same jobs longer (on the bundled trace, 'unplaceable_jobs<=0' alone retires
# all but a few nodes). size warns first on stderr and in its notes and marks no figure
# best; verdict's sentence begins with the warning; an SLO with a wait bound, and
# inflation (no queue), are not warned.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o s.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"
w="WARNING: the SLO bounds no wait"

expect_rc 0 vf size s.db --policy fgd,packing --slo 'unplaceable_jobs<=0' --no-store
head -1 err | grep -q "^voidfit size: $w" || { cat err >&2; die "size: no warning first"; }
grep -q "^$w" out || die "size: no warning in the notes: $(cat out)"
if grep -q '\*' out; then cat out >&2; die "size marked a figure best"; fi
# the trap it guards: nearly every GPU retired
awk '$1 == "fgd" && $6 > 300 { ok = 1 } END { exit !ok }' out ||
	die "want fgd to retire most of the 384 GPUs here: $(cat out)"
expect_rc 0 vf size s.db --policy fgd --slo 'unplaceable_jobs<=0' --no-store --format json
grep -q "$w" out || die "size: no warning in JSON"

for slo in 'wait_p95<=6h' 'slowdown_mean<=3' 'carried_over_jobs<=full' 'wait_p95>=1s,jct_mean<=1d'; do
	expect_rc 0 vf size s.db --policy fgd --slo "$slo" --no-store
	if grep -q "$w" out err; then die "size at $slo: warned"; fi
done
# a lower bound on a wait bounds nothing
expect_rc 0 vf size s.db --policy fgd --slo 'wait_p95>=1s' --no-store
contains err "$w"

expect_rc 0 vf verdict s.db -p fgd --slo 'unplaceable_jobs<=0' --no-headroom --threads 2
head -1 out | grep -q "^$w" || { cat out >&2; die "verdict: no warning first"; }
expect_rc 0 vf verdict s.db -p fgd --no-headroom --threads 2
if grep -q "$w" out; then die "verdict at the default SLO: warned"; fi

expect_rc 0 vf size s.db --policy fgd --mode inflate --target 0.8 \
	--slo 'unallocated_gpu_share<=0.3' --no-store
if grep -q "$w" out err; then die "size in inflation: warned"; fi
echo ok
