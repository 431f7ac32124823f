#!/bin/sh
# Verdict benchmark (make bench): wall seconds of 'voidfit verdict' (every policy, both
# answers) against one replay of the baseline made here (machines are noisy: the ratio is
# the figure), and how it grows with jobs:
#   1. the demo trace (traces/storage-stress), 2 threads
#   2. a generated trace of BENCH_VERDICT_JOBS jobs on BENCH_VERDICT_NODES nodes
#      ('balanced', seed 1), 2 threads, and the same at a tenth of the jobs
#   3. with BENCH_VERDICT_RESAMPLES=N, the verdict on the generated traces again with
#      --resamples N (both answers on N block resamples)
#   4. the verdict with resamples through its sweep (verdict --sweep, GNU parallel on this
#      machine): the trace answered where the sweep is written (its runs kept in the
#      sweep's trace.db), the tasks, the verdict where they are read (the trace's runs read
#      from trace.db, none replayed); against the same verdict searched here, and the wall
#      it would take with one machine a task (the write, the longest task and the read): on
#      the demo trace with 4 resamples, and on the generated traces with N
# Each line gives wall and CPU seconds (user + system: a shared machine's wall time varies
# with its load, which each line says when it began), and verdict's count of the probes of
# each search and their sim events (the work, whatever the load).
#
# Usage: scripts/bench-verdict.sh BUILD_DIR
# Environment: BENCH_VERDICT_JOBS (default 5000), BENCH_VERDICT_NODES (2000),
# BENCH_VERDICT_RESAMPLES (0: none), BENCH_VERDICT_ARGS (more options of verdict).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf="$(cd "${1:-build}" && pwd)/voidfit"
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=${BENCH_VERDICT_JOBS:-5000}
nodes=${BENCH_VERDICT_NODES:-2000}

nres=${BENCH_VERDICT_RESAMPLES:-0}
args=${BENCH_VERDICT_ARGS:-}

# wall CMD...: its wall seconds; its CPU seconds in $work/cpu
wall() {
	t0=$(date +%s.%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%U %S" -o "$work/time" "$@" >"$work/out" 2>"$work/err" ||
			{ cat "$work/err" >&2; exit 1; }
		awk '{ printf "%.1f", $1 + $2 }' "$work/time" >"$work/cpu"
	else
		"$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
		echo "?" >"$work/cpu"
	fi
	echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f", $1 - $2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }

# one: DB LABEL: a replay of scalar, then the verdict; prints both and their ratio
one() {
	l=$(load)
	r=$(wall "$vf" replay "$1" --policy scalar --seed 1 --no-store)
	# shellcheck disable=SC2086 # args: options, split on purpose
	v=$(wall "$vf" verdict "$1" --threads 2 $args)
	echo "$2: verdict ${v} s ($(cat "$work/cpu") CPU-s), one replay ${r} s, ratio" \
		"$(ratio "$v" "$r") (load $l)"
	head -1 "$work/out" | cut -c1-160
	grep "probes (sim events)" "$work/err" || true
	[ "$nres" -gt 0 ] && [ "${3:-}" = gen ] || return 0
	l=$(load)
	# shellcheck disable=SC2086
	v=$(wall "$vf" verdict "$1" --threads 2 --resamples "$nres" $args)
	echo "$2, $nres resamples: verdict ${v} s ($(cat "$work/cpu") CPU-s), ratio" \
		"$(ratio "$v" "$r") (load $l)"
	head -1 "$work/out" | cut -c1-200
	grep "probes (sim events)" "$work/err" || true
	swept "$1" "$2" "$nres" "$v"
}

# swept DB LABEL N LOCAL_WALL: the verdict with N resamples through its sweep, here
swept() {
	command -v parallel >/dev/null 2>&1 || { echo "$2: sweep skipped: no GNU parallel"; return 0; }
	l=$(load)
	cp "$1" "$work/sw.db"
	rm -rf "$work/vs"
	# shellcheck disable=SC2086
	w1=$(wall "$vf" verdict "$work/sw.db" --threads 2 --resamples "$3" --sweep "$work/vs" $args)
	c1=$(cat "$work/cpu")
	t=$(wall sh "$work/vs/parallel.sh" -j 2)
	ct=$(cat "$work/cpu")
	# shellcheck disable=SC2086
	w2=$(wall "$vf" verdict "$work/sw.db" --threads 2 --resamples "$3" --sweep "$work/vs" $args)
	c2=$(cat "$work/cpu")
	grep -q "resamples read from the tasks" "$work/err" ||
		{ cat "$work/err" >&2; echo "the sweep's answers were not read" >&2; exit 1; }
	memo=$(sed -n "s/.*the trace's answers read from [^:]*: //p" "$work/err")
	longest=$(awk 'NR > 1 && $4 > m { m = $4 } END { printf "%.2f", m }' "$work/vs/joblog")
	far=$(echo "$w1 $longest $w2" | awk '{ printf "%.2f", $1 + $2 + $3 }')
	echo "$2, $3 resamples through --sweep: write (the trace) ${w1} s ($c1 CPU-s)," \
		"tasks ${t} s on this machine (CPU-s of parallel.sh: $ct; longest task" \
		"${longest} s), read ${w2} s ($c2 CPU-s; the trace: ${memo:-searched again})" \
		"(load $l)"
	echo "  one machine a task: ${far} s, against ${4} s here: ratio $(ratio "$far" "$4")"
}

"$vf" import -o "$work/d.db" "$top/traces/storage-stress/jobs.csv" \
	"$top/traces/storage-stress/nodes.csv" >/dev/null 2>&1
one "$work/d.db" "demo trace (2,000 jobs, 64 nodes)"
l=$(load)
v=$(wall "$vf" verdict "$work/d.db" --threads 2 --resamples 4 $args)
echo "demo trace, 4 resamples: verdict ${v} s ($(cat "$work/cpu") CPU-s) (load $l)"
swept "$work/d.db" "demo trace" 4 "$v"
small=$((jobs / 10))
for n in "$small" "$jobs"; do
	"$vf" gen --scenario balanced --jobs "$n" --nodes "$nodes" --seed 1 -o "$work/g$n" >/dev/null
	"$vf" import -o "$work/g$n.db" "$work/g$n/jobs.csv" "$work/g$n/nodes.csv" >/dev/null 2>&1
	one "$work/g$n.db" "generated ($n jobs, $nodes nodes)" gen
done
