# replay and compare on the bundled 'balanced' trace: the table, JSON, seeds and their mean,
# runs stored and read back by compare, --no-store, inflation, faults, a cluster spec,
# enrichment notes, and no progress bar when stderr is not a terminal.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"

# a timed run: table header with units, one row per policy, stored
expect_rc 0 vf replay t.db --policy first-fit,fgd --seed 3
contains out "policy"
contains out "GPU-h"
contains out '$/yr'
[ "$(grep -c '^first-fit  *3 ' out)" -eq 1 ] || die "no first-fit row"
[ "$(grep -c '^fgd  *3 ' out)" -eq 1 ] || die "no fgd row"
contains out "enriched values:"
contains err "stored 2 runs in t.db"
if grep -q "$(printf '\r')" err; then die "progress bar on a non-terminal stderr"; fi

# JSON: one object per run with the promised keys; numbers are numbers
expect_rc 0 vf replay t.db --policy scalar,fgd --seeds 1-2 --json --no-store
for k in policy seed mode mean_fragmentation stalled_gpu_hours productive_gpu_hours \
	lost_gpu_hours idle_blocked_gpu_hours idle_full_gpu_hours idle_unneeded_gpu_hours \
	provisioned_gpu_hours carried_over_gpu_hours recoverable_by_placement_usd_per_year \
	recoverable_by_sizing_usd_per_year; do
	contains out "\"$k\":"
done
if grep -q '"unallocated_gpu_share"' out; then die "timed JSON has an inflation figure"; fi
[ "$(grep -c '"aggregate": true' out)" -eq 2 ] || die "want 2 mean rows"
contains out '"seed": 2,'
contains out '"seed": "mean",'
contains out '"mode": "timed"'
if command -v jq >/dev/null 2>&1; then
	[ "$(jq '.rows | length' out)" -eq 6 ] || die "want 6 rows"
	jq -e '[.rows[] | select(.aggregate | not) | .productive_gpu_hours > 0 and
		((.provisioned_gpu_hours - .productive_gpu_hours - .stalled_gpu_hours -
		  .lost_gpu_hours - .idle_blocked_gpu_hours - .idle_full_gpu_hours -
		  .idle_unneeded_gpu_hours) | fabs) < 1e-6] | all' out >/dev/null ||
		die "GPU-hour buckets do not add up to provisioned"
	# one window for the scenario: every policy and seed is priced over the same hours
	jq -e '[.rows[].provisioned_gpu_hours] | unique | length == 1' out >/dev/null ||
		die "policies of one scenario provisioned differently"
	# the mean row is the mean of the two seeds
	jq -e '((.rows[0].stalled_gpu_hours + .rows[1].stalled_gpu_hours) / 2 -
		.rows[4].stalled_gpu_hours | fabs) < 1e-9' out >/dev/null || die "mean row is not the mean"
fi

# text with seeds: rows, a rule, then the means
expect_rc 0 vf replay t.db --policy scalar,fgd --seeds 1-2 --no-store
[ "$(grep -cE '^[a-z0-9-]+ +mean ' out)" -eq 2 ] || die "want 2 mean rows"
grep -q '^-----' out || die "no rule above the means"
if grep -q stored err; then die "--no-store stored runs"; fi

# compare reads the stored runs (first-fit and fgd at seed 3): best marked, saving column
expect_rc 0 vf compare t.db
contains out "saving vs scalar"
contains out "* best in its column"
contains out "no scalar run"
contains err "2 runs"
contains err "scenario 1 of trace"
grep -q '^first-fit ' out || die "compare lacks first-fit"
# with scalar stored, savings against it
expect_rc 0 vf replay t.db --policy scalar --seed 3
expect_rc 0 vf compare t.db --json
contains out '"saving_usd_per_year": 0'
contains out '"best": ['

# inflation: unallocated share in [0, 1], load reaches the target
expect_rc 0 vf replay t.db --policy packing --mode inflate --target 1.1 --seed 1 --format csv \
	--no-store
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ u = $(c["unallocated_gpu_share"]); l = $(c["arrived_load"])
	  if (u < 0 || u > 1 || l < 1.1) exit 1 }' out || die "bad inflation figures: $(cat out)"

# faults (hard scenario) change the outcome; a cluster spec replaces the nodes
vf import -o h.db "$tr/hard/jobs.csv" "$tr/hard/nodes.csv" >/dev/null 2>&1
expect_rc 0 vf replay h.db --policy first-fit --seed 1 --no-store --format csv
cp out nofault.csv
expect_rc 0 vf replay h.db --policy first-fit --seed 1 --no-store --format csv \
	--fault-file "$tr/hard/faults.txt"
