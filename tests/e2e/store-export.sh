# export: --raw gives back every imported file byte for byte (the bundled trace and every
# real sample), refuses to overwrite without --force; --jobs and --nodes write the native
# formats, which read back to the same rows; usage errors exit 2.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
vf import -o t.db "$tr/jobs.csv" "$tr/nodes.csv" >/dev/null 2>&1 || die "import failed"

expect_rc 0 vf export --raw -d raw t.db
cmp raw/jobs.csv "$tr/jobs.csv" || die "jobs.csv differs after export --raw"
cmp raw/nodes.csv "$tr/nodes.csv" || die "nodes.csv differs after export --raw"
expect_rc 1 vf export --raw -d raw t.db
contains err "raw/jobs.csv"
contains err "--force"
expect_rc 0 vf export --raw --force -d raw --trace jobs t.db
cmp raw/jobs.csv "$tr/jobs.csv" || die "jobs.csv differs after export --raw --force"

# Native jobs: the header, one row per job, and the same rows as the native input (which is
# in arrival order) apart from the job column (ids here, names there).
expect_rc 0 vf export --jobs t.db -o jobs.csv
head -1 jobs.csv | grep -qx 'job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec' ||
	die "bad jobs header: $(head -1 jobs.csv)"
[ "$(wc -l < jobs.csv)" -eq "$(wc -l < "$tr/jobs.csv")" ] || die "job count differs"
cut -d, -f2- "$tr/jobs.csv" > want
cut -d, -f2- jobs.csv > got
cmp want got || { diff want got | head -5 >&2; die "exported jobs differ from the input"; }
expect_rc 1 vf export --jobs t.db -o jobs.csv
expect_rc 0 vf export --jobs t.db
cmp out jobs.csv || die "stdout and -o differ"

expect_rc 0 vf export --nodes t.db -o nodes.csv
cmp nodes.csv "$tr/nodes.csv" || { diff "$tr/nodes.csv" nodes.csv | head -5 >&2; die "nodes differ"; }

# Usage errors.
expect_rc 2 vf export t.db
expect_rc 2 vf export --raw t.db
expect_rc 2 vf export --jobs --nodes t.db
expect_rc 2 vf export --jobs -d x t.db
expect_rc 2 vf export --jobs
expect_rc 1 vf export --jobs --trace no-such-trace t.db
contains err "no-such-trace"
expect_rc 1 vf export --jobs missing.db

# Every real sample, byte for byte.
need_traces
n=0
for f in $(find "$VOIDFIT_TRACES" -name '*.csv' | sort); do
	rm -f s.db
	vf import -o s.db "$f" >/dev/null 2>&1 || continue
	rm -rf d
	expect_rc 0 vf export --raw -d d s.db
	cmp "d/$(basename "$f")" "$f" || die "$f differs after export --raw"
	n=$((n + 1))
done
[ "$n" -ge 3 ] || die "only $n samples imported"
