# report and compare on an inflation scenario: the verdict command their lead gives is
# that scenario's (--mode inflate --target X, no resamples, which inflation refuses) and
# runs as given; a draw that found no room is a failed job, as inflation means it, not a
# job "no node could hold even empty": no such warning, and the At a glance screen gives
# each policy's failed draws, the replay's own failed_jobs. A timed scenario with another
# queue names it beside the command, escaped on a terminal.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o s.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"
vf replay s.db --policy scalar,fgd --mode inflate --target 0.8 -f csv >r.csv 2>/dev/null ||
	die "replay failed"
failed() { awk -F, -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["policy"] == p { print $c["failed_jobs"] }' r.csv; }
fs=$(failed scalar) ff=$(failed fgd)
[ "$fs" -gt 0 ] || die "want scalar to fail some draws at 0.8: $(cat r.csv)"

expect_rc 0 vf report s.db --format text
cmd="voidfit verdict s.db --baseline scalar --mode inflate --target 0.8."
tr '\n' ' ' <out | tr -s ' ' | grep -qF "is not stored: $cmd" || die "report: not the scenario's verdict: $(cat out)"
if grep -q "were unplaceable and never ran" out; then die "report: failed draws said unplaceable"; fi
tr '\n' ' ' <out | tr -s ' ' |
	grep -qF "Service: the jobs drawn that found no room and failed: scalar $fs, fgd $ff (Service levels)." ||
	die "report: not the failed draws ($fs, $ff): $(cat out)"

expect_rc 0 vf compare s.db --mode inflate --target 0.8
contains err "is not stored: $cmd"
if grep -q "jobs unplaceable, that never ran" err; then die "compare: failed draws said unplaceable"; fi
# the command as given runs
expect_rc 0 vf verdict s.db --baseline scalar --mode inflate --target 0.8 -p fgd --threads 2
contains out "failed draws"

# a timed scenario of another queue: its option named beside the command
vf replay s.db --policy scalar,fgd --queue backfill >/dev/null 2>&1 || die "replay backfill failed"
id=$(vf runs s.db 2>/dev/null | awk '/timed backfill/ { print $2; exit }')
[ -n "$id" ] || die "no backfill scenario: $(vf runs s.db 2>&1)"
expect_rc 0 vf compare s.db --scenario "$id"
contains err "voidfit verdict s.db --baseline scalar --resamples 20, with this scenario's options too (timed backfill)."
# a scenario option from a file name is escaped on the terminal, as the scenario line is
f=$(printf 'c\033[31mx.spec')
printf 'a 8 A100 8\nt 4 T4 4\n' >"$f"
vf replay s.db --policy scalar,fgd --cluster "$f" >/dev/null 2>&1 || die "replay --cluster failed"
id=$(vf runs s.db 2>/dev/null | awk '/cluster/ { print $2; exit }')
expect_rc 0 vf compare s.db --scenario "$id"
if grep -q "$(printf '\033')" err; then die "compare: a raw escape on the terminal: $(cat -v err)"; fi
contains err 'with this scenario'"'"'s options too (timed fifo, cluster c\x1b[31mx.spec).'
echo ok
