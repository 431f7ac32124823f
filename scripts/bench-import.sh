#!/bin/sh
# bench-import.sh — import throughput, store size and peak memory of 'voidfit import',
# against 'sqlite3 .import --csv' of the same file in the same run.
# Usage: scripts/bench-import.sh [BUILD_DIR] [--big]
#   Inputs: disaggregated_DLRM_trace.csv, openb_pod_list_default.csv and batch_task.csv
#   (Alibaba v2017, about 0.1 % of its rows quarantined), their data rows
#   repeated to about 40 MB (from $VOIDFIT_TRACES, default ../shared/traces next to the
#   checkout); a file of 1,000 fields whose lines repeat 50 shapes (40 MB: the cost of
#   choosing which fields to code jointly grows with the fields); with --big, also a
#   synthetic trace of a few hundred MB from 'voidfit gen'.
# With VOIDFIT_BENCH_REF=PATH (another build's voidfit), also its import and load time and
# store size for each input, as ratios (issue 30's item 6: no more than 1.5x).
# Prints, per input: MB/s of each tool by wall clock and by CPU time (user + sys: the
# machine may be shared; each the best of $VOIDFIT_BENCH_RUNS runs, default 3), the speed
# ratio, the peak RSS of both (from /usr/bin/time -v), and the store size. Store size
# against xz -9e and zstd -19 is measured on the original files (the issue's goal): a file
# of repeated rows flatters xz and zstd, whose windows see the repeats, and xz -9e of 40 MB
# takes minutes.
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

runs=${VOIDFIT_BENCH_RUNS:-3}
# VOIDFIT_BENCH_REF: another build's voidfit (say the last release) to pair with, per input
ref=${VOIDFIT_BENCH_REF:-}

# run CMD... under /usr/bin/time -v, $runs times (DB, the file it writes, removed before
# each); sets wall, cpu (s: each the least seen) and rss (KiB, the largest). Wall time is
# taken around the run in nanoseconds (time -v gives hundredths, 5 % of a 0.2 s import).
measure() { # db cmd...
	db=$1
	shift
	wall='' cpu='' rss=0
	i=0
	while [ $i -lt "$runs" ]; do
		rm -f "$db"
		t0=$(date +%s%N)
		/usr/bin/time -v "$@" > /dev/null 2> "$work/time"
		t1=$(date +%s%N)
		w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')
		c=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/time")
		r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
		wall=$(awk -v a="$wall" -v b="$w" 'BEGIN { print (a == "" || b < a) ? b : a }')
		cpu=$(awk -v a="$cpu" -v b="$c" 'BEGIN { print (a == "" || b < a) ? b : a }')
		[ "$r" -gt "$rss" ] && rss=$r
		i=$((i + 1))
	done
}

