# io-admission: on a node whose storage the first job takes, ragp7 (admission on sto and
# iocpu by default) holds the second job back and nothing stalls; scalar, and ragp7 with
# '--io-admission off', start it at once and both jobs stall; the choice is recorded with
# the scenario; a bad value is a usage error.
. "$VOIDFIT_TOP/tests/lib.sh"
cat >jobs.csv <<'CSV'
job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec
a,0,10000,train,1000,1024,1,1000,,10,1000,500,
b,1,10000,train,1000,1024,1,1000,,10,1000,500,
CSV
cat >nodes.csv <<'CSV'
node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
n0,g,T4,16000,65536,2,32768,3000,1000,8000
CSV
vf import -o t.db jobs.csv nodes.csv >/dev/null
# stalled GPU-h and slowdown of the one run of policy $1 (more options after it)
row() {
	p=$1
	shift
	vf replay t.db --policy "$p" --window 0..30000 --no-store --format csv "$@" >r.csv
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NR == 2 { print $c["stalled_gpu_hours"], $c["slowdown_mean"] }' r.csv
}
# both at rate 1/2 from second 1: 9,999 s stalled each, 19,998 GPU-s = 5.55 GPU-h
set -- $(row ragp7)
awk -v s="$1" -v d="$2" 'BEGIN { exit !(s == 0 && d == 1) }' || die "ragp7 stalled $1, slowdown $2"
set -- $(row scalar)
awk -v s="$1" 'BEGIN { exit !(s >= 5.5 && s <= 5.6) }' || die "scalar stalled $1, wanted 5.55"
set -- $(row ragp7 --io-admission off)
awk -v s="$1" 'BEGIN { exit !(s >= 5.5 && s <= 5.6) }' || die "ragp7 off stalled $1"
# recorded: the two runs are two scenarios, each with its one run
vf replay t.db --policy ragp7 --io-admission off >/dev/null
vf replay t.db --policy ragp7 >/dev/null
for id in 1 2; do
	vf compare t.db --scenario $id --format csv >c$id.csv || die "no scenario $id"
	[ "$(grep -c '^ragp7' c$id.csv)" -ge 1 ] || die "scenario $id lacks its run"
done
expect_rc 2 vf replay t.db --policy ragp7 --io-admission maybe
contains err "--io-admission 'maybe': want on or off"
