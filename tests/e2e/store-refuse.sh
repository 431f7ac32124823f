# store-refuse.sh — only import makes a store, and only where no file is: every command
# refuses a file that is not a voidfit store (an empty file, an empty SQLite file, another
# program's SQLite file, a text file) with exit 1 and a message naming it, and leaves it
# byte for byte as it was; a missing store is made by import only.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
: > empty.db
sqlite3 sqlite.db "VACUUM"
sqlite3 other.db "CREATE TABLE t(x); INSERT INTO t VALUES (42)"
echo "name,cpu" > text.db
[ -s sqlite.db ] || die "sqlite3 made no file"
for f in empty.db sqlite.db other.db text.db; do
	sum=$(sha256sum < $f)
	for cmd in "info $f" "check $f" "export --jobs $f" "export --raw -d out.d $f" \
		"replay $f --policy first-fit" "compare $f" "import -o $f $tr/nodes.csv"; do
		expect_rc 1 vf $cmd
		contains err "$f: not a voidfit store"
		[ "$(sha256sum < $f)" = "$sum" ] || die "'voidfit $cmd' changed $f"
	done
done
[ ! -e out.d ] || die "export made its folder for a store it refused"
ls -A | grep -q -e journal -e '\.tmp' && die "left behind: $(ls -A)"
for cmd in "info new.db" "check new.db" "export --jobs new.db" "replay new.db --policy first-fit" \
	"compare new.db"; do
	expect_rc 1 vf $cmd
	contains err "new.db"
	[ ! -e new.db ] || die "'voidfit $cmd' made new.db"
done
expect_rc 0 vf import -o new.db "$tr/nodes.csv"
expect_rc 0 vf check new.db
