# report -o and export write through a FIFO or a device and never replace it; a symbolic
# link is refused unless --follow (then what it points to is written, the link stays); '-'
# and /dev/stdout are the standard output. A stopped export leaves nothing; a killed one
# leaves its temporary, which the next export to the same place removes. No device node of
# the machine is written here but through /dev/stdout, which is read, never replaced.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o s.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
vf replay s.db -p first-fit,fgd >/dev/null 2>&1 || die "replay failed"
vf report s.db >want.txt || die "report failed"
vf export --jobs s.db >jobs.csv || die "export failed"
# read FIFO into OUT in the background, for 20 s at most (a command that does not open it
# leaves no reader waiting forever); drained FIFO waits for it
reader() {
	timeout 20 cat "$1" >"$2" &
	rpid=$!
}
drained() { wait $rpid || die "nothing came through $1"; }
pid=
trap '[ -z "$pid" ] || kill -9 $pid 2>/dev/null || true' EXIT

# a FIFO: written through, still a FIFO afterwards
mkfifo ff
reader ff got.txt
expect_rc 0 vf report s.db -o ff
[ -p ff ] || die "report -o replaced a FIFO"
drained ff
cmp -s got.txt want.txt || die "the report through a FIFO differs from standard output's"
reader ff got.csv
expect_rc 0 vf export --jobs --force -o ff s.db
[ -p ff ] || die "export --force -o replaced a FIFO"
drained ff
cmp -s got.csv jobs.csv || die "export through a FIFO differs"
# a Markdown report through a FIFO has no chart files: there is no folder to put them in
mkfifo ff.md
reader ff.md got.md
expect_rc 0 vf report s.db -o ff.md
[ -p ff.md ] || die "report -o replaced a FIFO"
drained ff.md
[ ! -e ff-1.svg ] || die "charts were written beside a FIFO"
contains got.md "# Cost report"

# a symbolic link: refused, and the file it points to is left alone
echo keep >target.txt
ln -s target.txt link.txt
expect_rc 1 vf report s.db -o link.txt
contains err "link.txt: a symbolic link, not followed (--follow writes to what it points to)"
expect_rc 1 vf export --jobs --force -o link.txt s.db
contains err "link.txt: a symbolic link, not followed"
[ -L link.txt ] && [ "$(cat target.txt)" = keep ] || die "a refused link was written"
ln -s nowhere.txt dangling.txt
expect_rc 1 vf report s.db -o dangling.txt
[ ! -e nowhere.txt ] || die "report -o wrote through a dangling link"
# --follow: the target is written (whole: through a temporary beside it), the link stays
expect_rc 0 vf report s.db -o link.txt --follow
[ -L link.txt ] || die "report --follow replaced the link"
cmp -s target.txt want.txt || die "report --follow did not write the link's target"
expect_rc 0 vf export --jobs --force --follow -o link.txt s.db
[ -L link.txt ] && cmp -s target.txt jobs.csv || die "export --follow did not write the target"
# without --force, export replaces no regular file; a directory is never written
expect_rc 1 vf export --jobs -o target.txt s.db
contains err "target.txt: File exists (--force overwrites)"
expect_rc 1 vf report s.db -o .
contains err ".: a directory"
[ -z "$(ls -A | grep '\.tmp$')" ] || die "temporaries left: $(ls -A | grep '\.tmp$')"

# a stopped export leaves nothing: the FIFO of its second file has no reader, so the export
# waits there, its first file's temporary made; SIGTERM ends the wait
mkdir raw
mkfifo raw/nodes.csv
# start an export into raw in the background ($pid), and wait for its temporary of jobs.csv
stuck_export() {
	"$VOIDFIT" export --raw -d raw --force s.db >out 2>err &
	pid=$!
	i=0
	until ls -A raw | grep -q '^\.jobs\.csv\..*\.tmp$'; do
		i=$((i + 1))
		[ $i -lt 500 ] || { kill -9 $pid; die "export made no temporary"; }
		sleep 0.02
	done
}
stuck_export
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 130 ] || { cat err >&2; die "a stopped export exited $rc, wanted 130"; }
[ "$(ls -A raw)" = nodes.csv ] || die "a stopped export left: $(ls -A raw)"
# a killed one leaves its temporary; the next export there removes it
stuck_export
kill -9 $pid
wait $pid 2>/dev/null || true
ls -A raw | grep -q '^\.jobs\.csv\..*\.tmp$' || die "no temporary left by a killed export"
# one of a process that lives is not removed (this shell's)
live=$(ls -A raw | grep '^\.jobs\.csv\..*\.tmp$' | sed "s/\.[0-9]*-0\.tmp$/.$$-0.tmp/")
: >"raw/$live"
reader raw/nodes.csv got-nodes.csv
expect_rc 0 vf export --raw -d raw --force s.db
[ -p raw/nodes.csv ] || die "export --raw --force replaced a FIFO"
drained raw/nodes.csv
cmp -s raw/jobs.csv "$tr/balanced/jobs.csv" || die "export --raw wrote the wrong jobs.csv"
cmp -s got-nodes.csv "$tr/balanced/nodes.csv" || die "export --raw wrote the wrong nodes.csv"
[ "$(ls -A raw | sort | tr '\n' ' ')" = "$live jobs.csv nodes.csv " ] ||
	die "left in raw: $(ls -A raw)"

# report -o: a killed report's temporary is removed the same way (a dead process's, faked)
dead=$(sh -c 'echo $$')
tmpname=".r.txt.$(hostname).$dead-0.tmp"
: >"$tmpname"
expect_rc 0 vf report s.db -o r.txt
[ ! -e "$tmpname" ] || die "the temporary of a dead report was left"
cmp -s r.txt want.txt || die "report -o wrote another report"

# '-' and /dev/stdout are the standard output (written through, nothing replaced)
expect_rc 0 vf report s.db -o -
cmp -s out want.txt || die "report -o - differs from standard output"
[ ! -e ./- ] || die "report -o - made a file named '-'"
expect_rc 0 vf export --jobs -o - s.db
cmp -s out jobs.csv || die "export -o - differs from standard output"
[ ! -e ./- ] || die "export -o - made a file named '-'"
if [ -L /dev/stdout ]; then
	before=$(ls -l /dev/stdout)
	expect_rc 0 vf report s.db -o /dev/stdout
	cmp -s out want.txt || die "report -o /dev/stdout differs from standard output"
	expect_rc 0 vf export --jobs --force -o /dev/stdout s.db
	cmp -s out jobs.csv || die "export -o /dev/stdout differs from standard output"
	[ -L /dev/stdout ] && [ "$(ls -l /dev/stdout)" = "$before" ] || die "/dev/stdout changed"
fi
