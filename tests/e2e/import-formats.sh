# import-formats.sh — every format on small files written by hand (the header-less ones
# too), checked value by value through 'export --jobs / --nodes'; stdin; cluster specs.
. "$VOIDFIT_TOP/tests/lib.sh"
J=job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec
N=node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
jobs() { vf export --jobs --trace "$1" f.db > "$1.jobs"; }
nodes() { vf export --nodes --trace "$1" f.db > "$1.nodes"; }

# (export lists jobs by arrival; a job's id is its place in the order the importer made it)
# PAI v2020, no header: tasks (one job per task, W = inst_num workers), job and instance
# tables, machines
cat > pai_task_table.csv <<'T'
j1,worker,2,Terminated,1000,1600,600,29.296875,50,V100
j2,ps,1,Terminated,1100,1200,400,4,,
j3,tensorflow,1,Failed,2000,1900,100,1,100,T4
j4,worker,1,Waiting,0,0,100,2,200,MISC
T
printf 'j1,i1,u1,Terminated,1000,1600\nj2,i2,u2,Terminated,1100,1200\n' > pai_job_table.csv
printf 'j1,worker,w0,wk0,i1,Terminated,1000,1600,m1\nj1,worker,w1,wk1,i2,Terminated,1000,1600,m2\n' > pai_instance_table.csv
printf 'm1,V100,96,512,8\nm2,CPU,64,256,0\n' > pai_machine_spec.csv
expect_rc 0 vf import -o f.db --name pai pai_task_table.csv pai_job_table.csv \
	pai_instance_table.csv pai_machine_spec.csv
contains out "pai_task_table.csv: pai-task, 4 rows read, 3 accepted, 1 quarantined"
contains out "pai_job_table.csv: pai-job, 2 rows read, 2 accepted"
contains out "pai_instance_table.csv: pai-instance, 2 rows read, 2 accepted"
contains out "pai_machine_spec.csv: pai-machine, 2 rows read, 2 accepted"
contains err "pai_task_table.csv:3: end_time 1900 before start_time 2000"
jobs pai
cat > want <<T
$J,workers
2,0,,train,1000,2048,2,1000,,,,,MISC,1
0,1000,600,train,6000,30000,1,500,,,,,V100,2
1,1100,100,cpu,4000,4096,0,0,,,,,,1
T
cmp want pai.jobs || { diff want pai.jobs >&2; die "pai jobs"; }
nodes pai
cat > want <<T
$N
m1,,V100,96000,524288,8,16384,,,
m2,,,64000,262144,0,0,,,
T
cmp want pai.nodes || { diff want pai.nodes >&2; die "pai nodes"; }

# Google 2011: a task's events span two part files; machine events
cat > part-00000-of-00002.csv <<'T'
0,,100,0,,0,u,0,0,0.125,0.25,0,0
5000000,,100,0,1,1,u,0,0,0.125,0.25,0,0
0,,100,1,,0,u,0,0,0.5,0.5,0,0
10000000,,100,1,1,1,u,0,0,,,,
T
cat > part-00001-of-00002.csv <<'T'
20000000,,100,1,1,2,u,0,0,,,,
30000000,,100,1,2,1,u,0,0,,,,
65000000,,100,0,1,4,u,0,0,,,,
70000000,,100,1,2,4,u,0,0,,,,
80000000,,200,0,,0,u,0,0,0.1,0.1,0,0
90000000,,300,0,,0,u,0,0,0.1,0.1,0,0
95000000,,300,0,3,1,u,0,0,,,,
99000000,,300,0,3,9,u,0,0,,,,
100000000,,400,0,,0,u,0,0,0.25,0.125,0,0
T
printf '0,1,0,p1,0.5,0.5\n0,2,0,p1,1,1\n100,1,2,p1,0.5,0.25\n200,1,1,,,\n300,1,0,p1,0.5,0.5\n' > machine_events.csv
expect_rc 0 vf import -o f.db --name google part-00000-of-00002.csv part-00001-of-00002.csv machine_events.csv
contains out "part-00000-of-00002.csv: google-task, 4 rows read, 4 accepted"
contains out "part-00001-of-00002.csv: google-task, 9 rows read, 8 accepted, 1 quarantined"
contains err "part-00001-of-00002.csv:8: column 'event_type': 9 is not an event (0-8)"
contains out "machine_events.csv: google-machine, 5 rows read, 5 accepted"
jobs google
cat > want <<T
$J
0,0,60,cpu,4000,32768,0,0,0,,,,
1,0,50,cpu,16000,65536,0,0,0,,,,
2,80,,cpu,3200,13107,0,0,0,,,,
3,90,5,cpu,3200,13107,0,0,0,,,,
4,100,,cpu,8000,16384,0,0,0,,,,
T
cmp want google.jobs || { diff want google.jobs >&2; die "google jobs"; }
nodes google
cat > want <<T
$N
1,,,16000,65536,0,0,,,
2,,,32000,131072,0,0,,,
T
cmp want google.nodes || { diff want google.nodes >&2; die "google nodes"; }

