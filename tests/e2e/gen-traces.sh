# gen-traces: regenerating the bundled traces gives the same bytes as traces/.
. "$VOIDFIT_TOP/tests/lib.sh"
sh "$VOIDFIT_TOP/scripts/make-traces.sh" "$VOIDFIT" regen >out 2>err || { cat err; die "make-traces.sh failed"; }
for d in balanced irregular storage-stress hard; do
	for f in jobs.csv nodes.csv faults.txt; do
		if [ -f "$VOIDFIT_TOP/traces/$d/$f" ] || [ -f "regen/$d/$f" ]; then
			cmp "$VOIDFIT_TOP/traces/$d/$f" "regen/$d/$f" || die "traces/$d/$f differs from a regeneration"
		fi
	done
done
[ -f regen/hard/faults.txt ] || die "hard has no faults.txt"
