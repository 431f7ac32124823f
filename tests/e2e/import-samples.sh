# import-samples.sh — import every real trace sample (plain, .gz, .zst), check the counts,
# and export --raw each file back byte for byte.
. "$VOIDFIT_TOP/tests/lib.sh"
need_traces
T=$VOIDFIT_TRACES
v23=$T/clusterdata/cluster-trace-gpu-v2023/csv
dlrm=$T/clusterdata/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv
pai=$T/clusterdata-cluster-trace-gpu-v2020-data/pai_machine_spec.csv
ali=$T/Workload-Prediction-of-Alibaba-Cluster-Dataset/batch_task.csv

# openb pods with the GPU node list named by --nodes: one trace
expect_rc 0 vf import -o s.db "$v23/openb_pod_list_default.csv" --nodes "$v23/openb_node_list_gpu_node.csv"
contains out "openb_pod_list_default.csv: openb-pods, 8152 rows read, 8152 accepted, 0 quarantined"
contains out "openb_node_list_gpu_node.csv: openb-nodes, 1213 rows read, 1213 accepted, 0 quarantined"
contains out "trace 'openb_pod_list_default' (id 1)"
contains out "8152 jobs, 1213 nodes"
# the all-node list is recognised by its header alone
expect_rc 0 vf import -o s.db "$v23/openb_node_list_all_node.csv"
contains out "openb-nodes, 1523 rows read, 1523 accepted"
expect_rc 0 vf import -o s.db "$dlrm"
contains out "dlrm, 23871 rows read, 23871 accepted, 0 quarantined"
expect_rc 0 vf import -o s.db "$pai"
contains out "pai-machine, 1897 rows read, 1897 accepted"
contains out "1897 nodes"
# the v2017 copy has a header and CRLF line ends; 118 tasks ended before the window
expect_rc 0 vf import -o s.db "$ali"
contains out "ali2017-task, 80553 rows read, 80435 accepted, 118 quarantined"
contains err "batch_task.csv:5625: ended before the trace window (end time -55 s)"

# compressed copies of a sample: read directly, kept as they came
gzip -c "$v23/openb_pod_list_default.csv" > pods.csv.gz
zstd -q -c "$dlrm" > dlrm.csv.zst
expect_rc 0 vf import -o s.db pods.csv.gz dlrm.csv.zst
contains out "pods.csv.gz: openb-pods, 8152 rows read, 8152 accepted"
contains out "dlrm.csv.zst: dlrm, 23871 rows read, 23871 accepted"

has_line() { grep -qx -- "$2" "$1" || die "$1 lacks the line '$2'"; }
# normalised values, worked out by hand from the first rows of the files
vf export --jobs --trace openb_pod_list_default s.db > pods.jobs
# openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0
has_line pods.jobs "0,0,12537496,infer,12000,16384,1,1000,,,,,"
vf export --jobs --trace disaggregated_DLRM_trace s.db > dlrm.jobs
# instance_0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,, : before and after the
# 31-day window, 12 vCPU, 120 GiB, one GPU, 25 % of a 12,500 MB/s NIC
has_line dlrm.jobs "0,0,2678400,infer,12000,122880,1,1000,,3125,,,"
vf export --nodes --trace pai_machine_spec s.db > pai.nodes
# 3cc7f50829bef281c20cf1cc,V100M32,96,384,8
has_line pai.nodes "3cc7f50829bef281c20cf1cc,,V100M32,96000,393216,8,32768,,,"

expect_rc 0 vf export --raw -d raw s.db
for f in "$v23/openb_pod_list_default.csv" "$v23/openb_node_list_gpu_node.csv" \
	"$v23/openb_node_list_all_node.csv" "$dlrm" "$pai" "$ali" pods.csv.gz dlrm.csv.zst; do
	cmp "$f" raw/*/"$(basename "$f")" || die "export --raw of $(basename "$f") differs"
done
