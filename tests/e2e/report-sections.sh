# voidfit report on a small store of the bundled 'balanced' trace (four policies x seeds
# 1-3): the verdict line and every section; the verdict's saving and 95 % interval against
# a computation from replay's per-seed CSV rows (paired differences, Student t from a
# table); the buckets summing to provisioned per policy, per model and per class; prices,
# a what-if scenario and the API breakeven.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
command -v jq >/dev/null 2>&1 || skip "jq is not installed"
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
pols=fgd,scalar,best-fit,random
vf replay t.db --policy $pols --seeds 1-3 >/dev/null 2>&1 || die "replay failed"

# the text: at a glance with the verdict sentence, service levels, then sections 1-8
expect_rc 0 vf report t.db
grep -Eq '^[a-z0-9-]+ wastes \$[0-9,]+/yr less by placement \(95 % CI' out || die "no verdict line"
tr "\n" " " < out | tr -s " " | grep -q "than scalar on this trace (jobs), over 3 seeds\. That is where the waste goes" || die "the verdict does not name the baseline, trace and seeds"
for s in "At a glance" "Service levels" "1. Cost by bucket" "2. Cost by GPU model" "3. Cost by job class" \
	"4. Fragmentation, stalled GPUs and queue over time" "5. Right-sizing" "6. What-ifs" \
	"7. Owned against rented" "8. Assumptions"; do
	contains out "$s"
done
contains out "no right-sizing stored (voidfit size)"
contains out "No what-if runs of this trace"
contains out "Window: trace seconds 0 to 111673 (1d 7h)"
contains out "Seeds: 1-3; 12 runs of scenario 1 (4 policies)."
contains out "A100 owned: \$0.81 per GPU-hour, ASSUMED (not a list price)"
grep -q '\$[0-9]\{1,3\},[0-9]\{3\},[0-9]\{3\}' out || die "no dollars with separators"
if grep -q 'WARNING' out; then die "a warning on complete runs"; fi
if grep -q '<svg' out; then die "a chart in the text"; fi

# the verdict against random (seeds differ under random): the paired differences of
# recoverable-by-placement $/yr from replay's own per-seed rows, mean and t(0.975, 2) x
# sd / sqrt(3), the best policy being the largest mean saving (replay's CSV ends lines
# with CRLF)
expect_rc 0 vf report t.db --baseline random --format json
cp out rep.json
expect_rc 0 vf replay t.db --policy $pols --seeds 1-3 --no-store --format csv
awk -F, '{ sub(/\r$/, "") }
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == "recoverable_by_placement_usd_per_year") c = i; next }
	$NF == 0 { v[$1, $2] = $c; pol[$1] = 1 }
	END {
		best = ""
		for (p in pol) {
			if (p == "random") continue
			s = 0; for (k = 1; k <= 3; k++) { d[k] = v["random", k] - v[p, k]; s += d[k] }
			m = s / 3; ss = 0; for (k = 1; k <= 3; k++) ss += (d[k] - m) ^ 2
			hw = 4.303 * sqrt(ss / 2) / sqrt(3)
			if (best == "" || m > bm) { best = p; bm = m; bh = hw }
		}
		printf "%s %.6f %.6f\n", best, bm, bh
	}' out >want
read -r wp wm wh <want
jq -r '.tables.verdict[0] | "\(.policy) \(.saving_usd_per_year) \(.ci95_low_usd_per_year) \(.ci95_high_usd_per_year) \(.paired_seeds)"' rep.json >got
read -r gp gm glo ghi gn <got
[ "$gp" = "$wp" ] || die "verdict names $gp, the per-seed rows say $wp"
[ "$gn" = 3 ] || die "verdict over $gn seeds"
# replay's CSV rounds $ to whole dollars: a difference is off by at most 1
awk -v gm="$gm" -v lo="$glo" -v hi="$ghi" -v wm="$wm" -v wh="$wh" 'BEGIN {
	gh = (hi - lo) / 2
	if ((gm - wm) ^ 2 > 1 || (gh - wh) ^ 2 > 9 || wh < 1000) exit 1 }' ||
	die "verdict $gm +/- ($glo..$ghi), want $wm +/- $wh"
jq -e '.verdict | test("than random on this trace \\(jobs\\), over 3 seeds\\. That is where the waste goes")' rep.json \
	>/dev/null || die "JSON verdict text"

# buckets sum to provisioned: per policy, and per model and per class to the same total;
# provisioned is what replay stored (priced at on-demand)
jq -e '[.tables.buckets[] | (.productive_usd_per_year + .stalled_usd_per_year +
	.lost_usd_per_year + .idle_blocked_usd_per_year + .idle_full_usd_per_year +
	.idle_unneeded_usd_per_year - .provisioned_usd_per_year) | fabs < 1e-6] | all' rep.json \
	>/dev/null || die "buckets do not sum to provisioned"
jq -e '[.tables.buckets[] | (.blocked_shape_usd_per_year + .blocked_dim_usd_per_year +
	.blocked_model_usd_per_year + .blocked_queue_usd_per_year -
	.idle_blocked_usd_per_year) | fabs < 1e-6] | all' rep.json >/dev/null ||
	die "blocked causes do not sum to blocked"
