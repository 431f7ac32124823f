# store-check-rows.sh — check covers the plain SQL tables: a changed cell (a node gets
# nine GPUs), an orphan row, a deleted row, a dropped table and a store made before the
# row checksums (schema version 1, upgraded by the first command that opens it) .
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
printf 'jbad,xx,1,batch,1000,1024,1,1000,,,,,\n' > bad.csv
cat "$tr/jobs.csv" bad.csv > jobs.csv
vf import -q -o t.db jobs.csv "$tr/nodes.csv"
vf replay t.db --policy first-fit >/dev/null 2>&1
expect_rc 0 vf check t.db
for t in traces files quarantine nodes runs run_metrics; do contains out "ok   table $t:"; done
contains out "ok   foreign keys"
contains out "ok   schema: "
expect_rc 0 vf check --json t.db
contains out '"ok": true'
contains out '"problems": 0'
contains out '"what": "table nodes"'

# damage SQL WANT...: a copy of t.db damaged by SQL fails check with each WANT in its output
damage() {
	cp t.db d.db
	sqlite3 d.db "$1"
	shift
	expect_rc 1 vf check d.db
	for w in "$@"; do contains out "$w"; done
	contains out "d.db: "
}
damage "UPDATE nodes SET ngpu = 9 WHERE idx = 3" \
	"BAD  table nodes: row 4 (trace_id 1, idx 3, name 'n0003'): its checksum does not match"
damage "UPDATE traces SET njobs = 1999" "BAD  table traces: row 1"
damage "UPDATE files SET rows_read = 7 WHERE name = 'nodes.csv'" "BAD  table files: row 2" \
	"BAD  file 'nodes.csv': 7 rows read, but 64 accepted + 0 quarantined"
damage "UPDATE run_metrics SET value = value + 1 WHERE rowid = 3" "BAD  table run_metrics: row 3"
damage "UPDATE runs SET policy = 'fgd'" "BAD  table runs: row 1"
damage "INSERT INTO nodes SELECT 99, idx, name, grp, model, ngpu, cpu_milli, mem_mib, gpu_milli,
	hbm_mib, net_mbps, sto_mbps, iocpu_milli, enriched, rsum, rack FROM nodes WHERE idx = 0" \
	"BAD  table nodes row 65: refers to a row of traces that is not there" \
	"BAD  table nodes: 65 rows, 64 written by voidfit (rows were added)"
damage "DELETE FROM quarantine" "BAD  table quarantine: 0 rows, 1 written by voidfit (rows were deleted)" \
	"BAD  file 'jobs.csv': 1 rows quarantined, 0 in the quarantine table"
damage "DELETE FROM nodes WHERE idx = 5; INSERT INTO nodes SELECT * FROM nodes WHERE idx = 6" \
	"BAD  table nodes: 64 rows, but not those voidfit wrote (rows were replaced)"
damage "DROP TABLE run_metrics" "BAD  schema table 'run_metrics': missing" "BAD  table run_metrics: "
damage "DROP TABLE runs" "BAD  schema table 'runs': missing" "BAD  runs: "
damage "DELETE FROM row_sums WHERE tbl = 'nodes'" "BAD  table nodes: not in row_sums"
damage "UPDATE nodes SET rsum = NULL WHERE idx = 2" "BAD  table nodes: row 3 (trace_id 1, idx 2, name 'n0002'): has no checksum"
expect_rc 1 vf check --json d.db
contains out '"ok": false'
contains out '"problems": 1'
contains out '"detail": "row 3 (trace_id 1, idx 2, name '"'"'n0002'"'"'): has no checksum"'

# A store of schema version 1 is upgraded (its rows sealed) by check, passes, and is then
# checked as any other.
sqlite3 v1.db < "$VOIDFIT_TOP/tests/e2e/store-v1.sql"
[ "$(sqlite3 v1.db 'PRAGMA user_version')" -eq 1 ] || die "the fixture is not at version 1"
expect_rc 0 vf check v1.db
contains out "ok   schema version: $(ls "$VOIDFIT_TOP"/schemas/[0-9][0-9][0-9]-*.sql | wc -l)"
contains out "ok   table nodes: 2 rows, checksums match"
contains out "ok   table quarantine: 1 rows, checksums match"
contains out "ok   table run_metrics: 15 rows"
contains out "ok   trace 'jobs': 5 jobs, 2 nodes"
sqlite3 v1.db "UPDATE nodes SET ngpu = 9 WHERE idx = 1"
expect_rc 1 vf check v1.db
contains out "BAD  table nodes: row 2 (trace_id 1, idx 1, name 'n0001'): its checksum does not match"
sqlite3 v1.db "UPDATE nodes SET ngpu = 8 WHERE idx = 1"
expect_rc 0 vf replay v1.db --policy first-fit
expect_rc 0 vf check v1.db
contains out "ok   table runs: 2 rows, checksums match"
