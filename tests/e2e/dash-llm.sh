# voidfit dash on an LLM trace with node failures (tmux, 80x24): the metrics panel has rows
# for the failed, down and checkpoint buckets, and keeps jobs queued, running, wait p95 and
# events; a gang's start is one log line naming its workers and their nodes, not a
# placement on its first node.
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
vf gen --scenario llm -o g >/dev/null
vf import -o l.db g/*.csv >/dev/null 2>&1 || die "import failed"

dash_start 80 24 -- l.db --paused --at 50% --node-mtbf 2d --node-repair 2h \
	--checkpoint-every 1h --checkpoint-cost 2m
wait_for "64 nodes"
for row in "failed \$/yr" "down \$/yr" "ckpt \$/yr" "jobs queued" "jobs running" "wait p95" \
	"events "; do
	contains screen "$row"
done
# without failures or checkpoints, no such rows
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
tm kill-server
dash_start 80 24 -- l.db --paused --at 50%
wait_for "64 nodes"
for row in "failed \$/yr" "down \$/yr" "ckpt \$/yr"; do
	if grep -qF "$row" screen; then cat screen >&2; die "'$row' shown for a run without any"; fi
done
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
tm kill-server

# a gang's start: step until the log shows one (the last lines of the screen)
dash_start 120 40 -- l.db --paused
wait_for "64 nodes"
i=0
until grep -q 'place gang job [0-9]* ([a-z]*, [0-9]* workers x [0-9.]* GPU) on n' screen; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat screen >&2; die "no gang's start in the log after 100 events"; }
	tm send-keys .
	sleep 0.05
	screen
done
line=$(grep -o 'place gang job .*' screen | head -1)
w=$(echo "$line" | sed 's/.*, \([0-9]*\) workers.*/\1/')
names=$(echo "$line" | sed 's/.* on //' | wc -w)
[ "$names" -ge 2 ] || die "the gang's line names one node: $line"
[ "$w" -gt 1 ] || die "not a gang: $line"
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
