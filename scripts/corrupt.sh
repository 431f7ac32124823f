#!/bin/sh
# corrupt.sh — the corruption campaign: damage a real store at random, many times, run every
# reader on each damaged copy and flag what no reader may do.
#
#   scripts/corrupt.sh [-n TRIALS] [-s SEED] [-t SECONDS] [-d DIR] [-q]
#
# The store is an import of the openb sample (from $VOIDFIT_TRACES, else ../shared/traces;
# the bundled traces/balanced where neither is found) with timed and inflated runs of two
# policies each and a sizing. Each trial copies it and does one of: flip 1 to 8 random bytes
# of the file; UPDATE one cell of a random row of a random table (a number made larger, a
# text or blob changed); DELETE 1 to 300 random rows of a random table; INSERT a copy of a
# random row (under a new id where the table has one); add a schema object (trigger, view,
# index or table). The SQL changes go to every table: the seals cover all but the blocks of
# jobs and files, which carry checksums of their own, and row_sums, which holds the seals.
# Then every reader runs on the copy, each under a timeout: check, info,
# replay --no-store, report, compare, runs, export --jobs. Flagged:
#   crash   a reader killed by a signal
#   hang    a reader still running at the timeout (-t, default 30 s)
#   silent  a reader exits 0 with an output that differs from the pristine store's while
#           check says "no problems" or the reader itself warns of nothing (info's size of
#           the file and its ratio to the bytes imported left out: that is the file's, which
#           an SQL change may grow, not a figure read from a row)
# A trial where a reader refuses (exit 1, naming the damage) or answers as on the pristine
# store is fine. The closing lines count trials by kind and outcome; each flagged trial
# keeps its store and outputs in DIR/flagged/N (DIR: -d, default a temporary folder, removed
# unless something was flagged or -d was given). Exit 1 if anything was flagged.
#
# VOIDFIT names the voidfit binary (default build/voidfit beside this script). The same -s
# and -n give the same corruptions of the same store. tests/e2e/store-corrupt.sh runs a few
# trials; the full campaign is: scripts/corrupt.sh -n 2000
set -eu

trials=200
seed=1
tmo=30
dir=
quiet=0
while getopts n:s:t:d:q o; do
	case $o in
	n) trials=$OPTARG ;;
	s) seed=$OPTARG ;;
	t) tmo=$OPTARG ;;
	d) dir=$OPTARG ;;
	q) quiet=1 ;;
	*)
		echo "usage: corrupt.sh [-n TRIALS] [-s SEED] [-t SECONDS] [-d DIR] [-q]" >&2
		exit 2
		;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
vf=${VOIDFIT:-$top/build/voidfit}
[ -x "$vf" ] || { echo "corrupt.sh: $vf: no voidfit binary (make)" >&2; exit 2; }
command -v sqlite3 >/dev/null 2>&1 || { echo "corrupt.sh: sqlite3 is not installed" >&2; exit 2; }
keep=1
if [ -z "$dir" ]; then
	dir=$(mktemp -d)
	keep=0
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cd "$dir"

say() { [ "$quiet" = 1 ] || echo "$@"; }

# ---- the pristine store ----
traces=${VOIDFIT_TRACES:-$top/../shared/traces}
v23=$traces/clusterdata/cluster-trace-gpu-v2023/csv
rm -f pristine.db
if [ -f "$v23/openb_pod_list_default.csv" ]; then
	src="the openb sample"
	"$vf" import -q -o pristine.db "$v23/openb_pod_list_default.csv" \
		"$v23/openb_node_list_all_node.csv"
else
	src="traces/balanced (the openb sample is absent)"
	"$vf" import -q -o pristine.db "$top/traces/balanced/jobs.csv" \
		"$top/traces/balanced/nodes.csv"
fi
"$vf" replay pristine.db --policy fgd,scalar --seed 1 >/dev/null 2>&1
"$vf" replay pristine.db --policy fgd,packing --mode inflate --target 0.5 --seed 1 \
	>/dev/null 2>&1
"$vf" size pristine.db --policy fgd --slo 'wait_p95<=15m' --threads 2 >/dev/null 2>&1
"$vf" check -q pristine.db >/dev/null

