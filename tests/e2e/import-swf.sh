# import-swf.sh — the Parallel Workloads Archive's standard workload format (SWF; fields as
# defined by Chapin, Feitelson et al., JSSPP 1999): header comments give the nodes, jobs
# mapped field by field, a job spanning nodes and bad lines quarantined by line, the file
# kept byte for byte.
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
contains out "site.swf: swf, 7 rows read, 4 accepted, 3 quarantined"
contains out "4 jobs, 4 nodes"
contains err "site.swf:11: 64 processors, more than one node's 8: the job spans nodes"
contains err "site.swf:12: field 4 (run time): 'abc' is not a number"
contains err "site.swf:13: fewer fields, expected 18"
vf export --jobs f.db > jobs
cat > want <<'T'
job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec
0,0,3600,cpu,8000,8192,0,0,,,,,
1,60,120,cpu,4000,,0,0,,,,,
2,120,,cpu,16000,,0,0,,,,,
3,360,50,cpu,2000,4,0,0,,,,,
T
cmp want jobs || { diff want jobs >&2; die "swf jobs"; }
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
contains out "site.swf: swf, 7 rows read, 4 accepted"
# a log of comments only, no header of nodes and no job: nothing to import, nothing made
printf '; Version: 2.2\n; Computer: none\n' > empty.swf
expect_rc 1 vf import -o e.db --format swf empty.swf
contains err "no job and no node"
[ ! -e e.db ] || die "an import of nothing made a store"
