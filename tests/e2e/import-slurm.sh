# import-slurm.sh — Slurm's records: 'sacct -a -P' accounting and 'scontrol show node -o'
# nodes (tests/data/slurm-*.txt, written in the layout the sacct(1) and scontrol(1) pages
# of Slurm 22.05 give: a step folded into its job, array tasks, a pending array range, a
# heterogeneous job, a multi-node job, bad rows), checked value by value; --tz; the files
# kept byte for byte. tests/e2e/slurm-accounting.sh runs the same on a real Slurm.
. "$VOIDFIT_TOP/tests/lib.sh"
d=$VOIDFIT_TOP/tests/data
cp "$d/slurm-sacct.txt" jobs.txt
cp "$d/slurm-nodes.txt" nodes.txt
expect_rc 0 vf import -o f.db jobs.txt --nodes nodes.txt
contains out "jobs.txt: slurm-sacct, 12 rows read, 10 accepted, 2 quarantined"
contains out "nodes.txt: slurm-nodes, 4 rows read, 3 accepted, 1 quarantined"
contains out "8 jobs, 3 nodes"
contains err "jobs.txt:11: column 'Submit': 'yesterday' is not a time (YYYY-MM-DDTHH:MM:SS)"
contains err "jobs.txt:12: step '105.0' of a job whose row is not before it"
contains err "nodes.txt:4: node 'g03': RealMemory 'abc' is not a number"
# 2024-03-01T10:00:00 UTC = 1709287200; steps add nothing; 101_[3-5] and 106 never ran;
# 103+0 and 103+1 still run: Elapsed; 102 ran on 2 nodes: a gang of 2 workers, each with
# half its 16 CPUs and 32G
vf export --jobs f.db > jobs
cat > want <<'T'
job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec,workers
0,1709287200,3600,train,8000,65536,2,1000,,,,,A100,1
1,1709287260,60,cpu,1000,500,0,0,,,,,,1
2,1709287260,150,cpu,1000,500,0,0,,,,,,1
3,1709287260,,cpu,1000,500,0,0,,,,,,1
4,1709287500,600,cpu,8000,16384,0,0,,,,,,2
5,1709287560,1800,train,4000,8192,1,1000,,,,,,1
6,1709287560,1800,cpu,2000,4096,0,0,,,,,,1
7,1709287740,,train,2000,2048,1,1000,,,,,,1
T
cmp want jobs || { diff want jobs >&2; die "sacct jobs"; }
vf export --nodes f.db > nodes
cat > want <<'T'
node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
g01,gpu,A100,32000,515000,8,40960,,,
c01,cpu,,16000,64000,0,0,,,
g02,gpu,UNKNOWN,8000,64000,4,16384,,,
T
cmp want nodes || { diff want nodes >&2; die "scontrol nodes"; }
vf export --raw -d raw f.db
cmp raw/jobs.txt jobs.txt && cmp raw/nodes.txt nodes.txt || die "not kept byte for byte"
# --tz: naive times are local to the given offset
expect_rc 0 vf import -q -o tz.db --tz +01:00 jobs.txt
[ "$(vf export --jobs tz.db | sed -n 2p | cut -d, -f2)" = 1709283600 ] || die "--tz +01:00"
expect_rc 2 vf import -o x.db --tz Europe/Paris jobs.txt
contains err "--tz 'Europe/Paris' is not a zone voidfit reads (valid: UTC, Z, +08:00, -0530, +8)"
# a header without the demand fails the file, by line
printf 'JobID|Submit|Start|End\n1|2024-03-01T10:00:00|None|Unknown\n' > nodemand.txt
expect_rc 1 vf import -o y.db nodemand.txt
contains err "nodemand.txt:1: header lacks 'ReqTRES' or 'AllocTRES' of format slurm-sacct"
# a row cut by a '|' in a job name, and --parsable's final '|'
{ echo 'JobID|JobName|Submit|Start|End|ReqTRES|'
  echo '7|a|b|2024-03-01T10:00:00|None|Unknown|cpu=1,mem=1G|'
  echo '8|ab|2024-03-01T10:00:00|None|Unknown|cpu=1,mem=1G|'; } > pipe.txt
expect_rc 0 vf import -o z.db pipe.txt
contains out "pipe.txt: slurm-sacct, 2 rows read, 1 accepted, 1 quarantined"
contains err "pipe.txt:2: 7 fields, expected 6 (a '|' inside a field?)"
# a Slurm that enforces no memory limit allocates no mem (AllocTRES 'cpu=1,node=1'): each
# resource AllocTRES lacks comes from ReqTRES, and what it names wins
{ echo 'JobID|Submit|Start|End|ReqTRES|AllocTRES'
  echo '9|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:01:00|billing=4,cpu=4,gres/gpu:a100=1,gres/gpu=1,mem=16G,node=1|cpu=2,node=1'
  echo '10|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:01:00|cpu=1,mem=1G,node=1|cpu=1,node=1'; } > nomem.txt
expect_rc 0 vf import -q -o m.db nomem.txt
vf export --jobs m.db | cut -d, -f5-7,13 > got
printf 'cpu_milli,mem_mib,num_gpu,gpu_spec\n2000,16384,1,A100\n1000,1024,0,\n' > want
cmp want got || { diff want got >&2; die "AllocTRES without mem or GPUs: not taken from ReqTRES"; }
