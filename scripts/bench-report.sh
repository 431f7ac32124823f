#!/bin/sh
# Report benchmark (make bench): 'voidfit report' and 'voidfit compare' on a store of every
# policy x 3 seeds of a generated trace of BENCH_REPORT_JOBS jobs on BENCH_REPORT_NODES nodes,
# replayed with --sample-nodes BENCH_SAMPLE to keep the build to minutes. Figures: the wall
# seconds of compare and of the report in text and HTML (goal under 2 s; listing, choosing
# and pricing runs read none of their blocks), each the median of BENCH_RUNS runs, as a
# ratio to 'cat STORE >/dev/null' timed in the same rounds (the store's bytes read once from
# the page cache), and the peak memory of each.
#
# With BENCH_REPORT_BASE=PATH (another build's voidfit, an older one), that build makes a
# store of the same trace and replays, and is timed the same way: its figures are printed
# beside these, and the outputs of both must be byte-identical.
#
# Usage: scripts/bench-report.sh BUILD_DIR
# Environment: BENCH_REPORT_JOBS (default 1000000), BENCH_REPORT_NODES (6000), BENCH_SAMPLE
# (64), BENCH_SCENARIO (balanced), BENCH_RUNS (5), BENCH_REPORT_BASE (none).
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
jobs=${BENCH_REPORT_JOBS:-1000000}
nodes=${BENCH_REPORT_NODES:-6000}
sample=${BENCH_SAMPLE:-64}
scen=${BENCH_SCENARIO:-balanced}
runs=${BENCH_RUNS:-5}
base=${BENCH_REPORT_BASE:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# wall OUT CMD...: CMD's wall seconds (nanosecond clock), stdout to OUT, stderr to OUT.err
wall() {
	out=$1
	shift
	t0=$(date +%s%N)
	"$@" >"$out" 2>"$out.err"
	t1=$(date +%s%N)
	echo "$t0 $t1" | awk '{ printf "%.4f\n", ($2 - $1) / 1e9 }'
}

# median: of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# rss CMD...: CMD's peak memory in KiB (0 without /usr/bin/time)
rss() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>&1
		tail -n 1 "$work/rss"
	else
		echo 0
	fi
}

# build BIN DB: a store at DB of the trace, replayed by BIN; prints its runs and seconds
build() {
	t0=$(date +%s)
	"$1" import -q -o "$2" "$work/t/jobs.csv" "$work/t/nodes.csv" >/dev/null 2>&1
	"$1" replay "$2" --policy all --seeds 1-3 --sample-nodes "$sample" \
		>"$2.replay" 2>"$2.replay.err" || { cat "$2.replay.err" >&2; exit 1; }
	echo "$(grep -o 'stored [0-9]* runs' "$2.replay.err" | cut -d' ' -f2)" \
		"$(($(date +%s) - t0))"
}

# measure BIN DB TAG: the medians of cat, compare and the reports, round by round
measure() {
	: >"$work/$3.times"
	i=0
	while [ $i -lt "$runs" ]; do
		echo "cat $(wall "$work/cat.out" cat "$2")" >>"$work/$3.times"
		echo "compare $(wall "$work/$3.compare" "$1" compare "$2")" >>"$work/$3.times"
		for f in text html; do
			echo "$f $(wall "$work/$3.$f" "$1" report "$2" --format $f)" \
				>>"$work/$3.times"
		done
		i=$((i + 1))
	done
	c=$(awk '$1 == "cat" { print $2 }' "$work/$3.times" | median)
	echo "$3: cat STORE (reference, $(wc -c <"$2") bytes): $c s"
	for k in compare text html; do
		w=$(awk -v k=$k '$1 == k { print $2 }' "$work/$3.times" | median)
		case $k in
		compare) what="compare" r=$(rss "$1" compare "$2") ;;
		*) what="report --format $k" r=$(rss "$1" report "$2" --format $k) ;;
		esac
		echo "$3: $what: $w s ($(awk -v w="$w" -v c="$c" \
			'BEGIN { if (c > 0) printf "%.1fx", w / c; else print "-" }') cat STORE)," \
			"$r KiB peak; goal < 2 s"
	done
}

"$vf" gen --scenario "$scen" --jobs "$jobs" --nodes "$nodes" --seed 1 -o "$work/t" >/dev/null
set -- $(build "$vf" "$work/t.db")
echo "store: $scen, $jobs jobs on $nodes nodes, $1 runs (all policies x seeds 1-3," \
	"--sample-nodes $sample), built in $2 s"
measure "$vf" "$work/t.db" this
if [ -n "$base" ]; then
	set -- $(build "$base" "$work/b.db")
	measure "$base" "$work/b.db" base
	for k in compare text html; do
		cmp -s "$work/this.$k" "$work/base.$k" || { echo "base: $k output differs" >&2; exit 1; }
	done
	sed "s|$work/b.db|STORE|" "$work/b.db.replay" >"$work/b.r"
	sed "s|$work/t.db|STORE|" "$work/t.db.replay" >"$work/t.r"
	cmp -s "$work/b.r" "$work/t.r" || { echo "base: replay output differs" >&2; exit 1; }
	echo "base: replay, compare and both reports byte-identical"
fi
head -n 8 "$work/this.text" | grep "less by placement" || true
