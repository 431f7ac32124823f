#!/bin/sh
# Replay benchmarks (make bench). Figures are wall seconds and peak memory of whole
# 'voidfit replay' runs (loading the trace from the store included), with ratios against a
# reference run made here, since machines are noisy.
#   1. one inflation run of openb default to 130 % under fgd (goal < 0.5 s), vs first-fit
#   2. placements per second of every policy in inflation on the openb cluster
#   3. timed replay events per second on a synthetic trace of BENCH_JOBS jobs on BENCH_NODES
#      nodes (goal >= 1 M/s first-fit, >= 100 k/s fgd, ragp5 and ragp7), and peak memory;
#      with the number of distinct demand vectors (shapes that repeat let the search reuse);
#      then the same trace with its requests from BENCH_TEMPLATES templates (gen
#      --templates: requests repeat as in real traces)
#   4. how cost grows: the same with twice the jobs, and with twice the nodes (ratios); the
#      sampled ragp7 should not grow with the nodes
#   5. the sampled search (--sample-nodes K): ragp7 and fgd on part 4's base trace, seeds
#      1-3, for a few K against the full search: wall time and what the approximation
#      costs in fragmentation and $ (part 3 has ragp7 with K = BENCH_SAMPLE at full size)
#   6. a grid of one policy over many seeds: first-fit, seeds 1-60, --threads 2, --no-store,
#      on a trace of BENCH_GRID_JOBS jobs on BENCH_GRID_NODES nodes: wall against CPU (2
#      threads at work: CPU / wall = 2)
#   7. the policies that spread load (scalar, tetris: many classes of nodes, each a state of
#      its own), clustering (its score depends on the jobs a node runs, so no classes),
#      packing and random (a draw per node) against fgd: CPU seconds of one replay each
#      (--threads 1) on a trace of
#      BENCH_SPREAD_JOBS jobs on BENCH_SPREAD_NODES nodes, as ratios to fgd's in this run
# Parts 1-2 need the traces ($VOIDFIT_TRACES, default ../shared/traces) and are skipped
# without them.
#
# Usage: scripts/bench-replay.sh BUILD_DIR
# Environment: BENCH_JOBS (default 1000000), BENCH_NODES (6000), BENCH_SCALE_JOBS (100000),
# BENCH_SCALE_NODES (1500), BENCH_SCENARIO (balanced), BENCH_TIMEOUT (300: seconds a timed
# run may take before it is stopped and reported as a lower bound), BENCH_SAMPLE (64),
# BENCH_TEMPLATES (500; 0: part 3 without templates only), BENCH_GRID_JOBS (50000),
# BENCH_GRID_NODES (500), BENCH_SPREAD_JOBS (200000), BENCH_SPREAD_NODES (2000).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf="$(cd "${1:-build}" && pwd)/voidfit"
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
csv=$traces/clusterdata/cluster-trace-gpu-v2023/csv
jobs=${BENCH_JOBS:-1000000}
nodes=${BENCH_NODES:-6000}
sjobs=${BENCH_SCALE_JOBS:-100000}
snodes=${BENCH_SCALE_NODES:-1500}
scen=${BENCH_SCENARIO:-balanced}
limit=${BENCH_TIMEOUT:-300}
sample=${BENCH_SAMPLE:-64}
templates=${BENCH_TEMPLATES:-500}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# measure OUT CMD...: run CMD with stdout to OUT; sets wall (s) and rss (KiB); returns CMD's
# exit status.
if [ -x /usr/bin/time ]; then
	measure() {
		out=$1
		shift
		st=0
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$out" || st=$?
		# the last line: a failed command adds a line before it
		wall=$(tail -n 1 "$work/time" | cut -d' ' -f1)
		rss=$(tail -n 1 "$work/time" | cut -d' ' -f2)
		return $st
	}
else
	measure() {
		out=$1
		shift
		st=0
		t0=$(date +%s.%N)
		"$@" >"$out" || st=$?
		wall=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.2f", $1 - $2}')
		rss=0
		return $st
	}
fi
# column NAME FILE: the value of column NAME in the first data row of a replay CSV.
column() {
	awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		NR == 2 { print $k; exit }' "$2"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
per_s() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }

