#!/bin/sh
# Start a private single-node Slurm on this machine for the tests: munged with its own socket,
# slurmctld and slurmd on localhost, configured in STATEDIR (created), nothing in /etc
# touched. Needs root, Debian's slurm-wlm and munge, and a munge key (/etc/munge/munge.key,
# made when munge is installed). Prints the SLURM_CONF to export; stop it with stop.sh.
#
#   tests/slurm/start.sh STATEDIR [MAXARRAYSIZE]
#
# With VOIDFIT_SLURM_DBD=1 jobs are recorded by the slurmdbd of start-dbd.sh (run it first,
# same STATEDIR); with VOIDFIT_SLURM_NODES=N (default 1) N slurmd run here as nodes vf1..vfN,
# each on its own port, so a job may span nodes. With VOIDFIT_SLURM_HIDE=DIR (a directory)
# the slurmd run in a mount namespace of their own where DIR is an empty tmpfs: nodes that
# share no file system with this host below DIR (what a sweep's slurm.sh --transfer is for).
#
# MAXARRAYSIZE (default 1001, Slurm's): array indices go from 0 to MAXARRAYSIZE - 1; a test
# sets it small to submit a sweep past it.
# Exits 77 with the reason on the last line when Slurm cannot start here.
set -eu
dir=${1:?usage: start.sh STATEDIR [MAXARRAYSIZE]}
maxarray=${2:-1001}
skip() { echo "slurm: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root (slurmd runs jobs as their user only as root)"
for b in munged slurmctld slurmd sbatch squeue sinfo; do
	command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
		skip "$b is not installed (apt-get install slurm-wlm munge)"
done
key=/etc/munge/munge.key
[ -r "$key" ] || skip "no munge key $key (it is made when munge is installed)"
id munge >/dev/null 2>&1 || skip "no munge user"
PATH=/usr/sbin:$PATH

mkdir -p "$dir/munge" "$dir/spool" "$dir/state" "$dir/log"
dir=$(cd "$dir" && pwd)
chown munge: "$dir/munge"
chmod 711 "$dir/munge"
sock=$dir/munge/munge.socket
# munged refuses root: it runs as the munge user, as the package's service does
# (start-dbd.sh may have started it already)
[ -S "$sock" ] ||
	runuser -u munge -- munged --socket="$sock" --pid-file="$dir/munge/munged.pid" \
		--log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" ||
	skip "munged did not start: $(tail -1 "$dir/munge/munged.log" 2>/dev/null)"

nnodes=${VOIDFIT_SLURM_NODES:-1}
acct="AccountingStorageType=accounting_storage/none"
[ "${VOIDFIT_SLURM_DBD:-0}" = 1 ] && acct="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=16819
AccountingStoragePass=$dir/munge/munge.socket"
cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
# Ports away from the defaults (6817, 6818), so a Slurm of the machine's own is not hit.
cat >"$dir/slurm.conf" <<CONF
ClusterName=voidfit-test
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$acct
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=30
MaxArraySize=$maxarray
CONF
if [ "$nnodes" -eq 1 ]; then
	names=localhost
	echo "NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN" \
		>>"$dir/slurm.conf"
else
	names=
	i=1
	while [ $i -le "$nnodes" ]; do
		echo "NodeName=vf$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((16830 + i)) CPUs=$cpus RealMemory=$mem State=UNKNOWN" \
			>>"$dir/slurm.conf"
		names="$names${names:+,}vf$i"
		i=$((i + 1))
	done
fi
echo "PartitionName=main Nodes=$names Default=YES MaxTime=INFINITE State=UP" >>"$dir/slurm.conf"
for n in $(echo "$names" | tr , ' '); do mkdir -p "$dir/spool/$n"; done
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i ||
	skip "slurmctld did not start: $(tail -1 "$dir/log/slurmctld.log" 2>/dev/null)"
# slurmd ARG...: as a node; with VOIDFIT_SLURM_HIDE, in the namespace that hides it (slurmd
# forks the job steps: they see the tmpfs, this host does not)
slurmd_node() {
	if [ -z "${VOIDFIT_SLURM_HIDE:-}" ]; then
		slurmd "$@"
		return
	fi
	command -v unshare >/dev/null 2>&1 || skip "unshare is not installed (util-linux)"
	unshare -m --propagation private \
		sh -c 'mount -t tmpfs tmpfs "$0" && exec slurmd "$@"' "$VOIDFIT_SLURM_HIDE" "$@"
}
for n in $(echo "$names" | tr , ' '); do
	slurmd_node -f "$SLURM_CONF" -N "$n" ||
		skip "slurmd $n did not start: $(tail -1 "$dir/log/slurmd-$n.log" 2>/dev/null)"
done
i=0
until [ "$(sinfo -h -N -o '%N %T' 2>/dev/null | grep -cE ' (idle|mixed|allocated)$')" -eq "$nnodes" ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || skip "the nodes did not come up: $(tail -1 "$dir/log/slurmctld.log" 2>/dev/null)"
	sleep 0.2
done
echo "SLURM_CONF=$SLURM_CONF"
