# store-check-rows.sh — check covers the plain SQL tables: a changed cell (a quarantined
# row moves), an orphan row, a deleted row, a dropped table, a changed block of nodes, and a
# store made before the row checksums (schema version 1, upgraded by the first command that
# opens it, whose nodes are rows: a node gets nine GPUs).
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
damage "UPDATE quarantine SET line = 9" \
	"BAD  table quarantine: row 1 (file_id 1, line 9, reason 'column 'arrival': 'xx' is not a number'): its checksum does not match"
damage "UPDATE node_blocks SET data = substr(data, 1, length(data) - 1) || CASE WHEN substr(data, -1) = x'00' THEN x'01' ELSE x'00' END" \
	"BAD  trace 'jobs': d.db: trace 1: node block 0: block checksum mismatch"
damage "UPDATE traces SET njobs = 1999" "BAD  table traces: row 1"
damage "UPDATE files SET rows_read = 7 WHERE name = 'nodes.csv'" "BAD  table files: row 2" \
	"BAD  file 'nodes.csv': 7 rows read, but 64 accepted + 0 quarantined"
damage "UPDATE run_metrics SET value = value + 1 WHERE rowid = 3" "BAD  table run_metrics: row 3"
damage "UPDATE runs SET policy = 'fgd'" "BAD  table runs: row 1"
damage "INSERT INTO quarantine SELECT 99, line, reason, raw, rsum FROM quarantine" \
	"BAD  table quarantine row 2: refers to a row of files that is not there" \
	"BAD  table quarantine: 2 rows, 1 written by voidfit (rows were added)"
damage "DELETE FROM quarantine" "BAD  table quarantine: 0 rows, 1 written by voidfit (rows were deleted)" \
	"BAD  file 'jobs.csv': 1 rows quarantined, 0 in the quarantine table"
damage "DELETE FROM run_metrics WHERE rowid = 5; INSERT INTO run_metrics SELECT * FROM run_metrics WHERE rowid = 6" \
	"BAD  table run_metrics: 63 rows, but not those voidfit wrote (rows were replaced)"
damage "DROP TABLE run_metrics" "BAD  schema table 'run_metrics': missing" "BAD  table run_metrics: "
damage "DROP TABLE runs" "BAD  schema table 'runs': missing" "BAD  runs: "
damage "DELETE FROM row_sums WHERE tbl = 'quarantine'" "BAD  table quarantine: not in row_sums"
damage "UPDATE quarantine SET rsum = NULL" "BAD  table quarantine: row 1 (file_id 1, line 2002, reason 'column 'arrival': 'xx' is not a number'): has no checksum"
expect_rc 1 vf check --json d.db
contains out '"ok": false'
contains out '"problems": 1'
contains out '"detail": "row 1 (file_id 1, line 2002, reason '"'"'column '"'"'arrival'"'"': '"'"'xx'"'"' is not a number'"'"'): has no checksum"'

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
