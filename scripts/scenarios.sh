#!/bin/sh
# The four 'voidfit gen' scenarios under every policy: mean fragmentation (FGD measure),
# multi-dimensional fragmentation, stalled GPU-hours, mean slowdown, wait p95 and $/yr
# recoverable by placement, as Markdown tables (the tables voidfit.7 quotes). Timed replay,
# FIFO queue; 'hard' with its faults.txt; each policy with its own I/O admission (ragp7 on
# sto and iocpu) unless SCEN_ADMISSION is on or off.
#
# Every cell is the mean over SCEN_GEN_SEEDS generator seeds (each a fresh trace of the
# scenario, replayed at seed 1) with its 95 % interval (Student t): the traces record every
# dim, so the replay seed moves random alone, and the spread that matters is the workload's.
#
# Usage: scripts/scenarios.sh BUILD_DIR
# Environment: SCEN_JOBS (default 2000), SCEN_NODES (64), SCEN_GEN_SEEDS (1-5: A-B),
# SCEN_ADMISSION (unset: each policy's own). The same settings give the same tables byte for
# byte.
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
jobs=${SCEN_JOBS:-2000}
nodes=${SCEN_NODES:-64}
gseeds=${SCEN_GEN_SEEDS:-1-5}
adm=${SCEN_ADMISSION:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-scen.XXXXXX")
trap 'rm -rf "$work"' EXIT
scenarios="balanced irregular storage-stress hard"
g0=${gseeds%-*}
g1=${gseeds#*-}

for s in $scenarios; do
	g=$g0
	while [ "$g" -le "$g1" ]; do
		"$vf" gen --scenario "$s" --jobs "$jobs" --nodes "$nodes" --seed "$g" \
			-o "$work/$s.$g" >/dev/null
		"$vf" import -o "$work/$s.$g.db" "$work/$s.$g/jobs.csv" "$work/$s.$g/nodes.csv" \
			>/dev/null
		set -- --policy all --seed 1 --no-store --format csv
		[ -f "$work/$s.$g/faults.txt" ] && set -- "$@" --fault-file "$work/$s.$g/faults.txt"
		[ -n "$adm" ] && set -- "$@" --io-admission "$adm"
		"$vf" replay "$work/$s.$g.db" "$@" | awk -F, -v s="$s" 'NR > 1 { print s "," $0 }
			NR == 1 { print "scenario," $0 }' >"$work/$s.$g.csv"
		g=$((g + 1))
	done
done

echo "Timed replay of 'voidfit gen' scenarios ($jobs jobs, $nodes nodes), generator seeds"
echo "$gseeds (replay seed 1), mean +- 95 % interval; FIFO queue; hard with its faults;"
echo "I/O admission: ${adm:-each policy's own}."
for m in mean_fragmentation md_fragmentation stalled_gpu_hours slowdown_mean wait_p95_s \
	recoverable_by_placement_usd_per_year; do
	echo
	# one table: a row per policy, a column per scenario
	awk -F, -v metric="$m" -v scen="$scenarios" '
	BEGIN {
		ns = split(scen, sname, " ")
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", t975, " ")
	}
	FNR == 1 {
		for (i = 1; i <= NF; i++)
			col[$i] = i
		next
	}
	{
		s = $1; p = $2
		if (!(p in seen)) {
			seen[p] = 1
			order[++np] = p
		}
		x = $(col[metric])
		n[s, p]++; sum[s, p] += x; sum2[s, p] += x * x
	}
	END {
		dec = metric ~ /fragmentation/ ? 4 : (metric ~ /slowdown/ ? 3 : 0)
		if (metric ~ /stalled/) dec = 1
		printf "| %s |", metric
		for (k = 1; k <= ns; k++)
			printf " %s |", sname[k]
		printf "\n| --- |"
		for (k = 1; k <= ns; k++)
			printf " ---: |"
		printf "\n"
		for (i = 1; i <= np; i++) {
			p = order[i]
			printf "| %s |", p
			for (k = 1; k <= ns; k++) {
				s = sname[k]; c = n[s, p]
				mean = sum[s, p] / c
				var = c > 1 ? (sum2[s, p] - c * mean * mean) / (c - 1) : 0
				hw = c > 1 ? t975[c - 1 > 10 ? 10 : c - 1] * sqrt(var > 0 ? var : 0) / sqrt(c) : 0
				printf " %.*f +- %.*f |", dec, mean, dec, hw
			}
			printf "\n"
		}
	}' "$work"/*.csv
done
