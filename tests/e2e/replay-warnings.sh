# replay warns, on stderr and in the table's notes, where its figures would mislead: every
# job unplaceable, a mean allocated GPU share under 1 %, an overload (mean wait over ten
# times the mean run time), a fault that touched no job; and it says how many jobs each
# fault touched. A plain run warns of nothing. Expected figures are worked out by hand.
. "$VOIDFIT_TOP/tests/lib.sh"
H=job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec
N=node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
# one T4 node of one GPU
{ echo $N; echo "n1,g,T4,8000,65536,1,16384,1000,1000,1000"; } >one.nodes.csv
# three 8-GPU jobs: none fits it
{ echo $H; for i in 1 2 3; do echo "j$i,$((i * 10)),3600,train,1000,1024,8,1000,,1,1,1,"; done; } >big.csv
# fifty 1-GPU jobs of 1 h arriving a second apart: job i starts at (i-1) x 3600 + 1, so it
# waits (i-1) x 3599 s: 24.5 x 3599 = 88175.5 s on average (24.5 h: "1d"), 24.5 x the run
{ echo $H; for i in $(seq 1 50); do echo "j$i,$i,3600,train,1000,1024,1,1000,,1,1,1,"; done; } >over.csv
# 100 nodes of 8 A100s for one 1-GPU job of 1 h in a 10 h window: 3600 / (36000 x 800) =
# 0.0125 % allocated
{ echo $N; for i in $(seq 1 100); do echo "n$i,g,A100,128000,1048576,8,40960,1000,1000,1000"; done; } >many.nodes.csv
{ echo $H; echo "j1,0,3600,train,1000,1024,1,1000,,1,1,1,"; echo "j2,36000,600,train,1000,1024,1,1000,,1,1,1,"; } >idle.csv
for t in big over idle; do
	nodes=one.nodes.csv
	[ $t = idle ] && nodes=many.nodes.csv
	vf import -o $t.db $t.csv $nodes >/dev/null 2>&1 || die "import $t"
done

expect_rc 0 vf replay big.db --policy fgd,first-fit --no-store
w="warning: every job is unplaceable (3 fit no node, even empty)"
contains err "$w"
contains out "$w"
[ "$(grep -c '^warning:' err)" -eq 1 ] || die "want one warning: $(cat err)"

expect_rc 0 vf replay over.db --policy fgd,first-fit --no-store
w="warning: overload: mean wait over ten times the mean run time of 1h (every policy: fgd 1d, first-fit 1d)"
contains err "$w"
contains out "$w"
[ "$(grep -c '^warning:' err)" -eq 1 ] || die "want one warning: $(cat err)"
# the JSON carries it among its notes; its figures stay raw
expect_rc 0 vf replay over.db --policy fgd --no-store --json
contains out "warning: overload: mean wait over ten times the mean run time of 1h (fgd 1d)"
contains out '"wait_mean_s": 88175.5'
contains out '"jct_mean_s": 91775.5' # + 3600

expect_rc 0 vf replay idle.db --policy fgd,first-fit --no-store
w="warning: mean allocated GPU share under 1 % (every policy: fgd 0.01 %, first-fit 0.01 %)"
contains err "$w"
contains out "$w"
expect_rc 0 vf replay idle.db --policy fgd --no-store
contains err "warning: mean allocated GPU share under 1 % (fgd 0.01 %)"

# faults: one long after the trace, one over the first job (it starts at 1 on n1, reading
# 1 MB/s, while the fault is on); the jobs each touched are in the notes
expect_rc 0 vf replay over.db --policy fgd --no-store --fault 'n1:sto=0.5@1000d+1h' \
	--fault 'n1:sto=0.5@0+1h'
contains err "warning: fault 'n1:sto=0.5@86400000+3600' touched no job in any run"
contains out "warning: fault 'n1:sto=0.5@86400000+3600' touched no job in any run"
contains out "jobs each fault touched (slowed or held; fewest-most over the runs): 'n1:sto=0.5@86400000+3600' 0; 'n1:sto=0.5@0+3600' 1"
if grep -q "fault 'n1:sto=0.5@0+3600' touched no job" err; then die "a fault that hit warned"; fi

# a plain run of a bundled trace warns of nothing
vf import -o b.db "$VOIDFIT_TOP/traces/balanced/jobs.csv" "$VOIDFIT_TOP/traces/balanced/nodes.csv" \
	>/dev/null 2>&1 || die "import balanced"
expect_rc 0 vf replay b.db --policy all --no-store
if grep -q 'warning' err out; then cat err >&2; die "a plain run warned"; fi

# compare warns the same way, among its notes, on the runs it reads back
expect_rc 0 vf replay idle.db --policy fgd,scalar
expect_rc 0 vf compare idle.db
contains out "warning: mean allocated GPU share under 1 % (every policy: scalar 0.01 %, fgd 0.01 %)"

# several seeds: the mean rows are said to carry no spread, and the policies whose runs are
# the same at every seed are named (storage-stress has nothing enriched: only random's
# choices follow the seed)
vf import -o s.db "$VOIDFIT_TOP/traces/storage-stress/jobs.csv" \
	"$VOIDFIT_TOP/traces/storage-stress/nodes.csv" >/dev/null 2>&1 || die "import storage-stress"
expect_rc 0 vf replay s.db --policy random,fgd,ragp7 --seeds 1-2 --no-store
contains out "mean rows: the mean over the seeds, without their spread"
contains out "; fgd, ragp7 gave the same figures at every seed"
expect_rc 0 vf replay s.db --policy fgd --seed 1 --no-store
if grep -q "mean rows" out; then die "a single seed has a mean-rows note"; fi
