# a forged block that claims 2^40 bytes (a zstd frame that says so too, and a checksum
# computed anew, as anyone can) is reported as damaged, by the block it is, in bounded
# memory: check, info, replay and export --jobs exit 1 naming job block 0 (they died "out of
# memory" asking for 2 TB); a forged run series is named by its run: report refuses the
# store, by the seal of run_blobs or, where the forger sealed the row anew too, by the block.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (to forge the block)"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/storage-stress/jobs.csv" "$tr/storage-stress/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
vf replay t.db --policy fgd,scalar >/dev/null 2>&1 || die "replay failed"

# forge.py ROWS KIND: a sealed block of KIND holding ROWS rows in 2^40 bytes, in hex: the
# header, its FNV-1a 64 checksum, then a zstd frame claiming 2^40 bytes that holds 1000
cat >forge.py <<'EOF'
import sys
def varint(v):
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7f | 0x80)
        v >>= 7
    return bytes(b + bytes([v]))
frame = bytes([0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0, 0, 1, 0, 0, 0x43, 0x1F, 0, ord('x')])
head = bytes([0xB7, int(sys.argv[2]), 1]) + varint(int(sys.argv[1])) + varint(1 << 40) + \
    varint(len(frame))
h = 0xcbf29ce484222325
for c in head + frame:
    h = (h ^ c) * 0x100000001b3 & 0xffffffffffffffff
print((head + h.to_bytes(8, 'little') + frame).hex())
EOF

# 1 GB of address space is far more than the readers need, and far less than 2^40; a
# sanitizer build cannot start under it: then only the time limit holds
if (ulimit -v 1000000 && "$VOIDFIT" --version) >/dev/null 2>&1; then
	lim="ulimit -v 1000000 &&"
else
	lim=""
fi
# bounded RC CMD...: run CMD under the limits, fail unless it exits RC and stays in memory
bounded() {
	want=$1
	shift
	set +e
	sh -c "$lim exec timeout 60 \"\$@\"" sh "$@" >out 2>err
	got=$?
	set -e
	[ "$got" -eq "$want" ] || { cat out err >&2; die "'$*' exited $got, wanted $want"; }
	if grep -q "out of memory" err; then die "'$*' ran out of memory"; fi
}

cp t.db jobs.db
rows=$(sqlite3 jobs.db 'SELECT nrows FROM job_blocks ORDER BY seq LIMIT 1')
sqlite3 jobs.db "UPDATE job_blocks SET data = x'$(python3 forge.py "$rows" 3)'
	WHERE seq = (SELECT min(seq) FROM job_blocks)"
msg="jobs.db: trace 1: job block 0: block claims 1099511627776 bytes for $rows jobs"
for c in check info "replay --policy fgd --no-store" "export --jobs -o j.csv"; do
	# shellcheck disable=SC2086 # $c is a command and its options
	bounded 1 "$VOIDFIT" $c jobs.db
	cat out err >both # check lists it with its other findings on stdout
	contains both "$msg"
done
[ ! -e j.csv ] || die "export left j.csv"

# a block that claims more rows than a block holds
sqlite3 jobs.db "UPDATE job_blocks SET data = x'$(python3 forge.py 1000000000 3)'
	WHERE seq = (SELECT min(seq) FROM job_blocks)"
bounded 1 "$VOIDFIT" info jobs.db
contains err "job block 0: block claims 1000000000 jobs, more than the 4096 a block holds"

# a run's series: the zstd frame is far too small for what it claims
cp t.db runs.db
sqlite3 runs.db "UPDATE run_blobs SET series = x'$(python3 forge.py 1099511627776 1)' WHERE run_id = 1"
msg="run 1: block claims 1099511627776 bytes, more than its 17 bytes of zstd inflate to"
bounded 1 "$VOIDFIT" check runs.db
contains out "$msg"
bounded 1 "$VOIDFIT" report runs.db -o r.html
contains err "runs.db: table run_blobs: 1 of its 2 rows do not match their checksum"
[ ! -e r.html ] || die "report wrote r.html from a damaged store"

# the same row sealed anew, as anyone can (voidfit(5), rsum and row_sums): the block itself
# is refused, in bounded memory
cat >reseal.py <<'EOF'
import hashlib, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
cur = db.execute("SELECT * FROM run_blobs WHERE run_id = 1")
names = [d[0] for d in cur.description]
row = cur.fetchone()
h = hashlib.sha256()
for name, v in zip(names, row):
    if name == "rsum" or v is None:
        continue
    h.update(name.encode() + b"\0")
    if isinstance(v, int):
        h.update(bytes([1]) + struct.pack("<q", v))
    else:
        h.update(bytes([4]) + struct.pack("<Q", len(v)) + bytes(v))
new = struct.unpack("<q", h.digest()[:8])[0]
old = row[names.index("rsum")]
total = db.execute("SELECT total FROM row_sums WHERE tbl = 'run_blobs'").fetchone()[0]
total = (total - old + new + (1 << 63)) % (1 << 64) - (1 << 63)
db.execute("UPDATE run_blobs SET rsum = ? WHERE run_id = 1", (new,))
db.execute("UPDATE row_sums SET total = ? WHERE tbl = 'run_blobs'", (total,))
db.commit()
EOF
python3 reseal.py runs.db
bounded 1 "$VOIDFIT" check runs.db
contains out "table run_blobs: 2 rows, checksums match"
contains out "$msg"
bounded 1 "$VOIDFIT" report runs.db -o r.html
contains err "runs.db: $msg"
[ ! -e r.html ] || die "report wrote r.html from a damaged store"
