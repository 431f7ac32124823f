# A sweep on a real single-node Slurm (tests/slurm/start.sh: munged, slurmctld and slurmd on
# localhost, stopped at the end), with MaxArraySize 5 (array indices 1-4): slurm.sh submits
# 12 tasks, 2 an array task, as two arrays and the merge after them (afterok), from a folder
# whose path holds a space; the merged runs equal a one-host replay. A task store lost and
# one damaged are run again, and only they; a task stopped by a signal (as at its time
# limit) keeps its finished runs and resumes after them. The same through slurm.sh
# --transfer on a node that shares no file system with this host below far/ (start.sh:
# VOIDFIT_SLURM_HIDE). A verdict's resamples (verdict --sweep) both ways give the verdict
# searched on this host. Under CI a Slurm that cannot start fails the test (lib.sh: skip).
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
here=$(pwd)
mkdir far # the node sees an empty tmpfs there
set +e
VOIDFIT_SLURM_HIDE=$here/far "$VOIDFIT_TOP/tests/slurm/start.sh" "$state" 5 >slurm.out 2>&1
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

# a verdict's resamples as a sweep (voidfit verdict --sweep): slurm.sh runs them, then a
# status check, not a merge; the verdict that reads them is the one searched on this host
vf import -o v.db "$tr/storage-stress/jobs.csv" "$tr/storage-stress/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
cp v.db vone.db
vopts="-p packing --resamples 3 --no-headroom -f json"
expect_rc 0 vf verdict vone.db $vopts --threads 2
cp out vref.json
expect_rc 0 vf verdict v.db $vopts --sweep vs
expect_rc 0 vs/slurm.sh
contains out "voidfit sweep status, once every array succeeds"
wait_jobs
expect_rc 0 vf sweep status vs
contains out "3 tasks: 3 done"
cat vs/logs/merge-*.out >vmerge.out
contains vmerge.out "3 tasks: 3 done"
expect_rc 0 vf verdict v.db $vopts --sweep vs
contains err "the 3 resamples read from the tasks of vs"
cmp -s out vref.json || die "the verdict from Slurm's tasks differs: $(diff vref.json out)"

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

# --transfer: the store and the sweep are in far/, which the node does not see. A stand-in
# ssh runs its command on this host (in this shell's mount namespace). The tasks run in
# node-local storage (TMPDIR: far/node, the node's own tmpfs; nothing of it here), their
# stores and logs come back, the merge runs here, and the runs equal a one-host replay.
cat >ssh-far <<SSH
#!/bin/sh
# ssh HOST COMMAND... (rsync and the merge give no option)
echo "ssh \$*" >>"$here/ssh-far.log"
shift
exec nsenter -t $$ -m -- sh -c "\$*"
SSH
chmod +x ssh-far
slurmd_pid=$(cat "$state/slurmd-localhost.pid")
on_node() { nsenter -t "$slurmd_pid" -m -- sh -c "$1"; }
on_node "[ ! -e '$here/far/t.db' ]" || die "the node sees far/: it is not hidden"
vf import -o far/t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
cp far/t.db one-far.db
expect_rc 0 vf sweep far/t.db -p first-fit,fgd --seeds 1-3 --targets 0.5 --cells-per-task 2 \
	-o far/sw
far() { TMPDIR=$here/far/node "$@" --transfer=login --ssh "$here/ssh-far"; }
expect_rc 0 far far/sw/slurm.sh
contains out "array tasks 1-2 run 1-3 of the 3 tasks not done"
wait_jobs
grep -q '^ssh login rsync' ssh-far.log || die "nothing came through ssh: $(cat ssh-far.log)"
[ ! -e far/node ] || die "the tasks wrote here, not on the node: $(ls far/node)"
on_node "ls '$here'/far/node/voidfit-sweep-*/store.db" >/dev/null ||
	die "no copy of the store in the node's storage"
