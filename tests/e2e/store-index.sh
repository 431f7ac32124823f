# A damaged index of a sealed table is damage a reader refuses: migration 6 made run_buckets
# and sizing_models rowid tables with an index for their keys, and a run's buckets are read
# through it, so an entry lost from the index hid a bucket from compare and report while a
# scan of the table, which the checksums are verified by, still found every row.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (to damage the index)"
tr=$VOIDFIT_TOP/traces/balanced
vf import -q -o t.db "$tr/jobs.csv" "$tr/nodes.csv"
vf replay t.db --policy first-fit,fgd --mode inflate --target 0.5 --seed 1 >/dev/null 2>&1
expect_rc 0 vf compare t.db
mv out ref
idx=sqlite_autoindex_run_buckets_1
page=$(sqlite3 t.db "SELECT pageno FROM dbstat WHERE name = '$idx' AND pagetype = 'leaf'
	LIMIT 1" 2>/dev/null) || skip "sqlite3 has no dbstat table (to find the index's pages)"
[ -n "$page" ] || die "no leaf page of $idx"
# drop.py FILE PAGE PAGESIZE: the last entry of an index's leaf page dropped (its count of
# cells one less), as a flipped byte does
cat >drop.py <<'EOF'
import sys
path, page, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, 'r+b') as f:
    off = (page - 1) * size + (100 if page == 1 else 0)
    f.seek(off)
    head = bytearray(f.read(5))
    assert head[0] == 0x0a, "not a leaf page of an index"
    n = head[3] << 8 | head[4]
    f.seek(off + 3)
    f.write(bytes([(n - 1) >> 8, (n - 1) & 0xff]))
EOF
cp t.db idx.db
python3 drop.py idx.db "$page" "$(sqlite3 t.db 'PRAGMA page_size')"
for c in compare report; do
	expect_rc 1 vf $c idx.db
	contains err "idx.db: table run_buckets: its pages or indexes are damaged ("
	contains err "'voidfit check idx.db' tells more"
done
expect_rc 1 vf check idx.db
contains out "BAD  sqlite integrity_check: "
# the sound store answers as before
expect_rc 0 vf compare t.db
cmp -s out ref || die "compare of the sound store changed"
