# import-race.sh — two imports race to make the same new store: the one that commits first
# makes it, and the other, failing, never removes a store it did not make. Each first
# import is held on a FIFO (opening its writer end returns once the import has opened it),
# so the order is the same on any machine.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced

# 1. Held before it opens the store (reading its mapping file), then failing.
mkfifo held.map
"$VOIDFIT" import -o t.db --format generic:./held.map "$tr/jobs.csv" >a.out 2>a.err &
a=$!
exec 3>held.map
expect_rc 0 vf import -o t.db "$tr/jobs.csv" "$tr/nodes.csv"
echo "this is not a mapping" >&3
exec 3>&-
set +e; wait $a; rc=$?; set -e
[ $rc -eq 1 ] || { cat a.err >&2; die "the held import exited $rc, wanted 1"; }
[ -f t.db ] || die "the failing import removed the store the other one made"
expect_rc 0 vf check t.db
contains out "2000 jobs"
[ "$(ls -A | grep -c '\.tmp')" -eq 0 ] || die "a temporary file was left: $(ls -A)"

# 2. Held after it has begun making its store (reading a job file from a FIFO): the other
# import is not kept waiting, and makes the store; the first, once it is done, finds a
# file where it would put its store, and leaves that file as it is.
rm -f t.db
mkfifo held.csv
"$VOIDFIT" import -o t.db held.csv >a.out 2>a.err &
a=$!
exec 3>held.csv
expect_rc 0 vf import -o t.db --wait 0 "$tr/nodes.csv"
contains out "trace 'nodes'"
cat "$tr/jobs.csv" >&3
exec 3>&-
set +e; wait $a; rc=$?; set -e
[ $rc -eq 1 ] || { cat a.out a.err >&2; die "the held import exited $rc, wanted 1"; }
contains a.err "t.db: another process made a file there"
contains a.err "nothing imported; t.db is unchanged"
[ "$(sqlite3 t.db 'SELECT group_concat(name) FROM traces')" = nodes ] ||
	die "t.db holds other traces than the one its maker imported"
[ "$(ls -A | grep -c '\.tmp')" -eq 0 ] || die "a temporary file was left: $(ls -A)"