if [ -f "$csv/openb_pod_list_default.csv" ]; then
	"$vf" import -o "$work/openb.db" "$csv/openb_pod_list_default.csv" \
		"$csv/openb_node_list_all_node.csv" >/dev/null
	set -- --mode inflate --target 1.3 --seed 42 --no-store --format csv
	measure "$work/ff.csv" "$vf" replay "$work/openb.db" --policy first-fit "$@"
	ffwall=$wall
	measure "$work/fgd.csv" "$vf" replay "$work/openb.db" --policy fgd "$@"
	echo "1. openb default, inflation to 130 %, seed 42, fgd: $wall s" \
		"(goal 0.5 s: x$(ratio "$wall" 0.5)); first-fit $ffwall s;" \
		"fgd/first-fit x$(ratio "$wall" "$ffwall")"
	echo "2. placements per second, inflation on openb (1,523 nodes), seed 42:"
	printf '   %-11s %8s %10s %12s %10s\n' policy wall_s placed placed_per_s vs_first-fit
	ffrate=$(per_s "$(column placed_jobs "$work/ff.csv")" "$ffwall")
	for p in $("$vf" policies | awk 'NR > 1 && NF { print $1 }'); do
		measure "$work/p.csv" "$vf" replay "$work/openb.db" --policy "$p" "$@" || continue
		placed=$(column placed_jobs "$work/p.csv")
		rate=$(per_s "$placed" "$wall")
		printf '   %-11s %8s %10s %12s %10s\n' "$p" "$wall" "$placed" "$rate" \
			"$(ratio "$rate" "$ffrate")"
	done
else
	echo "1-2. skipped: no traces in $traces"
fi

