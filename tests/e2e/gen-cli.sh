# gen-cli: 'voidfit gen' options, determinism, exact headers, usage errors.
. "$VOIDFIT_TOP/tests/lib.sh"

expect_rc 0 vf gen -h
for s in balanced irregular storage-stress hard; do contains out "  $s "; done
for o in --scenario --jobs --nodes --seed --output; do contains out "$o"; done

# Same arguments, same bytes; another seed, other bytes.
expect_rc 0 vf gen --scenario irregular --jobs 300 --nodes 20 --seed 5 -o a
expect_rc 0 vf gen --scenario=irregular -j 300 --nodes=20 --seed=5 --output b
cmp a/jobs.csv b/jobs.csv || die "jobs.csv differs between identical runs"
cmp a/nodes.csv b/nodes.csv || die "nodes.csv differs between identical runs"
expect_rc 0 vf gen --scenario irregular -j 300 --nodes 20 --seed 6 -o c
cmp -s a/jobs.csv c/jobs.csv && die "another seed gave the same jobs"
[ ! -e a/faults.txt ] || die "irregular wrote faults.txt"

[ "$(head -1 a/jobs.csv)" = "job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec" ] ||
	die "jobs header"
[ "$(head -1 a/nodes.csv)" = "node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli" ] ||
	die "nodes header"
[ "$(wc -l < a/jobs.csv)" -eq 301 ] || die "want 300 jobs"
[ "$(wc -l < a/nodes.csv)" -eq 21 ] || die "want 20 nodes"

expect_rc 0 vf gen --scenario hard -j 100 --nodes 10 -o h
grep -v '^#' h/faults.txt | grep -Eq '^n[0-9]{4}:sto=0\.5@[0-9]+\+6h$' || die "no storage fault"

# --templates N: at most N distinct requests (every column but job, arrival and duration),
# the first template the most frequent; the same bytes again; durations still vary
expect_rc 0 vf gen -j 5000 --nodes 40 --templates 50 -o t1
expect_rc 0 vf gen -j 5000 --nodes 40 --templates 50 -o t2
cmp t1/jobs.csv t2/jobs.csv || die "--templates: jobs.csv differs between identical runs"
req() { awk -F, 'NR > 1 { print $4","$5","$6","$7","$8","$9","$10","$11","$12","$13 }' "$1"; }
n=$(req t1/jobs.csv | sort -u | wc -l)
[ "$n" -le 50 ] && [ "$n" -ge 20 ] || die "--templates 50 gave $n distinct requests"
top=$(req t1/jobs.csv | sort | uniq -c | sort -rn | head -1 | awk '{ print $1 }')
[ "$top" -ge 500 ] || die "the most popular template has $top jobs (1/k popularity: ~1,100)"
[ "$(awk -F, 'NR > 1 { print $3 }' t1/jobs.csv | sort -u | wc -l)" -gt 1000 ] ||
	die "durations repeat with the templates"
[ "$(req a/jobs.csv | sort -u | wc -l)" -gt 150 ] || die "without --templates requests repeat"
expect_rc 0 vf gen -j 10 --nodes 4 --templates 3 --json -o t3
contains out '"templates": 3'
expect_rc 2 vf gen --templates 0 -o x
contains err "templates '0': want an integer in 1..1000000"

# Usage errors exit 2 and name the problem; runtime failures exit 1.
expect_rc 2 vf gen -j 10
contains err "-o DIR is required"
expect_rc 2 vf gen --scenario nosuch -o x
contains err "scenario 'nosuch'"
expect_rc 2 vf gen -j 0 -o x
contains err "jobs '0'"
expect_rc 2 vf gen --nodes 12x -o x
contains err "nodes '12x'"
expect_rc 2 vf gen --seed -3 -o x
expect_rc 2 vf gen --bogus -o x
expect_rc 2 vf gen -o x extra
expect_rc 2 vf gen -o
mkdir ro && touch ro/file
expect_rc 1 vf gen -j 5 --nodes 2 -o ro/file/sub
contains err "voidfit gen: ro/file/sub"
