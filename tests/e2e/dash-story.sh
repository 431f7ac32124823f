# voidfit dash --story raid (tmux): the RAID-rebuild story of the seed article as a guided
# what-if: three nodes lose storage bandwidth (each shows its fault), the panel is filtered
# to them, the captions step through the stalled GPUs, the residual shapes and the $
# ticker with live figures (n), Esc ends the story and the what-if stays; an unknown story
# is a usage error.
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
dash_store
expect_rc 2 vf dash t.db --story nope
contains err "--story 'nope': no such story (raid)"

dash_start 160 45 -- t.db --story raid --paused
wait_for "RAID story 1/5"
contains screen "3 nodes /"
contains screen "w1 RAID rebuild on "
[ "$(grep -c '^n[0-9]* .* F1' screen)" = 3 ] ||
	{ cat screen >&2; die "the three nodes do not each show their fault"; }
keys n
wait_for "2/5 the stalled GPUs"
joined() { tr '\n' ' ' <screen | tr -s ' '; } # the caption, wrapped, as one line
joined | grep -q 'GPUs stalled now: main [0-9.]*, w1 [0-9.]* of [0-9]*' || die "no stalled figures"
keys n
wait_for "3/5 the residual shapes"
keys n
wait_for "4/5 the \$ ticker"
joined | grep -q 'stalled \$/yr main \$[0-9.]*[kMB]*, w1 \$' || die "no \$ figures"
keys n
wait_for "5/5 end of the story"
keys Escape
wait_gone "end of the story"
contains screen "events of w1"
contains screen "w1 RAID rebuild on "
keys q
wait_for "not stored"
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
