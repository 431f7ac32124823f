# store-seal.sh — every table a figure is read from is sealed: a cost bucket, a scenario, a
# sizing or its models, or a run's blocks changed behind voidfit's back fails check (a
# bucket ten times larger moved the report's figures tenfold and check said "no
# problems"). A store of schema version 5 (tests/data/store-v5.voidfit) is upgraded: its run
# blocks move to run_blobs byte for byte without the file growing by them, its rows are
# sealed, and the figures read from it are unchanged.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"

# the upgrade: blocks, buckets, metrics and sizings as they were; the file barely grows
cp "$VOIDFIT_TOP/tests/data/store-v5.voidfit" old.db
[ "$(sqlite3 old.db 'PRAGMA user_version')" = 5 ] || die "the fixture is not at schema 5"
blocks="SELECT group_concat(id || ':' || hex(series) || ':' || hex(jobs), ';') FROM
	(SELECT id, series, jobs FROM runs ORDER BY id)"
figures="SELECT (SELECT group_concat(run_id || model || class || bucket || gpu_ms, ';') FROM
	(SELECT * FROM run_buckets ORDER BY 1, 2, 3, 4)),
	(SELECT group_concat(run_id || key || value, ';') FROM run_metrics),
	(SELECT group_concat(nodes_min || usd_per_year, ';') FROM sizings),
	(SELECT group_concat(model || nodes_min, ';') FROM sizing_models)"
before_blocks=$(sqlite3 old.db "$blocks")
before=$(sqlite3 old.db "$figures")
expect_rc 0 vf check old.db
for t in scenarios runs run_blobs run_buckets sizings sizing_models; do
	contains out "ok   table $t:"
done
contains out "ok   table run_blobs: 4 rows, checksums match"
contains out "ok   table sizing_models: 1 rows, checksums match"
[ "$(sqlite3 old.db "$figures")" = "$before" ] || die "the upgrade changed the figures"
[ "$(sqlite3 old.db "SELECT group_concat(run_id || ':' || hex(series) || ':' || hex(jobs), ';')
	FROM (SELECT * FROM run_blobs ORDER BY run_id)")" = "$before_blocks" ] ||
	die "the upgrade changed the run blocks"
expect_rc 0 vf runs old.db
contains out "sized to meet wait_p95<=1h"

# blocks of 1.2 MB in all (not blocks voidfit could read: only their bytes count here) move
# run by run, into the pages the previous run's left: the file grows by about one run's
cp "$VOIDFIT_TOP/tests/data/store-v5.voidfit" big.db
sqlite3 big.db "UPDATE runs SET jobs = randomblob(300000)"
size_before=$(wc -c < big.db)
vf runs big.db >/dev/null 2>&1 || die "runs on the upgraded store failed"
[ "$(sqlite3 big.db 'SELECT sum(length(jobs)) FROM run_blobs')" -eq 1200000 ] ||
	die "the blocks did not move"
[ "$(wc -c < big.db)" -le $((size_before + 400000)) ] ||
	die "the upgrade grew the store from $size_before to $(wc -c < big.db) bytes"

# damage SQL WANT...: a copy of old.db damaged by SQL fails check with each WANT in its output
damage() {
	cp old.db d.db
	sqlite3 d.db "$1"
	shift
	expect_rc 1 vf check d.db
	for w in "$@"; do contains out "$w"; done
}
damage "UPDATE run_buckets SET gpu_ms = gpu_ms * 10" \
	"BAD  table run_buckets: row 1 (run_id 1, model 'A100', class " \
	"BAD  table run_buckets: 10 rows, but not those voidfit wrote"
damage "UPDATE scenarios SET window_end = window_end / 2" \
	"BAD  table scenarios: row 1 (id 1, trace_id 1, key 'trace=1;" "its checksum does not match"
damage "UPDATE sizings SET usd_per_year = usd_per_year * 10" \
	"BAD  table sizings: row 1 (id 1, scenario_id 1, policy 'scalar')"
damage "UPDATE sizing_models SET nodes_min = nodes_min + 5" "BAD  table sizing_models: row 1"
damage "DELETE FROM run_blobs WHERE run_id = 2" \
	"BAD  table run_blobs: 3 rows, 4 written by voidfit (rows were deleted)" \
	"BAD  run 2: "
damage "UPDATE runs SET seed = 7 WHERE id = 1" "BAD  table runs: row 1"

# a store of this version: what replay and size write is sealed, what runs rm deletes too
vf import -q -o t.db "$VOIDFIT_TOP/traces/balanced/jobs.csv" \
	"$VOIDFIT_TOP/traces/balanced/nodes.csv"
vf replay t.db --policy first-fit,scalar --seed 1 >/dev/null 2>&1 || die "replay failed"
vf size t.db --policy first-fit --slo 'wait_p95<=12h' >/dev/null 2>&1 || die "size failed"
vf size t.db --policy first-fit --slo 'wait_p95<=12h' >/dev/null 2>&1 || die "size again failed"
expect_rc 0 vf runs rm t.db 1
expect_rc 0 vf check t.db
contains out "ok   table run_blobs: 1 rows, checksums match"
contains out "ok   table sizings: 1 rows, checksums match"
vf report t.db --format text >before.txt 2>&1 || die "report failed"
sqlite3 t.db "UPDATE run_buckets SET gpu_ms = gpu_ms * 10"
vf report t.db --format text >after.txt 2>&1 || true
if cmp -s before.txt after.txt; then die "the damage does not move the report"; fi
expect_rc 1 vf check t.db
contains out "BAD  table run_buckets: "
