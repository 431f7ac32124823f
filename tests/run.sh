#!/bin/sh
# Run every test layer: cmocka unit tests, end-to-end shell tests, golden cases, man lint.
# Usage: tests/run.sh BUILD_DIR. Prints one line per test file and a closing line
# "N passed, N failed, N skipped"; exits non-zero if anything failed.
# End-to-end tests read the real trace samples from $VOIDFIT_TRACES (default
# ../shared/traces next to the checkout); where absent, those tests report "skipped".
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
export VOIDFIT="$build/voidfit"
export VOIDFIT_TOP="$top"
: "${VOIDFIT_TRACES:=$top/../shared/traces}"
[ -d "$VOIDFIT_TRACES" ] || VOIDFIT_TRACES=""
export VOIDFIT_TRACES
pass=0 fail=0 skip=0 failed=""
work=$(mktemp -d "${TMPDIR:-/tmp}/voidfit-tests.XXXXXX")
trap 'rm -rf "$work"' EXIT

result() { # name rc
	case $2 in
	0) pass=$((pass + 1)); printf 'ok      %s\n' "$1" ;;
	77) skip=$((skip + 1)); printf 'skipped %s\n' "$1" ;;
	*) fail=$((fail + 1)); failed="$failed $1"; printf 'FAILED  %s (exit %s)\n' "$1" "$2" ;;
	esac
}

# Unit tests: each binary is one cmocka group; its own output goes to a log.
for t in "$build"/tests/test-*; do
	[ -x "$t" ] || continue
	n=unit/$(basename "$t")
	(cd "$work" && "$t") >"$work/log" 2>&1
	rc=$?
	result "$n" $rc
	[ $rc -eq 0 ] || sed 's/^/    /' "$work/log" | tail -30
done

# End-to-end tests: tests/e2e/*.sh, each in a fresh directory; exit 77 = skipped.
for t in "$top"/tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	n=e2e/$(basename "$t" .sh)
	d="$work/$(basename "$t" .sh)"
	mkdir -p "$d"
	(cd "$d" && sh "$t") >"$work/log" 2>&1
	rc=$?
	result "$n" $rc
	[ $rc -eq 0 ] || [ $rc -eq 77 ] || sed 's/^/    /' "$work/log" | tail -30
	[ $rc -eq 77 ] && sed 's/^/    /' "$work/log" | tail -1
done

# Golden cases: tests/golden/NAME/cmd is run with sh in a fresh directory; its stdout must
# equal tests/golden/NAME/expected byte for byte.
for g in "$top"/tests/golden/*/; do
	[ -f "$g/cmd" ] || continue
	n=golden/$(basename "$g")
	d="$work/golden-$(basename "$g")"
	mkdir -p "$d"
	(cd "$d" && GOLDEN="$g" sh "$g/cmd") >"$d/out" 2>"$d/err"
	if cmp -s "$d/out" "$g/expected"; then
		result "$n" 0
	else
		result "$n" 1
		diff -u "$g/expected" "$d/out" | head -40 | sed 's/^/    /'
		sed 's/^/    /' "$d/err" | tail -5
	fi
done

# Fuzz corpora: each seed of tests/fuzz/corpus/NAME through its harness (built with the
# plain driver, not libFuzzer), so that the harnesses and seeds stay good between fuzzings.
for f in "$build"/fuzz/fuzz-*; do
	[ -x "$f" ] || continue
	case $f in *-libfuzzer) continue ;; esac
	name=${f##*/fuzz-}
	if [ -d "$top/tests/fuzz/corpus/$name" ] &&
		(cd "$work" && "$f" "$top/tests/fuzz/corpus/$name") >"$work/log" 2>&1; then
		result "fuzz/$name" 0
	else
		result "fuzz/$name" 1
		tail -20 "$work/log" | sed 's/^/    /'
	fi
done

# Man pages: lint-clean under mandoc.
for m in "$top"/man/voidfit.[157]; do
	[ -f "$m" ] || continue
	if out=$(mandoc -Tlint -Wwarning "$m" 2>&1) && [ -z "$out" ]; then
		result "man/$(basename "$m")" 0
	else
		result "man/$(basename "$m")" 1
		printf '%s\n' "$out" | head -20 | sed 's/^/    /'
	fi
done

# Man pages: no warning from groff either (what man(1) uses on most systems), on a terminal
# and on paper.
if command -v groff >/dev/null 2>&1; then
	for m in "$top"/man/voidfit.[157]; do
		[ -f "$m" ] || continue
		out=$(for dev in utf8 ps; do groff -mandoc -ww -z -T$dev "$m" 2>&1; done)
		if [ -z "$out" ]; then
			result "groff/$(basename "$m")" 0
		else
			result "groff/$(basename "$m")" 1
			printf '%s\n' "$out" | head -20 | sed 's/^/    /'
		fi
	done
else
	result groff 77
	echo "    groff is not installed (scripts/deps.sh installs groff-base)"
fi

# Formatting: the committed .clang-format, where clang-format is installed.
if command -v clang-format >/dev/null 2>&1; then
	if out=$(cd "$top" && clang-format --dry-run --Werror src/*.c src/*.h include/*.h \
		tests/unit/*.c tests/fuzz/*.c 2>&1); then
		result lint/format 0
	else
		result lint/format 1
		printf '%s\n' "$out" | head -20 | sed 's/^/    /'
		echo "    (make format fixes it)"
	fi
else
	result lint/format 77
fi

# Layering and house rules.
if out=$("$top/scripts/check-layers.sh" 2>&1); then
	result lint/layers 0
else
	result lint/layers 1
	printf '%s\n' "$out" | head -20 | sed 's/^/    /'
fi

echo
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
