# The corruption campaign, a few trials (scripts/corrupt.sh; by hand: scripts/corrupt.sh -n
# 2000): random damage of a real store (bytes flipped, rows changed, deleted or added,
# schema objects added) and every reader run on it: no crash, no hang, no silent wrong
# answer. SQL changes go to any table.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
command -v timeout >/dev/null 2>&1 || skip "timeout is not installed"
set +e
VOIDFIT=$VOIDFIT sh "$VOIDFIT_TOP/scripts/corrupt.sh" -n 24 -s 7 -t 60 -d camp >out 2>&1
rc=$?
set -e
[ $rc -eq 0 ] || { cat out >&2; die "the campaign flagged trials (exit $rc)"; }
contains out "24 trials: "
contains out "flagged: 0 crash, 0 hang, 0 silent wrong answer"
