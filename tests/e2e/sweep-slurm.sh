# slurm.sbatch on a real single-node Slurm (tests/slurm/start.sh: munged, slurmctld and slurmd
# on localhost, stopped at the end): the job array runs each task, one log per task; a bad
# what-if line fails its own tasks, which status names; the merged runs equal a one-host
# replay. Skipped, saying why, where Slurm cannot start (not root, packages or munge key
# absent).
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
"$VOIDFIT_TOP/tests/slurm/start.sh" "$state" >slurm.out 2>&1
src=$?
set -e
if [ $src -eq 77 ]; then skip "$(tail -1 slurm.out)"; fi
[ $src -eq 0 ] || { cat slurm.out >&2; die "tests/slurm/start.sh failed"; }
export SLURM_CONF="$state/slurm.conf"

printf -- '--io-pressure 2\n--fault nosuch:sto=0.5@0+6h\n' >wi
expect_rc 0 vf sweep t.db -p first-fit,fgd --seeds 2 --targets 0.5 --what-if wi -o sw
contains sw/slurm.sbatch "#SBATCH --array=1-2%2"
job=$(sbatch --parsable sw/slurm.sbatch) || die "sbatch failed"
# wait for the array to leave the queue (sbatch --wait polls every few seconds)
i=0
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || die "job $job still queued after 60 s: $(squeue -j "$job")"
	sleep 0.2
done
[ -s sw/logs/1.log ] && [ -s sw/logs/2.log ] || die "no log per task: $(ls sw/logs)"
expect_rc 1 vf sweep status sw
contains out "2 tasks: 1 done, 1 failed, 0 running or killed, 0 missing"
contains out "failed task 2 (no runs/2.db), its log ends: voidfit replay: fault 'nosuch:sto=0.5@0+21600': 'nosuch' names no node"

vf replay one.db --policy first-fit,fgd --seed 2 --mode inflate --target 0.5 \
	--io-pressure 2 >/dev/null 2>&1 || die "replay failed"
expect_rc 0 vf merge t.db sw/runs/*.db
contains err "merged 2 runs from 1 task store into t.db"
contains err "sw: 1 of 2 tasks have no task store here: 2"
q="SELECT s.key, r.policy, r.seed, r.params_json, hex(b.series), hex(b.jobs),
	(SELECT group_concat(key || '=' || quote(value), ';') FROM
		(SELECT key, value FROM run_metrics WHERE run_id = r.id ORDER BY rowid)),
	(SELECT group_concat(model || '/' || class || '/' || bucket || '=' || gpu_ms, ';') FROM
		(SELECT * FROM run_buckets WHERE run_id = r.id ORDER BY model, class, bucket))
	FROM runs r JOIN scenarios s ON s.id = r.scenario_id JOIN run_blobs b ON b.run_id = r.id
	ORDER BY 1, 2, 3"
sqlite3 one.db "$q" >one.runs
sqlite3 t.db "$q" >merged.runs
[ "$(wc -l <one.runs)" -eq 2 ] || die "want 2 one-host runs"
cmp -s one.runs merged.runs || die "runs made by Slurm differ from the one-host replay"
