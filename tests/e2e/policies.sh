# voidfit policies: JSON output, help, and usage errors.
. "$VOIDFIT_TOP/tests/lib.sh"

expect_rc 0 vf policies --json
[ "$(grep -c '"name":' out)" -eq 12 ] || die "want 12 policies in the JSON"
contains out '"name": "ragp7"'
contains out '"iocpu"'
contains out '"by_state": false'
contains out '"by_state": true'
[ "$(head -c 1 out)" = "[" ] || die "the JSON is not an array"
[ "$(tail -n 1 out)" = "]" ] || die "the JSON array is not closed on the last line"

expect_rc 0 vf policies -h
contains out 'usage: voidfit policies [--json]'
contains out '--json'

expect_rc 2 vf policies extra
contains err "'extra': unexpected operand"
contains err "see 'voidfit policies -h'"

expect_rc 2 vf policies --nope
contains err "'--nope': unknown option"
