# What merge refuses, each by name and with nothing merged: a task killed half-way (only its
# .part file is left, and status says so), a task store of another trace (both sha256s named),
# a damaged one, one of another voidfit version, a file that is no store. Usage errors of
# sweep and merge. Tasks here run by hand (sh), one line each: no engine is needed.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
vf import -o other.db "$tr/irregular/jobs.csv" "$tr/irregular/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
runs() { sqlite3 "$1" 'SELECT count(*) FROM runs'; }
task() { (cd "$1" && sed -n "${2}p" tasks | PATH="$(dirname "$VOIDFIT"):$PATH" sh) >/dev/null 2>&1; }

expect_rc 0 vf sweep t.db -p first-fit,fgd --seeds 1-3 --targets 0.5 -o sw
task sw 1 || die "task 1 failed"
task sw 2 || die "task 2 failed"
[ -f sw/runs/1.db ] && [ -f sw/runs/2.db ] || die "no task stores"
[ ! -f sw/runs/1.db.part ] || die "a finished task left its .part file"
[ "$(runs sw/runs/1.db)" -eq 2 ] || die "task 1 stored $(runs sw/runs/1.db) runs, wanted 2"
# a task store holds the trace's provenance rows, not its bytes, jobs or nodes
[ "$(sqlite3 sw/runs/1.db 'SELECT count(*) FROM job_blocks; SELECT count(*) FROM node_blocks;
	SELECT count(*) FROM raw_blocks; SELECT count(*) FROM files')" = "$(printf '0\n0\n0\n2')" ] ||
	die "a task store holds more than its runs"

# a task killed half-way: a big trace, killed once its store holds a run
vf gen -j 20000 --nodes 200 -o big >/dev/null || die "gen failed"
vf import -o big.db big/jobs.csv big/nodes.csv >/dev/null 2>&1 || die "import failed"
expect_rc 0 vf sweep big.db -p first-fit,best-fit,dotprod,fgd -o kb
(cd kb && exec "$VOIDFIT" replay "$PWD/../big.db" --into runs/1.db --threads 1 \
	--policy first-fit,best-fit,dotprod,fgd >logs/1.log 2>&1) &
pid=$!
i=0
until [ -f kb/runs/1.db.part ] &&
	[ "$(sqlite3 kb/runs/1.db.part 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" -ge 1 ]; do
	i=$((i + 1))
	[ $i -lt 600 ] || { kill -9 $pid; die "the task never stored a run"; }
	kill -0 $pid 2>/dev/null || die "the task ended before it could be killed"
	sleep 0.02
done
kill -9 $pid
wait $pid 2>/dev/null || true
[ ! -f kb/runs/1.db ] || die "a killed task left a task store"
expect_rc 1 vf sweep status kb
contains out "1 tasks: 0 done, 0 failed, 0 invalid, 1 running or killed, 0 missing"
cp big.db big0.db
expect_rc 1 vf merge big.db kb/runs/1.db.part
contains err "kb/runs/1.db.part: not a finished task store"
contains err "merged nothing"
[ "$(runs big.db)" -eq 0 ] || die "a killed task's runs were merged"
# run again, it resumes after the runs the killed one stored
kept=$(sqlite3 kb/runs/1.db.part 'SELECT count(*) FROM runs')
(cd kb && "$VOIDFIT" replay "$PWD/../big.db" --into runs/1.db --threads 1 \
	--policy first-fit,best-fit,dotprod,fgd >logs/1.log 2>&1) || die "task rerun failed"
[ -f kb/runs/1.db ] && [ ! -f kb/runs/1.db.part ] || die "the rerun did not finish"
contains kb/logs/1.log "stored $((4 - kept)) runs in runs/1.db"
contains kb/logs/1.log "; $kept kept from a run stopped before"
[ "$(runs kb/runs/1.db)" -eq 4 ] || die "the resumed task holds $(runs kb/runs/1.db) runs"
# a sealed task store is compacted: no free page is sent back
[ "$(sqlite3 kb/runs/1.db 'PRAGMA freelist_count')" -eq 0 ] || die "a task store not compacted"

# a task stopped by a signal (a time limit: SIGTERM) keeps the runs it finished and says so
rm kb/runs/1.db
(cd kb && exec "$VOIDFIT" replay "$PWD/../big.db" --into runs/1.db --threads 1 \
	--policy first-fit,best-fit,dotprod,fgd >logs/1.log 2>&1) &
pid=$!
# (sqlite3 would make the file it opens: only once the task has made it)
poll 60 sh -c '[ -f kb/runs/1.db.part ] &&
	[ "$(sqlite3 kb/runs/1.db.part "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" -ge 1 ]'
kill -TERM $pid
set +e
wait $pid
trc=$?
set -e
[ $trc -eq 130 ] || die "a stopped task exited $trc"
contains kb/logs/1.log "stopped: the runs done are kept in runs/1.db.part; run the task again to resume"
[ "$(runs kb/runs/1.db.part)" -ge 1 ] || die "a stopped task kept no run"
task kb 1 || die "task rerun failed"
[ "$(runs kb/runs/1.db)" -eq 4 ] || die "the resumed task holds $(runs kb/runs/1.db) runs"

# a task store of another trace: refused with both sha256s, nothing merged
expect_rc 0 vf sweep other.db -p fgd --targets 0.5 -o so
task so 1 || die "task of other.db failed"
osha=$(sqlite3 so/runs/1.db 'SELECT trace_sha256 FROM task')
expect_rc 1 vf merge t.db sw/runs/1.db so/runs/1.db
contains err "so/runs/1.db: trace 'jobs' sha256 $osha is not in t.db ('jobs' sha256 "
contains err "merged nothing: 1 of 2 task stores refused"
[ "$(runs t.db)" -eq 0 ] || die "a refused merge merged something"

# a damaged task store: bytes overwritten in the middle
cp sw/runs/2.db bad.db
size=$(wc -c <bad.db)
dd if=/dev/zero of=bad.db bs=1 seek=$((size / 2)) count=4096 conv=notrunc 2>/dev/null
expect_rc 1 vf merge t.db sw/runs/1.db bad.db
grep -qE "bad.db: (damaged: |.*malformed)" err || { cat err >&2; die "merge did not name bad.db as damaged"; }
contains err "merged nothing"
# a damaged block: one byte of a run's per-job results changed
cp sw/runs/2.db flip.db
sqlite3 flip.db "UPDATE run_blobs SET jobs = CAST(substr(jobs, 1, 40) || CAST(X'5A' AS TEXT) ||
	substr(jobs, 42) AS BLOB) WHERE run_id = (SELECT max(id) FROM runs)"
expect_rc 1 vf merge t.db sw/runs/1.db flip.db
contains err "flip.db: table run_blobs: 1 of its 2 rows do not match their checksum"
[ "$(runs t.db)" -eq 0 ] || die "a damaged store was merged"

# another voidfit version
cp sw/runs/2.db old.db
sqlite3 old.db "UPDATE task SET voidfit_version = '0.0.1'"
expect_rc 1 vf merge t.db old.db
contains err "old.db: made by voidfit 0.0.1; this is voidfit"
# not a store at all, and no file
echo "not a store" >junk.db
expect_rc 1 vf merge t.db junk.db nosuch.db
contains err "junk.db: not a voidfit store"
contains err "nosuch.db: "
[ "$(runs t.db)" -eq 0 ] || die "something was merged"

# the good ones merge, and the rest of the sweep is listed to run again
expect_rc 0 vf merge t.db sw/runs/1.db sw/runs/2.db
contains err "merged 4 runs from 2 task stores into t.db"
contains err "sw: 1 of 3 tasks have no task store here: 3"
expect_rc 1 vf sweep status sw
contains out "3 tasks: 2 done, 0 failed, 0 invalid, 0 running or killed, 1 missing"
contains out "missing: 3"

# usage errors
expect_rc 2 vf sweep t.db -o x
contains err "no --policies given"
expect_rc 2 vf sweep t.db -p fgd
contains err "no -o DIR given"
expect_rc 2 vf sweep t.db -p fgd --targets 0.5..x/0.1 -o x
contains err "--targets '0.5..x/0.1'"
expect_rc 2 vf sweep t.db -p nope -o x
contains err "--policies"
expect_rc 1 vf sweep t.db -p fgd --trace nosuch -o x
contains err "trace 'nosuch': not in t.db"
[ ! -e x ] || die "a failed sweep wrote its directory"
expect_rc 1 vf sweep t.db -p fgd --what-if nosuch -o x
contains err "--what-if nosuch: "
# what-if lines are checked as replay reads them, by FILE:LINE, before anything is written
printf 'g 2 A100 8\n' >ok.spec
printf 'g x A100 8\n' >bad.spec
printf 'not a fault\n' >bad.faults
whatif() { printf -- '--io-pressure 2\n%s\n' "$1" >wi; }
refused() { # LINE MESSAGE: a what-if file whose second line is LINE fails with MESSAGE
	whatif "$1"
	expect_rc 1 vf sweep t.db -p fgd --what-if wi -o x
	contains err "voidfit sweep: wi:2: $2"
}
refused "--io-pressure nope" "--io-pressure 'nope': not a number"
refused "--nope 3" "'--nope': unknown option"
refused "--queue backfill stray" "'stray': not an option (a what-if line holds scenario options"
refused "--trace jobs" "--trace: not in a what-if line (give sweep --trace)"
refused "--target 0.5" "--target applies to --mode inflate only"
refused "--cluster nosuch.spec" "--cluster nosuch.spec: No such file or directory"
refused "--cluster bad.spec" "$PWD/bad.spec:1: "
refused "--fault-file bad.faults" "$PWD/bad.faults:1: "
[ ! -e x ] || die "a sweep with a bad what-if line wrote its directory"
# a good line is written as long options, its files by absolute path (tasks run in DIR)
whatif "-m inflate -t 0.5 --cluster=ok.spec"
expect_rc 0 vf sweep t.db -p first-fit --what-if wi -o wv
contains wv/tasks "--seed 1 --mode inflate --target 0.5 --cluster $PWD/ok.spec # wi:2"
task wv 2 || die "the task of a what-if with a relative cluster path failed"
[ -f wv/runs/2.db ] || die "no task store for the what-if line"
expect_rc 2 vf merge t.db
contains err "no TASKSTORE given"
expect_rc 2 vf sweep status
expect_rc 1 vf sweep status nosuch
contains err "not a sweep directory"
