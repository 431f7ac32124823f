# voidfit report's charts and HTML: the HTML is one well-formed file (XML-clean, and the
# HTML parser finds nothing but the SVG elements it does not know) with six inline charts;
# Markdown writes the same six as SVG files beside it, each of which rsvg-convert renders
# to a PNG that is not blank (its pixels carry many byte values, where a blank render of
# the same size carries a handful).
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces
command -v xmllint >/dev/null 2>&1 || skip "xmllint is not installed (libxml2-utils)"
command -v rsvg-convert >/dev/null 2>&1 || skip "rsvg-convert is not installed (librsvg2-bin)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (to read the PNGs)"
vf import -o t.db "$tr/storage-stress/jobs.csv" "$tr/storage-stress/nodes.csv" \
	>/dev/null 2>&1 || die "import failed"
vf replay t.db --policy fgd,scalar,tetris --seeds 1-2 >/dev/null 2>&1 || die "replay failed"

expect_rc 0 vf report t.db -o r.html
contains err "wrote r.html"
[ "$(grep -c '<svg xmlns' r.html)" -eq 6 ] || die "want 6 inline charts"
if grep -q '<img\|<script\|<link' r.html; then die "the HTML fetches something"; fi
xmllint --noout r.html 2>xml.err || { cat xml.err >&2; die "the HTML is not well-formed"; }
xmllint --html --noout r.html 2>html.err || die "xmllint --html failed"
if grep -v 'Tag \(svg\|title\|rect\|line\|polyline\|text\) invalid' html.err | grep -q error; then
	cat html.err >&2
	die "xmllint --html reports errors"
fi
ls r.html.tmp.* >/dev/null 2>&1 && die "a temporary file is left"

expect_rc 0 vf report t.db -o r.md
[ "$(ls r-*.svg | wc -l)" -eq 6 ] || die "want r-1.svg .. r-6.svg"
for i in 1 2 3 4 5 6; do contains r.md "](r-$i.svg)"; done

cat >png.py <<'PY'
import struct, sys, zlib
# the number of distinct byte values in the decoded scanlines of a PNG
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
i, idat = 8, b""
while i < len(d):
    n, = struct.unpack(">I", d[i:i + 4])
    if d[i + 4:i + 8] == b"IDAT":
        idat += d[i + 8:i + 8 + n]
    i += 12 + n
print(len(set(zlib.decompress(idat))))
PY
printf '<svg xmlns="http://www.w3.org/2000/svg" width="720" height="400"><rect x="0" y="0" width="720" height="400" fill="#ffffff"/></svg>\n' >blank.svg
rsvg-convert blank.svg -o blank.png || die "rsvg-convert failed on a blank chart"
blank=$(python3 png.py blank.png)
[ "$blank" -le 8 ] || die "a blank render has $blank byte values"
for f in r-*.svg; do
	rsvg-convert "$f" -o "${f%.svg}.png" 2>render.err || { cat render.err >&2; die "$f does not render"; }
	[ -s render.err ] && { cat render.err >&2; die "$f renders with warnings"; }
	n=$(python3 png.py "${f%.svg}.png")
	[ "$n" -gt 32 ] || die "$f renders nearly blank ($n byte values)"
	# each chart has a title, axis text and a legend in the palette
	grep -q 'font-weight="bold"' "$f" || die "$f has no title"
	grep -q '#0072B2\|#E69F00\|#009E73' "$f" || die "$f is not in the palette"
done
grep -q '>\$ per year</text>' r-1.svg || die "bar chart without its unit"
grep -q ">time since the trace&#39;s first arrival<" r-4.svg || die "line chart without its x axis"
grep -q '>pricing window ends</text>' r-4.svg || die "no window mark"
