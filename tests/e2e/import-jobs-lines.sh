# import-jobs-lines.sh — jobs are coded against the lines they came from as the import goes:
# a file of more blocks than the coding thread holds at once, with a quarantined row and odd
# (quoted) lines shifting the lines under the jobs, comes back byte for byte and with every
# job; with two quarantined rows after every job, its jobs still cost about what they
# cost without them; the store's blocks do not depend on thread timing (one core or two); files are hashed while they are stored, and a duplicate
# (hashed first, as only a file of a stored file's size can be one) is skipped, stdin
# included, while a file of the same size and other bytes is imported.
. "$VOIDFIT_TOP/tests/lib.sh"
vf gen --scenario balanced -j 60000 --nodes 16 --seed 3 -o g > /dev/null
# line 5001 becomes a bad row (quarantined), lines 12001 and 50001 quoted ones (kept
# verbatim, still jobs)
awk -F, -v OFS=, 'NR == 5001 { $2 = "soon" } NR == 12001 || NR == 50001 { $4 = "\"" $4 "\"" }
	{ print }' g/jobs.csv > jobs.csv
expect_rc 0 vf import -o a.db jobs.csv g/nodes.csv
contains out "jobs.csv: native-jobs, 60000 rows read, 59999 accepted, 1 quarantined"
vf export --raw -d raw a.db
cmp jobs.csv raw/jobs.csv || die "jobs.csv does not come back byte for byte"
# every job but the bad row's, in arrival order, numbered from 0 by import order
vf export --jobs a.db > jobs.out
awk -F, -v OFS=, 'NR != 5001 { if (NR > 1) $1 = n++; print }' g/jobs.csv > jobs.want
cmp jobs.want jobs.out || { diff jobs.want jobs.out | head >&2; die "jobs differ"; }
vf check a.db > /dev/null || die "check finds problems"
# two quarantined rows after every job: the jobs are still coded against their own lines
# (the gaps between them stored), so they cost about what they cost without those rows,
# not the several times more of jobs coded alone
head -n 20001 g/jobs.csv > dense.csv
awk -F, -v OFS=, 'NR == 1 { print; next } { print; $2 = "soon"; print; print }' dense.csv \
	> sparse.csv
expect_rc 0 vf import -o dense.db dense.csv g/nodes.csv
expect_rc 0 vf import -o sparse.db sparse.csv g/nodes.csv
contains out "sparse.csv: native-jobs, 60000 rows read, 20000 accepted, 40000 quarantined"
vf export --jobs dense.db > dense.out
vf export --jobs sparse.db > sparse.out
cmp dense.out sparse.out || die "the jobs of sparse.csv differ from dense.csv's"
vf export --raw -d raws sparse.db
cmp sparse.csv raws/sparse.csv || die "sparse.csv does not come back byte for byte"
vf check sparse.db > /dev/null || die "check finds problems in sparse.db"
jb() { sqlite3 "$1" 'SELECT sum(length(data)) FROM job_blocks'; }
[ "$(jb sparse.db)" -le $(($(jb dense.db) * 11 / 10 + 1000)) ] ||
	die "the jobs of sparse.csv take $(jb sparse.db) bytes, those of dense.csv $(jb dense.db)"
# the same import again: the same blocks
vf import -q -o b.db jobs.csv g/nodes.csv
blocks() {
	sqlite3 "$1" "SELECT seq, nrows, hex(data) FROM job_blocks ORDER BY rowid;
		SELECT seq, hex(data) FROM raw_blocks ORDER BY rowid"
}
[ "$(blocks a.db)" = "$(blocks b.db)" ] || die "the blocks depend on the run"
if command -v taskset > /dev/null && taskset -c 0 true 2> /dev/null; then
	taskset -c 0 "$VOIDFIT" import -q -o c.db jobs.csv g/nodes.csv > /dev/null
	[ "$(blocks a.db)" = "$(blocks c.db)" ] || die "the blocks differ on one core"
fi
# a duplicate after a new file: the new file alone makes the trace
vf gen --scenario balanced -j 9000 --nodes 16 --seed 4 -o h > /dev/null
cp h/jobs.csv other.csv
expect_rc 0 vf import -o a.db other.csv jobs.csv
contains err "jobs.csv: already imported (trace 'jobs'), skipped"
contains out "other.csv: native-jobs, 9000 rows read, 9000 accepted, 0 quarantined"
vf export --jobs --trace other a.db > other.out
awk -F, -v OFS=, '{ if (NR > 1) $1 = n++; print }' other.csv > other.want
cmp other.want other.out || die "the trace of other.csv holds other jobs"
[ "$(sqlite3 a.db 'SELECT count(*) FROM files')" = 3 ] || die "files table holds the duplicate"
[ "$(sqlite3 a.db "SELECT njobs FROM traces WHERE name = 'other'")" = 9000 ] ||
	die "trace 'other' does not count 9000 jobs"
# stdin, spooled, then a duplicate
head -n 3001 g/jobs.csv > three.csv
expect_rc 0 vf import -o a.db --name piped - other.csv < three.csv
contains err "other.csv: already imported (trace 'other'), skipped"
contains out "stdin: native-jobs, 3000 rows read, 3000 accepted"
vf export --raw -d raw2 --trace piped a.db
cmp three.csv raw2/stdin || cmp three.csv raw2/three.csv 2> /dev/null ||
	{ ls raw2 >&2; die "stdin does not come back"; }
# the same size, other bytes: not a duplicate (its sha256 is the one of its own bytes)
sed '2s/^j000001,/j000009,/' other.csv > same-size.csv
[ "$(wc -c < same-size.csv)" = "$(wc -c < other.csv)" ] || die "same-size.csv has another size"
expect_rc 0 vf import -o a.db same-size.csv
contains out "same-size.csv: native-jobs, 9000 rows read, 9000 accepted"
[ "$(sqlite3 a.db "SELECT sha256 FROM files WHERE name = 'same-size.csv'")" = \
	"$(sha256sum same-size.csv | cut -d' ' -f1)" ] || die "the sha256 of same-size.csv is wrong"
[ "$(sqlite3 a.db "SELECT sha256 FROM files WHERE name = 'other.csv'")" = \
	"$(sha256sum other.csv | cut -d' ' -f1)" ] || die "the sha256 of other.csv is wrong"
