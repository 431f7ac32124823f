# A sweep on a real single-node Slurm (tests/slurm/start.sh: munged, slurmctld and slurmd on
# localhost, stopped at the end), with MaxArraySize 5 (array indices 1-4): slurm.sh submits
# 12 tasks, 2 an array task, as two arrays and the merge after them (afterok), from a folder
# whose path holds a space; the merged runs equal a one-host replay. A task store lost and
# one damaged are run again, and only they; a task stopped by a signal (as at its time
# limit) keeps its finished runs and resumes after them. Under CI a Slurm that cannot start
# fails the test (lib.sh: skip).
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
command -v flock >/dev/null 2>&1 || skip "flock is not installed"
[ "$(id -u)" -eq 0 ] || skip "not root: a private Slurm needs root"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
cp t.db one.db

# one private Slurm at a time on this machine (its ports are fixed)
exec 9>/tmp/voidfit-slurm-test.lock
flock -w 120 9 || skip "another Slurm test holds /tmp/voidfit-slurm-test.lock"
state=$(mktemp -d /tmp/voidfit-slurm.XXXXXX)
chmod 755 "$state" # munged, as the munge user, must reach its socket there
trap '"$VOIDFIT_TOP/tests/slurm/stop.sh" "$state"; rm -rf "$state"' EXIT
set +e
"$VOIDFIT_TOP/tests/slurm/start.sh" "$state" 5 >slurm.out 2>&1
src=$?
set -e
if [ $src -eq 77 ]; then skip "$(tail -1 slurm.out)"; fi
[ $src -eq 0 ] || { cat slurm.out >&2; die "tests/slurm/start.sh failed"; }
export SLURM_CONF="$state/slurm.conf"
scontrol show config | grep -q 'MaxArraySize *= 5$' || die "MaxArraySize is not 5"

# wait_jobs: until the queue is empty (sbatch --wait polls every few seconds)
wait_jobs() {
	_i=0
	while [ -n "$(squeue -h 2>/dev/null)" ]; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || die "jobs still queued after 120 s: $(squeue)"
		sleep 0.2
	done
}

sw="s w"
expect_rc 0 vf sweep t.db -p first-fit,fgd --seeds 1-6 --targets 0.5,0.6 --cells-per-task 2 \
	--sbatch-opt=--comment=voidfit-test -o "$sw"
contains err "wrote 12 tasks (24 runs)"
contains "$sw/slurm.sbatch" "#SBATCH --mem="
contains "$sw/slurm.sbatch" "#SBATCH --time="
contains "$sw/slurm.sbatch" "#SBATCH --comment=voidfit-test"
expect_rc 0 "$sw/slurm.sh"
cp out submit.out
# 12 tasks, 2 an array task: 6 array tasks, as arrays of at most 4
contains out "array tasks 1-4 run 1-8 of the 12 tasks not done"
contains out "array tasks 1-2 run 9-12 of the 12 tasks not done"
contains out "voidfit merge, once every array succeeds"
wait_jobs
expect_rc 0 vf sweep status "$sw"
contains out "12 tasks: 12 done"
[ -s "$sw/logs/12.log" ] || die "no log per task: $(ls "$sw/logs")"
ls "$sw"/logs/merge-*.out >/dev/null 2>&1 || die "the merge did not run: $(ls "$sw/logs")"
cat "$sw"/logs/merge-*.out >merge.out
contains merge.out "merged 24 runs from 12 task stores into"

for t in 0.5 0.6; do
	vf replay one.db --policy first-fit,fgd --seeds 1-6 --mode inflate --target $t \
		>/dev/null 2>&1 || die "replay failed"
done
q="SELECT s.key, r.policy, r.seed, r.params_json, hex(b.series), hex(b.jobs),
	(SELECT group_concat(key || '=' || quote(value), ';') FROM
		(SELECT key, value FROM run_metrics WHERE run_id = r.id ORDER BY rowid)),
	(SELECT group_concat(model || '/' || class || '/' || bucket || '=' || gpu_ms, ';') FROM
		(SELECT * FROM run_buckets WHERE run_id = r.id ORDER BY model, class, bucket))
	FROM runs r JOIN scenarios s ON s.id = r.scenario_id JOIN run_blobs b ON b.run_id = r.id
	ORDER BY 1, 2, 3"
sqlite3 one.db "$q" >one.runs
sqlite3 t.db "$q" >merged.runs
[ "$(wc -l <one.runs)" -eq 24 ] || die "want 24 one-host runs"
cmp -s one.runs merged.runs || die "runs made by Slurm differ from the one-host replay"

# a task store lost and one damaged: slurm.sh runs those two again, and no other
rm "$sw/runs/3.db"
head -c 8192 "$sw/runs/10.db" >cut && mv cut "$sw/runs/10.db"
cp "$sw/logs/4.log" log4
expect_rc 0 "$sw/slurm.sh" --no-merge
contains out "array tasks 1-1 run 1-2 of the 2 tasks not done"
wait_jobs
expect_rc 0 vf sweep status "$sw"
contains out "12 tasks: 12 done"
cmp -s log4 "$sw/logs/4.log" || die "a task that was done ran again"
expect_rc 0 "$sw/slurm.sh"
contains out "every task is done"

# a task stopped by a signal, as Slurm does at its time limit (SIGTERM to every process of
# the job): it keeps the runs it finished; submitted again, it resumes after them
vf gen -j 100000 --nodes 1000 -o big >/dev/null || die "gen failed"
vf import -o big.db big/jobs.csv big/nodes.csv >/dev/null 2>&1 || die "import failed"
expect_rc 0 vf sweep big.db -p fgd,best-fit,dotprod,first-fit -o kb
expect_rc 0 kb/slurm.sh --no-merge
job=$(sed -n 's/^slurm.sh: job \([0-9]*\): array.*/\1/p' out)
poll 120 sh -c '[ -f kb/runs/1.db.part ] &&
	[ "$(sqlite3 kb/runs/1.db.part "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" -ge 1 ]'
scancel --full --signal=TERM "$job"
wait_jobs
[ ! -f kb/runs/1.db ] || die "the task ended before it was stopped: make it longer"
contains kb/logs/1.log "stopped: the runs done are kept in runs/1.db.part"
kept=$(sqlite3 kb/runs/1.db.part 'SELECT count(*) FROM runs')
expect_rc 0 kb/slurm.sh --no-merge
wait_jobs
expect_rc 0 vf sweep status kb
contains kb/logs/1.log "stored $((4 - kept)) run"
contains kb/logs/1.log "; $kept kept from a run stopped before"
