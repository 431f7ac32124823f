# check: a sound store passes and says what it checked; a flipped byte in a block, a
# truncated file, a file that is not a store and a missing file fail with exit 1.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
vf import -o t.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"

expect_rc 0 vf check t.db
contains out "integrity_check"
contains out "application_id"
contains out "file 'jobs.csv'"
contains out "2000 jobs"
contains out "no problems"
expect_rc 0 vf check -q t.db
[ "$(wc -l < out)" -eq 1 ] || die "check -q printed more than its closing line"

cp t.db flip.db
sqlite3 flip.db "UPDATE raw_blocks SET data = substr(data, 1, 40) || x'5a5a' || substr(data, 43)
	WHERE rowid = (SELECT min(rowid) FROM raw_blocks)"
expect_rc 1 vf check flip.db
contains out "BAD"
contains out "checksum"

cp t.db jobs.db
sqlite3 jobs.db "UPDATE job_blocks SET data = substr(data, 1, 30) || x'00' || substr(data, 32)"
expect_rc 1 vf check jobs.db
contains out "BAD  trace"

head -c $(($(wc -c < t.db) / 2)) t.db > trunc.db
expect_rc 1 vf check trunc.db
contains out "BAD"

echo "not a store" > junk.db
expect_rc 1 vf check junk.db
contains err "not a voidfit store"
expect_rc 1 vf check missing.db
expect_rc 2 vf check
