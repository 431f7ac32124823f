# info: traces, files with their counts, nodes and GPUs by model, jobs by class, sizes;
# --json has the promised keys with the right numbers.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
vf import -o t.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"
njobs=$(($(wc -l < "$tr/jobs.csv") - 1))
nnodes=$(($(wc -l < "$tr/nodes.csv") - 1))
ngpus=$(tail -n +2 "$tr/nodes.csv" | awk -F, '{ s += $6 } END { print s }')
ninfer=$(tail -n +2 "$tr/jobs.csv" | awk -F, '$4 == "infer"' | wc -l)

expect_rc 0 vf info t.db
contains out "1 trace"
contains out "file jobs.csv: format"
contains out "rows read $njobs, accepted $njobs, quarantined 0"
contains out "nodes $nnodes, GPUs $ngpus"
contains out "jobs $njobs: infer $ninfer,"
contains out "ratio"

expect_rc 0 vf info --json t.db
for k in traces files nodes gpus jobs store_bytes raw_bytes rows_read rows_accepted \
	rows_quarantined name; do
	contains out "\"$k\":"
done
contains out "\"jobs\": $njobs,"
contains out "\"nodes\": $nnodes,"
contains out "\"gpus\": $ngpus,"
size=$(wc -c < t.db)
contains out "\"store_bytes\": $size,"
raw=$(($(wc -c < "$tr/jobs.csv") + $(wc -c < "$tr/nodes.csv")))
contains out "\"raw_bytes\": $raw,"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq '.files | length' out)" -eq 2 ] || die "want 2 files"
	[ "$(jq '.traces[0].jobs_by_class.infer' out)" -eq "$ninfer" ] || die "infer count"
fi

expect_rc 2 vf info
expect_rc 1 vf info missing.db
echo junk > junk.db
expect_rc 1 vf info junk.db
contains err "not a voidfit store"
