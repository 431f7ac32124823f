#!/bin/sh
# Dashboard benchmark (not in make check): voidfit dash on a synthetic trace of BENCH_JOBS
# jobs on BENCH_NODES nodes, drawn to a pseudo-terminal (a private tmux server, 200x60),
# replaying at full speed for BENCH_SECONDS.
#   1. frame time: the median and 99th percentile of the milliseconds a frame's drawing
#      takes (goal: p99 <= 16 ms), from --frame-log
#   2. events per second while drawing (at 30 frames a second) against a headless
#      'voidfit replay' of the same policy (goal: at least half); the headless figure is
#      the whole run's events over its wall time, loading the trace included, so it
#      understates the headless rate a little
#   3. the keyframes' memory per million jobs, and the dashboard's peak RSS
# Usage: scripts/bench-dash.sh BUILD_DIR
# Environment: BENCH_JOBS (1000000), BENCH_NODES (6000), BENCH_POLICY (first-fit),
# BENCH_SECONDS (20), BENCH_SCENARIO (balanced).
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
jobs=${BENCH_JOBS:-1000000}
nodes=${BENCH_NODES:-6000}
pol=${BENCH_POLICY:-first-fit}
secs=${BENCH_SECONDS:-20}
scen=${BENCH_SCENARIO:-balanced}
command -v tmux >/dev/null 2>&1 || { echo "bench-dash: tmux is not installed"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench-dash.XXXXXX")
sock=voidfit-bench-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || :; rm -rf "$work"' EXIT
cd "$work"

echo "trace: $scen, $jobs jobs, $nodes nodes; policy $pol"
"$vf" gen --scenario "$scen" --jobs "$jobs" --nodes "$nodes" -o gen >/dev/null
"$vf" import -o t.db gen/*.csv >/dev/null 2>&1

# headless
t0=$(date +%s.%N)
"$vf" replay t.db --policy "$pol" --no-store --json >replay.json
t1=$(date +%s.%N)
ev=$(sed -n 's/.*"events": *\([0-9.e+]*\).*/\1/p' replay.json | head -1)
headless=$(echo "$ev $t0 $t1" | awk '{ printf "%.0f", $1 / ($3 - $2) }')
echo "headless replay: $ev events in $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s = $headless events/s"

# the dashboard at full speed
timef=""
[ -x /usr/bin/time ] && timef="/usr/bin/time -f %M -o $work/rss"
tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 60 \
	"LANG=C.UTF-8 $timef $vf dash t.db --policy $pol --speed 1e9 --frame-log $work/frames; echo \$? >$work/rc"
# wait for the first frame (the trace loads first), then let it play
i=0
until tmux -L "$sock" capture-pane -p 2>/dev/null | grep -q "nodes"; do
	i=$((i + 1))
	[ $i -lt 1200 ] || { echo "bench-dash: no first frame in 120 s"; exit 1; }
	sleep 0.1
done
sleep "$secs"
tmux -L "$sock" capture-pane -p >screen
tmux -L "$sock" send-keys q
i=0
while [ ! -s rc ]; do
	i=$((i + 1))
	[ $i -lt 600 ] || { echo "bench-dash: dash did not exit"; exit 1; }
	sleep 0.1
done
grep '^frame' frames | awk '{ print $2 }' | sort -n >ms
n=$(wc -l <ms)
med=$(awk -v n="$n" 'NR == int((n + 1) / 2) { print; exit }' ms)
p99=$(awk -v n="$n" 'NR == int(n * 0.99 + 0.999) { print; exit }' ms)
echo "frames: $n; drawing ms median $med, p99 $p99 (goal p99 <= 16)"
# events per second while playing: from the first frame that moved to the last
grep '^frame' frames | awk -v h="$headless" '
	{ t[NR] = $3; e[NR] = $4 }
	END {
		for (a = 1; a < NR && e[a + 1] == e[1]; a++) ;
		for (z = NR; z > a && e[z - 1] == e[NR]; z--) ;
		d = t[z] - t[a]; de = e[z] - e[a]
		r = d > 0 ? de / d : 0
		printf "drawing at full speed: %d events in %.1f s = %.0f events/s, %.0f%% of headless (goal >= 50%%)\n", de, d, r, 100 * r / h
	}'
awk '/^keyframes/ { printf "keyframes at the end: %d, %.1f MB in all (budget 256 MB a lane), one keyframe %.1f MB per million jobs\n", $2, $4 / 1e6, $4 / $2 / 1e6 / ($6 / 1e6) }' frames
[ -s rss ] && echo "dashboard peak RSS: $(awk '{ printf "%.0f MB", $1 / 1024 }' rss)"
echo "last screen:"
cat screen
