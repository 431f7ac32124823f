# fgd-pack's goal (voidfit.7, Validation against the FGD paper): on the default trace and on
# each of the four variants scripts/validate-fgd.sh builds, fgd-pack (exact scores) leaves
# fewer GPUs unallocated at 100 % load than the FGD artifact's fgd (k8s scoring), and fewer
# than the best baseline where that is not fgd: the 95 % interval of the difference, paired
# by seed over seeds 42-51, lies below 0.
. "$VOIDFIT_TOP/tests/lib.sh"
need_traces
csv=$VOIDFIT_TRACES/clusterdata/cluster-trace-gpu-v2023/csv
[ -f "$csv/openb_pod_list_default.csv" ] && [ -f "$csv/openb_node_list_gpu_node.csv" ] ||
	skip "the openb samples are absent"
FGD_WORK=$PWD/work sh "$VOIDFIT_TOP/scripts/validate-fgd.sh" "$(dirname "$VOIDFIT")" >out 2>err ||
	{ cat err >&2; die "validate-fgd.sh failed"; }
for v in default cpu share spec multi; do
	sed -n "/^$v:/,/lowest k8s baseline/p" out >table
	best=$(sed -n 's/^  lowest k8s baseline: k8s //p' table)
	[ -n "$best" ] || { cat out >&2; die "$v: no table"; }
	sed -n "/^$v:/,/^[a-z]*:/p" out | grep 'fgd-pack - ' >diffs || die "$v: no paired difference"
	grep -q "fgd-pack - k8s fgd: .*paired by seed: lower" diffs ||
		{ cat diffs >&2; die "$v: fgd-pack is not below the artifact's fgd"; }
	[ "$best" = fgd ] || grep -q "fgd-pack - k8s $best: .*paired by seed: lower" diffs ||
		{ cat diffs >&2; die "$v: fgd-pack is not below $best, the best baseline"; }
done
