# import-bad-rows.sh — rows that cannot be parsed or make no sense go to quarantine with
# file, line, reason and raw text; the import goes on and exits 0; --strict fails instead
# and leaves the store unchanged.
. "$VOIDFIT_TOP/tests/lib.sh"
h=name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
{
	echo "$h"
	echo "p0,1000,2048,1,500,,LS,Running,10,100,20"
	echo "p1,1000,2048,1,500,,LS,Running,10,100"
	echo "p2,abc,2048,1,500,,LS,Running,10,100,20"
	echo "p3,1000,-5,0,0,,BE,Running,10,100,20"
	echo "p4,1000,2048,0,0,,BE,Running,10,15,20"
	echo "p5,1000,2048,1,1000,,BE,Pending,30,40,"
	echo "p6,1,2,1,500,\"x\"y,LS,Running,1,2,1"
	echo "p7,1000,2048,2,500,,LS,Running,10,100,20"
	echo "p8,1000,2048,1,1000,T4||A10,LS,Running,10,100,20"
} > pods.csv
expect_rc 0 vf import -o q.db pods.csv
contains out "pods.csv: openb-pods, 9 rows read, 2 accepted, 7 quarantined"
contains out "9 rows read = 2 accepted + 7 quarantined; 2 jobs"
contains err "pods.csv:3: 10 columns, expected 11"
contains err "pods.csv:4: column 'cpu_milli': 'abc' is not a number"
contains err "pods.csv:5: column 'memory_mib': negative value -5"
contains err "pods.csv:6: deletion_time 15 before scheduled_time 20"
contains err "pods.csv:8: malformed quoting"
contains err "pods.csv:9: 2 GPUs at share 500: a multi-GPU job takes whole GPUs"
contains err "pods.csv:10: gpu spec 'T4||A10': '' is not a GPU model name"
# the quarantine table keeps file, line, reason and the raw text
sqlite3 q.db "SELECT f.name, q.line, q.raw FROM quarantine q JOIN files f ON f.id = q.file_id
	WHERE q.line = 4" > qrow
[ "$(cat qrow)" = "pods.csv|4|p2,abc,2048,1,500,,LS,Running,10,100,20" ] || die "quarantine row: $(cat qrow)"
[ "$(sqlite3 q.db 'SELECT count(*) FROM quarantine')" = 7 ] || die "quarantine count"
# the never-scheduled pod is kept, flagged as never run (empty duration)
vf export --jobs q.db > jobs.csv
contains jobs.csv "1,30,,batch,1000,2048,1,1000,"

# --strict: the first bad row fails the import and the store is as it was
vf info q.db > before
cp pods.csv pods2.csv
echo "p9,1,1,0,0,,BE,Running,1,2,1" >> pods2.csv
expect_rc 1 vf import --strict -o q.db pods2.csv
contains err "pods2.csv:3: 10 columns, expected 11 (--strict: nothing imported)"
vf info q.db > after
cmp before after || die "--strict changed the store"
# ... and a store that --strict would have created is not left behind
expect_rc 1 vf import --strict -o new.db pods2.csv
contains err "nothing imported; new.db was not created"
[ ! -e new.db ] || die "--strict left an empty new.db"
