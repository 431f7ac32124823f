# replay-gangs: a generated LLM trace (training gangs of 2 to 64 nodes) replays the same
# under --threads 1 and 2, for every queue discipline and both gang placements; an EASY
# over-estimate other than 1 is a scenario of its own, and the options are checked.
. "$VOIDFIT_TOP/tests/lib.sh"

vf gen --scenario llm -j 1500 --nodes 40 --seed 5 -o llm >/dev/null || die "gen"
vf import -o g.db llm/jobs.csv llm/nodes.csv >/dev/null || die "import"
for q in fifo backfill priority easy; do
	for spread in "" --gang-spread; do
		set -- g.db --policy first-fit,fgd,ragp7 --seeds 1-2 --queue "$q" $spread \
			--no-store --format csv
		vf replay "$@" --threads 1 >one.csv || die "replay $q $spread, 1 thread"
		vf replay "$@" --threads 2 >two.csv || die "replay $q $spread, 2 threads"
		cmp one.csv two.csv || die "$q $spread: --threads 1 and 2 differ"
	done
done
# an over-estimate is a scenario of its own; the default keeps the key of easy alone
expect_rc 0 vf replay g.db --policy first-fit --queue easy
expect_rc 0 vf replay g.db --policy first-fit --queue easy --runtime-overestimate 1
expect_rc 0 vf replay g.db --policy first-fit --queue easy --runtime-overestimate 3
expect_rc 0 vf runs g.db --json
contains out '"id": 2,'
grep -q '"id": 3,' out && die "--runtime-overestimate 1 made a scenario of its own"
expect_rc 2 vf replay g.db --policy first-fit --runtime-overestimate 3 --no-store
contains err "--runtime-overestimate needs --queue easy"
expect_rc 2 vf replay g.db --policy first-fit --queue lifo --no-store
contains err "not fifo, backfill, priority or easy"