for part in by_model by_class; do
	jq -e --arg t $part '. as $r | [$r.tables.buckets[] | . as $b |
		([$r.tables[$t][] | select(.policy == $b.policy) | .provisioned_usd_per_year] | add)
		- $b.provisioned_usd_per_year | fabs < 1e-6] | all' rep.json >/dev/null ||
		die "$part does not sum to the provisioned $/yr"
done
jq -e '. as $r | [$r.tables.runs[] | .provisioned_usd_per_year] | unique | length == 1 and
	(.[0] - $r.tables.buckets[0].provisioned_usd_per_year | fabs) < 1e-6' rep.json \
	>/dev/null || die "provisioned is not the runs' provisioned"
jq -e '[.tables.buckets[] | .run_ids | split(",") | length == 3] | all' rep.json >/dev/null ||
	die "no run ids"
jq -e '.sections | length == 10' rep.json >/dev/null || die "want 10 sections in JSON (at a glance, service levels, 1-8)"
jq -e '.tables.series | length > 100' rep.json >/dev/null || die "no series points"

# CSV: every cell, raw; the same saving as JSON
expect_rc 0 vf report t.db --baseline random --format csv
head -1 out | grep -qx 'table,row,column,value' || die "CSV header"
got=$(awk -F, '$1 == "verdict" && $3 == "saving_usd_per_year" { print $4 }' out)
[ "$got" = "$(jq -r '.tables.verdict[0].saving_usd_per_year' rep.json)" ] ||
	die "CSV saving $got differs from JSON's"

# prices: the owned tier, and an override that shows as its source
expect_rc 0 vf report t.db --price-tier owned --gpu-price A100=1.5 --format json
jq -e '[.tables.prices[] | select(.model == "A100" and .tier == "owned")][0] |
	.usd_per_gpu_hour == 1.5 and .source == "--gpu-price" and .assumed == 0' out \
	>/dev/null || die "the --gpu-price override is not in the prices"
expect_rc 2 vf report t.db --price-tier cheap
contains err "cheap"

# an API at $2 a million tokens, 1e6 tokens a productive GPU-hour: $2 a productive hour;
# owning breaks even at owned / on-demand (on-demand here is the table's, as printed)
expect_rc 0 vf report t.db --api-price 2 --tokens-per-gpu-hour 1000000 --format json
jq -e '[.tables.breakeven[] | .api_usd_per_productive_gpu_hour == 2 and
	(.owned_usd_per_productive_gpu_hour * .productive_share - .breakeven_share_api * 2 |
	fabs) < 1e-9] | all' out >/dev/null || die "API breakeven"

# a what-if: the same policies under io-pressure 2, against this scenario
vf replay t.db --policy fgd,scalar --seeds 1-3 --io-pressure 2 >/dev/null 2>&1 ||
	die "what-if replay failed"
expect_rc 0 vf report t.db --scenario 1 --format json
jq -e '[.tables.what_if[] | select(.what_if == "io-pressure 2")] | length == 2' out \
	>/dev/null || die "no io-pressure what-if rows"
jq -e '[.tables.what_if[] | (.what_if_usd_per_year - .plain_usd_per_year -
	.change_usd_per_year) | fabs < 1e-6] | all' out >/dev/null || die "what-if change"
expect_rc 0 vf report t.db --scenario 1
contains out "io-pressure 2"

# the over-time figures stop a quarter past the pricing window (1.25 x 111673 s)
jq -e '[.tables.series[].t_s] | max <= 139591.25 and max > 111673' rep.json >/dev/null ||
	die "the series are not cut a quarter past the window"
# the table's means and peaks are over the pricing window
jq -e '[.tables.over_time[] | .queued_peak_s <= 111673 and .frag_peak <= 1 and
	.frag_mean <= .frag_peak] | all' rep.json >/dev/null || die "over-time table outside the window"

# a stored right-sizing shows in section 5, as 'voidfit size' stored it
vf size t.db --policy fgd --slo 'wait_p95<=12h' --seeds 1-3 >/dev/null 2>&1 || true
[ "$(sqlite3 t.db 'SELECT count(*) FROM sizings WHERE scenario_id = 1')" -gt 0 ] ||
	die "size stored no sizing of scenario 1 (the test needs one)"
if [ "$(sqlite3 t.db 'SELECT count(*) FROM sizings WHERE scenario_id = 1')" -gt 0 ]; then
	expect_rc 0 vf report t.db --scenario 1 --format json
	jq -e '.tables.sizing[0].policy == "fgd"' out >/dev/null || die "no sizing row"
	want=$(sqlite3 t.db 'SELECT gpus_retired FROM sizings WHERE scenario_id = 1')
	jq -e ".tables.sizing[0].gpus_retired == $want" out >/dev/null ||
		die "the report's retired GPUs are not the stored ones ($want)"
	expect_rc 0 vf report t.db --scenario 1
	contains out "The smallest cluster that still meets the SLO"
	if grep -q "no right-sizing stored" out; then die "a stored sizing said absent"; fi
fi
