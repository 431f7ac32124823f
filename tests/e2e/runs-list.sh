# runs: the stored runs by scenario after replays of two scenarios of one trace and one of
# another: each scenario's line says what defines it, each policy's its seeds and run ids,
# a scenario whose policies have different seeds is marked partial; --trace keeps one
# trace; --json has the same as data.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o t.db --name bal "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
expect_rc 0 vf runs t.db
contains out "no runs"
vf replay t.db --policy first-fit,fgd --seeds 1-2 >/dev/null 2>&1 # runs 1-4
vf replay t.db --policy fgd --seed 3 >/dev/null 2>&1               # run 5: fgd has a seed more
vf replay t.db --policy scalar --io-pressure 2 --fault 'n0003:sto=0.5@0+1h' --seed 7 \
	>/dev/null 2>&1 # run 6
vf import -o t.db --name hard "$tr/hard/jobs.csv" "$tr/hard/nodes.csv" >/dev/null 2>&1
vf replay t.db --trace hard --policy packing --mode inflate --target 1.1 --seed 1 \
	>/dev/null 2>&1 # run 7

expect_rc 0 vf runs t.db
[ "$(grep -c '^scenario ' out)" -eq 3 ] || die "want 3 scenarios"
grep -q '^scenario 1  trace bal  timed fifo .*partial' out || die "scenario 1 not partial"
grep -q '^  first-fit  *seeds 1-2  *runs 1,3 ' out || die "first-fit line"
grep -q '^  fgd  *seeds 1-3  *runs 2,4-5 ' out || die "fgd line"
grep -q '^scenario 2  trace bal  timed fifo, faults n0003:sto=0.5@0+3600, io-pressure 2' out ||
	die "scenario 2 line"
if grep '^scenario 2' out | grep -q partial; then die "scenario 2 marked partial"; fi
grep -q '^  scalar  *seeds 7  *runs 6 ' out || die "scalar line"
grep -q '^scenario 3  trace hard  inflate to 1.1' out || die "scenario 3 line"
grep -q '^  packing  *seeds 1  *runs 7 ' out || die "packing line"
grep -qE ' [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}Z$' out || die "no time on a policy line"

expect_rc 0 vf runs t.db --trace hard
[ "$(grep -c '^scenario ' out)" -eq 1 ] || die "--trace hard: want 1 scenario"
contains out "scenario 3"
expect_rc 1 vf runs t.db --trace nope
contains err "nope"
expect_rc 2 vf runs
contains err "no STORE given"
expect_rc 2 vf runs t.db --bogus
contains err "--bogus"

expect_rc 0 vf runs t.db --json
if command -v jq >/dev/null 2>&1; then
	jq -e '.scenarios | length == 3' out >/dev/null || die "json: want 3 scenarios"
	jq -e '.scenarios[0].partial and (.scenarios[1].partial | not)' out >/dev/null ||
		die "json: partial"
	jq -e '.scenarios[0].policies | map(.policy) == ["first-fit", "fgd"]' out >/dev/null ||
		die "json: policies"
	jq -e '.scenarios[0].policies[1] | .seeds == [1, 2, 3] and .runs == [2, 4, 5] and
		.created_at > 0' out >/dev/null || die "json: fgd seeds and runs"
	jq -e '.scenarios[1] | .io_pressure == 2 and .faults == "n0003:sto=0.5@0+3600" and
		.trace == "bal" and .nodes == 64' out >/dev/null || die "json: scenario 2"
	jq -e '.scenarios[2] | .mode == "inflate" and .target == 1.1 and .trace == "hard"' \
		out >/dev/null || die "json: scenario 3"
fi
