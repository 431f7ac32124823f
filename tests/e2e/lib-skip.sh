# lib-skip.sh — a test that cannot run says "skipped" (exit 77) on a user's machine, and fails
# under CI (CI=true), so that a green CI means every test ran; poll waits for a condition
# and fails at its deadline.
. "$VOIDFIT_TOP/tests/lib.sh"
set +e
(CI=false; . "$VOIDFIT_TOP/tests/lib.sh"; skip "no such tool") >out 2>err
rc=$?
set -e
[ $rc -eq 77 ] || die "a skip outside CI exited $rc, wanted 77"
contains out "skipped: no such tool"
set +e
(CI=true; . "$VOIDFIT_TOP/tests/lib.sh"; skip "no such tool") >out 2>err
rc=$?
set -e
[ $rc -eq 1 ] || die "a skip under CI=true exited $rc, wanted 1"
contains err "cannot run under CI: no such tool"
# poll: succeeds once the condition holds, fails at the deadline otherwise
(sleep 0.3; : > ready) &
poll 5 test -e ready
set +e
(poll 1 false) >out 2>err
rc=$?
set -e
[ $rc -ne 0 ] || die "poll of a condition that never holds succeeded"
contains err "waited 1 s for: false"
