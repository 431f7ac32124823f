# size and verdict stopped by a signal: exit 130 (as replay), one line that says so on
# stderr, no table and, for size, no sizing stored.
. "$VOIDFIT_TOP/tests/lib.sh"
[ -r /proc/self/status ] || skip "no /proc to see when the search catches its signals"
vf gen --scenario balanced --jobs 60000 --nodes 300 -o . >/dev/null || die "gen failed"
vf import -o t.db jobs.csv nodes.csv >/dev/null 2>&1 || die "import failed"

# catching PID: PID has its SIGTERM handler (bit 15 of SigCgt), so its search has begun
catching() { [ $((0x$(awk '/^SigCgt/ {print $2}' "/proc/$1/status") & 0x4000)) -ne 0 ]; }

# stop WANT CMD...: run CMD, send SIGTERM once it catches it, then check the outcome
stop() {
	want=$1
	shift
	"$VOIDFIT" "$@" >out 2>err &
	pid=$!
	poll 60 catching $pid
	kill -TERM $pid
	set +e
	wait $pid
	rc=$?
	set -e
	[ "$rc" -eq 130 ] || { cat err >&2; die "'$*' stopped exited $rc, wanted 130"; }
	[ ! -s out ] || die "'$*' stopped printed a table"
	[ "$(cat err)" = "$want" ] || { cat err >&2; die "'$*' stopped said the above"; }
}

stop "voidfit size: stopped; nothing stored" size t.db --policy fgd --threads 1
[ "$(sqlite3 t.db 'select count(*) from sizings')" -eq 0 ] || die "a stopped size stored"
stop "voidfit verdict: stopped" verdict t.db --policy fgd --threads 1
echo "size and verdict stop on a signal"
