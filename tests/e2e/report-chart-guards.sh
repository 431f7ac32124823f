# The report's charts with every policy (12): each says in one line how to read it; the
# bar charts set the baseline's and the winner's names in bold, tagged; a line chart draws
# at most 8 lines, the baseline and the winner first and thick, and says how many more
# policies the table and the series hold.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
vf replay t.db --policy all --seed 1 >/dev/null 2>&1 || die "replay failed"
expect_rc 0 vf report t.db -o r.md
best=$(vf report t.db --format csv | awk -F, '$1 == "verdict" && $3 == "policy" { print $4 }')
[ -n "$best" ] && [ "$best" != scalar ] || die "no winner in the verdict ('$best')"
for f in r-1.svg r-2.svg r-3.svg r-4.svg r-5.svg r-6.svg; do
	grep -q '<text [^>]*fill="#333333">[^<]*[Ll]ower is better\|<text [^>]*fill="#333333">[^<]* is better' "$f" ||
		die "$f has no reading"
done
grep -q 'font-weight="bold">scalar (baseline)<' r-1.svg || die "the baseline is not set apart"
grep -q "font-weight=\"bold\">$best (best)<" r-1.svg || die "the winner ($best) is not set apart"
for f in r-4.svg r-5.svg r-6.svg; do
	# the plot's lines are its polylines less the frame; the legend names one each
	n=$(($(grep -c '<polyline' "$f") - 1))
	[ "$n" -le 8 ] || die "$f draws $n lines"
	grep -q '>scalar (baseline)<' "$f" && grep -q ">$best (best)<" "$f" ||
		die "$f lacks the baseline or the winner"
	[ "$(grep -c 'stroke-width="3.6"' "$f")" -ge 2 ] || die "$f: the two are not drawn thick"
	grep -q '4 more policies in the table above' "$f" || die "$f does not say what it left out"
done
