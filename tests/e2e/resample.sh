# The block bootstrap through replay and compare (--resamples, --block) on the bundled
# storage-stress trace: the saving's interval over resamples x seeds has a width and is the
# same run after run; the resamples' runs are stored as scenarios of their own that compare
# does not take as the newest; the zero-width interval over seeds is no confidence interval;
# the options' errors. With the real samples: the interval on openb's pods and nodes.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o t.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"

# compare over 6 hourly resamples x 2 seeds: a low and a high column, low < high for fgd
expect_rc 0 vf compare t.db --policies fgd,scalar --resamples 6 --seeds 1-2 --format csv
cp out cmp1
contains err "running 2 policies on 6 resamples (not stored)"
head -1 out | grep -q 'resample,.*saving_usd_per_year,saving_low_usd_per_year,saving_high_usd_per_year' ||
	die "no low and high columns: $(head -1 out)"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["policy"] == "fgd" { lo = $c["saving_low_usd_per_year"]; hi = $c["saving_high_usd_per_year"]
		m = $c["saving_usd_per_year"]; found = 1
		if (!(lo + 0 < hi + 0)) { print "zero width: " lo " " hi; exit 1 }
		if (!(lo + 0 <= m + 0 && m + 0 <= hi + 0)) { print "mean outside: " m; exit 1 } }
	END { if (!found) { print "no fgd row"; exit 1 } }' out >msg || die "$(cat msg)"
expect_rc 0 vf compare t.db --policies fgd,scalar --resamples 6 --seeds 1-2 --format csv
cmp -s out cmp1 || die "the same resamples gave another table"
expect_rc 0 vf compare t.db --policies fgd,scalar --resamples 6 --seeds 1-2 --block 2h
contains out "blocks of 2h"
contains out "percentiles of the saving over 6 block resamples"

# without --resamples, seeds change nothing here: no interval of zero width is printed
expect_rc 0 vf compare t.db --policies fgd,scalar --seeds 1-2
contains out "none where every seed gives the same saving: deterministic on this trace"
awk '$1 == "fgd" { if ($NF != "-") { print "fgd has an interval: " $NF; exit 1 } }' out >msg ||
	die "$(cat msg)"

# replay stores each resample as a scenario with its number and block
expect_rc 0 vf replay t.db --policy fgd,scalar --resamples 2 --block 1h
contains err "stored 4 runs"
[ "$(sqlite3 t.db 'SELECT group_concat(resample || ":" || block_s) FROM scenarios')" = \
	"1:3600,2:3600" ] || die "scenarios: $(sqlite3 t.db 'SELECT resample, block_s FROM scenarios')"
expect_rc 0 vf runs t.db
contains out "resample 2 (blocks of 3600 s)"
expect_rc 0 vf check t.db
# compare takes no resample as the newest scenario, but one named
expect_rc 0 vf compare t.db --policies fgd,scalar
contains err "no stored timed runs of trace"
expect_rc 0 vf compare t.db --scenario 2
contains err "resample 2"

# the options
expect_rc 2 vf compare t.db --resamples 3 --mode inflate
contains err "timed mode only (inflation already draws its jobs with replacement"
expect_rc 2 vf replay t.db --policy fgd --block 1h
contains err "--block is for --resamples"
expect_rc 2 vf replay t.db --policy fgd --resamples 2 --block 0
contains err "--block '0': not a duration"
expect_rc 2 vf compare t.db --resamples 0
expect_rc 2 vf compare t.db --resamples 2 --scenario 1
expect_rc 1 vf compare t.db --policies fgd --resamples 2 --block 40d
contains err "holds 1 blocks"

# a real sample: openb's pods and nodes, fgd against scalar over 5 resamples
[ -n "${VOIDFIT_TRACES:-}" ] || exit 0
v23=$VOIDFIT_TRACES/clusterdata/cluster-trace-gpu-v2023/csv
[ -f "$v23/openb_pod_list_default.csv" ] || exit 0
vf import -o o.db "$v23/openb_pod_list_default.csv" "$v23/openb_node_list_all_node.csv" \
	>/dev/null 2>&1 || die "openb import failed"
expect_rc 0 vf compare o.db --policies fgd,scalar --resamples 5 --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["policy"] == "fgd" && !($c["saving_low_usd_per_year"] + 0 < $c["saving_high_usd_per_year"] + 0) {
		print "openb: zero width"; exit 1 }' out >msg || die "$(cat msg)"
