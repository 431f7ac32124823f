# voidfit dash at its minimum size, 80x24 (tmux): the key bar keeps '? help' and 'q quit',
# the metrics keep queue, running, wait p95 and events with their units, node rows are not
# garbled with one what-if nor with four lanes (the columns give way, never overlap), the
# help scrolls to its end, a node's detail has units, a fourth what-if is refused, and zooming out after scrolling
# keeps the panel full (Home and End jump); names longer than their column are cut in the
# middle, so that neighbours stay told apart ('gpu-cluster-node-0007' was 'gpu-cluster-'
# on every row).
. "$VOIDFIT_TOP/tests/lib.sh"
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
dash_store
# rows_ok: every cluster row starts with a node or a range name, then a space: nothing
# drawn over the name (was 'n0010..n0014x5100')
rows_ok() {
	sed -n '3,18p' screen | grep '^n[0-9]' >rows || die "no node rows: $(cat screen)"
	if grep -v '^n[0-9]\{4\}\(\.\.n[0-9]\{4\}\)\{0,1\}  *[^ ]' rows; then
		die "garbled node rows ($1)"
	fi
}
keybar_ok() {
	tail -1 screen | grep -q '? help q quit *$' || die "the key bar lost help or quit ($1): $(tail -1 screen)"
}
dash_start 80 24 -- t.db --paused --policy first-fit --at 40%
wait_for "64 nodes"
keybar_ok "no what-if"
for m in "jobs queued" "jobs running" "wait p95" "events" "GPUs used/" "placement \$/yr"; do
	contains screen "$m"
done
grep -q '^n[0-9]\{4\}\(\.\.n[0-9]\{4\}\)\{0,1\} *\(A100\|T4\|cpu\) ' screen || die "no model column at 80 columns"
rows_ok "no what-if"

# the help scrolls to its last line and back
keys ?
wait_for "help, lines 1-"
keys End
wait_for "cancels it."
keys Home
wait_for "play or pause"
keys Escape
wait_gone "help, lines"

# a node's detail at 80x24: units, GPUs by index, jobs by class, its share of the frag
keys / n0009 Enter
wait_for "1 nodes /n0009"
keys Enter
wait_for "node n0009"
grep -q 'cpu  *128 cores' screen || die "no cpu in cores: $(grep '^ *| cpu' screen)"
contains screen "GPUs used  0:"
grep -q 'jobs [0-9]*: infer [0-9]*, train [0-9]*, batch [0-9]*, cpu [0-9]*' screen || die "no jobs by class"
grep -q "% of the cluster's" screen || die "no share of the fragmentation"
if grep -q '0x[0-9a-f]' screen; then die "GPUs as a hex mask"; fi
keys Escape
keys / C-u Enter
wait_for "64 nodes"

# one what-if: the metrics show both lanes and the difference; rows still clean
keys p Down Enter
wait_for "vs policy"
grep -q "metrics  *main  *what-if  *diff" screen || die "no lane columns"
rows_ok "one what-if"
keybar_ok "one what-if"
contains screen "wait p95"

# four lanes: three what-ifs, a fourth refused
keys p Down Down Enter
wait_for "w2-main"
keys p Down Down Down Enter
wait_for "w3 policy"
contains screen "w3-main"
rows_ok "four lanes"
keybar_ok "four lanes"
keys p Down Enter
wait_for "3 what-ifs already: drop one first"
# Tab moves the focus; x drops the focused what-if
keys Tab
wait_for "events of main"
keys Tab
wait_for "events of w1"
keys x
wait_gone "w3-main"
contains screen "w2-main"

# zoom in to a node a row, End, zoom out: the panel stays full, Home goes back
keys + + + +
keys End
wait_for "n0037"
keys -
screen
[ "$(sed -n '3,18p' screen | grep -c '^n[0-9]')" -ge 14 ] ||
	{ cat screen >&2; die "zooming out after scrolling left the panel nearly empty"; }
keys Home
screen
sed -n 3p screen | grep -q '^n0058' || die "Home did not go to the first row: $(sed -n 3p screen)"
keys q
wait_for "not stored"
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
tm kill-server

# long names: each row keeps its name's end
mkdir long
sed '2,$s/^n/gpu-cluster-node-/' "$VOIDFIT_TOP/traces/storage-stress/nodes.csv" >long/nodes.csv
cp "$VOIDFIT_TOP/traces/storage-stress/jobs.csv" long/
vf import -o long.db long/nodes.csv long/jobs.csv >/dev/null 2>&1 || die "import of long names failed"
dash_start 80 24 -- long.db --paused
wait_for "64 nodes"
sed -n '3,18p' screen | cut -c1-12 >names
[ "$(sort -u names | wc -l)" -eq "$(wc -l <names)" ] ||
	die "rows with the same name shown: $(sort names | uniq -d | head -3)"
grep -q '^gpu-c~e-00[0-9][0-9]$' names || die "long names not cut in the middle: $(head -3 names)"
keys q
[ "$(wait_rc)" = 0 ] || die "q exited $(cat rc)"
