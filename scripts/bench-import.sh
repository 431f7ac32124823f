#!/bin/sh
# bench-import.sh — import throughput, store size and peak memory of 'voidfit import',
# against 'sqlite3 .import --csv' of the same file in the same run.
# Usage: scripts/bench-import.sh [BUILD_DIR] [--big]
#   Inputs: disaggregated_DLRM_trace.csv and openb_pod_list_default.csv, their data rows
#   repeated to about 40 MB (from $VOIDFIT_TRACES, default ../shared/traces next to the
#   checkout); with --big, also a synthetic trace of a few hundred MB from 'voidfit gen'.
# Prints, per input: MB/s of each tool by wall clock and by CPU time (user + sys: the
# machine may be shared), the speed ratio, the store size against xz -9e and zstd -19 of the
# same file (not for --big: xz -9e of 350 MB takes too long), and the peak RSS of both
# (from /usr/bin/time -v). Note: a file of repeated rows flatters xz and zstd, whose
# windows see the repeats; the store's blocks do not.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
big=0
[ "${2:-}" = "--big" ] && big=1
vf=$build/voidfit
[ -x "$vf" ] || { echo "bench-import: build $vf first" >&2; exit 1; }
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
for t in sqlite3 xz zstd /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench-import: needs $t (scripts/deps.sh)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# repeat SRC's data rows under its header until the file has at least MB megabytes
repeat() { # src dst mb
	head -n 1 "$1" > "$2"
	while [ "$(wc -c < "$2")" -lt $(($3 * 1000000)) ]; do tail -n +2 "$1" >> "$2"; done
}

# run CMD... under /usr/bin/time -v; sets wall, cpu (s) and rss (KiB)
measure() {
	/usr/bin/time -v "$@" > /dev/null 2> "$work/time"
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time" |
		awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
}

bench() { # name file [nocompress]
	f=$2
	mb=$(awk -v b="$(wc -c < "$f")" 'BEGIN { printf "%.1f", b / 1e6 }')
	rm -f "$work/v.db" "$work/s.db"
	measure "$vf" import -q -o "$work/v.db" "$f"
	vw=$wall vc=$cpu vr=$rss
	measure sqlite3 "$work/s.db" ".import --csv $f t"
	sw=$wall sc=$cpu sr=$rss
	vs=$(wc -c < "$work/v.db")
	xs=0 zs=0
	if [ -z "${3:-}" ]; then
		xs=$(xz -9e -c "$f" | wc -c)
		zs=$(zstd -q -19 -c "$f" | wc -c)
	fi
	awk -v n="$1" -v mb="$mb" -v vw="$vw" -v vc="$vc" -v sw="$sw" -v sc="$sc" \
		-v vr="$vr" -v sr="$sr" -v vs="$vs" -v xs="$xs" -v zs="$zs" 'BEGIN {
		printf "%s (%s MB)\n", n, mb
		printf "  voidfit import   %7.1f MB/s wall  %7.1f MB/s cpu  peak RSS %6.1f MiB\n",
			mb / vw, mb / vc, vr / 1024
		printf "  sqlite3 .import  %7.1f MB/s wall  %7.1f MB/s cpu  peak RSS %6.1f MiB\n",
			mb / sw, mb / sc, sr / 1024
		printf "  speed ratio voidfit/sqlite3: %.2fx wall, %.2fx cpu (goal >= 5x)\n",
			sw / vw, sc / vc
		if (xs)
			printf "  store %.2f MB = %.3f of the CSV; xz -9e %.3f, zstd -19 %.3f; store/xz %.2f\n",
				vs / 1e6, vs / (mb * 1e6), xs / (mb * 1e6), zs / (mb * 1e6), vs / xs
		else
			printf "  store %.2f MB = %.3f of the CSV (xz, zstd skipped: too slow here)\n",
				vs / 1e6, vs / (mb * 1e6)
	}'
}

dlrm=$traces/clusterdata/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv
pods=$traces/clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv
if [ -f "$dlrm" ]; then
	repeat "$dlrm" "$work/dlrm40.csv" 40
	bench "disaggregated_DLRM_trace.csv repeated" "$work/dlrm40.csv"
	repeat "$pods" "$work/pods40.csv" 40
	bench "openb_pod_list_default.csv repeated" "$work/pods40.csv"
else
	echo "bench-import: $traces is absent: skipping the real traces" >&2
fi
if [ $big -eq 1 ]; then
	"$vf" gen -s irregular -j 6000000 -n 4096 -o "$work/gen" > /dev/null
	bench "voidfit gen irregular, 6M jobs" "$work/gen/jobs.csv" nocompress
fi
