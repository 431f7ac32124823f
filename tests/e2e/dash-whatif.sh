# voidfit dash what-ifs in a real terminal (tmux): 'p' forks under another policy and shows
# two columns with their differences; q asks before losing a what-if not stored; 'f' puts a fault on the selected node, which shows on
# it and in the log; 'x' drops the what-if; 'w' stores one as a run whose scenario names the
# run it came from, the time and the change, which report and compare then leave out unless
# named; --compare starts two policies side by side.
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
dash_store
dash_start 160 45 -- t.db --paused --policy first-fit --at 30%
wait_for "64 nodes"
wait_for "(30% of window)"

# p: the picker lists the policies; Down to the second, Enter forks under it
keys p
wait_for "fork under policy"
contains screen "ragp7"
keys Down Down Enter
wait_for "vs policy best-fit"
contains screen "w1 policy best-fit"
grep -q "metrics  *main  *what-if  *diff" screen || die "no lane columns"
c0=$(clock)
keys Space
moved() { [ "$(clock)" != "$c0" ]; }
poll 10 moved
keys Space
wait_for "paused"
grep -q 'frag now .*%  *[+-]\{0,1\}[0-9]*\.[0-9]%$' screen ||
	die "no fragmentation difference: $(grep 'frag now' screen)"

# x drops it
keys x
wait_gone "vs policy"

# f on node n0009 (storage-bound A100 node): the fault shows on the node and in the log
keys / n0009 Enter
wait_for "1 nodes /n0009"
keys f
wait_for "fault DIM=FRACTION DURATION: sto=0.5 6h"
keys Enter
wait_for "vs fault n0009:sto=0.5@"
grep -q 'n0009 .* F1' screen || { cat screen >&2; die "the fault does not show on n0009"; }
contains screen "fault begins n0009:sto=0.5@"
keys Enter
wait_for "(faulted)"
keys Escape
# at 80 columns the header drops the change, not the clock nor the play state
tm resize-window -x 80 -y 45
wait_gone "vs fault"
screen
head -1 screen | grep -q ' t [0-9][0-9:d]* ([0-9]*%)  [0-9.]* [a-z]*/s  .*paused *$' ||
	die "the header lost its clock or state at 80 columns: $(head -1 screen)"
tm resize-window -x 160 -y 45
wait_for "vs fault n0009:sto=0.5@"

# w: stored, with its provenance
keys w
wait_for "stored run 2 (fault n0009:sto=0.5@"
contains screen "from run 1"
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
sqlite3 t.db "SELECT s.parent_run, s.fork_time > 0, s.change FROM runs r JOIN scenarios s
	ON s.id = r.scenario_id WHERE r.id = 2" >sql
grep -q '^1|1|fault n0009:sto=0.5@[0-9]*+21600$' sql || { cat sql >&2; die "no provenance"; }
[ "$(sqlite3 t.db "SELECT count(*) FROM runs")" = 2 ] || die "want 2 runs"
# the what-if is the newest scenario, but report and compare describe the replayed one and
# say the what-if was left out; named, it is reported
expect_rc 0 vf report t.db --format text
grep -q '^Cost report: trace [^ ]*, scenario 1 ' out || { head -3 out >&2; die "report chose the what-if"; }
contains out "1 what-if saved from the dashboard left out"
expect_rc 0 vf compare t.db
contains err "scenario 1 of trace"
contains err "1 what-if saved from the dashboard left out"
expect_rc 0 vf report t.db --scenario 2 --format text
contains out "Scenario 2: named by --scenario."

# --compare: two policies from the start
tm kill-server 2>/dev/null || :
dash_start 120 40 -- t.db --paused --policy first-fit --compare ragp7
wait_for "vs policy ragp7"
contains screen "w1 policy ragp7"
# q asks first: the what-if was not stored; any other key stays, q again quits
keys q
wait_for "1 what-if not stored: q quits and loses it"
keys Escape
wait_gone "not stored"
contains screen "w1 policy ragp7"
keys q
wait_for "not stored"
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
