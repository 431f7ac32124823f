# The store after importing a sample (its bytes kept losslessly, its jobs, provenance), its
# schema and empty tables included, is smaller than 'xz -9e' of the sample (a store of a
# small import has 512-byte pages: store.c, compact_small), and gives it back byte for byte.
# The xz sizes were measured once with xz 5.4 ('xz -9e -c FILE | wc -c'): running xz here
# would take 30 s. The bound is in thousandths of the xz size.
. "$VOIDFIT_TOP/tests/lib.sh"
need_traces
for rel in clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv:79788:800 \
	clusterdata/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv:164360:800 \
	Workload-Prediction-of-Alibaba-Cluster-Dataset/batch_task.csv:487300:1000; do
	bound=${rel##*:}
	rel=${rel%:*}
	f=$VOIDFIT_TRACES/${rel%:*}
	xzsize=${rel#*:}
	rm -f s.db
	vf import -q -o s.db "$f" >/dev/null 2>&1 || die "import $f failed"
	size=$(wc -c < s.db)
	echo "$(basename "$f"): store $size bytes, xz -9e $xzsize bytes," \
		"$((size * 1000 / xzsize))/1000 (at most $bound)"
	[ $((size * 1000)) -le $((xzsize * bound)) ] ||
		die "$(basename "$f"): store $size > $bound/1000 of xz -9e $xzsize"
	rm -rf d
	vf export --raw -d d s.db >/dev/null
	cmp "d/$(basename "$f")" "$f" || die "$f differs after export --raw"
done
# The pod list with its node list, at most 0.8 of xz -9e of the two (the nodes in blocks by
# type, their numbered names as numbers: as a table row each, they were most of this store,
# 2.2 times xz; as blocks of their columns, 0.84); a store that grows past a small import
# keeps its 512-byte pages and checks clean.
v23=$VOIDFIT_TRACES/clusterdata/cluster-trace-gpu-v2023/csv
rm -f s.db
vf import -q -o s.db "$v23/openb_pod_list_default.csv" "$v23/openb_node_list_all_node.csv" \
	>/dev/null 2>&1 || die "import of the openb pods and nodes failed"
size=$(wc -c < s.db)
echo "openb pods and nodes: store $size bytes, xz -9e 79788 + 2892 bytes," \
	"$((size * 1000 / 82680))/1000 (at most 800)"
[ $((size * 1000)) -le $((82680 * 800)) ] ||
	die "openb pods and nodes: store $size > 800/1000 of xz -9e 82680"
vf replay s.db --policy first-fit,fgd --mode inflate --target 0.3 >/dev/null 2>&1 ||
	die "replay on the small store failed"
expect_rc 0 vf check s.db
