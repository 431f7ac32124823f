# voidfit dash prompts (tmux): a pre-filled suggestion is replaced by the first key typed
# (the io-pressure prompt showing 2 takes '3' as 3, not 23; the fault prompt's 'sto=0.5 6h'
# gives way to what is typed), Enter takes it as it is, Ctrl-U clears, Esc cancels.
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
dash_store
dash_start 160 45 -- t.db --paused --policy first-fit --at 30%
wait_for "64 nodes"

# i shows 2; typing 3 replaces it
keys i
wait_for "io-pressure: 2"
keys 3
wait_for "io-pressure: 3"
grep -q '^io-pressure: 3 *$' screen || die "typed text not alone: $(tail -1 screen)"
keys Enter
wait_for "vs io-pressure 3"
keys x
wait_gone "vs io-pressure"

# f: the suggestion replaced by typing
keys / n0009 Enter
wait_for "1 nodes /n0009"
keys f
wait_for "sto=0.5 6h"
keys "net=0.5 2h" Enter
wait_for "vs fault n0009:net=0.5@"
if grep -q "sto=0.5 6hnet" screen; then die "typed text appended to the fault suggestion"; fi
keys x
wait_gone "vs fault"

# /: the current filter is the suggestion; Ctrl-U clears it, then typing edits the line
keys /
wait_for "filter: n0009"
keys C-u
wait_gone "filter: n0009"
keys n001 BSpace 2 Enter
wait_for "/n002"
contains screen "10 nodes /n002"

# Esc cancels: g 90% then Esc moves nothing
c0=$(clock)
keys g 90%
wait_for "goto (3d12h, 90m, 50%): 90%"
keys Escape
wait_gone "goto (3d12h"
[ "$(clock)" = "$c0" ] || die "Esc in the goto prompt moved the clock: $c0 -> $(clock)"
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
