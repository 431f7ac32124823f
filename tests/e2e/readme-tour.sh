# README.md's tour runs as written: its sh block, in a directory laid out as the top of a
# checkout (build/, traces/, scripts/), after 'make' (the block's first command, which the
# test run has done already). Then a few of its results are checked.
. "$VOIDFIT_TOP/tests/lib.sh"
need_traces
readme=$VOIDFIT_TOP/README.md
awk '/^## A tour/ { tour = 1 } tour && /^```sh$/ { on = 1; next } on && /^```$/ { exit }
	on { print }' "$readme" >tour.sh
[ -s tour.sh ] || die "no sh block under '## A tour' in README.md"
[ "$(sed -n 1p tour.sh | sed 's/ *#.*//')" = make ] || die "the tour does not start with 'make'"
sed -i 1d tour.sh
mkdir top
ln -s "$(dirname "$VOIDFIT")" top/build
ln -s "$VOIDFIT_TOP/traces" top/traces
ln -s "$VOIDFIT_TOP/scripts" top/scripts
# The tour finds the voidfit it built through PATH, not a voidfit installed elsewhere.
(cd top && PATH=/usr/bin:/bin sh -eu ../tour.sh) >log 2>&1 || {
	tail -30 log >&2
	die "the tour failed (log above)"
}
cd top
contains ../log "8152 jobs, 1523 nodes"
v23=$VOIDFIT_TRACES/clusterdata/cluster-trace-gpu-v2023/csv
cmp -s originals/openb_pod_list_default.csv "$v23/openb_pod_list_default.csv" ||
	die "export --raw did not give the pod list back byte for byte"
[ "$(wc -l <jobs.csv)" -eq 8153 ] || die "jobs.csv: $(wc -l <jobs.csv) lines, want 8152 jobs + header"
grep -q '^ragp7 ' ../log || die "no ragp7 row in the tour's output"
# the verdict's resamples as a sweep, read back
contains ../log "the 5 resamples read from the tasks of vsweep/"
contains ../log "the trace's answers read from vsweep/trace.db: "
contains ../log "(--sample-nodes)"
# the sweep's compare: the sweep's 4 runs at target 1.0, not the newest at 0.9 or the
# k8s-scored ones at 1.0
contains ../log "(inflate to 1): 4 runs; the newest of"
[ -f big.db ] && [ -f stress.db ] || die "the tour did not make big.db and stress.db"
# the LLM what-if: its runs show the work lost to failures and the checkpoints' pauses
grep -q '^policy .* failures .* down .* checkpoint ' ../log || die "the LLM what-if shows no failure columns"
n=$(awk -F, 'NR > 1 { $1 = $2 = $3 = ""; print }' tpl/jobs.csv | sort -u | wc -l)
[ "$n" -le 500 ] || die "gen --templates 500 wrote $n distinct requests"
echo "the README tour ran: $(grep -c . ../tour.sh) lines"
