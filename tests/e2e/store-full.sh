# store-full.sh — a full disk and a read-only file system, on small tmpfs mounts: the
# error names the cause; a failed new import or export leaves nothing (no store, no
# journal, no temporary file, no truncated file); replay on a store it cannot write fails before computing anything;
# readers still read.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
mkdir full ro
mount -t tmpfs -o size=64k tmpfs full 2>/dev/null || skip "cannot mount a tmpfs (needs root)"
trap 'rc=$?; umount full 2>/dev/null || :; umount ro 2>/dev/null || :; exit $rc' EXIT
# 20,000 jobs of seeded random sizes: some 200 KB of store, more than the disk holds.
awk 'BEGIN { srand(7); print "job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec"
	for (i = 0; i < 20000; i++)
		printf "j%d,%d,%d,train,%d,%d,1,%d,,,,,\n", i, i * 3, int(rand() * 86400),
			int(rand() * 64000), int(rand() * 262144), 100 * (1 + int(rand() * 10)) }' > big.csv

# A new store on a full disk.
expect_rc 1 vf import -o full/t.db big.csv "$tr/nodes.csv"
contains err "full/t.db"
contains err "the disk is full"
contains err "full/t.db was not created"
[ -z "$(ls -A full)" ] || die "left on the full disk: $(ls -A full)"

# An export that does not fit: no truncated file.
vf import -q -o big.db big.csv
expect_rc 1 vf export --jobs -o full/jobs.csv big.db
contains err "full/jobs.csv: No space left on device"
[ -z "$(ls -A full)" ] || die "left on the full disk: $(ls -A full)"
expect_rc 1 vf export --raw -d full/raw big.db
contains err "full/raw/big.csv"
[ -z "$(ls -A full/raw)" ] || die "left on the full disk: $(ls -A full/raw)"

# A store on a read-only file system.
mount -t tmpfs -o size=4m tmpfs ro
vf import -q -o ro/t.db "$tr/jobs.csv" "$tr/nodes.csv"
mount -o remount,ro ro
sum=$(sha256sum < ro/t.db)
expect_rc 1 vf import -o ro/t.db "$VOIDFIT_TOP/traces/hard/jobs.csv"
contains err "ro/t.db: the file cannot be written: Read-only file system"
expect_rc 1 vf replay ro/t.db --policy first-fit
contains err "ro/t.db"
contains err "Read-only file system"
[ ! -s out ] || die "replay computed runs it could not store"
expect_rc 0 vf replay ro/t.db --policy first-fit --no-store
expect_rc 0 vf info ro/t.db
expect_rc 0 vf check ro/t.db
expect_rc 1 vf import -o ro/new.db "$tr/nodes.csv"
contains err "ro/new.db: cannot make a new store in its folder: Read-only file system"
[ "$(sha256sum < ro/t.db)" = "$sum" ] || die "ro/t.db changed"
