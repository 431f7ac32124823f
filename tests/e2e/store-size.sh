# The store after importing a sample (its bytes kept losslessly, its jobs, provenance), less
# its empty tables, is smaller than 'xz -9e' of the sample, and gives it back byte for byte.
# The xz sizes were measured once with xz 5.4 ('xz -9e -c FILE | wc -c'): running xz here
# would take 30 s.
. "$VOIDFIT_TOP/tests/lib.sh"
need_traces
for rel in clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv:79788 \
	clusterdata/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv:164360; do
	f=$VOIDFIT_TRACES/${rel%:*}
	xzsize=${rel#*:}
	rm -f s.db
	vf import -q -o s.db "$f" >/dev/null 2>&1 || die "import $f failed"
	size=$(wc -c < s.db)
	# less the empty tables' root pages (1 KiB each): what a later migration's tables
	# cost before they hold anything is not what the store's coding costs
	if command -v sqlite3 >/dev/null 2>&1; then
		size=$((size - $(sqlite3 s.db "SELECT count(*) * 1024 FROM (SELECT name FROM dbstat
			GROUP BY name HAVING sum(ncell) = 0)")))
	fi
	echo "$(basename "$f"): store $size bytes (empty tables left out), xz -9e $xzsize bytes"
	[ "$size" -lt "$xzsize" ] || die "$(basename "$f"): store $size >= xz -9e $xzsize"
	rm -rf d
	vf export --raw -d d s.db >/dev/null
	cmp "d/$(basename "$f")" "$f" || die "$f differs after export --raw"
done
