# A small sweep run by GNU parallel through DIR/parallel.sh, merged, is the same as a one-host
# replay of the same grid: every metric, bucket, series and per-job block, every scenario row
# by key, and compare's CSV. A what-if line that only a replay finds wrong (a fault on a node
# the trace does not have) fails its own tasks only, and status names them with their error;
# merging twice adds nothing.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v parallel >/dev/null 2>&1 || skip "GNU parallel is not installed (scripts/deps.sh)"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces
vf import -o one.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
cp one.db merged.db

# inflation: 2 policies x 2 seeds x 2 targets x 3 what-if lines (one failing) = 12 tasks
cat >wi <<'WI'
# scenario variations
--io-pressure 2

--fault A100:sto=0.5@0+6h --coverage 0.9
--fault nosuch:sto=0.5@0+6h
WI
expect_rc 0 vf sweep merged.db -p first-fit,fgd --seeds 1-2 --targets 0.5..0.6/0.1 \
	--what-if wi -o sw
contains err "wrote 12 tasks (24 runs)"
[ "$(wc -l <sw/tasks)" -eq 12 ] || die "want 12 task lines"
contains sw/tasks "--into runs/1.db"
contains sw/slurm.sbatch "#SBATCH --mem="
contains sw/sweep.id "runs-per-task 2"
# timed: no --targets, one trace by name, 2 seeds
expect_rc 0 vf sweep merged.db -p first-fit,fgd --seeds 1-2 --trace jobs -o swt

# a sweep directory is written once
expect_rc 1 vf sweep merged.db -p fgd -o sw
contains err "holds a sweep already"

# parallel: the bad line's 4 tasks fail, the others run; the exit status counts failures
set +e
sw/parallel.sh -j 2 >/dev/null 2>&1
prc=$?
swt/parallel.sh -j 2 >/dev/null 2>&1 || die "timed sweep failed"
set -e
[ "$prc" -eq 4 ] || die "parallel.sh exited $prc, wanted 4 (failed tasks)"
[ -s sw/joblog ] || die "no joblog"
expect_rc 1 vf sweep status sw
contains out "12 tasks: 8 done, 4 failed, 0 invalid, 0 running or killed, 0 missing"
contains out "failed task 9 (no runs/9.db), its log ends: voidfit replay: fault 'nosuch:sto=0.5@0+21600': 'nosuch' names no node"
[ "$(grep -c '^failed task' out)" -eq 4 ] || die "want 4 failed tasks"
expect_rc 0 vf sweep status swt
contains out "2 tasks: 2 done"

# the one-host grid of the same scenarios
for t in 0.5 0.6; do
	vf replay one.db --policy first-fit,fgd --seeds 1-2 --mode inflate --target $t \
		--io-pressure 2 >/dev/null 2>&1 || die "replay failed"
	vf replay one.db --policy first-fit,fgd --seeds 1-2 --mode inflate --target $t \
		--fault A100:sto=0.5@0+6h --coverage 0.9 >/dev/null 2>&1 || die "replay failed"
done
vf replay one.db --policy first-fit,fgd --seeds 1-2 >/dev/null 2>&1 || die "replay failed"

