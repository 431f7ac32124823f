#!/bin/sh
# Validation against the FGD paper (Weng et al., USENIX ATC 2023) in its own setup: the
# Alibaba gpu-v2023 'default' pod list on the 1,213 GPU nodes (openb_node_list_gpu_node.csv),
# inflated to 100 % of GPU capacity, seeds 42-51, the six baselines scored as the paper's
# simulator scores them (--scoring k8s, ties by node name), and the unallocated GPU share at
# 100 % arrived load compared with the paper's figure 7. Then the same on variants of the
# default trace, and fgd in exact scoring and fgd-pack (exact) beside them.
#
# Usage: scripts/validate-fgd.sh BUILD_DIR [VARIANT|SET...]
# VARIANT: a variant of scripts/fgd-variants.sh (--list names them); SET: tuning or judging,
# all of that set's variants (default: both sets, every variant). Reads the traces from
# $VOIDFIT_TRACES (default ../shared/traces next to the checkout); exits 77 (skipped) where
# they are absent. FGD_SEEDS overrides the seeds (42-51); FGD_THREADS the replays' --threads
# (2); FGD_WORK names a directory to keep the variants and their stores in; FGD_POLICIES the
# exact-scored policies beside the baselines (fgd,fgd-pack: the first is the exact fgd that
# fgd-pack is held to, the last the policy judged).
#
# The reference column is the FGD authors' expected results (github.com/hkust-adsl/
# kubernetes-scheduler-simulator, experiments/analysis/expected_results/
# analysis_allo_discrete.csv, workload openb_pod_list_default, tune 1.3, seeds 42-51): 100 -
# the allocated GPU % at 100 % arrived load, the mean of the ten seeds' values in that file.
#
# The variants and their split into a tuning and a judging set are scripts/fgd-variants.sh's
# (the held-out discipline: constants are chosen on the tuning set, the judging set is what
# voidfit.7 reports). After one table per variant come the two sets' tables, one row per
# variant: the artifact's fgd (k8s), the lowest k8s baseline, exact fgd, the judged policy,
# and its paired differences from the artifact's fgd and from exact fgd.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf="$(cd "${1:-build}" && pwd)/voidfit"
[ $# -gt 0 ] && shift
sets=$(sh "$top/scripts/fgd-variants.sh" --list)
variants=
for a in ${*:-tuning judging}; do
	case $a in
	tuning | judging) variants="$variants $(echo "$sets" | awk -v s="$a" '$2 == s { print $1 }')" ;;
	*) echo "$sets" | awk -v n="$a" '$1 == n { f = 1 } END { exit !f }' || {
		echo "validate-fgd: '$a': no such variant or set" >&2
		exit 2
	}
		variants="$variants $a" ;;
	esac
done
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
csv=$traces/clusterdata/cluster-trace-gpu-v2023/csv
if [ ! -f "$csv/openb_pod_list_default.csv" ] || [ ! -f "$csv/openb_node_list_gpu_node.csv" ]; then
	echo "validate-fgd: skipped: no traces in $traces"
	exit 77
fi
if [ -n "${FGD_WORK:-}" ]; then # keep the variants and stores there
	work=$FGD_WORK
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-fgd.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
baselines=random,dotprod,clustering,packing,best-fit,fgd
seeds=${FGD_SEEDS:-42-51}
threads=${FGD_THREADS:-2}
exact=${FGD_POLICIES:-fgd,fgd-pack}
nodes=$csv/openb_node_list_gpu_node.csv

# variant NAME -> the pod list of that variant in $work/NAME/openb_pod_list_NAME.csv, and
# its store in $work/NAME.db
variant() {
	mkdir -p "$work/$1"
	out="$work/$1/openb_pod_list_$1.csv"
	sh "$top/scripts/fgd-variants.sh" "$1" "$csv/openb_pod_list_default.csv" "$nodes" >"$out"
	rm -f "$work/$1.db" # a kept FGD_WORK: import the variant afresh
	"$vf" import -o "$work/$1.db" "$out" "$nodes" >/dev/null
}

# run STORE OUT POLICIES extra-options... -> CSV in OUT
run() {
	db=$1 out=$2 pol=$3
	shift 3
	"$vf" replay "$db" --policy "$pol" --mode inflate --target 1.0 --seeds "$seeds" \
		--threads "$threads" --no-store --format csv "$@" >"$out"
}

for v in $variants; do
	variant "$v"
	run "$work/$v.db" "$work/$v-k8s.csv" "$baselines" --scoring k8s
	run "$work/$v.db" "$work/$v-exact.csv" "$exact"
done

