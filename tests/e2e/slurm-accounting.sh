# slurm-accounting.sh — the Slurm readers on a real Slurm's records: a private Slurm with
# accounting (tests/slurm/start-dbd.sh: MariaDB and slurmdbd; start.sh: munged, slurmctld
# and two slurmd as nodes vf1, vf2) runs a job, an array of 3 and a job on 2 nodes; then
# 'sacct -a -P' and 'scontrol show node -o' are imported and replayed. Skipped, saying why,
# where it cannot start (not root, packages absent); under CI that fails.
. "$VOIDFIT_TOP/tests/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: a private Slurm needs root"
command -v flock >/dev/null 2>&1 || skip "flock is not installed"
# one private Slurm at a time on this machine (its ports are fixed)
exec 9>/tmp/voidfit-slurm-test.lock
flock -w 120 9 || skip "another Slurm test holds /tmp/voidfit-slurm-test.lock"
state=$(mktemp -d /tmp/voidfit-slurm.XXXXXX)
chmod 755 "$state" # munged and mysqld reach their sockets there
trap '"$VOIDFIT_TOP/tests/slurm/stop.sh" "$state"; rm -rf "$state"' EXIT
set +e
"$VOIDFIT_TOP/tests/slurm/start-dbd.sh" "$state" >dbd.out 2>&1
src=$?
[ $src -eq 0 ] && VOIDFIT_SLURM_DBD=1 VOIDFIT_SLURM_NODES=2 \
	"$VOIDFIT_TOP/tests/slurm/start.sh" "$state" >slurm.out 2>&1
[ $src -eq 0 ] && src=$?
set -e
[ $src -eq 77 ] && skip "$(tail -1 dbd.out slurm.out 2>/dev/null | grep -v '^==' | grep . | tail -1)"
[ $src -eq 0 ] || { cat dbd.out slurm.out >&2; die "the private Slurm did not start"; }
export SLURM_CONF="$state/slurm.conf"
PATH=/usr/sbin:$PATH

sbatch --parsable -o /dev/null --wrap 'sleep 1' >/dev/null
sbatch --parsable -o /dev/null --array=1-3 --wrap 'sleep 1' >/dev/null
sbatch --parsable -o /dev/null -N 2 --wrap 'srun true; sleep 1' >/dev/null
# each job in the accounting, ended (slurmctld sends it to slurmdbd as it ends)
done5() {
	[ "$(sacct -a -n -X -P -S 2000-01-01 --format=State | grep -c COMPLETED)" -eq 5 ]
}
poll 60 done5
sacct -a -P -S 2000-01-01 --format=JobID,JobName,Partition,QOS,Priority,Submit,Start,End,Elapsed,State,NNodes,NodeList,ReqTRES,AllocTRES,Timelimit >jobs.txt
scontrol show node -o >nodes.txt
expect_rc 0 vf import -o f.db jobs.txt --nodes nodes.txt
# 5 jobs (1, the array's 3 tasks, the 2-node job) and their steps, which fold into their
# job; the 2-node job is a gang of 2 workers of one CPU each
contains out "nodes.txt: slurm-nodes, 2 rows read, 2 accepted, 0 quarantined"
contains out "5 jobs, 2 nodes"
[ "$(vf export --jobs f.db | grep -c ',1000,.*,1$')" -eq 4 ] || die "4 jobs of one CPU wanted"
[ "$(vf export --jobs f.db | grep -c ',1000,.*,2$')" -eq 1 ] || die "a gang of 2 CPUs wanted"
vf export --nodes f.db | grep -q '^vf2,main,,' || die "node vf2 of partition main wanted"
expect_rc 0 vf replay f.db --policy first-fit
contains err "stored 1 run"