bench() { # name file [original]
	f=$2
	mb=$(awk -v b="$(wc -c < "$f")" 'BEGIN { printf "%.1f", b / 1e6 }')
	measure "$work/v.db" "$vf" import -q -o "$work/v.db" "$f"
	vw=$wall vc=$cpu vr=$rss
	measure "$work/s.db" sqlite3 "$work/s.db" ".import --csv $f t"
	sw=$wall sc=$cpu sr=$rss
	vs=$(wc -c < "$work/v.db")
	# the reference build, if given: its import of the same file, then both builds' load
	# of what they stored (export --jobs reads every job and node back)
	if [ -n "$ref" ]; then
		measure "$work/r.db" "$ref" import -q -o "$work/r.db" "$f"
		rc=$cpu rs=$(wc -c < "$work/r.db")
		measure "$work/none" "$vf" export --jobs -o /dev/null "$work/v.db"
		vl=$cpu
		measure "$work/none" "$ref" export --jobs -o /dev/null "$work/r.db"
		awk -v n="$1" -v vc="$vc" -v rc="$rc" -v vs="$vs" -v rs="$rs" -v vl="$vl" \
			-v rl="$cpu" 'BEGIN { printf "  against the reference build: import %.2fx cpu, " \
			"store %.3fx, load (export --jobs) %.2fx cpu (goal <= 1.5x)\n",
			vc / rc, vs / rs, vl / rl }' >> "$work/refs"
	fi
	xs=0 zs=0 os=0 ob=0
	if [ -n "${3:-}" ]; then
		rm -f "$work/o.db"
		"$vf" import -q -o "$work/o.db" "$3" > /dev/null
		os=$(wc -c < "$work/o.db")
		ob=$(wc -c < "$3")
		xs=$(xz -9e -c "$3" | wc -c)
		zs=$(zstd -q -19 -c "$3" | wc -c)
	fi
	awk -v n="$1" -v mb="$mb" -v vw="$vw" -v vc="$vc" -v sw="$sw" -v sc="$sc" \
		-v vr="$vr" -v sr="$sr" -v vs="$vs" -v xs="$xs" -v zs="$zs" -v os="$os" \
		-v ob="$ob" 'BEGIN {
		printf "%s (%s MB)\n", n, mb
		printf "  voidfit import   %7.1f MB/s wall  %7.1f MB/s cpu  peak RSS %6.1f MiB\n",
			mb / vw, mb / vc, vr / 1024
		printf "  sqlite3 .import  %7.1f MB/s wall  %7.1f MB/s cpu  peak RSS %6.1f MiB\n",
			mb / sw, mb / sc, sr / 1024
		printf "  speed ratio voidfit/sqlite3: %.2fx wall, %.2fx cpu (goal >= 5x)\n",
			sw / vw, sc / vc
		printf "  store %.2f MB = %.3f of the CSV\n", vs / 1e6, vs / (mb * 1e6)
		if (xs)
			printf "  original file (%.2f MB): store %d B, xz -9e %d B, zstd -19 %d B; " \
				"store/xz %.3f (goal <= 0.8), store/zstd %.3f\n",
				ob / 1e6, os, xs, zs, os / xs, os / zs
	}'
	if [ -n "$ref" ]; then
		cat "$work/refs"
		rm -f "$work/refs"
	fi
}

dlrm=$traces/clusterdata/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv
pods=$traces/clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv
if [ -f "$dlrm" ]; then
	repeat "$dlrm" "$work/dlrm40.csv" 40
	bench "disaggregated_DLRM_trace.csv repeated" "$work/dlrm40.csv" "$dlrm"
	repeat "$pods" "$work/pods40.csv" 40
	bench "openb_pod_list_default.csv repeated" "$work/pods40.csv" "$pods"
	tasks=$traces/Workload-Prediction-of-Alibaba-Cluster-Dataset/batch_task.csv
	if [ -f "$tasks" ]; then
		repeat "$tasks" "$work/tasks40.csv" 40
		bench "batch_task.csv repeated" "$work/tasks40.csv" "$tasks"
	fi
else
	echo "bench-import: $traces is absent: skipping the real traces" >&2
fi
# 1,000 fields: the native job columns, then 987 small numbers that follow the line's shape
# (one of 50) give or take 2
awk 'BEGIN { srand(1); h = "job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli," \
	"hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec"
	for (i = 0; i < 987; i++) h = h ",x" i
	print h
	for (r = 0; r < 20000; r++) { s = int(rand() * 50)
		l = sprintf("j%d,%d,%d,batch,%d,%d,0,0,,,,,", r, r, 100 + s, 1000 * (1 + s % 8),
			1024 * (1 + s % 5))
		for (i = 0; i < 987; i++) l = l "," (s * i + int(rand() * 3)) % 7
		print l } }' > "$work/wide.csv"
bench "1,000 fields (generated)" "$work/wide.csv"
rm -f "$work/wide.csv"
# The native readers against the CSV path: the same 1 M jobs (whole-GPU and CPU jobs, times
# a second apart) as voidfit-native CSV, as 'sacct -a -P' output (each job with its .batch
# step, as sacct prints it) and as a 'kubectl get pods -A -o json' List (one pod a few
# lines, kubectl's layout), each imported once; MB/s and jobs/s, and each reader's ratio
# to the CSV path in jobs/s.
native() { # name file jobs
	measure "$work/n.db" "$vf" import -q -o "$work/n.db" "$2"
	awk -v n="$1" -v b="$(wc -c < "$2")" -v w="$wall" -v c="$cpu" -v r="$rss" -v j="$3" \
		'BEGIN { printf "  %-22s %7.1f MB  %6.1f MB/s wall  %6.1f MB/s cpu  %7.0f jobs/s cpu  peak RSS %6.1f MiB\n",
			n, b / 1e6, b / 1e6 / w, b / 1e6 / c, j / c, r / 1024 }'
	echo "$cpu" > "$work/$1.cpu"
}
nj=${VOIDFIT_BENCH_NATIVE_JOBS:-1000000}
awk -v n="$nj" 'BEGIN {
	print "job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec"
	for (i = 0; i < n; i++) { g = i % 3 ? i % 8 + 1 : 0
		printf "%d,%d,%d,%s,%d,%d,%d,%d,,,,,\n", i, 1709251200 + i, 60 + i % 3600,
			g ? "train" : "cpu", (i % 16 + 1) * 1000, (i % 64 + 1) * 1024, g, g ? 1000 : 0 } }' \
	> "$work/native.csv"
