# import-gangs.sh — jobs of W workers (gangs) through the store: the native workers column
# both ways, a Helios-like mapping that divides the job's GPUs and CPUs among its nodes, bad
# worker counts quarantined, info's count by W, and a replay that places the gangs. A trace of one-worker jobs exports without the column.
. "$VOIDFIT_TOP/tests/lib.sh"
H=job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec
N=node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
{ echo $N; for i in 1 2 3 4; do echo "n$i,g,A100,128000,1048576,8,40960,1000,1000,1000"; done; } >nodes.csv
cat > jobs.csv <<T
$H,workers
j1,0,3600,train,64000,65536,8,1000,,1,1,1,,4
j2,10,600,batch,8000,8192,1,1000,,1,1,1,,
j3,20,600,train,8000,8192,8,1000,,1,1,1,,2
j4,30,600,infer,8000,8192,1,500,,1,1,1,,1
j5,40,600,train,8000,8192,8,1000,,1,1,1,,0
j6,50,600,train,8000,8192,8,1000,,1,1,1,,2.5
j7,60,600,train,8000,8192,8,1000,,1,1,1,,many
T
expect_rc 0 vf import -o g.db jobs.csv nodes.csv
contains out "jobs.csv: native-jobs, 7 rows read, 4 accepted, 3 quarantined"
contains err "jobs.csv:6: column 'workers': 0 workers (a job has 1 or more)"
contains err "jobs.csv:7: column 'workers': 2.5 workers (a job has 1 or more)"
contains err "jobs.csv:8: column 'workers': 'many' is not a number"
vf export --jobs g.db > exp.csv
cat > want <<T
$H,workers
0,0,3600,train,64000,65536,8,1000,,1,1,1,,4
1,10,600,batch,8000,8192,1,1000,,1,1,1,,1
2,20,600,train,8000,8192,8,1000,,1,1,1,,2
3,30,600,infer,8000,8192,1,500,,1,1,1,,1
T
cmp want exp.csv || { diff want exp.csv >&2; die "export with workers"; }
# the export imports back to the same jobs
expect_rc 0 vf import -o back.db exp.csv nodes.csv
vf export --jobs back.db > exp2.csv
cmp exp.csv exp2.csv || die "export, import, export changed the jobs"
expect_rc 0 vf info g.db
contains out "gang jobs 2 (W workers started together), by W: 2 x1, 4 x1"
expect_rc 0 vf info --json g.db
contains out '"gang_jobs": 2,'
contains out '"4": 1'

# a replay places both gangs (the one of 4 workers takes all four nodes): nothing is
# unplaceable; with 3 nodes the gang of 4 spread workers is
expect_rc 0 vf replay g.db --policy first-fit,fgd
grep -q "unplaceable" err && die "a replay counts a gang that fits unplaceable"
echo "g 3 A100 8 cpu=128000 mem=1048576 net=1000 sto=1000 iocpu=1000" > three.spec
expect_rc 0 vf replay g.db --policy first-fit --gang-spread --no-store --cluster three.spec
contains err "warning: jobs unplaceable"
contains err "(for a gang: no set of as many nodes could)"
expect_rc 0 vf replay g.db --policy first-fit --no-store --cluster three.spec --json
contains out '"unplaceable_jobs": 1'

# one-worker jobs: no workers column out, and no gang line in info
{ echo $H; echo "j1,0,600,train,8000,8192,1,1000,,1,1,1,"; } > one.csv
expect_rc 0 vf import -o one.db one.csv nodes.csv
vf export --jobs one.db | head -1 > head
echo $H > want
cmp want head || die "a trace without gangs exports the column"
expect_rc 0 vf info one.db
grep -q "gang jobs" out && die "info names gangs of a trace without"
expect_rc 0 vf replay one.db --policy first-fit --no-store
grep -q "nodes at once" err && die "a replay without gangs warns of them"

# Helios and Acme record a job's GPUs and CPUs over all its nodes: a mapping divides them
cat > hel.map <<'T'
arrival  submit_time
duration duration
workers  node_num
num_gpu  = gpu_num / node_num
cpu      = cpu_num / node_num * 1000
T
printf 'job_id,gpu_num,cpu_num,node_num,submit_time,duration\na,16,64,2,100,50\nb,1,4,1,120,60\nc,8,8,0,130,70\nd,64,256,8,140,10\n' > hel.csv
expect_rc 0 vf import --format generic:hel.map -o h.db hel.csv
contains out "hel.csv: generic:hel, 4 rows read, 3 accepted, 1 quarantined"
vf export --jobs h.db | cut -d, -f5,7,14 > mapped
printf 'cpu_milli,num_gpu,workers\n32000,8,2\n4000,1,1\n32000,8,8\n' > want
cmp want mapped || { diff want mapped >&2; die "mapped workers"; }
