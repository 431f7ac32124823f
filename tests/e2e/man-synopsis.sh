# Every command's usage line ('voidfit CMD -h', first line) matches its SYNOPSIS entry in
# man/voidfit.1 as rendered, word for word (whitespace normalised), and so does voidfit's
# own ('voidfit -h'); every command listed by 'voidfit -h' has an entry, and the page has
# no entry for a command that does not exist.
. "$VOIDFIT_TOP/tests/lib.sh"

command -v mandoc >/dev/null 2>&1 || skip "mandoc is not installed"
page="$VOIDFIT_TOP/man/voidfit.1"
[ -f "$page" ] || die "man/voidfit.1 is missing"

# Render as plain ASCII, drop the overstriking (what 'col -b' does, without needing col),
# keep the SYNOPSIS section (up to the next section heading).
bs=$(printf '\b')
mandoc -Tascii "$page" | sed "s/.$bs//g" >rendered
sed -n '/^SYNOPSIS$/,/^[A-Z][A-Z ]*$/p' rendered | sed '1d;$d' >synopsis
[ -s synopsis ] || die "no SYNOPSIS section in the rendered page"

# One line per entry: an entry starts with "voidfit WORD" at the section's indent, and the
# more deeply indented lines after it are its wrapped continuation.
awk '
function flush() { if (cur != "") print cur; cur = "" }
/^[ \t]*$/ { flush(); next }
{
	line = $0
	sub(/^[ \t]+/, "", line)
	indent = length($0) - length(line)
	if (cur == "" || indent <= base) {
		flush()
		base = indent
		cur = line
	} else {
		cur = cur " " line
	}
}
END { flush() }
' synopsis | tr -s ' \t' '  ' | sed 's/ *$//' >entries

# The synopsis entries of commands: "voidfit" followed by a lowercase word.
grep -E '^voidfit [a-z][a-z0-9-]*( |$)' entries >cmd-entries || true
cut -d' ' -f2 cmd-entries | sort >page-cmds
[ -z "$(sort page-cmds | uniq -d)" ] || die "commands with two SYNOPSIS entries: $(sort page-cmds | uniq -d | tr '\n' ' ')"

# The commands the binary has.
vf -h | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p' | sort >bin-cmds
[ -s bin-cmds ] || die "'voidfit -h' lists no commands"

fail=0
# voidfit's own usage line ('voidfit -h', first line) is the entry that names no command.
want=$(vf -h | head -1 | sed 's/^usage: //' | tr -s ' \t' '  ' | sed 's/ *$//')
grep -qxF -- "$want" entries || {
	echo "FAIL: no SYNOPSIS entry '$want' (the usage line of 'voidfit -h')" >&2
	fail=1
}
for c in $(cat bin-cmds); do
	if ! grep -qx "$c" page-cmds; then
		echo "FAIL: command '$c' has no SYNOPSIS entry in voidfit.1" >&2
		fail=1
		continue
	fi
	want=$(vf "$c" -h | head -1 | sed 's/^usage: //' | tr -s ' \t' '  ' | sed 's/ *$//')
	got=$(grep -E "^voidfit $c( |\$)" cmd-entries)
	if [ "$want" != "$got" ]; then
		echo "FAIL: '$c': usage and SYNOPSIS differ" >&2
		echo "  usage:    $want" >&2
		echo "  SYNOPSIS: $got" >&2
		fail=1
	fi
done
for c in $(cat page-cmds); do
	grep -qx "$c" bin-cmds || {
		echo "FAIL: voidfit.1 has a SYNOPSIS entry for '$c', which is not a command" >&2
		fail=1
	}
done
[ $fail -eq 0 ] || exit 1
echo "$(wc -l <bin-cmds) commands: usage lines match the SYNOPSIS"
