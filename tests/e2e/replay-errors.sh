# replay and compare: every usage error exits 2 and every runtime error 1, each with a
# message that names the bad thing.
. "$VOIDFIT_TOP/tests/lib.sh"
vf import -o t.db "$VOIDFIT_TOP/traces/balanced/jobs.csv" \
	"$VOIDFIT_TOP/traces/balanced/nodes.csv" >/dev/null 2>&1 || die "import failed"

expect_rc 2 vf replay
contains err "no STORE given"
contains err "see 'voidfit replay -h'"
expect_rc 2 vf replay t.db
contains err "no --policy given"
expect_rc 2 vf replay t.db --policy fgd,nope
contains err "'nope' is not a policy (valid: "
contains err "ragp7, or all alone)"
expect_rc 2 vf replay t.db --policy fgd --seeds 5-3
contains err "'5-3': the range is empty"
expect_rc 2 vf replay t.db --policy fgd --seeds 1-x
contains err "'1-x': not a seed range"
expect_rc 2 vf replay t.db --policy fgd --seed 1 --seeds 1-2
contains err "not both"
expect_rc 2 vf replay t.db --policy fgd --seed -3
contains err "--seed '-3'"
expect_rc 2 vf replay t.db --policy fgd --fault 'n0001:gpu=0.5@0+1h'
contains err "'n0001:gpu=0.5@0+1h'"
contains err "gpu"
expect_rc 2 vf replay t.db --policy fgd --fault 'n0001:sto=2@0+1h'
contains err "'n0001:sto=2@0+1h'"
expect_rc 2 vf replay t.db --policy fgd --mode nope
contains err "--mode 'nope'"
expect_rc 2 vf replay t.db --policy fgd --target 1.2
contains err "--target applies to --mode inflate only"
expect_rc 2 vf replay t.db --policy fgd --mode inflate --target 0
contains err "--target '0'"
expect_rc 2 vf replay t.db --policy fgd --mode inflate --queue backfill
contains err "--queue applies to --mode timed only"
expect_rc 2 vf replay t.db --policy fgd --queue lifo
contains err "--queue 'lifo'"
expect_rc 2 vf replay t.db --policy fgd --preempt
contains err "--preempt needs --queue priority"
expect_rc 2 vf replay t.db --policy fgd --dims cpu,disk
contains err "--dims 'cpu,disk'"
expect_rc 2 vf replay t.db --policy fgd --gpu-price NOPE=3
contains err "--gpu-price"
expect_rc 2 vf replay t.db --policy fgd --io-pressure -1
contains err "--io-pressure '-1'"
expect_rc 2 vf replay t.db --policy fgd --coverage 1.5
contains err "--coverage '1.5'"
expect_rc 2 vf replay t.db --policy fgd --format xml
contains err "--format 'xml'"
expect_rc 2 vf replay t.db other.db --policy fgd
contains err "one STORE only"

# runtime failures: exit 1
expect_rc 1 vf replay missing.db --policy fgd
contains err "missing.db"
expect_rc 1 vf replay t.db --policy fgd --trace nosuch
contains err "nosuch"
expect_rc 1 vf replay t.db --policy fgd --fault-file nofile.txt
contains err "nofile.txt"
printf 'n0001:sto=0.5@0+1h\nbroken line\n' >faults.txt
expect_rc 1 vf replay t.db --policy fgd --fault-file faults.txt
contains err "faults.txt:2"
expect_rc 1 vf replay t.db --policy fgd --fault 'nowhere:sto=0.5@0+1h'
contains err "nowhere"
expect_rc 1 vf replay t.db --policy fgd --profile noprofile
contains err "noprofile"
printf 'name x\nversion 1\njob bogus net fixed value=1\n' >bad.profile
expect_rc 1 vf replay t.db --policy fgd --profile bad.profile
contains err "bad.profile:"
expect_rc 1 vf replay t.db --policy fgd --cluster nocluster.spec
contains err "nocluster.spec"
printf 'g x A100 8\n' >bad.spec
expect_rc 1 vf replay t.db --policy fgd --cluster bad.spec
contains err "bad.spec:1"
expect_rc 2 vf replay t.db --policy fgd --threads 0
contains err "--threads '0'"
expect_rc 2 vf replay t.db --policy fgd --threads 1.5
contains err "not a whole number"
expect_rc 2 vf replay t.db --policy fgd --sample-nodes -4
contains err "--sample-nodes '-4'"
expect_rc 2 vf replay t.db --policy fgd --sample-nodes 2.5
contains err "--sample-nodes '2.5': not a whole number"
expect_rc 2 vf replay t.db --policy fgd --sample-nodes many
contains err "--sample-nodes 'many'"
echo "not a store" >junk.db
expect_rc 1 vf replay junk.db --policy fgd
contains err "junk.db"

expect_rc 2 vf compare
contains err "no STORE given"
expect_rc 2 vf compare t.db --policies nope
contains err "'nope' is not a policy"
expect_rc 2 vf compare t.db --seeds 3-1
contains err "'3-1'"
expect_rc 2 vf compare t.db --mode sometimes
contains err "--mode 'sometimes'"
expect_rc 2 vf compare t.db --sample-nodes 1.5
contains err "--sample-nodes '1.5': not a whole number"
expect_rc 2 vf compare t.db --target 0
contains err "--target '0': not a number in [0.01, 10]"
expect_rc 1 vf compare missing.db
contains err "missing.db"
expect_rc 1 vf compare t.db --trace nosuch
contains err "nosuch"
