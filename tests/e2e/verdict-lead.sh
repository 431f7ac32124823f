# report and compare lead with the verdict: the fewer GPUs at one SLO where 'voidfit size'
# stored the baseline's and another policy's smallest clusters (the same GPUs verdict finds
# at that SLO), else the command that computes it.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o s.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"
vf replay s.db --policy scalar,packing --seed 1 >/dev/null 2>&1 || die "replay failed"

cmd="voidfit verdict s.db --baseline scalar --resamples 20."
expect_rc 0 vf compare s.db
contains err "is not stored: $cmd"
expect_rc 0 vf report s.db --format text
awk '/^At a glance/ { on = 1; next } on && /^[A-Z]/ { print; exit }' out >lead
grep -q "^The verdict in money off the bill" lead || die "the report does not lead with it: $(cat lead)"

# sized at one SLO: the lead gives the GPUs and $ that verdict gives at that SLO
vf size s.db --policy scalar,packing --slo 'wait_p95<=6h' >/dev/null 2>&1 || die "size failed"
expect_rc 0 vf verdict s.db -p packing --slo 'wait_p95<=6h' --no-headroom
gpus=$(awk '$1 == "packing" { print $3 }' out)
usd=$(awk '$1 == "packing" { printf "$%.1f M", $4 / 1e6 }' out)
want="Sized at the same SLO (wait_p95<=6h, seed 1; voidfit size): switching scalar -> packing needs $gpus fewer GPUs, $usd/yr less at on-demand prices. With headroom"
expect_rc 0 vf compare s.db
contains err "$want"
contains err "$cmd"
expect_rc 0 vf report s.db --format text
tr '\n' ' ' <out | grep -qF "$want" || die "the report does not lead with the sizing: $(head -20 out)"