# The mean and 95 % half-width (Student t) of each policy's unallocated share at 100 % load,
# from the per-seed rows; differences are paired by seed (every policy meets the same pods in
# the same order). Each variant's table, then its row of its set's table into $work/rows.
: >"$work/rows"
for v in $variants; do
	set_of=$(echo "$sets" | awk -v n="$v" '$1 == n { print $2 }')
	awk -F, -v variant="$v" -v set="$set_of" -v exact="$exact" -v rows="$work/rows" '
	BEGIN {
		ref["random"] = 13.70; ref["dotprod"] = 9.38; ref["clustering"] = 8.35
		ref["packing"] = 8.22; ref["best-fit"] = 7.14; ref["fgd"] = 4.77
		n = split("random dotprod clustering packing best-fit fgd", order, " ")
		ne = split(exact, ex, ",")
		judged = "exact " ex[ne]
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 " \
		      "2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", t, " ")
	}
	# paired difference a - b over the seeds both ran: mean in pd, half-width in ph
	function paired(a, b,   sd, x, d1, d2, nd, var) {
		d1 = d2 = nd = 0
		for (sd in seen)
			if ((a, sd) in at && (b, sd) in at) {
				x = at[a, sd] - at[b, sd]
				d1 += x
				d2 += x * x
				nd++
			}
		if (nd < 2)
			return 0
		pd = d1 / nd
		var = (d2 - nd * pd * pd) / (nd - 1)
		ph = (nd - 1 <= 20 ? t[nd - 1] : 1.96) * sqrt(var > 0 ? var : 0) / sqrt(nd)
		return 1
	}
	function verdict() { return pd + ph < 0 ? "lower" : (pd - ph > 0 ? "higher" : "not told apart") }
	FNR == 1 {
		file++
		for (i = 1; i <= NF; i++)
			col[$i] = i
		next
	}
	$2 != "mean" {
		key = (file == 1 ? "k8s " : "exact ") $1
		x = $(col["unallocated_gpu_share_at_100"]) * 100
		at[key, $2] = x
		seen[$2] = 1
		m[key]++
		s1[key] += x
		s2[key] += x * x
	}
	END {
		for (key in m) {
			u[key] = s1[key] / m[key]
			var = m[key] > 1 ? (s2[key] - m[key] * u[key] * u[key]) / (m[key] - 1) : 0
			df = m[key] - 1
			h[key] = df > 0 ? (df <= 20 ? t[df] : 1.96) * sqrt(var > 0 ? var : 0) / sqrt(m[key]) : 0
		}
		printf "%s: unallocated GPU share at 100 %% arrived load, %% (mean over seeds, +- 95 %%)\n", variant
		printf "  %-18s %14s %s\n", "policy", "voidfit", variant == "default" ? "   paper   diff" : ""
		best = ""
		for (k = 1; k <= n; k++) {
			key = "k8s " order[k]
			if (!(key in m))
				continue
			r = variant == "default" ? sprintf("%8.2f %+6.2f", ref[order[k]], u[key] - ref[order[k]]) : ""
			printf "  %-18s %7.2f +-%4.2f %s\n", key, u[key], h[key], r
			if (best == "" || u[key] < u[best])
				best = key
		}
		for (k = 1; k <= ne; k++) {
			key = "exact " ex[k]
			if (key in m)
				printf "  %-18s %7.2f +-%4.2f\n", key, u[key], h[key]
		}
		printf "  lowest k8s baseline: %s\n", best
		for (k = 1; k <= 3; k++) {
			base = k == 1 ? "k8s fgd" : (k == 2 ? best : "exact " ex[1])
			if (!(base in m) || !(judged in m) || base == judged ||
			    (k == 2 && base == "k8s fgd") || !paired(judged, base))
				continue
			printf "  %s - %s: %+.2f +-%4.2f, paired by seed: %s\n", ex[ne], base, pd, ph, verdict()
			d[k] = sprintf("%+6.2f +-%4.2f %-6s", pd, ph, verdict() == "not told apart" ? "~" : verdict())
		}
		if ("k8s fgd" in m && judged in m)
			printf "%s %s %6.2f %-10s %6.2f %6.2f %6.2f %s %s\n", set, variant, u["k8s fgd"],
			       substr(best, 5), u[best], u["exact " ex[1]], u[judged],
			       1 in d ? d[1] : "-", 3 in d ? d[3] : "-" >>rows
	}' "$work/$v-k8s.csv" "$work/$v-exact.csv"
done

# The two sets' tables: the judged policy against the artifact's fgd and exact fgd, paired
# by seed (lower / higher: the 95 % interval of the difference lies below / above 0; ~: it
# holds 0).
j=$(echo "$exact" | awk -F, '{ print $NF }')
for s in tuning judging; do
	grep -q "^$s " "$work/rows" || continue
	echo "$s set: unallocated GPU share at 100 % arrived load, % (mean over seeds $seeds)"
	printf '  %-9s %7s %-17s %7s %8s  %-22s %s\n' variant "k8s fgd" "lowest k8s" "exact fgd" "$j" \
		"$j - k8s fgd" "$j - exact fgd"
	awk -v s="$s" '$1 == s {
		printf "  %-9s %7.2f %-10s %6.2f %9.2f %8.2f  %s %s %s   %s %s %s\n", $2, $3, $4, $5, $6, $7,
		       $8, $9, $10, $11, $12, $13
	}' "$work/rows"
done
