# store-export-safe.sh — export --raw writes exactly what was imported or fails naming the
# file, leaving no partial file: two traces with the same file names go to one folder
# each; a clash or a file in the way is refused before anything is written; a missing
# block or a changed line-ending cell is caught by the recorded size and SHA-256.
. "$VOIDFIT_TOP/tests/lib.sh"
vf gen -j 300 --nodes 8 -o a >/dev/null
vf gen -j 300 --nodes 8 --seed 2 -o b >/dev/null
vf import -q -o s.db a/jobs.csv a/nodes.csv
vf import -q -o s.db b/jobs.csv b/nodes.csv 2>/dev/null # the same nodes: skipped
cmp -s a/jobs.csv b/jobs.csv && die "the two traces' jobs.csv are the same"

# Several traces: one folder each, named after the trace.
expect_rc 0 vf export --raw -d x s.db
cmp a/jobs.csv x/jobs/jobs.csv || die "x/jobs/jobs.csv differs from a/jobs.csv"
cmp a/nodes.csv x/jobs/nodes.csv || die "x/jobs/nodes.csv differs from a/nodes.csv"
cmp b/jobs.csv x/jobs-2/jobs.csv || die "x/jobs-2/jobs.csv differs from b/jobs.csv"
expect_rc 0 vf export --raw --force -d x s.db
cmp b/jobs.csv x/jobs-2/jobs.csv || die "--force wrote other bytes"
# One trace asked for: its files in DIR itself.
expect_rc 0 vf export --raw --trace jobs-2 -d one s.db
cmp b/jobs.csv one/jobs.csv || die "one/jobs.csv differs from b/jobs.csv"
# A file in the way: refused before anything is written.
rm x/jobs/jobs.csv x/jobs-2/jobs.csv
expect_rc 1 vf export --raw -d x s.db
contains err "nothing written: x/jobs/nodes.csv: File exists (--force overwrites)"
[ ! -e x/jobs/jobs.csv ] || die "a file was written before the export failed"

# Two files of one trace under one name: refused, nothing written.
mkdir c
cp b/jobs.csv c/jobs.csv
vf import -q -o two.db --name both a/jobs.csv c/jobs.csv a/nodes.csv
expect_rc 1 vf export --raw -d two two.db
contains err "nothing written: two/jobs.csv: files 1 and 2 of trace 'both' are both named 'jobs.csv'"
[ ! -e two ] || die "export made its folder though it wrote nothing"

# Damage the bytes of a file: its last block gone, or its line ending changed.
vf gen -j 30000 --nodes 8 -o big >/dev/null
vf import -q -o d.db big/jobs.csv big/nodes.csv
[ "$(sqlite3 d.db "SELECT count(*) FROM raw_blocks WHERE file_id = 1")" -gt 1 ] ||
	die "jobs.csv fits one block: the test needs more"
cp d.db lost.db
sqlite3 lost.db "DELETE FROM raw_blocks WHERE file_id = 1 AND seq = (SELECT max(seq) FROM raw_blocks WHERE file_id = 1)"
expect_rc 1 vf export --raw -d lost lost.db
contains err "lost/jobs.csv: file 'jobs.csv': "
contains err "bytes rebuilt from the store"
[ ! -e lost/jobs.csv ] || die "a partial jobs.csv was left"
cp d.db eol.db
sqlite3 eol.db "UPDATE files SET raw_eol = 'crlf' WHERE name = 'nodes.csv'"
expect_rc 1 vf export --raw --trace jobs -d eol eol.db
contains err "eol.db: table files: 1 of its 2 rows do not match their checksum"
[ ! -e eol/nodes.csv ] || die "a wrong nodes.csv was left"
ls -A lost eol | grep -q '\.tmp' && die "a temporary file was left: $(ls -A lost eol)"
expect_rc 0 vf export --raw -d good d.db
cmp big/jobs.csv good/jobs.csv || die "the sound store's jobs.csv differs"
