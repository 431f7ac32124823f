# The command table: help, version, usage errors, and every command's -h.
. "$VOIDFIT_TOP/tests/lib.sh"

expect_rc 0 vf -h
contains out "usage: voidfit"
contains out "voidfit help COMMAND"
expect_rc 0 vf help
contains out "usage: voidfit"
expect_rc 0 vf --version
grep -qE '^voidfit [0-9]+\.[0-9]+\.[0-9]+$' out || die "bad --version: $(cat out)"
expect_rc 2 vf
contains err "usage: voidfit"

# A usage error of voidfit itself: one line saying what is wrong, then where to look.
usage_error() { # WANT: err is "voidfit: WANT" and "see 'voidfit -h'", nothing on stdout
	[ ! -s out ] || die "a usage error printed on stdout: $(cat out)"
	[ "$(wc -l <err)" -eq 2 ] || { cat err >&2; die "not two lines"; }
	[ "$(sed -n 1p err)" = "voidfit: $1" ] || die "first line: $(sed -n 1p err)"
	[ "$(sed -n 2p err)" = "see 'voidfit -h'" ] || die "second line: $(sed -n 2p err)"
}
expect_rc 2 vf no-such-command
usage_error "'no-such-command': not a command"
expect_rc 2 vf -x
usage_error "'-x': unknown option"
expect_rc 2 vf --nope import
usage_error "'--nope': unknown option"
expect_rc 2 vf help no-such-command
usage_error "'no-such-command': not a command"
expect_rc 2 vf help replay extra
usage_error "'extra': unexpected operand"

# Every command listed by -h answers -h with its usage line, exit 0, on stdout; 'voidfit
# help CMD' prints the same. A usage error is one line naming the option and what is wrong
# with it, then "see 'voidfit CMD -h'": not the whole usage.
vf -h | sed -n 's/^  \([a-z]*\) .*/\1/p' > cmds
[ "$(wc -l < cmds)" -ge 8 ] || die "too few commands listed"
while read -r c; do
	expect_rc 0 vf "$c" -h
	head -1 out | grep -q "^usage: voidfit $c" || die "$c -h: no usage line"
	mv out help-out
	expect_rc 0 vf help "$c"
	cmp -s out help-out || die "'voidfit help $c' differs from 'voidfit $c -h'"
	for bad in "--no-such-option:'--no-such-option': unknown option" \
		"-Z:'-Z': unknown option" "--help=1:'--help=1': unknown option"; do
		expect_rc 2 vf "$c" "${bad%%:*}"
		[ "$(wc -l <err)" -eq 2 ] || { cat err >&2; die "$c ${bad%%:*}: not two lines"; }
		[ "$(sed -n 1p err)" = "voidfit $c: ${bad#*:}" ] ||
			die "$c ${bad%%:*}: first line: $(sed -n 1p err)"
		[ "$(sed -n 2p err)" = "see 'voidfit $c -h'" ] ||
			die "$c ${bad%%:*}: second line: $(sed -n 2p err)"
	done
done < cmds

# An option that wants an argument and has none, and a flag given one.
expect_rc 2 vf import -o
contains err "voidfit import: '-o': needs an argument"
expect_rc 2 vf replay x.db --policy
contains err "voidfit replay: '--policy': needs an argument"
expect_rc 2 vf check --quiet=yes x.db
contains err "voidfit check: '--quiet=yes': takes no argument"

# The short options that meant two things: -q is --quiet only (replay's --queue is long
# only), -s is --seed (not import's --strict), -j is --jobs (not info's --json).
expect_rc 2 vf replay x.db --policy scalar -q fifo
contains err "'-q': unknown option"
expect_rc 2 vf import -s x.csv
contains err "'-s': unknown option"
expect_rc 2 vf import -n name x.csv
contains err "'-n': unknown option"
expect_rc 2 vf info -j x.db
contains err "'-j': unknown option"

# --policy and --policies are one option wherever a command takes policies: replay, size
# and verdict spell it --policy, sweep and compare --policies, and each takes the other
tr=$VOIDFIT_TOP/traces/storage-stress
vf import -o p.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"
expect_rc 0 vf replay p.db --policies fgd,scalar --no-store -f csv
[ "$(cut -d, -f1 out | sed 1d | sort | tr '\n' ' ')" = "fgd scalar " ] ||
	die "replay --policies: not the two policies: $(cat out)"
expect_rc 0 vf sweep p.db --policy fgd,scalar --seeds 1-2 -o sw
[ "$(grep -c -- '--policy fgd,scalar --seed' sw/tasks)" -eq 2 ] ||
	die "sweep --policy: not in its tasks: $(cat sw/tasks)"
expect_rc 0 vf size p.db --policies fgd --slo 'wait_p95<=6h' --no-store
grep -q '^fgd ' out || die "size --policies: $(cat out)"
expect_rc 0 vf verdict p.db --policies fgd --no-headroom --threads 1
contains out "scalar -> fgd"
