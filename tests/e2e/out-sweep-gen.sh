# sweep -o DIR and gen -o DIR write nothing through a symbolic link planted in DIR (tasks,
# parallel.sh, slurm.sbatch, runs/, gen's files and its old temporary jobs.csv.tmp): each is
# refused, or left aside, and what it points to is untouched. A sweep that cannot write its
# scripts (a file size limit) leaves none behind, executable or not.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o s.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
echo keep >victim

# a link in place of each file the sweep writes: refused, the victim untouched
for f in parallel.sh slurm.sbatch tasks; do
	rm -rf sw
	mkdir sw
	ln -s ../victim "sw/$f"
	expect_rc 1 vf sweep s.db -p first-fit -o sw
	contains err "sw/$f: a symbolic link, not followed"
	[ "$(cat victim)" = keep ] || die "sweep wrote through a link at $f"
	[ -L "sw/$f" ] || die "sweep replaced the link at $f"
	[ ! -e sw/tasks ] || [ -L sw/tasks ] || die "a refused sweep wrote its tasks"
done
# a link to nowhere: nothing is made where it points
rm -rf sw
mkdir sw
ln -s ../made-here sw/parallel.sh
expect_rc 1 vf sweep s.db -p first-fit -o sw
[ ! -e made-here ] || die "sweep made a file through a dangling link"
# runs/ and logs/ as links: the tasks would write wherever they point
for d in runs logs; do
	rm -rf sw elsewhere
	mkdir sw elsewhere
	ln -s ../elsewhere "sw/$d"
	expect_rc 1 vf sweep s.db -p first-fit -o sw
	contains err "sw/$d: a symbolic link, not followed"
	[ ! -e sw/tasks ] || die "a refused sweep wrote its tasks"
done
# the sweep directory itself may be a link the user made
mkdir real-sw
ln -s real-sw sw-link
expect_rc 0 vf sweep s.db -p first-fit -o sw-link
[ -f real-sw/tasks ] && [ -x real-sw/parallel.sh ] || die "no sweep through the user's link"

# a write error (the file size limit, its signal ignored): no script is left, nor temporary
rm -rf sw
mkdir sw
(
	trap '' XFSZ
	ulimit -f 1 # 512 bytes: parallel.sh is bigger
	exec "$VOIDFIT" sweep s.db -p first-fit -o sw
) >out 2>err && die "sweep succeeded past the file size limit"
contains err "sw/parallel.sh: "
[ -z "$(ls -A sw | grep -v '^runs$' | grep -v '^logs$')" ] || die "a failed sweep left: $(ls -A sw)"
# the same sweep with room
expect_rc 0 vf sweep s.db -p first-fit -o sw
[ -x sw/parallel.sh ] && [ -x sw/slurm.sbatch ] && [ -f sw/tasks ] || die "no sweep"

# gen: a link planted as its old temporary is left aside (never written through), a link in
# place of a file it writes is refused
mkdir g
ln -s ../outside.csv g/jobs.csv.tmp
expect_rc 0 vf gen -j 100 --nodes 8 -o g
[ ! -e outside.csv ] || die "gen wrote through g/jobs.csv.tmp"
[ -f g/jobs.csv ] && [ ! -L g/jobs.csv ] || die "gen's jobs.csv is not a file"
ln -s ../victim g/nodes.csv.new
rm g/nodes.csv
mv g/nodes.csv.new g/nodes.csv
expect_rc 1 vf gen -j 100 --nodes 8 -o g
contains err "g/nodes.csv: a symbolic link, not followed"
[ "$(cat victim)" = keep ] && [ -L g/nodes.csv ] || die "gen wrote through a link"
# run again: its files are replaced, and it leaves no temporary
rm g/nodes.csv
expect_rc 0 vf gen -j 100 --nodes 8 -o g
expect_rc 0 vf gen -j 100 --nodes 8 -o g
[ "$(ls -A g | sort | tr '\n' ' ')" = "jobs.csv jobs.csv.tmp nodes.csv " ] ||
	die "gen left: $(ls -A g)"
