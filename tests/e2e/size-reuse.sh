# size and verdict read the full cluster's runs that a replay stored (the same scenario key,
# policy, seed and voidfit version) instead of replaying them: the same answers, one probe
# fewer per policy; runs of another scenario or seed, of another version or missing a
# figure are not read (a changed one fails the store's check first); a store opened
# read-only works; the verdict runs its baseline on the full cluster once, not once for its
# SLO and again for its search.
. "$VOIDFIT_TOP/tests/lib.sh"
vf import -q -o s.db --name st "$VOIDFIT_TOP/traces/storage-stress"/*.csv >/dev/null 2>&1 ||
	die "import failed"
vf replay s.db --policy first-fit,fgd,scalar --seeds 1-2 >/dev/null 2>&1 || die "replay failed"
chmod a-w s.db # size --no-store and verdict open it read-only
size() { vf size s.db --policy first-fit,fgd --seeds 1-2 --slo 'wait_p95<=6h' --no-store "$@"; }
# counts: the probes and reuse of each policy, in order; the rest: every other field
counts() { grep -E '"(probes|full_runs_reused)"' "$1" | tr -d ' ,\n'; }
rest() { grep -vE '"(probes|full_runs_reused)"' "$1"; }

expect_rc 0 size --json --no-reuse
mv out replayed.json
grep -q 'read from the store' err && die "--no-reuse read runs: $(cat err)"
expect_rc 0 size --json
mv out reused.json
contains err "voidfit size: 4 full-cluster runs read from the store, not replayed: runs 1-2,4-5 (--no-reuse replays them)"
rest replayed.json >a
rest reused.json >b
cmp a b || die "the answers differ when the runs are read: $(diff a b)"
p1=$(grep '"probes"' replayed.json | tr -dc '0-9\n' | sed -n 1p)
p2=$(grep '"probes"' replayed.json | tr -dc '0-9\n' | sed -n 2p)
want="\"probes\":$((p1 - 1))\"full_runs_reused\":2\"probes\":$((p2 - 1))\"full_runs_reused\":2"
[ "$(counts reused.json)" = "$want" ] || die "counts $(counts reused.json), want $want"
[ "$(counts replayed.json)" = "\"probes\":$p1\"full_runs_reused\":0\"probes\":$p2\"full_runs_reused\":0" ] ||
	die "counts without reuse: $(counts replayed.json)"
# the text reads alike: the sizes tried count the full cluster whether run or read
expect_rc 0 size
mv out reused.txt
expect_rc 0 size --no-reuse
cmp out reused.txt || die "the text differs: $(diff out reused.txt)"

# another scenario, another seed: nothing, or only the seeds stored, is read
expect_rc 1 size --io-pressure 2 # its full cluster misses, replayed
grep -q 'read from the store' err && die "another scenario's runs were read: $(cat err)"
expect_rc 0 vf size s.db --policy first-fit,fgd --seeds 1-3 --slo 'wait_p95<=6h' --no-store
grep -q 'read from the store' err && die "runs were read with seed 3 missing: $(cat err)"
expect_rc 0 vf size s.db --policy first-fit --seeds 2 --slo 'wait_p95<=6h' --no-store
contains err "1 full-cluster run read from the store, not replayed: run 4 "

# the verdict: the same answers; its baseline (scalar) is run once on the full cluster, so
# its default SLO costs no probe over the same SLO given (before, one more: its own run)
verdict() { vf verdict s.db -p fgd --no-headroom --seeds 1-2 --threads 2 "$@"; }
expect_rc 0 verdict -f json --no-reuse
mv out v-replayed.json
probes() { grep 'probes (sim events)' err; }
p_default=$(probes)
slo=$(sed -n 's/.*"slo": "\([^"]*\)".*/\1/p' v-replayed.json | head -1)
[ -n "$slo" ] || die "no slo in $(cat v-replayed.json)"
expect_rc 0 verdict -f json --no-reuse --slo "$slo"
[ "$(probes)" = "$p_default" ] || die "the default SLO cost more: $p_default, --slo: $(probes)"
expect_rc 0 verdict -f json
contains err "voidfit verdict: 4 full-cluster runs read from the store, not replayed: runs 2-3,5-6"
rest v-replayed.json >a
rest out >b
cmp a b || die "the verdict differs when the runs are read: $(diff a b)"
[ "$(grep -c '"full_runs_reused": 2' out)" = 2 ] || die "no count of reuse: $(cat out)"
fewer=$(echo "$p_default" | sed 's/.*fewer GPUs \([0-9]*\) .*/\1/')
contains err "fewer GPUs $((fewer - 2)) ("

# a run changed outside voidfit (another version written into it) is not read: the store
# refuses the damaged table before any run is (test-replay.c checks runs of another version
# or missing a figure, as voidfit wrote them)
chmod u+w s.db
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
sqlite3 s.db "UPDATE runs SET voidfit_version = '0.0.0' WHERE id = 1" ||
	die "could not change a run"
expect_rc 1 vf check s.db
expect_rc 1 size
contains err "do not match their checksum"
grep -q 'read from the store' err && die "a changed run was read: $(cat err)"
exit 0
