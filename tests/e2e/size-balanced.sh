# size on the bundled balanced trace (38 A100 x 8, 20 T4 x 4, 6 CPU-only nodes): the GPUs
# add up, the $ are the retired GPUs at the list prices for a year, the result holds at
# every seed (no fewer nodes over seeds 1-2 than at either seed alone), it is stored once
# per SLO and seeds, --shrink shrinks one model, and the output says what it rests on.
# The bisection itself is checked against every size in tests/unit/test-size.c.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
command -v jq >/dev/null 2>&1 || skip "jq is not installed"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
q() { sqlite3 t.db "$1"; }
slo='wait_p95<=30m'

expect_rc 0 vf size t.db --policy fgd,best-fit --slo "$slo" --seeds 1-2 --json
mv out both.json
contains err "stored 2 sizings of scenario 1 in t.db"
if grep -q "$(printf '\r')" err; then die "progress bar on a non-terminal stderr"; fi
jq -e '.rows | length == 2' both.json >/dev/null || die "want 2 rows"
# the GPUs add up: kept + retired = full; kept = 8 x A100 + 4 x T4 nodes; 6 CPU-only stay
jq -e '[.rows[] | .gpus + .gpus_retired == .gpus_full and .gpus_full == 384 and
	.gpus == 8 * .nodes_A100 + 4 * .nodes_T4 and .nodes == .nodes_A100 + .nodes_T4 + 6 and
	.gpus_retired > 0 and .nodes_A100 < 38] | all' both.json >/dev/null ||
	die "GPUs do not add up: $(cat both.json)"
# saved $/yr = retired GPUs x on-demand price x 8760 (the 5th field of schemas/gpu-models.csv)
a100=$(awk -F, '$1 == "A100" { print $5 }' "$VOIDFIT_TOP/schemas/gpu-models.csv")
t4=$(awk -F, '$1 == "T4" { print $5 }' "$VOIDFIT_TOP/schemas/gpu-models.csv")
[ -n "$a100" ] && [ -n "$t4" ] || die "no A100 or T4 price in gpu-models.csv"
jq -e --argjson a "$a100" --argjson t "$t4" '[.rows[] | ((38 - .nodes_A100) * 8 * $a +
	(20 - .nodes_T4) * 4 * $t) * 8760 - .usd_per_year | fabs < 0.01] | all' both.json \
	>/dev/null || die "\$/yr is not retired GPUs x price x 8760"
# the SLO held: the sized wait is within it, at the worst seed
jq -e '[.rows[] | .wait_p95_sized <= 1800 and .wait_p95_full <= .wait_p95_sized] | all' \
	both.json >/dev/null || die "sized wait over the SLO"
# at every seed: no fewer nodes than either seed alone needs
for s in 1 2; do
	expect_rc 0 vf size t.db --policy fgd,best-fit --slo "$slo" --seeds $s --json --no-store
	jq -e --slurpfile b both.json '[range(2) as $i | .rows[$i].nodes <= $b[0].rows[$i].nodes] |
		all' out >/dev/null || die "seeds 1-2 need fewer nodes than seed $s alone"
done
# stored: one row per policy, its models, read back as what was printed
[ "$(q 'SELECT count(*) FROM sizings')" -eq 2 ] || die "want 2 sizings"
[ "$(q "SELECT slo || ' ' || seed_lo || '-' || seed_hi || ' ' || price_tier FROM sizings WHERE policy = 'fgd'")" = \
	"wait_p95<=30m 1-2 on-demand" ] || die "sizing row: $(q 'SELECT * FROM sizings')"
[ "$(q "SELECT gpus_retired FROM sizings WHERE policy = 'fgd'")" -eq \
	"$(jq '.rows[] | select(.policy == "fgd") | .gpus_retired' both.json)" ] ||
	die "stored GPUs retired differ from the printed ones"
[ "$(q "SELECT sum(m.gpus_full - m.gpus_min) = z.gpus_retired FROM sizing_models m JOIN sizings z ON z.id = m.sizing_id WHERE z.policy = 'fgd'")" -eq 1 ] ||
	die "sizing_models do not add up"
# the same sizing again replaces its row; --no-store stores nothing
vf size t.db --policy fgd --slo "$slo" --seeds 1-2 >/dev/null 2>&1
vf size t.db --policy fgd --slo 'wait_p95<=1h' --no-store >/dev/null 2>&1
[ "$(q 'SELECT count(*) FROM sizings')" -eq 2 ] || die "a sizing stored twice, or --no-store stored"

# text: the cluster, the SLO at every seed, the search and its assumption, the step below
expect_rc 0 vf size t.db --policy fgd --slo "$slo" --seeds 1-2 --no-store
contains out "full cluster: 64 nodes, 384 GPUs (A100 38 nodes, 304 GPUs; T4 20 nodes, 80 GPUs; 6 CPU-only nodes, never retired)"
contains out "SLO: wait_p95<=30m and no more unplaceable jobs than on the full cluster, at every seed (1-2)"
contains out "assumes that a cluster meeting the SLO still meets it with more nodes"
grep -q '^fgd: one step smaller (A100 [0-9]*, T4 [0-9]*) misses wait_p95<=30m: ' out ||
	die "no line on the step below"
contains out "prices: on-demand"
# the larger sizes tried: stored as the text says them, and shown in the report
ca=$(q "SELECT checked_above FROM sizings WHERE policy = 'fgd'")
mn=$(q "SELECT miss_above_nodes FROM sizings WHERE policy = 'fgd'")
[ "$ca" -ge 0 ] && [ "$ca" -le 2 ] || die "checked_above is '$ca'"
jq -e --argjson ca "$ca" --argjson mn "$mn" '.rows[] | select(.policy == "fgd") |
	.checked_above == $ca and .miss_above_nodes == $mn' both.json >/dev/null ||
	die "the JSON's checked_above or miss_above_nodes differ from the stored ones"
vf replay t.db --policy fgd,best-fit >/dev/null 2>&1 || die "replay failed"
expect_rc 0 vf report t.db --format csv
if [ "$mn" -gt 0 ]; then
	contains out "NOT MONOTONE: $mn nodes miss the SLO"
elif [ "$ca" -gt 0 ]; then
	contains out "the next $ca meet it too"
fi
# a sizing of an older voidfit (before migration 5): the schema 5 store's, unsealed there
# and sealed as found by migration 6; the same made by SQL on a new sizing is refused
cp "$VOIDFIT_TOP/tests/data/store-v5.voidfit" v5.db
sqlite3 v5.db "UPDATE sizings SET checked_above = -1" || die "sqlite3 failed"
expect_rc 0 vf report v5.db --format csv
contains out "not checked (an older voidfit)"
q "UPDATE sizings SET checked_above = -1"
expect_rc 1 vf report t.db --format csv
contains err "t.db: table sizings: 2 of its 2 rows do not match their checksum"

# one model alone: T4 shrinks, A100 stays whole
expect_rc 0 vf size t.db --policy fgd --slo "$slo" --shrink T4 --json --no-store
jq -e '.rows[0] | .nodes_T4 < 20 and (has("nodes_A100") | not) and
	.gpus == 304 + 4 * .nodes_T4' out >/dev/null || die "--shrink T4: $(cat out)"

# 'full' bounds: no worse than the full cluster's own figure
expect_rc 0 vf size t.db --policy fgd --slo 'wait_p95<=full' --json --no-store
jq -e '.rows[0] | .wait_p95_sized <= .wait_p95_full' out >/dev/null || die "wait_p95<=full"
