# size: usage errors exit 2 naming the option, runtime errors 1; a SLO the full cluster
# itself misses is said, with the term, figure and seed, and nothing is stored.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
cp t.db before.db

expect_rc 2 vf size
contains err "no STORE given"
contains err "see 'voidfit size -h'"
expect_rc 2 vf size t.db
contains err "no --policy given"
expect_rc 2 vf size t.db --policy nope
contains err "'nope' is not a policy"
expect_rc 2 vf size t.db --policy fgd --slo 'wait_p95=15m'
contains err "--slo 'wait_p95=15m': not NAME<=VALUE or NAME>=VALUE"
expect_rc 2 vf size t.db --policy fgd --slo 'wait_p95<=15m,'
contains err "not NAME<=VALUE"
expect_rc 2 vf size t.db --policy fgd --slo 'wait_p99<=15m'
contains err "'wait_p99' is not a run figure (mean_fragmentation,"
contains err "wait_p95"
expect_rc 2 vf size t.db --policy fgd --slo 'wait_p95<=soon'
contains err "'soon' is not a duration"
expect_rc 2 vf size t.db --policy fgd --slo 'slowdown_mean<=fast'
contains err "'fast' is not a number or 'full'"
expect_rc 2 vf size t.db --policy fgd --mode inflate
contains err "--mode inflate has no default SLO"
expect_rc 2 vf size t.db --policy fgd --mode inflate --slo 'wait_p95<=1h'
contains err "wait_p95 is not measured in --mode inflate"
expect_rc 2 vf size t.db --policy fgd --seeds 3-1
contains err "--seeds"
expect_rc 2 vf size t.db --policy fgd --shrink NOPE
contains err "--shrink 'NOPE': not a GPU model"
expect_rc 2 vf size t.db --policy fgd --threads 0
contains err "--threads"

# a model the cluster lacks
expect_rc 1 vf size t.db --policy fgd --shrink V100M32
contains err "--shrink V100M32: the cluster has no V100M32 node (its GPU models: A100, T4)"
# the full cluster itself misses the SLO (slowdown is at least 1): said, exit 1
expect_rc 1 vf size t.db --policy fgd,best-fit --slo 'slowdown_mean<=0.5'
contains err "fgd: the full cluster itself misses the SLO (slowdown_mean<=0.5: 1.000 at seed 1)"
contains err "best-fit: the full cluster itself misses"
[ ! -s out ] || die "a table for no policy: $(cat out)"
# one policy misses, the other is sized: its table, exit 1
expect_rc 1 vf size t.db --policy first-fit,fgd --slo 'wait_p95<=30m' --no-store
contains err "first-fit: the full cluster itself misses the SLO (wait_p95<=30m: "
grep -q '^fgd ' out || die "fgd not sized"
if grep -q '^first-fit ' out; then die "first-fit has a row"; fi
# a store that is not there
expect_rc 1 vf size missing.db --policy fgd
contains err "missing.db"
cmp -s t.db before.db || die "a failed size changed the store"
