#!/bin/sh
# Right-sizing benchmark (make bench): wall seconds of 'voidfit size' for fgd on the openb
# sample (its pods on its 1,213 GPU nodes, timed, the default SLO), against one replay of
# the same runs made here (machines are noisy), and how it scales with threads and seeds:
#   1. size --policy fgd, seed 1, on every CPU and on one thread; one replay of fgd
#   2. the same over seeds 1-3
#   3. size --policy first-fit (--slo wait_p95<=4h) on two threads on a generated trace of
#      BENCH_SIZE_JOBS jobs on BENCH_SIZE_NODES nodes ('balanced', seed 1), against one
#      replay of it: wall and CPU seconds, and their ratios
#   4. the same size after 'voidfit replay' stored that replay: the full cluster's run is
#      read from the store, not replayed; its ratios to the replay and to part 3
# Parts 1-2 are skipped with a message when the sample is absent ($VOIDFIT_TRACES, default
# ../shared/traces).
#
# Usage: scripts/bench-size.sh BUILD_DIR
# Environment: BENCH_SIZE_JOBS (default 200000), BENCH_SIZE_NODES (2000).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf="$(cd "${1:-build}" && pwd)/voidfit"
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
csv=$traces/clusterdata/cluster-trace-gpu-v2023/csv
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# wall CMD...: run CMD (stdout and stderr to files in $work); prints its wall seconds.
wall() {
	t0=$(date +%s.%N)
	"$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f", $1 - $2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

if [ ! -f "$csv/openb_pod_list_default.csv" ] || [ ! -f "$csv/openb_node_list_gpu_node.csv" ]; then
	echo "1-2. skipped: no openb_pod_list_default.csv and openb_node_list_gpu_node.csv in $csv"
else
	"$vf" import -o "$work/o.db" "$csv/openb_pod_list_default.csv" \
		"$csv/openb_node_list_gpu_node.csv" >/dev/null 2>&1
	"$vf" check -q "$work/o.db" >/dev/null # migrated, so --no-store may open it read-only
	ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
	one=$(wall "$vf" replay "$work/o.db" --policy fgd --seed 1 --no-store)
	for seeds in 1 1-3; do
		all=$(wall "$vf" size "$work/o.db" --policy fgd --seeds "$seeds" --no-store)
		tried=$(sed -n 's/.*; \([0-9]*\) sizes tried.*/\1/p' "$work/out")
		kept=$(awk 'NR == 3 { print $2 }' "$work/out")
		th1=$(wall "$vf" size "$work/o.db" --policy fgd --seeds "$seeds" --no-store --threads 1)
		tried1=$(sed -n 's/.*; \([0-9]*\) sizes tried.*/\1/p' "$work/out")
		echo "size fgd on openb (1,213 nodes), seeds $seeds: $all s on $ncpu threads" \
			"($tried sizes), $th1 s on 1 ($tried1 sizes); one replay $one s:" \
			"x$(ratio "$all" "$one") and x$(ratio "$th1" "$one") of it; $kept nodes kept"
	done
fi

# timed CMD...: run CMD as wall does; sets w, its wall seconds, and cpu, its user and system
# seconds (0 without /usr/bin/time).
timed() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >"$work/out" 2>"$work/err" ||
			{ cat "$work/err" >&2; exit 1; }
		read -r w u s <"$work/time"
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	else
		w=$(wall "$@")
		cpu=0
	fi
}
sjobs=${BENCH_SIZE_JOBS:-200000}
snodes=${BENCH_SIZE_NODES:-2000}
"$vf" gen --scenario balanced --jobs "$sjobs" --nodes "$snodes" --seed 1 -o "$work/g" >/dev/null
"$vf" import -o "$work/g.db" "$work/g/jobs.csv" "$work/g/nodes.csv" >/dev/null
rm -rf "$work/g"
"$vf" check -q "$work/g.db" >/dev/null
timed "$vf" replay "$work/g.db" --policy first-fit --seed 1 --no-store
rw=$w rc=$cpu
timed "$vf" size "$work/g.db" --policy first-fit --slo 'wait_p95<=4h' --threads 2 --no-store
sw=$w
tried=$(sed -n 's/.*; \([0-9]*\) sizes tried.*/\1/p' "$work/out")
echo "3. size first-fit on 2 threads, $sjobs jobs on $snodes nodes ($tried sizes): wall $sw s," \
	"CPU $cpu s; one replay wall $rw s, CPU $rc s: x$(ratio "$sw" "$rw") of its wall," \
	"x$(ratio "$cpu" "$rc") of its CPU"
sc=$cpu
"$vf" replay "$work/g.db" --policy first-fit --seed 1 >/dev/null 2>&1
timed "$vf" size "$work/g.db" --policy first-fit --slo 'wait_p95<=4h' --threads 2 --no-store
nread=$(sed -n 's/.*: \([0-9]*\) full-cluster runs* read from the store.*/\1/p' "$work/err")
echo "4. the same after a stored replay (${nread:-0} full-cluster run read from the store):" \
	"wall $w s, CPU $cpu s: x$(ratio "$w" "$rw") of one replay's wall," \
	"x$(ratio "$cpu" "$rc") of its CPU; x$(ratio "$w" "$sw") of part 3's wall," \
	"x$(ratio "$cpu" "$sc") of its CPU"
