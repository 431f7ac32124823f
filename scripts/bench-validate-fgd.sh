#!/bin/sh
# The FGD validation's benchmark: the wall time of the whole of scripts/validate-fgd.sh
# (both sets of scripts/fgd-variants.sh, 22 variants; six baselines in k8s scoring and fgd,
# fgd-pack in exact scoring; seeds 42-51) with --threads 2, and the CPU time it took.
# Usage: scripts/bench-validate-fgd.sh BUILD_DIR. Needs the traces ($VOIDFIT_TRACES, default
# ../shared/traces); exits 77 (skipped) without them, as validate-fgd.sh does.
# Environment: FGD_SEEDS and FGD_THREADS as validate-fgd.sh (42-51, 2).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench-fgd.XXXXXX")
trap 'rm -rf "$work"' EXIT
export FGD_THREADS="${FGD_THREADS:-2}"
start=$(date +%s.%N)
set +e
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%U %S' -o "$work/cpu" sh "$top/scripts/validate-fgd.sh" "$build" >"$work/out" 2>"$work/err"
else
	sh "$top/scripts/validate-fgd.sh" "$build" >"$work/out" 2>"$work/err"
fi
rc=$?
set -e
end=$(date +%s.%N)
[ $rc -eq 77 ] && { cat "$work/out"; exit 77; }
[ $rc -eq 0 ] || { cat "$work/err" >&2; echo "bench-validate-fgd: validate-fgd.sh failed (exit $rc)" >&2; exit 1; }
cpu=$( [ -f "$work/cpu" ] && awk '{ printf "%.1f", $1 + $2 }' "$work/cpu" || echo "?")
awk -v s="$start" -v e="$end" -v cpu="$cpu" -v th="$FGD_THREADS" -v n="$(grep -c ' set: ' "$work/out")" \
	'BEGIN { printf "validate-fgd (%d sets, --threads %s): %.1f s wall, %s s CPU\n", n, th, e - s, cpu }'
