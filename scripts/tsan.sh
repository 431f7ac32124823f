#!/bin/sh
# The threaded commands under ThreadSanitizer (CI): replay's grid (several policies and
# seeds, stored and not, timed and inflation, k8s scoring), size on four threads with
# --scoring k8s and without, compare running every policy itself, and the verdict's
# resamples sharing the pool, on a small generated trace. Any report fails the script.
# Takes a build made with SANITIZE=thread, e.g.
#   make BUILD=build-tsan SANITIZE=thread OPT="-O1 -g" && scripts/tsan.sh build-tsan
#
# Usage: scripts/tsan.sh BUILD_DIR
set -eu
vf="$(cd "${1:?usage: scripts/tsan.sh BUILD_DIR}" && pwd)/voidfit"
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-tsan.XXXXXX")
trap 'rm -rf "$work"' EXIT
# a report exits 66 at once, and also leaves its text on stderr
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
fail=0

# run NAME CMD...: run CMD; a non-zero exit or a ThreadSanitizer report fails the script.
run() {
	name=$1
	shift
	st=0
	"$@" >"$work/out" 2>"$work/err" || st=$?
	if [ "$st" != 0 ] || grep -q ThreadSanitizer "$work/err"; then
		echo "tsan: $name: exit $st" >&2
		sed -n '1,60p' "$work/err" >&2
		fail=1
	else
		echo "tsan: $name: ok"
	fi
}

"$vf" gen --scenario balanced --jobs 3000 --nodes 60 --seed 1 -o "$work/g" >/dev/null
"$vf" import -o "$work/t.db" "$work/g/jobs.csv" "$work/g/nodes.csv" >/dev/null
cp "$work/t.db" "$work/fresh.db"
run "replay, stored" "$vf" replay "$work/t.db" --policy first-fit,fgd,ragp7,random --seeds 1-3 \
	--threads 2
run "replay, one policy over seeds" "$vf" replay "$work/t.db" --policy first-fit --seeds 1-6 \
	--threads 2 --no-store
run "replay, k8s inflation" "$vf" replay "$work/t.db" --policy fgd,first-fit,packing \
	--seeds 1-2 --mode inflate --target 1.2 --scoring k8s --threads 2 --no-store
run "size, k8s" "$vf" size "$work/t.db" --policy fgd,first-fit --slo 'wait_p95<=3h' --scoring k8s \
	--threads 4 --no-store
run "size, seeds" "$vf" size "$work/t.db" --policy first-fit --slo 'wait_p95<=3h' --seeds 1-2 \
	--threads 4 --no-store
run "compare, running every policy" "$vf" compare "$work/fresh.db"
run "verdict, resamples on the pool" "$vf" verdict "$work/t.db" --policy packing --no-headroom \
	--resamples 3 --threads 4
exit $fail
