#!/bin/sh
# Regenerate the bundled synthetic traces of traces/ with 'voidfit gen'.
# Usage: scripts/make-traces.sh [VOIDFIT [OUTDIR]]
#   VOIDFIT  the binary (default: build/voidfit next to this script's checkout)
#   OUTDIR   where to write (default: traces/ of the checkout); tests write elsewhere and
#            compare, so the bundled files must stay exactly what this script writes.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
vf=${1:-$top/build/voidfit}
out=${2:-$top/traces}
mkdir -p "$out"
gen() { # SCENARIO NODES
	"$vf" gen --scenario "$1" --jobs 2000 --nodes "$2" --seed 1 -o "$out/$1"
}
gen balanced 64
gen irregular 96
gen storage-stress 64
gen hard 64
