#!/bin/sh
# Report benchmark (make bench): 'voidfit report' on a store of every policy x 3 seeds of a
# generated trace of BENCH_REPORT_JOBS jobs on BENCH_REPORT_NODES nodes, replayed with
# --sample-nodes BENCH_SAMPLE to keep the build to minutes. Figures: the wall seconds and
# peak memory of the report (goal under 2 s) in text and HTML, against 'voidfit compare' on
# the same store as the reference (it reads the same runs), and the build's own time.
#
# Usage: scripts/bench-report.sh BUILD_DIR
# Environment: BENCH_REPORT_JOBS (default 1000000), BENCH_REPORT_NODES (6000), BENCH_SAMPLE
# (64), BENCH_SCENARIO (balanced).
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
jobs=${BENCH_REPORT_JOBS:-1000000}
nodes=${BENCH_REPORT_NODES:-6000}
sample=${BENCH_SAMPLE:-64}
scen=${BENCH_SCENARIO:-balanced}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# measure OUT CMD...: run CMD with stdout to OUT; sets wall (s) and rss (KiB).
measure() {
	out=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$out" 2>/dev/null
		wall=$(tail -n 1 "$work/time" | cut -d' ' -f1)
		rss=$(tail -n 1 "$work/time" | cut -d' ' -f2)
	else
		t0=$(date +%s.%N)
		"$@" >"$out" 2>/dev/null
		wall=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.2f", $1 - $2}')
		rss=0
	fi
}

t0=$(date +%s)
"$vf" gen --scenario "$scen" --jobs "$jobs" --nodes "$nodes" --seed 1 -o "$work/t" >/dev/null
"$vf" import -q -o "$work/t.db" "$work/t/jobs.csv" "$work/t/nodes.csv" >/dev/null 2>&1
"$vf" replay "$work/t.db" --policy all --seeds 1-3 --sample-nodes "$sample" \
	>/dev/null 2>"$work/replay.err" || { cat "$work/replay.err" >&2; exit 1; }
t1=$(date +%s)
runs=$(grep -o 'stored [0-9]* runs' "$work/replay.err" | cut -d' ' -f2)
echo "store: $scen, $jobs jobs on $nodes nodes, $runs runs (all policies x seeds 1-3," \
	"--sample-nodes $sample), built in $((t1 - t0)) s"

measure "$work/compare.txt" "$vf" compare "$work/t.db"
cw=$wall
crss=$rss
echo "compare (reference): $cw s, $crss KiB peak"
for f in text html; do
	measure "$work/report.$f" "$vf" report "$work/t.db" --format $f
	ratio=$(awk -v w="$wall" -v c="$cw" 'BEGIN { if (c > 0) printf "%.1fx", w / c; else print "-" }')
	echo "report --format $f: $wall s ($ratio compare), $rss KiB peak; goal < 2 s"
done
head -n 8 "$work/report.text" | grep recovers || true