readers="check info replay report compare runs export"
# run_reader NAME STORE OUT: run one reader on STORE, its stdout in OUT.out, stderr in
# OUT.err, its exit status in OUT.rc
run_reader() {
	set +e
	case $1 in
	check) timeout "$tmo" "$vf" check "$2" ;;
	info) timeout "$tmo" "$vf" info "$2" ;;
	replay) timeout "$tmo" "$vf" replay "$2" --no-store --policy fgd --seed 3 ;;
	report) timeout "$tmo" "$vf" report "$2" --format text ;;
	compare) timeout "$tmo" "$vf" compare "$2" ;;
	runs) timeout "$tmo" "$vf" runs "$2" ;;
	export) timeout "$tmo" "$vf" export --jobs "$2" ;;
	esac >"$3.out" 2>"$3.err"
	echo $? >"$3.rc"
	set -e
}
# same NAME: does reader NAME's output on the damaged copy read as on the pristine store?
same() {
	if [ "$1" = info ]; then
		sed '1s/: [0-9]* bytes, \(.*\) (ratio [0-9.]*)$/: \1/' "out/$1.out" >out/info.cmp
		sed '1s/: [0-9]* bytes, \(.*\) (ratio [0-9.]*)$/: \1/' "ref/$1.out" >ref/info.cmp
		cmp -s out/info.cmp ref/info.cmp
	else
		cmp -s "out/$1.out" "ref/$1.out"
	fi
}
mkdir -p ref
cp pristine.db c.db # outputs name the store: the damaged copies are c.db too
for r in $readers; do
	run_reader "$r" c.db "ref/$r"
	[ "$(cat "ref/$r.rc")" = 0 ] || {
		cat "ref/$r.err" >&2
		echo "corrupt.sh: $r fails on the pristine store" >&2
		exit 2
	}
done
say "store: $src, $(wc -c <pristine.db) bytes; $trials trials, seed $seed, timeout $tmo s"

# ---- corruptions ----
# rnd N: a number in 0..N-1 from the trial's stream (seed, trial, draw; the count of draws
# is kept in a file, as rnd runs in subshells)
rnd() {
	d=$(($(cat draw) + 1))
	echo "$d" >draw
	awk -v s="$seed" -v t="$trial" -v d="$d" -v n="$1" \
		'BEGIN { srand(s * 1000003 + t * 7919 + d); print int(rand() * n) }'
}
tables=$(sqlite3 pristine.db "SELECT name FROM sqlite_master WHERE type = 'table' AND
	name NOT LIKE 'sqlite_%' ORDER BY name")
ntables=$(echo "$tables" | wc -l)
# pick_table: a random table with at least one row into $tbl, its columns into $cols
pick_table() {
	for _ in 1 2 3 4 5 6 7 8; do
		tbl=$(echo "$tables" | sed -n "$(($(rnd "$ntables") + 1))p")
		nrows=$(sqlite3 c.db "SELECT count(*) FROM $tbl")
		[ "$nrows" -gt 0 ] && break
	done
	cols=$(sqlite3 c.db "SELECT group_concat(name, ',') FROM pragma_table_info('$tbl')")
}
# a random row of $tbl, as the condition that picks it (rows alike go together)
row_where() {
	echo "($cols) IN (SELECT $cols FROM $tbl LIMIT 1 OFFSET $(rnd "$nrows"))"
}
corrupt() {
	kind=$1
	case $kind in
	flip)
		size=$(wc -c <c.db)
		n=$(($(rnd 8) + 1))
		what=
		for _ in $(seq "$n"); do
			off=$(rnd "$size")
			byte=$(od -An -tu1 -j "$off" -N1 c.db | tr -d ' ')
			new=$((byte ^ ($(rnd 255) + 1)))
			printf "$(printf '\\%03o' "$new")" |
				dd of=c.db bs=1 seek="$off" conv=notrunc 2>/dev/null
			what="$what $off"
		done
		echo "flip at$what"
		;;
	update)
		pick_table
		col=$(echo "$cols" | tr , '\n' | sed -n "$(($(rnd "$(echo "$cols" | tr , '\n' |
			wc -l)") + 1))p")
		set -- "$col * 2 + 1" "$col + 1" "$col - 1" "$col || 'x'" "NULL" "0" \
			"randomblob(8)" "substr($col, 2)"
		shift "$(rnd 8)"
		sqlite3 c.db "UPDATE $tbl SET $col = CASE WHEN typeof($col) IN ('integer',
			'real') THEN $col * 2 + 1 ELSE $1 END WHERE $(row_where)" 2>/dev/null ||
			true
		echo "update $tbl.$col ($1)"
		;;
	delete)
		pick_table
		n=$(($(rnd 300) + 1))
		sqlite3 c.db "DELETE FROM $tbl WHERE ($cols) IN (SELECT $cols FROM $tbl
			LIMIT $n OFFSET $(rnd "$nrows"))" 2>/dev/null || true
		echo "delete $n from $tbl"
		;;
	insert)
		pick_table
		sel=$(echo "$cols" | sed 's/^id,/(SELECT max(id) + 1 FROM '"$tbl"'),/')
		sqlite3 c.db "INSERT INTO $tbl ($cols) SELECT $sel FROM $tbl LIMIT 1 OFFSET
			$(rnd "$nrows")" 2>/dev/null || true
		echo "insert into $tbl"
		;;
	schema)
		pick_table
		set -- "CREATE TRIGGER vf_t AFTER INSERT ON runs BEGIN UPDATE run_metrics SET
			value = 0; END" "CREATE VIEW vf_v AS SELECT * FROM $tbl" \
			"CREATE INDEX vf_i ON $tbl($(echo "$cols" | cut -d, -f1))" \
			"CREATE TABLE vf_x(a)" "ALTER TABLE $tbl RENAME TO vf_old; CREATE VIEW $tbl
			AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)
			SELECT * FROM r"
		shift "$(rnd 5)"
		sqlite3 c.db "$1" 2>/dev/null || true
		echo "schema: $(echo "$1" | tr -s '\t\n ' ' ' | cut -c1-60)"
		;;
	esac
}

