#!/bin/sh
# make demo: import a bundled trace, replay it under every policy over three seeds, print the
# verdict in $ per year (voidfit verdict), and keep the store and the report in a folder.
# Usage: scripts/demo.sh BUILD_DIR
# DEMO_TRACE (default traces/storage-stress) is the trace folder; DEMO_DIR (default demo/ at
# the top of the checkout) the folder kept, made anew each time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf="$(cd "${1:-build}" && pwd)/voidfit"
trace=${DEMO_TRACE:-$top/traces/storage-stress}
out=${DEMO_DIR:-$top/demo}
name=$(basename "$trace")

rm -rf "$out"
mkdir -p "$out"
cd "$out"
db=demo.db

echo "== voidfit import -o $db --name $name $trace/*.csv"
"$vf" import -o "$db" --name "$name" "$trace"/*.csv
echo
echo "== voidfit info $db"
"$vf" info "$db"
echo
faults=""
[ -f "$trace/faults.txt" ] && faults="--fault-file $trace/faults.txt"
echo "== voidfit replay $db --policy all --seeds 1-3 $faults"
# shellcheck disable=SC2086
"$vf" replay "$db" --policy all --seeds 1-3 $faults
echo
echo "== voidfit compare $db"
"$vf" compare "$db"
echo
echo "== voidfit report $db -o report.html (and report.md, report.txt)"
"$vf" report "$db" -o report.html
"$vf" report "$db" -o report.md
"$vf" report "$db" -o report.txt
echo
# the verdict: fewer GPUs at the baseline's service, and headroom, in $/yr, with the
# interval over 20 resamples of the trace's hours
echo "== voidfit verdict $db --threads 2 --resamples 20 $faults"
# shellcheck disable=SC2086
"$vf" verdict "$db" --threads 2 --resamples 20 $faults
echo
echo "kept in $out: $db (the store), report.html, report.md (+ its SVG charts), report.txt"