# prepare NAME JOBS NODES [TEMPLATES]: a generated trace imported into $work/NAME.db (its
# requests from TEMPLATES templates if given and not 0); sets distinct, the number of
# distinct demand vectors (all columns but id, arrival and duration)
prepare() {
	"$vf" gen --scenario "$scen" --jobs "$2" --nodes "$3" --seed 1 -o "$work/$1" \
		$([ "${4:-0}" -gt 0 ] && echo --templates "$4") >/dev/null
	distinct=$(awk -F, 'NR > 1 { $1 = $2 = $3 = ""; if (!($0 in s)) { s[$0] = 1; n++ } }
		END { print n + 0 }' "$work/$1/jobs.csv")
	"$vf" import -o "$work/$1.db" "$work/$1/jobs.csv" "$work/$1/nodes.csv" >/dev/null
	rm -rf "${work:?}/$1"
}
# timed NAME POLICY JOBS: one timed replay, stopped after $limit s; sets wall, rss, events,
# evs (events per second). POLICY/K is POLICY with --sample-nodes K. A stopped run counts 2
# events a job (arrival, end) done in $limit s: its figures are bounds, marked '>' or '<'.
timed() {
	tjobs=$3
	set -- "$1" "${2%/*}" "$(case $2 in */*) echo "${2#*/}" ;; *) echo 0 ;; esac)"
	if measure "$work/t.csv" timeout "$limit" "$vf" replay "$work/$1.db" --policy "$2" \
		--sample-nodes "$3" --seed 1 --no-store --format csv; then
		events=$(column events "$work/t.csv")
		evs=$(per_s "$events" "$wall")
	else
		wall=">$limit"
		events=$((tjobs * 2))
		evs="<$(per_s "$events" "$limit")"
		rss=0
	fi
}

bigrss=0 base_rss=0
for tpl in 0 $([ "$templates" -gt 0 ] && echo "$templates"); do
	prepare big "$jobs" "$nodes" "$tpl"
	how=$([ "$tpl" -gt 0 ] && echo "requests from $tpl templates, " || echo "")
	echo "3. timed replay, '$scen' trace of $jobs jobs on $nodes nodes (FIFO), $how$distinct"
	echo "   distinct demand vectors:"
	printf '   %-10s %8s %10s %12s %8s %10s\n' policy wall_s events events_per_s goal peak_MiB
	for p in first-fit fgd ragp5 ragp5/$sample ragp7 ragp7/$sample; do
		timed big "$p" "$jobs"
		goal=100000
		[ "$p" = first-fit ] && goal=1000000
		printf '   %-10s %8s %10s %12s %8s %10s\n' "$p" "$wall" "$events" "$evs" \
			"x$(ratio "${evs#<}" "$goal")" "$((rss / 1024))"
		[ "$p" = first-fit ] && [ "$tpl" = 0 ] && bigrss=$rss
	done
	echo "   (POLICY/K: with --sample-nodes K, which scores at most K feasible nodes a placement)"
	rm -f "$work/big.db"
done

prepare s1 "$sjobs" "$snodes"
prepare s2 "$((sjobs * 2))" "$snodes"
prepare s3 "$sjobs" "$((snodes * 2))"
echo "4. growth: base $sjobs jobs on $snodes nodes; wall-time ratios to the base run:"
printf '   %-10s %8s %12s %12s\n' policy base_s 2x_jobs 2x_nodes
for p in first-fit fgd ragp5 ragp7 ragp7/$sample; do
	timed s1 "$p" "$sjobs"
	w1=$wall
	r1=$rss
	timed s2 "$p" "$((sjobs * 2))"
	w2=$wall
	timed s3 "$p" "$sjobs"
	printf '   %-10s %8s %12s %12s\n' "$p" "$w1" "x$(ratio "$w2" "$w1")" "x$(ratio "$wall" "$w1")"
	[ "$p" = first-fit ] && base_rss=$r1
done
# Large arrays come in 2 MiB huge pages where offered, so the peak moves in 2 MiB steps
# per array: the slope is taken over the widest span, part 3's run against the base.
echo "   peak memory per million jobs (first-fit, part 3's run minus the base run):" \
	"$(awk -v a="$base_rss" -v b="$bigrss" -v j="$((jobs - sjobs))" \
		'BEGIN { printf "%.0f", (j > 0 && b > a) ? (b - a) / 1024 * 1e6 / j : 0 }') MiB"

# mean_of COLUMN FILE...: the mean of a replay CSV column over the first data row of each
mean_of() {
	col=$1
	shift
	for f in "$@"; do column "$col" "$f"; done | awk '{ s += $1 } END { printf "%.4f", s / NR }'
}
echo "5. the sampled search (--sample-nodes K) on the base trace ($sjobs jobs on $snodes nodes),"
echo "   seeds 1-3: summed wall time, and means of mean fragmentation, md fragmentation and"
echo "   \$/yr recoverable by placement; 'all' is the full search, and the ratios are to it:"
printf '   %-6s %5s %7s %7s %7s %7s %10s %8s %8s %8s\n' policy K wall_s speedup frag md_frag \
	usd_yr frag/all md/all usd/all
for p in ragp7 fgd; do
	for k in 0 256 64 16; do
		w=0
		for seed in 1 2 3; do
			measure "$work/k$seed.csv" "$vf" replay "$work/s1.db" --policy "$p" --seed "$seed" \
				--no-store --format csv --sample-nodes "$k"
			w=$(awk -v a="$w" -v b="$wall" 'BEGIN { print a + b }')
		done
		fr=$(mean_of mean_fragmentation "$work"/k[123].csv)
		md=$(mean_of md_fragmentation "$work"/k[123].csv)
		usd=$(mean_of recoverable_by_placement_usd_per_year "$work"/k[123].csv | awk '{ printf "%.0f", $1 }')
		if [ "$k" = 0 ]; then
			w0=$w fr0=$fr md0=$md usd0=$usd
			printf '   %-6s %5s %7s %7s %7s %7s %10s\n' "$p" all "$w" "" "$fr" "$md" "$usd"
		else
			printf '   %-6s %5s %7s %7s %7s %7s %10s %8s %8s %8s\n' "$p" "$k" "$w" \
				"x$(ratio "$w0" "$w")" "$fr" "$md" "$usd" "$(ratio3 "$fr" "$fr0")" \
				"$(ratio3 "$md" "$md0")" "$(ratio3 "$usd" "$usd0")"
		fi
	done
done

prepare grid "${BENCH_GRID_JOBS:-50000}" "${BENCH_GRID_NODES:-500}"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%e %U %S' -o "$work/time" "$vf" replay "$work/grid.db" --policy first-fit \
		--seeds 1-60 --threads 2 --no-store >/dev/null
	read -r w u s <"$work/time"
	c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	echo "6. first-fit, seeds 1-60, --threads 2, ${BENCH_GRID_JOBS:-50000} jobs on" \
		"${BENCH_GRID_NODES:-500} nodes: wall $w s, CPU $c s: CPU/wall x$(ratio "$c" "$w")" \
		"(goal x2)"
else
	echo "6. skipped: no /usr/bin/time to measure CPU time with"
fi

sjobs7=${BENCH_SPREAD_JOBS:-200000}
snodes7=${BENCH_SPREAD_NODES:-2000}
prepare spread "$sjobs7" "$snodes7"
if [ -x /usr/bin/time ]; then
	echo "7. CPU seconds of one replay (seed 1, --threads 1), '$scen' trace of $sjobs7 jobs on" \
		"$snodes7 nodes, and the ratio to fgd's:"
	printf '   %-10s %8s %8s\n' policy cpu_s vs_fgd
	for p in fgd scalar tetris clustering packing random; do
		/usr/bin/time -f '%U %S' -o "$work/time" "$vf" replay "$work/spread.db" --policy "$p" \
			--seed 1 --threads 1 --no-store >/dev/null
		c=$(awk '{ printf "%.2f", $1 + $2 }' "$work/time")
		[ "$p" = fgd ] && fgdc=$c
		printf '   %-10s %8s %8s\n' "$p" "$c" "x$(ratio "$c" "$fgdc")"
	done
else
	echo "7. skipped: no /usr/bin/time to measure CPU time with"
fi
