#!/bin/sh
# Sweep benchmark (not in make check): the FGD paper's grid on openb, inflation of the
# default pods on the GPU nodes under its six baselines (random, best-fit, dotprod, packing,
# clustering, fgd) x 10 seeds x 17 targets 0.5..1.3 = 170 tasks of 6 runs, 1,020 runs.
#   1. the tasks one after another (sh, each line in turn): wall seconds
#   2. the same tasks through parallel.sh -j BENCH_J (default 2): wall seconds, and the
#      speed-up over 1 (goal >= 1.8 on 2 cores) and the absolute time (goal < 600 s)
#   3. voidfit merge of the 170 task stores into the store: wall seconds, the store's size
#      before and after, the task stores' total size
# BENCH_SEEDS (default 1-10) runs a fraction (e.g. 1-2: 34 tasks); the figures for the full
# grid are then extrapolated by the number of tasks, and the script says so.
#
# Usage: scripts/bench-sweep.sh BUILD_DIR
# Environment: VOIDFIT_TRACES (default ../shared/traces), BENCH_SEEDS, BENCH_J.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bindir=$(cd "${1:-build}" && pwd)
vf=$bindir/voidfit
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
csv=$traces/clusterdata/cluster-trace-gpu-v2023/csv
seeds=${BENCH_SEEDS:-1-10}
j=${BENCH_J:-2}
pols=random,best-fit,dotprod,packing,clustering,fgd
command -v parallel >/dev/null 2>&1 || { echo "bench-sweep: GNU parallel is not installed" >&2; exit 1; }
[ -f "$csv/openb_pod_list_default.csv" ] || { echo "bench-sweep: no openb trace in $csv" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench-sweep.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
now() { date +%s.%N; }
# cpu: user + system seconds of this shell's finished children so far, from 'times' run in
# this shell (in $(...) it would count the subshell's); the machine may be shared: CPU
# seconds say what the sweep cost when wall seconds say little.
cpu() { awk 'NR == 2 { gsub(/[ms]/, " "); print $1 * 60 + $2 + $3 * 60 + $4 }' times.out; }
secs() { echo "$2 - $1" | bc; }
size() { stat -c %s "$1"; }

"$vf" import -q -o openb.db "$csv/openb_pod_list_default.csv" \
	--nodes "$csv/openb_node_list_gpu_node.csv" >/dev/null
for d in serial par; do
	"$vf" sweep openb.db -p "$pols" --seeds "$seeds" --targets 0.5..1.3/0.05 -o $d 2>/dev/null
done
ntask=$(wc -l <par/tasks)
nrun=$((ntask * 6))
echo "bench-sweep: openb inflation, $pols, seeds $seeds, 17 targets: $ntask tasks, $nrun runs"

echo "bench-sweep: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# 1. one after another
times >times.out
c0=$(cpu)
t0=$(now)
(cd serial && PATH=$bindir:$PATH && export PATH && while IFS= read -r line; do
	sh -c "$line" >/dev/null 2>&1 || echo "bench-sweep: task failed: $line" >&2
done <tasks)
t1=$(now)
ser=$(secs "$t0" "$t1")
times >times.out
c1=$(cpu)
# 2. parallel.sh
t0=$(now)
par/parallel.sh -j "$j" || echo "bench-sweep: parallel.sh: $? tasks failed" >&2
t1=$(now)
pt=$(secs "$t0" "$t1")
times >times.out
c2=$(cpu)
done_n=$(ls par/runs/*.db | wc -l)
# 3. merge
cp openb.db merged.db
before=$(size merged.db)
t0=$(now)
"$vf" merge merged.db par/runs/*.db 2>merge.err || { cat merge.err >&2; exit 1; }
t1=$(now)
mt=$(secs "$t0" "$t1")
after=$(size merged.db)
tasks_bytes=$(cat par/runs/*.db | wc -c)
merged_runs=$(sqlite3 merged.db 'SELECT count(*) FROM runs' 2>/dev/null || echo '?')

printf 'one after another: %.1f s (%.2f s a task), %.1f CPU s\n' "$ser" \
	"$(echo "$ser / $ntask" | bc -l)" "$(echo "$c1 - $c0" | bc -l)"
printf 'parallel.sh -j %s: %.1f s, %.1f CPU s, %s of %s tasks done; speed-up %.2fx (goal >= 1.8)\n' \
	"$j" "$pt" "$(echo "$c2 - $c1" | bc -l)" "$done_n" "$ntask" "$(echo "$ser / $pt" | bc -l)"
printf 'merge: %.2f s for %s task stores (%s runs in the store); store %s -> %s bytes (+%s a run); task stores %s bytes\n' \
	"$mt" "$done_n" "$merged_runs" "$before" "$after" "$(((after - before) / nrun))" "$tasks_bytes"
if [ "$ntask" -ne 170 ]; then
	f=$(echo "170 / $ntask" | bc -l)
	printf 'extrapolated to the full 170 tasks (x%.2f, by the number of tasks): one after another %.0f s, parallel.sh %.0f s (goal < 600 s), merge %.1f s\n' \
		"$f" "$(echo "$ser * $f" | bc -l)" "$(echo "$pt * $f" | bc -l)" "$(echo "$mt * $f" | bc -l)"
else
	printf 'full grid through parallel.sh: %.0f s (goal < 600 s)\n' "$pt"
fi
