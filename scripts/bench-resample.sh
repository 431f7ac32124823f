#!/bin/sh
# Resample benchmark (make bench): the saving's interval of fgd against scalar over
# BENCH_RESAMPLES block resamples (compare --resamples) of a real sample, openb's pod list
# and node list (the public Alibaba gpu-v2023 trace), and its wall time. Figures: the
# saving, its 95 % interval (low, high; its width must not be zero), the resamples and the
# wall seconds, and the wall seconds of one replay of both policies on the trace as traced
# (so the cost of a resample reads as a ratio). Skipped when the samples are absent.
#
# Usage: scripts/bench-resample.sh BUILD_DIR
# Environment: BENCH_RESAMPLES (default 20), VOIDFIT_TRACES (default ../shared/traces).
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
top=$(cd "$(dirname "$0")/.." && pwd)
n=${BENCH_RESAMPLES:-20}
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
v23=$traces/clusterdata/cluster-trace-gpu-v2023/csv
if [ ! -f "$v23/openb_pod_list_default.csv" ]; then
	echo "bench-resample: skipped (no openb sample in $traces)"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$vf" import -o "$work/o.db" "$v23/openb_pod_list_default.csv" \
	"$v23/openb_node_list_all_node.csv" >/dev/null 2>&1

now() { date +%s.%N; }
t0=$(now)
"$vf" compare "$work/o.db" --policies fgd,scalar --format csv >"$work/one.csv" 2>/dev/null
t1=$(now)
"$vf" compare "$work/o.db" --policies fgd,scalar --resamples "$n" --format csv \
	>"$work/res.csv" 2>/dev/null
t2=$(now)
echo "bench-resample: voidfit compare STORE --policies fgd,scalar --resamples $n (openb pods + nodes)"
awk -F, -v n="$n" -v t0="$t0" -v t1="$t1" -v t2="$t2" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["policy"] == "fgd" {
		lo = $c["saving_low_usd_per_year"]; hi = $c["saving_high_usd_per_year"]
		printf "  fgd saving vs scalar: $%.0f/yr, 95%% interval $%.0f to $%.0f (width $%.0f) over %d resamples\n",
			$c["saving_usd_per_year"], lo, hi, hi - lo, n
		printf "  wall: %.1f s for %d resamples; %.1f s for the trace as traced (ratio %.1f)\n",
			t2 - t1, n, t1 - t0, (t2 - t1) / (t1 - t0)
		if (!(lo < hi)) { print "bench-verdict: the interval has zero width"; bad = 1 }
	}
	END { exit bad }' "$work/res.csv"
