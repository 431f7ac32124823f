# tests/lib.sh — helpers for end-to-end tests. Source it: . "$VOIDFIT_TOP/tests/lib.sh"
# Each test runs in a fresh empty directory; exit 0 = pass, 77 = skipped, else failed.
set -eu
vf() { "$VOIDFIT" "$@"; }
die() { echo "FAIL: $*" >&2; exit 1; }
# skip WHY: exit 77 (skipped); under CI (CI=true) a test that cannot run is a failure, so a
# green CI means every test ran.
skip() {
	if [ "${CI:-}" = true ]; then echo "FAIL: cannot run under CI: $*" >&2; exit 1; fi
	echo "skipped: $*"; exit 77
}
# poll DEADLINE_S CMD...: run CMD every 0.05 s until it succeeds; fail after DEADLINE_S s.
poll() {
	_dl=$1; shift
	_n=$((_dl * 20)) _i=0
	until "$@"; do
		_i=$((_i + 1))
		[ $_i -lt $_n ] || die "waited ${_dl} s for: $*"
		sleep 0.05
	done
}
# need_traces: skip the test where the real samples are absent.
need_traces() { [ -n "${VOIDFIT_TRACES:-}" ] || skip "../shared/traces is absent"; }
# expect_rc N CMD...: run CMD, fail unless it exits N; its stdout/stderr go to out/err.
expect_rc() {
	want=$1; shift
	set +e; "$@" >out 2>err; got=$?; set -e
	[ "$got" -eq "$want" ] || { cat out err >&2; die "'$*' exited $got, wanted $want"; }
}
# contains FILE TEXT: fail unless FILE contains the fixed string TEXT.
contains() { grep -qF -- "$2" "$1" || { cat "$1" >&2; die "$1 lacks '$2'"; }; }
