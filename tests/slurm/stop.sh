#!/bin/sh
# Stop the Slurm tests/slurm/start.sh (and start-dbd.sh) started in STATEDIR: slurmd,
# slurmctld, slurmdbd, MariaDB and munged, each
# by the pid in its pid file; all are told at once (each takes a second or two to go), then
# waited for, and killed after 10 s.
#
#   tests/slurm/stop.sh STATEDIR
set -u
dir=${1:?usage: stop.sh STATEDIR}
pids=
for f in "$dir"/slurmd-*.pid "$dir/slurmctld.pid" "$dir/slurmdbd.pid" "$dir/mysql/mysqld.pid" \
	"$dir/munge/munged.pid"; do
	[ -s "$f" ] || continue
	pid=$(cat "$f")
	kill "$pid" 2>/dev/null && pids="$pids $pid"
done
for pid in $pids; do
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
done
exit 0
