#!/bin/sh
# make demo: import a bundled trace, replay it under every policy, print the comparison.
# Usage: scripts/demo.sh BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf="$(cd "${1:-build}" && pwd)/voidfit"
trace=${DEMO_TRACE:-$top/traces/storage-stress}
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
db=demo.db
cd "$work"

name=$(basename "$trace")
ln -s "$trace" "$name"
echo "== voidfit import -o demo.db --name $name $name/*.csv"
"$vf" import -o "$db" --name "$name" "$name"/*.csv
echo
echo "== voidfit info demo.db"
"$vf" info "$db"
echo
faults=""
[ -f "$trace/faults.txt" ] && faults="--fault-file $name/faults.txt"
echo "== voidfit replay demo.db --policy all --seed 1 $faults"
# shellcheck disable=SC2086
"$vf" replay "$db" --policy all --seed 1 $faults
echo
echo "== voidfit compare demo.db"
"$vf" compare "$db"