# Alibaba v2018 batch tasks and machines, v2017 server events, no header
printf 'M1,10,j_1,1,Terminated,100,160,50,0.39\nR2_1,1,j_1,1,Waiting,,,100,1\n' > batch_task.csv
printf 'm_1,0,1,2,96,100,USING\nm_1,10,1,2,96,100,USING\nm_2,0,1,2,64,50,USING\n' > machine_meta.csv
printf '0,7,add,,64,0.5,0.5\n10,7,softerror,x,,,\n' > server_event.csv
expect_rc 0 vf import -o f.db --name ali batch_task.csv machine_meta.csv server_event.csv
contains out "batch_task.csv: ali2018-task, 2 rows read, 2 accepted"
contains out "machine_meta.csv: ali2018-machine, 3 rows read, 3 accepted"
contains out "server_event.csv: ali2017-server, 2 rows read, 2 accepted"
jobs ali
cat > want <<T
$J
1,0,,cpu,1000,5243,0,0,0,,,,
0,100,60,cpu,500,2045,0,0,0,,,,
T
cmp want ali.jobs || { diff want ali.jobs >&2; die "ali jobs"; }
nodes ali
cat > want <<T
$N
m_1,,,96000,524288,0,0,,,
m_2,,,64000,262144,0,0,,,
7,,,64000,131072,0,0,,,
T
cmp want ali.nodes || { diff want ali.nodes >&2; die "ali nodes"; }

# generic: the built-in simple-jobs mapping, found by its header, read from stdin
printf 'id,submit_s,run_s,queue,cpus,mem_gb,gpus\na,5,60,serve,2,4,1\nb,7,,batch,1.5,0.5,0\nc,9,30,other,1,1,0\n' > simple.csv
expect_rc 0 vf import -o f.db --name generic - < simple.csv
contains out "stdin: generic:simple-jobs, 3 rows read, 3 accepted"
jobs generic
cat > want <<T
$J
0,5,60,infer,2000,4096,1,1000,,,,,
1,7,,batch,1500,512,0,0,,,,,
2,9,30,cpu,1000,1024,0,0,,,,,
T
cmp want generic.jobs || { diff want generic.jobs >&2; die "generic jobs"; }
# a mapping file given by path, for nodes
cat > racks.map <<'T'
kind nodes
node host
cpu cores 1000
mem ram_gb 1024
gpu gpus
model gpu_model
T
printf 'host,cores,ram_gb,gpus,gpu_model\nh1,8,16,1,T4\n' > racks.csv
expect_rc 0 vf import -o f.db --name racks --format generic:./racks.map racks.csv
contains out "racks.csv: generic:racks, 1 rows read, 1 accepted"
nodes racks
printf '%s\nh1,,T4,8000,16384,1,16384,,,\n' "$N" > want
cmp want racks.nodes || { diff want racks.nodes >&2; die "generic nodes"; }
expect_rc 1 vf import -o f.db --format generic:nosuch racks.csv
contains err "mapping 'nosuch': neither a built-in mapping nor a readable file"

# voidfit-native jobs and nodes come back as they went in; plus a cluster spec
cat > jobs.csv <<T
$J
a,0,100,infer,1000,2048,1,250,4096,10,20,30,T4|A10
b,5,,train,8000,65536,4,1000,,,,,
c,7,3,cpu,500,512,0,0,,,,,
T
cat > nodes.csv <<T
$N
x1,g,T4,32000,131072,2,,100,200,300
x2,g,H100,64000,262144,8,65536,,,
T
printf 'big 2 A100 4 cpu=96000 mem=1048576\n' > spec.txt
expect_rc 0 vf import -o f.db --name native jobs.csv --nodes nodes.csv --cluster spec.txt
contains out "jobs.csv: native-jobs, 3 rows read, 3 accepted"
contains out "spec.txt: cluster-spec, 2 rows read, 2 accepted"
contains out "4 nodes"
jobs native
cat > want <<T
$J
0,0,100,infer,1000,2048,1,250,4096,10,20,30,T4|A10
1,5,,train,8000,65536,4,1000,,,,,
2,7,3,cpu,500,512,0,0,,,,,
T
cmp want native.jobs || { diff want native.jobs >&2; die "native jobs"; }
nodes native
cat > want <<T
$N
x1,g,T4,32000,131072,2,16384,100,200,300
x2,g,H100,64000,262144,8,65536,,,
big-0000,big,A100,96000,1048576,4,40960,,,
big-0001,big,A100,96000,1048576,4,40960,,,
T
cmp want native.nodes || { diff want native.nodes >&2; die "native nodes"; }
# the cluster spec is kept with the trace's files, byte for byte
vf export --raw --trace native -d raw f.db
cmp spec.txt raw/spec.txt || die "cluster spec not kept"
cmp jobs.csv raw/jobs.csv || die "jobs.csv not kept"
# --nodes refuses a job file
{ cat simple.csv; echo d,1,1,batch,1,1,0; } > simple2.csv
expect_rc 1 vf import -o f.db --nodes simple2.csv
contains err "simple2.csv: --nodes names it, but it is a generic file"
