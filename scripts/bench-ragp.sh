#!/bin/sh
# ragp7's exact search (make bench): how far it is from fgd and from a bare scan of every
# node's bound, on a generated trace whose requests hardly repeat and on one whose requests
# come from templates.
#   For each trace: timed replays (FIFO, seed 1) of fgd and ragp7, in turn: wall and CPU
#   seconds, events per CPU second, CPU microseconds a placement, and ragp7's CPU time over
#   fgd's (goal: at most x2, with >= 50 k events/s on the first trace, >= 100 k on the
#   templated one).
#   The bare scan: a C loop written here reads one RECORD-byte record per node (224: a
#   record of the seven dims' free amounts, scales and weights; ragp's own is 1,256 bytes,
#   192 of them read by most bounds) and computes a bound-like sum over seven dims from it, for
#   every node, PASSES times; its time a pass is what bounding every node once costs at
#   the machine's memory bandwidth, and its estimate of a replay is one pass a placement.
#   ragp7's time a placement is printed against it.
# The machine may be loaded: the figures that matter are the ratios of runs made here in
# turn. A run stopped after BENCH_TIMEOUT seconds counts as a bound ('>').
#
# Usage: scripts/bench-ragp.sh BUILD_DIR
# Environment: BENCH_RAGP_JOBS (default 200000), BENCH_RAGP_NODES (6000), BENCH_TEMPLATES
# (500; 0: the first trace only), BENCH_TIMEOUT (900), BENCH_SCAN_RECORD (224),
# BENCH_SCAN_PASSES (2000), CC (cc).
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
jobs=${BENCH_RAGP_JOBS:-200000}
nodes=${BENCH_RAGP_NODES:-6000}
templates=${BENCH_TEMPLATES:-500}
limit=${BENCH_TIMEOUT:-900}
record=${BENCH_SCAN_RECORD:-224}
passes=${BENCH_SCAN_PASSES:-2000}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench-ragp.XXXXXX")
trap 'rm -rf "$work"' EXIT

# column NAME FILE: the value of CSV column NAME in the first data row of FILE.
column() {
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
		NR == 2 { print $c; exit }' "$2"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
per_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b > 0 ? a / b : 0) }'; }
us_per() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.1f", (n > 0 ? s * 1e6 / n : 0) }'; }

# timed DB POLICY: one replay; sets wall, cpu (s), events, placed (a stopped run: wall
# '>limit' and events, placed as if done, so its rates are upper bounds)
timed() {
	if /usr/bin/time -f '%e %U %S' -o "$work/time" timeout "$limit" "$vf" replay "$1" \
		--policy "$2" --seed 1 --no-store --format csv >"$work/t.csv" 2>/dev/null; then
		read -r wall u s <"$work/time"
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		events=$(column events "$work/t.csv")
		placed=$(column placed_jobs "$work/t.csv")
	else
		wall=">$limit" cpu=">$limit" events=$((jobs * 2)) placed=$jobs
		rm -f "$work/t.csv"
	fi
}

if ! [ -x /usr/bin/time ]; then
	echo "skipped: no /usr/bin/time to measure CPU time with"
	exit 0
fi

# the bare scan
cat >"$work/scan.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	size_t n = strtoul(argv[1], NULL, 10), rec = strtoul(argv[2], NULL, 10) / sizeof(double);
	int passes = atoi(argv[3]);
	double *r = malloc(n * rec * sizeof *r), dem[7] = {4000, 16384, 1000, 8192, 10, 20, 0};
	if (!r || rec < 21)
		return 1;
	for (size_t i = 0; i < n * rec; i++)
		r[i] = (double)(i % 977) + 1;
	double best = 1e300;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int p = 0; p < passes; p++) {
		dem[0] = p % 7;
		for (size_t i = 0; i < n; i++) { /* free, 1 / cap, weight of each dim */
			const double *x = r + i * rec;
			double b = x[rec - 1];
			for (int d = 0; d < 7; d++) {
				double left = x[d] - dem[d];
				b += (left > 0 ? left : 0) * x[7 + d] * x[14 + d];
			}
			best = b < best ? b : best;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("%.3f %g\n", s * 1e6 / passes, best);
	return 0;
}
EOF
scan_us=
if ${CC:-cc} -O2 -o "$work/scan" "$work/scan.c" 2>/dev/null; then
	scan_us=$("$work/scan" "$nodes" "$record" "$passes" | cut -d' ' -f1)
	echo "bare scan: every one of $nodes nodes bounded from a $record-byte record:" \
		"$scan_us us a pass (mean of $passes)"
else
	echo "bare scan: skipped (no C compiler as \$CC)"
fi

for tpl in 0 $([ "$templates" -gt 0 ] && echo "$templates"); do
	"$vf" gen --scenario balanced --jobs "$jobs" --nodes "$nodes" --seed 1 -o "$work/g" \
		$([ "$tpl" -gt 0 ] && echo --templates "$tpl") >/dev/null
	distinct=$(awk -F, 'NR > 1 { $1 = $2 = $3 = ""; if (!($0 in s)) { s[$0] = 1; n++ } }
		END { print n + 0 }' "$work/g/jobs.csv")
	"$vf" import -o "$work/g.db" "$work/g/jobs.csv" "$work/g/nodes.csv" >/dev/null
	rm -rf "$work/g"
	how=$([ "$tpl" -gt 0 ] && echo "requests from $tpl templates" || echo "no templates")
	goal=$([ "$tpl" -gt 0 ] && echo 100000 || echo 50000)
	echo "'balanced' trace, $jobs jobs on $nodes nodes, $how ($distinct distinct requests):"
	printf '   %-6s %8s %8s %10s %12s %9s %8s %10s\n' policy wall_s cpu_s events \
		ev_per_cpu_s us_place goal vs_fgd
	for p in fgd ragp7; do
		timed "$work/g.db" "$p"
		rate=$(per_s "$events" "${cpu#>}")
		us=$(us_per "${cpu#>}" "$placed")
		if [ "$p" = fgd ]; then
			fcpu=${cpu#>} vs=""
		else
			vs="x$(ratio "${cpu#>}" "$fcpu")"
		fi
		printf '   %-6s %8s %8s %10s %12s %9s %8s %10s\n' "$p" "$wall" "$cpu" "$events" \
			"$rate" "$us" "x$(ratio "$rate" "$goal")" "$vs"
	done
	[ -n "$scan_us" ] && echo "   ragp7's CPU time a placement over the bare scan's pass:" \
		"x$(ratio "$us" "$scan_us") (vs_fgd: CPU time over fgd's, goal x2 or less)"
	rm -f "$work/g.db"
done
