# A merge into a store on a full disk says so, and that the store is unchanged (not that
# every task store was refused), and the store is byte for byte what it was; the same when
# the disk fills at the commit. The disk is a small tmpfs mounted in a private mount
# namespace (unshare -rm): skipped where that is not allowed. Then import's spool of the
# standard input goes to TMPDIR.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces

# the spool of the standard input is made in TMPDIR: one that does not exist fails, named
expect_rc 1 env TMPDIR="$PWD/no-such-dir" "$VOIDFIT" import -o sp.db - <"$tr/balanced/jobs.csv"
contains err "stdin: cannot make a temporary file in $PWD/no-such-dir (TMPDIR)"
[ ! -e sp.db ] || die "a failed import made a store"
mkdir spool
expect_rc 0 env TMPDIR="$PWD/spool" "$VOIDFIT" import -o sp.db - <"$tr/balanced/jobs.csv"
[ -z "$(ls -A spool)" ] || die "the spool was left in TMPDIR: $(ls -A spool)"

command -v unshare >/dev/null 2>&1 || skip "no unshare"
mkdir mnt
unshare -rm sh -c 'mount -t tmpfs -o size=1m tmpfs mnt' >/dev/null 2>&1 ||
	skip "cannot mount a tmpfs in a private mount namespace"

# full while the runs are copied: task stores bigger than SQLite's page cache
vf gen -j 30000 --nodes 200 -o g >/dev/null || die "gen failed"
vf import -o s.db g/jobs.csv g/nodes.csv >/dev/null 2>&1 || die "import failed"
vf replay s.db --into t1.db -p first-fit,best-fit --seeds 1-2 --threads 2 >/dev/null 2>&1 ||
	die "replay --into failed"
cp t1.db t2.db
cp t1.db t3.db
# in the namespace: a tmpfs 100 KiB bigger than the store; merge; compare; say how it went
full() { # SIZE_KIB TASKSTORE...
	kib=$1
	shift
	unshare -rm sh -c '
		mount -t tmpfs -o size="$1"k tmpfs mnt || exit 99
		cp s.db mnt/s.db || exit 99
		shift
		"$VOIDFIT" merge mnt/s.db "$@" >out 2>err
		echo $? >rc
		cmp -s s.db mnt/s.db && echo same >same
		ls -A mnt >left
		exit 0' sh "$kib" "$@" || die "the tmpfs could not be set up"
}
rm -f same
full $(($(wc -c <s.db) / 1024 + 100)) t1.db t2.db t3.db
[ "$(cat rc)" -eq 1 ] || { cat err >&2; die "merge on a full disk exited $(cat rc)"; }
contains err "mnt/s.db: "
contains err "the disk is full"
contains err "merged nothing: mnt/s.db is unchanged"
! grep -q "refused" err || { cat err >&2; die "a full disk was blamed on the task stores"; }
[ -f same ] || die "the store on the full disk changed"
[ "$(cat left)" = s.db ] || die "left beside the store: $(cat left)"

# full at the commit: small task stores
vf import -o s.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
rm -f u*.db
for i in 1 2 3; do
	vf replay s.db --into u$i.db -p first-fit,fgd,best-fit -s $i >/dev/null 2>&1 ||
		die "replay --into failed"
done
rm -f same
full $(($(wc -c <s.db) / 1024 + 100)) u1.db u2.db u3.db
[ "$(cat rc)" -eq 1 ] || { cat err >&2; die "merge on a full disk exited $(cat rc)"; }
contains err "the disk is full"
contains err "merged nothing: mnt/s.db is unchanged"
[ -f same ] || die "the store on the full disk changed"
[ "$(cat left)" = s.db ] || die "left beside the store: $(cat left)"

# the same merge with room: it works (the test above failed for the disk, not the stores)
expect_rc 0 vf merge s.db u1.db u2.db u3.db
contains err "merged 9 runs from 3 task stores"
