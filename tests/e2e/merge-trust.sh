# merge trusts no task store: it verifies the task store's seals (a forged row is refused,
# not sealed into the store), the store it merges into holds no row without its checksum
# (that would be sealed as voidfit's), and a trace is known by how its files were imported
# too (the same files through another mapping are another trace). check knows a genuine
# task store.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces/balanced
vf import -q -o t.db "$tr/jobs.csv" "$tr/nodes.csv"
vf replay t.db --policy fgd --mode inflate --target 0.5 --seed 1 --into task.db >/dev/null 2>&1
expect_rc 0 vf check task.db
contains out "ok   task store: of trace 'jobs', finished, 1 runs"
contains out "task.db: no problems"

# a forged metric: refused, and nothing merged
cp task.db forged.db
sqlite3 forged.db "UPDATE run_metrics SET value = value * 10 + 1 WHERE rowid = 3"
cp t.db m.db
expect_rc 1 vf merge m.db forged.db
contains err "forged.db: table run_metrics: 1 of its "
[ "$(sqlite3 m.db 'SELECT count(*) FROM runs')" = 0 ] || die "a forged run was merged"

# a row added to the store without a checksum is not sealed by a merge
cp t.db planted.db
sqlite3 planted.db "INSERT INTO nodes(trace_id, idx, name, grp, ngpu, cpu_milli, mem_mib,
	gpu_milli, hbm_mib, net_mbps, sto_mbps, iocpu_milli, enriched)
	VALUES (1, 999, 'fake', '', 0, 1, 1, 0, 0, 1, 1, 1, 0)"
expect_rc 1 vf merge planted.db task.db
contains err "planted.db: table nodes: 1 of its "
expect_rc 1 vf check planted.db

# the same files imported through another mapping: another trace
for k in a b; do
	{
		echo "name m$k"
		echo "kind jobs"
		echo "arrival arrival"
		[ $k = a ] && echo "duration duration" || echo "duration arrival"
		echo "cpu cpu_milli"
		echo "mem mem_mib"
		echo "num_gpu num_gpu"
		echo "gpu_milli gpu_milli"
	} >m$k.map
	vf import -q -o $k.db --nodes "$tr/nodes.csv" --format generic:m$k.map "$tr/jobs.csv"
done
vf replay b.db --policy fgd --mode inflate --target 0.5 --seed 1 --into tb.db >/dev/null 2>&1
expect_rc 1 vf merge a.db tb.db
contains err "a.db holds these files imported otherwise (another format, mapping or option"
[ "$(sqlite3 a.db 'SELECT count(*) FROM runs')" = 0 ] || die "runs of another import were merged"
expect_rc 0 vf merge b.db tb.db
contains err "merged 1 run from 1 task store into b.db"
expect_rc 0 vf merge m.db task.db
expect_rc 0 vf check m.db
