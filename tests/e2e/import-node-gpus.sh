# import-node-gpus.sh — a node of more GPUs than one node can hold (32) is a bad row at
# import (quarantined with file:line, the counts adding up), and such a node in a damaged
# store is a clear error naming the store and the node, never an abort.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
{ head -3 "$tr/nodes.csv"; echo "n9,a100,A100,128000,1048576,40,40960,12500,4000,16000"
	sed -n 4,5p "$tr/nodes.csv"; echo "n10,a100,A100,128000,1048576,33,40960,12500,4000,16000"; } > nodes.csv
expect_rc 0 vf import -o t.db "$tr/jobs.csv" nodes.csv
contains err "nodes.csv:4: node 'n9': 40 GPUs, at most 32 on one node"
contains err "nodes.csv:7: node 'n10': 33 GPUs, at most 32 on one node"
contains out "nodes.csv: native-nodes, 6 rows read, 4 accepted, 2 quarantined"
contains out "2006 rows read = 2004 accepted + 2 quarantined; 2000 jobs, 4 nodes"
[ "$(sqlite3 t.db 'SELECT group_concat(line) FROM quarantine')" = "4,7" ] || die "quarantine differs"
expect_rc 0 vf check t.db

# The same in a cluster spec is refused with its line.
printf 'big A100 1 40\n' > big.spec
expect_rc 1 vf import -o u.db --cluster big.spec
contains err "big.spec:1"

# A damaged store: a node of 40 GPUs.
sqlite3 t.db "UPDATE nodes SET ngpu = 40 WHERE idx = 1"
# (readers find the row changed behind voidfit's back before they load it)
expect_rc 1 vf replay t.db --policy first-fit --no-store
contains err "t.db: table nodes: 1 of its 4 rows do not match their checksum"
expect_rc 1 vf export --nodes t.db
contains err "table nodes: 1 of its 4 rows"
expect_rc 1 vf check t.db
contains out "BAD  trace 'jobs': t.db: trace 1, node 1 'n0001': 40 GPUs"
contains out "BAD  table nodes: row 2"
