# README.md's "Your own cluster" runs as written: its sh blocks, in order, with sacct,
# scontrol and kubectl standing for a cluster's (they print the samples of tests/data, as
# the real ones would print a cluster's records), then a few results are checked.
. "$VOIDFIT_TOP/tests/lib.sh"
d=$VOIDFIT_TOP/tests/data
awk '/^## / { on = /^## Your own cluster/ } on && /^```sh$/ { code = 1; next }
	code && /^```$/ { code = 0; next } on && code { print }' "$VOIDFIT_TOP/README.md" >own.sh
[ -s own.sh ] || die "no sh block under '## Your own cluster' in README.md"
grep -q 'voidfit report' own.sh || die "the section writes no report"
mkdir bin
ln -s "$VOIDFIT" bin/voidfit
cat >fake.sh <<T
sacct() { cat "$d/slurm-sacct.txt"; }
scontrol() { cat "$d/slurm-nodes.txt"; }
kubectl() { case \$2 in pods) cat "$d/k8s-pods.json" ;; nodes) cat "$d/k8s-nodes.json" ;; esac; }
T
cat fake.sh own.sh >run.sh
PATH=$PWD/bin:/usr/bin:/bin sh -eu run.sh >log 2>&1 || { tail -30 log >&2; die "the section failed (log above)"; }
contains log "trace 'march' (id 1) in mine.db"
contains log "trace 'k8s' (id 2) in mine.db"
grep -q '^fgd ' log || die "no fgd row in the comparison"
ls ./*.html >/dev/null 2>&1 || die "no report written"
