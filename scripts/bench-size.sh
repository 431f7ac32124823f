#!/bin/sh
# Right-sizing benchmark (make bench): wall seconds of 'voidfit size' for fgd on the openb
# sample (its pods on its 1,213 GPU nodes, timed, the default SLO), against one replay of
# the same runs made here (machines are noisy), and how it scales with threads and seeds:
#   1. size --policy fgd, seed 1, on every CPU and on one thread; one replay of fgd
#   2. the same over seeds 1-3
# Skipped with a message when the sample is absent ($VOIDFIT_TRACES, default
# ../shared/traces).
#
# Usage: scripts/bench-size.sh BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf="$(cd "${1:-build}" && pwd)/voidfit"
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
csv=$traces/clusterdata/cluster-trace-gpu-v2023/csv
if [ ! -f "$csv/openb_pod_list_default.csv" ] || [ ! -f "$csv/openb_node_list_gpu_node.csv" ]; then
	echo "skipped: no openb_pod_list_default.csv and openb_node_list_gpu_node.csv in $csv"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# wall CMD...: run CMD (stdout and stderr to files in $work); prints its wall seconds.
wall() {
	t0=$(date +%s.%N)
	"$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f", $1 - $2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

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
