# import-mapping.sh — the mapping language on small files written here: quoted column
# names, ISO 8601 times (naive ones at --tz), a tab-separated header-less node file with
# its own mapping beside a job file with another, unit suffixes, arithmetic across columns,
# constants, durations; and each mapping error with the line it names and what is valid.
. "$VOIDFIT_TOP/tests/lib.sh"
J=job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,sto_mbps,iocpu_milli,gpu_spec

# A Philly/Helios-like job list: times as strings, a column name with blanks, GPUs per
# worker times workers, memory with units, a class from a quoted value.
cat > jobs.map <<'T'
# jobs of a Helios-like export
arrival "Submit Time"
start   "Start Time"
end     "End Time"
num_gpu = "GPUs per worker" * workers
cpu     = 4cores * (workers + 0)
mem     "Mem"
gpu_spec = 'NVIDIA A100-SXM4-80GB'
class   "Queue Name" "long queue"=train *=batch
T
{
	echo '"Submit Time",Start Time,End Time,GPUs per worker,workers,Mem,Queue Name'
	echo '2020-04-01 09:30:00,2020-04-01 09:31:00,2020-04-01 10:31:00,2,2,12GB,long queue'
	echo '2020-04-01 09:35:00,2020-04-01T01:40:00Z,2020-04-01 10:00:00,1,1,500Mi,short'
} > helios.csv
# nodes: tab-separated, no header, no model column (priced as UNKNOWN, with a warning)
cat > nodes.map <<'T'
kind nodes
delimiter tab
columns machine "GPU count" cores ram
node machine
gpu "GPU count"
cpu cores cores
mem ram GiB
T
printf 'm1\t8\t96\t768\nm2\t4\t48\t384\n' > nodes.tsv
expect_rc 0 vf import -o t.db --tz +08:00 --format generic:./jobs.map helios.csv \
	--format generic:./nodes.map nodes.tsv
contains out "helios.csv: generic:jobs, 2 rows read, 2 accepted, 0 quarantined"
contains out "nodes.tsv: generic:nodes, 2 rows read, 2 accepted, 0 quarantined"
contains out "2 jobs, 2 nodes"
contains err "warning: GPU nodes that name no GPU model: 12 GPUs on 2 nodes, taken as UNKNOWN"
vf export --jobs t.db > jobs.csv
# 09:30 at +08:00 is 01:30 UTC (1585704600); job 2 started 01:40 UTC, ended 02:00 (+08:00)
cat > want <<T
$J
0,1585704600,3600,train,8000,12288,4,1000,,,,,A100-80G
1,1585704900,1200,batch,4000,500,1,1000,,,,,A100-80G
T
cmp want jobs.csv || { diff want jobs.csv >&2; die "jobs differ"; }
vf export --nodes t.db > nodes.csv
contains nodes.csv "m1,,UNKNOWN,96000,786432,8,16384,,,"
contains nodes.csv "m2,,UNKNOWN,48000,393216,4,16384,,,"
# without --tz a naive time is UTC
expect_rc 0 vf import -o u.db --format generic:./jobs.map helios.csv
vf export --jobs u.db > jobs.csv
contains jobs.csv "0,1585733400,3600,train"

# a semicolon file with epochs in ms, a duration as Slurm writes it, a constant GPU count
cat > ms.map <<'T'
delimiter ;
arrival submit ms
duration elapsed
num_gpu = 1
gpu_milli share
T
printf 'submit;elapsed;share\n1585733400000;1-00:00:05;50%%\n1585733401500;00:10:00;500m\n' > ms.csv
expect_rc 0 vf import -o m.db --format generic:./ms.map ms.csv
vf export --jobs m.db > jobs.csv
contains jobs.csv "0,1585733400,86405,train,,,1,500,"
contains jobs.csv "1,1585733402,600,train,,,1,500,"

# bad values are bad rows, with the reason; an import whose every row is bad fails
printf 'submit;elapsed;share\n1585733400000;ten;50%%\n1585733400000;1:00:00;50XB\n' > bad.csv
expect_rc 1 vf import -o b.db --format generic:./ms.map bad.csv
contains err "bad.csv:2: column 'elapsed': 'ten' is not a number"
contains err "bad.csv:3: column 'share': '50XB': 'XB' is not a unit of this target (valid: m %)"
contains err "voidfit import: every row (2) was quarantined; nothing is imported"
[ ! -e b.db ] || die "a failed import left a store"

# a TSV read without 'delimiter tab' says so
printf 'a\tb\n1\t2\n' > x.tsv
printf 'arrival a\nduration b\n' > plain.map
expect_rc 1 vf import -o x.db --format generic:./plain.map x.tsv
contains err "x.tsv:1: header lacks column 'a' of mapping 'plain' (./plain.map:1); the header has 'a\\x09b'; it is one field holding tabs: a tab-separated file needs 'delimiter tab' in the mapping"

# mapping errors name the line and what is valid
err_map() { # err_map TEXT MESSAGE
	printf '%b' "$1" > e.map
	expect_rc 1 vf import -o e.db --format generic:./e.map helios.csv
	contains err "$2"
}
err_map 'arrival "Submit Time\n' "./e.map:1: 'arrival': a column name's double quote is not closed"
err_map '# c\nmem = a *\n' "./e.map:2: 'mem = ...': the line ends where a value belongs (valid: a column name, \"a quoted one\", a number, '-' or '(')"
err_map 'cpu = (a + b\n' "./e.map:1: 'cpu = ...': a '(' is not closed (valid: an operator + - * / or ')')"
err_map 'gpu "GPU count"\n' "./e.map:1: 'gpu' is not a target of a job mapping (valid: arrival start end duration cpu mem num_gpu gpu_milli hbm net sto iocpu gpu_spec workers class); 'kind nodes' makes a node mapping"
err_map 'delimiter ab\n' "./e.map:1: delimiter 'ab' is not one character (valid: tab, comma, semicolon, pipe, space, or the character itself, quoted if it is a quote)"
err_map 'arrival Submit Time\n' "./e.map:1: 'arrival': SCALE 'Time' is not a positive number or a unit (s sec ms us"
err_map 'arrival x\nmem y 1.5\ncpu z 1 2\n' "./e.map:3: 'cpu': more than 'COLUMN [SCALE]' (for arithmetic write 'cpu = EXPRESSION'; quote a column name that holds blanks)"
err_map "num_gpu = 'two'\\n" "./e.map:1: 'num_gpu' takes a number, not the text 'two'"
err_map '"Submit" x\n' "./e.map:1: a line starts with a directive or a target (valid: name, kind"
err_map 'kind racks\n' "./e.map:1: kind 'racks' (valid: jobs, nodes)"
err_map 'kind nodes\ncpu c\n' "./e.map: a node mapping needs 'node COLUMN' (the node's name)"
err_map 'widgets 3\n' "./e.map:1: 'widgets' is not a mapping line (valid: name, kind, header, delimiter, columns, class, or a target:"
err_map 'arrival = 1\nmem = 2GB / "x"\n' "helios.csv:1: header lacks column 'x' of mapping 'e' (./e.map:2); the header has 'Submit Time', 'Start Time'"
err_map 'columns a b\narrival c\n' "./e.map:2: column 'c' is not among the 'columns' of mapping 'e'"