kinds="flip update delete insert schema"
ncrash=0 nhang=0 nsilent=0 nrefused=0 nsame=0
mkdir -p flagged
trial=0
while [ "$trial" -lt "$trials" ]; do
	trial=$((trial + 1))
	echo 0 >draw
	cp pristine.db c.db
	kind=$(echo $kinds | tr ' ' '\n' | sed -n "$(($(rnd 5) + 1))p")
	what=$(corrupt "$kind")
	mkdir -p out
	checkok=0
	flags=
	refused=0
	for r in $readers; do
		run_reader "$r" c.db "out/$r"
		rc=$(cat "out/$r.rc")
		if [ "$r" = check ] && [ "$rc" = 0 ] && grep -q ': no problems$' out/check.out; then
			checkok=1
		fi
		if [ "$rc" = 124 ]; then
			flags="$flags hang:$r"
		elif [ "$rc" -gt 128 ]; then
			flags="$flags crash:$r($rc)"
		elif [ "$rc" != 0 ]; then
			refused=1
		elif ! same "$r"; then
			# a different answer is fine only if check finds the damage and the reader
			# says so
			if [ "$checkok" = 1 ] || ! grep -qiE 'damaged|voidfit check' "out/$r.err"; then
				flags="$flags silent:$r"
			fi
		fi
	done
	if [ -n "$flags" ]; then
		case $flags in *crash*) ncrash=$((ncrash + 1)) ;; esac
		case $flags in *hang*) nhang=$((nhang + 1)) ;; esac
		case $flags in *silent*) nsilent=$((nsilent + 1)) ;; esac
		mkdir -p "flagged/$trial"
		cp c.db out/* "flagged/$trial/"
		echo "$what" >"flagged/$trial/what"
		echo "trial $trial: $what:$flags"
	elif [ "$refused" = 1 ]; then
		nrefused=$((nrefused + 1))
	else
		nsame=$((nsame + 1))
	fi
	eval "n_$kind=\$((\${n_$kind:-0} + 1))"
done
say "trials by kind: flip ${n_flip:-0}, update ${n_update:-0}, delete ${n_delete:-0}," \
	"insert ${n_insert:-0}, schema ${n_schema:-0}"
echo "$trials trials: $nrefused refused by a reader, $nsame answered as the pristine store;" \
	"flagged: $ncrash crash, $nhang hang, $nsilent silent wrong answer"
bad=$((ncrash + nhang + nsilent))
if [ "$bad" -gt 0 ]; then
	echo "flagged trials kept in $dir/flagged"
	exit 1
fi
[ "$keep" = 1 ] || { cd /; rm -rf "$dir"; }
exit 0
