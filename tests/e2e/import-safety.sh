# import-safety.sh — an import that would store nothing usable fails (exit 1) and leaves
# the store as it was: every row quarantined, node files that make no node, or a job file
# the store already holds beside a new cluster spec (a trace of nodes and no job, made the
# default); with
# --new-trace the file goes in again, as a second trace, and the import says which trace
# is the default. A repeated --format is for the files after it, never silently one.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
h=name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
printf '%s\np1,abc,1,0,0,,BE,Running,1,2,1\np2,1,-5,0,0,,BE,Running,1,2,1\n' "$h" > bad.csv
expect_rc 1 vf import -o new.db bad.csv
contains err "bad.csv:2: column 'cpu_milli': 'abc' is not a number"
contains err "voidfit import: every row (2) was quarantined; nothing is imported"
contains err "new.db was not created"
[ ! -e new.db ] || die "a store was made"
expect_rc 0 vf import -q -o t.db "$tr/jobs.csv" "$tr/nodes.csv"
cp t.db before.db
expect_rc 1 vf import -o t.db bad.csv
contains err "t.db is unchanged"
cmp t.db before.db || die "the store changed"
# a node file of bad rows beside good jobs
printf 'sn,cpu_milli,memory_mib,gpu,model\nn1,x,1,0,\n' > badnodes.csv
printf '%s\np1,1,1,0,0,,BE,Running,1,2,1\n' "$h" > one.csv
expect_rc 1 vf import -o u.db one.csv badnodes.csv
contains err "voidfit import: no node: the node files made no node (1 rows quarantined); nothing is imported"

# the same job file again with another cluster: refused, then a second trace when asked
printf 'small 2 A100 8\n' > small.spec
expect_rc 1 vf import -o t.db "$tr/jobs.csv" --cluster small.spec
contains err "voidfit import: '$tr/jobs.csv' is already in t.db (trace 'jobs'), so the new trace would hold nodes and no job; give --new-trace to import it again with these nodes as a new trace"
cmp t.db before.db || die "the store changed"
expect_rc 0 vf import -o t.db --new-trace "$tr/jobs.csv" --cluster small.spec
contains out "trace 'jobs-2' (id 2) in t.db: 2 files"
contains out "2000 jobs, 2 nodes"
contains out "trace 'jobs-2' is the default now (commands take the newest trace; --trace NAME picks one of the 1 other)"
# nothing new at all says how to import again
expect_rc 1 vf import -o t.db "$tr/jobs.csv"
contains err "nothing new: every file is already in t.db (or skipped); --new-trace imports them again"

# a --format with no file after it, when there are several
expect_rc 2 vf import -o f.db --format native-jobs "$tr/jobs.csv" --format native-nodes
contains err "--format 'native-nodes' is followed by no file: given more than once, each --format applies to the files after it"
# each for the files after it
expect_rc 0 vf import -o f.db --format native-jobs "$tr/jobs.csv" --format native-nodes "$tr/nodes.csv"
contains out "jobs.csv: native-jobs, 2000 rows read"
contains out "nodes.csv: native-nodes"
expect_rc 2 vf import -o f.db --tz Europe/Paris "$tr/jobs.csv"
contains err "--tz 'Europe/Paris' is not a zone voidfit reads (valid: UTC, Z, +08:00, -0530, +8)"
