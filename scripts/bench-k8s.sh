#!/bin/sh
# Scoring benchmarks (make bench): what --scoring k8s costs, and the speed of fgd-pack.
#   1. placements per second of every policy in both scoring modes, one inflation run of
#      openb default to 130 % on the 1,213 GPU nodes (seed 42), and the k8s/exact ratio;
#      then first-fit's k8s run against fgd's (wall time, median of 5 paired runs)
#   2. fgd-pack's timed replay of BENCH_JOBS jobs on BENCH_NODES nodes (the 'balanced'
#      generated trace, FIFO), against fgd's: wall seconds, events per second, peak memory,
#      and its wall time over fgd's
# Part 1 needs the traces ($VOIDFIT_TRACES, default ../shared/traces) and is skipped
# without them. Usage: scripts/bench-k8s.sh BUILD_DIR
# Environment: BENCH_JOBS (default 1000000), BENCH_NODES (6000), BENCH_TIMEOUT (300).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf="$(cd "${1:-build}" && pwd)/voidfit"
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
csv=$traces/clusterdata/cluster-trace-gpu-v2023/csv
jobs=${BENCH_JOBS:-1000000}
nodes=${BENCH_NODES:-6000}
limit=${BENCH_TIMEOUT:-300}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench-k8s.XXXXXX")
trap 'rm -rf "$work"' EXIT

# measure OUT CMD...: CMD's stdout to OUT; sets wall (s) and rss (KiB).
measure() {
	out=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$out" || return 1
		read -r wall rss <"$work/time"
	else
		t0=$(date +%s.%N)
		"$@" >"$out" || return 1
		wall=$(echo "$(date +%s.%N) - $t0" | bc)
		rss=0
	fi
}
# column NAME FILE: the value of CSV column NAME in the first data row of FILE.
column() {
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
		NR == 2 { print $c; exit }' "$2"
}
per_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b > 0 ? a / b : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

if [ -f "$csv/openb_pod_list_default.csv" ] && [ -f "$csv/openb_node_list_gpu_node.csv" ]; then
	"$vf" import -o "$work/o.db" "$csv/openb_pod_list_default.csv" \
		"$csv/openb_node_list_gpu_node.csv" >/dev/null
	echo "1. placements per second, openb default inflated to 130 % on the GPU nodes, seed 42:"
	printf '   %-11s %12s %12s %8s\n' policy exact_per_s k8s_per_s k8s/exact
	for p in $("$vf" policies --json | sed -n 's/.*"name": "\([^"]*\)".*/\1/p'); do
		for m in exact k8s; do
			measure "$work/p.csv" "$vf" replay "$work/o.db" --policy "$p" --mode inflate \
				--target 1.3 --seed 42 --no-store --format csv --scoring "$m"
			eval "r_$m=$(per_s "$(column placed_jobs "$work/p.csv")" "$wall")"
		done
		printf '   %-11s %12s %12s %8s\n' "$p" "$r_exact" "$r_k8s" "x$(ratio "$r_k8s" "$r_exact")"
	done
	# paired: first-fit and fgd in turn, five times; the medians
	for i in 1 2 3 4 5; do
		for p in first-fit fgd; do
			measure "$work/p.csv" "$vf" replay "$work/o.db" --policy "$p" --mode inflate \
				--target 1.3 --seed 42 --no-store --format csv --scoring k8s
			echo "$wall" >>"$work/k8s-$p"
		done
	done
	ff=$(sort -n "$work/k8s-first-fit" | sed -n 3p)
	fg=$(sort -n "$work/k8s-fgd" | sed -n 3p)
	echo "   k8s scoring, first-fit $ff s against fgd $fg s (medians of 5): x$(ratio "$ff" "$fg")"
else
	echo "1. skipped: no traces in $traces"
fi

"$vf" gen --scenario balanced --jobs "$jobs" --nodes "$nodes" --seed 1 -o "$work/big" >/dev/null
"$vf" import -o "$work/big.db" "$work/big/jobs.csv" "$work/big/nodes.csv" >/dev/null
rm -rf "$work/big"
echo "2. timed replay, 'balanced' trace of $jobs jobs on $nodes nodes (FIFO, seed 1):"
printf '   %-9s %8s %10s %12s %10s %8s\n' policy wall_s events events_per_s peak_MiB "/fgd"
ref=
for p in fgd fgd-pack; do
	if measure "$work/t.csv" timeout "$limit" "$vf" replay "$work/big.db" --policy "$p" \
		--seed 1 --no-store --format csv; then
		events=$(column events "$work/t.csv")
		ref=${ref:-$wall}
		printf '   %-9s %8s %10s %12s %10s %8s\n' "$p" "$wall" "$events" \
			"$(per_s "$events" "$wall")" "$((rss / 1024))" "x$(ratio "$wall" "$ref")"
	else
		printf '   %-9s %8s (stopped)\n' "$p" ">$limit"
	fi
done
