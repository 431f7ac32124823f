#!/bin/sh
# The held-out discipline of policy work on the FGD setup: variant families of the openb
# 'default' pod list, built by the recipes of the FGD paper's evaluation (Weng et al., ATC
# 2023, sections 6.3-6.5: pods sampled from the default trace so that one kind weighs more,
# or given GPU-model constraints), over each knob's whole range, and a fixed split of them
# into a tuning set (every constant of a policy is chosen on it) and a judging set (what the
# documentation reports; nothing is chosen on it).
#
# Usage: scripts/fgd-variants.sh --list
#          the variants, one a line: NAME SET KNOB (SET: tuning or judging), tuning first
#        scripts/fgd-variants.sh NAME POD_CSV NODE_CSV
#          the pod list of variant NAME on stdout, built from the default pod list POD_CSV
#          (openb_pod_list_default.csv) for the nodes of NODE_CSV
#
# The families (every draw from a fixed awk seed, so a variant is the same file each time):
#   cpuNNN    every CPU-only pod NNN/100 times (the fraction by a draw per pod): the share
#             of CPU-only pods, 0 to 2.5 times the default's (the paper's cpu050-cpu250)
#   shareNNN  NNN % of the GPU pods share a GPU (gpu_milli < 1000), the number of GPU pods
#             kept: each single-GPU pod of one kind copied as often as that needs, the
#             multi-GPU pods (1 %) once (default 43.6 %)
#   specNN    NN % of the GPU pods without a constraint given one, drawn in proportion to
#             the constraints of the real trace's constrained pods (below), so that T4 and
#             the V100s become scarce; a draw none of whose models has a node with the
#             pod's GPU count is drawn again (the paper's gpuspec10-33, and 50)
#   multiNN   every pod with two GPUs or more copied so that they ask NN % of the GPU-milli
#             of all GPU pods (default 7.3 %; the paper's multigpu10-50)
# The constraints of the real trace: the published gpuspec33 pod list of the FGD artifact
# (kubernetes-scheduler-simulator, data/csv/openb_pod_list_gpuspec33_cpu0.csv), whose
# constraints are the production ones, counted over four stretches of it (302 constrained
# pods): T4 146, G2 54, V100M16|V100M32 31, P100 23, P100|V100M16|V100M32 18, G3 12,
# P100|T4|V100M16|V100M32 8, A10|G2|T4|V100M16|V100M32 4, G2|P100|T4|V100M16|V100M32 3,
# V100M32 2, A10|T4 1. Half the constrained pods want T4, 14 % of the GPUs.
#
# The split alternates within each family and keeps in the tuning set the levels nearest
# the variants fgd-pack was first tuned on (default, every CPU-only pod twice, every share
# twice, every multi-GPU pod twice); it is fixed: change it and every figure of
# voidfit.7's validation must be measured again.
set -eu

list() {
	cat <<'EOF'
default tuning the default pod list itself
cpu000 tuning no CPU-only pod
cpu200 tuning CPU-only pods x2.0
share020 tuning 20 % of GPU pods share a GPU
share060 tuning 60 % of GPU pods share a GPU
share100 tuning every GPU pod shares a GPU
spec10 tuning 10 % of GPU pods constrained
spec25 tuning 25 % of GPU pods constrained
spec50 tuning 50 % of GPU pods constrained
multi10 tuning multi-GPU pods 10 % of GPU demand
multi30 tuning multi-GPU pods 30 % of GPU demand
multi50 tuning multi-GPU pods 50 % of GPU demand
cpu050 judging CPU-only pods x0.5
cpu150 judging CPU-only pods x1.5
cpu250 judging CPU-only pods x2.5
share000 judging no GPU pod shares a GPU
share040 judging 40 % of GPU pods share a GPU
share080 judging 80 % of GPU pods share a GPU
spec20 judging 20 % of GPU pods constrained
spec33 judging 33 % of GPU pods constrained
multi20 judging multi-GPU pods 20 % of GPU demand
multi40 judging multi-GPU pods 40 % of GPU demand
EOF
}

