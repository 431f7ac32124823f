# voidfit report's failures: a store with no runs, an unknown scenario or run, a bad format
# or option, and an -o that cannot be written, where nothing is left half-written (no file,
# no temporary, no chart of a Markdown report whose document failed).
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"

expect_rc 1 vf report t.db
contains err "t.db: no runs"
expect_rc 1 vf report missing.db
contains err "missing.db"

vf replay t.db --policy fgd,scalar --seed 1 >/dev/null 2>&1 || die "replay failed"
expect_rc 1 vf report t.db --scenario 99
contains err "no scenario 99"
expect_rc 1 vf report t.db --runs 77
contains err "no run 77"
expect_rc 1 vf report t.db --trace nosuch
contains err "nosuch"
expect_rc 2 vf report t.db --format pdf
contains err "--format 'pdf'"
expect_rc 2 vf report t.db --baseline nosuch
contains err "--baseline 'nosuch'"
expect_rc 2 vf report t.db --api-price 2
contains err "--tokens-per-gpu-hour"
expect_rc 2 vf report t.db --api-price -1 --tokens-per-gpu-hour 5
contains err "--api-price '-1'"
expect_rc 2 vf report t.db --scenario 1 --runs 1
expect_rc 2 vf report
contains err "no STORE"

# a directory that is not there: nothing written
expect_rc 1 vf report t.db -o nodir/r.html
contains err "nodir/r.html"
[ ! -e nodir ] || die "nodir appeared"
# the document's name is a directory: the charts written before it are taken back
mkdir -p d/r.md
expect_rc 1 vf report t.db -o d/r.md
contains err "d/r.md"
[ "$(ls d)" = "r.md" ] || { ls d >&2; die "files left beside a failed document"; }
# an existing report survives a failed one whole
vf report t.db -o old.txt 2>/dev/null || die "report -o failed"
cp old.txt want.txt
expect_rc 2 vf report t.db -o old.txt --format pdf
cmp -s old.txt want.txt || die "a failed report changed the old file"
[ "$(ls old.txt.tmp.* 2>/dev/null | wc -l)" -eq 0 ] || die "temporary files left"
# the format follows -o's ending, else text
vf report t.db -o r.json 2>/dev/null && grep -q '"verdict"' r.json || die "-o r.json is not JSON"
vf report t.db -o r 2>/dev/null && grep -q '^1. Cost by bucket' r || die "-o r is not text"
vf report t.db -o r.htm 2>/dev/null && grep -q '<html' r.htm || die "-o r.htm is not HTML"
# an ending that is no format's, or another format's than --format, is refused: no r.pdf
# of plain text
expect_rc 2 vf report t.db -o r.pdf
contains err "-o 'r.pdf': '.pdf' is not the ending of a report format"
[ ! -e r.pdf ] || die "report -o r.pdf wrote r.pdf"
expect_rc 2 vf report t.db -o r.html --format md
contains err "-o 'r.html': '.html' is not the ending of --format md (.md)"
[ ! -e r.html ] || die "report -o r.html --format md wrote r.html"
vf report t.db -o r2.md --format md 2>/dev/null && [ -s r2.md ] || die "-o r2.md --format md failed"
