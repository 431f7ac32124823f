#!/bin/sh
# Sweep benchmark (not in make check): the FGD paper's grid on openb, inflation of the
# default pods on the GPU nodes under its six baselines (random, best-fit, dotprod, packing,
# clustering, fgd) x 10 seeds x 17 targets 0.5..1.3 = 170 tasks of 6 runs, 1,020 runs, run
#   1. on one host: one 'voidfit replay --threads BENCH_J' per target (the reference)
#   2. through parallel.sh -j BENCH_J (default 2)
#   3. through Slurm on this machine (slurm.sh, BENCH_CELLS tasks an array task, default 10),
#      when a Slurm answers (SLURM_CONF set, sinfo works) or, as root with BENCH_SLURM=1, a
#      private one that tests/slurm/start.sh starts and stops
#   4. voidfit merge of the task stores
# Each gives wall and CPU seconds (user + system of every voidfit, counted by a wrapper on
# the tasks' PATH, so Slurm's tasks count too), and 2 and 3 their ratio to 1. The machine
# may be shared: quote the ratios of one run of this script, the three are paired.
# BENCH_SEEDS (default 1-10) runs a fraction (e.g. 1-2: 34 tasks).
#
# Usage: scripts/bench-sweep.sh BUILD_DIR
# Environment: VOIDFIT_TRACES (default ../shared/traces), BENCH_SEEDS, BENCH_J, BENCH_CELLS,
# BENCH_SLURM, SLURM_CONF.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bindir=$(cd "${1:-build}" && pwd)
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
csv=$traces/clusterdata/cluster-trace-gpu-v2023/csv
seeds=${BENCH_SEEDS:-1-10}
j=${BENCH_J:-2}
cells=${BENCH_CELLS:-10}
pols=random,best-fit,dotprod,packing,clustering,fgd
command -v parallel >/dev/null 2>&1 || { echo "bench-sweep: GNU parallel is not installed" >&2; exit 1; }
[ -f "$csv/openb_pod_list_default.csv" ] || { echo "bench-sweep: no openb trace in $csv" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench-sweep.XXXXXX")
state=
cleanup() {
	[ -z "$state" ] || { "$top/tests/slurm/stop.sh" "$state"; rm -rf "$state"; }
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
# voidfit under time(1): every run of it, here or in a task, adds its CPU seconds to cpu.log
# (the sweep puts the directory of the voidfit that wrote it first on the tasks' PATH)
mkdir bin
cp "$bindir/voidfit" bin/voidfit-real
cat >bin/voidfit <<W
#!/bin/sh
exec /usr/bin/time -a -o "$work/cpu.log" -f '%U %S' "$work/bin/voidfit-real" "\$@"
W
chmod +x bin/voidfit
vf=$work/bin/voidfit
PATH=$work/bin:$PATH
export PATH
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
cpu() { [ -f cpu.log ] && awk '{ s += $1 + $2 } END { printf "%.1f", s }' cpu.log || echo 0; }
ratio() { echo "scale=2; $1 / $2" | bc; }

"$vf" import -q -o openb.db "$csv/openb_pod_list_default.csv" \
	--nodes "$csv/openb_node_list_gpu_node.csv" >/dev/null
for d in par slurm; do
	"$vf" sweep openb.db -p "$pols" --seeds "$seeds" --targets 0.5..1.3/0.05 \
		--cells-per-task "$cells" -o $d 2>/dev/null
done
ntask=$(wc -l <par/tasks)
echo "bench-sweep: openb inflation, $pols, seeds $seeds, 17 targets: $ntask tasks, $((ntask * 6)) runs"
echo "bench-sweep: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# 1. one host
cp openb.db one.db
rm -f cpu.log
t0=$(now)
for t in $(awk '{ for (i = 1; i < NF; i++) if ($i == "--target") print $(i + 1) }' par/tasks | sort -u); do
	"$vf" replay one.db --policy "$pols" --seeds "$seeds" --mode inflate --target "$t" \
		--threads "$j" >/dev/null 2>&1
done
one=$(secs "$t0" "$(now)")
onec=$(cpu)
# 2. parallel.sh
rm -f cpu.log
t0=$(now)
par/parallel.sh -j "$j" || echo "bench-sweep: parallel.sh: $? tasks failed" >&2
pt=$(secs "$t0" "$(now)")
pc=$(cpu)
printf 'one host (replay --threads %s, 17 replays): %.1f s, %.1f CPU s\n' "$j" "$one" "$onec"
printf 'parallel.sh -j %s: %.1f s (%sx one host), %.1f CPU s (%sx)\n' "$j" "$pt" \
	"$(ratio "$pt" "$one")" "$pc" "$(ratio "$pc" "$onec")"
# 3. Slurm
if [ -z "${SLURM_CONF:-}" ] && [ "${BENCH_SLURM:-}" = 1 ]; then
	state=$(mktemp -d /tmp/voidfit-slurm.XXXXXX)
	chmod 755 "$state"
	"$top/tests/slurm/start.sh" "$state" >slurm.out 2>&1 || { tail -1 slurm.out >&2; state=; }
	[ -z "$state" ] || export SLURM_CONF="$state/slurm.conf"
fi
if [ -n "${SLURM_CONF:-}" ] && sinfo -h >/dev/null 2>&1; then
	rm -f cpu.log
	t0=$(now)
	slurm/slurm.sh --no-merge >/dev/null
	while [ -n "$(squeue -h 2>/dev/null)" ]; do sleep 0.2; done
	st=$(secs "$t0" "$(now)")
	sc=$(cpu)
	sdone=$("$vf" sweep status slurm | sed -n 's/.*tasks: \([0-9]*\) done.*/\1/p')
	printf 'slurm.sh (%s tasks an array task, %s of %s done): %.1f s (%sx one host), %.1f CPU s (%sx)\n' \
		"$cells" "$sdone" "$ntask" "$st" "$(ratio "$st" "$one")" "$sc" "$(ratio "$sc" "$onec")"
else
	echo "slurm: no Slurm answers here (set SLURM_CONF, or BENCH_SLURM=1 as root)"
fi
# 4. merge
cp openb.db merged.db
t0=$(now)
"$vf" merge merged.db par/runs/*.db 2>merge.err || { cat merge.err >&2; exit 1; }
mt=$(secs "$t0" "$(now)")
printf 'merge: %.2f s for %s task stores; task stores %s bytes\n' "$mt" \
	"$(ls par/runs/*.db | wc -l)" "$(cat par/runs/*.db | wc -c)"
