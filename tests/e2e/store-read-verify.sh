# Readers verify what they read against the seals (row checksums, each table's count and
# total) and refuse a store changed behind voidfit's back, naming the table and pointing to
# check, rather than answering from it.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces/balanced
vf import -q -o t.db "$tr/jobs.csv" "$tr/nodes.csv"
vf replay t.db --policy first-fit,fgd --mode inflate --target 0.5 --seed 1 >/dev/null 2>&1

# nodes deleted: replay would size a smaller cluster
cp t.db nodes.db
sqlite3 nodes.db "DELETE FROM node_blocks"
expect_rc 1 vf replay nodes.db --policy fgd --no-store
contains err "nodes.db: trace 1: "
contains err "nodes stored, "
contains err "recorded: the store was damaged or changed outside voidfit"
contains err "'voidfit check nodes.db' tells more"
expect_rc 1 vf export --nodes nodes.db
contains err "nodes stored"

# a metric changed: report and compare would price it
cp t.db metric.db
sqlite3 metric.db "UPDATE run_metrics SET value = value * 10 + 1 WHERE rowid = 5"
for c in report compare; do
	expect_rc 1 vf $c metric.db
	contains err "metric.db: table run_metrics: 1 of its "
	contains err "rows do not match their checksum"
done

# the tables migration 6 seals: a bucket, a scenario, a run's blocks changed
for c in "run_buckets SET gpu_ms = gpu_ms * 10 WHERE rowid = 3" \
	"scenarios SET io_pressure = 2" "run_blobs SET series = series || x'00' WHERE run_id = 1"; do
	cp t.db sealed.db
	sqlite3 sealed.db "UPDATE $c"
	expect_rc 1 vf report sealed.db
	contains err "sealed.db: table ${c%% *}: 1 of its "
	contains err "rows do not match their checksum"
done

# a row added with a checksum of its own (a copy): the count gives it away
cp t.db added.db
sqlite3 added.db "INSERT INTO run_metrics(run_id, key, value, rsum)
	SELECT run_id, key, value, rsum FROM run_metrics LIMIT 1"
expect_rc 1 vf report added.db
contains err "(rows were added)"

# the raw lines a job block is coded against, gone: jobs would read as zeros
cp t.db raw.db
sqlite3 raw.db "DELETE FROM raw_blocks"
expect_rc 1 vf replay raw.db --policy fgd --no-store
contains err "raw.db: trace 1: job block 0: file 1: a job block refers to line 2, past the 0 lines stored"
expect_rc 1 vf export --jobs raw.db

# a block of jobs gone: the trace's count says so
cp t.db jobs.db
sqlite3 jobs.db "DELETE FROM job_blocks WHERE seq = 0"
expect_rc 1 vf replay jobs.db --policy fgd --no-store
contains err "jobs.db: trace 1: 0 jobs and 64 nodes stored, 2000 and 64 recorded"

# the sound store answers
expect_rc 0 vf replay t.db --policy fgd --no-store
expect_rc 0 vf report t.db
