# size and verdict in inflation mode ask every cluster they try today's demand (the target
# times today's GPU capacity), not a demand in proportion to its own size, which loaded every
# size alike and retired nearly every GPU. On 4 one-A100 nodes and jobs of one whole GPU that
# never leave (inflation has no departures), target T draws ceil(4 T) jobs whatever the size:
# the smallest cluster that fails no more than the full one keeps min(ceil(4 T), 4) nodes,
# and the headroom is the largest growth step g with ceil(4 T (1 + g)) <= 4, both worked
# out here in awk.
. "$VOIDFIT_TOP/tests/lib.sh"
{
	echo "node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli"
	for i in 0 1 2 3; do echo "n$i,a,A100,16000,65536,1,40960,1000,1000,1000"; done
} >nodes.csv
{
	echo "job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec"
	for j in 1 2 3 4 5 6; do echo "j$j,$((j * 10)),1000,train,1000,1024,1,1000,,,,,"; done
} >jobs.csv
vf import -o t.db jobs.csv nodes.csv >/dev/null 2>&1 || die "import failed"

# draws T G: the jobs drawn at target T on G GPUs' capacity (1000 milli each)
draws() { awk -v t="$1" -v g="$2" 'BEGIN { n = 0; while (n * 1000 < t * g * 1000 - 1e-6) n++; print n }'; }
for t in 0.5 0.75 1 2; do
	n=$(draws $t 4)
	[ "$n" -le 4 ] || n=4 # all 4 nodes fail no more draws than the full cluster
	expect_rc 0 vf size t.db --policy fgd,packing --mode inflate --target $t \
		--slo 'unallocated_gpu_share<=1' --no-store
	for p in fgd packing; do
		awk -v p=$p -v w="$n" '$1 == p && $2 == w { ok = 1 } END { exit !ok }' out ||
			die "size at target $t: $p should keep $n nodes: $(cat out)"
	done
done

# the verdict: the baseline's failed draws today (none) are the SLO; the headroom
t=0.75
keep=$(draws $t 4)
head=$(awk -v t=$t 'BEGIN { h = -1; for (k = 0; k <= 50; k++) { n = 0
		while (n * 1000 < t * 4 * (1 + 0.02 * k) * 1000 - 1e-6) n++
		if (n > 4) break; h = 2 * k } printf "%d%%", h }')
expect_rc 0 vf verdict t.db -p fgd,packing --mode inflate --target $t --threads 2
contains out "No policy keeps no failed draw (the baseline's service today) on fewer GPUs than scalar: it needs $keep of today's 4 GPUs"
contains out "service measured on draws of 75 % of today's GPU capacity"
for p in scalar fgd packing; do
	awk -v p=$p -v k="$keep" -v h="$head" '$1 == p && $2 == k && $5 == h { ok = 1 } END { exit !ok }' out ||
		die "$p: want $keep GPUs and headroom $head: $(cat out)"
done

# an --slo that does not bound the failed draws gets the baseline's: no smaller cluster
# than ceil(4 T) nodes then, though a share-based SLO alone holds on one node
expect_rc 0 vf verdict t.db -p fgd --mode inflate --target $t --slo 'unallocated_gpu_share<=1' --no-headroom
contains out "No policy keeps unallocated_gpu_share<=1 and no failed draw (--slo) on fewer GPUs than scalar: it needs $keep of today's 4 GPUs"

# at target 2 the draws outnumber the trace's jobs, and a probe of the verdict gives up
# early on its failed draws (that once read past its per-job flags): the full cluster fails
# all draws past 4, and no smaller one fails as few
f=$(($(draws 2 4) - 4))
expect_rc 0 vf verdict t.db -p fgd --mode inflate --target 2 --no-headroom --threads 2
contains out "No policy keeps no more than $f failed draws (the baseline's service today) on fewer GPUs than scalar: it needs 4 of today's 4 GPUs"

# the bundled trace at 0.8: a leader that retires GPUs, and a purchase inside the clusters
# searched (the baseline fails draws that fit no node at any size, in proportion to the
# demand: held to a fixed count, its purchase was every copy of every node)
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o s.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import s failed"
expect_rc 0 vf verdict s.db --mode inflate --target 0.8 --threads 2 -f json
grep -q '"sentence": "Switching scalar -> .* keeps no more than [0-9]* failed draws with ' out ||
	die "no saving at the baseline's failed draws: $(cat out)"
awk '$1 == "\"policy\":" { p = $2 } $1 == "\"buy_gpus\":" { gsub(/[^0-9]/, "", $2)
	if ($2 != "" && $2 + 0 > 0) { n++; if ($2 + 0 >= 384) bad = bad " " p $2 } }
	END { if (!n) print "no purchase"; if (bad != "") print "purchases of every copy:" bad
		exit !(n && bad == "") }' out || die "purchases: $(cat out)"
# size keeps its own rule there: at the target the demo's cluster fills, nothing retires
expect_rc 0 vf size s.db --policy fgd --mode inflate --slo 'unallocated_gpu_share<=0.2' --no-store
awk '$1 == "fgd" && $6 == 0 { ok = 1 } END { exit !ok }' out ||
	die "size at 1.3: fgd should retire nothing: $(cat out)"
echo ok
