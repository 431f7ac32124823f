# replay within bounds: a run whose simulated time far outlasts the trace (a fault that never
# ends, the largest --io-pressure) finishes in seconds in bounded memory; every file option
# has a size limit and every read error is an error; --io-pressure past its limit is a usage
# error; a trace with no jobs or no nodes is refused, saying what to give.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/storage-stress/jobs.csv" "$tr/storage-stress/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"

# ---- memory: the time series keeps sampling until the last job ends, 100000 days here (the
# storage of every A100 node gone) or a million times each job's I/O time. 1 GB of address
# space is ten times what the runs need; before the series was bounded they asked for more.
# A sanitizer build reserves terabytes of shadow memory and cannot start under the limit.
if (ulimit -v 1000000 && "$VOIDFIT" --version) >/dev/null 2>&1; then
	for a in "--fault A100:sto=0@0+100000d" "--io-pressure 1e6"; do
		# shellcheck disable=SC2086 # $a is two words
		(ulimit -v 1000000 && exec timeout 60 "$VOIDFIT" replay t.db --policy fgd,ragp7 $a \
			>out 2>err) || { cat err >&2; die "replay $a under ulimit -v 1000000 failed"; }
		grep -q '^ragp7 ' out || die "replay $a printed no ragp7 row"
	done
	ulimit_ok=1
else
	ulimit_ok=0
fi

# ---- --io-pressure: 1e6 at most (beyond, demands overflow); 1e6 runs on every bundled trace
expect_rc 2 vf replay t.db --policy fgd --io-pressure 1e18
contains err "--io-pressure '1e18': not a number in [0, 1000000]"
expect_rc 2 vf replay t.db --policy fgd --io-pressure 1000001
contains err "--io-pressure '1000001'"
for s in balanced irregular storage-stress hard; do
	vf import -o "$s.db" "$tr/$s/jobs.csv" "$tr/$s/nodes.csv" >/dev/null 2>&1 || die "import $s"
	expect_rc 0 vf replay "$s.db" --policy all --no-store --io-pressure 1e6 --format csv
	# no figure wrapped negative (an int64 overflow) and none is missing
	if cut -d, -f5- out | grep -q -- '-[0-9]'; then die "$s: a negative figure"; fi
	np=$(vf policies --json | grep -o '"name"' | wc -l)
	[ "$(wc -l <out)" -eq $((np + 1)) ] || die "$s: want $np rows, one per policy"
done

# ---- file options: a size limit, and a read error is an error (never an empty file)
mkdir adir
for o in --cluster --fault-file --profile; do
	expect_rc 1 vf replay t.db --policy fgd --no-store $o /dev/zero
	contains err "/dev/zero: larger than"
	expect_rc 1 vf replay t.db --policy fgd --no-store $o adir
	contains err "adir: Is a directory"
	# reading /proc/self/mem from its start fails (EIO) even as root
	expect_rc 1 vf replay t.db --policy fgd --no-store $o /proc/self/mem
	contains err "/proc/self/mem: Input/output error"
done
# under a memory cap the fault file's limit holds before memory runs out, and no failure
# passes for the end of the file
if [ "$ulimit_ok" = 1 ]; then
	set +e
	(ulimit -v 1000000 && exec "$VOIDFIT" replay t.db --policy fgd --no-store \
		--fault-file /dev/zero) >out 2>err
	rc=$?
	set -e
	[ "$rc" -eq 1 ] || die "--fault-file /dev/zero under ulimit -v exited $rc"
	contains err "/dev/zero: larger than"
fi
# a file that cannot be opened: permissions stop everyone but root
printf 'n0001:sto=0.5@0+1h\n' >locked.txt
chmod 000 locked.txt
if [ "$(id -u)" -ne 0 ]; then
	expect_rc 1 vf replay t.db --policy fgd --no-store --fault-file locked.txt
	contains err "locked.txt: Permission denied"
fi

# ---- a trace with no jobs, or no nodes
vf import -o nodes.db "$tr/balanced/nodes.csv" >/dev/null 2>&1 || die "import nodes"
expect_rc 1 vf replay nodes.db --policy fgd
contains err "trace 'nodes' has no jobs: import a job or pod list"
vf import -o jobs.db "$tr/balanced/jobs.csv" >/dev/null 2>&1 || die "import jobs"
expect_rc 1 vf replay jobs.db --policy fgd
contains err "trace 'jobs' has no nodes: give a cluster with --cluster FILE"
# nothing was stored
[ "$(sqlite3 jobs.db 'select count(*) from runs')" -eq 0 ] || die "a refused replay stored runs"
# the cluster is what it needed
expect_rc 0 vf replay jobs.db --policy fgd --cluster "$tr/cluster-example.spec"
contains out "fgd"

[ "$ulimit_ok" = 1 ] || echo "note: memory limits not tested (the binary cannot start under ulimit -v)"
