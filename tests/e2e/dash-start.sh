# voidfit dash: the moves of the command line (--at, --compare, --story) are made in the
# screen with the progress line of a move made there (share done, time so far, an
# estimate), and a key cancels each: --at leaves the view at the first arrival (and
# --story tells no story), --compare leaves no what-if; the key bar says so and the
# screen answers after. A slow policy (ragp7) on 100,000 jobs x 1,500 nodes makes the
# moves long (on 50,000 the move of --story could end before its key once ragp7's bound
# got faster). Deadlines, no fixed sleeps: the machine may be loaded.
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
vf gen --jobs 100000 --nodes 1500 -o g >/dev/null
vf import -o big.db g/*.csv >/dev/null 2>&1 || die "import failed"
shows() { screen; grep -qF -- "$1" screen; }
line='[0-9]*% done in [0-9]* s, .*; any key cancels'

# --at: cancelled, the view at the first arrival
dash_start 120 40 -- big.db --paused --policy ragp7 --at 90%
poll 120 shows "any key cancels"
grep -q "going to [0-9]*d[0-9:]*: $line" screen || die "no progress line: $(tail -1 screen)"
keys Space
poll 10 shows "cancelled, the view stays at the first arrival"
[ "$(clock)" = 0d00:00:00 ] || die "the cancelled --at moved the view: $(clock)"
contains screen "paused"
keys '?'
poll 5 shows "other keys close"
keys q q
poll 10 test -s rc
[ "$(cat rc)" = 0 ] || die "q exited $(cat rc)"
tm kill-server

# --compare: cancelled, no what-if
dash_start 120 40 -- big.db --paused --at 50% --compare ragp7
poll 120 shows "compare ragp7: replaying from the start:"
grep -q "compare ragp7: replaying from the start: $line" screen ||
	die "no progress line: $(tail -1 screen)"
keys x
poll 10 shows "compare ragp7: cancelled, no what-if"
if grep -q "w1 " screen; then cat screen >&2; die "a what-if after the cancel"; fi
[ "$(clock)" != 0d00:00:00 ] || die "--at was not made"
keys q
poll 10 test -s rc
[ "$(cat rc)" = 0 ] || die "q exited $(cat rc) (asked about a what-if?)"
tm kill-server

# --story: its move cancelled, no story
dash_start 120 40 -- big.db --paused --policy ragp7 --story raid
poll 120 shows "any key cancels"
keys Escape
poll 10 shows "and no story"
if grep -q "RAID story" screen; then cat screen >&2; die "a story after the cancel"; fi
keys q
poll 10 test -s rc
[ "$(cat rc)" = 0 ] || die "q exited $(cat rc)"
