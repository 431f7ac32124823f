# voidfit verdict --sweep: the trace's answers here, its resamples as the tasks of a sweep run
# by GNU parallel (DIR/parallel.sh), then the same command reads their answers from DIR and
# prints the same table, byte for byte, as the verdict that searched every resample itself,
# replaying none of the trace's runs: the verdict that wrote the sweep kept them in
# DIR/trace.db. Failures: a task not done yet (the verdict waits for it, and says how many),
# a task store in another task's place (not read), an answer changed outside voidfit
# (refused), a trace.db changed outside voidfit or not voidfit's (refused), one of another
# SLO (not read: the trace is searched again), a merge of a verdict's task store (refused: nothing to merge), the options' misuse, hints that do
# not match the policies (no task store left).
. "$VOIDFIT_TOP/tests/lib.sh"
command -v parallel >/dev/null 2>&1 || skip "GNU parallel is not installed (scripts/deps.sh)"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o s.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"
cp s.db w.db
set -- -p packing,fgd --resamples 4 -f json

# the reference: every resample searched here
expect_rc 0 vf verdict s.db "$@" --threads 2
cp out ref.json
contains err "probe replays stopped early"
expect_rc 0 vf verdict s.db -p packing,fgd --resamples 4 --threads 2
cp out ref.txt

# the sweep: nothing on stdout, 4 tasks of 3 answers (the baseline and the two candidates)
expect_rc 0 vf verdict w.db "$@" --sweep d
[ ! -s out ] || die "a verdict that wrote its sweep printed: $(cat out)"
contains err "d: wrote 4 tasks, one a resample (4 of them not done)"
contains err "then this command again: it reads their answers from d/runs"
contains err "probe runs kept in d/trace.db, for this command again"
[ -f d/trace.db ] || die "the trace's runs were not kept"
[ "$(wc -l <d/tasks)" -eq 4 ] || die "want 4 task lines: $(cat d/tasks)"
contains d/tasks "--into runs/3.db --force --threads 1 --resample 3 --hints scalar:"
contains d/tasks " --policy packing,fgd --resamples 4"
if grep -qE -- "--format|--sweep|--threads 2" d/tasks; then
	die "a task line keeps --format, --sweep or --threads: $(cat d/tasks)"
fi
contains d/sweep.id "runs-per-task 3"
contains d/slurm.sh "'voidfit sweep status' is submitted"
if grep -q "voidfit merge" d/slurm.sh; then die "a verdict's sweep merges: $(grep -n merge d/slurm.sh)"; fi
# another verdict in the same directory: refused
expect_rc 1 vf verdict w.db -p packing,fgd --resamples 3 --sweep d
contains err "holds a sweep already"

# two tasks done: the verdict waits for the other two, and prints nothing
sed -n '1p;3p' d/tasks >two
(cd d && PATH=$(dirname "$VOIDFIT"):$PATH sh ../two) >/dev/null 2>&1 || die "tasks 1 and 3 failed"
expect_rc 0 vf verdict w.db "$@" --sweep d
[ ! -s out ] || die "a verdict with tasks not done printed: $(cat out)"
contains err "holds this sweep already, its scripts written anew: 4 tasks, one a resample (2 of them not done)"
contains err "the trace's answers read from d/trace.db:"
grep -q "probe runs not replayed$" err || die "the trace was replayed again: $(cat err)"
if grep -q "kept in" err; then die "the trace's runs were kept again: $(cat err)"; fi

# all of them, through GNU parallel: status, check, and the verdict read back
d/parallel.sh -j 2 >/dev/null 2>&1 || die "parallel.sh failed: $(tail -n 3 d/logs/*.log)"
expect_rc 0 vf sweep status d
contains out "4 tasks: 4 done, 0 failed, 0 invalid"
expect_rc 0 vf check d/runs/2.db
contains out "resample answers: 3, checksums match"
contains out "a verdict's task: 3 answers"
expect_rc 0 vf verdict w.db "$@" --sweep d
contains err "the 4 resamples read from the tasks of d"
cmp -s out ref.json || die "the sweep's verdict differs: $(diff ref.json out)"
# the trace's runs read, none replayed: every count and warning as the search's own
contains err "the trace's answers read from d/trace.db:"
grep -q "probe runs not replayed$" err || die "the trace was replayed: $(cat err)"
if grep -q "kept in" err; then die "the trace's runs were kept again: $(cat err)"; fi
grep -v "the trace's answers read from" err >err.memo
cp out out.memo
# the same without d/trace.db: the trace searched again, its runs kept anew; the same
# verdict, counts and warnings
mv d/trace.db gone.db
expect_rc 0 vf verdict w.db "$@" --sweep d
contains err "kept in d/trace.db"
cmp -s out out.memo || die "the verdict differs with the trace's runs read: $(diff out out.memo)"
grep -v "kept in" err >err.search
cmp -s err.search err.memo || die "stderr differs with the trace's runs read: $(diff err.search err.memo)"
expect_rc 0 vf verdict w.db -p packing,fgd --resamples 4 --sweep d
cmp -s out ref.txt || die "the sweep's text verdict differs: $(diff ref.txt out)"
# the trace searched on one thread, read on six: the runs the wider rounds would make ahead
# of need are not made (trace.db holds every run the searches need), and the verdict is
# the same
mv d/trace.db gone1.db
expect_rc 0 vf verdict w.db "$@" --sweep d --threads 1
contains err "kept in d/trace.db"
expect_rc 0 vf verdict w.db "$@" --sweep d --threads 6
cmp -s out ref.json || die "the verdict read on 6 threads differs: $(diff ref.json out)"
grep -q "probe runs not replayed$" err || die "runs were replayed on 6 threads: $(cat err)"
grep -q "probe runs not replayed$" err || die "the trace was replayed: $(cat err)"