cmp -s out nofault.csv && die "faults changed nothing"
expect_rc 0 vf replay t.db --policy first-fit --seed 1 --no-store --format csv \
	--cluster "$tr/cluster-example.spec"
cmp -s out nofault.csv && die "cluster spec changed nothing"
expect_rc 0 vf replay t.db --policy first-fit --seed 1 --no-store \
	--cluster "$tr/cluster-example.spec"
contains out "nodes: net 48/104"

# io pressure: more storage demand, not less stall
expect_rc 0 vf replay t.db --policy first-fit --seed 1 --no-store --json
s1=$(grep '"stalled_gpu_hours"' out | head -1 | tr -dc '0-9.')
expect_rc 0 vf replay t.db --policy first-fit --seed 1 --no-store --json --io-pressure 4
s4=$(grep '"stalled_gpu_hours"' out | head -1 | tr -dc '0-9.')
awk -v a="$s1" -v b="$s4" 'BEGIN { exit !(b > a) }' || die "io pressure 4: stalled $s4 <= $s1"

# --sample-nodes: the run says so under the table and in its stored parameters, repeats
# itself, and changes choices; a sample as large as the cluster changes nothing
expect_rc 0 vf replay t.db --policy ragp7,tetris --seed 2 --sample-nodes 3
contains out "at most 3 feasible nodes"
contains err "stored 2 runs"
[ "$(sqlite3 t.db "SELECT count(*) FROM runs r JOIN scenarios s ON s.id = r.scenario_id
	WHERE s.sample_nodes = 3")" = 2 ] || die "sample_nodes not in the stored scenario"
expect_rc 0 vf compare t.db
contains out "at most 3 feasible nodes" # the newest runs are the sampled ones
expect_rc 0 vf compare t.db --seed 3
if grep -q "feasible nodes" out; then die "compare of full searches says sampled"; fi
expect_rc 0 vf compare t.db --mode timed --sample-nodes 0 --format csv # full: seed 3's
if grep -q "feasible nodes" out; then die "compare --sample-nodes 0 says sampled"; fi
[ "$(grep -c '^first-fit,3,\|^fgd,3,\|^scalar,3,' out)" -eq 3 ] ||
	die "compare --sample-nodes 0: want the 3 full runs of seed 3"
expect_rc 0 vf compare t.db --sample-nodes 3 --format csv
[ "$(grep -c '^ragp7,2,\|^tetris,2,' out)" -eq 2 ] || die "compare --sample-nodes 3: want the 2 sampled runs"
vf import -o fresh.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1
expect_rc 0 vf compare fresh.db --policies tetris,ragp7 --sample-nodes 3
contains err "running 2 policies"
contains out "at most 3 feasible nodes"
# ... and its runs are sampled: the same fragmentation as replay's sampled run
frag() { awk -F, '$1 == "tetris" { print $5 }' out; }
expect_rc 0 vf compare fresh.db --policies tetris --sample-nodes 3 --format csv
c=$(frag)
expect_rc 0 vf replay fresh.db --policy tetris --sample-nodes 3 --no-store --format csv
[ "$(frag)" = "$c" ] || die "compare --sample-nodes 3: frag $c, replay's $(frag)"
expect_rc 0 vf replay fresh.db --policy tetris --no-store --format csv
[ "$(frag)" != "$c" ] || die "compare --sample-nodes 3 ran the full search"
expect_rc 0 vf replay t.db --policy ragp7,tetris --seed 2 --sample-nodes 3 --no-store --format csv
cp out s3.csv
expect_rc 0 vf replay t.db --policy ragp7,tetris --seed 2 --sample-nodes 3 --no-store --format csv
cmp -s out s3.csv || die "--sample-nodes 3 did not repeat itself"
expect_rc 0 vf replay t.db --policy ragp7,tetris --seed 2 --no-store --format csv
cp out full.csv
cmp -s out s3.csv && die "--sample-nodes 3 changed nothing"
nn=$(vf info t.db | awk '$1 == "nodes" { print $2 + 0; exit }')
expect_rc 0 vf replay t.db --policy ragp7,tetris --seed 2 --sample-nodes "$nn" --no-store \
	--format csv
cmp -s out full.csv || die "--sample-nodes $nn (every node) changed the results"

# every policy on two threads at once: the same table, stored the same, as on one
expect_rc 0 vf replay h.db --policy all --seeds 1-2 --no-store --format csv --threads 1
cp out one.csv
expect_rc 0 vf replay h.db --policy all --seeds 1-2 --no-store --format csv --threads 2
cmp -s out one.csv || die "--threads 2 changed the results"

