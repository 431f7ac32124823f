#!/bin/sh
# The four 'voidfit gen' scenarios under every policy: mean fragmentation (FGD measure),
# multi-dimensional fragmentation, stalled GPU-hours and mean slowdown, as Markdown tables
# (the table voidfit.7 quotes). Timed replay, FIFO queue; 'hard' with its faults.txt.
#
# Usage: scripts/scenarios.sh BUILD_DIR
# Environment: SCEN_JOBS (default 2000), SCEN_NODES (64), SCEN_GEN_SEED (1) shape the
# generated traces; SCEN_SEEDS (1-3) are the replay seeds, averaged. The same settings give
# the same tables byte for byte.
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
jobs=${SCEN_JOBS:-2000}
nodes=${SCEN_NODES:-64}
gseed=${SCEN_GEN_SEED:-1}
seeds=${SCEN_SEEDS:-1-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-scen.XXXXXX")
trap 'rm -rf "$work"' EXIT
scenarios="balanced irregular storage-stress hard"

for s in $scenarios; do
	"$vf" gen --scenario "$s" --jobs "$jobs" --nodes "$nodes" --seed "$gseed" -o "$work/$s" \
		>/dev/null
	set -- "$work/$s/jobs.csv" "$work/$s/nodes.csv"
	"$vf" import -o "$work/$s.db" "$@" >/dev/null
	set -- --policy all --seeds "$seeds" --no-store --format csv
	[ -f "$work/$s/faults.txt" ] && set -- "$@" --fault-file "$work/$s/faults.txt"
	"$vf" replay "$work/$s.db" "$@" >"$work/$s.csv"
done

echo "Timed replay of 'voidfit gen' scenarios ($jobs jobs, $nodes nodes, gen seed $gseed),"
echo "mean over replay seeds $seeds; FIFO queue; hard with its faults."
for m in mean_fragmentation md_fragmentation stalled_gpu_hours slowdown_mean; do
	echo
	# one table: a row per policy, a column per scenario; a policy with one seed row
	# is its own mean
	awk -F, -v metric="$m" -v scen="$scenarios" '
	BEGIN { ns = split(scen, sname, " ") }
	FNR == 1 {
		f++
		for (i = 1; i <= NF; i++)
			col[$i] = i
		next
	}
	{
		p = $1
		if (!(p in seen)) {
			seen[p] = 1
			order[++np] = p
		}
		if (v[f, p] == "" || $2 == "mean")
			v[f, p] = $(col[metric])
	}
	END {
		dec = metric ~ /fragmentation/ ? 4 : (metric ~ /slowdown/ ? 3 : 1)
		printf "| %s |", metric
		for (k = 1; k <= ns; k++)
			printf " %s |", sname[k]
		printf "\n| --- |"
		for (k = 1; k <= ns; k++)
			printf " ---: |"
		printf "\n"
		for (i = 1; i <= np; i++) {
			printf "| %s |", order[i]
			for (k = 1; k <= ns; k++)
				printf " %.*f |", dec, v[k, order[i]]
			printf "\n"
		}
	}' $(for s in $scenarios; do printf '%s ' "$work/$s.csv"; done)
done
