#!/bin/sh
# Run each libFuzzer harness of BUILD (BUILD/fuzz/fuzz-NAME-libfuzzer, made by 'make fuzz')
# for SECONDS on its corpus: the seeds kept in tests/fuzz/corpus/NAME (read only) and what
# earlier runs found, in BUILD/fuzz/corpus-NAME. A crash, leak, timeout or sanitizer report
# fails the run; the input that caused it is saved as BUILD/fuzz/NAME-crash-... (rerun it
# with 'BUILD/fuzz/fuzz-NAME-libfuzzer FILE'), and a copy may go into the seed corpus once
# fixed.
# FUZZ_SEED=N draws the mutations from seed N (CI sets one, so a run explores what the
# last one did first; default 0, a new seed each time).
# Usage: scripts/fuzz.sh BUILD [SECONDS]
set -u
[ $# -ge 1 ] || { echo "usage: scripts/fuzz.sh BUILD [SECONDS]" >&2; exit 2; }
build=$1
secs=${2:-30}
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
for bin in "$build"/fuzz/fuzz-*-libfuzzer; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz-}
	name=${name%-libfuzzer}
	seeds=$top/tests/fuzz/corpus/$name
	found=$build/fuzz/corpus-$name
	log=$build/fuzz/$name.log
	mkdir -p "$found"
	"$bin" -max_total_time="$secs" -seed="${FUZZ_SEED:-0}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$build/fuzz/$name-" "$found" "$seeds" \
		>"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		printf 'ok      fuzz/%s (%s runs in %s s, corpus %s + %s)\n' "$name" "${runs:-?}" \
			"$secs" "$(ls "$seeds" | wc -l)" "$(ls "$found" | wc -l)"
	else
		fail=$((fail + 1))
		printf 'FAILED  fuzz/%s (exit %s; log %s)\n' "$name" "$rc" "$log"
		grep -E 'ERROR|SUMMARY|artifact|Test unit written' "$log" | head -20 | sed 's/^/    /'
	fi
done
[ $((pass + fail)) -gt 0 ] || { echo "fuzz.sh: no harness in $build/fuzz" >&2; exit 1; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
