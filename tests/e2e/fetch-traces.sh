# scripts/fetch-traces.sh, offline: its usage errors, that it refuses a DIR that exists, and
# what --dry-run lists: https URLs, one per file, laid out as the samples are, with sha256
# sums that the samples (where present) have.
. "$VOIDFIT_TOP/tests/lib.sh"
f=$VOIDFIT_TOP/scripts/fetch-traces.sh
expect_rc 2 sh "$f"
contains err "no DIR given"
contains err "usage: scripts/fetch-traces.sh"
expect_rc 2 sh "$f" --nope d
contains err "'--nope': unknown option"
expect_rc 2 sh "$f" a b
mkdir have
touch have/keep
expect_rc 1 sh "$f" have
contains err "'have': exists already"
[ "$(ls have)" = keep ] || die "fetch-traces.sh changed an existing DIR"
expect_rc 0 sh "$f" -h
contains out "Usage: scripts/fetch-traces.sh"

expect_rc 0 sh "$f" --dry-run new
[ ! -e new ] || die "--dry-run created its DIR"
grep -v '^https://[^ ]* -> new/[^ ]*\( (sha256 [0-9a-f]\{64\})\)\{0,1\}$' out && die "bad --dry-run lines"
n=$(wc -l <out)
[ "$n" -ge 12 ] || die "--dry-run lists $n files"
grep -q 'raw.githubusercontent.com/alibaba/clusterdata/[0-9a-f]\{40\}/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv' out ||
	die "no pinned openb pod list"
grep -q 'cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv' out || die "no v2025 DLRM trace"
grep -q 'v2020GPUTraces/pai_machine_spec.tar.gz' out || die "no PAI machine table"
grep -q 'clusterdata-2011-2' out && die "the Google sample without --google"
expect_rc 0 sh "$f" --dry-run --google new
grep -q 'clusterdata-2011-2/task_events/part-00000-of-00500.csv.gz' out || die "no Google task_events"
grep -q 'clusterdata-2011-2/SHA256SUM' out || die "no Google SHA256SUM"

# Each pinned sum is the sample's own, and each sample the tests read is fetched.
[ -n "${VOIDFIT_TRACES:-}" ] || { echo "checked offline; no samples to check the sums on"; exit 0; }
sh "$f" --dry-run new | sed -n 's/^[^ ]* -> new\/\([^ ]*\) (sha256 \([0-9a-f]*\))$/\2 \1/p' >sums
[ -s sums ] || die "no sums"
while read -r sum dest; do
	[ -f "$VOIDFIT_TRACES/$dest" ] || continue
	got=$(sha256sum "$VOIDFIT_TRACES/$dest" | cut -d' ' -f1)
	[ "$got" = "$sum" ] || die "$dest: the sample's sha256 is $got, the script pins $sum"
done <sums
(cd "$VOIDFIT_TRACES" && find clusterdata -type f) | while read -r p; do
	grep -q " new/$p\( \|\$\)" out || die "the sample $p is not fetched"
done
echo "usage, refusal and --dry-run as expected; sums match the samples"
