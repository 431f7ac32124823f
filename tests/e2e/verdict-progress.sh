# voidfit verdict's progress bar on a terminal (script(1)): one bar for the whole verdict,
# whose searches (fewer GPUs, headroom, purchases) and resamples follow one another instead
# of each starting again at 0 %, with the time taken and, once there is a guess, the time
# left; the line is blanked when the verdict is printed.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v script >/dev/null 2>&1 || skip "no script(1): the terminal part is not tested"
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o s.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"
export VOIDFIT
script -qfec '"$VOIDFIT" verdict s.db --resamples 8 --threads 2 >out' typescript \
	</dev/null >/dev/null 2>&1 || die "verdict under script(1) failed: $(cat typescript)"
contains out "Switching scalar -> "
# each drawing of the bar: its percentage, in order
tr '\r' '\n' <typescript | sed -n 's/^\[[# ]*\] *\([0-9]*\)%.*/\1/p' >pct
[ "$(wc -l <pct)" -ge 10 ] || die "the bar was drawn $(wc -l <pct) times: $(cat typescript)"
awk 'NR > 1 && $1 < p - 15 { print "the bar went back from " p " % to " $1 " %"; bad = 1 }
	{ p = $1; if ($1 > max) max = $1 }
	END { if (max < 90) { print "the bar ended at " max " %"; bad = 1 }; exit bad }' pct ||
	die "not one bar for the whole verdict: $(tr '\n' ' ' <pct)"
grep -q '%  .* ([0-9.m ]*s)' typescript || die "no time taken on the bar: $(cat typescript)"
grep -q '%  .* ([0-9.hms ]*, about [0-9.hms ]* left)' typescript ||
	die "no time left on the bar: $(cat typescript)"
# render the terminal: each carriage return goes back to the start of the line
awk '{ line = ""; n = split($0, seg, "\r")
	for (i = 1; i <= n; i++) line = seg[i] substr(line, length(seg[i]) + 1)
	sub(/ +$/, "", line); print line }' typescript >screen
if grep -q '%  ' screen; then cat screen >&2; die "the bar is left on the screen"; fi
echo ok
