# store-busy.sh — a store another process holds: a reader waits for a writer, saying so
# once, for --wait SECONDS (0: fails at once, and says who holds it); an import waiting
# on readers says that it is readers; replay waits to be able to store its runs before
# computing them.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
vf import -q -o t.db "$tr/jobs.csv" "$tr/nodes.csv"
mkfifo ctl
# hold SQL: an sqlite3 that runs SQL on t.db and keeps its lock until release.
hold() {
	sqlite3 t.db < ctl > held.out &
	holder=$!
	exec 4>ctl
	printf '%s\nSELECT '"'held'"';\n' "$1" >&4
	# a loaded machine may take seconds to start sqlite3: wait up to 60 s
	poll 60 grep -q held held.out
}
release() {
	echo "COMMIT;" >&4
	exec 4>&-
	wait $holder
}

# A writer holds the store (as an import does once its pages outgrow SQLite's cache).
hold "BEGIN EXCLUSIVE;"
for cmd in "info" "check" "export --jobs"; do
	expect_rc 1 vf $cmd --wait 0 t.db
	contains err "t.db: store is busy: another voidfit is writing it"
done
"$VOIDFIT" info --wait 30 t.db > info.out 2> info.err &
reader=$!
poll 25 grep -q waiting info.err
contains info.err "voidfit info: waiting for t.db (another voidfit is writing it)"
release
wait $reader || die "info failed once the writer was done"
contains info.out "jobs 2000"
[ "$(grep -c waiting info.err)" -eq 1 ] || die "said it waits more than once"

# Readers hold it: an import can start, but not commit.
hold "BEGIN; SELECT count(*) FROM traces;"
expect_rc 1 vf import --wait 0 -o t.db --cluster "$VOIDFIT_TOP/traces/cluster-example.spec"
contains err "t.db: store is busy: another voidfit is reading it"
release
[ "$(sqlite3 t.db 'SELECT count(*) FROM traces')" -eq 1 ] || die "the failed import left a trace"

# A writer holds it while replay starts: replay waits before computing anything.
hold "BEGIN IMMEDIATE;"
"$VOIDFIT" replay t.db --policy first-fit > replay.out 2> replay.err &
rp=$!
sleep 1
[ ! -s replay.out ] || die "replay computed its runs while it could not store them"
release
wait $rp || { cat replay.err >&2; die "replay failed once the writer was done"; }
contains replay.err "stored 1 run"
