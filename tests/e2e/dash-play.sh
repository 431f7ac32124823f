# voidfit dash in a real terminal (tmux): it starts and shows the nodes; space plays and
# pauses (the clock moves, then stands); '.' handles one event; '?' shows the help built
# from the key table; '/' filters the nodes; 'g' goes to a time; Enter shows a node; q exits
# 0 and restores the terminal.
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
dash_store
dash_start 120 40 -- t.db --paused --policy first-fit
wait_for "64 nodes"
contains screen "policy first-fit"
contains screen "paused"
contains screen "A100"
contains screen "T4"
contains screen "placement $/yr"

# play: the clock moves; pause: it stands
c0=$(clock)
keys Space
moved() { [ "$(clock)" != "$c0" ]; }
poll 10 moved
keys Space
wait_for "paused"
c1=$(clock)
[ "$c1" != "$c0" ] || die "the clock did not move while playing ($c0)"
sleep 0.7
c2=$(clock)
[ "$c2" = "$c1" ] || die "the clock moved while paused ($c1 -> $c2)"

# '.': one event more
ev() { screen; sed -n 's/.*events  *\([0-9][0-9]*\)$/\1/p' screen | head -1; }
e0=$(ev)
[ -n "$e0" ] || die "no event count on the screen"
keys .
one_more() { [ "$(ev)" -gt "$e0" ]; }
poll 5 one_more
e1=$(ev)
[ "$e1" -eq $((e0 + 1)) ] || die "'.' went from $e0 to $e1 events"

# help
keys ?
wait_for "other keys close"
contains screen "play or pause"
contains screen "scrub back"
keys Escape
wait_gone "other keys close"

# filter by name, then by model
keys / n0001 Enter
wait_for "1 nodes /n0001"
keys / C-u
keys BSpace BSpace BSpace BSpace BSpace t4 Enter
wait_for "20 nodes /t4"
keys / BSpace BSpace Enter
wait_for "64 nodes"

# go to a time, and to 50 % of the window
keys g 1d Enter
wait_for " t 1d00:00:00 "
keys g 50% Enter
wait_for "(50% of window)"

# a node's detail, and back
keys / n0003 Enter
wait_for "1 nodes /n0003"
keys Enter
wait_for "node n0003"
contains screen "capacity"
contains screen "GPUs used  0:"
keys Escape
wait_gone "node n0003 "

keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
restored
