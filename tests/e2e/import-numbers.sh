# import-numbers.sh — a number in a trace is a plain decimal: one written with blanks inside
# its quotes, or in hex, is a bad number (quarantined with file:line), never read as one;
# blanks around an unquoted cell are CSV padding and dropped.
. "$VOIDFIT_TOP/tests/lib.sh"
h=sn,cpu_milli,memory_mib,gpu,model
{
	echo "$h"
	echo "n0, 64000 ,262144,2,T4"
	echo "n1,\" 64000\",262144,2,T4"
	echo "n2,0x1p3,262144,2,T4"
	echo "n3,64000,262144,0x2,T4"
	echo "n4,64000,262144,\"2 \",T4"
	echo "n5,64000,262144,inf,T4"
	echo "n6,64000,262144,8,V100M32"
} > nodes.csv
expect_rc 0 vf import -o n.db nodes.csv
contains out "nodes.csv: openb-nodes, 7 rows read, 2 accepted, 5 quarantined"
contains err "nodes.csv:3: column 'cpu_milli': ' 64000' is not a number"
contains err "nodes.csv:4: column 'cpu_milli': '0x1p3' is not a number"
contains err "nodes.csv:5: column 'gpu': '0x2' is not a number"
contains err "nodes.csv:6: column 'gpu': '2 ' is not a number"
contains err "nodes.csv:7: column 'gpu': 'inf' is not a number"
vf export --nodes n.db > got.csv
contains got.csv "n0,,T4,64000,262144,2,"
contains got.csv "n6,,V100M32,64000,262144,8,"
[ "$(sqlite3 n.db 'SELECT group_concat(line) FROM quarantine')" = "3,4,5,6,7" ] ||
	die "quarantined lines"
expect_rc 1 vf import --strict -o s.db nodes.csv
contains err "nodes.csv:3: column 'cpu_milli': ' 64000' is not a number (--strict: nothing imported)"
