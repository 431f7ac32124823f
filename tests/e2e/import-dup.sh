# import-dup.sh — a file imported twice into one store is recognised by its sha256,
# reported with the trace that holds it, and skipped: exit 0 if something else was
# imported, 1 if nothing was new.
. "$VOIDFIT_TOP/tests/lib.sh"
h=sn,cpu_milli,memory_mib,gpu,model
printf '%s\nn0,32000,262144,2,T4\n' "$h" > a.csv
printf '%s\nn1,32000,262144,0,\n' "$h" > b.csv
expect_rc 0 vf import -o d.db --name first a.csv
expect_rc 1 vf import -o d.db a.csv
contains err "a.csv: already imported (trace 'first'), skipped"
contains err "nothing new: every file is already in d.db"
# the same bytes under another name, from stdin, or gzip'd-then-gunzip'd are the same file
cp a.csv copy.csv
expect_rc 1 vf import -o d.db copy.csv
contains err "copy.csv: already imported (trace 'first')"
expect_rc 1 vf import -o d.db - < a.csv
contains err "stdin: already imported (trace 'first')"
# one new file among duplicates: imported, exit 0
expect_rc 0 vf import -o d.db a.csv b.csv
contains err "a.csv: already imported (trace 'first'), skipped"
contains out "b.csv: openb-nodes, 1 rows read, 1 accepted"
contains out "trace 'b' (id 2)"
# a file given twice in one invocation is imported once
printf '%s\nn2,1000,1024,0,\n' "$h" > c.csv
expect_rc 0 vf import -o d.db c.csv c.csv
contains err "c.csv: already imported (trace 'c'), skipped"
contains out "1 file, 1 rows read"
[ "$(sqlite3 d.db 'SELECT count(*) FROM files')" = 3 ] || die "files table holds duplicates"
