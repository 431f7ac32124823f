# import-interrupt.sh — Ctrl-C (SIGINT) or SIGTERM in the middle of an import, held on a
# FIFO so that it is in the middle on any machine: the import dies of the signal, a new
# store is not left behind (no file, no journal, no temporary file) and an existing store
# is as it was.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
# A script's background jobs ignore SIGINT: env resets it, as a terminal's Ctrl-C finds it.
env --default-signal=INT true 2>/dev/null || skip "env --default-signal is missing"
mkfifo held.csv
# held SIG STORE: an import into STORE of held.csv, stopped by SIG once it has begun.
held() {
	env --default-signal=INT "$VOIDFIT" import -o "$2" held.csv >a.out 2>a.err &
	a=$!
	exec 3>held.csv
	head -100 "$tr/jobs.csv" >&3
	sleep 0.2
	kill -"$1" $a
	set +e; wait $a; rc=$?; set -e
	exec 3>&-
}

held INT new.db
[ $rc -eq 130 ] || { cat a.err >&2; die "the import exited $rc, wanted death by SIGINT (130)"; }
contains a.err "interrupted"
[ "$(ls -A | tr '\n' ' ')" = "a.err a.out held.csv " ] || die "left behind: $(ls -A)"

vf import -q -o old.db "$tr/nodes.csv"
sha256sum < old.db > sum.before
held TERM old.db
[ $rc -eq 143 ] || { cat a.err >&2; die "the import exited $rc, wanted death by SIGTERM (143)"; }
contains a.err "old.db is unchanged"
sha256sum < old.db > sum.after
cmp sum.before sum.after || die "old.db changed"
[ ! -e old.db-journal ] || die "a journal was left"
expect_rc 0 vf check old.db
