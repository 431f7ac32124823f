# replay stopped by a signal (SIGTERM, SIGHUP, or Ctrl-C's SIGINT): exit 130, it says which (policy,
# seed) runs were stored and which not, and the command that runs only those; --resume stores
# exactly the missing pairs and prints the table a straight replay prints. A signal ignored
# when it started (SIGINT in a script's background job) stays ignored. On a terminal the
# progress line is blanked before the message.
. "$VOIDFIT_TOP/tests/lib.sh"
# 60,000 jobs on 300 nodes: about 0.3 s per fgd or best-fit run (longer under sanitizers),
# time enough to interrupt the second run once the first is stored
vf gen --scenario balanced --jobs 60000 --nodes 300 -o . >/dev/null || die "gen failed"
vf import -o t.db jobs.csv nodes.csv >/dev/null 2>&1 || die "import failed"
cp t.db straight.db
cp t.db empty.db
set -- replay t.db --policy fgd,best-fit --seeds 1-2 --threads 1 --format csv

nruns() { sqlite3 t.db 'select count(*) from runs' 2>/dev/null || echo 0; }
# wait_stored PID: until a run is stored (or PID ended)
wait_stored() {
	i=0
	while [ "$(nruns)" -lt 1 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.05
		i=$((i + 1))
		[ $i -lt 1200 ] || die "no run stored in 60 s"
	done
}

# exit_of PID: wait for PID; its exit status in rc (set -e would stop at a non-zero one)
exit_of() {
	set +e
	wait "$1"
	rc=$?
	set -e
}

# SIGINT ignored from the start (as a background job of a script gets it) stays ignored.
# A replay that stored all four runs and exited 0 ended before SIGTERM came (a loaded
# machine): that try is made again, three at the most.
for try in 1 2 3; do
	cp empty.db t.db
	(trap '' INT && exec "$VOIDFIT" "$@") >out 2>err &
	pid=$!
	wait_stored $pid
	kill -INT $pid 2>/dev/null || true
	sleep 0.1
	kill -0 $pid 2>/dev/null || [ "$(nruns)" -eq 4 ] || die "an ignored SIGINT stopped the replay"
	kill -TERM $pid 2>/dev/null || true
	exit_of $pid
	[ "$rc" -eq 0 ] && [ "$(nruns)" -eq 4 ] || break
	[ "$try" -lt 3 ] || die "the replay ended before SIGTERM came, three times"
done
[ "$rc" -eq 130 ] || { cat err >&2; die "interrupted replay exited $rc, wanted 130"; }
[ ! -s out ] || die "an interrupted replay printed a table"
k=$(nruns)
[ "$k" -ge 1 ] && [ "$k" -lt 4 ] || die "$k runs stored; the signal came too late"
# the message names what the store holds, pair by pair
stored=$(sqlite3 -separator ' seed ' t.db 'select policy, seed from runs order by id' |
	paste -sd, -)
case $k in
1) want_stored="fgd seed 1" want_not="fgd seed 2; best-fit seeds 1-2" ;;
2) want_stored="fgd seed 1; best-fit seed 1" want_not="fgd seed 2; best-fit seed 2" ;;
3) want_stored="fgd seeds 1-2; best-fit seed 1" want_not="best-fit seed 2" ;;
esac
contains err "voidfit replay: stopped: $k of 4 runs stored in t.db: $want_stored"
contains err "not stored: $want_not"
contains err "to run only those: voidfit replay t.db --policy fgd,best-fit --seeds 1-2 --threads 1 --format csv --resume"
[ "$(grep -c . err)" -eq 3 ] || die "more than the three lines: $(cat err)"

# --resume runs only the missing pairs; the table is a straight replay's
expect_rc 0 vf "$@" --resume
cp out resumed.csv
contains err "stored $((4 - k)) run"
contains err "$k read back (--resume)"
[ "$(nruns)" -eq 4 ] || die "after --resume the store has $(nruns) runs, wanted 4"
[ "$(sqlite3 t.db 'select count(distinct policy || seed) from runs')" -eq 4 ] ||
	die "a pair was stored twice: $stored"
expect_rc 0 vf replay straight.db --policy fgd,best-fit --seeds 1-2 --threads 1 --format csv
cmp -s out resumed.csv || { diff out resumed.csv >&2; die "resumed table differs"; }
# a resume with nothing missing runs nothing
expect_rc 0 vf "$@" --resume
contains err "stored no new run in t.db; 4 read back (--resume)"
cmp -s out resumed.csv || die "a second resume prints another table"

# SIGHUP (the terminal went away) stops it the same way: what is stored is kept and said.
# On a loaded machine the last runs may end before the signal comes: a replay that stored
# all four and exited 0 was not stopped, so that try is made again (three at the most).
# A SIGHUP ignored here (the tests run under nohup) stays ignored in the replay, as it
# should: then this part cannot run, and says so rather than that the replay was too fast.
hup_ignored=$(awk '/^SigIgn:/ { print (substr($2, length($2)) ~ /[13579bdf]/) }' \
	/proc/self/status 2>/dev/null || echo 0)
[ "$hup_ignored" != 1 ] ||
	die "SIGHUP is ignored where the tests run (nohup?): a replay started here ignores it too"
for try in 1 2 3; do
	cp empty.db t.db
	"$VOIDFIT" "$@" >out 2>err &
	pid=$!
	wait_stored $pid
	kill -HUP $pid 2>/dev/null || true
	exit_of $pid
	[ "$rc" -eq 0 ] && [ "$(nruns)" -eq 4 ] || break
	[ "$try" -lt 3 ] || die "the replay ended before SIGHUP came, three times"
done
[ "$rc" -eq 130 ] || { cat err >&2; die "a replay stopped by SIGHUP exited $rc, wanted 130"; }
contains err "voidfit replay: stopped: "

# on a terminal, Ctrl-C (SIGINT): the progress line is blanked before the message
command -v script >/dev/null 2>&1 || skip "no script(1): the terminal part is not tested"
# this script's background jobs ignore SIGINT; env(1) gives the replay its default back
env --default-signal=INT true 2>/dev/null || skip "env has no --default-signal: terminal part not tested"
rm -f t.db && vf import -o t.db jobs.csv nodes.csv >/dev/null 2>&1
export VOIDFIT
script -qfec 'sh -c '\''echo $$ >pid; exec env --default-signal=INT "$VOIDFIT" replay t.db --policy fgd,best-fit --seeds 1-2 --threads 1 >out'\''' \
	typescript </dev/null >/dev/null 2>&1 &
spid=$!
i=0
while [ ! -s pid ]; do
	sleep 0.05
	i=$((i + 1))
	[ $i -lt 200 ] || die "script(1) did not start the replay"
done
# the bar shows after half a second
i=0
while ! grep -q '%  run ' typescript 2>/dev/null && kill -0 "$(cat pid)" 2>/dev/null; do
	sleep 0.05
	i=$((i + 1))
	[ $i -lt 1200 ] || die "no progress bar in 60 s"
done
kill -INT "$(cat pid)" 2>/dev/null || true
wait $spid || true
grep -q '%  run ' typescript || die "no progress bar drawn on the terminal script(1) gave"
# render the terminal: each carriage return goes back to the start of the line
awk 'BEGIN { RS = "\n" } {
	line = ""; n = split($0, seg, "\r")
	for (i = 1; i <= n; i++)
		line = seg[i] substr(line, length(seg[i]) + 1)
	sub(/ +$/, "", line); print line }' typescript >screen
contains screen "voidfit replay: stopped: "
if grep -q '%  run ' screen; then cat screen >&2; die "the progress line is left on the screen"; fi
