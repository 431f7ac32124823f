# node failures and checkpoints from the command line: a down fault and drawn failures
# (--node-mtbf) show their buckets in the runs table where a run has some and nowhere else,
# the same seed draws the same failures and another seed others, a shorter checkpoint
# interval loses less work, and options that do not go together are refused.
. "$VOIDFIT_TOP/tests/lib.sh"
vf gen --scenario llm --jobs 3000 --nodes 64 --seed 2 -o g/ >/dev/null
vf import -o t.db g/jobs.csv g/nodes.csv >/dev/null 2>&1 || die "import failed"

# no failure option: no failure column
vf replay t.db --policy first-fit --no-store >plain 2>/dev/null
grep -q 'failures' plain && die "a run without failures shows a failures column"

# a down fault on a group's nodes (every node here)
vf replay t.db --policy first-fit --no-store --fault 'a100-8:down@1d+6h' \
	--format csv >down.csv 2>/dev/null
col() { # col FILE NAME: the value of column NAME of the first row
	awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		NR == 2 { print $c }' "$1"
}
d=$(col down.csv down_gpu_hours)
[ -n "$d" ] && awk -v d="$d" 'BEGIN { exit !(d > 0) }' || die "down_gpu_hours '$d' after a down fault"

# drawn failures: the same seed, the same figures; another seed, others
f="--node-mtbf 20d --node-repair 4h"
vf replay t.db --policy first-fit --no-store $f --checkpoint-every 2h --format csv >a.csv 2>/dev/null
vf replay t.db --policy first-fit --no-store $f --checkpoint-every 2h --format csv >b.csv 2>/dev/null
vf replay t.db --policy first-fit --no-store $f --checkpoint-every 2h --seed 9 --format csv \
	>c.csv 2>/dev/null
cmp -s a.csv b.csv || die "the same seed gave other figures"
[ "$(col a.csv failures_gpu_hours)" != "$(col c.csv failures_gpu_hours)" ] ||
	die "seeds 1 and 9 lost the same work to failures"
# halving the interval: the same failures (their draws do not depend on it), less work lost
vf replay t.db --policy first-fit --no-store $f --checkpoint-every 1h --format csv >h.csv 2>/dev/null
[ "$(col a.csv down_gpu_hours)" = "$(col h.csv down_gpu_hours)" ] ||
	die "the checkpoint interval changed the failures"
awk -v a="$(col a.csv failures_gpu_hours)" -v h="$(col h.csv failures_gpu_hours)" \
	'BEGIN { exit !(h < a && h > 0) }' || die "1 h checkpoints lost no less than 2 h ones"
# the text table shows the columns
vf replay t.db --policy first-fit --no-store $f --checkpoint-every 1h --checkpoint-cost 1m \
	>text 2>/dev/null
contains text "failures"
contains text "checkpoint"

# refused
expect_rc 2 vf replay t.db --policy first-fit --no-store --node-mtbf 1d
contains err "--node-mtbf and --node-repair go together"
expect_rc 2 vf replay t.db --policy first-fit --no-store --checkpoint-cost 1m
contains err "--checkpoint-cost needs --checkpoint-every"
expect_rc 2 vf replay t.db --policy first-fit --no-store --node-mtbf 0 --node-repair 1h
contains err "--node-mtbf '0': not a positive time"
expect_rc 1 vf replay t.db --policy first-fit --no-store --mode inflate --fault 'A100:down@0+1h'
contains err "they are for timed runs"
echo "node failures: down $d GPU-h"
