# import-gpu-names.sh — the GPU names fleets run are models with their HBM, never UNKNOWN;
# jobs may name them; a model the table lacks is a warning with what it covers; and GPU
# nodes that name no model are priced at the labelled default, never at $0.
. "$VOIDFIT_TOP/tests/lib.sh"
N=node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
# openb's layout, with the names of Alibaba's 2026 spot fleet and nvidia-smi's spellings
{
	echo sn,cpu_milli,memory_mib,gpu,model
	echo n1,128000,1048576,8,A100-SXM4-80GB
	echo n2,128000,1048576,8,A800
	echo n3,128000,1048576,8,H800
	echo n4,192000,1048576,4,GPU-series-1
	echo n5,96000,524288,8,NVIDIA H100 80GB HBM3
	echo n6,96000,524288,2,Tesla V100-SXM2-32GB
	echo n7,96000,524288,2,Quadro Z9
} > nodes.csv
{
	echo name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
	echo p1,1000,2048,1,1000,A100-SXM4-80GB,LS,Running,0,100,0
	echo "p2,1000,2048,1,1000,H800|A800,LS,Running,0,100,0"
	echo p3,1000,2048,1,1000,GPU-series-1,LS,Running,0,100,0
	echo "p4,1000,2048,1,1000,Quadro Z9,LS,Running,0,100,0"
} > pods.csv
expect_rc 0 vf import -o t.db pods.csv nodes.csv
contains out "pods.csv: openb-pods, 4 rows read, 4 accepted, 0 quarantined"
contains out "nodes.csv: openb-nodes, 7 rows read, 7 accepted, 0 quarantined"
contains err "voidfit import: warning: GPU model 'Quadro Z9' is not in the table: 2 GPUs on 1 node, 1 job naming it, taken as UNKNOWN (16384 MiB a GPU, 2.00 USD/h on demand: a placeholder, not a price)"
[ "$(grep -c warning err)" = 1 ] || die "more than one warning"
vf export --nodes t.db > got
cat > want <<T
$N
n1,,A100-80G,128000,1048576,8,81920,,,
n2,,A800,128000,1048576,8,81920,,,
n3,,H800,128000,1048576,8,81920,,,
n4,,GPU-series-1,192000,1048576,4,81920,,,
n5,,H100,96000,524288,8,81920,,,
n6,,V100M32,96000,524288,2,32768,,,
n7,,UNKNOWN,96000,524288,2,16384,,,
T
cmp want got || { diff want got >&2; die "models differ"; }
vf export --jobs t.db > jobs.csv
contains jobs.csv ",A100-80G"
contains jobs.csv ",A800|H800"
contains jobs.csv ",GPU-series-1"
contains jobs.csv ",UNKNOWN"
# every job finds its model's node
expect_rc 0 vf replay t.db --policy first-fit --no-store
if grep -q unplaceable out err; then cat out err >&2; die "a job naming a fleet model found no node"; fi

# A node mapping without a model column (Philly publishes none): its GPUs are priced and
# sized as UNKNOWN, so a replay provisions them (not 0 GPU-h and $0).
cat > nodes.map <<'T'
kind nodes
node machine
gpu gpus
cpu cores cores
mem ram GiB
T
printf 'machine,gpus,cores,ram\nm1,8,96,768\nm2,8,96,768\n' > philly-nodes.csv
printf 'job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec\nj1,0,3600,train,1000,1024,8,1000,,,,,\nj2,0,7200,train,1000,1024,4,1000,,,,,\n' > jobs2.csv
expect_rc 0 vf import -o p.db jobs2.csv --format generic:./nodes.map --nodes philly-nodes.csv
contains err "warning: GPU nodes that name no GPU model: 16 GPUs on 2 nodes, taken as UNKNOWN"
vf export --nodes p.db > got
contains got "m1,,UNKNOWN,96000,786432,8,16384,,,"
expect_rc 0 vf replay p.db --policy first-fit --no-store --json
# two hours of 16 GPUs: 32 GPU-h provisioned, priced at UNKNOWN's 2.00 USD/h (32 x 2.00 x
# 8760 / 2 = 280,320 $/yr)
jq -e '[.. | objects | select(has("provisioned_gpu_hours"))] | length == 1 and
	(.[0].provisioned_gpu_hours == 32) and
	((.[0].provisioned_usd_per_year - 280320) | fabs) < 1' out >/dev/null ||
	{ cat out >&2; die "the GPUs without a model are not provisioned at UNKNOWN's price"; }
