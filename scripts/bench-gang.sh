#!/bin/sh
# Gang benchmarks (make bench): timed replay of a 'gen --scenario llm' trace (training gangs
# of 2 to 64 eight-GPU nodes, about 6 % of the jobs, beside fine-tuning, inference and
# evaluation jobs on one node) of BENCH_GANG_JOBS jobs on BENCH_GANG_NODES nodes.
#   1. events per second of first-fit, fgd and ragp7 (backfill queue) on that trace and on
#      the same trace with every job made one worker (workers 1): what the gang path costs,
#      and that it does not slow the one-node jobs' trace
#   2. EASY backfill's cost over plain backfill (first-fit and fgd, the gang trace)
# A run stopped after BENCH_TIMEOUT s gives bounds, marked '>' or '<'.
#
# Usage: scripts/bench-gang.sh BUILD_DIR
# Environment: BENCH_GANG_JOBS (default 1000000), BENCH_GANG_NODES (6000), BENCH_TIMEOUT
# (600).
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
jobs=${BENCH_GANG_JOBS:-1000000}
nodes=${BENCH_GANG_NODES:-6000}
limit=${BENCH_TIMEOUT:-600}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# column NAME FILE: the value of column NAME in the first data row of a replay CSV.
column() {
	awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		NR == 2 { print $k; exit }' "$2"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
per_s() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }

# run DB POLICY QUEUE: one timed replay; sets wall, events, evs (events per second).
run() {
	t0=$(date +%s.%N)
	if timeout "$limit" "$vf" replay "$work/$1.db" --policy "$2" --queue "$3" --seed 1 \
		--no-store --format csv >"$work/t.csv"; then
		wall=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.2f", $1 - $2}')
		events=$(column events "$work/t.csv")
		evs=$(per_s "$events" "$wall")
	else
		wall=">$limit"
		events=$((jobs * 2))
		evs="<$(per_s "$events" "$limit")"
	fi
}

"$vf" gen --scenario llm --jobs "$jobs" --nodes "$nodes" --seed 1 -o "$work/llm" >/dev/null
gangs=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "workers") k = i; next }
	$k > 1 { n++ } END { print n + 0 }' "$work/llm/jobs.csv")
# the same jobs, each of one worker
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "workers") k = i; print; next }
	{ $k = 1; print }' "$work/llm/jobs.csv" >"$work/one.csv"
"$vf" import -o "$work/gang.db" "$work/llm/jobs.csv" "$work/llm/nodes.csv" >/dev/null
"$vf" import -o "$work/one.db" "$work/one.csv" "$work/llm/nodes.csv" >/dev/null
rm -rf "${work:?}/llm" "$work/one.csv"

echo "1. timed replay (backfill), llm trace of $jobs jobs on $nodes nodes, $gangs gangs;"
echo "   the same jobs each of one worker:"
printf '   %-10s %9s %12s %9s %12s %8s\n' policy gang_wall gang_ev_per_s one_wall one_ev_per_s ratio
for p in first-fit fgd ragp7; do
	run gang "$p" backfill
	gw=$wall gevs=$evs
	run one "$p" backfill
	printf '   %-10s %9s %12s %9s %12s %8s\n' "$p" "$gw" "$gevs" "$wall" "$evs" \
		"$(ratio "${gevs#<}" "${evs#<}")"
done
echo "2. EASY backfill over plain backfill, the gang trace:"
printf '   %-10s %11s %9s %8s\n' policy backfill_s easy_s ratio
for p in first-fit fgd; do
	run gang "$p" backfill
	bw=$wall
	run gang "$p" easy
	printf '   %-10s %11s %9s %8s\n' "$p" "$bw" "$wall" "$(ratio "${wall#>}" "${bw#>}")"
done
