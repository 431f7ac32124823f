# import-kill.sh — SIGKILL in the middle of an import leaves the store exactly as it was:
# same bytes once SQLite has rolled back its journal, same contents, a clean check.
. "$VOIDFIT_TOP/tests/lib.sh"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,2,T4\n' > nodes.csv
vf import -q -o k.db nodes.csv
vf info k.db > info.before
sha256sum < k.db > sum.before
awk 'BEGIN { print "job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec"
	for (i = 0; i < 200000; i++)
		printf "j%d,%d,%d,train,%d,%d,1,%d,,,,,\n", i, i * 3, i % 86400, 1000 * (1 + i % 16),
			1024 * (1 + i % 64), 100 * (1 + i % 10) }' > big.csv
# big.csv is imported inside the transaction, then the import waits on a stdin that never
# ends: it is killed in the middle, whatever the machine's speed.
mkfifo never
sleep 300 > never &
sleeper=$!
"$VOIDFIT" import -q -o k.db big.csv - < never &
pid=$!
i=0
while [ ! -s k.db-journal ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s k.db-journal ] || die "the import never started its transaction"
sleep 1
kill -9 $pid
set +e; wait $pid; rc=$?; set -e
kill $sleeper
[ $rc -eq 137 ] || die "the import ended by itself (exit $rc) instead of being killed"
vf info k.db > info.after
cmp info.before info.after || die "the store's contents changed"
sha256sum < k.db > sum.after
cmp sum.before sum.after || die "the store's bytes changed"
expect_rc 0 vf check k.db
# and the store takes the same import afterwards
expect_rc 0 vf import -o k.db big.csv
contains out "200000 rows read = 200000 accepted + 0 quarantined"

# a new store: the killed import leaves its temporary file (SIGKILL gives no chance to
# clean up), never at the store's path; the next import of that store removes it and says
# so, but not one of a live process, nor one of another host
"$VOIDFIT" import -q -o new.db big.csv - < never &
pid=$!
sleep 300 > never &
sleeper=$!
i=0
while [ -z "$(ls -A | grep '^\.new\.db\..*\.tmp$' || true)" ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 1
kill -9 $pid
set +e; wait $pid; set -e
kill $sleeper
[ ! -e new.db ] || die "a killed import left a store at its path"
left=$(ls -A | grep '^\.new\.db\..*\.tmp$') || die "no temporary file to clean up"
swept="1 temporary file that"
[ -e "$left-journal" ] && swept="2 temporary files that" # and its journal
host=$(hostname)
sleep 300 &
live=$!
: > ".new.db.$host.$live-0.tmp"
: > ".new.db.otherhost.$pid-0.tmp"
expect_rc 0 vf import -o new.db nodes.csv
kill $live
contains err "removed $swept a killed import of new.db left in its folder"
[ ! -e "$left" ] || die "the killed import's temporary file is still there"
[ ! -e "$left-journal" ] || die "the killed import's journal is still there"
[ -e ".new.db.$host.$live-0.tmp" ] || die "a live import's temporary file was removed"
[ -e ".new.db.otherhost.$pid-0.tmp" ] || die "another host's temporary file was removed"
