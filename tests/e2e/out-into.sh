# replay --into never replaces the store it reads (by any name: ./x, a path, a symbolic or a
# hard link), with or without --force; another file there is refused unless it is a finished
# task store of the same trace (a task run again) or --force is given, and anything but a
# regular file always is.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces
vf import -o s.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
vf import -o o.db "$tr/irregular/jobs.csv" "$tr/irregular/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
cp s.db s0.db
cp o.db o0.db
ln -s s.db sym.db
ln s.db hard.db
jobs() { sqlite3 "$1" 'SELECT njobs FROM traces'; }

# the store read, by every name, even with --force
for into in s.db ./s.db "$PWD/s.db" sym.db hard.db; do
	for force in "" --force; do
		expect_rc 1 vf replay s.db -p first-fit --into "$into" $force
		contains err "$into: the same file as s.db, the store read; give a new file"
		! grep -q stored err || die "replay --into $into $force stored runs"
	done
done
cmp -s s.db s0.db || die "replay --into the store changed it"
[ "$(jobs s.db)" -eq 2000 ] || die "the store lost its jobs"
# ... nor its task store's temporary name (removed first, as a killed task's)
cp s.db x.db.part
expect_rc 1 vf replay x.db.part -p first-fit --into x.db --force
contains err "x.db: its temporary x.db.part is x.db.part, the store read"
cmp -s x.db.part s0.db || die "replay removed the store read"
rm x.db.part

# another store, any other file: refused without --force, and left as it was
expect_rc 1 vf replay s.db -p first-fit --into o.db
contains err "o.db: a file is there, not a finished task store of this trace (--force replaces it)"
cmp -s o.db o0.db || die "replay --into changed another store"
echo notes >notes.txt
expect_rc 1 vf replay s.db -p first-fit --into notes.txt
[ "$(cat notes.txt)" = notes ] || die "replay --into replaced a file"
# with --force, a regular file is replaced by the task store
expect_rc 0 vf replay s.db -p first-fit --into notes.txt --force
[ "$(sqlite3 notes.txt 'SELECT count(*) FROM task')" -eq 1 ] || die "no task store made"

# a finished task store of the same trace: a task run again replaces it
expect_rc 0 vf replay s.db -p first-fit --into t.db
expect_rc 0 vf replay s.db -p fgd --into t.db
[ "$(sqlite3 t.db 'SELECT policy FROM runs')" = fgd ] || die "the task store was not replaced"
# ... one of another trace is not
expect_rc 0 vf replay o.db -p first-fit --into to.db
expect_rc 1 vf replay s.db -p first-fit --into to.db
contains err "to.db: a file is there, not a finished task store of this trace"
[ "$(sqlite3 to.db 'SELECT policy FROM runs')" = first-fit ] || die "another trace's task store changed"

# not a regular file: refused even with --force, left as it is
mkfifo ff
ln -s t.db link.db
mkdir dir.db
for into in ff link.db dir.db; do
	expect_rc 1 vf replay s.db -p first-fit --into "$into" --force
	contains err "$into: "
	contains err "not replaced"
done
[ -p ff ] && [ -L link.db ] && [ -d dir.db ] || die "replay --into replaced a non-regular file"
[ "$(sqlite3 t.db 'SELECT policy FROM runs')" = fgd ] || die "a task store behind a link changed"
[ -z "$(ls -A | grep '\.part')" ] || die "left: $(ls -A | grep '\.part')"

# --force alone is a usage error
expect_rc 2 vf replay s.db -p first-fit --force
contains err "--force is for --into"
