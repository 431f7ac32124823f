# import-dup-nodes.sh — a node name met twice in one import (in one node file or across
# several) is quarantined at its repeat, with file:line of both; the first stays. --strict
# fails on it. The openb all-node and GPU-node lists name 1,213 nodes alike.
. "$VOIDFIT_TOP/tests/lib.sh"
h=sn,cpu_milli,memory_mib,gpu,model
printf '%s\nn0,32000,262144,2,T4\nn1,32000,262144,0,\nn0,64000,262144,8,V100M32\n' "$h" > a.csv
printf '%s\nn2,1000,1024,0,\nn1,2000,2048,2,T4\n' "$h" > b.csv
expect_rc 0 vf import -o d.db --nodes a.csv --nodes b.csv
contains err "a.csv:4: node 'n0' repeats a.csv:2"
contains err "b.csv:3: node 'n1' repeats a.csv:3"
contains out "a.csv: openb-nodes, 3 rows read, 2 accepted, 1 quarantined"
contains out "b.csv: openb-nodes, 2 rows read, 1 accepted, 1 quarantined"
contains out "5 rows read = 3 accepted + 2 quarantined; 0 jobs, 3 nodes"
# the first of each name is the node kept
vf export --nodes d.db > nodes.csv
cat > want <<'END'
node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli
n0,,T4,32000,262144,2,16384,,,
n1,,,32000,262144,0,0,,,
n2,,,1000,1024,0,0,,,
END
cmp want nodes.csv || { diff want nodes.csv >&2; die "nodes kept"; }
sqlite3 d.db "SELECT f.name, q.line, q.reason, q.raw FROM quarantine q JOIN files f ON f.id = q.file_id
	ORDER BY q.file_id, q.line" > q
cat > want <<'END'
a.csv|4|node 'n0' repeats a.csv:2|n0,64000,262144,8,V100M32
b.csv|3|node 'n1' repeats a.csv:3|n1,2000,2048,2,T4
END
cmp want q || { diff want q >&2; die "quarantine rows"; }
# across formats too: a native node list after an openb one
printf 'node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli\nn2,g,,1000,1024,0,,,,\n' > c.csv
expect_rc 0 vf import -o e.db --nodes b.csv --nodes c.csv
contains err "c.csv:2: node 'n2' repeats b.csv:2"
expect_rc 1 vf import --strict -o s.db --nodes a.csv
contains err "a.csv:4: node 'n0' repeats a.csv:2 (--strict: nothing imported)"
[ ! -e s.db ] || die "--strict left s.db"

need_traces
v23=$VOIDFIT_TRACES/clusterdata/cluster-trace-gpu-v2023/csv
cp "$v23/openb_node_list_all_node.csv" "$v23/openb_node_list_gpu_node.csv" .
expect_rc 0 vf import -o o.db --nodes openb_node_list_all_node.csv --nodes openb_node_list_gpu_node.csv
contains out "openb_node_list_all_node.csv: openb-nodes, 1523 rows read, 1523 accepted, 0 quarantined"
contains out "openb_node_list_gpu_node.csv: openb-nodes, 1213 rows read, 0 accepted, 1213 quarantined"
contains out "2736 rows read = 1523 accepted + 1213 quarantined; 0 jobs, 1523 nodes"
contains err "openb_node_list_gpu_node.csv:2: node 'openb-node-0000' repeats openb_node_list_all_node.csv:2"
[ "$(vf export --nodes o.db | wc -l)" = 1524 ] || die "nodes stored"