if [ "${1:-}" = --list ]; then
	list
	exit 0
fi
if [ $# -ne 3 ]; then
	echo "usage: fgd-variants.sh --list | NAME POD_CSV NODE_CSV" >&2
	exit 2
fi
name=$1 pods=$2 nodes=$3
list | awk -v n="$name" '$1 == n { found = 1 } END { exit !found }' || {
	echo "fgd-variants: '$name': no such variant (fgd-variants.sh --list)" >&2
	exit 2
}
kind=$(echo "$name" | sed 's/[0-9]*$//')
level=$(echo "$name" | sed 's/^[a-z]*//')
# The pod list is read twice: the first pass counts what the copy factors need.
awk -F, -v OFS=, -v kind="$kind" -v level="${level:-0}" -v nodes="$nodes" '
function gpu(r) { return r[4] + 0 > 0 }
function share(r) { return r[4] + 0 == 1 && r[5] + 0 < 1000 }
function multi(r) { return r[4] + 0 >= 2 }
# copies of a pod for factor f: int(f), and one more with probability frac(f)
function copies(f) { return int(f) + (rand() < f - int(f)) }
# a constraint of the real trace, one of whose models has a node with k GPUs, or ""
function draw(k,   t, r, i, j, nm, ms) {
	for (t = 0; t < 20; t++) {
		r = rand() * stot
		for (i = 0; i < ns - 1 && r >= sw[i]; i++)
			r -= sw[i]
		nm = split(spec[i], ms, "|")
		for (j = 1; j <= nm; j++)
			if (maxg[ms[j]] >= k)
				return spec[i]
	}
	return ""
}
BEGIN {
	srand(42)
	ns = split("T4 G2 V100M16|V100M32 P100 P100|V100M16|V100M32 G3 P100|T4|V100M16|V100M32 " \
		   "A10|G2|T4|V100M16|V100M32 G2|P100|T4|V100M16|V100M32 V100M32 A10|T4", s, " ")
	split("146 54 31 23 18 12 8 4 3 2 1", w, " ")
	for (i = 0; i < ns; i++) {
		spec[i] = s[i + 1]
		sw[i] = w[i + 1]
		stot += sw[i]
	}
	while ((getline l < nodes) > 0) {
		split(l, nd, ",")
		if (nd[1] != "sn" && nd[4] + 0 > maxg[nd[5]])
			maxg[nd[5]] = nd[4] + 0
	}
}
NR == FNR {
	split($0, r, ",")
	if (FNR > 1 && gpu(r)) {
		ngpu++
		nsh += share(r)
		nm += multi(r)
		dm += multi(r) * r[4] * r[5]
		do_ += !multi(r) * r[4] * r[5]
	}
	next
}
FNR == 1 {
	q = level / 100
	rsh = nsh ? q * ngpu / nsh : 0
	rot = ((1 - q) * ngpu - nm) / (ngpu - nsh - nm)
	rot = rot > 0 ? rot : 0
	rm = dm && q < 1 ? q * do_ / ((1 - q) * dm) : 0
	print
	next
}
{
	split($0, r, ",")
	f = 1
	if (kind == "cpu" && !gpu(r))
		f = level / 100
	else if (kind == "share" && gpu(r) && !multi(r))
		f = share(r) ? rsh : rot
	else if (kind == "multi" && multi(r))
		f = rm
	else if (kind == "spec" && gpu(r) && $6 == "" && rand() < level / 100)
		$6 = draw($4 + 0)
	k = kind == "default" || kind == "spec" ? 1 : copies(f)
	base = $1
	for (i = 1; i <= k; i++) {
		$1 = i == 1 ? base : base "-" i
		print
	}
}' "$pods" "$pods"
