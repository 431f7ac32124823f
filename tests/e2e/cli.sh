# The command table: help, version, usage errors, and every command's -h.
. "$VOIDFIT_TOP/tests/lib.sh"

expect_rc 0 vf -h
contains out "usage: voidfit"
expect_rc 0 vf --version
grep -qE '^voidfit [0-9]+\.[0-9]+\.[0-9]+$' out || die "bad --version: $(cat out)"
expect_rc 2 vf
contains err "usage: voidfit"
expect_rc 2 vf no-such-command
contains err "'no-such-command' is not a command"

# Every command listed by -h answers -h with its usage line, exit 0, on stdout.
vf -h | sed -n 's/^  \([a-z]*\) .*/\1/p' > cmds
[ "$(wc -l < cmds)" -ge 8 ] || die "too few commands listed"
while read -r c; do
	expect_rc 0 vf "$c" -h
	head -1 out | grep -q "^usage: voidfit $c" || die "$c -h: no usage line"
	expect_rc 2 vf "$c" --no-such-option
	contains err "usage: voidfit $c"
done < cmds
