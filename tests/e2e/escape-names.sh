# escape-names.sh — names from a hostile trace stay inert in every output: a node, a file
# and a trace named with ESC, BEL, CR and LF (a terminal title, a screen clear, a fake
# "# Verdict" heading) reach no output raw from info, check, import, replay, runs, compare,
# report (text, md, csv, html, json) or the dashboard; Markdown gets no injected heading;
# CSV cells that start with = + - @ are neutralised, numbers are not.
. "$VOIDFIT_TOP/tests/lib.sh"
E=$(printf '\033') B=$(printf '\007') CR=$(printf '\r')
bad="${E}]0;pwned${B}${E}[2J"
nodes="nodes${bad}.csv"
{
	echo "node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli"
	echo "\"n0${bad}${CR}\",g,A100,128000,1048576,8,40960,12500,2000,16000"
	echo "\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",@grp,A100,128000,1048576,8,40960,12500,2000,16000"
	echo "-n2,+g,A100,128000,1048576,8,40960,12500,2000,16000"
} >"$nodes"
head -20 "$VOIDFIT_TOP/traces/storage-stress/jobs.csv" >jobs.csv
name="$(printf 'evil\n# Verdict\n%s[31mred%s\n- item' "$E" "$CR")"

# raw FILE...: fail if a file holds ESC, BEL, CR or another control byte (tab, newline
# and CSV's CR LF at a line's end aside), or a byte that is not UTF-8.
raw() {
	for r in "$@"; do
		if LC_ALL=C sed "s/$CR\$//" "$r" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')"; then
			cat -v "$r" >&2
			die "$r holds a raw control byte"
		fi
		iconv -f UTF-8 -t UTF-8 "$r" >/dev/null 2>&1 || die "$r is not UTF-8"
	done
}

expect_rc 0 vf import -o t.db --name "$name" --nodes "$nodes" jobs.csv
raw out err
contains out 'nodes\x1b]0;pwned\x07\x1b[2J.csv: native-nodes, 3 rows read, 3 accepted'
contains out "trace 'evil\\x0a# Verdict\\x0a\\x1b[31mred\\x0d\\x0a- item' (id 1)"
expect_rc 0 vf info t.db
raw out err
contains out 'file nodes\x1b]0;pwned\x07\x1b[2J.csv: format native-nodes'
expect_rc 0 vf check t.db
raw out err
contains out "trace 'evil\\x0a# Verdict"
expect_rc 0 vf replay t.db --policy fgd,scalar --seed 1
raw out err
contains out 'fgd     1'
expect_rc 0 vf runs t.db
raw out err
contains out 'trace evil\x0a# Verdict\x0a\x1b[31mred\x0d\x0a- item  timed'
for f in text md csv html json; do
	expect_rc 0 vf report t.db --baseline scalar -f "$f"
	raw out err
	mv out "report.$f"
done
# Markdown: the name is one escaped run of text, no heading or list item of its own
if grep -q '^#* *Verdict' report.md || grep -q '^- item' report.md; then
	cat report.md >&2
	die "the trace name injected Markdown"
fi
contains report.md 'evil\\x0a\# Verdict\\x0a\\x1b\[31mred\\x0d\\x0a- item'
contains report.html 'evil\x0a# Verdict\x0a\x1b[31mred\x0d\x0a- item'
contains report.json 'evil\n# Verdict\n\u001b[31mred\r\n- item'
# a failing command quotes the name escaped too
expect_rc 1 vf replay t.db --policy fgd -n --fault "zz${bad}:sto=0.5@0+1h"
raw out err
contains err "'zz\x1b]0;pwned\x07\x1b[2J' names no node"

# CSV: a trace named as a formula is neutralised where it is a cell; numbers are not
expect_rc 0 vf import -o f.db --name '=HYPERLINK("http://x","y")' jobs.csv "$VOIDFIT_TOP/traces/storage-stress/nodes.csv"
expect_rc 0 vf replay f.db --policy fgd -n -f csv
raw out err
contains out ",\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\","
for n in '+cmd' '-2+3' '@SUM(A1)'; do
	expect_rc 0 vf import -o "f$n.db" --name "$n" jobs.csv "$VOIDFIT_TOP/traces/storage-stress/nodes.csv"
	expect_rc 0 vf replay "f$n.db" --policy fgd -n -f csv
	contains out ",'$n,"
done
expect_rc 0 vf import -o m.db --name '-3' jobs.csv "$VOIDFIT_TOP/traces/storage-stress/nodes.csv"
expect_rc 0 vf replay m.db --policy fgd -n -f csv
contains out ',timed,-3,'
expect_rc 0 vf compare t.db -f csv
raw out err

# the dashboard: node names drawn escaped, the pane's title untouched
. "$VOIDFIT_TOP/tests/e2e/dash-tmux.lib"
dash_start 160 30 -- --paused t.db
wait_for "voidfit dash"
wait_for 'n0\x1b]0;pwned\x07\x1b[2J\x0d'
screen
contains screen 'evil\x0a# Verdict'
[ "$(tm display -p '#{pane_title}')" != pwned ] || die "a node name set the terminal's title"
keys q
