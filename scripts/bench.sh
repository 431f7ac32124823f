#!/bin/sh
# make bench: every benchmark, each printing its figures as ratios against a reference run
# made in the same script. Usage: scripts/bench.sh BUILD_DIR
set -eu
dir=$(dirname "$0")
for b in "$dir"/bench-*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	sh "$b" "$1"
	echo
done
