# A store made by the previous version (schema 1, tests/data/store-v1.voidfit) is upgraded
# on open, even by a reader: its runs get a 'legacy' scenario, compare flags them instead of
# mixing them with new runs, and new runs go to a scenario of their own.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
cp "$VOIDFIT_TOP/tests/data/store-v1.voidfit" old.db
[ "$(sqlite3 old.db 'PRAGMA user_version')" = 1 ] || die "the fixture is not at schema 1"

# a reader upgrades it: every run kept, in one legacy scenario, their metrics untouched
before=$(sqlite3 old.db "SELECT group_concat(run_id || key || value) FROM run_metrics")
expect_rc 0 vf compare old.db
[ "$(sqlite3 old.db 'PRAGMA user_version')" -gt 1 ] || die "compare did not upgrade the store"
contains err "made by an earlier voidfit"
contains out "window: not recorded"
[ "$(sqlite3 old.db "SELECT count(*) FROM scenarios WHERE key LIKE 'legacy:%'")" = 1 ] ||
	die "want one legacy scenario"
[ "$(sqlite3 old.db 'SELECT count(*) FROM runs WHERE scenario_id IS NULL')" = 0 ] ||
	die "a run has no scenario"
[ "$(sqlite3 old.db "SELECT group_concat(run_id || key || value) FROM run_metrics")" = \
	"$before" ] || die "the upgrade changed the runs' metrics"
grep -q '^first-fit  *1-2 ' out || die "compare lacks the old first-fit runs"

# a new run is a scenario of its own, and the newest complete one
expect_rc 0 vf replay old.db --policy first-fit,scalar --seed 1
[ "$(sqlite3 old.db 'SELECT count(*) FROM scenarios')" = 2 ] || die "want two scenarios"
expect_rc 0 vf compare old.db
contains err "scenario 2 of trace tiny"
if grep -q "earlier voidfit" err; then die "new runs flagged as old"; fi
expect_rc 0 vf compare old.db --scenario 1
contains err "earlier voidfit"

# a read-only copy cannot be upgraded: a clear error, the file untouched
cp "$VOIDFIT_TOP/tests/data/store-v1.voidfit" ro.db
chmod 444 ro.db
if [ "$(id -u)" != 0 ]; then
	sum=$(cksum < ro.db)
	expect_rc 1 vf compare ro.db
	contains err "needs an upgrade"
	[ "$(cksum < ro.db)" = "$sum" ] || die "a read-only store was changed"
fi
