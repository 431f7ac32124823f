# The compiler and flags are part of the build's dependencies: after a plain build,
# 'make DEV=1', 'make SANITIZE=...' or 'make CC=...' is not up to date, and a repeated
# build with the same flags is (and leaves $(BUILD)/flags alone). One object is enough.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v make >/dev/null 2>&1 || skip "make is not installed"
# make exports its command line (make DEV=1 check) to the tests: start from a plain build.
unset MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES DEV SANITIZE OPT CC CFLAGS LDFLAGS BUILD V
b=$PWD/b
o=$b/obj/util.o
mk() { make -s -C "$VOIDFIT_TOP" BUILD="$b" OPT=-O0 "$@"; }
mk "$o" >log 2>&1 || { cat log >&2; die "could not build $o"; }
[ -f "$b/flags" ] || die "no $b/flags after a build"
uprc() { set +e; mk -q "$@" "$o" >/dev/null 2>&1; rc=$?; set -e; echo $rc; }
[ "$(uprc)" -eq 0 ] || die "the same flags again: $o is not up to date"
[ "$(uprc DEV=1)" -ne 0 ] || die "make DEV=1 after a plain make: $o counts as up to date"
[ "$(uprc SANITIZE=undefined)" -ne 0 ] || die "make SANITIZE=undefined: $o counts as up to date"
[ "$(uprc CC=no-such-cc)" -ne 0 ] || die "make CC=no-such-cc: $o counts as up to date"
[ "$(uprc CFLAGS=-DX=1)" -ne 0 ] || die "make CFLAGS=-DX=1: $o counts as up to date"
# The sanitizers reach the compiler even when OPT is given too (as CI does).
mk -q SANITIZE=undefined OPT="-O1 -g" "$o" >/dev/null 2>&1 || true
sed 's/|.*//' "$b/flags" | grep -q -- '-fsanitize=undefined' ||
	die "SANITIZE=undefined OPT=...: no -fsanitize in the compile flags: $(cat "$b/flags")"
# -q parses the Makefile too: the last probe wrote CFLAGS=-DX=1 into flags; a plain build
# puts its own flags back and rebuilds, and one more changes nothing.
mk "$o" >log 2>&1 || { cat log >&2; die "rebuild failed"; }
cp "$b/flags" flags.1
touch -d '2000-01-01' "$b/flags"
mk "$o" >log 2>&1 || { cat log >&2; die "rebuild failed"; }
[ "$(uprc)" -eq 0 ] || die "rebuilt with the same flags: $o is not up to date"
[ "$(find "$b/flags" -newermt '2001-01-01')" = "" ] || die "flags rewritten though unchanged"
cmp -s flags.1 "$b/flags" || die "flags changed between two same builds"
echo "flags: a change rebuilds, the same flags do not"
