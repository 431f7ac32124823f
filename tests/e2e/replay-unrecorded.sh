# A trace that leaves a job's cpu or mem empty still replays: enrichment fills them (one
# core and 4 GiB per GPU, or per job without GPUs, by the built-in profile) and the output
# says which values were filled.
. "$VOIDFIT_TOP/tests/lib.sh"

cat > jobs.csv <<'CSV'
job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec
a,0,100,train,,,2,1000,,10,10,100,
b,10,100,cpu,2000,,0,0,,1,1,10,
c,20,100,cpu,1000,1024,0,0,,1,1,10,
CSV
cat > nodes.csv <<'CSV'
node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
n0,g,T4,4000,16384,2,,1000,1000,1000
CSV
expect_rc 0 vf import -o t.db jobs.csv nodes.csv
expect_rc 0 vf replay t.db --policy first-fit --no-store
contains out 'enriched values: jobs: cpu 1/3, mem 2/3'
# a takes 2 cores and 8 GiB, b 2 cores and 4 GiB: the node's 4 cores are full, so c waits
# for a to finish at 100 (80 s), and nobody is refused.
expect_rc 0 vf replay t.db --policy first-fit --no-store --json
contains out '"unplaceable_jobs": 0'
contains out '"wait_mean_s": 26.666666666666668'
