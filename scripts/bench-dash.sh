#!/bin/sh
# Dashboard benchmark (not in make check): voidfit dash on a synthetic trace of BENCH_JOBS
# jobs on BENCH_NODES nodes, drawn to a pseudo-terminal (a private tmux server, 200x60).
#   1. seeks: --at 50% and --at 90% against a headless 'voidfit replay' to the same point
#      (the replay's wall time per event times the events the seek handled; goal: at most
#      1.2x), from the 'seek' line of --frame-log
#   2. frame time while playing at full speed for BENCH_SECONDS, alone and with a what-if
#      (--compare BENCH_WHATIF from 90% of the window): the median and 99th percentile of
#      the milliseconds a frame's drawing takes (goal: p99 <= 16 ms), in wall time and in
#      CPU time (which the waits for a processor on a loaded machine leave out), and the
#      events per second against the headless replay's
#   3. the dashboard's peak RSS alone and with three what-ifs (p, three times), and the
#      keyframes' memory
# Ratios are of runs made one after the other on the same machine: quote them, not the
# seconds, on a shared machine.
# Usage: scripts/bench-dash.sh BUILD_DIR
# Environment: BENCH_JOBS (200000), BENCH_NODES (6000), BENCH_POLICY (fgd), BENCH_WHATIF
# (first-fit), BENCH_SECONDS (20), BENCH_SCENARIO (balanced).
set -eu
vf="$(cd "${1:-build}" && pwd)/voidfit"
jobs=${BENCH_JOBS:-200000}
nodes=${BENCH_NODES:-6000}
pol=${BENCH_POLICY:-fgd}
whatif=${BENCH_WHATIF:-first-fit}
secs=${BENCH_SECONDS:-20}
scen=${BENCH_SCENARIO:-balanced}
command -v tmux >/dev/null 2>&1 || { echo "bench-dash: tmux is not installed"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-bench-dash.XXXXXX")
sock=voidfit-bench-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || :; rm -rf "$work"' EXIT
cd "$work"

echo "trace: $scen, $jobs jobs, $nodes nodes; policy $pol"
"$vf" gen --scenario "$scen" --jobs "$jobs" --nodes "$nodes" -o gen >/dev/null
"$vf" import -o t.db gen/*.csv >/dev/null 2>&1

# headless
t0=$(date +%s.%N)
"$vf" replay t.db --policy "$pol" --no-store --json >replay.json
t1=$(date +%s.%N)
ev=$(sed -n 's/.*"events": *\([0-9.e+]*\).*/\1/p' replay.json | head -1)
rs=$(echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }')
headless=$(echo "$ev $rs" | awk '{ printf "%.0f", $1 / $2 }')
echo "headless replay: $ev events in $rs s = $headless events/s"

timef=""
[ -x /usr/bin/time ] && timef="/usr/bin/time -f %M -o $work/rss"

# drawn: the pane shows the dashboard and no move of the command line under way (its
# progress line; a key would cancel it)
drawn() {
	tm capture-pane -p >pane 2>/dev/null || return 1
	grep -q " nodes" pane && ! grep -q "% done in" pane
}
# dash NAME ARGS...: voidfit dash ARGS in the pane, its frame log in NAME.frames and its
# peak RSS (KB) in NAME.rss; returns once the first frame after --at and --compare is drawn
dash() {
	name=$1
	shift
	rm -f rc rss
	tm new-session -d -x 200 -y 60 \
		"LANG=C.UTF-8 $timef $vf dash t.db --policy $pol --frame-log $work/$name.frames $*; echo \$? >$work/rc"
	i=0
	until drawn; do
		i=$((i + 1))
		[ $i -lt 6000 ] || { echo "bench-dash: no first frame in 600 s"; exit 1; }
		sleep 0.1
	done
}
# quit NAME: q (twice: a what-if asks), then wait for the exit
quit() {
	tm send-keys q 2>/dev/null || :
	sleep 0.3
	tm send-keys q 2>/dev/null || : # gone already when nothing asked
	i=0
	while [ ! -s rc ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "bench-dash: dash did not exit"; exit 1; }
		sleep 0.1
	done
	if [ -s rss ]; then cp rss "$1.rss"; fi
	tm kill-server 2>/dev/null || :
	return 0
}
frame_stats() {
	grep '^frame' "$1.frames" | awk '{ print $2 }' | sort -n >ms
	n=$(wc -l <ms)
	med=$(awk -v n="$n" 'NR == int((n + 1) / 2) { print; exit }' ms)
	p99=$(awk -v n="$n" 'NR == int(n * 0.99 + 0.999) { print; exit }' ms)
	echo "  frames: $n; drawing ms median $med, p99 $p99 (goal p99 <= 16)"
	grep '^frame' "$1.frames" | awk 'NF >= 5 { print $5 }' | sort -n >cpu
	n=$(wc -l <cpu)
	if [ "$n" -gt 0 ]; then
		med=$(awk -v n="$n" 'NR == int((n + 1) / 2) { print; exit }' cpu)
		p99=$(awk -v n="$n" 'NR == int(n * 0.99 + 0.999) { print; exit }' cpu)
		echo "  the same in CPU ms (without the waits of a loaded machine): median $med, p99 $p99"
	fi
	grep '^frame' "$1.frames" | awk -v h="$headless" '
		{ t[NR] = $3; e[NR] = $4 }
		END {
			for (a = 1; a < NR && e[a + 1] == e[1]; a++) ;
			for (z = NR; z > a && e[z - 1] == e[NR]; z--) ;
			d = t[z] - t[a]; de = e[z] - e[a]
			r = d > 0 ? de / d : 0
			printf "  main lane while drawing: %d events in %.1f s = %.0f events/s, %.0f%% of headless\n", de, d, r, 100 * r / h
		}'
}

# 1. seeks against the replay to the same point
for at in 50 90; do
	dash "seek$at" --paused --at "$at%"
	quit "seek$at"
	awk -v rs="$rs" -v ev="$ev" -v at="$at" '/^seek/ {
		ref = rs * $4 / ev
		printf "seek to %d%%: %.2f s for %d events; replay to that point %.2f s; ratio %.2f (goal <= 1.2)\n", at, $2, $4, ref, (ref > 0 ? $2 / ref : 0)
	}' "seek$at.frames"
done

# 2. frame time while playing, alone and with a what-if near the window's end
dash play --speed 1e9
sleep "$secs"
tm capture-pane -p >screen
quit play
echo "playing at full speed, $pol alone:"
frame_stats play
dash whatif --speed 1e9 --at 90% --compare "$whatif"
sleep "$secs"
quit whatif
echo "playing at full speed from 90%, $pol with a $whatif what-if:"
frame_stats whatif

# 3. RSS alone and with three what-ifs
dash rss0 --paused --at 50%
quit rss0
dash rss3 --paused --at 50%
for k in 1 2 3; do
	tm send-keys p Down Enter
	i=0
	until tm capture-pane -p | grep -q "w$k "; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "bench-dash: what-if $k did not come"; exit 1; }
		sleep 0.1
	done
done
quit rss3
for n in rss0 rss3; do
	[ ! -s $n.rss ] || echo "dashboard peak RSS at 50%, $( [ $n = rss0 ] && echo alone || echo 'with three what-ifs'): $(awk '{ printf "%.0f MB", $1 / 1024 }' $n.rss)"
done
awk '/^keyframes/ { printf "keyframes at the end (alone): %d, %.1f MB in all (budget 256 MB a lane)\n", $2, $4 / 1e6 }' play.frames
echo "last screen while playing:"
cat screen