awk -v n="$nj" 'function t(s) { return strftime("%Y-%m-%dT%H:%M:%S", s, 1) }
BEGIN { print "JobID|JobName|Partition|QOS|Submit|Start|End|Elapsed|State|NNodes|NodeList|ReqTRES|AllocTRES"
	for (i = 0; i < n; i++) { g = i % 3 ? i % 8 + 1 : 0; a = 1709251200 + i; d = 60 + i % 3600
		tres = sprintf("billing=%d,cpu=%d,%smem=%dG,node=1", i % 16 + 1, i % 16 + 1,
			g ? sprintf("gres/gpu:a100=%d,gres/gpu=%d,", g, g) : "", i % 64 + 1)
		printf "%d|job%d|main|normal|%s|%s|%s|%02d:%02d:%02d|COMPLETED|1|n%d|%s|%s\n",
			100 + i, i, t(a), t(a), t(a + d), d / 3600, d % 3600 / 60, d % 60, i % 500, tres, tres
		printf "%d.batch|batch|||%s|%s|%s|%02d:%02d:%02d|COMPLETED|1|n%d||%s\n",
			100 + i, t(a), t(a), t(a + d), d / 3600, d % 3600 / 60, d % 60, i % 500, tres } }' \
	> "$work/jobs.sacct"
awk -v n="$nj" 'function t(s) { return strftime("%Y-%m-%dT%H:%M:%SZ", s, 1) }
BEGIN { print "{\n    \"apiVersion\": \"v1\",\n    \"items\": ["
	for (i = 0; i < n; i++) { g = i % 3 ? i % 8 + 1 : 0; a = 1709251200 + i; d = 60 + i % 3600
		printf "        {\"apiVersion\": \"v1\", \"kind\": \"Pod\",\n"
		printf "         \"metadata\": {\"creationTimestamp\": \"%s\", \"name\": \"job%d\", \"namespace\": \"ml\"},\n", t(a), i
		printf "         \"spec\": {\"containers\": [{\"name\": \"main\", \"resources\": {\"requests\": {\"cpu\": \"%d\", \"memory\": \"%dGi\"%s}}}], \"nodeName\": \"n%d\"},\n", \
			i % 16 + 1, i % 64 + 1, g ? sprintf(", \"nvidia.com/gpu\": \"%d\"", g) : "", i % 500
		printf "         \"status\": {\"containerStatuses\": [{\"name\": \"main\", \"state\": {\"terminated\": {\"finishedAt\": \"%s\"}}}], \"phase\": \"Succeeded\", \"startTime\": \"%s\"}}%s\n", \
			t(a + d), t(a), i < n - 1 ? "," : "" }
	print "    ],\n    \"kind\": \"List\",\n    \"metadata\": {\"resourceVersion\": \"\"}\n}" }' \
	> "$work/pods.json"
echo "native readers, the same $nj jobs (best of $runs)"
native native-jobs "$work/native.csv" "$nj"
native slurm-sacct "$work/jobs.sacct" "$nj"
native k8s "$work/pods.json" "$nj"
awk -v c="$(cat "$work/native-jobs.cpu")" -v s="$(cat "$work/slurm-sacct.cpu")" \
	-v k="$(cat "$work/k8s.cpu")" 'BEGIN {
	printf "  jobs/s against the CSV path: slurm-sacct %.2fx, k8s %.2fx\n", c / s, c / k }'
rm -f "$work/native.csv" "$work/jobs.sacct" "$work/pods.json"

if [ $big -eq 1 ]; then
	runs=1 # one import of 350 MB is long enough to measure
	"$vf" gen --scenario irregular -j 6000000 --nodes 4096 -o "$work/gen" > /dev/null
	bench "voidfit gen irregular, 6M jobs" "$work/gen/jobs.csv"
fi
