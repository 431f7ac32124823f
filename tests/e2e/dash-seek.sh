# voidfit dash: a slow seek (ragp7 on 50,000 jobs x 1,500 nodes) shows a progress line
# with an estimate, is drawn again when the terminal is resized during it, and a key
# cancels it: the view stays where it was, the key is not run (Space does not start
# playback), and the screen answers right after. Deadlines, no fixed sleeps: the machine
# may be loaded.
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
vf gen --jobs 50000 --nodes 1500 -o g >/dev/null
vf import -o big.db g/*.csv >/dev/null 2>&1 || die "import failed"
shows() { screen; grep -qF -- "$1" screen; }
bottom_shows() { screen; tail -1 screen | grep -qF -- "$1"; }

dash_start 120 40 -- big.db --paused --policy ragp7
poll 120 shows "1500 nodes"
c0=$(clock)
keys g 90% Enter
poll 60 shows "any key cancels"
grep -q 'going to [0-9]*d[0-9:]*: [0-9]*% done in [0-9]* s, .*; any key cancels' screen ||
	die "no progress line: $(tail -1 screen)"
# resized during the seek: the line comes back at the new bottom row
tm resize-window -x 80 -y 24
poll 30 bottom_shows "any key cancels"
[ "$(wc -l <screen)" -le 24 ] || die "not redrawn at 80x24"
# Space cancels, and is dropped: no playback after
keys Space
poll 10 shows "cancelled, nothing moved"
[ "$(clock)" = "$c0" ] || die "the cancelled seek moved the view: $c0 -> $(clock)"
contains screen "paused"
# the screen answers at once: the help opens
keys '?'
poll 5 shows "other keys close"
keys q
[ "$(clock)" = "$c0" ] || die "the view moved after the cancel: $c0 -> $(clock)"
contains screen "paused"
keys q
poll 10 test -s rc
[ "$(cat rc)" = 0 ] || die "q exited $(cat rc)"
