# gen-replay: generated traces import with nothing left to enrich, every job is placeable,
# and storage-stress stalls GPUs where balanced does not (the scenarios' documented effect).
. "$VOIDFIT_TOP/tests/lib.sh"

stalled() { # SCENARIO: stalled GPU-hours of scalar on a small trace of it
	vf gen --scenario "$1" -j 600 --nodes 16 --seed 3 -o "$1" || die "gen $1"
	vf import -o "$1.db" "$1/jobs.csv" "$1/nodes.csv" >/dev/null || die "import $1"
	vf replay "$1.db" --policy scalar --no-store >"$1.txt" || die "replay $1"
	contains "$1.txt" "enriched values: jobs: none of 600; nodes: none of 16"
	vf replay "$1.db" --policy scalar --no-store --format csv >"$1.csv" || die "replay csv $1"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		 NR == 2 { if ($col["unplaceable_jobs"] != 0) exit 1; print $col["stalled_gpu_hours"] }' \
		"$1.csv" || die "$1: unplaceable jobs"
}
b=$(stalled balanced)
s=$(stalled storage-stress)
echo "stalled GPU-h: balanced $b, storage-stress $s"
awk -v b="$b" -v s="$s" 'BEGIN { exit !(s > 10 * b + 10) }' ||
	die "storage-stress ($s GPU-h stalled) is not clearly above balanced ($b)"
