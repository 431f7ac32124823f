# import-swf.sh — the Parallel Workloads Archive's standard workload format (SWF; fields as
# defined by Chapin, Feitelson et al., JSSPP 1999): header comments give the nodes, jobs
# mapped field by field, a job spanning nodes a gang of ceil(procs / P) workers (P from the
# header or --node-procs; quarantined when the header's sizes do not give one), bad lines
# quarantined by line, the file kept byte for byte.
. "$VOIDFIT_TOP/tests/lib.sh"
# A log in the archive's layout (header comments, right-aligned fields), written here.
cat > site.swf <<'T'
; Version: 2.2
; Computer: example cluster (written for voidfit's tests)
; MaxJobs: 7
; MaxNodes: 4
; MaxProcs: 32
; MaxMemory: 262144
;
    1     0    10   3600   8  -1  -1   8  7200  1048576  1  1  1  1  1 -1 -1 -1
    2    60     0    120   4  -1  -1   4   600       -1  1  2  1  2  1 -1 -1 -1
    3   120    -1     -1   0  -1  -1  16   600       -1  5  2  1  2  1 -1 -1 -1
    4   180     5    100  64  -1  -1  64   600       -1  1  2  1  2  1 -1 -1 -1
    5   240     5    abc   4  -1  -1   4   600       -1  1  2  1  2  1 -1 -1 -1
    6   300     5    100   4  -1  -1   4   600       -1  1  2  1  2  1 -1 -1

    7   360     0     50   2  -1  2048   2   600       -1  1  2  1  2  1 -1 -1 -1
T
expect_rc 0 vf import -o f.db site.swf
contains out "site.swf: swf, 7 rows read, 5 accepted, 2 quarantined"
contains out "5 jobs, 4 nodes"
contains err "site.swf:12: field 4 (run time): 'abc' is not a number"
contains err "site.swf:13: fewer fields, expected 18"
vf export --jobs f.db > jobs
cat > want <<'T'
job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec,workers
0,0,3600,cpu,8000,8192,0,0,,,,,,1
1,60,120,cpu,4000,,0,0,,,,,,1
2,120,,cpu,8000,,0,0,,,,,,2
3,180,100,cpu,8000,,0,0,,,,,,8
4,360,50,cpu,2000,4,0,0,,,,,,1
T
cmp want jobs || { diff want jobs >&2; die "swf jobs"; }
# --node-procs: P = 16 cuts 64 processors into 4 workers of 16; 20 processors on nodes of 8
# are 3 workers of 7 (ceil(20 / 8) = 3, ceil(20 / 3) = 7), with 7 x 1024 KB of memory each
cat > p.swf <<'T'
; MaxNodes: 4
; MaxProcs: 32
    1     0    10   3600  64  -1  -1  64  7200  1024  1  1  1  1  1 -1 -1 -1
    2    60     0    120  20  -1  -1  20   600  1024  1  2  1  2  1 -1 -1 -1
T
expect_rc 0 vf import -o p.db p.swf
vf export --jobs p.db | cut -d, -f1,5,6,14 > jobs
printf 'job,cpu_milli,mem_mib,workers\n0,8000,8,8\n1,7000,7,3\n' > want
cmp want jobs || { diff want jobs >&2; die "swf gangs of 8-processor nodes"; }
expect_rc 0 vf import -o q.db --node-procs 16 p.swf
vf export --jobs q.db | cut -d, -f1,5,6,14 > jobs
printf 'job,cpu_milli,mem_mib,workers\n0,16000,16,4\n1,10000,10,2\n' > want
cmp want jobs || { diff want jobs >&2; die "swf gangs of --node-procs 16"; }
# nodes of several sizes (MaxNodes does not divide MaxProcs): no P, a larger job is
# quarantined with the reason; --node-procs gives P
sed 's/MaxProcs: 32/MaxProcs: 30/' p.swf > odd.swf
echo '    3   90     0    120   4  -1  -1   4   600  1024  1  2  1  2  1 -1 -1 -1' >> odd.swf
expect_rc 0 vf import -o o.db odd.swf
contains out "odd.swf: swf, 3 rows read, 1 accepted, 2 quarantined"
contains err "odd.swf:3: 64 processors, more than MaxProcs / MaxNodes (30 / 4, not whole)"
contains err "(--node-procs N gives it)"
expect_rc 0 vf import -o o2.db --node-procs 8 odd.swf
contains out "odd.swf: swf, 3 rows read, 3 accepted, 0 quarantined"
expect_rc 2 vf import -o x.db --node-procs 0 odd.swf
contains err "--node-procs"
vf export --nodes f.db > nodes
contains nodes "swf-4,,,8000,2048,0,0,,,"
[ "$(grep -c '^swf-' nodes)" -eq 4 ] || die "4 nodes wanted"
vf export --raw -d raw f.db
cmp raw/site.swf site.swf || die "the log is not kept byte for byte"
# forced, a comment-less log (recognised by its 18 numbers); no header: no nodes
sed '/^;/d' site.swf > bare.swf
expect_rc 0 vf import -o g.db bare.swf
contains out "bare.swf: swf, 7 rows read, 5 accepted, 2 quarantined"
contains out "5 jobs, 0 nodes"
expect_rc 0 vf import -o h.db --format swf site.swf
contains out "site.swf: swf, 7 rows read, 5 accepted"
# a log of comments only, no header of nodes and no job: nothing to import, nothing made
printf '; Version: 2.2\n; Computer: none\n' > empty.swf
expect_rc 1 vf import -o e.db --format swf empty.swf
contains err "no job and no node"
[ ! -e e.db ] || die "an import of nothing made a store"