# trace.db changed outside voidfit, or not a task store: refused, not used; check
# verifies its runs as it does a task's answers
cp d/trace.db keepm.db
expect_rc 0 vf check d/trace.db
contains out "trace probes: $(sqlite3 d/trace.db 'SELECT count(*) FROM trace_probes'), checksums match"
sqlite3 d/trace.db "UPDATE trace_probe_figures SET value = 0 WHERE id = 7"
expect_rc 1 vf verdict w.db "$@" --sweep d
contains err "d/trace.db: trace probe figure 7 does not match its checksum"
contains err "remove it, and the trace is searched again"
expect_rc 1 vf check d/trace.db
contains out "trace probe figure 7 does not match its checksum"
cp keepm.db d/trace.db
sqlite3 d/trace.db "DELETE FROM trace_probe_figures WHERE id = (SELECT max(id) FROM trace_probe_figures)"
expect_rc 1 vf verdict w.db "$@" --sweep d
contains err "figures"
echo "not a store" >d/trace.db
expect_rc 1 vf verdict w.db "$@" --sweep d
contains err "d/trace.db"
contains err "refused: remove it"
cp keepm.db d/trace.db

# the trace's runs of another SLO are not read: the trace is searched again, and its own
# runs kept in their place
expect_rc 0 vf verdict w.db -p packing,fgd --resamples 2 --slo wait_p95\<=2h --sweep d3
contains err "kept in d3/trace.db"
cp d/trace.db d3/trace.db
expect_rc 0 vf verdict w.db -p packing,fgd --resamples 2 --slo wait_p95\<=2h --sweep d3
contains err "d3/trace.db: the trace's runs of another verdict"
contains err "kept in d3/trace.db"
if grep -q "the trace's answers read from" err; then die "another SLO's runs were read: $(cat err)"; fi
expect_rc 0 vf verdict w.db -p packing,fgd --resamples 2 --slo wait_p95\<=2h --sweep d3
contains err "the trace's answers read from d3/trace.db:"

# a task store in another task's place is not read: that resample is not done
cp d/runs/2.db keep2.db
cp d/runs/1.db d/runs/2.db
expect_rc 1 vf sweep status d
contains out "not the runs of its task"
expect_rc 0 vf verdict w.db "$@" --sweep d
contains err "(1 of them not done)"
cp keep2.db d/runs/2.db

# an answer changed outside voidfit is refused, not used
cp d/runs/3.db keep3.db
sqlite3 d/runs/3.db "UPDATE resample_answers SET usd_year = 1e9 WHERE policy = 'fgd'"
expect_rc 1 vf verdict w.db "$@" --sweep d
contains err "does not match its checksum: the task store was damaged or changed outside voidfit"
expect_rc 1 vf check d/runs/3.db
contains out "does not match its checksum"
cp keep3.db d/runs/3.db

# a verdict's task store holds nothing to merge
expect_rc 1 vf merge w.db d/runs/1.db
contains err "a task of a verdict's sweep: its answers are read from the sweep's directory"

# misuse
expect_rc 2 vf verdict s.db -p fgd --sweep d2
contains err "--sweep: with --resamples N only"
expect_rc 2 vf verdict s.db -p fgd --resamples 2 --resample 1
contains err "--resample: a sweep's task, with --hints and --into"
expect_rc 2 vf verdict s.db -p fgd --resamples 2 --resample 3 --hints x --into t.db
contains err "--resample 3: more than --resamples 2"
expect_rc 2 vf verdict s.db -p fgd --resamples 2 --sweep d2 --into t.db
contains err "--sweep: not with --resample, --hints or --into"
expect_rc 2 vf verdict s.db -p fgd --hints x
contains err "--hints: with --resample only"
# hints of other policies: refused before any search, and no task store left
expect_rc 1 vf verdict s.db -p fgd --resamples 2 --resample 1 --hints fgd:3 --into t.db
contains err "--hints 'fgd:3': policy 1 is not scalar"
[ ! -e t.db ] && [ ! -e t.db.part ] || die "a refused task left its store"
expect_rc 1 vf verdict s.db -p fgd --resamples 2 --resample 1 --hints scalar:3 --into t.db
contains err "1 policies, not 2"
[ ! -e t.db ] && [ ! -e t.db.part ] || die "a refused task left its store"
# a hint that is not a step (the growth step hints once carried is not one)
expect_rc 1 vf verdict s.db -p fgd --resamples 2 --resample 1 --hints scalar:3:1,fgd:2 --into t.db
contains err "--hints 'scalar:3:1,fgd:2': scalar: not a step"
expect_rc 1 vf verdict s.db -p fgd --resamples 2 --resample 1 --hints scalar:-3,fgd:2 --into t.db
contains err "scalar: not a step"
[ ! -e t.db ] && [ ! -e t.db.part ] || die "a refused task left its store"
echo ok
