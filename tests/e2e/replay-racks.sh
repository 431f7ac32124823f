# replay-racks: nodes under racks (a native node list's rack column) are stored and
# exported with them; a gang that no rack can hold spans two and runs
# --cross-switch-slowdown times slower, its extra GPU time stalled, while one that a rack
# holds is kept there; the same trace without racks is not slowed, and a slowdown of 1 keeps
# the scenario's key.
. "$VOIDFIT_TOP/tests/lib.sh"

cat >nodes.csv <<'CSV'
node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli,rack
n0,,A100,64000,1048576,8,,1000,1000,8000,r0
n1,,A100,64000,1048576,8,,1000,1000,8000,r0
n2,,A100,64000,1048576,8,,1000,1000,8000,r1
n3,,A100,64000,1048576,8,,1000,1000,8000,r1
CSV
# big: 3 workers of 8 GPUs, more than a rack holds; pair: 2, under one rack
cat >jobs.csv <<'CSV'
job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec,workers
big,0,3600,train,1000,1024,8,1000,,0,0,0,,3
pair,7200,3600,train,1000,1024,8,1000,,0,0,0,,2
tail,20000,60,batch,1000,1024,1,1000,,0,0,0,,
CSV
vf import -o r.db jobs.csv nodes.csv >/dev/null || die "import"
expect_rc 0 vf export r.db --nodes
contains out "iocpu_milli,rack"
contains out "n3,,A100,64000,1048576,8,40960,1000,1000,8000,r1"
if command -v sqlite3 >/dev/null 2>&1; then
	[ "$(sqlite3 r.db 'PRAGMA user_version')" -ge 10 ] || die "racks stored below schema 10"
fi
expect_rc 0 vf check r.db

# stalled GPU-h: big spans, 24 GPUs x 1 h x (F - 1); pair is under r0 or r1, not slowed
col() { awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c[k] }' "$1"; }
for f in 1 2 3.5; do
	expect_rc 0 vf replay r.db --policy first-fit,fgd --no-store --format csv \
		--cross-switch-slowdown $f
	want=$(awk -v f=$f 'BEGIN { printf "%.1f\n%.1f\n", 24 * (f - 1), 24 * (f - 1) }')
	[ "$(col out stalled_gpu_hours)" = "$want" ] ||
		die "F $f: stalled $(col out stalled_gpu_hours), want $want"
done

# the same trace without racks: nothing spans a switch, nothing is slowed
cut -d, -f1-10 nodes.csv >flat.csv
vf import -o flat.db jobs.csv flat.csv >/dev/null || die "import flat"
expect_rc 0 vf export flat.db --nodes
grep -q rack out && die "a rackless export has a rack column"
expect_rc 0 vf replay flat.db --policy first-fit --no-store --format csv \
	--cross-switch-slowdown 2
[ "$(col out stalled_gpu_hours)" = "0.0" ] || die "rackless trace slowed"

# 1 is the default: no scenario of its own; another factor is one
expect_rc 0 vf replay r.db --policy first-fit
expect_rc 0 vf replay r.db --policy first-fit --cross-switch-slowdown 1
expect_rc 0 vf replay r.db --policy first-fit --cross-switch-slowdown 2
expect_rc 0 vf runs r.db --json
contains out '"id": 2,'
grep -q '"id": 3,' out && die "--cross-switch-slowdown 1 made a scenario of its own"
expect_rc 2 vf replay r.db --policy first-fit --cross-switch-slowdown 0.5 --no-store
contains err "cross-switch-slowdown"

# a mapping's rack target: Google 2019 machine events name the switch switch_id
cat >g2019.map <<'MAP'
kind nodes
node machine_id
rack switch_id
cpu cpus 1000
mem memory GiB
MAP
printf 'machine_id,switch_id,cpus,memory\n7,sw-a,32,128\n8,sw-b,32,128\n' >machines.csv
expect_rc 0 vf import -o m.db jobs.csv --format generic:./g2019.map machines.csv
expect_rc 0 vf export m.db --nodes
contains out "7,,,32000,131072,0,0,,,,sw-a"
contains out "8,,,32000,131072,0,0,,,,sw-b"
exit 0
