# compare --target T compares the stored runs at target T, not the newest scenario of
# another target; it implies --mode inflate, refuses --mode timed, and says which scenario
# it chose and why.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
vf replay t.db --policy fgd,scalar --mode inflate --target 0.9 --seeds 1-2 >/dev/null 2>&1 ||
	die "replay at 0.9 failed"
vf replay t.db --policy fgd,scalar --mode inflate --target 1.0 --seeds 1-2 >/dev/null 2>&1 ||
	die "replay at 1.0 failed"

# the older scenario, at 0.9: its runs, not the newest ones at 1.0
expect_rc 0 vf compare t.db --mode inflate --target 0.9
contains err "scenario 1 of trace jobs (inflate to 0.9): 4 runs; the only scenario of the trace matching the options"
want=$(sqlite3 t.db "SELECT printf('%.3f', avg(value)) FROM run_metrics m JOIN runs r ON r.id = m.run_id
	WHERE r.scenario_id = 1 AND m.key = 'arrived_load'")
grep -q "^scalar .* $want " out || { cat out >&2; die "not the load of target 0.9 ($want)"; }
expect_rc 0 vf compare t.db --target 1 --format json
contains err "scenario 2 of trace jobs (inflate to 1)"
# without --target: the newest of the two, and it says so
expect_rc 0 vf compare t.db
contains err "scenario 2 of trace jobs (inflate to 1): 4 runs; the newest of 2 scenarios of the trace whose policies all have the same seeds"
# no runs at that target: compare runs the policies itself and says why
expect_rc 0 vf compare t.db --target 0.5 --policies scalar
contains err "no stored inflate runs at target 0.5 of trace jobs"
expect_rc 2 vf compare t.db --mode timed --target 1
contains err "--target applies to --mode inflate only"