[ -z "$(on_node "ls '$here'/far/node/voidfit-sweep-*/runs")" ] ||
	die "task stores left on the node after they went back"
expect_rc 0 vf sweep status far/sw
contains out "3 tasks: 3 done"
[ -s far/sw/logs/3.log ] || die "no task log came back: $(ls far/sw/logs)"
ls far/sw/logs/slurm-*_2.out >/dev/null 2>&1 || die "no array task output came back"
cat far/sw/logs/merge-*.out >merge-far.out 2>/dev/null || die "the merge did not run here"
contains merge-far.out "merged 6 runs from 3 task stores into"
vf replay one-far.db --policy first-fit,fgd --seeds 1-3 --mode inflate --target 0.5 \
	>/dev/null 2>&1 || die "replay failed"
sqlite3 one-far.db "$q" >one-far.runs
sqlite3 far/t.db "$q" >far.runs
[ "$(wc -l <one-far.runs)" -eq 6 ] || die "want 6 one-host runs"
cmp -s one-far.runs far.runs || die "runs made through --transfer differ from one host's"

# a lost task store is run again through --transfer, and only it
rm far/sw/runs/2.db
cp far/sw/logs/1.log log1
expect_rc 0 far far/sw/slurm.sh --no-merge
contains out "array tasks 1-1 run 1-1 of the 1 tasks not done"
wait_jobs
expect_rc 0 vf sweep status far/sw
contains out "3 tasks: 3 done"
cmp -s log1 far/sw/logs/1.log || die "a task that was done ran again"

# a verdict's resamples through --transfer: the task lines start "voidfit verdict STORE"
vf import -o far/v.db "$tr/storage-stress/jobs.csv" "$tr/storage-stress/nodes.csv" \
	>/dev/null 2>&1 || die "import failed"
expect_rc 0 vf verdict far/v.db $vopts --sweep far/vs
expect_rc 0 far far/vs/slurm.sh
wait_jobs
expect_rc 0 vf sweep status far/vs
contains out "3 tasks: 3 done"
cat far/vs/logs/merge-*.out >vmerge-far.out 2>/dev/null || die "the verdict's last job did not run"
contains vmerge-far.out "3 tasks: 3 done"
expect_rc 0 vf verdict far/v.db $vopts --sweep far/vs
cmp -s out vref.json || die "the verdict through --transfer differs: $(diff vref.json out)"

# a task stopped on the node sends back the runs it kept, and resumes after them
cp big.db far/big.db
expect_rc 0 vf sweep far/big.db -p fgd,best-fit,dotprod,first-fit -o far/kb
expect_rc 0 far far/kb/slurm.sh --no-merge
job=$(sed -n 's/^slurm.sh: job \([0-9]*\): array.*/\1/p' out)
poll 120 on_node "f=\$(ls '$here'/far/node/voidfit-sweep-*/runs/1.db.part 2>/dev/null) &&
	[ \"\$(sqlite3 \"\$f\" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)\" -ge 1 ]"
scancel --full --signal=TERM "$job"
wait_jobs
[ ! -f far/kb/runs/1.db ] || die "the task ended before it was stopped: make it longer"
[ -f far/kb/runs/1.db.part ] || die "the runs kept did not come back: $(ls far/kb/runs)"
contains far/kb/logs/1.log "stopped: the runs done are kept in runs/1.db.part"
kept=$(sqlite3 far/kb/runs/1.db.part 'SELECT count(*) FROM runs')
expect_rc 1 vf sweep status far/kb
contains out "running or killed task 1"
expect_rc 0 far far/kb/slurm.sh --no-merge
wait_jobs
expect_rc 0 vf sweep status far/kb
contains far/kb/logs/1.log "stored $((4 - kept)) run"
contains far/kb/logs/1.log "; $kept kept from a run stopped before"
[ ! -e far/kb/runs/1.db.part ] || die "the runs kept are left beside the finished store"
