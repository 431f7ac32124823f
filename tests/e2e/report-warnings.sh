# voidfit report says at the top what would mislead, never silently: policies without the
# same seeds, runs made before buckets were stored, and runs that placed nothing, barely
# used the cluster or were overloaded.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"

# a partial seed set: fgd has seeds 1-2, scalar 1 only
vf replay t.db --policy fgd --seeds 1-2 >/dev/null 2>&1 || die "replay failed"
vf replay t.db --policy scalar --seed 1 >/dev/null 2>&1 || die "replay failed"
expect_rc 0 vf report t.db
head -12 out | grep -q "WARNING: the policies do not have the same seeds" ||
	die "no partial warning at the top"
contains out "over 1 seed."
contains out "(one seed: no interval)"
expect_rc 0 vf report t.db --format json
grep -q '"warnings": \[$' out && grep -q 'do not have the same seeds' out ||
	die "no partial warning in JSON"

# runs made before buckets were stored: a store of schema version 1, upgraded as it is
# read; the same made by hand of new runs is a store changed outside voidfit
cp "$VOIDFIT_TOP/tests/data/store-v1.voidfit" old.db
expect_rc 0 vf report old.db
head -12 out | grep -q "WARNING: these runs were made by an earlier voidfit" ||
	die "no legacy warning at the top"
contains out "Not stored for these runs"
cp t.db forged.db
sqlite3 forged.db "UPDATE scenarios SET key = 'legacy:' || key; DELETE FROM run_buckets;" ||
	die "sqlite3 failed"
expect_rc 1 vf report forged.db
contains err "forged.db: table scenarios: 1 of its 1 rows do not match their checksum"

# overloaded and barely used: one GPU for a trace of many, and the same trace's jobs made
# CPU-only (no GPU allocated); every job unplaceable: jobs of 16 GPUs on nodes
# of at most 8
printf 'node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli\nn0,a,A100,128000,1048576,1,40960,12500,4000,16000\n' >one.csv
vf import -o o.db --name one "$tr/balanced/jobs.csv" --nodes one.csv >/dev/null 2>&1 ||
	die "import one failed"
vf replay o.db --policy first-fit >/dev/null 2>&1 || die "replay one failed"
expect_rc 0 vf report o.db
contains out "WARNING: first-fit (run 1): overloaded"
awk -F, 'NR == 1 { print; next } { OFS = ","; $7 = 0; $8 = 0; $9 = ""; print }' \
	"$tr/balanced/jobs.csv" >cpu.csv
vf import -o c.db cpu.csv "$tr/balanced/nodes.csv" >/dev/null 2>&1 || die "import cpu failed"
vf replay c.db --policy first-fit >/dev/null 2>&1 || die "replay cpu failed"
expect_rc 0 vf report c.db
contains out "WARNING: first-fit (run 1): the mean allocated GPU share is under 1 %"
awk -F, 'NR == 1 { print; next } { OFS = ","; $7 = 16; $8 = 1000; $9 = ""; print }' \
	"$tr/balanced/jobs.csv" >big.csv
vf import -o b.db big.csv "$tr/balanced/nodes.csv" >/dev/null 2>&1 || die "import big failed"
vf replay b.db --policy first-fit >/dev/null 2>&1 || die "replay big failed"
expect_rc 0 vf report b.db
contains out "WARNING: first-fit (run 1): every job was unplaceable"
