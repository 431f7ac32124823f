# A store is a file planners send each other: one holding schema objects the migrations do
# not make (a trigger, a view, a table, an index) is refused by every reader before it reads
# a table, and check lists them without reading anything else (a view in a table's place
# would loop forever).
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces/balanced
vf import -q -o t.db "$tr/jobs.csv" "$tr/nodes.csv"
vf replay t.db --policy first-fit --mode inflate --target 0.5 --seed 1 >/dev/null 2>&1

# a trigger that a replay's insert would fire
cp t.db trig.db
sqlite3 trig.db "CREATE TRIGGER t AFTER INSERT ON runs BEGIN
	UPDATE run_metrics SET value = 0; END"
expect_rc 1 vf replay trig.db --policy fgd --mode inflate --target 0.5 --seed 2
contains err "trig.db: holds 1 schema object voidfit does not make (trigger 't'): refused unread"
[ "$(sqlite3 trig.db 'SELECT count(*) FROM runs')" = 1 ] || die "the replay stored a run"
for c in info runs report compare; do
	expect_rc 1 vf $c trig.db
	contains err "trigger 't'"
done
expect_rc 1 vf check trig.db
contains out "BAD  schema trigger 't': not made by voidfit"
contains out "trig.db: 2 problems"

# a view in a table's place: everything ends, at once
cp t.db view.db
sqlite3 view.db "ALTER TABLE nodes RENAME TO old_nodes; CREATE VIEW nodes AS
	WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT * FROM r"
expect_rc 1 timeout 20 "$VOIDFIT" check view.db
mv out check.out
contains check.out "BAD  schema table 'old_nodes': not made by voidfit"
contains check.out "BAD  schema view 'nodes': not made by voidfit"
contains check.out "BAD  store: holds 2 schema objects voidfit does not make: no table read"
expect_rc 1 timeout 20 "$VOIDFIT" report view.db
contains err "view.db: holds 2 schema objects"

# an extra table, an index: refused too; a genuine store is not
cp t.db extra.db
sqlite3 extra.db "CREATE TABLE notes(a); CREATE INDEX nodes_name ON nodes(name)"
expect_rc 1 vf info extra.db
contains err "(table 'notes', index 'nodes_name')"
expect_rc 0 vf check t.db
contains out "ok   schema: "
