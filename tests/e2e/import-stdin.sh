# import-stdin.sh — a trace read from the standard input is named "stdin" (made unique as
# any other name), not "-"; --name still names it; info and export show that name.
. "$VOIDFIT_TOP/tests/lib.sh"
h=sn,cpu_milli,memory_mib,gpu,model
printf '%s\nn0,32000,262144,2,T4\n' "$h" > a.csv
printf '%s\nn1,32000,262144,0,\n' "$h" > b.csv
expect_rc 0 vf import -o d.db - < a.csv
contains out "stdin: openb-nodes, 1 rows read, 1 accepted, 0 quarantined"
contains out "trace 'stdin' (id 1)"
expect_rc 0 vf import -o d.db - < b.csv
contains out "trace 'stdin-2' (id 2)"
printf '%s\nn2,1000,1024,0,\n' "$h" | vf import -o d.db --name piped - > out 2> err
contains out "trace 'piped' (id 3)"
[ "$(sqlite3 d.db 'SELECT group_concat(name) FROM (SELECT name FROM traces ORDER BY id)')" = "stdin,stdin-2,piped" ] ||
	die "trace names"
[ "$(sqlite3 d.db "SELECT count(*) FROM files WHERE name = 'stdin'")" = 3 ] || die "file names"
vf info d.db > info
contains info "trace 1 'stdin'"
contains info "trace 2 'stdin-2'"
contains info "file stdin: format openb-nodes"
vf info --json d.db > info.json
contains info.json '"name": "stdin-2"'
vf export --nodes --trace stdin-2 d.db > n.csv
contains n.csv "n1,,,32000,262144,0,"
vf export --raw -d raw --trace stdin d.db
cmp a.csv raw/stdin || die "export --raw of the stdin trace"
