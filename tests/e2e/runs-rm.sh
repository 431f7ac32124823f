# runs rm: deleted runs are gone with their metrics and buckets, a scenario left without
# runs goes too (unless a sizing rests on it), and an id that is not there is refused,
# naming it, with nothing deleted.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
vf replay t.db --policy first-fit,fgd --seeds 1-2 >/dev/null 2>&1 # runs 1-4, scenario 1
vf replay t.db --policy scalar --io-pressure 2 --seed 1 >/dev/null 2>&1 # run 5, scenario 2
q() { sqlite3 t.db "$1"; }
[ "$(q 'SELECT count(*) FROM runs')" -eq 5 ] || die "want 5 runs"
[ "$(q 'SELECT count(*) FROM run_buckets WHERE run_id = 5')" -gt 0 ] || die "run 5 has no buckets"

# an unknown id among known ones: refused, nothing deleted
cp t.db before.db
expect_rc 1 vf runs rm t.db 1 99 5
contains err "no run 99"
contains err "nothing deleted"
cmp -s t.db before.db || [ "$(q 'SELECT count(*) FROM runs')" -eq 5 ] || die "runs lost"
[ "$(q 'SELECT count(*) FROM run_metrics WHERE run_id IN (1, 5)')" -gt 0 ] || die "metrics lost"
expect_rc 2 vf runs rm t.db 0
contains err "'0'"
expect_rc 2 vf runs rm t.db
contains err "no run ID given"

# delete run 5 (scenario 2's only run) and runs 1 and 3 (first-fit, seeds 1-2)
expect_rc 0 vf runs rm t.db 5 1,3
contains err "deleted 3 runs from t.db"
[ "$(q 'SELECT group_concat(id) FROM runs')" = "2,4" ] || die "runs left: $(q 'SELECT group_concat(id) FROM runs')"
for t in run_metrics run_buckets; do
	[ "$(q "SELECT count(*) FROM $t WHERE run_id IN (1, 3, 5)")" -eq 0 ] ||
		die "$t of deleted runs left"
	[ "$(q "SELECT count(*) FROM $t WHERE run_id = 2")" -gt 0 ] || die "$t of run 2 lost"
done
[ "$(q 'SELECT group_concat(id) FROM scenarios')" = "1" ] || die "scenario 2 not deleted"
expect_rc 0 vf runs t.db
if grep -q first-fit out; then die "first-fit still listed"; fi
if grep -q '^scenario 2' out; then die "scenario 2 still listed"; fi
grep -q '^  fgd  *seeds 1-2  *runs 2,4 ' out || die "fgd line"
expect_rc 0 vf check -q t.db

# a sizing keeps its scenario when the last run goes
vf size t.db --policy all --slo 'wait_p95<=1d' >/dev/null 2>&1 || die "size failed"
[ "$(q 'SELECT count(*) FROM sizings')" -ge 10 ] || die "sizings not stored"
expect_rc 0 vf runs rm t.db 2 4
[ "$(q 'SELECT count(*) FROM runs')" -eq 0 ] || die "runs left"
[ "$(q 'SELECT count(*) FROM scenarios')" -eq 1 ] || die "the sized scenario went"
expect_rc 0 vf runs t.db
contains out "no runs"
contains out "sized to meet wait_p95<=1d at seed 1, GPUs retired of 384:"
# the policies' GPUs retired, wrapped before 80 columns
grep -q '^    random [0-9]*, first-fit [0-9]*,' out || die "no line of policies: $(cat out)"
[ "$(grep -c '^    ' out)" -ge 2 ] || die "the policies are not wrapped"
if awk 'length > 79 && /^    /' out | grep -q .; then die "a line of policies is too long"; fi
