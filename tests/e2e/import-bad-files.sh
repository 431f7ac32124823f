# import-bad-files.sh — whole files that cannot be imported: each gets a clear message
# naming the file (and line), exit 1, and the store stays as it was. A UTF-8 BOM is fine.
. "$VOIDFIT_TOP/tests/lib.sh"
h=sn,cpu_milli,memory_mib,gpu,model
printf '%s\nn0,32000,262144,2,T4\n' "$h" > good.csv
expect_rc 0 vf import -o b.db good.csv
vf info b.db > before
same() { vf info b.db > after; cmp before after || die "the store changed"; }

# not CSV: binary, and text that is no known format
printf '\211PNG\r\n\032\n\0\0\0\rIHDR' > pic.png
expect_rc 1 vf import -o b.db pic.png
contains err "pic.png:3: NUL byte (not a text CSV file)"
printf 'Dear planner,\nhere is the trace you asked for.\n' > letter.txt
expect_rc 1 vf import -o b.db letter.txt
contains err "letter.txt:1: not a trace format voidfit knows"
same
# empty, header only
: > empty.csv
expect_rc 1 vf import -o b.db empty.csv
contains err "empty.csv: empty file (no header, no rows)"
printf '%s\n' "$h" > head.csv
expect_rc 1 vf import -o b.db head.csv
contains err "head.csv: a header and no rows"
same
# truncated compressed files
{ cat good.csv; seq 1 5000 | sed 's/.*/n&,32000,262144,2,T4/'; } > big.csv
gzip -c big.csv | head -c 3000 > cut.csv.gz
expect_rc 1 vf import -o b.db cut.csv.gz
contains err "cut.csv.gz: truncated gzip data"
zstd -q -c big.csv | head -c 3000 > cut.csv.zst
expect_rc 1 vf import -o b.db cut.csv.zst
contains err "cut.csv.zst: truncated zstd data"
same
# a NUL byte inside a text file, a 10 MB field (a file cut inside a quoted field is no file
# error: import-cut.sh)
printf '%s\nn1,1,1,0,\nn2,1\0,1,0,\n' "$h" > nul.csv
expect_rc 1 vf import -o b.db nul.csv
contains err "nul.csv:3: NUL byte"
{ printf '%s\nn1,' "$h"; head -c 10485760 /dev/zero | tr '\0' 7; printf ',1,0,\n'; } > wide.csv
expect_rc 1 vf import -o b.db wide.csv
contains err "wide.csv:2: record longer than 1048576 bytes"
same
# a bad file among good ones fails the whole import
printf '%s\nn9,1,1,0,\n' "$h" > good2.csv
expect_rc 1 vf import -o b.db good2.csv empty.csv
same
# a UTF-8 BOM is stripped for parsing and kept in the raw bytes
printf '\357\273\277%s\nn5,32000,262144,0,\n' "$h" > bom.csv
expect_rc 0 vf import -o b.db bom.csv
contains out "bom.csv: openb-nodes, 1 rows read, 1 accepted, 0 quarantined"
vf export --raw --trace bom -d raw b.db
cmp bom.csv raw/bom.csv || die "BOM file not exported byte for byte"
# a missing file, an unknown format
expect_rc 1 vf import -o b.db nosuch.csv
contains err "nosuch.csv: cannot open"
expect_rc 2 vf import -o b.db --format nosuch good.csv
contains err "format 'nosuch' is not known"
expect_rc 2 vf import -o b.db
