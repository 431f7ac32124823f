# import-gen.sh — 'voidfit import DIR/*' on 'voidfit gen' output imports its jobs and nodes
# as one trace (nodes recognised by their header; the fault file skipped), and the native
# columns come back unchanged through 'export --jobs / --nodes'.
. "$VOIDFIT_TOP/tests/lib.sh"
vf gen --scenario hard -j 3000 --nodes 32 -o g > /dev/null
expect_rc 0 vf import -o g.db g/*
contains out "jobs.csv: native-jobs, 3000 rows read, 3000 accepted, 0 quarantined"
contains out "nodes.csv: native-nodes, 32 rows read, 32 accepted, 0 quarantined"
contains out "3000 jobs, 32 nodes"
contains err "faults.txt: a fault file (for 'replay --faults'), not a trace, skipped"
# export lists jobs by arrival with their import index for a name: gen writes them in
# arrival order, so its file with the names numbered from 0 is what must come back
vf export --jobs g.db > jobs.out
awk -F, -v OFS=, 'NR > 1 { $1 = NR - 2 } { print }' g/jobs.csv > jobs.want
cmp jobs.want jobs.out || { diff jobs.want jobs.out | head >&2; die "jobs differ"; }
vf export --nodes g.db > nodes.out
cmp g/nodes.csv nodes.out || { diff g/nodes.csv nodes.out | head >&2; die "nodes differ"; }
