# A replay that barely uses its cluster (a twentieth of the balanced trace's jobs spread
# over a week: 0.5 % of the GPUs allocated on average) is said to be idle where its figures
# are read first: size warns above its table and marks no policy best (fgd and packing
# retire more GPUs, but of an idle cluster), report's verdict begins with the warning in
# text, Markdown and HTML, and so does the lead (the verdict in money off the bill) of
# report and compare, compare warns before its table, and verdict's sentence begins with
# it; each points to inflation.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
awk -F, 'NR == 1 { print; next } NR % 20 == 2 { OFS = ","; $2 = (NR - 2) * 300; print }' \
	"$tr/balanced/jobs.csv" >idle.csv
vf import -o i.db idle.csv "$tr/balanced/nodes.csv" >/dev/null 2>&1 || die "import failed"

expect_rc 0 vf size i.db --policy scalar,fgd,packing --no-store
head -1 err | grep -q "^voidfit size: WARNING: the full cluster is almost idle (mean allocated GPU share under 1 %: scalar 0.50 %, fgd 0.50 %, packing 0.50 %)" ||
	{ cat err >&2; die "size: no idle warning first"; }
contains err "replay with --mode inflate"
if grep -q '\*' out; then cat out >&2; die "size marked an idle cluster's figure best"; fi
grep -q "^WARNING: the full cluster is almost idle" out || die "size: no idle note under the table"
# fgd retires more GPUs than scalar: without the guard, it would be marked best
s=$(awk '$1 == "scalar" { print $6 }' out) f=$(awk '$1 == "fgd" { print $6 }' out)
[ "$f" -gt "$s" ] || { cat out >&2; die "want fgd to retire more than scalar ($f, $s)"; }
expect_rc 0 vf size i.db --policy scalar,fgd --no-store --format json
grep -q '"notes": \[$' out && grep -q 'WARNING: the full cluster is almost idle' out ||
	die "size: no idle warning in JSON"

vf replay i.db --policy scalar,fgd >/dev/null 2>&1 || die "replay failed"
for f in text md html; do
	expect_rc 0 vf report i.db --format $f
	# the verdict begins with the warning (Markdown: in bold; HTML: in its element)
	grep -q "^\(\*\*\|<p class=\"verdict\">\)\{0,1\}WARNING: the cluster is almost idle (mean allocated GPU share under" out ||
		{ cat out >&2; die "report --format $f: no idle warning in the verdict"; }
	contains out "inflate"
	# so does the lead, the verdict in money off the bill, before the placement verdict
	tr -d '\n' <out | grep -q "\(<p>\|[^*]\)WARNING: the runs allocate 0.50 % of the GPUs on average (under *1 %).\{0,400\}The *verdict *in *money off" ||
		{ cat out >&2; die "report --format $f: no idle warning on the lead"; }
done
expect_rc 0 vf compare i.db
contains err "warning: mean allocated GPU share under 1 % (every policy: scalar 0.50 %, fgd 0.50 %)"
contains err "replay with --mode inflate"
grep -q "^WARNING: the runs allocate 0.50 % of the GPUs on average (under 1 %).*The verdict in money off the bill" err ||
	{ cat err >&2; die "compare: no idle warning on the lead"; }

# verdict: the sentence itself begins with the warning
expect_rc 0 vf verdict i.db --policy fgd,scalar --no-headroom --threads 1
head -1 out | grep -q "^WARNING: scalar's replay allocates 0.50 % of the GPUs on average (under 1 %)" ||
	{ cat out >&2; die "verdict: no idle warning in its sentence"; }
contains out "load it with --mode inflate"
