# a simulation always ends, in bounded memory: nodes without a shared dim (net, sto or iocpu
# capacity 0, from a node list or a cluster spec) take no job that needs it, and replay, size
# and compare finish; a run where nothing can change any more (a job at rate 0 under a
# fault that outlasts the run) stops and carries its jobs over; inflation of a trace whose
# jobs ask for no GPU is refused instead of drawing until memory runs out.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces

# Before the fix each of these grew ~175 MB/s until the memory ran out. 1 GB of address
# space is ten times what they need; a sanitizer build reserves terabytes of shadow memory
# and cannot start under the limit: then only the time limit holds.
if (ulimit -v 1000000 && "$VOIDFIT" --version) >/dev/null 2>&1; then
	lim="ulimit -v 1000000 &&"
else
	lim=""
fi
# bounded CMD...: run CMD under the memory and time limits; its output goes to out/err
bounded() {
	set +e
	sh -c "$lim exec timeout 60 \"\$@\"" sh "$@" >out 2>err
	rc=$?
	set -e
	[ "$rc" -eq 0 ] || { cat err >&2; die "'$*' exited $rc (124: still running after 60 s)"; }
}

# ---- a node list whose a100 nodes have no storage bandwidth
awk -F, 'BEGIN { OFS = "," } NR > 1 && $2 == "a100" { $9 = 0 } { print }' \
	"$tr/storage-stress/nodes.csv" >nodes.csv
vf import -o t.db "$tr/storage-stress/jobs.csv" nodes.csv >/dev/null 2>&1 || die "import failed"
bounded "$VOIDFIT" replay t.db --policy fgd,ragp7,first-fit --seed 1
grep -q '^first-fit ' out || die "replay printed no first-fit row"
bounded "$VOIDFIT" size t.db --policy fgd --no-store --threads 2 --slo 'wait_p95<=full'
bounded "$VOIDFIT" compare t.db
grep -q '^fgd ' out || die "compare printed no fgd row"

# ---- the same from a cluster spec, whose grammar allows DIM=0: every node lacks storage,
# so every job that needs it (every job of this trace) is unplaceable
printf 'a 4 A100 8 cpu=128000 mem=1048576 net=12500 sto=0 iocpu=16000\n' >z.spec
bounded "$VOIDFIT" replay t.db --policy fgd --no-store --cluster z.spec --format csv
bounded "$VOIDFIT" size t.db --policy fgd --no-store --cluster z.spec --threads 2 --slo 'wait_p95<=full'
needs=$(awk -F, 'NR > 1 && $11 > 0' "$tr/storage-stress/jobs.csv" | wc -l)
bounded "$VOIDFIT" replay t.db --policy fgd --no-store --cluster z.spec --format json
grep -q "\"unplaceable_jobs\": $needs\b" out || die "want $needs unplaceable jobs"

# ---- nothing can change any more: jobs that started before a fault to 0 that outlasts
# the run stall at rate 0; the run stops and carries them over (it ran on to the fault's end
# at 9e18 s, where its integrals wrapped: a negative allocated share)
vf import -o ok.db "$tr/storage-stress/jobs.csv" "$tr/storage-stress/nodes.csv" >/dev/null 2>&1 ||
	die "import ok.db"
bounded "$VOIDFIT" replay ok.db --policy fgd --no-store --format json \
	--fault 'a100:sto=0@3600+9000000000000000000'
field() { sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p" out | head -1; }
[ "$(field carried_over_jobs)" -gt 0 ] || die "no job carried over past the fault"
awk -v a="$(field alloc_mean)" -v j="$(field jct_mean_s)" \
	'BEGIN { exit !(a > 0 && a <= 1 && j > 0 && j < 1e7) }' ||
	die "alloc_mean $(field alloc_mean), jct_mean_s $(field jct_mean_s): want a share and a time"

# ---- inflation of jobs that ask for no GPU
awk -F, 'BEGIN { OFS = "," } NR > 1 { $7 = 0; $8 = 0; $9 = ""; $13 = "" } { print }' \
	"$tr/storage-stress/jobs.csv" >cpu.csv
vf import -o cpu.db cpu.csv "$tr/storage-stress/nodes.csv" >/dev/null 2>&1 || die "import cpu"
set +e
sh -c "$lim exec timeout 60 \"\$@\"" sh "$VOIDFIT" replay cpu.db --policy fgd --mode inflate \
	>out 2>err
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat err >&2; die "inflation of CPU jobs exited $rc, wanted 1"; }
contains err "inflation: no job of the trace asks for a GPU"
exit 0
