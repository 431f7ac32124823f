# import-few-columns.sh — a pod list with only the columns a pod needs (name, cpu_milli,
# memory_mib, num_gpu, gpu_milli; several public variants of openb are so) imports as
# openb-pods: arrivals 0, durations unknown (not "never ran"), any GPU model, GPU pods
# train; inflation replays it, a timed replay places none of it. A header a format only
# nearly matches is refused naming the format and the columns it lacks.
. "$VOIDFIT_TOP/tests/lib.sh"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,2048,1,500\np1,2000,4096,0,0\np2,8000,16384,2,1000\np3,x,1,0,0\n' > few.csv
printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,T4\nn1,64000,262144,8,V100M32\n' > nodes.csv
expect_rc 0 vf import -o f.db few.csv --nodes nodes.csv
contains out "few.csv: openb-pods, 4 rows read, 3 accepted, 1 quarantined"
contains err "few.csv:5: column 'cpu_milli': 'x' is not a number"
vf export --jobs f.db > jobs.csv
cat > want <<'END'
job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec
0,0,,train,1000,2048,1,500,,,,,
1,0,,cpu,2000,4096,0,0,,,,,
2,0,,train,8000,16384,2,1000,,,,,
END
cmp want jobs.csv || { diff want jobs.csv >&2; die "exported jobs"; }
# inflation needs no times; a timed replay skips jobs of unknown duration
expect_rc 0 vf replay f.db --policy first-fit --mode inflate --target 0.5 --json --no-store
contains out '"placed_jobs": '
grep -q '"placed_jobs": 0,' out && die "inflation placed nothing"
expect_rc 0 vf replay f.db --policy first-fit --json --no-store
contains out '"placed_jobs": 0,'

# one required column short: not a format, and the message says which came closest
printf 'name,cpu_milli,memory_mib,num_gpu\np0,1000,2048,1\n' > four.csv
expect_rc 1 vf import -o x.db four.csv
contains err "four.csv:1: not a trace format voidfit knows (first line 'name,cpu_milli,memory_mib,num_gpu', 4 fields; closest: openb-pods, which lacks 'gpu_milli'); give --format"
expect_rc 1 vf import -o x.db --format openb-pods four.csv
contains err "four.csv:1: header lacks 'gpu_milli' of format openb-pods"
[ ! -e x.db ] || die "a refused import left x.db"

# the real pod list cut to those five columns: the same demands as the full list
need_traces
v23=$VOIDFIT_TRACES/clusterdata/cluster-trace-gpu-v2023/csv
cut -d, -f1-5 "$v23/openb_pod_list_default.csv" > pods5.csv
expect_rc 0 vf import -o p.db pods5.csv --nodes "$v23/openb_node_list_gpu_node.csv"
contains out "pods5.csv: openb-pods, 8152 rows read, 8152 accepted, 0 quarantined"
vf import -q -o full.db "$v23/openb_pod_list_default.csv"
vf export --jobs p.db | cut -d, -f5-8 > d5
vf export --jobs full.db | cut -d, -f5-8 > d11
cmp d5 d11 || die "the five-column pods differ in demand from the full list"
[ "$(vf export --jobs p.db | cut -d, -f2,3 | sort -u | tr '\n' ' ')" = "0, arrival,duration " ] ||
	die "arrivals and durations of the five-column pods"
expect_rc 0 vf replay p.db --policy fgd --mode inflate --json --no-store
contains out '"arrived_load": 1.30'
grep -q '"placed_jobs": [1-9][0-9][0-9][0-9]' out || die "inflation placed under 1000 pods"
