# import-node-gpus.sh — a node of more GPUs than one node can hold (32) is a bad row at
# import (quarantined with file:line, the counts adding up), and a damaged node block is a
# clear error naming the store and the block, never an abort.
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

# A damaged store: its nodes' block changed behind voidfit's back (a forged block that
# keeps its checksum, with a node of 40 GPUs, is refused by name too: test-store.c).
sqlite3 t.db "UPDATE node_blocks SET data = substr(data, 1, length(data) - 1) || CASE WHEN substr(data, -1) = x'00' THEN x'01' ELSE x'00' END"
expect_rc 1 vf replay t.db --policy first-fit --no-store
contains err "t.db: trace 1: node block 0: block checksum mismatch"
expect_rc 1 vf export --nodes t.db
contains err "node block 0"
expect_rc 1 vf check t.db
contains out "BAD  trace 'jobs': t.db: trace 1: node block 0: block checksum mismatch"
