# report-whole-nodes: the whole-node measure (free GPU nodes against the nodes the waiting
# gangs need) of a run with gangs is stored with it, as replay computed it, and shown by
# compare and report in every format; a trace without gangs stores none and its tables keep
# their columns.
. "$VOIDFIT_TOP/tests/lib.sh"

vf gen --scenario llm -j 800 --nodes 24 --seed 3 -o llm >/dev/null || die "gen"
vf import -o g.db llm/jobs.csv llm/nodes.csv >/dev/null || die "import"
expect_rc 0 vf replay g.db --policy first-fit,scalar --seed 1 --format csv
cp out replay.csv
col() { awk -F, -v k="$2" -v p="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == p { print $c[k] }' "$1"; }
for p in first-fit scalar; do
	free=$(col replay.csv whole_free_nodes $p)
	gw=$(col replay.csv gang_nodes_wanted $p)
	[ -n "$free" ] && [ -n "$gw" ] || die "$p: replay lacks the whole-node measure"
	expect_rc 0 vf compare g.db --format csv
	[ "$(col out whole_free_nodes $p)" = "$free" ] || die "$p: compare's free nodes differ"
	[ "$(col out gang_nodes_wanted $p)" = "$gw" ] || die "$p: compare's want differs"
done
if command -v sqlite3 >/dev/null 2>&1; then
	[ "$(sqlite3 g.db "SELECT count(*) FROM run_metrics WHERE key IN
		('whole_free_nodes', 'gang_nodes_wanted')")" = 4 ] || die "not stored with the runs"
fi
expect_rc 0 vf compare g.db
contains out "free nodes"
contains out "gangs want"
expect_rc 0 vf report g.db
contains out "Whole nodes, per policy"
for f in json csv; do
	expect_rc 0 vf report g.db --format $f
	contains out "gang_nodes_wanted"
done
for f in md html; do
	expect_rc 0 vf report g.db --format $f
	contains out "Whole nodes, per policy"
done

# without gangs: nothing stored, no column in any table
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "workers") w = i }
	{ if (NR > 1 && w) $w = 1; print }' OFS=, llm/jobs.csv >flat.csv
vf import -o f.db flat.csv llm/nodes.csv >/dev/null || die "import flat"
expect_rc 0 vf replay f.db --policy first-fit --seed 1 --format csv
grep -q whole_free_nodes out && die "a trace without gangs has the whole-node columns"
expect_rc 0 vf report f.db --format json
grep -q whole_free_nodes out && die "a report without gangs has the whole-node columns"
if command -v sqlite3 >/dev/null 2>&1; then
	[ "$(sqlite3 f.db "SELECT count(*) FROM run_metrics WHERE key = 'whole_free_nodes'")" = 0 ] ||
		die "stored for a trace without gangs"
fi
exit 0
