# Service levels beside the dollars: a fifth of the balanced trace's jobs made too big for
# any node (16 GPUs on nodes of at most 8) are unplaceable. The report warns of it and
# counts them in every format (text, Markdown, HTML, JSON, CSV), with each policy's wait
# p50/p95 by class, slowdown and carried-over work; compare shows the unplaceable column
# and warns before its table; replay warns.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces
awk -F, 'NR == 1 { print; next } { OFS = ","; if (NR % 5 == 0) { $7 = 16; $8 = 1000; $9 = "" } print }' \
	"$tr/balanced/jobs.csv" >unp.csv
vf import -o u.db unp.csv "$tr/balanced/nodes.csv" >/dev/null 2>&1 || die "import failed"
expect_rc 0 vf replay u.db --policy scalar,fgd --seed 1
contains err "warning: jobs unplaceable, that never ran (scalar 400 of 2,000 = 20.0 %, fgd 400 of 2,000 = 20.0 %)"

warn="scalar: 400 of 2000 jobs (20.0 %) were unplaceable and never ran"
expect_rc 0 vf report u.db --format text
contains out "WARNING: $warn"
grep -q '^scalar  1      2,000          400             20.0 %' out ||
	{ sed -n '/^Service levels, per policy/,/^$/p' out >&2; die "text: no unplaceable count"; }
expect_rc 0 vf report u.db --format md
contains out "> **Warning:** $warn"
grep -q '^| scalar | 1 | 2,000 | 400 | 20.0 % |' out || die "md: no unplaceable count"
expect_rc 0 vf report u.db --format html
contains out "<p class=\"warn\"><strong>Warning:</strong> $warn"
contains out '<td class="n">400</td>'
expect_rc 0 vf report u.db --format json
contains out "$warn"
contains out '"unplaceable_jobs": 400'
expect_rc 0 vf report u.db --format csv
contains out "warnings,1,text,\"$warn"
contains out "service,1,unplaceable_jobs,400"

# by class: the stored figures of each class, read back (wait p95 of infer under scalar)
want=$(sqlite3 u.db "SELECT printf('%d', value) FROM run_metrics WHERE run_id = 1 AND key = 'wait_p95_s/infer'")
grep -q "^service_by_class,1,wait_p95_s,$want\$" out ||
	{ grep '^service_by_class,1,' out >&2; die "by class: wait p95 of infer is not $want"; }
p50=$(sqlite3 u.db "SELECT printf('%d', value) FROM run_metrics WHERE run_id = 1 AND key = 'wait_p50_s/infer'")
[ -n "$p50" ] || die "no wait_p50_s/infer stored"
contains out "service_by_class,1,wait_p50_s,$p50"
contains out "service,1,carried_over_jobs,"

expect_rc 0 vf compare u.db
contains err "warning: jobs unplaceable, that never ran (scalar 400 of 2,000 = 20.0 %"
grep -q '^policy .* unplaceable ' out || die "compare: no unplaceable column"
