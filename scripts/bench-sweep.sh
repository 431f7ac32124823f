#!/bin/sh
# Sweep benchmark (not in make check): the FGD paper's grid on openb, inflation of the
# default pods on the GPU nodes under its six baselines (random, best-fit, dotprod, packing,
# clustering, fgd) x 10 seeds x 17 targets 0.5..1.3 = 170 tasks of 6 runs, 1,020 runs, run
#   1. on one host: one 'voidfit replay --threads BENCH_J' per target (the reference)
#   2. through parallel.sh -j BENCH_J (default 2)
#   3. through Slurm on this machine (slurm.sh, BENCH_CELLS tasks an array task, default 10),
#      when a Slurm answers (SLURM_CONF set, sinfo works) or, as root with BENCH_SLURM=1, a
#      private one that tests/slurm/start.sh starts and stops
#   4. voidfit merge of the task stores
# Each gives wall and CPU seconds (user + system of every voidfit, counted by a wrapper on
# the tasks' PATH, so Slurm's tasks count too), and 2 and 3 their ratio to 1. The machine
# may be shared: quote the ratios of one run of this script, the three are paired.
# BENCH_SEEDS (default 1-10) runs a fraction (e.g. 1-2: 34 tasks).
#
# With BENCH_1M=1 instead (Slurm as in 3., needed): a timed sweep of a 1 M-job trace (voidfit
# gen, BENCH_1M_NODES nodes, default 4000) under six policies (BENCH_1M_POLICIES) x seeds 1-4,
# --split-policies: 24 tasks of one run, submitted with each --cells-per-task of
# BENCH_1M_CELLS (default "1 4": 24 and 6 array tasks). For each: wall, CPU and the load
# average. Then, on paper, the wall time on H hosts of BENCH_1M_CPUS CPUs (default this
# machine's), each array task of C tasks taking the CPU seconds its runs took here plus
# Slurm's start-up of an array task (measured here on an array of 20 empty tasks), the array
# tasks started in order on the first CPU free: where wall time stops falling as hosts are
# added (at most one array task a CPU, and never below the longest array task).
#
# Usage: scripts/bench-sweep.sh BUILD_DIR
# Environment: VOIDFIT_TRACES (default ../shared/traces), BENCH_SEEDS, BENCH_J, BENCH_CELLS,
# BENCH_SLURM, SLURM_CONF, BENCH_1M, BENCH_1M_NODES, BENCH_1M_POLICIES, BENCH_1M_CELLS,
# BENCH_1M_CPUS, BENCH_1M_JOBS (default 1000000: fewer for a quick look).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bindir=$(cd "${1:-build}" && pwd)
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
csv=$traces/clusterdata/cluster-trace-gpu-v2023/csv
seeds=${BENCH_SEEDS:-1-10}
j=${BENCH_J:-2}
cells=${BENCH_CELLS:-10}
pols=random,best-fit,dotprod,packing,clustering,fgd
if [ "${BENCH_1M:-}" != 1 ]; then
	command -v parallel >/dev/null 2>&1 || { echo "bench-sweep: GNU parallel is not installed" >&2; exit 1; }
	[ -f "$csv/openb_pod_list_default.csv" ] || { echo "bench-sweep: no openb trace in $csv" >&2; exit 1; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench-sweep.XXXXXX")
state=
cleanup() {
	[ -z "$state" ] || { "$top/tests/slurm/stop.sh" "$state"; rm -rf "$state"; }
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
# voidfit under time(1): every run of it, here or in a task, adds a line to cpu.log: its
# start and end (epoch seconds), user and system CPU seconds, and its arguments (the sweep
# puts the directory of the voidfit that wrote it first on the tasks' PATH)
mkdir bin
cp "$bindir/voidfit" bin/voidfit-real
cat >bin/voidfit <<W
#!/bin/sh
t0=\$(date +%s.%N)
/usr/bin/time -o "$work/time.\$\$" -f '%U %S' "$work/bin/voidfit-real" "\$@"
rc=\$?
printf '%s %s %s %s\\n' "\$t0" "\$(date +%s.%N)" "\$(tail -1 "$work/time.\$\$")" "\$*" >>"$work/cpu.log"
rm -f "$work/time.\$\$"
exit \$rc
W
chmod +x bin/voidfit
vf=$work/bin/voidfit
PATH=$work/bin:$PATH
export PATH
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
cpu() { [ -f cpu.log ] && awk '{ s += $3 + $4 } END { printf "%.1f", s }' cpu.log || echo 0; }
ratio() { echo "scale=2; $1 / $2" | bc; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# slurm_up: a Slurm to submit to, SLURM_CONF's or (BENCH_SLURM=1, root) a private one,
# started once the Slurm tests' lock is ours (its ports are fixed); fails if none answers
slurm_up() {
	if [ -z "${SLURM_CONF:-}" ] && [ "${BENCH_SLURM:-}" = 1 ]; then
		exec 9>/tmp/voidfit-slurm-test.lock
		flock -w 600 9 || { echo "bench-sweep: a Slurm test holds its lock" >&2; return 1; }
		state=$(mktemp -d /tmp/voidfit-slurm.XXXXXX)
		chmod 755 "$state"
		"$top/tests/slurm/start.sh" "$state" >slurm.out 2>&1 || { tail -1 slurm.out >&2; state=; }
		[ -z "$state" ] || export SLURM_CONF="$state/slurm.conf"
	fi
	[ -n "${SLURM_CONF:-}" ] && sinfo -h >/dev/null 2>&1
}
queue_empty() { while [ -n "$(squeue -h 2>/dev/null)" ]; do sleep 0.2; done; }

if [ "${BENCH_1M:-}" = 1 ]; then
	pols=${BENCH_1M_POLICIES:-first-fit,dotprod,packing,best-fit,clustering,fgd}
	nodes=${BENCH_1M_NODES:-4000}
	cpus=${BENCH_1M_CPUS:-$(nproc)}
	slurm_up || { echo "bench-sweep: no Slurm answers here (set SLURM_CONF, or BENCH_SLURM=1 as root)" >&2; exit 1; }
	"$vf" gen -j "${BENCH_1M_JOBS:-1000000}" --nodes "$nodes" -o g >/dev/null
	"$vf" import -q -o m.db g/jobs.csv g/nodes.csv >/dev/null
	# Slurm's start-up of an array task: 20 empty ones on this machine's CPUs
	t0=$(now)
	sbatch -Q --array=1-20 --output=/dev/null --wrap=true
	queue_empty
	ov=$(echo "scale=3; $(secs "$t0" "$(now)") * $(nproc) / 20" | bc)
	echo "bench-sweep: ${BENCH_1M_JOBS:-1000000} jobs on $nodes nodes, timed, $pols x seeds 1-4, --split-policies: 24 tasks"
	echo "bench-sweep: Slurm's start-up of an array task ${ov} s (20 empty ones on $(nproc) CPUs)"
	printf '%-16s %12s %8s %8s  %s\n' "cells-per-task" "array tasks" "wall s" "CPU s" "load before / after"
	for c in ${BENCH_1M_CELLS:-1 4}; do
		"$vf" sweep m.db -p "$pols" --seeds 1-4 --split-policies --cells-per-task "$c" -o "s$c" 2>/dev/null
		rm -f cpu.log
		l0=$(load)
		t0=$(now)
		"s$c/slurm.sh" --no-merge >/dev/null
		queue_empty
		w=$(secs "$t0" "$(now)")
		"$vf" sweep status "s$c" >/dev/null || echo "bench-sweep: s$c: tasks not done" >&2
		printf '%-16s %12s %8.1f %8.1f  %s / %s\n' "$c" "$(((24 + c - 1) / c))" "$w" "$(cpu)" "$l0" "$(load)"
		grep -- ' --into ' cpu.log >"runs.$c"
	done
	# each task's CPU seconds, by its number (the runs of the first submission)
	first=${BENCH_1M_CELLS:-1 4}
	first=${first%% *}
	awk '{ for (i = 5; i < NF; i++) if ($i == "--into") { n = $(i + 1); gsub(/[^0-9]/, "", n) }
		for (i = 5; i < NF; i++) if ($i == "--policy") p = $(i + 1)
		for (i = 5; i < NF; i++) if ($i == "--seed") s = $(i + 1)
		printf "%d %.2f %.2f %s %s\n", n, $3 + $4, $2 - $1, p, s }' "runs.$first" | sort -n >task.cpu
	echo "per run (CPU s; wall s here), task order:"
	awk '{ printf "  %2d %-11s seed %s: %6.1f CPU s, %6.1f s\n", $1, $4, $5, $2, $3 }' task.cpu
	echo "on paper: wall s on H hosts of $cpus CPUs, each array task its runs' CPU s + ${ov} s"
	printf '%-8s' "hosts"
	for c in 1 2 3 4 6 12 24; do printf '%10s' "C=$c"; done
	echo
	for h in 1 2 3 4 6 8 12; do
		printf '%-8s' "$h"
		for c in 1 2 3 4 6 12 24; do
			awk -v c="$c" -v slots=$((h * cpus)) -v ov="$ov" '
				{ t[int((NR - 1) / c)] += $2 } END {
				n = int((NR + c - 1) / c)
				for (k = 0; k < slots; k++) free[k] = 0
				for (a = 0; a < n; a++) { # the next array task on the first free CPU
					m = 0
					for (k = 1; k < slots; k++) if (free[k] < free[m]) m = k
					free[m] += t[a] + ov; if (free[m] > end) end = free[m]
				}
				printf "%10.0f", end }' task.cpu
		done
		echo
	done
	exit 0
fi

"$vf" import -q -o openb.db "$csv/openb_pod_list_default.csv" \
	--nodes "$csv/openb_node_list_gpu_node.csv" >/dev/null
for d in par slurm; do
	"$vf" sweep openb.db -p "$pols" --seeds "$seeds" --targets 0.5..1.3/0.05 \
		--cells-per-task "$cells" -o $d 2>/dev/null
done
ntask=$(wc -l <par/tasks)
echo "bench-sweep: openb inflation, $pols, seeds $seeds, 17 targets: $ntask tasks, $((ntask * 6)) runs"
echo "bench-sweep: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# 1. one host
cp openb.db one.db
rm -f cpu.log
t0=$(now)
for t in $(awk '{ for (i = 1; i < NF; i++) if ($i == "--target") print $(i + 1) }' par/tasks | sort -u); do
	"$vf" replay one.db --policy "$pols" --seeds "$seeds" --mode inflate --target "$t" \
		--threads "$j" >/dev/null 2>&1
done
one=$(secs "$t0" "$(now)")
onec=$(cpu)
# 2. parallel.sh
rm -f cpu.log
t0=$(now)
par/parallel.sh -j "$j" || echo "bench-sweep: parallel.sh: $? tasks failed" >&2
pt=$(secs "$t0" "$(now)")
pc=$(cpu)
printf 'one host (replay --threads %s, 17 replays): %.1f s, %.1f CPU s\n' "$j" "$one" "$onec"
printf 'parallel.sh -j %s: %.1f s (%sx one host), %.1f CPU s (%sx)\n' "$j" "$pt" \
	"$(ratio "$pt" "$one")" "$pc" "$(ratio "$pc" "$onec")"
# 3. Slurm
if slurm_up; then
	rm -f cpu.log
	t0=$(now)
	slurm/slurm.sh --no-merge >/dev/null
	queue_empty
	st=$(secs "$t0" "$(now)")
	sc=$(cpu)
	sdone=$("$vf" sweep status slurm | sed -n 's/.*tasks: \([0-9]*\) done.*/\1/p')
	printf 'slurm.sh (%s tasks an array task, %s of %s done): %.1f s (%sx one host), %.1f CPU s (%sx)\n' \
		"$cells" "$sdone" "$ntask" "$st" "$(ratio "$st" "$one")" "$sc" "$(ratio "$sc" "$onec")"
else
	echo "slurm: no Slurm answers here (set SLURM_CONF, or BENCH_SLURM=1 as root)"
fi
# 4. merge
cp openb.db merged.db
t0=$(now)
"$vf" merge merged.db par/runs/*.db 2>merge.err || { cat merge.err >&2; exit 1; }
mt=$(secs "$t0" "$(now)")
printf 'merge: %.2f s for %s task stores; task stores %s bytes\n' "$mt" \
	"$(ls par/runs/*.db | wc -l)" "$(cat par/runs/*.db | wc -c)"
