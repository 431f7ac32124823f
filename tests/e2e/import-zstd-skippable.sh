# import-zstd-skippable.sh — a zstd file that begins with a skippable frame (as pzstd writes
# them) is read as zstd, not refused as "NUL byte"; kept and exported byte for byte.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v zstd > /dev/null || skip "zstd is not installed"
h=sn,cpu_milli,memory_mib,gpu,model
printf '%s\nn0,32000,262144,2,T4\nn1,32000,262144,0,\n' "$h" > nodes.csv
zstd -q -c nodes.csv > plain.zst
# a skippable frame (magic 0x184D2A53, 4 bytes of content) before the zstd frame
{ printf '\123\052\115\030\004\000\000\000abcd'; cat plain.zst; } > skip.zst
expect_rc 0 vf import -o s.db skip.zst
contains out "skip.zst: openb-nodes, 2 rows read, 2 accepted, 0 quarantined"
vf export --raw -d raw s.db
cmp skip.zst raw/skip.zst || die "export --raw differs"
[ "$(vf export --nodes s.db | cut -d, -f1 | tail -n +2 | sort | tr '\n' ' ')" = "n0 n1 " ] ||
	die "nodes"
# a skippable frame alone holds no rows
printf '\120\052\115\030\000\000\000\000' > empty.zst
expect_rc 1 vf import -o e.db empty.zst
contains err "empty.zst: empty file"

# pzstd's own output, and the real pod list through it
command -v pzstd > /dev/null || skip "pzstd is not installed (the hand-made frames passed)"
pzstd -q nodes.csv -o p.zst
[ "$(od -An -tx1 -N4 p.zst | tr -d ' ')" = 502a4d18 ] || die "pzstd wrote no skippable frame"
expect_rc 0 vf import -o p.db p.zst
contains out "p.zst: openb-nodes, 2 rows read, 2 accepted"
need_traces
pzstd -q "$VOIDFIT_TRACES/clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv" \
	-o pods.csv.zst
expect_rc 0 vf import -o pods.db pods.csv.zst
contains out "pods.csv.zst: openb-pods, 8152 rows read, 8152 accepted, 0 quarantined"
