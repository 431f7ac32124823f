# tests/lib.sh — helpers for end-to-end tests. Source it: . "$VOIDFIT_TOP/tests/lib.sh"
# Each test runs in a fresh empty directory; exit 0 = pass, 77 = skipped, else failed.
set -eu
vf() { "$VOIDFIT" "$@"; }
die() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
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
