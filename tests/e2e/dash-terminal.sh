# voidfit dash and its terminal (tmux): resizes 200x50 -> 80x24 -> 60x20 redraw, and under
# 80x24 it says so instead of drawing; NO_COLOR and --mono draw without colour escapes (and
# without them, there are some); --ascii draws ASCII only; SIGTERM and SIGHUP restore the
# terminal, and a crash (SIGSEGV) gives it back before dying; a pipe is refused, and usage errors exit 2.
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
dash_store

# resizes
dash_start 200 50 -- t.db --paused
wait_for "64 nodes"
tm resize-window -x 80 -y 24
wait_for "placement $/yr"
contains screen "64 nodes"
tm resize-window -x 60 -y 20
wait_for "terminal too small: 60x20"
if grep -q "placement $/yr" screen; then die "drew the panels at 60x20"; fi
tm resize-window -x 100 -y 30
wait_for "placement $/yr"
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
restored
tm kill-server

# colour: escapes with it, none with NO_COLOR or --mono (reverse video is not colour)
# colour_esc: SGR escapes of screen.e that set a colour (30-38, 40-48, 90-97, 100-107; 39
# and 49, back to the default, set none)
colour_esc() {
	grep -o "$(printf '\033')\[[0-9;]*m" screen.e | tr -d '\033[m' | tr ';' '\n' |
		grep -cE '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$' || :
}
dash_start 120 40 -- t.db --paused
wait_for "64 nodes"
screen_e
[ "$(colour_esc)" -gt 0 ] || die "no colour escapes by default (the check is blind)"
tm kill-server
for how in "NO_COLOR=1 --" "-- --mono"; do
	dash_start 120 40 $how t.db --paused
	wait_for "64 nodes"
	screen_e
	[ "$(colour_esc)" -eq 0 ] || die "colour escapes with $how: $(colour_esc)"
	tm kill-server
done

# --ascii: nothing past ASCII on the screen
dash_start 120 40 -- t.db --paused --ascii
wait_for "64 nodes"
if LC_ALL=C grep -q '[^ -~]' screen; then die "--ascii drew non-ASCII"; fi
contains screen "|| paused"
tm kill-server

# signals: the terminal comes back, the status says which
for sig in TERM HUP INT SEGV; do
	dash_start 120 40 -- t.db
	wait_for "64 nodes"
	pid=$(ps -o pid= --ppid "$(tm display -p '#{pane_pid}')" | head -1)
	pid=$(ps -o pid= --ppid $pid | head -1) # env execs voidfit; sh is the pane
	[ -n "$pid" ] || pid=$(ps -o pid= --ppid "$(tm display -p '#{pane_pid}')" | head -1)
	kill -$sig $pid
	st=$(wait_rc)
	case $sig in TERM) want=143 ;; HUP) want=129 ;; INT) want=130 ;; SEGV) want=139 ;; esac
	[ "$st" = $want ] || die "SIG$sig: exited $st, wanted $want"
	restored
	tm kill-server
done

# not a terminal; usage errors
expect_rc 1 vf dash t.db </dev/null
contains err "needs a terminal"
expect_rc 2 vf dash
contains err "no STORE given"
expect_rc 2 vf dash t.db --policy nope
contains err "--policy 'nope'"
expect_rc 2 vf dash t.db --speed 0
contains err "--speed"
expect_rc 2 vf dash t.db --mode inflate
contains err "timed runs only"