expect_rc 0 vf merge merged.db sw/runs/*.db swt/runs/*.db
contains err "merged 20 runs from 10 task stores into merged.db"
contains err "sw: 4 of 12 tasks have no task store here: 9-12"
if grep -q "swt:" err; then die "the timed sweep is whole"; fi

# every run, by scenario key, policy and seed: the same figures, buckets and blocks
q="SELECT s.key, r.policy, r.seed, r.mode, r.dims, r.voidfit_version, r.params_json,
	r.summary_json, hex(b.series), hex(b.jobs),
	(SELECT group_concat(key || '=' || quote(value), ';') FROM
		(SELECT key, value FROM run_metrics WHERE run_id = r.id ORDER BY rowid)),
	(SELECT group_concat(model || '/' || class || '/' || bucket || '=' || gpu_ms, ';') FROM
		(SELECT * FROM run_buckets WHERE run_id = r.id ORDER BY model, class, bucket))
	FROM runs r JOIN scenarios s ON s.id = r.scenario_id JOIN run_blobs b ON b.run_id = r.id
	ORDER BY 1, 2, 3"
sqlite3 one.db "$q" >one.runs
sqlite3 merged.db "$q" >merged.runs
[ "$(wc -l <one.runs)" -eq 20 ] || die "want 20 one-host runs, got $(wc -l <one.runs)"
cmp -s one.runs merged.runs || die "merged runs differ from the one-host replay"
grep -q 'productive' merged.runs || die "no buckets compared"
# the scenario rows, but for when they were made and by which path
sc="SELECT key, mode, target, queue, preempt, dims, faults, io_pressure, nodes, gpus, jobs,
	window_start, window_end, enriched, (SELECT count(*) FROM runs WHERE scenario_id = s.id)
	FROM scenarios s ORDER BY key"
[ "$(sqlite3 one.db "$sc")" = "$(sqlite3 merged.db "$sc")" ] || die "scenario rows differ"
[ "$(sqlite3 merged.db 'SELECT count(*) FROM scenarios')" -eq 5 ] || die "want 5 scenarios"
# compare reads each merged scenario as the one-host one
for key in $(sqlite3 one.db 'SELECT id FROM scenarios ORDER BY key'); do
	k=$(sqlite3 one.db "SELECT key FROM scenarios WHERE id = $key")
	m=$(sqlite3 merged.db "SELECT id FROM scenarios WHERE key = '$k'")
	vf compare one.db --scenario "$key" --format csv >a.csv 2>/dev/null || die "compare failed"
	vf compare merged.db --scenario "$m" --format csv >b.csv 2>/dev/null || die "compare failed"
	cmp -s a.csv b.csv || die "compare of scenario '$k' differs"
done

# merging again adds nothing
before=$(sqlite3 merged.db 'SELECT count(*) FROM runs; SELECT count(*) FROM run_metrics;
	SELECT count(*) FROM run_buckets; SELECT count(*) FROM scenarios')
expect_rc 0 vf merge merged.db sw/runs/*.db swt/runs/*.db
contains err "merged 0 runs from 10 task stores into merged.db; 20 already there"
[ "$(sqlite3 merged.db 'SELECT count(*) FROM runs; SELECT count(*) FROM run_metrics;
	SELECT count(*) FROM run_buckets; SELECT count(*) FROM scenarios')" = "$before" ] ||
	die "a second merge changed the store"
vf check -q merged.db >/dev/null 2>&1 || die "merged store fails check"

# status lists every task not done as one list 'sbatch --array' takes: no blank, no cut
expect_rc 0 vf sweep one.db -p first-fit --seeds 1-100 -o many
(cd many && sed -n '0~2p' tasks | PATH="$(dirname "$VOIDFIT"):$PATH" sh) >/dev/null 2>&1 ||
	die "the even tasks failed"
expect_rc 1 vf sweep status many
contains out "100 tasks: 50 done, 0 failed, 0 invalid, 0 running or killed, 50 missing"
want=$(seq 1 2 99 | paste -sd, -)
contains out "not done: $want"
[ "$(vf sweep status --todo many | wc -l)" -eq 50 ] || die "status --todo: want 50 lines"
# another task's store, of the same trace and as many runs, is not this task's
cp many/runs/2.db many/runs/1.db
expect_rc 1 vf sweep status many
contains out "invalid task 1: many/runs/1.db: not the runs of its task (policies and seed)"
expect_rc 1 vf merge one.db many/runs/1.db
contains err "many/runs/1.db: not the runs of its task"

# a task store lost, one cut short, one damaged: status names them, parallel.sh reruns
# exactly those (and the failing what-if line's tasks), not the others
rm sw/runs/1.db
head -c 8192 sw/runs/2.db >cut && mv cut sw/runs/2.db
cp sw/runs/3.db bad.db
dd if=/dev/zero of=sw/runs/3.db bs=1 seek=$(($(wc -c <bad.db) / 2)) count=4096 conv=notrunc 2>/dev/null
expect_rc 1 vf sweep status sw
contains out "12 tasks: 5 done, 5 failed, 2 invalid, 0 running or killed, 0 missing"
contains out "failed task 1 (no runs/1.db), its log ends: stored 2 runs in runs/1.db"
contains out "invalid task 2: "
contains out "invalid task 3: "
contains out "not done: 1-3,9-12"
# merge refuses them by name
expect_rc 1 vf merge merged.db sw/runs/2.db
contains err "sw/runs/2.db: "
cp sw/logs/4.log log4
set +e
sw/parallel.sh -j 2 >par.out 2>&1
prc=$?
set -e
[ "$prc" -eq 4 ] || { cat par.out >&2; die "parallel.sh rerun exited $prc, wanted 4"; }
cmp -s log4 sw/logs/4.log || die "a task that was done ran again"
expect_rc 1 vf sweep status sw
contains out "12 tasks: 8 done, 4 failed, 0 invalid, 0 running or killed, 0 missing"
[ "$(wc -l <sw/joblog)" -eq 8 ] || die "the rerun ran $(($(wc -l <sw/joblog) - 1)) tasks, wanted 7"

# a sweep folder carries its identity: the same sweep again writes its scripts anew and
# keeps its runs; another sweep, or one where an earlier sweep's runs or joblog lie, is
# refused; a task list changed since is refused by status and merge
expect_rc 0 vf sweep merged.db -p first-fit,fgd --seeds 1-2 --trace jobs --mem 3G -o swt
contains err "holds this sweep already: its scripts are written anew"
contains swt/slurm.sbatch "#SBATCH --mem=3G"
expect_rc 0 vf sweep status swt
expect_rc 1 vf sweep merged.db -p first-fit --seeds 1-2 --trace jobs -o swt
contains err "swt: holds a sweep already (swt/tasks), not this one"
mkdir stale stale/runs
cp swt/runs/1.db stale/runs/1.db
expect_rc 1 vf sweep merged.db -p first-fit -o stale
contains err "stale: holds what another sweep left (stale/runs) and no task list"
rm -r stale/runs
echo "1 : 0 0 0 0 0 0 x" >stale/joblog
expect_rc 1 vf sweep merged.db -p first-fit -o stale
contains err "stale: holds what another sweep left (stale/joblog)"
sed -i 's/--seed 2/--seed 3/' swt/tasks
expect_rc 1 vf sweep status swt
contains err "swt/tasks: changed since the sweep was written"
expect_rc 1 vf merge merged.db swt/runs/1.db
contains err "swt/runs/1.db: of the sweep swt, which does not check: swt/tasks: changed since"
